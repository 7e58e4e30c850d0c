//! The collide stage's collision world, in the plane and in space: the
//! bookkeeping around a dimension's collision detection (which collider
//! is which surface, how big, which contacts of two steps are the same)
//! is the same in both, and written once here.

use zwang_geometry::ShapeError;
use zwang_model::ModelError;

/// A contact of the last step within this fraction of the smaller
/// shape's size from a new one of the same pair is the same contact.
const MATCH_FRACTION: f64 = 0.05;

/// The collision world of a model and the stage's working memory: a
/// dimension's collision detection `C`, its poses `P` and points `T`.
pub(crate) struct ContactFinder<C, P, T> {
    /// `None` when the model has no shape.
    pub(crate) collision: Option<C>,
    pub(crate) surfaces: Surfaces,
    pub(crate) poses: Vec<P>,
    pub(crate) points: Vec<T>,
}

/// `[friction, restitution]` and bounding radius per collider.
pub(crate) struct Surfaces {
    coefficients: Vec<[f64; 2]>,
    sizes: Vec<f64>,
}

impl<C, P, T> ContactFinder<C, P, T> {
    /// The world of a model's colliders and their `[friction,
    /// restitution]` (as the model gives them), each collider's bounding
    /// radius by `size`, detected by `detect` (`None` without colliders).
    pub(crate) fn new<K>(
        (colliders, coefficients): (Vec<K>, Vec<[f64; 2]>),
        size: impl Fn(&K) -> f64,
        detect: impl FnOnce(Vec<K>) -> Result<C, ShapeError>,
    ) -> Result<Self, ModelError> {
        let sizes = colliders.iter().map(size).collect();
        let collision = if colliders.is_empty() {
            None
        } else {
            Some(detect(colliders).map_err(|e| ModelError::Invalid {
                key: format!("shape.{}", e.key),
                message: e.message,
            })?)
        };
        Ok(ContactFinder {
            collision,
            surfaces: Surfaces {
                coefficients,
                sizes,
            },
            poses: Vec::new(),
            points: Vec::new(),
        })
    }
}

impl Surfaces {
    /// Coulomb's and Newton's coefficients of the colliders `[i, j]`
    /// touching: the geometric mean of their frictions, the larger
    /// restitution.
    pub(crate) fn coefficients(&self, [i, j]: [usize; 2]) -> (f64, f64) {
        let (si, sj) = (self.coefficients[i], self.coefficients[j]);
        ((si[0] * sj[0]).sqrt(), si[1].max(sj[1]))
    }

    /// The pair `[i, j]` as one key, and how far from a contact of the
    /// last step of the same pair a new one may be to count as the same
    /// one when the ids differ.
    pub(crate) fn pair(&self, [i, j]: [usize; 2]) -> (u64, f64) {
        let reach = MATCH_FRACTION * self.sizes[i].min(self.sizes[j]);
        (((i as u64) << 32) | j as u64, reach)
    }
}
