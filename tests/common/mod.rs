//! Helpers shared by the command-line tests: run the built `zwang` binary
//! from the repository root and read what it printed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `zwang ARGS` from the repository root.
pub fn zwang(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zwang"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the zwang binary runs")
}

/// What the command printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// What the command printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// A JSON array of numbers.
pub fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}
