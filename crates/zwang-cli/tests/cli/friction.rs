//! `zwang check`, `zwang compare` and `zwang solve` on the friction suite
//! (`tests/data/friction`), as a user meets them: exit codes, stdout,
//! stderr.
//!
//! Each instant `NAME.json` has a sidecar `NAME.expected.json` derived by
//! hand or from the closed forms of the rigid rod (its `note` says how):
//! `verdict`, `coupling` (closed form), `variational` {`status`, and where
//! the answer is unique `acceleration` and `normal_forces`}, optionally
//! `frozen_exact`, `sticking` [{`holds`, `ratio`}] and `rod` (the
//! `RigidRod` and state the file was generated from).

use serde_json::{Map, Value};
use std::path::Path;
use std::process::Output;
use zwang::coulomb::rod::{FrictionLaw, NormalRow, RigidRod};
use zwang::instant::{parse_instant, to_json, Encoding, Instant};

use crate::common;
use common::{numbers, repo, stderr, stdout, suite_instants, zwang};

const SUITE: &str = "tests/data/friction";

/// Every verdict a friction instant of this suite can get
/// (`stationary_only` needs rows of higher order: `higher_order.rs`).
const VERDICTS: [&str; 4] = [
    "equivalent",
    "not_equivalent",
    "painleve_inconsistent",
    "painleve_indeterminate",
];

/// The forms `compare` runs on every instant, and those it adds with
/// friction.
const IDEAL_FORMS: [&str; 4] = ["qp", "multiplier", "udwadia_kalaba", "null_space"];
const FRICTION_FORMS: [&str; 3] = ["frozen_qp", "fixed_point", "variational"];

/// Runs a `--json` command: its output and the parsed stdout.
fn json(args: &[&str]) -> (Output, Value) {
    let o = zwang(args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {}", stdout(&o)));
    (o, v)
}

/// Bad input: exit code 2, nothing on stdout, one line on stderr naming
/// `needle`.
fn assert_bad_input(o: &Output, needle: &str, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(o.stdout.is_empty(), "{what}: stdout {:?}", stdout(o));
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(
        err.starts_with("error: ") && err.contains(needle),
        "{what}: {err}"
    );
}

/// One instant of the suite with its sidecar.
struct Case {
    stem: String,
    /// The path as given to the binary (relative to the repository).
    path: String,
    file: Value,
    expected: Value,
    instant: Instant,
}

impl Case {
    fn friction_entries(&self) -> usize {
        self.file["friction"].as_array().map_or(0, Vec::len)
    }

    fn sticking_entries(&self) -> usize {
        self.file["sticking"].as_array().map_or(0, Vec::len)
    }

    /// Friction or sticking entries: the Coulomb contact problem applies.
    fn has_friction(&self) -> bool {
        self.friction_entries() + self.sticking_entries() > 0
    }

    fn verdict(&self) -> &str {
        self.expected["verdict"].as_str().expect("a verdict")
    }

    fn variational_status(&self) -> &str {
        self.expected["variational"]["status"]
            .as_str()
            .expect("variational.status")
    }
}

fn suite() -> Vec<Case> {
    suite_instants(&repo(SUITE))
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            let sidecar = std::fs::read_to_string(p.with_extension("expected.json"))
                .unwrap_or_else(|e| panic!("{stem}: every instant has a sidecar ({e})"));
            Case {
                path: format!("{SUITE}/{stem}.json"),
                file: serde_json::from_str(&text).unwrap(),
                expected: serde_json::from_str(&sidecar).unwrap(),
                instant: parse_instant(&text).unwrap().instant,
                stem,
            }
        })
        .collect()
}

/// `|got - want|_inf <= tol * max(1, |want|_inf)`.
fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let diff = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (g, w)| m.max((g - w).abs()));
    assert!(diff <= tol * scale, "{what}: {got:?} vs {want:?}");
}

/// The rod and state a rod file was generated from.
fn rod_of(expected: &Value) -> Option<(RigidRod, f64, f64, f64, FrictionLaw, NormalRow)> {
    let r = expected.get("rod")?;
    let f = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("rod.{k}"));
    let rod = RigidRod {
        mass: f("mass"),
        half_length: f("half_length"),
        gravity: f("gravity"),
        mu: f("mu"),
        viscous: 0.0,
    };
    let law = match r["law"].as_str() {
        Some("coulomb") => FrictionLaw::Coulomb,
        Some("sticking") => FrictionLaw::Sticking,
        other => panic!("rod.law {other:?}"),
    };
    let normal = match r["normal"].as_str() {
        Some("unilateral") => NormalRow::Unilateral,
        Some("bilateral") => NormalRow::Bilateral,
        other => panic!("rod.normal {other:?}"),
    };
    Some((rod, f("theta"), f("xd"), f("thetad"), law, normal))
}

/// The suite is what it claims: every verdict but `stationary_only`, the
/// rods, an incline, boxes on two corners, bilateral and sticking contacts.
#[test]
fn the_suite_covers_every_verdict() {
    let cases = suite();
    for verdict in VERDICTS {
        assert!(
            cases.iter().any(|c| c.verdict() == verdict),
            "no instant is {verdict}"
        );
    }
    for stem in [
        "rod_leading_painleve",
        "incline_sliding",
        "box_two_corners_unequal_mu",
        "bead_on_rail_bilateral",
        "incline_sticking_outside",
        "particle_lift_off",
        "box_two_corners_tipping",
        "floor_stick_to_slip",
        "floor_stick_at_cone_edge",
    ] {
        assert!(cases.iter().any(|c| c.stem == stem), "{stem}");
    }
}

/// The rod files are `RigidRod::instant` of the rod in their sidecar,
/// exactly (the name aside), so that the rod's closed forms apply to them.
#[test]
fn rod_files_are_the_rod_model() {
    let without_name = |mut v: Value| {
        v.as_object_mut().unwrap().remove("name");
        v
    };
    let mut rods = 0;
    for case in suite() {
        let Some((rod, theta, xd, thetad, law, normal)) = rod_of(&case.expected) else {
            continue;
        };
        let model = rod
            .instant(&rod.state_on_plane(theta, xd, thetad), law, normal)
            .unwrap();
        assert_eq!(
            without_name(to_json(&case.instant, Encoding::Dense)),
            without_name(to_json(&model, Encoding::Dense)),
            "{}",
            case.stem
        );
        rods += 1;
    }
    assert!(rods >= 10, "{rods} rod files");
}

/// `check --json`: the spec's keys, the expected verdict for every file,
/// and the coupling of the closed form (for a rod, `kappa`).
#[test]
fn check_gives_the_expected_verdict() {
    for case in suite() {
        let (o, v) = json(&["check", &case.path, "--json"]);
        let what = &case.stem;
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{what}: {}", stderr(&o));
        assert_eq!(v["verdict"], case.verdict(), "{what}: {}", v["reason"]);
        assert!(
            v["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "{what}"
        );
        let coupling = v["coupling"].as_f64().expect("coupling");
        let want = case.expected["coupling"]
            .as_f64()
            .expect("sidecar coupling");
        assert!(
            (coupling - want).abs() < 1e-7,
            "{what}: {coupling} vs {want}"
        );
        if let Some((rod, theta, xd, thetad, FrictionLaw::Coulomb, _)) = rod_of(&case.expected) {
            let slip = rod.slip(&rod.state_on_plane(theta, xd, thetad));
            let kappa = rod.coupling(theta, slip).kappa;
            assert!(
                (coupling - kappa).abs() <= 1e-12 * kappa.max(1.0),
                "{what}: coupling {coupling} vs kappa {kappa}"
            );
        }
        let contacts = v["contacts"].as_array().expect("contacts");
        assert_eq!(contacts.len(), case.friction_entries(), "{what}");
        for (i, c) in contacts.iter().enumerate() {
            assert_eq!(c["index"], i, "{what}");
            assert!(VERDICTS.contains(&c["verdict"].as_str().unwrap()), "{what}");
            assert!(c["coupling"].as_f64().is_some_and(|k| k >= 0.0), "{what}");
        }
        // The instant takes the worst of its contacts.
        if !contacts.is_empty() {
            assert!(
                contacts.iter().any(|c| c["verdict"] == v["verdict"]),
                "{what}"
            );
        }
        if let Some(want) = case.expected.get("frozen_exact") {
            assert_eq!(&v["frozen_exact"], want, "{what}");
        }
        if let Some(want) = case.expected["sticking"].as_array() {
            let got = v["sticking"].as_array().expect("sticking");
            assert_eq!(got.len(), want.len(), "{what}");
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g["holds"], w["holds"], "{what}");
                assert_close(
                    what,
                    &[g["ratio"].as_f64().unwrap()],
                    &[w["ratio"].as_f64().unwrap()],
                    1e-9,
                );
            }
        }
    }
}

/// `check` without friction entries: equivalent, no contacts, and a reason
/// that says why.
#[test]
fn check_without_friction() {
    let (o, v) = json(&["check", "tests/data/box_tipping.json", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["verdict"], "equivalent");
    assert_eq!(v["coupling"], 0.0);
    assert_eq!(v["contacts"], Value::Array(Vec::new()));
    assert!(v["reason"]
        .as_str()
        .unwrap()
        .contains("No Coulomb friction"));
    assert!(v.get("sticking").is_none());
}

/// `compare --json`: every form with the spec's keys, the checker's
/// verdict, and the frozen-QP error at round-off exactly where the checker
/// says it is (equivalent, or frozen_exact), measurable elsewhere.
#[test]
fn compare_runs_every_form() {
    for case in suite() {
        let (o, v) = json(&["compare", &case.path, "--json"]);
        let what = &case.stem;
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        assert_eq!(v["verdict"], case.verdict(), "{what}");
        // Every file of the suite has friction or sticking entries (the
        // instant without them: `check_without_friction`).
        assert!(case.has_friction(), "{what}");
        let forms = v["forms"].as_object().expect("forms");
        let names: Vec<&str> = forms.keys().map(String::as_str).collect();
        let mut want: Vec<&str> = IDEAL_FORMS.to_vec();
        want.extend(FRICTION_FORMS);
        assert_eq!(
            names
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
            want.iter().copied().collect(),
            "{what}"
        );
        for (name, form) in forms {
            if form["status"] != "solved" {
                // Every form that did not solve says why.
                assert!(form["reason"].is_string(), "{what}: {name}");
            }
            if form["status"] == "not_applicable" {
                continue;
            }
            assert!(form["status"].is_string(), "{what}: {name}");
            assert_eq!(
                numbers(&form["acceleration"]).len(),
                case.instant.dim(),
                "{what}: {name}"
            );
            for set in ["equalities", "inequalities"] {
                assert!(form["multipliers"][set].is_array(), "{what}: {name}");
            }
            assert!(form["time_us"].as_f64().is_some_and(|t| t >= 0.0), "{what}");
        }
        // The forms that ignore friction solve on every file and agree with
        // each other.
        for part in ["acceleration", "multipliers"] {
            let ideal = &v["ideal_difference"][part];
            assert!(
                ideal.as_f64().is_some_and(|d| (0.0..1e-9).contains(&d)),
                "{what}: ideal_difference.{part} = {ideal}"
            );
        }
        let painleve = case.verdict().starts_with("painleve");
        for part in ["acceleration", "multipliers"] {
            // Null exactly where frozen_qp and fixed_point do not apply.
            let max = &v["max_difference"][part];
            assert_eq!(
                max.is_null(),
                painleve,
                "{what}: max_difference.{part} = {max}"
            );
        }
        if painleve {
            for name in ["frozen_qp", "fixed_point"] {
                assert_eq!(forms[name]["status"], "not_applicable", "{what}: {name}");
            }
            assert_eq!(v["non_equivalence"], Value::Null, "{what}");
            continue;
        }
        // Outside Painleve every file of the suite has one Newton answer.
        assert_eq!(case.variational_status(), "solved", "{what}");
        assert_eq!(forms["variational"]["status"], "solved", "{what}");
        // The non-equivalence is frozen_qp minus variational, from `forms`.
        let frozen = numbers(&forms["frozen_qp"]["acceleration"]);
        let var = numbers(&forms["variational"]["acceleration"]);
        assert_eq!(frozen.len(), case.instant.dim(), "{what}");
        assert_eq!(var.len(), case.instant.dim(), "{what}");
        let diff = frozen
            .iter()
            .zip(&var)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        let reported = v["non_equivalence"]["acceleration"].as_f64().unwrap();
        assert!((reported - diff).abs() <= 1e-12 * diff.max(1.0), "{what}");
        let exact = case.verdict() == "equivalent" || case.expected["frozen_exact"] == true;
        if exact {
            assert!(diff < 1e-9, "{what}: frozen_qp off by {diff}");
        } else {
            assert!(diff > 1e-3, "{what}: frozen_qp off by only {diff}");
        }
        // For a sliding rod the frozen answer is predicted by hand: friction
        // frozen at the frictionless normal force F_0 = r / (1 + 3 cos^2),
        // F_t = -mu s |F_0| applied, then eq 18 with eqs 21-22 give
        // F_n = (r + 3 sin cos F_t) / (1 + 3 cos^2).
        if let Some((rod, theta, xd, thetad, FrictionLaw::Coulomb, _)) = rod_of(&case.expected) {
            let (m, l, g) = (rod.mass, rod.half_length, rod.gravity);
            let (s, c) = theta.sin_cos();
            let r = m * (g - l * s * thetad * thetad);
            let slip = if xd + l * s * thetad >= 0.0 {
                1.0
            } else {
                -1.0
            };
            let f0 = r / (1.0 + 3.0 * c * c);
            let ft = -rod.mu * slip * f0.abs();
            let fnormal = (r + 3.0 * s * c * ft) / (1.0 + 3.0 * c * c);
            let want = [
                ft / m,
                fnormal / m - g,
                3.0 * (ft * s - fnormal * c) / (m * l),
            ];
            assert_close(&format!("{what}: frozen_qp by hand"), &frozen, &want, 1e-9);
        }
        // With friction, max_difference compares the friction forms: it is
        // at least the non-equivalence.
        let max = v["max_difference"]["acceleration"].as_f64().unwrap();
        assert!(max >= reported, "{what}: {max} < {reported}");
    }
}

/// The README's `examples/contact.json`: a box pushed onto its right
/// corner, the left one lifting. By hand, with `lambda` on the right corner
/// (`y'' + 0.5 th'' = 0`): `x'' = 50 / 2 = 25`, `y'' = (-19.62 + lambda) / 2`,
/// `th'' = (-12.5 + 0.5 lambda) / 0.25`, so `1.5 lambda = 34.81`,
/// `lambda = 23.20667`, `a = (25, 1.793333, -3.586667)`, and the left corner
/// separates at `y'' - 0.5 th'' = 3.586667 > 0`. Every form, the
/// variational ones on the QP's contact set, gives that answer.
#[test]
fn compare_on_a_contact_that_opens() {
    let (o, v) = json(&["compare", "examples/contact.json", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lambda = 34.81 / 1.5;
    let want_a = [25.0, (-19.62 + lambda) / 2.0, (-12.5 + 0.5 * lambda) / 0.25];
    for name in IDEAL_FORMS {
        let form = &v["forms"][name];
        assert_eq!(form["status"], "solved", "{name}: {}", form["reason"]);
        assert_close(name, &numbers(&form["acceleration"]), &want_a, 1e-9);
        if name != "qp" {
            assert_eq!(form["contact_set"]["from"], "qp", "{name}");
            assert_eq!(
                form["contact_set"]["closed"],
                serde_json::json!([false, true])
            );
        }
        if name != "null_space" {
            let l = numbers(&form["multipliers"]["inequalities"]);
            assert_close(name, &l, &[0.0, lambda], 1e-9);
        }
    }
    assert!(v["max_difference"]["acceleration"].as_f64().unwrap() < 1e-9);
}

/// `solve` on a friction file: the variational answer, named, the same as
/// the library's and as the sidecar's closed form; exit code 1 where no
/// rigid answer exists. Sticking files: the cone check too, one entry per
/// sticking contact, its ratio the sidecar's.
#[test]
fn solve_gives_the_variational_answer() {
    for case in suite() {
        let (o, v) = json(&["solve", &case.path, "--json"]);
        let what = &case.stem;
        let err = stderr(&o);
        let solved = case.variational_status() == "solved";
        assert_eq!(
            o.status.code(),
            Some(if solved { 0 } else { 1 }),
            "{what}: {err}"
        );
        assert_eq!(v["status"], case.variational_status(), "{what}");
        // Every file of the suite has friction or sticking entries: the
        // variational form answers.
        assert!(case.has_friction(), "{what}");
        assert_eq!(v["form"], "variational", "{what}");
        assert_eq!(v["backend"], "variational", "{what}");
        assert_eq!(v["verdict"], case.verdict(), "{what}");
        let library = zwang::coulomb::variational(&case.instant);
        assert_close(
            what,
            &numbers(&v["acceleration"]),
            &library.solution.acceleration,
            1e-12,
        );
        assert_close(
            what,
            &numbers(&v["normal_forces"]),
            &library.normal_forces,
            1e-12,
        );
        assert_eq!(numbers(&v["friction_force"]).len(), case.instant.dim());
        let modes: Vec<&str> = v["modes"]
            .as_array()
            .expect("modes")
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(
            modes.len(),
            case.friction_entries() + case.sticking_entries()
        );
        assert!(modes.iter().all(|m| ["open", "slide", "stick"].contains(m)));
        if let Some(want) = case.expected["variational"].get("modes") {
            assert_eq!(&v["modes"], want, "{what}");
        }
        let indeterminate = case.verdict() == "painleve_indeterminate";
        assert_eq!(
            err.contains("warning: painleve_indeterminate"),
            indeterminate,
            "{what}: {err}"
        );
        if let Some(want) = case.expected["variational"].get("acceleration") {
            assert_close(what, &numbers(&v["acceleration"]), &numbers(want), 1e-9);
        }
        if let Some(want) = case.expected["variational"].get("normal_forces") {
            assert_close(what, &numbers(&v["normal_forces"]), &numbers(want), 1e-9);
        }
        // The cone check: one entry per sticking contact, none without.
        assert_eq!(
            v.get("sticking").is_some(),
            case.sticking_entries() > 0,
            "{what}"
        );
        if let Some(want) = case.expected["sticking"].as_array() {
            let got = v["sticking"].as_array().expect("sticking");
            assert_eq!(got.len(), want.len(), "{what}");
            assert_eq!(got.len(), case.sticking_entries(), "{what}");
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                assert_eq!(g["index"], i, "{what}");
                assert_close(
                    what,
                    &[g["ratio"].as_f64().unwrap()],
                    &[w["ratio"].as_f64().unwrap()],
                    1e-9,
                );
                for key in [
                    "index",
                    "normal_force",
                    "tangential_force",
                    "ratio",
                    "holds",
                ] {
                    assert!(g.get(key).is_some(), "{what}: {key}");
                }
                assert_eq!(g["holds"], w["holds"], "{what}");
                // A contact that cannot stick slips in the answer: no warning.
                assert!(!err.contains("`sticking[0]`"), "{what}: {err}");
            }
        }
    }
}

/// A QP backend cannot take Coulomb friction: naming one is a mistake that
/// says where to go instead; `auto` (the default) is accepted.
#[test]
fn solve_refuses_a_qp_backend_for_friction() {
    let file = format!("{SUITE}/rod_leading_60deg.json");
    for backend in ["clarabel", "active-set", "all"] {
        let o = zwang(&["solve", &file, "--backend", backend, "--json"]);
        assert_bad_input(&o, "--backend", backend);
        assert!(stderr(&o).contains("zwang compare"), "{}", stderr(&o));
    }
    let (o, v) = json(&["solve", &file, "--backend", "auto", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["form"], "variational");
}

/// The readable outputs name the verdict and the forms.
#[test]
fn text_outputs() {
    let file = format!("{SUITE}/rod_leading_painleve.json");
    let o = zwang(&["check", &file]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("verdict: painleve_inconsistent"),
        "{}",
        stdout(&o)
    );
    let o = zwang(&["compare", &file]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for needle in [
        "frozen_qp",
        "variational",
        "not applicable",
        "time (us)",
        "non-equivalence",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
    let o = zwang(&["solve", &file]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("infeasible") && out.contains("form: variational"),
        "{out}"
    );
}

/// `compare DIR`: a Markdown row per instant, the same rows as CSV, and
/// with `--json` an array.
#[test]
fn compare_dir_writes_the_table() {
    let cases = suite();
    let csv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("friction_suite.csv");
    let csv_arg = csv.to_str().unwrap();
    let o = zwang(&["compare", SUITE, "--csv", csv_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), cases.len() + 2, "{out}");
    assert!(lines[0].starts_with("| instant") && lines[0].contains("variational_us"));
    assert!(lines[1].starts_with("|---"));
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let header = cells(lines[0]);
    for (case, line) in cases.iter().zip(&lines[2..]) {
        let row = cells(line);
        assert_eq!(row.len(), header.len(), "{line}");
        let status = case.variational_status();
        // Every file has an answer or is Painleve (the table's "-" for
        // neither is not reached by this suite).
        assert!(
            status == "solved" || case.verdict().starts_with("painleve"),
            "{}",
            case.stem
        );
        // The Markdown says when the frozen QP is exact all the same.
        let frozen_exact = case.expected["frozen_exact"].as_bool() == Some(true);
        let verdict = match case.verdict() {
            "not_equivalent" if frozen_exact => "not_equivalent (QP exact)",
            verdict => verdict,
        };
        assert_eq!(
            (row[0].as_str(), row[1].as_str(), row[2].as_str()),
            (case.stem.as_str(), status, verdict)
        );
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), cases.len() + 1, "{text}");
    assert_eq!(rows[0].split(',').collect::<Vec<_>>(), header);
    for (case, row) in cases.iter().zip(&rows[1..]) {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields.len(), header.len(), "{row}");
        assert_eq!(
            (fields[0], fields[1], fields[2]),
            (
                case.stem.as_str(),
                case.variational_status(),
                case.verdict()
            )
        );
        let coupling: f64 = fields[3].parse().unwrap();
        assert!((coupling - case.expected["coupling"].as_f64().unwrap()).abs() < 1e-7);
    }
    let (o, v) = json(&["compare", SUITE, "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let list = v.as_array().expect("an array");
    assert_eq!(list.len(), cases.len());
    for (case, item) in cases.iter().zip(list) {
        assert!(item["file"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{}.json", case.stem)));
        assert_eq!(item["verdict"], case.verdict());
    }
}

/// A malformed file in a folder is an error row (and an error line), the
/// others still run, and the exit code says so; subfolders and sidecars
/// are not instants.
#[test]
fn compare_dir_with_a_malformed_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("friction_with_a_bad_file");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    for name in ["incline_sliding.json", "incline_sliding.expected.json"] {
        std::fs::copy(repo(&format!("{SUITE}/{name}")), dir.join(name)).unwrap();
    }
    std::fs::copy(
        repo(&format!("{SUITE}/rod_flat.json")),
        dir.join("nested/rod.json"),
    )
    .unwrap();
    let mut bad: Map<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(repo(&format!("{SUITE}/rod_flat.json"))).unwrap(),
    )
    .unwrap();
    bad["friction"][0]["mu"] = Value::from(-0.5);
    std::fs::write(dir.join("bad_mu.json"), Value::Object(bad).to_string()).unwrap();
    let csv = dir.join("nested/table.csv");
    let o = zwang(&[
        "compare",
        dir.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("`friction[0].mu`"),
        "{err}"
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[2].starts_with("| bad_mu") && lines[2].contains("error: `friction[0].mu`"));
    assert!(lines[3].starts_with("| incline_sliding") && lines[3].contains("equivalent"));
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 3);
    let (_, v) = json(&["compare", dir.to_str().unwrap(), "--json"]);
    assert!(v[0]["error"].as_str().unwrap().contains("friction[0].mu"));
    assert_eq!(v[1]["verdict"], "equivalent");

    let empty = dir.join("nested/empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_bad_input(
        &zwang(&["compare", empty.to_str().unwrap()]),
        "no instant files",
        "empty",
    );
    let unwritable = dir.join("no_such_folder/table.csv");
    let o = zwang(&["compare", SUITE, "--csv", unwritable.to_str().unwrap()]);
    assert_bad_input(&o, "`--csv`", "unwritable CSV");
}

/// `zwang` alone runs the rod demonstration.
#[test]
fn no_arguments_runs_the_demonstration() {
    let o = zwang(&[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "The rigid rod of Yao & Gao",
        "frozen_qp - variational",
        "checker: painleve_inconsistent",
        "`zwang --help`",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}
