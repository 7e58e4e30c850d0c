//! Valid scenes: every field of the result, defaults included.

use zwang_scene::{
    parse_scene, Body, BodyKind, BodyRef, Contact, FixedBody, Force, Frame, Friction, Joint,
    JointKind, Method, Scene, Shape, Sinusoid, SolverSettings, Stepping, Surface,
};

use crate::common;
use common::{FRAMED, FULL, SHAPES};

/// Within a few rounding errors (a norm computed with `hypot` or with
/// `sqrt` may differ in the last place).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 4.0 * f64::EPSILON * b.abs()
}

/// A body as the format's defaults leave it: at rest, unturned, no shape,
/// friction 0.5, restitution 0.
fn at_rest(name: &str, kind: BodyKind, mass: f64, inertia: f64, position: [f64; 2]) -> Body {
    Body {
        name: name.into(),
        kind,
        mass,
        inertia,
        position,
        angle: 0.0,
        velocity: [0.0, 0.0],
        angular_velocity: 0.0,
        inertia_tensor: None,
        shape: None,
        friction: 0.5,
        restitution: 0.0,
    }
}

#[test]
fn full_scene_every_field() {
    let mut scene = parse_scene(FULL).unwrap();
    let (s, c) = 0.5f64.sin_cos();

    assert_eq!(scene.name.as_deref(), Some("everything"));
    assert_eq!(scene.dimension, 2);
    assert_eq!(scene.gravity, [0.0, -9.81]);
    assert_eq!(scene.duration, 2.0);
    assert_eq!(scene.output_every, 0.002);

    assert_eq!(
        scene.bodies,
        vec![
            Body {
                name: "rod".into(),
                kind: BodyKind::Rigid,
                mass: 1.0,
                inertia: 0.3333,
                position: [0.0, 1.0],
                angle: 0.5,
                velocity: [0.1, -0.2],
                angular_velocity: 0.3,
                inertia_tensor: None,
                shape: None,
                friction: 0.5,
                restitution: 0.0,
            },
            at_rest("ball", BodyKind::Particle, 0.5, 0.0, [2.0, 3.0]),
            at_rest("block", BodyKind::Rigid, 2.0, 0.1, [-1.0, 0.5]),
        ]
    );

    // The rod's point (1, 0) at angle 0.5 is (cos 0.5, 1 + sin 0.5) in the
    // world; the ball is at (2, 3).
    let rod_to_ball = ((2.0 - c).powi(2) + (3.0 - (1.0 + s)).powi(2)).sqrt();
    let (rod, ball, block) = (BodyRef::Body(0), BodyRef::Body(1), BodyRef::Body(2));
    match &mut scene.joints[1].kind {
        JointKind::Distance { length } => {
            assert!(close(*length, rod_to_ball), "{length} != {rod_to_ball}");
            *length = rod_to_ball;
        }
        other => panic!("joint[1] is {other:?}"),
    }
    assert_eq!(
        scene.joints,
        vec![
            Joint {
                kind: JointKind::Pin,
                bodies: [BodyRef::Ground, rod],
                anchors: [[0.0, 2.0], [0.0, 1.0]],
            },
            Joint {
                kind: JointKind::Distance {
                    length: rod_to_ball
                },
                bodies: [rod, ball],
                anchors: [[1.0, 0.0], [0.0, 0.0]],
            },
            Joint {
                kind: JointKind::Distance { length: 1.5 },
                bodies: [rod, block],
                anchors: [[0.0, -1.0], [0.0, 0.0]],
            },
            Joint {
                kind: JointKind::Slider { axis: [0.6, 0.8] },
                bodies: [BodyRef::Ground, block],
                anchors: [[-1.0, 0.0], [0.0, -0.5]],
            },
            Joint {
                kind: JointKind::Slot { axis: [0.0, 1.0] },
                bodies: [block, ball],
                anchors: [[0.0, 0.0], [0.0, 0.0]],
            },
            Joint {
                kind: JointKind::Weld,
                bodies: [block, rod],
                anchors: [[0.5, 0.0], [-0.5, 0.0]],
            },
        ]
    );

    let h = 0.5f64.sqrt();
    match &mut scene.contacts[2].surface {
        Surface::Line { normal, .. } => {
            assert!(close(normal[0], h) && close(normal[1], h), "{normal:?}");
            *normal = [h, h];
        }
        other => panic!("contact[2] has {other:?}"),
    }
    assert_eq!(
        scene.contacts,
        vec![
            Contact {
                name: "floor".into(),
                body: 0,
                point: [0.0, -1.0],
                surface: Surface::Line {
                    point: [0.0, 0.0],
                    normal: [0.0, 1.0],
                },
                friction: 0.3,
                viscous: 0.1,
                restitution: 0.5,
            },
            Contact {
                name: "contact1".into(),
                body: 1,
                point: [0.0, 0.0],
                surface: Surface::Circle {
                    center: [5.0, 5.0],
                    radius: 1.0,
                },
                friction: 0.0,
                viscous: 0.0,
                restitution: 0.0,
            },
            Contact {
                name: "contact2".into(),
                body: 2,
                point: [0.5, -0.5],
                surface: Surface::Line {
                    point: [0.0, -3.0],
                    normal: [h, h],
                },
                friction: 0.0,
                viscous: 0.0,
                restitution: 0.0,
            },
        ]
    );

    // The block's point (0, 0.5) at angle 0 is (-1, 1); the ball is at
    // (2, 3): the default rest length is sqrt(3² + 2²).
    match &mut scene.forces[1] {
        Force::Spring { rest_length, .. } => {
            assert!(close(*rest_length, 13f64.sqrt()), "{rest_length}");
            *rest_length = 13f64.sqrt();
        }
        other => panic!("force[1] is {other:?}"),
    }
    assert_eq!(
        scene.forces,
        vec![
            Force::Spring {
                bodies: [BodyRef::Ground, rod],
                anchors: [[0.0, 0.0], [0.0, 1.0]],
                stiffness: 10.0,
                rest_length: 0.5,
            },
            Force::Spring {
                bodies: [block, ball],
                anchors: [[0.0, 0.5], [0.0, 0.0]],
                stiffness: 0.0,
                rest_length: 13f64.sqrt(),
            },
            Force::Damper {
                bodies: [rod, block],
                anchors: [[0.0, 0.0], [0.0, 0.0]],
                damping: 0.2,
            },
            Force::Constant {
                body: 1,
                force: [1.0, 2.0],
                torque: 0.0,
            },
            Force::Constant {
                body: 0,
                force: [0.0, 0.0],
                torque: 0.7,
            },
        ]
    );

    assert_eq!(
        scene.solver,
        SolverSettings {
            method: Method::Dopri5,
            tolerance: 1e-6,
            absolute_tolerance: 1e-6 * 1e-3,
            max_steps: 1_000_000,
            ..SolverSettings::default()
        }
    );
}

#[test]
fn helpers_name_and_place_bodies() {
    let scene = parse_scene(FULL).unwrap();
    assert_eq!(scene.body_index("ground"), Some(BodyRef::Ground));
    assert_eq!(scene.body_index("block"), Some(BodyRef::Body(2)));
    assert_eq!(scene.body_index("rodd"), None);
    assert_eq!(scene.body_name(BodyRef::Ground), "ground");
    assert_eq!(scene.body_name(BodyRef::Body(1)), "ball");
    assert_eq!(scene.body(BodyRef::Ground), None);
    assert_eq!(scene.body(BodyRef::Body(9)), None);
    assert_eq!(scene.body(BodyRef::Body(0)).map(|b| b.mass), Some(1.0));

    assert_eq!(scene.world_point(BodyRef::Ground, [3.0, -4.0]), [3.0, -4.0]);
    // The rod: centre (0, 1), angle 0.5.
    let (s, c) = 0.5f64.sin_cos();
    let p = scene.world_point(BodyRef::Body(0), [0.0, -1.0]);
    assert!((p[0] - s).abs() < 1e-15 && (p[1] - (1.0 - c)).abs() < 1e-15);
    assert_eq!(scene.world_point(BodyRef::Body(1), [0.0, 0.0]), [2.0, 3.0]);
}

#[test]
fn minimal_scene_takes_the_defaults() {
    let scene = parse_scene(
        "[scene]\ndimension = 2\nduration = 0.5\n\n[[body]]\nname = \"p\"\nkind = \"particle\"\nmass = 2\nposition = [0, 0]\n",
    )
    .unwrap();
    assert_eq!(
        scene,
        Scene {
            name: None,
            dimension: 2,
            gravity: [0.0, -9.81],
            duration: 0.5,
            output_every: 0.5 / 1000.0,
            frame: None,
            bodies: vec![at_rest("p", BodyKind::Particle, 2.0, 0.0, [0.0, 0.0])],
            joints: vec![],
            contacts: vec![],
            forces: vec![],
            fixed: vec![],
            solver: SolverSettings {
                method: Method::Dop853,
                tolerance: 1e-9,
                absolute_tolerance: 1e-12,
                max_steps: 1_000_000,
                ..SolverSettings::default()
            },
        }
    );
    assert_eq!(scene.solver, SolverSettings::default());
}

#[test]
fn explicit_scene_settings_and_solver() {
    let scene = parse_scene(
        r#"
        [scene]
        dimension = 2
        gravity = [1, -3.5]
        duration = 3.0
        output_every = 0.25

        [[body]]
        name = "b"
        kind = "rigid"
        mass = 1.0
        inertia = 1.0
        position = [0.0, 0.0]

        [solver]
        method = "dop853"
        tolerance = 1e-8
        absolute_tolerance = 1e-14
        max_steps = 5000
        "#,
    )
    .unwrap();
    assert_eq!(scene.gravity, [1.0, -3.5]);
    assert_eq!(scene.output_every, 0.25);
    assert_eq!(
        scene.solver,
        SolverSettings {
            method: Method::Dop853,
            tolerance: 1e-8,
            absolute_tolerance: 1e-14,
            max_steps: 5000,
            ..SolverSettings::default()
        }
    );
}

#[test]
fn contact_names_default_to_their_index() {
    let floor = r#"surface = { kind = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }"#;
    let text = format!(
        "[scene]\ndimension = 2\nduration = 1\n[[body]]\nname = \"p\"\nkind = \"particle\"\nmass = 1\nposition = [0, 1]\n\
         [[contact]]\nbody = \"p\"\npoint = [0, 0]\n{floor}\n\
         [[contact]]\nname = \"named\"\nbody = \"p\"\npoint = [0, 0]\n{floor}\n\
         [[contact]]\nbody = \"p\"\npoint = [0, 0]\n{floor}\n"
    );
    let scene = parse_scene(&text).unwrap();
    let names: Vec<&str> = scene.contacts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["contact0", "named", "contact2"]);
}

#[test]
fn frame_tensor_and_knife_edge() {
    let scene = parse_scene(FRAMED).unwrap();
    let pi_2 = std::f64::consts::FRAC_PI_2;
    assert_eq!(
        scene.frame,
        Some(Frame::Sinusoid {
            acceleration: Sinusoid {
                offset: [0.0, 0.5, 0.0],
                amplitude: [-2.0, -2.0, 0.0],
                frequency: [0.25; 3],
                phase: [pi_2, 0.0, 0.0],
            },
            angular_velocity: Sinusoid {
                offset: [0.0, 1.5, 0.0],
                amplitude: [0.0, 0.0, 0.3],
                frequency: [0.0, 0.0, 2.0],
                phase: [0.0; 3],
            },
        })
    );
    assert_eq!(scene.bodies[0].inertia_tensor, Some([0.0, 0.25, 0.0]));
    assert_eq!(scene.bodies[1].inertia_tensor, None);
    assert_eq!(
        scene.joints[1],
        Joint {
            kind: JointKind::KnifeEdge { axis: [0.6, 0.8] },
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[0.0, 0.0], [-0.5, 0.0]],
        }
    );
    let model = scene.model().unwrap();
    assert_eq!(model.frame(), scene.frame.as_ref());

    // The planar shorthands of a constant frame: [ax, ay] and a scalar
    // omega about z (no tensor needed then).
    let constant = parse_scene(
        "[scene]\ndimension = 2\nduration = 1\n[frame]\nkind = \"constant\"\n\
         acceleration = [1, 2]\nangular_velocity = 3\n\
         [[body]]\nname = \"b\"\nkind = \"rigid\"\nmass = 1\ninertia = 1\nposition = [0, 0]\n",
    )
    .unwrap();
    assert_eq!(
        constant.frame,
        Some(Frame::Constant {
            acceleration: [1.0, 2.0, 0.0],
            angular_velocity: [0.0, 0.0, 3.0],
        })
    );
}

/// The bounds of masses, inertias and tolerances are accepted themselves,
/// and the default absolute tolerance of the smallest tolerance too.
#[test]
fn bounds_are_inclusive() {
    for (mass, inertia, tolerance) in [(1e-9, 1e-15, 1e-14), (1e9, 1e15, 1e-2)] {
        let text = format!(
            "[scene]\ndimension = 2\nduration = 1\n\n[[body]]\nname = \"rod\"\n\
             kind = \"rigid\"\nmass = {mass:e}\ninertia = {inertia:e}\nposition = [0, 0]\n\n\
             [solver]\ntolerance = {tolerance:e}\n"
        );
        let scene = parse_scene(&text).unwrap();
        assert_eq!(scene.bodies[0].mass, mass);
        assert_eq!(scene.bodies[0].inertia, inertia);
        assert_eq!(scene.solver.tolerance, tolerance);
        assert_eq!(scene.solver.absolute_tolerance, tolerance * 1e-3);
    }
}

/// Every shape kind, fixed bodies, surfaces, the inertias computed from
/// shapes, a joint and a spring to fixed bodies, the time stepper's keys.
#[test]
fn shapes_fixed_bodies_and_time_stepping() {
    let scene = parse_scene(SHAPES).unwrap();
    let pill_shape = Shape::Capsule {
        half_length: 0.5,
        radius: 0.1,
    };
    // A triangle's inertia about its centroid is m (a² + b² + c²) / 36
    // for sides a, b, c: here 3, 3 and sqrt(18).
    let tri = &scene.bodies[2];
    assert!(close(tri.inertia, 36.0 / 36.0), "{}", tri.inertia);
    let box_shape = Shape::Box {
        half_extents: [0.5, 0.25],
    };
    // A box of half extents a, b: m (a² + b²) / 3.
    let box_inertia = 3.0 * (0.5f64.powi(2) + 0.25f64.powi(2)) / 3.0;
    assert_eq!(
        scene.bodies,
        vec![
            Body {
                name: "box".into(),
                kind: BodyKind::Rigid,
                mass: 3.0,
                inertia: box_inertia,
                position: [0.0, 0.5],
                angle: 0.0,
                velocity: [0.0, 0.0],
                angular_velocity: 0.0,
                inertia_tensor: None,
                shape: Some(box_shape),
                friction: 0.6,
                restitution: 0.2,
            },
            Body {
                // A given inertia wins over the shape's (0.09).
                shape: Some(Shape::Circle { radius: 0.3 }),
                position: [2.0, 1.0],
                ..Body::rigid("disk", 2.0, 0.7)
            },
            Body {
                shape: Some(Shape::Polygon {
                    vertices: vec![[-1.0, -1.0], [2.0, -1.0], [-1.0, 2.0]],
                }),
                position: [-2.0, 1.0],
                ..Body::rigid("tri", 1.0, tri.inertia)
            },
            Body {
                inertia: pill_shape.mass_properties(1.0).unwrap().inertia,
                shape: Some(pill_shape),
                position: [0.0, 3.0],
                angle: 0.3,
                ..Body::rigid("pill", 1.0, 1.0)
            },
            Body {
                shape: Some(Shape::Circle { radius: 0.05 }),
                position: [1.0, 2.0],
                restitution: 1.0,
                ..Body::particle("pebble", 0.1)
            },
        ]
    );
    // Fixed bodies in file order, the floor's normal normalized, the
    // default friction 0.5 and position [0, 0].
    assert_eq!(
        scene.fixed,
        vec![
            FixedBody {
                friction: 0.8,
                ..FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] })
            },
            FixedBody {
                restitution: 0.5,
                ..FixedBody::new(
                    "wall",
                    Shape::Box {
                        half_extents: [0.1, 2.0]
                    }
                )
                .at([3.0, 1.0])
                .turned(0.5)
            },
        ]
    );
    // The pin to the wall is a pin to ground at the wall's point (0, 2),
    // turned by 0.5 and moved to (3, 1).
    let (s, c) = 0.5f64.sin_cos();
    let joint = &scene.joints[0];
    assert_eq!(joint.kind, JointKind::Pin);
    assert_eq!(joint.bodies, [BodyRef::Ground, BodyRef::Body(3)]);
    let [x, y] = joint.anchors[0];
    assert!(
        close(x, 3.0 - 2.0 * s) && close(y, 1.0 + 2.0 * c),
        "{x}, {y}"
    );
    assert_eq!(joint.anchors[1], [0.5, 0.0]);
    // The spring to the floor (at the origin, not turned) ends at the
    // world point (1, 0).
    assert_eq!(
        scene.forces,
        vec![Force::Spring {
            bodies: [BodyRef::Body(1), BodyRef::Ground],
            anchors: [[0.0, 0.0], [1.0, 0.0]],
            stiffness: 10.0,
            rest_length: 1.0,
        }]
    );
    assert_eq!(
        scene.solver,
        SolverSettings {
            stepping: Stepping::TimeStep,
            time_step: 0.001,
            friction: Friction::Convex,
            ..SolverSettings::default()
        }
    );
    // The fixed bodies keep the moving bodies' indices; names resolve.
    assert_eq!(scene.body_index("pill"), Some(BodyRef::Body(3)));
    assert_eq!(scene.body_index("wall"), None);
    let model = scene.model().unwrap();
    assert!(model.has_shapes());
    assert_eq!(model.fixed_list().len(), 2);
}

/// A scene of the given bodies (TOML) and solver table, 1 s long.
fn with_bodies(bodies: &str, solver: &str) -> Scene {
    let text = format!("[scene]\ndimension = 2\nduration = 1\n{bodies}\n{solver}");
    parse_scene(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const BALL: &str = "[[body]]\nname = \"ball\"\nkind = \"particle\"\nmass = 1\nposition = [0, 1]\n";

/// Time stepping by default when any body, moving or fixed, has a shape;
/// else event-driven. Either may be asked for where it applies.
#[test]
fn stepping_defaults_to_shapes() {
    let plain = with_bodies(BALL, "");
    assert_eq!(plain.solver, SolverSettings::default());
    assert_eq!(plain.solver.stepping, Stepping::Event);

    let floor = "[[body]]\nname = \"floor\"\nkind = \"fixed\"\n\
                 shape = { kind = \"halfplane\", normal = [0, 1] }\n";
    let stepped = with_bodies(&format!("{BALL}{floor}"), "");
    assert_eq!(stepped.solver.stepping, Stepping::TimeStep);
    assert_eq!(stepped.solver.time_step, 0.002);
    assert_eq!(stepped.solver.friction, Friction::Exact);
    assert_eq!(stepped.solver.max_steps, 1_000_000);

    let round = BALL.replace(
        "position",
        "shape = { kind = \"circle\", radius = 0.1 }\nposition",
    );
    let stepped = with_bodies(&round, "[solver]\nmax_steps = 1000");
    assert_eq!(stepped.solver.stepping, Stepping::TimeStep);
    assert_eq!(stepped.bodies[0].shape, Some(Shape::Circle { radius: 0.1 }));

    // A fixed body without a shape (a frame to join to) changes nothing.
    let frame = "[[body]]\nname = \"post\"\nkind = \"fixed\"\n";
    assert_eq!(
        with_bodies(&format!("{BALL}{frame}"), "").solver.stepping,
        Stepping::Event
    );

    let asked = with_bodies(BALL, "[solver]\nstepping = \"timestep\"\ntime_step = 0.5");
    assert_eq!(asked.solver.stepping, Stepping::TimeStep);
    assert_eq!(asked.solver.time_step, 0.5);
    let asked = with_bodies(BALL, "[solver]\nstepping = \"event\"\nmethod = \"dopri5\"");
    assert_eq!(asked.solver.stepping, Stepping::Event);
    assert_eq!(asked.solver.method, Method::Dopri5);
    // The time step may be the whole run, and make exactly max_steps.
    let whole = with_bodies(&round, "[solver]\ntime_step = 1\nmax_steps = 1");
    assert_eq!(whole.solver.time_step, 1.0);
    with_bodies(&round, "[solver]\ntime_step = 0.25\nmax_steps = 4");
}

/// A slider from a turned fixed body: its axis, given in that body's
/// frame, is turned into the world (the joint is to ground); a damper's
/// anchor on it likewise.
#[test]
fn slider_on_a_turned_fixed_body() {
    let scene = parse_scene(
        r#"
        [scene]
        dimension = 2
        duration = 1

        [[body]]
        name = "rail"
        kind = "fixed"
        position = [1, 2]
        angle = 1.0

        [[body]]
        name = "cart"
        kind = "rigid"
        mass = 1
        inertia = 0.1
        position = [1, 2]

        [[joint]]
        kind = "slider"
        bodies = ["rail", "cart"]
        anchors = [[0.5, 0], [0, 0]]
        axis = [2, 0]

        [[force]]
        kind = "damper"
        bodies = ["cart", "rail"]
        anchors = [[0, 0], [0, -1]]
        damping = 1
        "#,
    )
    .unwrap();
    assert!(scene.fixed[0].shape.is_none());
    assert_eq!(scene.solver.stepping, Stepping::Event);
    let (s, c) = 1.0f64.sin_cos();
    let joint = &scene.joints[0];
    assert_eq!(joint.bodies, [BodyRef::Ground, BodyRef::Body(0)]);
    let [x, y] = joint.anchors[0];
    assert!(
        close(x, 1.0 + 0.5 * c) && close(y, 2.0 + 0.5 * s),
        "{x}, {y}"
    );
    match joint.kind {
        JointKind::Slider { axis: [ax, ay] } => {
            assert!(close(ax, c) && close(ay, s), "{ax}, {ay}")
        }
        ref other => panic!("{other:?}"),
    }
    match scene.forces[0] {
        Force::Damper {
            bodies, anchors, ..
        } => {
            assert_eq!(bodies, [BodyRef::Body(0), BodyRef::Ground]);
            let [x, y] = anchors[1];
            assert!(close(x, 1.0 + s) && close(y, 2.0 - c), "{x}, {y}");
        }
        ref other => panic!("{other:?}"),
    }
    scene.model().unwrap();
}

/// With a given inertia, a shape's centroid may be off the origin (the
/// body is not uniform); a particle's shape likewise.
#[test]
fn off_centre_shapes_with_given_inertia() {
    let off = "shape = { kind = \"polygon\", vertices = [[1, 1], [3, 1], [3, 2], [1, 2]] }";
    let scene = with_bodies(
        &format!(
            "[[body]]\nname = \"a\"\nkind = \"rigid\"\nmass = 1\ninertia = 2\n\
             position = [0, 0]\n{off}\n\
             [[body]]\nname = \"b\"\nkind = \"particle\"\nmass = 1\n\
             position = [0, 5]\n{off}\n"
        ),
        "",
    );
    assert_eq!(scene.bodies[0].inertia, 2.0);
    assert!(scene.bodies[1].shape.is_some());
    assert_eq!(scene.solver.stepping, Stepping::TimeStep);
}

/// The whole scenes of the user's documentation are valid (its fragments
/// are left out), planar and spatial; the one of shapes has the inertia
/// its comment states.
#[test]
fn documented_examples_parse() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let examples: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .filter(|example| example.contains("[scene]"))
        .collect();
    assert!(examples.len() >= 2, "{} examples", examples.len());
    for example in &examples {
        // The spatial section's example too.
        if let Err(e) = zwang_scene::parse_any_scene(example) {
            panic!("{e}\n{example}");
        }
    }
    let shapes = parse_scene(examples[1]).unwrap();
    assert_eq!(shapes.solver.stepping, Stepping::TimeStep);
    assert!(close(shapes.bodies[0].inertia, 1.0 / 6.0));
    assert_eq!(shapes.joints[0].bodies[0], BodyRef::Ground);
}
