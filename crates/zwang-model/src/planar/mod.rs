//! Particles and rigid bodies in the plane, in maximal coordinates.
//!
//! Each particle has `q = (x, y)`, each rigid body `q = (x, y, theta)`
//! (centre of mass and angle), and `v = dq/dt`; `M` is block diagonal
//! (`m, m` and `m, m, I`). Conventions: SI units, x to the right, y up,
//! angles counter-clockwise; points on a body are given in its frame
//! (origin at the centre of mass); [`BodyRef::Ground`] is the fixed world.
//!
//! A point `u` (world offset from the centre of mass) of a rigid body moves
//! with `p' = v + omega perp(u)` and `p'' = a + alpha perp(u) - omega^2 u`
//! (`perp(u) = (-u_y, u_x)`): every row below is the second derivative of a
//! position-level constraint `C(q) = 0` written as `J a = b`, with the
//! terms that do not contain accelerations (`-omega^2 u`, the turning of
//! directions) in `b`.
//!
//! A contact's normal `n` points out of the surface; its tangent is `n`
//! turned clockwise, `t = (n_y, -n_x)` (on a floor with `n = (0, 1)`,
//! `t = (1, 0)`): tangential velocities and friction forces are signed
//! along `t`.
//!
//! A model may be described relative to a moving frame
//! ([`PlanarModel::in_frame`]): its coordinates, velocities, gravity and
//! fixed points are then the frame's, and the inertial forces of the
//! frame's motion join `Q` (see [`frame`]).

pub mod frame;
mod islands;
mod rows;
mod shapes;
#[cfg(test)]
mod tests;
mod vakonomic;

use crate::{
    Bodies, BodyState, ContactRows, ContactState, Contacts, Coordinates, InstantWriter, Layout,
    ModelError,
};
use frame::cross3;
pub use frame::{inertia_tensor_problem, Frame, FrameFn, FrameMotion, Sinusoid};
use rows::{Geometry, RowValue};
pub use shapes::{FixedBody, VelocityRows};
use sprs::CsMat;
use std::cell::Cell;
use zwang_core::Mode;
pub use zwang_geometry::{Pose, Shape};
use zwang_instant::{Instant, RowRef, RowSet, SlidingContact, StickingContact};

/// Particle or rigid body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Two coordinates, no orientation.
    Particle,
    /// Three coordinates: centre of mass and angle.
    Rigid,
}

/// A body and its initial state.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Unique, not `ground`.
    pub name: String,
    /// Particle or rigid.
    pub kind: BodyKind,
    /// `> 0`, kg.
    pub mass: f64,
    /// About the centre of mass, `> 0` for rigid bodies (0 for particles).
    pub inertia: f64,
    /// Centre of mass, world.
    pub position: [f64; 2],
    /// Rigid bodies: angle, counter-clockwise.
    pub angle: f64,
    /// Velocity of the centre of mass.
    pub velocity: [f64; 2],
    /// Rigid bodies: angular velocity.
    pub angular_velocity: f64,
    /// Rigid bodies: the in-plane inertia `[Ixx, Iyy, Ixy]` about the
    /// centre of mass in body axes (`Ixy` the tensor's entry,
    /// `-sum m x y`), `Izz` being [`Body::inertia`]; the body is taken
    /// symmetric about its plane of motion (`Ixz = Iyz = 0`). Needed only
    /// in a frame that turns about an in-plane axis; see [`frame`].
    pub inertia_tensor: Option<[f64; 3]>,
    /// The shape that collides with other bodies' shapes (body frame), if
    /// any.
    pub shape: Option<Shape>,
    /// Coulomb's coefficient of its surface against other shapes
    /// (`>= 0`; a pair uses `sqrt(mu_a mu_b)`).
    pub friction: f64,
    /// Newton's coefficient of restitution of its surface (in `[0, 1]`;
    /// a pair uses the larger).
    pub restitution: f64,
}

/// A surface's friction coefficient when the scene gives none.
pub const DEFAULT_FRICTION: f64 = 0.5;

impl Body {
    /// A particle at rest at the origin.
    pub fn particle(name: impl Into<String>, mass: f64) -> Body {
        Body {
            name: name.into(),
            kind: BodyKind::Particle,
            mass,
            inertia: 0.0,
            position: [0.0; 2],
            angle: 0.0,
            velocity: [0.0; 2],
            angular_velocity: 0.0,
            inertia_tensor: None,
            shape: None,
            friction: DEFAULT_FRICTION,
            restitution: 0.0,
        }
    }
    /// A rigid body at rest at the origin, angle 0.
    pub fn rigid(name: impl Into<String>, mass: f64, inertia: f64) -> Body {
        Body {
            kind: BodyKind::Rigid,
            inertia,
            ..Body::particle(name, mass)
        }
    }
    /// Whether the body is rigid (it has an angle).
    pub fn is_rigid(&self) -> bool {
        self.kind == BodyKind::Rigid
    }
    /// With its centre of mass at `position`.
    pub fn at(mut self, position: [f64; 2]) -> Body {
        self.position = position;
        self
    }
    /// With its angle.
    pub fn turned(mut self, angle: f64) -> Body {
        self.angle = angle;
        self
    }
    /// With its velocity.
    pub fn moving(mut self, velocity: [f64; 2]) -> Body {
        self.velocity = velocity;
        self
    }
    /// With its angular velocity.
    pub fn spinning(mut self, angular_velocity: f64) -> Body {
        self.angular_velocity = angular_velocity;
        self
    }
    /// With its in-plane inertia `[Ixx, Iyy, Ixy]` (body axes, about the
    /// centre of mass; see [`Body::inertia_tensor`]).
    pub fn with_inertia_tensor(mut self, tensor: [f64; 3]) -> Body {
        self.inertia_tensor = Some(tensor);
        self
    }
    /// With a shape that collides.
    pub fn with_shape(mut self, shape: Shape) -> Body {
        self.shape = Some(shape);
        self
    }
    /// With its surface's friction and restitution coefficients.
    pub fn with_surface(mut self, friction: f64, restitution: f64) -> Body {
        self.friction = friction;
        self.restitution = restitution;
        self
    }
}

/// A body of the model, or the fixed world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyRef {
    /// The world frame.
    Ground,
    /// An index into the model's bodies.
    Body(usize),
}

/// A two-sided constraint between two bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Which constraint.
    pub kind: JointKind,
    /// The two bodies (at most one of them ground).
    pub bodies: [BodyRef; 2],
    /// One point in each body's frame (ground: world).
    pub anchors: [[f64; 2]; 2],
}

impl Joint {
    /// A knife edge of rigid body `body` on the plane: the blade at
    /// `point` with direction `axis`, both in the body's frame.
    pub fn knife_edge(body: usize, point: [f64; 2], axis: [f64; 2]) -> Joint {
        Joint {
            kind: JointKind::KnifeEdge { axis },
            bodies: [BodyRef::Ground, BodyRef::Body(body)],
            anchors: [[0.0; 2], point],
        }
    }
}

/// The joints.
#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    /// The anchors coincide (2 rows).
    Pin,
    /// The anchors keep their distance `length > 0` (1 row).
    Distance {
        /// Metres.
        length: f64,
    },
    /// Prismatic: the second anchor stays on the line through the first
    /// along `axis` (a unit vector in the first body's frame) and the
    /// relative angle stays (2 rows).
    Slider {
        /// Unit vector, first body's frame.
        axis: [f64; 2],
    },
    /// A pin in a slot: as the slider, but the second body turns (1 row).
    Slot {
        /// Unit vector, first body's frame.
        axis: [f64; 2],
    },
    /// The anchors coincide and the relative angle stays (3 rows).
    Weld,
    /// A knife edge (a blade, a skate) of a rigid body on the plane: the
    /// second body's anchor `P` has no velocity across the blade,
    /// `n . v_P = 0` with `n` the blade's normal (`axis`, turned with the
    /// body, then a quarter turn). A Pfaffian nonholonomic constraint, at
    /// velocity level only: its row is the time derivative
    /// `n . a_P + n' . v_P = 0` and it has no position-level value. The
    /// first body is ground (its anchor `[0, 0]`, unused), the second a
    /// rigid body (1 row); see [`Joint::knife_edge`].
    KnifeEdge {
        /// Unit vector along the blade, in the (second) body's frame.
        axis: [f64; 2],
    },
}

/// A fixed surface a contact point stays out of.
#[derive(Debug, Clone, PartialEq)]
pub enum Surface {
    /// The half-plane `n . (p - point) >= 0`.
    Line {
        /// A point of the line.
        point: [f64; 2],
        /// Unit normal, pointing out of the surface.
        normal: [f64; 2],
    },
    /// The outside of a circle.
    Circle {
        /// Centre.
        center: [f64; 2],
        /// `> 0`.
        radius: f64,
    },
}

/// A point of a body against a fixed surface: unilateral, with Coulomb and
/// viscous friction and Newton's restitution.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Name in reports.
    pub name: String,
    /// Index of the body.
    pub body: usize,
    /// The point, in the body's frame (a particle: `[0, 0]`).
    pub point: [f64; 2],
    /// What it touches.
    pub surface: Surface,
    /// Coulomb `mu >= 0`.
    pub friction: f64,
    /// Viscous `c >= 0`: tangential force `-c v_t` while touching.
    pub viscous: f64,
    /// Newton's `e` in `[0, 1]`.
    pub restitution: f64,
}

impl Surface {
    /// The floor: the line `y = 0`, its normal up.
    pub const FLOOR: Surface = Surface::Line {
        point: [0.0, 0.0],
        normal: [0.0, 1.0],
    };
}

impl Contact {
    /// Point `point` (in body `body`'s frame) against `surface`, with no
    /// friction and no restitution until [`Contact::with_surface`] says.
    pub fn new(name: impl Into<String>, body: usize, point: [f64; 2], surface: Surface) -> Contact {
        Contact {
            name: name.into(),
            body,
            point,
            surface,
            friction: 0.0,
            viscous: 0.0,
            restitution: 0.0,
        }
    }
    /// With Coulomb friction and restitution coefficients, as
    /// [`Body::with_surface`].
    pub fn with_surface(mut self, friction: f64, restitution: f64) -> Contact {
        self.friction = friction;
        self.restitution = restitution;
        self
    }
}

/// Applied forces besides gravity.
#[derive(Debug, Clone, PartialEq)]
pub enum Force {
    /// `k (L - rest_length)` along the line of the anchors, pulling them
    /// together when stretched.
    Spring {
        /// The two bodies.
        bodies: [BodyRef; 2],
        /// One point in each body's frame.
        anchors: [[f64; 2]; 2],
        /// `k >= 0`, N/m.
        stiffness: f64,
        /// `>= 0`, m.
        rest_length: f64,
    },
    /// `c L'` along the line of the anchors, against their separation rate.
    Damper {
        /// The two bodies.
        bodies: [BodyRef; 2],
        /// One point in each body's frame.
        anchors: [[f64; 2]; 2],
        /// `c >= 0`, N s/m.
        damping: f64,
    },
    /// A constant force at the centre of mass (world axes) and a torque.
    Constant {
        /// Index of the body.
        body: usize,
        /// Newtons, world.
        force: [f64; 2],
        /// Newton metres (rigid bodies only).
        torque: f64,
    },
}

/// A planar mechanism: bodies, joints, contacts, forces and gravity, in
/// the fixed frame or in a moving one.
#[derive(Debug, Clone)]
pub struct PlanarModel {
    gravity: [f64; 2],
    /// `None`: an inertial frame.
    frame: Option<Frame>,
    bodies: Vec<Body>,
    /// First coordinate of each body.
    offsets: Vec<usize>,
    joints: Vec<Joint>,
    /// Initial relative angle of each joint (sliders and welds keep it).
    joint_angles: Vec<f64>,
    contacts: Vec<Contact>,
    forces: Vec<Force>,
    /// Bodies that never move (no coordinates).
    fixed: Vec<FixedBody>,
    n: usize,
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> ModelError {
    ModelError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

fn finite2(key: &str, v: [f64; 2]) -> Result<(), ModelError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(invalid(key, "must be finite"))
    }
}

fn unit(key: &str, v: [f64; 2]) -> Result<[f64; 2], ModelError> {
    finite2(key, v)?;
    let len = v[0].hypot(v[1]);
    if len == 0.0 {
        return Err(invalid(key, "must not be zero"));
    }
    Ok([v[0] / len, v[1] / len])
}

impl PlanarModel {
    /// Validates the parts (each error names its key, as a scene file
    /// would: `body[1].mass: must be > 0`) and lays out the coordinates in
    /// body order. Normals and axes are normalized.
    pub fn new(
        gravity: [f64; 2],
        bodies: Vec<Body>,
        mut joints: Vec<Joint>,
        mut contacts: Vec<Contact>,
        forces: Vec<Force>,
    ) -> Result<PlanarModel, ModelError> {
        finite2("scene.gravity", gravity)?;
        if bodies.is_empty() {
            return Err(invalid("body", "at least one body is required"));
        }
        let mut offsets = Vec::with_capacity(bodies.len());
        let mut n = 0;
        let mut names = std::collections::HashSet::with_capacity(bodies.len());
        for (i, b) in bodies.iter().enumerate() {
            let key = |k: &str| format!("body[{i}].{k}");
            if b.name.is_empty() || b.name == "ground" {
                return Err(invalid(key("name"), "must not be empty or \"ground\""));
            }
            if !names.insert(b.name.as_str()) {
                return Err(invalid(
                    key("name"),
                    format!("duplicate name \"{}\"", b.name),
                ));
            }
            if !(b.mass.is_finite() && b.mass > 0.0) {
                return Err(invalid(key("mass"), "must be > 0"));
            }
            // The keys are made for an error only (a model is made per island).
            if !b.position.iter().chain(&b.velocity).all(|x| x.is_finite()) {
                finite2(&key("position"), b.position)?;
                finite2(&key("velocity"), b.velocity)?;
            }
            shapes::check_surface(&key, b.shape.as_ref(), b.friction, b.restitution, false)?;
            if let Some(tensor) = b.inertia_tensor {
                if b.kind == BodyKind::Particle {
                    return Err(invalid(
                        key("inertia_tensor"),
                        "a particle has no inertia tensor",
                    ));
                }
                if let Some(message) = inertia_tensor_problem(b.inertia, tensor) {
                    return Err(invalid(key("inertia_tensor"), message));
                }
            }
            match b.kind {
                BodyKind::Rigid => {
                    if !(b.inertia.is_finite() && b.inertia > 0.0) {
                        return Err(invalid(key("inertia"), "must be > 0"));
                    }
                    if !b.angle.is_finite() {
                        return Err(invalid(key("angle"), "must be finite"));
                    }
                    if !b.angular_velocity.is_finite() {
                        return Err(invalid(key("angular_velocity"), "must be finite"));
                    }
                }
                BodyKind::Particle => {
                    if b.inertia != 0.0 || b.angle != 0.0 || b.angular_velocity != 0.0 {
                        return Err(invalid(
                            key("kind"),
                            "a particle has no inertia, angle or angular velocity",
                        ));
                    }
                }
            }
            offsets.push(n);
            n += dofs(b.kind);
        }
        let body_of = |key: &str, r: BodyRef| -> Result<Option<usize>, ModelError> {
            match r {
                BodyRef::Ground => Ok(None),
                BodyRef::Body(i) if i < bodies.len() => Ok(Some(i)),
                BodyRef::Body(i) => Err(invalid(key, format!("no body {i}"))),
            }
        };
        let check_anchor = |key: &str, r: Option<usize>, a: [f64; 2]| -> Result<(), ModelError> {
            finite2(key, a)?;
            if let Some(i) = r {
                if bodies[i].kind == BodyKind::Particle && a != [0.0, 0.0] {
                    return Err(invalid(key, "a particle's point is [0, 0]"));
                }
            }
            Ok(())
        };
        let is_particle =
            |r: Option<usize>| r.is_some_and(|i| bodies[i].kind == BodyKind::Particle);
        let angle_of = |r: Option<usize>| r.map_or(0.0, |i| bodies[i].angle);
        let mut joint_angles = Vec::with_capacity(joints.len());
        for (j, joint) in joints.iter_mut().enumerate() {
            let key = |k: &str| format!("joint[{j}].{k}");
            let a = body_of(&key("bodies"), joint.bodies[0])?;
            let b = body_of(&key("bodies"), joint.bodies[1])?;
            if a == b {
                return Err(invalid(key("bodies"), "must be two different bodies"));
            }
            check_anchor(&key("anchors"), a, joint.anchors[0])?;
            check_anchor(&key("anchors"), b, joint.anchors[1])?;
            match &mut joint.kind {
                JointKind::Pin => {}
                JointKind::Distance { length } => {
                    if !(length.is_finite() && *length > 0.0) {
                        return Err(invalid(key("length"), "must be > 0"));
                    }
                }
                JointKind::Slider { axis } | JointKind::Slot { axis } => {
                    *axis = unit(&key("axis"), *axis)?;
                }
                JointKind::Weld => {}
                JointKind::KnifeEdge { axis } => {
                    *axis = unit(&key("axis"), *axis)?;
                    if a.is_some() || b.is_none() {
                        return Err(invalid(
                            key("bodies"),
                            "a knife edge joins ground (first) to a body",
                        ));
                    }
                    if is_particle(b) {
                        return Err(invalid(key("bodies"), "a knife edge's body is rigid"));
                    }
                    if joint.anchors[0] != [0.0, 0.0] {
                        return Err(invalid(
                            key("anchors"),
                            "a knife edge's ground anchor is [0, 0] (unused)",
                        ));
                    }
                }
            }
            let needs_rigid = matches!(joint.kind, JointKind::Slider { .. } | JointKind::Weld);
            if needs_rigid && (is_particle(a) || is_particle(b)) {
                return Err(invalid(
                    key("bodies"),
                    "sliders and welds join rigid bodies (or ground)",
                ));
            }
            if matches!(joint.kind, JointKind::Slot { .. }) && is_particle(a) {
                return Err(invalid(
                    key("bodies"),
                    "a slot's first body is rigid (or ground)",
                ));
            }
            joint_angles.push(angle_of(b) - angle_of(a));
        }
        for (k, c) in contacts.iter_mut().enumerate() {
            let key = |s: &str| format!("contact[{k}].{s}");
            if c.body >= bodies.len() {
                return Err(invalid(key("body"), format!("no body {}", c.body)));
            }
            check_anchor(&key("point"), Some(c.body), c.point)?;
            match &mut c.surface {
                Surface::Line { point, normal } => {
                    finite2(&key("surface.point"), *point)?;
                    *normal = unit(&key("surface.normal"), *normal)?;
                }
                Surface::Circle { center, radius } => {
                    finite2(&key("surface.center"), *center)?;
                    if !(radius.is_finite() && *radius > 0.0) {
                        return Err(invalid(key("surface.radius"), "must be > 0"));
                    }
                }
            }
            if !(c.friction.is_finite() && c.friction >= 0.0) {
                return Err(invalid(key("friction"), "must be >= 0"));
            }
            if !(c.viscous.is_finite() && c.viscous >= 0.0) {
                return Err(invalid(key("viscous"), "must be >= 0"));
            }
            if !(c.restitution.is_finite() && (0.0..=1.0).contains(&c.restitution)) {
                return Err(invalid(key("restitution"), "must be in [0, 1]"));
            }
        }
        for (f, force) in forces.iter().enumerate() {
            let key = |s: &str| format!("force[{f}].{s}");
            match force {
                Force::Spring {
                    bodies: pair,
                    anchors,
                    ..
                }
                | Force::Damper {
                    bodies: pair,
                    anchors,
                    ..
                } => {
                    let a = body_of(&key("bodies"), pair[0])?;
                    let b = body_of(&key("bodies"), pair[1])?;
                    if a == b {
                        return Err(invalid(key("bodies"), "must be two different bodies"));
                    }
                    check_anchor(&key("anchors"), a, anchors[0])?;
                    check_anchor(&key("anchors"), b, anchors[1])?;
                    let (name, coef) = match force {
                        Force::Spring { stiffness, .. } => ("stiffness", *stiffness),
                        Force::Damper { damping, .. } => ("damping", *damping),
                        Force::Constant { .. } => ("force", 0.0),
                    };
                    if !(coef.is_finite() && coef >= 0.0) {
                        return Err(invalid(key(name), "must be >= 0"));
                    }
                    if let Force::Spring { rest_length, .. } = force {
                        if !(rest_length.is_finite() && *rest_length >= 0.0) {
                            return Err(invalid(key("rest_length"), "must be >= 0"));
                        }
                    }
                }
                Force::Constant {
                    body,
                    force,
                    torque,
                } => {
                    if *body >= bodies.len() {
                        return Err(invalid(key("body"), format!("no body {body}")));
                    }
                    finite2(&key("force"), *force)?;
                    if !torque.is_finite() {
                        return Err(invalid(key("torque"), "must be finite"));
                    }
                    if *torque != 0.0 && bodies[*body].kind == BodyKind::Particle {
                        return Err(invalid(key("torque"), "a particle takes no torque"));
                    }
                }
            }
        }
        Ok(PlanarModel {
            gravity,
            frame: None,
            bodies,
            offsets,
            joints,
            joint_angles,
            contacts,
            forces,
            fixed: Vec::new(),
            n,
        })
    }

    /// The same model described in a moving frame: positions,
    /// velocities, gravity and ground points are the frame's, and the
    /// frame's inertial forces join `Q` ([`frame`]). A frame that turns
    /// about an in-plane axis needs every rigid body's
    /// [`Body::inertia_tensor`] (an error naming the first one missing;
    /// for a [`Frame::Custom`] the evaluation fails instead).
    ///
    /// ```
    /// use zwang_model::planar::{Body, Frame, PlanarModel};
    /// use zwang_model::InstantWriter;
    ///
    /// // A 0.5 kg particle 2 m from the axis of a frame turning at 3 rad/s:
    /// // at rest it feels the centrifugal force m w^2 r, moving at 1 m/s
    /// // along y also the Coriolis force -2 m w z x v = (3, 0) N.
    /// let p = Body::particle("p", 0.5).at([2.0, 0.0]);
    /// let turning = Frame::Constant {
    ///     acceleration: [0.0; 3],
    ///     angular_velocity: [0.0, 0.0, 3.0],
    /// };
    /// let model = PlanarModel::new([0.0, 0.0], vec![p], vec![], vec![], vec![])
    ///     .unwrap()
    ///     .in_frame(turning)
    ///     .unwrap();
    /// let (at_rest, _) = model.build_instant(0.0, &[2.0, 0.0], &[0.0, 0.0], &[]).unwrap();
    /// assert_eq!(at_rest.force(), &[9.0, 0.0]);
    /// let (moving, _) = model.build_instant(0.0, &[2.0, 0.0], &[0.0, 1.0], &[]).unwrap();
    /// assert_eq!(moving.force(), &[12.0, 0.0]);
    /// ```
    pub fn in_frame(mut self, frame: Frame) -> Result<PlanarModel, ModelError> {
        if let Some((key, message)) = frame.problem() {
            return Err(invalid(key, message));
        }
        if frame.turns_in_plane() == Some(true) {
            if let Some(i) = self.missing_tensor() {
                return Err(invalid(
                    format!("body[{i}].inertia_tensor"),
                    "required: the frame turns about an in-plane axis",
                ));
            }
        }
        self.frame = Some(frame);
        Ok(self)
    }

    /// The moving frame, if any.
    pub fn frame(&self) -> Option<&Frame> {
        self.frame.as_ref()
    }

    /// The first rigid body without an inertia tensor.
    fn missing_tensor(&self) -> Option<usize> {
        self.bodies
            .iter()
            .position(|b| b.kind == BodyKind::Rigid && b.inertia_tensor.is_none())
    }

    /// The bodies as given.
    pub fn body_list(&self) -> &[Body] {
        &self.bodies
    }
    /// The joints (axes normalized).
    pub fn joint_list(&self) -> &[Joint] {
        &self.joints
    }
    /// The contacts (normals normalized).
    pub fn contact_list(&self) -> &[Contact] {
        &self.contacts
    }
    /// The applied forces (springs, dampers, constant forces).
    pub fn force_list(&self) -> &[Force] {
        &self.forces
    }
    /// The first coordinate of body `b` in `q` and `v`.
    pub fn offset(&self, b: usize) -> usize {
        self.offsets[b]
    }
    /// Gravity.
    pub fn gravity(&self) -> [f64; 2] {
        self.gravity
    }

    fn geometry<'a>(&'a self, q: &'a [f64], v: &'a [f64]) -> Geometry<'a> {
        Geometry {
            bodies: &self.bodies,
            offsets: &self.offsets,
            q,
            v,
            turn: Cell::new([f64::NAN; 3]),
        }
    }

    /// Calls `sink` on every row of one set of the instant for `modes`,
    /// in the order of the instant: equalities are the joints' rows, then
    /// the sticking tangents; inequalities the closed contacts' normals.
    /// Fails on degenerate geometry.
    fn for_each_row(
        &self,
        set: RowSet,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        mut sink: impl FnMut(&RowValue),
    ) -> Result<(), ModelError> {
        let g = self.geometry(q, v);
        if set == RowSet::Equalities {
            for (j, joint) in self.joints.iter().enumerate() {
                g.joint_rows(j, joint, &mut sink)?;
            }
        }
        for (k, c) in self.contacts.iter().enumerate() {
            let row = match set {
                RowSet::Equalities => modes[k].mode == Mode::Stick && c.friction > 0.0,
                RowSet::Inequalities => modes[k].is_closed(),
            };
            if row {
                let frame = g.contact_frame(k, c)?;
                sink(match set {
                    RowSet::Equalities => &frame.tangent_row,
                    RowSet::Inequalities => &frame.normal_row,
                });
            }
        }
        Ok(())
    }

    /// Rows and stored entries of both sets of the instant for `modes`
    /// (to check that an instant fits them), from the pattern alone.
    fn shape(&self, modes: &[ContactState]) -> [usize; 4] {
        let body = |r: BodyRef| match r {
            BodyRef::Ground => 0,
            BodyRef::Body(i) => dofs(self.bodies[i].kind),
        };
        let mut s = [0usize; 4];
        for j in &self.joints {
            let rows = rows_of(&j.kind);
            s[0] += rows;
            s[1] += rows * (body(j.bodies[0]) + body(j.bodies[1]));
        }
        for (k, c) in self.contacts.iter().enumerate() {
            let d = dofs(self.bodies[c.body].kind);
            if modes[k].mode == Mode::Stick && c.friction > 0.0 {
                s[0] += 1;
                s[1] += d;
            }
            if modes[k].is_closed() {
                s[2] += 1;
                s[3] += d;
            }
        }
        s
    }

    fn check_modes(&self, modes: &[ContactState]) -> Result<(), ModelError> {
        if modes.len() != self.contacts.len() {
            return Err(invalid(
                "modes",
                format!(
                    "{} given, the model has {} contacts",
                    modes.len(),
                    self.contacts.len()
                ),
            ));
        }
        for (k, m) in modes.iter().enumerate() {
            if let Some(slip) = m.sliding() {
                if slip != 1.0 && slip != -1.0 {
                    return Err(invalid(format!("modes[{k}].slip"), "must be +1 or -1"));
                }
            }
        }
        Ok(())
    }

    fn check_state(&self, q: &[f64], v: &[f64]) -> Result<(), ModelError> {
        if q.len() != self.n || v.len() != self.n {
            return Err(invalid(
                "state",
                format!(
                    "q and v have lengths {} and {}, expected {}",
                    q.len(),
                    v.len(),
                    self.n
                ),
            ));
        }
        if !q.iter().chain(v).all(|x| x.is_finite()) {
            return Err(invalid("state", "q and v must be finite"));
        }
        Ok(())
    }

    /// Writes `Q` (gravity, applied forces, viscous friction of closed
    /// contacts, the moving frame's inertial forces) into `out` (length
    /// `n`).
    fn write_force(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        let g = self.geometry(q, v);
        out.fill(0.0);
        for (i, b) in self.bodies.iter().enumerate() {
            let o = self.offsets[i];
            out[o] += b.mass * self.gravity[0];
            out[o + 1] += b.mass * self.gravity[1];
        }
        for force in &self.forces {
            match force {
                Force::Spring {
                    bodies, anchors, ..
                }
                | Force::Damper {
                    bodies, anchors, ..
                } => {
                    // Along the line of the anchors, pulling A towards B
                    // when positive; no direction when they coincide.
                    let (pa, pb) = (
                        g.point(bodies[0], anchors[0]),
                        g.point(bodies[1], anchors[1]),
                    );
                    let d = sub(pb.position, pa.position);
                    let len = norm(d);
                    if len == 0.0 {
                        continue;
                    }
                    let n = scale(d, 1.0 / len);
                    let pull = match force {
                        Force::Spring {
                            stiffness,
                            rest_length,
                            ..
                        } => stiffness * (len - rest_length),
                        Force::Damper { damping, .. } => {
                            damping * dot(n, sub(pb.velocity, pa.velocity))
                        }
                        Force::Constant { .. } => 0.0,
                    };
                    let f = scale(n, pull);
                    g.apply(&pa, f, out);
                    g.apply(&pb, scale(f, -1.0), out);
                }
                Force::Constant {
                    body,
                    force,
                    torque,
                } => {
                    let o = self.offsets[*body];
                    out[o] += force[0];
                    out[o + 1] += force[1];
                    if self.bodies[*body].kind == BodyKind::Rigid {
                        out[o + 2] += torque;
                    }
                }
            }
        }
        for (k, c) in self.contacts.iter().enumerate() {
            if modes[k].is_closed() && c.viscous > 0.0 {
                let frame = g.contact_frame(k, c)?;
                let f = scale(frame.tangent, -c.viscous * frame.tangential_velocity);
                g.apply(&frame.point, f, out);
            }
        }
        if self.frame.is_some() {
            let fm = self.frame_motion(t)?;
            for (i, b) in self.bodies.iter().enumerate() {
                let o = self.offsets[i];
                let r = [q[o], q[o + 1], 0.0];
                let vc = [v[o], v[o + 1], 0.0];
                // a_O + omega' x r + omega x (omega x r) + 2 omega x v.
                let w = fm.omega;
                let (a1, a2) = (cross3(fm.omega_dot, r), cross3(w, cross3(w, r)));
                let a3 = cross3(w, vc);
                for k in 0..2 {
                    out[o + k] -= b.mass * (fm.a_o[k] + a1[k] + a2[k] + 2.0 * a3[k]);
                }
                if b.kind == BodyKind::Rigid {
                    // -(I_C omega')_z - (omega x I_C omega)_z.
                    let mut moment = -b.inertia * fm.omega_dot[2];
                    if w[0] != 0.0 || w[1] != 0.0 {
                        let l = self.in_plane_momentum(i, q[o + 2], w, t)?;
                        moment -= w[0] * l[1] - w[1] * l[0];
                    }
                    out[o + 2] += moment;
                }
            }
        }
        Ok(())
    }

    /// The frame's motion at `t`, checked finite.
    fn frame_motion(&self, t: f64) -> Result<FrameMotion, ModelError> {
        let fm = self
            .frame
            .as_ref()
            .map_or(FrameMotion::default(), |f| f.motion(t));
        let finite = [fm.a_o, fm.omega, fm.omega_dot]
            .iter()
            .flatten()
            .all(|x| x.is_finite());
        if finite {
            Ok(fm)
        } else {
            Err(invalid(
                "frame",
                format!("its motion is not finite at t = {t}"),
            ))
        }
    }

    /// The in-plane part of `I_C omega` of rigid body `i` at angle
    /// `theta` (frame axes).
    fn in_plane_momentum(
        &self,
        i: usize,
        theta: f64,
        w: [f64; 3],
        t: f64,
    ) -> Result<[f64; 2], ModelError> {
        let Some(tensor) = self.bodies[i].inertia_tensor else {
            return Err(invalid(
                format!("body[{i}].inertia_tensor"),
                format!("required: the frame turns about an in-plane axis at t = {t}"),
            ));
        };
        let [ixx, iyy, ixy] = frame::rotate_tensor(tensor, theta);
        Ok([ixx * w[0] + ixy * w[1], ixy * w[0] + iyy * w[1]])
    }

    fn mass_matrix(&self) -> CsMat<f64> {
        let mut diag = Vec::with_capacity(self.n);
        for b in &self.bodies {
            diag.extend([b.mass, b.mass]);
            if b.kind == BodyKind::Rigid {
                diag.push(b.inertia);
            }
        }
        let idx: Vec<usize> = (0..self.n).collect();
        let indptr: Vec<usize> = (0..=self.n).collect();
        CsMat::new((self.n, self.n), indptr, idx, diag)
    }

    /// The coordinates of body `b` (2 or 3 of them).
    fn dofs_of(&self, b: usize) -> std::ops::Range<usize> {
        self.offsets[b]..self.offsets[b] + dofs(self.bodies[b].kind)
    }
}

fn dofs(kind: BodyKind) -> usize {
    match kind {
        BodyKind::Particle => 2,
        BodyKind::Rigid => 3,
    }
}

pub(crate) fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}
pub(crate) fn add(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] + b[0], a[1] + b[1]]
}
pub(crate) fn scale(a: [f64; 2], s: f64) -> [f64; 2] {
    [a[0] * s, a[1] * s]
}
pub(crate) fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}
pub(crate) fn norm(a: [f64; 2]) -> f64 {
    a[0].hypot(a[1])
}
/// `a x b` (the z component).
pub(crate) fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}
/// `a` turned a quarter counter-clockwise.
pub(crate) fn perp(a: [f64; 2]) -> [f64; 2] {
    [-a[1], a[0]]
}

impl Coordinates for PlanarModel {
    fn nq(&self) -> usize {
        self.n
    }
    fn nv(&self) -> usize {
        self.n
    }
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        for (i, b) in self.bodies.iter().enumerate() {
            let o = self.offsets[i];
            q[o..o + 2].copy_from_slice(&b.position);
            v[o..o + 2].copy_from_slice(&b.velocity);
            if b.kind == BodyKind::Rigid {
                q[o + 2] = b.angle;
                v[o + 2] = b.angular_velocity;
            }
        }
    }
    fn position_rate(&self, _q: &[f64], v: &[f64], qdot: &mut [f64]) {
        qdot.copy_from_slice(v);
    }
    fn displace(&self, q: &mut [f64], dv: &[f64]) {
        for (x, d) in q.iter_mut().zip(dv) {
            *x += d;
        }
    }
}

impl InstantWriter for PlanarModel {
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError> {
        self.check_modes(modes)?;
        self.check_state(q, v)?;
        let n = self.n;
        // The patterns: every row spans the coordinates of its bodies.
        let mut patterns = [Pattern::default(), Pattern::default()];
        for (set, p) in [RowSet::Equalities, RowSet::Inequalities]
            .into_iter()
            .zip(&mut patterns)
        {
            self.for_each_row(set, q, v, modes, |row| {
                for term in row.terms() {
                    let range = self.dofs_of(term.body);
                    let len = range.len();
                    p.indices.extend(range);
                    p.data.extend_from_slice(&term.coef[..len]);
                }
                p.indptr.push(p.indices.len());
                p.rhs.push(row.rhs);
            })?;
        }
        let [eq, ineq] = patterns;
        let mut force = vec![0.0; n];
        self.write_force(t, q, v, modes, &mut force)?;
        let rows = |p: Pattern| {
            (
                CsMat::new((p.rhs.len(), n), p.indptr, p.indices, p.data),
                p.rhs,
            )
        };
        let mut layout = Layout {
            joint_rows: self.joint_rows(),
            contacts: vec![ContactRows::default(); self.contacts.len()],
        };
        let (mut next_tangent, mut next_normal) = (layout.joint_rows, 0);
        let mut sliding = Vec::new();
        let mut sticking = Vec::new();
        let g = self.geometry(q, v);
        for (k, c) in self.contacts.iter().enumerate() {
            if !modes[k].is_closed() {
                continue;
            }
            let rows_k = &mut layout.contacts[k];
            rows_k.normal = Some(next_normal);
            let normal = RowRef {
                set: RowSet::Inequalities,
                row: next_normal,
            };
            next_normal += 1;
            if c.friction == 0.0 {
                continue;
            }
            if let Some(slip) = modes[k].sliding() {
                let frame = g.contact_frame(k, c)?;
                let mut tangent = vec![0.0; n];
                frame
                    .tangent_row
                    .scatter(&self.offsets, &self.bodies, &mut tangent);
                rows_k.sliding = Some(sliding.len());
                sliding.push((
                    SlidingContact {
                        normal,
                        tangent,
                        mu: c.friction,
                        slip,
                    },
                    self.dofs_of(c.body).collect::<Vec<_>>(),
                ));
            } else if modes[k].mode == Mode::Stick {
                rows_k.tangent = Some(next_tangent);
                rows_k.sticking = Some(sticking.len());
                sticking.push(StickingContact {
                    normal,
                    tangent_row: next_tangent,
                    mu: c.friction,
                });
                next_tangent += 1;
            }
        }
        let (aeq, beq) = rows(eq);
        let (ain, bin) = rows(ineq);
        let mut builder = Instant::builder(self.mass_matrix(), force)
            .equalities(aeq, beq)
            .inequalities(ain, bin);
        for (c, support) in sliding {
            builder = builder.sliding_on(c, support);
        }
        for c in sticking {
            builder = builder.sticking(c);
        }
        Ok((builder.build()?, layout))
    }

    fn update_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        instant: &mut Instant,
    ) -> Result<(), ModelError> {
        self.check_state(q, v)?;
        if modes.len() != self.contacts.len()
            || instant.dim() != self.n
            || self.shape(modes) != shape_of(instant)
        {
            return Err(invalid(
                "modes",
                "the instant was not built for these modes",
            ));
        }
        let mut result = Ok(());
        instant.edit_force(|out| result = self.write_force(t, q, v, modes, out))?;
        result?;
        for set in [RowSet::Equalities, RowSet::Inequalities] {
            let mut result = Ok(());
            instant.edit_rows(set, |data, rhs| {
                let (mut e, mut r) = (0, 0);
                result = self.for_each_row(set, q, v, modes, |row| {
                    for term in row.terms() {
                        let len = self.dofs_of(term.body).len();
                        data[e..e + len].copy_from_slice(&term.coef[..len]);
                        e += len;
                    }
                    rhs[r] = row.rhs;
                    r += 1;
                });
            })?;
            result?;
        }
        // Friction entries: tangent and slip.
        let g = self.geometry(q, v);
        let mut entry = 0;
        for (k, c) in self.contacts.iter().enumerate() {
            if let (Some(slip), true) = (modes[k].sliding(), c.friction > 0.0) {
                let frame = g.contact_frame(k, c)?;
                instant.edit_sliding(entry, slip, |tangent| {
                    frame
                        .tangent_row
                        .scatter(&self.offsets, &self.bodies, tangent);
                })?;
                entry += 1;
            }
        }
        Ok(())
    }

    fn violations(
        &self,
        _t: f64,
        q: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        let g = self.geometry(q, q);
        let mut r = 0;
        for (j, joint) in self.joints.iter().enumerate() {
            g.joint_violations(joint, self.joint_angles[j], |x| {
                if r < eq.len() {
                    eq[r] = x;
                }
                r += 1;
            });
        }
        for x in eq.iter_mut().skip(r) {
            *x = 0.0;
        }
        let mut i = 0;
        for (k, c) in self.contacts.iter().enumerate() {
            if modes.get(k).is_some_and(|m| m.is_closed()) && i < ineq.len() {
                ineq[i] = g.gap(c);
                i += 1;
            }
        }
    }
    fn joint_row_name(&self, row: usize) -> String {
        let mut first = 0;
        for (j, joint) in self.joints.iter().enumerate() {
            let rows = rows_of(&joint.kind);
            if row < first + rows {
                let body = |r: BodyRef| match r {
                    BodyRef::Ground => "ground",
                    BodyRef::Body(b) => self.bodies[b].name.as_str(),
                };
                return format!(
                    "joint[{j}] ({} of \"{}\" and \"{}\")",
                    joint.kind.name(),
                    body(joint.bodies[0]),
                    body(joint.bodies[1])
                );
            }
            first += rows;
        }
        format!("joint row {row}")
    }
}

impl Contacts for PlanarModel {
    fn contacts(&self) -> usize {
        self.contacts.len()
    }
    fn contact_name(&self, k: usize) -> &str {
        &self.contacts[k].name
    }
    fn friction(&self, k: usize) -> f64 {
        self.contacts[k].friction
    }
    fn viscous(&self, k: usize) -> f64 {
        self.contacts[k].viscous
    }
    fn restitution(&self, k: usize) -> f64 {
        self.contacts[k].restitution
    }
    fn gap(&self, k: usize, q: &[f64]) -> f64 {
        self.geometry(q, q).gap(&self.contacts[k])
    }
    fn contact_velocity(&self, k: usize, q: &[f64], v: &[f64]) -> (f64, f64) {
        let g = self.geometry(q, v);
        match g.contact_frame(k, &self.contacts[k]) {
            Ok(f) => (f.normal_velocity, f.tangential_velocity),
            Err(_) => (0.0, 0.0),
        }
    }
}

impl Bodies for PlanarModel {
    fn bodies(&self) -> usize {
        self.bodies.len()
    }
    fn body_name(&self, b: usize) -> &str {
        &self.bodies[b].name
    }
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState {
        let o = self.offsets[b];
        let rigid = self.bodies[b].kind == BodyKind::Rigid;
        BodyState {
            position: q[o..o + 2].to_vec(),
            velocity: v[o..o + 2].to_vec(),
            angle: rigid.then(|| q[o + 2]),
            angular_velocity: rigid.then(|| v[o + 2]),
        }
    }
    /// Kinetic + gravitational + spring energy of the motion in the
    /// model's frame; in a moving frame plus the potential of the
    /// convective forces at the frame's `a_O(t)`, `omega(t)`:
    /// `sum m a_O . r_C - 1/2 m |omega x r_C|^2 - 1/2 omega . I_C omega`.
    /// With constant `a_O` and `omega` (a [`Frame::Constant`]) this is the
    /// Jacobi integral of the relative motion, conserved (the Coriolis
    /// forces do no work); with a time-varying frame nothing is conserved.
    /// NaN where a rigid body lacks the inertia tensor the frame needs.
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        let mut e = 0.0;
        if self.frame.is_some() {
            let Ok(fm) = self.frame_motion(t) else {
                return f64::NAN;
            };
            let w = fm.omega;
            for (i, b) in self.bodies.iter().enumerate() {
                let o = self.offsets[i];
                let r = [q[o], q[o + 1], 0.0];
                let wr = cross3(w, r);
                e += b.mass * (fm.a_o[0] * r[0] + fm.a_o[1] * r[1])
                    - 0.5 * b.mass * (wr[0] * wr[0] + wr[1] * wr[1] + wr[2] * wr[2]);
                if b.kind == BodyKind::Rigid {
                    let mut wiw = b.inertia * w[2] * w[2];
                    if w[0] != 0.0 || w[1] != 0.0 {
                        let Ok(l) = self.in_plane_momentum(i, q[o + 2], w, t) else {
                            return f64::NAN;
                        };
                        wiw += w[0] * l[0] + w[1] * l[1];
                    }
                    e -= 0.5 * wiw;
                }
            }
        }
        for (i, b) in self.bodies.iter().enumerate() {
            let o = self.offsets[i];
            e += 0.5 * b.mass * (v[o] * v[o] + v[o + 1] * v[o + 1]);
            e -= b.mass * (self.gravity[0] * q[o] + self.gravity[1] * q[o + 1]);
            if b.kind == BodyKind::Rigid {
                e += 0.5 * b.inertia * v[o + 2] * v[o + 2];
            }
        }
        let g = self.geometry(q, v);
        for f in &self.forces {
            if let Force::Spring {
                bodies,
                anchors,
                stiffness,
                rest_length,
            } = f
            {
                let d = sub(
                    g.point(bodies[1], anchors[1]).position,
                    g.point(bodies[0], anchors[0]).position,
                );
                let stretch = norm(d) - rest_length;
                e += 0.5 * stiffness * stretch * stretch;
            }
        }
        e
    }
}

impl PlanarModel {
    /// Number of two-sided rows of the joints.
    pub fn joint_rows(&self) -> usize {
        self.joints.iter().map(|j| rows_of(&j.kind)).sum()
    }
}

impl JointKind {
    /// The scene file's name of the kind (`pin`, `distance`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            JointKind::Pin => "pin",
            JointKind::Distance { .. } => "distance",
            JointKind::Slider { .. } => "slider",
            JointKind::Slot { .. } => "slot",
            JointKind::Weld => "weld",
            JointKind::KnifeEdge { .. } => "knife_edge",
        }
    }
}

/// The rows a joint adds.
fn rows_of(kind: &JointKind) -> usize {
    match kind {
        JointKind::Distance { .. } | JointKind::Slot { .. } | JointKind::KnifeEdge { .. } => 1,
        JointKind::Pin | JointKind::Slider { .. } => 2,
        JointKind::Weld => 3,
    }
}

/// The benchmark chain: `links` uniform rods of 1 m and 1 kg
/// (`I = 1/12`) along +x, the first pinned to the ground at the origin,
/// each pinned to the next at their ends, released horizontal under
/// `g = 9.81`. Its tip is the point `(0.5, 0)` of the last body.
pub fn chain(links: usize) -> Result<PlanarModel, ModelError> {
    let bodies = (0..links)
        .map(|i| Body::rigid(format!("link{i}"), 1.0, 1.0 / 12.0).at([i as f64 + 0.5, 0.0]))
        .collect();
    let joints = (0..links)
        .map(|i| Joint {
            kind: JointKind::Pin,
            bodies: [
                if i == 0 {
                    BodyRef::Ground
                } else {
                    BodyRef::Body(i - 1)
                },
                BodyRef::Body(i),
            ],
            anchors: [if i == 0 { [0.0, 0.0] } else { [0.5, 0.0] }, [-0.5, 0.0]],
        })
        .collect();
    PlanarModel::new([0.0, -9.81], bodies, joints, vec![], vec![])
}

/// Rows and stored entries of both row sets of an instant.
fn shape_of(instant: &Instant) -> [usize; 4] {
    let (e, i) = (instant.equalities(), instant.inequalities());
    [e.len(), e.matrix().nnz(), i.len(), i.matrix().nnz()]
}

/// A compressed-row pattern being built.
struct Pattern {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
    rhs: Vec<f64>,
}

impl Default for Pattern {
    fn default() -> Self {
        Pattern {
            indptr: vec![0],
            indices: Vec::new(),
            data: Vec::new(),
            rhs: Vec::new(),
        }
    }
}
