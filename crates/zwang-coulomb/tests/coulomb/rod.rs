//! The rigid rod of Yao & Gao against its closed forms (design notes,
//! section 3): `D = (1 + 3 cos^2 th)/m`, `C = -3 mu s sin th cos th / m`,
//! `G = D - C`, `kappa = |C| / D`, and Yao & Gao eqs 21-22.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::FRAC_PI_2;
use zwang_coulomb::rod::{painleve_boundary_mu, FrictionLaw, NormalRow, RigidRod, RodState};
use zwang_coulomb::{
    check, fixed_point, frozen_qp, variational, Answers, Difference, FixedPointOptions, Mode,
    Verdict,
};
use zwang_instant::Instant;
use zwang_qp::{ClarabelBackend, ClarabelSettings, Status};

fn rod(mu: f64) -> RigidRod {
    RigidRod {
        mass: 1.0,
        half_length: 1.0,
        gravity: 9.81,
        mu,
        viscous: 0.5,
    }
}

/// The rod's instant in `state` under Coulomb's law, the normal row
/// one-sided: the Painleve cases.
fn coulomb_unilateral(rod: &RigidRod, state: &RodState) -> Instant {
    rod.instant(state, FrictionLaw::Coulomb, NormalRow::Unilateral)
        .unwrap()
}

fn random_rod(rng: &mut ChaCha8Rng) -> (RigidRod, RodState) {
    let rod = RigidRod {
        mass: rng.gen_range(0.1..10.0),
        half_length: rng.gen_range(0.1..5.0),
        gravity: rng.gen_range(1.0..20.0),
        mu: rng.gen_range(0.01..2.5),
        viscous: rng.gen_range(0.0..3.0),
    };
    let theta = rng.gen_range(0.05..FRAC_PI_2 - 0.05);
    let speed = rng.gen_range(0.5..3.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    let state = rod.state_on_plane(theta, speed, rng.gen_range(-0.3..0.3));
    (rod, state)
}

/// Seed 003's equations written out here, independently of the model: the
/// unknowns `(x'', y'', th'', F_n, F_t)` and the five rows
///
/// ```text
/// m x'' - F_t = 0,  m y'' - F_n = -m g,  J th'' + l c F_n - l s F_t = 0
/// y'' - l c th'' = -l s th'^2           (contact closed; else F_n = 0)
/// friction law                           (F_t = alpha F_n + beta, or the
///                                         end pinned: x'' + l s th'' = -l c th'^2)
/// ```
///
/// solved by Gaussian elimination for every mode the law allows (open;
/// closed with each force sign; sliding; for the pinned end also slipping
/// either way), each checked by hand (an open end must not sink, a closed
/// unilateral one must be pushed, a pinned one must stay in the cone, a
/// slipping one must accelerate the way it slips). The distinct
/// consistent motions: one, none (Painleve inconsistent) or several
/// (Painleve indeterminate); or a unique motion whose unilateral normal
/// force is within round-off of zero (a mode boundary, left undecided).
fn hand(rod: &RigidRod, st: &RodState, law: FrictionLaw, normal: NormalRow) -> Hand {
    let (m, l, g, mu) = (rod.mass, rod.half_length, rod.gravity, rod.mu);
    let j = m * l * l / 3.0;
    let (s, c) = st.theta.sin_cos();
    let w2 = st.thetad * st.thetad;
    let v_a = st.xd + l * s * st.thetad;
    // Which friction row: Some((alpha, beta)) for F_t = alpha F_n + beta,
    // None for the pinned end.
    let solve = |closed: bool, friction: Option<(f64, f64)>| -> Option<[f64; 5]> {
        let mut a = [[0.0f64; 6]; 5];
        a[0] = [m, 0.0, 0.0, 0.0, -1.0, 0.0];
        a[1] = [0.0, m, 0.0, -1.0, 0.0, -m * g];
        a[2] = [0.0, 0.0, j, l * c, -l * s, 0.0];
        a[3] = if closed {
            [0.0, 1.0, -l * c, 0.0, 0.0, -l * s * w2]
        } else {
            [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        };
        a[4] = match friction {
            Some((alpha, beta)) => [0.0, 0.0, 0.0, -alpha, 1.0, beta],
            None => [1.0, 0.0, l * s, 0.0, 0.0, -l * c * w2],
        };
        for col in 0..5 {
            let p = (col..5).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
            a.swap(col, p);
            if a[col][col].abs() < 1e-12 {
                return None;
            }
            for r in 0..5 {
                if r != col {
                    let f = a[r][col] / a[col][col];
                    for k in col..6 {
                        a[r][k] -= f * a[col][k];
                    }
                }
            }
        }
        Some(std::array::from_fn(|i| a[i][5] / a[i][i]))
    };
    let unilateral = normal == NormalRow::Unilateral;
    let scale = m * g;
    let tol = 1e-9 * scale;
    let acc_tol = 1e-9 * g.max(l * w2);
    let applied = if law == FrictionLaw::Viscous {
        -rod.viscous * v_a
    } else {
        0.0
    };
    // Every mode the law allows, each checked by hand; keep the consistent.
    let mut found: Vec<[f64; 5]> = Vec::new();
    let mut keep = |x: Option<[f64; 5]>, ok: &dyn Fn(&[f64; 5]) -> bool| {
        if let Some(x) = x {
            if ok(&x) {
                found.push(x);
            }
        }
    };
    let normal_acc = |x: &[f64; 5]| x[1] - l * c * x[2] + l * s * w2;
    let tangent_acc = |x: &[f64; 5]| x[0] + l * s * x[2] + l * c * w2;
    if unilateral {
        keep(solve(false, Some((0.0, applied))), &|x| {
            normal_acc(x) >= -acc_tol
        });
    }
    // Closed: the normal force must push on a unilateral row.
    let pushes = |x: &[f64; 5]| !unilateral || x[3] >= -tol;
    match law {
        FrictionLaw::Smooth | FrictionLaw::Viscous => {
            keep(solve(true, Some((0.0, applied))), &pushes)
        }
        FrictionLaw::Coulomb | FrictionLaw::Sticking => {
            let slips: Vec<f64> = if law == FrictionLaw::Coulomb {
                vec![v_a.signum()]
            } else {
                vec![1.0, -1.0]
            };
            for d in slips {
                for sigma in [1.0, -1.0] {
                    if unilateral && sigma < 0.0 {
                        continue;
                    }
                    // F_t = -mu d sigma F_n, with sigma = sign(F_n).
                    let moving = |x: &[f64; 5]| {
                        law == FrictionLaw::Coulomb || d * tangent_acc(x) >= -acc_tol
                    };
                    keep(solve(true, Some((-mu * d * sigma, 0.0))), &|x| {
                        pushes(x) && sigma * x[3] >= -tol && moving(x)
                    });
                }
            }
            if law == FrictionLaw::Sticking {
                keep(solve(true, None), &|x| {
                    pushes(x) && x[4].abs() <= mu * x[3].abs() + tol
                });
            }
        }
    }
    // Distinct motions; a mode boundary within round-off is left out.
    let mut motions: Vec<[f64; 5]> = Vec::new();
    for x in found {
        if !motions
            .iter()
            .any(|y| (0..3).all(|k| (x[k] - y[k]).abs() <= 1e-9 * g.max(x[k].abs())))
        {
            motions.push(x);
        }
    }
    match motions.as_slice() {
        [] => Hand::None,
        [one] if unilateral && one[3].abs() > 0.0 && one[3].abs() <= 1e-7 * scale => Hand::Boundary,
        [one] => Hand::One(*one),
        _ => Hand::Several(motions),
    }
}

/// What [`hand`] finds: the motions `(x'', y'', th'', F_n, F_t)`.
#[derive(Debug)]
enum Hand {
    One([f64; 5]),
    None,
    Several(Vec<[f64; 5]>),
    Boundary,
}

/// The one consistent motion of [`hand`], if there is one.
fn by_hand(rod: &RigidRod, st: &RodState, law: FrictionLaw, normal: NormalRow) -> Option<[f64; 5]> {
    match hand(rod, st, law, normal) {
        Hand::One(x) => Some(x),
        _ => None,
    }
}

/// The Painleve verdict of a sliding (Coulomb) rod in closed form, `None`
/// where the answer is unique. With `F_t = -mu s sigma F_n` (`s` the slip,
/// `sigma = sign(F_n)`) eq 18 and eqs 21-22 give
/// `F_n (1 + 3 cos^2 + 3 mu s sigma sin cos) = r`, `r = m (g - l sin th'^2)`
/// (the open end's normal acceleration is `-r / m`). Unilateral
/// (`sigma = 1`): with `G m = 1 + 3 cos^2 + 3 mu s sin cos > 0` exactly one
/// of open (`r <= 0`) and closed (`r >= 0`); with `G < 0` the closed end
/// needs `r <= 0`, so `r > 0` has no answer (inconsistent) and `r < 0` two
/// (indeterminate). Bilateral: `sigma = +1` needs `r / G_+ >= 0`,
/// `sigma = -1` needs `r / G_- <= 0`; with both `G_+-` positive
/// (`kappa < 1`) one answer, otherwise they differ in sign and there are
/// two answers when `r G_+ > 0`, none when `r G_+ < 0`.
fn coulomb_painleve(rod: &RigidRod, st: &RodState, normal: NormalRow) -> Option<Verdict> {
    let (m, l, g) = (rod.mass, rod.half_length, rod.gravity);
    let (s, c) = st.theta.sin_cos();
    let slip = (st.xd + l * s * st.thetad).signum();
    let r = m * (g - l * s * st.thetad * st.thetad);
    let plus = 1.0 + 3.0 * c * c + 3.0 * rod.mu * slip * s * c;
    let minus = 1.0 + 3.0 * c * c - 3.0 * rod.mu * slip * s * c;
    let (unique, several) = match normal {
        NormalRow::Unilateral => (plus > 0.0, r < 0.0),
        NormalRow::Bilateral => (plus > 0.0 && minus > 0.0, r * plus > 0.0),
    };
    match (unique, several) {
        (true, _) => None,
        (false, true) => Some(Verdict::PainleveIndeterminate),
        (false, false) => Some(Verdict::PainleveInconsistent),
    }
}

fn close(a: f64, b: f64, scale: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * scale
}

/// The engine's `D`, `C`, `G`, `kappa` and free normal acceleration
/// `-g + l sin th th'^2` match the closed forms at random states, for both
/// slip directions and both kinds of normal row.
#[test]
fn operators_match_the_closed_forms() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..300 {
        let (rod, state) = random_rod(&mut rng);
        let want = rod.coupling(state.theta, rod.slip(&state));
        for normal in [NormalRow::Unilateral, NormalRow::Bilateral] {
            let instant = rod.instant(&state, FrictionLaw::Coulomb, normal).unwrap();
            let r = check(&instant);
            let d = want.d;
            assert!(
                close(r.d()[0][0], want.d, d, 1e-12),
                "{} vs {}",
                r.d()[0][0],
                want.d
            );
            assert!(
                close(r.c()[0][0], want.c, d, 1e-12),
                "{} vs {}",
                r.c()[0][0],
                want.c
            );
            assert!(
                close(r.g()[0][0], want.g, d, 1e-12),
                "{} vs {}",
                r.g()[0][0],
                want.g
            );
            assert!(close(r.contacts[0].coupling, want.kappa, want.kappa, 1e-12));
            assert!(close(r.coupling, want.kappa, want.kappa, 1e-12));
            let l = rod.half_length;
            let free = -rod.gravity + l * state.theta.sin() * state.thetad.powi(2);
            assert!(close(
                r.free_normal_acceleration[0],
                free,
                rod.gravity,
                1e-12
            ));
        }
    }
}

/// Seed 003 eqs 21-22 (`m x'' = F_t`, `m y'' = F_n - m g`,
/// `(m l^2/3) th'' = -F_n l cos th + F_t l sin th`) hold at the engine's
/// answer, and the answer agrees with [`hand`] (the equations solved in
/// this file, modes decided by hand) for every force law: smooth, viscous
/// (in `Q`), Coulomb (coupled) and sticking (pinned end, or slipping from
/// rest outside the cone), on unilateral rows that may open and on
/// bilateral rows, high coupling included (`kappa` up to and beyond 1 with
/// a unique answer). The model's own closed form is checked against the
/// same independent answer. Where [`hand`] finds no motion or several, the
/// checker and the engine must say Painleve inconsistent or indeterminate
/// (for Coulomb friction also as [`coulomb_painleve`] derives in closed
/// form), and an indeterminate engine answer must be one of the hand's.
/// No case is skipped: every one is counted, by law, row and outcome, and
/// the counts are asserted.
#[test]
fn seed_003_equations_hold_for_every_law() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut counts = std::collections::BTreeMap::new();
    for _ in 0..400 {
        let (rod, mut state) = random_rod(&mut rng);
        if rng.gen_bool(0.4) {
            // Spin fast enough that l sin th th'^2 may exceed g: pulled off.
            let (l, s) = (rod.half_length, state.theta.sin());
            let k = rng.gen_range(0.3..3.0);
            let thetad =
                (k * rod.gravity / (l * s)).sqrt() * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            state = rod.state_on_plane(state.theta, state.xd, thetad);
        }
        let c = rod.coupling(state.theta, rod.slip(&state));
        for law in [
            FrictionLaw::Smooth,
            FrictionLaw::Viscous,
            FrictionLaw::Coulomb,
            FrictionLaw::Sticking,
        ] {
            for normal in [NormalRow::Unilateral, NormalRow::Bilateral] {
                let what = format!("{law:?} {normal:?}");
                let instant = rod.instant(&state, law, normal).unwrap();
                let var = variational(&instant);
                let closed_form = (law == FrictionLaw::Coulomb)
                    .then(|| coulomb_painleve(&rod, &state, normal))
                    .flatten();
                let want = match hand(&rod, &state, law, normal) {
                    Hand::One(want) => want,
                    Hand::Boundary => {
                        *counts.entry((what, "boundary")).or_insert(0) += 1;
                        continue;
                    }
                    Hand::None => {
                        let want = Verdict::PainleveInconsistent;
                        assert_painleve(&instant, law, want, closed_form, &what);
                        assert_eq!(var.solution.status, Status::Infeasible, "{what}");
                        assert_eq!(var.answers, Answers::None, "{what}");
                        assert!(var.frictionless_feasible, "{what}");
                        *counts.entry((what, "inconsistent")).or_insert(0) += 1;
                        continue;
                    }
                    Hand::Several(motions) => {
                        let want = Verdict::PainleveIndeterminate;
                        assert_painleve(&instant, law, want, closed_form, &what);
                        assert_eq!(var.solution.status, Status::Solved, "{what}");
                        assert_eq!(var.answers, Answers::Several, "{what}");
                        // The engine reports one of the motions.
                        let got = rod.answer(&state, law, normal, &var.solution);
                        let acc = rod
                            .gravity
                            .max(got.acceleration.iter().fold(0.0, |m, x| m.max(x.abs())));
                        assert!(
                            motions.iter().any(|x| (0..3).all(|k| close(
                                got.acceleration[k],
                                x[k],
                                acc,
                                1e-9
                            ))),
                            "{what}: {got:?} is none of {motions:?}"
                        );
                        *counts.entry((what, "indeterminate")).or_insert(0) += 1;
                        continue;
                    }
                };
                assert_eq!(closed_form, None, "{what}: a unique answer");
                assert_eq!(var.answers, Answers::One, "{what}: {:?}", var.answers);
                assert!(!check(&instant).verdict.is_painleve(), "{what}");
                let got = rod.answer(&state, law, normal, &var.solution);
                let model = rod.closed_form(&state, law, normal);
                let acc = want[..3].iter().fold(rod.gravity, |m, x| m.max(x.abs()));
                let force = want[3..]
                    .iter()
                    .fold(rod.mass * rod.gravity, |m, x| m.max(x.abs()));
                for (i, x) in [got.acceleration, model.acceleration].iter().enumerate() {
                    for k in 0..3 {
                        assert!(
                            close(x[k], want[k], acc, 1e-11),
                            "{what} ({}): a[{k}] {} vs {}",
                            ["engine", "model"][i],
                            x[k],
                            want[k]
                        );
                    }
                }
                for f in [&got, &model] {
                    assert!(close(f.normal_force, want[3], force, 1e-11), "{what}");
                    assert!(close(f.friction_force, want[4], force, 1e-11), "{what}");
                }
                let s = rod.seed_check(&state, law, normal).unwrap();
                assert!(s.residual < 1e-12, "{what}: residual {}", s.residual);
                let mode = if want[3].abs() <= 1e-12 * force {
                    "open"
                } else if law == FrictionLaw::Coulomb && (c.kappa >= 0.999 || c.g < 1e-3 * c.d) {
                    // High coupling, or near the band's edge, and unique.
                    "closed, high coupling"
                } else {
                    "closed"
                };
                *counts.entry((what, mode)).or_insert(0) += 1;
            }
        }
    }
    for ((what, outcome), n) in &counts {
        println!("{what:<20} {outcome:<22} {n:4}");
    }
    let count = |what: &str, outcome: &str| {
        counts
            .get(&(what.to_string(), outcome))
            .copied()
            .unwrap_or(0)
    };
    // Every law met both an open and a closed contact on the unilateral row.
    for law in ["Smooth", "Viscous", "Coulomb", "Sticking"] {
        for mode in ["open", "closed"] {
            let n = count(&format!("{law} Unilateral"), mode);
            assert!(
                n > 5 || (law == "Viscous" && mode == "open"),
                "{law} {mode}: {n} cases"
            );
        }
    }
    // The unique answers at high coupling were compared, and both Painleve
    // kinds were met on both rows; no case sat on a mode boundary.
    for normal in ["Unilateral", "Bilateral"] {
        let coulomb = format!("Coulomb {normal}");
        for outcome in ["inconsistent", "indeterminate"] {
            assert!(count(&coulomb, outcome) >= 5, "{coulomb} {outcome}");
        }
    }
    assert!(count("Coulomb Unilateral", "closed, high coupling") >= 20);
    assert!(counts.keys().all(|(_, outcome)| *outcome != "boundary"));
    let total: usize = counts.values().sum();
    assert_eq!(total, 400 * 8, "every case decided");
}

/// The checker's verdict on a Painleve instant: `want` (from [`hand`]),
/// the same as the closed form's for Coulomb friction, and `G` not a
/// P-matrix.
fn assert_painleve(
    instant: &Instant,
    law: FrictionLaw,
    want: Verdict,
    closed_form: Option<Verdict>,
    what: &str,
) {
    let coulomb = law == FrictionLaw::Coulomb;
    assert_eq!(closed_form.is_some(), coulomb, "{what}: a closed form");
    if let Some(closed_form) = closed_form {
        assert_eq!(closed_form, want, "{what}: hand and closed form");
    }
    let r = check(instant);
    assert_eq!(r.verdict, want, "{what}: {}", r.reason);
    // (A sticking entry with several answers is analysed as the sliding
    // contact it may become: `sticking_bilateral_rod_with_several_answers`.)
    if coulomb {
        assert_eq!(r.p_matrix, Some(false), "{what}");
    }
}

/// A bilateral row pulled the other way (gravity up, `F_n < 0`): the
/// friction goes with `|F_n|`, so the engine must take the negative branch,
/// `F_n (1 + 3 cos^2 - 3 mu s sin cos) = m (g - l sin th'^2)`.
#[test]
fn bilateral_normal_force_of_either_sign() {
    let mut rod = rod(0.4);
    rod.gravity = -9.81;
    let state = rod.state_on_plane(1.0, 1.0, 0.0);
    let s = rod
        .seed_check(&state, FrictionLaw::Coulomb, NormalRow::Bilateral)
        .unwrap();
    assert!(s.engine.normal_force < 0.0);
    assert!(s.difference < 1e-12 && s.residual < 1e-12);
    let instant = rod
        .instant(&state, FrictionLaw::Coulomb, NormalRow::Bilateral)
        .unwrap();
    let v = variational(&instant);
    assert_eq!(v.solution.status, Status::Solved);
    // The friction opposes the slip (s = +1: F_t < 0) whatever the sign.
    assert!(v.friction_force[0] < 0.0);
}

/// On a bilateral row both signs of the normal force are allowed, so a
/// trailing rod with `kappa > 1` has two answers (`D(1 + kappa) F = r` and
/// `D(1 - kappa) F = r`): indeterminate, unlike the unilateral contact.
#[test]
fn bilateral_rod_beyond_kappa_one_is_indeterminate() {
    let rod = rod(3.0);
    let state = rod.state_on_plane(0.8, 2.0, 0.0);
    assert!(rod.coupling(0.8, 1.0).kappa > 1.0);
    let uni = rod
        .instant(&state, FrictionLaw::Coulomb, NormalRow::Unilateral)
        .unwrap();
    assert_eq!(check(&uni).verdict, Verdict::NotEquivalent);
    let bi = rod
        .instant(&state, FrictionLaw::Coulomb, NormalRow::Bilateral)
        .unwrap();
    let r = check(&bi);
    assert_eq!(r.verdict, Verdict::PainleveIndeterminate);
    assert_eq!(r.p_matrix, Some(false));
}

/// `mu = (1 + 3 cos^2 th) / (3 sin th cos th)` is `4/3` at `tan th = 2`;
/// just below, the leading rod is `not_equivalent` with coupling below 1,
/// just above it is Painleve (inconsistent: at rest in `theta` the free
/// normal acceleration is `-g`).
#[test]
fn verdict_across_the_painleve_boundary() {
    let theta = 2f64.atan();
    assert!((painleve_boundary_mu(theta) - 4.0 / 3.0).abs() < 1e-15);
    for (mu, want) in [
        (4.0 / 3.0 * (1.0 - 1e-6), Verdict::NotEquivalent),
        (4.0 / 3.0 * (1.0 + 1e-6), Verdict::PainleveInconsistent),
    ] {
        let rod = rod(mu);
        let state = rod.state_on_plane(theta, -1.0, 0.0);
        assert_eq!(rod.slip(&state), -1.0);
        let instant = coulomb_unilateral(&rod, &state);
        let r = check(&instant);
        assert_eq!(r.verdict, want, "{}", r.reason);
        assert_eq!(r.contacts[0].verdict, want);
        assert_eq!(r.p_matrix, Some(want == Verdict::NotEquivalent));
        if want == Verdict::NotEquivalent {
            assert!(r.coupling < 1.0);
        } else {
            assert!(r.coupling > 1.0);
        }
    }
}

/// With the contact end trailing (`s = +1`), `G = D + |C| > 0`: never
/// Painleve, whatever the friction.
#[test]
fn a_trailing_end_is_never_painleve() {
    for i in 1..60 {
        let theta = i as f64 * FRAC_PI_2 / 60.0;
        for mu in [0.1, 0.5, 1.0, 4.0 / 3.0, 2.0, 3.0, 10.0] {
            let rod = rod(mu);
            let state = rod.state_on_plane(theta, 1.0, 0.0);
            let instant = coulomb_unilateral(&rod, &state);
            let r = check(&instant);
            assert_eq!(r.verdict, Verdict::NotEquivalent, "theta {theta}, mu {mu}");
            assert_eq!(r.p_matrix, Some(true));
        }
    }
}

/// A flat rod (`sin th = 0`) and a vertical one (`cos th = 0`) have
/// `J_n M^-1 J_t^T = -3 sin cos / m = 0`: equivalent, coupling 0, and the
/// frozen QP is the variational answer.
#[test]
fn flat_and_vertical_rods_are_equivalent() {
    for theta in [0.0, FRAC_PI_2] {
        for xd in [1.0, -1.0] {
            let rod = rod(0.7);
            let state = rod.state_on_plane(theta, xd, 0.3);
            let instant = coulomb_unilateral(&rod, &state);
            let r = check(&instant);
            assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.reason);
            assert_eq!(r.coupling, 0.0);
            assert!(r.frozen_exact);
            // Clarabel tightened below its reference 1e-10 so that 1e-10
            // measures the forms, not the interior point's stopping rule.
            let mut tight = ClarabelBackend {
                settings: ClarabelSettings {
                    tol_gap: 1e-13,
                    tol_feas: 1e-13,
                    max_iter: 200,
                },
            };
            let frozen = frozen_qp(&instant, &mut tight);
            let var = variational(&instant);
            assert!(frozen.solution.is_solved() && var.solution.is_solved());
            let d = Difference::between(&frozen.solution, &var.solution).max();
            assert!(d < 1e-10, "theta {theta}, xd {xd}: {d:e}");
        }
    }
}

/// `lambda <- D^-1 (r + C lambda)` is linear for one contact: every error
/// shrinks by `C / D`, so successive error ratios are `kappa` (to the QP's
/// accuracy) and the iteration lands on the variational answer.
#[test]
fn fixed_point_contracts_at_kappa() {
    for xd in [2.0, -2.0] {
        let rod = rod(0.5);
        let state = rod.state_on_plane(60f64.to_radians(), xd, 0.5);
        let kappa = rod.coupling(state.theta, rod.slip(&state)).kappa;
        let instant = coulomb_unilateral(&rod, &state);
        let exact = variational(&instant).normal_forces[0];
        let fp = fixed_point(
            &instant,
            &mut ClarabelBackend::new(),
            FixedPointOptions::default(),
        );
        assert!(fp.converged && fp.solution.is_solved());
        let errors: Vec<f64> = fp.history.iter().map(|h| (h[0] - exact).abs()).collect();
        for j in 0..4 {
            let ratio = errors[j + 1] / errors[j];
            assert!(
                (ratio - kappa).abs() < 1e-6,
                "ratio {ratio} vs kappa {kappa}"
            );
        }
        assert!((fp.rate.unwrap() - kappa).abs() < 1e-4);
        assert!((fp.history.last().unwrap()[0] - exact).abs() < 1e-8 * exact);
    }
}

/// Inside the Painleve band (leading end, `mu = 1.5`, `tan th = 2`,
/// `kappa = 1.125`, `G = -0.2`) the free normal acceleration
/// `-g + l sin th th'^2` decides: `< 0` no solution, `> 0` two (the contact
/// open, or closed with `F_n = -w_free / G`).
#[test]
fn painleve_kind_follows_the_free_normal_acceleration() {
    let rod = rod(1.5);
    let theta = 2f64.atan();
    let cases = [
        (0.0, Verdict::PainleveInconsistent),
        (4.0, Verdict::PainleveIndeterminate),
    ];
    for (thetad, want) in cases {
        let state = rod.state_on_plane(theta, -6.0, thetad);
        assert_eq!(rod.slip(&state), -1.0);
        let instant = coulomb_unilateral(&rod, &state);
        let r = check(&instant);
        assert_eq!(r.verdict, want, "{}", r.reason);
        assert!((r.g()[0][0] + 0.2).abs() < 1e-12);
        let w = r.free_normal_acceleration[0];
        let v = variational(&instant);
        if want == Verdict::PainleveInconsistent {
            assert!(w < 0.0);
            // With the contact closed the normal force would be negative.
            assert_eq!(v.solution.status, Status::Infeasible);
            assert_eq!(v.answers, Answers::None);
            assert!(v.frictionless_feasible);
            let fp = fixed_point(
                &instant,
                &mut ClarabelBackend::new(),
                FixedPointOptions::default(),
            );
            assert_eq!(fp.solution.status, Status::NotConverged);
        } else {
            assert!(w > 0.0);
            assert_eq!(v.solution.status, Status::Solved);
            assert_eq!(v.answers, Answers::Several);
            // The reported answer keeps the contact closed: F_n = w / |G|.
            assert!((v.normal_forces[0] - w / 0.2).abs() < 1e-9 * w);
        }
    }
}

/// The sticking rod (pinned end at rest, `th'' = -3 g cos th / (4 l)`,
/// `x'' = -l sin th th''`, `y'' = l cos th th''`): the QP with the end held
/// is inside the cone at `mu = 2`, outside at `mu = 0.05`; the Newton
/// answer then slips (as [`by_hand`] says), and sticks otherwise.
#[test]
fn sticking_rod_inside_and_outside_the_cone() {
    let theta = 1.2;
    for (mu, holds) in [(2.0, true), (0.05, false)] {
        let rod = rod(mu);
        let state = rod.state_on_plane(theta, 0.0, 0.0);
        let instant = rod
            .instant(&state, FrictionLaw::Sticking, NormalRow::Unilateral)
            .unwrap();
        let s = zwang_coulomb::sticking(&instant, &mut ClarabelBackend::new());
        let (sn, cs) = theta.sin_cos();
        let thdd = -3.0 * rod.gravity * cs / (4.0 * rod.half_length);
        let (xdd, ydd) = (-rod.half_length * sn * thdd, rod.half_length * cs * thdd);
        let (fnormal, ft) = (rod.mass * (ydd + rod.gravity), rod.mass * xdd);
        let c = &s.contacts[0];
        assert!((c.normal_force - fnormal).abs() < 1e-8);
        assert!((c.tangential_force - ft).abs() < 1e-8);
        let ratio = ft.abs() / (mu * fnormal);
        assert!((c.ratio - ratio).abs() < 1e-8 * ratio);
        assert_eq!(c.holds, holds, "ratio {}", c.ratio);
        let var = variational(&instant);
        let want = by_hand(&rod, &state, FrictionLaw::Sticking, NormalRow::Unilateral).unwrap();
        assert_eq!(var.modes[0], if holds { Mode::Stick } else { Mode::Slide });
        for k in 0..3 {
            assert!((var.solution.acceleration[k] - want[k]).abs() < 1e-12 * rod.gravity);
        }
        assert!((var.tangential_forces[0] - want[4]).abs() < 1e-12 * rod.gravity);
    }
}

/// The demonstration runs, names every form and both verdict families.
#[test]
fn demonstration_mentions_every_form() {
    let text = zwang_coulomb::rod::demonstration();
    for needle in [
        "frozen_qp",
        "fixed_point",
        "variational",
        "viscous",
        "smooth",
        "eqs 21-22",
        "not_equivalent",
        "painleve_inconsistent",
        "painleve_indeterminate",
    ] {
        assert!(text.contains(needle), "missing {needle}");
    }
}

/// The default backend (the fast paths) gives the frozen QP and the fixed
/// point that the Clarabel reference gives.
#[test]
fn default_backend_agrees_with_clarabel() {
    let rod = rod(0.6);
    for xd in [2.0, -2.0] {
        let state = rod.state_on_plane(1.1, xd, 0.7);
        let instant = coulomb_unilateral(&rod, &state);
        let mut auto = zwang_qp::AutoBackend::new();
        let mut reference = ClarabelBackend::new();
        let (a, b) = (
            frozen_qp(&instant, &mut auto),
            frozen_qp(&instant, &mut reference),
        );
        assert!(Difference::between(&a.solution, &b.solution).max() < 1e-8);
        let options = FixedPointOptions::default();
        let (a, b) = (
            fixed_point(&instant, &mut auto, options),
            fixed_point(&instant, &mut reference, options),
        );
        assert!(a.converged && b.converged);
        assert!(Difference::between(&a.solution, &b.solution).max() < 1e-8);
        assert_eq!(a.solution.backend, "fixed_point");
    }
}

/// A rod at rest on a bilateral row whose end is held by a sticking entry
/// (`mu = 2`, `th = 0.8`, `th' = 3.5`): the pinned end is inside the cone,
/// and slipping forward is consistent with either sign of the normal force,
/// since `r = m (g - l sin th th'^2) = 1.02 m > 0` and the branch
/// `1 + 3 cos^2 - 3 mu sin cos = -0.54` is negative while
/// `1 + 3 cos^2 + 3 mu sin cos = 5.46` is positive: three motions
/// ([`hand`]), Painleve indeterminate. Per the `Report` docs the sign
/// branch with a negative determinant makes `G` not a P-matrix, and the
/// slipping contact's coupling is `kappa = 3 mu sin cos / (1 + 3 cos^2)
/// = 1.221`.
#[test]
fn sticking_bilateral_rod_with_several_answers() {
    let rod = rod(2.0);
    let state = rod.state_on_plane(0.8, 0.0, 3.5);
    let (law, normal) = (FrictionLaw::Sticking, NormalRow::Bilateral);
    let Hand::Several(motions) = hand(&rod, &state, law, normal) else {
        panic!("several motions by hand");
    };
    assert_eq!(motions.len(), 3);
    let (s, c) = state.theta.sin_cos();
    let r = rod.mass * (rod.gravity - rod.half_length * s * state.thetad.powi(2));
    assert!((r - 1.0230).abs() < 1e-3, "{r}");
    assert!(1.0 + 3.0 * c * c - 3.0 * rod.mu * s * c < -0.5);
    let kappa = rod.coupling(state.theta, 1.0).kappa;
    assert!((kappa - 1.221).abs() < 1e-3, "{kappa}");
    let instant = rod.instant(&state, law, normal).unwrap();
    assert_eq!(variational(&instant).answers, Answers::Several);
    let report = check(&instant);
    assert_eq!(report.verdict, Verdict::PainleveIndeterminate);
    assert_eq!(report.p_matrix, Some(false), "{}", report.reason);
    assert!(
        (report.coupling - kappa).abs() < 1e-9,
        "coupling {} vs kappa {kappa}",
        report.coupling
    );
}
