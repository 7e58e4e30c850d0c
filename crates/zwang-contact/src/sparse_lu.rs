//! A thin wrapper around faer's sparse LU with partial pivoting: one
//! symbolic analysis per pattern, numeric factorizations and solves reusing
//! its memory (the Newton matrix of exact Coulomb friction is not
//! symmetric: a sliding contact's row asks `u_N = 0` of an impulse on the
//! cone's edge).

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// `A = P L U Q` of a square sparse matrix with a fixed pattern.
pub(crate) struct SparseLu {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    scratch: MemBuffer,
    factored: bool,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLu")
            .field("factored", &self.factored)
            .finish()
    }
}

impl SparseLu {
    /// Symbolic analysis of `pattern` (all entries, both triangles).
    pub fn analyze(pattern: SymbolicSparseColMatRef<'_, usize>) -> Self {
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
            symbolic,
            numeric: NumericLu::new(),
            scratch: MemBuffer::new(req),
            factored: false,
        }
    }

    /// Numeric factorization; `false` when the matrix is singular.
    pub fn factor(&mut self, matrix: SparseColMatRef<'_, usize, f64>) -> bool {
        let stack = MemStack::new(&mut self.scratch);
        self.factored = self
            .symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                matrix,
                Par::Seq,
                stack,
                Default::default(),
            )
            .is_ok();
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
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(&self.symbolic, &self.numeric);
        lu.solve_in_place_with_conj(
            Conj::No,
            MatMut::from_column_major_slice_mut(rhs, n, 1),
            Par::Seq,
            stack,
        );
    }
}
