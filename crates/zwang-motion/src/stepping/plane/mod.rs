//! Velocity-level time stepping (Moreau-Jean): Gauss's principle in
//! velocities, one contact solve per step, for scenes whose contacts come
//! and go too often to locate each change (piles, stacks, bins).
//!
//! A step of length `h` from `(q, v)`, in named stages, each timed
//! ([`crate::StageTimes`]):
//!
//! 1. **collide** (`collide.rs`): the contacts of the shapes that touch or
//!    come within a margin (the distance the bodies may close in a step),
//!    and of the `[[contact]]` points near their surfaces; each with its
//!    rows over `v`, its gap and an id that persists;
//! 2. **assemble** (`assemble.rs`): the free velocity `v* = v + h M^-1 Q`
//!    (with joints, moved onto their velocities in Gauss's metric,
//!    `joints.rs`) and the contact problem: in velocities, `M v = M v* +
//!    J^T r`, `u = J v + b`, without joints; in local form `u = W r + q`,
//!    `W = J M^-1 J^T`, with them (the joints held make `W` dense). The
//!    normal free term is shifted by restitution (`u_N+ >= -e u_N-` on an
//!    impact within the step) and by a positive gap (a contact apart may
//!    close exactly by the step's end: `u_N >= -g / h`);
//! 3. **solve**: Coulomb's law on the impulses `r`, exact (De Saxce's
//!    modified velocity: a sliding contact keeps `u_N = 0`) or the convex
//!    relaxation, warm-started by contact id (or by the nearest point of
//!    the same pair, `warm.rs`): Newton's method on the velocities
//!    ([`zwang_contact::PrimalSolver`], the dual method finishing where it
//!    stalls), or the dual method on `W` per island
//!    ([`zwang_contact::ContactSolver`]);
//! 4. **integrate** (`integrate.rs`): `v+ = v* + M^-1 J^T r`,
//!    `q+ = q + h v+`;
//! 5. **correct** (`correct.rs`): overlap left beyond a tolerance (the rows
//!    are linear, bodies turn) is projected away in Gauss's metric, the
//!    kinetic energy of the moved bodies paying for the potential energy
//!    the projection adds; the joints' drift too.
//!
//! Within a step the motion is `q + s v+` (`0 <= s <= h`): samples between
//! step ends are taken on it. Impacts, lift-off, sticking and slipping
//! happen inside steps and are not located, so a run reports no events.
//! Steady-state steps (the same contacts) allocate nothing.

mod assemble;
mod collide;
pub mod compare;
mod correct;
mod integrate;
pub(crate) mod joints;

use crate::projection::Projector;
use crate::simulate::{ContactSample, Observer, Outcome, StartProjection};
use crate::stepping::{
    self, pay_for, run, Stages, StepCore, StepError, StepReport, StepSettings, GAP_SLOP,
    START_CORRECTIONS,
};
use assemble::Assemble;
use collide::{ContactFinder, StepContact};
use correct::Correct;
use joints::Joints;
use std::time::Instant as Clock;
use zwang_contact::{ContactSolver, Mode, PrimalSolver, SolverSettings};
use zwang_geometry::Collision;
use zwang_instant::Instant;
use zwang_model::planar::PlanarModel;
use zwang_model::{Bodies, ContactState, Contacts, Coordinates, InstantWriter, ModelError};

/// A velocity-level time stepper of a planar model and its working
/// memory.
pub struct TimeStepper<'m> {
    model: &'m PlanarModel,
    /// The state, the settings, the run's totals and the last step.
    core: StepCore,
    /// The diagonal of `M^-1`.
    minv: Vec<f64>,
    /// Each body's coordinates (`first..end`) and bounding radius (0
    /// without a shape), for the margin and the corrections' energy.
    bodies: Vec<(std::ops::Range<usize>, f64)>,
    /// The instant `Q` is read from (every contact open; its rows are the
    /// joints').
    instant: Instant,
    /// The joints held at velocity level, their drift projected away, and
    /// their velocity targets (none without joints).
    joints: Option<Joints>,
    projector: Option<Projector>,
    targets: Vec<f64>,
    modes: Vec<ContactState>,
    v_star: Vec<f64>,
    collide: ContactFinder,
    assemble: Assemble,
    correct: Correct,
    solver: ContactSolver,
    primal: PrimalSolver,
    solver_settings: SolverSettings,
    warm: crate::warm::Warm,
    contacts: Vec<StepContact>,
    ids: Vec<u64>,
    r: Vec<f64>,
    u: Vec<f64>,
    /// The primal solver's velocities (the step's are recomputed from the
    /// impulses, for momentum to hold to round-off).
    v_new: Vec<f64>,
    /// Whether `contacts` are those of the current positions.
    fresh: bool,
}

impl<'m> TimeStepper<'m> {
    /// A stepper at the model's initial state.
    pub fn new(model: &'m PlanarModel, settings: StepSettings) -> Result<Self, StepError> {
        let (n, nq) = (model.nv(), model.nq());
        let (mut q, mut v) = (vec![0.0; nq], vec![0.0; n]);
        model.initial_state(&mut q, &mut v);
        let modes = vec![ContactState::OPEN; model.contacts()];
        let (instant, _) = model.build_instant(0.0, &q, &v, &modes)?;
        let mass = instant.mass();
        let mut minv = vec![0.0; n];
        for (value, (row, col)) in mass.iter() {
            if row != col {
                return Err(StepError::Unsupported(
                    "the time stepper needs a diagonal mass matrix".into(),
                ));
            }
            minv[row] = 1.0 / value;
        }
        let bodies = model
            .body_list()
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let o = model.offset(b);
                let dofs = if body.is_rigid() { 3 } else { 2 };
                let r = body.shape.as_ref().map_or(0.0, collide::bounding_radius);
                (o..o + dofs, r)
            })
            .collect();
        let joints = Joints::new(&instant);
        let projector = match joints {
            Some(_) => Some(
                Projector::new(model, 0.0, &q, &v, &modes)
                    .map_err(|e| StepError::Unsupported(e.to_string()))?,
            ),
            None => None,
        };
        let targets = vec![0.0; instant.equalities().len()];
        let solver_settings = SolverSettings {
            tolerance: settings.tolerance,
            friction: settings.friction,
            finish_steps: settings.finish_steps,
            ..SolverSettings::default()
        };
        let mut stepper = TimeStepper {
            collide: ContactFinder::new(
                model.colliders(),
                |c| collide::bounding_radius(&c.shape),
                |c| Collision::new(c, &model.joined_pairs()),
            )?,
            model,
            core: StepCore::new(q, v, settings),
            v_star: vec![0.0; n],
            minv,
            bodies,
            instant,
            joints,
            projector,
            targets,
            modes,
            assemble: Assemble::default(),
            correct: Correct::default(),
            solver: ContactSolver::new(),
            primal: PrimalSolver::new(),
            solver_settings,
            warm: crate::warm::Warm::default(),
            contacts: Vec::new(),
            ids: Vec::new(),
            r: Vec::new(),
            u: Vec::new(),
            v_new: vec![0.0; n],
            fresh: false,
        };
        stepper.start()?;
        Ok(stepper)
    }

    /// A start that overlaps or is off its joints is moved apart and onto
    /// them (Gauss's metric, as a step's correction), without paying for
    /// the potential energy it adds: the run's energy starts from the
    /// moved start. The move is reported
    /// ([`TimeStepper::start_projection`]); the start's overlap counts in
    /// the run's deepest.
    fn start(&mut self) -> Result<(), StepError> {
        let model = self.model;
        let (q, v) = (self.core.q.clone(), self.core.v.clone());
        let tol = self.core.settings.penetration_tolerance;
        let margin = self.margin(self.core.settings.time_step);
        self.collide
            .contacts(model, &self.core.q, margin, &mut self.contacts)?;
        let (mut overlap, mut off_contact) = (0.0f64, 0.0f64);
        for c in &self.contacts {
            if c.shapes {
                overlap = overlap.max(-c.gap);
            } else {
                off_contact = off_contact.max(-c.gap);
            }
        }
        self.core.totals.max_penetration = overlap;
        let mut off_joints = 0.0f64;
        for pass in 0..START_CORRECTIONS {
            if self.displacement(tol)? {
                for (x, d) in self.core.q.iter_mut().zip(self.correct.dq()) {
                    *x += d;
                }
            } else if pass > 0 || self.projector.is_none() {
                break;
            }
            if let Some(p) = self.projector.as_mut() {
                let drift = p
                    .positions(
                        model,
                        0.0,
                        &mut self.core.q,
                        &self.core.v,
                        &self.modes,
                        GAP_SLOP * tol,
                    )
                    .map_err(|e| StepError::Unsupported(e.to_string()))?;
                if pass == 0 {
                    off_joints = drift;
                }
            }
            self.collide
                .contacts(model, &self.core.q, margin, &mut self.contacts)?;
            if self.joints.is_some() {
                model.update_instant(
                    0.0,
                    &self.core.q,
                    &self.core.v,
                    &self.modes,
                    &mut self.instant,
                )?;
            }
        }
        let violation = overlap.max(off_contact).max(off_joints);
        if violation <= tol && off_joints <= GAP_SLOP * tol {
            return Ok(());
        }
        let change = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        };
        self.core.start_projection = Some(StartProjection {
            violation,
            at: if violation == overlap {
                "an overlap of two shapes".into()
            } else if violation == off_contact {
                "a contact point".into()
            } else {
                "a joint".into()
            },
            speed_violation: 0.0,
            speed_at: String::new(),
            position_change: change(&q, &self.core.q),
            velocity_change: change(&v, &self.core.v),
            energy_given: model.energy(0.0, &q, &v),
        });
        Ok(())
    }

    /// The instant at the current state (its force, and the joints'
    /// rows).
    fn write_instant(&mut self) -> Result<(), ModelError> {
        let core = &self.core;
        self.model
            .update_instant(core.t, &core.q, &core.v, &self.modes, &mut self.instant)
    }

    /// How the start was moved apart or onto its joints, if it was.
    pub fn start_projection(&self) -> Option<&StartProjection> {
        self.core.start_projection.as_ref()
    }

    /// Time, positions and velocities now.
    pub fn state(&self) -> (f64, &[f64], &[f64]) {
        (self.core.t, &self.core.q, &self.core.v)
    }

    /// The distance the bodies may close within a step of `h` at the
    /// current velocities (twice the fastest point's travel, and the free
    /// acceleration's): contacts farther apart stay out of the problem.
    fn margin(&self, h: f64) -> f64 {
        // A body's linear speed and its turning at its bounding radius.
        let speed = self.bodies.iter().fold(0.0f64, |m, (dofs, r)| {
            let v = &self.core.v[dofs.clone()];
            let w = v.get(2).map_or(0.0, |w| w.abs());
            m.max(v[0].hypot(v[1]) + w * r)
        });
        let accel = self
            .instant
            .force()
            .iter()
            .zip(&self.minv)
            .fold(0.0f64, |m, (f, mi)| m.max((f * mi).abs()));
        2.0 * h * (speed + h * accel) + 1e-9
    }

    /// One step of `h` (the last one of a run may be shorter), through
    /// the stages of [`crate::stepping`].
    pub fn step(&mut self, h: f64) -> Result<StepReport, StepError> {
        stepping::step(self, h)
    }

    /// The displacement that removes the overlaps beyond `tol` of the
    /// current contacts (into `correct`, joints held); `false` when none
    /// overlaps so.
    fn displacement(&mut self, tol: f64) -> Result<bool, StepError> {
        if !self.contacts.iter().any(|c| c.gap < -tol) {
            return Ok(false);
        }
        self.delassus()?;
        let (contacts, minv, joints) = (&self.contacts, &self.minv, &self.joints);
        Ok(self.correct.displacement(
            contacts,
            &self.assemble.problem.w,
            minv.len(),
            |r: &[f64], dq: &mut [f64]| match joints {
                Some(joints) => joints.add_impulses(r, dq),
                None => integrate::add_impulses(contacts, r, minv, dq),
            },
            tol,
        )?)
    }

    /// The step's problem in local form: `W` of the current contacts at the
    /// current positions and their free velocities.
    fn local_problem(&mut self, h: f64, slop: f64) -> Result<(), StepError> {
        self.delassus()?;
        self.assemble
            .free(&self.contacts, &self.core.v, &self.v_star, h, slop);
        Ok(())
    }

    /// `W` of the current contacts at the current positions (the instant
    /// written there when joints are held: their responses need it).
    fn delassus(&mut self) -> Result<(), StepError> {
        match self.joints.as_mut() {
            Some(joints) => {
                joints.refresh(&self.instant)?;
                self.assemble.rows(&self.contacts);
                joints.respond(&self.assemble.velocity.rows)?;
                self.assemble.delassus_from(&joints.responses);
            }
            None => {
                self.assemble.delassus(&self.contacts, &self.minv);
            }
        }
        Ok(())
    }

    /// Takes `energy` from the kinetic energy of the bodies the last
    /// correction moved (all of it, when they have less).
    fn pay_for(&mut self, energy: f64) {
        let minv = &self.minv;
        pay_for(
            energy,
            self.bodies.iter().map(|(dofs, _)| dofs.clone()),
            self.correct.dq(),
            &mut self.core.v,
            |c, v| 0.5 * v * v / minv[c],
        );
    }

    /// The `[[contact]]` points' forces and modes over the last step (the
    /// impulses over its length), for the CSV.
    fn contact_samples(&self, h: f64, out: &mut Vec<ContactSample>) {
        out.clear();
        out.resize(
            self.model.contacts(),
            ContactSample {
                normal_force: 0.0,
                friction_force: 0.0,
                mode: Mode::Open,
            },
        );
        // The impulses belong to the contacts of the step that made them;
        // the ids say which.
        for (k, id) in self.ids.iter().enumerate() {
            let Some(c) = self.point_of(*id) else {
                continue;
            };
            let (rn, rt) = (self.r[2 * k], self.r[2 * k + 1]);
            let ut = self.u.get(2 * k + 1).copied().unwrap_or(0.0);
            out[c] = ContactSample {
                normal_force: rn / h,
                friction_force: rt / h,
                mode: if rn <= 0.0 {
                    Mode::Open
                } else if ut.abs() <= 1e-9 {
                    Mode::Stick
                } else {
                    Mode::Slide
                },
            };
        }
    }

    /// The `[[contact]]` index an id stands for.
    fn point_of(&self, id: u64) -> Option<usize> {
        (id & (1 << 63) != 0).then_some((id & !(1 << 63)) as usize)
    }
}

impl Stages for TimeStepper<'_> {
    fn collide(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        if !self.fresh {
            self.collide
                .contacts(model, &self.core.q, self.margin(h), &mut self.contacts)?;
        }
        Ok(())
    }

    fn assemble(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        self.write_instant()?;
        self.fresh = false;
        for ((vs, v), (f, mi)) in self
            .v_star
            .iter_mut()
            .zip(&self.core.v)
            .zip(self.instant.force().iter().zip(&self.minv))
        {
            *vs = v + h * mi * f;
        }
        if let Some(joints) = self.joints.as_mut() {
            joints.refresh(&self.instant)?;
            model.velocity_targets(
                self.core.t,
                &self.core.q,
                &self.core.v,
                &self.modes,
                &mut self.targets,
            );
            joints.project(&self.minv, &self.targets, &mut self.v_star)?;
        }
        let slop = GAP_SLOP * self.core.settings.penetration_tolerance;
        // Without joints `M` stays diagonal: the primal solver's problem.
        let primal = self.joints.is_none();
        if primal {
            self.assemble.velocities(
                &self.contacts,
                &self.core.v,
                &self.v_star,
                &self.minv,
                h,
                slop,
            );
        } else {
            self.local_problem(h, slop)?;
        }
        Ok(())
    }

    fn solve(&mut self) -> Result<StepReport, StepError> {
        let primal = self.joints.is_none();
        let m = 2 * self.contacts.len();
        self.ids.clear();
        self.ids.extend(self.contacts.iter().map(|c| c.id));
        self.r.resize(m, 0.0);
        self.u.resize(m, 0.0);
        let warm_started =
            self.warm
                .fill(self.contacts.iter().map(StepContact::key), 2, &mut self.r);
        let report = if m == 0 {
            None
        } else if primal {
            let problem = &self.assemble.velocity;
            Some(
                self.primal
                    .solve_in_place(
                        problem,
                        &self.solver_settings,
                        &mut self.r,
                        &mut self.v_new,
                        &mut self.u,
                    )
                    .map_err(StepError::from_global)?,
            )
        } else {
            let problem = &self.assemble.problem;
            Some(self.solver.solve_in_place(
                problem,
                &self.solver_settings,
                &mut self.r,
                &mut self.u,
            )?)
        };
        self.warm
            .store(self.contacts.iter().map(StepContact::key), 2, &self.r);
        Ok(StepReport::of(report, warm_started, &self.r, &self.u, 2))
    }

    fn integrate(&mut self, h: f64) -> Result<(), StepError> {
        self.core.v.copy_from_slice(&self.v_star);
        match &self.joints {
            Some(joints) => joints.add_impulses(&self.r, &mut self.core.v),
            None => integrate::add_impulses(&self.contacts, &self.r, &self.minv, &mut self.core.v),
        }
        integrate::positions(&mut self.core.q, &self.core.v, h);
        self.core.t += h;
        Ok(())
    }

    /// The contacts at the new positions (kept for the next step), and
    /// 5. correct: overlap beyond the tolerance projected away.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        let clock = Clock::now();
        let margin = self.margin(h);
        self.collide
            .contacts(model, &self.core.q, margin, &mut self.contacts)?;
        self.core.totals.stages.collide += clock.elapsed();
        let clock = Clock::now();
        if self.joints.is_some() {
            self.write_instant()?;
        }
        let tol = self.core.settings.penetration_tolerance;
        let corrected = self.displacement(tol)?;
        if corrected {
            self.core.totals.corrections += 1;
            self.core.last.corrected = true;
            if let Some(report) = self.correct.report() {
                self.core.last.account_for(&report);
            }
            let before = model.energy(self.core.t, &self.core.q, &self.core.v);
            let dq = self.correct.dq();
            for (x, d) in self.core.q.iter_mut().zip(dq) {
                *x += d;
            }
            let raised = model.energy(self.core.t, &self.core.q, &self.core.v) - before;
            if raised > 0.0 {
                self.pay_for(raised);
            }
        }
        // The joints' drift, projected away (Gauss's metric).
        let mut moved = false;
        if let Some(p) = self.projector.as_mut() {
            let tol = GAP_SLOP * self.core.settings.penetration_tolerance;
            let drift = p
                .positions(
                    model,
                    self.core.t,
                    &mut self.core.q,
                    &self.core.v,
                    &self.modes,
                    tol,
                )
                .map_err(|e| StepError::Unsupported(e.to_string()))?;
            self.core.totals.max_drift = self.core.totals.max_drift.max(drift);
            moved = drift > tol;
        }
        if corrected || moved {
            self.collide
                .contacts(model, &self.core.q, margin, &mut self.contacts)?;
            if self.joints.is_some() {
                self.write_instant()?;
            }
        }
        self.fresh = true;
        for c in &self.contacts {
            let overlap = (-c.gap).max(0.0);
            if c.shapes {
                self.core.totals.max_penetration = self.core.totals.max_penetration.max(overlap);
            } else {
                self.core.totals.max_drift = self.core.totals.max_drift.max(overlap);
            }
        }
        self.core.totals.stages.correct += clock.elapsed();
        Ok(())
    }

    fn advance(&self, v: &[f64], s: f64, out: &mut [f64]) {
        integrate::positions(out, v, s);
    }

    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        self.model.energy(t, q, v)
    }

    fn contact_samples(&self, h: f64, out: &mut Vec<ContactSample>) {
        TimeStepper::contact_samples(self, h, out);
    }

    fn core(&self) -> &StepCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut StepCore {
        &mut self.core
    }
}

/// Runs `model` from its initial state to `duration` with the time
/// stepper: steps of `settings.time_step` (the last one shorter to end at
/// `duration`), samples every `output_every` on the motion within the
/// steps, no events. A stepper that cannot start, or a step that fails,
/// ends the run as [`crate::Status::Failed`] with the reason.
pub fn simulate_steps(
    model: &PlanarModel,
    duration: f64,
    settings: &StepSettings,
    observer: &mut dyn Observer,
) -> Outcome {
    run(
        model,
        duration,
        settings,
        || TimeStepper::new(model, settings.clone()),
        observer,
    )
}
