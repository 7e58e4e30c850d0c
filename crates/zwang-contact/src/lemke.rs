//! Lemke's complementary pivoting for the linear complementarity problem
//!
//! ```text
//! w = M z + q >= 0,   z >= 0,   w . z = 0
//! ```
//!
//! with a dense, not necessarily symmetric `M` (friction makes the contact
//! matrix non-symmetric). For a P-matrix it always ends with the unique
//! solution; for other matrices it may end on a secondary ray, which is how
//! a contact problem without a solution (a Painleve case) shows itself.
//! The ratio test is lexicographic, so degenerate problems (a contact at
//! rest with zero force and zero gap acceleration) cannot make it cycle.
//!
//! Both levels use it: the event-driven method's acceleration problem and,
//! as the last resort of the velocity-level solver, the planar Coulomb
//! problem written as Stewart and Trinkle's LCP. Dense: for small parts.

use faer::Mat;

/// How Lemke's method ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Lcp {
    /// A solution `z`.
    Solved(Vec<f64>),
    /// Secondary ray: no solution found (none exists for a P-matrix' complement).
    Ray,
    /// The pivot limit was reached.
    Limit,
}

/// Solves the LCP `(M, q)` with the covering vector `d = 1`.
pub fn lemke(m: &Mat<f64>, q: &[f64], max_pivots: usize) -> Lcp {
    let n = q.len();
    if q.iter().all(|&x| x >= 0.0) {
        return Lcp::Solved(vec![0.0; n]);
    }
    // Tableau B^-1 [I, -M, -d | q]: columns 0..n are w, n..2n are z,
    // 2n is z0; the right-hand side is kept apart.
    let cols = 2 * n + 1;
    let mut t = Mat::<f64>::zeros(n, cols);
    let mut rhs = q.to_vec();
    let scale = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .fold(1.0f64, |s, (i, j)| s.max(m[(i, j)].abs()));
    for i in 0..n {
        t[(i, i)] = 1.0;
        for j in 0..n {
            t[(i, n + j)] = -m[(i, j)];
        }
        t[(i, 2 * n)] = -1.0;
    }
    let mut basis: Vec<usize> = (0..n).collect();
    // z0 enters; the most negative q leaves (lexicographic on ties).
    let first = (0..n)
        .min_by(|&a, &b| rhs[a].total_cmp(&rhs[b]).then(a.cmp(&b)))
        .expect("n > 0");
    let mut entering = 2 * n;
    let mut row = first;
    let eps = 1e-12 * scale;
    for _ in 0..max_pivots {
        pivot(&mut t, &mut rhs, row, entering);
        let leaving = basis[row];
        basis[row] = entering;
        if leaving == 2 * n {
            let mut z = vec![0.0; n];
            for (r, &b) in basis.iter().enumerate() {
                if (n..2 * n).contains(&b) {
                    z[b - n] = rhs[r].max(0.0);
                }
            }
            return Lcp::Solved(z);
        }
        entering = if leaving < n {
            leaving + n
        } else {
            leaving - n
        };
        match ratio_test(&t, &rhs, entering, n, eps, &basis) {
            Some(r) => row = r,
            None => return Lcp::Ray,
        }
    }
    Lcp::Limit
}

/// The leaving row for `col`: the lexicographically smallest
/// `(rhs_i, B^-1_i) / t_i,col` over the rows with `t_i,col > eps`; z0 leaves
/// first on a tie so that the method ends as soon as it can.
fn ratio_test(
    t: &Mat<f64>,
    rhs: &[f64],
    col: usize,
    n: usize,
    eps: f64,
    basis: &[usize],
) -> Option<usize> {
    let mut candidates: Vec<usize> = (0..n).filter(|&i| t[(i, col)] > eps).collect();
    if candidates.is_empty() {
        return None;
    }
    let ratio = |i: usize, k: Option<usize>| match k {
        None => rhs[i] / t[(i, col)],
        Some(c) => t[(i, c)] / t[(i, col)],
    };
    let keys = std::iter::once(None).chain((0..n).map(Some));
    for k in keys {
        let best = candidates
            .iter()
            .map(|&i| ratio(i, k))
            .fold(f64::INFINITY, f64::min);
        let tol = 1e-11 * best.abs().max(1e-300);
        candidates.retain(|&i| ratio(i, k) <= best + tol);
        if let Some(&i) = candidates.iter().find(|&&i| basis[i] == 2 * n) {
            return Some(i);
        }
        if candidates.len() == 1 {
            break;
        }
    }
    candidates.first().copied()
}

fn pivot(t: &mut Mat<f64>, rhs: &mut [f64], row: usize, col: usize) {
    let (n, cols) = (t.nrows(), t.ncols());
    let p = t[(row, col)];
    for j in 0..cols {
        t[(row, j)] /= p;
    }
    rhs[row] /= p;
    for i in 0..n {
        if i != row {
            let f = t[(i, col)];
            if f != 0.0 {
                for j in 0..cols {
                    let v = t[(row, j)];
                    if v != 0.0 {
                        t[(i, j)] -= f * v;
                    }
                }
                rhs[i] -= f * rhs[row];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(rows: &[&[f64]]) -> Mat<f64> {
        Mat::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j])
    }

    fn check(m: &Mat<f64>, q: &[f64], z: &[f64]) {
        for i in 0..q.len() {
            let w: f64 = q[i] + (0..q.len()).map(|j| m[(i, j)] * z[j]).sum::<f64>();
            assert!(
                w >= -1e-12 && z[i] >= 0.0 && (w * z[i]).abs() < 1e-12,
                "row {i}"
            );
        }
    }

    /// `M = [2 1; 1 2]`, `q = (-5, -6)`: both positive, `z = M^-1 (5, 6) =
    /// (4/3, 7/3)`.
    #[test]
    fn both_active() {
        let m = mat(&[&[2.0, 1.0], &[1.0, 2.0]]);
        let Lcp::Solved(z) = lemke(&m, &[-5.0, -6.0], 50) else {
            panic!("no solution")
        };
        assert!((z[0] - 4.0 / 3.0).abs() < 1e-14 && (z[1] - 7.0 / 3.0).abs() < 1e-14);
    }

    /// `M = [2 1; 1 2]`, `q = (-2, 3)`: `z = (1, 0)`, `w = (0, 4)`.
    #[test]
    fn one_active() {
        let m = mat(&[&[2.0, 1.0], &[1.0, 2.0]]);
        let Lcp::Solved(z) = lemke(&m, &[-2.0, 3.0], 50) else {
            panic!("no solution")
        };
        assert_eq!(z, vec![1.0, 0.0]);
    }

    /// Non-symmetric P-matrix `[1 2; 0 1]`, `q = (-1, -1)`: `z2 = 1` makes
    /// `w1 = -1 + z1 + 2 >= 0`, so `z1 = 0`, `w1 = 1`.
    #[test]
    fn non_symmetric_p_matrix() {
        let m = mat(&[&[1.0, 2.0], &[0.0, 1.0]]);
        let Lcp::Solved(z) = lemke(&m, &[-1.0, -1.0], 50) else {
            panic!("no solution")
        };
        check(&m, &[-1.0, -1.0], &z);
        assert!((z[1] - 1.0).abs() < 1e-14 && z[0].abs() < 1e-14);
    }

    /// `M = -1`, `q = -1`: `w = -1 - z < 0` for every `z >= 0`: a ray (the
    /// one-contact Painleve inconsistent case, `G < 0` and pressed).
    #[test]
    fn negative_scalar_has_no_solution() {
        assert_eq!(lemke(&mat(&[&[-1.0]]), &[-1.0], 50), Lcp::Ray);
    }

    /// Degenerate: `M = [1 1; 1 1]` (two copies of one contact), `q = (-1, -1)`.
    #[test]
    fn duplicated_rows() {
        let m = mat(&[&[1.0, 1.0], &[1.0, 1.0]]);
        let Lcp::Solved(z) = lemke(&m, &[-1.0, -1.0], 50) else {
            panic!("no solution")
        };
        check(&m, &[-1.0, -1.0], &z);
        assert!((z[0] + z[1] - 1.0).abs() < 1e-14);
    }
}
