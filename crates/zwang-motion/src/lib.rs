//! Motion: event-driven time stepping of a [`Mechanism`] on the instant
//! engine, with impacts, lift-off, stick-slip and Painleve.
//!
//! # When to use it
//!
//! To run a mechanism (a [`zwang_model::planar::PlanarModel`], or any
//! [`Mechanism`]) over time and get its trajectory and its events exactly,
//! without the regularization other engines use: contacts are rigid,
//! Coulomb friction sticks exactly, and a contact problem without a rigid
//! answer stops the run with `painleve` instead of a wrong motion.
//!
//! - [`simulate`](fn@simulate) runs from the initial state to a duration: between events
//!   an embedded Runge-Kutta pair with dense output ([`zwang_ode`], DOP853
//!   by default, tolerances in [`Settings::ode`]) integrates the instant
//!   solution; events are located on the dense output (see the
//!   [`simulate`](mod@simulate) module docs for the switching functions);
//!   impacts solve Gauss's principle in velocities with Coulomb's friction
//!   (every touching contact's impulses as one contact problem, each
//!   impact's [`Jump`] on its event); drift is projected away in Gauss's
//!   metric.
//! - [`report`]: the JSON summary and the CSV of `zwang simulate`, and a
//!   [`report::Recorder`] that keeps the trajectory.
//!
//! The pictures of runs (the PNG of `--plot`, the drawings and animations
//! of `--draw`) are the crate `zwang-draw`'s, which reads runs through an
//! [`Observer`]: this crate does not compile plotters.
//!
//! ```
//! use zwang_model::planar::{Body, BodyRef, Joint, JointKind, PlanarModel};
//! use zwang_motion::{simulate, NoObserver, Settings, Status};
//!
//! // A pendulum: a point mass on a massless rod of length 1, released
//! // horizontal; energy is kept to the integrator's tolerance.
//! let bob = Body::particle("bob", 1.0).at([1.0, 0.0]);
//! let rod = Joint {
//!     kind: JointKind::Distance { length: 1.0 },
//!     bodies: [BodyRef::Ground, BodyRef::Body(0)],
//!     anchors: [[0.0, 0.0], [0.0, 0.0]],
//! };
//! let model = PlanarModel::new([0.0, -9.81], vec![bob], vec![rod], vec![], vec![]).unwrap();
//! let outcome = simulate(&model, 1.0, &Settings::default(), &mut NoObserver);
//! assert_eq!(outcome.status, Status::Finished);
//! assert!((outcome.energy_final - outcome.energy_initial).abs() < 1e-8);
//! ```

mod dynamics;
mod impact;
pub mod islands;
mod projection;
pub mod report;
pub mod simulate;
pub mod stepping;
mod vakonomic;
mod warm;
mod world;

pub use dynamics::{ContactValues, Dynamics, DynamicsError};
pub use islands::simulate_islands;
pub use simulate::{
    simulate, ContactSample, Event, EventKind, Jump, NoObserver, Observer, Outcome, Settings,
    StageTimes, StartProjection, Stats, Status, Unsolved, ATOL_MAX, RTOL_RANGE,
};
pub use stepping::plane::compare::{compare_frictions, CompareRow, Comparison};
pub use stepping::plane::{simulate_steps, TimeStepper};
pub use stepping::space::{simulate_space, SpaceStepper};
pub use stepping::tree::{
    simulate_tree, BodyState, Overlaps, Touch, TreeOutcome, TreeStart, TreeStepper,
};
pub use stepping::{OnUnsolved, Stages, StepCore, StepError, StepReport, StepSettings, StepTotals};
pub use vakonomic::{compare_equations, simulate_vakonomic, EquationsComparison, EquationsRow};
pub use zwang_model::{
    Bodies, ContactState, Contacts, Coordinates, InstantWriter, Island, Mechanism,
};
