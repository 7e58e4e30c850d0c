//! `zwang contact`: a frictional contact problem from another simulator's
//! file, solved and measured as that simulator measures it.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use zwang_contact::error::siconos_error;
use zwang_contact::{
    factored::solve_local as solve_in_space, global_error, ContactSolver, Friction, GlobalProblem,
    LocalProblem, PrimalSolver, Solution, SolverSettings, Status,
};
use zwang_harness::json::pretty;
use zwang_problems::fclib::HDF5_SIGNATURE;
use zwang_problems::{parse_global, parse_local, read_fclib, FclibProblem};

/// Solve a frictional contact problem from a Siconos text file or an
/// FCLIB HDF5 file.
///
/// Reads Siconos' text files, planar or in space (`d` = 2 or 3): the local
/// form (`d`, `nc`, the Delassus matrix `W` dense, sparse-block or
/// CSparse, `q`, `mu`) and the global form (`d`, `nc`, `M`, `H`, `q`, `b`,
/// `mu`: `M v = H r + q`, `u = H^T v + b`), as `docs/contact-problems.md`
/// describes. A file whose name starts with `gfc` holds the global form,
/// any other the local form; `--form` says otherwise.
///
/// Reads FCLIB's HDF5 files (a name ending in `.hdf5` or `.h5`, or the
/// HDF5 signature), planar or in space (`d` = 2 or 3): `/fclib_local`
/// (`W`, `q`, `mu`) or `/fclib_global` (`M`, `H`, `f`, `w`, `mu`: `M v =
/// H r + f`, `u = H^T v + w`); the file says its form.
///
/// Solves Coulomb's law at every contact (impulse `r` in the cone
/// `|r_T| <= mu r_N`, De Saxce's form, exact by default; `--friction
/// convex` solves the cone complementarity relaxation) until Siconos'
/// error measure is at most `--tolerance`. A global problem is solved in
/// velocities (Newton's method on `v`, `W = H^T M^-1 H` never formed; the
/// dual method on that local form finishing where it stalls). A local
/// problem in space is solved the same way on `W = J J^T` (`J` a sparse
/// Cholesky factor of `W`). In space, where the outer iterations stall,
/// proximal Newton iterations finish, in at most `--finish-steps` Newton
/// steps (default 200, fewer on large problems): hard problems, such as
/// boxes landing on redundant corners, may need thousands.
///
/// `error` is Siconos' measure: local form
/// `||r - P_K(r - (u + mu |u_T| e_N))|| / max(||q||, ||r||, ||u||)`, with
/// `u = W r + q` recomputed from the file and the division only where that
/// scale exceeds 2.2e-16 (`DBL_EPSILON`; below it the residual itself);
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
    /// The problem file (Siconos text or FCLIB HDF5, local or global form).
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
    /// Most Newton steps of the proximal finish in space on a problem of
    /// up to 500 unknowns (fewer on larger ones, as the cube of their
    /// size): raise it where the default stops above the tolerance.
    #[arg(long, value_name = "N", default_value_t = SolverSettings::default().finish_steps)]
    finish_steps: usize,
    /// Write the answer `{"r", "u"[, "v"]}` to this file as JSON.
    #[arg(long, value_name = "SOLUTION.json")]
    out: Option<PathBuf>,
    /// The form a Siconos text file holds (by default from its name:
    /// `gfc...` is global). An FCLIB file says its form: one that holds
    /// the other is an error.
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
    /// Whose file: `Siconos` (text) or `FCLIB` (HDF5); not in the JSON.
    #[serde(skip)]
    source: &'static str,
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
    let solved = read(&args.file).and_then(|input| solve(args, input));
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

/// What a problem file holds.
enum Input {
    /// Siconos' text.
    Text(String),
    /// FCLIB's HDF5 bytes.
    Hdf5(Vec<u8>),
}

/// The file's bytes: FCLIB's HDF5 (by name or by signature) or Siconos'
/// text.
fn read(path: &Path) -> Result<Input, String> {
    let named_hdf5 = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("hdf5") || e.eq_ignore_ascii_case("h5"));
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if named_hdf5 || bytes.starts_with(HDF5_SIGNATURE) {
        return Ok(Input::Hdf5(bytes));
    }
    String::from_utf8(bytes).map(Input::Text).map_err(|_| {
        format!(
            "{}: neither a text file (Siconos' text format) nor an HDF5 file (FCLIB)",
            path.display()
        )
    })
}

/// Reads the problem from `input`, solves it and measures the answer.
fn solve(args: &ContactArgs, input: Input) -> Result<(Report, Answer), String> {
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
        finish_steps: args.finish_steps,
        ..SolverSettings::default()
    };
    let solved = match input {
        Input::Hdf5(bytes) => solve_fclib(bytes, args.form, &settings),
        Input::Text(text) => {
            let global = args.form.map_or_else(
                || {
                    args.file
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("gfc"))
                },
                |f| f == Form::Global,
            );
            if global {
                parse_global(&text)
                    .map_err(|e| e.to_string())
                    .and_then(|p| solve_global(&p, &settings, "Siconos"))
            } else {
                parse_local(&text)
                    .map_err(|e| e.to_string())
                    .and_then(|p| solve_local(&p, &settings, "Siconos"))
            }
        }
    };
    solved.map_err(|e| format!("{}: {e}", args.file.display()))
}

/// An FCLIB file: the form it holds (`--form`, if given, must agree).
fn solve_fclib(
    bytes: Vec<u8>,
    form: Option<Form>,
    settings: &SolverSettings,
) -> Result<(Report, Answer), String> {
    let problem = read_fclib(bytes).map_err(|e| format!("FCLIB: {e}"))?;
    let held = match problem {
        FclibProblem::Local(_) => Form::Local,
        FclibProblem::Global(_) => Form::Global,
    };
    if let Some(asked) = form.filter(|&f| f != held) {
        let name = |f: Form| if f == Form::Local { "local" } else { "global" };
        return Err(format!(
            "`--form {}`: the FCLIB file holds the {} form",
            name(asked),
            name(held)
        ));
    }
    match &problem {
        FclibProblem::Local(p) => solve_local(p, settings, "FCLIB"),
        FclibProblem::Global(p) => solve_global(p, settings, "FCLIB"),
    }
}

impl Report {
    /// The report of `solution` with this error (the form's own measure):
    /// `solved` when it is at most the tolerance and the solver did not
    /// find the problem without an answer (impulses growing without bound
    /// make the relative error small with no answer near).
    fn new(
        (source, format): (&'static str, &'static str),
        (dimension, contacts): (usize, usize),
        solution: &Solution,
        error: f64,
        time_us: u64,
        tolerance: f64,
    ) -> Self {
        Report {
            source,
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

/// The local form: the dual method in the plane; in space the primal
/// one on `W = J J^T`. The answer's `u` is recomputed as `W r + q`, as
/// Siconos' measure does, before it is measured.
fn solve_local(
    problem: &LocalProblem,
    settings: &SolverSettings,
    source: &'static str,
) -> Result<(Report, Answer), String> {
    let start = Instant::now();
    let mut solution = if problem.dimension == 2 {
        ContactSolver::new()
            .solve(problem, settings, None)
            .map_err(|e| e.to_string())?
    } else {
        solve_in_space(problem, settings).map_err(|e| e.to_string())?
    };
    let time_us = micros(start);
    problem.velocity(&solution.r, &mut solution.u);
    let error = siconos_error(
        settings.friction,
        &problem.mu,
        &problem.q,
        &solution.r,
        &solution.u,
    );
    let report = Report::new(
        (source, "local"),
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
fn solve_global(
    problem: &GlobalProblem,
    settings: &SolverSettings,
    source: &'static str,
) -> Result<(Report, Answer), String> {
    let start = Instant::now();
    let velocity = problem.to_velocity().map_err(|e| e.to_string())?;
    let k = problem.dimension * problem.contacts();
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; problem.q.len()], vec![0.0; k]);
    let report = PrimalSolver::new()
        .solve_in_place(&velocity, settings, &mut r, &mut v, &mut u)
        .map_err(|e| e.to_string())?;
    let time_us = micros(start);
    let error = global_error(problem, &r, &v, settings.friction);
    let solution = Solution {
        r,
        u,
        status: report.status,
        error: report.error,
        iterations: report.iterations,
        newton_steps: report.newton_steps,
    };
    let report = Report::new(
        (source, "global"),
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
        "{}: {} {} form, {} contacts in dimension {}\n\
         status: {} (error {:.3e} {against} tolerance {:.1e}, Siconos' measure)\n\
         iterations: {}, time: {} us\n",
        file.display(),
        r.source,
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
