//! The command line's tests as one binary (one build and link instead of
//! one per file): each file a module, run against the built `zwang`.

mod common;
mod elliptic;
// The motion tests' helpers of the facade's tests (a fixed-step
// Runge-Kutta integrator and a difference of vectors), shared, not copied.
#[path = "../../../../tests/facade/motion_support/mod.rs"]
mod motion_support;

mod binary;
mod bounded;
mod contact;
mod draw_views;
mod friction;
mod higher_order;
mod honest_outcomes;
mod instants;
mod mjcf;
mod readable;
mod readme_images;
mod readme_scenes;
mod simulate;
mod simulate_space;
mod soak;
mod space_joint_scenes;
