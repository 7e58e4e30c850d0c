//! TOML text to a validated [`Scene`].
//!
//! The text is read into a TOML table first (syntax errors stop there),
//! then each table is checked key by key in file order: unknown keys,
//! required keys, types, ranges, then the references between tables. The
//! first fault found is the error.

use std::collections::HashMap;
use toml::{Table, Value};
use zwang_model::planar::inertia_tensor_problem;

use crate::error::SceneError;
use crate::types::{
    Body, BodyKind, BodyRef, Contact, Force, Frame, Joint, JointKind, Method, Scene, Sinusoid,
    SolverSettings, Surface,
};

type Result<T> = std::result::Result<T, SceneError>;

/// Indices by name (of the bodies, of the contacts): a reference or a
/// duplicate is found by a lookup, not by a scan, so that a scene of many
/// bodies parses in linear time.
type Names = HashMap<String, usize>;

/// The dimension of the planar form, the only one supported.
const DIM: usize = 2;

/// The masses accepted, kg: a microgram to a million tonnes. Beyond, the
/// mass matrix is out of proportion with everything else of the instant
/// and its solve fails (`infeasible`) instead of the file being refused.
const MASS: (f64, f64) = (1e-9, 1e9);
/// The moments of inertia accepted, kg m²: a microgram at a millimetre to
/// a million tonnes at a kilometre.
const INERTIA: (f64, f64) = (1e-15, 1e15);
/// The relative tolerances accepted: below, the step control asks for
/// less than the rounding error of doubles; above, there is no accuracy
/// left.
const TOLERANCE: (f64, f64) = (1e-14, 1e-2);
/// The absolute tolerances accepted (the default, `tolerance * 1e-3`,
/// always lies within).
const ABSOLUTE_TOLERANCE: (f64, f64) = (1e-17, 1e-2);

const TOP_KEYS: &[&str] = &[
    "scene", "frame", "body", "joint", "contact", "force", "solver",
];
const FRAME_KEYS: &[&str] = &["kind", "acceleration", "angular_velocity"];
const SINUSOID_KEYS: &[&str] = &["offset", "amplitude", "frequency", "phase"];
const SCENE_KEYS: &[&str] = &["name", "dimension", "gravity", "duration", "output_every"];
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
];
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
const SOLVER_KEYS: &[&str] = &["method", "tolerance", "absolute_tolerance", "max_steps"];

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
    let root = Tab::new(&root, String::new());
    root.only(TOP_KEYS)?;

    let scene = match root.get("scene") {
        None => return Err(SceneError::new("scene", "missing required table")),
        Some(v) => root.table_of(v, "scene")?,
    };
    scene.only(SCENE_KEYS)?;
    let name = scene.opt_string("name")?;
    let dimension = read_dimension(&scene)?;
    let gravity = scene.opt_vec("gravity")?.unwrap_or([0.0, -9.81]);
    let duration = positive(&scene, "duration", scene.number("duration")?)?;
    let output_every = match scene.opt_number("output_every")? {
        Some(x) => positive(&scene, "output_every", x)?,
        None => at_least_tiny(duration / 1000.0, duration),
    };
    let frame = match root.get("frame") {
        None => None,
        Some(v) => Some(read_frame(&root.table_of(v, "frame")?)?),
    };
    let needs_tensor = frame
        .as_ref()
        .is_some_and(|f| f.turns_in_plane() == Some(true));

    let mut bodies: Vec<Body> = Vec::new();
    let mut names = Names::new();
    let body_tables = root.array_of_tables("body")?;
    if body_tables.is_empty() {
        return Err(SceneError::new("body", "at least one body is required"));
    }
    for t in &body_tables {
        let body = read_body(t, &names, needs_tensor)?;
        names.insert(body.name.clone(), bodies.len());
        bodies.push(body);
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
        fixed: Vec::new(),
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
    if let Some(v) = root.get("solver") {
        scene_out.solver = read_solver(&root.table_of(v, "solver")?)?;
    }
    Ok(scene_out)
}

/// A TOML syntax error: key `scene`, position and message on one line.
///
/// A control character (a NUL byte, say) at or before the parser's error
/// is the fault named, at its own position: the parser's message may be
/// empty or say nothing of it, and point next to it.
fn syntax_error(text: &str, e: &toml::de::Error) -> SceneError {
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
struct Tab<'a> {
    table: &'a Table,
    path: String,
}

impl<'a> Tab<'a> {
    fn new(table: &'a Table, path: String) -> Self {
        Tab { table, path }
    }

    /// The full key of `key` in this table.
    fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            segment(key)
        } else {
            format!("{}.{}", self.path, segment(key))
        }
    }

    fn err(&self, key: &str, message: impl Into<String>) -> SceneError {
        SceneError::new(self.key(key), message)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.table.get(key)
    }

    fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Refuses the first key (in file order) that is not in `known`.
    fn only(&self, known: &[&str]) -> Result<()> {
        match self.table.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(self.err(k, "unknown key")),
            None => Ok(()),
        }
    }

    /// Refuses the first of `keys` present here: they do not apply to
    /// `what` (`"a particle"`, `"a pin joint"`).
    fn not_allowed(&self, keys: &[&str], what: &str) -> Result<()> {
        match keys.iter().find(|k| self.has(k)) {
            Some(k) => Err(self.err(k, format!("not allowed on {what}"))),
            None => Ok(()),
        }
    }

    fn required(&self, key: &str) -> Result<&'a Value> {
        self.get(key)
            .ok_or_else(|| self.err(key, "missing required key"))
    }

    /// The value at `key`, a sub-table.
    fn table_of(&self, value: &'a Value, key: &str) -> Result<Tab<'a>> {
        match value {
            Value::Table(t) => Ok(Tab::new(t, self.key(key))),
            _ => Err(self.err(key, "expected a table")),
        }
    }

    /// The tables of the array of tables `key` (`[[key]]`); none when the
    /// key is absent.
    fn array_of_tables(&self, key: &str) -> Result<Vec<Tab<'a>>> {
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

    fn number(&self, key: &str) -> Result<f64> {
        number(self.required(key)?, &self.key(key))
    }

    fn opt_number(&self, key: &str) -> Result<Option<f64>> {
        self.get(key).map(|v| number(v, &self.key(key))).transpose()
    }

    fn string(&self, key: &str) -> Result<&'a str> {
        string(self.required(key)?, &self.key(key))
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>> {
        self.get(key)
            .map(|v| string(v, &self.key(key)).map(str::to_string))
            .transpose()
    }

    fn integer(&self, key: &str) -> Result<i64> {
        match self.required(key)? {
            Value::Integer(i) => Ok(*i),
            _ => Err(self.err(key, "expected an integer")),
        }
    }

    fn vec(&self, key: &str) -> Result<[f64; DIM]> {
        vector(self.required(key)?, &self.key(key))
    }

    fn opt_vec(&self, key: &str) -> Result<Option<[f64; DIM]>> {
        self.get(key).map(|v| vector(v, &self.key(key))).transpose()
    }
}

/// A finite number; TOML integers are taken as floats.
fn number(value: &Value, key: &str) -> Result<f64> {
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

fn string<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    match value {
        Value::String(s) => Ok(s),
        _ => Err(SceneError::new(key, "expected a string")),
    }
}

/// An array of exactly `n` values, described as `what` (`"numbers"`,
/// `"points"`) in the errors.
fn array<'a>(value: &'a Value, key: &str, n: usize, what: &str) -> Result<&'a [Value]> {
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

/// A vector of the world's dimension.
fn vector(value: &Value, key: &str) -> Result<[f64; DIM]> {
    let items = array(value, key, DIM, "numbers")?;
    let mut out = [0.0; DIM];
    for (i, item) in items.iter().enumerate() {
        out[i] = number(item, &format!("{key}[{i}]"))?;
    }
    Ok(out)
}

/// `v / |v|`, refusing the zero vector.
fn unit(v: [f64; DIM], key: &str) -> Result<[f64; DIM]> {
    let norm = v[0].hypot(v[1]);
    if norm == 0.0 {
        return Err(SceneError::new(key, "must not be zero"));
    }
    Ok([v[0] / norm, v[1] / norm])
}

fn positive(t: &Tab, key: &str, x: f64) -> Result<f64> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(t.err(key, "must be > 0"))
    }
}

/// A positive `x` within `[lo, hi]` (`unit` after the bounds in the
/// error).
fn within(t: &Tab, key: &str, x: f64, (lo, hi): (f64, f64), unit: &str) -> Result<f64> {
    let x = positive(t, key, x)?;
    if (lo..=hi).contains(&x) {
        Ok(x)
    } else {
        Err(t.err(key, format!("must be in [{lo:e}, {hi:e}]{unit}")))
    }
}

fn non_negative(t: &Tab, key: &str, x: f64) -> Result<f64> {
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(t.err(key, "must be >= 0"))
    }
}

/// A default computed from a positive `base` (`output_every`, `duration /
/// 1000`): `base` itself where the default underflows to 0, so that it
/// stays positive whatever the base.
fn at_least_tiny(default: f64, base: f64) -> f64 {
    if default > 0.0 {
        default
    } else {
        base
    }
}

fn read_dimension(scene: &Tab) -> Result<usize> {
    match scene.integer("dimension")? {
        2 => Ok(DIM),
        _ => Err(scene.err("dimension", "only 2 is supported")),
    }
}

/// `[frame]`: the motion of the frame the scene is described in.
fn read_frame(t: &Tab) -> Result<Frame> {
    t.only(FRAME_KEYS)?;
    match t.string("kind")? {
        "constant" => {
            let acceleration = match t.get("acceleration") {
                Some(v) => vector3(v, &t.key("acceleration"), Shape::Acceleration)?,
                None => [0.0; 3],
            };
            let angular_velocity = match t.get("angular_velocity") {
                Some(v) => vector3(v, &t.key("angular_velocity"), Shape::AngularVelocity)?,
                None => [0.0; 3],
            };
            Ok(Frame::Constant {
                acceleration,
                angular_velocity,
            })
        }
        "sinusoid" => {
            let mut parts = [Sinusoid::default(); 2];
            for (part, (key, shape)) in parts.iter_mut().zip([
                ("acceleration", Shape::Acceleration),
                ("angular_velocity", Shape::AngularVelocity),
            ]) {
                if let Some(v) = t.get(key) {
                    *part = read_sinusoid(&t.table_of(v, key)?, shape)?;
                }
            }
            let [acceleration, angular_velocity] = parts;
            Ok(Frame::Sinusoid {
                acceleration,
                angular_velocity,
            })
        }
        other => Err(t.err(
            "kind",
            format!("unknown kind {other:?} (expected constant or sinusoid)"),
        )),
    }
}

/// The shapes a frame's vectors may take besides 3 numbers.
#[derive(Clone, Copy)]
enum Shape {
    /// Also 2 numbers (`z = 0`).
    Acceleration,
    /// Also one number (about `z`).
    AngularVelocity,
}

/// A 3-vector of a frame, or its planar shorthand.
fn vector3(value: &Value, key: &str, shape: Shape) -> Result<[f64; 3]> {
    let (scalar, two, what) = match shape {
        Shape::Acceleration => (false, true, "an array of 2 or 3 numbers"),
        Shape::AngularVelocity => (true, false, "a number (about z) or an array of 3 numbers"),
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
fn per_component(value: &Value, key: &str, shape: Shape) -> Result<[f64; 3]> {
    match value {
        Value::Float(_) | Value::Integer(_) => Ok([number(value, key)?; 3]),
        _ => match shape {
            Shape::Acceleration => vector3(value, key, shape),
            Shape::AngularVelocity => match value {
                Value::Array(_) => vector3(value, key, shape),
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
fn read_sinusoid(t: &Tab, shape: Shape) -> Result<Sinusoid> {
    t.only(SINUSOID_KEYS)?;
    let offset = match t.get("offset") {
        Some(v) => vector3(v, &t.key("offset"), shape)?,
        None => [0.0; 3],
    };
    let amplitude = vector3(t.required("amplitude")?, &t.key("amplitude"), shape)?;
    let frequency = per_component(t.required("frequency")?, &t.key("frequency"), shape)?;
    if frequency.iter().any(|&f| f < 0.0) {
        return Err(t.err("frequency", "must be >= 0"));
    }
    let phase = match t.get("phase") {
        Some(v) => per_component(v, &t.key("phase"), shape)?,
        None => [0.0; 3],
    };
    Ok(Sinusoid {
        offset,
        amplitude,
        frequency,
        phase,
    })
}

fn read_body(t: &Tab, earlier: &Names, needs_tensor: bool) -> Result<Body> {
    t.only(BODY_KEYS)?;
    let name = t.string("name")?;
    if name.is_empty() {
        return Err(t.err("name", "must not be empty"));
    }
    if name == "ground" {
        return Err(t.err("name", "\"ground\" is reserved for the fixed world frame"));
    }
    if let Some(j) = earlier.get(name) {
        return Err(t.err("name", format!("duplicate name {name:?} (also body[{j}])")));
    }
    let kind = match t.string("kind")? {
        "particle" => BodyKind::Particle,
        "rigid" => BodyKind::Rigid,
        other => {
            return Err(t.err(
                "kind",
                format!("unknown kind {other:?} (expected particle or rigid)"),
            ))
        }
    };
    if kind == BodyKind::Particle {
        t.not_allowed(RIGID_ONLY_KEYS, "a particle")?;
    }
    let mass = within(t, "mass", t.number("mass")?, MASS, " kg")?;
    let inertia = match kind {
        BodyKind::Rigid => within(t, "inertia", t.number("inertia")?, INERTIA, " kg m²")?,
        BodyKind::Particle => 0.0,
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
            if let Some(message) = inertia_tensor_problem(inertia, tensor) {
                return Err(t.err("inertia_tensor", message));
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
        ..Body::particle(name, mass)
    })
}

/// A body name at `key`: `ground` or one of the bodies.
fn body_ref(names: &Names, value: &Value, key: &str) -> Result<BodyRef> {
    match string(value, key)? {
        "ground" => Ok(BodyRef::Ground),
        name => names
            .get(name)
            .map(|&i| BodyRef::Body(i))
            .ok_or_else(|| SceneError::new(key, format!("unknown body {name:?}"))),
    }
}

/// A body at `key` that is not ground.
fn proper_body(names: &Names, t: &Tab, key: &str) -> Result<usize> {
    match body_ref(names, t.required(key)?, &t.key(key))? {
        BodyRef::Body(i) => Ok(i),
        BodyRef::Ground => Err(t.err(key, "must be a body, not ground")),
    }
}

/// `bodies` and `anchors` of a joint, spring or damper: two different
/// bodies (ground at most once), and anchors at the centre of particles.
fn read_pair(scene: &Scene, names: &Names, t: &Tab) -> Result<([BodyRef; 2], [[f64; DIM]; 2])> {
    let key = t.key("bodies");
    let pair = array(t.required("bodies")?, &key, 2, "body names")?;
    let bodies = [
        body_ref(names, &pair[0], &format!("{key}[0]"))?,
        body_ref(names, &pair[1], &format!("{key}[1]"))?,
    ];
    if bodies[0] == bodies[1] {
        let name = scene.body_name(bodies[0]);
        return Err(t.err("bodies", format!("joins {name:?} to itself")));
    }
    let key = t.key("anchors");
    let points = array(t.required("anchors")?, &key, 2, "points")?;
    let mut anchors = [[0.0; DIM]; 2];
    for i in 0..2 {
        let point_key = format!("{key}[{i}]");
        anchors[i] = vector(&points[i], &point_key)?;
        at_particle_centre(scene, bodies[i], anchors[i], &point_key)?;
    }
    Ok((bodies, anchors))
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

fn read_joint(t: &Tab, scene: &Scene, names: &Names) -> Result<Joint> {
    t.only(JOINT_KEYS)?;
    let kind_name = t.string("kind")?;
    let pair: &[&str] = &["bodies", "anchors"];
    let (what, allowed): (&str, &[&str]) = match kind_name {
        "pin" => ("a pin joint", pair),
        "distance" => ("a distance joint", &["bodies", "anchors", "length"]),
        "slider" => ("a slider joint", &["bodies", "anchors", "axis"]),
        "slot" => ("a slot joint", &["bodies", "anchors", "axis"]),
        "weld" => ("a weld joint", pair),
        "knife_edge" => ("a knife_edge joint", &["body", "point", "axis"]),
        other => {
            return Err(t.err(
                "kind",
                format!(
                    "unknown kind {other:?} (expected pin, distance, slider, slot, weld or \
                     knife_edge)"
                ),
            ))
        }
    };
    let extra: Vec<&str> = ["bodies", "anchors", "length", "axis", "body", "point"]
        .into_iter()
        .filter(|k| !allowed.contains(k))
        .collect();
    t.not_allowed(&extra, what)?;
    if kind_name == "knife_edge" {
        return read_knife_edge(t, scene, names);
    }
    let (bodies, anchors) = read_pair(scene, names, t)?;

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
                Some(l) => positive(t, "length", l)?,
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
            axis: unit(t.vec("axis")?, &t.key("axis"))?,
        },
        "slot" => JointKind::Slot {
            axis: unit(t.vec("axis")?, &t.key("axis"))?,
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
fn read_knife_edge(t: &Tab, scene: &Scene, names: &Names) -> Result<Joint> {
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
    names: &Names,
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
    let surface = match t.get("surface") {
        None => return Err(t.err("surface", "missing required key")),
        Some(v) => read_surface(&t.table_of(v, "surface")?)?,
    };
    let friction = non_negative(t, "friction", t.opt_number("friction")?.unwrap_or(0.0))?;
    let viscous = non_negative(t, "viscous", t.opt_number("viscous")?.unwrap_or(0.0))?;
    let restitution = t.opt_number("restitution")?.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&restitution) {
        return Err(t.err("restitution", "must be in [0, 1]"));
    }
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
    match t.string("kind")? {
        "line" => {
            t.not_allowed(&["center", "radius"], "a line surface")?;
            let point = t.vec("point")?;
            let normal = unit(t.vec("normal")?, &t.key("normal"))?;
            Ok(Surface::Line { point, normal })
        }
        "circle" => {
            t.not_allowed(&["point", "normal"], "a circle surface")?;
            let center = t.vec("center")?;
            let radius = positive(t, "radius", t.number("radius")?)?;
            Ok(Surface::Circle { center, radius })
        }
        other => Err(t.err(
            "kind",
            format!("unknown kind {other:?} (expected line or circle)"),
        )),
    }
}

fn read_force(t: &Tab, scene: &Scene, names: &Names) -> Result<Force> {
    t.only(FORCE_KEYS)?;
    match t.string("kind")? {
        "spring" => {
            t.not_allowed(&["damping", "body", "force", "torque"], "a spring")?;
            let (bodies, anchors) = read_pair(scene, names, t)?;
            let stiffness = non_negative(t, "stiffness", t.number("stiffness")?)?;
            let rest_length = match t.opt_number("rest_length")? {
                Some(l) => non_negative(t, "rest_length", l)?,
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
            let (bodies, anchors) = read_pair(scene, names, t)?;
            let damping = non_negative(t, "damping", t.number("damping")?)?;
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
        other => Err(t.err(
            "kind",
            format!("unknown kind {other:?} (expected spring, damper or constant)"),
        )),
    }
}

fn read_solver(t: &Tab) -> Result<SolverSettings> {
    t.only(SOLVER_KEYS)?;
    let defaults = SolverSettings::default();
    let method = match t.opt_string("method")?.as_deref() {
        None | Some("dop853") => Method::Dop853,
        Some("dopri5") => Method::Dopri5,
        Some(other) => {
            return Err(t.err(
                "method",
                format!("unknown method {other:?} (expected dop853 or dopri5)"),
            ))
        }
    };
    let tolerance = match t.opt_number("tolerance")? {
        Some(x) => within(t, "tolerance", x, TOLERANCE, "")?,
        None => defaults.tolerance,
    };
    let absolute_tolerance = match t.opt_number("absolute_tolerance")? {
        Some(x) => within(t, "absolute_tolerance", x, ABSOLUTE_TOLERANCE, "")?,
        None => tolerance * 1e-3,
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
    Ok(SolverSettings {
        method,
        tolerance,
        absolute_tolerance,
        max_steps,
        ..defaults
    })
}
