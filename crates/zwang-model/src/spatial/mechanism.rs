//! A spatial model as a mechanism of the event-driven stepper and the
//! instant engine: `M` diagonal and constant, `Q` the applied forces with
//! the gyroscopic torque, the orientation's rate `q' = q (0, w) / 2`.
//! Shapes do not collide under event-driven stepping (contacts in space
//! are the time stepper's): the mechanism has no contacts. Joints are
//! the time stepper's too for now (their rows at acceleration level need
//! `J' v`): a model with joints is refused here.

use sprs::CsMat;
use zwang_instant::Instant;

use super::rotation::mul;
use super::SpatialModel;
use crate::mechanism::{
    Bodies, BodyState, ContactState, Contacts, Coordinates, InstantWriter, Layout,
};
use crate::ModelError;

/// Refuses contact modes: the mechanism has no contacts.
fn no_contacts(modes: &[ContactState]) -> Result<(), ModelError> {
    if modes.is_empty() {
        return Ok(());
    }
    Err(ModelError::Invalid {
        key: "modes".into(),
        message: format!(
            "{} given, a spatial model under event-driven stepping has no contacts",
            modes.len()
        ),
    })
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
        if self.joints() > 0 {
            return Err(ModelError::Invalid {
                key: "joint[0]".into(),
                message: "the event-driven method takes spatial models without joints for now \
                          (the time stepper holds them)"
                    .into(),
            });
        }
        let n = SpatialModel::nv(self);
        let mut diagonal = vec![0.0; n];
        self.mass_diagonal(&mut diagonal);
        let mass = CsMat::new((n, n), (0..=n).collect(), (0..n).collect(), diagonal);
        let mut instant = Instant::builder(mass, vec![0.0; n]).build()?;
        self.update_instant(t, q, v, modes, &mut instant)?;
        let layout = Layout {
            joint_rows: 0,
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
        Ok(())
    }
    fn violations(
        &self,
        _t: f64,
        _q: &[f64],
        _modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        eq.fill(0.0);
        ineq.fill(0.0);
    }
}

impl Contacts for SpatialModel {
    fn contacts(&self) -> usize {
        0
    }
    fn contact_name(&self, _k: usize) -> &str {
        ""
    }
    fn friction(&self, _k: usize) -> f64 {
        0.0
    }
    fn restitution(&self, _k: usize) -> f64 {
        0.0
    }
    fn gap(&self, _k: usize, _q: &[f64]) -> f64 {
        f64::INFINITY
    }
    fn contact_velocity(&self, _k: usize, _q: &[f64], _v: &[f64]) -> (f64, f64) {
        (0.0, 0.0)
    }
}

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
