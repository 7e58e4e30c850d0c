//! Tiny instants solved by hand, run through every backend.

use approx::assert_relative_eq;
use zwang_instant::{matrix_from_triplets, Instant};
use zwang_qp::{backend_by_name, Status, BACKEND_NAMES};

fn mat(key: &str, shape: (usize, usize), t: &[(usize, usize, f64)]) -> sprs::CsMat<f64> {
    matrix_from_triplets(key, shape, t.iter().copied()).unwrap()
}

/// Every backend that applies, with its solution.
fn solve_all(instant: &Instant) -> Vec<zwang_qp::Solution> {
    BACKEND_NAMES
        .iter()
        .map(|name| backend_by_name(name).unwrap())
        .filter(|b| b.applies(instant))
        .map(|mut b| b.solve(instant))
        .collect()
}

const G: f64 = 9.81;

/// A particle of mass 2 on the incline `y = x tan(alpha)`, alpha = 30 deg:
///
/// ```text
/// M = [2 0; 0 2],  Q = [0, -2g],  A_eq = [-sin a, cos a],  b_eq = 0
/// a = -g sin a (cos a, sin a),    lambda = m g cos a
/// ```
#[test]
fn particle_on_an_incline() {
    let al = 30f64.to_radians();
    let instant = Instant::builder(
        mat("mass", (2, 2), &[(0, 0, 2.0), (1, 1, 2.0)]),
        vec![0.0, -2.0 * G],
    )
    .equalities(
        mat("A", (1, 2), &[(0, 0, -al.sin()), (0, 1, al.cos())]),
        vec![0.0],
    )
    .build()
    .unwrap();
    for s in solve_all(&instant) {
        assert_eq!(s.status, Status::Solved, "{}", s.backend);
        assert_relative_eq!(
            s.acceleration[0],
            -G * al.sin() * al.cos(),
            max_relative = 1e-10
        );
        assert_relative_eq!(
            s.acceleration[1],
            -G * al.sin() * al.sin(),
            max_relative = 1e-10
        );
        assert_relative_eq!(
            s.multipliers_eq[0],
            2.0 * G * al.cos(),
            max_relative = 1e-10
        );
        // Z = 1/2 lambda^2 |A|^2 / m = 1/2 (m g cos a)^2 / m
        assert_relative_eq!(
            s.compulsion,
            0.5 * 2.0 * (G * al.cos()).powi(2),
            max_relative = 1e-9
        );
        assert!(
            s.residuals.max() < 1e-12,
            "{}: {:?}",
            s.backend,
            s.residuals
        );
    }
}

/// A particle resting on the floor, `a_y >= 0`: the contact pushes with m g.
/// Pulled upwards instead (Q = +m g), the contact opens: lambda = 0.
#[test]
fn contact_pushes_or_opens() {
    for (qy, ay, l) in [(-G, 0.0, G), (G, G, 0.0)] {
        let instant = Instant::builder(
            mat("mass", (2, 2), &[(0, 0, 1.0), (1, 1, 1.0)]),
            vec![0.5, qy],
        )
        .inequalities(mat("A", (1, 2), &[(0, 1, 1.0)]), vec![0.0])
        .build()
        .unwrap();
        for s in solve_all(&instant) {
            assert_eq!(s.status, Status::Solved, "{}", s.backend);
            assert_relative_eq!(s.acceleration[0], 0.5, max_relative = 1e-9);
            assert!(
                (s.acceleration[1] - ay).abs() < 1e-8,
                "{}: {:?}",
                s.backend,
                s.acceleration
            );
            assert!(
                (s.multipliers_in[0] - l).abs() < 1e-8,
                "{}: {:?}",
                s.backend,
                s.multipliers_in
            );
        }
    }
}

/// The same constraint written twice (a_y = 0, a_y = 0) under gravity: any
/// split of m g between the rows is valid; the minimum-norm one is half each.
#[test]
fn redundant_rows_share_the_force() {
    let instant = Instant::builder(
        mat("mass", (2, 2), &[(0, 0, 1.0), (1, 1, 1.0)]),
        vec![0.0, -G],
    )
    .equalities(
        mat("A", (2, 2), &[(0, 1, 1.0), (1, 1, 1.0)]),
        vec![0.0, 0.0],
    )
    .build()
    .unwrap();
    for s in solve_all(&instant) {
        assert_eq!(s.status, Status::Solved, "{}", s.backend);
        assert!(s.acceleration.iter().all(|a| a.abs() < 1e-9));
        assert_relative_eq!(
            s.multipliers_eq[0] + s.multipliers_eq[1],
            G,
            max_relative = 1e-9
        );
        // The proximal refinement lands on the minimum-norm split up to
        // round-off amplified by 1/delta (delta = 1e-10).
        if s.backend != "clarabel" {
            assert_relative_eq!(s.multipliers_eq[0], G / 2.0, max_relative = 1e-5);
        }
    }
}

/// `a_x = 1` and `a_x = 3` cannot both hold: infeasible, and the direct
/// backend returns the least-squares compromise a_x = 2.
#[test]
fn inconsistent_rows_are_infeasible() {
    let instant = Instant::builder(
        mat("mass", (2, 2), &[(0, 0, 1.0), (1, 1, 1.0)]),
        vec![0.0, 0.0],
    )
    .equalities(
        mat("A", (2, 2), &[(0, 0, 1.0), (1, 0, 1.0)]),
        vec![1.0, 3.0],
    )
    .build()
    .unwrap();
    for s in solve_all(&instant) {
        assert_eq!(s.status, Status::Infeasible, "{}", s.backend);
        if s.backend == "direct" {
            assert_relative_eq!(s.acceleration[0], 2.0, max_relative = 1e-6);
            // Row residuals |2 - 1| / max(|A| |a|, |b|) = 1 / 2.
            assert_relative_eq!(s.residuals.equalities, 0.5, max_relative = 1e-6);
        }
    }
}

/// Contacts that contradict each other (a_x >= 1 and -a_x >= 1): infeasible.
#[test]
fn contradicting_contacts_are_infeasible() {
    let instant = Instant::builder(mat("mass", (1, 1), &[(0, 0, 1.0)]), vec![0.0])
        .inequalities(
            mat("A", (2, 1), &[(0, 0, 1.0), (1, 0, -1.0)]),
            vec![1.0, 1.0],
        )
        .build()
        .unwrap();
    for s in solve_all(&instant) {
        assert_eq!(s.status, Status::Infeasible, "{}", s.backend);
    }
}

/// A free system: a = M^-1 Q and Z = 0.
#[test]
fn free_system_has_zero_compulsion() {
    // M = [2 1; 1 2], Q = [3, 3] -> a = [1, 1]
    let instant = Instant::builder(
        mat(
            "mass",
            (2, 2),
            &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)],
        ),
        vec![3.0, 3.0],
    )
    .build()
    .unwrap();
    for s in solve_all(&instant) {
        assert_eq!(s.status, Status::Solved);
        assert_relative_eq!(s.acceleration[0], 1.0, max_relative = 1e-10);
        assert_relative_eq!(s.acceleration[1], 1.0, max_relative = 1e-10);
        assert!(s.compulsion.abs() < 1e-20);
    }
}

/// A pendulum bob (mass m at the end of a rod of length L at angle th) in
/// maximal coordinates (x, y), the rod as the acceleration-level row
/// `x a_x + y a_y = -(xd^2 + yd^2)`. In SI units and in grams and
/// millimetres the motion is the same: a scales by 1000, lambda by 1 (N/m
/// -> g mm/s^2 / mm = 1e3 * 1e3 / 1e3... here lambda = force / length).
#[test]
fn units_do_not_change_the_motion() {
    let (m, l, th, w) = (0.3, 0.8, 0.7f64, 1.3);
    let build = |mass_unit: f64, len_unit: f64| {
        let (mm, ll) = (m * mass_unit, l * len_unit);
        let (x, y) = (ll * th.sin(), -ll * th.cos());
        let v = w * ll;
        let g = G * len_unit;
        Instant::builder(
            mat("mass", (2, 2), &[(0, 0, mm), (1, 1, mm)]),
            vec![0.0, -mm * g],
        )
        .equalities(mat("A", (1, 2), &[(0, 0, x), (0, 1, y)]), vec![-v * v])
        .build()
        .unwrap()
    };
    let si = build(1.0, 1.0);
    let gmm = build(1e3, 1e3);
    let want = [
        // Tangential: -g sin th along the tangent, centripetal w^2 l inwards.
        -G * th.sin() * th.cos() - w * w * l * th.sin(),
        -G * th.sin() * th.sin() + w * w * l * th.cos(),
    ];
    for name in BACKEND_NAMES {
        let a = backend_by_name(name).unwrap().solve(&si);
        let b = backend_by_name(name).unwrap().solve(&gmm);
        for k in 0..2 {
            assert_relative_eq!(a.acceleration[k], want[k], max_relative = 1e-9);
            assert_relative_eq!(b.acceleration[k], 1e3 * want[k], max_relative = 1e-9);
        }
        // lambda has units of force / length: (1e3 g)(1e3 mm/s^2) / (1e3 mm).
        assert_relative_eq!(
            b.multipliers_eq[0],
            1e3 * a.multipliers_eq[0],
            max_relative = 1e-9
        );
    }
}

/// Regression: the complementarity residual used to divide by the largest
/// contact multiplier, so an instant whose contacts are all open (Clarabel
/// returns multipliers of 1e-11 there) reported complementarity ~ 1.
#[test]
fn open_contacts_have_round_off_complementarity() {
    // A particle pulled up off the floor: a_y = g > 0, lambda = 0.
    let instant = Instant::builder(
        mat("mass", (2, 2), &[(0, 0, 1.0), (1, 1, 1.0)]),
        vec![0.0, G],
    )
    .inequalities(mat("A", (1, 2), &[(0, 1, 1.0)]), vec![0.0])
    .build()
    .unwrap();
    let s = zwang_qp::Solution::assemble(
        &instant,
        Status::Solved,
        "hand",
        0,
        vec![0.0, G],
        vec![],
        vec![1e-11],
    );
    assert!(s.residuals.complementarity < 1e-11, "{:?}", s.residuals);
    for s in solve_all(&instant) {
        assert!(s.residuals.max() < 1e-9, "{}: {:?}", s.backend, s.residuals);
    }
}
