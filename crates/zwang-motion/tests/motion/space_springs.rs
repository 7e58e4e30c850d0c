//! Springs and dampers in space against closed forms, under the
//! event-driven method (DOP853) and the time stepper: a body on a spring
//! oscillates at `sqrt(k / m)`, a spring and a damper decay as the damped
//! oscillator, and a spring pulling at an off-centre anchor from a fixed
//! point keeps the energy (its own included) and the angular momentum
//! about that point (a central force: the torques' sign and arm).

use zwang_model::spatial::rotation::{apply, cross, matrix};
use zwang_model::spatial::{SpatialModel, SpatialSpring, SpatialSpringKind};
use zwang_motion::{simulate, NoObserver, Settings, SpaceStepper, Status, StepSettings};

use crate::common::rigid;

/// A body of `mass` at `x` on the x axis, its centre tied to the origin
/// by a spring of `stiffness` and rest length `rest`, and a damper, in no
/// gravity.
fn oscillator(mass: f64, x: f64, stiffness: f64, rest: f64, damping: f64) -> SpatialModel {
    let b = rigid("body", mass, [0.01, 0.02, 0.03], [x, 0.0, 0.0]);
    let ends = |kind| SpatialSpring {
        kind,
        bodies: [None, Some(0)],
        anchors: [[0.0; 3]; 2],
    };
    SpatialModel::new([0.0; 3], vec![b], vec![])
        .unwrap()
        .with_springs(vec![
            ends(SpatialSpringKind::Spring {
                stiffness,
                rest_length: Some(rest),
            }),
            ends(SpatialSpringKind::Damper { damping }),
        ])
        .unwrap()
}

/// `x(t)` of the damped oscillator `m x'' = -k (x - rest) - c x'` from
/// rest at `x0` (underdamped).
fn damped(m: f64, k: f64, c: f64, rest: f64, x0: f64, t: f64) -> f64 {
    let (w, z) = ((k / m).sqrt(), c / (2.0 * (k * m).sqrt()));
    let wd = w * (1.0 - z * z).sqrt();
    let a = x0 - rest;
    rest + a * (-z * w * t).exp() * ((wd * t).cos() + z * w / wd * (wd * t).sin())
}

fn event_driven(model: &SpatialModel, t: f64) -> (Vec<f64>, Vec<f64>) {
    let mut settings = Settings::default();
    settings.ode.rtol = 1e-12;
    let o = simulate(model, t, &settings, &mut NoObserver);
    assert_eq!(o.status, Status::Finished, "{:?}", o.reason);
    (o.q, o.v)
}

#[test]
fn a_body_on_a_spring_oscillates_at_sqrt_k_over_m() {
    let (m, k, rest, x0) = (2.0, 50.0, 0.2, 0.3);
    let model = oscillator(m, x0, k, rest, 0.0);
    for t in [0.4, 1.3] {
        let (q, v) = event_driven(&model, t);
        let exact = damped(m, k, 0.0, rest, x0, t);
        assert!(
            (q[0] - exact).abs() < 1e-9,
            "x({t}) {} against {exact}",
            q[0]
        );
        assert!(q[1].abs() < 1e-15 && q[2].abs() < 1e-15);
        let e0 = 0.5 * k * (x0 - rest).powi(2);
        assert!((model.energy(&q, &v) - e0).abs() < 1e-9 * e0);
    }
}

#[test]
fn a_spring_and_a_damper_decay_as_the_damped_oscillator() {
    let (m, k, c, rest, x0) = (2.0, 50.0, 3.0, 0.2, 0.3);
    let model = oscillator(m, x0, k, rest, c);
    for t in [0.4, 1.3] {
        let (q, _) = event_driven(&model, t);
        let exact = damped(m, k, c, rest, x0, t);
        assert!(
            (q[0] - exact).abs() < 1e-9,
            "x({t}) {} against {exact}",
            q[0]
        );
    }
    // Without the damper's term the run would not decay: the test can fail.
    let undamped = damped(m, k, 0.0, rest, x0, 1.3);
    assert!((undamped - damped(m, k, c, rest, x0, 1.3)).abs() > 1e-2);
}

/// A turned box, moving and spinning, pulled towards the origin by a
/// spring at a corner-ward anchor, in no gravity.
fn tethered() -> (SpatialModel, [f64; 3]) {
    let inertia = [0.02, 0.03, 0.05];
    let mut b = rigid("box", 1.5, inertia, [0.4, -0.1, 0.2]);
    b.orientation = [0.9, 0.3, -0.2, 0.25];
    let n = b.orientation.iter().map(|x| x * x).sum::<f64>().sqrt();
    b.orientation = b.orientation.map(|x| x / n);
    b.velocity = [0.1, 0.5, -0.2];
    b.angular_velocity = [2.0, -1.0, 3.0];
    let model = SpatialModel::new([0.0; 3], vec![b], vec![])
        .unwrap()
        .with_springs(vec![SpatialSpring {
            kind: SpatialSpringKind::Spring {
                stiffness: 40.0,
                rest_length: Some(0.1),
            },
            bodies: [None, Some(0)],
            anchors: [[0.0; 3], [0.05, 0.02, -0.03]],
        }])
        .unwrap();
    (model, inertia)
}

/// The angular momentum about the origin, world, from the body's state
/// and its inertia in its body frame.
fn momentum(model: &SpatialModel, inertia: [f64; 3], q: &[f64], v: &[f64]) -> [f64; 3] {
    let s = model.body_state(0, q, v);
    let r = matrix(s.orientation);
    let body_omega =
        [0, 1, 2].map(|i| (0..3).map(|j| r[j][i] * s.angular_velocity[j]).sum::<f64>());
    let spin = apply(&r, [0, 1, 2].map(|i| inertia[i] * body_omega[i]));
    let orbit = cross(s.position, s.velocity.map(|x| 1.5 * x));
    [0, 1, 2].map(|i| spin[i] + orbit[i])
}

#[test]
fn a_spring_at_an_off_centre_anchor_keeps_the_energy_and_the_moment_about_its_fixed_end() {
    let (model, inertia) = tethered();
    let (mut q0, mut v0) = (vec![0.0; 7], vec![0.0; 6]);
    model.initial_state(&mut q0, &mut v0);
    let (e0, l0) = (model.energy(&q0, &v0), momentum(&model, inertia, &q0, &v0));
    let size = l0.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (q, v) = event_driven(&model, 2.0);
    let l = momentum(&model, inertia, &q, &v);
    for i in 0..3 {
        assert!((l[i] - l0[i]).abs() < 1e-9 * size, "{l:?} against {l0:?}");
    }
    assert!((model.energy(&q, &v) - e0).abs() < 1e-9 * e0);
    // The body turned: the moment of the force at the anchor mattered.
    let s = model.body_state(0, &q, &v);
    assert!((s.orientation[0] - q0[3]).abs() > 1e-2);
}

#[test]
fn the_time_stepper_holds_springs_too() {
    // The oscillator at h = 1e-4: the phase to first order in h.
    let (m, k, rest, x0) = (2.0, 50.0, 0.2, 0.3);
    let model = oscillator(m, x0, k, rest, 0.0);
    let h = 1e-4;
    let mut stepper = SpaceStepper::new(&model, StepSettings::default()).unwrap();
    for _ in 0..13_000 {
        stepper.step(h).unwrap();
    }
    let (t, q, _) = stepper.state();
    let exact = damped(m, k, 0.0, rest, x0, t);
    assert!(
        (q[0] - exact).abs() < 1e-3 * (x0 - rest),
        "{} against {exact}",
        q[0]
    );
    // The tethered box keeps its moment about the fixed end to first order.
    let (model, inertia) = tethered();
    let mut stepper = SpaceStepper::new(&model, StepSettings::default()).unwrap();
    let (_, q, v) = stepper.state();
    let l0 = momentum(&model, inertia, q, v);
    let size = l0.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..10_000 {
        stepper.step(h).unwrap();
    }
    let (_, q, v) = stepper.state();
    let l = momentum(&model, inertia, q, v);
    for i in 0..3 {
        assert!((l[i] - l0[i]).abs() < 1e-2 * size, "{l:?} against {l0:?}");
    }
}
