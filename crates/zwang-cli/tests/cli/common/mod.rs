//! Helpers shared by the command-line tests: run the built `zwang` binary
//! from the repository root and read what it printed.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// Runs `zwang ARGS` from the repository root with `input` on its
/// standard input (`-` in place of a file).
pub fn zwang_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(zwang_bin())
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the zwang binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// The files of `dir` whose extension is `ext`, sorted, so that a test
/// over every shipped file goes through them in one order.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// The instants `NAME.json` of a suite in `dir`, sorted, without their
/// sidecars `NAME.expected.json`.
pub fn suite_instants(dir: &Path) -> Vec<PathBuf> {
    let mut files = files_with_extension(dir, "json");
    files.retain(|p| !p.to_string_lossy().ends_with(".expected.json"));
    files
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

/// A file in the temporary folder, removed when dropped: `name` says the
/// module it is for, and its ending what the command reads it as.
pub struct Temp(pub PathBuf);

impl Temp {
    /// Writes `text` to a new file named after the process and `name`.
    pub fn new(name: &str, text: &str) -> Temp {
        let path = std::env::temp_dir().join(format!("zwang-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Temp(path)
    }
    /// The file's path.
    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The width and height of a PNG, after checking its signature and that
/// the IHDR chunk comes first.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert!(
        bytes.ends_with(&[0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]),
        "IEND"
    );
    (be(16), be(20))
}
