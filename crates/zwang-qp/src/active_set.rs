//! Dual active set for instants with contacts (placeholder until the fast path lands).

use crate::{Backend, ClarabelBackend, Solution};
use zwang_instant::Instant;

/// Any instant, warm-started from the previous active set.
#[derive(Debug, Default)]
pub struct ActiveSetBackend {
    fallback: ClarabelBackend,
}

impl ActiveSetBackend {
    /// A fresh solver (no symbolic analysis cached yet).
    pub fn new() -> Self {
        Self::default()
    }
}

impl Backend for ActiveSetBackend {
    fn name(&self) -> &'static str {
        "active-set"
    }
    fn solve(&mut self, instant: &Instant) -> Solution {
        self.fallback.solve(instant)
    }
}
