//! Solvers for the Gauss QP at one instant.
//!
//! ```text
//! minimize   1/2 a^T M a - Q^T a
//! subject to A_eq a = b_eq,   A_in a >= b_in
//! ```
//!
//! Every solver implements [`Backend`] and returns a [`Solution`] whose
//! [`Status`] says how it ended (an infeasible instant is an answer, not an
//! error). Use [`AutoBackend`] unless you are comparing solvers:
//!
//! | backend | applies to | method |
//! |---|---|---|
//! | [`DirectBackend`] | equality rows only | KKT system: Schur complement `A M^-1 A^T` when `M` is block diagonal, quasi-definite sparse `LDL^T` otherwise |
//! | [`ActiveSetBackend`] | any instant | dual active set on the Schur complement, warm-started from the last contact set |
//! | [`ClarabelBackend`] | any instant | interior point (the reference) |
//! | [`AutoBackend`] | any instant | the fastest that applies, Clarabel when it does not converge |

mod active_set;
mod auto;
mod clarabel;
mod direct;
mod solution;
mod subproblem;

pub use active_set::{ActiveSetBackend, ActiveSetSettings};
pub use auto::AutoBackend;
pub use clarabel::{ClarabelBackend, ClarabelSettings};
pub use direct::DirectBackend;
pub use solution::{Residuals, Solution, Status};
pub use zwang_instant::Instant;

/// A solver of the Gauss QP. `solve` takes `&mut self` so that a backend
/// can keep what it learned (symbolic factorizations, the last active set)
/// for the next instant.
pub trait Backend {
    /// The backend's name, as `--backend` spells it.
    fn name(&self) -> &'static str;
    /// Whether the backend can solve this instant at all (the direct
    /// backend takes no inequality rows). Default: every instant.
    fn applies(&self, instant: &Instant) -> bool {
        let _ = instant;
        true
    }
    /// Solves one instant.
    fn solve(&mut self, instant: &Instant) -> Solution;
}

/// The backends by name, as the command line spells them.
pub const BACKEND_NAMES: [&str; 4] = ["auto", "direct", "active-set", "clarabel"];

/// A backend by its name (`auto`, `direct`, `active-set`, `clarabel`).
pub fn backend_by_name(name: &str) -> Option<Box<dyn Backend>> {
    Some(match name {
        "auto" => Box::new(AutoBackend::new()),
        "direct" => Box::new(DirectBackend::new()),
        "active-set" | "active_set" => Box::new(ActiveSetBackend::new()),
        "clarabel" => Box::new(ClarabelBackend::new()),
        _ => return None,
    })
}
