//! The problem formats' integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod fclib;
mod siconos;
mod siconos_space;
