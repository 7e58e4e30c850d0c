//! The double pendulum in absolute angles, by automatic differentiation of
//! its elements' positions, against the textbook equations written here by
//! hand, against the same mechanism in maximal coordinates
//! (`zwang_model::planar`, pins, solved by the QP), and over a run
//! (energy kept, and the same motion as the planar model's).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::{FRAC_PI_2, PI};
use zwang_generalized::catalog::DoublePendulum;
use zwang_generalized::Generalized;
use zwang_model::planar::{Body, BodyRef, Joint, JointKind, PlanarModel};
use zwang_motion::report::Recorder;
use zwang_motion::{simulate, Coordinates, InstantWriter, Settings, Status};
use zwang_qp::{AutoBackend, Backend, Status as QpStatus};

const STATES: usize = 250;

/// The textbook `M`, `h` and `Q` of the double pendulum in absolute
/// angles, with `a = m1 c1^2 + I1 + m2 l1^2`, `b = m2 l1 c2`,
/// `d = m2 c2^2 + I2`:
/// `M = [a, b cos(th1 - th2); b cos(th1 - th2), d]`,
/// `h = b sin(th1 - th2) (th2'^2, -th1'^2)`,
/// `Q = -g ((m1 c1 + m2 l1) sin th1, m2 c2 sin th2)`.
fn textbook(p: &DoublePendulum, th: [f64; 2], w: [f64; 2]) -> ([f64; 4], [f64; 2], [f64; 2]) {
    let ([m1, m2], l1, [c1, c2], [i1, i2], g) = (p.mass, p.length1, p.centre, p.inertia, p.g);
    let a = m1 * c1 * c1 + i1 + m2 * l1 * l1;
    let b = m2 * l1 * c2;
    let d = m2 * c2 * c2 + i2;
    let (s, c) = (th[0] - th[1]).sin_cos();
    let mass = [a, b * c, b * c, d];
    let h = [b * s * w[1] * w[1], -b * s * w[0] * w[0]];
    let q = [
        -(m1 * c1 + m2 * l1) * g * th[0].sin(),
        -m2 * c2 * g * th[1].sin(),
    ];
    (mass, h, q)
}

fn random_pendulum(rng: &mut ChaCha8Rng, points: bool) -> DoublePendulum {
    let mass = [rng.gen_range(0.3..3.0), rng.gen_range(0.3..3.0)];
    let length = [rng.gen_range(0.2..2.0), rng.gen_range(0.2..2.0)];
    if points {
        DoublePendulum::point_masses(mass, length)
    } else {
        let mut p = DoublePendulum::rods(mass, length);
        // Centres anywhere on the links, any inertia.
        p.centre = [
            rng.gen_range(0.1..1.0) * length[0],
            rng.gen_range(0.1..1.0) * length[1],
        ];
        p.inertia = [rng.gen_range(0.01..0.5), rng.gen_range(0.01..0.5)];
        p.g = rng.gen_range(1.0..20.0);
        p
    }
}

fn random_state(rng: &mut ChaCha8Rng) -> ([f64; 2], [f64; 2]) {
    (
        [rng.gen_range(-PI..PI), rng.gen_range(-PI..PI)],
        [rng.gen_range(-6.0..6.0), rng.gen_range(-6.0..6.0)],
    )
}

/// `max |x - y| / max |y|`.
fn rel(x: &[f64], y: &[f64]) -> f64 {
    let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let diff = x
        .iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    if diff == 0.0 {
        0.0
    } else {
        diff / scale
    }
}

#[test]
fn m_h_and_q_match_the_textbook_at_random_states() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut worst = [0.0f64; 3];
    for k in 0..STATES {
        let p = random_pendulum(&mut rng, k % 2 == 0);
        let (th, w) = random_state(&mut rng);
        let (mass, h, q) = textbook(&p, th, w);
        let sys = Generalized::new(p).unwrap();
        let t = rng.gen_range(-10.0..10.0);
        let e = sys.equations(t, &th, &w).unwrap();
        // h's scale: its pieces, b w^2, not the (possibly tiny) sum.
        let hscale = mass[1].abs().max(mass[0]) * (w[0] * w[0] + w[1] * w[1]);
        let herr = e
            .velocity_terms
            .iter()
            .zip(&h)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
            / hscale;
        worst[0] = worst[0].max(rel(&e.mass, &mass));
        worst[1] = worst[1].max(herr);
        worst[2] = worst[2].max(rel(&e.applied, &q));
    }
    println!(
        "double pendulum vs textbook, relative: M {:.1e}, h {:.1e}, Q {:.1e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst.iter().all(|&x| x < 1e-12), "{worst:?}");
}

/// The same two links in maximal coordinates: rigid bodies (centre and
/// angle; the body's x axis from its pin along the link, so its angle is
/// `theta - pi/2`) pinned to the ground and to each other, solved by the
/// QP. Its angular accelerations are the angles' accelerations.
fn planar(p: &DoublePendulum, th: [f64; 2], w: [f64; 2]) -> PlanarModel {
    let ([m1, m2], l1, [c1, c2], [i1, i2]) = (p.mass, p.length1, p.centre, p.inertia);
    let u = |a: f64| [a.sin(), -a.cos()];
    let v = |a: f64| [a.cos(), a.sin()];
    let (u1, u2, v1, v2) = (u(th[0]), u(th[1]), v(th[0]), v(th[1]));
    let upper = Body::rigid("upper", m1, i1)
        .at([c1 * u1[0], c1 * u1[1]])
        .turned(th[0] - FRAC_PI_2)
        .moving([c1 * w[0] * v1[0], c1 * w[0] * v1[1]])
        .spinning(w[0]);
    let lower = Body::rigid("lower", m2, i2)
        .at([l1 * u1[0] + c2 * u2[0], l1 * u1[1] + c2 * u2[1]])
        .turned(th[1] - FRAC_PI_2)
        .moving([
            l1 * w[0] * v1[0] + c2 * w[1] * v2[0],
            l1 * w[0] * v1[1] + c2 * w[1] * v2[1],
        ])
        .spinning(w[1]);
    let joints = vec![
        Joint {
            kind: JointKind::Pin,
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[0.0, 0.0], [-c1, 0.0]],
        },
        Joint {
            kind: JointKind::Pin,
            bodies: [BodyRef::Body(0), BodyRef::Body(1)],
            anchors: [[l1 - c1, 0.0], [-c2, 0.0]],
        },
    ];
    PlanarModel::new([0.0, -p.g], vec![upper, lower], joints, vec![], vec![]).unwrap()
}

#[test]
fn accelerations_match_the_planar_model_in_maximal_coordinates() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut worst = 0.0f64;
    for _ in 0..STATES {
        let p = random_pendulum(&mut rng, false);
        let (th, w) = random_state(&mut rng);
        let model = planar(&p, th, w);
        let (mut q, mut v) = (vec![0.0; 6], vec![0.0; 6]);
        model.initial_state(&mut q, &mut v);
        let (instant, _) = model.build_instant(0.0, &q, &v, &[]).unwrap();
        let s = AutoBackend::new().solve(&instant);
        assert_eq!(s.status, QpStatus::Solved);
        let planar_angles = [s.acceleration[2], s.acceleration[5]];
        let sys = Generalized::new(p).unwrap();
        let a = sys
            .equations(0.0, &th, &w)
            .unwrap()
            .unconstrained_acceleration()
            .unwrap();
        worst = worst.max(rel(&a, &planar_angles));
    }
    println!("double pendulum, angles vs planar model: {worst:.1e} relative");
    assert!(worst < 1e-10, "{worst:e}");
}

#[test]
fn a_run_keeps_the_energy_and_follows_the_planar_model() {
    // The scene of examples/scenes/double_pendulum.toml: two uniform rods
    // of 1 kg and 1 m released horizontal.
    let p = DoublePendulum::default();
    let duration = 10.0;
    let sys = Generalized::new(p.clone()).unwrap();
    let settings = Settings {
        output_every: 0.5,
        ..Settings::default()
    };
    let mut recorder = Recorder::new(&sys);
    let outcome = simulate(&sys, duration, &settings, &mut recorder);
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    // The energy's scale: lifting both rods by their length, m g (L + L).
    let scale = 2.0 * 9.81 * 2.0;
    let drift = recorder
        .rows
        .iter()
        .map(|r| (r.energy - outcome.energy_initial).abs())
        .fold(0.0f64, f64::max)
        / scale;
    // Released horizontal from rest: E = 0 (both centres at the pivot's
    // height), whatever zwang says.
    assert!(outcome.energy_initial.abs() < 1e-14);
    println!("double pendulum, {duration} s: energy off by {drift:.1e} of m g 2L");
    assert!(drift < 1e-8, "{drift:e}");

    // The planar model of the same scene, over the first second (before
    // the chaos amplifies the integrators' different errors).
    let model = planar(&p, p.theta0, p.omega0);
    let one = Settings {
        output_every: 1.0,
        ..Settings::default()
    };
    let a = simulate(&sys, 1.0, &one, &mut zwang_motion::NoObserver);
    let b = simulate(&model, 1.0, &one, &mut zwang_motion::NoObserver);
    let angles = [b.q[2] + FRAC_PI_2, b.q[5] + FRAC_PI_2];
    let rates = [b.v[2], b.v[5]];
    let off = (0..2)
        .map(|i| (a.q[i] - angles[i]).abs().max((a.v[i] - rates[i]).abs()))
        .fold(0.0f64, f64::max);
    println!("double pendulum at 1 s, generalized vs planar run: {off:.1e}");
    assert!(off < 1e-6, "{off:e}");
}
