//! Constraints of order 4 and 5 (`zwang_higher_order::any_order`) against
//! references that do not use the engine: Zhang et al.'s turning plane
//! (arbitrary-order Gauss principle of relative motion dynamics, section
//! 5) with its constraint raised to `q1'' q1^(m) + g q2^(m) = 0`, reduced
//! by hand to an ODE without multipliers and integrated by a test-local
//! RK4; the constraint along the run; and the typed errors.

use zwang_higher_order::any_order::{
    derivatives, instant, integrate, OrderSystem, Sample, State, Trajectory,
};
use zwang_higher_order::{HigherOrderError, Scalar, TurningPlane, TurningPlaneOfOrder};
use zwang_ode::Settings;

use crate::{tolerances, Q0, QD0};

fn settings() -> Settings {
    tolerances(1e-13)
}

/// The turning plane of the third-order tests, pushed along `q1` so that
/// `q1''` stays away from zero (where the elimination of `lambda` below
/// is singular; the engine is not).
const PLANE: TurningPlane = TurningPlane {
    mass: 1.0,
    omega: 0.1,
    g: 9.81,
    force: [5.0, -9.81],
};

/// The multipliers' derivatives at the start: `lambda, lambda', lambda''`.
const LAMBDA0: [f64; 3] = [0.2, 0.5, -0.02];

fn start(order: usize) -> State {
    State {
        t: 0.0,
        q: Q0.to_vec(),
        qd: QD0.to_vec(),
        lambda: LAMBDA0[..order - 2].iter().map(|&l| vec![l]).collect(),
    }
}

/// The plane's motion with `lambda` eliminated, by hand. Eqs (50) give
/// `lambda = M - R1 / a` (`a = q1''`, `R1 = F1 + M w^2 q1 + 2 M w q2'`,
/// `R2 = F2 + M w^2 q2 - 2 M w q1'`), so `q2'' = R2 / M + g - (g / M) R1 u`
/// with `u = 1 / a`: the state `z = (q1, q2, q1', q2', a, a', [a''])` and
/// `q2'`s derivatives by Leibniz's rule, `R1' = M w^2 q1' + 2 M w q2''`,
/// `R2' = M w^2 q2' - 2 M w a` and so on; `u' = -a'/a^2`,
/// `u'' = -a''/a^2 + 2 a'^2/a^3`, `u''' = -a'''/a^2 + 6 a' a''/a^3 - 6 a'^3/a^4`.
/// The top `a^(m-2)` enters `q2^(m)` as `c a^(m-2)`, `c = g R1 / (M a^2)`,
/// and the constraint `a a^(m-2) + g q2^(m) = 0` gives it.
struct Eliminated {
    plane: TurningPlane,
    order: usize,
}

/// Everything the reduction gives at `z`: `q1^(k)` and `q2^(k)` for
/// `k = 0..=m`, and `lambda, lambda', lambda''`.
struct Reduced {
    q1: Vec<f64>,
    q2: Vec<f64>,
    lambda: [f64; 3],
}

impl Eliminated {
    /// `M`, `M w^2`, `2 M w`, `g` and `F`.
    fn constants(&self) -> (f64, f64, f64, f64, [f64; 2]) {
        let TurningPlane {
            mass: m,
            omega: w,
            g,
            force,
        } = self.plane;
        (m, m * w * w, 2.0 * m * w, g, force)
    }

    fn solve(&self, z: &[f64]) -> Reduced {
        let (m, mw2, mw, g, [f1, f2]) = self.constants();
        let (q1, q2, v1, v2, a, a1) = (z[0], z[1], z[2], z[3], z[4], z[5]);
        let r1 = f1 + mw2 * q1 + mw * v2;
        let r2 = f2 + mw2 * q2 - mw * v1;
        let u = 1.0 / a;
        let c = g * r1 / (m * a * a);
        let b2 = r2 / m + g - g / m * r1 * u;
        let r1d = mw2 * v1 + mw * b2;
        let r2d = mw2 * v2 - mw * a;
        let u1 = -a1 / (a * a);
        let b3 = r2d / m - g / m * (r1d * u + r1 * u1);
        let r1dd = mw2 * a + mw * b3;
        let r2dd = mw2 * b2 - mw * a1;
        // q2'''' without the a'' term (in u''), then a'' (the top at m = 4).
        let known2 =
            r2dd / m - g / m * (r1dd * u + 2.0 * r1d * u1 + r1 * 2.0 * a1 * a1 / a.powi(3));
        let a2 = if self.order == 4 {
            -g * known2 / (a + g * c)
        } else {
            z[6]
        };
        let b4 = known2 + c * a2;
        let mut q1d = vec![q1, v1, a, a1, a2];
        let mut q2d = vec![q2, v2, b2, b3, b4];
        if self.order == 5 {
            let u2 = -a2 / (a * a) + 2.0 * a1 * a1 / a.powi(3);
            let r1ddd = mw2 * a1 + mw * b4;
            let r2ddd = mw2 * b3 - mw * a2;
            let u3_known = 6.0 * a1 * a2 / a.powi(3) - 6.0 * a1.powi(3) / a.powi(4);
            let known3 =
                r2ddd / m - g / m * (r1ddd * u + 3.0 * r1dd * u1 + 3.0 * r1d * u2 + r1 * u3_known);
            let a3 = -g * known3 / (a + g * c);
            q1d.push(a3);
            q2d.push(known3 + c * a3);
        }
        // The multipliers from eqs (50) and their derivatives:
        // (M - lambda) a = R1, so lambda' a = (M - lambda) a' - R1' and
        // lambda'' a = (M - lambda) a'' - 2 lambda' a' - R1''.
        let l0 = m - r1 * u;
        let l1 = ((m - l0) * a1 - r1d) * u;
        let l2 = ((m - l0) * a2 - 2.0 * l1 * a1 - r1dd) * u;
        Reduced {
            q1: q1d,
            q2: q2d,
            lambda: [l0, l1, l2],
        }
    }

    /// The start `z` from the engine's start, by hand: `a = R1 / (M - lambda)`,
    /// `q2'' = (R2 + lambda g) / M`, and the time derivatives of eqs (50),
    /// `(M - lambda) a' = R1' + lambda' a`, `M q2''' = R2' + lambda' g`,
    /// `(M - lambda) a'' = R1'' + 2 lambda' a' + lambda'' a`.
    fn start(&self) -> Vec<f64> {
        let (m, mw2, mw, g, [f1, f2]) = self.constants();
        let ([q1, q2], [v1, v2], [l0, l1, l2]) = (Q0, QD0, LAMBDA0);
        let a = (f1 + mw2 * q1 + mw * v2) / (m - l0);
        let b2 = (f2 + mw2 * q2 - mw * v1 + l0 * g) / m;
        let a1 = (mw2 * v1 + mw * b2 + l1 * a) / (m - l0);
        let b3 = (mw2 * v2 - mw * a + l1 * g) / m;
        let a2 = (mw2 * a + mw * b3 + 2.0 * l1 * a1 + l2 * a) / (m - l0);
        let mut z = vec![q1, q2, v1, v2, a, a1];
        if self.order == 5 {
            z.push(a2);
        }
        z
    }

    fn rhs(&self, z: &[f64]) -> Vec<f64> {
        let r = self.solve(z);
        let mut dz = vec![r.q1[1], r.q2[1], r.q1[2], r.q2[2], r.q1[3], r.q1[4]];
        if self.order == 5 {
            dz.push(r.q1[5]);
        }
        dz
    }

    /// Classical RK4 with step `h`, the state at every `every` steps.
    fn rk4(&self, h: f64, steps: usize, every: usize) -> Vec<Vec<f64>> {
        let mut z = self.start();
        let mut out = vec![z.clone()];
        let add = |z: &[f64], k: &[f64], s: f64| -> Vec<f64> {
            z.iter().zip(k).map(|(x, d)| x + s * d).collect()
        };
        for step in 1..=steps {
            let k1 = self.rhs(&z);
            let k2 = self.rhs(&add(&z, &k1, h / 2.0));
            let k3 = self.rhs(&add(&z, &k2, h / 2.0));
            let k4 = self.rhs(&add(&z, &k3, h));
            for i in 0..z.len() {
                z[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            if step % every == 0 {
                out.push(z.clone());
            }
        }
        out
    }
}

/// The constraint `q1'' q1^(m) + g q2^(m)` at a sample, relative to the
/// size of its terms.
fn phi(s: &Sample, order: usize) -> f64 {
    let (t1, t2) = (s.q[2][0] * s.q[order][0], PLANE.g * s.q[order][1]);
    (t1 + t2).abs() / (t1.abs() + t2.abs())
}

fn run(order: usize, t_end: f64, every: f64) -> Trajectory {
    let system = TurningPlaneOfOrder {
        plane: PLANE,
        order,
    };
    integrate(&system, &start(order), t_end, every, &settings()).unwrap()
}

/// The engine (DOP853 on the state with `lambda, ..., lambda^(m-3)`, the
/// derivatives by nested duals) against the hand reduction without
/// multipliers (RK4, `h = 1e-3`) at orders 4 and 5: every derivative of
/// `q` up to `q^(m)` and `lambda, lambda', lambda''` agree to 1e-8 of their
/// size, and the constraint holds to round-off at every sample.
#[test]
fn orders_4_and_5_against_the_reduction_by_hand() {
    let (h, steps, every) = (1e-3, 3000, 100);
    for order in [4, 5] {
        let engine = run(order, 3.0, 0.1);
        let reference = Eliminated {
            plane: PLANE,
            order,
        };
        let states = reference.rk4(h, steps, every);
        assert_eq!(engine.samples.len(), states.len());
        let reduced: Vec<Reduced> = states.iter().map(|z| reference.solve(z)).collect();
        // Each derivative against its size over the run.
        let size =
            |f: &dyn Fn(&Reduced) -> f64| reduced.iter().map(|r| f(r).abs()).fold(0.0, f64::max);
        let (mut worst, mut worst_phi) = (0.0f64, 0.0f64);
        for (s, r) in engine.samples.iter().zip(&reduced) {
            for k in 0..=order {
                let scale = size(&|r| r.q1[k]).max(size(&|r| r.q2[k]));
                worst = worst
                    .max((s.q[k][0] - r.q1[k]).abs() / scale)
                    .max((s.q[k][1] - r.q2[k]).abs() / scale);
            }
            for j in 0..3 {
                let scale = size(&|r| r.lambda[j]);
                worst = worst.max((s.lambda[j][0] - r.lambda[j]).abs() / scale);
            }
            worst_phi = worst_phi.max(phi(s, order));
        }
        let last = engine.samples.last().unwrap();
        println!(
            "order {order}: {worst:.2e} against the reduction, constraint {worst_phi:.1e}, \
             {} steps; at t = 3: q1'' {:.4}, lambda {:.4}",
            engine.stats.accepted, last.q[2][0], last.lambda[0][0]
        );
        assert!(worst < 1e-8, "order {order}: {worst:e}");
        assert!(worst_phi < 1e-12, "order {order}: {worst_phi:e}");
        // The motion is not trivial: the multiplier and q1'' move.
        assert!(
            (last.lambda[0][0] - LAMBDA0[0]).abs() > 1e-2,
            "{:?}",
            last.lambda
        );
    }
}

/// Order 3 through `any_order` is the crate's root: the same samples, to
/// the bit, as the third-order API on [`TurningPlane`].
#[test]
fn order_3_is_the_third_order_api() {
    let engine = run(3, 1.0, 0.25);
    let root_start = zwang_higher_order::State {
        t: 0.0,
        q: Q0.to_vec(),
        qd: QD0.to_vec(),
        lambda: vec![LAMBDA0[0]],
    };
    let root = zwang_higher_order::integrate(&PLANE, &root_start, 1.0, 0.25, &settings()).unwrap();
    assert_eq!(engine.samples.len(), root.samples.len());
    for (s, r) in engine.samples.iter().zip(&root.samples) {
        assert_eq!(
            s.q,
            [r.q.clone(), r.qd.clone(), r.qdd.clone(), r.qddd.clone()]
        );
        assert_eq!(s.lambda, [r.lambda.clone(), r.lambda_dot.clone()]);
    }
}

/// One state of order 4 by hand (`omega = 0`: no frame forces): eqs (50)
/// give `q1'' = F1 / (M - lambda)`, `q2'' = (F2 + lambda g) / M`; their
/// derivatives `(M - lambda) q1''' = lambda' q1''`, `M q2''' = lambda' g`;
/// the second derivatives `(M - lambda) q1'''' = 2 lambda' q1''' + lambda'' q1''`,
/// `M q2'''' = lambda'' g`, and `q1'' q1'''' + g q2'''' = 0` give
/// `lambda'' = -2 lambda' q1'' q1''' / (M - lambda) / (q1''^2 / (M - lambda) + g^2 / M)`.
/// The instant has the row `(q1'', g)` of order 4 and `b = 0`.
#[test]
fn one_state_of_order_4_by_hand() {
    let plane = TurningPlane {
        omega: 0.0,
        mass: 2.0,
        ..PLANE
    };
    let (m, g, [f1, f2]) = (plane.mass, plane.g, plane.force);
    let system = TurningPlaneOfOrder { plane, order: 4 };
    let (l0, l1) = (0.3, 0.7);
    let state = State {
        t: 0.0,
        q: Q0.to_vec(),
        qd: QD0.to_vec(),
        lambda: vec![vec![l0], vec![l1]],
    };
    let d = derivatives(&system, &state).unwrap();
    let a = [f1 / (m - l0), (f2 + l0 * g) / m];
    let j = [l1 * a[0] / (m - l0), l1 * g / m];
    let l2 = -2.0 * l1 * a[0] * j[0] / (m - l0) / (a[0] * a[0] / (m - l0) + g * g / m);
    let s = [(2.0 * l1 * j[0] + l2 * a[0]) / (m - l0), l2 * g / m];
    let close = |x: f64, y: f64| assert!((x - y).abs() <= 1e-14 * y.abs().max(1.0), "{x} vs {y}");
    for k in 0..2 {
        close(d.q[2][k], a[k]);
        close(d.q[3][k], j[k]);
        close(d.q[4][k], s[k]);
    }
    close(d.lambda[2][0], l2);
    assert_eq!(d.lambda[..2], [vec![l0], vec![l1]]);
    let built = instant(&system, &state).unwrap();
    assert_eq!(built.equality_orders(), [4]);
    assert_eq!(built.equalities().rhs(), [0.0]);
    let row = built.equalities().matrix().to_dense();
    close(row[[0, 0]], a[0]);
    close(row[[0, 1]], g);
    assert_eq!(
        zwang_coulomb::check(&built).verdict,
        zwang_coulomb::Verdict::StationaryOnly
    );
}

/// Bad input and states where the motion is not determined are typed
/// errors, never a panic.
#[test]
fn bad_input_is_a_typed_error() {
    let state = |lambda: Vec<Vec<f64>>| State {
        t: 0.0,
        q: Q0.to_vec(),
        qd: QD0.to_vec(),
        lambda,
    };
    // Orders the engine does not integrate.
    for order in [0, 2, zwang_higher_order::MAX_ORDER + 1] {
        let system = TurningPlaneOfOrder {
            plane: PLANE,
            order,
        };
        let e = derivatives(&system, &state(vec![vec![0.2]; order.max(3) - 2])).unwrap_err();
        assert_eq!(e, HigherOrderError::Order { order });
        assert!(e.to_string().contains("order 3 to 8"), "{e}");
    }
    // The multipliers' derivatives: their count, their lengths, NaN.
    let four = TurningPlaneOfOrder {
        plane: PLANE,
        order: 4,
    };
    let e = derivatives(&four, &state(vec![vec![0.2]])).unwrap_err();
    assert_eq!(
        e,
        HigherOrderError::Dimension {
            what: "lambda derivatives",
            expected: 2,
            found: 1
        }
    );
    let e = derivatives(&four, &state(vec![vec![0.2], vec![]])).unwrap_err();
    assert!(
        matches!(
            e,
            HigherOrderError::Dimension {
                what: "lambda'",
                expected: 1,
                found: 0
            }
        ),
        "{e}"
    );
    let five = TurningPlaneOfOrder {
        plane: PLANE,
        order: 5,
    };
    let e = derivatives(&five, &state(vec![vec![0.2], vec![0.1], vec![f64::NAN]])).unwrap_err();
    assert!(
        matches!(&e, HigherOrderError::NonFinite { what, index: 0, .. } if what == "lambda''"),
        "{e}"
    );
    // A row that depends on q''', a constraint not linear in q''''.
    let lambda = vec![vec![0.2], vec![0.1]];
    let e = derivatives(
        &FreeMass {
            order: 4,
            phi: Phi::RowOnThird,
        },
        &state(lambda.clone()),
    )
    .unwrap_err();
    assert_eq!(
        e,
        HigherOrderError::RowDependsOnHigher {
            constraint: 0,
            order: 4,
            derivative: 3,
            j: 0,
            k: 0,
            value: 1.0
        }
    );
    let e = derivatives(
        &FreeMass {
            order: 4,
            phi: Phi::NotLinear,
        },
        &state(lambda.clone()),
    )
    .unwrap_err();
    assert_eq!(
        e,
        HigherOrderError::NotLinearOfOrder {
            constraint: 0,
            order: 4,
            j: 0,
            k: 0,
            curvature: 2.0
        }
    );
    assert!(e.to_string().contains("not linear in q^(4)"), "{e}");
    // B = (q1'', g) = 0: no push along q1, g = 0.
    let flat = TurningPlaneOfOrder {
        plane: TurningPlane {
            g: 0.0,
            omega: 0.0,
            force: [0.0, -1.0],
            ..PLANE
        },
        order: 4,
    };
    let e = derivatives(&flat, &state(lambda.clone())).unwrap_err();
    assert!(
        matches!(e, HigherOrderError::SingularSystem { order: 4, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("q^(4) and lambda^(2)"), "{e}");
    // lambda = M: the accelerations are not determined, at the start of a run.
    let e = integrate(
        &four,
        &state(vec![vec![1.0], vec![0.0]]),
        1.0,
        0.1,
        &settings(),
    )
    .unwrap_err();
    assert!(
        matches!(e, HigherOrderError::SingularAcceleration { .. }),
        "{e}"
    );
    let e = integrate(&four, &state(lambda), 0.0, 0.1, &settings()).unwrap_err();
    assert!(matches!(e, HigherOrderError::Settings(_)), "{e}");
}

/// A free unit mass pushed by `Q = (sin t, -1)` under a constraint of
/// order `m`: `q1^(m) + q1'' q2 = 0` (`B = (1, 0)`, a free part with `q''`
/// and `q`), or, for the errors, `q1''' q1'''' + q2''''` (a row that
/// depends on `q'''`) or `q1''''^2 + q2''''` (not linear).
struct FreeMass {
    order: usize,
    phi: Phi,
}

enum Phi {
    Shifted,
    RowOnThird,
    NotLinear,
}

impl OrderSystem for FreeMass {
    fn order(&self) -> usize {
        self.order
    }
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
    fn constraint<D: Scalar>(&self, _b: usize, _t: D, q: &[&[D]]) -> D {
        let top = q[self.order];
        match self.phi {
            Phi::Shifted => top[0] + q[2][0] * q[0][1],
            Phi::RowOnThird => q[3][0] * top[0] + top[1],
            Phi::NotLinear => top[0] * top[0] + top[1],
        }
    }
}

/// The time derivatives of `Q(t)` by hand: `q1'' = sin t + lambda`,
/// `q1''' = cos t + lambda'`, `q1'''' = -sin t + lambda''`,
/// `q1^(5) = -cos t + lambda'''`, `q2'' = -1` and `q2''' = q2'''' = 0`;
/// the constraint gives the top multiplier, `lambda'' = sin t - q1'' q2` at
/// order 4 and `lambda''' = cos t - q1'' q2` at order 5.
#[test]
fn time_dependent_force_at_orders_4_and_5() {
    let (t, q2, l) = (0.3f64, 2.0, [0.25, -0.5, 0.75]);
    let (s, c) = t.sin_cos();
    let a1 = s + l[0];
    let close = |x: f64, y: f64| assert!((x - y).abs() <= 1e-14 * y.abs().max(1.0), "{x} vs {y}");
    for order in [4, 5] {
        let state = State {
            t,
            q: vec![0.5, q2],
            qd: vec![0.0, 1.0],
            lambda: l[..order - 2].iter().map(|&x| vec![x]).collect(),
        };
        let system = FreeMass {
            order,
            phi: Phi::Shifted,
        };
        let d = derivatives(&system, &state).unwrap();
        close(d.q[2][0], a1);
        close(d.q[3][0], c + l[1]);
        close(d.q[2][1], -1.0);
        for k in 3..=order {
            assert_eq!(d.q[k][1], 0.0, "q2^({k})");
        }
        close(d.q[order][0], -a1 * q2);
        let top = if order == 4 { s - a1 * q2 } else { c - a1 * q2 };
        close(d.lambda[order - 2][0], top);
        if order == 5 {
            close(d.q[4][0], -s + l[2]);
        }
    }
}
