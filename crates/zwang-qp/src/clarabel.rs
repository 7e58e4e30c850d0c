//! The reference backend: Clarabel's interior-point method on the Gauss QP.
//!
//! Clarabel solves `min 1/2 x^T P x + q^T x` s.t. `A x + s = b`, `s` in the
//! cones, with stationarity `P x + q + A^T z = 0`. With `P = M`, `q = -Q`,
//! `A = [A_eq; -A_in]`, `b = [b_eq; -b_in]` and cones
//! `[Zero(m_eq), Nonnegative(m_in)]`, the engine's multipliers are
//! `lambda_eq = -z_eq` and `lambda_in = +z_in`.

use crate::solution::{Solution, Status};
use crate::Backend;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, SupportedConeT,
    ZeroConeT,
};
use zwang_instant::Instant;

/// Settings of the Clarabel backend: a plain struct, defaults tighter than
/// Clarabel's own because it serves as the reference the fast paths are
/// checked against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClarabelSettings {
    /// Absolute and relative duality-gap tolerance. Default `1e-10`.
    pub tol_gap: f64,
    /// Primal and dual feasibility tolerance. Default `1e-10`.
    pub tol_feas: f64,
    /// Iteration limit. Default `200`.
    pub max_iter: u32,
}

impl Default for ClarabelSettings {
    fn default() -> Self {
        ClarabelSettings {
            tol_gap: 1e-10,
            tol_feas: 1e-10,
            max_iter: 200,
        }
    }
}

/// Clarabel on the whole QP; robust and general, not fast.
#[derive(Debug, Clone, Default)]
pub struct ClarabelBackend {
    /// Solver settings.
    pub settings: ClarabelSettings,
}

impl ClarabelBackend {
    /// A backend with the default settings.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Compressed columns of a `sprs` matrix for Clarabel, optionally negated
/// and keeping only the upper triangle.
fn to_clarabel(blocks: &[(&sprs::CsMat<f64>, f64)], n: usize, upper_only: bool) -> CscMatrix<f64> {
    let m: usize = blocks.iter().map(|(b, _)| b.rows()).sum();
    let mut trip: Vec<(usize, usize, f64)> = Vec::new();
    let mut offset = 0;
    for (b, sign) in blocks {
        for (v, (i, j)) in b.iter() {
            if !upper_only || i <= j {
                trip.push((j, offset + i, sign * v));
            }
        }
        offset += b.rows();
    }
    trip.sort_unstable_by_key(|&(j, i, _)| (j, i));
    let mut colptr = vec![0usize; n + 1];
    let mut rowval = Vec::with_capacity(trip.len());
    let mut nzval = Vec::with_capacity(trip.len());
    for &(j, i, v) in &trip {
        colptr[j + 1] += 1;
        rowval.push(i);
        nzval.push(v);
    }
    for j in 0..n {
        colptr[j + 1] += colptr[j];
    }
    CscMatrix::new(m, n, colptr, rowval, nzval)
}

impl Backend for ClarabelBackend {
    fn name(&self) -> &'static str {
        "clarabel"
    }

    fn solve_into(&mut self, instant: &Instant, out: &mut Solution) {
        if crate::refuse_higher_order(instant, out, "clarabel") {
            return;
        }
        *out = self.solve_fresh(instant);
    }
}

impl ClarabelBackend {
    /// One interior-point solve into a fresh solution (Clarabel allocates
    /// its own workspace on every call anyway).
    fn solve_fresh(&mut self, instant: &Instant) -> Solution {
        let n = instant.dim();
        let (eq, ineq) = (instant.equalities(), instant.inequalities());
        let (m_eq, m_in) = (eq.len(), ineq.len());
        let p = to_clarabel(&[(instant.mass(), 1.0)], n, true);
        let q: Vec<f64> = instant.force().iter().map(|f| -f).collect();
        let a = to_clarabel(&[(eq.matrix(), 1.0), (ineq.matrix(), -1.0)], n, false);
        let b: Vec<f64> = eq
            .rhs()
            .iter()
            .copied()
            .chain(ineq.rhs().iter().map(|x| -x))
            .collect();
        let mut cones: Vec<SupportedConeT<f64>> = Vec::new();
        if m_eq > 0 {
            cones.push(ZeroConeT(m_eq));
        }
        if m_in > 0 {
            cones.push(NonnegativeConeT(m_in));
        }
        let settings = DefaultSettings {
            verbose: false,
            max_iter: self.settings.max_iter,
            tol_gap_abs: self.settings.tol_gap,
            tol_gap_rel: self.settings.tol_gap,
            tol_feas: self.settings.tol_feas,
            ..DefaultSettings::default()
        };
        let fail = |status| {
            Solution::assemble(
                instant,
                status,
                "clarabel",
                0,
                vec![0.0; n],
                vec![0.0; m_eq],
                vec![0.0; m_in],
            )
        };
        let Ok(mut solver) = DefaultSolver::new(&p, &q, &a, &b, &cones, settings) else {
            return fail(Status::NumericalError);
        };
        solver.solve();
        let sol = &solver.solution;
        let status = match sol.status {
            SolverStatus::Solved => Status::Solved,
            SolverStatus::AlmostSolved => Status::AlmostSolved,
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                Status::Infeasible
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => Status::Unbounded,
            SolverStatus::MaxIterations | SolverStatus::MaxTime => Status::NotConverged,
            _ => Status::NumericalError,
        };
        if status == Status::Infeasible || status == Status::Unbounded {
            // Clarabel returns a certificate, not an iterate: keep only
            // what is meaningful.
            let mut s = fail(status);
            s.iterations = sol.iterations as usize;
            return s;
        }
        let l_eq: Vec<f64> = sol.z[..m_eq].iter().map(|z| -z).collect();
        let l_in: Vec<f64> = sol.z[m_eq..].to_vec();
        Solution::assemble(
            instant,
            status,
            "clarabel",
            sol.iterations as usize,
            sol.x.clone(),
            l_eq,
            l_in,
        )
    }
}
