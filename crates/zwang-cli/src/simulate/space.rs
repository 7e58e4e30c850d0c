//! `zwang simulate` on a spatial scene (`dimension = 3`): the time
//! stepper in space, its JSON, text and CSV. Body states are what users
//! see ([`SpatialModel::body_state`]: the body frame's orientation
//! `[w, x, y, z]`, world velocities), never the stepper's coordinates (the
//! principal frames); fixed bodies are not listed. `--draw` draws the
//! bodies in space (PNG or GIF, [`zwang_draw::draw::space`]); `--plot`
//! is planar for now.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use serde_json::{json, Map, Value};
use zwang::run::{space_event_settings_of, space_step_settings_of};
use zwang_core::{readable, readable_at, readable_vec};
use zwang_draw::draw::space::Film;
use zwang_model::spatial::SpatialModel;
use zwang_motion::report;
use zwang_motion::{
    simulate, simulate_space, ContactSample, Observer, Outcome, SpaceStepper, Status,
};
use zwang_scene::{SpatialScene, Stepping};

use super::motion::Motions;
use super::{cannot_write, conclude, report_of, spatial_draw_format, SimulateArgs, MAX_SAMPLES};
use crate::{emit, one_line, EXIT_BAD_INPUT};

/// Runs a spatial scene (its model built); returns the exit code.
pub(super) fn run(
    scene: &SpatialScene,
    model: &SpatialModel,
    args: &SimulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if args.plot.is_some() {
        emit(err, "--plot: 3D plots are not built yet\n");
        return EXIT_BAD_INPUT;
    }
    let format = match spatial_draw_format(args, scene.duration) {
        Ok(format) => format,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let samples = scene.duration / scene.output_every;
    if (args.csv.is_some() || format.is_some()) && samples > MAX_SAMPLES {
        emit(
            err,
            &format!(
                "scene.output_every: {:e} s gives {samples:.0e} samples over {} s; \
                 the most with --csv or --draw is {MAX_SAMPLES:e}\n",
                scene.output_every, scene.duration
            ),
        );
        return EXIT_BAD_INPUT;
    }
    let mut settings = space_step_settings_of(scene);
    // What the stepper cannot run is refused up front, as a malformed
    // scene is.
    let event = scene.solver.stepping == Stepping::Event;
    if !event {
        if let Err(e) = SpaceStepper::new(model, settings.clone()) {
            emit(err, &one_line("", &e.to_string()));
            return EXIT_BAD_INPUT;
        }
    }
    let csv = match &args.csv {
        None => None,
        Some(path) => match File::create(path).and_then(|f| Csv::new(model, BufWriter::new(f))) {
            Ok(csv) => Some(csv),
            Err(e) => return cannot_write(err, "csv", path, e),
        },
    };
    let mut outputs = Outputs {
        csv,
        film: format.map(|format| Film::new(model, format, &args.draw_at)),
        motions: (!args.json).then(|| Motions::new(model, moving(model).collect())),
    };
    if !outputs.wants_samples() {
        // Without samples wanted, sample only the ends.
        settings.output_every = scene.duration;
    }
    let outcome = if event {
        let mut events = space_event_settings_of(scene);
        events.output_every = settings.output_every;
        simulate(model, scene.duration, &events, &mut outputs)
    } else {
        // On rayon's pool as a whole: called from outside it, each step's
        // parallel stages would be handed to the pool and waited for.
        rayon::scope(|_| simulate_space(model, scene.duration, &settings, &mut outputs))
    };
    if let (Some(path), Some(csv)) = (&args.csv, outputs.csv) {
        if let Err(e) = csv.finish() {
            return cannot_write(err, "csv", path, e);
        }
    }
    if let (Some(path), Some(film)) = (&args.draw, &outputs.film) {
        let title = scene.name.as_deref().unwrap_or("scene");
        if let Err(e) = film.write(title, path) {
            return cannot_write(err, "draw", path, e);
        }
    }
    let motions = outputs.motions.as_ref();
    let report = report_of(
        args,
        || summary(model, &outcome),
        || text(model, &outcome, motions),
    );
    conclude(out, err, &report, &outcome)
}

/// What a run in space does as it goes: the CSV written row by row, the
/// drawing's frames kept. Without either it wants no samples.
struct Outputs<'m> {
    csv: Option<Csv<'m, BufWriter<File>>>,
    film: Option<Film<'m>>,
    /// The text report's measures along the motion (not with `--json`).
    motions: Option<Motions<'m>>,
}

impl Observer for Outputs<'_> {
    fn wants_samples(&self) -> bool {
        self.csv.is_some() || self.film.is_some() || self.motions.is_some()
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        if let Some(motions) = &mut self.motions {
            motions.sample(t, q, v);
        }
        if let Some(csv) = &mut self.csv {
            csv.sample(t, q, v, contacts);
        }
        if let Some(film) = &mut self.film {
            film.sample(t, q, v, contacts);
        }
    }
}

/// The moving bodies' indices, in file order.
fn moving(model: &SpatialModel) -> impl Iterator<Item = usize> + '_ {
    (0..model.bodies().len()).filter(|&b| model.mover_of(b).is_some())
}

/// Every moving body's state at `(q, v)`: `position`, `orientation`,
/// `velocity`, `angular_velocity`, by name.
fn bodies(model: &SpatialModel, q: &[f64], v: &[f64]) -> Value {
    let mut map = Map::new();
    for b in moving(model) {
        let s = model.body_state(b, q, v);
        map.insert(
            model.bodies()[b].name.clone(),
            json!({
                "position": s.position,
                "orientation": s.orientation,
                "velocity": s.velocity,
                "angular_velocity": s.angular_velocity,
            }),
        );
    }
    Value::Object(map)
}

/// The JSON of `zwang simulate --json` for a spatial scene: the planar
/// summary's keys (`events` empty: the time stepper locates none;
/// `max_constraint_drift` the joints' largest error at a step's end,
/// before its projection), the body states in space.
pub(crate) fn summary(model: &SpatialModel, outcome: &Outcome) -> Value {
    let bodies = bodies(model, &outcome.q, &outcome.v);
    Value::Object(report::summary_with(outcome, json!([]), bodies))
}

/// A short readable report of a run in space: six significant digits,
/// what is within round-off of the run's scale as `0`.
fn text(model: &SpatialModel, outcome: &Outcome, motions: Option<&Motions>) -> String {
    let mut scales = report::Scales::of(model, outcome);
    let (mut q0, mut v0) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    model.initial_state(&mut q0, &mut v0);
    for (q, v) in [(&q0, &v0), (&outcome.q, &outcome.v)] {
        for b in moving(model) {
            let w = model.body_state(b, q, v).angular_velocity;
            scales.rate = w.iter().fold(scales.rate, |m, w| m.max(w.abs()));
        }
    }
    let status = match outcome.status {
        Status::Finished => "finished".to_string(),
        Status::Painleve => "stopped: Painleve".to_string(),
        Status::Failed => format!("failed: {}", outcome.reason.as_deref().unwrap_or("?")),
    };
    let mut s = format!(
        "{status} at t = {} s after {} steps\n",
        readable(outcome.time),
        outcome.steps
    );
    if let Some(line) = report::start_line(outcome) {
        s.push_str(&format!("  {line}\n"));
    }
    for (i, b) in moving(model).enumerate() {
        let st = model.body_state(b, &outcome.q, &outcome.v);
        let name = &model.bodies()[b].name;
        s.push_str(&format!(
            "  {name}: position {}, orientation {}, velocity {}, angular velocity {}\n",
            readable_vec(&st.position, scales.length),
            readable_vec(&st.orientation, 1.0),
            readable_vec(&st.velocity, scales.speed),
            readable_vec(&st.angular_velocity, scales.rate)
        ));
        if let Some(line) = motions.and_then(|m| m.line(i)) {
            s.push_str(&format!("  {name}: {line}\n"));
        }
    }
    s.push_str(&format!(
        "  energy {} -> {} J, deepest overlap of two shapes {} m\n",
        readable_at(outcome.energy_initial, scales.energy),
        readable_at(outcome.energy_final, scales.energy),
        readable_at(outcome.max_penetration, scales.length)
    ));
    if outcome.stats.stages.is_some() {
        s.push_str(&format!("  {}\n", report::contact_line(outcome)));
    }
    s
}

/// The CSV header of a spatial scene: `t`, then per moving body `NAME.x`,
/// `NAME.y`, `NAME.z`, `NAME.qw`, `NAME.qx`, `NAME.qy`, `NAME.qz`,
/// `NAME.vx`, `NAME.vy`, `NAME.vz`, `NAME.wx`, `NAME.wy`, `NAME.wz`.
pub(crate) fn csv_header(model: &SpatialModel) -> Vec<String> {
    const COLUMNS: [&str; 13] = [
        "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
    ];
    let mut h = vec!["t".to_string()];
    for b in moving(model) {
        let name = &model.bodies()[b].name;
        h.extend(COLUMNS.iter().map(|c| format!("{name}.{c}")));
    }
    h
}

/// An observer that writes each sample as a CSV row as it comes
/// ([`report::CsvLines`]).
struct Csv<'m, W: Write> {
    model: &'m SpatialModel,
    lines: report::CsvLines<W>,
}

impl<'m, W: Write> Csv<'m, W> {
    fn new(model: &'m SpatialModel, out: W) -> io::Result<Self> {
        Ok(Csv {
            model,
            lines: report::CsvLines::new(out, &csv_header(model))?,
        })
    }

    fn finish(self) -> io::Result<W> {
        self.lines.finish()
    }
}

impl<W: Write> Observer for Csv<'_, W> {
    fn wants_samples(&self) -> bool {
        true
    }

    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], _: &[ContactSample]) {
        let model = self.model;
        self.lines.write(t, |line| {
            for b in moving(model) {
                let s = model.body_state(b, q, v);
                let values = s
                    .position
                    .iter()
                    .chain(&s.orientation)
                    .chain(&s.velocity)
                    .chain(&s.angular_velocity);
                for x in values {
                    line.push(',');
                    line.push_str(&x.to_string());
                }
            }
        });
    }
}
