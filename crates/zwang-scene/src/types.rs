//! The validated description of a scene.
//!
//! Every value here has passed the checks of [`parse_scene`](crate::parse_scene):
//! numbers are finite, masses and inertias positive, unit vectors
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
    /// The `[[body]]` tables, in file order; [`BodyRef::Body`] indexes this.
    pub bodies: Vec<Body>,
    /// The `[[joint]]` tables (two-sided constraints), in file order.
    pub joints: Vec<Joint>,
    /// The `[[contact]]` tables (one-sided constraints), in file order.
    pub contacts: Vec<Contact>,
    /// The `[[force]]` tables (applied forces besides gravity), in file order.
    pub forces: Vec<Force>,
    /// The `[solver]` table, defaults filled in.
    pub solver: SolverSettings,
}

/// What a body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// A point mass: position and velocity only, no angle.
    Particle,
    /// A rigid body in the plane: position and angle of its frame.
    Rigid,
}

/// One `[[body]]`: its constants and its initial state.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Unique, not empty, not `ground`.
    pub name: String,
    /// Particle or rigid body.
    pub kind: BodyKind,
    /// Mass, kg (> 0).
    pub mass: f64,
    /// Moment of inertia about the centre of mass, kg·m² (> 0 for a rigid
    /// body, 0 for a particle).
    pub inertia: f64,
    /// Initial position of the centre of mass, world frame, m.
    pub position: [f64; 2],
    /// Initial angle of the body's frame, rad, counter-clockwise (0 for a
    /// particle).
    pub angle: f64,
    /// Initial velocity of the centre of mass, world frame, m/s.
    pub velocity: [f64; 2],
    /// Initial angular velocity, rad/s, counter-clockwise (0 for a
    /// particle).
    pub angular_velocity: f64,
}

impl Body {
    /// Whether the body is a rigid body (it has an angle).
    pub fn is_rigid(&self) -> bool {
        self.kind == BodyKind::Rigid
    }
}

/// A body named in the file: the fixed world frame or one of
/// [`Scene::bodies`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyRef {
    /// `ground`: the fixed world frame.
    Ground,
    /// An index into [`Scene::bodies`].
    Body(usize),
}

/// One `[[joint]]`: a two-sided constraint between two bodies (either may
/// be ground, not both, and not a body with itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// What the joint keeps.
    pub kind: JointKind,
    /// The two bodies, in file order.
    pub bodies: [BodyRef; 2],
    /// One point in each body's frame (a world point for ground; `[0, 0]`
    /// for a particle), m.
    pub anchors: [[f64; 2]; 2],
}

/// The kinds of joint.
#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    /// Revolute: the two anchors coincide.
    Pin,
    /// The anchors keep the distance `length`, m (> 0; default: their
    /// initial distance).
    Distance {
        /// The distance kept, m.
        length: f64,
    },
    /// Prismatic: the bodies keep their relative angle and the second
    /// anchor moves along the line through the first anchor with direction
    /// `axis`. Both bodies are rigid or ground.
    Slider {
        /// Unit vector in the first body's frame.
        axis: [f64; 2],
    },
    /// A pin in a slot: the second anchor stays on the line through the
    /// first anchor with direction `axis`; the second body turns freely.
    /// The first body is rigid or ground.
    Slot {
        /// Unit vector in the first body's frame.
        axis: [f64; 2],
    },
    /// The bodies keep their relative position and angle (the anchors
    /// coincide and the relative angle is the initial one). Both bodies are
    /// rigid or ground.
    Weld,
}

/// One `[[contact]]`: a point of a body against a fixed surface (one-sided).
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Unique; default `contact<i>` (`i` 0-based, file order).
    pub name: String,
    /// An index into [`Scene::bodies`] (never ground).
    pub body: usize,
    /// The touching point in the body's frame, m (`[0, 0]` for a particle).
    pub point: [f64; 2],
    /// The fixed surface the point may not penetrate.
    pub surface: Surface,
    /// Coulomb coefficient mu (>= 0; default 0).
    pub friction: f64,
    /// Viscous coefficient c, N·s/m (>= 0; default 0): tangential force
    /// `-c * v_t` while touching.
    pub viscous: f64,
    /// Newton's coefficient of restitution e in [0, 1] at impacts
    /// (default 0).
    pub restitution: f64,
}

/// A fixed surface of the world.
#[derive(Debug, Clone, PartialEq)]
pub enum Surface {
    /// The half-plane on the side of `normal` of the line through `point`.
    Line {
        /// A point of the line, world, m.
        point: [f64; 2],
        /// Unit normal pointing to the free side.
        normal: [f64; 2],
    },
    /// The outside of a circle.
    Circle {
        /// Centre, world, m.
        center: [f64; 2],
        /// Radius, m (> 0).
        radius: f64,
    },
}

/// One `[[force]]`: an applied force besides gravity.
#[derive(Debug, Clone, PartialEq)]
pub enum Force {
    /// A linear spring between two anchors: tension `stiffness * (d -
    /// rest_length)` along the line of the anchors.
    Spring {
        /// The two bodies (not the same, not both ground).
        bodies: [BodyRef; 2],
        /// One point in each body's frame, m.
        anchors: [[f64; 2]; 2],
        /// k, N/m (>= 0).
        stiffness: f64,
        /// m (>= 0; default: the initial distance of the anchors).
        rest_length: f64,
    },
    /// A linear damper between two anchors: force `damping * d'` along the
    /// line of the anchors, opposing the rate of change of their distance.
    Damper {
        /// The two bodies (not the same, not both ground).
        bodies: [BodyRef; 2],
        /// One point in each body's frame, m.
        anchors: [[f64; 2]; 2],
        /// c, N·s/m (>= 0).
        damping: f64,
    },
    /// A constant force at the centre of mass and a constant torque.
    Constant {
        /// An index into [`Scene::bodies`] (never ground).
        body: usize,
        /// World frame, N (default `[0, 0]`).
        force: [f64; 2],
        /// N·m, counter-clockwise (default 0; only on a rigid body).
        torque: f64,
    },
}

/// The integrators of `zwang simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Dormand-Prince 8(5,3) (`"dop853"`, the default).
    #[default]
    Dop853,
    /// Dormand-Prince 5(4) (`"dopri5"`).
    Dopri5,
}

impl Method {
    /// The name used in the scene file.
    pub fn name(self) -> &'static str {
        match self {
            Method::Dop853 => "dop853",
            Method::Dopri5 => "dopri5",
        }
    }
}

/// The `[solver]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverSettings {
    /// `method` (default [`Method::Dop853`]).
    pub method: Method,
    /// Relative tolerance of the integrator (> 0; default 1e-9).
    pub tolerance: f64,
    /// Absolute tolerance (> 0; default `tolerance * 1e-3`).
    pub absolute_tolerance: f64,
    /// The most integration steps before the run fails (> 0; default
    /// 1 000 000).
    pub max_steps: usize,
}

impl Default for SolverSettings {
    /// The settings of a scene without a `[solver]` table.
    fn default() -> Self {
        SolverSettings {
            method: Method::Dop853,
            tolerance: 1e-9,
            absolute_tolerance: 1e-12,
            max_steps: 1_000_000,
        }
    }
}

impl Scene {
    /// The reference of the body called `name` (`"ground"` is
    /// [`BodyRef::Ground`]), or `None`.
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
