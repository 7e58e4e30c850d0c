//! Pictures of a run of a [`SpatialModel`]: `zwang simulate --draw FILE`
//! on a spatial scene (`dimension = 3`).
//!
//! An orthographic projection ([`Camera`]) from the default direction
//! [`VIEW`] (from `+x`, `-y` and above) towards the centre of the scene,
//! z up on the picture, at equal scales, fitted to the moving bodies over
//! every state drawn and the bounded fixed shapes ([`scene_box`]). What is
//! drawn, at a state `q`:
//!
//! - each moving body's shape in its colour ([`super::fill_color`], as in
//!   the plane), each face flat-shaded by its normal against a light from
//!   above ([`shade`]): boxes, cylinders and capsules (polygons of 24
//!   sides), convex hulls as polygon meshes, their faces turned away
//!   culled, their sharp edges and silhouette inked; a sphere as a disc
//!   with an outline and a radius line to its body's `x` axis, so that
//!   its turning shows; a body without a shape as a dot, with arms to
//!   the anchors of its joints and springs;
//! - the fixed bodies' shapes in grey; a half-space as the part of its
//!   plane inside the scene's box and on the free side of the other
//!   half-spaces (a bin's floor and walls), drawn first, and only when
//!   seen from its free side (the walls in front are looked through);
//! - every face of every body in one painter's order (the farthest first,
//!   by the depth of its centre);
//! - over the bodies, the joints ([`links`]): a line between the anchors,
//!   a hinge's axle, a slider's rail across the scene's box, a dot at
//!   each anchor; springs as zigzags, dampers as lines thick in their
//!   middle;
//! - a scale bar ([`super::scale_bar`], in the picture's plane) and a
//!   label: the title and the time.
//!
//! The box fitted includes every anchor at every state drawn.
//!
//! The outputs are the planar ones, by the file's extension: a PNG of
//! some instants side by side, or a GIF animation; the SVG animation is
//! planar for now.
//!
//! A kinematic tree of an MJCF file (an `Articulated` model) is drawn the
//! same way, its geoms for bodies ([`TreeFilm`], [`write_tree`]).

mod camera;
mod links;
mod mesh;
mod tree;

pub use camera::{Box3, Camera, VIEW};
pub use links::{links, Holds, Link};
use mesh::Mesh;
pub use tree::{tree_camera, write_tree, TreeFilm};

use super::raster::{self, Area};
use super::reel::Reel;
use super::{
    check_frames, clip, clip_segment, clip_to, delay_ms, draw_label, draw_scale_bar, fill_color,
    rgb, Format, Frame, FIXED_FILL, FIXED_LINE, INK, LINK, MAX_FRAMES, MAX_STILLS, PANEL,
};
use crate::plot::text_error;
use plotters::prelude::*;
use std::path::Path;
use zwang_geometry::spatial::{Pose, Shape};
use zwang_model::spatial::rotation::{apply, dot, matrix, normalized, tangents};
use zwang_model::spatial::SpatialModel;
use zwang_motion::{ContactSample, Observer};

/// The light's direction (towards it): from above, a little from the
/// viewer's side.
pub const LIGHT: [f64; 3] = [0.5, -1.0, 2.0];
/// The share of a face's colour it keeps in the dark.
const AMBIENT: f64 = 0.45;
/// The radius of a body without a shape, pixels.
const DOT: f64 = 4.0;
/// Sides of a sphere's disc.
const DISC: usize = 48;
/// The half-spaces reach this far past the rest of the scene, as a share
/// of its largest side.
const FLOOR_MARGIN: f64 = 0.15;

/// `color` lit on a face of outward unit `normal` (world): a share of it
/// in the dark, all of it facing [`LIGHT`].
pub fn shade(color: [u8; 3], normal: [f64; 3]) -> [u8; 3] {
    let l = dot(LIGHT, LIGHT).sqrt();
    let lit = (dot(normal, LIGHT) / l).max(0.0);
    let k = AMBIENT + (1.0 - AMBIENT) * lit;
    color.map(|c| (c as f64 * k).round().clamp(0.0, 255.0) as u8)
}

/// What a body is drawn as, in its frame.
enum Look {
    /// Faces.
    Mesh(Mesh),
    /// A disc of this radius, facing the viewer.
    Sphere(f64),
    /// A half-space of this outward normal (body frame).
    Halfspace([f64; 3]),
    /// A dot.
    Dot,
}

impl Look {
    fn of(shape: Option<&Shape>) -> Look {
        match shape {
            Some(Shape::Sphere { radius }) => Look::Sphere(*radius),
            Some(Shape::Halfspace { normal }) => Look::Halfspace(*normal),
            Some(shape) => Mesh::of(shape).map_or(Look::Dot, Look::Mesh),
            None => Look::Dot,
        }
    }

    /// The centre and half extents of the box about the body's origin
    /// (body frame) that holds it (`None`: unbounded).
    fn extent(&self) -> Option<([f64; 3], [f64; 3])> {
        match self {
            Look::Mesh(mesh) => {
                let mut b = Box3::EMPTY;
                for v in &mesh.vertices {
                    b.include(*v, 0.0);
                }
                let c = b.center();
                Some((c, [0, 1, 2].map(|k| (b.max[k] - c[k]).max(0.0))))
            }
            Look::Sphere(r) => Some(([0.0; 3], [*r; 3])),
            Look::Dot => Some(([0.0; 3], [0.0; 3])),
            Look::Halfspace(_) => None,
        }
    }
}

/// The bodies' looks, moving and fixed, by body index.
struct Looks(Vec<Look>);

impl Looks {
    fn of(model: &SpatialModel) -> Looks {
        Looks(
            model
                .bodies()
                .iter()
                .map(|b| Look::of(b.shape.as_ref()))
                .collect(),
        )
    }

    /// Grows `b` to hold body `i` at `pose` (unbounded shapes aside).
    fn include(&self, b: &mut Box3, i: usize, pose: &Pose) {
        include_look(b, &self.0[i], pose);
    }
}

/// Grows `b` to hold `look` at `pose` (unbounded shapes aside).
fn include_look(b: &mut Box3, look: &Look, pose: &Pose) {
    let Some((c, e)) = look.extent() else {
        return;
    };
    let r = matrix(normalized(pose.orientation).unwrap_or([1.0, 0.0, 0.0, 0.0]));
    let rc = apply(&r, c);
    let center = [0, 1, 2].map(|k| pose.position[k] + rc[k]);
    let half = [0, 1, 2].map(|k| (0..3).map(|j| r[k][j].abs() * e[j]).sum::<f64>());
    b.include([0, 1, 2].map(|k| center[k] - half[k]), 0.0);
    b.include([0, 1, 2].map(|k| center[k] + half[k]), 0.0);
}

/// A fixed body's pose.
fn fixed_pose(model: &SpatialModel, i: usize) -> Pose {
    let b = &model.bodies()[i];
    Pose {
        position: b.position,
        orientation: b.orientation,
    }
}

/// The fixed bodies' bounded shapes.
fn fixed_box(model: &SpatialModel, looks: &Looks) -> Box3 {
    let mut b = Box3::EMPTY;
    for i in 0..model.bodies().len() {
        if model.mover_of(i).is_none() && model.bodies()[i].shape.is_some() {
            looks.include(&mut b, i, &fixed_pose(model, i));
        }
    }
    b
}

/// Grows `b` to hold the moving bodies at `poses` (by moving index) and
/// the anchors of the joints, springs and dampers.
fn include_poses(b: &mut Box3, model: &SpatialModel, looks: &Looks, poses: &[Pose]) {
    for (m, pose) in poses.iter().enumerate() {
        looks.include(b, model.body_of(m), pose);
    }
    links::include_links(b, model, poses);
}

/// A half-space of outward `normal` (its frame) at `pose`, in the world:
/// a point of its plane and its outward unit normal.
fn plane_at(pose: &Pose, normal: [f64; 3]) -> Option<([f64; 3], [f64; 3])> {
    let n = apply(&matrix(pose.orientation), normal);
    let len = dot(n, n).sqrt();
    (len.is_finite() && len > 0.0).then(|| (pose.position, n.map(|x| x / len)))
}

/// The half-spaces of the model, world.
fn planes(model: &SpatialModel, looks: &Looks) -> Vec<([f64; 3], [f64; 3])> {
    looks
        .0
        .iter()
        .enumerate()
        .filter_map(|(i, look)| match look {
            Look::Halfspace(n) if model.mover_of(i).is_none() => {
                plane_at(&fixed_pose(model, i), *n)
            }
            _ => None,
        })
        .collect()
}

/// The box a drawing shows: `bodies` (the moving bodies over the states
/// drawn, and the bounded fixed shapes), reaching each half-space's plane
/// (the foot of their centre on it), grown by a margin so that floors and
/// walls show around them.
pub fn scene_box(model: &SpatialModel, bodies: &Box3) -> Box3 {
    let looks = Looks::of(model);
    scene_box_of(model, &looks, bodies)
}

fn scene_box_of(model: &SpatialModel, looks: &Looks, bodies: &Box3) -> Box3 {
    scene_box_with(&planes(model, looks), bodies)
}

/// [`scene_box`] of `bodies` and the half-spaces `planes` (world).
fn scene_box_with(planes: &[([f64; 3], [f64; 3])], bodies: &Box3) -> Box3 {
    let mut b = *bodies;
    let c = bodies.center();
    for &(p, n) in planes {
        let d = dot([0, 1, 2].map(|k| c[k] - p[k]), n);
        b.include([0, 1, 2].map(|k| c[k] - d * n[k]), 0.0);
    }
    if b.is_empty() {
        return b;
    }
    let side = (0..3).map(|k| b.max[k] - b.min[k]).fold(0.0, f64::max);
    b.grown(FLOOR_MARGIN * side.max(1e-3))
}

/// A face to draw: its corners in pixels, its depth, colours, which of
/// its edges are inked, and a segment drawn over it (a sphere's radius).
struct Face {
    points: Vec<[f64; 2]>,
    depth: f64,
    fill: [u8; 3],
    line: [u8; 3],
    ink: Vec<bool>,
    marker: Option<[[f64; 2]; 2]>,
}

/// The faces of body `i` (look `look`) at `pose`, towards the viewer.
fn faces_of(
    look: &Look,
    pose: &Pose,
    camera: &Camera,
    color: [u8; 3],
    line: [u8; 3],
    out: &mut Vec<Face>,
) {
    let finite = pose.position.iter().all(|x| x.is_finite());
    let Some(q) = normalized(pose.orientation).filter(|_| finite) else {
        return;
    };
    let r = matrix(q);
    let world = |p: [f64; 3]| {
        let rp = apply(&r, p);
        [0, 1, 2].map(|k| pose.position[k] + rp[k])
    };
    let toward = camera.toward();
    match look {
        Look::Mesh(mesh) => {
            let corners: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| world(*v)).collect();
            let normals: Vec<[f64; 3]> = mesh.normals.iter().map(|n| apply(&r, *n)).collect();
            let front: Vec<bool> = normals.iter().map(|n| dot(*n, toward) > 1e-9).collect();
            for (f, face) in mesh.faces.iter().enumerate() {
                if !front[f] {
                    continue;
                }
                let ink = mesh.across[f]
                    .iter()
                    .map(|a| a.is_none_or(|(g, sharp)| sharp || !front[g]))
                    .collect();
                let depth =
                    face.iter().map(|&v| camera.depth(corners[v])).sum::<f64>() / face.len() as f64;
                out.push(Face {
                    points: face.iter().map(|&v| camera.pixel_of(corners[v])).collect(),
                    depth,
                    fill: shade(color, normals[f]),
                    line,
                    ink,
                    marker: None,
                });
            }
        }
        Look::Sphere(radius) => {
            let (right, up) = camera.axes();
            let c = pose.position;
            let points = (0..DISC)
                .map(|s| {
                    let a = std::f64::consts::TAU * s as f64 / DISC as f64;
                    let (sin, cos) = a.sin_cos();
                    camera
                        .pixel_of([0, 1, 2].map(|k| c[k] + radius * (cos * right[k] + sin * up[k])))
                })
                .collect();
            let end = world([*radius, 0.0, 0.0]);
            out.push(Face {
                points,
                depth: camera.depth(c),
                fill: shade(color, toward),
                line,
                ink: vec![true; DISC],
                marker: Some([camera.pixel_of(c), camera.pixel_of(end)]),
            });
        }
        Look::Dot => {
            let [x, y] = camera.pixel_of(pose.position);
            let points = (0..12)
                .map(|s| {
                    let a = std::f64::consts::TAU * s as f64 / 12.0;
                    [x + DOT * a.cos(), y + DOT * a.sin()]
                })
                .collect();
            out.push(Face {
                points,
                depth: camera.depth(pose.position),
                fill: color,
                line,
                ink: vec![true; 12],
                marker: None,
            });
        }
        Look::Halfspace(_) => {}
    }
}

/// The half-spaces seen from their free side: each the part of its plane
/// inside `scene` and on the free side of the others.
fn floors(planes: &[([f64; 3], [f64; 3])], scene: &Box3, camera: &Camera, out: &mut Vec<Face>) {
    if scene.is_empty() {
        return;
    }
    let c = scene.center();
    let reach = (0..3)
        .map(|k| scene.max[k] - scene.min[k])
        .fold(0.0, f64::max);
    for (i, &(p, n)) in planes.iter().enumerate() {
        if dot(n, camera.toward()) <= 1e-9 {
            continue;
        }
        // A square of the plane about the foot of the centre, larger than
        // the box, cut by the box's six sides and the other half-spaces.
        let d = dot([0, 1, 2].map(|k| c[k] - p[k]), n);
        let foot = [0, 1, 2].map(|k| c[k] - d * n[k]);
        let (t1, t2) = tangents(n);
        let mut poly: Vec<[f64; 3]> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .map(|(a, b)| [0, 1, 2].map(|k| foot[k] + 2.0 * reach * (a * t1[k] + b * t2[k])))
            .collect();
        for k in 0..3 {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            poly = clip(&poly, e, scene.max[k]);
            e[k] = -1.0;
            poly = clip(&poly, e, -scene.min[k]);
        }
        for (j, &(q, m)) in planes.iter().enumerate() {
            if j != i {
                // Keep m . (x - q) >= 0: -m . x <= -m . q.
                poly = clip(&poly, m.map(|x| -x), -dot(m, q));
            }
        }
        if poly.len() < 3 {
            continue;
        }
        out.push(Face {
            depth: f64::NEG_INFINITY,
            points: poly.iter().map(|x| camera.pixel_of(*x)).collect(),
            fill: shade(FIXED_FILL, n),
            line: FIXED_LINE,
            ink: vec![true; poly.len()],
            marker: None,
        });
    }
}

/// Every face of the state `poses` (moving bodies) and of the fixed
/// bodies, in painter's order: half-spaces first, then the farthest face
/// first.
fn painted(
    model: &SpatialModel,
    looks: &Looks,
    scene: &Box3,
    camera: &Camera,
    poses: &[Pose],
) -> Vec<Face> {
    let parts = looks
        .0
        .iter()
        .enumerate()
        .filter_map(|(i, look)| match model.mover_of(i) {
            Some(m) => poses.get(m).map(|pose| (look, *pose, fill_color(m), INK)),
            None if model.bodies()[i].shape.is_some() => {
                Some((look, fixed_pose(model, i), FIXED_FILL, FIXED_LINE))
            }
            None => None,
        });
    paint(&planes(model, looks), parts, scene, camera)
}

/// The faces of `parts` (a look at a pose, its fill and line colours)
/// and of the half-spaces `planes` (world), in painter's order:
/// half-spaces first, then the farthest face first.
fn paint<'a>(
    planes: &[([f64; 3], [f64; 3])],
    parts: impl IntoIterator<Item = (&'a Look, Pose, [u8; 3], [u8; 3])>,
    scene: &Box3,
    camera: &Camera,
) -> Vec<Face> {
    let mut faces = Vec::new();
    floors(planes, scene, camera, &mut faces);
    for (look, pose, fill, line) in parts {
        faces_of(look, &pose, camera, fill, line, &mut faces);
    }
    faces.retain(|f| !f.depth.is_nan() && f.points.iter().flatten().all(|x| x.is_finite()));
    faces.sort_by(|a, b| a.depth.total_cmp(&b.depth));
    faces
}

/// Draws one panel: the faces of `frame`, the label.
fn draw_panel(
    area: &Area<'_>,
    model: &SpatialModel,
    looks: &Looks,
    scene: &Box3,
    camera: &Camera,
    frame: &Frame,
    title: &str,
) -> Result<(), String> {
    let rect = panel_rect(camera);
    let mut poses = Vec::new();
    model.poses_into(&frame.q, &mut poses);
    draw_faces(area, &painted(model, looks, scene, camera, &poses), &rect)?;
    // The joints, springs and dampers over the bodies.
    let reach: Vec<f64> = (0..poses.len())
        .map(|m| {
            looks.0[model.body_of(m)].extent().map_or(0.0, |(c, e)| {
                let far = [0, 1, 2].map(|k| c[k].abs() + e[k]);
                dot(far, far).sqrt()
            })
        })
        .collect();
    let (lines, dots) = links::strokes(
        &links(model, &poses),
        &poses,
        &reach,
        fill_color,
        camera,
        scene,
        INK,
        LINK,
        FIXED_LINE,
    );
    for line in lines {
        for pair in line.points.windows(2) {
            if let Some([a, b]) = clip_segment([pair[0], pair[1]], &rect) {
                area.draw(&PathElement::new(
                    vec![to_i(a), to_i(b)],
                    rgb(line.color).stroke_width(line.width),
                ))
                .map_err(text_error)?;
            }
        }
    }
    for (p, color) in dots {
        if rect_holds(&rect, p) {
            area.draw(&Circle::new(to_i(p), 3, rgb(color).filled()))
                .map_err(text_error)?;
        }
    }
    draw_scale_bar(area, camera.scale(), camera.size())?;
    draw_label(area, title, frame.t)
}

/// The rectangle of a panel, a pixel wider on every side.
fn panel_rect(camera: &Camera) -> Vec<[f64; 2]> {
    let (w, h) = camera.size();
    let (w, h) = (w as f64 + 1.0, h as f64 + 1.0);
    vec![[-1.0, -1.0], [w, -1.0], [w, h], [-1.0, h]]
}

/// Rounded to a pixel.
fn to_i(p: [f64; 2]) -> (i32, i32) {
    (p[0].round() as i32, p[1].round() as i32)
}

/// Draws `faces` in their order, each filled, its inked edges and its
/// marker over it, clipped to `rect`.
fn draw_faces(area: &Area<'_>, faces: &[Face], rect: &[[f64; 2]]) -> Result<(), String> {
    let segment = |ends: [[f64; 2]; 2], color: [u8; 3]| -> Result<(), String> {
        if let Some([a, b]) = clip_segment(ends, rect) {
            area.draw(&PathElement::new(
                vec![to_i(a), to_i(b)],
                rgb(color).stroke_width(2),
            ))
            .map_err(text_error)?;
        }
        Ok(())
    };
    for face in faces {
        let inside: Vec<(i32, i32)> = clip_to(&face.points, rect).into_iter().map(to_i).collect();
        if inside.len() >= 3 {
            area.draw(&Polygon::new(inside, rgb(face.fill).filled()))
                .map_err(text_error)?;
        }
        let n = face.points.len();
        for (k, inked) in face.ink.iter().enumerate() {
            if *inked {
                segment([face.points[k], face.points[(k + 1) % n]], face.line)?;
            }
        }
        if let Some(ends) = face.marker {
            segment(ends, face.line)?;
        }
    }
    Ok(())
}

/// Whether the pixel `p` is inside the rectangle `rect` (as `draw_panel`
/// makes it).
fn rect_holds(rect: &[[f64; 2]], p: [f64; 2]) -> bool {
    (rect[0][0]..=rect[2][0]).contains(&p[0]) && (rect[0][1]..=rect[2][1]).contains(&p[1])
}

/// The moving bodies over `frames` and the bounded fixed shapes.
fn bodies_box(model: &SpatialModel, looks: &Looks, frames: &[Frame]) -> Box3 {
    let mut b = fixed_box(model, looks);
    let mut poses = Vec::new();
    for f in frames {
        model.poses_into(&f.q, &mut poses);
        include_poses(&mut b, model, looks, &poses);
    }
    b
}

/// The camera of a drawing of `frames` in panels of `size` (what
/// [`write_png`] uses): from [`VIEW`], fitted to the [`scene_box`] of the
/// moving bodies over every frame.
pub fn camera_of(model: &SpatialModel, frames: &[Frame], size: (u32, u32)) -> Camera {
    let looks = Looks::of(model);
    let scene = scene_box_of(model, &looks, &bodies_box(model, &looks, frames));
    Camera::fit(&scene, VIEW, size)
}

/// Draws `frames` side by side (a grid of [`PANEL`]s, row by row) into a
/// PNG at `path`, whatever its extension, all with one [`camera_of`]
/// them. At most [`MAX_STILLS`] frames; no frames, frames of another
/// model, or a file that cannot be written are errors.
pub fn write_png(
    model: &SpatialModel,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    write(
        model,
        &Looks::of(model),
        None,
        Format::Png,
        frames,
        title,
        path,
    )
}

/// Animates `frames` (at most [`MAX_FRAMES`]) into a GIF at `path`, one
/// [`super::GIF_SIZE`] frame each, with one camera for them all.
pub fn write_gif(
    model: &SpatialModel,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    write(
        model,
        &Looks::of(model),
        None,
        Format::Gif,
        frames,
        title,
        path,
    )
}

/// Draws `frames` in `format`, the camera fitted to `bodies` (the moving
/// bodies over `frames` when `None`).
fn write(
    model: &SpatialModel,
    looks: &Looks,
    bodies: Option<&Box3>,
    format: Format,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    check_format(format, model.nq(), frames)?;
    let bodies = bodies
        .copied()
        .unwrap_or_else(|| bodies_box(model, looks, frames));
    let scene = scene_box_of(model, looks, &bodies);
    render(format, frames, path, &scene, |area, camera, frame| {
        draw_panel(area, model, looks, &scene, camera, frame, title)
    })
}

/// The frames must suit `format`: a PNG or GIF (an SVG is planar), of a
/// model of `nq` positions, at most as many as the format holds.
fn check_format(format: Format, nq: usize, frames: &[Frame]) -> Result<(), String> {
    let (most, what) = match format {
        Format::Png => (MAX_STILLS, "in one picture"),
        Format::Gif => (MAX_FRAMES, "in one animation"),
        Format::Svg => return Err(NO_SVG.into()),
    };
    check_frames(nq, frames, most, what)
}

/// Draws each of `frames` by `panel(area, camera, frame)` in `format`
/// (checked by [`check_format`]), with one camera from [`VIEW`] fitted
/// to `scene`.
fn render(
    format: Format,
    frames: &[Frame],
    path: &Path,
    scene: &Box3,
    mut panel: impl FnMut(&Area<'_>, &Camera, &Frame) -> Result<(), String>,
) -> Result<(), String> {
    let size = match format {
        Format::Gif => super::GIF_SIZE,
        _ => PANEL,
    };
    let camera = Camera::fit(scene, VIEW, size);
    let panel = |area: &Area<'_>, i: usize| panel(area, &camera, &frames[i]);
    match format {
        Format::Gif => raster::write_animation(frames.len(), delay_ms(frames), path, panel),
        _ => raster::write_stills(frames.len(), path, panel),
    }
}

/// What a film draws, and the box to fit them in: the states `reel` kept
/// and `bounds`, the bodies over every sample (for a PNG, `None`: the
/// instants alone, as `write_png` draws them); without samples, the start
/// `initial()` alone (`None`).
fn to_draw<'b>(
    reel: &Reel,
    bounds: &'b Box3,
    format: Format,
    initial: impl FnOnce() -> Vec<f64>,
) -> (Vec<Frame>, Option<&'b Box3>) {
    let mut frames = reel.frames();
    if frames.is_empty() {
        frames.push(Frame {
            t: 0.0,
            q: initial(),
        });
        return (frames, None);
    }
    (frames, (format != Format::Png).then_some(bounds))
}

/// What `--draw FILE.svg` says of a spatial scene.
pub const NO_SVG: &str = "--draw: an SVG animation is planar for now; use .png or .gif";

/// The states a drawing of a [`SpatialModel`]'s run needs, kept as the
/// run goes (an [`Observer`]; the planar [`super::Film`]'s twin): a few
/// instants, or at most [`MAX_FRAMES`] evenly spaced samples and the last
/// one. [`Film::write`] draws them.
///
/// ```
/// use zwang_geometry::spatial::Shape;
/// use zwang_model::spatial::{SpatialBody, SpatialKind, SpatialModel};
/// use zwang_draw::draw::{space::Film, Format};
/// use zwang_motion::simulate_space;
/// use zwang_motion::StepSettings;
///
/// let mut cube = SpatialBody::new("cube", SpatialKind::Rigid { mass: 1.0, inertia: None });
/// cube.position = [0.0, 0.0, 0.5];
/// cube.shape = Some(Shape::Box { half_extents: [0.5; 3] });
/// let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
/// floor.shape = Some(Shape::Halfspace { normal: [0.0, 0.0, 1.0] });
/// let model = SpatialModel::new([0.0, 0.0, -9.81], vec![cube, floor], vec![]).unwrap();
/// let mut film = Film::new(&model, Format::Png, &[0.0, 0.1]);
/// simulate_space(&model, 0.1, &StepSettings::default(), &mut film);
/// assert_eq!(film.frames().len(), 2);
/// let path = std::env::temp_dir().join(format!("zwang-film3-{}.png", std::process::id()));
/// film.write("a cube", &path).unwrap();
/// # std::fs::remove_file(path).unwrap();
/// ```
pub struct Film<'m> {
    model: &'m SpatialModel,
    format: Format,
    reel: Reel,
    looks: Looks,
    /// The moving bodies over every sample, and the fixed ones.
    bounds: Box3,
    poses: Vec<Pose>,
}

impl<'m> Film<'m> {
    /// A film of `model` for `format`: a PNG keeps the samples nearest
    /// `times` (s; none: the last sample), an animation at most
    /// [`MAX_FRAMES`] samples (and ignores `times`).
    pub fn new(model: &'m SpatialModel, format: Format, times: &[f64]) -> Film<'m> {
        let looks = Looks::of(model);
        Film {
            model,
            format,
            reel: Reel::new(format, times),
            bounds: fixed_box(model, &looks),
            looks,
            poses: Vec::new(),
        }
    }

    /// The states kept, in time order (the last sample included).
    pub fn frames(&self) -> Vec<Frame> {
        self.reel.frames()
    }

    /// Draws the states kept into `path` (its format chosen when the film
    /// was made), titled `title`; without samples, the model's initial
    /// state. A file that cannot be written, or an SVG, is an error.
    pub fn write(&self, title: &str, path: &Path) -> Result<(), String> {
        let (frames, bounds) = to_draw(&self.reel, &self.bounds, self.format, || {
            Frame::initial(self.model).q
        });
        let looks = &self.looks;
        write(self.model, looks, bounds, self.format, &frames, title, path)
    }
}

impl Observer for Film<'_> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], _v: &[f64], _contacts: &[ContactSample]) {
        if q.len() == self.model.nq() {
            self.model.poses_into(q, &mut self.poses);
            include_poses(&mut self.bounds, self.model, &self.looks, &self.poses);
        }
        self.reel.sample(t, q);
    }
}

#[cfg(test)]
mod tests;
