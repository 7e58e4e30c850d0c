//! Which shapes touch, and where.
//!
//! Everything geometric is parry's: its shapes, its BVH for the broad
//! phase and its contact manifolds for the narrow phase. This module only
//! keeps the working memory between calls (the tree, one manifold set per
//! candidate pair) and turns parry's local, per-shape answers into world
//! contact points.

use parry2d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry2d_f64::math::{Pose as Iso, Vector};
use parry2d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d_f64::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry2d_f64::shape::SharedShape;

use crate::{Pose, Shape, ShapeError};

/// A shape on a body (`Some(index)` into the caller's moving bodies) or
/// fixed in the world (`None`, at `pose`). In the plane by default; in
/// space, [`crate::spatial::Collider`]: the same with a shape and a pose in
/// space.
#[derive(Debug, Clone, PartialEq)]
pub struct Collider<S = Shape, P = Pose> {
    /// The shape, in the body's frame.
    pub shape: S,
    /// The moving body it is on, or `None` for a fixed one.
    pub body: Option<usize>,
    /// A fixed collider's pose (ignored for one on a moving body).
    pub pose: P,
}

/// One point where two colliders touch or come within the margin, in `D`
/// dimensions: the plane by default; in space,
/// [`crate::spatial::ContactPoint`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint<const D: usize = 2> {
    /// The two colliders (indices into the list `Collision::new` was
    /// given), the first with the lower index.
    pub colliders: [usize; 2],
    /// World, m: the midpoint between the two surfaces' closest points.
    pub point: [f64; D],
    /// Unit normal, world, from the first collider towards the second.
    pub normal: [f64; D],
    /// Signed distance along the normal, m: negative when they overlap.
    pub gap: f64,
    /// The same while the same features of the same pair touch.
    pub id: u64,
}

/// The colliders of a scene and the working memory of their collision
/// detection (the BVH, one kept manifold set per touching pair).
///
/// Build it once with [`Collision::new`], then call [`Collision::collide`]
/// at each step with the moving bodies' poses. Between calls it keeps
/// parry's manifolds of each pair whose grown bounding boxes overlap, so
/// that the contact ids of a pair persist while the same features touch;
/// with the same overlapping pairs a call allocates nothing.
pub struct Collision {
    colliders: Vec<Collider>,
    /// parry's shape of each collider.
    shapes: Vec<SharedShape>,
    /// Pairs of bodies that never collide, `[low, high]`, sorted.
    excluded: Vec<[usize; 2]>,
    /// The broad phase: leaf `k` is collider `k`. Empty until the first
    /// call.
    bvh: Bvh,
    bvh_workspace: BvhWorkspace,
    /// Each collider's world pose and grown bounding box at this call.
    world: Vec<Iso>,
    boxes: Vec<Aabb>,
    /// The pairs the broad phase found at this call, sorted.
    candidates: Vec<[u32; 2]>,
    /// The manifolds kept per candidate pair, sorted by pair.
    pairs: Vec<Pair>,
    /// The previous call's `pairs`, while merging.
    old_pairs: Vec<Pair>,
    /// The points for [`Collision::max_penetration`].
    scratch: Vec<ContactPoint>,
}

/// parry's persistent state for one pair of colliders.
struct Pair {
    colliders: [u32; 2],
    manifolds: Vec<ContactManifold<(), ()>>,
    workspace: Option<ContactManifoldsWorkspace>,
}

impl Collision {
    /// The world of `colliders`. Two colliders never collide when they are
    /// on the same body, both fixed (`body: None`), or on a pair of bodies
    /// listed in `exclude` (bodies joined by a joint), in either order.
    ///
    /// Errors: a collider whose [`Shape::validate`] fails, or a half-plane
    /// on a moving body (key `type`), as a [`ShapeError`] with the shape's
    /// key; the caller knows which collider it was by adding its index.
    pub fn new(colliders: Vec<Collider>, exclude: &[[usize; 2]]) -> Result<Collision, ShapeError> {
        let shapes = colliders
            .iter()
            .map(parry_shape)
            .collect::<Result<Vec<_>, _>>()?;
        let excluded = sorted_pairs(exclude);
        // Fixed colliders stay where they are: their world poses once.
        let world = colliders.iter().map(|c| iso(&c.pose)).collect::<Vec<_>>();
        let n = colliders.len();
        Ok(Collision {
            colliders,
            shapes,
            excluded,
            bvh: Bvh::new(),
            bvh_workspace: BvhWorkspace::default(),
            world,
            boxes: Vec::with_capacity(n),
            candidates: Vec::new(),
            pairs: Vec::new(),
            old_pairs: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// The colliders, as given to [`Collision::new`].
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The contact points at the moving bodies' poses (`poses[b]` for body
    /// `b`) whose gap is at most `margin` (`>= 0`), written into `out`
    /// (cleared first).
    ///
    /// The broad phase is parry's BVH of the colliders' bounding boxes
    /// grown by `margin` (built at the first call, refitted and
    /// incrementally optimized after); each pair it finds that may collide
    /// then gets its contact manifolds from parry's default dispatcher,
    /// from the manifolds kept since the last call. Points come ordered by
    /// (`colliders`, `id`).
    ///
    /// # Panics
    ///
    /// If `poses` has no pose for a collider's body.
    pub fn collide(&mut self, poses: &[Pose], margin: f64, out: &mut Vec<ContactPoint>) {
        out.clear();
        let margin = margin.max(0.0);
        self.broad_phase(poses, margin);
        self.keep_pairs();
        let dispatcher = DefaultQueryDispatcher;
        for pair in &mut self.pairs {
            let [i, j] = pair.colliders.map(|k| k as usize);
            let (pose_i, pose_j) = (&self.world[i], &self.world[j]);
            let pos12 = pose_i.inv_mul(pose_j);
            // Every pair of shapes built here is supported (two half-planes
            // never meet: both are fixed); an unsupported one gives no
            // points.
            if dispatcher
                .contact_manifolds(
                    &pos12,
                    &*self.shapes[i],
                    &*self.shapes[j],
                    margin,
                    &mut pair.manifolds,
                    &mut pair.workspace,
                )
                .is_err()
            {
                continue;
            }
            let start = out.len();
            for manifold in &pair.manifolds {
                let normal = pose_i.rotation * manifold.local_n1;
                for (k, contact) in manifold.points.iter().enumerate() {
                    if contact.dist > margin {
                        continue;
                    }
                    // The points before it with the same features (a
                    // cuboid's vertex ids can coincide, below) tell it
                    // apart, in the manifold's stable order.
                    let same = manifold.points[..k]
                        .iter()
                        .filter(|c| c.fid1 == contact.fid1 && c.fid2 == contact.fid2)
                        .count();
                    let p1 = pose_i * contact.local_p1;
                    let p2 = pose_j * contact.local_p2;
                    let point = (p1 + p2) * 0.5;
                    out.push(ContactPoint {
                        colliders: [i, j],
                        point: [point.x, point.y],
                        normal: [normal.x, normal.y],
                        gap: contact.dist,
                        id: contact_id(i, j, contact.fid1.0, contact.fid2.0, same),
                    });
                }
            }
            out[start..].sort_unstable_by_key(|c| c.id);
        }
    }

    /// The deepest overlap of any two colliders that may collide at
    /// `poses`: the largest `-gap` over their contact points, `0` when none
    /// overlap.
    ///
    /// # Panics
    ///
    /// If `poses` has no pose for a collider's body.
    pub fn max_penetration(&mut self, poses: &[Pose]) -> f64 {
        let mut points = std::mem::take(&mut self.scratch);
        self.collide(poses, 0.0, &mut points);
        let depth = points.iter().fold(0.0f64, |d, c| d.max(-c.gap));
        self.scratch = points;
        depth
    }

    /// Updates the world poses and grown boxes, the tree, and the sorted
    /// candidate pairs that may collide.
    fn broad_phase(&mut self, poses: &[Pose], margin: f64) {
        self.boxes.clear();
        for (k, collider) in self.colliders.iter().enumerate() {
            if let Some(b) = collider.body {
                self.world[k] = iso(&poses[b]);
            }
            let aabb = match self.shapes[k].as_halfspace() {
                Some(half) => half_plane_aabb(&self.world[k], half.normal),
                None => self.shapes[k].compute_aabb(&self.world[k]),
            };
            self.boxes.push(aabb.loosened(margin));
        }
        if self.bvh.is_empty() {
            self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.boxes);
        } else {
            for (k, aabb) in self.boxes.iter().enumerate() {
                self.bvh.insert_or_update_partially(*aabb, k as u32, 0.0);
            }
            self.bvh.refit(&mut self.bvh_workspace);
            self.bvh.optimize_incremental(&mut self.bvh_workspace);
        }
        self.candidates.clear();
        let (colliders, excluded, candidates) =
            (&self.colliders, &self.excluded, &mut self.candidates);
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.bvh_workspace, &mut |a, b| {
                let (i, j) = (a.min(b), a.max(b));
                let (i_body, j_body) = (colliders[i as usize].body, colliders[j as usize].body);
                if may_collide(i_body, j_body, excluded) {
                    candidates.push([i, j]);
                }
            });
        self.candidates.sort_unstable();
        self.candidates.dedup();
    }

    /// Keeps the manifolds of the pairs that are candidates again, starts
    /// empty ones for new candidates and drops the others (both lists are
    /// sorted).
    fn keep_pairs(&mut self) {
        keep_pairs(
            &self.candidates,
            &mut self.pairs,
            &mut self.old_pairs,
            |p| p.colliders,
            |colliders| Pair {
                colliders,
                manifolds: Vec::new(),
                workspace: None,
            },
        );
    }
}

/// parry's shape for a collider: checked, a half-plane only on a fixed
/// collider, and its normal made unit.
fn parry_shape(collider: &Collider) -> Result<SharedShape, ShapeError> {
    collider.shape.validate()?;
    let v = |p: &[f64; 2]| Vector::new(p[0], p[1]);
    Ok(match &collider.shape {
        Shape::Circle { radius } => SharedShape::ball(*radius),
        // A box as parry's `Cuboid`, whose contacts come from separating
        // axes: two convex polygons whose faces touch exactly (a row of
        // boxes side by side) make GJK and EPA report a full overlap along
        // the wrong axis (the regression test below). In parry2d-f64 0.31
        // a cuboid's vertex ids read bit 31 of each coordinate, a mantissa
        // bit in f64, not the sign, so two corners can share an id: the
        // ids add the rank among equal features.
        Shape::Box {
            half_extents: [a, b],
        } => SharedShape::cuboid(*a, *b),
        // A capsule of length zero is a disk (parry's segment would be
        // degenerate).
        Shape::Capsule {
            half_length,
            radius,
        } if *half_length == 0.0 => SharedShape::ball(*radius),
        Shape::Capsule {
            half_length,
            radius,
        } => SharedShape::capsule_x(*half_length, *radius),
        // Checked convex and counter-clockwise: parry keeps every vertex.
        Shape::Polygon { vertices } => polygon(vertices)?,
        Shape::HalfPlane { normal } => {
            if collider.body.is_some() {
                return Err(ShapeError {
                    key: "type",
                    message: "a half-plane must be fixed, not on a moving body".to_string(),
                });
            }
            SharedShape::halfspace(v(normal).normalize())
        }
    })
}

/// parry's convex polygon with exactly these (checked, counter-clockwise)
/// vertices.
fn polygon(vertices: &[[f64; 2]]) -> Result<SharedShape, ShapeError> {
    let points = vertices.iter().map(|p| Vector::new(p[0], p[1])).collect();
    SharedShape::convex_polyline_unmodified(points).ok_or(ShapeError {
        key: "vertices",
        message: "must be a convex polygon".to_string(),
    })
}

/// parry's pose for ours.
fn iso(pose: &Pose) -> Iso {
    Iso::new(Vector::new(pose.position[0], pose.position[1]), pose.angle)
}

/// The bounding box of a half-plane at `pose` with outward `normal` (in
/// its frame): parry's (everything, nearly) cut at the boundary when the
/// world normal lies along an axis, so that a floor only meets what comes
/// near it.
fn half_plane_aabb(pose: &Iso, normal: Vector) -> Aabb {
    let n = pose.rotation * normal;
    let p = pose.translation;
    let all = Vector::MAX * 0.5;
    let (mut mins, mut maxs) = ((-all).to_array(), all.to_array());
    cut_at_boundary(&n.to_array(), &p.to_array(), &mut mins, &mut maxs);
    Aabb::new(Vector::from_array(mins), Vector::from_array(maxs))
}

/// Cuts the box `mins..maxs` (everything, for a half-plane or half-space)
/// at the boundary through `point` when the outward `normal` lies along
/// one axis (one nonzero component): the box keeps the inside only.
pub(crate) fn cut_at_boundary(normal: &[f64], point: &[f64], mins: &mut [f64], maxs: &mut [f64]) {
    let mut nonzero = (0..normal.len()).filter(|&k| normal[k] != 0.0);
    if let (Some(k), None) = (nonzero.next(), nonzero.next()) {
        if normal[k] > 0.0 {
            maxs[k] = point[k];
        } else {
            mins[k] = point[k];
        }
    }
}

/// The pairs of bodies that never collide, each `[low, high]`, sorted,
/// without repeats (the planar and the spatial worlds alike).
pub(crate) fn sorted_pairs(exclude: &[[usize; 2]]) -> Vec<[usize; 2]> {
    let mut excluded: Vec<[usize; 2]> =
        exclude.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
    excluded.sort_unstable();
    excluded.dedup();
    excluded
}

/// Whether two colliders on these bodies (`None`: fixed) may collide: not
/// on one body, not both fixed, not on a pair in `excluded` (from
/// [`sorted_pairs`]).
pub(crate) fn may_collide(i: Option<usize>, j: Option<usize>, excluded: &[[usize; 2]]) -> bool {
    match (i, j) {
        (None, None) => false,
        (Some(a), Some(b)) => a != b && excluded.binary_search(&[a.min(b), a.max(b)]).is_err(),
        _ => true,
    }
}

/// Keeps in `pairs` the kept state of each pair that is a candidate
/// again, a `fresh` one for each new candidate, and drops the others:
/// `candidates` and `pairs` (keyed by `key`) are sorted, and `old` is the
/// spare list swapped in and out so that nothing is allocated once both
/// lists have grown to size.
pub(crate) fn keep_pairs<P>(
    candidates: &[[u32; 2]],
    pairs: &mut Vec<P>,
    old: &mut Vec<P>,
    key: impl Fn(&P) -> [u32; 2],
    fresh: impl Fn([u32; 2]) -> P,
) {
    std::mem::swap(pairs, old);
    pairs.clear();
    let mut old = old.drain(..).peekable();
    for &colliders in candidates {
        while old.next_if(|p| key(p) < colliders).is_some() {}
        let pair = old
            .next_if(|p| key(p) == colliders)
            .unwrap_or_else(|| fresh(colliders));
        pairs.push(pair);
    }
}

/// A contact's id: the pair, the features (parry's packed feature ids) and
/// the rank among the manifold's points of the same features, mixed into 64
/// bits (splitmix64 steps), the same on every run and platform.
pub(crate) fn contact_id(i: usize, j: usize, fid1: u32, fid2: u32, rank: usize) -> u64 {
    let mix = |h: u64, x: u64| {
        let mut z = (h ^ x).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let features = (u64::from(fid1) << 32) | u64::from(fid2);
    mix(mix(mix(mix(0, i as u64), j as u64), features), rank as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn pose(x: f64, y: f64, angle: f64) -> Pose {
        Pose {
            position: [x, y],
            angle,
        }
    }

    fn fixed(shape: Shape, at: Pose) -> Collider {
        Collider {
            shape,
            body: None,
            pose: at,
        }
    }

    fn on(body: usize, shape: Shape) -> Collider {
        Collider {
            shape,
            body: Some(body),
            pose: Pose::default(),
        }
    }

    fn floor() -> Shape {
        Shape::HalfPlane { normal: [0.0, 1.0] }
    }

    fn slab() -> Shape {
        Shape::Box {
            half_extents: [0.5, 0.25],
        }
    }

    fn circle(radius: f64) -> Shape {
        Shape::Circle { radius }
    }

    /// The points of a fresh world of `colliders` at `poses`.
    fn points(colliders: Vec<Collider>, poses: &[Pose], margin: f64) -> Vec<ContactPoint> {
        let mut world = Collision::new(colliders, &[]).unwrap();
        let mut out = Vec::new();
        world.collide(poses, margin, &mut out);
        out
    }

    /// Points sorted by x, for checks by position.
    fn by_x(mut points: Vec<ContactPoint>) -> Vec<ContactPoint> {
        points.sort_by(|a, b| a.point[0].total_cmp(&b.point[0]));
        points
    }

    /// Two boxes side by side whose faces touch exactly (a pyramid's row as
    /// written in a scene): as convex polygons GJK and EPA gave a full
    /// overlap (gap -1) along the vertical; the contact is the shared face,
    /// gap 0, normal along x, two points at its ends with distinct ids.
    #[test]
    fn boxes_touching_exactly_side_by_side_got_a_full_overlap() {
        let square = Shape::Box {
            half_extents: [0.5, 0.5],
        };
        for d in [0.0, 1e-12, -1e-12] {
            let p = by_x(points(
                vec![on(0, square.clone()), on(1, square.clone())],
                &[pose(-0.5 - d, 0.5, 0.0), pose(0.5 + d, 0.5, 0.0)],
                1e-3,
            ));
            assert_eq!(p.len(), 2, "{d}: {p:?}");
            for c in &p {
                assert_eq!(c.normal, [1.0, 0.0], "{d}");
                assert!((c.gap - 2.0 * d).abs() < 1e-15, "{d}: {}", c.gap);
                assert!(c.point[0].abs() < 1e-12);
            }
            assert_ne!(p[0].id, p[1].id);
        }
    }

    /// A box sunk 1e-3 into a floor (the floor off the origin, with a
    /// normal that is not unit): two points at its bottom corners, the
    /// normal from the lower index to the other, the gap -1e-3, each point
    /// halfway between the floor and the corner.
    #[test]
    fn box_on_floor_touches_at_its_corners() {
        let ground = fixed(
            Shape::HalfPlane { normal: [0.0, 3.0] },
            pose(2.0, -1.0, 0.0),
        );
        let sunk = [pose(2.0, -1.0 + 0.25 - 1e-3, 0.0)];
        for (colliders, sign) in [
            (vec![ground.clone(), on(0, slab())], 1.0),
            (vec![on(0, slab()), ground], -1.0),
        ] {
            let p = by_x(points(colliders, &sunk, 0.0));
            assert_eq!(p.len(), 2);
            for (c, x) in p.iter().zip([1.5, 2.5]) {
                assert_eq!(c.colliders, [0, 1]);
                assert_relative_eq!(c.point[0], x, epsilon = 1e-12);
                assert_relative_eq!(c.point[1], -1.0 - 0.5e-3, epsilon = 1e-12);
                assert_relative_eq!(c.normal[0], 0.0, epsilon = 1e-15);
                assert_relative_eq!(c.normal[1], sign, epsilon = 1e-15);
                assert_relative_eq!(c.gap, -1e-3, epsilon = 1e-12);
            }
            assert_ne!(p[0].id, p[1].id);
        }
    }

    /// A box tilted by `a` touches with its lowest corner only, at
    /// `(x - 0.5 cos a + 0.25 sin a, y - 0.5 sin a - 0.25 cos a)`.
    #[test]
    fn tilted_box_touches_at_one_corner() {
        let a: f64 = 0.2;
        let depth = 0.5 * a.sin() + 0.25 * a.cos();
        let (x, y) = (0.7, depth - 2e-3);
        let p = points(
            vec![fixed(floor(), Pose::default()), on(0, slab())],
            &[pose(x, y, a)],
            0.0,
        );
        assert_eq!(p.len(), 1);
        let c = p[0];
        assert_relative_eq!(c.gap, y - depth, epsilon = 1e-12);
        assert_relative_eq!(
            c.point[0],
            x - 0.5 * a.cos() + 0.25 * a.sin(),
            epsilon = 1e-12
        );
        assert_relative_eq!(c.point[1], 0.5 * (y - depth), epsilon = 1e-12);
        assert_relative_eq!(c.normal[1], 1.0, epsilon = 1e-15);
    }

    /// Two circles: the gap is the distance less the radii, the normal
    /// along the centres, the point halfway between the two surfaces.
    #[test]
    fn two_circles() {
        let p = points(
            vec![on(0, circle(0.5)), on(1, circle(0.3))],
            &[pose(1.0, 1.0, 0.4), pose(1.6, 1.8, -1.0)],
            0.25,
        );
        assert_eq!(p.len(), 1);
        let c = p[0];
        assert_relative_eq!(c.gap, 0.2, epsilon = 1e-12);
        assert_relative_eq!(c.normal[0], 0.6, epsilon = 1e-12);
        assert_relative_eq!(c.normal[1], 0.8, epsilon = 1e-12);
        // Surfaces at (1.3, 1.4) and (1.42, 1.56).
        assert_relative_eq!(c.point[0], 1.36, epsilon = 1e-12);
        assert_relative_eq!(c.point[1], 1.48, epsilon = 1e-12);
        // Beyond the margin: nothing.
        let far = [pose(1.0, 1.0, 0.0), pose(1.6, 1.8, 0.0)];
        assert!(points(vec![on(0, circle(0.5)), on(1, circle(0.3))], &far, 0.1).is_empty());
    }

    /// A circle sunk into the top face of a fixed box.
    #[test]
    fn circle_on_a_box_face() {
        let table = fixed(
            Shape::Box {
                half_extents: [1.0, 0.5],
            },
            pose(0.0, 0.0, 0.0),
        );
        let p = points(
            vec![table, on(0, circle(0.2))],
            &[pose(0.3, 0.7 - 1e-3, 0.0)],
            0.0,
        );
        assert_eq!(p.len(), 1);
        assert_relative_eq!(p[0].gap, -1e-3, epsilon = 1e-12);
        assert_relative_eq!(p[0].normal[1], 1.0, epsilon = 1e-15);
        assert_relative_eq!(p[0].point[0], 0.3, epsilon = 1e-12);
        assert_relative_eq!(p[0].point[1], 0.5 - 0.5e-3, epsilon = 1e-12);
    }

    /// A capsule lying on a floor or on a fixed box (parry's polygon
    /// against a segment with a radius) touches at the ends of its segment;
    /// a triangle on its edge at the edge's two vertices; a capsule of
    /// length zero like a disk.
    #[test]
    fn capsule_and_triangle_on_a_floor() {
        let capsule = Shape::Capsule {
            half_length: 1.0,
            radius: 0.1,
        };
        let table = Shape::Box {
            half_extents: [3.0, 0.5],
        };
        for support in [
            fixed(floor(), Pose::default()),
            fixed(table, pose(3.0, -0.5, 0.0)),
        ] {
            let p = by_x(points(
                vec![support, on(0, capsule.clone())],
                &[pose(3.0, 0.1 - 1e-3, 0.0)],
                0.0,
            ));
            assert_eq!(p.len(), 2);
            for (c, x) in p.iter().zip([2.0, 4.0]) {
                assert_relative_eq!(c.gap, -1e-3, epsilon = 1e-12);
                assert_relative_eq!(c.normal[1], 1.0, epsilon = 1e-15);
                assert_relative_eq!(c.point[0], x, epsilon = 1e-12);
                assert_relative_eq!(c.point[1], -0.5e-3, epsilon = 1e-12);
            }
        }
        let triangle = Shape::Polygon {
            vertices: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        };
        let p = by_x(points(
            vec![on(0, triangle), fixed(floor(), Pose::default())],
            &[pose(2.0, -1e-3, 0.0)],
            0.0,
        ));
        assert_eq!(p.len(), 2);
        for (c, x) in p.iter().zip([2.0, 3.0]) {
            assert_relative_eq!(c.gap, -1e-3, epsilon = 1e-12);
            assert_relative_eq!(c.normal[1], -1.0, epsilon = 1e-15);
            assert_relative_eq!(c.point[0], x, epsilon = 1e-12);
        }
        let dot = Shape::Capsule {
            half_length: 0.0,
            radius: 0.1,
        };
        let p = points(
            vec![fixed(floor(), Pose::default()), on(0, dot)],
            &[pose(0.0, 0.1 - 1e-3, 0.0)],
            0.0,
        );
        assert_eq!(p.len(), 1);
        assert_relative_eq!(p[0].gap, -1e-3, epsilon = 1e-12);
    }

    /// A box 0.01 above a floor: two points of gap 0.01 within a margin of
    /// 0.02, none within 0.005.
    #[test]
    fn margin_admits_near_points() {
        let colliders = || vec![fixed(floor(), Pose::default()), on(0, slab())];
        let above = [pose(0.0, 0.26, 0.0)];
        let near = points(colliders(), &above, 0.02);
        assert_eq!(near.len(), 2);
        for c in &near {
            assert_relative_eq!(c.gap, 0.01, epsilon = 1e-12);
        }
        assert!(points(colliders(), &above, 0.005).is_empty());
    }

    /// Overlapping colliders on one body, both fixed, or on an excluded
    /// pair of bodies (given in either order) give no points; the same
    /// overlap between other bodies does.
    #[test]
    fn exclusions() {
        let overlap = [
            pose(0.0, 0.0, 0.0),
            pose(0.5, 0.0, 0.0),
            pose(0.0, 0.5, 0.0),
        ];
        let mut out = Vec::new();
        let colliders = vec![
            on(0, circle(0.4)),
            on(0, slab()),
            fixed(circle(0.4), pose(9.0, 0.0, 0.0)),
            fixed(slab(), pose(9.0, 0.0, 0.0)),
            on(1, circle(0.4)),
            on(2, circle(0.4)),
        ];
        let mut world = Collision::new(colliders, &[[1, 0], [0, 1]]).unwrap();
        world.collide(&overlap, 0.0, &mut out);
        let pairs: Vec<_> = out.iter().map(|c| c.colliders).collect();
        // Body 2 meets body 0's two shapes and body 1.
        assert_eq!(pairs, [[0, 5], [1, 5], [4, 5]]);
        assert_eq!(world.colliders().len(), 6);
    }

    /// Sliding a resting box by 1e-3 keeps both ids, which differ.
    #[test]
    fn ids_persist_while_the_same_features_touch() {
        let mut world =
            Collision::new(vec![fixed(floor(), Pose::default()), on(0, slab())], &[]).unwrap();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        world.collide(&[pose(0.0, 0.25 - 1e-3, 0.0)], 0.0, &mut before);
        world.collide(&[pose(1e-3, 0.25 - 1e-3, 0.0)], 0.0, &mut after);
        let ids = |p: &[ContactPoint]| p.iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(ids(&before).len(), 2);
        assert_eq!(ids(&before), ids(&after));
        assert_ne!(before[0].id, before[1].id);
        // Points come ordered by id within the pair.
        assert!(before[0].id < before[1].id);
    }

    /// A half-plane on a moving body and bad shapes are refused with the
    /// shape's key.
    #[test]
    fn bad_colliders_are_refused() {
        let key = |c: Collider| Collision::new(vec![c], &[]).err().unwrap().key;
        assert_eq!(key(on(0, floor())), "type");
        assert_eq!(key(on(0, circle(-1.0))), "radius");
        assert_eq!(
            key(fixed(
                Shape::HalfPlane { normal: [0.0, 0.0] },
                Pose::default()
            )),
            "normal"
        );
        assert_eq!(
            key(on(
                0,
                Shape::Polygon {
                    vertices: vec![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
                }
            )),
            "vertices"
        );
    }

    /// The deepest overlap: two circles 0.1 into each other, 0 apart.
    #[test]
    fn max_penetration_of_overlapping_circles() {
        let mut world = Collision::new(vec![on(0, circle(0.5)), on(1, circle(0.3))], &[]).unwrap();
        let depth = world.max_penetration(&[pose(0.0, 0.0, 0.0), pose(0.0, 0.7, 0.0)]);
        assert_relative_eq!(depth, 0.1, epsilon = 1e-12);
        assert_eq!(
            world.max_penetration(&[pose(0.0, 0.0, 0.0), pose(0.0, 0.9, 0.0)]),
            0.0
        );
    }

    /// 200 boxes in 20 stacks of 10, each level shifted by 0.1 (a leaning
    /// pile), each box sunk 1e-4 into the one below or the floor: two
    /// points per box, nothing between neighbouring stacks; the same again
    /// at a second call, with the same ids.
    #[test]
    fn a_pile_of_200_boxes_rests_on_two_points_each() {
        let mut colliders = vec![fixed(floor(), Pose::default())];
        let mut poses = Vec::new();
        for stack in 0..20 {
            for level in 0..10 {
                colliders.push(on(poses.len(), slab()));
                let y = 0.25 + level as f64 * (0.5 - 1e-4) - 1e-4;
                poses.push(pose(stack as f64 * 2.0 + level as f64 * 0.1, y, 0.0));
            }
        }
        let mut world = Collision::new(colliders, &[]).unwrap();
        let (mut first, mut second) = (Vec::new(), Vec::new());
        world.collide(&poses, 0.0, &mut first);
        assert_eq!(first.len(), 400);
        for c in &first {
            let [i, j] = c.colliders;
            assert!(j == i + 1 || i == 0, "{:?}", c.colliders);
            assert_relative_eq!(c.gap, -1e-4, epsilon = 1e-12);
            // Up: from the floor or the lower box to the upper box.
            assert_relative_eq!(c.normal[1], 1.0, epsilon = 1e-15);
            if i > 0 {
                // Halfway between the faces, at an end of their overlap.
                let (low, up) = (poses[i - 1].position, poses[j - 1].position);
                assert_relative_eq!(c.point[1], low[1] + 0.25 - 0.5e-4, epsilon = 1e-12);
                let ends = [up[0] - 0.5, low[0] + 0.5];
                assert!(ends.iter().any(|x| (c.point[0] - x).abs() < 1e-12), "{c:?}");
            }
        }
        for two in first.chunks(2) {
            assert_eq!(two[0].colliders, two[1].colliders);
            assert_ne!(two[0].id, two[1].id);
        }
        world.collide(&poses, 0.0, &mut second);
        assert_eq!(first, second);
    }
}
