//! Every file of `tests/data/scenes/malformed` is refused with exactly
//! the one-line error of its `.expected` sidecar.

use std::fs;
use std::path::{Path, PathBuf};

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/scenes/malformed")
}

#[test]
fn each_malformed_scene_names_its_key() {
    let failures = refusals(&folder(), "toml", 40, |text| {
        zwang_scene::parse_scene(text).err().map(|e| e.to_string())
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The files of `folder` ending in `extension` (at least `min`) that
/// `refuse` does not refuse with exactly the line of their `.expected`
/// sidecar (`refuse` gives the error line, `None` when it accepts): one
/// message each.
fn refusals(
    folder: &Path,
    extension: &str,
    min: usize,
    refuse: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .expect("the malformed scenes folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    assert!(files.len() >= min, "only {} malformed files", files.len());

    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(file).unwrap();
        let expected = fs::read_to_string(file.with_extension("expected"))
            .unwrap_or_else(|_| panic!("{name}.expected is missing"));
        let expected = expected.trim_end_matches(['\n', '\r']);
        assert!(
            !expected.contains('\n'),
            "{name}.expected has several lines"
        );
        let Some(got) = refuse(&text) else {
            failures.push(format!("{name}: accepted, expected `{expected}`"));
            continue;
        };
        assert!(
            !got.contains(['\n', '\r']),
            "{name}: error on several lines: {got:?}"
        );
        let matches = match expected.strip_suffix('*') {
            Some(prefix) => got.starts_with(prefix) && got.len() > prefix.len(),
            None => got == expected,
        };
        if !matches {
            failures.push(format!(
                "{name}:\n  expected `{expected}`\n  got      `{got}`"
            ));
        }
    }
    failures
}

#[test]
fn every_expected_has_its_scene() {
    for entry in fs::read_dir(folder()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "expected") {
            assert!(
                path.with_extension("toml").exists(),
                "{} alone",
                path.display()
            );
        }
    }
}

/// A control character anywhere (TOML allows none but tab and line breaks)
/// is a syntax error on one line that names it, wherever it is: in a key,
/// a value, a string, a comment, between lines.
#[test]
fn control_characters_are_named_on_one_line() {
    let scene = "# a comment\n[scene]\ndimension = 2\nduration = 1.0\n\n\
                 [[body]]\nname = \"rod\"\nkind = \"rigid\"\nmass = 1.0\n\
                 inertia = 0.1\nposition = [0.0, 1.0]\n";
    let named = [
        ('\0', "a NUL byte (U+0000) is not allowed"),
        ('\u{1}', "control character U+0001 is not allowed"),
        ('\u{1b}', "control character U+001B is not allowed"),
        ('\u{7f}', "control character U+007F is not allowed"),
    ];
    for (c, name) in named {
        for at in 0..=scene.len() {
            let text = format!("{}{c}{}", &scene[..at], &scene[at..]);
            let got = match zwang_scene::parse_scene(&text) {
                Ok(_) => panic!("{c:?} at byte {at} accepted"),
                Err(e) => e.to_string(),
            };
            let before = &scene[..at];
            let line = before.matches('\n').count() + 1;
            let column = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            let expected =
                format!("scene: TOML syntax error at line {line}, column {column}: {name}");
            assert_eq!(got, expected, "{c:?} at byte {at}");
        }
    }
}
