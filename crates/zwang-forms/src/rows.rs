//! What the three forms share: the rows a contact set closes, the free
//! motion, and the verdict on an answer.

use crate::FEASIBILITY_TOL;
use zwang_instant::{Instant, Rows};
use zwang_qp::{Solution, Status};

/// The rows a form solves as equalities: the equality rows, then the
/// inequality rows its contact set closes (`A_i a = b_i`), in their order.
/// The contact rows it leaves open get multiplier 0 and are only checked
/// (`A_i a >= b_i`). Without a contact set, or with one of the wrong length,
/// every contact is closed (the latter is [`ClosedRows::mismatch`]).
pub(crate) struct ClosedRows<'a> {
    eq: &'a Rows,
    ineq: &'a Rows,
    /// Indices (into the inequality rows) of the closed contacts.
    closed: Vec<usize>,
    /// Indices of the open contacts.
    open: Vec<usize>,
    /// A contact set of the right length was given.
    given: bool,
    /// A contact set of the wrong length was given (and ignored).
    mismatch: bool,
}

impl<'a> ClosedRows<'a> {
    pub(crate) fn new(instant: &'a Instant, contacts: Option<&[bool]>) -> Self {
        let ineq = instant.inequalities();
        let valid = contacts.filter(|c| c.len() == ineq.len());
        let (closed, open) = match valid {
            Some(c) => (0..ineq.len()).partition(|&i| c[i]),
            None => ((0..ineq.len()).collect(), Vec::new()),
        };
        ClosedRows {
            eq: instant.equalities(),
            ineq,
            closed,
            open,
            given: valid.is_some(),
            mismatch: contacts.is_some() && valid.is_none(),
        }
    }

    /// Number of rows solved as equalities: `m_eq` plus the closed contacts.
    pub(crate) fn len(&self) -> usize {
        self.eq.len() + self.closed.len()
    }

    /// Number of equality rows (they come first).
    pub(crate) fn len_eq(&self) -> usize {
        self.eq.len()
    }

    /// Whether a contact set of the right length was given.
    pub(crate) fn given(&self) -> bool {
        self.given
    }

    /// Whether a contact set of the wrong length was given: the form then
    /// closes every contact and never reports `Solved`.
    pub(crate) fn mismatch(&self) -> bool {
        self.mismatch
    }

    fn locate(&self, i: usize) -> (&'a Rows, usize) {
        if i < self.eq.len() {
            (self.eq, i)
        } else {
            (self.ineq, self.closed[i - self.eq.len()])
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

    /// `b - A x`.
    pub(crate) fn residual(&self, x: &[f64]) -> Vec<f64> {
        (0..self.len())
            .map(|i| self.rhs(i) - self.row_dot(i, x))
            .collect()
    }

    /// Largest `|A_i a - b_i| / max(|A_i| max(|a|, |M^-1 Q|), |b_i|)` over
    /// the closed rows: the scaling of [`zwang_qp::Residuals`], two-sided on
    /// the closed contacts too.
    pub(crate) fn violation(&self, instant: &Instant, a: &[f64]) -> f64 {
        let a_inf = inf_norm(a).max(inf_norm(&free_acceleration(instant)));
        (0..self.len())
            .map(|i| {
                let (rows, k) = self.locate(i);
                scaled_slack(rows, k, a, a_inf).abs()
            })
            .fold(0.0, f64::max)
    }

    /// Largest `max(0, b_i - A_i a)`, scaled as in
    /// [`violation`](Self::violation), over the open contacts: how far the
    /// answer goes through a contact the set leaves open.
    pub(crate) fn open_violation(&self, instant: &Instant, a: &[f64]) -> f64 {
        if self.open.is_empty() {
            return 0.0;
        }
        let a_inf = inf_norm(a).max(inf_norm(&free_acceleration(instant)));
        self.open
            .iter()
            .map(|&k| -scaled_slack(self.ineq, k, a, a_inf))
            .fold(0.0, f64::max)
    }

    /// Whether some closed contact pulls: `-lambda_i |A_i|` beyond
    /// round-off of the force scale `max(|M a|, |Q|)` (both `|.|_inf`).
    fn some_contact_pulls(&self, force_scale: f64, lambda: &[f64]) -> bool {
        (self.len_eq()..self.len()).any(|i| {
            let (rows, k) = self.locate(i);
            -lambda[i] * row_inf_norm(rows, k) > FEASIBILITY_TOL * force_scale
        })
    }

    /// One multiplier per inequality row from those of the closed contacts
    /// (`lambda_closed`, in their order): 0 on the open ones.
    fn scatter_in(&self, lambda_closed: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.ineq.len()];
        for (&k, &l) in self.closed.iter().zip(lambda_closed) {
            out[k] = l;
        }
        out
    }
}

/// Largest `|A_kj|` of row `k`.
fn row_inf_norm(rows: &Rows, k: usize) -> f64 {
    rows.matrix()
        .outer_view(k)
        .map(|r| r.data().iter().fold(0.0f64, |m, v| m.max(v.abs())))
        .unwrap_or(0.0)
}

/// `(A_k a - b_k) / max(|A_k| a_inf, |b_k|)`.
fn scaled_slack(rows: &Rows, k: usize, a: &[f64], a_inf: f64) -> f64 {
    let b = rows.rhs()[k];
    let scale = (row_inf_norm(rows, k) * a_inf)
        .max(b.abs())
        .max(f64::MIN_POSITIVE);
    (rows.row_dot(k, a) - b) / scale
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
/// the rows of `rows`): `Infeasible` when the closed rows are violated
/// beyond round-off (inconsistent rows, least-squares answer), when a
/// closed contact pulls, or when the answer goes through an open contact
/// (the contact set is not the motion); `Solved` otherwise, except with a
/// contact set of the wrong length (`NotConverged`: not certified).
pub(crate) fn finish(
    instant: &Instant,
    rows: &ClosedRows<'_>,
    backend: &'static str,
    acceleration: Vec<f64>,
    mut lambda: Vec<f64>,
) -> Solution {
    let mut ma = vec![0.0; instant.dim()];
    instant.mass_mul_into(&acceleration, &mut ma);
    let force_scale = inf_norm(&ma).max(inf_norm(instant.force()));
    let status = if rows.violation(instant, &acceleration) > FEASIBILITY_TOL
        || rows.some_contact_pulls(force_scale, &lambda)
        || rows.open_violation(instant, &acceleration) > FEASIBILITY_TOL
    {
        Status::Infeasible
    } else if rows.mismatch() {
        Status::NotConverged
    } else {
        Status::Solved
    };
    let lambda_in = rows.scatter_in(&lambda.split_off(rows.len_eq()));
    Solution::assemble(instant, status, backend, 1, acceleration, lambda, lambda_in)
}

/// The answer when the linear algebra failed: the free acceleration,
/// multipliers `fill` (0, or NaN for the null-space form),
/// [`Status::NumericalError`].
pub(crate) fn breakdown(instant: &Instant, backend: &'static str, fill: f64) -> Solution {
    let mut s = Solution::assemble(
        instant,
        Status::NumericalError,
        backend,
        1,
        free_acceleration(instant),
        vec![0.0; instant.equalities().len()],
        vec![0.0; instant.inequalities().len()],
    );
    s.multipliers_eq.fill(fill);
    s.multipliers_in.fill(fill);
    s
}

/// Why a form does not apply with the contact set `contacts`, if its
/// length is not the number of inequality rows.
pub(crate) fn contact_set_mismatch(instant: &Instant, contacts: Option<&[bool]>) -> Option<String> {
    let m_in = instant.inequalities().len();
    contacts.filter(|c| c.len() != m_in).map(|c| {
        format!(
            "the contact set has {} flag(s) for {m_in} inequality row(s); it is ignored \
             (every contact closed) and the answer is not certified",
            c.len()
        )
    })
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
