//! Any valid problem, however scaled or degenerate, gets an answer or a
//! reported failure, never a panic; a solved answer satisfies Coulomb's law
//! checked from the data.

use proptest::prelude::*;
use zwang_contact::generate::coulomb_violation;
use zwang_contact::{ContactSolver, Friction, LocalProblem, SolverSettings, Status};

/// `W = J J^T` for a random `J` (`2 nc x dofs`, possibly fewer dofs than
/// rows: rank deficient), scaled by `scale`; `q`, `mu` random.
fn problem() -> impl Strategy<Value = LocalProblem> {
    (1usize..6, 1usize..8, -6i32..6)
        .prop_flat_map(|(nc, dofs, exponent)| {
            (
                proptest::collection::vec(-1.0f64..1.0, 2 * nc * dofs),
                proptest::collection::vec(-1.0f64..1.0, 2 * nc),
                proptest::collection::vec(prop_oneof![Just(0.0), 0.0f64..2.0], nc),
                Just((nc, dofs, 10f64.powi(exponent))),
            )
        })
        .prop_map(|(j, q, mu, (nc, dofs, scale))| {
            let n = 2 * nc;
            let mut w = sprs::TriMat::new((n, n));
            for a in 0..n {
                for b in 0..n {
                    let v: f64 = (0..dofs).map(|k| j[a * dofs + k] * j[b * dofs + k]).sum();
                    w.add_triplet(a, b, scale * v);
                }
            }
            LocalProblem {
                dimension: 2,
                w: w.to_csr(),
                q,
                mu,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn never_panics_and_solved_answers_obey_coulomb(p in problem(), convex in any::<bool>()) {
        let friction = if convex { Friction::Convex } else { Friction::Exact };
        let settings = SolverSettings { friction, ..SolverSettings::default() };
        let s = ContactSolver::new().solve(&p, &settings, None).unwrap();
        prop_assert!(s.r.iter().chain(&s.u).all(|x| x.is_finite()));
        if s.status == Status::Solved && friction == Friction::Exact {
            let scale = p.q.iter().chain(&s.r).chain(&s.u).fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
            prop_assert!(coulomb_violation(&p.mu, &s.r, &s.u, scale) < 1e-8);
        }
    }
}
