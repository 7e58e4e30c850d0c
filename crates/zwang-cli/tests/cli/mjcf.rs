//! `zwang simulate MODEL.xml`: MuJoCo's MJCF files as kinematic trees in
//! joint coordinates (`docs/mjcf.md`), through the binary: the JSON of the
//! contract, the spatial examples' MJCF twins against their TOML twins
//! (maximal coordinates) and against the event-driven method, a free fall
//! and a pendulum against their closed forms, keyframes, and every
//! malformed file refused with its one line.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn zwang(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zwang"))
        .args(args)
        .output()
        .unwrap()
}

/// `zwang simulate --json ARGS`: exit 0, the JSON.
fn json_with(args: &[&str]) -> Value {
    let out = zwang(&[&["simulate", "--json"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn space(name: &str) -> String {
    root()
        .join("examples/scenes/space")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn pendulum() -> String {
    root()
        .join("tests/data/mjcf/pendulum.xml")
        .to_string_lossy()
        .into_owned()
}

/// A file in the temporary folder, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, text: &str) -> Temp {
        let path = std::env::temp_dir().join(format!("zwang-mjcf-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Temp(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The keys of the contract's JSON, and a state per body.
#[test]
fn the_json_has_the_contracts_fields() {
    let v = json_with(&[&space("stack_1_100.xml"), "--duration", "0.1"]);
    for key in [
        "status",
        "time",
        "steps",
        "final",
        "energy",
        "max_penetration",
        "max_limit_violation",
        "unsolved_steps",
        "ignored",
        "stats",
    ] {
        assert!(v.get(key).is_some(), "no {key}: {v}");
    }
    assert_eq!(v["status"], "finished");
    assert_eq!(v["steps"], 50);
    // Four free bodies: 7 coordinates and 6 velocities each.
    assert_eq!(numbers(&v["final"]["qpos"]).len(), 28);
    assert_eq!(numbers(&v["final"]["qvel"]).len(), 24);
    let bodies = v["final"]["bodies"].as_object().unwrap();
    assert_eq!(bodies.keys().collect::<Vec<_>>(), ["c1", "c2", "c3", "c4"]);
    for state in bodies.values() {
        for (key, n) in [
            ("position", 3),
            ("orientation", 4),
            ("velocity", 3),
            ("angular_velocity", 3),
        ] {
            assert_eq!(numbers(&state[key]).len(), n, "{key}");
        }
    }
    assert!(v["stats"]["wall_time"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["unsolved_steps"], 0);
    // The CSV: a header, then the final state, as the JSON has it.
    let csv = Temp::new("stack.csv", "");
    let w = json_with(&[
        &space("stack_1_100.xml"),
        "--duration",
        "0.1",
        "--csv",
        csv.path(),
    ]);
    let text = std::fs::read_to_string(csv.path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("t,qpos[0],") && lines[0].ends_with(",qvel[23]"));
    let row: Vec<f64> = lines[1].split(',').map(|x| x.parse().unwrap()).collect();
    assert_eq!(row[0], 0.1);
    assert_eq!(row[1..29], numbers(&w["final"]["qpos"])[..]);
    assert_eq!(row[29..], numbers(&w["final"]["qvel"])[..]);
}

/// The free bodies of the MJCF twins end where their TOML twins do (the
/// same physics in other coordinates: measured within 1e-11).
#[test]
fn each_free_body_twin_ends_where_its_toml_does() {
    for name in [
        "cube_on_floor",
        "cube_on_incline",
        "sphere_rolling_incline",
        "stack_1_100",
        "bead_on_rail",
    ] {
        let a = json_with(&[&space(&format!("{name}.toml"))]);
        let b = json_with(&[&space(&format!("{name}.xml")), "--duration", "1"]);
        assert_eq!(a["steps"], b["steps"], "{name}");
        for (body, state) in a["final"].as_object().unwrap() {
            for key in ["position", "orientation", "velocity", "angular_velocity"] {
                let (x, y) = (
                    numbers(&state[key]),
                    numbers(&b["final"]["bodies"][body][key]),
                );
                let worst = largest_difference(&x, &y);
                assert!(worst <= 1e-10, "{name}: {body}.{key} {x:?} vs {y:?}");
            }
        }
    }
}

/// The jointed twins, in joint coordinates, converge at first order to
/// the event-driven method's motion (tolerance 1e-12): a tenth of the
/// time step, a tenth of the difference (measured 0.100 and 0.099).
#[test]
fn the_jointed_twins_converge_to_the_event_driven_motion() {
    for name in ["double_pendulum", "hanging_box"] {
        let file = space(&format!("{name}.xml"));
        let exact = json_with(&[
            &file,
            "--duration",
            "2",
            "--stepping",
            "event",
            "--tolerance",
            "1e-12",
        ]);
        assert_eq!(exact["status"], "finished");
        let e = exact["energy"]["final"].as_f64().unwrap()
            - exact["energy"]["initial"].as_f64().unwrap();
        assert!(
            e.abs() < 1e-9,
            "{name}: the event-driven run's energy moved {e:e}"
        );
        let error = |h: &str| {
            let v = json_with(&[&file, "--duration", "2", "--time-step", h]);
            largest_difference(
                &numbers(&v["final"]["qpos"]),
                &numbers(&exact["final"]["qpos"]),
            )
        };
        let (coarse, fine) = (error("0.001"), error("0.0001"));
        let ratio = fine / coarse;
        assert!(
            (0.08..0.12).contains(&ratio),
            "{name}: {coarse:e} then {fine:e}"
        );
        assert!(fine < 3e-3, "{name}: {fine:e}");
    }
}

/// A ball dropped on a floor: the time stepper's free fall (symplectic
/// Euler between contacts: after `n` steps `v = -g n h` and `z = z0 - g
/// h^2 n (n + 1) / 2`), then at rest on the floor at its radius.
#[test]
fn a_dropped_ball_falls_as_stepped_and_rests_at_its_radius() {
    let model = r#"<mujoco model="drop"><worldbody><geom name="floor" type="plane" size="1 1 1"/>
        <body name="ball" pos="0 0 1"><freejoint/><geom size="0.1" mass="1"/></body>
        </worldbody></mujoco>"#;
    // Known as MJCF by its first character, whatever its name.
    let sniffed = Temp::new("drop.mjcf", model);
    let (g, h, z0, n) = (9.81, 0.002, 1.0, 50.0);
    let v = json_with(&[sniffed.path(), "--duration", "0.1"]);
    assert_eq!(v["steps"], 50, "0.1 s at MuJoCo's 0.002 s");
    let ball = &v["final"]["bodies"]["ball"];
    let z = numbers(&ball["position"])[2];
    let vz = numbers(&ball["velocity"])[2];
    let stepped = z0 - g * h * h * n * (n + 1.0) / 2.0;
    assert!((z - stepped).abs() < 1e-12, "z = {z}, {stepped} stepped");
    assert!((vz + g * n * h).abs() < 1e-12, "vz = {vz}");
    let v = json_with(&[sniffed.path(), "--duration", "1"]);
    let ball = &v["final"]["bodies"]["ball"];
    let gap = numbers(&ball["position"])[2] - 0.1;
    assert!((-1e-9..=1e-9).contains(&gap), "gap {gap:e} m");
    let speed = numbers(&v["final"]["qvel"])
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(speed < 1e-9, "still moving at {speed:e}");
    assert!(v["max_penetration"].as_f64().unwrap() < 1e-6);
    assert_eq!(v["unsolved_steps"], 0);
}

/// The complete elliptic integral of the first kind, `K(m)`, by the
/// arithmetic-geometric mean.
fn complete_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    while (a - b).abs() > 1e-16 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The pendulum from its keyframe "wide" (2 rad, at rest), by the
/// event-driven method for one period of its closed form: back at 2 rad,
/// at rest. Keys by name and by index start the same run.
#[test]
fn a_keyframe_starts_the_pendulum_and_it_keeps_its_elliptic_period() {
    // A compound pendulum: m g l over the moment m (l^2 + 2 r^2 / 5).
    let w0 = (9.81 / (1.0 + 0.4 * 1e-6_f64)).sqrt();
    let period = 4.0 * complete_k(1.0_f64.sin().powi(2)) / w0;
    let duration = format!("{period}");
    let run = |key: &str| {
        json_with(&[
            &pendulum(),
            "--duration",
            &duration,
            "--keyframe",
            key,
            "--stepping",
            "event",
            "--tolerance",
            "1e-12",
        ])
    };
    let v = run("wide");
    let (q, w) = (
        numbers(&v["final"]["qpos"])[0],
        numbers(&v["final"]["qvel"])[0],
    );
    assert!((q - 2.0).abs() < 1e-8, "q {q}");
    assert!(w.abs() < 1e-7, "qdot {w}");
    assert_eq!(run("0")["final"], v["final"]);
    // The other key: its velocity is the start's.
    let v = json_with(&[&pendulum(), "--duration", "0.001", "--keyframe", "half"]);
    assert!((numbers(&v["final"]["qvel"])[0] - 1.0).abs() < 0.01);
}

/// Mistakes on the command line: one line, exit 2, nothing on stdout.
#[test]
fn mistakes_are_one_line() {
    let toml = space("cube_on_floor.toml");
    let p = pendulum();
    for (args, line) in [
        (
            vec![p.as_str()],
            "--duration: required with an MJCF file (it has no duration)",
        ),
        (
            vec![p.as_str(), "--duration", "0"],
            "--duration: must be a finite number > 0",
        ),
        (
            vec![p.as_str(), "--duration", "1", "--keyframe", "narrow"],
            "--keyframe: `narrow`: no such key (the model's: wide, half)",
        ),
        (
            vec![p.as_str(), "--duration", "1", "--keyframe", "2"],
            "--keyframe: `2`: no such key (the model's: wide, half)",
        ),
        (
            vec![p.as_str(), "--duration", "1", "--tolerance", "1e-9"],
            "--tolerance: only with --stepping event",
        ),
        (
            vec![
                p.as_str(),
                "--duration",
                "1",
                "--stepping",
                "event",
                "--time-step",
                "0.01",
            ],
            "--time-step: only with --stepping timestep",
        ),
        (
            vec![toml.as_str(), "--keyframe", "0"],
            "--keyframe: only for MJCF files (a scene sets it in [solver])",
        ),
    ] {
        let out = zwang(&[&["simulate", "--json"], &args[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{line}\n"),
            "{args:?}"
        );
    }
}

/// Each file of `tests/data/mjcf/malformed`, run for 1 s: exit 2, nothing
/// on stdout, exactly the line of its `.expected` on stderr.
#[test]
fn each_malformed_file_exits_2_with_its_line() {
    let folder = root().join("tests/data/mjcf/malformed");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    for file in files {
        let expected = std::fs::read_to_string(file.with_extension("expected")).unwrap();
        let out = zwang(&["simulate", file.to_str().unwrap(), "--duration", "1"]);
        assert_eq!(out.status.code(), Some(2), "{}", file.display());
        assert!(out.stdout.is_empty(), "{}", file.display());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            expected,
            "{}",
            file.display()
        );
    }
}
