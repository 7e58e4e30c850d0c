//! Constraints in generalized coordinates: the instant's rows (holonomic,
//! rheonomic, Pfaffian and nonlinear velocity-level ones), solved by the
//! QP and by every variational form of `zwang-forms`, against closed forms
//! (Newton's laws for the multipliers), and runs that keep the
//! constraints.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use zwang::generalized::catalog::{CartesianDoublePendulum, ParticleOnCircle};
use zwang::generalized::{ConstraintKind, Generalized, Scalar, System};
use zwang::instant::Instant;
use zwang::motion::{simulate, InstantWriter, NoObserver, Settings, Status};

use crate::forms_support;
use forms_support::{off, solve_all};

const STATES: usize = 200;

/// Checks every solution against the closed-form accelerations and
/// multipliers (those that give multipliers); returns the largest
/// relative deviations `(clarabel, the others)`: Clarabel, an interior
/// point method, stops at its own tolerance.
fn check(instant: &Instant, a: &[f64], lambda: &[f64], a_scale: f64, l_scale: f64) -> (f64, f64) {
    let mut worst = (0.0f64, 0.0f64);
    for (name, s) in solve_all(instant) {
        let mut e = off(&s.acceleration, a, a_scale);
        if name != "null_space" {
            e = e.max(off(&s.multipliers_eq, lambda, l_scale));
        } else {
            assert!(s.multipliers_eq.iter().all(|x| x.is_nan()));
        }
        if name == "clarabel" {
            worst.0 = worst.0.max(e);
        } else {
            worst.1 = worst.1.max(e);
        }
    }
    worst
}

#[test]
fn particle_on_a_circle_every_form_against_the_closed_form() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..STATES {
        let p = ParticleOnCircle {
            m: rng.gen_range(0.1..10.0),
            r: rng.gen_range(0.1..3.0),
            g: rng.gen_range(1.0..20.0),
            angle0: rng.gen_range(-PI..PI),
            rate0: rng.gen_range(-5.0..5.0),
        };
        let (th, w, m, r, g) = (p.angle0, p.rate0, p.m, p.r, p.g);
        let (q, qd) = p.initial_state();
        // theta'' = -(g/r) sin theta; the bob's acceleration
        // r theta'' (cos, sin) + r theta'^2 (-sin, cos); the rod's force
        // along the row (x, y) with lambda = -m (theta'^2 + g cos theta / r).
        let (s, c) = th.sin_cos();
        let thdd = -g / r * s;
        let a = [r * (thdd * c - w * w * s), r * (thdd * s + w * w * c)];
        let lambda = [-m * (w * w + g * c / r)];
        let sys = Generalized::new(p).unwrap();
        let instant = sys.instant(rng.gen_range(-3.0..3.0), &q, &qd).unwrap();
        assert_eq!(instant.equalities().len(), 1);
        let e = check(&instant, &a, &lambda, g + r * w * w, lambda[0].abs());
        worst = (worst.0.max(e.0), worst.1.max(e.1));
    }
    println!(
        "particle on a circle: clarabel {:.1e}, direct forms {:.1e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-10, "{worst:?}");
}

/// The textbook angle accelerations of a double pendulum of point masses,
/// solved here (Cramer's rule).
fn point_double_pendulum(p: &CartesianDoublePendulum, th: [f64; 2], w: [f64; 2]) -> [f64; 2] {
    let ([m1, m2], [l1, l2], g) = (p.mass, p.length, p.g);
    let (s, c) = (th[0] - th[1]).sin_cos();
    let (a, b, d) = ((m1 + m2) * l1 * l1, m2 * l1 * l2 * c, m2 * l2 * l2);
    let r1 = -m2 * l1 * l2 * s * w[1] * w[1] - (m1 + m2) * g * l1 * th[0].sin();
    let r2 = m2 * l1 * l2 * s * w[0] * w[0] - m2 * g * l2 * th[1].sin();
    let det = a * d - b * b;
    [(r1 * d - b * r2) / det, (a * r2 - b * r1) / det]
}

#[test]
fn cartesian_double_pendulum_every_form_against_the_angles_and_newton() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..STATES {
        let p = CartesianDoublePendulum {
            mass: [rng.gen_range(0.2..5.0), rng.gen_range(0.2..5.0)],
            length: [rng.gen_range(0.2..2.0), rng.gen_range(0.2..2.0)],
            ..CartesianDoublePendulum::default()
        };
        let th = [rng.gen_range(-PI..PI), rng.gen_range(-PI..PI)];
        let w = [rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0)];
        let (q, qd) = p.state_of(th, w);
        let thdd = point_double_pendulum(&p, th, w);
        let ([m1, m2], [l1, l2], g) = (p.mass, p.length, p.g);
        // Accelerations of the two masses from the angles'.
        let acc = |l: f64, th: f64, w: f64, a: f64| {
            let (s, c) = th.sin_cos();
            [l * (a * c - w * w * s), l * (a * s + w * w * c)]
        };
        let a1 = acc(l1, th[0], w[0], thdd[0]);
        let a2r = acc(l2, th[1], w[1], thdd[1]);
        let a2 = [a1[0] + a2r[0], a1[1] + a2r[1]];
        // Newton on mass 2: m2 a2 = m2 g + lambda2 d (d = r2 - r1, the
        // gradient of the second row); on mass 1:
        // m1 a1 = m1 g + lambda1 r1 - lambda2 d.
        let d = [q[2] - q[0], q[3] - q[1]];
        let f2 = [m2 * a2[0], m2 * a2[1] + m2 * g];
        let lambda2 = (f2[0] * d[0] + f2[1] * d[1]) / (l2 * l2);
        let f1 = [
            m1 * a1[0] + lambda2 * d[0],
            m1 * a1[1] + m1 * g + lambda2 * d[1],
        ];
        let lambda1 = (f1[0] * q[0] + f1[1] * q[1]) / (l1 * l1);
        let a = [a1[0], a1[1], a2[0], a2[1]];
        let sys = Generalized::new(p).unwrap();
        let instant = sys.instant(0.0, &q, &qd).unwrap();
        let a_scale = a.iter().fold(g, |m, x| m.max(x.abs()));
        let l_scale = lambda1
            .abs()
            .max(lambda2.abs())
            .max((m1 + m2) * g / l1.min(l2));
        let e = check(&instant, &a, &[lambda1, lambda2], a_scale, l_scale);
        worst = (worst.0.max(e.0), worst.1.max(e.1));
    }
    println!(
        "cartesian double pendulum: clarabel {:.1e}, direct forms {:.1e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-10, "{worst:?}");
}

#[test]
fn cartesian_double_pendulum_run_keeps_energy_and_lengths() {
    let sys = Generalized::new(CartesianDoublePendulum::default()).unwrap();
    let run = simulate(&sys, 5.0, &Settings::default(), &mut NoObserver);
    assert_eq!(run.status, Status::Finished, "{:?}", run.reason);
    let q = &run.q;
    let l1 = q[0].hypot(q[1]);
    let l2 = (q[2] - q[0]).hypot(q[3] - q[1]);
    let drift = (l1 - 1.0).abs().max((l2 - 1.0).abs());
    let energy = (run.energy_final - run.energy_initial).abs() / (2.0 * 9.81 * 2.0);
    println!("cartesian double pendulum, 5 s: lengths off by {drift:.1e}, energy {energy:.1e}");
    assert!(drift < 1e-10, "{drift:e}");
    assert!(energy < 1e-8, "{energy:e}");
}

/// A bead on a straight wire through the origin that turns at the rate
/// `omega` in a horizontal plane: `phi = -x sin(omega t) + y cos(omega t)`
/// (rheonomic). Along the wire `r'' = r omega^2`; the wire pushes with
/// `lambda = 2 m r' omega` along its normal (the Coriolis force).
struct Bead {
    m: f64,
    omega: f64,
}

impl System for Bead {
    fn dof(&self) -> usize {
        2
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m)
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint<D: Scalar>(&self, _k: usize, t: D, q: &[D], _qd: &[D]) -> D {
        let (s, c) = (t * self.omega).sin_cos();
        -q[0] * s + q[1] * c
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        // r = 1 at rest along the wire: r(t) = cosh(omega t).
        (vec![1.0, 0.0], vec![0.0, self.omega])
    }
}

#[test]
fn bead_on_a_turning_wire_rheonomic_row_and_run() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..STATES {
        let bead = Bead {
            m: rng.gen_range(0.1..5.0),
            omega: rng.gen_range(-4.0..4.0),
        };
        let (m, w) = (bead.m, bead.omega);
        let (t, r, rd) = (
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-3.0..3.0),
        );
        let (s, c) = (w * t).sin_cos();
        let (er, et) = ([c, s], [-s, c]);
        let q = [r * er[0], r * er[1]];
        let qd = [rd * er[0] + r * w * et[0], rd * er[1] + r * w * et[1]];
        let a = [2.0 * rd * w * et[0], 2.0 * rd * w * et[1]];
        let lambda = [2.0 * m * rd * w];
        let sys = Generalized::new(bead).unwrap();
        let instant = sys.instant(t, &q, &qd).unwrap();
        let scale = (r * w * w).abs().max((rd * w).abs()).max(1.0);
        let e = check(&instant, &a, &lambda, scale, m * scale);
        // Velocity level: J qd = c with c = -phi_t = omega r.
        let mut target = [0.0];
        sys.velocity_targets(t, &q, &qd, &[], &mut target);
        worst = (
            worst.0.max(e.0),
            worst.1.max(e.1),
            worst.2.max((target[0] - w * r).abs() / scale),
        );
    }
    println!(
        "bead on a turning wire: clarabel {:.1e}, direct forms {:.1e}, velocity target {:.1e}",
        worst.0, worst.1, worst.2
    );
    assert!(
        worst.0 < 1e-9 && worst.1 < 1e-10 && worst.2 < 1e-14,
        "{worst:?}"
    );

    let bead = Bead { m: 1.0, omega: 1.3 };
    let sys = Generalized::new(bead).unwrap();
    let run = simulate(&sys, 1.0, &Settings::default(), &mut NoObserver);
    assert_eq!(run.status, Status::Finished, "{:?}", run.reason);
    let (s, c) = 1.3f64.sin_cos();
    let r = 1.3f64.cosh();
    let want = [r * c, r * s];
    let e = (run.q[0] - want[0]).abs().max((run.q[1] - want[1]).abs());
    println!("bead run to 1 s vs r = cosh(omega t): {e:.1e}");
    assert!(e < 1e-8, "{e:e}");
}

/// A skate (knife edge) in the plane, `q = (x, y, psi)`, that cannot move
/// sideways: `f = -sin psi x' + cos psi y' = 0` (Pfaffian). Free of
/// forces, it turns at a constant rate and its speed `v` along its heading
/// is constant: `a = v psi' (-sin psi, cos psi)`, `psi'' = 0`, pushed by
/// `lambda = m v psi'` sideways.
struct Skate {
    m: f64,
    inertia: f64,
}

impl System for Skate {
    fn dof(&self) -> usize {
        3
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m) + qd[2] * qd[2] * (0.5 * self.inertia)
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, q: &[D], qd: &[D]) -> D {
        let (s, c) = q[2].sin_cos();
        -s * qd[0] + c * qd[1]
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, 0.0, 0.0], vec![1.0, 0.0, 0.8])
    }
}

#[test]
fn skate_pfaffian_velocity_row_and_run() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..STATES {
        let sk = Skate {
            m: rng.gen_range(0.1..5.0),
            inertia: rng.gen_range(0.01..2.0),
        };
        let m = sk.m;
        let (psi, v, w) = (
            rng.gen_range(-PI..PI),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let (s, c) = psi.sin_cos();
        let q = [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), psi];
        let qd = [v * c, v * s, w];
        let a = [-v * w * s, v * w * c, 0.0];
        let lambda = [m * v * w];
        let sys = Generalized::new(sk).unwrap();
        let eq = sys.equations(0.0, &q, &qd).unwrap();
        assert_eq!(eq.kinds, vec![ConstraintKind::Velocity]);
        // The row by hand: f_qd = (-sin, cos, 0), b = -f_q qd = psi' (cos x' + sin y').
        assert!(off(&eq.jacobian, &[-s, c, 0.0], 1.0) < 1e-15);
        assert!((eq.rhs[0] - w * (c * qd[0] + s * qd[1])).abs() < 1e-14 * (1.0 + (v * w).abs()));
        let instant = sys.instant(0.0, &q, &qd).unwrap();
        let scale = (v * w).abs().max(1.0);
        let e = check(&instant, &a, &lambda, scale, m * scale);
        worst = (worst.0.max(e.0), worst.1.max(e.1));
    }
    println!(
        "skate: clarabel {:.1e}, direct forms {:.1e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-10, "{worst:?}");

    // A run: a circle of radius v / psi' = 1.25 about (0, 1.25).
    let sys = Generalized::new(Skate {
        m: 1.0,
        inertia: 0.5,
    })
    .unwrap();
    let run = simulate(&sys, 2.0, &Settings::default(), &mut NoObserver);
    assert_eq!(run.status, Status::Finished, "{:?}", run.reason);
    let psi: f64 = 0.8 * 2.0;
    let rho = 1.0 / 0.8;
    let want = [rho * psi.sin(), rho * (1.0 - psi.cos()), psi];
    let e = off(&run.q, &want, 1.0);
    println!("skate run to 2 s vs the circle: {e:.1e}");
    assert!(e < 1e-8, "{e:e}");
}

/// A particle under gravity whose speed is held at `v0`:
/// `f = (x'^2 + y'^2 - v0^2) / 2 = 0`, nonlinear in the velocities. By
/// Chetaev's rule the force is along the velocity, `lambda v`:
/// `lambda = -Q . v / |v|^2`, and the path is the curve of constant speed
/// whose heading turns at `g cos(heading) / v0` (the normal part of
/// gravity).
struct ConstantSpeed {
    m: f64,
    g: f64,
    v0: f64,
}

impl System for ConstantSpeed {
    fn dof(&self) -> usize {
        2
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m)
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        q[1] * (self.m * self.g)
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1] - self.v0 * self.v0) * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, 0.0], vec![self.v0, 0.0])
    }
}

#[test]
fn constant_speed_nonlinear_velocity_row_and_run() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..STATES {
        let p = ConstantSpeed {
            m: rng.gen_range(0.1..5.0),
            g: rng.gen_range(1.0..20.0),
            v0: rng.gen_range(0.5..5.0),
        };
        let (m, g, v0) = (p.m, p.g, p.v0);
        let heading = rng.gen_range(-PI..PI);
        let v = [v0 * heading.cos(), v0 * heading.sin()];
        let lambda = m * g * v[1] / (v0 * v0);
        let a = [lambda * v[0] / m, -g + lambda * v[1] / m];
        let sys = Generalized::new(p).unwrap();
        let instant = sys.instant(0.0, &[0.3, -0.2], &v).unwrap();
        let e = check(&instant, &a, &[lambda], g, m * g / v0);
        worst = (worst.0.max(e.0), worst.1.max(e.1));
    }
    println!(
        "constant speed: clarabel {:.1e}, direct forms {:.1e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-10, "{worst:?}");

    // A run: the speed stays v0, and the heading beta obeys
    // beta' = -g cos(beta) / v0 (a falling curve of constant speed):
    // tan(beta/2 + pi/4) = exp(-g t / v0) from beta(0) = 0, so
    // beta(t) = 2 atan(exp(-g t / v0)) - pi/2.
    let (g, v0) = (9.81, 3.0);
    let sys = Generalized::new(ConstantSpeed { m: 1.0, g, v0 }).unwrap();
    let run = simulate(&sys, 1.0, &Settings::default(), &mut NoObserver);
    assert_eq!(run.status, Status::Finished, "{:?}", run.reason);
    let speed = run.v[0].hypot(run.v[1]);
    let beta = run.v[1].atan2(run.v[0]);
    let want = 2.0 * (-g * 1.0 / v0).exp().atan() - PI / 2.0;
    println!(
        "constant speed run to 1 s: speed off by {:.1e}, heading off by {:.1e}",
        (speed - v0).abs(),
        (beta - want).abs()
    );
    assert!((speed - v0).abs() < 1e-9);
    assert!((beta - want).abs() < 1e-8);
}

#[test]
fn the_harness_compares_every_form_on_a_generalized_instant() {
    use zwang::harness::Comparison;
    let p = CartesianDoublePendulum::default();
    let (q, qd) = p.state_of([0.6, -1.1], [2.0, -0.5]);
    let sys = Generalized::new(p).unwrap();
    let comparison = Comparison::of(&sys.instant(0.0, &q, &qd).unwrap());
    assert_eq!(comparison.checked.report.verdict.as_str(), "equivalent");
    let spread = comparison.max_difference;
    println!(
        "harness on the cartesian double pendulum: accelerations {:.1e}, multipliers {:.1e}",
        spread.acceleration.unwrap(),
        spread.multipliers.unwrap()
    );
    assert!(spread.acceleration.unwrap() < 1e-9);
    assert!(spread.multipliers.unwrap() < 1e-9);
}
