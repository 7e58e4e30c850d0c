//! `zwang simulate SCENE [--json] [--csv FILE] [--plot FILE.png]
//! [--draw FILE.png|gif|svg [--draw-at T,...]]`, and alike `zwang
//! simulate MODEL.xml --duration T` (MuJoCo's MJCF) and `zwang simulate
//! --system NAME --duration T`.
//!
//! A spatial scene (`dimension = 3`) is run by [`space`].

mod motion;
mod space;
mod tree;

use crate::{emit, one_line, Loaded, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use clap::Args;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;
use zwang::run::Runnable;
use zwang_core::readable;
use zwang_draw::draw::space::NO_SVG;
use zwang_draw::draw::{Film, Format, MAX_STILLS};
use zwang_draw::plot::Trace;
use zwang_model::planar::PlanarModel;
use zwang_motion::report::{self, CsvWriter};
use zwang_motion::{
    simulate_islands, ContactSample, Event, Mechanism, Observer, Outcome, Settings, Status,
};

/// The most samples a run writes (`--csv`) or draws (`--plot`, `--draw`): beyond,
/// the CSV alone would take a gigabyte or more, and the run is refused
/// before it starts rather than filling the disk.
const MAX_SAMPLES: f64 = 1e7;

/// Runs a scene file (TOML, `docs/scene-format.md`) to its duration:
/// events (impacts, lift-off, stick, slip, rest, Painleve), final state,
/// energy and constraint drift. Exit 0 finished, 1 painleve or failed,
/// 2 malformed scene (or more than 1e7 samples to write or draw).
///
/// `MODEL.xml --duration T`: a MuJoCo MJCF file (docs/mjcf.md), read as
/// a kinematic tree in joint coordinates (MuJoCo's qpos and qvel) and
/// run from qpos0 at rest or `--keyframe K`: time-stepped at its `option
/// timestep` (0.002 s when absent) with rigid contacts, exact friction and
/// hard limits, or `--stepping event` at `--tolerance`; --draw FILE.png
/// or .gif draws its geoms as the run goes.
///
/// A spatial scene (`dimension = 3`) runs with the time stepper in space:
/// each moving body's position, orientation [w, x, y, z], velocity and
/// angular velocity (world), in the JSON and the CSV; --draw FILE.png or
/// .gif draws the bodies in space (orthographic, from +x, -y and above);
/// no --plot yet.
///
/// `--system NAME --duration T` (instead of a scene): a system in
/// generalized coordinates from the catalog of `zwang-generalized` (see
/// `zwang compare --system`), from its initial state, with the default
/// settings; its coordinates are reported as one-dimensional bodies.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct SimulateArgs {
    /// The scene file (`-` for standard input).
    #[arg(required_unless_present = "system", conflicts_with = "system")]
    scene: Option<PathBuf>,
    /// A system in generalized coordinates from the catalog, by name.
    #[arg(long, value_name = "NAME", requires = "duration")]
    system: Option<String>,
    /// How long to run, s: required with `--system` or an MJCF file
    /// (`MODEL.xml`); on a TOML scene it replaces `scene.duration` (the
    /// report says so).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// The time stepper's step, s: replaces a time-stepped scene's
    /// `solver.time_step` (an MJCF file's `option timestep`); the report
    /// says so.
    #[arg(
        long,
        value_name = "H",
        conflicts_with = "system",
        allow_negative_numbers = true
    )]
    time_step: Option<f64>,
    /// Print exactly one JSON object: status, time, steps, events, final,
    /// energy, max_constraint_drift (and reason, stats).
    #[arg(long)]
    json: bool,
    /// Write the trajectory as the run goes: one row per output sample
    /// and per event (at most 1e7 samples: duration / output_every).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Draw positions, energy and contact forces against time (PNG; each
    /// curve decimated to its extremes, so long runs fit in memory).
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
    /// Draw the bodies (scene and MJCF files), by the file's extension:
    /// `.png` the final state (or the instants of `--draw-at`, side by
    /// side), `.gif` or `.svg` an animation of the run (at most 300
    /// frames; the SVG planar scenes only).
    #[arg(long, value_name = "FILE")]
    draw: Option<PathBuf>,
    /// With `--draw FILE.png`: the instants to draw, s (the sample nearest
    /// each; at most 16).
    #[arg(long, value_name = "T,...", value_delimiter = ',', requires = "draw")]
    draw_at: Vec<f64>,
    /// MJCF files: start from this keyframe (a key's name, or its 0-based
    /// index), its controls held; without it, `qpos0` at rest.
    #[arg(long, value_name = "K", conflicts_with = "system")]
    keyframe: Option<String>,
    /// MJCF files: `timestep` (default; at the file's time step) or
    /// `event` (the event-driven method at `--tolerance`).
    #[arg(long, value_enum, value_name = "METHOD", conflicts_with = "system")]
    stepping: Option<tree::TreeStepping>,
    /// MJCF files with `--stepping event`: the integrator's relative
    /// tolerance (default 1e-9).
    #[arg(
        long,
        value_name = "TOL",
        conflicts_with = "system",
        allow_negative_numbers = true
    )]
    tolerance: Option<f64>,
}

pub(crate) fn run(args: &SimulateArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let format = match args.draw.as_deref().map(Format::of).transpose() {
        Ok(format) => format,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    if let (Some(name), Some(duration)) = (&args.system, args.duration) {
        if args.draw.is_some() {
            emit(err, "--draw: only for scene files, not --system\n");
            return EXIT_BAD_INPUT;
        }
        let system = match zwang_generalized::catalog::by_name(name) {
            Ok(s) => s,
            Err(e) => {
                emit(err, &one_line("", &e.to_string()));
                return EXIT_BAD_INPUT;
            }
        };
        if !(duration.is_finite() && duration > 0.0) {
            emit(err, "duration: must be a finite number > 0");
            return EXIT_BAD_INPUT;
        }
        let job = Job {
            model: &system,
            planar: None,
            title: name,
            run: Box::new(|observer, sampled| {
                let mut settings = Settings::default();
                settings.output_every = if sampled {
                    settings.output_every
                } else {
                    duration
                };
                simulate_islands(&system, &[], duration, &settings, observer)
            }),
        };
        return run_model(&job, args, out, err);
    }
    let Some(path) = &args.scene else {
        emit(
            err,
            "error: give a scene file or --system NAME --duration T",
        );
        return EXIT_BAD_INPUT;
    };
    let loaded = crate::load_any_scene(path, args.duration, args.time_step, err);
    if !matches!(loaded, None | Some(Loaded::Articulated(..))) {
        let given = [
            ("--keyframe", args.keyframe.is_some()),
            ("--stepping", args.stepping.is_some()),
            ("--tolerance", args.tolerance.is_some()),
        ];
        if let Some((flag, _)) = given.into_iter().find(|(_, given)| *given) {
            emit(
                err,
                &format!("{flag}: only for MJCF files (a scene sets it in [solver])\n"),
            );
            return EXIT_BAD_INPUT;
        }
    }
    let scene = match loaded {
        None => return EXIT_BAD_INPUT,
        Some(Loaded::Spatial(scene, model)) => return space::run(&scene, &model, args, out, err),
        Some(Loaded::Articulated(mjcf, duration)) => {
            let title = if mjcf.name.is_empty() {
                "model"
            } else {
                mjcf.name.as_str()
            };
            return tree::run(&mjcf.model, &mjcf.ignored, title, duration, args, out, err);
        }
        Some(Loaded::Planar(scene)) => scene,
    };
    if let Err(e) = check_draw_at(format, &args.draw_at, scene.duration) {
        emit(err, &one_line("", &e));
        return EXIT_BAD_INPUT;
    }
    let samples = scene.duration / scene.output_every;
    let sampled = args.csv.is_some() || args.plot.is_some() || args.draw.is_some();
    if sampled && samples > MAX_SAMPLES {
        emit(
            err,
            &format!(
                "scene.output_every: {:e} s gives {samples:.0e} samples over {} s; \
                 the most with --csv, --plot or --draw is {MAX_SAMPLES:e}\n",
                scene.output_every, scene.duration
            ),
        );
        return EXIT_BAD_INPUT;
    }
    let title = scene.name.clone().unwrap_or_else(|| "scene".into());
    // What the steppers cannot run (joints the time stepper cannot hold,
    // a mass that is not diagonal) is refused up front, as a malformed
    // scene is.
    let runnable = match Runnable::new(scene) {
        Ok(runnable) => runnable,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let model = &runnable.model;
    // Without samples wanted, sample only the ends.
    let run: Runner<'_> = Box::new(|observer, sampled| runnable.run(observer, sampled));
    let job = Job {
        model,
        planar: format.map(|format| (model, format)),
        title: &title,
        run,
    };
    run_model(&job, args, out, err)
}

/// `--draw-at`: only with a PNG, at most [`MAX_STILLS`] instants, each in
/// the run.
fn check_draw_at(format: Option<Format>, times: &[f64], duration: f64) -> Result<(), String> {
    if times.is_empty() {
        return Ok(());
    }
    if format != Some(Format::Png) {
        return Err("--draw-at: only with --draw FILE.png".into());
    }
    if times.len() > MAX_STILLS {
        return Err(format!(
            "--draw-at: {} instants; the most is {MAX_STILLS}",
            times.len()
        ));
    }
    match times
        .iter()
        .find(|t| !(t.is_finite() && (0.0..=duration).contains(*t)))
    {
        Some(t) => Err(format!(
            "--draw-at: {t} s is not in the run, from 0 to {duration} s"
        )),
        None => Ok(()),
    }
}

/// `--draw` of a run in space: a PNG or a GIF (an SVG is planar), with
/// its `--draw-at` instants in the run of `duration`.
fn spatial_draw_format(args: &SimulateArgs, duration: f64) -> Result<Option<Format>, String> {
    let format = match args.draw.as_deref().map(Format::of).transpose()? {
        Some(Format::Svg) => return Err(NO_SVG.to_string()),
        format => format,
    };
    check_draw_at(format, &args.draw_at, duration)?;
    Ok(format)
}

/// A run of a mechanism given an observer and whether it wants samples
/// between the ends.
type Runner<'a> = Box<dyn Fn(&mut dyn Observer, bool) -> Outcome + 'a>;

/// A mechanism to run, its title, and how (event-driven, by its
/// independent parts, or time-stepped, to its duration).
struct Job<'a, M: Mechanism> {
    model: &'a M,
    /// The planar model to draw, and how (`--draw`).
    planar: Option<(&'a PlanarModel, Format)>,
    title: &'a str,
    run: Runner<'a>,
}

/// Runs a mechanism, writes the CSV and the plot asked for, prints the
/// report; returns the exit code.
fn run_model<M: Mechanism>(
    job: &Job<'_, M>,
    args: &SimulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (model, title) = (job.model, job.title);
    let csv = match &args.csv {
        None => None,
        Some(path) => {
            match File::create(path).and_then(|f| CsvWriter::new(model, BufWriter::new(f))) {
                Ok(csv) => Some(csv),
                Err(e) => return cannot_write(err, "csv", path, e),
            }
        }
    };
    // A progress bar on a terminal, never with --json.
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {msg} [{elapsed_precise}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut outputs = Outputs {
        csv,
        trace: args.plot.is_some().then(|| Trace::new(model)),
        film: job
            .planar
            .map(|(planar, format)| Film::new(planar, format, &args.draw_at)),
        bar: bar.clone(),
    };
    let sampled = outputs.wants_samples();
    let outcome = (job.run)(&mut outputs, sampled);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let (Some(path), Some(csv)) = (&args.csv, outputs.csv) {
        if let Err(e) = csv.finish() {
            return cannot_write(err, "csv", path, e);
        }
    }
    if let (Some(path), Some(trace)) = (&args.plot, &outputs.trace) {
        if let Err(e) = trace.write_png(title, path) {
            return cannot_write(err, "plot", path, e);
        }
    }
    if let (Some(path), Some(film)) = (&args.draw, &outputs.film) {
        if let Err(e) = film.write(title, path) {
            return cannot_write(err, "draw", path, e);
        }
    }
    let text = report_of(
        args,
        || report::summary(model, &outcome),
        || report::text(model, &outcome),
    );
    conclude(out, err, &text, &outcome)
}

/// What the command line set in a scene file (`--duration`,
/// `--time-step`), by the key each replaced.
fn overrides(args: &SimulateArgs) -> Vec<(&'static str, f64)> {
    if args.system.is_some() {
        return Vec::new();
    }
    [
        ("scene.duration", args.duration),
        ("solver.time_step", args.time_step),
    ]
    .into_iter()
    .filter_map(|(key, x)| x.map(|x| (key, x)))
    .collect()
}

/// A run's report, the JSON line or the text, saying what the command
/// line set: the JSON's `overrides` (by key), a line after the text's
/// first.
pub(crate) fn report_of(
    args: &SimulateArgs,
    json: impl FnOnce() -> Value,
    text: impl FnOnce() -> String,
) -> String {
    let set = overrides(args);
    if args.json {
        let mut summary = json();
        if let (Value::Object(map), false) = (&mut summary, set.is_empty()) {
            let keys = set.iter().map(|&(key, x)| (key.to_string(), x.into()));
            map.insert("overrides".into(), Value::Object(keys.collect()));
        }
        format!("{summary}\n")
    } else {
        let mut text = text();
        if !set.is_empty() {
            let said: Vec<String> = set
                .iter()
                .map(|&(key, x)| format!("{key} = {} s", readable(x)))
                .collect();
            let at = text.find('\n').map_or(text.len(), |i| i + 1);
            text.insert_str(
                at,
                &format!("  set on the command line: {}\n", said.join(", ")),
            );
        }
        text
    }
}

/// Prints a run's report (`text`) on stdout and, when steps ended with
/// their contact problem unsolved, one warning line on stderr; returns
/// the exit code of the run's status.
pub(crate) fn conclude(
    out: &mut dyn Write,
    err: &mut dyn Write,
    text: &str,
    outcome: &Outcome,
) -> i32 {
    emit(out, text);
    if outcome.unsolved.steps > 0 {
        let line = format!("warning: {}\n", report::contact_line(outcome));
        emit(err, &line);
    }
    match outcome.status {
        Status::Finished => EXIT_OK,
        Status::Painleve | Status::Failed => EXIT_UNSOLVED,
    }
}

/// Reports a file that cannot be written (`what`: `csv`, `plot`, `draw`) on one
/// line; returns the exit code.
fn cannot_write(err: &mut dyn Write, what: &str, path: &Path, e: impl std::fmt::Display) -> i32 {
    let message = format!("{what}: cannot write {}: {e}", path.display());
    emit(err, &one_line("", &message));
    EXIT_BAD_INPUT
}

/// What `zwang simulate` does with a run as it goes: the CSV written row by
/// row, the plot's decimated trace, the drawing's frames, the progress
/// bar. Its memory does not grow with the run; without `--csv`, `--plot`
/// and `--draw` it wants no samples.
struct Outputs<'m, M: Mechanism> {
    csv: Option<CsvWriter<'m, M, BufWriter<File>>>,
    trace: Option<Trace<'m, M>>,
    film: Option<Film<'m>>,
    bar: Option<indicatif::ProgressBar>,
}

impl<M: Mechanism> Observer for Outputs<'_, M> {
    fn wants_samples(&self) -> bool {
        self.csv.is_some() || self.trace.is_some() || self.film.is_some()
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        if let Some(csv) = &mut self.csv {
            csv.sample(t, q, v, contacts);
        }
        if let Some(trace) = &mut self.trace {
            trace.sample(t, q, v, contacts);
        }
        if let Some(film) = &mut self.film {
            film.sample(t, q, v, contacts);
        }
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        if let Some(csv) = &mut self.csv {
            csv.event(event, contacts);
        }
        if let Some(trace) = &mut self.trace {
            trace.event(event, contacts);
        }
    }
    fn progress(&mut self, t: f64, duration: f64) {
        if let Some(bar) = &self.bar {
            bar.set_position((1000.0 * t / duration) as u64);
            bar.set_message(format!("t = {t:.4} s"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{run_with, EXIT_BAD_INPUT, EXIT_OK};

    /// A pendulum under the time stepper (the scene has a shape): the
    /// joint holds its bob on its circle at every step's end, to the
    /// projection's tolerance, and the run finishes.
    #[test]
    fn a_joint_runs_under_the_time_stepper() {
        let path = std::env::temp_dir().join(format!("zwang-joint-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            r#"
            [scene]
            dimension = 2
            duration = 1.0
            [[body]]
            name = "floor"
            kind = "fixed"
            shape = { kind = "halfplane", normal = [0.0, 1.0] }
            [[body]]
            name = "bob"
            kind = "particle"
            mass = 1.0
            position = [1.0, 2.0]
            [[joint]]
            kind = "distance"
            bodies = ["ground", "bob"]
            anchors = [[0.0, 2.0], [0.0, 0.0]]
            "#,
        )
        .unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args = [
            "zwang".to_string(),
            "simulate".into(),
            "--json".into(),
            path.display().to_string(),
        ];
        let code = run_with(args, &mut out, &mut err);
        assert_eq!(code, EXIT_OK, "{}", String::from_utf8_lossy(&err));
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let p = &v["final"]["bob"]["position"];
        let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
        assert!((x.hypot(y - 2.0) - 1.0).abs() < 1e-8, "{x} {y}");
        std::fs::remove_file(&path).unwrap();
    }

    /// Appell-Hamel's particle from the catalog (m = 1, g = 9.81, a = 0.5,
    /// horizontal velocity (3, 4) at the origin): its horizontal speed
    /// falls as `v = 5 - g a / (1 + a^2) t` along (0.6, 0.8), and
    /// `z' = a v` (Chetaev's rule; the closed form of the catalog's docs).
    #[test]
    fn a_catalog_system_runs_by_name() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args = [
            "zwang",
            "simulate",
            "--system",
            "appell_hamel",
            "--duration",
            "0.5",
            "--json",
        ];
        let code = run_with(args, &mut out, &mut err);
        assert_eq!(code, EXIT_OK, "{}", String::from_utf8_lossy(&err));
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let (t, vdot) = (0.5, -9.81 * 0.5 / 1.25);
        let speed = 5.0 + vdot * t;
        let path = 5.0 * t + 0.5 * vdot * t * t;
        let fin = &v["final"];
        for (name, x, xd) in [
            ("x", 0.6 * path, 0.6 * speed),
            ("y", 0.8 * path, 0.8 * speed),
            ("z", 0.5 * path, 0.5 * speed),
        ] {
            let got = fin[name]["position"][0].as_f64().unwrap();
            let rate = fin[name]["velocity"][0].as_f64().unwrap();
            assert!((got - x).abs() < 1e-9, "{name}: {got} vs {x}");
            assert!((rate - xd).abs() < 1e-9, "{name}': {rate} vs {xd}");
        }
        assert_eq!(v["time"], 0.5);
        // Without a duration, or with a bad one: exit 2, one line.
        for bad in [
            &["zwang", "simulate", "--system", "appell_hamel"][..],
            &[
                "zwang",
                "simulate",
                "--system",
                "appell_hamel",
                "--duration",
                "-1",
            ],
            &["zwang", "simulate", "--system", "nope", "--duration", "1"],
        ] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            assert_eq!(run_with(bad, &mut out, &mut err), EXIT_BAD_INPUT, "{bad:?}");
            assert!(out.is_empty());
        }
    }
}
