//! The generalized crate's integration tests (the no-allocation test keeps its own binary, for its counting allocator) as one binary (one build and link instead of one per
//! file): each file a module.

mod double_pendulum;
mod errors;
mod forms;
mod relative;
