//! Frames and mass: MuJoCo's five ways to give an orientation, the volume
//! and inertia of each geom shape (MuJoCo's `mjCGeom::GetVolume` and
//! `SetInertia`), and bodies' inertias combined about their centre of
//! mass.

use zwang_core::rotation::{apply, cross, dot, from_matrix, matrix, mul, normalized};

use crate::error::{MjcfError, Result};
use crate::xml::numbers;

/// The attributes that give an orientation.
pub(crate) const ORIENTATION: &[&str] = &["quat", "axisangle", "euler", "xyaxes", "zaxis"];

/// How angles are read: MuJoCo's `compiler angle` and `eulerseq`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Angles {
    /// Radians per unit of the file (`pi / 180` for degrees).
    pub unit: f64,
    /// `compiler eulerseq`: lower case about the turned axes, upper case
    /// about the fixed ones.
    pub eulerseq: [u8; 3],
}

impl Angles {
    /// The orientation the attributes `get` gives (`quat`, `axisangle`,
    /// `euler`, `xyaxes`, `zaxis`; identity without), as a unit quaternion
    /// `[w, x, y, z]`.
    pub fn orientation<'a>(
        &self,
        get: impl Fn(&str) -> Option<&'a str>,
        path: &str,
    ) -> Result<[f64; 4]> {
        let given: Vec<&str> = ORIENTATION
            .iter()
            .copied()
            .filter(|a| get(a).is_some())
            .collect();
        let Some(&which) = given.first() else {
            return Ok([1.0, 0.0, 0.0, 0.0]);
        };
        if given.len() > 1 {
            return Err(MjcfError::new(
                path,
                format!("{} and {} both give the orientation", given[0], given[1]),
            ));
        }
        let text = get(which).unwrap_or_default();
        let bad = |message: &str| MjcfError::attr(path, which, message);
        let q = match which {
            "quat" => {
                let q = numbers::<4>(text, path, which)?;
                normalized(q).ok_or_else(|| bad("must be a nonzero quaternion"))?
            }
            "axisangle" => {
                let [x, y, z, angle] = numbers::<4>(text, path, which)?;
                let axis = normalized([x, y, z]).ok_or_else(|| bad("the axis must be nonzero"))?;
                let half = 0.5 * angle * self.unit;
                let s = half.sin();
                [half.cos(), axis[0] * s, axis[1] * s, axis[2] * s]
            }
            "euler" => {
                let angles = numbers::<3>(text, path, which)?;
                let mut q = [1.0, 0.0, 0.0, 0.0];
                for (i, &axis) in self.eulerseq.iter().enumerate() {
                    let half = 0.5 * angles[i] * self.unit;
                    let mut turn = [half.cos(), 0.0, 0.0, 0.0];
                    turn[1 + usize::from(axis.to_ascii_lowercase() - b'x')] = half.sin();
                    q = if axis.is_ascii_lowercase() {
                        mul(q, turn)
                    } else {
                        mul(turn, q)
                    };
                }
                q
            }
            "xyaxes" => {
                let v = numbers::<6>(text, path, which)?;
                let x = normalized([v[0], v[1], v[2]])
                    .ok_or_else(|| bad("the x axis must be nonzero"))?;
                let y = [v[3], v[4], v[5]];
                let along = dot(x, y);
                let y = normalized([0, 1, 2].map(|i| y[i] - along * x[i]))
                    .ok_or_else(|| bad("the y axis must not be along the x axis"))?;
                let z = cross(x, y);
                from_matrix(&[0, 1, 2].map(|i| [x[i], y[i], z[i]]))
            }
            _ => {
                let z = normalized(numbers::<3>(text, path, which)?)
                    .ok_or_else(|| bad("must be a nonzero vector"))?;
                z_to(z)
            }
        };
        if q.iter().all(|x| x.is_finite()) {
            Ok(q)
        } else {
            Err(bad("must be finite"))
        }
    }
}

/// The shortest turn of the z axis onto the unit vector `z` (MuJoCo's
/// `mjuu_z2quat`): about `e_z x z`, or x when they are parallel.
pub(crate) fn z_to(z: [f64; 3]) -> [f64; 4] {
    let axis = [-z[1], z[0], 0.0];
    let s = dot(axis, axis).sqrt();
    let axis = if s < 1e-10 {
        [1.0, 0.0, 0.0]
    } else {
        axis.map(|x| x / s)
    };
    let half = 0.5 * s.atan2(z[2]);
    let sin = half.sin();
    [half.cos(), axis[0] * sin, axis[1] * sin, axis[2] * sin]
}

/// A 3 x 3 matrix.
pub(crate) type Mat3 = [[f64; 3]; 3];

/// `R diag(d) R^T`, `R` the matrix of `q`.
pub(crate) fn turned_diagonal(q: [f64; 4], d: [f64; 3]) -> Mat3 {
    let r = matrix(q);
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = (0..3).map(|k| r[i][k] * d[k] * r[j][k]).sum();
        }
    }
    out
}

/// The inertia of a point mass `m` at `d` about the origin:
/// `m (|d|^2 E - d d^T)`.
pub(crate) fn off_centre(m: f64, d: [f64; 3]) -> Mat3 {
    let d2 = dot(d, d);
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = m * (if i == j { d2 } else { 0.0 } - d[i] * d[j]);
        }
    }
    out
}

/// The eigenvalues and unit eigenvectors (columns of the returned matrix,
/// a rotation) of a symmetric 3 x 3 matrix, by cyclic Jacobi rotations.
pub(crate) fn eigen(a: &Mat3) -> ([f64; 3], Mat3) {
    let mut a = *a;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= f64::EPSILON * 1e-3 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for k in 0..3 {
                let (vkp, vkq) = (v[k][p], v[k][q]);
                v[k][p] = c * vkp - s * vkq;
                v[k][q] = s * vkp + c * vkq;
            }
        }
    }
    let z = cross([v[0][0], v[1][0], v[2][0]], [v[0][1], v[1][1], v[2][1]]);
    if dot(z, [v[0][2], v[1][2], v[2][2]]) < 0.0 {
        for row in &mut v {
            row[2] = -row[2];
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

/// `R d` for a matrix given as rows, and `R diag(d) R^T` from eigenvectors
/// in columns.
pub(crate) fn from_eigen(values: [f64; 3], vectors: &Mat3) -> Mat3 {
    let mut out = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = (0..3)
                .map(|k| vectors[i][k] * values[k] * vectors[j][k])
                .sum();
        }
    }
    out
}

/// A geom's solid shape for its mass properties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Solid {
    Sphere {
        r: f64,
    },
    /// Radius and half-length.
    Capsule {
        r: f64,
        h: f64,
    },
    /// Radius and half-length.
    Cylinder {
        r: f64,
        h: f64,
    },
    /// Half extents.
    Box {
        a: [f64; 3],
    },
    /// Semi-axes.
    Ellipsoid {
        a: [f64; 3],
    },
    /// No volume (a plane).
    None,
}

impl Solid {
    /// Its volume, m³ (MuJoCo's `mjCGeom::GetVolume`).
    pub fn volume(&self) -> f64 {
        let pi = std::f64::consts::PI;
        match *self {
            Solid::Sphere { r } => 4.0 * pi * r * r * r / 3.0,
            Solid::Capsule { r, h } => pi * (r * r * 2.0 * h + 4.0 * r * r * r / 3.0),
            Solid::Cylinder { r, h } => pi * r * r * 2.0 * h,
            Solid::Box { a } => a[0] * a[1] * a[2] * 8.0,
            Solid::Ellipsoid { a } => 4.0 * pi * a[0] * a[1] * a[2] / 3.0,
            Solid::None => 0.0,
        }
    }

    /// Its principal moments of inertia about its centre, in its own axes,
    /// for the mass `m` spread uniformly through it. A capsule is a
    /// cylinder and two hemispheres, each hemisphere's moment about the
    /// centre by the parallel-axis theorem through its own centre of mass
    /// (`3 r / 8` from the flat face).
    pub fn inertia(&self, m: f64) -> [f64; 3] {
        match *self {
            Solid::Sphere { r } => [2.0 * m * r * r / 5.0; 3],
            Solid::Capsule { r, h } => {
                let height = 2.0 * h;
                let sphere = m * 4.0 * r / (4.0 * r + 3.0 * height);
                let cylinder = m - sphere;
                let ends = 2.0 * sphere * r * r / 5.0;
                let side = cylinder * (3.0 * r * r + height * height) / 12.0
                    + ends
                    + sphere * height * (3.0 * r + 2.0 * height) / 8.0;
                [side, side, cylinder * r * r / 2.0 + ends]
            }
            Solid::Cylinder { r, h } => {
                let height = 2.0 * h;
                let side = m * (3.0 * r * r + height * height) / 12.0;
                [side, side, m * r * r / 2.0]
            }
            Solid::Box { a } => [
                m * (a[1] * a[1] + a[2] * a[2]) / 3.0,
                m * (a[0] * a[0] + a[2] * a[2]) / 3.0,
                m * (a[0] * a[0] + a[1] * a[1]) / 3.0,
            ],
            Solid::Ellipsoid { a } => [
                m * (a[1] * a[1] + a[2] * a[2]) / 5.0,
                m * (a[0] * a[0] + a[2] * a[2]) / 5.0,
                m * (a[0] * a[0] + a[1] * a[1]) / 5.0,
            ],
            Solid::None => [0.0; 3],
        }
    }
}

/// A piece of a body's mass: its mass, centre and principal moments along
/// the axes of `orientation`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    pub mass: f64,
    pub centre: [f64; 3],
    pub orientation: [f64; 4],
    pub moments: [f64; 3],
}

/// The mass, centre of mass and inertia about it (body axes) of pieces
/// (MuJoCo's `InertiaFromGeom`: one piece is copied, several summed by the
/// parallel-axis theorem).
pub(crate) fn combine(pieces: &[Piece]) -> (f64, [f64; 3], Mat3) {
    match pieces {
        [] => (0.0, [0.0; 3], [[0.0; 3]; 3]),
        [one] => (
            one.mass,
            one.centre,
            turned_diagonal(one.orientation, one.moments),
        ),
        _ => {
            let mass: f64 = pieces.iter().map(|p| p.mass).sum();
            let mut c = [0.0; 3];
            for p in pieces {
                for k in 0..3 {
                    c[k] += p.mass * p.centre[k];
                }
            }
            let c = c.map(|x| x / mass);
            let mut total = [[0.0; 3]; 3];
            for p in pieces {
                let own = turned_diagonal(p.orientation, p.moments);
                let d = [0, 1, 2].map(|k| p.centre[k] - c[k]);
                let shift = off_centre(p.mass, d);
                for i in 0..3 {
                    for j in 0..3 {
                        total[i][j] += own[i][j] + shift[i][j];
                    }
                }
            }
            (mass, c, total)
        }
    }
}

/// A point given in the frame `(position, orientation)` expressed in the
/// frame's parent.
pub(crate) fn transform(position: [f64; 3], orientation: [f64; 4], p: [f64; 3]) -> [f64; 3] {
    let r = apply(&matrix(orientation), p);
    [0, 1, 2].map(|k| position[k] + r[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The capsule's moments against the integrals written out: a
    /// cylinder of length `2h` and a ball of radius `r` split at the
    /// middle, each half moved by `h` along z.
    #[test]
    fn capsule_moments_against_their_integrals() {
        let (r, h, rho) = (0.3f64, 0.7f64, 2.0);
        let pi = std::f64::consts::PI;
        let mc = rho * pi * r * r * 2.0 * h;
        let ms = rho * 4.0 / 3.0 * pi * r.powi(3);
        // A hemisphere's moment about an axis through its flat face's
        // centre, perpendicular to its own axis, is 2/5 (m/2) r^2; its
        // centre of mass is 3r/8 from that face.
        let half = ms / 2.0;
        let about_face = 2.0 / 5.0 * half * r * r;
        let about_com = about_face - half * (3.0 * r / 8.0).powi(2);
        let about_centre = about_com + half * (h + 3.0 * r / 8.0).powi(2);
        let side = mc * (3.0 * r * r + 4.0 * h * h) / 12.0 + 2.0 * about_centre;
        let axial = mc * r * r / 2.0 + 2.0 / 5.0 * ms * r * r;
        let solid = Solid::Capsule { r, h };
        assert!((solid.volume() * rho - (mc + ms)).abs() < 1e-14);
        let got = solid.inertia(mc + ms);
        assert!((got[0] - side).abs() < 1e-14 * side, "{got:?} vs {side}");
        assert!((got[2] - axial).abs() < 1e-14 * axial);
    }

    #[test]
    fn jacobi_diagonalizes() {
        let a = [[2.0, 0.3, -0.1], [0.3, 1.0, 0.2], [-0.1, 0.2, 1.5]];
        let (d, v) = eigen(&a);
        let back = from_eigen(d, &v);
        for i in 0..3 {
            for j in 0..3 {
                assert!((back[i][j] - a[i][j]).abs() < 1e-14, "{back:?}");
            }
        }
        assert!((d.iter().sum::<f64>() - 4.5).abs() < 1e-15);
    }
}
