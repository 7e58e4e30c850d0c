//! Moving along the joints' manifolds: `q (+) h v` (hinge and slide
//! coordinates add, ball and free quaternions turn by `exp`), and its
//! inverse, the difference of two `qpos` (MuJoCo's `mj_integratePos` and
//! `mj_differentiatePos`).

use zwang_core::rotation::{conjugate, exp, mul, normalized};

use crate::kinematics::{check_finite, check_length};
use crate::model::JointKind;
use crate::{Tree, TreeError};

impl Tree {
    /// `qpos <- qpos (+) h qvel`: hinge and slide coordinates move by
    /// `h v`, a free joint's position by `h` times its world velocity, and
    /// each quaternion turns by `exp(h w)` with `w` its angular velocity in
    /// the turned frame (then normalized).
    pub fn integrate(&self, qpos: &mut [f64], qvel: &[f64], h: f64) -> Result<(), TreeError> {
        check_length("qpos", self.nq(), qpos.len())?;
        check_length("qvel", self.nv(), qvel.len())?;
        check_finite("qvel", qvel)?;
        for (j, joint) in self.joints.iter().enumerate() {
            let (qa, da) = (joint.qadr, joint.dadr);
            match joint.kind {
                JointKind::Hinge { .. } | JointKind::Slide { .. } => qpos[qa] += h * qvel[da],
                JointKind::Ball { .. } => self.turn(qpos, qa, &qvel[da..da + 3], h, j)?,
                JointKind::Free => {
                    for k in 0..3 {
                        qpos[qa + k] += h * qvel[da + k];
                    }
                    self.turn(qpos, qa + 3, &qvel[da + 3..da + 6], h, j)?;
                }
            }
        }
        Ok(())
    }

    /// The velocity that carries `from` to `to` in unit time: `from (+)
    /// out = to` (the shorter way round for quaternions). Into `out`
    /// (length nv).
    pub fn difference(&self, from: &[f64], to: &[f64], out: &mut [f64]) -> Result<(), TreeError> {
        check_length("from", self.nq(), from.len())?;
        check_length("to", self.nq(), to.len())?;
        check_length("out", self.nv(), out.len())?;
        for (j, joint) in self.joints.iter().enumerate() {
            let (qa, da) = (joint.qadr, joint.dadr);
            let rotation = |at: usize, out: &mut [f64]| -> Result<(), TreeError> {
                let a = self.unit_at(from, at, j)?;
                let b = self.unit_at(to, at, j)?;
                out.copy_from_slice(&log(mul(conjugate(a), b)));
                Ok(())
            };
            match joint.kind {
                JointKind::Hinge { .. } | JointKind::Slide { .. } => out[da] = to[qa] - from[qa],
                JointKind::Ball { .. } => rotation(qa, &mut out[da..da + 3])?,
                JointKind::Free => {
                    for k in 0..3 {
                        out[da + k] = to[qa + k] - from[qa + k];
                    }
                    rotation(qa + 3, &mut out[da + 3..da + 6])?;
                }
            }
        }
        Ok(())
    }

    /// Turn the quaternion at `qpos[at..at + 4]` by `exp(h w)`.
    fn turn(
        &self,
        qpos: &mut [f64],
        at: usize,
        w: &[f64],
        h: f64,
        joint: usize,
    ) -> Result<(), TreeError> {
        let q = self.unit_at(qpos, at, joint)?;
        let turned = mul(q, exp([h * w[0], h * w[1], h * w[2]]));
        let turned = normalized(turned).unwrap_or(q);
        qpos[at..at + 4].copy_from_slice(&turned);
        Ok(())
    }

    fn unit_at(&self, qpos: &[f64], at: usize, joint: usize) -> Result<[f64; 4], TreeError> {
        normalized([qpos[at], qpos[at + 1], qpos[at + 2], qpos[at + 3]]).ok_or_else(|| {
            TreeError::Quaternion {
                joint: self.joint_names[joint].clone(),
            }
        })
    }
}

/// The rotation vector (axis times angle, the angle in `[0, pi]`) of a
/// unit quaternion: the inverse of `exp`.
pub fn log(q: [f64; 4]) -> [f64; 3] {
    let q = if q[0] < 0.0 { q.map(|x| -x) } else { q };
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    // angle / sin(angle / 2), by its series where sin is tiny.
    let k = if s < 1e-8 {
        2.0 / q[0]
    } else {
        2.0 * s.atan2(q[0]) / s
    };
    [k * q[1], k * q[2], k * q[3]]
}
