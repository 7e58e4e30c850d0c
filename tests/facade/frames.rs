//! Moving frames against the seed paper's equations and against the same
//! system simulated in the fixed frame.
//!
//! - Zhang and Xia, "Gauss principle of least compulsion for relative
//!   motion dynamics and differential equations of motion", 2024:
//!   example 1 (a pendulum on a block in circular translation, eq 70) and
//!   example 2 (a rod on a turning axis, in-plane angular velocity, eq 91),
//!   at hundreds of random states: the engine's instant solved by the QP
//!   backend against the closed forms.
//! - Both ways: a free system simulated in a turning, accelerating frame
//!   and in the fixed frame from the transformed initial state; each
//!   trajectory mapped onto the other with the closed-form placement of
//!   the frame.
//! - A particle at absolute rest seen from a turning frame: a circle
//!   backwards.

use crate::motion_support;

use motion_support::{run, run_model, samples, scene};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::{FRAC_PI_2, PI};
use zwang::model::planar::{
    Body, BodyRef, Force, Frame, FrameMotion, Joint, JointKind, PlanarModel, Sinusoid,
};
use zwang::model::InstantWriter;
use zwang::motion::{Settings, Status};
use zwang::qp::{AutoBackend, Backend, Status as QpStatus};

const G: f64 = 9.81;

/// The angular acceleration of body 0 (its third coordinate) that the
/// engine gives at `(t, q, v)`: the instant built by the model, solved by
/// the default QP backend.
fn engine_alpha(model: &PlanarModel, t: f64, q: &[f64], v: &[f64]) -> f64 {
    let (instant, _) = model.build_instant(t, q, v, &[]).unwrap();
    let answer = AutoBackend::new().solve(&instant);
    assert_eq!(answer.status, QpStatus::Solved);
    answer.acceleration[2]
}

// Example 1: the pendulum on a block (eq 70).
//
// The paper measures both angles from the downward vertical: the
// pendulum's phi, and the block's theta, its position on the circle of
// radius l0 being l0 (sin theta, -cos theta) from the circle's centre.
// In the model the pendulum is body 0, pinned at the frame's origin O by
// its point (0, R): its angle is phi and its centre is
// R (sin phi, -cos phi). The frame only translates (omega = 0), with
// a_O = l0 (theta'' (cos theta, sin theta) - theta'^2 (sin theta, -cos theta)).
// The shipped scene has theta = W t + pi/2, so a_O = -l0 W^2 (cos W t,
// sin W t): a sinusoid of frequency W / (2 pi) with phase pi/2 on x.

const M1: f64 = 2.0;
const R1: f64 = 0.4;
const RHO1: f64 = 0.15;
const L0: f64 = 0.25;
const W1: f64 = 3.0;

/// phi'' from eq 70.
fn eq70(phi: f64, theta: f64, theta_d: f64, theta_dd: f64) -> (f64, f64) {
    let terms = [
        L0 * R1 * theta_d * theta_d * (phi - theta).sin(),
        L0 * R1 * theta_dd * (phi - theta).cos(),
        G * R1 * phi.sin(),
    ];
    let j = RHO1 * RHO1 + R1 * R1;
    let scale: f64 = terms.iter().map(|x| x.abs()).sum::<f64>() / j;
    (-terms.iter().sum::<f64>() / j, scale)
}

/// The pendulum's state at `(phi, phi')`.
fn pendulum_state(phi: f64, phi_d: f64) -> ([f64; 3], [f64; 3]) {
    let (s, c) = phi.sin_cos();
    (
        [R1 * s, -R1 * c, phi],
        [R1 * c * phi_d, R1 * s * phi_d, phi_d],
    )
}

/// The pendulum in a frame, from Rust.
fn pendulum_in(frame: Frame) -> PlanarModel {
    let body = Body::rigid("pendulum", M1, M1 * RHO1 * RHO1);
    let pin = Joint {
        kind: JointKind::Pin,
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0, 0.0], [0.0, R1]],
    };
    PlanarModel::new([0.0, -G], vec![body], vec![pin], vec![], vec![])
        .unwrap()
        .in_frame(frame)
        .unwrap()
}

#[test]
fn pendulum_on_block_matches_eq_70() {
    // The shipped scene is the model of the test.
    let s = scene("pendulum_on_block");
    let from_scene = s.model().unwrap();
    let sinusoid = Frame::Sinusoid {
        acceleration: Sinusoid {
            offset: [0.0; 3],
            amplitude: [-L0 * W1 * W1, -L0 * W1 * W1, 0.0],
            frequency: [W1 / (2.0 * PI); 3],
            phase: [FRAC_PI_2, 0.0, 0.0],
        },
        angular_velocity: Sinusoid::default(),
    };
    assert_eq!(s.frame.as_ref(), Some(&sinusoid));
    assert_eq!(s.gravity, [0.0, -G]);
    let body = &s.bodies[0];
    assert_eq!((body.mass, body.inertia), (M1, M1 * RHO1 * RHO1));
    assert_eq!(s.joints, pendulum_in(sinusoid.clone()).joint_list());
    let (q0, _) = pendulum_state(0.3, 0.0);
    assert!((body.position[0] - q0[0]).abs() < 1e-16 && (body.position[1] - q0[1]).abs() < 1e-16);

    let mut rng = ChaCha8Rng::seed_from_u64(70);
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let (phi, phi_d, t) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-4.0..4.0),
            rng.gen_range(0.0..10.0),
        );
        let (q, v) = pendulum_state(phi, phi_d);
        let (reference, scale) = eq70(phi, W1 * t + FRAC_PI_2, W1, 0.0);
        let got = engine_alpha(&from_scene, t, &q, &v);
        worst = worst.max((got - reference).abs() / scale.max(reference.abs()));
    }
    println!("eq 70, uniform circular translation: largest relative deviation {worst:e}");
    assert!(worst < 1e-10, "{worst:e}");
}

/// Over time: the shipped scene, run at tight tolerances, against an RK4
/// integration of eq 70 (theta = W t + pi/2).
#[test]
fn pendulum_on_block_motion_follows_eq_70() {
    let s = scene("pendulum_on_block");
    let mut settings = Settings {
        output_every: 0.5,
        ..Settings::default()
    };
    settings.ode.rtol = 1e-12;
    settings.ode.atol = 1e-14;
    let r = run_model(s.model().unwrap(), s.duration, &settings);
    assert_eq!(r.outcome.status, Status::Finished);
    let f = |y: &[f64]| {
        let (alpha, _) = eq70(y[0], W1 * y[2] + FRAC_PI_2, W1, 0.0);
        vec![y[1], alpha, 1.0]
    };
    let mut worst = 0.0f64;
    for row in samples(&r.rows) {
        let y = motion_support::rk4(&f, &[0.3, 0.0, 0.0], row.t, (row.t * 4000.0) as usize + 1);
        worst = worst.max((row.q[2] - y[0]).abs().max((row.v[2] - y[1]).abs()));
    }
    println!("eq 70 over 10 s: largest deviation {worst:e} rad (rad/s)");
    assert!(worst < 1e-8, "{worst:e}");
}

/// The theta'' term of eq 70: a block whose rate varies,
/// theta(t) = 0.4 + W t + 0.3 sin(1.7 t), as a closure frame.
#[test]
fn pendulum_on_unevenly_moving_block_matches_eq_70() {
    let theta = |t: f64| {
        (
            0.4 + W1 * t + 0.3 * (1.7 * t).sin(),
            W1 + 0.3 * 1.7 * (1.7 * t).cos(),
            -0.3 * 1.7 * 1.7 * (1.7 * t).sin(),
        )
    };
    let model = pendulum_in(Frame::custom(move |t| {
        let (th, th_d, th_dd) = theta(t);
        let (s, c) = th.sin_cos();
        FrameMotion {
            a_o: [
                L0 * (th_dd * c - th_d * th_d * s),
                L0 * (th_dd * s + th_d * th_d * c),
                0.0,
            ],
            ..FrameMotion::default()
        }
    }));
    let mut rng = ChaCha8Rng::seed_from_u64(71);
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let (phi, phi_d, t) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-4.0..4.0),
            rng.gen_range(0.0..10.0),
        );
        let (q, v) = pendulum_state(phi, phi_d);
        let (th, th_d, th_dd) = theta(t);
        let (reference, scale) = eq70(phi, th, th_d, th_dd);
        let got = engine_alpha(&model, t, &q, &v);
        worst = worst.max((got - reference).abs() / scale.max(reference.abs()));
    }
    println!("eq 70, uneven block: largest relative deviation {worst:e}");
    assert!(worst < 1e-10, "{worst:e}");
}

// Example 2: the rod on the turning axis (eq 91).
//
// The frame: x along the turning horizontal axis Ox, y up the vertical
// axis Oz, omega = (0, omega, 0) (in the plane of motion). theta is the
// angle of AB from the vertical, A = (0, l cos theta) on the vertical
// axis, B = (l sin theta, 0) on the horizontal one; the rod's body x axis
// runs from A to B, so its angle is theta - pi/2 and its angular
// acceleration is theta''.

const M2: f64 = 1.5;
const L2: f64 = 1.2;
const K2: f64 = 4.0;
const W2: f64 = 3.0;

#[test]
fn rod_on_turning_axis_matches_eq_91() {
    let s = scene("rod_on_turning_axis");
    let model = s.model().unwrap();
    assert_eq!(
        s.frame,
        Some(Frame::Constant {
            acceleration: [0.0; 3],
            angular_velocity: [0.0, W2, 0.0],
        })
    );
    let rod = &s.bodies[0];
    // m l^2 / 12, written to 16 digits in the file.
    let i = rod.inertia;
    assert!(rod.mass == M2 && (i - M2 * L2 * L2 / 12.0).abs() < 1e-16);
    assert_eq!(rod.inertia_tensor, Some([0.0, i, 0.0]));
    assert_eq!(s.gravity, [0.0, -G]);
    let (a, b) = ([-L2 / 2.0, 0.0], [L2 / 2.0, 0.0]);
    let slot = |anchor, axis| Joint {
        kind: JointKind::Slot { axis },
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0, 0.0], anchor],
    };
    assert_eq!(s.joints, [slot(a, [0.0, 1.0]), slot(b, [1.0, 0.0])]);
    assert_eq!(
        s.forces,
        [Force::Spring {
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[0.0, 0.0], b],
            stiffness: K2,
            rest_length: 0.0,
        }]
    );

    let mut rng = ChaCha8Rng::seed_from_u64(91);
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let (th, th_d) = (rng.gen_range(-PI..PI), rng.gen_range(-5.0..5.0));
        let (s, c) = th.sin_cos();
        let h = L2 / 2.0;
        let q = [h * s, h * c, th - FRAC_PI_2];
        let v = [h * c * th_d, -h * s * th_d, th_d];
        let terms = [(W2 * W2 - 3.0 * K2 / M2) * s * c, 3.0 * G / (2.0 * L2) * s];
        let reference: f64 = terms.iter().sum();
        let scale = terms.iter().map(|x| x.abs()).sum::<f64>();
        let got = engine_alpha(&model, 0.0, &q, &v);
        worst = worst.max((got - reference).abs() / scale.max(reference.abs()));
    }
    println!("eq 91: largest relative deviation {worst:e}");
    assert!(worst < 1e-10, "{worst:e}");
}

/// The rod's scene conserves the relative Jacobi integral (the reported
/// energy) of a uniformly turning frame.
#[test]
fn rod_on_turning_axis_keeps_its_jacobi_integral() {
    let r = run(&scene("rod_on_turning_axis"));
    assert_eq!(r.outcome.status, Status::Finished);
    let e0 = r.outcome.energy_initial;
    let worst = samples(&r.rows).fold(0.0f64, |m, row| m.max((row.energy - e0).abs()));
    println!("Jacobi integral {e0} J, largest change {worst:e} J");
    assert!(worst < 1e-8 * e0.abs(), "{worst:e}");
    // And it is not the plain relative energy: the centrifugal part moves.
    assert!(r.rows.iter().any(|row| {
        let x_b = row.q[0] + L2 / 2.0 * row.q[2].cos();
        let h = 0.5 * M2 * (row.v[0].powi(2) + row.v[1].powi(2))
            + 0.5 * M2 * L2 * L2 / 12.0 * row.v[2].powi(2)
            + M2 * G * row.q[1]
            + 0.5 * K2 * x_b * x_b;
        (h - e0).abs() > 0.1
    }));
}

// Both ways: relative and absolute motion of a free system.

const W3: f64 = 0.7;
const A3: [f64; 2] = [0.3, -0.2];

/// A rigid body and two particles, a distance joint and a spring, no
/// gravity, nothing fixed.
fn free_system(frame: Option<Frame>, bodies: Vec<Body>) -> PlanarModel {
    let bb = BodyRef::Body;
    let joints = vec![Joint {
        kind: JointKind::Distance { length: 0.9 },
        bodies: [bb(0), bb(1)],
        anchors: [[0.4, 0.1], [0.0, 0.0]],
    }];
    let forces = vec![Force::Spring {
        bodies: [bb(0), bb(2)],
        anchors: [[-0.3, 0.2], [0.0, 0.0]],
        stiffness: 6.0,
        rest_length: 0.5,
    }];
    let m = PlanarModel::new([0.0, 0.0], bodies, joints, vec![], forces).unwrap();
    match frame {
        Some(f) => m.in_frame(f).unwrap(),
        None => m,
    }
}

/// `v` turned by `angle`.
fn rot(v: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

/// The frame's placement in the fixed frame at `t`: it turns by `W3 t`,
/// and its origin (at rest at the fixed origin at `t = 0`) accelerates
/// with `R(t) A3` (A3 is given in the turning axes). With
/// `R(s) = exp(J W3 s)`, `J` the quarter turn:
/// `v_O(t) = -J (R(t) - 1) A3 / W3`,
/// `r_O(t) = (1 - R(t)) A3 / W3^2 + J A3 t / W3`.
fn origin(t: f64) -> ([f64; 2], [f64; 2]) {
    let ra = rot(A3, W3 * t);
    let j = |v: [f64; 2]| [-v[1], v[0]];
    let d = [ra[0] - A3[0], ra[1] - A3[1]];
    let jd = j(d);
    let ja = j(A3);
    (
        [
            -d[0] / (W3 * W3) + ja[0] * t / W3,
            -d[1] / (W3 * W3) + ja[1] * t / W3,
        ],
        [-jd[0] / W3, -jd[1] / W3],
    )
}

#[test]
fn frame_placement_integrates_its_acceleration() {
    // The closed form against a fine RK4 of r_O'' = R(t) A3.
    let f = |y: &[f64]| {
        let a = rot(A3, W3 * y[4]);
        vec![y[2], y[3], a[0], a[1], 1.0]
    };
    let y = motion_support::rk4(&f, &[0.0; 5], 3.0, 3000);
    let (r, v) = origin(3.0);
    let err = motion_support::max_diff(&y[..4], &[r[0], r[1], v[0], v[1]]);
    println!("frame placement against RK4: {err:e}");
    assert!(err < 1e-13, "{err:e}");
}

#[test]
fn relative_and_absolute_motions_agree_both_ways() {
    let mut relative_bodies = vec![
        Body::rigid("plate", 2.0, 0.15)
            .at([0.2, -0.1])
            .turned(0.3)
            .moving([0.4, -0.3])
            .spinning(0.8),
        Body::particle("p", 0.6),
        Body::particle("q", 0.4).at([-0.8, 0.6]).moving([-0.2, 0.1]),
    ];
    // The distance joint holds: p at the joint's length from the plate's
    // anchor, moving across the rod relative to it.
    {
        let plate = relative_bodies[0].clone();
        let u = rot([0.4, 0.1], plate.angle);
        let anchor = [plate.position[0] + u[0], plate.position[1] + u[1]];
        let dir = rot([1.0, 0.0], 1.2);
        relative_bodies[1].position = [anchor[0] + 0.9 * dir[0], anchor[1] + 0.9 * dir[1]];
        let va = [
            plate.velocity[0] - plate.angular_velocity * u[1],
            plate.velocity[1] + plate.angular_velocity * u[0],
        ];
        // Relative velocity across the rod only.
        let across = [-dir[1], dir[0]];
        relative_bodies[1].velocity = [va[0] + 0.7 * across[0], va[1] + 0.7 * across[1]];
    }
    // The same bodies seen from the fixed frame at t = 0 (the frames
    // coincide then, the turning one moves with v_O(0) = 0 and turns at W3).
    let absolute_bodies: Vec<Body> = relative_bodies
        .iter()
        .map(|b| {
            let mut a = b.clone();
            a.velocity = [
                b.velocity[0] - W3 * b.position[1],
                b.velocity[1] + W3 * b.position[0],
            ];
            if b.is_rigid() {
                a.angular_velocity = b.angular_velocity + W3;
            }
            a
        })
        .collect();
    let frame = Frame::Constant {
        acceleration: [A3[0], A3[1], 0.0],
        angular_velocity: [0.0, 0.0, W3],
    };
    let relative = free_system(Some(frame), relative_bodies);
    let absolute = free_system(None, absolute_bodies);
    let mut settings = Settings {
        output_every: 0.05,
        ..Settings::default()
    };
    settings.ode.rtol = 1e-12;
    settings.ode.atol = 1e-14;
    let duration = 4.0;
    let rel = run_model(relative, duration, &settings);
    let abs = run_model(absolute, duration, &settings);
    assert_eq!(rel.outcome.status, Status::Finished);
    assert_eq!(abs.outcome.status, Status::Finished);
    let (rs, abs_rows): (Vec<_>, Vec<_>) =
        (samples(&rel.rows).collect(), samples(&abs.rows).collect());
    assert_eq!(rs.len(), abs_rows.len());
    assert!(rs.len() > 80);
    let offsets = [(0, true), (3, false), (5, false)];
    let (mut to_abs, mut to_rel, mut angle, mut speed) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (r, a) in rs.iter().zip(&abs_rows) {
        assert_eq!(r.t, a.t);
        let t = r.t;
        let (ro, vo) = origin(t);
        for &(o, rigid) in &offsets {
            // Relative -> absolute.
            let p = rot([r.q[o], r.q[o + 1]], W3 * t);
            let predicted = [ro[0] + p[0], ro[1] + p[1]];
            to_abs = to_abs.max(motion_support::max_diff(&predicted, &a.q[o..o + 2]));
            // v = v_O + R (v_rel + omega perp(r_rel)).
            let w = rot([r.v[o] - W3 * r.q[o + 1], r.v[o + 1] + W3 * r.q[o]], W3 * t);
            let predicted_v = [vo[0] + w[0], vo[1] + w[1]];
            speed = speed.max(motion_support::max_diff(&predicted_v, &a.v[o..o + 2]));
            // Absolute -> relative.
            let back = rot([a.q[o] - ro[0], a.q[o + 1] - ro[1]], -W3 * t);
            to_rel = to_rel.max(motion_support::max_diff(&back, &r.q[o..o + 2]));
            if rigid {
                angle = angle.max((r.q[o + 2] + W3 * t - a.q[o + 2]).abs());
                angle = angle.max((r.v[o + 2] + W3 - a.v[o + 2]).abs());
            }
        }
    }
    println!(
        "relative -> absolute {to_abs:e} m, absolute -> relative {to_rel:e} m, \
         angles {angle:e} rad (rad/s), velocities {speed:e} m/s"
    );
    assert!(to_abs < 1e-8 && to_rel < 1e-8, "{to_abs:e} {to_rel:e}");
    assert!(angle < 1e-8 && speed < 1e-8, "{angle:e} {speed:e}");
    // The frame's forces did something: the relative path is not the
    // absolute one.
    let last = (rs.last().unwrap(), abs_rows.last().unwrap());
    assert!(motion_support::max_diff(&last.0.q, &last.1.q) > 0.5);
}

/// A particle at rest in the fixed frame, seen from a frame turning at
/// `w` about z: `r(t) = R(-w t) r0`, a circle run backwards.
#[test]
fn particle_at_absolute_rest_circles_backwards() {
    let (w, r0) = (1.3, [0.8, -0.5]);
    let p = Body::particle("p", 0.7)
        .at(r0)
        .moving([w * r0[1], -w * r0[0]]);
    let frame = Frame::Constant {
        acceleration: [0.0; 3],
        angular_velocity: [0.0, 0.0, w],
    };
    let model = PlanarModel::new([0.0, 0.0], vec![p], vec![], vec![], vec![])
        .unwrap()
        .in_frame(frame)
        .unwrap();
    let mut settings = Settings {
        output_every: 0.05,
        ..Settings::default()
    };
    settings.ode.rtol = 1e-12;
    settings.ode.atol = 1e-14;
    let r = run_model(model, 2.0 * PI / w, &settings);
    assert_eq!(r.outcome.status, Status::Finished);
    let mut worst = 0.0f64;
    for row in samples(&r.rows) {
        let expected = rot(r0, -w * row.t);
        worst = worst.max(motion_support::max_diff(&row.q, &expected));
    }
    println!("circle backwards: largest deviation {worst:e} m");
    assert!(worst < 1e-8, "{worst:e}");
    // A quarter period in, it is a quarter turn clockwise.
    let quarter = samples(&r.rows)
        .find(|row| (row.t - PI / (2.0 * w)).abs() < 0.03)
        .unwrap();
    let expected = rot(r0, -w * quarter.t);
    assert!(motion_support::max_diff(&quarter.q, &expected) < 1e-8);
}
