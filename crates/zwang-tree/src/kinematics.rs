//! The forward pass: each body's pose in the world from its parent's and
//! its joints', each dof's motion (its column of the spatial Jacobian),
//! each body's spatial velocity; point Jacobians and the energies.
//!
//! Spatial vectors are in world axes about the world origin (Featherstone's
//! absolute coordinates): a motion `[w, v]` is the angular velocity and the
//! velocity of the body point at the origin, so the velocity of a body
//! point at `p` is `v + w x p`; a force `[n, f]` is the moment about the
//! origin and the force.

use zwang_core::rotation::{apply, cross, dot, matrix, mul, normalized};

use crate::model::JointKind;
use crate::spatial::{cross_motion, Inertia};
use crate::{Tree, TreeError};

/// How far a workspace has got: each call needs the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    Empty,
    Positions,
    Velocities,
}

/// The working memory of a tree's calls, made once by
/// [`Tree::workspace`]: the calls after it allocate nothing.
///
/// It holds the last positions' poses and dof motions, the last
/// velocities, the mass matrix and its factor.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub(crate) stage: Stage,
    pub(crate) xpos: Vec<[f64; 3]>,
    pub(crate) xquat: Vec<[f64; 4]>,
    pub(crate) xmat: Vec<[[f64; 3]; 3]>,
    pub(crate) inertia: Vec<Inertia>,
    pub(crate) cdof: Vec<[f64; 6]>,
    pub(crate) cvel: Vec<[f64; 6]>,
    /// Each body's velocity-product acceleration (`qdd = 0`), gravity's
    /// lift included.
    pub(crate) cacc: Vec<[f64; 6]>,
    pub(crate) cfrc: Vec<[f64; 6]>,
    pub(crate) crb: Vec<Inertia>,
    pub(crate) mass: Vec<f64>,
    pub(crate) mass_ready: bool,
    pub(crate) factor: Vec<f64>,
    pub(crate) factor_ready: bool,
    /// The articulated-body solve's per-dof working memory
    /// ([`Tree::solve_articulated`]): articulated inertias, `U = I^A s`,
    /// `D`, `u`, and the bias forces (then the accelerations).
    pub(crate) art_inertia: Vec<[[f64; 6]; 6]>,
    pub(crate) art_u: Vec<[f64; 6]>,
    pub(crate) art_d: Vec<f64>,
    pub(crate) art_r: Vec<f64>,
    pub(crate) art_p: Vec<[f64; 6]>,
}

impl Workspace {
    /// The mass matrix of the last [`Tree::mass_matrix`], in
    /// [`Tree::mass_layout`].
    pub fn mass(&self) -> &[f64] {
        &self.mass
    }

    /// The same, to add terms in its pattern before [`Tree::factor`] (a
    /// time step's implicit damping, `M + h D`); the last factor is then
    /// stale.
    pub fn mass_mut(&mut self) -> &mut [f64] {
        self.factor_ready = false;
        &mut self.mass
    }

    /// The factor of the last [`Tree::factor`], in [`Tree::mass_layout`]:
    /// `D` on the diagonal, `L`'s entries (below its unit diagonal) at the
    /// ancestors.
    pub fn factor(&self) -> &[f64] {
        &self.factor
    }
}

impl Tree {
    /// The working memory for this tree's calls.
    pub fn workspace(&self) -> Workspace {
        let nb = self.nbody();
        let nv = self.nv();
        Workspace {
            stage: Stage::Empty,
            xpos: vec![[0.0; 3]; nb],
            xquat: vec![[1.0, 0.0, 0.0, 0.0]; nb],
            xmat: vec![[[0.0; 3]; 3]; nb],
            inertia: vec![Inertia::default(); nb],
            cdof: vec![[0.0; 6]; nv],
            cvel: vec![[0.0; 6]; nb],
            cacc: vec![[0.0; 6]; nb],
            cfrc: vec![[0.0; 6]; nb],
            crb: vec![Inertia::default(); nb],
            mass: vec![0.0; self.nnz],
            mass_ready: false,
            factor: vec![0.0; self.nnz],
            factor_ready: false,
            art_inertia: vec![[[0.0; 6]; 6]; nv],
            art_u: vec![[0.0; 6]; nv],
            art_d: vec![0.0; nv],
            art_r: vec![0.0; nv],
            art_p: vec![[0.0; 6]; nv],
        }
    }

    /// The forward pass at `qpos`: every body's pose, every dof's motion
    /// and every body's spatial inertia, in world axes. Quaternions in
    /// `qpos` are used normalized (as MuJoCo's).
    pub fn positions(&self, ws: &mut Workspace, qpos: &[f64]) -> Result<(), TreeError> {
        check_length("qpos", self.nq(), qpos.len())?;
        check_finite("qpos", qpos)?;
        ws.stage = Stage::Empty;
        ws.mass_ready = false;
        ws.factor_ready = false;
        for (b, body) in self.bodies.iter().enumerate() {
            let (mut pos, mut quat) = match body.parent {
                Some(p) => (
                    add(ws.xpos[p], apply(&ws.xmat[p], body.position)),
                    mul(ws.xquat[p], body.orientation),
                ),
                None => (body.position, body.orientation),
            };
            for j in self.body_joints[b].clone() {
                let joint = &self.joints[j];
                let (qa, da) = (joint.qadr, joint.dadr);
                let rot = matrix(quat);
                match joint.kind {
                    JointKind::Hinge { axis, anchor } => {
                        let anchor_w = add(pos, apply(&rot, anchor));
                        let axis_w = apply(&rot, axis);
                        ws.cdof[da] = motion(axis_w, cross(anchor_w, axis_w));
                        let half = 0.5 * (qpos[qa] - joint.reference);
                        let s = half.sin();
                        quat = mul(quat, [half.cos(), s * axis[0], s * axis[1], s * axis[2]]);
                        pos = sub(anchor_w, apply(&matrix(quat), anchor));
                    }
                    JointKind::Slide { axis } => {
                        let axis_w = apply(&rot, axis);
                        ws.cdof[da] = motion([0.0; 3], axis_w);
                        pos = add(pos, scale(axis_w, qpos[qa] - joint.reference));
                    }
                    JointKind::Ball { anchor } => {
                        let anchor_w = add(pos, apply(&rot, anchor));
                        let local = self.quaternion(qpos, qa, j)?;
                        quat = mul(quat, local);
                        let turned = matrix(quat);
                        pos = sub(anchor_w, apply(&turned, anchor));
                        for k in 0..3 {
                            let e = column(&turned, k);
                            ws.cdof[da + k] = motion(e, cross(anchor_w, e));
                        }
                    }
                    JointKind::Free => {
                        pos = [qpos[qa], qpos[qa + 1], qpos[qa + 2]];
                        quat = self.quaternion(qpos, qa + 3, j)?;
                        let turned = matrix(quat);
                        for k in 0..3 {
                            let mut e = [0.0; 3];
                            e[k] = 1.0;
                            ws.cdof[da + k] = motion([0.0; 3], e);
                            let e = column(&turned, k);
                            ws.cdof[da + 3 + k] = motion(e, cross(pos, e));
                        }
                    }
                }
            }
            let quat = normalized(quat).unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let rot = matrix(quat);
            ws.xpos[b] = pos;
            ws.xquat[b] = quat;
            ws.xmat[b] = rot;
            ws.inertia[b] = Inertia::of_body(
                body.mass,
                add(pos, apply(&rot, body.com)),
                &rot,
                &body.inertia,
            );
        }
        ws.stage = Stage::Positions;
        Ok(())
    }

    /// Every body's spatial velocity at `qvel` (after [`Tree::positions`]),
    /// and the velocity-product accelerations the bias needs.
    pub fn velocities(&self, ws: &mut Workspace, qvel: &[f64]) -> Result<(), TreeError> {
        check_stage(ws, Stage::Positions, "velocities", "positions")?;
        check_length("qvel", self.nv(), qvel.len())?;
        check_finite("qvel", qvel)?;
        // The frame's spatial acceleration lifts everything against gravity
        // (Featherstone's trick), so the bias carries the weights.
        let lift = motion([0.0; 3], scale(self.gravity, -1.0));
        for (b, body) in self.bodies.iter().enumerate() {
            let (mut vel, mut acc) = match body.parent {
                Some(p) => (ws.cvel[p], ws.cacc[p]),
                None => ([0.0; 6], lift),
            };
            for j in self.body_joints[b].clone() {
                let joint = &self.joints[j];
                let da = joint.dadr;
                // A joint's motions turn with the frame before it (a ball's
                // and a free joint's turned axes too: the sum over their
                // dofs of the turn's own part is zero); a free joint's
                // translation moves the frame its rotation turns in.
                let parts: &[(usize, usize)] = match joint.kind {
                    JointKind::Free => &[(0, 3), (3, 6)],
                    _ => &[(0, 6)],
                };
                for &(from, to) in parts {
                    let mut step = [0.0; 6];
                    for k in from..to.min(joint.kind.nv()) {
                        axpy(&mut step, qvel[da + k], &ws.cdof[da + k]);
                    }
                    axpy(&mut acc, 1.0, &cross_motion(&vel, &step));
                    axpy(&mut vel, 1.0, &step);
                }
            }
            ws.cvel[b] = vel;
            ws.cacc[b] = acc;
        }
        ws.stage = Stage::Velocities;
        Ok(())
    }

    /// Body `body`'s pose in the world: its frame's origin and orientation
    /// (a unit quaternion), from the last [`Tree::positions`].
    pub fn pose(&self, ws: &Workspace, body: usize) -> Result<([f64; 3], [f64; 4]), TreeError> {
        self.check_body(body)?;
        check_stage(ws, Stage::Positions, "pose", "positions")?;
        Ok((ws.xpos[body], ws.xquat[body]))
    }

    /// Body `body`'s spatial velocity `[w, v]` (world axes, `v` that of the
    /// body point at the world origin), from the last [`Tree::velocities`].
    pub fn velocity(&self, ws: &Workspace, body: usize) -> Result<[f64; 6], TreeError> {
        self.check_body(body)?;
        check_stage(ws, Stage::Velocities, "velocity", "velocities")?;
        Ok(ws.cvel[body])
    }

    /// The motion of dof `dof` at unit speed (its column of the spatial
    /// Jacobian, `[w, v]` as [`Tree::velocity`]).
    pub fn dof_motion(&self, ws: &Workspace, dof: usize) -> Result<[f64; 6], TreeError> {
        check_stage(ws, Stage::Positions, "dof_motion", "positions")?;
        ws.cdof.get(dof).copied().ok_or(TreeError::Length {
            what: "dof index",
            expected: self.nv(),
            got: dof,
        })
    }

    /// The Jacobian of the world point `point` fixed to body `body`:
    /// `translation` (the point's velocity) and `rotation` (the body's
    /// angular velocity), each 3 x nv row-major. Only the columns of
    /// [`Tree::path`] are nonzero; a sparse caller visits them with
    /// [`Tree::visit_point_jacobian`] instead.
    pub fn point_jacobian(
        &self,
        ws: &Workspace,
        body: usize,
        point: [f64; 3],
        translation: &mut [f64],
        rotation: &mut [f64],
    ) -> Result<(), TreeError> {
        let nv = self.nv();
        check_length("translation", 3 * nv, translation.len())?;
        check_length("rotation", 3 * nv, rotation.len())?;
        translation.fill(0.0);
        rotation.fill(0.0);
        self.visit_point_jacobian(ws, body, point, |dof, v, w| {
            for r in 0..3 {
                translation[r * nv + dof] = v[r];
                rotation[r * nv + dof] = w[r];
            }
        })
    }

    /// The nonzero columns of the Jacobian of the world point `point`
    /// fixed to body `body` (the dofs of [`Tree::path`], from the body to
    /// the root): `visit(dof, translation, rotation)`, the point's velocity
    /// and the body's angular velocity at unit speed of the dof.
    pub fn visit_point_jacobian(
        &self,
        ws: &Workspace,
        body: usize,
        point: [f64; 3],
        mut visit: impl FnMut(usize, [f64; 3], [f64; 3]),
    ) -> Result<(), TreeError> {
        self.check_body(body)?;
        check_stage(ws, Stage::Positions, "point_jacobian", "positions")?;
        for dof in self.path(body) {
            let s = &ws.cdof[dof];
            let w = [s[0], s[1], s[2]];
            visit(dof, add([s[3], s[4], s[5]], cross(w, point)), w);
        }
        Ok(())
    }

    /// The kinetic energy `1/2 v^T M v`, summed over the bodies from their
    /// spatial velocities (after [`Tree::velocities`]).
    pub fn kinetic_energy(&self, ws: &Workspace) -> Result<f64, TreeError> {
        check_stage(ws, Stage::Velocities, "kinetic_energy", "velocities")?;
        Ok(0.5
            * ws.inertia
                .iter()
                .zip(&ws.cvel)
                .map(|(i, v)| spatial_dot(v, &i.apply(v)))
                .sum::<f64>())
    }

    /// The potential energy of gravity, `-sum m g . c` (zero at the world
    /// origin), after [`Tree::positions`].
    pub fn potential_energy(&self, ws: &Workspace) -> Result<f64, TreeError> {
        check_stage(ws, Stage::Positions, "potential_energy", "positions")?;
        // The first moment `m c` of each body is kept in its inertia.
        Ok(-ws
            .inertia
            .iter()
            .map(|i| dot(self.gravity, i.moment))
            .sum::<f64>())
    }

    /// The unit quaternion at `qpos[at..at + 4]` of joint `joint`.
    fn quaternion(&self, qpos: &[f64], at: usize, joint: usize) -> Result<[f64; 4], TreeError> {
        normalized([qpos[at], qpos[at + 1], qpos[at + 2], qpos[at + 3]]).ok_or_else(|| {
            TreeError::Quaternion {
                joint: self.joint_names[joint].clone(),
            }
        })
    }

    pub(crate) fn check_body(&self, body: usize) -> Result<(), TreeError> {
        if body < self.nbody() {
            Ok(())
        } else {
            Err(TreeError::Body {
                index: body,
                bodies: self.nbody(),
            })
        }
    }
}

pub(crate) fn check_stage(
    ws: &Workspace,
    stage: Stage,
    call: &'static str,
    needs: &'static str,
) -> Result<(), TreeError> {
    if ws.stage >= stage {
        Ok(())
    } else {
        Err(TreeError::Stage { call, needs })
    }
}

pub(crate) fn check_length(
    what: &'static str,
    expected: usize,
    got: usize,
) -> Result<(), TreeError> {
    if expected == got {
        Ok(())
    } else {
        Err(TreeError::Length {
            what,
            expected,
            got,
        })
    }
}

pub(crate) fn check_finite(what: &'static str, x: &[f64]) -> Result<(), TreeError> {
    match x.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(TreeError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// `[w, v]`.
pub(crate) fn motion(w: [f64; 3], v: [f64; 3]) -> [f64; 6] {
    [w[0], w[1], w[2], v[0], v[1], v[2]]
}

/// A motion paired with a force: power.
pub(crate) fn spatial_dot(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `y += a x`.
pub(crate) fn axpy(y: &mut [f64; 6], a: f64, x: &[f64; 6]) {
    for k in 0..6 {
        y[k] += a * x[k];
    }
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    a.map(|x| x * s)
}

fn column(r: &[[f64; 3]; 3], k: usize) -> [f64; 3] {
    [r[0][k], r[1][k], r[2][k]]
}
