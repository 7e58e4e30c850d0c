//! Pictures of a run of an [`Articulated`] model (a kinematic tree in
//! joint coordinates, as an MJCF file describes it): `zwang simulate
//! MODEL.xml --draw FILE`.
//!
//! Drawn as the spatial scenes are ([`super`]): the same camera, shading,
//! painter's order, scale bar and label, PNG or GIF. What is drawn is the
//! model's geoms, each at its world pose ([`Geom::world_pose`]: its
//! body's pose at the state's `qpos`, composed with its own): the geoms
//! of a body that moves in the colour of that body ([`fill_color`] of its
//! index in the tree), those of the world and of bodies welded to it in
//! grey, a plane as the floor (a half-space, the part around the bodies).
//! Joints are not drawn.

use super::{
    check_format, draw_faces, draw_label, draw_scale_bar, include_look, paint, panel_rect,
    plane_at, render, scene_box_with, to_draw, Box3, Camera, Format, Frame, Look, FIXED_FILL,
    FIXED_LINE, INK,
};
use crate::draw::fill_color;
use crate::draw::raster::Area;
use crate::draw::reel::Reel;
use std::path::Path;
use zwang_geometry::spatial::Pose;
use zwang_model::articulated::Articulated;
use zwang_motion::{ContactSample, Observer};
use zwang_tree::Workspace;

/// The geoms' looks and colours, and the floors.
struct Parts {
    /// Per geom: its look, and its fill and line colours.
    looks: Vec<(Look, [u8; 3], [u8; 3])>,
    /// The half-spaces of the world and of bodies welded to it (world:
    /// a point of the plane, the outward unit normal).
    planes: Vec<([f64; 3], [f64; 3])>,
    /// Per geom: whether it is drawn as a part (not a floor).
    parts: Vec<bool>,
}

impl Parts {
    fn of(model: &Articulated) -> Parts {
        let tree = &model.tree;
        // Whether each body moves: a joint on it or on an ancestor.
        let mut moves: Vec<bool> = Vec::with_capacity(tree.nbody());
        for body in tree.bodies() {
            let up = body.parent.is_some_and(|p| moves[p]);
            moves.push(up || !body.joints.is_empty());
        }
        let mut ws = tree.workspace();
        let placed = tree.positions(&mut ws, tree.qpos0()).is_ok();
        let (mut looks, mut planes, mut parts) = (Vec::new(), Vec::new(), Vec::new());
        for geom in &model.geoms {
            let moving = geom.body.is_some_and(|b| moves.get(b) == Some(&true));
            let look = Look::of(Some(&geom.shape));
            let mut part = true;
            if let Look::Halfspace(n) = &look {
                part = false;
                if !moving && placed {
                    if let Some(plane) = geom
                        .world_pose(tree, &ws)
                        .ok()
                        .and_then(|pose| plane_at(&pose, *n))
                    {
                        planes.push(plane);
                    }
                }
            }
            let (fill, line) = match geom.body {
                Some(b) if moving => (fill_color(b), INK),
                _ => (FIXED_FILL, FIXED_LINE),
            };
            looks.push((look, fill, line));
            parts.push(part);
        }
        Parts {
            looks,
            planes,
            parts,
        }
    }

    /// The geoms' world poses at `qpos` into `out` (empty when the tree
    /// cannot take `qpos`).
    fn poses_into(
        &self,
        model: &Articulated,
        ws: &mut Workspace,
        qpos: &[f64],
        out: &mut Vec<Pose>,
    ) {
        out.clear();
        if model.tree.positions(ws, qpos).is_err() {
            return;
        }
        for geom in &model.geoms {
            out.push(geom.world_pose(&model.tree, ws).unwrap_or_default());
        }
    }

    /// Grows `b` to hold the bounded geoms at `poses`.
    fn include(&self, b: &mut Box3, poses: &[Pose]) {
        for ((look, ..), pose) in self.looks.iter().zip(poses) {
            include_look(b, look, pose);
        }
    }

    /// The geoms at `poses` to paint.
    fn posed<'a>(
        &'a self,
        poses: &'a [Pose],
    ) -> impl Iterator<Item = (&'a Look, Pose, [u8; 3], [u8; 3])> + 'a {
        self.looks
            .iter()
            .zip(poses)
            .zip(&self.parts)
            .filter(|(_, part)| **part)
            .map(|(((look, fill, line), pose), _)| (look, *pose, *fill, *line))
    }
}

/// Draws `frames` (states of `model`: `t` and `qpos`) in `format`, the
/// camera fitted to `bodies` (the geoms over `frames` when `None`).
fn write(
    model: &Articulated,
    parts: &Parts,
    bodies: Option<&Box3>,
    format: Format,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    check_format(format, model.tree.nq(), frames)?;
    let bodies = match bodies {
        Some(b) => *b,
        None => geoms_box(model, parts, frames),
    };
    let scene = scene_box_with(&parts.planes, &bodies);
    let (mut ws, mut poses) = (model.tree.workspace(), Vec::new());
    render(
        format,
        frames,
        path,
        &scene,
        |area: &Area<'_>, camera: &Camera, frame| {
            parts.poses_into(model, &mut ws, &frame.q, &mut poses);
            let faces = paint(&parts.planes, parts.posed(&poses), &scene, camera);
            draw_faces(area, &faces, &panel_rect(camera))?;
            draw_scale_bar(area, camera.scale(), camera.size())?;
            draw_label(area, title, frame.t)
        },
    )
}

/// The bounded geoms over `frames`.
fn geoms_box(model: &Articulated, parts: &Parts, frames: &[Frame]) -> Box3 {
    let (mut ws, mut poses) = (model.tree.workspace(), Vec::new());
    let mut b = Box3::EMPTY;
    for f in frames {
        parts.poses_into(model, &mut ws, &f.q, &mut poses);
        parts.include(&mut b, &poses);
    }
    b
}

/// The camera of a drawing of `frames` of `model` in panels of `size`
/// (what [`write_tree`] and a PNG of [`TreeFilm`] use): from
/// [`super::VIEW`], fitted to the [`super::scene_box`] of the geoms over
/// every frame and the floors.
pub fn tree_camera(model: &Articulated, frames: &[Frame], size: (u32, u32)) -> Camera {
    let parts = Parts::of(model);
    let scene = scene_box_with(&parts.planes, &geoms_box(model, &parts, frames));
    Camera::fit(&scene, super::VIEW, size)
}

/// The states a drawing of an [`Articulated`] model's run needs, kept as
/// the run goes (an [`Observer`]; the spatial [`super::Film`]'s twin): a
/// few instants, or at most [`super::MAX_FRAMES`] evenly spaced samples
/// and the last one. [`TreeFilm::write`] draws them.
pub struct TreeFilm<'m> {
    model: &'m Articulated,
    format: Format,
    reel: Reel,
    parts: Parts,
    /// The geoms over every sample.
    bounds: Box3,
    ws: Workspace,
    poses: Vec<Pose>,
}

impl<'m> TreeFilm<'m> {
    /// A film of `model` for `format`: a PNG keeps the samples nearest
    /// `times` (s; none: the last sample), an animation at most
    /// [`super::MAX_FRAMES`] samples (and ignores `times`).
    pub fn new(model: &'m Articulated, format: Format, times: &[f64]) -> TreeFilm<'m> {
        TreeFilm {
            model,
            format,
            reel: Reel::new(format, times),
            parts: Parts::of(model),
            bounds: Box3::EMPTY,
            ws: model.tree.workspace(),
            poses: Vec::new(),
        }
    }

    /// The states kept (`t`, `qpos`), in time order (the last sample
    /// included).
    pub fn frames(&self) -> Vec<Frame> {
        self.reel.frames()
    }

    /// Draws the states kept into `path` (its format chosen when the film
    /// was made), titled `title`; without samples, the model at `qpos0`.
    /// A file that cannot be written, or an SVG, is an error.
    pub fn write(&self, title: &str, path: &Path) -> Result<(), String> {
        let (frames, bounds) = to_draw(&self.reel, &self.bounds, self.format, || {
            self.model.tree.qpos0().to_vec()
        });
        write(
            self.model,
            &self.parts,
            bounds,
            self.format,
            &frames,
            title,
            path,
        )
    }
}

impl Observer for TreeFilm<'_> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], _v: &[f64], _contacts: &[ContactSample]) {
        let model = self.model;
        self.parts
            .poses_into(model, &mut self.ws, q, &mut self.poses);
        self.parts.include(&mut self.bounds, &self.poses);
        self.reel.sample(t, q);
    }
}

/// Draws `frames` (states of `model`: `t` and `qpos`) side by side into
/// a PNG at `path` (at most [`super::MAX_STILLS`]), or animates them into
/// a GIF (at most [`super::MAX_FRAMES`]), by `format`, with one camera
/// fitted to the geoms over every frame.
pub fn write_tree(
    model: &Articulated,
    format: Format,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    write(model, &Parts::of(model), None, format, frames, title, path)
}
