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
//! handled: an impact solves Gauss's principle in velocities (the same QP
//! machinery), then the modes are made consistent by solving the contact
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

use crate::dynamics::{ContactValues, Dynamics, DynamicsError};
use crate::projection::Projector;
use std::time::{Duration, Instant as Clock};
use zwang_contact::Mode;
use zwang_model::{ContactState, Mechanism};
use zwang_ode::{find_root, Integrator, StepError};

/// The relative tolerances a run accepts.
pub const RTOL_RANGE: (f64, f64) = (1e-14, 1e-2);
/// The largest absolute tolerance a run accepts.
pub const ATOL_MAX: f64 = 1e-2;

/// Settings of the stepper: a plain struct with documented defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The integrator and its tolerances (default: DOP853, relative
    /// `1e-9`, absolute `1e-12`; the relative one within [`RTOL_RANGE`],
    /// the absolute one `> 0` and at most [`ATOL_MAX`]).
    pub ode: zwang_ode::Settings,
    /// Sampling of the trajectory for observers, s (`0`: duration / 1000).
    pub output_every: f64,
    /// Event times are located to this, s. Default `1e-12`.
    pub event_tolerance: f64,
    /// A contact whose gap is below this is touching, m. Default `1e-9`.
    pub touch_tolerance: f64,
    /// Impacts slower than this end in `rest` (the contact closes for
    /// good, `e = 0`): the cut-off of Zeno's accumulating bounces, m/s.
    /// Default `1e-6`.
    pub rest_speed: f64,
    /// Positions are projected back onto the joints and closed contacts
    /// when they are off by more than this, m. Default `1e-12`.
    pub drift_tolerance: f64,
    /// Accepted steps before the run fails. Default `10_000_000`.
    pub max_steps: usize,
    /// Events before the run fails (accumulating events that are not
    /// impacts). Default `1_000_000`.
    pub max_events: usize,
}

impl Settings {
    /// Why these settings cannot be used, if they cannot (a run with them
    /// ends `failed` with this reason, it does not panic).
    pub fn validate(&self) -> Result<(), String> {
        self.ode.validate()?;
        // Beyond these the events and projections, located and judged at
        // the integrator's accuracy, mean nothing: a relative tolerance of
        // 1e300 "finishes" a rocking block with 200 times its energy, one
        // of 1e-300 asks for steps below the time's resolution.
        let (rtol, atol) = (self.ode.rtol, self.ode.atol);
        if !(RTOL_RANGE.0..=RTOL_RANGE.1).contains(&rtol) {
            return Err(format!(
                "the relative tolerance must be within [{:e}, {:e}], found {rtol:e}",
                RTOL_RANGE.0, RTOL_RANGE.1
            ));
        }
        if !(atol > 0.0 && atol <= ATOL_MAX) {
            return Err(format!(
                "the absolute tolerance must be > 0 and <= {ATOL_MAX:e}, found {atol:e}"
            ));
        }
        let positive = [("event_tolerance", self.event_tolerance)];
        let non_negative = [
            ("touch_tolerance", self.touch_tolerance),
            ("rest_speed", self.rest_speed),
            ("drift_tolerance", self.drift_tolerance),
        ];
        for (name, x) in positive {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{name} must be finite and > 0, found {x}"));
            }
        }
        for (name, x) in non_negative {
            if !(x.is_finite() && x >= 0.0) {
                return Err(format!("{name} must be finite and >= 0, found {x}"));
            }
        }
        Ok(())
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ode: zwang_ode::Settings::default(),
            output_every: 0.0,
            event_tolerance: 1e-12,
            touch_tolerance: 1e-9,
            rest_speed: 1e-6,
            drift_tolerance: 1e-12,
            max_steps: 10_000_000,
            max_events: 1_000_000,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Reached the duration.
    Finished,
    /// A frictional contact problem had no answer or several; the last
    /// event says which.
    Painleve,
    /// The solver gave no answer; see the reason.
    Failed,
}

impl Status {
    /// `finished`, `painleve`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Finished => "finished",
            Status::Painleve => "painleve",
            Status::Failed => "failed",
        }
    }
}

/// What happened at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A gap closed with a closing speed; velocities jumped.
    Impact,
    /// A closed contact opened: its normal force reached zero.
    LiftOff,
    /// A sliding contact's tangential velocity reached zero and the cone
    /// holds it.
    Stick,
    /// A sticking contact's force reached the cone (or a sliding contact
    /// stopped and slides back the other way).
    Slip,
    /// Impacts accumulate (slower than `rest_speed`): the contact closes
    /// for good.
    Rest,
    /// No rigid answer: the contact problem has none.
    PainleveInconsistent,
    /// No unique rigid answer: the contact problem has several.
    PainleveIndeterminate,
}

impl EventKind {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Impact => "impact",
            EventKind::LiftOff => "lift_off",
            EventKind::Stick => "stick",
            EventKind::Slip => "slip",
            EventKind::Rest => "rest",
            EventKind::PainleveInconsistent => "painleve_inconsistent",
            EventKind::PainleveIndeterminate => "painleve_indeterminate",
        }
    }
}

/// An event, with the state after it (after the jump for impacts).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// s.
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
    /// Which contact.
    pub contact: usize,
    /// Positions after the event.
    pub q: Vec<f64>,
    /// Velocities after the event.
    pub v: Vec<f64>,
}

/// A contact in a sample: its forces and mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSample {
    /// Normal force, N (0 when open).
    pub normal_force: f64,
    /// Friction force along the contact's tangent, N.
    pub friction_force: f64,
    /// `open`, `slide` or `stick`.
    pub mode: Mode,
}

/// Receives the trajectory as it is computed. Every method has an empty
/// default.
pub trait Observer {
    /// Whether samples need contact forces (each costs a solve).
    fn wants_samples(&self) -> bool {
        false
    }
    /// A sample of the trajectory (every `output_every`, and the start and
    /// the end).
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        let _ = (t, q, v, contacts);
    }
    /// An event, with the contacts after it.
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        let _ = (event, contacts);
    }
    /// Progress, after every accepted step.
    fn progress(&mut self, t: f64, duration: f64) {
        let _ = (t, duration);
    }
}

/// An observer that ignores everything.
pub struct NoObserver;
impl Observer for NoObserver {}

/// Counts of a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stats {
    /// Right-hand-side evaluations of the integrator.
    pub evaluations: usize,
    /// Instant solves (evaluations, event location, samples).
    pub solves: usize,
    /// Rejected steps.
    pub rejected: usize,
    /// Position projections done.
    pub projections: usize,
    /// Time spent in instant solves.
    pub solve_time: Duration,
    /// Time of the whole run.
    pub wall_time: Duration,
    /// The time stepper's stages (`None` for the event-driven method).
    pub stages: Option<StageTimes>,
}

/// Time spent in each stage of the velocity-level time stepper.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StageTimes {
    /// Collision detection (and the `[[contact]]` points' gaps).
    pub collide: Duration,
    /// Free velocities, contact rows, the Delassus operator and its
    /// right-hand side.
    pub assemble: Duration,
    /// The contact problem, per island.
    pub solve: Duration,
    /// New velocities and positions.
    pub integrate: Duration,
    /// Penetration left after the step, projected away.
    pub correct: Duration,
}

/// How a start that was not on its joints and closed contacts was moved
/// onto them (in Gauss's metric) before the run.
#[derive(Debug, Clone, PartialEq)]
pub struct StartProjection {
    /// The largest position-level violation of the start as given, m.
    pub violation: f64,
    /// The joint or contact it was at.
    pub at: String,
    /// The largest velocity-level violation of the start as given
    /// (`|J v - c|`), m/s.
    pub speed_violation: f64,
    /// The joint or contact it was at.
    pub speed_at: String,
    /// The largest change of a position coordinate.
    pub position_change: f64,
    /// The largest change of a velocity coordinate.
    pub velocity_change: f64,
    /// The energy of the start as given (the run's `energy_initial` is the
    /// projected start's).
    pub energy_given: f64,
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// Why it failed.
    pub reason: Option<String>,
    /// Time reached, s.
    pub time: f64,
    /// Accepted steps.
    pub steps: usize,
    /// Events in time order.
    pub events: Vec<Event>,
    /// Final positions.
    pub q: Vec<f64>,
    /// Final velocities.
    pub v: Vec<f64>,
    /// The final contact modes.
    pub modes: Vec<ContactState>,
    /// Energy at the start the run used (after the start's projection).
    pub energy_initial: f64,
    /// How the start was moved onto the joints and closed contacts, when
    /// it was not on them.
    pub start_projection: Option<StartProjection>,
    /// Energy at the end.
    pub energy_final: f64,
    /// Largest position-level violation of a joint or closed contact seen
    /// at the end of a step (before its projection), m. Samples are
    /// projected too, and do not count: the figure is the same whoever
    /// watches the run.
    pub max_constraint_drift: f64,
    /// The deepest overlap of two shapes in any state the run stepped
    /// through (the end of each step, after its correction), m; 0 without
    /// shapes.
    pub max_penetration: f64,
    /// Counts and times.
    pub stats: Stats,
}

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

/// Steps between two looks at the pace of a run.
const PACE_WINDOW: usize = 1000;

/// A switching function's value that is not defined for the contact's
/// mode.
const NONE: f64 = f64::NAN;

pub(crate) struct Run<'m, M: Mechanism> {
    model: &'m M,
    settings: Settings,
    duration: f64,
    pub(crate) nq: usize,
    pub(crate) t: f64,
    pub(crate) y: Vec<f64>,
    pub(crate) modes: Vec<ContactState>,
    dynamics: Option<Dynamics<'m, M>>,
    projector: Option<Projector>,
    integrator: Integrator,
    events: Vec<Event>,
    pub(crate) steps: usize,
    stats: Stats,
    pub(crate) energy_initial: f64,
    pub(crate) start_projection: Option<StartProjection>,
    pub(crate) max_drift: f64,
    output_every: f64,
    next_sample: usize,
    /// Switching functions at the start of the current step: per contact
    /// `[normal, tangential]` (NaN where not defined).
    phi: Vec<[f64; 2]>,
    /// The same at the end of the step being looked at.
    phi_end: Vec<[f64; 2]>,
    scratch: Vec<f64>,
    /// The crossings of an event the last step was cut at, not yet
    /// handled: handling waits for the next `advance`, so that until then
    /// the step's dense output still covers the event time (other islands
    /// read their state there, [`crate::islands`]).
    pending: Option<Vec<(usize, usize)>>,
    /// The pace of the last window of steps, in two halves.
    window: [(usize, f64); 2],
}

impl<'m, M: Mechanism> Run<'m, M> {
    pub(crate) fn new(model: &'m M, duration: f64, settings: &Settings) -> Self {
        let (nq, nv) = (model.nq(), model.nv());
        let mut y = vec![0.0; nq + nv];
        {
            let (q, v) = y.split_at_mut(nq);
            model.initial_state(q, v);
        }
        let energy_initial = model.energy(0.0, &y[..nq], &y[nq..]);
        let output_every = if settings.output_every > 0.0 {
            settings.output_every
        } else {
            duration / 1000.0
        };
        Run {
            model,
            settings: *settings,
            duration,
            nq,
            t: 0.0,
            scratch: vec![0.0; y.len()],
            y,
            modes: vec![ContactState::OPEN; model.contacts()],
            dynamics: None,
            projector: None,
            integrator: Integrator::new(nq + nv, settings.ode),
            events: Vec::new(),
            steps: 0,
            stats: Stats::default(),
            energy_initial,
            start_projection: None,
            max_drift: 0.0,
            output_every,
            next_sample: 0,
            phi: vec![[NONE; 2]; model.contacts()],
            phi_end: vec![[NONE; 2]; model.contacts()],
            pending: None,
            window: [(0, 0.0); 2],
        }
    }

    fn state(&self) -> (&[f64], &[f64]) {
        self.y.split_at(self.nq)
    }

    /// The run's counts so far (without its wall time).
    pub(crate) fn counts(&self) -> Stats {
        let mut stats = self.stats;
        if let Some(d) = &self.dynamics {
            stats.solves += d.solves;
            stats.solve_time += d.solve_time;
        }
        stats.evaluations = self.integrator.stats().evaluations;
        stats.rejected = self.integrator.stats().rejected;
        stats
    }

    fn go(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        self.begin(observer)?;
        while self.running() {
            self.tick(observer)?;
            observer.progress(self.t, self.duration);
        }
        Ok(())
    }

    /// Checks the run's inputs and starts it.
    pub(crate) fn begin(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        if !(self.duration.is_finite() && self.duration > 0.0) {
            return Err(Stop::Failed(format!(
                "duration must be > 0, found {}",
                self.duration
            )));
        }
        if !self.y.iter().all(|x| x.is_finite()) {
            return Err(Stop::Failed("the initial state is not finite".into()));
        }
        self.start(observer)?;
        self.window = [(0, self.t); 2];
        Ok(())
    }

    /// The duration it runs to.
    pub(crate) fn duration(&self) -> f64 {
        self.duration
    }

    /// Whether the run has more to do: time left, or an event to handle.
    pub(crate) fn running(&self) -> bool {
        self.t < self.duration || self.pending.is_some()
    }

    /// One step (or the handling of the event it was cut at), with the
    /// count of steps and the pace checked.
    pub(crate) fn tick(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        if self.steps >= self.settings.max_steps {
            return Err(Stop::Failed(format!(
                "{} steps (max_steps) without reaching the end, at t = {}",
                self.steps, self.t
            )));
        }
        self.advance(observer)?;
        let window = self.window;
        if self.steps >= window[1].0 + PACE_WINDOW / 2 {
            if window[0].0 > 0 {
                self.check_pace(window, observer)?;
            }
            self.window = [window[1], (self.steps, self.t)];
        }
        Ok(())
    }

    /// Fails early, with the reason, a run whose pace over the last
    /// window of steps (its halves starting at `window`) would need more
    /// than `max_steps` to reach the end: a scene whose time scale is far
    /// below its duration (a stiff spring, a huge gravity) would otherwise
    /// grind for minutes before failing on the count. Steps that keep
    /// shrinking are let be: they close in on a point where the motion
    /// cannot go on (a Painleve point), which the step control finds.
    fn check_pace(
        &mut self,
        window: [(usize, f64); 2],
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let [(s0, t0), (s1, t1)] = window;
        let first = (t1 - t0) / (s1 - s0) as f64;
        let h = (self.t - t1) / (self.steps - s1) as f64;
        if h <= self.settings.event_tolerance {
            if self.sliding_with_friction() {
                return self.collapse(h, observer);
            }
            return Err(Stop::Failed(format!(
                "no progress: steps of {h:.1e} s at t = {}, below the time events are located to",
                self.t
            )));
        }
        if h < 0.5 * first {
            return Ok(());
        }
        let needed = self.steps as f64 + (self.duration - self.t) / h;
        if needed > self.settings.max_steps as f64 {
            return Err(Stop::Failed(format!(
                "steps of {h:.1e} s at t = {} would need about {needed:.1e} to reach {} s, \
                 more than max_steps = {} (raise it, or shorten the duration)",
                self.t, self.duration, self.settings.max_steps
            )));
        }
        Ok(())
    }

    /// The initial modes: touching contacts close (an approaching one is
    /// an impact at t = 0), then the modes are made consistent.
    fn start(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        let model = self.model;
        let (q, v) = self.state();
        let mut approaching = None;
        let mut modes = vec![ContactState::OPEN; model.contacts()];
        for k in 0..model.contacts() {
            let g = model.gap(k, q);
            if g < -self.settings.touch_tolerance.max(1e-6) {
                return Err(Stop::Failed(format!(
                    "contact \"{}\" starts {:e} m inside its surface",
                    model.contact_name(k),
                    -g
                )));
            }
            if g <= self.settings.touch_tolerance {
                let (gn, vt) = model.contact_velocity(k, q, v);
                if gn < -self.settings.rest_speed {
                    approaching = Some(k);
                } else if gn <= self.settings.touch_tolerance {
                    modes[k] = self.closed_mode(k, vt);
                }
            }
        }
        self.modes = modes;
        self.project_start()?;
        let (q, v) = self.state();
        self.dynamics = Some(Dynamics::new(model, 0.0, q, v, self.modes.clone())?);
        let started = match approaching {
            Some(k) => self.impact(k, observer),
            None => self.settle(&[], observer),
        };
        // The start is a sample also when the run stops there.
        self.sample(observer, 0.0)?;
        self.next_sample = 1;
        started
    }

    /// Moves the start onto the joints and the contacts it closes (Gauss's
    /// metric), and says so in the outcome when that changed it beyond
    /// round-off: the run's initial energy is the projected start's.
    fn project_start(&mut self) -> Result<(), Stop> {
        let model = self.model;
        let nq = self.nq;
        let given = self.y.clone();
        let (q0, v0) = given.split_at(nq);
        let mut p = Projector::new(model, 0.0, q0, v0, &self.modes)?;
        let violation = p.violation(model, 0.0, q0, &self.modes);
        let at = p.most_violated(model);
        let (speed_violation, speed_at) =
            p.velocity_violation_at(model, 0.0, q0, v0, &self.modes)?;
        let (tol, speed_tol) = (self.settings.drift_tolerance, self.speed_tolerance());
        let (q, v) = self.y.split_at_mut(nq);
        p.positions(model, 0.0, q, v, &self.modes, tol)?;
        p.velocities(model, 0.0, q, v, &self.modes, speed_tol)?;
        let change = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        };
        let (dq, dv) = (change(q, q0), change(v, v0));
        let v_scale = v0.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let energy_given = self.energy_initial;
        self.energy_initial = model.energy(0.0, q, v);
        if violation > tol || dv > 1e-9 * v_scale {
            self.start_projection = Some(StartProjection {
                violation,
                at,
                speed_violation,
                speed_at,
                position_change: dq,
                velocity_change: dv,
                energy_given,
            });
        }
        self.projector = Some(p);
        Ok(())
    }

    /// A closed contact's mode from its tangential velocity.
    fn closed_mode(&self, k: usize, vt: f64) -> ContactState {
        let slow = vt.abs() <= self.stick_speed();
        if self.model.friction(k) > 0.0 && slow {
            ContactState::STICK
        } else {
            ContactState::slide(if vt < 0.0 { -1.0 } else { 1.0 })
        }
    }

    /// Tangential speeds below this are zero when a contact closes: like
    /// a bounce slower than the rest speed, a slip that slow is noise, and
    /// taken for one it would tip a block resting on two rough corners
    /// over and over (friction's moment) in a loop of lift-offs.
    fn stick_speed(&self) -> f64 {
        self.settings.rest_speed.max(1e3 * self.settings.ode.atol)
    }

    /// How well projected velocities must meet their rows, m/s: far below
    /// the speeds events tell apart.
    fn speed_tolerance(&self) -> f64 {
        1e-6 * self.settings.rest_speed
    }

    fn dynamics(&mut self) -> &mut Dynamics<'m, M> {
        self.dynamics.as_mut().expect("built in start")
    }

    /// Makes the modes consistent at the current state (solving the
    /// contact problem, opening contacts that must open, letting sticking
    /// contacts that must slip slip), projects, records the events and
    /// restarts the integrator. `primary` are the events that brought us
    /// here (their kinds may be decided here: a stop is `stick` or `slip`).
    fn settle(
        &mut self,
        primary: &[(EventKind, usize)],
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let mut found: Vec<(EventKind, usize)> = primary.to_vec();
        let model = self.model;
        let t = self.t;
        let mut stable = false;
        for _ in 0..16 {
            let modes = self.modes.clone();
            let (q, v) = self.y.split_at(self.nq);
            let (q, v) = (q.to_vec(), v.to_vec());
            let d = self.dynamics.as_mut().expect("built in start");
            d.set_modes(t, &q, &v, &modes)?;
            if let Err(e) = d.solve(t, &q, &v) {
                if let DynamicsError::Painleve { inconsistent } = e {
                    let contact = self.frictional_contact();
                    let kind = if inconsistent {
                        EventKind::PainleveInconsistent
                    } else {
                        EventKind::PainleveIndeterminate
                    };
                    self.record(kind, contact, observer)?;
                }
                return Err(e.into());
            }
            let mut changed = false;
            for k in 0..model.contacts() {
                if !modes[k].is_closed() {
                    continue;
                }
                let c = self.dynamics().contact(k);
                if c.mode == Mode::Open {
                    self.modes[k] = ContactState::OPEN;
                    found.push((EventKind::LiftOff, k));
                    changed = true;
                } else if modes[k].mode == Mode::Stick
                    && c.mode == Mode::Slide
                    && model.friction(k) > 0.0
                {
                    let slip = slip_direction(&c);
                    self.modes[k] = ContactState::slide(slip);
                    found.push((EventKind::Slip, k));
                    changed = true;
                }
            }
            if !changed {
                stable = true;
                break;
            }
        }
        if !stable {
            return Err(Stop::Failed(format!(
                "the contact modes do not settle at t = {t}"
            )));
        }
        // A stop whose contact ended sliding is a slip, not a stick.
        let mut kinds: Vec<(EventKind, usize)> = Vec::new();
        for (kind, k) in found {
            let kind = match (kind, self.modes[k].mode) {
                (EventKind::Stick, Mode::Slide) => EventKind::Slip,
                (kind, _) => kind,
            };
            // A stick immediately followed by its own slip is one slip.
            if let Some(last) = kinds.iter_mut().find(|(_, c)| *c == k) {
                if last.0 == EventKind::Stick && kind == EventKind::Slip {
                    last.0 = EventKind::Slip;
                    continue;
                }
            }
            kinds.push((kind, k));
        }
        // A contact that lifts off was closed until now: its normal
        // velocity is zero here, and held at zero it leaves as its normal
        // acceleration says (a round-off approach speed would bring it
        // straight back as a `rest`, over and over).
        let lifting: Vec<usize> = kinds
            .iter()
            .filter(|(kind, k)| *kind == EventKind::LiftOff && !self.modes[*k].is_closed())
            .map(|&(_, k)| k)
            .collect();
        if !lifting.is_empty() {
            let open = self.modes.clone();
            for &k in &lifting {
                self.modes[k] = ContactState::slide(1.0);
            }
            self.projector = None;
            let held = self.project(true);
            self.modes = open;
            held?;
        }
        // The last pass wrote the dynamics for these modes; the projector
        // follows them.
        self.projector = None;
        self.project(true)?;
        self.same_time_events(kinds.len())?;
        for (kind, k) in kinds {
            self.record(kind, k, observer)?;
        }
        self.restart()
    }

    /// Whether a closed contact slides with friction.
    fn sliding_with_friction(&self) -> bool {
        (0..self.model.contacts())
            .any(|k| self.modes[k].mode == Mode::Slide && self.model.friction(k) > 0.0)
    }

    /// The first closed contact with friction (for a Painleve event).
    fn frictional_contact(&self) -> usize {
        (0..self.model.contacts())
            .find(|&k| self.modes[k].is_closed() && self.model.friction(k) > 0.0)
            .unwrap_or(0)
    }

    /// Restarts the integrator at the current state, and takes the
    /// switching functions there.
    fn restart(&mut self) -> Result<(), Stop> {
        let t = self.t;
        let y = std::mem::take(&mut self.y);
        let d = self.dynamics.as_mut().expect("built in start");
        let result = self.integrator.reset(d, t, &y);
        self.y = y;
        match result {
            Ok(()) => {}
            Err(StepError::System(e)) => return Err(e.into()),
            Err(e) => return Err(Stop::Failed(format!("the integrator could not start: {e}"))),
        }
        self.phi = self.switching(t)?;
        Ok(())
    }

    /// Projects positions (and velocities) onto the joints and closed
    /// contacts when they drift; `always` forces the velocity projection.
    fn project(&mut self, always: bool) -> Result<bool, Stop> {
        let model = self.model;
        let t = self.t;
        if self.projector.is_none() {
            let (q, v) = self.state();
            self.projector = Some(Projector::new(model, t, q, v, &self.modes)?);
        }
        let tol = self.settings.drift_tolerance;
        let speed_tol = self.speed_tolerance();
        let p = self.projector.as_mut().expect("made above");
        let modes = &self.modes;
        let (q, v) = self.y.split_at_mut(self.nq);
        let before = p.positions(model, t, q, v, modes, tol)?;
        self.max_drift = self.max_drift.max(before);
        let mut moved = before > tol;
        if !moved && !always && p.velocity_violation(model, t, q, v, modes)? > tol {
            // Velocity-level rows (nonholonomic) drift without any
            // position-level sign.
            moved = true;
        }
        if moved {
            self.stats.projections += 1;
        }
        if moved || always {
            p.velocities(model, t, q, v, modes, speed_tol)?;
        }
        Ok(moved)
    }

    /// Switching functions at the state `self.y` (a solve when a contact
    /// is closed).
    fn switching(&mut self, t: f64) -> Result<Vec<[f64; 2]>, Stop> {
        let y = std::mem::take(&mut self.y);
        let mut phi = Vec::new();
        let result = self.switching_at(t, &y, &mut phi);
        self.y = y;
        result.map_err(Stop::from)?;
        Ok(phi)
    }

    /// The switching functions at `(t, y)` into `phi` (one per contact; no
    /// allocation once it has the room).
    fn switching_at(
        &mut self,
        t: f64,
        y: &[f64],
        phi: &mut Vec<[f64; 2]>,
    ) -> Result<(), DynamicsError> {
        let model = self.model;
        let (q, v) = y.split_at(self.nq);
        let any_closed = self.modes.iter().any(|m| m.is_closed());
        let d = self.dynamics.as_mut().expect("built in start");
        if any_closed {
            d.solve(t, q, v)?;
        }
        phi.clear();
        for k in 0..model.contacts() {
            phi.push(switching_of(model, d, k, self.modes[k], q, v));
        }
        Ok(())
    }

    /// One accepted step, cut at its first event; or, when the last step
    /// was cut so, the handling of that event.
    fn advance(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        if let Some(together) = self.pending.take() {
            return self.handle(&together, observer);
        }
        let d = self.dynamics.as_mut().expect("built in start");
        let t_prev = self.t;
        match self.integrator.step(d, self.duration) {
            Ok(_) => {}
            Err(StepError::System(DynamicsError::Painleve { inconsistent })) => {
                return self.painleve_ahead(inconsistent, observer);
            }
            Err(StepError::System(e)) => return Err(e.into()),
            // The step cannot get on while a contact slides with friction:
            // the contact force grows without bound as the contact problem
            // loses its answer (Painleve's inconsistent case, approached
            // along the motion).
            Err(StepError::StepTooSmall { h, .. }) if self.sliding_with_friction() => {
                return self.collapse(h, observer);
            }
            Err(StepError::TooManyRejections { .. }) if self.sliding_with_friction() => {
                let h = self.integrator.step_size();
                return self.collapse(h, observer);
            }
            Err(e) => return Err(Stop::Failed(e.to_string())),
        }
        let t_new = self.integrator.t();
        self.scratch.copy_from_slice(self.integrator.y());
        let end = std::mem::take(&mut self.scratch);
        let mut phi_end = std::mem::take(&mut self.phi_end);
        let result = self.switching_at(t_new, &end, &mut phi_end);
        self.scratch = end;
        match result {
            Ok(()) => {}
            Err(DynamicsError::Painleve { inconsistent }) => {
                self.integrator.undo();
                return self.painleve_ahead(inconsistent, observer);
            }
            Err(e) => return Err(e.into()),
        };
        // The earliest crossing. Functions of the state alone (gaps,
        // sliding velocities) are also looked at inside the step, so that
        // a bounce or a stop between its ends is not missed; the others
        // cost a solve and are compared at the ends.
        let mut first: Option<(f64, usize, usize)> = None;
        let mut roots: Vec<(f64, usize, usize)> = Vec::new();
        for k in 0..self.model.contacts() {
            for f in 0..2 {
                let (a, b) = (self.phi[k][f], phi_end[k][f]);
                if a.is_nan() || b.is_nan() {
                    continue;
                }
                let found = if state_only(f, self.modes[k]) {
                    self.scan(k, f, t_prev, t_new, a, b)?
                } else if a >= 0.0 && b < 0.0 {
                    Some(if a == 0.0 {
                        t_prev
                    } else {
                        self.locate(k, f, t_prev, t_new, a, b)?
                    })
                } else {
                    None
                };
                if let Some(root) = found {
                    roots.push((root, k, f));
                    if first.is_none_or(|(t, _, _)| root < t) {
                        first = Some((root, k, f));
                    }
                }
            }
        }
        let Some((t_event, _, _)) = first else {
            self.accept(t_new, observer)?;
            self.phi_end = std::mem::replace(&mut self.phi, phi_end);
            // The projection changed the state: restart the derivative.
            return Ok(());
        };
        // Redo the step up to the event.
        self.integrator.undo();
        if t_event > t_prev {
            let d = self.dynamics.as_mut().expect("built in start");
            match self.integrator.step_exactly(d, t_event - t_prev) {
                Ok(_) => {}
                Err(StepError::System(DynamicsError::Painleve { inconsistent })) => {
                    return self.painleve_ahead(inconsistent, observer);
                }
                Err(StepError::System(e)) => return Err(e.into()),
                Err(e) => return Err(Stop::Failed(e.to_string())),
            }
            self.accept(t_event, observer)?;
        }
        // Every crossing at the same time is one event (a symmetric block
        // whose two corners stop together sticks at both at once).
        let tol = 4.0 * self.settings.event_tolerance;
        let together: Vec<(usize, usize)> = roots
            .iter()
            .filter(|(t, _, _)| *t <= t_event + tol)
            .map(|&(_, k, f)| (k, f))
            .collect();
        self.pending = Some(together);
        Ok(())
    }

    /// Handles the crossings `together` (contact, function) found at the
    /// current time.
    fn handle(
        &mut self,
        together: &[(usize, usize)],
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        if self.events.len() >= self.settings.max_events {
            return Err(Stop::Failed(format!(
                "{} events: they accumulate",
                self.events.len()
            )));
        }
        if let Some(&(k, _)) = together
            .iter()
            .find(|&&(k, f)| f == 0 && !self.modes[k].is_closed())
        {
            return self.impact(k, observer);
        }
        // The forces at the event state decide the slip directions.
        let (t, y) = (self.t, self.y.clone());
        let (q, v) = y.split_at(self.nq);
        if let Err(e) = self.dynamics().solve(t, q, v) {
            if let DynamicsError::Painleve { inconsistent } = e {
                return self.painleve_ahead(inconsistent, observer);
            }
            return Err(e.into());
        }
        let mut primaries = Vec::with_capacity(together.len());
        for &(k, f) in together {
            let kind = match (f, self.modes[k].mode) {
                (0, _) => {
                    self.modes[k] = ContactState::OPEN;
                    EventKind::LiftOff
                }
                (_, Mode::Slide) => {
                    self.modes[k] = ContactState::STICK;
                    EventKind::Stick
                }
                (_, Mode::Stick) => {
                    let c = self.dynamics().contact(k);
                    self.modes[k] = ContactState::slide(slip_direction(&c));
                    EventKind::Slip
                }
                // A closed contact's tangential event already handled by
                // its normal one.
                (_, Mode::Open) => continue,
            };
            primaries.push((kind, k));
        }
        self.settle(&primaries, observer)
    }

    /// Takes the integrator's step to `t_new` as the run's state: samples
    /// inside it (after the last one taken), drift check and projection.
    fn accept(&mut self, t_new: f64, observer: &mut dyn Observer) -> Result<(), Stop> {
        self.steps += 1;
        // Samples in (t_prev, t_new], when someone wants them (a tiny
        // output_every is then no loop over sample times).
        let last = (self.duration / self.output_every).round() as usize;
        while self.next_sample <= last && observer.wants_samples() {
            let ts = if self.next_sample == last {
                self.duration
            } else {
                self.next_sample as f64 * self.output_every
            };
            if ts > t_new {
                break;
            }
            let mut y = std::mem::take(&mut self.scratch);
            self.integrator.dense(ts, &mut y);
            let r = self.sample_at(observer, ts, &y);
            self.scratch = y;
            r?;
            self.next_sample += 1;
        }
        self.t = t_new;
        self.y.copy_from_slice(self.integrator.y());
        if self.project(false)? {
            let d = self.dynamics.as_mut().expect("built in start");
            let y = std::mem::take(&mut self.y);
            let r = self.integrator.set_state(d, &y);
            self.y = y;
            match r {
                Ok(()) => {}
                Err(StepError::System(e)) => return Err(e.into()),
                Err(e) => return Err(Stop::Failed(e.to_string())),
            }
        }
        Ok(())
    }

    /// A Painleve case met inside a step: shrink the step towards it; when
    /// it is as small as events are located, stop there.
    fn painleve_ahead(
        &mut self,
        inconsistent: bool,
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let h = self.integrator.step_size();
        if h > self.settings.event_tolerance {
            self.integrator.set_step_size(h * 0.25);
            return Ok(());
        }
        if h == 0.0 {
            // The first step's own choice looked too far ahead.
            self.integrator
                .set_step_size(1e-3 * (self.duration - self.t));
            return Ok(());
        }
        // The stop is the state whose contact problem failed: within a
        // step of the event tolerance of the last one, and the one the
        // kind belongs to.
        let d = self.dynamics.as_ref().expect("built in start");
        self.t = d.painleve_time;
        self.y.copy_from_slice(&d.painleve_state);
        self.painleve(inconsistent, observer)
    }

    /// Records a Painleve stop of the kind found at the current state.
    fn painleve(&mut self, inconsistent: bool, observer: &mut dyn Observer) -> Result<(), Stop> {
        let kind = if inconsistent {
            EventKind::PainleveInconsistent
        } else {
            EventKind::PainleveIndeterminate
        };
        let k = self.frictional_contact();
        self.record(kind, k, observer)?;
        Err(Stop::Painleve)
    }

    /// The steps collapse (below the event tolerance) while a contact
    /// slides with friction: its force grows without bound as the contact
    /// problem loses its answer just ahead (Painleve's inconsistent case,
    /// approached along the motion). The positions are carried on along
    /// the motion, a step at a time doubling from the event tolerance,
    /// until the contact problem has no answer or several: that state is
    /// the stop, and its answer the kind. A problem that keeps one answer
    /// ends the run `failed`, with the reason.
    fn collapse(&mut self, h: f64, observer: &mut dyn Observer) -> Result<(), Stop> {
        let model = self.model;
        let (nq, t) = (self.nq, self.t);
        let mut probe = self.y.clone();
        let mut rate = vec![0.0; nq];
        {
            let (q, v) = self.y.split_at(nq);
            model.position_rate(q, v, &mut rate);
        }
        let mut dt = self.settings.event_tolerance;
        while dt <= 1e6 * self.settings.event_tolerance {
            let (q, v) = probe.split_at_mut(nq);
            for ((p, y), r) in q.iter_mut().zip(&self.y[..nq]).zip(&rate) {
                *p = y + dt * r;
            }
            match self.dynamics().solve(t + dt, q, v) {
                Err(DynamicsError::Painleve { inconsistent }) => {
                    self.t = t + dt;
                    self.y.copy_from_slice(&probe);
                    return self.painleve(inconsistent, observer);
                }
                Ok(()) => dt *= 2.0,
                Err(_) => break,
            }
        }
        let k = self.frictional_contact();
        Err(Stop::Failed(format!(
            "the steps shrink to {h:.1e} s at t = {t} while contact \"{}\" slides with \
             friction, yet its contact problem keeps one answer",
            model.contact_name(k)
        )))
    }

    /// The first downward zero of a switching function of the state alone
    /// (a gap or a sliding velocity) over the last step, looked for at
    /// `SCAN` points of its dense output. A function that starts at or
    /// below zero (just after an event) and ends the first interval below
    /// zero may have risen in between (a ball that bounced and came back
    /// within it): the interval is halved towards its start until a
    /// positive value is found; if none is, the function did not rise and
    /// the event is at the start, unless it ends the interval no lower
    /// than it began (a contact leaving from a round-off overlap: no
    /// event).
    fn scan(
        &mut self,
        k: usize,
        f: usize,
        t0: f64,
        t1: f64,
        a: f64,
        b: f64,
    ) -> Result<Option<f64>, Stop> {
        const SCAN: usize = 8;
        let (mut ta, mut va) = (t0, a);
        for i in 1..=SCAN {
            let tb = if i == SCAN {
                t1
            } else {
                t0 + (t1 - t0) * i as f64 / SCAN as f64
            };
            let vb = if i == SCAN {
                b
            } else {
                self.state_function(k, f, tb)
            };
            if vb < 0.0 && va <= 0.0 && i == 1 {
                let mut tm = tb;
                for _ in 0..60 {
                    tm = ta + 0.5 * (tm - ta);
                    let vm = self.state_function(k, f, tm);
                    if vm > 0.0 {
                        return Ok(Some(self.locate(k, f, tm, tb, vm, vb)?));
                    }
                }
                // Never above zero: falling, the event is at the start;
                // not falling (a contact leaving from a round-off overlap),
                // none.
                if vb < va {
                    return Ok(Some(ta));
                }
            }
            if vb < 0.0 && va >= 0.0 {
                return Ok(Some(if va == 0.0 {
                    ta
                } else {
                    self.locate(k, f, ta, tb, va, vb)?
                }));
            }
            ta = tb;
            va = vb;
        }
        Ok(None)
    }

    /// A switching function of the state alone at time `t` of the dense
    /// output.
    fn state_function(&mut self, k: usize, f: usize, t: f64) -> f64 {
        self.integrator.dense(t, &mut self.scratch);
        let (q, v) = self.scratch.split_at(self.nq);
        match (f, self.modes[k].sliding()) {
            (0, _) => self.model.gap(k, q),
            (_, Some(slip)) => slip * self.model.contact_velocity(k, q, v).1,
            _ => NONE,
        }
    }

    /// Locates the zero of switching function `f` of contact `k` on the
    /// last step's dense output.
    fn locate(
        &mut self,
        k: usize,
        f: usize,
        t0: f64,
        t1: f64,
        a: f64,
        b: f64,
    ) -> Result<f64, Stop> {
        let mut y = std::mem::take(&mut self.scratch);
        let tol = self.settings.event_tolerance;
        let result = find_root(
            |t| -> Result<f64, DynamicsError> {
                self.integrator.dense(t, &mut y);
                let model = self.model;
                let (q, v) = y.split_at(self.nq);
                let d = self.dynamics.as_mut().expect("built in start");
                if !state_only(f, self.modes[k]) {
                    d.solve(t, q, v)?;
                }
                Ok(switching_of(model, d, k, self.modes[k], q, v)[f])
            },
            t0,
            t1,
            a,
            b,
            tol,
        );
        self.scratch = y;
        match result {
            Ok(t) => Ok(t),
            // A solve that fails inside the step: the event is the end.
            Err(DynamicsError::Painleve { .. }) => Ok(t1),
            Err(e) => Err(e.into()),
        }
    }

    /// An impact of contact `k` at the current state.
    fn impact(&mut self, k: usize, observer: &mut dyn Observer) -> Result<(), Stop> {
        let model = self.model;
        let t = self.t;
        let (q, v) = self.y.split_at(self.nq);
        let q = q.to_vec();
        let mut v = v.to_vec();
        // Every touching contact takes part (closed ones at e = 0).
        let touch = self.settings.touch_tolerance;
        let mut modes = vec![ContactState::OPEN; model.contacts()];
        let mut restitution = Vec::new();
        let mut rest = false;
        for j in 0..model.contacts() {
            if j == k || self.modes[j].is_closed() || model.gap(j, &q) <= touch {
                modes[j] = ContactState::slide(1.0);
                let (gn, _) = model.contact_velocity(j, &q, &v);
                let slow = -gn < self.settings.rest_speed;
                let e = if self.modes[j].is_closed() || slow {
                    0.0
                } else {
                    model.restitution(j)
                };
                if j == k && slow {
                    rest = true;
                }
                restitution.push(e);
            }
        }
        let mut p = Projector::new(model, t, &q, &v, &modes)?;
        let speed_tol = self.speed_tolerance();
        let mut strike = |v: &mut [f64], restitution: &[f64]| {
            p.impact(model, t, &q, v, &modes, restitution, speed_tol)
        };
        let v_minus = v.clone();
        strike(&mut v, &restitution)?;
        // A bounce slower than the rest speed is no bounce: those contacts
        // take the impact again, plastic (`e = 0`), and stay closed.
        let mut again = false;
        let closing = (0..model.contacts()).filter(|&j| modes[j].is_closed());
        for (i, j) in closing.enumerate() {
            let (gn, _) = model.contact_velocity(j, &q, &v);
            if restitution[i] > 0.0 && gn <= self.settings.rest_speed {
                restitution[i] = 0.0;
                again = true;
                if j == k {
                    rest = true;
                }
            }
        }
        if again {
            v.copy_from_slice(&v_minus);
            strike(&mut v, &restitution)?;
        }
        self.y[self.nq..].copy_from_slice(&v);
        // Which touching contacts stay closed.
        for j in 0..model.contacts() {
            if !modes[j].is_closed() {
                continue;
            }
            // Leaving slower than the rest speed is not leaving: the
            // contact closes (and the contact problem may open it). Nor is
            // a rest's own contact leaving: a gap that did not rise above
            // zero since the last bounce (its apex below the position's
            // resolution) is a bounce too small to be seen.
            let (gn, vt) = model.contact_velocity(j, &q, &v);
            self.modes[j] = if gn > self.settings.rest_speed && !(j == k && rest) {
                ContactState::OPEN
            } else {
                self.closed_mode(j, vt)
            };
        }
        let kind = if rest {
            EventKind::Rest
        } else {
            EventKind::Impact
        };
        // The impact is recorded with the state after the jump; the modes
        // settle after it.
        self.projector = None;
        self.settle(&[(kind, k)], observer)
    }

    /// Counts events at one time: many in a row at the same time are a
    /// loop of mode changes, not progress.
    fn same_time_events(&mut self, new: usize) -> Result<(), Stop> {
        let t = self.t;
        let tol = self.settings.event_tolerance;
        let same = self
            .events
            .iter()
            .rev()
            .take_while(|e| (e.time - t).abs() <= tol)
            .count();
        if same + new > 64 {
            return Err(Stop::Failed(format!(
                "contact modes keep changing at t = {t}"
            )));
        }
        Ok(())
    }

    /// Records an event at the current state.
    fn record(
        &mut self,
        kind: EventKind,
        contact: usize,
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let (q, v) = self.state();
        let event = Event {
            time: self.t,
            kind,
            contact,
            q: q.to_vec(),
            v: v.to_vec(),
        };
        let y = self.y.clone();
        let contacts = self.contact_samples(observer.wants_samples(), self.t, &y);
        observer.event(&event, &contacts);
        self.events.push(event);
        Ok(())
    }

    fn sample(&mut self, observer: &mut dyn Observer, t: f64) -> Result<(), Stop> {
        let y = self.y.clone();
        self.sample_at(observer, t, &y)
    }

    fn sample_at(&mut self, observer: &mut dyn Observer, t: f64, y: &[f64]) -> Result<(), Stop> {
        if !observer.wants_samples() {
            return Ok(());
        }
        let mut y = y.to_vec();
        self.project_sample(t, &mut y)?;
        let contacts = self.contact_samples(true, t, &y);
        let (q, v) = y.split_at(self.nq);
        observer.sample(t, q, v, &contacts);
        Ok(())
    }

    /// A state inside a step comes from the dense output, off the joints
    /// by the integrator's error: it is projected like the steps' ends, so
    /// that what is reported keeps the constraints as well.
    fn project_sample(&mut self, t: f64, y: &mut [f64]) -> Result<(), Stop> {
        let model = self.model;
        let (tol, speed_tol) = (self.settings.drift_tolerance, self.speed_tolerance());
        if let Some(p) = self.projector.as_mut() {
            let (q, v) = y.split_at_mut(self.nq);
            let modes = &self.modes;
            if p.positions(model, t, q, v, modes, tol)? > tol
                || p.velocity_violation(model, t, q, v, modes)? > speed_tol
            {
                p.velocities(model, t, q, v, modes, speed_tol)?;
            }
        }
        Ok(())
    }

    /// The run's state at a time `t` it has reached (inside its last step,
    /// or its current time) into `y`, with its contacts (forces when
    /// `wants`); `None` when it has not reached `t` yet.
    pub(crate) fn state_at(
        &mut self,
        t: f64,
        wants: bool,
        y: &mut [f64],
    ) -> Option<Vec<ContactSample>> {
        if t > self.t {
            return None;
        }
        if t == self.t {
            y.copy_from_slice(&self.y);
        } else {
            self.integrator.dense(t, y);
            // A projection that fails leaves the state as the integrator
            // has it (off by its error, never by more).
            let _ = self.project_sample(t, y);
        }
        Some(self.contact_samples(wants, t, y))
    }

    /// The contacts' forces and modes at `(t, y)` (a solve when a contact
    /// is closed and the observer wants them).
    fn contact_samples(&mut self, wants: bool, t: f64, y: &[f64]) -> Vec<ContactSample> {
        let model = self.model;
        let n = model.contacts();
        let open = ContactSample {
            normal_force: 0.0,
            friction_force: 0.0,
            mode: Mode::Open,
        };
        if !wants || !self.modes.iter().any(|m| m.is_closed()) {
            return vec![open; n];
        }
        let (q, v) = y.split_at(self.nq);
        let d = self.dynamics.as_mut().expect("built in start");
        let solved = d.solve(t, q, v).is_ok();
        (0..n)
            .map(|k| {
                if !self.modes[k].is_closed() {
                    return open;
                }
                if !solved {
                    return ContactSample {
                        normal_force: f64::NAN,
                        friction_force: f64::NAN,
                        mode: mode_of(self.modes[k], model.friction(k)),
                    };
                }
                let c = d.contact(k);
                ContactSample {
                    normal_force: c.normal_force,
                    friction_force: c.friction_force,
                    mode: mode_of(self.modes[k], model.friction(k)),
                }
            })
            .collect()
    }
}

/// Whether switching function `f` of a contact in `mode` is a function of
/// the state alone (a gap of an open contact, a sliding velocity); the
/// others need a solve.
fn state_only(f: usize, mode: ContactState) -> bool {
    matches!((f, mode.mode), (0, Mode::Open) | (1, Mode::Slide))
}

/// The reported mode of a bookkept one.
fn mode_of(mode: ContactState, mu: f64) -> Mode {
    match mode.mode {
        Mode::Open => Mode::Open,
        Mode::Stick if mu > 0.0 => Mode::Stick,
        _ => Mode::Slide,
    }
}

/// The slip sign `s` of a sticking contact that starts to slip: friction
/// `-mu s lambda_n` opposes the tangential force it held.
fn slip_direction(c: &ContactValues) -> f64 {
    if c.friction_force > 0.0 {
        -1.0
    } else if c.friction_force < 0.0 {
        1.0
    } else if c.tangential_rate < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// The switching functions of contact `k` in `mode` at `(q, v)`, given the
/// solve of `d` at that state for closed contacts.
fn switching_of<M: Mechanism>(
    model: &M,
    d: &Dynamics<'_, M>,
    k: usize,
    mode: ContactState,
    q: &[f64],
    v: &[f64],
) -> [f64; 2] {
    match mode.mode {
        Mode::Open => [model.gap(k, q), NONE],
        Mode::Slide => {
            let slip = mode.slip;
            let c = d.contact(k);
            let normal = c.normal_force - c.normal_gap_rate;
            let tangential = if model.friction(k) > 0.0 {
                slip * model.contact_velocity(k, q, v).1
            } else {
                NONE
            };
            [normal, tangential]
        }
        Mode::Stick => {
            let c = d.contact(k);
            let normal = c.normal_force - c.normal_gap_rate;
            let mu = model.friction(k);
            let tangential = if mu > 0.0 {
                mu * c.normal_force - c.friction_force.abs() - c.tangential_rate.abs()
            } else {
                NONE
            };
            [normal, tangential]
        }
    }
}
