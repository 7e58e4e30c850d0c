//! Direct KKT solve for equality-only instants (placeholder until the fast path lands).

use crate::{Backend, ClarabelBackend, Solution};
use zwang_instant::Instant;

/// Equality-only instants by the KKT system.
#[derive(Debug, Default)]
pub struct DirectBackend {
    fallback: ClarabelBackend,
}

impl DirectBackend {
    /// A fresh solver (no symbolic analysis cached yet).
    pub fn new() -> Self {
        Self::default()
    }
}

impl Backend for DirectBackend {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&mut self, instant: &Instant) -> Solution {
        self.fallback.solve(instant)
    }
}
