//! Runs that say what happened, through the binary: a step whose contact
//! problem ends above the tolerance is counted and warned of (or ends the
//! run with `on_unsolved = "fail"`, before that step), and a start that
//! overlaps or is off its joints is moved and reported, its overlap
//! counted, its energy before and after given.

use serde_json::Value;

use crate::common::{zwang, Temp};

/// `zwang simulate FILE --json`: the exit code, the JSON, stderr.
fn run_json(file: &str) -> (Option<i32>, Value, String) {
    let out = zwang(&["simulate", file, "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{file}: {e}: {stderr}"));
    (out.status.code(), json, stderr)
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A cube of 1 kg and 0.2 m dropped on a corner from 5 mm above the
/// floor, time-stepped at 2 ms, the contact solver held to
/// `contact_tolerance` (1e-300: what no double arithmetic meets, so every
/// step with contacts ends above it).
fn landing_cube(duration: f64, contact_tolerance: f64, on_unsolved: &str) -> String {
    format!(
        r#"
[scene]
name = "landing_cube"
dimension = 3
duration = {duration}

[[body]]
name = "cube"
kind = "rigid"
mass = 1.0
position = [0.0, 0.0, 0.18]
orientation = [0.8888807569127458, 0.32395292867191683, 0.32395292867191683, 0.0]
shape = {{ kind = "box", half_extents = [0.1, 0.1, 0.1] }}
friction = 0.5

[[body]]
name = "floor"
kind = "fixed"
shape = {{ kind = "halfspace", normal = [0.0, 0.0, 1.0] }}
friction = 0.5

[solver]
time_step = 0.002
contact_tolerance = {contact_tolerance:e}
on_unsolved = "{on_unsolved}"
"#
    )
}

/// The cube's lowest corner at the start, m (above the floor: > 0).
fn lowest_corner() -> f64 {
    let (w, x, y, z) = (
        0.8888807569127458f64,
        0.32395292867191683f64,
        0.32395292867191683f64,
        0.0f64,
    );
    let n = (w * w + x * x + y * y + z * z).sqrt();
    let (w, x, y, z) = (w / n, x / n, y / n, z / n);
    // The third row of the rotation matrix: the z of a body vector.
    let row = [
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    ];
    let mut lowest = f64::INFINITY;
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                let z = 0.18 + 0.1 * (row[0] * sx + row[1] * sy + row[2] * sz);
                lowest = lowest.min(z);
            }
        }
    }
    lowest
}

#[test]
fn unsolved_steps_are_counted_and_warned_of() {
    // Touching ground within the run: the corner starts above the floor.
    let gap = lowest_corner();
    assert!(gap > 0.0 && gap < 0.01, "{gap}");
    let scene = Temp::new("honest-warn.toml", &landing_cube(0.2, 1e-300, "warn"));
    let (code, json, stderr) = run_json(scene.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(json["status"], "finished");
    let unsolved = json["unsolved_steps"].as_u64().unwrap();
    let steps = json["steps"].as_u64().unwrap();
    // Free fall to the floor takes sqrt(2 gap / g); every step after has
    // contacts, and none meets 1e-300.
    let fall = (2.0 * gap / 9.81).sqrt();
    let after = ((0.2 - fall) / 0.002).floor() as u64;
    assert!(
        unsolved >= after - 2 && unsolved <= steps,
        "{unsolved} of {steps}, {after} after the fall"
    );
    let worst = number(&json["contact_error"]["worst"]);
    let at = number(&json["contact_error"]["time"]);
    assert!(worst > 1e-300 && worst.is_finite(), "{worst}");
    assert!(at >= fall - 0.004 && at < 0.2, "{at}");
    assert_eq!(number(&json["contact_error"]["tolerance"]), 1e-300);
    // One warning line on stderr, saying the count.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("warning: contact problems: ")
            && lines[0].contains(&format!("{unsolved} of {steps} steps unsolved")),
        "{stderr}"
    );
    // The text report says it too.
    let out = zwang(&["simulate", scene.path()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{unsolved} of {steps} steps unsolved")),
        "{text}"
    );

    // At the default tolerance the same landing is solved: no warning.
    let solved = Temp::new("honest-solved.toml", &landing_cube(0.2, 1e-10, "warn"));
    let (code, json, stderr) = run_json(solved.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(json["unsolved_steps"], 0, "{json}");
    assert!(number(&json["contact_error"]["worst"]) <= 1e-10);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn on_unsolved_fail_ends_the_run_before_the_step() {
    let scene = Temp::new("honest-fail.toml", &landing_cube(0.2, 1e-300, "fail"));
    let (code, json, stderr) = run_json(scene.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(json["status"], "failed");
    let reason = json["reason"].as_str().unwrap();
    assert!(reason.contains("above the tolerance 1e-300"), "{reason}");
    // The run stopped at the start of its first unsolved step: that step
    // is the one counted, and the worst.
    let t = number(&json["time"]);
    assert_eq!(json["unsolved_steps"], 1);
    assert_eq!(number(&json["contact_error"]["time"]), t);
    let steps = json["steps"].as_u64().unwrap();
    assert!((t - steps as f64 * 0.002).abs() < 1e-12, "{t} {steps}");
    assert!(reason.starts_with(&format!("at t = {t}")), "{reason}");
    assert!(
        stderr.starts_with("warning: contact problems: 1 of "),
        "{stderr}"
    );

    // Its state is the step's start, not the unconverged answer: a run
    // that ends there (no unsolved step in it) ends in the same state.
    let before = Temp::new(
        "honest-before.toml",
        &landing_cube(steps as f64 * 0.002, 1e-300, "fail"),
    );
    let (code, end, stderr) = run_json(before.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(end["unsolved_steps"], 0);
    // (To round-off: the shorter run's last step is `duration - t`.)
    for key in ["position", "orientation", "velocity", "angular_velocity"] {
        for k in 0..3 {
            let (a, b) = (
                &end["final"]["cube"][key][k],
                &json["final"]["cube"][key][k],
            );
            assert!((number(a) - number(b)).abs() < 1e-12, "{key}: {a} {b}");
        }
    }
}

#[test]
fn a_malformed_on_unsolved_or_contact_tolerance_is_one_line() {
    for (text, want) in [
        (
            landing_cube(0.2, 1e-10, "ignore"),
            "solver.on_unsolved: unknown on_unsolved \"ignore\" (expected warn or fail)",
        ),
        (
            landing_cube(0.2, 0.1, "warn"),
            "solver.contact_tolerance: must be in (0, 1e-2]",
        ),
        (
            // A planar particle without shapes: event-driven by default.
            "[scene]\ndimension = 2\nduration = 1.0\n[[body]]\nname = \"p\"\nkind = \"particle\"\n\
             mass = 1.0\nposition = [0.0, 0.0]\n[solver]\non_unsolved = \"fail\"\n"
                .to_string(),
            "solver.on_unsolved: only with stepping = \"timestep\"",
        ),
    ] {
        let scene = Temp::new("honest-bad.toml", &text);
        let out = zwang(&["simulate", scene.path()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
    }
}

/// A cube of 1 kg and 1 m edges whose centre starts at `z` (below 0.5:
/// in the floor), at rest.
fn sunk_cube(z: f64) -> String {
    format!(
        r#"
[scene]
name = "sunk_cube"
dimension = 3
duration = 0.5

[[body]]
name = "cube"
kind = "rigid"
mass = 1.0
position = [0.0, 0.0, {z}]
shape = {{ kind = "box", half_extents = [0.5, 0.5, 0.5] }}
friction = 0.6

[[body]]
name = "floor"
kind = "fixed"
shape = {{ kind = "halfspace", normal = [0.0, 0.0, 1.0] }}
friction = 0.6
"#
    )
}

#[test]
fn a_start_in_the_floor_is_moved_out_and_reported() {
    let g = 9.81;
    let scene = Temp::new("honest-sunk.toml", &sunk_cube(0.3));
    let (code, json, stderr) = run_json(scene.path());
    assert_eq!(code, Some(0), "{stderr}");
    let p = &json["start_projection"];
    // 0.2 m into the floor, lifted onto it: m g dz of potential energy.
    assert!((number(&p["violation"]) - 0.2).abs() < 1e-9, "{p}");
    assert_eq!(p["at"], "an overlap of two shapes");
    assert!((number(&p["position_change"]) - 0.2).abs() < 1e-6, "{p}");
    assert!((number(&p["energy_given"]) - g * 0.3).abs() < 1e-9, "{p}");
    let projected = number(&p["energy_projected"]);
    assert!((projected - g * 0.5).abs() < 1e-5, "{p}");
    assert_eq!(number(&json["energy"]["initial"]), projected);
    // The start's overlap is the run's deepest, and no energy comes from
    // nowhere after it: the cube rests on the floor.
    assert!((number(&json["max_penetration"]) - 0.2).abs() < 1e-9);
    let end = number(&json["energy"]["final"]);
    assert!(end <= projected + 1e-9, "{end} > {projected}");
    let z = number(&json["final"]["cube"]["position"][2]);
    assert!((z - 0.5).abs() < 1e-5, "{z}");

    // The text report says so in a line.
    let out = zwang(&["simulate", scene.path()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the start was off its joints and contacts (by 0.2 m at an overlap"),
        "{text}"
    );

    // A start on the floor is not moved and not reported.
    let resting = Temp::new("honest-resting.toml", &sunk_cube(0.5));
    let (_, json, _) = run_json(resting.path());
    assert!(json.get("start_projection").is_none(), "{json}");
}

#[test]
fn a_start_off_its_ball_joint_is_moved_onto_it_and_reported() {
    // The hanging box of the examples with its centre 0.1 m off in x: the
    // ball joint's anchors 0.1 m apart.
    let text = r#"
[scene]
name = "off_joint"
dimension = 3
duration = 0.1

[[body]]
name = "box"
kind = "rigid"
mass = 1.0
position = [0.1, 0.0, -0.5]
shape = { kind = "box", half_extents = [0.125, 0.0625, 0.25] }

[[joint]]
kind = "ball"
bodies = ["ground", "box"]
anchors = [[0.125, 0.0625, -0.25], [0.125, 0.0625, 0.25]]

[solver]
stepping = "timestep"
time_step = 0.001
"#;
    let scene = Temp::new("honest-off_joint.toml", text);
    let (code, json, stderr) = run_json(scene.path());
    assert_eq!(code, Some(0), "{stderr}");
    let p = &json["start_projection"];
    assert!((number(&p["violation"]) - 0.1).abs() < 1e-9, "{p}");
    assert_eq!(p["at"], "a joint");
    assert!(number(&p["position_change"]) > 0.0, "{p}");
    assert_eq!(
        number(&json["energy"]["initial"]),
        number(&p["energy_projected"])
    );
}

#[test]
fn a_planar_start_in_the_floor_is_moved_out_and_reported() {
    // A box of 1 kg, 0.4 x 0.2 m, its centre 0.05 m too low: 0.05 m into
    // the floor.
    let text = r#"
[scene]
name = "sunk_box"
dimension = 2
duration = 0.5

[[body]]
name = "box"
kind = "rigid"
mass = 1.0
position = [0.0, 0.05]
shape = { kind = "box", half_extents = [0.2, 0.1] }
friction = 0.5

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfplane", normal = [0.0, 1.0] }
friction = 0.5
"#;
    let g = 9.81;
    let scene = Temp::new("honest-sunk_box.toml", text);
    let (code, json, stderr) = run_json(scene.path());
    assert_eq!(code, Some(0), "{stderr}");
    let p = &json["start_projection"];
    assert!((number(&p["violation"]) - 0.05).abs() < 1e-9, "{p}");
    assert_eq!(p["at"], "an overlap of two shapes");
    assert!((number(&p["energy_given"]) - g * 0.05).abs() < 1e-9, "{p}");
    let projected = number(&p["energy_projected"]);
    assert!((projected - g * 0.1).abs() < 1e-5, "{p}");
    assert_eq!(number(&json["energy"]["initial"]), projected);
    assert!((number(&json["max_penetration"]) - 0.05).abs() < 1e-9);
    assert!(number(&json["energy"]["final"]) <= projected + 1e-9);
    let y = number(&json["final"]["box"]["position"][1]);
    assert!((y - 0.1).abs() < 1e-5, "{y}");
}
