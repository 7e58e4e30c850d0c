//! The vakonomic equations of knife edges (Hamilton's principle with the
//! constraints adjoined, the multipliers in the state) against references
//! derived by hand and integrated here, and beside the nonholonomic
//! motion (Gauss's principle) from the same start: the contrast of Liu
//! Caishan, "The fundamental equations in analytical mechanics for
//! nonholonomic systems" (2016).

use crate::motion_support;

use motion_support::{rk4, scene, tight};
use zwang::model::planar::{Body, Joint, PlanarModel};
use zwang::motion::report::{Recorder, Row};
use zwang::motion::{compare_equations, simulate, simulate_vakonomic, Outcome, Status};
use zwang::run::run_scene;
use zwang::scene::{parse_scene, Equations};

/// A rigid body of mass `m` and inertia `i` with a knife edge at `point`
/// along its x axis, started at angle 0 with the centre's velocity
/// `velocity` and angular velocity `w0`, on a level plane.
fn blade(m: f64, i: f64, point: [f64; 2], velocity: [f64; 2], w0: f64) -> PlanarModel {
    let body = Body::rigid("blade", m, i).moving(velocity).spinning(w0);
    PlanarModel::new(
        [0.0, 0.0],
        vec![body],
        vec![Joint::knife_edge(0, point, [1.0, 0.0])],
        vec![],
        vec![],
    )
    .unwrap()
}

/// Both runs of `model`, with their samples; both finish without events
/// and keep the energy to 1e-8.
fn both(model: &PlanarModel, duration: f64, dt: f64, mu0: &[f64]) -> [(Outcome, Vec<Row>); 2] {
    let settings = tight(dt);
    let mut a = Recorder::new(model);
    let nonholonomic = simulate(model, duration, &settings, &mut a);
    let mut b = Recorder::new(model);
    let vakonomic = simulate_vakonomic(model, duration, &settings, mu0, &mut b);
    for o in [&nonholonomic, &vakonomic] {
        assert_eq!(o.status, Status::Finished, "{:?}", o.reason);
        assert!(o.events.is_empty());
        // Both keep the energy.
        let drift = (o.energy_final - o.energy_initial).abs() / o.energy_initial;
        assert!(drift < 1e-8, "{} -> {}", o.energy_initial, o.energy_final);
    }
    [(nonholonomic, a.rows), (vakonomic, b.rows)]
}

/// The largest error of `(x, y, theta)` of the samples against
/// `reference(k)` (sample `k`), each over the range the quantity spans.
fn relative_error(rows: &[Row], reference: impl Fn(usize) -> [f64; 3]) -> f64 {
    let mut worst = 0.0f64;
    for c in 0..3 {
        let values: Vec<f64> = rows.iter().map(|r| r.q[c]).collect();
        let range = values.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x))
            - values.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        assert!(range > 0.1, "coordinate {c} spans only {range}");
        for (k, x) in values.iter().enumerate() {
            worst = worst.max((x - reference(k)[c]).abs() / range);
        }
    }
    worst
}

/// The reference integrated with RK4 at `steps` steps per sample, the
/// state at each sample.
fn samples_of(
    f: &impl Fn(&[f64]) -> Vec<f64>,
    y0: &[f64],
    dt: f64,
    samples: usize,
    steps: usize,
) -> Vec<Vec<f64>> {
    let mut out = vec![y0.to_vec()];
    for _ in 1..samples {
        let next = rk4(f, out.last().unwrap(), dt, steps);
        out.push(next);
    }
    out
}

/// The shipped scene: a blade through the centre of mass on a level
/// plane, `m = 1`, `J = 0.1`, started along the blade at `v0 = 1` turning
/// at `w0 = 1`, the multiplier at 0.
///
/// Nonholonomic: the blade's force has no moment, so the speed and the
/// turning rate stay, a circle of radius `v0 / w0`:
/// `theta = w0 t`, `x = (v0/w0) sin theta`, `y = (v0/w0) (1 - cos theta)`.
///
/// Vakonomic: with `u` the speed along the blade `e` and `n` its normal,
/// `m u' = mu w`, `mu' = -m u w`, `J w' = -mu u`: from `mu(0) = 0`,
/// `m u = m v0 cos phi`, `mu = -m v0 sin phi` (`phi = theta - theta0`)
/// and `J phi'' = (m v0^2 / 2) sin 2 phi`, integrated here with RK4 with
/// `x' = v0 cos phi cos theta`, `y' = v0 cos phi sin theta`.
#[test]
fn a_blade_at_the_centre_circles_or_swings() {
    let scene = scene("vakonomic_skate");
    assert_eq!(scene.solver.equations, Equations::Vakonomic);
    assert_eq!(scene.solver.vakonomic_multipliers, vec![0.0]);
    let model = scene.model().unwrap();
    let (m, j, v0, w0) = (1.0, 0.1, 1.0, 1.0);
    let (duration, dt) = (5.0, 0.01);
    let [(nh, nh_rows), (vk, vk_rows)] = both(&model, duration, dt, &[0.0]);
    assert_eq!(nh_rows.len(), 501);
    assert_eq!(vk_rows.len(), 501);

    // Nonholonomic: the circle, in closed form.
    let circle = |k: usize| {
        let theta = w0 * nh_rows[k].t;
        [v0 / w0 * theta.sin(), v0 / w0 * (1.0 - theta.cos()), theta]
    };
    let e_nh = relative_error(&nh_rows, circle);
    assert!(
        e_nh < 1e-7,
        "nonholonomic off the circle by {e_nh:e} of the range"
    );

    // Vakonomic: the speed v0 cos(theta - theta0) along the blade, none
    // across it, in closed form of the run's own angle.
    for r in &vk_rows {
        let (s, c) = r.q[2].sin_cos();
        let along = c * r.v[0] + s * r.v[1];
        let across = -s * r.v[0] + c * r.v[1];
        assert!((along - v0 * r.q[2].cos()).abs() < 1e-9, "t = {}", r.t);
        assert!(across.abs() < 1e-9, "t = {}", r.t);
    }
    // The angle and the centre against the reduced equation.
    let f = |y: &[f64]| {
        let (phi, w) = (y[0], y[1]);
        vec![
            w,
            m * v0 * v0 / (2.0 * j) * (2.0 * phi).sin(),
            v0 * phi.cos() * phi.cos(),
            v0 * phi.cos() * phi.sin(),
        ]
    };
    let reference = samples_of(&f, &[0.0, w0, 0.0, 0.0], dt, vk_rows.len(), 40);
    let e_vk = relative_error(&vk_rows, |k| {
        let y = &reference[k];
        [y[2], y[3], y[0]]
    });
    assert!(
        e_vk < 1e-7,
        "vakonomic off its reference by {e_vk:e} of the range"
    );
    let phi_end = reference.last().unwrap()[0];
    let mu_end = vk.multipliers.as_ref().unwrap()[0];
    assert!((mu_end + m * v0 * phi_end.sin()).abs() < 1e-8, "{mu_end}");

    // The angles part by radians.
    assert!(nh.multipliers.is_none());
    assert!(
        (vk.q[2] - nh.q[2]).abs() > 1.0,
        "{} vs {}",
        vk.q[2],
        nh.q[2]
    );
}

/// The Chaplygin sleigh's geometry: the blade at `a = 0.3` behind the
/// centre, `m = 1`, `I = 0.05`, started with `u0 = 0.2` along the blade
/// and `w0 = 2`, the multiplier at `mu0 = 0.3`. With `v_C = u e + a w n`
/// the vakonomic equations `M q'' + A^T mu' = F(mu)`, `A = (n, -a)`,
/// `F = mu (w e, -u)`, read along `e`, along `n` and about the centre:
///
/// ```text
/// m (u' - a w^2) = mu w
/// m (u w + a w') = -mu'
/// I w' + a mu' = -mu u      so   J w' = -(m a u w + mu u),  J = I + m a^2
/// ```
///
/// integrated here with RK4 with `theta' = w`,
/// `x' = u cos theta - a w sin theta`, `y' = u sin theta + a w cos theta`.
/// The nonholonomic motion is the same with `mu = 0` in the force
/// (Chaplygin's `u' = a w^2`, `w' = -m a u w / J`).
#[test]
fn the_sleigh_with_a_multiplier_against_its_reduced_equations() {
    let (m, i, a) = (1.0, 0.05, 0.3);
    let j = i + m * a * a;
    let (u0, w0, mu0) = (0.2, 2.0, 0.3);
    let model = blade(m, i, [-a, 0.0], [u0, a * w0], w0);
    let (duration, dt) = (4.0, 0.01);
    let [(nh, nh_rows), (vk, vk_rows)] = both(&model, duration, dt, &[mu0]);

    // y = (x, y, theta, u, w, mu); `vakonomic` false drops F.
    let reduced = |vakonomic: bool| {
        move |y: &[f64]| {
            let (theta, u, w) = (y[2], y[3], y[4]);
            let mu = if vakonomic { y[5] } else { 0.0 };
            let dw = -(m * a * u * w + mu * u) / j;
            let (s, c) = theta.sin_cos();
            vec![
                u * c - a * w * s,
                u * s + a * w * c,
                w,
                a * w * w + mu * w / m,
                dw,
                -m * (u * w + a * dw),
            ]
        }
    };
    let y0 = [0.0, 0.0, 0.0, u0, w0, mu0];
    for (vakonomic, rows) in [(false, &nh_rows), (true, &vk_rows)] {
        let reference = samples_of(&reduced(vakonomic), &y0, dt, rows.len(), 20);
        let e = relative_error(rows, |k| {
            let y = &reference[k];
            [y[0], y[1], y[2]]
        });
        assert!(e < 1e-7, "vakonomic {vakonomic}: off by {e:e} of the range");
        if vakonomic {
            let mu_end = vk.multipliers.as_ref().unwrap()[0];
            let mu_ref = reference.last().unwrap()[5];
            assert!((mu_end - mu_ref).abs() < 1e-8, "{mu_end} vs {mu_ref}");
        }
    }
    // Visibly apart: the centres end far from each other.
    let apart = ((nh.q[0] - vk.q[0]).powi(2) + (nh.q[1] - vk.q[1]).powi(2)).sqrt();
    assert!(apart > 0.3, "the two equations end {apart} m apart");
}

/// Holonomic joints have one motion under both equations: a pendulum
/// (a pin) with `equations = "vakonomic"` moves as under Gauss's
/// principle, with no multiplier in the state; and `compare_equations`
/// finds the two motions of a knife edge apart from one start.
#[test]
fn holonomic_joints_agree_and_the_comparison_parts_knife_edges() {
    let text = r#"
        [scene]
        dimension = 2
        duration = 1.0
        output_every = 0.1
        [[body]]
        name = "rod"
        kind = "rigid"
        mass = 1.0
        inertia = 0.0833
        position = [0.5, 0.0]
        [[joint]]
        kind = "pin"
        bodies = ["ground", "rod"]
        anchors = [[0.0, 0.0], [-0.5, 0.0]]
        [solver]
        stepping = "event"
        tolerance = 1e-11
        equations = "vakonomic"
        "#;
    let vakonomic = parse_scene(text).unwrap();
    assert!(vakonomic.solver.vakonomic_multipliers.is_empty());
    let nonholonomic = parse_scene(&text.replace("equations = \"vakonomic\"", "")).unwrap();
    let (_, a) = run_scene(&vakonomic, &mut Recorder::new(&vakonomic.model().unwrap())).unwrap();
    let (_, b) = run_scene(
        &nonholonomic,
        &mut Recorder::new(&nonholonomic.model().unwrap()),
    )
    .unwrap();
    assert_eq!(a.multipliers, Some(vec![]));
    assert_eq!(b.multipliers, None);
    for (x, y) in a.q.iter().zip(&b.q) {
        assert!((x - y).abs() < 1e-8, "{:?} vs {:?}", a.q, b.q);
    }
    assert!(a.q[2] < -0.5, "the pendulum fell: {}", a.q[2]);

    let skate = scene("vakonomic_skate");
    let model = skate.model().unwrap();
    let cmp = compare_equations(&model, 2.0, &tight(0.5), &[0.0]);
    assert_eq!(cmp.rows.len(), 5);
    assert_eq!(cmp.rows[0].position_difference, 0.0);
    assert!(
        cmp.max_position_difference > 0.5,
        "{}",
        cmp.max_position_difference
    );
    assert_eq!(cmp.vakonomic.multipliers.as_ref().map(Vec::len), Some(1));
}
