//! Soak and fuzz suite: seeded mutations of every shipped scene
//! (`examples/scenes/*.toml`, `tests/data/scenes/*.toml`) run through the
//! `zwang` binary as a user would, `zwang simulate MUTANT --json`, parse
//! and simulation together (the parser alone is fuzzed by
//! `crates/zwang-scene/tests/scene/mutations.rs`).
//!
//! Every run is killed after a wall-clock limit and runs under a limit of
//! its virtual memory (`ulimit -v` of a Unix `sh`), and must end in one of:
//!
//! - exit 2, nothing on stdout, exactly one line `KEY: MESSAGE` on stderr;
//! - exit 0 or 1 with exactly one JSON object on stdout whose `status` is
//!   `finished` (exit 0) or `painleve` / `failed` (exit 1), a `failed` run
//!   with a one-line `reason`, a finished run with every number finite.
//!
//! Never a panic, and a key in the error line. Besides, three families of
//! mutants check the physics, on scenes without a moving frame or forces
//! (conservative or dissipative) and, for masses, without viscous friction:
//!
//! - solver settings only (`tolerance` in [1e-12, 1e-6], either method):
//!   the status of the unmutated scene, and a finished run does not gain
//!   energy, `E1 <= E0 + 1e-3 max(|E0|, 1 J)`;
//! - an extreme tolerance (1e300, 1e-300, ...): refused, stopped, or a
//!   finished run within `E1 <= E0 + 0.1 max(|E0|, 1 J)`;
//! - every mass and inertia scaled by one factor: the motion is the same,
//!   so the status is that of the unmutated scene (or the scene is
//!   refused, exit 2).
//!
//! Tiers, chosen by the environment variable `ZWANG_SOAK`:
//!
//! - unset (CI): 1200 mutants in about half a minute on two cores (a run
//!   that hangs adds its 20 s), durations capped at 2 s,
//!   `output_every >= 1e-4`, `[solver] max_steps = 20000` unless the
//!   mutant sets it, 20 s and 2 GB per run:
//!   `cargo test --release -p zwang-cli --test cli soak::`;
//! - `ZWANG_SOAK=long`: 20 000 other mutants (seeds from 1 000 000),
//!   durations up to 100 s, any `output_every`, 120 s per run:
//!   `ZWANG_SOAK=long cargo test --release -p zwang-cli --test cli soak:: -- --nocapture`.
//!
//! Mutant `S` of a tier is made from the seed `S` alone:
//! `ZWANG_SOAK_SEED=S` (with the tier's `ZWANG_SOAK`) runs only that one.
//! Every failing mutant is written to `target/soak-failures/TIER-S.toml`
//! (the exact bytes) and `TIER-S.txt` (seed, scene, mutations, what the run
//! printed, why it failed); the test's message names them and shows the
//! mutants' text.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[allow(dead_code)]
use crate::common;
use common::{files_with_extension, repo, zwang_bin};

/// The limits and sizes of a tier.
struct Tier {
    name: &'static str,
    /// The seeds of the mutants: `first_seed..first_seed + mutants`.
    first_seed: u64,
    mutants: u64,
    /// The longest `duration` of a scene (longer ones are cut to it).
    max_duration: f64,
    /// Values a mutation may give `duration` and `output_every`.
    durations: &'static [&'static str],
    output_everies: &'static [&'static str],
    /// Whether the generic mutations (scale, retype) may hit `duration`
    /// and `output_every` too.
    free_timing: bool,
    /// `[solver] max_steps` given to every mutant that does not set it:
    /// a scene scaled to a time scale far below its duration then fails
    /// on its pace within the tier's time, as a user's would on theirs.
    step_budget: Option<&'static str>,
    time_limit: Duration,
    /// `ulimit -v`, KiB.
    memory_kib: u64,
}

const QUICK: Tier = Tier {
    name: "quick",
    first_seed: 0,
    mutants: 1200,
    max_duration: 2.0,
    durations: &["1e-300", "1e-9", "0.001", "0.5", "2.0", "0", "-1.0", "nan"],
    output_everies: &["1e-4", "0.001", "0.01", "1.0", "1e300", "0", "-0.01", "inf"],
    free_timing: false,
    step_budget: Some("20000"),
    time_limit: Duration::from_secs(20),
    memory_kib: 2_000_000,
};

const LONG: Tier = Tier {
    name: "long",
    // Other mutants than the quick tier's.
    first_seed: 1_000_000,
    mutants: 20_000,
    max_duration: 100.0,
    durations: &[
        "1e-300", "1e-9", "0.001", "0.5", "2.0", "20.0", "100.0", "0", "-1.0", "nan",
    ],
    output_everies: &[
        "5e-324", "1e-9", "1e-6", "1e-4", "0.001", "0.01", "1.0", "1e300", "0", "-0.01", "inf",
    ],
    free_timing: true,
    step_budget: None,
    time_limit: Duration::from_secs(120),
    memory_kib: 2_000_000,
};

/// Factors a number is scaled by.
const FACTORS: &[f64] = &[1e300, 1e-300, 1e10, 1e6, 1e-6, -1.0, 0.0];
/// What replaces a number outright.
const NOT_NUMBERS: &[&str] = &["nan", "-nan", "inf", "-inf", "\"NaN\"", "\"1e300\""];
const TOLERANCES: &[&str] = &[
    "1e300", "1e308", "1e-300", "5e-324", "1e-16", "1e-12", "1e-3", "0.5", "1.0", "1", "0",
    "-1e-9", "nan", "\"1e-9\"",
];
const METHODS: &[&str] = &[
    "\"dop853\"",
    "\"dopri5\"",
    "\"DOP853\"",
    "\"\"",
    "\"rk4\"",
    "853",
    "[\"dop853\"]",
];
const MAX_STEPS: &[&str] = &[
    "1",
    "2",
    "10",
    "100",
    "0",
    "-1",
    "9223372036854775807",
    "1e6",
    "1.5",
    "\"10\"",
];
/// Mass-scaling factors.
const MASS_FACTORS: &[f64] = &[1e-300, 1e-6, 1e6, 1e300];

/// What a mutant's check adds to the common one.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Family {
    /// Any mutations: only the common check.
    General,
    /// Solver settings only, tolerances in range, in a conservative or
    /// dissipative scene: the original's status, and a finished run does
    /// not gain energy.
    SolverOnly,
    /// An extreme tolerance in a conservative or dissipative scene: refused,
    /// stopped, or a finished run that does not gain much energy.
    SolverExtreme,
    /// Every mass and inertia scaled: the status of the original scene.
    MassScaled,
}

struct Mutant {
    seed: u64,
    /// The original scene, relative to the repository.
    scene: String,
    family: Family,
    mutations: Vec<String>,
    bytes: Vec<u8>,
}

/// A shipped scene, its duration capped for the tier.
struct Original {
    path: String,
    text: String,
    /// Neither a moving frame nor forces: energy does not grow.
    passive: bool,
    /// No viscous friction, no forces: mass scaling leaves the motion.
    mass_free: bool,
}

fn originals(tier: &Tier) -> Vec<Original> {
    let mut paths = Vec::new();
    for folder in ["examples/scenes", "tests/data/scenes"] {
        let files = files_with_extension(&repo(folder), "toml");
        paths.extend(
            files
                .iter()
                .map(|p| format!("{folder}/{}", p.file_name().unwrap().to_str().unwrap())),
        );
    }
    assert!(paths.len() >= 15, "the shipped scenes: {paths:?}");
    paths
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(repo(&path)).unwrap();
            let text = cap_duration(&text, tier.max_duration);
            let has = |s: &str| text.lines().any(|l| l.trim_start().starts_with(s));
            let passive = !has("[frame]") && !has("[[force]]");
            let mass_free = !has("[[force]]") && !has("viscous");
            Original {
                path,
                text,
                passive,
                mass_free,
            }
        })
        .collect()
}

/// The text with `duration` cut to `max`.
fn cap_duration(text: &str, max: f64) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| match key_value(line) {
            Some((key, start, end)) if key == "duration" => {
                let d: f64 = line[start..end].parse().unwrap();
                if d > max {
                    format!("{}{max:?}{}", &line[..start], &line[end..])
                } else {
                    line.to_string()
                }
            }
            _ => line.to_string(),
        })
        .collect();
    lines.join("\n") + "\n"
}

/// A `key = value` line: the key and the byte range of the value (without
/// a trailing comment).
fn key_value(line: &str) -> Option<(String, usize, usize)> {
    let trimmed = line.trim_start();
    if trimmed.starts_with(['[', '#']) {
        return None;
    }
    let eq = line.find('=')?;
    if line[..eq].contains('"') {
        return None;
    }
    let key = line[..eq].trim().to_string();
    let start = eq + 1 + (line[eq + 1..].len() - line[eq + 1..].trim_start().len());
    let mut end = line.len();
    let mut quoted = false;
    for (i, c) in line.char_indices().skip_while(|&(i, _)| i < start) {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let end = start + line[start..end].trim_end().len();
    (end > start).then_some((key, start, end))
}

/// The byte ranges of the numbers in `value` (outside strings).
fn numbers_in(value: &str) -> Vec<(usize, usize)> {
    let b = value.as_bytes();
    let mut found = Vec::new();
    let (mut i, mut quoted) = (0, false);
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            quoted = !quoted;
            i += 1;
            continue;
        }
        let starts = c.is_ascii_digit()
            || ((c == b'-' || c == b'+') && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !quoted && starts && !after_word {
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit() || b".eE_".contains(&b[j]) || {
                    (b[j] == b'-' || b[j] == b'+') && b"eE".contains(&b[j - 1])
                })
            {
                j += 1;
            }
            found.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

/// Where a line's numbers are: (line, start, end) over the whole text,
/// `keep` choosing the lines by their key.
fn number_sites(lines: &[String], keep: impl Fn(&str) -> bool) -> Vec<(usize, usize, usize)> {
    let mut sites = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if let Some((key, start, end)) = key_value(line) {
            if keep(&key) {
                sites.extend(
                    numbers_in(&line[start..end])
                        .into_iter()
                        .map(|(a, b)| (n, start + a, start + b)),
                );
            }
        }
    }
    sites
}

/// A number written back: an integer stays an integer when it can.
fn format_number(x: f64, integer: bool) -> String {
    if integer && x.fract() == 0.0 && x.abs() < 9e18 {
        format!("{}", x as i64)
    } else {
        format!("{x:?}")
    }
}

/// The value of a `key = value` line set to `value`, or the key appended to
/// the first table named `table` (or to a new one at the end).
fn set_key(lines: &mut Vec<String>, table: &str, key: &str, value: &str) {
    let header = format!("[{table}]");
    let mut in_table = false;
    let mut table_end = None;
    for (n, line) in lines.iter_mut().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            if in_table {
                table_end = table_end.or(Some(n));
            }
            in_table = t == header;
            continue;
        }
        if in_table {
            if let Some((k, start, end)) = key_value(line) {
                if k == key {
                    *line = format!("{}{value}{}", &line[..start], &line[end..]);
                    return;
                }
            }
        }
    }
    let new = format!("{key} = {value}");
    match (lines.iter().position(|l| l.trim() == header), table_end) {
        (Some(_), Some(end)) => lines.insert(end, new),
        (Some(_), None) => lines.push(new),
        (None, _) => {
            lines.push(header);
            lines.push(new);
        }
    }
}

/// The line ranges of the tables: (first line, end).
fn tables(lines: &[String]) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&n| lines[n].trim_start().starts_with('['))
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| (s, starts.get(k + 1).copied().unwrap_or(lines.len())))
        .collect()
}

/// The quoted strings of body references and body names: (line, start,
/// end, the name) of each.
fn body_names(lines: &[String]) -> Vec<(usize, usize, usize, String)> {
    let mut found = Vec::new();
    let mut in_body = false;
    for (n, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            in_body = t == "[[body]]";
            continue;
        }
        let Some((key, start, end)) = key_value(line) else {
            continue;
        };
        if !(key == "body" || key == "bodies" || (in_body && key == "name")) {
            continue;
        }
        let value = &line[start..end];
        let quotes: Vec<usize> = value.match_indices('"').map(|(i, _)| i).collect();
        for pair in quotes.chunks_exact(2) {
            let (a, b) = (start + pair[0] + 1, start + pair[1]);
            found.push((n, a, b, line[a..b].to_string()));
        }
    }
    found
}

/// One line-level mutation of `lines`, described.
fn mutate_lines(lines: &mut Vec<String>, tier: &Tier, rng: &mut ChaCha8Rng) -> String {
    let timing = |key: &str| tier.free_timing || (key != "duration" && key != "output_every");
    match rng.gen_range(0..13) {
        0 | 1 => {
            let sites = number_sites(lines, timing);
            let Some(&(n, a, b)) = sites.choose(rng) else {
                return "no number to scale".into();
            };
            let token = lines[n][a..b].to_string();
            let x: f64 = token.replace('_', "").parse().unwrap_or(1.0);
            let integer = !token.contains(['.', 'e', 'E']);
            let new = if rng.gen_bool(0.8) {
                let factor = *FACTORS.choose(rng).unwrap();
                format_number(x * factor, integer)
            } else {
                NOT_NUMBERS.choose(rng).unwrap().to_string()
            };
            lines[n].replace_range(a..b, &new);
            format!("line {}: number {token} -> {new}", n + 1)
        }
        2 => {
            let sites = number_sites(lines, timing);
            let Some(&(n, a, b)) = sites.choose(rng) else {
                return "no number to retype".into();
            };
            let token = lines[n][a..b].to_string();
            let x: f64 = token.replace('_', "").parse().unwrap_or(1.0);
            let new = match rng.gen_range(0..7) {
                0 => format!("{}", x.trunc() as i64),
                1 => format!("{x:?}"),
                2 => format!("\"{token}\""),
                3 => "true".to_string(),
                4 => format!("[{token}]"),
                5 => format!("[{token}, {token}, {token}]"),
                _ => "{}".to_string(),
            };
            lines[n].replace_range(a..b, &new);
            format!("line {}: number {token} -> {new}", n + 1)
        }
        3 => {
            let keyed: Vec<usize> = (0..lines.len())
                .filter(|&n| key_value(&lines[n]).is_some_and(|(k, ..)| timing(&k)))
                .collect();
            let Some(&n) = keyed.choose(rng) else {
                return "no key to remove".into();
            };
            let line = lines.remove(n);
            format!("line {}: removed {line:?}", n + 1)
        }
        4 => {
            let n = rng.gen_range(0..lines.len());
            let line = lines[n].clone();
            lines.insert(n, line.clone());
            format!("line {}: duplicated {line:?}", n + 1)
        }
        5 => {
            let all = tables(lines);
            let Some(&(s, e)) = all.choose(rng) else {
                return "no table".into();
            };
            let header = lines[s].clone();
            if rng.gen_bool(0.5) {
                lines.drain(s..e);
                format!("line {}: removed the table {header}", s + 1)
            } else {
                let copy: Vec<String> = lines[s..e].to_vec();
                let at = e.min(lines.len());
                lines.splice(at..at, copy);
                format!("line {}: duplicated the table {header}", s + 1)
            }
        }
        6 => {
            lines.push("[solver]".into());
            "an empty [solver]".into()
        }
        7 => {
            let mut said = Vec::new();
            for (key, values) in [
                ("tolerance", TOLERANCES),
                ("absolute_tolerance", TOLERANCES),
                ("method", METHODS),
                ("max_steps", MAX_STEPS),
            ] {
                if rng.gen_bool(0.4) {
                    let v = values.choose(rng).unwrap();
                    set_key(lines, "solver", key, v);
                    said.push(format!("solver.{key} = {v}"));
                }
            }
            if said.is_empty() {
                set_key(lines, "solver", "tolerance", "1e300");
                said.push("solver.tolerance = 1e300".into());
            }
            said.join(", ")
        }
        8 => {
            let v = tier.output_everies.choose(rng).unwrap();
            set_key(lines, "scene", "output_every", v);
            format!("scene.output_every = {v}")
        }
        9 => {
            let v = tier.durations.choose(rng).unwrap();
            set_key(lines, "scene", "duration", v);
            format!("scene.duration = {v}")
        }
        10 => {
            // Most scenes take the default gravity or a round one: set it.
            let g = -9.81 * FACTORS.choose(rng).unwrap();
            let v = if rng.gen_bool(0.5) {
                format!("[0.0, {g:?}]")
            } else {
                format!("[{g:?}, {g:?}]")
            };
            set_key(lines, "scene", "gravity", &v);
            format!("scene.gravity = {v}")
        }
        _ => {
            let sites = body_names(lines);
            let mut names: Vec<String> = sites.iter().map(|s| s.3.clone()).collect();
            names.sort();
            names.dedup();
            let Some((n, a, b, old)) = sites.choose(rng).cloned() else {
                return "no body name".into();
            };
            if names.len() >= 2 && rng.gen_bool(0.5) {
                // Swap two names everywhere they stand for a body.
                let other = names.iter().find(|&x| *x != old).unwrap().clone();
                for (n, a, b, name) in body_names(lines).into_iter().rev() {
                    let to = if name == old {
                        &other
                    } else if name == other {
                        &old
                    } else {
                        continue;
                    };
                    lines[n].replace_range(a..b, to);
                }
                format!("swapped the body names {old:?} and {other:?}")
            } else {
                let mut choices = names.clone();
                choices.extend(["ground".to_string(), String::new()]);
                let new = choices.choose(rng).unwrap().clone();
                lines[n].replace_range(a..b, &new);
                format!("line {}: body name {old:?} -> {new:?}", n + 1)
            }
        }
    }
}

/// One byte-level mutation, described.
fn mutate_bytes(bytes: &mut Vec<u8>, rng: &mut ChaCha8Rng) -> String {
    let at = rng.gen_range(0..=bytes.len());
    match rng.gen_range(0..3) {
        0 => {
            bytes.insert(at, 0);
            format!("a NUL byte at byte {at}")
        }
        1 => {
            let garbage: Vec<u8> = (0..rng.gen_range(1..=8)).map(|_| rng.gen()).collect();
            bytes.splice(at..at, garbage.iter().copied());
            format!("bytes {garbage:?} at byte {at}")
        }
        _ => {
            bytes.truncate(at);
            format!("truncated to {at} bytes")
        }
    }
}

/// Mutant `seed` of the tier: from the seed alone.
fn mutant(seed: u64, originals: &[Original], tier: &Tier) -> Mutant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let family = match rng.gen_range(0..20) {
        0..=2 => Family::SolverOnly,
        3 => Family::SolverExtreme,
        4..=6 => Family::MassScaled,
        _ => Family::General,
    };
    let pool: Vec<&Original> = originals
        .iter()
        .filter(|o| match family {
            Family::General => true,
            Family::SolverOnly | Family::SolverExtreme => o.passive,
            Family::MassScaled => o.mass_free,
        })
        .collect();
    let original = *pool.choose(&mut rng).unwrap();
    let mut lines: Vec<String> = original.text.lines().map(str::to_string).collect();
    let mut mutations = Vec::new();
    match family {
        Family::SolverOnly => {
            let tolerance = 10f64.powf(rng.gen_range(-12.0..=-6.0));
            let method = ["dop853", "dopri5"].choose(&mut rng).unwrap();
            set_key(&mut lines, "solver", "tolerance", &format!("{tolerance:e}"));
            set_key(&mut lines, "solver", "method", &format!("\"{method}\""));
            mutations.push(format!("solver.tolerance = {tolerance:e}, method {method}"));
            if rng.gen_bool(0.3) {
                let absolute = 10f64.powf(rng.gen_range(-15.0..=-6.0));
                set_key(
                    &mut lines,
                    "solver",
                    "absolute_tolerance",
                    &format!("{absolute:e}"),
                );
                mutations.push(format!("solver.absolute_tolerance = {absolute:e}"));
            }
        }
        Family::SolverExtreme => {
            let key = ["tolerance", "absolute_tolerance"]
                .choose(&mut rng)
                .unwrap();
            let v = ["1e300", "1e308", "1e-300", "5e-324"]
                .choose(&mut rng)
                .unwrap();
            set_key(&mut lines, "solver", key, v);
            mutations.push(format!("solver.{key} = {v}"));
        }
        Family::MassScaled => {
            let factor = *MASS_FACTORS.choose(&mut rng).unwrap();
            let inertial = |k: &str| matches!(k, "mass" | "inertia" | "inertia_tensor");
            for (n, a, b) in number_sites(&lines, inertial).into_iter().rev() {
                let x: f64 = lines[n][a..b].parse().unwrap();
                lines[n].replace_range(a..b, &format!("{:?}", x * factor));
            }
            mutations.push(format!("every mass and inertia times {factor:e}"));
        }
        Family::General => {
            for _ in 0..rng.gen_range(1..=3) {
                mutations.push(mutate_lines(&mut lines, tier, &mut rng));
                if lines.is_empty() {
                    break;
                }
            }
        }
    }
    if let Some(budget) = tier.step_budget {
        if !lines
            .iter()
            .any(|l| key_value(l).is_some_and(|(k, ..)| k == "max_steps"))
        {
            set_key(&mut lines, "solver", "max_steps", budget);
        }
    }
    let mut bytes = (lines.join("\n") + "\n").into_bytes();
    if family == Family::General && rng.gen_bool(0.15) {
        mutations.push(mutate_bytes(&mut bytes, &mut rng));
    }
    Mutant {
        seed,
        scene: original.path.clone(),
        family,
        mutations,
        bytes,
    }
}

/// What a run did.
struct Run {
    /// `None`: killed by a signal (or by the time limit).
    code: Option<i32>,
    timed_out: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

/// Runs `zwang simulate FILE --json` under the tier's limits.
fn run(bytes: &[u8], name: &str, tier: &Tier) -> Run {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("soak-{}", tier.name));
    fs::create_dir_all(&dir).unwrap();
    let scene = dir.join(format!("{name}.toml"));
    let (out, err) = (
        dir.join(format!("{name}.out")),
        dir.join(format!("{name}.err")),
    );
    fs::write(&scene, bytes).unwrap();
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {} && exec \"$0\" \"$@\"",
            tier.memory_kib
        ))
        .arg(zwang_bin())
        .args(["simulate".as_ref(), scene.as_os_str(), "--json".as_ref()])
        .current_dir(repo("."))
        .stdin(Stdio::null())
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .spawn()
        .expect("sh runs");
    let mut pause = Duration::from_millis(1);
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (status, false);
        }
        if start.elapsed() > tier.time_limit {
            let _ = child.kill();
            break (child.wait().unwrap(), true);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    let run = Run {
        code: status.code(),
        timed_out,
        stdout: fs::read(&out).unwrap(),
        stderr: fs::read(&err).unwrap(),
        elapsed,
    };
    for f in [scene, out, err] {
        let _ = fs::remove_file(f);
    }
    run
}

/// The common check: the run's status (`None` for a refused scene), or
/// why it is wrong.
fn check(run: &Run) -> Result<Option<(String, Value)>, String> {
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.timed_out {
        return Err(format!("still running after {:.1?}: killed", run.elapsed));
    }
    if stderr.contains("panicked") {
        return Err("panicked".into());
    }
    let code = run
        .code
        .ok_or("killed by a signal (out of memory, or an abort)")?;
    match code {
        2 => {
            if !run.stdout.is_empty() {
                return Err("exit 2 with something on stdout".into());
            }
            let one_line = stderr.ends_with('\n') && stderr.lines().count() == 1;
            if !one_line {
                return Err("exit 2 without exactly one line on stderr".into());
            }
            // `KEY: MESSAGE`, the message not empty, nor ending in a colon.
            let line = stderr.trim_end_matches('\n');
            let full = line == line.trim() && !line.ends_with(':');
            match line.split_once(": ") {
                Some((key, message)) if full && !key.is_empty() && !message.is_empty() => Ok(None),
                _ => Err("exit 2: the line is not `KEY: MESSAGE`".into()),
            }
        }
        0 | 1 => {
            let out = std::str::from_utf8(&run.stdout).map_err(|_| "stdout is not UTF-8")?;
            if !out.ends_with('\n') || out.lines().count() != 1 {
                return Err("stdout is not one line".into());
            }
            let v: Value =
                serde_json::from_str(out).map_err(|e| format!("stdout is not JSON: {e}"))?;
            let status = v["status"]
                .as_str()
                .ok_or("no string `status`")?
                .to_string();
            match (status.as_str(), code) {
                ("finished", 0) | ("painleve" | "failed", 1) => {}
                _ => return Err(format!("status {status:?} with exit {code}")),
            }
            if status == "failed" {
                let reason = v["reason"].as_str().ok_or("failed without a `reason`")?;
                if reason.trim().is_empty() || reason.contains(['\n', '\r']) {
                    return Err(format!("failed with the reason {reason:?}"));
                }
            } else if v.get("reason").is_some() {
                return Err(format!("{status} with a reason"));
            }
            if status == "finished" {
                for key in ["energy", "final", "time", "max_constraint_drift"] {
                    if !all_finite(&v[key]) {
                        return Err(format!("finished with a {key} not all finite numbers"));
                    }
                }
                for key in ["initial", "final"] {
                    if !v["energy"][key].is_number() {
                        return Err(format!("finished without energy.{key}"));
                    }
                }
            }
            Ok(Some((status, v)))
        }
        _ => Err(format!("exit code {code}")),
    }
}

/// A JSON value of numbers only (NaN and infinities are written `null`).
fn all_finite(v: &Value) -> bool {
    match v {
        Value::Number(x) => x.as_f64().is_some_and(f64::is_finite),
        Value::Array(a) => !a.is_empty() && a.iter().all(all_finite),
        Value::Object(m) => !m.is_empty() && m.values().all(all_finite),
        _ => false,
    }
}

/// The family's own check, on a run that passed the common one.
fn check_family(
    m: &Mutant,
    outcome: &Option<(String, Value)>,
    baselines: &[(String, String)],
) -> Result<(), String> {
    let Some((status, v)) = outcome else {
        return match m.family {
            Family::SolverOnly => Err("solver settings in range refused".into()),
            _ => Ok(()),
        };
    };
    let (_, base) = baselines.iter().find(|(s, _)| *s == m.scene).unwrap();
    let same = m.family == Family::SolverOnly || m.family == Family::MassScaled;
    if same && status != base {
        return Err(format!(
            "status {status:?}, the original scene's is {base:?}, and these mutations leave the motion"
        ));
    }
    let fraction = match m.family {
        Family::SolverOnly => 1e-3,
        Family::SolverExtreme => 0.1,
        _ => return Ok(()),
    };
    if status == "finished" {
        let e0 = v["energy"]["initial"].as_f64().unwrap();
        let e1 = v["energy"]["final"].as_f64().unwrap();
        let allowed = fraction * e0.abs().max(1.0);
        if e1 > e0 + allowed {
            return Err(format!(
                "energy grew from {e0} to {e1} J (by more than {allowed:e}) in a scene without frame or forces"
            ));
        }
    }
    Ok(())
}

/// Where failing mutants are written: `target/soak-failures`.
fn failures_dir() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    target.join("soak-failures")
}

/// Writes a failing mutant and its report (`TIER-SEED.toml`, `.txt`) at
/// once, so that a long run cut short keeps them; returns the report with
/// the mutant's text.
fn record(tier: &Tier, m: &Mutant, r: &Run, why: &str) -> String {
    let stem = failures_dir().join(format!("{}-{}", tier.name, m.seed));
    let env = if tier.name == "quick" {
        String::new()
    } else {
        format!("ZWANG_SOAK={} ", tier.name)
    };
    let report = format!(
        "seed {} ({env}ZWANG_SOAK_SEED={} cargo test --release -p zwang-cli --test cli soak::)\nscene {}\nmutations: {}\nwrong: {why}\nexit {:?}\nstdout: {}\nstderr: {}\nmutant: {}\n",
        m.seed,
        m.seed,
        m.scene,
        m.mutations.join("; "),
        r.code,
        clip(&r.stdout, 600),
        clip(&r.stderr, 600),
        stem.with_extension("toml").display(),
    );
    fs::write(stem.with_extension("toml"), &m.bytes).unwrap();
    fs::write(stem.with_extension("txt"), &report).unwrap();
    format!("{report}{}\n", clip(&m.bytes, 3000))
}

/// Truncated to `n` bytes, for a message.
fn clip(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(n)]).into_owned();
    if bytes.len() > n {
        format!("{text}... ({} bytes in all)", bytes.len())
    } else {
        text
    }
}

#[test]
fn mutated_scenes_end_cleanly_within_limits() {
    let tier = match std::env::var("ZWANG_SOAK").as_deref() {
        Err(_) | Ok("") | Ok("quick") => &QUICK,
        Ok("long") => &LONG,
        Ok(other) => panic!("ZWANG_SOAK={other:?}: expected `long` (or unset)"),
    };
    let only: Option<u64> = std::env::var("ZWANG_SOAK_SEED")
        .ok()
        .map(|s| s.parse().expect("ZWANG_SOAK_SEED is an integer"));
    let originals = originals(tier);
    zwang_bin();
    let dir = failures_dir();
    fs::create_dir_all(&dir).unwrap();
    if only.is_none() {
        // The tier's failures of an earlier run go.
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if name.starts_with(&format!("{}-", tier.name)) {
                fs::remove_file(&path).unwrap();
            }
        }
    }
    let started = Instant::now();

    // The unmutated scenes: they pass the common check, and their status is
    // what mass scaling must keep.
    let mut baselines = Vec::new();
    for o in &originals {
        let r = run(o.text.as_bytes(), "original", tier);
        match check(&r) {
            Ok(Some((status, _))) => baselines.push((o.path.clone(), status)),
            Ok(None) => panic!(
                "{} (duration capped): refused: {}",
                o.path,
                clip(&r.stderr, 500)
            ),
            Err(why) => panic!("{} (duration capped): {why}", o.path),
        }
    }

    let seeds: Vec<u64> = match only {
        Some(s) => vec![s],
        None => (tier.first_seed..tier.first_seed + tier.mutants).collect(),
    };
    let mutants: Vec<Mutant> = seeds.iter().map(|&s| mutant(s, &originals, tier)).collect();
    let next = AtomicUsize::new(0);
    // The seeds and reports of the mutants that went wrong.
    let failures = Mutex::new(Vec::<(u64, String)>::new());
    // Counts of refused, finished, painleve or failed, and energy checks.
    let counts = Mutex::new([0usize; 4]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(m) = mutants.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let r = run(&m.bytes, &m.seed.to_string(), tier);
                    let verdict = check(&r).and_then(|outcome| {
                        check_family(m, &outcome, &baselines)?;
                        Ok(outcome)
                    });
                    match verdict {
                        Ok(outcome) => {
                            let mut c = counts.lock().unwrap();
                            match &outcome {
                                None => c[0] += 1,
                                Some((status, _)) if status == "finished" => {
                                    c[1] += 1;
                                    c[3] += usize::from(m.family == Family::SolverOnly);
                                }
                                Some(_) => c[2] += 1,
                            }
                        }
                        Err(why) => {
                            let report = record(tier, m, &r, &why);
                            failures.lock().unwrap().push((m.seed, report));
                        }
                    }
                }
            });
        }
    });
    let [refused, finished, stopped, energy_checked] = *counts.lock().unwrap();
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    println!(
        "soak {}: {} mutants in {:.1?}: {refused} refused, {finished} finished ({energy_checked} energy checks), {stopped} painleve or failed, {} wrong",
        tier.name,
        mutants.len(),
        started.elapsed(),
        failures.len()
    );

    let message: Vec<&str> = failures.iter().take(20).map(|f| f.1.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} mutants went wrong (all in {}):\n\n{}",
        failures.len(),
        mutants.len(),
        dir.display(),
        message.join("\n")
    );
    if only.is_none() {
        // Every outcome is exercised: a suite of refused scenes proves little.
        let n = mutants.len();
        assert!(refused * 10 > n && finished * 4 > n, "too one-sided");
        assert!(stopped > 0 && energy_checked * 20 > n, "too few checks");
    }
}
