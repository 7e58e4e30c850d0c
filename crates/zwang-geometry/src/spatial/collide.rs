//! Which shapes touch in space, and where.
//!
//! As in the plane, everything geometric is parry's (`parry3d-f64`): its
//! shapes, its BVH for the broad phase, its contact manifolds for the
//! narrow phase. This module keeps the working memory between calls and
//! turns parry's local answers into world contact points.
//!
//! What differs from the planar module is for the no-allocation promise
//! and for clean manifolds. parry's 3D manifolds keep their points in a
//! `Vec` that its generators clone at each call (to carry user data over,
//! which we do not use): the points are cleared before each call, and the
//! clone of an empty `Vec` allocates nothing. Two generators allocate
//! anyway and are parry's own re-written here: the half-space one (it
//! swaps the `Vec` out) and the general convex one (a new EPA at each
//! overlap; also, it adds GJK's closest pair without features to every
//! manifold, a fifth point under a hull of a box's corners, which is kept
//! here only when clipping finds none). The box-box one is re-written
//! too, to break ties between separating axes one way (at rest they tie
//! to round-off). And two faces that coincide give each shared corner
//! twice: the second copy is dropped.

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::math::{Pose as Iso, Rotation, Vector};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::{self, CsoPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::query::{
    sat, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, TrackedContact,
};
use parry3d_f64::shape::{
    Cuboid, HalfSpace, PackedFeatureId, PolygonalFeature, PolygonalFeatureMap, Shape as ParryShape,
    SharedShape,
};
use rayon::prelude::*;

use super::shape::solid_hull;
use super::{Pose, Shape};
use crate::collide::{contact_id, cut_at_boundary, keep_pairs, may_collide, sorted_pairs};
use crate::ShapeError;

/// A shape on a body in space (`Some(index)` into the caller's moving
/// bodies) or fixed in the world (`None`, at `pose`): the planar
/// [`crate::Collider`] with a shape and a pose in space.
pub type Collider = crate::Collider<Shape, Pose>;

/// One point where two colliders touch or come within the margin, in
/// space ([`crate::ContactPoint`] in three dimensions).
///
/// The surfaces' two closest points are `point ∓ gap / 2 · normal` (the
/// first collider's, then the second's).
pub type ContactPoint = crate::ContactPoint<3>;

/// The colliders of a spatial scene and the working memory of their
/// collision detection (the BVH, one kept manifold per candidate pair).
///
/// Build it once with [`Collision::new`], then call [`Collision::collide`]
/// at each step with the moving bodies' poses. With the same candidate
/// pairs (bounding boxes, grown by the margin, that overlap) a call
/// allocates nothing.
pub struct Collision {
    colliders: Vec<Collider>,
    /// parry's shape of each collider.
    shapes: Vec<SharedShape>,
    /// The pose of parry's shape in its body's frame, when it is not the
    /// identity (a cylinder: parry's stand along y, ours along z).
    offsets: Vec<Option<Iso>>,
    /// The half diagonal of each shape's bounding box in its frame (a
    /// half-space's: infinite), for telling points apart.
    sizes: Vec<f64>,
    /// Pairs of bodies that never collide, `[low, high]`, sorted.
    excluded: Vec<[usize; 2]>,
    /// The broad phase: leaf `k` is collider `k`. Empty until the first
    /// call.
    bvh: Bvh,
    bvh_workspace: BvhWorkspace,
    /// Each parry shape's world pose and grown bounding box at this call.
    world: Vec<Iso>,
    boxes: Vec<Aabb>,
    /// The pairs the broad phase found at this call, sorted.
    candidates: Vec<[u32; 2]>,
    /// The manifold kept per candidate pair, sorted by pair.
    pairs: Vec<Pair>,
    /// The previous call's `pairs`, while merging.
    old_pairs: Vec<Pair>,
    /// The points for [`Collision::max_penetration`].
    scratch: Vec<ContactPoint>,
    /// EPA's working memory, for overlapping general convex shapes: one
    /// per chunk of pairs the narrow phase splits them into.
    epas: Vec<EPA>,
}

/// Candidate pairs from which the narrow phase runs on rayon's pool, in
/// `CHUNKS_PER_THREAD` chunks a thread (a landing pile of 256 boxes has
/// about 700; a few dozen cost less than the split).
const PARALLEL_PAIRS: usize = 64;
const CHUNKS_PER_THREAD: usize = 4;

/// Up to this many colliders, the broad phase tests every pair's boxes:
/// a robot's few dozen geoms cost less so than keeping, refitting and
/// walking a tree of them.
const ALL_PAIRS: usize = 64;

/// The room for points a manifold starts with: the overlap of two
/// quadrilaterals (parry's 3D features have at most 4 vertices) is an
/// octagon at most; a manifold that needs more grows once.
const MANIFOLD_ROOM: usize = 8;

/// parry's manifold for one pair of colliders (convex shapes: one
/// manifold at most).
struct Pair {
    colliders: [u32; 2],
    manifold: ContactManifold<(), ()>,
}

impl Collision {
    /// The world of `colliders`. Two colliders never collide when they are
    /// on the same body, both fixed (`body: None`), or on a pair of bodies
    /// listed in `exclude` (bodies joined by a joint), in either order.
    ///
    /// Errors: a collider whose [`Shape::validate`] fails, or a half-space
    /// on a moving body (key `type`), as a [`ShapeError`] with the shape's
    /// key; the caller knows which collider it was by adding its index.
    pub fn new(colliders: Vec<Collider>, exclude: &[[usize; 2]]) -> Result<Collision, ShapeError> {
        let (shapes, offsets) = colliders
            .iter()
            .map(parry_shape)
            .collect::<Result<(Vec<_>, Vec<_>), _>>()?;
        // Fixed colliders stay where they are: their world poses once.
        let world = colliders
            .iter()
            .zip(&offsets)
            .map(|(c, offset)| shape_pose(&c.pose, offset))
            .collect();
        let sizes = shapes
            .iter()
            .map(|s| match s.as_halfspace() {
                Some(_) => f64::INFINITY,
                None => s.compute_local_aabb().half_extents().length(),
            })
            .collect();
        let n = colliders.len();
        Ok(Collision {
            colliders,
            shapes,
            offsets,
            sizes,
            excluded: sorted_pairs(exclude),
            bvh: Bvh::new(),
            bvh_workspace: BvhWorkspace::default(),
            world,
            boxes: Vec::with_capacity(n),
            candidates: Vec::new(),
            pairs: Vec::new(),
            old_pairs: Vec::new(),
            scratch: Vec::new(),
            epas: vec![EPA::new()],
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
    /// grown by `margin`; each pair it finds that may collide gets its
    /// contact manifold from parry, afresh at each call (parry's shortcut
    /// that moves the last call's points along when the pose changed
    /// little is not used: the points are exact at every call). From
    /// `PARALLEL_PAIRS` pairs on, the manifolds are computed on rayon's
    /// pool in fixed chunks. Points come ordered by (`colliders`, `id`),
    /// the same on any number of threads.
    ///
    /// # Panics
    ///
    /// If `poses` has no pose for a collider's body.
    pub fn collide(&mut self, poses: &[Pose], margin: f64, out: &mut Vec<ContactPoint>) {
        out.clear();
        let margin = margin.max(0.0);
        self.broad_phase(poses, margin);
        keep_pairs(
            &self.candidates,
            &mut self.pairs,
            &mut self.old_pairs,
            |p| p.colliders,
            |colliders| {
                let mut manifold = ContactManifold::new();
                manifold.points.reserve(MANIFOLD_ROOM);
                Pair {
                    colliders,
                    manifold,
                }
            },
        );
        // The manifolds, each on its own (in chunks on rayon's pool), then
        // their points in the pairs' order: the same on any number of
        // threads.
        let (world, shapes) = (&self.world, &self.shapes);
        let manifold_of = |pair: &mut Pair, epa: &mut EPA| {
            let [i, j] = pair.colliders.map(|k| k as usize);
            let pos12 = world[i].inv_mul(&world[j]);
            contact_manifold(
                &pos12,
                &*shapes[i],
                &*shapes[j],
                margin,
                &mut pair.manifold,
                epa,
            );
        };
        let threads = rayon::current_num_threads();
        if self.pairs.len() >= PARALLEL_PAIRS && threads > 1 {
            let chunks = CHUNKS_PER_THREAD * threads;
            if self.epas.len() < chunks {
                self.epas.resize_with(chunks, EPA::new);
            }
            let size = self.pairs.len().div_ceil(chunks);
            self.pairs
                .par_chunks_mut(size)
                .zip(self.epas.par_iter_mut())
                .for_each(|(pairs, epa)| {
                    for pair in pairs {
                        manifold_of(pair, epa);
                    }
                });
        } else {
            for pair in &mut self.pairs {
                manifold_of(pair, &mut self.epas[0]);
            }
        }
        for pair in &self.pairs {
            let [i, j] = pair.colliders.map(|k| k as usize);
            let (pose_i, pose_j) = (&self.world[i], &self.world[j]);
            let manifold = &pair.manifold;
            let normal = (pose_i.rotation * manifold.local_n1).to_array();
            // Two faces that coincide give each shared corner twice (a
            // corner of the first in the second's face, and the other way
            // round, with different features): the first of the two is
            // kept, in parry's order. `tie`, 1e-12 of the smaller shape's
            // size, is far above round-off and far below the distance
            // between two points that are really distinct.
            let tie = 1e-12 * self.sizes[i].min(self.sizes[j]);
            let start = out.len();
            for (k, contact) in manifold.points.iter().enumerate() {
                let kept = |c: &TrackedContact<()>| c.dist <= margin;
                if !kept(contact)
                    || manifold.points[..k].iter().any(|c| {
                        kept(c) && c.local_p1.distance_squared(contact.local_p1) <= tie * tie
                    })
                {
                    continue;
                }
                // The points before it with the same features tell it
                // apart, in the manifold's stable order.
                let same = manifold.points[..k]
                    .iter()
                    .filter(|c| c.fid1 == contact.fid1 && c.fid2 == contact.fid2)
                    .count();
                let p1 = pose_i * contact.local_p1;
                let p2 = pose_j * contact.local_p2;
                out.push(ContactPoint {
                    colliders: [i, j],
                    point: ((p1 + p2) * 0.5).to_array(),
                    normal,
                    gap: contact.dist,
                    id: contact_id(i, j, contact.fid1.0, contact.fid2.0, same),
                });
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
                self.world[k] = shape_pose(&poses[b], &self.offsets[k]);
            }
            let aabb = match self.shapes[k].as_halfspace() {
                Some(half) => halfspace_aabb(&self.world[k], half.normal),
                None => self.shapes[k].compute_aabb(&self.world[k]),
            };
            self.boxes.push(aabb.loosened(margin));
        }
        self.candidates.clear();
        let (colliders, excluded, candidates) =
            (&self.colliders, &self.excluded, &mut self.candidates);
        let boxes = &self.boxes;
        if boxes.len() <= ALL_PAIRS {
            // The same test as the tree's leaves, in the sorted order.
            for (i, a) in boxes.iter().enumerate() {
                for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                    if a.intersects(b)
                        && may_collide(colliders[i].body, colliders[j].body, excluded)
                    {
                        candidates.push([i as u32, j as u32]);
                    }
                }
            }
            return;
        }
        if self.bvh.is_empty() {
            self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, boxes);
        } else {
            for (k, aabb) in boxes.iter().enumerate() {
                self.bvh.insert_or_update_partially(*aabb, k as u32, 0.0);
            }
            self.bvh.refit(&mut self.bvh_workspace);
            self.bvh.optimize_incremental(&mut self.bvh_workspace);
        }
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
}

/// parry's contact manifold of two convex shapes at `pos12` (the second's
/// pose in the first's frame), its points within `prediction`, computed
/// afresh into `manifold` (its last normal still serves as GJK's first
/// direction). parry's default dispatch, but for the two generators
/// re-written below, which allocate in parry.
fn contact_manifold(
    pos12: &Iso,
    shape1: &dyn ParryShape,
    shape2: &dyn ParryShape,
    prediction: f64,
    manifold: &mut ContactManifold<(), ()>,
    epa: &mut EPA,
) {
    manifold.points.clear();
    let (ball1, ball2) = (shape1.as_ball().is_some(), shape2.as_ball().is_some());
    let (pfm1, pfm2) = (
        shape1.as_polygonal_feature_map(),
        shape2.as_polygonal_feature_map(),
    );
    if let (Some(one), Some(two)) = (shape1.as_cuboid(), shape2.as_cuboid()) {
        cuboid_cuboid(pos12, one, two, prediction, manifold);
        return;
    }
    let special =
        ball1 || ball2 || (shape1.as_capsule().is_some() && shape2.as_capsule().is_some());
    match (shape1.as_halfspace(), shape2.as_halfspace(), pfm1, pfm2) {
        (Some(half), None, _, Some((pfm, radius))) if !ball2 => {
            halfspace_pfm(pos12, half, pfm, radius, prediction, manifold, false);
        }
        (None, Some(half), Some((pfm, radius)), _) if !ball1 => {
            let pos21 = pos12.inverse();
            halfspace_pfm(&pos21, half, pfm, radius, prediction, manifold, true);
        }
        (None, None, Some(one), Some(two)) if !special => {
            pfm_pfm(pos12, one, two, prediction, manifold, epa);
        }
        // Every other pair built here is supported (two half-spaces never
        // meet: both are fixed); an unsupported one gives no points.
        _ => {
            let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
                pos12, shape1, shape2, None, None, prediction, manifold,
            );
        }
    }
}

/// parry's `contact_manifold_cuboid_cuboid` (0.31), with ties between
/// the separating axes broken one way: the first box's face unless the
/// second's separates by `TIE` (relative to the smaller box) more, and a
/// face unless an edge pair separates by `TIE` more than it. Boxes at
/// rest side by side or one on the other tie a face's separation and an
/// edge pair's to round-off (the edges lie in the faces), and parry's
/// strict comparison picked one or the other as the tie drifted by
/// `1e-16`, the clipped points differing (a point, or none): a pile at
/// rest changed its contacts at every other step, each change
/// rebuilding the contact solver.
fn cuboid_cuboid(
    pos12: &Iso,
    cuboid1: &Cuboid,
    cuboid2: &Cuboid,
    prediction: f64,
    manifold: &mut ContactManifold<(), ()>,
) {
    let pos21 = pos12.inverse();
    let sep1 = sat::cuboid_cuboid_find_local_separating_normal_oneway(cuboid1, cuboid2, pos12);
    let sep2 = sat::cuboid_cuboid_find_local_separating_normal_oneway(cuboid2, cuboid1, &pos21);
    let sep3 = sat::cuboid_cuboid_find_local_separating_edge_twoway(cuboid1, cuboid2, pos12);
    if sep1.0 > prediction || sep2.0 > prediction || sep3.0 > prediction {
        return;
    }
    let size = cuboid1
        .half_extents
        .min_element()
        .min(cuboid2.half_extents.min_element());
    let tie = TIE * size;
    let mut best = if sep2.0 > sep1.0 + tie {
        (sep2.0, pos12.rotation * -sep2.1)
    } else {
        sep1
    };
    if sep3.0 > best.0 + tie {
        best = sep3;
    }
    let local_n2 = pos21.rotation * -best.1;
    let feature1 = cuboid1.support_feature(best.1);
    let feature2 = cuboid2.support_feature(local_n2);
    PolygonalFeature::contacts(
        pos12, &pos21, best.1, local_n2, &feature1, &feature2, manifold, false,
    );
    if feature1.num_vertices == 4 && feature2.num_vertices == 4 {
        aligned_corners(pos12, best.1, &feature1, &feature2, tie, manifold);
    }
    manifold.local_n1 = best.1;
    manifold.local_n2 = local_n2;
}

/// See [`cuboid_cuboid`].
const TIE: f64 = 1e-9;

/// The corners of two faces that coincide that parry's clipping loses:
/// it keeps a corner of one face strictly inside the other's outline
/// (exact signs) and the crossings of edges that are not parallel, so
/// where one face's corner sticks out of the other by `1e-12` across one
/// edge and the other's by `1e-17` across the other (two 1 m cubes
/// stacked exactly aligned, after 40 steps on a 5 degree incline), that
/// corner is in neither test: the stack stood on three corners, its top
/// rocked about the diagonal at 1e-3 rad/s into an overlap of 2e-6 m,
/// and the correction left it shifted 2.2e-6 m across the slope. Here a
/// corner within `tol` of the other face's outline is kept, unless a
/// point is already there.
fn aligned_corners(
    pos12: &Iso,
    n: Vector,
    face1: &PolygonalFeature,
    face2: &PolygonalFeature,
    tol: f64,
    manifold: &mut ContactManifold<(), ()>,
) {
    let pos21 = pos12.inverse();
    let verts2: [Vector; 4] = std::array::from_fn(|k| pos12 * face2.vertices[k]);
    let verts1 = face1.vertices;
    // Whether `p` lies within `tol` of the outline `poly` (convex, either
    // orientation), seen along `n`.
    let inside = |poly: &[Vector; 4], p: Vector| {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in 0..4 {
            let (a, b) = (poly[k], poly[(k + 1) % 4]);
            let edge = b - a;
            let s = edge.cross(p - a).dot(n) / edge.length();
            low = low.min(s);
            high = high.max(s);
        }
        low >= -tol || high <= tol
    };
    let known = |manifold: &ContactManifold<(), ()>, p1: Vector| {
        manifold
            .points
            .iter()
            .any(|c| c.local_p1.distance_squared(p1) <= tol * tol)
    };
    for k in 0..4 {
        let v = verts1[k];
        if inside(&verts2, v) {
            let dist = (verts2[0] - v).dot(n);
            if !known(manifold, v) {
                manifold.points.push(TrackedContact::new(
                    v,
                    pos21 * (v + n * dist),
                    face1.vids[k],
                    face2.fid,
                    dist,
                ));
            }
        }
    }
    for k in 0..4 {
        let w = verts2[k];
        if inside(&verts1, w) {
            let dist = (w - verts1[0]).dot(n);
            let p1 = w - n * dist;
            if !known(manifold, p1) {
                manifold.points.push(TrackedContact::new(
                    p1,
                    face2.vertices[k],
                    face1.fid,
                    face2.vids[k],
                    dist,
                ));
            }
        }
    }
}

/// parry's `contact_manifold_pfm_pfm` (0.31) without normal constraints,
/// for two general convex shapes (hulls, cylinders, a capsule and a box):
/// GJK, or EPA when they overlap, finds the closest points and the normal,
/// then the two support features along it are clipped. Two changes: EPA's
/// memory is kept from call to call (parry makes a new one, which
/// allocates, at each overlap), and GJK's closest pair, whose features
/// parry does not know, is added only when clipping gives no point within
/// `prediction` (parry always adds it in 3D: inside the patch the others
/// span, it would rest a hull of a box's corners on five points where the
/// box rests on four).
fn pfm_pfm(
    pos12: &Iso,
    (pfm1, radius1): (&dyn PolygonalFeatureMap, f64),
    (pfm2, radius2): (&dyn PolygonalFeatureMap, f64),
    prediction: f64,
    manifold: &mut ContactManifold<(), ()>,
    epa: &mut EPA,
) {
    let dir = manifold
        .local_n1
        .try_normalize()
        .or_else(|| pos12.translation.try_normalize())
        .unwrap_or(Vector::X);
    let mut simplex = VoronoiSimplex::new();
    simplex.reset(CsoPoint::from_shapes(pos12, pfm1, pfm2, dir));
    let total_prediction = prediction + radius1 + radius2;
    let mut closest = gjk::closest_points(pos12, pfm1, pfm2, total_prediction, true, &mut simplex);
    if closest == GJKResult::Intersection {
        closest = match epa.closest_points(pos12, pfm1, pfm2, &simplex) {
            Some((p1, p2, n)) => GJKResult::ClosestPoints(p1, p2, n),
            None => GJKResult::NoIntersection(Vector::X),
        };
    }
    match closest {
        GJKResult::ClosestPoints(p1, p2_1, dir) => {
            let local_n1 = dir;
            let local_n2 = pos12.rotation.inverse() * -dir;
            let p2 = pos12.inverse_transform_point(p2_1);
            let (mut feature1, mut feature2) =
                (PolygonalFeature::default(), PolygonalFeature::default());
            pfm1.local_support_feature_toward(local_n1, p1, &mut feature1);
            pfm2.local_support_feature_toward(local_n2, p2, &mut feature2);
            PolygonalFeature::contacts(
                pos12,
                &pos12.inverse(),
                local_n1,
                local_n2,
                &feature1,
                &feature2,
                manifold,
                false,
            );
            if !manifold.points.iter().any(|c| c.dist <= total_prediction) {
                manifold.points.push(TrackedContact::new(
                    p1,
                    p2,
                    PackedFeatureId::UNKNOWN,
                    PackedFeatureId::UNKNOWN,
                    (p2_1 - p1).dot(local_n1),
                ));
            }
            for contact in &mut manifold.points {
                contact.local_p1 += local_n1 * radius1;
                contact.local_p2 += local_n2 * radius2;
                contact.dist -= radius1 + radius2;
            }
            manifold.local_n1 = local_n1;
            manifold.local_n2 = local_n2;
        }
        // The separating direction, as the next call's first guess.
        GJKResult::NoIntersection(dir) => manifold.local_n1 = dir,
        _ => manifold.local_n1 = Vector::ZERO,
    }
}

/// parry's `contact_manifold_halfspace_pfm` (0.31), but for the points
/// kept in place: the vertices of the shape's support feature against the
/// half-space's normal that lie within `prediction` of the plane (a face:
/// all its corners, up to four; an edge, or a capsule's segment: its two
/// ends). `flipped` when the half-space is the second shape (then `pos12`
/// is the first's pose in the half-space's frame).
fn halfspace_pfm(
    pos12: &Iso,
    half: &HalfSpace,
    pfm: &dyn PolygonalFeatureMap,
    radius: f64,
    prediction: f64,
    manifold: &mut ContactManifold<(), ()>,
    flipped: bool,
) {
    let normal1_2 = pos12.rotation.inverse() * half.normal;
    let mut feature = PolygonalFeature::default();
    pfm.local_support_feature(-normal1_2, &mut feature);
    for k in 0..feature.num_vertices {
        let vertex2 = feature.vertices[k];
        let vertex2_1 = pos12 * vertex2;
        let height = vertex2_1.dot(half.normal);
        if height - radius <= prediction {
            manifold.points.push(TrackedContact::flipped(
                vertex2_1 - half.normal * height,
                vertex2 - normal1_2 * radius,
                PackedFeatureId::face(0),
                feature.vids[k],
                height - radius,
                flipped,
            ));
        }
    }
    (manifold.local_n1, manifold.local_n2) = if flipped {
        (-normal1_2, half.normal)
    } else {
        (half.normal, -normal1_2)
    };
}

/// parry's shape for a collider and its pose in the body's frame (`None`:
/// the identity): checked, a half-space only on a fixed collider, its
/// normal made unit.
fn parry_shape(collider: &Collider) -> Result<(SharedShape, Option<Iso>), ShapeError> {
    collider.shape.validate()?;
    Ok(match &collider.shape {
        Shape::Sphere { radius } => (SharedShape::ball(*radius), None),
        // parry's `Cuboid`: boxes get the separating-axis generator (and
        // its feature ids: a face's corners, an edge), not GJK's.
        Shape::Box {
            half_extents: [a, b, c],
        } => (SharedShape::cuboid(*a, *b, *c), None),
        // A capsule of length zero is a ball (parry's segment would be
        // degenerate).
        Shape::Capsule {
            half_length,
            radius,
        } if *half_length == 0.0 => (SharedShape::ball(*radius), None),
        Shape::Capsule {
            half_length,
            radius,
        } => (SharedShape::capsule_z(*half_length, *radius), None),
        // parry's cylinder stands along its y axis: turned a quarter about
        // x, its y is the body's z.
        Shape::Cylinder {
            half_length,
            radius,
        } => (
            SharedShape::cylinder(*half_length, *radius),
            Some(Iso::from_rotation(Rotation::from_rotation_x(
                std::f64::consts::FRAC_PI_2,
            ))),
        ),
        Shape::Convex { vertices } => {
            let hull = solid_hull(vertices).map_err(|message| ShapeError {
                key: "vertices",
                message: message.to_string(),
            })?;
            (SharedShape::new(hull), None)
        }
        Shape::Halfspace { normal } => {
            if collider.body.is_some() {
                return Err(ShapeError {
                    key: "type",
                    message: "a half-space must be fixed, not on a moving body".to_string(),
                });
            }
            let n = Vector::from_array(*normal).normalize();
            (SharedShape::halfspace(n), None)
        }
    })
}

/// parry's pose for ours (the quaternion made unit).
fn iso(pose: &Pose) -> Iso {
    let [w, x, y, z] = pose.orientation;
    Iso::from_parts(
        Vector::from_array(pose.position),
        Rotation::from_xyzw(x, y, z, w).normalize(),
    )
}

/// The world pose of parry's shape on a body at `pose`.
fn shape_pose(pose: &Pose, offset: &Option<Iso>) -> Iso {
    match offset {
        Some(offset) => iso(pose) * *offset,
        None => iso(pose),
    }
}

/// The bounding box of a half-space at `pose` with outward `normal` (in
/// its frame): parry's (everything, nearly) cut at the boundary when the
/// world normal lies along an axis, so that a floor only meets what comes
/// near it.
fn halfspace_aabb(pose: &Iso, normal: Vector) -> Aabb {
    let n = pose.rotation * normal;
    let all = Vector::MAX * 0.5;
    let (mut mins, mut maxs) = ((-all).to_array(), all.to_array());
    cut_at_boundary(
        &n.to_array(),
        &pose.translation.to_array(),
        &mut mins,
        &mut maxs,
    );
    Aabb::new(Vector::from_array(mins), Vector::from_array(maxs))
}
