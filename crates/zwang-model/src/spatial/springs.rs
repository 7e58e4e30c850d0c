//! Springs and dampers between two bodies in space, as in the plane: a
//! force along the line of the anchors that pulls them together when
//! positive (`k (d - L0)` for a spring, `c d'` for a damper), none while
//! the anchors coincide (the line has no direction there).

use super::joints::{End, Placed};
use super::rotation::{apply, apply_transpose, cross, dot};
use super::SpatialModel;
use crate::ModelError;

/// What a spring or a damper does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpatialSpringKind {
    /// A linear spring.
    Spring {
        /// N/m, >= 0.
        stiffness: f64,
        /// m, >= 0 (`None`: the anchors' initial distance).
        rest_length: Option<f64>,
    },
    /// A linear damper along the line of the anchors.
    Damper {
        /// N s/m, >= 0.
        damping: f64,
    },
}

/// A spring or a damper between two bodies (`None`: ground, the world
/// frame), each anchor in its body's frame (ground: world; a fixed body's
/// frame is taken to the world by its pose).
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialSpring {
    /// What it does.
    pub kind: SpatialSpringKind,
    /// Body indices (into the model's bodies), `None` for ground.
    pub bodies: [Option<usize>; 2],
    /// One point per body, in its frame.
    pub anchors: [[f64; 3]; 2],
}

/// A spring's law as the model keeps it (the rest length filled in).
#[derive(Debug, Clone, Copy)]
enum Law {
    Spring { stiffness: f64, rest_length: f64 },
    Damper { damping: f64 },
}

/// A spring or a damper as the model keeps it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Linked {
    law: Law,
    ends: [End; 2],
}

fn at_least_zero(key: String, x: f64) -> Result<f64, ModelError> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(ModelError::Invalid {
            key,
            message: "must be >= 0".into(),
        })
    }
}

impl SpatialModel {
    /// The model with `springs` (checked: bodies that exist and are not the
    /// same or both fixed, finite anchors, coefficients and rest lengths
    /// `>= 0`); a rest length left out is the anchors' initial distance.
    /// Errors name `spring[i].KEY`.
    pub fn with_springs(mut self, springs: Vec<SpatialSpring>) -> Result<SpatialModel, ModelError> {
        let (mut q, mut v) = (vec![0.0; self.nq()], vec![0.0; self.nv()]);
        self.initial_state(&mut q, &mut v);
        let mut linked = Vec::with_capacity(springs.len());
        for (i, s) in springs.iter().enumerate() {
            let key = |k: &str| format!("spring[{i}].{k}");
            let ends = self.ends(s.bodies, s.anchors, &format!("spring[{i}]"))?;
            let law = match s.kind {
                SpatialSpringKind::Spring {
                    stiffness,
                    rest_length,
                } => Law::Spring {
                    stiffness: at_least_zero(key("stiffness"), stiffness)?,
                    rest_length: match rest_length {
                        Some(l) => at_least_zero(key("rest_length"), l)?,
                        None => self.span(&q, ends).0,
                    },
                },
                SpatialSpringKind::Damper { damping } => Law::Damper {
                    damping: at_least_zero(key("damping"), damping)?,
                },
            };
            linked.push(Linked { law, ends });
        }
        self.springs = linked;
        self.spring_list = springs;
        Ok(self)
    }

    /// The springs and dampers as given to [`SpatialModel::with_springs`]
    /// (anchors in their bodies' frames).
    pub fn spring_list(&self) -> &[SpatialSpring] {
        &self.spring_list
    }

    /// The number of springs and dampers.
    pub fn springs(&self) -> usize {
        self.springs.len()
    }

    /// The anchors' distance at `q`, and the two ends placed.
    fn span(&self, q: &[f64], ends: [End; 2]) -> (f64, [Placed; 2]) {
        let placed = ends.map(|e| self.place(q, e));
        let d = [0, 1, 2].map(|c| placed[1].anchor[c] - placed[0].anchor[c]);
        (dot(d, d).sqrt(), placed)
    }

    /// Adds the springs' and dampers' forces to `out` (torques in the
    /// principal frames, as `Q`).
    pub(super) fn add_spring_forces(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        for s in &self.springs {
            let (length, [a, b]) = self.span(q, s.ends);
            if length == 0.0 {
                continue;
            }
            let n = [0, 1, 2].map(|c| (b.anchor[c] - a.anchor[c]) / length);
            let pull = match s.law {
                Law::Spring {
                    stiffness,
                    rest_length,
                } => stiffness * (length - rest_length),
                Law::Damper { damping } => {
                    let (va, vb) = (anchor_velocity(&a, v), anchor_velocity(&b, v));
                    damping * dot(n, [0, 1, 2].map(|c| vb[c] - va[c]))
                }
            };
            push(&a, n.map(|x| pull * x), out);
            push(&b, n.map(|x| -pull * x), out);
        }
    }

    /// The springs' energy at `q`, `k (d - L0)^2 / 2` each.
    pub(super) fn spring_energy(&self, q: &[f64]) -> f64 {
        self.springs
            .iter()
            .map(|s| match s.law {
                Law::Spring {
                    stiffness,
                    rest_length,
                } => 0.5 * stiffness * (self.span(q, s.ends).0 - rest_length).powi(2),
                Law::Damper { .. } => 0.0,
            })
            .sum()
    }
}

/// The world velocity of a placed anchor (zero on the ground).
fn anchor_velocity(p: &Placed, v: &[f64]) -> [f64; 3] {
    let Some(m) = p.mover else {
        return [0.0; 3];
    };
    let omega = apply(&p.rotation, [v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]]);
    let arm = [0, 1, 2].map(|c| p.anchor[c] - p.centre[c]);
    let turn = cross(omega, arm);
    [0, 1, 2].map(|c| v[6 * m + c] + turn[c])
}

/// Adds the world force `f` at a placed anchor to `out`: the force at the
/// centre, its moment in the principal frame.
fn push(p: &Placed, f: [f64; 3], out: &mut [f64]) {
    let Some(m) = p.mover else {
        return;
    };
    let arm = [0, 1, 2].map(|c| p.anchor[c] - p.centre[c]);
    let torque = apply_transpose(&p.rotation, cross(arm, f));
    for c in 0..3 {
        out[6 * m + c] += f[c];
        out[6 * m + 3 + c] += torque[c];
    }
}
