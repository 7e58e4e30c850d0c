//! One state `(t, q, q', lambda)`: `q''` from the equations of motion,
//! `(q''', lambda')` from their time derivative and the constraints, and
//! the instant of higher order.

use crate::error::HigherOrderError;
use crate::linalg;
use crate::system::ThirdOrderSystem;
use num_dual::{Dual64, HyperDual64};
use zwang_instant::{matrix_from_triplets, Instant};

/// A second derivative of a constraint in `q'''` above
/// `LINEAR_TOL (1 + |B_b|)` is refused: automatic differentiation gives
/// exact zeros for an expression linear in `q'''`, so only round-off in
/// unusual spellings (`(x + 1)^2 - x^2`) may stay.
const LINEAR_TOL: f64 = 1e-12;

/// Newton's method for `q''` stops when the residual of
/// `M q'' - Q - sum lambda_b B_b` is below this fraction of the size of
/// its terms.
const NEWTON_TOL: f64 = 1e-12;

/// Newton iterations allowed (one suffices when `B` does not depend on
/// `q''`, and with `B` affine in `q''`: the equations are then linear).
const NEWTON_ITERATIONS: usize = 50;

/// What the motion does at one state.
#[derive(Debug, Clone, PartialEq)]
pub struct Derivatives {
    /// `q''`, from `M q'' - Q - sum_b lambda_b B_b = 0`.
    pub qdd: Vec<f64>,
    /// `q'''`, from the time derivative of those equations and the
    /// constraints.
    pub qddd: Vec<f64>,
    /// `lambda'`, with `q'''`.
    pub lambda_dot: Vec<f64>,
}

/// Everything computed at one state: the derivatives, and the parts of the
/// equations (for the instant).
pub(crate) struct Evaluation {
    pub(crate) derivatives: Derivatives,
    /// `M(t, q)`, row by row.
    pub(crate) mass: Vec<f64>,
    /// `Q(t, q, q')`.
    pub(crate) force: Vec<f64>,
    /// `B_b = dphi_b/dq'''`, one row per constraint.
    pub(crate) rows: Vec<Vec<f64>>,
    /// `phi0_b`: the constraint with `q''' = 0`.
    pub(crate) phi0: Vec<f64>,
}

/// `q''`, `q'''` and `lambda'` at the state `(t, q, q', lambda)`.
///
/// `q''` solves `M q'' - Q - sum_b lambda_b B_b(q'') = 0` by Newton's method
/// (exact in one step when `B` does not depend on `q''`, or depends on it
/// affinely, as in the worked case of Zhang et al. where `B = (q1'', g)`).
/// Then, with `K = M - sum_b lambda_b dB_b/dq''`,
///
/// ```text
/// K q''' - sum_b B_b lambda'_b = dQ/dt - (dM/dt) q'' + sum_b lambda_b (dB_b/dt)|_{q'' fixed}
///                      B_b . q''' = -phi0_b
/// ```
///
/// (the time derivative of the equations of motion along the motion, and
/// the constraints), where `dQ/dt = Q_t + Q_q q' + Q_q' q''`,
/// `dM/dt = M_t + M_q q'` and `(dB_b/dt)|_{q''} = B_t + B_q q' + B_q' q''`;
/// every derivative is exact, by dual numbers. Errors: wrong lengths,
/// non-finite input or output of the system, a constraint not linear in
/// `q'''`, a singular `K` (the accelerations are not determined) or a
/// singular system for `(q''', lambda')`.
pub fn derivatives<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[f64],
) -> Result<Derivatives, HigherOrderError> {
    evaluate(system, t, q, qd, lambda, None).map(|e| e.derivatives)
}

/// The instant of higher order at the state `(t, q, q', lambda)`: `M`, `Q`
/// and one equality row of order 3 per constraint, `B_b . q''' = -phi0_b`
/// (`A = B`, `b = -phi0`, `equalities.order = 3`), with `B` and `phi0` at
/// the `q''` the equations give. `zwang check` says `stationary_only` on it:
/// there is no minimum over `q'''` to solve for. Errors as [`derivatives`],
/// and [`HigherOrderError::Instant`] for a mass that is not symmetric
/// positive definite.
pub fn instant<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[f64],
) -> Result<Instant, HigherOrderError> {
    let e = evaluate(system, t, q, qd, lambda, None)?;
    let (n, g) = (q.len(), lambda.len());
    let mass = matrix_from_triplets(
        "mass",
        (n, n),
        (0..n * n)
            .filter(|&k| e.mass[k] != 0.0)
            .map(|k| (k / n, k % n, e.mass[k])),
    )?;
    let rows = matrix_from_triplets(
        "equalities.A",
        (g, n),
        e.rows
            .iter()
            .enumerate()
            .flat_map(|(b, row)| row.iter().enumerate().map(move |(j, &v)| (b, j, v)))
            .filter(|&(_, _, v)| v != 0.0),
    )?;
    // `0.0 - p`, not `-p`: no negative zero in the file.
    let rhs: Vec<f64> = e.phi0.iter().map(|p| 0.0 - p).collect();
    Ok(Instant::builder(mass, e.force)
        .name(format!("constraints of third order at t = {t}"))
        .equalities(rows, rhs)
        .equality_orders(vec![3; g])
        .build()?)
}

/// Refuses wrong lengths and non-finite entries.
pub(crate) fn check_state<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[f64],
) -> Result<(), HigherOrderError> {
    let (n, g) = (system.dim(), system.constraint_count());
    if n == 0 {
        return Err(HigherOrderError::Dimension {
            what: "q",
            expected: 1,
            found: 0,
        });
    }
    for (what, v, expected) in [("q", q, n), ("qd", qd, n), ("lambda", lambda, g)] {
        if v.len() != expected {
            return Err(HigherOrderError::Dimension {
                what,
                expected,
                found: v.len(),
            });
        }
    }
    finite("t", &[t])?;
    finite("q", q)?;
    finite("qd", qd)?;
    finite("lambda", lambda)
}

fn finite(what: &str, v: &[f64]) -> Result<(), HigherOrderError> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(HigherOrderError::NonFinite {
            what: what.into(),
            index,
            value: v[index],
        }),
    }
}

fn duals(re: &[f64], eps: &[f64]) -> Vec<Dual64> {
    re.iter()
        .zip(eps)
        .map(|(&r, &e)| Dual64::new(r, e))
        .collect()
}

fn hyper(re: &[f64], eps1: &[f64], eps2: &[f64]) -> Vec<HyperDual64> {
    re.iter()
        .zip(eps1)
        .zip(eps2)
        .map(|((&r, &a), &b)| HyperDual64::new(r, a, b, 0.0))
        .collect()
}

fn unit(n: usize, j: usize) -> Vec<f64> {
    let mut e = vec![0.0; n];
    e[j] = 1.0;
    e
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// The constraints' parts at `(t, q, q', q'')`, all by dual numbers.
struct Rows {
    /// `B_b`, `g x n`.
    b: Vec<Vec<f64>>,
    /// `dB_b/dq''`: `[b][j * n + k] = dB_bj / dq''_k`.
    b_qdd: Vec<Vec<f64>>,
    /// `(dB_b/dt)|_{q''}` along `(1, q', q'')`.
    b_dot: Vec<Vec<f64>>,
    /// `phi0_b`.
    phi0: Vec<f64>,
}

fn constraint_rows<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
) -> Result<Rows, HigherOrderError> {
    let (n, g) = (q.len(), system.constraint_count());
    let zero = vec![0.0; n];
    let mut rows = Rows {
        b: vec![vec![0.0; n]; g],
        b_qdd: vec![vec![0.0; n * n]; g],
        b_dot: vec![vec![0.0; n]; g],
        phi0: vec![0.0; g],
    };
    // Constant arguments, and arguments moving along (1, q', q'') in eps2.
    let (tc, qc, qdc, qddc) = (
        HyperDual64::from_re(t),
        hyper(q, &zero, &zero),
        hyper(qd, &zero, &zero),
        hyper(qdd, &zero, &zero),
    );
    let (tm, qm, qdm) = (
        HyperDual64::new(t, 0.0, 1.0, 0.0),
        hyper(q, &zero, qd),
        hyper(qd, &zero, qdd),
    );
    for b in 0..g {
        let key = || format!("constraint[{b}]");
        let phi0 = system.constraint(b, t, q, qd, qdd, &zero);
        finite(&key(), &[phi0])?;
        rows.phi0[b] = phi0;
        for j in 0..n {
            // eps1 on q'''_j, eps2 along the motion: B_bj and its rate.
            let x = hyper(&zero, &unit(n, j), &zero);
            let v = system.constraint(b, tm, &qm, &qdm, &qddc, &x);
            finite(&format!("{}: dphi/dq'''", key()), &[v.eps1, v.eps1eps2])?;
            rows.b[b][j] = v.eps1;
            rows.b_dot[b][j] = v.eps1eps2;
            for k in 0..n {
                // eps1 on q'''_j, eps2 on q''_k: dB_bj / dq''_k.
                let y = hyper(qdd, &zero, &unit(n, k));
                let v = system.constraint(b, tc, &qc, &qdc, &y, &x);
                finite(&format!("{}: d2phi/dq'''dq''", key()), &[v.eps1eps2])?;
                rows.b_qdd[b][j * n + k] = v.eps1eps2;
            }
        }
        // Linear in q''': every second derivative in q''' vanishes.
        let size = 1.0 + inf_norm(&rows.b[b]);
        for j in 0..n {
            for k in j..n {
                let x = hyper(&zero, &unit(n, j), &unit(n, k));
                let v = system.constraint(b, tc, &qc, &qdc, &qddc, &x);
                finite(&format!("{}: d2phi/dq'''2", key()), &[v.eps1eps2])?;
                if v.eps1eps2.abs() > LINEAR_TOL * size {
                    return Err(HigherOrderError::NotLinear {
                        constraint: b,
                        j,
                        k,
                        curvature: v.eps1eps2,
                    });
                }
            }
        }
    }
    Ok(rows)
}

/// The evaluation at one state; `guess` is Newton's starting `q''` (zero
/// without one).
pub(crate) fn evaluate<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[f64],
    guess: Option<&[f64]>,
) -> Result<Evaluation, HigherOrderError> {
    check_state(system, t, q, qd, lambda)?;
    let (n, g) = (q.len(), lambda.len());
    let mut mass = vec![0.0; n * n];
    system.mass(t, q, &mut mass);
    finite("mass", &mass)?;
    let mut force = vec![0.0; n];
    system.force(t, q, qd, &mut force);
    finite("force", &force)?;

    // q'' by Newton's method on M q'' - Q - sum_b lambda_b B_b(q'') = 0.
    let mut qdd = match guess {
        Some(x) if x.len() == n && x.iter().all(|v| v.is_finite()) => x.to_vec(),
        _ => vec![0.0; n],
    };
    let mut iterations = 0;
    let rows = loop {
        let rows = constraint_rows(system, t, q, qd, &qdd)?;
        let mut residual = vec![0.0; n];
        let mut size = inf_norm(&force);
        for j in 0..n {
            let m_qdd: f64 = (0..n).map(|k| mass[j * n + k] * qdd[k]).sum();
            let c: f64 = (0..g).map(|b| lambda[b] * rows.b[b][j]).sum();
            residual[j] = m_qdd - force[j] - c;
            size = size.max(m_qdd.abs()).max(c.abs());
        }
        let relative = inf_norm(&residual) / size.max(f64::MIN_POSITIVE);
        if iterations > 0 && relative <= NEWTON_TOL {
            break rows;
        }
        if iterations == NEWTON_ITERATIONS {
            return Err(HigherOrderError::NotConverged {
                t,
                iterations,
                residual: relative,
            });
        }
        let jacobian: Vec<f64> = (0..n * n)
            .map(|jk| mass[jk] - (0..g).map(|b| lambda[b] * rows.b_qdd[b][jk]).sum::<f64>())
            .collect();
        let step =
            linalg::solve(jacobian, residual.iter().map(|r| -r).collect()).ok_or_else(|| {
                HigherOrderError::SingularAcceleration {
                    t,
                    lambda: lambda.to_vec(),
                }
            })?;
        for (x, d) in qdd.iter_mut().zip(&step) {
            *x += d;
        }
        iterations += 1;
    };

    // dQ/dt and dM/dt along the motion.
    let mut f_dot = vec![Dual64::from(0.0); n];
    system.force(
        Dual64::new(t, 1.0),
        &duals(q, qd),
        &duals(qd, &qdd),
        &mut f_dot,
    );
    let f_dot: Vec<f64> = f_dot.iter().map(|d| d.eps).collect();
    finite("force: dQ/dt", &f_dot)?;
    let mut m_dot = vec![Dual64::from(0.0); n * n];
    system.mass(Dual64::new(t, 1.0), &duals(q, qd), &mut m_dot);
    let m_dot: Vec<f64> = m_dot.iter().map(|d| d.eps).collect();
    finite("mass: dM/dt", &m_dot)?;

    // [K, -B^T; B, 0] (q''', lambda') = (dQ/dt - (dM/dt) q'' + sum lambda_b dB_b/dt, -phi0).
    let size = n + g;
    let mut a = vec![0.0; size * size];
    let mut rhs = vec![0.0; size];
    for j in 0..n {
        for k in 0..n {
            a[j * size + k] = mass[j * n + k]
                - (0..g)
                    .map(|b| lambda[b] * rows.b_qdd[b][j * n + k])
                    .sum::<f64>();
        }
        for b in 0..g {
            a[j * size + n + b] = -rows.b[b][j];
        }
        let m_dot_qdd: f64 = (0..n).map(|k| m_dot[j * n + k] * qdd[k]).sum();
        let b_dot: f64 = (0..g).map(|b| lambda[b] * rows.b_dot[b][j]).sum();
        rhs[j] = f_dot[j] - m_dot_qdd + b_dot;
    }
    for b in 0..g {
        for k in 0..n {
            a[(n + b) * size + k] = rows.b[b][k];
        }
        rhs[n + b] = -rows.phi0[b];
    }
    let x = linalg::solve(a, rhs).ok_or_else(|| HigherOrderError::SingularSystem {
        t,
        rows: rows.b.clone(),
    })?;
    Ok(Evaluation {
        derivatives: Derivatives {
            qdd,
            qddd: x[..n].to_vec(),
            lambda_dot: x[n..].to_vec(),
        },
        mass,
        force,
        rows: rows.b,
        phi0: rows.phi0,
    })
}
