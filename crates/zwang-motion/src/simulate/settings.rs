//! The stepper's settings: tolerances, limits and sampling, with their
//! defaults, and the check that turns settings a run cannot use into a
//! `failed` run instead of a panic.

/// The relative tolerances a run accepts.
pub const RTOL_RANGE: (f64, f64) = (1e-14, 1e-2);
/// The largest absolute tolerance a run accepts.
pub const ATOL_MAX: f64 = 1e-2;

/// Settings of the stepper: a plain struct with documented defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The integrator and its tolerances (default: DOP853, relative
    /// `1e-9`, absolute `1e-12`; the relative one within [`RTOL_RANGE`],
    /// the absolute one `> 0` and at most [`ATOL_MAX`]).
    pub ode: zwang_ode::Settings,
    /// Sampling of the trajectory for observers, s (`0`: duration / 1000).
    pub output_every: f64,
    /// Event times are located to this, s. Default `1e-12`.
    pub event_tolerance: f64,
    /// A contact whose gap is below this is touching, m. Default `1e-9`.
    pub touch_tolerance: f64,
    /// Impacts slower than this end in `rest` (the contact closes for
    /// good, `e = 0`): the cut-off of Zeno's accumulating bounces, m/s.
    /// Default `1e-6`.
    pub rest_speed: f64,
    /// Positions are projected back onto the joints and closed contacts
    /// when they are off by more than this, m. Default `1e-12`.
    pub drift_tolerance: f64,
    /// Accepted steps before the run fails. Default `10_000_000`.
    pub max_steps: usize,
    /// Events before the run fails (accumulating events that are not
    /// impacts). Default `1_000_000`.
    pub max_events: usize,
}

impl Settings {
    /// Why these settings cannot be used, if they cannot (a run with them
    /// ends `failed` with this reason, it does not panic).
    pub fn validate(&self) -> Result<(), String> {
        self.ode.validate()?;
        // Beyond these the events and projections, located and judged at
        // the integrator's accuracy, mean nothing: a relative tolerance of
        // 1e300 "finishes" a rocking block with 200 times its energy, one
        // of 1e-300 asks for steps below the time's resolution.
        let (rtol, atol) = (self.ode.rtol, self.ode.atol);
        if !(RTOL_RANGE.0..=RTOL_RANGE.1).contains(&rtol) {
            return Err(format!(
                "the relative tolerance must be within [{:e}, {:e}], found {rtol:e}",
                RTOL_RANGE.0, RTOL_RANGE.1
            ));
        }
        if !(atol > 0.0 && atol <= ATOL_MAX) {
            return Err(format!(
                "the absolute tolerance must be > 0 and <= {ATOL_MAX:e}, found {atol:e}"
            ));
        }
        let positive = [("event_tolerance", self.event_tolerance)];
        let non_negative = [
            ("touch_tolerance", self.touch_tolerance),
            ("rest_speed", self.rest_speed),
            ("drift_tolerance", self.drift_tolerance),
        ];
        for (name, x) in positive {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{name} must be finite and > 0, found {x}"));
            }
        }
        for (name, x) in non_negative {
            if !(x.is_finite() && x >= 0.0) {
                return Err(format!("{name} must be finite and >= 0, found {x}"));
            }
        }
        Ok(())
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ode: zwang_ode::Settings::default(),
            output_every: 0.0,
            event_tolerance: 1e-12,
            touch_tolerance: 1e-9,
            rest_speed: 1e-6,
            drift_tolerance: 1e-12,
            max_steps: 10_000_000,
            max_events: 1_000_000,
        }
    }
}
