//! Newton's equations of an island, `M v = f + J^T r`, as both the outer
//! iterations and the finish evaluate them: the product by `M` from its
//! stored entries and the equations' residual, in their own module so
//! that neither solver imports the other for them.

use sprs::CsMat;

use super::VelocityProblem;

/// `|D (M v - f - J^T r)| / max(|D f|, |D M v|, |D J^T r|)` (`D` the
/// inverse of `M`'s diagonal, `places` as [`symmetric_product`] takes
/// them; `mv`, `jr` scratch of `v`'s length; `r` the contacts' impulses,
/// then the bounded rows' if it holds them): Siconos' measure of a global
/// answer's dynamics, in velocities so that a light body beside a heavy
/// one counts as much.
pub(super) fn dynamics_residual(
    problem: &VelocityProblem,
    places: &[usize],
    diagonal: &[f64],
    v: &[f64],
    r: &[f64],
    mv: &mut [f64],
    jr: &mut [f64],
) -> f64 {
    symmetric_product(&problem.mass, places, v, mv);
    residual_of_product(problem, diagonal, mv, r, jr)
}

/// [`dynamics_residual`] given `mv = M v`.
pub(super) fn residual_of_product(
    problem: &VelocityProblem,
    diagonal: &[f64],
    mv: &[f64],
    r: &[f64],
    jr: &mut [f64],
) -> f64 {
    let norm = |x: &[f64]| {
        x.iter()
            .zip(diagonal)
            .map(|(a, d)| (a / d).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    jr.fill(0.0);
    problem.rows.add_transpose(r, jr);
    let dk = problem.rows.dimension * problem.mu.len();
    if let Some(bounded) = r.get(dk..) {
        problem.bounded.add_transpose(bounded, jr);
    }
    let scale = norm(&problem.force).max(norm(mv)).max(norm(jr));
    let residual = mv
        .iter()
        .zip(&problem.force)
        .zip(jr.iter())
        .zip(diagonal)
        .map(|(((m, f), j), d)| ((m - f - j) / d).powi(2))
        .sum::<f64>()
        .sqrt();
    if scale > 0.0 {
        residual / scale
    } else {
        residual
    }
}

/// `y = M x` from `M`'s stored entries (`places` says which are below the
/// diagonal with a mirror, and are skipped in favour of it).
pub(super) fn symmetric_product(mass: &CsMat<f64>, places: &[usize], x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    // The product is symmetric in the entry's row and column: whether
    // the storage is by rows or by columns does not matter.
    let (indptr, indices, data) = (mass.indptr(), mass.indices(), mass.data());
    let indptr = indptr.raw_storage();
    for outer in 0..indptr.len().saturating_sub(1) {
        let (xo, mut yo) = (x[outer], 0.0);
        for k in indptr[outer]..indptr[outer + 1] {
            if places[k] == usize::MAX {
                continue;
            }
            let (inner, value) = (indices[k], data[k]);
            yo += value * x[inner];
            if inner != outer {
                y[inner] += value * xo;
            }
        }
        y[outer] += yo;
    }
}
