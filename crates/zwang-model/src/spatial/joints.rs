//! Joints in space: their velocity rows `J_E v` over the principal-frame
//! coordinates of [`SpatialModel`] and their position errors, for the
//! time stepper (which holds `J_E v = 0` in every step and projects the
//! errors away at its end).
//!
//! The rows of each kind (world directions; `p_a`, `p_b` the anchors in
//! the world, `w_a`, `w_b` the angular velocities in the world):
//!
//! - `ball`: the anchors' relative velocity along `x, y, z` (3 rows);
//!   error `p_b - p_a`;
//! - `hinge`: a ball, and the relative angular velocity along the two
//!   directions `t1, t2` across the first body's axis `a` (2 rows); error
//!   `t_i . (a x a_b)`, `a_b` the axis carried by the second body;
//! - `slider`: the relative angular velocity along `x, y, z` (3 rows), and
//!   the velocity of the second anchor relative to the first body's point
//!   there along `t1, t2` across the axis (2 rows); errors the rotation
//!   vector of the relative turn and `t_i . (p_b - p_a)`;
//! - `weld`: a ball and the three angular rows of a slider (6 rows);
//! - `distance`: the anchors' relative velocity along their separation
//!   (1 row); error `|p_b - p_a| - length`.
//!
//! Each row is the time derivative of its error (at zero error for the
//! angular ones), so `J_E dq = -e` is Newton's step of the drift. The
//! event-driven method holds the rows at acceleration level with their
//! rates `J' v` ([`SpatialModel::joint_rates`]).

use super::rotation::{
    apply, apply_transpose, conjugate, cross, dot, matrix, mul, normalized, tangents, tangents_rate,
};
use super::SpatialModel;
use crate::ModelError;

/// What a spatial joint holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpatialJointKind {
    /// The anchors coincide; the bodies turn freely (spherical joint).
    Ball,
    /// The anchors coincide and the bodies turn about `axis` only (in the
    /// first body's frame; ground: world).
    Hinge {
        /// Nonzero; normalised by the model.
        axis: [f64; 3],
    },
    /// The bodies keep their relative orientation and the second anchor
    /// moves along the line through the first with direction `axis`
    /// (first body's frame; ground: world).
    Slider {
        /// Nonzero; normalised by the model.
        axis: [f64; 3],
    },
    /// The anchors coincide and the bodies keep their relative
    /// orientation (the initial one).
    Weld,
    /// The anchors keep the distance `length` (`None`: the initial one).
    Distance {
        /// m, > 0.
        length: Option<f64>,
    },
}

/// A joint between two bodies (`None`: ground, the world frame), each
/// anchor in its body's frame (ground: world; a fixed body's frame is
/// taken to the world by its pose).
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialJoint {
    /// What it holds.
    pub kind: SpatialJointKind,
    /// Body indices (into the model's bodies), `None` for ground.
    pub bodies: [Option<usize>; 2],
    /// One point per body, in its frame.
    pub anchors: [[f64; 3]; 2],
}

/// One end of a joint as the model keeps it: a moving body (its moving
/// index, the anchor in its principal frame) or the world (the anchor in
/// the world).
#[derive(Debug, Clone, Copy)]
pub(super) struct End {
    pub mover: Option<usize>,
    pub anchor: [f64; 3],
}

/// A joint as the model keeps it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    pub kind: Kind,
    pub ends: [End; 2],
}

/// The kinds with what their rows need, in principal frames.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    Ball,
    /// The axis in the first end's frame and in the second's.
    Hinge {
        axis: [[f64; 3]; 2],
    },
    /// The axis in the first end's frame, the initial relative turn
    /// `conj(q_a) q_b`.
    Slider {
        axis: [f64; 3],
        relative: [f64; 4],
    },
    Weld {
        relative: [f64; 4],
    },
    Distance {
        length: f64,
    },
}

impl Kind {
    /// Rows of the kind.
    fn rows(&self) -> usize {
        match self {
            Kind::Ball => 3,
            Kind::Hinge { .. } | Kind::Slider { .. } => 5,
            Kind::Weld { .. } => 6,
            Kind::Distance { .. } => 1,
        }
    }
}

fn invalid(key: String, message: &str) -> ModelError {
    ModelError::Invalid {
        key,
        message: message.to_string(),
    }
}

/// The joint rows of a model at `q`: `entries[starts[i]..starts[i + 1]]`
/// are row `i`'s `(column, value)` over `v`, `errors[i]` its position
/// error. Buffers are reused (no allocation once grown).
#[derive(Debug, Clone, Default)]
pub struct JointRows {
    /// `(column, value)`, row by row.
    pub entries: Vec<(usize, f64)>,
    /// Row `i` is `entries[starts[i]..starts[i + 1]]` (`starts[0] = 0`).
    pub starts: Vec<usize>,
    /// Per row, the position error (m, or rad for angular rows).
    pub errors: Vec<f64>,
}

impl JointRows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// Row `i`'s entries.
    pub fn row(&self, i: usize) -> &[(usize, f64)] {
        &self.entries[self.starts[i]..self.starts[i + 1]]
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.starts.clear();
        self.starts.push(0);
        self.errors.clear();
    }

    fn close_row(&mut self, error: f64) {
        self.starts.push(self.entries.len());
        self.errors.push(error);
    }
}

/// Where an end is now: its frame's rotation (principal; world: identity),
/// centre and anchor in the world.
pub(super) struct Placed {
    pub mover: Option<usize>,
    pub rotation: [[f64; 3]; 3],
    pub quaternion: [f64; 4],
    pub centre: [f64; 3],
    pub anchor: [f64; 3],
}

impl SpatialModel {
    /// The model with `joints` (checked: bodies that exist and are not the
    /// same or both fixed, finite anchors, a nonzero axis, a positive
    /// length); their reference turns and default lengths are those of the
    /// initial state. Errors name `joint[i].KEY`.
    pub fn with_joints(mut self, joints: Vec<SpatialJoint>) -> Result<SpatialModel, ModelError> {
        let (mut q, mut v) = (vec![0.0; self.nq()], vec![0.0; self.nv()]);
        self.initial_state(&mut q, &mut v);
        let mut held = Vec::with_capacity(joints.len());
        for (i, j) in joints.iter().enumerate() {
            let key = |k: &str| format!("joint[{i}].{k}");
            let ends = self.ends(j.bodies, j.anchors, &format!("joint[{i}]"))?;
            // The first end's axis in its frame (a fixed body's turned to
            // the world, then into nothing: the world is its frame).
            let axis_of = |axis: [f64; 3]| -> Result<[f64; 3], ModelError> {
                let axis =
                    normalized(axis).ok_or_else(|| invalid(key("axis"), "must be nonzero"))?;
                Ok(match j.bodies[0] {
                    Some(b) => match self.moving[b] {
                        Some(m) => apply_transpose(&matrix(self.movers[m].principal), axis),
                        None => apply(&matrix(self.bodies[b].orientation), axis),
                    },
                    None => axis,
                })
            };
            let placed = ends.map(|e| self.place(&q, e));
            let relative = mul(conjugate(placed[0].quaternion), placed[1].quaternion);
            let kind = match j.kind {
                SpatialJointKind::Ball => Kind::Ball,
                SpatialJointKind::Hinge { axis } => {
                    let a = axis_of(axis)?;
                    let world = apply(&placed[0].rotation, a);
                    Kind::Hinge {
                        axis: [a, apply_transpose(&placed[1].rotation, world)],
                    }
                }
                SpatialJointKind::Slider { axis } => Kind::Slider {
                    axis: axis_of(axis)?,
                    relative,
                },
                SpatialJointKind::Weld => Kind::Weld { relative },
                SpatialJointKind::Distance { length } => {
                    let d = [0, 1, 2].map(|c| placed[1].anchor[c] - placed[0].anchor[c]);
                    let initial = dot(d, d).sqrt();
                    match length {
                        Some(l) if !(l.is_finite() && l > 0.0) => {
                            return Err(invalid(key("length"), "must be > 0"));
                        }
                        Some(l) => Kind::Distance { length: l },
                        None if initial > 0.0 => Kind::Distance { length: initial },
                        None => {
                            return Err(invalid(
                                key("length"),
                                "must be > 0 (the default, the initial distance of the anchors, is 0)",
                            ));
                        }
                    }
                }
            };
            held.push(Held { kind, ends });
        }
        self.joints = held;
        self.joint_list = joints;
        Ok(self)
    }

    /// The joints as given to [`SpatialModel::with_joints`] (anchors and
    /// axes in their bodies' frames, as the scene file has them).
    pub fn joint_list(&self) -> &[SpatialJoint] {
        &self.joint_list
    }

    /// The two ends of a joint or a spring `what` (`joint[i]`,
    /// `spring[i]`): bodies that exist and are not the same or both fixed,
    /// finite anchors, each anchor taken to its moving body's principal
    /// frame or to the world.
    pub(super) fn ends(
        &self,
        bodies: [Option<usize>; 2],
        anchors: [[f64; 3]; 2],
        what: &str,
    ) -> Result<[End; 2], ModelError> {
        let key = |k: &str| format!("{what}.{k}");
        let mut ends = [End {
            mover: None,
            anchor: [0.0; 3],
        }; 2];
        for k in 0..2 {
            if !anchors[k].iter().all(|x| x.is_finite()) {
                return Err(invalid(key(&format!("anchors[{k}]")), "must be finite"));
            }
            ends[k] = match bodies[k] {
                None => End {
                    mover: None,
                    anchor: anchors[k],
                },
                Some(b) if b >= self.bodies.len() => {
                    return Err(invalid(key(&format!("bodies[{k}]")), "no such body"));
                }
                Some(b) => match self.moving[b] {
                    Some(m) => End {
                        mover: Some(m),
                        anchor: apply_transpose(&matrix(self.movers[m].principal), anchors[k]),
                    },
                    None => {
                        let body = &self.bodies[b];
                        let p = apply(&matrix(body.orientation), anchors[k]);
                        End {
                            mover: None,
                            anchor: [0, 1, 2].map(|c| body.position[c] + p[c]),
                        }
                    }
                },
            };
        }
        if ends[0].mover.is_none() && ends[1].mover.is_none() {
            return Err(invalid(
                key("bodies"),
                "joins two fixed bodies (one must be a moving body)",
            ));
        }
        if bodies[0].is_some() && bodies[0] == bodies[1] {
            return Err(invalid(key("bodies"), "joins a body to itself"));
        }
        Ok(ends)
    }

    /// The number of joints.
    pub fn joints(&self) -> usize {
        self.joints.len()
    }

    /// The number of joint rows.
    pub fn joint_rows_count(&self) -> usize {
        self.joints.iter().map(|j| j.kind.rows()).sum()
    }

    /// The rows of joint `j`.
    pub fn joint_row_count(&self, j: usize) -> usize {
        self.joints[j].kind.rows()
    }

    /// The pairs of moving bodies (moving indices) a joint joins: they do
    /// not collide.
    pub fn joined_pairs(&self) -> Vec<[usize; 2]> {
        self.joints
            .iter()
            .filter_map(|j| match (j.ends[0].mover, j.ends[1].mover) {
                (Some(a), Some(b)) => Some([a, b]),
                _ => None,
            })
            .collect()
    }

    /// Per joint, the moving bodies (moving indices) at its ends.
    pub fn joint_movers(&self, joint: usize) -> [Option<usize>; 2] {
        self.joints[joint].ends.map(|e| e.mover)
    }

    /// Each joint row's `J' v` at `(q, v)` (the rows' rate along the
    /// motion at fixed `v`), into `out`, row for row as
    /// [`SpatialModel::joint_rows`]: the acceleration rows of the
    /// event-driven method are `J a = -J' v`. World angular velocities are
    /// constant at fixed `v` (`R' w_body = w x w = 0`), so only the rows'
    /// directions and arms move: arms turn with their bodies, tangents of
    /// an axis with the first body, a distance joint's direction with the
    /// separation; fixed world directions (a ball's, a turn's) do not.
    /// Errors: a distance joint whose anchors coincide, as for the rows.
    pub fn joint_rates(&self, q: &[f64], v: &[f64], out: &mut Vec<f64>) -> Result<(), ModelError> {
        out.clear();
        for (i, j) in self.joints.iter().enumerate() {
            let [a, b] = j.ends.map(|e| Moving::new(self.place(q, e), v));
            // A ball's rows: the anchors' centripetal accelerations.
            let ball = |out: &mut Vec<f64>| {
                let (ca, cb) = (a.centripetal(a.at.anchor), b.centripetal(b.at.anchor));
                out.extend((0..3).map(|k| cb[k] - ca[k]));
            };
            match j.kind {
                Kind::Ball => ball(out),
                Kind::Hinge { axis } => {
                    ball(out);
                    // t . (w_b - w_a), t across the axis turning with a.
                    let wa = apply(&a.at.rotation, axis[0]);
                    let (d1, d2) = tangents_rate(wa, cross(a.omega, wa));
                    let relative = [0, 1, 2].map(|k| b.omega[k] - a.omega[k]);
                    out.extend([dot(d1, relative), dot(d2, relative)]);
                }
                Kind::Slider { axis, .. } => {
                    // The turn's rows are fixed world directions.
                    out.extend([0.0; 3]);
                    // t . (v_b(p_b) - v_a(p_b)): t turns with a, the arm of
                    // b with b, a's arm to p_b as p_b and a's centre move.
                    let wa = apply(&a.at.rotation, axis);
                    let (t1, t2) = tangents(wa);
                    let (d1, d2) = tangents_rate(wa, cross(a.omega, wa));
                    let pb = b.at.anchor;
                    let (vb, va) = (b.velocity(pb), a.velocity(pb));
                    let slip = [0, 1, 2].map(|k| vb[k] - va[k]);
                    let cb = b.centripetal(pb);
                    let arm_a = cross(a.omega, [0, 1, 2].map(|k| vb[k] - a.linear[k]));
                    let turned = [0, 1, 2].map(|k| cb[k] - arm_a[k]);
                    for (t, d) in [(t1, d1), (t2, d2)] {
                        out.push(dot(d, slip) + dot(t, turned));
                    }
                }
                Kind::Weld { .. } => {
                    ball(out);
                    out.extend([0.0; 3]);
                }
                Kind::Distance { length } => {
                    // n . (v_b - v_a): n turns at (r - n (n . r)) / d, r the
                    // anchors' relative velocity.
                    let sep = [0, 1, 2].map(|k| b.at.anchor[k] - a.at.anchor[k]);
                    let (n, d) = direction(sep, length, i)?;
                    let (vb, va) = (b.velocity(b.at.anchor), a.velocity(a.at.anchor));
                    let r = [0, 1, 2].map(|k| vb[k] - va[k]);
                    let (ca, cb) = (a.centripetal(a.at.anchor), b.centripetal(b.at.anchor));
                    let c = [0, 1, 2].map(|k| cb[k] - ca[k]);
                    let along = dot(n, r);
                    out.push((dot(r, r) - along * along) / d + dot(n, c));
                }
            }
        }
        Ok(())
    }

    /// An end at `q`.
    pub(super) fn place(&self, q: &[f64], end: End) -> Placed {
        match end.mover {
            None => Placed {
                mover: None,
                rotation: matrix([1.0, 0.0, 0.0, 0.0]),
                quaternion: [1.0, 0.0, 0.0, 0.0],
                centre: [0.0; 3],
                anchor: end.anchor,
            },
            Some(m) => {
                let quaternion: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
                let rotation = matrix(quaternion);
                let centre = [q[7 * m], q[7 * m + 1], q[7 * m + 2]];
                let arm = apply(&rotation, end.anchor);
                Placed {
                    mover: Some(m),
                    rotation,
                    quaternion,
                    centre,
                    anchor: [0, 1, 2].map(|c| centre[c] + arm[c]),
                }
            }
        }
    }

    /// The joint rows and position errors at `q` into `out` (joint by
    /// joint, in the order of the module's list). Errors: a distance
    /// joint whose anchors coincide (no direction).
    pub fn joint_rows(&self, q: &[f64], out: &mut JointRows) -> Result<(), ModelError> {
        out.clear();
        for (i, j) in self.joints.iter().enumerate() {
            let [a, b] = j.ends.map(|e| self.place(q, e));
            let sep = [0, 1, 2].map(|c| b.anchor[c] - a.anchor[c]);
            let axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
            let ball = |out: &mut JointRows| {
                for (k, d) in axes.iter().enumerate() {
                    point_row(&b, b.anchor, *d, 1.0, out);
                    point_row(&a, a.anchor, *d, -1.0, out);
                    out.close_row(sep[k]);
                }
            };
            let turn = |relative: [f64; 4], out: &mut JointRows| {
                // The world rotation taking where b should be to where it
                // is, as a rotation vector (small).
                let want = mul(a.quaternion, relative);
                let mut e = mul(b.quaternion, conjugate(want));
                if e[0] < 0.0 {
                    e = e.map(|x| -x);
                }
                for (k, d) in axes.iter().enumerate() {
                    angle_row(&b, *d, 1.0, out);
                    angle_row(&a, *d, -1.0, out);
                    out.close_row(2.0 * e[k + 1]);
                }
            };
            match j.kind {
                Kind::Ball => ball(out),
                Kind::Hinge { axis } => {
                    ball(out);
                    let wa = apply(&a.rotation, axis[0]);
                    let wb = apply(&b.rotation, axis[1]);
                    let (t1, t2) = tangents(wa);
                    let c = cross(wa, wb);
                    for t in [t1, t2] {
                        angle_row(&b, t, 1.0, out);
                        angle_row(&a, t, -1.0, out);
                        out.close_row(dot(t, c));
                    }
                }
                Kind::Slider { axis, relative } => {
                    turn(relative, out);
                    let (t1, t2) = tangents(apply(&a.rotation, axis));
                    for t in [t1, t2] {
                        point_row(&b, b.anchor, t, 1.0, out);
                        point_row(&a, b.anchor, t, -1.0, out);
                        out.close_row(dot(t, sep));
                    }
                }
                Kind::Weld { relative } => {
                    ball(out);
                    turn(relative, out);
                }
                Kind::Distance { length } => {
                    let (n, d) = direction(sep, length, i)?;
                    point_row(&b, b.anchor, n, 1.0, out);
                    point_row(&a, a.anchor, n, -1.0, out);
                    out.close_row(d - length);
                }
            }
        }
        Ok(())
    }
}

/// The unit direction of a distance joint's separation and its length
/// (an error when the anchors coincide: no direction).
fn direction(sep: [f64; 3], length: f64, joint: usize) -> Result<([f64; 3], f64), ModelError> {
    let d = dot(sep, sep).sqrt();
    let n = normalized(sep)
        .filter(|_| d > 1e-12 * length)
        .ok_or_else(|| ModelError::Degenerate {
            key: format!("joint[{joint}]"),
            message: "the anchors of a distance joint coincide".into(),
        })?;
    Ok((n, d))
}

/// An end with its velocities (the world's: zero): the centre's and the
/// angular one in the world.
struct Moving {
    at: Placed,
    linear: [f64; 3],
    omega: [f64; 3],
}

impl Moving {
    fn new(at: Placed, v: &[f64]) -> Moving {
        let (linear, omega) = at.mover.map_or(([0.0; 3], [0.0; 3]), |m| {
            let w = [v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]];
            (
                [v[6 * m], v[6 * m + 1], v[6 * m + 2]],
                apply(&at.rotation, w),
            )
        });
        Moving { at, linear, omega }
    }

    /// The velocity of the material point at world `point`.
    fn velocity(&self, point: [f64; 3]) -> [f64; 3] {
        let turn = cross(self.omega, [0, 1, 2].map(|k| point[k] - self.at.centre[k]));
        [0, 1, 2].map(|k| self.linear[k] + turn[k])
    }

    /// `w x (w x arm)` of the material point at world `point`.
    fn centripetal(&self, point: [f64; 3]) -> [f64; 3] {
        let arm = [0, 1, 2].map(|k| point[k] - self.at.centre[k]);
        cross(self.omega, cross(self.omega, arm))
    }
}

/// The velocity of `end`'s material point at world `point` along `d`,
/// times `sign`: `d . v + w_body . R^T (arm x d)`.
fn point_row(end: &Placed, point: [f64; 3], d: [f64; 3], sign: f64, out: &mut JointRows) {
    let Some(m) = end.mover else { return };
    let arm = [0, 1, 2].map(|c| point[c] - end.centre[c]);
    let angular = apply_transpose(&end.rotation, cross(arm, d));
    for c in 0..3 {
        out.entries.push((6 * m + c, sign * d[c]));
    }
    for c in 0..3 {
        out.entries.push((6 * m + 3 + c, sign * angular[c]));
    }
}

/// `end`'s angular velocity along world `d`, times `sign`:
/// `w_body . R^T d`.
fn angle_row(end: &Placed, d: [f64; 3], sign: f64, out: &mut JointRows) {
    let Some(m) = end.mover else { return };
    let local = apply_transpose(&end.rotation, d);
    for c in 0..3 {
        out.entries.push((6 * m + 3 + c, sign * local[c]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{SpatialBody, SpatialKind};

    /// Two moving bodies with full inertia tensors (principal frames off
    /// the body frames), turned, and a fixed one turned and moved.
    fn bodies() -> Vec<SpatialBody> {
        let mut a = SpatialBody::new(
            "a",
            SpatialKind::Rigid {
                mass: 2.0,
                inertia: Some([[0.3, 0.05, 0.0], [0.05, 0.2, 0.02], [0.0, 0.02, 0.4]]),
            },
        );
        a.position = [0.1, -0.2, 0.3];
        a.orientation = [0.9, 0.1, -0.3, 0.2];
        let mut b = SpatialBody::new(
            "b",
            SpatialKind::Rigid {
                mass: 1.5,
                inertia: Some([[0.1, 0.0, 0.01], [0.0, 0.25, 0.0], [0.01, 0.0, 0.15]]),
            },
        );
        b.orientation = [0.7, -0.2, 0.1, 0.6];
        let mut c = SpatialBody::new("c", SpatialKind::Fixed);
        c.position = [1.0, 2.0, -0.5];
        c.orientation = [0.8, 0.0, 0.6, 0.0];
        vec![a, b, c]
    }

    /// A model whose joint holds at the initial state: `b` placed so that
    /// its anchor meets `a`'s (or lies along the axis, for a slider).
    fn model(kind: SpatialJointKind, partner: Option<usize>) -> SpatialModel {
        let mut bodies = bodies();
        let anchors = [[0.2, -0.1, 0.3], [-0.3, 0.1, 0.2]];
        // Where the first anchor is in the world.
        let first = match partner {
            Some(i) => {
                let body = &bodies[i];
                let q = super::super::rotation::normalized(body.orientation).unwrap();
                let p = apply(&matrix(q), anchors[0]);
                [0, 1, 2].map(|c| body.position[c] + p[c])
            }
            None => anchors[0],
        };
        let offset = match kind {
            SpatialJointKind::Slider { axis } => {
                let q = super::super::rotation::normalized(
                    partner.map_or([1.0, 0.0, 0.0, 0.0], |i| bodies[i].orientation),
                )
                .unwrap();
                apply(&matrix(q), axis).map(|x| 0.4 * x / dot(axis, axis).sqrt())
            }
            SpatialJointKind::Distance { .. } => [0.3, -0.4, 0.5],
            _ => [0.0; 3],
        };
        let qb = super::super::rotation::normalized(bodies[1].orientation).unwrap();
        let arm = apply(&matrix(qb), anchors[1]);
        bodies[1].position = [0, 1, 2].map(|c| first[c] + offset[c] - arm[c]);
        SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![])
            .unwrap()
            .with_joints(vec![SpatialJoint {
                kind,
                bodies: [partner, Some(1)],
                anchors,
            }])
            .unwrap()
    }

    const KINDS: [SpatialJointKind; 5] = [
        SpatialJointKind::Ball,
        SpatialJointKind::Hinge {
            axis: [0.0, 0.6, 0.8],
        },
        SpatialJointKind::Slider {
            axis: [1.0, -1.0, 0.5],
        },
        SpatialJointKind::Weld,
        SpatialJointKind::Distance { length: None },
    ];

    /// `J v` against central differences of the errors along `q (+) s v`.
    fn check_rows(model: &SpatialModel, q: &[f64]) {
        let v: Vec<f64> = (0..model.nv())
            .map(|i| ((i * 7 + 3) % 11) as f64 / 5.0 - 1.0)
            .collect();
        let mut rows = JointRows::default();
        model.joint_rows(q, &mut rows).unwrap();
        let jv: Vec<f64> = (0..rows.len())
            .map(|i| rows.row(i).iter().map(|&(c, x)| x * v[c]).sum())
            .collect();
        let s = 1e-6;
        let errors = |sign: f64| {
            let mut moved = q.to_vec();
            model.integrate(&mut moved, &v, sign * s);
            let mut r = JointRows::default();
            model.joint_rows(&moved, &mut r).unwrap();
            r.errors
        };
        let (plus, minus) = (errors(1.0), errors(-1.0));
        for i in 0..rows.len() {
            let fd = (plus[i] - minus[i]) / (2.0 * s);
            assert!(
                (fd - jv[i]).abs() < 1e-7,
                "row {i}: J v = {} against {fd}",
                jv[i]
            );
        }
    }

    #[test]
    fn the_rows_are_the_errors_rates_on_the_joint() {
        for kind in KINDS {
            for partner in [Some(0), None, Some(2)] {
                let model = model(kind, partner);
                let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
                model.initial_state(&mut q, &mut v);
                let mut rows = JointRows::default();
                model.joint_rows(&q, &mut rows).unwrap();
                assert_eq!(rows.len(), model.joint_rows_count());
                assert!(
                    rows.errors.iter().all(|e| e.abs() < 1e-12),
                    "{kind:?} {partner:?}: {:?}",
                    rows.errors
                );
                check_rows(&model, &q);
            }
        }
    }

    #[test]
    fn ball_and_distance_rows_are_the_rates_anywhere() {
        for kind in [KINDS[0], KINDS[4]] {
            let model = model(kind, Some(0));
            let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
            model.initial_state(&mut q, &mut v);
            // Off the joint: b moved and turned.
            let push: Vec<f64> = (0..model.nv()).map(|i| 0.1 * (i as f64).sin()).collect();
            model.integrate(&mut q, &push, 1.0);
            check_rows(&model, &q);
        }
    }

    #[test]
    fn bad_joints_name_their_key() {
        let cases = [
            (
                SpatialJointKind::Hinge { axis: [0.0; 3] },
                [None, Some(0)],
                [[0.0; 3]; 2],
                "joint[0].axis: must be nonzero",
            ),
            (
                SpatialJointKind::Ball,
                [Some(2), None],
                [[0.0; 3]; 2],
                "joint[0].bodies: joins two fixed bodies (one must be a moving body)",
            ),
            (
                SpatialJointKind::Ball,
                [Some(1), Some(1)],
                [[0.0; 3]; 2],
                "joint[0].bodies: joins a body to itself",
            ),
            (
                SpatialJointKind::Ball,
                [Some(7), Some(1)],
                [[0.0; 3]; 2],
                "joint[0].bodies[0]: no such body",
            ),
            (
                SpatialJointKind::Ball,
                [None, Some(1)],
                [[0.0, f64::NAN, 0.0], [0.0; 3]],
                "joint[0].anchors[0]: must be finite",
            ),
            (
                SpatialJointKind::Distance { length: Some(0.0) },
                [None, Some(1)],
                [[0.0; 3], [0.0; 3]],
                "joint[0].length: must be > 0",
            ),
            (
                SpatialJointKind::Distance { length: None },
                [Some(0), Some(1)],
                [[0.0; 3], [0.0; 3]],
                "joint[0].length: must be > 0 (the default, the initial distance of the anchors, is 0)",
            ),
        ];
        for (kind, ends, anchors, expected) in cases {
            let mut bodies = bodies();
            bodies[1].position = bodies[0].position;
            let err = SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![])
                .unwrap()
                .with_joints(vec![SpatialJoint {
                    kind,
                    bodies: ends,
                    anchors,
                }])
                .unwrap_err();
            assert_eq!(err.to_string(), expected);
        }
    }

    #[test]
    fn anchors_that_meet_leave_a_distance_joint_without_a_row() {
        let model = model(SpatialJointKind::Distance { length: Some(1.0) }, Some(0));
        let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
        model.initial_state(&mut q, &mut v);
        // Move b so that its anchor lands on a's.
        let mut rows = JointRows::default();
        model.joint_rows(&q, &mut rows).unwrap();
        let sep = [0.3, -0.4, 0.5];
        for c in 0..3 {
            q[7 + c] -= sep[c];
        }
        let err = model.joint_rows(&q, &mut rows).unwrap_err();
        assert_eq!(
            err.to_string(),
            "joint[0]: the anchors of a distance joint coincide"
        );
    }
}
