//! Stage 2, assemble: the contact problem of the step, from the contacts'
//! rows (two per contact over `v`, normal then tangent). In velocities
//! (what the primal solver takes): `M`, the momentum `M v*`, the rows `J`
//! and the free term `b` of `u = J v + b`. In local form (what the dual
//! solver takes): the Delassus operator `W = J M^-1 J^T` (sparse: contacts
//! couple only through a body they share; dense with joints held, through
//! which every pair may couple) and the free contact velocity `q = J v* +
//! b`. The normal free term is Newton's restitution, or the gap a contact
//! may still close within the step.

use super::collide::StepContact;
use crate::stepping::gap_term;
use sprs::CsMat;
use zwang_contact::{BoundedRows, ContactRows, Delassus, LocalProblem, VelocityProblem};

/// The working memory of the stage: the problem in both forms (`W` kept
/// while its pattern stays, so that the contact solver's analysis of it
/// does too) and `W`'s builder.
pub(super) struct Assemble {
    pub velocity: VelocityProblem,
    pub problem: LocalProblem,
    delassus: Delassus,
}

impl Default for Assemble {
    fn default() -> Self {
        Assemble {
            velocity: VelocityProblem {
                mass: CsMat::zero((0, 0)).into_csc(),
                force: Vec::new(),
                rows: ContactRows::default(),
                b: Vec::new(),
                mu: Vec::new(),
                bounded: BoundedRows::default(),
            },
            problem: LocalProblem {
                dimension: 2,
                w: CsMat::zero((0, 0)),
                q: Vec::new(),
                mu: Vec::new(),
            },
            delassus: Delassus::new(),
        }
    }
}

impl Assemble {
    /// The rows of `contacts` as `J`, into the problem in velocities.
    pub fn rows(&mut self, contacts: &[StepContact]) {
        let rows = &mut self.velocity.rows;
        rows.clear();
        for c in contacts {
            let r = &c.rows;
            rows.push((0..r.len).map(|k| (r.cols[k], [r.normal[k], r.tangent[k]])));
        }
    }

    /// Writes `W` of `contacts` (`minv` the diagonal of `M^-1`) into the
    /// local problem, in place while its pattern stays.
    pub fn delassus(&mut self, contacts: &[StepContact], minv: &[f64]) {
        self.rows(contacts);
        self.delassus
            .write(&self.velocity.rows, minv, &mut self.problem);
    }

    /// `W = J M_E^-1 J^T` of the rows written by [`Assemble::rows`] from
    /// the responses `M_E^-1 J_i^T` of each (joints held), into the local
    /// problem.
    pub fn delassus_from(&mut self, responses: &[Vec<f64>]) {
        self.delassus
            .write_from(&self.velocity.rows, responses, &mut self.problem);
    }

    /// Writes the free contact velocity of `contacts` at step `h` (`v`
    /// the velocity at the start of the step, `v_star` the free one) and
    /// their friction into the local problem, after a `delassus` (the
    /// free term as [`bias`] says).
    pub fn free(&mut self, contacts: &[StepContact], v: &[f64], v_star: &[f64], h: f64, slop: f64) {
        let problem = &mut self.problem;
        problem.q.clear();
        problem.mu.clear();
        for c in contacts {
            let (un_free, ut_free) = c.rows.velocity(v_star);
            problem.q.extend([un_free + bias(c, v, h, slop), ut_free]);
            problem.mu.push(c.mu);
        }
    }

    /// The step's problem in velocities (`W` never formed): `M` (the
    /// diagonal `1 / minv`), the momentum `M v*`, the contacts' rows, their
    /// free term (as [`bias`] says) and friction; written in place.
    pub fn velocities(
        &mut self,
        contacts: &[StepContact],
        v: &[f64],
        v_star: &[f64],
        minv: &[f64],
        h: f64,
        slop: f64,
    ) {
        self.rows(contacts);
        let n = minv.len();
        let p = &mut self.velocity;
        if p.mass.rows() != n {
            p.mass = CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), vec![1.0; n]);
        }
        for (m, mi) in p.mass.data_mut().iter_mut().zip(minv) {
            *m = 1.0 / mi;
        }
        p.force.clear();
        p.force
            .extend(v_star.iter().zip(minv).map(|(x, mi)| x / mi));
        p.b.clear();
        p.mu.clear();
        for c in contacts {
            p.b.extend([bias(c, v, h, slop), 0.0]);
            p.mu.push(c.mu);
        }
    }
}

/// The free term of a contact's normal velocity ([`gap_term`]), from its
/// normal velocity at the step's start `v`.
fn bias(c: &StepContact, v: &[f64], h: f64, slop: f64) -> f64 {
    let (un_before, _) = c.rows.velocity(v);
    gap_term(un_before, c.gap, c.restitution, h, slop)
}
