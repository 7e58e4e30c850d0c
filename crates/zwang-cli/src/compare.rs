//! `zwang compare`: every form of Gauss's principle on one instant, with
//! their differences and the checker's verdict.

use crate::{emit, load, one_line, suite, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use std::path::PathBuf;
use zwang_harness::json::pretty;
use zwang_harness::suite::{write_csv, Row};
use zwang_harness::table;
use zwang_harness::{CompareJson, Comparison};
use zwang_instant::file::ParseOptions;

/// Run every form on one instant (or a folder of them); report the differences.
///
/// The forms: `qp` (the Gauss QP, `auto` backend), `multiplier`,
/// `udwadia_kalaba` and `null_space` (the variational forms of
/// `zwang-forms`). These four solve the instant's rows as they stand: they
/// cannot see `friction` entries, so on a friction instant they answer the
/// frictionless problem (sticking rows held). The three variational forms
/// take the contact set the QP found (`contact_set` {`from`: "qp",
/// `closed`: one flag per inequality row}) and check it: closed contacts
/// must push, open ones must not be crossed. With `friction` or `sticking`
/// entries three more take the friction into account: `frozen_qp`
/// (friction frozen at the frictionless normal force, then the QP; a
/// sticking entry whose force leaves its cone slips), `fixed_point` (the QP
/// re-solved with updated friction until the normal forces settle; it
/// reaches the Newton answer iff the coupling is below 1, at that rate) and
/// `variational` (the Coulomb contact problem solved as it is: the Newton
/// answer).
///
/// With `--json`, one object: `forms` {name: {`status`, `acceleration`,
/// `multipliers` {`equalities`, `inequalities`}, `compulsion`, `backend`,
/// `residuals`, `iterations`, `time_us`}}, where `frozen_qp` adds
/// `frozen_normal_forces` and `friction_force`, `fixed_point` adds
/// `converged` and `rate` (the measured contraction, null when too few
/// steps), `variational` adds `modes`, `answers`, `normal_forces`,
/// `tangential_forces` and `friction_force` (as `zwang solve`);
/// `null_space` gives no multipliers (`null` for each). A form that did not
/// solve has a `reason`. A form that does not apply is {`status`:
/// "not_applicable", `reason`}: the null-space form with contact rows and
/// no contact set (the QP found none), `frozen_qp` and `fixed_point` on a
/// Painleve instant (there is no rigid answer for a QP to approach), and
/// every form on an instant with constraints of higher order
/// (`equalities.order` above 2; verdict `stationary_only`: no minimum, so
/// no form runs and no difference is measured).
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
    /// Read keys the instant format does not define as warnings (by
    /// default an unknown key is an error, exit code 2).
    #[arg(long)]
    allow_unknown: bool,
    /// Also write the table, one row per instant, as CSV to this file.
    #[arg(long, value_name = "OUT")]
    csv: Option<PathBuf>,
}

/// Runs `zwang compare`; returns the exit code.
pub(crate) fn run(args: &CompareArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if args.path.is_dir() {
        let options = ParseOptions {
            allow_unknown: args.allow_unknown,
        };
        return suite::run(
            &args.path,
            options,
            args.json,
            args.csv.as_deref(),
            out,
            err,
        );
    }
    let Some(instant) = load(&args.path, args.allow_unknown, err) else {
        return EXIT_BAD_INPUT;
    };
    let comparison = Comparison::of(&instant);
    if let Some(csv) = &args.csv {
        let stem = args
            .path
            .file_stem()
            .map_or_else(|| "-".into(), |s| s.to_string_lossy().into_owned());
        let rows = [Row::compared(stem, &comparison)];
        if let Err(e) = write_csv(csv, &rows) {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    }
    let text = if args.json {
        pretty(&CompareJson::new(None, instant.name(), &comparison))
    } else {
        comparison.text(&table::title(instant.name(), &args.path))
    };
    emit(out, &text);
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use crate::{run_with, EXIT_OK};

    fn data(name: &str) -> String {
        format!(
            "{}/../../tests/data/higher_order/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    fn run(args: &[&str]) -> (i32, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_with(args, &mut out, &mut err);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    /// In process: every form is `not_applicable` with the reason, exit 0;
    /// the folder's table shows each instant's verdict beside its status.
    #[test]
    fn higher_order_forms_are_not_applicable() {
        let (code, out, err) = run(&["zwang", "compare", &data("mixed_orders.json"), "--json"]);
        assert_eq!(code, EXIT_OK, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["verdict"], "stationary_only");
        let forms = v["forms"].as_object().unwrap();
        assert_eq!(forms.len(), 4);
        for (name, form) in forms {
            assert_eq!(form["status"], "not_applicable", "{name}");
            let reason = form["reason"].as_str().unwrap();
            assert!(
                reason.contains("equality row 1, order 3"),
                "{name}: {reason}"
            );
        }
        assert!(v["max_difference"]["acceleration"].is_null());
        let (code, table, err) = run(&["zwang", "compare", &data("")]);
        assert_eq!(code, EXIT_OK, "{err}");
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(rows.len(), 3, "{table}");
        for row in rows {
            assert!(
                row.contains("not_applicable") && row.contains("stationary_only"),
                "{row}"
            );
        }
    }
}
