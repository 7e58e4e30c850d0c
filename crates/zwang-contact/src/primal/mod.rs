//! The velocity-level contact problem in velocities: Newton's method on
//! `v`, the Delassus operator never formed. In the plane (a normal and a
//! tangent per contact) and in space (a normal and two tangents, the
//! friction cone round): the dimension is the rows' parameter, the method
//! the same.
//!
//! `M v = f + J^T r`, `u = J v + b`, Coulomb's law at each contact (as in
//! [`crate::LocalProblem`], whose `W` is `J M^-1 J^T`). The method is the
//! augmented Lagrangian one (a proximal point method on the impulses):
//! outer iteration `k` minimises over `v`
//!
//! `phi(v) = 1/2 v^T M v - f^T v + sum_i |P_K(r_i^k - rho_i w_i(v))|^2 / (2 rho_i)`
//!
//! with `w_i = J_i v + b_i + s_i e_N`, `s_i = mu_i |u_T|` frozen at the
//! outer iterate (De Saxce's fixed point; `s = 0` for the convex form),
//! then sets `r^(k+1) = P_K(r^k - rho w(v^(k+1)))`. A fixed point is an
//! answer: `r = P_K(r - rho w)` is Coulomb's law, and `grad phi = 0` is
//! `M v = f + J^T r`. `phi` is convex and once differentiable; Newton's
//! method uses the matrix `M + sum_i rho_i J_i^T D_i J_i` (`D_i` the
//! derivative of the projection: `I` inside the cone, `0` in the polar
//! cone, on its surface `e e^T / (1 + mu^2)` in the plane, plus the
//! curvature's term in space) and a line search. In the plane the cone is
//! polyhedral, `phi` piecewise quadratic, and a step ends on its piece's
//! minimum; in space Newton's method converges on the curved surface as
//! on any smooth function. That matrix is symmetric positive definite
//! whatever the contacts (`M` is): redundant contacts (four corners of a
//! box) cost nothing. It is factored by a sparse Cholesky analysed once
//! per pattern, refactored only when some `D_i` changes, and its size is
//! the number of velocities, not of contact rows (a pyramid of boxes:
//! three per box against about eleven). Rockafellar, "Augmented
//! Lagrangians and applications of the proximal point algorithm in convex
//! programming" (1976); the primal Newton form as in Todorov, "Convex and
//! analytically-invertible dynamics with contacts and constraints"
//! (2014), here without regularisation.
//!
//! Bounded rows ([`BoundedRows`]: `u_j = g_j v + b_j`, the impulse in
//! `[lo_j, hi_j]`; equality rows, limits, dry friction at joints) join the
//! contacts as one more projection, the clamp to the box (its derivative 1
//! inside, 0 clamped), in the outer iterations and the finish alike; their
//! impulses and velocities follow the contacts' in `r` and `u`.
//!
//! Where the outer iterations stall (a contact that must change state
//! while its impulse is large, De Saxce's fixed point cycling, a
//! tolerance below the penalty's round-off), the dual method finishes in
//! the plane (`augmented_lagrangian.rs`) and proximal Newton iterations on `(v, r)` in
//! space (`finish.rs`), and in the plane too where there are bounded rows.

mod augmented_lagrangian;
mod finish;
mod momentum;
mod polish;
mod text;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use sprs::CsMat;

use crate::error::{components, error_below, natural_map, relative, set_components};
use crate::problem::{check_finite, check_friction, check_sizes};
use crate::solver::{Report, Status, PARALLEL_FROM};
use crate::{Friction, GlobalError, ProblemError, SolverSettings, UnionFind};
use augmented_lagrangian::Island;
pub use text::{parse_island, write_island, IslandText, IslandTextError};

/// `J`, stored by contact: `dimension` rows per contact, the normal then
/// the tangents (one in the plane, two in space), entry by entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactRows {
    /// Rows per contact: 2 in the plane, 3 in space.
    pub dimension: usize,
    /// Contact `i`'s entries are `start[i] .. start[i + 1]`.
    pub start: Vec<usize>,
    /// The entries' columns (entries of `v`); a column repeated within a
    /// contact counts as the sum of its entries.
    pub cols: Vec<usize>,
    /// Per entry, `dimension` values: the normal row's, then each
    /// tangent row's.
    pub values: Vec<f64>,
}

impl Default for ContactRows {
    /// Planar, no contacts.
    fn default() -> Self {
        ContactRows::new(2)
    }
}

/// One entry's values (normal, then tangents) as three, zero past the
/// dimension.
pub(crate) fn three(x: &[f64]) -> [f64; 3] {
    let at = |k: usize| x.get(k).copied().unwrap_or(0.0);
    [x[0], at(1), at(2)]
}

impl ContactRows {
    /// No contacts, `dimension` rows per contact (2 in the plane, 3 in
    /// space).
    pub fn new(dimension: usize) -> Self {
        ContactRows {
            dimension,
            start: vec![0],
            cols: Vec::new(),
            values: Vec::new(),
        }
    }

    /// No contacts (keeping the memory and the dimension).
    pub fn clear(&mut self) {
        self.start.clear();
        self.start.push(0);
        self.cols.clear();
        self.values.clear();
    }

    /// Appends a contact of entries `(column, [J_N, J_T...])`, `D` values
    /// each (`D` other than the dimension is refused by `validate`).
    pub fn push<const D: usize>(&mut self, entries: impl IntoIterator<Item = (usize, [f64; D])>) {
        for (c, values) in entries {
            self.cols.push(c);
            self.values.extend_from_slice(&values);
        }
        self.start.push(self.cols.len());
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Entry `a`'s values as three (zero past the dimension).
    pub fn entry(&self, a: usize) -> [f64; 3] {
        let d = self.dimension;
        three(&self.values[d * a..d * a + d])
    }

    /// Contact `i`'s entries in order: column, and values as three (zero
    /// past the dimension). The solvers' inner loops walk these: one pass
    /// over the contact's slices, not an index per entry.
    pub fn entries(&self, i: usize) -> impl Iterator<Item = (usize, [f64; 3])> + '_ {
        let (s, e) = (self.start[i], self.start[i + 1]);
        let d = self.dimension.max(1);
        let values = self.values[d * s..d * e].chunks_exact(d);
        self.cols[s..e]
            .iter()
            .zip(values)
            .map(|(&c, x)| (c, three(x)))
    }

    /// `J_i v` of contact `i`: normal, tangents (zero past the dimension).
    pub fn velocity(&self, i: usize, v: &[f64]) -> [f64; 3] {
        let mut u = [0.0; 3];
        for (c, e) in self.entries(i) {
            let x = v[c];
            for (ui, ei) in u.iter_mut().zip(e) {
                *ui += ei * x;
            }
        }
        u
    }

    /// `y += J^T r`.
    pub fn add_transpose(&self, r: &[f64], y: &mut [f64]) {
        let d = self.dimension;
        for i in 0..self.contacts() {
            let ri = crate::error::components(r, d, i);
            for (c, e) in self.entries(i) {
                y[c] += e[0] * ri[0] + e[1] * ri[1] + e[2] * ri[2];
            }
        }
    }
}

/// Scalar rows over `v` whose impulses lie in a box: row `j` is `g_j`,
/// its velocity `u_j = g_j v + b_j`, its impulse `r_j` in `[lo_j, hi_j]`
/// with the mixed complementarity `r_j = lo_j => u_j >= 0`,
/// `r_j = hi_j => u_j <= 0`, `lo_j < r_j < hi_j => u_j = 0` (that is,
/// `r_j = clamp(r_j - u_j, lo_j, hi_j)`). An equality row has `lo = -inf`,
/// `hi = +inf` (`u = 0`); a limit `lo = 0`, `hi = +inf` (a frictionless
/// one-sided constraint); dry friction at a joint `lo = -F`, `hi = F`
/// (`F` the largest impulse over the step). Stored entry by entry as
/// [`ContactRows`] stores contacts.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundedRows {
    /// Row `j`'s entries are `start[j] .. start[j + 1]` (`[0]` or empty
    /// for no rows).
    pub start: Vec<usize>,
    /// The entries' columns (entries of `v`); a column repeated within a
    /// row counts as the sum of its entries.
    pub cols: Vec<usize>,
    /// The entries' values.
    pub values: Vec<f64>,
    /// Per row, the free term of its velocity.
    pub b: Vec<f64>,
    /// Per row, the impulse's lower bound (`-inf` allowed).
    pub lo: Vec<f64>,
    /// Per row, the impulse's upper bound (`+inf` allowed).
    pub hi: Vec<f64>,
}

impl Default for BoundedRows {
    /// No rows.
    fn default() -> Self {
        BoundedRows::new()
    }
}

impl BoundedRows {
    /// No rows.
    pub fn new() -> Self {
        BoundedRows {
            start: vec![0],
            cols: Vec::new(),
            values: Vec::new(),
            b: Vec::new(),
            lo: Vec::new(),
            hi: Vec::new(),
        }
    }

    /// No rows (keeping the memory).
    pub fn clear(&mut self) {
        self.start.clear();
        self.start.push(0);
        for x in [&mut self.values, &mut self.b, &mut self.lo, &mut self.hi] {
            x.clear();
        }
        self.cols.clear();
    }

    /// Appends the row of entries `(column, value)`, velocity term `b`
    /// and impulse bounds `[lo, hi]`.
    pub fn push(
        &mut self,
        entries: impl IntoIterator<Item = (usize, f64)>,
        b: f64,
        lo: f64,
        hi: f64,
    ) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        for (c, value) in entries {
            self.cols.push(c);
            self.values.push(value);
        }
        self.start.push(self.cols.len());
        self.b.push(b);
        self.lo.push(lo);
        self.hi.push(hi);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Row `j`'s entries.
    pub(crate) fn entries(&self, j: usize) -> std::ops::Range<usize> {
        self.start[j]..self.start[j + 1]
    }

    /// `g_j v` of row `j` (without `b_j`).
    pub fn velocity(&self, j: usize, v: &[f64]) -> f64 {
        self.entries(j)
            .map(|a| self.values[a] * v[self.cols[a]])
            .sum()
    }

    /// `y += G^T r`.
    pub fn add_transpose(&self, r: &[f64], y: &mut [f64]) {
        for (j, &rj) in r.iter().enumerate().take(self.len()) {
            for a in self.entries(j) {
                y[self.cols[a]] += self.values[a] * rj;
            }
        }
    }

    /// `r_j` clamped to its box.
    pub fn clamp(&self, j: usize, r: f64) -> f64 {
        r.max(self.lo[j]).min(self.hi[j])
    }

    /// Checks sizes, columns (below `n`), finiteness and bounds.
    fn validate(&self, n: usize) -> Result<(), ProblemError> {
        let m = self.len();
        let rows = if self.start.is_empty() {
            0
        } else {
            self.start.len() - 1
        };
        check_sizes(&[
            ("the bounded rows' starts", rows, m),
            ("the bounded rows' b", self.b.len(), m),
            ("the bounded rows' hi", self.hi.len(), m),
            (
                "the bounded rows' values",
                self.values.len(),
                self.cols.len(),
            ),
        ])?;
        let ends = self.start.windows(2).all(|w| w[0] <= w[1])
            && self.start.first().is_none_or(|&s| s == 0)
            && self.start.last().copied().unwrap_or(0) == self.cols.len();
        if !ends {
            return Err(ProblemError::Size {
                what: "the bounded rows' starts",
                found: self.start.last().copied().unwrap_or(0),
                expected: self.cols.len(),
            });
        }
        if let Some(&c) = self.cols.iter().find(|&&c| c >= n) {
            return Err(ProblemError::Size {
                what: "a column of a bounded row",
                found: c,
                expected: n,
            });
        }
        check_finite("the bounded rows' values", &self.values)?;
        check_finite("the bounded rows' b", &self.b)?;
        for (row, (&lo, &hi)) in self.lo.iter().zip(&self.hi).enumerate() {
            // `lo <= hi`, no NaN, and neither bound the wrong infinity.
            if !(lo <= hi && lo < f64::INFINITY && hi > f64::NEG_INFINITY) {
                return Err(ProblemError::Bounds { row, lo, hi });
            }
        }
        Ok(())
    }
}

/// `M v = f + J^T r`, `u = J v + b`, Coulomb's law at each contact.
#[derive(Debug, Clone, PartialEq)]
pub struct VelocityProblem {
    /// The mass matrix (symmetric positive definite; all its entries, or
    /// its upper triangle only).
    pub mass: CsMat<f64>,
    /// The momentum without impulses (`M v*`, `v*` the free velocity).
    pub force: Vec<f64>,
    /// The contacts' rows.
    pub rows: ContactRows,
    /// The free term of the contact velocities (restitution, gaps).
    pub b: Vec<f64>,
    /// One friction coefficient per contact.
    pub mu: Vec<f64>,
    /// The rows whose impulses lie in a box (none for contacts alone):
    /// their impulses and velocities follow the contacts' in the answer
    /// ([`PrimalSolver::solve_in_place`]).
    pub bounded: BoundedRows,
}

/// The size of a problem ([`VelocityProblem::unknowns`]) up to which the
/// proximal finish may take all of [`SolverSettings::finish_steps`]
/// (beyond it, fewer, as the cube of the size): where it is the cheap way
/// to an answer.
pub const FINISH_SIZE: usize = finish::BUDGET_SIZE;

impl VelocityProblem {
    /// Velocities, rows per contact, contacts and bounded rows.
    pub(crate) fn sizes(&self) -> (usize, usize, usize, usize) {
        let d = self.rows.dimension;
        (self.force.len(), d, self.mu.len(), self.bounded.len())
    }

    /// Velocities plus impulses (the contacts' rows and the bounded rows).
    pub fn unknowns(&self) -> usize {
        self.force.len() + self.rows.dimension * self.mu.len() + self.bounded.len()
    }

    /// Checks sizes, columns, finiteness, friction coefficients and the
    /// bounded rows' boxes.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let n = self.force.len();
        let k = self.mu.len();
        let d = self.rows.dimension;
        if d != 2 && d != 3 {
            return Err(ProblemError::Dimension(d));
        }
        check_sizes(&[
            ("M's rows", self.mass.rows(), n),
            ("M's columns", self.mass.cols(), n),
            ("J's contacts", self.rows.contacts(), k),
            ("b", self.b.len(), d * k),
            (
                "J's values",
                self.rows.values.len(),
                d * self.rows.cols.len(),
            ),
        ])?;
        let ends = self.rows.start.windows(2).all(|w| w[0] <= w[1])
            && self.rows.start.first() == Some(&0)
            && self.rows.start.last() == Some(&self.rows.cols.len());
        if !ends {
            return Err(ProblemError::Size {
                what: "J's contact starts",
                found: self.rows.start.last().copied().unwrap_or(0),
                expected: self.rows.cols.len(),
            });
        }
        if let Some(&c) = self.rows.cols.iter().find(|&&c| c >= n) {
            return Err(ProblemError::Size {
                what: "a column of J",
                found: c,
                expected: n,
            });
        }
        check_friction(&self.mu)?;
        check_finite("f", &self.force)?;
        check_finite("b", &self.b)?;
        check_finite("J's values", &self.rows.values)?;
        self.bounded.validate(n)?;
        crate::problem::check_finite_matrix("M", &self.mass)
    }
}

/// The solvers' stopping measure ([`crate::error_for`]) with the bounded rows'
/// terms: the natural map's residual of the contacts and, per bounded
/// row, `r_j - clamp(r_j - u_j, lo_j, hi_j)`, as one vector norm, relative
/// to `max(|q|, |r|, |u|, |t|)` over contacts and bounded rows alike (`q`,
/// `r`, `u` hold the contacts' then the bounded rows'; `t_j = sum_i
/// |g_ji v_i| + |b_j|`, the terms a bounded row's `u_j` is summed from, so
/// that a row the free motion already keeps, `q_j` and `u_j` round-off
/// of a cancellation, is not held to a tolerance below that round-off).
/// Without bounded rows, [`crate::error_for`] itself.
pub(crate) fn bounded_error(
    friction: Friction,
    floor: f64,
    problem: &VelocityProblem,
    q: &[f64],
    r: &[f64],
    u: &[f64],
    v: &[f64],
) -> f64 {
    let bounded = &problem.bounded;
    if bounded.is_empty() {
        return error_below(friction, &problem.mu, q, r, u, floor);
    }
    let dk = problem.rows.dimension * problem.mu.len();
    let contacts = natural_map(friction, &problem.mu, &r[..dk], &u[..dk]);
    let mut sum = contacts * contacts;
    let mut terms = 0.0;
    for j in 0..bounded.len() {
        let (x, w) = (r[dk + j], u[dk + j]);
        sum += (x - bounded.clamp(j, x - w)).powi(2);
        let entries = bounded.start[j]..bounded.start[j + 1];
        let t = bounded.cols[entries.clone()]
            .iter()
            .zip(&bounded.values[entries])
            .map(|(&c, g)| (g * v[c]).abs())
            .sum::<f64>()
            + bounded.b[j].abs();
        terms += t * t;
    }
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let scale = norm(q).max(norm(r)).max(norm(u)).max(terms.sqrt());
    relative(sum.sqrt(), scale, floor)
}

/// The pattern the workspace was built for.
#[derive(Debug, Default, PartialEq)]
struct Pattern {
    dimension: usize,
    csr: bool,
    mass_indptr: Vec<usize>,
    mass_indices: Vec<usize>,
    start: Vec<usize>,
    cols: Vec<usize>,
    bounded_start: Vec<usize>,
    bounded_cols: Vec<usize>,
}

/// An island (velocities coupled through `M` or a contact): where its
/// velocities and contacts sit in the whole problem, its problem indexed
/// from zero, its solver, and its share of the answer.
#[derive(Debug)]
struct Part {
    coords: Vec<usize>,
    contacts: Vec<usize>,
    /// The bounded rows it holds, in the whole problem.
    bounded: Vec<usize>,
    /// Per stored entry of the island's `M`, the entry of the whole `M`
    /// it copies.
    mass_entries: Vec<usize>,
    problem: VelocityProblem,
    /// Boxed: an island's solver is kilobytes of vectors and options, and
    /// parts move between lists whenever the pattern changes.
    island: Box<Island>,
    r: Vec<f64>,
    v: Vec<f64>,
    u: Vec<f64>,
    /// The last solve's outcome (`None` before the first).
    outcome: Option<Result<Report, GlobalError>>,
    /// The warm start of the solve under way, kept (only) where
    /// unsolved islands are written.
    warm: Vec<f64>,
}

/// Writes `problem`, solved from `warm` with `settings` to `report`, as
/// text to a file of its own in `directory` (made if missing); a file that
/// cannot be written is skipped (a diagnostic does not stop a run).
fn write_unsolved(
    directory: &Path,
    problem: &VelocityProblem,
    warm: &[f64],
    settings: &SolverSettings,
    report: &Report,
) {
    static WRITTEN: AtomicUsize = AtomicUsize::new(0);
    let n = WRITTEN.fetch_add(1, Ordering::Relaxed);
    let comment = format!(
        "An island left {:?}: error {:e} after {} outer iterations and {} Newton steps; \
         {} contacts, {} velocities.",
        report.status,
        report.error,
        report.iterations,
        report.newton_steps,
        problem.mu.len(),
        problem.force.len()
    );
    let path = directory.join(format!("island-{}-{n:06}.txt", std::process::id()));
    let _ = std::fs::create_dir_all(directory);
    let _ = std::fs::write(path, write_island(problem, warm, Some(settings), &comment));
}

/// An island as the partition found it, before its solver: where its
/// velocities, contacts and `M`'s entries sit in the whole problem, and its
/// problem indexed from zero.
struct FoundIsland {
    coords: Vec<usize>,
    contacts: Vec<usize>,
    bounded: Vec<usize>,
    mass_entries: Vec<usize>,
    problem: VelocityProblem,
}

/// An island of a new pattern: a kept solver, or one to build.
enum Placement {
    Reused(Part),
    New(FoundIsland),
}

impl Part {
    /// Builds the solver of `fresh`.
    fn new(fresh: FoundIsland) -> Part {
        let d = fresh.problem.rows.dimension;
        let (m, c) = (fresh.coords.len(), fresh.contacts.len());
        let rows = d * c + fresh.bounded.len();
        Part {
            island: Box::new(Island::new(&fresh.problem)),
            mass_entries: fresh.mass_entries,
            problem: fresh.problem,
            r: vec![0.0; rows],
            v: vec![0.0; m],
            u: vec![0.0; rows],
            outcome: None,
            warm: Vec::new(),
            coords: fresh.coords,
            contacts: fresh.contacts,
            bounded: fresh.bounded,
        }
    }

    /// Whether `fresh` is this island's pattern: the same velocities, `M`'s
    /// pattern and contacts' columns (its numbers are copied at each solve).
    fn same_pattern(&self, fresh: &FoundIsland) -> bool {
        let (a, b) = (&self.problem, &fresh.problem);
        self.coords == fresh.coords
            && a.rows.dimension == b.rows.dimension
            && a.mass.indptr().raw_storage() == b.mass.indptr().raw_storage()
            && a.mass.indices() == b.mass.indices()
            && a.rows.start == b.rows.start
            && a.rows.cols == b.rows.cols
            && a.bounded.start == b.bounded.start
            && a.bounded.cols == b.bounded.cols
    }

    /// Copies the island's numbers from `whole` (and its warm start from
    /// `r`), solves, and keeps the outcome; writes the island to
    /// `unsolved_to` if it ends unsolved.
    fn solve(
        &mut self,
        whole: &VelocityProblem,
        settings: &SolverSettings,
        r: &[f64],
        unsolved_to: Option<&Path>,
    ) {
        let p = &mut self.problem;
        for (x, &c) in p.force.iter_mut().zip(&self.coords) {
            *x = whole.force[c];
        }
        let data = whole.mass.data();
        for (x, &e) in p.mass.data_mut().iter_mut().zip(&self.mass_entries) {
            *x = data[e];
        }
        let d = whole.rows.dimension;
        for (local, &i) in self.contacts.iter().enumerate() {
            let (from, to) = (whole.rows.start[i], whole.rows.start[i + 1]);
            let at = p.rows.start[local];
            let len = to - from;
            p.rows.values[d * at..d * (at + len)]
                .copy_from_slice(&whole.rows.values[d * from..d * to]);
            set_components(&mut p.b, d, local, components(&whole.b, d, i));
            p.mu[local] = whole.mu[i];
            set_components(&mut self.r, d, local, components(r, d, i));
        }
        let (dk, dc) = (d * whole.mu.len(), d * self.contacts.len());
        for (local, &j) in self.bounded.iter().enumerate() {
            let (from, to) = (whole.bounded.start[j], whole.bounded.start[j + 1]);
            let at = p.bounded.start[local];
            p.bounded.values[at..at + to - from].copy_from_slice(&whole.bounded.values[from..to]);
            p.bounded.b[local] = whole.bounded.b[j];
            p.bounded.lo[local] = whole.bounded.lo[j];
            p.bounded.hi[local] = whole.bounded.hi[j];
            self.r[dc + local] = r[dk + j];
        }
        if unsolved_to.is_some() {
            self.warm.clone_from(&self.r);
        }
        let outcome =
            self.island
                .solve_in_place(p, settings, &mut self.r, &mut self.v, &mut self.u);
        if let (Some(directory), Ok(report)) = (unsolved_to, &outcome) {
            if report.status != Status::Solved {
                write_unsolved(directory, p, &self.warm, settings, report);
            }
        }
        self.outcome = Some(outcome.map_err(|e| match e {
            GlobalError::MassNotPositiveDefinite { coordinate } => {
                GlobalError::MassNotPositiveDefinite {
                    coordinate: self.coords[coordinate],
                }
            }
            other => other,
        }));
    }
}

/// The solver and its working memory: one island solver per island of the
/// problem, solved on rayon's pool from 256 contacts on.
#[derive(Debug, Default)]
pub struct PrimalSolver {
    pattern: Option<Pattern>,
    parts: Vec<Part>,
    /// The whole problem's free contact velocities, gathered from the
    /// islands (the scale of its measure).
    free: Vec<f64>,
    /// Where the islands left unsolved are written, if anywhere.
    unsolved_to: Option<PathBuf>,
}

impl PrimalSolver {
    /// A solver with empty working memory; the islands it leaves unsolved
    /// are written (`docs/island-format.md`) to the directory the
    /// environment variable `ZWANG_DUMP_UNSOLVED` names, if set.
    pub fn new() -> Self {
        PrimalSolver {
            unsolved_to: std::env::var_os("ZWANG_DUMP_UNSOLVED").map(PathBuf::from),
            ..PrimalSolver::default()
        }
    }

    /// Writes each island a solve leaves unsolved, as text, to a file of
    /// its own in `directory` (`None`: nowhere), so that hard islands met in
    /// a long run can be solved again alone.
    pub fn write_unsolved_to(&mut self, directory: Option<PathBuf>) {
        self.unsolved_to = directory;
    }

    /// Solves `problem` from the impulses in `r` (the warm start; zeros
    /// for none), writing the answer's impulses to `r`, velocities to `v`
    /// and contact velocities to `u`. `r` and `u` hold the contacts'
    /// (`dimension` per contact) and then the bounded rows' (one per row):
    /// `d k + m` entries for `k` contacts and `m` bounded rows. Allocates
    /// nothing when the pattern (`M`'s, and the columns of each contact
    /// and bounded row) is the last solve's.
    pub fn solve_in_place(
        &mut self,
        problem: &VelocityProblem,
        settings: &SolverSettings,
        r: &mut [f64],
        v: &mut [f64],
        u: &mut [f64],
    ) -> Result<Report, GlobalError> {
        problem.validate()?;
        settings.validate()?;
        let (n, k, d) = (
            problem.force.len(),
            problem.mu.len(),
            problem.rows.dimension,
        );
        let (m, dk) = (problem.bounded.len(), d * k);
        for (what, found, expected) in [
            ("r", r.len(), dk + m),
            ("u", u.len(), dk + m),
            ("v", v.len(), n),
        ] {
            if found != expected {
                return Err(ProblemError::Size {
                    what,
                    found,
                    expected,
                }
                .into());
            }
        }
        if let Some(index) = r.iter().position(|x| !x.is_finite()) {
            return Err(ProblemError::NotFinite {
                what: "the warm start",
                index,
            }
            .into());
        }
        if !self.same_pattern(problem) {
            self.build(problem, settings.parallel && k + m >= PARALLEL_FROM);
        }
        let warm: &[f64] = r;
        let original = settings.tolerance;
        // Each island to a share of the tolerance, so that the whole
        // problem's measure (checked below) meets it too.
        let shared = SolverSettings {
            tolerance: if self.parts.len() > 1 {
                settings.tolerance / 2.0
            } else {
                settings.tolerance
            },
            ..*settings
        };
        let settings = &shared;
        let unsolved_to = self.unsolved_to.as_deref();
        if settings.parallel && self.parts.len() > 1 && k + m >= PARALLEL_FROM {
            self.parts
                .par_iter_mut()
                .for_each(|part| part.solve(problem, settings, warm, unsolved_to));
        } else {
            for part in &mut self.parts {
                part.solve(problem, settings, warm, unsolved_to);
            }
        }
        let mut report = Report {
            status: Status::Solved,
            error: 0.0,
            iterations: 0,
            newton_steps: 0,
            islands: 0,
            dual: false,
        };
        for part in &self.parts {
            let island = part.outcome.clone().expect("just solved")?;
            for (local, &c) in part.coords.iter().enumerate() {
                v[c] = part.v[local];
            }
            let free = part.island.free();
            for (local, &i) in part.contacts.iter().enumerate() {
                set_components(r, d, i, components(&part.r, d, local));
                set_components(u, d, i, components(&part.u, d, local));
                set_components(&mut self.free, d, i, components(free, d, local));
            }
            let dc = d * part.contacts.len();
            for (local, &j) in part.bounded.iter().enumerate() {
                r[dk + j] = part.r[dc + local];
                u[dk + j] = part.u[dc + local];
                self.free[dk + j] = free[dc + local];
            }
            report.status = match (report.status, island.status) {
                (Status::Unbounded, _) | (_, Status::Unbounded) => Status::Unbounded,
                (Status::Solved, Status::Solved) => Status::Solved,
                _ => Status::NotConverged,
            };
            report.error = report.error.max(island.error);
            report.iterations = report.iterations.max(island.iterations);
            report.newton_steps += island.newton_steps;
            report.islands += island.islands;
            report.dual |= island.dual;
        }
        if self.parts.len() > 1 {
            let whole = bounded_error(
                settings.friction,
                settings.absolute_below,
                problem,
                &self.free,
                r,
                u,
                v,
            );
            report.error = report.error.max(whole);
            if report.status == Status::Solved && report.error > original {
                report.status = Status::NotConverged;
            }
        }
        Ok(report)
    }

    fn same_pattern(&self, problem: &VelocityProblem) -> bool {
        let Some(p) = &self.pattern else {
            return false;
        };
        let m = &problem.mass;
        p.dimension == problem.rows.dimension
            && p.csr == m.is_csr()
            && p.mass_indptr.as_slice() == m.indptr().raw_storage()
            && p.mass_indices.as_slice() == m.indices()
            && p.start == problem.rows.start
            && p.cols == problem.rows.cols
            && p.bounded_start == problem.bounded.start
            && p.bounded_cols == problem.bounded.cols
    }

    /// Splits the problem into islands (velocities coupled through `M`'s
    /// entries, a contact's rows or a bounded row; those without contacts
    /// or bounded rows together) and
    /// builds each one's solver (on rayon's pool when `parallel`), keeping
    /// those of islands whose pattern has not changed.
    fn build(&mut self, problem: &VelocityProblem, parallel: bool) {
        let (n, k) = (problem.force.len(), problem.mu.len());
        let rows = &problem.rows;
        let bounded = &problem.bounded;
        let m = bounded.len();
        let mut uf = UnionFind::new(n);
        for (_, (a, b)) in problem.mass.iter() {
            uf.union(a, b);
        }
        for i in 0..k {
            let cols = &rows.cols[rows.start[i]..rows.start[i + 1]];
            for &c in cols {
                uf.union(c, cols[0]);
            }
        }
        for j in 0..m {
            let cols = &bounded.cols[bounded.entries(j)];
            for &c in cols {
                uf.union(c, cols[0]);
            }
        }
        let mut labels = Vec::with_capacity(n);
        let mut count = uf.labels(&mut labels).max(1);
        // A contact (or bounded row) touching no velocity sits in the
        // first island.
        let island_of = |labels: &[usize], i: usize| {
            rows.cols[rows.start[i]..rows.start[i + 1]]
                .first()
                .map_or(0, |&c| labels[c])
        };
        let bounded_island_of = |labels: &[usize], j: usize| {
            bounded.cols[bounded.entries(j)]
                .first()
                .map_or(0, |&c| labels[c])
        };
        // The islands without contacts (free bodies, whose velocities are
        // `M^-1 f`) are one island: one factorization of their `M` for all,
        // where each had a solver of its own (1,024 boxes falling, 1,024
        // islands).
        let mut touched = vec![false; count];
        for i in 0..k {
            touched[island_of(&labels, i)] = true;
        }
        for j in 0..m {
            touched[bounded_island_of(&labels, j)] = true;
        }
        if let Some(first_free) = touched.iter().position(|t| !t) {
            let mut renumber = vec![0; count];
            let mut next = 0;
            for (l, &t) in touched.iter().enumerate() {
                if t || l == first_free {
                    renumber[l] = next;
                    next += 1;
                }
            }
            for (l, &t) in touched.iter().enumerate() {
                if !t {
                    renumber[l] = renumber[first_free];
                }
            }
            for x in &mut labels {
                *x = renumber[*x];
            }
            count = next;
        }
        let mut coords = vec![Vec::new(); count];
        let mut local = vec![0; n];
        for (c, &l) in labels.iter().enumerate() {
            local[c] = coords[l].len();
            coords[l].push(c);
        }
        let mut contacts = vec![Vec::new(); count];
        for i in 0..k {
            contacts[island_of(&labels, i)].push(i);
        }
        let mut bounded_rows = vec![Vec::new(); count];
        for j in 0..m {
            bounded_rows[bounded_island_of(&labels, j)].push(j);
        }
        // Each island's `M` by compressed columns, and where its entries
        // come from.
        let mut entries = vec![Vec::new(); count];
        for (e, (_, (a, b))) in problem.mass.iter().enumerate() {
            entries[labels[a]].push((local[b], local[a], e));
        }
        let d = rows.dimension;
        let fresh: Vec<FoundIsland> = coords
            .into_iter()
            .zip(contacts)
            .zip(bounded_rows)
            .zip(entries)
            .map(|(((coords, contacts), bounded_rows), mut entries)| {
                entries.sort_unstable();
                let m = coords.len();
                let mut indptr = vec![0; m + 1];
                for &(col, _, _) in &entries {
                    indptr[col + 1] += 1;
                }
                for j in 0..m {
                    indptr[j + 1] += indptr[j];
                }
                let indices = entries.iter().map(|&(_, row, _)| row).collect();
                let data = entries
                    .iter()
                    .map(|&(_, _, e)| problem.mass.data()[e])
                    .collect();
                let mut sub_rows = ContactRows::new(d);
                for &i in &contacts {
                    let (from, to) = (rows.start[i], rows.start[i + 1]);
                    sub_rows
                        .cols
                        .extend(rows.cols[from..to].iter().map(|&c| local[c]));
                    sub_rows
                        .values
                        .extend_from_slice(&rows.values[d * from..d * to]);
                    sub_rows.start.push(sub_rows.cols.len());
                }
                let mut sub_bounded = BoundedRows::new();
                for &j in &bounded_rows {
                    let e = bounded.entries(j);
                    sub_bounded.push(
                        bounded.cols[e.clone()]
                            .iter()
                            .map(|&c| local[c])
                            .zip(bounded.values[e].iter().copied()),
                        bounded.b[j],
                        bounded.lo[j],
                        bounded.hi[j],
                    );
                }
                let problem = VelocityProblem {
                    mass: CsMat::new_csc((m, m), indptr, indices, data),
                    force: coords.iter().map(|&x| problem.force[x]).collect(),
                    rows: sub_rows,
                    b: contacts
                        .iter()
                        .flat_map(|&i| problem.b[d * i..d * i + d].iter().copied())
                        .collect(),
                    mu: contacts.iter().map(|&i| problem.mu[i]).collect(),
                    bounded: sub_bounded,
                };
                FoundIsland {
                    coords,
                    contacts,
                    bounded: bounded_rows,
                    mass_entries: entries.iter().map(|&(_, _, e)| e).collect(),
                    problem,
                }
            })
            .collect();
        // An island whose pattern is one of the last problem's (the same
        // velocities, `M`'s pattern and contacts' columns) keeps that one's
        // solver: its analysis and working memory. A landing pile changes
        // some contacts at every step; most islands stay as they were, and
        // the free bodies' one while none of them touches anything.
        let mut old: Vec<Option<Part>> = std::mem::take(&mut self.parts)
            .into_iter()
            .map(Some)
            .collect();
        let mut by_first = vec![usize::MAX; n];
        for (j, part) in old.iter().enumerate() {
            if let Some(&first) = part.as_ref().and_then(|p| p.coords.first()) {
                if first < n {
                    by_first[first] = j;
                }
            }
        }
        let kept: Vec<Placement> = fresh
            .into_iter()
            .map(|f| {
                let j = f.coords.first().map_or(usize::MAX, |&c| by_first[c]);
                match old.get_mut(j) {
                    Some(slot) if slot.as_ref().is_some_and(|p| p.same_pattern(&f)) => {
                        let mut part = slot.take().expect("checked");
                        part.contacts = f.contacts;
                        part.bounded = f.bounded;
                        part.mass_entries = f.mass_entries;
                        Placement::Reused(part)
                    }
                    _ => Placement::New(f),
                }
            })
            .collect();
        let new = |found: Placement| match found {
            Placement::Reused(part) => part,
            Placement::New(fresh) => Part::new(fresh),
        };
        self.parts = if parallel {
            kept.into_par_iter().map(new).collect()
        } else {
            kept.into_iter().map(new).collect()
        };
        self.free.clear();
        self.free.resize(rows.dimension * k + m, 0.0);
        self.pattern = Some(Pattern {
            dimension: rows.dimension,
            csr: problem.mass.is_csr(),
            mass_indptr: problem.mass.indptr().raw_storage().to_vec(),
            mass_indices: problem.mass.indices().to_vec(),
            start: rows.start.clone(),
            cols: rows.cols.clone(),
            bounded_start: bounded.start.clone(),
            bounded_cols: bounded.cols.clone(),
        });
    }
}
