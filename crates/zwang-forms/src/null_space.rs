//! The null-space (Maggi / Kane) form: embed the constraints, solve the
//! reduced equations.

use crate::rows::{
    breakdown, column_ref, contact_set_mismatch, dot, free_acceleration, inf_norm, rank_tol,
    too_large, ClosedRows,
};
use crate::{Form, FEASIBILITY_TOL};
use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use zwang_instant::Instant;
use zwang_qp::{Backend, Solution, Status};

/// The null-space form: with `N` an orthonormal basis of `ker A` and `a_p`
/// the minimum-norm least-squares solution of `A a = b`,
///
/// ```text
/// a = a_p + N z,   (N^T M N) z = N^T (Q - M a_p)
/// ```
///
/// Both come from one full SVD of the dense `n x m` matrix `A^T` (rank
/// cut at `max(m, n) eps max(sigma)`; `a_p` refined once), so this form is
/// dense in `n`: it holds `n x n` numbers and costs `O(n^3)`, fine for a
/// reference, not for a large system. The reduced mass `N^T M N` is dense
/// too, factored by Cholesky. A sparse null-space basis would need a
/// sparse rank-revealing QR of `A^T`, which faer does not offer.
///
/// **No multipliers come out**: embedding the constraints removes the
/// constraint forces (Liu Caishan 2016), so `multipliers_eq` and `multipliers_in`
/// have one entry per row, each `f64::NAN` ("the null-space form gives no
/// multipliers: NaN"; [`Form::gives_multipliers`] is `false`). The
/// stationarity residual is then the reduced gradient
/// `|N^T (M a - Q)| / max(|M a|, |Q|, |M a - Q|)` (infinity norms), the
/// feasibility residuals are the usual ones, and the complementarity
/// residual is 0 (open contacts carry no force by definition, closed ones
/// have no gap).
///
/// Redundant rows are harmless (they only lower the rank); inconsistent
/// rows give the same least-squares answer as
/// [`UdwadiaKalabaForm`](crate::UdwadiaKalabaForm), with status
/// `Infeasible`. With contact rows the form needs the contact set
/// ([`Form::set_contact_set`]): closed contacts are embedded as equalities
/// and open ones checked (`Infeasible` if the answer goes through one); it
/// cannot tell a pushing contact from a pulling one, having no multipliers,
/// so a `Solved` here certifies the open contacts only (the multiplier
/// forms check the closed ones). Without a contact set (or with one of the
/// wrong length) it does not apply; asked anyway, it returns the
/// all-contacts-closed answer with status `NotConverged` (it cannot
/// certify it); see [`Form::not_applicable_reason`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NullSpaceForm {
    contacts: Option<Vec<bool>>,
}

impl NullSpaceForm {
    /// The form without a contact set (it does not apply to contacts
    /// then); it keeps nothing between instants but the contact set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The form with the contact set `active` (one flag per inequality
    /// row, `true` = closed): see [`Form::set_contact_set`].
    pub fn with_contact_set(active: Vec<bool>) -> Self {
        Self {
            contacts: Some(active),
        }
    }
}

impl Form for NullSpaceForm {
    fn set_contact_set(&mut self, active: Option<Vec<bool>>) {
        self.contacts = active;
    }

    fn contact_set(&self) -> Option<&[bool]> {
        self.contacts.as_deref()
    }

    fn gives_multipliers(&self) -> bool {
        false
    }

    fn not_applicable_reason(&self, instant: &Instant) -> Option<String> {
        if let Some(reason) = contact_set_mismatch(instant, self.contact_set()) {
            return Some(reason);
        }
        let m_in = instant.inequalities().len();
        if m_in > 0 && self.contacts.is_none() {
            return Some(format!(
                "{m_in} contact row(s) and no contact set given: the null-space form gives no \
                 multipliers, so it cannot tell which contacts push; give it the contact set \
                 (the one the QP found) to compare"
            ));
        }
        let n = instant.dim();
        too_large(n * n, "the null-space basis")
    }
}

impl Backend for NullSpaceForm {
    fn name(&self) -> &'static str {
        "null_space"
    }

    fn applies(&self, instant: &Instant) -> bool {
        self.not_applicable_reason(instant).is_none()
    }

    fn solve_into(&mut self, instant: &Instant, out: &mut Solution) {
        *out = self.solve(instant);
    }

    fn solve(&mut self, instant: &Instant) -> Solution {
        let name = self.name();
        let rows = ClosedRows::new(instant, self.contacts.as_deref());
        let (n, m) = (instant.dim(), rows.len());
        if m == 0 {
            // Nothing to embed: Newton's `M a = Q`, and the full gradient
            // is the reduced one.
            return verdict(instant, &rows, name, free_acceleration(instant), None);
        }
        let (rank, basis, a_p) = {
            let mut at = Mat::<f64>::zeros(n, m);
            let mut col = vec![0.0; n];
            for i in 0..m {
                rows.row_into(i, &mut col);
                for (k, &v) in col.iter().enumerate() {
                    at[(k, i)] = v;
                }
            }
            // A^T = U S V^T: ker A is spanned by the columns of U past the
            // rank, and A^+ b = U S^+ V^T b, refined once with its own
            // residual (A^+ (b - A A^+ b) = 0: the refinement keeps the
            // least-squares meaning).
            let Ok(svd) = at.svd() else {
                return breakdown(instant, name, f64::NAN);
            };
            let (u, v, sigma) = (svd.U(), svd.V(), svd.S().column_vector());
            let tol = rank_tol(m, n, sigma[0]);
            let rank = (0..n.min(m)).filter(|&k| sigma[k] > tol).count();
            let mut a_p = vec![0.0; n];
            for _ in 0..2 {
                let r = rows.residual(&a_p);
                for k in 0..rank {
                    let c = dot(column_ref(v, k), &r) / sigma[k];
                    for (x, &uk) in a_p.iter_mut().zip(column_ref(u, k)) {
                        *x += c * uk;
                    }
                }
            }
            (rank, u.subcols(rank, n - rank).to_owned(), a_p)
        };
        let k = n - rank;
        // M N, column by column, then N^T M N and N^T (Q - M a_p).
        let mut mn = Mat::<f64>::zeros(n, k);
        let mut col = vec![0.0; n];
        for j in 0..k {
            instant.mass_mul_into(column_ref(basis.as_ref(), j), &mut col);
            for (i, &x) in col.iter().enumerate() {
                mn[(i, j)] = x;
            }
        }
        let reduced_mass = basis.transpose() * &mn;
        let mut rhs = instant.force().to_vec();
        let mut ma = vec![0.0; n];
        instant.mass_mul_into(&a_p, &mut ma);
        for (r, x) in rhs.iter_mut().zip(&ma) {
            *r -= x;
        }
        let mut z = project(&basis, &rhs);
        if k > 0 {
            let Ok(llt) = reduced_mass.llt(Side::Lower) else {
                return breakdown(instant, name, f64::NAN);
            };
            llt.solve_in_place(faer::MatMut::from_column_major_slice_mut(&mut z, k, 1));
        }
        let mut a = a_p;
        for (j, &zj) in z.iter().enumerate() {
            for (x, &nj) in a.iter_mut().zip(column_ref(basis.as_ref(), j)) {
                *x += zj * nj;
            }
        }
        verdict(instant, &rows, name, a, Some(&basis))
    }
}

/// The null-space answer `a`: `Infeasible` if the closed rows are violated
/// or an open contact is gone through, `NotConverged` if contacts were
/// closed without a (valid) contact set, `Solved` otherwise; multipliers
/// NaN, stationarity the reduced gradient on `basis` (the full gradient
/// without one).
fn verdict(
    instant: &Instant,
    rows: &ClosedRows<'_>,
    name: &'static str,
    a: Vec<f64>,
    basis: Option<&Mat<f64>>,
) -> Solution {
    let status = if rows.violation(instant, &a) > FEASIBILITY_TOL
        || rows.open_violation(instant, &a) > FEASIBILITY_TOL
    {
        Status::Infeasible
    } else if rows.mismatch() || (!instant.inequalities().is_empty() && !rows.given()) {
        Status::NotConverged
    } else {
        Status::Solved
    };
    // The residuals with zero multipliers (stationarity is replaced below,
    // complementarity is then 0), the multipliers NaN.
    let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
    let mut s = Solution::assemble(
        instant,
        status,
        name,
        1,
        a,
        vec![0.0; m_eq],
        vec![0.0; m_in],
    );
    s.multipliers_eq.fill(f64::NAN);
    s.multipliers_in.fill(f64::NAN);
    s.residuals.stationarity = match basis {
        Some(basis) => reduced_gradient(instant, basis, &s.acceleration),
        None => full_gradient(instant, &s.acceleration),
    };
    s
}

/// `N^T x`.
fn project(basis: &Mat<f64>, x: &[f64]) -> Vec<f64> {
    (0..basis.ncols())
        .map(|j| dot(column_ref(basis.as_ref(), j), x))
        .collect()
}

/// `|N^T (M a - Q)|_inf / max(|M a|, |Q|, |M a - Q|)`: stationarity on
/// the admissible accelerations, scaled like [`zwang_qp::Residuals`] (the
/// constraint force `M a - Q` stands in for `A^T lambda`).
fn reduced_gradient(instant: &Instant, basis: &Mat<f64>, a: &[f64]) -> f64 {
    let (constraint_force, scale) = constraint_force(instant, a);
    inf_norm(&project(basis, &constraint_force)) / scale
}

/// `|M a - Q|_inf / max(|M a|, |Q|)`: stationarity without rows to embed.
fn full_gradient(instant: &Instant, a: &[f64]) -> f64 {
    let (constraint_force, scale) = constraint_force(instant, a);
    inf_norm(&constraint_force) / scale
}

/// `M a - Q` and the scale `max(|M a|, |Q|, |M a - Q|)`.
fn constraint_force(instant: &Instant, a: &[f64]) -> (Vec<f64>, f64) {
    let mut ma = vec![0.0; instant.dim()];
    instant.mass_mul_into(a, &mut ma);
    let constraint_force: Vec<f64> = ma.iter().zip(instant.force()).map(|(x, q)| x - q).collect();
    let scale = inf_norm(&ma)
        .max(inf_norm(instant.force()))
        .max(inf_norm(&constraint_force))
        .max(f64::MIN_POSITIVE);
    (constraint_force, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zwang_instant::matrix_from_triplets;

    /// Without rows the reduced equations are `M a = Q`:
    /// M = [2 1; 1 2], Q = (3, 3) gives a = (1, 1).
    #[test]
    fn free_system_is_newton() {
        let mass = matrix_from_triplets(
            "mass",
            (2, 2),
            [(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)],
        )
        .unwrap();
        let instant = Instant::builder(mass, vec![3.0, 3.0]).build().unwrap();
        let s = NullSpaceForm::new().solve(&instant);
        assert_eq!(s.status, Status::Solved);
        for x in &s.acceleration {
            assert!((x - 1.0).abs() < 1e-15);
        }
        assert!(s.multipliers_eq.is_empty() && s.residuals.max() < 1e-15);
    }
}
