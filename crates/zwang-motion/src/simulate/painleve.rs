//! Painleve stops: a contact problem without an answer, or with several,
//! met inside a step or approached as the steps collapse while a contact
//! slides with friction; the run stops at the state whose problem failed.

use super::{EventKind, Observer, Run, Stop};
use crate::dynamics::DynamicsError;
use zwang_contact::Mode;
use zwang_model::Mechanism;

impl<'m, M: Mechanism> Run<'m, M> {
    /// Whether a closed contact slides with friction.
    pub(super) fn sliding_with_friction(&self) -> bool {
        (0..self.model.contacts())
            .any(|k| self.modes[k].mode == Mode::Slide && self.model.friction(k) > 0.0)
    }

    /// The first closed contact with friction (for a Painleve event).
    pub(super) fn frictional_contact(&self) -> usize {
        (0..self.model.contacts())
            .find(|&k| self.modes[k].is_closed() && self.model.friction(k) > 0.0)
            .unwrap_or(0)
    }

    /// A Painleve case met inside a step: shrink the step towards it; when
    /// it is as small as events are located, stop there.
    pub(super) fn painleve_ahead(
        &mut self,
        inconsistent: bool,
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let h = self.integrator.step_size();
        if h > self.settings.event_tolerance {
            self.integrator.set_step_size(h * 0.25);
            return Ok(());
        }
        if h == 0.0 {
            // The first step's own choice looked too far ahead.
            self.integrator
                .set_step_size(1e-3 * (self.duration - self.t));
            return Ok(());
        }
        // The stop is the state whose contact problem failed: within a
        // step of the event tolerance of the last one, and the one the
        // kind belongs to.
        let d = self.dynamics.as_ref().expect("built in start");
        self.t = d.painleve_time;
        self.y.copy_from_slice(&d.painleve_state);
        self.painleve(inconsistent, observer)
    }

    /// Records a Painleve stop of the kind found at the current state.
    fn painleve(&mut self, inconsistent: bool, observer: &mut dyn Observer) -> Result<(), Stop> {
        let kind = if inconsistent {
            EventKind::PainleveInconsistent
        } else {
            EventKind::PainleveIndeterminate
        };
        let k = self.frictional_contact();
        self.record(kind, k, observer)?;
        Err(Stop::Painleve)
    }

    /// The steps collapse (below the event tolerance) while a contact
    /// slides with friction: its force grows without bound as the contact
    /// problem loses its answer just ahead (Painleve's inconsistent case,
    /// approached along the motion). The positions are carried on along
    /// the motion, a step at a time doubling from the event tolerance,
    /// until the contact problem has no answer or several: that state is
    /// the stop, and its answer the kind. A problem that keeps one answer
    /// ends the run `failed`, with the reason.
    pub(super) fn collapse(&mut self, h: f64, observer: &mut dyn Observer) -> Result<(), Stop> {
        let model = self.model;
        let (nq, t) = (self.nq, self.t);
        let mut probe = self.y.clone();
        let mut rate = vec![0.0; nq];
        {
            let (q, v) = self.y.split_at(nq);
            model.position_rate(q, v, &mut rate);
        }
        let mut dt = self.settings.event_tolerance;
        while dt <= 1e6 * self.settings.event_tolerance {
            let (q, v) = probe.split_at_mut(nq);
            for ((p, y), r) in q.iter_mut().zip(&self.y[..nq]).zip(&rate) {
                *p = y + dt * r;
            }
            match self.dynamics().solve(t + dt, q, v) {
                Err(DynamicsError::Painleve { inconsistent }) => {
                    self.t = t + dt;
                    self.y.copy_from_slice(&probe);
                    return self.painleve(inconsistent, observer);
                }
                Ok(()) => dt *= 2.0,
                Err(_) => break,
            }
        }
        let k = self.frictional_contact();
        Err(Stop::Failed(format!(
            "the steps shrink to {h:.1e} s at t = {t} while contact \"{}\" slides with \
             friction, yet its contact problem keeps one answer",
            model.contact_name(k)
        )))
    }
}
