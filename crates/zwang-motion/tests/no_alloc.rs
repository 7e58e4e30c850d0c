//! The stepper allocates per run and per event, never per step: a run ten
//! times longer allocates exactly as often (the instant is written in
//! place, the backends and the integrator reuse their workspaces, the
//! switching functions and projections reuse their buffers).
//!
//! Covered: joints only (a chain), and frictionless contacts that stay
//! closed (a box on the floor pulled to and fro by a spring: a switching
//! solve every step).
//! Frictional instants, the Coulomb contact problem keeping its working
//! memory: a box sliding on two rough corners pushed on by a spring (the
//! active set alone), the same box held by friction (both corners stick:
//! every solve enumerates the part's modes, whose rank-deficient systems
//! take the small LU's null space), a bead sliding round a rough drum (a
//! curved row), the sliding box with a pendulum on it (a joint's rows
//! held inside the frictional part: its held system kept), and the
//! sliding box beside a frictionless one (a part without friction, its QP
//! solver kept). Not covered: mode systems whose rank the small LU cannot
//! tell (they go to faer's SVD), and Lemke's method (parts too large to
//! enumerate whose active set fails): fallbacks, each with its own
//! allocations.
//!
//! The time stepper: a stack of boxes, a rolling disk and a sliding box on
//! a floor, the same contacts step after step (collision detection with
//! its kept manifolds, the Delassus operator written in place, the contact
//! solve warm-started, integration and the overlap check); in space, with
//! joints too (the problem in the joints' null space, the drift's
//! projection); over a kinematic tree (the dynamics in joint coordinates,
//! the geoms' contacts and a joint limit as rows, the solve in the tree's
//! sparsity, the actuators and the implicit damping). Spatial models under the event-driven method, every joint
//! kind (its rows, their rates and the drift kept in the model's
//! working memory). Not covered:
//! islands solved in parallel (rayon's injector allocates a block every 63
//! jobs sent to its pool; the solver goes parallel from 256 contacts on).
//!
//! The count is process-wide, so this file holds a single test, and each
//! count is the least of three runs: the test harness's main thread may
//! still be allocating (its bookkeeping after spawning the test's thread)
//! when a machine is loaded, which only ever adds.

// The motion tests' builders (a tree's geoms), shared with this binary.
#[path = "motion/common/mod.rs"]
mod common;

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_model::planar::{
    chain, Body, BodyRef, Contact, Force, Joint, JointKind, PlanarModel, Surface,
};
use zwang_model::planar::{FixedBody, Shape};
use zwang_motion::{simulate, NoObserver, Settings, Status, StepSettings, TimeStepper};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn allocations(model: &PlanarModel, settings: &Settings, duration: f64) -> (usize, usize) {
    (0..3)
        .map(|_| allocations_once(model, settings, duration))
        .min()
        .expect("three")
}

fn allocations_once(model: &PlanarModel, settings: &Settings, duration: f64) -> (usize, usize) {
    let region = Region::new(GLOBAL);
    let outcome = simulate(model, duration, settings, &mut NoObserver);
    let count = region.change().allocations;
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    (count, outcome.steps)
}

#[test]
fn steps_allocate_nothing() {
    let links = chain(5).unwrap();
    let floor = |body: usize, point: [f64; 2]| {
        Contact::new(
            format!("corner{body}{}", point[0]),
            body,
            point,
            Surface::FLOOR,
        )
    };
    let resting = PlanarModel::new(
        [0.0, -9.81],
        vec![Body::rigid("box", 2.0, 0.5).at([0.3, 0.25])],
        vec![],
        vec![floor(0, [-0.5, -0.25]), floor(0, [0.5, -0.25])],
        // Pulled to and fro along the floor by a spring.
        vec![Force::Spring {
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[-1.0, 0.25], [0.0, 0.0]],
            stiffness: 50.0,
            rest_length: 1.0,
        }],
    )
    .unwrap();
    let rough = |body: usize, point: [f64; 2], normal: [f64; 2]| {
        Contact::new(
            format!("rough{body}{}", point[0]),
            body,
            point,
            Surface::Line {
                point: [0.0, 0.0],
                normal,
            },
        )
        .with_surface(0.3, 0.0)
    };
    // A box on two rough corners, moving at `speed`, pulled by a spring
    // from `anchor`.
    let boxed = |speed: f64, anchor: [f64; 2], stiffness: f64| {
        PlanarModel::new(
            [0.0, -9.81],
            vec![Body::rigid("box", 2.0, 0.5)
                .at([0.0, 0.25])
                .moving([speed, 0.0])],
            vec![],
            vec![
                rough(0, [-0.5, -0.25], [0.0, 1.0]),
                rough(0, [0.5, -0.25], [0.0, 1.0]),
            ],
            vec![Force::Spring {
                bodies: [BodyRef::Ground, BodyRef::Body(0)],
                anchors: [anchor, [0.0, 0.0]],
                stiffness,
                rest_length: 0.0,
            }],
        )
        .unwrap()
    };
    // Sliding, pushed harder than friction holds it back: it never stops.
    let sliding = boxed(1.0, [100.0, 0.25], 0.2);
    // Held by friction, pulled short of the cone: both corners stick (a
    // part enumerated at every solve: its uniqueness is not shown
    // otherwise).
    let held = boxed(0.0, [1.0, 0.25], 2.0);
    // A particle sliding round the outside of a rough drum, pressed onto
    // it by a spring to the centre: curved rows, friction that slows it
    // (not to a stop within the run: a stop is an event, which may
    // allocate).
    let drum = Contact::new(
        "drum",
        0,
        [0.0, 0.0],
        Surface::Circle {
            center: [0.0, 0.0],
            radius: 1.0,
        },
    )
    .with_surface(0.02, 0.0);
    let circling = PlanarModel::new(
        [0.0, 0.0],
        vec![Body::particle("bead", 1.0)
            .at([1.0, 0.0])
            .moving([0.0, 3.0])],
        vec![],
        vec![drum],
        vec![Force::Spring {
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[0.0, 0.0], [0.0, 0.0]],
            stiffness: 20.0,
            rest_length: 0.0,
        }],
    )
    .unwrap();
    // The sliding box with a pendulum pinned at its centre: the pin's rows
    // are held inside the frictional part.
    let swinging = PlanarModel::new(
        [0.0, -9.81],
        vec![
            Body::rigid("box", 2.0, 0.5)
                .at([0.0, 0.25])
                .moving([1.0, 0.0]),
            Body::particle("bob", 0.5).at([0.6, -0.55]),
        ],
        vec![Joint {
            kind: JointKind::Distance { length: 1.0 },
            bodies: [BodyRef::Body(0), BodyRef::Body(1)],
            anchors: [[0.0, 0.0], [0.0, 0.0]],
        }],
        vec![
            rough(0, [-0.5, -0.25], [0.0, 1.0]),
            rough(0, [0.5, -0.25], [0.0, 1.0]),
        ],
        vec![Force::Spring {
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[100.0, 0.25], [0.0, 0.0]],
            stiffness: 0.2,
            rest_length: 0.0,
        }],
    )
    .unwrap();
    // A frictionless box pulled to and fro beside the sliding rough one:
    // a part without friction solved with the frictional part.
    let side_by_side = PlanarModel::new(
        [0.0, -9.81],
        vec![
            Body::rigid("box", 2.0, 0.5)
                .at([0.0, 0.25])
                .moving([1.0, 0.0]),
            Body::rigid("smooth", 2.0, 0.5).at([0.3, 0.25]),
        ],
        vec![],
        vec![
            rough(0, [-0.5, -0.25], [0.0, 1.0]),
            rough(0, [0.5, -0.25], [0.0, 1.0]),
            floor(1, [-0.5, -0.25]),
            floor(1, [0.5, -0.25]),
        ],
        vec![
            Force::Spring {
                bodies: [BodyRef::Ground, BodyRef::Body(0)],
                anchors: [[100.0, 0.25], [0.0, 0.0]],
                stiffness: 0.2,
                rest_length: 0.0,
            },
            Force::Spring {
                bodies: [BodyRef::Ground, BodyRef::Body(1)],
                anchors: [[-1.0, 0.25], [0.0, 0.0]],
                stiffness: 50.0,
                rest_length: 1.0,
            },
        ],
    )
    .unwrap();
    // The frictional scenes' motions are smooth (or still): bounded steps
    // make them many.
    let mut bounded = Settings::default();
    bounded.ode.h_max = 0.02;
    let free = Settings::default();
    time_steps_allocate_nothing();
    space_steps_allocate_nothing();
    space_joints_allocate_nothing();
    tree_steps_allocate_nothing();
    space_events_allocate_per_run_only();
    for (name, model, settings) in [
        ("chain", &links, &free),
        ("resting box", &resting, &free),
        ("sliding box", &sliding, &bounded),
        ("held box", &held, &bounded),
        ("bead on a rough drum", &circling, &bounded),
        ("sliding box with a pendulum", &swinging, &bounded),
        ("rough box beside a smooth one", &side_by_side, &bounded),
    ] {
        let (short, short_steps) = allocations(model, settings, 1.0);
        let (long, long_steps) = allocations(model, settings, 4.0);
        assert!(
            long_steps > short_steps + 10,
            "{name}: {short_steps} vs {long_steps} steps"
        );
        assert_eq!(
            short, long,
            "{name}: {short} allocations in {short_steps} steps, {long} in {long_steps}"
        );
    }
}

/// The time stepper's steady state (the same contacts step after step:
/// collision detection, assembly, the contact solve, integration, the
/// overlap check) allocates nothing: a stack of boxes on a floor beside a
/// disk rolling on it (two islands, solved in parallel), and a box sliding
/// on the floor.
fn time_steps_allocate_nothing() {
    let (hx, hy) = (0.5, 0.25);
    let boxed = |name: String, x: f64, y: f64| {
        Body::rigid(name, 1.0, (hx * hx + hy * hy) / 3.0)
            .at([x, y])
            .with_shape(Shape::Box {
                half_extents: [hx, hy],
            })
    };
    let mut bodies: Vec<Body> = (0..4)
        .map(|i| boxed(format!("b{i}"), 0.0, hy + 2.0 * hy * i as f64))
        .collect();
    bodies.push(
        Body::rigid("disk", 1.0, 0.02)
            .at([3.0, 0.2])
            .moving([1.0, 0.0])
            .spinning(-5.0)
            .with_shape(Shape::Circle { radius: 0.2 }),
    );
    bodies.push(boxed("slider".into(), -3.0, hy).moving([-50.0, 0.0]));
    let floor = FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] });
    let model = PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![floor])
        .unwrap();
    let counts: Vec<usize> = (0..3)
        .map(|_| {
            let mut stepper = TimeStepper::new(&model, StepSettings::default()).unwrap();
            for _ in 0..50 {
                stepper.step(0.002).unwrap();
            }
            let region = Region::new(GLOBAL);
            for _ in 0..200 {
                let report = stepper.step(0.002).unwrap();
                assert!(report.solved && report.contacts == 11, "{report:?}");
            }
            region.change().allocations
        })
        .collect();
    assert_eq!(counts.iter().min(), Some(&0), "{counts:?}");
}

/// Steady steps in space (the same contacts) allocate nothing: a stack of
/// cubes, a cube sliding, a sphere rolling, on a floor.
fn space_steps_allocate_nothing() {
    use zwang_geometry::spatial::Shape as Shape3;
    use zwang_model::spatial::{SpatialBody, SpatialKind, SpatialModel};
    let body = |name: &str, shape: Shape3, position: [f64; 3], velocity: [f64; 3]| {
        let mut b = SpatialBody::new(
            name,
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: None,
            },
        );
        b.shape = Some(shape);
        b.position = position;
        b.velocity = velocity;
        b
    };
    let cube = Shape3::Box {
        half_extents: [0.1; 3],
    };
    let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
    floor.shape = Some(Shape3::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
    let mut bodies = vec![floor];
    for i in 0..3 {
        bodies.push(body(
            "c",
            cube.clone(),
            [0.0, 0.0, 0.1 + 0.2 * i as f64],
            [0.0; 3],
        ));
    }
    bodies.push(body("slider", cube, [2.0, 0.0, 0.1], [0.0, -50.0, 0.0]));
    let mut ball = body(
        "ball",
        Shape3::Sphere { radius: 0.1 },
        [-2.0, 0.0, 0.1],
        [1.0, 0.0, 0.0],
    );
    ball.angular_velocity = [0.0, 10.0, 0.0];
    bodies.push(ball);
    let model = SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![]).unwrap();
    assert_space_steps_allocate_nothing(&model, 17);
}

/// Steady steps in space with joints allocate nothing: a box resting on
/// the floor with a pendulum hung from it by a ball joint (contacts with
/// joints held, the problem in the joints' null space) and a top spinning
/// on a ball joint at its tip (joints alone), beside a free cube sliding.
fn space_joints_allocate_nothing() {
    use zwang_geometry::spatial::Shape as Shape3;
    use zwang_model::spatial::{
        SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
    };
    let body = |name: &str, shape: Option<Shape3>, position: [f64; 3]| {
        let mut b = SpatialBody::new(
            name,
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: shape.is_none().then_some([
                    [0.01, 0.0, 0.0],
                    [0.0, 0.01, 0.0],
                    [0.0, 0.0, 0.02],
                ]),
            },
        );
        b.shape = shape;
        b.position = position;
        b
    };
    let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
    floor.shape = Some(Shape3::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
    let cube = Shape3::Box {
        half_extents: [0.1; 3],
    };
    let mut slider = body("slider", Some(cube.clone()), [2.0, 0.0, 0.1]);
    slider.velocity = [0.0, -50.0, 0.0];
    let mut bob = body("bob", None, [0.05, 0.0, 0.6]);
    bob.velocity = [0.0, 0.1, 0.0];
    let mut top = body("top", None, [-2.0, 0.0, 0.5]);
    top.angular_velocity = [0.0, 0.0, 100.0];
    top.velocity = [0.0, 0.0, 0.0];
    let bodies = vec![
        floor,
        body("base", Some(cube), [0.0, 0.0, 0.1]),
        bob,
        top,
        slider,
    ];
    let joints = vec![
        SpatialJoint {
            kind: SpatialJointKind::Ball,
            bodies: [Some(1), Some(2)],
            anchors: [[0.0, 0.0, 0.9], [-0.05, 0.0, 0.4]],
        },
        SpatialJoint {
            kind: SpatialJointKind::Ball,
            bodies: [None, Some(3)],
            anchors: [[-2.0, 0.0, 0.4], [0.0, 0.0, -0.1]],
        },
    ];
    let model = SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![])
        .unwrap()
        .with_joints(joints)
        .unwrap();
    assert_space_steps_allocate_nothing(&model, 8);
}

/// 200 steady steps of `model` in space (after 50), each with `contacts`
/// contacts solved, allocate nothing (the least of three runs).
fn assert_space_steps_allocate_nothing(
    model: &zwang_model::spatial::SpatialModel,
    contacts: usize,
) {
    let counts: Vec<usize> = (0..3)
        .map(|_| {
            let mut stepper =
                zwang_motion::SpaceStepper::new(model, StepSettings::default()).unwrap();
            for _ in 0..50 {
                stepper.step(0.002).unwrap();
            }
            let region = Region::new(GLOBAL);
            for _ in 0..200 {
                let report = stepper.step(0.002).unwrap();
                assert!(report.solved && report.contacts == contacts, "{report:?}");
            }
            region.change().allocations
        })
        .collect();
    assert_eq!(counts.iter().min(), Some(&0), "{counts:?}");
}

/// Steady steps over a kinematic tree allocate nothing: a free cube
/// resting on the floor, a ball rolling on it, a damped, driven
/// pendulum held on its joint limit by gravity (and pulled by a damped,
/// driven spring through a spatial tendon), and a block on two slides
/// held by a connect equality.
fn tree_steps_allocate_nothing() {
    use zwang_geometry::spatial::Shape as Shape3;
    use zwang_model::articulated::{
        Actuator, Articulated, Equality, JointPhysics, Site, Tendon, TendonPath, Transmission,
    };
    use zwang_tree::{Body as TreeBody, Joint as TreeJoint, Tree};
    let body = |name: &str, position: [f64; 3], com: [f64; 3], joint: TreeJoint| {
        let mut b = TreeBody::new(name, None);
        b.position = position;
        b.mass = 1.0;
        b.com = com;
        b.inertia = [[0.004, 0.0, 0.0], [0.0, 0.004, 0.0], [0.0, 0.0, 0.004]];
        b.joints.push(joint);
        b
    };
    let geom = |name: &str, body: Option<usize>, shape: Shape3, position: [f64; 3]| {
        common::geom(name, body, shape, position, 0.8)
    };
    let physics = |name: &str, range: Option<[f64; 2]>, damping: f64| JointPhysics {
        name: name.into(),
        range,
        damping,
        stiffness: 0.0,
        springref: 0.0,
        frictionloss: 0.0,
    };
    let bodies = vec![
        body("cube", [0.0, 0.0, 0.1], [0.0; 3], TreeJoint::free("cube")),
        body("ball", [1.0, 0.0, 0.1], [0.0; 3], TreeJoint::free("ball")),
        body(
            "arm",
            [-1.0, 0.0, 1.0],
            [0.0, 0.0, -0.3],
            TreeJoint::hinge("swing", [0.0, 1.0, 0.0], [0.0; 3]),
        ),
        body(
            "block",
            [3.0, 0.0, 1.0],
            [0.0; 3],
            TreeJoint::slide("bx", [1.0, 0.0, 0.0]),
        ),
    ];
    let mut bodies = bodies;
    bodies[3]
        .joints
        .push(TreeJoint::slide("bz", [0.0, 0.0, 1.0]));
    let model = Articulated {
        tree: Tree::new(bodies, [0.0, 0.0, -9.81]).unwrap(),
        joints: vec![
            physics("cube", None, 0.0),
            physics("ball", None, 0.0),
            physics("swing", Some([0.2, 0.5]), 0.3),
            physics("bx", None, 0.0),
            physics("bz", None, 0.0),
        ],
        geoms: vec![
            geom(
                "floor",
                None,
                Shape3::Halfspace {
                    normal: [0.0, 0.0, 1.0],
                },
                [0.0; 3],
            ),
            geom(
                "cube",
                Some(0),
                Shape3::Box {
                    half_extents: [0.1; 3],
                },
                [0.0; 3],
            ),
            geom("ball", Some(1), Shape3::Sphere { radius: 0.1 }, [0.0; 3]),
        ],
        sites: vec![
            Site {
                name: "post".into(),
                body: None,
                position: [-0.5, 0.0, 1.2],
            },
            Site {
                name: "arm".into(),
                body: Some(2),
                position: [0.0, 0.0, -0.3],
            },
        ],
        tendons: vec![Tendon {
            name: "spring".into(),
            path: TendonPath::Spatial(vec![0, 1]),
            range: Some([0.0, 10.0]),
            damping: 0.1,
            stiffness: 1.0,
            springlength: Some(0.5),
        }],
        actuators: vec![
            Actuator {
                name: "motor".into(),
                transmission: Transmission::Joint(2),
                gear: 1.0,
                gain: 1.0,
                bias: [0.0; 3],
                ctrlrange: Some([-1.0, 1.0]),
                forcerange: None,
            },
            Actuator {
                name: "pull".into(),
                transmission: Transmission::Tendon(0),
                gear: 2.0,
                gain: 1.0,
                bias: [0.0; 3],
                ctrlrange: None,
                forcerange: None,
            },
        ],
        equalities: vec![Equality::Connect {
            bodies: [Some(3), None],
            anchor: [0.0; 3],
            anchor2: [3.0, 0.0, 1.0],
        }],
        excluded: Vec::new(),
        contact: true,
        timestep: 0.002,
        keyframes: Vec::new(),
    };
    let counts: Vec<usize> = (0..3)
        .map(|_| {
            let mut stepper =
                zwang_motion::TreeStepper::new(&model, StepSettings::default()).unwrap();
            let mut qvel = vec![0.0; model.tree.nv()];
            // The ball rolls along x at 1 m/s (10 rad/s about y).
            qvel[6] = 1.0;
            qvel[10] = 10.0;
            let mut qpos = model.tree.qpos0().to_vec();
            qpos[14] = 0.2;
            stepper.reset(&qpos, &qvel, &[0.5, 0.1]).unwrap();
            for _ in 0..50 {
                stepper.step().unwrap();
            }
            let region = Region::new(GLOBAL);
            for _ in 0..200 {
                let report = stepper.step().unwrap();
                assert!(report.solved && report.contacts == 6, "{report:?}");
            }
            region.change().allocations
        })
        .collect();
    assert_eq!(counts.iter().min(), Some(&0), "{counts:?}");
}

/// A spatial model of every joint kind under the event-driven method: a
/// chain hung from the ground by a ball joint, then a hinge, a slider, a
/// weld and a distance joint, swinging. A run four times longer allocates
/// exactly as often.
fn space_events_allocate_per_run_only() {
    use zwang_model::spatial::{
        SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
    };
    let link = |k: usize| {
        let mut b = SpatialBody::new(
            &format!("link{k}"),
            SpatialKind::Rigid {
                mass: 1.0 + 0.3 * k as f64,
                inertia: Some([[0.02, 0.0, 0.0], [0.0, 0.03, 0.0], [0.0, 0.0, 0.01]]),
            },
        );
        b.position = [0.2 * (k + 1) as f64, 0.0, 1.0];
        b.angular_velocity = [0.5, -0.3, 0.2 * k as f64];
        b
    };
    let kinds = [
        SpatialJointKind::Ball,
        SpatialJointKind::Hinge {
            axis: [0.0, 1.0, 0.2],
        },
        SpatialJointKind::Slider {
            axis: [1.0, 0.0, 0.0],
        },
        SpatialJointKind::Weld,
        SpatialJointKind::Distance { length: None },
    ];
    let joints = kinds
        .into_iter()
        .enumerate()
        .map(|(k, kind)| SpatialJoint {
            kind,
            bodies: [k.checked_sub(1), Some(k)],
            anchors: [
                if k == 0 {
                    [0.0, 0.0, 1.0]
                } else {
                    [0.1, 0.0, 0.0]
                },
                // The distance joint's anchors 5 cm apart.
                [if k == 4 { -0.05 } else { -0.1 }, 0.0, 0.0],
            ],
        })
        .collect();
    let model = SpatialModel::new([0.0, 0.0, -9.81], (0..5).map(link).collect(), vec![])
        .unwrap()
        .with_joints(joints)
        .unwrap();
    let count = |duration: f64| {
        (0..3)
            .map(|_| {
                let region = Region::new(GLOBAL);
                let outcome = simulate(&model, duration, &Settings::default(), &mut NoObserver);
                let count = region.change().allocations;
                assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
                (count, outcome.steps)
            })
            .min()
            .expect("three")
    };
    let ((short, short_steps), (long, long_steps)) = (count(0.5), count(2.0));
    assert!(
        long_steps > short_steps + 10,
        "{short_steps} vs {long_steps}"
    );
    assert_eq!(
        short, long,
        "{short} allocations in {short_steps} steps, {long} in {long_steps}"
    );
}
