//! Equality-only instants by one KKT solve.

use crate::solution::{Solution, Status};
use crate::subproblem::SubproblemSolver;
use crate::tiny::TinySolver;
use crate::Backend;
use zwang_instant::Instant;

/// The direct backend: equality rows only. Tiny instants (`n + m <= 16`)
/// take a fixed-size dense Cholesky on the stack; the others the Schur
/// complement `A M^-1 A^T` or the quasi-definite sparse KKT `LDL^T`,
/// whichever factors with less fill, with proximal refinement for
/// redundant rows.
///
/// Keep one `DirectBackend` across the instants of a simulation: the
/// symbolic analysis is reused for as long as the structure stamp
/// ([`Instant::structure_id`]) stays the same, and a warm
/// [`Backend::solve_into`] allocates nothing.
///
/// Instants with inequality rows are outside its reach
/// ([`Backend::applies`] is false); solving one anyway returns
/// [`Status::NotApplicable`] without touching it.
#[derive(Debug, Default)]
pub struct DirectBackend {
    /// The general path, made on the first instant too large or too ill
    /// posed for the tiny one: a free body's solver does not hold it.
    sub: Option<Box<SubproblemSolver>>,
    tiny: TinySolver,
    sel: Vec<usize>,
    scratch: Vec<f64>,
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
        instant.inequalities().is_empty() && instant.highest_order() <= 2
    }

    fn solve_into(&mut self, instant: &Instant, out: &mut Solution) {
        out.reset(instant);
        if !self.applies(instant) {
            out.status = Status::NotApplicable;
            out.backend = "direct";
            return;
        }
        if self.tiny.solve(instant, out) {
            out.finish(
                instant,
                self.tiny.free(),
                Status::Solved,
                "direct",
                1,
                &mut self.scratch,
            );
            return;
        }
        let m_eq = instant.equalities().len();
        let sub = self.sub.get_or_insert_with(Box::default);
        if !sub.prepare(instant) {
            let free = sub.free();
            out.finish(
                instant,
                free,
                Status::NumericalError,
                "direct",
                0,
                &mut self.scratch,
            );
            return;
        }
        self.sel.clear();
        self.sel.extend(0..m_eq);
        let r = sub.solve(
            instant,
            &self.sel,
            &mut out.acceleration,
            &mut out.multipliers_eq,
        );
        let status = if r.failed {
            Status::NumericalError
        } else if r.consistent {
            Status::Solved
        } else {
            Status::Infeasible
        };
        out.finish(
            instant,
            sub.free(),
            status,
            "direct",
            1 + r.refinements,
            &mut self.scratch,
        );
    }
}
