//! Shapes on bodies in space, and what touches what.
//!
//! The spatial twin of the planar types at the crate's root, for scenes
//! with `dimension = 3`: the same bookkeeping (colliders on bodies or
//! fixed, exclusions, one kept manifold per candidate pair, contact ids
//! that persist while the same features touch, no allocation in steady
//! state) over `parry3d-f64`. A separate module rather than a dimension
//! parameter: parry's 2D and 3D crates are distinct types, and the shapes,
//! poses and mass properties differ in kind, not only in size.

mod collide;
mod shape;

pub use crate::ShapeError;
pub use collide::{Collider, Collision, ContactPoint};
pub use shape::{MassProperties, Pose, Shape, Triangles};
