//! Siconos' error measure: how far an answer is from Coulomb's law.

use crate::Friction;

/// The projection of `(n, t)` on the planar cone `|t| <= mu n`.
pub fn project_cone(mu: f64, n: f64, t: f64) -> (f64, f64) {
    let ([pn, pt, _], _) = project_on_cone(mu, [n, t, 0.0], 2);
    (pn, pt)
}

/// The projection of `(n, t1, t2)` on the cone `|t| <= mu n` in space.
pub fn project_spatial_cone(mu: f64, x: [f64; 3]) -> [f64; 3] {
    project_on_cone(mu, x, 3).0
}

/// Which piece of the cone's projection a point lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ConePiece {
    /// The polar cone: projects to the apex, `D = 0`.
    #[default]
    Apex,
    /// The cone: `D = I`.
    Inside,
    /// In the plane, the edge `(1, mu)` (tangent positive; the ray `(1, 0)`
    /// of a frictionless cone, in space too) or `(1, -mu)`: `D = e e^T /
    /// (1 + mu^2)`, constant on the piece.
    Upper,
    /// See [`ConePiece::Upper`].
    Lower,
    /// In space, the cone's curved surface: `D` depends on the point
    /// ([`cone_derivative`]), so a factor holding it is never exact.
    Surface,
}

impl ConePiece {
    /// Whether the projection's derivative is the same all over the piece
    /// (the cone in the plane is polyhedral; in space it is curved).
    pub(crate) fn is_flat(self) -> bool {
        self != ConePiece::Surface
    }
}

/// The length of a contact's tangent part (`t2 = 0` in the plane, where it
/// is `|t1|` exactly).
fn tangent_norm(x: [f64; 3]) -> f64 {
    if x[2] == 0.0 {
        x[1].abs()
    } else {
        length(x[1], x[2])
    }
}

/// `sqrt(a^2 + b^2)`, by `hypot` only where the squares would overflow or
/// underflow: `hypot` was a sixth of the time of a pile's contact solve.
pub(crate) fn length(a: f64, b: f64) -> f64 {
    let s = a * a + b * b;
    if s > 1e-290 && s < 1e290 {
        s.sqrt()
    } else {
        a.hypot(b)
    }
}

/// `P_K(x)` on `|t| <= mu n`, `x = (n, t1, t2)` (`t2 = 0` in the plane,
/// `dimension` 2), and which piece.
pub(crate) fn project_on_cone(mu: f64, x: [f64; 3], dimension: usize) -> ([f64; 3], ConePiece) {
    let n = x[0];
    if mu == 0.0 {
        // The cone is the ray (1, 0): one edge, whose projection keeps
        // `n` on a neighbourhood of any `(n > 0, t)`, `t = 0` included.
        return if n > 0.0 {
            ([n, 0.0, 0.0], ConePiece::Upper)
        } else {
            ([0.0; 3], ConePiece::Apex)
        };
    }
    let t = tangent_norm(x);
    if t <= mu * n {
        return (x, ConePiece::Inside);
    }
    if n <= -mu * t {
        // In the polar cone: the apex is the nearest point.
        return ([0.0; 3], ConePiece::Apex);
    }
    // Onto the ray (1, mu s), s = t / |t| (in the plane, the sign of t).
    let along = (n + mu * t) / (1.0 + mu * mu);
    if dimension == 2 {
        let s = x[1].signum();
        let piece = if s > 0.0 {
            ConePiece::Upper
        } else {
            ConePiece::Lower
        };
        return ([along, mu * s * along, 0.0], piece);
    }
    let k = mu * along / t;
    ([along, k * x[1], k * x[2]], ConePiece::Surface)
}

/// The derivative `D` of the projection at `x`, on `piece` (as
/// [`project_on_cone`] gave it): `I` inside, `0` in the polar cone, and on
/// the surface `e e^T / (1 + mu^2) + (mu p_N / |t|) (0 + (I - s s^T))`
/// with `s = t / |t|`, `e = (1, mu s)`, `p_N` the projection's normal
/// part (the second term vanishes in the plane). Symmetric positive
/// semi-definite.
pub(crate) fn cone_derivative(mu: f64, x: [f64; 3], piece: ConePiece) -> [[f64; 3]; 3] {
    let k = 1.0 / (1.0 + mu * mu);
    match piece {
        ConePiece::Apex => [[0.0; 3]; 3],
        ConePiece::Inside => [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ConePiece::Upper | ConePiece::Lower => {
            let s = if piece == ConePiece::Upper { mu } else { -mu };
            [[k, k * s, 0.0], [k * s, k * s * s, 0.0], [0.0; 3]]
        }
        ConePiece::Surface => {
            let t = tangent_norm(x);
            let s = [x[1] / t, x[2] / t];
            let e = [1.0, mu * s[0], mu * s[1]];
            let curve = mu * (x[0] + mu * t) * k / t;
            // The upper triangle, mirrored: exactly symmetric.
            let mut d = [[0.0; 3]; 3];
            for a in 0..3 {
                for b in a..3 {
                    let eye = if a == b { 1.0 } else { 0.0 };
                    let surface = if a > 0 {
                        curve * (eye - s[a - 1] * s[b - 1])
                    } else {
                        0.0
                    };
                    d[a][b] = k * e[a] * e[b] + surface;
                    d[b][a] = d[a][b];
                }
            }
            d
        }
    }
}

/// [`cone_derivative`]'s eigenpairs `(lambda, q)`, `D = sum lambda q q^T`
/// with `q` orthonormal, in closed form: each `lambda` is `0` or `1` but
/// the surface's curvature term, so that a function of `D` (the inverse
/// of `(I - D) / rho + sigma D`) keeps its accuracy however small
/// `sigma`: on the surface `e / |e|` (`1`), `(0, -s_2, s_1)` (the
/// curvature's `mu p_N / |t|`) and `(-mu, s) / |e|` (`0`).
pub(crate) fn cone_spectrum(mu: f64, x: [f64; 3], piece: ConePiece) -> [(f64, [f64; 3]); 3] {
    let axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let norm = (1.0 + mu * mu).sqrt();
    match piece {
        ConePiece::Apex => axes.map(|q| (0.0, q)),
        ConePiece::Inside => axes.map(|q| (1.0, q)),
        ConePiece::Upper | ConePiece::Lower => {
            let s = if piece == ConePiece::Upper { mu } else { -mu };
            [
                (1.0, [1.0 / norm, s / norm, 0.0]),
                (0.0, [-s / norm, 1.0 / norm, 0.0]),
                (0.0, axes[2]),
            ]
        }
        ConePiece::Surface => {
            let t = tangent_norm(x);
            let s = [x[1] / t, x[2] / t];
            let curve = mu * (x[0] + mu * t) / ((1.0 + mu * mu) * t);
            [
                (1.0, [1.0 / norm, mu * s[0] / norm, mu * s[1] / norm]),
                (curve, [0.0, -s[1], s[0]]),
                (0.0, [-mu / norm, s[0] / norm, s[1] / norm]),
            ]
        }
    }
}

/// Siconos' normalised natural-map residual of an answer, as its
/// `fc2d_compute_error` and `fc3d_compute_error` compute it: `|| r -
/// P_K(r - (u + mu |u_T| e_N)) ||` summed over contacts as one vector
/// norm, divided by `max(||q||, ||r||, ||u||)` only when that scale
/// exceeds `DBL_EPSILON` (2.2e-16), else the residual itself
/// ([`siconos_error`]). Zero exactly at an answer. Each contact has
/// `r.len() / mu.len()` components: 2 in the plane (normal, tangent), 3 in
/// space. Siconos recomputes `u = W r + q` from `r`: pass that `u`.
pub fn local_error(mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    siconos_error(Friction::Exact, mu, q, r, u)
}

/// The same measure for the cone complementarity relaxation (the convex
/// form): `u` itself, not De Saxce's `u + mu |u_T| e_N`, must lie in the
/// dual cone, so sliding contacts separate by `mu |u_T|`.
pub fn convex_error(mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    siconos_error(Friction::Convex, mu, q, r, u)
}

/// Siconos' measure ([`local_error`] or [`convex_error`], as `friction`
/// says): relative above `DBL_EPSILON`, absolute below, as Siconos'
/// `fc2d_compute_error` and `fc3d_compute_error` (`if (fabs(scale) >
/// DBL_EPSILON) error /= scale`). What `zwang contact` reports.
///
/// It differs from [`error_for`], the solvers' stopping test, only where
/// `q`, `r` and `u` all lie below 2.2e-16 in norm: a pile at rest, whose
/// `||q||` is 4.3e-18, is solved to a relative 2.0e-9 (the residual
/// 8.7e-27), which Siconos measures 8.7e-27.
pub fn siconos_error(friction: Friction, mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    error_below(friction, mu, q, r, u, f64::EPSILON)
}

/// The solvers' stopping measure: Siconos' ([`siconos_error`]) where the
/// scale `max(||q||, ||r||, ||u||)` exceeds `DBL_EPSILON`, and still
/// relative below it (by 1 only when all three vanish), so that a problem
/// and the same problem scaled by `1e-20` are solved alike; Siconos'
/// absolute measure there is smaller than this one, never larger.
pub fn error_for(friction: Friction, mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    error_below(friction, mu, q, r, u, 0.0)
}

/// The natural map's residual relative to `max(||q||, ||r||, ||u||)`
/// where that exceeds `floor`, absolute where it does not (the measures
/// above are `floor` `DBL_EPSILON` and 0).
pub(crate) fn error_below(
    friction: Friction,
    mu: &[f64],
    q: &[f64],
    r: &[f64],
    u: &[f64],
    floor: f64,
) -> f64 {
    relative(natural_map(friction, mu, r, u), scale_of(q, r, u), floor)
}

/// `residual / scale` where `scale` exceeds `floor`, else `residual`.
pub(crate) fn relative(residual: f64, scale: f64, floor: f64) -> f64 {
    if scale > floor {
        residual / scale
    } else {
        residual
    }
}

/// `max(||q||, ||r||, ||u||)`.
fn scale_of(q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    norm(q).max(norm(r)).max(norm(u))
}

/// The components of contact `i` of a vector of `dimension` per contact.
pub(crate) fn components(x: &[f64], dimension: usize, i: usize) -> [f64; 3] {
    let c = &x[dimension * i..dimension * (i + 1)];
    [c[0], c[1], if dimension == 3 { c[2] } else { 0.0 }]
}

/// Writes contact `i`'s components (the first `dimension` of `value`):
/// element by element, where a copy of a slice of run-time length is a
/// call to `memmove` per contact, in the solvers' innermost loops.
pub(crate) fn set_components(x: &mut [f64], dimension: usize, i: usize, value: [f64; 3]) {
    for (x, v) in x[dimension * i..dimension * (i + 1)].iter_mut().zip(value) {
        *x = v;
    }
}

/// The natural map's residual `|| r - P_K(r - w) ||` over all contacts,
/// not normalised: `w = u + mu |u_T| e_N` (De Saxce's velocity) for the
/// exact law, `w = u` for the convex form.
pub fn natural_map(friction: Friction, mu: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let d = if mu.is_empty() { 2 } else { r.len() / mu.len() };
    let mut sum = 0.0;
    for (i, &m) in mu.iter().enumerate() {
        let (ri, ui) = (components(r, d, i), components(u, d, i));
        let wn = match friction {
            Friction::Exact => ui[0] + m * tangent_norm(ui),
            Friction::Convex => ui[0],
        };
        let x = [ri[0] - wn, ri[1] - ui[1], ri[2] - ui[2]];
        let (p, _) = project_on_cone(m, x, d);
        sum += (0..3).map(|a| (ri[a] - p[a]).powi(2)).sum::<f64>();
    }
    sum.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frictionless_cone_projected_a_negative_normal_with_no_tangent_onto_itself() {
        // `|t| <= mu n` holds for `mu = 0`, `t = 0` and any `n`, a
        // negative one included: (-1, 0) came back as its own projection.
        assert_eq!(project_cone(0.0, -1.0, 0.0), (0.0, 0.0));
        assert_eq!(project_cone(0.0, 2.0, 0.0), (2.0, 0.0));
        assert_eq!(project_cone(0.0, 2.0, -3.0), (2.0, 0.0));
        // So an open frictionless contact (no impulse, separating, no
        // sliding) is an answer, with no error.
        assert_eq!(
            natural_map(Friction::Exact, &[0.0], &[0.0, 0.0], &[1.0, 0.0]),
            0.0
        );
    }

    #[test]
    fn projection_lands_in_the_cone_and_is_idempotent() {
        for &(n, t) in &[
            (1.0, 0.1),
            (1.0, 5.0),
            (-1.0, 0.1),
            (0.2, -3.0),
            (-0.1, 2.0),
        ] {
            let (pn, pt) = project_cone(0.5, n, t);
            assert!(pt.abs() <= 0.5 * pn + 1e-15);
            assert_eq!(project_cone(0.5, pn, pt), (pn, pt));
            // The residual is orthogonal to the projection.
            assert!(((n - pn) * pn + (t - pt) * pt).abs() < 1e-14);
        }
    }

    #[test]
    fn projection_uses_the_cone_not_its_dual() {
        // A regression: the inside test read `mu |t| <= n` (the dual cone
        // for mu = 1 only), which kept (1, 1) for mu = 0.5 and moved
        // (1, 0.6) for mu = 2.
        assert_eq!(project_cone(0.5, 1.0, 1.0), (1.2, 0.6));
        assert_eq!(project_cone(2.0, 1.0, 0.6), (1.0, 0.6));
    }

    /// Points in every piece of the cone in space, for `mu` in `mus`.
    fn spatial_points() -> Vec<[f64; 3]> {
        let mut points = Vec::new();
        for n in [-2.0, -0.3, 0.0, 0.4, 1.5] {
            for (t1, t2) in [
                (0.0, 0.0),
                (0.3, 0.0),
                (-1.0, 0.7),
                (2.0, -3.0),
                (0.05, 0.02),
            ] {
                points.push([n, t1, t2]);
            }
        }
        points
    }

    #[test]
    fn the_spatial_projection_is_the_nearest_point_of_the_cone() {
        for mu in [0.0, 0.3, 1.0, 2.5] {
            for x in spatial_points() {
                let p = project_spatial_cone(mu, x);
                let t = p[1].hypot(p[2]);
                assert!(t <= mu * p[0] * (1.0 + 1e-15) + 1e-15, "{mu} {x:?} {p:?}");
                // Idempotent, and Moreau: x - p in the polar cone, orthogonal
                // to p.
                let again = project_spatial_cone(mu, p);
                for a in 0..3 {
                    assert!((again[a] - p[a]).abs() <= 1e-15 * (1.0 + p[a].abs()));
                }
                let y = [x[0] - p[0], x[1] - p[1], x[2] - p[2]];
                let dot: f64 = (0..3).map(|a| y[a] * p[a]).sum();
                assert!(dot.abs() < 1e-14, "{mu} {x:?}");
                // The polar cone of |t| <= mu n: mu |y_t| <= -y_n.
                assert!(mu * y[1].hypot(y[2]) <= -y[0] + 1e-14, "{mu} {x:?} {y:?}");
                // No point of a few on the cone's surface is nearer.
                let dist = |q: [f64; 3]| (0..3).map(|a| (x[a] - q[a]).powi(2)).sum::<f64>();
                for k in 0..16 {
                    let angle = k as f64 * std::f64::consts::PI / 8.0;
                    for n in [0.0, 0.5 * p[0].max(0.1), p[0], 2.0 * p[0] + 0.1] {
                        let q = [n, mu * n * angle.cos(), mu * n * angle.sin()];
                        assert!(dist(q) >= dist(p) - 1e-13, "{mu} {x:?} {q:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_spatial_projection_agrees_with_the_planar_one_in_a_plane() {
        for mu in [0.0, 0.5, 2.0] {
            for x in spatial_points() {
                let (n, t) = project_cone(mu, x[0], x[1]);
                let p = project_spatial_cone(mu, [x[0], x[1], 0.0]);
                assert!((p[0] - n).abs() <= 1e-15 * (1.0 + n.abs()));
                assert!((p[1] - t).abs() <= 1e-15 * (1.0 + t.abs()));
                assert_eq!(p[2], 0.0);
            }
        }
    }

    #[test]
    fn the_projections_derivative_is_its_jacobian() {
        let h = 1e-7;
        for (dimension, mu) in [(2, 0.5), (3, 0.0), (3, 0.3), (3, 1.0), (3, 2.5)] {
            for x in spatial_points() {
                let x = if dimension == 2 { [x[0], x[1], 0.0] } else { x };
                let (_, piece) = project_on_cone(mu, x, dimension);
                let d = cone_derivative(mu, x, piece);
                for b in 0..dimension {
                    let (mut plus, mut minus) = (x, x);
                    plus[b] += h;
                    minus[b] -= h;
                    let (pp, piece_p) = project_on_cone(mu, plus, dimension);
                    let (pm, piece_m) = project_on_cone(mu, minus, dimension);
                    if piece_p != piece || piece_m != piece {
                        continue; // at a kink
                    }
                    for a in 0..dimension {
                        let fd = (pp[a] - pm[a]) / (2.0 * h);
                        assert!(
                            (fd - d[a][b]).abs() < 1e-6,
                            "{dimension} {mu} {x:?} D[{a}][{b}] = {} against {fd}",
                            d[a][b]
                        );
                    }
                }
                for a in 0..3 {
                    for b in 0..3 {
                        assert_eq!(d[a][b], d[b][a]);
                    }
                }
            }
        }
    }

    #[test]
    fn the_derivatives_spectrum_rebuilds_it_from_orthonormal_vectors() {
        for (dimension, mu) in [(2, 0.5), (3, 0.0), (3, 0.3), (3, 1.0), (3, 2.5)] {
            for x in spatial_points() {
                let x = if dimension == 2 { [x[0], x[1], 0.0] } else { x };
                let (_, piece) = project_on_cone(mu, x, dimension);
                let d = cone_derivative(mu, x, piece);
                let spectrum = cone_spectrum(mu, x, piece);
                for a in 0..3 {
                    for b in 0..3 {
                        let rebuilt: f64 = spectrum.iter().map(|(l, q)| l * q[a] * q[b]).sum();
                        assert!(
                            (rebuilt - d[a][b]).abs() < 1e-14,
                            "{dimension} {mu} {x:?} {piece:?}: D[{a}][{b}] {} against {rebuilt}",
                            d[a][b]
                        );
                        let dot: f64 = (0..3).map(|c| spectrum[a].1[c] * spectrum[b].1[c]).sum();
                        let eye = if a == b { 1.0 } else { 0.0 };
                        assert!((dot - eye).abs() < 1e-14, "{piece:?} q{a} . q{b} = {dot}");
                    }
                }
                for (l, _) in spectrum {
                    assert!((0.0..=1.0).contains(&l), "{piece:?} eigenvalue {l}");
                }
            }
        }
    }

    #[test]
    fn error_vanishes_at_spatial_answers() {
        let mu = [0.5, 0.5, 0.5];
        // Sticking inside the cone; sliding along (3, 4) with the impulse
        // on the cone's surface against it; open.
        let r = [1.0, 0.2, -0.1, 2.0, -0.6, -0.8, 0.0, 0.0, 0.0];
        let u = [0.0, 0.0, 0.0, 0.0, 3.0, 4.0, 0.7, -4.0, 1.0];
        let q = [1.0; 9];
        assert!(local_error(&mu, &q, &r, &u) < 1e-15);
        // Sliding at an angle to the friction is an error.
        let u_bad = [0.0, 0.0, 0.0, 0.0, 4.0, 3.0, 0.7, -4.0, 1.0];
        assert!(local_error(&mu, &q, &r, &u_bad) > 0.01);
        // The convex form wants the sliding contact to separate by mu |u_T|.
        assert!(convex_error(&mu, &q, &r, &u) > 0.1);
        // (and the open contact by as much).
        let u_convex = [0.0, 0.0, 0.0, 2.5, 3.0, 4.0, 2.5, -4.0, 1.0];
        let e = convex_error(&mu, &q, &r, &u_convex);
        assert!(e < 1e-15, "{e}");
    }

    #[test]
    fn error_vanishes_at_sticking_sliding_and_open_answers() {
        let mu = [0.5, 0.5, 0.5];
        // Sticking inside the cone, sliding on its edge, open.
        let r = [1.0, 0.2, 2.0, -1.0, 0.0, 0.0];
        let u = [0.0, 0.0, 0.0, 3.0, 0.7, -4.0];
        let q = [1.0; 6];
        assert_eq!(local_error(&mu, &q, &r, &u), 0.0);
        // Sliding the wrong way is an error.
        let u_bad = [0.0, 0.0, 0.0, -3.0, 0.7, -4.0];
        assert!(local_error(&mu, &q, &r, &u_bad) > 0.1);
    }
}
