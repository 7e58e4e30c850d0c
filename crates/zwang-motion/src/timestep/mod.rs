//! Velocity-level time stepping (Moreau-Jean): Gauss's principle in
//! velocities, one contact solve per step, for scenes whose contacts come
//! and go too often to locate each change (piles, stacks, bins).
//!
//! A step of length `h` from `(q, v)`, in named stages, each timed
//! ([`StageTimes`]):
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
use crate::simulate::{
    ContactSample, Observer, Outcome, StageTimes, StartProjection, Stats, Status,
};
use assemble::Assemble;
use collide::{Collide, StepContact};
use correct::Correct;
use joints::Joints;
use std::time::Instant as Clock;
use zwang_contact::{ContactSolver, Friction, Mode, PrimalSolver, SolverSettings};
use zwang_geometry::Collision;
use zwang_instant::Instant;
use zwang_model::planar::PlanarModel;
use zwang_model::{Bodies, ContactState, Contacts, Coordinates, InstantWriter, ModelError};

/// Gaps below this fraction of [`StepSettings::penetration_tolerance`]
/// count as touching in the gap term (see `assemble`).
const GAP_SLOP: f64 = 1e-3;

/// Settings of the time stepper.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSettings {
    /// `h`, s (> 0). Default 0.002.
    pub time_step: f64,
    /// Exact Coulomb or its convex relaxation. Default exact.
    pub friction: Friction,
    /// The contact solver's tolerance on Siconos' error measure. Default
    /// 1e-10.
    pub tolerance: f64,
    /// Overlap left at the end of a step beyond which it is projected
    /// away, m (>= 0). Default 1e-6.
    pub penetration_tolerance: f64,
    /// Sampling of the trajectory for the observer, s (> 0). Default
    /// 0.01.
    pub output_every: f64,
    /// The most steps a run may take (duration / time_step, rounded up,
    /// must not exceed it). Default 10 000 000.
    pub max_steps: usize,
    /// The contact solver's budget for its finish in space
    /// ([`zwang_contact::SolverSettings`]' `finish_steps`). Default 200;
    /// more solves more of a landing pile's islands to the tolerance, at
    /// more cost.
    pub finish_steps: usize,
    /// What a step whose contact problem ends above `tolerance` does.
    /// Default [`OnUnsolved::Warn`].
    pub on_unsolved: OnUnsolved,
}

/// What the time stepper does with a step whose contact problem (or
/// overlap correction) ended above the tolerance. Either way the step is
/// counted in the run's [`crate::Unsolved`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnUnsolved {
    /// Integrate the best answer found and go on (`"warn"`): the run's
    /// report counts the step, and the CLI warns.
    #[default]
    Warn,
    /// End the run before the step (`"fail"`): the state is the step's
    /// start, the status `failed`, the reason the error.
    Fail,
}

impl Default for StepSettings {
    fn default() -> Self {
        StepSettings {
            time_step: 0.002,
            friction: Friction::Exact,
            tolerance: 1e-10,
            penetration_tolerance: 1e-6,
            output_every: 0.01,
            max_steps: 10_000_000,
            finish_steps: SolverSettings::default().finish_steps,
            on_unsolved: OnUnsolved::Warn,
        }
    }
}

impl StepSettings {
    /// Checks the settings for a run of `duration`; the error names the
    /// setting.
    pub fn validate(&self, duration: f64) -> Result<(), String> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(duration) {
            return Err(format!("duration must be > 0, found {duration}"));
        }
        if !positive(self.time_step) {
            return Err(format!("time_step must be > 0, found {}", self.time_step));
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(format!("tolerance must be >= 0, found {}", self.tolerance));
        }
        if !(self.penetration_tolerance.is_finite() && self.penetration_tolerance >= 0.0) {
            return Err(format!(
                "penetration_tolerance must be >= 0, found {}",
                self.penetration_tolerance
            ));
        }
        if !positive(self.output_every) {
            return Err(format!(
                "output_every must be > 0, found {}",
                self.output_every
            ));
        }
        let steps = (duration / self.time_step).ceil();
        if steps > self.max_steps as f64 {
            return Err(format!(
                "time_step {} makes {steps} steps for {duration} s, above max_steps {}",
                self.time_step, self.max_steps
            ));
        }
        Ok(())
    }
}

/// Why a time stepper could not be made or could not step.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// A setting is out of range.
    #[error("{0}")]
    Settings(String),
    /// The model cannot be stepped so: a mass that is not diagonal, joints
    /// that cannot be held (redundant or inconsistent rows).
    #[error("{0}")]
    Unsupported(String),
    /// The model failed (a degenerate contact, forces that are not finite).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The contact solver refused its problem (not finite).
    #[error("the contact problem: {0}")]
    Contact(#[from] zwang_contact::ProblemError),
    /// The state stopped being finite (a force or a speed beyond `f64`).
    #[error("the state is not finite")]
    NotFinite,
    /// The step's contact problem (or its overlap correction) ended above
    /// the tolerance, and [`OnUnsolved::Fail`] asks for the run to stop
    /// (a comparison of friction laws always does).
    #[error("the contact problem ended at error {error:e}, above the tolerance {tolerance:e}")]
    Unsolved {
        /// Siconos' error measure of the best answer found.
        error: f64,
        /// The solver's tolerance.
        tolerance: f64,
    },
}

impl StepReport {
    /// Takes a further solve of the step (its overlap correction) into
    /// the step's error and status.
    pub(crate) fn account_for(&mut self, report: &zwang_contact::Report) {
        self.error = self.error.max(report.error);
        self.solved &= report.status == zwang_contact::Status::Solved;
    }

    /// The report of a step whose solve reported `report` (`None`: no
    /// contacts), `warm_started` of its contacts from the last step, its
    /// impulses `r` and contact velocities `u` (`d` per contact).
    pub(crate) fn of(
        report: Option<zwang_contact::Report>,
        warm_started: usize,
        r: &[f64],
        u: &[f64],
        d: usize,
    ) -> StepReport {
        // The normal velocity of contacts that push: zero under Coulomb's
        // law; `mu |u_T|` on a sliding contact of the convex relaxation.
        let separation = r
            .chunks_exact(d)
            .zip(u.chunks_exact(d))
            .filter(|(r, _)| r[0] > 0.0)
            .fold(0.0f64, |m, (_, u)| m.max(u[0]));
        StepReport {
            contacts: r.len() / d,
            warm_started,
            separation,
            error: report.map_or(0.0, |r| r.error),
            solved: report.is_none_or(|r| r.status == zwang_contact::Status::Solved),
            islands: report.map_or(0, |r| r.islands),
            iterations: report.map_or(0, |r| r.iterations),
            newton_steps: report.map_or(0, |r| r.newton_steps),
            dual: report.is_some_and(|r| r.dual),
            corrected: false,
        }
    }
}

/// A velocity-level time stepper of a planar model and its working
/// memory.
pub struct TimeStepper<'m> {
    model: &'m PlanarModel,
    settings: StepSettings,
    t: f64,
    q: Vec<f64>,
    v: Vec<f64>,
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
    collide: Collide,
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
    /// The last step's contact solve.
    last: StepReport,
    tally: Tally,
    /// How the start was moved, if it was.
    start_projection: Option<StartProjection>,
}

/// The most corrections that move an overlapping start apart (the rows
/// are linear, the bodies turn: a deep overlap takes a few).
pub(crate) const START_CORRECTIONS: usize = 10;

/// What a time stepper (in the plane or in space) counts over a run: the
/// run's outcome is read off it ([`Tally::outcome`]), the same for both.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    /// Steps taken, and the corrections among them.
    pub(crate) steps: usize,
    pub(crate) corrections: usize,
    pub(crate) stages: StageTimes,
    /// The largest drift of a joint and the deepest overlap of two shapes
    /// at the end of any step.
    pub(crate) max_drift: f64,
    pub(crate) max_penetration: f64,
    /// Steps whose contact problem ended above the tolerance.
    pub(crate) unsolved: crate::Unsolved,
}

impl Tally {
    /// An empty tally of a run whose contact problems are held to
    /// `tolerance`.
    pub(crate) fn new(tolerance: f64) -> Tally {
        let mut tally = Tally::default();
        tally.unsolved.tolerance = tolerance;
        tally
    }

    /// Counts the step that started at `t` and ended as `last` says; an
    /// unsolved one is an error under [`OnUnsolved::Fail`].
    pub(crate) fn judge(
        &mut self,
        t: f64,
        last: &StepReport,
        on_unsolved: OnUnsolved,
    ) -> Result<(), StepError> {
        self.unsolved.record(t, last.error, last.solved);
        if last.solved || on_unsolved == OnUnsolved::Warn {
            return Ok(());
        }
        Err(StepError::Unsolved {
            error: last.error,
            tolerance: self.unsolved.tolerance,
        })
    }

    /// The outcome of a run that stopped at `(t, q, v)` of energy
    /// `energy_final`, failed for `reason` if there is one: a step is one
    /// evaluation and one solve, a correction one more solve.
    pub(crate) fn outcome(
        &self,
        reason: Option<String>,
        (t, q, v): (f64, &[f64], &[f64]),
        modes: Vec<ContactState>,
        energy_initial: f64,
        energy_final: f64,
        wall_time: std::time::Duration,
    ) -> Outcome {
        let stats = Stats {
            evaluations: self.steps,
            solves: self.steps + self.corrections,
            rejected: 0,
            projections: self.corrections,
            solve_time: self.stages.solve,
            wall_time,
            stages: Some(self.stages),
        };
        Outcome {
            status: if reason.is_some() {
                Status::Failed
            } else {
                Status::Finished
            },
            reason,
            time: t,
            steps: self.steps,
            events: Vec::new(),
            q: q.to_vec(),
            v: v.to_vec(),
            modes,
            energy_initial,
            start_projection: None,
            energy_final,
            max_constraint_drift: self.max_drift,
            max_penetration: self.max_penetration,
            multipliers: None,
            unsolved: self.unsolved,
            stats,
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepReport {
    /// Contacts in the step's problem.
    pub contacts: usize,
    /// Those that started from the impulse of the same contact (by id) in
    /// the step before.
    pub warm_started: usize,
    /// The contact solver's error measure, and its status.
    pub error: f64,
    /// Whether the solver met its tolerance.
    pub solved: bool,
    /// Islands of the contact problem.
    pub islands: usize,
    /// Outer (proximal) iterations and Newton steps of the solve.
    pub iterations: usize,
    /// Newton steps (sparse factorizations), over the islands.
    pub newton_steps: usize,
    /// Whether the dual method (on `W`) gave the answer: scenes with
    /// joints, and the steps where the primal one (on `M` and `J`, the
    /// rest) stalled.
    pub dual: bool,
    /// Whether overlap was projected away after the step.
    pub corrected: bool,
    /// The largest normal velocity of a contact that pushes, m/s: zero
    /// (to the tolerance) under Coulomb's law, `mu |u_T|` on a sliding
    /// contact of the convex relaxation (seed 003's non-equivalence).
    pub separation: f64,
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
            collide: Collide::new(
                model.colliders(),
                |c| collide::bounding_radius(&c.shape),
                |c| Collision::new(c, &model.joined_pairs()),
            )?,
            model,
            t: 0.0,
            v_star: vec![0.0; n],
            q,
            v,
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
            last: StepReport::default(),
            tally: Tally::new(settings.tolerance),
            start_projection: None,
            settings,
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
        let (q, v) = (self.q.clone(), self.v.clone());
        let tol = self.settings.penetration_tolerance;
        let margin = self.margin(self.settings.time_step);
        self.collide
            .contacts(model, &self.q, margin, &mut self.contacts)?;
        let (mut overlap, mut off_contact) = (0.0f64, 0.0f64);
        for c in &self.contacts {
            if c.shapes {
                overlap = overlap.max(-c.gap);
            } else {
                off_contact = off_contact.max(-c.gap);
            }
        }
        self.tally.max_penetration = overlap;
        let mut off_joints = 0.0f64;
        for pass in 0..START_CORRECTIONS {
            if self.displacement(tol)? {
                for (x, d) in self.q.iter_mut().zip(self.correct.dq()) {
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
                        &mut self.q,
                        &self.v,
                        &self.modes,
                        GAP_SLOP * tol,
                    )
                    .map_err(|e| StepError::Unsupported(e.to_string()))?;
                if pass == 0 {
                    off_joints = drift;
                }
            }
            self.collide
                .contacts(model, &self.q, margin, &mut self.contacts)?;
            if self.joints.is_some() {
                model.update_instant(0.0, &self.q, &self.v, &self.modes, &mut self.instant)?;
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
        self.start_projection = Some(StartProjection {
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
            position_change: change(&q, &self.q),
            velocity_change: change(&v, &self.v),
            energy_given: model.energy(0.0, &q, &v),
        });
        Ok(())
    }

    /// How the start was moved apart or onto its joints, if it was.
    pub fn start_projection(&self) -> Option<&StartProjection> {
        self.start_projection.as_ref()
    }

    /// Time, positions and velocities now.
    pub fn state(&self) -> (f64, &[f64], &[f64]) {
        (self.t, &self.q, &self.v)
    }

    /// The distance the bodies may close within a step of `h` at the
    /// current velocities (twice the fastest point's travel, and the free
    /// acceleration's): contacts farther apart stay out of the problem.
    fn margin(&self, h: f64) -> f64 {
        // A body's linear speed and its turning at its bounding radius.
        let speed = self.bodies.iter().fold(0.0f64, |m, (dofs, r)| {
            let v = &self.v[dofs.clone()];
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

    /// One step of `h` (the last one of a run may be shorter).
    pub fn step(&mut self, h: f64) -> Result<StepReport, StepError> {
        let model = self.model;
        // 1. collide (unless the last step's end already did, at these
        //    positions).
        let clock = Clock::now();
        if !self.fresh {
            self.collide
                .contacts(model, &self.q, self.margin(h), &mut self.contacts)?;
        }
        self.tally.stages.collide += clock.elapsed();
        // 2. assemble.
        let clock = Clock::now();
        model.update_instant(self.t, &self.q, &self.v, &self.modes, &mut self.instant)?;
        self.fresh = false;
        for ((vs, v), (f, mi)) in self
            .v_star
            .iter_mut()
            .zip(&self.v)
            .zip(self.instant.force().iter().zip(&self.minv))
        {
            *vs = v + h * mi * f;
        }
        if let Some(joints) = self.joints.as_mut() {
            joints.refresh(&self.instant)?;
            model.velocity_targets(self.t, &self.q, &self.v, &self.modes, &mut self.targets);
            joints.project(&self.minv, &self.targets, &mut self.v_star)?;
        }
        let slop = GAP_SLOP * self.settings.penetration_tolerance;
        // Without joints `M` stays diagonal: the primal solver's problem.
        let primal = self.joints.is_none();
        if primal {
            self.assemble
                .velocities(&self.contacts, &self.v, &self.v_star, &self.minv, h, slop);
        } else {
            self.local_problem(h, slop)?;
        }
        self.tally.stages.assemble += clock.elapsed();
        // 3. solve, from the last impulses of the same contacts.
        let clock = Clock::now();
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
                    .map_err(|e| match e {
                        zwang_contact::GlobalError::Problem(p) => StepError::Contact(p),
                        other => StepError::Unsupported(other.to_string()),
                    })?,
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
        self.tally.stages.solve += clock.elapsed();
        self.last = StepReport::of(report, warm_started, &self.r, &self.u, 2);
        let start = self.t;
        if !self.last.solved && self.settings.on_unsolved == OnUnsolved::Fail {
            // Not integrated: the state stays the step's start.
            self.tally.judge(start, &self.last, OnUnsolved::Fail)?;
        }
        // 4. integrate.
        let clock = Clock::now();
        self.v.copy_from_slice(&self.v_star);
        match &self.joints {
            Some(joints) => joints.add_impulses(&self.r, &mut self.v),
            None => integrate::add_impulses(&self.contacts, &self.r, &self.minv, &mut self.v),
        }
        integrate::positions(&mut self.q, &self.v, h);
        self.t += h;
        // Collision detection takes only finite poses.
        if !self.q.iter().chain(&self.v).all(|x| x.is_finite()) {
            return Err(StepError::NotFinite);
        }
        self.tally.stages.integrate += clock.elapsed();
        self.end_of_step(h)?;
        self.tally.steps += 1;
        self.tally
            .judge(start, &self.last, self.settings.on_unsolved)?;
        Ok(self.last)
    }

    /// The contacts at the new positions (kept for the next step), and
    /// 5. correct: overlap beyond the tolerance projected away.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError> {
        let model = self.model;
        let clock = Clock::now();
        let margin = self.margin(h);
        self.collide
            .contacts(model, &self.q, margin, &mut self.contacts)?;
        self.tally.stages.collide += clock.elapsed();
        let clock = Clock::now();
        if self.joints.is_some() {
            model.update_instant(self.t, &self.q, &self.v, &self.modes, &mut self.instant)?;
        }
        let tol = self.settings.penetration_tolerance;
        let corrected = self.displacement(tol)?;
        if corrected {
            self.tally.corrections += 1;
            self.last.corrected = true;
            if let Some(report) = self.correct.report() {
                self.last.account_for(&report);
            }
            let before = model.energy(self.t, &self.q, &self.v);
            let dq = self.correct.dq();
            for (x, d) in self.q.iter_mut().zip(dq) {
                *x += d;
            }
            let raised = model.energy(self.t, &self.q, &self.v) - before;
            if raised > 0.0 {
                self.pay_for(raised);
            }
        }
        // The joints' drift, projected away (Gauss's metric).
        let mut moved = false;
        if let Some(p) = self.projector.as_mut() {
            let tol = GAP_SLOP * self.settings.penetration_tolerance;
            let drift = p
                .positions(model, self.t, &mut self.q, &self.v, &self.modes, tol)
                .map_err(|e| StepError::Unsupported(e.to_string()))?;
            self.tally.max_drift = self.tally.max_drift.max(drift);
            moved = drift > tol;
        }
        if corrected || moved {
            self.collide
                .contacts(model, &self.q, margin, &mut self.contacts)?;
            if self.joints.is_some() {
                model.update_instant(self.t, &self.q, &self.v, &self.modes, &mut self.instant)?;
            }
        }
        self.fresh = true;
        for c in &self.contacts {
            let overlap = (-c.gap).max(0.0);
            if c.shapes {
                self.tally.max_penetration = self.tally.max_penetration.max(overlap);
            } else {
                self.tally.max_drift = self.tally.max_drift.max(overlap);
            }
        }
        self.tally.stages.correct += clock.elapsed();
        Ok(())
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
            .free(&self.contacts, &self.v, &self.v_star, h, slop);
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
        let dq = self.correct.dq();
        let moved = || {
            self.bodies
                .iter()
                .map(|(dofs, _)| dofs.clone())
                .filter(|dofs| dq[dofs.clone()].iter().any(|&d| d != 0.0))
        };
        let kinetic: f64 = moved()
            .flatten()
            .map(|c| 0.5 * self.v[c] * self.v[c] / self.minv[c])
            .sum();
        let s = if kinetic > energy {
            (1.0 - energy / kinetic).sqrt()
        } else {
            0.0
        };
        for (dofs, _) in &self.bodies {
            if dq[dofs.clone()].iter().any(|&d| d != 0.0) {
                self.v[dofs.clone()].iter_mut().for_each(|x| *x *= s);
            }
        }
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

/// Runs `model` from its initial state to `duration` with the time
/// stepper: steps of `settings.time_step` (the last one shorter to end at
/// `duration`), samples every `output_every` on the motion within the
/// steps, no events. A stepper that cannot start, or a step that fails,
/// ends the run as [`Status::Failed`] with the reason.
pub fn simulate_steps(
    model: &PlanarModel,
    duration: f64,
    settings: &StepSettings,
    observer: &mut dyn Observer,
) -> Outcome {
    let wall = Clock::now();
    let failed = |reason: String, q: Vec<f64>, v: Vec<f64>, e: f64| {
        Outcome::unstarted(reason, q, v, vec![ContactState::OPEN; model.contacts()], e)
    };
    let (mut q0, mut v0) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    model.initial_state(&mut q0, &mut v0);
    let e0 = model.energy(0.0, &q0, &v0);
    if let Err(reason) = settings.validate(duration) {
        return failed(reason, q0, v0, e0);
    }
    let mut stepper = match TimeStepper::new(model, settings.clone()) {
        Ok(s) => s,
        Err(e) => return failed(e.to_string(), q0, v0, e0),
    };
    // The start as the stepper holds it (moved apart, onto its joints).
    q0.copy_from_slice(&stepper.q);
    v0.copy_from_slice(&stepper.v);
    let e0 = model.energy(0.0, &q0, &v0);
    let h = settings.time_step;
    let wants = observer.wants_samples();
    let mut samples = Vec::new();
    let mut q_at = q0.clone();
    if wants {
        stepper.contact_samples(h, &mut samples);
        observer.sample(0.0, &q0, &v0, &samples);
    }
    let mut next_sample = 1usize;
    let mut reason = None;
    let mut q_before = q0.clone();
    while stepper.t < duration {
        // The last step ends on `duration` (no sliver of a step after it).
        let left = duration - stepper.t;
        let step = if left < 1.5 * h { left } else { h };
        q_before.copy_from_slice(&stepper.q);
        let t_before = stepper.t;
        if let Err(e) = stepper.step(step) {
            reason = Some(format!("at t = {t_before}: {e}"));
            break;
        }
        if wants {
            // Samples within the step lie on `q + s v+`.
            loop {
                let ts = next_sample as f64 * settings.output_every;
                if ts > stepper.t || ts > duration {
                    break;
                }
                let s = ts - t_before;
                for ((x, q), v) in q_at.iter_mut().zip(&q_before).zip(&stepper.v) {
                    *x = q + s * v;
                }
                stepper.contact_samples(step, &mut samples);
                observer.sample(ts, &q_at, &stepper.v, &samples);
                next_sample += 1;
            }
        }
        observer.progress(stepper.t, duration);
    }
    if wants && reason.is_none() {
        let last = (next_sample - 1) as f64 * settings.output_every;
        if last < stepper.t {
            stepper.contact_samples(h, &mut samples);
            observer.sample(stepper.t, &stepper.q, &stepper.v, &samples);
        }
    }
    let mut modes = vec![ContactState::OPEN; model.contacts()];
    stepper.contact_samples(h, &mut samples);
    for (m, s) in modes.iter_mut().zip(&samples) {
        m.mode = s.mode;
    }
    let wall_time = wall.elapsed();
    let (t, q, v) = stepper.state();
    let energy_final = model.energy(t, q, v);
    let mut outcome = stepper
        .tally
        .outcome(reason, (t, q, v), modes, e0, energy_final, wall_time);
    outcome.start_projection = stepper.start_projection.take();
    outcome
}
