//! zwang: Gauss's principle of least constraint as a sparse QP over
//! accelerations.
//!
//! This facade re-exports the member crates:
//! - [`instant`]: one frozen instant (`M`, `Q`, constraint rows), validated;
//! - [`qp`]: the solvers of the Gauss QP (direct KKT, active set, Clarabel).

pub use zwang_instant as instant;
pub use zwang_qp as qp;

pub use zwang_instant::{Instant, InstantError};
pub use zwang_qp::{Backend, Solution, Status};
