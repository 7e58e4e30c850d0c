//! Small dense kernels on faer matrices: the contact operators are `k x k`
//! and the multiplier systems `m x m` with `k`, `m` small, so dense
//! factorizations are both the simplest and the fastest choice here.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};

/// Relative size below which a pivot, an eigenvalue or a singular value is
/// treated as zero (rank decisions).
pub(crate) const RANK_TOL: f64 = 1e-12;

/// `A x = b` for a square `A`: full-pivot LU when `A` has full rank,
/// otherwise the minimum-norm least-squares solution from the SVD (the
/// "minimum-norm multipliers" of redundant rows). The second value is the
/// relative residual `|A x - b| / max(|A| |x|, |b|)`, which is what tells an
/// inconsistent system from a redundant but consistent one.
pub(crate) fn solve_square(a: &Mat<f64>, b: &[f64]) -> (Vec<f64>, f64) {
    let n = a.nrows();
    if n == 0 {
        return (Vec::new(), 0.0);
    }
    if n == 1 {
        // One row: the same decisions as below, without the factorization's
        // setup (independent contacts are all 1 x 1).
        let (a00, b0) = (a[(0, 0)], b[0]);
        let x = if a00 != 0.0 && a00.is_finite() {
            b0 / a00
        } else {
            0.0
        };
        let x = vec![x];
        let residual = relative_residual(a, &x, b);
        return (x, residual);
    }
    let rhs = Mat::from_fn(n, 1, |i, _| b[i]);
    let lu = a.full_piv_lu();
    let u = lu.U();
    let pivot_max = u[(0, 0)].abs();
    let pivot_min = (0..n)
        .map(|i| u[(i, i)].abs())
        .fold(f64::INFINITY, f64::min);
    let x = if pivot_min > RANK_TOL * pivot_max && pivot_max > 0.0 {
        lu.solve(&rhs)
    } else {
        min_norm_solve(a, &rhs)
    };
    let x: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
    let residual = relative_residual(a, &x, b);
    (x, residual)
}

/// Minimum-norm least-squares solution through the SVD, with singular
/// values below `RANK_TOL * s_max` dropped.
fn min_norm_solve(a: &Mat<f64>, rhs: &Mat<f64>) -> Mat<f64> {
    let n = a.nrows();
    let Ok(svd) = a.svd() else {
        // The SVD did not converge (NaN input): let the residual say so.
        return Mat::from_fn(n, 1, |_, _| f64::NAN);
    };
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let s_max = (0..n).map(|i| s[i]).fold(0.0, f64::max);
    let mut x = Mat::<f64>::zeros(n, 1);
    for k in 0..n {
        if s[k] > RANK_TOL * s_max && s[k] > 0.0 {
            let coef = (0..n).map(|i| u[(i, k)] * rhs[(i, 0)]).sum::<f64>() / s[k];
            for i in 0..n {
                x[(i, 0)] += v[(i, k)] * coef;
            }
        }
    }
    x
}

fn relative_residual(a: &Mat<f64>, x: &[f64], b: &[f64]) -> f64 {
    // `f64::max` skips NaN, so a broken solution must be caught up front:
    // it is never "consistent".
    if x.iter().any(|v| !v.is_finite()) {
        return f64::INFINITY;
    }
    let n = a.nrows();
    let (mut res, mut scale) = (0.0f64, f64::MIN_POSITIVE);
    for i in 0..n {
        let (mut s, mut mag) = (0.0, 0.0);
        for j in 0..n {
            s += a[(i, j)] * x[j];
            mag += (a[(i, j)] * x[j]).abs();
        }
        res = res.max((s - b[i]).abs());
        scale = scale.max(mag).max(b[i].abs());
    }
    res / scale
}

/// Pseudo-inverse of a symmetric positive semi-definite matrix (the Schur
/// complement of the other rows, the Delassus matrix): eigenvalues below
/// `RANK_TOL * lambda_max` count as zero, so that redundant rows get the
/// minimum-norm multipliers instead of a blow-up.
pub(crate) fn psd_pinv(a: &Mat<f64>) -> Mat<f64> {
    let n = a.nrows();
    if n == 0 {
        return Mat::zeros(0, 0);
    }
    if n == 1 {
        let d = a[(0, 0)];
        return Mat::from_fn(1, 1, |_, _| if d > 0.0 { 1.0 / d } else { 0.0 });
    }
    let Ok(evd) = a.self_adjoint_eigen(Side::Lower) else {
        return Mat::from_fn(n, n, |_, _| f64::NAN);
    };
    let (u, s) = (evd.U(), evd.S().column_vector());
    let s_max = (0..n).map(|i| s[i].abs()).fold(0.0, f64::max);
    let mut p = Mat::<f64>::zeros(n, n);
    for k in 0..n {
        if s[k] > RANK_TOL * s_max && s[k] > 0.0 {
            for i in 0..n {
                for j in 0..n {
                    p[(i, j)] += u[(i, k)] * u[(j, k)] / s[k];
                }
            }
        }
    }
    p
}

/// Largest eigenvalue modulus of a square matrix (`0` for an empty one).
pub(crate) fn spectral_radius(a: &Mat<f64>) -> f64 {
    match a.nrows() {
        0 => return 0.0,
        1 => return a[(0, 0)].abs(),
        2 => {
            // Roots of l^2 - tr l + det: complex pairs have modulus sqrt(det).
            let (tr, det) = (
                a[(0, 0)] + a[(1, 1)],
                a[(0, 0)] * a[(1, 1)] - a[(0, 1)] * a[(1, 0)],
            );
            let disc = tr * tr / 4.0 - det;
            return if disc >= 0.0 {
                tr.abs() / 2.0 + disc.sqrt()
            } else {
                det.abs().sqrt()
            };
        }
        _ => {}
    }
    match a.eigenvalues() {
        Ok(ev) => ev.iter().map(|z| z.re.hypot(z.im)).fold(0.0, f64::max),
        Err(_) => f64::NAN,
    }
}

/// The determinant divided by the product of the column norms (Hadamard's
/// bound), so in `[-1, 1]` whatever the units: a scale-free test for "this
/// minor is positive" and "this matrix is singular".
pub(crate) fn normalized_det(a: &Mat<f64>) -> f64 {
    let n = a.nrows();
    if n == 0 {
        return 1.0;
    }
    if n == 1 {
        return a[(0, 0)].signum() * f64::from(u8::from(a[(0, 0)] != 0.0));
    }
    let mut bound = 1.0;
    for j in 0..n {
        let norm = (0..n).map(|i| a[(i, j)] * a[(i, j)]).sum::<f64>().sqrt();
        if norm == 0.0 {
            return 0.0;
        }
        bound *= norm;
    }
    a.determinant() / bound
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [2 1; 1 2] x = [3, 3] has x = [1, 1]; the rank-1 [1 1; 1 1] x = [2, 2]
    /// has the minimum-norm solution [1, 1] with zero residual, and
    /// [1 1; 1 1] x = [1, 0] is inconsistent (residual 1/2 of the scale).
    #[test]
    fn full_rank_redundant_and_inconsistent() {
        let a = Mat::from_fn(2, 2, |i, j| if i == j { 2.0 } else { 1.0 });
        let (x, r) = solve_square(&a, &[3.0, 3.0]);
        assert!((x[0] - 1.0).abs() < 1e-14 && (x[1] - 1.0).abs() < 1e-14 && r < 1e-15);
        let ones = Mat::from_fn(2, 2, |_, _| 1.0);
        let (x, r) = solve_square(&ones, &[2.0, 2.0]);
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12 && r < 1e-12);
        let (_, r) = solve_square(&ones, &[1.0, 0.0]);
        assert!(r > 0.1);
    }

    /// pinv of diag(4, 0) is diag(1/4, 0); rho([0 2; 2 0]) = 2;
    /// det([1 0; 0 -1]) / (1 * 1) = -1.
    #[test]
    fn pinv_radius_det() {
        let d = Mat::from_fn(2, 2, |i, j| if i == 0 && j == 0 { 4.0 } else { 0.0 });
        let p = psd_pinv(&d);
        assert!((p[(0, 0)] - 0.25).abs() < 1e-15 && p[(1, 1)] == 0.0);
        let a = Mat::from_fn(2, 2, |i, j| if i != j { 2.0 } else { 0.0 });
        assert!((spectral_radius(&a) - 2.0).abs() < 1e-14);
        let b = Mat::from_fn(2, 2, |i, j| match (i, j) {
            (0, 0) => 1.0,
            (1, 1) => -1.0,
            _ => 0.0,
        });
        assert!((normalized_det(&b) + 1.0).abs() < 1e-15);
    }
}
