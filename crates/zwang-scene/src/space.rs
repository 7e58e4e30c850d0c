//! The spatial form of the scene file (`dimension = 3`): TOML to a
//! validated [`SpatialScene`].
//!
//! The planar parser's machinery reads it (key paths, one-line errors, the
//! `[scene]` header, body names, the `[solver]` table); what differs is
//! the bodies (rigid or fixed, an orientation, 3-vectors, an inertia of 3
//! or 6 numbers, the spatial shapes), the joints (ball, hinge, slider,
//! weld, distance), the forces (constant, spring, damper) and what is
//! refused (point contacts, moving frames). The values the model checks (a mass `> 0`,
//! a nonzero quaternion, a shape's sizes, a half-space on a fixed body, a
//! positive definite inertia, a force on a moving body) are checked by
//! building the [`SpatialModel`] once, its keys being the file's already.

use std::collections::HashMap;
use toml::{Table, Value};
use zwang_geometry::spatial::Shape;
use zwang_model::planar::DEFAULT_FRICTION;
use zwang_model::spatial::{
    SpatialBody, SpatialForce, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
    SpatialSpring, SpatialSpringKind,
};
use zwang_model::ModelError;

use crate::error::SceneError;
use crate::parse::{
    array, number, parse_scene_table, points, read_body_name, read_header, read_solver_of,
    read_surface_coefficients, syntax_error, vector, Header, Tab, INERTIA, MASS, TOP_KEYS,
};
use crate::types::{Scene, SolverSettings};

type Result<T> = std::result::Result<T, SceneError>;

/// The default gravity in space, m/s²: z is up.
pub const SPATIAL_GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];

const BODY_KEYS: &[&str] = &[
    "name",
    "kind",
    "mass",
    "inertia",
    "position",
    "orientation",
    "velocity",
    "angular_velocity",
    "shape",
    "friction",
    "restitution",
];
/// The keys of [`BODY_KEYS`] a fixed body does not have.
const NOT_FIXED_KEYS: &[&str] = &["mass", "inertia", "velocity", "angular_velocity"];
/// The planar keys that have a spatial form, and what it is.
const PLANAR_ONLY_KEYS: &[(&str, &str)] = &[
    ("angle", "orientation = [w, x, y, z]"),
    ("inertia_tensor", "inertia = [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]"),
];
/// The keys of a body's `shape` table, `kind` first.
const SHAPE_KEYS: &[&str] = &[
    "kind",
    "radius",
    "half_extents",
    "half_length",
    "vertices",
    "normal",
];
const FORCE_KEYS: &[&str] = &[
    "kind",
    "body",
    "force",
    "torque",
    "bodies",
    "anchors",
    "stiffness",
    "rest_length",
    "damping",
];
/// The keys of a `[[joint]]` table, `kind` first.
const JOINT_KEYS: &[&str] = &["kind", "bodies", "anchors", "axis", "length"];

/// A scene in space (`dimension = 3`): the world, its bodies and forces,
/// how long to run it and how. Bodies are in file order, fixed ones
/// included, so `body[i]` of an error is [`SpatialScene::bodies`]`[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialScene {
    /// `scene.name`, when given.
    pub name: Option<String>,
    /// `scene.gravity`, m/s² (default `[0, 0, -9.81]`: z is up).
    pub gravity: [f64; 3],
    /// `scene.duration`, s (> 0).
    pub duration: f64,
    /// `scene.output_every`, s (> 0; default `duration / 1000`).
    pub output_every: f64,
    /// The `[[body]]` tables (rigid and fixed), in file order.
    pub bodies: Vec<SpatialBody>,
    /// The constant `[[force]]` tables (forces and torques), in file
    /// order.
    pub forces: Vec<SpatialForce>,
    /// The spring and damper `[[force]]` tables, in file order.
    pub springs: Vec<SpatialSpring>,
    /// The `[[joint]]` tables, in file order (`ground` as `None`; a fixed
    /// body by its index, the model taking its anchor to the world).
    pub joints: Vec<SpatialJoint>,
    /// The `[solver]` table, defaults filled in: by default
    /// [`Stepping::TimeStep`](crate::Stepping::TimeStep);
    /// [`Stepping::Event`](crate::Stepping::Event) when asked, for
    /// bodies without shapes (joints of any kind, springs, dampers).
    pub solver: SolverSettings,
}

impl SpatialScene {
    /// The scene's model (the parser builds it once to check the values
    /// the model checks, so this fails only for a `SpatialScene` built by
    /// hand with bad values).
    pub fn model(&self) -> std::result::Result<SpatialModel, ModelError> {
        SpatialModel::new(self.gravity, self.bodies.clone(), self.forces.clone())?
            .with_joints(self.joints.clone())?
            .with_springs(self.springs.clone())
    }

    /// The index of the body called `name` (`None`: no such body).
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}

/// A scene file of either dimension.
// One per file read: the planar variant's size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum AnyScene {
    /// `dimension = 2`.
    Planar(Scene),
    /// `dimension = 3`.
    Spatial(SpatialScene),
}

impl AnyScene {
    /// `scene.name`, when given.
    pub fn name(&self) -> Option<&str> {
        match self {
            AnyScene::Planar(s) => s.name.as_deref(),
            AnyScene::Spatial(s) => s.name.as_deref(),
        }
    }

    /// `scene.duration`, s.
    pub fn duration(&self) -> f64 {
        match self {
            AnyScene::Planar(s) => s.duration,
            AnyScene::Spatial(s) => s.duration,
        }
    }

    /// `scene.output_every`, s.
    pub fn output_every(&self) -> f64 {
        match self {
            AnyScene::Planar(s) => s.output_every,
            AnyScene::Spatial(s) => s.output_every,
        }
    }
}

/// Reads and validates a scene file of either dimension: `dimension = 3`
/// gives an [`AnyScene::Spatial`], anything else is read by
/// [`parse_scene`](crate::parse_scene) (whose errors a malformed `[scene]` table gets).
///
/// ```
/// use zwang_scene::{parse_any_scene, AnyScene};
///
/// let scene = parse_any_scene(
///     r#"
///     [scene]
///     dimension = 3
///     duration = 1
///
///     [[body]]
///     name = "ball"
///     kind = "rigid"
///     mass = 1
///     position = [0, 0, 1]
///     shape = { kind = "sphere", radius = 0.1 }
///     "#,
/// )
/// .unwrap();
/// let AnyScene::Spatial(scene) = scene else { panic!() };
/// assert_eq!(scene.gravity, [0.0, 0.0, -9.81]);
/// assert_eq!(scene.bodies[0].orientation, [1.0, 0.0, 0.0, 0.0]);
///
/// let err = parse_any_scene(
///     r#"
///     [scene]
///     dimension = 3
///     duration = 1
///
///     [[body]]
///     name = "ball"
///     kind = "rigid"
///     mass = 0
///     position = [0, 0, 1]
///     shape = { kind = "sphere", radius = 0.1 }
///     "#,
/// )
/// .unwrap_err();
/// assert_eq!(err.to_string(), "body[0].mass: must be > 0");
/// ```
pub fn parse_any_scene(text: &str) -> Result<AnyScene> {
    parse_any_scene_setting(text, &[])
}

/// [`parse_any_scene`] with numbers set at key paths first ([`crate::set_key`]):
/// `zwang simulate --duration 2` is `("scene.duration", 2.0)`. The file is
/// then read as if it said so, every check included (a `solver.time_step`
/// longer than the new duration is an error).
///
/// ```
/// use zwang_scene::{parse_any_scene_setting, AnyScene};
///
/// let text = "[scene]\ndimension = 2\nduration = 1\n\
///     [[body]]\nname = \"ball\"\nkind = \"particle\"\nmass = 1\nposition = [0, 1]\n";
/// let scene = parse_any_scene_setting(text, &[("scene.duration", 2.0)]).unwrap();
/// assert_eq!(scene.duration(), 2.0);
/// assert_eq!(scene.output_every(), 2e-3); // the default follows the duration
/// ```
pub fn parse_any_scene_setting(text: &str, keys: &[(&str, f64)]) -> Result<AnyScene> {
    let mut root: Table = toml::from_str(text).map_err(|e| syntax_error(text, &e))?;
    for &(path, value) in keys {
        crate::set_key(&mut root, path, value.into())?;
    }
    let dimension = root
        .get("scene")
        .and_then(|s| s.get("dimension"))
        .and_then(Value::as_integer);
    if dimension == Some(3) {
        spatial_from_table(&root).map(AnyScene::Spatial)
    } else {
        parse_scene_table(&root).map(AnyScene::Planar)
    }
}

/// Reads and validates a spatial scene file (`dimension = 3`; any other
/// dimension is an error).
pub fn parse_spatial_scene(text: &str) -> Result<SpatialScene> {
    let root: Table = toml::from_str(text).map_err(|e| syntax_error(text, &e))?;
    spatial_from_table(&root)
}

fn spatial_from_table(root: &Table) -> Result<SpatialScene> {
    let root = Tab::new(root, String::new());
    root.only(TOP_KEYS)?;
    let Header {
        table: scene,
        name,
        dimension,
        duration,
        output_every,
    } = read_header(&root)?;
    if dimension != 3 {
        return Err(scene.err("dimension", "must be 3 in a spatial scene"));
    }
    let gravity = scene.opt_vec("gravity")?.unwrap_or(SPATIAL_GRAVITY);
    if root.has("frame") {
        return Err(root.err("frame", "moving frames are planar for now"));
    }

    let tables = root.array_of_tables("body")?;
    if tables.is_empty() {
        return Err(SceneError::new("body", "at least one body is required"));
    }
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut bodies = Vec::with_capacity(tables.len());
    for (i, t) in tables.iter().enumerate() {
        let body = read_body(t, &names)?;
        names.insert(body.name.clone(), i);
        bodies.push(body);
    }
    if bodies.iter().all(|b| b.kind == SpatialKind::Fixed) {
        return Err(SceneError::new(
            "body",
            "at least one moving body (rigid) is required",
        ));
    }
    let joints = root
        .array_of_tables("joint")?
        .iter()
        .map(|t| read_joint(t, &names, &bodies))
        .collect::<Result<Vec<_>>>()?;
    if let Some(t) = root.array_of_tables("contact")?.first() {
        return Err(SceneError::new(
            t.path(),
            "point contacts against a surface are planar: in space, give the bodies shapes",
        ));
    }
    // Constant forces and springs go to the model apart; where each came
    // from in the file names its errors.
    let (mut forces, mut springs) = (Vec::new(), Vec::new());
    let (mut constant_at, mut spring_at) = (Vec::new(), Vec::new());
    for (i, t) in root.array_of_tables("force")?.iter().enumerate() {
        match read_force(t, &names, &bodies)? {
            Force::Constant(f) => {
                forces.push(f);
                constant_at.push(i);
            }
            Force::Spring(s) => {
                springs.push(s);
                spring_at.push(i);
            }
        }
    }
    let mut out = SpatialScene {
        name,
        gravity,
        duration,
        output_every,
        bodies,
        forces,
        springs,
        joints,
        solver: SolverSettings::default(),
    };
    // The values the model checks are checked by it, once; its keys are
    // the file's (bodies, joints in file order; forces and springs by
    // their `[[force]]` table).
    out.model().map_err(|e| match e {
        ModelError::Invalid { key, message } => {
            let key = file_key(&key, "force", &constant_at)
                .or_else(|| file_key(&key, "spring", &spring_at))
                .unwrap_or(key);
            SceneError::new(key, message)
        }
        e => SceneError::new("scene", e.to_string()),
    })?;
    let shapes = out.bodies.iter().any(|b| b.shape.is_some());
    out.solver = read_solver_of(&root, duration, shapes, 3)?;
    Ok(out)
}

/// A `[[body]]` table (`earlier`: the bodies of the tables before it).
fn read_body(t: &Tab, earlier: &HashMap<String, usize>) -> Result<SpatialBody> {
    for (key, instead) in PLANAR_ONLY_KEYS {
        if t.has(key) {
            return Err(t.err(key, format!("not in a spatial scene (use {instead})")));
        }
    }
    t.only(BODY_KEYS)?;
    let name = read_body_name(t, |name| earlier.get(name).copied())?;
    let fixed = t.kind(&["rigid", "fixed"])? == "fixed";
    let kind = if fixed {
        t.refuse(NOT_FIXED_KEYS, |k| format!("a fixed body has no {k}"))?;
        SpatialKind::Fixed
    } else {
        let mass = t.number("mass")?;
        bounded(t, "mass", mass, MASS, " kg")?;
        SpatialKind::Rigid {
            mass,
            inertia: read_inertia(t)?,
        }
    };
    let position = if fixed {
        t.opt_vec("position")?.unwrap_or([0.0; 3])
    } else {
        t.vec("position")?
    };
    let (friction, restitution) = read_surface_coefficients(t, DEFAULT_FRICTION)?;
    Ok(SpatialBody {
        position,
        orientation: read_orientation(t)?,
        velocity: t.opt_vec("velocity")?.unwrap_or([0.0; 3]),
        angular_velocity: t.opt_vec("angular_velocity")?.unwrap_or([0.0; 3]),
        shape: read_shape(t)?,
        friction,
        restitution,
        ..SpatialBody::new(name, kind)
    })
}

/// `orientation`: a unit quaternion, as the contract says. A norm within
/// round-off of 1 (`1e-9`) is accepted (the model normalises it); any
/// other nonzero norm is refused with the norm named, not normalised
/// without a word (a zero or non-finite quaternion is the model's to
/// refuse).
fn read_orientation(t: &Tab) -> Result<[f64; 4]> {
    let Some(q) = t.opt_vec::<4>("orientation")? else {
        return Ok([1.0, 0.0, 0.0, 0.0]);
    };
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 && (norm - 1.0).abs() > 1e-9 {
        // Three decimals, or every digit where those would read 1.000.
        let shown = if (norm - 1.0).abs() >= 5e-4 {
            format!("{norm:.3}")
        } else {
            format!("{norm}")
        };
        return Err(t.err(
            "orientation",
            format!("must be a unit quaternion (norm {shown})"),
        ));
    }
    Ok(q)
}

/// Refuses a positive `x` beyond the bounds a file may give (what is not
/// positive is the model's to refuse).
fn bounded(t: &Tab, key: &str, x: f64, (lo, hi): (f64, f64), unit: &str) -> Result<()> {
    if x > 0.0 && !(lo..=hi).contains(&x) {
        return Err(t.err(key, format!("must be in [{lo:e}, {hi:e}]{unit}")));
    }
    Ok(())
}

/// `inertia`: three principal moments (the body frame's axes) or the six
/// entries `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`; `None` when absent (the
/// model computes it from the shape, or refuses a body without one).
fn read_inertia(t: &Tab) -> Result<Option<[[f64; 3]; 3]>> {
    let Some(value) = t.get("inertia") else {
        return Ok(None);
    };
    let key = t.key("inertia");
    let n = match value {
        Value::Array(items) if items.len() == 3 || items.len() == 6 => items.len(),
        Value::Array(items) => {
            return Err(SceneError::new(
                key,
                format!("expected 3 or 6 numbers, found {}", items.len()),
            ))
        }
        _ => return Err(SceneError::new(key, "expected an array of 3 or 6 numbers")),
    };
    let items = array(value, &key, n, "numbers")?;
    let mut x = [0.0; 6];
    for (i, item) in items.iter().enumerate() {
        x[i] = number(item, &format!("{key}[{i}]"))?;
    }
    for &moment in &x[..3] {
        bounded(t, "inertia", moment, INERTIA, " kg m²")?;
    }
    let [ixx, iyy, izz, ixy, ixz, iyz] = x;
    Ok(Some([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]))
}

/// A body's `shape`, if any: `{ kind, ... }` with that kind's keys (the
/// model checks the numbers and where a half-space may be).
fn read_shape(body: &Tab) -> Result<Option<Shape>> {
    let Some(t) = body.opt_table("shape")? else {
        return Ok(None);
    };
    t.only(SHAPE_KEYS)?;
    let kind = t.kind_with_keys(
        &[
            ("sphere", "a sphere shape", &["radius"]),
            ("box", "a box shape", &["half_extents"]),
            ("capsule", "a capsule shape", &["half_length", "radius"]),
            ("cylinder", "a cylinder shape", &["half_length", "radius"]),
            ("convex", "a convex shape", &["vertices"]),
            ("halfspace", "a halfspace shape", &["normal"]),
        ],
        SHAPE_KEYS,
    )?;
    let shape = match kind {
        "sphere" => Shape::Sphere {
            radius: t.number("radius")?,
        },
        "box" => Shape::Box {
            half_extents: t.vec("half_extents")?,
        },
        "capsule" => Shape::Capsule {
            half_length: t.number("half_length")?,
            radius: t.number("radius")?,
        },
        "cylinder" => Shape::Cylinder {
            half_length: t.number("half_length")?,
            radius: t.number("radius")?,
        },
        "convex" => Shape::Convex {
            vertices: points(t.required("vertices")?, &t.key("vertices"))?,
        },
        _ => Shape::Halfspace {
            normal: t.vec("normal")?,
        },
    };
    Ok(Some(shape))
}

/// `model[i].rest` as the file's `force[at[i]].rest`, for a model key
/// `model[i]...` (`None`: not one of those).
fn file_key(key: &str, model: &str, at: &[usize]) -> Option<String> {
    let rest = key.strip_prefix(model)?.strip_prefix('[')?;
    let (index, rest) = rest.split_once(']')?;
    let i: usize = index.parse().ok()?;
    Some(format!("force[{}]{rest}", at.get(i)?))
}

/// What a `[[force]]` table gives the model.
enum Force {
    Constant(SpatialForce),
    Spring(SpatialSpring),
}

/// A `[[force]]` table: `kind = "constant"` (on `body`, `force` and
/// `torque`, world frame, default 0), `"spring"` (`bodies`, `anchors`,
/// `stiffness`, `rest_length`: default the anchors' initial distance) or
/// `"damper"` (`bodies`, `anchors`, `damping`), as in the plane.
fn read_force(t: &Tab, names: &HashMap<String, usize>, bodies: &[SpatialBody]) -> Result<Force> {
    t.only(FORCE_KEYS)?;
    let kind = t.kind_with_keys(
        &[
            (
                "spring",
                "a spring",
                &["bodies", "anchors", "stiffness", "rest_length"],
            ),
            ("damper", "a damper", &["bodies", "anchors", "damping"]),
            ("constant", "a constant force", &["body", "force", "torque"]),
        ],
        FORCE_KEYS,
    )?;
    if kind != "constant" {
        let (ends, anchors) = read_ends(t, names, bodies)?;
        let kind = if kind == "spring" {
            SpatialSpringKind::Spring {
                stiffness: t.number("stiffness")?,
                rest_length: t.opt_number("rest_length")?,
            }
        } else {
            SpatialSpringKind::Damper {
                damping: t.number("damping")?,
            }
        };
        return Ok(Force::Spring(SpatialSpring {
            kind,
            bodies: ends,
            anchors,
        }));
    }
    let body = match t.string("body")? {
        "ground" => return Err(t.err("body", "must be a body, not ground")),
        name => match names.get(name) {
            Some(&i) => i,
            None => return Err(t.err("body", format!("unknown body {name:?}"))),
        },
    };
    Ok(Force::Constant(SpatialForce {
        body,
        force: t.opt_vec("force")?.unwrap_or([0.0; 3]),
        torque: t.opt_vec("torque")?.unwrap_or([0.0; 3]),
    }))
}

/// A `[[joint]]` table: `kind` (ball, hinge, slider, weld, distance),
/// `bodies` (two names; `ground` or a fixed body for the world), `anchors`
/// (one point in each body's frame), `axis` (hinge, slider: in the first
/// body's frame), `length` (distance; default the initial distance).
fn read_joint(
    t: &Tab,
    names: &HashMap<String, usize>,
    bodies: &[SpatialBody],
) -> Result<SpatialJoint> {
    t.only(JOINT_KEYS)?;
    let kind = t.string("kind")?;
    if matches!(kind, "pin" | "slot" | "knife_edge") {
        return Err(t.err(
            "kind",
            format!("{kind:?} is a planar joint (expected ball, hinge, slider, weld or distance)"),
        ));
    }
    let pair: &[&str] = &["bodies", "anchors"];
    let kind = t.kind_with_keys(
        &[
            ("ball", "a ball joint", pair),
            ("hinge", "a hinge joint", &["bodies", "anchors", "axis"]),
            ("slider", "a slider joint", &["bodies", "anchors", "axis"]),
            ("weld", "a weld joint", pair),
            (
                "distance",
                "a distance joint",
                &["bodies", "anchors", "length"],
            ),
        ],
        JOINT_KEYS,
    )?;
    let (ends, anchors) = read_ends(t, names, bodies)?;
    let axis = |t: &Tab| -> Result<[f64; 3]> {
        let axis: [f64; 3] = t.vec("axis")?;
        let n = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(n.is_finite() && n > 0.0) {
            return Err(t.err("axis", "must be nonzero"));
        }
        Ok(axis)
    };
    let kind = match kind {
        "ball" => SpatialJointKind::Ball,
        "hinge" => SpatialJointKind::Hinge { axis: axis(t)? },
        "slider" => SpatialJointKind::Slider { axis: axis(t)? },
        "weld" => SpatialJointKind::Weld,
        _ => SpatialJointKind::Distance {
            length: t.opt_number("length")?,
        },
    };
    // A fixed body's end is the world through its pose (the model does
    // that with the body's index); ground's is the world itself.
    Ok(SpatialJoint {
        kind,
        bodies: ends,
        anchors,
    })
}

/// Two bodies (`None`: the world) and an anchor in each one's frame.
type Ends = ([Option<usize>; 2], [[f64; 3]; 2]);

/// A joint's or a spring's `bodies` (two names; `ground` or a fixed body
/// for the world, not both ends fixed, not one body twice) and `anchors`
/// (one point in each body's frame).
fn read_ends(t: &Tab, names: &HashMap<String, usize>, bodies: &[SpatialBody]) -> Result<Ends> {
    let key = t.key("bodies");
    let items = array(t.required("bodies")?, &key, 2, "body names")?;
    let mut ends = [None; 2];
    let mut labels = ["", ""];
    for (k, item) in items.iter().enumerate() {
        let at = format!("{key}[{k}]");
        let Some(name) = item.as_str() else {
            return Err(SceneError::new(at, "expected a body name"));
        };
        labels[k] = name;
        ends[k] = match name {
            "ground" => None,
            _ => match names.get(name) {
                Some(&i) => Some(i),
                None => return Err(SceneError::new(at, format!("unknown body {name:?}"))),
            },
        };
    }
    if labels[0] == labels[1] {
        return Err(t.err("bodies", format!("joins {:?} to itself", labels[0])));
    }
    let fixed = |e: Option<usize>| e.is_none_or(|i| bodies[i].kind == SpatialKind::Fixed);
    if fixed(ends[0]) && fixed(ends[1]) {
        return Err(t.err(
            "bodies",
            format!(
                "joins {:?} to {:?}, both fixed (one must be a moving body)",
                labels[0], labels[1]
            ),
        ));
    }
    let key = t.key("anchors");
    let items = array(t.required("anchors")?, &key, 2, "points")?;
    let anchors = [
        vector(&items[0], &format!("{key}[0]"))?,
        vector(&items[1], &format!("{key}[1]"))?,
    ];
    Ok((ends, anchors))
}
