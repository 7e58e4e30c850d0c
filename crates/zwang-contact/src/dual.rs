//! One island's working memory and the dual method that solves it (on
//! `W`, for [`crate::ContactSolver`]).
//!
//! In the plane the cone `|r_T| <= mu r_N` is spanned by its two edges, so
//! in edge coordinates `r = T x` it is `x >= 0`. Outer iterations are
//! proximal: each solves the problem with `W + sigma I` and `q - sigma
//! r_k`, which a redundant contact set (four corners of a box, twelve points
//! under a plate) cannot make singular. Each outer iteration takes, in this
//! order of preference:
//!
//! 1. semismooth Newton steps on the exact law (De Saxce's form written
//!    with Fischer and Burmeister's function; the Newton matrix is not
//!    symmetric, a sparse LU);
//! 2. when they stall, De Saxce's fixed point: with the slip term
//!    `s = mu |u_T|` frozen, the law is the optimality condition of a
//!    convex QP, bound-constrained in `x`, which gradient projection and
//!    projected Newton steps (More and Toraldo 1991; Bertsekas 1982) solve
//!    exactly on a sparse Cholesky of `T^T (W + sigma I) T`, the bound
//!    variables' rows set to the identity so one symbolic analysis serves
//!    every active set (the convex form's only step);
//! 3. for a small island that still stalls, Lemke's method on Stewart and
//!    Trinkle's LCP, once.
//!
//! A large island from zero impulses (exact law) first takes projected
//! Gauss-Seidel sweeps, contact by contact, as Siconos' NSGS does: from
//! afar they gain more per unit of work than the factorizations above.
//!
//! A drift of the steps along impulses the contacts cannot resist says the
//! problem has no answer ([`crate::Status::Unbounded`]).

use std::f64::consts::FRAC_1_SQRT_2;

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use zwang_instant::sparse_cholesky::SparseCholesky;

use crate::error::error_for;
use crate::lemke::{lemke, Lcp};
use crate::pattern::{compress, place};
use crate::sparse_lu::SparseLu;
use crate::Friction;

/// Most projected Newton steps per proximal subproblem.
const MAX_NEWTON: usize = 60;
/// Halvings of the step before a subproblem gives up improving.
const MAX_HALVINGS: usize = 40;
/// The shortest semismooth Newton step worth taking.
const MIN_NEWTON_STEP: f64 = 1.0 / 16.0;
/// Outer iterations without halving the error that make a stall.
const STALL: usize = 8;
/// The largest island Lemke's method (dense) takes when Newton's stalls.
const LEMKE_CONTACTS: usize = 64;
/// `|W d|` below this fraction of `W`'s largest diagonal entry times `|d|`
/// is a direction `W` does not see.
const DRIFT_IMAGE: f64 = 1e-9;
/// Outer steps within `DRIFT_REPEAT` of the one before, `W` seeing no
/// more of them than `DRIFT_IMAGE_STEADY` of its largest diagonal entry,
/// make a steady drift when `DRIFT_STEPS` come in a row (tuned against
/// Clarabel's certificates: no bounded problem flagged).
const DRIFT_REPEAT: f64 = 0.1;
/// See [`DRIFT_REPEAT`].
const DRIFT_IMAGE_STEADY: f64 = 1e-3;
/// See [`DRIFT_REPEAT`].
const DRIFT_STEPS: usize = 8;
/// The factor the exact Newton method's proximal weight changes by.
const NEWTON_SIGMA_GROWTH: f64 = 10.0;
/// Most projected gradient steps before each Newton step.
const GRADIENT_STEPS: usize = 8;
/// Armijo's sufficient-decrease fraction.
const ARMIJO: f64 = 1e-4;
/// The proximal weight relative to `W`'s largest diagonal entry: small, so
/// an outer iteration contracts by about `sigma / (sigma + lambda)` in each
/// direction `W` moves, yet enough to keep the reduced Hessian factorable.
const SIGMA_START: f64 = 1e-8;
/// The proximal weight grows by this factor when a factorization fails.
const SIGMA_GROWTH: f64 = 100.0;
/// Relative size of the projected gradient at which a subproblem is solved.
const INNER_TOLERANCE: f64 = 1e-13;
/// The round-off of a semismooth Newton residual's entry, relative to the
/// terms it is made of: below it the steps only shuffle round-off.
const RESIDUAL_ROUNDING: f64 = 16.0 * f64::EPSILON;

/// The smallest island that Gauss-Seidel sweeps start from zero impulses
/// (on smaller ones the factorizations cost little).
const SWEEP_CONTACTS: usize = 1000;
/// Sweeps between two looks at the error.
const SWEEP_CHECK: usize = 10;
/// The error (Siconos' measure) at which the sweeps hand over to
/// Newton's method: near enough for its steps on the granular problems
/// tried, far enough that the sweeps have not begun to crawl.
const SWEEP_TARGET: f64 = 1e-5;
/// Most sweeps.
const SWEEP_MAX: usize = 3000;
/// The sweeps stop when a look finds the error above this fraction of
/// the last.
const SWEEP_STALL: f64 = 0.99;

/// The answer of Coulomb's law at one contact in the plane with the
/// others' impulses fixed, `u = a r + b`: lifting off, sticking, or
/// sliding either way, whichever holds (`None` when none does).
fn local_coulomb(a: [[f64; 2]; 2], b: [f64; 2], mu: f64) -> Option<[f64; 2]> {
    if b[0] >= 0.0 {
        return Some([0.0, 0.0]);
    }
    if mu == 0.0 {
        return (a[0][0] > 0.0).then(|| [-b[0] / a[0][0], 0.0]);
    }
    let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    if det > 0.0 {
        let rn = (a[0][1] * b[1] - a[1][1] * b[0]) / det;
        let rt = (a[1][0] * b[0] - a[0][0] * b[1]) / det;
        if rn >= 0.0 && rt.abs() <= mu * rn {
            return Some([rn, rt]);
        }
    }
    // Sliding with `u_T` of sign `s`: `r_T = -s mu r_N`, `u_N = 0`.
    for s in [1.0, -1.0] {
        let d = a[0][0] - s * mu * a[0][1];
        if d > 0.0 {
            let rn = -b[0] / d;
            let ut = (a[1][0] - s * mu * a[1][1]) * rn + b[1];
            if s * ut >= 0.0 {
                return Some([rn, -s * mu * rn]);
            }
        }
    }
    None
}

/// `W` row by row for Gauss-Seidel sweeps: each row's entries outside its
/// contact's diagonal block (compressed by rows), and each contact's block.
#[derive(Debug)]
struct Sweeps {
    /// Row `i`'s entries from `start[i]`.
    start: Vec<usize>,
    /// Per entry, its column and its index into `W`'s data.
    col: Vec<usize>,
    data: Vec<usize>,
    /// Per entry, its value (at the current solve).
    value: Vec<f64>,
    /// The diagonal blocks' entries: contact, row and column in the
    /// block, index into `W`'s data.
    diagonal: Vec<(usize, usize, usize, usize)>,
    /// Per contact, its diagonal block (at the current solve).
    block: Vec<[[f64; 2]; 2]>,
}

impl Sweeps {
    /// From an island's entries of `W` (local row, local column, data
    /// index) and its count of contacts.
    fn new(m: usize, entries: &[(usize, usize, usize)]) -> Self {
        let mut pairs = Vec::with_capacity(entries.len());
        let mut diagonal = Vec::new();
        for (e, &(row, col, idx)) in entries.iter().enumerate() {
            if row / 2 == col / 2 {
                diagonal.push((row / 2, row % 2, col % 2, idx));
            } else {
                pairs.push((row, e));
            }
        }
        let (start, order) = compress(2 * m, &pairs);
        Sweeps {
            start,
            col: order.iter().map(|&e| entries[e].1).collect(),
            data: order.iter().map(|&e| entries[e].2).collect(),
            value: vec![0.0; order.len()],
            diagonal,
            block: vec![[[0.0; 2]; 2]; m],
        }
    }

    /// Takes the values of `W`.
    fn fill(&mut self, w_data: &[f64]) {
        for (v, &idx) in self.value.iter_mut().zip(&self.data) {
            *v = w_data[idx];
        }
        self.block.fill([[0.0; 2]; 2]);
        for &(k, i, j, idx) in &self.diagonal {
            self.block[k][i][j] += w_data[idx];
        }
    }
}

/// The edge coordinates of a contact's cone: `r = T x`, `x >= 0`. Columns
/// are the unit edges `(1, -mu)` and `(1, mu)` (normalised); a frictionless
/// contact has the one column `(1, 0)`.
#[derive(Debug, Clone, Copy)]
struct Edges {
    /// `t[component][variable]`.
    t: [[f64; 2]; 2],
    count: usize,
}

impl Edges {
    fn new(mu: f64) -> Self {
        if mu == 0.0 {
            return Edges {
                t: [[1.0, 0.0], [0.0, 0.0]],
                count: 1,
            };
        }
        let n = (1.0 + mu * mu).sqrt();
        Edges {
            t: [[1.0 / n, 1.0 / n], [-mu / n, mu / n]],
            count: 2,
        }
    }

    /// `x` of an impulse `r` (projected on the cone first).
    fn coordinates(&self, mu: f64, rn: f64, rt: f64) -> [f64; 2] {
        let (rn, rt) = crate::error::project_cone(mu, rn, rt);
        if self.count == 1 {
            return [rn.max(0.0), 0.0];
        }
        let n = (1.0 + mu * mu).sqrt();
        [
            (0.5 * n * (rn - rt / mu)).max(0.0),
            (0.5 * n * (rn + rt / mu)).max(0.0),
        ]
    }
}

/// A matrix pattern over an island's edge variables, compressed by
/// columns, and where each entry of `W` and each contact's diagonal block
/// land in it.
#[derive(Debug)]
struct Layout {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// Upper triangle only: `(a, b)` is stored at `(min, max)`.
    upper: bool,
    /// Per entry of `W`, its places for the variable pairs `(0,0), (0,1),
    /// (1,0), (1,1)` of its row's and column's contacts (`usize::MAX` where
    /// a frictionless contact has no second variable).
    entries: Vec<[usize; 4]>,
    /// Per contact, its diagonal block's places, in the same order.
    blocks: Vec<[usize; 4]>,
}

impl Layout {
    /// The pattern of the `(column, row)` pairs (any order, repeats
    /// allowed).
    fn new(
        n: usize,
        pairs: &[(usize, usize)],
        upper: bool,
        entries: &[(usize, usize, usize)],
        var_start: &[usize],
    ) -> Self {
        let (col_ptr, row_idx) = compress(n, pairs);
        let mut layout = Layout {
            col_ptr,
            row_idx,
            upper,
            entries: Vec::new(),
            blocks: Vec::new(),
        };
        let slot = |k: usize, i: usize| {
            let v = var_start[k] + i;
            (v < var_start[k + 1]).then_some(v)
        };
        let places = |ka: usize, kb: usize| {
            [(0, 0), (0, 1), (1, 0), (1, 1)].map(|(i, j)| match (slot(ka, i), slot(kb, j)) {
                (Some(a), Some(b)) => layout.place(a, b),
                _ => usize::MAX,
            })
        };
        let entry_places = entries
            .iter()
            .map(|&(row, col, _)| places(row / 2, col / 2))
            .collect();
        let blocks = (0..var_start.len() - 1).map(|k| places(k, k)).collect();
        layout.entries = entry_places;
        layout.blocks = blocks;
        layout
    }

    /// The place of entry `(a, b)`, which the pattern holds.
    fn place(&self, a: usize, b: usize) -> usize {
        let (a, b) = if self.upper {
            (a.min(b), a.max(b))
        } else {
            (a, b)
        };
        place(&self.col_ptr, &self.row_idx, a, b)
    }

    fn len(&self) -> usize {
        self.row_idx.len()
    }

    fn symbolic(&self) -> SymbolicSparseColMatRef<'_, usize> {
        let n = self.col_ptr.len() - 1;
        SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx)
    }
}

/// How an island's solve ended.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IslandReport {
    pub error: f64,
    pub iterations: usize,
    pub newton_steps: usize,
    /// The impulses grew without bound: no answer exists.
    pub unbounded: bool,
}

/// An island: its contacts, its block of `W`, and its working memory.
#[derive(Debug)]
pub(crate) struct Island {
    /// The problem's contacts in this island, in order.
    pub contacts: Vec<usize>,
    /// `W`'s entries in the island: local row, local column, index into
    /// the problem's `W.data()`.
    entries: Vec<(usize, usize, usize)>,
    /// Per contact, the first variable; one more entry at the end.
    var_start: Vec<usize>,
    /// Per variable, its contact.
    var_contact: Vec<usize>,
    /// The Hessian's upper triangle.
    upper: Layout,
    hessian: Vec<f64>,
    reduced: Vec<f64>,
    cholesky: SparseCholesky,
    /// The Newton matrix, both triangles.
    full: Layout,
    newton: Vec<f64>,
    /// Per variable, the place of its diagonal in the Newton matrix.
    full_pivot: Vec<usize>,
    lu: SparseLu,
    // Per contact.
    mu: Vec<f64>,
    edges: Vec<Edges>,
    // Per component (2 per contact).
    q: Vec<f64>,
    r: Vec<f64>,
    u: Vec<f64>,
    wr: Vec<f64>,
    center: Vec<f64>,
    best: Vec<f64>,
    // Per variable.
    x: Vec<f64>,
    trial: Vec<f64>,
    step: Vec<f64>,
    gradient: Vec<f64>,
    linear: Vec<f64>,
    bound: Vec<bool>,
    saved: Vec<f64>,
    residual: Vec<f64>,
    row_scale: Vec<f64>,
    /// The last outer step, per component, and how many steady drifting
    /// steps came in a row (the drift test's memory).
    last_step: Vec<f64>,
    steady_steps: usize,
    /// A large island's Gauss-Seidel sweeps (`None` on a small one).
    sweeps: Option<Sweeps>,
}

/// What the outer steps' drift test found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drift {
    /// No drift.
    None,
    /// A drift along a direction `W` still sees (above rounding): the
    /// iterations stop, without a certificate.
    Steady,
    /// A drift whose step certifies that no answer exists.
    Certified,
}

impl Island {
    /// The island of `contacts` given its entries of `W` as `(row, col,
    /// data index)` triplets of the whole problem, each contact's index in
    /// its island, and which contacts are frictionless (one edge variable).
    pub fn new(
        contacts: Vec<usize>,
        local_of: &[usize],
        triplets: &[(usize, usize, usize)],
        frictionless: &[bool],
    ) -> Self {
        let m = contacts.len();
        let mut var_start = Vec::with_capacity(m + 1);
        let mut var_contact = Vec::new();
        var_start.push(0);
        for (k, &c) in contacts.iter().enumerate() {
            let count = if frictionless[c] { 1 } else { 2 };
            var_contact.extend(std::iter::repeat_n(k, count));
            var_start.push(var_start[k] + count);
        }
        let nv = var_start[m];
        let vars = |k: usize| var_start[k]..var_start[k + 1];
        let entries: Vec<(usize, usize, usize)> = triplets
            .iter()
            .map(|&(row, col, idx)| {
                (
                    2 * local_of[row / 2] + row % 2,
                    2 * local_of[col / 2] + col % 2,
                    idx,
                )
            })
            .collect();
        // The Hessian's pattern: every variable pair two coupled contacts
        // share, upper triangle, and every contact's diagonal block.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let couple = |ka: usize, kb: usize, pairs: &mut Vec<(usize, usize)>| {
            for a in vars(ka) {
                for b in vars(kb) {
                    pairs.push((a.max(b), a.min(b)));
                }
            }
        };
        for k in 0..m {
            couple(k, k, &mut pairs);
        }
        for &(row, col, _) in &entries {
            couple(row / 2, col / 2, &mut pairs);
        }
        let upper = Layout::new(nv, &pairs, true, &entries, &var_start);
        // The Newton matrix: the same pairs in both triangles.
        let full: Vec<(usize, usize)> = pairs
            .iter()
            .flat_map(|&(col, row)| [(col, row), (row, col)])
            .collect();
        let full = Layout::new(nv, &full, false, &entries, &var_start);
        let full_pivot = (0..nv).map(|v| full.place(v, v)).collect();
        let lu = SparseLu::analyze(full.symbolic());
        let cholesky = SparseCholesky::analyze(upper.symbolic());
        let n = 2 * m;
        let sweeps = (m >= SWEEP_CONTACTS).then(|| Sweeps::new(m, &entries));
        Island {
            contacts,
            entries,
            var_start,
            var_contact,
            hessian: vec![0.0; upper.len()],
            reduced: vec![0.0; upper.len()],
            cholesky,
            newton: vec![0.0; full.len()],
            upper,
            full,
            full_pivot,
            lu,
            mu: vec![0.0; m],
            edges: vec![Edges::new(0.0); m],
            q: vec![0.0; n],
            r: vec![0.0; n],
            u: vec![0.0; n],
            wr: vec![0.0; n],
            center: vec![0.0; n],
            best: vec![0.0; n],
            x: vec![0.0; nv],
            trial: vec![0.0; nv],
            step: vec![0.0; nv],
            gradient: vec![0.0; nv],
            linear: vec![0.0; nv],
            bound: vec![false; nv],
            saved: vec![0.0; nv],
            residual: vec![0.0; nv],
            row_scale: vec![0.0; nv],
            last_step: vec![0.0; n],
            steady_steps: 0,
            sweeps,
        }
    }

    /// Solves the island's part of the problem (`w_data` the values of the
    /// problem's `W`, `q`, `mu` the problem's) starting from the impulses in
    /// `r_all` (its rows of this island), and keeps the best answer found.
    ///
    /// Each outer iteration centres the proximal term at the current
    /// answer and tries semismooth Newton steps on the exact subproblem; when
    /// they do not improve the answer, it takes the fixed point's convex step
    /// instead (the only step of the convex form). An island that stalls
    /// and is small enough goes to Lemke's method once.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        w_data: &[f64],
        q_all: &[f64],
        mu_all: &[f64],
        friction: Friction,
        tolerance: f64,
        max_iterations: usize,
        r_all: &[f64],
    ) -> IslandReport {
        for (k, &c) in self.contacts.iter().enumerate() {
            self.mu[k] = mu_all[c];
            self.edges[k] = Edges::new(mu_all[c]);
            for i in 0..2 {
                self.q[2 * k + i] = q_all[2 * c + i];
                self.r[2 * k + i] = r_all[2 * c + i];
            }
        }
        let mut cold = self.r.iter().all(|&r| r == 0.0);
        if cold && friction == Friction::Exact && self.gauss_seidel(w_data, tolerance) {
            cold = false;
        }
        self.set_x_from_r();
        let scale = self
            .entries
            .iter()
            .filter(|e| e.0 == e.1)
            .map(|e| w_data[e.2].abs())
            .fold(0.0, f64::max);
        let scale = if scale > 0.0 { scale } else { 1.0 };
        let mut sigma = SIGMA_START * scale;
        let mut newton_sigma = sigma;
        self.fill_hessian(w_data, sigma);
        self.impulses_from_x();
        let mut report = IslandReport {
            error: self.velocities_and_error(w_data, friction),
            ..Default::default()
        };
        self.best.copy_from_slice(&self.r);
        // The last iteration that halved the error, for the stall test.
        self.last_step.fill(0.0);
        self.steady_steps = 0;
        let (mut mark, mut mark_error) = (0, report.error);
        // The error at the current impulses (the proximal centre), which
        // a convex step may leave above the best.
        let mut current = report.error;
        let mut pivoted = false;
        while report.iterations < max_iterations && report.error > tolerance {
            report.iterations += 1;
            self.center.copy_from_slice(&self.r);
            let mut improved = false;
            // From zero impulses, Newton's method on the nonsmooth law is
            // far from home: the convex step comes first.
            if friction == Friction::Exact && !(cold && report.iterations == 1) {
                // Progress is measured from the centre: against the best
                // error instead, a subproblem solved from a worse centre
                // (after a convex step) counted as a failure and stiffened
                // the proximal weight, outer iteration after outer
                // iteration, up to the scale of `W`.
                let (steps, error) = self.newton_exact(w_data, newton_sigma, current);
                report.newton_steps += steps;
                if let Some(error) = error {
                    current = error;
                    self.keep(error, &mut report);
                    newton_sigma = (newton_sigma / NEWTON_SIGMA_GROWTH).max(sigma);
                    improved = true;
                } else {
                    // A stalled Newton method meets a nearly singular
                    // Jacobian (coupled sliding contacts with large
                    // friction): a larger proximal weight regularizes the
                    // next subproblem.
                    newton_sigma = (newton_sigma * NEWTON_SIGMA_GROWTH).min(scale);
                }
            }
            if !improved {
                self.convex_step_terms(friction, sigma);
                match self.projected_newton(w_data, sigma) {
                    Ok(steps) => {
                        report.newton_steps += steps;
                        let error = self.velocities_and_error(w_data, friction);
                        current = error;
                        self.keep(error, &mut report);
                    }
                    Err(steps) => {
                        // The reduced Hessian is numerically singular: a
                        // larger proximal weight makes it definite.
                        report.newton_steps += steps;
                        sigma *= SIGMA_GROWTH;
                        self.fill_hessian(w_data, sigma);
                        self.r.copy_from_slice(&self.best);
                        self.set_x_from_r();
                        current = self.velocities_and_error(w_data, friction);
                    }
                }
            }
            if report.error <= 0.5 * mark_error {
                (mark, mark_error) = (report.iterations, report.error);
            }
            match self.drifts(w_data, friction, scale) {
                Drift::None => {}
                // A drift is no answer only with a certificate. Without,
                // the iterations stop all the same (not converged): the
                // steps keep the subproblems' error in `W`'s range, and
                // more of them certify nothing more.
                Drift::Certified => {
                    report.unbounded = true;
                    break;
                }
                Drift::Steady => break,
            }
            if friction == Friction::Exact
                && !pivoted
                && report.iterations - mark >= STALL
                && self.contacts.len() <= LEMKE_CONTACTS
            {
                pivoted = true;
                if let Some(error) = self.lemke(w_data) {
                    current = error;
                    self.keep(error, &mut report);
                }
            }
        }
        // Leave the best answer found in `r`, `u`.
        self.r.copy_from_slice(&self.best);
        report.error = self.velocities_and_error(w_data, friction);
        report
    }

    /// Whether the outer steps drift along a direction `d` the contacts
    /// cannot resist: `d` in the cones, `W d` (nearly) zero and the
    /// velocity's work `(q + mu |u_T| e_N) . d` negative. Along it the
    /// velocities do not change, so no answer lies ahead (for the convex
    /// form this certifies that none exists); every proximal step would
    /// slide further, and Siconos' measure, divided by the growing `|r|`,
    /// would shrink towards any tolerance with no answer near. Seen either
    /// in one step as large as the impulses were, with `W d` at rounding,
    /// or as `DRIFT_STEPS` nearly equal steps in a row that `W` hardly sees
    /// (a proximal iteration's steps tend to the direction of recession
    /// when there is one).
    ///
    /// A drift is [`Drift::Certified`] when its last step is a certificate
    /// (`W d` at rounding, [`DRIFT_IMAGE`]); a steady drift `W` still sees
    /// is only [`Drift::Steady`].
    fn drifts(&mut self, w_data: &[f64], friction: Friction, scale: f64) -> Drift {
        // `center` becomes the step, `wr` its image by `W`.
        for (c, r) in self.center.iter_mut().zip(&self.r) {
            *c = r - *c;
        }
        self.wr.fill(0.0);
        for &(row, col, idx) in &self.entries {
            self.wr[row] += w_data[idx] * self.center[col];
        }
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (step, image) = (norm(&self.center), norm(&self.wr));
        let change = self
            .center
            .iter()
            .zip(&self.last_step)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        self.last_step.copy_from_slice(&self.center);
        if step == 0.0 {
            return Drift::None;
        }
        let (mut work, mut size) = (0.0, 0.0);
        for k in 0..self.contacts.len() {
            let slip = match friction {
                Friction::Exact => self.mu[k] * self.u[2 * k + 1].abs(),
                Friction::Convex => 0.0,
            };
            work += (self.q[2 * k] + slip) * self.center[2 * k]
                + self.q[2 * k + 1] * self.center[2 * k + 1];
            size += (self.q[2 * k] + slip).powi(2) + self.q[2 * k + 1].powi(2);
        }
        // Along `d` the impulses stay in the cones however far they go.
        let slack = 1e-9 * step;
        let recedes = (0..self.contacts.len()).all(|k| {
            let (n, t) = (self.center[2 * k], self.center[2 * k + 1]);
            n >= -slack && t.abs() <= self.mu[k] * n + slack
        });
        let certified = image <= DRIFT_IMAGE * scale * step
            && work < -DRIFT_IMAGE * size.sqrt() * step
            && recedes;
        let at_once =
            step >= 0.5 * (norm(&self.r) - step).max(0.0) && image <= DRIFT_IMAGE * scale * step;
        let steady = change <= DRIFT_REPEAT * step && image <= DRIFT_IMAGE_STEADY * scale * step;
        if !(work < 0.0 && recedes) {
            self.steady_steps = 0;
            return Drift::None;
        }
        self.steady_steps = if steady { self.steady_steps + 1 } else { 0 };
        match (at_once || self.steady_steps >= DRIFT_STEPS, certified) {
            (true, true) => Drift::Certified,
            (true, false) => Drift::Steady,
            (false, _) => Drift::None,
        }
    }

    /// Projected Gauss-Seidel sweeps (Siconos' NSGS) from zero impulses:
    /// each contact in turn takes its own exact answer with the others'
    /// impulses fixed. Cheap next to a factorization, they bring a cold
    /// start near enough for Newton's method, and stop there or when they
    /// stall. Returns whether they improved on zero impulses (else leaves
    /// them at zero).
    fn gauss_seidel(&mut self, w_data: &[f64], tolerance: f64) -> bool {
        let Some(mut sweeps) = self.sweeps.take() else {
            return false;
        };
        sweeps.fill(w_data);
        let start = self.velocities_and_error(w_data, Friction::Exact);
        let (mut last, mut error) = (f64::INFINITY, start);
        for sweep in 0..SWEEP_MAX {
            for k in 0..self.contacts.len() {
                let mut b = [self.q[2 * k], self.q[2 * k + 1]];
                for (i, b) in b.iter_mut().enumerate() {
                    let row = 2 * k + i;
                    for p in sweeps.start[row]..sweeps.start[row + 1] {
                        *b += sweeps.value[p] * self.r[sweeps.col[p]];
                    }
                }
                if let Some(r) = local_coulomb(sweeps.block[k], b, self.mu[k]) {
                    self.r[2 * k] = r[0];
                    self.r[2 * k + 1] = r[1];
                }
            }
            if (sweep + 1) % SWEEP_CHECK == 0 {
                error = self.velocities_and_error(w_data, Friction::Exact);
                if error <= tolerance.max(SWEEP_TARGET) || error > SWEEP_STALL * last {
                    break;
                }
                last = error;
            }
        }
        self.sweeps = Some(sweeps);
        let improved = error < start;
        if !improved {
            self.r.fill(0.0);
        }
        improved
    }

    /// Keeps the current answer if it is the best so far.
    fn keep(&mut self, error: f64, report: &mut IslandReport) {
        if error < report.error {
            report.error = error;
            self.best.copy_from_slice(&self.r);
        }
    }

    /// The linear term of the fixed point's convex step: the cone
    /// complementarity problem of `q + mu |u_T| e_N` (of `q` for the convex
    /// form) at the current answer, with the proximal term.
    fn convex_step_terms(&mut self, friction: Friction, sigma: f64) {
        for k in 0..self.contacts.len() {
            let slip = match friction {
                Friction::Exact => self.mu[k] * self.u[2 * k + 1].abs(),
                Friction::Convex => 0.0,
            };
            let shifted = [
                self.q[2 * k] + slip - sigma * self.center[2 * k],
                self.q[2 * k + 1] - sigma * self.center[2 * k + 1],
            ];
            let t = self.edges[k].t;
            for v in self.var_start[k]..self.var_start[k + 1] {
                let a = v - self.var_start[k];
                self.linear[v] = t[0][a] * shifted[0] + t[1][a] * shifted[1];
            }
        }
    }

    /// The island as Stewart and Trinkle's LCP (`r_N`, the two friction
    /// directions' impulses and the slip speed; exact Coulomb in the plane)
    /// solved by Lemke's method: complementary pivoting finds an answer
    /// wherever one exists and the contacts cannot jam, which Newton's
    /// method on a nonsmooth residual does not promise. Dense: small
    /// islands only. Returns the answer's error when one was found.
    fn lemke(&mut self, w_data: &[f64]) -> Option<f64> {
        let m = self.contacts.len();
        let n = 4 * m;
        let mut a = faer::Mat::<f64>::zeros(n, n);
        let mut b = vec![0.0; n];
        for &(row, col, idx) in &self.entries {
            let (ka, kb, w) = (row / 2, col / 2, w_data[idx]);
            // Columns of `r_T = beta+ - beta-`, or of `r_N`.
            let columns: &[(usize, f64)] = if col % 2 == 0 {
                &[(kb, 1.0)]
            } else {
                &[(m + kb, 1.0), (2 * m + kb, -1.0)]
            };
            // Rows `u_N`, or `u_T + lambda` and `-u_T + lambda`.
            let rows: &[(usize, f64)] = if row % 2 == 0 {
                &[(ka, 1.0)]
            } else {
                &[(m + ka, 1.0), (2 * m + ka, -1.0)]
            };
            for &(i, si) in rows {
                for &(j, sj) in columns {
                    a[(i, j)] += si * sj * w;
                }
            }
        }
        for k in 0..m {
            a[(m + k, 3 * m + k)] = 1.0;
            a[(2 * m + k, 3 * m + k)] = 1.0;
            a[(3 * m + k, k)] = self.mu[k];
            a[(3 * m + k, m + k)] = -1.0;
            a[(3 * m + k, 2 * m + k)] = -1.0;
            b[k] = self.q[2 * k];
            b[m + k] = self.q[2 * k + 1];
            b[2 * m + k] = -self.q[2 * k + 1];
        }
        let Lcp::Solved(z) = lemke(&a, &b, 50 * (n + 2)) else {
            return None;
        };
        for k in 0..m {
            self.r[2 * k] = z[k];
            self.r[2 * k + 1] = z[m + k] - z[2 * m + k];
        }
        self.set_x_from_r();
        self.impulses_from_x();
        Some(self.velocities_and_error(w_data, Friction::Exact))
    }

    /// Writes the island's answer into the problem's `r` and `u`.
    pub fn scatter(&self, r_all: &mut [f64], u_all: &mut [f64]) {
        for (k, &c) in self.contacts.iter().enumerate() {
            for i in 0..2 {
                r_all[2 * c + i] = self.r[2 * k + i];
                u_all[2 * c + i] = self.u[2 * k + i];
            }
        }
    }

    /// Solves the proximal subproblem (the current `linear` term) from the
    /// current `x`: projected Newton steps until the projected gradient
    /// vanishes. `Err` when the reduced Hessian cannot be factored.
    fn projected_newton(&mut self, w_data: &[f64], sigma: f64) -> Result<usize, usize> {
        let mut steps = 0;
        let linear_scale = self.linear.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        for _ in 0..MAX_NEWTON {
            self.impulses_from_x();
            self.symmetric_product(w_data);
            let value = self.objective(sigma);
            self.gradient_from_wr(sigma);
            let worst = self.projected_gradient(sigma);
            // The gradient's rounding is relative to its terms, not to it.
            let gscale = self
                .gradient
                .iter()
                .zip(&self.linear)
                .fold(linear_scale, |m, (g, c)| m.max((g - c).abs()));
            if worst <= INNER_TOLERANCE * gscale.max(f64::MIN_POSITIVE) {
                return Ok(steps);
            }
            let value = self.gradient_projection(w_data, sigma, value);
            // Variables at zero and pushed against it stay there; Newton's
            // step on the others.
            for v in 0..self.x.len() {
                self.bound[v] = self.x[v] == 0.0 && self.gradient[v] > 0.0;
            }
            self.reduced.copy_from_slice(&self.hessian);
            for j in 0..self.x.len() {
                for p in self.upper.col_ptr[j]..self.upper.col_ptr[j + 1] {
                    let i = self.upper.row_idx[p];
                    if self.bound[i] || self.bound[j] {
                        self.reduced[p] = if i == j { 1.0 } else { 0.0 };
                    }
                }
            }
            let n = self.x.len();
            let pattern = self.upper.symbolic();
            if self
                .cholesky
                .factor_llt(SparseColMatRef::new(pattern, &self.reduced))
                .is_err()
            {
                return Err(steps);
            }
            for v in 0..n {
                self.step[v] = if self.bound[v] {
                    0.0
                } else {
                    -self.gradient[v]
                };
            }
            self.cholesky.solve_in_place(&mut self.step);
            for v in 0..n {
                if self.bound[v] {
                    self.step[v] = -self.x[v];
                }
            }
            steps += 1;
            // Armijo's rule along the projected arc.
            let mut alpha = 1.0;
            let mut accepted = false;
            for _ in 0..MAX_HALVINGS {
                let mut predicted = 0.0;
                for v in 0..n {
                    self.trial[v] = (self.x[v] + alpha * self.step[v]).max(0.0);
                    predicted += if self.bound[v] {
                        self.gradient[v] * (self.x[v] - self.trial[v])
                    } else {
                        -alpha * self.gradient[v] * self.step[v]
                    };
                }
                std::mem::swap(&mut self.x, &mut self.trial);
                self.impulses_from_x();
                self.symmetric_product(w_data);
                let trial_value = self.objective(sigma);
                // Near the answer the decrease drowns in rounding; a step
                // that shrinks the projected gradient is progress then
                // (Newton's step refines the answer as iterative refinement
                // would).
                if value - trial_value >= ARMIJO * predicted
                    || self.projected_gradient(sigma) <= 0.5 * worst
                {
                    accepted = true;
                    break;
                }
                std::mem::swap(&mut self.x, &mut self.trial);
                alpha *= 0.5;
            }
            if !accepted {
                // No decrease left to find at this precision.
                self.impulses_from_x();
                return Ok(steps);
            }
            // A full step that hit no new bound solved the face exactly.
            if alpha == 1.0 && (0..n).all(|v| self.bound[v] || self.x[v] + self.step[v] >= 0.0) {
                self.impulses_from_x();
                return Ok(steps);
            }
        }
        self.impulses_from_x();
        Ok(steps)
    }

    /// Projected gradient steps (Jacobi-scaled, Armijo's rule) while they
    /// change which variables sit at zero: they find the face the Newton
    /// step then works on (More and Toraldo 1991). Leaves `r`, `wr` at the
    /// new `x` and returns the objective there.
    fn gradient_projection(&mut self, w_data: &[f64], sigma: f64, mut value: f64) -> f64 {
        let n = self.x.len();
        for _ in 0..GRADIENT_STEPS {
            for v in 0..n {
                self.step[v] = -self.gradient[v] / self.hessian_diagonal(v);
            }
            self.trial.copy_from_slice(&self.x);
            let mut t = 1.0;
            let mut changed = false;
            let mut moved = false;
            for _ in 0..MAX_HALVINGS {
                let mut predicted = 0.0;
                for v in 0..n {
                    self.x[v] = (self.trial[v] + t * self.step[v]).max(0.0);
                    predicted += self.gradient[v] * (self.x[v] - self.trial[v]);
                }
                self.impulses_from_x();
                self.symmetric_product(w_data);
                let trial_value = self.objective(sigma);
                if trial_value <= value + ARMIJO * predicted && predicted < 0.0 {
                    changed = (0..n).any(|v| (self.x[v] == 0.0) != (self.trial[v] == 0.0));
                    value = trial_value;
                    moved = true;
                    break;
                }
                t *= 0.5;
            }
            if !moved {
                self.x.copy_from_slice(&self.trial);
                self.impulses_from_x();
                self.symmetric_product(w_data);
                break;
            }
            self.gradient_from_wr(sigma);
            if !changed {
                break;
            }
        }
        value
    }

    /// Semismooth Newton steps on the exact proximal subproblem (Coulomb's
    /// law for `W + sigma I` and `q - sigma center`) in edge coordinates,
    /// written with Fischer and Burmeister's function: `phi(x, F(x) / d) =
    /// 0`, `phi(a, b) = a + b - |(a, b)|`, `F = T^T (u + mu |u_T| e_N)`, `d`
    /// the Hessian's diagonal; a line search on `|phi|`. Keeps the answer
    /// and returns its error when it beats `error_before`; otherwise
    /// restores `x`. Also returns the steps taken.
    fn newton_exact(
        &mut self,
        w_data: &[f64],
        sigma: f64,
        error_before: f64,
    ) -> (usize, Option<f64>) {
        self.saved.copy_from_slice(&self.x);
        let n = self.x.len();
        let mut steps = 0;
        let (mut merit, mut floor) = self.exact_residual(w_data, sigma);
        for _ in 0..MAX_NEWTON {
            // Past the residual's round-off a step only shuffles it, at
            // the price of a factorization.
            if merit <= floor {
                break;
            }
            self.assemble_newton(w_data, sigma);
            let pattern = self.full.symbolic();
            if !self.lu.factor(SparseColMatRef::new(pattern, &self.newton)) {
                break;
            }
            for v in 0..n {
                self.step[v] = -self.residual[v];
            }
            self.lu.solve_in_place(&mut self.step);
            if self.step.iter().any(|d| !d.is_finite()) {
                break;
            }
            steps += 1;
            self.trial.copy_from_slice(&self.x);
            let mut alpha = 1.0;
            let mut accepted = None;
            while alpha >= MIN_NEWTON_STEP {
                for v in 0..n {
                    self.x[v] = self.trial[v] + alpha * self.step[v];
                }
                let (trial_merit, trial_floor) = self.exact_residual(w_data, sigma);
                if trial_merit <= (1.0 - 2.0 * ARMIJO * alpha) * merit {
                    accepted = Some((trial_merit, trial_floor));
                    break;
                }
                alpha *= 0.5;
            }
            // A step cut short means the linearization misleads here:
            // leave it to the fixed point's convex step.
            let Some((trial_merit, trial_floor)) = accepted else {
                self.x.copy_from_slice(&self.trial);
                break;
            };
            (merit, floor) = (trial_merit, trial_floor);
        }
        for x in &mut self.x {
            *x = x.max(0.0);
        }
        self.impulses_from_x();
        let error = self.velocities_and_error(w_data, Friction::Exact);
        if error < error_before {
            return (steps, Some(error));
        }
        self.x.copy_from_slice(&self.saved);
        self.impulses_from_x();
        self.velocities_and_error(w_data, Friction::Exact);
        (steps, None)
    }

    /// At the current `x`: `r = T x`, the proximal velocity `W r + q +
    /// sigma (r - center)` in `wr`, `F` in `gradient`, the residual
    /// `phi(x, F / d)` in `residual`; returns half its squared norm and
    /// half that of its round-off.
    fn exact_residual(&mut self, w_data: &[f64], sigma: f64) -> (f64, f64) {
        self.impulses_from_x();
        for i in 0..self.r.len() {
            self.wr[i] = self.q[i] + sigma * (self.r[i] - self.center[i]);
        }
        for &(row, col, idx) in &self.entries {
            self.wr[row] += w_data[idx] * self.r[col];
        }
        let (mut merit, mut floor) = (0.0, 0.0);
        for v in 0..self.x.len() {
            let k = self.var_contact[v];
            let a = v - self.var_start[k];
            let c = self.slip_edges(k);
            let f = c[0][a] * self.wr[2 * k] + c[1][a] * self.wr[2 * k + 1];
            self.gradient[v] = f;
            let scaled = f / self.hessian_diagonal(v);
            self.residual[v] = self.x[v] + scaled - self.x[v].hypot(scaled);
            merit += 0.5 * self.residual[v] * self.residual[v];
            floor += 0.5 * (RESIDUAL_ROUNDING * (self.x[v].abs() + scaled.abs())).powi(2);
        }
        (merit, floor)
    }

    /// The rows `C` with `F = C^T u` for contact `k` at the velocity in
    /// `wr`: `T` with `mu |u_T| e_N` folded in by the sign of `u_T`.
    fn slip_edges(&self, k: usize) -> [[f64; 2]; 2] {
        let mu = self.mu[k];
        if self.edges[k].count == 1 {
            return self.edges[k].t;
        }
        let n = (1.0 + mu * mu).sqrt();
        let sign = if self.wr[2 * k + 1] >= 0.0 { 1.0 } else { -1.0 };
        [
            [1.0 / n, 1.0 / n],
            [mu * (sign - 1.0) / n, mu * (sign + 1.0) / n],
        ]
    }

    /// The Newton matrix of `phi` at the current `x`: from `J = C^T (W +
    /// sigma I) T`, the Jacobian of `F` at the current velocity (`gradient`
    /// and `wr` current).
    fn assemble_newton(&mut self, w_data: &[f64], sigma: f64) {
        self.newton.fill(0.0);
        for (e, &(row, col, idx)) in self.entries.iter().enumerate() {
            let (ka, kb) = (row / 2, col / 2);
            let (c, t) = (self.slip_edges(ka), self.edges[kb].t);
            for (n, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                let place = self.full.entries[e][n];
                if place != usize::MAX {
                    self.newton[place] += c[row % 2][i] * w_data[idx] * t[col % 2][j];
                }
            }
        }
        for k in 0..self.contacts.len() {
            let (c, t) = (self.slip_edges(k), self.edges[k].t);
            for (n, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                let place = self.full.blocks[k][n];
                if place != usize::MAX {
                    self.newton[place] += sigma * (c[0][i] * t[0][j] + c[1][i] * t[1][j]);
                }
            }
        }
        // Rows of `phi`'s Jacobian: `(1 - a/rho) e_v + (1 - b/rho) J_v / d_v`
        // with `(a, b) = (x_v, F_v / d_v)`, `rho` their norm (any point of the
        // unit circle around `(1, 1)` at the kink `a = b = 0`).
        for v in 0..self.x.len() {
            let d = self.hessian_diagonal(v);
            let (a, b) = (self.x[v], self.gradient[v] / d);
            let rho = a.hypot(b);
            let (da, db) = if rho > 0.0 {
                (1.0 - a / rho, 1.0 - b / rho)
            } else {
                (1.0 - FRAC_1_SQRT_2, 1.0 - FRAC_1_SQRT_2)
            };
            self.row_scale[v] = db / d;
            self.step[v] = da;
        }
        for j in 0..self.x.len() {
            for p in self.full.col_ptr[j]..self.full.col_ptr[j + 1] {
                self.newton[p] *= self.row_scale[self.full.row_idx[p]];
            }
        }
        for v in 0..self.x.len() {
            self.newton[self.full_pivot[v]] += self.step[v];
        }
    }

    /// The largest `|min(x, g)|` at the current `x` (with `r`, `wr`
    /// current), the gradient not stored.
    fn projected_gradient(&self, sigma: f64) -> f64 {
        (0..self.x.len()).fold(0.0, |worst: f64, v| {
            let k = self.var_contact[v];
            let a = v - self.var_start[k];
            let t = self.edges[k].t;
            let g = self.linear[v]
                + t[0][a] * (self.wr[2 * k] + sigma * self.r[2 * k])
                + t[1][a] * (self.wr[2 * k + 1] + sigma * self.r[2 * k + 1]);
            worst.max(self.x[v].min(g).abs())
        })
    }

    /// The Hessian `T^T (sym W + sigma I) T` of the subproblems.
    fn fill_hessian(&mut self, w_data: &[f64], sigma: f64) {
        self.hessian.fill(0.0);
        for (e, &(row, col, idx)) in self.entries.iter().enumerate() {
            let (ka, kb) = (row / 2, col / 2);
            let (ta, tb) = (self.edges[ka].t, self.edges[kb].t);
            for (n, (i, j)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
                let place = self.upper.entries[e][n];
                if place == usize::MAX {
                    continue;
                }
                // `x_a x_b` and `x_b x_a` share one stored entry: each
                // gives half of it off the diagonal.
                let a = self.var_start[ka] + i;
                let b = self.var_start[kb] + j;
                let weight = if a == b { 1.0 } else { 0.5 };
                self.hessian[place] += weight * w_data[idx] * ta[row % 2][i] * tb[col % 2][j];
            }
        }
        for k in 0..self.contacts.len() {
            let t = self.edges[k].t;
            let d = self.upper.blocks[k];
            // The upper triangle's (1, 0) is its (0, 1): skip it.
            for (n, (i, j)) in [(0, (0, 0)), (1, (0, 1)), (3, (1, 1))] {
                if d[n] != usize::MAX {
                    self.hessian[d[n]] += sigma * (t[0][i] * t[0][j] + t[1][i] * t[1][j]);
                }
            }
        }
    }

    fn hessian_diagonal(&self, v: usize) -> f64 {
        let k = self.var_contact[v];
        let d = self.upper.blocks[k];
        let place = if v == self.var_start[k] { d[0] } else { d[3] };
        self.hessian[place]
    }

    /// `r = T x`.
    fn impulses_from_x(&mut self) {
        for k in 0..self.contacts.len() {
            let t = self.edges[k].t;
            let (mut rn, mut rt) = (0.0, 0.0);
            for v in self.var_start[k]..self.var_start[k + 1] {
                let a = v - self.var_start[k];
                rn += t[0][a] * self.x[v];
                rt += t[1][a] * self.x[v];
            }
            self.r[2 * k] = rn;
            self.r[2 * k + 1] = rt;
        }
    }

    /// `x` of the current `r`.
    fn set_x_from_r(&mut self) {
        for k in 0..self.contacts.len() {
            let x = self.edges[k].coordinates(self.mu[k], self.r[2 * k], self.r[2 * k + 1]);
            for v in self.var_start[k]..self.var_start[k + 1] {
                self.x[v] = x[v - self.var_start[k]];
            }
        }
    }

    /// `wr = sym(W) r`.
    fn symmetric_product(&mut self, w_data: &[f64]) {
        self.wr.fill(0.0);
        for &(row, col, idx) in &self.entries {
            let w = 0.5 * w_data[idx];
            self.wr[row] += w * self.r[col];
            self.wr[col] += w * self.r[row];
        }
    }

    /// The subproblem's objective at the current `r` (with `wr` current).
    fn objective(&self, sigma: f64) -> f64 {
        let quadratic: f64 = self
            .r
            .iter()
            .zip(&self.wr)
            .map(|(r, wr)| r * (wr + sigma * r))
            .sum();
        let linear: f64 = self.x.iter().zip(&self.linear).map(|(x, c)| x * c).sum();
        0.5 * quadratic + linear
    }

    /// The subproblem's gradient `T^T (sym W + sigma I) r + linear`.
    fn gradient_from_wr(&mut self, sigma: f64) {
        for v in 0..self.x.len() {
            let k = self.var_contact[v];
            let a = v - self.var_start[k];
            let t = self.edges[k].t;
            self.gradient[v] = self.linear[v]
                + t[0][a] * (self.wr[2 * k] + sigma * self.r[2 * k])
                + t[1][a] * (self.wr[2 * k + 1] + sigma * self.r[2 * k + 1]);
        }
    }

    /// `u = W r + q` and the island's error measure.
    fn velocities_and_error(&mut self, w_data: &[f64], friction: Friction) -> f64 {
        self.u.copy_from_slice(&self.q);
        for &(row, col, idx) in &self.entries {
            self.u[row] += w_data[idx] * self.r[col];
        }
        error_for(friction, &self.mu, &self.q, &self.r, &self.u)
    }
}

#[cfg(test)]
mod tests {
    use super::local_coulomb;

    /// `u = a r + b` at the answer, checked by hand: lift-off, sticking,
    /// sliding either way, and a frictionless contact.
    #[test]
    fn one_contact_takes_each_case_of_the_law() {
        let a = [[2.0, 0.5], [0.5, 1.0]];
        let close = |r: Option<[f64; 2]>, expected: [f64; 2]| {
            let r = r.expect("an answer");
            assert!(
                (r[0] - expected[0]).abs() < 1e-12 && (r[1] - expected[1]).abs() < 1e-12,
                "{r:?} against {expected:?}"
            );
        };
        // Separating: `u = b`, normal part positive.
        close(local_coulomb(a, [1.0, -3.0], 0.5), [0.0, 0.0]);
        // Sticking at `r = (1, 0.2)`: `b = -a r`.
        close(local_coulomb(a, [-2.1, -0.7], 0.5), [1.0, 0.2]);
        // Sliding at `u = (0, 0.5)`, `r = (1, -0.5)` on the cone's edge.
        close(local_coulomb(a, [-1.75, 0.5], 0.5), [1.0, -0.5]);
        // Sliding at `u = (0, -1)`, `r = (2, 1)`.
        close(local_coulomb(a, [-4.5, -3.0], 0.5), [2.0, 1.0]);
        // Frictionless: `r_N = 2 / 2`, no tangent impulse.
        close(local_coulomb(a, [-2.0, 5.0], 0.0), [1.0, 0.0]);
    }
}
