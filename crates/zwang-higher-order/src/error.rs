//! Why a state or a run was refused.

use thiserror::Error;
use zwang_instant::InstantError;

/// What went wrong, typed: bad input is refused before anything is solved,
/// and a state where the equations do not determine the motion is an
/// error, never a panic or a NaN trajectory.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HigherOrderError {
    /// A vector of the wrong length, or a system without coordinates.
    #[error("`{what}`: has length {found}, expected {expected}")]
    Dimension {
        /// Which vector (`q`, `qd`, `lambda`, `lambda'`, ..., or the count
        /// `lambda derivatives` of a state of order `m`).
        what: &'static str,
        /// The length the system asks for.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A NaN or an infinite value, in the input or in what a function of
    /// the system returned.
    #[error("`{what}`: entry {index} is not finite ({value})")]
    NonFinite {
        /// Where: `t`, `q`, `qd`, `lambda`, or `mass`, `force`,
        /// `constraint[b]` (and their derivatives) for the system's
        /// functions.
        what: String,
        /// The entry.
        index: usize,
        /// The value found.
        value: f64,
    },
    /// A constraint that is not linear in `q'''`: the principle (and these
    /// equations) need `phi_b = B_b(t, q, q', q'') . q''' + phi0_b`.
    #[error(
        "`constraint[{constraint}]`: not linear in q''' (d2 phi / dq'''_{j} dq'''_{k} = {curvature:e}); \
         a constraint of third order must be linear in its top derivative"
    )]
    NotLinear {
        /// The constraint.
        constraint: usize,
        /// The first coordinate of the second derivative found.
        j: usize,
        /// The second coordinate.
        k: usize,
        /// The second derivative in `q'''` found.
        curvature: f64,
    },
    /// `M - sum_b lambda_b dB_b/dq''` is singular: the equations do not
    /// determine the accelerations at this state.
    #[error(
        "at t = {t}: M - sum_b lambda_b dB_b/dq'' is singular, so the equations \
         M q'' - Q - sum_b lambda_b B_b = 0 do not determine q'' (lambda = {lambda:?})"
    )]
    SingularAcceleration {
        /// The time.
        t: f64,
        /// The multipliers there.
        lambda: Vec<f64>,
    },
    /// Newton's method on `q''` did not converge (a `B` that depends on
    /// `q''` strongly enough to have no or several solutions nearby).
    #[error(
        "at t = {t}: Newton's method for q'' did not converge in {iterations} iterations \
         (residual {residual:e})"
    )]
    NotConverged {
        /// The time.
        t: f64,
        /// Iterations made.
        iterations: usize,
        /// The last residual, relative to the size of the terms.
        residual: f64,
    },
    /// The linear system for `(q^(m), lambda^(m-2))` (`(q''', lambda')` at
    /// order 3) is singular: the constraint rows `B_b = dphi_b/dq^(m)` are
    /// dependent (or zero), or the constrained mass `B K^-1 B^T` is
    /// singular.
    #[error(
        "at t = {t}: the system for q^({order}) and lambda^({}) is singular: the rows \
         B_b = dphi_b/dq^({order}) (here {rows:?}) are dependent or zero, or B K^-1 B^T is singular",
        .order - 2
    )]
    SingularSystem {
        /// The time.
        t: f64,
        /// The rows `B_b` there.
        rows: Vec<Vec<f64>>,
        /// The order `m` of the constraints.
        order: usize,
    },
    /// A constraint of order `m` above 3 that is not linear in `q^(m)`
    /// ([`HigherOrderError::NotLinear`] at order 3).
    #[error(
        "`constraint[{constraint}]`: not linear in q^({order}) (d2 phi / dq^({order})_{j} \
         dq^({order})_{k} = {curvature:e}); a constraint of order {order} must be linear in its \
         top derivative"
    )]
    NotLinearOfOrder {
        /// The constraint.
        constraint: usize,
        /// Its order `m`.
        order: usize,
        /// The first coordinate of the second derivative found.
        j: usize,
        /// The second coordinate.
        k: usize,
        /// The second derivative in `q^(m)` found.
        curvature: f64,
    },
    /// A row `B_b = dphi_b/dq^(m)` that depends on a derivative between
    /// `q''` and `q^(m)`: the equations of motion would then be of third
    /// order or more in `q`, and their `(m-2)`-th time derivative would hold
    /// derivatives above `q^(m)`.
    #[error(
        "`constraint[{constraint}]`: its coefficient of q^({order}) depends on q^({derivative}) \
         (d2 phi / dq^({order})_{j} dq^({derivative})_{k} = {value:e}); the rows \
         B_b = dphi_b/dq^({order}) may depend on t, q, q' and q'' only"
    )]
    RowDependsOnHigher {
        /// The constraint.
        constraint: usize,
        /// Its order `m`.
        order: usize,
        /// The derivative `i` (`2 < i < m`) the row depends on.
        derivative: usize,
        /// The coordinate of `q^(m)`.
        j: usize,
        /// The coordinate of `q^(i)`.
        k: usize,
        /// The mixed second derivative found.
        value: f64,
    },
    /// An order of constraints outside 3 to [`crate::MAX_ORDER`]: lower
    /// orders are the QP's (Gauss's minimum), higher ones would need
    /// deeper dual numbers than the engine is built with.
    #[error(
        "order {order}: constraints of order 3 to {} are integrated here (those of order 2 and \
         below are Gauss's minimum, the QP of the rest of zwang)",
        crate::MAX_ORDER
    )]
    Order {
        /// The order asked for.
        order: usize,
    },
    /// Integration settings or a time span that cannot be used.
    #[error("settings: {0}")]
    Settings(String),
    /// The integrator stopped (step too small, too many rejections).
    #[error("the integration stopped at t = {t}: {what}")]
    Integration {
        /// Where.
        t: f64,
        /// Why.
        what: String,
    },
    /// The instant of a state could not be built (a mass that is not
    /// symmetric positive definite, say).
    #[error(transparent)]
    Instant(#[from] InstantError),
}
