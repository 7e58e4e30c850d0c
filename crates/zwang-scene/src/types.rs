//! The validated description of a scene.
//!
//! Every value here has passed the checks of [`parse_scene`](crate::parse_scene):
//! numbers are finite, masses and inertias positive (within the bounds of
//! `docs/scene-format.md`), unit vectors
//! normalized, body references resolved. Units are SI; the planar world has
//! x to the right and y up; angles are in radians, counter-clockwise. A
//! body's frame has its origin at the body's centre of mass, and points on a
//! body (anchors, contact points) are given in that frame. [`BodyRef::Ground`]
//! is the fixed world frame: a point "on ground" is a world point.

/// A whole scene: the world, its bodies, what links them and how to
/// integrate it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// `scene.name`, when given.
    pub name: Option<String>,
    /// `scene.dimension`: 2 (the planar form; the only one supported now).
    pub dimension: usize,
    /// `scene.gravity`, m/s² (default `[0, -9.81]`).
    pub gravity: [f64; 2],
    /// `scene.duration`, s (> 0): the simulation runs from 0 to this time.
    pub duration: f64,
    /// `scene.output_every`, s (> 0): the sampling of the trajectory
    /// (default `duration / 1000`).
    pub output_every: f64,
    /// The `[frame]` table: the motion of the frame the scene is described
    /// in (positions, velocities, gravity and ground points are the
    /// frame's); `None` for a fixed frame. Never [`Frame::Custom`] from a
    /// file.
    pub frame: Option<Frame>,
    /// The moving bodies (`[[body]]` tables of kind `particle` or
    /// `rigid`), in file order; [`BodyRef::Body`] indexes this. Fixed
    /// bodies are in [`Scene::fixed`], so an index here may differ from
    /// the table's index in the file (which errors name).
    pub bodies: Vec<Body>,
    /// The `[[joint]]` tables (two-sided constraints), in file order.
    pub joints: Vec<Joint>,
    /// The `[[contact]]` tables (one-sided constraints), in file order.
    pub contacts: Vec<Contact>,
    /// The `[[force]]` tables (applied forces besides gravity), in file order.
    pub forces: Vec<Force>,
    /// The `[[body]]` tables of `kind = "fixed"`, in file order: they have
    /// no coordinates and are not in [`Scene::bodies`]. A joint, spring or
    /// damper that names one is to [`BodyRef::Ground`], its anchor (and a
    /// slider's or slot's axis) taken to the world by the fixed body's
    /// pose.
    pub fixed: Vec<FixedBody>,
    /// The `[solver]` table, defaults filled in.
    pub solver: SolverSettings,
}

// The description types are the model's own: a scene is a planar model
// plus how long and how finely to run it.
pub use zwang_model::planar::{
    Body, BodyKind, BodyRef, Contact, FixedBody, Force, Frame, Joint, JointKind, Shape, Sinusoid,
    Surface,
};

pub use zwang_core::{Friction, OnUnsolved};
/// The integrators of `zwang simulate` (`"dop853"`, the default, and
/// `"dopri5"`).
pub use zwang_ode::Method;

/// How a scene is integrated in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Stepping {
    /// Event-driven (`"event"`): the integrator of [`SolverSettings::method`]
    /// between located events (impacts, lift-off, stick, slip). The
    /// default for scenes without shapes.
    #[default]
    Event,
    /// Velocity-level time stepping (`"timestep"`): one contact solve per
    /// step of [`SolverSettings::time_step`], contact changes inside the
    /// steps. The default for scenes with shapes.
    TimeStep,
}

/// Which equations of motion an event-driven planar scene integrates
/// (`[solver] equations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Equations {
    /// `"nonholonomic"` (the default): Gauss's principle, d'Alembert-Lagrange
    /// with Chetaev's rule, the real motion.
    #[default]
    Nonholonomic,
    /// `"vakonomic"`: Hamilton's principle with the constraints adjoined,
    /// the knife edges' multipliers in the state (planar, event-driven,
    /// without contacts).
    Vakonomic,
}

/// The `[solver]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverSettings {
    /// `stepping` (default: [`Stepping::TimeStep`] when a body has a
    /// shape, else [`Stepping::Event`]).
    pub stepping: Stepping,
    /// `time_step`, s, for [`Stepping::TimeStep`] (> 0 and at most the
    /// duration; default 0.002).
    pub time_step: f64,
    /// `friction`, for [`Stepping::TimeStep`] (default
    /// [`Friction::Exact`]).
    pub friction: Friction,
    /// `on_unsolved`, for [`Stepping::TimeStep`] (default
    /// [`OnUnsolved::Warn`]).
    pub on_unsolved: OnUnsolved,
    /// `contact_tolerance`, for [`Stepping::TimeStep`]: the contact
    /// solver's tolerance on Siconos' error measure (in `(0, 1e-2]`;
    /// default 1e-10).
    pub contact_tolerance: f64,
    /// `method`, for [`Stepping::Event`] (default [`Method::Dop853`]).
    pub method: Method,
    /// Relative tolerance of the integrator, for [`Stepping::Event`] (in
    /// `[1e-14, 1e-2]`; default 1e-9).
    pub tolerance: f64,
    /// Absolute tolerance, for [`Stepping::Event`] (in `[1e-17, 1e-2]`;
    /// default `tolerance * 1e-3`).
    pub absolute_tolerance: f64,
    /// The most integration steps before the run fails (> 0; default
    /// 1 000 000). Under [`Stepping::TimeStep`] the parser has checked
    /// that `duration / time_step` does not exceed it.
    pub max_steps: usize,
    /// `equations`, for [`Stepping::Event`] in the plane (default
    /// [`Equations::Nonholonomic`]).
    pub equations: Equations,
    /// `vakonomic_multipliers`, with [`Equations::Vakonomic`]: the
    /// initial multipliers, one per knife edge in joint order (the parser
    /// fills in zeros when the key is absent); empty otherwise.
    pub vakonomic_multipliers: Vec<f64>,
}

impl Default for SolverSettings {
    /// The settings of a scene without a `[solver]` table.
    fn default() -> Self {
        SolverSettings {
            stepping: Stepping::Event,
            time_step: 0.002,
            friction: Friction::Exact,
            on_unsolved: OnUnsolved::Warn,
            contact_tolerance: 1e-10,
            method: Method::Dop853,
            tolerance: 1e-9,
            absolute_tolerance: 1e-12,
            max_steps: 1_000_000,
            equations: Equations::Nonholonomic,
            vakonomic_multipliers: Vec::new(),
        }
    }
}

impl Scene {
    /// The scene's mechanism, as the model that writes its instants (the
    /// parser builds it once to check the values the model checks, so
    /// this fails only for a `Scene` built by hand with bad values).
    pub fn model(&self) -> Result<zwang_model::planar::PlanarModel, zwang_model::ModelError> {
        let model = zwang_model::planar::PlanarModel::new(
            self.gravity,
            self.bodies.clone(),
            self.joints.clone(),
            self.contacts.clone(),
            self.forces.clone(),
        )?
        .with_fixed(self.fixed.clone())?;
        match &self.frame {
            Some(frame) => model.in_frame(frame.clone()),
            None => Ok(model),
        }
    }

    /// The reference of the moving body called `name` (`"ground"` is
    /// [`BodyRef::Ground`]), or `None` (a fixed body's name included).
    pub fn body_index(&self, name: &str) -> Option<BodyRef> {
        if name == "ground" {
            return Some(BodyRef::Ground);
        }
        self.bodies
            .iter()
            .position(|b| b.name == name)
            .map(BodyRef::Body)
    }

    /// The name of a body (`"ground"` for [`BodyRef::Ground`]).
    ///
    /// # Panics
    /// When the index is not one of [`Scene::bodies`].
    pub fn body_name(&self, r: BodyRef) -> &str {
        match r {
            BodyRef::Ground => "ground",
            BodyRef::Body(i) => &self.bodies[i].name,
        }
    }

    /// The body behind a reference (`None` for ground or an index out of
    /// range).
    pub fn body(&self, r: BodyRef) -> Option<&Body> {
        match r {
            BodyRef::Ground => None,
            BodyRef::Body(i) => self.bodies.get(i),
        }
    }

    /// Where the point `local` of a body's frame is in the world at the
    /// initial state (for ground, `local` itself).
    ///
    /// # Panics
    /// When the index is not one of [`Scene::bodies`].
    pub fn world_point(&self, r: BodyRef, local: [f64; 2]) -> [f64; 2] {
        match r {
            BodyRef::Ground => local,
            BodyRef::Body(i) => {
                let b = &self.bodies[i];
                let (s, c) = b.angle.sin_cos();
                [
                    b.position[0] + c * local[0] - s * local[1],
                    b.position[1] + s * local[0] + c * local[1],
                ]
            }
        }
    }
}
