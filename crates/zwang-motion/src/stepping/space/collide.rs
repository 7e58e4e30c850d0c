//! Stage 1 in space, collide: the contacts of the step from the shapes
//! that touch (or come within the margin), each with its three rows over
//! `v` (normal, two tangents), its gap and an id that persists.

use zwang_geometry::spatial::{Collision, ContactPoint, Pose, Shape};
use zwang_model::spatial::rotation::tangents;
use zwang_model::spatial::SpatialModel;

use crate::warm::Key;

/// One contact of a step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpaceContact {
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

/// Writes the overlap correction's problem over `contacts` (their rows in
/// `entries`): no force, each gap as its normal free term, frictionless,
/// so that its answer is the displacement `min 1/2 dq^T M dq` with
/// `g + J_n dq >= 0`; sizes `r` and `u` for it and returns the settings
/// it is solved with (the convex form, in series).
pub(crate) fn overlap_problem<'c>(
    p: &mut zwang_contact::VelocityProblem,
    contacts: impl IntoIterator<Item = &'c SpaceContact>,
    entries: &[(usize, [f64; 3])],
    r: &mut Vec<f64>,
    u: &mut Vec<f64>,
) -> zwang_contact::SolverSettings {
    p.force.fill(0.0);
    p.rows.clear();
    p.b.clear();
    p.mu.clear();
    for c in contacts {
        p.rows
            .push(entries[c.entries.0..c.entries.1].iter().copied());
        p.b.extend([c.gap, 0.0, 0.0]);
        p.mu.push(0.0);
    }
    let k = 3 * p.mu.len();
    r.clear();
    r.resize(k, 0.0);
    u.resize(k, 0.0);
    zwang_contact::SolverSettings {
        friction: zwang_contact::Friction::Convex,
        parallel: false,
        ..zwang_contact::SolverSettings::default()
    }
}

/// The bounding radius of a shape about its body's origin (a
/// half-space's is infinite).
pub(crate) fn bounding_radius(shape: &Shape) -> f64 {
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

/// The collision world of a model in space.
pub(super) type ContactFinder = crate::world::ContactFinder<Collision, Pose, ContactPoint>;

impl ContactFinder {
    /// The contacts at `q` with a gap of at most `margin` into `out`, their
    /// rows into `rows` (`(column, [n, t1, t2])`, by contact).
    pub(super) fn contacts(
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
            let (pair, reach) = self.surfaces.pair(p.colliders);
            let (mu, restitution) = self.surfaces.coefficients(p.colliders);
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
                    pair,
                    point: p.point,
                    reach,
                },
                entries: (start, rows.len()),
                gap: p.gap,
                mu,
                restitution,
            });
        }
    }
}
