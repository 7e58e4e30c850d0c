//! Why a step failed.

use std::fmt;

/// Why [`Integrator::reset`](crate::Integrator::reset),
/// [`step`](crate::Integrator::step),
/// [`step_exactly`](crate::Integrator::step_exactly) or
/// [`set_state`](crate::Integrator::set_state) failed. In every case the
/// integrator's state (time, state vector, derivative, previous step, dense
/// output and step-size suggestion) is left as it was before the call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepError<E> {
    /// The right-hand side returned this error.
    System(E),
    /// The step-size control asked for a step below
    /// [`Settings::h_min`](crate::Settings::h_min), or one too small to
    /// advance the time in floating point (`0.1 h <= eps |t|`).
    StepTooSmall {
        /// The time at which the step was to start.
        t: f64,
        /// The step that was asked for.
        h: f64,
    },
    /// More than [`Settings::max_rejections`](crate::Settings::max_rejections)
    /// attempts in a row were rejected by the error control.
    TooManyRejections {
        /// The time at which the step was to start.
        t: f64,
    },
    /// The right-hand side returned a NaN or an infinite value (or the
    /// state given to `reset`/`set_state` holds one).
    NonFinite {
        /// The time at which the step was to start (or the time of the
        /// state given to `reset`/`set_state`).
        t: f64,
    },
}

impl<E: fmt::Display> fmt::Display for StepError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::System(e) => write!(f, "the right-hand side failed: {e}"),
            StepError::StepTooSmall { t, h } => {
                write!(f, "step size {h:e} too small at t = {t}")
            }
            StepError::TooManyRejections { t } => {
                write!(f, "too many rejected steps in a row at t = {t}")
            }
            StepError::NonFinite { t } => {
                write!(f, "the right-hand side is not finite (step from t = {t})")
            }
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for StepError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StepError::System(e) => Some(e),
            _ => None,
        }
    }
}
