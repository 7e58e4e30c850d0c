//! What observers get: events recorded with their state, samples of the
//! trajectory (projected like the steps' ends), the state at a time the
//! run has reached (for other islands), and the contacts' forces and
//! modes.

use super::{ContactSample, Event, EventKind, Observer, Run, Stop};
use zwang_contact::Mode;
use zwang_model::{ContactState, Mechanism};

impl<'m, M: Mechanism> Run<'m, M> {
    /// Records an event at the current state.
    pub(super) fn record(
        &mut self,
        kind: EventKind,
        contact: usize,
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let (q, v) = self.state();
        let event = Event {
            time: self.t,
            kind,
            contact,
            q: q.to_vec(),
            v: v.to_vec(),
            jump: match kind {
                EventKind::Impact | EventKind::Rest => self.jump.take(),
                _ => None,
            },
        };
        let y = self.y.clone();
        let contacts = self.contact_samples(observer.wants_samples(), self.t, &y);
        observer.event(&event, &contacts);
        self.events.push(event);
        Ok(())
    }

    pub(super) fn sample(&mut self, observer: &mut dyn Observer, t: f64) -> Result<(), Stop> {
        let y = self.y.clone();
        self.sample_at(observer, t, &y)
    }

    pub(super) fn sample_at(
        &mut self,
        observer: &mut dyn Observer,
        t: f64,
        y: &[f64],
    ) -> Result<(), Stop> {
        if !observer.wants_samples() {
            return Ok(());
        }
        let mut y = y.to_vec();
        self.project_sample(t, &mut y)?;
        let contacts = self.contact_samples(true, t, &y);
        let (q, v) = y.split_at(self.nq);
        observer.sample(t, q, v, &contacts);
        if let Some(reason) = observer.halt() {
            // The run ends at the sample, not at the end of its step.
            self.t = t;
            self.y.copy_from_slice(&y);
            return Err(Stop::Failed(reason));
        }
        Ok(())
    }

    /// The run's state at a time `t` it has reached (inside its last step,
    /// or its current time) into `y`, with its contacts (forces when
    /// `wants`); `None` when it has not reached `t` yet.
    pub(crate) fn state_at(
        &mut self,
        t: f64,
        wants: bool,
        y: &mut [f64],
    ) -> Option<Vec<ContactSample>> {
        if t > self.t {
            return None;
        }
        if t == self.t {
            y.copy_from_slice(&self.y);
        } else {
            self.integrator.dense(t, y);
            // A projection that fails leaves the state as the integrator
            // has it (off by its error, never by more).
            let _ = self.project_sample(t, y);
        }
        Some(self.contact_samples(wants, t, y))
    }

    /// The contacts' forces and modes at `(t, y)` (a solve when a contact
    /// is closed and the observer wants them).
    fn contact_samples(&mut self, wants: bool, t: f64, y: &[f64]) -> Vec<ContactSample> {
        let model = self.model;
        let n = model.contacts();
        let open = ContactSample {
            normal_force: 0.0,
            friction_force: 0.0,
            mode: Mode::Open,
        };
        if !wants || !self.modes.iter().any(|m| m.is_closed()) {
            return vec![open; n];
        }
        let (q, v) = y.split_at(self.nq);
        let d = self.dynamics.as_mut().expect("built in start");
        let solved = d.solve(t, q, v).is_ok();
        (0..n)
            .map(|k| {
                if !self.modes[k].is_closed() {
                    return open;
                }
                if !solved {
                    return ContactSample {
                        normal_force: f64::NAN,
                        friction_force: f64::NAN,
                        mode: mode_of(self.modes[k], model.friction(k)),
                    };
                }
                let c = d.contact(k);
                ContactSample {
                    normal_force: c.normal_force,
                    friction_force: c.friction_force,
                    mode: mode_of(self.modes[k], model.friction(k)),
                }
            })
            .collect()
    }
}

/// The reported mode of a bookkept one.
fn mode_of(mode: ContactState, mu: f64) -> Mode {
    match mode.mode {
        Mode::Open => Mode::Open,
        Mode::Stick if mu > 0.0 => Mode::Stick,
        _ => Mode::Slide,
    }
}
