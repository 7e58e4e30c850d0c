//! MuJoCo's MJCF files read into kinematic trees in joint coordinates: an
//! [`Articulated`] model (the tree of `zwang_tree` with geoms, sites,
//! joint physics, tendons, actuators, equalities and keyframes), read as
//! MuJoCo 3.x defines the format (mujoco.readthedocs.io, "XML
//! Reference"), with MuJoCo's defaults, compiler options and mass
//! properties, and `qpos`/`qvel` laid out as MuJoCo lays them out.
//!
//! What only draws or measures is read past; MuJoCo's soft-contact and
//! solver parameters are read past and listed in [`MjcfModel::ignored`];
//! what zwang cannot do yet (meshes, height fields, fluid forces, `condim`
//! 4 or 6, actuator dynamics, plugins, flex and composites, mocap bodies)
//! is refused. Every error is one line, `mjcf: PATH[.ATTRIBUTE]: MESSAGE`,
//! naming the element by its path below `<mujoco>`.
//!
//! ```
//! let model = zwang_mjcf::parse(
//!     r#"<mujoco>
//!          <worldbody>
//!            <body name="pole">
//!              <joint name="hinge" axis="0 1 0" ref="30"/>
//!              <geom type="box" size="0.1 0.1 0.1" solref="0.01 1"/>
//!            </body>
//!          </worldbody>
//!        </mujoco>"#,
//!     None,
//! )
//! .unwrap();
//! // A 0.2 m cube of water; qpos0 is the hinge's ref, in radians.
//! assert!((model.model.tree.bodies()[0].mass - 8.0).abs() < 1e-12);
//! assert!((model.model.tree.qpos0()[0] - 30f64.to_radians()).abs() < 1e-15);
//! assert_eq!(model.ignored, ["geom.solref"]);
//!
//! let err = zwang_mjcf::parse(
//!     r#"<mujoco><worldbody><body name="b"><geom size="0.1" condim="6"/></body></worldbody></mujoco>"#,
//!     None,
//! )
//! .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "mjcf: worldbody/body[b]/geom.condim: condim 6 (torsional or rolling friction) is not supported (refused)"
//! );
//! ```

#![forbid(unsafe_code)]

mod attrs;
mod error;
mod frames;
mod reader;
mod xml;

use std::path::Path;

pub use error::MjcfError;
pub use reader::TIMESTEP;
use zwang_model::articulated::Articulated;

/// A model read from an MJCF file.
#[derive(Debug, Clone)]
pub struct MjcfModel {
    /// The tree and everything on it.
    pub model: Articulated,
    /// The attributes read past that change MuJoCo's physics (its soft
    /// contacts and solver), each once, sorted: `"geom.solref"`.
    pub ignored: Vec<String>,
    /// The name of each body of the tree (MJCF's, or `body[i]` with `i`
    /// MuJoCo's body id, the world being 0).
    pub body_names: Vec<String>,
    /// The model's name (`<mujoco model>`).
    pub name: String,
    /// `option integrator` (MuJoCo's `Euler` when absent).
    pub integrator: String,
}

/// Whether `text` looks like XML rather than TOML: its first character
/// that is not a blank (or a byte order mark) is `<`.
pub fn looks_like_xml(text: &str) -> bool {
    text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .starts_with('<')
}

impl MjcfModel {
    /// The keyframe `key` names: a key's name, else its 0-based index.
    pub fn keyframe(&self, key: &str) -> Option<usize> {
        self.model.keyframe(key)
    }

    /// The body named `name` (an index of the tree's bodies).
    pub fn body(&self, name: &str) -> Option<usize> {
        self.body_names.iter().position(|n| n == name)
    }
}

/// Reads the MJCF file at `path` (its includes relative to the including
/// file).
pub fn read(path: &Path) -> Result<MjcfModel, MjcfError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| MjcfError::new("mujoco", format!("cannot read {}: {e}", path.display())))?;
    let root = xml::load(&text, path.parent(), Some(path))?;
    reader::Reader::new().read(&root)
}

/// Reads MJCF text; `dir` is where its includes are (without it, an
/// include is an error).
pub fn parse(text: &str, dir: Option<&Path>) -> Result<MjcfModel, MjcfError> {
    let root = xml::load(text, dir, None)?;
    reader::Reader::new().read(&root)
}
