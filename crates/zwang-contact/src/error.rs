//! Siconos' error measure: how far an answer is from Coulomb's law.

use crate::Friction;

/// The projection of `(n, t)` on the planar cone `|t| <= mu n`.
pub fn project_cone(mu: f64, n: f64, t: f64) -> (f64, f64) {
    project_on_cone(mu, n, t).0
}

/// Which piece of the planar cone's projection a point lies in: the
/// projection is linear on each, its derivative `D` constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ConePiece {
    /// The polar cone: projects to the apex, `D = 0`.
    #[default]
    Apex,
    /// The cone: `D = I`.
    Inside,
    /// The edge `(1, mu)` (tangent positive; the ray `(1, 0)` of a
    /// frictionless cone) or `(1, -mu)`: `D = e e^T`.
    Upper,
    /// See [`ConePiece::Upper`].
    Lower,
}

/// `P_K(n, t)` on `|t| <= mu n`, and which piece.
pub(crate) fn project_on_cone(mu: f64, n: f64, t: f64) -> ((f64, f64), ConePiece) {
    if mu == 0.0 {
        // The cone is the ray (1, 0): one edge, whose projection keeps
        // `n` on a neighbourhood of any `(n > 0, t)`, `t = 0` included.
        return if n > 0.0 {
            ((n, 0.0), ConePiece::Upper)
        } else {
            ((0.0, 0.0), ConePiece::Apex)
        };
    }
    if t.abs() <= mu * n {
        return ((n, t), ConePiece::Inside);
    }
    if n <= -mu * t.abs() {
        // In the polar cone: the apex is the nearest point.
        return ((0.0, 0.0), ConePiece::Apex);
    }
    // Onto the edge (1, mu s), s the sign of t.
    let s = t.signum();
    let along = (n + mu * s * t) / (1.0 + mu * mu);
    let piece = if s > 0.0 {
        ConePiece::Upper
    } else {
        ConePiece::Lower
    };
    ((along, mu * s * along), piece)
}

/// Siconos' normalised natural-map residual of an answer of a planar
/// problem: `|| r - P_K(r - (u + mu |u_T| e_N)) ||` summed over contacts as
/// one vector norm, divided by `max(||q||, ||r||, ||u||)` (by 1 when all
/// three vanish). Zero exactly at an answer.
pub fn local_error(mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    error_for(Friction::Exact, mu, q, r, u)
}

/// The same measure for the cone complementarity relaxation (the convex
/// form): `u` itself, not De Saxce's `u + mu |u_T| e_N`, must lie in the
/// dual cone, so sliding contacts separate by `mu |u_T|`.
pub fn convex_error(mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    error_for(Friction::Convex, mu, q, r, u)
}

/// [`local_error`] or [`convex_error`], as `friction` says.
pub fn error_for(friction: Friction, mu: &[f64], q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let scale = norm(q).max(norm(r)).max(norm(u));
    let scale = if scale > 0.0 { scale } else { 1.0 };
    natural_map(friction, mu, r, u) / scale
}

/// The natural map's residual `|| r - P_K(r - w) ||` over all contacts,
/// not normalised: `w = u + mu |u_T| e_N` (De Saxce's velocity) for the
/// exact law, `w = u` for the convex form.
pub fn natural_map(friction: Friction, mu: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (i, &m) in mu.iter().enumerate() {
        let (rn, rt) = (r[2 * i], r[2 * i + 1]);
        let (un, ut) = (u[2 * i], u[2 * i + 1]);
        let wn = match friction {
            Friction::Exact => un + m * ut.abs(),
            Friction::Convex => un,
        };
        let (pn, pt) = project_cone(m, rn - wn, rt - ut);
        sum += (rn - pn).powi(2) + (rt - pt).powi(2);
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
