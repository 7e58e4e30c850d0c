//! The time stepper over kinematic trees against closed forms, physical
//! laws and the maximal-coordinates stepper: implicit damping's discrete
//! decay, a pendulum's period and energy, a double pendulum against the
//! same one in maximal coordinates, a free body's momenta, a sphere and a
//! box coming to rest on a floor, a box on an incline (sticking below the
//! friction angle, sliding at `g (sin a - mu cos a)` above), a hinge
//! limit, actuators, a two-link arm on the floor, MuJoCo's contact
//! filter, chains, spatial tendons (the Jacobian against finite
//! differences, a ball on a string at the pendulum's period, a motor
//! through a string in equilibrium), a connect closing a four-bar and a
//! weld making one compound pendulum (closed-form periods), and what is
//! refused.

use std::f64::consts::PI;

use zwang_core::rotation::{apply, apply_transpose, cross, matrix};
use zwang_geometry::spatial::{Pose, Shape};
use zwang_model::articulated::{
    Actuator, Articulated, ArticulatedMechanism, Equality, Geom, JointPhysics, Site, Tendon,
    TendonPath, Transmission,
};
use zwang_model::spatial::{
    SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
};
use zwang_motion::{
    simulate_tree, NoObserver, SpaceStepper, Status, StepError, StepSettings, TreeOutcome,
    TreeStart, TreeStepper,
};
use zwang_tree::{Body, Joint, Tree};

use crate::common::geom;

const G: f64 = 9.81;

fn settings(h: f64) -> StepSettings {
    StepSettings {
        time_step: h,
        ..StepSettings::default()
    }
}

/// The run of `model` from rest for `duration` in steps of `h`, which
/// must finish.
#[track_caller]
fn finish_from_rest(model: &Articulated, duration: f64, h: f64) -> TreeOutcome {
    let o = simulate_tree(
        model,
        &TreeStart::rest(model),
        duration,
        &settings(h),
        &mut NoObserver,
    );
    assert_eq!(o.outcome.status, Status::Finished, "{:?}", o.outcome.reason);
    o
}

/// A body of `mass` with principal `moments` about its centre `com`
/// (body frame), at `position` in its parent, with `joints`.
fn body(
    name: &str,
    parent: Option<usize>,
    position: [f64; 3],
    mass: f64,
    com: [f64; 3],
    moments: [f64; 3],
    joints: Vec<Joint>,
) -> Body {
    let mut b = Body::new(name, parent);
    b.position = position;
    b.mass = mass;
    b.com = com;
    b.inertia = [
        [moments[0], 0.0, 0.0],
        [0.0, moments[1], 0.0],
        [0.0, 0.0, moments[2]],
    ];
    b.joints = joints;
    b
}

fn physics(name: &str) -> JointPhysics {
    JointPhysics {
        name: name.into(),
        range: None,
        damping: 0.0,
        stiffness: 0.0,
        springref: 0.0,
        frictionloss: 0.0,
    }
}

/// The model of `bodies` under `gravity` with `geoms`, each joint's
/// physics neutral.
fn articulated(bodies: Vec<Body>, gravity: [f64; 3], geoms: Vec<Geom>) -> Articulated {
    let names: Vec<String> = bodies
        .iter()
        .flat_map(|b| b.joints.iter().map(|j| j.name.clone()))
        .collect();
    Articulated {
        tree: Tree::new(bodies, gravity).unwrap(),
        joints: names.iter().map(|n| physics(n)).collect(),
        geoms,
        sites: Vec::new(),
        tendons: Vec::new(),
        actuators: Vec::new(),
        equalities: Vec::new(),
        excluded: Vec::new(),
        contact: true,
        timestep: 0.002,
        keyframes: Vec::new(),
    }
}

/// The floor `z = 0`.
fn floor(friction: f64) -> Geom {
    geom(
        "floor",
        None,
        Shape::Halfspace {
            normal: [0.0, 0.0, 1.0],
        },
        [0.0; 3],
        friction,
    )
}

fn motor(joint: usize, gear: f64) -> Actuator {
    Actuator {
        name: "motor".into(),
        transmission: Transmission::Joint(joint),
        gear,
        gain: 1.0,
        bias: [0.0; 3],
        ctrlrange: None,
        forcerange: None,
    }
}

/// Asserts that `got` is within `tol` of `want`, saying both and what
/// `got` is when not.
#[track_caller]
fn assert_near(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() < tol, "{what}: {got} against {want}");
}

/// A body on a slide along x, mass `m`, armature `a`.
fn slider(m: f64, a: f64) -> Articulated {
    let b = body(
        "block",
        None,
        [0.0; 3],
        m,
        [0.0; 3],
        [0.1; 3],
        vec![Joint::slide("x", [1.0, 0.0, 0.0]).with_armature(a)],
    );
    articulated(vec![b], [0.0, 0.0, -G], Vec::new())
}

#[test]
fn a_damped_slide_decays_as_implicit_euler_in_closed_form() {
    // (m + a + h d) v+ = (m + a) v: v_n = v_0 / (1 + h d / (m + a))^n,
    // q_n = h (v_1 + ... + v_n).
    let (m, a, d, h) = (2.0, 0.5, 3.0, 0.01);
    let mut model = slider(m, a);
    model.joints[0].damping = d;
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.0], &[1.5], &[]).unwrap();
    let (mut v, mut q) = (1.5, 0.0);
    for _ in 0..200 {
        s.step().unwrap();
        v /= 1.0 + h * d / (m + a);
        q += h * v;
    }
    assert_near(s.qvel()[0], v, 1e-14, "qvel");
    assert_near(s.qpos()[0], q, 1e-13, "qpos");
    assert!((s.time() - 2.0).abs() < 1e-12);
}

#[test]
fn dry_friction_at_a_slide_stops_it_in_closed_form_and_holds_it() {
    // Coulomb friction f at the joint: each step takes f h of momentum
    // until the block stops, (m + a) v_n = (m + a) v_0 - n f h, exactly;
    // then it holds against any push below f.
    let (m, a, f, h, v0) = (1.5, 0.5, 1.0, 0.01, 1.0);
    let mut model = slider(m, a);
    model.joints[0].frictionloss = f;
    model.actuators.push(motor(0, 1.0));
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.0], &[v0], &[0.0]).unwrap();
    let (mut v, mut q) = (v0, 0.0);
    // The momentum (m + a) v0 = 2 lasts 200 steps of f h = 0.01.
    for n in 1..=250 {
        s.step().unwrap();
        v = (v - f * h / (m + a)).max(0.0);
        q += h * v;
        assert_near(s.qvel()[0], v, 1e-9, &format!("qvel at step {n}"));
    }
    assert_near(s.qpos()[0], q, 1e-9, "qpos");
    assert!(s.qvel()[0].abs() < 1e-9);
    // A push of 0.9 f holds; one of 1.2 f moves it at (1.2 f - f) / (m + a).
    s.set_ctrl(&[0.9 * f]).unwrap();
    let at = s.qpos()[0];
    for _ in 0..100 {
        s.step().unwrap();
    }
    assert!((s.qpos()[0] - at).abs() < 1e-9 && s.qvel()[0].abs() < 1e-9);
    s.set_ctrl(&[1.2 * f]).unwrap();
    s.step().unwrap();
    let expected = 0.2 * f * h / (m + a);
    assert_near(s.qvel()[0], expected, 1e-9, "qvel");
}

#[test]
fn a_joint_equality_couples_two_slides_as_one_mass() {
    // q1 = 0.1 + 2 q2: pushed by F on the second slide, the pair moves as
    // one of mass m2 + 4 m1, a2 = F / (m2 + 4 m1), exactly at each step;
    // the coupling holds to the solver's tolerance.
    let (m1, m2, force, h) = (1.5, 2.0, 3.0, 0.01);
    let slide = |name: &str, m: f64, y: f64| {
        body(
            name,
            None,
            [0.0, y, 0.0],
            m,
            [0.0; 3],
            [0.1; 3],
            vec![Joint::slide(name, [1.0, 0.0, 0.0])],
        )
    };
    let mut model = articulated(
        vec![slide("one", m1, 0.0), slide("two", m2, 1.0)],
        [0.0, 0.0, -G],
        Vec::new(),
    );
    model.equalities.push(Equality::Joint {
        joints: [0, 1],
        polycoef: [0.1, 2.0, 0.0, 0.0, 0.0],
    });
    model.actuators.push(motor(1, 1.0));
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.1, 0.0], &[0.0, 0.0], &[force]).unwrap();
    let a2 = force / (m2 + 4.0 * m1);
    for n in 1..=100 {
        s.step().unwrap();
        let v2 = a2 * h * n as f64;
        assert_near(s.qvel()[1], v2, 1e-9, &format!("qvel at step {n}"));
        assert!((s.qvel()[0] - 2.0 * v2).abs() < 1e-9);
        assert!((s.qpos()[0] - 0.1 - 2.0 * s.qpos()[1]).abs() < 1e-9);
    }
    // A constant polynomial (no second joint) pins the joint where it is.
    let mut model = articulated(vec![slide("one", m1, 0.0)], [0.0, 0.0, -G], Vec::new());
    model.equalities.push(Equality::Joint {
        joints: [0, 0],
        polycoef: [0.3, 0.0, 0.0, 0.0, 0.0],
    });
    model.actuators.push(motor(0, 1.0));
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.3], &[0.0], &[force]).unwrap();
    for _ in 0..50 {
        s.step().unwrap();
    }
    assert!((s.qpos()[0] - 0.3).abs() < 1e-9 && s.qvel()[0].abs() < 1e-9);
}

/// A compound pendulum hinged about y at the world origin: a bob of mass
/// `m` and moment `i` about its centre at distance `l` below the hinge.
fn pendulum(m: f64, l: f64, i: f64) -> Articulated {
    let b = body(
        "bob",
        None,
        [0.0; 3],
        m,
        [0.0, 0.0, -l],
        [i, i, i],
        vec![Joint::hinge("swing", [0.0, 1.0, 0.0], [0.0; 3])],
    );
    articulated(vec![b], [0.0, 0.0, -G], Vec::new())
}

#[test]
fn a_pendulum_swings_at_its_period_and_keeps_its_energy() {
    // T = 2 pi sqrt((i + m l^2) / (m g l)) (1 + theta0^2 / 16).
    let (m, l, i, theta0, h) = (1.5, 0.8, 0.01, 0.02f64, 1e-4);
    let model = pendulum(m, l, i);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[theta0], &[0.0], &[]).unwrap();
    let e0 = s.energy().unwrap();
    let rest = -m * G * l;
    let swing = e0 - rest;
    let (mut crossings, mut worst) = (Vec::new(), 0.0f64);
    let mut before = s.qpos()[0];
    while s.time() < 10.0 {
        let t0 = s.time();
        s.step().unwrap();
        let now = s.qpos()[0];
        if before < 0.0 && now >= 0.0 {
            crossings.push(t0 + h * before / (before - now));
        }
        before = now;
        worst = worst.max((s.energy().unwrap() - e0).abs());
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let expected =
        2.0 * PI * ((i + m * l * l) / (m * G * l)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    assert!(
        ((period - expected) / expected).abs() < 2e-6,
        "period {period} against {expected}"
    );
    // Semi-implicit Euler keeps the energy within O(h omega) of the
    // swing's, without drift.
    let omega = 2.0 * PI / expected;
    assert!(
        worst < h * omega * swing,
        "energy off by {worst:e} of {swing:e}"
    );
    assert!((s.energy().unwrap() - e0).abs() < 0.5 * h * omega * swing);
}

/// A double pendulum of two rods (length 1, mass 1) hinged about y in
/// joint coordinates, and its state at `(q1, q2)`.
fn double_pendulum() -> Articulated {
    let rod = |name: &str, parent, top: f64| {
        body(
            name,
            parent,
            [0.0, 0.0, top],
            1.0,
            [0.0, 0.0, -0.5],
            [1.0 / 12.0, 1.0 / 12.0, 1e-3],
            vec![Joint::hinge(name, [0.0, 1.0, 0.0], [0.0; 3])],
        )
    };
    articulated(
        vec![rod("upper", None, 0.0), rod("lower", Some(0), -1.0)],
        [0.0, 0.0, -G],
        Vec::new(),
    )
}

/// The same double pendulum in maximal coordinates at `(q1, q2)`.
fn double_pendulum_spatial(q1: f64, q2: f64) -> SpatialModel {
    let rod = |name: &str, centre: [f64; 3], angle: f64| {
        let mut b = SpatialBody::new(
            name,
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: Some([
                    [1.0 / 12.0, 0.0, 0.0],
                    [0.0, 1.0 / 12.0, 0.0],
                    [0.0, 0.0, 1e-3],
                ]),
            },
        );
        b.position = centre;
        b.orientation = [(angle / 2.0).cos(), 0.0, (angle / 2.0).sin(), 0.0];
        b
    };
    let down = |angle: f64, length: f64| [-length * angle.sin(), 0.0, -length * angle.cos()];
    let c1 = down(q1, 0.5);
    let top2 = down(q1, 1.0);
    let c2 = down(q1 + q2, 0.5);
    let c2 = [top2[0] + c2[0], 0.0, top2[2] + c2[2]];
    let hinge = |bodies, anchors| SpatialJoint {
        kind: SpatialJointKind::Hinge {
            axis: [0.0, 1.0, 0.0],
        },
        bodies,
        anchors,
    };
    SpatialModel::new(
        [0.0, 0.0, -G],
        vec![rod("upper", c1, q1), rod("lower", c2, q1 + q2)],
        vec![],
    )
    .unwrap()
    .with_joints(vec![
        hinge([None, Some(0)], [[0.0; 3], [0.0, 0.0, 0.5]]),
        hinge([Some(0), Some(1)], [[0.0, 0.0, -0.5], [0.0, 0.0, 0.5]]),
    ])
    .unwrap()
}

/// The lower rod's centre after `duration` in joint and in maximal
/// coordinates, at step `h`.
fn lower_centres(h: f64, duration: f64) -> ([f64; 3], [f64; 3]) {
    let (q1, q2) = (0.6, -0.4);
    let model = double_pendulum();
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[q1, q2], &[0.0, 0.0], &[]).unwrap();
    s.advance(duration).unwrap();
    let lower = s.body(1).unwrap();
    let off = apply(&matrix(lower.orientation), [0.0, 0.0, -0.5]);
    let joint = [
        lower.position[0] + off[0],
        lower.position[1] + off[1],
        lower.position[2] + off[2],
    ];
    let spatial = double_pendulum_spatial(q1, q2);
    let mut m = SpaceStepper::new(&spatial, settings(h)).unwrap();
    while m.state().0 < duration - 0.5 * h {
        m.step(h).unwrap();
    }
    let (_, q, v) = m.state();
    (joint, spatial.body_state(1, q, v).position)
}

#[test]
fn a_double_pendulum_in_joint_coordinates_moves_as_in_maximal_ones() {
    // Two first-order methods of the same motion: they agree to O(h),
    // and twice as well at half the step.
    let distance = |(a, b): ([f64; 3], [f64; 3])| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    let coarse = distance(lower_centres(4e-4, 1.0));
    let fine = distance(lower_centres(2e-4, 1.0));
    eprintln!("double pendulum: {coarse:e} m at h = 4e-4, {fine:e} m at 2e-4");
    assert!(coarse < 1e-3, "{coarse}");
    assert!(fine < 0.6 * coarse, "{fine} against {coarse}");
}

/// A free box (no gravity) with unequal moments, thrown spinning.
fn free_box() -> Articulated {
    let b = body(
        "box",
        None,
        [0.1, -0.2, 0.3],
        2.0,
        [0.0; 3],
        [0.1, 0.2, 0.3],
        vec![Joint::free("free")],
    );
    articulated(vec![b], [0.0; 3], Vec::new())
}

/// The world momentum and angular momentum (about the origin) of the free
/// box after `duration` at step `h`, and at the start.
fn momenta(h: f64, duration: f64) -> ([[f64; 3]; 2], [[f64; 3]; 2]) {
    let model = free_box();
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    let qpos = model.tree.qpos0().to_vec();
    s.reset(&qpos, &[0.3, -0.1, 0.2, 1.0, 2.0, -0.5], &[])
        .unwrap();
    let of = |s: &mut TreeStepper| {
        let b = s.body(0).unwrap();
        let r = matrix(b.orientation);
        // I_world w = R I R^T w.
        let wb = apply_transpose(&r, b.angular_velocity);
        let lb = [0.1 * wb[0], 0.2 * wb[1], 0.3 * wb[2]];
        let spin = apply(&r, lb);
        let p = b.velocity.map(|x| 2.0 * x);
        let orbit = cross(b.position, p);
        [
            p,
            [spin[0] + orbit[0], spin[1] + orbit[1], spin[2] + orbit[2]],
        ]
    };
    let start = of(&mut s);
    s.advance(duration).unwrap();
    (start, of(&mut s))
}

#[test]
fn a_free_body_keeps_its_momentum_and_its_angular_momentum() {
    let off = |(a, b): ([[f64; 3]; 2], [[f64; 3]; 2]), k: usize| {
        (0..3)
            .map(|i| (a[k][i] - b[k][i]).abs())
            .fold(0.0, f64::max)
    };
    let coarse = momenta(1e-3, 1.0);
    assert!(
        off(coarse, 0) < 1e-13,
        "momentum off by {:e}",
        off(coarse, 0)
    );
    // The gyroscopic torque is explicit: the angular momentum drifts by
    // O(h), four times less at a quarter of the step.
    let fine = momenta(2.5e-4, 1.0);
    let (lc, lf) = (off(coarse, 1), off(fine, 1));
    eprintln!("angular momentum: off by {lc:e} at h = 1e-3, {lf:e} at 2.5e-4");
    assert!(lc < 2e-3, "{lc}");
    assert!(lf < 0.3 * lc, "{lf} against {lc}");
}

fn free(name: &str, mass: f64, moments: [f64; 3], position: [f64; 3]) -> Body {
    body(
        name,
        None,
        position,
        mass,
        [0.0; 3],
        moments,
        vec![Joint::free(name)],
    )
}

#[test]
fn a_sphere_dropped_on_a_floor_rests_at_its_radius() {
    let r = 0.1;
    let model = articulated(
        vec![free("ball", 1.0, [0.004; 3], [0.0, 0.0, 0.5])],
        [0.0, 0.0, -G],
        vec![
            floor(0.5),
            geom("ball", Some(0), Shape::Sphere { radius: r }, [0.0; 3], 0.5),
        ],
    );
    let o = finish_from_rest(&model, 1.5, 0.002);
    let ball = &o.bodies[0];
    assert!(
        (ball.position[2] - r).abs() < 1e-9,
        "height {}",
        ball.position[2]
    );
    assert!(
        ball.velocity.iter().all(|v| v.abs() < 1e-9),
        "{:?}",
        ball.velocity
    );
    assert!(
        o.outcome.max_penetration < 1e-6,
        "{}",
        o.outcome.max_penetration
    );
    assert_eq!(o.outcome.unsolved.steps, 0);
    // Landing takes energy (rigid, no restitution), never gives it.
    assert!(o.outcome.energy_final < o.outcome.energy_initial);
}

/// A 0.1 m cube of 1 kg on the floor `z = 0` under `gravity`.
fn cube_on_floor(gravity: [f64; 3], mu: f64) -> Articulated {
    let half = 0.05;
    let i = 1.0 * (2.0 * half * half) / 3.0;
    articulated(
        vec![free("cube", 1.0, [i; 3], [0.0, 0.0, half])],
        gravity,
        vec![
            floor(mu),
            geom(
                "cube",
                Some(0),
                Shape::Box {
                    half_extents: [half; 3],
                },
                [0.0; 3],
                mu,
            ),
        ],
    )
}

#[test]
fn a_box_on_a_floor_stays_put() {
    let model = cube_on_floor([0.0, 0.0, -G], 0.5);
    let o = finish_from_rest(&model, 2.0, 0.002);
    let c = &o.bodies[0];
    assert!(
        c.position[0].abs() + c.position[1].abs() < 1e-12,
        "{:?}",
        c.position
    );
    assert!((c.position[2] - 0.05).abs() < 1e-9, "{}", c.position[2]);
    assert!(
        o.outcome.max_penetration < 1e-9,
        "{}",
        o.outcome.max_penetration
    );
}

/// Gravity of an incline of `angle` along x (the floor stays `z = 0`:
/// the same physics).
fn incline(angle: f64) -> [f64; 3] {
    [-G * angle.sin(), 0.0, -G * angle.cos()]
}

#[test]
fn a_box_on_an_incline_sticks_below_the_friction_angle() {
    let angle = 20f64.to_radians();
    let model = cube_on_floor(incline(angle), 1.05 * angle.tan());
    let o = finish_from_rest(&model, 2.0, 0.002);
    let c = &o.bodies[0];
    let moved = c.position[0].hypot(c.position[1]);
    assert!(moved < 1e-9, "crept {moved:e} m");
    assert!((c.position[2] - 0.05).abs() < 1e-9, "{}", c.position[2]);
}

#[test]
fn a_box_on_an_incline_slides_above_the_friction_angle_at_the_closed_form_acceleration() {
    let angle = 20f64.to_radians();
    let mu = 0.5 * angle.tan();
    let model = cube_on_floor(incline(angle), mu);
    let (h, n) = (0.002, 500.0);
    let o = finish_from_rest(&model, 1.0, h);
    let c = &o.bodies[0];
    let a = G * (angle.sin() - mu * angle.cos());
    assert_near(c.velocity[0], -a, 1e-9 * a, "x velocity");
    // Semi-implicit Euler: x = -a h^2 n (n + 1) / 2 after n steps.
    let x = -a * h * h * n * (n + 1.0) / 2.0;
    assert_near(c.position[0], x, 1e-9, "x");
    assert!(c.angular_velocity.iter().all(|w| w.abs() < 1e-9));
}

#[test]
fn a_hinge_limit_holds() {
    let mut model = pendulum(1.0, 0.5, 0.01);
    model.joints[0].range = Some([-0.3, 0.3]);
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    s.reset(&[0.0], &[4.0], &[]).unwrap();
    let (mut highest, mut lowest) = (0.0f64, 0.0f64);
    while s.time() < 2.0 {
        s.step().unwrap();
        highest = highest.max(s.qpos()[0]);
        lowest = lowest.min(s.qpos()[0]);
    }
    // Free, it would swing to 2 asin(4 / (2 omega)) > 0.3 both ways. A
    // closing row stops at the gap term's slop, 1e-9 (a thousandth of
    // the penetration tolerance), short of the limit.
    assert!(highest > 0.3 - 2e-9 && highest < 0.3 + 1e-9, "{highest}");
    assert!(lowest < -0.3 + 2e-9 && lowest > -0.3 - 1e-9, "{lowest}");
    assert!(
        s.max_limit_violation() < 1e-9,
        "{}",
        s.max_limit_violation()
    );
    // A hard limit takes the energy of the impact (no restitution): what
    // is left swings between the limits, touching them at rest (within
    // semi-implicit Euler's O(h omega) of the swing's energy).
    let at_limit = -G * 0.5 * 0.3f64.cos();
    let e = s.energy().unwrap();
    eprintln!("energy {e} against {at_limit} at the limits at rest");
    assert!(
        e < at_limit + 1e-2 * (at_limit + G * 0.5),
        "{e} against {at_limit}"
    );
}

#[test]
fn actuators_push_with_their_clamped_force_through_their_gear() {
    // A motor: gear 2, ctrl 3 clamped to 1, force clamped to 0.8: a
    // generalized force of 1.6 on m + armature = 2.5 (gravity is across
    // the slide), v_n = n h 1.6 / 2.5 exactly.
    let (m, a, h) = (2.0, 0.5, 0.01);
    let mut model = slider(m, a);
    let mut act = motor(0, 2.0);
    act.ctrlrange = Some([-1.0, 1.0]);
    act.forcerange = Some([-0.8, 0.8]);
    model.actuators.push(act);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.set_ctrl(&[3.0]).unwrap();
    for _ in 0..100 {
        s.step().unwrap();
    }
    let v = 100.0 * h * 1.6 / (m + a);
    assert_near(s.qvel()[0], v, 1e-13, "qvel");

    // A position servo (kp 40, gear 0.5) from q = 0.1 at rest with ctrl
    // 0.2: one step gives v = h kp (ctrl - gear q) gear / (m + a).
    let mut model = slider(m, a);
    let mut servo = motor(0, 0.5);
    servo.gain = 40.0;
    servo.bias = [0.0, -40.0, 0.0];
    model.actuators.push(servo);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.1], &[0.0], &[0.2]).unwrap();
    s.step().unwrap();
    let v = h * 40.0 * (0.2 - 0.5 * 0.1) * 0.5 / (m + a);
    assert_near(s.qvel()[0], v, 1e-15, "qvel");
}

/// A two-link arm hinged about y at `(0, 0, 0.5)`, capsules of length
/// 0.4 and radius 0.04 along each link (overlapping at the elbow),
/// released horizontal over the floor.
fn arm() -> Articulated {
    let link = |name: &str, parent, position: [f64; 3]| {
        body(
            name,
            parent,
            position,
            1.0,
            [0.2, 0.0, 0.0],
            [0.001, 0.014, 0.014],
            vec![Joint::hinge(name, [0.0, 1.0, 0.0], [0.0; 3])],
        )
    };
    let capsule = |name: &str, b| {
        let mut g = geom(
            name,
            Some(b),
            Shape::Capsule {
                half_length: 0.2,
                radius: 0.04,
            },
            [0.2, 0.0, 0.0],
            0.8,
        );
        // The capsule's axis along x.
        g.pose.orientation = [0.5f64.sqrt(), 0.0, 0.5f64.sqrt(), 0.0];
        g
    };
    articulated(
        vec![
            link("upper", None, [0.0, 0.0, 0.5]),
            link("lower", Some(0), [0.4, 0.0, 0.0]),
        ],
        [0.0, 0.0, -G],
        vec![floor(0.8), capsule("upper", 0), capsule("lower", 1)],
    )
}

#[test]
fn a_two_link_arm_falls_onto_the_floor_and_rests_there() {
    let model = arm();
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    // The links' capsules overlap at the elbow: parent and child never
    // touch, so the start is not moved.
    assert!(s.start_projection().is_none());
    let e0 = s.energy().unwrap();
    s.advance(3.0).unwrap();
    assert_eq!(s.totals().unsolved.steps, 0);
    assert!(
        s.totals().max_penetration < 1e-6,
        "{}",
        s.totals().max_penetration
    );
    assert!(s.qvel().iter().all(|v| v.abs() < 1e-8), "{:?}", s.qvel());
    // At rest on the floor: the lower link's far end lies on it.
    let lower = s.body(1).unwrap();
    let r = matrix(lower.orientation);
    let tip = apply(&r, [0.4, 0.0, 0.0]);
    let lowest = (0..=40)
        .map(|k| {
            let p = apply(&r, [0.4 * k as f64 / 40.0, 0.0, 0.0]);
            lower.position[2] + p[2] - 0.04
        })
        .fold(f64::INFINITY, f64::min);
    assert!(lowest.abs() < 1e-6, "lowest point {lowest}, tip {tip:?}");
    assert!(s.energy().unwrap() < e0);
}

#[test]
fn geoms_whose_bits_do_not_meet_pass_through_each_other() {
    let mut model = articulated(
        vec![free("ball", 1.0, [0.004; 3], [0.0, 0.0, 0.2])],
        [0.0, 0.0, -G],
        vec![
            floor(0.5),
            geom(
                "ball",
                Some(0),
                Shape::Sphere { radius: 0.1 },
                [0.0; 3],
                0.5,
            ),
        ],
    );
    model.geoms[1].contype = 2;
    model.geoms[1].conaffinity = 2;
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    s.advance(0.5).unwrap();
    // Free fall: z = 0.2 - g h^2 n (n + 1) / 2.
    let n = 250.0;
    let z = 0.2 - G * 0.002 * 0.002 * n * (n + 1.0) / 2.0;
    assert_near(s.qpos()[2], z, 1e-12, "qpos[2]");
    // The bits meeting one way only (the floor's type, the ball's
    // affinity): it lands.
    model.geoms[1].conaffinity = 1;
    model.geoms[0].conaffinity = 0;
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    s.advance(0.5).unwrap();
    assert!((s.qpos()[2] - 0.1).abs() < 1e-6, "{}", s.qpos()[2]);
}

/// A chain of `n` links of 0.1 m hanging from the world, hinges
/// alternating about y and x, capsules on each, a floor under it.
fn chain(n: usize) -> Articulated {
    let bodies = (0..n)
        .map(|k| {
            let axis = if k % 2 == 0 {
                [0.0, 1.0, 0.0]
            } else {
                [1.0, 0.0, 0.0]
            };
            body(
                &format!("link{k}"),
                k.checked_sub(1),
                [0.0, 0.0, if k == 0 { 0.0 } else { -0.1 }],
                0.1,
                [0.0, 0.0, -0.05],
                [1e-4, 1e-4, 1e-5],
                vec![Joint::hinge(format!("j{k}"), axis, [0.0; 3]).with_armature(1e-4)],
            )
        })
        .collect();
    let geoms = (0..n)
        .map(|k| {
            geom(
                &format!("link{k}"),
                Some(k),
                Shape::Capsule {
                    half_length: 0.04,
                    radius: 0.01,
                },
                [0.0, 0.0, -0.05],
                0.5,
            )
        })
        .collect();
    let mut model = articulated(bodies, [0.0, 0.0, -G], geoms);
    for j in &mut model.joints {
        j.damping = 0.01;
    }
    model
}

/// A contact-free step of a damped chain (hanging, moving, clear of the
/// floor) is the semi-implicit Euler step `(M + h D) v+ = M v + h (tau -
/// c)`, formed here from the tree's `M` and factor: the stepper finds it
/// without `M` (the articulated-body recursion), in work linear in the
/// links where the factor's is cubic along a chain.
#[test]
fn a_chain_steps_as_semi_implicit_euler_without_its_mass_matrix() {
    let (n, h, d) = (100, 0.002, 0.01);
    let model = chain(n);
    let tree = &model.tree;
    let q: Vec<f64> = (0..n).map(|k| 0.2 * (k as f64).sin()).collect();
    let v: Vec<f64> = (0..n).map(|k| 0.5 * (0.3 * k as f64).cos()).collect();
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&q, &v, &[]).unwrap();
    s.step().unwrap();
    assert_eq!(s.last().contacts, 0);
    let mut ws = tree.workspace();
    tree.positions(&mut ws, &q).unwrap();
    tree.velocities(&mut ws, &v).unwrap();
    let mut c = vec![0.0; n];
    tree.bias(&mut ws, &mut c).unwrap();
    tree.mass_matrix(&mut ws).unwrap();
    // The step's equation's residual against its size (backward error;
    // the chain's M is ill-conditioned, so the velocities themselves
    // agree with a solve by the factor only to 3e-10 of the largest).
    let mut rhs = vec![0.0; n];
    tree.mul_mass(&ws, &v, &mut rhs).unwrap();
    for (r, ci) in rhs.iter_mut().zip(&c) {
        *r -= h * ci;
    }
    let (start, _) = tree.mass_layout();
    for &i in &start[..n] {
        ws.mass_mut()[i] += h * d;
    }
    let mut lhs = vec![0.0; n];
    tree.mul_mass(&ws, s.qvel(), &mut lhs).unwrap();
    let size = |x: &[f64]| x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let residual = lhs
        .iter()
        .zip(&rhs)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let scale = size(ws.mass()) * size(s.qvel());
    assert!(residual < 1e-14 * scale, "{residual:e} of {scale:e}");
    tree.factor(&mut ws).unwrap();
    tree.solve(&ws, &mut rhs).unwrap();
    let worst = s
        .qvel()
        .iter()
        .zip(&rhs)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(worst < 1e-9 * size(&rhs), "{worst:e}");
    let mut q_next = q.clone();
    tree.integrate(&mut q_next, s.qvel(), h).unwrap();
    assert_eq!(s.qpos(), &q_next[..]);
}

#[test]
fn chains_of_10_and_100_links_run() {
    for n in [10, 100] {
        let model = chain(n);
        let mut start = TreeStart::rest(&model);
        start
            .qpos
            .iter_mut()
            .enumerate()
            .for_each(|(k, q)| *q = 0.3 * (k as f64).sin());
        let o = simulate_tree(&model, &start, 0.1, &settings(0.002), &mut NoObserver);
        assert_eq!(
            o.outcome.status,
            Status::Finished,
            "{n}: {:?}",
            o.outcome.reason
        );
        assert_eq!(o.outcome.steps, 50);
        assert_eq!(o.bodies.len(), n);
        // Damped and without actuators: no energy made.
        assert!(
            o.outcome.energy_final <= o.outcome.energy_initial,
            "{n}: {} from {}",
            o.outcome.energy_final,
            o.outcome.energy_initial
        );
    }
}

#[test]
fn what_is_not_supported_yet_is_refused_with_its_name() {
    let refused = |model: &Articulated| match TreeStepper::new(model, settings(0.002)) {
        Err(StepError::Unsupported(message)) => message,
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("accepted"),
    };
    let mut model = pendulum(1.0, 0.5, 0.01);
    model.joints[0].frictionloss = -0.1;
    assert!(
        refused(&model).contains("frictionloss is -0.1"),
        "{}",
        refused(&model)
    );
    let mut model = pendulum(1.0, 0.5, 0.01);
    model.equalities.push(Equality::Connect {
        bodies: [None, Some(5)],
        anchor: [0.0; 3],
        anchor2: [0.0; 3],
    });
    assert!(refused(&model).contains("equality[0]: no body 5"));
    let mut model = pendulum(1.0, 0.5, 0.01);
    model.tendons.push(Tendon {
        name: "rope".into(),
        path: TendonPath::Spatial(vec![0, 1]),
        range: None,
        damping: 0.0,
        stiffness: 0.0,
        springlength: None,
    });
    match TreeStepper::new(&model, settings(0.002)) {
        Err(e) => assert!(
            e.to_string()
                .contains("tendon[rope]: site 0 does not exist"),
            "{e}"
        ),
        Ok(_) => panic!("accepted"),
    }
    let mut model = pendulum(1.0, 0.5, 0.01);
    model.geoms.push(geom(
        "g",
        Some(0),
        Shape::Sphere { radius: 0.1 },
        [0.0; 3],
        0.5,
    ));
    model.geoms[0].condim = 6;
    assert!(refused(&model).contains("geom g (geom[0]): condim 6"));
    // Tendon damping across two branches (an entry outside M's pattern).
    let arm = |name: &str| {
        body(
            name,
            None,
            [0.0; 3],
            1.0,
            [0.0; 3],
            [0.1; 3],
            vec![Joint::slide(name, [1.0, 0.0, 0.0])],
        )
    };
    let mut model = articulated(vec![arm("a"), arm("b")], [0.0; 3], Vec::new());
    model.tendons.push(Tendon {
        name: "across".into(),
        path: TendonPath::Fixed(vec![(0, 1.0), (1, -1.0)]),
        range: None,
        damping: 1.0,
        stiffness: 0.0,
        springlength: None,
    });
    assert!(refused(&model).contains("tendon across (tendon[0]): damping"));
    // A state of the wrong length: a typed error, not a panic.
    let model = pendulum(1.0, 0.5, 0.01);
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    assert!(matches!(
        s.reset(&[0.0, 1.0], &[0.0], &[]),
        Err(StepError::Tree(_))
    ));
    assert!(matches!(s.set_ctrl(&[1.0]), Err(StepError::Tree(_))));
}

/// Two nested slides along x (the second body rides on the first),
/// masses `m1` and `m2`, without gravity, and a fixed tendon over both
/// (the second body's position in the world).
fn nested_slides(m1: f64, m2: f64) -> Articulated {
    let slide = |name: &str, parent, m| {
        body(
            name,
            parent,
            [0.0; 3],
            m,
            [0.0; 3],
            [0.1; 3],
            vec![Joint::slide(name, [1.0, 0.0, 0.0])],
        )
    };
    let mut model = articulated(
        vec![slide("carriage", None, m1), slide("rider", Some(0), m2)],
        [0.0; 3],
        Vec::new(),
    );
    model.tendons.push(Tendon {
        name: "rope".into(),
        path: TendonPath::Fixed(vec![(0, 1.0), (1, 1.0)]),
        range: None,
        damping: 0.0,
        stiffness: 0.0,
        springlength: None,
    });
    model
}

#[test]
fn tendon_damping_is_implicit_with_its_off_diagonal_terms() {
    // (M + h d a a^T) v+ = M v with M = [[m1 + m2, m2], [m2, m2]] and
    // a = (1, 1): solved here by Cramer's rule.
    let (m1, m2, d, h) = (1.0, 0.5, 4.0, 0.01);
    let mut model = nested_slides(m1, m2);
    model.tendons[0].damping = d;
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.0, 0.0], &[1.0, -0.3], &[]).unwrap();
    let mut v = [1.0, -0.3];
    for _ in 0..50 {
        s.step().unwrap();
        let m = [[m1 + m2, m2], [m2, m2]];
        let b = [
            m[0][0] * v[0] + m[0][1] * v[1],
            m[1][0] * v[0] + m[1][1] * v[1],
        ];
        let k = [
            [m[0][0] + h * d, m[0][1] + h * d],
            [m[1][0] + h * d, m[1][1] + h * d],
        ];
        let det = k[0][0] * k[1][1] - k[0][1] * k[1][0];
        v = [
            (b[0] * k[1][1] - k[0][1] * b[1]) / det,
            (k[0][0] * b[1] - k[1][0] * b[0]) / det,
        ];
    }
    for (got, want) in s.qvel().iter().zip(v) {
        assert!((got - want).abs() < 1e-14, "{got} against {want}");
    }
}

#[test]
fn a_tendon_limit_holds() {
    // The rider's world position (the tendon) is held below 0.1 while
    // the carriage keeps its momentum.
    let mut model = nested_slides(1.0, 0.5);
    model.tendons[0].range = Some([-0.1, 0.1]);
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    s.reset(&[0.0, 0.0], &[0.5, 0.5], &[]).unwrap();
    let mut longest = 0.0f64;
    while s.time() < 1.0 {
        s.step().unwrap();
        longest = longest.max(s.qpos()[0] + s.qpos()[1]);
    }
    assert!((longest - 0.1).abs() < 1e-9, "{longest}");
    assert!(
        s.max_limit_violation() < 1e-9,
        "{}",
        s.max_limit_violation()
    );
    // The rope stops the rider in the world: at rest there, the
    // carriage moving on beneath it.
    assert!((s.qvel()[0] + s.qvel()[1]).abs() < 1e-9, "{:?}", s.qvel());
    assert!(s.qvel()[0] > 0.1, "{:?}", s.qvel());
}

#[test]
fn a_ball_joint_limit_holds() {
    // A bob on a ball joint, range [0, 0.4] rad, thrown sideways.
    let b = body(
        "bob",
        None,
        [0.0; 3],
        1.0,
        [0.0, 0.0, -0.5],
        [0.01; 3],
        vec![Joint::ball("ball", [0.0; 3])],
    );
    let mut model = articulated(vec![b], [0.0, 0.0, -G], Vec::new());
    model.joints[0].range = Some([0.0, 0.4]);
    let mut s = TreeStepper::new(&model, settings(0.002)).unwrap();
    s.reset(&[1.0, 0.0, 0.0, 0.0], &[3.0, 2.0, 0.5], &[])
        .unwrap();
    let mut widest = 0.0f64;
    while s.time() < 2.0 {
        s.step().unwrap();
        let q = s.qpos();
        // The angle of the rotation [w, x, y, z].
        let angle = 2.0
            * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
                .sqrt()
                .atan2(q[0].abs());
        widest = widest.max(angle);
    }
    // The row holds the angle's rate; the cone's curvature moves the
    // angle by O(h^2 w^2) more, left below the overlap tolerance (1e-6)
    // and corrected above it.
    assert!(widest > 0.4 - 1e-9 && widest < 0.4 + 1e-6, "{widest}");
    assert!(
        s.max_limit_violation() < 1e-6,
        "{}",
        s.max_limit_violation()
    );
}

fn site(name: &str, body: Option<usize>, position: [f64; 3]) -> Site {
    Site {
        name: name.into(),
        body,
        position,
    }
}

fn spatial(name: &str, sites: Vec<usize>, range: Option<[f64; 2]>) -> Tendon {
    Tendon {
        name: name.into(),
        path: TendonPath::Spatial(sites),
        range,
        damping: 0.0,
        stiffness: 0.0,
        springlength: None,
    }
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[test]
fn a_spatial_tendons_jacobian_is_the_derivative_of_its_length() {
    // A string from a world site over a site on the second rod of a
    // double pendulum to a site on a free body: dL/dq by central
    // differences along each dof (on the manifold) against the row.
    let mut model = double_pendulum();
    let mut bodies = model.tree.bodies().to_vec();
    bodies.push(free("box", 1.0, [0.1, 0.2, 0.3], [1.0, 0.5, -0.5]));
    model = articulated(bodies, [0.0, 0.0, -G], Vec::new());
    model.sites = vec![
        site("anchor", None, [0.3, 0.1, 0.4]),
        site("rod", Some(1), [0.05, 0.02, -0.7]),
        site("box", Some(2), [0.1, -0.2, 0.15]),
    ];
    model.tendons = vec![spatial("string", vec![0, 1, 2], None)];
    let tree = &model.tree;
    let mut q = tree.qpos0().to_vec();
    q[0] = 0.7;
    q[1] = -1.1;
    let turn = [0.9f64, 0.2, -0.3, 0.25];
    let n = turn.iter().map(|x| x * x).sum::<f64>().sqrt();
    q[2..5].copy_from_slice(&[1.0, 0.5, -0.5]);
    for k in 0..4 {
        q[5 + k] = turn[k] / n;
    }
    let mut ws = tree.workspace();
    tree.positions(&mut ws, &q).unwrap();
    let mut row = Vec::new();
    let length = model.tendon_jacobian(&ws, &q, 0, &mut row).unwrap();
    let at = |x: &[f64]| {
        let mut ws = tree.workspace();
        tree.positions(&mut ws, x).unwrap();
        let p: Vec<[f64; 3]> = (0..3)
            .map(|s| model.site_position(&ws, s).unwrap())
            .collect();
        (
            distance(p[0], p[1]) + distance(p[1], p[2]),
            model.tendon_length(&ws, x, 0).unwrap(),
        )
    };
    let (direct, measured) = at(&q);
    assert!((length - direct).abs() < 1e-15 && (measured - direct).abs() < 1e-15);
    let eps = 1e-5;
    for d in 0..tree.nv() {
        let mut dv = vec![0.0; tree.nv()];
        dv[d] = 1.0;
        let (mut plus, mut minus) = (q.clone(), q.clone());
        tree.integrate(&mut plus, &dv, eps).unwrap();
        tree.integrate(&mut minus, &dv, -eps).unwrap();
        let fd = (at(&plus).0 - at(&minus).0) / (2.0 * eps);
        let got: f64 = row.iter().filter(|e| e.0 == d).map(|e| e.1).sum();
        assert!((got - fd).abs() < 1e-9, "dof {d}: {got} against {fd}");
        assert!(row.iter().filter(|e| e.0 == d).count() <= 1);
    }
}

/// A ball of mass `m` on slides along x and z (the world's origin at
/// its start), hung from the world's origin by a string of length `l`
/// (a spatial tendon limited to `[0, l]`).
fn ball_on_a_string(m: f64, l: f64) -> Articulated {
    let b = body(
        "ball",
        None,
        [0.0; 3],
        m,
        [0.0; 3],
        [1e-3; 3],
        vec![
            Joint::slide("x", [1.0, 0.0, 0.0]),
            Joint::slide("z", [0.0, 0.0, 1.0]),
        ],
    );
    let mut model = articulated(vec![b], [0.0, 0.0, -G], Vec::new());
    model.sites = vec![
        site("hook", None, [0.0; 3]),
        site("ball", Some(0), [0.0; 3]),
    ];
    model.tendons = vec![spatial("string", vec![0, 1], Some([0.0, l]))];
    model
}

#[test]
fn a_ball_on_a_string_swings_taut_at_the_pendulums_period() {
    // A point mass on a string of length l swings with period
    // 2 pi sqrt(l / g) (1 + theta0^2 / 16); the string never stretches
    // and stays taut.
    let (m, l, theta0, h) = (0.2, 0.3, 0.1f64, 2e-4);
    let model = ball_on_a_string(m, l);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    let start = [l * theta0.sin(), -l * theta0.cos()];
    s.reset(&start, &[0.0, 0.0], &[]).unwrap();
    let e0 = s.energy().unwrap();
    let (mut crossings, mut longest, mut shortest) = (Vec::new(), 0.0f64, f64::INFINITY);
    let mut before = s.qpos()[0];
    while s.time() < 5.0 {
        let t0 = s.time();
        s.step().unwrap();
        let q = s.qpos();
        let r = (q[0] * q[0] + q[1] * q[1]).sqrt();
        longest = longest.max(r);
        shortest = shortest.min(r);
        if before < 0.0 && q[0] >= 0.0 {
            crossings.push(t0 + h * before / (before - q[0]));
        }
        before = q[0];
    }
    // A curved limit drifts outward by O(h^2 v^2 / l) a step until the
    // correction takes it back at the penetration tolerance.
    let tolerance = settings(h).penetration_tolerance;
    assert!(longest - l <= tolerance, "stretched to {longest}");
    assert!(s.max_limit_violation() <= tolerance);
    assert!(l - shortest < 1e-6, "slack to {shortest}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let expected = 2.0 * PI * (l / G).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    assert!(
        ((period - expected) / expected).abs() < 1e-3,
        "period {period} against {expected}"
    );
    // The string does no work: the energy is not gained.
    let e = s.energy().unwrap();
    assert!(e <= e0 + 1e-9, "{e} after {e0}");
}

/// A parallelogram four-bar in the xz plane: rods of length `a` and
/// mass `m1` down from the world's origin, across (length `b`, mass
/// `m2`) and up to `(b, 0, 0)`, a chain of hinges about y closed by a
/// connect equality of the last rod's top to the world there.
fn four_bar(a: f64, b: f64, m1: f64, m2: f64) -> Articulated {
    let rod = |name: &str, parent, position: [f64; 3], m: f64, com: [f64; 3], len: f64| {
        let i = m * len * len / 12.0;
        body(
            name,
            parent,
            position,
            m,
            com,
            [i, i, i],
            vec![Joint::hinge(name, [0.0, 1.0, 0.0], [0.0; 3])],
        )
    };
    let bodies = vec![
        rod("left", None, [0.0; 3], m1, [0.0, 0.0, -0.5 * a], a),
        rod(
            "across",
            Some(0),
            [0.0, 0.0, -a],
            m2,
            [0.5 * b, 0.0, 0.0],
            b,
        ),
        rod("right", Some(1), [b, 0.0, 0.0], m1, [0.0, 0.0, 0.5 * a], a),
    ];
    let mut model = articulated(bodies, [0.0, 0.0, -G], Vec::new());
    model.equalities.push(Equality::Connect {
        bodies: [Some(2), None],
        anchor: [0.0, 0.0, a],
        anchor2: [b, 0.0, 0.0],
    });
    model
}

#[test]
fn a_connect_closes_a_four_bar_that_swings_as_a_compound_pendulum() {
    // The parallelogram's one dof: both side rods turn by theta, the
    // crossing rod translates on a circle of radius a. Small swings:
    // T = 2 pi sqrt((2 m1 a^2 / 3 + m2 a^2) / ((m1 + m2) g a)).
    let (a, b, m1, m2, theta0, h) = (0.4, 0.6, 0.5, 1.2, 0.05f64, 1e-3);
    let model = four_bar(a, b, m1, m2);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[theta0, -theta0, theta0], &[0.0; 3], &[]).unwrap();
    let e0 = s.energy().unwrap();
    let (mut crossings, mut gap, mut worst) = (Vec::new(), 0.0f64, 0.0f64);
    let mut before = s.qpos()[0];
    while s.time() < 6.0 {
        let t0 = s.time();
        s.step().unwrap();
        let q = s.qpos().to_vec();
        // The right rod's top: the loop's closure.
        let top = [
            a * q[0].sin() + b * (q[0] + q[1]).cos() - a * (q[0] + q[1] + q[2]).sin(),
            -a * q[0].cos() - b * (q[0] + q[1]).sin() + a * (q[0] + q[1] + q[2]).cos(),
        ];
        gap = gap.max(((top[0] - b).powi(2) + top[1].powi(2)).sqrt());
        worst = worst.max((s.energy().unwrap() - e0).abs());
        if before < 0.0 && q[0] >= 0.0 {
            crossings.push(t0 + h * before / (before - q[0]));
        }
        before = q[0];
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let inertia = 2.0 * m1 * a * a / 3.0 + m2 * a * a;
    let expected =
        2.0 * PI * (inertia / ((m1 + m2) * G * a)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    assert!(
        ((period - expected) / expected).abs() < 1e-3,
        "period {period} against {expected}"
    );
    assert!(gap < 1e-9, "the loop opens by {gap:e}");
    // Semi-implicit Euler's energy within O(h omega) of the swing's,
    // without drift (as a free pendulum's).
    let swing = (m1 + m2) * G * a * (1.0 - theta0.cos());
    let omega = 2.0 * PI / expected;
    assert!(
        worst < h * omega * swing,
        "energy off by {worst:e} of {swing:e}"
    );
    let last = (s.energy().unwrap() - e0).abs();
    assert!(last < 0.5 * h * omega * swing, "{last:e}");
}

#[test]
fn a_weld_makes_two_bodies_swing_as_one_compound_pendulum() {
    // A rod hinged about y (mass ma, centre la below the hinge, moment
    // ia) and a free body (mass mb, moment ib about y) welded la... lb
    // below the hinge: one rigid body of moment ia + ma la^2 + ib + mb
    // lb^2 about the hinge, T = 2 pi sqrt(I / (g (ma la + mb lb))) (1 +
    // theta0^2 / 16).
    let (ma, la, ia, mb, lb, ib, theta0, h) = (0.8, 0.3, 0.01, 1.5, 0.6, 0.02, 0.05f64, 1e-3);
    let rod = body(
        "rod",
        None,
        [0.0; 3],
        ma,
        [0.0, 0.0, -la],
        [ia; 3],
        vec![Joint::hinge("swing", [0.0, 1.0, 0.0], [0.0; 3])],
    );
    let weight = free("weight", mb, [ib; 3], [0.0, 0.0, -lb]);
    let mut model = articulated(vec![rod, weight], [0.0, 0.0, -G], Vec::new());
    model.equalities.push(Equality::Weld {
        bodies: [Some(0), Some(1)],
        relative: Pose {
            position: [0.0, 0.0, -lb],
            orientation: [1.0, 0.0, 0.0, 0.0],
        },
    });
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    let turned = |t: f64| {
        vec![
            t,
            -lb * t.sin(),
            0.0,
            -lb * t.cos(),
            (0.5 * t).cos(),
            0.0,
            (0.5 * t).sin(),
            0.0,
        ]
    };
    s.reset(&turned(theta0), &[0.0; 7], &[]).unwrap();
    let (mut crossings, mut apart) = (Vec::new(), 0.0f64);
    let mut before = s.qpos()[0];
    while s.time() < 6.0 {
        let t0 = s.time();
        s.step().unwrap();
        let q = s.qpos().to_vec();
        let want = turned(q[0]);
        // The weight's pose against the rod's: position, and the
        // quaternion up to its sign.
        let sign = if q[4] * want[4] + q[6] * want[6] < 0.0 {
            -1.0
        } else {
            1.0
        };
        for k in 1..8 {
            let x = if k >= 4 { sign * q[k] } else { q[k] };
            apart = apart.max((x - want[k]).abs());
        }
        if before < 0.0 && q[0] >= 0.0 {
            crossings.push(t0 + h * before / (before - q[0]));
        }
        before = q[0];
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let inertia = ia + ma * la * la + ib + mb * lb * lb;
    let expected =
        2.0 * PI * (inertia / (G * (ma * la + mb * lb))).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    assert!(
        ((period - expected) / expected).abs() < 1e-3,
        "period {period} against {expected}"
    );
    // Each step ends on the weld to first order: what is left is the
    // rotation's second-order term, 1/2 (h w)^2 lb at the fastest swing
    // w = theta0 2 pi / T, not accumulating (the leading term: 10 %
    // more for the amplitude's corrections).
    let w = theta0 * 2.0 * PI / expected;
    let bound = 1.1 * 0.5 * (h * w).powi(2) * lb;
    assert!(
        apart < bound,
        "the weld gives by {apart:e} (bound {bound:e})"
    );
}

#[test]
fn an_actuator_through_a_spatial_tendon_holds_a_weight_in_equilibrium() {
    // A block on a vertical slide, a string from it to a world site
    // (dx, 0, top) and a motor on the string with gear k: the force on
    // the slide is k u dL/dz, dL/dz = -(top - z) / L. The control u =
    // -m g L / (k top) holds the block at rest; twice that lifts it at
    // g from rest.
    let (m, dx, top, k, h) = (2.0, 0.3, 0.4, 5.0, 1e-3);
    let b = body(
        "block",
        None,
        [0.0; 3],
        m,
        [0.0; 3],
        [0.01; 3],
        vec![Joint::slide("z", [0.0, 0.0, 1.0])],
    );
    let mut model = articulated(vec![b], [0.0, 0.0, -G], Vec::new());
    model.sites = vec![
        site("pulley", None, [dx, 0.0, top]),
        site("block", Some(0), [0.0; 3]),
    ];
    model.tendons = vec![spatial("string", vec![0, 1], None)];
    model.actuators.push(Actuator {
        transmission: Transmission::Tendon(0),
        ..motor(0, k)
    });
    let l = (dx * dx + top * top).sqrt();
    let hold = -m * G * l / (k * top);
    let mut s = TreeStepper::new(&model, settings(h)).unwrap();
    s.reset(&[0.0], &[0.0], &[hold]).unwrap();
    s.advance(1.0).unwrap();
    assert!(
        s.qpos()[0].abs() < 1e-12 && s.qvel()[0].abs() < 1e-12,
        "{:?}",
        s.qpos()
    );
    s.reset(&[0.0], &[0.0], &[2.0 * hold]).unwrap();
    s.step().unwrap();
    assert!((s.qvel()[0] - h * G).abs() < 1e-12, "{}", s.qvel()[0]);
}

#[test]
fn the_event_driven_method_refuses_equalities_and_tendon_limits_by_name() {
    let refused = |model: Articulated| {
        let (q, v) = (model.tree.qpos0().to_vec(), vec![0.0; model.tree.nv()]);
        let ctrl = vec![0.0; model.actuators.len()];
        ArticulatedMechanism::new(model, q, v, ctrl)
            .unwrap_err()
            .to_string()
    };
    let e = refused(four_bar(0.4, 0.6, 0.5, 1.2));
    assert!(e.contains("equality[0] (connect)"), "{e}");
    let e = refused(ball_on_a_string(0.2, 0.3));
    assert!(e.contains("tendon[string].range"), "{e}");
}

/// The event-driven method takes a contact-free instant's accelerations
/// from the tree's articulated-body recursion (linear in the dofs) instead
/// of forming and factoring `M` (cubic along a chain): they must be the
/// instant's `M^-1 Q`, on a tree with every joint kind (free, ball,
/// hinge, slide), armature, damping, springs and a motor, at a moving
/// state; and with a limit closed the instant is solved as before.
#[test]
fn the_articulated_body_accelerations_are_the_instants() {
    use zwang_model::{ContactState, Contacts, InstantWriter};
    let torso = body(
        "torso",
        None,
        [0.0, 0.0, 1.0],
        3.0,
        [0.01, -0.02, 0.03],
        [0.2, 0.3, 0.25],
        vec![Joint::free("root")],
    );
    let arm = body(
        "arm",
        Some(0),
        [0.1, 0.2, 0.0],
        1.2,
        [0.0, 0.0, -0.15],
        [0.02, 0.03, 0.01],
        vec![Joint::ball("shoulder", [0.0; 3]).with_armature(0.01)],
    );
    let hand = body(
        "hand",
        Some(1),
        [0.0, 0.0, -0.3],
        0.5,
        [0.05, 0.0, -0.05],
        [0.004, 0.005, 0.003],
        vec![
            Joint::hinge("wrist", [0.6, 0.8, 0.0], [0.0; 3]).with_armature(0.05),
            Joint::slide("reach", [0.0, 0.6, 0.8]),
        ],
    );
    let mut model = articulated(vec![torso, arm, hand], [0.0, 0.0, -G], Vec::new());
    model.joints[1].damping = 0.4;
    model.joints[2].damping = 0.2;
    model.joints[2].stiffness = 3.0;
    model.joints[3].stiffness = 5.0;
    model.joints[3].springref = 0.1;
    model.joints[2].range = Some([-1.0, 1.0]);
    model.actuators.push(motor(2, 2.0));
    let tree = &model.tree;
    let (nq, nv) = (tree.nq(), tree.nv());
    assert_eq!((nq, nv), (7 + 4 + 2, 6 + 3 + 2));
    let norm = |x: [f64; 4]| {
        let n = x.iter().map(|a| a * a).sum::<f64>().sqrt();
        x.map(|a| a / n)
    };
    let mut q = vec![0.2, -0.1, 1.3];
    q.extend(norm([0.9, 0.1, -0.2, 0.3]));
    q.extend(norm([0.8, -0.3, 0.4, 0.1]));
    q.extend([0.7, 0.05]);
    let v: Vec<f64> = (0..nv).map(|i| 0.3 * (1.0 + i as f64).sin()).collect();
    let mechanism = ArticulatedMechanism::new(model, q.clone(), v.clone(), vec![0.7]).unwrap();
    let open = vec![ContactState::OPEN; mechanism.contacts()];
    assert!(!open.is_empty(), "the wrist's limits are contacts");

    let (mut instant, _) = mechanism.build_instant(0.0, &q, &v, &open).unwrap();
    mechanism
        .update_instant(0.0, &q, &v, &open, &mut instant)
        .unwrap();
    let mut want = instant.force().to_vec();
    instant.mass_factor().unwrap().solve_in_place(&mut want);
    let mut got = vec![0.0; nv];
    mechanism
        .free_acceleration(0.0, &q, &v, &open, &mut got)
        .expect("contact-free: the recursion's answer")
        .unwrap();
    let scale = want.iter().fold(1.0f64, |m, a| m.max(a.abs()));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-12 * scale, "dof {i}: {g} against {w}");
    }

    let mut closed = open.clone();
    closed[0] = ContactState::STICK;
    assert!(mechanism
        .free_acceleration(0.0, &q, &v, &closed, &mut got)
        .is_none());
}
