//! `zwang solve`: one instant file, one or every backend.

use crate::{emit, one_line, table, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use clap::builder::PossibleValuesParser;
use serde::ser::{Serialize, Serializer};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use zwang_instant::{parse_instant, InstantError, ParsedInstant};
use zwang_qp::{backend_by_name, Solution, BACKEND_NAMES};

/// The backend used when `--backend` is not given.
const DEFAULT_BACKEND: &str = "auto";
/// The `--backend` value that runs every backend.
const ALL: &str = "all";
/// The status of a backend that does not apply to the instant.
pub(crate) const NOT_APPLICABLE: &str = "not_applicable";

/// Solve one instant: accelerations, multipliers, compulsion, residuals.
///
/// The sign convention is `M a = Q + A_eq^T l_eq + A_in^T l_in`, `l_in >= 0`;
/// `Z = 1/2 (M a - Q)^T M^-1 (M a - Q)`. The residuals are dimensionless.
///
/// With `--json`, prints one object with the keys `status`, `acceleration`,
/// `multipliers` {`equalities`, `inequalities`}, `compulsion`, `backend`
/// (the solver that ran), `residuals` {`stationarity`, `equalities`,
/// `inequalities`, `complementarity`} and `iterations`. With `--backend all`
/// the top-level keys are those of `auto`, plus `all`: {`backends`: {name:
/// the same object, for every backend}, `max_difference`: {`acceleration`,
/// `multipliers`}}, the largest absolute difference between the backends
/// that solved (null when fewer than two did).
///
/// A backend that does not apply to the instant (`direct` takes equality
/// rows only) is listed as {`status`: "not_applicable", `backend`,
/// `reason`}. Without `--json`, the same as a table: a column per backend,
/// a line per quantity, coordinate (`a[i]`) and multiplier (`lambda_eq[i]`,
/// `lambda_in[i]`).
///
/// Exit code 0 when solved (for `all`: when `auto` solved), 1 for any other
/// status (the answer known is still printed), 2 for a malformed or
/// unreadable file (one line on stderr, nothing on stdout). Unknown keys in
/// the file are reported as warnings on stderr and otherwise ignored.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct SolveArgs {
    /// The instant file (JSON), or `-` for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// The solver, or `all` to run every one and compare them.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_BACKEND,
          value_parser = PossibleValuesParser::new(BACKEND_NAMES.into_iter().chain([ALL])))]
    backend: String,
}

/// Runs `zwang solve`; returns the exit code.
pub(crate) fn run(args: &SolveArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let names: Vec<&str> = if args.backend == ALL {
        BACKEND_NAMES.to_vec()
    } else {
        vec![args.backend.as_str()]
    };
    let mut backends = Vec::with_capacity(names.len());
    for name in names {
        // Clap has checked the name already; this keeps a bad one an error.
        let Some(backend) = backend_by_name(name) else {
            let what = format!("`--backend`: unknown backend `{name}`");
            emit(err, &one_line("error: ", &what));
            return EXIT_BAD_INPUT;
        };
        backends.push((name, backend));
    }
    let parsed = match read_instant(&args.file) {
        Ok(parsed) => parsed,
        Err(e) => {
            emit(err, &one_line("error: ", &e.to_string()));
            return EXIT_BAD_INPUT;
        }
    };
    for warning in &parsed.warnings {
        emit(err, &one_line("warning: ", warning));
    }
    let instant = &parsed.instant;
    if !instant.sliding().is_empty() {
        emit(
            err,
            "warning: `friction`: not yet used by `solve`; this is the frictionless QP\n",
        );
    }
    // A backend that does not apply (`direct` with inequality rows) is
    // reported as such rather than run for a meaningless status.
    let runs: Vec<Run> = backends
        .into_iter()
        .map(|(name, mut backend)| Run {
            name,
            solution: backend.applies(instant).then(|| backend.solve(instant)),
        })
        .collect();
    // The answer that decides the exit code: the one asked for, or `auto`
    // among all of them.
    let primary = runs
        .iter()
        .find(|r| r.name == DEFAULT_BACKEND)
        .unwrap_or(&runs[0]);
    let difference = (runs.len() > 1).then(|| MaxDifference::of(&runs));
    let text = if args.json {
        json_report(primary, &runs, difference)
    } else {
        table::render(instant.name(), &args.file, &runs, difference.as_ref())
    };
    emit(out, &text);
    if primary.solution.as_ref().is_some_and(Solution::is_solved) {
        EXIT_OK
    } else {
        EXIT_UNSOLVED
    }
}

/// One backend's answer, under the name it was asked for (the solution's
/// own `backend` says which solver actually ran, e.g. `auto` -> `direct`);
/// `None` when the backend does not apply to the instant.
pub(crate) struct Run<'a> {
    pub(crate) name: &'a str,
    pub(crate) solution: Option<Solution>,
}

/// Reads and validates the file; every failure, reading included, is an
/// [`InstantError`] so that it is reported in the same one-line form.
fn read_instant(path: &Path) -> Result<ParsedInstant, InstantError> {
    let mut text = String::new();
    let read = if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    read.map_err(|e| InstantError::File {
        key: "file".into(),
        what: format!("cannot read {}: {e}", path.display()),
    })?;
    parse_instant(&text)
}

/// The largest absolute differences between the backends that solved.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub(crate) struct MaxDifference {
    /// Over every coordinate of `a`; `None` when fewer than two solved.
    pub(crate) acceleration: Option<f64>,
    /// Over every multiplier, equalities and inequalities together.
    pub(crate) multipliers: Option<f64>,
}

impl MaxDifference {
    fn of(runs: &[Run]) -> MaxDifference {
        let solved: Vec<&Solution> = runs
            .iter()
            .filter_map(|r| r.solution.as_ref())
            .filter(|s| s.is_solved())
            .collect();
        let accelerations: Vec<Vec<f64>> = solved.iter().map(|s| s.acceleration.clone()).collect();
        let multipliers: Vec<Vec<f64>> = solved
            .iter()
            .map(|s| {
                s.multipliers_eq
                    .iter()
                    .chain(&s.multipliers_in)
                    .copied()
                    .collect()
            })
            .collect();
        MaxDifference {
            acceleration: spread(&accelerations),
            multipliers: spread(&multipliers),
        }
    }
}

/// The largest `|x_i - y_i|` over every pair of vectors and every `i`, that
/// is the largest `max - min` of one component; `None` for fewer than two.
fn spread(vectors: &[Vec<f64>]) -> Option<f64> {
    if vectors.len() < 2 {
        return None;
    }
    let len = vectors.iter().map(Vec::len).min().unwrap_or(0);
    let range = |i: usize| {
        let (lo, hi) = vectors
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v[i]), hi.max(v[i]))
            });
        hi - lo
    };
    Some((0..len).map(range).fold(0.0, f64::max))
}

/// The output object of the instant-file format for one solution.
#[derive(serde::Serialize)]
struct SolutionJson<'a> {
    status: &'static str,
    acceleration: &'a [f64],
    multipliers: MultipliersJson<'a>,
    compulsion: f64,
    backend: &'static str,
    residuals: ResidualsJson,
    iterations: usize,
}

#[derive(serde::Serialize)]
struct MultipliersJson<'a> {
    equalities: &'a [f64],
    inequalities: &'a [f64],
}

#[derive(serde::Serialize)]
struct ResidualsJson {
    stationarity: f64,
    equalities: f64,
    inequalities: f64,
    complementarity: f64,
}

impl<'a> From<&'a Solution> for SolutionJson<'a> {
    fn from(s: &'a Solution) -> Self {
        SolutionJson {
            status: s.status.as_str(),
            acceleration: &s.acceleration,
            multipliers: MultipliersJson {
                equalities: &s.multipliers_eq,
                inequalities: &s.multipliers_in,
            },
            compulsion: s.compulsion,
            backend: s.backend,
            residuals: ResidualsJson {
                stationarity: s.residuals.stationarity,
                equalities: s.residuals.equalities,
                inequalities: s.residuals.inequalities,
                complementarity: s.residuals.complementarity,
            },
            iterations: s.iterations,
        }
    }
}

/// A run in JSON: the solution, or why there is none.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum RunJson<'a> {
    Solved(SolutionJson<'a>),
    NotApplicable {
        status: &'static str,
        backend: &'a str,
        reason: String,
    },
}

impl<'a> From<&'a Run<'a>> for RunJson<'a> {
    fn from(run: &'a Run<'a>) -> Self {
        match &run.solution {
            Some(s) => RunJson::Solved(s.into()),
            None => RunJson::NotApplicable {
                status: NOT_APPLICABLE,
                backend: run.name,
                reason: format!("the `{}` backend does not apply to this instant", run.name),
            },
        }
    }
}

/// `--backend all`: the primary answer's keys, plus `all`.
#[derive(serde::Serialize)]
struct AllJson<'a> {
    #[serde(flatten)]
    primary: RunJson<'a>,
    all: ComparisonJson<'a>,
}

#[derive(serde::Serialize)]
struct ComparisonJson<'a> {
    backends: BackendsJson<'a>,
    max_difference: MaxDifference,
}

/// The runs as a JSON object keyed by backend name, in the order they ran.
struct BackendsJson<'a>(&'a [Run<'a>]);

impl Serialize for BackendsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|r| (r.name, RunJson::from(r))))
    }
}

/// Pretty JSON; serde_json writes a non-finite number (possible only in
/// the answer of a failed solve) as `null`, so the output stays JSON.
fn json_report(primary: &Run, runs: &[Run], difference: Option<MaxDifference>) -> String {
    let primary = RunJson::from(primary);
    let text = match difference {
        None => serde_json::to_string_pretty(&primary),
        Some(max_difference) => serde_json::to_string_pretty(&AllJson {
            primary,
            all: ComparisonJson {
                backends: BackendsJson(runs),
                max_difference,
            },
        }),
    };
    // Serializing plain structs of numbers and strings cannot fail.
    text.map(|t| t + "\n").unwrap_or_default()
}
