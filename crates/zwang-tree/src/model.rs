//! The tree: bodies listed parents first, each with its mass properties,
//! its frame in its parent and its joints; validated once, with the
//! addresses of every joint's coordinates and every dof's parent worked out
//! (MuJoCo's `jnt_qposadr`, `jnt_dofadr`, `dof_parentid`), and the mass
//! matrix's layout in the tree's sparsity.

use std::ops::Range;

use zwang_core::rotation::{dot, normalized};

use crate::TreeError;

/// How far from unit length an axis or a quaternion may be (round-off of
/// numbers written with a dozen digits), and how far below zero an
/// inertia's principal minors may be, relative to its scale.
const ROUND_OFF: f64 = 1e-9;

/// The motion a joint allows between a body and its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JointKind {
    /// A rotation by the angle `q` (one coordinate, one dof) about `axis`
    /// (a unit vector in the body frame) through `anchor` (a point of the
    /// body frame).
    Hinge {
        /// The unit axis, body frame.
        axis: [f64; 3],
        /// A point of the axis, body frame.
        anchor: [f64; 3],
    },
    /// A translation by `q` along `axis` (a unit vector in the body frame).
    Slide {
        /// The unit axis, body frame.
        axis: [f64; 3],
    },
    /// A rotation about `anchor` (a point of the body frame): four
    /// coordinates (a unit quaternion `[w, x, y, z]`), three dofs (the
    /// angular velocity in the joint's turned frame, the frame its
    /// quaternion is integrated in). MuJoCo takes the body's final axes
    /// instead; the two agree unless a rotation follows the ball in the
    /// same body.
    Ball {
        /// The centre of rotation, body frame.
        anchor: [f64; 3],
    },
    /// The body's pose in the world: seven coordinates (the position of the
    /// body frame's origin, then a unit quaternion), six dofs (the origin's
    /// velocity in world axes, then the angular velocity in body axes, as
    /// MuJoCo's).
    Free,
}

impl JointKind {
    /// Its number of coordinates (`qpos` entries).
    pub fn nq(&self) -> usize {
        match self {
            JointKind::Hinge { .. } | JointKind::Slide { .. } => 1,
            JointKind::Ball { .. } => 4,
            JointKind::Free => 7,
        }
    }

    /// Its number of dofs (`qvel` entries).
    pub fn nv(&self) -> usize {
        match self {
            JointKind::Hinge { .. } | JointKind::Slide { .. } => 1,
            JointKind::Ball { .. } => 3,
            JointKind::Free => 6,
        }
    }
}

/// A joint of a body: what it allows, and the armature (rotor inertia)
/// added to the diagonal of the mass matrix at each of its dofs.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Its name, for errors.
    pub name: String,
    /// The motion it allows.
    pub kind: JointKind,
    /// Added to `M`'s diagonal at each of its dofs (non-negative).
    pub armature: f64,
    /// Hinge and slide: the coordinate at which the body is at its given
    /// frame (MuJoCo's `ref`, the joint's `qpos0`); the joint turns or
    /// moves the body by `q - reference`. Ignored by ball and free joints.
    pub reference: f64,
}

impl Joint {
    /// A hinge about the unit `axis` through `anchor` (body frame).
    pub fn hinge(name: impl Into<String>, axis: [f64; 3], anchor: [f64; 3]) -> Joint {
        Joint::of(name, JointKind::Hinge { axis, anchor })
    }

    /// A slide along the unit `axis` (body frame).
    pub fn slide(name: impl Into<String>, axis: [f64; 3]) -> Joint {
        Joint::of(name, JointKind::Slide { axis })
    }

    /// A ball joint about `anchor` (body frame).
    pub fn ball(name: impl Into<String>, anchor: [f64; 3]) -> Joint {
        Joint::of(name, JointKind::Ball { anchor })
    }

    /// A free joint (the body's pose in the world).
    pub fn free(name: impl Into<String>) -> Joint {
        Joint::of(name, JointKind::Free)
    }

    /// The same joint with this armature.
    pub fn with_armature(mut self, armature: f64) -> Joint {
        self.armature = armature;
        self
    }

    /// The same joint with this reference coordinate (hinge and slide).
    pub fn with_reference(mut self, reference: f64) -> Joint {
        self.reference = reference;
        self
    }

    fn of(name: impl Into<String>, kind: JointKind) -> Joint {
        Joint {
            name: name.into(),
            kind,
            armature: 0.0,
            reference: 0.0,
        }
    }
}

/// A rigid body of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Its name, for errors.
    pub name: String,
    /// The index of its parent body (listed before it), `None` for the
    /// world.
    pub parent: Option<usize>,
    /// The origin of its frame in its parent's frame, at `qpos0`.
    pub position: [f64; 3],
    /// The orientation of its frame in its parent's frame at `qpos0` (a
    /// unit quaternion `[w, x, y, z]`).
    pub orientation: [f64; 4],
    /// Its mass (non-negative: a massless body only carries others).
    pub mass: f64,
    /// Its centre of mass, body frame.
    pub com: [f64; 3],
    /// Its inertia about the centre of mass, body axes (symmetric,
    /// positive semidefinite).
    pub inertia: [[f64; 3]; 3],
    /// Its joints to the parent, applied in order (each in the frame the
    /// ones before it turned and moved).
    pub joints: Vec<Joint>,
}

impl Body {
    /// A massless body at its parent's origin with no joints (welded); set
    /// the fields to give it more.
    pub fn new(name: impl Into<String>, parent: Option<usize>) -> Body {
        Body {
            name: name.into(),
            parent,
            position: [0.0; 3],
            orientation: [1.0, 0.0, 0.0, 0.0],
            mass: 0.0,
            com: [0.0; 3],
            inertia: [[0.0; 3]; 3],
            joints: Vec::new(),
        }
    }
}

/// A joint as the tree stores it: its body and where its coordinates and
/// dofs are.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JointSlot {
    pub body: usize,
    pub kind: JointKind,
    pub qadr: usize,
    pub dadr: usize,
    pub reference: f64,
}

/// A validated kinematic tree in joint coordinates.
///
/// Coordinates `qpos` (length [`Tree::nq`]) and velocities `qvel` (length
/// [`Tree::nv`]) follow the bodies' order, and each body's joints in order.
/// The mass matrix is kept in the tree's sparsity ([`Tree::mass_layout`]).
#[derive(Debug, Clone)]
pub struct Tree {
    pub(crate) bodies: Vec<Body>,
    pub(crate) gravity: [f64; 3],
    pub(crate) joints: Vec<JointSlot>,
    pub(crate) joint_names: Vec<String>,
    pub(crate) body_joints: Vec<Range<usize>>,
    pub(crate) body_dofs: Vec<Range<usize>>,
    /// The last dof at or above each body (its own last, else its
    /// nearest ancestor's): where a walk to the root starts.
    pub(crate) body_last_dof: Vec<Option<usize>>,
    pub(crate) dof_parent: Vec<Option<usize>>,
    pub(crate) dof_joint: Vec<usize>,
    pub(crate) dof_armature: Vec<f64>,
    /// Where row `i` of the mass matrix starts: the diagonal, then the
    /// entries to `i`'s ancestors, nearest first.
    pub(crate) madr: Vec<usize>,
    pub(crate) nnz: usize,
    pub(crate) nq: usize,
    pub(crate) qpos0: Vec<f64>,
}

impl Tree {
    /// Validate the bodies (listed parents first) and lay out the tree.
    /// Axes and quaternions are normalized when they are unit within
    /// round-off.
    pub fn new(bodies: Vec<Body>, gravity: [f64; 3]) -> Result<Tree, TreeError> {
        if gravity.iter().any(|g| !g.is_finite()) {
            return Err(TreeError::Gravity);
        }
        let mut bodies = bodies;
        for (index, body) in bodies.iter_mut().enumerate() {
            check_body(index, body)?;
        }
        let mut joints = Vec::new();
        let mut joint_names = Vec::new();
        let mut body_joints = Vec::with_capacity(bodies.len());
        let mut body_dofs = Vec::with_capacity(bodies.len());
        let mut body_last_dof: Vec<Option<usize>> = Vec::with_capacity(bodies.len());
        let mut dof_parent = Vec::new();
        let mut dof_joint = Vec::new();
        let mut dof_armature = Vec::new();
        let mut qpos0 = Vec::new();
        for (b, body) in bodies.iter().enumerate() {
            let first_joint = joints.len();
            let first_dof = dof_parent.len();
            let mut last = body.parent.and_then(|p| body_last_dof[p]);
            for joint in &body.joints {
                let slot = JointSlot {
                    body: b,
                    kind: joint.kind,
                    qadr: qpos0.len(),
                    dadr: dof_parent.len(),
                    reference: joint.reference,
                };
                match joint.kind {
                    JointKind::Hinge { .. } | JointKind::Slide { .. } => {
                        qpos0.push(joint.reference)
                    }
                    JointKind::Ball { .. } => qpos0.extend([1.0, 0.0, 0.0, 0.0]),
                    JointKind::Free => {
                        qpos0.extend(body.position);
                        qpos0.extend(body.orientation);
                    }
                }
                for _ in 0..joint.kind.nv() {
                    dof_parent.push(last);
                    last = Some(dof_joint.len());
                    dof_joint.push(joints.len());
                    dof_armature.push(joint.armature);
                }
                joints.push(slot);
                joint_names.push(joint.name.clone());
            }
            body_joints.push(first_joint..joints.len());
            body_dofs.push(first_dof..dof_parent.len());
            body_last_dof.push(last);
        }
        let mut madr = Vec::with_capacity(dof_parent.len());
        let mut depth = Vec::with_capacity(dof_parent.len());
        let mut nnz = 0;
        for parent in &dof_parent {
            let d = parent.map_or(0, |p: usize| depth[p] + 1);
            depth.push(d);
            madr.push(nnz);
            nnz += d + 1;
        }
        Ok(Tree {
            bodies,
            gravity,
            joints,
            joint_names,
            body_joints,
            body_dofs,
            body_last_dof,
            dof_parent,
            dof_joint,
            dof_armature,
            madr,
            nnz,
            nq: qpos0.len(),
            qpos0,
        })
    }

    /// The number of coordinates (`qpos`): 1 per hinge or slide, 4 per
    /// ball, 7 per free joint.
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// The number of dofs (`qvel`): 1 per hinge or slide, 3 per ball, 6
    /// per free joint.
    pub fn nv(&self) -> usize {
        self.dof_parent.len()
    }

    /// The number of bodies.
    pub fn nbody(&self) -> usize {
        self.bodies.len()
    }

    /// The bodies, as validated (unit axes and quaternions).
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Gravity's acceleration, world frame.
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// The coordinates at which every body is at its given frame: each
    /// hinge's and slide's reference (zero unless given), identity
    /// quaternions, and each free body's given pose.
    pub fn qpos0(&self) -> &[f64] {
        &self.qpos0
    }

    /// Each dof's parent dof (MuJoCo's `dof_parentid`): the dof before it in
    /// its body, else the last dof above its body; `None` at a root.
    pub fn dof_parent(&self) -> &[Option<usize>] {
        &self.dof_parent
    }

    /// The number of joints (over the bodies' joint lists, in order).
    pub fn njoint(&self) -> usize {
        self.joints.len()
    }

    /// Where joint `joint`'s coordinates start in `qpos` (MuJoCo's
    /// `jnt_qposadr`); `None` past the last joint.
    pub fn joint_qpos(&self, joint: usize) -> Option<usize> {
        self.joints.get(joint).map(|j| j.qadr)
    }

    /// Where joint `joint`'s dofs start in `qvel` (MuJoCo's
    /// `jnt_dofadr`); `None` past the last joint.
    pub fn joint_dof(&self, joint: usize) -> Option<usize> {
        self.joints.get(joint).map(|j| j.dadr)
    }

    /// The body joint `joint` moves; `None` past the last joint.
    pub fn joint_body(&self, joint: usize) -> Option<usize> {
        self.joints.get(joint).map(|j| j.body)
    }

    /// The joints of body `body` (a range of joint indices).
    pub fn body_joints(&self, body: usize) -> Range<usize> {
        self.body_joints[body].clone()
    }

    /// The dofs of body `body` (a range of `qvel`).
    pub fn body_dofs(&self, body: usize) -> Range<usize> {
        self.body_dofs[body].clone()
    }

    /// The dofs that move body `body`, from its last one to the root: the
    /// nonzero columns of its Jacobians.
    pub fn path(&self, body: usize) -> Ancestors<'_> {
        Ancestors {
            parent: &self.dof_parent,
            next: self.body_last_dof.get(body).copied().flatten(),
        }
    }

    /// The dof `dof` and its ancestors, nearest first.
    pub fn ancestors(&self, dof: usize) -> Ancestors<'_> {
        Ancestors {
            parent: &self.dof_parent,
            next: (dof < self.nv()).then_some(dof),
        }
    }

    /// The mass matrix's layout (MuJoCo's): row `i` starts at `start[i]`
    /// and holds the diagonal, then the entries to `i`'s ancestors nearest
    /// first ([`Tree::ancestors`]); `nnz` entries in all, the lower triangle
    /// of `M` in the tree's sparsity. The factor has the same layout.
    pub fn mass_layout(&self) -> (&[usize], usize) {
        (&self.madr, self.nnz)
    }

    /// Entry `(i, j)` of a matrix kept in [`Tree::mass_layout`] (either
    /// triangle; zero outside the pattern).
    pub fn entry(&self, values: &[f64], i: usize, j: usize) -> f64 {
        let (hi, lo) = if i >= j { (i, j) } else { (j, i) };
        if hi >= self.nv() {
            return 0.0;
        }
        self.ancestors(hi)
            .position(|a| a == lo)
            .map_or(0.0, |k| values[self.madr[hi] + k])
    }

    /// The multiply-adds of [`Tree::factor`](crate::Tree::factor): for each
    /// dof, for each ancestor, that ancestor's row. Zero fill keeps it to
    /// the pattern: linear in the dofs when the depth is bounded.
    pub fn factor_work(&self) -> usize {
        (0..self.nv())
            .map(|k| {
                self.ancestors(k)
                    .skip(1)
                    .map(|i| self.row_len(i))
                    .sum::<usize>()
            })
            .sum()
    }

    /// The length of row `i` of the layout (1 + the number of ancestors).
    pub(crate) fn row_len(&self, i: usize) -> usize {
        let end = self.madr.get(i + 1).copied().unwrap_or(self.nnz);
        end - self.madr[i]
    }
}

/// A walk from a dof to the root through the dofs' parents.
#[derive(Debug, Clone)]
pub struct Ancestors<'a> {
    parent: &'a [Option<usize>],
    next: Option<usize>,
}

impl Iterator for Ancestors<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let here = self.next?;
        self.next = self.parent[here];
        Some(here)
    }
}

fn check_body(index: usize, body: &mut Body) -> Result<(), TreeError> {
    let name = || body.name.clone();
    let owned = body.name.clone();
    if let Some(parent) = body.parent {
        if parent >= index {
            return Err(TreeError::ParentAfterChild {
                body: name(),
                index,
                parent,
            });
        }
    }
    if !(body.mass.is_finite() && body.mass >= 0.0) {
        return Err(TreeError::Mass {
            body: name(),
            mass: body.mass,
        });
    }
    if let Some(why) = inertia_problem(&body.inertia) {
        return Err(TreeError::Inertia { body: name(), why });
    }
    let frame = |what| TreeError::Frame {
        body: owned.clone(),
        what,
    };
    if body.position.iter().any(|x| !x.is_finite()) {
        return Err(frame("position"));
    }
    if body.com.iter().any(|x| !x.is_finite()) {
        return Err(frame("com"));
    }
    body.orientation = unit(body.orientation).ok_or_else(|| frame("orientation"))?;
    let only_joint = body.joints.len() == 1;
    let at_root = body.parent.is_none();
    for joint in &mut body.joints {
        let axis_error = |what| TreeError::Axis {
            body: body.name.clone(),
            joint: joint.name.clone(),
            what,
        };
        if !(joint.armature.is_finite() && joint.armature >= 0.0) {
            return Err(TreeError::Armature {
                body: body.name.clone(),
                joint: joint.name.clone(),
                armature: joint.armature,
            });
        }
        if !joint.reference.is_finite() {
            return Err(axis_error("reference"));
        }
        match &mut joint.kind {
            JointKind::Hinge { axis, anchor } => {
                *axis = unit_axis(*axis).ok_or_else(|| axis_error("axis"))?;
                if anchor.iter().any(|x| !x.is_finite()) {
                    return Err(axis_error("anchor"));
                }
            }
            JointKind::Slide { axis } => {
                *axis = unit_axis(*axis).ok_or_else(|| axis_error("axis"))?;
            }
            JointKind::Ball { anchor } => {
                if anchor.iter().any(|x| !x.is_finite()) {
                    return Err(axis_error("anchor"));
                }
            }
            JointKind::Free => {
                if !(only_joint && at_root) {
                    return Err(TreeError::FreeJoint {
                        body: body.name.clone(),
                        joint: joint.name.clone(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// `q` normalized, if it is of unit length within round-off.
fn unit(q: [f64; 4]) -> Option<[f64; 4]> {
    let norm2: f64 = q.iter().map(|x| x * x).sum();
    ((norm2 - 1.0).abs() <= ROUND_OFF)
        .then(|| normalized(q))
        .flatten()
}

/// `a` normalized, if it is of unit length within round-off.
fn unit_axis(a: [f64; 3]) -> Option<[f64; 3]> {
    let norm2 = dot(a, a);
    (norm2.is_finite() && (norm2 - 1.0).abs() <= ROUND_OFF).then(|| a.map(|x| x / norm2.sqrt()))
}

/// Why an inertia tensor cannot be one: not finite, not symmetric or not
/// positive semidefinite (a principal minor below zero beyond round-off of
/// the tensor's scale).
fn inertia_problem(i: &[[f64; 3]; 3]) -> Option<&'static str> {
    if i.iter().flatten().any(|x| !x.is_finite()) {
        return Some("not finite");
    }
    let scale = i.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = ROUND_OFF * scale;
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        if (i[a][b] - i[b][a]).abs() > tol {
            return Some("not symmetric");
        }
    }
    let diagonal = (0..3).all(|k| i[k][k] >= -tol);
    let pairs = [(0, 1), (0, 2), (1, 2)]
        .iter()
        .all(|&(a, b)| i[a][a] * i[b][b] - i[a][b] * i[b][a] >= -tol * scale);
    let det = i[0][0] * (i[1][1] * i[2][2] - i[1][2] * i[2][1])
        - i[0][1] * (i[1][0] * i[2][2] - i[1][2] * i[2][0])
        + i[0][2] * (i[1][0] * i[2][1] - i[1][1] * i[2][0]);
    (!(diagonal && pairs && det >= -tol * scale * scale)).then_some("not positive semidefinite")
}
