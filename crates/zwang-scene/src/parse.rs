//! TOML text to a validated [`Scene`].
//!
//! The text is read into a TOML table first (syntax errors stop there),
//! then each table is checked key by key in file order: unknown keys,
//! required keys, types, the ranges only a file has, then the references
//! between tables. The first fault found is the error. The values the
//! model checks too (a friction `>= 0`, a restitution in `[0, 1]`, a
//! distance joint's length `> 0`...) are checked by building the model
//! once the mechanism is read, its key turned into the file's (see
//! `file_error`).

use std::collections::HashMap;
use toml::{Table, Value};
use zwang_model::planar::DEFAULT_FRICTION;
use zwang_model::ModelError;

use crate::error::SceneError;
use crate::types::{
    Body, BodyKind, BodyRef, Contact, Equations, FixedBody, Force, Frame, Friction, Joint,
    JointKind, Method, OnUnsolved, Scene, Shape, Sinusoid, SolverSettings, Stepping, Surface,
};

type Result<T> = std::result::Result<T, SceneError>;

/// Indices by name (of the contacts; the bodies have [`BodyNames`]): a
/// reference or a duplicate is found by a lookup, not by a scan, so that
/// a scene of many bodies parses in linear time.
type Names = HashMap<String, usize>;

/// What a body name stands for: a moving body (an index of
/// [`Scene::bodies`]) or a fixed one (an index of [`Scene::fixed`]).
#[derive(Clone, Copy)]
enum Named {
    Moving(usize),
    Fixed(usize),
}

/// The bodies by name: the index of their `[[body]]` table in the file
/// (which the errors name) and what the name stands for.
type BodyNames = HashMap<String, (usize, Named)>;

/// The dimension of the planar form, the only one supported.
const DIM: usize = 2;

/// The masses accepted, kg: a microgram to a million tonnes. Beyond, the
/// mass matrix is out of proportion with everything else of the instant
/// and its solve fails (`infeasible`) instead of the file being refused.
pub(crate) const MASS: (f64, f64) = (1e-9, 1e9);
/// The moments of inertia accepted, kg m²: a microgram at a millimetre to
/// a million tonnes at a kilometre.
pub(crate) const INERTIA: (f64, f64) = (1e-15, 1e15);
/// The relative tolerances accepted: below, the step control asks for
/// less than the rounding error of doubles; above, there is no accuracy
/// left.
const TOLERANCE: (f64, f64) = (1e-14, 1e-2);
/// The absolute tolerances accepted (the default, `tolerance * 1e-3`,
/// always lies within).
const ABSOLUTE_TOLERANCE: (f64, f64) = (1e-17, 1e-2);

pub(crate) const TOP_KEYS: &[&str] = &[
    "scene", "frame", "body", "joint", "contact", "force", "solver",
];
const FRAME_KEYS: &[&str] = &["kind", "acceleration", "angular_velocity"];
const SINUSOID_KEYS: &[&str] = &["offset", "amplitude", "frequency", "phase"];
pub(crate) const SCENE_KEYS: &[&str] =
    &["name", "dimension", "gravity", "duration", "output_every"];
const BODY_KEYS: &[&str] = &[
    "name",
    "kind",
    "mass",
    "inertia",
    "position",
    "angle",
    "velocity",
    "angular_velocity",
    "inertia_tensor",
    "shape",
    "friction",
    "restitution",
];
/// The keys of [`BODY_KEYS`] a fixed body does not have.
const NOT_FIXED_KEYS: &[&str] = &[
    "mass",
    "inertia",
    "velocity",
    "angular_velocity",
    "inertia_tensor",
];
/// The keys of a body's `shape` table, `kind` first.
const SHAPE_KEYS: &[&str] = &[
    "kind",
    "radius",
    "half_extents",
    "vertices",
    "half_length",
    "normal",
];
/// How far a polygon's centroid may lie from the origin when the
/// inertia is computed from it, relative to the polygon's size.
const CENTROID_TOLERANCE: f64 = 1e-9;
const RIGID_ONLY_KEYS: &[&str] = &["inertia", "angle", "angular_velocity", "inertia_tensor"];
const JOINT_KEYS: &[&str] = &[
    "kind", "bodies", "anchors", "length", "axis", "body", "point",
];
const CONTACT_KEYS: &[&str] = &[
    "name",
    "body",
    "point",
    "surface",
    "friction",
    "viscous",
    "restitution",
];
const SURFACE_KEYS: &[&str] = &["kind", "point", "normal", "center", "radius"];
const FORCE_KEYS: &[&str] = &[
    "kind",
    "bodies",
    "anchors",
    "stiffness",
    "rest_length",
    "damping",
    "body",
    "force",
    "torque",
];
pub(crate) const SOLVER_KEYS: &[&str] = &[
    "stepping",
    "time_step",
    "friction",
    "on_unsolved",
    "contact_tolerance",
    "method",
    "tolerance",
    "absolute_tolerance",
    "max_steps",
    "equations",
    "vakonomic_multipliers",
];
/// The `[solver]` keys of the event-driven integration only.
const EVENT_KEYS: &[&str] = &["method", "tolerance", "absolute_tolerance"];
/// The `[solver]` keys of the time stepper only.
const TIME_STEP_KEYS: &[&str] = &["time_step", "friction", "on_unsolved", "contact_tolerance"];

/// Reads and validates a scene file.
///
/// Returns the first fault found as a [`SceneError`] naming its key (one
/// line, see its documentation). Never panics, whatever the text.
///
/// ```
/// let scene = zwang_scene::parse_scene(
///     r#"
///     [scene]
///     dimension = 2
///     duration = 1
///
///     [[body]]
///     name = "ball"
///     kind = "particle"
///     mass = 0.1
///     position = [0, 1]
///     "#,
/// )
/// .unwrap();
/// assert_eq!(scene.gravity, [0.0, -9.81]);
/// assert_eq!(scene.output_every, 1e-3);
///
/// let err = zwang_scene::parse_scene("[scene]\ndimension = 3\nduration = 1\n").unwrap_err();
/// assert_eq!(err.to_string(), "scene.dimension: only 2 is supported");
/// ```
pub fn parse_scene(text: &str) -> Result<Scene> {
    let root: Table = toml::from_str(text).map_err(|e| syntax_error(text, &e))?;
    parse_scene_table(&root)
}

/// Whether `text` reads as a scene file meant for `zwang simulate`: a line
/// `[scene]` (a JSON instant has none), so that a command given the wrong
/// kind of file can say which command reads it.
///
/// ```
/// assert!(zwang_scene::looks_like_scene("# a ball\n[scene]\nduration = 1\n"));
/// assert!(!zwang_scene::looks_like_scene(r#"{"dimension": 2}"#));
/// ```
pub fn looks_like_scene(text: &str) -> bool {
    text.lines().any(|line| line.trim() == "[scene]")
}

/// [`parse_scene`] on a TOML table already read (the file's tables as
/// values; the Python package builds one from a dict, and the key paths
/// of [`crate::set_key`] edit one): the same checks and errors, without
/// the syntax.
pub fn parse_scene_table(root: &Table) -> Result<Scene> {
    let root = Tab::new(root, String::new());
    root.only(TOP_KEYS)?;

    let Header {
        table: scene,
        name,
        dimension,
        duration,
        output_every,
    } = read_header(&root)?;
    if dimension != DIM {
        return Err(scene.err("dimension", "only 2 is supported"));
    }
    let gravity = scene.opt_vec("gravity")?.unwrap_or([0.0, -9.81]);
    let frame = match root.opt_table("frame")? {
        None => None,
        Some(t) => Some(read_frame(&t)?),
    };
    let needs_tensor = frame
        .as_ref()
        .is_some_and(|f| f.turns_in_plane() == Some(true));

    let mut bodies: Vec<Body> = Vec::new();
    let mut fixed: Vec<FixedBody> = Vec::new();
    let mut names = BodyNames::new();
    // The index of each moving and each fixed body's `[[body]]` table.
    let mut rows = BodyRows::default();
    let body_tables = root.array_of_tables("body")?;
    if body_tables.is_empty() {
        return Err(SceneError::new("body", "at least one body is required"));
    }
    for (i, t) in body_tables.iter().enumerate() {
        let (name, named) = match read_any_body(t, &names, needs_tensor)? {
            AnyBody::Moving(body) => {
                rows.moving.push(i);
                bodies.push(body);
                (
                    &bodies[bodies.len() - 1].name,
                    Named::Moving(bodies.len() - 1),
                )
            }
            AnyBody::Fixed(body) => {
                rows.fixed.push(i);
                fixed.push(body);
                (&fixed[fixed.len() - 1].name, Named::Fixed(fixed.len() - 1))
            }
        };
        names.insert(name.clone(), (i, named));
    }
    if bodies.is_empty() {
        return Err(SceneError::new(
            "body",
            "at least one moving body (particle or rigid) is required",
        ));
    }
    let mut scene_out = Scene {
        name,
        dimension,
        gravity,
        duration,
        output_every,
        frame,
        bodies,
        joints: Vec::new(),
        contacts: Vec::new(),
        forces: Vec::new(),
        fixed,
        solver: SolverSettings::default(),
    };

    for t in &root.array_of_tables("joint")? {
        let joint = read_joint(t, &scene_out, &names)?;
        scene_out.joints.push(joint);
    }
    let mut contact_names = Names::new();
    for (i, t) in root.array_of_tables("contact")?.iter().enumerate() {
        let contact = read_contact(t, i, &scene_out, &names, &contact_names)?;
        contact_names.insert(contact.name.clone(), i);
        scene_out.contacts.push(contact);
    }
    for t in &root.array_of_tables("force")? {
        let force = read_force(t, &scene_out, &names)?;
        scene_out.forces.push(force);
    }
    // The values the model checks too are checked by it, once.
    if let Err(e) = scene_out.model() {
        return Err(file_error(e, &rows));
    }
    let shapes = scene_out.bodies.iter().any(|b| b.shape.is_some())
        || scene_out.fixed.iter().any(|f| f.shape.is_some());
    scene_out.solver = read_solver_of(&root, scene_out.duration, shapes, DIM)?;
    if scene_out.solver.equations == Equations::Vakonomic {
        scene_out.solver.vakonomic_multipliers = read_multipliers(&root, &scene_out)?;
    }
    Ok(scene_out)
}

/// The initial multipliers of a vakonomic scene (`[solver]
/// vakonomic_multipliers`, one per knife edge, default zeros), after the
/// scene is checked to have no contacts.
fn read_multipliers(root: &Tab, scene: &Scene) -> Result<Vec<f64>> {
    if !scene.contacts.is_empty() {
        return Err(SceneError::new(
            "solver.equations",
            format!(
                "\"vakonomic\" only without contacts (the scene has {} [[contact]])",
                scene.contacts.len()
            ),
        ));
    }
    let knives = scene
        .joints
        .iter()
        .filter(|j| matches!(j.kind, JointKind::KnifeEdge { .. }))
        .count();
    let key = "solver.vakonomic_multipliers";
    let given = root
        .get("solver")
        .and_then(|v| v.as_table())
        .and_then(|t| t.get("vakonomic_multipliers"));
    let Some(value) = given else {
        return Ok(vec![0.0; knives]);
    };
    let Value::Array(items) = value else {
        return Err(SceneError::new(key, "expected an array of numbers"));
    };
    if items.len() != knives {
        return Err(SceneError::new(
            key,
            format!(
                "{} values given, one per knife_edge joint expected ({knives})",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| number(item, &format!("{key}[{i}]")))
        .collect()
}

/// The `[scene]` table and the keys of it both dimensions read alike
/// (`gravity` is read by each, its length and default the dimension's).
pub(crate) struct Header<'a> {
    pub(crate) table: Tab<'a>,
    pub(crate) name: Option<String>,
    /// 2 or 3.
    pub(crate) dimension: usize,
    pub(crate) duration: f64,
    pub(crate) output_every: f64,
}

/// The `[scene]` table of the file's root (after the root's keys are
/// checked): `name`, `dimension` (2 or 3), `duration`, `output_every`.
pub(crate) fn read_header<'a>(root: &Tab<'a>) -> Result<Header<'a>> {
    let Some(scene) = root.opt_table("scene")? else {
        return Err(SceneError::new("scene", "missing required table"));
    };
    scene.only(SCENE_KEYS)?;
    let name = scene.opt_string("name")?;
    let dimension = match scene.integer("dimension")? {
        2 => 2,
        3 => 3,
        _ => return Err(scene.err("dimension", "must be 2 or 3")),
    };
    let duration = positive(&scene, "duration", scene.number("duration")?)?;
    let output_every = match scene.opt_number("output_every")? {
        Some(x) => positive(&scene, "output_every", x)?,
        None => at_least_tiny(duration / 1000.0, duration),
    };
    Ok(Header {
        table: scene,
        name,
        dimension,
        duration,
        output_every,
    })
}

/// The `[[body]]` table (its index in the file) of each moving body
/// (by its index in [`Scene::bodies`]) and of each fixed body (by its
/// index in [`Scene::fixed`]).
#[derive(Default)]
struct BodyRows {
    moving: Vec<usize>,
    fixed: Vec<usize>,
}

/// A model's error as the scene file's: the model numbers the moving
/// bodies `body[0]`, `body[1]`... then the fixed ones after them, the file
/// numbers its `[[body]]` tables in file order, both kinds mixed; this
/// turns the one into the other. Joints, contacts and forces are numbered
/// alike in both (one element per table, in file order), and the other
/// keys (`scene.gravity`, `frame.*`) are the file's already.
fn file_error(e: ModelError, rows: &BodyRows) -> SceneError {
    let ModelError::Invalid { key, message } = e else {
        return SceneError::new("scene", e.to_string());
    };
    let file_key = key
        .strip_prefix("body[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(index, rest)| {
            let i: usize = index.parse().ok()?;
            let row = match rows.moving.get(i) {
                Some(&row) => row,
                None => *rows.fixed.get(i - rows.moving.len())?,
            };
            Some(format!("body[{row}]{rest}"))
        });
    SceneError::new(file_key.unwrap_or(key), message)
}

/// A TOML syntax error: key `scene`, position and message on one line.
///
/// A control character (a NUL byte, say) at or before the parser's error
/// is the fault named, at its own position: the parser's message may be
/// empty or say nothing of it, and point next to it.
pub(crate) fn syntax_error(text: &str, e: &toml::de::Error) -> SceneError {
    let span = e.span().map(|span| {
        let end = span.end.max(span.start).min(text.len());
        (boundary(text, span.start.min(end)), end)
    });
    let control = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        .filter(|&(i, _)| span.is_none_or(|(_, end)| i <= end));
    let (at, message) = match control {
        Some((i, '\0')) => (Some(i), "a NUL byte (U+0000) is not allowed".to_string()),
        Some((i, c)) => (
            Some(i),
            format!("control character U+{:04X} is not allowed", u32::from(c)),
        ),
        None => {
            let at = span.map(|(start, _)| start);
            let message = match e.message().trim() {
                "" => "unexpected input".to_string(),
                // toml 0.9 names the key by its span only.
                "duplicate key" => match span
                    .and_then(|(start, end)| text.get(start..end))
                    .map(str::trim)
                {
                    Some(key) if !key.is_empty() && !key.contains('\n') => {
                        format!("duplicate key `{key}`")
                    }
                    _ => "duplicate key".to_string(),
                },
                m => m.to_string(),
            };
            (at, message)
        }
    };
    let at = at
        .map(|at| {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let column = before
                .rsplit('\n')
                .next()
                .map_or(0, |last| last.chars().count())
                + 1;
            format!(" at line {line}, column {column}")
        })
        .unwrap_or_default();
    SceneError::new("scene", format!("TOML syntax error{at}: {message}"))
}

/// `at`, or the character boundary before it (a span is in bytes).
fn boundary(text: &str, at: usize) -> usize {
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// A key segment as written in an error: bare when TOML allows it bare,
/// quoted (with escapes) otherwise, so that the error stays on one line.
fn segment(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

/// A table of the file and its path for the errors (`""` for the root,
/// `body[1]`, `contact[0].surface`).
pub(crate) struct Tab<'a> {
    table: &'a Table,
    path: String,
}

impl<'a> Tab<'a> {
    pub(crate) fn new(table: &'a Table, path: String) -> Self {
        Tab { table, path }
    }

    /// This table's path (`""` for the root, `joint[0]`).
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The full key of `key` in this table.
    pub(crate) fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            segment(key)
        } else {
            format!("{}.{}", self.path, segment(key))
        }
    }

    pub(crate) fn err(&self, key: &str, message: impl Into<String>) -> SceneError {
        SceneError::new(self.key(key), message)
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.table.get(key)
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Refuses the first key (in file order) that is not in `known`,
    /// with the known key it is most likely a typo of, or the list.
    pub(crate) fn only(&self, known: &[&str]) -> Result<()> {
        match self.table.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(self.err(k, unknown_key(k, known))),
            None => Ok(()),
        }
    }

    /// Refuses the first of `keys` present here: they do not apply to
    /// `what` (`"a particle"`, `"a pin joint"`).
    pub(crate) fn not_allowed(&self, keys: &[&str], what: &str) -> Result<()> {
        self.not_of_kind(keys, &[], what)
    }

    /// Refuses the first of `keys` present here with `message(key)`.
    pub(crate) fn refuse(&self, keys: &[&str], message: impl Fn(&str) -> String) -> Result<()> {
        match keys.iter().find(|k| self.has(k)) {
            Some(k) => Err(self.err(k, message(k))),
            None => Ok(()),
        }
    }

    /// `kind`, one of `kinds` (an unknown one is refused with the list).
    pub(crate) fn kind(&self, kinds: &[&str]) -> Result<&'a str> {
        let kind = self.string("kind")?;
        if kinds.contains(&kind) {
            return Ok(kind);
        }
        let (last, rest) = kinds.split_last().expect("some kinds");
        let expected = match rest {
            [] => last.to_string(),
            rest => format!("{} or {last}", rest.join(", ")),
        };
        Err(self.err(
            "kind",
            format!("unknown kind {kind:?} (expected {expected})"),
        ))
    }

    /// [`Tab::kind`] of `kinds`, each `(kind, what, its keys)`: the first
    /// of `keys` present that is not the kind's own is refused as not
    /// allowed on `what`.
    pub(crate) fn kind_with_keys(
        &self,
        kinds: &[(&str, &str, &[&str])],
        keys: &[&str],
    ) -> Result<&'a str> {
        let names: Vec<&str> = kinds.iter().map(|&(kind, _, _)| kind).collect();
        let kind = self.kind(&names)?;
        let &(_, what, allowed) = kinds.iter().find(|&&(k, _, _)| k == kind).expect("listed");
        self.not_of_kind(keys, &[&["kind"], allowed].concat(), what)?;
        Ok(kind)
    }

    /// Refuses the first of `keys` present here that is not one of
    /// `allowed`, the keys of `what` (`"a slider joint"`, `"a box
    /// shape"`).
    pub(crate) fn not_of_kind(&self, keys: &[&str], allowed: &[&str], what: &str) -> Result<()> {
        match keys.iter().find(|k| self.has(k) && !allowed.contains(k)) {
            Some(k) => Err(self.err(k, format!("not allowed on {what}"))),
            None => Ok(()),
        }
    }

    pub(crate) fn required(&self, key: &str) -> Result<&'a Value> {
        self.get(key)
            .ok_or_else(|| self.err(key, "missing required key"))
    }

    /// The sub-table at `key`, if present.
    pub(crate) fn opt_table(&self, key: &str) -> Result<Option<Tab<'a>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Tab::new(t, self.key(key)))),
            Some(_) => Err(self.err(key, "expected a table")),
        }
    }

    /// The tables of the array of tables `key` (`[[key]]`); none when the
    /// key is absent.
    pub(crate) fn array_of_tables(&self, key: &str) -> Result<Vec<Tab<'a>>> {
        let Some(value) = self.get(key) else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(self.err(key, "expected an array of tables"));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let path = format!("{}[{i}]", self.key(key));
                match item {
                    Value::Table(t) => Ok(Tab::new(t, path)),
                    _ => Err(SceneError::new(path, "expected a table")),
                }
            })
            .collect()
    }

    // The accessors below make a value's full key only for its error: a
    // scene of many bodies reads hundreds of thousands of values.

    pub(crate) fn number(&self, key: &str) -> Result<f64> {
        let value = self.required(key)?;
        plain_number(value).map_or_else(|| number(value, &self.key(key)), Ok)
    }

    pub(crate) fn opt_number(&self, key: &str) -> Result<Option<f64>> {
        self.get(key)
            .map(|v| plain_number(v).map_or_else(|| number(v, &self.key(key)), Ok))
            .transpose()
    }

    pub(crate) fn string(&self, key: &str) -> Result<&'a str> {
        match self.required(key)? {
            Value::String(s) => Ok(s),
            value => string(value, &self.key(key)),
        }
    }

    pub(crate) fn opt_string(&self, key: &str) -> Result<Option<String>> {
        self.get(key)
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                _ => string(v, &self.key(key)).map(str::to_string),
            })
            .transpose()
    }

    pub(crate) fn integer(&self, key: &str) -> Result<i64> {
        match self.required(key)? {
            Value::Integer(i) => Ok(*i),
            _ => Err(self.err(key, "expected an integer")),
        }
    }

    /// A vector of `N` numbers (the world's dimension, or a quaternion's
    /// 4).
    pub(crate) fn vec<const N: usize>(&self, key: &str) -> Result<[f64; N]> {
        let value = self.required(key)?;
        plain_vector(value).map_or_else(|| vector(value, &self.key(key)), Ok)
    }

    pub(crate) fn opt_vec<const N: usize>(&self, key: &str) -> Result<Option<[f64; N]>> {
        self.get(key)
            .map(|v| plain_vector(v).map_or_else(|| vector(v, &self.key(key)), Ok))
            .transpose()
    }
}

/// What [`number`] takes, without a key: `None` where it would fail.
fn plain_number(value: &Value) -> Option<f64> {
    let x = match value {
        Value::Float(x) => *x,
        Value::Integer(i) => *i as f64,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// What [`vector`] takes, without a key: `None` where it would fail.
fn plain_vector<const N: usize>(value: &Value) -> Option<[f64; N]> {
    let Value::Array(items) = value else {
        return None;
    };
    if items.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (x, item) in out.iter_mut().zip(items) {
        *x = plain_number(item)?;
    }
    Some(out)
}

/// A finite number; TOML integers are taken as floats.
pub(crate) fn number(value: &Value, key: &str) -> Result<f64> {
    let x = match value {
        Value::Float(x) => *x,
        Value::Integer(i) => *i as f64,
        _ => return Err(SceneError::new(key, "expected a number")),
    };
    if x.is_finite() {
        Ok(x)
    } else {
        Err(SceneError::new(key, "must be finite"))
    }
}

pub(crate) fn string<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    match value {
        Value::String(s) => Ok(s),
        _ => Err(SceneError::new(key, "expected a string")),
    }
}

/// An array of exactly `n` values, described as `what` (`"numbers"`,
/// `"points"`) in the errors.
pub(crate) fn array<'a>(value: &'a Value, key: &str, n: usize, what: &str) -> Result<&'a [Value]> {
    match value {
        Value::Array(items) if items.len() == n => Ok(items),
        Value::Array(items) => Err(SceneError::new(
            key,
            format!("expected {n} {what}, found {}", items.len()),
        )),
        _ => Err(SceneError::new(
            key,
            format!("expected an array of {n} {what}"),
        )),
    }
}

/// A vector of `N` numbers (the world's dimension, or a quaternion's 4).
pub(crate) fn vector<const N: usize>(value: &Value, key: &str) -> Result<[f64; N]> {
    let items = array(value, key, N, "numbers")?;
    let mut out = [0.0; N];
    for (i, item) in items.iter().enumerate() {
        out[i] = number(item, &format!("{key}[{i}]"))?;
    }
    Ok(out)
}

/// A number for a message: as written where that is short, else in
/// scientific notation (`1e-300`, not 300 zeros).
pub(crate) fn show(x: f64) -> String {
    if x == 0.0 || (1e-5..1e15).contains(&x.abs()) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `v / |v|`, refusing the zero vector.
fn unit(v: [f64; DIM], key: &str) -> Result<[f64; DIM]> {
    let norm = v[0].hypot(v[1]);
    if norm == 0.0 {
        return Err(SceneError::new(key, "must not be zero"));
    }
    Ok([v[0] / norm, v[1] / norm])
}

pub(crate) fn positive(t: &Tab, key: &str, x: f64) -> Result<f64> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(t.err(key, "must be > 0"))
    }
}

/// A positive `x` within `[lo, hi]` (`unit` after the bounds in the
/// error).
pub(crate) fn within(t: &Tab, key: &str, x: f64, (lo, hi): (f64, f64), unit: &str) -> Result<f64> {
    let x = positive(t, key, x)?;
    if (lo..=hi).contains(&x) {
        Ok(x)
    } else {
        Err(t.err(key, format!("must be in [{lo:e}, {hi:e}]{unit}")))
    }
}

/// A default computed from a positive `base` (`output_every`, `duration /
/// 1000`): `base` itself where the default underflows to 0, so that it
/// stays positive whatever the base.
pub(crate) fn at_least_tiny(default: f64, base: f64) -> f64 {
    if default > 0.0 {
        default
    } else {
        base
    }
}

/// `[frame]`: the motion of the frame the scene is described in.
fn read_frame(t: &Tab) -> Result<Frame> {
    t.only(FRAME_KEYS)?;
    match t.kind(&["constant", "sinusoid"])? {
        "constant" => {
            let acceleration = match t.get("acceleration") {
                Some(v) => vector3(v, &t.key("acceleration"), Form::Acceleration)?,
                None => [0.0; 3],
            };
            let angular_velocity = match t.get("angular_velocity") {
                Some(v) => vector3(v, &t.key("angular_velocity"), Form::AngularVelocity)?,
                None => [0.0; 3],
            };
            Ok(Frame::Constant {
                acceleration,
                angular_velocity,
            })
        }
        "sinusoid" => {
            let mut parts = [Sinusoid::default(); 2];
            for (part, (key, form)) in parts.iter_mut().zip([
                ("acceleration", Form::Acceleration),
                ("angular_velocity", Form::AngularVelocity),
            ]) {
                if let Some(sinusoid) = t.opt_table(key)? {
                    *part = read_sinusoid(&sinusoid, form)?;
                }
            }
            let [acceleration, angular_velocity] = parts;
            Ok(Frame::Sinusoid {
                acceleration,
                angular_velocity,
            })
        }
        _ => unreachable!("the kind is checked"),
    }
}

/// The forms a frame's vectors may take besides 3 numbers.
#[derive(Clone, Copy)]
enum Form {
    /// Also 2 numbers (`z = 0`).
    Acceleration,
    /// Also one number (about `z`).
    AngularVelocity,
}

/// A 3-vector of a frame, or its planar shorthand.
fn vector3(value: &Value, key: &str, form: Form) -> Result<[f64; 3]> {
    let (scalar, two, what) = match form {
        Form::Acceleration => (false, true, "an array of 2 or 3 numbers"),
        Form::AngularVelocity => (true, false, "a number (about z) or an array of 3 numbers"),
    };
    match value {
        Value::Array(items) if items.len() == 3 || (two && items.len() == 2) => {
            let mut out = [0.0; 3];
            for (i, item) in items.iter().enumerate() {
                out[i] = number(item, &format!("{key}[{i}]"))?;
            }
            Ok(out)
        }
        Value::Array(items) => Err(SceneError::new(
            key,
            format!("expected {what}, found {} numbers", items.len()),
        )),
        Value::Float(_) | Value::Integer(_) if scalar => Ok([0.0, 0.0, number(value, key)?]),
        _ => Err(SceneError::new(key, format!("expected {what}"))),
    }
}

/// A sinusoid's frequency or phase: one number for every component, or
/// one per component (shaped as the offsets).
fn per_component(value: &Value, key: &str, form: Form) -> Result<[f64; 3]> {
    match value {
        Value::Float(_) | Value::Integer(_) => Ok([number(value, key)?; 3]),
        _ => match form {
            Form::Acceleration => vector3(value, key, form),
            Form::AngularVelocity => match value {
                Value::Array(_) => vector3(value, key, form),
                _ => Err(SceneError::new(
                    key,
                    "expected a number or an array of 3 numbers",
                )),
            },
        },
    }
}

/// `{ offset, amplitude, frequency, phase }`: each component
/// `offset + amplitude sin(2 pi frequency t + phase)`.
fn read_sinusoid(t: &Tab, form: Form) -> Result<Sinusoid> {
    t.only(SINUSOID_KEYS)?;
    let offset = match t.get("offset") {
        Some(v) => vector3(v, &t.key("offset"), form)?,
        None => [0.0; 3],
    };
    let amplitude = vector3(t.required("amplitude")?, &t.key("amplitude"), form)?;
    let frequency = per_component(t.required("frequency")?, &t.key("frequency"), form)?;
    let phase = match t.get("phase") {
        Some(v) => per_component(v, &t.key("phase"), form)?,
        None => [0.0; 3],
    };
    Ok(Sinusoid {
        offset,
        amplitude,
        frequency,
        phase,
    })
}

/// A `[[body]]` table: a moving body or a fixed one.
enum AnyBody {
    Moving(Body),
    Fixed(FixedBody),
}

/// A `[[body]]` table, moving or fixed (`earlier`: the bodies of the
/// tables before it).
fn read_any_body(t: &Tab, earlier: &BodyNames, needs_tensor: bool) -> Result<AnyBody> {
    t.only(BODY_KEYS)?;
    let name = read_body_name(t, |name| earlier.get(name).map(|&(j, _)| j))?;
    let kind = match t.kind(&["particle", "rigid", "fixed"])? {
        "particle" => BodyKind::Particle,
        "rigid" => BodyKind::Rigid,
        "fixed" => return read_fixed(t, name).map(AnyBody::Fixed),
        _ => unreachable!("the kind is checked"),
    };
    read_body(t, name, kind, needs_tensor).map(AnyBody::Moving)
}

/// A `[[body]]` table's `name`: not empty, not `ground`, and not that of
/// an earlier table (`earlier`: the index of the table of that name).
pub(crate) fn read_body_name<'a>(
    t: &Tab<'a>,
    earlier: impl Fn(&str) -> Option<usize>,
) -> Result<&'a str> {
    let name = t.string("name")?;
    if name.is_empty() {
        return Err(t.err("name", "must not be empty"));
    }
    if name == "ground" {
        return Err(t.err("name", "\"ground\" is reserved for the fixed world frame"));
    }
    if let Some(j) = earlier(name) {
        return Err(t.err("name", format!("duplicate name {name:?} (also body[{j}])")));
    }
    Ok(name)
}

/// A moving body (its name and kind read already).
fn read_body(t: &Tab, name: &str, kind: BodyKind, needs_tensor: bool) -> Result<Body> {
    if kind == BodyKind::Particle {
        t.not_allowed(RIGID_ONLY_KEYS, "a particle")?;
    }
    let mass = within(t, "mass", t.number("mass")?, MASS, " kg")?;
    let shape = read_shape(t, false)?;
    let inertia = match (kind, t.opt_number("inertia")?, &shape) {
        (BodyKind::Particle, _, _) => 0.0,
        (BodyKind::Rigid, Some(inertia), _) => within(t, "inertia", inertia, INERTIA, " kg m²")?,
        (BodyKind::Rigid, None, Some(shape)) => shape_inertia(t, shape, mass)?,
        (BodyKind::Rigid, None, None) => return Err(t.err("inertia", "missing required key")),
    };
    let position = t.vec("position")?;
    let angle = t.opt_number("angle")?.unwrap_or(0.0);
    let velocity = t.opt_vec("velocity")?.unwrap_or([0.0; DIM]);
    let angular_velocity = t.opt_number("angular_velocity")?.unwrap_or(0.0);
    let inertia_tensor = match t.get("inertia_tensor") {
        Some(v) => {
            let key = t.key("inertia_tensor");
            let items = array(v, &key, 3, "numbers")?;
            let mut tensor = [0.0; 3];
            for (i, item) in items.iter().enumerate() {
                tensor[i] = number(item, &format!("{key}[{i}]"))?;
            }
            Some(tensor)
        }
        None if needs_tensor && kind == BodyKind::Rigid => {
            return Err(t.err(
                "inertia_tensor",
                "missing required key (the frame turns about an in-plane axis)",
            ))
        }
        None => None,
    };
    let (friction, restitution) = read_surface_coefficients(t, DEFAULT_FRICTION)?;
    Ok(Body {
        name: name.to_string(),
        kind,
        mass,
        inertia,
        position,
        angle,
        velocity,
        angular_velocity,
        inertia_tensor,
        shape,
        friction,
        restitution,
    })
}

/// A fixed body (`kind = "fixed"`; its name read already).
fn read_fixed(t: &Tab, name: &str) -> Result<FixedBody> {
    t.refuse(NOT_FIXED_KEYS, |k| format!("a fixed body has no {k}"))?;
    let position = t.opt_vec("position")?.unwrap_or([0.0; DIM]);
    let angle = t.opt_number("angle")?.unwrap_or(0.0);
    let shape = read_shape(t, true)?;
    let (friction, restitution) = read_surface_coefficients(t, DEFAULT_FRICTION)?;
    Ok(FixedBody {
        name: name.to_string(),
        position,
        angle,
        shape,
        friction,
        restitution,
    })
}

/// `friction` (default `friction`) and `restitution` (default 0) of a
/// body's surface or of a contact; the model checks their ranges.
pub(crate) fn read_surface_coefficients(t: &Tab, friction: f64) -> Result<(f64, f64)> {
    let friction = t.opt_number("friction")?.unwrap_or(friction);
    let restitution = t.opt_number("restitution")?.unwrap_or(0.0);
    Ok((friction, restitution))
}

/// A body's `shape`, if any: `{ kind, ... }` with that kind's keys, the
/// numbers checked by [`Shape::validate`] and a half-plane's normal
/// normalized. A half-plane only on a `fixed` body.
fn read_shape(body: &Tab, fixed: bool) -> Result<Option<Shape>> {
    let Some(t) = body.opt_table("shape")? else {
        return Ok(None);
    };
    t.only(SHAPE_KEYS)?;
    let kind = t.kind_with_keys(
        &[
            ("circle", "a circle shape", &["radius"]),
            ("box", "a box shape", &["half_extents"]),
            ("polygon", "a polygon shape", &["vertices"]),
            ("capsule", "a capsule shape", &["half_length", "radius"]),
            ("halfplane", "a halfplane shape", &["normal"]),
        ],
        SHAPE_KEYS,
    )?;
    let shape = match kind {
        "circle" => Shape::Circle {
            radius: t.number("radius")?,
        },
        "box" => Shape::Box {
            half_extents: t.vec("half_extents")?,
        },
        "polygon" => Shape::Polygon {
            vertices: points(t.required("vertices")?, &t.key("vertices"))?,
        },
        "capsule" => Shape::Capsule {
            half_length: t.number("half_length")?,
            radius: t.number("radius")?,
        },
        _ => Shape::HalfPlane {
            normal: t.vec("normal")?,
        },
    };
    shape.validate().map_err(|e| t.err(e.key, e.message))?;
    match shape {
        Shape::HalfPlane { .. } if !fixed => Err(body.err(
            "shape",
            "a half-plane is for fixed bodies only (kind = \"fixed\")",
        )),
        Shape::HalfPlane { normal } => Ok(Some(Shape::HalfPlane {
            normal: unit(normal, &t.key("normal"))?,
        })),
        shape => Ok(Some(shape)),
    }
}

/// An array of points (a polygon's or a convex shape's vertices), any
/// number of them.
pub(crate) fn points<const N: usize>(value: &Value, key: &str) -> Result<Vec<[f64; N]>> {
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| vector(item, &format!("{key}[{i}]")))
            .collect(),
        _ => Err(SceneError::new(key, "expected an array of points")),
    }
}

/// The inertia of a uniform rigid body of `shape` and `mass`, for a body
/// that gives none: the shape's centroid must then be at the body's
/// origin (within [`CENTROID_TOLERANCE`] of the shape's size), and the
/// inertia within the bounds of a given one.
fn shape_inertia(t: &Tab, shape: &Shape, mass: f64) -> Result<f64> {
    let Some(properties) = shape.mass_properties(mass) else {
        return Err(t.err("inertia", "missing required key (the shape has no inertia)"));
    };
    let [x, y] = properties.centroid;
    let (shown_x, shown_y) = (show(x), show(y));
    // NaN (a polygon whose moments overflow) is not at the origin.
    let at_origin = x.hypot(y) <= CENTROID_TOLERANCE * size(shape);
    if !at_origin {
        return Err(t.err(
            "shape",
            format!(
                "its centroid [{shown_x}, {shown_y}] must be at the body's origin (its centre of mass) when \
                 the inertia is computed from it: move the shape or give inertia"
            ),
        ));
    }
    let inertia = properties.inertia;
    let (lo, hi) = INERTIA;
    if (lo..=hi).contains(&inertia) {
        Ok(inertia)
    } else {
        Err(t.err(
            "shape",
            format!(
                "the inertia of a uniform body of this shape and mass, {inertia:e} kg m², must \
                 be in [{lo:e}, {hi:e}] kg m²: give inertia"
            ),
        ))
    }
}

/// The largest width of a bounded shape (0 for a half-plane).
fn size(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => 2.0 * radius,
        Shape::Box { half_extents } => 2.0 * half_extents[0].max(half_extents[1]),
        Shape::Capsule {
            half_length,
            radius,
        } => 2.0 * (half_length + radius),
        Shape::Polygon { vertices } => (0..DIM)
            .map(|axis| {
                let along = vertices.iter().map(|v| v[axis]);
                let max = along.clone().fold(f64::NEG_INFINITY, f64::max);
                let min = along.fold(f64::INFINITY, f64::min);
                max - min
            })
            .fold(0.0, f64::max),
        Shape::HalfPlane { .. } => 0.0,
    }
}

/// The body name at `key` and what it stands for (`None`: ground).
fn named<'a>(names: &BodyNames, value: &'a Value, key: &str) -> Result<(&'a str, Option<Named>)> {
    match string(value, key)? {
        "ground" => Ok(("ground", None)),
        name => match names.get(name) {
            Some(&(_, named)) => Ok((name, Some(named))),
            None => Err(SceneError::new(key, format!("unknown body {name:?}"))),
        },
    }
}

/// A moving body at `key`: not ground, not a fixed body.
fn proper_body(names: &BodyNames, t: &Tab, key: &str) -> Result<usize> {
    match named(names, t.required(key)?, &t.key(key))? {
        (_, Some(Named::Moving(i))) => Ok(i),
        (name, Some(Named::Fixed(_))) => {
            Err(t.err(key, format!("must be a moving body ({name:?} is fixed)")))
        }
        (_, None) => Err(t.err(key, "must be a body, not ground")),
    }
}

/// The two ends of a joint, spring or damper, a fixed body's end made
/// ground.
struct Pair {
    bodies: [BodyRef; 2],
    /// In each body's frame (ground: the world; a fixed body's anchor
    /// taken to the world by its pose).
    anchors: [[f64; DIM]; 2],
    /// The angle that takes a direction in the first named body's frame
    /// to the frame of `bodies[0]`: a fixed body's angle, else 0.
    turn: f64,
}

/// `bodies` and `anchors` of a joint, spring or damper: two different
/// bodies, not both fixed (ground or `kind = "fixed"`), and anchors at
/// the centre of particles. A fixed body is ground, its anchor taken to
/// the world.
fn read_pair(scene: &Scene, names: &BodyNames, t: &Tab) -> Result<Pair> {
    let key = t.key("bodies");
    let pair = array(t.required("bodies")?, &key, 2, "body names")?;
    let ends = [
        named(names, &pair[0], &format!("{key}[0]"))?,
        named(names, &pair[1], &format!("{key}[1]"))?,
    ];
    let moves = |end: Option<Named>| matches!(end, Some(Named::Moving(_)));
    match ends {
        [(a, _), (b, _)] if a == b => {
            return Err(t.err("bodies", format!("joins {a:?} to itself")));
        }
        [(a, ra), (b, rb)] if !moves(ra) && !moves(rb) => {
            return Err(t.err(
                "bodies",
                format!("joins {a:?} to {b:?}, both fixed (one must be a moving body)"),
            ));
        }
        _ => {}
    }
    let key = t.key("anchors");
    let points = array(t.required("anchors")?, &key, 2, "points")?;
    let mut out = Pair {
        bodies: [BodyRef::Ground; 2],
        anchors: [[0.0; DIM]; 2],
        turn: 0.0,
    };
    for (i, (_, end)) in ends.into_iter().enumerate() {
        let point_key = format!("{key}[{i}]");
        let anchor = vector(&points[i], &point_key)?;
        out.anchors[i] = match end {
            None => anchor,
            Some(Named::Moving(b)) => {
                out.bodies[i] = BodyRef::Body(b);
                at_particle_centre(scene, out.bodies[i], anchor, &point_key)?;
                anchor
            }
            Some(Named::Fixed(f)) => {
                let f = &scene.fixed[f];
                if i == 0 {
                    out.turn = f.angle;
                }
                let world = plus(f.position, turned(anchor, f.angle));
                finite_vector(world, &point_key)?
            }
        };
    }
    Ok(out)
}

/// `v` turned counter-clockwise by `angle`.
fn turned(v: [f64; DIM], angle: f64) -> [f64; DIM] {
    let (s, c) = angle.sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

fn plus(a: [f64; DIM], b: [f64; DIM]) -> [f64; DIM] {
    [a[0] + b[0], a[1] + b[1]]
}

/// Refuses a computed vector that overflowed.
fn finite_vector(v: [f64; DIM], key: &str) -> Result<[f64; DIM]> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(v)
    } else {
        Err(SceneError::new(
            key,
            "must be finite in the world (the fixed body's position plus the turned anchor)",
        ))
    }
}

/// Refuses a point off the centre of a particle.
fn at_particle_centre(scene: &Scene, r: BodyRef, point: [f64; DIM], key: &str) -> Result<()> {
    match scene.body(r) {
        Some(b) if !b.is_rigid() && point != [0.0; DIM] => Err(SceneError::new(
            key,
            format!("must be [0, 0] ({:?} is a particle)", b.name),
        )),
        _ => Ok(()),
    }
}

/// The initial distance of the anchors of a pair, the default of a
/// distance joint's `length` and a spring's `rest_length`.
fn initial_distance(
    scene: &Scene,
    bodies: [BodyRef; 2],
    anchors: [[f64; DIM]; 2],
    t: &Tab,
    key: &str,
) -> Result<f64> {
    let a = scene.world_point(bodies[0], anchors[0]);
    let b = scene.world_point(bodies[1], anchors[1]);
    let d = (b[0] - a[0]).hypot(b[1] - a[1]);
    if d.is_finite() {
        Ok(d)
    } else {
        Err(t.err(
            key,
            format!("must be finite (the default, the initial distance of the anchors, is {d})"),
        ))
    }
}

fn read_joint(t: &Tab, scene: &Scene, names: &BodyNames) -> Result<Joint> {
    t.only(JOINT_KEYS)?;
    let pair: &[&str] = &["bodies", "anchors"];
    let kind_name = t.kind_with_keys(
        &[
            ("pin", "a pin joint", pair),
            (
                "distance",
                "a distance joint",
                &["bodies", "anchors", "length"],
            ),
            ("slider", "a slider joint", &["bodies", "anchors", "axis"]),
            ("slot", "a slot joint", &["bodies", "anchors", "axis"]),
            ("weld", "a weld joint", pair),
            (
                "knife_edge",
                "a knife_edge joint",
                &["body", "point", "axis"],
            ),
        ],
        &["bodies", "anchors", "length", "axis", "body", "point"],
    )?;
    if kind_name == "knife_edge" {
        return read_knife_edge(t, scene, names);
    }
    let Pair {
        bodies,
        anchors,
        turn,
    } = read_pair(scene, names, t)?;

    // Slider and weld keep the relative angle, a slot's line turns with its
    // first body: those bodies need an angle.
    let needs_angle: &[usize] = match kind_name {
        "slider" | "weld" => &[0, 1],
        "slot" => &[0],
        _ => &[],
    };
    for &i in needs_angle {
        if let Some(b) = scene.body(bodies[i]) {
            if !b.is_rigid() {
                return Err(SceneError::new(
                    format!("{}[{i}]", t.key("bodies")),
                    format!(
                        "must be rigid or ground on a {kind_name} joint ({:?} is a particle)",
                        b.name
                    ),
                ));
            }
        }
    }

    let kind = match kind_name {
        "pin" => JointKind::Pin,
        "distance" => {
            let length = match t.opt_number("length")? {
                Some(l) => l,
                None => {
                    let d = initial_distance(scene, bodies, anchors, t, "length")?;
                    if d <= 0.0 {
                        return Err(t.err(
                            "length",
                            "must be > 0 (the default, the initial distance of the anchors, is 0)",
                        ));
                    }
                    d
                }
            };
            JointKind::Distance { length }
        }
        "slider" => JointKind::Slider {
            axis: turned(unit(t.vec("axis")?, &t.key("axis"))?, turn),
        },
        "slot" => JointKind::Slot {
            axis: turned(unit(t.vec("axis")?, &t.key("axis"))?, turn),
        },
        _ => JointKind::Weld,
    };
    Ok(Joint {
        kind,
        bodies,
        anchors,
    })
}

/// A knife edge: `body` (rigid) on the plane, the blade at `point` along
/// `axis` (both in the body's frame).
fn read_knife_edge(t: &Tab, scene: &Scene, names: &BodyNames) -> Result<Joint> {
    let body = proper_body(names, t, "body")?;
    if !scene.bodies[body].is_rigid() {
        return Err(t.err(
            "body",
            format!(
                "must be rigid on a knife_edge joint ({:?} is a particle)",
                scene.bodies[body].name
            ),
        ));
    }
    let point = t.vec("point")?;
    let axis = unit(t.vec("axis")?, &t.key("axis"))?;
    Ok(Joint::knife_edge(body, point, axis))
}

fn read_contact(
    t: &Tab,
    index: usize,
    scene: &Scene,
    names: &BodyNames,
    earlier: &Names,
) -> Result<Contact> {
    t.only(CONTACT_KEYS)?;
    let name = match t.opt_string("name")? {
        Some(n) if n.is_empty() => return Err(t.err("name", "must not be empty")),
        Some(n) => n,
        None => format!("contact{index}"),
    };
    if let Some(j) = earlier.get(&name) {
        return Err(t.err(
            "name",
            format!("duplicate name {name:?} (also contact[{j}])"),
        ));
    }
    let body = proper_body(names, t, "body")?;
    let point = t.vec("point")?;
    at_particle_centre(scene, BodyRef::Body(body), point, &t.key("point"))?;
    let surface = match t.opt_table("surface")? {
        None => return Err(t.err("surface", "missing required key")),
        Some(surface) => read_surface(&surface)?,
    };
    let (friction, restitution) = read_surface_coefficients(t, 0.0)?;
    let viscous = t.opt_number("viscous")?.unwrap_or(0.0);
    Ok(Contact {
        name,
        body,
        point,
        surface,
        friction,
        viscous,
        restitution,
    })
}

fn read_surface(t: &Tab) -> Result<Surface> {
    t.only(SURFACE_KEYS)?;
    match t.kind(&["line", "circle"])? {
        "line" => {
            t.not_allowed(&["center", "radius"], "a line surface")?;
            let point = t.vec("point")?;
            let normal = unit(t.vec("normal")?, &t.key("normal"))?;
            Ok(Surface::Line { point, normal })
        }
        "circle" => {
            t.not_allowed(&["point", "normal"], "a circle surface")?;
            let center = t.vec("center")?;
            let radius = t.number("radius")?;
            Ok(Surface::Circle { center, radius })
        }
        _ => unreachable!("the kind is checked"),
    }
}

fn read_force(t: &Tab, scene: &Scene, names: &BodyNames) -> Result<Force> {
    t.only(FORCE_KEYS)?;
    match t.kind(&["spring", "damper", "constant"])? {
        "spring" => {
            t.not_allowed(&["damping", "body", "force", "torque"], "a spring")?;
            let Pair {
                bodies, anchors, ..
            } = read_pair(scene, names, t)?;
            let stiffness = t.number("stiffness")?;
            let rest_length = match t.opt_number("rest_length")? {
                Some(l) => l,
                None => initial_distance(scene, bodies, anchors, t, "rest_length")?,
            };
            Ok(Force::Spring {
                bodies,
                anchors,
                stiffness,
                rest_length,
            })
        }
        "damper" => {
            t.not_allowed(
                &["stiffness", "rest_length", "body", "force", "torque"],
                "a damper",
            )?;
            let Pair {
                bodies, anchors, ..
            } = read_pair(scene, names, t)?;
            let damping = t.number("damping")?;
            Ok(Force::Damper {
                bodies,
                anchors,
                damping,
            })
        }
        "constant" => {
            t.not_allowed(
                &["bodies", "anchors", "stiffness", "rest_length", "damping"],
                "a constant force",
            )?;
            let body = proper_body(names, t, "body")?;
            let force = t.opt_vec("force")?.unwrap_or([0.0; DIM]);
            let torque = match t.opt_number("torque")? {
                Some(_) if !scene.bodies[body].is_rigid() => {
                    return Err(t.err(
                        "torque",
                        format!("not allowed ({:?} is a particle)", scene.bodies[body].name),
                    ))
                }
                Some(tau) => tau,
                None => 0.0,
            };
            Ok(Force::Constant {
                body,
                force,
                torque,
            })
        }
        _ => unreachable!("the kind is checked"),
    }
}

/// The `[solver]` table of the file's root (see [`read_solver`]).
pub(crate) fn read_solver_of(
    root: &Tab,
    duration: f64,
    shapes: bool,
    dimension: usize,
) -> Result<SolverSettings> {
    let no_solver = Table::new();
    let solver = match root.opt_table("solver")? {
        Some(solver) => solver,
        None => Tab::new(&no_solver, "solver".to_string()),
    };
    read_solver(&solver, duration, shapes, dimension)
}

/// `[solver]` (`t` empty when the file has none): the stepping, by
/// default time stepping when a body has a shape (`shapes`), and the keys
/// of that stepping only. A spatial scene (`dimension` 3) is time-stepped
/// unless it asks for `"event"` (bodies without shapes; any joints).
fn read_solver(t: &Tab, duration: f64, shapes: bool, dimension: usize) -> Result<SolverSettings> {
    t.only(SOLVER_KEYS)?;
    let defaults = SolverSettings::default();
    let spatial = dimension == 3;
    let stepping = match choice(
        t,
        "stepping",
        &[("event", Stepping::Event), ("timestep", Stepping::TimeStep)],
    )? {
        None if shapes || spatial => Stepping::TimeStep,
        None => Stepping::Event,
        Some(Stepping::Event) if shapes => {
            return Err(t.err(
                "stepping",
                "shapes collide only under stepping = \"timestep\" (a body has a shape)",
            ))
        }
        Some(stepping) => stepping,
    };
    let max_steps = if t.has("max_steps") {
        let n = t.integer("max_steps")?;
        if n <= 0 {
            return Err(t.err("max_steps", "must be > 0"));
        }
        usize::try_from(n).unwrap_or(usize::MAX)
    } else {
        defaults.max_steps
    };
    // Where the stepping is the default, the error says why.
    let why = match (t.has("stepping"), shapes) {
        (true, _) => "",
        (false, _) if spatial => " (a spatial scene runs with \"timestep\")",
        (false, true) => " (the default in a scene with shapes is \"timestep\")",
        (false, false) => " (the default in a scene without shapes is \"event\")",
    };
    let equations = choice(
        t,
        "equations",
        &[
            ("nonholonomic", Equations::Nonholonomic),
            ("vakonomic", Equations::Vakonomic),
        ],
    )?
    .unwrap_or_default();
    if equations == Equations::Vakonomic {
        if spatial {
            return Err(t.err(
                "equations",
                "\"vakonomic\" only in planar scenes (dimension = 2)",
            ));
        }
        if stepping == Stepping::TimeStep {
            return Err(t.err(
                "equations",
                format!("\"vakonomic\" only with stepping = \"event\"{why}"),
            ));
        }
    } else if t.has("vakonomic_multipliers") {
        return Err(t.err(
            "vakonomic_multipliers",
            "only with equations = \"vakonomic\"",
        ));
    }
    let settings = SolverSettings {
        stepping,
        max_steps,
        equations,
        ..defaults
    };
    match stepping {
        Stepping::Event => {
            t.refuse(TIME_STEP_KEYS, |_| {
                format!("only with stepping = \"timestep\"{why}")
            })?;
            read_event_keys(t, settings)
        }
        Stepping::TimeStep => {
            t.refuse(EVENT_KEYS, |_| {
                format!("only with stepping = \"event\"{why}")
            })?;
            read_time_step_keys(t, duration, settings)
        }
    }
}

/// The value named by the string at `key` (`None` when absent), one of
/// `choices`; anything else is an "unknown `key`".
pub(crate) fn choice<T: Copy>(t: &Tab, key: &str, choices: &[(&str, T)]) -> Result<Option<T>> {
    let Some(name) = t.opt_string(key)? else {
        return Ok(None);
    };
    match choices.iter().find(|(n, _)| *n == name) {
        Some(&(_, value)) => Ok(Some(value)),
        None => {
            let names: Vec<&str> = choices.iter().map(|&(n, _)| n).collect();
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            Err(t.err(
                key,
                format!(
                    "unknown {key} {name:?} (expected {} or {last})",
                    rest.join(", ")
                ),
            ))
        }
    }
}

/// The keys of the event-driven integration: `method`, `tolerance`,
/// `absolute_tolerance`.
fn read_event_keys(t: &Tab, settings: SolverSettings) -> Result<SolverSettings> {
    let method = choice(
        t,
        "method",
        &[("dop853", Method::Dop853), ("dopri5", Method::Dopri5)],
    )?
    .unwrap_or(settings.method);
    let tolerance = match t.opt_number("tolerance")? {
        Some(x) => within(t, "tolerance", x, TOLERANCE, "")?,
        None => settings.tolerance,
    };
    let absolute_tolerance = match t.opt_number("absolute_tolerance")? {
        Some(x) => within(t, "absolute_tolerance", x, ABSOLUTE_TOLERANCE, "")?,
        None if t.has("tolerance") => tolerance * 1e-3,
        None => settings.absolute_tolerance,
    };
    Ok(SolverSettings {
        method,
        tolerance,
        absolute_tolerance,
        ..settings
    })
}

/// The keys of the time stepper: `time_step` (at most `duration`, and at
/// most `max_steps` steps in it), `friction`, `on_unsolved` and
/// `contact_tolerance`.
fn read_time_step_keys(t: &Tab, duration: f64, settings: SolverSettings) -> Result<SolverSettings> {
    let time_step = match t.opt_number("time_step")? {
        Some(h) => positive(t, "time_step", h)?,
        None => settings.time_step,
    };
    if time_step > duration {
        let given = if t.has("time_step") {
            ""
        } else {
            "the default "
        };
        return Err(t.err(
            "time_step",
            format!(
                "{given}{} s must be <= scene.duration ({} s)",
                show(time_step),
                show(duration)
            ),
        ));
    }
    let steps = duration / time_step;
    let max_steps = settings.max_steps;
    // As floats: max_steps may be beyond what a float holds exactly, and
    // is then far beyond any step count that fits in a run.
    if steps > max_steps as f64 {
        return Err(t.err(
            "time_step",
            format!(
                "{} s makes {} steps over {} s, more than max_steps = {max_steps}",
                show(time_step),
                show(steps.ceil()),
                show(duration)
            ),
        ));
    }
    let friction = choice(
        t,
        "friction",
        &[("exact", Friction::Exact), ("convex", Friction::Convex)],
    )?
    .unwrap_or(settings.friction);
    let on_unsolved = choice(
        t,
        "on_unsolved",
        &[("warn", OnUnsolved::Warn), ("fail", OnUnsolved::Fail)],
    )?
    .unwrap_or(settings.on_unsolved);
    let contact_tolerance = match t.opt_number("contact_tolerance")? {
        Some(x) if x > 0.0 && x <= 1e-2 => x,
        Some(_) => return Err(t.err("contact_tolerance", "must be in (0, 1e-2]")),
        None => settings.contact_tolerance,
    };
    Ok(SolverSettings {
        time_step,
        friction,
        on_unsolved,
        contact_tolerance,
        ..settings
    })
}

/// What an unknown key gets told: the known key nearest to it when it is
/// close enough to be a typo (`restituion`: did you mean `restitution`?),
/// else the keys known there.
fn unknown_key(key: &str, known: &[&str]) -> String {
    // What other engines and papers call these keys.
    const OTHER_NAMES: &[(&str, &str)] = &[
        ("mu", "friction"),
        ("e", "restitution"),
        ("dt", "time_step"),
        ("bodies", "body"),
        ("joints", "joint"),
        ("contacts", "contact"),
        ("forces", "force"),
    ];
    let alias = OTHER_NAMES
        .iter()
        .find(|&&(other, ours)| other == key && known.contains(&ours));
    if let Some((_, ours)) = alias {
        return format!("unknown key; did you mean `{ours}`?");
    }
    let nearest = known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .min_by_key(|&(d, _)| d);
    match nearest {
        // A third of the key's letters wrong at most (one in short keys).
        Some((d, k)) if d <= (key.chars().count() / 3).max(1) => {
            format!("unknown key; did you mean `{k}`?")
        }
        _ => format!("unknown key (known here: {})", known.join(", ")),
    }
}
