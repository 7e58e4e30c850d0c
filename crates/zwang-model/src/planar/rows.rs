//! The rows of the planar model: kinematics of body points, and each
//! joint and contact as `J a = b` (the second derivative of its
//! position-level constraint).

use super::{
    add, cross, dot, norm, perp, scale, sub, Body, BodyKind, BodyRef, Contact, Joint, JointKind,
    Surface,
};
use crate::ModelError;
use std::cell::Cell;

/// The state, seen through the bodies.
pub(super) struct Geometry<'a> {
    pub bodies: &'a [Body],
    pub offsets: &'a [usize],
    pub q: &'a [f64],
    pub v: &'a [f64],
    /// The last angle turned by and its sine and cosine: a body's points
    /// share them (a plate on twelve points needs one `sin_cos`, not 24).
    pub turn: Cell<[f64; 3]>,
}

/// A point of a body (or of the ground) at the current state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Point {
    /// The body (`None`: ground).
    pub body: Option<usize>,
    /// World position.
    pub position: [f64; 2],
    /// World offset from the centre of mass (`R(theta) r`).
    pub offset: [f64; 2],
    /// World velocity.
    pub velocity: [f64; 2],
    /// The body's angular velocity (0 for particles and ground).
    pub omega: f64,
}

impl Point {
    /// The coefficients of `d . p''` on the body's accelerations
    /// `(a_x, a_y, alpha)`.
    fn coef(&self, d: [f64; 2]) -> [f64; 3] {
        [d[0], d[1], cross(self.offset, d)]
    }
    /// The part of `p''` without accelerations: `-omega^2 u`.
    fn centripetal(&self) -> [f64; 2] {
        scale(self.offset, -self.omega * self.omega)
    }
}

/// One body's part of a row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub body: usize,
    /// On `(a_x, a_y, alpha)`; the third is unused for particles.
    pub coef: [f64; 3],
}

/// A row `sum J_body a_body = rhs` over at most two bodies, in increasing
/// body order (the order of the columns).
#[derive(Debug, Clone, Copy)]
pub(super) struct RowValue {
    terms: [Option<Term>; 2],
    pub rhs: f64,
}

impl RowValue {
    fn new(rhs: f64) -> RowValue {
        RowValue {
            terms: [None, None],
            rhs,
        }
    }
    /// Adds `coef` on `body` (ground adds nothing).
    fn add(&mut self, body: Option<usize>, coef: [f64; 3]) {
        let Some(body) = body else { return };
        for slot in &mut self.terms {
            match slot {
                Some(t) if t.body == body => {
                    for k in 0..3 {
                        t.coef[k] += coef[k];
                    }
                    return;
                }
                None => {
                    *slot = Some(Term { body, coef });
                    if let [Some(a), Some(b)] = &mut self.terms {
                        if b.body < a.body {
                            std::mem::swap(a, b);
                        }
                    }
                    return;
                }
                Some(_) => {}
            }
        }
    }
    /// The terms, in increasing body order.
    pub fn terms(&self) -> impl Iterator<Item = &Term> {
        self.terms.iter().flatten()
    }
    /// Writes the row as a dense generalized vector.
    pub fn scatter(&self, offsets: &[usize], bodies: &[Body], out: &mut [f64]) {
        out.fill(0.0);
        for t in self.terms() {
            let o = offsets[t.body];
            let len = if bodies[t.body].kind == BodyKind::Rigid {
                3
            } else {
                2
            };
            out[o..o + len].copy_from_slice(&t.coef[..len]);
        }
    }
}

/// A contact at the current state.
pub(super) struct ContactFrame {
    pub point: Point,
    /// Unit tangent `t = (n_y, -n_x)`.
    pub tangent: [f64; 2],
    pub normal_velocity: f64,
    pub tangential_velocity: f64,
    /// `g'' >= 0` as `J a >= b`.
    pub normal_row: RowValue,
    /// `(t . p')' = 0` as `J a = b`.
    pub tangent_row: RowValue,
}

fn degenerate(key: String, message: &str) -> ModelError {
    ModelError::Degenerate {
        key,
        message: message.into(),
    }
}

/// The unit vector along `d` and `|d|`; a zero `d` has no direction, and
/// is refused as degenerate with `key()` and `message`.
fn direction(
    d: [f64; 2],
    key: impl FnOnce() -> String,
    message: &str,
) -> Result<([f64; 2], f64), ModelError> {
    let len = norm(d);
    if len == 0.0 {
        return Err(degenerate(key(), message));
    }
    Ok((scale(d, 1.0 / len), len))
}

impl Geometry<'_> {
    /// `angle.sin_cos()`, remembered for the next point of the body.
    fn sin_cos(&self, angle: f64) -> (f64, f64) {
        let [last, s, c] = self.turn.get();
        if last.to_bits() == angle.to_bits() {
            return (s, c);
        }
        let (s, c) = angle.sin_cos();
        self.turn.set([angle, s, c]);
        (s, c)
    }

    /// A point given in a body's frame (ground: world).
    pub fn point(&self, body: BodyRef, local: [f64; 2]) -> Point {
        let BodyRef::Body(b) = body else {
            return Point {
                body: None,
                position: local,
                offset: [0.0; 2],
                velocity: [0.0; 2],
                omega: 0.0,
            };
        };
        let o = self.offsets[b];
        let centre = [self.q[o], self.q[o + 1]];
        let vel = [self.v[o], self.v[o + 1]];
        match self.bodies[b].kind {
            BodyKind::Particle => Point {
                body: Some(b),
                position: centre,
                offset: [0.0; 2],
                velocity: vel,
                omega: 0.0,
            },
            BodyKind::Rigid => {
                let (s, c) = self.sin_cos(self.q[o + 2]);
                let u = [c * local[0] - s * local[1], s * local[0] + c * local[1]];
                let omega = self.v[o + 2];
                Point {
                    body: Some(b),
                    position: add(centre, u),
                    offset: u,
                    velocity: add(vel, scale(perp(u), omega)),
                    omega,
                }
            }
        }
    }

    fn angle(&self, body: BodyRef) -> f64 {
        match body {
            BodyRef::Ground => 0.0,
            BodyRef::Body(b) => match self.bodies[b].kind {
                BodyKind::Rigid => self.q[self.offsets[b] + 2],
                BodyKind::Particle => 0.0,
            },
        }
    }

    /// Adds the world force `f` acting at `p` to the generalized force.
    pub fn apply(&self, p: &Point, f: [f64; 2], out: &mut [f64]) {
        let Some(b) = p.body else { return };
        let o = self.offsets[b];
        out[o] += f[0];
        out[o + 1] += f[1];
        if self.bodies[b].kind == BodyKind::Rigid {
            out[o + 2] += cross(p.offset, f);
        }
    }

    /// The rows of joint `j` (its index, for messages).
    pub fn joint_rows(
        &self,
        j: usize,
        joint: &Joint,
        sink: &mut impl FnMut(&RowValue),
    ) -> Result<(), ModelError> {
        let pa = self.point(joint.bodies[0], joint.anchors[0]);
        let pb = self.point(joint.bodies[1], joint.anchors[1]);
        let angle_row = || {
            let mut row = RowValue::new(0.0);
            row.add(pa.body, [0.0, 0.0, -1.0]);
            row.add(pb.body, [0.0, 0.0, 1.0]);
            row
        };
        match &joint.kind {
            JointKind::Pin | JointKind::Weld => {
                // p_A'' - p_B'' = 0, along x and y.
                let bias = sub(pb.centripetal(), pa.centripetal());
                for (axis, b) in [[1.0, 0.0], [0.0, 1.0]].into_iter().zip(bias) {
                    let mut row = RowValue::new(b);
                    row.add(pa.body, pa.coef(axis));
                    row.add(pb.body, scale3(pb.coef(axis), -1.0));
                    sink(&row);
                }
                if matches!(joint.kind, JointKind::Weld) {
                    sink(&angle_row());
                }
            }
            JointKind::Distance { .. } => {
                // n . d'' = -(|d'|^2 - (n . d')^2) / |d|, d = p_A - p_B.
                let d = sub(pa.position, pb.position);
                let (n, len) = direction(
                    d,
                    || format!("joint[{j}]"),
                    "the anchors of a distance joint coincide",
                )?;
                let dd = sub(pa.velocity, pb.velocity);
                let nd = dot(n, dd);
                let rhs = -(dot(dd, dd) - nd * nd) / len
                    - dot(n, sub(pa.centripetal(), pb.centripetal()));
                let mut row = RowValue::new(rhs);
                row.add(pa.body, pa.coef(n));
                row.add(pb.body, scale3(pb.coef(n), -1.0));
                sink(&row);
            }
            JointKind::Slider { axis } | JointKind::Slot { axis } => {
                // C = nu . d, nu = R_A perp(axis), d = p_B - p_A.
                let e = rotate(*axis, self.angle(joint.bodies[0]));
                let nu = perp(e);
                let d = sub(pb.position, pa.position);
                let dd = sub(pb.velocity, pa.velocity);
                let w = pa.omega;
                let rhs = w * w * dot(nu, d) + 2.0 * w * dot(e, dd)
                    - dot(nu, sub(pb.centripetal(), pa.centripetal()));
                let mut row = RowValue::new(rhs);
                row.add(pb.body, pb.coef(nu));
                row.add(pa.body, scale3(pa.coef(nu), -1.0));
                // nu turns with A: d/dt nu = omega_A perp(nu) = -omega_A e.
                row.add(
                    pa.body.filter(|&b| self.bodies[b].kind == BodyKind::Rigid),
                    [0.0, 0.0, -dot(e, d)],
                );
                sink(&row);
                if matches!(joint.kind, JointKind::Slider { .. }) {
                    sink(&angle_row());
                }
            }
            JointKind::KnifeEdge { axis } => {
                // n . v_P = 0 with n = perp(e), e = R_B axis; its rate
                // n . a_P + n' . v_P = 0, n' = omega perp(n) = -omega e,
                // a_P = a_C + alpha perp(u) - omega^2 u.
                let e = rotate(*axis, self.angle(joint.bodies[1]));
                let n = perp(e);
                let rhs = pb.omega * dot(e, pb.velocity) - dot(n, pb.centripetal());
                let mut row = RowValue::new(rhs);
                row.add(pb.body, pb.coef(n));
                sink(&row);
            }
        }
        Ok(())
    }

    /// The position-level violations of a joint, row by row.
    pub fn joint_violations(&self, joint: &Joint, angle0: f64, mut sink: impl FnMut(f64)) {
        let pa = self.point(joint.bodies[0], joint.anchors[0]);
        let pb = self.point(joint.bodies[1], joint.anchors[1]);
        let angle = || self.angle(joint.bodies[1]) - self.angle(joint.bodies[0]) - angle0;
        match &joint.kind {
            JointKind::Pin | JointKind::Weld => {
                let d = sub(pa.position, pb.position);
                sink(d[0]);
                sink(d[1]);
                if matches!(joint.kind, JointKind::Weld) {
                    sink(angle());
                }
            }
            JointKind::Distance { length } => sink(norm(sub(pa.position, pb.position)) - length),
            JointKind::Slider { axis } | JointKind::Slot { axis } => {
                let nu = perp(rotate(*axis, self.angle(joint.bodies[0])));
                sink(dot(nu, sub(pb.position, pa.position)));
                if matches!(joint.kind, JointKind::Slider { .. }) {
                    sink(angle());
                }
            }
            // Velocity level only: no position-level value.
            JointKind::KnifeEdge { .. } => sink(0.0),
        }
    }

    /// The gap of a contact (positive when apart).
    pub fn gap(&self, c: &Contact) -> f64 {
        let p = self.point(BodyRef::Body(c.body), c.point);
        match c.surface {
            Surface::Line { point, normal } => dot(normal, sub(p.position, point)),
            Surface::Circle { center, radius } => norm(sub(p.position, center)) - radius,
        }
    }

    /// Contact `k` at the current state: its frame, velocities and rows.
    pub fn contact_frame(&self, k: usize, c: &Contact) -> Result<ContactFrame, ModelError> {
        let p = self.point(BodyRef::Body(c.body), c.point);
        // The normal and the curvature terms of g'' and (t . p')'.
        let (n, normal_bias, tangent_bias) = match c.surface {
            Surface::Line { normal, .. } => (normal, 0.0, 0.0),
            Surface::Circle { center, .. } => {
                let d = sub(p.position, center);
                let (n, len) = direction(
                    d,
                    || format!("contact[{k}]"),
                    "the point is at the circle's centre",
                )?;
                let pv = p.velocity;
                let nv = dot(n, pv);
                // n' = (p' - n (n . p')) / |d|;  g'' = n . p'' + n' . p'.
                let n_dot = scale(sub(pv, scale(n, nv)), 1.0 / len);
                let t_dot = [n_dot[1], -n_dot[0]];
                (n, dot(n_dot, pv), dot(t_dot, pv))
            }
        };
        let t = [n[1], -n[0]];
        let cent = p.centripetal();
        let mut normal_row = RowValue::new(-normal_bias - dot(n, cent));
        normal_row.add(p.body, p.coef(n));
        let mut tangent_row = RowValue::new(-tangent_bias - dot(t, cent));
        tangent_row.add(p.body, p.coef(t));
        Ok(ContactFrame {
            normal_velocity: dot(n, p.velocity),
            tangential_velocity: dot(t, p.velocity),
            point: p,
            tangent: t,
            normal_row,
            tangent_row,
        })
    }
}

fn scale3(c: [f64; 3], s: f64) -> [f64; 3] {
    [c[0] * s, c[1] * s, c[2] * s]
}

/// `a` turned by `angle`.
fn rotate(a: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * a[0] - s * a[1], s * a[0] + c * a[1]]
}
