//! The motion as an ODE in `(q, q', lambda)`, integrated by `zwang-ode`.

use crate::error::HigherOrderError;
use crate::solve::{check_state, evaluate};
use crate::system::ThirdOrderSystem;
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

/// The first-order system `y = (q, q', lambda)`, `y' = (q', q'', lambda')`
/// of a [`ThirdOrderSystem`], as [`zwang_ode::Integrator`] integrates it.
/// Each evaluation solves the state ([`crate::derivatives`]), starting
/// Newton's method for `q''` from the last `q''` found.
#[derive(Debug)]
pub struct ThirdOrderOde<'s, S> {
    system: &'s S,
    /// Newton's start: the last `q''`.
    guess: Vec<f64>,
}

impl<'s, S: ThirdOrderSystem> ThirdOrderOde<'s, S> {
    /// The ODE of `system`.
    pub fn new(system: &'s S) -> Self {
        ThirdOrderOde {
            system,
            guess: Vec::new(),
        }
    }

    /// The dimension of `y`: `2 n + g`.
    pub fn dim(&self) -> usize {
        2 * self.system.dim() + self.system.constraint_count()
    }
}

impl<S: ThirdOrderSystem> OdeSystem for ThirdOrderOde<'_, S> {
    type Error = HigherOrderError;

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), HigherOrderError> {
        let n = self.system.dim();
        if y.len() != self.dim() {
            return Err(HigherOrderError::Dimension {
                what: "y",
                expected: self.dim(),
                found: y.len(),
            });
        }
        let (q, rest) = y.split_at(n);
        let (qd, lambda) = rest.split_at(n);
        let e = evaluate(self.system, t, q, qd, lambda, Some(&self.guess))?;
        let d = e.derivatives;
        dy[..n].copy_from_slice(qd);
        dy[n..2 * n].copy_from_slice(&d.qdd);
        dy[2 * n..].copy_from_slice(&d.lambda_dot);
        self.guess = d.qdd;
        Ok(())
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
    check_state(system, start.t, &start.q, &start.qd, &start.lambda)?;
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
    let n = system.dim();
    let mut ode = ThirdOrderOde::new(system);
    let mut integrator = Integrator::new(ode.dim(), *settings);
    let y0: Vec<f64> = [&start.q[..], &start.qd, &start.lambda].concat();
    integrator
        .reset(&mut ode, start.t, &y0)
        .map_err(step_error)?;
    let mut samples = vec![sample(system, start.t, &y0, n)?];
    let mut k = 1.0;
    loop {
        let target = (start.t + k * every).min(t_end);
        while integrator.t() < target {
            integrator.step(&mut ode, target).map_err(step_error)?;
        }
        samples.push(sample(system, target, integrator.y(), n)?);
        if target >= t_end {
            break;
        }
        k += 1.0;
    }
    Ok(Trajectory {
        samples,
        stats: integrator.stats(),
    })
}

/// The sample at `(t, y)`.
fn sample<S: ThirdOrderSystem>(
    system: &S,
    t: f64,
    y: &[f64],
    n: usize,
) -> Result<Sample, HigherOrderError> {
    let (q, rest) = y.split_at(n);
    let (qd, lambda) = rest.split_at(n);
    let d = evaluate(system, t, q, qd, lambda, None)?.derivatives;
    Ok(Sample {
        t,
        q: q.to_vec(),
        qd: qd.to_vec(),
        qdd: d.qdd,
        qddd: d.qddd,
        lambda: lambda.to_vec(),
        lambda_dot: d.lambda_dot,
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
