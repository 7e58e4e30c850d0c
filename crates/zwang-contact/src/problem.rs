//! A frictional contact problem in local form.

use sprs::CsMat;
use thiserror::Error;

/// What is wrong with a contact problem's data.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ProblemError {
    /// Only planar problems (normal and one tangent) are solved so far.
    #[error("dimension {0} is not supported (planar problems have dimension 2)")]
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
    /// Components per contact: 2 in the plane.
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

    /// Checks sizes, finiteness and friction coefficients.
    pub fn validate(&self) -> Result<(), ProblemError> {
        if self.dimension != 2 {
            return Err(ProblemError::Dimension(self.dimension));
        }
        let n = self.dimension * self.mu.len();
        for (what, found) in [
            ("W's rows", self.w.rows()),
            ("W's columns", self.w.cols()),
            ("q", self.q.len()),
        ] {
            if found != n {
                return Err(ProblemError::Size {
                    what,
                    found,
                    expected: n,
                });
            }
        }
        if let Some((contact, &value)) = self
            .mu
            .iter()
            .enumerate()
            .find(|(_, m)| !(m.is_finite() && **m >= 0.0))
        {
            return Err(ProblemError::Friction { contact, value });
        }
        if let Some(index) = self.q.iter().position(|x| !x.is_finite()) {
            return Err(ProblemError::NotFinite { what: "q", index });
        }
        for (&v, (row, col)) in self.w.iter() {
            if !v.is_finite() {
                return Err(ProblemError::NotFinite {
                    what: "W",
                    index: row * n + col,
                });
            }
        }
        Ok(())
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], u: &mut [f64]) {
        u.copy_from_slice(&self.q);
        for (&v, (row, col)) in self.w.iter() {
            u[row] += v * r[col];
        }
    }
}
