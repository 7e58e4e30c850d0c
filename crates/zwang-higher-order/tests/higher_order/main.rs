//! The higher-order crate's integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod any_order;
mod worked_cases;
