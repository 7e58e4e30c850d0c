//! `zwang contact`: a frictional contact problem from another simulator's
//! file, solved and measured as that simulator measures it.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use zwang_contact::{
    error_for, global_error, parse_global, parse_local, ContactSolver, Friction, PrimalSolver,
    Solution, SolverSettings, Status,
};
use zwang_harness::json::pretty;

/// The one line for a file this build cannot read.
const HDF5: &str = "FCLIB HDF5 files are not read by this build";

/// Solve a frictional contact problem from a Siconos text file.
///
/// Reads Siconos' text files of planar problems (`d` = 2): the local form
/// (`d`, `nc`, the Delassus matrix `W` dense, sparse-block or CSparse,
/// `q`, `mu`) and the global form (`d`, `nc`, `M`, `H`, `q`, `b`, `mu`:
/// `M v = H r + q`, `u = H^T v + b`), as `docs/contact-problems.md`
/// describes. A file whose name starts with `gfc` holds the global form,
/// any other the local form; `--form` says otherwise. FCLIB HDF5 files are
/// not read by this build.
///
/// Solves Coulomb's law at every contact (impulse `r` in the cone
/// `|r_T| <= mu r_N`, De Saxce's form, exact by default; `--friction
/// convex` solves the cone complementarity relaxation) until Siconos'
/// error measure is at most `--tolerance`. A global problem is solved in
/// velocities (Newton's method on `v`, `W = H^T M^-1 H` never formed; the
/// dual method on that local form finishing where it stalls).
///
/// `error` is Siconos' measure: local form
/// `||r - P_K(r - (u + mu |u_T| e_N))|| / max(||q||, ||r||, ||u||)`;
/// global form (`gfc3d_compute_error`) that term with `u = H^T v + b`,
/// divided by `max(||u||, ||r||)`, plus
/// `||-M v + H r + q|| / max(||q||, ||M v||, ||H r||)`. With `--friction
/// convex`, the convex form's measure: `u` in place of De Saxce's velocity.
///
/// With `--json`, prints one object with the keys `format` (`local` or
/// `global`), `dimension`, `contacts`, `status` (`solved` when `error` is
/// at most the tolerance, else `not_converged`), `error`, `iterations` and
/// `time_us` (the solve, not the reading). `--out FILE` writes `{"r", "u"}` (and `"v"` for the
/// global form) as flat lists, contact by contact, normal first.
///
/// Exit code 0 solved, 1 not converged (still printed), 2 a malformed or
/// unreadable file (one line on stderr, nothing on stdout).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ContactArgs {
    /// The problem file (Siconos text, local or global form).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Solved when Siconos' error measure is at most this.
    #[arg(
        long,
        value_name = "TOL",
        default_value = "1e-8",
        allow_negative_numbers = true
    )]
    tolerance: f64,
    /// The friction law: `exact` (Coulomb, De Saxce's form) or `convex`
    /// (the cone complementarity relaxation).
    #[arg(long, value_enum, default_value_t = FrictionArg::Exact)]
    friction: FrictionArg,
    /// Write the answer `{"r", "u"[, "v"]}` to this file as JSON.
    #[arg(long, value_name = "SOLUTION.json")]
    out: Option<PathBuf>,
    /// The form the file holds (by default from its name: `gfc...` is
    /// global).
    #[arg(long, value_enum)]
    form: Option<Form>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FrictionArg {
    Exact,
    Convex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Form {
    Local,
    Global,
}

/// The JSON of `--json`: exactly the contract's keys.
#[derive(Debug, Serialize)]
struct Report {
    format: &'static str,
    dimension: usize,
    contacts: usize,
    status: &'static str,
    error: f64,
    iterations: usize,
    time_us: u64,
}

/// The answer of `--out`.
#[derive(Debug, Serialize)]
struct Answer {
    r: Vec<f64>,
    u: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    v: Option<Vec<f64>>,
}

/// Runs `zwang contact`; returns the exit code.
pub(crate) fn run(args: &ContactArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let solved = read(&args.file).and_then(|text| solve(args, &text));
    let (report, answer) = match solved {
        Ok(done) => done,
        Err(message) => {
            emit(err, &one_line("error: ", &message));
            return EXIT_BAD_INPUT;
        }
    };
    if let Some(path) = &args.out {
        let written = serde_json::to_string(&answer)
            .map_err(|e| e.to_string())
            .and_then(|t| std::fs::write(path, t + "\n").map_err(|e| e.to_string()));
        if let Err(e) = written {
            let what = format!("cannot write {}: {e}", path.display());
            emit(err, &one_line("error: ", &what));
            return EXIT_BAD_INPUT;
        }
    }
    let text = if args.json {
        pretty(&report)
    } else {
        human(&args.file, &report, args.tolerance)
    };
    emit(out, &text);
    if report.status == "solved" {
        EXIT_OK
    } else {
        EXIT_UNSOLVED
    }
}

/// The file's text; an HDF5 file (by name or by signature) is refused.
fn read(path: &Path) -> Result<String, String> {
    let named_hdf5 = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("hdf5") || e.eq_ignore_ascii_case("h5"));
    if named_hdf5 {
        return Err(HDF5.into());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.starts_with(b"\x89HDF\r\n\x1a\n") {
        return Err(HDF5.into());
    }
    String::from_utf8(bytes)
        .map_err(|_| format!("{}: not a text file (Siconos' text format)", path.display()))
}

/// Reads the problem from `text`, solves it and measures the answer.
fn solve(args: &ContactArgs, text: &str) -> Result<(Report, Answer), String> {
    if !(args.tolerance.is_finite() && args.tolerance >= 0.0) {
        return Err(format!(
            "`--tolerance {}`: must be a finite number >= 0",
            args.tolerance
        ));
    }
    let settings = SolverSettings {
        tolerance: args.tolerance,
        friction: match args.friction {
            FrictionArg::Exact => Friction::Exact,
            FrictionArg::Convex => Friction::Convex,
        },
        ..SolverSettings::default()
    };
    let global = args.form.map_or_else(
        || {
            args.file
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("gfc"))
        },
        |f| f == Form::Global,
    );
    let solved = if global {
        solve_global(text, &settings)
    } else {
        solve_local(text, &settings)
    };
    solved.map_err(|e| format!("{}: {e}", args.file.display()))
}

impl Report {
    /// The report of `solution` with this error (the form's own measure):
    /// `solved` when it is at most the tolerance and the solver did not
    /// find the problem without an answer (impulses growing without bound
    /// make the relative error small with no answer near).
    fn new(
        format: &'static str,
        (dimension, contacts): (usize, usize),
        solution: &Solution,
        error: f64,
        time_us: u64,
        tolerance: f64,
    ) -> Self {
        Report {
            format,
            dimension,
            contacts,
            status: if error <= tolerance && solution.status != Status::Unbounded {
                "solved"
            } else {
                "not_converged"
            },
            error,
            iterations: solution.iterations,
            time_us,
        }
    }
}

/// Microseconds since `start`.
fn micros(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

fn solve_local(text: &str, settings: &SolverSettings) -> Result<(Report, Answer), String> {
    let problem = parse_local(text).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let solution = ContactSolver::new()
        .solve(&problem, settings, None)
        .map_err(|e| e.to_string())?;
    let time_us = micros(start);
    let error = error_for(
        settings.friction,
        &problem.mu,
        &problem.q,
        &solution.r,
        &solution.u,
    );
    let report = Report::new(
        "local",
        (problem.dimension, problem.contacts()),
        &solution,
        error,
        time_us,
        settings.tolerance,
    );
    let answer = Answer {
        r: solution.r,
        u: solution.u,
        v: None,
    };
    Ok((report, answer))
}

/// The global form, solved in velocities (Newton's method on `v`, the
/// dual method on the local form finishing where it stalls).
fn solve_global(text: &str, settings: &SolverSettings) -> Result<(Report, Answer), String> {
    let problem = parse_global(text).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let velocity = problem.to_velocity().map_err(|e| e.to_string())?;
    let k = 2 * problem.contacts();
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; problem.q.len()], vec![0.0; k]);
    let report = PrimalSolver::new()
        .solve_in_place(&velocity, settings, &mut r, &mut v, &mut u)
        .map_err(|e| e.to_string())?;
    let time_us = micros(start);
    let error = global_error(&problem, &r, &v, settings.friction);
    let solution = Solution {
        r,
        u,
        status: report.status,
        error: report.error,
        iterations: report.iterations,
        newton_steps: report.newton_steps,
    };
    let report = Report::new(
        "global",
        (problem.dimension, problem.contacts()),
        &solution,
        error,
        time_us,
        settings.tolerance,
    );
    let answer = Answer {
        u: problem.contact_velocity(&v),
        r: solution.r,
        v: Some(v),
    };
    Ok((report, answer))
}

/// The text report: a few lines.
fn human(file: &Path, r: &Report, tolerance: f64) -> String {
    let against = if r.status == "solved" { "<=" } else { ">" };
    format!(
        "{}: Siconos {} form, {} contacts in dimension {}\n\
         status: {} (error {:.3e} {against} tolerance {:.1e}, Siconos' measure)\n\
         iterations: {}, time: {} us\n",
        file.display(),
        r.format,
        r.contacts,
        r.dimension,
        r.status,
        r.error,
        tolerance,
        r.iterations,
        r.time_us,
    )
}
