//! Instants with constraints of higher order (`tests/data/higher_order`)
//! through the `zwang` binary, as a user meets them: `check` says
//! `stationary_only` and names the rows, `solve` and `compare` report
//! `not_applicable` as an answer, malformed orders are one line naming
//! their key.
//!
//! Each instant `NAME.json` has a sidecar `NAME.expected.json` whose `note`
//! says how it was derived: `verdict` and `higher_order_rows` [[row,
//! order]].

use serde_json::Value;
use std::path::PathBuf;

use crate::common;
use common::{numbers, repo, stderr, stdout, suite_instants, zwang};

const SUITE: &str = "tests/data/higher_order";

fn instants() -> Vec<PathBuf> {
    suite_instants(&repo(SUITE))
}

fn json(args: &[&str]) -> (std::process::Output, Value) {
    let o = zwang(args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", stdout(&o)));
    (o, v)
}

/// Every instant of the suite: the verdict and the rows its sidecar gives,
/// `solve` not applicable (exit 1), `compare` not applicable form by form
/// (exit 0).
#[test]
fn every_higher_order_instant() {
    let files = instants();
    assert_eq!(files.len(), 3, "{files:?}");
    for file in files {
        let path = file.strip_prefix(repo("")).unwrap().display().to_string();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(file.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        let (o, check) = json(&["check", &path, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{path}: {}", stderr(&o));
        assert_eq!(check["verdict"], expected["verdict"], "{path}");
        let reason = check["reason"].as_str().unwrap();
        for pair in expected["higher_order_rows"].as_array().unwrap() {
            let [row, order] = numbers(pair)[..] else {
                panic!("{path}: a pair")
            };
            let named = format!("{row} (order {order}");
            assert!(reason.contains(&named), "{path}: {named} in {reason}");
        }
        assert!(reason.contains("stationary, not a minimum"), "{reason}");

        let (o, solve) = json(&["solve", &path, "--json"]);
        assert_eq!(o.status.code(), Some(1), "{path}");
        assert!(o.stderr.is_empty(), "{}", stderr(&o));
        assert_eq!(solve["status"], "not_applicable");
        assert_eq!(solve["reason"], check["reason"]);

        let (o, compare) = json(&["compare", &path, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{path}");
        assert_eq!(compare["verdict"], "stationary_only");
        for (name, form) in compare["forms"].as_object().unwrap() {
            assert_eq!(form["status"], "not_applicable", "{path}: {name}");
            assert!(form["reason"].as_str().unwrap().contains("higher order"));
        }
    }
    // The folder as a table: one row each, status and verdict.
    let o = zwang(&["compare", SUITE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    for stem in ["mixed_orders", "order_four", "turning_plane"] {
        let row = table.lines().find(|l| l.contains(stem)).unwrap();
        assert!(
            row.contains("not_applicable") && row.contains("stationary_only"),
            "{row}"
        );
    }
}

/// A malformed order: exit 2, nothing on stdout, one line naming the key.
#[test]
fn malformed_orders_name_their_key() {
    for (file, key) in [
        ("order_length", "equalities.order"),
        ("order_below_two", "equalities.order[1]"),
        ("order_not_an_integer", "equalities.order[0]"),
        ("order_not_an_array", "equalities.order"),
        ("order_on_inequalities", "inequalities.order"),
    ] {
        let path = format!("{SUITE}/malformed/{file}.json");
        for command in ["solve", "check", "compare"] {
            let o = zwang(&[command, &path]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{command} {file}: {err}");
            assert!(o.stdout.is_empty());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(&format!("`{key}`")), "{file}: {err}");
        }
    }
}

/// Order 2 written out is the ordinary instant: it solves as before.
#[test]
fn explicit_order_two_solves() {
    let text = r#"{"mass": [1.0, 1.0], "force": [0.0, -9.81],
                   "equalities": {"A": [[0.0, 1.0]], "b": [0.0], "order": [2]}}"#;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("order_two.json");
    std::fs::write(&path, text).unwrap();
    let (o, v) = json(&["solve", path.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(v["status"], "solved");
    // The floor holds the weight: a = 0, lambda = g.
    assert_eq!(numbers(&v["acceleration"]), [0.0, 0.0]);
    let l = numbers(&v["multipliers"]["equalities"]);
    assert!((l[0] - 9.81).abs() < 1e-12, "{l:?}");
}
