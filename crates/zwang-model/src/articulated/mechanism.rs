//! An articulated model as a mechanism of the event-driven method and the
//! instant engine: Gauss's principle in joint coordinates, `M(q)` from the
//! tree (full symmetric storage in the tree's sparsity), `Q = tau - c(q,
//! v)` with the joints' and tendons' springs, damping and actuators
//! explicit, and the quaternions' rate `q' = q (0, w) / 2`.
//!
//! The limits of hinge and slide joints are frictionless contacts of the
//! method, two per limited joint (`q - low >= 0`, `high - q >= 0`): the
//! method lands on them (plastically), holds them while they push, and
//! leaves them when they would pull. Joint and fixed-tendon equalities
//! are its two-sided rows (`coupling.rs`). What it does not take yet is
//! refused when it is made, never dropped: `connect` and `weld`
//! equalities, equalities of spatial tendons, dry friction at joints,
//! tendon limits (fixed or spatial). Tendons' springs, damping and
//! actuators, spatial ones included, are forces of the model and taken.
//! Geoms' contacts are the time stepper's (the facade's event-driven runs
//! check that no two geoms meet).

use std::sync::{Mutex, MutexGuard};

use sprs::{CsMat, TriMat};
use zwang_core::rotation::mul;
use zwang_instant::{Instant, RowSet};
use zwang_tree::{JointKind, Workspace};

use super::coupling::Coupling;
use super::forces::JointAddress;
use super::Articulated;
use crate::mechanism::{
    Bodies, BodyState, ContactRows, ContactState, Contacts, Coordinates, InstantWriter, Layout,
};
use crate::ModelError;

/// The tree's working memory between calls (the traits take `&self`; an
/// uncontended lock keeps the mechanism `Sync`).
#[derive(Debug)]
struct Scratch {
    ws: Workspace,
    /// `M`'s values in the instant's storage.
    mass: Vec<f64>,
    /// The bias `c(q, v)`.
    bias: Vec<f64>,
    /// The forces `Q` and the articulated-body recursion's extra
    /// diagonal (zero) for [`InstantWriter::free_acceleration`].
    force: Vec<f64>,
    zeros: Vec<f64>,
}

/// An [`Articulated`] model, its start and its (constant) controls, as a
/// [`crate::Mechanism`].
#[derive(Debug)]
pub struct ArticulatedMechanism {
    model: Articulated,
    addresses: Vec<JointAddress>,
    qpos: Vec<f64>,
    qvel: Vec<f64>,
    ctrl: Vec<f64>,
    /// `M`'s pattern in full symmetric storage, and for each stored entry
    /// its place in the tree's layout.
    indptr: Vec<usize>,
    indices: Vec<usize>,
    layout_of: Vec<usize>,
    /// The joint limits as contacts, in order.
    limits: Vec<Limit>,
    /// The joint and tendon equalities, the instant's two-sided rows.
    couplings: Vec<Coupling>,
    scratch: Mutex<Scratch>,
}

/// One end of a joint's range: `sign (q - bound) >= 0` on the joint's
/// coordinate `qpos` and dof `dof`.
#[derive(Debug, Clone)]
struct Limit {
    name: String,
    qpos: usize,
    dof: usize,
    bound: f64,
    /// `+1` at the low end, `-1` at the high one.
    sign: f64,
}

impl ArticulatedMechanism {
    /// The mechanism of `model` started at `(qpos, qvel)` with controls
    /// `ctrl` (one per actuator, held).
    ///
    /// Errors: arrays of the wrong length or not finite, forces that
    /// cannot be computed ([`Articulated::check_forces`]), and what the
    /// event-driven method does not take yet (`connect` and `weld`
    /// equalities, tendon limits, equalities of spatial tendons, dry
    /// friction at joints).
    pub fn new(
        model: Articulated,
        qpos: Vec<f64>,
        qvel: Vec<f64>,
        ctrl: Vec<f64>,
    ) -> Result<ArticulatedMechanism, ModelError> {
        let tree = &model.tree;
        for (what, got, expected) in [
            ("qpos", qpos.len(), tree.nq()),
            ("qvel", qvel.len(), tree.nv()),
            ("ctrl", ctrl.len(), model.actuators.len()),
        ] {
            if got != expected {
                return Err(invalid(what, format!("{got} numbers, expected {expected}")));
            }
        }
        for (what, x) in [("qpos", &qpos), ("qvel", &qvel), ("ctrl", &ctrl)] {
            if let Some(i) = x.iter().position(|x| !x.is_finite()) {
                return Err(invalid(&format!("{what}[{i}]"), "not finite".into()));
            }
        }
        model.check_forces()?;
        if let Some(t) = model.tendons.iter().find(|t| t.range.is_some()) {
            return Err(invalid(
                &format!("tendon[{}].range", t.name),
                "tendon limits are not supported by the event-driven method yet".into(),
            ));
        }
        if let Some(p) = model.joints.iter().find(|p| p.frictionloss != 0.0) {
            return Err(invalid(
                &format!("joint[{}].frictionloss", p.name),
                "dry friction at joints is not supported by the event-driven method yet".into(),
            ));
        }
        let addresses = model.joint_addresses();
        let couplings = Coupling::of(&model, &addresses)?;
        let mut limits = Vec::new();
        for (p, a) in model.joints.iter().zip(&addresses) {
            let Some([low, high]) = p.range else { continue };
            match a.kind {
                JointKind::Hinge { .. } | JointKind::Slide { .. } => {}
                _ => {
                    return Err(invalid(
                        &format!("joint[{}].range", p.name),
                        "limits of ball joints are not supported by the event-driven method yet"
                            .into(),
                    ))
                }
            }
            for (end, bound, sign) in [("low", low, 1.0), ("high", high, -1.0)] {
                if bound.is_finite() {
                    limits.push(Limit {
                        name: format!("joint[{}].range {end}", p.name),
                        qpos: a.qpos,
                        dof: a.dof,
                        bound,
                        sign,
                    });
                }
            }
        }
        let (indptr, indices, layout_of) = full_pattern(tree);
        let scratch = Scratch {
            ws: tree.workspace(),
            mass: vec![0.0; layout_of.len()],
            bias: vec![0.0; tree.nv()],
            force: vec![0.0; tree.nv()],
            zeros: vec![0.0; tree.nv()],
        };
        Ok(ArticulatedMechanism {
            addresses,
            model,
            limits,
            couplings,
            qpos,
            qvel,
            ctrl,
            indptr,
            indices,
            layout_of,
            scratch: Mutex::new(scratch),
        })
    }

    /// The model.
    pub fn model(&self) -> &Articulated {
        &self.model
    }

    /// The controls, held along the run.
    pub fn ctrl(&self) -> &[f64] {
        &self.ctrl
    }

    /// How far `qpos` passes a joint limit (rad or m; 0 inside every
    /// range, or with none).
    pub fn limit_violation(&self, qpos: &[f64]) -> f64 {
        self.model
            .joints
            .iter()
            .zip(&self.addresses)
            .filter_map(|(p, a)| match (p.range, a.kind) {
                (Some([lo, hi]), JointKind::Hinge { .. } | JointKind::Slide { .. }) => {
                    let q = qpos[a.qpos];
                    Some((lo - q).max(q - hi).max(0.0))
                }
                _ => None,
            })
            .fold(0.0, f64::max)
    }

    fn lock(&self) -> MutexGuard<'_, Scratch> {
        // A panic elsewhere while it was held leaves only stale numbers,
        // all overwritten before use.
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `M` and `Q = tau - c` at `(q, v)` into the scratch and `force`.
    fn evaluate(&self, q: &[f64], v: &[f64], force: &mut [f64]) -> Result<(), ModelError> {
        let tree = &self.model.tree;
        let mut guard = self.lock();
        let Scratch { ws, mass, bias, .. } = &mut *guard;
        self.forces(ws, bias, q, v, force).map_err(tree_error)?;
        tree.mass_matrix(ws).map_err(tree_error)?;
        let layout = ws.mass();
        for (m, &k) in mass.iter_mut().zip(&self.layout_of) {
            *m = layout[k];
        }
        Ok(())
    }

    /// The tree's kinematics at `(q, v)` into `ws` and the forces
    /// `Q = -c(q, v) + ` joint, spring, damping and actuator forces into
    /// `force` (`bias` holds `c`).
    fn forces(
        &self,
        ws: &mut Workspace,
        bias: &mut [f64],
        q: &[f64],
        v: &[f64],
        force: &mut [f64],
    ) -> Result<(), zwang_tree::TreeError> {
        let tree = &self.model.tree;
        tree.positions(ws, q)?;
        tree.velocities(ws, v)?;
        tree.bias(ws, bias)?;
        for (f, c) in force.iter_mut().zip(bias.iter()) {
            *f = -c;
        }
        self.model
            .add_forces(ws, &self.addresses, q, v, &self.ctrl, true, force)
    }
}

/// `M`'s pattern in full symmetric storage from the tree's layout (each
/// dof with its ancestors): row pointers, columns (sorted in each row),
/// and for each stored entry its index in the layout. Symmetric: the same
/// as compressed columns.
pub fn full_pattern(tree: &zwang_tree::Tree) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (start, _) = tree.mass_layout();
    let mut entries: Vec<(usize, usize, usize)> = Vec::new();
    for i in 0..tree.nv() {
        for (k, a) in tree.ancestors(i).enumerate() {
            entries.push((i, a, start[i] + k));
            if a != i {
                entries.push((a, i, start[i] + k));
            }
        }
    }
    entries.sort_unstable();
    let mut indptr = vec![0; tree.nv() + 1];
    for &(r, _, _) in &entries {
        indptr[r + 1] += 1;
    }
    for r in 0..tree.nv() {
        indptr[r + 1] += indptr[r];
    }
    let indices = entries.iter().map(|e| e.1).collect();
    let layout_of = entries.iter().map(|e| e.2).collect();
    (indptr, indices, layout_of)
}

fn tree_error(e: zwang_tree::TreeError) -> ModelError {
    invalid("tree", e.to_string())
}

fn invalid(key: &str, message: String) -> ModelError {
    ModelError::Invalid {
        key: key.to_string(),
        message,
    }
}

impl ArticulatedMechanism {
    /// Refuses modes that are not one per limit.
    fn check_modes(&self, modes: &[ContactState]) -> Result<(), ModelError> {
        if modes.len() == self.limits.len() {
            Ok(())
        } else {
            Err(invalid(
                "modes",
                format!(
                    "{} contact modes for {} joint limits",
                    modes.len(),
                    self.limits.len()
                ),
            ))
        }
    }
}

impl Coordinates for ArticulatedMechanism {
    fn nq(&self) -> usize {
        self.model.tree.nq()
    }
    fn nv(&self) -> usize {
        self.model.tree.nv()
    }
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        q.copy_from_slice(&self.qpos);
        v.copy_from_slice(&self.qvel);
    }
    fn position_rate(&self, q: &[f64], v: &[f64], qdot: &mut [f64]) {
        let turn = |at: usize, w: &[f64], qdot: &mut [f64]| {
            let frame = [q[at], q[at + 1], q[at + 2], q[at + 3]];
            let rate = mul(frame, [0.0, w[0], w[1], w[2]]);
            for k in 0..4 {
                qdot[at + k] = 0.5 * rate[k];
            }
        };
        for a in &self.addresses {
            let (qa, da) = (a.qpos, a.dof);
            match a.kind {
                JointKind::Hinge { .. } | JointKind::Slide { .. } => qdot[qa] = v[da],
                JointKind::Ball { .. } => turn(qa, &v[da..da + 3], qdot),
                JointKind::Free => {
                    qdot[qa..qa + 3].copy_from_slice(&v[da..da + 3]);
                    turn(qa + 3, &v[da + 3..da + 6], qdot);
                }
            }
        }
    }
    fn displace(&self, q: &mut [f64], dv: &[f64]) {
        // Lengths are the mechanism's own and `dv` finite where the
        // stepper calls this; a failure leaves `q` as it was.
        let _ = self.model.tree.integrate(q, dv, 1.0);
    }
}

impl InstantWriter for ArticulatedMechanism {
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError> {
        self.check_modes(modes)?;
        let n = self.model.tree.nv();
        let mut diagonal = vec![0.0; self.indices.len()];
        for r in 0..n {
            for k in self.indptr[r]..self.indptr[r + 1] {
                diagonal[k] = if self.indices[k] == r { 1.0 } else { 0.0 };
            }
        }
        let mass = CsMat::new((n, n), self.indptr.clone(), self.indices.clone(), diagonal);
        let mut layout = Layout {
            joint_rows: self.couplings.len(),
            contacts: vec![ContactRows::default(); self.limits.len()],
        };
        let closed = modes.iter().filter(|m| m.is_closed()).count();
        let mut rows = TriMat::new((closed, n));
        let mut count = 0;
        for (k, limit) in self.limits.iter().enumerate() {
            if modes[k].is_closed() {
                rows.add_triplet(count, limit.dof, limit.sign);
                layout.contacts[k].normal = Some(count);
                count += 1;
            }
        }
        let mut builder = Instant::builder(mass, vec![0.0; n]);
        if !self.couplings.is_empty() {
            let (mut indptr, mut indices) = (vec![0], Vec::new());
            for c in &self.couplings {
                indices.extend_from_slice(&c.dofs);
                indptr.push(indices.len());
            }
            let values = vec![0.0; indices.len()];
            let rows = CsMat::new((self.couplings.len(), n), indptr, indices, values);
            builder = builder.equalities(rows, vec![0.0; self.couplings.len()]);
        }
        if count > 0 {
            builder = builder.inequalities(rows.to_csr(), vec![0.0; count]);
        }
        let mut instant = builder.build()?;
        self.update_instant(t, q, v, modes, &mut instant)?;
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
        self.check_modes(modes)?;
        let mut result = Ok(());
        instant.edit_force(|force| result = self.evaluate(q, v, force))?;
        result?;
        if !self.couplings.is_empty() {
            instant.edit_rows(RowSet::Equalities, |values, rhs| {
                let mut start = 0;
                for (c, b) in self.couplings.iter().zip(rhs) {
                    let end = start + c.dofs.len();
                    *b = c.write(q, v, &mut values[start..end]);
                    start = end;
                }
            })?;
        }
        let guard = self.lock();
        instant.set_mass_values(&guard.mass)?;
        Ok(())
    }
    fn free_acceleration(
        &self,
        _t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        a: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        if !self.couplings.is_empty() || modes.iter().any(|m| m.is_closed()) {
            return None;
        }
        let tree = &self.model.tree;
        let mut guard = self.lock();
        let Scratch {
            ws,
            bias,
            force,
            zeros,
            ..
        } = &mut *guard;
        let solved = self
            .forces(ws, bias, q, v, force)
            .and_then(|()| tree.solve_articulated(ws, zeros, force, a));
        Some(solved.map_err(tree_error))
    }
    fn violations(
        &self,
        _t: f64,
        q: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        for (row, c) in eq.iter_mut().zip(&self.couplings) {
            *row = c.violation(q);
        }
        let closed =
            (0..self.limits.len()).filter(|&k| modes.get(k).is_some_and(|m| m.is_closed()));
        for (row, k) in ineq.iter_mut().zip(closed) {
            *row = self.gap(k, q);
        }
    }

    fn joint_row_name(&self, row: usize) -> String {
        self.couplings
            .get(row)
            .map_or_else(|| format!("joint row {row}"), |c| c.name.clone())
    }
}

/// The joint limits, frictionless and plastic.
impl Contacts for ArticulatedMechanism {
    fn contacts(&self) -> usize {
        self.limits.len()
    }
    fn contact_name(&self, k: usize) -> &str {
        &self.limits[k].name
    }
    fn gap(&self, k: usize, q: &[f64]) -> f64 {
        let l = &self.limits[k];
        l.sign * (q[l.qpos] - l.bound)
    }
    fn contact_velocity(&self, k: usize, _q: &[f64], v: &[f64]) -> (f64, f64) {
        let l = &self.limits[k];
        (l.sign * v[l.dof], 0.0)
    }
}

/// The tree's bodies: each frame's origin and its velocity, world axes.
impl Bodies for ArticulatedMechanism {
    fn bodies(&self) -> usize {
        self.model.tree.nbody()
    }
    fn body_name(&self, b: usize) -> &str {
        &self.model.tree.bodies()[b].name
    }
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState {
        let tree = &self.model.tree;
        let mut guard = self.lock();
        let ws = &mut guard.ws;
        let state = tree
            .positions(ws, q)
            .and_then(|()| tree.velocities(ws, v))
            .and_then(|()| Ok((tree.pose(ws, b)?, tree.velocity(ws, b)?)));
        match state {
            Ok(((x, _), s)) => {
                // The velocity of the body point at the origin, carried to
                // the frame's origin: v + w x x.
                let w = [s[0], s[1], s[2]];
                let c = zwang_core::rotation::cross(w, x);
                BodyState {
                    position: x.to_vec(),
                    velocity: vec![s[3] + c[0], s[4] + c[1], s[5] + c[2]],
                    angle: None,
                    angular_velocity: None,
                }
            }
            Err(_) => BodyState {
                position: vec![f64::NAN; 3],
                velocity: vec![f64::NAN; 3],
                angle: None,
                angular_velocity: None,
            },
        }
    }
    fn energy(&self, _t: f64, q: &[f64], v: &[f64]) -> f64 {
        let mut guard = self.lock();
        self.model
            .energy(&mut guard.ws, &self.addresses, q, v)
            .unwrap_or(f64::NAN)
    }
}
