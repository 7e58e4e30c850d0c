//! What a run tells: its events and samples as they come (to an
//! [`Observer`]) and how it ended (the [`Outcome`], with its counts and
//! times). These are the stepper's public results; the other files of the
//! module compute them.

use std::time::Duration;
use zwang_contact::Mode;
use zwang_model::ContactState;

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
    /// What the velocity jump of an `impact` or a `rest` did; `None` for
    /// the other kinds.
    pub jump: Option<Jump>,
}

/// An impact's velocity jump: its contact problem (Newton's restitution,
/// Coulomb's friction, every touching contact together) as solved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jump {
    /// Kinetic energy after the jump minus before, J: never above
    /// round-off (`1e-9` of it).
    pub energy_change: f64,
    /// The factor every restitution coefficient of the impact was lowered
    /// by so that it gains no energy (1: as given; below only where a
    /// contact's normal impulse drives its slip, as a rod landing aslant).
    pub restitution_factor: f64,
    /// Siconos' error measure of the contact problem's answer, at most
    /// the tolerance `1e-10` (an impact whose problem ends above it fails
    /// the run, its velocities not taken).
    pub error: f64,
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
    /// Why the run cannot go on past the sample just handed to
    /// [`Observer::sample`] (the observer checks what the method does not
    /// hold): the run then ends there, failed with that reason, its state
    /// the sample's. Default: it goes on.
    fn halt(&self) -> Option<String> {
        None
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

/// How the time stepper's contact problems ended over a run: a step
/// whose problem (or whose overlap correction) ended above the solver's
/// tolerance is counted, never passed as solved. Event-driven runs fail
/// at an unsolved instant instead, so theirs stay at zero.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Unsolved {
    /// Steps whose contact problem ended above the tolerance.
    pub steps: usize,
    /// The largest error measure (Siconos') of any step's contact
    /// problem, solved or not; 0 without contacts.
    pub worst_error: f64,
    /// When the step of [`Unsolved::worst_error`] started, s.
    pub worst_time: f64,
    /// The tolerance the errors were held to.
    pub tolerance: f64,
}

impl Unsolved {
    /// Counts a step that started at `t` and ended at `error`, `solved`
    /// or not.
    pub(crate) fn record(&mut self, t: f64, error: f64, solved: bool) {
        if !solved {
            self.steps += 1;
        }
        if error > self.worst_error {
            self.worst_error = error;
            self.worst_time = t;
        }
    }
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
    /// The multipliers of the knife edges at the end, in the rows' order,
    /// when the run integrated the vakonomic equations (they are part of
    /// its state); `None` for the nonholonomic ones.
    pub multipliers: Option<Vec<f64>>,
    /// The time stepper's unsolved steps and worst contact error.
    pub unsolved: Unsolved,
    /// Counts and times.
    pub stats: Stats,
}

impl Outcome {
    /// A run that failed before its first step (settings out of range, a
    /// stepper that cannot start): the start, of energy `energy`, is the
    /// answer. The time steppers in the plane and in space share it.
    pub(crate) fn unstarted(
        reason: String,
        q: Vec<f64>,
        v: Vec<f64>,
        modes: Vec<ContactState>,
        energy: f64,
    ) -> Outcome {
        Outcome {
            status: Status::Failed,
            reason: Some(reason),
            time: 0.0,
            steps: 0,
            events: Vec::new(),
            q,
            v,
            modes,
            energy_initial: energy,
            start_projection: None,
            energy_final: energy,
            max_constraint_drift: 0.0,
            max_penetration: 0.0,
            multipliers: None,
            unsolved: Unsolved::default(),
            stats: Stats::default(),
        }
    }
}
