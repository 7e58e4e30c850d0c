//! Rigid bodies in space, for velocity-level time stepping: bodies with
//! shapes, gravity and constant forces, and joints between them
//! ([`joints`]).
//!
//! A moving body's coordinates are those of its *principal* frame (the
//! body frame turned onto the axes of its inertia tensor, as MuJoCo's
//! inertial frame): `q = (x, y, z, w, qx, qy, qz)`, the centre of mass and
//! a unit quaternion, and `v = (vx, vy, vz, wx, wy, wz)`, the centre's
//! velocity (world) and the angular velocity in the principal frame. `M`
//! is then diagonal and constant, `diag(m, m, m, I1, I2, I3)`: the
//! contact solver's fast path, and the gyroscopic term `-w x I w` is the
//! whole of the velocity-product force. The orientation is integrated on
//! its manifold (`q <- q exp(h w)`); users see the body frame and world
//! angular velocities ([`SpatialModel::body_state`]).

pub mod joints;
mod mechanism;
mod springs;

pub use joints::{JointRows, SpatialJoint, SpatialJointKind};
pub use springs::{SpatialSpring, SpatialSpringKind};
/// Rotations as unit quaternions and matrices (they live in `zwang-core`,
/// which the kinematic trees share).
pub use zwang_core::rotation;

use faer::Mat;
use zwang_geometry::spatial::{Collider, Pose, Shape};

use crate::ModelError;
use rotation::{apply, apply_transpose, conjugate, cross, dot, exp, from_matrix, matrix, mul};

/// What a body is.
#[derive(Debug, Clone, PartialEq)]
pub enum SpatialKind {
    /// A body that moves: its mass, and its inertia tensor about the
    /// centre of mass in the body frame (`None`: a uniform body of its
    /// shape).
    Rigid {
        /// kg, > 0.
        mass: f64,
        /// kg m^2, symmetric positive definite.
        inertia: Option<[[f64; 3]; 3]>,
    },
    /// A body that never moves (floors, walls, bins).
    Fixed,
}

/// A body: its kind, initial state (the body frame's origin is the centre
/// of mass), shape and surface.
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialBody {
    /// The name in reports.
    pub name: String,
    /// Rigid or fixed.
    pub kind: SpatialKind,
    /// Centre of mass, world, m.
    pub position: [f64; 3],
    /// The body frame's orientation, a unit quaternion `[w, x, y, z]`
    /// (normalised when the model is made).
    pub orientation: [f64; 4],
    /// Centre's velocity, world, m/s.
    pub velocity: [f64; 3],
    /// Angular velocity, world, rad/s.
    pub angular_velocity: [f64; 3],
    /// The shape in the body frame (`None`: none; a half-space on fixed
    /// bodies only).
    pub shape: Option<Shape>,
    /// Coulomb's coefficient of the surface (a pair uses `sqrt(mu_a mu_b)`).
    pub friction: f64,
    /// Newton's coefficient of the surface (a pair uses the larger).
    pub restitution: f64,
}

impl SpatialBody {
    /// A body of `kind` at the origin, at rest, unturned, without shape,
    /// friction 0.5, restitution 0.
    pub fn new(name: &str, kind: SpatialKind) -> SpatialBody {
        SpatialBody {
            name: name.to_string(),
            kind,
            position: [0.0; 3],
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            shape: None,
            friction: 0.5,
            restitution: 0.0,
        }
    }
}

/// A constant force and torque on a body, world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialForce {
    /// The body (an index into the model's bodies).
    pub body: usize,
    /// N, at the centre of mass.
    pub force: [f64; 3],
    /// N m.
    pub torque: [f64; 3],
}

/// What a moving body keeps: its body index, mass, principal moments and
/// the rotation from its body frame to its principal frame.
#[derive(Debug, Clone, Copy)]
struct Mover {
    body: usize,
    mass: f64,
    moments: [f64; 3],
    principal: [f64; 4],
}

/// A body's state as users see it: the body frame, world velocities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialState {
    /// Centre of mass, world.
    pub position: [f64; 3],
    /// Body frame, unit quaternion `[w, x, y, z]`.
    pub orientation: [f64; 4],
    /// Centre's velocity, world.
    pub velocity: [f64; 3],
    /// Angular velocity, world.
    pub angular_velocity: [f64; 3],
}

/// Bodies in space under gravity and constant forces.
#[derive(Debug, Clone)]
pub struct SpatialModel {
    gravity: [f64; 3],
    bodies: Vec<SpatialBody>,
    forces: Vec<SpatialForce>,
    /// Per body, its index among the moving ones.
    moving: Vec<Option<usize>>,
    movers: Vec<Mover>,
    /// The joints ([`SpatialModel::with_joints`]).
    joints: Vec<joints::Held>,
    /// The springs and dampers ([`SpatialModel::with_springs`]).
    springs: Vec<springs::Linked>,
    /// The joints and springs as given (anchors in body frames), for
    /// what draws them.
    joint_list: Vec<SpatialJoint>,
    spring_list: Vec<SpatialSpring>,
    /// The event-driven method's working memory for the joint rows.
    scratch: mechanism::Scratch,
}

fn invalid(key: String, message: &str) -> ModelError {
    ModelError::Invalid {
        key,
        message: message.to_string(),
    }
}

/// The eigen-decomposition of a symmetric positive definite 3 x 3
/// tensor: its moments and the rotation whose columns are its axes
/// (`None` when it is not positive definite).
fn principal_axes(tensor: &[[f64; 3]; 3]) -> Option<([f64; 3], [[f64; 3]; 3])> {
    let m = Mat::from_fn(3, 3, |i, j| tensor[i][j]);
    let eigen = m.self_adjoint_eigen(faer::Side::Lower).ok()?;
    let (u, s) = (eigen.U(), eigen.S().column_vector());
    let moments = [s[0], s[1], s[2]];
    if !moments.iter().all(|&x| x.is_finite() && x > 0.0) {
        return None;
    }
    let mut axes = [[0.0; 3]; 3];
    for (i, row) in axes.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = u[(i, j)];
        }
    }
    // A rotation, not a reflection.
    let c = cross(
        [axes[0][0], axes[1][0], axes[2][0]],
        [axes[0][1], axes[1][1], axes[2][1]],
    );
    if dot(c, [axes[0][2], axes[1][2], axes[2][2]]) < 0.0 {
        for row in &mut axes {
            row[2] = -row[2];
        }
    }
    Some((moments, axes))
}

impl SpatialModel {
    /// The model of `bodies` under `gravity` and `forces`; the error names
    /// the key (`body[2].mass`, `body[0].shape.radius`).
    pub fn new(
        gravity: [f64; 3],
        mut bodies: Vec<SpatialBody>,
        forces: Vec<SpatialForce>,
    ) -> Result<SpatialModel, ModelError> {
        if !gravity.iter().all(|x| x.is_finite()) {
            return Err(invalid("scene.gravity".into(), "must be finite"));
        }
        let mut moving = Vec::with_capacity(bodies.len());
        let mut movers = Vec::new();
        for (i, b) in bodies.iter_mut().enumerate() {
            let key = |k: &str| format!("body[{i}].{k}");
            let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
            if !finite(&b.position) {
                return Err(invalid(key("position"), "must be finite"));
            }
            if !finite(&b.velocity) {
                return Err(invalid(key("velocity"), "must be finite"));
            }
            if !finite(&b.angular_velocity) {
                return Err(invalid(key("angular_velocity"), "must be finite"));
            }
            b.orientation = rotation::normalized(b.orientation)
                .ok_or_else(|| invalid(key("orientation"), "must be a nonzero quaternion"))?;
            if !(b.friction.is_finite() && b.friction >= 0.0) {
                return Err(invalid(key("friction"), "must be >= 0"));
            }
            if !(b.restitution.is_finite() && (0.0..=1.0).contains(&b.restitution)) {
                return Err(invalid(key("restitution"), "must be in [0, 1]"));
            }
            if let Some(shape) = &b.shape {
                shape.validate().map_err(|e| ModelError::Invalid {
                    key: format!("body[{i}].shape.{}", e.key),
                    message: e.message,
                })?;
            }
            let SpatialKind::Rigid { mass, inertia } = &b.kind else {
                moving.push(None);
                continue;
            };
            if !(mass.is_finite() && *mass > 0.0) {
                return Err(invalid(key("mass"), "must be > 0"));
            }
            if matches!(b.shape, Some(Shape::Halfspace { .. })) {
                return Err(invalid(
                    key("shape"),
                    "a half-space must be on a fixed body",
                ));
            }
            let tensor = match (inertia, &b.shape) {
                (Some(t), _) => {
                    let symmetric = (0..3).all(|r| {
                        (0..3).all(|c| {
                            t[r][c].is_finite()
                                && (t[r][c] - t[c][r]).abs()
                                    <= 1e-9 * (t[r][r].abs() + t[c][c].abs())
                        })
                    });
                    if !symmetric {
                        return Err(invalid(key("inertia"), "must be a finite symmetric tensor"));
                    }
                    *t
                }
                (None, Some(shape)) => {
                    let props = shape.mass_properties(*mass).ok_or_else(|| {
                        invalid(key("inertia"), "is needed: the shape has no volume")
                    })?;
                    let size = props.inertia[0][0].max(props.inertia[1][1]).sqrt();
                    if props.centroid.iter().any(|c| c.abs() > 1e-9 * (1.0 + size)) {
                        return Err(invalid(
                            key("shape"),
                            "its centroid must lie at the body's origin (the centre of mass) when inertia is left out",
                        ));
                    }
                    props.inertia
                }
                (None, None) => {
                    return Err(invalid(
                        key("inertia"),
                        "is needed for a body without a shape",
                    ));
                }
            };
            let (moments, axes) = principal_axes(&tensor)
                .ok_or_else(|| invalid(key("inertia"), "must be positive definite"))?;
            moving.push(Some(movers.len()));
            movers.push(Mover {
                body: i,
                mass: *mass,
                moments,
                principal: from_matrix(&axes),
            });
        }
        for (k, f) in forces.iter().enumerate() {
            if f.body >= bodies.len() || moving[f.body].is_none() {
                return Err(invalid(
                    format!("force[{k}].body"),
                    "must name a moving body",
                ));
            }
            if !f.force.iter().chain(&f.torque).all(|x| x.is_finite()) {
                return Err(invalid(format!("force[{k}]"), "must be finite"));
            }
        }
        Ok(SpatialModel {
            gravity,
            bodies,
            forces,
            moving,
            movers,
            joints: Vec::new(),
            springs: Vec::new(),
            joint_list: Vec::new(),
            spring_list: Vec::new(),
            scratch: mechanism::Scratch::default(),
        })
    }

    /// The bodies, as given (orientations normalised).
    pub fn bodies(&self) -> &[SpatialBody] {
        &self.bodies
    }

    /// Gravity, world.
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// The number of moving bodies.
    pub fn movers(&self) -> usize {
        self.movers.len()
    }

    /// The body of moving body `m`.
    pub fn body_of(&self, m: usize) -> usize {
        self.movers[m].body
    }

    /// Moving body index of body `b` (`None`: fixed).
    pub fn mover_of(&self, b: usize) -> Option<usize> {
        self.moving[b]
    }

    /// Position coordinates: 7 per moving body.
    pub fn nq(&self) -> usize {
        7 * self.movers.len()
    }

    /// Velocity coordinates: 6 per moving body.
    pub fn nv(&self) -> usize {
        6 * self.movers.len()
    }

    /// The initial state.
    pub fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        for (m, mover) in self.movers.iter().enumerate() {
            let b = &self.bodies[mover.body];
            let frame = mul(b.orientation, mover.principal);
            q[7 * m..7 * m + 3].copy_from_slice(&b.position);
            q[7 * m + 3..7 * m + 7].copy_from_slice(&frame);
            v[6 * m..6 * m + 3].copy_from_slice(&b.velocity);
            let omega = apply_transpose(&matrix(frame), b.angular_velocity);
            v[6 * m + 3..6 * m + 6].copy_from_slice(&omega);
        }
    }

    /// `M`'s diagonal (all of `M`): `m, m, m, I1, I2, I3` per moving body.
    pub fn mass_diagonal(&self, out: &mut [f64]) {
        for (m, mover) in self.movers.iter().enumerate() {
            out[6 * m..6 * m + 3].fill(mover.mass);
            out[6 * m + 3..6 * m + 6].copy_from_slice(&mover.moments);
        }
    }

    /// The applied forces `Q` at `(q, v)`: gravity, the constant forces
    /// (their torques in the principal frame), and the gyroscopic torque
    /// `I w x w`.
    pub fn applied_forces(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (m, mover) in self.movers.iter().enumerate() {
            for j in 0..3 {
                out[6 * m + j] = mover.mass * self.gravity[j];
            }
            let w = [v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]];
            let iw = [0, 1, 2].map(|j| mover.moments[j] * w[j]);
            out[6 * m + 3..6 * m + 6].copy_from_slice(&cross(iw, w));
        }
        for f in &self.forces {
            let m = self.moving[f.body].expect("checked in new");
            let frame: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
            let torque = apply_transpose(&matrix(frame), f.torque);
            for j in 0..3 {
                out[6 * m + j] += f.force[j];
                out[6 * m + 3 + j] += torque[j];
            }
        }
        self.add_spring_forces(q, v, out);
    }

    /// The velocity after `h` of the applied forces alone:
    /// `v + h M^-1 Q` ([`SpatialModel::applied_forces`]).
    pub fn free_velocity(&self, q: &[f64], v: &[f64], h: f64, out: &mut [f64]) {
        self.applied_forces(q, v, out);
        for (m, mover) in self.movers.iter().enumerate() {
            for j in 0..3 {
                out[6 * m + j] = v[6 * m + j] + h * out[6 * m + j] / mover.mass;
                out[6 * m + 3 + j] = v[6 * m + 3 + j] + h * out[6 * m + 3 + j] / mover.moments[j];
            }
        }
    }

    /// `q <- q + h v` on the manifold: the centre moves by `h v`, the
    /// frame turns by `exp(h w)` (body axes), renormalised.
    pub fn integrate(&self, q: &mut [f64], v: &[f64], h: f64) {
        for m in 0..self.movers.len() {
            for j in 0..3 {
                q[7 * m + j] += h * v[6 * m + j];
            }
            let frame: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
            let turn = exp([0, 1, 2].map(|j| h * v[6 * m + 3 + j]));
            let next = rotation::normalized(mul(frame, turn)).unwrap_or(frame);
            q[7 * m + 3..7 * m + 7].copy_from_slice(&next);
        }
    }

    /// The colliders of the bodies with shapes (moving bodies by their
    /// moving index), and each one's `[friction, restitution]`.
    pub fn colliders(&self) -> (Vec<Collider>, Vec<[f64; 2]>) {
        let mut colliders = Vec::new();
        let mut surfaces = Vec::new();
        for (i, b) in self.bodies.iter().enumerate() {
            let Some(shape) = &b.shape else { continue };
            colliders.push(Collider {
                shape: shape.clone(),
                body: self.moving[i],
                pose: Pose {
                    position: b.position,
                    orientation: b.orientation,
                },
            });
            surfaces.push([b.friction, b.restitution]);
        }
        (colliders, surfaces)
    }

    /// The body frames' poses of the moving bodies at `q`.
    pub fn poses_into(&self, q: &[f64], out: &mut Vec<Pose>) {
        out.clear();
        out.extend(self.movers.iter().enumerate().map(|(m, mover)| {
            let frame: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
            Pose {
                position: [q[7 * m], q[7 * m + 1], q[7 * m + 2]],
                orientation: mul(frame, conjugate(mover.principal)),
            }
        }));
    }

    /// The rows of a point of moving body `m` at world `point` along the
    /// world directions `frame` (a contact's normal and tangents), times
    /// `sign`, appended to `out` as `(column, [n, t1, t2])`: the point's
    /// velocity `v + w x (p - x)` along each direction.
    pub fn point_rows(
        &self,
        q: &[f64],
        m: usize,
        point: [f64; 3],
        frame: &[[f64; 3]; 3],
        sign: f64,
        out: &mut Vec<(usize, [f64; 3])>,
    ) {
        let rotation = matrix(q[7 * m + 3..7 * m + 7].try_into().expect("four"));
        let arm = [0, 1, 2].map(|j| point[j] - q[7 * m + j]);
        // Along d: d . v + w_body . R^T (arm x d).
        let angular = frame.map(|d| apply_transpose(&rotation, cross(arm, d)));
        for j in 0..3 {
            out.push((6 * m + j, [0, 1, 2].map(|k| sign * frame[k][j])));
        }
        for j in 0..3 {
            out.push((6 * m + 3 + j, [0, 1, 2].map(|k| sign * angular[k][j])));
        }
    }

    /// Kinetic plus potential energy (gravity and the constant forces).
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let mut e = 0.0;
        for (m, mover) in self.movers.iter().enumerate() {
            for j in 0..3 {
                e += 0.5 * mover.mass * v[6 * m + j].powi(2);
                e += 0.5 * mover.moments[j] * v[6 * m + 3 + j].powi(2);
                e -= mover.mass * self.gravity[j] * q[7 * m + j];
            }
        }
        for f in &self.forces {
            let m = self.moving[f.body].expect("checked in new");
            e -= (0..3).map(|j| f.force[j] * q[7 * m + j]).sum::<f64>();
        }
        e + self.spring_energy(q)
    }

    /// Body `b`'s state at `(q, v)` (a fixed body's, as given).
    pub fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> SpatialState {
        let body = &self.bodies[b];
        let Some(m) = self.moving[b] else {
            return SpatialState {
                position: body.position,
                orientation: body.orientation,
                velocity: [0.0; 3],
                angular_velocity: [0.0; 3],
            };
        };
        let frame: [f64; 4] = q[7 * m + 3..7 * m + 7].try_into().expect("four");
        let omega = [v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]];
        SpatialState {
            position: [q[7 * m], q[7 * m + 1], q[7 * m + 2]],
            orientation: mul(frame, conjugate(self.movers[m].principal)),
            velocity: [v[6 * m], v[6 * m + 1], v[6 * m + 2]],
            angular_velocity: apply(&matrix(frame), omega),
        }
    }
}

#[cfg(test)]
mod tests;
