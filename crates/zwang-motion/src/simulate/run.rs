//! The state of an event-driven run and its loop: building it, the start
//! (touching contacts close, an approaching one is an impact at t = 0),
//! one tick at a time, and the pace that fails early a run that would
//! overrun `max_steps`. The other files add the stages of a tick to `Run`.

use super::switching::NONE;
use super::{Event, Observer, Settings, StartProjection, Stats, Stop};
use crate::dynamics::Dynamics;
use crate::projection::Projector;
use zwang_model::{ContactState, Mechanism};
use zwang_ode::Integrator;

/// Steps between two looks at the pace of a run.
const PACE_WINDOW: usize = 1000;

pub(crate) struct Run<'m, M: Mechanism> {
    pub(super) model: &'m M,
    pub(super) settings: Settings,
    pub(super) duration: f64,
    pub(crate) nq: usize,
    pub(crate) t: f64,
    pub(crate) y: Vec<f64>,
    pub(crate) modes: Vec<ContactState>,
    pub(super) dynamics: Option<Dynamics<'m, M>>,
    pub(super) projector: Option<Projector>,
    pub(super) integrator: Integrator,
    pub(super) events: Vec<Event>,
    pub(crate) steps: usize,
    pub(super) stats: Stats,
    pub(crate) energy_initial: f64,
    pub(crate) start_projection: Option<StartProjection>,
    pub(crate) max_drift: f64,
    pub(super) output_every: f64,
    pub(super) next_sample: usize,
    /// Switching functions at the start of the current step: per contact
    /// `[normal, tangential]` (NaN where not defined).
    pub(super) phi: Vec<[f64; 2]>,
    /// The same at the end of the step being looked at.
    pub(super) phi_end: Vec<[f64; 2]>,
    pub(super) scratch: Vec<f64>,
    /// The crossings of an event the last step was cut at, not yet
    /// handled: handling waits for the next `advance`, so that until then
    /// the step's dense output still covers the event time (other islands
    /// read their state there, [`crate::islands`]).
    pub(super) pending: Option<Vec<(usize, usize)>>,
    /// The pace of the last window of steps, in two halves.
    window: [(usize, f64); 2],
    /// The last impact's jump, until its event is recorded.
    pub(super) jump: Option<super::Jump>,
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
            jump: None,
        }
    }

    pub(super) fn state(&self) -> (&[f64], &[f64]) {
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

    pub(super) fn go(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
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

    /// A closed contact's mode from its tangential velocity.
    pub(super) fn closed_mode(&self, k: usize, vt: f64) -> ContactState {
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

    pub(super) fn dynamics(&mut self) -> &mut Dynamics<'m, M> {
        self.dynamics.as_mut().expect("built in start")
    }
}
