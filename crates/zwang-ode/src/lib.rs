//! The time integrator of zwang's event-driven simulator.
//!
//! Between events (impacts, contacts opening or closing, stick-slip
//! transitions) the motion is a smooth ODE `y' = f(t, y)` whose right-hand
//! side is an acceleration solve. This crate integrates it with the
//! embedded explicit Runge-Kutta pairs of Dormand and Prince, as in Hairer,
//! Norsett & Wanner, *Solving Ordinary Differential Equations I: Nonstiff
//! Problems* (2nd ed., Springer, 1993), and their codes DOPRI5 and DOP853:
//! adaptive step size with Hairer's control, first-same-as-last stages,
//! and a continuous extension (dense output) of every accepted step.
//!
//! Use it when the caller must see every step: [`Integrator::step`] makes
//! one accepted step and returns, so the caller can evaluate its event
//! functions, locate a sign change on [`Integrator::dense`] with
//! [`find_root`], [`undo`](Integrator::undo) the step and redo it up to the
//! event with [`step_exactly`](Integrator::step_exactly), apply the jump
//! and [`reset`](Integrator::reset). The integrator owns all its work
//! memory: nothing allocates after [`Integrator::new`]. It is for nonstiff
//! problems and runs forward in time.
//!
//! The default method is [`Method::Dop853`], the 8th-order pair with a
//! 7th-order dense output: the simulator needs tight tolerances (default
//! `rtol = 1e-9`, `atol = 1e-12`) so that energy drifts and event times
//! are accurate, and at such tolerances an 8th-order method takes several
//! times fewer steps (and right-hand-side evaluations) than a 5th-order
//! one. Its dense output costs three extra evaluations per accepted step;
//! they are computed eagerly, so [`Integrator::dense`] needs only `&self`.
//! [`Method::Dopri5`] is cheaper per step and its dense output is free;
//! choose it for loose tolerances.
//!
//! ```
//! use zwang_ode::{Integrator, OdeSystem, Settings};
//!
//! /// The harmonic oscillator x'' = -x as a first-order system.
//! struct Oscillator;
//! impl OdeSystem for Oscillator {
//!     type Error = std::convert::Infallible;
//!     fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), Self::Error> {
//!         dy[0] = y[1];
//!         dy[1] = -y[0];
//!         Ok(())
//!     }
//! }
//!
//! let mut sys = Oscillator;
//! let mut ode = Integrator::new(2, Settings::default());
//! ode.reset(&mut sys, 0.0, &[1.0, 0.0]).unwrap();
//! // Step to t = 3, and find where x(t) = cos t crosses zero on the way.
//! let mut crossing = None;
//! let mut x = [0.0; 2];
//! while ode.t() < 3.0 {
//!     ode.step(&mut sys, 3.0).unwrap();
//!     let (a, b) = (ode.t_prev(), ode.t());
//!     let (fa, fb) = (ode.y_prev()[0], ode.y()[0]);
//!     if crossing.is_none() && fa > 0.0 && fb <= 0.0 {
//!         let event = |t: f64| {
//!             ode.dense(t, &mut x);
//!             Ok::<f64, ()>(x[0])
//!         };
//!         crossing = Some(zwang_ode::find_root(event, a, b, fa, fb, 1e-12).unwrap());
//!     }
//! }
//! assert_eq!(ode.t(), 3.0);
//! assert!((ode.y()[0] - 3f64.cos()).abs() < 1e-9);
//! // The dense output is one order less accurate than the steps.
//! assert!((crossing.unwrap() - std::f64::consts::FRAC_PI_2).abs() < 1e-8);
//! ```

mod error;
mod integrator;
mod root;
mod tableau;

pub use error::StepError;
pub use integrator::{Integrator, Method, OdeSystem, Settings, Stats};
pub use root::find_root;
