//! The tree crate's integration tests as one binary (one build and link instead of one per
//! file): each file a module. The no-allocation test keeps its own
//! binary, for its counting allocator.

#[path = "../common/mod.rs"]
mod common;

mod closed_forms;
mod factor;
mod free_body;
mod lagrange;
mod manifold;
mod refusals;
