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
    SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::linalg::{amd, SupernodalThreshold};
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
    let params = layout(false);
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

/// Analysis parameters forcing the supernodal or the simplicial layout.
fn layout(supernodal: bool) -> CholeskySymbolicParams<'static> {
    CholeskySymbolicParams {
        supernodal_flop_ratio_threshold: if supernodal {
            SupernodalThreshold::FORCE_SUPERNODAL
        } else {
            SupernodalThreshold::FORCE_SIMPLICIAL
        },
        ..Default::default()
    }
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
    /// The triangle the matrices come as.
    side: Side,
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
        Self::analyze_with(upper, layout(true))
    }

    /// The fill-reducing order faer's analysis of the pattern whose upper
    /// triangle is `upper` picks (approximate minimum degree): `order[new]
    /// = old`. A matrix assembled in that order is factored by
    /// [`SparseCholesky::analyze_in_order`] without faer's permuted copy at
    /// each factorization.
    pub fn fill_reducing_order(upper: SymbolicSparseColMatRef<'_, usize>) -> Vec<usize> {
        let n = upper.nrows();
        let (mut order, mut inverse) = (vec![0; n], vec![0; n]);
        let mut scratch = MemBuffer::new(amd::order_maybe_unsorted_scratch::<usize>(
            n,
            upper.compute_nnz(),
        ));
        let ordered = amd::order_maybe_unsorted(
            &mut order,
            &mut inverse,
            upper,
            Default::default(),
            MemStack::new(&mut scratch),
        );
        if ordered.is_err() {
            // Out of memory for the ordering: the problem's own.
            order.iter_mut().enumerate().for_each(|(i, x)| *x = i);
        }
        order
    }

    /// Symbolic analysis of the upper triangle `upper` of a pattern
    /// already in its fill-reducing order
    /// ([`SparseCholesky::fill_reducing_order`]), supernodal or
    /// simplicial. Its factorizations take the triangle that layout works
    /// on ([`SparseCholesky::in_order_side`]) and read it in place.
    pub fn analyze_in_order(upper: SymbolicSparseColMatRef<'_, usize>, supernodal: bool) -> Self {
        let mut analysed = Self::analyze_as(
            upper,
            Side::Upper,
            SymmetricOrdering::Identity,
            layout(supernodal),
        );
        analysed.side = Self::in_order_side(supernodal);
        analysed
    }

    /// The triangle [`SparseCholesky::analyze_in_order`] takes: the
    /// lower for the supernodal layout, the upper for the simplicial.
    pub fn in_order_side(supernodal: bool) -> Side {
        if supernodal {
            Side::Lower
        } else {
            Side::Upper
        }
    }

    fn analyze_with(
        upper: SymbolicSparseColMatRef<'_, usize>,
        params: CholeskySymbolicParams<'_>,
    ) -> Self {
        Self::analyze_as(upper, Side::Upper, SymmetricOrdering::Amd, params)
    }

    fn analyze_as(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        side: Side,
        ordering: SymmetricOrdering<'_, usize>,
        params: CholeskySymbolicParams<'_>,
    ) -> Self {
        let symbolic = factorize_symbolic_cholesky(pattern, side, ordering, params)
            .expect("symbolic Cholesky analysis ran out of memory");
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        let values = vec![0.0; symbolic.len_val()];
        SparseCholesky {
            symbolic,
            side,
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

    /// Numeric `L L^T` of a matrix with the analyzed pattern (its upper
    /// triangle, or the one [`SparseCholesky::analyze_in_order`] was
    /// given).
    pub fn factor_llt(&mut self, upper: SparseColMatRef<'_, usize, f64>) -> Result<(), PivotError> {
        self.kind = Kind::None;
        let n = self.dim();
        let stack = MemStack::new(&mut self.scratch);
        let result = self
            .symbolic
            .factorize_numeric_llt(
                &mut self.values,
                upper,
                self.side,
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
                self.side,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid's Laplacian plus the identity (positive definite, with
    /// fill), its upper triangle by compressed columns in the order given
    /// by `at` (`at[old] = new`), or its lower one.
    fn grid(side: usize, at: &[usize], lower: bool) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let n = side * side;
        let mut columns: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        let mut add = |r: usize, c: usize, x: f64| {
            let (a, b) = (at[r], at[c]);
            let (row, col) = if lower == (a >= b) { (a, b) } else { (b, a) };
            columns[col].push((row, x));
        };
        for i in 0..side {
            for j in 0..side {
                let k = i * side + j;
                add(k, k, 5.0 + (k % 3) as f64);
                if j + 1 < side {
                    add(k, k + 1, -1.0);
                }
                if i + 1 < side {
                    add(k, k + side, -1.0 - 0.1 * (k % 2) as f64);
                }
            }
        }
        let (mut ptr, mut idx, mut val) = (vec![0], Vec::new(), Vec::new());
        for mut c in columns {
            c.sort_by_key(|e| e.0);
            idx.extend(c.iter().map(|e| e.0));
            val.extend(c.iter().map(|e| e.1));
            ptr.push(idx.len());
        }
        (ptr, idx, val)
    }

    #[test]
    fn a_matrix_in_its_fill_reducing_order_solves_as_in_its_own() {
        let side = 12;
        let n = side * side;
        let identity: Vec<usize> = (0..n).collect();
        let (p, i, v) = grid(side, &identity, false);
        let upper =
            SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, &p, None, &i), &v);
        let rhs: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
        let mut reference = SparseCholesky::analyze(upper.symbolic());
        reference.factor_llt(upper).unwrap();
        let mut expected = rhs.clone();
        reference.solve_in_place(&mut expected);
        let order = SparseCholesky::fill_reducing_order(upper.symbolic());
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, identity, "a permutation");
        assert_ne!(order, identity, "a grid is reordered");
        let mut at = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            at[old] = new;
        }
        for supernodal in [true, false] {
            let (up, ui, _) = grid(side, &at, false);
            let analysis = SymbolicSparseColMatRef::new_checked(n, n, &up, None, &ui);
            let mut factor = SparseCholesky::analyze_in_order(analysis, supernodal);
            assert_eq!(factor.is_simplicial(), !supernodal);
            let lower = SparseCholesky::in_order_side(supernodal) == Side::Lower;
            let (fp, fi, fv) = grid(side, &at, lower);
            let matrix = SparseColMatRef::new(
                SymbolicSparseColMatRef::new_checked(n, n, &fp, None, &fi),
                &fv,
            );
            factor.factor_llt(matrix).unwrap();
            let mut x: Vec<f64> = order.iter().map(|&old| rhs[old]).collect();
            factor.solve_in_place(&mut x);
            for (new, &old) in order.iter().enumerate() {
                assert!(
                    (x[new] - expected[old]).abs() < 1e-13,
                    "supernodal {supernodal}: x[{old}] = {} against {}",
                    x[new],
                    expected[old]
                );
            }
            // The fill is that of faer's own order, in the same layout.
            let own = SparseCholesky::analyze_with(upper.symbolic(), layout(supernodal));
            assert_eq!(factor.factor_nnz(), own.factor_nnz());
        }
    }
}
