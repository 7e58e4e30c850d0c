//! Seeded random sweeps over sizes: every backend against the answer the
//! scene was built from, and against Clarabel, with tight tolerances.

use zwang_instant::generate::{scene, Scene, SceneSpec};
use zwang_instant::{parse_instant, to_json, Encoding};
use zwang_qp::{
    ActiveSetBackend, AutoBackend, Backend, ClarabelBackend, DirectBackend, Solution, Status,
};

/// max |x - y| / max(|y|_inf, 1e-300)
fn rel(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    x.iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

fn check(s: &Solution, sc: &Scene, tol: f64, what: &str) {
    assert_eq!(s.status, Status::Solved, "{what}: {}", s.backend);
    let ea = rel(&s.acceleration, &sc.acceleration);
    // All multipliers together: a scene may have only open contacts.
    let el = rel(
        &[s.multipliers_eq.clone(), s.multipliers_in.clone()].concat(),
        &[sc.multipliers_eq.clone(), sc.multipliers_in.clone()].concat(),
    );
    assert!(
        ea < tol && el < tol,
        "{what}: {} off by a {ea:.1e}, multipliers {el:.1e}",
        s.backend
    );
}

fn specs() -> Vec<(String, SceneSpec)> {
    let mut out = Vec::new();
    let mut seed = 1;
    for bodies in [1usize, 2, 4, 10, 35, 120, 400, 667] {
        for contacts in [0, (bodies / 2).max(1)] {
            for (full_blocks, coupled_mass) in [(false, false), (true, false), (true, true)] {
                seed += 1;
                let spec = SceneSpec {
                    bodies,
                    joints: (bodies - 1).min(bodies * 2 / 3),
                    ground_pin: seed % 2 == 0,
                    contacts,
                    active_fraction: 0.6,
                    full_blocks,
                    coupled_mass,
                    seed,
                };
                out.push((format!("{spec:?}"), spec));
            }
        }
    }
    out
}

/// Every backend recovers the constructed answer to 1e-8, and its KKT
/// residuals are at round-off.
#[test]
fn every_backend_recovers_the_constructed_answer() {
    for (what, spec) in specs() {
        let sc = scene(&spec);
        let eq_only = spec.contacts == 0;
        let mut backends: Vec<Box<dyn Backend>> = vec![
            Box::new(ActiveSetBackend::new()),
            Box::new(AutoBackend::new()),
            Box::new(ClarabelBackend::new()),
        ];
        if eq_only {
            backends.push(Box::new(DirectBackend::new()));
        }
        for b in &mut backends {
            let s = b.solve(&sc.instant);
            check(&s, &sc, 1e-8, &what);
            if s.backend != "clarabel" {
                assert!(
                    s.residuals.max() < 1e-11,
                    "{what}: {} {:?}",
                    s.backend,
                    s.residuals
                );
            }
        }
    }
}

/// The fast backends agree with Clarabel on the same instant to 1e-8.
#[test]
fn fast_backends_agree_with_clarabel() {
    for (what, spec) in specs().into_iter().step_by(3) {
        let sc = scene(&spec);
        let reference = ClarabelBackend::new().solve(&sc.instant);
        let s = AutoBackend::new().solve(&sc.instant);
        assert!(
            rel(&s.acceleration, &reference.acceleration) < 1e-8,
            "{what}"
        );
        assert!(
            rel(&s.multipliers_in, &reference.multipliers_in) < 1e-8,
            "{what}"
        );
        assert!(
            rel(&s.multipliers_eq, &reference.multipliers_eq) < 1e-8,
            "{what}"
        );
    }
}

/// Every scene up to 360 coordinates written in the instant file's dense
/// and sparse encodings and read back gives the constructed answer, and the
/// two encodings give the same bits.
#[test]
fn encodings_round_trip() {
    for (what, spec) in specs().into_iter().filter(|(_, s)| s.bodies <= 120) {
        let sc = scene(&spec);
        let mut answers = Vec::new();
        for enc in [Encoding::Dense, Encoding::Sparse] {
            let text = to_json(&sc.instant, enc).to_string();
            let parsed = parse_instant(&text).unwrap();
            assert!(parsed.warnings.is_empty());
            let s = AutoBackend::new().solve(&parsed.instant);
            check(&s, &sc, 1e-8, &format!("{what} {enc:?}"));
            answers.push(s);
        }
        assert_eq!(answers[0].acceleration, answers[1].acceleration, "{what}");
    }
}

/// Warm-started from the last active set, an instant whose contacts did not
/// change costs a single factorization.
#[test]
fn warm_start_takes_one_iteration() {
    let spec = SceneSpec {
        bodies: 40,
        joints: 20,
        contacts: 30,
        seed: 5,
        ..SceneSpec::default()
    };
    let sc = scene(&spec);
    let mut solver = ActiveSetBackend::new();
    let cold = solver.solve(&sc.instant);
    check(&cold, &sc, 1e-8, "cold");
    assert!(cold.iterations > 1);
    // Nudge the force: same active set, new numbers.
    let force: Vec<f64> = sc
        .instant
        .force()
        .iter()
        .map(|f| f * (1.0 + 1e-6))
        .collect();
    let nudged = sc.instant.with_force(force).unwrap();
    let warm = solver.solve(&nudged);
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.iterations, 1);
    let reference = ClarabelBackend::new().solve(&nudged);
    assert!(rel(&warm.acceleration, &reference.acceleration) < 1e-8);
}

/// The same solver object reused on instants with another pattern re-runs
/// the symbolic analysis instead of reusing a stale one.
#[test]
fn pattern_changes_are_detected() {
    let mut direct = DirectBackend::new();
    for seed in 0..4 {
        let sc = scene(&SceneSpec {
            bodies: 5 + seed as usize,
            joints: 3,
            contacts: 0,
            seed,
            ..SceneSpec::default()
        });
        check(&direct.solve(&sc.instant), &sc, 1e-9, "reuse");
    }
}

/// Changing units must not change the motion: with coordinates rescaled
/// `a' = D a` (so `M' = D^-1 M D^-1`, `Q' = D^-1 Q`, `A' = R A D^-1`,
/// `b' = R b`) and rows rescaled by `R`, the answer is `a' = D a*`,
/// `l' = R^-1 l*`. Scales span 10^-3 .. 10^3 per coordinate and per row,
/// so inertias range over twelve orders of magnitude.
#[test]
fn rescaled_units_give_the_same_motion() {
    use rand::{Rng, SeedableRng};
    use zwang_instant::{matrix_from_triplets, Instant};
    for (what, spec) in specs().into_iter().filter(|(_, s)| s.bodies <= 120) {
        let sc = scene(&spec);
        let inst = &sc.instant;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
        let mut pow = || 10f64.powf(rng.gen_range(-3.0..3.0));
        let d: Vec<f64> = (0..inst.dim()).map(|_| pow()).collect();
        let r_eq: Vec<f64> = (0..inst.equalities().len()).map(|_| pow()).collect();
        let r_in: Vec<f64> = (0..inst.inequalities().len()).map(|_| pow()).collect();
        let scaled = |m: &sprs::CsMat<f64>, key: &str, row: &dyn Fn(usize) -> f64| {
            let t = m.iter().map(|(v, (i, j))| (i, j, v * row(i) / d[j]));
            matrix_from_triplets(key, (m.rows(), m.cols()), t).unwrap()
        };
        let mass = scaled(inst.mass(), "mass", &|i| 1.0 / d[i]);
        let force = inst.force().iter().zip(&d).map(|(q, di)| q / di).collect();
        let (eq, ineq) = (inst.equalities(), inst.inequalities());
        let a_eq = scaled(eq.matrix(), "A_eq", &|i| r_eq[i]);
        let a_in = scaled(ineq.matrix(), "A_in", &|i| r_in[i]);
        let b_eq = eq.rhs().iter().zip(&r_eq).map(|(b, r)| b * r).collect();
        let b_in = ineq.rhs().iter().zip(&r_in).map(|(b, r)| b * r).collect();
        let rescaled = Instant::builder(mass, force)
            .equalities(a_eq, b_eq)
            .inequalities(a_in, b_in)
            .build()
            .unwrap();
        for mut b in [
            Box::new(AutoBackend::new()) as Box<dyn Backend>,
            Box::new(ClarabelBackend::new()),
        ] {
            let s = b.solve(&rescaled);
            assert_eq!(s.status, Status::Solved, "{what}: {}", s.backend);
            let a: Vec<f64> = s
                .acceleration
                .iter()
                .zip(&d)
                .map(|(x, di)| x / di)
                .collect();
            let l: Vec<f64> = s
                .multipliers_eq
                .iter()
                .zip(&r_eq)
                .chain(s.multipliers_in.iter().zip(&r_in))
                .map(|(x, r)| x * r)
                .collect();
            let l_ref = [sc.multipliers_eq.clone(), sc.multipliers_in.clone()].concat();
            let tol = if s.backend == "clarabel" { 1e-6 } else { 1e-8 };
            assert!(
                rel(&a, &sc.acceleration) < tol,
                "{what}: {} a {:.1e}",
                s.backend,
                rel(&a, &sc.acceleration)
            );
            assert!(
                rel(&l, &l_ref) < tol,
                "{what}: {} l {:.1e}",
                s.backend,
                rel(&l, &l_ref)
            );
        }
    }
}
