//! Stage 1 in space, collide: the contacts of the step from the shapes
//! that touch (or come within the margin), each with its three rows over
//! `v` (normal, two tangents), its gap and an id that persists.

use zwang_geometry::spatial::{Collision, ContactPoint, Pose, Shape};
use zwang_model::spatial::rotation::tangents;
use zwang_model::spatial::SpatialModel;
use zwang_model::ModelError;

use crate::warm::Key;

/// One contact of a step.
#[derive(Debug, Clone, Copy)]
pub(super) struct SpaceContact {
    /// What the warm starts know it by.
    pub key: Key,
    /// Where its entries are in the step's rows (`start..end`).
    pub entries: (usize, usize),
    /// Signed distance, m (negative: overlap).
    pub gap: f64,
    /// Coulomb's and Newton's coefficients of the pair.
    pub mu: f64,
    pub restitution: f64,
}

/// A contact of the last step within this fraction of the smaller
/// shape's size from a new one of the same pair is the same contact.
const MATCH_FRACTION: f64 = 0.05;

/// The bounding radius of a shape about its body's origin (a
/// half-space's is infinite).
pub(super) fn bounding_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere { radius } => *radius,
        Shape::Box { half_extents: h } => (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt(),
        Shape::Capsule {
            half_length,
            radius,
        } => half_length + radius,
        Shape::Cylinder {
            half_length,
            radius,
        } => half_length.hypot(*radius),
        Shape::Convex { vertices } => vertices
            .iter()
            .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
            .fold(0.0, f64::max),
        Shape::Halfspace { .. } => f64::INFINITY,
    }
}

/// The collision world of a model and the stage's working memory.
pub(super) struct Collide {
    collision: Option<Collision>,
    /// `[friction, restitution]` and bounding radius per collider.
    surfaces: Vec<[f64; 2]>,
    sizes: Vec<f64>,
    poses: Vec<Pose>,
    points: Vec<ContactPoint>,
}

impl Collide {
    /// The model's colliders.
    pub fn new(model: &SpatialModel) -> Result<Collide, ModelError> {
        let (colliders, surfaces) = model.colliders();
        let sizes = colliders
            .iter()
            .map(|c| bounding_radius(&c.shape))
            .collect();
        let collision = if colliders.is_empty() {
            None
        } else {
            Some(
                Collision::new(colliders, &model.joined_pairs()).map_err(|e| {
                    ModelError::Invalid {
                        key: format!("shape.{}", e.key),
                        message: e.message,
                    }
                })?,
            )
        };
        Ok(Collide {
            collision,
            surfaces,
            sizes,
            poses: Vec::new(),
            points: Vec::new(),
        })
    }

    /// The contacts at `q` with a gap of at most `margin` into `out`, their
    /// rows into `rows` (`(column, [n, t1, t2])`, by contact).
    pub fn contacts(
        &mut self,
        model: &SpatialModel,
        q: &[f64],
        margin: f64,
        out: &mut Vec<SpaceContact>,
        rows: &mut Vec<(usize, [f64; 3])>,
    ) {
        out.clear();
        rows.clear();
        let Some(collision) = self.collision.as_mut() else {
            return;
        };
        model.poses_into(q, &mut self.poses);
        collision.collide(&self.poses, margin, &mut self.points);
        let colliders = collision.colliders();
        for p in &self.points {
            let [i, j] = p.colliders;
            let (si, sj) = (self.surfaces[i], self.surfaces[j]);
            let (t1, t2) = tangents(p.normal);
            let frame = [p.normal, t1, t2];
            let start = rows.len();
            // The normal points from the first collider to the second: the
            // second's velocity counts positive.
            for (c, sign) in [(i, -1.0), (j, 1.0)] {
                if let Some(m) = colliders[c].body {
                    model.point_rows(q, m, p.point, &frame, sign, rows);
                }
            }
            out.push(SpaceContact {
                key: Key {
                    id: p.id,
                    pair: ((i as u64) << 32) | j as u64,
                    point: p.point,
                    reach: MATCH_FRACTION * self.sizes[i].min(self.sizes[j]),
                },
                entries: (start, rows.len()),
                gap: p.gap,
                mu: (si[0] * sj[0]).sqrt(),
                restitution: si[1].max(sj[1]),
            });
        }
    }
}
