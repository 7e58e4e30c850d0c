//! Stage 1, collide: the contacts of the step, from the shapes that touch
//! (or come within the margin) and from the `[[contact]]` points near
//! their surfaces, each with its rows over `v`, its gap, its surface and
//! an id that persists while the same features touch.

use zwang_geometry::{Collision, ContactPoint, Pose, Shape};

use zwang_model::planar::{PlanarModel, VelocityRows};
use zwang_model::{Contacts, ModelError};

/// One contact of a step.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepContact {
    /// Persistent id (warm starts).
    pub id: u64,
    /// The pair of colliders (or the `[[contact]]`) it belongs to, its
    /// world point, and how far from it a contact of the last step may be
    /// to count as the same one when the ids differ.
    pub pair: u64,
    pub point: [f64; 2],
    pub reach: f64,
    /// The rows of `u_N` and `u_T` over `v`.
    pub rows: VelocityRows,
    /// Signed distance, m (negative: overlap).
    pub gap: f64,
    /// Coulomb's and Newton's coefficients of the pair.
    pub mu: f64,
    pub restitution: f64,
    /// Whether it is a contact between two shapes (it counts for
    /// `max_penetration`).
    pub shapes: bool,
}

impl StepContact {
    /// What the warm starts know it by.
    pub fn key(&self) -> crate::warm::Key {
        crate::warm::Key {
            id: self.id,
            pair: self.pair,
            point: [self.point[0], self.point[1], 0.0],
            reach: self.reach,
        }
    }
}

/// Ids of `[[contact]]` points: above every id collision detection gives
/// (those mix pair and features over the whole range; the top bit is set
/// here and cleared there).
const POINT_ID: u64 = 1 << 63;

/// The bounding radius of a shape about its body's origin (a half-plane's
/// is infinite).
pub(super) fn bounding_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => *radius,
        Shape::Box {
            half_extents: [a, b],
        } => a.hypot(*b),
        Shape::Polygon { vertices } => vertices
            .iter()
            .map(|p| p[0].hypot(p[1]))
            .fold(0.0, f64::max),
        Shape::Capsule {
            half_length,
            radius,
        } => half_length + radius,
        Shape::HalfPlane { .. } => f64::INFINITY,
    }
}

/// The collision world of a model in the plane.
pub(super) type ContactFinder = crate::world::ContactFinder<Collision, Pose, ContactPoint>;

impl ContactFinder {
    /// The contacts at `q` with a gap of at most `margin`, into `out`.
    pub(super) fn contacts(
        &mut self,
        model: &PlanarModel,
        q: &[f64],
        margin: f64,
        out: &mut Vec<StepContact>,
    ) -> Result<(), ModelError> {
        out.clear();
        if let Some(collision) = self.collision.as_mut() {
            model.poses_into(q, &mut self.poses);
            collision.collide(&self.poses, margin, &mut self.points);
            for p in &self.points {
                let [i, j] = p.colliders;
                let colliders = collision.colliders();
                let (a, b) = (colliders[i].body, colliders[j].body);
                let (pair, reach) = self.surfaces.pair(p.colliders);
                let (mu, restitution) = self.surfaces.coefficients(p.colliders);
                out.push(StepContact {
                    id: p.id & !POINT_ID,
                    pair,
                    point: p.point,
                    reach,
                    rows: model.contact_rows(q, a, b, p.point, p.normal),
                    gap: p.gap,
                    mu,
                    restitution,
                    shapes: true,
                });
            }
        }
        for k in 0..model.contacts() {
            let (gap, rows) = model.point_contact_rows(k, q)?;
            if gap <= margin {
                out.push(StepContact {
                    id: POINT_ID | k as u64,
                    pair: POINT_ID | k as u64,
                    point: [0.0; 2],
                    reach: 0.0,
                    rows,
                    gap,
                    mu: model.friction(k),
                    restitution: model.restitution(k),
                    shapes: false,
                });
            }
        }
        Ok(())
    }
}
