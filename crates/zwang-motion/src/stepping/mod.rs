//! What every velocity-level time stepper shares, written once: the
//! settings and their checks, the errors, a step's report, the run's totals,
//! the gap term and the energy paid for a correction, and the run loop
//! (`run.rs`) over the [`Stages`] interface.
//!
//! A step is one pipeline of five stages (collide, assemble, solve,
//! integrate, correct; `stages.rs`), and a run one loop of steps
//! (`run.rs`); a model gives only what its stages do:
//!
//! - [`plane`]: planar bodies ([`crate::TimeStepper`]), joints held
//!   through the dual method on `W`;
//! - [`space`]: rigid bodies in space ([`crate::SpaceStepper`]), joints
//!   held in their null space.
//!
//! - [`tree`]: kinematic trees in joint coordinates
//!   ([`crate::TreeStepper`]), MuJoCo's models.
//!
//! All implement [`Stages`], the interface of the pipeline and of the run
//! loop, and hold the state every model has in a [`StepCore`]; the
//! sampling within steps, the failure paths and the outcome are this
//! module's, the same for both (and for the next model that steps at
//! velocity level).

pub mod plane;
mod run;
pub mod space;
mod stages;
pub mod tree;

pub(crate) use run::{run, run_keeping};
pub use stages::{step, Stages};

use crate::simulate::{Outcome, StageTimes, StartProjection, Stats, Status};
use zwang_contact::{Friction, SolverSettings};
use zwang_model::{ContactState, ModelError};

pub use zwang_core::OnUnsolved;

/// Gaps below this fraction of [`StepSettings::penetration_tolerance`]
/// count as touching in the gap term (see `assemble`).
pub(crate) const GAP_SLOP: f64 = 1e-3;

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
    /// The kinematic tree refused a state (a length, a number that is not
    /// finite, a quaternion of zero length) or its mass matrix.
    #[error("the tree: {0}")]
    Tree(#[from] zwang_tree::TreeError),
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

/// What a velocity-level stepper holds whatever its model: the state, the
/// settings, what the run counted, what the last step did and how the
/// start was moved. The model's stages write it; the pipeline
/// ([`step`]) and the run loop read it.
#[derive(Debug, Clone)]
pub struct StepCore {
    /// The time now, s.
    pub t: f64,
    /// The positions now.
    pub q: Vec<f64>,
    /// The velocities now.
    pub v: Vec<f64>,
    /// The stepper's settings.
    pub settings: StepSettings,
    /// What the run counted so far.
    pub totals: StepTotals,
    /// What the last step did.
    pub last: StepReport,
    /// How the start was moved apart or onto its joints, if it was.
    pub start_projection: Option<StartProjection>,
}

impl StepCore {
    /// At `t = 0` in the state `(q, v)`, nothing counted yet.
    pub fn new(q: Vec<f64>, v: Vec<f64>, settings: StepSettings) -> StepCore {
        StepCore {
            t: 0.0,
            q,
            v,
            totals: StepTotals::new(settings.tolerance),
            settings,
            last: StepReport::default(),
            start_projection: None,
        }
    }
}

/// The most corrections that move an overlapping start apart (the rows
/// are linear, the bodies turn: a deep overlap takes a few).
pub(crate) const START_CORRECTIONS: usize = 10;

/// What a velocity-level time stepper counts over a run: the run's
/// outcome is read off it ([`StepTotals::outcome`]), the same for every
/// model.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepTotals {
    /// Steps taken.
    pub steps: usize,
    /// Steps whose end projected overlap away.
    pub corrections: usize,
    /// The time spent in each stage.
    pub stages: StageTimes,
    /// The largest drift of a joint at the end of any step.
    pub max_drift: f64,
    /// The deepest overlap of two shapes at the start or at the end of any
    /// step.
    pub max_penetration: f64,
    /// Steps whose contact problem ended above the tolerance.
    pub unsolved: crate::Unsolved,
}

impl StepTotals {
    /// An empty totals of a run whose contact problems are held to
    /// `tolerance`.
    pub fn new(tolerance: f64) -> StepTotals {
        let mut totals = StepTotals::default();
        totals.unsolved.tolerance = tolerance;
        totals
    }

    /// Counts the step that started at `t` and ended as `last` says; an
    /// unsolved one is an error under [`OnUnsolved::Fail`].
    pub fn judge(
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
    pub fn outcome(
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

/// The free term of a contact's normal velocity in a step of `h`, from
/// its normal velocity `un_before` at the step's start: Newton's law on
/// an impact within the step (the contact leaves at `restitution` times
/// the speed it came in with, from where the step starts: the position is
/// off by less than a step's travel, the speed is right); otherwise the
/// gap a contact still apart may close, exactly, by the step's end.
///
/// Gaps below `slop` count as touching: the gap term turns a position
/// into a velocity by `1 / h`, and would feed the round-off a solve
/// leaves in the velocities (which moves the positions by a little each
/// step) back into every next problem, enlarged.
pub(crate) fn gap_term(un_before: f64, gap: f64, restitution: f64, h: f64, slop: f64) -> f64 {
    let closing = un_before < 0.0 && gap + h * un_before <= 0.0;
    if closing && restitution > 0.0 {
        restitution * un_before
    } else {
        (gap - slop).max(0.0) / h
    }
}

/// Takes `energy` from the kinetic energy of the bodies (their velocity
/// ranges in `bodies`) that the correction `dq` moved, all of it when
/// they have less: a correction's potential energy is paid for, never
/// made. `kinetic(c, v_c)` is coordinate `c`'s share at speed `v_c`.
pub(crate) fn pay_for<B>(
    energy: f64,
    bodies: B,
    dq: &[f64],
    v: &mut [f64],
    kinetic: impl Fn(usize, f64) -> f64,
) where
    B: Iterator<Item = std::ops::Range<usize>> + Clone,
{
    let moved = bodies.filter(|dofs| dq[dofs.clone()].iter().any(|&d| d != 0.0));
    let held: f64 = moved.clone().flatten().map(|c| kinetic(c, v[c])).sum();
    let s = if held > energy {
        (1.0 - energy / held).sqrt()
    } else {
        0.0
    };
    for dofs in moved {
        v[dofs].iter_mut().for_each(|x| *x *= s);
    }
}

impl StepError {
    /// The primal contact solver's refusal, as a step's error.
    pub(crate) fn from_global(e: zwang_contact::GlobalError) -> StepError {
        match e {
            zwang_contact::GlobalError::Problem(p) => StepError::Contact(p),
            other => StepError::Unsupported(other.to_string()),
        }
    }
}
