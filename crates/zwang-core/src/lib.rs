//! The words the crates share, with no numerics behind them: the mode of
//! a contact (open, sliding, sticking), which the model, the contact
//! problems and the steppers all speak, and the partition of a system
//! into islands (a union-find), which the model, the solvers and the
//! checker all build. A leaf, so that the model does not depend on the
//! solvers to name a contact's mode.

#![forbid(unsafe_code)]

mod mode;
mod partition;

pub use mode::Mode;
pub use partition::UnionFind;
