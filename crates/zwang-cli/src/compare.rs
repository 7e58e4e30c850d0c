//! `zwang compare`: every form of Gauss's principle on one instant, with
//! their differences and the checker's verdict.

use crate::check::{checked, Checked};
use crate::json::{pretty, MaxDifference, SolutionJson, StickingJson};
use crate::solve::Run;
use crate::{emit, load, one_line, suite, table, EXIT_BAD_INPUT, EXIT_OK};
use serde::ser::{Serialize, Serializer};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use zwang_coulomb::{fixed_point, frozen_qp, variational, Difference, FixedPointOptions, Verdict};
use zwang_forms::{form_by_name, FORM_NAMES};
use zwang_instant::Instant;
use zwang_qp::{AutoBackend, Backend, Solution};

/// Run every form on one instant (or a folder of them); report the differences.
///
/// The forms: `qp` (the Gauss QP, `auto` backend), `multiplier`,
/// `udwadia_kalaba` and `null_space` (the variational forms of
/// `zwang-forms`). These four solve the instant's rows as they stand: they
/// cannot see `friction` entries, so on a friction instant they answer the
/// frictionless problem. With `friction` entries three more take the
/// friction into account: `frozen_qp` (friction frozen at the frictionless
/// normal force, then the QP), `fixed_point` (the QP re-solved with updated
/// friction until the normal forces settle; it reaches the Newton answer
/// iff the coupling is below 1, at that rate) and `variational` (the
/// coupled multiplier equations: the Newton answer).
///
/// With `--json`, one object: `forms` {name: {`status`, `acceleration`,
/// `multipliers` {`equalities`, `inequalities`}, `compulsion`, `backend`,
/// `residuals`, `iterations`, `time_us`}}, where `frozen_qp` adds
/// `frozen_normal_forces` and `friction_force`, `fixed_point` adds
/// `converged` and `rate` (the measured contraction, null when too few
/// steps), `variational` adds `normal_forces`, `friction_force` and
/// `separating`; `null_space` gives no multipliers (empty lists). A form
/// that does not apply is {`status`: "not_applicable", `reason`}: the
/// null-space form with contact rows, `frozen_qp` and `fixed_point` on a
/// Painleve instant (there is no rigid answer for a QP to approach).
/// Then:
///
///   `max_difference` {`acceleration`, `multipliers`}: the largest absolute
///     difference between the forms that solved the same problem: the four
///     above without friction; with friction `frozen_qp`, `fixed_point` and
///     `variational` (the friction-blind forms answer another problem), so
///     it is the size of the non-equivalence. Multipliers are compared
///     among the forms that give them; null when fewer than two solved.
///   `ideal_difference`: the same between `qp`, `multiplier`,
///     `udwadia_kalaba` and `null_space` (equal to `max_difference` without
///     friction): do the solvers agree on the frictionless problem?
///   `non_equivalence`: `frozen_qp` minus `variational`, the error of the
///     minimum form (spec: "the size of the non-equivalence"); null without
///     friction or when either has no answer.
///   `verdict`, `coupling`, `reason`: the checker's (see `zwang check`);
///     `sticking`: the cone checks of `sticking` entries.
///
/// Times are wall-clock microseconds of one call, setup included; use
/// `cargo bench --bench forms` for careful timings.
///
/// A folder: every `*.json` in it (not the `*.expected.json` sidecars, not
/// subfolders), sorted by name, as a Markdown table on stdout, one row per
/// instant: `instant` (the file stem), `verdict`, `coupling`,
/// `max_diff_acceleration`, `max_diff_multipliers`,
/// `non_equivalence_acceleration`, `non_equivalence_multipliers` and the
/// time per form (`qp_us`, ..., `variational_us`); a dash where there is no
/// value (a form that does not apply, a difference not measured). With
/// `--json`, an array of the objects above, each with `file`. A malformed
/// file is a row (or object) with verdict `error: ...` and its one-line
/// error also goes to stderr; the others still run, and the exit code is 2.
///
/// `--csv OUT` also writes the table as CSV (the same columns, numbers in
/// full precision, empty cells for the dashes), for a folder or one file.
///
/// Exit code 0 when it ran (any verdict, any status), 2 for a malformed or
/// unreadable file (one line on stderr, nothing on stdout), an empty
/// folder, or a CSV file that cannot be written.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CompareArgs {
    /// The instant file (JSON), `-` for standard input, or a folder of them.
    #[arg(value_name = "FILE|DIR")]
    path: PathBuf,
    /// Print JSON instead of text (for a folder: an array, one per file).
    #[arg(long)]
    json: bool,
    /// Also write the table, one row per instant, as CSV to this file.
    #[arg(long, value_name = "OUT")]
    csv: Option<PathBuf>,
}

/// The forms that solve the instant's rows as they stand, friction unseen.
const IDEAL_FORMS: [&str; 4] = ["qp", "multiplier", "udwadia_kalaba", "null_space"];

/// The forms that take the Coulomb friction into account.
const FRICTION_FORMS: [&str; 3] = ["frozen_qp", "fixed_point", "variational"];

/// Every form, in the order they run (and of the table's time columns).
pub(crate) const ALL_FORMS: [&str; 7] = [
    "qp",
    "multiplier",
    "udwadia_kalaba",
    "null_space",
    "frozen_qp",
    "fixed_point",
    "variational",
];

/// One form on one instant.
pub(crate) struct FormRun {
    pub(crate) name: &'static str,
    pub(crate) outcome: Outcome,
}

/// What a form gave: an answer (any status) and how long it took, or why
/// it does not apply.
pub(crate) enum Outcome {
    Ran {
        solution: Solution,
        time_us: f64,
        extra: Option<Extra>,
    },
    NotApplicable(String),
}

/// What a friction form knows beyond its solution.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub(crate) enum Extra {
    Frozen {
        frozen_normal_forces: Vec<f64>,
        friction_force: Vec<f64>,
    },
    FixedPoint {
        converged: bool,
        rate: Option<f64>,
    },
    Variational {
        normal_forces: Vec<f64>,
        friction_force: Vec<f64>,
        separating: Vec<usize>,
    },
}

impl FormRun {
    /// Runs `solve` once under a clock.
    fn timed(name: &'static str, solve: impl FnOnce() -> (Solution, Option<Extra>)) -> FormRun {
        let start = std::time::Instant::now();
        let (solution, extra) = solve();
        FormRun {
            name,
            outcome: Outcome::Ran {
                solution,
                time_us: start.elapsed().as_secs_f64() * 1e6,
                extra,
            },
        }
    }

    pub(crate) fn solution(&self) -> Option<&Solution> {
        match &self.outcome {
            Outcome::Ran { solution, .. } => Some(solution),
            Outcome::NotApplicable(_) => None,
        }
    }

    pub(crate) fn time_us(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Ran { time_us, .. } => Some(*time_us),
            Outcome::NotApplicable(_) => None,
        }
    }
}

/// Every form on one instant, and what compares them.
pub(crate) struct Comparison {
    pub(crate) forms: Vec<FormRun>,
    pub(crate) max_difference: MaxDifference,
    pub(crate) ideal_difference: MaxDifference,
    pub(crate) non_equivalence: Option<MaxDifference>,
    pub(crate) checked: Checked,
    /// Whether the instant has `friction` entries (and so the friction forms).
    pub(crate) friction: bool,
}

impl Comparison {
    /// Runs the checker and every form on `instant`.
    pub(crate) fn of(instant: &Instant) -> Comparison {
        let checked = checked(instant);
        let mut backend = AutoBackend::new();
        let mut forms = vec![FormRun::timed("qp", || (backend.solve(instant), None))];
        for mut form in FORM_NAMES.into_iter().filter_map(form_by_name) {
            forms.push(match form.not_applicable_reason(instant) {
                Some(reason) => FormRun {
                    name: form.name(),
                    outcome: Outcome::NotApplicable(reason),
                },
                None => FormRun::timed(form.name(), || (form.solve(instant), None)),
            });
        }
        if !instant.sliding().is_empty() {
            forms.extend(friction_forms(instant, checked.report.verdict));
        }
        let solutions = |names: &[&str]| -> Vec<&Solution> {
            forms
                .iter()
                .filter(|f| names.contains(&f.name))
                .filter_map(FormRun::solution)
                .collect()
        };
        let ideal_difference = MaxDifference::of(instant, solutions(&IDEAL_FORMS));
        let friction = !instant.sliding().is_empty();
        let (max_difference, non_equivalence) = if !friction {
            (ideal_difference, None)
        } else {
            let pair = solutions(&["frozen_qp", "variational"]);
            let non_equivalence = match pair[..] {
                [frozen, var] if frozen.is_solved() && var.is_solved() => {
                    let d = Difference::between(frozen, var);
                    Some(MaxDifference {
                        acceleration: Some(d.acceleration),
                        multipliers: Some(d.multipliers),
                    })
                }
                _ => None,
            };
            (
                MaxDifference::of(instant, solutions(&FRICTION_FORMS)),
                non_equivalence,
            )
        };
        Comparison {
            forms,
            max_difference,
            ideal_difference,
            non_equivalence,
            checked,
            friction,
        }
    }
}

/// `frozen_qp`, `fixed_point` and `variational`; the two QP forms do not
/// apply on a Painleve instant, where there is no single rigid answer for
/// them to approach.
fn friction_forms(instant: &Instant, verdict: Verdict) -> Vec<FormRun> {
    let mut backend = AutoBackend::new();
    let painleve = verdict.is_painleve().then(|| {
        format!(
            "the instant is {verdict} (G = D - C is not a P-matrix): there is no unique rigid \
             answer for a QP with frozen friction to approach"
        )
    });
    let qp_form =
        |name: &'static str, solve: &mut dyn FnMut() -> (Solution, Option<Extra>)| -> FormRun {
            match &painleve {
                Some(reason) => FormRun {
                    name,
                    outcome: Outcome::NotApplicable(reason.clone()),
                },
                None => FormRun::timed(name, solve),
            }
        };
    let frozen = qp_form("frozen_qp", &mut || {
        let f = frozen_qp(instant, &mut backend);
        let extra = Extra::Frozen {
            frozen_normal_forces: f.frozen_normal_forces,
            friction_force: f.friction_force,
        };
        (f.solution, Some(extra))
    });
    let fixed = qp_form("fixed_point", &mut || {
        let f = fixed_point(instant, &mut backend, FixedPointOptions::default());
        let extra = Extra::FixedPoint {
            converged: f.converged,
            rate: f.rate,
        };
        (f.solution, Some(extra))
    });
    let var = FormRun::timed("variational", || {
        let v = variational(instant);
        let extra = Extra::Variational {
            normal_forces: v.normal_forces,
            friction_force: v.friction_force,
            separating: v.separating,
        };
        (v.solution, Some(extra))
    });
    vec![frozen, fixed, var]
}

/// Runs `zwang compare`; returns the exit code.
pub(crate) fn run(args: &CompareArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if args.path.is_dir() {
        return suite::run(&args.path, args.json, args.csv.as_deref(), out, err);
    }
    let Some(instant) = load(&args.path, err) else {
        return EXIT_BAD_INPUT;
    };
    let comparison = Comparison::of(&instant);
    if let Some(csv) = &args.csv {
        let stem = args
            .path
            .file_stem()
            .map_or_else(|| "-".into(), |s| s.to_string_lossy().into_owned());
        let rows = [suite::Row::compared(stem, &comparison)];
        if let Err(e) = suite::write_csv(csv, &rows) {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    }
    let text = if args.json {
        pretty(&CompareJson::new(None, instant.name(), &comparison))
    } else {
        text(&table::title(instant.name(), &args.path), &comparison)
    };
    emit(out, &text);
    EXIT_OK
}

/// The `zwang compare --json` object of one instant.
#[derive(serde::Serialize)]
pub(crate) struct CompareJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    forms: FormsJson<'a>,
    max_difference: MaxDifference,
    ideal_difference: MaxDifference,
    non_equivalence: Option<MaxDifference>,
    verdict: &'static str,
    coupling: f64,
    reason: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sticking: Vec<StickingJson>,
}

impl<'a> CompareJson<'a> {
    /// The object for `comparison`; `file` is given in a folder's array.
    pub(crate) fn new(
        file: Option<String>,
        name: Option<&'a str>,
        comparison: &'a Comparison,
    ) -> Self {
        let report = &comparison.checked.report;
        CompareJson {
            file,
            name,
            forms: FormsJson(&comparison.forms),
            max_difference: comparison.max_difference,
            ideal_difference: comparison.ideal_difference,
            non_equivalence: comparison.non_equivalence,
            verdict: report.verdict.as_str(),
            coupling: report.coupling,
            reason: &report.reason,
            sticking: comparison
                .checked
                .sticking
                .iter()
                .map(StickingJson::from)
                .collect(),
        }
    }
}

/// The forms as a JSON object keyed by name, in the order they ran.
struct FormsJson<'a>(&'a [FormRun]);

impl Serialize for FormsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|f| (f.name, FormJson::from(f))))
    }
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum FormJson<'a> {
    Ran(RanJson<'a>),
    NotApplicable {
        status: &'static str,
        reason: &'a str,
    },
}

#[derive(serde::Serialize)]
struct RanJson<'a> {
    #[serde(flatten)]
    solution: SolutionJson<'a>,
    time_us: f64,
    #[serde(flatten)]
    extra: Option<&'a Extra>,
}

impl<'a> From<&'a FormRun> for FormJson<'a> {
    fn from(f: &'a FormRun) -> Self {
        match &f.outcome {
            Outcome::Ran {
                solution,
                time_us,
                extra,
            } => FormJson::Ran(RanJson {
                solution: solution.into(),
                time_us: *time_us,
                extra: extra.as_ref(),
            }),
            Outcome::NotApplicable(reason) => FormJson::NotApplicable {
                status: crate::solve::NOT_APPLICABLE,
                reason,
            },
        }
    }
}

/// The readable comparison: a column per form, then the differences and
/// the verdict.
fn text(title: &str, c: &Comparison) -> String {
    let runs: Vec<Run> = c
        .forms
        .iter()
        .map(|f| Run {
            name: f.name,
            solution: f.solution().cloned(),
        })
        .collect();
    let times = c
        .forms
        .iter()
        .map(|f| f.time_us().map_or_else(String::new, |t| format!("{t:.1}")))
        .collect();
    let mut t = table::render(title, &runs, vec![("time (us)".into(), times)]);
    let not_applicable: Vec<String> = c
        .forms
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::NotApplicable(reason) => Some(format!("  {}: {reason}\n", f.name)),
            Outcome::Ran { .. } => None,
        })
        .collect();
    if !not_applicable.is_empty() {
        t += &format!("\nnot applicable:\n{}", not_applicable.concat());
    }
    let r = &c.checked.report;
    let _ = write!(
        t,
        "\nverdict: {} (coupling {:.4})\n  {}\n",
        r.verdict, r.coupling, r.reason
    );
    if c.friction {
        t += &difference_line(
            "largest difference between the forms with friction (frozen_qp, fixed_point, variational)",
            Some(&c.max_difference),
        );
        t += &difference_line(
            "between the forms that ignore the friction (qp, multiplier, udwadia_kalaba, null_space)",
            Some(&c.ideal_difference),
        );
        t += &difference_line(
            "non-equivalence, frozen_qp - variational",
            c.non_equivalence.as_ref(),
        );
    } else {
        t += &difference_line(
            "largest difference between the forms",
            Some(&c.max_difference),
        );
    }
    for s in &c.checked.sticking {
        let _ = writeln!(
            t,
            "sticking[{}]: {}, |lambda_t| / (mu |lambda_n|) = {:.4}",
            s.index,
            if s.holds { "sticks" } else { "must slip" },
            s.ratio
        );
    }
    t
}

/// A difference on one line; a dash for what was not measured.
fn difference_line(what: &str, d: Option<&MaxDifference>) -> String {
    let value = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), table::residual);
    format!(
        "{what}: acceleration {}, multipliers {}\n",
        value(d.and_then(|d| d.acceleration)),
        value(d.and_then(|d| d.multipliers))
    )
}
