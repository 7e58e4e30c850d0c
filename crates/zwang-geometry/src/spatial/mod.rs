//! Shapes on bodies in space: their checks and mass properties.

mod shape;

pub use crate::ShapeError;
pub use shape::{MassProperties, Pose, Shape};
