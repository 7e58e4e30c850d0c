//! The `zwang` command line.
//!
//! ```text
//! zwang solve FILE [--json] [--backend NAME|all]
//! ```
//!
//! `solve` reads one instant file (the JSON format of
//! [`zwang_instant::parse_instant`]), solves the Gauss QP and prints the
//! accelerations, the multipliers, the compulsion `Z` and the optimality
//! residuals, as a table or (with `--json`) as the instant-file output
//! object. `zwang` without a subcommand prints a short usage (later it will
//! run a demonstration); `check` and `compare` will join `solve`.
//!
//! Exit codes, the same for every subcommand:
//!
//! | code | meaning |
//! |---|---|
//! | [`EXIT_OK`] (0) | solved (or help, version, usage printed) |
//! | [`EXIT_UNSOLVED`] (1) | the solver ended with another status; what is known is still printed |
//! | [`EXIT_BAD_INPUT`] (2) | malformed file, unreadable file, unknown flag or backend: one line on stderr, nothing on stdout |
//!
//! The binary is a one-line `main` around [`run`], so that the whole command
//! line can be tested in-process.

mod solve;
mod table;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;

/// Exit code: solved, or help, version or usage printed.
pub const EXIT_OK: i32 = 0;
/// Exit code: the solver ended with a status other than `solved`.
pub const EXIT_UNSOLVED: i32 = 1;
/// Exit code: bad input (file or command line).
pub const EXIT_BAD_INPUT: i32 = 2;

/// Gauss's principle of least constraint, one instant at a time.
#[derive(Debug, Parser)]
#[command(name = "zwang", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    Solve(solve::SolveArgs),
}

/// Printed by `zwang` without a subcommand; the demonstration will take
/// its place, which is why this is not an error.
const USAGE: &str = "\
zwang: Gauss's principle of least constraint, one instant at a time.

Usage: zwang solve FILE [--json] [--backend NAME|all]

Try `zwang solve examples/pendulum.json`, or `zwang --help`.
";

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
        None => {
            emit(out, USAGE);
            EXIT_OK
        }
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
    fn no_subcommand_prints_the_usage() {
        let (code, out, err) = run_captured(&["zwang"]);
        assert_eq!(code, EXIT_OK);
        assert!(out.contains("Usage: zwang solve FILE"));
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
