//! Stage 5, correct: what overlap is left at the end of a step (the
//! contact rows are linear in `v`, the bodies turn) is projected away in
//! Gauss's metric, `min 1/2 dq^T M dq` with `g + J_n dq >= 0`: the same
//! contact space with the gaps as the free "velocity" and no friction.
//! Lifting a body out of an overlap raises its potential energy; the
//! kinetic energy pays for it, so that a correction adds none.

use super::collide::StepContact;
use zwang_contact::{ContactSolver, Friction, LocalProblem, ProblemError, SolverSettings};

/// The projection's solver (its own workspace: its problems have no
/// friction, a pattern of their own) and buffers.
#[derive(Default)]
pub(super) struct Correct {
    solver: ContactSolver,
    pub problem: Option<LocalProblem>,
    r: Vec<f64>,
    u: Vec<f64>,
    dq: Vec<f64>,
    /// The last projection's solve.
    report: Option<zwang_contact::Report>,
}

impl Correct {
    /// The displacement that removes the overlaps of `contacts` (rows and
    /// gaps at the current positions), given `W` of those contacts and how
    /// impulses move the `n` coordinates (`apply(r, dq)` adds
    /// `M^-1 J^T r`, joints held); into [`Correct::dq`]. `false` when
    /// nothing overlaps beyond `tol`.
    pub fn displacement(
        &mut self,
        contacts: &[StepContact],
        w: &sprs::CsMat<f64>,
        n: usize,
        apply: impl Fn(&[f64], &mut [f64]),
        tol: f64,
    ) -> Result<bool, ProblemError> {
        if !contacts.iter().any(|c| c.gap < -tol) {
            return Ok(false);
        }
        let m = 2 * contacts.len();
        let same = self.problem.as_ref().is_some_and(|p| {
            p.w.indptr().raw_storage() == w.indptr().raw_storage() && p.w.indices() == w.indices()
        });
        if same {
            let p = self.problem.as_mut().expect("checked");
            p.w.data_mut().copy_from_slice(w.data());
        } else {
            self.problem = Some(LocalProblem {
                dimension: 2,
                w: w.clone(),
                q: Vec::with_capacity(m),
                mu: Vec::with_capacity(contacts.len()),
            });
        }
        let p = self.problem.as_mut().expect("made");
        p.q.clear();
        p.mu.clear();
        for c in contacts {
            p.q.extend([c.gap, 0.0]);
            p.mu.push(0.0);
        }
        self.r.clear();
        self.r.resize(m, 0.0);
        self.u.clear();
        self.u.resize(m, 0.0);
        let settings = SolverSettings {
            friction: Friction::Exact,
            parallel: false,
            ..SolverSettings::default()
        };
        self.report = Some(
            self.solver
                .solve_in_place(p, &settings, &mut self.r, &mut self.u)?,
        );
        self.dq.clear();
        self.dq.resize(n, 0.0);
        apply(&self.r, &mut self.dq);
        Ok(true)
    }

    /// The last projection's solve (`None` before the first).
    pub fn report(&self) -> Option<zwang_contact::Report> {
        self.report
    }

    /// The last displacement.
    pub fn dq(&self) -> &[f64] {
        &self.dq
    }
}
