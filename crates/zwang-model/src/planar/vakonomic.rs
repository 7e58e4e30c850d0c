//! The terms the vakonomic equations add for the knife edges.
//!
//! The vakonomic equations are Hamilton's principle with the constraints
//! `A(q) q' = 0` adjoined, `L* = L + mu . A(q) q'`:
//!
//! ```text
//! M q'' + A^T mu' = Q - (dA/dt)^T mu + (d(A q')/dq)^T mu,    A q'' = -(dA/dt) q'.
//! ```
//!
//! The second equation and the left side are those of Gauss's principle
//! with `-mu'` as the rows' multipliers, so the vakonomic motion is the
//! nonholonomic one driven by the extra force
//! `F(mu) = (d(A q')/dq - dA/dt)^T mu`, the multipliers rising at the
//! rate `mu' = -lambda` (`lambda` the rows' multipliers in the engine's
//! convention `M a = Q + A^T lambda`). A knife edge at the body point
//! `r_b` with the blade along `e = R(theta) e_b` and normal `n = perp(e)`
//! has `A = [n^T, n_b . perp(r_b)]` (the last entry constant) and
//! `dn/dtheta = -e`, so
//!
//! ```text
//! F = mu (omega e, -e . v_C)      (on x, y, theta of the body)
//! ```
//!
//! with `v_C` the centre's velocity. For holonomic rows the two extra
//! terms cancel (`A` is a gradient): their vakonomic motion is their
//! Lagrangian one, and they need no multiplier in the state.

use super::{dot, BodyRef, JointKind, PlanarModel};

impl PlanarModel {
    /// The equality rows of an instant without contacts that are knife
    /// edges (velocity-level constraints), in joint order: the rows the
    /// vakonomic equations give a multiplier in the state.
    pub fn knife_edge_rows(&self) -> Vec<usize> {
        let mut rows = Vec::new();
        let mut row = 0;
        for joint in &self.joints {
            if matches!(joint.kind, JointKind::KnifeEdge { .. }) {
                rows.push(row);
            }
            row += super::rows_of(&joint.kind);
        }
        rows
    }

    /// Adds the vakonomic force `F(mu) = (d(A q')/dq - dA/dt)^T mu` of the
    /// knife edges to `out` (length `nv`), `multipliers` one per knife
    /// edge in joint order (extra ones are ignored, missing ones are 0).
    pub fn add_vakonomic_force(&self, q: &[f64], v: &[f64], multipliers: &[f64], out: &mut [f64]) {
        let knives = self
            .joints
            .iter()
            .filter_map(|j| match (&j.kind, j.bodies[1]) {
                (JointKind::KnifeEdge { axis }, BodyRef::Body(b)) => Some((*axis, b)),
                _ => None,
            });
        for ((axis, b), &mu) in knives.zip(multipliers) {
            let o = self.offsets[b];
            let (s, c) = q[o + 2].sin_cos();
            let e = [c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]];
            let omega = v[o + 2];
            // dA/dt = (omega perp(n), 0) = (-omega e, 0);
            // d(A q')/dtheta = (dn/dtheta) . v_C = -e . v_C.
            out[o] += mu * omega * e[0];
            out[o + 1] += mu * omega * e[1];
            out[o + 2] -= mu * dot(e, [v[o], v[o + 1]]);
        }
    }
}
