//! The joints, springs and dampers of a spatial drawing: where their
//! anchors are at a state, and the lines that show them (drawn over the
//! bodies, so that no pivot hides).

use super::{fixed_pose, Box3, Camera};
use crate::draw::{spring_path, COIL_PIXELS};
use zwang_geometry::spatial::Pose;
use zwang_model::spatial::rotation::{apply, matrix, normalized};
use zwang_model::spatial::{SpatialJointKind, SpatialModel, SpatialSpringKind};

/// What holds two anchors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Holds {
    /// A joint: a hinge's axis (world, drawn as an axle), a slider's
    /// axis (world, drawn as a rail through the first anchor), or none.
    Joint {
        /// The hinge's axis, world.
        axle: Option<[f64; 3]>,
        /// The slider's axis, world.
        rail: Option<[f64; 3]>,
    },
    /// A spring (a zigzag).
    Spring,
    /// A damper (a line, thick in its middle third).
    Damper,
}

/// A joint, a spring or a damper at a state: its two anchors (world) and
/// the moving bodies (moving indices) they are on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// What it is.
    pub holds: Holds,
    /// The anchors, world, m.
    pub ends: [[f64; 3]; 2],
    /// The moving body of each end (`None`: ground or a fixed body).
    pub movers: [Option<usize>; 2],
}

/// The world frame of body `body` (`None`: ground) at `poses` (moving
/// bodies by moving index).
fn frame_of(model: &SpatialModel, body: Option<usize>, poses: &[Pose]) -> Option<Pose> {
    let Some(b) = body else {
        return Some(Pose {
            position: [0.0; 3],
            orientation: [1.0, 0.0, 0.0, 0.0],
        });
    };
    if b >= model.bodies().len() {
        return None;
    }
    match model.mover_of(b) {
        Some(m) => poses.get(m).copied(),
        None => Some(fixed_pose(model, b)),
    }
}

/// `p` (body frame) in the world, `v` a direction when `direction`.
fn to_world(pose: &Pose, p: [f64; 3], direction: bool) -> Option<[f64; 3]> {
    let finite = pose.position.iter().all(|x| x.is_finite());
    let r = matrix(normalized(pose.orientation).filter(|_| finite)?);
    let rp = apply(&r, p);
    let at = if direction { [0.0; 3] } else { pose.position };
    let w = [0, 1, 2].map(|k| at[k] + rp[k]);
    w.iter().all(|x| x.is_finite()).then_some(w)
}

/// Every joint, spring and damper of `model` at `poses`; those whose
/// bodies are not placed (states not finite) are left out.
pub fn links(model: &SpatialModel, poses: &[Pose]) -> Vec<Link> {
    let mut out = Vec::new();
    let mut add = |bodies: [Option<usize>; 2], anchors: [[f64; 3]; 2], holds: Holds| {
        let frames = [
            frame_of(model, bodies[0], poses),
            frame_of(model, bodies[1], poses),
        ];
        let (Some(f0), Some(f1)) = (frames[0], frames[1]) else {
            return;
        };
        let (Some(a), Some(b)) = (
            to_world(&f0, anchors[0], false),
            to_world(&f1, anchors[1], false),
        ) else {
            return;
        };
        let turn = |axis: Option<[f64; 3]>| axis.and_then(|x| to_world(&f0, x, true));
        let holds = match holds {
            Holds::Joint { axle, rail } => Holds::Joint {
                axle: turn(axle),
                rail: turn(rail),
            },
            other => other,
        };
        let movers = bodies.map(|b| b.and_then(|b| model.mover_of(b)));
        out.push(Link {
            holds,
            ends: [a, b],
            movers,
        });
    };
    for j in model.joint_list() {
        let holds = match j.kind {
            SpatialJointKind::Hinge { axis } => Holds::Joint {
                axle: Some(axis),
                rail: None,
            },
            SpatialJointKind::Slider { axis } => Holds::Joint {
                axle: None,
                rail: Some(axis),
            },
            _ => Holds::Joint {
                axle: None,
                rail: None,
            },
        };
        add(j.bodies, j.anchors, holds);
    }
    for s in model.spring_list() {
        let holds = match s.kind {
            SpatialSpringKind::Spring { .. } => Holds::Spring,
            SpatialSpringKind::Damper { .. } => Holds::Damper,
        };
        add(s.bodies, s.anchors, holds);
    }
    out
}

/// Grows `b` to hold the anchors of every link at `poses`.
pub fn include_links(b: &mut Box3, model: &SpatialModel, poses: &[Pose]) {
    if model.joint_list().is_empty() && model.spring_list().is_empty() {
        return;
    }
    for link in links(model, poses) {
        for end in link.ends {
            b.include(end, 0.0);
        }
    }
}

/// A line to draw, in pixels: its points (an open polyline), colour and
/// width.
pub struct Stroke {
    /// Pixels.
    pub points: Vec<[f64; 2]>,
    /// RGB.
    pub color: [u8; 3],
    /// Pixels.
    pub width: u32,
}

/// A dot at an anchor: its pixel and colour.
pub type AnchorDot = ([f64; 2], [u8; 3]);

/// Half the length of a drawn hinge's axle, pixels.
const AXLE_PIXELS: f64 = 14.0;

/// The part of the line through `p` along `d` inside `scene` (`None`:
/// it misses it).
fn across(p: [f64; 3], d: [f64; 3], scene: &Box3) -> Option<[[f64; 3]; 2]> {
    let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..3 {
        if d[k].abs() < 1e-12 {
            if p[k] < scene.min[k] || p[k] > scene.max[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((scene.min[k] - p[k]) / d[k], (scene.max[k] - p[k]) / d[k]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    let at = |t: f64| [0, 1, 2].map(|k| p[k] + t * d[k]);
    (t0 <= t1 && t0.is_finite() && t1.is_finite()).then(|| [at(t0), at(t1)])
}

/// The strokes of `links` in `camera`: rails across `scene`, lines
/// between anchors, axles, springs' zigzags and dampers; arms from the
/// centres of the moving bodies to their anchors beyond their shapes
/// (`reach`, by moving index: the radius about the centre that holds the
/// shape): a thin string from a shape, a rod in the body's colour
/// (`color`) from a body without one; a dot at each anchor.
pub fn strokes(
    links: &[Link],
    poses: &[Pose],
    reach: &[f64],
    color: impl Fn(usize) -> [u8; 3],
    camera: &Camera,
    scene: &Box3,
    ink: [u8; 3],
    link: [u8; 3],
    fixed: [u8; 3],
) -> (Vec<Stroke>, Vec<AnchorDot>) {
    let (mut lines, mut dots) = (Vec::new(), Vec::new());
    let px = |p: [f64; 3]| camera.pixel_of(p);
    let pixel = 1.0 / camera.scale();
    for l in links {
        for (end, mover) in l.ends.iter().zip(l.movers) {
            let Some(m) = mover else { continue };
            if let (Some(pose), Some(r)) = (poses.get(m), reach.get(m)) {
                let d: f64 = (0..3)
                    .map(|k| (end[k] - pose.position[k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                // A rod of the body's colour without a shape, a thin
                // string from a shape.
                if d > r * (1.0 + 1e-9) {
                    let (color, width) = if *r > 0.0 { (ink, 2) } else { (color(m), 4) };
                    lines.push(Stroke {
                        points: vec![px(pose.position), px(*end)],
                        color,
                        width,
                    });
                }
            }
        }
        let [a, b] = [px(l.ends[0]), px(l.ends[1])];
        match l.holds {
            Holds::Joint { axle, rail } => {
                if let Some(d) = rail {
                    if let Some([p, q]) = across(l.ends[0], d, scene) {
                        lines.push(Stroke {
                            points: vec![px(p), px(q)],
                            color: fixed,
                            width: 3,
                        });
                    }
                } else {
                    lines.push(Stroke {
                        points: vec![a, b],
                        color: ink,
                        width: 2,
                    });
                }
                if let Some(d) = axle {
                    let h = AXLE_PIXELS * pixel;
                    let end = |s: f64| px([0, 1, 2].map(|k| l.ends[0][k] + s * h * d[k]));
                    lines.push(Stroke {
                        points: vec![end(-1.0), end(1.0)],
                        color: ink,
                        width: 4,
                    });
                }
            }
            Holds::Spring => lines.push(Stroke {
                points: spring_path(a, b, COIL_PIXELS),
                color: link,
                width: 2,
            }),
            Holds::Damper => {
                let at = |s: f64| [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])];
                lines.push(Stroke {
                    points: vec![a, b],
                    color: link,
                    width: 2,
                });
                lines.push(Stroke {
                    points: vec![at(1.0 / 3.0), at(2.0 / 3.0)],
                    color: link,
                    width: 8,
                });
            }
        }
        for (p, mover) in [a, b].into_iter().zip(l.movers) {
            dots.push((p, if mover.is_some() { ink } else { fixed }));
        }
    }
    (lines, dots)
}
