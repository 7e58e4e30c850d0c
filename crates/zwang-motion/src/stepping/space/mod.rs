//! Velocity-level time stepping in space (Moreau-Jean): the planar time
//! stepper's stages ([`crate::stepping::plane`]) on rigid bodies in space, for
//! piles, stacks and bins, and joints (`joints.rs`: ball, hinge, slider,
//! weld, distance), held as in the plane.
//!
//! A step of length `h` from `(q, v)`, each stage timed ([`StageTimes`]):
//!
//! 1. **collide** (`collide.rs`): the contacts of the shapes that touch or
//!    come within the distance the bodies may close in a step (parry3d),
//!    three rows each over `v` (the normal, two tangents), a gap and an id
//!    that persists;
//! 2. **assemble**: the free velocity `v* = v + h M^-1 Q` (gravity, the
//!    constant forces, the gyroscopic torque) and the problem in
//!    velocities, `M v = M v* + J^T r`, `u = J v + b`, the normal free
//!    term shifted by restitution or a positive gap (as in the plane);
//! 3. **solve**: Coulomb's law on the impulses in the round cone, exact
//!    (De Saxce) or convex, by [`zwang_contact::PrimalSolver`] with three
//!    rows per contact, warm-started by contact id or nearest point;
//! 4. **integrate**: `q+ = q (+) h v+`, the orientation turned on its
//!    manifold;
//! 5. **correct**: overlap left beyond the tolerance projected away in
//!    Gauss's metric (`min 1/2 dq^T M dq`, `g + J_n dq >= 0`: the same
//!    solver without friction), the moved bodies' kinetic energy paying
//!    for the potential energy it adds.
//!
//! With joints, stage 3 solves in a basis of what the joints leave free
//! and stage 5 projects their drift away (`joints.rs`); without them the
//! path is the one above.
//!
//! `M` is diagonal and constant ([`SpatialModel`]'s principal frames).
//! Steady-state steps allocate nothing.

pub(super) mod collide;
mod joints;

use std::time::Instant as Clock;

use sprs::CsMat;
use zwang_contact::{BoundedRows, ContactRows, PrimalSolver, SolverSettings, VelocityProblem};
use zwang_geometry::spatial::Collision;
use zwang_model::spatial::SpatialModel;

use crate::simulate::{Observer, Outcome, StageTimes, StartProjection};
use crate::stepping::{
    self, gap_term, pay_for, run, OnUnsolved, Stages, StepCore, StepError, StepReport,
    StepSettings, GAP_SLOP, START_CORRECTIONS,
};
use crate::warm::Warm;
use collide::{bounding_radius, overlap_problem, ContactFinder, SpaceContact};
use joints::SpaceJoints;

/// Points of one pair from which its gap terms are levelled (see
/// [`level_faces`]): an affine normal velocity over a face meets any three.
const LEVELLED_FROM: usize = 4;

/// Writes the gap terms `b` (in the rows of three per contact) of every
/// pair of [`LEVELLED_FROM`] points or more, without restitution and not
/// all within `slop`, as `max(gap - m, 0) / h`, `m` the pair's least gap
/// held between 0 and `slop`, in place of `max(gap - slop, 0) / h`.
///
/// Why: a face's gaps are affine over it, but clamping at the slop is
/// not: corners a nanometre apart got terms of 1.2e-6, 0, 0 and 1.2e-6
/// m/s, which no rigid motion of the face meets while all four are
/// loaded. The exact law must then lift a loaded corner at nanometres a
/// second, a switch of its pieces that the solver may take hundreds of
/// Newton steps to find (the landing pile's hardest islands). Measured
/// from its lowest point (when that is within the slop) the terms stay
/// affine and `>= 0`: no contact pushes, and the face closes down to its
/// lowest point. (Giving every point the least term instead left a box
/// landing tilted hovering on one edge, by up to the overlap tolerance.)
/// A face all within the slop keeps its zero terms (at rest, faces of
/// stacked boxes that all close by sub-nanometres conflict); an
/// overlapping one (`m = 0`) keeps a clamp, as before. Fewer of a landing
/// pile's steps end above the tolerance, and each is cheaper
/// (`docs/benchmarks.md`).
pub(super) fn level_faces(contacts: &[SpaceContact], slop: f64, h: f64, b: &mut [f64]) {
    let mut start = 0;
    while start < contacts.len() {
        let pair = contacts[start].key.pair;
        let end = start
            + contacts[start..]
                .iter()
                .take_while(|c| c.key.pair == pair)
                .count();
        let face = &contacts[start..end];
        if face.len() >= LEVELLED_FROM
            && face.iter().all(|c| c.restitution == 0.0)
            && face.iter().any(|c| c.gap > slop)
        {
            let least = face.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min);
            let m = least.clamp(0.0, slop);
            for (i, c) in (start..end).zip(face) {
                b[3 * i] = (c.gap - m).max(0.0) / h;
            }
        }
        start = end;
    }
}

/// A velocity-level time stepper of a spatial model and its working
/// memory.
///
/// Collision and islands run on rayon's pool. Step from inside it
/// (`rayon::scope`, `ThreadPool::install`) where steps are short: from
/// outside, each parallel stage is handed to the pool and waited for, a
/// cost that short steps feel (`docs/benchmarks.md`).
pub struct SpaceStepper<'m> {
    model: &'m SpatialModel,
    /// The state, the settings, the run's totals and the last step.
    core: StepCore,
    solver_settings: SolverSettings,
    v_star: Vec<f64>,
    /// `M`'s diagonal, and each moving body's bounding radius.
    mass: Vec<f64>,
    radii: Vec<f64>,
    collide: ContactFinder,
    contacts: Vec<SpaceContact>,
    entries: Vec<(usize, [f64; 3])>,
    /// Whether `contacts` are those of the current positions.
    fresh: bool,
    problem: VelocityProblem,
    primal: PrimalSolver,
    r: Vec<f64>,
    u: Vec<f64>,
    /// The velocities at the step's start, kept while the solve writes
    /// the new ones under [`OnUnsolved::Fail`] (restored when an unsolved
    /// step ends the run).
    v_start: Vec<f64>,
    warm: Warm,
    /// The correction's problem (no friction), solver and displacement.
    overlap: VelocityProblem,
    correct: PrimalSolver,
    dq: Vec<f64>,
    /// The joints held (none without joints).
    joints: Option<SpaceJoints>,
}

/// An empty problem in velocities with three rows per contact and `M`.
fn problem_of(mass: &[f64]) -> VelocityProblem {
    let n = mass.len();
    VelocityProblem {
        mass: CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), mass.to_vec()),
        force: vec![0.0; n],
        rows: ContactRows::new(3),
        b: Vec::new(),
        mu: Vec::new(),
        bounded: BoundedRows::default(),
    }
}

impl<'m> SpaceStepper<'m> {
    /// At the model's initial state.
    pub fn new(model: &'m SpatialModel, settings: StepSettings) -> Result<Self, StepError> {
        let (nq, n) = (model.nq(), model.nv());
        let (mut q, mut v) = (vec![0.0; nq], vec![0.0; n]);
        model.initial_state(&mut q, &mut v);
        let mut mass = vec![0.0; n];
        model.mass_diagonal(&mut mass);
        let radii = (0..model.movers())
            .map(|m| {
                model.bodies()[model.body_of(m)]
                    .shape
                    .as_ref()
                    .map_or(0.0, bounding_radius)
            })
            .collect();
        let solver_settings = SolverSettings {
            friction: settings.friction,
            tolerance: settings.tolerance,
            finish_steps: settings.finish_steps,
            ..SolverSettings::default()
        };
        let given = (q.clone(), v.clone());
        let mut joints = SpaceJoints::new(model);
        let mut off_joints = 0.0;
        if let Some(joints) = joints.as_mut() {
            // A start off its joints is moved onto them (Gauss's metric).
            let tol = GAP_SLOP * settings.penetration_tolerance;
            off_joints = joints.start(model, &mut q, &mut v, &mass, tol)?;
        }
        let mut stepper = SpaceStepper {
            joints,
            model,
            core: StepCore::new(q, v, settings),
            collide: ContactFinder::new(
                model.colliders(),
                |c| bounding_radius(&c.shape),
                |c| Collision::new(c, &model.joined_pairs()),
            )?,
            problem: problem_of(&mass),
            overlap: problem_of(&mass),
            v_star: vec![0.0; n],
            v_start: vec![0.0; n],
            dq: vec![0.0; n],
            mass,
            radii,
            contacts: Vec::new(),
            entries: Vec::new(),
            fresh: false,
            primal: PrimalSolver::new(),
            r: Vec::new(),
            u: Vec::new(),
            warm: Warm::default(),
            correct: PrimalSolver::new(),
            solver_settings,
        };
        stepper.start(given, off_joints)?;
        Ok(stepper)
    }

    /// A start that overlaps is moved apart (Gauss's metric, as a step's
    /// correction, the joints held), without paying for the potential
    /// energy it adds: the run's energy starts from the moved start. A
    /// start moved onto its joints or apart is reported
    /// ([`SpaceStepper::start_projection`]); its overlap counts in the
    /// run's deepest.
    fn start(&mut self, given: (Vec<f64>, Vec<f64>), off_joints: f64) -> Result<(), StepError> {
        let tol = self.core.settings.penetration_tolerance;
        let margin = self.margin(self.core.settings.time_step);
        self.recollide(margin);
        let overlap = self.contacts.iter().fold(0.0f64, |m, c| m.max(-c.gap));
        self.core.totals.max_penetration = overlap;
        // The rows are linear, the bodies turn: a deep overlap takes a few.
        for _ in 0..START_CORRECTIONS {
            if !self.contacts.iter().any(|c| c.gap < -tol) {
                break;
            }
            self.displacement()?;
            self.model.integrate(&mut self.core.q, &self.dq, 1.0);
            if let Some(joints) = self.joints.as_mut() {
                joints.correct(self.model, &mut self.core.q, &self.mass, GAP_SLOP * tol)?;
            }
            self.recollide(margin);
        }
        let apart = overlap > tol;
        if !apart && off_joints <= GAP_SLOP * tol {
            return Ok(());
        }
        let (q, v) = given;
        let change = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        };
        let velocity_change = change(&v, &self.core.v);
        self.core.start_projection = Some(StartProjection {
            violation: overlap.max(off_joints),
            at: if overlap >= off_joints {
                "an overlap of two shapes".into()
            } else {
                "a joint".into()
            },
            speed_violation: velocity_change,
            speed_at: if velocity_change > 0.0 {
                "a joint".into()
            } else {
                String::new()
            },
            position_change: change(&q, &self.core.q),
            velocity_change,
            energy_given: self.model.energy(&q, &v),
        });
        Ok(())
    }

    /// How the start was moved onto its joints or apart, if it was.
    pub fn start_projection(&self) -> Option<&StartProjection> {
        self.core.start_projection.as_ref()
    }

    /// `(t, q, v)` now.
    pub fn state(&self) -> (f64, &[f64], &[f64]) {
        (self.core.t, &self.core.q, &self.core.v)
    }

    /// The time spent in each stage so far.
    pub fn stages(&self) -> StageTimes {
        self.core.totals.stages
    }

    /// The deepest overlap of two shapes at the end of any step so far.
    pub fn max_penetration(&self) -> f64 {
        self.core.totals.max_penetration
    }

    /// The distance the bodies may close within a step of `h`: twice the
    /// fastest point's travel at the current and the free velocities.
    fn margin(&self, h: f64) -> f64 {
        let speed = |v: &[f64]| {
            (0..self.radii.len()).fold(0.0f64, |s, m| {
                let lin = (v[6 * m].powi(2) + v[6 * m + 1].powi(2) + v[6 * m + 2].powi(2)).sqrt();
                let ang =
                    (v[6 * m + 3].powi(2) + v[6 * m + 4].powi(2) + v[6 * m + 5].powi(2)).sqrt();
                s.max(lin + ang * self.radii[m])
            })
        };
        2.0 * h * speed(&self.core.v).max(speed(&self.v_star)) + 1e-9
    }

    /// One step of `h` (the last one of a run may be shorter), through
    /// the stages of [`crate::stepping`].
    pub fn step(&mut self, h: f64) -> Result<StepReport, StepError> {
        stepping::step(self, h)
    }

    /// The contacts at the current positions within `margin`.
    fn recollide(&mut self, margin: f64) {
        self.collide.contacts(
            self.model,
            &self.core.q,
            margin,
            &mut self.contacts,
            &mut self.entries,
        );
    }

    /// The displacement `dq` that removes the overlaps: `min 1/2 dq^T M
    /// dq` with `g + J_n dq >= 0` at every contact; the solve's report.
    fn displacement(&mut self) -> Result<Option<zwang_contact::Report>, StepError> {
        let p = &mut self.overlap;
        let settings = overlap_problem(p, &self.contacts, &self.entries, &mut self.r, &mut self.u);
        if let Some(joints) = self.joints.as_mut() {
            // The joints' null space at these positions.
            joints.refresh(self.model, &self.core.q, &self.mass)?;
            return joints.solve(
                p,
                &self.mass,
                &settings,
                &mut self.r,
                &mut self.dq,
                &mut self.u,
            );
        }
        self.correct
            .solve_in_place(p, &settings, &mut self.r, &mut self.dq, &mut self.u)
            .map(Some)
            .map_err(StepError::from_global)
    }

    /// Takes `energy` from the kinetic energy of the bodies the last
    /// correction moved (all of it, when they have less).
    fn pay_for(&mut self, energy: f64) {
        let mass = &self.mass;
        pay_for(
            energy,
            (0..self.radii.len()).map(|m| 6 * m..6 * m + 6),
            &self.dq,
            &mut self.core.v,
            |c, v| 0.5 * mass[c] * v * v,
        );
    }
}

impl Stages for SpaceStepper<'_> {
    fn prepare(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        model.free_velocity(&self.core.q, &self.core.v, h, &mut self.v_star);
        Ok(())
    }

    fn collide(&mut self, h: f64) -> Result<(), StepError> {
        let margin = self.margin(h);
        if !self.fresh {
            self.recollide(margin);
        }
        self.fresh = false;
        Ok(())
    }

    fn assemble(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        let slop = GAP_SLOP * self.core.settings.penetration_tolerance;
        let p = &mut self.problem;
        for ((f, m), v) in p.force.iter_mut().zip(&self.mass).zip(&self.v_star) {
            *f = m * v;
        }
        p.rows.clear();
        p.b.clear();
        p.mu.clear();
        for c in &self.contacts {
            let entries = &self.entries[c.entries.0..c.entries.1];
            p.rows.push(entries.iter().copied());
            let before: f64 = entries
                .iter()
                .map(|(col, e)| e[0] * self.core.v[*col])
                .sum();
            p.b.extend([gap_term(before, c.gap, c.restitution, h, slop), 0.0, 0.0]);
            p.mu.push(c.mu);
        }
        level_faces(&self.contacts, slop, h, &mut p.b);
        if let Some(joints) = self.joints.as_mut() {
            joints.refresh(model, &self.core.q, &self.mass)?;
        }
        Ok(())
    }

    fn solve(&mut self) -> Result<StepReport, StepError> {
        let k = 3 * self.contacts.len();
        self.r.resize(k, 0.0);
        self.u.resize(k, 0.0);
        let warm_started = self
            .warm
            .fill(self.contacts.iter().map(|c| c.key), 3, &mut self.r);
        if self.core.settings.on_unsolved == OnUnsolved::Fail {
            self.v_start.copy_from_slice(&self.core.v);
        }
        let report = if let Some(joints) = self.joints.as_mut() {
            joints.solve(
                &self.problem,
                &self.mass,
                &self.solver_settings,
                &mut self.r,
                &mut self.core.v,
                &mut self.u,
            )?
        } else if k == 0 {
            self.core.v.copy_from_slice(&self.v_star);
            None
        } else {
            Some(
                self.primal
                    .solve_in_place(
                        &self.problem,
                        &self.solver_settings,
                        &mut self.r,
                        &mut self.core.v,
                        &mut self.u,
                    )
                    .map_err(StepError::from_global)?,
            )
        };
        self.warm
            .store(self.contacts.iter().map(|c| c.key), 3, &self.r);
        Ok(StepReport::of(report, warm_started, &self.r, &self.u, 3))
    }

    fn restore(&mut self) {
        self.core.v.copy_from_slice(&self.v_start);
    }

    fn integrate(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        model.integrate(&mut self.core.q, &self.core.v, h);
        self.core.t += h;
        Ok(())
    }

    /// The contacts at the new positions (kept for the next step), and
    /// 5. correct: overlap beyond the tolerance projected away.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        let clock = Clock::now();
        let margin = self.margin(h);
        self.recollide(margin);
        self.fresh = true;
        self.core.totals.stages.collide += clock.elapsed();
        let clock = Clock::now();
        let tol = self.core.settings.penetration_tolerance;
        if self.contacts.iter().any(|c| c.gap < -tol) {
            let report = self.displacement()?;
            self.core.totals.corrections += 1;
            self.core.last.corrected = true;
            if let Some(report) = report {
                self.core.last.account_for(&report);
            }
            let before = model.energy(&self.core.q, &self.core.v);
            model.integrate(&mut self.core.q, &self.dq, 1.0);
            let raised = model.energy(&self.core.q, &self.core.v) - before;
            if raised > 0.0 {
                self.pay_for(raised);
            }
            self.recollide(margin);
        }
        if let Some(joints) = self.joints.as_mut() {
            let drift = joints.correct(model, &mut self.core.q, &self.mass, GAP_SLOP * tol)?;
            self.core.totals.max_drift = self.core.totals.max_drift.max(drift);
            if drift > GAP_SLOP * tol {
                self.recollide(margin);
            }
        }
        for c in &self.contacts {
            self.core.totals.max_penetration = self.core.totals.max_penetration.max(-c.gap);
        }
        self.core.totals.stages.correct += clock.elapsed();
        Ok(())
    }

    fn advance(&self, v: &[f64], s: f64, out: &mut [f64]) {
        self.model.integrate(out, v, s);
    }

    fn energy(&self, _t: f64, q: &[f64], v: &[f64]) -> f64 {
        self.model.energy(q, v)
    }

    fn core(&self) -> &StepCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut StepCore {
        &mut self.core
    }
}

/// Runs `model` from its initial state to `duration` by velocity-level
/// time steps, the observer sampling every `output_every` (states within
/// a step on `q (+) s v+`; no contact samples, no events). Call it from
/// inside rayon's pool (see [`SpaceStepper`]).
pub fn simulate_space(
    model: &SpatialModel,
    duration: f64,
    settings: &StepSettings,
    observer: &mut dyn Observer,
) -> Outcome {
    run(
        model,
        duration,
        settings,
        || SpaceStepper::new(model, settings.clone()),
        observer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warm::Key;

    fn contact(pair: u64, gap: f64, restitution: f64) -> SpaceContact {
        SpaceContact {
            key: Key {
                id: 0,
                pair,
                point: [0.0; 3],
                reach: 0.0,
            },
            entries: (0, 0),
            gap,
            mu: 0.5,
            restitution,
        }
    }

    /// The terms `max(gap - slop, 0) / h`, in rows of three.
    fn clamped(contacts: &[SpaceContact], slop: f64, h: f64) -> Vec<f64> {
        contacts
            .iter()
            .flat_map(|c| [(c.gap - slop).max(0.0) / h, 0.0, 0.0])
            .collect()
    }

    /// The bug: a landing box's face touching on four corners, gaps of
    /// 2.4, 0.5, 0.9 and 2.4 nm against a slop of 1 nm, got terms of
    /// 7e-7, 0, 0 and 7e-7 m/s, which no rigid motion of the face meets
    /// while all four are loaded; the exact law had to lift a corner, and
    /// the solver took hundreds of Newton steps to find which. The terms
    /// are now measured from the lowest corner, as affine as the gaps;
    /// three points (which a face meets whatever their terms), a face all
    /// within the slop, and restitution leave the terms alone; an
    /// overlapping face is measured from zero.
    #[test]
    fn a_face_touching_on_four_corners_gets_terms_a_rigid_motion_meets() {
        let (slop, h) = (1e-9, 0.002);
        let contacts = [
            // A face on four corners, touching.
            contact(1, 2.4e-9, 0.0),
            contact(1, 0.5e-9, 0.0),
            contact(1, 0.9e-9, 0.0),
            contact(1, 2.4e-9, 0.0),
            // Three points of another pair.
            contact(2, 6e-9, 0.0),
            contact(2, 2e-9, 0.0),
            contact(2, 0.1e-9, 0.0),
            // A face all within the slop (at rest).
            contact(3, 0.2e-9, 0.0),
            contact(3, 0.9e-9, 0.0),
            contact(3, 0.4e-9, 0.0),
            contact(3, 0.7e-9, 0.0),
        ];
        let mut b = clamped(&contacts, slop, h);
        level_faces(&contacts, slop, h, &mut b);
        let mut want = clamped(&contacts, slop, h);
        for (i, c) in contacts[..4].iter().enumerate() {
            want[3 * i] = (c.gap - 0.5e-9) / h;
        }
        assert_eq!(b, want);
        // Affine over the face: the two 2.4 nm corners alike, the lowest
        // at zero, none pushing.
        assert_eq!(b[0], b[9]);
        assert_eq!(b[3], 0.0);
        assert!(b.iter().all(|&x| x >= 0.0));

        // Restitution: the terms are the bounce's.
        let mut bouncing = contacts;
        bouncing[0].restitution = 0.5;
        let mut b = clamped(&bouncing, slop, h);
        level_faces(&bouncing, slop, h, &mut b);
        assert_eq!(b, clamped(&bouncing, slop, h));

        // An overlapping face: from zero, the overlapping corner's term
        // held at zero.
        let mut overlapping = contacts;
        overlapping[1].gap = -3e-9;
        let mut b = clamped(&overlapping, slop, h);
        level_faces(&overlapping, slop, h, &mut b);
        assert_eq!(
            &b[..12],
            &[
                2.4e-9 / h,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.9e-9 / h,
                0.0,
                0.0,
                2.4e-9 / h,
                0.0,
                0.0
            ]
        );
    }
}
