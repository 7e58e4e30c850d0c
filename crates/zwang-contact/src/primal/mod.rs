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
//! Where the outer iterations stall (a contact that must change state
//! while its impulse is large, De Saxce's fixed point cycling, a
//! tolerance below the penalty's round-off), the dual method finishes in
//! the plane (`augmented_lagrangian.rs`) and proximal Newton iterations on `(v, r)` in
//! space (`finish.rs`).

mod augmented_lagrangian;
mod finish;
mod momentum;
mod text;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use sprs::CsMat;

use crate::error::{components, set_components};
use crate::problem::{check_finite, check_friction, check_sizes};
use crate::solver::{Report, Status, PARALLEL_FROM};
use crate::{GlobalError, ProblemError, SolverSettings, UnionFind};
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
        let x = &self.values[d * a..d * a + d];
        [x[0], x[1], if d == 3 { x[2] } else { 0.0 }]
    }

    /// `J_i v` of contact `i`: normal, tangents (zero past the dimension).
    pub fn velocity(&self, i: usize, v: &[f64]) -> [f64; 3] {
        let mut u = [0.0; 3];
        for a in self.start[i]..self.start[i + 1] {
            let (x, e) = (v[self.cols[a]], self.entry(a));
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
            for a in self.start[i]..self.start[i + 1] {
                let e = self.entry(a);
                y[self.cols[a]] += e[0] * ri[0] + e[1] * ri[1] + e[2] * ri[2];
            }
        }
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
}

impl VelocityProblem {
    /// Checks sizes, columns, finiteness and friction coefficients.
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
        crate::problem::check_finite_matrix("M", &self.mass)
    }
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
}

/// An island (velocities coupled through `M` or a contact): where its
/// velocities and contacts sit in the whole problem, its problem indexed
/// from zero, its solver, and its share of the answer.
#[derive(Debug)]
struct Part {
    coords: Vec<usize>,
    contacts: Vec<usize>,
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
        Part {
            island: Box::new(Island::new(&fresh.problem)),
            mass_entries: fresh.mass_entries,
            problem: fresh.problem,
            r: vec![0.0; d * c],
            v: vec![0.0; m],
            u: vec![0.0; d * c],
            outcome: None,
            warm: Vec::new(),
            coords: fresh.coords,
            contacts: fresh.contacts,
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
    /// and contact velocities to `u`. Allocates nothing when the pattern
    /// (`M`'s, and the columns of each contact) is the last solve's.
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
        for (what, found, expected) in [
            ("r", r.len(), d * k),
            ("u", u.len(), d * k),
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
            self.build(problem, settings.parallel && k >= PARALLEL_FROM);
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
        if settings.parallel && self.parts.len() > 1 && k >= PARALLEL_FROM {
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
            let whole = crate::error::error_for(settings.friction, &problem.mu, &self.free, r, u);
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
    }

    /// Splits the problem into islands (velocities coupled through `M`'s
    /// entries or a contact's row; those without contacts together) and
    /// builds each one's solver (on rayon's pool when `parallel`), keeping
    /// those of islands whose pattern has not changed.
    fn build(&mut self, problem: &VelocityProblem, parallel: bool) {
        let (n, k) = (problem.force.len(), problem.mu.len());
        let rows = &problem.rows;
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
        let mut labels = Vec::with_capacity(n);
        let mut count = uf.labels(&mut labels).max(1);
        // A contact touching no velocity sits in the first island.
        let island_of = |labels: &[usize], i: usize| {
            rows.cols[rows.start[i]..rows.start[i + 1]]
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
            .zip(entries)
            .map(|((coords, contacts), mut entries)| {
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
                let problem = VelocityProblem {
                    mass: CsMat::new_csc((m, m), indptr, indices, data),
                    force: coords.iter().map(|&x| problem.force[x]).collect(),
                    rows: sub_rows,
                    b: contacts
                        .iter()
                        .flat_map(|&i| problem.b[d * i..d * i + d].iter().copied())
                        .collect(),
                    mu: contacts.iter().map(|&i| problem.mu[i]).collect(),
                };
                FoundIsland {
                    coords,
                    contacts,
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
        self.free.resize(rows.dimension * k, 0.0);
        self.pattern = Some(Pattern {
            dimension: rows.dimension,
            csr: problem.mass.is_csr(),
            mass_indptr: problem.mass.indptr().raw_storage().to_vec(),
            mass_indices: problem.mass.indices().to_vec(),
            start: rows.start.clone(),
            cols: rows.cols.clone(),
        });
    }
}
