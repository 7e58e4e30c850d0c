//! A thin, allocation-aware wrapper around faer's sparse Cholesky.
//!
//! The symbolic analysis (ordering, elimination tree, supernodes) is done
//! once per sparsity pattern; numeric factorizations and solves afterwards
//! reuse its memory, so a time-stepping loop allocates nothing.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, LltRef, SymbolicCholesky,
    SymbolicCholeskyRaw,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

/// `P A P^T = L L^T` of the positive definite `A` given by its upper
/// triangle `upper`, forced simplicial: the analysis (`L`'s pattern and
/// `P`) and `L`'s values, `None` when faer finds `A` not positive definite.
/// For callers that read `L` as a plain sparse lower-triangular matrix
/// (a factor of `W` as contact rows, a root of `M^-1` to solve with); the
/// one place both get it from.
pub fn simplicial_llt(
    upper: SparseColMatRef<'_, usize, f64>,
) -> Option<(SymbolicCholesky<usize>, Vec<f64>)> {
    let params = CholeskySymbolicParams {
        supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SIMPLICIAL,
        ..Default::default()
    };
    let symbolic =
        factorize_symbolic_cholesky(upper.symbolic(), Side::Upper, Default::default(), params)
            .ok()?;
    let mut values = vec![0.0; symbolic.len_val()];
    let mut scratch =
        MemBuffer::new(symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()));
    symbolic
        .factorize_numeric_llt(
            &mut values,
            upper,
            Side::Upper,
            LltRegularization::default(),
            Par::Seq,
            MemStack::new(&mut scratch),
            Default::default(),
        )
        .ok()?;
    Some((symbolic, values))
}

/// Which numeric factorization is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    None,
    Llt,
    Ldlt,
}

/// A sparse symmetric factorization `A = L L^T` (positive definite) or
/// `A = L D L^T` (quasi-definite), given the upper triangle of `A` in
/// compressed columns.
pub struct SparseCholesky {
    symbolic: SymbolicCholesky<usize>,
    values: Vec<f64>,
    scratch: MemBuffer,
    kind: Kind,
}

/// A failed numeric factorization: the pivot at `index` (in the original
/// ordering where known) was zero or of the wrong sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PivotError {
    /// Index of the failing pivot.
    pub index: usize,
}

impl std::fmt::Debug for SparseCholesky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseCholesky")
            .field("dim", &self.dim())
            .field("len_val", &self.values.len())
            .finish()
    }
}

impl SparseCholesky {
    /// Symbolic analysis of the pattern of the upper triangle `upper`.
    pub fn analyze(upper: SymbolicSparseColMatRef<'_, usize>) -> Self {
        Self::analyze_with(upper, CholeskySymbolicParams::default())
    }

    /// Symbolic analysis for the supernodal layout whatever faer's
    /// flop-ratio heuristic would pick: for patterns of small dense blocks
    /// (three velocities per body) whose fill makes dense fronts.
    pub fn analyze_supernodal(upper: SymbolicSparseColMatRef<'_, usize>) -> Self {
        Self::analyze_with(
            upper,
            CholeskySymbolicParams {
                supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
                ..Default::default()
            },
        )
    }

    fn analyze_with(
        upper: SymbolicSparseColMatRef<'_, usize>,
        params: CholeskySymbolicParams<'_>,
    ) -> Self {
        let symbolic = factorize_symbolic_cholesky(upper, Side::Upper, Default::default(), params)
            .expect("symbolic Cholesky analysis ran out of memory");
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        let values = vec![0.0; symbolic.len_val()];
        SparseCholesky {
            symbolic,
            values,
            scratch: MemBuffer::new(req),
            kind: Kind::None,
        }
    }

    /// Number of stored entries of the factor `L` (the fill of the
    /// analysed pattern): the measure of cost the solvers compare paths by.
    pub fn factor_nnz(&self) -> usize {
        self.symbolic.len_val()
    }

    /// The smallest squared diagonal entry of `L` after a successful
    /// `L L^T` (the smallest pivot of the elimination), when the analysis
    /// chose the simplicial layout (the diagonal heads each column of `L`);
    /// `None` for the supernodal layout or without an `L L^T`. The solvers
    /// use it to tell a well-conditioned factor, exact without
    /// regularization, from a nearly singular one.
    pub fn min_pivot(&self) -> Option<f64> {
        if self.kind != Kind::Llt {
            return None;
        }
        match self.symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                let col_ptr = s.col_ptr();
                let n = self.dim();
                Some(
                    (0..n)
                        .map(|j| self.values[col_ptr[j]].powi(2))
                        .fold(f64::INFINITY, f64::min),
                )
            }
            SymbolicCholeskyRaw::Supernodal(_) => None,
        }
    }

    /// Whether the analysis chose the simplicial layout (see
    /// [`SparseCholesky::min_pivot`]).
    pub fn is_simplicial(&self) -> bool {
        matches!(self.symbolic.raw(), SymbolicCholeskyRaw::Simplicial(_))
    }

    /// Dimension of the factored matrix.
    pub fn dim(&self) -> usize {
        self.symbolic.nrows()
    }

    /// Numeric `L L^T` of a matrix with the analyzed pattern.
    pub fn factor_llt(&mut self, upper: SparseColMatRef<'_, usize, f64>) -> Result<(), PivotError> {
        self.kind = Kind::None;
        let n = self.dim();
        let stack = MemStack::new(&mut self.scratch);
        let result = self
            .symbolic
            .factorize_numeric_llt(
                &mut self.values,
                upper,
                Side::Upper,
                LltRegularization::default(),
                Par::Seq,
                stack,
                Default::default(),
            )
            .map(|_| ());
        if let Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) =
            result
        {
            let index = index.min(n.saturating_sub(1));
            let index = match self.symbolic.perm() {
                Some(p) => p.arrays().0[index],
                None => index,
            };
            return Err(PivotError { index });
        }
        self.kind = Kind::Llt;
        Ok(())
    }

    /// Numeric `L D L^T` of a quasi-definite matrix with the analyzed
    /// pattern (no pivoting: quasi-definite matrices are factorizable in any
    /// symmetric order).
    pub fn factor_ldlt(
        &mut self,
        upper: SparseColMatRef<'_, usize, f64>,
    ) -> Result<(), PivotError> {
        self.kind = Kind::None;
        let stack = MemStack::new(&mut self.scratch);
        self.symbolic
            .factorize_numeric_ldlt(
                &mut self.values,
                upper,
                Side::Upper,
                LdltRegularization::default(),
                Par::Seq,
                stack,
                Default::default(),
            )
            .map_err(|e| {
                let faer::linalg::cholesky::ldlt::factor::LdltError::ZeroPivot { index } = e;
                PivotError { index }
            })?;
        self.kind = Kind::Ldlt;
        Ok(())
    }

    /// Solves `A x = rhs` in place with the last numeric factorization.
    ///
    /// Without a successful numeric factorization before, `rhs` becomes NaN.
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) {
        if self.kind == Kind::None {
            rhs.fill(f64::NAN);
            return;
        }
        let n = rhs.len();
        let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
        let stack = MemStack::new(&mut self.scratch);
        match self.kind {
            Kind::Llt => LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            ),
            Kind::Ldlt => LdltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            ),
            Kind::None => {}
        }
    }
}
