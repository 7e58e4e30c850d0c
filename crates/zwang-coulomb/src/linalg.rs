//! Small dense kernels on faer matrices: the contact operators are `k x k`
//! and the multiplier systems `m x m` with `k`, `m` small, so dense
//! factorizations are both the simplest and the fastest choice here.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use zwang_core::is_round_off;
use zwang_instant::dense::{self, LuScratch, RankTolerances};

/// Relative size below which a pivot, an eigenvalue or a singular value is
/// treated as zero (rank decisions).
pub(crate) const RANK_TOL: f64 = 1e-12;

/// `A x = b` for a square `A`: full-pivot LU when `A` has full rank,
/// otherwise the minimum-norm least-squares solution from the SVD (the
/// "minimum-norm multipliers" of redundant rows). Small systems are
/// factored by [`dense::full_pivot_lu_solve`], which leaves to the SVD only the systems
/// whose rank it cannot tell or that are not consistent. The second value is the
/// relative residual `|A x - b| / max(|A| |x|, |b|)`, which is what tells an
/// inconsistent system from a redundant but consistent one.
pub(crate) fn solve_square(a: &Mat<f64>, b: &[f64]) -> (Vec<f64>, f64) {
    let mut x = Vec::new();
    let at = |i, j| a[(i, j)];
    let residual = solve_with(a.nrows(), at, b, &mut x, &mut LuScratch::default());
    (x, residual)
}

/// [`solve_square`] for `A` stored row-major in a slice of `n x n`, `n`
/// the length of `b`, the solution written to `x`: no matrix and, with a
/// kept `scratch`, no allocation for the many small systems. Returns the
/// relative residual.
pub(crate) fn solve_rows(a: &[f64], b: &[f64], x: &mut Vec<f64>, scratch: &mut LuScratch) -> f64 {
    let n = b.len();
    solve_with(n, |i, j| a[i * n + j], b, x, scratch)
}

/// [`solve_square`] for `A` given entry by entry.
fn solve_with(
    n: usize,
    at: impl Fn(usize, usize) -> f64 + Copy,
    b: &[f64],
    x: &mut Vec<f64>,
    scratch: &mut LuScratch,
) -> f64 {
    x.clear();
    if n == 0 {
        return 0.0;
    }
    if n == 1 {
        // One row: the same decisions as below, without the factorization's
        // setup (independent contacts are all 1 x 1).
        let (a00, b0) = (at(0, 0), b[0]);
        let x0 = if a00 != 0.0 && a00.is_finite() {
            b0 / a00
        } else {
            0.0
        };
        x.push(x0);
        return relative_residual(n, at, x, b);
    }
    if n <= SMALL {
        if let Some(full_rank) = dense::full_pivot_lu_solve(n, at, b, x, scratch, RANK) {
            let residual = relative_residual(n, at, x, b);
            // A rank-deficient system is taken from the LU only when it is
            // consistent to round-off; otherwise the SVD's least squares.
            if full_rank || residual <= ROUND_OFF {
                return residual;
            }
        }
    }
    let a = Mat::from_fn(n, n, at);
    let rhs = Mat::from_fn(n, 1, |i, _| b[i]);
    let lu = a.full_piv_lu();
    let u = lu.U();
    let pivot_max = u[(0, 0)].abs();
    let pivot_min = (0..n)
        .map(|i| u[(i, i)].abs())
        .fold(f64::INFINITY, f64::min);
    let sol = if pivot_min > RANK_TOL * pivot_max && pivot_max > 0.0 {
        lu.solve(&rhs)
    } else {
        min_norm_solve(&a, &rhs)
    };
    x.clear();
    x.extend((0..n).map(|i| sol[(i, 0)]));
    relative_residual(n, at, x, b)
}

/// Systems up to this size are factored by the dense LU: faer's general LU and SVD
/// cost far more in setup than in arithmetic on the `k x k` systems of a
/// few contacts.
const SMALL: usize = 16;

/// Relative residual of a solution exact up to round-off.
const ROUND_OFF: f64 = 1e-11;

/// A clearly rank-deficient system has its dropped singular values below
/// this (relative, bounded by the first dropped pivot) and its kept pivots
/// above
/// [`KEPT_TOL`]: between the two the rank is left to the SVD.
const DROPPED_TOL: f64 = RANK_TOL;
const KEPT_TOL: f64 = 1e-6;

/// The rank decisions of the small systems' LU.
const RANK: RankTolerances = RankTolerances {
    full: RANK_TOL,
    kept: KEPT_TOL,
    dropped: DROPPED_TOL,
};

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

fn relative_residual(n: usize, at: impl Fn(usize, usize) -> f64, x: &[f64], b: &[f64]) -> f64 {
    // `f64::max` skips NaN, so a broken solution must be caught up front:
    // it is never "consistent".
    if x.iter().any(|v| !v.is_finite()) {
        return f64::INFINITY;
    }
    let (mut res, mut scale) = (0.0f64, f64::MIN_POSITIVE);
    for i in 0..n {
        let (mut s, mut mag) = (0.0, 0.0);
        for j in 0..n {
            s += at(i, j) * x[j];
            mag += (at(i, j) * x[j]).abs();
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

/// Largest eigenvalue modulus of a square matrix (`0` for an empty one),
/// `0` too when it is within round-off of the matrix's size (the largest
/// entry): a nilpotent coupling computed as `2.2e-16` is none.
pub(crate) fn spectral_radius(a: &Mat<f64>) -> f64 {
    let size = (0..a.nrows())
        .flat_map(|i| (0..a.ncols()).map(move |j| (i, j)))
        .fold(0.0_f64, |m, (i, j)| m.max(a[(i, j)].abs()));
    let rho = eigenvalue_modulus(a);
    if is_round_off(rho, size * a.nrows() as f64) {
        0.0
    } else {
        rho
    }
}

/// Largest eigenvalue modulus of a square matrix, as computed.
fn eigenvalue_modulus(a: &Mat<f64>) -> f64 {
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

    /// The LU written out agrees with faer's LU on a full-rank system and
    /// with the SVD's minimum-norm solution on a consistent rank-deficient
    /// one (a 4 x 4 Gram matrix of rank 3, as two sticking corners give).
    #[test]
    fn small_lu_matches_faer() {
        let rows = [
            [1.0, 0.3, -0.2],
            [0.1, 1.5, 0.4],
            [-0.7, 0.2, 0.9],
            [0.5, -1.1, 0.6],
        ];
        let gram = Mat::from_fn(4, 4, |i, j| (0..3).map(|k| rows[i][k] * rows[j][k]).sum());
        let b: Vec<f64> = (0..4).map(|i| gram[(i, 0)] - 2.0 * gram[(i, 2)]).collect();
        let (mut x, mut scratch) = (Vec::new(), LuScratch::default());
        let full =
            dense::full_pivot_lu_solve(4, |i, j| gram[(i, j)], &b, &mut x, &mut scratch, RANK)
                .unwrap();
        assert!(!full);
        let svd = min_norm_solve(&gram, &Mat::from_fn(4, 1, |i, _| b[i]));
        for i in 0..4 {
            assert!((x[i] - svd[(i, 0)]).abs() < 1e-12, "{x:?}");
        }
        let a = Mat::from_fn(3, 3, |i, j| rows[i][j] + f64::from(u8::from(i == j)));
        let rhs = [1.0, -2.0, 0.5];
        let full =
            dense::full_pivot_lu_solve(3, |i, j| a[(i, j)], &rhs, &mut x, &mut scratch, RANK)
                .unwrap();
        let faer_x = a
            .full_piv_lu()
            .solve(&Mat::from_fn(3, 1, |i, _| [1.0, -2.0, 0.5][i]));
        assert!(full && (0..3).all(|i| (x[i] - faer_x[(i, 0)]).abs() < 1e-13));
    }

    /// A plate on twelve points: a 12 x 12 Gram matrix of rank 3, whose
    /// dropped pivots are round-off times a growth the old bound
    /// (`2^(n - r)`) took for a rank it could not tell; it sent every
    /// plate on ten or more points to the SVD. The LU gives the SVD's
    /// minimum-norm answer.
    #[test]
    fn plate_on_twelve_points_went_to_the_svd() {
        let j = |i: usize, c: usize| [1.0, 0.1 * i as f64 - 0.55, 0.1][c];
        let gram = Mat::from_fn(12, 12, |a, b| (0..3).map(|c| j(a, c) * j(b, c)).sum());
        let b: Vec<f64> = (0..12).map(|i| gram[(i, 0)] - 3.0 * gram[(i, 7)]).collect();
        let (mut x, mut scratch) = (Vec::new(), LuScratch::default());
        let full =
            dense::full_pivot_lu_solve(12, |i, j| gram[(i, j)], &b, &mut x, &mut scratch, RANK);
        assert_eq!(full, Some(false));
        let svd = min_norm_solve(&gram, &Mat::from_fn(12, 1, |i, _| b[i]));
        for i in 0..12 {
            assert!((x[i] - svd[(i, 0)]).abs() < 1e-12, "{x:?}");
        }
    }

    /// The null space of the symmetric `n x n` row-major `a`, checked:
    /// `A v = 0` for each vector, and the vectors independent (their Gram
    /// matrix has full rank).
    fn checked_null(a: &[f64], n: usize) -> Option<usize> {
        let (mut perm, mut null) = (Vec::new(), Vec::new());
        let d = dense::semidefinite_null_space(&mut a.to_vec(), n, 1e-10, &mut perm, &mut null)?;
        let scale = a.iter().map(|x| x.abs()).fold(0.0, f64::max);
        for v in null.chunks(n) {
            for i in 0..n {
                let av: f64 = (0..n).map(|j| a[i * n + j] * v[j]).sum();
                assert!(av.abs() <= 1e-13 * scale, "{av}");
            }
        }
        let gram = Mat::from_fn(d, d, |i, j| {
            (0..n)
                .map(|c| null[i * n + c] * null[j * n + c])
                .sum::<f64>()
        });
        assert!(d == 0 || normalized_det(&gram).abs() > 1e-6);
        Some(d)
    }

    /// `Q diag(d) Q^T` with `Q` orthogonal: semi-definite with a null
    /// space of dimension one, definite, and indefinite by a small or a
    /// large negative eigenvalue.
    #[test]
    fn pivoted_cholesky_finds_null_spaces_and_negative_eigenvalues() {
        let q = [
            [0.5, 0.5, 0.5, 0.5],
            [0.5, -0.5, 0.5, -0.5],
            [0.5, 0.5, -0.5, -0.5],
            [0.5, -0.5, -0.5, 0.5],
        ];
        let with = |d: [f64; 4]| -> Vec<f64> {
            (0..16)
                .map(|e| (0..4).map(|k| q[e / 4][k] * d[k] * q[e % 4][k]).sum())
                .collect()
        };
        assert_eq!(checked_null(&with([3.0, 3.0, 0.0, 0.5]), 4), Some(1));
        assert_eq!(checked_null(&with([3.0, 3.0, 2.0, 0.5]), 4), Some(0));
        assert_eq!(checked_null(&with([3.0, 3.0, 0.0, -1.5]), 4), None);
        assert_eq!(checked_null(&with([3.0, 3.0, 1.0, -1e-8]), 4), None);
        assert_eq!(checked_null(&with([0.0; 4]), 4), Some(4));
        assert_eq!(checked_null(&[f64::NAN], 1), None);
        // Eight contacts on three coordinates: the null space of dimension
        // five.
        let j = |i: usize, c: usize| [1.0, 0.1 * i as f64 - 0.35, (i * i) as f64 * 0.01][c];
        let gram: Vec<f64> = (0..64)
            .map(|e| (0..3).map(|c| j(e / 8, c) * j(e % 8, c)).sum())
            .collect();
        assert_eq!(checked_null(&gram, 8), Some(5));
        // Twenty redundant rows on three coordinates, scaled by 1e6.
        let j = |i: usize, c: usize| [1.0, (i as f64 * 0.7).sin(), (i as f64 * 0.3).cos()][c];
        let gram: Vec<f64> = (0..400)
            .map(|e| 1e6 * (0..3).map(|c| j(e / 20, c) * j(e % 20, c)).sum::<f64>())
            .collect();
        assert_eq!(checked_null(&gram, 20), Some(17));
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
