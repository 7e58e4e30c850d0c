//! Impacts: a velocity jump solving the contact problem of every touching
//! contact (Newton's restitution, Coulomb's friction: `crate::impact`), a
//! bounce slower than `rest_speed` taken as a `rest`, and the contacts
//! that stay closed after it.

use super::{EventKind, Observer, Run, Stop};
use crate::impact::{strike, ImpactError, Touching};
use zwang_model::{ContactState, Mechanism};

impl<'m, M: Mechanism> Run<'m, M> {
    /// An impact of contact `k` at the current state.
    pub(super) fn impact(&mut self, k: usize, observer: &mut dyn Observer) -> Result<(), Stop> {
        let model = self.model;
        let t = self.t;
        let (q, v) = self.y.split_at(self.nq);
        let q = q.to_vec();
        let mut v = v.to_vec();
        // Every touching contact takes part (closed ones at e = 0).
        let touch = self.settings.touch_tolerance;
        let mut touching = Vec::new();
        let mut rest = false;
        for j in 0..model.contacts() {
            if j == k || self.modes[j].is_closed() || model.gap(j, &q) <= touch {
                let (gn, _) = model.contact_velocity(j, &q, &v);
                let slow = -gn < self.settings.rest_speed;
                let e = if self.modes[j].is_closed() || slow {
                    0.0
                } else {
                    model.restitution(j)
                };
                if j == k && slow {
                    rest = true;
                }
                touching.push(Touching {
                    contact: j,
                    restitution: e,
                });
            }
        }
        let failed = |e: ImpactError| {
            Stop::Failed(format!(
                "at t = {t}, the impact of contact \"{}\": {e}",
                model.contact_name(k)
            ))
        };
        let v_minus = v.clone();
        let mut struck = strike(model, t, &q, &mut v, &touching).map_err(failed)?;
        // A bounce slower than the rest speed is no bounce: those contacts
        // take the impact again, plastic (`e = 0`), and stay closed.
        let mut again = false;
        for c in &mut touching {
            let (gn, _) = model.contact_velocity(c.contact, &q, &v);
            if c.restitution > 0.0 && gn <= self.settings.rest_speed {
                c.restitution = 0.0;
                again = true;
                if c.contact == k {
                    rest = true;
                }
            }
        }
        if again {
            v.copy_from_slice(&v_minus);
            struck = strike(model, t, &q, &mut v, &touching).map_err(failed)?;
        }
        self.jump = Some(struck);
        self.y[self.nq..].copy_from_slice(&v);
        // Which touching contacts stay closed.
        for j in touching.iter().map(|c| c.contact) {
            // Leaving slower than the rest speed is not leaving: the
            // contact closes (and the contact problem may open it). Nor is
            // a rest's own contact leaving: a gap that did not rise above
            // zero since the last bounce (its apex below the position's
            // resolution) is a bounce too small to be seen.
            let (gn, vt) = model.contact_velocity(j, &q, &v);
            self.modes[j] = if gn > self.settings.rest_speed && !(j == k && rest) {
                ContactState::OPEN
            } else {
                self.closed_mode(j, vt)
            };
        }
        let kind = if rest {
            EventKind::Rest
        } else {
            EventKind::Impact
        };
        // The impact is recorded with the state after the jump; the modes
        // settle after it.
        self.projector = None;
        self.settle(&[(kind, k)], observer)
    }
}
