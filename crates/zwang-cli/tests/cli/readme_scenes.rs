//! The README's scene lines against the scenes: every shipped scene has a
//! line, every line names a file that exists, and every figure a line
//! quotes is one its scene's own comments state. The scenes' comments are
//! what the scene tests check, computed from closed forms
//! (`space_joint_scenes.rs`, `simulate_space.rs`, the root's
//! `motion_scenes.rs` and `contact_scenes.rs`); this test keeps the README
//! from quoting a figure nobody checks.

use std::path::{Path, PathBuf};

/// A path inside the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// `(scene path, the line's comment)` for each README line that runs
/// `simulate` or `compare` on a shipped scene.
fn readme_scene_lines() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    readme
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("cargo run --release -- ")?;
            let rest = rest
                .strip_prefix("simulate ")
                .or_else(|| rest.strip_prefix("compare "))?;
            let path = rest.split_whitespace().next()?;
            if !path.starts_with("examples/scenes/") {
                return None;
            }
            let comment = line.split_once('#').map_or("", |(_, c)| c);
            Some((path.to_string(), comment.to_string()))
        })
        .collect()
}

/// The numbers written in `text`: digits with an optional fraction and
/// exponent, not part of a word (`e2` in a name is not one).
fn figures(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || bytes[i - 1] == b'.'
                    || bytes[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let begin = if i > 0 && bytes[i - 1] == b'-' {
            i - 1
        } else {
            i
        };
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j + 1 < bytes.len() && bytes[j] == b'.' && bytes[j + 1].is_ascii_digit() {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
        }
        if j + 1 < bytes.len() && bytes[j] == b'e' {
            let k = if bytes[j + 1] == b'-' { j + 2 } else { j + 1 };
            if k < bytes.len() && bytes[k].is_ascii_digit() {
                j = k;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
            }
        }
        out.push(text[begin..j].to_string());
        i = j;
    }
    out
}

/// Whether `figure` stands in `text` as a whole number (not the start or
/// the end of a longer one).
fn states(text: &str, figure: &str) -> bool {
    let unsigned = figure.trim_start_matches('-');
    text.match_indices(unsigned).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let clear_before = !before.is_some_and(|c| c.is_ascii_digit() || c == '.');
        let tail = &text[at + unsigned.len()..];
        // A digit next, or a decimal point and a digit, continues the number.
        let continues = tail.starts_with(|c: char| c.is_ascii_digit())
            || (tail.starts_with('.') && tail[1..].starts_with(|c: char| c.is_ascii_digit()));
        clear_before && !continues
    })
}

#[test]
fn every_figure_a_readme_line_quotes_is_in_its_scene() {
    let lines = readme_scene_lines();
    assert!(
        lines.len() > 40,
        "{} scene lines in the README",
        lines.len()
    );
    let mut wrong = Vec::new();
    for (path, comment) in &lines {
        let text = std::fs::read_to_string(repo(path))
            .unwrap_or_else(|e| panic!("the README runs {path}: {e}"));
        for figure in figures(comment) {
            if !states(&text, &figure) {
                wrong.push(format!(
                    "{path}: the README quotes {figure}, the scene does not"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_shipped_scene_has_a_readme_line() {
    let quoted: Vec<String> = readme_scene_lines().into_iter().map(|(p, _)| p).collect();
    let mut missing = Vec::new();
    let mut stack = vec![repo("examples/scenes")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                let name = relative(&path);
                if !quoted.contains(&name) {
                    missing.push(name);
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "scenes without a README line: {missing:?}"
    );
}

/// `examples/scenes/...` of a path under the repository.
fn relative(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let at = text.find("examples/scenes/").unwrap();
    text[at..].to_string()
}

#[test]
fn the_figure_reader_sees_what_a_reader_does() {
    assert_eq!(
        figures("at -0.6 V, 1.2464 rad/s; to 1e-10 m, 5/7 g, case2 x_2"),
        ["-0.6", "1.2464", "1e-10", "5", "7"]
    );
    assert!(states("T = 1.4260917337 s", "1.4260917337"));
    assert!(!states("T = 1.4260917337 s", "1.42609"));
    assert!(!states("at 21.2464 rad/s", "1.2464"));
    assert!(states("back at -0.6 V", "-0.6"));
}
