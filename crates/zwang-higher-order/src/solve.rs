//! One state `(t, q, q', lambda, ..., lambda^(m-3))`: `q''` from the
//! equations of motion, `q''', ..., q^(m-1)` from their time derivatives,
//! `(q^(m), lambda^(m-2))` from their `(m-2)`-th time derivative and the
//! constraints; and the instant of higher order.

use crate::error::HigherOrderError;
use crate::jet::{with_depth, Jet, MAX_DEPTH};
use crate::system::{OrderSystem, Third, ThirdOrderSystem};
use num_dual::{Dual, HyperDual64};
use zwang_instant::{dense, matrix_from_triplets, Instant};

/// The highest order of constraints integrated: the time derivatives come
/// by nested dual numbers of depth `m - 2`, a type, so the orders are a
/// fixed list (a deeper nesting doubles the work of every operation).
pub const MAX_ORDER: usize = MAX_DEPTH + 2;

/// A second derivative of a constraint in `q^(m)` (or in `q^(m)` and one
/// of `q''', ..., q^(m-1)`) above `LINEAR_TOL (1 + |B_b|)` is refused:
/// automatic differentiation gives exact zeros for an expression linear in
/// `q^(m)`, so only round-off in unusual spellings (`(x + 1)^2 - x^2`) may
/// stay.
const LINEAR_TOL: f64 = 1e-12;

/// Newton's method for `q''` stops when the residual of
/// `M q'' - Q - sum lambda_b B_b` is below this fraction of the size of
/// its terms.
const NEWTON_TOL: f64 = 1e-12;

/// Newton iterations allowed (one suffices when `B` does not depend on
/// `q''`, and with `B` affine in `q''`: the equations are then linear).
const NEWTON_ITERATIONS: usize = 50;

/// The names of the multipliers' derivatives held in a state, for errors.
const LAMBDA: [&str; MAX_DEPTH] = [
    "lambda",
    "lambda'",
    "lambda''",
    "lambda'''",
    "lambda^(4)",
    "lambda^(5)",
];

/// What the motion does at one state of a [`ThirdOrderSystem`].
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
    /// `q^(k)` for `k = 0, ..., m`.
    pub(crate) q: Vec<Vec<f64>>,
    /// `lambda^(j)` for `j = 0, ..., m - 2`.
    pub(crate) lambda: Vec<Vec<f64>>,
    /// `M(t, q)`, row by row.
    pub(crate) mass: Vec<f64>,
    /// `Q(t, q, q')`.
    pub(crate) force: Vec<f64>,
    /// `B_b = dphi_b/dq^(m)`, one row per constraint.
    pub(crate) rows: Vec<Vec<f64>>,
    /// `phi0_b`: the constraint with `q^(m) = 0`.
    pub(crate) phi0: Vec<f64>,
}

/// `q''`, `q'''` and `lambda'` at the state `(t, q, q', lambda)` of a
/// system with constraints of third order.
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
/// every derivative is exact, by dual numbers. This is the order `m = 3` of
/// [`crate::any_order::derivatives`]. Errors: wrong lengths, non-finite
/// input or output of the system, a constraint not linear in `q'''`, a
/// singular `K` (the accelerations are not determined) or a singular
/// system for `(q''', lambda')`.
pub fn derivatives<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[f64],
) -> Result<Derivatives, HigherOrderError> {
    let mut e = evaluate(&Third(system), t, q, qd, &[lambda], None)?;
    Ok(Derivatives {
        qdd: std::mem::take(&mut e.q[2]),
        qddd: std::mem::take(&mut e.q[3]),
        lambda_dot: std::mem::take(&mut e.lambda[1]),
    })
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
    instant_of(&Third(system), t, q, qd, &[lambda])
}

/// The instant at a state of any order: rows of order `m`,
/// `B_b . q^(m) = -phi0_b`.
pub(crate) fn instant_of<S: OrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[&[f64]],
) -> Result<Instant, HigherOrderError> {
    let e = evaluate(system, t, q, qd, lambda, None)?;
    let (n, g, m) = (q.len(), e.rows.len(), system.order());
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
    let name = if m == 3 {
        format!("constraints of third order at t = {t}")
    } else {
        format!("constraints of order {m} at t = {t}")
    };
    Ok(Instant::builder(mass, e.force)
        .name(name)
        .equalities(rows, rhs)
        .equality_orders(vec![m as u32; g])
        .build()?)
}

/// Refuses an order outside 3 to [`MAX_ORDER`], wrong lengths and
/// non-finite entries. `lambda[j]` is `lambda^(j)`, `j < m - 2`.
pub(crate) fn check_state<S: OrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[&[f64]],
) -> Result<(), HigherOrderError> {
    let (m, n, g) = (system.order(), system.dim(), system.constraint_count());
    if !(3..=MAX_ORDER).contains(&m) {
        return Err(HigherOrderError::Order { order: m });
    }
    if n == 0 {
        return Err(HigherOrderError::Dimension {
            what: "q",
            expected: 1,
            found: 0,
        });
    }
    if lambda.len() != m - 2 {
        return Err(HigherOrderError::Dimension {
            what: "lambda derivatives",
            expected: m - 2,
            found: lambda.len(),
        });
    }
    let named = [("q", q, n), ("qd", qd, n)]
        .into_iter()
        .chain(lambda.iter().zip(LAMBDA).map(|(&l, what)| (what, l, g)));
    for (what, v, expected) in named.clone() {
        if v.len() != expected {
            return Err(HigherOrderError::Dimension {
                what,
                expected,
                found: v.len(),
            });
        }
    }
    finite("t", &[t])?;
    for (what, v, _) in named {
        finite(what, v)?;
    }
    Ok(())
}

/// Refuses a non-finite entry of `v`, naming `what` (written out only
/// then: `format_args!` for names with numbers in them).
fn finite(what: impl std::fmt::Display, v: &[f64]) -> Result<(), HigherOrderError> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(HigherOrderError::NonFinite {
            what: what.to_string(),
            index,
            value: v[index],
        }),
    }
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// The slices `q^(0), ..., q^(m)` of `levels`, as the constraints take them.
fn slices<D>(levels: &[Vec<D>]) -> Vec<&[D]> {
    levels.iter().map(Vec::as_slice).collect()
}

/// The arguments `q^(0), ..., q^(m)` of the constraints as hyper-dual
/// constants, made once per state: each evaluation sets one direction
/// `eps1` and at most one `eps2` on single entries, and takes them off.
struct Hyper(Vec<Vec<HyperDual64>>);

impl Hyper {
    fn new(levels: &[Vec<f64>]) -> Self {
        Hyper(
            levels
                .iter()
                .map(|x| x.iter().map(|&r| HyperDual64::from_re(r)).collect())
                .collect(),
        )
    }

    /// `phi_b` with `eps1` on `q^(l1)_j1` and `eps2` on `q^(l2)_j2`.
    fn phi<S: OrderSystem>(
        &mut self,
        system: &S,
        b: usize,
        t: f64,
        (l1, j1): (usize, usize),
        eps2: Option<(usize, usize)>,
    ) -> HyperDual64 {
        self.0[l1][j1].eps1 = 1.0;
        if let Some((l2, j2)) = eps2 {
            self.0[l2][j2].eps2 = 1.0;
        }
        let v = system.constraint(b, HyperDual64::from_re(t), &slices(&self.0));
        self.0[l1][j1].eps1 = 0.0;
        if let Some((l2, j2)) = eps2 {
            self.0[l2][j2].eps2 = 0.0;
        }
        v
    }
}

/// One row per constraint.
type Rows = Vec<Vec<f64>>;

/// `B_b = dphi_b/dq^(m)` and `dB_b/dq''` (`[b][j * n + k] = dB_bj/dq''_k`)
/// at `levels` (`q^(m)` zero in it), by hyper-dual numbers.
fn rows_at<S: OrderSystem>(
    system: &S,
    t: f64,
    levels: &[Vec<f64>],
) -> Result<(Rows, Rows), HigherOrderError> {
    let (n, g, m) = (levels[0].len(), system.constraint_count(), levels.len() - 1);
    let mut rows = vec![vec![0.0; n]; g];
    let mut rows_qdd = vec![vec![0.0; n * n]; g];
    let mut args = Hyper::new(levels);
    for b in 0..g {
        for j in 0..n {
            let v = args.phi(system, b, t, (m, j), None);
            finite(format_args!("constraint[{b}]: dphi/dq^({m})"), &[v.eps1])?;
            rows[b][j] = v.eps1;
            for k in 0..n {
                // eps1 on q^(m)_j, eps2 on q''_k: dB_bj / dq''_k.
                let v = args.phi(system, b, t, (m, j), Some((2, k)));
                finite(
                    format_args!("constraint[{b}]: d2phi/dq^({m})dq''"),
                    &[v.eps1eps2],
                )?;
                rows_qdd[b][j * n + k] = v.eps1eps2;
            }
        }
    }
    Ok((rows, rows_qdd))
}

/// At the state's derivatives `levels` (`q^(m)` zero): `phi0_b`, and the
/// checks that `phi_b` is linear in `q^(m)` with rows that do not depend
/// on `q''', ..., q^(m-1)`.
fn free_parts<S: OrderSystem>(
    system: &S,
    t: f64,
    levels: &[Vec<f64>],
    rows: &[Vec<f64>],
) -> Result<Vec<f64>, HigherOrderError> {
    let (n, m) = (levels[0].len(), levels.len() - 1);
    let mut phi0 = vec![0.0; rows.len()];
    let mut args = Hyper::new(levels);
    for (b, row) in rows.iter().enumerate() {
        let p = system.constraint(b, t, &slices(levels));
        finite(format_args!("constraint[{b}]"), &[p])?;
        phi0[b] = p;
        let size = 1.0 + inf_norm(row);
        for j in 0..n {
            for k in j..n {
                // Linear in q^(m): every second derivative in q^(m) vanishes.
                let v = args.phi(system, b, t, (m, j), Some((m, k)));
                finite(
                    format_args!("constraint[{b}]: d2phi/dq^({m})2"),
                    &[v.eps1eps2],
                )?;
                if v.eps1eps2.abs() > LINEAR_TOL * size {
                    return Err(if m == 3 {
                        HigherOrderError::NotLinear {
                            constraint: b,
                            j,
                            k,
                            curvature: v.eps1eps2,
                        }
                    } else {
                        HigherOrderError::NotLinearOfOrder {
                            constraint: b,
                            order: m,
                            j,
                            k,
                            curvature: v.eps1eps2,
                        }
                    });
                }
            }
            for k in 0..n {
                // The row B_b does not depend on q^(i), 2 < i < m.
                for i in 3..m {
                    let v = args.phi(system, b, t, (m, j), Some((i, k)));
                    finite(
                        format_args!("constraint[{b}]: d2phi/dq^({m})dq^({i})"),
                        &[v.eps1eps2],
                    )?;
                    if v.eps1eps2.abs() > LINEAR_TOL * size {
                        return Err(HigherOrderError::RowDependsOnHigher {
                            constraint: b,
                            order: m,
                            derivative: i,
                            j,
                            k,
                            value: v.eps1eps2,
                        });
                    }
                }
            }
        }
    }
    Ok(phi0)
}

/// The `k`-th time derivative of `M q'' - Q - sum_b lambda_b B_b` along
/// the motion, with `q^(0..=k+1)` from `levels` and `q^(k+2) = 0`, and
/// `lambda`'s derivatives as given (zero past them): by nested dual
/// numbers `J`, whose depth is at least `k`.
fn rate<S: OrderSystem, J: Jet>(
    system: &S,
    t: f64,
    levels: &[Vec<f64>],
    lambda: &[&[f64]],
    k: usize,
) -> Vec<f64> {
    let (n, g, m) = (levels[0].len(), system.constraint_count(), system.order());
    // The path of coordinate i from derivative `from` on, known to q^(k+1).
    let path = |from: usize, i: usize| -> J {
        let d: Vec<f64> = levels[from..=k + 1].iter().map(|x| x[i]).collect();
        J::lift(&d)
    };
    let tj = J::lift(&[t, 1.0]);
    let paths: Vec<Vec<J>> = (0..m)
        .map(|from| {
            (0..n)
                .map(|i| {
                    if from <= k + 1 {
                        path(from, i)
                    } else {
                        J::from(0.0)
                    }
                })
                .collect()
        })
        .collect();
    let lam: Vec<J> = (0..g)
        .map(|b| J::lift(&lambda.iter().take(k + 1).map(|l| l[b]).collect::<Vec<_>>()))
        .collect();
    let mut mass = vec![J::from(0.0); n * n];
    system.mass(tj, &paths[0], &mut mass);
    let mut force = vec![J::from(0.0); n];
    system.force(tj, &paths[0], &paths[1], &mut force);
    // sum_b lambda_b B_bi: phi with an outer dual direction on q^(m)_i.
    let outer: Vec<Vec<Dual<J>>> = paths
        .iter()
        .map(|x| x.iter().map(|&v| Dual::from_re(v)).collect())
        .chain(std::iter::once(vec![Dual::from_re(J::from(0.0)); n]))
        .collect();
    (0..n)
        .map(|i| {
            let mut args = outer.clone();
            args[m][i] = Dual::new(J::from(0.0), J::from(1.0));
            let constraint: J = (0..g)
                .map(|b| lam[b] * system.constraint(b, Dual::from_re(tj), &slices(&args)).eps)
                .fold(J::from(0.0), |a, x| a + x);
            let inertia = (0..n)
                .map(|j| mass[i * n + j] * paths[2][j])
                .fold(J::from(0.0), |a, x| a + x);
            (inertia - force[i] - constraint).nth(k)
        })
        .collect()
}

/// `q''', ..., q^(m-1)` into `levels` (the derivatives `1, ..., m - 3` of
/// the equations, each `K q^(k+2) = -rate_k`), then the rate of order
/// `m - 2` without `q^(m)` and `lambda^(m-2)`.
fn upper<S: OrderSystem, J: Jet>(
    system: &S,
    t: f64,
    levels: &mut Vec<Vec<f64>>,
    lambda: &[&[f64]],
    k_matrix: &[f64],
) -> Result<Vec<f64>, HigherOrderError> {
    let m = system.order();
    for k in 1..m - 2 {
        let r = rate::<S, J>(system, t, levels, lambda, k);
        finite(format_args!("equations: time derivative {k}"), &r)?;
        let x = lu_solve(k_matrix.to_vec(), r.iter().map(|v| -v).collect()).ok_or_else(|| {
            HigherOrderError::SingularAcceleration {
                t,
                lambda: lambda[0].to_vec(),
            }
        })?;
        levels.push(x);
    }
    let r = rate::<S, J>(system, t, levels, lambda, m - 2);
    finite(format_args!("equations: time derivative {}", m - 2), &r)?;
    Ok(r)
}

/// The evaluation at one state; `guess` is Newton's starting `q''` (zero
/// without one).
pub(crate) fn evaluate<S: OrderSystem>(
    system: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    lambda: &[&[f64]],
    guess: Option<&[f64]>,
) -> Result<Evaluation, HigherOrderError> {
    check_state(system, t, q, qd, lambda)?;
    let (n, g, m) = (q.len(), system.constraint_count(), system.order());
    let mut mass = vec![0.0; n * n];
    system.mass(t, q, &mut mass);
    finite("mass", &mass)?;
    let mut force = vec![0.0; n];
    system.force(t, q, qd, &mut force);
    finite("force", &force)?;

    // q'' by Newton's method on M q'' - Q - sum_b lambda_b B_b(q'') = 0; the
    // rows do not depend on q''', ..., q^(m) (checked below), zero here.
    let qdd = match guess {
        Some(x) if x.len() == n && x.iter().all(|v| v.is_finite()) => x.to_vec(),
        _ => vec![0.0; n],
    };
    let mut levels = vec![q.to_vec(), qd.to_vec(), qdd];
    levels.resize(m + 1, vec![0.0; n]);
    let mut iterations = 0;
    let (rows, jacobian) = loop {
        let (rows, rows_qdd) = rows_at(system, t, &levels)?;
        let mut residual = vec![0.0; n];
        let mut size = inf_norm(&force);
        for j in 0..n {
            let m_qdd: f64 = (0..n).map(|k| mass[j * n + k] * levels[2][k]).sum();
            let c: f64 = (0..g).map(|b| lambda[0][b] * rows[b][j]).sum();
            residual[j] = m_qdd - force[j] - c;
            size = size.max(m_qdd.abs()).max(c.abs());
        }
        // K = M - sum_b lambda_b dB_b/dq'': Newton's matrix, and the
        // coefficient of q^(k+2) in every time derivative k of the equations.
        let jacobian: Vec<f64> = (0..n * n)
            .map(|jk| mass[jk] - (0..g).map(|b| lambda[0][b] * rows_qdd[b][jk]).sum::<f64>())
            .collect();
        let relative = inf_norm(&residual) / size.max(f64::MIN_POSITIVE);
        if iterations > 0 && relative <= NEWTON_TOL {
            break (rows, jacobian);
        }
        if iterations == NEWTON_ITERATIONS {
            return Err(HigherOrderError::NotConverged {
                t,
                iterations,
                residual: relative,
            });
        }
        let step = lu_solve(jacobian, residual.iter().map(|r| -r).collect()).ok_or_else(|| {
            HigherOrderError::SingularAcceleration {
                t,
                lambda: lambda[0].to_vec(),
            }
        })?;
        for (x, d) in levels[2].iter_mut().zip(&step) {
            *x += d;
        }
        iterations += 1;
    };

    // q''', ..., q^(m-1), and the rate of order m - 2.
    levels.truncate(3);
    let r = with_depth!(
        m - 2,
        upper(system, t, &mut levels, lambda, &jacobian),
        Err(HigherOrderError::Order { order: m })
    )?;
    levels.push(vec![0.0; n]);
    let phi0 = free_parts(system, t, &levels, &rows)?;

    // [K, -B^T; B, 0] (q^(m), lambda^(m-2)) = (-rate, -phi0).
    let size = n + g;
    let mut a = vec![0.0; size * size];
    let mut rhs = vec![0.0; size];
    for j in 0..n {
        a[j * size..j * size + n].copy_from_slice(&jacobian[j * n..(j + 1) * n]);
        for b in 0..g {
            a[j * size + n + b] = -rows[b][j];
        }
        rhs[j] = -r[j];
    }
    for b in 0..g {
        a[(n + b) * size..(n + b) * size + n].copy_from_slice(&rows[b]);
        rhs[n + b] = -phi0[b];
    }
    let x = lu_solve(a, rhs).ok_or_else(|| HigherOrderError::SingularSystem {
        t,
        rows: rows.clone(),
        order: m,
    })?;
    levels[m] = x[..n].to_vec();
    let mut lambdas: Vec<Vec<f64>> = lambda.iter().map(|l| l.to_vec()).collect();
    lambdas.push(x[n..].to_vec());
    Ok(Evaluation {
        q: levels,
        lambda: lambdas,
        mass,
        force,
        rows,
        phi0,
    })
}

/// A pivot below this fraction of its equilibrated row counts as zero:
/// the matrix is singular to working precision.
const PIVOT_TOL: f64 = 1e-12;

/// Solves `a x = b` for a square `a` (row-major, `m x m`, `m` the length
/// of `b`; the `n x n` and `(n + g) x (n + g)` systems of one state) with
/// [`dense::lu_solve_in_place`]; `None` when `a` is singular to working
/// precision or the solution is not finite.
fn lu_solve(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    dense::lu_solve_in_place(&mut a, &mut b, PIVOT_TOL).ok()?;
    b.iter().all(|v| v.is_finite()).then_some(b)
}
