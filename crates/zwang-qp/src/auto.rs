//! The default backend: the fastest that applies, Clarabel as the net.

use crate::solution::{Solution, Status};
use crate::{ActiveSetBackend, Backend, ClarabelBackend, DirectBackend};
use zwang_instant::Instant;

/// Equality-only instants go to [`DirectBackend`], instants with contacts
/// to [`ActiveSetBackend`] (warm-started across calls); when the fast path
/// ends in `not_converged` or `numerical_error`, [`ClarabelBackend`] solves
/// the instant instead. The solution's `backend` names the one that
/// produced it.
#[derive(Debug, Default)]
pub struct AutoBackend {
    direct: DirectBackend,
    /// Made on the first instant with contacts (or warm start): a system
    /// without them, one free body per island among thousands, does not
    /// hold its working memory.
    active_set: Option<Box<ActiveSetBackend>>,
    clarabel: ClarabelBackend,
}

impl AutoBackend {
    /// A fresh backend.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Backend for AutoBackend {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn warm_start(&mut self, active: &[bool], multipliers_in: &[f64]) {
        self.active_set
            .get_or_insert_with(Box::default)
            .warm_start(active, multipliers_in);
    }

    fn solve_into(&mut self, instant: &Instant, out: &mut Solution) {
        if crate::refuse_higher_order(instant, out, "auto") {
            return;
        }
        if self.direct.applies(instant) {
            self.direct.solve_into(instant, out);
        } else {
            self.active_set
                .get_or_insert_with(Box::default)
                .solve_into(instant, out);
        }
        if matches!(out.status, Status::NotConverged | Status::NumericalError) {
            self.clarabel.solve_into(instant, out);
        }
    }
}
