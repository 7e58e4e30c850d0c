//! The knife edge (a Pfaffian nonholonomic constraint) against closed
//! forms: the Chaplygin sleigh (S. A. Chaplygin, "On the theory of motion
//! of nonholonomic systems. The theorem on the reducing multiplier",
//! 1911) and a blade on an inclined plane (Ju. I. Neimark and N. A.
//! Fufaev, "Dynamics of Nonholonomic Systems", 1967).

use crate::motion_support;

use motion_support::{max_diff, rk4, run_model, samples, scene, tight};
use std::f64::consts::FRAC_PI_2;
use zwang::model::planar::{Body, BodyRef, Joint, JointKind, PlanarModel};
use zwang::model::Coordinates;
use zwang::motion::report::Row;
use zwang::motion::Status;

/// The velocity of the blade's point across the blade, `n . v_P`, from a
/// row (body 0, blade at `point` along the body's x axis).
fn across(row: &Row, point: [f64; 2]) -> f64 {
    let (s, c) = row.q[2].sin_cos();
    let u = [c * point[0] - s * point[1], s * point[0] + c * point[1]];
    let vp = [row.v[0] - row.v[2] * u[1], row.v[1] + row.v[2] * u[0]];
    -s * vp[0] + c * vp[1]
}

// The Chaplygin sleigh. The blade is at distance a behind the centre C,
// along the body's x axis e (C ahead of the blade). With n the blade's
// normal, u the speed of the blade's point along e and w the angular
// velocity, v_C = u e + a w n; the blade's force lambda n acts at P:
//   m (u' - a w^2) = 0                  (along e)
//   m (u w + a w') = lambda             (along n)
//   I w' = (P - C) x lambda n = -a lambda
// so u' = a w^2, w' = -m a u w / J with J = I + m a^2; m u^2 + J w^2 =
// m U^2 is conserved, u' = (a m / J) (U^2 - u^2), hence
//   u(t) = U tanh(k t + c),  k = U a m / J,  c = atanh(u0 / U),
//   w(t) = sign(w0) sqrt(m / J) U sech(k t + c),
//   theta(t) = theta0 + sign(w0) (sqrt(J / m) / a) (gd(k t + c) - gd(c)),
// gd the Gudermannian: the heading tends to a limit and the sleigh to a
// straight line at speed U.

/// The Gudermannian `gd(x) = 2 atan(tanh(x / 2))`.
fn gd(x: f64) -> f64 {
    2.0 * (0.5 * x).tanh().atan()
}

struct Sleigh {
    m: f64,
    i: f64,
    a: f64,
}

impl Sleigh {
    fn j(&self) -> f64 {
        self.i + self.m * self.a * self.a
    }
    /// `(u, w, theta)` at `t` from `(u0, w0, theta0)`.
    fn closed_form(&self, u0: f64, w0: f64, theta0: f64, t: f64) -> (f64, f64, f64) {
        let (m, j) = (self.m, self.j());
        let big_u = (u0 * u0 + j * w0 * w0 / m).sqrt();
        let k = big_u * self.a * m / j;
        let c = (u0 / big_u).atanh();
        let x = k * t + c;
        (
            big_u * x.tanh(),
            w0.signum() * (m / j).sqrt() * big_u / x.cosh(),
            theta0 + w0.signum() * (j / m).sqrt() / self.a * (gd(x) - gd(c)),
        )
    }
}

#[test]
fn chaplygin_sleigh_follows_its_closed_form() {
    let s = scene("chaplygin_sleigh");
    let body = &s.bodies[0];
    assert_eq!(s.gravity, [0.0, 0.0]);
    let JointKind::KnifeEdge { axis } = s.joints[0].kind else {
        panic!("{:?}", s.joints[0]);
    };
    assert_eq!(axis, [1.0, 0.0]);
    let point = s.joints[0].anchors[1];
    assert_eq!(point[1], 0.0);
    let sleigh = Sleigh {
        m: body.mass,
        i: body.inertia,
        a: -point[0],
    };
    assert!(sleigh.a > 0.0, "the centre is ahead of the blade");
    // The initial state: u0 = e . v_C, w0, heading 0.
    let (theta0, w0) = (body.angle, body.angular_velocity);
    let e0 = [theta0.cos(), theta0.sin()];
    let u0 = e0[0] * body.velocity[0] + e0[1] * body.velocity[1];
    let r = run_model(s.model().unwrap(), s.duration, &tight(s.output_every));
    assert_eq!(r.outcome.status, Status::Finished);
    let energy = 0.5 * sleigh.m * u0 * u0 + 0.5 * sleigh.j() * w0 * w0;
    let (mut du, mut dw, mut dth, mut de, mut dn) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for row in samples(&r.rows) {
        let (u, w, th) = sleigh.closed_form(u0, w0, theta0, row.t);
        let e = [row.q[2].cos(), row.q[2].sin()];
        du = du.max((e[0] * row.v[0] + e[1] * row.v[1] - u).abs());
        dw = dw.max((row.v[2] - w).abs());
        dth = dth.max((row.q[2] - th).abs());
        de = de.max((row.energy - energy).abs());
        dn = dn.max(across(row, point).abs());
    }
    println!(
        "sleigh: u {du:e} m/s, w {dw:e} rad/s, heading {dth:e} rad, energy {de:e} J, \
         n . v_P {dn:e} m/s"
    );
    assert!(
        du < 1e-8 && dw < 1e-8 && dth < 1e-8,
        "{du:e} {dw:e} {dth:e}"
    );
    assert!(de < 1e-10 * energy && dn < 1e-10, "{de:e} {dn:e}");

    // The asymptotic straight line: the turning has died out, the heading
    // is its limit and the centre moves along it at U.
    let last = r.rows.last().unwrap();
    let j = sleigh.j();
    let big_u = (u0 * u0 + j * w0 * w0 / sleigh.m).sqrt();
    let c = (u0 / big_u).atanh();
    let limit = theta0 + w0.signum() * (j / sleigh.m).sqrt() / sleigh.a * (FRAC_PI_2 - gd(c));
    assert!(last.v[2].abs() < 1e-6, "w = {}", last.v[2]);
    assert!((last.q[2] - limit).abs() < 1e-6);
    let heading = last.v[1].atan2(last.v[0]);
    assert!((heading - limit).abs() < 1e-6, "{heading} vs {limit}");
    assert!((last.v[0].hypot(last.v[1]) - big_u).abs() < 1e-6);
}

/// The blade's path (no closed form): the engine's positions against an
/// RK4 integration of the reduced equations `u' = a w^2`,
/// `w' = -m a u w / J`, `theta' = w`, `P' = u e(theta)`, from other
/// initial conditions (turning the other way, heading 0.4).
#[test]
fn chaplygin_sleigh_path_matches_the_reduced_equations() {
    let sleigh = Sleigh {
        m: 1.3,
        i: 0.07,
        a: 0.25,
    };
    let (u0, w0, theta0): (f64, f64, f64) = (-0.1, -1.5, 0.4);
    let e = [theta0.cos(), theta0.sin()];
    let n = [-e[1], e[0]];
    let p0 = [0.5, -0.2];
    let c0 = [p0[0] + sleigh.a * e[0], p0[1] + sleigh.a * e[1]];
    let body = Body::rigid("sleigh", sleigh.m, sleigh.i)
        .at(c0)
        .turned(theta0)
        .moving([
            u0 * e[0] + sleigh.a * w0 * n[0],
            u0 * e[1] + sleigh.a * w0 * n[1],
        ])
        .spinning(w0);
    let model = PlanarModel::new(
        [0.0, 0.0],
        vec![body],
        vec![Joint::knife_edge(0, [-sleigh.a, 0.0], [1.0, 0.0])],
        vec![],
        vec![],
    )
    .unwrap();
    let duration = 6.0;
    let r = run_model(model, duration, &tight(0.5));
    assert_eq!(r.outcome.status, Status::Finished);
    let (m, a, j) = (sleigh.m, sleigh.a, sleigh.j());
    let f = |y: &[f64]| {
        let (u, w, th) = (y[0], y[1], y[2]);
        vec![a * w * w, -m * a * u * w / j, w, u * th.cos(), u * th.sin()]
    };
    let mut worst = 0.0f64;
    for row in samples(&r.rows) {
        let y = rk4(&f, &[u0, w0, theta0, p0[0], p0[1]], row.t, 20_000);
        let (s, c) = row.q[2].sin_cos();
        let p = [row.q[0] - a * c, row.q[1] - a * s];
        worst = worst.max(max_diff(&p, &y[3..5]));
        worst = worst.max((row.q[2] - y[2]).abs());
        // And the closed forms of u, w, theta hold from these too.
        let (u, w, th) = sleigh.closed_form(u0, w0, theta0, row.t);
        worst = worst.max((c * row.v[0] + s * row.v[1] - u).abs());
        worst = worst.max((row.v[2] - w).abs().max((row.q[2] - th).abs()));
    }
    println!("sleigh path: largest deviation {worst:e}");
    assert!(worst < 1e-8, "{worst:e}");
}

// A blade through the centre on an incline: gravity G = g sin(alpha)
// along x in the plane. The blade's force acts at C: no moment, theta =
// theta0 + w t. Along the blade m u' = m G cos theta, so
//   u = u0 + (G / w) (sin theta - sin theta0),
// and with b = u0 - G sin theta0 / w, C' = u e(theta) integrates to
//   x = x0 + b (sin theta - sin theta0) / w + G (sin^2 theta - sin^2 theta0) / (2 w^2),
//   y = y0 + b (cos theta0 - cos theta) / w
//         + (G / w) (t / 2 - (sin 2 theta - sin 2 theta0) / (4 w)).
// From rest along x (theta0 = 0, u0 = 0): x = G sin^2(w t) / (2 w^2).

/// `(x, y, theta)` at `t`.
fn incline(g: f64, x0: [f64; 2], theta0: f64, u0: f64, w: f64, t: f64) -> [f64; 3] {
    let th = theta0 + w * t;
    let b = u0 - g * theta0.sin() / w;
    [
        x0[0]
            + b * (th.sin() - theta0.sin()) / w
            + g * (th.sin().powi(2) - theta0.sin().powi(2)) / (2.0 * w * w),
        x0[1]
            + b * (theta0.cos() - th.cos()) / w
            + g / w * (0.5 * t - ((2.0 * th).sin() - (2.0 * theta0).sin()) / (4.0 * w)),
        th,
    ]
}

fn check_incline(model: PlanarModel, duration: f64, g: f64) -> f64 {
    let mut q = vec![0.0; 3];
    let mut v = vec![0.0; 3];
    model.initial_state(&mut q, &mut v);
    let (theta0, w) = (q[2], v[2]);
    let u0 = theta0.cos() * v[0] + theta0.sin() * v[1];
    let r = run_model(model, duration, &tight(0.01));
    assert_eq!(r.outcome.status, Status::Finished);
    let e0 = r.outcome.energy_initial;
    let mut worst = 0.0f64;
    for row in samples(&r.rows) {
        let expected = incline(g, [q[0], q[1]], theta0, u0, w, row.t);
        worst = worst.max(max_diff(&row.q, &expected));
        assert!((row.energy - e0).abs() < 1e-9 * (1.0 + e0.abs()));
        assert!(across(row, [0.0, 0.0]).abs() < 1e-10);
    }
    worst
}

#[test]
fn knife_edge_on_an_incline_follows_its_closed_form() {
    let s = scene("knife_edge_incline");
    assert_eq!(s.gravity[1], 0.0);
    let g = s.gravity[0];
    assert!((g - 9.81 * 30f64.to_radians().sin()).abs() < 1e-12);
    assert_eq!(
        s.joints,
        [Joint {
            kind: JointKind::KnifeEdge { axis: [1.0, 0.0] },
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[0.0; 2]; 2],
        }]
    );
    let body = &s.bodies[0];
    assert_eq!((body.angle, body.velocity), (0.0, [0.0, 0.0]));
    let w = body.angular_velocity;
    let worst = check_incline(s.model().unwrap(), s.duration, g);
    println!("incline scene: largest deviation {worst:e}");
    assert!(worst < 1e-8, "{worst:e}");
    // Never further down the slope than G / (2 w^2), reached at w t = pi/2.
    let peak = incline(g, [0.0; 2], 0.0, 0.0, w, FRAC_PI_2 / w);
    assert!((peak[0] - g / (2.0 * w * w)).abs() < 1e-15);

    // Any initial heading and speed along the blade.
    let (theta0, u0, w): (f64, f64, f64) = (0.7, 0.5, -1.5);
    let body = Body::rigid("skate", 0.8, 0.05)
        .at([1.0, -2.0])
        .turned(theta0)
        .moving([u0 * theta0.cos(), u0 * theta0.sin()])
        .spinning(w);
    let model = PlanarModel::new(
        [g, 0.0],
        vec![body],
        vec![Joint::knife_edge(0, [0.0, 0.0], [1.0, 0.0])],
        vec![],
        vec![],
    )
    .unwrap();
    let worst = check_incline(model, 5.0, g);
    println!("incline, general start: largest deviation {worst:e}");
    assert!(worst < 1e-8, "{worst:e}");
}

/// A knife edge started across its blade is put on it: the run projects
/// the velocity in Gauss's metric, the closest velocity to `v0` in kinetic
/// energy, `min 1/2 (v - v0)^T M (v - v0)` subject to the blade's row
/// `J v = 0`; for one row `v = v0 - M^-1 J^T (J v0) / (J M^-1 J^T)`. Here
/// (blade at `P = (-a, 0)` on the body, heading 0) `J = (0, 1, -a)`,
/// `M = diag(m, m, I)`. The start is that velocity, not only some velocity
/// on the blade; from there the sleigh follows its closed form.
#[test]
fn a_violated_knife_edge_is_projected_at_the_start() {
    let (m, inertia, a) = (1.0, 0.05, 0.3);
    let v0 = [0.3, 0.4, 1.0];
    let body = Body::rigid("sleigh", m, inertia)
        .moving([v0[0], v0[1]])
        .spinning(v0[2]);
    let point = [-a, 0.0];
    let model = PlanarModel::new(
        [0.0, 0.0],
        vec![body],
        vec![Joint::knife_edge(0, point, [1.0, 0.0])],
        vec![],
        vec![],
    )
    .unwrap();
    // The projection by hand: J v0 = 0.4 - 0.3 = 0.1, M^-1 J^T = (0, 1, -6),
    // J M^-1 J^T = 1 + 0.09 / 0.05 = 2.8.
    let row = [0.0, 1.0, -a];
    let mass = [m, m, inertia];
    let violation: f64 = (0..3).map(|i| row[i] * v0[i]).sum();
    let weight: f64 = (0..3).map(|i| row[i] * row[i] / mass[i]).sum();
    assert!((violation - 0.1).abs() < 1e-15 && (weight - 2.8).abs() < 1e-14);
    let projected: Vec<f64> = (0..3)
        .map(|i| v0[i] - row[i] / mass[i] * violation / weight)
        .collect();
    let by_hand = [0.3, 0.4 - 0.1 / 2.8, 1.0 + 0.6 / 2.8];
    assert!(max_diff(&projected, &by_hand) < 1e-15);

    let r = run_model(model, 1.0, &tight(0.1));
    assert_eq!(r.outcome.status, Status::Finished);
    let rows: Vec<&Row> = samples(&r.rows).collect();
    assert_eq!(rows.len(), 11);
    let start = rows[0];
    assert_eq!(start.t, 0.0);
    assert_eq!(start.q, [0.0, 0.0, 0.0], "the positions are not moved");
    let off = max_diff(&start.v, &projected);
    println!(
        "projected start: {:?} vs Gauss's projection {projected:?} ({off:e})",
        start.v
    );
    assert!(off < 1e-12, "{:?} vs {projected:?}", start.v);
    // From there, the sleigh's closed form with u0 = v_x, w0 = omega.
    let sleigh = Sleigh { m, i: inertia, a };
    let mut worst = 0.0f64;
    for row in &rows {
        let (u, w, th) = sleigh.closed_form(projected[0], projected[2], 0.0, row.t);
        let (s, c) = row.q[2].sin_cos();
        worst = worst
            .max((c * row.v[0] + s * row.v[1] - u).abs())
            .max((row.v[2] - w).abs())
            .max((row.q[2] - th).abs())
            .max(across(row, point).abs());
    }
    println!("projected start, then the sleigh's closed form: largest deviation {worst:e}");
    assert!(worst < 1e-8, "{worst:e}");
}
