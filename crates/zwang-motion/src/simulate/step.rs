//! One step of the integrator: taken, its switching functions compared at
//! both ends, cut at its first event (handled on the next tick, while the
//! step's dense output still covers it), and accepted as the run's state
//! with its samples; and the restart after an event.

use super::switching::state_only;
use super::{Observer, Run, Stop};
use crate::dynamics::DynamicsError;
use zwang_model::Mechanism;
use zwang_ode::StepError;

impl<'m, M: Mechanism> Run<'m, M> {
    /// Restarts the integrator at the current state, and takes the
    /// switching functions there.
    pub(super) fn restart(&mut self) -> Result<(), Stop> {
        let t = self.t;
        let y = std::mem::take(&mut self.y);
        let d = self.dynamics.as_mut().expect("built in start");
        let result = self.integrator.reset(d, t, &y);
        self.y = y;
        match result {
            Ok(()) => {}
            Err(StepError::System(e)) => return Err(e.into()),
            Err(e) => return Err(Stop::Failed(format!("the integrator could not start: {e}"))),
        }
        self.phi = self.switching(t)?;
        Ok(())
    }

    /// One accepted step, cut at its first event; or, when the last step
    /// was cut so, the handling of that event.
    pub(super) fn advance(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        if let Some(together) = self.pending.take() {
            return self.handle(&together, observer);
        }
        let d = self.dynamics.as_mut().expect("built in start");
        let t_prev = self.t;
        match self.integrator.step(d, self.duration) {
            Ok(_) => {}
            Err(StepError::System(DynamicsError::Painleve { inconsistent })) => {
                return self.painleve_ahead(inconsistent, observer);
            }
            Err(StepError::System(e)) => return Err(e.into()),
            // The step cannot get on while a contact slides with friction:
            // the contact force grows without bound as the contact problem
            // loses its answer (Painleve's inconsistent case, approached
            // along the motion).
            Err(StepError::StepTooSmall { h, .. }) if self.sliding_with_friction() => {
                return self.collapse(h, observer);
            }
            Err(StepError::TooManyRejections { .. }) if self.sliding_with_friction() => {
                let h = self.integrator.step_size();
                return self.collapse(h, observer);
            }
            Err(e) => return Err(Stop::Failed(e.to_string())),
        }
        let t_new = self.integrator.t();
        self.scratch.copy_from_slice(self.integrator.y());
        let end = std::mem::take(&mut self.scratch);
        let mut phi_end = std::mem::take(&mut self.phi_end);
        let result = self.switching_at(t_new, &end, &mut phi_end);
        self.scratch = end;
        match result {
            Ok(()) => {}
            Err(DynamicsError::Painleve { inconsistent }) => {
                self.integrator.undo();
                return self.painleve_ahead(inconsistent, observer);
            }
            Err(e) => return Err(e.into()),
        };
        // The earliest crossing. Functions of the state alone (gaps,
        // sliding velocities) are also looked at inside the step, so that
        // a bounce or a stop between its ends is not missed; the others
        // cost a solve and are compared at the ends.
        let mut first: Option<(f64, usize, usize)> = None;
        let mut roots: Vec<(f64, usize, usize)> = Vec::new();
        for k in 0..self.model.contacts() {
            for f in 0..2 {
                let (a, b) = (self.phi[k][f], phi_end[k][f]);
                if a.is_nan() || b.is_nan() {
                    continue;
                }
                let found = if state_only(f, self.modes[k]) {
                    self.scan(k, f, t_prev, t_new, a, b)?
                } else if a >= 0.0 && b < 0.0 {
                    Some(if a == 0.0 {
                        t_prev
                    } else {
                        self.locate(k, f, t_prev, t_new, a, b)?
                    })
                } else {
                    None
                };
                if let Some(root) = found {
                    roots.push((root, k, f));
                    if first.is_none_or(|(t, _, _)| root < t) {
                        first = Some((root, k, f));
                    }
                }
            }
        }
        let Some((t_event, _, _)) = first else {
            self.accept(t_new, observer)?;
            self.phi_end = std::mem::replace(&mut self.phi, phi_end);
            // The projection changed the state: restart the derivative.
            return Ok(());
        };
        // Redo the step up to the event.
        self.integrator.undo();
        if t_event > t_prev {
            let d = self.dynamics.as_mut().expect("built in start");
            match self.integrator.step_exactly(d, t_event - t_prev) {
                Ok(_) => {}
                Err(StepError::System(DynamicsError::Painleve { inconsistent })) => {
                    return self.painleve_ahead(inconsistent, observer);
                }
                Err(StepError::System(e)) => return Err(e.into()),
                Err(e) => return Err(Stop::Failed(e.to_string())),
            }
            self.accept(t_event, observer)?;
        }
        // Every crossing at the same time is one event (a symmetric block
        // whose two corners stop together sticks at both at once).
        let tol = 4.0 * self.settings.event_tolerance;
        let together: Vec<(usize, usize)> = roots
            .iter()
            .filter(|(t, _, _)| *t <= t_event + tol)
            .map(|&(_, k, f)| (k, f))
            .collect();
        self.pending = Some(together);
        Ok(())
    }

    /// Takes the integrator's step to `t_new` as the run's state: samples
    /// inside it (after the last one taken), drift check and projection.
    fn accept(&mut self, t_new: f64, observer: &mut dyn Observer) -> Result<(), Stop> {
        self.steps += 1;
        // Samples in (t_prev, t_new], when someone wants them (a tiny
        // output_every is then no loop over sample times).
        let last = (self.duration / self.output_every).round() as usize;
        while self.next_sample <= last && observer.wants_samples() {
            let ts = if self.next_sample == last {
                self.duration
            } else {
                self.next_sample as f64 * self.output_every
            };
            if ts > t_new {
                break;
            }
            let mut y = std::mem::take(&mut self.scratch);
            self.integrator.dense(ts, &mut y);
            let r = self.sample_at(observer, ts, &y);
            self.scratch = y;
            r?;
            self.next_sample += 1;
        }
        self.t = t_new;
        self.y.copy_from_slice(self.integrator.y());
        if self.project(false)? {
            let d = self.dynamics.as_mut().expect("built in start");
            let y = std::mem::take(&mut self.y);
            let r = self.integrator.set_state(d, &y);
            self.y = y;
            match r {
                Ok(()) => {}
                Err(StepError::System(e)) => return Err(e.into()),
                Err(e) => return Err(Stop::Failed(e.to_string())),
            }
        }
        Ok(())
    }
}
