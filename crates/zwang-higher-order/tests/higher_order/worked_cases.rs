//! Constraints of third order (`zwang-higher-order`) against references
//! that do not use the engine: the worked case of Zhang et al. (arbitrary-
//! order Gauss principle of relative motion dynamics, section 5: a particle
//! on a slowly turning plane with `q1'' q1''' + g q2''' = 0`) through its
//! own equations (50), its invariant, finite differences and an ODE derived
//! by hand; its non-turning case in closed form; and a double pendulum whose
//! tip is held on a horizontal line by the third time derivative of that
//! holonomic constraint, against the Gauss QP of the acceleration-level row,
//! the pendulum's energy and the constraint itself; the same pendulum held
//! by the fourth and fifth derivatives (`any_order`), against the same QP.

use zwang_higher_order::num_dual::Dual64;
use zwang_higher_order::{
    derivatives, instant, integrate, HigherOrderError, Sample, Scalar, State, ThirdOrderSystem,
    Trajectory, TurningPlane,
};
use zwang_instant::{matrix_from_triplets, Instant};
use zwang_ode::{Integrator, OdeSystem, Settings};

use crate::{tolerances, Q0, QD0};
use zwang_qp::{AutoBackend, Backend};

/// Tight tolerances: the comparisons below are at 1e-9.
fn settings() -> Settings {
    tolerances(1e-12)
}

/// The worked case with the parameters of the brief: `M = 1`, a plane
/// turning slowly (`omega = 0.1`), `g = 9.81`, the weight `F = (0, -M g)`.
const PLANE: TurningPlane = TurningPlane {
    mass: 1.0,
    omega: 0.1,
    g: 9.81,
    force: [0.0, -9.81],
};

fn start(lambda: f64) -> State {
    State {
        t: 0.0,
        q: Q0.to_vec(),
        qd: QD0.to_vec(),
        lambda: vec![lambda],
    }
}

fn rel(x: f64, y: f64, scale: f64) -> f64 {
    (x - y).abs() / scale
}

/// Zhang et al.'s eqs (50) and (42), solved by hand for the state
/// derivative `(q1', q2', q1'', q2'', lambda')` of `y = (q1, q2, q1', q2',
/// lambda)`: `a1 = R1 / (M - lambda)`, `a2 = (R2 + lambda g) / M` with
/// `R1 = F1 + M w^2 q1 + 2 M w q2'`, `R2 = F2 + M w^2 q2 - 2 M w q1'`; their
/// time derivatives `(M - lambda) a1' - lambda' a1 = N1`,
/// `M a2' - lambda' g = N2` (`N1 = M w^2 q1' + 2 M w a2`,
/// `N2 = M w^2 q2' - 2 M w a1`) put into `a1 a1' + g a2' = 0` give
/// `lambda' = -(a1 N1 / (M - lambda) + g N2 / M) / (a1^2 / (M - lambda) + g^2 / M)`.
struct HandPlane(TurningPlane);

impl HandPlane {
    /// `(a1, a2, a1', a2', lambda')` at `y`.
    fn solve(&self, y: &[f64]) -> [f64; 5] {
        let TurningPlane {
            mass: m,
            omega: w,
            g,
            force: [f1, f2],
        } = self.0;
        let (q1, q2, v1, v2, l) = (y[0], y[1], y[2], y[3], y[4]);
        let r1 = f1 + m * w * w * q1 + 2.0 * m * w * v2;
        let r2 = f2 + m * w * w * q2 - 2.0 * m * w * v1;
        let a1 = r1 / (m - l);
        let a2 = (r2 + l * g) / m;
        let n1 = m * w * w * v1 + 2.0 * m * w * a2;
        let n2 = m * w * w * v2 - 2.0 * m * w * a1;
        let ld = -(a1 * n1 / (m - l) + g * n2 / m) / (a1 * a1 / (m - l) + g * g / m);
        let j1 = (n1 + ld * a1) / (m - l);
        let j2 = (n2 + ld * g) / m;
        [a1, a2, j1, j2, ld]
    }
}

impl OdeSystem for HandPlane {
    type Error = std::convert::Infallible;
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), Self::Error> {
        let [a1, a2, _, _, ld] = self.solve(y);
        dy.copy_from_slice(&[y[2], y[3], a1, a2, ld]);
        Ok(())
    }
}

fn plane_run(plane: &TurningPlane, lambda: f64, t_end: f64, every: f64) -> Trajectory {
    integrate(plane, &start(lambda), t_end, every, &settings()).unwrap()
}

/// (a) Along the trajectory the constraint `q1'' q1''' + g q2''' = 0`
/// holds with `q'''` from fourth-order central differences of the sampled
/// `q''` (not from the engine's solve), and the engine's own `q'''` agrees
/// with those differences.
#[test]
fn plane_constraint_holds_by_finite_differences() {
    let h = 1e-3;
    let run = plane_run(&PLANE, 0.2, 2.0, h);
    let s = &run.samples;
    assert_eq!(s.len(), 2001);
    let (mut worst_phi, mut worst_qddd) = (0.0f64, 0.0f64);
    for i in 2..s.len() - 2 {
        let fd = |c: usize| {
            (s[i - 2].qdd[c] - 8.0 * s[i - 1].qdd[c] + 8.0 * s[i + 1].qdd[c] - s[i + 2].qdd[c])
                / (12.0 * h)
        };
        let (j1, j2) = (fd(0), fd(1));
        let (t1, t2) = (s[i].qdd[0] * j1, PLANE.g * j2);
        let scale = t1.abs() + t2.abs();
        worst_phi = worst_phi.max((t1 + t2).abs() / scale);
        let scale = s[i].qddd[0].abs().max(s[i].qddd[1].abs());
        worst_qddd = worst_qddd
            .max(rel(s[i].qddd[0], j1, scale))
            .max(rel(s[i].qddd[1], j2, scale));
    }
    println!("constraint by finite differences: {worst_phi:.2e} relative; q''' {worst_qddd:.2e}");
    assert!(worst_phi < 1e-7, "{worst_phi:e}");
    assert!(worst_qddd < 1e-7, "{worst_qddd:e}");
}

/// (b) `I = q1''^2 / 2 + g q2''` (the constraint is `dI/dt`) keeps its
/// initial value, written out by hand from the initial state. Samples
/// every second: the integrator chooses its own steps in between.
#[test]
fn plane_invariant_is_conserved() {
    // By hand at the start: q1'' = -0.01 / 0.8, q2'' = -9.845 + 0.2 g.
    let (a1, a2) = (-0.01 / 0.8, -9.845 + 0.2 * 9.81);
    let i0 = 0.5 * a1 * a1 + 9.81 * a2;
    let run = plane_run(&PLANE, 0.2, 10.0, 1.0);
    let worst = run
        .samples
        .iter()
        .map(|s| rel(0.5 * s.qdd[0] * s.qdd[0] + PLANE.g * s.qdd[1], i0, i0.abs()))
        .fold(0.0, f64::max);
    println!(
        "invariant: {worst:.2e} relative over 10 s ({} steps)",
        run.stats.accepted
    );
    assert!(worst < 1e-9, "{worst:e}");
    // The motion is not trivial: q1'' grows by an order of magnitude.
    let last = run.samples.last().unwrap();
    assert!(last.qdd[0].abs() > 10.0 * a1.abs(), "{:?}", last.qdd);
}

/// (c) Eqs (50) hold at every sample, written out as the paper has them.
#[test]
fn plane_equations_50_hold_at_every_sample() {
    let run = plane_run(&PLANE, 0.2, 5.0, 0.01);
    let TurningPlane {
        mass: m,
        omega: w,
        g,
        force: [f1, f2],
    } = PLANE;
    let mut worst = 0.0f64;
    for s in &run.samples {
        let (q, qd, a, l) = (&s.q, &s.qd, &s.qdd, s.lambda[0]);
        let e1 = m * a[0] - (f1 + m * w * w * q[0] + 2.0 * m * w * qd[1]) - l * a[0];
        let e2 = m * a[1] - (f2 + m * w * w * q[1] - 2.0 * m * w * qd[0]) - l * g;
        let scale = (m * a[1]).abs() + f2.abs() + (l * g).abs();
        worst = worst.max(e1.abs().max(e2.abs()) / scale);
    }
    println!("eqs (50): {worst:.2e} relative");
    assert!(worst < 1e-14, "{worst:e}");
}

/// (d) The ODE derived by hand (above), integrated with zwang-ode on the
/// same sample times, agrees with the engine's, state and derivatives.
#[test]
fn plane_agrees_with_the_hand_derived_ode() {
    for (plane, lambda) in [
        (PLANE, 0.2),
        (PLANE, -0.5),
        (
            TurningPlane {
                force: [0.0, 0.0],
                ..PLANE
            },
            0.2,
        ),
    ] {
        let (t_end, every) = (4.0, 0.05);
        let run = plane_run(&plane, lambda, t_end, every);
        let mut hand = HandPlane(plane);
        let mut ode = Integrator::new(5, settings());
        ode.reset(&mut hand, 0.0, &[1.0, 0.5, 0.2, -0.1, lambda])
            .unwrap();
        let mut worst = 0.0f64;
        for s in &run.samples {
            while ode.t() < s.t {
                ode.step(&mut hand, s.t).unwrap();
            }
            assert_eq!(ode.t(), s.t);
            let y = ode.y();
            let [a1, a2, j1, j2, ld] = hand.solve(y);
            let pairs = [
                (&s.q[..], &y[0..2]),
                (&s.qd[..], &y[2..4]),
                (&s.qdd[..], &[a1, a2][..]),
                (&s.qddd[..], &[j1, j2][..]),
                (&s.lambda[..], &y[4..5]),
                (&s.lambda_dot[..], &[ld][..]),
            ];
            for (engine, by_hand) in pairs {
                let scale = by_hand.iter().fold(1e-3f64, |m, x| m.max(x.abs()));
                for (e, h) in engine.iter().zip(by_hand) {
                    worst = worst.max(rel(*e, *h, scale));
                }
            }
        }
        println!(
            "hand-derived ODE (lambda0 {lambda}, F {:?}): {worst:.2e}",
            plane.force
        );
        assert!(worst < 1e-9, "{worst:e}");
    }
}

/// (e) A plane that does not turn (`omega = 0`) under its weight has a
/// closed form: `(M - lambda) q1'' = 0`, `M q2'' = -M g + lambda g`, so
/// `q1'' = 0`, the constraint gives `g q2''' = 0`, `lambda' = 0`: uniform
/// motion along q1, uniform acceleration `g (lambda / M - 1)` along q2.
#[test]
fn plane_at_rest_in_closed_form() {
    let plane = TurningPlane {
        omega: 0.0,
        mass: 2.0,
        force: [0.0, -2.0 * 9.81],
        ..PLANE
    };
    let lambda = 0.7;
    let run = plane_run(&plane, lambda, 3.0, 0.1);
    let a = 9.81 * (lambda / 2.0 - 1.0);
    let mut worst = 0.0f64;
    for s in &run.samples {
        let t = s.t;
        let want_q = [1.0 + 0.2 * t, 0.5 - 0.1 * t + 0.5 * a * t * t];
        let want_qd = [0.2, -0.1 + a * t];
        for k in 0..2 {
            worst = worst
                .max(rel(s.q[k], want_q[k], want_q[k].abs().max(1.0)))
                .max(rel(s.qd[k], want_qd[k], want_qd[k].abs().max(1.0)));
        }
        worst = worst
            .max(s.qdd[0].abs())
            .max(rel(s.qdd[1], a, a.abs()))
            .max(rel(s.lambda[0], lambda, lambda))
            .max(s.lambda_dot[0].abs())
            .max(s.qddd[0].abs().max(s.qddd[1].abs()));
    }
    println!("closed form, omega = 0: {worst:.2e}");
    assert!(worst < 1e-12, "{worst:e}");
}

/// A double pendulum (angles from the downward vertical) whose tip is held
/// at the height `-h` by the third time derivative of
/// `psi = l1 cos th1 + l2 cos th2 - h = 0`:
///
/// ```text
/// psi''' = sum_i ( -l_i sin th_i th_i''' - 3 l_i cos th_i th_i' th_i'' + l_i sin th_i th_i'^3 )
/// ```
///
/// written out by hand. Its mass matrix depends on the angles and its
/// force on the velocities, so every term of the engine's equations is
/// used. Started with `psi = psi' = 0` and `lambda` the QP multiplier of
/// the acceleration-level row, the third-order motion is the ordinary
/// constrained one.
struct TipOnLine {
    m: [f64; 2],
    l: [f64; 2],
    g: f64,
}

impl ThirdOrderSystem for TipOnLine {
    fn dim(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass<D: Scalar>(&self, _t: D, q: &[D], m: &mut [D]) {
        let ([m1, m2], [l1, l2]) = (self.m, self.l);
        let c = (q[0] - q[1]).cos();
        m[0] = D::from((m1 + m2) * l1 * l1);
        m[1] = c * (m2 * l1 * l2);
        m[2] = m[1];
        m[3] = D::from(m2 * l2 * l2);
    }
    fn force<D: Scalar>(&self, _t: D, q: &[D], qd: &[D], f: &mut [D]) {
        let ([m1, m2], [l1, l2], g) = (self.m, self.l, self.g);
        let s = (q[0] - q[1]).sin();
        f[0] = -(s * qd[1] * qd[1] * (m2 * l1 * l2)) - q[0].sin() * ((m1 + m2) * g * l1);
        f[1] = s * qd[0] * qd[0] * (m2 * l1 * l2) - q[1].sin() * (m2 * g * l2);
    }
    fn constraint<D: Scalar>(
        &self,
        _b: usize,
        _t: D,
        q: &[D],
        qd: &[D],
        qdd: &[D],
        qddd: &[D],
    ) -> D {
        (0..2)
            .map(|i| {
                let l = self.l[i];
                let (s, c) = (q[i].sin(), q[i].cos());
                -(s * qddd[i] * l) - c * qd[i] * qdd[i] * (3.0 * l) + s * qd[i] * qd[i] * qd[i] * l
            })
            .fold(D::from(0.0), |a, b| a + b)
    }
}

impl TipOnLine {
    fn mass_f64(&self, q: &[f64]) -> [f64; 4] {
        let mut m = [0.0; 4];
        self.mass(0.0, q, &mut m);
        m
    }
    fn force_f64(&self, q: &[f64], qd: &[f64]) -> [f64; 2] {
        let mut f = [0.0; 2];
        self.force(0.0, q, qd, &mut f);
        f
    }
    /// The Gauss QP of the acceleration-level row
    /// `-l1 sin th1 a1 - l2 sin th2 a2 = l1 cos th1 th1'^2 + l2 cos th2 th2'^2`.
    fn qp(&self, q: &[f64], qd: &[f64]) -> (Vec<f64>, f64) {
        let m = self.mass_f64(q);
        let mass = matrix_from_triplets(
            "mass",
            (2, 2),
            [(0, 0, m[0]), (0, 1, m[1]), (1, 0, m[2]), (1, 1, m[3])],
        )
        .unwrap();
        let [l1, l2] = self.l;
        let row = matrix_from_triplets(
            "equalities.A",
            (1, 2),
            [(0, 0, -l1 * q[0].sin()), (0, 1, -l2 * q[1].sin())],
        )
        .unwrap();
        let b = l1 * q[0].cos() * qd[0] * qd[0] + l2 * q[1].cos() * qd[1] * qd[1];
        let instant = Instant::builder(mass, self.force_f64(q, qd).to_vec())
            .equalities(row, vec![b])
            .build()
            .unwrap();
        let s = AutoBackend::new().solve(&instant);
        assert!(s.is_solved());
        (s.acceleration, s.multipliers_eq[0])
    }
    /// Kinetic plus potential energy.
    fn energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        let ([m1, m2], [l1, l2], g) = (self.m, self.l, self.g);
        let t = 0.5 * (m1 + m2) * l1 * l1 * qd[0] * qd[0]
            + 0.5 * m2 * l2 * l2 * qd[1] * qd[1]
            + m2 * l1 * l2 * (q[0] - q[1]).cos() * qd[0] * qd[1];
        t - (m1 + m2) * g * l1 * q[0].cos() - m2 * g * l2 * q[1].cos()
    }
    /// The start of the runs, on the line: `th = (0.4, -0.9)`, `th1' = 1`
    /// and `th2'` with `psi' = 0`; the height `h` of the line.
    fn start(&self) -> ([f64; 2], [f64; 2], f64) {
        let [l1, l2] = self.l;
        let q0: [f64; 2] = [0.4, -0.9];
        let w1 = 1.0;
        let qd0 = [w1, -l1 * q0[0].sin() * w1 / (l2 * q0[1].sin())];
        (q0, qd0, l1 * q0[0].cos() + l2 * q0[1].cos())
    }
    /// At a sample of a run from [`TipOnLine::start`]: its largest relative
    /// difference from the QP (accelerations and multiplier), its energy's
    /// from the start's, and `|psi|`, `|psi'|`.
    fn departures(&self, q: &[f64], qd: &[f64], qdd: &[f64], lambda: f64) -> [f64; 3] {
        let (q0, qd0, h) = self.start();
        let e0 = self.energy(&q0, &qd0);
        let [l1, l2] = self.l;
        let (a, multiplier) = self.qp(q, qd);
        let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let qp = (0..2)
            .map(|k| rel(qdd[k], a[k], scale))
            .fold(rel(lambda, multiplier, multiplier.abs()), f64::max);
        let psi = l1 * q[0].cos() + l2 * q[1].cos() - h;
        let psi_d = -l1 * q[0].sin() * qd[0] - l2 * q[1].sin() * qd[1];
        [
            qp,
            rel(self.energy(q, qd), e0, e0.abs()),
            psi.abs().max(psi_d.abs()),
        ]
    }
}

/// (f) The third-order form of an ordinary constraint: the engine, with
/// nothing but `psi'''`, follows the Gauss QP of the acceleration-level row
/// at every sample (accelerations and multiplier), keeps the tip on its
/// line and keeps the energy.
#[test]
fn tip_on_a_line_follows_the_gauss_qp() {
    let pendulum = TipOnLine {
        m: [1.0, 0.5],
        l: [1.0, 0.8],
        g: 9.81,
    };
    let (q0, qd0, _) = pendulum.start();
    let (_, lambda0) = pendulum.qp(&q0, &qd0);
    let start = State {
        t: 0.0,
        q: q0.to_vec(),
        qd: qd0.to_vec(),
        lambda: vec![lambda0],
    };
    let run = integrate(&pendulum, &start, 5.0, 0.05, &settings()).unwrap();
    let (mut qp_diff, mut energy, mut drift) = (0.0f64, 0.0f64, 0.0f64);
    for s in &run.samples {
        let [qp, e, psi] = pendulum.departures(&s.q, &s.qd, &s.qdd, s.lambda[0]);
        qp_diff = qp_diff.max(qp);
        energy = energy.max(e);
        drift = drift.max(psi);
    }
    println!("tip on a line: QP {qp_diff:.2e}, energy {energy:.2e}, psi {drift:.2e}");
    assert!(qp_diff < 1e-9, "{qp_diff:e}");
    assert!(energy < 1e-9, "{energy:e}");
    assert!(drift < 1e-9, "{drift:e}");
    // It moves: the first link swings through more than 0.3 rad.
    let swing = run
        .samples
        .iter()
        .map(|s| s.q[0])
        .fold(f64::NEG_INFINITY, f64::max)
        - run
            .samples
            .iter()
            .map(|s| s.q[0])
            .fold(f64::INFINITY, f64::min);
    assert!(swing > 0.3, "{swing}");
}

/// The instant of a state of the worked case is the one derived by hand
/// in the repository's `tests/data/higher_order/turning_plane.json`: `M`, `Q` with the
/// frame's forces, the row `B = (q1'', g)` of order 3, `b = -phi0 = 0`.
#[test]
fn instant_of_the_worked_case_is_the_stored_file() {
    let s = start(0.2);
    let built = instant(&PLANE, 0.0, &s.q, &s.qd, &s.lambda).unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/higher_order/turning_plane.json"),
    )
    .unwrap();
    let stored = zwang_instant::parse_instant(&text).unwrap().instant;
    assert_eq!(built.equality_orders(), [3]);
    assert_eq!(stored.equality_orders(), [3]);
    let dense = |m: &sprs::CsMat<f64>| m.to_dense().iter().copied().collect::<Vec<f64>>();
    let close = |x: &[f64], y: &[f64]| {
        assert_eq!(x.len(), y.len());
        for (a, b) in x.iter().zip(y) {
            assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{x:?} vs {y:?}");
        }
    };
    close(&dense(built.mass()), &dense(stored.mass()));
    close(built.force(), stored.force());
    close(
        &dense(built.equalities().matrix()),
        &dense(stored.equalities().matrix()),
    );
    close(built.equalities().rhs(), stored.equalities().rhs());
    assert_eq!(
        zwang_coulomb::check(&built).verdict,
        zwang_coulomb::Verdict::StationaryOnly
    );
}

/// A constraint of third order with its `q'''`-free part: `q1''' + q1'' q2
/// = 0` on a free unit mass, with `phi0 = q1'' q2` entering `b`.
struct Shifted;

impl ThirdOrderSystem for Shifted {
    fn dim(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass<D: Scalar>(&self, _t: D, _q: &[D], m: &mut [D]) {
        m[0] = D::from(1.0);
        m[3] = D::from(1.0);
    }
    fn force<D: Scalar>(&self, t: D, _q: &[D], _qd: &[D], f: &mut [D]) {
        f[0] = t.sin();
        f[1] = D::from(-1.0);
    }
    fn constraint<D: Scalar>(&self, _: usize, _: D, q: &[D], _: &[D], qdd: &[D], qddd: &[D]) -> D {
        qddd[0] + qdd[0] * q[1]
    }
}

/// With `B = (1, 0)` constant: `q'' = Q + lambda (1, 0)`, so
/// `q1''' = cos t + lambda'` (the time dependence of `Q` enters through
/// `dQ/dt`), and the constraint asks `q1''' = -q1'' q2`: by hand,
/// `lambda' = -q1'' q2 - cos t`. The instant's row is `(1, 0) q''' = -q1'' q2`.
#[test]
fn time_dependent_force_and_the_free_part_of_phi() {
    let (t, q, qd, lambda) = (0.3, [0.5, 2.0], [0.0, 1.0], [0.25]);
    let d = derivatives(&Shifted, t, &q, &qd, &lambda).unwrap();
    let a1 = t.sin() + 0.25;
    assert!((d.qdd[0] - a1).abs() < 1e-15 && (d.qdd[1] + 1.0).abs() < 1e-15);
    let ld = -a1 * 2.0 - t.cos();
    assert!((d.lambda_dot[0] - ld).abs() < 1e-14, "{d:?}");
    assert!((d.qddd[0] + a1 * 2.0).abs() < 1e-14 && d.qddd[1].abs() < 1e-15);
    let built = instant(&Shifted, t, &q, &qd, &lambda).unwrap();
    assert!((built.equalities().rhs()[0] + a1 * 2.0).abs() < 1e-15);
}

/// A system whose functions are given as closures, for the error tests.
struct Bad {
    mass: f64,
    nonlinear: bool,
}

impl ThirdOrderSystem for Bad {
    fn dim(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass<D: Scalar>(&self, _t: D, _q: &[D], m: &mut [D]) {
        m[0] = D::from(self.mass);
        m[3] = D::from(1.0);
    }
    fn force<D: Scalar>(&self, _t: D, _q: &[D], _qd: &[D], _f: &mut [D]) {}
    fn constraint<D: Scalar>(&self, _: usize, _: D, _: &[D], _: &[D], _: &[D], x: &[D]) -> D {
        if self.nonlinear {
            x[0] * x[0] + x[1]
        } else {
            x[0] + x[1]
        }
    }
}

/// Bad input and states where the motion is not determined are typed
/// errors: wrong lengths, NaN in the state or from the system, a
/// constraint not linear in `q'''`, `lambda = M` (the accelerations are not
/// determined), `B = 0` (nor are `q'''` and `lambda'`), bad settings.
#[test]
fn bad_input_is_a_typed_error() {
    let good = Bad {
        mass: 1.0,
        nonlinear: false,
    };
    let (q, qd) = ([0.0, 0.0], [0.0, 0.0]);
    assert!(derivatives(&good, 0.0, &q, &qd, &[0.5]).is_ok());
    assert!(matches!(
        derivatives(&good, 0.0, &q[..1], &qd, &[0.5]),
        Err(HigherOrderError::Dimension { what: "q", .. })
    ));
    assert!(matches!(
        derivatives(&good, 0.0, &q, &qd, &[]),
        Err(HigherOrderError::Dimension { what: "lambda", .. })
    ));
    let e = derivatives(&good, 0.0, &q, &[0.0, f64::NAN], &[0.5]).unwrap_err();
    assert!(matches!(&e, HigherOrderError::NonFinite { what, index: 1, .. } if what == "qd"));
    let nan_mass = Bad {
        mass: f64::NAN,
        nonlinear: false,
    };
    let e = derivatives(&nan_mass, 0.0, &q, &qd, &[0.5]).unwrap_err();
    assert!(matches!(&e, HigherOrderError::NonFinite { what, .. } if what == "mass"));
    let nonlinear = Bad {
        mass: 1.0,
        nonlinear: true,
    };
    let e = derivatives(&nonlinear, 0.0, &q, &qd, &[0.5]).unwrap_err();
    assert!(
        matches!(e, HigherOrderError::NotLinear { constraint: 0, j: 0, k: 0, curvature } if curvature == 2.0),
        "{e}"
    );
    assert!(e.to_string().contains("not linear in q'''"));
    // The turning plane at lambda = M: (M - lambda) q1'' = R1 has no q1''.
    let e = derivatives(&PLANE, 0.0, &[1.0, 0.5], &[0.2, -0.1], &[1.0]).unwrap_err();
    assert!(
        matches!(e, HigherOrderError::SingularAcceleration { .. }),
        "{e}"
    );
    // A plane with g = 0 and q1'' = 0: B = (q1'', g) = 0.
    let flat = TurningPlane {
        g: 0.0,
        omega: 0.0,
        force: [0.0, -1.0],
        ..PLANE
    };
    let e = derivatives(&flat, 0.0, &[1.0, 0.5], &[0.2, -0.1], &[0.2]).unwrap_err();
    assert!(
        matches!(&e, HigherOrderError::SingularSystem { rows, .. } if rows == &vec![vec![0.0, 0.0]]),
        "{e}"
    );
    // A non-positive-definite mass makes no instant (the state still solves).
    let negative = Bad {
        mass: -2.0,
        nonlinear: false,
    };
    assert!(derivatives(&negative, 0.0, &q, &qd, &[0.5]).is_ok());
    assert!(matches!(
        instant(&negative, 0.0, &q, &qd, &[0.5]),
        Err(HigherOrderError::Instant(_))
    ));
    // Settings and spans.
    let s = start(0.2);
    let bad = Settings {
        rtol: -1.0,
        ..settings()
    };
    for (t_end, every, settings) in [
        (1.0, 0.1, bad),
        (0.0, 0.1, settings()),
        (f64::NAN, 0.1, settings()),
        (1.0, 0.0, settings()),
        (1.0, f64::INFINITY, settings()),
    ] {
        let e = integrate(&PLANE, &s, t_end, every, &settings).unwrap_err();
        assert!(matches!(e, HigherOrderError::Settings(_)), "{e}");
    }
    // A run from a singular state stops with that error.
    let e = integrate(&PLANE, &start(1.0), 1.0, 0.1, &settings()).unwrap_err();
    assert!(matches!(e, HigherOrderError::SingularAcceleration { .. }));
}

/// The samples are at the start, every `every`, and exactly at the end.
#[test]
fn sample_times() {
    let run = plane_run(&PLANE, 0.2, 1.05, 0.25);
    let times: Vec<f64> = run.samples.iter().map(|s: &Sample| s.t).collect();
    assert_eq!(times, [0.0, 0.25, 0.5, 0.75, 1.0, 1.05]);
    assert_eq!(run.samples[0].q, [1.0, 0.5]);
    assert_eq!(run.samples[0].lambda, [0.2]);
    // Dual numbers pass through the user's functions as documented.
    let mut f = [Dual64::from(0.0); 2];
    PLANE.force(
        Dual64::from(0.0),
        &[Dual64::new(1.0, 1.0), Dual64::from(0.5)],
        &[Dual64::from(0.2), Dual64::from(-0.1)],
        &mut f,
    );
    assert!((f[0].eps - 0.01).abs() < 1e-15); // dQ1/dq1 = M omega^2
}

/// `phi = q1''^2 q1''' + q2'''` on a unit mass under a gyroscopic force
/// `Q = (0.5 + 0.2 q2', -1 - 0.2 q1')`: `B = (q1''^2, 1)` is not affine in
/// `q''`, so Newton's method iterates. By hand at rest:
/// `q1'' - lambda q1''^2 = Q1` has the root
/// `q1'' = (1 - sqrt(1 - 4 lambda Q1)) / (2 lambda)` (the one that tends
/// to `Q1` as `lambda -> 0`), `q2'' = Q2 + lambda`; and `phi` is the time
/// derivative of `q1''^3 / 3 + q2''`, which the motion keeps.
struct Cubic;

impl ThirdOrderSystem for Cubic {
    fn dim(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass<D: Scalar>(&self, _t: D, _q: &[D], m: &mut [D]) {
        m[0] = D::from(1.0);
        m[3] = D::from(1.0);
    }
    fn force<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D], f: &mut [D]) {
        f[0] = qd[1] * 0.2 + 0.5;
        f[1] = qd[0] * -0.2 - 1.0;
    }
    fn constraint<D: Scalar>(&self, _: usize, _: D, _: &[D], _: &[D], qdd: &[D], x: &[D]) -> D {
        qdd[0] * qdd[0] * x[0] + x[1]
    }
}

#[test]
fn newton_when_b_depends_nonlinearly_on_the_accelerations() {
    let lambda = 0.3;
    let d = derivatives(&Cubic, 0.0, &[0.0, 0.0], &[0.0, 0.0], &[lambda]).unwrap();
    let root = (1.0 - (1.0 - 4.0 * lambda * 0.5f64).sqrt()) / (2.0 * lambda);
    println!("Newton: q1'' {:.3e} from the root", (d.qdd[0] - root).abs());
    assert!((d.qdd[0] - root).abs() < 1e-14, "{} vs {root}", d.qdd[0]);
    assert!((d.qdd[1] - (-1.0 + lambda)).abs() < 1e-15);
    let invariant = |a: &[f64]| a[0].powi(3) / 3.0 + a[1];
    let start = State {
        t: 0.0,
        q: vec![0.0, 0.0],
        qd: vec![0.0, 0.0],
        lambda: vec![lambda],
    };
    let run = integrate(&Cubic, &start, 2.0, 0.5, &settings()).unwrap();
    let i0 = invariant(&[root, -1.0 + lambda]);
    let worst = run
        .samples
        .iter()
        .map(|s| rel(invariant(&s.qdd), i0, i0.abs()))
        .fold(0.0, f64::max);
    println!("invariant q1''^3 / 3 + q2'': {worst:.2e}");
    assert!(worst < 1e-10, "{worst:e}");
    // The multiplier moves: lambda' is not trivially zero here.
    let last = run.samples.last().unwrap();
    assert!((last.lambda[0] - lambda).abs() > 1e-3, "{:?}", last.lambda);
}

/// The pendulum of [`TipOnLine`] with the tip held by the `m`-th time
/// derivative of `psi` (orders 3 to 5), written by hand:
/// `psi^(m) = Re sum_i l_i A_m(th_i) e^(i th_i)` with `d^m/dt^m e^(i th) =
/// A_m e^(i th)`, `A_(m+1) = A_m' + i th' A_m` (`w_k = th^(k)`):
///
/// ```text
/// A_3 = i w3 - 3 w1 w2 - i w1^3
/// A_4 = i w4 - 4 w1 w3 - 3 w2^2 - 6 i w1^2 w2 + w1^4
/// A_5 = i w5 - 5 w1 w4 - 10 w2 w3 - 15 i w1 w2^2 - 10 i w1^2 w3 + 10 w1^3 w2 + i w1^5
/// ```
///
/// Its row `B = (-l1 sin th1, -l2 sin th2)` depends on `q` only, its mass
/// on `q` and its force on `q'`: every term of the time derivatives of the
/// equations is used.
struct TipOfOrder {
    pendulum: TipOnLine,
    order: usize,
}

impl zwang_higher_order::OrderSystem for TipOfOrder {
    fn order(&self) -> usize {
        self.order
    }
    fn dim(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]) {
        ThirdOrderSystem::mass(&self.pendulum, t, q, m)
    }
    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]) {
        ThirdOrderSystem::force(&self.pendulum, t, q, qd, f)
    }
    fn constraint<D: Scalar>(&self, _b: usize, _t: D, q: &[&[D]]) -> D {
        (0..2)
            .map(|i| {
                let w = |k: usize| q[k][i];
                let (w1, w2, w3) = (w(1), w(2), w(3));
                let (re, im) = match self.order {
                    3 => (w1 * w2 * -3.0, w3 - w1.powi(3)),
                    4 => (
                        w1 * w3 * -4.0 - w2 * w2 * 3.0 + w1.powi(4),
                        w(4) - w1 * w1 * w2 * 6.0,
                    ),
                    _ => (
                        w1 * w(4) * -5.0 - w2 * w3 * 10.0 + w1.powi(3) * w2 * 10.0,
                        w(5) - w1 * w2 * w2 * 15.0 - w1 * w1 * w3 * 10.0 + w1.powi(5),
                    ),
                };
                (re * q[0][i].cos() - im * q[0][i].sin()) * self.pendulum.l[i]
            })
            .fold(D::from(0.0), |a, b| a + b)
    }
}

/// (g) Orders 4 and 5 of an ordinary constraint: started where `psi`,
/// `psi'`, `psi''` (the QP's multiplier), `psi'''` (with `lambda'` of the
/// order-3 solve) and, at order 5, `psi''''` (with `lambda''` of the
/// order-4 solve) vanish, the motion that keeps `psi^(m) = 0` is the
/// ordinary constrained one: it follows the Gauss QP of the
/// acceleration-level row at every sample, keeps the tip on its line and
/// keeps the energy; `psi^(m)` of the solve is zero to round-off.
#[test]
fn tip_on_a_line_at_orders_4_and_5_follows_the_gauss_qp() {
    use zwang_higher_order::{any_order, OrderSystem};
    let pendulum = TipOnLine {
        m: [1.0, 0.5],
        l: [1.0, 0.8],
        g: 9.81,
    };
    let [l1, l2] = pendulum.l;
    let (q0, qd0, _) = pendulum.start();
    let (_, lambda0) = pendulum.qp(&q0, &qd0);
    let mut lambda = vec![vec![lambda0]];
    let mut system = TipOfOrder { pendulum, order: 3 };
    for order in [4, 5] {
        // lambda^(order - 3) from the solve one order below.
        let below = any_order::State {
            t: 0.0,
            q: q0.to_vec(),
            qd: qd0.to_vec(),
            lambda: lambda.clone(),
        };
        let d = any_order::derivatives(&system, &below).unwrap();
        lambda.push(d.lambda[order - 3].clone());
        system.order = order;
        let start = any_order::State {
            lambda: lambda.clone(),
            ..below
        };
        let run = any_order::integrate(&system, &start, 3.0, 0.05, &settings()).unwrap();
        let (mut qp_diff, mut energy, mut drift, mut phi) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for s in &run.samples {
            let d = system
                .pendulum
                .departures(&s.q[0], &s.q[1], &s.q[2], s.lambda[0][0]);
            qp_diff = qp_diff.max(d[0]);
            energy = energy.max(d[1]);
            drift = drift.max(d[2]);
            // psi^(m) of the solve, against the size of its top terms.
            let levels: Vec<&[f64]> = s.q.iter().map(Vec::as_slice).collect();
            let top = (l1 * s.q[order][0]).abs() + (l2 * s.q[order][1]).abs();
            phi = phi.max(system.constraint(0, s.t, &levels).abs() / top.max(1.0));
        }
        println!(
            "tip on a line, order {order}: QP {qp_diff:.2e}, energy {energy:.2e}, psi {drift:.2e}, \
             psi^({order}) {phi:.1e}"
        );
        assert!(qp_diff < 1e-8, "{qp_diff:e}");
        assert!(energy < 1e-8, "{energy:e}");
        assert!(drift < 1e-8, "{drift:e}");
        assert!(phi < 1e-12, "{phi:e}");
    }
}
