//! Where the outer iterations stall in space: proximal iterations on the
//! impulses, each a semismooth Newton method on Coulomb's law and
//! Newton's together, in `(v, r)`.
//!
//! The augmented Lagrangian iterations move the impulses by the penalty
//! times the contact velocities' error: where a contact must change state
//! (a corner that must lift, its impulse falling from its share of a
//! load to nothing) they take as many iterations as the impulse is large
//! against that error, and De Saxce's slip, frozen for each, can cycle.
//! In the plane the dual method finishes, on `W` in the cone's edge
//! coordinates, which the round cone has not. Here Newton's method moves
//! the impulses freely: it solves
//!
//! `F_v = D_M^-1 (M v - f - J^T r) = 0`,
//! `F_r,i = (r_i - P_K(r_i - rho_i (w_i(v) + sigma_i (r_i - c_i)))) / rho_i = 0`
//!
//! with `w_i = J_i v + b_i + mu_i |u_T,i| e_N` (the slip not frozen),
//! `D_M` `M`'s diagonal, `rho_i = 1 / W_ii` (both blocks are velocities),
//! by its generalised Jacobian (the projection's derivative `D_i`, and the
//! slip's through `s_i = u_T,i / |u_T,i|`); steps damped until `|F|^2`
//! falls (Armijo), but for one full step a proximal problem may take on
//! trial past a kink (Chamberlain's watchdog). Each contact's impulse is
//! eliminated from the Newton equations by its `d x d` block
//! `A_i = (I - D_i) / rho_i + sigma_i D_i` (invertible, and inverted in
//! `D_i`'s eigenvectors, exact however small `sigma_i`), which leaves
//! `M + sum J_i^T A_i^-1 D_i J^_i` in the velocities (`J^_i` the rows
//! with the slip's derivative): the pattern of the outer iterations'
//! Newton matrix, not symmetric under the exact law, so a sparse LU,
//! analysed once per pattern, of the velocities' size instead of
//! velocities and impulses (a landing pile's islands: a quarter).
//! The proximal term `sigma_i (r_i - c_i)` (the problem of `W + sigma I`,
//! centred on the last iterate `c`) keeps the Jacobian regular when
//! redundant contacts stick or slide (the impulses of a box's four
//! corners are not unique), and vanishes as `c` converges: Siconos' PROX
//! method (Acary, Bremond and Huber, "On solving contact problems with
//! Coulomb friction: formulations and numerical comparisons", 2018) in
//! velocities and impulses, on Alart and Curnier's mixed formulation
//! (1991) of De Saxce's law.
//!
//! Under the exact law, an island the proximal iterations leave above
//! the tolerance is polished from their best iterate: its contacts'
//! pieces guessed and solved as smooth equations ([`super::polish`]),
//! which the verge of sliding does not slow.
//!
//! A bounded row (an impulse in a box, [`super::BoundedRows`]) is a
//! contact of one component whose projection is the clamp to its box:
//! `D_j` is 1 inside it, 0 clamped, and its block `A_j` a number. The
//! finish takes them in the plane too, where the dual method does not.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

use super::momentum::MassView;
use super::polish::{self, Polish};
use super::{bounded_error, VelocityProblem};
use crate::error::{components, cone_spectrum, project_on_cone, set_components};
use crate::pattern::{compress, for_each_stored, mass_places, newton_is_full, place};
use crate::solver::Status;
use crate::sparse_lu::SparseLu;
use crate::{Friction, SolverSettings};

/// Most proximal iterations (at least; a fifth of the budget when that
/// is more), and Newton steps in each.
const MAX_OUTER: usize = 40;
const MAX_NEWTON: usize = 40;
/// A finish's Newton steps in all ([`crate::SolverSettings`]'
/// `finish_steps`, default 200) are for islands of up to `BUDGET_SIZE`
/// unknowns; fewer on larger ones, as the cube of their size (velocities
/// and impulses: a factorisation's cost grows faster than the size), none
/// past about 2,900 by default (a pile whose island holds every box,
/// which the finish has not been seen to solve). The best iterate is the
/// answer when they run out. A larger budget solves more of a landing
/// pile's hardest islands, at a cost the default does not pay
/// (measurements: `docs/benchmarks.md`).
pub(super) const BUDGET_SIZE: usize = 500;
/// The proximal weight, relative to a contact's `W_ii`, is `SIGMA_GAIN`
/// times the error at the centre (Siconos' PROX: `alpha = sigma error`),
/// `SIGMA_RAISE` times stronger after a proximal problem that Newton's
/// steps did not solve, and at most `SIGMA_RAISE` times weaker after one
/// they did, between `SIGMA_FLOOR` and `SIGMA_CEILING`: a strong pull to
/// the centre far from an answer, none near one. Dropped at once to a
/// small error's share, the weight fell far below the last that worked,
/// and Newton's steps failed four times for each proximal problem they
/// solved, moving the iterate away each time (a landing humanoid's
/// islands, `docs/benchmarks.md`). A fixed
/// weak one left the exact law where the convex form's answer lies, and
/// Siconos' gain (5 on `W` itself, 0.5 relative to `W_ii`) solved fewer
/// of a landing pile's islands (`docs/benchmarks.md`).
const SIGMA_GAIN: f64 = 0.05;
const SIGMA_RAISE: f64 = 10.0;
const SIGMA_FLOOR: f64 = 1e-14;
const SIGMA_CEILING: f64 = 1.0;
/// A proximal problem is solved when `|F|` falls to this fraction of what
/// it was at its centre (Siconos' inner tolerance, a tenth of the error).
const INNER_CUT: f64 = 0.1;
/// A proximal problem's Newton iterations end when `STUCK_STEPS` of them
/// have not brought `|F|^2` below `STUCK_GAIN` times what it was: the
/// next proximal problem (a new centre), or the convex form's answer,
/// goes on: finishes that crawl at that pace end unsolved anyway, and
/// stopping them costs no answers (`docs/benchmarks.md`).
const STUCK_STEPS: usize = 3;
const STUCK_GAIN: f64 = 0.9;
/// Armijo's fraction of the predicted decrease.
const ARMIJO: f64 = 1e-4;
/// A full Newton step that Armijo refuses is taken once per proximal
/// problem on trial (the watchdog of Chamberlain, Powell, Lemarechal and
/// Pedersen, "The watchdog technique for forcing convergence in
/// algorithms for constrained optimization", 1982), if `|F|^2` grows by
/// at most `WATCH_GROWTH`: where a contact's piece changes along the
/// step, the damped steps crawl towards the kink, one factorisation
/// each, and the step from past it lands. The point before it comes
/// back, and the damped search goes on from there, unless `WATCH_STEPS`
/// steps later `|F|^2` is below where it was by Armijo's fraction. On a
/// landing humanoid, trials that grew `|F|^2` more than 3e5-fold failed
/// four times in five, those below one in fourteen; between 1e3 and 1e6
/// the bound matters little (`docs/benchmarks.md`).
const WATCH_GROWTH: f64 = 1e5;
const WATCH_STEPS: usize = 2;
/// The shortest step tried.
const MIN_STEP: f64 = 1e-10;
/// A proximal problem is solved when the answer's measure is this
/// fraction of the tolerance, or `|F|` (velocities) this fraction of the
/// velocities it balances.
const INNER: f64 = 0.5;
const ROUND_OFF: f64 = 1e-15;
/// Most refinements of a Newton step, and the residual (relative to `F`)
/// that ends them.
const REFINE: usize = 3;
const REFINED: f64 = 1e-13;

/// The reduced Newton matrix's pattern (by compressed columns, both
/// triangles, the velocities' size), where each of its terms lands, and
/// the method's working memory.
#[derive(Debug, Default)]
pub(super) struct Finish {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// `D_M^-1 M` in `values`' places, written once per solve
    /// ([`Finish::load_mass`]): each Newton step's matrix starts from a
    /// copy.
    scaled_mass: Vec<f64>,
    /// Per stored entry of `M`: its place, and its mirror's (`usize::MAX`
    /// for none: a diagonal entry, or a triangle stored in full).
    mass: Vec<(usize, usize)>,
    /// Per contact, from `pair_start[i]`, the places of `(col_a, col_b)`
    /// for its entries `a`, `b`, by `b` then `a` (down each column); none when the pattern
    /// is full ([`crate::pattern::newton_is_full`]), where `(row, col)` is
    /// at `n col + row` and the LU is dense.
    pair_start: Vec<usize>,
    pairs: Vec<usize>,
    full: bool,
    lu: Option<SparseLu>,
    /// The residual, the step, a trial point with its residual, and the
    /// proximal centre.
    f: Vec<f64>,
    step: Vec<f64>,
    trial_v: Vec<f64>,
    trial_r: Vec<f64>,
    trial_u: Vec<f64>,
    trial_f: Vec<f64>,
    centre: Vec<f64>,
    /// Per contact: `rho`, `sigma`, the projection's derivative (its
    /// eigenpairs), the slip direction (`mu s`), and `A^-1` of the last
    /// Newton matrix; `rho` and `sigma` go on with the bounded rows', whose
    /// derivative (1 inside the box, 0 clamped) is `clamped`.
    rho: Vec<f64>,
    sigma: Vec<f64>,
    spectra: Vec<[(f64, [f64; 3]); 3]>,
    slips: Vec<[f64; 2]>,
    inverses: Vec<[[f64; 3]; 3]>,
    inside: Vec<f64>,
    jr: Vec<f64>,
    /// One contact's rows `J^_i` (with the slip's derivative), and its
    /// `D_M^-1 J_i^T C_i`, by entry.
    hats: Vec<[f64; 3]>,
    lefts: Vec<[f64; 3]>,
    /// `M v` at the iterate, `M dv` of the step, and `M v` at a trial
    /// point: `F_v` is linear along the step, so a line search needs no
    /// product by `M`.
    mv: Vec<f64>,
    mdv: Vec<f64>,
    trial_mv: Vec<f64>,
    /// The point a watchdog's full step left: `v`, `r`, `u`, `M v`.
    watch_v: Vec<f64>,
    watch_r: Vec<f64>,
    watch_u: Vec<f64>,
    watch_mv: Vec<f64>,
    /// The refinement's residual and correction.
    left: Vec<f64>,
    more: Vec<f64>,
    /// Newton steps taken by the last solve, and allowed (by the size).
    steps: usize,
    budget: usize,
    /// The measure's scale below which it is absolute
    /// ([`SolverSettings::absolute_below`]).
    floor: f64,
    /// The best iterate of the last solve `(v, r, u)` and its error.
    best_v: Vec<f64>,
    best_r: Vec<f64>,
    best_u: Vec<f64>,
    best: f64,
    /// The pieces' equations, built when first needed.
    polish: Option<Polish>,
}

/// What the finish reads of an island: its problem, `M` to multiply by
/// and its diagonal, and the free contact velocity (the error's scale).
pub(super) struct IslandView<'a> {
    pub problem: &'a VelocityProblem,
    pub mass: MassView<'a>,
    pub diagonal: &'a [f64],
    pub free: &'a [f64],
}

/// The Newton steps a finish of `problem` may take, `steps` on islands of
/// up to [`BUDGET_SIZE`] unknowns.
pub(super) fn budget(problem: &VelocityProblem, steps: usize) -> usize {
    let size = problem.unknowns();
    let steps = steps as f64;
    (steps * (BUDGET_SIZE as f64 / size.max(1) as f64).powi(3)).min(steps) as usize
}

/// The eigenvalue of contact `i`'s block `A_i = (I - D_i) / rho_i +
/// sigma_i D_i` along an eigenvector of `D_i` of eigenvalue `lambda`.
fn block(lambda: f64, rho: f64, sigma: f64) -> f64 {
    (1.0 - lambda) / rho + sigma * lambda
}

impl Finish {
    /// The place of a row's `p`-th entry pair, `(row, col)`.
    fn pair(&self, p: usize, row: usize, col: usize) -> usize {
        if self.full {
            self.col_ptr[col] + row
        } else {
            self.pairs[p]
        }
    }

    /// The pattern of `problem`'s (an island's) reduced Newton matrix and
    /// its analysis.
    pub fn build(problem: &VelocityProblem) -> Finish {
        let (n, d, k, m) = problem.sizes();
        let (rows, bounded) = (&problem.rows, &problem.bounded);
        let mut entries: Vec<(usize, usize)> = (0..n).map(|j| (j, j)).collect();
        for (_, (r, c)) in problem.mass.iter() {
            entries.extend([(c, r), (r, c)]);
        }
        // The contacts' columns, then the bounded rows'.
        let row_cols = || {
            (0..k)
                .map(|i| &rows.cols[rows.start[i]..rows.start[i + 1]])
                .chain((0..m).map(|j| &bounded.cols[bounded.entries(j)]))
        };
        let full = newton_is_full(&problem.mass, n);
        let (col_ptr, row_idx) = if full {
            crate::pattern::full(n, None)
        } else {
            for cols in row_cols() {
                for &a in cols {
                    for &b in cols {
                        entries.push((b, a));
                    }
                }
            }
            compress(n, &entries)
        };
        let at = |row: usize, col: usize| place(&col_ptr, &row_idx, row, col);
        let mass = mass_places(&problem.mass, &col_ptr, &row_idx);
        let mut pair_start = vec![0];
        let mut pairs = Vec::new();
        // Column by column, down the rows, as the Newton step adds them.
        for cols in row_cols().filter(|_| !full) {
            for &col in cols {
                for &row in cols {
                    pairs.push(at(row, col));
                }
            }
            pair_start.push(pairs.len());
        }
        let symbolic = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let lu = Some(SparseLu::analyze(symbolic));
        let size = n + d * k + m;
        let widest = (0..k)
            .map(|i| rows.start[i + 1] - rows.start[i])
            .max()
            .unwrap_or(0);
        Finish {
            values: vec![0.0; row_idx.len()],
            scaled_mass: vec![0.0; row_idx.len()],
            col_ptr,
            row_idx,
            mass,
            pair_start,
            pairs,
            full,
            lu,
            f: vec![0.0; size],
            step: vec![0.0; size],
            trial_v: vec![0.0; n],
            trial_r: vec![0.0; d * k + m],
            trial_u: vec![0.0; d * k + m],
            trial_f: vec![0.0; size],
            centre: vec![0.0; d * k + m],
            rho: vec![0.0; k + m],
            sigma: vec![0.0; k + m],
            inside: vec![0.0; m],
            spectra: vec![[(0.0, [0.0; 3]); 3]; k],
            slips: vec![[0.0; 2]; k],
            inverses: vec![[[0.0; 3]; 3]; k],
            jr: vec![0.0; n],
            hats: Vec::with_capacity(widest),
            lefts: Vec::with_capacity(widest),
            mv: vec![0.0; n],
            mdv: vec![0.0; n],
            trial_mv: vec![0.0; n],
            watch_v: vec![0.0; n],
            watch_r: vec![0.0; d * k + m],
            watch_u: vec![0.0; d * k + m],
            watch_mv: vec![0.0; n],
            left: vec![0.0; size],
            more: vec![0.0; size],
            steps: 0,
            budget: 0,
            floor: 0.0,
            best_v: vec![0.0; n],
            best_r: vec![0.0; d * k + m],
            best_u: vec![0.0; d * k + m],
            best: f64::INFINITY,
            polish: None,
        }
    }

    /// The proximal iterations from `(v, r)` (`u = J v + b`) to the
    /// tolerance on the primal method's measure, within the settings'
    /// budget ([`budget`]), writing the best iterate back; `places` and
    /// `diagonal` are the island's (`M`'s mirrored entries and diagonal),
    /// `free` the free contact velocity. The status, the error, and the
    /// Newton steps taken.
    pub fn solve(
        &mut self,
        given: &IslandView,
        settings: &SolverSettings,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) -> (Status, f64, usize) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let (friction, tolerance) = (settings.friction, settings.tolerance);
        let rows = &problem.rows;
        for i in 0..problem.mu.len() {
            let w: f64 = rows
                .entries(i)
                .map(|(c, e)| e[0].powi(2) / diagonal[c])
                .sum();
            self.rho[i] = if w > 0.0 { 1.0 / w } else { 1.0 };
        }
        let (k, bounded) = (problem.mu.len(), &problem.bounded);
        for j in 0..bounded.len() {
            let w: f64 = bounded
                .entries(j)
                .map(|a| bounded.values[a].powi(2) / diagonal[bounded.cols[a]])
                .sum();
            self.rho[k + j] = if w > 0.0 { 1.0 / w } else { 1.0 };
        }
        self.load_mass(given);
        self.steps = 0;
        self.floor = settings.absolute_below;
        self.budget = budget(problem, settings.finish_steps);
        self.best = f64::INFINITY;
        let mut error = self.prox(given, friction, tolerance, v, r, u, true);
        if error > tolerance && friction == Friction::Exact && self.steps < self.budget {
            // From the convex form's answer (the same but for the slip).
            self.prox(given, Friction::Convex, tolerance, v, r, u, false);
            error = self.prox(given, friction, tolerance, v, r, u, true);
        }
        if self.best < error {
            // The best iterate under the law asked for.
            v.copy_from_slice(&self.best_v);
            r.copy_from_slice(&self.best_r);
            u.copy_from_slice(&self.best_u);
            error = self.best;
        }
        if error > tolerance && friction == Friction::Exact {
            error = self.polish(given, tolerance, error, v, r, u);
        }
        let steps = self.steps;
        let status = if error <= tolerance {
            Status::Solved
        } else {
            Status::NotConverged
        };
        (status, error, steps)
    }

    /// Writes `D_M^-1 M`, which every Newton step's matrix starts from.
    fn load_mass(&mut self, given: &IslandView) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        self.scaled_mass.fill(0.0);
        let (scaled, row_idx, mut places) =
            (&mut self.scaled_mass, &self.row_idx, self.mass.iter());
        for_each_stored(&problem.mass, |value, a, _| {
            let Some(&(at, mirror)) = places.next() else {
                return;
            };
            scaled[at] += value / diagonal[a];
            if mirror != usize::MAX {
                // The mirror sits in the other row.
                scaled[mirror] += value / diagonal[row_idx[mirror]];
            }
        });
    }

    /// The proximal iterations from `(v, r)`; the error at the end. Each
    /// iterate better than the best is kept when `keep`. They run until
    /// the tolerance, `MAX_OUTER` or the budget: under the exact law, load
    /// moving off a corner that must slide or lift drifts slowly before
    /// the error falls.
    #[allow(clippy::too_many_arguments)]
    fn prox(
        &mut self,
        given: &IslandView,
        friction: Friction,
        tolerance: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
        keep: bool,
    ) -> f64 {
        let exact = friction == Friction::Exact;
        let mut error = self.measure(given, friction, v, r, u);
        let weight_at = |error: f64| (SIGMA_GAIN * error).clamp(SIGMA_FLOOR, SIGMA_CEILING);
        let mut weight = weight_at(error);
        for _ in 0..MAX_OUTER.max(self.budget / 5) {
            if keep {
                self.keep(error, v, r, u);
            }
            let nothing = given.problem.mu.is_empty() && given.problem.bounded.is_empty();
            if error <= tolerance || nothing || self.steps >= self.budget {
                break;
            }
            for (s, rho) in self.sigma.iter_mut().zip(&self.rho) {
                *s = weight / rho;
            }
            self.centre.copy_from_slice(r);
            let Some((taken, solved)) = self.newton(given, exact, tolerance, v, r, u) else {
                break;
            };
            self.steps += taken;
            error = self.measure(given, friction, v, r, u);
            weight = if solved {
                weight_at(error).max(weight / SIGMA_RAISE)
            } else {
                (SIGMA_RAISE * weight).min(SIGMA_CEILING)
            };
        }
        if keep {
            self.keep(error, v, r, u);
        }
        error
    }

    /// The polish ([`super::polish`]) from `(v, r, u)`, with bold steps
    /// and, where they end unsolved, with cautious ones; its answer
    /// replaces them where it is better. The error.
    fn polish(
        &mut self,
        given: &IslandView,
        tolerance: f64,
        mut error: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) -> f64 {
        let mut polish = self
            .polish
            .take()
            .unwrap_or_else(|| Polish::build(given.problem));
        let n = v.len();
        // Bold steps first; where they end unsolved, cautious ones from
        // the best answer yet.
        for cautious in [false, true] {
            polish.start(given, &self.rho, v, r, u);
            let mut last = f64::INFINITY;
            for _ in 0..polish::ROUNDS {
                if !polish.solve(given, &self.rho, cautious) {
                    break;
                }
                let (pv, pr, pu) = polish.answer(n);
                let polished = self.measure(given, Friction::Exact, pv, pr, pu);
                if polished < error {
                    v.copy_from_slice(pv);
                    r.copy_from_slice(pr);
                    u.copy_from_slice(pu);
                    error = polished;
                }
                // Another round with the pieces that moved, or with the
                // same ones while Newton's steps still gain.
                let moved =
                    error > tolerance && polish.reclassify(given, &self.rho, 0.1 * tolerance);
                if error <= tolerance || (!moved && polished >= 0.5 * last) {
                    break;
                }
                last = polished;
            }
            if error <= tolerance {
                break;
            }
        }
        self.polish = Some(polish);
        error
    }

    /// Keeps `(v, r, u)` if its error is the best yet.
    fn keep(&mut self, error: f64, v: &[f64], r: &[f64], u: &[f64]) {
        if error < self.best {
            self.best = error;
            self.best_v.copy_from_slice(v);
            self.best_r.copy_from_slice(r);
            self.best_u.copy_from_slice(u);
        }
    }

    /// Newton's method on `F` from `(v, r)`, the centre fixed; the steps
    /// and whether the proximal problem is solved (`|F|` cut by
    /// `INNER_CUT`, or the answer found), `None` when it cannot go on (a
    /// singular Jacobian, no descent from the start).
    fn newton(
        &mut self,
        given: &IslandView,
        exact: bool,
        tolerance: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) -> Option<(usize, bool)> {
        let n = given.problem.force.len();
        let friction = if exact {
            Friction::Exact
        } else {
            Friction::Convex
        };
        // `self.mv` is the iterate's from here on.
        self.product(given, v);
        let mv = std::mem::take(&mut self.mv);
        let (mut theta, mut scale) = self.residual(given, exact, &mv, v, r, u, true);
        self.mv = mv;
        let (mut window, start) = (theta, (2.0 * theta).sqrt());
        // The watchdog: `|F|^2`, its scale and the step count where its
        // full step was taken, while it is on trial; whether it was used.
        let mut watch: Option<(f64, f64, usize)> = None;
        let mut watched = false;
        for steps in 0..MAX_NEWTON {
            if self.steps + steps >= self.budget {
                self.unwatch(&mut watch, &mut theta, &mut scale, v, r, u);
                return Some((steps, false));
            }
            // Stuck: Armijo's steps of 1e-4 along directions that stop
            // descending at the first kink, a factorisation each.
            if watch.is_none() && steps > 0 && steps % STUCK_STEPS == 0 {
                if theta > STUCK_GAIN * window {
                    return Some((steps, false));
                }
                window = theta;
            }
            // Done when the answer is (the measure, not `F`: their scales
            // differ by the contacts' effective masses), or when `F` is cut
            // by `INNER_CUT` or round-off.
            if (2.0 * theta).sqrt() <= (ROUND_OFF * scale).max(INNER_CUT * start)
                || self.measure_at(given, friction, r, u, v) <= INNER * tolerance
            {
                return Some((steps, true));
            }
            if !self.newton_step(given) || self.step.iter().any(|x| !x.is_finite()) {
                self.unwatch(&mut watch, &mut theta, &mut scale, v, r, u);
                return (steps > 0).then_some((steps, false));
            }
            given.mass.product(&self.step[..n], &mut self.mdv);
            // Damped until |F|^2 falls by Armijo's fraction of the
            // Newton prediction (`-2 theta` along the step).
            let mut t = 1.0;
            loop {
                for (j, x) in self.trial_v.iter_mut().enumerate() {
                    *x = v[j] + t * self.step[j];
                }
                for (j, x) in self.trial_r.iter_mut().enumerate() {
                    *x = r[j] + t * self.step[n + j];
                }
                for (j, x) in self.trial_mv.iter_mut().enumerate() {
                    *x = self.mv[j] + t * self.mdv[j];
                }
                let (tv, tr) = (
                    std::mem::take(&mut self.trial_v),
                    std::mem::take(&mut self.trial_r),
                );
                let (mut tu, tmv) = (
                    std::mem::take(&mut self.trial_u),
                    std::mem::take(&mut self.trial_mv),
                );
                std::mem::swap(&mut self.f, &mut self.trial_f);
                let (trial, trial_scale) =
                    self.residual(given, exact, &tmv, &tv, &tr, &mut tu, false);
                std::mem::swap(&mut self.f, &mut self.trial_f);
                (self.trial_v, self.trial_r, self.trial_u) = (tv, tr, tu);
                self.trial_mv = tmv;
                let armijo = trial <= (1.0 - 2.0 * ARMIJO * t) * theta;
                let on_trial = !armijo
                    && t == 1.0
                    && !watched
                    && trial.is_finite()
                    && trial <= WATCH_GROWTH * theta;
                if on_trial {
                    self.watch_v.copy_from_slice(v);
                    self.watch_r.copy_from_slice(r);
                    self.watch_u.copy_from_slice(u);
                    self.watch_mv.copy_from_slice(&self.mv);
                    watch = Some((theta, scale, steps));
                    watched = true;
                }
                if armijo || on_trial {
                    v.copy_from_slice(&self.trial_v);
                    r.copy_from_slice(&self.trial_r);
                    u.copy_from_slice(&self.trial_u);
                    std::mem::swap(&mut self.mv, &mut self.trial_mv);
                    (theta, scale) = (trial, trial_scale);
                    break;
                }
                t *= 0.5;
                if t < MIN_STEP {
                    self.unwatch(&mut watch, &mut theta, &mut scale, v, r, u);
                    return (steps > 0).then_some((steps, false));
                }
            }
            if let Some((before, _, at)) = watch {
                if theta <= (1.0 - 2.0 * ARMIJO) * before {
                    watch = None;
                } else if steps >= at + WATCH_STEPS {
                    self.unwatch(&mut watch, &mut theta, &mut scale, v, r, u);
                }
            }
            // The derivatives at the new iterate.
            let mv = std::mem::take(&mut self.mv);
            self.residual(given, exact, &mv, v, r, u, true);
            self.mv = mv;
        }
        self.unwatch(&mut watch, &mut theta, &mut scale, v, r, u);
        Some((MAX_NEWTON, false))
    }

    /// Ends a watchdog's trial: the point before its full step comes back
    /// (with `|F|^2` and its scale) unless the iterate is better.
    fn unwatch(
        &mut self,
        watch: &mut Option<(f64, f64, usize)>,
        theta: &mut f64,
        scale: &mut f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) {
        if let Some((before, before_scale, _)) = watch.take() {
            if *theta > before {
                v.copy_from_slice(&self.watch_v);
                r.copy_from_slice(&self.watch_r);
                u.copy_from_slice(&self.watch_u);
                self.mv.copy_from_slice(&self.watch_mv);
                (*theta, *scale) = (before, before_scale);
            }
        }
    }

    /// The primal method's measure: Coulomb's law (Siconos', with the
    /// bounded rows' law) and the dynamics residual in velocities.
    fn measure(
        &mut self,
        given: &IslandView,
        friction: Friction,
        v: &[f64],
        r: &[f64],
        u: &[f64],
    ) -> f64 {
        self.product(given, v);
        self.measure_at(given, friction, r, u, v)
    }

    /// `self.mv = M v`.
    fn product(&mut self, given: &IslandView, v: &[f64]) {
        given.mass.product(v, &mut self.mv);
    }

    /// [`Finish::measure`] at the iterate whose `M v` is `self.mv`.
    fn measure_at(
        &mut self,
        given: &IslandView,
        friction: Friction,
        r: &[f64],
        u: &[f64],
        v: &[f64],
    ) -> f64 {
        let coulomb = bounded_error(friction, self.floor, given.problem, given.free, r, u, v);
        coulomb.max(super::momentum::residual_of_product(
            given.problem,
            given.diagonal,
            &self.mv,
            r,
            &mut self.jr,
        ))
    }

    /// Writes `u = J v + b` and `F` into `self.f` (with the projections'
    /// derivatives and slip directions when `derivatives`), `mv` being
    /// `M v`; returns `|F|^2 / 2` and the scale of the velocities it
    /// balances.
    #[allow(clippy::too_many_arguments)]
    fn residual(
        &mut self,
        given: &IslandView,
        exact: bool,
        mv: &[f64],
        v: &[f64],
        r: &[f64],
        u: &mut [f64],
        derivatives: bool,
    ) -> (f64, f64) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let (n, d) = (problem.force.len(), problem.rows.dimension);
        let rows = &problem.rows;
        // F_v = (M v - f - J^T r) / M_jj.
        let fv = &mut self.f[..n];
        fv.copy_from_slice(mv);
        let mut scale = 0.0f64;
        for ((x, f), m) in fv.iter_mut().zip(&problem.force).zip(diagonal) {
            scale = scale.max(x.abs() / m).max(f.abs() / m);
            *x -= f;
        }
        for i in 0..problem.mu.len() {
            let ri = components(r, d, i);
            let ji = rows.velocity(i, v);
            for (col, e) in rows.entries(i) {
                let term = e[0] * ri[0] + e[1] * ri[1] + e[2] * ri[2];
                fv[col] -= term;
                scale = scale.max(term.abs() / diagonal[col]);
            }
            for c in 0..d {
                u[d * i + c] = ji[c] + problem.b[d * i + c];
            }
        }
        let (k, dk, bounded) = (problem.mu.len(), d * problem.mu.len(), &problem.bounded);
        for j in 0..bounded.len() {
            for a in bounded.entries(j) {
                let (col, term) = (bounded.cols[a], bounded.values[a] * r[dk + j]);
                fv[col] -= term;
                scale = scale.max(term.abs() / diagonal[col]);
            }
            u[dk + j] = bounded.velocity(j, v) + bounded.b[j];
        }
        for (x, m) in fv.iter_mut().zip(diagonal) {
            *x /= m;
        }
        // F_r = (r - P_K(r - rho (w + sigma (r - c)))) / rho.
        for i in 0..problem.mu.len() {
            let (ri, ui, ci) = (
                components(r, d, i),
                components(u, d, i),
                components(&self.centre, d, i),
            );
            let (mu, rho, sigma) = (problem.mu[i], self.rho[i], self.sigma[i]);
            let tangent = crate::error::length(ui[1], ui[2]);
            let slip = if exact { mu * tangent } else { 0.0 };
            let mut x = [0.0; 3];
            for c in 0..3 {
                let w = ui[c] + if c == 0 { slip } else { 0.0 } + sigma * (ri[c] - ci[c]);
                x[c] = ri[c] - rho * w;
            }
            let (p, piece) = project_on_cone(mu, x, d);
            for c in 0..d {
                self.f[n + d * i + c] = (ri[c] - p[c]) / rho;
            }
            if derivatives {
                self.spectra[i] = cone_spectrum(mu, x, piece);
                self.slips[i] = if exact && tangent > 0.0 {
                    [mu * ui[1] / tangent, mu * ui[2] / tangent]
                } else {
                    [0.0; 2]
                };
            }
        }
        // The bounded rows' `F_r`, the clamp's.
        for j in 0..bounded.len() {
            let (a, rho, sigma) = (dk + j, self.rho[k + j], self.sigma[k + j]);
            let x = r[a] - rho * (u[a] + sigma * (r[a] - self.centre[a]));
            let p = bounded.clamp(j, x);
            self.f[n + a] = (r[a] - p) / rho;
            if derivatives {
                self.inside[j] = if p == x { 1.0 } else { 0.0 };
            }
        }
        (0.5 * self.f.iter().map(|x| x * x).sum::<f64>(), scale)
    }

    /// The Newton step `-J_F^-1 F` at the last iterate written with its
    /// derivatives, into `self.step`; `false` when the reduced matrix is
    /// singular.
    ///
    /// The impulses' rows `D_i J^_i dv + A_i dr_i = -F_r,i` give `dr_i`
    /// from `dv`; the velocities' rows, `(M dv - J^T dr) / D_M = -F_v`,
    /// become `D_M^-1 (M + sum J_i^T C_i J^_i) dv = -F_v - D_M^-1 sum
    /// J_i^T A_i^-1 F_r,i` with `C_i = A_i^-1 D_i`. That matrix holds
    /// `1 / sigma_i` where a contact sticks (a penalty as stiff as the
    /// proximal weight is weak), and loses as many digits: refined on
    /// `J_F`'s own rows, which do not, until their residual is round-off.
    fn newton_step(&mut self, given: &IslandView) -> bool {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let (n, d) = (problem.force.len(), problem.rows.dimension);
        let rows = &problem.rows;
        self.values.copy_from_slice(&self.scaled_mass);
        for i in 0..problem.mu.len() {
            let (rho, sigma, s) = (self.rho[i], self.sigma[i], self.slips[i]);
            // A^-1 and C = A^-1 D in D's eigenvectors.
            let (mut inverse, mut couple) = ([[0.0; 3]; 3], [[0.0; 3]; 3]);
            for (lambda, q) in self.spectra[i] {
                let a = block(lambda, rho, sigma);
                for p in 0..3 {
                    for c in 0..3 {
                        inverse[p][c] += q[p] * q[c] / a;
                        couple[p][c] += lambda * q[p] * q[c] / a;
                    }
                }
            }
            self.inverses[i] = inverse;
            // The rows with the slip's derivative, once per contact.
            self.hats.clear();
            self.hats.extend(
                rows.entries(i)
                    .map(|(_, eb)| [eb[0] + s[0] * eb[1] + s[1] * eb[2], eb[1], eb[2]]),
            );
            // Row `cols[a]`: `J^T` of the contact's rows, scaled as `F_v`.
            self.lefts.clear();
            self.lefts.extend(rows.entries(i).map(|(col, ea)| {
                std::array::from_fn(|c| {
                    (0..d).map(|p| ea[p] * couple[p][c]).sum::<f64>() / diagonal[col]
                })
            }));
            // Column by column, down the rows.
            let cols = &rows.cols[rows.start[i]..rows.start[i + 1]];
            let mut place = if self.full { 0 } else { self.pair_start[i] };
            for (&col, hat) in cols.iter().zip(&self.hats) {
                if self.full {
                    // Column `col` whole, at `n col`.
                    let column = &mut self.values[self.col_ptr[col]..][..n];
                    for (&row, left) in cols.iter().zip(&self.lefts) {
                        column[row] += left[0] * hat[0] + left[1] * hat[1] + left[2] * hat[2];
                    }
                    continue;
                }
                for left in &self.lefts {
                    let at = self.pairs[place];
                    self.values[at] += left[0] * hat[0] + left[1] * hat[1] + left[2] * hat[2];
                    place += 1;
                }
            }
        }
        let (k, bounded) = (problem.mu.len(), &problem.bounded);
        for j in 0..bounded.len() {
            let lambda = self.inside[j];
            let couple = lambda / block(lambda, self.rho[k + j], self.sigma[k + j]);
            if couple == 0.0 {
                continue;
            }
            let mut place = if self.full { 0 } else { self.pair_start[k + j] };
            for b in bounded.entries(j) {
                for a in bounded.entries(j) {
                    let left = bounded.values[a] * couple / diagonal[bounded.cols[a]];
                    let at = self.pair(place, bounded.cols[a], bounded.cols[b]);
                    self.values[at] += left * bounded.values[b];
                    place += 1;
                }
            }
        }
        let symbolic =
            SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let lu = self.lu.as_mut().expect("analysed");
        if !lu.factor(SparseColMatRef::new(symbolic, &self.values)) {
            return false;
        }
        let (f, mut step) = (std::mem::take(&mut self.f), std::mem::take(&mut self.step));
        let (mut left, mut more) = (
            std::mem::take(&mut self.left),
            std::mem::take(&mut self.more),
        );
        self.solve_reduced(given, &f, &mut step);
        let size = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for _ in 0..REFINE {
            // What J_F step leaves of -F.
            self.apply(given, &step, &mut left);
            for (l, x) in left.iter_mut().zip(&f) {
                *l += x;
            }
            if left.iter().fold(0.0f64, |m, x| m.max(x.abs())) <= REFINED * size {
                break;
            }
            self.solve_reduced(given, &left, &mut more);
            for (x, c) in step.iter_mut().zip(&more) {
                *x += c;
            }
        }
        (self.f, self.step, self.left, self.more) = (f, step, left, more);
        true
    }

    /// `out = -J_F^-1 rhs` with the factor and the blocks of the last
    /// [`Finish::newton_step`].
    fn solve_reduced(&mut self, given: &IslandView, rhs: &[f64], out: &mut [f64]) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let (n, d) = (problem.force.len(), problem.rows.dimension);
        let rows = &problem.rows;
        for (x, f) in out[..n].iter_mut().zip(rhs) {
            *x = -f;
        }
        for i in 0..problem.mu.len() {
            let (inverse, fr) = (&self.inverses[i], components(&rhs[n..], d, i));
            let g: [f64; 3] =
                std::array::from_fn(|p| (0..d).map(|c| inverse[p][c] * fr[c]).sum::<f64>());
            for (col, e) in rows.entries(i) {
                out[col] -= (0..d).map(|p| e[p] * g[p]).sum::<f64>() / diagonal[col];
            }
        }
        let (k, dk, bounded) = (problem.mu.len(), d * problem.mu.len(), &problem.bounded);
        for j in 0..bounded.len() {
            let g = rhs[n + dk + j] / self.bounded_block(k, j);
            for a in bounded.entries(j) {
                let col = bounded.cols[a];
                out[col] -= bounded.values[a] * g / diagonal[col];
            }
        }
        self.lu
            .as_mut()
            .expect("analysed")
            .solve_in_place(&mut out[..n]);
        // dr_i = -A_i^-1 (rhs_r,i + D_i J^_i dv).
        for i in 0..problem.mu.len() {
            let x = self.derivative_along(problem, i, &out[..n], components(&rhs[n..], d, i));
            let inverse = &self.inverses[i];
            for p in 0..d {
                out[n + d * i + p] = -(0..d).map(|c| inverse[p][c] * x[c]).sum::<f64>();
            }
        }
        // dr_j = -(rhs_r,j + D_j g_j dv) / A_j.
        for j in 0..bounded.len() {
            let along = self.inside[j] * bounded.velocity(j, &out[..n]);
            out[n + dk + j] = -(rhs[n + dk + j] + along) / self.bounded_block(k, j);
        }
    }

    /// Bounded row `j`'s block `A_j` (`k` contacts before it).
    fn bounded_block(&self, k: usize, j: usize) -> f64 {
        block(self.inside[j], self.rho[k + j], self.sigma[k + j])
    }

    /// `base + D_i J^_i dv` of contact `i`.
    fn derivative_along(
        &self,
        problem: &VelocityProblem,
        i: usize,
        dv: &[f64],
        base: [f64; 3],
    ) -> [f64; 3] {
        let s = self.slips[i];
        let jv = problem.rows.velocity(i, dv);
        let hat = [jv[0] + s[0] * jv[1] + s[1] * jv[2], jv[1], jv[2]];
        let mut x = base;
        for (lambda, q) in self.spectra[i] {
            let along = lambda * (q[0] * hat[0] + q[1] * hat[1] + q[2] * hat[2]);
            for c in 0..3 {
                x[c] += along * q[c];
            }
        }
        x
    }

    /// `out = J_F x` (the Jacobian applied, not formed).
    fn apply(&mut self, given: &IslandView, x: &[f64], out: &mut [f64]) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let (n, d) = (problem.force.len(), problem.rows.dimension);
        let (dv, dr) = x.split_at(n);
        let fv = &mut out[..n];
        given.mass.product(dv, fv);
        self.jr.fill(0.0);
        problem.rows.add_transpose(dr, &mut self.jr);
        let (k, dk, bounded) = (problem.mu.len(), d * problem.mu.len(), &problem.bounded);
        bounded.add_transpose(&dr[dk..], &mut self.jr);
        for ((y, t), m) in fv.iter_mut().zip(&self.jr).zip(diagonal) {
            *y = (*y - t) / m;
        }
        for i in 0..problem.mu.len() {
            // D_i J^_i dv + A_i dr_i, A_i in D_i's eigenvectors.
            let (rho, sigma) = (self.rho[i], self.sigma[i]);
            let mut y = self.derivative_along(problem, i, dv, [0.0; 3]);
            let ri = components(dr, d, i);
            for (lambda, q) in self.spectra[i] {
                let a = block(lambda, rho, sigma);
                let along = a * (q[0] * ri[0] + q[1] * ri[1] + q[2] * ri[2]);
                for c in 0..3 {
                    y[c] += along * q[c];
                }
            }
            set_components(&mut out[n..], d, i, y);
        }
        // D_j g_j dv + A_j dr_j.
        for j in 0..bounded.len() {
            let along = self.inside[j] * bounded.velocity(j, dv);
            out[n + dk + j] = along + self.bounded_block(k, j) * dr[dk + j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BoundedRows, ContactRows};

    /// A small problem in space with `M` not diagonal, stored in full.
    fn problem() -> VelocityProblem {
        let n = 5;
        let mut m = sprs::TriMat::new((n, n));
        for i in 0..n {
            m.add_triplet(i, i, 2.0 + i as f64);
        }
        m.add_triplet(0, 3, 0.4);
        m.add_triplet(3, 0, 0.4);
        let mut rows = ContactRows::new(3);
        rows.push([
            (0, [1.0, 0.2, -0.3]),
            (2, [0.5, 1.0, 0.1]),
            (4, [-0.2, 0.3, 0.9]),
        ]);
        rows.push([(1, [0.7, -0.4, 0.5]), (3, [0.3, 0.8, -0.6])]);
        VelocityProblem {
            mass: m.to_csc(),
            force: vec![0.3, -1.0, 0.5, 0.2, -0.4],
            rows,
            b: vec![-0.1, 0.2, 0.05, 0.3, -0.2, 0.1],
            mu: vec![0.6, 0.3],
            bounded: BoundedRows::default(),
        }
    }

    #[test]
    fn the_newton_step_solves_the_residuals_linearisation() {
        let p = problem();
        let n = p.force.len();
        let places: Vec<usize> = p
            .mass
            .iter()
            .map(|(_, (r, c))| if r > c { usize::MAX } else { 0 })
            .collect();
        let diagonal: Vec<f64> = (0..n).map(|i| *p.mass.get(i, i).unwrap()).collect();
        let given = IslandView {
            problem: &p,
            mass: MassView {
                mass: &p.mass,
                places: &places,
                dense: None,
            },
            diagonal: &diagonal,
            free: &[],
        };
        let mut finish = Finish::build(&p);
        finish.load_mass(&given);
        finish.rho = vec![0.8, 1.3];
        finish.centre = vec![0.3, 0.1, 0.0, 0.2, -0.1, 0.1];
        // Points where the contacts are inside the cone, on its surface
        // sliding, and at its apex, with a proximal weight from ordinary
        // to `1e-12` of `W_ii` (the block `A_i` then nearly singular
        // inside the cone): the step, from the impulses eliminated,
        // against the linearisation by central differences of `F`.
        let size = n + 6;
        let product = |x: &[f64]| {
            let mut y = vec![0.0; n];
            given.mass.product(x, &mut y);
            y
        };
        for sigma in [[0.05, 0.02], [1e-12 / 0.8, 1e-12 / 1.3]] {
            finish.sigma = sigma.to_vec();
            for (v, r) in [
                (
                    vec![0.1, -0.2, 0.3, 0.05, 0.2],
                    vec![1.0, 0.3, -0.2, 0.5, 0.1, 0.05],
                ),
                (
                    vec![-0.3, 0.4, 0.1, -0.2, 0.6],
                    vec![0.4, -0.9, 0.8, 0.2, 0.3, -0.4],
                ),
                (
                    vec![0.5, 0.1, -0.4, 0.3, 0.0],
                    vec![0.2, 0.0, 0.1, 0.1, 0.2, 0.0],
                ),
            ] {
                for exact in [true, false] {
                    let mut u = vec![0.0; 6];
                    finish.residual(&given, exact, &product(&v), &v, &r, &mut u, true);
                    let f = finish.f.clone();
                    assert!(finish.newton_step(&given));
                    let step = finish.step.clone();
                    // J_F step by central differences along the step.
                    let h = 1e-7 / step.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    let mut sides = Vec::new();
                    for sign in [1.0, -1.0] {
                        let x: Vec<f64> = (0..n).map(|j| v[j] + sign * h * step[j]).collect();
                        let y: Vec<f64> = (0..6).map(|j| r[j] + sign * h * step[n + j]).collect();
                        finish.residual(&given, exact, &product(&x), &x, &y, &mut u, false);
                        sides.push(finish.f.clone());
                    }
                    let scale = f.iter().fold(1.0f64, |m, x| m.max(x.abs()));
                    for row in 0..size {
                        let along = (sides[0][row] - sides[1][row]) / (2.0 * h);
                        assert!(
                            (along + f[row]).abs() < 1e-6 * scale,
                            "exact {exact}, sigma {sigma:?}: (J_F step)[{row}] = {along} against {}",
                            -f[row]
                        );
                    }
                    // Without the elimination (the slip's derivative
                    // dropped) the step misses.
                    if exact && sigma[0] > 1e-3 {
                        let slips = finish.slips.clone();
                        finish.residual(&given, exact, &product(&v), &v, &r, &mut u, true);
                        finish.slips = vec![[0.0; 2]; 2];
                        assert!(finish.newton_step(&given));
                        let off = finish
                            .step
                            .iter()
                            .zip(&step)
                            .any(|(a, b)| (a - b).abs() > 1e-6);
                        assert!(off || slips.iter().all(|s| s == &[0.0; 2]));
                    }
                }
            }
        }
    }
}
