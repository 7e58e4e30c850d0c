//! Joints in space under the time stepper against closed forms: a
//! spherical pendulum on a ball joint (the compound pendulum's period), a
//! bob on a string (a distance joint: the point pendulum's period), a
//! door on a hinge (the physical pendulum's period), a block on an
//! inclined slider (`g sin theta`), a welded pair (one rigid body), a top
//! on a ball joint at its tip (steady precession; `L_z` and the spin
//! kept) and Newton's cradle.

use std::f64::consts::PI;

use zwang_geometry::spatial::Shape;
use zwang_model::spatial::rotation::{apply, cross, dot, matrix};
use zwang_model::spatial::SpatialForce;
use zwang_model::spatial::{SpatialBody, SpatialJointKind, SpatialKind, SpatialModel};
use zwang_motion::{SpaceStepper, StepSettings};

use crate::common::{joint, rigid};

const G: f64 = 9.81;

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

/// `q v q^-1`.
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    apply(&matrix(q), v)
}

/// A symmetric top (mass m, tip to centre l, moments i1 = i2 and i3
/// about its centre) on a ball joint at its tip at the origin, its axis
/// at `theta` from the vertical, spinning at `omega3` and given the slow
/// steady precession rate of Goldstein's `m g l = Omega (I3 omega3 - I1'
/// Omega cos theta)`, `I1' = I1 + m l^2`.
struct Top {
    m: f64,
    l: f64,
    i1: f64,
    i3: f64,
    theta: f64,
    omega3: f64,
}

impl Top {
    fn steady(&self) -> f64 {
        let i1p = self.i1 + self.m * self.l * self.l;
        let (a, b, c) = (
            i1p * self.theta.cos(),
            self.i3 * self.omega3,
            self.m * G * self.l,
        );
        (b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
    }

    fn model(&self) -> SpatialModel {
        let half = self.theta / 2.0;
        let orientation = [half.cos(), 0.0, half.sin(), 0.0];
        let axis = [self.theta.sin(), 0.0, self.theta.cos()];
        let centre = axis.map(|x| self.l * x);
        let precession = self.steady();
        // omega = Omega z + psi' e3, with omega . e3 = omega3.
        let spin = self.omega3 - precession * self.theta.cos();
        let omega = [0, 1, 2].map(|i| spin * axis[i] + if i == 2 { precession } else { 0.0 });
        let mut top = rigid("top", self.m, [self.i1, self.i1, self.i3], centre);
        top.orientation = orientation;
        top.angular_velocity = omega;
        top.velocity = cross(omega, centre);
        SpatialModel::new([0.0, 0.0, -G], vec![top], vec![])
            .unwrap()
            .with_joints(vec![joint(
                SpatialJointKind::Ball,
                [None, Some(0)],
                [[0.0; 3], [0.0, 0.0, -self.l]],
            )])
            .unwrap()
    }
}

/// What a run of the top measured: the precession rate (the azimuth of
/// the centre over the run), and the largest relative change of `L_z`
/// (about the tip), of the spin `omega . e3`, of the energy (relative to
/// the kinetic) and the tilt's largest change, rad.
struct TopRun {
    rate: f64,
    lz: f64,
    spin: f64,
    energy: f64,
    tilt: f64,
}

fn run_top(top: &Top, h: f64, duration: f64) -> TopRun {
    let model = top.model();
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    // L_z about the tip and the spin omega . e3, from the state, by the
    // body's tensor written here.
    let invariants = |q: &[f64], v: &[f64]| {
        let s = model.body_state(0, q, v);
        let e3 = rotate(s.orientation, [0.0, 0.0, 1.0]);
        let inverse = [
            s.orientation[0],
            -s.orientation[1],
            -s.orientation[2],
            -s.orientation[3],
        ];
        let body = rotate(inverse, s.angular_velocity);
        let l_body = [top.i1 * body[0], top.i1 * body[1], top.i3 * body[2]];
        let l_world = rotate(s.orientation, l_body);
        let orbital = cross(s.position, s.velocity.map(|x| top.m * x));
        (
            l_world[2] + orbital[2],
            dot(s.angular_velocity, e3),
            s.position[1].atan2(s.position[0]),
            (s.position[2] / top.l).acos(),
        )
    };
    let (_, q, v) = stepper.state();
    let (lz0, spin0, _, _) = invariants(q, v);
    let e0 = model.energy(q, v);
    let kinetic = e0 - top.m * G * q[2];
    let (mut azimuth, mut last) = (0.0, 0.0);
    let mut out = TopRun {
        rate: 0.0,
        lz: 0.0,
        spin: 0.0,
        energy: 0.0,
        tilt: 0.0,
    };
    while stepper.state().0 < duration - 0.5 * h {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        let (lz, spin, phi, tilt) = invariants(q, v);
        let mut d = phi - last;
        d -= 2.0 * PI * (d / (2.0 * PI)).round();
        azimuth += d;
        last = phi;
        out.lz = out.lz.max((lz - lz0).abs() / lz0.abs());
        out.spin = out.spin.max((spin - spin0).abs() / spin0);
        out.energy = out.energy.max((model.energy(q, v) - e0).abs() / kinetic);
        out.tilt = out.tilt.max((tilt - top.theta).abs());
    }
    out.rate = azimuth / stepper.state().0;
    out
}

#[test]
fn a_top_on_a_ball_joint_precesses_at_the_steady_rate() {
    // A fast top: I3 omega3 = 0.8 against sqrt(4 I1' m g l) = 0.22.
    let top = Top {
        m: 1.0,
        l: 0.1,
        i1: 0.002,
        i3: 0.004,
        theta: 30f64.to_radians(),
        omega3: 200.0,
    };
    let exact = top.steady();
    let fast = top.m * G * top.l / (top.i3 * top.omega3);
    let fine = run_top(&top, 1e-4, 2.0);
    let coarse = run_top(&top, 3e-4, 2.0);
    println!(
        "precession {} against {exact} ({:e}), the fast top's {fast} ({:e}); over 2 s: \
         L_z {:e}, spin {:e}, energy {:e} of the kinetic, tilt {:e} rad (h = 3e-4: L_z {:e}, \
         rate {:e})",
        fine.rate,
        (fine.rate - exact) / exact,
        (fine.rate - fast) / fast,
        fine.lz,
        fine.spin,
        fine.energy,
        fine.tilt,
        coarse.lz,
        (coarse.rate - exact) / exact,
    );
    // Goldstein's steady rate, to 3e-4 at h = 1e-4 (1.3e-3 at 3e-4).
    assert!(((fine.rate - exact) / exact).abs() < 5e-4);
    assert!(((coarse.rate - exact) / exact).abs() < 2e-3);
    // The fast top's m g l / (I3 omega3) is 1.6 % below it here.
    assert!(((fine.rate - fast) / fast - (exact - fast) / fast).abs() < 5e-4);
    // The spin of a symmetric top is kept to round-off (5e-13 over 20 000
    // steps): the joint's impulse at the tip has no moment about the axis,
    // the gyroscopic term none along it.
    assert!(fine.spin < 1e-11, "spin {:e}", fine.spin);
    // L_z, the energy and the tilt drift at first order in h (the
    // scheme's order): 1 %, 1.1e-4 of the kinetic energy and 0.017 rad
    // over 2 s at h = 1e-4, three times as much at 3e-4.
    assert!(fine.lz < 0.012, "L_z {:e}", fine.lz);
    assert!(fine.energy < 1.5e-4, "energy {:e}", fine.energy);
    assert!(fine.tilt < 0.02, "tilt {:e}", fine.tilt);
    let order = (coarse.lz / fine.lz).ln() / 3f64.ln();
    assert!((0.8..1.2).contains(&order), "order {order}");
}

#[test]
fn a_bob_on_a_distance_joint_swings_at_the_point_pendulums_period() {
    // The string holds the bob's centre: the bob's spin is free, so the
    // motion is the point pendulum's, T = 2 pi sqrt(L / g) (1 + t0^2 / 16).
    let (l, theta0) = (0.8, 0.04f64);
    let bob = rigid(
        "bob",
        0.5,
        [1e-3; 3],
        [l * theta0.sin(), 0.0, -l * theta0.cos()],
    );
    let model = SpatialModel::new([0.0, 0.0, -G], vec![bob], vec![])
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Distance { length: None },
            [None, Some(0)],
            [[0.0; 3], [0.0; 3]],
        )])
        .unwrap();
    let (times, energies) = upward_crossings(&model, 1e-3, 20.0, 0, 0);
    let exact = 2.0 * PI * (l / G).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let measured = period(&times);
    let swing = 0.5 * G * l * (1.0 - theta0.cos());
    let drift = energies
        .iter()
        .fold(0.0f64, |d, e| d.max((e - energies[0]).abs()));
    println!(
        "distance pendulum: period {measured} against {exact} ({:e}), energy drift {:e} of the swing's",
        (measured - exact) / exact,
        drift / swing
    );
    assert!(((measured - exact) / exact).abs() < 1e-4);
    assert!(drift < 5e-3 * swing);
}

/// A plate (3 kg; a = 0.4 wide in x, b = 0.6 tall in z, thin in y) to
/// hang by a hinge along y at the middle of its top edge (the origin),
/// let go at 0.05 rad; the distance `d` of its centre below the hinge,
/// and the physical pendulum's period `2 pi sqrt(I_p / (m g d)) (1 +
/// t0^2 / 16)`, `I_p = m (a^2 + b^2) / 12 + m d^2`.
fn plate() -> (SpatialBody, f64, f64) {
    let (m, a, b, theta0) = (3.0, 0.4, 0.6, 0.05f64);
    let d = b / 2.0;
    let iy = m * (a * a + b * b) / 12.0;
    let mut plate = rigid(
        "plate",
        m,
        [m * b * b / 12.0, iy, m * a * a / 12.0],
        [d * theta0.sin(), 0.0, -d * theta0.cos()],
    );
    plate.orientation = [(theta0 / 2.0).cos(), 0.0, -(theta0 / 2.0).sin(), 0.0];
    let exact = 2.0 * PI * ((iy + m * d * d) / (m * G * d)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    (plate, d, exact)
}

#[test]
fn a_plate_on_a_hinge_swings_at_the_physical_pendulums_period() {
    // A plate (a = 0.4 wide in x, b = 0.6 tall in z, thin in y) hung by a
    // hinge along y at the middle of its top edge: T = 2 pi sqrt(I_p /
    // (m g d)), d = b / 2, I_p = m (a^2 + b^2) / 12 + m d^2. A torque
    // about x and z the hinge must take: the plate stays in its plane.
    let (plate, d, exact) = plate();
    let forces = vec![SpatialForce {
        body: 0,
        force: [0.0, 2.0, 0.0],
        torque: [0.7, 0.0, -0.4],
    }];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![plate], forces)
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Hinge {
                axis: [0.0, 1.0, 0.0],
            },
            [None, Some(0)],
            [[0.0; 3], [0.0, 0.0, d]],
        )])
        .unwrap();
    let h = 1e-3;
    let (times, _) = upward_crossings(&model, h, 12.0, 0, 0);
    let measured = period(&times);
    // The plane kept: after the run, the centre at y = 0 and the plate's
    // y axis still the world's.
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    let mut off = 0.0f64;
    for _ in 0..3000 {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        let s = model.body_state(0, q, v);
        let y = rotate(s.orientation, [0.0, 1.0, 0.0]);
        off = off.max(s.position[1].abs()).max((1.0 - y[1]).abs());
        off = off
            .max(s.angular_velocity[0].abs())
            .max(s.angular_velocity[2].abs());
    }
    println!(
        "hinge: period {measured} against {exact} ({:e}), off the plane {off:e}",
        (measured - exact) / exact
    );
    assert!(((measured - exact) / exact).abs() < 1e-4);
    assert!(off < 1e-9, "{off:e}");
}

#[test]
fn a_block_on_an_inclined_slider_accelerates_at_g_sin_theta() {
    // The slider's axis 25 degrees below the horizontal, in the x-z
    // plane: s(t) = g sin(25) t^2 / 2 along it, nothing across it, no
    // turn (a torque on the block the joint takes).
    let theta = 25f64.to_radians();
    let axis = [theta.cos(), 0.0, -theta.sin()];
    let block = rigid("block", 2.0, [0.01, 0.02, 0.03], [0.0, 0.0, 0.0]);
    let forces = vec![SpatialForce {
        body: 0,
        force: [0.0, 0.0, 0.0],
        torque: [0.3, -0.2, 0.5],
    }];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![block], forces)
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Slider { axis },
            [None, Some(0)],
            [[0.0; 3], [0.0; 3]],
        )])
        .unwrap();
    let h = 1e-3;
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    for _ in 0..1000 {
        stepper.step(h).unwrap();
    }
    let (t, q, v) = stepper.state();
    let s = model.body_state(0, q, v);
    let along = dot(s.position, axis);
    let across = cross(s.position, axis);
    let speed = dot(s.velocity, axis);
    let a = G * theta.sin();
    // Velocity-level stepping: v exact at step ends, s = a t (t + h) / 2.
    println!(
        "slider: speed {speed} against {} , s {along} against {} (t^2 / 2: {})",
        a * t,
        a * t * (t + h) / 2.0,
        a * t * t / 2.0
    );
    assert!((speed - a * t).abs() < 1e-9 * a * t);
    assert!((along - a * t * (t + h) / 2.0).abs() < 1e-9);
    assert!(across.iter().all(|x| x.abs() < 1e-9), "{across:?}");
    assert!(
        (s.orientation[0] - 1.0).abs() < 1e-12 && s.angular_velocity.iter().all(|w| w.abs() < 1e-9)
    );
}

#[test]
fn a_welded_pair_on_a_hinge_swings_as_one_body() {
    // Two bodies welded at a point between them, the first hung by a
    // hinge along y: one physical pendulum of both masses, T = 2 pi
    // sqrt(I_p / (M g d)) (1 + t0^2 / 16).
    let (m1, m2, z1, z2, theta0) = (1.0, 2.0, 0.5, 1.0, 0.05f64);
    let (i1, i2) = (0.004, 0.01);
    let turn = [(theta0 / 2.0).cos(), 0.0, -(theta0 / 2.0).sin(), 0.0];
    let at = |z: f64| [z * theta0.sin(), 0.0, -z * theta0.cos()];
    let mut a = rigid("a", m1, [i1; 3], at(z1));
    let mut b = rigid("b", m2, [i2; 3], at(z2));
    a.orientation = turn;
    b.orientation = turn;
    let model = SpatialModel::new([0.0, 0.0, -G], vec![a, b], vec![])
        .unwrap()
        .with_joints(vec![
            joint(
                SpatialJointKind::Hinge {
                    axis: [0.0, 1.0, 0.0],
                },
                [None, Some(0)],
                [[0.0; 3], [0.0, 0.0, z1]],
            ),
            joint(
                SpatialJointKind::Weld,
                [Some(0), Some(1)],
                [[0.0, 0.0, -0.25], [0.0, 0.0, 0.25]],
            ),
        ])
        .unwrap();
    let (times, _) = upward_crossings(&model, 1e-3, 12.0, 1, 0);
    let mass = m1 + m2;
    let d = (m1 * z1 + m2 * z2) / mass;
    let ip = i1 + m1 * z1 * z1 + i2 + m2 * z2 * z2;
    let exact = 2.0 * PI * (ip / (mass * G * d)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let measured = period(&times);
    println!(
        "weld: period {measured} against {exact} ({:e})",
        (measured - exact) / exact
    );
    assert!(((measured - exact) / exact).abs() < 1e-4);
}

/// Newton's cradle: `n` steel balls (radius 0.02 m, 7850 kg/m^3) on
/// ball joints 0.3 m below their pivots, `gap` apart, restitution 1, the
/// first let go from 20 degrees.
fn cradle(n: usize, gap: f64) -> SpatialModel {
    let (r, l, alpha) = (0.02, 0.3, 20f64.to_radians());
    let mass = 7850.0 * 4.0 / 3.0 * PI * r * r * r;
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    for i in 0..n {
        let x = i as f64 * (2.0 * r + gap);
        let mut ball = SpatialBody::new(
            &format!("ball{i}"),
            SpatialKind::Rigid {
                mass,
                inertia: None,
            },
        );
        ball.shape = Some(Shape::Sphere { radius: r });
        ball.restitution = 1.0;
        ball.friction = 0.0;
        ball.position = [x, 0.0, 0.0];
        if i == 0 {
            ball.position = [x - l * alpha.sin(), 0.0, l - l * alpha.cos()];
            ball.orientation = [(alpha / 2.0).cos(), 0.0, (alpha / 2.0).sin(), 0.0];
        }
        bodies.push(ball);
        joints.push(joint(
            SpatialJointKind::Ball,
            [None, Some(i)],
            [[x, 0.0, l], [0.0, 0.0, l]],
        ));
    }
    SpatialModel::new([0.0, 0.0, -G], bodies, vec![])
        .unwrap()
        .with_joints(joints)
        .unwrap()
}

/// Per ball, its centre's speed, and the balls' total angular momentum
/// about the y axes through their pivots (contacts horizontal between
/// centres at the same height move none of the sum; gravity only off
/// the bottom).
fn cradle_state(model: &SpatialModel, q: &[f64], v: &[f64], gap: f64) -> (Vec<[f64; 3]>, f64) {
    let mut total = 0.0;
    let mut velocities = Vec::new();
    for b in 0..model.bodies().len() {
        let s = model.body_state(b, q, v);
        let SpatialKind::Rigid { mass, .. } = model.bodies()[b].kind else {
            continue;
        };
        let i = 0.4 * mass * 0.02 * 0.02;
        let arm = [
            s.position[0] - b as f64 * (0.04 + gap),
            0.0,
            s.position[2] - 0.3,
        ];
        let orbital = cross(arm, s.velocity.map(|x| mass * x));
        total += i * s.angular_velocity[1] + orbital[1];
        velocities.push(s.velocity);
    }
    (velocities, total)
}

fn norm(x: [f64; 3]) -> f64 {
    dot(x, x).sqrt()
}

#[test]
fn newtons_cradle_with_gaps_passes_the_speed_to_the_last_ball() {
    // Five balls 2 mm apart (more than a step's travel at the impact
    // speed, 0.6 mm at h = 1e-3): the impacts happen one after another,
    // each a two-ball exchange under Newton's law with e = 1, and the
    // last ball leaves with the first's speed; the others stay (each
    // stopped a gap past its lowest point, from where it swings back at
    // sqrt(g / L) times the gap, 1 cm/s, later).
    let (n, gap, h) = (5, 2e-3, 1e-3);
    let model = cradle(n, gap);
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    let (_, q, v) = stepper.state();
    let (e0, z0) = (model.energy(q, v), q[2]);
    let mut before = (0.0, 0.0);
    let mut after = None;
    let (mut top, mut e_max) = (f64::NEG_INFINITY, e0);
    while stepper.state().0 < 0.56 {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        let (vel, l) = cradle_state(&model, q, v, gap);
        e_max = e_max.max(model.energy(q, v));
        if norm(vel[1]) <= 1e-6 {
            before = (norm(vel[0]), l);
        }
        if after.is_none() && norm(vel[n - 1]) > 1e-6 {
            let others = vel[..n - 1].iter().map(|x| norm(*x)).fold(0.0, f64::max);
            after = Some((norm(vel[n - 1]), others, l));
        }
        top = top.max(q[7 * (n - 1) + 2]);
    }
    let (last, others, l_after) = after.expect("the last ball moves");
    let (first, l_before) = before;
    let (_, q, v) = stepper.state();
    let e_end = model.energy(q, v);
    println!(
        "cradle (gaps): the first ball hits at {first} m/s, the last leaves at {last} ({:e}), \
         the others at most {others:e} m/s; angular momentum about the pivots {:e} relative; \
         the last ball rises to {top} m against the first's {z0} m ({:e}); energy {:e} relative \
         at the end, at most {:e} above the start",
        (last - first) / first,
        (l_after - l_before) / l_before,
        (top - z0) / z0,
        (e_end - e0) / e0,
        (e_max - e0) / e0
    );
    assert!(((last - first) / first).abs() < 1e-3);
    assert!(others < 2e-3 * first);
    // Gravity acts over the wave's 9 ms on balls up to a gap past their
    // lowest points: 2e-3 of the momentum.
    assert!(((l_after - l_before) / l_before).abs() < 4e-3);
    assert!(((top - z0) / z0).abs() < 5e-3);
    assert!(((e_end - e0) / e0).abs() < 2e-3 && e_max - e0 < 3e-3 * e0);
}

#[test]
fn newtons_cradle_touching_moves_the_row_together() {
    // Touching balls at velocity level: one problem for all the contacts
    // of the impact, Newton's law `u+ >= e u-` on the one that closes, `u+
    // >= 0` on the resting ones. Its answer for n equal balls (effective
    // masses equal: the same pendulums) is not the ideal cradle: the
    // first rebounds at -(n - 2) V / n, the other n - 1 leave together at
    // 2 V / n. Momentum (about the pivots) and energy are kept exactly by
    // that answer (v1^2 + (n - 1) w^2 = V^2): what physics guarantees.
    let (n, h) = (5, 1e-3);
    let model = cradle(n, 0.0);
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    let mut before = (0.0, 0.0, 0.0);
    let mut after = None;
    while stepper.state().0 < 0.4 && after.is_none() {
        stepper.step(h).unwrap();
        let (_, q, v) = stepper.state();
        let (vel, l) = cradle_state(&model, q, v, 0.0);
        if norm(vel[1]) <= 1e-6 {
            before = (vel[0][0], l, model.energy(q, v));
        } else {
            after = Some((vel, l, model.energy(q, v)));
        }
    }
    let (big_v, l_before, e_before) = before;
    let (vel, l_after, e_after) = after.expect("an impact");
    let (rebound, row) = (-(n as f64 - 2.0) / n as f64 * big_v, 2.0 / n as f64 * big_v);
    println!(
        "cradle (touching): V = {big_v}; the first at {} (law {rebound}), the row at {:?} (law {row}); \
         angular momentum {:e}, energy {:e} relative",
        vel[0][0],
        vel[1..].iter().map(|x| x[0]).collect::<Vec<_>>(),
        (l_after - l_before) / l_before,
        (e_after - e_before) / e_before
    );
    assert!((vel[0][0] - rebound).abs() < 1e-3 * big_v);
    for x in &vel[1..] {
        assert!((x[0] - row).abs() < 1e-3 * big_v);
    }
    assert!(((l_after - l_before) / l_before).abs() < 1e-3);
    assert!(e_after <= e_before * (1.0 + 1e-4));
}

#[test]
fn a_door_on_two_hinges_of_one_axis_swings_as_on_one() {
    // Two coaxial hinges hold the same five freedoms twice (ten rows of
    // rank five): the redundant rows drop out of the null space and of
    // the drift's projection, and the plate swings as on one hinge, at
    // the physical pendulum's period.
    let (plate, d, exact) = plate();
    let hinge = |y: f64| {
        joint(
            SpatialJointKind::Hinge {
                axis: [0.0, 1.0, 0.0],
            },
            [None, Some(0)],
            [[0.0, y, 0.0], [0.0, y, d]],
        )
    };
    let model = SpatialModel::new([0.0, 0.0, -G], vec![plate], vec![])
        .unwrap()
        .with_joints(vec![hinge(-0.2), hinge(0.2)])
        .unwrap();
    let (times, _) = upward_crossings(&model, 1e-3, 12.0, 0, 0);
    let measured = period(&times);
    println!(
        "two hinges: period {measured} against {exact} ({:e})",
        (measured - exact) / exact
    );
    assert!(((measured - exact) / exact).abs() < 1e-4);
}

#[test]
fn bodies_joined_by_a_joint_do_not_collide() {
    // Two boxes overlapping by half their size, joined by a ball joint,
    // falling: no contact between them, no correction, free fall of both
    // centres at g.
    let cube = |name: &str, x: f64| {
        let mut b = SpatialBody::new(
            name,
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: None,
            },
        );
        b.shape = Some(Shape::Box {
            half_extents: [0.1; 3],
        });
        b.position = [x, 0.0, 0.0];
        b
    };
    let model = SpatialModel::new([0.0, 0.0, -G], vec![cube("a", 0.0), cube("b", 0.1)], vec![])
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Ball,
            [Some(0), Some(1)],
            [[0.05, 0.0, 0.0], [-0.05, 0.0, 0.0]],
        )])
        .unwrap();
    let h = 1e-3;
    let mut stepper = SpaceStepper::new(&model, settings(h)).unwrap();
    for _ in 0..100 {
        let report = stepper.step(h).unwrap();
        assert_eq!((report.contacts, report.corrected), (0, false));
    }
    let (t, q, v) = stepper.state();
    for b in 0..2 {
        let s = model.body_state(b, q, v);
        assert!(
            (s.velocity[2] + G * t).abs() < 1e-9 * G * t,
            "{:?}",
            s.velocity
        );
        assert!((s.position[2] + G * t * (t + h) / 2.0).abs() < 1e-9);
    }
}

#[test]
fn a_start_off_its_joint_is_moved_onto_it() {
    // A bob 1 m below a ball joint's anchor on its rod, started 2 cm low
    // and moving along the rod: the stepper starts it on the joint (the
    // anchor at the pivot, no velocity along the rod), and a run's
    // initial energy is that start's.
    let mut bob = rigid("bob", 1.0, [0.01; 3], [0.3, 0.0, -0.98]);
    bob.velocity = [0.5, 0.2, -1.0];
    let model = SpatialModel::new([0.0, 0.0, -G], vec![bob], vec![])
        .unwrap()
        .with_joints(vec![joint(
            SpatialJointKind::Ball,
            [None, Some(0)],
            [[0.0; 3], [0.0, 0.0, 1.0]],
        )])
        .unwrap();
    let stepper = SpaceStepper::new(&model, settings(1e-3)).unwrap();
    let (_, q, v) = stepper.state();
    let s = model.body_state(0, q, v);
    let anchor = [0, 1, 2].map(|i| s.position[i] + rotate(s.orientation, [0.0, 0.0, 1.0])[i]);
    assert!(anchor.iter().all(|x| x.abs() < 1e-9), "{anchor:?}");
    // The anchor's velocity: v + w x (anchor - centre) = 0.
    let arm = rotate(s.orientation, [0.0, 0.0, 1.0]);
    let w_arm = cross(s.angular_velocity, arm);
    assert!(
        (0..3).all(|i| (s.velocity[i] + w_arm[i]).abs() < 1e-12),
        "{s:?}"
    );
    let outcome =
        zwang_motion::simulate_space(&model, 0.01, &settings(1e-3), &mut zwang_motion::NoObserver);
    assert_eq!(outcome.energy_initial, model.energy(q, v));
}

#[test]
fn contacts_the_joints_hold_shut_do_not_stop_the_run() {
    // A chain of six capsules whose start is off its joints: moved onto
    // them, it folds so that links overlap links they are not joined to,
    // along directions the joints leave no motion in (those contact rows
    // are zero to round-off in the joints' null space). Such rows are
    // left out; the chain falls onto the floor and the run finishes.
    let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
    floor.shape = Some(Shape::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
    let mut bodies = vec![floor];
    let turn = [0.5f64.sqrt(), 0.0, 0.5f64.sqrt(), 0.0];
    for i in 0..6 {
        let mut link = SpatialBody::new(
            &format!("link{i}"),
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: None,
            },
        );
        link.shape = Some(Shape::Capsule {
            half_length: 0.08,
            radius: 0.02,
        });
        link.position = [0.2 * i as f64 + 0.1, 0.0, 0.5];
        link.orientation = turn;
        bodies.push(link);
    }
    let mut joints = vec![joint(
        SpatialJointKind::Ball,
        [None, Some(1)],
        [[0.0, 0.0, 0.5], [0.0, 0.0, 0.1]],
    )];
    let kinds = [
        SpatialJointKind::Ball,
        SpatialJointKind::Hinge {
            axis: [0.0, 1.0, 0.0],
        },
        SpatialJointKind::Ball,
        SpatialJointKind::Distance { length: None },
        SpatialJointKind::Ball,
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        joints.push(joint(
            kind,
            [Some(i + 1), Some(i + 2)],
            [[0.0, 0.0, -0.1], [0.0, 0.0, 0.1]],
        ));
    }
    let model = SpatialModel::new([0.0, 0.0, -G], bodies, vec![])
        .unwrap()
        .with_joints(joints)
        .unwrap();
    let o =
        zwang_motion::simulate_space(&model, 1.0, &settings(2e-3), &mut zwang_motion::NoObserver);
    assert_eq!(o.status, zwang_motion::Status::Finished, "{:?}", o.reason);
    // Hanging from the pivot 0.5 m up, 1.2 m of chain reaches the floor
    // and none of it goes through.
    let heights: Vec<f64> = (1..7)
        .map(|b| model.body_state(b, &o.q, &o.v).position[2])
        .collect();
    assert!(heights.iter().all(|&z| z > 0.0), "{heights:?}");
    assert!(heights.iter().any(|&z| z < 0.025), "{heights:?}");
}
