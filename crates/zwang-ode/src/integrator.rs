//! The adaptive integrator: one accepted step per call.

use crate::error::StepError;
use crate::tableau::*;

/// The system `y' = f(t, y)`.
pub trait OdeSystem {
    /// What the right-hand side can fail with. Such an error aborts the
    /// step (the integrator's state is unchanged) and is returned to the
    /// caller as [`StepError::System`].
    type Error;

    /// Writes `f(t, y)` into `dy` (`y.len() == dy.len()` is the dimension
    /// the [`Integrator`] was made with). `dy` holds garbage on entry.
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), Self::Error>;
}

/// The embedded Runge-Kutta pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Dormand and Prince's 5(4) pair (DOPRI5): 6 evaluations per step,
    /// error estimate of order 4, 4th-order dense output at no extra cost.
    /// Cheaper per step; the better choice at loose tolerances (above about
    /// `1e-7`).
    Dopri5,
    /// Dormand and Prince's 8(5,3) pair (DOP853): 12 evaluations per step,
    /// error estimate combining the 5th- and 3rd-order estimates, and a
    /// 7th-order dense output that costs 3 more evaluations per accepted
    /// step. Far fewer steps at tight tolerances; the default.
    #[default]
    Dop853,
}

/// Tolerances and limits of the step-size control.
///
/// The local error of a step, component by component, is measured against
/// `atol + rtol * max(|y0_i|, |y1_i|)` (the state at both ends of the step)
/// and the root mean square of these ratios must not exceed 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The pair. Default [`Method::Dop853`].
    pub method: Method,
    /// Relative tolerance. Default `1e-9`.
    pub rtol: f64,
    /// Absolute tolerance. Default `1e-12`.
    pub atol: f64,
    /// Largest step. Default `f64::INFINITY`.
    pub h_max: f64,
    /// Smallest step the control may ask for: below it
    /// [`Integrator::step`] fails with [`StepError::StepTooSmall`]. Default
    /// `0.0` (only steps too small to advance the time fail). A step shortened
    /// to land on `t_end` never fails on this account.
    pub h_min: f64,
    /// The first step after the first [`Integrator::reset`]; `0.0` (the
    /// default) chooses it automatically with Hairer's starting-step
    /// heuristic (one more evaluation of `f`).
    pub initial_step: f64,
    /// How many rejections in a row one call of [`Integrator::step`]
    /// tolerates; one more fails with [`StepError::TooManyRejections`].
    /// Default 50.
    pub max_rejections: usize,
    /// Whether [`Integrator::dense`] interpolates to the method's order
    /// (DOPRI5: 4, DOP853: 7, which costs DOP853 three more evaluations
    /// per step). `false` gives a cubic Hermite interpolant from the ends
    /// of the step instead, for callers that seldom look inside a step.
    /// Default `true`.
    pub dense_output: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            method: Method::Dop853,
            rtol: 1e-9,
            atol: 1e-12,
            h_max: f64::INFINITY,
            h_min: 0.0,
            initial_step: 0.0,
            max_rejections: 50,
            dense_output: true,
        }
    }
}

impl Settings {
    /// Why these settings cannot be used, if they cannot: tolerances
    /// `>= 0` and not both 0, `0 <= h_min <= h_max`, `h_max > 0`, a finite
    /// `initial_step >= 0`. [`Integrator::new`] and
    /// [`Integrator::set_settings`] panic on such settings; a caller with
    /// settings from outside checks them here first.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rtol >= 0.0 && self.atol >= 0.0 && self.rtol + self.atol > 0.0) {
            return Err(format!(
                "rtol and atol must be >= 0, not both 0 (rtol {}, atol {})",
                self.rtol, self.atol
            ));
        }
        if !(self.h_max > 0.0 && self.h_min >= 0.0 && self.h_min <= self.h_max) {
            return Err(format!(
                "need 0 <= h_min <= h_max, h_max > 0 (h_min {}, h_max {})",
                self.h_min, self.h_max
            ));
        }
        if !(self.initial_step >= 0.0 && self.initial_step.is_finite()) {
            return Err(format!(
                "initial_step must be finite and >= 0 ({})",
                self.initial_step
            ));
        }
        Ok(())
    }

    fn check(&self) {
        if let Err(e) = self.validate() {
            panic!("zwang-ode: {e}");
        }
    }
}

/// Counters of work, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Evaluations of the right-hand side, all of them (failed calls,
    /// rejected steps, dense-output stages and the starting-step heuristic
    /// included).
    pub evaluations: usize,
    /// Accepted steps ([`Integrator::step`] and
    /// [`Integrator::step_exactly`]; undone steps stay counted).
    pub accepted: usize,
    /// Steps rejected by the error control.
    pub rejected: usize,
}

/// Hairer's controller constants of one method.
struct Control {
    /// Safety factor.
    safe: f64,
    /// The new step is at least `fac1` times the old one.
    fac1: f64,
    /// The new step is at most `fac2` times the old one.
    fac2: f64,
    /// Lund's stabilization (PI control) exponent.
    beta: f64,
    /// The order used by the starting-step heuristic.
    order: i32,
}

impl Control {
    fn of(method: Method) -> Control {
        match method {
            Method::Dopri5 => Control {
                safe: 0.9,
                fac1: 0.2,
                fac2: 10.0,
                beta: 0.04,
                order: 5,
            },
            Method::Dop853 => Control {
                safe: 0.9,
                fac1: 0.333,
                fac2: 6.0,
                beta: 0.0,
                order: 8,
            },
        }
    }

    /// The exponent of the error in the step-size factor.
    fn expo(&self, method: Method) -> f64 {
        match method {
            Method::Dopri5 => 0.2 - self.beta * 0.75,
            Method::Dop853 => 1.0 / 8.0 - self.beta * 0.2,
        }
    }
}

/// The stage counts of a method: main stages (the FSAL stage is the next
/// one) and all stages computed at an accepted step.
fn stages(method: Method) -> (usize, usize) {
    match method {
        Method::Dopri5 => (DOPRI5_STAGES, DOPRI5_STAGES + 1),
        Method::Dop853 => (DOP853_STAGES, DOP853_ALL_STAGES),
    }
}

fn stage_row(method: Method, s: usize) -> (f64, &'static [f64]) {
    match method {
        Method::Dopri5 => (DOPRI5_C[s], DOPRI5_A[s]),
        Method::Dop853 => (DOP853_C[s], DOP853_A[s]),
    }
}

/// Number of vectors of the dense output: `y0`, `y1`, `y1 - y0`, and 3
/// (DOPRI5) or 6 (DOP853) coefficient vectors.
const DENSE_VECTORS: usize = 9;

/// An embedded explicit Runge-Kutta integrator with adaptive step size and
/// dense output, stepped one accepted step at a time.
///
/// It owns all its work memory, sized once by [`Integrator::new`] for
/// either method: no call after `new` allocates.
///
/// The protocol of an event-driven caller:
///
/// 1. [`reset`](Integrator::reset) at the initial state (and again after
///    every jump of the state, e.g. an impact);
/// 2. [`step`](Integrator::step) towards a horizon `t_end`;
/// 3. evaluate the event functions at [`t`](Integrator::t) and, on a sign
///    change, locate the event on [`dense`](Integrator::dense) with
///    [`find_root`](crate::find_root);
/// 4. [`undo`](Integrator::undo) the step and redo it up to the event with
///    [`step_exactly`](Integrator::step_exactly); apply the jump; `reset`.
///
/// Integration runs forward in time only.
#[derive(Clone, Debug)]
pub struct Integrator {
    dim: usize,
    settings: Settings,
    started: bool,
    t: f64,
    y: Vec<f64>,
    dy: Vec<f64>,
    t_prev: f64,
    y_prev: Vec<f64>,
    dy_prev: Vec<f64>,
    /// The suggestion for the next step, `0.0` for none yet.
    h: f64,
    /// The previous accepted error (Lund stabilization).
    facold: f64,
    /// Stage derivatives, `DOP853_ALL_STAGES` vectors of `dim`.
    k: Vec<f64>,
    /// Stage input, then scratch.
    y_stage: Vec<f64>,
    /// The solution at the end of the step being tried.
    y_new: Vec<f64>,
    dense: Dense,
    stats: Stats,
}

/// The continuous extension of the last accepted step.
#[derive(Clone, Debug)]
struct Dense {
    method: Method,
    t0: f64,
    t1: f64,
    /// `t1 - t0`; `0.0` for the empty step after `reset` or `undo`.
    h: f64,
    /// `DENSE_VECTORS` vectors of `dim`: `y0`, `y1`, `y1 - y0`, then the
    /// coefficients of Hairer's form.
    coef: Vec<f64>,
}

impl Integrator {
    /// Allocates the work memory for a system of dimension `dim`.
    ///
    /// # Panics
    ///
    /// If the settings are invalid (negative tolerances or both zero,
    /// `h_max <= 0`, `h_min > h_max`, a negative `initial_step`).
    pub fn new(dim: usize, settings: Settings) -> Self {
        settings.check();
        Integrator {
            dim,
            settings,
            started: false,
            t: 0.0,
            y: vec![0.0; dim],
            dy: vec![0.0; dim],
            t_prev: 0.0,
            y_prev: vec![0.0; dim],
            dy_prev: vec![0.0; dim],
            h: 0.0,
            facold: 1e-4,
            k: vec![0.0; DOP853_ALL_STAGES * dim],
            y_stage: vec![0.0; dim],
            y_new: vec![0.0; dim],
            dense: Dense {
                method: settings.method,
                t0: 0.0,
                t1: 0.0,
                h: 0.0,
                coef: vec![0.0; DENSE_VECTORS * dim],
            },
            stats: Stats::default(),
        }
    }

    /// The dimension of the system.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Replaces the settings; they apply from the next step on (the method
    /// too: the dense output of the last step keeps the method it was
    /// computed with).
    ///
    /// # Panics
    ///
    /// If the settings are invalid, as in [`Integrator::new`].
    pub fn set_settings(&mut self, settings: Settings) {
        settings.check();
        self.settings = settings;
    }

    /// Starts, or restarts after a jump of the state (an impact), at
    /// `(t0, y0)`: evaluates `f(t0, y0)` once. The step-size suggestion is
    /// kept if there is one (the scale of the motion rarely changes at a
    /// jump); otherwise [`Settings::initial_step`] is taken, or the first
    /// [`step`](Integrator::step) chooses one. The previous step becomes
    /// the empty step at `t0`, so [`undo`](Integrator::undo) does nothing
    /// and [`dense`](Integrator::dense) gives `y0`.
    ///
    /// # Panics
    ///
    /// If `y0.len()` is not the dimension.
    pub fn reset<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        t0: f64,
        y0: &[f64],
    ) -> Result<(), StepError<S::Error>> {
        assert_eq!(
            y0.len(),
            self.dim,
            "zwang-ode: reset with a state of the wrong length"
        );
        if !t0.is_finite() || !all_finite(y0) {
            return Err(StepError::NonFinite { t: t0 });
        }
        let n = self.dim;
        let f0 = &mut self.k[..n];
        self.stats.evaluations += 1;
        sys.rhs(t0, y0, f0).map_err(StepError::System)?;
        if !all_finite(f0) {
            return Err(StepError::NonFinite { t: t0 });
        }
        self.dy.copy_from_slice(f0);
        self.dy_prev.copy_from_slice(f0);
        self.y.copy_from_slice(y0);
        self.y_prev.copy_from_slice(y0);
        self.t = t0;
        self.t_prev = t0;
        self.facold = 1e-4;
        if self.h == 0.0 {
            self.h = self.settings.initial_step;
        }
        self.started = true;
        self.empty_dense();
        Ok(())
    }

    /// One accepted adaptive step towards `t_end` that does not pass it.
    /// When `t_end` is within 1.01 suggested steps, the step lands on it
    /// exactly (the returned time is then `t_end` itself, bit for bit).
    /// Returns the new time.
    ///
    /// The control is Hairer's, as in DOPRI5 and DOP853: an attempt is
    /// rejected while its error norm `err` exceeds 1; the next step is
    /// `h / clamp(err^expo / err_prev^beta / safe, 1/fac2, 1/fac1)` with
    /// `expo = 1/5 - 0.75 beta`, `safe = 0.9`, `fac1 = 0.2`, `fac2 = 10`,
    /// `beta = 0.04` for DOPRI5 and `expo = 1/8`, `safe = 0.9`,
    /// `fac1 = 0.333`, `fac2 = 6`, `beta = 0` for DOP853; after a rejection
    /// `h / min(1/fac1, err^expo / safe)`, and no growth on the step that
    /// follows it. One addition for event-driven use: when the step was
    /// shortened to land on `t_end`, the suggestion for the next step is
    /// not smaller than the step that was shortened, so stopping at a
    /// horizon does not slow the motion after it. (DOPRI5's stiffness
    /// detection is not included.)
    ///
    /// On `Err` the state is unchanged (the rejections and evaluations stay
    /// counted in [`stats`](Integrator::stats)).
    ///
    /// # Panics
    ///
    /// Before the first [`reset`](Integrator::reset), or if `t_end` is not
    /// after the current time (NaN included).
    pub fn step<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        t_end: f64,
    ) -> Result<f64, StepError<S::Error>> {
        assert!(self.started, "zwang-ode: step before reset");
        assert!(
            t_end > self.t,
            "zwang-ode: step to t_end = {t_end}, not after t = {}",
            self.t
        );
        let method = self.settings.method;
        let control = Control::of(method);
        let expo = control.expo(method);
        let mut h = if self.h > 0.0 {
            self.h
        } else {
            self.starting_step(sys, &control)?
        };
        let mut rejected = false;
        let mut rejections = 0;
        loop {
            let h_try = h.min(self.settings.h_max);
            if h_try < self.settings.h_min || 0.1 * h_try <= self.t.abs() * f64::EPSILON {
                return Err(StepError::StepTooSmall {
                    t: self.t,
                    h: h_try,
                });
            }
            let clipped = self.t + 1.01 * h_try >= t_end;
            let t_new = if clipped { t_end } else { self.t + h_try };
            let h_step = t_new - self.t;
            let err = self.attempt(sys, method, h_step, t_new)?;
            if err.is_nan() {
                return Err(StepError::NonFinite { t: self.t });
            }
            let fac11 = err.powf(expo);
            if err <= 1.0 {
                let fac = (fac11 / self.facold.powf(control.beta) / control.safe)
                    .clamp(1.0 / control.fac2, 1.0 / control.fac1);
                let mut h_new = h_step / fac;
                if clipped {
                    h_new = h_new.max(h_try);
                }
                if rejected {
                    h_new = h_new.min(h_try);
                }
                self.finish_dense(sys, method, h_step)?;
                self.facold = err.max(1e-4);
                self.h = h_new;
                self.accept(method, t_new);
                return Ok(t_new);
            }
            self.stats.rejected += 1;
            rejected = true;
            rejections += 1;
            if rejections > self.settings.max_rejections {
                return Err(StepError::TooManyRejections { t: self.t });
            }
            h = h_step / (fac11 / control.safe).min(1.0 / control.fac1);
        }
    }

    /// One step of exactly `h` from the current state (to `t + h`),
    /// accepted without error control: used to redo a step up to a located
    /// event time after [`undo`](Integrator::undo). Returns the new time
    /// `t + h`. The step-size suggestion is not changed, and neither
    /// [`Settings::h_min`] nor [`Settings::h_max`] applies.
    ///
    /// On `Err` the state is unchanged; [`StepError::StepTooSmall`] when
    /// `t + h == t` in floating point (`h == 0` included: an event located
    /// at the very start of the step needs no step).
    ///
    /// # Panics
    ///
    /// Before the first [`reset`](Integrator::reset), or unless `h >= 0` is
    /// finite.
    pub fn step_exactly<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        h: f64,
    ) -> Result<f64, StepError<S::Error>> {
        assert!(self.started, "zwang-ode: step_exactly before reset");
        assert!(
            h >= 0.0 && h.is_finite(),
            "zwang-ode: step_exactly needs a finite h >= 0, got {h}"
        );
        let t_new = self.t + h;
        let h_step = t_new - self.t;
        if h_step <= 0.0 {
            return Err(StepError::StepTooSmall { t: self.t, h });
        }
        let method = self.settings.method;
        let err = self.attempt(sys, method, h_step, t_new)?;
        if err.is_nan() {
            return Err(StepError::NonFinite { t: self.t });
        }
        self.finish_dense(sys, method, h_step)?;
        self.accept(method, t_new);
        Ok(t_new)
    }

    /// Undoes the last accepted step: back to
    /// [`t_prev`](Integrator::t_prev), [`y_prev`](Integrator::y_prev) (and
    /// the derivative there), so that the caller can redo it with
    /// [`step_exactly`](Integrator::step_exactly). One level only: the
    /// previous step becomes the empty step at the restored time, and a
    /// second `undo` does nothing. The step-size suggestion is kept.
    pub fn undo(&mut self) {
        if !self.started {
            return;
        }
        self.t = self.t_prev;
        std::mem::swap(&mut self.y, &mut self.y_prev);
        self.y_prev.copy_from_slice(&self.y);
        std::mem::swap(&mut self.dy, &mut self.dy_prev);
        self.dy_prev.copy_from_slice(&self.dy);
        self.empty_dense();
    }

    /// Replaces the current state in place at the same time (after a
    /// projection onto the constraint manifold, say) and evaluates
    /// `f(t, y)` for it (the FSAL stage of the next step). The previous
    /// state and the dense output of the last step are kept: `undo` still
    /// returns to the state before the step, and `dense` still describes
    /// the step as computed (so it no longer ends at [`y`](Integrator::y)).
    ///
    /// On `Err` the state is unchanged.
    ///
    /// # Panics
    ///
    /// Before the first [`reset`](Integrator::reset), or if `y.len()` is not
    /// the dimension.
    pub fn set_state<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        y: &[f64],
    ) -> Result<(), StepError<S::Error>> {
        assert!(self.started, "zwang-ode: set_state before reset");
        assert_eq!(
            y.len(),
            self.dim,
            "zwang-ode: set_state with a state of the wrong length"
        );
        if !all_finite(y) {
            return Err(StepError::NonFinite { t: self.t });
        }
        let n = self.dim;
        let f = &mut self.k[..n];
        self.stats.evaluations += 1;
        sys.rhs(self.t, y, f).map_err(StepError::System)?;
        if !all_finite(f) {
            return Err(StepError::NonFinite { t: self.t });
        }
        self.dy.copy_from_slice(f);
        self.y.copy_from_slice(y);
        Ok(())
    }

    /// The current time.
    pub fn t(&self) -> f64 {
        self.t
    }

    /// The current state.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The time at the start of the last accepted step (the current time
    /// after `reset` or `undo`).
    pub fn t_prev(&self) -> f64 {
        self.t_prev
    }

    /// The state at the start of the last accepted step.
    pub fn y_prev(&self) -> &[f64] {
        &self.y_prev
    }

    /// `f(t, y)` at the current time and state.
    pub fn dy(&self) -> &[f64] {
        &self.dy
    }

    /// The suggestion for the next step (`0.0` until the first step when
    /// it is chosen automatically).
    pub fn step_size(&self) -> f64 {
        self.h
    }

    /// Overrides the suggestion for the next step; `0.0` asks the next
    /// [`step`](Integrator::step) to choose one with the starting-step
    /// heuristic.
    ///
    /// # Panics
    ///
    /// Unless `h >= 0` is finite.
    pub fn set_step_size(&mut self, h: f64) {
        assert!(
            h >= 0.0 && h.is_finite(),
            "zwang-ode: step size must be finite and >= 0, got {h}"
        );
        self.h = h;
    }

    /// The dense output of the last accepted step: `y(t)` for `t` in
    /// `[t_prev, t]`, written to `out`. A 4th-order continuous extension
    /// for DOPRI5, a 7th-order one for DOP853 (its three extra stages are
    /// computed at every accepted step, so this needs no `&mut` and no
    /// system). At `t_prev` and at the step's end it returns the states
    /// there exactly. Outside the step it extrapolates, less accurately.
    ///
    /// The interpolant is one order below the step, so inside the step it
    /// is less accurate than the steps themselves: on the oscillator at
    /// `rtol = 1e-9` its local error reaches about `2 rtol` for DOP853
    /// (whose steps are long) and `0.1 rtol` for DOPRI5. Event times found
    /// on it carry that error.
    /// After `reset` or `undo` the last step is empty and this gives the
    /// current state.
    ///
    /// # Panics
    ///
    /// If `out.len()` is not the dimension.
    pub fn dense(&self, t: f64, out: &mut [f64]) {
        assert_eq!(
            out.len(),
            self.dim,
            "zwang-ode: dense into a buffer of the wrong length"
        );
        let n = self.dim;
        let d = &self.dense;
        let c = |v: usize| &d.coef[v * n..(v + 1) * n];
        if d.h == 0.0 {
            out.copy_from_slice(c(0));
            return;
        }
        let s = (t - d.t0) / d.h;
        let s1 = 1.0 - s;
        // y0 + s (y1 - y0) + s s1 P(s), written from the nearer end (as
        // y1 - s1 (y1 - y0) + ... past the middle), so that the rounding
        // near either end is that of the state there.
        let (base, w) = if s <= 0.5 { (c(0), s) } else { (c(1), -s1) };
        let ydiff = c(2);
        match d.method {
            Method::Dopri5 => {
                let (r3, r4, r5) = (c(3), c(4), c(5));
                for i in 0..n {
                    let p = r3[i] + s * (r4[i] + s1 * r5[i]);
                    out[i] = base[i] + w * ydiff[i] + s * s1 * p;
                }
            }
            Method::Dop853 => {
                let (r3, r4) = (c(3), c(4));
                let (r5, r6, r7, r8) = (c(5), c(6), c(7), c(8));
                for i in 0..n {
                    let conpar = r5[i] + s * (r6[i] + s1 * (r7[i] + s * r8[i]));
                    let p = r3[i] + s * (r4[i] + s1 * conpar);
                    out[i] = base[i] + w * ydiff[i] + s * s1 * p;
                }
            }
        }
    }

    /// The time at which the dense output of the last step ends (the
    /// current time, unless [`set_state`](Integrator::set_state) or
    /// `undo` intervened).
    pub fn dense_end(&self) -> f64 {
        self.dense.t1
    }

    /// Counters of work so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    // ---- internals ----

    /// Hairer's starting step (HINIT of DOPRI5 and DOP853): with
    /// `sk = atol + rtol |y0|`, a first guess `0.01 ||y0|| / ||f0||`, one
    /// explicit Euler step to estimate the second derivative, and the step
    /// for which `h^order max(||f0||, ||f'||) = 0.01`. Costs one
    /// evaluation; changes nothing but the counter.
    fn starting_step<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        control: &Control,
    ) -> Result<f64, StepError<S::Error>> {
        let n = self.dim;
        let (rtol, atol, h_max) = (self.settings.rtol, self.settings.atol, self.settings.h_max);
        let (mut dnf, mut dny) = (0.0, 0.0);
        for i in 0..n {
            let sk = atol + rtol * self.y[i].abs();
            dnf += (self.dy[i] / sk).powi(2);
            dny += (self.y[i] / sk).powi(2);
        }
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
            1e-6
        } else {
            (dny / dnf).sqrt() * 0.01
        };
        h = h.min(h_max);
        for i in 0..n {
            self.y_stage[i] = self.y[i] + h * self.dy[i];
        }
        let f1 = &mut self.k[n..2 * n];
        self.stats.evaluations += 1;
        sys.rhs(self.t + h, &self.y_stage, f1)
            .map_err(StepError::System)?;
        if !all_finite(f1) {
            return Err(StepError::NonFinite { t: self.t });
        }
        let mut der2 = 0.0;
        for i in 0..n {
            let sk = atol + rtol * self.y[i].abs();
            der2 += ((f1[i] - self.dy[i]) / sk).powi(2);
        }
        let der2 = der2.sqrt() / h;
        let der12 = der2.abs().max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 {
            1e-6_f64.max(h * 1e-3)
        } else {
            (0.01 / der12).powf(1.0 / f64::from(control.order))
        };
        Ok((100.0 * h).min(h1).min(h_max))
    }

    /// Computes the main stages and the FSAL stage of a step of `h` from
    /// `(t, y)` to `t_new` into `k` and `y_new`, and returns the error norm
    /// (for DOP853, Hairer's combination of the 5th- and 3rd-order
    /// estimates). Touches only the work memory.
    fn attempt<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        method: Method,
        h: f64,
        t_new: f64,
    ) -> Result<f64, StepError<S::Error>> {
        let n = self.dim;
        let (main, _) = stages(method);
        self.k[..n].copy_from_slice(&self.dy);
        for s in 1..main {
            let (c, a) = stage_row(method, s);
            self.eval_stage(sys, a, self.t + c * h, h, s)?;
        }
        // The propagated solution and its derivative (FSAL).
        let (_, b) = stage_row(method, main);
        combine(&self.y, &self.k, b, h, n, &mut self.y_new);
        let f = &mut self.k[main * n..(main + 1) * n];
        self.stats.evaluations += 1;
        sys.rhs(t_new, &self.y_new, f).map_err(StepError::System)?;
        if !all_finite(f) {
            return Err(StepError::NonFinite { t: self.t });
        }
        let (rtol, atol) = (self.settings.rtol, self.settings.atol);
        let scale = |i: usize| atol + rtol * self.y[i].abs().max(self.y_new[i].abs());
        let k = |j: usize, i: usize| self.k[j * n + i];
        if n == 0 {
            return Ok(0.0);
        }
        let err = match method {
            Method::Dopri5 => {
                let mut sum = 0.0;
                for i in 0..n {
                    let mut e = 0.0;
                    for (j, &ej) in DOPRI5_E.iter().enumerate() {
                        e += ej * k(j, i);
                    }
                    sum += (h * e / scale(i)).powi(2);
                }
                (sum / n as f64).sqrt()
            }
            Method::Dop853 => {
                let (mut err5, mut err3) = (0.0, 0.0);
                for i in 0..n {
                    let sk = scale(i);
                    let mut bsum = 0.0;
                    let mut e5 = 0.0;
                    for j in 0..main {
                        bsum += b[j] * k(j, i);
                        e5 += DOP853_E5[j] * k(j, i);
                    }
                    let e3 = bsum
                        - DOP853_BHH[0] * k(0, i)
                        - DOP853_BHH[1] * k(8, i)
                        - DOP853_BHH[2] * k(11, i);
                    err3 += (e3 / sk).powi(2);
                    err5 += (e5 / sk).powi(2);
                }
                let mut deno = err5 + 0.01 * err3;
                if deno <= 0.0 {
                    deno = 1.0;
                }
                h.abs() * err5 * (1.0 / (n as f64 * deno)).sqrt()
            }
        };
        Ok(err)
    }

    /// Stage `s`: `k_s = f(t_s, y + h sum_j a_j k_j)`.
    fn eval_stage<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        a: &[f64],
        t_s: f64,
        h: f64,
        s: usize,
    ) -> Result<(), StepError<S::Error>> {
        let n = self.dim;
        let (done, rest) = self.k.split_at_mut(s * n);
        combine(&self.y, done, a, h, n, &mut self.y_stage);
        let f = &mut rest[..n];
        self.stats.evaluations += 1;
        sys.rhs(t_s, &self.y_stage, f).map_err(StepError::System)?;
        if !all_finite(f) {
            return Err(StepError::NonFinite { t: self.t });
        }
        Ok(())
    }

    /// Evaluates DOP853's three dense-output stages (nothing for DOPRI5)
    /// and then writes the coefficients of the continuous extension of the
    /// step just computed into `dense.coef`. On `Err` (in an evaluation)
    /// nothing but the stage memory was written.
    fn finish_dense<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        method: Method,
        h: f64,
    ) -> Result<(), StepError<S::Error>> {
        let n = self.dim;
        let (main, all) = stages(method);
        if self.settings.dense_output {
            for s in main + 1..all {
                let (c, a) = stage_row(method, s);
                self.eval_stage(sys, a, self.t + c * h, h, s)?;
            }
        }
        let k = &self.k;
        let coef = &mut self.dense.coef;
        let kv = |j: usize| &k[j * n..(j + 1) * n];
        let (k0, kf) = (kv(0), kv(main));
        let (y0, y1) = (&self.y, &self.y_new);
        for i in 0..n {
            let ydiff = y1[i] - y0[i];
            let bspl = h * k0[i] - ydiff;
            coef[i] = y0[i];
            coef[n + i] = y1[i];
            coef[2 * n + i] = ydiff;
            coef[3 * n + i] = bspl;
            coef[4 * n + i] = ydiff - h * kf[i] - bspl;
        }
        if !self.settings.dense_output {
            // The cubic Hermite interpolant: DOPRI5's form without its
            // fifth coefficient.
            coef[5 * n..6 * n].fill(0.0);
            return Ok(());
        }
        match method {
            Method::Dopri5 => {
                for i in 0..n {
                    let mut r = 0.0;
                    for (j, &dj) in DOPRI5_D.iter().enumerate() {
                        r += dj * k[j * n + i];
                    }
                    coef[5 * n + i] = h * r;
                }
            }
            Method::Dop853 => {
                for (row, d) in DOP853_D.iter().enumerate() {
                    for i in 0..n {
                        let mut r = 0.0;
                        for (j, &dj) in d.iter().enumerate() {
                            r += dj * k[j * n + i];
                        }
                        coef[(5 + row) * n + i] = h * r;
                    }
                }
            }
        }
        Ok(())
    }

    /// Makes the step just computed (ending at `t_new` with `y_new` and the
    /// FSAL stage) the current state.
    fn accept(&mut self, method: Method, t_new: f64) {
        let n = self.dim;
        let (main, _) = stages(method);
        std::mem::swap(&mut self.y_prev, &mut self.y);
        std::mem::swap(&mut self.y, &mut self.y_new);
        std::mem::swap(&mut self.dy_prev, &mut self.dy);
        self.dy.copy_from_slice(&self.k[main * n..(main + 1) * n]);
        self.dense.method = if self.settings.dense_output {
            method
        } else {
            Method::Dopri5
        };
        self.dense.t0 = self.t;
        self.dense.t1 = t_new;
        self.dense.h = t_new - self.t;
        self.t_prev = self.t;
        self.t = t_new;
        self.stats.accepted += 1;
    }

    /// The empty step at the current state.
    fn empty_dense(&mut self) {
        let n = self.dim;
        self.dense.coef[..n].copy_from_slice(&self.y);
        self.dense.t0 = self.t;
        self.dense.t1 = self.t;
        self.dense.h = 0.0;
    }
}

/// `out = y + h * sum_j a_j k_j`, component by component (the sum first,
/// then one multiplication by `h`, as in Hairer's codes).
fn combine(y: &[f64], k: &[f64], a: &[f64], h: f64, n: usize, out: &mut [f64]) {
    for i in 0..n {
        let mut acc = 0.0;
        for (j, &aj) in a.iter().enumerate() {
            if aj != 0.0 {
                acc += aj * k[j * n + i];
            }
        }
        out[i] = y[i] + h * acc;
    }
}

fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}
