//! The forces an articulated model applies besides gravity and inertia:
//! joint springs and damping, tendon springs and damping, and actuators.
//! One place for them, read by both methods (the time stepper takes the
//! damping implicitly and asks for the rest; the event-driven method
//! takes all of it explicitly), and the energy they store.

use zwang_tree::{JointKind, TreeError, Workspace};

use super::{Articulated, TendonPath, Transmission};
use crate::ModelError;

/// Where a joint's coordinates and dofs start, and what it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointAddress {
    /// The joint's kind.
    pub kind: JointKind,
    /// Its first entry in `qpos`.
    pub qpos: usize,
    /// Its first entry in `qvel`.
    pub dof: usize,
}

impl Articulated {
    /// Each joint's kind and addresses, in order (MuJoCo's `jnt_qposadr`,
    /// `jnt_dofadr`).
    pub fn joint_addresses(&self) -> Vec<JointAddress> {
        let (mut q, mut d) = (0, 0);
        let mut out = Vec::new();
        for body in self.tree.bodies() {
            for joint in &body.joints {
                out.push(JointAddress {
                    kind: joint.kind,
                    qpos: q,
                    dof: d,
                });
                q += joint.kind.nq();
                d += joint.kind.nv();
            }
        }
        out
    }

    /// Checks that the forces can be computed: a spring or an actuator on
    /// a hinge or slide joint only, tendons and transmissions that name
    /// existing joints and tendons, finite coefficients.
    pub fn check_forces(&self) -> Result<(), ModelError> {
        let joints = self.joint_addresses();
        if self.joints.len() != joints.len() {
            return Err(invalid(
                "joints",
                format!(
                    "{} joint physics for {} joints of the tree",
                    self.joints.len(),
                    joints.len()
                ),
            ));
        }
        let scalar = |j: usize, what: &str| -> Result<(), ModelError> {
            match joints.get(j).map(|a| a.kind) {
                Some(JointKind::Hinge { .. } | JointKind::Slide { .. }) => Ok(()),
                Some(_) => Err(invalid(
                    what,
                    format!("joint {j} is a ball or free joint: only hinge and slide joints"),
                )),
                None => Err(invalid(what, format!("joint {j} does not exist"))),
            }
        };
        for (j, p) in self.joints.iter().enumerate() {
            if p.stiffness != 0.0 {
                scalar(j, &format!("joint[{}].stiffness", p.name))?;
            }
        }
        for t in &self.tendons {
            match &t.path {
                TendonPath::Fixed(terms) => {
                    for &(j, _) in terms {
                        scalar(j, &format!("tendon[{}]", t.name))?;
                    }
                }
                TendonPath::Spatial(sites) => {
                    if let Some(s) = sites.iter().find(|&&s| s >= self.sites.len()) {
                        return Err(invalid(
                            &format!("tendon[{}]", t.name),
                            format!("site {s} does not exist"),
                        ));
                    }
                }
            }
        }
        for a in &self.actuators {
            let key = format!("actuator[{}]", a.name);
            match a.transmission {
                Transmission::Joint(j) => scalar(j, &key)?,
                Transmission::Tendon(t) if t < self.tendons.len() => {}
                Transmission::Tendon(t) => {
                    return Err(invalid(&key, format!("tendon {t} does not exist")))
                }
            }
        }
        Ok(())
    }

    /// Adds to `out` (length nv) the generalized forces at `(qpos, qvel)`
    /// with controls `ctrl`: joint and tendon springs, actuators, and,
    /// when `damping` is set, joint and tendon damping `-d v`. A tendon's
    /// force `f` along its length is `J^T f` ([`Articulated::tendon_jacobian`]).
    /// `ws` holds the positions at `qpos`; call
    /// [`Articulated::check_forces`] once first; `addresses` is
    /// [`Articulated::joint_addresses`].
    #[allow(clippy::too_many_arguments)]
    pub fn add_forces(
        &self,
        ws: &Workspace,
        addresses: &[JointAddress],
        qpos: &[f64],
        qvel: &[f64],
        ctrl: &[f64],
        damping: bool,
        out: &mut [f64],
    ) -> Result<(), TreeError> {
        for (p, a) in self.joints.iter().zip(addresses) {
            let n = a.kind.nv();
            if damping && p.damping != 0.0 {
                for k in a.dof..a.dof + n {
                    out[k] -= p.damping * qvel[k];
                }
            }
            if p.stiffness != 0.0 && n == 1 {
                out[a.dof] -= p.stiffness * (qpos[a.qpos] - p.springref);
            }
        }
        for (k, t) in self.tendons.iter().enumerate() {
            if t.stiffness == 0.0 && !(damping && t.damping != 0.0) {
                continue;
            }
            let (length, rate) = self.tendon_rate(ws, qpos, qvel, k)?;
            let mut force = 0.0;
            if t.stiffness != 0.0 {
                force -= t.stiffness * (length - self.rest_length(k)?);
            }
            if damping {
                force -= t.damping * rate;
            }
            if force != 0.0 {
                self.visit_tendon(ws, qpos, k, |d, c| out[d] += c * force)?;
            }
        }
        for (i, act) in self.actuators.iter().enumerate() {
            let u = ctrl.get(i).copied().unwrap_or(0.0);
            let u = act.ctrlrange.map_or(u, |[lo, hi]| u.clamp(lo, hi));
            let (length, rate) = match act.transmission {
                Transmission::Joint(j) => {
                    let a = addresses[j];
                    (qpos[a.qpos], qvel[a.dof])
                }
                Transmission::Tendon(t) => self.tendon_rate(ws, qpos, qvel, t)?,
            };
            let force = act.gain * u
                + act.bias[0]
                + act.bias[1] * act.gear * length
                + act.bias[2] * act.gear * rate;
            let force = act.forcerange.map_or(force, |[lo, hi]| force.clamp(lo, hi));
            match act.transmission {
                Transmission::Joint(j) => out[addresses[j].dof] += act.gear * force,
                Transmission::Tendon(t) => {
                    self.visit_tendon(ws, qpos, t, |d, c| out[d] += act.gear * c * force)?;
                }
            }
        }
        Ok(())
    }

    /// Tendon `t`'s length and rate `J qvel`.
    fn tendon_rate(
        &self,
        ws: &Workspace,
        qpos: &[f64],
        qvel: &[f64],
        t: usize,
    ) -> Result<(f64, f64), TreeError> {
        let mut rate = 0.0;
        let length = self.visit_tendon(ws, qpos, t, |d, c| rate += c * qvel[d])?;
        Ok((length, rate))
    }

    /// The energy: kinetic, gravity's and the springs', at `(qpos, qvel)`,
    /// in the working memory `ws` of the tree.
    pub fn energy(
        &self,
        ws: &mut Workspace,
        addresses: &[JointAddress],
        qpos: &[f64],
        qvel: &[f64],
    ) -> Result<f64, TreeError> {
        self.tree.positions(ws, qpos)?;
        self.tree.velocities(ws, qvel)?;
        let motion = self.tree.kinetic_energy(ws)? + self.tree.potential_energy(ws)?;
        Ok(motion + self.spring_energy(ws, addresses, qpos)?)
    }

    /// The energy stored in joint and tendon springs at `qpos`, whose
    /// positions are in `ws`.
    pub fn spring_energy(
        &self,
        ws: &Workspace,
        addresses: &[JointAddress],
        qpos: &[f64],
    ) -> Result<f64, TreeError> {
        let joints: f64 = self
            .joints
            .iter()
            .zip(addresses)
            .filter(|(p, a)| p.stiffness != 0.0 && a.kind.nv() == 1)
            .map(|(p, a)| 0.5 * p.stiffness * (qpos[a.qpos] - p.springref).powi(2))
            .sum();
        let mut tendons = 0.0;
        for (k, t) in self.tendons.iter().enumerate() {
            if t.stiffness != 0.0 {
                let length = self.tendon_length(ws, qpos, k)?;
                tendons += 0.5 * t.stiffness * (length - self.rest_length(k)?).powi(2);
            }
        }
        Ok(joints + tendons)
    }

    /// A tendon spring's rest length: the one given, or the length at
    /// `qpos0` (a spatial tendon's in a working memory of its own: a
    /// reader gives `springlength` to keep steps from allocating).
    fn rest_length(&self, t: usize) -> Result<f64, TreeError> {
        let tendon = &self.tendons[t];
        match (&tendon.path, tendon.springlength) {
            (_, Some(rest)) => Ok(rest),
            (TendonPath::Fixed(terms), None) => {
                let q0 = self.tree.qpos0();
                Ok(terms
                    .iter()
                    .filter_map(|&(j, c)| self.tree.joint_qpos(j).map(|a| c * q0[a]))
                    .sum())
            }
            (TendonPath::Spatial(_), None) => {
                let mut ws = self.tree.workspace();
                self.tree.positions(&mut ws, self.tree.qpos0())?;
                self.tendon_length(&ws, self.tree.qpos0(), t)
            }
        }
    }
}

fn invalid(key: &str, message: String) -> ModelError {
    ModelError::Invalid {
        key: key.to_string(),
        message,
    }
}
