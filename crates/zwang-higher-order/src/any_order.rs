//! Constraints of any order `m` from 3 to [`MAX_ORDER`]: the state holds
//! `q`, `q'` and the multipliers with their derivatives up to
//! `lambda^(m-3)`; the equations of motion, differentiated `m - 2` times
//! in time along the motion (by nested dual numbers), and the constraints
//! give the rest. The crate's root is the case `m = 3`.
//!
//! ```
//! use zwang_higher_order::any_order::{derivatives, State};
//! use zwang_higher_order::{TurningPlane, TurningPlaneOfOrder};
//!
//! // Zhang et al.'s turning plane with q1'' q1'''' + g q2'''' = 0.
//! let plane = TurningPlane { mass: 1.0, omega: 0.0, g: 9.81, force: [0.5, -9.81] };
//! let system = TurningPlaneOfOrder { plane, order: 4 };
//! let state = State { t: 0.0, q: vec![1.0, 0.5], qd: vec![0.2, -0.1], lambda: vec![vec![0.2], vec![0.0]] };
//! let d = derivatives(&system, &state).unwrap();
//! // By hand: (M - lambda) q1'' = F1, so q1'' = 0.625 and, lambda' = 0, q1''' = 0.
//! assert!((d.q[2][0] - 0.625).abs() < 1e-15 && d.q[3][0].abs() < 1e-15);
//! // The constraint holds with the q'''' of the solve.
//! assert!((d.q[2][0] * d.q[4][0] + 9.81 * d.q[4][1]).abs() < 1e-13);
//! ```

use crate::error::HigherOrderError;
use crate::solve::{evaluate, instant_of};
use zwang_instant::Instant;

pub use crate::ode::{integrate_order as integrate, OrderTrajectory as Trajectory};
pub use crate::ode::{OrderOde as Ode, OrderSample as Sample, OrderState as State};
pub use crate::solve::MAX_ORDER;
pub use crate::system::OrderSystem;

/// Every derivative the equations determine at `state`: `q''` by Newton's
/// method on `M q'' - Q - sum_b lambda_b B_b(q'') = 0`; for
/// `k = 1, ..., m - 3`, `K q^(k+2) = -(the k-th time derivative of those
/// equations without q^(k+2))` with `K = M - sum_b lambda_b dB_b/dq''`;
/// and with the constraints
///
/// ```text
/// K q^(m) - sum_b B_b lambda^(m-2)_b = -(the (m-2)-th time derivative without q^(m), lambda^(m-2))
///                       B_b . q^(m) = -phi0_b
/// ```
///
/// Errors: an order outside 3 to [`MAX_ORDER`], wrong lengths, non-finite
/// input or output of the system, a constraint not linear in `q^(m)` or
/// whose row depends on `q''', ..., q^(m-1)`, a singular `K` or a singular
/// system for `(q^(m), lambda^(m-2))`.
pub fn derivatives<S: OrderSystem>(system: &S, state: &State) -> Result<Sample, HigherOrderError> {
    let lambda: Vec<&[f64]> = state.lambda.iter().map(Vec::as_slice).collect();
    let e = evaluate(system, state.t, &state.q, &state.qd, &lambda, None)?;
    Ok(Sample {
        t: state.t,
        q: e.q,
        lambda: e.lambda,
    })
}

/// The instant of higher order at `state`: `M`, `Q` and one equality row of
/// order `m` per constraint, `B_b . q^(m) = -phi0_b`, with `B` and `phi0`
/// at the derivatives the equations give. `zwang check` says
/// `stationary_only` on it. Errors as [`derivatives`], and
/// [`HigherOrderError::Instant`] for a mass that is not symmetric positive
/// definite.
pub fn instant<S: OrderSystem>(system: &S, state: &State) -> Result<Instant, HigherOrderError> {
    let lambda: Vec<&[f64]> = state.lambda.iter().map(Vec::as_slice).collect();
    instant_of(system, state.t, &state.q, &state.qd, &lambda)
}
