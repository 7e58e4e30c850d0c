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
//! slip's through `s_i = u_T,i / |u_T,i|`): not symmetric, so a sparse LU,
//! analysed once per pattern; steps damped until `|F|^2` falls (Armijo).
//! The proximal term `sigma_i (r_i - c_i)` (the problem of `W + sigma I`,
//! centred on the last iterate `c`) keeps the Jacobian regular when
//! redundant contacts stick or slide (the impulses of a box's four
//! corners are not unique), and vanishes as `c` converges: Siconos' PROX
//! method (Acary, Bremond and Huber, "On solving contact problems with
//! Coulomb friction: formulations and numerical comparisons", 2018) in
//! velocities and impulses, on Alart and Curnier's mixed formulation
//! (1991) of De Saxce's law.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

use super::VelocityProblem;
use crate::error::{components, cone_derivative, error_for, project_on_cone};
use crate::solver::Status;
use crate::sparse_lu::SparseLu;
use crate::Friction;

/// Most proximal iterations, and Newton steps in each.
const MAX_OUTER: usize = 40;
const MAX_NEWTON: usize = 40;
/// Most Newton steps of a finish in all, on islands of up to
/// `BUDGET_SIZE` unknowns; fewer on larger ones, as the cube of their
/// size (a factorisation's cost grows faster than the size), none past
/// about 2,900 (a pile whose island holds every box: its sparse LU costs
/// a second). The best iterate is the answer when they run out. Measured
/// on boxes landing in a bin: half the finishes that solve take 111
/// steps, nine in ten 255; those that run past that mostly end unsolved
/// (with 1,600, two finishes in three spent about 600 steps each for
/// nothing, 80% of the pile's time).
const BUDGET: usize = 200;
const BUDGET_SIZE: usize = 500;
/// The proximal weight relative to a contact's `W_ii`.
const SIGMA: f64 = 1e-6;
/// The proximal weight's cut after an easy proximal problem, and its
/// floor (relative, as `SIGMA`).
const SIGMA_CUT: f64 = 0.01;
const SIGMA_FLOOR: f64 = 1e-14;
/// A proximal problem is progress when it brings the error below this
/// fraction of the best so far; `IDLE` in a row without it end an attempt
/// at the exact law.
const PROGRESS: f64 = 0.5;
const IDLE: usize = 4;
/// Armijo's fraction of the predicted decrease.
const ARMIJO: f64 = 1e-4;
/// The shortest step tried.
const MIN_STEP: f64 = 1e-10;
/// A proximal problem is solved when the answer's measure is this
/// fraction of the tolerance, or `|F|` (velocities) this fraction of the
/// velocities it balances.
const INNER: f64 = 0.5;
const ROUND_OFF: f64 = 1e-15;

/// The Jacobian's pattern (by compressed columns, unknowns `v` then `r`),
/// where each of its terms lands, and the method's working memory.
#[derive(Debug, Default)]
pub(super) struct Finish {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// Per stored entry of `M`: its place, and its mirror's (`usize::MAX`
    /// for none: a diagonal entry, or a triangle stored in full).
    mass: Vec<(usize, usize)>,
    /// Per contact entry `a` and component `c`: the places of
    /// `(v_col, r_ic)` and `(r_ic, v_col)`.
    coupling: Vec<(usize, usize)>,
    /// Per contact, the places of its `d x d` block, row by row.
    blocks: Vec<usize>,
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
    /// Per contact: `rho`, `sigma`, the projection's derivative, and the
    /// slip direction (`mu s`).
    rho: Vec<f64>,
    sigma: Vec<f64>,
    derivatives: Vec<[[f64; 3]; 3]>,
    slips: Vec<[f64; 2]>,
    scratch: Vec<f64>,
    jr: Vec<f64>,
    /// Newton steps taken by the last solve, and allowed (by the size).
    steps: usize,
    budget: usize,
    /// The best iterate of the last solve `(v, r, u)` and its error.
    best_v: Vec<f64>,
    best_r: Vec<f64>,
    best_u: Vec<f64>,
    best: f64,
}

/// What the finish reads of an island: its problem, `M`'s mirrored
/// entries (as [`super::island::symmetric_product`] takes them) and
/// diagonal, and the free contact velocity (the error's scale).
pub(super) struct Given<'a> {
    pub problem: &'a VelocityProblem,
    pub places: &'a [usize],
    pub diagonal: &'a [f64],
    pub free: &'a [f64],
}

/// The Newton steps a finish of `problem` may take (see [`BUDGET`]).
pub(super) fn budget(problem: &VelocityProblem) -> usize {
    let size = problem.force.len() + problem.rows.dimension * problem.mu.len();
    (BUDGET as f64 * (BUDGET_SIZE as f64 / size.max(1) as f64).powi(3)).min(BUDGET as f64) as usize
}

/// The place of `(row, col)` in a column's sorted rows.
fn place(col_ptr: &[usize], row_idx: &[usize], row: usize, col: usize) -> usize {
    let range = col_ptr[col]..col_ptr[col + 1];
    range.start
        + row_idx[range]
            .binary_search(&row)
            .expect("in the analysed pattern")
}

impl Finish {
    /// The pattern of `problem`'s Jacobian (an island's) and its analysis.
    pub fn build(problem: &VelocityProblem) -> Finish {
        let (n, k, d) = (
            problem.force.len(),
            problem.mu.len(),
            problem.rows.dimension,
        );
        let size = n + d * k;
        let rows = &problem.rows;
        let mut sets: Vec<Vec<usize>> = (0..size).map(|j| vec![j]).collect();
        for (_, (r, c)) in problem.mass.iter() {
            sets[c].push(r);
            sets[r].push(c);
        }
        for i in 0..k {
            for a in rows.start[i]..rows.start[i + 1] {
                let col = rows.cols[a];
                for c in 0..d {
                    let ri = n + d * i + c;
                    sets[ri].push(col);
                    sets[col].push(ri);
                }
            }
            for c in 0..d {
                for e in 0..d {
                    sets[n + d * i + e].push(n + d * i + c);
                }
            }
        }
        let mut col_ptr = vec![0];
        let mut row_idx = Vec::new();
        for set in &mut sets {
            set.sort_unstable();
            set.dedup();
            row_idx.extend_from_slice(set);
            col_ptr.push(row_idx.len());
        }
        let at = |row: usize, col: usize| place(&col_ptr, &row_idx, row, col);
        let mass = problem
            .mass
            .iter()
            .map(|(_, (r, c))| {
                let mirrored = r != c && problem.mass.get(c, r).is_none();
                (at(r, c), if mirrored { at(c, r) } else { usize::MAX })
            })
            .collect();
        let mut coupling = Vec::new();
        for i in 0..k {
            for a in rows.start[i]..rows.start[i + 1] {
                for c in 0..d {
                    let ri = n + d * i + c;
                    coupling.push((at(rows.cols[a], ri), at(ri, rows.cols[a])));
                }
            }
        }
        let mut blocks = Vec::new();
        for i in 0..k {
            for c in 0..d {
                for e in 0..d {
                    blocks.push(at(n + d * i + c, n + d * i + e));
                }
            }
        }
        let symbolic = SymbolicSparseColMatRef::new_checked(size, size, &col_ptr, None, &row_idx);
        let lu = Some(SparseLu::analyze(symbolic));
        Finish {
            values: vec![0.0; row_idx.len()],
            col_ptr,
            row_idx,
            mass,
            coupling,
            blocks,
            lu,
            f: vec![0.0; size],
            step: vec![0.0; size],
            trial_v: vec![0.0; n],
            trial_r: vec![0.0; d * k],
            trial_u: vec![0.0; d * k],
            trial_f: vec![0.0; size],
            centre: vec![0.0; d * k],
            rho: vec![0.0; k],
            sigma: vec![0.0; k],
            derivatives: vec![[[0.0; 3]; 3]; k],
            slips: vec![[0.0; 2]; k],
            scratch: vec![0.0; n],
            jr: vec![0.0; n],
            steps: 0,
            budget: budget(problem),
            best_v: vec![0.0; n],
            best_r: vec![0.0; d * k],
            best_u: vec![0.0; d * k],
            best: f64::INFINITY,
        }
    }

    /// The proximal iterations from `(v, r)` (`u = J v + b`) to the
    /// tolerance on the primal method's measure, writing the best iterate
    /// back; `places` and `diagonal` are the island's (`M`'s mirrored
    /// entries and diagonal), `free` the free contact velocity. The
    /// status, the error, and the Newton steps taken.
    pub fn solve(
        &mut self,
        given: &Given,
        friction: Friction,
        tolerance: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) -> (Status, f64, usize) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let rows = &problem.rows;
        for i in 0..problem.mu.len() {
            let w: f64 = (rows.start[i]..rows.start[i + 1])
                .map(|a| rows.entry(a)[0].powi(2) / diagonal[rows.cols[a]])
                .sum();
            self.rho[i] = if w > 0.0 { 1.0 / w } else { 1.0 };
        }
        self.steps = 0;
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
        let steps = self.steps;
        let status = if error <= tolerance {
            Status::Solved
        } else {
            Status::NotConverged
        };
        (status, error, steps)
    }

    /// The proximal iterations from `(v, r)`; the error at the end. Each
    /// iterate better than the best is kept when `keep`.
    #[allow(clippy::too_many_arguments)]
    fn prox(
        &mut self,
        given: &Given,
        friction: Friction,
        tolerance: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
        keep: bool,
    ) -> f64 {
        for (i, s) in self.sigma.iter_mut().enumerate() {
            *s = SIGMA / self.rho[i];
        }
        let exact = friction == Friction::Exact;
        let mut error = self.measure(given, friction, v, r, u);
        let (mut best, mut idle) = (error, 0);
        for _ in 0..MAX_OUTER {
            if keep {
                self.keep(error, v, r, u);
            }
            if error <= tolerance
                || given.problem.mu.is_empty()
                || (exact && idle == IDLE)
                || self.steps >= self.budget
            {
                break;
            }
            self.centre.copy_from_slice(r);
            let res = self.newton(given, exact, tolerance, v, r, u);
            match res {
                Some(taken) => {
                    self.steps += taken;
                    // An easy proximal problem: a weaker pull to the centre
                    // walks flat directions further.
                    if taken <= 2 {
                        for (s, rho) in self.sigma.iter_mut().zip(&self.rho) {
                            *s = (*s * SIGMA_CUT).max(SIGMA_FLOOR / rho);
                        }
                    }
                }
                None => break,
            }
            error = self.measure(given, friction, v, r, u);
            // Progress is a new best by a factor; under the exact law a
            // few proximal problems without it end the attempt (a
            // degenerate contact the Newton steps circle). The convex form
            // is a convex program: its proximal iterations walk on.
            if error <= PROGRESS * best {
                (best, idle) = (error, 0);
            } else {
                idle += 1;
            }
        }
        if keep {
            self.keep(error, v, r, u);
        }
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

    /// Newton's method on `F` from `(v, r)`, the centre fixed; the steps,
    /// `None` when it cannot go on (a singular Jacobian, no descent from
    /// the start).
    fn newton(
        &mut self,
        given: &Given,
        exact: bool,
        tolerance: f64,
        v: &mut [f64],
        r: &mut [f64],
        u: &mut [f64],
    ) -> Option<usize> {
        let n = given.problem.force.len();
        let size = self.f.len();
        let friction = if exact {
            Friction::Exact
        } else {
            Friction::Convex
        };
        let (mut theta, mut scale) = self.residual(given, exact, v, r, u, true);
        for steps in 0..MAX_NEWTON {
            if self.steps + steps >= self.budget {
                return Some(steps);
            }
            // Done when the answer is (the measure, not `F`: their scales
            // differ by the contacts' effective masses), or when `F` is
            // round-off.
            if (2.0 * theta).sqrt() <= ROUND_OFF * scale
                || self.measure(given, friction, v, r, u) <= INNER * tolerance
            {
                return Some(steps);
            }
            self.jacobian(given);
            let symbolic = SymbolicSparseColMatRef::new_checked(
                size,
                size,
                &self.col_ptr,
                None,
                &self.row_idx,
            );
            let lu = self.lu.as_mut().expect("analysed");
            if !lu.factor(SparseColMatRef::new(symbolic, &self.values)) {
                return (steps > 0).then_some(steps);
            }
            for (s, f) in self.step.iter_mut().zip(&self.f) {
                *s = -f;
            }
            lu.solve_in_place(&mut self.step);
            if self.step.iter().any(|x| !x.is_finite()) {
                return (steps > 0).then_some(steps);
            }
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
                let (tv, tr) = (
                    std::mem::take(&mut self.trial_v),
                    std::mem::take(&mut self.trial_r),
                );
                let mut tu = std::mem::take(&mut self.trial_u);
                std::mem::swap(&mut self.f, &mut self.trial_f);
                let (trial, trial_scale) = self.residual(given, exact, &tv, &tr, &mut tu, false);
                std::mem::swap(&mut self.f, &mut self.trial_f);
                (self.trial_v, self.trial_r, self.trial_u) = (tv, tr, tu);
                if trial <= (1.0 - 2.0 * ARMIJO * t) * theta {
                    v.copy_from_slice(&self.trial_v);
                    r.copy_from_slice(&self.trial_r);
                    u.copy_from_slice(&self.trial_u);
                    (theta, scale) = (trial, trial_scale);
                    break;
                }
                t *= 0.5;
                if t < MIN_STEP {
                    return (steps > 0).then_some(steps);
                }
            }
            // The derivatives at the new iterate.
            self.residual(given, exact, v, r, u, true);
        }
        Some(MAX_NEWTON)
    }

    /// The primal method's measure: Coulomb's law (Siconos') and the
    /// dynamics residual in velocities.
    fn measure(
        &mut self,
        given: &Given,
        friction: Friction,
        v: &[f64],
        r: &[f64],
        u: &[f64],
    ) -> f64 {
        let coulomb = error_for(friction, &given.problem.mu, given.free, r, u);
        coulomb.max(super::island::dynamics_residual(
            given.problem,
            given.places,
            given.diagonal,
            v,
            r,
            &mut self.scratch,
            &mut self.jr,
        ))
    }

    /// Writes `u = J v + b` and `F` into `self.f` (with the projections'
    /// derivatives and slip directions when `derivatives`); returns
    /// `|F|^2 / 2` and the scale of the velocities it balances.
    fn residual(
        &mut self,
        given: &Given,
        exact: bool,
        v: &[f64],
        r: &[f64],
        u: &mut [f64],
        derivatives: bool,
    ) -> (f64, f64) {
        let (problem, places, diagonal) = (given.problem, given.places, given.diagonal);
        let (n, d) = (problem.force.len(), problem.rows.dimension);
        let rows = &problem.rows;
        // F_v = (M v - f - J^T r) / M_jj.
        let fv = &mut self.f[..n];
        fv.fill(0.0);
        super::island::symmetric_product(&problem.mass, places, v, fv);
        let mut scale = 0.0f64;
        for ((x, f), m) in fv.iter_mut().zip(&problem.force).zip(diagonal) {
            scale = scale.max(x.abs() / m).max(f.abs() / m);
            *x -= f;
        }
        for i in 0..problem.mu.len() {
            let ri = components(r, d, i);
            let ji = rows.velocity(i, v);
            for a in rows.start[i]..rows.start[i + 1] {
                let (col, e) = (rows.cols[a], rows.entry(a));
                let term = e[0] * ri[0] + e[1] * ri[1] + e[2] * ri[2];
                fv[col] -= term;
                scale = scale.max(term.abs() / diagonal[col]);
            }
            for c in 0..d {
                u[d * i + c] = ji[c] + problem.b[d * i + c];
            }
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
                self.derivatives[i] = cone_derivative(mu, x, piece);
                self.slips[i] = if exact && tangent > 0.0 {
                    [mu * ui[1] / tangent, mu * ui[2] / tangent]
                } else {
                    [0.0; 2]
                };
            }
        }
        (0.5 * self.f.iter().map(|x| x * x).sum::<f64>(), scale)
    }

    /// The Jacobian of `F` at the last iterate written with its
    /// derivatives.
    fn jacobian(&mut self, given: &Given) {
        let (problem, diagonal) = (given.problem, given.diagonal);
        let d = problem.rows.dimension;
        let rows = &problem.rows;
        self.values.fill(0.0);
        for ((&value, (a, _)), &(at, mirror)) in problem.mass.iter().zip(&self.mass) {
            self.values[at] += value / diagonal[a];
            if mirror != usize::MAX {
                // The mirror sits in the other row.
                let b = self.row_idx[mirror];
                self.values[mirror] += value / diagonal[b];
            }
        }
        let mut p = 0;
        for i in 0..problem.mu.len() {
            let (dd, s) = (&self.derivatives[i], self.slips[i]);
            for a in rows.start[i]..rows.start[i + 1] {
                let col = rows.cols[a];
                let e = rows.entry(a);
                // Row c of D (J + e_N mu s^T J_T) at this entry.
                let hat = [e[0] + s[0] * e[1] + s[1] * e[2], e[1], e[2]];
                for c in 0..d {
                    let (v_r, r_v) = self.coupling[p];
                    self.values[v_r] -= e[c] / diagonal[col];
                    self.values[r_v] += dd[c][0] * hat[0] + dd[c][1] * hat[1] + dd[c][2] * hat[2];
                    p += 1;
                }
            }
            // (I - D) / rho + sigma D.
            let (rho, sigma) = (self.rho[i], self.sigma[i]);
            for c in 0..d {
                for e in 0..d {
                    let eye = if c == e { 1.0 } else { 0.0 };
                    self.values[self.blocks[(i * d + c) * d + e]] +=
                        (eye - dd[c][e]) / rho + sigma * dd[c][e];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContactRows;

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
        }
    }

    #[test]
    fn the_jacobian_is_the_residuals_derivative() {
        let p = problem();
        let n = p.force.len();
        let places: Vec<usize> = p
            .mass
            .iter()
            .map(|(_, (r, c))| if r > c { usize::MAX } else { 0 })
            .collect();
        let diagonal: Vec<f64> = (0..n).map(|i| *p.mass.get(i, i).unwrap()).collect();
        let given = Given {
            problem: &p,
            places: &places,
            diagonal: &diagonal,
            free: &[],
        };
        let mut finish = Finish::build(&p);
        finish.rho = vec![0.8, 1.3];
        finish.sigma = vec![0.05, 0.02];
        finish.centre = vec![0.3, 0.1, 0.0, 0.2, -0.1, 0.1];
        // Points where the contacts are inside the cone, on its surface
        // sliding, and at its apex, checked column by column against
        // central differences.
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
                finish.residual(&given, exact, &v, &r, &mut u, true);
                finish.jacobian(&given);
                let size = n + 6;
                let h = 1e-7;
                for col in 0..size {
                    let mut f = Vec::new();
                    for sign in [1.0, -1.0] {
                        let (mut x, mut y) = (v.clone(), r.clone());
                        if col < n {
                            x[col] += sign * h;
                        } else {
                            y[col - n] += sign * h;
                        }
                        finish.residual(&given, exact, &x, &y, &mut u, false);
                        f.push(finish.f.clone());
                    }
                    for row in 0..size {
                        let fd = (f[0][row] - f[1][row]) / (2.0 * h);
                        let range = finish.col_ptr[col]..finish.col_ptr[col + 1];
                        let analytic = finish.row_idx[range.clone()]
                            .iter()
                            .position(|&x| x == row)
                            .map_or(0.0, |k| finish.values[range.start + k]);
                        assert!(
                            (fd - analytic).abs() < 1e-6 * (1.0 + fd.abs()),
                            "exact {exact}: J[{row}][{col}] = {analytic} against {fd}"
                        );
                    }
                }
            }
        }
    }
}
