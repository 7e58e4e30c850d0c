//! The switching functions of the contacts (gaps, normal forces or
//! separating accelerations, slip velocities, friction margins) and where
//! they cross zero inside a step: scanned and located on the dense output
//! (Brent's method, to `event_tolerance`).

use super::{Run, Stop};
use crate::dynamics::{Dynamics, DynamicsError};
use zwang_contact::Mode;
use zwang_model::{ContactState, Mechanism};
use zwang_ode::find_root;

/// A switching function's value that is not defined for the contact's
/// mode.
pub(super) const NONE: f64 = f64::NAN;

impl<'m, M: Mechanism> Run<'m, M> {
    /// Switching functions at the state `self.y` (a solve when a contact
    /// is closed).
    pub(super) fn switching(&mut self, t: f64) -> Result<Vec<[f64; 2]>, Stop> {
        let y = std::mem::take(&mut self.y);
        let mut phi = Vec::new();
        let result = self.switching_at(t, &y, &mut phi);
        self.y = y;
        result.map_err(Stop::from)?;
        Ok(phi)
    }

    /// The switching functions at `(t, y)` into `phi` (one per contact; no
    /// allocation once it has the room).
    pub(super) fn switching_at(
        &mut self,
        t: f64,
        y: &[f64],
        phi: &mut Vec<[f64; 2]>,
    ) -> Result<(), DynamicsError> {
        let model = self.model;
        let (q, v) = y.split_at(self.nq);
        let any_closed = self.modes.iter().any(|m| m.is_closed());
        let d = self.dynamics.as_mut().expect("built in start");
        if any_closed {
            d.solve(t, q, v)?;
        }
        phi.clear();
        for k in 0..model.contacts() {
            phi.push(switching_of(model, d, k, self.modes[k], q, v));
        }
        Ok(())
    }

    /// The first downward zero of a switching function of the state alone
    /// (a gap or a sliding velocity) over the last step, looked for at
    /// `SCAN` points of its dense output. A function that starts at or
    /// below zero (just after an event) and ends the first interval below
    /// zero may have risen in between (a ball that bounced and came back
    /// within it): the interval is halved towards its start until a
    /// positive value is found; if none is, the function did not rise and
    /// the event is at the start, unless it ends the interval no lower
    /// than it began (a contact leaving from a round-off overlap: no
    /// event).
    pub(super) fn scan(
        &mut self,
        k: usize,
        f: usize,
        t0: f64,
        t1: f64,
        a: f64,
        b: f64,
    ) -> Result<Option<f64>, Stop> {
        const SCAN: usize = 8;
        let (mut ta, mut va) = (t0, a);
        for i in 1..=SCAN {
            let tb = if i == SCAN {
                t1
            } else {
                t0 + (t1 - t0) * i as f64 / SCAN as f64
            };
            let vb = if i == SCAN {
                b
            } else {
                self.state_function(k, f, tb)
            };
            if vb < 0.0 && va <= 0.0 && i == 1 {
                let mut tm = tb;
                for _ in 0..60 {
                    tm = ta + 0.5 * (tm - ta);
                    let vm = self.state_function(k, f, tm);
                    if vm > 0.0 {
                        return Ok(Some(self.locate(k, f, tm, tb, vm, vb)?));
                    }
                }
                // Never above zero: falling, the event is at the start;
                // not falling (a contact leaving from a round-off overlap),
                // none.
                if vb < va {
                    return Ok(Some(ta));
                }
            }
            if vb < 0.0 && va >= 0.0 {
                return Ok(Some(if va == 0.0 {
                    ta
                } else {
                    self.locate(k, f, ta, tb, va, vb)?
                }));
            }
            ta = tb;
            va = vb;
        }
        Ok(None)
    }

    /// A switching function of the state alone at time `t` of the dense
    /// output.
    fn state_function(&mut self, k: usize, f: usize, t: f64) -> f64 {
        self.integrator.dense(t, &mut self.scratch);
        let (q, v) = self.scratch.split_at(self.nq);
        match (f, self.modes[k].sliding()) {
            (0, _) => self.model.gap(k, q),
            (_, Some(slip)) => slip * self.model.contact_velocity(k, q, v).1,
            _ => NONE,
        }
    }

    /// Locates the zero of switching function `f` of contact `k` on the
    /// last step's dense output.
    pub(super) fn locate(
        &mut self,
        k: usize,
        f: usize,
        t0: f64,
        t1: f64,
        a: f64,
        b: f64,
    ) -> Result<f64, Stop> {
        let mut y = std::mem::take(&mut self.scratch);
        let tol = self.settings.event_tolerance;
        let result = find_root(
            |t| -> Result<f64, DynamicsError> {
                self.integrator.dense(t, &mut y);
                let model = self.model;
                let (q, v) = y.split_at(self.nq);
                let d = self.dynamics.as_mut().expect("built in start");
                if !state_only(f, self.modes[k]) {
                    d.solve(t, q, v)?;
                }
                Ok(switching_of(model, d, k, self.modes[k], q, v)[f])
            },
            t0,
            t1,
            a,
            b,
            tol,
        );
        self.scratch = y;
        match result {
            Ok(t) => Ok(t),
            // A solve that fails inside the step: the event is the end.
            Err(DynamicsError::Painleve { .. }) => Ok(t1),
            Err(e) => Err(e.into()),
        }
    }
}

/// Whether switching function `f` of a contact in `mode` is a function of
/// the state alone (a gap of an open contact, a sliding velocity); the
/// others need a solve.
pub(super) fn state_only(f: usize, mode: ContactState) -> bool {
    matches!((f, mode.mode), (0, Mode::Open) | (1, Mode::Slide))
}

/// The switching functions of contact `k` in `mode` at `(q, v)`, given the
/// solve of `d` at that state for closed contacts.
fn switching_of<M: Mechanism>(
    model: &M,
    d: &Dynamics<'_, M>,
    k: usize,
    mode: ContactState,
    q: &[f64],
    v: &[f64],
) -> [f64; 2] {
    match mode.mode {
        Mode::Open => [model.gap(k, q), NONE],
        Mode::Slide => {
            let slip = mode.slip;
            let c = d.contact(k);
            let normal = c.normal_force - c.normal_gap_rate;
            let tangential = if model.friction(k) > 0.0 {
                slip * model.contact_velocity(k, q, v).1
            } else {
                NONE
            };
            [normal, tangential]
        }
        Mode::Stick => {
            let c = d.contact(k);
            let normal = c.normal_force - c.normal_gap_rate;
            let mu = model.friction(k);
            let tangential = if mu > 0.0 {
                mu * c.normal_force - c.friction_force.abs() - c.tangential_rate.abs()
            } else {
                NONE
            };
            [normal, tangential]
        }
    }
}
