//! What can go wrong: a tree refused when it is built (each error names the
//! body or joint), and a call given arrays of the wrong length or a state
//! the tree cannot use.

use thiserror::Error;

/// Why a tree was refused or a call could not be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TreeError {
    /// A body's parent comes at or after it: bodies are listed parents
    /// first, so that one pass from the root meets every parent before its
    /// children.
    #[error("body `{body}`: parent {parent} is not listed before it (index {index})")]
    ParentAfterChild {
        /// The body.
        body: String,
        /// Its index.
        index: usize,
        /// The parent's index it gave.
        parent: usize,
    },
    /// A negative or non-finite mass.
    #[error("body `{body}`: mass {mass} is negative or not finite")]
    Mass {
        /// The body.
        body: String,
        /// The mass it gave.
        mass: f64,
    },
    /// An inertia that is not symmetric, not finite or not positive
    /// semidefinite (beyond round-off).
    #[error("body `{body}`: the inertia about the centre of mass is {why}")]
    Inertia {
        /// The body.
        body: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A non-finite position or centre of mass, or an orientation that is
    /// not a unit quaternion (beyond round-off).
    #[error("body `{body}`: {what} is not finite or not of unit length")]
    Frame {
        /// The body.
        body: String,
        /// Which field.
        what: &'static str,
    },
    /// A hinge or slide axis that is not a unit vector (beyond round-off),
    /// or a non-finite anchor.
    #[error("body `{body}`, joint `{joint}`: {what} is not finite or not of unit length")]
    Axis {
        /// The body.
        body: String,
        /// The joint.
        joint: String,
        /// Which field.
        what: &'static str,
    },
    /// A negative or non-finite armature.
    #[error("body `{body}`, joint `{joint}`: armature {armature} is negative or not finite")]
    Armature {
        /// The body.
        body: String,
        /// The joint.
        joint: String,
        /// The armature it gave.
        armature: f64,
    },
    /// A free joint that is not the only joint of a body whose parent is
    /// the world (its coordinates are the body's pose in the world).
    #[error("body `{body}`, joint `{joint}`: a free joint must be the only joint of a body attached to the world")]
    FreeJoint {
        /// The body.
        body: String,
        /// The joint.
        joint: String,
    },
    /// A non-finite gravity.
    #[error("gravity is not finite")]
    Gravity,
    /// An array of the wrong length.
    #[error("{what}: expected length {expected}, got {got}")]
    Length {
        /// Which array.
        what: &'static str,
        /// The length the tree needs.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A body index past the last body.
    #[error("body index {index} is past the last body ({bodies} bodies)")]
    Body {
        /// The index given.
        index: usize,
        /// How many bodies the tree has.
        bodies: usize,
    },
    /// A quaternion in `qpos` that is zero or not finite.
    #[error("joint `{joint}`: its quaternion in qpos is zero or not finite")]
    Quaternion {
        /// The joint.
        joint: String,
    },
    /// A non-finite number in `qpos` or `qvel`.
    #[error("{what}[{index}] is not finite")]
    NotFinite {
        /// Which array.
        what: &'static str,
        /// Where.
        index: usize,
    },
    /// A call before the one it needs (for example the bias before the
    /// velocities).
    #[error("{call} needs {needs} first")]
    Stage {
        /// The call made.
        call: &'static str,
        /// The call it needs before it.
        needs: &'static str,
    },
    /// A pivot of the factor that is not positive: the mass matrix is
    /// singular along this dof (a massless end without armature).
    #[error(
        "the mass matrix is not positive definite at dof {dof} (joint `{joint}`): pivot {pivot}"
    )]
    NotPositive {
        /// The dof.
        dof: usize,
        /// Its joint.
        joint: String,
        /// The pivot found.
        pivot: f64,
    },
}
