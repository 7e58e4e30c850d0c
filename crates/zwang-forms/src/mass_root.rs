//! A factor `F` with `F F^T = M^-1`, standing for `M^-1/2` in the
//! Udwadia-Kalaba formula.
//!
//! With faer's fill-reducing permutation `P` and the sparse Cholesky factor
//! `P M P^T = L L^T`, `F = P^T L^-T` works: `F F^T = P^T (L L^T)^-1 P =
//! M^-1`. The factorization is forced simplicial so that `L` is a plain
//! sparse lower-triangular matrix whose triangular solves are the two
//! halves of a solve with `M`.

use faer::sparse::linalg::cholesky::{SymbolicCholesky, SymbolicCholeskyRaw};
use faer::sparse::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_lower_triangular_transpose_in_place,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};
use sprs::CsMat;
use zwang_instant::mass::upper_triangle;
use zwang_instant::sparse_cholesky::simplicial_llt;

/// `F = P^T L^-T` with `P M P^T = L L^T`.
pub(crate) struct InverseMassRoot {
    symbolic: SymbolicCholesky<usize>,
    values: Vec<f64>,
    scratch: Vec<f64>,
}

impl InverseMassRoot {
    /// Factors `mass`; `None` if faer finds it not positive definite (a
    /// validated instant never is).
    pub(crate) fn new(mass: &CsMat<f64>) -> Option<Self> {
        let n = mass.rows();
        let (col_ptr, row_idx, vals) = upper_triangle(mass);
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let (symbolic, values) = simplicial_llt(SparseColMatRef::new(pattern, &vals))?;
        Some(InverseMassRoot {
            symbolic,
            values,
            scratch: vec![0.0; n],
        })
    }

    /// The simplicial factor `L`.
    fn factor(&self) -> SparseColMatRef<'_, usize, f64> {
        let SymbolicCholeskyRaw::Simplicial(s) = self.symbolic.raw() else {
            unreachable!("the factorization is forced simplicial")
        };
        SparseColMatRef::new(s.factor(), &self.values)
    }

    /// `x <- F^T x = L^-1 P x`.
    pub(crate) fn apply_transpose(&mut self, x: &mut [f64]) {
        let n = x.len();
        match self.symbolic.perm() {
            Some(p) => {
                for (t, &f) in self.scratch.iter_mut().zip(p.arrays().0) {
                    *t = x[f];
                }
            }
            None => self.scratch.copy_from_slice(x),
        }
        let mut t = std::mem::take(&mut self.scratch);
        solve_lower_triangular_in_place(
            self.factor(),
            Conj::No,
            MatMut::from_column_major_slice_mut(&mut t, n, 1),
            Par::Seq,
        );
        x.copy_from_slice(&t);
        self.scratch = t;
    }

    /// `y <- F y = P^T L^-T y`.
    pub(crate) fn apply(&mut self, y: &mut [f64]) {
        let n = y.len();
        solve_lower_triangular_transpose_in_place(
            self.factor(),
            Conj::No,
            MatMut::from_column_major_slice_mut(y, n, 1),
            Par::Seq,
        );
        if let Some(p) = self.symbolic.perm() {
            self.scratch.copy_from_slice(y);
            for (yi, &inv) in y.iter_mut().zip(p.arrays().1) {
                *yi = self.scratch[inv];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zwang_instant::{matrix_from_triplets, Instant};

    /// `F F^T x = M^-1 x` on a coupled mass, checked against the instant's
    /// own factorization. M = tridiag(-1, 3, -1) plus a coupling of the
    /// ends (so that the ordering is not the identity).
    #[test]
    fn root_squares_to_the_inverse_mass() {
        let n = 7;
        let mut t = vec![(0, n - 1, 0.5), (n - 1, 0, 0.5)];
        for i in 0..n {
            t.push((i, i, 3.0));
            if i + 1 < n {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let mass = matrix_from_triplets("mass", (n, n), t).unwrap();
        let instant = Instant::builder(mass.clone(), vec![0.0; n])
            .build()
            .unwrap();
        let mut root = InverseMassRoot::new(&mass).unwrap();
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 0.1).collect();
        let mut got = x.clone();
        root.apply_transpose(&mut got);
        root.apply(&mut got);
        let mut want = x;
        instant.mass_factor_or_nan().solve_in_place(&mut want);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-14, "{got:?} vs {want:?}");
        }
    }
}
