//! The reader: compiler options, defaults and classes, the body tree with
//! its joints, geoms, sites and mass, then tendons, actuators,
//! equalities, exclusions and keyframes, in MuJoCo's orders.

use std::collections::{BTreeSet, HashMap};

use zwang_core::rotation::{apply, apply_transpose, conjugate, matrix, mul, normalized};
use zwang_geometry::spatial::{Pose, Shape};
use zwang_model::articulated::{
    Actuator, Articulated, Equality, Geom, JointPhysics, Keyframe, Site, Tendon, TendonPath,
    Transmission,
};
use zwang_tree::{Body, Joint, JointKind, Tree, Workspace};

use crate::attrs::{self, Kind};
use crate::error::{MjcfError, Result};
use crate::frames::{combine, eigen, from_eigen, transform, z_to, Angles, Mat3, Piece, Solid};
use crate::xml::{count, integer, list, numbers, some_numbers, word, Element};
use crate::MjcfModel;

/// MuJoCo's `option timestep` when the file gives none, s.
pub const TIMESTEP: f64 = 0.002;
/// MuJoCo's gravity when the file gives none, m/s².
const GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];
/// MuJoCo's geom `density` when the file gives none, kg/m³.
const DENSITY: f64 = 1000.0;
/// Geoms lighter than this add nothing to their body (MuJoCo's `mjEPS`).
const TINY_MASS: f64 = 1e-14;
/// The least mass and principal moment of a body with joints (MuJoCo's
/// `mjMINVAL`), unless a body welded below it has them.
const MIN_VALUE: f64 = 1e-15;
/// The deepest nesting of bodies or classes read.
const MAX_DEPTH: usize = 200;

/// `inertiafromgeom`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum FromGeom {
    True,
    False,
    Auto,
}

/// `limited`: `true`, `false` or `auto` (by `autolimits`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Limited {
    True,
    False,
    Auto,
}

/// An actuator's parameters as MuJoCo's defaults hold them: the shortcuts
/// (`motor`, `position`, `velocity`) set MuJoCo's general parameters, in
/// a default class as on an element.
#[derive(Debug, Clone)]
struct ActuatorState {
    gear: [f64; 6],
    ctrlrange: [f64; 2],
    ctrllimited: Limited,
    forcerange: [f64; 2],
    forcelimited: Limited,
    actlimited: Limited,
    actrange: [f64; 2],
    gaintype: String,
    biastype: String,
    dyntype: String,
    gainprm: [f64; 10],
    biasprm: [f64; 10],
}

impl Default for ActuatorState {
    fn default() -> Self {
        let mut gainprm = [0.0; 10];
        gainprm[0] = 1.0;
        ActuatorState {
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ctrlrange: [0.0; 2],
            ctrllimited: Limited::Auto,
            forcerange: [0.0; 2],
            forcelimited: Limited::Auto,
            actlimited: Limited::Auto,
            actrange: [0.0; 2],
            gaintype: "fixed".into(),
            biastype: "none".into(),
            dyntype: "none".into(),
            gainprm,
            biasprm: [0.0; 10],
        }
    }
}

/// A default class: attribute values per element kind, and the
/// actuators' parameters.
#[derive(Debug, Clone, Default)]
struct Class {
    values: HashMap<&'static str, Vec<(String, String)>>,
    actuator: ActuatorState,
}

/// An element's attributes over its class's.
struct Attrs<'a> {
    path: &'a str,
    values: Vec<(String, String)>,
}

impl<'a> Attrs<'a> {
    /// The element's own attributes, without its class's.
    fn own(e: &'a Element) -> Attrs<'a> {
        Attrs {
            path: &e.path,
            values: e.attrs.clone(),
        }
    }

    /// The two elements an equality couples: `key1`'s (required) and
    /// `key2`'s (optional), each found by `named(name, key)`.
    fn pair<T>(
        &self,
        [key1, key2]: [&str; 2],
        named: impl Fn(&str, &str) -> Result<T>,
    ) -> Result<(T, Option<T>)> {
        let first = self
            .get(key1)
            .ok_or_else(|| MjcfError::attr(self.path, key1, "missing"))?;
        let first = named(first, key1)?;
        Ok((first, self.get(key2).map(|n| named(n, key2)).transpose()?))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn number(&self, name: &str) -> Result<Option<f64>> {
        self.get(name)
            .map(|t| numbers::<1>(t, self.path, name).map(|[x]| x))
            .transpose()
    }

    fn vector<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>> {
        self.get(name)
            .map(|t| numbers::<N>(t, self.path, name))
            .transpose()
    }

    /// A number `>= 0` (default `default`).
    fn non_negative(&self, name: &str, default: f64) -> Result<f64> {
        let x = self.number(name)?.unwrap_or(default);
        if x < 0.0 {
            return Err(MjcfError::attr(self.path, name, "must be >= 0"));
        }
        Ok(x)
    }

    fn limited(&self, name: &str) -> Result<Limited> {
        Ok(match self.get(name) {
            None => Limited::Auto,
            Some(t) => match word(t, self.path, name, &["true", "false", "auto"])? {
                "true" => Limited::True,
                "false" => Limited::False,
                _ => Limited::Auto,
            },
        })
    }

    fn boolean(&self, name: &str, default: bool) -> Result<bool> {
        Ok(match self.get(name) {
            None => default,
            Some(t) => word(t, self.path, name, &["true", "false"])? == "true",
        })
    }
}

/// What the reader knows of a joint besides the tree's.
struct JointInfo {
    scalar: bool,
    qadr: usize,
}

pub(crate) struct Reader {
    angles: Angles,
    autolimits: bool,
    from_geom: FromGeom,
    total_mass: f64,
    bound_mass: f64,
    bound_inertia: f64,
    balance_inertia: bool,
    inertia_groups: [i64; 2],
    classes: HashMap<String, Class>,
    ignored: BTreeSet<String>,
    gravity: [f64; 3],
    timestep: f64,
    integrator: String,
    contact: bool,
    flags: Flags,
    bodies: Vec<Body>,
    body_names: Vec<String>,
    /// Each body's element path, for errors.
    body_paths: Vec<String>,
    /// Whether each body's mass and principal moments reach MuJoCo's
    /// `mjMINVAL`.
    body_weighs: Vec<bool>,
    body_lookup: HashMap<String, usize>,
    joints: Vec<JointPhysics>,
    joint_info: Vec<JointInfo>,
    joint_lookup: HashMap<String, usize>,
    geoms: Vec<Geom>,
    sites: Vec<Site>,
    site_lookup: HashMap<String, usize>,
    tendons: Vec<Tendon>,
    tendon_lookup: HashMap<String, usize>,
    nq: usize,
}

/// `option/flag` settings that change what is read.
#[derive(Debug, Clone, Copy)]
struct Flags {
    constraint: bool,
    equality: bool,
    frictionloss: bool,
    limit: bool,
    spring: bool,
    damper: bool,
    gravity: bool,
    clampctrl: bool,
}

impl Reader {
    pub(crate) fn new() -> Reader {
        Reader {
            angles: Angles {
                unit: std::f64::consts::PI / 180.0,
                eulerseq: *b"xyz",
            },
            autolimits: true,
            from_geom: FromGeom::Auto,
            total_mass: -1.0,
            bound_mass: 0.0,
            bound_inertia: 0.0,
            balance_inertia: false,
            inertia_groups: [0, 5],
            classes: HashMap::from([("main".to_string(), Class::default())]),
            ignored: BTreeSet::new(),
            gravity: GRAVITY,
            timestep: TIMESTEP,
            integrator: "Euler".into(),
            contact: true,
            flags: Flags {
                constraint: true,
                equality: true,
                frictionloss: true,
                limit: true,
                spring: true,
                damper: true,
                gravity: true,
                clampctrl: true,
            },
            bodies: Vec::new(),
            body_names: Vec::new(),
            body_paths: Vec::new(),
            body_weighs: Vec::new(),
            body_lookup: HashMap::new(),
            joints: Vec::new(),
            joint_info: Vec::new(),
            joint_lookup: HashMap::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            site_lookup: HashMap::new(),
            tendons: Vec::new(),
            tendon_lookup: HashMap::new(),
            nq: 0,
        }
    }

    /// Reads the `<mujoco>` element.
    pub(crate) fn read(mut self, root: &Element) -> Result<MjcfModel> {
        if let Some((a, _)) = root.attrs.iter().find(|(a, _)| a != "model") {
            return Err(MjcfError::attr("mujoco", a, "unknown attribute"));
        }
        let tops = &root.children;
        for e in tops {
            match e.tag.as_str() {
                "compiler" => self.compiler(e)?,
                "option" => self.option(e)?,
                "worldbody" | "default" | "tendon" | "actuator" | "equality" | "contact"
                | "keyframe" => {}
                "size" | "visual" | "statistic" | "custom" | "sensor" => {}
                "asset" => asset(e)?,
                "extension" => return Err(refused(e, "plugins are not supported")),
                "deformable" => return Err(refused(e, "flex objects are not supported")),
                _ => return Err(MjcfError::new(&e.path, "unknown element")),
            }
        }
        for e in tops.iter().filter(|e| e.tag == "default") {
            self.default(e, None, 0)?;
        }
        for e in tops.iter().filter(|e| e.tag == "worldbody") {
            self.world(e)?;
        }
        self.check_moving_masses()?;
        let mut tree_bodies = std::mem::take(&mut self.bodies);
        self.finish_masses(&mut tree_bodies)?;
        let gravity = if self.flags.gravity {
            self.gravity
        } else {
            [0.0; 3]
        };
        let tree = Tree::new(tree_bodies, gravity)
            .map_err(|e| MjcfError::new("worldbody", e.to_string()))?;
        let mut ws = tree.workspace();
        let poses = body_poses(&tree, &mut ws, tree.qpos0())?;
        for e in tops.iter().filter(|e| e.tag == "tendon") {
            self.tendon_section(e)?;
        }
        // A spring's rest length, when not given, is the tendon's length
        // at the joints' spring references (MuJoCo's qpos_spring).
        let mut qpos_spring = tree.qpos0().to_vec();
        for (info, joint) in self.joint_info.iter().zip(&self.joints) {
            if info.scalar {
                qpos_spring[info.qadr] = joint.springref;
            }
        }
        let spring_poses = body_poses(&tree, &mut ws, &qpos_spring)?;
        for t in 0..self.tendons.len() {
            if self.tendons[t].springlength.is_none() {
                let length = self.tendon_length(t, &qpos_spring, &spring_poses);
                self.tendons[t].springlength = Some(length);
            }
        }
        let mut actuators = Vec::new();
        for e in tops.iter().filter(|e| e.tag == "actuator") {
            for a in &e.children {
                actuators.push(self.actuator(a, actuators.len())?);
            }
        }
        let mut equalities = Vec::new();
        for e in tops.iter().filter(|e| e.tag == "equality") {
            for q in &e.children {
                if let Some(eq) = self.equality(q, &tree, &poses)? {
                    equalities.push(eq);
                }
            }
        }
        let mut excluded = Vec::new();
        for e in tops.iter().filter(|e| e.tag == "contact") {
            for c in &e.children {
                excluded.push(self.exclude(c)?);
            }
        }
        let mut keyframes = Vec::new();
        for e in tops.iter().filter(|e| e.tag == "keyframe") {
            for k in &e.children {
                keyframes.push(self.key(k, &tree, actuators.len())?);
            }
        }
        // What the flags switch off.
        let f = self.flags;
        let mut contact = self.contact;
        if !f.constraint {
            contact = false;
            equalities.clear();
        }
        if !f.equality {
            equalities.clear();
        }
        for j in &mut self.joints {
            if !f.constraint || !f.limit {
                j.range = None;
            }
            if !f.constraint || !f.frictionloss {
                j.frictionloss = 0.0;
            }
            if !f.spring {
                j.stiffness = 0.0;
            }
            if !f.damper {
                j.damping = 0.0;
            }
        }
        for t in &mut self.tendons {
            if !f.constraint || !f.limit {
                t.range = None;
            }
            if !f.spring {
                t.stiffness = 0.0;
            }
            if !f.damper {
                t.damping = 0.0;
            }
        }
        if !f.clampctrl {
            for a in &mut actuators {
                a.ctrlrange = None;
            }
        }
        let model = Articulated {
            tree,
            joints: self.joints,
            geoms: self.geoms,
            sites: self.sites,
            tendons: self.tendons,
            actuators,
            equalities,
            excluded,
            contact,
            timestep: self.timestep,
            keyframes,
        };
        Ok(MjcfModel {
            model,
            ignored: self.ignored.into_iter().collect(),
            body_names: self.body_names,
            name: root.get("model").unwrap_or("MuJoCo Model").to_string(),
            integrator: self.integrator,
        })
    }

    fn compiler(&mut self, e: &Element) -> Result<()> {
        let p = e.path.as_str();
        for (a, v) in &e.attrs {
            let a = a.as_str();
            match a {
                "angle" => {
                    self.angles.unit = match word(v, p, a, &["degree", "radian"])? {
                        "degree" => std::f64::consts::PI / 180.0,
                        _ => 1.0,
                    }
                }
                "coordinate" => {
                    if word(v, p, a, &["local", "global"])? == "global" {
                        return Err(MjcfError::attr(
                            p,
                            a,
                            "global coordinates are not supported (MuJoCo 3 removed them)",
                        ));
                    }
                }
                "eulerseq" => {
                    let b = v.as_bytes();
                    let ok = b.len() == 3
                        && b.iter()
                            .all(|c| matches!(c.to_ascii_lowercase(), b'x' | b'y' | b'z'));
                    if !ok {
                        return Err(MjcfError::attr(
                            p,
                            a,
                            "must be three of x, y, z (upper case: fixed axes)",
                        ));
                    }
                    self.angles.eulerseq = [b[0], b[1], b[2]];
                }
                "inertiafromgeom" => {
                    self.from_geom = match word(v, p, a, &["true", "false", "auto"])? {
                        "true" => FromGeom::True,
                        "false" => FromGeom::False,
                        _ => FromGeom::Auto,
                    }
                }
                "settotalmass" => self.total_mass = numbers::<1>(v, p, a)?[0],
                "autolimits" => self.autolimits = word(v, p, a, &["true", "false"])? == "true",
                "boundmass" => self.bound_mass = non_negative(v, p, a)?,
                "boundinertia" => self.bound_inertia = non_negative(v, p, a)?,
                "balanceinertia" => {
                    self.balance_inertia = word(v, p, a, &["true", "false"])? == "true"
                }
                "inertiagrouprange" => {
                    let [lo, hi] = numbers::<2>(v, p, a)?;
                    self.inertia_groups = [lo as i64, hi as i64];
                }
                "meshdir" | "texturedir" | "assetdir" | "strippath" | "usethread"
                | "exactmeshinertia" | "fitaabb" | "saveinertial" => {}
                "discardvisual" | "fusestatic" | "alignfree" => {
                    if word(v, p, a, &["true", "false"])? == "true" {
                        return Err(MjcfError::attr(p, a, "\"true\" is not supported (refused)"));
                    }
                }
                _ => return Err(MjcfError::attr(p, a, "unknown attribute")),
            }
        }
        for c in &e.children {
            if c.tag != "lengthrange" {
                return Err(MjcfError::new(&c.path, "unknown element"));
            }
        }
        Ok(())
    }

    fn option(&mut self, e: &Element) -> Result<()> {
        let p = e.path.as_str();
        for (a, v) in &e.attrs {
            let a = a.as_str();
            match a {
                "timestep" => {
                    let h = numbers::<1>(v, p, a)?[0];
                    if h <= 0.0 {
                        return Err(MjcfError::attr(p, a, "must be > 0"));
                    }
                    self.timestep = h;
                }
                "gravity" => self.gravity = numbers::<3>(v, p, a)?,
                "integrator" => {
                    self.integrator =
                        word(v, p, a, &["Euler", "RK4", "implicit", "implicitfast"])?.into()
                }
                "density" | "viscosity" => {
                    if numbers::<1>(v, p, a)?[0] != 0.0 {
                        return Err(MjcfError::attr(
                            p,
                            a,
                            "fluid forces are not supported (refused)",
                        ));
                    }
                }
                "wind" | "magnetic" | "apirate" | "actuatorgroupdisable" => {}
                "impratio" | "tolerance" | "ls_tolerance" | "noslip_tolerance"
                | "ccd_tolerance" | "cone" | "jacobian" | "solver" | "iterations"
                | "ls_iterations" | "noslip_iterations" | "ccd_iterations" | "sdf_iterations"
                | "sdf_initpoints" | "o_margin" | "o_solref" | "o_solimp" | "o_friction" => {
                    self.ignored.insert(format!("option.{a}"));
                }
                _ => return Err(MjcfError::attr(p, a, "unknown attribute")),
            }
        }
        for c in &e.children {
            match c.tag.as_str() {
                "flag" => self.flag(c)?,
                _ => return Err(MjcfError::new(&c.path, "unknown element")),
            }
        }
        Ok(())
    }

    fn flag(&mut self, e: &Element) -> Result<()> {
        let p = e.path.as_str();
        for (a, v) in &e.attrs {
            let a = a.as_str();
            let on = word(v, p, a, &["enable", "disable"])? == "enable";
            let f = &mut self.flags;
            match a {
                "contact" => self.contact = on,
                "constraint" => f.constraint = on,
                "equality" => f.equality = on,
                "frictionloss" => f.frictionloss = on,
                "limit" => f.limit = on,
                "spring" => f.spring = on,
                "damper" => f.damper = on,
                "gravity" => f.gravity = on,
                "clampctrl" => f.clampctrl = on,
                "warmstart" | "energy" | "fwdinv" | "invdiscrete" | "sensor" | "midphase"
                | "nativeccd" | "island" | "eulerdamp" | "refsafe" | "autoreset" | "multiccd"
                | "sleep" => {}
                "override" => {
                    if on {
                        self.ignored.insert(format!("flag.{a}"));
                    }
                }
                "actuation" | "filterparent" | "passive" => {
                    if !on {
                        return Err(MjcfError::attr(
                            p,
                            a,
                            "\"disable\" is not supported (refused)",
                        ));
                    }
                }
                _ => return Err(MjcfError::attr(p, a, "unknown attribute")),
            }
        }
        Ok(())
    }

    /// A `<default>` element (its class, and those nested in it).
    fn default(&mut self, e: &Element, parent: Option<&str>, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(MjcfError::new(
                &e.path,
                format!("classes nested more than {MAX_DEPTH} deep"),
            ));
        }
        if let Some((a, _)) = e.attrs.iter().find(|(a, _)| a != "class") {
            return Err(MjcfError::attr(&e.path, a, "unknown attribute"));
        }
        let name = match (e.get("class"), parent) {
            (Some(c), _) => c.to_string(),
            (None, None) => "main".to_string(),
            (None, Some(_)) => {
                return Err(MjcfError::attr(
                    &e.path,
                    "class",
                    "a nested default needs a class",
                ))
            }
        };
        let mut class = match parent {
            Some(p) => self.classes[p].clone(),
            None => self.classes.get(&name).cloned().unwrap_or_default(),
        };
        if parent.is_some() && self.classes.contains_key(&name) {
            return Err(MjcfError::attr(
                &e.path,
                "class",
                format!("class {name:?} is defined twice"),
            ));
        }
        for c in e.children.iter().filter(|c| c.tag != "default") {
            let p = c.path.as_str();
            let kind: Option<&Kind> = match c.tag.as_str() {
                "joint" => Some(&attrs::JOINT),
                "geom" => Some(&attrs::GEOM),
                "site" => Some(&attrs::SITE),
                "tendon" => Some(&attrs::TENDON),
                "equality" => Some(&attrs::EQUALITY),
                "motor" | "position" | "velocity" | "general" => {
                    check_actuator(c, &mut self.ignored)?;
                    apply_actuator(&mut class.actuator, c)?;
                    None
                }
                "camera" | "light" | "material" | "mesh" | "pair" | "texture" => None,
                "intvelocity" | "damper" | "cylinder" | "muscle" | "adhesion" | "pid"
                | "orientation" | "dcmotor" => {
                    return Err(refused(
                        c,
                        "actuator dynamics or gains other than fixed are not supported",
                    ))
                }
                _ => return Err(MjcfError::new(p, "unknown element")),
            };
            if let Some(kind) = kind {
                attrs::check(kind, c, &mut self.ignored)?;
                if c.attrs.iter().any(|(a, _)| a == "class" || a == "name") {
                    return Err(MjcfError::new(p, "a default has no name or class"));
                }
                let values = class.values.entry(kind.name).or_default();
                values.extend(c.attrs.iter().cloned());
            }
        }
        self.classes.insert(name.clone(), class);
        for c in e.children.iter().filter(|c| c.tag == "default") {
            self.default(c, Some(&name), depth + 1)?;
        }
        Ok(())
    }

    /// An element's attributes over those of its class (`class` attribute,
    /// else the enclosing `childclass`, else `main`).
    fn attrs<'a>(&mut self, e: &'a Element, kind: &Kind, childclass: &str) -> Result<Attrs<'a>> {
        attrs::check(kind, e, &mut self.ignored)?;
        let class = self.class(e, childclass)?;
        let mut values = class.values.get(kind.name).cloned().unwrap_or_default();
        values.extend(e.attrs.iter().filter(|(a, _)| a != "class").cloned());
        Ok(Attrs {
            path: &e.path,
            values,
        })
    }

    fn class(&self, e: &Element, childclass: &str) -> Result<&Class> {
        let name = e.get("class").unwrap_or(childclass);
        self.classes
            .get(name)
            .ok_or_else(|| MjcfError::attr(&e.path, "class", format!("unknown class {name:?}")))
    }

    fn world(&mut self, e: &Element) -> Result<()> {
        if let Some((a, _)) = e.attrs.first() {
            return Err(MjcfError::attr(&e.path, a, "unknown attribute"));
        }
        for c in &e.children {
            match c.tag.as_str() {
                "geom" => {
                    self.geom(c, None, "main", false)?;
                }
                "site" => self.site(c, None, "main")?,
                "body" | "camera" | "light" => {}
                _ => return Err(self.body_child_error(c, true)),
            }
        }
        for c in e.children.iter().filter(|c| c.tag == "body") {
            self.body(c, None, "main", false, 1)?;
        }
        Ok(())
    }

    fn body_child_error(&self, c: &Element, world: bool) -> MjcfError {
        match c.tag.as_str() {
            "joint" | "freejoint" | "inertial" if world => {
                MjcfError::new(&c.path, "the world body has no joints or inertial")
            }
            "composite" | "flexcomp" => refused(c, "composites and flex objects are not supported"),
            "plugin" => refused(c, "plugins are not supported"),
            "frame" | "replicate" | "attach" => refused(c, "not supported yet"),
            _ => MjcfError::new(&c.path, "unknown element"),
        }
    }

    fn body(
        &mut self,
        e: &Element,
        parent: Option<usize>,
        childclass: &str,
        moving: bool,
        depth: usize,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(MjcfError::new(
                &e.path,
                format!("bodies nested more than {MAX_DEPTH} deep"),
            ));
        }
        let p = e.path.as_str();
        attrs::check(&attrs::BODY, e, &mut self.ignored)?;
        let own = Attrs::own(e);
        if own.boolean("mocap", false)? {
            return Err(MjcfError::attr(
                p,
                "mocap",
                "mocap bodies are not supported (refused)",
            ));
        }
        if own.number("gravcomp")?.unwrap_or(0.0) != 0.0 {
            return Err(MjcfError::attr(
                p,
                "gravcomp",
                "gravity compensation is not supported (refused)",
            ));
        }
        let childclass = match e.get("childclass") {
            Some(c) => {
                if !self.classes.contains_key(c) {
                    return Err(MjcfError::attr(
                        p,
                        "childclass",
                        format!("unknown class {c:?}"),
                    ));
                }
                c.to_string()
            }
            None => childclass.to_string(),
        };
        let index = self.bodies.len();
        let id = index + 1;
        let name = register(&mut self.body_lookup, e.get("name"), index, "body", p)?;
        // The tree's body is named as reports name it: MJCF's name, or
        // `body[id]`.
        let shown = name.unwrap_or_else(|| format!("body[{id}]"));
        let mut body = Body::new(shown.clone(), parent);
        body.position = own.vector::<3>("pos")?.unwrap_or([0.0; 3]);
        body.orientation = self.angles.orientation(|a| own.get(a), p)?;
        self.bodies.push(body);
        self.body_names.push(shown);
        self.body_paths.push(p.to_string());
        self.body_weighs.push(false);
        let joint_count = e
            .children
            .iter()
            .filter(|c| matches!(c.tag.as_str(), "joint" | "freejoint"))
            .count();
        let has_joints = joint_count > 0;
        let mut joints = Vec::new();
        let mut pieces = Vec::new();
        let mut inertial = None;
        for c in &e.children {
            match c.tag.as_str() {
                "joint" | "freejoint" => {
                    let alone = parent.is_none() && joint_count == 1;
                    joints.push(self.joint(c, &childclass, alone)?)
                }
                "geom" => {
                    let moves = moving || has_joints;
                    if let Some(piece) = self.geom(c, Some(index), &childclass, moves)? {
                        pieces.push((c, piece));
                    }
                }
                "site" => self.site(c, Some(index), &childclass)?,
                "inertial" => {
                    if inertial.is_some() {
                        return Err(MjcfError::new(&c.path, "a body has one <inertial> at most"));
                    }
                    inertial = Some(self.inertial(c)?);
                }
                "body" | "camera" | "light" => {}
                _ => return Err(self.body_child_error(c, false)),
            }
        }
        let moving = moving || !joints.is_empty();
        self.bodies[index].joints = joints;
        // The mass: MuJoCo's inertiafromgeom.
        let use_geoms = match self.from_geom {
            FromGeom::True => true,
            FromGeom::False => false,
            FromGeom::Auto => inertial.is_none(),
        };
        let groups = self.inertia_groups;
        let (mass, com, moments, axes) = if use_geoms {
            let chosen: Vec<Piece> = pieces
                .iter()
                .filter(|(c, piece)| {
                    let group = c
                        .get("group")
                        .and_then(|g| g.trim().parse::<i64>().ok())
                        .unwrap_or(0);
                    piece.mass > TINY_MASS && (groups[0]..=groups[1]).contains(&group)
                })
                .map(|(_, piece)| *piece)
                .collect();
            match chosen.as_slice() {
                [one] => (one.mass, one.centre, one.moments, matrix(one.orientation)),
                _ => {
                    let (m, c, tensor) = combine(&chosen);
                    let (d, v) = eigen(&tensor);
                    (m, c, d, v)
                }
            }
        } else {
            inertial.unwrap_or((0.0, [0.0; 3], [0.0; 3], matrix([1.0, 0.0, 0.0, 0.0])))
        };
        let mass = mass.max(self.bound_mass);
        let mut moments = moments.map(|m| m.max(self.bound_inertia));
        let [a, b, c] = moments;
        let slack = 1e-12 * (a + b + c);
        if a + b + slack < c || a + c + slack < b || b + c + slack < a {
            if self.balance_inertia {
                moments = [(a + b + c) / 3.0; 3];
            } else {
                return Err(MjcfError::new(
                    p,
                    "the principal moments of inertia break A + B >= C (compiler balanceinertia=\"true\" evens them)",
                ));
            }
        }
        let body = &mut self.bodies[index];
        body.mass = mass;
        body.com = com;
        body.inertia = from_eigen(moments, &axes);
        self.body_weighs[index] = mass >= MIN_VALUE && moments.iter().all(|&m| m >= MIN_VALUE);
        for c in e.children.iter().filter(|c| c.tag == "body") {
            self.body(c, Some(index), &childclass, moving, depth + 1)?;
        }
        Ok(())
    }

    /// `inertial`: mass, centre, principal moments and their axes.
    fn inertial(&mut self, e: &Element) -> Result<(f64, [f64; 3], [f64; 3], Mat3)> {
        let p = e.path.as_str();
        attrs::check(&attrs::INERTIAL, e, &mut self.ignored)?;
        let a = Attrs::own(e);
        let pos = a
            .vector::<3>("pos")?
            .ok_or_else(|| MjcfError::attr(p, "pos", "missing (an <inertial> needs it)"))?;
        let mass = a
            .number("mass")?
            .ok_or_else(|| MjcfError::attr(p, "mass", "missing (an <inertial> needs it)"))?;
        if mass < 0.0 {
            return Err(MjcfError::attr(p, "mass", "must be >= 0"));
        }
        let q = self.angles.orientation(|x| a.get(x), p)?;
        match (a.vector::<3>("diaginertia")?, a.vector::<6>("fullinertia")?) {
            (Some(d), None) => {
                if d.iter().any(|&x| x < 0.0) {
                    return Err(MjcfError::attr(p, "diaginertia", "must be >= 0"));
                }
                Ok((mass, pos, d, matrix(q)))
            }
            (None, Some(f)) => {
                if crate::frames::ORIENTATION
                    .iter()
                    .any(|o| a.get(o).is_some())
                {
                    return Err(MjcfError::attr(
                        p,
                        "fullinertia",
                        "and an orientation cannot both be given",
                    ));
                }
                let t = [[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]];
                let (d, v) = eigen(&t);
                if d.iter().any(|&x| x < 0.0) {
                    return Err(MjcfError::attr(
                        p,
                        "fullinertia",
                        "is not positive semidefinite",
                    ));
                }
                Ok((mass, pos, d, v))
            }
            (Some(_), Some(_)) => Err(MjcfError::attr(
                p,
                "fullinertia",
                "and diaginertia cannot both be given",
            )),
            (None, None) => Err(MjcfError::attr(
                p,
                "diaginertia",
                "missing (or fullinertia)",
            )),
        }
    }

    /// A joint of a body (`alone`: its only joint, and the body's parent
    /// is the world: where a free joint may be).
    fn joint(&mut self, e: &Element, childclass: &str, alone: bool) -> Result<Joint> {
        let index = self.joints.len();
        let p = e.path.as_str();
        let (a, kind) = if e.tag == "freejoint" {
            attrs::check(&attrs::FREEJOINT, e, &mut self.ignored)?;
            let a = Attrs::own(e);
            if a.get("align").is_some_and(|v| v == "true") {
                return Err(MjcfError::attr(
                    p,
                    "align",
                    "\"true\" is not supported (refused)",
                ));
            }
            (a, "free")
        } else {
            let a = self.attrs(e, &attrs::JOINT, childclass)?;
            let kind: &'static str = match a.get("type") {
                None => "hinge",
                Some(t) => match word(t, p, "type", &["hinge", "slide", "ball", "free"])? {
                    "slide" => "slide",
                    "ball" => "ball",
                    "free" => "free",
                    _ => "hinge",
                },
            };
            (a, kind)
        };
        if kind == "free" && !alone {
            return Err(MjcfError::new(
                p,
                "a free joint must be the only joint of a body whose parent is the world",
            ));
        }
        let name = register(&mut self.joint_lookup, e.get("name"), index, "joint", p)?;
        let name = name.unwrap_or_else(|| format!("joint[{index}]"));
        let pos = a.vector::<3>("pos")?.unwrap_or([0.0; 3]);
        let axis = a.vector::<3>("axis")?.unwrap_or([0.0, 0.0, 1.0]);
        let angular = matches!(kind, "hinge" | "ball");
        let to_rad = if angular { self.angles.unit } else { 1.0 };
        let scalar = matches!(kind, "hinge" | "slide");
        let reference =
            a.number("ref")?.unwrap_or(0.0) * if kind == "hinge" { to_rad } else { 1.0 };
        let springref =
            a.number("springref")?.unwrap_or(0.0) * if kind == "hinge" { to_rad } else { 1.0 };
        let stiffness = a.non_negative("stiffness", 0.0)?;
        if stiffness != 0.0 && !scalar {
            return Err(MjcfError::attr(
                p,
                "stiffness",
                "springs on ball and free joints are not supported (refused)",
            ));
        }
        let range = self.range(&a, "range", "limited", kind != "free")?;
        let range = match range {
            Some([lo, hi]) if kind == "ball" => {
                if lo != 0.0 {
                    return Err(MjcfError::attr(
                        p,
                        "range",
                        "a ball joint's range starts at 0",
                    ));
                }
                Some([0.0, hi * to_rad])
            }
            Some([lo, hi]) => Some([lo * to_rad, hi * to_rad]),
            None => None,
        };
        let joint = match kind {
            "hinge" | "slide" => {
                let axis = normalized(axis)
                    .ok_or_else(|| MjcfError::attr(p, "axis", "must be nonzero"))?;
                if kind == "hinge" {
                    Joint::hinge(name.clone(), axis, pos)
                } else {
                    Joint::slide(name.clone(), axis)
                }
            }
            "ball" => Joint::ball(name.clone(), pos),
            _ => Joint::free(name.clone()),
        };
        let joint = joint
            .with_armature(a.non_negative("armature", 0.0)?)
            .with_reference(reference);
        self.joints.push(JointPhysics {
            name,
            range,
            damping: a.non_negative("damping", 0.0)?,
            stiffness,
            springref,
            frictionloss: a.non_negative("frictionloss", 0.0)?,
        });
        self.joint_info.push(JointInfo {
            scalar,
            qadr: self.nq,
        });
        self.nq += joint.kind.nq();
        Ok(joint)
    }

    /// A range with its `limited` (MuJoCo's rule: `auto` is limited when
    /// `autolimits` is on and a range is given), in the file's units.
    fn range(
        &self,
        a: &Attrs,
        range: &str,
        limited: &str,
        can_limit: bool,
    ) -> Result<Option<[f64; 2]>> {
        let r = a.vector::<2>(range)?;
        let l = a.limited(limited)?;
        if !can_limit {
            return Ok(None);
        }
        let given = r.is_some_and(|r| r != [0.0, 0.0]);
        if l == Limited::Auto && given && !self.autolimits {
            return Err(MjcfError::attr(
                a.path,
                range,
                format!("is given without {limited} while compiler autolimits is false"),
            ));
        }
        let on = l == Limited::True || (l == Limited::Auto && given);
        let r = r.unwrap_or([0.0, 0.0]);
        if (on || given) && r[0] > r[1] {
            return Err(MjcfError::attr(
                a.path,
                range,
                format!("is reversed: {} > {}", r[0], r[1]),
            ));
        }
        if on && r[0] >= r[1] && limited == "limited" && a.get("type") != Some("ball") {
            return Err(MjcfError::attr(
                a.path,
                range,
                "must have range[0] < range[1] when limited",
            ));
        }
        Ok(on.then_some(r))
    }

    /// A geom: its shape (a collider) and its piece of the body's mass.
    fn geom(
        &mut self,
        e: &Element,
        body: Option<usize>,
        childclass: &str,
        moving: bool,
    ) -> Result<Option<Piece>> {
        let p = e.path.as_str();
        let a = self.attrs(e, &attrs::GEOM, childclass)?;
        let index = self.geoms.len();
        let kind = match a.get("type") {
            None => "sphere",
            Some(t) => {
                if matches!(t, "mesh" | "hfield" | "sdf") {
                    return Err(MjcfError::attr(
                        p,
                        "type",
                        format!("{t} geoms are not supported (refused)"),
                    ));
                }
                word(
                    t,
                    p,
                    "type",
                    &["plane", "sphere", "capsule", "cylinder", "box", "ellipsoid"],
                )?
            }
        };
        if a.boolean("shellinertia", false)? {
            return Err(MjcfError::attr(
                p,
                "shellinertia",
                "shell inertia is not supported (refused)",
            ));
        }
        if a.get("fluidshape").is_some_and(|v| v != "none") {
            return Err(MjcfError::attr(
                p,
                "fluidshape",
                "fluid forces are not supported (refused)",
            ));
        }
        let mut size = match a.get("size") {
            Some(t) => some_numbers::<3>(t, p, "size", [0.0; 3])?,
            None => [0.0; 3],
        };
        if size.iter().any(|&s| s < 0.0) {
            return Err(MjcfError::attr(p, "size", "must be >= 0"));
        }
        let mut pos = a.vector::<3>("pos")?.unwrap_or([0.0; 3]);
        let mut orientation = self.angles.orientation(|x| a.get(x), p)?;
        if let Some(t) = a.get("fromto") {
            let f = numbers::<6>(t, p, "fromto")?;
            if matches!(kind, "plane" | "sphere") {
                return Err(MjcfError::attr(
                    p,
                    "fromto",
                    format!("a {kind} has no fromto"),
                ));
            }
            if pos != [0.0; 3] {
                return Err(MjcfError::attr(p, "fromto", "and pos cannot both be given"));
            }
            // MuJoCo's frame: z from the second point towards the first.
            let d = [f[0] - f[3], f[1] - f[4], f[2] - f[5]];
            let z = normalized(d)
                .ok_or_else(|| MjcfError::attr(p, "fromto", "the two ends coincide"))?;
            let half = 0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            pos = [0, 1, 2].map(|k| 0.5 * (f[k] + f[k + 3]));
            orientation = z_to(z);
            match kind {
                "capsule" | "cylinder" => size[1] = half,
                // A box's or an ellipsoid's x and y half-sizes are both size[0].
                _ => size = [size[0], size[0], half],
            }
        }
        let need = |n: usize| -> Result<()> {
            if size[..n].iter().any(|&s| s <= 0.0) {
                return Err(MjcfError::attr(
                    p,
                    "size",
                    format!("a {kind} needs {n} sizes > 0"),
                ));
            }
            Ok(())
        };
        let (solid, shape) = match kind {
            "plane" => {
                if moving {
                    return Err(MjcfError::attr(
                        p,
                        "type",
                        "a plane is only allowed in a body that does not move",
                    ));
                }
                (
                    Solid::None,
                    Shape::Halfspace {
                        normal: [0.0, 0.0, 1.0],
                    },
                )
            }
            "sphere" => {
                need(1)?;
                (
                    Solid::Sphere { r: size[0] },
                    Shape::Sphere { radius: size[0] },
                )
            }
            "capsule" => {
                need(2)?;
                (
                    Solid::Capsule {
                        r: size[0],
                        h: size[1],
                    },
                    Shape::Capsule {
                        half_length: size[1],
                        radius: size[0],
                    },
                )
            }
            "cylinder" => {
                need(2)?;
                (
                    Solid::Cylinder {
                        r: size[0],
                        h: size[1],
                    },
                    Shape::Cylinder {
                        half_length: size[1],
                        radius: size[0],
                    },
                )
            }
            "box" => {
                need(3)?;
                (Solid::Box { a: size }, Shape::Box { half_extents: size })
            }
            _ => {
                need(3)?;
                (Solid::Ellipsoid { a: size }, ellipsoid_hull(size))
            }
        };
        let friction = match a.get("friction") {
            Some(t) => some_numbers::<3>(t, p, "friction", [1.0, 0.005, 0.0001])?,
            None => [1.0, 0.005, 0.0001],
        };
        if friction[0] < 0.0 {
            return Err(MjcfError::attr(p, "friction", "must be >= 0"));
        }
        let condim = match a.get("condim") {
            None => 3,
            Some(t) => match integer(t, p, "condim")? {
                c @ (1 | 3) => c as u8,
                c @ (4 | 6) => {
                    return Err(MjcfError::attr(
                        p,
                        "condim",
                        format!(
                            "condim {c} (torsional or rolling friction) is not supported (refused)"
                        ),
                    ))
                }
                c => {
                    return Err(MjcfError::attr(
                        p,
                        "condim",
                        format!("{c} is not 1, 3, 4 or 6"),
                    ))
                }
            },
        };
        let contype = a
            .get("contype")
            .map(|t| integer(t, p, "contype"))
            .transpose()?
            .unwrap_or(1);
        let conaffinity = a
            .get("conaffinity")
            .map(|t| integer(t, p, "conaffinity"))
            .transpose()?
            .unwrap_or(1);
        let volume = solid.volume();
        let mass = match a.number("mass")? {
            Some(m) => {
                if m < 0.0 {
                    return Err(MjcfError::attr(p, "mass", "must be >= 0"));
                }
                m
            }
            None => a.non_negative("density", DENSITY)? * volume,
        };
        self.geoms.push(Geom {
            name: e
                .get("name")
                .map_or_else(|| format!("geom[{index}]"), str::to_string),
            body,
            pose: Pose {
                position: pos,
                orientation,
            },
            shape,
            friction: friction[0],
            condim,
            contype,
            conaffinity,
        });
        Ok(body.map(|_| Piece {
            mass,
            centre: pos,
            orientation,
            moments: solid.inertia(mass),
        }))
    }

    fn site(&mut self, e: &Element, body: Option<usize>, childclass: &str) -> Result<()> {
        let p = e.path.as_str();
        let a = self.attrs(e, &attrs::SITE, childclass)?;
        let index = self.sites.len();
        self.angles.orientation(|x| a.get(x), p)?;
        let position = match a.vector::<6>("fromto")? {
            Some(f) => [0, 1, 2].map(|k| 0.5 * (f[k] + f[k + 3])),
            None => a.vector::<3>("pos")?.unwrap_or([0.0; 3]),
        };
        if let Some(t) = a.get("size") {
            some_numbers::<3>(t, p, "size", [0.0; 3])?;
        }
        let name = register(&mut self.site_lookup, e.get("name"), index, "site", p)?;
        self.sites.push(Site {
            name: name.unwrap_or_else(|| format!("site[{index}]")),
            body,
            position,
        });
        Ok(())
    }

    /// MuJoCo's rule: a body with joints has a mass and principal moments
    /// of at least `mjMINVAL`, or a body welded below it (through bodies
    /// without joints) has.
    fn check_moving_masses(&self) -> Result<()> {
        let n = self.bodies.len();
        let mut children = vec![Vec::new(); n];
        for (b, body) in self.bodies.iter().enumerate() {
            if let Some(p) = body.parent {
                children[p].push(b);
            }
        }
        // Children come after their parents: one pass from the leaves.
        let mut weighs = self.body_weighs.clone();
        for b in (0..n).rev() {
            let welded = children[b]
                .iter()
                .any(|&c| self.bodies[c].joints.is_empty() && weighs[c]);
            weighs[b] = weighs[b] || welded;
        }
        match (0..n).find(|&b| !self.bodies[b].joints.is_empty() && !weighs[b]) {
            Some(b) => Err(MjcfError::new(
                &self.body_paths[b],
                "a body with joints needs a mass and moments of inertia > 0 (its own, or a body welded to it)",
            )),
            None => Ok(()),
        }
    }

    /// Settotalmass: every body's mass and inertia scaled so that they sum
    /// to the given total (MuJoCo's `mj_setTotalmass`, after the bounds).
    fn finish_masses(&self, bodies: &mut [Body]) -> Result<()> {
        if self.total_mass > 0.0 {
            let total: f64 = bodies.iter().map(|b| b.mass).sum();
            if total <= 0.0 {
                return Err(MjcfError::attr(
                    "compiler",
                    "settotalmass",
                    "the bodies have no mass to scale",
                ));
            }
            let scale = self.total_mass / total;
            for b in bodies {
                b.mass *= scale;
                for row in &mut b.inertia {
                    for x in row {
                        *x *= scale;
                    }
                }
            }
        }
        Ok(())
    }
}

/// MuJoCo's `asset` section: textures, materials and skins only draw;
/// meshes and height fields are refused.
fn asset(e: &Element) -> Result<()> {
    for c in &e.children {
        match c.tag.as_str() {
            "texture" | "material" | "skin" => {}
            "mesh" => return Err(refused(c, "meshes are not supported")),
            "hfield" => return Err(refused(c, "height fields are not supported")),
            "plugin" => return Err(refused(c, "plugins are not supported")),
            _ => return Err(MjcfError::new(&c.path, "unknown element")),
        }
    }
    Ok(())
}

fn refused(e: &Element, why: &str) -> MjcfError {
    MjcfError::new(&e.path, format!("<{}>: {why} (refused)", e.tag))
}

fn non_negative(text: &str, path: &str, attr: &str) -> Result<f64> {
    let x = numbers::<1>(text, path, attr)?[0];
    if x < 0.0 {
        return Err(MjcfError::attr(path, attr, "must be >= 0"));
    }
    Ok(x)
}

/// An ellipsoid's collider: the convex hull of points on its surface (a
/// polyhedron inscribed in it, 16 rings of 32 points and the two poles).
/// An approximation, to go when the collision layer has ellipsoids; its
/// mass properties are the exact ellipsoid's.
fn ellipsoid_hull(a: [f64; 3]) -> Shape {
    let (rings, around) = (16, 32);
    let mut vertices = vec![[0.0, 0.0, a[2]], [0.0, 0.0, -a[2]]];
    for i in 1..rings {
        let theta = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..around {
            let phi = 2.0 * std::f64::consts::PI * j as f64 / around as f64;
            vertices.push([
                a[0] * theta.sin() * phi.cos(),
                a[1] * theta.sin() * phi.sin(),
                a[2] * theta.cos(),
            ]);
        }
    }
    Shape::Convex { vertices }
}

/// Checks an actuator element's attributes (its shortcut's schema).
fn check_actuator(e: &Element, ignored: &mut BTreeSet<String>) -> Result<()> {
    for (a, _) in &e.attrs {
        if attrs::actuator_excludes(&e.tag, a) {
            return Err(MjcfError::attr(
                &e.path,
                a,
                format!("unknown attribute of <{}>", e.tag),
            ));
        }
    }
    attrs::check(&attrs::ACTUATOR, e, ignored)
}

/// Applies an actuator element (or a default's) to the parameters, as
/// MuJoCo's reader does: the general attributes, then the shortcut's.
fn apply_actuator(s: &mut ActuatorState, e: &Element) -> Result<()> {
    let p = e.path.as_str();
    let a = Attrs::own(e);
    if let Some(t) = a.get("gear") {
        s.gear = some_numbers::<6>(t, p, "gear", [0.0; 6])?;
    }
    if let Some(r) = a.vector::<2>("ctrlrange")? {
        s.ctrlrange = r;
    }
    if let Some(r) = a.vector::<2>("forcerange")? {
        s.forcerange = r;
    }
    if let Some(r) = a.vector::<2>("actrange")? {
        s.actrange = r;
    }
    if a.get("ctrllimited").is_some() {
        s.ctrllimited = a.limited("ctrllimited")?;
    }
    if a.get("forcelimited").is_some() {
        s.forcelimited = a.limited("forcelimited")?;
    }
    if a.get("actlimited").is_some() {
        s.actlimited = a.limited("actlimited")?;
    }
    if let Some(t) = a.get("gaintype") {
        s.gaintype = word(t, p, "gaintype", &["fixed", "affine", "muscle", "user"])?.into();
    }
    if let Some(t) = a.get("biastype") {
        s.biastype = word(t, p, "biastype", &["none", "affine", "muscle", "user"])?.into();
    }
    if let Some(t) = a.get("dyntype") {
        s.dyntype = word(
            t,
            p,
            "dyntype",
            &[
                "none",
                "integrator",
                "filter",
                "filterexact",
                "muscle",
                "user",
            ],
        )?
        .into();
    }
    if let Some(t) = a.get("gainprm") {
        s.gainprm = prm(t, p, "gainprm")?;
    }
    if let Some(t) = a.get("biasprm") {
        s.biasprm = prm(t, p, "biasprm")?;
    }
    if let Some(t) = a.get("dynprm") {
        prm(t, p, "dynprm")?;
    }
    for refused_attr in ["actdim", "actearly", "dampratio", "inheritrange"] {
        if a.get(refused_attr).is_some() {
            return Err(MjcfError::attr(p, refused_attr, "not supported (refused)"));
        }
    }
    match e.tag.as_str() {
        "motor" => {
            s.gainprm[0] = 1.0;
            s.dyntype = "none".into();
            s.gaintype = "fixed".into();
            s.biastype = "none".into();
        }
        "position" => {
            let kp = a.number("kp")?.unwrap_or(s.gainprm[0]);
            s.gainprm[0] = kp;
            s.biasprm[1] = -kp;
            if let Some(kv) = a.number("kv")? {
                if kv < 0.0 {
                    return Err(MjcfError::attr(p, "kv", "must be >= 0"));
                }
                s.biasprm[2] = -kv;
            }
            if a.number("timeconst")?.is_some_and(|t| t != 0.0) {
                return Err(MjcfError::attr(
                    p,
                    "timeconst",
                    "actuator dynamics other than none are not supported (refused)",
                ));
            }
            s.gaintype = "fixed".into();
            s.biastype = "affine".into();
        }
        "velocity" => {
            let kv = a.number("kv")?.unwrap_or(s.gainprm[0]);
            s.biasprm = [0.0; 10];
            s.gainprm[0] = kv;
            s.biasprm[2] = -kv;
            s.dyntype = "none".into();
            s.gaintype = "fixed".into();
            s.biastype = "affine".into();
        }
        _ => {}
    }
    Ok(())
}

/// Up to ten parameters, the rest zero.
fn prm(text: &str, path: &str, attr: &str) -> Result<[f64; 10]> {
    let v = list(text, path, attr)?;
    if v.len() > 10 {
        return Err(MjcfError::attr(path, attr, "at most 10 numbers"));
    }
    let mut out = [0.0; 10];
    out[..v.len()].copy_from_slice(&v);
    Ok(out)
}

impl Reader {
    fn tendon_section(&mut self, e: &Element) -> Result<()> {
        if let Some((a, _)) = e.attrs.first() {
            return Err(MjcfError::attr(&e.path, a, "unknown attribute"));
        }
        for t in &e.children {
            let p = t.path.as_str();
            if !matches!(t.tag.as_str(), "fixed" | "spatial") {
                return Err(MjcfError::new(p, "unknown element"));
            }
            let a = self.attrs(t, &attrs::TENDON, "main")?;
            if a.non_negative("frictionloss", 0.0)? != 0.0 {
                return Err(MjcfError::attr(
                    p,
                    "frictionloss",
                    "dry friction on tendons is not supported (refused)",
                ));
            }
            if a.non_negative("armature", 0.0)? != 0.0 {
                return Err(MjcfError::attr(
                    p,
                    "armature",
                    "tendon armature is not supported (refused)",
                ));
            }
            let range = self.range(&a, "range", "limited", true)?;
            let springlength = match a.get("springlength") {
                None => None,
                Some(text) => {
                    let v = list(text, p, "springlength")?;
                    match v.as_slice() {
                        [x] => (*x >= 0.0).then_some(*x),
                        [x, y] if x == y => (*x >= 0.0).then_some(*x),
                        [_, _] => {
                            return Err(MjcfError::attr(
                                p,
                                "springlength",
                                "a dead band is not supported (refused)",
                            ))
                        }
                        _ => {
                            return Err(MjcfError::attr(
                                p,
                                "springlength",
                                "expected 1 or 2 numbers",
                            ))
                        }
                    }
                }
            };
            let stiffness = a.non_negative("stiffness", 0.0)?;
            let damping = a.non_negative("damping", 0.0)?;
            let path = if t.tag == "fixed" {
                let mut terms = Vec::new();
                for j in &t.children {
                    if j.tag != "joint" {
                        return Err(MjcfError::new(
                            &j.path,
                            "unknown element (a fixed tendon has <joint>s)",
                        ));
                    }
                    only(j, &["joint", "coef"])?;
                    let name = j
                        .get("joint")
                        .ok_or_else(|| MjcfError::attr(&j.path, "joint", "missing"))?;
                    let joint = self.joint_named(name, &j.path, "joint")?;
                    if !self.joint_info[joint].scalar {
                        return Err(MjcfError::attr(
                            &j.path,
                            "joint",
                            "a fixed tendon's joints are hinges or slides",
                        ));
                    }
                    let coef = match j.get("coef") {
                        Some(c) => numbers::<1>(c, &j.path, "coef")?[0],
                        None => 1.0,
                    };
                    terms.push((joint, coef));
                }
                if terms.is_empty() {
                    return Err(MjcfError::new(p, "a fixed tendon needs a joint"));
                }
                TendonPath::Fixed(terms)
            } else {
                let mut sites = Vec::new();
                for s in &t.children {
                    match s.tag.as_str() {
                        "site" => {
                            only(s, &["site"])?;
                            let name = s
                                .get("site")
                                .ok_or_else(|| MjcfError::attr(&s.path, "site", "missing"))?;
                            let site = *self.site_lookup.get(name).ok_or_else(|| {
                                MjcfError::attr(
                                    &s.path,
                                    "site",
                                    format!("no site is named {name:?}"),
                                )
                            })?;
                            sites.push(site);
                        }
                        "geom" => return Err(refused(s, "wrapping around geoms is not supported")),
                        "pulley" => return Err(refused(s, "pulleys are not supported")),
                        _ => return Err(MjcfError::new(&s.path, "unknown element")),
                    }
                }
                if sites.len() < 2 {
                    return Err(MjcfError::new(
                        p,
                        "a spatial tendon needs two sites at least",
                    ));
                }
                TendonPath::Spatial(sites)
            };
            let index = self.tendons.len();
            let name = register(&mut self.tendon_lookup, t.get("name"), index, "tendon", p)?;
            self.tendons.push(Tendon {
                name: name.unwrap_or_else(|| format!("tendon[{index}]")),
                path,
                range,
                damping,
                stiffness,
                springlength,
            });
        }
        Ok(())
    }

    fn joint_named(&self, name: &str, path: &str, attr: &str) -> Result<usize> {
        self.joint_lookup
            .get(name)
            .copied()
            .ok_or_else(|| MjcfError::attr(path, attr, format!("no joint is named {name:?}")))
    }

    fn tendon_named(&self, name: &str, path: &str, attr: &str) -> Result<usize> {
        self.tendon_lookup
            .get(name)
            .copied()
            .ok_or_else(|| MjcfError::attr(path, attr, format!("no tendon is named {name:?}")))
    }

    /// A body by name (`world`: `None`).
    fn body_named(&self, name: &str, path: &str, attr: &str) -> Result<Option<usize>> {
        if name == "world" {
            return Ok(None);
        }
        self.body_lookup
            .get(name)
            .copied()
            .map(Some)
            .ok_or_else(|| MjcfError::attr(path, attr, format!("no body is named {name:?}")))
    }

    fn actuator(&mut self, e: &Element, index: usize) -> Result<Actuator> {
        let p = e.path.as_str();
        match e.tag.as_str() {
            "motor" | "position" | "velocity" | "general" => {}
            "intvelocity" | "damper" | "cylinder" | "muscle" | "adhesion" | "pid"
            | "orientation" | "dcmotor" => {
                return Err(refused(
                    e,
                    "actuator dynamics or gains other than fixed are not supported",
                ))
            }
            "plugin" => return Err(refused(e, "plugins are not supported")),
            _ => return Err(MjcfError::new(p, "unknown element")),
        }
        check_actuator(e, &mut self.ignored)?;
        let mut s = self.class(e, "main")?.actuator.clone();
        apply_actuator(&mut s, e)?;
        if s.dyntype != "none" {
            return Err(MjcfError::attr(
                p,
                "dyntype",
                format!(
                    "dyntype {:?}: actuator dynamics other than none are not supported (refused)",
                    s.dyntype
                ),
            ));
        }
        if s.gaintype != "fixed" {
            return Err(MjcfError::attr(
                p,
                "gaintype",
                format!("gaintype {:?} is not supported (refused)", s.gaintype),
            ));
        }
        let bias = match s.biastype.as_str() {
            "none" => [0.0; 3],
            "affine" => [s.biasprm[0], s.biasprm[1], s.biasprm[2]],
            other => {
                return Err(MjcfError::attr(
                    p,
                    "biastype",
                    format!("biastype {other:?} is not supported (refused)"),
                ))
            }
        };
        let transmission = match (e.get("joint"), e.get("tendon")) {
            (Some(j), None) => {
                let joint = self.joint_named(j, p, "joint")?;
                if !self.joint_info[joint].scalar {
                    return Err(MjcfError::attr(
                        p,
                        "joint",
                        "actuators on ball and free joints are not supported (refused)",
                    ));
                }
                Transmission::Joint(joint)
            }
            (None, Some(t)) => Transmission::Tendon(self.tendon_named(t, p, "tendon")?),
            (Some(_), Some(_)) => {
                return Err(MjcfError::new(
                    p,
                    "an actuator has one transmission: joint or tendon",
                ))
            }
            (None, None) => return Err(MjcfError::new(p, "an actuator needs a joint or a tendon")),
        };
        let limits = |range: [f64; 2], limited: Limited, attr: &str| -> Result<Option<[f64; 2]>> {
            let given = range != [0.0, 0.0];
            if limited == Limited::Auto && given && !self.autolimits {
                return Err(MjcfError::attr(
                    p,
                    attr,
                    "is given without its limited flag while compiler autolimits is false",
                ));
            }
            let on = limited == Limited::True || (limited == Limited::Auto && given);
            if on && range[0] >= range[1] {
                return Err(MjcfError::attr(
                    p,
                    attr,
                    format!("must have {attr}[0] < {attr}[1] when limited"),
                ));
            }
            Ok(on.then_some(range))
        };
        if limits(s.actrange, s.actlimited, "actrange")?.is_some() {
            return Err(MjcfError::attr(
                p,
                "actrange",
                "activation limits without dynamics are not supported (refused)",
            ));
        }
        Ok(Actuator {
            name: e
                .get("name")
                .map_or_else(|| format!("actuator[{index}]"), str::to_string),
            transmission,
            gear: s.gear[0],
            gain: s.gainprm[0],
            bias,
            ctrlrange: limits(s.ctrlrange, s.ctrllimited, "ctrlrange")?,
            forcerange: limits(s.forcerange, s.forcelimited, "forcerange")?,
        })
    }

    /// An equality constraint (`None`: inactive). Offsets MuJoCo measures
    /// from `qpos0` (joint and tendon couplings) are folded into the
    /// polynomial, so that it holds between the coordinates themselves.
    fn equality(
        &mut self,
        e: &Element,
        tree: &Tree,
        poses: &[([f64; 3], [f64; 4])],
    ) -> Result<Option<Equality>> {
        let p = e.path.as_str();
        if !matches!(e.tag.as_str(), "connect" | "weld" | "joint" | "tendon") {
            if e.tag == "flex" || e.tag == "flexvert" {
                return Err(refused(e, "flex objects are not supported"));
            }
            return Err(MjcfError::new(p, "unknown element"));
        }
        let a = self.attrs(e, &attrs::EQUALITY, "main")?;
        let allowed: &[&str] = match e.tag.as_str() {
            "connect" => &["body1", "body2", "anchor"],
            "weld" => &["body1", "body2", "relpose", "anchor"],
            "joint" => &["joint1", "joint2", "polycoef"],
            _ => &["tendon1", "tendon2", "polycoef"],
        };
        for (k, _) in &e.attrs {
            let specific = [
                "body1", "body2", "anchor", "relpose", "joint1", "joint2", "tendon1", "tendon2",
                "polycoef",
            ];
            if specific.contains(&k.as_str()) && !allowed.contains(&k.as_str()) {
                return Err(MjcfError::attr(
                    p,
                    k,
                    format!("unknown attribute of <{}>", e.tag),
                ));
            }
        }
        if !a.boolean("active", true)? {
            return Ok(None);
        }
        let pose = |b: Option<usize>| b.map_or(([0.0; 3], [1.0, 0.0, 0.0, 0.0]), |b| poses[b]);
        let bodies = |this: &Self| -> Result<[Option<usize>; 2]> {
            let (b1, b2) = a.pair(["body1", "body2"], |n, key| this.body_named(n, p, key))?;
            Ok([b1, b2.flatten()])
        };
        let poly = || -> Result<[f64; 5]> {
            match a.get("polycoef") {
                Some(t) => some_numbers::<5>(t, p, "polycoef", [0.0; 5]),
                None => Ok([0.0, 1.0, 0.0, 0.0, 0.0]),
            }
        };
        Ok(Some(match e.tag.as_str() {
            "connect" => {
                let [b1, b2] = bodies(self)?;
                let anchor = a
                    .vector::<3>("anchor")?
                    .ok_or_else(|| MjcfError::attr(p, "anchor", "missing"))?;
                let (x1, q1) = pose(b1);
                let (x2, q2) = pose(b2);
                let world = transform(x1, q1, anchor);
                let d = [0, 1, 2].map(|k| world[k] - x2[k]);
                Equality::Connect {
                    bodies: [b1, b2],
                    anchor,
                    anchor2: apply_transpose(&matrix(q2), d),
                }
            }
            "weld" => {
                let [b1, b2] = bodies(self)?;
                // MuJoCo holds body2's `anchor` on body1's point `relpose`
                // (position) and body2's orientation at body1's times
                // `relpose` (quaternion): body2's origin is then at
                // `relpose - R(quaternion) anchor` in body1's frame.
                let anchor = a.vector::<3>("anchor")?.unwrap_or([0.0; 3]);
                let given = match a.get("relpose") {
                    Some(t) => {
                        let r = numbers::<7>(t, p, "relpose")?;
                        let q = [r[3], r[4], r[5], r[6]];
                        (q != [0.0; 4]).then(|| {
                            let orientation = normalized(q).unwrap_or([1.0, 0.0, 0.0, 0.0]);
                            let turned = apply(&matrix(orientation), anchor);
                            Pose {
                                position: [0, 1, 2].map(|k| r[k] - turned[k]),
                                orientation,
                            }
                        })
                    }
                    None => None,
                };
                let relative = given.unwrap_or_else(|| {
                    let (x1, q1) = pose(b1);
                    let (x2, q2) = pose(b2);
                    let d = [0, 1, 2].map(|k| x2[k] - x1[k]);
                    Pose {
                        position: apply_transpose(&matrix(q1), d),
                        orientation: mul(conjugate(q1), q2),
                    }
                });
                Equality::Weld {
                    bodies: [b1, b2],
                    relative,
                }
            }
            "joint" => {
                let (j1, j2) =
                    a.pair(["joint1", "joint2"], |n, key| self.joint_named(n, p, key))?;
                for j in std::iter::once(j1).chain(j2) {
                    if !self.joint_info[j].scalar {
                        return Err(MjcfError::new(
                            p,
                            "a joint equality couples hinges and slides",
                        ));
                    }
                }
                let q0 = |j: usize| tree.qpos0()[self.joint_info[j].qadr];
                let (polycoef, joints) = referred(poly()?, j1, j2, q0);
                Equality::Joint { joints, polycoef }
            }
            _ => {
                let (t1, t2) = a.pair(["tendon1", "tendon2"], |n, key| {
                    self.tendon_named(n, p, key)
                })?;
                let l0 = |t: usize| self.tendon_length(t, tree.qpos0(), poses);
                let (polycoef, tendons) = referred(poly()?, t1, t2, l0);
                Equality::Tendon { tendons, polycoef }
            }
        }))
    }

    /// A tendon's length at `qpos`, where the bodies are at `poses`.
    fn tendon_length(&self, t: usize, qpos: &[f64], poses: &[([f64; 3], [f64; 4])]) -> f64 {
        match &self.tendons[t].path {
            TendonPath::Fixed(terms) => terms
                .iter()
                .map(|&(j, c)| c * qpos[self.joint_info[j].qadr])
                .sum(),
            TendonPath::Spatial(sites) => {
                let at = |s: usize| {
                    let site = &self.sites[s];
                    match site.body {
                        Some(b) => transform(poses[b].0, poses[b].1, site.position),
                        None => site.position,
                    }
                };
                sites
                    .windows(2)
                    .map(|w| {
                        let (x, y) = (at(w[0]), at(w[1]));
                        ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2))
                            .sqrt()
                    })
                    .sum()
            }
        }
    }

    fn exclude(&mut self, e: &Element) -> Result<[Option<usize>; 2]> {
        let p = e.path.as_str();
        match e.tag.as_str() {
            "exclude" => {}
            "pair" => return Err(refused(e, "explicit contact pairs are not supported")),
            _ => return Err(MjcfError::new(p, "unknown element")),
        }
        only(e, &["name", "body1", "body2"])?;
        let b1 = e
            .get("body1")
            .ok_or_else(|| MjcfError::attr(p, "body1", "missing"))?;
        let b2 = e
            .get("body2")
            .ok_or_else(|| MjcfError::attr(p, "body2", "missing"))?;
        let b1 = self.body_named(b1, p, "body1")?;
        let b2 = self.body_named(b2, p, "body2")?;
        Ok(if b1 <= b2 { [b1, b2] } else { [b2, b1] })
    }

    fn key(&mut self, e: &Element, tree: &Tree, nu: usize) -> Result<Keyframe> {
        let p = e.path.as_str();
        if e.tag != "key" {
            return Err(MjcfError::new(p, "unknown element"));
        }
        only(
            e,
            &[
                "name", "time", "qpos", "qvel", "act", "ctrl", "mpos", "mquat",
            ],
        )?;
        let read = |attr: &str, n: usize, fill: &[f64]| -> Result<Vec<f64>> {
            match e.get(attr) {
                None => Ok(fill.to_vec()),
                Some(t) => {
                    let v = list(t, p, attr)?;
                    if v.len() != n {
                        return Err(MjcfError::attr(
                            p,
                            attr,
                            format!("has {}: the model needs {n}", count(v.len())),
                        ));
                    }
                    Ok(v)
                }
            }
        };
        for attr in ["act", "mpos", "mquat"] {
            read(attr, 0, &[])?;
        }
        // Quaternions are kept normalized, as MuJoCo compiles them.
        let mut qpos = read("qpos", tree.nq(), tree.qpos0())?;
        let mut j = 0;
        for body in tree.bodies() {
            for joint in &body.joints {
                let at = tree.joint_qpos(j).unwrap_or(0);
                j += 1;
                let start = match joint.kind {
                    JointKind::Ball { .. } => at,
                    JointKind::Free => at + 3,
                    _ => continue,
                };
                let q = [
                    qpos[start],
                    qpos[start + 1],
                    qpos[start + 2],
                    qpos[start + 3],
                ];
                let unit = normalized(q).ok_or_else(|| {
                    MjcfError::attr(
                        p,
                        "qpos",
                        format!("joint {:?} has a zero quaternion", joint.name),
                    )
                })?;
                qpos[start..start + 4].copy_from_slice(&unit);
            }
        }
        Ok(Keyframe {
            name: e.get("name").unwrap_or("").to_string(),
            time: match e.get("time") {
                Some(t) => numbers::<1>(t, p, "time")?[0],
                None => 0.0,
            },
            qpos,
            qvel: read("qvel", tree.nv(), &vec![0.0; tree.nv()])?,
            ctrl: read("ctrl", nu, &vec![0.0; nu])?,
        })
    }
}

/// Refuses attributes of `e` outside `allowed`.
fn only(e: &Element, allowed: &[&str]) -> Result<()> {
    match e.attrs.iter().find(|(a, _)| !allowed.contains(&a.as_str())) {
        Some((a, _)) => Err(MjcfError::attr(&e.path, a, "unknown attribute")),
        None => Ok(()),
    }
}

/// Every body's world pose (position, orientation) at `qpos`.
fn body_poses(tree: &Tree, ws: &mut Workspace, qpos: &[f64]) -> Result<Vec<([f64; 3], [f64; 4])>> {
    tree.positions(ws, qpos)
        .map_err(|e| MjcfError::new("worldbody", e.to_string()))?;
    Ok((0..tree.nbody())
        .map(|b| tree.pose(ws, b).unwrap_or(([0.0; 3], [1.0, 0.0, 0.0, 0.0])))
        .collect())
}

/// A joint or tendon equality's `polycoef` `c` coupling `first` to
/// `second` (to a constant without one), referred to their values at the
/// reference state, `at(first)` and `at(second)`; and the pair, `first`
/// twice when alone.
fn referred(
    c: [f64; 5],
    first: usize,
    second: Option<usize>,
    at: impl Fn(usize) -> f64,
) -> ([f64; 5], [usize; 2]) {
    match second {
        Some(second) => (shifted(c, at(first), at(second)), [first, second]),
        None => ([at(first) + c[0], 0.0, 0.0, 0.0, 0.0], [first, first]),
    }
}

/// MuJoCo's coupling `y - y0 = sum c_k (x - x0)^k` as `y = sum b_k x^k`.
fn shifted(c: [f64; 5], y0: f64, x0: f64) -> [f64; 5] {
    let mut b = [0.0; 5];
    b[0] = y0;
    for k in 0..5 {
        // (x - x0)^k = sum_j C(k, j) x^j (-x0)^(k - j)
        let mut binom = 1.0;
        for j in 0..=k {
            b[j] += c[k] * binom * (-x0).powi((k - j) as i32);
            binom = binom * (k - j) as f64 / (j + 1) as f64;
        }
    }
    b
}

/// Registers `name` (if given) as `index` in `lookup`; a name already
/// taken (or, for a body, `world`) is an error on `path`'s `name`.
fn register(
    lookup: &mut HashMap<String, usize>,
    name: Option<&str>,
    index: usize,
    kind: &str,
    path: &str,
) -> Result<Option<String>> {
    let Some(n) = name else { return Ok(None) };
    if (kind == "body" && n == "world") || lookup.insert(n.to_string(), index).is_some() {
        return Err(MjcfError::attr(
            path,
            "name",
            format!("the {kind} name {n:?} is taken"),
        ));
    }
    Ok(Some(n.to_string()))
}
