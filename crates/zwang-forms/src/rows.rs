//! What the three forms share: the rows with every contact closed, the free
//! motion, and the verdict on an answer.

use crate::FEASIBILITY_TOL;
use zwang_instant::{Instant, Rows};
use zwang_qp::{Solution, Status};

/// The equality rows followed by the inequality rows, every contact
/// treated as closed (`A_in a = b_in`): the variational forms take the
/// contact set as given.
pub(crate) struct ClosedRows<'a> {
    eq: &'a Rows,
    ineq: &'a Rows,
}

impl<'a> ClosedRows<'a> {
    pub(crate) fn new(instant: &'a Instant) -> Self {
        ClosedRows {
            eq: instant.equalities(),
            ineq: instant.inequalities(),
        }
    }

    /// Number of rows `m = m_eq + m_in`.
    pub(crate) fn len(&self) -> usize {
        self.eq.len() + self.ineq.len()
    }

    /// Number of equality rows (they come first).
    pub(crate) fn len_eq(&self) -> usize {
        self.eq.len()
    }

    fn locate(&self, i: usize) -> (&'a Rows, usize) {
        if i < self.eq.len() {
            (self.eq, i)
        } else {
            (self.ineq, i - self.eq.len())
        }
    }

    /// `A_i x`.
    pub(crate) fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let (rows, k) = self.locate(i);
        rows.row_dot(k, x)
    }

    /// `b_i`.
    pub(crate) fn rhs(&self, i: usize) -> f64 {
        let (rows, k) = self.locate(i);
        rows.rhs()[k]
    }

    /// Writes `A_i^T` into `out` (length `n`, overwritten).
    pub(crate) fn row_into(&self, i: usize, out: &mut [f64]) {
        out.fill(0.0);
        let (rows, k) = self.locate(i);
        if let Some(row) = rows.matrix().outer_view(k) {
            for (j, &v) in row.iter() {
                out[j] += v;
            }
        }
    }

    /// Largest `|A_ij|` of row `i`.
    fn row_inf_norm(&self, i: usize) -> f64 {
        let (rows, k) = self.locate(i);
        rows.matrix()
            .outer_view(k)
            .map(|r| r.data().iter().fold(0.0f64, |m, v| m.max(v.abs())))
            .unwrap_or(0.0)
    }

    /// `b - A x`.
    pub(crate) fn residual(&self, x: &[f64]) -> Vec<f64> {
        (0..self.len())
            .map(|i| self.rhs(i) - self.row_dot(i, x))
            .collect()
    }

    /// Largest `|A_i a - b_i| / max(|A_i| max(|a|, |M^-1 Q|), |b_i|)`: the
    /// scaling of [`zwang_qp::Residuals`], but two-sided on the contact rows
    /// too.
    pub(crate) fn violation(&self, instant: &Instant, a: &[f64]) -> f64 {
        let a_inf = inf_norm(a).max(inf_norm(&free_acceleration(instant)));
        (0..self.len())
            .map(|i| {
                let scale = (self.row_inf_norm(i) * a_inf)
                    .max(self.rhs(i).abs())
                    .max(f64::MIN_POSITIVE);
                (self.row_dot(i, a) - self.rhs(i)).abs() / scale
            })
            .fold(0.0, f64::max)
    }

    /// Whether some contact pulls: `-lambda_i |A_i|` beyond round-off of
    /// the force scale `max(|M a|, |Q|)` (both `|.|_inf`).
    fn some_contact_pulls(&self, force_scale: f64, lambda: &[f64]) -> bool {
        (self.len_eq()..self.len())
            .any(|i| -lambda[i] * self.row_inf_norm(i) > FEASIBILITY_TOL * force_scale)
    }
}

/// Largest absolute entry.
pub(crate) fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// `M^-1 Q`: the acceleration without constraints.
pub(crate) fn free_acceleration(instant: &Instant) -> Vec<f64> {
    let mut a = instant.force().to_vec();
    instant.mass_factor_or_nan().solve_in_place(&mut a);
    a
}

/// The answer of the two forms that give multipliers (`lambda` stacked as
/// the rows of [`ClosedRows`]): `Infeasible` when the rows are violated
/// beyond round-off (inconsistent rows, least-squares answer) or when a
/// closed contact pulls (the all-closed answer is not the motion), `Solved`
/// otherwise.
pub(crate) fn finish(
    instant: &Instant,
    backend: &'static str,
    acceleration: Vec<f64>,
    mut lambda: Vec<f64>,
) -> Solution {
    let rows = ClosedRows::new(instant);
    let mut ma = vec![0.0; instant.dim()];
    instant.mass_mul_into(&acceleration, &mut ma);
    let force_scale = inf_norm(&ma).max(inf_norm(instant.force()));
    let status = if rows.violation(instant, &acceleration) > FEASIBILITY_TOL
        || rows.some_contact_pulls(force_scale, &lambda)
    {
        Status::Infeasible
    } else {
        Status::Solved
    };
    let lambda_in = lambda.split_off(rows.len_eq());
    Solution::assemble(instant, status, backend, 1, acceleration, lambda, lambda_in)
}

/// The answer when the linear algebra failed: the free acceleration, zero
/// multipliers, [`Status::NumericalError`].
pub(crate) fn breakdown(instant: &Instant, backend: &'static str) -> Solution {
    let rows = ClosedRows::new(instant);
    Solution::assemble(
        instant,
        Status::NumericalError,
        backend,
        1,
        free_acceleration(instant),
        vec![0.0; rows.len_eq()],
        vec![0.0; rows.len() - rows.len_eq()],
    )
}

/// Rank tolerance for singular values (or eigenvalues) of a matrix with
/// `m x n` data whose largest one is `largest`: the usual
/// `max(m, n) eps |.|`.
pub(crate) fn rank_tol(m: usize, n: usize, largest: f64) -> f64 {
    m.max(n) as f64 * f64::EPSILON * largest
}

/// Why a form that builds a dense matrix of `entries` entries does not
/// apply, if it is too large.
pub(crate) fn too_large(entries: usize, what: &str) -> Option<String> {
    (entries > crate::MAX_DENSE_ENTRIES).then(|| {
        format!(
            "{what} would be dense with {entries} entries (more than {}); this reference form does not scale that far",
            crate::MAX_DENSE_ENTRIES
        )
    })
}

/// Column `j` of a column-major view, as a slice.
pub(crate) fn column_ref(mat: faer::MatRef<'_, f64>, j: usize) -> &[f64] {
    mat.col(j)
        .try_as_col_major()
        .expect("faer matrices are column-major")
        .as_slice()
}

/// `x . y`.
pub(crate) fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}
