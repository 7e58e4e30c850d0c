//! `zwang solve`: one instant file, one or every backend; the variational
//! form for an instant with Coulomb friction.

use crate::{emit, one_line, InstantFile, EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED};
use clap::builder::PossibleValuesParser;
use std::fmt::Write as _;
use std::io::Write;
use zwang::answer::{self, Answer, BackendsJson, ComparisonJson, SolveJson, DEFAULT_BACKEND};
use zwang_coulomb::{StickingCheck, Variational};
use zwang_harness::json::pretty;
use zwang_harness::table::{self, Run, NOT_APPLICABLE};
use zwang_harness::MaxDifference;
use zwang_instant::Instant;
use zwang_qp::{backend_by_name, Solution, BACKEND_NAMES};
/// The `--backend` value that runs every backend.
const ALL: &str = "all";

/// Solve one instant: accelerations, multipliers, compulsion, residuals.
///
/// The sign convention is `M a = Q + A_eq^T l_eq + A_in^T l_in`, `l_in >= 0`;
/// `Z = 1/2 (M a - Q)^T M^-1 (M a - Q)`. The residuals are dimensionless.
///
/// With `--json`, prints one object with the keys `status`, `acceleration`,
/// `multipliers` {`equalities`, `inequalities`}, `compulsion`, `backend`
/// (the solver that ran), `residuals` {`stationarity`, `equalities`,
/// `inequalities`, `complementarity`}, `iterations` and `form` (`qp`). With
/// `--backend all` the top-level keys are those of `auto`, plus `all`:
/// {`backends`: {name: the same object, for every backend},
/// `max_difference`: {`acceleration`, `multipliers`}}, the largest absolute
/// difference between the backends that solved (null when fewer than two
/// did).
///
/// A backend that does not apply to the instant (`direct` takes equality
/// rows only) is listed as {`status`: "not_applicable", `backend`,
/// `reason`}. Without `--json`, the same as a table: a column per backend,
/// a line per quantity, coordinate (`a[i]`) and multiplier (`lambda_eq[i]`,
/// `lambda_in[i]`).
///
/// Coulomb friction (`friction` or `sticking` entries): a QP cannot take
/// friction that depends on a normal force, so the answer is the Newton
/// one, the Coulomb contact problem solved as it is (every contact open,
/// sliding, sticking, or starting to slip): `backend` and `form` are
/// `variational`, and the object also has the checker's `verdict`,
/// `coupling` and `reason` (see `zwang check`), `modes` (one of `open`,
/// `slide`, `stick` per `friction` entry, then per `sticking` entry),
/// `answers` (`one`, `none`, `several`, or `found` when a part too large
/// to enumerate was solved by Lemke's method, `not_found` when Lemke's
/// method ended without one: status `not_converged`), `normal_forces` (the same
/// order as `modes`), `tangential_forces` (one per `sticking` entry) and
/// `friction_force` (the generalized force of the `friction` entries,
/// length n). Where no rigid answer exists (Painleve inconsistent) the
/// status is `infeasible` (exit code 1); a Painleve-indeterminate instant
/// gets one of its answers, the one that keeps the most contacts closed,
/// with a warning. This form uses no QP backend, so `--backend` other than
/// `auto` is an error for such a file; `zwang compare FILE` runs the QP
/// forms on it.
///
/// A sticking entry whose force would leave its cone slips (mode `slide`,
/// tangential force `-mu d lambda_n` against its tangential acceleration
/// `d`). The object also has `sticking` [{`index`, `normal_force`,
/// `tangential_force`, `ratio`, `holds`}]: for a contact that sticks, its
/// cone check on the answer (`ratio` = |lambda_t| / (mu |lambda_n|) <= 1);
/// for one that slips or opens, `holds: false` and the force that holding
/// it would take (`ratio` > 1, null when infinite).
///
/// Constraints of higher order (`equalities.order` above 2): the principle
/// is stationary there, not a minimum, so there is no QP and nothing is
/// solved: the object is {`status`: "not_applicable", `reason` (the
/// checker's: which rows, which orders, why), `verdict`:
/// "stationary_only", `equality_orders`}, exit code 1, whatever
/// `--backend` says.
///
/// Exit code 0 when solved (for `all`: when `auto` solved), 1 for any other
/// status (the answer known is still printed), 2 for a malformed or
/// unreadable file (one line on stderr, nothing on stdout). A key the
/// instant format does not define is such an error (a misspelled key would
/// change the physics); with `--allow-unknown` it is a warning on stderr
/// and otherwise ignored.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct SolveArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InstantFile,
    /// The QP solver (default `auto`), or `all` to run every one and
    /// compare them. Not for an instant with `friction` entries.
    #[arg(long, value_name = "NAME",
          value_parser = PossibleValuesParser::new(BACKEND_NAMES.into_iter().chain([ALL])))]
    backend: Option<String>,
}

/// Runs `zwang solve`; returns the exit code.
pub(crate) fn run(args: &SolveArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let requested = args.backend.as_deref().unwrap_or(DEFAULT_BACKEND);
    // Clap has checked the name already; this keeps a bad one an error.
    if requested != ALL && backend_by_name(requested).is_none() {
        let what = format!("`--backend`: unknown backend `{requested}`");
        emit(err, &one_line("error: ", &what));
        return EXIT_BAD_INPUT;
    }
    let Some(instant) = args.input.load(err) else {
        return EXIT_BAD_INPUT;
    };
    let plain = instant.highest_order() <= 2
        && instant.sliding().is_empty()
        && instant.sticking().is_empty();
    if requested == ALL && plain {
        return every_backend(args, &instant, out);
    }
    let answer = match answer::solve(&instant, requested) {
        Ok(answer) => answer,
        Err(what) => {
            emit(err, &one_line("error: ", &what));
            return EXIT_BAD_INPUT;
        }
    };
    if let Some(warning) = answer.warning() {
        emit(err, &one_line("warning: ", warning));
    }
    let text = if args.json {
        pretty(&answer.json())
    } else {
        let title = table::title(instant.name(), &args.input.file);
        match &answer {
            Answer::Qp { backend, solution } => {
                let run = Run {
                    name: backend,
                    solution: solution.clone(),
                };
                table::render(&title, std::slice::from_ref(&run), Vec::new())
            }
            Answer::Variational { checked, var } => {
                let run = Run {
                    name: "variational",
                    solution: Some(var.solution.clone()),
                };
                table::render(&title, std::slice::from_ref(&run), Vec::new())
                    + &friction_text(&instant, var, &checked.report)
                    + &sticking_text(&checked.sticking)
            }
            Answer::NotApplicable { checked, .. } => format!(
                "{title}\n\nstatus: {NOT_APPLICABLE} (verdict {})\n  {}\n",
                checked.report.verdict, checked.report.reason
            ),
        }
    };
    emit(out, &text);
    if answer.is_solved() {
        EXIT_OK
    } else {
        EXIT_UNSOLVED
    }
}

/// `--backend all` on an instant without friction: every backend, and
/// their largest differences.
fn every_backend(args: &SolveArgs, instant: &Instant, out: &mut dyn Write) -> i32 {
    let runs: Vec<Run> = BACKEND_NAMES
        .into_iter()
        .map(|name| answer::qp_run(instant, name))
        .collect();
    // The answer that decides the exit code: `auto`.
    let primary = runs
        .iter()
        .find(|r| r.name == DEFAULT_BACKEND)
        .unwrap_or(&runs[0]);
    let difference = MaxDifference::of(instant, runs.iter().filter_map(|r| r.solution.as_ref()));
    let text = if args.json {
        pretty(&SolveJson {
            answer: primary.into(),
            form: "qp",
            friction: None,
            sticking: Vec::new(),
            all: Some(ComparisonJson {
                backends: BackendsJson(&runs),
                max_difference: difference,
            }),
        })
    } else {
        let t = table::render(
            &table::title(instant.name(), &args.input.file),
            &runs,
            Vec::new(),
        );
        t + &match (difference.acceleration, difference.multipliers) {
            (Some(a), Some(l)) => format!(
                "\nlargest difference between the backends that solved: \
                 acceleration {}, multipliers {}\n",
                table::residual(a),
                table::residual(l)
            ),
            _ => "\nlargest difference: none, fewer than two backends solved\n".to_owned(),
        }
    };
    emit(out, &text);
    if primary.solution.as_ref().is_some_and(Solution::is_solved) {
        EXIT_OK
    } else {
        EXIT_UNSOLVED
    }
}

/// The lines under the table of a friction instant.
fn friction_text(instant: &Instant, var: &Variational, report: &zwang_coulomb::Report) -> String {
    let mut t = format!(
        "\nform: variational (the Coulomb contact problem, friction coupled to the normal \
         forces; no QP); answers: {}\n\
         checker: {} (coupling {:.4})\n  {}\n",
        var.answers.as_str(),
        report.verdict,
        report.coupling,
        report.reason
    );
    let k = instant.sliding().len();
    for (i, c) in instant.sliding().iter().enumerate() {
        let n = var.normal_forces[i];
        let _ = writeln!(
            t,
            "friction[{i}]: {}, normal force {}, friction force along the tangent {}",
            var.modes[i],
            table::number(n),
            table::number(-c.mu * c.slip * n.abs())
        );
    }
    for j in 0..instant.sticking().len() {
        let _ = writeln!(
            t,
            "sticking[{j}]: {}, normal force {}, tangential force {}",
            var.modes[k + j],
            table::number(var.normal_forces[k + j]),
            table::number(var.tangential_forces[j])
        );
    }
    t
}

/// The cone checks under a table.
fn sticking_text(sticking: &[StickingCheck]) -> String {
    let mut t = String::new();
    for c in sticking {
        let _ = writeln!(
            t,
            "sticking[{}]: {}, |lambda_t| / (mu |lambda_n|) = {:.4}",
            c.index,
            if c.holds { "sticks" } else { "must slip" },
            c.ratio
        );
    }
    if t.is_empty() {
        t
    } else {
        format!("\n{t}")
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{data, run};
    use crate::EXIT_UNSOLVED;

    /// In process: `solve` on constraints of higher order is an answer,
    /// `not_applicable` with the reason, exit code 1, whatever the backend.
    #[test]
    fn higher_order_is_not_applicable() {
        let file = data("turning_plane.json");
        for extra in [&[][..], &["--backend", "all"], &["--backend", "clarabel"]] {
            let mut args = vec!["zwang", "solve", file.as_str(), "--json"];
            args.extend(extra);
            let (code, out, err) = run(&args);
            assert_eq!(code, EXIT_UNSOLVED, "{args:?}: {err}");
            assert!(err.is_empty(), "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["status"], "not_applicable");
            assert_eq!(v["verdict"], "stationary_only");
            assert_eq!(v["equality_orders"], serde_json::json!([3]));
            let reason = v["reason"].as_str().unwrap();
            assert!(reason.contains("row 0 (order 3"), "{reason}");
            assert!(reason.contains("stationary, not a minimum"), "{reason}");
        }
        let (code, out, _) = run(&["zwang", "solve", &file]);
        assert_eq!(code, EXIT_UNSOLVED);
        assert!(
            out.contains("status: not_applicable (verdict stationary_only)"),
            "{out}"
        );
    }
}
