//! Newton's equations of an island, `M v = f + J^T r`, as both the outer
//! iterations and the finish evaluate them: the product by `M` from its
//! stored entries and the equations' residual, in their own module so
//! that neither solver imports the other for them.

use sprs::CsMat;

use super::VelocityProblem;

/// `M` as the solvers multiply by it: its stored entries (`places` says
/// which are below the diagonal with a mirror, and are skipped in favour
/// of it), or, on a small island factored dense, its lower triangle by
/// columns (`(row, col)` at `col n + row`), multiplied down the columns:
/// contiguous, where the stored entries of a tree's nearly full `M` are
/// a scatter and a test each.
#[derive(Clone, Copy)]
pub(super) struct MassView<'a> {
    pub mass: &'a CsMat<f64>,
    pub places: &'a [usize],
    pub dense: Option<&'a [f64]>,
}

impl MassView<'_> {
    /// `y = M x`.
    pub fn product(&self, x: &[f64], y: &mut [f64]) {
        match self.dense {
            Some(lower) => lower_product(lower, x, y),
            None => symmetric_product(self.mass, self.places, x, y),
        }
    }
}

/// `y = M x` from `M`'s lower triangle by columns (`x`'s length `n`).
fn lower_product(lower: &[f64], x: &[f64], y: &mut [f64]) {
    let n = x.len();
    y.fill(0.0);
    if n == 0 {
        return;
    }
    for (c, column) in lower.chunks_exact(n).enumerate().take(n) {
        // The column below the diagonal, and (by symmetry) the row.
        let (xc, below) = (x[c], &column[c + 1..]);
        let mut row = column[c] * xc;
        for ((yr, m), xr) in y[c + 1..].iter_mut().zip(below).zip(&x[c + 1..]) {
            *yr += m * xc;
            row += m * xr;
        }
        y[c] += row;
    }
}

/// `|D (M v - f - J^T r)| / max(|D f|, |D M v|, |D J^T r|)` (`D` the
/// inverse of `M`'s diagonal; `mv`, `jr` scratch of `v`'s length; `r` the
/// contacts' impulses, then the bounded rows' if it holds them): Siconos'
/// measure of a global answer's dynamics, in velocities so that a light
/// body beside a heavy one counts as much.
pub(super) fn dynamics_residual(
    problem: &VelocityProblem,
    mass: &MassView,
    diagonal: &[f64],
    v: &[f64],
    r: &[f64],
    mv: &mut [f64],
    jr: &mut [f64],
) -> f64 {
    mass.product(v, mv);
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
fn symmetric_product(mass: &CsMat<f64>, places: &[usize], x: &[f64], y: &mut [f64]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric `M` stored with both triangles (places skip the lower
    /// mirrors) and the same `M`'s lower triangle by columns give the
    /// same product, to round-off, against the product by hand.
    #[test]
    fn the_product_down_the_lower_columns_is_the_stored_entries_one() {
        let m = [[4.0, 1.0, -0.5], [1.0, 3.0, 0.25], [-0.5, 0.25, 2.0]];
        let n = 3;
        let mut triplets = sprs::TriMat::new((n, n));
        for (r, row) in m.iter().enumerate() {
            for (c, &value) in row.iter().enumerate() {
                triplets.add_triplet(r, c, value);
            }
        }
        let mass: CsMat<f64> = triplets.to_csc();
        let places: Vec<usize> = mass
            .iter()
            .map(|(_, (r, c))| if r > c { usize::MAX } else { 0 })
            .collect();
        let mut lower = vec![f64::NAN; n * n];
        for c in 0..n {
            for r in c..n {
                lower[c * n + r] = m[r][c];
            }
        }
        let x = [0.3, -1.1, 2.0];
        let by_hand: Vec<f64> = (0..n)
            .map(|r| (0..n).map(|c| m[r][c] * x[c]).sum())
            .collect();
        for dense in [None, Some(lower.as_slice())] {
            let view = MassView {
                mass: &mass,
                places: &places,
                dense,
            };
            let mut y = [7.0; 3];
            view.product(&x, &mut y);
            for (a, b) in y.iter().zip(&by_hand) {
                assert!((a - b).abs() < 1e-15, "{y:?} against {by_hand:?}");
            }
        }
    }
}
