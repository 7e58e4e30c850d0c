//! The contact space: frictional contact problems on impulses.
//!
//! A contact problem in local form gives the Delassus operator `W` (the
//! contact-space inverse mass `J M^-1 J^T`, sparse), the free velocity `q`
//! and a friction coefficient per contact; it asks for impulses `r` and
//! velocities `u = W r + q` with Coulomb's law at every contact (normal
//! first, then the tangent): `r` in the cone `K = {|r_T| <= mu r_N}`, and
//! with De Saxce's modified velocity `w = u + mu |u_T| e_N`,
//! `K contains r _|_ w in K*`.
//!
//! This crate is the one home of that problem (the time stepper's, at
//! velocity level, and the one other simulators write to files), of the
//! islands that split it, and of Siconos' error measure that says how
//! well an answer satisfies it. It re-exports the contact [`Mode`] and the
//! [`UnionFind`] from `zwang-core`, the leaf that the mechanisms, the
//! stepper and the acceleration-level contact problem share them from.
//! The files of other simulators (Siconos, FCLIB) and generated problems
//! are read and built by `zwang-problems`.
//!
//! [`PrimalSolver`] solves it in velocities (`M v = f + J^T r`,
//! `u = J v + b`, `W` never formed), in the plane and in space (three rows
//! per contact, the cone round: [`ContactRows::dimension`]): augmented
//! Lagrangian outer iterations, each Newton's method on the velocities
//! with a sparse Cholesky of `M + J^T D J`, finished where they stall by
//! the dual method (plane) or proximal Newton iterations in `(v, r)`
//! (space). It is the time stepper's solver, and the fast one where `W`
//! is much larger than `M` (piles, pyramids). It also takes scalar rows
//! whose impulses lie in a box ([`BoundedRows`]: equality rows, joint
//! limits, dry friction at joints), as articulated models need.
//!
//! [`ContactSolver`] solves it exactly (or in its convex relaxation) per
//! island, on `W`: proximal outer iterations, each a semismooth Newton method on
//! Coulomb's law in the cone's edge coordinates (sparse LU), falling back
//! on De Saxce's fixed point (a bound-constrained QP, sparse Cholesky) where
//! Newton's method stalls and, for small islands, on Lemke's method; a
//! large island from zero impulses starts with Gauss-Seidel sweeps. Its
//! workspace is analysed once per pattern; warm solves allocate nothing.

mod delassus;
mod dual;
pub mod error;
pub mod factored;
pub mod global;
pub mod lemke;
mod pattern;
pub mod primal;
pub mod problem;
pub mod solver;
mod sparse_lu;

pub use delassus::Delassus;
pub use error::{convex_error, error_for, local_error};
pub use factored::FactorError;
pub use global::{global_error, GlobalError, GlobalProblem, Reformulation};
pub use primal::{
    parse_island, write_island, BoundedRows, ContactRows, IslandText, IslandTextError,
    PrimalSolver, VelocityProblem, FINISH_SIZE,
};
pub use problem::{LocalProblem, ProblemError};
pub use solver::{ContactSolver, Friction, Report, Solution, SolverSettings, Status};
pub use zwang_core::{Mode, UnionFind};
