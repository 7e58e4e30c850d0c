//! Mechanisms that write their Gauss instants in place.
//!
//! # When to use it
//!
//! To describe a mechanism by its parts (bodies, joints, contacts, forces)
//! instead of by matrices, and to get, at any state `(t, q, v)`, the
//! [`Instant`](zwang_instant::Instant) whose solution is its acceleration.
//! A stepper (the `zwang-motion` crate) builds the instant once per set of
//! contact modes and rewrites its values in place at every evaluation
//! ([`InstantWriter::update_instant`]): no allocation, no rebuild.
//!
//! - [`Mechanism`]: what a stepper needs of any mechanism, in any
//!   coordinates (nothing planar in it), in four roles: [`Coordinates`]
//!   (the state), [`InstantWriter`] (the instant and the joints),
//!   [`Contacts`] and [`Bodies`] (for reports).
//! - [`articulated`]: a kinematic tree in joint coordinates with geoms,
//!   joint physics, tendons, actuators and equalities (what an MJCF file
//!   holds), as data for the tree stepper.
//! - [`planar`]: particles and rigid bodies in the plane, in maximal
//!   coordinates (`q = (x, y, theta)` per rigid body, `(x, y)` per
//!   particle, block-diagonal `M`); pin, distance, slider, slot and weld
//!   joints as acceleration rows with their velocity-product terms, and
//!   the knife edge (a nonholonomic blade, velocity level only); contacts
//!   of a body point against a fixed line or circle, with Coulomb and
//!   viscous friction and restitution; springs, dampers, constant forces
//!   and gravity; optionally all of it relative to a moving frame
//!   ([`planar::frame`]: prescribed `a_O(t)`, `omega(t)`, the inertial
//!   forces exact in `Q`).
//!
//! ```
//! use zwang_model::planar::{Body, BodyRef, Joint, JointKind, PlanarModel};
//! use zwang_model::{Coordinates, InstantWriter};
//!
//! // A point mass on a massless rod of length 1 from a pin at the origin.
//! let bob = Body::particle("bob", 1.0).at([1.0, 0.0]);
//! let rod = Joint {
//!     kind: JointKind::Distance { length: 1.0 },
//!     bodies: [BodyRef::Ground, BodyRef::Body(0)],
//!     anchors: [[0.0, 0.0], [0.0, 0.0]],
//! };
//! let model = PlanarModel::new([0.0, -9.81], vec![bob], vec![rod], vec![], vec![]).unwrap();
//! let (mut q, mut v) = (vec![0.0; 2], vec![0.0; 2]);
//! model.initial_state(&mut q, &mut v);
//! let (instant, _layout) = model.build_instant(0.0, &q, &v, &[]).unwrap();
//! assert_eq!(instant.dim(), 2);
//! assert_eq!(instant.equalities().len(), 1);
//! ```

pub mod articulated;
mod mechanism;
pub mod planar;
pub mod spatial;

pub use mechanism::{
    no_contacts, Bodies, BodyState, ContactRows, ContactState, Contacts, Coordinates,
    InstantWriter, Island, Layout, Mechanism,
};

/// What can go wrong describing or evaluating a mechanism.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A description the model cannot take; `key` names it like a scene
    /// file does (`body[1].mass`).
    #[error("{key}: {message}")]
    Invalid {
        /// Where, as `body[1].mass`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The geometry at this state has no defined row (the anchors of a
    /// distance joint coincide, a contact point sits at a circle's centre).
    #[error("{key}: {message}")]
    Degenerate {
        /// Which part.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The state or the values written are not finite, or the modes do not
    /// fit the instant.
    #[error(transparent)]
    Instant(#[from] zwang_instant::InstantError),
}
