//! A local problem in velocities: `W = J J^T`, for the primal solver.
//!
//! The dual method ([`crate::ContactSolver`]) is planar; in space a local
//! problem (`u = W r + q`, `W` symmetric positive semi-definite) is solved
//! by [`crate::PrimalSolver`] on the velocity problem `M = I`, `f = 0`,
//! `J` with `J J^T = W`, `b = q`: then `v = J^T r` and `u = J v + b = W r +
//! q`, the same problem. `J` is a sparse Cholesky factor, `P (W + eps I)
//! P^T = L L^T` and `J = P^T L`, with `P` faer's fill-reducing ordering and
//! `eps` a relative shift that makes a rank-deficient `W` (redundant
//! contacts, more contact rows than the bodies have velocities) factor.
//!
//! `J J^T` is the symmetric part of `W` shifted, `S = (W + W^T) / 2 + eps
//! I`, not `W` itself: files round `W`, and a simulator's Delassus
//! operator need not be symmetric (FCLIB's capsules differ from their
//! transpose by 1e-3 of the largest entry). [`solve_local`] closes the
//! gap by outer iterations on `q_k = q + (W - S) r_k`, each a warm solve
//! of the same pattern: at a fixed point `u = S r + q_k = W r + q`, and
//! the answer is measured on the problem as given.

use crate::error::error_for;
use crate::problem::check_sizes;
use crate::{
    BoundedRows, ContactRows, GlobalError, LocalProblem, PrimalSolver, ProblemError, Solution,
    SolverSettings, Status, VelocityProblem,
};
use faer::sparse::linalg::cholesky::SymbolicCholeskyRaw;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use sprs::CsMat;
use thiserror::Error;
use zwang_instant::sparse_cholesky::simplicial_llt;

/// The diagonal shift, relative to `W`'s largest diagonal entry.
pub const SHIFT: f64 = 1e-12;

/// Outer iterations of [`solve_local`] (on `q + (W - S) r`) at most.
pub const OUTER: usize = 50;

/// The tolerance of [`solve_local`]'s first solve (or the caller's, if
/// larger): the correction of `q` that follows changes the problem by as
/// much as `W`'s asymmetry.
const FIRST: f64 = 1e-5;

/// Each later solve's tolerance relative to the error before it.
const INNER: f64 = 1e-2;

/// What keeps a local problem from its velocity form.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FactorError {
    /// Sizes, finiteness or friction coefficients.
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// The primal solver's own refusal (sizes, settings).
    #[error(transparent)]
    Solver(#[from] GlobalError),
    /// `W + eps I` has no Cholesky factor: `W` is not positive
    /// semi-definite.
    #[error("W is not positive semi-definite (no Cholesky factor of W + {shift:e} I)")]
    NotSemiDefinite {
        /// The shift tried.
        shift: f64,
    },
}

impl LocalProblem {
    /// The problem in velocities with `J J^T = S = (W + W^T) / 2 + eps I`
    /// ([`crate::factored`]), for [`crate::PrimalSolver`]; `W = S` but for
    /// the shift when `W` is symmetric.
    pub fn to_velocity(&self) -> Result<VelocityProblem, FactorError> {
        self.validate()?;
        let n = self.q.len();
        let w = self.w.to_csc();
        let transpose: CsMat<f64> = w.transpose_view().to_csc();
        let shift = shift_of(self);
        // The upper triangle of (W + W^T) / 2 + shift I, every diagonal
        // entry stored.
        let mut col_ptr = Vec::with_capacity(n + 1);
        let (mut row_idx, mut vals) = (Vec::new(), Vec::new());
        col_ptr.push(0);
        for col in 0..n {
            let mut diagonal_seen = false;
            if let Some(column) = w.outer_view(col) {
                for (row, &v) in column.iter().filter(|&(row, _)| row <= col) {
                    let t = transpose.get(row, col).copied().unwrap_or(0.0);
                    let mut x = 0.5 * (v + t);
                    if row == col {
                        x += shift;
                        diagonal_seen = true;
                    }
                    row_idx.push(row);
                    vals.push(x);
                }
            }
            if !diagonal_seen {
                row_idx.push(col);
                vals.push(shift);
            }
            col_ptr.push(row_idx.len());
        }
        let not_psd = FactorError::NotSemiDefinite { shift };
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let (symbolic, values) =
            simplicial_llt(SparseColMatRef::new(pattern, &vals)).ok_or_else(|| not_psd.clone())?;
        let SymbolicCholeskyRaw::Simplicial(s) = symbolic.raw() else {
            return Err(not_psd);
        };
        let factor = SparseColMatRef::new(s.factor(), &values);
        // Row a of L is row fwd[a] of J = P^T L.
        let forward: Vec<usize> = match symbolic.perm() {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..n).collect(),
        };
        let d = self.dimension;
        let mut entries: Vec<Vec<(usize, [f64; 3])>> = vec![Vec::new(); self.contacts()];
        for col in 0..n {
            let rows = factor.row_idx_of_col_raw(col);
            let values = factor.val_of_col(col);
            for (&a, &x) in rows.iter().zip(values) {
                let k = forward[a];
                let contact = &mut entries[k / d];
                match contact.last_mut() {
                    Some((c, e)) if *c == col => e[k % d] = x,
                    _ => {
                        let mut e = [0.0; 3];
                        e[k % d] = x;
                        contact.push((col, e));
                    }
                }
            }
        }
        let mut rows = ContactRows::new(d);
        for contact in &entries {
            for &(c, e) in contact {
                rows.cols.push(c);
                rows.values.extend_from_slice(&e[..d]);
            }
            rows.start.push(rows.cols.len());
        }
        let problem = VelocityProblem {
            mass: CsMat::eye_csc(n),
            force: vec![0.0; n],
            rows,
            b: self.q.clone(),
            mu: self.mu.clone(),
            bounded: BoundedRows::default(),
        };
        check_sizes(&[("J's contacts", problem.rows.contacts(), self.contacts())])?;
        Ok(problem)
    }
}

/// `y = (W - S) r` with `S = (W + W^T) / 2 + shift I`:
/// `(W - W^T) r / 2 - shift r`.
fn asymmetric_part(w: &CsMat<f64>, shift: f64, r: &[f64], y: &mut [f64]) {
    for (yi, ri) in y.iter_mut().zip(r) {
        *yi = -shift * ri;
    }
    for (&v, (row, col)) in w.iter() {
        y[row] += 0.5 * v * r[col];
        y[col] -= 0.5 * v * r[row];
    }
}

/// Solves a local problem (planar or in space) with the primal method on
/// `W`'s symmetric part ([`LocalProblem::to_velocity`]), correcting `q`
/// by the rest, `q_k = q + (W - S) r_k`, until Siconos' error on the
/// problem as given, `u = W r + q`, is at most the tolerance (or [`OUTER`]
/// solves): the first solve to 1e-5 (or the tolerance, if larger), each
/// later one to 1/100 of the error before it. `iterations` and
/// `newton_steps` add up over the solves; the answer is the best one
/// found.
pub fn solve_local(
    problem: &LocalProblem,
    settings: &SolverSettings,
) -> Result<Solution, FactorError> {
    let mut velocity = problem.to_velocity()?;
    let shift = shift_of(problem);
    let w = problem.w.to_csc();
    let k = problem.q.len();
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; velocity.force.len()], vec![0.0; k]);
    let mut correction = vec![0.0; k];
    let mut solver = PrimalSolver::new();
    let mut solution = Solution {
        r: vec![0.0; k],
        u: vec![0.0; k],
        status: Status::NotConverged,
        error: f64::INFINITY,
        iterations: 0,
        newton_steps: 0,
    };
    let mut inner = settings.clone();
    inner.tolerance = settings.tolerance.max(FIRST);
    for _ in 0..OUTER {
        let report = solver.solve_in_place(&velocity, &inner, &mut r, &mut v, &mut u)?;
        solution.iterations += report.iterations;
        solution.newton_steps += report.newton_steps;
        problem.velocity(&r, &mut u);
        let error = error_for(settings.friction, &problem.mu, &problem.q, &r, &u);
        if error < solution.error {
            solution.r.copy_from_slice(&r);
            solution.u.copy_from_slice(&u);
            solution.error = error;
        }
        if report.status == Status::Unbounded {
            solution.status = Status::Unbounded;
            return Ok(solution);
        }
        if error <= settings.tolerance {
            solution.status = Status::Solved;
            return Ok(solution);
        }
        // The next solve to a little below this error: closer is
        // precision that the next correction of q overrides.
        inner.tolerance = settings.tolerance.max(INNER * error);
        asymmetric_part(&w, shift, &r, &mut correction);
        for ((b, q), c) in velocity.b.iter_mut().zip(&problem.q).zip(&correction) {
            *b = q + c;
        }
    }
    Ok(solution)
}

/// The shift of [`LocalProblem::to_velocity`]: [`SHIFT`] of `W`'s largest
/// diagonal entry (of 1 without a positive one).
fn shift_of(problem: &LocalProblem) -> f64 {
    let n = problem.q.len();
    let diagonal = (0..n).fold(0.0_f64, |a, i| {
        a.max(problem.w.get(i, i).copied().unwrap_or(0.0))
    });
    SHIFT * if diagonal > 0.0 { diagonal } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    fn local(entries: &[(usize, usize, f64)], n: usize) -> LocalProblem {
        let mut t = TriMat::new((n, n));
        for &(i, j, v) in entries {
            t.add_triplet(i, j, v);
        }
        LocalProblem {
            dimension: 3,
            w: t.to_csc(),
            q: (0..n).map(|i| i as f64 - 1.0).collect(),
            mu: vec![0.5; n / 3],
        }
    }

    /// `J J^T` as a dense matrix.
    fn product(p: &VelocityProblem, n: usize) -> Vec<Vec<f64>> {
        let mut j = vec![vec![0.0; n]; n];
        let d = p.rows.dimension;
        for i in 0..p.rows.contacts() {
            for a in p.rows.start[i]..p.rows.start[i + 1] {
                let e = p.rows.entry(a);
                for r in 0..d {
                    j[d * i + r][p.rows.cols[a]] += e[r];
                }
            }
        }
        (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| (0..n).map(|c| j[a][c] * j[b][c]).sum())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn j_j_transpose_is_w_for_a_rank_deficient_w() {
        // W = B B^T with B 6 x 4 (rank 4): two contacts in space.
        let b = [
            [1.0, 0.0, 2.0, 0.0],
            [0.5, 1.0, 0.0, 0.0],
            [0.0, 0.3, 1.0, 0.2],
            [1.0, 0.0, 2.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.2, -1.0, 0.0, 0.5],
        ];
        let mut entries = Vec::new();
        for i in 0..6 {
            for j in 0..6 {
                let x: f64 = (0..4).map(|k| b[i][k] * b[j][k]).sum();
                if x != 0.0 {
                    entries.push((i, j, x));
                }
            }
        }
        let problem = local(&entries, 6);
        let velocity = problem.to_velocity().unwrap();
        velocity.validate().unwrap();
        assert_eq!(velocity.b, problem.q);
        let jjt = product(&velocity, 6);
        let largest = entries.iter().fold(0.0_f64, |a, e| a.max(e.2));
        for i in 0..6 {
            for j in 0..6 {
                let w = problem.w.get(i, j).copied().unwrap_or(0.0);
                let shift = if i == j { SHIFT * largest } else { 0.0 };
                assert!((jjt[i][j] - w - shift).abs() < 1e-13, "{i} {j}");
            }
        }
    }

    #[test]
    fn an_indefinite_w_is_refused() {
        let entries = [(0, 0, 1.0), (1, 1, -1.0), (2, 2, 1.0)];
        assert!(matches!(
            local(&entries, 3).to_velocity(),
            Err(FactorError::NotSemiDefinite { .. })
        ));
    }
}
