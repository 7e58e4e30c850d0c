//! A thin wrapper around faer's LU with partial pivoting for a square
//! matrix given by compressed columns: one analysis per pattern, numeric
//! factorizations and solves reusing its memory (the Newton matrix of
//! exact Coulomb friction is not symmetric: a sliding contact's row asks
//! `u_N = 0` of an impulse on the cone's edge). A pattern that holds every
//! entry is factored dense, by faer's blocked LU: there the sparse
//! factorization does the same arithmetic through index lists.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::perm::PermRef;
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Par};

/// `A = P L U Q` of a square matrix with a fixed pattern.
pub(crate) struct SparseLu {
    factors: Factors,
    scratch: MemBuffer,
    factored: bool,
}

/// The factors, as the pattern's fill decides.
enum Factors {
    Sparse {
        symbolic: SymbolicLu<usize>,
        numeric: Box<NumericLu<usize, f64>>,
    },
    /// `P L U` in place, for a full pattern (values column-major).
    Dense {
        lu: Mat<f64>,
        perm: Vec<usize>,
        perm_inv: Vec<usize>,
    },
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dense = matches!(self.factors, Factors::Dense { .. });
        f.debug_struct("SparseLu")
            .field("dense", &dense)
            .field("factored", &self.factored)
            .finish()
    }
}

/// Whether the columns hold every row, in order.
fn is_full(pattern: SymbolicSparseColMatRef<'_, usize>) -> bool {
    let n = pattern.nrows();
    (0..pattern.ncols()).all(|c| pattern.row_idx_of_col_raw(c).iter().copied().eq(0..n))
}

impl SparseLu {
    /// Analysis of `pattern` (all entries, both triangles).
    pub fn analyze(pattern: SymbolicSparseColMatRef<'_, usize>) -> Self {
        let n = pattern.ncols();
        if is_full(pattern) {
            let req = StackReq::any_of(&[
                factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default()),
                solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
            ]);
            return SparseLu {
                factors: Factors::Dense {
                    lu: Mat::zeros(n, n),
                    perm: vec![0; n],
                    perm_inv: vec![0; n],
                },
                scratch: MemBuffer::new(req),
                factored: false,
            };
        }
        // Simplicial always: faer's supernodal LU (twice as fast on the
        // dual Newton matrix of a pyramid of boxes, 580 unknowns) collects
        // new working vectors at every numeric factorization, and a warm
        // solve must allocate nothing.
        let params = LuSymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SIMPLICIAL,
            ..Default::default()
        };
        let symbolic =
            factorize_symbolic_lu(pattern, params).expect("symbolic LU analysis ran out of memory");
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        SparseLu {
            factors: Factors::Sparse {
                symbolic,
                numeric: Box::new(NumericLu::new()),
            },
            scratch: MemBuffer::new(req),
            factored: false,
        }
    }

    /// Numeric factorization; `false` when the matrix is singular.
    pub fn factor(&mut self, matrix: SparseColMatRef<'_, usize, f64>) -> bool {
        let stack = MemStack::new(&mut self.scratch);
        self.factored = match &mut self.factors {
            Factors::Sparse { symbolic, numeric } => symbolic
                .factorize_numeric_lu(numeric, matrix, Par::Seq, stack, Default::default())
                .is_ok(),
            Factors::Dense { lu, perm, perm_inv } => {
                let n = perm.len();
                lu.copy_from(faer::MatRef::from_column_major_slice(matrix.val(), n, n));
                factor::lu_in_place(
                    lu.as_mut(),
                    perm,
                    perm_inv,
                    Par::Seq,
                    stack,
                    Default::default(),
                );
                (0..n).all(|j| lu[(j, j)] != 0.0 && lu[(j, j)].is_finite())
            }
        };
        self.factored
    }

    /// Solves `A x = rhs` in place with the last factorization (NaN without
    /// one).
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) {
        if !self.factored {
            rhs.fill(f64::NAN);
            return;
        }
        let n = rhs.len();
        let stack = MemStack::new(&mut self.scratch);
        let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
        match &self.factors {
            Factors::Sparse { symbolic, numeric } => {
                let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(symbolic, numeric);
                lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
            }
            Factors::Dense { lu, perm, perm_inv } => {
                let p = PermRef::new_checked(perm, perm_inv, n);
                solve::solve_in_place(lu.as_ref(), lu.as_ref(), p, rhs, Par::Seq, stack);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[[0, 2], [3, 1]]` by compressed columns, all four entries stored.
    fn full(values: &[f64; 4]) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        (vec![0, 2, 4], vec![0, 1, 0, 1], values.to_vec())
    }

    #[test]
    fn a_full_pattern_is_factored_dense_with_its_row_swap() {
        // [[0, 2], [3, 1]] x = (4, 5) for x = (1, 2): the first pivot is 0.
        let (col_ptr, row_idx, values) = full(&[0.0, 3.0, 2.0, 1.0]);
        let pattern = SymbolicSparseColMatRef::new_checked(2, 2, &col_ptr, None, &row_idx);
        let mut lu = SparseLu::analyze(pattern);
        assert!(format!("{lu:?}").contains("dense: true"));
        assert!(lu.factor(SparseColMatRef::new(pattern, &values)));
        let mut x = [4.0, 5.0];
        lu.solve_in_place(&mut x);
        assert!(
            (x[0] - 1.0).abs() < 1e-15 && (x[1] - 2.0).abs() < 1e-15,
            "{x:?}"
        );
        // [[1, 2], [2, 4]] is singular: refused, and solves give NaN.
        let (_, _, singular) = full(&[1.0, 2.0, 2.0, 4.0]);
        assert!(!lu.factor(SparseColMatRef::new(pattern, &singular)));
        let mut y = [1.0, 1.0];
        lu.solve_in_place(&mut y);
        assert!(y.iter().all(|v| v.is_nan()));
    }
}
