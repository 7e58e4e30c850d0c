//! `zwang simulate` in bounded memory: the CSV is written as the run goes,
//! a run that would write too many samples is refused before it starts,
//! and a run without `--csv` or `--plot` takes no samples at all.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A ball thrown sideways in free fall for `duration`, sampled every
/// `output_every`: no events, so the CSV has exactly one row per sample.
fn falling_ball(duration: &str, output_every: &str) -> String {
    format!(
        "[scene]\ndimension = 2\nduration = {duration}\noutput_every = {output_every}\n\n\
         [[body]]\nname = \"ball\"\nkind = \"particle\"\nmass = 1\nposition = [0, 0]\n\
         velocity = [1, 0]\n"
    )
}

/// A folder of the test's own, emptied first.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zwang-bounded-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `scene` into `dir` and runs `zwang simulate` on it with `args`.
fn simulate(dir: &std::path::Path, scene: &[u8], args: &[&str]) -> Output {
    let path = dir.join("scene.toml");
    std::fs::write(&path, scene).unwrap();
    Command::new(env!("CARGO_BIN_EXE_zwang"))
        .arg("simulate")
        .arg(&path)
        .args(args)
        .output()
        .unwrap()
}

/// Exit code 2, nothing on stdout, and exactly `line` on stderr.
fn refused(output: &Output, line: &str) {
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&output.stderr), format!("{line}\n"));
}

/// A million samples written to a CSV: exactly one row each, and the peak
/// memory of the process (its `VmHWM`, read while it runs) stays small; it
/// was 170 MB when every row was kept until the end.
#[test]
fn a_long_csv_is_written_in_bounded_memory() {
    let dir = scratch("csv");
    let scene = dir.join("scene.toml");
    std::fs::write(&scene, falling_ball("1", "1e-6")).unwrap();
    let csv = dir.join("run.csv");
    let mut child = Command::new(env!("CARGO_BIN_EXE_zwang"))
        .arg("simulate")
        .arg(&scene)
        .arg("--csv")
        .arg(&csv)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb: Option<u64> = None;
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        // Linux only; a zombie has no VmHWM line, hence the maximum.
        let hwm = std::fs::read_to_string(&status).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak_kb = peak_kb.max(hwm);
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert!(exit.success());
    if cfg!(target_os = "linux") {
        let peak_kb = peak_kb.expect("VmHWM read while the run went");
        assert!(peak_kb < 64 * 1024, "peak memory {peak_kb} kB");
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t,ball.x,ball.y,ball.vx,ball.vy"));
    assert_eq!(lines.count(), 1_000_001); // t = 0, 1e-6, ..., 1
    assert!(text.ends_with('\n') && text.lines().last().unwrap().starts_with("1,"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// More than 1e7 samples to write or draw: refused before the run starts,
/// on one line, and no file is made. Without `--csv`, `--plot` and
/// `--draw` the same scene runs, taking no samples.
#[test]
fn too_many_samples_are_refused_up_front() {
    let dir = scratch("refused");
    let scene = falling_ball("2", "1e-12");
    let csv = dir.join("run.csv");
    let png = dir.join("run.png");
    let gif = dir.join("run.gif");
    let line = "scene.output_every: 1e-12 s gives 2e12 samples over 2 s; \
                the most with --csv, --plot or --draw is 1e7";
    refused(
        &simulate(&dir, scene.as_bytes(), &["--csv", csv.to_str().unwrap()]),
        line,
    );
    refused(
        &simulate(&dir, scene.as_bytes(), &["--plot", png.to_str().unwrap()]),
        line,
    );
    refused(
        &simulate(&dir, scene.as_bytes(), &["--draw", gif.to_str().unwrap()]),
        line,
    );
    assert!(!csv.exists() && !png.exists() && !gif.exists());
    let run = simulate(&dir, scene.as_bytes(), &["--json"]);
    assert_eq!(run.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(json["status"], "finished");
    let x = json["final"]["ball"]["position"][0].as_f64().unwrap();
    assert!((x - 2.0).abs() < 1e-9, "{x}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Settings out of bounds and a NUL byte: one line naming the key, exit 2.
#[test]
fn bad_settings_and_bytes_are_one_line() {
    let dir = scratch("settings");
    let ball = falling_ball("1", "0.1");
    for (extra, line) in [
        (
            "\n[solver]\ntolerance = 1e-15\n",
            "solver.tolerance: must be in [1e-14, 1e-2]",
        ),
        (
            "\n[solver]\ntolerance = 0.5\n",
            "solver.tolerance: must be in [1e-14, 1e-2]",
        ),
        (
            "\n[solver]\nabsolute_tolerance = 1e-300\n",
            "solver.absolute_tolerance: must be in [1e-17, 1e-2]",
        ),
    ] {
        refused(
            &simulate(&dir, format!("{ball}{extra}").as_bytes(), &[]),
            line,
        );
    }
    let heavy = ball.replace("mass = 1", "mass = 1e300");
    refused(
        &simulate(&dir, heavy.as_bytes(), &["--json"]),
        "body[0].mass: must be in [1e-9, 1e9] kg",
    );
    let nul = ball.replace("[[body]]", "# a comment\0\n[[body]]");
    refused(
        &simulate(&dir, nul.as_bytes(), &["--json"]),
        "scene: TOML syntax error at line 6, column 12: a NUL byte (U+0000) is not allowed",
    );
    std::fs::remove_dir_all(dir).unwrap();
}
