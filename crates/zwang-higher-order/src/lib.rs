//! Constraints of order 3 and above: where Gauss's principle is
//! stationary, not a minimum, and the multipliers join the state.
//!
//! # Why not a QP
//!
//! A constraint of order `m + 2`, `phi_b(t, q, q', ..., q^(m+2)) = 0`,
//! linear in its top derivative, restricts the variations of `q^(m+2)`
//! (Gauss's variation of order `m`: `t`, `q`, ..., `q^(m+1)` fixed). For
//! `m = 0` (accelerations) the compulsion is quadratic in `q''` and the real
//! motion is its minimum: the QP of the rest of zwang. For `m >= 1` the
//! generalized compulsion `Z_m = d^m/dt^m Z` is *linear* in `q^(m+2)`, so
//! its difference between the real motion and any possible one is exactly
//! zero (Zhang et al., arbitrary-order Gauss principle of relative motion
//! dynamics, eqs 8-12; V. Čović, "On a differential principle of higher
//! order for non-holonomic mechanical systems", 1977: an extremum only in
//! the ordinary case). The principle is stationary, there is nothing to
//! minimize, and `zwang check` says `stationary_only` on such an instant
//! ([`instant`] writes one). The equations (Zhang et al., eqs 39 and 50) are
//!
//! ```text
//! M(t, q) q'' - Q(t, q, q') - sum_b lambda_b B_b = 0,    B_b = dphi_b/dq^(m+2)
//! phi_b(t, q, q', ..., q^(m+2)) = 0
//! ```
//!
//! and the multipliers are part of the state: their highest derivative
//! comes with the constraints.
//!
//! # Order 3, at the crate's root
//!
//! Give the system as a [`ThirdOrderSystem`]: `M(t, q)`, `Q(t, q, q')` and
//! the constraints `phi_b(t, q, q', q'', q''')`, written once for any
//! [`Scalar`] (the dual numbers of `num-dual`), so that every derivative
//! the equations need is exact. At a state `(t, q, q', lambda)`:
//!
//! 1. `q''` solves `M q'' - Q - sum_b lambda_b B_b(q'') = 0` by Newton's
//!    method (`B` may depend on `q''`, as in the worked case
//!    `B = (q1'', g)`; one step when it does not, or affinely);
//! 2. the time derivative of those equations and the constraints give
//!    `(q''', lambda')`: with `K = M - sum_b lambda_b dB_b/dq''`,
//!    `K q''' - sum_b B_b lambda'_b = dQ/dt - (dM/dt) q'' + sum_b lambda_b
//!    (dB_b/dt)|_{q''}` and `B_b . q''' = -phi0_b` (`phi0` the part of
//!    `phi` without `q'''`).
//!
//! [`derivatives`] is that solve, [`ThirdOrderOde`] the ODE in
//! `y = (q, q', lambda)` for [`zwang_ode`], [`integrate`] runs it and
//! returns the samples `(q, q', q'', q''', lambda, lambda')`. The initial
//! `lambda` is an initial condition (equivalently `q''` at the start: the
//! constraints involve only `q'''`, so they leave it free).
//!
//! # Any order from 3 to [`MAX_ORDER`]: [`any_order`]
//!
//! Here `m` is the order itself (Zhang et al.'s `m + 2`). A constraint
//! `phi_b(t, q, q', ..., q^(m)) = 0` linear in `q^(m)`
//! ([`OrderSystem`]) keeps the same equations, `B_b = dphi_b/dq^(m)`. The
//! state holds `q`, `q'` and `lambda, lambda', ..., lambda^(m-3)` (at
//! `m = 3`, `lambda` alone): `q''` comes from the equations as above,
//! `q''', ..., q^(m-1)` from their time derivatives `1, ..., m - 3`
//! (`K q^(k+2) = ...`, `lambda^(k)` known), and the derivative `m - 2`
//! with the constraints gives `(q^(m), lambda^(m-2))`, the same saddle
//! system as at order 3. The time derivatives are exact, by nested dual
//! numbers of depth `m - 2` along the motion (a truncated Taylor series in
//! `t`); the depth is a type, so the orders are a fixed list. The rows may
//! depend on `t, q, q', q''` but not on `q''', ..., q^(m-1)` (checked):
//! otherwise the equations of motion would themselves be of higher order
//! in `q`. [`TurningPlaneOfOrder`] raises the worked case to
//! `q1'' q1^(m) + g q2^(m) = 0`; the example `examples/higher_order.rs`
//! runs orders 4 and 5.
//!
//! Bad input is a [`HigherOrderError`], never a panic: wrong lengths, NaN,
//! a constraint that is not linear in its top derivative (checked at every
//! state, by its second derivatives) or whose row depends on a derivative
//! above `q''`, an order outside 3 to [`MAX_ORDER`], a state where the
//! accelerations or `(q^(m), lambda^(m-2))` are not determined (singular
//! systems).
//!
//! # The worked case
//!
//! [`TurningPlane`] is Zhang et al.'s section 5: a particle on a plane
//! turning slowly about its normal, with `q1'' q1''' + g q2''' = 0`; the
//! example `examples/third_order.rs` at the root of the repository runs it.
//!
//! ```
//! use zwang_higher_order::{derivatives, TurningPlane};
//!
//! let plane = TurningPlane { mass: 1.0, omega: 0.1, g: 9.81, force: [0.0, -9.81] };
//! let (q, qd, lambda) = ([1.0, 0.5], [0.2, -0.1], [0.2]);
//! let d = derivatives(&plane, 0.0, &q, &qd, &lambda).unwrap();
//! // Eqs (50) by hand: (M - lambda) q1'' = F1 + M w^2 q1 + 2 M w q2' = -0.01,
//! // M q2'' = F2 + M w^2 q2 - 2 M w q1' + lambda g = -9.845 + 1.962.
//! assert!((d.qdd[0] + 0.0125).abs() < 1e-15);
//! assert!((d.qdd[1] + 7.883).abs() < 1e-14);
//! // The constraint holds: q1'' q1''' + g q2''' = 0.
//! assert!((d.qdd[0] * d.qddd[0] + 9.81 * d.qddd[1]).abs() < 1e-14);
//! ```

pub mod any_order;
mod error;
mod jet;
mod ode;
mod plane;
mod solve;
mod system;

pub use error::HigherOrderError;
pub use num_dual;
pub use ode::{integrate, Sample, State, ThirdOrderOde, Trajectory};
pub use plane::{TurningPlane, TurningPlaneOfOrder};
pub use solve::{derivatives, instant, Derivatives, MAX_ORDER};
pub use system::{OrderSystem, Scalar, ThirdOrderSystem};
