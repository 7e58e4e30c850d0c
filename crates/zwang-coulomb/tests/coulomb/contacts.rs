//! Small contact systems with their matrices written out: a particle on an
//! incline, a box on two corners, sticking, and other rows beside the
//! sliding normals.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zwang_coulomb::{
    check, fixed_point, frozen_qp, sticking, variational, variational_with, Answers,
    ContactSettings, Difference, FixedPointOptions, Mode, Verdict,
};
use zwang_instant::{
    matrix_from_triplets, Instant, RowRef, RowSet, SlidingContact, StickingContact,
};
use zwang_qp::{Backend, ClarabelBackend, Status};

const G: f64 = 9.81;

fn as_slices(v: &[Vec<f64>]) -> Vec<&[f64]> {
    v.iter().map(|r| r.as_slice()).collect()
}

fn dense(key: &str, rows: &[&[f64]]) -> sprs::CsMat<f64> {
    let shape = (rows.len(), rows[0].len());
    let trip = rows
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.iter().enumerate().map(move |(j, &v)| (i, j, v)))
        .filter(|t| t.2 != 0.0);
    matrix_from_triplets(key, shape, trip).unwrap()
}

const INEQ0: RowRef = RowRef {
    set: RowSet::Inequalities,
    row: 0,
};

/// A contact on inequality row `row`, sliding along `tangent` (slip
/// `slip`, +1 or -1) with friction `mu`.
fn sliding_on(row: usize, tangent: Vec<f64>, mu: f64, slip: f64) -> SlidingContact {
    SlidingContact {
        normal: RowRef {
            set: RowSet::Inequalities,
            row,
        },
        tangent,
        mu,
        slip,
    }
}

/// A particle of mass `m` on an incline of angle `alpha`, sliding along
/// `t = (cos a, sin a)` with slip `s`:
///
/// ```text
/// M = diag(m, m), Q = (0, -m g), J_n = (-sin a, cos a) (row >= 0)
/// D = 1/m, J_n M^-1 J_t^T = (-sin a cos a + cos a sin a)/m = 0  =>  C = 0
/// lambda_n = m g cos a, a . t = -g sin a - mu s g cos a
/// ```
#[test]
fn particle_on_an_incline_is_equivalent() {
    let (m, alpha, mu): (f64, f64, f64) = (2.0, 0.4, 0.3);
    let (sa, ca) = alpha.sin_cos();
    for slip in [1.0, -1.0] {
        let instant = Instant::builder(dense("mass", &[&[m, 0.0], &[0.0, m]]), vec![0.0, -m * G])
            .inequalities(dense("inequalities.A", &[&[-sa, ca]]), vec![0.0])
            .sliding(sliding_on(0, vec![ca, sa], mu, slip))
            .build()
            .unwrap();
        let r = check(&instant);
        assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.reason);
        assert_eq!((r.coupling, r.c()[0][0]), (0.0, 0.0));
        assert!((r.d()[0][0] - 1.0 / m).abs() < 1e-15);
        let var = variational(&instant);
        let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
        assert!(Difference::between(&frozen.solution, &var.solution).max() < 1e-10);
        let a = &var.solution.acceleration;
        let along = a[0] * ca + a[1] * sa;
        assert!((along - (-G * sa - mu * slip * G * ca)).abs() < 1e-12);
        assert!((var.normal_forces[0] - m * G * ca).abs() < 1e-12);
        // The fixed point has nothing to do: its first re-solve agrees.
        let fp = fixed_point(
            &instant,
            &mut ClarabelBackend::new(),
            FixedPointOptions::default(),
        );
        assert!(fp.converged && fp.iterations == 1 && fp.rate == Some(0.0));
    }
}

/// A box of mass 1, half-width `a = 0.5`, half-height `b = 1`
/// (`J = (a^2 + b^2)/3 = 5/12`), flat on its two bottom corners and sliding
/// to the right (`s = +1` at both), `q = (x, y, phi)`:
///
/// ```text
/// J_n1 = (0, 1, -a)  rear corner      J_n2 = (0, 1, a)  front corner
/// J_t1 = J_t2 = (1, 0, b)
/// D = [p q; q p], p = 1/m + a^2/J = 1.6, q = 1/m - a^2/J = 0.4
/// J_n M^-1 J_t^T = [-ab/J -ab/J; ab/J ab/J], ab/J = 1.2
/// G = [p + e1  q + e2; q - e1  p - e2], e_i = 1.2 mu_i
/// ```
fn box_on_two_corners(mu: [f64; 2]) -> Instant {
    let (a, b) = (0.5, 1.0);
    let j = (a * a + b * b) / 3.0;
    let mut builder = Instant::builder(
        dense(
            "mass",
            &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, j]],
        ),
        vec![0.0, -G, 0.0],
    )
    .inequalities(
        dense("inequalities.A", &[&[0.0, 1.0, -a], &[0.0, 1.0, a]]),
        vec![0.0, 0.0],
    );
    for (row, mu) in mu.into_iter().enumerate() {
        builder = builder.sliding(sliding_on(row, vec![1.0, 0.0, b], mu, 1.0));
    }
    builder.build().unwrap()
}

fn assert_matrix(got: &[Vec<f64>], want: [[f64; 2]; 2]) {
    for i in 0..2 {
        for j in 0..2 {
            assert!(
                (got[i][j] - want[i][j]).abs() < 1e-12,
                "{got:?} vs {want:?}"
            );
        }
    }
}

/// Equal `mu = 0.3` (`e = 0.36`): `G = [1.96 0.76; 0.04 1.24]`, a
/// P-matrix (minors 1.96, 1.24, det 2.4); `lambda = G^-1 (g, g) = (0.2 g,
/// 0.8 g)`. `D^-1 C = [-0.3 -0.3; 0.3 0.3]` is nilpotent (coupling 0) and
/// its columns sum to zero with equal tangents: the total friction
/// `mu (lambda_1 + lambda_2) = mu m g` does not feel friction, so the
/// frozen QP is exact although `C != 0` (not equivalent as a principle).
#[test]
fn box_with_equal_friction_p_matrix_and_exact_frozen_qp() {
    let instant = box_on_two_corners([0.3, 0.3]);
    let r = check(&instant);
    assert_matrix(&r.d(), [[1.6, 0.4], [0.4, 1.6]]);
    assert_matrix(&r.c(), [[-0.36, -0.36], [0.36, 0.36]]);
    assert_matrix(&r.g(), [[1.96, 0.76], [0.04, 1.24]]);
    assert_eq!(r.verdict, Verdict::NotEquivalent);
    assert_eq!(r.p_matrix, Some(true));
    assert!(r.coupling < 1e-7, "nilpotent: {}", r.coupling);
    assert!(r.frozen_exact, "{}", r.reason);
    let var = variational(&instant);
    assert_eq!(var.solution.status, Status::Solved);
    assert!((var.normal_forces[0] - 0.2 * G).abs() < 1e-12);
    assert!((var.normal_forces[1] - 0.8 * G).abs() < 1e-12);
    let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
    assert!(Difference::between(&frozen.solution, &var.solution).max() < 1e-8);
}

/// `mu = (0.2, 0.4)`: `C = 1.2 [-0.2 -0.4; 0.2 0.4]`,
/// `D^-1 C = [-0.2 -0.4; 0.2 0.4]` with eigenvalues 0 and 0.2: coupling
/// 0.2, the frozen QP is off and the fixed point contracts at 0.2.
#[test]
fn box_with_unequal_friction_contracts_at_the_spectral_radius() {
    let instant = box_on_two_corners([0.2, 0.4]);
    let r = check(&instant);
    assert_matrix(&r.c(), [[-0.24, -0.48], [0.24, 0.48]]);
    assert_eq!(r.verdict, Verdict::NotEquivalent);
    assert!(!r.frozen_exact);
    assert!((r.coupling - 0.2).abs() < 1e-12);
    // Contact by contact: kappa_i = |C_ii| / D_ii.
    assert!((r.contacts[0].coupling - 0.24 / 1.6).abs() < 1e-12);
    assert!((r.contacts[1].coupling - 0.48 / 1.6).abs() < 1e-12);
    let var = variational(&instant);
    assert_eq!(var.solution.status, Status::Solved);
    let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
    assert!(Difference::between(&frozen.solution, &var.solution).max() > 1e-3);
    let fp = fixed_point(
        &instant,
        &mut ClarabelBackend::new(),
        FixedPointOptions::default(),
    );
    assert!(fp.converged);
    assert!((fp.rate.unwrap() - 0.2).abs() < 1e-4, "{:?}", fp.rate);
    assert!(Difference::between(&fp.solution, &var.solution).max() < 1e-7);
}

/// `mu = 1` (`e = 1.2`): `G = [2.8 1.6; -0.8 0.4]` is still a P-matrix
/// (minors 2.8, 0.4, det 2.4), but with both corners closed
/// `lambda_1 = g (0.4 - 1.6) / 2.4 < 0`: the rear corner lifts. By hand,
/// with corner 1 alone closed: `x'' = -lambda`, `y'' = -g + lambda`,
/// `th'' = (0.5 - 1) lambda / J = -1.2 lambda`, and `y'' + 0.5 th'' = 0`
/// gives `lambda = g / 0.4 = 24.525`, `a = (-24.525, 14.715, -29.43)`;
/// corner 0 then separates at `y'' - 0.5 th'' = 29.43 > 0`. The other three
/// mode combinations fail (corner 0 alone: `w_2 = -g - 0.8 g / 2.8 < 0`),
/// so the answer is unique; the one closed contact has `D = 1.6`,
/// `C = 1.2`, `kappa = 0.75`: not equivalent. `mu = 1.5` (`e = 1.8`):
/// `G = [3.4 2.2; -1.4 -0.2]`, `G_22 < 0`, not a P-matrix, and the LCP with
/// `w_free = (-g, -g)` has no solution (`{}`: `w < 0`; `{1}`:
/// `w_2 = -1.4 g / 3.4 - g < 0`; `{2}`: `lambda_2 = -g / 0.2 < 0`;
/// `{1, 2}`: `lambda = g (-1, 2)`): Painleve, inconsistent.
#[test]
fn box_tipping_and_painleve() {
    let tipping = box_on_two_corners([1.0, 1.0]);
    let r = check(&tipping);
    assert_matrix(&r.g(), [[0.0, 0.0], [0.0, 0.4]]);
    assert_eq!(r.p_matrix, Some(true));
    assert_eq!(r.verdict, Verdict::NotEquivalent, "{}", r.reason);
    assert_eq!(r.contacts[0].verdict, Verdict::Equivalent);
    assert!((r.contacts[1].coupling - 0.75).abs() < 1e-12);
    assert!(!r.frozen_exact);
    let var = variational(&tipping);
    assert_eq!(var.solution.status, Status::Solved);
    assert_eq!(var.answers, Answers::One);
    assert_eq!(var.modes, vec![Mode::Open, Mode::Slide]);
    let want = [-G / 0.4, -G + G / 0.4, -1.2 * G / 0.4];
    for (x, w) in var.solution.acceleration.iter().zip(want) {
        assert!((x - w).abs() < 1e-12 * G, "{x} vs {w}");
    }
    assert_eq!(var.solution.multipliers_in[0], 0.0);
    assert!((var.solution.multipliers_in[1] - G / 0.4).abs() < 1e-12 * G);
    assert!(var.solution.residuals.max() < 1e-13);

    let painleve = box_on_two_corners([1.5, 1.5]);
    let r = check(&painleve);
    assert_matrix(&r.g(), [[3.4, 2.2], [-1.4, -0.2]]);
    assert_eq!(r.p_matrix, Some(false));
    assert_eq!(r.verdict, Verdict::PainleveInconsistent, "{}", r.reason);
    assert!(r
        .contacts
        .iter()
        .all(|c| c.verdict == Verdict::PainleveInconsistent));
    assert_eq!(r.free_normal_acceleration, vec![-G, -G]);
}

/// A particle on an incline held by a sticking row `t . a = 0`
/// (`t = (cos a, sin a)` up the slope, `n = (-sin a, cos a)`):
/// `lambda_n = m g cos a`, `lambda_t = m g sin a`, ratio `tan a / mu`.
/// Inside the cone (`mu = 0.8 > tan 0.5`) the Newton answer sticks; outside
/// (`mu = 0.3`) it slides down: `lambda_n = m g cos a`, the friction
/// `+mu lambda_n` up the slope, `a = -g (sin a - mu cos a) t`.
#[test]
fn sticking_inside_and_outside_the_cone() {
    let (m, alpha): (f64, f64) = (1.5, 0.5);
    let (sa, ca) = alpha.sin_cos();
    for (mu, holds) in [(0.8, true), (0.3, false)] {
        let instant = Instant::builder(dense("mass", &[&[m, 0.0], &[0.0, m]]), vec![0.0, -m * G])
            .equalities(dense("equalities.A", &[&[ca, sa]]), vec![0.0])
            .inequalities(dense("inequalities.A", &[&[-sa, ca]]), vec![0.0])
            .sticking(StickingContact {
                normal: INEQ0,
                tangent_row: 0,
                mu,
            })
            .build()
            .unwrap();
        let s = sticking(&instant, &mut ClarabelBackend::new());
        let c = &s.contacts[0];
        assert!((c.normal_force - m * G * ca).abs() < 1e-8);
        assert!((c.tangential_force - m * G * sa).abs() < 1e-8);
        assert!((c.ratio - alpha.tan() / mu).abs() < 1e-8);
        assert_eq!(c.holds, holds);
        let var = variational(&instant);
        assert_eq!(var.solution.status, Status::Solved);
        assert_eq!(var.answers, Answers::One);
        assert!(var.solution.residuals.max() < 1e-12);
        if holds {
            // Sticking: the QP with the tangent row held is the motion.
            assert_eq!(var.modes, vec![Mode::Stick]);
            assert!(Difference::between(&var.solution, &s.solution).max() < 1e-8);
            assert!(zwang_coulomb::sticking_checks(&instant, &var.solution)[0].holds);
        } else {
            assert_eq!(var.modes, vec![Mode::Slide]);
            let at = -G * (sa - mu * ca);
            let a = &var.solution.acceleration;
            assert!((a[0] - at * ca).abs() < 1e-12 && (a[1] - at * sa).abs() < 1e-12);
            assert!((var.normal_forces[0] - m * G * ca).abs() < 1e-12);
            assert!((var.tangential_forces[0] - mu * m * G * ca).abs() < 1e-12);
        }
    }
}

/// A rod (`q = (x, y, th)`, `m = 1`, `l = 1`, `J = 1/3`) at 60 degrees with
/// its rotation locked by the equality row `th'' = 0`: `M_E^-1 =
/// diag(1, 1, 0)`, so `D = 1` and `J_n M_E^-1 J_t^T = (0, 1, -l c) .
/// (1, 0, 0) = 0`. Equivalent, as for a particle; with `M^-1` instead of
/// `M_E^-1` it would look coupled (`-3 sin cos`).
#[test]
fn other_rows_enter_through_the_constrained_inverse_mass() {
    let (s, c) = 60f64.to_radians().sin_cos();
    let instant = Instant::builder(
        dense(
            "mass",
            &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0 / 3.0]],
        ),
        vec![0.0, -G, 0.0],
    )
    .equalities(dense("equalities.A", &[&[0.0, 0.0, 1.0]]), vec![0.0])
    .inequalities(dense("inequalities.A", &[&[0.0, 1.0, -c]]), vec![0.0])
    .sliding(sliding_on(0, vec![1.0, 0.0, s], 0.5, -1.0))
    .build()
    .unwrap();
    let r = check(&instant);
    assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.reason);
    assert!((r.d()[0][0] - 1.0).abs() < 1e-12);
    let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
    assert!(Difference::between(&frozen.solution, &variational(&instant).solution).max() < 1e-9);
}

/// Random systems with other equality rows beside two sliding contacts,
/// checked against the QP without going through the checker's algebra:
/// the frictionless QP gives `D lambda_0 + w_free = 0`, the frozen QP
/// `D lambda_1 - C lambda_0 + w_free = 0`, the variational answer
/// `G lambda + w_free = 0`.
#[test]
fn operators_agree_with_the_qp_on_random_constrained_systems() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let n = 6;
    let mut checked = 0;
    for _ in 0..20 {
        // M = B B^T + I, dense and SPD.
        let b: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect())
            .collect();
        let mass: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        (0..n).map(|k| b[i][k] * b[j][k]).sum::<f64>() + f64::from(u8::from(i == j))
                    })
                    .collect()
            })
            .collect();
        let mut row = || -> Vec<f64> { (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect() };
        let eq: Vec<Vec<f64>> = (0..2).map(|_| row()).collect();
        let normals: Vec<Vec<f64>> = (0..2).map(|_| row()).collect();
        let tangents: Vec<Vec<f64>> = (0..2).map(|_| row()).collect();
        // Q pushes into both contacts: Q = -10 (J_n1 + J_n2)^T.
        let force: Vec<f64> = (0..n)
            .map(|j| -10.0 * (normals[0][j] + normals[1][j]))
            .collect();
        let mut builder = Instant::builder(dense("mass", &as_slices(&mass)), force)
            .equalities(dense("equalities.A", &as_slices(&eq)), vec![0.3, -0.2])
            .inequalities(
                dense("inequalities.A", &as_slices(&normals)),
                vec![0.0, 0.0],
            );
        for (k, t) in tangents.iter().enumerate() {
            builder = builder.sliding(sliding_on(
                k,
                t.clone(),
                0.2,
                if k == 0 { 1.0 } else { -1.0 },
            ));
        }
        let instant = builder.build().unwrap();
        let r = check(&instant);
        let qp = ClarabelBackend::new().solve(&instant);
        let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
        let var = variational(&instant);
        let l0 = &qp.multipliers_in;
        if l0.iter().any(|&l| l <= 1e-6) || var.solution.status != Status::Solved {
            // A contact opens: these identities are for two closed contacts
            // (`contact_problem.rs` checks the laws where contacts open).
            continue;
        }
        let l1 = &frozen.solution.multipliers_in;
        let ls = &var.normal_forces;
        for i in 0..2 {
            let w = r.free_normal_acceleration[i];
            let dot = |m: &Vec<Vec<f64>>, l: &[f64]| m[i][0] * l[0] + m[i][1] * l[1];
            assert!((dot(&r.d(), l0) + w).abs() < 1e-7, "D lambda_0 + w");
            assert!(
                (dot(&r.d(), l1) - dot(&r.c(), l0) + w).abs() < 1e-7,
                "frozen"
            );
            assert!((dot(&r.g(), ls) + w).abs() < 1e-9, "variational");
        }
        checked += 1;
    }
    assert!(
        checked >= 10,
        "only {checked} systems kept both contacts closed"
    );
}

/// Two friction entries on one normal row (a particle on a plane sliding
/// diagonally, its friction given along x and y): one normal force, and
/// `C = 0`.
#[test]
fn contacts_sharing_a_normal_row() {
    let instant = Instant::builder(
        dense(
            "mass",
            &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]],
        ),
        vec![0.0, 0.0, -G],
    )
    .inequalities(dense("inequalities.A", &[&[0.0, 0.0, 1.0]]), vec![0.0])
    .sliding(sliding_on(0, vec![1.0, 0.0, 0.0], 0.3, 1.0))
    .sliding(sliding_on(0, vec![0.0, 1.0, 0.0], 0.3, -1.0))
    .build()
    .unwrap();
    let r = check(&instant);
    assert_eq!(r.verdict, Verdict::Equivalent);
    let var = variational(&instant);
    assert_eq!(var.normal_forces, vec![G, G]);
    let a = &var.solution.acceleration;
    assert!((a[0] + 0.3 * G).abs() < 1e-12 && (a[1] - 0.3 * G).abs() < 1e-12);
}

/// No sliding contacts: nothing to check.
#[test]
fn no_contacts_is_equivalent() {
    let instant = Instant::builder(dense("mass", &[&[1.0]]), vec![-G])
        .build()
        .unwrap();
    let r = check(&instant);
    assert_eq!(r.verdict, Verdict::Equivalent);
    assert!(r.contacts.is_empty());
    assert_eq!(
        Verdict::PainleveInconsistent.as_str(),
        "painleve_inconsistent"
    );
    assert!(Verdict::StationaryOnly > Verdict::PainleveInconsistent);
}

/// Other closed inequality rows are decided by the variational form's
/// active set. On the incline (`a = 0.4`, `mu = 0.3`, sliding up) a second
/// row `x'' <= 100` would pull if held as an equality, so it opens: the
/// particle slides as before, equivalent. A row `x'' >= 0` instead is
/// crossed by the slide (`a_x < 0`), so it holds and the particle is pinned
/// (`M_E^-1 = diag(0, 1/m)`): then `J_n M_E^-1 J_t^T = cos a sin a != 0`,
/// the normal force feels the friction, `lambda_n (cos a - mu sin a) = m g`,
/// and the frozen QP (`lambda_n = m g / cos a`) is off.
#[test]
fn other_inequality_rows_open_and_close() {
    let (sa, ca) = 0.4f64.sin_cos();
    let mu = 0.3;
    for (extra, rhs, wall) in [(-1.0, -100.0, false), (1.0, 0.0, true)] {
        let instant = Instant::builder(dense("mass", &[&[1.0, 0.0], &[0.0, 1.0]]), vec![0.0, -G])
            .inequalities(
                dense("inequalities.A", &[&[-sa, ca], &[extra, 0.0]]),
                vec![0.0, rhs],
            )
            .sliding(sliding_on(0, vec![ca, sa], mu, 1.0))
            .build()
            .unwrap();
        let var = variational(&instant);
        assert_eq!(var.solution.status, Status::Solved);
        assert_eq!(var.solution.multipliers_in[1] > 0.0, wall);
        let r = check(&instant);
        let frozen = frozen_qp(&instant, &mut ClarabelBackend::new());
        if wall {
            assert_eq!(r.verdict, Verdict::NotEquivalent);
            assert!((r.d()[0][0] - ca * ca).abs() < 1e-12);
            assert!((r.c()[0][0] - ca * sa * mu).abs() < 1e-12);
            assert!((var.normal_forces[0] - G / (ca - mu * sa)).abs() < 1e-12);
            assert!((frozen.frozen_normal_forces[0] - G / ca).abs() < 1e-8);
            assert!(Difference::between(&frozen.solution, &var.solution).max() > 0.1);
        } else {
            assert_eq!(r.verdict, Verdict::Equivalent);
            assert!(Difference::between(&frozen.solution, &var.solution).max() < 1e-8);
        }
    }
}

/// A particle of mass 1 on a floor (`a_y >= 0`), `q = (x, y)`.
fn particle(
    force: [f64; 2],
    entry: impl FnOnce(zwang_instant::InstantBuilder) -> zwang_instant::InstantBuilder,
) -> Instant {
    let b = Instant::builder(dense("mass", &[&[1.0, 0.0], &[0.0, 1.0]]), force.to_vec())
        .inequalities(dense("inequalities.A", &[&[0.0, 1.0]]), vec![0.0]);
    entry(b).build().unwrap()
}

fn slide(mu: f64) -> impl FnOnce(zwang_instant::InstantBuilder) -> zwang_instant::InstantBuilder {
    move |b| b.sliding(sliding_on(0, vec![1.0, 0.0], mu, 1.0))
}

/// Sliding (`mu = 0.3`, `s = +1`) with a net upward force of 5.19: the
/// contact opens, `a = (0, 5.19)`, no normal force and no friction. (Kept
/// closed, the normal force would be `-5.19`.)
#[test]
fn lift_off_opens_the_contact() {
    let instant = particle([0.0, 5.19], slide(0.3));
    let var = variational(&instant);
    assert_eq!(var.solution.status, Status::Solved);
    assert_eq!(var.modes, vec![Mode::Open]);
    assert_eq!(var.solution.acceleration, vec![0.0, 5.19]);
    assert_eq!(var.normal_forces, vec![0.0]);
    assert_eq!(var.friction_force, vec![0.0, 0.0]);
    let r = check(&instant);
    assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.reason);
    assert!(r.contacts[0].reason.starts_with("Open"));
}

/// At rest on the floor (sticking row `a_x = 0`), pushed by `f`: with
/// `mu = 0.3` the cone holds `|lambda_t| <= 0.3 g = 2.943`. `f = 2` sticks
/// (`lambda_t = -2`); `f = 5` slips in `+x` with `lambda_t = -2.943`,
/// `a_x = 5 - 2.943`; `f = 2.943` sits on the cone's edge and sticks
/// (`a = 0`: slipping there gives the same motion).
#[test]
fn stick_then_slip_then_the_edge() {
    let stick = |b: zwang_instant::InstantBuilder| {
        b.equalities(dense("equalities.A", &[&[1.0, 0.0]]), vec![0.0])
            .sticking(StickingContact {
                normal: INEQ0,
                tangent_row: 0,
                mu: 0.3,
            })
    };
    let edge = 0.3 * G;
    for (f, mode, ax, lt) in [
        (2.0, Mode::Stick, 0.0, -2.0),
        (5.0, Mode::Slide, 5.0 - edge, -edge),
        (edge, Mode::Stick, 0.0, -edge),
        (-5.0, Mode::Slide, -5.0 + edge, edge),
    ] {
        let instant = particle([f, -G], stick);
        let var = variational(&instant);
        assert_eq!(var.answers, Answers::One, "f = {f}");
        assert_eq!(var.modes, vec![mode], "f = {f}");
        assert!((var.solution.acceleration[0] - ax).abs() < 1e-12, "f = {f}");
        assert!(var.solution.acceleration[1].abs() < 1e-12);
        assert!((var.tangential_forces[0] - lt).abs() < 1e-12, "f = {f}");
        assert!((var.normal_forces[0] - G).abs() < 1e-12);
        assert!(var.solution.residuals.max() < 1e-13);
        // A particle's normal force does not feel its friction: equivalent.
        assert_eq!(check(&instant).verdict, Verdict::Equivalent);
    }
}

/// A degenerate contact: gap acceleration and force both zero (pushed
/// sideways, no weight). Open and closed are the same motion: one answer,
/// `a = (1, 0)`, no force.
#[test]
fn degenerate_contact_has_one_answer() {
    let instant = particle([1.0, 0.0], slide(0.5));
    let var = variational(&instant);
    assert_eq!(var.answers, Answers::One);
    assert_eq!(var.solution.acceleration, vec![1.0, 0.0]);
    assert_eq!(var.normal_forces, vec![0.0]);
}

/// The floor row written twice: without friction the motion is unique
/// (`a = 0`, the two forces add up to `g`); with friction on the first copy
/// only, the split of `g` between the copies moves the friction, so the
/// motion is not decided: several answers (`a_x` from `0` to `-0.5 g`).
#[test]
fn duplicated_rows() {
    let make = |friction: bool| {
        let mut b = Instant::builder(dense("mass", &[&[1.0, 0.0], &[0.0, 1.0]]), vec![0.0, -G])
            .inequalities(
                dense("inequalities.A", &[&[0.0, 1.0], &[0.0, 1.0]]),
                vec![0.0, 0.0],
            );
        if friction {
            b = b.sliding(sliding_on(0, vec![1.0, 0.0], 0.5, 1.0));
        } else {
            b = b.sliding(sliding_on(0, vec![1.0, 0.0], 0.0, 1.0));
        }
        b.build().unwrap()
    };
    let smooth = variational(&make(false));
    assert_eq!(smooth.answers, Answers::One);
    assert!(smooth.solution.acceleration.iter().all(|x| x.abs() < 1e-12));
    let l = &smooth.solution.multipliers_in;
    assert!((l[0] + l[1] - G).abs() < 1e-12 && l[0] >= 0.0 && l[1] >= 0.0);
    let rough = variational(&make(true));
    assert_eq!(rough.answers, Answers::Several);
    assert_eq!(check(&make(true)).verdict, Verdict::PainleveIndeterminate);
}

/// A plate (`q = (x, y, th)`, `m = 2`, `J = 1`) pushed by `f = 10`, sliding
/// on `k` points `x_i = -0.2 (k - 1) / 2 + 0.2 i` at `depth` below its
/// centre (rows `y'' + x_i th'' >= 0`, tangents `(1, 0, depth)`), each with
/// `mu = 0.4`.
fn sliding_plate(k: usize, depth: f64) -> Instant {
    let (m, f, mu) = (2.0, 10.0, 0.4);
    let rows: Vec<Vec<f64>> = (0..k)
        .map(|i| vec![0.0, 1.0, 0.2 * (i as f64 - (k - 1) as f64 / 2.0)])
        .collect();
    let mut b = Instant::builder(
        dense("mass", &[&[m, 0.0, 0.0], &[0.0, m, 0.0], &[0.0, 0.0, 1.0]]),
        vec![f, -m * G, 0.0],
    )
    .inequalities(dense("inequalities.A", &as_slices(&rows)), vec![0.0; k]);
    for row in 0..k {
        b = b.sliding(sliding_on(row, vec![1.0, 0.0, depth], mu, 1.0));
    }
    b.build().unwrap()
}

/// The plate of [`sliding_plate`] on 13 contacts at
/// `x_i = -1.2, -1.0, ..., 1.2` (rows `y'' + x_i th'' >= 0`), each with
/// `mu = 0.4` along `(1, 0, 0)`, pushed by `f = 10`: `2^13` mode
/// combinations is beyond the enumeration, so the active set (or, without
/// it, Lemke's method) solves it.
/// The forces add up to `m g` (their split is not unique, the motion is):
/// `a = ((f - mu m g) / m, 0, 0)`.
#[test]
fn beyond_the_enumeration_limit() {
    let (m, f, mu) = (2.0, 10.0, 0.4);
    let k = 13;
    let instant = sliding_plate(k, 0.0);
    // The active-set path, then Lemke's method alone: the same motion.
    for active_set in [true, false] {
        let settings = ContactSettings {
            active_set,
            ..ContactSettings::default()
        };
        let var = variational_with(&instant, &settings);
        assert_eq!(var.answers, Answers::Found);
        if active_set {
            assert_eq!(var.paths.active_set, 1);
            assert_eq!(var.lemke_size, 0);
        } else {
            assert_eq!(var.paths.lemke, 1);
            assert_eq!(var.lemke_size, k);
        }
        let want = [(f - mu * m * G) / m, 0.0, 0.0];
        for (x, w) in var.solution.acceleration.iter().zip(want) {
            assert!((x - w).abs() < 1e-10, "{x} vs {w}");
        }
        let total: f64 = var.solution.multipliers_in.iter().sum();
        assert!((total - m * G).abs() < 1e-10);
        assert!(var.solution.multipliers_in.iter().all(|&l| l >= -1e-12));
    }
}

/// The plate of `beyond_the_enumeration_limit` on 12 points (`2^12` mode
/// combinations: enumerated before the active set): the active set finds
/// the answer, and the symmetric part of its contact matrix shows the
/// motion unique (its null space, the redundant split of the weight,
/// moves nothing), so it is `One` without enumerating, and the same as
/// enumeration's to round-off. Was 25 ms an instant, 2.5 s per 0.5 s of
/// sliding.
#[test]
fn a_plate_on_twelve_rough_points_is_unique_without_enumeration() {
    let (m, f, mu) = (2.0, 10.0, 0.4);
    // The contact points lie 0.1 below the centre: friction turns the
    // plate, so the pressure is not uniform.
    let instant = sliding_plate(12, 0.1);
    let fast = variational(&instant);
    assert_eq!(fast.answers, Answers::One);
    assert_eq!(fast.paths.active_set, 1);
    assert_eq!(fast.paths.enumerated, 0);
    let slow = variational_with(
        &instant,
        &ContactSettings {
            active_set: false,
            ..ContactSettings::default()
        },
    );
    assert_eq!(slow.answers, Answers::One);
    assert_eq!(slow.paths.enumerated, 1);
    // Closed form: the plate keeps to the floor and does not turn, so the
    // forces carry the weight and friction is mu m g.
    let want = [(f - mu * m * G) / m, 0.0, 0.0];
    for ((x, y), w) in fast
        .solution
        .acceleration
        .iter()
        .zip(&slow.solution.acceleration)
        .zip(want)
    {
        assert!((x - w).abs() < 1e-10, "{x} vs {w}");
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    let total: f64 = fast.solution.multipliers_in.iter().sum();
    assert!((total - m * G).abs() < 1e-10);
    assert!(fast.solution.multipliers_in.iter().all(|&l| l >= -1e-12));
}
