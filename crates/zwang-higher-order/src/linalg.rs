//! A small dense solve: Gaussian elimination with row equilibration and
//! partial pivoting, for the `n x n` and `(n + g) x (n + g)` systems of one
//! state (a handful of coordinates: no sparse machinery).

/// A pivot below this fraction of its equilibrated row counts as zero:
/// the matrix is singular to working precision.
const PIVOT_TOL: f64 = 1e-12;

/// Solves `a x = b` for a square `a` (row-major, `m x m`); `None` when `a`
/// is singular to working precision (or not finite).
pub(crate) fn solve(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let m = b.len();
    debug_assert_eq!(a.len(), m * m);
    // Each row scaled to a largest entry of 1: the pivot test is then
    // independent of the units of the rows (masses and constraint rows).
    for i in 0..m {
        let scale = a[i * m..(i + 1) * m]
            .iter()
            .fold(0.0f64, |s, x| s.max(x.abs()));
        if !(scale > 0.0 && scale.is_finite()) {
            return None;
        }
        for x in &mut a[i * m..(i + 1) * m] {
            *x /= scale;
        }
        b[i] /= scale;
    }
    for c in 0..m {
        let p = (c..m).max_by(|&i, &j| a[i * m + c].abs().total_cmp(&a[j * m + c].abs()))?;
        let pivot = a[p * m + c].abs();
        if pivot.is_nan() || pivot <= PIVOT_TOL {
            return None;
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
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let s: f64 = (i + 1..m).map(|k| a[i * m + k] * x[k]).sum();
        x[i] = (b[i] - s) / a[i * m + i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saddle-point system by hand: `[[2, 1], [1, 0]] x = [3, 1]` gives
    /// `x = (1, 1)`; a zero row and a dependent row are singular.
    #[test]
    fn by_hand_and_singular() {
        let x = solve(vec![2.0, 1.0, 1.0, 0.0], vec![3.0, 1.0]).unwrap();
        assert_eq!(x, vec![1.0, 1.0]);
        // Rows of very different units still solve exactly.
        let x = solve(vec![1e-9, 0.0, 0.0, 1e9], vec![2e-9, 3e9]).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-15 && (x[1] - 3.0).abs() < 1e-15);
        assert!(solve(vec![1.0, 2.0, 0.0, 0.0], vec![1.0, 0.0]).is_none());
        assert!(solve(vec![1.0, 2.0, 2.0, 4.0], vec![1.0, 2.0]).is_none());
        assert!(solve(vec![f64::NAN, 0.0, 0.0, 1.0], vec![1.0, 1.0]).is_none());
    }
}
