//! The velocity-level Coulomb solver (stub: the API the rest builds on;
//! the method comes next).

use crate::{LocalProblem, ProblemError};

/// Which friction law the solver enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Friction {
    /// Coulomb's law with De Saxce's modified velocity (sliding contacts
    /// keep `u_N = 0`).
    #[default]
    Exact,
    /// The cone complementarity relaxation (`u in K*`, no `mu |u_T|`
    /// term): a convex problem, what MuJoCo, Drake and Chrono solve.
    Convex,
}

/// Settings of [`ContactSolver::solve`].
#[derive(Debug, Clone, PartialEq)]
pub struct SolverSettings {
    /// Stop when Siconos' error measure ([`crate::local_error`]) is at most
    /// this. Default `1e-10`.
    pub tolerance: f64,
    /// Most outer iterations. Default 200.
    pub max_iterations: usize,
    /// The friction law. Default [`Friction::Exact`].
    pub friction: Friction,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            tolerance: 1e-10,
            max_iterations: 200,
            friction: Friction::Exact,
        }
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The error is at most the tolerance.
    Solved,
    /// The iterations ran out first; the answer is the best found.
    NotConverged,
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
    /// Outer iterations used.
    pub iterations: usize,
}

/// The solver and its working memory.
#[derive(Debug, Default)]
pub struct ContactSolver {}

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
        problem.validate()?;
        let r = match warm {
            Some(w) => w.to_vec(),
            None => vec![0.0; problem.q.len()],
        };
        let mut u = vec![0.0; r.len()];
        problem.velocity(&r, &mut u);
        let error = crate::local_error(&problem.mu, &problem.q, &r, &u);
        let status = if error <= settings.tolerance {
            Status::Solved
        } else {
            Status::NotConverged
        };
        Ok(Solution {
            r,
            u,
            status,
            error,
            iterations: 0,
        })
    }
}
