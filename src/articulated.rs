//! Running an articulated model (a kinematic tree in joint coordinates,
//! as an MJCF file describes it) and its report: the start a keyframe
//! names, the event-driven run, and the JSON of `docs/mjcf.md` that the
//! command line prints and the Python package returns.

use std::time::Instant as Clock;

use serde_json::{json, Map, Value};
use zwang_model::articulated::{Articulated, ArticulatedMechanism};
use zwang_model::spatial::rotation::cross;
use zwang_motion::{simulate, ContactSample, Observer, Settings, Status};

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
    let found = model
        .keyframes
        .iter()
        .position(|k| !k.name.is_empty() && k.name == key)
        .or_else(|| {
            key.parse::<usize>()
                .ok()
                .filter(|&i| i < model.keyframes.len())
        });
    let Some(i) = found else {
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
        if let Some((error, time)) = self.worst_unsolved {
            out["worst_unsolved"] = json!({"error": error, "time": time});
        }
        out
    }
}

/// The largest limit violation of the samples it sees.
struct Limits<'a> {
    mechanism: &'a ArticulatedMechanism,
    worst: f64,
}

impl Observer for Limits<'_> {
    fn sample(&mut self, _t: f64, q: &[f64], _v: &[f64], _contacts: &[ContactSample]) {
        self.worst = self.worst.max(self.mechanism.limit_violation(q));
    }
}

/// The samples an event-driven run checks the limits at.
const LIMIT_SAMPLES: f64 = 10_000.0;

/// Runs `model` from `start` for `duration` by the event-driven method at
/// relative `tolerance` (the absolute one a hundredth of it). Joint limits
/// are its contacts; `max_limit_violation` is measured at 10,000 samples
/// of the run and at its end.
pub fn run_event(
    model: &Articulated,
    start: &Start,
    duration: f64,
    tolerance: f64,
    ignored: &[String],
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
    let mut limits = Limits {
        mechanism: &mechanism,
        worst: 0.0,
    };
    let out = simulate(&mechanism, duration, &settings, &mut limits);
    let finished = out.status == Status::Finished;
    Ok(ArticulatedReport {
        status: if finished { "finished" } else { "failed" }.into(),
        reason: out.reason.clone(),
        time: start.time + out.time,
        steps: out.steps,
        max_limit_violation: limits.worst.max(mechanism.limit_violation(&out.q)),
        qpos: out.q,
        qvel: out.v,
        energy: [out.energy_initial, out.energy_final],
        max_penetration: 0.0,
        unsolved_steps: 0,
        worst_unsolved: None,
        ignored: ignored.to_vec(),
        wall_time: clock.elapsed().as_secs_f64(),
    })
}
