//! The spatial scenes with joints in `examples/scenes/space/` against
//! their closed forms: the spherical pendulum's period, the top's steady
//! precession, Newton's cradle passing the first ball's speed to the last,
//! and under the event-driven method the steady top and a hinged plate's
//! exact period at 1 rad.
//! Each scene is read as `zwang simulate` reads it and stepped at its own
//! `time_step`; the closed forms are computed here from the physical
//! values the scene's header states.

use std::f64::consts::PI;
use std::path::PathBuf;

use zwang_model::spatial::rotation::{apply, dot, matrix};
use zwang_model::spatial::SpatialModel;
use zwang_motion::{SpaceStepper, StepSettings};
use zwang_scene::{parse_any_scene, AnyScene, SpatialKind, SpatialScene};

const G: f64 = 9.81;

fn scene(name: &str) -> (SpatialScene, SpatialModel, StepSettings) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/scenes/space")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let AnyScene::Spatial(scene) = parse_any_scene(&text).unwrap() else {
        panic!("{name} is not spatial");
    };
    let model = scene.model().unwrap();
    let settings = StepSettings {
        time_step: scene.solver.time_step,
        ..StepSettings::default()
    };
    (scene, model, settings)
}

fn mass_of(scene: &SpatialScene, b: usize) -> f64 {
    match scene.bodies[b].kind {
        SpatialKind::Rigid { mass, .. } => mass,
        SpatialKind::Fixed => panic!("body {b} is fixed"),
    }
}

#[test]
fn the_spherical_pendulum_swings_at_the_compound_period() {
    let (scene, model, settings) = scene("spherical_pendulum.toml");
    let (m, a, l, theta0) = (2.0, 0.05, 1.0, 0.05f64);
    assert_eq!(mass_of(&scene, 0), m);
    let exact =
        2.0 * PI * ((l * l + 0.4 * a * a) / (G * l)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let h = settings.time_step;
    let mut stepper = SpaceStepper::new(&model, settings).unwrap();
    let (_, q, v) = stepper.state();
    let e0 = model.energy(q, v);
    let mut x = q[0];
    let (mut crossings, mut drift) = (Vec::new(), 0.0f64);
    while stepper.state().0 < scene.duration - 0.5 * h {
        let t0 = stepper.state().0;
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        if x < 0.0 && q[0] >= 0.0 {
            crossings.push(t0 + h * x / (x - q[0]));
        }
        x = q[0];
        drift = drift.max((model.energy(q, v) - e0).abs());
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let swing = m * G * l * (1.0 - theta0.cos());
    println!(
        "spherical pendulum: period {period} s against {exact} ({:e}), energy within {:e} of the swing's",
        (period - exact) / exact,
        drift / swing
    );
    assert!(((period - exact) / exact).abs() < 1e-4);
    assert!(drift < 2e-3 * swing);
}

#[test]
fn the_top_precesses_at_goldsteins_steady_rate() {
    let (scene, model, settings) = scene("spinning_top.toml");
    let (m, l, i1, i3, theta, omega3) = (1.0, 0.1, 0.002, 0.004, 30f64.to_radians(), 200.0);
    assert_eq!(mass_of(&scene, 0), m);
    let i1p = i1 + m * l * l;
    let (qa, qb, qc) = (i1p * theta.cos(), i3 * omega3, m * G * l);
    let exact = (qb - (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    let h = settings.time_step;
    let mut stepper = SpaceStepper::new(&model, settings).unwrap();
    let spin = |q: &[f64], v: &[f64]| {
        let s = model.body_state(0, q, v);
        dot(
            s.angular_velocity,
            apply(&matrix(s.orientation), [0.0, 0.0, 1.0]),
        )
    };
    let (_, q, v) = stepper.state();
    assert!((spin(q, v) - omega3).abs() < 1e-9 * omega3);
    let (mut azimuth, mut last, mut spin_error) = (0.0, 0.0, 0.0f64);
    while stepper.state().0 < scene.duration - 0.5 * h {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        let phi = q[1].atan2(q[0]);
        let mut d = phi - last;
        d -= 2.0 * PI * (d / (2.0 * PI)).round();
        azimuth += d;
        last = phi;
        spin_error = spin_error.max((spin(q, v) - omega3).abs() / omega3);
    }
    let rate = azimuth / stepper.state().0;
    println!(
        "top: precession {rate} rad/s against {exact} ({:e}); the spin within {spin_error:e}",
        (rate - exact) / exact
    );
    assert!(((rate - exact) / exact).abs() < 5e-4);
    assert!(spin_error < 1e-11);
}

#[test]
fn the_cradle_passes_the_first_balls_speed_to_the_last() {
    let (scene, model, settings) = scene("newtons_cradle.toml");
    // The first ball's speed at the bottom, from the energy of its drop
    // (a ball of radius r turning about a pivot L above its centre).
    let (r, l, alpha) = (0.02, 0.3, 20f64.to_radians());
    let m = mass_of(&scene, 1);
    assert!((m - 7850.0 * 4.0 / 3.0 * PI * r * r * r).abs() < 1e-12);
    let v_bottom = (2.0 * m * G * l * (1.0 - alpha.cos()) / (m + 0.4 * m * r * r / (l * l))).sqrt();
    let h = settings.time_step;
    let mut stepper = SpaceStepper::new(&model, settings).unwrap();
    let speed = |q: &[f64], v: &[f64], b: usize| {
        let s = model.body_state(b, q, v);
        dot(s.velocity, s.velocity).sqrt()
    };
    let (mut first, mut leaves, mut others, mut top) = (0.0, None, 0.0, f64::NEG_INFINITY);
    while stepper.state().0 < scene.duration - 0.5 * h {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        if speed(q, v, 2) == 0.0 {
            first = speed(q, v, 1);
        }
        if leaves.is_none() && speed(q, v, 5) > 1e-6 {
            leaves = Some(speed(q, v, 5));
            others = (1..5).map(|b| speed(q, v, b)).fold(0.0, f64::max);
        }
        top = top.max(model.body_state(5, q, v).position[2]);
    }
    let leaves = leaves.expect("the last ball moves");
    let start = scene.bodies[1].position[2];
    println!(
        "cradle: the first ball hits at {first} m/s (its drop gives {v_bottom}), the last leaves at \
         {leaves} ({:e}), the others at most {others:e} m/s; the last rises to {top} m, the first \
         started at {start} m ({:e})",
        (leaves - first) / first,
        (top - start) / start
    );
    // The first ball meets the second a gap past its lowest point.
    assert!(((first - v_bottom) / v_bottom).abs() < 1e-3);
    assert!(((leaves - first) / first).abs() < 1e-3);
    assert!(others < 1e-3 * first);
    assert!(((top - start) / start).abs() < 5e-3);
}

#[test]
fn the_touching_cradle_sends_the_row_on_together() {
    let (scene, model, settings) = scene("newtons_cradle_touching.toml");
    let n = 5;
    let (r, l) = (0.02, 0.3);
    let m = mass_of(&scene, 1);
    // The balls' angular momentum about the y axes through their pivots
    // (x = 2 r i, z = l): the impact's contacts, horizontal between centres
    // at one height, move none of it.
    let momentum = |q: &[f64], v: &[f64]| -> f64 {
        (0..n)
            .map(|i| {
                let s = model.body_state(i + 1, q, v);
                let arm = [s.position[0] - 2.0 * r * i as f64, s.position[2] - l];
                0.4 * m * r * r * s.angular_velocity[1]
                    + m * (arm[1] * s.velocity[0] - arm[0] * s.velocity[2])
            })
            .sum()
    };
    let h = settings.time_step;
    let mut stepper = SpaceStepper::new(&model, settings).unwrap();
    let mut before = (0.0, 0.0, 0.0);
    loop {
        stepper.step(h).unwrap();
        let (t, q, v) = stepper.state();
        assert!(t < scene.duration, "no impact");
        let vx = |b: usize| model.body_state(b, q, v).velocity[0];
        if vx(2) == 0.0 {
            before = (vx(1), momentum(q, v), model.energy(q, v));
            continue;
        }
        let (big_v, l_before, e_before) = before;
        let rebound = -(n as f64 - 2.0) / n as f64 * big_v;
        let row = 2.0 / n as f64 * big_v;
        let speeds: Vec<f64> = (1..=n).map(vx).collect();
        let (l_after, e_after) = (momentum(q, v), model.energy(q, v));
        println!(
            "touching cradle: V = {big_v}, after the impact {speeds:?} (law: {rebound}, then \
             {row}); momentum {:e}, energy {:e} relative",
            (l_after - l_before) / l_before,
            (e_after - e_before) / e_before
        );
        assert!((speeds[0] - rebound).abs() < 1e-3 * big_v);
        assert!(speeds[1..].iter().all(|x| (x - row).abs() < 1e-3 * big_v));
        assert!(((l_after - l_before) / l_before).abs() < 1e-3);
        assert!(e_after <= e_before * (1.0 + 1e-4));
        break;
    }
}

/// The pinched capsule (MuJoCo issue 3328) with its pads pressed by
/// `force` N: the capsule's vertical speed at every step, and its height
/// at the end.
fn pinch(force: f64, duration: f64) -> (Vec<f64>, f64) {
    let (mut scene, _, settings) = scene("pinched_capsule.toml");
    assert_eq!(scene.forces.len(), 2);
    scene.forces[0].force = [force, 0.0, 0.0];
    scene.forces[1].force = [-force, 0.0, 0.0];
    let model = scene.model().unwrap();
    let h = settings.time_step;
    let mut stepper = SpaceStepper::new(&model, settings).unwrap();
    let mut speeds = Vec::new();
    while stepper.state().0 < duration - 0.5 * h {
        stepper.step(h).unwrap();
        speeds.push(stepper.state().2[2]);
    }
    (speeds, stepper.state().1[2])
}

#[test]
fn the_pinched_capsule_does_not_sink() {
    // Held by 2 mu F = 16.8 N (12 N) or 84 N (60 N) against its weight,
    // 0.44 N: sticking, it stays where it is (MuJoCo's soft contacts sink
    // by 50 to 155 um/s).
    for force in [12.0, 60.0] {
        let (speeds, z) = pinch(force, 1.0);
        let fastest = speeds.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(fastest < 1e-9, "{force} N: sinks at {fastest:e} m/s");
        assert!((z - 0.1).abs() < 1e-9, "{force} N: at {z}");
    }
}

#[test]
fn a_capsule_pinched_too_lightly_slides_down_at_g_less_the_pads_friction() {
    // 2 mu F = 0.28 N against 0.44 N: the capsule slides down the pads
    // (which the sliders hold up) at g - 2 mu F / m; the velocity of a
    // constant acceleration is exact at every step.
    let (m, mu, force) = (0.045, 0.7, 0.2);
    let a = -(G - 2.0 * mu * force / m);
    let (speeds, _) = pinch(force, 0.1);
    for (n, v) in speeds.iter().enumerate() {
        let exact = a * 0.002 * (n + 1) as f64;
        assert!(
            (v - exact).abs() < 1e-9 * exact.abs().max(1e-3),
            "step {n}: {v} against {exact}"
        );
    }
}

#[test]
fn the_steady_top_under_the_event_driven_method_turns_at_the_exact_rate() {
    // The slow root of I1 cos(theta) W^2 - I3 w3 W + m g l = 0, the axis
    // after 2 s at tilt theta turned by W t about the vertical.
    let (m, l, i1, i3, w3, theta) = (1.0, 0.1, 0.002 + 0.01, 0.004, 100.0, 0.3f64);
    let (b, c) = (i3 * w3, i1 * theta.cos());
    let w = (b - (b * b - 4.0 * c * m * G * l).sqrt()) / (2.0 * c);
    let (scene, model, outcome) = event_scene("top_steady_precession.toml");
    let s = model.body_state(0, &outcome.q, &outcome.v);
    let t = scene.duration;
    let expected = [
        l * theta.sin() * (w * t).cos(),
        l * theta.sin() * (w * t).sin(),
        l * theta.cos(),
    ];
    for k in 0..3 {
        assert!(
            (s.position[k] - expected[k]).abs() < 1e-9,
            "{:?} against {expected:?}",
            s.position
        );
    }
    let e0 = outcome.energy_initial;
    assert!((outcome.energy_final - e0).abs() < 1e-9 * e0.abs());
}

/// Reads an example scene that asks for the event-driven method and runs
/// it as `zwang simulate` does; it must finish.
fn event_scene(name: &str) -> (SpatialScene, SpatialModel, zwang_motion::Outcome) {
    let (scene, _, _) = scene(name);
    assert_eq!(scene.solver.stepping, zwang_scene::Stepping::Event);
    let (model, outcome) =
        zwang::run::run_space_scene(&scene, &mut zwang_motion::NoObserver).unwrap();
    assert_eq!(outcome.status, zwang_motion::Status::Finished);
    (scene, model, outcome)
}

#[test]
fn the_hinged_plate_under_the_event_driven_method_keeps_the_exact_period() {
    // The physical pendulum let go at t0 = 1 rad: T = 2 pi sqrt(I / (m g
    // d)) / agm(1, cos(t0 / 2)), I = m (a^2 + b^2) / 12 + m d^2; the
    // scene runs four periods, so the plate ends at rest at t0.
    let (m, a, b, theta0) = (3.0, 0.4, 0.6, 1.0f64);
    let d = b / 2.0;
    let rate2 = m * G * d / (m * (a * a + b * b) / 12.0 + m * d * d);
    let (mut x, mut y) = (1.0f64, (theta0 / 2.0).cos());
    for _ in 0..8 {
        (x, y) = ((x + y) / 2.0, (x * y).sqrt());
    }
    let period = 2.0 * PI / rate2.sqrt() / x;
    let (scene, model, outcome) = event_scene("hinged_pendulum_event.toml");
    assert_eq!(mass_of(&scene, 0), m);
    let swings = 4.0;
    assert!((scene.duration - swings * period).abs() < 1e-12 * period);
    let s = model.body_state(0, &outcome.q, &outcome.v);
    // A turn by -theta about y alone: its angle and its rate, whose value
    // at the end over theta'' = -rate2 sin(t0) is how late it comes back;
    // what is off the plane (the other turns, y, the centre's reach).
    let [qw, qx, qy, qz] = s.orientation;
    let theta = -2.0 * qy.atan2(qw);
    let [wx, wy, wz] = s.angular_velocity;
    let late = -wy / (rate2 * theta0.sin()) / swings;
    let reach = s.position.iter().map(|p| p * p).sum::<f64>().sqrt() - d;
    let off = [qx, qz, wx, wz, s.position[1], reach]
        .into_iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let energy = (outcome.energy_final - outcome.energy_initial) / (m * G * d);
    println!(
        "hinged plate at 1 rad: period {} s against {period} ({:e}), angle {theta} against 1, off the plane {off:e}, energy {energy:e} of m g d",
        period + late,
        late / period,
    );
    assert!((late / period).abs() < 1e-10, "{:e}", late / period);
    assert!((theta - theta0).abs() < 1e-10, "{theta}");
    assert!(off < 1e-9, "{off:e}");
    assert!(energy.abs() < 1e-9, "{energy:e}");
}

#[test]
fn the_bob_on_a_spring_and_a_damper_moves_as_the_damped_oscillator() {
    // m z'' = -k (z - z_eq) - c z', from rest 0.05 m above z_eq.
    let (m, k, c) = (2.0, 200.0, 2.0);
    let z_eq = 1.0 - 0.5 - m * G / k;
    let (scene, model, outcome) = event_scene("spring_damper_bob.toml");
    let z0 = scene.bodies[0].position[2];
    let (w, zeta) = ((k / m).sqrt(), c / (2.0 * (k * m).sqrt()));
    let wd = w * (1.0 - zeta * zeta).sqrt();
    let t = outcome.time;
    let decay = (-zeta * w * t).exp();
    let exact = z_eq + (z0 - z_eq) * decay * ((wd * t).cos() + zeta * w / wd * (wd * t).sin());
    let s = model.body_state(0, &outcome.q, &outcome.v);
    // The energy the damper took: the oscillator's, e^(-2 zeta w t) of it
    // at the turning points; here the exact energy from the closed form.
    let speed = (z0 - z_eq) * decay * (-(w * w / wd) * (wd * t).sin());
    let energy = |z: f64, v: f64| 0.5 * m * v * v + m * G * z + 0.5 * k * (1.0 - z - 0.5).powi(2);
    let lost = energy(z0, 0.0) - energy(exact, speed);
    println!(
        "spring and damper: z({t}) = {} against {exact} ({:e} m), vz {} against {speed}, energy lost {} against {lost}",
        s.position[2],
        s.position[2] - exact,
        s.velocity[2],
        outcome.energy_initial - outcome.energy_final,
    );
    assert!((s.position[2] - exact).abs() < 1e-9, "{}", s.position[2]);
    assert!((s.velocity[2] - speed).abs() < 1e-8, "{}", s.velocity[2]);
    let off = s.position[0].abs().max(s.position[1].abs());
    assert!(off < 1e-12, "{off:e}");
    let taken = outcome.energy_initial - outcome.energy_final;
    assert!((taken - lost).abs() < 1e-8 * lost, "{taken} against {lost}");
}
