//! The forms' integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod hand_solved;
mod random;
