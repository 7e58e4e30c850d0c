//! Instants with contacts by a dual active-set method.
//!
//! The dual of the Gauss QP is a bound-constrained QP in the multipliers,
//!
//! ```text
//! minimize 1/2 l^T S l - r^T l   subject to  l_in >= 0,
//! S = A M^-1 A^T,   r = b - A M^-1 Q,
//! ```
//!
//! solved by the classic primal active-set method for bounds: keep a free
//! set `F` (all equalities and the contacts that push), solve the equality
//! subproblem on `F`, step back to the last feasible point when a contact
//! would pull, and release the most violated open contact when none does.
//! Every iterate is dual feasible, each step is one factorization of the
//! subproblem, and the method is exact at the end: the final answer is the
//! KKT point of the chosen set, with no interior-point smoothing.
//!
//! The contact set rarely changes between time steps, so the backend keeps
//! the last active set and starts from it: a step whose contacts did not
//! change costs one factorization.

use crate::solution::{Solution, Status};
use crate::subproblem::{inf_norm, SubproblemSolver};
use crate::Backend;
use zwang_instant::Instant;

/// Settings of the active-set backend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActiveSetSettings {
    /// Iteration limit as a multiple of the number of inequality rows
    /// (plus 10). Default `3`.
    pub max_iter_per_row: usize,
    /// A released contact must violate its row by more than this (relative
    /// to the row's scale). Default `1e-10`.
    pub tol_slack: f64,
    /// Start from the previous instant's active set when the number of
    /// inequality rows is the same. Default `true`.
    pub warm_start: bool,
}

impl Default for ActiveSetSettings {
    fn default() -> Self {
        ActiveSetSettings {
            max_iter_per_row: 3,
            tol_slack: 1e-10,
            warm_start: true,
        }
    }
}

/// The active-set backend (see the module docs).
#[derive(Debug, Default)]
pub struct ActiveSetBackend {
    /// Settings.
    pub settings: ActiveSetSettings,
    sub: SubproblemSolver,
    /// Inequality rows active at the last answer.
    last_active: Vec<bool>,
    /// Their multipliers (empty when unknown), the dual starting point.
    last_multipliers: Vec<f64>,
    scratch: Vec<f64>,
    // Work buffers, kept across instants.
    free: Vec<usize>,
    lambda: Vec<f64>,
    p: Vec<f64>,
    a: Vec<f64>,
    in_free: Vec<bool>,
}

impl ActiveSetBackend {
    /// A backend with the default settings and no warm start yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the active set to start the next solve from (one flag per
    /// inequality row).
    pub fn set_active_set(&mut self, active: &[bool]) {
        self.last_active.clear();
        self.last_active.extend_from_slice(active);
        self.last_multipliers.clear();
    }

    /// The inequality rows active at the last answer.
    pub fn active_set(&self) -> &[bool] {
        &self.last_active
    }
}

impl Backend for ActiveSetBackend {
    fn name(&self) -> &'static str {
        "active-set"
    }

    fn warm_start(&mut self, active: &[bool], multipliers_in: &[f64]) {
        self.set_active_set(active);
        if multipliers_in.len() == active.len() {
            self.last_multipliers.extend_from_slice(multipliers_in);
        }
    }

    fn solve_into(&mut self, instant: &Instant, out: &mut Solution) {
        if crate::refuse_higher_order(instant, out, "active-set") {
            return;
        }
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        let m = m_eq + m_in;
        out.reset(instant);
        if !self.sub.prepare(instant) {
            out.finish(
                instant,
                self.sub.free(),
                Status::NumericalError,
                "active-set",
                0,
                &mut self.scratch,
            );
            return;
        }
        // Starting free set: the warm start, or every contact (closed
        // contacts usually push).
        let warm = self.settings.warm_start && self.last_active.len() == m_in;
        self.in_free.clear();
        self.in_free.resize(m, true);
        if warm {
            for i in 0..m_in {
                self.in_free[m_eq + i] = self.last_active[i];
            }
        }
        // Dual iterate (feasible: zero on the contacts, or the warm
        // multipliers of the active contacts, clamped to be non-negative).
        self.lambda.clear();
        self.lambda.resize(m, 0.0);
        if warm && self.last_multipliers.len() == m_in {
            for i in 0..m_in {
                if self.in_free[m_eq + i] {
                    self.lambda[m_eq + i] = self.last_multipliers[i].max(0.0);
                }
            }
        }
        let max_iter = self.settings.max_iter_per_row * m_in + 10;
        let mut status = Status::NotConverged;
        let mut iterations = 0;
        let mut restarted = false;
        while iterations < max_iter {
            iterations += 1;
            self.free.clear();
            self.free.extend((0..m).filter(|&k| self.in_free[k]));
            let r = self
                .sub
                .solve(instant, &self.free, &mut self.a, &mut self.p);
            if r.failed {
                status = Status::NumericalError;
                break;
            }
            // Ratio test: how far towards p before a contact would pull.
            let mut alpha = 1.0f64;
            for (t, &k) in self.free.iter().enumerate() {
                if k >= m_eq && self.p[t] < 0.0 {
                    let l = self.lambda[k].max(0.0);
                    alpha = alpha.min(l / (l - self.p[t]));
                }
            }
            if alpha < 1.0 {
                // Step to the first contact that would pull, and open it
                // (with any other that reaches zero in the same step).
                let mut lmax = 0.0f64;
                for (t, &k) in self.free.iter().enumerate() {
                    self.lambda[k] += alpha * (self.p[t] - self.lambda[k]);
                    lmax = lmax.max(self.lambda[k].abs());
                }
                for (t, &k) in self.free.iter().enumerate() {
                    if k >= m_eq && self.p[t] < 0.0 && self.lambda[k] <= 1e-14 * lmax {
                        self.lambda[k] = 0.0;
                        self.in_free[k] = false;
                    }
                }
                continue;
            }
            for (t, &k) in self.free.iter().enumerate() {
                self.lambda[k] = self.p[t];
            }
            if !r.consistent {
                if !restarted && self.free.iter().any(|&k| k >= m_eq) {
                    // The starting guess (every contact, or the warm set)
                    // holds more rows than can hold together, as when a
                    // body has more closed contacts than coordinates: its
                    // multipliers mean nothing, so neither does the ratio
                    // test. Start again from the equalities alone and let
                    // the violated contacts come in one by one.
                    restarted = true;
                    for k in m_eq..m {
                        self.in_free[k] = false;
                        self.lambda[k] = 0.0;
                    }
                    continue;
                }
                // The free rows cannot all hold and no contact can give way:
                // the constraints admit no acceleration.
                status = Status::Infeasible;
                break;
            }
            // Optimal unless an open contact is violated.
            let a_inf = inf_norm(&self.a).max(self.sub.free_scale());
            let rows = self.sub.rows();
            let mut worst = (usize::MAX, -self.settings.tol_slack);
            for k in m_eq..m {
                if !self.in_free[k] {
                    let slack = (rows.dot(k, &self.a) - rows.rhs(k)) / rows.scale(k, a_inf);
                    if slack < worst.1 {
                        worst = (k, slack);
                    }
                }
            }
            if worst.0 == usize::MAX {
                status = Status::Solved;
                break;
            }
            self.in_free[worst.0] = true;
        }
        self.last_active.clear();
        self.last_active
            .extend((m_eq..m).map(|k| self.in_free[k] && self.lambda[k] > 0.0));
        self.last_multipliers.clear();
        self.last_multipliers
            .extend(self.lambda[m_eq..].iter().map(|l| l.max(0.0)));
        out.acceleration.copy_from_slice(&self.a);
        out.multipliers_eq.copy_from_slice(&self.lambda[..m_eq]);
        for (o, l) in out.multipliers_in.iter_mut().zip(&self.lambda[m_eq..]) {
            *o = l.max(0.0);
        }
        out.finish(
            instant,
            self.sub.free(),
            status,
            "active-set",
            iterations,
            &mut self.scratch,
        );
    }
}
