//! zwang: Gauss's principle of least constraint as a sparse QP over
//! accelerations.
//!
//! This facade re-exports the member crates, one per concept, in the order
//! the data flows:
//! - [`instant`]: one frozen instant (`M`, `Q`, constraint rows), validated,
//!   and the JSON instant file (specified in `docs/instant-format.md` at the
//!   root of the repository);
//! - [`qp`]: the solvers of the Gauss QP (direct KKT, active set, Clarabel,
//!   auto);
//! - [`forms`]: the variational forms (multipliers, Udwadia-Kalaba, null
//!   space) as independent references;
//! - [`coulomb`]: Coulomb friction, the equivalence checker and the rigid
//!   rod of Yao and Gao;
//! - [`contact`]: the contact space, frictional contact problems on
//!   impulses and their velocity-level solvers (the time stepper's);
//! - [`problems`]: contact problems from other simulators' files (Siconos'
//!   text, FCLIB's HDF5) and generated ones;
//! - [`harness`]: every form on an instant or a folder of them, their
//!   differences, the verdicts, Markdown and CSV tables;
//! - [`model`]: mechanisms that write their instants in place (the planar
//!   model: particles, rigid bodies, joints, contacts, forces);
//! - [`scene`]: the scene file (TOML, `docs/scene-format.md`);
//! - [`ode`]: embedded Runge-Kutta pairs with dense output;
//! - [`geometry`]: shapes on bodies and collision detection (parry);
//! - [`motion`]: event-driven time stepping (impacts, lift-off,
//!   stick-slip, Painleve), velocity-level time stepping of contact-rich
//!   scenes (shapes that collide, exact Coulomb friction), reports; with
//!   the cargo feature `pictures` (off by default), `draw`: plots,
//!   drawings and animations of runs (the crate `zwang-draw`);
//! - [`answer`]: the answer to one instant as `zwang solve --json` gives
//!   it (the QP, the variational answer with friction, or
//!   `not_applicable`);
//! - [`run`]: a scene file run with the settings it asks for, where
//!   [`scene`] and [`motion`] meet (motion does not depend on the scene
//!   format);
//! - [`sweep`]: a scene or an instant run over a grid of parameters by
//!   key path, a row per run (`zwang sweep`, the Python package);
//! - [`higher_order`]: constraints of order 3 and above, where the
//!   principle is stationary, not a minimum: the multipliers and their
//!   derivatives join the state and the motion is integrated;
//! - [`generalized`]: systems in generalized coordinates given by their
//!   kinetic and potential energies and constraints as Rust functions, by
//!   automatic differentiation (`M`, velocity terms, rows; the Appell,
//!   Lagrange and Nielsen forms; a mechanism for the stepper);
//! - [`tree`]: kinematic trees in joint coordinates (MuJoCo's `qpos` and
//!   `qvel`): the mass matrix by the composite-rigid-body algorithm, the
//!   bias forces by recursive Newton-Euler, the factor in the tree's
//!   sparsity; [`model::articulated`] hangs geoms, joint physics,
//!   tendons and actuators on a tree.
//!
//! The command line `zwang` (crate `zwang-cli`, `cargo run --release` from
//! the root of the repository) is built from the same crates; this facade
//! does not depend on it.

pub use zwang_contact as contact;
pub use zwang_coulomb as coulomb;
#[cfg(feature = "pictures")]
pub use zwang_draw as draw;
pub use zwang_forms as forms;
pub use zwang_generalized as generalized;
pub use zwang_geometry as geometry;
pub use zwang_harness as harness;
pub use zwang_higher_order as higher_order;
pub use zwang_instant as instant;
pub use zwang_mjcf as mjcf;
pub use zwang_model as model;
pub use zwang_motion as motion;
pub use zwang_ode as ode;
pub use zwang_problems as problems;
pub use zwang_qp as qp;
pub use zwang_scene as scene;
pub use zwang_tree as tree;

pub mod answer;
pub mod articulated;
pub mod run;
pub mod sweep;

pub use zwang_instant::{Instant, InstantError};
pub use zwang_qp::{Backend, Solution, Status};

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
