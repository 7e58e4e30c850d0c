//! Nonholonomic systems in generalized coordinates (Liu Caishan, "The
//! fundamental equations in analytical mechanics for nonholonomic
//! systems", 2016): at random states the QP (auto, Clarabel) and the
//! multiplier, Udwadia-Kalaba (eq 29) and null-space (Maggi / Kane, eqs
//! 13, 25) forms against accelerations and forces derived by hand from
//! Newton's and Euler's laws; Appell = Lagrange = Nielsen; runs against
//! the closed forms, with the constraint residual and the energy along
//! them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use zwang::generalized::catalog::nonholonomic::{
    AppellHamel, ChaplyginSleigh, EulerDisk, KnifeEdge, VerticalDisk,
};
use zwang::generalized::{catalog, AnySystem, Generalized, System};
use zwang::motion::{simulate, ContactSample, Observer, Settings, Status};

use crate::forms_support;
use crate::motion_support;
use forms_support::{off, solve_all};
use motion_support::{max_diff, rk4};

const STATES: usize = 200;

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// The largest deviations found, by what was compared.
#[derive(Debug, Default, Clone, Copy)]
struct Worst {
    /// Clarabel (an interior point method, to its own tolerance).
    clarabel: f64,
    /// auto, multiplier, Udwadia-Kalaba, null space.
    direct: f64,
    /// Appell, Lagrange, Nielsen and the engine, relative.
    forms: f64,
}

impl Worst {
    fn print_and_check(&self, what: &str) {
        println!(
            "{what}: clarabel {:.1e}, direct forms {:.1e}, Appell/Lagrange/Nielsen {:.1e}",
            self.clarabel, self.direct, self.forms
        );
        assert!(
            self.clarabel < 1e-9 && self.direct < 1e-10 && self.forms < 1e-11,
            "{what}: {self:?}"
        );
    }
}

/// Solves the instant of `sys` at `(q, qd)` by every form and checks the
/// accelerations against `a` and the multipliers against `lambda` (the
/// null-space form gives none), relative to `a_scale` and `l_scale`; and
/// the Appell, Lagrange and Nielsen forms against each other.
fn check<S: System>(
    sys: &Generalized<S>,
    q: &[f64],
    qd: &[f64],
    a: &[f64],
    lambda: &[f64],
    a_scale: f64,
    l_scale: f64,
    worst: &mut Worst,
) {
    let eq = sys.equations(0.0, q, qd).unwrap();
    // The state is a motion the constraints allow.
    let residual = eq.values.iter().fold(0.0f64, |m, f| m.max(f.abs()));
    assert!(
        residual < 1e-12 * (1.0 + norm(qd)),
        "state off the constraints: {residual:e}"
    );
    let instant = sys.instant(0.0, q, qd).unwrap();
    for (name, s) in solve_all(&instant) {
        let mut e = off(&s.acceleration, a, a_scale);
        if name == "null_space" {
            assert!(s.multipliers_eq.iter().all(|x| x.is_nan()));
        } else {
            e = e.max(off(&s.multipliers_eq, lambda, l_scale));
        }
        if name == "clarabel" {
            worst.clarabel = worst.clarabel.max(e);
        } else {
            worst.direct = worst.direct.max(e);
        }
    }
    let forms = sys.forms(0.0, q, qd).unwrap();
    assert!(forms.appell.is_some());
    worst.forms = worst.forms.max(forms.max_rel_difference);
}

/// Records the samples of a run.
#[derive(Default)]
struct Samples {
    t: Vec<f64>,
    q: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
}

impl Observer for Samples {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], _contacts: &[ContactSample]) {
        self.t.push(t);
        self.q.push(q.to_vec());
        self.v.push(v.to_vec());
    }
}

/// Runs `sys` for `duration` with `samples` samples (integrator tolerance
/// 1e-11 relative); returns them, and
/// checks that the run finished, that the constraints hold to 1e-9 at
/// every sample and that `T + V` changes by less than `energy_tol`
/// (relative to `energy_scale`); prints both.
fn run<S: System>(
    what: &str,
    sys: &Generalized<S>,
    duration: f64,
    samples: usize,
    energy_scale: f64,
    energy_tol: f64,
) -> Samples {
    // Tolerances below the default (1e-9) so that the drift of the
    // velocity-level constraints between steps, which no projection sees
    // at a sample, stays below 1e-9.
    let mut settings = Settings {
        output_every: duration / samples as f64,
        ..Settings::default()
    };
    settings.ode.rtol = 1e-11;
    settings.ode.atol = 1e-13;
    let mut rec = Samples::default();
    let out = simulate(sys, duration, &settings, &mut rec);
    assert_eq!(out.status, Status::Finished, "{what}: {:?}", out.reason);
    assert!((out.time - duration).abs() < 1e-12);
    let mut residual = 0.0f64;
    let mut energy = 0.0f64;
    let e0 = sys.energy_at(0.0, &rec.q[0], &rec.v[0]);
    for k in 0..rec.t.len() {
        let eq = sys.equations(rec.t[k], &rec.q[k], &rec.v[k]).unwrap();
        residual = eq.values.iter().fold(residual, |m, f| m.max(f.abs()));
        energy = energy.max((sys.energy_at(rec.t[k], &rec.q[k], &rec.v[k]) - e0).abs());
    }
    let energy = energy / energy_scale;
    println!(
        "{what}: {} samples, {} steps, constraint residual {residual:.1e}, energy {energy:.1e}",
        rec.t.len(),
        out.steps
    );
    assert!(rec.t.len() > samples / 2);
    assert!(residual < 1e-9, "{what}: residual {residual:e}");
    assert!(energy < energy_tol, "{what}: energy {energy:e}");
    rec
}

#[test]
fn chaplygin_sleigh_every_form_against_newton() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut worst = Worst::default();
    for _ in 0..STATES {
        let s = ChaplyginSleigh {
            m: rng.gen_range(0.2..5.0),
            inertia: rng.gen_range(0.01..2.0),
            a: rng.gen_range(0.05..2.0),
            ..ChaplyginSleigh::default()
        };
        let (th, u, w) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let q = [rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), th];
        let qd = s.velocity(th, u, w);
        // Body frame: v_C = u e + a w n, a_C = (u' - a w^2) e + (u w + a w') n.
        // Along e no force: u' = a w^2. The blade's force lambda n at P
        // (-a e from C): m (u w + a w') = lambda, I w' = -a lambda.
        let (m, a, j) = (s.m, s.a, s.blade_inertia());
        let wd = -m * a * u * w / j;
        let lambda = m * (u * w + a * wd);
        let n = [-th.sin(), th.cos()];
        let acc = [lambda / m * n[0], lambda / m * n[1], wd];
        let a_scale = (u * w).abs() + a * w * w + 1.0;
        let sys = Generalized::new(s).unwrap();
        check(
            &sys,
            &q,
            &qd,
            &acc,
            &[lambda],
            a_scale,
            m * a_scale,
            &mut worst,
        );
    }
    worst.print_and_check("chaplygin sleigh");
}

#[test]
fn chaplygin_sleigh_run_against_the_closed_form_and_its_limit_heading() {
    let s = ChaplyginSleigh::default();
    let energy = 0.5 * s.m * s.u0 * s.u0 + 0.5 * s.blade_inertia() * s.w0 * s.w0;
    let sys = Generalized::new(s.clone()).unwrap();
    let duration = 25.0;
    let rec = run("chaplygin sleigh, 25 s", &sys, duration, 500, energy, 1e-9);
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let (q, v) = (&rec.q[k], &rec.v[k]);
        let (u, w, th) = s.closed_form(rec.t[k]);
        let u_run = q[2].cos() * v[0] + q[2].sin() * v[1];
        worst = worst
            .max((u_run - u).abs())
            .max((v[2] - w).abs())
            .max((q[2] - th).abs());
    }
    let last = rec.q.last().unwrap()[2];
    let limit = s.asymptotic_heading();
    // The closed form's own limit: w decays like exp(-k t), k = a m U / J.
    let (_, _, th_end) = s.closed_form(duration);
    println!(
        "chaplygin sleigh: u, w, theta vs closed form {worst:.1e}; heading at 25 s {last:.12} vs limit {limit:.12} ({:.1e}; closed form's own gap {:.1e})",
        (last - limit).abs(),
        (th_end - limit).abs()
    );
    assert!(worst < 1e-8, "{worst:e}");
    assert!((th_end - limit).abs() < 1e-12);
    assert!((last - limit).abs() < 1e-8);
    // The sleigh turns by sqrt(J/m)/a (pi/2 - gd(c0)) before it goes
    // straight: a heading test that a sleigh going straight would fail.
    assert!((limit - s.q0[2]).abs() > 0.5);
}

#[test]
fn knife_edge_every_form_against_newton() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut worst = Worst::default();
    for k in 0..STATES {
        let s = KnifeEdge {
            m: rng.gen_range(0.2..5.0),
            inertia: rng.gen_range(0.01..2.0),
            g: rng.gen_range(1.0..20.0),
            // Every tenth state on the level plane.
            alpha: if k % 10 == 0 {
                0.0
            } else {
                rng.gen_range(-1.5..1.5)
            },
            w0: 1.0,
        };
        let (phi, v, w) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let (e, n) = ([phi.cos(), phi.sin()], [-phi.sin(), phi.cos()]);
        let q = [rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), phi];
        let qd = [v * e[0], v * e[1], w];
        // Gravity m g sin(alpha) along x; along the blade v' = g sin(alpha)
        // cos(phi); across it m v w = m g sin(alpha) (x . n) + lambda.
        let (m, gs) = (s.m, s.g * s.alpha.sin());
        let vd = gs * e[0];
        let acc = [vd * e[0] + v * w * n[0], vd * e[1] + v * w * n[1], 0.0];
        let lambda = m * v * w - m * gs * n[0];
        let a_scale = gs.abs() + (v * w).abs() + 1.0;
        let sys = Generalized::new(s).unwrap();
        check(
            &sys,
            &q,
            &qd,
            &acc,
            &[lambda],
            a_scale,
            m * a_scale,
            &mut worst,
        );
    }
    worst.print_and_check("knife edge");
}

#[test]
fn knife_edge_runs_against_the_closed_form() {
    // On the incline (Neimark & Fufaev).
    let s = KnifeEdge::default();
    let sys = Generalized::new(s.clone()).unwrap();
    let scale = s.m * s.g * s.alpha.sin() * s.g * s.alpha.sin() / (s.w0 * s.w0);
    let rec = run(
        "knife edge on the incline, 10 s",
        &sys,
        10.0,
        500,
        scale,
        1e-9,
    );
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let want = s.closed_form(rec.t[k]);
        let want_v = s.closed_form_velocity(rec.t[k]);
        worst = worst
            .max(off(&rec.q[k], &want, 1.0))
            .max(off(&rec.v[k], &want_v, 1.0));
    }
    println!("knife edge on the incline: positions and velocities vs closed form {worst:.1e}");
    assert!(worst < 1e-8, "{worst:e}");
    // The path drifts across the slope at the mean speed g sin(alpha) / (2 w).
    let y_end = rec.q.last().unwrap()[1];
    assert!(y_end > 0.5 * s.g * s.alpha.sin() / (2.0 * s.w0) * 10.0 * 0.9);

    // On the level plane it turns at w0 and slides at its initial speed
    // on a circle: started along x at speed 1.5, radius 1.5 / w0.
    struct Level(KnifeEdge);
    impl System for Level {
        fn dof(&self) -> usize {
            3
        }
        fn kinetic<D: zwang::generalized::Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D {
            self.0.kinetic(t, q, qd)
        }
        fn potential<D: zwang::generalized::Scalar>(&self, t: D, q: &[D]) -> D {
            self.0.potential(t, q)
        }
        fn constraints(&self) -> usize {
            1
        }
        fn constraint_kind(&self, k: usize) -> zwang::generalized::ConstraintKind {
            self.0.constraint_kind(k)
        }
        fn constraint<D: zwang::generalized::Scalar>(
            &self,
            k: usize,
            t: D,
            q: &[D],
            qd: &[D],
        ) -> D {
            self.0.constraint(k, t, q, qd)
        }
        fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
            (vec![0.0; 3], vec![1.5, 0.0, self.0.w0])
        }
    }
    let level = KnifeEdge {
        alpha: 0.0,
        ..KnifeEdge::default()
    };
    let w = level.w0;
    let sys = Generalized::new(Level(level)).unwrap();
    let rec = run(
        "knife edge on the level plane, 10 s",
        &sys,
        10.0,
        500,
        1.0,
        1e-10,
    );
    let rho = 1.5 / w;
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let phi = w * rec.t[k];
        let want = [rho * phi.sin(), rho * (1.0 - phi.cos()), phi];
        worst = worst.max(off(&rec.q[k], &want, 1.0));
    }
    println!("knife edge on the level plane: the circle {worst:.1e}");
    assert!(worst < 1e-8, "{worst:e}");
}

#[test]
fn vertical_disk_every_form_against_newton() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut worst = Worst::default();
    for _ in 0..STATES {
        let (m, r) = (rng.gen_range(0.2..5.0), rng.gen_range(0.05..1.0));
        let axial = m * r * r * rng.gen_range(0.2..1.0);
        let s = VerticalDisk {
            m,
            r,
            axial,
            diametral: axial * rng.gen_range(0.5..1.5),
            ..VerticalDisk::default()
        };
        let (phi, phid, psid) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-5.0..5.0),
            rng.gen_range(-10.0..10.0),
        );
        let q = [
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
            phi,
            rng.gen_range(-PI..PI),
        ];
        let qd = s.velocity(phi, phid, psid);
        // m a = F (horizontal contact force), I_d phi'' = 0,
        // I_a psi'' = -r F . e; rolling: a . e = r psi'', so
        // (I_a + m r^2) psi'' = 0 and a = r psi' phi' n.
        let n = [-phi.sin(), phi.cos()];
        let an = r * psid * phid;
        let acc = [an * n[0], an * n[1], 0.0, 0.0];
        let lambda = [m * acc[0], m * acc[1]];
        let a_scale = an.abs() + 1.0;
        let sys = Generalized::new(s).unwrap();
        check(
            &sys,
            &q,
            &qd,
            &acc,
            &lambda,
            a_scale,
            m * a_scale,
            &mut worst,
        );
    }
    worst.print_and_check("vertical disk");
}

#[test]
fn vertical_disk_run_against_the_circle() {
    let s = VerticalDisk {
        q0: [0.3, -0.2, 0.4, 0.1],
        ..VerticalDisk::default()
    };
    let sys = Generalized::new(s.clone()).unwrap();
    let (q0, qd0) = s.initial_state();
    let e = sys.energy_at(0.0, &q0, &qd0);
    let rec = run("vertical disk, 10 s", &sys, 10.0, 500, e, 1e-10);
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        worst = worst.max(off(&rec.q[k], &s.closed_form(rec.t[k]), 1.0));
    }
    // The contact's distance from the circle's centre stays rho.
    let rho = s.r * s.psid0 / s.phid0;
    let centre = [q0[0] - rho * q0[2].sin(), q0[1] + rho * q0[2].cos()];
    let q_end = rec.q.last().unwrap();
    let radius = (q_end[0] - centre[0]).hypot(q_end[1] - centre[1]);
    println!(
        "vertical disk: vs closed form {worst:.1e}, radius {radius:.12} vs r psi'/phi' = {rho:.12}"
    );
    assert!(worst < 1e-8, "{worst:e}");
    assert!((radius - rho.abs()).abs() < 1e-8);
}

/// Newton and Euler for the rolling disk, solved by hand: the contact
/// force `F` at `r = -R d` from the centre, `m a_C = F - m g z`,
/// `I alpha + omega x I omega = r x F`, and no slip at the contact,
/// `a_C = -alpha x r - omega x r'`. Returns `(qdd, (F_x, F_y))`.
fn euler_disk_newton(s: &EulerDisk, q: &[f64], qd: &[f64]) -> ([f64; 5], [f64; 2]) {
    fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }
    fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }
    fn lin(terms: &[(f64, [f64; 3])]) -> [f64; 3] {
        let mut v = [0.0; 3];
        for (c, x) in terms {
            for i in 0..3 {
                v[i] += c * x[i];
            }
        }
        v
    }
    /// Solves `[c0 c1 c2] x = b` (columns) by Cramer's rule.
    fn solve3(c: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
        let det = dot(c[0], cross(c[1], c[2]));
        [
            dot(b, cross(c[1], c[2])) / det,
            dot(c[0], cross(b, c[2])) / det,
            dot(c[0], cross(c[1], b)) / det,
        ]
    }
    let (m, big_r, g) = (s.m, s.r, s.g);
    let (sp, cp) = q[2].sin_cos();
    let (st, ct) = q[3].sin_cos();
    let (pd, td, sd) = (qd[2], qd[3], qd[4]);
    let z = [0.0, 0.0, 1.0];
    let e = [cp, sp, 0.0];
    let ax = [-sp * ct, cp * ct, st];
    let d = [sp * st, -cp * st, ct];
    let omega = lin(&[(pd, z), (td, e), (sd, ax)]);
    let frame = lin(&[(pd, z), (td, e)]);
    let inertia =
        |x: [f64; 3]| lin(&[(s.diametral, x), ((s.axial - s.diametral) * dot(ax, x), ax)]);
    let r = lin(&[(-big_r, d)]);
    let rd = lin(&[(-big_r, cross(frame, d))]);
    // L(alpha) = I alpha + m r x (alpha x r) = r x (m g z - m omega x r') - omega x I omega.
    let l = |x: [f64; 3]| lin(&[(1.0, inertia(x)), (m, cross(r, cross(x, r)))]);
    let rhs = lin(&[
        (1.0, cross(r, lin(&[(m * g, z), (-m, cross(omega, rd))]))),
        (-1.0, cross(omega, inertia(omega))),
    ]);
    let alpha = solve3(
        [l([1.0, 0.0, 0.0]), l([0.0, 1.0, 0.0]), l([0.0, 0.0, 1.0])],
        rhs,
    );
    let a_c = lin(&[(-1.0, cross(alpha, r)), (-1.0, cross(omega, rd))]);
    let force = lin(&[(m, a_c), (m * g, z)]);
    // The centre's height r cos(theta): its second derivative.
    let zdd = -big_r * ct * td * td;
    // alpha = phi'' z + theta'' e + psi'' a + theta' e' + psi' a'.
    let e_dot = cross(frame, e);
    let a_dot = cross(frame, ax);
    let known = lin(&[(1.0, alpha), (-td, e_dot), (-sd, a_dot)]);
    let [pdd, tdd, sdd] = solve3([z, e, ax], known);
    assert!(
        (a_c[2] - (zdd - big_r * st * tdd)).abs() < 1e-9 * (1.0 + a_c[2].abs()),
        "vertical acceleration of the centre: {} vs {}",
        a_c[2],
        zdd - big_r * st * tdd
    );
    ([a_c[0], a_c[1], pdd, tdd, sdd], [force[0], force[1]])
}

#[test]
fn euler_disk_every_form_against_newton_and_euler() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut worst = Worst::default();
    for _ in 0..STATES {
        let (m, r) = (rng.gen_range(0.2..5.0), rng.gen_range(0.05..1.0));
        let axial = m * r * r * rng.gen_range(0.2..1.0);
        let s = EulerDisk {
            axial,
            diametral: axial * rng.gen_range(0.5..1.5),
            g: rng.gen_range(1.0..20.0),
            ..EulerDisk::uniform(m, r)
        };
        let (phi, theta) = (rng.gen_range(-PI..PI), rng.gen_range(-1.3..1.3));
        let rates = [
            rng.gen_range(-5.0..5.0),
            rng.gen_range(-5.0..5.0),
            rng.gen_range(-10.0..10.0),
        ];
        let q = [
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
            phi,
            theta,
            rng.gen_range(-PI..PI),
        ];
        let qd = s.rolling_velocity(phi, theta, rates);
        let (acc, force) = euler_disk_newton(&s, &q, &qd);
        let w2 = rates.iter().map(|x| x * x).sum::<f64>();
        let a_scale = s.g / r + w2 + 1.0;
        let l_scale = m * r * a_scale;
        let sys = Generalized::new(s).unwrap();
        check(&sys, &q, &qd, &acc, &force, a_scale, l_scale, &mut worst);
    }
    worst.print_and_check("euler disk");
}

#[test]
fn euler_disk_steady_rolling_at_constant_tilt() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut worst = Worst::default();
    for _ in 0..STATES {
        let (m, r) = (rng.gen_range(0.2..5.0), rng.gen_range(0.05..1.0));
        let s = EulerDisk {
            g: rng.gen_range(1.0..20.0),
            ..EulerDisk::uniform(m, r)
        };
        let (phi, theta) = (rng.gen_range(-PI..PI), rng.gen_range(-1.3..1.3));
        let omega = rng.gen_range(0.5..6.0) * if rng.gen::<bool>() { 1.0 } else { -1.0 };
        let q = [0.1, -0.3, phi, theta, rng.gen_range(-PI..PI)];
        let qd = s.steady_velocity(phi, theta, omega);
        // Constant tilt and rates: only the centre's centripetal
        // acceleration V omega n, made by the contact force.
        let v = qd[0].hypot(qd[1]) * (qd[0] * phi.cos() + qd[1] * phi.sin()).signum();
        let n = [-phi.sin(), phi.cos()];
        let acc = [v * omega * n[0], v * omega * n[1], 0.0, 0.0, 0.0];
        let lambda = [m * acc[0], m * acc[1]];
        let a_scale = s.g / r + omega * omega + qd[4] * qd[4] + 1.0;
        let sys = Generalized::new(s).unwrap();
        check(
            &sys,
            &q,
            &qd,
            &acc,
            &lambda,
            a_scale,
            m * r * a_scale,
            &mut worst,
        );
    }
    worst.print_and_check("euler disk, steady rolling");

    // A run from steady rolling stays there: tilt and rates constant, the
    // contact on a circle.
    let s = EulerDisk::default();
    let sys = Generalized::new(s.clone()).unwrap();
    let e = s.m * s.g * s.r;
    let rec = run("euler disk, steady, 5 s", &sys, 5.0, 250, e, 1e-9);
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let (q, v) = (&rec.q[k], &rec.v[k]);
        worst = worst
            .max((q[3] - s.q0[3]).abs())
            .max(off(&v[2..], &s.qd0[2..], 1.0))
            .max((q[2] - s.qd0[2] * rec.t[k]).abs());
    }
    println!("euler disk, steady: tilt and rates constant to {worst:.1e}");
    assert!(worst < 1e-8, "{worst:e}");
}

/// Off the steady state (tilt rate 1 rad/s) the disk wobbles: the run
/// against a reference integrated here, RK4 on `q'' = f(q, q')` with
/// `f` = [`euler_disk_newton`] (Newton and Euler solved by hand, the
/// rolling kept by `a_C` itself), 200 steps between samples (step 1e-4 s),
/// converged (the same with 100 steps to 1e-10): `q` and `q'` at every
/// sample to 1e-8; and the tilt does swing. (`run` checks the energy and
/// the rolling constraints along the run.)
#[test]
fn euler_disk_wobbling_run_follows_newton_and_euler() {
    let mut s = EulerDisk::default();
    s.qd0 = s.rolling_velocity(0.0, s.q0[3], [s.qd0[2], 1.0, s.qd0[4]]);
    let sys = Generalized::new(s.clone()).unwrap();
    let e = s.m * s.g * s.r;
    let rec = run("euler disk, wobbling, 5 s", &sys, 5.0, 250, e, 1e-9);
    let f = |y: &[f64]| {
        let (acc, _) = euler_disk_newton(&s, &y[..5], &y[5..]);
        y[5..].iter().chain(&acc).copied().collect::<Vec<f64>>()
    };
    let start: Vec<f64> = s.q0.iter().chain(&s.qd0).copied().collect();
    let reference = |steps: usize| {
        let mut y = start.clone();
        let mut out = vec![y.clone()];
        for k in 1..rec.t.len() {
            y = rk4(&f, &y, rec.t[k] - rec.t[k - 1], steps);
            out.push(y.clone());
        }
        out
    };
    let (fine, coarse) = (reference(200), reference(100));
    let (mut converged, mut worst) = (0.0f64, 0.0f64);
    for k in 0..rec.t.len() {
        converged = converged.max(max_diff(&fine[k], &coarse[k]));
        let got: Vec<f64> = rec.q[k].iter().chain(&rec.v[k]).copied().collect();
        worst = worst.max(max_diff(&got, &fine[k]));
    }
    let tilt = fine.iter().map(|y| y[3]);
    let (lo, hi) = tilt.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    println!(
        "euler disk, wobbling: tilt between {lo:.4} and {hi:.4}; q, q' vs the Newton-Euler \
         reference {worst:.1e} (reference converged to {converged:.1e})"
    );
    assert!(converged < 1e-10, "{converged:e}");
    assert!(worst < 1e-8, "{worst:e}");
    assert!(hi - lo > 0.05, "it wobbles");
}

#[test]
fn appell_hamel_instant_and_run_against_the_closed_form() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut worst = Worst::default();
    for _ in 0..STATES {
        let s = AppellHamel {
            m: rng.gen_range(0.2..5.0),
            g: rng.gen_range(1.0..20.0),
            a: rng.gen_range(-2.0..2.0),
            v0: [1.0, 0.0],
        };
        let (speed, dir) = (rng.gen_range(0.1..5.0), rng.gen_range(-PI..PI));
        let u = [dir.cos(), dir.sin()];
        let q = [
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
        ];
        let qd = [speed * u[0], speed * u[1], s.a * speed];
        // m v' = -a lambda, m z'' = -m g + lambda, z'' = a v':
        // v' = -g a / (1 + a^2), lambda = m g / (1 + a^2).
        let (m, g, a) = (s.m, s.g, s.a);
        let vd = -g * a / (1.0 + a * a);
        let acc = [vd * u[0], vd * u[1], a * vd];
        let lambda = m * g / (1.0 + a * a);
        let sys = Generalized::new(s).unwrap();
        check(&sys, &q, &qd, &acc, &[lambda], g, m * g, &mut worst);
    }
    worst.print_and_check("appell-hamel");

    let s = AppellHamel::default();
    let sys = Generalized::new(s.clone()).unwrap();
    let stop = s.stop_time();
    let duration = 0.9 * stop;
    let e = 0.5 * s.m * (1.0 + s.a * s.a) * (s.v0[0].hypot(s.v0[1])).powi(2);
    let rec = run(
        "appell-hamel, to 0.9 of the stop",
        &sys,
        duration,
        300,
        e,
        1e-9,
    );
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let (q, v) = s.closed_form(rec.t[k]);
        worst = worst
            .max(off(&rec.q[k], &q, 1.0))
            .max(off(&rec.v[k], &v, 1.0));
    }
    println!(
        "appell-hamel run to {duration:.3} s (stop at {stop:.3} s): vs closed form {worst:.1e}"
    );
    assert!(worst < 1e-8, "{worst:e}");
}

#[test]
fn catalog_entries_build_and_run_boxed() {
    let all: Vec<&str> = catalog::entries().iter().map(|e| e.name).collect();
    for (i, name) in all.iter().enumerate() {
        assert!(!all[..i].contains(name), "{name} twice");
    }
    for entry in catalog::nonholonomic::entries() {
        assert!(all.contains(&entry.name), "{} not by name", entry.name);
        assert!(catalog::by_name(entry.name).is_ok());
        let sys: Box<dyn AnySystem> = (entry.build)().unwrap();
        assert!(sys.constraint_count() > 0);
        let (q, qd) = sys.initial();
        let eq = sys.equations(0.0, &q, &qd).unwrap();
        let residual = eq.values.iter().fold(0.0f64, |m, f| m.max(f.abs()));
        assert!(residual < 1e-12, "{}: {residual:e}", entry.name);
        let forms = sys.forms(0.0, &q, &qd).unwrap();
        assert!(forms.max_rel_difference < 1e-11, "{}", entry.name);
        let out = simulate(
            &sys,
            0.5,
            &Settings::default(),
            &mut zwang::motion::NoObserver,
        );
        assert_eq!(
            out.status,
            Status::Finished,
            "{}: {:?}",
            entry.name,
            out.reason
        );
        let de = (out.energy_final - out.energy_initial).abs();
        assert!(
            de < 1e-9 * (1.0 + out.energy_initial.abs()),
            "{}: {de:e}",
            entry.name
        );
    }
}
