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
                TendonPath::Spatial(_) => {
                    return Err(invalid(
                        &format!("tendon[{}]", t.name),
                        "spatial tendons are not supported yet".into(),
                    ))
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
    /// when `damping` is set, joint and tendon damping `-d v`. Call
    /// [`Articulated::check_forces`] once first; `addresses` is
    /// [`Articulated::joint_addresses`].
    pub fn add_forces(
        &self,
        addresses: &[JointAddress],
        qpos: &[f64],
        qvel: &[f64],
        ctrl: &[f64],
        damping: bool,
        out: &mut [f64],
    ) {
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
        for t in &self.tendons {
            let TendonPath::Fixed(terms) = &t.path else {
                continue;
            };
            let (length, rate) = fixed_length(terms, addresses, qpos, qvel);
            let mut force = 0.0;
            if t.stiffness != 0.0 {
                force -= t.stiffness * (length - self.rest_length(t, addresses));
            }
            if damping {
                force -= t.damping * rate;
            }
            if force != 0.0 {
                for &(j, c) in terms {
                    out[addresses[j].dof] += c * force;
                }
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
                Transmission::Tendon(t) => match &self.tendons[t].path {
                    TendonPath::Fixed(terms) => fixed_length(terms, addresses, qpos, qvel),
                    TendonPath::Spatial(_) => continue,
                },
            };
            let force = act.gain * u
                + act.bias[0]
                + act.bias[1] * act.gear * length
                + act.bias[2] * act.gear * rate;
            let force = act.forcerange.map_or(force, |[lo, hi]| force.clamp(lo, hi));
            match act.transmission {
                Transmission::Joint(j) => out[addresses[j].dof] += act.gear * force,
                Transmission::Tendon(t) => {
                    if let TendonPath::Fixed(terms) = &self.tendons[t].path {
                        for &(j, c) in terms {
                            out[addresses[j].dof] += act.gear * c * force;
                        }
                    }
                }
            }
        }
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
        Ok(motion + self.spring_energy(addresses, qpos))
    }

    /// The energy stored in joint and tendon springs at `qpos`.
    pub fn spring_energy(&self, addresses: &[JointAddress], qpos: &[f64]) -> f64 {
        let joints: f64 = self
            .joints
            .iter()
            .zip(addresses)
            .filter(|(p, a)| p.stiffness != 0.0 && a.kind.nv() == 1)
            .map(|(p, a)| 0.5 * p.stiffness * (qpos[a.qpos] - p.springref).powi(2))
            .sum();
        let tendons: f64 = self
            .tendons
            .iter()
            .filter_map(|t| match &t.path {
                TendonPath::Fixed(terms) if t.stiffness != 0.0 => {
                    let (length, _) = fixed_length(terms, addresses, qpos, &[]);
                    let rest = self.rest_length(t, addresses);
                    Some(0.5 * t.stiffness * (length - rest).powi(2))
                }
                _ => None,
            })
            .sum();
        joints + tendons
    }
}

impl Articulated {
    /// A tendon spring's rest length: the one given, or the length at
    /// `qpos0`.
    fn rest_length(&self, t: &super::Tendon, addresses: &[JointAddress]) -> f64 {
        match (&t.path, t.springlength) {
            (_, Some(rest)) => rest,
            (TendonPath::Fixed(terms), None) => {
                fixed_length(terms, addresses, self.tree.qpos0(), &[]).0
            }
            (TendonPath::Spatial(_), None) => 0.0,
        }
    }
}

/// A fixed tendon's length and rate (the rate 0 when `qvel` is empty).
fn fixed_length(
    terms: &[(usize, f64)],
    addresses: &[JointAddress],
    qpos: &[f64],
    qvel: &[f64],
) -> (f64, f64) {
    terms.iter().fold((0.0, 0.0), |(l, r), &(j, c)| {
        let a = addresses[j];
        (
            l + c * qpos[a.qpos],
            r + c * qvel.get(a.dof).copied().unwrap_or(0.0),
        )
    })
}

fn invalid(key: &str, message: String) -> ModelError {
    ModelError::Invalid {
        key: key.to_string(),
        message,
    }
}
