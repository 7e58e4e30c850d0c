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
/// A scene file (`*.toml`): the time stepper's exact Coulomb law and its
/// convex relaxation from the same start, step by step: a row per output
/// sample with the largest position difference and the largest normal
/// velocity of a pushing contact under each law (zero for Coulomb's law;
/// `mu |u_T|` where the convex form slides: it glides off), a summary,
/// `--json` for one object, `--csv` for the rows, `--plot` for both
/// against time.
/// A scene with `equations = "vakonomic"`: its motions under the
/// nonholonomic equations (Gauss's principle) and the vakonomic ones from
/// the same start, a row per output sample with the largest position
/// difference and both positions, `--json` and `--csv` likewise (no
/// `--plot`; see `docs/scene-format.md`).
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
///
/// `--system NAME` (instead of a file): a system in generalized
/// coordinates from the catalog of `zwang-generalized` (the double
/// pendulum, Zhang & Xia's examples 1 and 2 in both frames, the Chaplygin
/// sleigh, knife edges, rolling disks, Appell-Hamel's constraint, ...; an
/// unknown name lists them) at the state `--t`, `--q`, `--qd` (its initial
/// state by default). First the three forms of the principle in generalized
/// coordinates, each computed on its own as `E(qdd) = mass qdd + bias`:
/// Lagrange `d/dt dT/dqd - dT/dq`, Nielsen `d/dqd (dT/dt) - 2 dT/dq`,
/// Appell `dS/dqdd` (when the system gives its acceleration energy), beside
/// the engine's `M` and velocity terms, with their largest differences;
/// then every form above on the system's instant. With `--json`: the
/// object above plus `system`, `state` {`t`, `q`, `qd`} and
/// `generalized_forms` {`names`, `applied` (Q), `engine`, `lagrange`,
/// `nielsen`, `appell` (each {`mass`: rows, `bias`}, `appell` null when not
/// given), `max_abs_difference`, `max_rel_difference`}.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CompareArgs {
    /// The instant file (JSON), `-` for standard input, or a folder of them.
    #[arg(
        value_name = "FILE|DIR",
        required_unless_present = "system",
        conflicts_with = "system"
    )]
    path: Option<PathBuf>,
    /// A system in generalized coordinates from the catalog, by name.
    #[arg(long, value_name = "NAME")]
    system: Option<String>,
    /// With `--system`: the time.
    #[arg(
        long,
        value_name = "T",
        requires = "system",
        allow_hyphen_values = true
    )]
    t: Option<f64>,
    /// With `--system`: the coordinates, comma-separated.
    #[arg(
        long,
        value_name = "Q1,Q2,..",
        requires = "system",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    q: Option<Vec<f64>>,
    /// With `--system`: the velocities, comma-separated.
    #[arg(
        long,
        value_name = "QD1,QD2,..",
        requires = "system",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    qd: Option<Vec<f64>>,
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
    /// With a scene file: draw the comparison against time (PNG).
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
}

/// Runs `zwang compare`; returns the exit code.
pub(crate) fn run(args: &CompareArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let path = match (&args.path, &args.system) {
        (_, Some(name)) => return system(args, name, out, err),
        (Some(path), None) => path,
        (None, None) => {
            emit(
                err,
                "error: give an instant file, a folder or --system NAME",
            );
            return EXIT_BAD_INPUT;
        }
    };
    if path.extension().is_some_and(|e| e == "toml") {
        let outputs = crate::compare_motion::Outputs {
            json: args.json,
            csv: args.csv.as_deref(),
            plot: args.plot.as_deref(),
        };
        return crate::compare_motion::run(path, &outputs, out, err);
    }
    if args.plot.is_some() {
        emit(err, "--plot: only with a scene file (*.toml)\n");
        return EXIT_BAD_INPUT;
    }
    if path.is_dir() {
        let options = ParseOptions {
            allow_unknown: args.allow_unknown,
        };
        return suite::run(path, options, args.json, args.csv.as_deref(), out, err);
    }
    let Some(instant) = load(path, args.allow_unknown, err) else {
        return EXIT_BAD_INPUT;
    };
    let comparison = Comparison::of(&instant);
    if let Some(csv) = &args.csv {
        let stem = path
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
        comparison.text(&table::title(instant.name(), path))
    };
    emit(out, &text);
    EXIT_OK
}

/// `zwang compare --system NAME`: the generalized-coordinate forms, then
/// every form on the system's instant.
fn system(args: &CompareArgs, name: &str, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let fail = |err: &mut dyn Write, e: &dyn std::fmt::Display| {
        emit(err, &one_line("error: ", &e.to_string()));
        EXIT_BAD_INPUT
    };
    let sys = match zwang_generalized::catalog::by_name(name) {
        Ok(sys) => sys,
        Err(e) => return fail(err, &e),
    };
    let (q0, qd0) = sys.initial();
    let t = args.t.unwrap_or(0.0);
    let q = args.q.clone().unwrap_or(q0);
    let qd = args.qd.clone().unwrap_or(qd0);
    let (forms, instant) = match sys
        .forms(t, &q, &qd)
        .and_then(|f| Ok((f, sys.instant(t, &q, &qd)?)))
    {
        Ok(x) => x,
        Err(e) => return fail(err, &e),
    };
    let comparison = Comparison::of(&instant);
    let text = if args.json {
        let mut v = serde_json::to_value(CompareJson::new(None, Some(name), &comparison))
            .unwrap_or_default();
        let form = |f: &zwang_generalized::LinearForm| {
            let n = f.bias.len();
            serde_json::json!({
                "mass": f.mass.chunks(n.max(1)).collect::<Vec<_>>(),
                "bias": f.bias,
            })
        };
        v["system"] = name.into();
        v["state"] = serde_json::json!({ "t": t, "q": q, "qd": qd });
        v["generalized_forms"] = serde_json::json!({
            "names": forms.names,
            "applied": forms.applied,
            "engine": form(&forms.engine),
            "lagrange": form(&forms.lagrange),
            "nielsen": form(&forms.nielsen),
            "appell": forms.appell.as_ref().map(form),
            "max_abs_difference": forms.max_abs_difference,
            "max_rel_difference": forms.max_rel_difference,
        });
        pretty(&v)
    } else {
        format!(
            "{}\n{}",
            forms.text(),
            comparison.text(&format!("the instant of {name} at t = {t}"))
        )
    };
    emit(out, &text);
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use crate::test_support::{data, run};
    use crate::EXIT_OK;

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

    /// A system of the catalog by name: Appell-Hamel's particle
    /// (`z' = a |(x', y')|`, m = 1, g = 9.81, a = 0.5) at its initial
    /// horizontal velocity (3, 4). Chetaev's rule gives the closed form
    /// `v' = -g a / (1 + a^2)` along the velocity and `z'' = a v'`; every
    /// form on the instant and the three generalized forms agree with it.
    #[test]
    fn a_catalog_system_by_name() {
        let (code, out, err) = run(&["zwang", "compare", "--system", "appell_hamel", "--json"]);
        assert_eq!(code, EXIT_OK, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let (g, a) = (9.81, 0.5);
        let vdot = -g * a / (1.0 + a * a);
        let expected = [vdot * 0.6, vdot * 0.8, a * vdot];
        for (name, form) in v["forms"].as_object().unwrap() {
            let acc: Vec<f64> = form["acceleration"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            for (x, e) in acc.iter().zip(expected) {
                assert!((x - e).abs() < 1e-12, "{name}: {acc:?} vs {expected:?}");
            }
        }
        let forms = &v["generalized_forms"];
        assert!(forms["appell"].is_object());
        assert!(forms["max_rel_difference"].as_f64().unwrap() < 1e-12);
        assert_eq!(v["system"], "appell_hamel");
        // At a given state: the double pendulum's mass row is the
        // textbook's, (m l^2 / 3, m l^2 / 2 cos(th1 - th2)) for unit rods.
        let (code, out, err) = run(&[
            "zwang",
            "compare",
            "--system",
            "double_pendulum",
            "--q",
            "0.3,-0.5",
            "--qd",
            "1,2",
            "--json",
        ]);
        assert_eq!(code, EXIT_OK, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let m01 = v["generalized_forms"]["lagrange"]["mass"][0][1]
            .as_f64()
            .unwrap();
        assert!((m01 - 0.5 * (0.8f64).cos()).abs() < 1e-14, "{m01}");
    }

    /// An unknown name or a state of the wrong length: one line, exit 2.
    #[test]
    fn a_catalog_system_with_bad_input() {
        let (code, out, err) = run(&["zwang", "compare", "--system", "nope"]);
        assert_eq!((code, out.as_str()), (crate::EXIT_BAD_INPUT, ""));
        assert!(
            err.contains("double_pendulum") && err.lines().count() == 1,
            "{err}"
        );
        let (code, _, err) = run(&[
            "zwang",
            "compare",
            "--system",
            "double_pendulum",
            "--q",
            "1",
        ]);
        assert_eq!(code, crate::EXIT_BAD_INPUT);
        assert!(err.contains("length 1"), "{err}");
    }
}
