//! Stage 4, integrate: the impulses' velocity change and the positions.

use super::collide::StepContact;

/// `v += M^-1 J^T r` (`minv` the diagonal of `M^-1`, `r` two impulses per
/// contact, normal first).
pub(super) fn add_impulses(contacts: &[StepContact], r: &[f64], minv: &[f64], v: &mut [f64]) {
    for (c, ri) in contacts.iter().zip(r.chunks_exact(2)) {
        for k in 0..c.rows.len {
            let col = c.rows.cols[k];
            v[col] += minv[col] * (c.rows.normal[k] * ri[0] + c.rows.tangent[k] * ri[1]);
        }
    }
}

/// `q + h v` into `q`: in the plane a body's angle is a coordinate, so its
/// rotation is integrated on its manifold by adding.
pub(super) fn positions(q: &mut [f64], v: &[f64], h: f64) {
    for (x, dx) in q.iter_mut().zip(v) {
        *x += h * dx;
    }
}
