//! Kinematic trees in joint coordinates: the dynamics kernel of robots as
//! MuJoCo writes them. A tree of rigid bodies joined to their parents by
//! hinge, slide, ball and free joints has coordinates `qpos` (quaternions
//! for ball and free joints) and velocities `qvel` (one per degree of
//! freedom, MuJoCo's conventions); its equations of motion are
//!
//! ```text
//! M(q) qdd + c(q, v) = tau
//! ```
//!
//! Gauss's principle in generalized coordinates with `M` and the forces from
//! the tree instead of from `T` and `V` by hand. This crate computes:
//!
//! - the forward kinematics (each body's pose, each dof's motion, each
//!   body's spatial velocity), the Jacobians of points fixed to bodies
//!   (nonzero only along the path to the root) and the energies;
//! - `M(q)` by the composite-rigid-body algorithm, with armature on its
//!   diagonal, kept in the tree's sparsity (MuJoCo's layout: for each dof,
//!   its entries to its ancestors);
//! - `c(q, v)` (Coriolis, centrifugal, gyroscopic and gravity forces) by
//!   recursive Newton-Euler with `qdd = 0`;
//! - the factor `M = L^T D L` in place in that sparsity with no fill, and
//!   its solve;
//! - `q (+) h v` on the joints' manifolds and the difference of two `qpos`.
//!
//! A [`Workspace`] made once holds every intermediate; the calls after it
//! allocate nothing. References: R. Featherstone, "Rigid Body Dynamics
//! Algorithms", Springer, 2008, chs. 4-6; E. Todorov, T. Erez, Y. Tassa,
//! "MuJoCo: A physics engine for model-based control", IROS 2012, and
//! MuJoCo's `mj_crb`, `mj_rne`, `mj_factorM`, `mj_solveM`, `mj_jac`.
//!
//! The cost follows the pattern: `M` and its factor hold one entry per
//! dof and ancestor, and the factor's work is a sum over the dofs of their
//! ancestors' depths, so both are linear in the dofs when the tree's depth
//! is bounded (a humanoid), and quadratic and cubic along one long
//! unbranched chain, whose `M` is dense.
//!
//! # Example
//!
//! A double pendulum of two uniform rods of length 1 and mass 1 hanging
//! along `-z`, hinged about `y`: at a relative angle `q2`,
//! `M = [[5/3 + cos q2, 1/3 + cos q2 / 2], [., 1/3]]`.
//!
//! ```
//! use zwang_tree::{Body, Joint, Tree};
//!
//! let rod = |name: &str, parent, top: f64| {
//!     let mut b = Body::new(name, parent);
//!     b.position = [0.0, 0.0, top];
//!     b.mass = 1.0;
//!     b.com = [0.0, 0.0, -0.5];
//!     b.inertia = [[1.0 / 12.0, 0.0, 0.0], [0.0, 1.0 / 12.0, 0.0], [0.0, 0.0, 0.0]];
//!     b.joints.push(Joint::hinge(name, [0.0, 1.0, 0.0], [0.0; 3]));
//!     b
//! };
//! let tree = Tree::new(
//!     vec![rod("upper", None, 0.0), rod("lower", Some(0), -1.0)],
//!     [0.0, 0.0, -9.81],
//! )?;
//! let mut ws = tree.workspace();
//! let q2: f64 = 0.7;
//! tree.positions(&mut ws, &[0.3, q2])?;
//! tree.mass_matrix(&mut ws)?;
//! let m = ws.mass();
//! assert!((tree.entry(m, 0, 0) - (5.0 / 3.0 + q2.cos())).abs() < 1e-14);
//! assert!((tree.entry(m, 1, 0) - (1.0 / 3.0 + q2.cos() / 2.0)).abs() < 1e-14);
//! assert!((tree.entry(m, 1, 1) - 1.0 / 3.0).abs() < 1e-14);
//!
//! // At rest the bias is gravity's torque: on the lower rod,
//! // m g (l / 2) sin(q1 + q2).
//! tree.velocities(&mut ws, &[0.0, 0.0])?;
//! let mut c = [0.0; 2];
//! tree.bias(&mut ws, &mut c)?;
//! assert!((c[1] - 9.81 * 0.5 * (0.3 + q2).sin()).abs() < 1e-14);
//!
//! // Released from rest: qdd = -M^-1 c, by the factor.
//! let mut qdd = c.map(|x| -x);
//! tree.factor(&mut ws)?;
//! tree.solve(&ws, &mut qdd)?;
//! let mut mqdd = [0.0; 2];
//! tree.mul_mass(&ws, &qdd, &mut mqdd)?;
//! assert!((mqdd[0] + c[0]).abs() < 1e-13 && (mqdd[1] + c[1]).abs() < 1e-13);
//! # Ok::<(), zwang_tree::TreeError>(())
//! ```

#![forbid(unsafe_code)]

mod dynamics;
mod error;
mod kinematics;
mod manifold;
mod model;
mod spatial;

pub use error::TreeError;
pub use kinematics::Workspace;
pub use manifold::log;
pub use model::{Ancestors, Body, Joint, JointKind, Tree};
