//! `zwang contact` on Siconos' files, as the contract's outside tests run
//! it: the JSON's keys, the answer written by `--out` checked against the
//! file's own data (the error recomputed here, not taken from the command),
//! and malformed files as one line on stderr with exit code 2.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use zwang_contact::error::siconos_error;
use zwang_contact::{global_error, Friction};
use zwang_problems::{parse_global, parse_local, read_fclib, FclibProblem};

use crate::common::{root, zwang};

/// The shipped files, their form and contact count.
const FILES: [(&str, &str, usize); 3] = [
    ("FC2D_SliderCrankLagrangian00000.dat", "local", 2),
    ("fc2d_granularflowonwall_00667_00000.dat", "local", 667),
    ("gfc2d_granularflowonwall_00000_00117.dat", "global", 0),
];

/// The shipped FCLIB files (in space), their form and contact count.
const FCLIB: [(&str, &str, usize); 2] = [
    ("Box_Stacks-i0122-82-5.hdf5", "global", 82),
    ("Capsules-i125-1213.hdf5", "local", 286),
];

/// The contract's keys of `--json`, exactly.
const KEYS: [&str; 7] = [
    "contacts",
    "dimension",
    "error",
    "format",
    "iterations",
    "status",
    "time_us",
];

fn data(name: &str) -> PathBuf {
    root().join("tests/data/contact-problems").join(name)
}

/// A path named `name` in a scratch folder of its own (the tests run in
/// parallel; the form is read from the file's name).
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("zwang-contact-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Removes a scratch path and its folder.
fn discard(path: &Path) {
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// The keys of a JSON object, sorted.
fn sorted_keys(report: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn numbers(v: &Value) -> Vec<f64> {
    let list = v.as_array().expect("a list");
    list.iter().map(|x| x.as_f64().expect("a number")).collect()
}

/// Runs `zwang contact FILE --json --out ...` and returns the JSON, the
/// answer written and the exit code.
fn run_json(path: &Path, extra: &[&str]) -> (Value, Value, i32) {
    let out = scratch(&format!(
        "{}.json",
        path.file_name().unwrap().to_string_lossy()
    ));
    let mut args = vec![
        "contact",
        path.to_str().unwrap(),
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = zwang(&args);
    let code = o.status.code().unwrap();
    assert!(code == 0 || code == 1, "{path:?}: {}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    let report: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    let answer: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    discard(&out);
    (report, answer, code)
}

/// The error of the answer written, recomputed from the file's data; the
/// written `u` is checked against `r` (and `v`) on the way.
fn recomputed_error(path: &Path, form: &str, answer: &Value) -> f64 {
    recomputed_error_for(Friction::Exact, path, form, answer)
}

/// The same, for the law `friction` (the convex form's measure for
/// [`Friction::Convex`]).
fn recomputed_error_for(friction: Friction, path: &Path, form: &str, answer: &Value) -> f64 {
    let file = std::fs::read_to_string(path).unwrap();
    let r = numbers(&answer["r"]);
    let u = numbers(&answer["u"]);
    let close = |a: &[f64], b: &[f64]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + y.abs()))
    };
    if form == "local" {
        let p = parse_local(&file).unwrap();
        let mut want = vec![0.0; p.q.len()];
        p.velocity(&r, &mut want);
        assert!(close(&u, &want), "{path:?}: u is not W r + q");
        siconos_error(friction, &p.mu, &p.q, &r, &want)
    } else {
        let p = parse_global(&file).unwrap();
        let v = numbers(&answer["v"]);
        assert_eq!(v.len(), p.q.len());
        assert!(
            close(&u, &p.contact_velocity(&v)),
            "{path:?}: u is not H^T v + b"
        );
        global_error(&p, &r, &v, friction)
    }
}

#[test]
fn each_file_reports_the_contract_and_its_answer() {
    for (name, form, contacts) in FILES {
        let path = data(name);
        let (report, answer, code) = run_json(&path, &[]);
        assert_eq!(sorted_keys(&report), KEYS, "{name}");
        assert_eq!(report["format"], form, "{name}");
        assert_eq!(report["dimension"], 2, "{name}");
        assert_eq!(report["contacts"], contacts, "{name}");
        assert!(report["iterations"].is_u64() && report["time_us"].is_u64());
        let error = report["error"].as_f64().unwrap();
        let solved = error <= 1e-8;
        assert_eq!(
            report["status"],
            if solved { "solved" } else { "not_converged" }
        );
        assert_eq!(code, if solved { 0 } else { 1 }, "{name}");
        assert_eq!(numbers(&answer["r"]).len(), 2 * contacts);
        assert_eq!(answer.get("v").is_some(), form == "global", "{name}");
        let mine = recomputed_error(&path, form, &answer);
        assert!(
            (mine - error).abs() <= 1e-9 * error.max(1e-6),
            "{name}: reported {error}, recomputed {mine}"
        );
        // The text report: a few lines, the same exit code.
        let o = zwang(&["contact", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(code));
        let out = text(&o.stdout);
        assert!(
            out.lines().count() <= 4 && out.contains("status: "),
            "{out}"
        );
    }
}

/// A global problem with contacts (two bodies, two planar contacts, a
/// coupled mass block): the answer written is consistent with the file
/// (`u = H^T v + b`) and its error is the one reported; named without
/// `gfc`, `--form global` reads it the same.
#[test]
fn global_form_with_contacts() {
    let problem = "2\n2\n0\n4\n4\n4\t4\n2 0 0 0\n0 3 1 0\n0 1 3 0\n0 0 0 4\n\
        0\n4\n4\n4\t4\n1 0 0 0\n0 1 0 0\n0 0 1 -1\n0 0 0 1\n\
        0.5 -1 2 -3\n0.1 0 0 0.2\n0.3 0.6\n";
    let named = scratch("gfc_two_bodies.dat");
    let unnamed = scratch("two_bodies.dat");
    std::fs::write(&named, problem).unwrap();
    std::fs::write(&unnamed, problem).unwrap();
    let (report, answer, _) = run_json(&named, &[]);
    let (again, _, _) = run_json(&unnamed, &["--form", "global"]);
    for r in [&report, &again] {
        assert_eq!(
            (r["format"].as_str(), r["contacts"].as_u64()),
            (Some("global"), Some(2))
        );
    }
    assert_eq!(numbers(&answer["v"]).len(), 4);
    let mine = recomputed_error(&named, "global", &answer);
    let error = report["error"].as_f64().unwrap();
    assert!(
        (mine - error).abs() <= 1e-12 * error.max(1.0),
        "{error} {mine}"
    );
    for path in [named, unnamed] {
        discard(&path);
    }
}

/// `--form`, `--friction` and `--tolerance` are taken; a tolerance above
/// the start's error is met at once.
#[test]
fn options_are_taken() {
    let slider = data(FILES[0].0);
    let (report, _, code) = run_json(&slider, &["--friction", "convex", "--tolerance", "2"]);
    assert_eq!((report["status"].as_str(), code), (Some("solved"), 0));
    let global = data(FILES[2].0);
    let (report, _, _) = run_json(&global, &["--form", "global"]);
    assert_eq!(report["format"], "global");
    // The global file read as a local one does not parse: `M` then `H`
    // where `q` should follow.
    let o = zwang(&["contact", global.to_str().unwrap(), "--form", "local"]);
    assert_bad_input(&o, "line 913");
}

/// `--finish-steps` reaches the solver: a landing island the default
/// budget leaves above `1e-10` is solved with 1,000 (the error recomputed
/// from the file); a value that is not a count is one line, exit 2.
#[test]
fn finish_steps_are_taken() {
    let path = data("Box_Bin_Landing-20.hdf5");
    let (report, answer, code) =
        run_json(&path, &["--tolerance", "1e-10", "--finish-steps", "1000"]);
    assert_eq!((report["status"].as_str(), code), (Some("solved"), 0));
    let FclibProblem::Global(p) = read_fclib(std::fs::read(&path).unwrap()).unwrap() else {
        panic!("global form");
    };
    let (r, v) = (numbers(&answer["r"]), numbers(&answer["v"]));
    let error = global_error(&p, &r, &v, Friction::Exact);
    assert!(error <= 1e-10, "{error:e}");
    let o = zwang(&["contact", path.to_str().unwrap(), "--finish-steps", "x"]);
    assert_bad_input(&o, "--finish-steps");
}

/// The last words of the one line on stderr, exit code 2, no stdout.
fn assert_bad_input(o: &Output, needle: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
}

/// `zwang contact --json` on a scratch file `name` holding `content`: the
/// one line of [`assert_bad_input`] ending in `needle`.
fn assert_file_refused(name: &str, content: &str, needle: &str) {
    let path = scratch(name);
    std::fs::write(&path, content).unwrap();
    let o = zwang(&["contact", path.to_str().unwrap(), "--json"]);
    discard(&path);
    assert_bad_input(&o, needle);
}

#[test]
fn malformed_files_are_one_line_and_exit_2() {
    let slider = std::fs::read_to_string(data(FILES[0].0)).unwrap();
    let granular = std::fs::read_to_string(data(FILES[1].0)).unwrap();
    let mu = "1.000000000000000020816682e-02";
    let cases = [
        (
            "truncated.dat",
            granular[..granular.len() / 3].to_owned(),
            "ends before",
        ),
        (
            "nan.dat",
            granular.replacen("856.713", "nan", 1),
            "not a finite number",
        ),
        (
            "negative_mu.dat",
            slider.replacen(mu, "-0.5", 1),
            "friction coefficient of contact 0",
        ),
        (
            "count.dat",
            slider.replacen("2\n2\n", "2\n1\n", 1),
            "after the last friction",
        ),
        (
            "nnz.dat",
            granular.replacen("nnz: 3822", "nnz: 3821", 1),
            "nnz 3821",
        ),
        (
            "dimension.dat",
            slider.replacen("2\n", "4\n", 1),
            "dimension 4",
        ),
    ];
    for (name, content, needle) in cases {
        assert_file_refused(name, &content, needle);
    }
    // FCLIB's HDF5, by name or by signature: cut short, foreign, or of
    // another form than `--form` says; and a missing file.
    let capsules = std::fs::read(data(FCLIB[1].0)).unwrap();
    let boxes = std::fs::read(data(FCLIB[0].0)).unwrap();
    let renamed = String::from_utf8_lossy(&boxes).contains("fclib_global");
    assert!(renamed, "the group's name is stored as written");
    let foreign: Vec<u8> = {
        // The same file with its group renamed (same length; the
        // superblock of version 0 has no checksum): HDF5, not FCLIB.
        let mut b = boxes.clone();
        let at: Vec<usize> = (0..b.len() - 12)
            .filter(|&i| &b[i..i + 12] == b"fclib_global")
            .collect();
        for i in at {
            b[i..i + 12].copy_from_slice(b"other_global");
        }
        b
    };
    let signature = b"\x89HDF\r\n\x1a\n\0\0".to_vec();
    for (name, content, needle, extra) in [
        (
            "problem.hdf5",
            signature.clone(),
            "FCLIB: the file: unexpected end",
            "",
        ),
        (
            "problem.dat",
            signature,
            "FCLIB: the file: unexpected end",
            "",
        ),
        (
            "cut.hdf5",
            capsules[..30_000].to_vec(),
            "FCLIB: /fclib_local/",
            "",
        ),
        (
            "text.hdf5",
            slider.clone().into_bytes(),
            "not an HDF5 file",
            "",
        ),
        ("foreign.h5", foreign, "not an FCLIB problem", ""),
        (
            "capsules.hdf5",
            capsules.clone(),
            "holds the local form",
            "global",
        ),
    ] {
        let path = scratch(name);
        std::fs::write(&path, content).unwrap();
        let mut args = vec!["contact", path.to_str().unwrap()];
        if !extra.is_empty() {
            args.extend(["--form", extra]);
        }
        let o = zwang(&args);
        discard(&path);
        assert_bad_input(&o, needle);
    }
    let o = zwang(&["contact", "tests/data/contact-problems/missing.dat"]);
    assert_bad_input(&o, "cannot read");
    let slider = data(FILES[0].0);
    let o = zwang(&["contact", slider.to_str().unwrap(), "--tolerance", "-1"]);
    assert_bad_input(&o, "--tolerance");
}

/// The README's `zwang contact` lines run from the root as written.
#[test]
fn readme_contact_commands_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let prefix = "cargo run --release -- contact ";
    // Where the README writes its answers.
    std::fs::create_dir_all(root().join("target")).unwrap();
    let mut ran = 0;
    for line in readme.lines().filter(|l| l.starts_with(prefix)) {
        let command = line.split('#').next().unwrap();
        let args: Vec<&str> = command.split_whitespace().skip(4).collect();
        let o = zwang(&args);
        let code = o.status.code();
        assert_eq!(code, Some(0), "{line}: {}", text(&o.stderr));
        ran += 1;
    }
    assert!(ran >= 1, "the README shows `zwang contact`");
}

/// The contract's aim: every shipped file solved to 1e-8.
#[test]
fn siconos_files_are_solved_to_1e_8() {
    for (name, form, _) in FILES {
        let path = data(name);
        let (report, answer, code) = run_json(&path, &["--tolerance", "1e-8"]);
        assert_eq!(
            (report["status"].as_str(), code),
            (Some("solved"), 0),
            "{name}"
        );
        let error = recomputed_error(&path, form, &answer);
        assert!(error <= 1e-8, "{name}: {error}");
        // The convex form too, by its own measure.
        let (report, answer, code) =
            run_json(&path, &["--tolerance", "1e-8", "--friction", "convex"]);
        assert_eq!(
            (report["status"].as_str(), code),
            (Some("solved"), 0),
            "{name}"
        );
        let error = recomputed_error_for(Friction::Convex, &path, form, &answer);
        assert!(error <= 1e-8, "{name}: {error}");
    }
}

/// FCLIB's files in space, local and global form: the contract's keys,
/// solved to 1e-8 (exact and convex law), the written answer consistent
/// with the file (`u = W r + q`, `u = H^T v + w`) and its error the one
/// reported. (`zwang-problems`' `tests/problems/fclib.rs` recomputes the error
/// from the raw datasets.)
#[test]
fn fclib_files_are_solved_to_1e_8() {
    for (name, form, contacts) in FCLIB {
        let path = data(name);
        let problem = read_fclib(std::fs::read(&path).unwrap()).unwrap();
        for (friction, law) in [(Friction::Exact, "exact"), (Friction::Convex, "convex")] {
            let (report, answer, code) = run_json(&path, &["--friction", law]);
            assert_eq!(sorted_keys(&report), KEYS, "{name}");
            assert_eq!(
                (report["status"].as_str(), code),
                (Some("solved"), 0),
                "{name} {law}"
            );
            assert_eq!(report["format"], form);
            assert_eq!(report["dimension"], 3);
            assert_eq!(report["contacts"], contacts);
            let (r, u) = (numbers(&answer["r"]), numbers(&answer["u"]));
            assert_eq!((r.len(), u.len()), (3 * contacts, 3 * contacts));
            let close = |a: &[f64], b: &[f64]| {
                a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + y.abs()))
            };
            let mine = match &problem {
                FclibProblem::Local(p) => {
                    let mut want = vec![0.0; p.q.len()];
                    p.velocity(&r, &mut want);
                    assert!(close(&u, &want), "{name}: u is not W r + q");
                    siconos_error(friction, &p.mu, &p.q, &r, &u)
                }
                FclibProblem::Global(p) => {
                    let v = numbers(&answer["v"]);
                    assert!(close(&u, &p.contact_velocity(&v)), "{name}");
                    global_error(p, &r, &v, friction)
                }
            };
            let error = report["error"].as_f64().unwrap();
            assert!(
                error <= 1e-8 && mine <= 1e-8,
                "{name} {law}: {error} {mine}"
            );
            assert!((mine - error).abs() <= 1e-9 * error.max(1e-6), "{name}");
        }
        // The text report names FCLIB.
        let o = zwang(&["contact", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0));
        let out = text(&o.stdout);
        assert!(out.contains(&format!(
            "FCLIB {form} form, {contacts} contacts in dimension 3"
        )));
    }
}

/// A problem without an answer (`W = 0`, a contact approaching): the
/// impulse grows without bound, which makes Siconos' relative measure
/// small; the command reports it not converged (exit 1), not solved.
#[test]
fn a_problem_without_an_answer_is_not_solved() {
    let path = scratch("no_answer.dat");
    std::fs::write(&path, "2\n1\n0\n2\n2\n2\t2\n0 0\n0 0\n-1 0.5\n0.3\n").unwrap();
    let (report, _, code) = run_json(&path, &["--tolerance", "1e-8"]);
    assert_eq!(
        (report["status"].as_str(), code),
        (Some("not_converged"), 1)
    );
}

/// The problems in space of zwang-problems' tests, as Siconos' text files
/// (written by its `tests/data/siconos-3d/make.py`).
fn space(name: &str) -> PathBuf {
    root()
        .join("crates/zwang-problems/tests/data/siconos-3d")
        .join(format!("{name}.dat"))
}

/// Siconos' `fc3d_compute_error` (and `fc2d_compute_error`) as their C
/// source reads, written here apart from the library's measure:
/// `u = W r + q` recomputed, `||r - P_K(r - u - mu |u_T| e_N)||` over all contacts,
/// divided by `max(||q||, ||r||, ||u||)` only above `DBL_EPSILON`. With
/// it, the rounding of such a measure: a few `DBL_EPSILON` of the data
/// over the same divisor (the residual of an answer is a difference of
/// numbers of the data's size).
fn siconos_measure(path: &Path, r: &[f64]) -> (f64, f64) {
    let p = parse_local(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut u = p.q.clone();
    for (&x, (row, col)) in p.w.iter() {
        u[row] += x * r[col];
    }
    let d = p.dimension;
    let mut sum = 0.0;
    for (i, &mu) in p.mu.iter().enumerate() {
        let (ri, ui) = (&r[d * i..d * i + d], &u[d * i..d * i + d]);
        let slip = if d == 3 {
            ui[1].hypot(ui[2])
        } else {
            ui[1].abs()
        };
        let mut x = [ri[0] - ui[0] - mu * slip, ri[1] - ui[1], 0.0];
        if d == 3 {
            x[2] = ri[2] - ui[2];
        }
        let t = x[1].hypot(x[2]);
        let p = if mu * t <= -x[0] {
            [0.0; 3]
        } else if t <= mu * x[0] {
            x
        } else {
            let n = (mu * t + x[0]) / (mu * mu + 1.0);
            [n, mu * n * x[1] / t, mu * n * x[2] / t]
        };
        sum += (0..d).map(|a| (ri[a] - p[a]).powi(2)).sum::<f64>();
    }
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let scale = norm(&p.q).max(norm(r)).max(norm(&u));
    let divisor = if scale > 2.220446049250313e-16 {
        scale
    } else {
        1.0
    };
    (sum.sqrt() / divisor, 8.0 * f64::EPSILON * scale / divisor)
}

/// The reported error is Siconos' measure of the answer written, to its
/// rounding.
fn assert_siconos_measure(what: &str, path: &Path, r: &[f64], reported: f64) {
    let (mine, rounding) = siconos_measure(path, r);
    println!("{what}: reported {reported:e}, Siconos' measure {mine:e} (rounding {rounding:e})");
    assert!(
        (mine - reported).abs() <= 1e-9 * mine + rounding,
        "{what}: reported {reported:e}, Siconos' measure {mine:e}"
    );
}

/// Three contacts on independent bodies (sticking, sliding, open), `W`
/// dense, by blocks, and by CSparse's triplets, columns and rows: each
/// solved to its closed form, the error reported Siconos' measure of the
/// answer written.
#[test]
fn siconos_files_in_space_in_every_storage() {
    let r_want = [1.0, 0.2, -0.1, 1.0, -0.3, -0.4, 0.0, 0.0, 0.0];
    let u_want = [0.0, 0.0, 0.0, 0.0, 2.7, 3.6, 0.5, -1.0, 2.0];
    for storage in ["dense", "sbm", "triplet", "csc", "csr"] {
        let path = space(&format!("three_contacts_{storage}"));
        let (report, answer, code) = run_json(&path, &[]);
        assert_eq!(sorted_keys(&report), KEYS, "{storage}");
        assert_eq!(code, 0, "{storage}");
        assert_eq!(report["status"], "solved", "{storage}");
        assert_eq!(report["format"], "local", "{storage}");
        assert_eq!(
            (report["dimension"].as_u64(), report["contacts"].as_u64()),
            (Some(3), Some(3)),
            "{storage}"
        );
        let (r, u) = (numbers(&answer["r"]), numbers(&answer["u"]));
        for k in 0..9 {
            assert!((r[k] - r_want[k]).abs() <= 1e-8, "{storage}: r {r:?}");
            assert!((u[k] - u_want[k]).abs() <= 1e-8, "{storage}: u {u:?}");
        }
        let error = report["error"].as_f64().unwrap();
        assert!(error <= 1e-8, "{storage}: {error:e}");
        assert_siconos_measure(storage, &path, &r, error);
    }
    // A problem coupled through every block: the same answer from every
    // storage.
    let answers: Vec<Vec<f64>> = ["dense", "sbm", "triplet", "csc", "csr"]
        .iter()
        .map(|s| {
            let (report, answer, _) = run_json(&space(&format!("coupled_{s}")), &[]);
            assert_eq!(report["status"], "solved", "{s}");
            numbers(&answer["r"])
        })
        .collect();
    for r in &answers[1..] {
        for (a, b) in r.iter().zip(&answers[0]) {
            assert!((a - b).abs() <= 1e-12, "{r:?} against {:?}", answers[0]);
        }
    }
}

/// Siconos' measure where the data vanish: the granular flow at rest
/// (`||q||` 4.3e-18, every scale below `DBL_EPSILON`: the residual
/// itself), and `q = 0` (the answer `r = 0`, error 0), as reported.
#[test]
fn degenerate_problems_report_siconos_measure() {
    let granular = data(FILES[1].0);
    let zero = scratch("zero_q.dat");
    let text = std::fs::read_to_string(space("coupled_dense")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The dense file's q is its next to last line.
    let q_line = lines.len() - 2;
    let zeroed: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == q_line {
                "0 0 0 0 0 0".into()
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&zero, zeroed.join("\n") + "\n").unwrap();
    for path in [granular, zero.clone()] {
        let (report, answer, code) = run_json(&path, &[]);
        assert_eq!((report["status"].as_str(), code), (Some("solved"), 0));
        let r = numbers(&answer["r"]);
        let error = report["error"].as_f64().unwrap();
        assert_siconos_measure(&format!("{path:?}"), &path, &r, error);
        // Every scale is below DBL_EPSILON: the residual itself, at most
        // that of r = 0 (||q||).
        assert!(error <= 4.3e-18, "{path:?}: {error:e}");
    }
    discard(&zero);
}

/// Malformed files in space: one line naming what is wrong, exit 2.
#[test]
fn malformed_files_in_space_are_one_line_and_exit_2() {
    let sbm = std::fs::read_to_string(space("three_contacts_sbm")).unwrap();
    let csr = std::fs::read_to_string(space("three_contacts_csr")).unwrap();
    let dense = std::fs::read_to_string(space("three_contacts_dense")).unwrap();
    for (name, content, needle) in [
        (
            "blocks.dat",
            sbm.replacen("3\t6\t9\t\n", "3\t6\t10\t\n", 1),
            "block row sizes [3, 6, 10] do not increase to 9",
        ),
        (
            "block_number.dat",
            sbm.replacen("\n1\n  1.0", "\n2\n  1.0", 1),
            "block number 2 where block 1 is due",
        ),
        (
            "csr.dat",
            csr.replacen("csr: 9-by-9", "9-by-9", 1),
            "with origin 3, but its CSparse header says",
        ),
        (
            "sizes.dat",
            dense.replacen("3\n3\n", "2\n3\n", 1),
            "W's rows has size 9, expected 6",
        ),
        ("cut.dat", sbm[..sbm.len() / 2].to_owned(), "ends before"),
    ] {
        assert_file_refused(name, &content, needle);
    }
}
