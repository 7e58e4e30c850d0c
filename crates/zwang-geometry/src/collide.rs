//! Which shapes touch, and where.

use crate::{Pose, Shape};

/// A shape on a body (`Some(index)` into the caller's moving bodies) or
/// fixed in the world (`None`, at `pose`).
#[derive(Debug, Clone, PartialEq)]
pub struct Collider {
    /// The shape, in the body's frame.
    pub shape: Shape,
    /// The moving body it is on, or `None` for a fixed one.
    pub body: Option<usize>,
    /// A fixed collider's pose (ignored for one on a moving body).
    pub pose: Pose,
}

/// One point where two colliders touch or come within the margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint {
    /// The two colliders (indices into [`Collision::new`]'s list), the
    /// first with the lower index.
    pub colliders: [usize; 2],
    /// World, m: the midpoint between the two surfaces' closest points.
    pub point: [f64; 2],
    /// Unit normal, world, from the first collider towards the second.
    pub normal: [f64; 2],
    /// Signed distance along the normal, m: negative when they overlap.
    pub gap: f64,
    /// The same while the same features of the same pair touch.
    pub id: u64,
}
