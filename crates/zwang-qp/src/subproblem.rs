//! The equality-constrained subproblem every fast path reduces to:
//!
//! ```text
//! minimize 1/2 a^T M a - Q^T a   subject to  A_F a = b_F
//! ```
//!
//! for a selection `F` of the instant's rows (all equalities for the
//! direct backend, equalities plus the active contacts for the active-set
//! backend). Two methods, chosen by cost once per structure stamp:
//!
//! - **Schur**: when `M` is block diagonal with small blocks, `M^-1` is block
//!   diagonal too, so `S = A M^-1 A^T` is sparse. `S` is formed once per
//!   instant for all rows (its pattern, once per sparsity pattern), and each
//!   selection factors its principal submatrix `S_FF`.
//! - **KKT**: the quasi-definite system `[M A_F^T; A_F -delta I]` by sparse
//!   `LDL^T` (no pivoting needed).
//!
//! Block diagonality is necessary for the Schur path but not sufficient:
//! many rows on one body (a plate resting on 800 particles) make `S` dense
//! in those rows, while the KKT system, ordered by AMD, eliminates the
//! particles first and stays sparse. So the Schur path is taken only when
//! its cost (the entries of `S`'s Cholesky factor plus the products that
//! form `S`) is at most twice the fill of the KKT factor, both from faer's
//! symbolic analysis with AMD ordering. The analysis happens once per
//! structure stamp ([`Instant::structure_id`]); every later instant with
//! the same stamp does numeric work only and allocates nothing.
//!
//! Both equilibrate (rows of `S` to unit diagonal, or a Jacobi scaling of
//! the KKT system), so the answer does not depend on the units, and both
//! add a tiny regularization `delta` and remove it again by proximal-point
//! refinement `lambda_{k+1} = (S + delta I)^-1 (r + delta lambda_k)`. On
//! redundant but consistent rows that refinement converges to the
//! minimum-norm multipliers *of the equilibrated rows* (each row of
//! `A M^-1/2` scaled to unit length): the plain minimum-norm choice would
//! depend on the units each row is written in, this one does not. Rows
//! `r, r, 2r` carrying a force `F r` therefore get `(2, 2, 1) F / 6`, where the
//! unscaled minimum norm gives `(1, 1, 2) F / 6`. On inconsistent rows the
//! residual stagnates, which is how inconsistency is detected; the
//! acceleration is then the least-squares compromise, and the multipliers
//! grow along the inconsistent direction and carry no meaning.

use zwang_instant::dense;
use zwang_instant::sparse_cholesky::SparseCholesky;
use zwang_instant::{Instant, MassFactor};

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

/// Regularization on the equilibrated system (unit-diagonal scale).
const DELTA: f64 = 1e-10;
/// Largest refinement count.
const MAX_REFINE: usize = 12;
/// Relative residual under which rows count as satisfied.
pub(crate) const FEAS_TOL: f64 = 1e-9;
/// Selections up to this size are factored densely.
const DENSE_MAX: usize = 40;
/// On the dense path, a factorization without regularization is kept when
/// every pivot of the unit-diagonal `S_FF` is at least this (rows far from
/// redundant): one solve is then exact and no refinement is needed.
const HEALTHY_PIVOT: f64 = 1e-4;

/// The instant's rows as one flat table, equalities first, then
/// inequalities: filled once per instant so that the inner loops run over
/// plain slices.
#[derive(Debug, Default)]
pub(crate) struct AllRows {
    ptr: Vec<usize>,
    idx: Vec<usize>,
    val: Vec<f64>,
    rhs: Vec<f64>,
    /// Largest `|A_kj|` of each row.
    amax: Vec<f64>,
    /// The row values of the previous fill, to tell whether they changed.
    prev_val: Vec<f64>,
    pub m_eq: usize,
}

impl AllRows {
    /// Refills the table from `instant`, keeping the allocations; with
    /// `same_structure` (the stamp did not change) only the values and
    /// right-hand sides are copied, the pattern is kept. Returns whether
    /// the row values differ from the previous fill's.
    fn fill(&mut self, instant: &Instant, same_structure: bool) -> bool {
        if !same_structure {
            self.ptr.clear();
            self.idx.clear();
            self.ptr.push(0);
            for rows in [instant.equalities(), instant.inequalities()] {
                for row in rows.matrix().outer_iterator() {
                    self.idx.extend_from_slice(row.indices());
                    self.ptr.push(self.idx.len());
                }
            }
            self.prev_val.clear();
        }
        self.m_eq = instant.equalities().len();
        self.rhs.clear();
        self.rhs.extend_from_slice(instant.equalities().rhs());
        self.rhs.extend_from_slice(instant.inequalities().rhs());
        let (eq, ineq) = (
            instant.equalities().matrix().data(),
            instant.inequalities().matrix().data(),
        );
        let changed = self.prev_val.len() != eq.len() + ineq.len()
            || self.prev_val[..eq.len()] != *eq
            || self.prev_val[eq.len()..] != *ineq;
        if changed {
            self.val.clear();
            self.val.extend_from_slice(eq);
            self.val.extend_from_slice(ineq);
            self.prev_val.clone_from(&self.val);
            self.amax.clear();
            for k in 0..self.ptr.len() - 1 {
                let v = &self.val[self.ptr[k]..self.ptr[k + 1]];
                self.amax.push(v.iter().fold(0.0f64, |x, v| x.max(v.abs())));
            }
        }
        changed
    }
    /// Refills only the right-hand sides (the row values are known to be
    /// the ones already held).
    fn fill_rhs(&mut self, instant: &Instant) {
        self.rhs.clear();
        self.rhs.extend_from_slice(instant.equalities().rhs());
        self.rhs.extend_from_slice(instant.inequalities().rhs());
    }
    pub fn len(&self) -> usize {
        self.rhs.len()
    }
    /// Column indices and values of row `k`.
    #[inline]
    pub fn row(&self, k: usize) -> (&[usize], &[f64]) {
        let r = self.ptr[k]..self.ptr[k + 1];
        (&self.idx[r.clone()], &self.val[r])
    }
    #[inline]
    pub fn rhs(&self, k: usize) -> f64 {
        self.rhs[k]
    }
    #[inline]
    pub fn dot(&self, k: usize, x: &[f64]) -> f64 {
        let (idx, val) = self.row(k);
        idx.iter().zip(val).map(|(&j, v)| v * x[j]).sum()
    }
    /// The scale that row `k`'s residual is measured against: `a_inf`
    /// should be the larger of `|a|` and `|M^-1 Q|`, so that a row whose
    /// terms cancel (a body at rest under load) is not measured against zero.
    #[inline]
    pub fn scale(&self, k: usize, a_inf: f64) -> f64 {
        (self.amax[k] * a_inf)
            .max(self.rhs[k].abs())
            .max(f64::MIN_POSITIVE)
    }
}

/// The outcome of one subproblem solve.
#[derive(Debug, Default)]
pub(crate) struct SubResult {
    /// Whether the selected rows are satisfied to `FEAS_TOL` (else they are
    /// inconsistent, and `a` is the least-squares compromise).
    pub consistent: bool,
    /// Refinement steps taken.
    pub refinements: usize,
    /// Whether the factorization broke down.
    pub failed: bool,
}

/// Solves equality subproblems for one instant after another. It owns the
/// whole workspace: the factor of `M`, the Schur or KKT factors and every
/// buffer, analysed once per structure stamp and refactored per instant.
#[derive(Debug, Default)]
pub(crate) struct SubproblemSolver {
    /// The structure stamp the symbolic work below belongs to (0: none).
    structure: u64,
    /// The value stamps of `M` and of the rows the numeric work belongs to
    /// (0: none), so that unchanged values are recognised in `O(1)`.
    mass_values: u64,
    row_values: u64,
    mass: Option<MassFactor>,
    rows: AllRows,
    schur: Option<Schur>,
    kkt: Option<Kkt>,
    /// `M^-1 Q`, the unconstrained acceleration.
    a_free: Vec<f64>,
    /// Selected-row buffers.
    rhs: Vec<f64>,
    res: Vec<f64>,
    step: Vec<f64>,
}

impl SubproblemSolver {
    /// Prepares for `instant`: the factor of `M`, the unconstrained
    /// acceleration and, on the Schur path, the numeric `S` for all rows.
    /// Call once per instant. Returns `false` when `M` is not positive
    /// definite (its values were set in place): nothing can be solved.
    pub fn prepare(&mut self, instant: &Instant) -> bool {
        let n = instant.dim();
        let fresh = self.structure != instant.structure_id() || self.mass.is_none();
        let rows_known = !fresh && self.row_values == instant.row_values_id();
        let rows_changed = if rows_known {
            self.rows.fill_rhs(instant);
            false
        } else {
            self.rows.fill(instant, !fresh)
        };
        self.row_values = instant.row_values_id();
        if fresh {
            self.structure = 0;
            self.schur = None;
            self.kkt = None;
            self.mass = Some(MassFactor::analyze(instant.mass()));
        }
        let mass = self.mass.as_mut().expect("just set");
        // S (and the factor of the last selection) depend on the values of
        // M and of the rows only: when neither changed (a constant mass,
        // rows that did not move), they are kept.
        let mass_known =
            !fresh && self.mass_values == instant.mass_values_id() && mass.is_factored();
        let (ok, mass_changed) = if mass_known {
            (true, false)
        } else {
            match mass.update(instant.mass()) {
                Ok(changed) => (true, changed),
                Err(_) => (false, true),
            }
        };
        self.mass_values = if ok { instant.mass_values_id() } else { 0 };
        let same_values = !fresh && !rows_changed && !mass_changed;
        if fresh {
            // The choice of path needs only the pattern.
            let (schur, kkt) = choose_path(instant, &self.rows, mass);
            self.schur = schur;
            self.kkt = kkt;
            self.structure = instant.structure_id();
        }
        self.a_free.clear();
        self.a_free.extend_from_slice(instant.force());
        if !ok {
            self.a_free.fill(f64::NAN);
            return false;
        }
        mass.solve_in_place(&mut self.a_free);
        if let Some(schur) = self.schur.as_mut() {
            debug_assert_eq!(schur.n, n);
            if !same_values {
                schur.numeric(&self.rows, mass);
            }
        }
        if let Some(kkt) = self.kkt.as_mut() {
            kkt.valid &= same_values;
        }
        true
    }

    /// `|M^-1 Q|`, the acceleration scale rows are measured against.
    pub fn free_scale(&self) -> f64 {
        inf_norm(&self.a_free)
    }

    /// The rows of the prepared instant.
    pub fn rows(&self) -> &AllRows {
        &self.rows
    }

    /// The free acceleration `M^-1 Q` of the prepared instant.
    pub fn free(&self) -> &[f64] {
        &self.a_free
    }

    /// Solves the subproblem on the rows `sel` (indices into [`AllRows`],
    /// sorted). Writes the acceleration into `a` and the multipliers of the
    /// selected rows into `lambda` (same order as `sel`).
    pub fn solve(
        &mut self,
        instant: &Instant,
        sel: &[usize],
        a: &mut Vec<f64>,
        lambda: &mut Vec<f64>,
    ) -> SubResult {
        let rows = &self.rows;
        let k = sel.len();
        a.clear();
        a.extend_from_slice(&self.a_free);
        lambda.clear();
        lambda.resize(k, 0.0);
        if k == 0 {
            return SubResult {
                consistent: true,
                ..Default::default()
            };
        }
        let mut result = SubResult::default();
        let mut exact = false;
        if let Some(schur) = self.schur.as_mut() {
            match schur.factor(sel) {
                Ok(e) => exact = e,
                Err(()) => {
                    result.failed = true;
                    return result;
                }
            }
        } else {
            let Some(kkt) = self.kkt.as_mut() else {
                result.failed = true;
                return result;
            };
            if kkt.factor(instant, rows, sel).is_err() {
                result.failed = true;
                return result;
            }
        }
        // Proximal refinement on the primal residual r = b_F - A_F a.
        self.rhs.resize(k, 0.0);
        self.res.resize(k, 0.0);
        let mut prev = f64::INFINITY;
        let free_inf = inf_norm(&self.a_free);
        for it in 0..MAX_REFINE {
            let a_inf = inf_norm(a).max(free_inf);
            let mut worst = 0.0f64;
            for (t, &r) in sel.iter().enumerate() {
                self.res[t] = rows.rhs(r) - rows.dot(r, a);
                let w = self.res[t].abs() / rows.scale(r, a_inf);
                worst = if w > worst { w } else { worst };
            }
            result.refinements = it;
            result.consistent = worst <= FEAS_TOL;
            // Stop at round-off, or when refinement stops paying (an
            // inconsistent selection stagnates at its least-squares residual).
            if worst <= 1e-14 || worst > 0.5 * prev {
                break;
            }
            prev = worst;
            self.step.clear();
            self.step.extend_from_slice(&self.res[..k]);
            if let Some(schur) = self.schur.as_mut() {
                schur.solve(sel, &mut self.step);
                for t in 0..k {
                    lambda[t] += self.step[t];
                }
                schur.add_correction(sel, &self.step, a);
                if exact {
                    // Unregularized and well conditioned: one solve is the
                    // answer to round-off, and independent rows are always
                    // consistent.
                    result.consistent = true;
                    break;
                }
            } else if let Some(kkt) = self.kkt.as_mut() {
                kkt.refine(instant, rows, sel, &self.res[..k], a, lambda);
            }
        }
        result
    }
}

/// The Schur path or the KKT path for `instant`'s pattern, by cost (see the
/// module docs). Exactly one of the two is `Some`.
fn choose_path(
    instant: &Instant,
    rows: &AllRows,
    mass: &MassFactor,
) -> (Option<Schur>, Option<Kkt>) {
    let n = instant.dim();
    let Some(starts) = mass.block_starts() else {
        return (None, Some(Kkt::default()));
    };
    if rows.len() == 0 {
        return (Some(Schur::analyze(rows, starts, n)), None);
    }
    // The KKT system for all rows, analysed (kept: the direct backend
    // selects all rows, so the analysis is reused by its first solve).
    let all: Vec<usize> = (0..rows.len()).collect();
    let mut kkt = Kkt::default();
    kkt.analyze(instant, rows, &all);
    let kkt_cost = kkt.chol.as_ref().map_or(usize::MAX, |c| c.factor_nnz());
    // A cheap bound first: the products that form S (rows sharing a
    // block, pairwise). When that alone is far above the KKT fill, S is
    // not even formed.
    let mut per_block = vec![0usize; starts.len() - 1];
    for k in 0..rows.len() {
        let (idx, _) = rows.row(k);
        let mut last = usize::MAX;
        for &j in idx {
            let b = starts.partition_point(|&s| s <= j) - 1;
            if b != last {
                per_block[b] += 1;
                last = b;
            }
        }
    }
    let products: usize = per_block.iter().map(|&r| r * (r + 1) / 2).sum();
    if products > 2 * kkt_cost {
        return (None, Some(kkt));
    }
    let schur = Schur::analyze(rows, starts, n);
    let m = rows.len();
    let s_pattern =
        SymbolicSparseColMatRef::new_checked(m, m, &schur.s_colptr, None, &schur.s_rowidx);
    let schur_cost = SparseCholesky::analyze(s_pattern).factor_nnz() + schur.contrib.len();
    if schur_cost <= 2 * kkt_cost {
        (Some(schur), None)
    } else {
        (None, Some(kkt))
    }
}

// ---------------------------------------------------------------------------
// Schur complement for block-diagonal masses.

/// A row's restriction to one diagonal block of `M`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    block: usize,
    block_start: usize,
    len: usize,
    /// Offset into the flat `seg_a` / `seg_w` arrays.
    off: usize,
}

#[derive(Debug)]
struct Schur {
    // Symbolic: depends only on the pattern of the rows and the blocks.
    n: usize,
    segments: Vec<Segment>,
    /// Segments of row `k`: `row_segs[k]..row_segs[k + 1]`.
    row_segs: Vec<usize>,
    /// Upper triangle of `S` (all rows), compressed columns.
    s_colptr: Vec<usize>,
    s_rowidx: Vec<usize>,
    /// `S[idx] += seg_a[p] . seg_w[q]` for each `(p, q, idx)`.
    contrib: Vec<(u32, u32, u32)>,
    // Numeric, per instant.
    seg_a: Vec<f64>,
    seg_w: Vec<f64>,
    s_vals: Vec<f64>,
    /// `1 / sqrt(S_kk)` (1 for an empty row).
    scale: Vec<f64>,
    // The factor of the current selection.
    sub: SubFactor,
}

#[derive(Debug, Default)]
struct SubFactor {
    sel: Vec<usize>,
    valid: bool,
    /// Factored without regularization.
    exact: bool,
    dense: Vec<f64>,
    sparse: Option<SparseSub>,
    /// Position of each row in the selection (`usize::MAX` if absent).
    pos: Vec<usize>,
}

#[derive(Debug)]
struct SparseSub {
    sel: Vec<usize>,
    colptr: Vec<usize>,
    rowidx: Vec<usize>,
    vals: Vec<f64>,
    chol: SparseCholesky,
}

impl Schur {
    fn analyze(rows: &AllRows, starts: &[usize], n: usize) -> Schur {
        let m = rows.len();
        let mut segments: Vec<Segment> = Vec::new();
        let mut row_segs = vec![0];
        let mut off = 0;
        // Rows touching each block: (row, segment).
        let mut by_block: Vec<Vec<(usize, usize)>> = vec![Vec::new(); starts.len() - 1];
        for k in 0..m {
            let (idx, _) = rows.row(k);
            let mut blocks: Vec<usize> = idx
                .iter()
                .map(|&j| starts.partition_point(|&s| s <= j) - 1)
                .collect();
            blocks.sort_unstable();
            blocks.dedup();
            for b in blocks {
                let len = starts[b + 1] - starts[b];
                by_block[b].push((k, segments.len()));
                segments.push(Segment {
                    block: b,
                    block_start: starts[b],
                    len,
                    off,
                });
                off += len;
            }
            row_segs.push(segments.len());
        }
        // Pattern of the upper triangle of S, then where each product goes.
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); m];
        for k in 0..m {
            cols[k].push(k); // the diagonal, even for an empty row
        }
        for list in &by_block {
            for &(i, _) in list {
                for &(j, _) in list {
                    if i < j {
                        cols[j].push(i);
                    }
                }
            }
        }
        let mut s_colptr = vec![0];
        let mut s_rowidx = Vec::new();
        for c in &mut cols {
            c.sort_unstable();
            c.dedup();
            s_rowidx.extend_from_slice(c);
            s_colptr.push(s_rowidx.len());
        }
        let mut contrib = Vec::new();
        for list in &by_block {
            for &(i, p) in list {
                for &(j, q) in list {
                    if i <= j {
                        let col = &s_rowidx[s_colptr[j]..s_colptr[j + 1]];
                        let idx = s_colptr[j] + col.binary_search(&i).expect("in pattern");
                        contrib.push((p as u32, q as u32, idx as u32));
                    }
                }
            }
        }
        let nnz = s_rowidx.len();
        Schur {
            n,
            segments,
            row_segs,
            s_colptr,
            s_rowidx,
            contrib,
            seg_a: vec![0.0; off],
            seg_w: vec![0.0; off],
            s_vals: vec![0.0; nnz],
            scale: vec![1.0; m],
            sub: SubFactor {
                pos: vec![usize::MAX; m],
                ..Default::default()
            },
        }
    }

    /// Forms `W = M^-1 A^T` segment by segment and `S = A W`.
    fn numeric(&mut self, rows: &AllRows, mass: &MassFactor) {
        debug_assert_eq!(mass.dim(), self.n);
        for k in 0..rows.len() {
            let (idx, val) = rows.row(k);
            for s in &self.segments[self.row_segs[k]..self.row_segs[k + 1]] {
                let seg = &mut self.seg_a[s.off..s.off + s.len];
                seg.fill(0.0);
                for (&j, &v) in idx.iter().zip(val) {
                    if j >= s.block_start && j < s.block_start + s.len {
                        seg[j - s.block_start] += v;
                    }
                }
                let w = &mut self.seg_w[s.off..s.off + s.len];
                w.copy_from_slice(&self.seg_a[s.off..s.off + s.len]);
                mass.solve_block_in_place(s.block, w);
            }
        }
        self.s_vals.fill(0.0);
        for &(p, q, idx) in &self.contrib {
            let (sp, sq) = (self.segments[p as usize], self.segments[q as usize]);
            let a = &self.seg_a[sp.off..sp.off + sp.len];
            let w = &self.seg_w[sq.off..sq.off + sq.len];
            self.s_vals[idx as usize] += a.iter().zip(w).map(|(x, y)| x * y).sum::<f64>();
        }
        for k in 0..self.scale.len() {
            let d = self.s_vals[self.s_colptr[k + 1] - 1]; // diagonal is last in its column
            self.scale[k] = if d > 0.0 { 1.0 / d.sqrt() } else { 1.0 };
        }
        self.sub.valid = false;
    }

    /// Factors the equilibrated `S_FF`, regularized to `S_FF + delta I`
    /// unless it is small and well conditioned. Returns whether the factor
    /// is exact (unregularized).
    fn factor(&mut self, sel: &[usize]) -> Result<bool, ()> {
        let sub = &mut self.sub;
        if sub.valid && sub.sel == sel {
            return Ok(sub.exact);
        }
        for &r in &sub.sel {
            sub.pos[r] = usize::MAX;
        }
        sub.sel.clear();
        sub.sel.extend_from_slice(sel);
        for (t, &r) in sel.iter().enumerate() {
            sub.pos[r] = t;
        }
        let k = sel.len();
        sub.valid = false;
        sub.exact = false;
        if k <= DENSE_MAX {
            for delta in [0.0, DELTA] {
                // From zero on every pass: the first pass's factor holds
                // fill-in where S_FF has no entry, which the second pass
                // must not inherit.
                sub.dense.clear();
                sub.dense.resize(k * k, 0.0);
                for (tj, &j) in sel.iter().enumerate() {
                    for e in self.s_colptr[j]..self.s_colptr[j + 1] {
                        let ti = sub.pos[self.s_rowidx[e]];
                        if ti != usize::MAX {
                            // Lower triangle, row-major: (tj, ti), ti <= tj.
                            let v = self.scale[j] * self.s_vals[e] * self.scale[self.s_rowidx[e]];
                            sub.dense[tj * k + ti] = if ti == tj { v + delta } else { v };
                        }
                    }
                }
                let healthy = dense::cholesky_in_place(&mut sub.dense, k).is_ok()
                    && (0..k).all(|i| sub.dense[i * k + i].powi(2) >= HEALTHY_PIVOT);
                if healthy || delta > 0.0 {
                    sub.exact = healthy && delta == 0.0;
                    break;
                }
            }
            if (0..k).any(|i| sub.dense[i * k + i].is_nan() || sub.dense[i * k + i] <= 0.0) {
                return Err(());
            }
        } else {
            // The selection's pattern is analysed when the selection
            // changes (the Schur itself is rebuilt when the structure does);
            // otherwise the buffers are refilled in place.
            let reuse = matches!(&sub.sparse, Some(s) if s.sel == sel);
            if !reuse {
                let mut colptr = Vec::with_capacity(k + 1);
                let mut rowidx = Vec::new();
                colptr.push(0);
                for &j in sel {
                    for e in self.s_colptr[j]..self.s_colptr[j + 1] {
                        let ti = sub.pos[self.s_rowidx[e]];
                        if ti != usize::MAX {
                            rowidx.push(ti);
                        }
                    }
                    colptr.push(rowidx.len());
                }
                let pattern = SymbolicSparseColMatRef::new_checked(k, k, &colptr, None, &rowidx);
                let chol = SparseCholesky::analyze(pattern);
                let vals = vec![0.0; rowidx.len()];
                sub.sparse = Some(SparseSub {
                    sel: sel.to_vec(),
                    chol,
                    colptr,
                    rowidx,
                    vals,
                });
            }
            let s = sub.sparse.as_mut().expect("just set");
            // As on the dense path: without regularization first, kept when
            // every pivot is healthy (one solve is then exact), else with.
            let first = if s.chol.is_simplicial() { 0 } else { 1 };
            for delta in [0.0, DELTA].into_iter().skip(first) {
                let mut t = 0;
                for &j in sel {
                    for e in self.s_colptr[j]..self.s_colptr[j + 1] {
                        let i = self.s_rowidx[e];
                        if sub.pos[i] != usize::MAX {
                            let v = self.scale[j] * self.s_vals[e] * self.scale[i];
                            s.vals[t] = if i == j { v + delta } else { v };
                            t += 1;
                        }
                    }
                }
                let pattern =
                    SymbolicSparseColMatRef::new_checked(k, k, &s.colptr, None, &s.rowidx);
                let factored = s.chol.factor_llt(SparseColMatRef::new(pattern, &s.vals));
                if delta == 0.0 {
                    if factored.is_ok() && s.chol.min_pivot().is_some_and(|p| p >= HEALTHY_PIVOT) {
                        sub.exact = true;
                        break;
                    }
                } else {
                    factored.map_err(|_| ())?;
                }
            }
        }
        sub.valid = true;
        Ok(sub.exact)
    }

    /// `x <- D (S~ + delta I)^-1 D x`, i.e. the multiplier step for the
    /// residual `x` of the selected rows.
    fn solve(&mut self, sel: &[usize], x: &mut [f64]) {
        let k = sel.len();
        for (t, &r) in sel.iter().enumerate() {
            x[t] *= self.scale[r];
        }
        if k <= DENSE_MAX {
            dense::cholesky_solve_in_place(&self.sub.dense, k, x);
        } else {
            match self.sub.sparse.as_mut() {
                Some(s) => s.chol.solve_in_place(x),
                None => x.fill(f64::NAN),
            }
        }
        for (t, &r) in sel.iter().enumerate() {
            x[t] *= self.scale[r];
        }
    }

    /// `a += M^-1 A_F^T dlambda`, using the stored `W = M^-1 A^T`.
    fn add_correction(&self, sel: &[usize], dlambda: &[f64], a: &mut [f64]) {
        for (t, &r) in sel.iter().enumerate() {
            let d = dlambda[t];
            for s in &self.segments[self.row_segs[r]..self.row_segs[r + 1]] {
                let w = &self.seg_w[s.off..s.off + s.len];
                let x = &mut a[s.block_start..s.block_start + s.len];
                // Planar rigid bodies (3 coordinates) unrolled; the same
                // products and sums as the loop.
                if let (Ok(x), Ok(w)) =
                    (<&mut [f64; 3]>::try_from(&mut *x), <&[f64; 3]>::try_from(w))
                {
                    x[0] += d * w[0];
                    x[1] += d * w[1];
                    x[2] += d * w[2];
                    continue;
                }
                for (ai, wi) in x.iter_mut().zip(w) {
                    *ai += d * wi;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Quasi-definite KKT for general sparse masses.

/// `[Dc M Dc, (Dr A_F Dc)^T; Dr A_F Dc, -delta I]` by sparse `LDL^T`,
/// with the column scaling `Dc = diag(M)^-1/2` and the row scaling `Dr`
/// that gives each row of `A_F Dc` unit length.
///
/// The pattern is analysed when the selection changes (the whole `Kkt` is
/// dropped when the structure stamp does); a factorization with the same
/// selection only refills the values, in the order the pattern was built.
#[derive(Debug, Default)]
struct Kkt {
    /// The numeric factor matches the current values of `M` and the rows
    /// for the selection `sel`.
    valid: bool,
    sel: Vec<usize>,
    colptr: Vec<usize>,
    rowidx: Vec<usize>,
    vals: Vec<f64>,
    chol: Option<SparseCholesky>,
    dc: Vec<f64>,
    dr: Vec<f64>,
    rhs: Vec<f64>,
    /// Stationarity residual (scratch).
    g: Vec<f64>,
}

impl Kkt {
    /// The pattern of the upper triangle for the selection `sel` and its
    /// symbolic analysis: `M`'s upper triangle column by column (row `j` of
    /// the symmetric `M` at columns `<= j`), then one column per selected
    /// row with its entries and the diagonal.
    fn analyze(&mut self, instant: &Instant, rows: &AllRows, sel: &[usize]) {
        let n = instant.dim();
        let mass = instant.mass();
        let (ptr, idx) = (mass.indptr().into_raw_storage(), mass.indices());
        self.colptr.clear();
        self.rowidx.clear();
        self.colptr.push(0);
        for j in 0..n {
            for &i in &idx[ptr[j]..ptr[j + 1]] {
                if i <= j {
                    self.rowidx.push(i);
                }
            }
            self.colptr.push(self.rowidx.len());
        }
        for (t, &r) in sel.iter().enumerate() {
            let (ridx, _) = rows.row(r);
            self.rowidx.extend_from_slice(ridx);
            self.rowidx.push(n + t);
            self.colptr.push(self.rowidx.len());
        }
        let dim = n + sel.len();
        let pattern =
            SymbolicSparseColMatRef::new_checked(dim, dim, &self.colptr, None, &self.rowidx);
        self.chol = Some(SparseCholesky::analyze(pattern));
        self.sel.clear();
        self.sel.extend_from_slice(sel);
        self.vals.clear();
        self.vals.resize(self.rowidx.len(), 0.0);
    }

    fn factor(&mut self, instant: &Instant, rows: &AllRows, sel: &[usize]) -> Result<(), ()> {
        let n = instant.dim();
        let mass = instant.mass();
        if self.valid && self.chol.is_some() && self.sel == sel {
            return Ok(());
        }
        self.valid = false;
        if self.chol.is_none() || self.sel != sel {
            self.analyze(instant, rows, sel);
        }
        let (ptr, idx, data) = (
            mass.indptr().into_raw_storage(),
            mass.indices(),
            mass.data(),
        );
        self.dc.clear();
        self.dc.extend((0..n).map(|i| {
            let row = &idx[ptr[i]..ptr[i + 1]];
            let d = row.binary_search(&i).map_or(0.0, |p| data[ptr[i] + p]);
            if d > 0.0 {
                1.0 / d.sqrt()
            } else {
                1.0
            }
        }));
        self.dr.clear();
        for &r in sel {
            let (idx, val) = rows.row(r);
            let norm: f64 = idx
                .iter()
                .zip(val)
                .map(|(&j, v)| (v * self.dc[j]).powi(2))
                .sum::<f64>()
                .sqrt();
            self.dr.push(if norm > 0.0 { 1.0 / norm } else { 1.0 });
        }
        // Values in the order `analyze` laid out the pattern.
        let mut t = 0;
        for j in 0..n {
            for e in ptr[j]..ptr[j + 1] {
                let i = idx[e];
                if i <= j {
                    self.vals[t] = self.dc[i] * data[e] * self.dc[j];
                    t += 1;
                }
            }
        }
        for (s, &r) in sel.iter().enumerate() {
            let (ridx, val) = rows.row(r);
            for (&j, &v) in ridx.iter().zip(val) {
                self.vals[t] = self.dr[s] * v * self.dc[j];
                t += 1;
            }
            self.vals[t] = -DELTA;
            t += 1;
        }
        let dim = n + sel.len();
        let pattern =
            SymbolicSparseColMatRef::new_checked(dim, dim, &self.colptr, None, &self.rowidx);
        match self.chol.as_mut() {
            Some(chol) => chol
                .factor_ldlt(SparseColMatRef::new(pattern, &self.vals))
                .map_err(|_| ())?,
            None => return Err(()),
        }
        self.valid = true;
        Ok(())
    }

    /// One proximal refinement step from the primal residual `res` of the
    /// selected rows (the stationarity residual is zero by construction
    /// after the first step and is carried along exactly).
    fn refine(
        &mut self,
        instant: &Instant,
        rows: &AllRows,
        sel: &[usize],
        res: &[f64],
        a: &mut [f64],
        lambda: &mut [f64],
    ) {
        let n = instant.dim();
        // Stationarity residual g = Q + A^T lambda - M a.
        let g = &mut self.g;
        g.clear();
        g.resize(n, 0.0);
        instant.mass_mul_into(a, g);
        for (gi, q) in g.iter_mut().zip(instant.force()) {
            *gi = q - *gi;
        }
        for (t, &r) in sel.iter().enumerate() {
            let (idx, val) = rows.row(r);
            for (&j, &v) in idx.iter().zip(val) {
                g[j] += v * lambda[t];
            }
        }
        // Scaled system: [M~ A~^T; A~ -dI] [da~; -dl~] = [Dc g; Dr res].
        self.rhs.clear();
        self.rhs.extend(g.iter().zip(&self.dc).map(|(x, d)| x * d));
        self.rhs
            .extend(res.iter().zip(&self.dr).map(|(x, d)| x * d));
        match self.chol.as_mut() {
            Some(chol) => chol.solve_in_place(&mut self.rhs),
            None => return,
        }
        for j in 0..n {
            a[j] += self.dc[j] * self.rhs[j];
        }
        for t in 0..sel.len() {
            lambda[t] -= self.dr[t] * self.rhs[n + t];
        }
    }
}

/// `max |x_i|`.
pub(crate) fn inf_norm(x: &[f64]) -> f64 {
    // A plain compare: the same as `f64::max` for a maximum that starts at
    // zero (a NaN entry is skipped), without its NaN handling per entry.
    x.iter()
        .fold(0.0f64, |m, v| if v.abs() > m { v.abs() } else { m })
}
