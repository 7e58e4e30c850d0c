//! Joints in space under the time stepper against closed forms: a
//! spherical pendulum on a ball joint (the compound pendulum's period), a
//! bob on a string (a distance joint: the point pendulum's period), a
//! door on a hinge (the physical pendulum's period), a block on an
//! inclined slider (`g sin theta`), a welded pair (one rigid body), a top
//! on a ball joint at its tip (steady precession; `L_z` and the spin
//! kept) and Newton's cradle.

use std::f64::consts::PI;

use zwang_model::spatial::{
    SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
};
use zwang_motion::{SpaceStepper, StepSettings};

const G: f64 = 9.81;

fn rigid(name: &str, mass: f64, inertia: [f64; 3], position: [f64; 3]) -> SpatialBody {
    let mut b = SpatialBody::new(
        name,
        SpatialKind::Rigid {
            mass,
            inertia: Some([
                [inertia[0], 0.0, 0.0],
                [0.0, inertia[1], 0.0],
                [0.0, 0.0, inertia[2]],
            ]),
        },
    );
    b.position = position;
    b
}

fn joint(
    kind: SpatialJointKind,
    bodies: [Option<usize>; 2],
    anchors: [[f64; 3]; 2],
) -> SpatialJoint {
    SpatialJoint {
        kind,
        bodies,
        anchors,
    }
}

fn settings(h: f64) -> StepSettings {
    StepSettings {
        time_step: h,
        ..StepSettings::default()
    }
}

/// The times `x(t)` of body `b` crosses zero upwards over `duration`
/// (linear interpolation within a step).
fn upward_crossings(
    model: &SpatialModel,
    h: f64,
    duration: f64,
    b: usize,
    axis: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut stepper = SpaceStepper::new(model, settings(h)).unwrap();
    let (mut times, mut energies) = (Vec::new(), Vec::new());
    let value = |s: &SpaceStepper| {
        let (_, q, v) = s.state();
        model.body_state(b, q, v).position[axis]
    };
    let mut before = value(&stepper);
    while stepper.state().0 < duration {
        let t0 = stepper.state().0;
        stepper.step(h).unwrap();
        let now = value(&stepper);
        if before < 0.0 && now >= 0.0 {
            times.push(t0 + h * before / (before - now));
        }
        before = now;
        let (_, q, v) = stepper.state();
        energies.push(model.energy(q, v));
    }
    (times, energies)
}

/// The mean period from upward crossings.
fn period(times: &[f64]) -> f64 {
    (times[times.len() - 1] - times[0]) / (times.len() - 1) as f64
}

#[test]
fn a_ball_joint_pendulum_swings_at_the_compound_period() {
    // A solid sphere (radius a, mass m) on a rigid massless rod of length
    // L from a ball joint: T = 2 pi sqrt((L^2 + 2/5 a^2) / (g L)), times
    // 1 + theta0^2 / 16 for the amplitude.
    let (m, a, l, theta0) = (2.0, 0.05, 1.0, 0.05f64);
    let i = 0.4 * m * a * a;
    let mut bob = rigid("bob", m, [i; 3], [l * theta0.sin(), 0.0, -l * theta0.cos()]);
    bob.orientation = [(theta0 / 2.0).cos(), 0.0, -(theta0 / 2.0).sin(), 0.0];
    // And a sideways push: the motion is spherical, not planar.
    bob.velocity = [0.0, 0.02, 0.0];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![bob], vec![])
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Ball,
            [None, Some(0)],
            [[0.0; 3], [0.0, 0.0, l]],
        )])
        .unwrap();
    let h = 1e-3;
    let (times, energies) = upward_crossings(&model, h, 20.0, 0, 0);
    let exact =
        2.0 * PI * ((l * l + 0.4 * a * a) / (G * l)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let measured = period(&times);
    let drift = energies
        .iter()
        .fold(0.0f64, |d, e| d.max((e - energies[0]).abs()));
    let swing = m * G * l * (1.0 - theta0.cos());
    println!(
        "period {measured} exact {exact} rel {} energy drift {} of {swing}",
        (measured - exact) / exact,
        drift
    );
    assert!(((measured - exact) / exact).abs() < 1e-3);
}
