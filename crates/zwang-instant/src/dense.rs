//! Small dense kernels for the blocks of a block-diagonal mass matrix and
//! for small Schur complements, where a sparse factorization costs more in
//! bookkeeping than in arithmetic.
//!
//! Matrices are square, stored row-major in a slice of length `n * n`; only
//! the lower triangle is read and written.

/// `x . y` over the shorter of the two (iterators: no bounds checks, and
/// the compiler vectorizes them).
#[inline]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// In-place Cholesky `A = L L^T` of the lower triangle of `a` (`n x n`).
/// Returns the index of the first non-positive pivot on failure.
pub fn cholesky_in_place(a: &mut [f64], n: usize) -> Result<(), usize> {
    debug_assert_eq!(a.len(), n * n);
    for j in 0..n {
        let (head, tail) = a.split_at_mut((j + 1) * n);
        let rowj = &mut head[j * n..];
        let d = rowj[j] - dot(&rowj[..j], &rowj[..j]);
        // Also catches NaN (every comparison with NaN is false).
        if d.is_nan() || d <= 0.0 || d.is_infinite() {
            return Err(j);
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

    /// [1 2; 2 1] has eigenvalues 3 and -1: the second pivot is 1 - 4 < 0.
    #[test]
    fn indefinite_reports_the_pivot() {
        let mut a = [1.0, 0.0, 2.0, 1.0];
        assert_eq!(cholesky_in_place(&mut a, 2), Err(1));
    }
}
