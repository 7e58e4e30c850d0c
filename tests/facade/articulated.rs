//! Kinematic trees in joint coordinates under the event-driven method
//! (`zwang_model::articulated::ArticulatedMechanism`), against closed
//! forms computed here: the pendulum's period (the complete elliptic
//! integral, by the arithmetic-geometric mean), a damped spring's motion,
//! a motor's torque, and a free body's angular momentum and energy.

use std::f64::consts::PI;

use zwang::model::articulated::{
    Actuator, Articulated, ArticulatedMechanism, JointPhysics, Transmission,
};
use zwang::model::spatial::rotation::{apply, cross, matrix};
use zwang::motion::{simulate, NoObserver, Settings, Status};
use zwang::tree::{Body, Joint, Tree};

const G: f64 = 9.81;

/// A model of `bodies` with neutral joint physics, no geoms and no
/// actuators.
fn articulated(bodies: Vec<Body>, gravity: [f64; 3]) -> Articulated {
    let tree = Tree::new(bodies, gravity).expect("a valid tree");
    let joints = tree
        .bodies()
        .iter()
        .flat_map(|b| &b.joints)
        .map(|j| JointPhysics {
            name: j.name.clone(),
            range: None,
            damping: 0.0,
            stiffness: 0.0,
            springref: 0.0,
            frictionloss: 0.0,
        })
        .collect();
    Articulated {
        tree,
        joints,
        geoms: Vec::new(),
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

/// Tight tolerances: the closed forms are met to about 1e-9.
fn settings() -> Settings {
    let mut s = Settings::default();
    s.ode.rtol = 1e-12;
    s.ode.atol = 1e-14;
    s
}

fn run(
    model: Articulated,
    qpos: Vec<f64>,
    qvel: Vec<f64>,
    ctrl: Vec<f64>,
    t: f64,
) -> (Vec<f64>, Vec<f64>, f64, f64) {
    let mechanism = ArticulatedMechanism::new(model, qpos, qvel, ctrl).expect("a mechanism");
    let out = simulate(&mechanism, t, &settings(), &mut NoObserver);
    assert_eq!(out.status, Status::Finished, "{:?}", out.reason);
    (out.q, out.v, out.energy_initial, out.energy_final)
}

/// The complete elliptic integral of the first kind, `K(m)`, by the
/// arithmetic-geometric mean.
fn complete_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0, (1.0 - m).sqrt());
    while (a - b).abs() > 1e-16 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// A point mass on a massless rod of length 1, hinged about `y` at the
/// origin, hanging along `-z` at `q = 0`.
fn pendulum() -> Body {
    let mut bob = Body::new("bob", None);
    bob.mass = 1.0;
    bob.com = [0.0, 0.0, -1.0];
    bob.joints
        .push(Joint::hinge("swing", [0.0, 1.0, 0.0], [0.0; 3]));
    bob
}

#[test]
fn a_pendulum_released_at_two_radians_returns_after_its_elliptic_period() {
    let q0 = 2.0_f64;
    let period = 4.0 * (1.0 / G).sqrt() * complete_k((q0 / 2.0).sin().powi(2));
    let model = articulated(vec![pendulum()], [0.0, 0.0, -G]);
    let (q, v, e0, e1) = run(model, vec![q0], vec![0.0], vec![], period);
    assert!((q[0] - q0).abs() < 1e-8, "q {} after a period", q[0]);
    assert!(v[0].abs() < 1e-7, "v {} after a period", v[0]);
    // Energy: m g l (1 - cos q0) above the lowest point, kept.
    assert!((e0 + G * q0.cos()).abs() < 1e-12, "initial energy {e0}");
    assert!((e1 - e0).abs() < 1e-9 * G, "energy {e0} -> {e1}");
}

#[test]
fn a_damped_spring_on_a_slide_follows_its_closed_form() {
    // m x'' = -k x - d x' with armature added to the mass; underdamped.
    let (mass, armature, k, d, x0) = (2.0, 0.5, 30.0, 1.5, 0.2);
    let mut block = Body::new("block", None);
    block.mass = mass;
    block.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
    block
        .joints
        .push(Joint::slide("x", [1.0, 0.0, 0.0]).with_armature(armature));
    let mut model = articulated(vec![block], [0.0, 0.0, -G]);
    model.joints[0].stiffness = k;
    model.joints[0].damping = d;
    let m = mass + armature;
    let (zeta_w, wd) = (d / (2.0 * m), (k / m - (d / (2.0 * m)).powi(2)).sqrt());
    let t = 1.7;
    let x = x0 * (-zeta_w * t).exp() * ((wd * t).cos() + zeta_w / wd * (wd * t).sin());
    let (q, _, _, e1) = run(model, vec![x0], vec![0.0], vec![], t);
    assert!((q[0] - x).abs() < 1e-9, "x {} against {x}", q[0]);
    // No gravity along a horizontal slide: the energy is the spring's
    // and the block's, and damping has taken some.
    assert!(e1 < 0.5 * k * x0 * x0);
}

#[test]
fn a_geared_motor_turns_a_wheel_with_its_clamped_torque() {
    // A wheel of moment 0.3 about z, no gravity's torque about its axis.
    let mut wheel = Body::new("wheel", None);
    wheel.mass = 1.0;
    wheel.inertia = [[0.2, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]];
    wheel
        .joints
        .push(Joint::hinge("spin", [0.0, 0.0, 1.0], [0.0; 3]));
    let mut model = articulated(vec![wheel], [0.0, 0.0, -G]);
    model.actuators.push(Actuator {
        name: "motor".into(),
        transmission: Transmission::Joint(0),
        gear: 2.0,
        gain: 1.0,
        bias: [0.0; 3],
        ctrlrange: Some([-0.25, 0.25]),
        forcerange: None,
    });
    // The control 0.4 is clamped to 0.25: torque 2 * 0.25 = 0.5.
    let t = 0.8;
    let (q, v, _, _) = run(model, vec![0.0], vec![0.0], vec![0.4], t);
    let alpha = 0.5 / 0.3;
    assert!((v[0] - alpha * t).abs() < 1e-10, "v {}", v[0]);
    assert!((q[0] - alpha * t * t / 2.0).abs() < 1e-10, "q {}", q[0]);
}

#[test]
fn a_free_tumbling_body_keeps_its_angular_momentum_and_energy() {
    let inertia = [[1.0, 0.1, 0.0], [0.1, 2.0, -0.2], [0.0, -0.2, 3.0]];
    let mut body = Body::new("brick", None);
    body.mass = 2.0;
    body.com = [0.1, -0.05, 0.2];
    body.inertia = inertia;
    body.joints.push(Joint::free("float"));
    let model = articulated(vec![body], [0.0; 3]);
    let qpos = vec![0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0];
    let qvel = vec![0.1, -0.2, 0.3, 1.5, -0.4, 2.0];
    // The angular momentum about the centre of mass, world axes, and the
    // centre of mass's velocity.
    let momentum = |q: &[f64], v: &[f64]| {
        let r = matrix([q[3], q[4], q[5], q[6]]);
        let w = [v[3], v[4], v[5]];
        let iw = [0, 1, 2].map(|i| (0..3).map(|j| inertia[i][j] * w[j]).sum::<f64>());
        let c = apply(&r, body_com());
        let wc = cross(apply(&r, w), c);
        (apply(&r, iw), [v[0] + wc[0], v[1] + wc[1], v[2] + wc[2]])
    };
    let (l0, p0) = momentum(&qpos, &qvel);
    let (q, v, e0, e1) = run(model, qpos, qvel, vec![], 3.0);
    let (l1, p1) = momentum(&q, &v);
    for k in 0..3 {
        assert!((l1[k] - l0[k]).abs() < 1e-9, "L {l0:?} -> {l1:?}");
        assert!((p1[k] - p0[k]).abs() < 1e-9, "p {p0:?} -> {p1:?}");
    }
    assert!((e1 - e0).abs() < 1e-9 * e0, "energy {e0} -> {e1}");
}

fn body_com() -> [f64; 3] {
    [0.1, -0.05, 0.2]
}

#[test]
fn a_pendulum_falling_onto_its_hinge_limit_lands_and_rests_on_it() {
    // Released at pi/2, it swings down until its range's low end 0.5 stops
    // it (a plastic impact), then gravity holds it there.
    let mut model = articulated(vec![pendulum()], [0.0, 0.0, -G]);
    model.joints[0].range = Some([0.5, 3.0]);
    let (q, v, e0, e1) = run(model, vec![PI / 2.0], vec![0.0], vec![], 2.0);
    assert!((q[0] - 0.5).abs() < 1e-9, "q {}", q[0]);
    assert!(v[0].abs() < 1e-9, "v {}", v[0]);
    // All the kinetic energy at the limit is lost: what is left is the
    // potential energy at 0.5, -m g l cos 0.5.
    assert!(e0.abs() < 1e-12, "initial energy {e0}");
    assert!((e1 + G * 0.5_f64.cos()).abs() < 1e-9, "final energy {e1}");
}

#[test]
fn a_slide_pushed_off_its_limit_by_a_spring_leaves_it() {
    // Resting on the low end 0 of its range with a spring pulling it up
    // towards 0.3: it leaves at once and oscillates about 0.3 with
    // amplitude 0.3 (no damping), never below 0.
    let mut block = Body::new("block", None);
    block.mass = 1.0;
    block.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
    block.joints.push(Joint::slide("x", [1.0, 0.0, 0.0]));
    let mut model = articulated(vec![block], [0.0, 0.0, -G]);
    model.joints[0].range = Some([0.0, 1.0]);
    model.joints[0].stiffness = 4.0;
    model.joints[0].springref = 0.3;
    // Half a period (pi / 2 s at omega 2): at the top, 0.6.
    let (q, v, _, _) = run(model, vec![0.0], vec![0.0], vec![], PI / 2.0);
    assert!((q[0] - 0.6).abs() < 1e-9, "q {}", q[0]);
    assert!(v[0].abs() < 1e-8, "v {}", v[0]);
}

#[test]
fn what_the_event_driven_method_does_not_take_is_refused() {
    let mut model = articulated(vec![pendulum()], [0.0, 0.0, -G]);
    model.joints[0].frictionloss = 0.1;
    let e = ArticulatedMechanism::new(model, vec![0.0], vec![0.0], vec![]).unwrap_err();
    assert!(
        e.to_string().starts_with("joint[swing].frictionloss:"),
        "{e}"
    );
    let model = articulated(vec![pendulum()], [0.0, 0.0, -G]);
    let e = ArticulatedMechanism::new(model, vec![0.0, 1.0], vec![0.0], vec![]).unwrap_err();
    assert_eq!(e.to_string(), "qpos: 2 numbers, expected 1");
}

#[test]
fn a_simulation_advanced_in_pieces_with_a_control_loop_matches_closed_forms() {
    use zwang::articulated::{Method, Simulation};
    // The geared wheel: the control set between pieces changes the torque.
    let mut wheel = Body::new("wheel", None);
    wheel.mass = 1.0;
    wheel.inertia = [[0.2, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]];
    wheel
        .joints
        .push(Joint::hinge("spin", [0.0, 0.0, 1.0], [0.0; 3]));
    let mut model = articulated(vec![wheel], [0.0, 0.0, -G]);
    model.actuators.push(Actuator {
        name: "motor".into(),
        transmission: Transmission::Joint(0),
        gear: 1.0,
        gain: 1.0,
        bias: [0.0; 3],
        ctrlrange: None,
        forcerange: None,
    });
    let mut sim = Simulation::new(model, vec!["geom.solref".into()], Method::Event(1e-12)).unwrap();
    sim.set_ctrl(&[0.3]).unwrap();
    sim.advance(0.5).unwrap();
    sim.advance(0.5).unwrap();
    // 1 s at 0.3 / 0.3 = 1 rad/s^2: v = 1, q = 0.5.
    assert!((sim.qvel()[0] - 1.0).abs() < 1e-10 && (sim.qpos()[0] - 0.5).abs() < 1e-10);
    sim.set_ctrl(&[-0.6]).unwrap();
    sim.advance(0.5).unwrap();
    // Then -2 rad/s^2 for 0.5 s: v = 0, q = 0.5 + 0.5 * 1 - 0.25 = 0.75.
    assert!(sim.qvel()[0].abs() < 1e-10 && (sim.qpos()[0] - 0.75).abs() < 1e-10);
    assert!((sim.time() - 1.5).abs() < 1e-15);
    let wheel = sim.body("wheel").unwrap();
    let turned = 0.75_f64;
    assert!((wheel.orientation[0] - (turned / 2.0).cos()).abs() < 1e-9);
    assert!((wheel.orientation[3] - (turned / 2.0).sin()).abs() < 1e-9);
    let report = sim.report();
    assert_eq!(report.status, "finished");
    assert_eq!(report.ignored, ["geom.solref"]);
    // Energy: the kinetic energy is back to 0 (the motor did the work
    // and took it back).
    assert!(report.energy[1].abs() < 1e-9, "{:?}", report.energy);
    // Step is for time stepping; bad arrays and names are refused.
    assert!(sim.step().is_err());
    assert_eq!(
        sim.set_ctrl(&[1.0, 2.0]).unwrap_err(),
        "ctrl: 2 numbers, expected 1"
    );
    assert_eq!(
        sim.set_qvel(&[f64::NAN]).unwrap_err(),
        "qvel[0]: not finite"
    );
    assert!(sim.body("rim").is_err());
    assert!(sim.reset(Some("home")).is_err());
    sim.reset(None).unwrap();
    assert_eq!(
        (sim.time(), sim.qpos()[0], sim.report().steps),
        (0.0, 0.0, 0)
    );
}

/// Regression: the event-driven method let geoms pass through each other
/// and reported the run finished, `max_penetration` 0 (a walker fell
/// 19.6 m through its floor); then it failed the run but went on to its
/// end, reporting a humanoid 1 m under its floor as the final state. It
/// does not hold contacts between geoms: the run must fail, naming the
/// geoms and the time they met (the closed form of the fall), and end
/// there, the ball on the slab's face to a sample's travel, while the
/// time stepper lands the ball on the slab.
#[test]
fn geoms_the_event_driven_method_lets_meet_fail_the_run() {
    use zwang::articulated::{load, run_event, run_steps, start_of};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mjcf/ball_through_slab.xml");
    let (model, ignored) = load(&path).expect("the file reads");
    let start = start_of(&model, None).unwrap();
    let meet = (2.0 * 0.44 / G).sqrt();

    let before = run_event(&model, &start, 0.95 * meet, 1e-10, &ignored).unwrap();
    assert_eq!(before.status, "finished", "{:?}", before.reason);
    assert_eq!(before.max_penetration, 0.0);

    let through = run_event(&model, &start, 1.0, 1e-10, &ignored).unwrap();
    assert_eq!(through.status, "failed");
    let reason = through.reason.expect("a reason");
    assert!(
        reason.contains("slab") && reason.contains("ball"),
        "{reason}"
    );
    let at: f64 = reason
        .split("t = ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("the time in the reason");
    // Samples every 1e-4 s; an overlap counts beyond 1e-6 m.
    assert!(at >= meet && at <= meet + 1.1e-4, "met at {at}, not {meet}");
    // The run ends at that sample: the ball's centre a radius above the
    // slab's face (0.01 m), overlapping it by at most a sample's travel
    // (3e-4 m at 2.94 m/s), and moving at the speed of the fall.
    assert_eq!(through.time, at);
    let depth = 0.06 - through.qpos[2];
    assert!(depth > 1e-6 && depth < 3e-4, "overlap {depth}");
    assert!((through.max_penetration - depth).abs() < 1e-12);
    assert!(
        (through.qvel[2] + G * at).abs() < 1e-8,
        "{}",
        through.qvel[2]
    );

    let landed = run_steps(&model, &start, 1.0, None, &ignored).unwrap();
    assert_eq!(landed.status, "finished");
    assert!(landed.max_penetration < 1e-6);
    assert!((landed.qpos[2] - 0.06).abs() < 1e-6, "{}", landed.qpos[2]);
}

/// Two blocks on springs along two slides (no gravity along them), as
/// the event-driven method's bodies.
fn two_blocks(masses: [f64; 2], stiffness: [f64; 2]) -> Articulated {
    let blocks = ["a", "b"].iter().zip(masses).map(|(name, m)| {
        let mut block = Body::new(*name, None);
        block.mass = m;
        block.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
        block.joints.push(Joint::slide(*name, [1.0, 0.0, 0.0]));
        block
    });
    let mut model = articulated(blocks.collect(), [0.0, 0.0, -G]);
    model.joints[0].stiffness = stiffness[0];
    model.joints[1].stiffness = stiffness[1];
    model
}

/// A joint equality `x_a = c x_b + a0` held by the event-driven method:
/// the pair is one harmonic oscillator, `omega^2 = (k_a c^2 + k_b) / (m_a
/// c^2 + m_b)` about `x_b* = -k_a c a0 / (k_a c^2 + k_b)`, met to 1e-9,
/// the equality to round-off.
#[test]
fn a_joint_equality_makes_two_springs_one_oscillator() {
    use zwang::model::articulated::Equality;
    let ([ma, mb], [ka, kb], c, a0) = ([2.0, 1.0], [30.0, 10.0], 0.5, 0.1);
    let mut model = two_blocks([ma, mb], [ka, kb]);
    model.equalities.push(Equality::Joint {
        joints: [0, 1],
        polycoef: [a0, c, 0.0, 0.0, 0.0],
    });
    let omega = ((ka * c * c + kb) / (ma * c * c + mb)).sqrt();
    let rest = -ka * c * a0 / (ka * c * c + kb);
    let (xb, t) = (0.2, 1.3);
    let (q, v, e0, e1) = run(model, vec![c * xb + a0, xb], vec![0.0; 2], vec![], t);
    let x = rest + (xb - rest) * (omega * t).cos();
    assert!((q[1] - x).abs() < 1e-9, "x_b {} against {x}", q[1]);
    let w = -(xb - rest) * omega * (omega * t).sin();
    assert!((v[1] - w).abs() < 1e-8, "v_b {} against {w}", v[1]);
    assert!((q[0] - c * q[1] - a0).abs() < 1e-12, "off the equality");
    assert!((e1 - e0).abs() < 1e-9 * e0, "energy {e0} -> {e1}");
}

/// A fixed tendon held at a length (`x_a + x_b = l`, a tendon equality
/// without a second side): one mass `m_a + m_b` on the two springs, about
/// `x_a* = k_b l / (k_a + k_b)`.
#[test]
fn a_tendon_equality_holds_a_fixed_tendon_at_its_length() {
    use zwang::model::articulated::{Equality, Tendon, TendonPath};
    let ([ma, mb], [ka, kb], l) = ([2.0, 1.0], [30.0, 10.0], 0.1);
    let mut model = two_blocks([ma, mb], [ka, kb]);
    model.tendons.push(Tendon {
        name: "sum".into(),
        path: TendonPath::Fixed(vec![(0, 1.0), (1, 1.0)]),
        range: None,
        damping: 0.0,
        stiffness: 0.0,
        springlength: None,
    });
    model.equalities.push(Equality::Tendon {
        tendons: [0, 0],
        polycoef: [l, 0.0, 0.0, 0.0, 0.0],
    });
    let omega = ((ka + kb) / (ma + mb)).sqrt();
    let rest = kb * l / (ka + kb);
    let (xa, t) = (0.3, 0.9);
    let (q, _, e0, e1) = run(model, vec![xa, l - xa], vec![0.0; 2], vec![], t);
    let x = rest + (xa - rest) * (omega * t).cos();
    assert!((q[0] - x).abs() < 1e-9, "x_a {} against {x}", q[0]);
    assert!(
        (q[0] + q[1] - l).abs() < 1e-12,
        "the tendon at {}",
        q[0] + q[1]
    );
    assert!((e1 - e0).abs() < 1e-9 * e0, "energy {e0} -> {e1}");
}

/// A quadratic coupling `x_a = p1 x_b + p2 x_b^2` (the row's curvature
/// term `P'' (g2 v)^2` at work): held along a swing of `x_b` through both
/// signs, the energy kept; and what the method does not take yet, a
/// `connect`, refused by name.
#[test]
fn a_quadratic_joint_coupling_is_held_and_a_connect_refused() {
    use zwang::model::articulated::Equality;
    let mut model = two_blocks([2.0, 1.0], [30.0, 10.0]);
    let p = [0.0, 0.4, 1.5, 0.0, 0.0];
    model.equalities.push(Equality::Joint {
        joints: [0, 1],
        polycoef: p,
    });
    let coupled = |x: f64| p[1] * x + p[2] * x * x;
    let xb = 0.25;
    let mechanism =
        ArticulatedMechanism::new(model.clone(), vec![coupled(xb), xb], vec![0.0; 2], vec![])
            .unwrap();
    let mut worst = Worst(0.0, coupled);
    let mut s = settings();
    s.output_every = 0.01;
    let out = simulate(&mechanism, 3.0, &s, &mut worst);
    assert_eq!(out.status, Status::Finished, "{:?}", out.reason);
    assert!(worst.0 < 1e-9, "off the coupling by {}", worst.0);
    assert!(
        (out.energy_final - out.energy_initial).abs() < 1e-9 * out.energy_initial,
        "energy {} -> {}",
        out.energy_initial,
        out.energy_final
    );

    model.equalities.push(Equality::Connect {
        bodies: [Some(0), None],
        anchor: [0.0; 3],
        anchor2: [0.0; 3],
    });
    let e =
        ArticulatedMechanism::new(model, vec![coupled(xb), xb], vec![0.0; 2], vec![]).unwrap_err();
    assert!(e.to_string().starts_with("equality[1] (connect):"), "{e}");
}

/// The largest `|x_a - f(x_b)|` of the samples it sees.
struct Worst<F: Fn(f64) -> f64>(f64, F);

impl<F: Fn(f64) -> f64> zwang::motion::Observer for Worst<F> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, _t: f64, q: &[f64], _v: &[f64], _c: &[zwang::motion::ContactSample]) {
        self.0 = self.0.max((q[0] - (self.1)(q[1])).abs());
    }
}

/// A block on the floor (slides along x and z, turns about y) pushed by a
/// motor along x, with Coulomb friction 0.5: it sticks and slides as the
/// push changes.
const PUSHED_BLOCK: &str = r#"<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.5"/>
    <body name="block" pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="tilt" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.2 0.15 0.1" mass="1" friction="0.5"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="x" gear="1"/>
  </actuator>
</mujoco>"#;

#[test]
fn a_simulation_stepped_call_by_call_is_one_run_of_its_stepper_to_the_bit() {
    use zwang::articulated::{Method, Simulation};
    use zwang::motion::{StepSettings, TreeStepper};
    let model = zwang::mjcf::parse(PUSHED_BLOCK, None).unwrap().model;
    let h = model.timestep;
    let settings = StepSettings {
        time_step: h,
        output_every: h,
        ..StepSettings::default()
    };
    // The push: 3 + 5 sin(t / 0.05) N against friction's 4.9 N.
    let push = |k: usize| [3.0 + 5.0 * (k as f64 * h / 0.05).sin()];
    let mut sim = Simulation::new(model.clone(), Vec::new(), Method::TimeStep).unwrap();
    let mut one = TreeStepper::new(&model, settings.clone()).unwrap();
    // The same steps by a stepper made anew at each one, as a simulation
    // without its own stepper would take them.
    let (mut q_anew, mut v_anew) = (sim.qpos().to_vec(), sim.qvel().to_vec());
    let mut anew_differs = false;
    for k in 0..200 {
        sim.set_ctrl(&push(k)).unwrap();
        sim.step().unwrap();
        one.set_ctrl(&push(k)).unwrap();
        one.step().unwrap();
        assert_eq!(
            (sim.qpos(), sim.qvel()),
            (one.qpos(), one.qvel()),
            "step {k}"
        );
        let mut anew = TreeStepper::new(&model, settings.clone()).unwrap();
        anew.reset(&q_anew, &v_anew, &push(k)).unwrap();
        anew.step().unwrap();
        q_anew.copy_from_slice(anew.qpos());
        v_anew.copy_from_slice(anew.qvel());
        anew_differs |= q_anew != sim.qpos() || v_anew != sim.qvel();
    }
    // The block stays on the floor, level, and went somewhere.
    assert!(
        (sim.qpos()[1]).abs() < 1e-6 && sim.qpos()[2].abs() < 1e-6,
        "{:?}",
        sim.qpos()
    );
    assert!(sim.qpos()[0] > 1e-2, "{:?}", sim.qpos());
    let report = sim.report();
    assert_eq!((report.steps, report.unsolved_steps), (200, 0));
    assert_eq!(report.status, "finished");
    assert!((sim.time() - 200.0 * h).abs() < 1e-12);
    // Warm starts carried from step to step change the last bits: the
    // comparison above could tell a stepper made anew from a kept one.
    assert!(anew_differs);
    // Setting the state starts the stepper anew from it.
    sim.set_qvel(&[0.0, 0.0, 0.0]).unwrap();
    let q = sim.qpos().to_vec();
    one.reset(&q, &[0.0; 3], &push(200)).unwrap();
    sim.set_ctrl(&push(200)).unwrap();
    sim.step().unwrap();
    one.step().unwrap();
    assert_eq!((sim.qpos(), sim.qvel()), (one.qpos(), one.qvel()));
    // A stretch shorter than half a step is one step of its length.
    let t = sim.time();
    sim.advance(0.25 * h).unwrap();
    one.advance(0.25 * h).unwrap();
    assert!((sim.time() - (t + 0.25 * h)).abs() < 1e-15);
    assert_eq!((sim.qpos(), sim.report().steps), (one.qpos(), 202));
}

/// `run_steps_with` and `run_event_with` hand an observer the run's
/// samples (every time step's end, from 0; 10,000 instants and the end),
/// and a drawing's film keeps a bounded number of them however long the
/// run: the cart-pole of `examples/mjcf/cartpole.xml` for 20 s (2,001
/// samples) leaves at most 300 frames and the last, evenly spaced, from
/// the first sample to the end.
#[test]
fn a_drawing_of_a_long_run_keeps_a_bounded_reel() {
    use zwang::articulated::{load, run_event_with, run_steps_with, start_of};
    use zwang::motion::{ContactSample, Observer};
    use zwang_draw::draw::space::TreeFilm;
    use zwang_draw::draw::{Format, MAX_FRAMES};

    /// The times of the samples it is handed.
    struct Times(Vec<f64>);
    impl Observer for Times {
        fn wants_samples(&self) -> bool {
            true
        }
        fn sample(&mut self, t: f64, _q: &[f64], _v: &[f64], _c: &[ContactSample]) {
            self.0.push(t);
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mjcf/cartpole.xml");
    let (model, ignored) = load(&path).unwrap();
    let start = start_of(&model, Some("tilted")).unwrap();
    let mut times = Times(Vec::new());
    run_steps_with(&model, &start, 1.0, None, &ignored, &mut times).unwrap();
    assert_eq!(times.0.len(), 101);
    for (k, t) in times.0.iter().enumerate() {
        assert!((t - 0.01 * k as f64).abs() < 1e-12, "sample {k} at {t}");
    }
    let mut times = Times(Vec::new());
    run_event_with(&model, &start, 1.0, 1e-9, &ignored, &mut times).unwrap();
    assert!(times.0.len() >= 10_001, "{}", times.0.len());
    assert!(times.0.windows(2).all(|w| w[1] > w[0]));
    assert_eq!(times.0.last(), Some(&1.0));

    let mut film = TreeFilm::new(&model, Format::Gif, &[]);
    run_steps_with(&model, &start, 20.0, None, &ignored, &mut film).unwrap();
    let frames = film.frames();
    assert!(frames.len() <= MAX_FRAMES + 1, "{}", frames.len());
    assert!(frames.len() > MAX_FRAMES / 2, "{}", frames.len());
    assert_eq!(frames[0].t, 0.0);
    assert!((frames.last().unwrap().t - 20.0).abs() < 1e-9);
    let gaps: Vec<f64> = frames[..frames.len() - 1]
        .windows(2)
        .map(|w| w[1].t - w[0].t)
        .collect();
    assert!(gaps.iter().all(|g| (g - gaps[0]).abs() < 1e-9), "{gaps:?}");
}
