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
//! - [`lu_solve_in_place`]: Gaussian elimination with row equilibration
//!   and partial pivoting, for square systems that are not symmetric.
//!
//! They serve the blocks of a block-diagonal mass matrix and small Schur
//! complements, where a sparse factorization costs more in bookkeeping
//! than in arithmetic. Matrices are square, stored row-major in a slice of
//! length `n * n`; the Cholesky kernels read and write only the lower
//! triangle. None allocates.

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
