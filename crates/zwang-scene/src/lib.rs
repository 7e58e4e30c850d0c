//! The scene file of `zwang simulate`, read into a validated, typed
//! description.
//!
//! A scene is a TOML file: the world (`[scene]`: dimension, gravity,
//! duration, sampling), optionally the moving frame it is described in
//! (`[frame]`: a constant or sinusoidal acceleration of the origin and
//! angular velocity), its bodies (`[[body]]`: particles and rigid bodies
//! with their initial state, and fixed bodies that never move, each with
//! an optional shape that collides with the others' and the friction and
//! restitution of its surface), two-sided joints (`[[joint]]`: pin,
//! distance, slider, slot, weld, and the nonholonomic knife edge),
//! one-sided contacts of a body point against a fixed line or circle
//! (`[[contact]]`, with Coulomb and viscous friction and restitution),
//! applied forces (`[[force]]`: springs, dampers, constant forces and
//! torques) and the solver settings (`[solver]`: event-driven integration
//! or, the default when shapes collide, time stepping). The format is
//! documented for users in `docs/scene-format.md`.
//!
//! Use this crate to turn such a file into a [`Scene`] with
//! [`parse_scene`]: every number is finite and in range, every body name
//! resolved to a [`BodyRef`], every default filled in and every direction
//! normalized, so a model that builds equations from it needs no further
//! checks. A malformed file is refused with a [`SceneError`] that names the
//! key at fault on one line (`body[1].mass: must be > 0`), which is what
//! `zwang simulate` prints before it exits with code 2. The description
//! types are those of `zwang_model::planar` (shapes those of
//! `zwang_geometry`); the crate runs nothing.
//!
//! ```
//! use zwang_scene::{parse_scene, BodyRef, JointKind};
//!
//! let scene = parse_scene(
//!     r#"
//!     [scene]
//!     name = "pendulum"
//!     dimension = 2
//!     duration = 2.0
//!
//!     [[body]]
//!     name = "rod"
//!     kind = "rigid"
//!     mass = 1.0
//!     inertia = 0.0833
//!     position = [0.5, 1.0]
//!
//!     [[joint]]
//!     kind = "pin"
//!     bodies = ["ground", "rod"]
//!     anchors = [[0.0, 1.0], [-0.5, 0.0]]
//!     "#,
//! )
//! .unwrap();
//! assert_eq!(scene.joints[0].kind, JointKind::Pin);
//! assert_eq!(scene.joints[0].bodies, [BodyRef::Ground, BodyRef::Body(0)]);
//! assert_eq!(scene.world_point(BodyRef::Body(0), [-0.5, 0.0]), [0.0, 1.0]);
//! ```
//!
//! [`parse_scene`] reads the planar form (`dimension = 2`).
//! [`parse_any_scene`] reads either: a spatial scene (`dimension = 3`) is
//! a [`SpatialScene`], rigid and fixed bodies in space with shapes
//! (the types of `zwang_model::spatial` and `zwang_geometry::spatial`),
//! constant forces and torques, and the time stepper's `[solver]` keys;
//! joints, point contacts, moving frames and event-driven stepping are
//! planar for now and refused in it with one line naming the key.
//! MuJoCo's MJCF files are the `zwang-mjcf` crate's (kinematic trees in
//! joint coordinates).

mod error;
mod keys;
mod parse;
mod space;
mod types;

pub use error::SceneError;
pub use keys::{set_key, with_key};
pub use parse::{looks_like_scene, parse_scene, parse_scene_table};
pub use space::{
    parse_any_scene, parse_any_scene_setting, parse_spatial_scene, AnyScene, SpatialScene,
    SPATIAL_GRAVITY,
};
pub use types::{
    Body, BodyKind, BodyRef, Contact, Equations, FixedBody, Force, Frame, Friction, Joint,
    JointKind, Method, OnUnsolved, Scene, Shape, Sinusoid, SolverSettings, Stepping, Surface,
};
/// The shapes of spatial scenes (`sphere`, `box`, `capsule`, `cylinder`,
/// `convex`, `halfspace`).
pub use zwang_geometry::spatial::Shape as SpatialShape;
/// The description types of spatial scenes are the model's own.
pub use zwang_model::spatial::{
    SpatialBody, SpatialForce, SpatialJoint, SpatialJointKind, SpatialKind,
};
