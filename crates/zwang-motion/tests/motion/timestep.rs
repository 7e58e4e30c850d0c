//! The velocity-level time stepper against closed forms and physical laws:
//! no creep at the cone's edge, stacks and mass ratios that stand, a disk
//! rolling at two thirds of its speed, energy that never rises through
//! inelastic contacts, and Newton's restitution.

use zwang_contact::Friction;
use zwang_model::planar::{Body, FixedBody, PlanarModel, Shape};
use zwang_model::Bodies;
use zwang_motion::{
    compare_frictions, simulate_steps, NoObserver, Status, StepSettings, TimeStepper,
};

const G: f64 = 9.81;

fn floor() -> FixedBody {
    FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] })
}

fn boxed(half: [f64; 2]) -> Shape {
    Shape::Box { half_extents: half }
}

/// A box (1 x 0.5, `mass` kg) resting on an incline of 20 degrees through
/// the origin, turned with it, its bottom face on it, the pair's friction
/// `mu`; and where its centre starts.
fn on_incline(mass: f64, mu: f64) -> (PlanarModel, [f64; 2]) {
    let slope = 20f64.to_radians();
    let n = [-slope.sin(), slope.cos()];
    let (hx, hy) = (0.5, 0.25);
    let centre = [n[0] * hy, n[1] * hy];
    let mut incline = FixedBody::new("incline", Shape::HalfPlane { normal: n });
    incline.friction = mu;
    let block = Body::rigid("box", mass, mass * (hx * hx + hy * hy) / 3.0)
        .at(centre)
        .turned(slope)
        .with_shape(boxed([hx, hy]))
        .with_surface(mu, 0.0);
    let model = PlanarModel::new([0.0, -G], vec![block], vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![incline])
        .unwrap();
    (model, centre)
}

/// The box on the incline at `mu = 1.01 tan 20`, released at rest: it must
/// stay, its velocity at round-off (MuJoCo creeps at 0.8 to 28 mm/s here).
#[test]
fn a_box_at_the_cone_s_edge_does_not_creep() {
    let (model, centre) = on_incline(1.0, 1.01 * 20f64.to_radians().tan());
    let mut stepper = TimeStepper::new(&model, StepSettings::default()).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..5000 {
        let report = stepper.step(0.002).unwrap();
        assert!(report.solved, "{report:?}");
        assert_eq!(report.contacts, 2);
        let (_, _, v) = stepper.state();
        worst = worst.max(v[0].hypot(v[1]));
    }
    let (t, q, _) = stepper.state();
    assert!((t - 10.0).abs() < 1e-9);
    assert!(worst < 1e-9, "creep {worst} m/s");
    let moved = (q[0] - centre[0]).hypot(q[1] - centre[1]);
    assert!(moved < 1e-8, "moved {moved} m");
}

/// At `mu = 0.99 tan 20` the box slides down with `g (sin - mu cos)` (the
/// closed form of a block on an incline).
#[test]
fn a_box_below_the_cone_s_edge_slides_at_the_closed_form_rate() {
    let slope = 20f64.to_radians();
    let mu = 0.99 * slope.tan();
    let (model, _) = on_incline(2.0, mu);
    let settings = StepSettings::default();
    let out = simulate_steps(&model, 1.0, &settings, &mut NoObserver);
    assert_eq!(out.status, Status::Finished, "{:?}", out.reason);
    let along = out.v[0] * slope.cos() + out.v[1] * slope.sin();
    let expected = -G * (slope.sin() - mu * slope.cos());
    assert!((along - expected).abs() < 1e-9 * G, "{along} vs {expected}");
    // No lift-off, no rocking: the velocity stays along the incline.
    let across = -out.v[0] * slope.sin() + out.v[1] * slope.cos();
    assert!(across.abs() < 1e-9 && out.v[2].abs() < 1e-9);
}

/// Ten boxes stacked, alternating 1 and 100 kg, the light one at the
/// bottom (Box2D and pymunk let it fall at 60 Hz): it stands, lateral drift
/// below 1e-9 m (the bar is 1e-6), sagging less than 1e-8 m.
#[test]
fn a_stack_of_mass_ratio_one_to_a_hundred_stands() {
    let (hx, hy) = (0.5, 0.25);
    let bodies: Vec<Body> = (0..10)
        .map(|i| {
            let m = if i % 2 == 0 { 1.0 } else { 100.0 };
            Body::rigid(format!("b{i}"), m, m * (hx * hx + hy * hy) / 3.0)
                .at([0.0, hy + 2.0 * hy * i as f64])
                .with_shape(boxed([hx, hy]))
        })
        .collect();
    let model = PlanarModel::new([0.0, -G], bodies, vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![floor()])
        .unwrap();
    let mut stepper = TimeStepper::new(&model, StepSettings::default()).unwrap();
    for _ in 0..1000 {
        let report = stepper.step(0.002).unwrap();
        assert!(report.solved, "{report:?}");
        assert_eq!(report.contacts, 20);
    }
    let (_, q, v) = stepper.state();
    for i in 0..10 {
        let (x, y) = (q[3 * i], q[3 * i + 1]);
        assert!(x.abs() < 1e-9, "box {i} drifted {x}");
        assert!(
            (y - (hy + 2.0 * hy * i as f64)).abs() < 1e-8,
            "box {i} at {y}"
        );
        assert!(v[3 * i..3 * i + 3].iter().all(|x| x.abs() < 1e-9));
    }
}

/// A disk thrown onto a rough floor sliding at `v0` without spin: friction
/// `mu m g` slows it and spins it up until it rolls, at `t = v0 / (3 mu g)`,
/// from when on it rolls at `2 v0 / 3` (`omega = -v / r`).
#[test]
fn a_thrown_disk_rolls_at_two_thirds_of_its_speed() {
    let (r, m, v0, mu) = (0.2, 1.5, 3.0, 0.3);
    let disk = Body::rigid("disk", m, 0.5 * m * r * r)
        .at([0.0, r])
        .moving([v0, 0.0])
        .with_shape(Shape::Circle { radius: r })
        .with_surface(mu, 0.0);
    let mut ground = floor();
    ground.friction = mu;
    let model = PlanarModel::new([0.0, -G], vec![disk], vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![ground])
        .unwrap();
    let t_roll = v0 / (3.0 * mu * G);
    let mut errors = Vec::new();
    for h in [1e-3, 1e-4] {
        let settings = StepSettings {
            time_step: h,
            ..StepSettings::default()
        };
        let out = simulate_steps(&model, 2.0 * t_roll, &settings, &mut NoObserver);
        assert_eq!(out.status, Status::Finished, "{:?}", out.reason);
        assert!(
            (out.v[0] - 2.0 * v0 / 3.0).abs() < 1e-9,
            "h {h}: {}",
            out.v[0]
        );
        assert!(
            (out.v[2] + out.v[0] / r).abs() < 1e-9,
            "h {h}: {}",
            out.v[2]
        );
        assert!(out.v[1].abs() < 1e-9 && (out.q[1] - r).abs() < 1e-9);
        // Where it is: sliding then rolling, to the step's order.
        let x_roll = v0 * t_roll - 0.5 * mu * G * t_roll * t_roll;
        let x = x_roll + 2.0 * v0 / 3.0 * t_roll;
        assert!((out.q[0] - x).abs() < v0 * h, "h {h}: {} vs {x}", out.q[0]);
        errors.push((out.q[0] - x).abs());
    }
    // First order in the step.
    let ratio = errors[0] / errors[1];
    assert!((5.0..20.0).contains(&ratio), "{errors:?}");
}

/// A box dropped turning onto a floor with `e = 0`: the energy never
/// rises from one step to the next, and it comes to rest on a face.
#[test]
fn a_tumbling_box_never_gains_energy() {
    let (hx, hy) = (0.5, 0.25);
    let block = Body::rigid("box", 1.0, (hx * hx + hy * hy) / 3.0)
        .at([0.0, 1.0])
        .turned(0.4)
        .moving([1.0, 0.0])
        .spinning(5.0)
        .with_shape(boxed([hx, hy]))
        .with_surface(0.6, 0.0);
    let model = PlanarModel::new([0.0, -G], vec![block], vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![floor()])
        .unwrap();
    let mut stepper = TimeStepper::new(&model, StepSettings::default()).unwrap();
    let energy = |s: &TimeStepper| {
        let (t, q, v) = s.state();
        model.energy(t, q, v)
    };
    let mut last = energy(&stepper);
    for i in 0..2000 {
        stepper.step(0.002).unwrap();
        let now = energy(&stepper);
        assert!(
            now <= last + 1e-12 * last.abs().max(1.0),
            "step {i}: {last} -> {now}"
        );
        last = now;
    }
    let (_, q, v) = stepper.state();
    assert!(v.iter().all(|x| x.abs() < 1e-6), "{v:?}");
    // On a face: the angle a multiple of a quarter turn, the centre at the
    // half extent it rests on.
    let quarter = (q[2] / std::f64::consts::FRAC_PI_2).round();
    assert!((q[2] - quarter * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
    let rest = if quarter as i64 % 2 == 0 { hy } else { hx };
    assert!((q[1] - rest).abs() < 1e-5, "{} vs {rest}", q[1]);
}

/// A ball dropped on a floor with `e = 0.8` leaves each impact at 0.8
/// times its impact speed (to the step's order), and the convex form
/// agrees where there is no sliding.
#[test]
fn a_ball_bounces_with_newton_s_restitution() {
    let (r, h0) = (0.1, 1.0);
    for friction in [Friction::Exact, Friction::Convex] {
        let ball = Body::rigid("ball", 1.0, 0.4 * r * r)
            .at([0.0, r + h0])
            .with_shape(Shape::Circle { radius: r })
            .with_surface(0.5, 0.8);
        let model = PlanarModel::new([0.0, -G], vec![ball], vec![], vec![], vec![])
            .unwrap()
            .with_fixed(vec![floor()])
            .unwrap();
        let settings = StepSettings {
            time_step: 1e-4,
            friction,
            ..StepSettings::default()
        };
        let mut stepper = TimeStepper::new(&model, settings).unwrap();
        let impact = (2.0 * G * h0).sqrt();
        let mut up = None;
        for _ in 0..6000 {
            let before = stepper.state().2[1];
            stepper.step(1e-4).unwrap();
            let after = stepper.state().2[1];
            if before < 0.0 && after > 0.0 {
                up = Some(after);
                break;
            }
        }
        let up = up.expect("a bounce");
        assert!(
            (up - 0.8 * impact).abs() < 1e-3 * impact,
            "{up} vs {}",
            0.8 * impact
        );
    }
}

/// A particle (a disk that cannot turn) sliding on a rough floor: under
/// Coulomb's law it slides with `u_N = 0`; the convex relaxation makes it
/// glide off the floor at `u_N = mu |u_T|`, which after one step from `v0`
/// is `u_T = (v0 - mu g h) / (1 + mu^2)` (the impulse on the cone's edge
/// with `u` on the dual cone's): seed 003's non-equivalence in
/// velocities, and the positions part.
#[test]
fn the_convex_form_glides_off_a_rough_floor_exact_coulomb_does_not() {
    let (v0, mu, h) = (2.0, 0.5, 0.002);
    let puck = Body::particle("puck", 1.0)
        .at([0.0, 0.1])
        .moving([v0, 0.0])
        .with_shape(Shape::Circle { radius: 0.1 })
        .with_surface(mu, 0.0);
    let mut ground = floor();
    ground.friction = mu;
    let model = PlanarModel::new([0.0, -G], vec![puck], vec![], vec![], vec![])
        .unwrap()
        .with_fixed(vec![ground])
        .unwrap();
    for (friction, ut, un) in [
        (Friction::Exact, v0 - mu * G * h, 0.0),
        (Friction::Convex, (v0 - mu * G * h) / (1.0 + mu * mu), 0.0),
    ] {
        let settings = StepSettings {
            friction,
            ..StepSettings::default()
        };
        let mut stepper = TimeStepper::new(&model, settings).unwrap();
        let report = stepper.step(h).unwrap();
        let v = stepper.state().2;
        let un = if friction == Friction::Convex {
            mu * ut
        } else {
            un
        };
        // To the solver's tolerance (1e-10 on Siconos' measure).
        assert!((v[0] - ut).abs() < 1e-9, "{friction:?}: {} vs {ut}", v[0]);
        assert!((v[1] - un).abs() < 1e-9, "{friction:?}: {} vs {un}", v[1]);
        assert!((report.separation - un).abs() < 1e-9, "{report:?}");
    }
    let settings = StepSettings {
        output_every: 0.01,
        ..StepSettings::default()
    };
    let cmp = compare_frictions(&model, 0.1, &settings).unwrap();
    let glide = mu * (v0 - mu * G * h) / (1.0 + mu * mu);
    assert!((cmp.max_separation_convex - glide).abs() < 1e-9);
    assert!(cmp.max_separation_exact < 1e-9);
    assert_eq!(cmp.steps, 50);
    assert_eq!(cmp.rows.len(), 11);
    // Gliding off at `glide`, the convex puck flies (semi-implicit Euler:
    // `y_N - y_0 = h (N glide - g h N (N - 1) / 2)`) where the exact one
    // stays on the floor; the heights differ most.
    let last = cmp.rows.last().unwrap();
    assert!((last.t - 0.1).abs() < 1e-12);
    let n = 50.0;
    let up = h * (n * glide - G * h * n * (n - 1.0) / 2.0);
    assert!(
        (last.position_difference - up).abs() < 1e-9,
        "{last:?} vs {up}"
    );
}

/// Joints under the time stepper. A rod pinned at one end to ground and
/// resting on a floor point at the other, horizontal: statics gives the
/// point `m g / 2` and it stays (no creep, the pin held to 1e-9). A bob
/// on a rod of length `L` released horizontal passes the bottom at
/// `sqrt(2 g L)`, to the step's first order, its rod kept.
#[test]
fn joints_are_held_by_the_time_stepper() {
    use zwang_model::planar::{BodyRef, Contact, Joint, JointKind, Surface};
    use zwang_motion::{ContactSample, Observer};
    let (m, l) = (2.0, 1.0);
    let rod = Body::rigid("rod", m, m * l * l / 12.0).at([0.5 * l, 0.0]);
    let pin = Joint {
        kind: JointKind::Pin,
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0, 0.0], [-0.5 * l, 0.0]],
    };
    let tip = Contact::new("tip", 0, [0.5 * l, 0.0], Surface::FLOOR).with_surface(0.5, 0.0);
    let model = PlanarModel::new([0.0, -G], vec![rod], vec![pin], vec![tip], vec![]).unwrap();
    /// The last sample's force on the tip.
    struct Force(f64);
    impl Observer for Force {
        fn wants_samples(&self) -> bool {
            true
        }
        fn sample(&mut self, _t: f64, _q: &[f64], _v: &[f64], contacts: &[ContactSample]) {
            self.0 = contacts[0].normal_force;
        }
    }
    let mut force = Force(0.0);
    let settings = StepSettings {
        output_every: 0.1,
        ..StepSettings::default()
    };
    let out = simulate_steps(&model, 1.0, &settings, &mut force);
    assert_eq!(out.status, Status::Finished, "{:?}", out.reason);
    assert!((force.0 - m * G / 2.0).abs() < 1e-8, "{}", force.0);
    assert!(
        out.q[2].abs() < 1e-9 && out.v.iter().all(|v| v.abs() < 1e-9),
        "{out:?}"
    );
    assert!(
        out.max_constraint_drift < 1e-9,
        "{}",
        out.max_constraint_drift
    );

    let bob = Body::particle("bob", 1.0).at([l, 0.0]);
    let string = Joint {
        kind: JointKind::Distance { length: l },
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0, 0.0], [0.0, 0.0]],
    };
    let model = PlanarModel::new([0.0, -G], vec![bob], vec![string], vec![], vec![]).unwrap();
    let bottom = (2.0 * G * l).sqrt();
    let mut errors = Vec::new();
    for h in [1e-3, 1e-4] {
        let mut stepper = TimeStepper::new(&model, StepSettings::default()).unwrap();
        // Until it passes below the pivot.
        let mut speed = 0.0;
        for _ in 0..(1.0 / h) as usize {
            let x_before = stepper.state().1[0];
            stepper.step(h).unwrap();
            let (_, q, v) = stepper.state();
            assert!((q[0].hypot(q[1]) - l).abs() < 1e-9, "the rod stretched");
            if x_before > 0.0 && q[0] <= 0.0 {
                speed = v[0].hypot(v[1]);
                break;
            }
        }
        errors.push((speed - bottom).abs());
    }
    // First order: about ten times smaller for a ten times smaller step.
    let ratio = errors[0] / errors[1];
    assert!(
        errors[0] < 5e-3 * bottom && (5.0..20.0).contains(&ratio),
        "{errors:?}"
    );
}

/// Absurd inputs end a run with a reason, never a panic: a body thrown at
/// 1e300 m/s (its positions overflow within a step), a gravity of 1e308.
#[test]
fn absurd_speeds_and_forces_fail_with_a_reason() {
    for (speed, g) in [(1e300, 9.81), (0.0, 1e308)] {
        let ball = Body::rigid("ball", 1.0, 0.004)
            .at([0.0, 0.1])
            .moving([speed, -speed])
            .with_shape(Shape::Circle { radius: 0.1 });
        let model = PlanarModel::new([0.0, -g], vec![ball], vec![], vec![], vec![])
            .unwrap()
            .with_fixed(vec![floor()])
            .unwrap();
        let out = simulate_steps(&model, 1.0, &StepSettings::default(), &mut NoObserver);
        assert_eq!(out.status, Status::Failed, "{speed} {g}: {out:?}");
        assert!(out.reason.is_some());
    }
}
