//! Pictures of runs, apart from the physics: a library user who only
//! computes does not compile plotters. Both take what a run reports
//! through `zwang_motion`'s `Observer` while it goes, and hold a bounded
//! amount of it however long the run.
//!
//! - [`plot`]: the PNG of `zwang simulate --plot` (positions, energy and
//!   contact forces against time), and the comparison of exact and convex
//!   friction along a motion;
//! - [`draw`]: the pictures and animations of `zwang simulate --draw`, of
//!   planar scenes and ([`draw::space`]) of scenes in space.

#![forbid(unsafe_code)]

pub mod draw;
pub mod plot;
