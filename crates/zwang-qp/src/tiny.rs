//! A fixed-size dense path for tiny equality-only instants (`n + m <= 16`,
//! a pendulum, a few linked bodies): every matrix on the stack, no sparse
//! bookkeeping, no allocation.
//!
//! `M = L L^T`, `W = L^-1 A^T`, `S = W^T W = A M^-1 A^T` equilibrated to
//! unit diagonal, `S = R R^T`; then `lambda = S^-1 (b - A M^-1 Q)` and
//! `a = M^-1 (Q + A^T lambda)`. Only rows far from redundant are taken
//! (every pivot of the equilibrated `S` at least [`HEALTHY_PIVOT`]); anything
//! else (redundant or inconsistent rows, a mass that is not positive
//! definite) falls back to the general path, which regularizes, refines and
//! reports the status.

use crate::solution::Solution;
use zwang_instant::{dense, Instant};

/// Largest `n + m` taken by the dense path.
pub(crate) const TINY: usize = 16;
/// Smallest squared pivot of the equilibrated `S` accepted (as on the
/// dense Schur path).
const HEALTHY_PIVOT: f64 = 1e-4;

/// The dense path's only state: the free acceleration of the last solve
/// (the residuals need it).
#[derive(Debug, Clone)]
pub(crate) struct TinySolver {
    free: [f64; TINY],
    n: usize,
}

impl Default for TinySolver {
    fn default() -> Self {
        TinySolver {
            free: [0.0; TINY],
            n: 0,
        }
    }
}

impl TinySolver {
    /// `M^-1 Q` of the last successful solve.
    pub fn free(&self) -> &[f64] {
        &self.free[..self.n]
    }

    /// Solves `instant` into `out` (vectors already sized) when it is tiny,
    /// equality-only and well posed; returns `false` (leaving `out` to the
    /// general path) otherwise.
    pub fn solve(&mut self, instant: &Instant, out: &mut Solution) -> bool {
        let n = instant.dim();
        let rows = instant.equalities();
        let m = rows.len();
        if n + m > TINY || !instant.inequalities().is_empty() {
            return false;
        }
        // M, lower triangle, row-major with stride n.
        let mut l = [0.0; TINY * TINY];
        let mass = instant.mass();
        let (ptr, idx, val) = (
            mass.indptr().into_raw_storage(),
            mass.indices(),
            mass.data(),
        );
        for i in 0..n {
            for e in ptr[i]..ptr[i + 1] {
                if idx[e] <= i {
                    l[i * n + idx[e]] += val[e];
                }
            }
        }
        let l = &mut l[..n * n];
        if dense::cholesky_in_place(l, n).is_err() {
            return false;
        }
        let free = &mut self.free[..n];
        free.copy_from_slice(instant.force());
        dense::cholesky_solve_in_place(l, n, free);
        // W's columns w_k = L^-1 a_k, one row of `w` each.
        let a = rows.matrix();
        let (aptr, aidx, aval) = (a.indptr().into_raw_storage(), a.indices(), a.data());
        let mut w = [0.0; TINY * TINY];
        let mut d = [0.0; TINY];
        let mut r = [0.0; TINY];
        for k in 0..m {
            let wk = &mut w[k * n..(k + 1) * n];
            let mut dot = 0.0;
            for e in aptr[k]..aptr[k + 1] {
                wk[aidx[e]] += aval[e];
                dot += aval[e] * free[aidx[e]];
            }
            r[k] = rows.rhs()[k] - dot;
            dense::lower_solve_in_place(l, n, wk);
            let s: f64 = wk.iter().map(|x| x * x).sum();
            if !(s > 0.0 && s.is_finite()) {
                return false;
            }
            d[k] = 1.0 / s.sqrt();
        }
        // Equilibrated S, lower triangle.
        let mut s = [0.0; TINY * TINY];
        for i in 0..m {
            for j in 0..=i {
                let dot: f64 = w[i * n..(i + 1) * n]
                    .iter()
                    .zip(&w[j * n..(j + 1) * n])
                    .map(|(x, y)| x * y)
                    .sum();
                s[i * m + j] = d[i] * dot * d[j];
            }
        }
        let s = &mut s[..m * m];
        if dense::cholesky_in_place(s, m).is_err()
            || (0..m).any(|i| s[i * m + i] * s[i * m + i] < HEALTHY_PIVOT)
        {
            return false;
        }
        let y = &mut r[..m];
        for (yk, dk) in y.iter_mut().zip(&d) {
            *yk *= dk;
        }
        dense::cholesky_solve_in_place(s, m, y);
        // a = free + L^-T (W^T lambda).
        let mut z = [0.0; TINY];
        for k in 0..m {
            let lambda = d[k] * y[k];
            out.multipliers_eq[k] = lambda;
            for (zj, wj) in z[..n].iter_mut().zip(&w[k * n..(k + 1) * n]) {
                *zj += lambda * wj;
            }
        }
        dense::upper_solve_in_place(l, n, &mut z[..n]);
        for j in 0..n {
            out.acceleration[j] = free[j] + z[j];
        }
        self.n = n;
        true
    }
}
