//! The stepper crate's tests as one binary (one build and link instead of
//! one per file): each file a module. The allocation-counting tests keep
//! their own binaries (`no_alloc.rs`, `memory.rs`): each installs a global
//! allocator.

mod common;

mod bad_input;
mod impacts;
mod space;
mod space_events;
mod space_joints;
mod space_springs;
mod timestep;
mod tree;
