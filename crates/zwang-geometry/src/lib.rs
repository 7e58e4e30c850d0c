//! Planar shapes on bodies, and what touches what.
//!
//! The first stage of a contact-rich step: the shapes a scene's bodies
//! carry ([`Shape`], in the body's frame), their mass properties (a
//! uniform body's centroid and moment of inertia), and, at each step, the
//! points where shapes of different bodies touch or come within a margin:
//! a point, a normal, a gap and an id that stays the same while the same
//! features touch, so that a time stepper can start each contact's solve
//! from its last impulse.
//!
//! Collision detection is parry's (`parry2d-f64`: a BVH broad phase and
//! contact manifolds with feature ids); nothing here is written by hand
//! but the bookkeeping around it.
//!
//! [`spatial`] is the same in space (`parry3d-f64`), for scenes with
//! `dimension = 3`: spheres, boxes, capsules, cylinders, convex hulls and
//! half-spaces, poses with a unit quaternion, the full inertia tensor, and
//! the same [`spatial::Collision`] with the same contact bookkeeping (a box
//! on a floor touches at its four corners, a lying capsule at two points,
//! a cylinder on its face at four points of its rim). Its narrow phase
//! re-writes two of parry's generators so that a steady call allocates
//! nothing, as in the plane.

mod collide;
mod shape;
pub mod spatial;

pub use collide::{Collider, Collision, ContactPoint};
pub use shape::{MassProperties, Pose, Shape, ShapeError};
