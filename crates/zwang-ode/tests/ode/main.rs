//! The integrator's tests (the no-allocation test keeps its own binary, for its counting allocator) as one binary (one build and link instead of one per
//! file): each file a module.

mod integrate;
mod kepler;
mod root;
