//! Articulated models: a kinematic tree in joint coordinates
//! ([`zwang_tree::Tree`]) with what MuJoCo hangs on it: geoms that collide,
//! sites, joint physics (limits, damping, springs, dry friction), tendons,
//! actuators, equality constraints and keyframes. The data set a reader of
//! MJCF files fills and a time stepper over trees reads; it holds no
//! working memory.
//!
//! Indices: bodies are the tree's (`0..tree.nbody()`, parents first; the
//! world is `None`), joints are numbered over the bodies' joint lists in
//! order (MuJoCo's `jnt` order), dofs and coordinates are the tree's
//! `qvel` and `qpos` entries.

mod coupling;
mod forces;
mod kinematics;
mod mechanism;

pub use forces::JointAddress;
pub use mechanism::{full_pattern, ArticulatedMechanism};
use zwang_core::rotation::{apply, matrix, mul};
use zwang_geometry::spatial::{Pose, Shape};
use zwang_tree::{Tree, TreeError, Workspace};

/// A geom: a shape on a body (or on the world), with its contact
/// properties.
#[derive(Debug, Clone, PartialEq)]
pub struct Geom {
    /// Its name (MJCF's, or `geom[i]` for an unnamed one).
    pub name: String,
    /// The body it is on (`None`: the world).
    pub body: Option<usize>,
    /// Its pose in the body's frame (in the world's for a world geom).
    pub pose: Pose,
    /// Its shape, in its own frame. A plane is a [`Shape::Halfspace`]
    /// with normal `+z`.
    pub shape: Shape,
    /// Coulomb's coefficient (MJCF `friction[0]`); a pair takes the larger.
    pub friction: f64,
    /// MJCF `condim`: 1 frictionless, 3 sliding friction.
    pub condim: u8,
    /// MJCF `contype` and `conaffinity`: two geoms may touch when
    /// `contype_a & conaffinity_b` or `contype_b & conaffinity_a` is
    /// nonzero.
    pub contype: u32,
    /// See `contype`.
    pub conaffinity: u32,
}

impl Geom {
    /// Its world pose at the tree's positions in `ws` (from the last
    /// [`Tree::positions`]): the body's pose composed with its own; a
    /// world geom's is its own. The stepper's colliders and the pictures
    /// of a run both place geoms by it.
    pub fn world_pose(&self, tree: &Tree, ws: &Workspace) -> Result<Pose, TreeError> {
        let Some(body) = self.body else {
            return Ok(self.pose);
        };
        let (x, r) = tree.pose(ws, body)?;
        let moved = apply(&matrix(r), self.pose.position);
        Ok(Pose {
            position: [x[0] + moved[0], x[1] + moved[1], x[2] + moved[2]],
            orientation: mul(r, self.pose.orientation),
        })
    }
}

/// A site: a frame fixed to a body, for tendons and reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Its name.
    pub name: String,
    /// The body it is on (`None`: the world).
    pub body: Option<usize>,
    /// Its position in the body's frame.
    pub position: [f64; 3],
}

/// What a joint adds to the tree's dynamics, one per joint of the tree in
/// order. A field that does not apply is its neutral value (zero, `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct JointPhysics {
    /// The joint's name.
    pub name: String,
    /// Hinge and slide: `[low, high]` on `qpos` (rad or m), held as a hard
    /// one-sided constraint at each end. Ball: `[0, max angle]` (only the
    /// upper end means anything).
    pub range: Option<[f64; 2]>,
    /// Viscous damping per dof, `-d qdot` (N s/m or N m s/rad).
    pub damping: f64,
    /// Spring stiffness, `-k (q - springref)` (hinge and slide only).
    pub stiffness: f64,
    /// The spring's rest coordinate.
    pub springref: f64,
    /// Dry friction at each dof: a force in `[-f, f]` opposing motion.
    pub frictionloss: f64,
}

/// A tendon's path.
#[derive(Debug, Clone, PartialEq)]
pub enum TendonPath {
    /// `length = sum coef_i q_{joint_i}` (hinge and slide joints).
    Fixed(Vec<(usize, f64)>),
    /// Straight segments through the sites in order (site indices).
    Spatial(Vec<usize>),
}

/// A tendon: a length over the coordinates, with limits and physics like a
/// joint's.
#[derive(Debug, Clone, PartialEq)]
pub struct Tendon {
    /// Its name.
    pub name: String,
    /// How its length is measured.
    pub path: TendonPath,
    /// `[low, high]` on the length, a hard one-sided constraint at each end.
    pub range: Option<[f64; 2]>,
    /// Viscous damping on the length's rate.
    pub damping: f64,
    /// A spring on the length about `springlength`.
    pub stiffness: f64,
    /// The spring's rest length (`None`: the length at `qpos0`).
    pub springlength: Option<f64>,
}

/// What an actuator pulls on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transmission {
    /// A joint (index), its force along the joint's first dof (hinge,
    /// slide).
    Joint(usize),
    /// A tendon (index), its force along the tendon's length.
    Tendon(usize),
}

/// An actuator: force `gain * ctrl + bias[0] + bias[1] * length +
/// bias[2] * velocity` (MuJoCo's fixed gain and affine bias; a `motor` has gain 1
/// and no bias, a `position` gain `kp` and bias `[0, -kp, 0]`, a
/// `velocity` gain `kv` and bias `[0, 0, -kv]`), times `gear`, applied
/// through its transmission.
#[derive(Debug, Clone, PartialEq)]
pub struct Actuator {
    /// Its name.
    pub name: String,
    /// Where its force goes.
    pub transmission: Transmission,
    /// The scale of the transmission (MJCF `gear[0]`).
    pub gear: f64,
    /// The control's gain.
    pub gain: f64,
    /// The affine bias `[b0, b1, b2]` on the actuator's length and velocity
    /// (the transmission's, times `gear`).
    pub bias: [f64; 3],
    /// The control is clamped into this range when given.
    pub ctrlrange: Option<[f64; 2]>,
    /// The force is clamped into this range when given.
    pub forcerange: Option<[f64; 2]>,
}

/// An equality constraint, held exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum Equality {
    /// A point of `body1` (`anchor`, its frame) on a point of `body2`
    /// (where the anchor is at `qpos0`).
    Connect {
        /// The two bodies (`None`: the world).
        bodies: [Option<usize>; 2],
        /// The point on the first body, its frame.
        anchor: [f64; 3],
        /// The same point on the second body, its frame.
        anchor2: [f64; 3],
    },
    /// Two bodies' relative pose fixed at its value at `qpos0` (or the
    /// one given).
    Weld {
        /// The two bodies (`None`: the world).
        bodies: [Option<usize>; 2],
        /// The pose of the second in the first's frame that is held.
        relative: Pose,
    },
    /// `q_joint1 = polycoef(q_joint2)` (a polynomial of degree 4 at most;
    /// without a second joint, `q_joint1 = polycoef[0]`).
    Joint {
        /// The two joints.
        joints: [usize; 2],
        /// `[a0, a1, a2, a3, a4]`.
        polycoef: [f64; 5],
    },
    /// The same on tendon lengths.
    Tendon {
        /// The two tendons.
        tendons: [usize; 2],
        /// `[a0, a1, a2, a3, a4]`.
        polycoef: [f64; 5],
    },
}

/// A keyframe: a start. Parts the file leaves out are filled (`qpos0`,
/// zeros) by the reader.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyframe {
    /// Its name (may be empty).
    pub name: String,
    /// s.
    pub time: f64,
    /// Length `tree.nq()`.
    pub qpos: Vec<f64>,
    /// Length `tree.nv()`.
    pub qvel: Vec<f64>,
    /// Length `actuators.len()`.
    pub ctrl: Vec<f64>,
}

/// A kinematic tree with its geoms, joint physics, tendons, actuators,
/// equalities and keyframes.
#[derive(Debug, Clone)]
pub struct Articulated {
    /// The bodies, joints (with armature), mass properties and gravity.
    pub tree: Tree,
    /// One per joint of the tree, in order.
    pub joints: Vec<JointPhysics>,
    /// The geoms (colliding or not).
    pub geoms: Vec<Geom>,
    /// The sites.
    pub sites: Vec<Site>,
    /// The tendons.
    pub tendons: Vec<Tendon>,
    /// The actuators, in the order of `ctrl`.
    pub actuators: Vec<Actuator>,
    /// The equality constraints.
    pub equalities: Vec<Equality>,
    /// Pairs of bodies whose geoms never touch (MJCF `contact/exclude`),
    /// `[low, high]` with the world as `None`.
    pub excluded: Vec<[Option<usize>; 2]>,
    /// Contacts between geoms at all (MJCF `option/flag contact`).
    pub contact: bool,
    /// The time step the file asks for, s.
    pub timestep: f64,
    /// The starts the file names.
    pub keyframes: Vec<Keyframe>,
}

impl Articulated {
    /// The keyframe `key` names: a key's name, else its 0-based index.
    pub fn keyframe(&self, key: &str) -> Option<usize> {
        let keys = &self.keyframes;
        keys.iter()
            .position(|k| !k.name.is_empty() && k.name == key)
            .or_else(|| key.parse::<usize>().ok().filter(|&i| i < keys.len()))
    }
}
