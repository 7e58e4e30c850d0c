//! A dense path for tiny equality-only instants (`n + m <= 16`, a
//! pendulum, a few linked bodies): no sparse bookkeeping, and no
//! allocation while the instant's structure stays. Its matrices are sized
//! to the instant (not to 16): a solver that only meets a free body's
//! instants, one island among thousands, holds a few numbers.
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

/// The dense path's state: the factors of the last instant, kept while its
/// structure stamp and values stay the same (a constant mass and rows that
/// did not move cost no refactorization), and the free acceleration of the
/// last solve (the residuals need it).
#[derive(Debug, Clone, Default)]
pub(crate) struct TinySolver {
    free: Vec<f64>,
    n: usize,
    /// Structure stamp of the factors below (0: none).
    structure: u64,
    /// `L` of `M` (row-major, stride `n`), `M^-1` (row-major) and the
    /// values of `M` they are for. The solves apply the explicit inverses:
    /// matrix-vector products with no divisions and no dependency chain,
    /// several times faster than triangular solves at these sizes.
    l: Vec<f64>,
    minv: Vec<f64>,
    mass_seen: Vec<f64>,
    l_valid: bool,
    /// `W = L^-1 A^T` (one row per constraint row), the equilibration `d`,
    /// the factor of the equilibrated `S`, `G = M^-1 A^T` (one row per
    /// constraint row), `S^-1` (row-major), and the row values they are
    /// for.
    w: Vec<f64>,
    d: Vec<f64>,
    s: Vec<f64>,
    g: Vec<f64>,
    sinv: Vec<f64>,
    rows_seen: Vec<f64>,
    s_valid: bool,
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
        let mass = instant.mass();
        let a = rows.matrix();
        let mvals = mass.data();
        let sized = self.l.len() == n * n
            && self.w.len() == m * n
            && self.mass_seen.len() == mvals.len()
            && self.rows_seen.len() == a.data().len();
        if self.structure != instant.structure_id() || !sized {
            self.structure = instant.structure_id();
            self.l_valid = false;
            self.s_valid = false;
            self.size(n, m, mvals.len(), a.data().len());
        }
        if !(self.l_valid && self.mass_seen[..mvals.len()] == *mvals) {
            self.l_valid = false;
            self.s_valid = false;
            if !self.factor_mass(instant) {
                return false;
            }
            self.mass_seen[..mvals.len()].copy_from_slice(mvals);
            self.l_valid = true;
        }
        let avals = a.data();
        if !(self.s_valid && self.rows_seen[..avals.len()] == *avals) {
            self.s_valid = false;
            if !self.factor_schur(instant) {
                return false;
            }
            self.rows_seen[..avals.len()].copy_from_slice(avals);
            self.s_valid = true;
        }
        // free = M^-1 Q; lambda = S^-1 (b - A free); a = free + G^T lambda.
        let free = &mut self.free[..n];
        let q = instant.force();
        for (fi, row) in free.iter_mut().zip(self.minv.chunks_exact(n)) {
            *fi = row.iter().zip(q).map(|(x, y)| x * y).sum();
        }
        let (aptr, aidx, aval) = (a.indptr().into_raw_storage(), a.indices(), a.data());
        let mut r = [0.0; TINY];
        for k in 0..m {
            let dot: f64 = (aptr[k]..aptr[k + 1])
                .map(|e| aval[e] * free[aidx[e]])
                .sum();
            r[k] = rows.rhs()[k] - dot;
        }
        out.acceleration.copy_from_slice(free);
        for k in 0..m {
            let row = &self.sinv[k * m..(k + 1) * m];
            let lambda: f64 = row.iter().zip(&r).map(|(x, y)| x * y).sum();
            out.multipliers_eq[k] = lambda;
            for (aj, gj) in out.acceleration.iter_mut().zip(&self.g[k * n..(k + 1) * n]) {
                *aj += lambda * gj;
            }
        }
        self.n = n;
        true
    }

    /// Each matrix and vector at its length for `n` coordinates, `m` rows,
    /// and the stored entries of `M` and `A`: allocates only where a
    /// structure needs more than any before.
    fn size(&mut self, n: usize, m: usize, mass_entries: usize, row_entries: usize) {
        for (v, len) in [
            (&mut self.free, n),
            (&mut self.l, n * n),
            (&mut self.minv, n * n),
            (&mut self.mass_seen, mass_entries),
            (&mut self.w, m * n),
            (&mut self.d, m),
            (&mut self.s, m * m),
            (&mut self.g, m * n),
            (&mut self.sinv, m * m),
            (&mut self.rows_seen, row_entries),
        ] {
            v.clear();
            v.resize(len, 0.0);
        }
    }

    /// `L` of `M`; `false` when `M` is not positive definite.
    fn factor_mass(&mut self, instant: &Instant) -> bool {
        let n = instant.dim();
        let mass = instant.mass();
        let (ptr, idx, val) = (
            mass.indptr().into_raw_storage(),
            mass.indices(),
            mass.data(),
        );
        let l = &mut self.l[..n * n];
        l.fill(0.0);
        for i in 0..n {
            for e in ptr[i]..ptr[i + 1] {
                if idx[e] <= i {
                    l[i * n + idx[e]] += val[e];
                }
            }
        }
        if dense::cholesky_in_place(l, n).is_err() {
            return false;
        }
        // Row c of M^-1 is M^-1 e_c (symmetric).
        for c in 0..n {
            let row = &mut self.minv[c * n..(c + 1) * n];
            row.fill(0.0);
            row[c] = 1.0;
            dense::cholesky_solve_in_place(l, n, row);
        }
        true
    }

    /// `W`, `d` and the factor of the equilibrated `S`; `false` when a row
    /// is empty or the rows are nearly dependent.
    fn factor_schur(&mut self, instant: &Instant) -> bool {
        let n = instant.dim();
        let rows = instant.equalities();
        let m = rows.len();
        let l = &self.l[..n * n];
        let a = rows.matrix();
        let (aptr, aidx, aval) = (a.indptr().into_raw_storage(), a.indices(), a.data());
        let w = &mut self.w[..m * n];
        w.fill(0.0);
        for k in 0..m {
            let wk = &mut w[k * n..(k + 1) * n];
            for e in aptr[k]..aptr[k + 1] {
                wk[aidx[e]] += aval[e];
            }
            dense::lower_solve_in_place(l, n, wk);
            let s: f64 = wk.iter().map(|x| x * x).sum();
            if !(s > 0.0 && s.is_finite()) {
                return false;
            }
            self.d[k] = 1.0 / s.sqrt();
        }
        // Equilibrated S, lower triangle.
        let s = &mut self.s[..m * m];
        for i in 0..m {
            for j in 0..=i {
                let dot: f64 = w[i * n..(i + 1) * n]
                    .iter()
                    .zip(&w[j * n..(j + 1) * n])
                    .map(|(x, y)| x * y)
                    .sum();
                s[i * m + j] = self.d[i] * dot * self.d[j];
            }
        }
        if dense::cholesky_in_place(s, m).is_err()
            || (0..m).any(|i| s[i * m + i] * s[i * m + i] < HEALTHY_PIVOT)
        {
            return false;
        }
        // G = M^-1 A^T = L^-T W^T, row k = L^-T w_k.
        for k in 0..m {
            let gk = &mut self.g[k * n..(k + 1) * n];
            gk.copy_from_slice(&w[k * n..(k + 1) * n]);
            dense::upper_solve_in_place(l, n, gk);
        }
        // (A M^-1 A^T)^-1 = D S~^-1 D, row by row.
        for c in 0..m {
            let row = &mut self.sinv[c * m..(c + 1) * m];
            row.fill(0.0);
            row[c] = 1.0;
            dense::cholesky_solve_in_place(s, m, row);
            for (i, v) in row.iter_mut().enumerate() {
                *v *= self.d[i] * self.d[c];
            }
        }
        true
    }
}
