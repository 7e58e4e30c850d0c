//! Systems in generalized coordinates, by automatic differentiation.
//!
//! # When to use it
//!
//! When a mechanism is best described by a few coordinates `q` and its
//! kinetic energy `T(t, q, qd)`, potential `V(t, q)` and constraints
//! written as Rust functions, and nobody should derive the equations of
//! motion by hand. A [`System`] gives those functions generic over the
//! number type ([`Scalar`]); forward-mode automatic differentiation with
//! dual and hyper-dual numbers (the `num-dual` crate) gives, at any state
//! `(t, q, qd)`, exactly (to round-off, no finite differences):
//!
//! - the mass matrix `M = d2T/dqd2` and the velocity-product terms
//!   `h = (d2T/dqd dq) qd + d2T/dqd dt - dT/dq`, so that
//!   `M qdd + h = Q + A^T lambda` with `Q = -dV/dq + forces`
//!   ([`Equations`]);
//! - the acceleration rows `A qdd = b` of the constraints (design notes,
//!   section 1): a holonomic `phi(t, q) = 0` gives `phi_q qdd = -phi''`
//!   (the second derivative of `phi` along the motion at zero
//!   acceleration), a velocity-level one `f(t, q, qd) = 0` (Pfaffian or
//!   not) gives `f_qd qdd = -f_q qd - f_t` (Chetaev's rule: the virtual
//!   accelerations satisfy `f_qd dqdd = 0`);
//! - the [`Instant`](zwang_instant::Instant) of these, on which the QP and
//!   every form of `zwang-forms` run unchanged;
//! - the three forms of Gauss's principle in generalized coordinates of
//!   Zhang & Xia, "Gauss principle of least compulsion for relative motion
//!   dynamics and differential equations of motion", 2024 (section 4):
//!   Appell `dS/dqdd` (eq 36), Lagrange `d/dt dT/dqd - dT/dq` (eq 49) and
//!   Nielsen `d/dqd (dT/dt) - 2 dT/dq` (eq 54), each computed on its own
//!   as the linear map `qdd -> E(qdd)` ([`FormsReport`]): they must agree,
//!   which checks `T`, `S` and the differentiation at once.
//!
//! [`Generalized`] wraps a system as a [`zwang_model::Mechanism`], so that
//! `zwang_motion::simulate` integrates it like any planar model; [`AnySystem`]
//! is the same with the type erased (what [`catalog::by_name`] returns).
//! [`elements`] builds `T` and Appell's acceleration energy `S` from where
//! the masses are (particles and bodies in planar motion), and the inertial
//! forces of a moving frame (eqs 30-34 of the same paper).
//!
//! ```
//! use zwang_generalized::{Generalized, Scalar, System};
//!
//! /// A pendulum: a point mass m on a massless rod of length l, angle q
//! /// from the downward vertical.
//! struct Pendulum { m: f64, l: f64, g: f64 }
//!
//! impl System for Pendulum {
//!     fn dof(&self) -> usize { 1 }
//!     fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
//!         qd[0] * qd[0] * (0.5 * self.m * self.l * self.l)
//!     }
//!     fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
//!         -q[0].cos() * (self.m * self.g * self.l)
//!     }
//!     fn initial_state(&self) -> (Vec<f64>, Vec<f64>) { (vec![1.0], vec![0.0]) }
//! }
//!
//! let p = Generalized::new(Pendulum { m: 2.0, l: 0.5, g: 9.81 }).unwrap();
//! let eq = p.equations(0.0, &[0.3], &[1.2]).unwrap();
//! assert!((eq.mass[0] - 2.0 * 0.25).abs() < 1e-15);            // m l^2
//! let a = eq.unconstrained_acceleration().unwrap();
//! assert!((a[0] + 9.81 / 0.5 * 0.3_f64.sin()).abs() < 1e-12);  // -g/l sin q
//! let forms = p.forms(0.0, &[0.3], &[1.2]).unwrap();
//! assert!(forms.max_rel_difference < 1e-14);
//! ```

mod buffer;
pub mod catalog;
pub mod elements;
mod equations;
mod forms;
mod generalized;

pub use equations::Equations;
pub use forms::{FormsReport, LinearForm};
pub use generalized::{AnySystem, Generalized};
/// The automatic differentiation crate, for its number types
/// ([`num_dual::Dual64`], [`num_dual::HyperDual64`], ...).
pub use num_dual;

use num_dual::DualNum;

/// The numbers a [`System`]'s functions are written for: `f64` and every
/// dual number over it, nested to any depth (`Dual<HyperDual<f64>>`, ...).
/// Write constants as `D::from(2.0)` or multiply by an `f64` (`x * 2.0`);
/// `sin`, `cos`, `sqrt`, `powi`, ... are methods.
pub trait Scalar: DualNum<Primitive = f64> + Copy {}

impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}

/// How a constraint is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// `phi(t, q) = 0`: a position-level constraint (rheonomic when it
    /// depends on `t`); its acceleration row is its second derivative.
    Holonomic,
    /// `f(t, q, qd) = 0`: a velocity-level constraint, linear in `qd`
    /// (Pfaffian, `B qd + beta`) or not (nonlinear nonholonomic); its
    /// acceleration row is its first derivative, and its virtual
    /// accelerations satisfy `f_qd dqdd = 0` (Chetaev's rule).
    Velocity,
}

/// A mechanical system in generalized coordinates, given by functions
/// generic over the number type so that they can be differentiated.
///
/// Every function of `D` must be written with `D`'s own operations only
/// (no conversion to `f64` and back), or its derivatives are lost.
pub trait System {
    /// Number of coordinates `n`.
    fn dof(&self) -> usize;
    /// The name of coordinate `i` (for reports).
    fn coordinate_name(&self, i: usize) -> String {
        format!("q{}", i + 1)
    }
    /// Kinetic energy `T(t, q, qd)`; quadratic and positive definite in
    /// `qd` (else the mass matrix is singular: an error, not a panic).
    fn kinetic<D: Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D;
    /// Potential `V(t, q)`. Default 0.
    fn potential<D: Scalar>(&self, t: D, q: &[D]) -> D {
        let _ = q;
        t * 0.0
    }
    /// Non-potential generalized forces `Q(t, q, qd)` (dampers, drives,
    /// the inertial forces of a moving frame), written into `out`
    /// (length `n`). Default none.
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], out: &mut [f64]) {
        let _ = (t, q, qd);
        out.fill(0.0);
    }
    /// Appell's acceleration energy `S(t, q, qd, qdd)`, when the system
    /// knows it (only its part that depends on `qdd` matters). Default
    /// `None`: the Appell form is then reported as not available.
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        let _ = (t, q, qd, qdd);
        None
    }
    /// Number of two-sided constraints.
    fn constraints(&self) -> usize {
        0
    }
    /// How constraint `k` is given. Default holonomic.
    fn constraint_kind(&self, k: usize) -> ConstraintKind {
        let _ = k;
        ConstraintKind::Holonomic
    }
    /// The value of constraint `k`: `phi(t, q)` for a holonomic one (which
    /// must not read `qd`), `f(t, q, qd)` for a velocity-level one.
    /// Default 0 (there are none).
    fn constraint<D: Scalar>(&self, k: usize, t: D, q: &[D], qd: &[D]) -> D {
        let _ = (k, q, qd);
        t * 0.0
    }
    /// The initial `(q, qd)` of a run.
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>);
}

/// What can go wrong evaluating a system.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeneralizedError {
    /// `dof()` is 0.
    #[error("the system has no coordinates")]
    NoCoordinates,
    /// A slice of the wrong length.
    #[error("{what} has length {found}, expected {expected}")]
    Length {
        /// Which argument (`q`, `qd`, `qdd`, `initial q`, ...).
        what: &'static str,
        /// Its length.
        found: usize,
        /// The system's `n`.
        expected: usize,
    },
    /// A state entry, or a value the system's functions returned, is not
    /// finite.
    #[error("{what} is not finite ({value})")]
    NotFinite {
        /// Which value (`q[1]`, `M[0, 1]`, `constraint 2`, ...).
        what: String,
        /// The value.
        value: f64,
    },
    /// `d2T/dqd2` is not positive definite at this state: `T` is not a
    /// kinetic energy of these coordinates here (a singular configuration,
    /// or a coordinate `T` does not see).
    #[error("the mass matrix d2T/dqd2 is not positive definite (pivot {index} is {pivot:e})")]
    SingularMass {
        /// The Cholesky pivot that failed.
        index: usize,
        /// Its value.
        pivot: f64,
    },
    /// No system of the catalog has this name.
    #[error("no system named `{name}` (the catalog has: {known})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The instant could not be built or written.
    #[error(transparent)]
    Instant(#[from] zwang_instant::InstantError),
}

impl From<GeneralizedError> for zwang_model::ModelError {
    fn from(e: GeneralizedError) -> Self {
        match e {
            GeneralizedError::Instant(e) => zwang_model::ModelError::Instant(e),
            GeneralizedError::SingularMass { .. } => zwang_model::ModelError::Degenerate {
                key: "mass".into(),
                message: e.to_string(),
            },
            _ => zwang_model::ModelError::Invalid {
                key: "state".into(),
                message: e.to_string(),
            },
        }
    }
}
