//! The instant: `M`, `Q` and the constraint rows at a frozen state.

use crate::error::InstantError;
use crate::mass::MassFactor;
use sprs::{CsMat, TriMat};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Source of structure and value stamps: every pattern (and every set of
/// values given by a setter) gets a number never used before in this
/// process.
static NEXT_STRUCTURE: AtomicU64 = AtomicU64::new(1);

fn fresh_structure() -> u64 {
    NEXT_STRUCTURE.fetch_add(1, Ordering::Relaxed)
}

/// Rows `A a = b` (equalities) or `A a >= b` (inequalities): a sparse
/// `m x n` matrix in compressed rows and its right-hand side.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    matrix: CsMat<f64>,
    rhs: Vec<f64>,
}

impl Rows {
    /// No rows for a system of `n` coordinates.
    pub fn empty(n: usize) -> Self {
        Rows {
            matrix: CsMat::zero((0, n)),
            rhs: Vec::new(),
        }
    }

    /// The matrix `A` (compressed rows).
    pub fn matrix(&self) -> &CsMat<f64> {
        &self.matrix
    }

    /// The right-hand side `b`.
    pub fn rhs(&self) -> &[f64] {
        &self.rhs
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rhs.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rhs.is_empty()
    }

    /// `A x` for row `i`.
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        self.matrix
            .outer_view(i)
            .map(|r| r.iter().map(|(j, &v)| v * x[j]).sum())
            .unwrap_or(0.0)
    }

    /// `out = A x`.
    pub fn mul_into(&self, x: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.row_dot(i, x);
        }
    }

    /// `out += A^T y`.
    pub fn add_transpose_mul(&self, y: &[f64], out: &mut [f64]) {
        for (row, &yi) in self.matrix.outer_iterator().zip(y) {
            if yi != 0.0 {
                for (j, &v) in row.iter() {
                    out[j] += v * yi;
                }
            }
        }
    }
}

/// Which set of rows a friction entry refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSet {
    /// `A_eq a = b_eq`.
    Equalities,
    /// `A_in a >= b_in`.
    Inequalities,
}

/// A row of one of the two sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef {
    /// The set.
    pub set: RowSet,
    /// Zero-based row index within the set.
    pub row: usize,
}

/// A sliding contact with Coulomb friction (the spec's `friction` entry):
/// the friction force is `-mu * slip * |lambda_n|` along `tangent`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlidingContact {
    /// The row whose multiplier is the normal force.
    pub normal: RowRef,
    /// Generalized tangential direction `J_t` (length `n`).
    pub tangent: Vec<f64>,
    /// Friction coefficient, `mu >= 0`.
    pub mu: f64,
    /// Sign of the tangential velocity, `+1` or `-1`.
    pub slip: f64,
}

/// A sticking contact: the tangential equality row holds while its
/// multiplier stays inside the friction cone `|lambda_t| <= mu lambda_n`.
#[derive(Debug, Clone, PartialEq)]
pub struct StickingContact {
    /// The row whose multiplier is the normal force.
    pub normal: RowRef,
    /// The equality row that keeps the tangential velocity at zero.
    pub tangent_row: usize,
    /// Friction coefficient, `mu >= 0`.
    pub mu: f64,
}

/// One frozen instant of a mechanical system, validated: the data of the
/// Gauss QP `min 1/2 a^T M a - Q^T a` s.t. `A_eq a = b_eq`, `A_in a >= b_in`.
///
/// Build it with [`Instant::builder`]; `build` checks positive definiteness
/// by factoring `M` once and drops the factor: the solvers own their
/// factorizations (in their workspaces), so an instant holds no lock and no
/// cache.
///
/// **Structure and values.** The sparsity pattern (of `M`, of the rows, the
/// friction entries) is fixed when the instant is built and carries a
/// [`Instant::structure_id`]; the values can be changed in place by the
/// `set_*` methods, which validate cheaply and refactor nothing. A stepping
/// loop keeps one instant and one backend, updates the values every step,
/// and the backend redoes only the numeric work. Anything that changes the
/// pattern builds a new instant, with a new stamp.
#[derive(Debug, Clone)]
pub struct Instant {
    name: Option<String>,
    mass: CsMat<f64>,
    force: Vec<f64>,
    equalities: Rows,
    /// The order of each equality row (see [`Instant::equality_orders`]).
    equality_orders: Vec<u32>,
    inequalities: Rows,
    sliding: Vec<SlidingContact>,
    /// Where each sliding contact's tangent is not zero (see
    /// [`Instant::tangent_support`]).
    tangent_support: Vec<Vec<usize>>,
    sticking: Vec<StickingContact>,
    /// The structure stamp (see [`Instant::structure_id`]).
    structure: u64,
    /// Value stamps of `M` and of the rows (see [`Instant::mass_values_id`]).
    mass_values: u64,
    row_values: u64,
    /// The transpose positions of `M`'s stored entries, made once per
    /// pattern: the symmetry check of [`Instant::set_mass_values`] in one
    /// pass over the off-diagonal pairs.
    mirror: Arc<Mirror>,
}

/// Where each stored entry of a square compressed-row matrix has its
/// mirror `(j, i)`, in the forms the symmetry check walks.
#[derive(Debug)]
struct Mirror {
    /// For each stored entry, the stored entry of its mirror, or
    /// `usize::MAX` when the mirror is not stored (for the error report).
    of: Vec<usize>,
    /// Each off-diagonal pair `(e, m)` once, `e < m` (storage order).
    pairs: Vec<(usize, usize)>,
    /// Entries whose mirror is not stored (must be zero to the tolerance).
    lonely: Vec<usize>,
}

impl Instant {
    /// Starts an instant from `M` (symmetric, full storage) and `Q`.
    pub fn builder(mass: CsMat<f64>, force: Vec<f64>) -> InstantBuilder {
        InstantBuilder {
            name: None,
            mass,
            force,
            equalities: None,
            equality_orders: None,
            inequalities: None,
            sliding: Vec::new(),
            supports: Vec::new(),
            sticking: Vec::new(),
        }
    }

    /// Number of coordinates `n`.
    pub fn dim(&self) -> usize {
        self.force.len()
    }
    /// Optional label.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    /// The mass matrix `M` (compressed rows, full symmetric storage).
    pub fn mass(&self) -> &CsMat<f64> {
        &self.mass
    }
    /// The applied force `Q`.
    pub fn force(&self) -> &[f64] {
        &self.force
    }
    /// The two-sided rows.
    pub fn equalities(&self) -> &Rows {
        &self.equalities
    }
    /// The order of each equality row, one per row: `2` for a row of
    /// accelerations `A a = b` (every row unless the builder or the file
    /// said otherwise), `k > 2` for a row `A q^(k) = b` on the `k`-th time
    /// derivative of the coordinates (a constraint of higher order, Zhang
    /// et al., arbitrary-order Gauss principle of relative motion
    /// dynamics). `M` and `Q` keep their meaning.
    ///
    /// An instant whose [`Instant::highest_order`] is above 2 has no
    /// minimum to solve for (the generalized compulsion is linear in the
    /// top derivative, so it is only stationary): the QP backends answer
    /// `not_applicable` without reading its rows, and the checker
    /// (`zwang_coulomb::check`) says `stationary_only`.
    pub fn equality_orders(&self) -> &[u32] {
        &self.equality_orders
    }
    /// The highest order of the equality rows; `2` (accelerations) without
    /// rows of higher order, or without rows.
    pub fn highest_order(&self) -> u32 {
        self.equality_orders.iter().copied().fold(2, u32::max)
    }
    /// The unilateral rows.
    pub fn inequalities(&self) -> &Rows {
        &self.inequalities
    }
    /// The rows of a set.
    pub fn rows(&self, set: RowSet) -> &Rows {
        match set {
            RowSet::Equalities => &self.equalities,
            RowSet::Inequalities => &self.inequalities,
        }
    }
    /// Sliding contacts with Coulomb friction.
    pub fn sliding(&self) -> &[SlidingContact] {
        &self.sliding
    }
    /// The coordinates where sliding contact `i`'s tangent may be nonzero:
    /// its nonzeros when the instant was built, or the support given to
    /// [`InstantBuilder::sliding_on`]. Code that walks many contacts need
    /// not scan their dense tangents (`O(k n)` for `k` contacts).
    /// Empty for an index out of range.
    pub fn tangent_support(&self, i: usize) -> &[usize] {
        self.tangent_support.get(i).map_or(&[], Vec::as_slice)
    }
    /// Sticking contacts.
    pub fn sticking(&self) -> &[StickingContact] {
        &self.sticking
    }

    /// The structure stamp: a number that identifies the sparsity pattern
    /// of this instant (of `M`, of both row sets and of the friction
    /// entries). Two instants with the same stamp have the same pattern;
    /// every built instant gets a fresh one, clones and the value setters
    /// keep it. Solvers key their symbolic analyses on it.
    pub fn structure_id(&self) -> u64 {
        self.structure
    }

    /// A stamp of the values of `M`: it changes with every
    /// [`Instant::set_mass_values`] (and is fresh per built instant), so a
    /// solver can tell in `O(1)` that `M` did not change since its last
    /// factorization. Equal stamps mean equal values.
    pub fn mass_values_id(&self) -> u64 {
        self.mass_values
    }

    /// A stamp of the values of both row matrices (not their right-hand
    /// sides), changed by every [`Instant::set_row_values`]; as
    /// [`Instant::mass_values_id`].
    pub fn row_values_id(&self) -> u64 {
        self.row_values
    }

    /// A fresh factorization of `M`, for code that solves with `M` outside
    /// a backend (the reference forms). Fails when the values set by
    /// [`Instant::set_mass_values`] are not positive definite.
    pub fn mass_factor(&self) -> Result<MassFactor, InstantError> {
        MassFactor::new(&self.mass).map_err(|index| InstantError::NotPositiveDefinite { index })
    }

    /// A fresh factorization of `M` that never fails: when `M` is not
    /// positive definite its solves give NaN, which then shows in every
    /// answer computed from them (for reference code with no error path).
    pub fn mass_factor_or_nan(&self) -> MassFactor {
        let mut f = MassFactor::analyze(&self.mass);
        let _ = f.refactor(&self.mass);
        f
    }

    /// Replaces `Q` in place (same length, finite).
    pub fn set_force(&mut self, force: &[f64]) -> Result<(), InstantError> {
        check_values(|| "force".to_string(), force, self.dim())?;
        self.force.copy_from_slice(force);
        Ok(())
    }

    /// Replaces the right-hand side `b` of a row set in place.
    pub fn set_rhs(&mut self, set: RowSet, rhs: &[f64]) -> Result<(), InstantError> {
        let rows = self.rows_mut(set);
        check_values(|| format!("{}.b", set.key()), rhs, rows.rhs.len())?;
        rows.rhs.copy_from_slice(rhs);
        Ok(())
    }

    /// Replaces the values of a row set's matrix in its existing pattern:
    /// `values` lists the stored entries in the order of
    /// `self.rows(set).matrix().data()` (row by row).
    pub fn set_row_values(&mut self, set: RowSet, values: &[f64]) -> Result<(), InstantError> {
        let rows = self.rows_mut(set);
        check_values(|| format!("{}.A", set.key()), values, rows.matrix.nnz())?;
        rows.matrix.data_mut().copy_from_slice(values);
        self.row_values = fresh_structure();
        Ok(())
    }

    /// Writes `Q` in place through `write` (which sees the old values),
    /// then checks it: on a non-finite entry `Q` is zeroed and the error
    /// names it. For models that assemble `Q` without a copy.
    pub fn edit_force(&mut self, write: impl FnOnce(&mut [f64])) -> Result<(), InstantError> {
        write(&mut self.force);
        if all_finite(&self.force) {
            return Ok(());
        }
        let err = check_vector("force", &self.force, self.force.len());
        self.force.fill(0.0);
        err
    }

    /// Writes the values of a row set's matrix (in the order of
    /// `self.rows(set).matrix().data()`) and its right-hand side in place
    /// through `write(values, rhs)`, then checks them: on a non-finite
    /// entry both are zeroed (the instant stays valid) and the error names
    /// it. The pattern does not change.
    pub fn edit_rows(
        &mut self,
        set: RowSet,
        write: impl FnOnce(&mut [f64], &mut [f64]),
    ) -> Result<(), InstantError> {
        let rows = self.rows_mut(set);
        write(rows.matrix.data_mut(), &mut rows.rhs);
        let ok = all_finite(rows.matrix.data()) && all_finite(&rows.rhs);
        let result = if ok {
            Ok(())
        } else {
            let err = check_vector(
                &format!("{}.A", set.key()),
                rows.matrix.data(),
                rows.matrix.nnz(),
            )
            .and_then(|_| check_vector(&format!("{}.b", set.key()), &rows.rhs, rows.rhs.len()));
            rows.matrix.data_mut().fill(0.0);
            rows.rhs.fill(0.0);
            err
        };
        self.row_values = fresh_structure();
        result
    }

    /// Writes sliding contact `i`'s tangent in place through `write` and
    /// sets its slip sign (`+1` or `-1`), then checks the tangent (finite,
    /// zero outside [`Instant::tangent_support`]); on failure it is zeroed
    /// and the error names it.
    pub fn edit_sliding(
        &mut self,
        i: usize,
        slip: f64,
        write: impl FnOnce(&mut [f64]),
    ) -> Result<(), InstantError> {
        let count = self.sliding.len();
        let Some(contact) = self.sliding.get_mut(i) else {
            return Err(InstantError::Friction {
                key: format!("friction[{i}]"),
                what: format!("does not exist ({count} friction entries)"),
            });
        };
        if slip != 1.0 && slip != -1.0 {
            return Err(InstantError::Friction {
                key: format!("friction[{i}].slip"),
                what: format!("must be +1 or -1, found {slip}"),
            });
        }
        write(&mut contact.tangent);
        contact.slip = slip;
        let tangent = &contact.tangent;
        let result = if !all_finite(tangent) {
            check_vector(&format!("friction[{i}].tangent"), tangent, tangent.len())
        } else {
            match first_outside(tangent, &self.tangent_support[i]) {
                Some(j) => Err(outside_support(i, j)),
                None => Ok(()),
            }
        };
        if result.is_err() {
            self.sliding[i].tangent.fill(0.0);
        }
        result
    }

    /// Replaces the tangent and the slip sign of sliding contact `i` in
    /// place. The tangent may be nonzero only on the support fixed when
    /// the instant was built ([`Instant::tangent_support`]); the slip is
    /// `+1` or `-1`. Friction coefficient and normal row stay.
    pub fn set_sliding(
        &mut self,
        i: usize,
        tangent: &[f64],
        slip: f64,
    ) -> Result<(), InstantError> {
        let n = self.dim();
        let Some(contact) = self.sliding.get(i) else {
            return Err(InstantError::Friction {
                key: format!("friction[{i}]"),
                what: format!("does not exist ({} friction entries)", self.sliding.len()),
            });
        };
        debug_assert_eq!(contact.tangent.len(), n);
        check_values(|| format!("friction[{i}].tangent"), tangent, n)?;
        if slip != 1.0 && slip != -1.0 {
            return Err(InstantError::Friction {
                key: format!("friction[{i}].slip"),
                what: format!("must be +1 or -1, found {slip}"),
            });
        }
        if let Some(j) = first_outside(tangent, &self.tangent_support[i]) {
            return Err(outside_support(i, j));
        }
        let contact = &mut self.sliding[i];
        contact.tangent.copy_from_slice(tangent);
        contact.slip = slip;
        Ok(())
    }

    /// Replaces the values of `M` in its existing pattern: `values` lists
    /// the stored entries in the order of `self.mass().data()` (row by
    /// row, full symmetric storage). They must be finite and symmetric (to
    /// the relative tolerance of `build`); positive definiteness is not
    /// checked here (it costs a factorization): a solver given a mass that
    /// is not positive definite reports `numerical_error`.
    pub fn set_mass_values(&mut self, values: &[f64]) -> Result<(), InstantError> {
        if values.len() != self.mass.nnz() {
            return check_vector("mass", values, self.mass.nnz());
        }
        // A branch-free finiteness pass, then one over the off-diagonal
        // pairs only (their largest difference). The scale of the
        // tolerance is needed only when some pair differs at all (values
        // written from a symmetric source match exactly), and the first
        // offending entry is searched for only when there is one.
        if !all_finite(values) {
            return check_vector("mass", values, self.mass.nnz());
        }
        let worst = self.mirror.worst(values);
        if worst > 0.0 {
            let tol = 1e-12 * max_abs(values);
            if worst > tol {
                return Err(self.asymmetry(values, tol));
            }
        }
        self.mass.data_mut().copy_from_slice(values);
        self.mass_values = fresh_structure();
        Ok(())
    }

    /// The error for the first entry (in storage order) of `values` that
    /// differs from its mirror by more than `tol`.
    #[cold]
    fn asymmetry(&self, values: &[f64], tol: f64) -> InstantError {
        let of = &self.mirror.of;
        // Each pair is compared once, from its first entry in storage order
        // (an entry without a mirror must be zero to the tolerance).
        let e = of
            .iter()
            .enumerate()
            .position(|(e, &m)| {
                (m == usize::MAX && values[e].abs() > tol)
                    || (m != usize::MAX && m > e && (values[e] - values[m]).abs() > tol)
            })
            .unwrap_or(0);
        let indptr = self.mass.indptr();
        let row = (0..self.dim())
            .find(|&i| indptr.outer_inds_sz(i).contains(&e))
            .unwrap_or(0);
        let m = of[e];
        InstantError::NotSymmetric {
            row,
            col: self.mass.indices()[e],
            upper: values[e],
            lower: if m == usize::MAX { 0.0 } else { values[m] },
        }
    }

    fn rows_mut(&mut self, set: RowSet) -> &mut Rows {
        match set {
            RowSet::Equalities => &mut self.equalities,
            RowSet::Inequalities => &mut self.inequalities,
        }
    }

    /// `out = M x`.
    pub fn mass_mul_into(&self, x: &[f64], out: &mut [f64]) {
        for (i, row) in self.mass.outer_iterator().enumerate() {
            out[i] = row.iter().map(|(j, &v)| v * x[j]).sum();
        }
    }

    /// Gauss's compulsion `Z = 1/2 (M a - Q)^T M^-1 (M a - Q)` at `a`,
    /// with a factor of this instant's `M` (see [`Instant::mass_factor`]).
    pub fn compulsion(&self, factor: &mut MassFactor, a: &[f64]) -> f64 {
        self.compulsion_into(factor, a, &mut Vec::new(), &mut Vec::new())
    }

    /// [`Instant::compulsion`] with its two work vectors passed in (no
    /// allocation once they have room).
    pub fn compulsion_into(
        &self,
        factor: &mut MassFactor,
        a: &[f64],
        f: &mut Vec<f64>,
        g: &mut Vec<f64>,
    ) -> f64 {
        f.clear();
        f.resize(self.dim(), 0.0);
        self.mass_mul_into(a, f);
        for (fi, q) in f.iter_mut().zip(&self.force) {
            *fi -= q;
        }
        g.clone_from(f);
        factor.solve_in_place(g);
        0.5 * f.iter().zip(g.iter()).map(|(x, y)| x * y).sum::<f64>()
    }

    /// A copy with other constraint rows (friction entries dropped); used by
    /// solvers that work on a subset of the rows. A new pattern: the copy
    /// gets a fresh [`Instant::structure_id`]. The equality rows keep their
    /// orders ([`Instant::equality_orders`]) when there are as many as
    /// before; otherwise they are all of order 2 (accelerations).
    pub fn with_rows(&self, equalities: Rows, inequalities: Rows) -> Instant {
        let equality_orders = if equalities.len() == self.equality_orders.len() {
            self.equality_orders.clone()
        } else {
            vec![2; equalities.len()]
        };
        Instant {
            name: self.name.clone(),
            mass: self.mass.clone(),
            force: self.force.clone(),
            equalities,
            equality_orders,
            inequalities,
            sliding: Vec::new(),
            tangent_support: Vec::new(),
            sticking: Vec::new(),
            structure: fresh_structure(),
            mass_values: self.mass_values,
            row_values: fresh_structure(),
            mirror: Arc::clone(&self.mirror),
        }
    }

    /// A copy whose inequality rows are held as equalities, after the
    /// instant's own (friction entries dropped): the stored entries of the
    /// new equality matrix are those of `A_eq`, then those of `A_in`, in
    /// order, so their values can be copied in place with
    /// [`Instant::edit_rows`]. For projections onto a set of closed
    /// contacts, which sit on their surfaces. A new pattern.
    pub fn with_inequalities_held(&self) -> Instant {
        let (eq, ineq) = (self.equalities.matrix(), self.inequalities.matrix());
        let (m_eq, n) = (eq.rows(), self.dim());
        let indptr: Vec<usize> = eq
            .proper_indptr()
            .iter()
            .copied()
            .chain(ineq.proper_indptr().iter().skip(1).map(|p| p + eq.nnz()))
            .collect();
        let indices: Vec<usize> = eq.indices().iter().chain(ineq.indices()).copied().collect();
        let data: Vec<f64> = eq.data().iter().chain(ineq.data()).copied().collect();
        let rhs: Vec<f64> = self
            .equalities
            .rhs
            .iter()
            .chain(&self.inequalities.rhs)
            .copied()
            .collect();
        let matrix = CsMat::new((m_eq + ineq.rows(), n), indptr, indices, data);
        let mut held = self.with_rows(Rows { matrix, rhs }, Rows::empty(n));
        held.equality_orders = vec![2; held.equalities.len()];
        held
    }

    /// A copy with another applied force (same `M`, same rows, same
    /// structure stamp).
    pub fn with_force(&self, force: Vec<f64>) -> Result<Instant, InstantError> {
        check_vector("force", &force, self.dim())?;
        let mut copy = self.clone();
        copy.force = force;
        Ok(copy)
    }
}

/// Collects the parts of an [`Instant`]; [`InstantBuilder::build`] validates.
#[derive(Debug, Clone)]
pub struct InstantBuilder {
    name: Option<String>,
    mass: CsMat<f64>,
    force: Vec<f64>,
    equalities: Option<(CsMat<f64>, Vec<f64>)>,
    equality_orders: Option<Vec<u32>>,
    inequalities: Option<(CsMat<f64>, Vec<f64>)>,
    sliding: Vec<SlidingContact>,
    /// An explicit support per sliding contact (`None`: its nonzeros).
    supports: Vec<Option<Vec<usize>>>,
    sticking: Vec<StickingContact>,
}

impl InstantBuilder {
    /// A label.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Two-sided rows `A a = b`.
    pub fn equalities(mut self, a: CsMat<f64>, b: Vec<f64>) -> Self {
        self.equalities = Some((a, b));
        self
    }
    /// The order of each equality row (see [`Instant::equality_orders`]):
    /// one integer `>= 2` per row, `2` for accelerations. Without this
    /// call every row is of order 2.
    pub fn equality_orders(mut self, orders: Vec<u32>) -> Self {
        self.equality_orders = Some(orders);
        self
    }
    /// Unilateral rows `A a >= b`.
    pub fn inequalities(mut self, a: CsMat<f64>, b: Vec<f64>) -> Self {
        self.inequalities = Some((a, b));
        self
    }
    /// A sliding contact with Coulomb friction.
    pub fn sliding(mut self, contact: SlidingContact) -> Self {
        self.sliding.push(contact);
        self.supports.push(None);
        self
    }
    /// A sliding contact whose tangent may be nonzero at the coordinates
    /// `support` (and only there): the pattern [`Instant::set_sliding`]
    /// keeps. A model whose tangent entries pass through zero as it moves
    /// gives the support it needs, since the nonzeros of the first values
    /// may be fewer.
    pub fn sliding_on(mut self, contact: SlidingContact, support: Vec<usize>) -> Self {
        self.sliding.push(contact);
        self.supports.push(Some(support));
        self
    }
    /// A sticking contact.
    pub fn sticking(mut self, contact: StickingContact) -> Self {
        self.sticking.push(contact);
        self
    }

    /// Validates everything once: shapes, finiteness, symmetry, positive
    /// definiteness (by factoring `M`), and the friction entries.
    pub fn build(self) -> Result<Instant, InstantError> {
        let n = self.mass.rows();
        if n == 0 && self.mass.cols() == 0 {
            return Err(InstantError::Empty);
        }
        if self.mass.cols() != n {
            return Err(InstantError::Dimension {
                key: "mass".into(),
                what: format!("must be square, found {} x {}", n, self.mass.cols()),
            });
        }
        let mass = self.mass.to_csr();
        check_matrix(|| "mass".into(), &mass)?;
        check_symmetric(&mass)?;
        check_vector("force", &self.force, n)?;
        let equalities = make_rows("equalities", self.equalities, n)?;
        let equality_orders = make_orders(self.equality_orders, equalities.len())?;
        let inequalities = make_rows("inequalities", self.inequalities, n)?;
        // Positive definiteness, checked by factoring once; the factor is
        // dropped (the solvers keep their own).
        MassFactor::new(&mass).map_err(|index| InstantError::NotPositiveDefinite { index })?;
        let mirror = mirror_entries(&mass);
        let instant = Instant {
            name: self.name,
            mass,
            force: self.force,
            equalities,
            equality_orders,
            inequalities,
            sliding: self.sliding,
            tangent_support: Vec::new(),
            sticking: self.sticking,
            structure: fresh_structure(),
            mass_values: fresh_structure(),
            row_values: fresh_structure(),
            mirror,
        };
        check_contacts(&instant)?;
        let mut instant = instant;
        let mut supports = Vec::with_capacity(instant.sliding.len());
        for (k, (c, given)) in instant.sliding.iter().zip(self.supports).enumerate() {
            let support = match given {
                Some(mut s) => {
                    s.sort_unstable();
                    s.dedup();
                    if let Some(&j) = s.iter().find(|&&j| j >= n) {
                        return Err(InstantError::Friction {
                            key: format!("friction[{k}].support"),
                            what: format!("coordinate {j} does not exist (n = {n})"),
                        });
                    }
                    if let Some(j) = first_outside(&c.tangent, &s) {
                        return Err(outside_support(k, j));
                    }
                    s
                }
                None => (0..n).filter(|&j| c.tangent[j] != 0.0).collect(),
            };
            supports.push(support);
        }
        instant.tangent_support = supports;
        Ok(instant)
    }
}

impl RowSet {
    /// The key of the instant file (`equalities`, `inequalities`).
    pub fn key(self) -> &'static str {
        match self {
            RowSet::Equalities => "equalities",
            RowSet::Inequalities => "inequalities",
        }
    }
}

impl Mirror {
    /// The largest difference of a pair (or value of an entry without a
    /// mirror), in four independent lanes (a single running maximum is a
    /// chain of compares, bound by their latency).
    fn worst(&self, values: &[f64]) -> f64 {
        let mut w = [0.0f64; 4];
        let chunks = self.pairs.chunks_exact(4);
        let rest = chunks.remainder();
        for c in chunks {
            for k in 0..4 {
                let d = (values[c[k].0] - values[c[k].1]).abs();
                w[k] = if d > w[k] { d } else { w[k] };
            }
        }
        let rest = rest.iter().map(|&(e, m)| (values[e] - values[m]).abs());
        let lonely = self.lonely.iter().map(|&e| values[e].abs());
        w.into_iter()
            .chain(rest)
            .chain(lonely)
            .fold(0.0f64, |w, d| if d > w { d } else { w })
    }
}

/// The mirror positions of the stored entries of a compressed-row square
/// matrix.
fn mirror_entries(m: &CsMat<f64>) -> Arc<Mirror> {
    let indptr = m.indptr();
    let indices = m.indices();
    let mut of = vec![usize::MAX; indices.len()];
    let (mut pairs, mut lonely) = (Vec::new(), Vec::new());
    for (i, range) in indptr.iter_outer_sz().enumerate() {
        for e in range {
            let j = indices[e];
            let r = indptr.outer_inds_sz(j);
            let row = &indices[r.clone()];
            if let Ok(p) = row.binary_search(&i) {
                of[e] = r.start + p;
                if of[e] > e {
                    pairs.push((e, of[e]));
                }
            } else {
                lonely.push(e);
            }
        }
    }
    Arc::new(Mirror { of, pairs, lonely })
}

/// Builds a compressed-row matrix from zero-based triplets (duplicates are
/// summed). Out-of-range indices are an error naming `key`.
pub fn matrix_from_triplets(
    key: &str,
    shape: (usize, usize),
    triplets: impl IntoIterator<Item = (usize, usize, f64)>,
) -> Result<CsMat<f64>, InstantError> {
    let mut t = TriMat::new(shape);
    for (k, (i, j, v)) in triplets.into_iter().enumerate() {
        if i >= shape.0 || j >= shape.1 {
            return Err(InstantError::Dimension {
                key: key.into(),
                what: format!(
                    "triplet {k} at ({i}, {j}) is outside the shape {} x {}",
                    shape.0, shape.1
                ),
            });
        }
        t.add_triplet(i, j, v);
    }
    Ok(t.to_csr())
}

fn make_rows(
    key: &str,
    rows: Option<(CsMat<f64>, Vec<f64>)>,
    n: usize,
) -> Result<Rows, InstantError> {
    let Some((a, b)) = rows else {
        return Ok(Rows::empty(n));
    };
    // The keys are made for errors only.
    let akey = || format!("{key}.A");
    if a.cols() != n && !(a.rows() == 0 && b.is_empty()) {
        return Err(InstantError::Dimension {
            key: akey(),
            what: format!(
                "has {} columns, expected {n} (the size of `mass`)",
                a.cols()
            ),
        });
    }
    let a = if a.cols() == n {
        a.into_csr()
    } else {
        CsMat::zero((0, n))
    };
    check_matrix(akey, &a)?;
    check_values(|| format!("{key}.b"), &b, a.rows())?;
    Ok(Rows { matrix: a, rhs: b })
}

/// The orders of `rows` equality rows: all 2 when none are given; else one
/// per row, each `>= 2`.
fn make_orders(orders: Option<Vec<u32>>, rows: usize) -> Result<Vec<u32>, InstantError> {
    let Some(orders) = orders else {
        return Ok(vec![2; rows]);
    };
    if orders.len() != rows {
        return Err(InstantError::Dimension {
            key: "equalities.order".into(),
            what: format!(
                "has length {}, but there are {rows} equality rows",
                orders.len()
            ),
        });
    }
    if let Some((i, k)) = orders.iter().enumerate().find(|(_, &k)| k < 2) {
        return Err(InstantError::Order {
            key: format!("equalities.order[{i}]"),
            what: format!("must be an integer >= 2 (2: a row of accelerations), found {k}"),
        });
    }
    Ok(orders)
}

fn check_matrix(key: impl Fn() -> String, m: &CsMat<f64>) -> Result<(), InstantError> {
    for (i, row) in m.outer_iterator().enumerate() {
        for (j, &v) in row.iter() {
            if !v.is_finite() {
                return Err(InstantError::NonFinite {
                    key: key(),
                    position: format!("[{i}, {j}]"),
                    value: v,
                });
            }
        }
    }
    Ok(())
}

/// [`check_vector`] with the key made only on failure, so that the value
/// setters allocate nothing.
/// The first nonzero entry of `tangent` outside the sorted `support`.
fn first_outside(tangent: &[f64], support: &[usize]) -> Option<usize> {
    let mut next = support.iter().peekable();
    for (j, &x) in tangent.iter().enumerate() {
        if next.peek() == Some(&&j) {
            next.next();
        } else if x != 0.0 {
            return Some(j);
        }
    }
    None
}

fn outside_support(k: usize, j: usize) -> InstantError {
    InstantError::Friction {
        key: format!("friction[{k}].tangent"),
        what: format!("entry {j} is nonzero outside the support fixed when the instant was built"),
    }
}

fn check_values(key: impl Fn() -> String, v: &[f64], len: usize) -> Result<(), InstantError> {
    if v.len() == len && all_finite(v) {
        return Ok(());
    }
    check_vector(&key(), v, len)
}

/// Whether every entry is finite, without a branch per entry: `x - x` is
/// zero for a finite `x` and NaN otherwise, summed in independent lanes
/// (which the compiler keeps in vector registers).
#[allow(clippy::eq_op)] // `x - x` is the point: NaN exactly when `x` is not finite.
fn all_finite(v: &[f64]) -> bool {
    let mut acc = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            acc[k] += c[k] - c[k];
        }
    }
    let tail: f64 = rest.iter().map(|x| x - x).sum();
    acc.iter().sum::<f64>() + tail == 0.0
}

/// The largest `|x|` (of finite entries), in independent lanes.
fn max_abs(v: &[f64]) -> f64 {
    let mut max = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            let a = c[k].abs();
            max[k] = if a > max[k] { a } else { max[k] };
        }
    }
    max.iter()
        .chain(rest)
        .fold(0.0f64, |m, &x| if x.abs() > m { x.abs() } else { m })
}

fn check_vector(key: &str, v: &[f64], len: usize) -> Result<(), InstantError> {
    if v.len() != len {
        return Err(InstantError::Dimension {
            key: key.into(),
            what: format!("has length {}, expected {len}", v.len()),
        });
    }
    if let Some((i, &x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(InstantError::NonFinite {
            key: key.into(),
            position: format!("[{i}]"),
            value: x,
        });
    }
    Ok(())
}

/// Symmetric to a relative tolerance of 1e-12 of the largest entry (so a
/// matrix written out with round-off still passes).
fn check_symmetric(m: &CsMat<f64>) -> Result<(), InstantError> {
    let scale = m.data().iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let tol = 1e-12 * scale;
    let t = m.transpose_view().to_csr();
    for (i, row) in m.outer_iterator().enumerate() {
        let trow = t.outer_view(i).expect("square");
        // Compare the two sparse rows entry by entry.
        let (mut a, mut b) = (row.iter().peekable(), trow.iter().peekable());
        loop {
            let (ja, va, jb, vb) = match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some(&(ja, &va)), None) => (ja, va, ja, 0.0),
                (None, Some(&(jb, &vb))) => (jb, 0.0, jb, vb),
                (Some(&(ja, &va)), Some(&(jb, &vb))) => (ja, va, jb, vb),
            };
            let (j, x, y) = if ja == jb {
                a.next();
                b.next();
                (ja, va, vb)
            } else if ja < jb {
                a.next();
                (ja, va, 0.0)
            } else {
                b.next();
                (jb, 0.0, vb)
            };
            if (x - y).abs() > tol {
                return Err(InstantError::NotSymmetric {
                    row: i,
                    col: j,
                    upper: x,
                    lower: y,
                });
            }
        }
    }
    Ok(())
}

fn check_contacts(instant: &Instant) -> Result<(), InstantError> {
    let n = instant.dim();
    let check_ref = |key: String, r: RowRef| {
        let len = instant.rows(r.set).len();
        if r.row >= len {
            return Err(InstantError::Friction {
                key,
                what: format!("row {} does not exist (the set has {len} rows)", r.row),
            });
        }
        Ok(())
    };
    let check_mu = |key: String, mu: f64| {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(InstantError::Friction {
                key,
                what: format!("must be a finite number >= 0, found {mu}"),
            });
        }
        Ok(())
    };
    for (k, c) in instant.sliding.iter().enumerate() {
        check_ref(format!("friction[{k}].normal.row"), c.normal)?;
        check_mu(format!("friction[{k}].mu"), c.mu)?;
        check_vector(&format!("friction[{k}].tangent"), &c.tangent, n)?;
        if c.slip != 1.0 && c.slip != -1.0 {
            return Err(InstantError::Friction {
                key: format!("friction[{k}].slip"),
                what: format!("must be +1 or -1, found {}", c.slip),
            });
        }
    }
    for (k, c) in instant.sticking.iter().enumerate() {
        check_ref(format!("sticking[{k}].normal.row"), c.normal)?;
        check_mu(format!("sticking[{k}].mu"), c.mu)?;
        check_ref(
            format!("sticking[{k}].tangent.row"),
            RowRef {
                set: RowSet::Equalities,
                row: c.tangent_row,
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[[4, 1, 0], [1, 4, 2], [0, 2, 4]]` in full storage (stored entries
    /// in row order: 4 1 | 1 4 2 | 2 4).
    fn instant() -> Instant {
        let m = matrix_from_triplets(
            "mass",
            (3, 3),
            [
                (0, 0, 4.0),
                (0, 1, 1.0),
                (1, 0, 1.0),
                (1, 1, 4.0),
                (1, 2, 2.0),
                (2, 1, 2.0),
                (2, 2, 4.0),
            ],
        )
        .unwrap();
        Instant::builder(m, vec![0.0; 3]).build().unwrap()
    }

    /// A friction entry on a floor row, tangent `(1, 0, 0)` at first but
    /// allowed on coordinates 0 and 2 (`sliding_on`).
    fn sliding_instant() -> Instant {
        let m =
            matrix_from_triplets("mass", (3, 3), [(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0)]).unwrap();
        let floor = matrix_from_triplets("in", (1, 3), [(0, 1, 1.0)]).unwrap();
        let contact = SlidingContact {
            normal: RowRef {
                set: RowSet::Inequalities,
                row: 0,
            },
            tangent: vec![1.0, 0.0, 0.0],
            mu: 0.5,
            slip: 1.0,
        };
        Instant::builder(m, vec![0.0, -1.0, 0.0])
            .inequalities(floor, vec![0.0])
            .sliding_on(contact, vec![2, 0])
            .build()
            .unwrap()
    }

    #[test]
    fn sliding_setters_keep_the_given_support() {
        let mut inst = sliding_instant();
        assert_eq!(inst.tangent_support(0), &[0, 2]);
        let stamp = inst.structure_id();
        inst.set_sliding(0, &[0.5, 0.0, -0.25], -1.0).unwrap();
        assert_eq!(inst.sliding()[0].tangent, vec![0.5, 0.0, -0.25]);
        assert_eq!(inst.sliding()[0].slip, -1.0);
        assert_eq!(inst.structure_id(), stamp);
        // Outside the support, a bad slip, a missing entry: errors.
        let e = inst.set_sliding(0, &[0.5, 1.0, 0.0], 1.0).unwrap_err();
        assert!(
            e.to_string()
                .contains("entry 1 is nonzero outside the support"),
            "{e}"
        );
        assert!(inst.set_sliding(0, &[0.5, 0.0, 0.0], 0.5).is_err());
        assert!(inst.set_sliding(1, &[0.5, 0.0, 0.0], 1.0).is_err());
        assert_eq!(inst.sliding()[0].tangent, vec![0.5, 0.0, -0.25]);
        // In place: a bad write is zeroed, never kept.
        let e = inst.edit_sliding(0, 1.0, |t| t[1] = 3.0).unwrap_err();
        assert!(e.to_string().contains("outside the support"), "{e}");
        assert_eq!(inst.sliding()[0].tangent, vec![0.0; 3]);
        inst.edit_sliding(0, 1.0, |t| t.copy_from_slice(&[0.0, 0.0, 2.0]))
            .unwrap();
        assert_eq!(inst.sliding()[0].tangent, vec![0.0, 0.0, 2.0]);
        // A support that names a coordinate that does not exist.
        let m = matrix_from_triplets("mass", (1, 1), [(0, 0, 1.0)]).unwrap();
        let row = matrix_from_triplets("in", (1, 1), [(0, 0, 1.0)]).unwrap();
        let c = SlidingContact {
            normal: RowRef {
                set: RowSet::Inequalities,
                row: 0,
            },
            tangent: vec![1.0],
            mu: 0.1,
            slip: 1.0,
        };
        let built = Instant::builder(m, vec![0.0])
            .inequalities(row, vec![0.0])
            .sliding_on(c, vec![0, 4])
            .build();
        assert!(built
            .unwrap_err()
            .to_string()
            .contains("coordinate 4 does not exist"));
    }

    #[test]
    fn row_and_force_edits_check_what_they_wrote() {
        let mut inst = sliding_instant();
        let stamp = inst.row_values_id();
        inst.edit_rows(RowSet::Inequalities, |a, b| {
            a[0] = 2.0;
            b[0] = 1.0;
        })
        .unwrap();
        assert_ne!(inst.row_values_id(), stamp);
        assert_eq!(inst.inequalities().matrix().data(), &[2.0]);
        assert_eq!(inst.inequalities().rhs(), &[1.0]);
        let e = inst
            .edit_rows(RowSet::Inequalities, |_, b| b[0] = f64::NAN)
            .unwrap_err();
        assert!(e.to_string().contains("inequalities.b"), "{e}");
        assert_eq!(inst.inequalities().rhs(), &[0.0]);
        inst.edit_force(|q| q[2] = 4.0).unwrap();
        assert_eq!(inst.force(), &[0.0, -1.0, 4.0]);
        assert!(inst.edit_force(|q| q[0] = f64::INFINITY).is_err());
        assert_eq!(inst.force(), &[0.0; 3]);
    }

    #[test]
    fn mass_setter_validates_values() {
        let mut inst = instant();
        let good = [4.0, 1.0, 1.0, 4.0, 2.0, 2.0, 4.0];
        let stamp = inst.mass_values_id();
        inst.set_mass_values(&good).unwrap();
        assert_ne!(inst.mass_values_id(), stamp);
        // Within the relative tolerance (1e-12 of the largest entry).
        let mut close = good;
        close[5] += 1e-12;
        inst.set_mass_values(&close).unwrap();
        // Beyond it: the first entry of the pair, in storage order.
        let mut far = good;
        far[5] += 1e-9;
        let stamp = inst.mass_values_id();
        match inst.set_mass_values(&far) {
            Err(InstantError::NotSymmetric {
                row,
                col,
                upper,
                lower,
            }) => assert_eq!((row, col, upper, lower), (1, 2, 2.0, 2.0 + 1e-9)),
            other => panic!("{other:?}"),
        }
        // NaN and a wrong length are typed errors; nothing is changed.
        let mut nan = good;
        nan[3] = f64::NAN;
        assert!(matches!(
            inst.set_mass_values(&nan),
            Err(InstantError::NonFinite { .. })
        ));
        assert!(matches!(
            inst.set_mass_values(&good[..6]),
            Err(InstantError::Dimension { .. })
        ));
        assert_eq!(inst.mass_values_id(), stamp);
        assert_eq!(inst.mass().data(), &close);
    }

    #[test]
    fn finiteness_and_scale_in_lanes() {
        for len in [0, 1, 7, 8, 9, 17, 40] {
            let mut v: Vec<f64> = (0..len).map(|i| (i as f64) - 3.5).collect();
            assert!(all_finite(&v));
            let want = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            assert_eq!(max_abs(&v), want);
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                for i in 0..len {
                    let keep = v[i];
                    v[i] = bad;
                    assert!(!all_finite(&v), "{len} {i} {bad}");
                    v[i] = keep;
                }
            }
        }
    }
}
