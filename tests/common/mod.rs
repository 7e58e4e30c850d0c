//! Helpers shared by the command-line tests: run the built `zwang` binary
//! from the repository root and read what it printed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The `zwang` binary. It belongs to the package `zwang-cli`, not to this
/// one (the facade library does not depend on the command line), so cargo
/// does not hand its path to these tests. The first call brings it up to
/// date with `cargo test --workspace --no-run` in the profile and target
/// folder these tests were built with: the very build that
/// `cargo test --workspace` has just made (so a quick no-op there), which
/// builds the binary for the integration test of `zwang-cli`, and which
/// rebuilds it when only `cargo test -p zwang --test cli` was asked for.
pub fn zwang_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // This test runs from <target>/<profile>/deps/.
        let exe = std::env::current_exe().expect("the test knows its own path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from <target>/<profile>/deps");
        let target_dir = profile_dir.parent().expect("<target>/<profile>");
        let profile = match profile_dir.file_name().and_then(|p| p.to_str()) {
            Some("debug") => "test",
            Some("release") => "release",
            Some(name) => name,
            None => panic!("no profile folder in {}", exe.display()),
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let built = Command::new(cargo)
            .args(["test", "--workspace", "--no-run", "--quiet"])
            .args(["--profile", profile])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo runs");
        assert!(
            built.status.success(),
            "cargo test --workspace --no-run failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        profile_dir.join(format!("zwang{}", std::env::consts::EXE_SUFFIX))
    })
}

/// Runs `zwang ARGS` from the repository root.
pub fn zwang(args: &[&str]) -> Output {
    Command::new(zwang_bin())
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
