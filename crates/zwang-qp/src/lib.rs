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
//! | [`DirectBackend`] | equality rows only | fixed-size dense Cholesky when `n + m <= 16`; else the Schur complement `A M^-1 A^T` or the quasi-definite sparse KKT `LDL^T`, whichever has the smaller factor |
//! | [`ActiveSetBackend`] | any instant | dual active set on the Schur complement, warm-started from the last contact set |
//! | [`ClarabelBackend`] | any instant | interior point (the reference) |
//! | [`AutoBackend`] | any instant | the fastest that applies, Clarabel when it does not converge |

mod active_set;
mod auto;
mod clarabel;
mod direct;
mod solution;
mod subproblem;
mod tiny;

pub use active_set::{ActiveSetBackend, ActiveSetSettings};
pub use auto::AutoBackend;
pub use clarabel::{ClarabelBackend, ClarabelSettings};
pub use direct::DirectBackend;
pub use solution::{Residuals, Solution, Status};
pub use zwang_instant::Instant;

/// A solver of the Gauss QP. Solving takes `&mut self` because a backend
/// owns its workspace: the factorizations of `M`, of the KKT system or of
/// the Schur complement (symbolic once per structure stamp, numeric per
/// solve), its scratch and the last active set, kept for the next instant.
pub trait Backend {
    /// The backend's name, as `--backend` spells it.
    fn name(&self) -> &'static str;
    /// Whether the backend can solve this instant at all (the direct
    /// backend takes no inequality rows). Default: every instant whose
    /// rows are acceleration rows; a row of higher order
    /// ([`Instant::highest_order`] above 2) has no minimum to find (the
    /// principle is only stationary there), so no backend applies.
    fn applies(&self, instant: &Instant) -> bool {
        instant.highest_order() <= 2
    }
    /// Solves one instant into `out`, reusing its vectors: every vector of
    /// `out` is resized to the instant's sizes (`n`, `m_eq`, `m_in`),
    /// whatever it held before. A warm backend on an instant whose
    /// structure ([`Instant::structure_id`]) and active set did not change
    /// allocates nothing.
    fn solve_into(&mut self, instant: &Instant, out: &mut Solution);

    /// Solves one instant into a fresh [`Solution`].
    fn solve(&mut self, instant: &Instant) -> Solution {
        let mut out = Solution::empty();
        self.solve_into(instant, &mut out);
        out
    }

    /// A warm start for the next solve: the inequality rows believed active
    /// (`active[i]`, one per inequality row) and their multipliers
    /// (`multipliers_in`, same length, or empty). Backends without a use for
    /// it ignore it (the default); a length that does not match the next
    /// instant is ignored too.
    fn warm_start(&mut self, active: &[bool], multipliers_in: &[f64]) {
        let _ = (active, multipliers_in);
    }
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

/// Marks `out` [`Status::NotApplicable`] (sized, nothing solved) when the
/// instant has rows of higher order, and says so: every backend asks
/// before it reads the rows as acceleration rows.
pub(crate) fn refuse_higher_order(
    instant: &Instant,
    out: &mut Solution,
    backend: &'static str,
) -> bool {
    if instant.highest_order() <= 2 {
        return false;
    }
    out.reset(instant);
    out.status = Status::NotApplicable;
    out.backend = backend;
    true
}
