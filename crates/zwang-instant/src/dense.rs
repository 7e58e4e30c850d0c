//! The dense linear-algebra kernels of zwang, each written once, here:
//! every crate that factors or solves a small dense system calls these
//! instead of keeping its own copy.
//!
//! - [`cholesky_in_place`], [`cholesky_in_place_above`]: `A = L L^T` of a
//!   symmetric positive definite matrix, refusing the first pivot not
//!   above a floor with a [`BadPivot`];
//! - [`semidefinite_cholesky_in_place`]: the same for a positive
//!   semi-definite matrix, whose small pivots are dropped (redundant rows);
//! - [`lower_solve_in_place`], [`upper_solve_in_place`],
//!   [`cholesky_solve_in_place`], [`semidefinite_cholesky_solve_in_place`]:
//!   the triangular solves with these factors;
//! - [`cholesky_solve_by_columns_in_place`]: the same with a factor stored
//!   by columns (faer's);
//! - [`lu_solve_in_place`]: Gaussian elimination with row equilibration
//!   and partial pivoting, for square systems that are not symmetric;
//! - [`full_pivot_lu_solve`]: an LU with full pivoting that reveals the
//!   rank, and the minimum-norm solution of a consistent rank-deficient
//!   system;
//! - [`semidefinite_null_space`]: the null space of a positive
//!   semi-definite matrix by Cholesky's method with diagonal pivoting;
//! - [`small_spd_inverse`]: the closed-form inverse of a symmetric positive
//!   definite matrix of size 1 to 3.
//!
//! They serve the blocks of a block-diagonal mass matrix and small Schur
//! complements, where a sparse factorization costs more in bookkeeping
//! than in arithmetic. Matrices are square, stored row-major (but where a
//! kernel says by columns) in a slice of length `n * n`; the Cholesky
//! kernels read and write only the lower triangle. None allocates, except
//! into the vectors it is given.

use thiserror::Error;

/// A factorization stopped at pivot `index`, whose value (before its
/// square root, for Cholesky) was not above the floor or not finite.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("pivot {index} is {value:e}: the matrix is singular or not positive definite")]
pub struct BadPivot {
    /// Index of the failing pivot (its row).
    pub index: usize,
    /// Its value.
    pub value: f64,
}

/// `x . y` over the shorter of the two (iterators: no bounds checks, and
/// the compiler vectorizes them).
#[inline]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// In-place Cholesky `A = L L^T` of the lower triangle of `a` (`n x n`),
/// refusing a pivot that is not positive and finite.
pub fn cholesky_in_place(a: &mut [f64], n: usize) -> Result<(), BadPivot> {
    cholesky_in_place_above(a, n, 0.0)
}

/// [`cholesky_in_place`] refusing a pivot at or below `floor` too (a
/// matrix singular to working precision).
pub fn cholesky_in_place_above(a: &mut [f64], n: usize, floor: f64) -> Result<(), BadPivot> {
    debug_assert_eq!(a.len(), n * n);
    for j in 0..n {
        let (head, tail) = a.split_at_mut((j + 1) * n);
        let rowj = &mut head[j * n..];
        let d = rowj[j] - dot(&rowj[..j], &rowj[..j]);
        // Also catches NaN (every comparison with NaN is false).
        if d.is_nan() || d <= floor || d.is_infinite() {
            return Err(BadPivot { index: j, value: d });
        }
        let d = d.sqrt();
        rowj[j] = d;
        let rowj = &rowj[..j];
        for rowi in tail.chunks_exact_mut(n) {
            let s = rowi[j] - dot(&rowi[..j], rowj);
            rowi[j] = s / d;
        }
    }
    Ok(())
}

/// Solves `L y = x` in place (forward substitution) with the factor of
/// [`cholesky_in_place`].
pub fn lower_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    if n == 0 {
        return;
    }
    for (i, row) in l.chunks_exact(n).enumerate().take(x.len()) {
        let s = x[i] - dot(&row[..i], &x[..i]);
        x[i] = s / row[i];
    }
}

/// Solves `L^T y = x` in place (back substitution), column-oriented so
/// that it reads `L` by rows.
pub fn upper_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in (0..n.min(x.len())).rev() {
        let row = &l[i * n..i * n + i + 1];
        let xi = x[i] / row[i];
        x[i] = xi;
        for (xk, lk) in x[..i].iter_mut().zip(&row[..i]) {
            *xk -= lk * xi;
        }
    }
}

/// Solves `A x = b` in place with the Cholesky factor of `A`.
pub fn cholesky_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    lower_solve_in_place(l, n, x);
    upper_solve_in_place(l, n, x);
}

/// Solves `A x = b` in place with a Cholesky factor `L` of `A` stored by
/// columns (`L_rc` at `c n + r`, the lower triangle: faer's layout), down
/// `L`'s columns both ways. On a few dozen unknowns, faer's own solve
/// spends more in dispatch than in arithmetic.
pub fn cholesky_solve_by_columns_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    debug_assert!(l.len() >= n * n && x.len() >= n);
    if n == 0 {
        return;
    }
    // `L y = b`: each entry solved is taken off the rest of its column.
    for (j, column) in l.chunks_exact(n).enumerate().take(n) {
        let xj = x[j] / column[j];
        x[j] = xj;
        for (xi, lij) in x[j + 1..n].iter_mut().zip(&column[j + 1..]) {
            *xi -= lij * xj;
        }
    }
    // `L^T x = y`: row `j` of `L^T` is column `j` of `L`.
    for (j, column) in l.chunks_exact(n).enumerate().take(n).rev() {
        x[j] = (x[j] - dot(&column[j + 1..], &x[j + 1..n])) / column[j];
    }
}

/// In-place Cholesky of a positive semi-definite `a` (`n x n`): a pivot at
/// or below `floor` (or not a number) belongs to a row dependent on the
/// ones before; its column of the factor is set to zero, and
/// [`semidefinite_cholesky_solve_in_place`] gives its unknown zero.
///
/// Its sums run in another order than [`cholesky_in_place`]'s (each
/// product subtracted in turn): the spatial joints' answers depend on
/// these last bits.
pub fn semidefinite_cholesky_in_place(a: &mut [f64], n: usize, floor: f64) {
    debug_assert_eq!(a.len(), n * n);
    for j in 0..n {
        let mut d = a[j * n + j];
        for p in 0..j {
            d -= a[j * n + p] * a[j * n + p];
        }
        if d.is_nan() || d <= floor {
            for i in j..n {
                a[i * n + j] = 0.0;
            }
            continue;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for p in 0..j {
                s -= a[i * n + p] * a[j * n + p];
            }
            a[i * n + j] = s / d;
        }
    }
}

/// Solves `A x = b` in place with the factor of
/// [`semidefinite_cholesky_in_place`], a dropped (zero) pivot's unknown
/// zero.
pub fn semidefinite_cholesky_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in 0..n {
        let d = l[i * n + i];
        if d == 0.0 {
            x[i] = 0.0;
            continue;
        }
        let s: f64 = (0..i).map(|p| l[i * n + p] * x[p]).sum();
        x[i] = (x[i] - s) / d;
    }
    for i in (0..n).rev() {
        let d = l[i * n + i];
        if d == 0.0 {
            x[i] = 0.0;
            continue;
        }
        let s: f64 = (i + 1..n).map(|p| l[p * n + i] * x[p]).sum();
        x[i] = (x[i] - s) / d;
    }
}

/// Solves `a x = b` in place for a square `a` (row-major, `m x m`, `m` the
/// length of `b`) by Gaussian elimination with row equilibration and
/// partial pivoting: `a` is overwritten by the eliminated rows, `b` by `x`.
/// Each row is first scaled to a largest entry of 1, so that the pivot
/// test is independent of the rows' units; a pivot at or below `floor`
/// (singular to working precision), or a row without a finite nonzero
/// entry, is a [`BadPivot`] (its value then the row's largest entry).
pub fn lu_solve_in_place(a: &mut [f64], b: &mut [f64], floor: f64) -> Result<(), BadPivot> {
    let m = b.len();
    debug_assert_eq!(a.len(), m * m);
    for i in 0..m {
        let scale = a[i * m..(i + 1) * m]
            .iter()
            .fold(0.0f64, |s, x| s.max(x.abs()));
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(BadPivot {
                index: i,
                value: scale,
            });
        }
        for x in &mut a[i * m..(i + 1) * m] {
            *x /= scale;
        }
        b[i] /= scale;
    }
    for c in 0..m {
        let p = (c..m)
            .max_by(|&i, &j| a[i * m + c].abs().total_cmp(&a[j * m + c].abs()))
            .unwrap_or(c);
        let pivot = a[p * m + c].abs();
        if pivot.is_nan() || pivot <= floor {
            return Err(BadPivot {
                index: c,
                value: pivot,
            });
        }
        if p != c {
            for k in 0..m {
                a.swap(p * m + k, c * m + k);
            }
            b.swap(p, c);
        }
        for i in c + 1..m {
            let f = a[i * m + c] / a[c * m + c];
            if f != 0.0 {
                for k in c..m {
                    a[i * m + k] -= f * a[c * m + k];
                }
                b[i] -= f * b[c];
            }
        }
    }
    // Back substitution: `b[k]` for `k > i` already holds `x[k]`.
    for i in (0..m).rev() {
        let s: f64 = (i + 1..m).map(|k| a[i * m + k] * b[k]).sum();
        b[i] = (b[i] - s) / a[i * m + i];
    }
    Ok(())
}

/// Working memory of [`full_pivot_lu_solve`], reused across many small
/// systems.
#[derive(Debug, Default)]
pub struct LuScratch {
    /// The factors, then the right-hand side solved in place.
    lu: Vec<f64>,
    /// Row then column permutation.
    perms: Vec<usize>,
    /// A rank-deficient system's null-space columns, their Gram matrix
    /// and its right-hand side.
    null: Vec<f64>,
    gram: Vec<f64>,
    w: Vec<f64>,
}

/// The rank decisions of [`full_pivot_lu_solve`], each relative to the
/// largest pivot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankTolerances {
    /// Full rank when every pivot is above this.
    pub full: f64,
    /// A rank-deficient system keeps the leading pivots above this.
    pub kept: f64,
    /// ... and is clearly so when the bound on its dropped singular values
    /// is at or below this; between the two, the rank is not clear.
    pub dropped: f64,
}

/// `A x = b` for a small square `A` given entry by entry (`n` the length
/// of `b`), by an LU with full pivoting, `P A Q = L U`: full rank when
/// every pivot is above `tol.full` times the largest. A clearly
/// rank-deficient `A` (its kept pivots above `tol.kept` times the largest,
/// the bound on its dropped singular values below `tol.dropped` times it)
/// gets the minimum-norm solution from the LU's null space (the SVD's
/// answer when the system is consistent; the caller checks that). `None`
/// when the rank is not clear (or the input is not finite): then the
/// caller's SVD decides. The flag says whether `A` had full rank. With a
/// kept `scratch`, nothing is allocated once it has grown.
pub fn full_pivot_lu_solve(
    n: usize,
    at: impl Fn(usize, usize) -> f64,
    b: &[f64],
    x: &mut Vec<f64>,
    scratch: &mut LuScratch,
    tol: RankTolerances,
) -> Option<bool> {
    let LuScratch {
        lu,
        perms,
        null: bcols,
        gram: g,
        w,
    } = scratch;
    lu.clear();
    for i in 0..n {
        lu.extend((0..n).map(|j| at(i, j)));
    }
    if !lu.iter().chain(b).all(|v| v.is_finite()) {
        return None;
    }
    // P A Q = L U, row-major, L unit lower; `perm_r[k]`, `perm_c[k]` are the
    // original row and column in position `k`.
    perms.clear();
    perms.extend((0..n).chain(0..n));
    let (perm_r, perm_c) = perms.split_at_mut(n);
    for k in 0..n {
        let (mut pi, mut pj, mut best) = (k, k, -1.0);
        for i in k..n {
            for j in k..n {
                let v = lu[i * n + j].abs();
                if v > best {
                    (pi, pj, best) = (i, j, v);
                }
            }
        }
        if pi != k {
            for j in 0..n {
                lu.swap(k * n + j, pi * n + j);
            }
            perm_r.swap(k, pi);
        }
        if pj != k {
            for i in 0..n {
                lu.swap(i * n + k, i * n + pj);
            }
            perm_c.swap(k, pj);
        }
        let p = lu[k * n + k];
        if p == 0.0 {
            // The rest is exactly zero: nothing to eliminate.
            break;
        }
        for i in k + 1..n {
            let l = lu[i * n + k] / p;
            lu[i * n + k] = l;
            if l != 0.0 {
                for j in k + 1..n {
                    lu[i * n + j] -= l * lu[k * n + j];
                }
            }
        }
    }
    let pivot = |k: usize| lu[k * n + k].abs();
    let pivot_max = pivot(0);
    if pivot_max == 0.0 {
        return None;
    }
    let full = (0..n).all(|k| pivot(k) > tol.full * pivot_max);
    let r = if full {
        n
    } else {
        let r = (0..n)
            .take_while(|&k| pivot(k) > tol.kept * pivot_max)
            .count();
        // `A` less a matrix of rank `r` is the Schur complement `S` left
        // after `r` pivots, whose largest entry is pivot `r` (full
        // pivoting): `sigma_(r+1)(A) <= |S|_2 <= (n - r) pivot(r)`, and
        // `sigma_max >= pivot_max`. Below the bound the SVD drops as many.
        if (n - r) as f64 * pivot(r) > tol.dropped * pivot_max {
            return None;
        }
        r
    };
    // y = L^-1 P b, after the factors; solved in place into z (below).
    lu.extend(perm_r.iter().map(|&i| b[i]));
    let (lu, z) = lu.split_at_mut(n * n);
    for i in 0..n {
        let s: f64 = (0..i).map(|j| lu[i * n + j] * z[j]).sum();
        z[i] -= s;
    }
    // U11 z1 = y1 - U12 z2 with z2 = 0: the basic solution; then, when
    // rank-deficient, the null space N = [-U11^-1 U12; I] removed from it.
    let upper_solve = |v: &mut [f64]| {
        for i in (0..r).rev() {
            let s: f64 = (i + 1..r).map(|j| lu[i * n + j] * v[j]).sum();
            v[i] = (v[i] - s) / lu[i * n + i];
        }
    };
    z[r..].fill(0.0);
    upper_solve(z);
    if r < n {
        let d = n - r;
        // Columns of B = U11^-1 U12, stored column by column.
        bcols.clear();
        bcols.resize(r * d, 0.0);
        for c in 0..d {
            let col = &mut bcols[c * r..(c + 1) * r];
            for i in 0..r {
                col[i] = lu[i * n + r + c];
            }
            upper_solve(col);
        }
        // (I + B^T B) w = B^T z1, then z = [z1 - B w; w].
        g.clear();
        g.resize(d * d, 0.0);
        for p in 0..d {
            for q in 0..d {
                let dot: f64 = (0..r).map(|i| bcols[p * r + i] * bcols[q * r + i]).sum();
                g[p * d + q] = dot + f64::from(u8::from(p == q));
            }
        }
        w.clear();
        w.extend((0..d).map(|p| (0..r).map(|i| bcols[p * r + i] * z[i]).sum::<f64>()));
        if cholesky_in_place(g, d).is_err() {
            return None;
        }
        cholesky_solve_in_place(g, d, w);
        for p in 0..d {
            for i in 0..r {
                z[i] -= bcols[p * r + i] * w[p];
            }
            z[r + p] = w[p];
        }
    }
    x.clear();
    x.resize(n, 0.0);
    for (k, &j) in perm_c.iter().enumerate() {
        x[j] = z[k];
    }
    Some(full)
}

/// The null space of a symmetric positive semi-definite `n x n` matrix
/// given row-major (overwritten), by Cholesky's method with diagonal
/// pivoting, which reveals the rank of such a matrix (Higham, "Analysis of
/// the Cholesky decomposition of a semi-definite matrix", 1990): `Some(d)`
/// with `d` null vectors, each of unit length, in `null` (vector `i` is
/// `null[i * n..][..n]`), or `None` when `A` is not positive semi-definite
/// (or not finite). Pivots and the remaining Schur complement below `tol`
/// times `A`'s largest entry are zero. `perm` and `null` are the caller's
/// (a stepper's), so nothing is allocated once they have grown.
pub fn semidefinite_null_space(
    a: &mut [f64],
    n: usize,
    tol: f64,
    perm: &mut Vec<usize>,
    null: &mut Vec<f64>,
) -> Option<usize> {
    null.clear();
    if !a.iter().all(|x| x.is_finite()) {
        return None;
    }
    let zero = tol * a.iter().map(|x| x.abs()).fold(0.0, f64::max);
    perm.clear();
    perm.extend(0..n);
    // Row-major, permuted in place: the factor overwrites the lower part.
    let mut rank = n;
    for j in 0..n {
        let p = (j..n)
            .max_by(|&x, &y| a[x * n + x].total_cmp(&a[y * n + y]))
            .unwrap_or(j);
        if a[p * n + p] <= zero {
            rank = j;
            break;
        }
        if p != j {
            perm.swap(j, p);
            for c in 0..n {
                a.swap(j * n + c, p * n + c);
            }
            for r in 0..n {
                a.swap(r * n + j, r * n + p);
            }
        }
        let d = a[j * n + j].sqrt();
        a[j * n + j] = d;
        for r in j + 1..n {
            a[r * n + j] /= d;
        }
        for r in j + 1..n {
            let lr = a[r * n + j];
            // The whole trailing block, so that pivoting can swap it.
            for c in j + 1..n {
                a[r * n + c] -= lr * a[c * n + j];
            }
        }
    }
    // What is left is the Schur complement of the kept pivots: zero for a
    // semi-definite `A` (its entries are bounded by its diagonal's), so an
    // entry above round-off means an eigenvalue below zero.
    for r in rank..n {
        for c in rank..=r {
            if a[r * n + c].abs() > zero {
                return None;
            }
        }
    }
    // `P^T A P = L L^T` with `L = [L1; L2]`: `[x; e_i]` with
    // `L1^T x = -L2^T e_i` spans the null space.
    null.resize((n - rank) * n, 0.0);
    for i in 0..n - rank {
        let v = &mut null[i * n..(i + 1) * n];
        v.fill(0.0);
        let row = rank + i;
        for t in (0..rank).rev() {
            let mut s = -a[row * n + t];
            for m in t + 1..rank {
                s -= a[m * n + t] * v[perm[m]];
            }
            v[perm[t]] = s / a[t * n + t];
        }
        v[perm[row]] = 1.0;
        let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter_mut().for_each(|x| *x /= len);
    }
    Some(n - rank)
}

/// The inverse of a symmetric positive definite `size x size` block,
/// `size` 1 to 3 (larger is read as 3), row-major, by the adjugate. Positive definiteness is
/// checked by the leading principal minors (Sylvester's criterion; the
/// `k`-th minor is positive exactly when the `k`-th Cholesky pivot is), and
/// the first that is not positive (or not a number) is the error.
pub fn small_spd_inverse(m: &[f64], size: usize, inv: &mut [f64]) -> Result<(), BadPivot> {
    let positive = |x: f64| x > 0.0 && x.is_finite();
    match size {
        1 => {
            if !positive(m[0]) {
                return Err(BadPivot {
                    index: 0,
                    value: m[0],
                });
            }
            inv[0] = 1.0 / m[0];
        }
        2 => {
            let (a, b, c) = (m[0], m[1], m[3]);
            let det = a * c - b * b;
            if !positive(a) {
                return Err(BadPivot { index: 0, value: a });
            }
            if !positive(det) {
                return Err(BadPivot {
                    index: 1,
                    value: det,
                });
            }
            let r = 1.0 / det;
            inv.copy_from_slice(&[c * r, -b * r, -b * r, a * r]);
        }
        _ => {
            let (a, b, c) = (m[0], m[1], m[2]);
            let (d, e) = (m[4], m[5]);
            let f = m[8];
            if !positive(a) {
                return Err(BadPivot { index: 0, value: a });
            }
            let minor = a * d - b * b;
            if !positive(minor) {
                return Err(BadPivot {
                    index: 1,
                    value: minor,
                });
            }
            let (c00, c01, c02) = (d * f - e * e, c * e - b * f, b * e - c * d);
            let det = a * c00 + b * c01 + c * c02;
            if !positive(det) {
                return Err(BadPivot {
                    index: 2,
                    value: det,
                });
            }
            let r = 1.0 / det;
            let (c11, c12, c22) = (a * f - c * c, b * c - a * e, a * d - b * b);
            inv.copy_from_slice(&[
                c00 * r,
                c01 * r,
                c02 * r,
                c01 * r,
                c11 * r,
                c12 * r,
                c02 * r,
                c12 * r,
                c22 * r,
            ]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `A = B B^T + I` of a seeded `B` (`n = 7`): the solve by columns,
    /// with the factor written by columns, gives `x` whose `A x` is `b`,
    /// and the same `x` as the solve by rows.
    #[test]
    fn the_solve_by_columns_solves_a_x_equals_b() {
        let n = 7;
        let mut seed = 1u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let a: Vec<f64> = (0..n * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                let bb: f64 = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum();
                bb + if i == j { 1.0 } else { 0.0 }
            })
            .collect();
        let rhs: Vec<f64> = (0..n).map(|_| next()).collect();
        let mut rows = a.clone();
        cholesky_in_place(&mut rows, n).unwrap();
        // The lower triangle by columns: `L_rc` at `c n + r`.
        let mut columns = vec![f64::NAN; n * n];
        for r in 0..n {
            for c in 0..=r {
                columns[c * n + r] = rows[r * n + c];
            }
        }
        let (mut by_rows, mut by_columns) = (rhs.clone(), rhs.clone());
        cholesky_solve_in_place(&rows, n, &mut by_rows);
        // The upper triangle (NaN) is never read.
        cholesky_solve_by_columns_in_place(&columns, n, &mut by_columns);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| a[i * n + j] * by_columns[j]).sum();
            assert!(
                (ax - rhs[i]).abs() < 1e-13,
                "row {i}: {ax} against {}",
                rhs[i]
            );
            assert!((by_columns[i] - by_rows[i]).abs() < 1e-13);
        }
    }

    /// A = [4 2; 2 3] = L L^T with L = [2 0; 1 sqrt(2)]; A x = [2, 1] has
    /// x = [0.5, 0].
    #[test]
    fn two_by_two_by_hand() {
        let mut a = [4.0, 0.0, 2.0, 3.0];
        cholesky_in_place(&mut a, 2).unwrap();
        assert_eq!(a[0], 2.0);
        assert_eq!(a[2], 1.0);
        assert!((a[3] - 2f64.sqrt()).abs() < 1e-15);
        let mut x = [2.0, 1.0];
        cholesky_solve_in_place(&a, 2, &mut x);
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15);
    }

    /// The 3 x 3 `A = L L^T` with `L = [2 0 0; 1 3 0; -1 2 1]` (integers:
    /// the factor is exact), and `A x = A [1, -1, 2]`.
    #[test]
    fn three_by_three_factor_is_exact() {
        let l = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 2.0, 1.0];
        let mut a = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                a[i * 3 + j] = (0..3).map(|k| l[i * 3 + k] * l[j * 3 + k]).sum();
            }
        }
        let x = [1.0, -1.0, 2.0];
        let mut b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| a[i * 3 + j] * x[j]).sum())
            .collect();
        cholesky_in_place(&mut a, 3).unwrap();
        for i in 0..3 {
            for j in 0..=i {
                assert_eq!(a[i * 3 + j], l[i * 3 + j]);
            }
        }
        cholesky_solve_in_place(&a, 3, &mut b);
        assert_eq!(b, x);
    }

    /// [1 2; 2 1] has eigenvalues 3 and -1: the second pivot is 1 - 4 < 0.
    /// [1 1; 1 1] is singular: its second pivot is 0, refused as such, and
    /// refused by a floor at a pivot just above it.
    #[test]
    fn bad_pivots_are_named() {
        let mut a = [1.0, 0.0, 2.0, 1.0];
        assert_eq!(
            cholesky_in_place(&mut a, 2),
            Err(BadPivot {
                index: 1,
                value: -3.0
            })
        );
        let mut a = [1.0, 0.0, 1.0, 1.0];
        assert_eq!(
            cholesky_in_place(&mut a, 2),
            Err(BadPivot {
                index: 1,
                value: 0.0
            })
        );
        let mut a = [1.0, 0.0, 1.0, 1.0 + 1e-12];
        assert_eq!(
            cholesky_in_place_above(&mut a, 2, 1e-10).unwrap_err().index,
            1
        );
        let mut a = [f64::NAN, 0.0, 0.0, 1.0];
        assert_eq!(cholesky_in_place(&mut a, 2).unwrap_err().index, 0);
    }

    /// [1 1 0; 1 1 0; 0 0 4] has a dependent second row: its pivot is
    /// dropped, and `A x = [2, 2, 4]` gets `x = [2, 0, 1]` (the second
    /// unknown zero).
    #[test]
    fn semidefinite_drops_the_dependent_row() {
        let mut a = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 4.0];
        semidefinite_cholesky_in_place(&mut a, 3, 1e-13);
        assert_eq!(a, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
        let mut x = [2.0, 2.0, 4.0];
        semidefinite_cholesky_solve_in_place(&a, 3, &mut x);
        assert_eq!(x, [2.0, 0.0, 1.0]);
    }

    /// A saddle-point system by hand: `[[2, 1], [1, 0]] x = [3, 1]` gives
    /// `x = (1, 1)`; rows of very different units solve exactly; a zero
    /// row, a dependent row and a NaN are refused with their pivot.
    #[test]
    fn lu_by_hand_and_singular() {
        let lu =
            |mut a: Vec<f64>, mut b: Vec<f64>| lu_solve_in_place(&mut a, &mut b, 1e-12).map(|()| b);
        assert_eq!(
            lu(vec![2.0, 1.0, 1.0, 0.0], vec![3.0, 1.0]),
            Ok(vec![1.0, 1.0])
        );
        let x = lu(vec![1e-9, 0.0, 0.0, 1e9], vec![2e-9, 3e9]).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-15 && (x[1] - 3.0).abs() < 1e-15);
        let zero_row = lu(vec![1.0, 2.0, 0.0, 0.0], vec![1.0, 0.0]);
        assert_eq!(
            zero_row,
            Err(BadPivot {
                index: 1,
                value: 0.0
            })
        );
        let dependent = lu(vec![1.0, 2.0, 2.0, 4.0], vec![1.0, 2.0]);
        assert_eq!(
            dependent,
            Err(BadPivot {
                index: 1,
                value: 0.0
            })
        );
        assert_eq!(
            lu(vec![f64::NAN, 0.0, 0.0, 1.0], vec![1.0, 1.0])
                .unwrap_err()
                .index,
            0
        );
    }

    /// The full-pivot LU: [2 1; 1 2] x = [3, 3] has x = [1, 1] (full
    /// rank); the rank-1 [1 1; 1 1] x = [2, 2] has the minimum-norm
    /// solution [1, 1]; a zero matrix's rank is not told.
    #[test]
    fn full_pivot_lu_by_hand() {
        let tol = RankTolerances {
            full: 1e-12,
            kept: 1e-6,
            dropped: 1e-12,
        };
        let (mut x, mut scratch) = (Vec::new(), LuScratch::default());
        let two = |i: usize, j: usize| if i == j { 2.0 } else { 1.0 };
        let full = full_pivot_lu_solve(2, two, &[3.0, 3.0], &mut x, &mut scratch, tol);
        assert_eq!((full, x.as_slice()), (Some(true), [1.0, 1.0].as_slice()));
        let full = full_pivot_lu_solve(2, |_, _| 1.0, &[2.0, 2.0], &mut x, &mut scratch, tol);
        assert_eq!(full, Some(false));
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
        let zero = full_pivot_lu_solve(2, |_, _| 0.0, &[0.0, 0.0], &mut x, &mut scratch, tol);
        assert_eq!(zero, None);
    }

    /// [1 1; 1 1] has the null vector (1, -1) / sqrt 2; [1 2; 2 1] is not
    /// semi-definite.
    #[test]
    fn null_space_by_hand() {
        let (mut perm, mut null) = (Vec::new(), Vec::new());
        let d = semidefinite_null_space(&mut [1.0; 4], 2, 1e-12, &mut perm, &mut null);
        assert_eq!(d, Some(1));
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((null[0] + null[1]).abs() < 1e-15 && (null[0].abs() - h).abs() < 1e-15);
        let mut indefinite = [1.0, 2.0, 2.0, 1.0];
        assert_eq!(
            semidefinite_null_space(&mut indefinite, 2, 1e-12, &mut perm, &mut null),
            None
        );
    }

    /// The inverses of [4], [4 2; 2 2] and diag(1, 2, 4) by hand; [1 2; 2 1]
    /// fails at its second minor, -3.
    #[test]
    fn small_inverses_by_hand() {
        let mut inv = [0.0; 9];
        small_spd_inverse(&[4.0], 1, &mut inv[..1]).unwrap();
        assert_eq!(inv[0], 0.25);
        small_spd_inverse(&[4.0, 2.0, 2.0, 2.0], 2, &mut inv[..4]).unwrap();
        assert_eq!(inv[..4], [0.5, -0.5, -0.5, 1.0]);
        let diag = [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 4.0];
        small_spd_inverse(&diag, 3, &mut inv).unwrap();
        assert_eq!(inv, [1.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.25]);
        let bad = small_spd_inverse(&[1.0, 2.0, 2.0, 1.0], 2, &mut inv[..4]);
        assert_eq!(
            bad,
            Err(BadPivot {
                index: 1,
                value: -3.0
            })
        );
    }
}
