//! `zwang simulate` on spatial scenes (`dimension = 3`), through the
//! binary: the JSON and CSV of the contract, the examples' expected
//! motion, and malformed scenes refused with one line naming the key
//! (exit 2, nothing on stdout).

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{png_size, zwang, Temp};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/scenes/space")
        .join(name)
}

/// Runs `zwang simulate FILE --json`: exit 0, the JSON.
fn json_of(file: &str) -> Value {
    let out = zwang(&["simulate", file, "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{file}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn vector(v: &Value, n: usize) -> Vec<f64> {
    let items = v.as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(items.len(), n, "{v}");
    items.iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn the_json_has_the_contracts_fields_for_every_example() {
    for (file, moving, fixed) in [
        ("cube_on_floor.toml", &["cube"][..], &["floor"][..]),
        ("cube_on_incline.toml", &["cube"], &["incline"]),
        ("sphere_rolling_incline.toml", &["ball"], &["incline"]),
        ("stack_1_100.toml", &["c1", "c2", "c3", "c4"], &["floor"]),
        (
            "boxes_in_bin.toml",
            &["box1", "box2", "box3", "box4", "box5"],
            &[
                "floor",
                "wall_west",
                "wall_east",
                "wall_south",
                "wall_north",
            ],
        ),
        ("spherical_pendulum.toml", &["bob"], &[]),
        ("spinning_top.toml", &["top"], &[]),
        (
            "newtons_cradle.toml",
            &["ball0", "ball1", "ball2", "ball3", "ball4"],
            &["frame"],
        ),
        (
            "newtons_cradle_touching.toml",
            &["ball0", "ball1", "ball2", "ball3", "ball4"],
            &["frame"],
        ),
        (
            "pinched_capsule.toml",
            &["capsule", "left_pad", "right_pad"],
            &[],
        ),
        ("top_steady_precession.toml", &["top"], &[]),
        ("hinged_pendulum_event.toml", &["plate"], &[]),
        ("spring_damper_bob.toml", &["bob"], &[]),
    ] {
        let path = example(file);
        let v = json_of(path.to_str().unwrap());
        assert_eq!(v["status"], "finished", "{file}");
        assert!(v["time"].as_f64().unwrap() > 0.0);
        assert!(v["steps"].as_u64().unwrap() > 0);
        assert_eq!(v["events"], Value::Array(vec![]), "{file}");
        assert!(v["energy"]["initial"].is_f64() && v["energy"]["final"].is_f64());
        assert!(v["max_constraint_drift"].is_f64());
        let penetration = v["max_penetration"].as_f64().unwrap();
        assert!((0.0..1e-5).contains(&penetration), "{file}: {penetration}");
        let fin = v["final"].as_object().unwrap();
        assert_eq!(fin.len(), moving.len(), "{file}: {fin:?}");
        for name in moving {
            let b = &fin[*name];
            vector(&b["position"], 3);
            let q = vector(&b["orientation"], 4);
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() < 1e-9, "{file}: {name} {q:?}");
            vector(&b["velocity"], 3);
            vector(&b["angular_velocity"], 3);
        }
        for name in fixed {
            assert!(!fin.contains_key(*name), "{file}: {name} is fixed");
        }
    }
}

/// A unit cube on a floor stays at its height, 0.5 m, to 1e-6 over 1 s:
/// in the JSON and at every sample of the CSV.
#[test]
fn a_cube_rests_on_the_floor() {
    let path = example("cube_on_floor.toml");
    let v = json_of(path.to_str().unwrap());
    assert_eq!(v["time"], 1.0);
    let z = v["final"]["cube"]["position"][2].as_f64().unwrap();
    assert!((z - 0.5).abs() < 1e-6, "{z}");

    let csv = Temp::new("space-floor.csv", "");
    let out = zwang(&["simulate", path.to_str().unwrap(), "--csv", csv.path()]);
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&csv.0).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "t,cube.x,cube.y,cube.z,cube.qw,cube.qx,cube.qy,cube.qz,cube.vx,cube.vy,cube.vz,\
         cube.wx,cube.wy,cube.wz"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 101, "t = 0, 0.01, ..., 1");
    for row in &rows {
        assert_eq!(row.len(), 14);
        assert!((row[3] - 0.5).abs() < 1e-6, "{row:?}");
    }
    assert_eq!(rows[100][0], 1.0);
}

/// At mu = 1.01 tan 20 the cube on the incline sticks; the ball rolls at
/// 5/7 g sin 20 down the slope, spinning at v / r; the 1:100 stack stands.
#[test]
fn the_examples_move_as_they_say() {
    let v = json_of(example("cube_on_incline.toml").to_str().unwrap());
    let p = vector(&v["final"]["cube"]["position"], 3);
    let start = [0.17101007166283436, 0.0, 0.4698463103929542];
    for k in 0..3 {
        assert!((p[k] - start[k]).abs() < 1e-6, "{p:?}");
    }

    let v = json_of(example("sphere_rolling_incline.toml").to_str().unwrap());
    let a = 20f64.to_radians();
    let speed = 5.0 / 7.0 * 9.81 * a.sin();
    let vel = vector(&v["final"]["ball"]["velocity"], 3);
    let expected = [speed * a.cos(), 0.0, -speed * a.sin()];
    for k in 0..3 {
        assert!(
            (vel[k] - expected[k]).abs() < 1e-3,
            "{vel:?} vs {expected:?}"
        );
    }
    let w = vector(&v["final"]["ball"]["angular_velocity"], 3);
    assert!((w[1] - speed / 0.1).abs() < 1e-2, "{w:?}");

    let v = json_of(example("stack_1_100.toml").to_str().unwrap());
    for (name, z) in [("c1", 0.5), ("c2", 1.5), ("c3", 2.5), ("c4", 3.5)] {
        let p = vector(&v["final"][name]["position"], 3);
        assert!((p[2] - z).abs() < 1e-5, "{name}: {p:?}");
    }

    // The joints hold: where a point of a body's frame is at the end.
    let at = |v: &Value, body: &str, local: [f64; 3]| {
        let p = vector(&v["final"][body]["position"], 3);
        let q = vector(&v["final"][body]["orientation"], 4);
        let r = rotate(&q, local);
        [0, 1, 2].map(|i| p[i] + r[i])
    };
    let near = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-9);
    let v = json_of(example("double_pendulum.toml").to_str().unwrap());
    let elbow = at(&v, "upper", [0.25, 0.0, 0.0]);
    assert!(near(elbow, at(&v, "lower", [-0.25, 0.0, 0.0])), "{elbow:?}");
    assert!(near(at(&v, "upper", [-0.25, 0.0, 0.0]), [0.0; 3]));
    let lower = vector(&v["final"]["lower"]["position"], 3);
    assert!(lower[1].abs() < 1e-9 && lower[2] < -0.1, "{lower:?}");
    let v = json_of(example("hanging_box.toml").to_str().unwrap());
    let corner = at(&v, "box", [0.125, 0.0625, 0.25]);
    assert!(near(corner, [0.125, 0.0625, -0.25]), "{corner:?}");
    let w = vector(&v["final"]["box"]["angular_velocity"], 3);
    assert!(
        w.iter().all(|x| x.abs() > 0.1),
        "it turns about every axis: {w:?}"
    );
    // The bead slides down its rail at g 0.8, the time stepper's way:
    // a h^2 n (n + 1) / 2 after n steps.
    let v = json_of(example("bead_on_rail.toml").to_str().unwrap());
    let (a, h, n) = (9.81 * 0.8, 1e-3, 1000.0);
    let s = a * h * h * n * (n + 1.0) / 2.0;
    let p = vector(&v["final"]["bead"]["position"], 3);
    assert!(near([p[0], p[1], p[2]], [0.6 * s, 0.0, -0.8 * s]), "{p:?}");
    let u = vector(&v["final"]["bead"]["velocity"], 3);
    assert!(near([u[0], u[1], u[2]], [0.6 * a, 0.0, -0.8 * a]), "{u:?}");
    let q = vector(&v["final"]["bead"]["orientation"], 4);
    assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn the_csv_lists_moving_bodies_only() {
    let csv = Temp::new("space-bin.csv", "");
    let path = example("boxes_in_bin.toml");
    let out = zwang(&["simulate", path.to_str().unwrap(), "--csv", csv.path()]);
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&csv.0).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(header.len(), 1 + 13 * 5);
    assert_eq!(&header[1..4], ["box1.x", "box1.y", "box1.z"]);
    assert_eq!(header[66 - 1], "box5.wz");
    assert!(!header
        .iter()
        .any(|h| h.starts_with("floor") || h.starts_with("wall")));
}

/// The rotation of `p` by the unit quaternion `[w, x, y, z]`.
fn rotate(q: &[f64], p: [f64; 3]) -> [f64; 3] {
    let (w, u) = (q[0], [q[1], q[2], q[3]]);
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    // p + 2 w (u x p) + 2 u x (u x p)
    let t = cross(u, p);
    let tt = cross(u, t);
    [0, 1, 2].map(|i| p[i] + 2.0 * w * t[i] + 2.0 * tt[i])
}

/// The example's promise, "the boxes come to rest inside the bin", from
/// the shipped file: at the end every corner of every box is between the
/// walls (x and y in [-1, 1] m) and above the floor, to the contract's
/// overlap of 1e-5 m; every point of every box moves at under 1e-6 m/s
/// (its centre's speed plus its spin times its half diagonal); the energy
/// is then all potential, `m g z` summed.
#[test]
fn the_boxes_come_to_rest_inside_the_bin() {
    let path = example("boxes_in_bin.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let v = json_of(path.to_str().unwrap());
    assert_eq!(v["status"], "finished");
    assert_eq!(v["time"], 2.0);
    let (half, g, overlap) = ([0.2, 0.15, 0.1], 9.81, 1e-5);
    assert!(text.contains("half_extents = [0.2, 0.15, 0.1]") && text.contains("mass = 1.0"));
    let reach = half.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut potential = 0.0;
    for name in ["box1", "box2", "box3", "box4", "box5"] {
        let b = &v["final"][name];
        let (p, q) = (vector(&b["position"], 3), vector(&b["orientation"], 4));
        for corner in 0..8 {
            let local = [0, 1, 2].map(|i| {
                if corner >> i & 1 == 1 {
                    half[i]
                } else {
                    -half[i]
                }
            });
            let r = rotate(&q, local);
            let c = [0, 1, 2].map(|i| p[i] + r[i]);
            assert!(
                c[0].abs() <= 1.0 + overlap && c[1].abs() <= 1.0 + overlap && c[2] >= -overlap,
                "{name}: corner {c:?} outside the bin"
            );
        }
        let speed = |key: &str| vector(&b[key], 3).iter().map(|x| x * x).sum::<f64>().sqrt();
        let fastest = speed("velocity") + reach * speed("angular_velocity");
        assert!(fastest < 1e-6, "{name}: a point at {fastest:e} m/s");
        potential += g * p[2];
    }
    let energy = v["energy"]["final"].as_f64().unwrap();
    assert!(
        (energy - potential).abs() < 1e-9,
        "energy {energy} J, potential {potential} J"
    );
    // What the scene's comment (and the README) say: every step solved,
    // the worst error below the tolerance.
    assert!(text.contains("every step's\n# contact problem solved to 1e-10"));
    assert_eq!(v["unsolved_steps"], 0);
    assert_eq!(v["contact_error"]["tolerance"], 1e-10);
    let worst = v["contact_error"]["worst"].as_f64().unwrap();
    assert!(worst > 0.0 && worst <= 1e-10, "worst error {worst:e}");
}

const CUBE: &str = r#"
[scene]
dimension = 3
duration = 0.1

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfspace", normal = [0.0, 0.0, 1.0] }

[[body]]
name = "cube"
kind = "rigid"
mass = 1.0
position = [0.0, 0.0, 0.5]
shape = { kind = "box", half_extents = [0.5, 0.5, 0.5] }
"#;

fn cube_with(old: &str, new: &str) -> String {
    assert!(CUBE.contains(old), "{old}");
    CUBE.replacen(old, new, 1)
}

#[test]
fn malformed_spatial_scenes_exit_2_with_one_line() {
    let box_shape = "kind = \"box\", half_extents = [0.5, 0.5, 0.5]";
    let cases = [
        (
            cube_with(box_shape, "kind = \"box\", half_extents = [0.5, -0.5, 0.5]"),
            "body[1].shape.half_extents: must be > 0",
        ),
        (
            cube_with(
                box_shape,
                "kind = \"capsule\", half_length = 0.5, radius = 0",
            ),
            "body[1].shape.radius: must be > 0",
        ),
        (
            cube_with(box_shape, "kind = \"halfspace\", normal = [0, 0, 1]"),
            "body[1].shape: a half-space must be on a fixed body",
        ),
        (
            cube_with("mass = 1.0", "mass = 1.0\norientation = [0, 0, 0, 0]"),
            "body[1].orientation: must be a nonzero quaternion",
        ),
        (
            cube_with("mass = 1.0", "mass = -2.0"),
            "body[1].mass: must be > 0",
        ),
        (
            cube_with("mass = 1.0", "mass = 1.0\nspin = 3"),
            "body[1].spin: unknown key (known here: name, kind, mass, inertia, position, \
             orientation, velocity, angular_velocity, shape, friction, restitution)",
        ),
        (
            format!(
                "{CUBE}\n[[joint]]\nkind = \"hinge\"\nbodies = [\"floor\", \"cube\"]\n\
                 anchors = [[0, 0, 0], [0, 0, -0.5]]\naxis = [0, 0, 0]\n"
            ),
            "joint[0].axis: must be nonzero",
        ),
        (
            format!("{CUBE}\n[solver]\nstepping = \"event\"\n"),
            "solver.stepping: shapes collide only under stepping = \"timestep\" (a body has a \
             shape)",
        ),
        (
            cube_with("position = [0.0, 0.0, 0.5]", "position = [0.0, 0.5]"),
            "body[1].position: expected 3 numbers, found 2",
        ),
        (
            cube_with("mass = 1.0", "mass = 1.0\ninertia = [1, 1, 1, 1]"),
            "body[1].inertia: expected 3 or 6 numbers, found 4",
        ),
        (
            cube_with("normal = [0.0, 0.0, 1.0]", "normal = [0.0, 1.0]"),
            "body[0].shape.normal: expected 3 numbers, found 2",
        ),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = Temp::new(&format!("space-bad{i}.toml"), text);
        for json in [false, true] {
            let mut args = vec!["simulate", file.path()];
            if json {
                args.push("--json");
            }
            let out = zwang(&args);
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(2), "{expected}: {stderr}");
            assert!(out.stdout.is_empty(), "{expected}");
            assert_eq!(stderr, format!("{expected}\n"));
        }
    }
}

/// `--draw` in space: the bin at its end (one panel), at three instants
/// (a grid of two by two), and as a GIF; the run and its report are those
/// without `--draw`.
#[test]
fn draw_pictures_the_bin() {
    let path = example("boxes_in_bin.toml");
    let scene = path.to_str().unwrap();
    let png = Temp::new("space-bin.png", "");
    let out = zwang(&["simulate", scene, "--json", "--draw", png.path()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing on stderr but the warning of the steps left unsolved, if
    // any.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty() || (stderr.lines().count() == 1 && stderr.starts_with("warning: ")),
        "{stderr}"
    );
    // The same run as without --draw (the stages' times aside).
    let drawn: Value = serde_json::from_slice(&out.stdout).unwrap();
    let plain = json_of(scene);
    for key in [
        "status",
        "time",
        "steps",
        "final",
        "energy",
        "max_penetration",
    ] {
        assert_eq!(drawn[key], plain[key], "--draw changes {key}");
    }
    let bytes = std::fs::read(&png.0).unwrap();
    assert!(bytes.len() > 1000);
    assert_eq!(png_size(&bytes), (640, 480));

    let out = zwang(&[
        "simulate",
        scene,
        "--draw",
        png.path(),
        "--draw-at",
        "0,1,2",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(png_size(&std::fs::read(&png.0).unwrap()), (1280, 960));

    let gif = Temp::new("space-bin.gif", "");
    let out = zwang(&["simulate", scene, "--draw", gif.path()]);
    assert_eq!(out.status.code(), Some(0));
    let bytes = std::fs::read(&gif.0).unwrap();
    assert!(bytes.starts_with(b"GIF89a"));
    assert_eq!(
        (
            u16::from_le_bytes([bytes[6], bytes[7]]),
            u16::from_le_bytes([bytes[8], bytes[9]])
        ),
        (480, 360)
    );
}

/// What `--draw` cannot do in space is refused before the run, on one
/// line, exit 2, nothing on stdout: an SVG, an instant outside the run, a
/// file that cannot be written; `--plot` is planar.
#[test]
fn draw_refuses_in_one_line() {
    let path = example("cube_on_floor.toml");
    let scene = path.to_str().unwrap();
    let dir = std::env::temp_dir();
    let png = dir.join(format!("zwang-space-{}-x.png", std::process::id()));
    let png = png.to_str().unwrap();
    let svg = dir.join(format!("zwang-space-{}-x.svg", std::process::id()));
    let nowhere = dir.join(format!("zwang-space-{}-none/x.png", std::process::id()));
    for (args, expected) in [
        (
            vec!["--draw", svg.to_str().unwrap()],
            "--draw: an SVG animation is planar for now; use .png or .gif".to_string(),
        ),
        (
            vec!["--draw", png, "--draw-at", "0,5"],
            "--draw-at: 5 s is not in the run, from 0 to 1 s".into(),
        ),
        (
            vec!["--draw", "x.bmp"],
            "--draw: x.bmp: the file must end in .png, .gif or .svg".into(),
        ),
        (
            vec!["--plot", png],
            "--plot: 3D plots are not built yet".into(),
        ),
    ] {
        let mut all = vec!["simulate", scene];
        all.extend(args);
        let out = zwang(&all);
        assert_eq!(out.status.code(), Some(2), "{expected}");
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("{expected}\n")
        );
    }
    assert!(!svg.exists() && !std::path::Path::new(png).exists());
    let out = zwang(&["simulate", scene, "--draw", nowhere.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("draw: cannot write "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
