//! Shapes in a body's frame, their checks and their mass properties, in
//! space.

use parry3d_f64::mass_properties::details::{
    tetrahedron_unit_inertia_tensor_wrt_point, trimesh_signed_volume_and_center_of_mass,
};
use parry3d_f64::math::{Matrix, Vector};
use parry3d_f64::shape::{ConvexPolyhedron, Tetrahedron};

use crate::shape::{all_positive, capsule, invalid, nonzero, positive};
use crate::ShapeError;

/// A shape in space, in its body's frame (z the axis of capsules and
/// cylinders).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A ball of `radius > 0` centred at the origin.
    Sphere {
        /// m.
        radius: f64,
    },
    /// A box centred at the origin, edges along the axes.
    Box {
        /// Half the edge lengths, each `> 0`, m.
        half_extents: [f64; 3],
    },
    /// The segment from `(0, 0, -half_length)` to `(0, 0, half_length)`
    /// swept by a ball of `radius`.
    Capsule {
        /// `>= 0`, m.
        half_length: f64,
        /// `> 0`, m.
        radius: f64,
    },
    /// A solid circular cylinder centred at the origin, its axis along z,
    /// its flat faces at `z = ±half_length`.
    Cylinder {
        /// `> 0`, m.
        half_length: f64,
        /// `> 0`, m.
        radius: f64,
    },
    /// The convex hull of these points (at least four not in one plane;
    /// points inside the hull are allowed and ignored).
    Convex {
        /// m, in the body's frame.
        vertices: Vec<[f64; 3]>,
    },
    /// Everything behind the plane through the origin with this outward
    /// `normal` (nonzero, made unit): for fixed bodies only.
    Halfspace {
        /// Body frame.
        normal: [f64; 3],
    },
}

/// A uniform body's mass properties for its shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// The centroid, body frame, m.
    pub centroid: [f64; 3],
    /// The inertia tensor about the centroid, axes of the body frame, for
    /// the given mass (symmetric, row by row), kg m².
    pub inertia: [[f64; 3]; 3],
}

/// Where a body is: the position of its frame's origin and its
/// orientation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// World, m.
    pub position: [f64; 3],
    /// The unit quaternion `[w, x, y, z]` turning the body frame into the
    /// world's (made unit where used, so that an integrator's drift does
    /// no harm).
    pub orientation: [f64; 4],
}

impl Default for Pose {
    /// At the origin, unrotated.
    fn default() -> Pose {
        Pose {
            position: [0.0; 3],
            orientation: [1.0, 0.0, 0.0, 0.0],
        }
    }
}

impl Shape {
    /// Checks the numbers: finite, positive sizes, a hull of nonzero
    /// volume, a nonzero half-space normal. The error names the shape's key.
    pub fn validate(&self) -> Result<(), ShapeError> {
        match self {
            Shape::Sphere { radius } => positive("radius", *radius),
            Shape::Box { half_extents } => all_positive("half_extents", half_extents),
            Shape::Capsule {
                half_length,
                radius,
            } => capsule(*half_length, *radius),
            Shape::Cylinder {
                half_length,
                radius,
            } => positive("half_length", *half_length).and(positive("radius", *radius)),
            Shape::Convex { vertices } => solid_hull(vertices)
                .map(|_| ())
                .map_err(|message| invalid("vertices", message)),
            Shape::Halfspace { normal } => nonzero("normal", normal),
        }
    }

    /// The centroid and inertia tensor of a uniform body of this shape and
    /// `mass`; `None` for a half-space (unbounded). Closed forms but for a
    /// hull (from its tetrahedra, with parry's formulas).
    ///
    /// # Panics
    ///
    /// For a hull that [`Shape::validate`] refuses.
    pub fn mass_properties(&self, mass: f64) -> Option<MassProperties> {
        let at_origin = |[a, b, c]: [f64; 3]| {
            Some(MassProperties {
                centroid: [0.0; 3],
                inertia: [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]],
            })
        };
        let pi = std::f64::consts::PI;
        match self {
            Shape::Sphere { radius } => at_origin([0.4 * mass * radius * radius; 3]),
            Shape::Box {
                half_extents: [a, b, c],
            } => {
                let (a2, b2, c2) = (a * a, b * b, c * c);
                at_origin([b2 + c2, a2 + c2, a2 + b2].map(|s| mass * s / 3.0))
            }
            Shape::Cylinder {
                half_length: h,
                radius: r,
            } => {
                let across = mass * (r * r / 4.0 + h * h / 3.0);
                at_origin([across, across, 0.5 * mass * r * r])
            }
            Shape::Capsule {
                half_length: h,
                radius: r,
            } => {
                // A cylinder and two half balls; masses by volume.
                let (cylinder, ball) = (2.0 * pi * r * r * h, 4.0 / 3.0 * pi * r * r * r);
                let m_cyl = mass * cylinder / (cylinder + ball);
                let m_half = 0.5 * mass * ball / (cylinder + ball);
                // A half ball about a diameter of its flat face: 2/5 m r²;
                // about a parallel axis through its centroid, 3r/8 from the
                // face, less m (3r/8)²; about the body's x axis, h + 3r/8
                // away, plus m (h + 3r/8)².
                let d = 3.0 * r / 8.0;
                let half_across = m_half * (0.4 * r * r - d * d + (h + d) * (h + d));
                let across = m_cyl * (r * r / 4.0 + h * h / 3.0) + 2.0 * half_across;
                let along = 0.5 * m_cyl * r * r + 2.0 * m_half * 0.4 * r * r;
                at_origin([across, across, along])
            }
            Shape::Convex { vertices } => {
                let hull = solid_hull(vertices).expect("a valid hull");
                let (centroid, inertia) = hull_mass_properties(&hull, mass);
                Some(MassProperties { centroid, inertia })
            }
            Shape::Halfspace { .. } => None,
        }
    }
}

/// A surface of triangles: its corners, and each triangle's three corner
/// indices.
pub type Triangles = (Vec<[f64; 3]>, Vec<[usize; 3]>);

impl Shape {
    /// A hull's surface: its corners (body frame) and triangles, each
    /// counter-clockwise seen from outside (its normal outwards); `None`
    /// for other shapes and for a hull [`Shape::validate`] refuses. The
    /// triangles of one flat face share its normal.
    pub fn hull_triangles(&self) -> Option<Triangles> {
        let Shape::Convex { vertices } = self else {
            return None;
        };
        let hull = solid_hull(vertices).ok()?;
        let (points, triangles) = hull.to_trimesh();
        let points: Vec<Vector> = points;
        let n = points.len() as f64;
        let centre = points.iter().fold(Vector::ZERO, |s, p| s + *p) / n;
        let triangles = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| k as usize);
                let normal = (points[b] - points[a]).cross(points[c] - points[a]);
                if normal.dot(points[a] - centre) < 0.0 {
                    [a, c, b]
                } else {
                    [a, b, c]
                }
            })
            .collect();
        Some((points.iter().map(|p| p.to_array()).collect(), triangles))
    }
}

/// The centroid and inertia tensor of a uniform `hull` of `mass`: parry's
/// sum over the tetrahedra from the centroid to the hull's triangles
/// (`MassProperties::from_trimesh`), but the tensor kept as it is. parry's
/// `MassProperties` keeps principal moments and axes instead, and in 0.31
/// its eigenvectors are wrong when two moments are equal (a regular
/// tetrahedron came back with the moment 0.125 where it is 0.15).
fn hull_mass_properties(hull: &ConvexPolyhedron, mass: f64) -> ([f64; 3], [[f64; 3]; 3]) {
    let (points, triangles) = hull.to_trimesh();
    let (volume, com) = trimesh_signed_volume_and_center_of_mass(&points, &triangles);
    let mut tensor = Matrix::ZERO;
    for t in &triangles {
        let [a, b, c] = t.map(|k| points[k as usize]);
        let part = tetrahedron_unit_inertia_tensor_wrt_point(com, com, a, b, c);
        tensor += part * Tetrahedron::new(com, a, b, c).signed_volume();
    }
    // The triangles face outwards or all inwards: the signs cancel.
    let tensor = tensor * (mass / volume);
    let mut inertia = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            // Symmetric up to round-off: the mean of the two entries.
            inertia[i][j] = 0.5 * (tensor.col(j)[i] + tensor.col(i)[j]);
        }
    }
    (com.to_array(), inertia)
}

/// parry's convex hull of `points`, once they are known finite and to
/// span a volume: at least four points, not all in one plane (relative to
/// their extent).
pub(crate) fn solid_hull(points: &[[f64; 3]]) -> Result<ConvexPolyhedron, &'static str> {
    const FLAT: &str = "needs at least 4 points not in one plane";
    if !points.iter().flatten().all(|x| x.is_finite()) {
        return Err("must be finite");
    }
    if points.len() < 4 {
        return Err(FLAT);
    }
    let v: Vec<Vector> = points.iter().map(|&p| Vector::from_array(p)).collect();
    // The farthest point from the first, then from their line, then from
    // their plane: the largest tetrahedron of these steps, against the
    // cube of the extent.
    let farthest = |f: &dyn Fn(Vector) -> f64| {
        v.iter()
            .copied()
            .max_by(|a, b| f(*a).total_cmp(&f(*b)))
            .expect("four points")
    };
    let a = v[0];
    let b = farthest(&|p| (p - a).length());
    let extent = (b - a).length();
    let c = farthest(&|p| (p - a).cross(b - a).length());
    let normal = (b - a).cross(c - a);
    let d = farthest(&|p| (p - a).dot(normal).abs());
    let volume = (d - a).dot(normal).abs();
    if !(extent > 0.0 && volume > 1e-9 * extent * extent * extent) {
        return Err(FLAT);
    }
    ConvexPolyhedron::from_convex_hull(&v).ok_or(FLAT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|got - want| <= tol * max(|want|, scale)` entry by entry (`scale`
    /// for the entries that are zero).
    fn close(got: [[f64; 3]; 3], want: [[f64; 3]; 3], scale: f64, tol: f64) {
        for i in 0..3 {
            for j in 0..3 {
                let err = (got[i][j] - want[i][j]).abs();
                assert!(
                    err <= tol * want[i][j].abs().max(scale),
                    "[{i}][{j}]: {} vs {}",
                    got[i][j],
                    want[i][j]
                );
            }
        }
    }

    fn diag(a: f64, b: f64, c: f64) -> [[f64; 3]; 3] {
        [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]]
    }

    fn inertia(s: Shape, mass: f64) -> [[f64; 3]; 3] {
        let p = s.mass_properties(mass).unwrap();
        assert_eq!(p.centroid, [0.0; 3]);
        p.inertia
    }

    /// Sphere `2/5 m r²`; box `m (b² + c²) / 3` and so on (half extents);
    /// cylinder `m r²/2` about its axis, `m (3 r² + L²) / 12` across.
    #[test]
    fn closed_forms_of_sphere_box_cylinder() {
        close(
            inertia(Shape::Sphere { radius: 2.0 }, 5.0),
            diag(8.0, 8.0, 8.0),
            1.0,
            1e-15,
        );
        let b = Shape::Box {
            half_extents: [1.0, 2.0, 3.0],
        };
        close(
            inertia(b, 12.0),
            diag(
                12.0 * (16.0 + 36.0) / 12.0,
                12.0 * (4.0 + 36.0) / 12.0,
                12.0 * (4.0 + 16.0) / 12.0,
            ),
            1.0,
            1e-15,
        );
        let (m, r, l) = (3.0, 0.5, 4.0);
        let c = Shape::Cylinder {
            half_length: l / 2.0,
            radius: r,
        };
        let across = m * (3.0 * r * r + l * l) / 12.0;
        close(
            inertia(c, m),
            diag(across, across, m * r * r / 2.0),
            1.0,
            1e-15,
        );
    }

    /// A capsule, written independently: the cylinder's share `m_c`, the
    /// two half balls' `m_s` (by volume) make a whole ball split and moved
    /// `±h` along z. About z: `m_c r²/2 + 2/5 m_s r²`. Across, each half
    /// ball about the centre is `m_s/2 (2/5 r² + h² + 2 h (3r/8))` (its
    /// moment about its face's centre, moved by the parallel-axis theorem
    /// twice, the `d²` terms cancel). A zero length is a ball.
    #[test]
    fn capsule_is_a_cylinder_and_two_half_balls() {
        let (m, h, r) = (7.0, 0.8, 0.3);
        let pi = std::f64::consts::PI;
        let vc = pi * r * r * 2.0 * h;
        let vs = 4.0 * pi * r * r * r / 3.0;
        let (mc, ms) = (m * vc / (vc + vs), m * vs / (vc + vs));
        let along = mc * r * r / 2.0 + 2.0 / 5.0 * ms * r * r;
        let across = mc * (3.0 * r * r + 4.0 * h * h) / 12.0
            + ms * (2.0 / 5.0 * r * r + h * h + 0.75 * h * r);
        let got = inertia(
            Shape::Capsule {
                half_length: h,
                radius: r,
            },
            m,
        );
        close(got, diag(across, across, along), 1.0, 1e-12);
        let ball = inertia(
            Shape::Capsule {
                half_length: 0.0,
                radius: r,
            },
            m,
        );
        close(
            ball,
            diag(0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r),
            1.0,
            1e-14,
        );
    }

    /// The hull of a box's corners (plus a point inside), moved off the
    /// origin: its centroid, and the box's tensor about it; a cube's. The corner
    /// tetrahedron, whose tensor has products of inertia: its second
    /// moments are `∫x² dm = m/10`, `∫xy dm = m/20` (a uniform simplex).
    #[test]
    fn hull_mass_properties() {
        let (a, b, c) = (0.5, 1.0, 1.5);
        let shift = [1.0, -2.0, 3.0];
        let mut vertices = vec![shift];
        for k in 0..8 {
            let s = |bit: usize, h: f64| if k & bit == 0 { -h } else { h };
            vertices.push([shift[0] + s(1, a), shift[1] + s(2, b), shift[2] + s(4, c)]);
        }
        let p = Shape::Convex { vertices }.mass_properties(6.0).unwrap();
        for k in 0..3 {
            assert!((p.centroid[k] - shift[k]).abs() < 1e-12, "{:?}", p.centroid);
        }
        let boxed = inertia(
            Shape::Box {
                half_extents: [a, b, c],
            },
            6.0,
        );
        close(p.inertia, boxed, boxed[0][0], 1e-12);
        // A cube: three equal moments (parry's principal axes got those
        // wrong).
        let corners: Vec<[f64; 3]> = (0..8)
            .map(|k| [1, 2, 4].map(|bit| if k & bit == 0 { -0.5 } else { 0.5 }))
            .collect();
        let cube = Shape::Convex { vertices: corners }.mass_properties(6.0);
        close(cube.unwrap().inertia, diag(1.0, 1.0, 1.0), 1.0, 1e-12);

        // The corner tetrahedron (0, e1, e2, e3), mass m: volume 1/6,
        // second moments about the origin ∫x² dm = m/10, ∫xy dm = m/20,
        // centroid (1/4, 1/4, 1/4). About the centroid:
        // Ixx = 2 (m/10 - m/16), Ixy = -(m/20 - m/16).
        let m = 2.0;
        let tet = Shape::Convex {
            vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        };
        let p = tet.mass_properties(m).unwrap();
        for k in 0..3 {
            assert!((p.centroid[k] - 0.25).abs() < 1e-14);
        }
        let (d, o) = (2.0 * (m / 10.0 - m / 16.0), -(m / 20.0 - m / 16.0));
        close(p.inertia, [[d, o, o], [o, d, o], [o, o, d]], d, 1e-12);
        assert!(Shape::Halfspace {
            normal: [0.0, 0.0, 1.0]
        }
        .mass_properties(1.0)
        .is_none());
    }

    /// A cube's hull: 8 corners, 12 triangles, each facing outwards;
    /// other shapes have none.
    #[test]
    fn hull_triangles_face_outwards() {
        let corners: Vec<[f64; 3]> = (0..8)
            .map(|k| [1, 2, 4].map(|bit| if k & bit == 0 { -0.5 } else { 0.5 }))
            .collect();
        let (points, triangles) = Shape::Convex { vertices: corners }
            .hull_triangles()
            .unwrap();
        assert_eq!((points.len(), triangles.len()), (8, 12));
        for [a, b, c] in triangles {
            let (p, q, r) = (points[a], points[b], points[c]);
            let u = [0, 1, 2].map(|k| q[k] - p[k]);
            let v = [0, 1, 2].map(|k| r[k] - p[k]);
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let centre = [0, 1, 2].map(|k| (p[k] + q[k] + r[k]) / 3.0);
            assert!(n.iter().zip(centre).map(|(x, y)| x * y).sum::<f64>() > 0.0);
        }
        assert!(Shape::Sphere { radius: 1.0 }.hull_triangles().is_none());
    }

    /// Each bad number names its key.
    #[test]
    fn bad_shapes_name_their_key() {
        let key = |s: Shape| s.validate().unwrap_err().key;
        assert_eq!(key(Shape::Sphere { radius: 0.0 }), "radius");
        assert_eq!(key(Shape::Sphere { radius: f64::NAN }), "radius");
        assert_eq!(
            key(Shape::Box {
                half_extents: [1.0, f64::INFINITY, 1.0]
            }),
            "half_extents"
        );
        assert_eq!(
            key(Shape::Box {
                half_extents: [1.0, 1.0, -1.0]
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
        assert_eq!(
            key(Shape::Capsule {
                half_length: 1.0,
                radius: 0.0
            }),
            "radius"
        );
        assert_eq!(
            key(Shape::Cylinder {
                half_length: 0.0,
                radius: 1.0
            }),
            "half_length"
        );
        assert_eq!(
            key(Shape::Cylinder {
                half_length: 1.0,
                radius: -2.0
            }),
            "radius"
        );
        assert_eq!(
            key(Shape::Halfspace {
                normal: [0.0, 0.0, 0.0]
            }),
            "normal"
        );
        assert_eq!(
            key(Shape::Halfspace {
                normal: [0.0, f64::NAN, 1.0]
            }),
            "normal"
        );
        let hull = |v: &[[f64; 3]]| Shape::Convex {
            vertices: v.to_vec(),
        };
        // Too few, all in one plane, repeated points, not finite.
        let square = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.5, 0.5, 0.0],
        ];
        for v in [
            &square[..3],
            &square[..],
            &[[1.0, 2.0, 3.0]; 6][..],
            &[
                [0.0; 3],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, f64::NAN],
            ][..],
        ] {
            assert_eq!(key(hull(v)), "vertices", "{v:?}");
        }
        let message = hull(&square).validate().unwrap_err().to_string();
        assert_eq!(
            message,
            "vertices: needs at least 4 points not in one plane"
        );
        assert!(
            hull(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
                .validate()
                .is_ok()
        );
    }
}
