//! Shapes that collide, fixed bodies, and the velocity-level rows of a
//! contact (what a time stepper's contact problem is made of).

use super::{invalid, BodyKind, BodyRef, PlanarModel};
use crate::ModelError;
use zwang_geometry::{Collider, Pose, Shape};

/// A body that never moves: a floor, a wall, an obstacle. It has no
/// coordinates; its shape collides with the moving bodies' shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedBody {
    /// Unique among all bodies, not `ground`.
    pub name: String,
    /// World position of its frame's origin.
    pub position: [f64; 2],
    /// Counter-clockwise.
    pub angle: f64,
    /// The shape, in its frame (a half-plane's boundary through the
    /// origin).
    pub shape: Option<Shape>,
    /// Coulomb's coefficient of its surface (`>= 0`).
    pub friction: f64,
    /// Newton's coefficient of restitution (in `[0, 1]`).
    pub restitution: f64,
}

impl FixedBody {
    /// At the origin, with `shape`, friction 0.5 and no restitution (the
    /// scene file's defaults).
    pub fn new(name: impl Into<String>, shape: Shape) -> FixedBody {
        FixedBody {
            name: name.into(),
            position: [0.0; 2],
            angle: 0.0,
            shape: Some(shape),
            friction: super::DEFAULT_FRICTION,
            restitution: 0.0,
        }
    }
    /// At `position`.
    pub fn at(mut self, position: [f64; 2]) -> FixedBody {
        self.position = position;
        self
    }
    /// Turned by `angle`.
    pub fn turned(mut self, angle: f64) -> FixedBody {
        self.angle = angle;
        self
    }
}

/// A contact's rows at velocity level over the model's `v`: the normal
/// velocity `u_N = J_n v` (positive apart) and the tangential one
/// `u_T = J_t v` (along `t = (n_y, -n_x)`), each over at most two bodies.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VelocityRows {
    /// Columns (entries of `v`), the first `len` used, increasing.
    pub cols: [usize; 6],
    /// `J_n`'s entries on `cols`.
    pub normal: [f64; 6],
    /// `J_t`'s entries on `cols`.
    pub tangent: [f64; 6],
    /// Entries used.
    pub len: usize,
}

impl VelocityRows {
    /// `(J_n v, J_t v)`.
    pub fn velocity(&self, v: &[f64]) -> (f64, f64) {
        (0..self.len).fold((0.0, 0.0), |(n, t), k| {
            let x = v[self.cols[k]];
            (n + self.normal[k] * x, t + self.tangent[k] * x)
        })
    }
}

/// Checks a body's shape and surface (`key(k)` names the key `k`); a
/// half-plane only on a fixed body.
pub(super) fn check_surface(
    key: &dyn Fn(&str) -> String,
    shape: Option<&Shape>,
    friction: f64,
    restitution: f64,
    fixed: bool,
) -> Result<(), ModelError> {
    if let Some(shape) = shape {
        shape
            .validate()
            .map_err(|e| invalid(key(&format!("shape.{}", e.key)), e.message))?;
        if !fixed && matches!(shape, Shape::HalfPlane { .. }) {
            return Err(invalid(
                key("shape"),
                "a half-plane is for fixed bodies only",
            ));
        }
    }
    if !(friction.is_finite() && friction >= 0.0) {
        return Err(invalid(key("friction"), "must be >= 0"));
    }
    if !(restitution.is_finite() && (0.0..=1.0).contains(&restitution)) {
        return Err(invalid(key("restitution"), "must be in [0, 1]"));
    }
    Ok(())
}

impl PlanarModel {
    /// The same model with fixed bodies (names unique among all bodies;
    /// shapes and surfaces checked).
    pub fn with_fixed(mut self, fixed: Vec<FixedBody>) -> Result<PlanarModel, ModelError> {
        let mut names: std::collections::HashSet<&str> =
            self.bodies.iter().map(|b| b.name.as_str()).collect();
        for (i, f) in fixed.iter().enumerate() {
            let key = |k: &str| format!("body[{}].{k}", self.bodies.len() + i);
            if f.name.is_empty() || f.name == "ground" || !names.insert(f.name.as_str()) {
                return Err(invalid(
                    key("name"),
                    format!("must be unique, not empty or \"ground\": \"{}\"", f.name),
                ));
            }
            if !(f.position.iter().all(|x| x.is_finite()) && f.angle.is_finite()) {
                return Err(invalid(key("position"), "must be finite"));
            }
            check_surface(&key, f.shape.as_ref(), f.friction, f.restitution, true)?;
        }
        self.fixed = fixed;
        Ok(self)
    }

    /// The fixed bodies.
    pub fn fixed_list(&self) -> &[FixedBody] {
        &self.fixed
    }

    /// Whether any body carries a shape.
    pub fn has_shapes(&self) -> bool {
        self.bodies.iter().any(|b| b.shape.is_some())
            || self.fixed.iter().any(|f| f.shape.is_some())
    }

    /// The colliders, each moving body's shape then each fixed body's,
    /// with each one's `[friction, restitution]`.
    pub fn colliders(&self) -> (Vec<Collider>, Vec<[f64; 2]>) {
        let moving = self.bodies.iter().enumerate().filter_map(|(i, b)| {
            let c = Collider {
                shape: b.shape.clone()?,
                body: Some(i),
                pose: Pose::default(),
            };
            Some((c, [b.friction, b.restitution]))
        });
        let fixed = self.fixed.iter().filter_map(|f| {
            let c = Collider {
                shape: f.shape.clone()?,
                body: None,
                pose: Pose {
                    position: f.position,
                    angle: f.angle,
                },
            };
            Some((c, [f.friction, f.restitution]))
        });
        moving.chain(fixed).unzip()
    }

    /// The pairs of bodies a joint joins (they do not collide).
    pub fn joined_pairs(&self) -> Vec<[usize; 2]> {
        self.joints
            .iter()
            .filter_map(|j| match j.bodies {
                [BodyRef::Body(a), BodyRef::Body(b)] => Some([a, b]),
                _ => None,
            })
            .collect()
    }

    /// Each moving body's pose at `q` (a particle's angle is 0).
    pub fn poses_into(&self, q: &[f64], poses: &mut Vec<Pose>) {
        poses.clear();
        poses.extend(self.bodies.iter().zip(&self.offsets).map(|(b, &o)| Pose {
            position: [q[o], q[o + 1]],
            angle: if b.kind == BodyKind::Rigid {
                q[o + 2]
            } else {
                0.0
            },
        }));
    }

    /// The rows of a contact at world point `p` with unit normal `n`
    /// pointing from body `a` to body `b` (`None`: fixed), at `q`: the
    /// normal velocity is `b`'s point velocity less `a`'s, along `n`.
    pub fn contact_rows(
        &self,
        q: &[f64],
        a: Option<usize>,
        b: Option<usize>,
        p: [f64; 2],
        n: [f64; 2],
    ) -> VelocityRows {
        let t = [n[1], -n[0]];
        let mut rows = VelocityRows::default();
        let mut bodies = [(a, -1.0), (b, 1.0)];
        bodies.sort_by_key(|(body, _)| body.map_or(usize::MAX, |i| self.offsets[i]));
        for (body, sign) in bodies {
            let Some(i) = body else { continue };
            let o = self.offsets[i];
            let r = [p[0] - q[o], p[1] - q[o + 1]];
            let dofs = if self.bodies[i].kind == BodyKind::Rigid {
                3
            } else {
                2
            };
            let coef = |d: [f64; 2]| [d[0], d[1], r[0] * d[1] - r[1] * d[0]];
            let (cn, ct) = (coef(n), coef(t));
            for k in 0..dofs {
                rows.cols[rows.len] = o + k;
                rows.normal[rows.len] = sign * cn[k];
                rows.tangent[rows.len] = sign * ct[k];
                rows.len += 1;
            }
        }
        rows
    }

    /// The rows and gap of `[[contact]]` `k` (a body point against a
    /// fixed line or circle) at `q`.
    pub fn point_contact_rows(
        &self,
        k: usize,
        q: &[f64],
    ) -> Result<(f64, VelocityRows), ModelError> {
        let g = self.geometry(q, q);
        let c = &self.contacts[k];
        let frame = g.contact_frame(k, c)?;
        let mut rows = VelocityRows::default();
        let terms = frame.normal_row.terms().zip(frame.tangent_row.terms());
        for (tn, tt) in terms {
            let o = self.offsets[tn.body];
            let dofs = if self.bodies[tn.body].kind == BodyKind::Rigid {
                3
            } else {
                2
            };
            for d in 0..dofs {
                rows.cols[rows.len] = o + d;
                rows.normal[rows.len] = tn.coef[d];
                rows.tangent[rows.len] = tt.coef[d];
                rows.len += 1;
            }
        }
        Ok((g.gap(c), rows))
    }
}
