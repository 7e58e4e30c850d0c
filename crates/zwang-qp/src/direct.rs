//! Equality-only instants by one KKT solve.

use crate::solution::{Solution, Status};
use crate::subproblem::SubproblemSolver;
use crate::Backend;
use zwang_instant::Instant;

/// The direct backend: equality rows only, solved by the KKT system (Schur
/// complement `A M^-1 A^T` when `M` is block diagonal, quasi-definite sparse
/// `LDL^T` otherwise), with proximal refinement for redundant rows.
///
/// Keep one `DirectBackend` across the instants of a simulation: the
/// symbolic analysis is reused for as long as the sparsity pattern of `M`
/// and of the rows stays the same, and its buffers are not reallocated.
///
/// Instants with inequality rows are outside its reach
/// ([`Backend::applies`] is false); solving one anyway returns
/// [`Status::NotConverged`] without touching it.
#[derive(Debug, Default)]
pub struct DirectBackend {
    sub: SubproblemSolver,
    sel: Vec<usize>,
    a: Vec<f64>,
    lambda: Vec<f64>,
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

    fn applies(&self, instant: &Instant) -> bool {
        instant.inequalities().is_empty()
    }

    fn solve(&mut self, instant: &Instant) -> Solution {
        let n = instant.dim();
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        if m_in > 0 {
            return Solution::assemble(
                instant,
                Status::NotConverged,
                "direct",
                0,
                vec![0.0; n],
                vec![0.0; m_eq],
                vec![0.0; m_in],
            );
        }
        self.sub.prepare(instant);
        self.sel.clear();
        self.sel.extend(0..m_eq);
        let r = self
            .sub
            .solve(instant, &self.sel, &mut self.a, &mut self.lambda);
        let status = if r.failed {
            Status::NumericalError
        } else if r.consistent {
            Status::Solved
        } else {
            Status::Infeasible
        };
        Solution::assemble_with_free(
            instant,
            self.sub.free(),
            status,
            "direct",
            1 + r.refinements,
            self.a.clone(),
            self.lambda.clone(),
            Vec::new(),
        )
    }
}
