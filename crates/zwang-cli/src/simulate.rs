//! `zwang simulate SCENE|--system NAME --duration T [--json] [--csv FILE]
//! [--plot FILE.png]`.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use zwang_motion::report::{self, Recorder};
use zwang_motion::{settings_of, simulate, Mechanism, Settings, Status};

/// Runs a scene file (TOML, `docs/scene-format.md`) to its duration:
/// events (impacts, lift-off, stick, slip, rest, Painleve), final state,
/// energy and constraint drift. Exit 0 finished, 1 painleve or failed,
/// 2 malformed scene.
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
    /// With `--system`: how long to run, s.
    #[arg(long, value_name = "T", requires = "system")]
    duration: Option<f64>,
    /// Print exactly one JSON object: status, time, steps, events, final,
    /// energy, max_constraint_drift (and reason, stats).
    #[arg(long)]
    json: bool,
    /// Write the trajectory: one row per output sample and per event.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Draw positions, energy and contact forces against time (PNG).
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
}

pub(crate) fn run(args: &SimulateArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if let (Some(name), Some(duration)) = (&args.system, args.duration) {
        let system = match zwang_generalized::catalog::by_name(name) {
            Ok(s) => s,
            Err(e) => {
                emit(err, &one_line("", &e.to_string()));
                return EXIT_BAD_INPUT;
            }
        };
        let settings = Settings::default();
        if !(duration.is_finite() && duration > 0.0) {
            emit(err, "duration: must be a finite number > 0");
            return EXIT_BAD_INPUT;
        }
        return run_model(&system, duration, &settings, name, args, out, err);
    }
    let Some(path) = &args.scene else {
        emit(
            err,
            "error: give a scene file or --system NAME --duration T",
        );
        return EXIT_BAD_INPUT;
    };
    let text = match crate::read_text(path) {
        Ok(t) => t,
        Err(e) => {
            emit(err, &one_line("", &format!("scene: {e}")));
            return EXIT_BAD_INPUT;
        }
    };
    let scene = match zwang_scene::parse_scene(&text) {
        Ok(s) => s,
        Err(e) => {
            emit(err, &one_line("", &e.to_string()));
            return EXIT_BAD_INPUT;
        }
    };
    let model = match scene.model() {
        Ok(m) => m,
        Err(e) => {
            emit(err, &one_line("", &e.to_string()));
            return EXIT_BAD_INPUT;
        }
    };
    let title = scene.name.clone().unwrap_or_else(|| "scene".into());
    run_model(
        &model,
        scene.duration,
        &settings_of(&scene),
        &title,
        args,
        out,
        err,
    )
}

/// Runs a mechanism, writes the CSV and the plot asked for, prints the
/// report; returns the exit code.
fn run_model<M: Mechanism>(
    model: &M,
    duration: f64,
    settings: &Settings,
    title: &str,
    args: &SimulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    // A progress bar on a terminal, never with --json.
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {msg} [{elapsed_precise}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut recorder = Recorder::new(model);
    if let Some(bar) = bar.clone() {
        recorder = recorder.with_progress(move |t, duration| {
            bar.set_position((1000.0 * t / duration) as u64);
            bar.set_message(format!("t = {t:.4} s"));
        });
    }
    let outcome = simulate(model, duration, settings, &mut recorder);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.csv {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            report::write_csv(model, &recorder.rows, &mut w)?;
            w.flush()
        });
        if let Err(e) = written {
            emit(
                err,
                &one_line("", &format!("csv: cannot write {}: {e}", path.display())),
            );
            return EXIT_BAD_INPUT;
        }
    }
    if let Some(path) = &args.plot {
        if let Err(e) = zwang_motion::plot::write_png(model, &recorder.rows, title, path) {
            emit(
                err,
                &one_line("", &format!("plot: cannot write {}: {e}", path.display())),
            );
            return EXIT_BAD_INPUT;
        }
    }
    if args.json {
        let mut line = report::summary(model, &outcome).to_string();
        line.push('\n');
        emit(out, &line);
    } else {
        emit(out, &report::text(model, &outcome));
    }
    match outcome.status {
        Status::Finished => EXIT_OK,
        Status::Painleve | Status::Failed => EXIT_UNSOLVED,
    }
}

#[cfg(test)]
mod tests {
    use crate::{run_with, EXIT_BAD_INPUT, EXIT_OK};

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
