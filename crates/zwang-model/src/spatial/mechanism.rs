//! A spatial model as a mechanism of the event-driven stepper and the
//! instant engine: `M` diagonal and constant, `Q` the applied forces with
//! the gyroscopic torque, the orientation's rate `q' = q (0, w) / 2`.
//! Shapes do not collide under event-driven stepping (contacts in space
//! are the time stepper's): the mechanism has no contacts. Joints are
//! equality rows `J a = -J' v` ([`SpatialModel::joint_rates`]), every
//! kind.

use std::sync::{Mutex, MutexGuard};

use sprs::{CsMat, TriMat};
use zwang_instant::{Instant, RowSet};

use super::rotation::mul;
use super::{JointRows, SpatialModel};
use crate::mechanism::{
    Bodies, BodyState, ContactState, Contacts, Coordinates, InstantWriter, Layout,
};
use crate::ModelError;

/// The joint rows, their rates and the equalities' pattern, kept from
/// instant to instant so that the event-driven method allocates nothing
/// per step (the traits take `&self`; an uncontended lock keeps the model
/// `Sync`). A clone starts empty.
#[derive(Debug, Default)]
pub(super) struct Scratch(Mutex<Buffers>);

#[derive(Debug, Default)]
struct Buffers {
    rows: JointRows,
    rates: Vec<f64>,
    starts: Vec<usize>,
    cols: Vec<usize>,
}

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl Scratch {
    fn lock(&self) -> MutexGuard<'_, Buffers> {
        // A panic elsewhere while it was held leaves only stale numbers,
        // all overwritten before use.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Refuses contact modes: the mechanism has no contacts.
fn no_contacts(modes: &[ContactState]) -> Result<(), ModelError> {
    crate::mechanism::no_contacts(modes, "a spatial model under event-driven stepping")
}

impl Coordinates for SpatialModel {
    fn nq(&self) -> usize {
        SpatialModel::nq(self)
    }
    fn nv(&self) -> usize {
        SpatialModel::nv(self)
    }
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        SpatialModel::initial_state(self, q, v)
    }
    fn position_rate(&self, q: &[f64], v: &[f64], qdot: &mut [f64]) {
        for m in 0..self.movers() {
            qdot[7 * m..7 * m + 3].copy_from_slice(&v[6 * m..6 * m + 3]);
            let frame: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
            let w = [0.0, v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]];
            let rate = mul(frame, w).map(|x| 0.5 * x);
            qdot[7 * m + 3..7 * m + 7].copy_from_slice(&rate);
        }
    }
    fn displace(&self, q: &mut [f64], dv: &[f64]) {
        self.integrate(q, dv, 1.0);
    }
}

impl InstantWriter for SpatialModel {
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError> {
        no_contacts(modes)?;
        let n = SpatialModel::nv(self);
        let mut diagonal = vec![0.0; n];
        self.mass_diagonal(&mut diagonal);
        let mass = CsMat::new((n, n), (0..=n).collect(), (0..n).collect(), diagonal);
        let mut builder = Instant::builder(mass, vec![0.0; n]);
        let mut rows = JointRows::default();
        self.joint_rows(q, &mut rows)?;
        let mut rates = Vec::new();
        self.joint_rates(q, v, &mut rates)?;
        if !rows.is_empty() {
            // The pattern: each row's columns, sorted and merged (its
            // values are written by `update_instant`).
            let mut triplets = TriMat::new((rows.len(), n));
            for i in 0..rows.len() {
                for &(c, _) in rows.row(i) {
                    triplets.add_triplet(i, c, 0.0);
                }
            }
            builder = builder.equalities(triplets.to_csr(), vec![0.0; rows.len()]);
        }
        let mut instant = builder.build()?;
        self.update_instant(t, q, v, modes, &mut instant)?;
        let layout = Layout {
            joint_rows: rows.len(),
            contacts: Vec::new(),
        };
        Ok((instant, layout))
    }
    fn update_instant(
        &self,
        _t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        instant: &mut Instant,
    ) -> Result<(), ModelError> {
        no_contacts(modes)?;
        instant.edit_force(|force| self.applied_forces(q, v, force))?;
        if self.joints() == 0 {
            return Ok(());
        }
        let mut scratch = self.scratch.lock();
        let Buffers {
            rows,
            rates,
            starts,
            cols: pattern,
        } = &mut *scratch;
        self.joint_rows(q, rows)?;
        self.joint_rates(q, v, rates)?;
        let matrix = instant.equalities().matrix();
        if matrix.rows() != rows.len() || matrix.cols() != SpatialModel::nv(self) {
            return Err(ModelError::Invalid {
                key: "instant".into(),
                message: "its equalities are not this model's joint rows".into(),
            });
        }
        starts.clear();
        starts.extend((0..=matrix.rows()).map(|i| matrix.indptr().index(i)));
        pattern.clear();
        pattern.extend_from_slice(matrix.indices());
        instant.edit_rows(RowSet::Equalities, |values, rhs| {
            values.fill(0.0);
            for i in 0..rows.len() {
                let (start, end) = (starts[i], starts[i + 1]);
                let cols = &pattern[start..end];
                for &(c, x) in rows.row(i) {
                    if let Ok(k) = cols.binary_search(&c) {
                        values[start + k] += x;
                    }
                }
                rhs[i] = -rates[i];
            }
        })?;
        Ok(())
    }
    fn violations(
        &self,
        _t: f64,
        q: &[f64],
        _modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        ineq.fill(0.0);
        let rows = &mut self.scratch.lock().rows;
        if self.joint_rows(q, rows).is_err() || rows.len() != eq.len() {
            eq.fill(f64::NAN);
            return;
        }
        eq.copy_from_slice(&rows.errors);
    }
}

/// No contacts: shapes collide under time stepping only.
impl Contacts for SpatialModel {}

/// The moving bodies, in their order.
impl Bodies for SpatialModel {
    fn bodies(&self) -> usize {
        self.movers()
    }
    fn body_name(&self, b: usize) -> &str {
        &SpatialModel::bodies(self)[self.body_of(b)].name
    }
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState {
        let s = SpatialModel::body_state(self, self.body_of(b), q, v);
        BodyState {
            position: s.position.to_vec(),
            velocity: s.velocity.to_vec(),
            angle: None,
            angular_velocity: None,
        }
    }
    fn energy(&self, _t: f64, q: &[f64], v: &[f64]) -> f64 {
        SpatialModel::energy(self, q, v)
    }
}
