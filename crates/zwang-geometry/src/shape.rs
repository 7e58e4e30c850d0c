//! Shapes in a body's frame, their checks and their mass properties.

/// A planar shape, in its body's frame (origin at the body's centre of
/// mass, x along the body's axis).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A disk of `radius > 0` centred at the origin.
    Circle {
        /// m.
        radius: f64,
    },
    /// A rectangle centred at the origin, sides along the axes.
    Box {
        /// Half the side lengths, each `> 0`, m.
        half_extents: [f64; 2],
    },
    /// A convex polygon: at least three vertices, counter-clockwise, no
    /// three in a row, nonzero area.
    Polygon {
        /// m, in the body's frame.
        vertices: Vec<[f64; 2]>,
    },
    /// A segment from `(-half_length, 0)` to `(half_length, 0)` swept by a
    /// disk of `radius`.
    Capsule {
        /// `>= 0`, m.
        half_length: f64,
        /// `> 0`, m.
        radius: f64,
    },
    /// Everything behind the line through the origin with this outward
    /// `normal` (a unit vector): for fixed bodies only.
    HalfPlane {
        /// Unit vector, body frame.
        normal: [f64; 2],
    },
}

/// A shape that cannot be used, with the key at fault (relative to the
/// shape's table: `radius`, `half_extents`, `vertices`, ...).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ShapeError {
    /// The key, as the scene file spells it.
    pub key: &'static str,
    /// What is wrong, in a few words.
    pub message: String,
}

// The checks of a shape's numbers, in the plane and in space, each an
// error at the shape's key.

pub(crate) fn invalid(key: &'static str, message: &str) -> ShapeError {
    ShapeError {
        key,
        message: message.to_string(),
    }
}

/// `x` finite and `> 0`.
pub(crate) fn positive(key: &'static str, x: f64) -> Result<(), ShapeError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(invalid(key, "must be > 0"))
    }
}

/// Every `x` finite and `> 0`.
pub(crate) fn all_positive(key: &'static str, xs: &[f64]) -> Result<(), ShapeError> {
    xs.iter().try_for_each(|&x| positive(key, x))
}

/// `x` finite and `>= 0`.
pub(crate) fn non_negative(key: &'static str, x: f64) -> Result<(), ShapeError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(invalid(key, "must be >= 0"))
    }
}

/// A capsule's half-length (`>= 0`) and radius (`> 0`), in the plane and
/// in space.
pub(crate) fn capsule(half_length: f64, radius: f64) -> Result<(), ShapeError> {
    non_negative("half_length", half_length)?;
    positive("radius", radius)
}

/// A finite vector other than zero.
pub(crate) fn nonzero(key: &'static str, v: &[f64]) -> Result<(), ShapeError> {
    if v.iter().all(|x| x.is_finite()) && v.iter().any(|&x| x != 0.0) {
        Ok(())
    } else {
        Err(invalid(key, "must be a nonzero vector"))
    }
}

/// A uniform body's mass properties for its shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// The centroid, body frame.
    pub centroid: [f64; 2],
    /// The moment of inertia about the centroid, for the given mass.
    pub inertia: f64,
}

/// Where a body is: the position of its frame's origin and its angle.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose {
    /// World, m.
    pub position: [f64; 2],
    /// Counter-clockwise, rad.
    pub angle: f64,
}

impl Shape {
    /// Checks the numbers: finite, positive sizes, a convex
    /// counter-clockwise polygon, a nonzero half-plane normal. The error
    /// names the shape's key.
    pub fn validate(&self) -> Result<(), ShapeError> {
        match self {
            Shape::Circle { radius } => positive("radius", *radius),
            Shape::Box { half_extents } => all_positive("half_extents", half_extents),
            Shape::Polygon { vertices } => {
                convex_ccw(vertices).map_err(|message| invalid("vertices", message))
            }
            Shape::Capsule {
                half_length,
                radius,
            } => capsule(*half_length, *radius),
            Shape::HalfPlane { normal } => nonzero("normal", normal),
        }
    }

    /// The centroid and moment of inertia of a uniform body of this shape
    /// and `mass`; `None` for a half-plane (unbounded).
    pub fn mass_properties(&self, mass: f64) -> Option<MassProperties> {
        let at_origin = |inertia| {
            Some(MassProperties {
                centroid: [0.0, 0.0],
                inertia,
            })
        };
        match self {
            Shape::Circle { radius } => at_origin(0.5 * mass * radius * radius),
            Shape::Box {
                half_extents: [a, b],
            } => at_origin(mass * (a * a + b * b) / 3.0),
            Shape::Capsule {
                half_length: l,
                radius: r,
            } => {
                // A rectangle 2l x 2r and two half disks; masses by area.
                let (rect, disk) = (4.0 * l * r, std::f64::consts::PI * r * r);
                let (m_rect, m_half) = (
                    mass * rect / (rect + disk),
                    0.5 * mass * disk / (rect + disk),
                );
                let d = 4.0 * r / (3.0 * std::f64::consts::PI);
                let half = m_half * (0.5 * r * r - d * d + (l + d) * (l + d));
                at_origin(m_rect * (4.0 * l * l + 4.0 * r * r) / 12.0 + 2.0 * half)
            }
            Shape::Polygon { vertices } => {
                // Triangles (origin, p_i, p_i+1): area, first and second
                // moments about the origin.
                let (mut area, mut cx, mut cy, mut second) = (0.0, 0.0, 0.0, 0.0);
                for (i, p) in vertices.iter().enumerate() {
                    let q = vertices[(i + 1) % vertices.len()];
                    let cross = p[0] * q[1] - p[1] * q[0];
                    area += 0.5 * cross;
                    cx += cross * (p[0] + q[0]) / 6.0;
                    cy += cross * (p[1] + q[1]) / 6.0;
                    second += cross
                        * (p[0] * p[0]
                            + p[1] * p[1]
                            + p[0] * q[0]
                            + p[1] * q[1]
                            + q[0] * q[0]
                            + q[1] * q[1])
                        / 12.0;
                }
                let c = [cx / area, cy / area];
                let density = mass / area;
                Some(MassProperties {
                    centroid: c,
                    inertia: density * second - mass * (c[0] * c[0] + c[1] * c[1]),
                })
            }
            Shape::HalfPlane { .. } => None,
        }
    }
}

/// `Ok` for a convex polygon given counter-clockwise: finite vertices, at
/// least three, every turn to the left (no three in a row), going round
/// once.
fn convex_ccw(v: &[[f64; 2]]) -> Result<(), &'static str> {
    if v.len() < 3 {
        return Err("needs at least 3 vertices");
    }
    if !v.iter().flatten().all(|x| x.is_finite()) {
        return Err("must be finite");
    }
    let scale = v.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let (mut turning, n) = (0.0, v.len());
    for i in 0..n {
        let (a, b, c) = (v[i], v[(i + 1) % n], v[(i + 2) % n]);
        let (e1, e2) = ([b[0] - a[0], b[1] - a[1]], [c[0] - b[0], c[1] - b[1]]);
        let cross = e1[0] * e2[1] - e1[1] * e2[0];
        if cross <= 1e-12 * scale * scale {
            return Err("must be a convex polygon, counter-clockwise, no three vertices in a row");
        }
        turning += cross.atan2(e1[0] * e2[0] + e1[1] * e2[1]);
    }
    // Left turns that go round more than once make a star, not a polygon.
    if (turning - 2.0 * std::f64::consts::PI).abs() > 1e-6 {
        return Err("must be a convex polygon, counter-clockwise, no three vertices in a row");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Closed forms: a disk `m r^2 / 2`, a rectangle `m (w^2 + h^2) / 12`,
    /// the same rectangle as a polygon off the origin (its centroid, and
    /// the inertia about it), a capsule of length zero is a disk.
    #[test]
    fn mass_properties_of_uniform_shapes() {
        let disk = Shape::Circle { radius: 2.0 }.mass_properties(3.0).unwrap();
        assert_relative_eq!(disk.inertia, 6.0);
        let rect = Shape::Box {
            half_extents: [1.0, 0.5],
        };
        assert_relative_eq!(rect.mass_properties(12.0).unwrap().inertia, 5.0);
        let poly = Shape::Polygon {
            vertices: vec![[1.0, 1.0], [3.0, 1.0], [3.0, 2.0], [1.0, 2.0]],
        };
        let p = poly.mass_properties(12.0).unwrap();
        assert_relative_eq!(p.centroid[0], 2.0, epsilon = 1e-14);
        assert_relative_eq!(p.centroid[1], 1.5, epsilon = 1e-14);
        assert_relative_eq!(p.inertia, 5.0, epsilon = 1e-13);
        let round = Shape::Capsule {
            half_length: 0.0,
            radius: 2.0,
        };
        assert_relative_eq!(
            round.mass_properties(3.0).unwrap().inertia,
            6.0,
            epsilon = 1e-14
        );
        // A long capsule tends to a rod: m (2 l)^2 / 12.
        let rod = Shape::Capsule {
            half_length: 1e3,
            radius: 1e-3,
        };
        assert_relative_eq!(
            rod.mass_properties(1.0).unwrap().inertia,
            4e6 / 12.0,
            max_relative = 1e-5
        );
        assert!(Shape::HalfPlane { normal: [0.0, 1.0] }
            .mass_properties(1.0)
            .is_none());
    }

    /// Each bad number names its key.
    #[test]
    fn bad_shapes_name_their_key() {
        let key = |s: Shape| s.validate().unwrap_err().key;
        assert_eq!(key(Shape::Circle { radius: 0.0 }), "radius");
        assert_eq!(key(Shape::Circle { radius: f64::NAN }), "radius");
        assert_eq!(
            key(Shape::Box {
                half_extents: [1.0, -1.0]
            }),
            "half_extents"
        );
        assert_eq!(
            key(Shape::Capsule {
                half_length: -1.0,
                radius: 1.0
            }),
            "half_length"
        );
        assert_eq!(key(Shape::HalfPlane { normal: [0.0, 0.0] }), "normal");
        let poly = |v: &[[f64; 2]]| Shape::Polygon {
            vertices: v.to_vec(),
        };
        // Clockwise, three in a row, too few, a star.
        for v in [
            &[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]][..],
            &[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0]][..],
            &[[0.0, 0.0], [1.0, 0.0]][..],
        ] {
            assert_eq!(key(poly(v)), "vertices");
        }
        let star: Vec<[f64; 2]> = (0..5)
            .map(|i| {
                let a = 4.0 * std::f64::consts::PI * i as f64 / 5.0;
                [a.cos(), a.sin()]
            })
            .collect();
        assert_eq!(key(poly(&star)), "vertices");
        assert!(poly(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
            .validate()
            .is_ok());
    }
}
