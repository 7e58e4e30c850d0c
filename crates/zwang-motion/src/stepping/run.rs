//! The run of a velocity-level time stepper, once for every model: steps
//! of `time_step` to a duration (the last one ending on it), samples on
//! the motion within the steps, a failed step ending the run with its
//! reason, and the outcome read off the stepper's totals.

use std::time::Instant as Clock;

use super::{step, Stages, StepError, StepSettings};
use crate::simulate::{Observer, Outcome};
use zwang_model::{ContactState, Mechanism};

/// Two times closer than this fraction of a step are one.
const SAME_TIME: f64 = 1e-9;

/// Runs a stepper to `duration` from `model`'s initial state, its
/// contact points open: `make` makes the stepper (which may move the
/// start). A setting out of range, or a stepper that cannot start, ends
/// the run unstarted with the reason; a step that fails ends it as
/// failed.
pub(crate) fn run<M: Mechanism, S: Stages>(
    model: &M,
    duration: f64,
    settings: &StepSettings,
    make: impl FnOnce() -> Result<S, StepError>,
    observer: &mut dyn Observer,
) -> Outcome {
    let (mut q0, mut v0) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    model.initial_state(&mut q0, &mut v0);
    let modes = vec![ContactState::OPEN; model.contacts()];
    let energy = |q: &[f64], v: &[f64]| model.energy(0.0, q, v);
    run_keeping((q0, v0), modes, energy, duration, settings, make, observer).0
}

/// [`run`] from `start` (the model's initial state), `modes` the contact
/// points' modes before any step, `energy` the model's; keeping the
/// stepper (`None` when the run did not start) for what its model
/// reports beyond the outcome.
pub(crate) fn run_keeping<S: Stages>(
    start: (Vec<f64>, Vec<f64>),
    modes: Vec<ContactState>,
    energy: impl Fn(&[f64], &[f64]) -> f64,
    duration: f64,
    settings: &StepSettings,
    make: impl FnOnce() -> Result<S, StepError>,
    observer: &mut dyn Observer,
) -> (Outcome, Option<S>) {
    let wall = Clock::now();
    let (mut q0, mut v0) = start;
    let e0 = energy(&q0, &v0);
    if let Err(reason) = settings.validate(duration) {
        return (Outcome::unstarted(reason, q0, v0, modes, e0), None);
    }
    let mut stepper = match make() {
        Ok(s) => s,
        Err(e) => return (Outcome::unstarted(e.to_string(), q0, v0, modes, e0), None),
    };
    // The start as the stepper holds it (moved apart, onto its joints).
    q0.copy_from_slice(&stepper.core().q);
    v0.copy_from_slice(&stepper.core().v);
    let e0 = stepper.energy(0.0, &q0, &v0);
    let h = settings.time_step;
    let wants = observer.wants_samples();
    let mut samples = Vec::new();
    if wants {
        stepper.contact_samples(h, &mut samples);
        observer.sample(0.0, &q0, &v0, &samples);
    }
    let mut q_at = q0.clone();
    let mut q_before = q0;
    let mut next_sample = 1usize;
    let mut reason = None;
    loop {
        let (t_before, q) = (stepper.core().t, &stepper.core().q);
        if t_before >= duration {
            break;
        }
        // The last step ends on `duration` (no sliver of a step after it).
        let left = duration - t_before;
        let h_step = if left < 1.5 * h { left } else { h };
        q_before.copy_from_slice(q);
        if let Err(e) = step(&mut stepper, h_step) {
            reason = Some(format!("at t = {t_before}: {e}"));
            break;
        }
        let (t, v) = (stepper.core().t, &stepper.core().v);
        if wants {
            // Samples within the step lie on `q (+) s v+`; one at the
            // step's end that the sum of the steps passes by round-off is
            // this step's too (taken at the next, it paired this step's
            // position with the next step's velocity).
            loop {
                let ts = next_sample as f64 * settings.output_every;
                if ts > t + SAME_TIME * h_step || ts > duration {
                    break;
                }
                q_at.copy_from_slice(&q_before);
                stepper.advance(v, ts - t_before, &mut q_at);
                stepper.contact_samples(h_step, &mut samples);
                observer.sample(ts, &q_at, v, &samples);
                next_sample += 1;
            }
        }
        observer.progress(t, duration);
    }
    let core = stepper.core();
    let (t, q, v) = (core.t, &core.q[..], &core.v[..]);
    if wants && reason.is_none() {
        let last = (next_sample - 1) as f64 * settings.output_every;
        if last < t {
            stepper.contact_samples(h, &mut samples);
            observer.sample(t, q, v, &samples);
        }
    }
    // The contact points' modes over the last step.
    let mut modes = modes;
    stepper.contact_samples(h, &mut samples);
    for (m, s) in modes.iter_mut().zip(&samples) {
        m.mode = s.mode;
    }
    let wall_time = wall.elapsed();
    let energy_final = stepper.energy(t, q, v);
    let mut outcome = core
        .totals
        .outcome(reason, (t, q, v), modes, e0, energy_final, wall_time);
    outcome.start_projection = stepper.core_mut().start_projection.take();
    (outcome, Some(stepper))
}
