//! Stage 1, collide: the contacts of the step, from the shapes that touch
//! (or come within the margin) and from the `[[contact]]` points near
//! their surfaces, each with its rows over `v`, its gap, its surface and
//! an id that persists while the same features touch.

use zwang_geometry::{Collision, ContactPoint, Pose};
use zwang_model::planar::{PlanarModel, VelocityRows};
use zwang_model::{Mechanism, ModelError};

/// One contact of a step.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepContact {
    /// Persistent id (warm starts).
    pub id: u64,
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

/// Ids of `[[contact]]` points: above every id collision detection gives
/// (those mix pair and features over the whole range; the top bit is set
/// here and cleared there).
const POINT_ID: u64 = 1 << 63;

/// The collision world of a model and the working memory of the stage.
pub(super) struct Collide {
    collision: Option<Collision>,
    /// `[friction, restitution]` per collider.
    surfaces: Vec<[f64; 2]>,
    poses: Vec<Pose>,
    points: Vec<ContactPoint>,
}

impl Collide {
    /// The model's colliders (`None` when it has no shape).
    pub fn new(model: &PlanarModel) -> Result<Collide, ModelError> {
        let (colliders, surfaces) = model.colliders();
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
            poses: Vec::new(),
            points: Vec::new(),
        })
    }

    /// The contacts at `q` with a gap of at most `margin`, into `out`.
    pub fn contacts(
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
                let (si, sj) = (self.surfaces[i], self.surfaces[j]);
                out.push(StepContact {
                    id: p.id & !POINT_ID,
                    rows: model.contact_rows(q, a, b, p.point, p.normal),
                    gap: p.gap,
                    mu: (si[0] * sj[0]).sqrt(),
                    restitution: si[1].max(sj[1]),
                    shapes: true,
                });
            }
        }
        for k in 0..model.contacts() {
            let (gap, rows) = model.point_contact_rows(k, q)?;
            if gap <= margin {
                out.push(StepContact {
                    id: POINT_ID | k as u64,
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
