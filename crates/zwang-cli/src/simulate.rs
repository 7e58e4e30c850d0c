//! `zwang simulate SCENE [--json] [--csv FILE] [--plot FILE.png]`.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use zwang_motion::report::{self, Recorder};
use zwang_motion::{run_scene, Status};

/// Runs a scene file (TOML, `docs/scene-format.md`) to its duration:
/// events (impacts, lift-off, stick, slip, rest, Painleve), final state,
/// energy and constraint drift. Exit 0 finished, 1 painleve or failed,
/// 2 malformed scene.
#[derive(Debug, Args)]
pub(crate) struct SimulateArgs {
    /// The scene file (`-` for standard input).
    scene: PathBuf,
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
    let text = match crate::read_text(&args.scene) {
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
    // A progress bar on a terminal, never with --json.
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {msg} [{elapsed_precise}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut recorder = Recorder::new(&model);
    if let Some(bar) = bar.clone() {
        recorder = recorder.with_progress(move |t, duration| {
            bar.set_position((1000.0 * t / duration) as u64);
            bar.set_message(format!("t = {t:.4} s"));
        });
    }
    let outcome = match run_scene(&scene, &mut recorder) {
        Ok((_, o)) => o,
        Err(e) => {
            emit(err, &one_line("", &e.to_string()));
            return EXIT_BAD_INPUT;
        }
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.csv {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            report::write_csv(&model, &recorder.rows, &mut w)?;
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
        let title = scene.name.clone().unwrap_or_else(|| "scene".into());
        if let Err(e) = zwang_motion::plot::write_png(&model, &recorder.rows, &title, path) {
            emit(
                err,
                &one_line("", &format!("plot: cannot write {}: {e}", path.display())),
            );
            return EXIT_BAD_INPUT;
        }
    }
    if args.json {
        let mut line = report::summary(&model, &outcome).to_string();
        line.push('\n');
        emit(out, &line);
    } else {
        emit(out, &report::text(&model, &outcome));
    }
    match outcome.status {
        Status::Finished => EXIT_OK,
        Status::Painleve | Status::Failed => EXIT_UNSOLVED,
    }
}
