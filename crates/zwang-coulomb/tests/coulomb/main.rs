//! The Coulomb crate's integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod contact_problem;
mod contacts;
mod rod;
