//! Contact points in space: manifold sizes, points, gaps and normals
//! against closed forms, ids that persist, margins, exclusions, bad shapes.

use std::f64::consts::{FRAC_PI_2, PI};
use zwang_geometry::spatial::{Collider, Collision, ContactPoint, Pose, Shape};

fn at(position: [f64; 3]) -> Pose {
    Pose {
        position,
        orientation: [1.0, 0.0, 0.0, 0.0],
    }
}

/// Turned by `angle` about the unit `axis`.
fn turned(position: [f64; 3], axis: [f64; 3], angle: f64) -> Pose {
    let s = (0.5 * angle).sin();
    Pose {
        position,
        orientation: [(0.5 * angle).cos(), axis[0] * s, axis[1] * s, axis[2] * s],
    }
}

const X: [f64; 3] = [1.0, 0.0, 0.0];
const Z: [f64; 3] = [0.0, 0.0, 1.0];

fn fixed(shape: Shape, pose: Pose) -> Collider {
    Collider {
        shape,
        body: None,
        pose,
    }
}

fn on(body: usize, shape: Shape) -> Collider {
    Collider {
        shape,
        body: Some(body),
        pose: Pose::default(),
    }
}

fn floor() -> Collider {
    fixed(Shape::Halfspace { normal: Z }, Pose::default())
}

fn cuboid(half_extents: [f64; 3]) -> Shape {
    Shape::Box { half_extents }
}

fn sphere(radius: f64) -> Shape {
    Shape::Sphere { radius }
}

/// The corners of a box of these half extents, as a hull's points.
fn corners([a, b, c]: [f64; 3]) -> Vec<[f64; 3]> {
    (0..8)
        .map(|k| {
            let s = |bit: usize, h: f64| if k & bit == 0 { -h } else { h };
            [s(1, a), s(2, b), s(4, c)]
        })
        .collect()
}

/// The points of a fresh world of `colliders` at `poses`.
fn points(colliders: Vec<Collider>, poses: &[Pose], margin: f64) -> Vec<ContactPoint> {
    let mut world = Collision::new(colliders, &[]).unwrap();
    let mut out = Vec::new();
    world.collide(poses, margin, &mut out);
    out
}

fn near(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

/// Each of `want` is a point of `got` (to 1e-12), one to one.
fn at_points(got: &[ContactPoint], want: &[[f64; 3]]) {
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for w in want {
        let n = got.iter().filter(|c| near(c.point, *w, 1e-12)).count();
        assert_eq!(n, 1, "{w:?} in {got:#?}");
    }
}

/// All gaps `gap` and all normals `normal`, to 1e-12.
fn all(got: &[ContactPoint], gap: f64, normal: [f64; 3]) {
    for c in got {
        assert!((c.gap - gap).abs() <= 1e-12, "{c:?}");
        assert!(near(c.normal, normal, 1e-12), "{c:?}");
    }
}

fn ids(points: &[ContactPoint]) -> Vec<u64> {
    let mut ids: Vec<u64> = points.iter().map(|c| c.id).collect();
    ids.sort_unstable();
    ids
}

fn distinct(points: &[ContactPoint]) {
    let mut ids = ids(points);
    ids.dedup();
    assert_eq!(ids.len(), points.len());
}

/// A sphere over a floor (a normal that is not unit): one point, the gap
/// the height less the radius, the normal up (down when the floor comes
/// second), the point halfway between the plane and the sphere's bottom.
/// Then a half-space tilted by its normal and one tilted by its pose,
/// with the sphere off its foot along the plane.
#[test]
fn sphere_above_a_halfspace() {
    let r = 0.5;
    for h in [0.49, 0.5, 0.52] {
        let p = points(
            vec![
                fixed(
                    Shape::Halfspace {
                        normal: [0.0, 0.0, 2.0],
                    },
                    Pose::default(),
                ),
                on(0, sphere(r)),
            ],
            &[at([0.3, -0.2, h])],
            0.05,
        );
        assert_eq!(p.len(), 1);
        all(&p, h - r, Z);
        assert!(near(p[0].point, [0.3, -0.2, 0.5 * (h - r)], 1e-15));
        let p = points(vec![on(0, sphere(r)), floor()], &[at([0.3, -0.2, h])], 0.05);
        all(&p, h - r, [0.0, 0.0, -1.0]);
    }
    // Normal (1, 2, 2)/3 through (1, 2, 3); (2, -1, 0) lies in the plane.
    let n = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let foot = [1.0, 2.0, 3.0];
    for gap in [-1e-3, 0.0, 0.02] {
        let centre: [f64; 3] =
            std::array::from_fn(|k| foot[k] + n[k] * (r + gap) + 0.3 * [2.0, -1.0, 0.0][k]);
        let p = points(
            vec![
                fixed(
                    Shape::Halfspace {
                        normal: [1.0, 2.0, 2.0],
                    },
                    at(foot),
                ),
                on(0, sphere(r)),
            ],
            &[at(centre)],
            0.05,
        );
        assert_eq!(p.len(), 1);
        all(&p, gap, n);
        let mid: [f64; 3] = std::array::from_fn(|k| centre[k] - n[k] * (r + 0.5 * gap));
        assert!(near(p[0].point, mid, 1e-12));
    }
    // A floor turned by 0.4 about x: its normal (0, -sin 0.4, cos 0.4).
    let (s, c) = 0.4f64.sin_cos();
    let p = points(
        vec![
            fixed(Shape::Halfspace { normal: Z }, turned([0.0; 3], X, 0.4)),
            on(0, sphere(r)),
        ],
        &[at([0.7, -s * (r - 1e-3), c * (r - 1e-3)])],
        0.0,
    );
    assert_eq!(p.len(), 1);
    all(&p, -1e-3, [0.0, -s, c]);
}

/// A box resting on a floor, unturned or turned about z: its four bottom
/// corners, the points halfway between them and the floor.
#[test]
fn box_on_a_halfspace_touches_at_its_four_corners() {
    let he = [0.5, 0.3, 0.2];
    for a in [0.0, 0.7, -2.0] {
        let (s, c) = f64::sin_cos(a);
        let p = points(
            vec![floor(), on(0, cuboid(he))],
            &[turned([1.0, 2.0, he[2] - 1e-3], Z, a)],
            0.0,
        );
        let want: Vec<[f64; 3]> = [[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]
            .iter()
            .map(|[sx, sy]| {
                let (x, y) = (sx * he[0], sy * he[1]);
                [1.0 + c * x - s * y, 2.0 + s * x + c * y, -0.5e-3]
            })
            .collect();
        at_points(&p, &want);
        all(&p, -1e-3, Z);
        distinct(&p);
        assert!(p.iter().all(|c| c.colliders == [0, 1]));
    }
}

/// A box turned by 0.2 about x rests on its lowest edge: two points, at
/// the edge's ends; they are two of the four corners of the box lying
/// flat, and keep those corners' ids.
#[test]
fn box_tilted_about_x_touches_with_an_edge() {
    let [hx, hy, hz] = [0.5, 0.3, 0.2];
    let a: f64 = 0.2;
    let (s, c) = a.sin_cos();
    let z = hy * s + hz * c - 1e-3;
    let mut world = Collision::new(vec![floor(), on(0, cuboid([hx, hy, hz]))], &[]).unwrap();
    let (mut flat, mut tilted) = (Vec::new(), Vec::new());
    world.collide(&[at([0.0, 0.0, hz - 1e-3])], 0.0, &mut flat);
    world.collide(&[turned([0.0, 0.0, z], X, a)], 0.0, &mut tilted);
    // The corner (x, -hy, -hz) turned: y -hy c + hz s, z -hy s - hz c.
    let y = -hy * c + hz * s;
    at_points(&tilted, &[[hx, y, -0.5e-3], [-hx, y, -0.5e-3]]);
    all(&tilted, -1e-3, Z);
    assert_eq!(flat.len(), 4);
    assert!(tilted.iter().all(|t| flat.iter().any(|f| f.id == t.id)));
}

/// A capsule lying on a floor touches at the ends of its segment; standing,
/// at its bottom only.
#[test]
fn capsule_lying_and_standing() {
    let capsule = Shape::Capsule {
        half_length: 1.0,
        radius: 0.2,
    };
    // Turned a quarter about y: its axis along x.
    let p = points(
        vec![floor(), on(0, capsule.clone())],
        &[turned([0.5, 0.0, 0.2 - 1e-3], [0.0, 1.0, 0.0], FRAC_PI_2)],
        0.0,
    );
    at_points(&p, &[[-0.5, 0.0, -0.5e-3], [1.5, 0.0, -0.5e-3]]);
    all(&p, -1e-3, Z);
    distinct(&p);
    let p = points(
        vec![floor(), on(0, capsule)],
        &[at([0.5, 0.1, 1.2 - 1e-3])],
        0.0,
    );
    at_points(&p, &[[0.5, 0.1, -0.5e-3]]);
    all(&p, -1e-3, Z);
}

/// A cylinder standing on its face: parry's cap is a square inscribed in
/// its rim, so four points on the rim, 90° apart (where the square
/// stands is parry's choice). Lying: the ends of a line on its side.
#[test]
fn cylinder_standing_and_lying() {
    let (h, r) = (0.4, 0.25);
    let cylinder = Shape::Cylinder {
        half_length: h,
        radius: r,
    };
    let p = points(
        vec![floor(), on(0, cylinder.clone())],
        &[at([1.0, 2.0, h - 1e-3])],
        0.0,
    );
    assert_eq!(p.len(), 4);
    all(&p, -1e-3, Z);
    distinct(&p);
    for c in &p {
        let (dx, dy) = (c.point[0] - 1.0, c.point[1] - 2.0);
        assert!((dx.hypot(dy) - r).abs() < 1e-12, "{c:?}");
        assert!((c.point[2] + 0.5e-3).abs() < 1e-12);
    }
    // Opposite corners of the square through the axis.
    let mut sum = [0.0; 3];
    for c in &p {
        (0..3).for_each(|k| sum[k] += c.point[k] / 4.0);
    }
    assert!(near(sum, [1.0, 2.0, -0.5e-3], 1e-12));
    // Lying along x.
    let p = points(
        vec![floor(), on(0, cylinder)],
        &[turned([0.0, 0.0, r - 1e-3], [0.0, 1.0, 0.0], FRAC_PI_2)],
        0.0,
    );
    at_points(&p, &[[-h, 0.0, -0.5e-3], [h, 0.0, -0.5e-3]]);
    all(&p, -1e-3, Z);
}

/// A box on a box: the corners of the overlap of the two faces.
#[test]
fn box_on_a_box() {
    let p = points(
        vec![
            fixed(cuboid([0.5; 3]), at([0.0, 0.0, 0.5])),
            on(0, cuboid([0.5; 3])),
        ],
        &[at([0.1, 0.2, 1.5 - 1e-3])],
        0.0,
    );
    let z = 1.0 - 0.5e-3;
    at_points(
        &p,
        &[
            [-0.4, -0.3, z],
            [-0.4, 0.5, z],
            [0.5, -0.3, z],
            [0.5, 0.5, z],
        ],
    );
    all(&p, -1e-3, Z);
    distinct(&p);
    // Equal boxes exactly one on the other: each corner once (parry gives
    // each twice, as a corner of either face in the other).
    let p = points(
        vec![
            fixed(cuboid([0.5; 3]), at([0.0, 0.0, 0.5])),
            on(0, cuboid([0.5; 3])),
        ],
        &[at([0.0, 0.0, 1.5 - 1e-3])],
        0.0,
    );
    at_points(
        &p,
        &[
            [-0.5, -0.5, z],
            [-0.5, 0.5, z],
            [0.5, -0.5, z],
            [0.5, 0.5, z],
        ],
    );
    all(&p, -1e-3, Z);
    distinct(&p);
    // The lower one second: the normal points down, from the upper box.
    let p = points(
        vec![on(0, cuboid([0.5; 3])), on(1, cuboid([0.5; 3]))],
        &[at([0.1, 0.2, 1.5 - 1e-3]), at([0.0, 0.0, 0.5])],
        0.0,
    );
    assert_eq!(p.len(), 4);
    all(&p, -1e-3, [0.0, 0.0, -1.0]);
}

/// A capsule lying on a box and a cylinder standing on it (parry's GJK
/// generator): the ends of the segment, the four points of the rim;
/// without parry's extra point inside.
#[test]
fn capsule_and_cylinder_on_a_box() {
    let table = || fixed(cuboid([2.0, 2.0, 0.5]), at([0.0, 0.0, -0.5]));
    let capsule = Shape::Capsule {
        half_length: 1.0,
        radius: 0.2,
    };
    let p = points(
        vec![table(), on(0, capsule)],
        &[turned([0.1, 0.2, 0.2 - 1e-3], X, FRAC_PI_2)],
        0.0,
    );
    assert_eq!(p.len(), 2, "{p:#?}");
    for c in &p {
        assert!((c.gap + 1e-3).abs() < 1e-12);
        assert!(near(c.normal, Z, 1e-12));
        assert!((c.point[0] - 0.1).abs() < 1e-12);
        assert!(((c.point[1] - 0.2).abs() - 1.0).abs() < 1e-12);
    }
    let cylinder = Shape::Cylinder {
        half_length: 0.3,
        radius: 0.25,
    };
    let p = points(
        vec![table(), on(0, cylinder)],
        &[at([0.1, 0.2, 0.3 - 1e-3])],
        0.0,
    );
    assert_eq!(p.len(), 4, "{p:#?}");
    distinct(&p);
    for c in &p {
        assert!((c.gap + 1e-3).abs() < 1e-12);
        assert!(near(c.normal, Z, 1e-12));
        let r = (c.point[0] - 0.1).hypot(c.point[1] - 0.2);
        assert!((r - 0.25).abs() < 1e-12, "{c:?}");
    }
}

/// A sphere sunk 1e-3 into a box's face, edge and corner: one point each,
/// the normal from the box to the sphere's centre, three different ids.
#[test]
fn sphere_on_a_box_face_edge_and_corner() {
    let r = 0.3;
    let g = -1e-3;
    let box_at = at([0.0, 0.0, 0.0]);
    let s2 = std::f64::consts::FRAC_1_SQRT_2;
    let s3 = 1.0 / 3f64.sqrt();
    let mut world =
        Collision::new(vec![fixed(cuboid([0.5; 3]), box_at), on(0, sphere(r))], &[]).unwrap();
    let mut seen = Vec::new();
    for (touch, n) in [
        ([0.1, 0.2, 0.5], [0.0, 0.0, 1.0]),
        ([0.5, 0.1, 0.5], [s2, 0.0, s2]),
        ([0.5, 0.5, 0.5], [s3, s3, s3]),
    ] {
        let centre: [f64; 3] = std::array::from_fn(|k| touch[k] + n[k] * (r + g));
        let mut p = Vec::new();
        world.collide(&[at(centre)], 0.0, &mut p);
        assert_eq!(p.len(), 1);
        all(&p, g, n);
        let mid: [f64; 3] = std::array::from_fn(|k| touch[k] + 0.5 * g * n[k]);
        assert!(near(p[0].point, mid, 1e-12), "{p:?}");
        seen.push(p[0].id);
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 3);
}

/// Ids persist under a small slide and turn that keep the features (a box
/// on a floor and on a box); when a box is rolled onto another face, the
/// two corners that stay down keep their ids and the two new ones get new
/// ones; the same features of another pair have other ids.
#[test]
fn ids_persist_while_the_same_features_touch() {
    let he = [0.5, 0.3, 0.2];
    let mut world =
        Collision::new(vec![floor(), on(0, cuboid(he)), on(1, cuboid(he))], &[]).unwrap();
    let rest = |dx: f64, a: f64| {
        [
            turned([dx, 0.0, he[2] - 1e-3], Z, a),
            turned([3.0 + dx, 0.0, he[2] - 1e-3], Z, a),
        ]
    };
    let (mut before, mut after) = (Vec::new(), Vec::new());
    world.collide(&rest(0.0, 0.0), 0.0, &mut before);
    world.collide(&rest(1e-3, 2e-3), 0.0, &mut after);
    assert_eq!(before.len(), 8);
    distinct(&before);
    assert_eq!(ids(&before), ids(&after));
    // Points come ordered by pair, then by id.
    for w in before.windows(2) {
        assert!((w[0].colliders, w[0].id) < (w[1].colliders, w[1].id));
    }
    // Box 0 rolled a quarter about x onto its face y = -hy (z' = y).
    let mut rolled = Vec::new();
    let on_side = turned([0.0, 0.0, he[1] - 1e-3], X, FRAC_PI_2);
    world.collide(&[on_side, rest(0.0, 0.0)[1]], 0.0, &mut rolled);
    let first = |p: &[ContactPoint]| {
        let pts: Vec<_> = p
            .iter()
            .filter(|c| c.colliders == [0, 1])
            .copied()
            .collect();
        ids(&pts)
    };
    let (was, now) = (first(&before), first(&rolled));
    assert_eq!(now.len(), 4);
    assert_eq!(now.iter().filter(|id| was.contains(id)).count(), 2);

    // A box on a box, slid and turned a little.
    let mut stack = Collision::new(
        vec![
            fixed(cuboid([0.5; 3]), at([0.0, 0.0, 0.5])),
            on(0, cuboid([0.4; 3])),
        ],
        &[],
    )
    .unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    stack.collide(&[at([0.0, 0.0, 1.4 - 1e-3])], 0.0, &mut a);
    stack.collide(&[turned([1e-3, -1e-3, 1.4 - 1e-3], Z, 1e-3)], 0.0, &mut b);
    assert_eq!(a.len(), 4);
    assert_eq!(ids(&a), ids(&b));
}

/// A box and a sphere 0.01 above a floor: their points within a margin of
/// 0.02, with gap 0.01; none within 0.005.
#[test]
fn margin_admits_near_points_only() {
    let colliders = || vec![floor(), on(0, cuboid([0.5; 3])), on(1, sphere(0.5))];
    let poses = [at([0.0, 0.0, 0.51]), at([3.0, 0.0, 0.51])];
    let p = points(colliders(), &poses, 0.02);
    assert_eq!(p.len(), 5);
    all(&p, 0.01, Z);
    assert!(points(colliders(), &poses, 0.005).is_empty());
    assert!(points(colliders(), &poses, 0.0).is_empty());
}

/// The hull of a box's corners touches as the box does: the same points
/// and gaps, on a floor, on a box and under a box, turned or not.
#[test]
fn hull_of_a_box_behaves_like_the_box() {
    let he = [0.5, 0.3, 0.2];
    let hull = Shape::Convex {
        vertices: corners(he),
    };
    let lower = cuboid([1.0, 1.0, 0.5]);
    let cases: Vec<(Collider, Pose)> = vec![
        (floor(), turned([0.1, 0.2, he[2] - 1e-3], Z, 0.3)),
        (
            fixed(lower.clone(), at([0.0, 0.0, -0.5])),
            turned([0.1, 0.2, he[2] - 1e-3], Z, 0.3),
        ),
        (
            fixed(lower, at([0.0, 0.0, -0.5])),
            at([0.8, 0.9, he[2] - 2e-3]),
        ),
        (
            fixed(cuboid([0.5; 3]), at([0.0, 0.0, 0.5 + 2.0 * he[2] - 1e-3])),
            at([0.2, 0.0, he[2]]),
        ),
    ];
    for (support, pose) in cases {
        let as_box = points(vec![support.clone(), on(0, cuboid(he))], &[pose], 0.0);
        let as_hull = points(vec![support, on(0, hull.clone())], &[pose], 0.0);
        assert_eq!(as_box.len(), 4, "{as_box:#?}");
        assert_eq!(as_hull.len(), as_box.len(), "{as_hull:#?}");
        for b in &as_box {
            assert!(
                as_hull.iter().any(|h| near(h.point, b.point, 1e-12)
                    && (h.gap - b.gap).abs() < 1e-12
                    && near(h.normal, b.normal, 1e-12)),
                "{b:?} in {as_hull:#?}"
            );
        }
    }
}

/// Bad shapes and a half-space on a moving body are refused with the key.
#[test]
fn bad_colliders_are_refused() {
    let key = |c: Collider| Collision::new(vec![c], &[]).err().unwrap().key;
    assert_eq!(key(on(0, Shape::Halfspace { normal: Z })), "type");
    assert_eq!(key(on(0, sphere(-1.0))), "radius");
    assert_eq!(key(on(0, cuboid([1.0, 0.0, 1.0]))), "half_extents");
    assert_eq!(
        key(on(
            0,
            Shape::Cylinder {
                half_length: f64::NAN,
                radius: 1.0
            }
        )),
        "half_length"
    );
    assert_eq!(
        key(fixed(
            Shape::Halfspace {
                normal: [0.0, 0.0, 0.0]
            },
            Pose::default()
        )),
        "normal"
    );
    let flat = Shape::Convex {
        vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]],
    };
    assert_eq!(key(on(0, flat)), "vertices");
}

/// Overlapping colliders on one body, both fixed, or on an excluded pair
/// of bodies (either order) give no points; the same overlap between
/// other bodies does.
#[test]
fn exclusions() {
    let colliders = vec![
        on(0, sphere(0.4)),
        on(0, cuboid([0.5, 0.25, 0.25])),
        fixed(sphere(0.4), at([9.0, 0.0, 0.0])),
        fixed(cuboid([0.5, 0.25, 0.25]), at([9.0, 0.0, 0.0])),
        on(1, sphere(0.4)),
        on(2, sphere(0.4)),
    ];
    let overlap = [at([0.0; 3]), at([0.5, 0.0, 0.0]), at([0.0, 0.5, 0.0])];
    let mut world = Collision::new(colliders, &[[1, 0], [0, 1]]).unwrap();
    let mut out = Vec::new();
    world.collide(&overlap, 0.0, &mut out);
    let mut pairs: Vec<_> = out.iter().map(|c| c.colliders).collect();
    pairs.dedup();
    assert_eq!(pairs, [[0, 5], [1, 5], [4, 5]]);
    assert_eq!(world.colliders().len(), 6);
}

/// The deepest overlap: two spheres 0.1 into each other, then apart; a
/// box on a floor, its deepest corner.
#[test]
fn max_penetration() {
    let mut world = Collision::new(vec![on(0, sphere(0.5)), on(1, sphere(0.3))], &[]).unwrap();
    let depth = world.max_penetration(&[at([0.0; 3]), at([0.0, 0.0, 0.7])]);
    assert!((depth - 0.1).abs() < 1e-12);
    assert_eq!(
        world.max_penetration(&[at([0.0; 3]), at([0.0, 0.9, 0.0])]),
        0.0
    );
    let mut world = Collision::new(vec![floor(), on(0, cuboid([0.5; 3]))], &[]).unwrap();
    let a = 0.1f64;
    let depth = world.max_penetration(&[turned([0.0, 0.0, 0.5], X, a)]);
    assert!((depth - 0.5 * (a.sin() + a.cos() - 1.0)).abs() < 1e-12);
    let upside_down = world.max_penetration(&[turned([0.0; 3], X, PI)]);
    assert!((upside_down - 0.5).abs() < 1e-15);
}

/// The bug: boxes of a pile tie the separation along a face and along an
/// edge pair to round-off (the edges lie in the faces), and parry's
/// strict comparison picked the face or the edges as the tie drifted by
/// `1e-16`, the clipped points differing (here two, or none): a pile at
/// rest changed its contacts at every other step, each change rebuilding
/// the contact solver. A face now wins ties with edges, whatever the
/// round-off.
#[test]
fn a_face_wins_a_tie_with_an_edge_pair_through_round_off() {
    // The second box's pose relative to the first, from the pile, its
    // tilt moved by `tilt` in both horizontal components.
    let pose = |tilt: f64| Pose {
        position: [
            0.10980023007304758,
            -0.006725168516962465,
            0.10004609866663706,
        ],
        orientation: [
            0.9998204289087822,
            -7.232946590735695e-6 + tilt,
            -0.00038505933475624046 - tilt,
            0.018946282317438515,
        ],
    };
    let world = || {
        vec![
            fixed(cuboid([0.05; 3]), at([0.0; 3])),
            on(0, cuboid([0.05; 3])),
        ]
    };
    let reference = points(world(), &[pose(0.0)], 8.2e-3);
    // Two points of the faces' 7.98 mm gap (parry: none).
    assert_eq!(reference.len(), 2);
    for c in &reference {
        assert!((c.gap - 7.98e-3).abs() < 1e-5, "{}", c.gap);
    }
    for k in 1..=20 {
        for tilt in [k as f64 * 1e-16, -(k as f64) * 1e-16] {
            let p = points(world(), &[pose(tilt)], 8.2e-3);
            assert_eq!(ids(&p), ids(&reference), "tilted by {tilt:e}");
        }
    }
}

/// A floor and `count` boxes, spheres and capsules (in turn) on bodies
/// `0..count`, in columns of `levels` resting on each other, `per_row`
/// columns a row, each turned a little.
fn crowd(count: usize, levels: usize, per_row: usize) -> (Vec<Collider>, Vec<Pose>) {
    let kinds = [
        cuboid([0.25; 3]),
        sphere(0.25),
        Shape::Capsule {
            half_length: 0.1,
            radius: 0.15,
        },
    ];
    let mut colliders = vec![floor()];
    let mut poses = Vec::new();
    for k in 0..count {
        colliders.push(on(k, kinds[k % 3].clone()));
        let (column, level) = (k / levels, k % levels);
        poses.push(turned(
            [
                (column % per_row) as f64 * 0.6,
                (column / per_row) as f64 * 0.6,
                0.249 + 0.499 * level as f64,
            ],
            X,
            1e-3 * (k % 7) as f64,
        ));
    }
    (colliders, poses)
}

/// A crowd of 200 boxes, spheres and capsules resting on a floor and on
/// each other, turned a little: the narrow phase splits its pairs across
/// threads, and the points are the same as on one thread, in the same
/// order.
#[test]
fn a_crowd_gives_the_same_points_on_one_thread_and_on_four() {
    let (colliders, poses) = crowd(200, 4, 10);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| points(colliders.clone(), &poses, 1e-3))
    };
    let one = run(1);
    assert!(one.len() >= 200, "{}", one.len());
    assert_eq!(run(4), one);
}

/// The broad phase tests every pair of a few dozen colliders and walks a
/// tree of more: both find the same points. A crowd of 60 colliders
/// (every pair), then the same with 20 spheres far off added after it
/// (the tree), which touch nothing.
#[test]
fn every_pair_and_the_tree_find_the_same_points() {
    let (mut colliders, mut poses) = crowd(59, 3, 5);
    let few = points(colliders.clone(), &poses, 1e-3);
    assert!(few.len() >= 59, "{}", few.len());
    for k in 59..79 {
        colliders.push(on(k, sphere(0.25)));
        poses.push(at([100.0 + 3.0 * k as f64, 0.0, 50.0]));
    }
    assert_eq!(points(colliders, &poses, 1e-3), few);
}
