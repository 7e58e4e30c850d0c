//! Bad input to a system in generalized coordinates is a typed error,
//! never a panic: slices of the wrong length, states that are not finite,
//! a kinetic energy that is not positive definite in the velocities,
//! functions that return NaN, names the catalog does not have, instants
//! or contact modes that do not belong; and a run that meets a singular
//! mass matrix ends `failed` with the reason.

use zwang_generalized::catalog::{self, DoublePendulum};
use zwang_generalized::{Generalized, GeneralizedError, Scalar, System};
use zwang_model::{Bodies, InstantWriter, ModelError};
use zwang_motion::{simulate, ContactState, NoObserver, Settings, Status};

/// A particle in polar coordinates `(r, phi)`: `T = m (r'^2 + r^2 phi'^2) / 2`
/// is singular at `r = 0`.
struct Polar {
    r0: f64,
    rate0: f64,
}

impl System for Polar {
    fn dof(&self) -> usize {
        2
    }
    fn kinetic<D: Scalar>(&self, _t: D, q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + q[0] * q[0] * qd[1] * qd[1]) * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![self.r0, 0.0], vec![self.rate0, 0.0])
    }
}

/// `T` that does not see the difference of the velocities.
struct Degenerate;

impl System for Degenerate {
    fn dof(&self) -> usize {
        2
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        let s = qd[0] + qd[1];
        s * s * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0; 2], vec![0.0; 2])
    }
}

/// A potential that is NaN for `q < 1`.
struct BadPotential;

impl System for BadPotential {
    fn dof(&self) -> usize {
        1
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        qd[0] * qd[0] * 0.5
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        (q[0] - 1.0).sqrt()
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![2.0], vec![0.0])
    }
}

/// No coordinates, or an initial state of the wrong shape.
#[derive(Debug)]
struct Shapeless {
    n: usize,
    q0: Vec<f64>,
}

impl System for Shapeless {
    fn dof(&self) -> usize {
        self.n
    }
    fn kinetic<D: Scalar>(&self, t: D, _q: &[D], _qd: &[D]) -> D {
        t * 0.0
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.clone(), vec![0.0; self.n])
    }
}

#[test]
fn shapes_and_initial_states_are_checked_when_wrapped() {
    let none = Generalized::new(Shapeless { n: 0, q0: vec![] });
    assert!(matches!(none, Err(GeneralizedError::NoCoordinates)));
    let short = Generalized::new(Shapeless {
        n: 2,
        q0: vec![0.0],
    });
    assert!(matches!(
        short,
        Err(GeneralizedError::Length {
            what: "initial q",
            found: 1,
            expected: 2
        })
    ));
    let nan = Generalized::new(Shapeless {
        n: 1,
        q0: vec![f64::NAN],
    });
    assert!(
        matches!(nan, Err(GeneralizedError::NotFinite { .. })),
        "{nan:?}"
    );
}

#[test]
fn wrong_lengths_and_non_finite_states_are_errors() {
    let sys = Generalized::new(DoublePendulum::default()).unwrap();
    let e = sys.equations(0.0, &[0.1], &[0.0, 0.0]).unwrap_err();
    assert_eq!(
        e,
        GeneralizedError::Length {
            what: "q",
            found: 1,
            expected: 2
        }
    );
    let e = sys.forms(0.0, &[0.1, 0.2], &[0.0, 0.0, 0.0]).unwrap_err();
    assert_eq!(
        e,
        GeneralizedError::Length {
            what: "qd",
            found: 3,
            expected: 2
        }
    );
    let e = sys.instant(0.0, &[0.1, f64::NAN], &[0.0, 0.0]).unwrap_err();
    assert!(
        matches!(e, GeneralizedError::NotFinite { ref what, .. } if what == "q[1]"),
        "{e}"
    );
    let e = sys
        .equations(f64::INFINITY, &[0.1, 0.2], &[0.0, 0.0])
        .unwrap_err();
    assert!(
        matches!(e, GeneralizedError::NotFinite { ref what, .. } if what == "t"),
        "{e}"
    );
    // The energy of a state of the wrong length is NaN, not a panic.
    assert!(sys.energy(0.0, &[0.1], &[0.0, 0.0]).is_nan());
    println!("{e}");
}

#[test]
fn a_mass_matrix_that_is_not_positive_definite_is_an_error() {
    let polar = Generalized::new(Polar {
        r0: 1.0,
        rate0: 0.0,
    })
    .unwrap();
    assert!(polar.equations(0.0, &[1.0, 0.0], &[0.0, 1.0]).is_ok());
    let e = polar.equations(0.0, &[0.0, 0.0], &[1.0, 1.0]).unwrap_err();
    assert!(
        matches!(e, GeneralizedError::SingularMass { index: 1, .. }),
        "{e}"
    );
    let e = polar.instant(0.0, &[0.0, 0.0], &[1.0, 1.0]).unwrap_err();
    assert!(matches!(e, GeneralizedError::SingularMass { .. }));
    let e = polar.forms(0.0, &[0.0, 0.0], &[1.0, 1.0]).unwrap_err();
    assert!(matches!(e, GeneralizedError::SingularMass { .. }));
    let degenerate = Generalized::new(Degenerate).unwrap();
    let e = degenerate.equations(0.0, &[0.0; 2], &[0.0; 2]).unwrap_err();
    assert!(
        matches!(e, GeneralizedError::SingularMass { index: 1, .. }),
        "{e}"
    );
    println!("{e}");
    // Through the mechanism: a model error, not a panic.
    let e = degenerate
        .build_instant(0.0, &[0.0; 2], &[0.0; 2], &[])
        .unwrap_err();
    assert!(matches!(e, ModelError::Degenerate { .. }), "{e}");
}

#[test]
fn nan_from_the_systems_functions_is_an_error() {
    let sys = Generalized::new(BadPotential).unwrap();
    assert!(sys.equations(0.0, &[2.0], &[0.0]).is_ok());
    let e = sys.equations(0.0, &[0.5], &[0.0]).unwrap_err();
    assert!(
        matches!(e, GeneralizedError::NotFinite { ref what, .. } if what == "Q[0]"),
        "{e}"
    );
}

#[test]
fn modes_and_foreign_instants_are_refused() {
    let sys = Generalized::new(DoublePendulum::default()).unwrap();
    let (q, qd) = ([0.1, 0.2], [0.0, 0.0]);
    let e = sys
        .build_instant(0.0, &q, &qd, &[ContactState::OPEN])
        .unwrap_err();
    assert!(matches!(e, ModelError::Invalid { .. }), "{e}");
    let other = Generalized::new(catalog::CartesianDoublePendulum::default()).unwrap();
    let (q4, qd4) = other.initial();
    let mut foreign = other.instant(0.0, &q4, &qd4).unwrap();
    let e = sys.update(0.0, &q, &qd, &mut foreign).unwrap_err();
    assert!(matches!(e, GeneralizedError::Length { .. }), "{e}");
    let mut own = sys.instant(0.0, &q, &qd).unwrap();
    assert!(sys.update(0.0, &q, &qd, &mut own).is_ok());
    let e = sys
        .update_instant(0.0, &[f64::NAN, 0.0], &qd, &[], &mut own)
        .unwrap_err();
    assert!(matches!(e, ModelError::Invalid { .. }), "{e}");
}

#[test]
fn unknown_catalog_names_list_the_known_ones() {
    let e = catalog::by_name("triple_pendulum").err().unwrap();
    let text = e.to_string();
    assert!(
        text.contains("triple_pendulum") && text.contains("double_pendulum"),
        "{text}"
    );
    for entry in catalog::entries() {
        let sys = catalog::by_name(entry.name).unwrap();
        assert_eq!(sys.coordinate_names().len(), sys.dof());
    }
}

/// `T = (1 - t) q'^2 / 2`: a mass that runs out at `t = 1`. At rest it
/// stays at rest, until `M` is no longer positive.
struct Fading;

impl System for Fading {
    fn dof(&self) -> usize {
        1
    }
    fn kinetic<D: Scalar>(&self, t: D, _q: &[D], qd: &[D]) -> D {
        (-t + 1.0) * qd[0] * qd[0] * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0], vec![0.0])
    }
}

#[test]
fn a_run_into_a_singular_mass_fails_with_the_reason() {
    let sys = Generalized::new(Fading).unwrap();
    let run = simulate(&sys, 2.0, &Settings::default(), &mut NoObserver);
    println!("{:?}: {:?} at t = {}", run.status, run.reason, run.time);
    assert_eq!(run.status, Status::Failed);
    assert!(run.reason.unwrap().contains("positive definite"));
    // The stepper stops at the last accepted step (a trial stage beyond
    // t = 1 can end it early).
    assert!(run.time < 1.0, "{}", run.time);
}
