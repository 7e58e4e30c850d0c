//! Contact modes that change at an event (lift-off, stick, slip) and are
//! then made consistent by solving the contact problem: a contact that
//! must open opens, a sticking one that must slip slips, before the
//! integration restarts.

use super::{EventKind, Observer, Run, Stop};
use crate::dynamics::{ContactValues, DynamicsError};
use zwang_contact::Mode;
use zwang_model::{ContactState, Mechanism};

impl<'m, M: Mechanism> Run<'m, M> {
    /// Makes the modes consistent at the current state (solving the
    /// contact problem, opening contacts that must open, letting sticking
    /// contacts that must slip slip), projects, records the events and
    /// restarts the integrator. `primary` are the events that brought us
    /// here (their kinds may be decided here: a stop is `stick` or `slip`).
    pub(super) fn settle(
        &mut self,
        primary: &[(EventKind, usize)],
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        let mut found: Vec<(EventKind, usize)> = primary.to_vec();
        let model = self.model;
        let t = self.t;
        let mut stable = false;
        for _ in 0..16 {
            let modes = self.modes.clone();
            let (q, v) = self.y.split_at(self.nq);
            let (q, v) = (q.to_vec(), v.to_vec());
            let d = self.dynamics.as_mut().expect("built in start");
            d.set_modes(t, &q, &v, &modes)?;
            if let Err(e) = d.solve(t, &q, &v) {
                if let DynamicsError::Painleve { inconsistent } = e {
                    let contact = self.frictional_contact();
                    let kind = if inconsistent {
                        EventKind::PainleveInconsistent
                    } else {
                        EventKind::PainleveIndeterminate
                    };
                    self.record(kind, contact, observer)?;
                }
                return Err(e.into());
            }
            let mut changed = false;
            for k in 0..model.contacts() {
                if !modes[k].is_closed() {
                    continue;
                }
                let c = self.dynamics().contact(k);
                if c.mode == Mode::Open {
                    self.modes[k] = ContactState::OPEN;
                    found.push((EventKind::LiftOff, k));
                    changed = true;
                } else if modes[k].mode == Mode::Stick
                    && c.mode == Mode::Slide
                    && model.friction(k) > 0.0
                {
                    let slip = slip_direction(&c);
                    self.modes[k] = ContactState::slide(slip);
                    found.push((EventKind::Slip, k));
                    changed = true;
                }
            }
            if !changed {
                stable = true;
                break;
            }
        }
        if !stable {
            return Err(Stop::Failed(format!(
                "the contact modes do not settle at t = {t}"
            )));
        }
        // A stop whose contact ended sliding is a slip, not a stick.
        let mut kinds: Vec<(EventKind, usize)> = Vec::new();
        for (kind, k) in found {
            let kind = match (kind, self.modes[k].mode) {
                (EventKind::Stick, Mode::Slide) => EventKind::Slip,
                (kind, _) => kind,
            };
            // A stick immediately followed by its own slip is one slip.
            if let Some(last) = kinds.iter_mut().find(|(_, c)| *c == k) {
                if last.0 == EventKind::Stick && kind == EventKind::Slip {
                    last.0 = EventKind::Slip;
                    continue;
                }
            }
            kinds.push((kind, k));
        }
        // A contact that lifts off was closed until now: its normal
        // velocity is zero here, and held at zero it leaves as its normal
        // acceleration says (a round-off approach speed would bring it
        // straight back as a `rest`, over and over).
        let lifting: Vec<usize> = kinds
            .iter()
            .filter(|(kind, k)| *kind == EventKind::LiftOff && !self.modes[*k].is_closed())
            .map(|&(_, k)| k)
            .collect();
        if !lifting.is_empty() {
            let open = self.modes.clone();
            for &k in &lifting {
                self.modes[k] = ContactState::slide(1.0);
            }
            self.projector = None;
            let held = self.project(true);
            self.modes = open;
            held?;
        }
        // The last pass wrote the dynamics for these modes; the projector
        // follows them. One without rows on a model without contacts has
        // none to follow (a free body): kept, not made again each time.
        let fixed = |p: &crate::projection::Projector| p.rowless() && model.contacts() == 0;
        if !self.projector.as_ref().is_some_and(fixed) {
            self.projector = None;
        }
        self.project(true)?;
        self.same_time_events(kinds.len())?;
        for (kind, k) in kinds {
            self.record(kind, k, observer)?;
        }
        self.restart()
    }

    /// Handles the crossings `together` (contact, function) found at the
    /// current time.
    pub(super) fn handle(
        &mut self,
        together: &[(usize, usize)],
        observer: &mut dyn Observer,
    ) -> Result<(), Stop> {
        if self.events.len() >= self.settings.max_events {
            return Err(Stop::Failed(format!(
                "{} events: they accumulate",
                self.events.len()
            )));
        }
        if let Some(&(k, _)) = together
            .iter()
            .find(|&&(k, f)| f == 0 && !self.modes[k].is_closed())
        {
            return self.impact(k, observer);
        }
        // The forces at the event state decide the slip directions.
        let (t, y) = (self.t, self.y.clone());
        let (q, v) = y.split_at(self.nq);
        if let Err(e) = self.dynamics().solve(t, q, v) {
            if let DynamicsError::Painleve { inconsistent } = e {
                return self.painleve_ahead(inconsistent, observer);
            }
            return Err(e.into());
        }
        let mut primaries = Vec::with_capacity(together.len());
        for &(k, f) in together {
            let kind = match (f, self.modes[k].mode) {
                (0, _) => {
                    self.modes[k] = ContactState::OPEN;
                    EventKind::LiftOff
                }
                (_, Mode::Slide) => {
                    self.modes[k] = ContactState::STICK;
                    EventKind::Stick
                }
                (_, Mode::Stick) => {
                    let c = self.dynamics().contact(k);
                    self.modes[k] = ContactState::slide(slip_direction(&c));
                    EventKind::Slip
                }
                // A closed contact's tangential event already handled by
                // its normal one.
                (_, Mode::Open) => continue,
            };
            primaries.push((kind, k));
        }
        self.settle(&primaries, observer)
    }

    /// Counts events at one time: many in a row at the same time are a
    /// loop of mode changes, not progress.
    fn same_time_events(&mut self, new: usize) -> Result<(), Stop> {
        let t = self.t;
        let tol = self.settings.event_tolerance;
        let same = self
            .events
            .iter()
            .rev()
            .take_while(|e| (e.time - t).abs() <= tol)
            .count();
        if same + new > 64 {
            return Err(Stop::Failed(format!(
                "contact modes keep changing at t = {t}"
            )));
        }
        Ok(())
    }
}

/// The slip sign `s` of a sticking contact that starts to slip: friction
/// `-mu s lambda_n` opposes the tangential force it held.
fn slip_direction(c: &ContactValues) -> f64 {
    if c.friction_force > 0.0 {
        -1.0
    } else if c.friction_force < 0.0 {
        1.0
    } else if c.tangential_rate < 0.0 {
        -1.0
    } else {
        1.0
    }
}
