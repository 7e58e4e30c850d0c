//! Tiny instants solved by hand: every number below is derived in the
//! comment next to it.

use zwang_forms::{
    form_by_name, Form, MultiplierForm, NullSpaceForm, UdwadiaKalabaForm, FORM_NAMES,
};
use zwang_instant::{matrix_from_triplets, Instant};
use zwang_qp::{Backend, ClarabelBackend, Solution, Status};

const G: f64 = 9.81;

fn mass(n: usize, entries: &[(usize, usize, f64)]) -> sprs::CsMat<f64> {
    matrix_from_triplets("mass", (n, n), entries.iter().copied()).unwrap()
}

fn rows(m: usize, n: usize, entries: &[(usize, usize, f64)]) -> sprs::CsMat<f64> {
    matrix_from_triplets("A", (m, n), entries.iter().copied()).unwrap()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

fn all_forms() -> [Box<dyn Form>; 3] {
    [
        Box::new(MultiplierForm::new()),
        Box::new(UdwadiaKalabaForm::new()),
        Box::new(NullSpaceForm::new()),
    ]
}

/// A particle of mass `m` on an incline at angle `alpha`, coordinates
/// `(x, y)`: `M = m I`, `Q = (0, -m g)`, the row is the incline normal
/// `n = (-sin alpha, cos alpha)`, `n . a = 0`. Then
/// `a = -g sin alpha (cos alpha, sin alpha)` (down the incline at
/// `g sin alpha`) and the normal force is `lambda = m g cos alpha`:
/// `m a = Q + lambda n` holds component by component.
fn incline(m: f64, alpha: f64, contact: bool) -> (Instant, Vec<f64>, f64) {
    let (s, c) = alpha.sin_cos();
    let row = rows(1, 2, &[(0, 0, -s), (0, 1, c)]);
    let b = Instant::builder(mass(2, &[(0, 0, m), (1, 1, m)]), vec![0.0, -m * G]);
    let b = if contact {
        b.inequalities(row, vec![0.0])
    } else {
        b.equalities(row, vec![0.0])
    };
    (b.build().unwrap(), vec![-G * s * c, -G * s * s], m * G * c)
}

#[test]
fn particle_on_an_incline() {
    for &(m, alpha) in &[(1.0, 0.3), (2.5, 1.1), (1e-3, 0.05)] {
        let (instant, a, lambda) = incline(m, alpha, false);
        for mut form in all_forms() {
            assert!(form.applies(&instant));
            let s = form.solve(&instant);
            assert_eq!(s.status, Status::Solved, "{}", form.name());
            close(&s.acceleration, &a, 1e-14);
            assert!(
                s.residuals.max() < 1e-14,
                "{}: {:?}",
                form.name(),
                s.residuals
            );
            // Z = 1/2 f^T M^-1 f with f = lambda n, |n| = 1.
            assert!((s.compulsion - 0.5 * lambda * lambda / m).abs() < 1e-12 * s.compulsion);
            if form.name() == "null_space" {
                // No multipliers: one NaN per row.
                assert!(!form.gives_multipliers());
                assert!(s.multipliers_eq.len() == 1 && s.multipliers_eq[0].is_nan());
                assert!(s.multipliers_in.is_empty());
            } else {
                close(&s.multipliers_eq, &[lambda], 1e-14);
            }
        }
    }
}

/// The incline as a contact (`n . a >= 0`): the contact pushes, so the
/// all-closed answer of the two multiplier forms is the motion.
#[test]
fn resting_contact_is_solved_by_closing_it() {
    let (instant, a, lambda) = incline(2.0, 0.4, true);
    for mut form in [
        Box::new(MultiplierForm::new()) as Box<dyn Form>,
        Box::new(UdwadiaKalabaForm::new()),
    ] {
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved);
        close(&s.acceleration, &a, 1e-14);
        assert!(s.multipliers_eq.is_empty());
        close(&s.multipliers_in, &[lambda], 1e-14);
    }
    let reason = NullSpaceForm::new()
        .not_applicable_reason(&instant)
        .unwrap();
    assert!(reason.contains("no contact set"), "{reason}");
    // Asked anyway, it closes the contact but cannot certify the answer.
    let s = NullSpaceForm::new().solve(&instant);
    assert_eq!(s.status, Status::NotConverged);
    close(&s.acceleration, &a, 1e-14);
    // Given the contact set [closed], it applies and solves.
    let mut form = NullSpaceForm::with_contact_set(vec![true]);
    assert!(form.not_applicable_reason(&instant).is_none());
    let s = form.solve(&instant);
    assert_eq!(s.status, Status::Solved);
    close(&s.acceleration, &a, 1e-14);
    assert!(s.multipliers_in.len() == 1 && s.multipliers_in[0].is_nan());
}

/// A unit mass on a floor pulled up by `Q = (0, 5)` with `a_y >= 0`: the
/// closed contact would have to pull (`lambda = -5`, `a = 0`), so the
/// multiplier forms say `Infeasible` and still fill in that answer; the QP
/// lifts off (`a_y = 5`, `lambda = 0`).
#[test]
fn pulling_contact_is_not_the_motion() {
    let instant = Instant::builder(mass(2, &[(0, 0, 1.0), (1, 1, 1.0)]), vec![0.0, 5.0])
        .inequalities(rows(1, 2, &[(0, 1, 1.0)]), vec![0.0])
        .build()
        .unwrap();
    for mut form in [
        Box::new(MultiplierForm::new()) as Box<dyn Form>,
        Box::new(UdwadiaKalabaForm::new()),
    ] {
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Infeasible);
        close(&s.acceleration, &[0.0, 0.0], 1e-15);
        close(&s.multipliers_in, &[-5.0], 1e-15);
        assert!(s.residuals.complementarity > 0.5);
    }
    let qp = ClarabelBackend::new().solve(&instant);
    close(&qp.acceleration, &[0.0, 5.0], 1e-7);
}

/// A particle held by the same row twice, `a_y = 0` and `a_y = 0`:
/// `S = A M^-1 A^T = [1 1; 1 1] / m`, `r = (g, g)`, and the minimum-norm
/// multipliers split the weight equally, `lambda = (m g / 2, m g / 2)`.
#[test]
fn duplicated_row_splits_the_force() {
    let m = 3.0;
    let instant = Instant::builder(mass(2, &[(0, 0, m), (1, 1, m)]), vec![0.0, -m * G])
        .equalities(rows(2, 2, &[(0, 1, 1.0), (1, 1, 1.0)]), vec![0.0, 0.0])
        .build()
        .unwrap();
    for mut form in all_forms() {
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved, "{}", form.name());
        close(&s.acceleration, &[0.0, 0.0], 1e-14);
        assert!(s.residuals.max() < 1e-15, "{:?}", s.residuals);
        if form.name() != "null_space" {
            close(&s.multipliers_eq, &[m * G / 2.0, m * G / 2.0], 1e-14);
        }
    }
}

/// Three consistent rows of rank two: `a_x = 1`, `a_y = 2`,
/// `a_x + a_y = 3`, with `M = I`, `Q = 0`, so `a = (1, 2)` and
/// `A^T lambda = M a - Q = (1, 2)`: `lambda_1 + lambda_3 = 1`,
/// `lambda_2 + lambda_3 = 2`. The least `|lambda|^2` has
/// `d/dlambda_3 [(1 - l3)^2 + (2 - l3)^2 + l3^2] = 6 l3 - 6 = 0`, so
/// `lambda = (0, 1, 1)`.
#[test]
fn redundant_rows_get_minimum_norm_multipliers() {
    let instant = Instant::builder(mass(2, &[(0, 0, 1.0), (1, 1, 1.0)]), vec![0.0, 0.0])
        .equalities(
            rows(3, 2, &[(0, 0, 1.0), (1, 1, 1.0), (2, 0, 1.0), (2, 1, 1.0)]),
            vec![1.0, 2.0, 3.0],
        )
        .build()
        .unwrap();
    for mut form in all_forms() {
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved, "{}", form.name());
        close(&s.acceleration, &[1.0, 2.0], 1e-14);
        if form.name() != "null_space" {
            close(&s.multipliers_eq, &[0.0, 1.0, 1.0], 1e-14);
        }
    }
}

fn check_infeasible(s: &Solution, a: &[f64]) {
    assert_eq!(s.status, Status::Infeasible, "{}", s.backend);
    close(&s.acceleration, a, 1e-14);
    assert!(s.residuals.equalities > 1e-3, "{:?}", s.residuals);
}

/// Inconsistent rows `a_x = 1` and `a_x = 3` with `M = I`,
/// `Q = (0, -g)`: the least-squares answer is `a_x = 2`, `a_y = -g`, the
/// residual of each row is 1 (scaled by `max(|A_i| |a|, |b_i|) = g`), and
/// the minimum-norm multipliers are `S^+ r` with `S = [1 1; 1 1]`,
/// `S^+ = S / 4`, `r = (1, 3)`: `lambda = (1, 1)`, so that
/// `A^T lambda = (2, 0) = M a - Q`.
#[test]
fn inconsistent_rows_give_the_least_squares_answer() {
    let instant = Instant::builder(mass(2, &[(0, 0, 1.0), (1, 1, 1.0)]), vec![0.0, -G])
        .equalities(rows(2, 2, &[(0, 0, 1.0), (1, 0, 1.0)]), vec![1.0, 3.0])
        .build()
        .unwrap();
    for mut form in all_forms() {
        let s = form.solve(&instant);
        check_infeasible(&s, &[2.0, -G]);
        assert!((s.residuals.equalities - 1.0 / G).abs() < 1e-14);
        if form.name() != "null_space" {
            close(&s.multipliers_eq, &[1.0, 1.0], 1e-14);
            // Stationarity still holds: the forces are a real balance.
            assert!(s.residuals.stationarity < 1e-15);
        }
    }
}

/// With a coupled mass the least-squares answer also minimizes the
/// compulsion: rows `a_x = 1`, `a_x = 3` fix `a_x = 2`, then
/// `min 1/2 a^T M a` with `M = [2 1; 1 2]`, `Q = 0` gives
/// `a_y = -M_xy a_x / M_yy = -1`.
#[test]
fn inconsistent_rows_then_least_compulsion() {
    let instant = Instant::builder(
        mass(2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)]),
        vec![0.0, 0.0],
    )
    .equalities(rows(2, 2, &[(0, 0, 1.0), (1, 0, 1.0)]), vec![1.0, 3.0])
    .build()
    .unwrap();
    for mut form in all_forms() {
        check_infeasible(&form.solve(&instant), &[2.0, -1.0]);
    }
}

/// Least squares is for the rows as written: `a_x = 1` and `10 a_x = 30`
/// minimize `(a_x - 1)^2 + (10 a_x - 30)^2`, so `101 a_x = 301`; the
/// coupled `M = [2 1; 1 2]`, `Q = 0` then gives `a_y = -a_x / 2`.
#[test]
fn least_squares_weighs_the_rows_as_written() {
    let instant = Instant::builder(
        mass(2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)]),
        vec![0.0, 0.0],
    )
    .equalities(rows(2, 2, &[(0, 0, 1.0), (1, 0, 10.0)]), vec![1.0, 30.0])
    .build()
    .unwrap();
    let a_x = 301.0 / 101.0;
    for mut form in all_forms() {
        check_infeasible(&form.solve(&instant), &[a_x, -a_x / 2.0]);
    }
}

/// Three inconsistent rows of full column rank, `a_x = 1`,
/// `a_x + a_y = 0`, `a_y = 0`: the least-squares `a` solves
/// `A^T A a = A^T b`, `[2 1; 1 2] a = (1, 0)`, so `a = (2/3, -1/3)`
/// whatever `M` and `Q` are.
#[test]
fn overdetermined_rows_by_normal_equations() {
    let instant = Instant::builder(mass(2, &[(0, 0, 5.0), (1, 1, 0.2)]), vec![1.0, -7.0])
        .equalities(
            rows(3, 2, &[(0, 0, 1.0), (1, 0, 1.0), (1, 1, 1.0), (2, 1, 1.0)]),
            vec![1.0, 0.0, 0.0],
        )
        .build()
        .unwrap();
    for mut form in all_forms() {
        check_infeasible(&form.solve(&instant), &[2.0 / 3.0, -1.0 / 3.0]);
    }
}

/// No rows: every form is Newton's `M a = Q`. `M = [2 1; 1 2]`,
/// `Q = (3, 0)`: `a = (2, -1)`.
#[test]
fn free_system() {
    let instant = Instant::builder(
        mass(2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)]),
        vec![3.0, 0.0],
    )
    .build()
    .unwrap();
    for mut form in all_forms() {
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved);
        close(&s.acceleration, &[2.0, -1.0], 1e-15);
        assert!(s.compulsion.abs() < 1e-15 && s.residuals.max() < 1e-15);
    }
}

/// Zero rows with zero right-hand side are redundant; with a nonzero one
/// they are inconsistent.
#[test]
fn zero_rows() {
    for (b, status) in [(0.0, Status::Solved), (1.0, Status::Infeasible)] {
        let instant = Instant::builder(mass(2, &[(0, 0, 1.0), (1, 1, 1.0)]), vec![1.0, 2.0])
            .equalities(rows(1, 2, &[(0, 0, 0.0)]), vec![b])
            .build()
            .unwrap();
        for mut form in all_forms() {
            let s = form.solve(&instant);
            assert_eq!(s.status, status, "{}", form.name());
            close(&s.acceleration, &[1.0, 2.0], 1e-15);
        }
    }
}

/// A particle of mass 2 on a floor pulled up: `M = 2 I`, `Q = (1, 6)`,
/// row `A_in = [0 1]`, `b_in = 0` (`a_y >= 0`).
///
/// Contact set [open]: `a = M^-1 Q = (0.5, 3)`, `lambda_in = 0`, and the
/// open row holds (`a_y = 3 >= 0`): `Solved` in every form.
/// Contact set [closed]: `a_y = 0`, so `2 a = Q + (0, lambda)` gives
/// `a = (0.5, 0)`, `lambda = -6 < 0`: the contact would pull, `Infeasible`
/// in the two forms with multipliers. The null-space form, which has no
/// multipliers, cannot see the pull: it solves the closed row (its `Solved`
/// certifies only the open contacts).
fn floor_pulled_up() -> Instant {
    Instant::builder(mass(2, &[(0, 0, 2.0), (1, 1, 2.0)]), vec![1.0, 6.0])
        .inequalities(rows(1, 2, &[(0, 1, 1.0)]), vec![0.0])
        .build()
        .unwrap()
}

#[test]
fn open_contact_with_its_contact_set() {
    let instant = floor_pulled_up();
    for mut form in all_forms() {
        form.set_contact_set(Some(vec![false]));
        assert_eq!(form.contact_set(), Some(&[false][..]));
        assert!(form.not_applicable_reason(&instant).is_none());
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved, "{}", form.name());
        close(&s.acceleration, &[0.5, 3.0], 1e-15);
        assert!(s.residuals.max() < 1e-15, "{:?}", s.residuals);
        assert_eq!(s.multipliers_in.len(), 1);
        if form.gives_multipliers() {
            assert_eq!(s.multipliers_in, [0.0]);
        } else {
            assert!(s.multipliers_in[0].is_nan());
        }

        form.set_contact_set(Some(vec![true]));
        let s = form.solve(&instant);
        close(&s.acceleration, &[0.5, 0.0], 1e-15);
        if form.gives_multipliers() {
            assert_eq!(s.status, Status::Infeasible, "{}", form.name());
            close(&s.multipliers_in, &[-6.0], 1e-15);
        } else {
            assert_eq!(s.status, Status::Solved);
        }
    }
}

/// A box of mass 1 and width 1 on two corners, coordinates
/// `(x, y, theta)`: `M = diag(1, 1, 5/12)`, corner rows
/// `A_in = [0 1 -0.5; 0 1 0.5]`, `b_in = 0` (each corner's normal
/// acceleration `a_y -/+ a_theta / 2 >= 0`), `Q = (1, -8, 10)`: the torque
/// lifts the right corner.
///
/// Contact set [closed, open]: `a_x = 1`, `a_y = -8 + l1`,
/// `(5/12) a_theta = 10 - l1 / 2`, and the closed row
/// `a_y = a_theta / 2 = (6/5)(10 - l1 / 2) = 12 - 0.6 l1` gives
/// `1.6 l1 = 20`, `l1 = 12.5 >= 0`, so `a = (1, 4.5, 9)`; the open corner
/// moves at `a_y + a_theta / 2 = 9 >= 0`. The motion: `Solved`,
/// `lambda_in = (12.5, 0)`.
///
/// Contact set [open, closed]: `a_y = -8 + l2`, `a_theta = 24 + 1.2 l2`,
/// `a_y + a_theta / 2 = 0` gives `1.6 l2 = -4`, `l2 = -2.5 < 0` (pulls),
/// `a = (1, -10.5, 21)`, and the open corner goes through the floor at
/// `a_y - a_theta / 2 = -21`: `Infeasible` in every form.
///
/// Contact set [closed, closed]: `a_y = a_theta = 0`, `l1 + l2 = 8`,
/// `l1 - l2 = 20`: `lambda = (14, -6)`, the right corner pulls:
/// `Infeasible` in the two forms with multipliers (the null-space form
/// cannot see a pull).
fn box_on_two_corners() -> Instant {
    Instant::builder(
        mass(3, &[(0, 0, 1.0), (1, 1, 1.0), (2, 2, 5.0 / 12.0)]),
        vec![1.0, -8.0, 10.0],
    )
    .inequalities(
        rows(2, 3, &[(0, 1, 1.0), (0, 2, -0.5), (1, 1, 1.0), (1, 2, 0.5)]),
        vec![0.0, 0.0],
    )
    .build()
    .unwrap()
}

#[test]
fn box_tips_onto_one_corner() {
    let instant = box_on_two_corners();
    for mut form in all_forms() {
        let name = form.name();
        form.set_contact_set(Some(vec![true, false]));
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Solved, "{name}");
        close(&s.acceleration, &[1.0, 4.5, 9.0], 1e-14);
        assert!(s.residuals.max() < 1e-14, "{name}: {:?}", s.residuals);
        if form.gives_multipliers() {
            close(&s.multipliers_in, &[12.5, 0.0], 1e-14);
        } else {
            assert!(s.multipliers_in.len() == 2 && s.multipliers_in.iter().all(|l| l.is_nan()));
        }

        form.set_contact_set(Some(vec![false, true]));
        let s = form.solve(&instant);
        assert_eq!(s.status, Status::Infeasible, "{name}");
        close(&s.acceleration, &[1.0, -10.5, 21.0], 1e-14);
        if form.gives_multipliers() {
            close(&s.multipliers_in, &[0.0, -2.5], 1e-14);
        }

        form.set_contact_set(Some(vec![true, true]));
        let s = form.solve(&instant);
        close(&s.acceleration, &[1.0, 0.0, 0.0], 1e-14);
        if form.gives_multipliers() {
            assert_eq!(s.status, Status::Infeasible, "{name}");
            close(&s.multipliers_in, &[14.0, -6.0], 1e-14);
        }
    }
    // The QP finds the same motion and the same contact set.
    let qp = ClarabelBackend::new().solve(&instant);
    close(&qp.acceleration, &[1.0, 4.5, 9.0], 1e-7);
    assert_eq!(zwang_forms::contact_set_of(&instant, &qp), [true, false]);
}

/// A contact set of the wrong length does not panic: the form says why it
/// does not apply, closes every contact, and never says `Solved`; on the
/// floor pulled up the all-closed answer is `a = (0.5, 0)` (see
/// [`floor_pulled_up`]).
#[test]
fn contact_set_of_the_wrong_length() {
    let instant = floor_pulled_up();
    let (no_contacts, _, _) = incline(1.0, 0.3, false);
    for mut form in all_forms() {
        for set in [vec![], vec![false, false]] {
            form.set_contact_set(Some(set.clone()));
            let reason = form.not_applicable_reason(&instant).unwrap();
            assert!(reason.contains("contact set has"), "{reason}");
            let s = form.solve(&instant);
            assert_ne!(s.status, Status::Solved, "{}", form.name());
            close(&s.acceleration, &[0.5, 0.0], 1e-15);
            assert_eq!(s.multipliers_in.len(), 1);
        }
        // Flags for an instant without contacts: wrong length too; the
        // motion is still the incline's but not certified.
        form.set_contact_set(Some(vec![true]));
        assert!(form.not_applicable_reason(&no_contacts).is_some());
        let s = form.solve(&no_contacts);
        assert_eq!(s.status, Status::NotConverged, "{}", form.name());
        assert_eq!(s.multipliers_eq.len(), 1);
        // An empty set is the right length for no contacts.
        form.set_contact_set(Some(Vec::new()));
        assert!(form.not_applicable_reason(&no_contacts).is_none());
        assert!(form.solve(&no_contacts).is_solved());
    }
}

#[test]
fn forms_by_name() {
    for name in FORM_NAMES {
        assert_eq!(form_by_name(name).unwrap().name(), name);
    }
    assert_eq!(
        form_by_name("udwadia-kalaba").unwrap().name(),
        "udwadia_kalaba"
    );
    assert!(form_by_name("clarabel").is_none());
}
