//! The default: the fastest backend that applies (placeholder until the fast path lands).

use crate::{Backend, ClarabelBackend, Solution};
use zwang_instant::Instant;

/// Picks the fastest backend that applies; falls back to Clarabel.
#[derive(Debug, Default)]
pub struct AutoBackend {
    fallback: ClarabelBackend,
}

impl AutoBackend {
    /// A fresh solver (no symbolic analysis cached yet).
    pub fn new() -> Self {
        Self::default()
    }
}

impl Backend for AutoBackend {
    fn name(&self) -> &'static str {
        "auto"
    }
    fn solve(&mut self, instant: &Instant) -> Solution {
        self.fallback.solve(instant)
    }
}
