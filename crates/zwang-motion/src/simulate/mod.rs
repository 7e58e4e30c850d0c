//! The event-driven stepper.
//!
//! Between events the contact modes are fixed and the motion is smooth:
//! the instant solution is integrated by an embedded Runge-Kutta pair with
//! dense output ([`zwang_ode`], DOP853 by default). After every accepted
//! step each contact's switching function is compared at both ends:
//!
//! | contact | function | event when it crosses zero downwards |
//! |---|---|---|
//! | open | gap `g(q)` | `impact` (or `rest`) |
//! | closed | `lambda_n - w_n` (force or separating acceleration) | `lift_off` |
//! | sliding, with friction | `s v_t` (slip sign times tangential velocity) | `stick`, or `slip` the other way |
//! | sticking | `mu lambda_n - abs(lambda_t) - abs(w_t)` | `slip` |
//!
//! The earliest crossing is located on the dense output (Brent's method, to
//! `event_tolerance`), the step is redone to that time, and the event is
//! handled: an impact solves the contact problem of every touching contact
//! (Newton's restitution, Coulomb's friction: `crate::impact`), then the
//! modes are made consistent by solving the contact
//! problem (a contact that must open opens, a sticking one that must slip
//! slips), and the integration restarts. Positions and velocities are
//! projected back onto the joints and closed contacts (Gauss's metric)
//! whenever they drift beyond `drift_tolerance`, a closed contact held on
//! its surface like a joint. A contact problem without an answer, or with
//! several, stops the run: `painleve`, at the state whose problem failed.
//!
//! Noise does not make events: a bounce slower than `rest_speed` (or too
//! small to rise above the surface) is a `rest`, a slip that slow at a
//! closing contact a stick, a contact that lifts off leaves with its normal
//! velocity held at zero, and round-off accelerations and speeds at rest
//! are zero, so a long rest costs a few steps. A run whose pace would
//! overrun `max_steps` fails early, saying so.

// The stages of a run, in the order its data flows: the settings in, the
// run's state and loop, a step and the switching functions that find its
// events, the events handled (impacts, mode changes, Painleve stops), the
// drift projected away, and what observers and the outcome get.
pub(crate) mod drift;
mod impact;
mod modes;
mod outcome;
mod painleve;
mod run;
mod samples;
mod settings;
mod step;
mod switching;

use crate::dynamics::DynamicsError;
use std::time::{Duration, Instant as Clock};
use zwang_model::Mechanism;

pub use outcome::{
    ContactSample, Event, EventKind, Jump, NoObserver, Observer, Outcome, StageTimes,
    StartProjection, Stats, Status, Unsolved,
};
pub(crate) use run::Run;
pub use settings::{Settings, ATOL_MAX, RTOL_RANGE};

/// Runs `model` from its initial state to `duration`.
pub fn simulate<M: Mechanism>(
    model: &M,
    duration: f64,
    settings: &Settings,
    observer: &mut dyn Observer,
) -> Outcome {
    // The method's own dense output is needed to locate events and to
    // sample; without contacts and samples a cubic Hermite interpolant
    // does, and DOP853 saves three evaluations a step.
    let mut settings = *settings;
    settings.ode.dense_output &= model.contacts() > 0 || observer.wants_samples();
    if let Err(reason) = settings.validate() {
        // Nothing runs: the initial state is the answer.
        settings = Settings::default();
        let mut run = Run::new(model, duration, &settings);
        run.stats.wall_time = Duration::ZERO;
        return finish(
            model,
            run,
            Err(Stop::Failed(format!("settings: {reason}"))),
            Duration::ZERO,
        );
    }
    let mut run = Run::new(model, duration, &settings);
    let clock = Clock::now();
    let result = run.go(observer);
    finish(model, run, result, clock.elapsed())
}

/// The outcome of a run that ended with `result`.
fn finish<M: Mechanism>(
    model: &M,
    run: Run<'_, M>,
    result: Result<(), Stop>,
    wall_time: Duration,
) -> Outcome {
    let (status, reason) = Stop::status(result);
    let (q, v) = run.y.split_at(run.nq);
    let energy_final = model.energy(run.t, q, v);
    let mut stats = run.counts();
    stats.wall_time = wall_time;
    Outcome {
        status,
        reason,
        time: run.t,
        steps: run.steps,
        events: run.events,
        q: q.to_vec(),
        v: v.to_vec(),
        modes: run.modes,
        energy_initial: run.energy_initial,
        start_projection: run.start_projection,
        energy_final,
        max_constraint_drift: run.max_drift,
        max_penetration: 0.0,
        multipliers: None,
        unsolved: Default::default(),
        stats,
    }
}

pub(crate) enum Stop {
    Painleve,
    Failed(String),
}

impl Stop {
    /// The outcome's status and reason of a run that ended with `result`.
    pub(crate) fn status(result: Result<(), Stop>) -> (Status, Option<String>) {
        match result {
            Ok(()) => (Status::Finished, None),
            Err(Stop::Painleve) => (Status::Painleve, None),
            Err(Stop::Failed(reason)) => (Status::Failed, Some(reason)),
        }
    }
}

impl From<DynamicsError> for Stop {
    fn from(e: DynamicsError) -> Self {
        match e {
            DynamicsError::Painleve { .. } => Stop::Painleve,
            DynamicsError::Failed(r) => Stop::Failed(r),
        }
    }
}
