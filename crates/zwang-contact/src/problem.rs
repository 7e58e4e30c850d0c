//! A frictional contact problem in local form.

use sprs::CsMat;
use thiserror::Error;

/// What is wrong with a contact problem's data.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ProblemError {
    /// Rows per contact: 2 in the plane (normal, tangent), 3 in space
    /// (the primal solver, FCLIB's files); the dual method
    /// ([`crate::ContactSolver`]) and Siconos' text files are planar.
    #[error(
        "dimension {0} is not supported here (2 in the plane; 3 in space for the primal solver)"
    )]
    Dimension(usize),
    /// A matrix or vector has the wrong size for the number of contacts.
    #[error("{what} has size {found}, expected {expected}")]
    Size {
        /// Which datum.
        what: &'static str,
        /// Its size.
        found: usize,
        /// The size the contact count asks for.
        expected: usize,
    },
    /// A friction coefficient is negative or not finite.
    #[error("friction coefficient of contact {contact} is {value}, not a finite number >= 0")]
    Friction {
        /// The contact.
        contact: usize,
        /// The coefficient.
        value: f64,
    },
    /// A solver setting is out of its range.
    #[error("setting {name} = {value} is out of range")]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// A bounded row's box is empty or not a box: `lo > hi`, a NaN,
    /// `lo = +inf` or `hi = -inf`.
    #[error("bounded row {row} has the impulse bounds [{lo}, {hi}], not lo <= hi with lo < +inf and hi > -inf")]
    Bounds {
        /// The row.
        row: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A matrix or vector entry is not finite.
    #[error("{what} holds a non-finite number at {index}")]
    NotFinite {
        /// Which datum.
        what: &'static str,
        /// Position of the entry (row-major for matrices: `row * cols + col`).
        index: usize,
    },
}

/// `u = W r + q`, Coulomb's law at each contact.
///
/// Contact `i` owns rows `d i .. d i + d` of `r`, `u` and `q` (normal
/// first). `W` is square of size `d * contacts`, symmetric positive
/// semi-definite as a Delassus operator is (rank deficient when contacts
/// are redundant: four corners of a box on a floor).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalProblem {
    /// Components per contact: 2 in the plane, 3 in space (normal, two
    /// tangents; solved through [`LocalProblem::to_velocity`], the dual
    /// method being planar).
    pub dimension: usize,
    /// The Delassus operator.
    pub w: CsMat<f64>,
    /// The free velocity (the contact velocity without impulses).
    pub q: Vec<f64>,
    /// One friction coefficient per contact.
    pub mu: Vec<f64>,
}

impl LocalProblem {
    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Checks the dimension (2 or 3), sizes, finiteness and friction
    /// coefficients.
    pub fn validate(&self) -> Result<(), ProblemError> {
        if !matches!(self.dimension, 2 | 3) {
            return Err(ProblemError::Dimension(self.dimension));
        }
        let n = self.dimension * self.mu.len();
        check_sizes(&[
            ("W's rows", self.w.rows(), n),
            ("W's columns", self.w.cols(), n),
            ("q", self.q.len(), n),
        ])?;
        check_friction(&self.mu)?;
        check_finite("q", &self.q)?;
        check_finite_matrix("W", &self.w)
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], u: &mut [f64]) {
        u.copy_from_slice(&self.q);
        for (&v, (row, col)) in self.w.iter() {
            u[row] += v * r[col];
        }
    }
}

/// Each `(what, found, expected)` size agrees.
pub(crate) fn check_sizes(sizes: &[(&'static str, usize, usize)]) -> Result<(), ProblemError> {
    match sizes.iter().find(|(_, found, expected)| found != expected) {
        Some(&(what, found, expected)) => Err(ProblemError::Size {
            what,
            found,
            expected,
        }),
        None => Ok(()),
    }
}

/// Every friction coefficient is a finite number `>= 0`.
pub(crate) fn check_friction(mu: &[f64]) -> Result<(), ProblemError> {
    match mu.iter().position(|m| !(m.is_finite() && *m >= 0.0)) {
        Some(contact) => Err(ProblemError::Friction {
            contact,
            value: mu[contact],
        }),
        None => Ok(()),
    }
}

/// Every entry of `x` is finite.
pub(crate) fn check_finite(what: &'static str, x: &[f64]) -> Result<(), ProblemError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(ProblemError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// Every stored entry of `m` is finite. The stored values are scanned as
/// one slice (run before every solve); the entry's place is found only
/// for the error.
pub(crate) fn check_finite_matrix(what: &'static str, m: &CsMat<f64>) -> Result<(), ProblemError> {
    if m.data().iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    match m.iter().find(|(v, _)| !v.is_finite()) {
        Some((_, (row, col))) => Err(ProblemError::NotFinite {
            what,
            index: row * m.cols() + col,
        }),
        None => Ok(()),
    }
}
