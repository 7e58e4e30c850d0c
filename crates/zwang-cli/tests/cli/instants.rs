//! The `zwang` binary as a user meets it: exit codes, stdout and stderr.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{numbers, repo, stderr, stdout, zwang, zwang_with_stdin};

/// Each file of `tests/data/malformed` and the key its error must name.
const MALFORMED: [(&str, &str); 36] = [
    ("not_json", "file"),
    ("top_level_array", "file"),
    ("missing_mass", "mass"),
    ("missing_force", "force"),
    ("force_wrong_length", "force"),
    ("force_not_a_number", "force[1]"),
    ("force_nan_literal", "force[1]"),
    ("force_overflow", "force[0]"),
    ("mass_empty", "mass"),
    ("mass_not_square", "mass"),
    ("mass_ragged_rows", "mass"),
    ("mass_not_symmetric", "mass"),
    ("mass_not_positive_definite", "mass"),
    ("mass_nan_string", "mass[0][1]"),
    ("mass_sparse_infinity", "mass.vals[1]"),
    ("mass_sparse_huge_shape", "mass"),
    ("sparse_negative_index", "mass.rows[1]"),
    ("sparse_triplet_out_of_range", "equalities.A"),
    ("sparse_lengths_differ", "inequalities.A"),
    ("equalities_wrong_columns", "equalities.A"),
    ("equalities_b_length", "equalities.b"),
    ("equalities_missing_b", "equalities.b"),
    ("inequalities_not_an_object", "inequalities"),
    ("friction_row_out_of_range", "friction[0].normal.row"),
    ("friction_bad_slip", "friction[0].slip"),
    ("friction_negative_mu", "friction[0].mu"),
    ("friction_tangent_length", "friction[0].tangent"),
    ("name_not_a_string", "name"),
    ("mass_vector_not_a_number", "mass[1]"),
    ("mass_vector_not_positive", "mass"),
    ("unknown_top_level_key", "inequality"),
    ("unknown_key_in_rows", "equalities.units"),
    ("unknown_key_in_sparse_matrix", "mass.nnz"),
    ("unknown_key_in_friction", "friction[0].mu_s"),
    ("unknown_key_in_row_reference", "friction[0].normal.index"),
    ("unknown_key_in_sticking", "sticking[0].mu_k"),
];

/// Bad input: exit code 2, nothing on stdout, one line on stderr naming
/// `key` (in backticks, as the instant errors write it).
fn assert_bad_input(o: &Output, key: &str, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(o.stdout.is_empty(), "{what}: stdout {:?}", stdout(o));
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(err.starts_with("error: "), "{what}: {err}");
    assert!(err.contains(&format!("`{key}`")), "{what}: {err}");
}

fn solve_json(file: &str, extra: &[&str]) -> (Output, Value) {
    let mut args = vec!["solve", file, "--json"];
    args.extend(extra);
    let o = zwang(&args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{file}: stdout is not JSON ({e}): {}", stdout(&o)));
    (o, v)
}

fn assert_vec(what: &str, got: &Value, want: &[f64]) {
    let got = numbers(got);
    assert_eq!(got.len(), want.len(), "{what}: {got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

/// A scratch file for this test binary.
fn scratch(name: &str, text: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_malformed_file_is_one_line_naming_its_key() {
    let dir = repo("tests/data/malformed");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = MALFORMED.iter().map(|(f, _)| format!("{f}.json")).collect();
    listed.sort();
    assert_eq!(files, listed, "every malformed file has its expected key");
    for (file, key) in MALFORMED {
        let path = format!("tests/data/malformed/{file}.json");
        for args in [
            &["solve", path.as_str()][..],
            &["solve", &path, "--json"],
            &["solve", &path, "--backend", "all"],
            &["check", &path, "--json"],
            &["compare", &path, "--json"],
        ] {
            assert_bad_input(&zwang(args), key, &format!("{args:?}"));
        }
    }
}

/// The pendulum of `examples/pendulum.json`: `M = I`, `Q = (0, -g)`, the
/// row `0.6 a_x - 0.8 a_y = -4` (speed 2 m/s on a 1 m rod). One row, unit
/// mass: `l = b - A Q = -4 - 7.848 = -11.848` (the rod tension, `m g cos +
/// m v^2 / L`), `a = Q + A^T l`, `Z = l^2 / 2`.
#[test]
fn pendulum_json_by_hand() {
    let (o, v) = solve_json("examples/pendulum.json", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(v["status"], "solved");
    assert_vec("acceleration", &v["acceleration"], &[-7.1088, -0.3316]);
    assert_vec("l_eq", &v["multipliers"]["equalities"], &[-11.848]);
    assert_vec("l_in", &v["multipliers"]["inequalities"], &[]);
    assert_vec(
        "Z",
        &Value::Array(vec![v["compulsion"].clone()]),
        &[0.5 * 11.848 * 11.848],
    );
    assert!(v["backend"].as_str().is_some_and(|b| !b.is_empty()));
    for key in [
        "stationarity",
        "equalities",
        "inequalities",
        "complementarity",
    ] {
        let r = v["residuals"][key].as_f64().expect(key);
        assert!((0.0..1e-10).contains(&r), "{key}: {r}");
    }
    assert!(v["iterations"].is_u64());
}

/// `examples/contact.json`: the pushed box tips onto its right corner
/// (left contact open, `l_in[0] = 0`; see tests/data/box_tipping).
#[test]
fn contact_json_by_hand() {
    let (o, v) = solve_json("examples/contact.json", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let l = numbers(&v["multipliers"]["inequalities"]);
    assert!(
        l[0].abs() < 1e-8 && (l[1] - 23.206_666_666_666_667).abs() < 1e-8,
        "{l:?}"
    );
    assert_vec(
        "acceleration",
        &v["acceleration"],
        &[25.0, 1.793_333_333_333_333_2, -3.586_666_666_666_666_4],
    );
}

#[test]
fn table_is_the_default() {
    let o = zwang(&["solve", "examples/pendulum.json"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for needle in [
        "status",
        "solved",
        "Z",
        "residual stationarity",
        "a[1]",
        "-7.1088",
        "lambda_eq[0]",
        "-11.848",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

#[test]
fn each_backend_by_name() {
    for name in zwang_qp::BACKEND_NAMES {
        let (o, v) = solve_json("examples/pendulum.json", &["--backend", name]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_vec(name, &v["acceleration"], &[-7.1088, -0.3316]);
    }
    let (_, v) = solve_json("examples/pendulum.json", &["--backend", "clarabel"]);
    assert_eq!(v["backend"], "clarabel");
}

/// `--backend all`: the `auto` keys at the top, every backend under
/// `all.backends`, and differences at round-off; `direct` does not apply
/// to an instant with inequality rows and says so.
#[test]
fn all_backends_compared() {
    let (o, v) = solve_json("examples/contact.json", &["--backend", "all"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(v["status"], "solved");
    assert!(v["acceleration"].is_array());
    let backends = v["all"]["backends"].as_object().expect("all.backends");
    for name in zwang_qp::BACKEND_NAMES {
        assert!(backends.contains_key(name), "{name}");
    }
    assert_eq!(backends["direct"]["status"], "not_applicable");
    assert!(backends["direct"]["reason"].is_string());
    assert_eq!(backends["clarabel"]["status"], "solved");
    for key in ["acceleration", "multipliers"] {
        let d = v["all"]["max_difference"][key].as_f64().expect(key);
        assert!((0.0..1e-7).contains(&d), "{key}: {d}");
    }
    let table = stdout(&zwang(&[
        "solve",
        "examples/contact.json",
        "--backend",
        "all",
    ]));
    for needle in [
        "auto",
        "direct",
        "active-set",
        "clarabel",
        "not_applicable",
        "largest difference",
    ] {
        assert!(table.contains(needle), "{needle}: {table}");
    }
}

/// Inconsistent rows: exit code 1, and the answer known still printed.
#[test]
fn infeasible_exits_1() {
    let (o, v) = solve_json("tests/data/inconsistent_rows.json", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(v["status"], "infeasible");
    assert!(v["residuals"]["equalities"].as_f64().unwrap() > 1e-3);
    assert_eq!(
        zwang(&["solve", "tests/data/inconsistent_rows.json"])
            .status
            .code(),
        Some(1)
    );
    let o = zwang(&[
        "solve",
        "examples/contact.json",
        "--backend",
        "direct",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "not_applicable");
}

#[test]
fn command_line_mistakes_exit_2() {
    let o = zwang(&["solve", "examples/pendulum.json", "--backend", "fastest"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("--backend") && err.contains("fastest"),
        "{err}"
    );
    let o = zwang(&["solve", "tests/data/no_such_file.json"]);
    assert_bad_input(&o, "file", "missing file");
    let o = zwang(&["solve", "tests/data"]);
    assert_bad_input(&o, "file", "a directory");
    for args in [
        &["solve"][..],
        &["solve", "a.json", "--verbose"],
        &["frobnicate"],
    ] {
        let o = zwang(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            o.stdout.is_empty() && stderr(&o).lines().count() == 1,
            "{args:?}"
        );
    }
}

#[test]
fn help_version_and_no_subcommand_exit_0() {
    for args in [
        &["--help"][..],
        &["solve", "--help"],
        &["check", "--help"],
        &["compare", "--help"],
        &["--version"],
        &[],
    ] {
        let o = zwang(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(!o.stdout.is_empty() && o.stderr.is_empty(), "{args:?}");
    }
}

/// A misspelled key is an error (it would silently change the physics):
/// `"inequality"` for `inequalities` would drop the floor and solve a free
/// fall. `--allow-unknown` on `solve`, `check` and `compare` reads the
/// unknown keys as warnings, one line each, and the instant is solved.
#[test]
fn unknown_keys_are_errors_unless_allowed() {
    let path = scratch(
        "unknown_keys.json",
        r#"{"mass": [[2.0]], "force": [4.0], "comment": "hi",
            "equalities": {"A": [], "b": [], "units": "SI"}}"#,
    );
    let file = path.to_str().unwrap();
    for command in ["solve", "check", "compare"] {
        let o = zwang(&[command, file, "--json"]);
        assert_bad_input(&o, "comment", command);
        assert!(stderr(&o).contains("--allow-unknown"), "{}", stderr(&o));

        let o = zwang(&[command, file, "--json", "--allow-unknown"]);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v.is_object(), "{command}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 2, "{command}: {err}");
        assert!(err.lines().all(|l| l.starts_with("warning: ")), "{err}");
        assert!(
            err.contains("`comment`") && err.contains("`equalities.units`"),
            "{err}"
        );
    }
    let (o, v) = solve_json(file, &["--allow-unknown"]);
    assert_eq!(o.status.code(), Some(0));
    assert_vec("a", &v["acceleration"], &[2.0]);

    // A folder: the file is an error row unless allowed.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unknown_keys_dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&path, dir.join("unknown_keys.json")).unwrap();
    let dir = dir.to_str().unwrap();
    let o = zwang(&["compare", dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("error: `comment`: unknown key"));
    let o = zwang(&["compare", dir, "--allow-unknown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("| equivalent "), "{}", stdout(&o));
}

/// A diagonal mass may be given as a plain vector: `[2, 4]` is
/// `diag(2, 4)`, so `a = Q / m` entry by entry, `(3 / 2, -8 / 4)`.
#[test]
fn diagonal_mass_as_a_vector() {
    let path = scratch(
        "vector_mass.json",
        r#"{"mass": [2.0, 4.0], "force": [3.0, -8.0]}"#,
    );
    let (o, v) = solve_json(path.to_str().unwrap(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_vec("a", &v["acceleration"], &[1.5, -2.0]);
    assert_vec("Z", &Value::Array(vec![v["compulsion"].clone()]), &[0.0]);
}

/// `-` reads the instant from standard input.
#[test]
fn standard_input() {
    let text = std::fs::read(repo("examples/pendulum.json")).unwrap();
    let o = zwang_with_stdin(&["solve", "-", "--json"], &text);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_vec("a", &v["acceleration"], &[-7.1088, -0.3316]);
}

/// Friction entries: `solve` gives the variational answer, quietly. A
/// unit mass sliding right on a floor: `F_n = g`, `a_x = -mu g`.
#[test]
fn friction_is_solved_by_the_variational_form() {
    let path = scratch(
        "friction.json",
        r#"{"mass": [[1.0, 0.0], [0.0, 1.0]], "force": [0.0, -9.81],
            "inequalities": {"A": [[0.0, 1.0]], "b": [0.0]},
            "friction": [{"normal": {"set": "inequalities", "row": 0},
                          "tangent": [1.0, 0.0], "mu": 0.3, "slip": 1}]}"#,
    );
    let (o, v) = solve_json(path.to_str().unwrap(), &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(v["status"], "solved");
    assert_eq!(
        (&v["form"], &v["backend"]),
        (&"variational".into(), &"variational".into())
    );
    assert_eq!(v["verdict"], "equivalent");
    assert_vec("acceleration", &v["acceleration"], &[-0.3 * 9.81, 0.0]);
    assert_vec("normal force", &v["normal_forces"], &[9.81]);
}
