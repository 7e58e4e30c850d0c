//! Helpers shared by the command-line tests: run the built `zwang` binary
//! from the repository root and read what it printed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root: the scenes, instants and data files the
/// command line is tested on live there, and the commands run from it as
/// the README's do.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    root().join(path)
}

/// The `zwang` binary, which cargo builds for this package's tests.
pub fn zwang_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_zwang"))
}

/// Runs `zwang ARGS` from the repository root.
pub fn zwang(args: &[&str]) -> Output {
    Command::new(zwang_bin())
        .args(args)
        .current_dir(root())
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
