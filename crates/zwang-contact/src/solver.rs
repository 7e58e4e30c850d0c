//! The velocity-level Coulomb solver: islands, their workspaces, and the
//! settings and outcome of a solve.
//!
//! The solver owns its working memory, keyed on the problem's pattern (`W`'s
//! sparsity and which contacts are frictionless): the first solve of a
//! pattern splits it into islands and analyses each island's factorization;
//! later solves of the same pattern (a time stepper's steady state) only
//! refill numbers and allocate nothing when the answer is written in place
//! ([`ContactSolver::solve_in_place`]).

use rayon::prelude::*;

use crate::dual::Island;
use crate::error::error_for;
use crate::{LocalProblem, ProblemError, UnionFind};

/// Contacts from which the islands are solved on rayon's pool: below,
/// handing them out costs more than it saves, and rayon's injector (the
/// queue of work sent from outside the pool) allocates a block every 63
/// jobs, which a time stepper's steady state would pay every 63 steps.
pub(crate) const PARALLEL_FROM: usize = 256;

pub use zwang_core::Friction;

/// Settings of [`ContactSolver::solve`].
#[derive(Debug, Clone, PartialEq)]
pub struct SolverSettings {
    /// Stop when Siconos' error measure ([`crate::local_error`], or
    /// [`crate::convex_error`] for the convex form) is at most this.
    /// Default `1e-10`.
    pub tolerance: f64,
    /// Most outer (proximal fixed-point) iterations per island. Default 200.
    pub max_iterations: usize,
    /// Most Newton steps of the primal method ([`crate::PrimalSolver`])
    /// towards each outer iteration's minimum (at most 10 after a penalty
    /// is made stiffer). Default 30: a minimum not reached by then rarely
    /// is (a landing pile's stiffest penalty, tried and softened again).
    /// A quick try whose iterate goes to the finish (a kinematic tree's
    /// stepper) takes 2: the finish's steps, on Coulomb's law itself, go
    /// further from there than the rest of a minimum would.
    pub newton_steps: usize,
    /// The friction law. Default [`Friction::Exact`].
    pub friction: Friction,
    /// Solve islands on rayon's thread pool (from 256 contacts on).
    /// Default `true`.
    pub parallel: bool,
    /// Most Newton steps of the proximal finish in space (where the outer
    /// iterations stall) on an island of up to 500 unknowns (velocities
    /// and impulses), fewer on larger ones as the cube of their size, and
    /// at most a fifth as many proximal iterations (at least 40). Default
    /// 200, what a landing pile's step can afford; raise it for answers
    /// to the tolerance on hard islands (a landing box's redundant corners
    /// at the cone's edge) at more cost, 0 for no finish.
    pub finish_steps: usize,
    /// The primal solver's ([`crate::PrimalSolver`]) stopping measure is
    /// absolute where its scale `max(|q|, |r|, |u|)` is at most this, as
    /// Siconos' measure is at `DBL_EPSILON` ([`crate::error::siconos_error`]).
    /// Default 0: relative down to zero, so that a problem and the same
    /// problem scaled by `1e-20` are solved alike. A time stepper whose
    /// islands are parts of a moving system sets `f64::EPSILON`: an island
    /// whose velocities and impulses are all round-off (a joint at its
    /// limit, at rest, in a falling model) is at its answer.
    pub absolute_below: f64,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            tolerance: 1e-10,
            max_iterations: 200,
            newton_steps: 30,
            friction: Friction::Exact,
            parallel: true,
            finish_steps: 200,
            absolute_below: 0.0,
        }
    }
}

impl SolverSettings {
    /// Checks the settings: a finite tolerance `>= 0` (zero: iterate until
    /// the error vanishes or the iterations run out), at least one
    /// iteration and Newton step, a finite `absolute_below >= 0`.
    pub fn validate(&self) -> Result<(), ProblemError> {
        if !(self.absolute_below.is_finite() && self.absolute_below >= 0.0) {
            return Err(ProblemError::Setting {
                name: "absolute_below",
                value: self.absolute_below,
            });
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(ProblemError::Setting {
                name: "tolerance",
                value: self.tolerance,
            });
        }
        if self.max_iterations == 0 {
            return Err(ProblemError::Setting {
                name: "max_iterations",
                value: 0.0,
            });
        }
        if self.newton_steps == 0 {
            return Err(ProblemError::Setting {
                name: "newton_steps",
                value: 0.0,
            });
        }
        Ok(())
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The error is at most the tolerance.
    Solved,
    /// The iterations ran out first; the answer is the best found.
    NotConverged,
    /// No answer exists: the impulses grow without bound along a direction
    /// the contacts cannot resist (`W d = 0`, the free velocity working
    /// against it), as when a contact approaches and no impulse can stop
    /// it. The answer is the last iterate.
    Unbounded,
}

/// What a solve reports besides the answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    /// Whether the tolerance was met.
    pub status: Status,
    /// Siconos' error measure of the answer (the convex form's for
    /// [`Friction::Convex`]).
    pub error: f64,
    /// Outer iterations, the most any island used.
    pub iterations: usize,
    /// Newton steps (one sparse factorization each), summed over islands.
    pub newton_steps: usize,
    /// Number of islands.
    pub islands: usize,
    /// Whether a finishing method gave the answer after the primal one
    /// ([`crate::PrimalSolver`]) stalled: the dual method in the plane,
    /// proximal Newton iterations in `(v, r)` in space (always `true` for
    /// [`ContactSolver`], the dual method itself).
    pub dual: bool,
}

/// An answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Impulses, contact by contact, normal first.
    pub r: Vec<f64>,
    /// Velocities `W r + q`.
    pub u: Vec<f64>,
    /// Whether the tolerance was met.
    pub status: Status,
    /// Siconos' error measure of the answer.
    pub error: f64,
    /// Outer iterations (the most any island used).
    pub iterations: usize,
    /// Newton steps, summed over islands.
    pub newton_steps: usize,
}

/// The pattern the workspace was built for.
#[derive(Debug, Default, PartialEq)]
struct Pattern {
    csr: bool,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    frictionless: Vec<bool>,
}

/// The solver and its working memory.
#[derive(Debug, Default)]
pub struct ContactSolver {
    pattern: Option<Pattern>,
    islands: Vec<Island>,
    reports: Vec<crate::dual::IslandReport>,
}

impl ContactSolver {
    /// A solver with empty working memory.
    pub fn new() -> Self {
        ContactSolver::default()
    }

    /// Solves `problem`, starting from the impulses `warm` when given.
    pub fn solve(
        &mut self,
        problem: &LocalProblem,
        settings: &SolverSettings,
        warm: Option<&[f64]>,
    ) -> Result<Solution, ProblemError> {
        let n = problem.q.len();
        let mut r = match warm {
            Some(w) => w.to_vec(),
            None => vec![0.0; n],
        };
        let mut u = vec![0.0; n];
        let report = self.solve_in_place(problem, settings, &mut r, &mut u)?;
        Ok(Solution {
            r,
            u,
            status: report.status,
            error: report.error,
            iterations: report.iterations,
            newton_steps: report.newton_steps,
        })
    }

    /// Solves `problem` from the impulses in `r` (the warm start; zeros for
    /// none) and writes the answer's impulses to `r` and velocities to `u`.
    /// Allocates nothing when the pattern is the last solve's (but for the
    /// last resort of a small island whose Newton and fixed-point steps
    /// stall: Lemke's method on a dense tableau).
    pub fn solve_in_place(
        &mut self,
        problem: &LocalProblem,
        settings: &SolverSettings,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<Report, ProblemError> {
        // The dual method works in the planar cone's edge coordinates.
        if problem.dimension != 2 {
            return Err(ProblemError::Dimension(problem.dimension));
        }
        problem.validate()?;
        settings.validate()?;
        let n = problem.q.len();
        for (what, found) in [("r", r.len()), ("u", u.len())] {
            if found != n {
                return Err(ProblemError::Size {
                    what,
                    found,
                    expected: n,
                });
            }
        }
        if let Some(index) = r.iter().position(|x| !x.is_finite()) {
            return Err(ProblemError::NotFinite {
                what: "the warm start",
                index,
            });
        }
        if !self.same_pattern(problem) {
            self.build(problem);
        }
        // Each island to a share of the tolerance small enough that the
        // whole problem's measure meets it (its scale is at least the
        // islands' root mean square).
        let tolerance = if self.islands.len() > 1 {
            settings.tolerance / 2.0
        } else {
            settings.tolerance
        };
        let w_data = problem.w.data();
        let solve = |island: &mut Island, report: &mut crate::dual::IslandReport| {
            *report = island.solve(
                w_data,
                &problem.q,
                &problem.mu,
                settings.friction,
                tolerance,
                settings.max_iterations,
                r,
            );
        };
        if settings.parallel && self.islands.len() > 1 && problem.mu.len() >= PARALLEL_FROM {
            self.islands
                .par_iter_mut()
                .zip(self.reports.par_iter_mut())
                .for_each(|(island, report)| solve(island, report));
        } else {
            for (island, report) in self.islands.iter_mut().zip(self.reports.iter_mut()) {
                solve(island, report);
            }
        }
        for island in &self.islands {
            island.scatter(r, u);
        }
        let error = error_for(settings.friction, &problem.mu, &problem.q, r, u);
        let status = if self.reports.iter().any(|r| r.unbounded) {
            Status::Unbounded
        } else if error <= settings.tolerance {
            Status::Solved
        } else {
            Status::NotConverged
        };
        Ok(Report {
            status,
            error,
            iterations: self.reports.iter().map(|r| r.iterations).max().unwrap_or(0),
            newton_steps: self.reports.iter().map(|r| r.newton_steps).sum(),
            islands: self.islands.len(),
            dual: true,
        })
    }

    fn same_pattern(&self, problem: &LocalProblem) -> bool {
        let Some(p) = &self.pattern else {
            return false;
        };
        let w = &problem.w;
        p.csr == w.is_csr()
            && p.indptr.as_slice() == w.indptr().raw_storage()
            && p.indices.as_slice() == w.indices()
            && p.frictionless.len() == problem.mu.len()
            && p.frictionless
                .iter()
                .zip(&problem.mu)
                .all(|(&f, &m)| f == (m == 0.0))
    }

    /// Splits the problem into islands (contacts coupled through `W`) and
    /// analyses each one's factorization.
    fn build(&mut self, problem: &LocalProblem) {
        let w = &problem.w;
        let indptr = w.indptr().raw_storage().to_vec();
        let base = indptr.first().copied().unwrap_or(0);
        let mut triplets = Vec::with_capacity(w.nnz());
        for outer in 0..indptr.len().saturating_sub(1) {
            for p in indptr[outer]..indptr[outer + 1] {
                let inner = w.indices()[p - base];
                let (row, col) = if w.is_csr() {
                    (outer, inner)
                } else {
                    (inner, outer)
                };
                triplets.push((row, col, p - base));
            }
        }
        let m = problem.mu.len();
        let mut uf = UnionFind::new(m);
        for &(row, col, _) in &triplets {
            uf.union(row / 2, col / 2);
        }
        let mut labels = Vec::with_capacity(m);
        let members = uf.groups(&mut labels);
        let count = members.len();
        let mut local_of = vec![0; m];
        for group in &members {
            for (i, &c) in group.iter().enumerate() {
                local_of[c] = i;
            }
        }
        let frictionless: Vec<bool> = problem.mu.iter().map(|&m| m == 0.0).collect();
        // Each island's rows of `W`, in one pass.
        let mut by_island = vec![Vec::new(); count];
        for &t in &triplets {
            by_island[labels[t.0 / 2]].push(t);
        }
        self.islands = members
            .into_iter()
            .zip(&by_island)
            .map(|(contacts, triplets)| Island::new(contacts, &local_of, triplets, &frictionless))
            .collect();
        self.reports = vec![Default::default(); count];
        self.pattern = Some(Pattern {
            csr: w.is_csr(),
            indptr,
            indices: w.indices().to_vec(),
            frictionless,
        });
    }
}
