//! MuJoCo's MJCF files read into a [`SpatialScene`]: the subset of
//! `docs/scene-format.md` ("MJCF import"), everything else refused with
//! one line naming the element.
//!
//! A moving body of the scene is an MJCF body with a joint (or without
//! one inside a moving body) and one geom (or none and an `<inertial>`);
//! its frame is the geom's (the scene's shapes are centred on the body's
//! origin, its centre of mass). A hinge, slide or ball joint is a scene
//! joint from the body's parent (ground when that is static) to the body,
//! a body without joints inside a moving body a weld joint. A geom of a
//! static body (`<worldbody>` or a body without joints whose ancestors
//! have none) is a fixed body of its own, in the geom's frame: a plane is
//! the half-space below its local z axis. Bodies come in document order,
//! a moving body's children after it.
//!
//! Elements are named in errors by their path below `<mujoco>`, each step
//! `tag[name]`, or `tag[i]` (0-based among its siblings of that tag) for an
//! unnamed element with such siblings, or `tag` alone:
//! `worldbody/body[box3]/geom[1]: a body with more than one geom is not
//! supported`. An attribute follows its element after a dot.

use std::collections::{BTreeMap, HashMap};

use roxmltree::{Document, Node};
use zwang_geometry::spatial::{Pose, Shape};
use zwang_model::spatial::rotation::{
    apply, apply_transpose, conjugate, cross, dot, from_matrix, matrix, mul, normalized,
};
use zwang_model::spatial::{SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind};
use zwang_model::ModelError;

use crate::error::SceneError;
use crate::parse::{at_least_tiny, show, INERTIA, MASS};
use crate::space::SpatialScene;
use crate::types::{SolverSettings, Stepping};

type Result<T> = std::result::Result<T, SceneError>;

/// MuJoCo's `option timestep` when the file gives none, s.
pub const MJCF_TIMESTEP: f64 = 0.002;
/// The deepest nesting of bodies (or of default classes) read: deeper is
/// refused rather than read by ever deeper recursion.
const MAX_DEPTH: usize = 200;
/// The deepest nesting of XML elements given to the XML parser, which
/// reads nesting by recursion (some thousands overflow a thread's stack).
const MAX_XML_DEPTH: usize = 1000;
/// MuJoCo's geom `density` when the file gives none, kg/m³.
const DENSITY: f64 = 1000.0;
/// MuJoCo's sliding friction when the file gives none.
const FRICTION: f64 = 1.0;

/// Top-level elements that do not change the motion: read past.
const IGNORED_TOP: &[&str] = &[
    "asset",
    "visual",
    "statistic",
    "size",
    "custom",
    "keyframe",
    "sensor",
];
/// Elements inside bodies (and defaults) that do not change the motion.
const IGNORED_IN_BODY: &[&str] = &["site", "camera", "light"];
/// Defaults of elements that do not change the motion.
const IGNORED_DEFAULTS: &[&str] = &["site", "camera", "light", "mesh", "material", "texture"];

/// Attributes read past wherever they are allowed: names, classes, looks.
const LOOKS: &[&str] = &["name", "class", "group", "rgba", "material", "user"];
const ORIENTATION: &[&str] = &["quat", "axisangle", "euler", "xyaxes", "zaxis"];
const GEOM_ATTRIBUTES: &[&str] = &[
    "type",
    "size",
    "pos",
    "fromto",
    "mass",
    "density",
    "friction",
    "condim",
    "contype",
    "conaffinity",
];
const JOINT_ATTRIBUTES: &[&str] = &["type"];
/// The attributes of a hinge, slide or ball joint besides those read
/// only at 0: its frame, and its limits (read past only when not limited).
const MOVING_JOINT_ATTRIBUTES: &[&str] = &["type", "pos", "axis", "limited", "range"];
/// The attributes of a hinge, slide or ball joint read only at 0.
const ZERO_JOINT_ATTRIBUTES: &[&str] = &[
    "damping",
    "stiffness",
    "armature",
    "frictionloss",
    "springref",
    "ref",
];
const BODY_ATTRIBUTES: &[&str] = &["name", "childclass", "pos", "user"];
const INERTIAL_ATTRIBUTES: &[&str] = &["mass", "pos", "diaginertia", "fullinertia"];
const COMPILER_ATTRIBUTES: &[&str] = &[
    "angle",
    "eulerseq",
    "autolimits",
    "meshdir",
    "texturedir",
    "assetdir",
    "strippath",
    "inertiafromgeom",
];

/// Whether `text` looks like XML rather than TOML: its first character
/// that is not a blank (or a byte order mark) is `<`.
pub fn looks_like_xml(text: &str) -> bool {
    text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .starts_with('<')
}

/// Reads a MuJoCo MJCF file (the subset of `docs/scene-format.md`, "MJCF
/// import") into a spatial scene run for `duration` seconds: time
/// stepping at the file's `option timestep` (MuJoCo's 0.002 s when
/// absent), exact friction, samples every `duration / 1000`.
///
/// ```
/// use zwang_scene::{parse_mjcf, SpatialShape};
///
/// let scene = parse_mjcf(
///     r#"<mujoco model="drop">
///          <option timestep="0.001"/>
///          <worldbody>
///            <geom name="floor" type="plane" size="0 0 1"/>
///            <body name="ball" pos="0 0 1">
///              <freejoint/>
///              <geom type="sphere" size="0.1" mass="2"/>
///            </body>
///          </worldbody>
///        </mujoco>"#,
///     1.0,
/// )
/// .unwrap();
/// assert_eq!(scene.bodies[0].shape, Some(SpatialShape::Halfspace { normal: [0.0, 0.0, 1.0] }));
/// assert_eq!(scene.bodies[1].position, [0.0, 0.0, 1.0]);
/// assert_eq!(scene.solver.time_step, 0.001);
///
/// let err = parse_mjcf(
///     r#"<mujoco><worldbody><body name="arm"><joint type="hinge" damping="0.1"/>
///        <geom type="box" size="1 1 1"/></body></worldbody></mujoco>"#,
///     1.0,
/// )
/// .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "worldbody/body[arm]/joint.damping: joint dynamics are not supported (only 0)"
/// );
/// ```
pub fn parse_mjcf(text: &str, duration: f64) -> Result<SpatialScene> {
    parse_mjcf_stepped(text, duration, None)
}

/// [`parse_mjcf`] with the time step given instead of the file's
/// `option timestep` (`zwang simulate MODEL.xml --time-step H`), checked
/// as the file's would be.
///
/// ```
/// let xml = r#"<mujoco><option timestep="0.002"/><worldbody>
///     <body pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/></body>
///     </worldbody></mujoco>"#;
/// let scene = zwang_scene::parse_mjcf_stepped(xml, 1.0, Some(0.01)).unwrap();
/// assert_eq!(scene.solver.time_step, 0.01);
/// let err = zwang_scene::parse_mjcf_stepped(xml, 1.0, Some(2.0)).unwrap_err();
/// assert_eq!(err.to_string(), "option.timestep: 2 s must be <= the duration (1 s)");
/// ```
pub fn parse_mjcf_stepped(
    text: &str,
    duration: f64,
    given_step: Option<f64>,
) -> Result<SpatialScene> {
    if !(duration.is_finite() && duration > 0.0) {
        return Err(SceneError::new("duration", "must be a finite number > 0"));
    }
    if nests_deeper_than(text, MAX_XML_DEPTH) {
        return Err(SceneError::new(
            "mjcf",
            format!("elements nested more than {MAX_XML_DEPTH} deep are not supported"),
        ));
    }
    let doc = Document::parse(text).map_err(|e| match e {
        roxmltree::Error::DtdDetected => {
            SceneError::new("mjcf", "a DTD (<!DOCTYPE ...>) is not supported")
        }
        e => SceneError::new("mjcf", format!("not well-formed XML: {e}")),
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "mujoco" {
        return Err(SceneError::new(
            root.tag_name().name(),
            "the root element of an MJCF file must be <mujoco>",
        ));
    }
    only(root, "mujoco", &["model"])?;
    let mut reader = Reader::default();
    let tops: Vec<Node> = root.children().filter(Node::is_element).collect();
    // The compiler settings and the classes apply wherever they are.
    for &node in &tops {
        let key = label(node, "");
        match node.tag_name().name() {
            "compiler" => reader.compiler(node, &key)?,
            "default" => reader.defaults(node, &key, None)?,
            _ => {}
        }
    }
    let mut gravity = [0.0, 0.0, -9.81];
    let mut time_step = MJCF_TIMESTEP;
    for &node in &tops {
        let key = label(node, "");
        match node.tag_name().name() {
            "compiler" | "default" => {}
            "option" => {
                only(node, &key, &["timestep", "gravity"])?;
                if let Some(children) = node.children().find(Node::is_element) {
                    return Err(refused(children, &key));
                }
                if let Some(h) = number(node, &key, "timestep")? {
                    if h <= 0.0 {
                        return Err(attr_err(&key, "timestep", "must be > 0"));
                    }
                    time_step = h;
                }
                if let Some(g) = vector::<3>(node, &key, "gravity")? {
                    gravity = g;
                }
            }
            "worldbody" => {
                only(node, &key, &[])?;
                reader.static_body(node, &key, Pose::default(), None)?;
            }
            tag if IGNORED_TOP.contains(&tag) => {}
            _ => return Err(refused(node, "")),
        }
    }
    let Reader {
        bodies,
        keys,
        joints,
        joint_keys,
        ..
    } = reader;
    if !bodies.iter().any(|b| b.kind != SpatialKind::Fixed) {
        return Err(SceneError::new(
            "worldbody",
            "at least one moving body (a body with a joint) is required",
        ));
    }
    let steps_key = "option.timestep";
    if let Some(h) = given_step {
        if !(h.is_finite() && h > 0.0) {
            return Err(SceneError::new(steps_key, "must be a finite number > 0"));
        }
        time_step = h;
    }
    if time_step > duration {
        return Err(SceneError::new(
            steps_key,
            format!(
                "{} s must be <= the duration ({} s)",
                show(time_step),
                show(duration)
            ),
        ));
    }
    let solver = SolverSettings {
        stepping: Stepping::TimeStep,
        time_step,
        ..SolverSettings::default()
    };
    let steps = duration / time_step;
    if steps > solver.max_steps as f64 {
        return Err(SceneError::new(
            steps_key,
            format!(
                "{} s makes {} steps over {} s, more than {}",
                show(time_step),
                show(steps.ceil()),
                show(duration),
                solver.max_steps
            ),
        ));
    }
    let scene = SpatialScene {
        name: root.attribute("model").map(str::to_string),
        gravity,
        duration,
        output_every: at_least_tiny(duration / 1000.0, duration),
        bodies,
        forces: Vec::new(),
        springs: Vec::new(),
        joints,
        solver,
    };
    // What the model checks besides (a positive definite inertia): its
    // key `body[i].inertia` is the element of body i, `joint[i].KEY` the
    // body that joint i holds.
    scene.model().map_err(|e| match e {
        ModelError::Invalid { key, message } => {
            let element = |prefix: &str, keys: &[String]| {
                key.strip_prefix(prefix)
                    .and_then(|rest| rest.split_once("]."))
                    .and_then(|(i, rest)| Some((keys.get(i.parse::<usize>().ok()?)?.clone(), rest)))
            };
            let element = element("body[", &keys).or_else(|| element("joint[", &joint_keys));
            match element {
                Some((element, rest)) => SceneError::new(element, format!("{rest} {message}")),
                None => SceneError::new(key, message),
            }
        }
        e => SceneError::new("mjcf", e.to_string()),
    })?;
    Ok(scene)
}

/// The frame `local`, given in `parent`, in the world.
fn compose(parent: &Pose, local: Pose) -> Pose {
    let moved = apply(&matrix(parent.orientation), local.position);
    Pose {
        position: [0, 1, 2].map(|i| parent.position[i] + moved[i]),
        orientation: mul(parent.orientation, local.orientation),
    }
}

/// The joints of the subset besides the free joint.
#[derive(Debug, Clone, Copy, PartialEq)]
enum JointKind {
    Hinge,
    Slide,
    Ball,
}

/// How a moving body is held to its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Link {
    /// Not at all (a free joint).
    Free,
    /// Welded (a body without joints inside a moving body).
    Weld,
    /// A hinge, slide or ball joint at `pos` (in the body's frame), its
    /// `axis` (the body's frame, unit) for a hinge or a slide.
    Joint {
        kind: JointKind,
        pos: [f64; 3],
        axis: [f64; 3],
    },
}

/// The moving body a body hangs from: its index among the scene's bodies
/// and its scene frame (its geom's or inertial's) in its MJCF body's frame.
#[derive(Debug, Clone, Copy)]
struct Holder {
    index: usize,
    frame: Pose,
}

/// Where a body is: its frame in its parent's (`local`) and in the world
/// (`pose`), and its parent when that moves.
#[derive(Debug, Clone, Copy)]
struct Place {
    local: Pose,
    pose: Pose,
    holder: Option<Holder>,
}

impl Place {
    /// The scene joint of `link` for the body of index `index`, its scene
    /// frame `frame` in its MJCF frame: the parent first (ground for a
    /// static parent), each anchor in its body's scene frame (ground: the
    /// world), the axis in the parent's.
    fn joint(&self, link: Link, index: usize, frame: &Pose) -> Option<SpatialJoint> {
        let (kind, pos, axis) = match link {
            Link::Free => return None,
            // Any common point: the body's centre.
            Link::Weld => (None, frame.position, [0.0, 0.0, 1.0]),
            Link::Joint { kind, pos, axis } => (Some(kind), pos, axis),
        };
        // A point of the body's MJCF frame in its body's scene frame.
        let into = |frame: &Pose, p: [f64; 3]| {
            let d = [0, 1, 2].map(|i| p[i] - frame.position[i]);
            apply_transpose(&matrix(frame.orientation), d)
        };
        let (first, anchor, axis) = match self.holder {
            None => {
                let at = compose(
                    &self.pose,
                    Pose {
                        position: pos,
                        orientation: [1.0, 0.0, 0.0, 0.0],
                    },
                );
                (
                    None,
                    at.position,
                    apply(&matrix(self.pose.orientation), axis),
                )
            }
            Some(h) => {
                let at = compose(
                    &self.local,
                    Pose {
                        position: pos,
                        orientation: [1.0, 0.0, 0.0, 0.0],
                    },
                );
                let axis = apply(&matrix(self.local.orientation), axis);
                (
                    Some(h.index),
                    into(&h.frame, at.position),
                    apply_transpose(&matrix(h.frame.orientation), axis),
                )
            }
        };
        let kind = match kind {
            None => SpatialJointKind::Weld,
            Some(JointKind::Ball) => SpatialJointKind::Ball,
            Some(JointKind::Hinge) => SpatialJointKind::Hinge { axis },
            Some(JointKind::Slide) => SpatialJointKind::Slider { axis },
        };
        Some(SpatialJoint {
            kind,
            bodies: [first, Some(index)],
            anchors: [anchor, into(frame, pos)],
        })
    }
}

/// A hinge, slide or ball joint's link from its attributes (its class's
/// under its own): those that change the motion only at their neutral
/// values.
fn joint_link(kind: JointKind, attrs: &BTreeMap<String, String>, key: &str) -> Result<Link> {
    only_of(
        attrs,
        key,
        &[LOOKS, MOVING_JOINT_ATTRIBUTES, ZERO_JOINT_ATTRIBUTES].concat(),
    )?;
    for &attr in ZERO_JOINT_ATTRIBUTES {
        if let Some(x) = number_of(attrs, key, attr)? {
            if x != 0.0 {
                let why = if attr == "ref" {
                    "a joint's reference position is not supported (only 0)"
                } else {
                    "joint dynamics are not supported (only 0)"
                };
                return Err(attr_err(key, attr, why));
            }
        }
    }
    match attrs.get("limited").map(|s| s.trim()) {
        Some("true") => return Err(attr_err(key, "limited", "joint limits are not supported")),
        Some("false") => {}
        None | Some("auto") => {
            if attrs.contains_key("range") {
                return Err(attr_err(
                    key,
                    "range",
                    "joint limits are not supported (limited=\"false\" reads the range past)",
                ));
            }
        }
        Some(other) => {
            return Err(attr_err(
                key,
                "limited",
                format!("{other:?}: expected true, false or auto"),
            ))
        }
    }
    let pos = vector_of(attrs, key, "pos")?.unwrap_or([0.0; 3]);
    let axis = match vector_of(attrs, key, "axis")? {
        None => [0.0, 0.0, 1.0],
        Some(axis) => unit(axis).ok_or_else(|| attr_err(key, "axis", "must be nonzero"))?,
    };
    Ok(Link::Joint { kind, pos, axis })
}

/// The attributes a class gives, per element.
#[derive(Debug, Clone, Default)]
struct Class {
    geom: BTreeMap<String, String>,
    joint: BTreeMap<String, String>,
}

/// What is read so far: the compiler's settings, the classes, the bodies
/// (and the element of each, for the model's errors).
struct Reader {
    /// Radians per unit of the file's angles.
    angle: f64,
    /// `compiler eulerseq`.
    eulerseq: [u8; 3],
    classes: HashMap<String, Class>,
    bodies: Vec<SpatialBody>,
    keys: Vec<String>,
    /// The joints, and for each the element of the body it holds.
    joints: Vec<SpatialJoint>,
    joint_keys: Vec<String>,
    names: HashMap<String, String>,
    /// Unnamed bodies and geoms so far (their generated names).
    unnamed_bodies: usize,
    geoms: usize,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            angle: std::f64::consts::PI / 180.0,
            eulerseq: *b"xyz",
            classes: HashMap::from([("main".to_string(), Class::default())]),
            bodies: Vec::new(),
            keys: Vec::new(),
            joints: Vec::new(),
            joint_keys: Vec::new(),
            names: HashMap::new(),
            unnamed_bodies: 0,
            geoms: 0,
        }
    }
}

impl Reader {
    fn compiler(&mut self, node: Node, key: &str) -> Result<()> {
        only(node, key, COMPILER_ATTRIBUTES)?;
        if let Some(child) = node.children().find(Node::is_element) {
            return Err(refused(child, key));
        }
        match node.attribute("angle") {
            None => {}
            Some("degree") => self.angle = std::f64::consts::PI / 180.0,
            Some("radian") => self.angle = 1.0,
            Some(other) => {
                return Err(attr_err(
                    key,
                    "angle",
                    format!("{other:?}: expected degree or radian"),
                ))
            }
        }
        if let Some(seq) = node.attribute("eulerseq") {
            let bytes = seq.as_bytes();
            if bytes.len() != 3 || !bytes.iter().all(|b| b"xyzXYZ".contains(b)) {
                return Err(attr_err(
                    key,
                    "eulerseq",
                    format!("{seq:?}: expected three of x, y, z, X, Y, Z"),
                ));
            }
            self.eulerseq = [bytes[0], bytes[1], bytes[2]];
        }
        match node.attribute("inertiafromgeom") {
            None | Some("auto") => Ok(()),
            Some(other) => Err(attr_err(
                key,
                "inertiafromgeom",
                format!("{other:?} is not supported (only auto)"),
            )),
        }
    }

    /// A `<default>` element (class `main` at the top) and its nested
    /// classes, each with its parent's attributes under its own.
    fn defaults(&mut self, node: Node, key: &str, parent: Option<&str>) -> Result<()> {
        too_deep(key)?;
        only(node, key, &["class"])?;
        let name = match (node.attribute("class"), parent) {
            (Some(name), _) => name.to_string(),
            (None, None) => "main".to_string(),
            (None, Some(_)) => return Err(SceneError::new(key, "a nested default needs a class")),
        };
        let mut class = match parent {
            Some(p) => self.classes.get(p).cloned().unwrap_or_default(),
            None => self.classes.get(&name).cloned().unwrap_or_default(),
        };
        if parent.is_some() && self.classes.contains_key(&name) {
            return Err(attr_err(key, "class", format!("{name:?} is defined twice")));
        }
        let children: Vec<Node> = node.children().filter(Node::is_element).collect();
        for &child in &children {
            let child_key = label(child, key);
            match child.tag_name().name() {
                "geom" => {
                    only(
                        child,
                        &child_key,
                        &[LOOKS, ORIENTATION, GEOM_ATTRIBUTES].concat(),
                    )?;
                    merge(&mut class.geom, child);
                }
                // Checked where they apply: on a free joint (the other
                // kinds are refused whatever their attributes).
                "joint" => merge(&mut class.joint, child),
                "default" => {}
                tag if IGNORED_DEFAULTS.contains(&tag) => {}
                _ => return Err(refused(child, key)),
            }
        }
        self.classes.insert(name.clone(), class);
        for &child in &children {
            if child.tag_name().name() == "default" {
                self.defaults(child, &label(child, key), Some(&name))?;
            }
        }
        Ok(())
    }

    /// The attributes of `node` (a geom or a joint) with its class's under
    /// them: its `class`, else the nearest `childclass` above, else `main`.
    fn attributes(
        &self,
        node: Node,
        key: &str,
        childclass: Option<&str>,
    ) -> Result<BTreeMap<String, String>> {
        let name = node.attribute("class").or(childclass).unwrap_or("main");
        let Some(class) = self.classes.get(name) else {
            return Err(attr_err(key, "class", format!("unknown class {name:?}")));
        };
        let mut out = match node.tag_name().name() {
            "geom" => class.geom.clone(),
            _ => class.joint.clone(),
        };
        merge(&mut out, node);
        Ok(out)
    }

    /// The orientation a node's attributes give (one of `quat`,
    /// `axisangle`, `euler`, `xyaxes`, `zaxis`; identity without).
    fn orientation(&self, attrs: &BTreeMap<String, String>, key: &str) -> Result<[f64; 4]> {
        let given: Vec<&str> = ORIENTATION
            .iter()
            .copied()
            .filter(|a| attrs.contains_key(*a))
            .collect();
        let Some(&which) = given.first() else {
            return Ok([1.0, 0.0, 0.0, 0.0]);
        };
        if given.len() > 1 {
            return Err(SceneError::new(
                key,
                format!("{} and {} both give the orientation", given[0], given[1]),
            ));
        }
        let text = &attrs[which];
        let bad = |message: &str| attr_err(key, which, message);
        let q = match which {
            "quat" => {
                let q = numbers::<4>(text, key, which)?;
                normalized(q).ok_or_else(|| bad("must be a nonzero quaternion"))?
            }
            "axisangle" => {
                let [x, y, z, angle] = numbers::<4>(text, key, which)?;
                let axis = unit([x, y, z]).ok_or_else(|| bad("the axis must be nonzero"))?;
                let half = 0.5 * angle * self.angle;
                let s = half.sin();
                [half.cos(), axis[0] * s, axis[1] * s, axis[2] * s]
            }
            "euler" => {
                let angles = numbers::<3>(text, key, which)?;
                let mut q = [1.0, 0.0, 0.0, 0.0];
                for (i, &axis) in self.eulerseq.iter().enumerate() {
                    let half = 0.5 * angles[i] * self.angle;
                    let mut turn = [half.cos(), 0.0, 0.0, 0.0];
                    turn[1 + usize::from(axis.to_ascii_lowercase() - b'x')] = half.sin();
                    // Lower case: about the turned axes (intrinsic); upper
                    // case: about the fixed ones (extrinsic), as MuJoCo.
                    q = if axis.is_ascii_lowercase() {
                        mul(q, turn)
                    } else {
                        mul(turn, q)
                    };
                }
                q
            }
            "xyaxes" => {
                let v = numbers::<6>(text, key, which)?;
                let x =
                    unit([v[0], v[1], v[2]]).ok_or_else(|| bad("the x axis must be nonzero"))?;
                let y = [v[3], v[4], v[5]];
                let along = dot(x, y);
                let y = unit([0, 1, 2].map(|i| y[i] - along * x[i]))
                    .ok_or_else(|| bad("the y axis must not be along the x axis"))?;
                let z = cross(x, y);
                from_matrix(&[0, 1, 2].map(|i| [x[i], y[i], z[i]]))
            }
            _ => {
                let z = unit(numbers::<3>(text, key, which)?)
                    .ok_or_else(|| bad("must be a nonzero vector"))?;
                z_to(z)
            }
        };
        if q.iter().all(|x| x.is_finite()) {
            Ok(q)
        } else {
            Err(bad("must be finite"))
        }
    }

    /// A body that does not move (`<worldbody>`, or a body without
    /// joints whose ancestors move neither), at `pose`: each geom a fixed
    /// body, each child body read in turn.
    fn static_body(
        &mut self,
        node: Node,
        key: &str,
        pose: Pose,
        childclass: Option<&str>,
    ) -> Result<()> {
        for child in node.children().filter(Node::is_element) {
            let child_key = label(child, key);
            match child.tag_name().name() {
                "geom" => {
                    let attrs = self.attributes(child, &child_key, childclass)?;
                    let geom = self.geom(&attrs, &child_key)?;
                    let name = match child.attribute("name") {
                        Some(name) if !name.is_empty() => name.to_string(),
                        _ => format!("geom{}", self.geoms),
                    };
                    self.geoms += 1;
                    let at = compose(&pose, geom.pose);
                    let body = SpatialBody {
                        position: at.position,
                        orientation: at.orientation,
                        shape: Some(geom.shape),
                        friction: geom.friction,
                        ..SpatialBody::new(&name, SpatialKind::Fixed)
                    };
                    self.push(body, &child_key, true)?;
                }
                "body" => self.body(child, &child_key, pose, childclass, None)?,
                "joint" | "freejoint" => {
                    return Err(SceneError::new(
                        child_key,
                        "the world body cannot have joints (a joint goes in a <body>)",
                    ))
                }
                // An inertial of a static body weighs nothing that moves.
                "inertial" if node.tag_name().name() == "body" => {}
                tag if IGNORED_IN_BODY.contains(&tag) => {}
                _ => return Err(refused(child, key)),
            }
        }
        Ok(())
    }

    /// A `<body>` in its parent, whose frame is `parent` in the world;
    /// `holder` is the parent when it moves.
    fn body(
        &mut self,
        node: Node,
        key: &str,
        parent: Pose,
        childclass: Option<&str>,
        holder: Option<Holder>,
    ) -> Result<()> {
        too_deep(key)?;
        only(node, key, &[BODY_ATTRIBUTES, ORIENTATION].concat())?;
        let childclass = node.attribute("childclass").or(childclass);
        if let Some(name) = childclass {
            if !self.classes.contains_key(name) {
                return Err(attr_err(
                    key,
                    "childclass",
                    format!("unknown class {name:?}"),
                ));
            }
        }
        let own = attribute_map(node);
        let local = Pose {
            position: vector_of(&own, key, "pos")?.unwrap_or([0.0; 3]),
            orientation: self.orientation(&own, key)?,
        };
        let pose = compose(&parent, local);
        let elements: Vec<Node> = node.children().filter(Node::is_element).collect();
        let joints: Vec<Node> = elements
            .iter()
            .copied()
            .filter(|n| matches!(n.tag_name().name(), "joint" | "freejoint"))
            .collect();
        if let Some(&second) = joints.get(1) {
            return Err(SceneError::new(
                label(second, key),
                "a body with more than one joint is not supported",
            ));
        }
        let Some(&joint) = joints.first() else {
            // Without a joint a body is welded to its parent: static
            // when the parent is, else held by a weld joint.
            return match holder {
                None => self.static_body(node, key, pose, childclass),
                Some(_) => {
                    let link = Link::Weld;
                    let place = Place {
                        local,
                        pose,
                        holder,
                    };
                    self.moving_body(node, key, place, childclass, &elements, link)
                }
            };
        };
        let joint_key = label(joint, key);
        let link = if joint.tag_name().name() == "freejoint" {
            only(joint, &joint_key, &["name", "group"])?;
            Link::Free
        } else {
            let attrs = self.attributes(joint, &joint_key, childclass)?;
            let kind = match attrs.get("type").map(String::as_str).unwrap_or("hinge") {
                "free" => None,
                "hinge" => Some(JointKind::Hinge),
                "slide" => Some(JointKind::Slide),
                "ball" => Some(JointKind::Ball),
                other => {
                    return Err(attr_err(
                        &joint_key,
                        "type",
                        format!("unknown joint type {other:?}"),
                    ))
                }
            };
            match kind {
                None => {
                    only_of(&attrs, &joint_key, &[LOOKS, JOINT_ATTRIBUTES].concat())?;
                    Link::Free
                }
                Some(kind) => joint_link(kind, &attrs, &joint_key)?,
            }
        };
        if link == Link::Free && holder.is_some() {
            return Err(SceneError::new(
                joint_key,
                "a free joint must be in a body whose parent does not move",
            ));
        }
        let place = Place {
            local,
            pose,
            holder,
        };
        self.moving_body(node, key, place, childclass, &elements, link)
    }

    /// A moving body at `place`, its elements `elements`, held to its
    /// parent by `link`; then its child bodies.
    fn moving_body(
        &mut self,
        node: Node,
        key: &str,
        place: Place,
        childclass: Option<&str>,
        elements: &[Node],
        link: Link,
    ) -> Result<()> {
        let pose = place.pose;
        let mut children = Vec::new();
        let mut geom = None;
        let mut inertial = None;
        for &child in elements {
            let child_key = label(child, key);
            match child.tag_name().name() {
                "joint" | "freejoint" => {}
                "geom" if geom.is_some() => {
                    return Err(SceneError::new(
                        child_key,
                        "a body with more than one geom is not supported",
                    ))
                }
                "geom" => {
                    let attrs = self.attributes(child, &child_key, childclass)?;
                    geom = Some((self.geom(&attrs, &child_key)?, child_key));
                    self.geoms += 1;
                }
                "inertial" => inertial = Some((child, child_key)),
                // Read after this body, which they hang from.
                "body" => children.push((child, child_key)),
                tag if IGNORED_IN_BODY.contains(&tag) => {}
                _ => return Err(refused(child, key)),
            }
        }
        let name = match node.attribute("name") {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => format!("body{}", self.unnamed_bodies),
        };
        if node.attribute("name").is_none_or(str::is_empty) {
            self.unnamed_bodies += 1;
        }
        if let Some((geom, geom_key)) = &geom {
            if matches!(geom.shape, Shape::Halfspace { .. }) {
                return Err(SceneError::new(
                    geom_key,
                    "a plane must be in a static body (worldbody or a body without joints whose ancestors have none)",
                ));
            }
        }
        let (frame, mass, inertia, shape, friction) = match (geom, inertial) {
            (None, None) => {
                return Err(SceneError::new(
                    key,
                    "a moving body needs a geom or an inertial",
                ))
            }
            (Some((geom, geom_key)), None) => {
                let mass = geom.mass(&geom_key)?;
                (geom.pose, mass, None, Some(geom.shape), geom.friction)
            }
            (geom, Some((node, inertial_key))) => {
                let (at, mass, tensor) = self.inertial(node, &inertial_key)?;
                match geom {
                    None => {
                        // The body's axes, moved to the centre of mass.
                        let frame = Pose {
                            position: at.position,
                            orientation: [1.0, 0.0, 0.0, 0.0],
                        };
                        let r = matrix(at.orientation);
                        (frame, mass, Some(turned(&r, &tensor)), None, FRICTION)
                    }
                    Some((geom, geom_key)) => {
                        let gap = (0..3)
                            .map(|i| (at.position[i] - geom.pose.position[i]).abs())
                            .fold(0.0, f64::max);
                        let size = at.position.iter().fold(1.0, |m: f64, x| m.max(x.abs()));
                        if gap > 1e-9 * size {
                            return Err(SceneError::new(
                                inertial_key,
                                format!(
                                    "its pos must be the centre of {geom_key} (the scene's \
                                     shapes are centred on the centre of mass)"
                                ),
                            ));
                        }
                        // The tensor in the geom's frame: R_g^T R_i D R_i^T R_g.
                        let r = matrix(mul(conjugate(geom.pose.orientation), at.orientation));
                        let tensor = turned(&r, &tensor);
                        (
                            geom.pose,
                            mass,
                            Some(tensor),
                            Some(geom.shape),
                            geom.friction,
                        )
                    }
                }
            }
        };
        let at = compose(&pose, frame);
        let body = SpatialBody {
            position: at.position,
            orientation: at.orientation,
            shape,
            friction,
            ..SpatialBody::new(&name, SpatialKind::Rigid { mass, inertia })
        };
        self.push(body, key, false)?;
        let index = self.bodies.len() - 1;
        if let Some(joint) = place.joint(link, index, &frame) {
            self.joints.push(joint);
            self.joint_keys.push(key.to_string());
        }
        let holder = Holder { index, frame };
        for (child, child_key) in children {
            self.body(child, &child_key, pose, childclass, Some(holder))?;
        }
        Ok(())
    }

    /// An `<inertial>`: its frame in the body's, mass, and principal
    /// moments (diagonal tensor in its frame) or full tensor (the body's
    /// axes, its frame unturned).
    fn inertial(&self, node: Node, key: &str) -> Result<(Pose, f64, [[f64; 3]; 3])> {
        only(node, key, &[INERTIAL_ATTRIBUTES, ORIENTATION].concat())?;
        let attrs = attribute_map(node);
        let mass =
            number_of(&attrs, key, "mass")?.ok_or_else(|| attr_err(key, "mass", "missing"))?;
        check_mass(mass, key, "mass")?;
        let position =
            vector_of(&attrs, key, "pos")?.ok_or_else(|| attr_err(key, "pos", "missing"))?;
        let orientation = self.orientation(&attrs, key)?;
        let tensor = match (attrs.get("diaginertia"), attrs.get("fullinertia")) {
            (Some(_), Some(_)) => {
                return Err(SceneError::new(
                    key,
                    "diaginertia and fullinertia both give the inertia",
                ))
            }
            (None, None) => return Err(SceneError::new(key, "needs diaginertia or fullinertia")),
            (Some(text), None) => {
                let [a, b, c] = numbers::<3>(text, key, "diaginertia")?;
                for x in [a, b, c] {
                    check_inertia(x, key, "diaginertia")?;
                }
                [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]]
            }
            (None, Some(text)) => {
                if ORIENTATION.iter().any(|a| attrs.contains_key(*a)) {
                    return Err(SceneError::new(
                        key,
                        "fullinertia gives the inertial frame's axes: no quat, axisangle, \
                         euler, xyaxes or zaxis with it",
                    ));
                }
                let [ixx, iyy, izz, ixy, ixz, iyz] = numbers::<6>(text, key, "fullinertia")?;
                for x in [ixx, iyy, izz] {
                    check_inertia(x, key, "fullinertia")?;
                }
                [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
            }
        };
        Ok((
            Pose {
                position,
                orientation,
            },
            mass,
            tensor,
        ))
    }

    /// A geom's shape, frame in its body, surface and what gives its mass.
    fn geom(&self, attrs: &BTreeMap<String, String>, key: &str) -> Result<Geom> {
        only_of(attrs, key, &[LOOKS, ORIENTATION, GEOM_ATTRIBUTES].concat())?;
        for (attr, default) in [("condim", "3"), ("contype", "1"), ("conaffinity", "1")] {
            if let Some(value) = attrs.get(attr) {
                if value.trim() != default {
                    return Err(attr_err(
                        key,
                        attr,
                        format!("{value:?} is not supported (only {default})"),
                    ));
                }
            }
        }
        let kind = attrs.get("type").map(String::as_str).unwrap_or("sphere");
        let fromto = match attrs.get("fromto") {
            None => None,
            Some(_) if !matches!(kind, "capsule" | "cylinder") => {
                return Err(attr_err(key, "fromto", "only for a capsule or a cylinder"))
            }
            Some(_)
                if attrs.contains_key("pos")
                    || ORIENTATION.iter().any(|a| attrs.contains_key(*a)) =>
            {
                return Err(attr_err(
                    key,
                    "fromto",
                    "gives the frame: no pos or orientation with it",
                ))
            }
            Some(text) => Some(numbers::<6>(text, key, "fromto")?),
        };
        let size: Vec<f64> = match attrs.get("size") {
            Some(text) => {
                let size = list(text, key, "size")?;
                if size.len() > 3 {
                    return Err(attr_err(
                        key,
                        "size",
                        format!("expected at most 3 numbers, found {}", size.len()),
                    ));
                }
                size
            }
            None => Vec::new(),
        };
        let needs = |n: usize, what: &str| -> Result<()> {
            if size.len() < n {
                let found = if size.is_empty() {
                    "missing".to_string()
                } else {
                    format!("found {} numbers", size.len())
                };
                return Err(attr_err(
                    key,
                    "size",
                    format!("{found}: a {kind} needs {what}"),
                ));
            }
            Ok(())
        };
        let positive = |i: usize, what: &str| -> Result<f64> {
            if size[i] > 0.0 {
                Ok(size[i])
            } else {
                Err(attr_err(key, "size", format!("the {what} must be > 0")))
            }
        };
        let mut pose = Pose {
            position: vector_of(attrs, key, "pos")?.unwrap_or([0.0; 3]),
            orientation: self.orientation(attrs, key)?,
        };
        let shape = match kind {
            "plane" => Shape::Halfspace {
                normal: [0.0, 0.0, 1.0],
            },
            "sphere" => {
                needs(1, "its radius")?;
                Shape::Sphere {
                    radius: positive(0, "radius")?,
                }
            }
            "box" => {
                needs(3, "its three half extents")?;
                Shape::Box {
                    half_extents: [
                        positive(0, "half extent")?,
                        positive(1, "half extent")?,
                        positive(2, "half extent")?,
                    ],
                }
            }
            "capsule" | "cylinder" => {
                let radius;
                let half_length = match fromto {
                    Some(v) => {
                        needs(1, "its radius")?;
                        radius = positive(0, "radius")?;
                        let (a, b) = ([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
                        let d = [0, 1, 2].map(|i| b[i] - a[i]);
                        let length = dot(d, d).sqrt();
                        let axis = unit(d)
                            .ok_or_else(|| attr_err(key, "fromto", "its two points must differ"))?;
                        pose = Pose {
                            position: [0, 1, 2].map(|i| 0.5 * (a[i] + b[i])),
                            orientation: z_to(axis),
                        };
                        0.5 * length
                    }
                    None => {
                        needs(2, "its radius and half length")?;
                        radius = positive(0, "radius")?;
                        positive(1, "half length")?
                    }
                };
                if kind == "capsule" {
                    Shape::Capsule {
                        half_length,
                        radius,
                    }
                } else {
                    Shape::Cylinder {
                        half_length,
                        radius,
                    }
                }
            }
            "ellipsoid" | "mesh" | "hfield" | "sdf" => {
                return Err(attr_err(
                    key,
                    "type",
                    format!("{kind} is not supported (plane, sphere, box, capsule or cylinder)"),
                ))
            }
            other => {
                return Err(attr_err(
                    key,
                    "type",
                    format!("unknown geom type {other:?}"),
                ))
            }
        };
        let friction = match attrs.get("friction") {
            None => FRICTION,
            Some(text) => {
                let values = list(text, key, "friction")?;
                match values.first() {
                    Some(&mu) if values.len() <= 3 && mu >= 0.0 => mu,
                    Some(_) if values.len() <= 3 => {
                        return Err(attr_err(
                            key,
                            "friction",
                            "the sliding friction must be >= 0",
                        ))
                    }
                    _ => return Err(attr_err(key, "friction", "expected 1 to 3 numbers")),
                }
            }
        };
        let mass = match (
            number_of(attrs, key, "mass")?,
            number_of(attrs, key, "density")?,
        ) {
            (Some(m), _) => ("mass", m),
            (None, density) => ("density", density.unwrap_or(DENSITY) * volume(&shape)),
        };
        Ok(Geom {
            shape,
            pose,
            friction,
            mass,
        })
    }

    /// Adds a body, its name unique (a fixed one may be `ground`).
    fn push(&mut self, body: SpatialBody, key: &str, fixed: bool) -> Result<()> {
        if body.name == "ground" && !fixed {
            return Err(attr_err(
                key,
                "name",
                "\"ground\" is reserved for the fixed world frame",
            ));
        }
        if let Some(other) = self.names.get(&body.name) {
            return Err(SceneError::new(
                key,
                format!("the name {:?} is taken by {other}", body.name),
            ));
        }
        self.names.insert(body.name.clone(), key.to_string());
        self.bodies.push(body);
        self.keys.push(key.to_string());
        Ok(())
    }
}

/// A geom read: its shape, frame in its body, sliding friction and what
/// gives its mass (`mass`, or `density` times the volume).
struct Geom {
    shape: Shape,
    pose: Pose,
    friction: f64,
    mass: (&'static str, f64),
}

impl Geom {
    fn mass(&self, key: &str) -> Result<f64> {
        let (attr, mass) = self.mass;
        check_mass(mass, key, attr)?;
        Ok(mass)
    }
}

/// A body's mass, `> 0` and within the scene file's bounds.
fn check_mass(mass: f64, key: &str, attr: &str) -> Result<()> {
    let (lo, hi) = MASS;
    if mass.is_nan() || mass <= 0.0 {
        return Err(attr_err(
            key,
            attr,
            format!("gives the mass {}: must be > 0", show(mass)),
        ));
    }
    if !(lo..=hi).contains(&mass) {
        return Err(attr_err(
            key,
            attr,
            format!(
                "gives the mass {} kg: must be in [{lo:e}, {hi:e}] kg",
                show(mass)
            ),
        ));
    }
    Ok(())
}

/// A principal moment, `> 0` and within the scene file's bounds.
fn check_inertia(x: f64, key: &str, attr: &str) -> Result<()> {
    let (lo, hi) = INERTIA;
    if !(x > 0.0 && (lo..=hi).contains(&x)) {
        return Err(attr_err(
            key,
            attr,
            format!("each moment must be in [{lo:e}, {hi:e}] kg m²"),
        ));
    }
    Ok(())
}

/// The volume of a bounded shape, m³ (0 for a half-space).
fn volume(shape: &Shape) -> f64 {
    let pi = std::f64::consts::PI;
    match *shape {
        Shape::Sphere { radius: r } => 4.0 / 3.0 * pi * r * r * r,
        Shape::Box {
            half_extents: [a, b, c],
        } => 8.0 * a * b * c,
        Shape::Cylinder {
            half_length: h,
            radius: r,
        } => 2.0 * pi * r * r * h,
        Shape::Capsule {
            half_length: h,
            radius: r,
        } => 2.0 * pi * r * r * h + 4.0 / 3.0 * pi * r * r * r,
        Shape::Convex { .. } | Shape::Halfspace { .. } => 0.0,
    }
}

/// `R T R^T`.
fn turned(r: &[[f64; 3]; 3], t: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut rt = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            rt[i][j] = (0..3).map(|k| r[i][k] * t[k][j]).sum();
        }
    }
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = (0..3).map(|k| rt[i][k] * r[j][k]).sum();
        }
    }
    out
}

/// `v / |v|` (`None`: zero or not finite).
fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let n = dot(v, v).sqrt();
    (n.is_finite() && n > 0.0).then(|| v.map(|x| x / n))
}

/// The shortest turn of the z axis onto the unit vector `z` (MuJoCo's
/// `zaxis`): about `e_z x z`, or x when they are parallel.
fn z_to(z: [f64; 3]) -> [f64; 4] {
    let axis = [-z[1], z[0], 0.0];
    let s = dot(axis, axis).sqrt();
    let axis = if s < 1e-14 {
        [1.0, 0.0, 0.0]
    } else {
        axis.map(|x| x / s)
    };
    let half = 0.5 * s.atan2(z[2]);
    let sin = half.sin();
    [half.cos(), axis[0] * sin, axis[1] * sin, axis[2] * sin]
}

/// How an element is named in errors: its parent's path, then
/// `tag[name]`, `tag[i]` among same-tag siblings, or `tag`.
fn label(node: Node, parent: &str) -> String {
    let tag = node.tag_name().name();
    let step = match node.attribute("name") {
        Some(name) if !name.is_empty() => format!("{tag}[{name}]"),
        _ => {
            let same = |n: &Node| n.is_element() && n.tag_name().name() == tag;
            let before = node.prev_siblings().skip(1).filter(same).count();
            let after = node.next_siblings().skip(1).filter(same).count();
            if before + after == 0 {
                tag.to_string()
            } else {
                format!("{tag}[{before}]")
            }
        }
    };
    if parent.is_empty() {
        step
    } else {
        format!("{parent}/{step}")
    }
}

/// Whether the elements of `text` nest deeper than `limit`: a scan of the
/// tags alone (comments, CDATA, processing instructions and declarations
/// skipped, quoted attribute values read past), before the XML parser.
fn nests_deeper_than(text: &str, limit: usize) -> bool {
    let b = text.as_bytes();
    // The index just past the first `pattern` from `from` (or the end).
    let past = |from: usize, pattern: &[u8]| {
        b[from.min(b.len())..]
            .windows(pattern.len())
            .position(|w| w == pattern)
            .map_or(b.len(), |k| from + k + pattern.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(k) = b[i..].iter().position(|&c| c == b'<') {
        i += k;
        let rest = &b[i..];
        i = if rest.starts_with(b"<!--") {
            past(i + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            past(i + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            past(i + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            past(i + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            past(i + 2, b">")
        } else {
            let mut j = i + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, b'"' | b'\'') => quote = Some(b[j]),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if !(j < b.len() && b[j - 1] == b'/') {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            j + 1
        };
        if i >= b.len() {
            break;
        }
    }
    false
}

/// Refuses an element nested more than [`MAX_DEPTH`] deep (its path's
/// steps).
fn too_deep(key: &str) -> Result<()> {
    if key.matches('/').count() > MAX_DEPTH {
        let short: String = key.chars().take(60).collect();
        return Err(SceneError::new(
            format!("{short}..."),
            format!("nested more than {MAX_DEPTH} deep: not supported"),
        ));
    }
    Ok(())
}

/// An element outside the subset, inside the element `parent`.
fn refused(node: Node, parent: &str) -> SceneError {
    let tag = node.tag_name().name();
    let why = match tag {
        "actuator" | "motor" | "position" | "velocity" | "general" => "actuators are not supported",
        "tendon" | "spatial" | "fixed" => "tendons are not supported",
        "equality" => "equality constraints are not supported",
        "contact" | "pair" | "exclude" => "contact pairs and exclusions are not supported",
        "include" => "included files are not supported",
        "flag" => "option flags are not supported",
        _ => "not supported by the MJCF import",
    };
    SceneError::new(label(node, parent), format!("<{tag}>: {why}"))
}

fn attr_err(key: &str, attr: &str, message: impl Into<String>) -> SceneError {
    SceneError::new(format!("{key}.{attr}"), message)
}

/// Refuses an attribute of `node` not in `allowed`.
fn only(node: Node, key: &str, allowed: &[&str]) -> Result<()> {
    match node.attributes().find(|a| !allowed.contains(&a.name())) {
        Some(a) => Err(unsupported(key, a.name())),
        None => Ok(()),
    }
}

/// [`only`] on attributes merged with a class's.
fn only_of(attrs: &BTreeMap<String, String>, key: &str, allowed: &[&str]) -> Result<()> {
    match attrs.keys().find(|a| !allowed.contains(&a.as_str())) {
        Some(a) => Err(unsupported(key, a)),
        None => Ok(()),
    }
}

fn unsupported(key: &str, attr: &str) -> SceneError {
    let why = match attr {
        "solref" | "solimp" | "solmix" | "margin" | "gap" | "priority" => {
            "MuJoCo's soft contacts are not supported (contacts are rigid here)"
        }
        "damping" | "stiffness" | "armature" | "frictionloss" | "springref" => {
            "joint dynamics are not supported"
        }
        _ => "not supported by the MJCF import",
    };
    attr_err(key, attr, why)
}

/// `node`'s attributes by name.
fn attribute_map(node: Node) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    merge(&mut out, node);
    out
}

/// `node`'s attributes over those of `into` (all but `class`, which
/// names the class rather than being one of its values).
fn merge(into: &mut BTreeMap<String, String>, node: Node) {
    for a in node.attributes() {
        if a.name() != "class" {
            into.insert(a.name().to_string(), a.value().to_string());
        }
    }
}

/// The finite numbers of an attribute's text, blank-separated.
fn list(text: &str, key: &str, attr: &str) -> Result<Vec<f64>> {
    text.split_whitespace()
        .map(|word| match word.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(attr_err(
                key,
                attr,
                format!("{word:?} is not a finite number"),
            )),
        })
        .collect()
}

/// Exactly `N` numbers.
fn numbers<const N: usize>(text: &str, key: &str, attr: &str) -> Result<[f64; N]> {
    let values = list(text, key, attr)?;
    <[f64; N]>::try_from(values.as_slice()).map_err(|_| {
        attr_err(
            key,
            attr,
            format!("expected {N} numbers, found {}", values.len()),
        )
    })
}

fn number(node: Node, key: &str, attr: &str) -> Result<Option<f64>> {
    node.attribute(attr)
        .map(|text| numbers::<1>(text, key, attr).map(|[x]| x))
        .transpose()
}

fn vector<const N: usize>(node: Node, key: &str, attr: &str) -> Result<Option<[f64; N]>> {
    node.attribute(attr)
        .map(|text| numbers::<N>(text, key, attr))
        .transpose()
}

fn number_of(attrs: &BTreeMap<String, String>, key: &str, attr: &str) -> Result<Option<f64>> {
    attrs
        .get(attr)
        .map(|text| numbers::<1>(text, key, attr).map(|[x]| x))
        .transpose()
}

fn vector_of(attrs: &BTreeMap<String, String>, key: &str, attr: &str) -> Result<Option<[f64; 3]>> {
    attrs
        .get(attr)
        .map(|text| numbers::<3>(text, key, attr))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(inner: &str) -> String {
        format!(
            r#"<mujoco><worldbody><body name="b" pos="0 0 1"><freejoint/>{inner}</body></worldbody></mujoco>"#
        )
    }

    #[test]
    fn euler_angles_follow_mujocos_sequence() {
        let scene = parse_mjcf(
            &body(r#"<geom type="box" size="1 1 1" euler="0 20 0"/>"#),
            1.0,
        )
        .unwrap();
        let half = 10f64.to_radians();
        let q = scene.bodies[0].orientation;
        let want = [half.cos(), 0.0, half.sin(), 0.0];
        assert!((0..4).all(|i| (q[i] - want[i]).abs() < 1e-15), "{q:?}");
    }

    #[test]
    fn fromto_gives_the_capsules_frame() {
        let scene = parse_mjcf(
            &body(r#"<geom type="capsule" size="0.1" fromto="0 0 0 1 0 0" mass="1"/>"#),
            1.0,
        )
        .unwrap();
        let b = &scene.bodies[0];
        assert_eq!(
            b.shape,
            Some(Shape::Capsule {
                half_length: 0.5,
                radius: 0.1
            })
        );
        assert!((b.position[0] - 0.5).abs() < 1e-15 && (b.position[2] - 1.0).abs() < 1e-15);
        // The body's z axis is the world's x.
        let r = matrix(b.orientation);
        assert!((r[0][2] - 1.0).abs() < 1e-15, "{r:?}");
    }

    #[test]
    fn density_gives_the_mass() {
        let scene = parse_mjcf(&body(r#"<geom type="box" size="0.1 0.1 0.1"/>"#), 1.0).unwrap();
        let SpatialKind::Rigid { mass, .. } = scene.bodies[0].kind else {
            panic!()
        };
        assert!((mass - 8.0).abs() < 1e-12, "{mass}");
    }

    /// Deep nesting is one line, not a stack overflow (the XML parser
    /// reads it without recursion).
    #[test]
    fn deep_nesting_is_refused() {
        let n = 100_000;
        let text = format!(
            "<mujoco><worldbody>{}{}</worldbody></mujoco>",
            "<body>".repeat(n),
            "</body>".repeat(n)
        );
        let err = parse_mjcf(&text, 1.0).unwrap_err().to_string();
        assert_eq!(
            err,
            "mjcf: elements nested more than 1000 deep are not supported"
        );
        let n = 300;
        let text = format!(
            "<mujoco><worldbody>{}{}</worldbody></mujoco>",
            "<body>".repeat(n),
            "</body>".repeat(n)
        );
        let err = parse_mjcf(&text, 1.0).unwrap_err().to_string();
        assert!(
            err.ends_with("nested more than 200 deep: not supported"),
            "{err}"
        );
        // Self-closing tags, comments and quoted '>' do not nest.
        let flat = format!(
            "<mujoco>{}</mujoco>",
            "<a x=\"></b>\"/><!-- <c> --><?p <d>?>".repeat(5000)
        );
        assert!(!nests_deeper_than(&flat, 2));
        let text = format!(
            "<mujoco>{}{}</mujoco>",
            "<default class=\"c\">".repeat(n),
            "</default>".repeat(n)
        );
        assert!(parse_mjcf(&text, 1.0).is_err());
    }

    /// The five ways to give an orientation agree on a quarter turn
    /// about x (y onto z), angles in radians.
    #[test]
    fn the_orientations_agree() {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        for attr in [
            r#"quat="2 2 0 0""#,
            r#"axisangle="3 0 0 1.5707963267948966""#,
            r#"euler="1.5707963267948966 0 0""#,
            r#"xyaxes="1 0 0 0 0 1""#,
        ] {
            let text = format!(
                r#"<mujoco><compiler angle="radian"/><worldbody><body name="b" {attr}>
                   <freejoint/><geom type="box" size="1 2 3"/></body></worldbody></mujoco>"#
            );
            let q = parse_mjcf(&text, 1.0).unwrap().bodies[0].orientation;
            let want = [s, s, 0.0, 0.0];
            assert!(
                (0..4).all(|i| (q[i] - want[i]).abs() < 1e-15),
                "{attr}: {q:?}"
            );
        }
        // zaxis: the shortest turn of z onto -y is a quarter turn about x.
        let text = r#"<mujoco><worldbody><body name="b" zaxis="0 -1 0"><freejoint/>
            <geom size="1"/></body></worldbody></mujoco>"#;
        let q = parse_mjcf(text, 1.0).unwrap().bodies[0].orientation;
        assert!(
            (q[0] - s).abs() < 1e-15 && (q[1] - s).abs() < 1e-15,
            "{q:?}"
        );
        // Upper case: about the fixed axes, the last turn applied last.
        let text = r#"<mujoco><compiler eulerseq="XYZ"/><worldbody><body name="b"
            euler="90 0 90"><freejoint/><geom size="1"/></body></worldbody></mujoco>"#;
        let q = parse_mjcf(text, 1.0).unwrap().bodies[0].orientation;
        let want = mul([s, 0.0, 0.0, s], [s, s, 0.0, 0.0]);
        assert!((0..4).all(|i| (q[i] - want[i]).abs() < 1e-15), "{q:?}");
    }

    /// Static bodies nest their frames; their geoms are fixed bodies named
    /// by the geom, or `geomK`; a moving body without a name is `bodyK`.
    #[test]
    fn static_frames_compose_and_names_are_given() {
        let text = r#"<mujoco><worldbody>
            <body pos="1 0 0" euler="0 0 90"><body pos="1 0 0">
              <geom type="box" size="1 1 1" pos="0 0 1"/>
              <geom name="post" type="cylinder" size="0.1 1"/>
            </body></body>
            <body pos="0 0 5"><freejoint/><geom size="0.5"/></body>
          </worldbody></mujoco>"#;
        let scene = parse_mjcf(text, 1.0).unwrap();
        let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["geom0", "post", "body0"]);
        let p = scene.bodies[0].position;
        let want = [1.0, 1.0, 1.0];
        assert!((0..3).all(|i| (p[i] - want[i]).abs() < 1e-15), "{p:?}");
        assert_eq!(scene.bodies[0].kind, SpatialKind::Fixed);
    }

    /// An inertial gives the mass and the tensor: without a geom, the
    /// body sits at its pos, axes kept; with one, at the geom's centre,
    /// the tensor turned into the geom's frame. Turned by 90 degrees about
    /// z either way, the moments of x and y swap.
    #[test]
    fn an_inertial_gives_the_mass_and_the_turned_tensor() {
        for (inner, position) in [
            (
                r#"<inertial pos="0.1 0 0" mass="3" diaginertia="1 2 3" euler="0 0 90"/>"#,
                [0.1, 0.0, 1.0],
            ),
            (
                r#"<inertial pos="0 0 0.5" mass="3" diaginertia="1 2 3"/>
                   <geom type="box" size="1 1 1" pos="0 0 0.5" euler="0 0 90"/>"#,
                [0.0, 0.0, 1.5],
            ),
        ] {
            let scene = parse_mjcf(&body(inner), 1.0).unwrap();
            let b = &scene.bodies[0];
            assert_eq!(b.position, position);
            let SpatialKind::Rigid {
                mass,
                inertia: Some(t),
            } = &b.kind
            else {
                panic!("{b:?}")
            };
            assert_eq!(*mass, 3.0);
            let want = [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]];
            for i in 0..3 {
                for j in 0..3 {
                    assert!((t[i][j] - want[i][j]).abs() < 1e-12, "{inner}: {t:?}");
                }
            }
        }
    }

    #[test]
    fn classes_nest_and_childclass_applies() {
        let text = r#"<mujoco>
          <default><geom friction="0.3"/>
            <default class="big"><geom type="box" size="1 1 1"/></default>
          </default>
          <worldbody><body name="b" childclass="big"><freejoint/><geom mass="1"/></body></worldbody>
        </mujoco>"#;
        let scene = parse_mjcf(text, 1.0).unwrap();
        let b = &scene.bodies[0];
        assert_eq!(b.friction, 0.3);
        assert_eq!(
            b.shape,
            Some(Shape::Box {
                half_extents: [1.0; 3]
            })
        );
    }

    /// Where a scene joint's anchor `k` is in the world, and its axis.
    fn world_anchor(scene: &SpatialScene, j: usize, k: usize) -> [f64; 3] {
        let joint = &scene.joints[j];
        match joint.bodies[k] {
            None => joint.anchors[k],
            Some(b) => {
                let body = &scene.bodies[b];
                let p = apply(&matrix(body.orientation), joint.anchors[k]);
                [0, 1, 2].map(|i| body.position[i] + p[i])
            }
        }
    }

    fn near(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12)
    }

    /// Turned bodies, geoms off their bodies' origins: each joint's two
    /// anchors meet at its pos in the world, the parent first (ground for
    /// a static parent), the axis turned into the parent's scene frame; a
    /// body without joints inside a moving body is welded to it.
    #[test]
    fn joints_map_onto_the_scenes_frames() {
        let text = r#"<mujoco><compiler angle="radian"/><worldbody>
            <body name="stand" pos="0 0 1" euler="0 0 0.5">
              <body name="arm" pos="1 0 0" euler="0.3 0 0">
                <joint name="shoulder" pos="-1 0 0" axis="0 1 1"/>
                <geom type="box" size="1 0.1 0.1" pos="0.2 0 0" euler="0 0 0.4"/>
                <body name="hand" pos="1 0 0" euler="0 0.7 0">
                  <joint name="wrist" type="ball" pos="0 0 0.1"/>
                  <geom type="sphere" size="0.1" pos="0 0.05 0"/>
                  <body name="finger" pos="0.2 0 0">
                    <joint name="slide" type="slide" axis="1 0 0"/>
                    <geom type="capsule" size="0.02 0.05" zaxis="1 0 0"/>
                    <body name="nail" pos="0.1 0 0"><geom type="box" size="0.01 0.01 0.01"/></body>
                  </body>
                </body>
              </body>
            </body>
          </worldbody></mujoco>"#;
        let scene = parse_mjcf(text, 1.0).unwrap();
        let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["arm", "hand", "finger", "nail"]);
        let bodies: Vec<_> = scene.joints.iter().map(|j| j.bodies).collect();
        assert_eq!(
            bodies,
            [
                [None, Some(0)],
                [Some(0), Some(1)],
                [Some(1), Some(2)],
                [Some(2), Some(3)]
            ]
        );
        // The MJCF frames in the world, the joints' points and axes.
        let (c, s) = (0.25f64.cos(), 0.25f64.sin());
        let stand = Pose {
            position: [0.0, 0.0, 1.0],
            orientation: [c, 0.0, 0.0, s],
        };
        let turn = |axis: usize, angle: f64| {
            let mut q = [(0.5 * angle).cos(), 0.0, 0.0, 0.0];
            q[1 + axis] = (0.5 * angle).sin();
            q
        };
        let at = |position: [f64; 3], orientation: [f64; 4]| Pose {
            position,
            orientation,
        };
        let arm = compose(&stand, at([1.0, 0.0, 0.0], turn(0, 0.3)));
        let hand = compose(&arm, at([1.0, 0.0, 0.0], turn(1, 0.7)));
        let finger = compose(&hand, at([0.2, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]));
        let point =
            |frame: &Pose, p: [f64; 3]| compose(frame, at(p, [1.0, 0.0, 0.0, 0.0])).position;
        let points = [
            point(&arm, [-1.0, 0.0, 0.0]),
            point(&hand, [0.0, 0.0, 0.1]),
            point(&finger, [0.0, 0.0, 0.0]),
            scene.bodies[3].position,
        ];
        for (j, want) in points.iter().enumerate() {
            for k in 0..2 {
                let got = world_anchor(&scene, j, k);
                assert!(near(got, *want), "joint {j} end {k}: {got:?} vs {want:?}");
            }
        }
        let r = std::f64::consts::FRAC_1_SQRT_2;
        let SpatialJointKind::Hinge { axis } = scene.joints[0].kind else {
            panic!("{:?}", scene.joints[0])
        };
        // Ground: the axis in the world.
        assert!(near(axis, apply(&matrix(arm.orientation), [0.0, r, r])));
        assert_eq!(scene.joints[1].kind, SpatialJointKind::Ball);
        let SpatialJointKind::Slider { axis } = scene.joints[2].kind else {
            panic!("{:?}", scene.joints[2])
        };
        // In the hand's scene frame.
        let world = apply(&matrix(scene.bodies[1].orientation), axis);
        assert!(near(
            world,
            apply(&matrix(finger.orientation), [1.0, 0.0, 0.0])
        ));
        assert_eq!(scene.joints[3].kind, SpatialJointKind::Weld);
        assert_eq!(scene.joints[3].anchors[1], [0.0; 3]);
        scene.model().unwrap();
    }

    /// Neutral joint attributes are read past; a range is read past when
    /// the joint is not limited.
    #[test]
    fn neutral_joint_attributes_are_read_past() {
        let text = r#"<mujoco><default><joint damping="0" armature="0"/></default><worldbody>
            <body name="b"><joint type="slide" stiffness="0" frictionloss="0" springref="0"
              ref="0" limited="false" range="-1 1"/><geom size="0.1"/></body>
          </worldbody></mujoco>"#;
        let scene = parse_mjcf(text, 1.0).unwrap();
        assert_eq!(
            scene.joints[0].kind,
            SpatialJointKind::Slider {
                axis: [0.0, 0.0, 1.0]
            }
        );
    }
}
