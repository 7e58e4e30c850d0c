//! Spatial models under the event-driven method (DOP853 on Gauss's
//! principle at each instant) against closed forms: a torque-free
//! symmetric body (its axis precesses about the angular momentum at
//! `|L| / I1`, its spin about the axis constant), a torque-free
//! asymmetric one (the intermediate axis flips; energy and angular
//! momentum stay), and joints held at acceleration level (`J a = -J' v`):
//! a top on a ball joint, a plate on a hinge (the physical pendulum's
//! period), a block on an inclined slider (`g sin theta`), a bob on a
//! distance joint, a welded pair tumbling as one body, and spinning bodies
//! on hinges (a fixed skew axis, a gyroscope's rotor in its housing).

use std::f64::consts::PI;

use zwang_model::spatial::rotation::{
    apply, apply_transpose, conjugate, cross, dot, matrix, mul, normalized,
};
use zwang_model::spatial::{
    SpatialBody, SpatialForce, SpatialJointKind, SpatialKind, SpatialModel,
};
use zwang_motion::{simulate, NoObserver, Outcome, Settings, Status};

use crate::common::{joint, rigid};

const G: f64 = 9.81;

fn body(inertia: [f64; 3], omega: [f64; 3]) -> SpatialModel {
    let mut b = rigid("body", 2.0, inertia, [0.0; 3]);
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
    let (m, l, g) = (1.0, 0.1, 9.81);
    let (i1_centre, i3, w3, theta) = (0.002, 0.004, 100.0, 0.3f64);
    let i1 = i1_centre + m * l * l;
    let (b, c) = (i3 * w3, i1 * theta.cos());
    let omega = (b - (b * b - 4.0 * c * m * g * l).sqrt()) / (2.0 * c);
    let axis = [theta.sin(), 0.0, theta.cos()];
    let w =
        [0, 1, 2].map(|k| (w3 - omega * theta.cos()) * axis[k] + if k == 2 { omega } else { 0.0 });
    let mut top = rigid("top", m, [i1_centre, i1_centre, i3], axis.map(|x| l * x));
    top.orientation = [(0.5 * theta).cos(), 0.0, (0.5 * theta).sin(), 0.0];
    top.angular_velocity = w;
    top.velocity = cross(w, top.position);
    let ball = joint(
        SpatialJointKind::Ball,
        [None, Some(0)],
        [[0.0; 3], [0.0, 0.0, -l]],
    );
    let model = SpatialModel::new([0.0, 0.0, -g], vec![top], vec![])
        .and_then(|m| m.with_joints(vec![ball]))
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
        let expected = (omega * t + PI).rem_euclid(2.0 * PI) - PI;
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

/// Runs `model` to `t` by the event-driven method; it must finish with
/// its joints held by their rows (`J a = -J' v`), not by the projection:
/// within 1e-9 at every step's end.
fn finish(model: &SpatialModel, t: f64) -> Outcome {
    let o = simulate(model, t, &Settings::default(), &mut NoObserver);
    assert_eq!(o.status, Status::Finished, "{:?}", o.reason);
    assert!(
        o.max_constraint_drift < 1e-9,
        "t {t}: drift {:e}",
        o.max_constraint_drift
    );
    o
}

/// `q` normalised, as the model takes orientations.
fn unit(q: [f64; 4]) -> [f64; 4] {
    normalized(q).expect("a nonzero quaternion")
}

/// The model's initial `(q, v)`.
fn start(model: &SpatialModel) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    model.initial_state(&mut q, &mut v);
    (q, v)
}

fn norm(x: [f64; 3]) -> f64 {
    dot(x, x).sqrt()
}

fn minus(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] - b[k])
}

/// The angular momentum about `about` (world) of the moving bodies
/// (`masses` and principal `moments` along their body axes, in order).
fn momentum(
    model: &SpatialModel,
    (q, v): (&[f64], &[f64]),
    masses: &[f64],
    moments: &[[f64; 3]],
    about: [f64; 3],
) -> [f64; 3] {
    let mut l = [0.0; 3];
    for (b, (m, i)) in masses.iter().zip(moments).enumerate() {
        let s = model.body_state(b, q, v);
        let r = matrix(s.orientation);
        let local = apply_transpose(&r, s.angular_velocity);
        let spin = apply(&r, [0, 1, 2].map(|k| i[k] * local[k]));
        let orbit = cross(minus(s.position, about), s.velocity).map(|x| m * x);
        for k in 0..3 {
            l[k] += spin[k] + orbit[k];
        }
    }
    l
}

/// A plate (3 kg; a = 0.4 wide in x, b = 0.6 tall in z, thin in y) hung
/// by a hinge along y at the middle of its top edge, let go at 0.05 rad,
/// with a force along y and a torque about x and z that the hinge takes:
/// it swings in its plane at the physical pendulum's period `2 pi sqrt(I_p
/// / (m g d)) (1 + t0^2 / 16)` (the next term, `11 t0^4 / 3072`, is 2e-8),
/// `I_p = m (a^2 + b^2) / 12 + m d^2`, `d = b / 2`.
#[test]
fn a_plate_on_a_hinge_swings_at_the_physical_pendulums_period() {
    let (m, a, b, theta0) = (3.0, 0.4, 0.6, 0.05f64);
    let d = b / 2.0;
    let iy = m * (a * a + b * b) / 12.0;
    let rate2 = m * G * d / (iy + m * d * d);
    let period = 2.0 * PI / rate2.sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let centre = [d * theta0.sin(), 0.0, -d * theta0.cos()];
    let mut plate = rigid("plate", m, [m * b * b / 12.0, iy, m * a * a / 12.0], centre);
    plate.orientation = [(theta0 / 2.0).cos(), 0.0, -(theta0 / 2.0).sin(), 0.0];
    let forces = vec![SpatialForce {
        body: 0,
        force: [0.0, 2.0, 0.0],
        torque: [0.7, 0.0, -0.4],
    }];
    let hinge = SpatialJointKind::Hinge {
        axis: [0.0, 1.0, 0.0],
    };
    let model = SpatialModel::new([0.0, 0.0, -G], vec![plate], forces)
        .and_then(|m| {
            m.with_joints(vec![joint(
                hinge,
                [None, Some(0)],
                [[0.0; 3], [0.0, 0.0, d]],
            )])
        })
        .expect("a valid plate");
    let swings = 5.0;
    let o = finish(&model, swings * period);
    let s = model.body_state(0, &o.q, &o.v);
    // Back where it was let go: its angle's rate there, over theta'' =
    // -rate2 sin(t0), is how late it comes back (over five swings).
    let theta = s.position[0].atan2(-s.position[2]);
    let speed = (s.velocity[0] * theta.cos() + s.velocity[2] * theta.sin()) / d;
    let late = speed / (rate2 * theta0.sin()) / swings;
    let y = apply(&matrix(s.orientation), [0.0, 1.0, 0.0]);
    let off = [
        s.position[1],
        1.0 - y[1],
        s.angular_velocity[0],
        s.angular_velocity[2],
        norm(s.position) - d,
    ]
    .iter()
    .fold(0.0f64, |w, x| w.max(x.abs()));
    println!(
        "hinge: period {} against {period} ({:e}), angle {theta} against {theta0}, off the plane {off:e}, drift {:e}",
        period + late,
        late / period,
        o.max_constraint_drift
    );
    assert!((late / period).abs() < 1e-6, "{:e}", late / period);
    assert!((theta - theta0).abs() < 1e-6 * theta0, "{theta}");
    assert!(off < 1e-9, "{off:e}");
}

/// A block on a slider to the ground whose axis is 25 degrees below the
/// horizontal (turned 0.7 rad about z), turned and pushed by a torque the
/// slider takes: `s(t) = g sin(25) t^2 / 2` along the axis exactly,
/// nothing across it, no turn.
#[test]
fn a_block_on_an_inclined_slider_accelerates_at_g_sin_theta() {
    let (theta, phi) = (25f64.to_radians(), 0.7f64);
    let axis = [
        theta.cos() * phi.cos(),
        theta.cos() * phi.sin(),
        -theta.sin(),
    ];
    let start = [0.2, -0.1, 0.4];
    let mut block = rigid("block", 2.0, [0.01, 0.02, 0.03], start);
    block.orientation = [0.9, 0.2, -0.3, 0.1];
    let forces = vec![SpatialForce {
        body: 0,
        force: [0.0; 3],
        torque: [0.3, -0.2, 0.5],
    }];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![block], forces)
        .and_then(|m| {
            m.with_joints(vec![joint(
                SpatialJointKind::Slider { axis },
                [None, Some(0)],
                [start, [0.0; 3]],
            )])
        })
        .expect("a valid slider");
    let turn0 = model.bodies()[0].orientation;
    let a = G * theta.sin();
    for t in [0.5, 1.0, 2.0] {
        let o = finish(&model, t);
        let s = model.body_state(0, &o.q, &o.v);
        let moved = minus(s.position, start);
        let (along, across) = (dot(moved, axis), norm(cross(moved, axis)));
        let speed = dot(s.velocity, axis);
        let turned = mul(conjugate(turn0), s.orientation);
        println!(
            "slider t {t}: s {along} against {} ({:e}), speed {speed} against {}, across {across:e}",
            a * t * t / 2.0,
            along - a * t * t / 2.0,
            a * t
        );
        assert!((along - a * t * t / 2.0).abs() < 1e-9, "{along}");
        assert!((speed - a * t).abs() < 1e-9, "{speed}");
        assert!(across < 1e-9 && norm(cross(s.velocity, axis)) < 1e-9);
        assert!(turned[0].abs() > 1.0 - 1e-12 && norm(s.angular_velocity) < 1e-9);
    }
}

/// A bob (a solid ball, 0.5 kg, radius 0.05 m) hung by a point of its
/// surface on a distance joint of 1 m from the ground, let go at 0.6 rad
/// with a sideways push: it swings in space and turns about that point;
/// its energy stays, the distance stays.
#[test]
fn a_bob_on_a_distance_joint_keeps_its_energy_and_distance() {
    let (m, r, l, theta0) = (0.5, 0.05, 1.0, 0.6f64);
    let i = 0.4 * m * r * r;
    let anchor = [l * theta0.sin(), 0.0, -l * theta0.cos()];
    let mut bob = rigid("bob", m, [i; 3], [anchor[0], anchor[1], anchor[2] - r]);
    bob.velocity = [0.0, 0.8, 0.0];
    bob.angular_velocity = [0.5, 0.0, 0.0];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![bob], vec![])
        .and_then(|model| {
            model.with_joints(vec![joint(
                SpatialJointKind::Distance { length: Some(l) },
                [None, Some(0)],
                [[0.0; 3], [0.0, 0.0, r]],
            )])
        })
        .expect("a valid bob");
    for t in [1.0, 3.7] {
        let o = finish(&model, t);
        let s = model.body_state(0, &o.q, &o.v);
        let top = apply(&matrix(s.orientation), [0.0, 0.0, r]);
        let distance = norm([0, 1, 2].map(|k| s.position[k] + top[k]));
        let energy = (o.energy_final - o.energy_initial) / (m * G * l);
        println!(
            "distance t {t}: energy {energy:e} of m g l, distance {:e}, drift {:e}, turning {:?}",
            distance - l,
            o.max_constraint_drift,
            s.angular_velocity
        );
        assert!(o.start_projection.is_none());
        assert!(energy.abs() < 1e-9, "{energy:e}");
        assert!((distance - l).abs() < 1e-9, "{distance}");
    }
}

/// Two bodies welded at a point between them, thrown tumbling under
/// gravity: one rigid body. Their relative pose stays, the centre of
/// mass falls on its parabola, and the angular momentum about it stays.
#[test]
fn a_welded_pair_tumbles_as_one_body() {
    let (m1, m2) = (1.0, 2.0);
    let (i1, i2) = ([0.01, 0.02, 0.03], [0.04, 0.02, 0.05]);
    let (x1, x2) = ([0.0; 3], [0.3, 0.1, -0.2]);
    let mut a = rigid("a", m1, i1, x1);
    let mut b = rigid("b", m2, i2, x2);
    b.orientation = [0.8, 0.1, 0.5, -0.3];
    let weld = [0.15, 0.05, -0.1];
    let omega = [1.0, -2.0, 3.0];
    a.angular_velocity = omega;
    b.angular_velocity = omega;
    a.velocity = [0.2, 0.0, 1.0];
    let carried = cross(omega, minus(x2, x1));
    b.velocity = [0, 1, 2].map(|k| a.velocity[k] + carried[k]);
    let qb = unit(b.orientation);
    let anchors = [
        minus(weld, x1),
        apply_transpose(&matrix(qb), minus(weld, x2)),
    ];
    let (v1, v2) = (a.velocity, b.velocity);
    let model = SpatialModel::new([0.0, 0.0, -G], vec![a, b], vec![])
        .and_then(|m| {
            m.with_joints(vec![joint(
                SpatialJointKind::Weld,
                [Some(0), Some(1)],
                anchors,
            )])
        })
        .expect("a valid pair");
    let total = m1 + m2;
    let c0 = [0, 1, 2].map(|k| (m1 * x1[k] + m2 * x2[k]) / total);
    let u0 = [0, 1, 2].map(|k| (m1 * v1[k] + m2 * v2[k]) / total);
    let (masses, moments) = ([m1, m2], [i1, i2]);
    let (q0, v0) = start(&model);
    let l0 = momentum(&model, (&q0, &v0), &masses, &moments, c0);
    let relative0 = mul(conjugate(model.bodies()[0].orientation), qb);
    for t in [0.7, 2.3] {
        let o = finish(&model, t);
        let (sa, sb) = (
            model.body_state(0, &o.q, &o.v),
            model.body_state(1, &o.q, &o.v),
        );
        let c: [f64; 3] = [0, 1, 2].map(|k| (m1 * sa.position[k] + m2 * sb.position[k]) / total);
        let fall =
            [0, 1, 2].map(|k| c0[k] + u0[k] * t - if k == 2 { 0.5 * G * t * t } else { 0.0 });
        let l = momentum(&model, (&o.q, &o.v), &masses, &moments, c);
        let relative = mul(conjugate(sa.orientation), sb.orientation);
        let twist = norm(cross(
            [relative[1], relative[2], relative[3]],
            [relative0[1], relative0[2], relative0[3]],
        )) + (relative[0].abs() - relative0[0].abs()).abs();
        let arm = apply_transpose(&matrix(sa.orientation), minus(sb.position, sa.position));
        let shift = norm(minus(arm, minus(x2, x1)));
        let dl = norm(minus(l, l0)) / norm(l0);
        println!(
            "weld t {t}: centre off {:e}, L off {dl:e}, twist {twist:e}, shift {shift:e}",
            norm(minus(c, fall))
        );
        assert!(norm(minus(c, fall)) < 1e-9);
        assert!(dl < 1e-9, "{l:?} against {l0:?}");
        assert!(twist < 1e-9 && shift < 1e-9);
    }
}

/// A body with a full inertia tensor spun on a hinge to the ground
/// through its centre, about an axis that is not principal: the hinge
/// takes the gyroscopic torque, the spin stays and the body turns by
/// `w t` about the axis; its energy stays.
#[test]
fn a_body_spun_on_a_skew_hinge_turns_at_its_spin() {
    let axis = [0.36, 0.48, 0.8];
    let w = 7.0;
    let mut wheel = SpatialBody::new(
        "wheel",
        SpatialKind::Rigid {
            mass: 1.5,
            inertia: Some([[0.3, 0.05, 0.0], [0.05, 0.2, 0.02], [0.0, 0.02, 0.4]]),
        },
    );
    wheel.position = [0.1, 0.2, 0.3];
    wheel.orientation = unit([0.9, 0.1, -0.3, 0.2]);
    wheel.angular_velocity = axis.map(|x| w * x);
    let hinge = SpatialJointKind::Hinge { axis };
    let model = SpatialModel::new([0.0, 0.0, -G], vec![wheel.clone()], vec![])
        .and_then(|m| {
            m.with_joints(vec![joint(
                hinge,
                [None, Some(0)],
                [wheel.position, [0.0; 3]],
            )])
        })
        .expect("a valid wheel");
    for t in [0.9, 2.0] {
        let o = finish(&model, t);
        let s = model.body_state(0, &o.q, &o.v);
        let half = 0.5 * w * t;
        let by = [
            half.cos(),
            half.sin() * axis[0],
            half.sin() * axis[1],
            half.sin() * axis[2],
        ];
        let expected = matrix(mul(by, wheel.orientation));
        let got = matrix(s.orientation);
        let off = (0..3)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .fold(0.0f64, |m, (i, j)| {
                m.max((got[i][j] - expected[i][j]).abs())
            });
        let spin = norm(minus(s.angular_velocity, axis.map(|x| w * x)));
        let energy = o.energy_final - o.energy_initial;
        println!(
            "skew hinge t {t}: turn off {off:e}, spin off {spin:e}, energy {energy:e}, drift {:e}",
            o.max_constraint_drift
        );
        assert!(off < 1e-8 && spin < 1e-8, "{off:e} {spin:e}");
        assert!(energy.abs() < 1e-8 * o.energy_initial.abs(), "{energy:e}");
        assert!(norm(minus(s.position, wheel.position)) < 1e-8);
    }
}

/// A gyroscope floating free: a housing tumbling, its symmetric rotor on
/// a hinge along the housing's z axis spinning at 60 rad/s relative to
/// it. The energy and the angular momentum stay, the rotor's spin along
/// its axis stays (the hinge exerts no torque about it), and the rotor's
/// axis stays the housing's.
#[test]
fn a_free_gyroscope_keeps_its_rotor_on_its_axis() {
    let (m1, m2) = (1.0, 0.5);
    let (i1, i2) = ([0.02, 0.03, 0.025], [0.004, 0.004, 0.008]);
    let turn = unit([0.9, 0.3, -0.2, 0.1]);
    let r = matrix(turn);
    let z = apply(&r, [0.0, 0.0, 1.0]);
    let mut housing = rigid("housing", m1, i1, [0.0; 3]);
    let mut rotor = rigid("rotor", m2, i2, z.map(|x| 0.1 * x));
    housing.orientation = turn;
    rotor.orientation = turn;
    let omega = [1.0, 0.5, -0.3];
    housing.angular_velocity = omega;
    rotor.angular_velocity = [0, 1, 2].map(|k| omega[k] + 60.0 * z[k]);
    rotor.velocity = cross(omega, rotor.position);
    let spin0 = dot(rotor.angular_velocity, z);
    let hinge = SpatialJointKind::Hinge {
        axis: [0.0, 0.0, 1.0],
    };
    let model = SpatialModel::new([0.0; 3], vec![housing, rotor], vec![])
        .and_then(|m| {
            m.with_joints(vec![joint(
                hinge,
                [Some(0), Some(1)],
                [[0.0, 0.0, 0.1], [0.0; 3]],
            )])
        })
        .expect("a valid gyroscope");
    let (masses, moments) = ([m1, m2], [i1, i2]);
    let (q0, v0) = start(&model);
    let l0 = momentum(&model, (&q0, &v0), &masses, &moments, [0.0; 3]);
    for t in [1.0, 3.0] {
        let o = finish(&model, t);
        let (sa, sb) = (
            model.body_state(0, &o.q, &o.v),
            model.body_state(1, &o.q, &o.v),
        );
        let (za, zb) = (
            apply(&matrix(sa.orientation), [0.0, 0.0, 1.0]),
            apply(&matrix(sb.orientation), [0.0, 0.0, 1.0]),
        );
        let tilt = norm(cross(za, zb));
        let pivot = apply(&matrix(sa.orientation), [0.0, 0.0, 0.1]);
        let gap = norm(minus(
            [0, 1, 2].map(|k| sa.position[k] + pivot[k]),
            sb.position,
        ));
        let dl = norm(minus(
            momentum(&model, (&o.q, &o.v), &masses, &moments, [0.0; 3]),
            l0,
        )) / norm(l0);
        let energy = (o.energy_final - o.energy_initial) / o.energy_initial;
        let spin = dot(sb.angular_velocity, zb) - spin0;
        println!(
            "gyroscope t {t}: energy {energy:e}, L {dl:e}, spin {spin:e}, tilt {tilt:e}, gap {gap:e}, drift {:e}",
            o.max_constraint_drift
        );
        assert!(energy.abs() < 1e-8 && dl < 1e-8, "{energy:e} {dl:e}");
        assert!(spin.abs() < 1e-8 * spin0, "{spin:e}");
        assert!(tilt < 1e-8 && gap < 1e-8, "{tilt:e} {gap:e}");
    }
}

/// A bead on a slider along a rod tumbling free (no gravity): the bead
/// flies outwards along the turning rod. The energy and the angular
/// momentum stay, the bead stays on the rod's axis and keeps its turn.
#[test]
fn a_bead_on_a_tumbling_rod_stays_on_it() {
    let (m1, m2) = (1.0, 0.2);
    let (i1, i2) = ([0.1, 0.1, 0.002], [1e-4; 3]);
    let turn = unit([0.9, -0.2, 0.3, 0.1]);
    let z = apply(&matrix(turn), [0.0, 0.0, 1.0]);
    let mut rod = rigid("rod", m1, i1, [0.0; 3]);
    let mut bead = rigid("bead", m2, i2, z.map(|x| 0.2 * x));
    rod.orientation = turn;
    bead.orientation = turn;
    let omega = [2.0, 0.3, 0.5];
    rod.angular_velocity = omega;
    bead.angular_velocity = omega;
    let carried = cross(omega, bead.position);
    bead.velocity = [0, 1, 2].map(|k| carried[k] + 0.3 * z[k]);
    let slider = SpatialJointKind::Slider {
        axis: [0.0, 0.0, 1.0],
    };
    let model = SpatialModel::new([0.0; 3], vec![rod, bead], vec![])
        .and_then(|m| m.with_joints(vec![joint(slider, [Some(0), Some(1)], [[0.0; 3]; 2])]))
        .expect("a valid bead");
    let (masses, moments) = ([m1, m2], [i1, i2]);
    let (q0, v0) = start(&model);
    let l0 = momentum(&model, (&q0, &v0), &masses, &moments, [0.0; 3]);
    for t in [0.5, 1.5] {
        let o = finish(&model, t);
        let (sa, sb) = (
            model.body_state(0, &o.q, &o.v),
            model.body_state(1, &o.q, &o.v),
        );
        let axis = apply(&matrix(sa.orientation), [0.0, 0.0, 1.0]);
        let off = norm(cross(minus(sb.position, sa.position), axis));
        let relative = mul(conjugate(sa.orientation), sb.orientation);
        let twist = norm([relative[1], relative[2], relative[3]]);
        let dl = norm(minus(
            momentum(&model, (&o.q, &o.v), &masses, &moments, [0.0; 3]),
            l0,
        )) / norm(l0);
        let energy = (o.energy_final - o.energy_initial) / o.energy_initial;
        println!(
            "bead t {t}: out at {:.4}, energy {energy:e}, L {dl:e}, off the axis {off:e}, twist {twist:e}, drift {:e}",
            dot(minus(sb.position, sa.position), axis),
            o.max_constraint_drift
        );
        assert!(energy.abs() < 1e-8 && dl < 1e-8, "{energy:e} {dl:e}");
        assert!(off < 1e-8 && twist < 1e-8, "{off:e} {twist:e}");
    }
}
