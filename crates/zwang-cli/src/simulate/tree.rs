//! `zwang simulate MODEL.xml`: a MuJoCo model as a kinematic tree in
//! joint coordinates (`docs/mjcf.md`), from `qpos0` at rest or a
//! keyframe, time-stepped at the file's time step or by the event-driven
//! method; the contract's JSON, a text summary, a CSV of the final
//! `qpos` and `qvel` (one row: the trajectory's rows are not written
//! yet), and `--draw` (PNG or GIF) of the model's geoms as the run goes
//! ([`zwang_draw::draw::space::TreeFilm`]).

use std::fs::File;
use std::io::{BufWriter, Write};

use zwang::articulated::{run_event_with, run_steps_with, start_of, ArticulatedReport};
use zwang_core::readable;
use zwang_draw::draw::space::{TreeFilm, NO_SVG};
use zwang_draw::draw::Format;
use zwang_model::articulated::Articulated;
use zwang_motion::{NoObserver, Observer};

use super::{cannot_write, check_draw_at, SimulateArgs};
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
    let format = match args.draw.as_deref().map(Format::of).transpose() {
        Ok(Some(Format::Svg)) => Err(NO_SVG.to_string()),
        Ok(format) => Ok(format),
        Err(e) => Err(e),
    }
    .and_then(|format| check_draw_at(format, &args.draw_at, duration).map(|_| format));
    let format = match format {
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
    let mut film = format.map(|format| TreeFilm::new(model, format, &args.draw_at));
    let observer: &mut dyn Observer = match &mut film {
        Some(film) => film,
        None => &mut NoObserver,
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
    if let Some(path) = &args.csv {
        if let Err(e) = write_csv(path, &report) {
            return cannot_write(err, "csv", path, e);
        }
    }
    if let (Some(path), Some(film)) = (&args.draw, &film) {
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

/// The final state as one CSV row (header: `t`, `qpos[i]`, `qvel[i]`).
fn write_csv(path: &std::path::Path, report: &ArticulatedReport) -> std::io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    let mut header = vec!["t".to_string()];
    header.extend((0..report.qpos.len()).map(|i| format!("qpos[{i}]")));
    header.extend((0..report.qvel.len()).map(|i| format!("qvel[{i}]")));
    writeln!(w, "{}", header.join(","))?;
    let row: Vec<String> = std::iter::once(report.time)
        .chain(report.qpos.iter().copied())
        .chain(report.qvel.iter().copied())
        .map(|x| format!("{x:e}"))
        .collect();
    writeln!(w, "{}", row.join(","))?;
    w.flush()
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
    if let Some(p) = &r.start_projection {
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
