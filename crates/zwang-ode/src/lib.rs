//! The time integrator of zwang's event-driven simulator.
//!
//! For now the root finder with which the simulator locates events (the
//! zeros of its event functions) between two steps: [`find_root`].

mod root;

pub use root::find_root;
