//! The surfaces of the bounded shapes in space as closed polygon meshes
//! (body frame, each face counter-clockwise seen from outside), and which
//! of their edges a drawing inks: the sharp ones (faces meeting at more
//! than [`SHARP`]) and the silhouette (a face towards the viewer beside
//! one away from it).

use std::collections::HashMap;
use zwang_geometry::spatial::Shape;
use zwang_model::spatial::rotation::dot;

/// Sides of the polygon standing for a circle (cylinders, capsules).
const SEGMENTS: usize = 24;
/// Rings of latitude from a capsule's equator to its pole.
const LATITUDES: usize = 6;
/// Faces meeting at more than this angle (rad) show their edge.
const SHARP: f64 = 0.35;

/// A closed mesh: corners and faces (indices, counter-clockwise seen from
/// outside), each face's neighbour across each of its edges, and whether
/// that edge is sharp.
#[derive(Debug, Clone)]
pub struct Mesh {
    /// Body frame, m.
    pub vertices: Vec<[f64; 3]>,
    /// Corner indices of each face.
    pub faces: Vec<Vec<usize>>,
    /// Per face, per edge (from corner `k` to `k + 1`): the face across
    /// it, and whether the two meet at a sharp angle.
    pub across: Vec<Vec<Option<(usize, bool)>>>,
    /// Per face, its outward unit normal (body frame).
    pub normals: Vec<[f64; 3]>,
}

/// The outward unit normal of a planar polygon (Newell's method).
fn normal_of(points: &[[f64; 3]]) -> [f64; 3] {
    let mut n = [0.0; 3];
    for (i, p) in points.iter().enumerate() {
        let q = points[(i + 1) % points.len()];
        n[0] += (p[1] - q[1]) * (p[2] + q[2]);
        n[1] += (p[2] - q[2]) * (p[0] + q[0]);
        n[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    let len = dot(n, n).sqrt();
    if len > 0.0 {
        n.map(|x| x / len)
    } else {
        n
    }
}

impl Mesh {
    /// The mesh of `faces` over `vertices`, its neighbours found by the
    /// edges two faces share.
    fn new(vertices: Vec<[f64; 3]>, faces: Vec<Vec<usize>>) -> Mesh {
        let normals: Vec<[f64; 3]> = faces
            .iter()
            .map(|f| normal_of(&f.iter().map(|&i| vertices[i]).collect::<Vec<_>>()))
            .collect();
        let mut owner = HashMap::new();
        for (fi, f) in faces.iter().enumerate() {
            for k in 0..f.len() {
                owner.insert((f[k], f[(k + 1) % f.len()]), fi);
            }
        }
        let sharp_cos = SHARP.cos();
        let across = faces
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                (0..f.len())
                    .map(|k| {
                        let g = *owner.get(&(f[(k + 1) % f.len()], f[k]))?;
                        Some((g, dot(normals[fi], normals[g]) < sharp_cos))
                    })
                    .collect()
            })
            .collect();
        Mesh {
            vertices,
            faces,
            across,
            normals,
        }
    }

    /// The mesh of a bounded shape; `None` for a sphere (drawn as a disc)
    /// and a half-space.
    pub fn of(shape: &Shape) -> Option<Mesh> {
        match shape {
            Shape::Box { half_extents: h } => Some(cuboid(*h)),
            Shape::Cylinder {
                half_length,
                radius,
            } => Some(lathe(&[(*radius, -half_length), (*radius, *half_length)])),
            Shape::Capsule {
                half_length,
                radius,
            } => {
                // From the bottom ring up, a pole at each end.
                let mut profile = Vec::new();
                let ring = |k: usize| {
                    let a = std::f64::consts::FRAC_PI_2 * k as f64 / LATITUDES as f64;
                    (radius * a.cos(), radius * a.sin())
                };
                for k in (1..LATITUDES).rev() {
                    let (r, z) = ring(k);
                    profile.push((r, -half_length - z));
                }
                profile.push((*radius, -half_length));
                if *half_length > 0.0 {
                    profile.push((*radius, *half_length));
                }
                for k in 1..LATITUDES {
                    let (r, z) = ring(k);
                    profile.push((r, half_length + z));
                }
                Some(capped(&profile, half_length + radius))
            }
            Shape::Convex { .. } => {
                let (vertices, triangles) = shape.hull_triangles()?;
                Some(Mesh::new(
                    vertices,
                    triangles.iter().map(|t| t.to_vec()).collect(),
                ))
            }
            Shape::Sphere { .. } | Shape::Halfspace { .. } => None,
        }
    }
}

/// A box of half extents `h`: eight corners, six faces.
fn cuboid(h: [f64; 3]) -> Mesh {
    let corner = |i: usize| [0, 1, 2].map(|k| if i & (1 << k) == 0 { -h[k] } else { h[k] });
    let vertices = (0..8).map(corner).collect();
    // Corner i has x from bit 0, y from bit 1, z from bit 2.
    let faces = vec![
        vec![0, 2, 3, 1], // z-
        vec![4, 5, 7, 6], // z+
        vec![0, 1, 5, 4], // y-
        vec![2, 6, 7, 3], // y+
        vec![0, 4, 6, 2], // x-
        vec![1, 3, 7, 5], // x+
    ];
    Mesh::new(vertices, faces)
}

/// The rings of `profile` (radius, height), from the bottom up, each a
/// polygon of [`SEGMENTS`] corners about the z axis.
fn rings(profile: &[(f64, f64)]) -> (Vec<[f64; 3]>, Vec<Vec<usize>>) {
    let mut vertices = Vec::with_capacity(profile.len() * SEGMENTS + 2);
    for &(r, z) in profile {
        for s in 0..SEGMENTS {
            let a = std::f64::consts::TAU * s as f64 / SEGMENTS as f64;
            vertices.push([r * a.cos(), r * a.sin(), z]);
        }
    }
    let at = |ring: usize, s: usize| ring * SEGMENTS + s % SEGMENTS;
    let mut faces = Vec::new();
    for ring in 0..profile.len() - 1 {
        for s in 0..SEGMENTS {
            faces.push(vec![
                at(ring, s),
                at(ring, s + 1),
                at(ring + 1, s + 1),
                at(ring + 1, s),
            ]);
        }
    }
    (vertices, faces)
}

/// A solid of revolution with flat ends (a cylinder).
fn lathe(profile: &[(f64, f64)]) -> Mesh {
    let (vertices, mut faces) = rings(profile);
    let top = (profile.len() - 1) * SEGMENTS;
    faces.push((0..SEGMENTS).rev().collect());
    faces.push((top..top + SEGMENTS).collect());
    Mesh::new(vertices, faces)
}

/// A solid of revolution closed by a pole at heights `±pole` (a capsule).
fn capped(profile: &[(f64, f64)], pole: f64) -> Mesh {
    let (mut vertices, mut faces) = rings(profile);
    let (bottom, top) = (vertices.len(), vertices.len() + 1);
    vertices.push([0.0, 0.0, -pole]);
    vertices.push([0.0, 0.0, pole]);
    let last = (profile.len() - 1) * SEGMENTS;
    for s in 0..SEGMENTS {
        let next = (s + 1) % SEGMENTS;
        faces.push(vec![bottom, next, s]);
        faces.push(vec![top, last + s, last + next]);
    }
    Mesh::new(vertices, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every face's normal points away from the centre, every edge has a
    /// face across it (closed), and the edges inked are those expected.
    fn check(mesh: &Mesh, sharp: usize) {
        for (f, n) in mesh.faces.iter().zip(&mesh.normals) {
            let c = f.iter().fold([0.0; 3], |s, &i| {
                [0, 1, 2].map(|k| s[k] + mesh.vertices[i][k] / f.len() as f64)
            });
            assert!(dot(*n, c) > 0.0, "{f:?}");
            assert!((dot(*n, *n) - 1.0).abs() < 1e-12);
        }
        let edges: Vec<_> = mesh.across.iter().flatten().collect();
        assert!(edges.iter().all(|e| e.is_some()), "not closed");
        let inked = edges.iter().filter(|e| e.is_some_and(|(_, s)| s)).count();
        assert_eq!(inked, 2 * sharp);
    }

    #[test]
    fn meshes_are_closed_and_face_outwards() {
        let cube = Mesh::of(&Shape::Box {
            half_extents: [1.0, 2.0, 3.0],
        })
        .unwrap();
        assert_eq!(cube.faces.len(), 6);
        check(&cube, 12);
        let cylinder = Mesh::of(&Shape::Cylinder {
            half_length: 1.0,
            radius: 0.5,
        })
        .unwrap();
        assert_eq!(cylinder.faces.len(), SEGMENTS + 2);
        check(&cylinder, 2 * SEGMENTS);
        for half_length in [0.0, 0.7] {
            let capsule = Mesh::of(&Shape::Capsule {
                half_length,
                radius: 0.3,
            })
            .unwrap();
            check(&capsule, 0);
        }
        let corners: Vec<[f64; 3]> = (0..8)
            .map(|k| [1, 2, 4].map(|bit| if k & bit == 0 { -0.5 } else { 0.5 }))
            .collect();
        let hull = Mesh::of(&Shape::Convex { vertices: corners }).unwrap();
        // Two triangles a side: the diagonals are not inked.
        check(&hull, 12);
        assert!(Mesh::of(&Shape::Sphere { radius: 1.0 }).is_none());
    }
}
