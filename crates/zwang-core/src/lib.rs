//! The words the crates share, with no numerics behind them: the mode of
//! a contact (open, sliding, sticking), which the model, the contact
//! problems and the steppers all speak, and the partition of a system
//! into islands (a union-find), which the model, the solvers and the
//! checker all build; and how a number is shown to a person, which every
//! text report shares; and the rotations of bodies in space (unit
//! quaternions and 3 x 3 matrices, [`rotation`]), which the spatial model
//! and the kinematic trees both turn by; and the choices a scene names
//! and the solvers obey ([`Friction`], [`OnUnsolved`]). A leaf, so that the model does
//! not depend on the solvers to name a contact's mode.

#![forbid(unsafe_code)]

mod choices;
mod mode;
mod partition;
mod readable;
pub mod rotation;

pub use choices::{Friction, OnUnsolved};
pub use mode::Mode;
pub use partition::UnionFind;
pub use readable::{is_round_off, readable, readable_at, readable_digits, readable_vec};
