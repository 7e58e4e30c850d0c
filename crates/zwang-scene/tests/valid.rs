//! Valid scenes: every field of the result, defaults included.

use zwang_scene::{
    parse_scene, Body, BodyKind, BodyRef, Contact, Force, Frame, Joint, JointKind, Method, Scene,
    Sinusoid, SolverSettings, Surface,
};

mod common;
use common::{FRAMED, FULL};

/// Within a few rounding errors (a norm computed with `hypot` or with
/// `sqrt` may differ in the last place).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 4.0 * f64::EPSILON * b.abs()
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
            Body {
                name: "ball".into(),
                kind: BodyKind::Particle,
                mass: 0.5,
                inertia: 0.0,
                position: [2.0, 3.0],
                angle: 0.0,
                velocity: [0.0, 0.0],
                angular_velocity: 0.0,
                inertia_tensor: None,
                shape: None,
                friction: 0.5,
                restitution: 0.0,
            },
            Body {
                name: "block".into(),
                kind: BodyKind::Rigid,
                mass: 2.0,
                inertia: 0.1,
                position: [-1.0, 0.5],
                angle: 0.0,
                velocity: [0.0, 0.0],
                angular_velocity: 0.0,
                inertia_tensor: None,
                shape: None,
                friction: 0.5,
                restitution: 0.0,
            },
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
            bodies: vec![Body {
                name: "p".into(),
                kind: BodyKind::Particle,
                mass: 2.0,
                inertia: 0.0,
                position: [0.0, 0.0],
                angle: 0.0,
                velocity: [0.0, 0.0],
                angular_velocity: 0.0,
                inertia_tensor: None,
                shape: None,
                friction: 0.5,
                restitution: 0.0,
            }],
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
    assert_eq!(Method::Dopri5.name(), "dopri5");
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
