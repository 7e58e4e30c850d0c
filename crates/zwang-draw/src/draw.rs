//! Pictures of a run of a [`PlanarModel`]: `zwang simulate --draw FILE`.
//!
//! What is drawn, at a state `q`:
//!
//! - each moving body's shape, filled in its colour ([`fill_color`]) with a
//!   dark outline: circles (with a radius line, so that rotation shows),
//!   boxes, polygons, capsules; a rigid body without a shape as the hull
//!   of the points joints, springs and contacts hold it by and of their
//!   mirror images through its centre (a block held at two corners is
//!   drawn whole, a rod held at its ends as the rod), with a small cross
//!   at its centre; a particle as a dot;
//! - the fixed bodies' shapes in grey ([`FIXED_FILL`]), a half-plane as the
//!   part of it inside the view;
//! - the surfaces of the `[[contact]]` points in grey: a line as the
//!   half-plane behind it, a circle as a disk;
//! - each joint as a line between its two anchors (a knife edge as a short
//!   blade at its anchor; a slider or a slot on the ground as its rail
//!   across the view), springs as zigzags and dampers as lines thick in
//!   their middle;
//! - a scale bar ([`scale_bar`]) and a label: the title and the time.
//!
//! The [`View`] is fitted to [`bounds_of`] the states drawn: every moving
//! body whole at every state, the bounded fixed shapes, the ground's
//! anchors, and the half-planes near them ([`with_surfaces`]), with equal
//! scales on both axes and a margin.
//!
//! Three outputs, chosen by the file's extension ([`Format`]): a PNG of
//! some instants side by side, a GIF animation (plotters' bitmap backend),
//! or an SVG animation (SMIL `animateTransform` and `animate` over the
//! sampled poses, written as text). A [`Film`] is the [`Observer`] that
//! keeps, while the run goes, only the states it will draw: the instants
//! asked for, or at most [`MAX_FRAMES`] evenly spaced samples; its memory
//! does not grow with the length of the run.

use crate::plot::{text_error, FONT};
use plotters::coord::Shift;
use plotters::prelude::*;
use reel::Reel;
use std::fmt::Write as _;
use std::path::Path;
use zwang_geometry::{Pose, Shape};
use zwang_model::planar::{BodyKind, BodyRef, Force, JointKind, PlanarModel, Surface};
use zwang_model::Coordinates;
use zwang_motion::{ContactSample, Observer};

mod raster;
mod reel;
pub mod space;

/// Size of one panel of a PNG (and of the SVG), pixels.
pub const PANEL: (u32, u32) = (640, 480);
/// Size of a GIF's frames, pixels.
pub const GIF_SIZE: (u32, u32) = (480, 360);
/// The most frames of an animation.
pub const MAX_FRAMES: usize = 300;
/// The most instants of one PNG.
pub const MAX_STILLS: usize = 16;
/// Margin between the bodies' bounding box and a panel's edge, pixels.
const MARGIN: f64 = 36.0;
/// The background.
pub const BACKGROUND: [u8; 3] = [255, 255, 255];
/// The fill of fixed shapes and contact surfaces.
pub const FIXED_FILL: [u8; 3] = [200, 200, 200];
/// The outline of fixed shapes and contact surfaces.
const FIXED_LINE: [u8; 3] = [120, 120, 120];
/// The outlines of the moving bodies and the joints' lines.
const INK: [u8; 3] = [40, 40, 40];
/// Springs and dampers.
pub(crate) const LINK: [u8; 3] = [90, 60, 30];
/// Coordinates beyond this magnitude (m) are left out of the view.
const LIMIT: f64 = 1e9;
/// Segments of a full circle's outline.
const CIRCLE_SEGMENTS: usize = 64;
/// The longest title drawn, characters.
const TITLE_CHARS: usize = 60;

/// The moving bodies' fills, in turn ("tab10" without its grey).
const PALETTE: [[u8; 3]; 9] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [188, 189, 34],
    [23, 190, 207],
];

/// The fill of moving body `body` (its index in the model).
pub fn fill_color(body: usize) -> [u8; 3] {
    PALETTE[body % PALETTE.len()]
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// What `--draw FILE` writes, by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.png`: the instants asked for (or the final state), side by side.
    Png,
    /// `.gif`: an animation of the run.
    Gif,
    /// `.svg`: an animation of the run (SMIL).
    Svg,
}

impl Format {
    /// The format of `path` by its extension (any case); the error names
    /// `--draw`.
    pub fn of(path: &Path) -> Result<Format, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("png") => Ok(Format::Png),
            Some("gif") => Ok(Format::Gif),
            Some("svg") => Ok(Format::Svg),
            _ => Err(format!(
                "--draw: {}: the file must end in .png, .gif or .svg",
                path.display()
            )),
        }
    }
}

/// A state to draw: its time and positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// s.
    pub t: f64,
    /// The model's positions.
    pub q: Vec<f64>,
}

impl Frame {
    /// `model`'s initial state at `t = 0`: what a drawing of a run that
    /// gave no sample (it stopped at its start) shows.
    pub fn initial(model: &impl Coordinates) -> Frame {
        let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
        model.initial_state(&mut q, &mut v);
        Frame { t: 0.0, q }
    }
}

/// A box of the plane (or, `Bounds<3>`, of space), possibly empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds<const N: usize = 2> {
    /// Lowest corner (lower-left in the plane), m.
    pub min: [f64; N],
    /// Highest corner (upper-right in the plane), m.
    pub max: [f64; N],
}

impl<const N: usize> Default for Bounds<N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const N: usize> Bounds<N> {
    /// Nothing.
    pub const EMPTY: Self = Bounds {
        min: [f64::INFINITY; N],
        max: [f64::NEG_INFINITY; N],
    };

    /// Grows to hold the disk (ball) of `radius` at `p`; points that are
    /// not finite, or beyond a billion metres, are left out.
    pub fn include(&mut self, p: [f64; N], radius: f64) {
        if !(p.iter().all(|x| x.is_finite() && x.abs() < LIMIT) && radius < LIMIT) {
            return;
        }
        for k in 0..N {
            self.min[k] = self.min[k].min(p[k] - radius);
            self.max[k] = self.max[k].max(p[k] + radius);
        }
    }

    /// Grows to hold `other`.
    pub fn union(&mut self, other: &Self) {
        for k in 0..N {
            self.min[k] = self.min[k].min(other.min[k]);
            self.max[k] = self.max[k].max(other.max[k]);
        }
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        !(0..N).all(|k| self.min[k] <= self.max[k])
    }
}

/// The map from the plane (m, y up) to a panel's pixels (y down): equal
/// scales, the bounds centred with a margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    center: [f64; 2],
    scale: f64,
    size: (u32, u32),
}

impl View {
    /// The view of `bounds` in a panel of `size` pixels. Empty bounds are
    /// the square from -1 to 1; a point (or a box thinner than a
    /// millimetre both ways) gets a metre around it.
    pub fn fit(bounds: &Bounds, size: (u32, u32)) -> View {
        let b = if bounds.is_empty() {
            Bounds {
                min: [-1.0; 2],
                max: [1.0; 2],
            }
        } else {
            *bounds
        };
        let center = [0.5 * (b.min[0] + b.max[0]), 0.5 * (b.min[1] + b.max[1])];
        let span = [b.max[0] - b.min[0], b.max[1] - b.min[1]];
        let room = [
            (size.0 as f64 - 2.0 * MARGIN).max(1.0),
            (size.1 as f64 - 2.0 * MARGIN).max(1.0),
        ];
        let span = if span[0].max(span[1]) < 1e-3 {
            [1.0, 1.0]
        } else {
            span
        };
        let scale = (room[0] / span[0]).min(room[1] / span[1]);
        View {
            center,
            scale,
            size,
        }
    }

    /// Pixels per metre.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The pixel of `p` (rounded; far points saturate).
    pub fn to_pixel(&self, p: [f64; 2]) -> (i32, i32) {
        let [x, y] = self.pixel_of(p);
        (x.round() as i32, y.round() as i32)
    }

    fn pixel_of(&self, p: [f64; 2]) -> [f64; 2] {
        [
            0.5 * self.size.0 as f64 + (p[0] - self.center[0]) * self.scale,
            0.5 * self.size.1 as f64 - (p[1] - self.center[1]) * self.scale,
        ]
    }

    fn world_of(&self, px: [f64; 2]) -> [f64; 2] {
        [
            self.center[0] + (px[0] - 0.5 * self.size.0 as f64) / self.scale,
            self.center[1] - (px[1] - 0.5 * self.size.1 as f64) / self.scale,
        ]
    }

    /// The panel's rectangle, a pixel beyond each edge, in pixels.
    fn frame_px(&self) -> Vec<[f64; 2]> {
        let (w, h) = (self.size.0 as f64 + 1.0, self.size.1 as f64 + 1.0);
        vec![[-1.0, -1.0], [w, -1.0], [w, h], [-1.0, h]]
    }
}

/// The scale bar of a panel `width` pixels wide drawn at `scale` pixels a
/// metre: the longest round length (1, 2 or 5 times a power of ten, m)
/// whose bar is at most a quarter of the width, and the bar's length in
/// pixels (so between a tenth and a quarter of the width); `None` for a
/// scale that is not a positive number.
pub fn scale_bar(scale: f64, width: u32) -> Option<(f64, f64)> {
    let most = 0.25 * width as f64 / scale;
    if !(most.is_finite() && most > 0.0) {
        return None;
    }
    let decade = 10f64.powf(most.log10().floor());
    let length = [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|l| *l <= most * (1.0 + 1e-12))
        .unwrap_or(decade);
    Some((length, length * scale))
}

/// A round length as the scale bar says it: in km, m, cm, mm or um,
/// whichever gives a number of at least 1 (`"0.5 m"` is `"50 cm"`).
pub fn length_label(length: f64) -> String {
    const UNITS: [(f64, &str); 5] = [
        (1e3, "km"),
        (1.0, "m"),
        (1e-2, "cm"),
        (1e-3, "mm"),
        (1e-6, "µm"),
    ];
    let (unit, name) = UNITS
        .iter()
        .find(|(u, _)| length >= u * (1.0 - 1e-9))
        .copied()
        .unwrap_or((1e-6, "µm"));
    let x = length / unit;
    let text = format!("{:.3}", x);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {name}")
}

/// Pixels between the scale bar and the panel's lower left corner.
const BAR_INSET: i32 = 12;

/// Draws the [`scale_bar`] of `scale` (pixels a metre) in the lower left
/// corner of a panel of `size`: a bar with end ticks and its length.
pub(crate) fn draw_scale_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: f64,
    size: (u32, u32),
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let Some((length, pixels)) = scale_bar(scale, size.0) else {
        return Ok(());
    };
    let (x0, y) = (BAR_INSET, size.1 as i32 - BAR_INSET);
    let x1 = x0 + pixels.round() as i32;
    let ink = rgb(INK).stroke_width(2);
    for segment in [
        [(x0, y), (x1, y)],
        [(x0, y - 5), (x0, y)],
        [(x1, y - 5), (x1, y)],
    ] {
        area.draw(&PathElement::new(segment.to_vec(), ink))
            .map_err(text_error)?;
    }
    let style = TextStyle::from((FONT, 14)).color(&BLACK);
    area.draw_text(&length_label(length), &style, (x1 + 8, y - 12))
        .map_err(text_error)
}

/// `p` turned by `angle` then moved by `position`.
fn place(pose: &Pose, p: [f64; 2]) -> [f64; 2] {
    let (s, c) = pose.angle.sin_cos();
    [
        pose.position[0] + c * p[0] - s * p[1],
        pose.position[1] + s * p[0] + c * p[1],
    ]
}

/// Points of an arc about `center` from angle `a0` to `a1`, both ends in.
fn arc(center: [f64; 2], radius: f64, a0: f64, a1: f64, segments: usize) -> Vec<[f64; 2]> {
    (0..=segments)
        .map(|i| {
            let a = a0 + (a1 - a0) * i as f64 / segments as f64;
            [center[0] + radius * a.cos(), center[1] + radius * a.sin()]
        })
        .collect()
}

/// A bounded shape's outline in its body's frame, counter-clockwise
/// (`None`: a half-plane).
fn outline(shape: &Shape) -> Option<Vec<[f64; 2]>> {
    use std::f64::consts::{FRAC_PI_2, PI};
    match shape {
        Shape::Circle { radius } => {
            let mut points = arc([0.0; 2], *radius, 0.0, 2.0 * PI, CIRCLE_SEGMENTS);
            points.pop();
            Some(points)
        }
        Shape::Box {
            half_extents: [a, b],
        } => Some(vec![[-a, -b], [*a, -b], [*a, *b], [-a, *b]]),
        Shape::Polygon { vertices } => Some(vertices.clone()),
        Shape::Capsule {
            half_length: l,
            radius: r,
        } => {
            let half = CIRCLE_SEGMENTS / 2;
            let mut points = arc([*l, 0.0], *r, -FRAC_PI_2, FRAC_PI_2, half);
            points.extend(arc([-l, 0.0], *r, FRAC_PI_2, 3.0 * FRAC_PI_2, half));
            Some(points)
        }
        Shape::HalfPlane { .. } => None,
    }
}

/// The part of the convex polygon `poly` where `n . p <= c`
/// (Sutherland-Hodgman against one line, or one plane in space).
fn clip<const N: usize>(poly: &[[f64; N]], n: [f64; N], c: f64) -> Vec<[f64; N]> {
    let side = |p: &[f64; N]| (0..N).map(|k| n[k] * p[k]).sum::<f64>() - c;
    let mut out = Vec::with_capacity(poly.len() + 2);
    for (i, p) in poly.iter().enumerate() {
        let q = &poly[(i + 1) % poly.len()];
        let (sp, sq) = (side(p), side(q));
        if sp <= 0.0 {
            out.push(*p);
        }
        if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
            let s = sp / (sp - sq);
            out.push(std::array::from_fn(|k| p[k] + s * (q[k] - p[k])));
        }
    }
    out
}

/// `poly` (pixels) clipped to the rectangle `rect` (pixels, as
/// [`View::frame_px`] gives it).
fn clip_to(poly: &[[f64; 2]], rect: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let (lo, hi) = (rect[0], rect[2]);
    let mut out = poly.to_vec();
    for (n, c) in [
        ([-1.0, 0.0], -lo[0]),
        ([1.0, 0.0], hi[0]),
        ([0.0, -1.0], -lo[1]),
        ([0.0, 1.0], hi[1]),
    ] {
        if out.is_empty() {
            break;
        }
        out = clip(&out, n, c);
    }
    out
}

/// The part of the plane behind the line through `point` with outward
/// `normal`, inside `rect` (a convex polygon, same units).
fn behind(rect: &[[f64; 2]], point: [f64; 2], normal: [f64; 2]) -> Vec<[f64; 2]> {
    clip(rect, normal, normal[0] * point[0] + normal[1] * point[1])
}

/// What is drawn, whatever the output: filled polygons, segments and
/// dots, in world coordinates, in drawing order.
enum Mark {
    /// A filled polygon with an outline.
    Fill {
        points: Vec<[f64; 2]>,
        fill: [u8; 3],
        line: [u8; 3],
    },
    /// A segment, `width` pixels wide.
    Line {
        ends: [[f64; 2]; 2],
        color: [u8; 3],
        width: u32,
    },
    /// An open polyline (a spring's coils), `width` pixels wide.
    Path {
        points: Vec<[f64; 2]>,
        color: [u8; 3],
        width: u32,
    },
    /// A dot of a radius in pixels.
    Dot {
        at: [f64; 2],
        pixels: f64,
        fill: [u8; 3],
    },
}

/// The world direction `(cos a, sin a)` scaled by `length`, from `p`.
fn toward(p: [f64; 2], a: f64, length: f64) -> [f64; 2] {
    [p[0] + length * a.cos(), p[1] + length * a.sin()]
}

/// The unmoving marks: fixed shapes and contact surfaces, `rect` being the
/// view's rectangle in world coordinates.
fn still_marks(model: &PlanarModel, rect: &[[f64; 2]]) -> Vec<Mark> {
    let mut marks = Vec::new();
    let grey = |points| Mark::Fill {
        points,
        fill: FIXED_FILL,
        line: FIXED_LINE,
    };
    for f in model.fixed_list() {
        let Some(shape) = &f.shape else { continue };
        let pose = Pose {
            position: f.position,
            angle: f.angle,
        };
        match (shape, outline(shape)) {
            (_, Some(points)) => {
                marks.push(grey(points.iter().map(|p| place(&pose, *p)).collect()))
            }
            (Shape::HalfPlane { normal }, None) => {
                let n = place(
                    &Pose {
                        position: [0.0; 2],
                        angle: f.angle,
                    },
                    *normal,
                );
                marks.push(grey(behind(rect, f.position, n)));
            }
            _ => {}
        }
    }
    // The ground's rails, across the view.
    let reach = rect.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max);
    for joint in model.joint_list() {
        let Some(axis) = is_ground_rail(joint) else {
            continue;
        };
        let p = joint.anchors[0];
        let length = 2.0 * (reach + p[0].hypot(p[1]));
        marks.push(Mark::Line {
            ends: [
                [p[0] - length * axis[0], p[1] - length * axis[1]],
                [p[0] + length * axis[0], p[1] + length * axis[1]],
            ],
            color: FIXED_LINE,
            width: 3,
        });
    }
    for c in model.contact_list() {
        match &c.surface {
            Surface::Line { point, normal } => marks.push(grey(behind(rect, *point, *normal))),
            Surface::Circle { center, radius } => {
                let mut points = arc(
                    *center,
                    *radius,
                    0.0,
                    std::f64::consts::TAU,
                    CIRCLE_SEGMENTS,
                );
                points.pop();
                marks.push(grey(points));
            }
        }
    }
    marks
}

/// The world position of a joint's anchor `side` (0 or 1) at `poses`.
fn anchor(joint: &zwang_model::planar::Joint, side: usize, poses: &[Pose]) -> Option<[f64; 2]> {
    match joint.bodies[side] {
        BodyRef::Ground => Some(joint.anchors[side]),
        BodyRef::Body(b) => poses.get(b).map(|pose| place(pose, joint.anchors[side])),
    }
}

/// Whether a joint is a rail of the ground (a slider or a slot whose first
/// body is the ground): drawn once, as a still line.
fn is_ground_rail(joint: &zwang_model::planar::Joint) -> Option<[f64; 2]> {
    match joint.kind {
        JointKind::Slider { axis } | JointKind::Slot { axis }
            if joint.bodies[0] == BodyRef::Ground =>
        {
            Some(axis)
        }
        _ => None,
    }
}

/// The two ends of a spring or a damper at `poses` (`None`: a constant
/// force, or a body not in `poses`), and whether it is a spring.
fn link_ends(force: &Force, poses: &[Pose]) -> Option<([[f64; 2]; 2], bool)> {
    let (bodies, anchors, spring) = match force {
        Force::Spring {
            bodies, anchors, ..
        } => (bodies, anchors, true),
        Force::Damper {
            bodies, anchors, ..
        } => (bodies, anchors, false),
        Force::Constant { .. } => return None,
    };
    let end = |side: usize| match bodies[side] {
        BodyRef::Ground => Some(anchors[side]),
        BodyRef::Body(b) => poses.get(b).map(|pose| place(pose, anchors[side])),
    };
    Some(([end(0)?, end(1)?], spring))
}

/// Coils of a drawn spring.
pub(crate) const COILS: usize = 8;
/// Half the width of a drawn spring's coils, pixels.
pub(crate) const COIL_PIXELS: f64 = 6.0;

/// A spring's zigzag from `a` to `b` ([`COILS`] coils, straight ends), of
/// half width `half` (m).
pub(crate) fn spring_path(a: [f64; 2], b: [f64; 2], half: f64) -> Vec<[f64; 2]> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len = d[0].hypot(d[1]);
    if !(len.is_finite() && len > 0.0) {
        return vec![a, b];
    }
    let n = [-d[1] / len, d[0] / len];
    let at = |s: f64, w: f64| [a[0] + s * d[0] + w * n[0], a[1] + s * d[1] + w * n[1]];
    let mut points = vec![a, at(0.15, 0.0)];
    let zigs = 2 * COILS;
    for k in 0..zigs {
        let s = 0.15 + 0.7 * (k as f64 + 0.5) / zigs as f64;
        let w = if k % 2 == 0 { half } else { -half };
        points.push(at(s, w));
    }
    points.push(at(0.85, 0.0));
    points.push(b);
    points
}

/// The marks of a spring (its zigzag) or a damper (a line, thick in its
/// middle third) between `ends`; `pixel` is the length of a pixel, m.
fn link_marks(ends: [[f64; 2]; 2], spring: bool, pixel: f64) -> Vec<Mark> {
    let [a, b] = ends;
    if spring {
        return vec![Mark::Path {
            points: spring_path(a, b, COIL_PIXELS * pixel),
            color: LINK,
            width: 2,
        }];
    }
    let at = |s: f64| [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])];
    vec![
        Mark::Line {
            ends,
            color: LINK,
            width: 2,
        },
        Mark::Line {
            ends: [at(1.0 / 3.0), at(2.0 / 3.0)],
            color: LINK,
            width: 8,
        },
    ]
}

/// The marks of the moving bodies, the joints, the springs and the
/// dampers at `poses`; `pixel` is the length of a pixel, m.
fn body_marks(model: &PlanarModel, poses: &[Pose], pixel: f64) -> Vec<Mark> {
    let mut marks = Vec::new();
    let mut dots = Vec::new();
    for (i, (body, pose)) in model.body_list().iter().zip(poses).enumerate() {
        if pose.position.iter().all(|x| x.is_finite()) && pose.angle.is_finite() {
            let held = held_points(model, i);
            one_body(body, i, pose, &held, pixel, &mut marks, &mut dots);
        }
    }
    for force in model.force_list() {
        if let Some((ends, spring)) = link_ends(force, poses) {
            dots.extend(link_marks(ends, spring, pixel));
        }
    }
    for joint in model.joint_list() {
        if let JointKind::KnifeEdge { axis } = joint.kind {
            let (Some(p), BodyRef::Body(b)) = (anchor(joint, 1, poses), joint.bodies[1]) else {
                continue;
            };
            let a = poses.get(b).map_or(0.0, |pose| pose.angle) + axis[1].atan2(axis[0]);
            let ends = [toward(p, a, -8.0 * pixel), toward(p, a, 8.0 * pixel)];
            dots.push(Mark::Line {
                ends,
                color: INK,
                width: 2,
            });
            continue;
        }
        let (Some(a), Some(b)) = (anchor(joint, 0, poses), anchor(joint, 1, poses)) else {
            continue;
        };
        if is_ground_rail(joint).is_none() {
            dots.push(Mark::Line {
                ends: [a, b],
                color: INK,
                width: 2,
            });
        }
        for at in [a, b] {
            dots.push(Mark::Dot {
                at,
                pixels: 3.0,
                fill: INK,
            });
        }
    }
    marks.extend(dots);
    marks
}

/// The bounded fixed shapes and contact circles, and the points joints,
/// springs and dampers hold on the ground.
fn fixed_bounds(model: &PlanarModel) -> Bounds {
    let mut b = Bounds::EMPTY;
    for f in model.fixed_list() {
        if let Some(shape) = &f.shape {
            let pose = Pose {
                position: f.position,
                angle: f.angle,
            };
            Extent::of(Some(shape), &[]).include(&mut b, &pose);
        }
    }
    for c in model.contact_list() {
        if let Surface::Circle { center, radius } = c.surface {
            b.include(center, radius);
        }
    }
    for joint in model.joint_list() {
        if joint.bodies[0] == BodyRef::Ground && !matches!(joint.kind, JointKind::KnifeEdge { .. })
        {
            b.include(joint.anchors[0], 0.0);
        }
    }
    for force in model.force_list() {
        if let Force::Spring {
            bodies, anchors, ..
        }
        | Force::Damper {
            bodies, anchors, ..
        } = force
        {
            for side in 0..2 {
                if bodies[side] == BodyRef::Ground {
                    b.include(anchors[side], 0.0);
                }
            }
        }
    }
    b
}

/// What a body covers, in its frame: a disk about its centre and points
/// (its outline's corners, and the points it is held by).
#[derive(Debug, Clone, PartialEq)]
struct Extent {
    radius: f64,
    points: Vec<[f64; 2]>,
}

impl Extent {
    /// The extent of a body of `shape` held at `held`: a circle's disk, or
    /// the corners of its outline; a rigid body without a shape the hull
    /// of `held` and their mirror images ([`guessed_outline`]); the held
    /// points themselves in any case (an anchor off the shape).
    fn of(shape: Option<&Shape>, held: &[[f64; 2]]) -> Extent {
        let mut points = held.to_vec();
        let radius = match shape {
            Some(Shape::Circle { radius }) => *radius,
            Some(shape) => {
                points.extend(outline(shape).unwrap_or_default());
                0.0
            }
            None => {
                points.extend(guessed_outline(held).unwrap_or_default());
                0.0
            }
        };
        Extent { radius, points }
    }

    /// Grows `bounds` to hold it at `pose`.
    fn include(&self, bounds: &mut Bounds, pose: &Pose) {
        bounds.include(pose.position, self.radius);
        for p in &self.points {
            bounds.include(place(pose, *p), 0.0);
        }
    }
}

/// Each moving body's [`Extent`].
fn extents(model: &PlanarModel) -> Vec<Extent> {
    let bodies = model.body_list();
    (0..bodies.len())
        .map(|i| {
            let held = held_points(model, i);
            match (bodies[i].kind, &bodies[i].shape) {
                // A particle without a shape: a dot, and its anchors.
                (BodyKind::Particle, None) => Extent {
                    radius: 0.0,
                    points: held,
                },
                (_, shape) => Extent::of(shape.as_ref(), &held),
            }
        })
        .collect()
}

/// Grows `bounds` to hold the moving bodies at `poses`, each its extent
/// (`extents`) there.
fn include_poses(bounds: &mut Bounds, extents: &[Extent], poses: &[Pose]) {
    for (e, pose) in extents.iter().zip(poses) {
        if pose.position.iter().all(|x| x.is_finite()) && pose.angle.is_finite() {
            e.include(bounds, pose);
        }
    }
}

/// The half-planes of the model (fixed bodies' and `[[contact]]` lines):
/// a point of each boundary and its unit outward normal.
fn half_planes(model: &PlanarModel) -> Vec<([f64; 2], [f64; 2])> {
    let mut out = Vec::new();
    for f in model.fixed_list() {
        if let Some(Shape::HalfPlane { normal }) = &f.shape {
            let turned = Pose {
                position: [0.0; 2],
                angle: f.angle,
            };
            out.push((f.position, place(&turned, *normal)));
        }
    }
    for c in model.contact_list() {
        if let Surface::Line { point, normal } = c.surface {
            out.push((point, normal));
        }
    }
    out.retain(|(p, n)| {
        let len = n[0].hypot(n[1]);
        p.iter().all(|x| x.is_finite()) && len.is_finite() && len > 0.0
    });
    for (_, n) in &mut out {
        let len = n[0].hypot(n[1]);
        *n = [n[0] / len, n[1] / len];
    }
    out
}

/// How far behind its boundary a half-plane is shown, as a share of the
/// larger side of what else is drawn.
const SURFACE_DEPTH: f64 = 0.1;
/// A half-plane whose boundary is farther than this from what else is
/// drawn (as a share of its larger side) does not widen the view.
const SURFACE_NEAR: f64 = 1.0;

/// `bodies` (the moving bodies over the states drawn and the bounded fixed
/// shapes) grown to show each half-plane near them: the foot on its
/// boundary of each corner of `bodies`, and a band behind it.
pub fn with_surfaces(model: &PlanarModel, bodies: &Bounds) -> Bounds {
    let mut out = *bodies;
    if bodies.is_empty() {
        return out;
    }
    let side = (bodies.max[0] - bodies.min[0])
        .max(bodies.max[1] - bodies.min[1])
        .max(1e-3);
    let corners = [
        bodies.min,
        [bodies.max[0], bodies.min[1]],
        bodies.max,
        [bodies.min[0], bodies.max[1]],
    ];
    for (p, n) in half_planes(model) {
        let height = |c: [f64; 2]| n[0] * (c[0] - p[0]) + n[1] * (c[1] - p[1]);
        let nearest = corners
            .iter()
            .map(|c| height(*c))
            .fold(f64::INFINITY, f64::min);
        if nearest > SURFACE_NEAR * side {
            continue;
        }
        for c in corners {
            let h = height(c);
            let foot = [c[0] - h * n[0], c[1] - h * n[1]];
            out.include(foot, 0.0);
            let depth = SURFACE_DEPTH * side;
            out.include([foot[0] - depth * n[0], foot[1] - depth * n[1]], 0.0);
        }
    }
    out
}

/// The view of `frames` in a panel of `size` (what the drawings of
/// [`write_png`] use): fitted to [`bounds_of`] them.
pub fn view_of(model: &PlanarModel, frames: &[Frame], size: (u32, u32)) -> View {
    View::fit(&bounds_of(model, frames), size)
}

/// What a drawing of `frames` shows: every moving body whole (its shape,
/// or the points it is held by) at every frame, the bounded fixed shapes,
/// the ground's anchors, and the half-planes near them ([`with_surfaces`]).
pub fn bounds_of(model: &PlanarModel, frames: &[Frame]) -> Bounds {
    let mut bounds = fixed_bounds(model);
    let extents = extents(model);
    let mut poses = Vec::new();
    for f in frames {
        if f.q.len() == model.nq() {
            model.poses_into(&f.q, &mut poses);
            include_poses(&mut bounds, &extents, &poses);
        }
    }
    with_surfaces(model, &bounds)
}

/// Every frame must be of the model, and there must be one to `most`
/// (`what`: in one picture, in one animation).
fn check_frames(nq: usize, frames: &[Frame], most: usize, what: &str) -> Result<(), String> {
    if frames.is_empty() {
        return Err("no states to draw".into());
    }
    if frames.len() > most {
        return Err(format!("at most {most} states {what}"));
    }
    match frames.iter().position(|f| f.q.len() != nq) {
        Some(i) => Err(format!(
            "state {i} has {} positions, the model {nq}",
            frames[i].q.len(),
        )),
        None => Ok(()),
    }
}

/// A label's text: the title (cut short) and the time.
fn label(title: &str, t: f64) -> String {
    let title: String = title
        .chars()
        .filter(|c| !c.is_control())
        .take(TITLE_CHARS)
        .collect();
    format!("{title}   t = {t:.3} s")
}

/// Draws one panel: the marks of `frame` in `view`, the label.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    model: &PlanarModel,
    view: &View,
    frame: &Frame,
    title: &str,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let rect_px = view.frame_px();
    let rect: Vec<[f64; 2]> = rect_px.iter().map(|p| view.world_of(*p)).collect();
    let mut poses = Vec::new();
    model.poses_into(&frame.q, &mut poses);
    let marks =
        still_marks(model, &rect)
            .into_iter()
            .chain(body_marks(model, &poses, 1.0 / view.scale));
    let to_i = |p: [f64; 2]| (p[0].round() as i32, p[1].round() as i32);
    for mark in marks {
        match mark {
            Mark::Fill { points, fill, line } => {
                let px: Vec<[f64; 2]> = points.iter().map(|p| view.pixel_of(*p)).collect();
                let px: Vec<(i32, i32)> = clip_to(&px, &rect_px).into_iter().map(to_i).collect();
                if px.len() < 3 {
                    continue;
                }
                area.draw(&Polygon::new(px.clone(), rgb(fill).filled()))
                    .map_err(text_error)?;
                let mut closed = px;
                closed.push(closed[0]);
                area.draw(&PathElement::new(closed, rgb(line).stroke_width(2)))
                    .map_err(text_error)?;
            }
            Mark::Line { ends, color, width } => {
                let px = [view.pixel_of(ends[0]), view.pixel_of(ends[1])];
                if let Some([a, b]) = clip_segment(px, &rect_px) {
                    area.draw(&PathElement::new(
                        vec![to_i(a), to_i(b)],
                        rgb(color).stroke_width(width),
                    ))
                    .map_err(text_error)?;
                }
            }
            Mark::Path {
                points,
                color,
                width,
            } => {
                for pair in points.windows(2) {
                    let px = [view.pixel_of(pair[0]), view.pixel_of(pair[1])];
                    if let Some([a, b]) = clip_segment(px, &rect_px) {
                        area.draw(&PathElement::new(
                            vec![to_i(a), to_i(b)],
                            rgb(color).stroke_width(width),
                        ))
                        .map_err(text_error)?;
                    }
                }
            }
            Mark::Dot { at, pixels, fill } => {
                let c = view.pixel_of(at);
                let inside = c[0] > -pixels
                    && c[1] > -pixels
                    && c[0] < view.size.0 as f64 + pixels
                    && c[1] < view.size.1 as f64 + pixels;
                if inside {
                    let style = rgb(fill).filled();
                    area.draw(&Circle::new(to_i(c), pixels.round() as i32, style))
                        .map_err(text_error)?;
                    area.draw(&Circle::new(to_i(c), pixels.round() as i32, rgb(INK)))
                        .map_err(text_error)?;
                }
            }
        }
    }
    draw_scale_bar(area, view.scale, view.size)?;
    draw_label(area, title, frame.t)
}

/// The label of a panel or frame: the title and the time, top left.
fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    t: f64,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let style = TextStyle::from((FONT, 16)).color(&BLACK);
    area.draw_text(&label(title, t), &style, (8, 6))
        .map_err(text_error)
}

/// The part of the segment inside the rectangle (Liang-Barsky).
fn clip_segment([a, b]: [[f64; 2]; 2], rect: &[[f64; 2]]) -> Option<[[f64; 2]; 2]> {
    let (lo, hi) = (rect[0], rect[2]);
    let d = [b[0] - a[0], b[1] - a[1]];
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for k in 0..2 {
        for (p, q) in [(-d[k], a[k] - lo[k]), (d[k], hi[k] - a[k])] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
    }
    let at = |t: f64| [a[0] + t * d[0], a[1] + t * d[1]];
    (t0 <= t1 && t0.is_finite() && t1.is_finite()).then(|| [at(t0), at(t1)])
}

/// Rows and columns of a grid of `n` panels: as square as can be.
pub fn grid(n: usize) -> (usize, usize) {
    let cols = (1..=n.max(1)).find(|c| c * c >= n).unwrap_or(1);
    (n.max(1).div_ceil(cols), cols)
}

/// Draws `frames` side by side (a grid of [`PANEL`]s, row by row) into a
/// PNG at `path`, whatever its extension, all in one [`view_of`] them.
/// At most [`MAX_STILLS`] frames; no frames, frames of another model, or a
/// file that cannot be written are errors.
pub fn write_png(
    model: &PlanarModel,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    check_frames(model.nq(), frames, MAX_STILLS, "in one picture")?;
    let view = view_of(model, frames, PANEL);
    raster::write_stills(frames.len(), path, |area, i| {
        draw_panel(area, model, &view, &frames[i], title)
    })
}

/// The delay between frames of an animation, ms: real time, between 20 ms
/// and a second.
fn delay_ms(frames: &[Frame]) -> u32 {
    let (first, last) = (frames[0].t, frames[frames.len() - 1].t);
    let dt = (last - first) / (frames.len().max(2) - 1) as f64;
    if dt.is_finite() {
        (1000.0 * dt).round().clamp(20.0, 1000.0) as u32
    } else {
        40
    }
}

/// Animates `frames` (at most [`MAX_FRAMES`]) into a GIF at `path`, one
/// [`GIF_SIZE`] frame each, in one [`view_of`] them all.
pub fn write_gif(
    model: &PlanarModel,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    gif(model, frames, &bounds_of(model, frames), title, path)
}

fn gif(
    model: &PlanarModel,
    frames: &[Frame],
    bounds: &Bounds,
    title: &str,
    path: &Path,
) -> Result<(), String> {
    check_frames(model.nq(), frames, MAX_FRAMES, "in one animation")?;
    let view = View::fit(bounds, GIF_SIZE);
    raster::write_animation(frames.len(), delay_ms(frames), path, |area, i| {
        draw_panel(area, model, &view, &frames[i], title)
    })
}

/// Escapes text for XML.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A number for the SVG: finite, short.
fn num(x: f64) -> String {
    let x = if x.is_finite() {
        x.clamp(-LIMIT, LIMIT)
    } else {
        0.0
    };
    let s = format!("{x:.5}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A polygon's `points` attribute.
fn points_attr(points: &[[f64; 2]]) -> String {
    let pairs: Vec<String> = points
        .iter()
        .map(|p| format!("{},{}", num(p[0]), num(p[1])))
        .collect();
    pairs.join(" ")
}

/// An SVG element of a mark (world coordinates; strokes in pixels).
fn svg_mark(mark: &Mark, pixel: f64) -> String {
    const STROKE: &str = r#"stroke-width="2" vector-effect="non-scaling-stroke""#;
    match mark {
        Mark::Fill { points, fill, line } => format!(
            r#"<polygon points="{}" fill="{}" stroke="{}" {STROKE}/>"#,
            points_attr(points),
            hex(*fill),
            hex(*line)
        ),
        Mark::Line { ends, color, width } => format!(
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{width}" vector-effect="non-scaling-stroke"/>"#,
            num(ends[0][0]),
            num(ends[0][1]),
            num(ends[1][0]),
            num(ends[1][1]),
            hex(*color)
        ),
        Mark::Path {
            points,
            color,
            width,
        } => format!(
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{width}" vector-effect="non-scaling-stroke"/>"#,
            points_attr(points),
            hex(*color)
        ),
        Mark::Dot { at, pixels, fill } => format!(
            r#"<circle cx="{}" cy="{}" r="{}" fill="{}" stroke="{}" stroke-width="1" vector-effect="non-scaling-stroke"/>"#,
            num(at[0]),
            num(at[1]),
            num(pixels * pixel),
            hex(*fill),
            hex(INK)
        ),
    }
}

/// Animates `frames` into an SVG at `path`: each moving body a group whose
/// pose follows the frames (SMIL `animateTransform`, in real time, looped),
/// each joint a line whose ends follow them (`animate`), in one
/// [`view_of`] them all.
pub fn write_svg(
    model: &PlanarModel,
    frames: &[Frame],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    let text = svg(model, frames, &bounds_of(model, frames), title)?;
    std::fs::write(path, text).map_err(text_error)
}

fn svg(
    model: &PlanarModel,
    frames: &[Frame],
    bounds: &Bounds,
    title: &str,
) -> Result<String, String> {
    check_frames(model.nq(), frames, MAX_FRAMES, "in one animation")?;
    let view = View::fit(bounds, PANEL);
    let pixel = 1.0 / view.scale;
    let (w, h) = PANEL;
    let rect: Vec<[f64; 2]> = view.frame_px().iter().map(|p| view.world_of(*p)).collect();
    let mut poses: Vec<Vec<Pose>> = Vec::with_capacity(frames.len());
    for f in frames {
        let mut p = Vec::new();
        model.poses_into(&f.q, &mut p);
        poses.push(p);
    }
    let (t0, t1) = (frames[0].t, frames[frames.len() - 1].t);
    let duration = t1 - t0;
    let animated = frames.len() > 1 && duration.is_finite() && duration > 0.0;
    // The frames' times as fractions of the run: 0 first, 1 last, never
    // decreasing.
    let mut key_times = String::new();
    let mut last = 0.0f64;
    for (i, f) in frames.iter().enumerate() {
        let k = if i + 1 == frames.len() {
            1.0
        } else {
            ((f.t - t0) / duration).clamp(last, 1.0)
        };
        last = k;
        key_times.push_str(&format!("{}{}", if i == 0 { "" } else { ";" }, num(k)));
    }
    let timing = format!(
        r#"dur="{}s" keyTimes="{key_times}" repeatCount="indefinite""#,
        num(duration.max(1e-3))
    );
    let values = |f: &dyn Fn(&[Pose]) -> String| -> String {
        poses.iter().map(|p| f(p)).collect::<Vec<_>>().join(";")
    };

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = writeln!(s, "<title>{}</title>", xml(title));
    let _ = writeln!(
        s,
        r#"<rect width="{w}" height="{h}" fill="{}"/>"#,
        hex(BACKGROUND)
    );
    // World coordinates, y up.
    let _ = writeln!(
        s,
        r#"<g transform="translate({} {}) scale({} {}) translate({} {})">"#,
        num(0.5 * w as f64),
        num(0.5 * h as f64),
        num(view.scale),
        num(-view.scale),
        num(-view.center[0]),
        num(-view.center[1])
    );
    for mark in still_marks(model, &rect) {
        let _ = writeln!(s, "{}", svg_mark(&mark, pixel));
    }
    // Each body in its own frame, moved by its pose.
    let first = &poses[0];
    let bodies = model.body_list();
    for (i, body) in bodies.iter().enumerate() {
        let pose = first.get(i).copied().unwrap_or_default();
        let _ = writeln!(
            s,
            r#"<g class="body" id="body{i}" transform="translate({} {})">"#,
            num(pose.position[0]),
            num(pose.position[1])
        );
        let _ = writeln!(s, "<title>{}</title>", xml(&body.name));
        if animated {
            let moves = values(&|p: &[Pose]| {
                let q = p.get(i).copied().unwrap_or_default();
                format!("{} {}", num(q.position[0]), num(q.position[1]))
            });
            let _ = writeln!(
                s,
                r#"<animateTransform attributeName="transform" type="translate" values="{moves}" {timing}/>"#
            );
        }
        let _ = writeln!(
            s,
            r#"<g transform="rotate({})">"#,
            num(pose.angle.to_degrees())
        );
        if animated && body.kind == BodyKind::Rigid {
            let turns = values(&|p: &[Pose]| num(p.get(i).map_or(0.0, |q| q.angle).to_degrees()));
            let _ = writeln!(
                s,
                r#"<animateTransform attributeName="transform" type="rotate" values="{turns}" {timing}/>"#
            );
        }
        // The body's marks in its own frame.
        let (mut marks, mut dots) = (Vec::new(), Vec::new());
        let held = held_points(model, i);
        one_body(
            body,
            i,
            &Pose::default(),
            &held,
            pixel,
            &mut marks,
            &mut dots,
        );
        for mark in marks.iter().chain(&dots) {
            let _ = writeln!(s, "{}", svg_mark(mark, pixel));
        }
        let _ = writeln!(s, "</g>\n</g>");
    }
    // Joints: lines whose ends follow the anchors.
    for (j, joint) in model.joint_list().iter().enumerate() {
        if matches!(joint.kind, JointKind::KnifeEdge { .. }) || is_ground_rail(joint).is_some() {
            continue;
        }
        let end =
            |p: &[Pose], side: usize, k: usize| num(anchor(joint, side, p).map_or(0.0, |a| a[k]));
        let _ = write!(
            s,
            r#"<line class="joint" id="joint{j}" x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2" vector-effect="non-scaling-stroke">"#,
            end(first, 0, 0),
            end(first, 0, 1),
            end(first, 1, 0),
            end(first, 1, 1),
            hex(INK)
        );
        if animated {
            for (attr, side, k) in [("x1", 0, 0), ("y1", 0, 1), ("x2", 1, 0), ("y2", 1, 1)] {
                let v = values(&|p: &[Pose]| end(p, side, k));
                let _ = write!(
                    s,
                    r#"<animate attributeName="{attr}" values="{v}" {timing}/>"#
                );
            }
        }
        let _ = writeln!(s, "</line>");
    }
    // Springs and dampers: polylines whose points follow the anchors.
    for (f, force) in model.force_list().iter().enumerate() {
        let lines = |p: &[Pose]| -> Vec<(Vec<[f64; 2]>, [u8; 3], u32)> {
            let Some((ends, spring)) = link_ends(force, p) else {
                return Vec::new();
            };
            link_marks(ends, spring, pixel)
                .into_iter()
                .filter_map(|mark| match mark {
                    Mark::Path {
                        points,
                        color,
                        width,
                    } => Some((points, color, width)),
                    Mark::Line { ends, color, width } => Some((ends.to_vec(), color, width)),
                    _ => None,
                })
                .collect()
        };
        for (k, (points, color, width)) in lines(first).into_iter().enumerate() {
            let _ = write!(
                s,
                r#"<polyline class="link" id="link{f}_{k}" points="{}" fill="none" stroke="{}" stroke-width="{width}" vector-effect="non-scaling-stroke">"#,
                points_attr(&points),
                hex(color)
            );
            if animated {
                let v = values(&|p: &[Pose]| {
                    lines(p)
                        .get(k)
                        .map_or_else(|| points_attr(&points), |l| points_attr(&l.0))
                });
                let _ = write!(
                    s,
                    r#"<animate attributeName="points" values="{v}" {timing}/>"#
                );
            }
            let _ = writeln!(s, "</polyline>");
        }
    }
    let _ = writeln!(s, "</g>");
    if let Some((length, pixels)) = scale_bar(view.scale, w) {
        let (x0, y) = (BAR_INSET as f64, h as f64 - BAR_INSET as f64);
        let x1 = x0 + pixels;
        let _ = writeln!(
            s,
            r#"<g class="scale" stroke="{ink}" stroke-width="2"><line x1="{}" y1="{}" x2="{}" y2="{}"/><line x1="{}" y1="{}" x2="{}" y2="{}"/><line x1="{}" y1="{}" x2="{}" y2="{}"/></g>"#,
            num(x0),
            num(y),
            num(x1),
            num(y),
            num(x0),
            num(y - 5.0),
            num(x0),
            num(y),
            num(x1),
            num(y - 5.0),
            num(x1),
            num(y),
            ink = hex(INK)
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-family="sans-serif" font-size="14">{}</text>"#,
            num(x1 + 8.0),
            num(y + 1.0),
            xml(&length_label(length))
        );
    }
    let span = if animated {
        format!("t = {} to {} s", num(t0), num(t1))
    } else {
        format!("t = {} s", num(t0))
    };
    let _ = writeln!(
        s,
        r#"<text x="8" y="20" font-family="sans-serif" font-size="16">{}   {}</text>"#,
        xml(&title.chars().take(TITLE_CHARS).collect::<String>()),
        span
    );
    s.push_str("</svg>\n");
    Ok(s)
}

/// The points of moving body `i` (its frame) that joints, contacts,
/// springs and dampers hold, its centre left out.
fn held_points(model: &PlanarModel, i: usize) -> Vec<[f64; 2]> {
    let on = |bodies: &[BodyRef; 2], anchors: &[[f64; 2]; 2]| {
        (0..2)
            .filter(|&side| bodies[side] == BodyRef::Body(i))
            .map(|side| anchors[side])
            .collect::<Vec<_>>()
    };
    let joints = model
        .joint_list()
        .iter()
        .flat_map(|j| on(&j.bodies, &j.anchors));
    let forces = model.force_list().iter().flat_map(|f| match f {
        Force::Spring {
            bodies, anchors, ..
        }
        | Force::Damper {
            bodies, anchors, ..
        } => on(bodies, anchors),
        Force::Constant { .. } => Vec::new(),
    });
    let contacts = model
        .contact_list()
        .iter()
        .filter(|c| c.body == i)
        .map(|c| c.point);
    joints
        .chain(forces)
        .chain(contacts)
        .filter(|p| p != &[0.0, 0.0] && p.iter().all(|x| x.is_finite()))
        .collect()
}

/// What a rigid body without a shape is drawn as, in its frame: the
/// convex hull of the points it is held by and of their mirror images
/// through its centre of mass (a uniform block's outline when they are
/// its corners, a rod's when they are its ends), or the segment they lie
/// on; `None` when it is held by none.
fn guessed_outline(held: &[[f64; 2]]) -> Option<Vec<[f64; 2]>> {
    let mut points: Vec<[f64; 2]> = held.iter().flat_map(|p| [*p, [-p[0], -p[1]]]).collect();
    if points.is_empty() {
        return None;
    }
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    // Andrew's monotone chain, counter-clockwise.
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(points.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for p in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], *p) <= 0.0
            {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    let far = held.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max);
    let area: f64 = (0..hull.len())
        .map(|k| cross([0.0; 2], hull[k], hull[(k + 1) % hull.len()]))
        .sum::<f64>()
        .abs();
    if hull.len() >= 3 && area > 1e-3 * far * far {
        return Some(hull);
    }
    // On a line through the centre: the farthest point and its image.
    let p = held
        .iter()
        .copied()
        .max_by(|a, b| a[0].hypot(a[1]).total_cmp(&b[0].hypot(b[1])))?;
    Some(vec![p, [-p[0], -p[1]]])
}

/// The marks of moving body `i` at `pose`: its shape (or the outline
/// [`guessed_outline`] of the points it is `held` by) into `marks`, its dot
/// or cross (drawn over every shape) into `dots`.
fn one_body(
    body: &zwang_model::planar::Body,
    i: usize,
    pose: &Pose,
    held: &[[f64; 2]],
    pixel: f64,
    marks: &mut Vec<Mark>,
    dots: &mut Vec<Mark>,
) {
    let fill = fill_color(i);
    match &body.shape {
        Some(shape) => {
            if let Some(points) = outline(shape) {
                let points = points.iter().map(|p| place(pose, *p)).collect();
                marks.push(Mark::Fill {
                    points,
                    fill,
                    line: INK,
                });
            }
            if let Shape::Circle { radius } = shape {
                let end = toward(pose.position, pose.angle, *radius);
                marks.push(Mark::Line {
                    ends: [pose.position, end],
                    color: INK,
                    width: 2,
                });
            }
        }
        None if body.kind == BodyKind::Rigid => {
            let guess = guessed_outline(held);
            let cross = match guess {
                Some(points) if points.len() >= 3 => {
                    let points = points.iter().map(|p| place(pose, *p)).collect();
                    marks.push(Mark::Fill {
                        points,
                        fill,
                        line: INK,
                    });
                    INK
                }
                Some(ends) => {
                    marks.push(Mark::Line {
                        ends: [place(pose, ends[0]), place(pose, ends[1])],
                        color: fill,
                        width: 5,
                    });
                    INK
                }
                None => fill,
            };
            let arm = 7.0 * pixel;
            for a in [pose.angle, pose.angle + std::f64::consts::FRAC_PI_2] {
                let ends = [
                    toward(pose.position, a, -arm),
                    toward(pose.position, a, arm),
                ];
                dots.push(Mark::Line {
                    ends,
                    color: cross,
                    width: 2,
                });
            }
        }
        None => dots.push(Mark::Dot {
            at: pose.position,
            pixels: 5.0,
            fill,
        }),
    }
}

/// The states a drawing needs, kept as the run goes: an [`Observer`] of a
/// [`PlanarModel`]'s run whose memory does not grow with the run (a few
/// instants, or at most [`MAX_FRAMES`] evenly spaced samples and the last
/// one). [`Film::write`] draws them in the format of the file's extension.
///
/// ```
/// use zwang_model::planar::{Body, PlanarModel};
/// use zwang_draw::draw::{Film, Format};
/// use zwang_motion::{simulate, Settings};
///
/// let ball = Body::particle("ball", 1.0).at([0.0, 1.0]).moving([1.0, 0.0]);
/// let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![], vec![]).unwrap();
/// let settings = Settings { output_every: 1e-3, ..Settings::default() };
/// let mut film = Film::new(&model, Format::Svg, &[]);
/// simulate(&model, 1.0, &settings, &mut film); // 1001 samples, 300 frames at most
/// assert!(film.frames().len() <= 300);
/// let path = std::env::temp_dir().join(format!("zwang-film-{}.svg", std::process::id()));
/// film.write("a thrown ball", &path).unwrap();
/// # std::fs::remove_file(path).unwrap();
/// ```
pub struct Film<'m> {
    model: &'m PlanarModel,
    format: Format,
    reel: Reel,
    /// The moving bodies over every sample.
    bounds: Bounds,
    extents: Vec<Extent>,
    poses: Vec<Pose>,
}

impl<'m> Film<'m> {
    /// A film of `model` for `format`: a PNG keeps the samples nearest
    /// `times` (s; none: the last sample), an animation at most
    /// [`MAX_FRAMES`] samples (and ignores `times`).
    pub fn new(model: &'m PlanarModel, format: Format, times: &[f64]) -> Film<'m> {
        Film {
            model,
            format,
            reel: Reel::new(format, times),
            bounds: fixed_bounds(model),
            extents: extents(model),
            poses: Vec::new(),
        }
    }

    /// The states kept, in time order (the last sample included).
    pub fn frames(&self) -> Vec<Frame> {
        self.reel.frames()
    }

    /// The states to draw: those kept, or the model's initial state when
    /// the run gave no sample (it stopped at its start).
    fn to_draw(&self) -> Vec<Frame> {
        let frames = self.frames();
        if !frames.is_empty() {
            return frames;
        }
        vec![Frame::initial(self.model)]
    }

    /// Draws the states kept into `path` (its format chosen when the film
    /// was made), titled `title`; without samples, the model's initial
    /// state. A file that cannot be written is an error.
    pub fn write(&self, title: &str, path: &Path) -> Result<(), String> {
        let frames = self.to_draw();
        // Every sample's bodies (the states drawn alone without samples).
        let bounds = if self.reel.frames().is_empty() {
            bounds_of(self.model, &frames)
        } else {
            with_surfaces(self.model, &self.bounds)
        };
        match self.format {
            Format::Png => write_png(self.model, &frames, title, path),
            Format::Gif => gif(self.model, &frames, &bounds, title, path),
            Format::Svg => {
                let text = svg(self.model, &frames, &bounds, title)?;
                std::fs::write(path, text).map_err(text_error)
            }
        }
    }
}

impl Observer for Film<'_> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], _v: &[f64], _contacts: &[ContactSample]) {
        if q.len() == self.model.nq() {
            self.model.poses_into(q, &mut self.poses);
            include_poses(&mut self.bounds, &self.extents, &self.poses);
        }
        self.reel.sample(t, q);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use zwang_model::planar::{Body, Contact, FixedBody, Force, Joint};
    use zwang_motion::{simulate, Settings};

    /// A box on a floor (a half-plane through the origin), a wheel hung
    /// from ground by a rod, a capsule, a triangle, a particle against a
    /// wall (a `[[contact]]` line at `x = 2.4`).
    fn model() -> PlanarModel {
        let bodies = vec![
            Body::rigid("box", 1.0, 0.1)
                .at([0.0, 0.25])
                .with_shape(Shape::Box {
                    half_extents: [0.5, 0.25],
                }),
            Body::rigid("wheel", 1.0, 0.1)
                .at([2.0, 1.0])
                .turned(0.7)
                .with_shape(Shape::Circle { radius: 0.3 }),
            Body::rigid("pill", 1.0, 0.1)
                .at([-2.0, 1.0])
                .with_shape(Shape::Capsule {
                    half_length: 0.4,
                    radius: 0.15,
                }),
            Body::rigid("triangle", 1.0, 0.1)
                .at([0.0, 2.0])
                .with_shape(Shape::Polygon {
                    vertices: vec![[-0.3, -0.2], [0.3, -0.2], [0.0, 0.4]],
                }),
            Body::particle("bob", 1.0).at([-1.0, 2.0]),
        ];
        let rod = Joint {
            kind: JointKind::Distance { length: 1.0 },
            bodies: [BodyRef::Ground, BodyRef::Body(1)],
            anchors: [[1.0, 1.0], [0.0, 0.0]],
        };
        let wall = Contact::new(
            "wall",
            4,
            [0.0, 0.0],
            Surface::Line {
                point: [2.4, 0.0],
                normal: [-1.0, 0.0],
            },
        );
        let floor = FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] });
        PlanarModel::new([0.0, -9.81], bodies, vec![rod], vec![wall], vec![])
            .unwrap()
            .with_fixed(vec![floor])
            .unwrap()
    }

    /// A folder of the test's own, emptied first (`test` names it: the
    /// plots' tests use it too).
    pub(crate) fn scratch(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("zwang-draw-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The RGB pixels of a PNG, its width and height.
    pub(super) fn decode(path: &Path) -> (Vec<u8>, u32, u32) {
        let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buffer.truncate(info.buffer_size());
        (buffer, info.width, info.height)
    }

    /// The colour of world point `p` in a picture of width `w`.
    fn at(pixels: &[u8], w: u32, view: &View, p: [f64; 2]) -> [u8; 3] {
        let (x, y) = view.to_pixel(p);
        assert!(x >= 0 && y >= 0 && (x as u32) < w, "{p:?} is out of view");
        let i = 3 * (y as usize * w as usize + x as usize);
        [pixels[i], pixels[i + 1], pixels[i + 2]]
    }

    #[test]
    fn a_png_shows_each_shape_where_the_view_puts_it() {
        let model = model();
        let frames = vec![Frame::initial(&model)];
        let dir = scratch("png");
        let path = dir.join("scene.png");
        write_png(&model, &frames, "shapes", &path).unwrap();
        let (pixels, w, h) = decode(&path);
        assert_eq!((w, h), PANEL);
        let view = view_of(&model, &frames, PANEL);
        // Equal scales: the box (1 m by 0.5 m) spans 2 : 1 pixels.
        let (left, top) = view.to_pixel([-0.5, 0.5]);
        let (right, bottom) = view.to_pixel([0.5, 0.0]);
        assert!(((right - left) - 2 * (bottom - top)).abs() <= 1);
        let color = |p| at(&pixels, w, &view, p);
        assert_eq!(color([0.0, 0.25]), fill_color(0), "the box's centre");
        assert_eq!(color([2.0, 0.85]), fill_color(1), "the wheel");
        assert_eq!(color([-2.3, 1.0]), fill_color(2), "the capsule's end");
        assert_eq!(color([0.0, 2.0]), fill_color(3), "the triangle");
        assert_eq!(color([-1.0, 2.0]), fill_color(4), "the particle's dot");
        assert_eq!(color([-1.0, -0.15]), FIXED_FILL, "the floor");
        assert_eq!(color([2.5, 1.0]), FIXED_FILL, "behind the wall");
        assert_eq!(color([1.0, 2.3]), BACKGROUND, "the empty sky");
        let rod = color([1.3, 1.0]);
        assert!(rod.iter().all(|&c| c < 100), "the rod: {rod:?}");
        // Every body fits in the panel, inside the margin.
        for p in [[-2.55, 1.0], [2.3, 1.0], [0.0, 2.4], [0.0, 0.0]] {
            let (x, y) = view.to_pixel(p);
            assert!(x >= 30 && y >= 30 && x <= w as i32 - 30 && y <= h as i32 - 30);
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn instants_side_by_side() {
        let model = model();
        let mut frames = vec![Frame::initial(&model); 3];
        frames[1].t = 1.0;
        frames[2].t = 2.0;
        frames[2].q[0] += 1.0;
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(3), (2, 2));
        assert_eq!(grid(5), (2, 3));
        assert_eq!(grid(16), (4, 4));
        let dir = scratch("grid");
        let path = dir.join("grid.png");
        write_png(&model, &frames, "three", &path).unwrap();
        let (pixels, w, h) = decode(&path);
        assert_eq!((w, h), (2 * PANEL.0, 2 * PANEL.1));
        // The third panel (row 2, column 1) shows the box moved by 1 m.
        let view = view_of(&model, &frames, PANEL);
        let (x, y) = view.to_pixel([1.0, 0.25]);
        let i = 3 * ((y as usize + PANEL.1 as usize) * w as usize + x as usize);
        assert_eq!(pixels[i..i + 3], fill_color(0));
        // The fourth panel is empty.
        let i = 3 * ((h as usize - 100) * w as usize + w as usize - 100);
        assert_eq!(pixels[i..i + 3], BACKGROUND);
        let too_many = vec![Frame::initial(&model); MAX_STILLS + 1];
        assert!(write_png(&model, &too_many, "x", &path).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The frames of a GIF, counted by walking its blocks.
    pub(super) fn gif_frames(bytes: &[u8]) -> usize {
        assert!(bytes.starts_with(b"GIF89a"));
        let table = |flags: u8| {
            if flags & 0x80 != 0 {
                3 << ((flags & 7) + 1)
            } else {
                0
            }
        };
        let mut i = 13 + table(bytes[10]);
        let skip_blocks = |mut i: usize| {
            while bytes[i] != 0 {
                i += bytes[i] as usize + 1;
            }
            i + 1
        };
        let mut frames = 0;
        loop {
            match bytes[i] {
                0x21 => i = skip_blocks(i + 2),
                0x2c => {
                    frames += 1;
                    i = skip_blocks(i + 10 + table(bytes[i + 9]) + 1);
                }
                0x3b => return frames,
                b => panic!("block {b:#x} at {i}"),
            }
        }
    }

    /// A ten-second run sampled every millisecond: at most `MAX_FRAMES`
    /// frames, evenly spaced, the first and the last sample among them.
    #[test]
    fn an_animation_keeps_a_bounded_number_of_frames() {
        let ball = Body::particle("ball", 1.0)
            .at([0.0, 0.0])
            .moving([1.0, 20.0]);
        let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![], vec![]).unwrap();
        let settings = Settings {
            output_every: 1e-3,
            ..Settings::default()
        };
        let mut film = Film::new(&model, Format::Gif, &[]);
        simulate(&model, 10.0, &settings, &mut film);
        let frames = film.frames();
        assert!(frames.len() <= MAX_FRAMES && frames.len() > MAX_FRAMES / 2);
        assert_eq!(frames[0].t, 0.0);
        assert!((frames[frames.len() - 1].t - 10.0).abs() < 1e-9);
        let dt = frames[1].t - frames[0].t;
        for pair in frames[..frames.len() - 1].windows(2) {
            assert!((pair[1].t - pair[0].t - dt).abs() < 1e-9);
        }
        assert!(frames[frames.len() - 1].t - frames[frames.len() - 2].t <= dt + 1e-9);
        let dir = scratch("gif");
        let path = dir.join("run.gif");
        film.write("a thrown ball", &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(gif_frames(&bytes), frames.len());
        assert_eq!(
            (
                u16::from_le_bytes([bytes[6], bytes[7]]),
                u16::from_le_bytes([bytes[8], bytes[9]])
            ),
            (GIF_SIZE.0 as u16, GIF_SIZE.1 as u16)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn stills_are_the_samples_nearest_the_instants() {
        let ball = Body::particle("ball", 1.0)
            .at([0.0, 0.0])
            .moving([1.0, 0.0]);
        let model = PlanarModel::new([0.0, 0.0], vec![ball], vec![], vec![], vec![]).unwrap();
        let settings = Settings {
            output_every: 0.1,
            ..Settings::default()
        };
        let mut film = Film::new(&model, Format::Png, &[0.0, 0.33, 0.96]);
        simulate(&model, 1.0, &settings, &mut film);
        let times: Vec<f64> = film.frames().iter().map(|f| f.t).collect();
        assert_eq!(times.len(), 3);
        for (t, want) in times.iter().zip([0.0, 0.3, 1.0]) {
            assert!((t - want).abs() < 1e-9, "{times:?}");
        }
        // No instants: the final state.
        let mut film = Film::new(&model, Format::Png, &[]);
        simulate(&model, 1.0, &settings, &mut film);
        let frames = film.frames();
        assert_eq!(frames.len(), 1);
        assert!((frames[0].q[0] - 1.0).abs() < 1e-9);
    }

    /// The tags of an XML text balance (a small check, not a parser).
    fn balanced(text: &str) -> bool {
        let mut open = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find('<') {
            let Some(len) = rest[start..].find('>') else {
                return false;
            };
            let tag = &rest[start + 1..start + len];
            rest = &rest[start + len + 1..];
            let name = |t: &str| t.split_whitespace().next().unwrap_or("").to_string();
            if let Some(closing) = tag.strip_prefix('/') {
                if open.pop() != Some(name(closing)) {
                    return false;
                }
            } else if !tag.ends_with('/') {
                open.push(name(tag));
            }
        }
        open.is_empty()
    }

    #[test]
    fn an_svg_animates_each_body() {
        let model = model();
        let mut frames: Vec<Frame> = (0..5).map(|_| Frame::initial(&model)).collect();
        for (i, f) in frames.iter_mut().enumerate() {
            f.t = 0.5 * i as f64;
            f.q[2] = 0.3 * i as f64;
        }
        let text = svg(
            &model,
            &frames,
            &bounds_of(&model, &frames),
            "a <test> & more",
        )
        .unwrap();
        assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(text.trim_end().ends_with("</svg>"));
        assert!(balanced(&text), "{text}");
        assert_eq!(text.matches("class=\"body\"").count(), 5);
        assert_eq!(text.matches("class=\"joint\"").count(), 1);
        // Every body moves; the rigid ones turn; the rod's ends follow.
        assert_eq!(text.matches("type=\"translate\"").count(), 5);
        assert_eq!(text.matches("type=\"rotate\"").count(), 4);
        assert_eq!(text.matches("<animate attributeName").count(), 4);
        assert!(text.contains("dur=\"2s\" keyTimes=\"0;0.25;0.5;0.75;1\""));
        assert!(text.contains("a &lt;test&gt; &amp; more"));
        // One frame: still, no animation.
        let still = svg(&model, &frames[..1], &bounds_of(&model, &frames), "x").unwrap();
        assert!(balanced(&still) && !still.contains("animate"));
        let dir = scratch("svg");
        let path = dir.join("run.svg");
        write_svg(&model, &frames, "x", &path).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("a/b.PNG")), Ok(Format::Png));
        assert_eq!(Format::of(Path::new("b.gif")), Ok(Format::Gif));
        assert_eq!(Format::of(Path::new("b.svg")), Ok(Format::Svg));
        for bad in ["b.bmpx", "b", "png"] {
            let e = Format::of(Path::new(bad)).unwrap_err();
            assert!(e.starts_with("--draw: ") && !e.contains('\n'), "{e}");
        }
    }

    /// States far away, not finite or of another model: drawn (quickly) or
    /// refused, never a panic.
    #[test]
    fn odd_states_are_drawn_or_refused() {
        let model = model();
        let dir = scratch("odd");
        let path = dir.join("odd.png");
        let mut far = Frame::initial(&model);
        far.q[0] = 1e30;
        far.q[1] = f64::NAN;
        far.q[3] = 1e8;
        far.q[5] = f64::INFINITY;
        let frames = vec![Frame::initial(&model), far];
        write_png(&model, &frames, "far", &path).unwrap();
        write_gif(&model, &frames, "far", &dir.join("odd.gif")).unwrap();
        svg(&model, &frames, &bounds_of(&model, &frames), "far").unwrap();
        assert!(write_png(&model, &[], "none", &path).is_err());
        let short = Frame {
            t: 0.0,
            q: vec![0.0],
        };
        assert_eq!(
            write_png(&model, &[short], "short", &path).unwrap_err(),
            format!("state 0 has 1 positions, the model {}", model.nq())
        );
        assert!(write_png(&model, &frames, "x", &dir.join("no/such/dir.png")).is_err());
        // A film without samples draws the initial state.
        let film = Film::new(&model, Format::Png, &[]);
        film.write("empty", &path).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The scale bar's length is 1, 2 or 5 times a power of ten, and its
    /// bar between a tenth and a quarter of the panel's width, over twenty
    /// decades of scale.
    #[test]
    fn scale_bars_are_round_and_fit_the_panel() {
        for k in -100..100 {
            let scale = 10f64.powf(k as f64 / 10.0 + 0.0137);
            let (length, pixels) = scale_bar(scale, PANEL.0).unwrap();
            let decade = 10f64.powf(length.log10().floor());
            let mantissa = length / decade;
            assert!(
                [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-9),
                "{length}"
            );
            assert!((pixels - length * scale).abs() < 1e-9 * pixels);
            let w = PANEL.0 as f64;
            assert!(pixels <= 0.25 * w + 1e-9 && pixels >= 0.1 * w, "{pixels}");
        }
        // 300 pixels a metre: a quarter of 640 pixels is 0.53 m, so 50 cm.
        assert_eq!(scale_bar(300.0, 640), Some((0.5, 150.0)));
        assert_eq!(scale_bar(0.0, 640), None);
        assert_eq!(scale_bar(f64::NAN, 640), None);
        assert_eq!(length_label(0.5), "50 cm");
        assert_eq!(length_label(2.0), "2 m");
        assert_eq!(length_label(5000.0), "5 km");
        assert_eq!(length_label(0.002), "2 mm");
        assert_eq!(length_label(1e-5), "10 µm");
    }

    /// A PNG carries the bar where the scale bar says, in ink, from its
    /// inset to its length in pixels.
    #[test]
    fn a_png_carries_its_scale_bar() {
        let model = model();
        let frames = vec![Frame::initial(&model)];
        let dir = scratch("bar");
        let path = dir.join("bar.png");
        write_png(&model, &frames, "bar", &path).unwrap();
        let (pixels, w, h) = decode(&path);
        let view = view_of(&model, &frames, PANEL);
        let (_, length) = scale_bar(view.scale(), w).unwrap();
        let y = h as usize - BAR_INSET as usize;
        let color = |x: usize| {
            let i = 3 * (y * w as usize + x);
            [pixels[i], pixels[i + 1], pixels[i + 2]]
        };
        let start = BAR_INSET as usize;
        let end = start + length.round() as usize;
        for x in [start + 2, (start + end) / 2, end - 2] {
            let c = color(x);
            assert!(c.iter().all(|&v| v < 100), "x = {x}: {c:?}");
        }
        assert_ne!(color(end + 30), INK);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A body without a shape held at its corners is drawn as the block
    /// they are the corners of; held at its ends, as the rod; held by one
    /// point, as the rod through its centre to the point's mirror image.
    #[test]
    fn shapeless_bodies_are_drawn_by_the_points_they_are_held_by() {
        let block = guessed_outline(&[[-0.1, -0.2], [0.1, -0.2]]).unwrap();
        let mut sorted = block.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(
            sorted,
            vec![[-0.1, -0.2], [-0.1, 0.2], [0.1, -0.2], [0.1, 0.2]]
        );
        // Counter-clockwise: positive area.
        let area: f64 = (0..4)
            .map(|k| {
                let (p, q) = (block[k], block[(k + 1) % 4]);
                p[0] * q[1] - p[1] * q[0]
            })
            .sum();
        assert!((area - 2.0 * 0.08).abs() < 1e-12, "{area}");
        assert_eq!(
            guessed_outline(&[[-1.0, 0.0], [1.0, 0.0]]),
            Some(vec![[1.0, 0.0], [-1.0, 0.0]])
        );
        assert_eq!(
            guessed_outline(&[[0.0, 0.4]]),
            Some(vec![[0.0, 0.4], [0.0, -0.4]])
        );
        assert_eq!(guessed_outline(&[]), None);
    }

    /// A spring and a damper from the ground to a particle: drawn (a
    /// zigzag reaching both anchors, a line), in the view, and animated in
    /// the SVG.
    #[test]
    fn springs_and_dampers_are_drawn_between_their_anchors() {
        let bob = Body::particle("bob", 1.0).at([0.0, -1.0]);
        let anchors = [[0.0, 0.0], [0.0, 0.0]];
        let bodies = [BodyRef::Ground, BodyRef::Body(0)];
        let forces = vec![
            Force::Spring {
                bodies,
                anchors,
                stiffness: 10.0,
                rest_length: 0.5,
            },
            Force::Damper {
                bodies,
                anchors,
                damping: 1.0,
            },
        ];
        let model = PlanarModel::new([0.0, -9.81], vec![bob], vec![], vec![], forces).unwrap();
        let mut frames = vec![Frame::initial(&model), Frame::initial(&model)];
        frames[1].t = 1.0;
        frames[1].q[1] = -2.0;
        let b = bounds_of(&model, &frames);
        assert!(b.max[1] >= 0.0 && b.min[1] <= -2.0, "{b:?}");
        let mut poses = Vec::new();
        model.poses_into(&frames[0].q, &mut poses);
        let marks = body_marks(&model, &poses, 0.01);
        let zigzag = marks
            .iter()
            .find_map(|m| match m {
                Mark::Path { points, .. } => Some(points.clone()),
                _ => None,
            })
            .expect("a spring's zigzag");
        assert_eq!(zigzag.len(), 2 * COILS + 4);
        assert_eq!(zigzag[0], [0.0, 0.0]);
        assert_eq!(zigzag[zigzag.len() - 1], [0.0, -1.0]);
        let widest = zigzag.iter().map(|p| p[0].abs()).fold(0.0, f64::max);
        assert!((widest - COIL_PIXELS * 0.01).abs() < 1e-12);
        let text = svg(&model, &frames, &b, "spring").unwrap();
        assert!(balanced(&text), "{text}");
        // The spring's zigzag, the damper's line and its thick middle.
        assert_eq!(text.matches("class=\"link\"").count(), 3);
        assert_eq!(text.matches("attributeName=\"points\"").count(), 3);
    }

    #[test]
    fn views_and_clipping() {
        let view = View::fit(&Bounds::EMPTY, (100, 100));
        assert_eq!(view.to_pixel([0.0, 0.0]), (50, 50));
        assert_eq!(
            view.to_pixel([1.0, 1.0]).0,
            50 + (view.scale()).round() as i32
        );
        let mut point = Bounds::EMPTY;
        point.include([3.0, 4.0], 0.0);
        assert_eq!(View::fit(&point, (100, 100)).to_pixel([3.0, 4.0]), (50, 50));
        let square = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        let half = behind(&square, [0.0, 1.0], [0.0, 1.0]);
        assert_eq!(half, vec![[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]);
        assert!(behind(&square, [0.0, -1.0], [0.0, 1.0]).is_empty());
        let rect = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        assert_eq!(
            clip_segment([[-5.0, 5.0], [15.0, 5.0]], &rect),
            Some([[0.0, 5.0], [10.0, 5.0]])
        );
        assert_eq!(clip_segment([[-5.0, 20.0], [15.0, 20.0]], &rect), None);
    }
}
