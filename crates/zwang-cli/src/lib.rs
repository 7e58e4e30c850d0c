//! The `zwang` command line.
//!
//! ```text
//! zwang                                      the rigid rod of Yao and Gao: every form side by side
//! zwang solve FILE [--json] [--backend NAME|all] [--allow-unknown]
//! zwang check FILE [--json] [--allow-unknown]
//! zwang compare FILE|DIR [--json] [--csv OUT] [--allow-unknown]
//! zwang compare --system NAME [--t T] [--q ..] [--qd ..] [--json]
//! zwang simulate SCENE [--json] [--csv FILE] [--plot FILE.png]
//! zwang simulate MODEL.xml --duration T [--json] [--csv FILE]
//! zwang simulate --system NAME --duration T [--json] [--csv FILE] [--plot FILE.png]
//! zwang contact FILE [--json] [--tolerance 1e-8] [--friction exact|convex] [--out SOLUTION.json] [--form local|global]
//! zwang sweep SPEC [--shard I/N] [--threads N]
//! ```
//!
//! Every command but `contact` reads the instant file specified in
//! `docs/instant-format.md` at the root of the repository
//! ([`zwang_instant::file::parse_instant_with`]); a key the format does
//! not define is an error unless `--allow-unknown` makes it a warning:
//!
//! - `solve` solves the Gauss QP and prints the accelerations, the
//!   multipliers, the compulsion `Z` and the optimality residuals; an
//!   instant with `friction` entries gets the variational (Newton) answer
//!   instead, which a QP cannot give;
//! - `check` says whether the minimum (QP) form is exact at the instant
//!   (the equivalence verdict of `zwang_coulomb::check`; `stationary_only`
//!   for constraints of higher order, `equalities.order` above 2, where
//!   there is no minimum and `solve` and `compare` report
//!   `not_applicable`);
//! - `compare` runs every form on the instant (or on every instant of a
//!   folder, as a Markdown or CSV table) and reports their differences;
//! - `simulate` runs a scene file (`docs/scene-format.md`) over time with
//!   `zwang-motion`: events, final state, energy, drift; a spatial scene
//!   (`dimension = 3`) by the time stepper in space, its bodies'
//!   positions, orientations and velocities; a MuJoCo MJCF file
//!   (`MODEL.xml --duration T`) is read into a spatial scene and run
//!   alike; a malformed scene is one
//!   line on stderr naming the key (`body[1].mass: must be > 0`), exit 2;
//! - `contact` solves a frictional contact problem from a Siconos text
//!   file (local or global form, `docs/contact-problems.md`) and reports
//!   Siconos' error measure of the answer; it reads no instant file;
//! - `sweep` runs a scene or an instant over a grid of parameters
//!   (`docs/sweeps.md`), one JSON line per run, a shard of them with
//!   `--shard I/N`.
//!
//! Each prints text by default and the spec's JSON with `--json`; the
//! subcommands' `--help` say exactly which keys. `zwang` without a
//! subcommand prints `zwang_coulomb::rod::demonstration()`.
//!
//! Exit codes, the same for every subcommand:
//!
//! | code | meaning |
//! |---|---|
//! | [`EXIT_OK`] (0) | solved; any verdict of `check`; `compare` ran; help, version or demonstration printed |
//! | [`EXIT_UNSOLVED`] (1) | `solve` ended with another status (`not_applicable` on constraints of higher order included), or `simulate` with `painleve` or `failed`; what is known is still printed |
//! | [`EXIT_BAD_INPUT`] (2) | malformed file, unreadable file, unknown flag or backend: one line on stderr, nothing on stdout (`compare DIR` still prints its table, with the malformed files as error rows) |
//!
//! The comparisons, verdicts and tables come from the library
//! `zwang-harness`; this crate parses the arguments and prints. The binary
//! (`src/main.rs`, installed by `cargo install --path crates/zwang-cli`) is
//! a one-line `main` around [`run`], so that the whole command line can be
//! tested in-process.

mod check;
mod compare;
mod compare_motion;
mod contact;
mod simulate;
mod solve;
mod suite;
mod sweep;

/// What the subcommands' in-process tests share: the stored instants of
/// higher order and a run that returns the exit code, stdout and stderr.
#[cfg(test)]
mod test_support {
    use crate::run_with;

    pub(crate) fn data(name: &str) -> String {
        format!(
            "{}/../../tests/data/higher_order/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_with(args, &mut out, &mut err);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }
}

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use zwang_instant::file::{parse_instant_with, ParseOptions};
use zwang_instant::{Instant, InstantError};

/// Exit code: solved, any verdict checked, forms compared, or help,
/// version or the demonstration printed.
pub const EXIT_OK: i32 = 0;
/// Exit code: `solve` ended with a status other than `solved`.
pub const EXIT_UNSOLVED: i32 = 1;
/// Exit code: bad input (file or command line).
pub const EXIT_BAD_INPUT: i32 = 2;

/// Gauss's principle of least constraint: motions of contact-rich scenes
/// over time (`simulate`, planar and in space), single instants (`solve`,
/// `check`, `compare`), frictional contact problems (`contact`).
///
/// Without a command: the rigid rod of Yao Wenli and Gao Junping ("A
/// discussion on the equivalence of two forms of Gauss' principle", 2026)
/// on a rough plane, every form side by side, with the checker's verdicts.
#[derive(Debug, Parser)]
#[command(name = "zwang", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    Solve(solve::SolveArgs),
    Check(check::CheckArgs),
    Compare(compare::CompareArgs),
    Simulate(simulate::SimulateArgs),
    Contact(contact::ContactArgs),
    Sweep(sweep::SweepArgs),
}

/// Printed after the demonstration, which is what `zwang` alone runs.
const HINT: &str =
    "\nRun `zwang --help` for the commands (solve, check, compare, simulate, contact, sweep).\n";

/// Runs the command line on `args` (the first item is the program name),
/// printing to stdout and stderr; returns the exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with(
        args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
}

/// [`run`] with the two output streams given.
fn run_with<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // `--help` and `--version` arrive here too, as "errors" for stdout.
        Err(e) if !e.use_stderr() => {
            emit(out, &e.to_string());
            return EXIT_OK;
        }
        Err(e) => {
            emit(err, &format!("{}\n", clap_one_line(&e)));
            return EXIT_BAD_INPUT;
        }
    };
    match cli.command {
        Some(Command::Solve(args)) => solve::run(&args, out, err),
        Some(Command::Check(args)) => check::run(&args, out, err),
        Some(Command::Compare(args)) => compare::run(&args, out, err),
        Some(Command::Simulate(args)) => simulate::run(&args, out, err),
        Some(Command::Contact(args)) => contact::run(&args, out, err),
        Some(Command::Sweep(args)) => sweep::run(&args, out, err),
        None => {
            emit(out, &zwang_coulomb::rod::demonstration());
            emit(out, HINT);
            EXIT_OK
        }
    }
}

/// The text of a file, or of standard input for `-`.
fn read_text(path: &Path) -> Result<String, String> {
    let mut text = String::new();
    let read = if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    read.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text)
}

/// The instant file `check` and `solve` read, and how strictly.
#[derive(Debug, clap::Args)]
struct InstantFile {
    /// The instant file (JSON), or `-` for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Read keys the instant format does not define as warnings (by
    /// default an unknown key is an error, exit code 2).
    #[arg(long)]
    allow_unknown: bool,
}

impl InstantFile {
    /// [`load`] of this file.
    fn load(&self, err: &mut dyn Write) -> Option<Instant> {
        load(&self.file, self.allow_unknown, err)
    }
}

/// Reads and validates an instant file, with the warnings (keys ignored
/// under `--allow-unknown`) written to `err`; a failure, reading
/// included, is written there as the one-line error (naming `zwang
/// simulate` when the file is a scene), and `None` means exit code
/// [`EXIT_BAD_INPUT`].
fn load(path: &Path, allow_unknown: bool, err: &mut dyn Write) -> Option<Instant> {
    let text = match read_text(path) {
        Ok(text) => text,
        Err(what) => {
            let e = InstantError::File {
                key: "file".into(),
                what,
            };
            emit(err, &one_line("error: ", &error_message(&e)));
            return None;
        }
    };
    match parse_instant_with(&text, ParseOptions { allow_unknown }) {
        Ok(parsed) => {
            for warning in &parsed.warnings {
                emit(err, &one_line("warning: ", warning));
            }
            Some(parsed.instant)
        }
        Err(e) => {
            let mut message = error_message(&e);
            if zwang_scene::looks_like_scene(&text) {
                message.push_str(
                    "; this is a scene file: run it with `zwang simulate FILE` \
                     (or `zwang compare FILE.toml`)",
                );
            }
            emit(err, &one_line("error: ", &message));
            None
        }
    }
}

/// What a scene command adds to an error on a JSON file: the commands
/// that read one.
const JSON_FILE_HINT: &str = "; this is a JSON file: an instant is read by `zwang solve`, \
    `zwang check` or `zwang compare`, a contact problem by `zwang contact`";

/// Whether `text` is JSON rather than TOML: an object or an array of them.
fn looks_like_json(text: &str) -> bool {
    let blank = |c: char| c.is_whitespace() || c == '\u{feff}';
    let start = text.trim_start_matches(blank);
    let inside = start
        .strip_prefix('[')
        .map(|rest| rest.trim_start_matches(blank));
    start.starts_with('{') || inside.is_some_and(|rest| rest.starts_with('{'))
}

/// Reads a scene file and builds its model; a failure (reading, parsing,
/// the model's checks) is written to `err` as one line, and `None` means
/// exit code [`EXIT_BAD_INPUT`].
fn load_scene(
    path: &Path,
    err: &mut dyn Write,
) -> Option<(zwang_scene::Scene, zwang_model::planar::PlanarModel)> {
    let loaded = read_text(path)
        .map_err(|e| format!("scene: {e}"))
        .and_then(|text| {
            zwang_scene::parse_scene(&text).map_err(|e| {
                let hint = if looks_like_json(&text) {
                    JSON_FILE_HINT
                } else {
                    ""
                };
                format!("{e}{hint}")
            })
        })
        .and_then(|scene| Ok((scene.model().map_err(|e| e.to_string())?, scene)));
    match loaded {
        Ok((model, scene)) => Some((scene, model)),
        Err(e) => {
            emit(err, &one_line("", &e));
            None
        }
    }
}

/// A scene file read, of either dimension, and a spatial one's model
/// built (a planar one's is built and checked by [`zwang::run::Runnable`]).
// One per run: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Loaded {
    /// `dimension = 2`.
    Planar(zwang_scene::Scene),
    /// `dimension = 3`.
    Spatial(
        zwang_scene::SpatialScene,
        zwang_model::spatial::SpatialModel,
    ),
    /// A MuJoCo MJCF file: a kinematic tree in joint coordinates, the
    /// attributes read past, and the duration to run.
    Articulated(zwang::mjcf::MjcfModel, f64),
}

/// [`load_scene`] for a scene of either dimension (`zwang simulate`), or
/// a MuJoCo MJCF file (a `.xml` name, or text that starts with `<`) run
/// for `duration` (which an MJCF file needs: it has none). On a TOML
/// scene, `duration` and `time_step` replace `scene.duration` and
/// `solver.time_step` (an error they cause says which flag was given).
fn load_any_scene(
    path: &Path,
    duration: Option<f64>,
    time_step: Option<f64>,
    err: &mut dyn Write,
) -> Option<Loaded> {
    let flags = given_flags(duration, time_step);
    let loaded = read_text(path)
        .map_err(|e| format!("scene: {e}"))
        .and_then(|text| {
            let xml = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
                || zwang::mjcf::looks_like_xml(&text);
            let json = looks_like_json(&text);
            let flags = if xml {
                given_flags(None, time_step)
            } else {
                flags.clone()
            };
            let given = |e: zwang_scene::SceneError| match &flags {
                Some(flags) => format!("{e} (with {flags})"),
                None if json => format!("{e}{JSON_FILE_HINT}"),
                None => e.to_string(),
            };
            // An MJCF file's duration is checked as its own (it has none).
            let values = [
                ("--duration", duration.filter(|_| !xml)),
                ("--time-step", time_step),
            ];
            if let Some((flag, _)) = values
                .into_iter()
                .find(|(_, x)| x.is_some_and(|x| !(x.is_finite() && x > 0.0)))
            {
                return Err(format!("{flag}: must be a finite number > 0"));
            }
            match (xml, duration) {
                (true, Some(duration)) => {
                    let model = if path == Path::new("-") {
                        zwang::mjcf::parse(&text, None)
                    } else {
                        zwang::mjcf::read(path)
                    };
                    model
                        .map(|m| Loaded::Articulated(m, duration))
                        .map_err(|e| e.to_string())
                }
                (true, None) => {
                    Err("--duration: required with an MJCF file (it has no duration)".into())
                }
                (false, _) => {
                    let keys: Vec<(&str, f64)> = [
                        ("scene.duration", duration),
                        ("solver.time_step", time_step),
                    ]
                    .into_iter()
                    .filter_map(|(k, x)| x.map(|x| (k, x)))
                    .collect();
                    zwang_scene::parse_any_scene_setting(&text, &keys)
                        .map_err(given)
                        .and_then(|scene| match scene {
                            zwang_scene::AnyScene::Planar(scene) => Ok(Loaded::Planar(scene)),
                            zwang_scene::AnyScene::Spatial(scene) => {
                                let model = scene.model().map_err(|e| e.to_string())?;
                                Ok(Loaded::Spatial(scene, model))
                            }
                        })
                }
            }
        });
    match loaded {
        Ok(loaded) => Some(loaded),
        Err(e) => {
            emit(err, &one_line("", &e));
            None
        }
    }
}

/// The flags that set a scene's values, as the user gave them
/// (`--duration 2 --time-step 0.001`), or `None`.
fn given_flags(duration: Option<f64>, time_step: Option<f64>) -> Option<String> {
    let flags: Vec<String> = [("--duration", duration), ("--time-step", time_step)]
        .into_iter()
        .filter_map(|(flag, x)| x.map(|x| format!("{flag} {x}")))
        .collect();
    (!flags.is_empty()).then(|| flags.join(" "))
}

/// The one-line message of a file error; an unknown key also says how to
/// read the file anyway.
fn error_message(e: &InstantError) -> String {
    match e {
        InstantError::UnknownKey { .. } => {
            format!("{e}; `--allow-unknown` ignores it with a warning")
        }
        _ => e.to_string(),
    }
}

/// Writes `text`, dropping it if the stream is gone (a closed pipe): the
/// exit code still says how the command went, and there is nowhere left to
/// report the failure.
fn emit(w: &mut dyn Write, text: &str) {
    let _ = w.write_all(text.as_bytes()).and_then(|()| w.flush());
}

/// The one-line message for an error or warning, with control characters
/// (say, a newline inside a JSON key) escaped so that it stays one line.
fn one_line(prefix: &str, message: &str) -> String {
    let mut line = String::from(prefix);
    for c in message.chars() {
        if c.is_control() {
            line.extend(c.escape_default());
        } else {
            line.push(c);
        }
    }
    line.push('\n');
    line
}

/// Clap's error on one line: its message without the usage, the tips and
/// the blank lines (bad input is one line on stderr, for every mistake).
fn clap_one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("Usage:")
                && !l.starts_with("tip:")
                && !l.starts_with("For more information")
        })
        .collect();
    let line = parts.join(" ");
    if line.starts_with("error:") {
        format!("{line} (see `zwang --help`)")
    } else {
        format!("error: {line} (see `zwang --help`)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_captured(args: &[&str]) -> (i32, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_with(args, &mut out, &mut err);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn help_and_version_go_to_stdout_with_exit_0() {
        for args in [
            &["zwang", "--help"][..],
            &["zwang", "solve", "--help"],
            &["zwang", "check", "--help"],
            &["zwang", "compare", "--help"],
            &["zwang", "contact", "--help"],
            &["zwang", "--version"],
        ] {
            let (code, out, err) = run_captured(args);
            assert_eq!(code, EXIT_OK, "{args:?}");
            assert!(!out.is_empty() && err.is_empty(), "{args:?}");
        }
        let (_, out, _) = run_captured(&["zwang", "solve", "--help"]);
        assert!(out.contains("--backend") && out.contains("clarabel"));
    }

    #[test]
    fn no_subcommand_runs_the_demonstration() {
        let (code, out, err) = run_captured(&["zwang"]);
        assert_eq!(code, EXIT_OK);
        assert!(out.starts_with("The rigid rod"));
        assert!(out.contains("painleve_inconsistent") && out.ends_with(HINT));
        assert!(err.is_empty());
    }

    /// Every command-line mistake is one line on stderr and exit code 2.
    #[test]
    fn command_line_mistakes_are_one_line() {
        for (args, needle) in [
            (&["zwang", "solve"][..], "<FILE>"),
            (
                &["zwang", "solve", "x.json", "--frobnicate"],
                "--frobnicate",
            ),
            (&["zwang", "solve", "x.json", "--backend", "fast"], "fast"),
            (&["zwang", "solve", "x.json", "--backend"], "--backend"),
            (&["zwang", "unknown"], "unknown"),
            (&["zwang", "check"], "<FILE>"),
            (
                &["zwang", "check", "x.json", "--backend", "auto"],
                "--backend",
            ),
            (&["zwang", "compare", "x.json", "--csv"], "--csv"),
            (&["zwang", "contact"], "<FILE>"),
            (&["zwang", "contact", "x.dat", "--form", "both"], "both"),
        ] {
            let (code, out, err) = run_captured(args);
            assert_eq!(code, EXIT_BAD_INPUT, "{args:?}");
            assert!(out.is_empty(), "{args:?}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            one_line("warning: ", "key `a\nb`"),
            "warning: key `a\\nb`\n"
        );
    }
}
