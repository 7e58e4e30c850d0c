//! Running an articulated model (a kinematic tree in joint coordinates,
//! as an MJCF file describes it) and its report: the start a keyframe
//! names, the event-driven run, and the JSON of `docs/mjcf.md` that the
//! command line prints and the Python package returns.

use std::sync::Arc;
use std::time::Instant as Clock;

use serde_json::{json, Map, Value};
use zwang_model::articulated::{Articulated, ArticulatedMechanism};
use zwang_model::spatial::rotation::cross;
use zwang_motion::{
    simulate, simulate_tree, ContactSample, NoObserver, Observer, Overlaps, Settings,
    StartProjection, Status, StepSettings, TreeStart, TreeStepper,
};

/// Reads an MJCF file (`docs/mjcf.md`) into its model and the
/// attributes read past; the error is one line beginning `mjcf:`.
pub fn load(path: &std::path::Path) -> Result<(Articulated, Vec<String>), String> {
    zwang_mjcf::read(path)
        .map(|m| (m.model, m.ignored))
        .map_err(|e| e.to_string())
}

/// A start: coordinates, velocities and controls (held along a run).
#[derive(Debug, Clone, PartialEq)]
pub struct Start {
    /// Length `nq`.
    pub qpos: Vec<f64>,
    /// Length `nv`.
    pub qvel: Vec<f64>,
    /// One per actuator.
    pub ctrl: Vec<f64>,
    /// s.
    pub time: f64,
}

/// The start `keyframe` names (a key's name, or its 0-based index), or
/// `qpos0` at rest with zero controls for `None`.
pub fn start_of(model: &Articulated, keyframe: Option<&str>) -> Result<Start, String> {
    let Some(key) = keyframe else {
        return Ok(Start {
            qpos: model.tree.qpos0().to_vec(),
            qvel: vec![0.0; model.tree.nv()],
            ctrl: vec![0.0; model.actuators.len()],
            time: 0.0,
        });
    };
    let Some(i) = model.keyframe(key) else {
        let names: Vec<String> = model
            .keyframes
            .iter()
            .enumerate()
            .map(|(i, k)| {
                if k.name.is_empty() {
                    i.to_string()
                } else {
                    k.name.clone()
                }
            })
            .collect();
        return Err(if names.is_empty() {
            format!("--keyframe: `{key}`: the model has no keyframes")
        } else {
            format!(
                "--keyframe: `{key}`: no such key (the model's: {})",
                names.join(", ")
            )
        });
    };
    let k = &model.keyframes[i];
    Ok(Start {
        qpos: k.qpos.clone(),
        qvel: k.qvel.clone(),
        ctrl: k.ctrl.clone(),
        time: k.time,
    })
}

/// A body's state for reports, world frame: its frame's origin and
/// orientation `[w, x, y, z]`, the origin's velocity and the angular
/// velocity.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyReport {
    /// The body's name.
    pub name: String,
    /// m.
    pub position: [f64; 3],
    /// Unit quaternion.
    pub orientation: [f64; 4],
    /// m/s.
    pub velocity: [f64; 3],
    /// rad/s.
    pub angular_velocity: [f64; 3],
}

/// Every body's state at `(qpos, qvel)` (empty if the state is not one
/// the tree can take).
pub fn bodies(model: &Articulated, qpos: &[f64], qvel: &[f64]) -> Vec<BodyReport> {
    let tree = &model.tree;
    let mut ws = tree.workspace();
    if tree.positions(&mut ws, qpos).is_err() || tree.velocities(&mut ws, qvel).is_err() {
        return Vec::new();
    }
    (0..tree.nbody())
        .filter_map(|b| {
            let (x, q) = tree.pose(&ws, b).ok()?;
            let s = tree.velocity(&ws, b).ok()?;
            let w = [s[0], s[1], s[2]];
            let c = cross(w, x);
            Some(BodyReport {
                name: tree.bodies()[b].name.clone(),
                position: x,
                orientation: q,
                velocity: [s[3] + c[0], s[4] + c[1], s[5] + c[2]],
                angular_velocity: w,
            })
        })
        .collect()
}

/// What a run of an articulated model did: the contract's JSON
/// (`docs/mjcf.md`), either method.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticulatedReport {
    /// `"finished"`, or why not (`"failed"`).
    pub status: String,
    /// Why it failed, if it did.
    pub reason: Option<String>,
    /// The time reached, s.
    pub time: f64,
    /// Time steps (or the integrator's accepted steps).
    pub steps: usize,
    /// The final state.
    pub qpos: Vec<f64>,
    /// The final velocities.
    pub qvel: Vec<f64>,
    /// Kinetic, gravity and springs, J.
    pub energy: [f64; 2],
    /// The deepest overlap of two geoms at any step end, m.
    pub max_penetration: f64,
    /// The furthest a joint or tendon passed a limit at any step end.
    pub max_limit_violation: f64,
    /// Steps whose constraint problem ended above its tolerance.
    pub unsolved_steps: usize,
    /// The worst such error and when, if any.
    pub worst_unsolved: Option<(f64, f64)>,
    /// How the start was moved apart or into its limits, if it was.
    pub start_projection: Option<StartProjection>,
    /// The file's attributes read and ignored (`"geom.solref"`).
    pub ignored: Vec<String>,
    /// s.
    pub wall_time: f64,
}

impl ArticulatedReport {
    /// The JSON object of `zwang simulate MODEL.xml --json`.
    pub fn to_json(&self, model: &Articulated) -> Value {
        let mut states = Map::new();
        for b in bodies(model, &self.qpos, &self.qvel) {
            states.insert(
                b.name,
                json!({
                    "position": b.position,
                    "orientation": b.orientation,
                    "velocity": b.velocity,
                    "angular_velocity": b.angular_velocity,
                }),
            );
        }
        let mut out = json!({
            "status": self.status,
            "time": self.time,
            "steps": self.steps,
            "final": {"qpos": self.qpos, "qvel": self.qvel, "bodies": states},
            "energy": {"initial": self.energy[0], "final": self.energy[1]},
            "max_penetration": self.max_penetration,
            "max_limit_violation": self.max_limit_violation,
            "unsolved_steps": self.unsolved_steps,
            "ignored": self.ignored,
            "stats": {"wall_time": self.wall_time},
        });
        if let Some(reason) = &self.reason {
            out["reason"] = json!(reason);
        }
        if let Some(p) = &self.start_projection {
            out["start_projection"] = json!({
                "violation": p.violation,
                "at": p.at,
                "position_change": p.position_change,
                "velocity_change": p.velocity_change,
                "energy_given": p.energy_given,
                "energy_projected": self.energy[0],
            });
        }
        if let Some((error, time)) = self.worst_unsolved {
            out["worst_unsolved"] = json!({"error": error, "time": time});
        }
        out
    }
}

/// What an event-driven run is checked against at its samples: the
/// largest limit violation, and the geoms' overlaps (the method does not
/// hold contacts between geoms: it must say when two meet, and end the
/// run there); the caller's observer is handed every sample and event.
struct Watch<'a> {
    mechanism: &'a ArticulatedMechanism,
    worst: f64,
    overlaps: Overlaps<'a>,
    /// The deepest overlap seen, m.
    deepest: f64,
    /// Why the run cannot go on: the first sample with an overlap beyond
    /// the stepper's tolerance (its geoms and time), or a failure of the
    /// collision check itself.
    stop: Option<String>,
    /// The model (the geoms' names) and the start's time.
    model: &'a Articulated,
    start_time: f64,
    observer: &'a mut dyn Observer,
}

impl Watch<'_> {
    fn check(&mut self, t: f64, q: &[f64]) {
        self.worst = self.worst.max(self.mechanism.limit_violation(q));
        match self.overlaps.deepest(q) {
            Ok(Some(touch)) => {
                self.deepest = self.deepest.max(touch.depth);
                if touch.depth > StepSettings::default().penetration_tolerance
                    && self.stop.is_none()
                {
                    let [a, b] = touch.geoms;
                    self.stop = Some(format!(
                        "geoms {} and {} met at t = {} s: the event-driven method does not hold \
                         contacts between geoms yet (--stepping timestep does)",
                        self.model.geoms[a].name,
                        self.model.geoms[b].name,
                        self.start_time + t
                    ));
                }
            }
            Ok(None) => {}
            Err(e) => {
                self.stop.get_or_insert(e.to_string());
            }
        }
    }
}

impl Observer for Watch<'_> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        self.check(t, q);
        self.observer.sample(t, q, v, contacts);
    }
    fn event(&mut self, event: &zwang_motion::Event, contacts: &[ContactSample]) {
        self.observer.event(event, contacts);
    }
    fn progress(&mut self, t: f64, duration: f64) {
        self.observer.progress(t, duration);
    }
    fn halt(&self) -> Option<String> {
        self.stop.clone()
    }
}

/// The samples an event-driven run checks the limits at.
const LIMIT_SAMPLES: f64 = 10_000.0;

/// Runs `model` from `start` for `duration` by the event-driven method at
/// relative `tolerance` (the absolute one a hundredth of it). Joint limits
/// are its contacts; `max_limit_violation` and `max_penetration` are
/// measured at 10,000 samples of the run and at its end. Contacts between
/// geoms are not held by this method yet: a run in which two geoms meet
/// (overlap beyond the time stepper's penetration tolerance) ends at the
/// first sample where they do, failed, naming them and the time.
pub fn run_event(
    model: &Articulated,
    start: &Start,
    duration: f64,
    tolerance: f64,
    ignored: &[String],
) -> Result<ArticulatedReport, String> {
    run_event_with(model, start, duration, tolerance, ignored, &mut NoObserver)
}

/// [`run_event`], handing `observer` the run's 10,000 samples (times from
/// the start of the run, `qpos` and `qvel`) and its events: what a
/// drawing of the run keeps.
pub fn run_event_with(
    model: &Articulated,
    start: &Start,
    duration: f64,
    tolerance: f64,
    ignored: &[String],
    observer: &mut dyn Observer,
) -> Result<ArticulatedReport, String> {
    let clock = Clock::now();
    let mechanism = ArticulatedMechanism::new(
        model.clone(),
        start.qpos.clone(),
        start.qvel.clone(),
        start.ctrl.clone(),
    )
    .map_err(|e| e.to_string())?;
    let mut settings = Settings::default();
    settings.ode.rtol = tolerance;
    settings.ode.atol = (tolerance * 1e-2).min(zwang_motion::ATOL_MAX);
    settings.output_every = duration / LIMIT_SAMPLES;
    settings
        .validate()
        .map_err(|e| format!("--tolerance: {e}"))?;
    let mut watch = Watch {
        mechanism: &mechanism,
        worst: 0.0,
        overlaps: Overlaps::new(model).map_err(|e| e.to_string())?,
        deepest: 0.0,
        stop: None,
        model,
        start_time: start.time,
        observer,
    };
    let out = simulate(&mechanism, duration, &settings, &mut watch);
    watch.check(out.time, &out.q);
    let mut finished = out.status == Status::Finished;
    let mut reason = out.reason.clone();
    if let Some(stop) = watch.stop.take() {
        finished = false;
        reason.get_or_insert(stop);
    }
    Ok(ArticulatedReport {
        status: if finished { "finished" } else { "failed" }.into(),
        reason,
        time: start.time + out.time,
        steps: out.steps,
        max_limit_violation: watch.worst,
        qpos: out.q,
        qvel: out.v,
        energy: [out.energy_initial, out.energy_final],
        max_penetration: watch.deepest,
        unsolved_steps: 0,
        worst_unsolved: None,
        start_projection: out.start_projection,
        ignored: ignored.to_vec(),
        wall_time: clock.elapsed().as_secs_f64(),
    })
}

/// Runs `model` from `start` for `duration` by velocity-level time steps
/// of `time_step` (the model's own when `None`), the controls held.
pub fn run_steps(
    model: &Articulated,
    start: &Start,
    duration: f64,
    time_step: Option<f64>,
    ignored: &[String],
) -> Result<ArticulatedReport, String> {
    run_steps_with(model, start, duration, time_step, ignored, &mut NoObserver)
}

/// [`run_steps`], handing `observer` a sample (time from the start of the
/// run, `qpos`, `qvel`) at the start, at the end of every time step and
/// at the end, when it wants samples: what a drawing of the run keeps.
pub fn run_steps_with(
    model: &Articulated,
    start: &Start,
    duration: f64,
    time_step: Option<f64>,
    ignored: &[String],
    observer: &mut dyn Observer,
) -> Result<ArticulatedReport, String> {
    let clock = Clock::now();
    let time_step = time_step.unwrap_or(model.timestep);
    let settings = StepSettings {
        time_step,
        output_every: if observer.wants_samples() {
            time_step
        } else {
            duration
        },
        ..StepSettings::default()
    };
    settings.validate(duration)?;
    let tree_start = TreeStart {
        qpos: start.qpos.clone(),
        qvel: start.qvel.clone(),
        ctrl: start.ctrl.clone(),
    };
    let run = simulate_tree(model, &tree_start, duration, &settings, observer);
    let out = run.outcome;
    let finished = out.status == Status::Finished;
    let unsolved = out.unsolved;
    Ok(ArticulatedReport {
        status: if finished { "finished" } else { "failed" }.into(),
        reason: out.reason.clone(),
        time: start.time + out.time,
        steps: out.steps,
        max_limit_violation: run.max_limit_violation,
        qpos: out.q,
        qvel: out.v,
        energy: [out.energy_initial, out.energy_final],
        max_penetration: out.max_penetration,
        unsolved_steps: unsolved.steps,
        worst_unsolved: (unsolved.steps > 0)
            .then_some((unsolved.worst_error, start.time + unsolved.worst_time)),
        start_projection: out.start_projection,
        ignored: ignored.to_vec(),
        wall_time: clock.elapsed().as_secs_f64(),
    })
}

/// How a [`Simulation`] moves its model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Velocity-level time stepping at the model's time step.
    TimeStep,
    /// The event-driven method at this relative tolerance.
    Event(f64),
}

/// A model being run under the caller's control: its state and controls
/// can be read and set between calls, one time step or a stretch of time
/// at a time (the Python package's `Simulation`, and Rust's). Time
/// stepping keeps one stepper from call to call (its warm starts and
/// factorizations), so that steps taken one call at a time are the steps
/// of one run; setting the state or resetting starts it anew.
pub struct Simulation {
    model: Arc<Articulated>,
    ignored: Vec<String>,
    method: Method,
    start: Start,
    /// The state now (`start.time` is the time now).
    now: Start,
    /// What the run so far did.
    report: ArticulatedReport,
    /// The time stepper and the time it started at, once time stepping
    /// has begun from `now` (none before, or after the state was set).
    stepper: Option<(TreeStepper<'static>, f64)>,
}

impl Clone for Simulation {
    /// A copy of the model, state and report; its time stepper starts
    /// anew from the state at its next step (warm starts from nothing).
    fn clone(&self) -> Self {
        Simulation {
            model: Arc::clone(&self.model),
            ignored: self.ignored.clone(),
            method: self.method,
            start: self.start.clone(),
            now: self.now.clone(),
            report: self.report.clone(),
            stepper: None,
        }
    }
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("method", &self.method)
            .field("now", &self.now)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// A simulation of `model` (its MJCF file's `ignored` attributes for
    /// the report) at `qpos0`, at rest, controls zero.
    pub fn new(model: Articulated, ignored: Vec<String>, method: Method) -> Result<Self, String> {
        if let Method::Event(tol) = method {
            if !(tol.is_finite() && tol > 0.0) {
                return Err("tolerance: must be a finite number > 0".into());
            }
        }
        let start = start_of(&model, None)?;
        let mut sim = Simulation {
            report: empty_report(&model, &start, &ignored),
            now: start.clone(),
            start,
            model: Arc::new(model),
            ignored,
            method,
            stepper: None,
        };
        sim.reset(None)?;
        Ok(sim)
    }

    /// Back to a keyframe (by name or index) or to `qpos0` at rest; the
    /// report starts over.
    pub fn reset(&mut self, keyframe: Option<&str>) -> Result<(), String> {
        self.start = start_of(&self.model, keyframe)?;
        self.now = self.start.clone();
        self.stepper = None;
        self.report = empty_report(&self.model, &self.start, &self.ignored);
        Ok(())
    }

    /// The model.
    pub fn model(&self) -> &Articulated {
        &self.model
    }

    /// The coordinates now.
    pub fn qpos(&self) -> &[f64] {
        &self.now.qpos
    }

    /// The velocities now.
    pub fn qvel(&self) -> &[f64] {
        &self.now.qvel
    }

    /// The controls, held until set again.
    pub fn ctrl(&self) -> &[f64] {
        &self.now.ctrl
    }

    /// The time now, s.
    pub fn time(&self) -> f64 {
        self.now.time
    }

    /// Sets the coordinates (length `nq`, finite).
    pub fn set_qpos(&mut self, qpos: &[f64]) -> Result<(), String> {
        check("qpos", qpos, self.model.tree.nq())?;
        self.now.qpos.copy_from_slice(qpos);
        self.stepper = None;
        Ok(())
    }

    /// Sets the velocities (length `nv`, finite).
    pub fn set_qvel(&mut self, qvel: &[f64]) -> Result<(), String> {
        check("qvel", qvel, self.model.tree.nv())?;
        self.now.qvel.copy_from_slice(qvel);
        self.stepper = None;
        Ok(())
    }

    /// Sets the controls (one per actuator, finite).
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<(), String> {
        check("ctrl", ctrl, self.model.actuators.len())?;
        self.now.ctrl.copy_from_slice(ctrl);
        if let Some((stepper, _)) = &mut self.stepper {
            stepper.set_ctrl(ctrl).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// A body's world state now, by name.
    pub fn body(&self, name: &str) -> Result<BodyReport, String> {
        bodies(&self.model, &self.now.qpos, &self.now.qvel)
            .into_iter()
            .find(|b| b.name == name)
            .ok_or_else(|| format!("body: `{name}`: no such body"))
    }

    /// The report of the run so far (since the last reset).
    pub fn report(&self) -> &ArticulatedReport {
        &self.report
    }

    /// One time step of the model's time step (time stepping only).
    pub fn step(&mut self) -> Result<(), String> {
        match self.method {
            Method::TimeStep => self.run_steps(None),
            Method::Event(_) => {
                Err("step: one time step is for stepping=\"timestep\"; use advance".into())
            }
        }
    }

    /// Moves the model `duration` s on with the controls held.
    pub fn advance(&mut self, duration: f64) -> Result<(), String> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err("advance: the duration must be a finite number > 0".into());
        }
        let part = match self.method {
            Method::Event(tol) => run_event(&self.model, &self.now, duration, tol, &self.ignored)?,
            Method::TimeStep => return self.run_steps(Some(duration)),
        };
        self.absorb(part);
        Ok(())
    }

    /// One time step (`None`) or steps over `duration`, by the kept
    /// stepper (made from the state now when there is none). A step that
    /// fails ends the stretch: the report says why, and the next call
    /// starts a stepper anew from the state it left.
    fn run_steps(&mut self, duration: Option<f64>) -> Result<(), String> {
        let clock = Clock::now();
        let fresh = self.stepper.is_none();
        if fresh {
            let settings = StepSettings {
                time_step: self.model.timestep,
                output_every: self.model.timestep,
                ..StepSettings::default()
            };
            let made = TreeStepper::shared(Arc::clone(&self.model), settings).and_then(|mut s| {
                s.reset(&self.now.qpos, &self.now.qvel, &self.now.ctrl)?;
                Ok(s)
            });
            match made {
                Ok(s) => self.stepper = Some((s, self.now.time)),
                Err(e) => {
                    let mut part = empty_report(&self.model, &self.now, &self.ignored);
                    part.status = "failed".into();
                    part.reason = Some(e.to_string());
                    part.wall_time = clock.elapsed().as_secs_f64();
                    self.absorb(part);
                    return Ok(());
                }
            }
        }
        let Some((stepper, began)) = &mut self.stepper else {
            return Ok(());
        };
        let began = *began;
        let energy_start = if fresh {
            stepper.energy().unwrap_or(f64::NAN)
        } else {
            f64::NAN
        };
        let (steps_before, unsolved_before) =
            (stepper.totals().steps, stepper.totals().unsolved.steps);
        let t_before = stepper.time();
        let stepped = match duration {
            None => stepper.step().map(|_| ()),
            Some(d) => stepper.advance(d),
        };
        let reason = stepped
            .err()
            .map(|e| format!("at t = {}: {e}", began + t_before));
        let energy_end = stepper.energy().unwrap_or(f64::NAN);
        let totals = stepper.totals();
        let unsolved = &totals.unsolved;
        let part = ArticulatedReport {
            status: if reason.is_none() {
                "finished"
            } else {
                "failed"
            }
            .into(),
            reason,
            time: began + stepper.time(),
            steps: totals.steps - steps_before,
            qpos: stepper.qpos().to_vec(),
            qvel: stepper.qvel().to_vec(),
            energy: [energy_start, energy_end],
            max_penetration: totals.max_penetration,
            max_limit_violation: stepper.max_limit_violation(),
            unsolved_steps: unsolved.steps - unsolved_before,
            worst_unsolved: (unsolved.steps > unsolved_before)
                .then_some((unsolved.worst_error, began + unsolved.worst_time)),
            start_projection: if fresh {
                stepper.start_projection().cloned()
            } else {
                None
            },
            ignored: Vec::new(),
            wall_time: clock.elapsed().as_secs_f64(),
        };
        if part.status != "finished" {
            self.stepper = None;
        }
        self.absorb(part);
        Ok(())
    }

    /// Adds a stretch's report to the run's and moves the state on.
    fn absorb(&mut self, part: ArticulatedReport) {
        let r = &mut self.report;
        r.status.clone_from(&part.status);
        r.reason.clone_from(&part.reason);
        r.time = part.time;
        r.steps += part.steps;
        r.energy[1] = part.energy[1];
        r.max_penetration = r.max_penetration.max(part.max_penetration);
        r.max_limit_violation = r.max_limit_violation.max(part.max_limit_violation);
        r.unsolved_steps += part.unsolved_steps;
        if let Some((error, time)) = part.worst_unsolved {
            if r.worst_unsolved.is_none_or(|(worst, _)| error > worst) {
                r.worst_unsolved = Some((error, time));
            }
        }
        r.wall_time += part.wall_time;
        if r.steps == part.steps {
            // The first stretch: its start is the run's.
            r.energy[0] = part.energy[0];
            r.start_projection = part.start_projection;
        }
        r.qpos.clone_from(&part.qpos);
        r.qvel.clone_from(&part.qvel);
        self.now.qpos = part.qpos;
        self.now.qvel = part.qvel;
        self.now.time = part.time;
    }
}

/// The report of a run that has not moved yet.
fn empty_report(model: &Articulated, start: &Start, ignored: &[String]) -> ArticulatedReport {
    let energy = model
        .energy(
            &mut model.tree.workspace(),
            &model.joint_addresses(),
            &start.qpos,
            &start.qvel,
        )
        .unwrap_or(f64::NAN);
    ArticulatedReport {
        status: "finished".into(),
        reason: None,
        time: start.time,
        steps: 0,
        qpos: start.qpos.clone(),
        qvel: start.qvel.clone(),
        energy: [energy, energy],
        max_penetration: 0.0,
        max_limit_violation: 0.0,
        unsolved_steps: 0,
        worst_unsolved: None,
        start_projection: None,
        ignored: ignored.to_vec(),
        wall_time: 0.0,
    }
}

fn check(what: &str, x: &[f64], n: usize) -> Result<(), String> {
    if x.len() != n {
        return Err(format!("{what}: {} numbers, expected {n}", x.len()));
    }
    match x.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(format!("{what}[{i}]: not finite")),
        None => Ok(()),
    }
}
