//! Spatial models under the event-driven method (DOP853 on Gauss's
//! principle at each instant) against closed forms: a torque-free
//! symmetric body (its axis precesses about the angular momentum at
//! `|L| / I1`, its spin about the axis constant) and a torque-free
//! asymmetric one (the intermediate axis flips; energy and angular
//! momentum stay).

use zwang_model::spatial::rotation::{apply, cross, dot, matrix};
use zwang_model::spatial::{SpatialBody, SpatialKind, SpatialModel};
use zwang_motion::{simulate, NoObserver, Settings, Status};

fn body(inertia: [f64; 3], omega: [f64; 3]) -> SpatialModel {
    let mut b = SpatialBody::new(
        "body",
        SpatialKind::Rigid {
            mass: 2.0,
            inertia: Some([
                [inertia[0], 0.0, 0.0],
                [0.0, inertia[1], 0.0],
                [0.0, 0.0, inertia[2]],
            ]),
        },
    );
    b.angular_velocity = omega;
    b.velocity = [0.3, -0.2, 0.1];
    SpatialModel::new([0.0; 3], vec![b], vec![]).expect("a valid body")
}

/// The world angular velocity, the body's z axis and the angular momentum
/// (world) at the end of a run of `duration`.
fn run(model: &SpatialModel, duration: f64, inertia: [f64; 3]) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let o = simulate(model, duration, &Settings::default(), &mut NoObserver);
    assert_eq!(o.status, Status::Finished, "{:?}", o.reason);
    let s = model.body_state(0, &o.q, &o.v);
    let r = matrix(s.orientation);
    let body_omega = [0, 1, 2].map(|i| {
        r[0][i] * s.angular_velocity[0]
            + r[1][i] * s.angular_velocity[1]
            + r[2][i] * s.angular_velocity[2]
    });
    let l = apply(&r, [0, 1, 2].map(|i| inertia[i] * body_omega[i]));
    let axis = [r[0][2], r[1][2], r[2][2]];
    // The centre moves on a straight line.
    for (j, v0) in [0.3, -0.2, 0.1].into_iter().enumerate() {
        assert!(
            (s.position[j] - v0 * duration).abs() < 1e-12,
            "{:?}",
            s.position
        );
    }
    (s.angular_velocity, axis, l)
}

/// `x` turned by `angle` about the unit vector `k` (Rodrigues).
fn turn(x: [f64; 3], k: [f64; 3], angle: f64) -> [f64; 3] {
    let (c, s) = (angle.cos(), angle.sin());
    let kx = cross(k, x);
    let kd = dot(k, x);
    [0, 1, 2].map(|i| x[i] * c + kx[i] * s + k[i] * kd * (1.0 - c))
}

#[test]
fn a_symmetric_body_precesses_about_its_angular_momentum() {
    let inertia = [1.0, 1.0, 2.0];
    let omega = [1.0, 0.0, 5.0];
    let model = body(inertia, omega);
    let l0 = [
        inertia[0] * omega[0],
        inertia[1] * omega[1],
        inertia[2] * omega[2],
    ];
    let norm = dot(l0, l0).sqrt();
    let k = l0.map(|x| x / norm);
    for t in [0.5, 2.0, 7.3] {
        let (w, axis, l) = run(&model, t, inertia);
        for j in 0..3 {
            assert!((l[j] - l0[j]).abs() < 1e-9 * norm, "t {t}: L {l:?}");
        }
        // The axis turns about L at |L| / I1; the spin along it stays.
        let expected = turn([0.0, 0.0, 1.0], k, norm / inertia[0] * t);
        for j in 0..3 {
            assert!(
                (axis[j] - expected[j]).abs() < 1e-8,
                "t {t}: axis {axis:?} against {expected:?}"
            );
        }
        assert!(
            (dot(w, axis) - 5.0).abs() < 1e-9,
            "t {t}: spin {}",
            dot(w, axis)
        );
    }
}

#[test]
fn an_asymmetric_body_keeps_its_energy_and_momentum_through_flips() {
    // Spun about the intermediate axis with a small perturbation: the
    // axis flips over and back (Dzhanibekov's effect).
    let inertia = [1.0, 2.0, 3.0];
    let omega = [0.01, 4.0, 0.01];
    let model = body(inertia, omega);
    let l0 = [0, 1, 2].map(|i| inertia[i] * omega[i]);
    let e0: f64 = (0..3).map(|i| 0.5 * inertia[i] * omega[i] * omega[i]).sum();
    let (mut q, mut v) = (vec![0.0; 7], vec![0.0; 6]);
    model.initial_state(&mut q, &mut v);
    let spin = v[4];
    assert!(
        (spin.abs() - 4.0).abs() < 1e-12,
        "the intermediate axis is the principal frame's y"
    );
    let (mut flipped, duration) = (false, 12.0);
    for step in 1..=24 {
        let t = duration * step as f64 / 24.0;
        let (w, _, l) = run(&model, t, inertia);
        let o = simulate(&model, t, &Settings::default(), &mut NoObserver);
        let body_w = [o.v[3], o.v[4], o.v[5]];
        let e: f64 = (0..3)
            .map(|i| 0.5 * inertia[i] * body_w[i] * body_w[i])
            .sum();
        assert!((e - e0).abs() < 1e-9 * e0, "t {t}: energy {e} against {e0}");
        for j in 0..3 {
            assert!((l[j] - l0[j]).abs() < 1e-8, "t {t}: L {l:?}");
        }
        let _ = w;
        flipped |= body_w[1] * spin < -9.0;
    }
    assert!(flipped, "the intermediate axis never flipped");
}

/// A heavy symmetric top on a ball joint at its tip, started in steady
/// precession: tilt `theta`, spin `w3` along its axis, and the slow root
/// `Omega` of `I1 cos(theta) Omega^2 - I3 w3 Omega + m g l = 0` (`I1`
/// about the tip). It keeps its tilt and turns about the vertical at
/// `Omega`.
#[test]
fn a_top_on_a_ball_joint_precesses_steadily_at_the_exact_rate() {
    use zwang_model::spatial::{SpatialJoint, SpatialJointKind};
    let (m, l, g) = (1.0, 0.1, 9.81);
    let (i1_centre, i3, w3, theta) = (0.002, 0.004, 100.0, 0.3f64);
    let i1 = i1_centre + m * l * l;
    let (b, c) = (i3 * w3, i1 * theta.cos());
    let omega = (b - (b * b - 4.0 * c * m * g * l).sqrt()) / (2.0 * c);
    let axis = [theta.sin(), 0.0, theta.cos()];
    let w =
        [0, 1, 2].map(|k| (w3 - omega * theta.cos()) * axis[k] + if k == 2 { omega } else { 0.0 });
    let mut top = SpatialBody::new(
        "top",
        SpatialKind::Rigid {
            mass: m,
            inertia: Some([[i1_centre, 0.0, 0.0], [0.0, i1_centre, 0.0], [0.0, 0.0, i3]]),
        },
    );
    top.position = axis.map(|x| l * x);
    top.orientation = [(0.5 * theta).cos(), 0.0, (0.5 * theta).sin(), 0.0];
    top.angular_velocity = w;
    top.velocity = cross(w, top.position);
    let joint = SpatialJoint {
        kind: SpatialJointKind::Ball,
        bodies: [None, Some(0)],
        anchors: [[0.0; 3], [0.0, 0.0, -l]],
    };
    let model = SpatialModel::new([0.0, 0.0, -g], vec![top], vec![])
        .and_then(|m| m.with_joints(vec![joint]))
        .expect("a valid top");
    for t in [0.5, 2.0] {
        let o = simulate(&model, t, &Settings::default(), &mut NoObserver);
        assert_eq!(o.status, Status::Finished, "{:?}", o.reason);
        let s = model.body_state(0, &o.q, &o.v);
        let r = matrix(s.orientation);
        let now = [r[0][2], r[1][2], r[2][2]];
        assert!(
            (now[2] - theta.cos()).abs() < 1e-8,
            "t {t}: tilt {}",
            now[2].acos()
        );
        let turned = now[1].atan2(now[0]);
        let expected = (omega * t + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
            - std::f64::consts::PI;
        assert!(
            (turned - expected).abs() < 1e-7,
            "t {t}: turned {turned} against {expected}"
        );
        // The tip stays at the pivot; the spin along the axis stays.
        for k in 0..3 {
            assert!(
                (s.position[k] - l * now[k]).abs() < 1e-9,
                "t {t}: {:?}",
                s.position
            );
        }
        assert!((dot(s.angular_velocity, now) - w3).abs() < 1e-8);
    }
}
