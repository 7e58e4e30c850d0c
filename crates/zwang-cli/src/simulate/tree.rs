//! `zwang simulate MODEL.xml`: a MuJoCo model as a kinematic tree in
//! joint coordinates (`docs/mjcf.md`), from `qpos0` at rest or a
//! keyframe, time-stepped at the file's time step or by the event-driven
//! method; the contract's JSON, a text summary, a CSV of the trajectory
//! (`t`, `qpos`, `qvel` at every step, or at 10,000 samples of an
//! event-driven run, written as the run goes), and `--draw` (PNG or GIF)
//! of the model's geoms as the run goes
//! ([`zwang_draw::draw::space::TreeFilm`]).

use std::fs::File;
use std::io::{BufWriter, Write};

use zwang::articulated::{run_event_with, run_steps_with, start_of, ArticulatedReport};
use zwang_core::readable;
use zwang_draw::draw::space::TreeFilm;
use zwang_model::articulated::Articulated;
use zwang_motion::{ContactSample, NoObserver, Observer};

use super::{cannot_write, spatial_draw_format, SimulateArgs};
use crate::{emit, one_line, EXIT_BAD_INPUT};

/// The event-driven method's relative tolerance when none is given.
const TOLERANCE: f64 = 1e-9;

/// How an articulated model is stepped (`--stepping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TreeStepping {
    /// Velocity-level time stepping at the file's time step.
    Timestep,
    /// The event-driven method at `--tolerance`.
    Event,
}

/// Runs `model` (read from an MJCF file, `ignored` its attributes read
/// past, `title` its name for pictures) for `duration`; returns the exit
/// code.
pub(super) fn run(
    model: &Articulated,
    ignored: &[String],
    title: &str,
    duration: f64,
    args: &SimulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if args.plot.is_some() {
        emit(err, "--plot: not built yet for MJCF models\n");
        return EXIT_BAD_INPUT;
    }
    if !(duration.is_finite() && duration > 0.0) {
        emit(err, "--duration: must be a finite number > 0\n");
        return EXIT_BAD_INPUT;
    }
    let format = match spatial_draw_format(args, duration) {
        Ok(format) => format,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let start = match start_of(model, args.keyframe.as_deref()) {
        Ok(start) => start,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let stepping = args.stepping.unwrap_or(TreeStepping::Timestep);
    if stepping == TreeStepping::Event && args.time_step.is_some() {
        emit(err, "--time-step: only with --stepping timestep\n");
        return EXIT_BAD_INPUT;
    }
    if let Some(tol) = args.tolerance {
        if stepping != TreeStepping::Event {
            emit(err, "--tolerance: only with --stepping event\n");
            return EXIT_BAD_INPUT;
        }
        if !(tol.is_finite() && tol > 0.0) {
            emit(err, "--tolerance: must be a finite number > 0\n");
            return EXIT_BAD_INPUT;
        }
    }
    let film = format.map(|format| TreeFilm::new(model, format, &args.draw_at));
    let csv = match &args.csv {
        Some(path) => match Rows::create(path, model) {
            Ok(rows) => Some(rows),
            Err(e) => return cannot_write(err, "csv", path, e),
        },
        None => None,
    };
    let mut outputs = Outputs { film, csv };
    let observer: &mut dyn Observer = if outputs.film.is_some() || outputs.csv.is_some() {
        &mut outputs
    } else {
        &mut NoObserver
    };
    let report = match stepping {
        TreeStepping::Event => {
            let tolerance = args.tolerance.unwrap_or(TOLERANCE);
            run_event_with(model, &start, duration, tolerance, ignored, observer)
        }
        TreeStepping::Timestep => {
            run_steps_with(model, &start, duration, args.time_step, ignored, observer)
        }
    };
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            emit(err, &one_line("", &e));
            return EXIT_BAD_INPUT;
        }
    };
    if let (Some(path), Some(csv)) = (&args.csv, outputs.csv) {
        if let Err(e) = csv.finish() {
            return cannot_write(err, "csv", path, e);
        }
    }
    if let (Some(path), Some(film)) = (&args.draw, &outputs.film) {
        if let Err(e) = film.write(title, path) {
            return cannot_write(err, "draw", path, e);
        }
    }
    if args.json {
        emit(out, &format!("{}\n", report.to_json(model)));
    } else {
        emit(out, &summary(&report));
    }
    if report.unsolved_steps > 0 {
        emit(
            err,
            &format!(
                "warning: {} {} ended above the contact tolerance\n",
                report.unsolved_steps,
                if report.unsolved_steps == 1 {
                    "step"
                } else {
                    "steps"
                }
            ),
        );
    }
    if report.status == "finished" {
        0
    } else {
        1
    }
}

/// What a run writes as it goes: the pictures' frames, the CSV's rows.
struct Outputs<'m> {
    film: Option<TreeFilm<'m>>,
    csv: Option<Rows>,
}

impl Observer for Outputs<'_> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        if let Some(film) = &mut self.film {
            film.sample(t, q, v, contacts);
        }
        if let Some(csv) = &mut self.csv {
            csv.sample(t, q, v);
        }
    }
}

/// The trajectory as CSV (header: `t`, `qpos[i]`, `qvel[i]`), a row per
/// sample written as it comes: the memory does not grow with the run. The
/// first write error is kept and returned by [`Rows::finish`].
struct Rows {
    w: BufWriter<File>,
    error: Option<std::io::Error>,
}

impl Rows {
    fn create(path: &std::path::Path, model: &Articulated) -> std::io::Result<Rows> {
        let mut w = BufWriter::new(File::create(path)?);
        let mut header = vec!["t".to_string()];
        header.extend((0..model.tree.nq()).map(|i| format!("qpos[{i}]")));
        header.extend((0..model.tree.nv()).map(|i| format!("qvel[{i}]")));
        writeln!(w, "{}", header.join(","))?;
        Ok(Rows { w, error: None })
    }

    fn sample(&mut self, t: f64, q: &[f64], v: &[f64]) {
        if self.error.is_some() {
            return;
        }
        let mut write = || -> std::io::Result<()> {
            write!(self.w, "{t:e}")?;
            for x in q.iter().chain(v) {
                write!(self.w, ",{x:e}")?;
            }
            writeln!(self.w)
        };
        if let Err(e) = write() {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.w.flush(),
        }
    }
}

/// The text summary: status, time, energy, the physical errors, the
/// attributes ignored.
fn summary(r: &ArticulatedReport) -> String {
    let mut s = format!(
        "status: {}{}\ntime: {} s, {} steps\nenergy: {} J -> {} J\n\
         max_penetration: {} m\nmax_limit_violation: {}\nunsolved_steps: {}\n",
        r.status,
        r.reason
            .as_deref()
            .map(|x| format!(" ({x})"))
            .unwrap_or_default(),
        readable(r.time),
        r.steps,
        readable(r.energy[0]),
        readable(r.energy[1]),
        readable(r.max_penetration),
        readable(r.max_limit_violation),
        r.unsolved_steps,
    );
    if let Some(p) = &r
        .start_projection
        .as_ref()
        .filter(|p| p.position_change == 0.0)
    {
        // Nothing moved: what overlaps, no displacement corrects.
        s.push_str(&format!(
            "start: {} m at {}, left as given (no joint moves the geoms apart)\n",
            readable(p.violation),
            p.at,
        ));
    } else if let Some(p) = &r.start_projection {
        s.push_str(&format!(
            "start: moved into its limits and apart (by {} at {}): positions by up to {}, \
             velocities by up to {}, energy {} -> {} J\n",
            readable(p.violation),
            p.at,
            readable(p.position_change),
            readable(p.velocity_change),
            readable(p.energy_given),
            readable(r.energy[0]),
        ));
    }
    if !r.ignored.is_empty() {
        s.push_str(&format!("ignored: {}\n", r.ignored.join(", ")));
    }
    s.push_str(&format!("wall_time: {} s\n", readable(r.wall_time)));
    s
}
