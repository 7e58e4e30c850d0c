//! Small dense kernels for the blocks of a block-diagonal mass matrix and
//! for small Schur complements, where a sparse factorization costs more in
//! bookkeeping than in arithmetic.
//!
//! Matrices are square, stored row-major in a slice of length `n * n`; only
//! the lower triangle is read and written.

/// In-place Cholesky `A = L L^T` of the lower triangle of `a` (`n x n`).
/// Returns the index of the first non-positive pivot on failure.
pub fn cholesky_in_place(a: &mut [f64], n: usize) -> Result<(), usize> {
    debug_assert_eq!(a.len(), n * n);
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        // Also catches NaN (every comparison with NaN is false).
        if d.is_nan() || d <= 0.0 || d.is_infinite() {
            return Err(j);
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    Ok(())
}

/// Solves `L y = x` in place (forward substitution) with the factor of
/// [`cholesky_in_place`].
pub fn lower_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= l[i * n + k] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
}

/// Solves `L^T y = x` in place (back substitution).
pub fn upper_solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
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
