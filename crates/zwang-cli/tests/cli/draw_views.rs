//! What `--draw` shows of the shipped scenes: the box its view is fitted
//! to (`bounds_of`, `camera_of`) holds every body whole and the fixed
//! surfaces they touch, checked against points computed here from the
//! scene files (corners, ends, anchors), not against pixels.

use std::path::{Path, PathBuf};
use zwang_draw::draw::{bounds_of, space, view_of, Bounds, Frame, PANEL};
use zwang_model::planar::{BodyRef, Force, PlanarModel, Shape};
use zwang_scene::{parse_any_scene, AnyScene};

use crate::common::files_with_extension;

fn scenes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes")
}

fn planar(path: &Path) -> PlanarModel {
    let text = std::fs::read_to_string(path).unwrap();
    match parse_any_scene(&text).unwrap() {
        AnyScene::Planar(scene) => scene.model().unwrap(),
        AnyScene::Spatial(_) => panic!("{} is spatial", path.display()),
    }
}

/// A rigid body's pose written into a state: its centre and angle.
fn posed(model: &PlanarModel, frame: &Frame, body: usize, at: [f64; 2], angle: f64) -> Frame {
    let mut f = frame.clone();
    let o = model.offset(body);
    f.q[o] = at[0];
    f.q[o + 1] = at[1];
    f.q[o + 2] = angle;
    f
}

fn place(at: [f64; 2], angle: f64, p: [f64; 2]) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [at[0] + c * p[0] - s * p[1], at[1] + s * p[0] + c * p[1]]
}

fn holds(b: &Bounds, p: [f64; 2]) -> bool {
    (0..2).all(|k| b.min[k] - 1e-12 <= p[k] && p[k] <= b.max[k] + 1e-12)
}

/// The view's pixel of `p` is inside the panel.
fn in_panel(model: &PlanarModel, frames: &[Frame], p: [f64; 2]) -> bool {
    let (x, y) = view_of(model, frames, PANEL).to_pixel(p);
    x >= 0 && y >= 0 && x <= PANEL.0 as i32 && y <= PANEL.1 as i32
}

/// The rocking block (no shape: drawn by its contact corners) upright and
/// tipped both ways: the box holds its four corners (0.2 m by 0.4 m about
/// its centre) at every state and reaches below the floor `y = 0`; it is
/// not the centre's millimetre motion.
#[test]
fn the_rocking_block_is_seen_whole_on_its_floor() {
    let model = planar(&scenes_dir().join("rocking_block.toml"));
    let start = Frame::initial(&model);
    // Tipped 0.1 rad onto its left corner (-0.1, 0), and upright.
    let left = place([-0.1, 0.0], 0.1, [0.1, 0.2]);
    let frames = vec![
        start.clone(),
        posed(&model, &start, 0, left, 0.1),
        posed(&model, &start, 0, [0.0, 0.2], 0.0),
    ];
    let b = bounds_of(&model, &frames);
    for f in &frames {
        let (at, angle) = ([f.q[0], f.q[1]], f.q[2]);
        for corner in [[-0.1, -0.2], [0.1, -0.2], [0.1, 0.2], [-0.1, 0.2]] {
            let p = place(at, angle, corner);
            assert!(holds(&b, p), "corner {p:?} outside {b:?}");
            assert!(in_panel(&model, &frames, p));
        }
    }
    assert!(b.min[1] < -0.01, "the floor below y = 0: {b:?}");
    assert!(b.max[1] - b.min[1] < 2.0, "fitted to the block: {b:?}");
}

/// The ladder (2 m, no shape: drawn by its ends) against the wall `x = 0`
/// and lying on the floor: the box holds both ends at every state, shows
/// the wall (left of `x = 0`) and the floor (below `y = 0`).
#[test]
fn the_ladder_and_its_wall_and_floor_are_seen() {
    let model = planar(&scenes_dir().join("ladder.toml"));
    let start = Frame::initial(&model);
    // Leaning at 1.2 rad (the scene's start), then flat with its foot at 1.5 m.
    let flat = posed(&model, &start, 0, [2.5, 0.0], std::f64::consts::PI);
    let frames = vec![start.clone(), flat];
    let b = bounds_of(&model, &frames);
    let a0: f64 = 1.2;
    let ends = [
        [2.0 * a0.cos(), 0.0],
        [0.0, 2.0 * a0.sin()],
        [1.5, 0.0],
        [3.5, 0.0],
    ];
    for p in ends {
        assert!(holds(&b, p), "end {p:?} outside {b:?}");
        assert!(in_panel(&model, &frames, p));
    }
    assert!(b.min[0] < -0.05, "the wall left of x = 0: {b:?}");
    assert!(b.min[1] < -0.05, "the floor below y = 0: {b:?}");
}

/// The points a shipped planar body is drawn by, in its frame: its
/// shape's corners (or the extreme points of its circle), and the points
/// joints, springs and contacts hold.
fn drawn_points(model: &PlanarModel, i: usize) -> Vec<[f64; 2]> {
    let mut points = match &model.body_list()[i].shape {
        Some(Shape::Box {
            half_extents: [a, b],
        }) => vec![[-a, -b], [*a, -b], [*a, *b], [-a, *b]],
        Some(Shape::Circle { radius: r }) => vec![[*r, 0.0], [-r, 0.0], [0.0, *r], [0.0, -r]],
        Some(Shape::Polygon { vertices }) => vertices.clone(),
        Some(Shape::Capsule {
            half_length: l,
            radius: r,
        }) => vec![[l + r, 0.0], [-l - r, 0.0], [0.0, *r], [0.0, -r]],
        _ => vec![[0.0; 2]],
    };
    let me = BodyRef::Body(i);
    for j in model.joint_list() {
        for side in 0..2 {
            if j.bodies[side] == me {
                points.push(j.anchors[side]);
            }
        }
    }
    for f in model.force_list() {
        if let Force::Spring {
            bodies, anchors, ..
        }
        | Force::Damper {
            bodies, anchors, ..
        } = f
        {
            for side in 0..2 {
                if bodies[side] == me {
                    points.push(anchors[side]);
                }
            }
        }
    }
    for c in model.contact_list() {
        if c.body == i {
            points.push(c.point);
        }
    }
    points
}

/// Every shipped planar scene at its start: every body's drawn points and
/// every ground anchor are in the box and in the panel.
#[test]
fn every_planar_scene_is_seen_whole_at_its_start() {
    let mut checked = 0;
    for dir in [scenes_dir(), scenes_dir().join("contact")] {
        for path in files_with_extension(&dir, "toml") {
            let model = planar(&path);
            let frames = vec![Frame::initial(&model)];
            let b = bounds_of(&model, &frames);
            let mut poses = Vec::new();
            model.poses_into(&frames[0].q, &mut poses);
            for (i, pose) in poses.iter().enumerate() {
                for p in drawn_points(&model, i) {
                    let w = place(pose.position, pose.angle, p);
                    assert!(holds(&b, w), "{}: body {i} at {w:?}", path.display());
                    assert!(in_panel(&model, &frames, w), "{}", path.display());
                }
            }
            for j in model.joint_list() {
                if j.bodies[0] == BodyRef::Ground {
                    assert!(holds(&b, j.anchors[0]), "{}", path.display());
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} scenes");
}

/// Every shipped spatial scene at its start: the camera shows every joint's
/// and spring's anchors, and a hinge's two anchors meet where the scene
/// puts them.
#[test]
fn every_spatial_scene_shows_its_joints_and_springs() {
    let paths = files_with_extension(&scenes_dir().join("space"), "toml");
    let mut links_seen = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let AnyScene::Spatial(scene) = parse_any_scene(&text).unwrap() else {
            panic!("{} is planar", path.display());
        };
        let model = scene.model().unwrap();
        let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
        model.initial_state(&mut q, &mut v);
        let frames = vec![Frame {
            t: 0.0,
            q: q.clone(),
        }];
        let camera = space::camera_of(&model, &frames, PANEL);
        let mut poses = Vec::new();
        model.poses_into(&q, &mut poses);
        let links = space::links(&model, &poses);
        assert_eq!(
            links.len(),
            scene.joints.len() + scene.springs.len(),
            "{}",
            path.display()
        );
        for link in &links {
            for end in link.ends {
                let (x, y) = camera.to_pixel(end);
                assert!(
                    (0..=PANEL.0 as i32).contains(&x) && (0..=PANEL.1 as i32).contains(&y),
                    "{}: anchor {end:?} at ({x}, {y})",
                    path.display()
                );
            }
            if let space::Holds::Joint { axle: Some(_), .. } = link.holds {
                // A hinge's anchors coincide at the start of every scene.
                let d: f64 = (0..3)
                    .map(|k| (link.ends[0][k] - link.ends[1][k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(d < 1e-9, "{}: hinge anchors {d} m apart", path.display());
            }
            links_seen += 1;
        }
    }
    assert!(links_seen >= 10, "{links_seen} links");
}
