//! Spatial scenes (`dimension = 3`): the examples parse and build their
//! model, the defaults are the contract's, and each malformed scene is
//! refused with one line naming its key.

use std::fs;
use std::path::PathBuf;
use zwang_scene::{
    parse_any_scene, parse_scene, parse_spatial_scene, AnyScene, SpatialJointKind, SpatialKind,
    SpatialShape, Stepping,
};

fn examples() -> Vec<PathBuf> {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/space");
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .expect("examples/scenes/space")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_spatial_example_parses_and_builds_its_model() {
    let files = examples();
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        let scene =
            parse_spatial_scene(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let model = scene.model().unwrap();
        assert!(model.movers() >= 1, "{}", file.display());
        // Time-stepped, but those asking for the event-driven method (no
        // shapes): the top on a ball joint, the pendulum on a hinge, the
        // bob on a spring.
        let event = [
            "top_steady_precession.toml",
            "hinged_pendulum_event.toml",
            "spring_damper_bob.toml",
        ]
        .iter()
        .any(|name| file.ends_with(name));
        let expected = if event {
            Stepping::Event
        } else {
            Stepping::TimeStep
        };
        assert_eq!(scene.solver.stepping, expected, "{}", file.display());
        assert!(matches!(parse_any_scene(&text), Ok(AnyScene::Spatial(_))));
        // The planar parser keeps its word on them.
        assert_eq!(
            parse_scene(&text).unwrap_err().to_string(),
            "scene.dimension: only 2 is supported"
        );
    }
}

/// Under `stepping = "event"` a scene without shapes takes every joint
/// kind (the rows held at acceleration level); shapes are still refused.
#[test]
fn every_joint_kind_runs_event_driven_without_shapes() {
    for (kind, extra) in [
        ("ball", ""),
        ("hinge", "axis = [0, 1, 0]\n"),
        ("slider", "axis = [1, 0, -1]\n"),
        ("weld", ""),
        ("distance", "length = 0.5\n"),
    ] {
        let text = format!(
            "[scene]\ndimension = 3\nduration = 1\n\n\
             [[body]]\nname = \"bob\"\nkind = \"rigid\"\nmass = 1\n\
             inertia = [0.01, 0.02, 0.03]\nposition = [0, 0, -0.5]\n\n\
             [[joint]]\nkind = \"{kind}\"\nbodies = [\"ground\", \"bob\"]\n\
             anchors = [[0, 0, 0], [0, 0, 0.5]]\n{extra}\n\
             [solver]\nstepping = \"event\"\n"
        );
        let scene = parse_spatial_scene(&text).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(scene.solver.stepping, Stepping::Event, "{kind}");
        assert_eq!(scene.joints.len(), 1);
        let shaped = text.replace(
            "position = [0, 0, -0.5]",
            "position = [0, 0, -0.5]\nshape = { kind = \"sphere\", radius = 0.1 }",
        );
        assert_eq!(
            parse_spatial_scene(&shaped).unwrap_err().to_string(),
            "solver.stepping: shapes collide only under stepping = \"timestep\" (a body has a shape)",
            "{kind}"
        );
    }
}

const CUBE: &str = r#"
[scene]
dimension = 3
duration = 1.0

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfspace", normal = [0.0, 0.0, 2.0] }

[[body]]
name = "cube"
kind = "rigid"
mass = 2.0
position = [0.0, 0.0, 0.5]
shape = { kind = "box", half_extents = [0.5, 0.5, 0.5] }
"#;

#[test]
fn defaults_are_the_contracts() {
    let scene = parse_spatial_scene(CUBE).unwrap();
    assert_eq!(scene.gravity, [0.0, 0.0, -9.81]);
    assert_eq!(scene.output_every, 1e-3);
    assert_eq!(scene.solver.stepping, Stepping::TimeStep);
    assert_eq!(scene.solver.time_step, 0.002);
    let [floor, cube] = &scene.bodies[..] else {
        panic!()
    };
    assert_eq!(floor.kind, SpatialKind::Fixed);
    assert_eq!(floor.position, [0.0; 3]);
    assert_eq!(
        cube.kind,
        SpatialKind::Rigid {
            mass: 2.0,
            inertia: None
        }
    );
    for b in [floor, cube] {
        assert_eq!(b.orientation, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(b.friction, 0.5);
        assert_eq!(b.restitution, 0.0);
        assert_eq!(b.velocity, [0.0; 3]);
        assert_eq!(b.angular_velocity, [0.0; 3]);
    }
    assert_eq!(scene.body_index("cube"), Some(1));
}

#[test]
fn every_key_is_read() {
    let text = r#"
    [scene]
    name = "all"
    dimension = 3
    gravity = [0, 1, -2]
    duration = 2
    output_every = 0.5

    [[body]]
    name = "a"
    kind = "rigid"
    mass = 1
    inertia = [1, 2, 3, 0.1, 0.2, 0.3]
    position = [1, 2, 3]
    orientation = [0, 1, 0, 0]
    velocity = [4, 5, 6]
    angular_velocity = [7, 8, 9]
    shape = { kind = "convex", vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] }
    friction = 0.25
    restitution = 0.5

    [[body]]
    name = "b"
    kind = "rigid"
    mass = 3
    inertia = [0.5, 0.6, 0.7]
    position = [0, 0, 0]
    shape = { kind = "capsule", half_length = 0.5, radius = 0.1 }

    [[body]]
    name = "c"
    kind = "rigid"
    mass = 1
    position = [0, 0, 5]
    shape = { kind = "cylinder", half_length = 0.5, radius = 0.1 }

    [[force]]
    kind = "constant"
    body = "b"
    force = [1, 2, 3]
    torque = [4, 5, 6]

    [[joint]]
    kind = "hinge"
    bodies = ["ground", "a"]
    anchors = [[1, 2, 4], [0, 0, 1]]
    axis = [0, 2, 0]

    [[joint]]
    kind = "slider"
    bodies = ["a", "b"]
    anchors = [[0, 0, 0], [0, 0, 0]]
    axis = [1, 0, 0]

    [[joint]]
    kind = "distance"
    bodies = ["b", "c"]
    anchors = [[0, 0, 0], [0, 0, 0]]
    length = 4.5

    [[joint]]
    kind = "ball"
    bodies = ["c", "ground"]
    anchors = [[0, 0, 1], [0, 0, 6]]

    [[joint]]
    kind = "weld"
    bodies = ["a", "c"]
    anchors = [[0, 0, 0], [0, 0, 0]]

    [solver]
    stepping = "timestep"
    time_step = 0.01
    friction = "convex"
    max_steps = 1000
    "#;
    let scene = parse_spatial_scene(text).unwrap();
    assert_eq!(scene.name.as_deref(), Some("all"));
    assert_eq!(scene.gravity, [0.0, 1.0, -2.0]);
    let a = &scene.bodies[0];
    assert_eq!(
        a.kind,
        SpatialKind::Rigid {
            mass: 1.0,
            inertia: Some([[1.0, 0.1, 0.2], [0.1, 2.0, 0.3], [0.2, 0.3, 3.0]])
        }
    );
    assert_eq!(a.orientation, [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(a.angular_velocity, [7.0, 8.0, 9.0]);
    assert!(matches!(a.shape, Some(SpatialShape::Convex { .. })));
    assert_eq!((a.friction, a.restitution), (0.25, 0.5));
    assert_eq!(
        scene.bodies[1].kind,
        SpatialKind::Rigid {
            mass: 3.0,
            inertia: Some([[0.5, 0.0, 0.0], [0.0, 0.6, 0.0], [0.0, 0.0, 0.7]])
        }
    );
    assert_eq!(scene.forces[0].body, 1);
    assert_eq!(scene.forces[0].torque, [4.0, 5.0, 6.0]);
    let kinds: Vec<_> = scene.joints.iter().map(|j| j.kind).collect();
    assert_eq!(
        kinds,
        [
            SpatialJointKind::Hinge {
                axis: [0.0, 2.0, 0.0]
            },
            SpatialJointKind::Slider {
                axis: [1.0, 0.0, 0.0]
            },
            SpatialJointKind::Distance { length: Some(4.5) },
            SpatialJointKind::Ball,
            SpatialJointKind::Weld,
        ]
    );
    assert_eq!(scene.joints[0].bodies, [None, Some(0)]);
    assert_eq!(scene.joints[0].anchors, [[1.0, 2.0, 4.0], [0.0, 0.0, 1.0]]);
    assert_eq!(scene.joints[3].bodies, [Some(2), None]);
    assert_eq!(scene.solver.time_step, 0.01);
    assert_eq!(scene.solver.max_steps, 1000);
}

/// The contract's orientation is a unit quaternion: one off by more than
/// round-off is refused with its norm named, not normalised without a
/// word; one within `1e-9` of unit norm is taken (and the model
/// normalises it). MJCF's `quat` is normalised by design (MuJoCo's rule),
/// so the same quaternion there is taken.
#[test]
fn a_toml_orientation_must_be_a_unit_quaternion() {
    for (orientation, line) in [
        (
            "[1, 0, 0.5, 0]",
            "body[1].orientation: must be a unit quaternion (norm 1.118)",
        ),
        (
            "[0.5, 0.5, 0.5, 0.4]",
            "body[1].orientation: must be a unit quaternion (norm 0.954)",
        ),
        (
            "[2, 0, 0, 0]",
            "body[1].orientation: must be a unit quaternion (norm 2.000)",
        ),
        (
            "[1.0000001, 0, 0, 0]",
            "body[1].orientation: must be a unit quaternion (norm 1.0000001)",
        ),
    ] {
        let text = cube_with(
            "mass = 2.0",
            &format!("mass = 2.0\norientation = {orientation}"),
        );
        let e = parse_spatial_scene(&text).unwrap_err();
        assert_eq!(e.to_string(), line, "{orientation}");
    }
    // Within round-off of unit norm: taken as written, the model's unit
    // quaternion within 1e-9 of it.
    let (c, s) = (0.3f64.cos(), 0.3f64.sin());
    for q in [
        [c, 0.0, s, 0.0],
        [1.0 + 5e-10, 0.0, 0.0, 0.0],
        [c * (1.0 - 9e-10), s, 0.0, 0.0],
    ] {
        let text = cube_with(
            "mass = 2.0",
            &format!(
                "mass = 2.0\norientation = [{}, {}, {}, {}]",
                q[0], q[1], q[2], q[3]
            ),
        );
        let scene = parse_spatial_scene(&text).unwrap_or_else(|e| panic!("{q:?}: {e}"));
        assert_eq!(scene.bodies[1].orientation, q);
        scene.model().unwrap();
    }
}

/// `CUBE` with `old` replaced by `new` (which must be there).
fn cube_with(old: &str, new: &str) -> String {
    assert!(CUBE.contains(old), "{old}");
    CUBE.replacen(old, new, 1)
}

#[test]
fn malformed_spatial_scenes_name_their_key() {
    let half = "half_extents = [0.5, 0.5, 0.5]";
    let cases: Vec<(String, &str)> = vec![
        (
            cube_with(half, "half_extents = [0.5, 0.0, 0.5]"),
            "body[1].shape.half_extents: must be > 0",
        ),
        (
            cube_with(half, "half_extents = [0.5, 0.5]"),
            "body[1].shape.half_extents: expected 3 numbers, found 2",
        ),
        (
            cube_with(
                "kind = \"box\", half_extents = [0.5, 0.5, 0.5]",
                "kind = \"sphere\", radius = -1",
            ),
            "body[1].shape.radius: must be > 0",
        ),
        (
            cube_with(
                "kind = \"box\", half_extents = [0.5, 0.5, 0.5]",
                "kind = \"halfspace\", normal = [0, 0, 1]",
            ),
            "body[1].shape: a half-space must be on a fixed body",
        ),
        (
            cube_with("normal = [0.0, 0.0, 2.0]", "normal = [0.0, 0.0, 0.0]"),
            "body[0].shape.normal: must be a nonzero vector",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\norientation = [0, 0, 0, 0]"),
            "body[1].orientation: must be a nonzero quaternion",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\norientation = [1, 0, 0]"),
            "body[1].orientation: expected 4 numbers, found 3",
        ),
        (
            cube_with("mass = 2.0", "mass = -1"),
            "body[1].mass: must be > 0",
        ),
        (
            cube_with("mass = 2.0", "mass = 1e12"),
            "body[1].mass: must be in [1e-9, 1e9] kg",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\ncolour = \"red\""),
            "body[1].colour: unknown key (known here: name, kind, mass, inertia, position, \
             orientation, velocity, angular_velocity, shape, friction, restitution)",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\nangle = 0.5"),
            "body[1].angle: not in a spatial scene (use orientation = [w, x, y, z])",
        ),
        (
            cube_with("position = [0.0, 0.0, 0.5]", "position = [0.0, 0.5]"),
            "body[1].position: expected 3 numbers, found 2",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\nvelocity = [1, 2]"),
            "body[1].velocity: expected 3 numbers, found 2",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\nangular_velocity = 1.0"),
            "body[1].angular_velocity: expected an array of 3 numbers",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\ninertia = [1, 2]"),
            "body[1].inertia: expected 3 or 6 numbers, found 2",
        ),
        (
            cube_with("mass = 2.0", "mass = 2.0\ninertia = [1, 1, 1, 2, 0, 0]"),
            "body[1].inertia: must be positive definite",
        ),
        (
            cube_with("dimension = 3", "dimension = 3\ngravity = [0, -9.81]"),
            "scene.gravity: expected 3 numbers, found 2",
        ),
        (
            cube_with("kind = \"rigid\"", "kind = \"particle\""),
            "body[1].kind: unknown kind \"particle\" (expected rigid or fixed)",
        ),
        (
            cube_with("kind = \"fixed\"", "kind = \"fixed\"\nmass = 1"),
            "body[0].mass: a fixed body has no mass",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"hinge\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\naxis = [0, 0, 0]\n"),
            "joint[0].axis: must be nonzero",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"slider\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].axis: missing required key",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"ball\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\naxis = [1, 0, 0]\n"),
            "joint[0].axis: not allowed on a ball joint",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"screw\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].kind: unknown kind \"screw\" (expected ball, hinge, slider, weld or distance)",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"pin\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].kind: \"pin\" is a planar joint (expected ball, hinge, slider, weld or distance)",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"ball\"\nbodies = [\"floor\", \"ground\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].bodies: joins \"floor\" to \"ground\", both fixed (one must be a moving body)",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"weld\"\nbodies = [\"cube\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].bodies: joins \"cube\" to itself",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"ball\"\nbodies = [\"floor\", \"box\"]\nanchors = [[0, 0, 1], [0, 0, 0.5]]\n"),
            "joint[0].bodies[1]: unknown body \"box\"",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"ball\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, 1], [0, 0]]\n"),
            "joint[0].anchors[1]: expected 3 numbers, found 2",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"ball\"\nbodies = [\"floor\", \"cube\"]\nanchors = [[0, 0, nan], [0, 0, 0.5]]\n"),
            "joint[0].anchors[0][2]: must be finite",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"distance\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 0.5], [0, 0, 0]]\n"),
            "joint[0].length: must be > 0 (the default, the initial distance of the anchors, is 0)",
        ),
        (
            format!("{CUBE}\n[[joint]]\nkind = \"distance\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nlength = -1\n"),
            "joint[0].length: must be > 0",
        ),
        (
            format!("{CUBE}\n[solver]\nstepping = \"event\"\n"),
            "solver.stepping: shapes collide only under stepping = \"timestep\" (a body has a \
             shape)",
        ),
        (
            format!("{CUBE}\n[solver]\nequations = \"vakonomic\"\n"),
            "solver.equations: \"vakonomic\" only in planar scenes (dimension = 2)",
        ),
        (
            format!("{CUBE}\n[solver]\ntolerance = 1e-6\n"),
            "solver.tolerance: only with stepping = \"event\" (a spatial scene runs with \
             \"timestep\")",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"constant\"\nbody = \"floor\"\n"),
            "force[0].body: must name a moving body",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"constant\"\nbody = \"cube\"\ntorque = 1.0\n"),
            "force[0].torque: expected an array of 3 numbers",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\n"),
            "force[0].bodies: missing required key",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\n"),
            "force[0].stiffness: missing required key",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nstiffness = 10\ndamping = 1\n"),
            "force[0].damping: not allowed on a spring",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"damper\"\nbody = \"cube\"\n"),
            "force[0].body: not allowed on a damper",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\nbodies = [\"cube\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nstiffness = 1\n"),
            "force[0].bodies: joins \"cube\" to itself",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\nbodies = [\"ground\", \"floor\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nstiffness = 1\n"),
            "force[0].bodies: joins \"ground\" to \"floor\", both fixed (one must be a moving body)",
        ),
        // The model's keys are the file's: the second table is the
        // model's first constant force, the third its second spring.
        (
            format!("{CUBE}\n[[force]]\nkind = \"damper\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\ndamping = 1\n[[force]]\nkind = \"constant\"\nbody = \"floor\"\n"),
            "force[1].body: must name a moving body",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"damper\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\ndamping = 1\n[[force]]\nkind = \"constant\"\nbody = \"cube\"\n[[force]]\nkind = \"spring\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nstiffness = -3\n"),
            "force[2].stiffness: must be >= 0",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"spring\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\nstiffness = 3\nrest_length = -1\n"),
            "force[0].rest_length: must be >= 0",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"damper\"\nbodies = [\"ground\", \"cube\"]\nanchors = [[0, 0, 2], [0, 0, 0]]\ndamping = nan\n"),
            "force[0].damping: must be finite",
        ),
        (
            format!("{CUBE}\n[[force]]\nkind = \"rubber\"\n"),
            "force[0].kind: unknown kind \"rubber\" (expected spring, damper or constant)",
        ),
        (
            format!("{CUBE}\n[frame]\nkind = \"constant\"\n"),
            "frame: moving frames are planar for now",
        ),
        (
            cube_with("dimension = 3", "dimension = 4"),
            "scene.dimension: must be 2 or 3",
        ),
    ];
    let mut failures = Vec::new();
    for (text, expected) in &cases {
        let got = match parse_any_scene(text) {
            Ok(_) => "accepted".to_string(),
            Err(e) => e.to_string(),
        };
        assert!(!got.contains('\n'), "{got}");
        if got != *expected {
            failures.push(format!("expected `{expected}`\n     got `{got}`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
