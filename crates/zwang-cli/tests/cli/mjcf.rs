//! `zwang simulate MODEL.xml`: MuJoCo's MJCF files as kinematic trees in
//! joint coordinates (`docs/mjcf.md`), through the binary: the JSON of the
//! contract, the spatial examples' MJCF twins against their TOML twins
//! (maximal coordinates) and against the event-driven method, a free fall
//! and a pendulum against their closed forms, keyframes, and every
//! malformed file refused with its one line.

use serde_json::Value;

use crate::common::{files_with_extension, root, zwang, Temp};

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
    // The CSV: a header, a row per step from the start, the last the
    // final state as the JSON has it.
    let csv = Temp::new("mjcf-stack.csv", "");
    let w = json_with(&[
        &space("stack_1_100.xml"),
        "--duration",
        "0.1",
        "--csv",
        csv.path(),
    ]);
    let text = std::fs::read_to_string(csv.path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 + 50, "the start and 50 steps of 2 ms");
    assert!(lines[0].starts_with("t,qpos[0],") && lines[0].ends_with(",qvel[23]"));
    let row: Vec<f64> = lines[51].split(',').map(|x| x.parse().unwrap()).collect();
    assert!((row[0] - 0.1).abs() < 1e-15, "{}", row[0]);
    assert_eq!(row[1..29], numbers(&w["final"]["qpos"])[..]);
    assert_eq!(row[29..], numbers(&w["final"]["qvel"])[..]);
}

/// `--csv` writes the trajectory: each row's position and velocity from
/// one step (a row at a step's end whose time the sum of the steps passed
/// by round-off paired that step's position with the next one's
/// velocity). A ball in free fall, time-stepped: after `k` steps of `h`,
/// `z = z0 - g h^2 k (k + 1) / 2` and `vz = -g k h` (semi-implicit
/// Euler); by the event-driven method, `z0 - g t^2 / 2` and `-g t`.
#[test]
fn the_csv_pairs_each_steps_position_with_its_velocity() {
    let model = r#"<mujoco><worldbody><body name="ball" pos="0 0 10"><freejoint/>
        <geom size="0.1" mass="1"/></body></worldbody></mujoco>"#;
    let file = Temp::new("csv_fall.xml", model);
    let csv = Temp::new("csv_fall.csv", "");
    let (g, h, z0) = (9.81, 0.002, 10.0);
    let rows = |text: &str| -> Vec<Vec<f64>> {
        text.lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    // Past 2.014 s the sum of the steps of 2 ms falls below `k h`.
    json_with(&[file.path(), "--duration", "2.1", "--csv", csv.path()]);
    let stepped = rows(&std::fs::read_to_string(csv.path()).unwrap());
    assert_eq!(stepped.len(), 1051, "the start and 1,050 steps");
    for (k, row) in stepped.iter().enumerate() {
        let k = k as f64;
        assert!((row[0] - k * h).abs() < 1e-12, "t = {}", row[0]);
        let z = z0 - g * h * h * k * (k + 1.0) / 2.0;
        assert!(
            (row[3] - z).abs() < 1e-9,
            "row {k}: z {} against {z}",
            row[3]
        );
        assert!(
            (row[10] + g * k * h).abs() < 1e-9,
            "row {k}: vz {}",
            row[10]
        );
    }
    json_with(&[
        file.path(),
        "--duration",
        "0.3",
        "--stepping",
        "event",
        "--csv",
        csv.path(),
    ]);
    let exact = rows(&std::fs::read_to_string(csv.path()).unwrap());
    assert!(exact.len() > 100, "{} rows", exact.len());
    for row in &exact {
        let t = row[0];
        assert!(
            (row[3] - (z0 - g * t * t / 2.0)).abs() < 1e-9,
            "t = {t}: z {}",
            row[3]
        );
        assert!((row[10] + g * t).abs() < 1e-9, "t = {t}: vz {}", row[10]);
    }
    assert_eq!(exact.last().unwrap()[0], 0.3);
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
/// h^2 n (n + 1) / 2`), then at rest on the floor at its radius (and the gap slop).
#[test]
fn a_dropped_ball_falls_as_stepped_and_rests_at_its_radius() {
    let model = r#"<mujoco model="drop"><worldbody><geom name="floor" type="plane" size="1 1 1"/>
        <body name="ball" pos="0 0 1"><freejoint/><geom size="0.1" mass="1"/></body>
        </worldbody></mujoco>"#;
    // Known as MJCF by its first character, whatever its name.
    let sniffed = Temp::new("mjcf-drop.mjcf", model);
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
    // Gaps below a thousandth of the penetration tolerance (1e-6 m by
    // default) count as touching: the ball comes to rest that far above
    // the floor, 1e-9 m, to the contact solve's round-off.
    let gap = numbers(&ball["position"])[2] - 0.1;
    assert!((gap - 1e-9).abs() < 1e-12, "gap {gap:e} m");
    let speed = numbers(&v["final"]["qvel"])
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(speed < 1e-9, "still moving at {speed:e}");
    assert!(v["max_penetration"].as_f64().unwrap() < 1e-6);
    assert_eq!(v["unsolved_steps"], 0);
}

/// The project's humanoid with its shoulders 4 cm further in
/// (`y = +-0.19`): each forearm (radius 0.035 at `|y| = 0.19`) starts
/// 5 mm into the hips (radius 0.08 to `|y| = 0.08`), along `y`, which
/// every hinge (all about `y`) moves across, never along. The start's
/// correction asked for a displacement of `1e14` (the normal row is
/// round-off) and the run failed ("M is not positive definite"); once
/// the humanoid tilts, a linearised correction turned the knees by 10
/// rad. Now the overlap is left and reported (5 mm by the geometry),
/// and the humanoid lands, within its limits, with every step solved.
#[test]
fn an_overlap_no_joint_can_separate_is_left_and_reported() {
    let own = std::fs::read_to_string(root().join("examples/mjcf/humanoid.xml")).unwrap();
    let tight = own
        .replace("pos=\"0 0.23 0.14\"", "pos=\"0 0.19 0.14\"")
        .replace("pos=\"0 -0.23 0.14\"", "pos=\"0 -0.19 0.14\"");
    assert_ne!(tight, own, "the shoulders moved in");
    let file = Temp::new("arms_in.xml", &tight);
    let v = json_with(&[file.path(), "--duration", "3"]);
    assert_eq!(v["status"], "finished");
    assert_eq!(v["unsolved_steps"], 0);
    // The forearm's inner surface less the hips' end: -5 mm.
    let gap = 0.19 - 0.035 - (0.08 + 0.08);
    let reported = v["max_penetration"].as_f64().unwrap();
    assert!(
        (reported + gap).abs() < 1e-9,
        "{reported} m, gap {gap} m by the geometry"
    );
    let start = &v["start_projection"];
    assert!(
        (start["violation"].as_f64().unwrap() + gap).abs() < 1e-9,
        "{start}"
    );
    assert!(v["max_limit_violation"].as_f64().unwrap() < 1e-9, "{v}");
    let energy = &v["energy"];
    assert!(energy["final"].as_f64().unwrap() < energy["initial"].as_f64().unwrap());
    let text = zwang(&["simulate", file.path(), "--duration", "0.01"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("start: 0.005 m at an overlap of two geoms, left as given"),
        "{text}"
    );
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
    let files = files_with_extension(&folder, "xml");
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

/// A pendulum written for the drawing's test: a box bob (0.2 m a side)
/// 1 m below a hinge about y at height 1.5, over a floor plane at z = 0,
/// under a fixed beam along x (2.4 m long: the view holds both sides).
/// Keyframes: "east" (-1.2 rad about y: the bob towards +x) and "west"
/// (1.2 rad).
const DRAWN_PENDULUM: &str = r#"<mujoco model="drawn">
  <compiler angle="radian"/>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <geom name="beam" type="box" pos="0 0 1.6" size="1.2 0.05 0.05" contype="0" conaffinity="0"/>
    <body name="bob" pos="0 0 0.5">
      <joint name="swing" type="hinge" pos="0 0 1" axis="0 1 0"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
  <keyframe>
    <key name="east" qpos="-1.2"/>
    <key name="west" qpos="1.2"/>
  </keyframe>
</mujoco>
"#;

/// Whether `c` is `base` lit by a share of it from 0.4 to 1 (a face of
/// a body in its colour, whichever way the face is turned; the shading
/// keeps 0.45 in the dark).
fn is_shade_of(c: [u8; 3], base: [u8; 3]) -> bool {
    (0..=120).any(|i| {
        let k = 0.4 + 0.6 * i as f64 / 120.0;
        (0..3).all(|j| (c[j] as f64 - k * base[j] as f64).abs() <= 2.0)
    })
}

/// `--draw` on an MJCF file: a PNG of the final state shows the bob
/// where the run left it (the pixel its centre projects to has the bob's
/// colour) and not where the other keyframe puts it, over the floor,
/// time-stepped or event-driven; the run and its report are those
/// without `--draw`. A GIF is an animation of the GIF's size; an SVG and
/// `--plot` are refused in one line.
#[test]
fn draw_pictures_the_geoms_where_the_run_puts_them() {
    use zwang_draw::draw::space::{shade, tree_camera};
    use zwang_draw::draw::{fill_color, Frame, FIXED_FILL, PANEL};
    let model = Temp::new("mjcf-drawn.xml", DRAWN_PENDULUM);
    let (articulated, _) = zwang::articulated::load(&model.0).unwrap();
    let png = Temp::new("mjcf-drawn.png", "");
    let mut ends = Vec::new();
    // Time-stepped from the east, event-driven from the west.
    for (key, stepping) in [("east", "timestep"), ("west", "event")] {
        let args = [
            model.path(),
            "--duration",
            "0.02",
            "--keyframe",
            key,
            "--stepping",
            stepping,
        ];
        let out = zwang(&[&["simulate", "--json", "--draw", png.path()], &args[..]].concat());
        assert_eq!(out.status.code(), Some(0), "{key}");
        let drawn: Value = serde_json::from_slice(&out.stdout).unwrap();
        let plain = json_with(&args);
        for field in ["status", "time", "steps", "final", "energy"] {
            assert_eq!(drawn[field], plain[field], "--draw changes {field}");
        }
        let bob = numbers(&drawn["final"]["bodies"]["bob"]["position"]);
        // The hinge holds the bob 1 m from the pivot, on its side.
        let sign = if key == "east" { 1.0 } else { -1.0 };
        assert!(sign * bob[0] > 0.9 && (bob[2] - 1.5 + 1.2f64.cos()).abs() < 0.01);
        let turn = numbers(&drawn["final"]["bodies"]["bob"]["orientation"]);
        let qpos = numbers(&drawn["final"]["qpos"]);
        let (pixels, w, h) = crate::simulate::decode_png(&std::fs::read(&png.0).unwrap());
        assert_eq!((w, h), PANEL);
        let turn = [turn[0], turn[1], turn[2], turn[3]];
        ends.push((pixels, qpos, [bob[0], bob[1], bob[2]], turn));
    }
    for (i, (pixels, qpos, here, turn)) in ends.iter().enumerate() {
        let frame = Frame {
            t: 0.02,
            q: qpos.clone(),
        };
        let camera = tree_camera(&articulated, &[frame], PANEL);
        let color = |p: [f64; 3]| {
            let (x, y) = camera.to_pixel(p);
            assert!(x >= 0 && y >= 0 && x < PANEL.0 as i32 && y < PANEL.1 as i32);
            pixels[y as usize * PANEL.0 as usize + x as usize]
        };
        // The centre of the bob's face most towards the viewer shows in
        // the bob's colour, lit as that face is.
        let r = zwang_core::rotation::matrix(*turn);
        let toward = camera.toward();
        let normal = (0..3)
            .flat_map(|k| [1.0, -1.0].map(|s| [0, 1, 2].map(|j| s * r[j][k])))
            .max_by(|a, b| {
                let towards = |n: &[f64; 3]| (0..3).map(|j| n[j] * toward[j]).sum::<f64>();
                towards(a).total_cmp(&towards(b))
            })
            .unwrap();
        let face = [0, 1, 2].map(|j| here[j] + 0.1 * normal[j]);
        assert_eq!(
            color(face),
            shade(fill_color(0), normal),
            "the bob's face at {face:?}"
        );
        // Where the other keyframe put it, no bob.
        let there = ends[1 - i].2;
        assert!(
            !is_shade_of(color(there), fill_color(0)),
            "no bob at {there:?}: {:?}",
            color(there)
        );
        // The floor below the pivot, lit from above.
        assert_eq!(color([0.0, 0.0, 0.0]), shade(FIXED_FILL, [0.0, 0.0, 1.0]));
    }

    let gif = Temp::new("mjcf-drawn.gif", "");
    let out = zwang(&[
        "simulate",
        model.path(),
        "--duration",
        "0.05",
        "--keyframe",
        "east",
        "--draw",
        gif.path(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let bytes = std::fs::read(&gif.0).unwrap();
    assert!(bytes.starts_with(b"GIF89a"));
    let word = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    assert_eq!((word(6), word(8)), (480, 360));

    let svg = std::env::temp_dir().join(format!("zwang-mjcf-{}-x.svg", std::process::id()));
    for (args, line) in [
        (
            vec!["--draw", svg.to_str().unwrap()],
            "--draw: an SVG animation is planar for now; use .png or .gif",
        ),
        (
            vec!["--draw", png.path(), "--draw-at", "0,1"],
            "--draw-at: 1 s is not in the run, from 0 to 0.5 s",
        ),
        (
            vec!["--plot", png.path()],
            "--plot: not built yet for MJCF models",
        ),
    ] {
        let all = [&["simulate", model.path(), "--duration", "0.5"], &args[..]].concat();
        let out = zwang(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("{line}\n"));
    }
    assert!(!svg.exists());
}
