//! The scene crate's integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod common;

mod large;
mod malformed;
mod mutations;
mod shape_errors;
mod spatial;
mod valid;
