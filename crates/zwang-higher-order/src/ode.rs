//! The motion as an ODE in `(q, q', lambda, ..., lambda^(m-3))`,
//! integrated by `zwang-ode`; the third-order types are its case `m = 3`.

use crate::error::HigherOrderError;
use crate::solve::{check_state, evaluate};
use crate::system::{OrderSystem, Third, ThirdOrderSystem};
use zwang_ode::{Integrator, OdeSystem, Settings, Stats, StepError};

/// A state of the motion: time, coordinates, velocities and the
/// multipliers, which a constraint of third order makes part of the state.
///
/// `lambda` at the start is an initial condition, free like `q` and `q'`:
/// the constraints involve `q'''`, so they leave `q''` at the start (which
/// `lambda` fixes through the equations of motion) to be chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The time.
    pub t: f64,
    /// The coordinates `q`, length `n`.
    pub q: Vec<f64>,
    /// The velocities `q'`, length `n`.
    pub qd: Vec<f64>,
    /// The multipliers `lambda`, one per constraint.
    pub lambda: Vec<f64>,
}

/// One sample of a trajectory: the state and what the equations give there.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The time.
    pub t: f64,
    /// `q`.
    pub q: Vec<f64>,
    /// `q'`.
    pub qd: Vec<f64>,
    /// `q''` from the equations of motion.
    pub qdd: Vec<f64>,
    /// `q'''` from their time derivative and the constraints.
    pub qddd: Vec<f64>,
    /// The multipliers.
    pub lambda: Vec<f64>,
    /// `lambda'`.
    pub lambda_dot: Vec<f64>,
}

/// The samples of a run, and the integrator's work.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// At the start, every `every` after it, and at the end.
    pub samples: Vec<Sample>,
    /// Evaluations of the right-hand side, accepted and rejected steps.
    pub stats: Stats,
}

/// A state of the motion under constraints of order `m`: time,
/// coordinates, velocities, and the multipliers with their derivatives up
/// to `lambda^(m-3)`.
///
/// The multipliers and their derivatives at the start are initial
/// conditions: the constraints involve `q^(m)`, so they leave
/// `q'', ..., q^(m-1)` at the start (which `lambda, ..., lambda^(m-3)` fix
/// through the equations of motion and their time derivatives) to be
/// chosen. The count matches the third order (`m = 3`: `lambda` alone).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderState {
    /// The time.
    pub t: f64,
    /// The coordinates `q`, length `n`.
    pub q: Vec<f64>,
    /// The velocities `q'`, length `n`.
    pub qd: Vec<f64>,
    /// `lambda[j]` is `lambda^(j)`, `j = 0, ..., m - 3`, each one per
    /// constraint.
    pub lambda: Vec<Vec<f64>>,
}

/// One sample of a motion under constraints of order `m`: every derivative
/// the equations determine there.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderSample {
    /// The time.
    pub t: f64,
    /// `q[k]` is `q^(k)`, `k = 0, ..., m`: `q` and `q'` of the state,
    /// `q''` from the equations of motion, `q''', ..., q^(m-1)` from their
    /// time derivatives, `q^(m)` with the constraints.
    pub q: Vec<Vec<f64>>,
    /// `lambda[j]` is `lambda^(j)`, `j = 0, ..., m - 2`: those of the
    /// state, and `lambda^(m-2)` with `q^(m)`.
    pub lambda: Vec<Vec<f64>>,
}

/// The samples of a run under constraints of order `m`, and the
/// integrator's work.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderTrajectory {
    /// At the start, every `every` after it, and at the end.
    pub samples: Vec<OrderSample>,
    /// Evaluations of the right-hand side, accepted and rejected steps.
    pub stats: Stats,
}

/// The first-order system `y = (q, q', lambda, ..., lambda^(m-3))`,
/// `y' = (q', q'', lambda', ..., lambda^(m-2))` of an [`OrderSystem`], as
/// [`zwang_ode::Integrator`] integrates it. Each evaluation solves the
/// state ([`crate::any_order::derivatives`]), starting Newton's method for
/// `q''` from the last `q''` found.
#[derive(Debug)]
pub struct OrderOde<S> {
    system: S,
    /// Newton's start: the last `q''`.
    guess: Vec<f64>,
}

impl<S: OrderSystem> OrderOde<S> {
    /// The ODE of `system` (a reference to one is a system too).
    pub fn new(system: S) -> Self {
        OrderOde {
            system,
            guess: Vec::new(),
        }
    }

    /// The dimension of `y`: `2 n + (m - 2) g` (none below order 3).
    pub fn dim(&self) -> usize {
        2 * self.system.dim() + held(self.system.order()) * self.system.constraint_count()
    }
}

/// The number of multipliers' derivatives in a state of order `m` (one
/// for an order below 3, which the solve refuses).
fn held(m: usize) -> usize {
    m.max(3) - 2
}

/// `(q, q', [lambda, ..., lambda^(m-3)])` as slices of `y` (of the length
/// [`OrderOde::dim`] gives).
fn split<'y, S: OrderSystem>(system: &S, y: &'y [f64]) -> (&'y [f64], &'y [f64], Vec<&'y [f64]>) {
    let (n, g) = (system.dim(), system.constraint_count());
    let (q, rest) = y.split_at(n);
    let (qd, rest) = rest.split_at(n);
    let lambda = (0..held(system.order()))
        .map(|j| &rest[j * g..(j + 1) * g])
        .collect();
    (q, qd, lambda)
}

impl<S: OrderSystem> OdeSystem for OrderOde<S> {
    type Error = HigherOrderError;

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), HigherOrderError> {
        let (n, g) = (self.system.dim(), self.system.constraint_count());
        if y.len() != self.dim() || dy.len() != y.len() {
            return Err(HigherOrderError::Dimension {
                what: "y",
                expected: self.dim(),
                found: y.len(),
            });
        }
        let (q, qd, lambda) = split(&self.system, y);
        let mut e = evaluate(&self.system, t, q, qd, &lambda, Some(&self.guess))?;
        dy[..n].copy_from_slice(qd);
        dy[n..2 * n].copy_from_slice(&e.q[2]);
        for (j, l) in e.lambda[1..].iter().enumerate() {
            dy[2 * n + j * g..2 * n + (j + 1) * g].copy_from_slice(l);
        }
        self.guess = std::mem::take(&mut e.q[2]);
        Ok(())
    }
}

/// The first-order system `y = (q, q', lambda)`, `y' = (q', q'', lambda')`
/// of a [`ThirdOrderSystem`], as [`zwang_ode::Integrator`] integrates it:
/// the case `m = 3` of [`OrderOde`].
#[derive(Debug)]
pub struct ThirdOrderOde<'s, S>(OrderOde<Third<'s, S>>);

impl<'s, S: ThirdOrderSystem> ThirdOrderOde<'s, S> {
    /// The ODE of `system`.
    pub fn new(system: &'s S) -> Self {
        ThirdOrderOde(OrderOde::new(Third(system)))
    }

    /// The dimension of `y`: `2 n + g`.
    pub fn dim(&self) -> usize {
        self.0.dim()
    }
}

impl<S: ThirdOrderSystem> OdeSystem for ThirdOrderOde<'_, S> {
    type Error = HigherOrderError;

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), HigherOrderError> {
        self.0.rhs(t, y, dy)
    }
}

/// Integrates the motion of `system` from `start` to `t_end`, sampling it
/// at `start.t`, every `every` after it, and at `t_end`.
///
/// The integrator lands on every sample time (no interpolation), so a
/// sample is as accurate as a step; `settings.dense_output` is not needed
/// (`false` saves DOP853 three evaluations per step). Each sample's `q''`,
/// `q'''` and `lambda'` are solved at its state. Errors: a bad start (see
/// [`crate::derivatives`]), `t_end <= start.t`, `every` not positive and
/// finite, invalid settings, a state where the motion is not determined
/// (singular systems, met on the way), or an integrator that gives up.
///
/// ```
/// use zwang_higher_order::{integrate, State, TurningPlane};
///
/// // The particle on the slowly turning plane of Zhang et al. (section 5).
/// let plane = TurningPlane { mass: 1.0, omega: 0.1, g: 9.81, force: [0.0, -9.81] };
/// let start = State { t: 0.0, q: vec![1.0, 0.5], qd: vec![0.2, -0.1], lambda: vec![0.2] };
/// let settings = zwang_ode::Settings { rtol: 1e-12, atol: 1e-12, ..Default::default() };
/// let run = integrate(&plane, &start, 1.0, 0.25, &settings).unwrap();
/// assert_eq!(run.samples.len(), 5);
/// // The constraint q1'' q1''' + g q2''' = 0 is d/dt (q1''^2 / 2 + g q2''):
/// let invariant = |s: &zwang_higher_order::Sample| plane.invariant(&s.qdd);
/// let (first, last) = (&run.samples[0], &run.samples[4]);
/// assert!((invariant(last) - invariant(first)).abs() < 1e-9 * invariant(first).abs());
/// ```
pub fn integrate<S: ThirdOrderSystem>(
    system: &S,
    start: &State,
    t_end: f64,
    every: f64,
    settings: &Settings,
) -> Result<Trajectory, HigherOrderError> {
    let start = OrderState {
        t: start.t,
        q: start.q.clone(),
        qd: start.qd.clone(),
        lambda: vec![start.lambda.clone()],
    };
    let run = integrate_order(&Third(system), &start, t_end, every, settings)?;
    let samples = run
        .samples
        .into_iter()
        .map(|s| {
            let [q, qd, qdd, qddd]: [Vec<f64>; 4] = s.q.try_into().unwrap_or_default();
            let [lambda, lambda_dot]: [Vec<f64>; 2] = s.lambda.try_into().unwrap_or_default();
            Sample {
                t: s.t,
                q,
                qd,
                qdd,
                qddd,
                lambda,
                lambda_dot,
            }
        })
        .collect();
    Ok(Trajectory {
        samples,
        stats: run.stats,
    })
}

/// Integrates the motion of `system` (constraints of order `m`) from
/// `start` to `t_end`, sampling it at `start.t`, every `every` after it,
/// and at `t_end` (landing on each: a sample is as accurate as a step);
/// [`integrate`] is its order 3. Errors as
/// [`crate::any_order::derivatives`] at the start and on the way,
/// `t_end <= start.t`, `every` not positive and finite, invalid settings,
/// or an integrator that gives up.
pub fn integrate_order<S: OrderSystem>(
    system: &S,
    start: &OrderState,
    t_end: f64,
    every: f64,
    settings: &Settings,
) -> Result<OrderTrajectory, HigherOrderError> {
    let lambda: Vec<&[f64]> = start.lambda.iter().map(Vec::as_slice).collect();
    check_state(system, start.t, &start.q, &start.qd, &lambda)?;
    settings.validate().map_err(HigherOrderError::Settings)?;
    if !(t_end.is_finite() && t_end > start.t) {
        return Err(HigherOrderError::Settings(format!(
            "t_end must be finite and after the start t = {} (found {t_end})",
            start.t
        )));
    }
    if !(every.is_finite() && every > 0.0) {
        return Err(HigherOrderError::Settings(format!(
            "every must be finite and > 0 (found {every})"
        )));
    }
    let mut ode = OrderOde::new(system);
    let mut integrator = Integrator::new(ode.dim(), *settings);
    let y0: Vec<f64> = [&start.q[..], &start.qd]
        .into_iter()
        .chain(lambda.iter().copied())
        .flatten()
        .copied()
        .collect();
    integrator
        .reset(&mut ode, start.t, &y0)
        .map_err(step_error)?;
    let mut samples = vec![sample(system, start.t, &y0)?];
    let mut k = 1.0;
    loop {
        let target = (start.t + k * every).min(t_end);
        while integrator.t() < target {
            integrator.step(&mut ode, target).map_err(step_error)?;
        }
        samples.push(sample(system, target, integrator.y())?);
        if target >= t_end {
            break;
        }
        k += 1.0;
    }
    Ok(OrderTrajectory {
        samples,
        stats: integrator.stats(),
    })
}

/// The sample at `(t, y)`.
fn sample<S: OrderSystem>(system: &S, t: f64, y: &[f64]) -> Result<OrderSample, HigherOrderError> {
    let (q, qd, lambda) = split(system, y);
    let e = evaluate(system, t, q, qd, &lambda, None)?;
    Ok(OrderSample {
        t,
        q: e.q,
        lambda: e.lambda,
    })
}

/// The integrator's failure as this crate's error: the system's own error
/// as it is, the others with the time.
fn step_error(e: StepError<HigherOrderError>) -> HigherOrderError {
    match e {
        StepError::System(e) => e,
        StepError::StepTooSmall { t, h } => HigherOrderError::Integration {
            t,
            what: format!("step size {h:e} too small"),
        },
        StepError::TooManyRejections { t } => HigherOrderError::Integration {
            t,
            what: "too many rejected steps in a row".into(),
        },
        StepError::NonFinite { t } => HigherOrderError::Integration {
            t,
            what: "the right-hand side is not finite".into(),
        },
    }
}
