//! The Udwadia-Kalaba explicit form (Liu Caishan 2016, eq 29; Udwadia & Kalaba 1992).

use crate::mass_root::InverseMassRoot;
use crate::rows::{
    breakdown, column_ref, contact_set_mismatch, dot, finish, free_acceleration, rank_tol,
    too_large, ClosedRows,
};
use crate::Form;
use faer::Mat;
use zwang_instant::Instant;
use zwang_qp::{Backend, Solution};

/// The Udwadia-Kalaba form
///
/// ```text
/// a = M^-1 Q + M^-1/2 (A M^-1/2)^+ (b - A M^-1 Q)
/// ```
///
/// with `F = P^T L^-T` (`P M P^T = L L^T`, a sparse Cholesky) standing for
/// `M^-1/2` (any `F F^T = M^-1` gives the same `a`). The pseudo-inverse of
/// `B = A F` comes from a thin SVD of the dense `n x m` matrix `B^T`, its
/// rows first scaled to unit length (which leaves the solutions of
/// `B y = r` alone) and singular values below `max(m, n) eps max(sigma)`
/// dropped; one step of iterative refinement follows. Working with `B`
/// rather than `A M^-1 A^T = B B^T` keeps the conditioning at `cond(B)`,
/// not its square: this is where the form and
/// [`MultiplierForm`](crate::MultiplierForm) part ways numerically.
///
/// Inconsistent rows give the least-squares answer: `|A a - b|_2` minimal
/// (for the rows as written: scaling a row reweights it), and among those
/// accelerations the least compulsion; status `Infeasible`. The multipliers
/// are the minimum-norm ones, `lambda = (B B^T)^+ (b - A M^-1 Q)`, computed
/// as `(B^T)^+ y` from the same SVD. The contact set is taken as given, as
/// in the multiplier form: closed contacts are equalities, open ones get
/// multiplier 0, and the answer is `Solved` only if no closed contact pulls
/// and no open contact is violated. Friction entries are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UdwadiaKalabaForm {
    contacts: Option<Vec<bool>>,
}

impl UdwadiaKalabaForm {
    /// The form without a contact set (every contact closed); it keeps
    /// nothing between instants but the contact set.
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

impl Form for UdwadiaKalabaForm {
    fn set_contact_set(&mut self, active: Option<Vec<bool>>) {
        self.contacts = active;
    }

    fn contact_set(&self) -> Option<&[bool]> {
        self.contacts.as_deref()
    }

    fn not_applicable_reason(&self, instant: &Instant) -> Option<String> {
        if let Some(reason) = contact_set_mismatch(instant, self.contact_set()) {
            return Some(reason);
        }
        let (n, m) = (
            instant.dim(),
            ClosedRows::new(instant, self.contact_set()).len(),
        );
        too_large(n * m.max(1), "A M^-1/2")
    }
}

impl Backend for UdwadiaKalabaForm {
    fn name(&self) -> &'static str {
        "udwadia_kalaba"
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
            return finish(instant, &rows, name, free_acceleration(instant), Vec::new());
        }
        let Some(mut root) = InverseMassRoot::new(instant.mass()) else {
            return breakdown(instant, name, 0.0);
        };
        // B^T = F^T A^T, column i = F^T A_i^T, each column scaled to unit
        // length (D B, D = diag(1 / |B_i|)): rows written in different units
        // would otherwise spread the singular values by their scale ratio.
        // `D A a = D b` has the same solutions as `A a = b`, so for
        // consistent rows the least-norm `F^-1 (a - a0)` is the same.
        let mut bt = Mat::<f64>::zeros(n, m);
        let mut d = vec![1.0; m];
        let mut col = vec![0.0; n];
        for i in 0..m {
            rows.row_into(i, &mut col);
            root.apply_transpose(&mut col);
            let norm = dot(&col, &col).sqrt();
            if norm > 0.0 {
                d[i] = norm.recip();
            }
            for (k, &v) in col.iter().enumerate() {
                bt[(k, i)] = d[i] * v;
            }
        }
        let Ok(svd) = bt.thin_svd() else {
            return breakdown(instant, name, 0.0);
        };
        // D B = V S U^T: (D B)^+ = U S^+ V^T.
        let (u, v, sigma) = (svd.U(), svd.V(), svd.S().column_vector());
        let tol = rank_tol(m, n, sigma[0]);
        let kept: Vec<usize> = (0..n.min(m)).filter(|&k| sigma[k] > tol).collect();
        // With fewer independent rows than rows, project residuals and
        // multipliers onto range B = D^-1 span(V_kept), orthogonally: the
        // least-squares answer is for the rows as written (not as scaled),
        // and the multipliers are the minimum-norm ones.
        let range = (kept.len() < m).then(|| {
            Mat::from_fn(m, kept.len(), |i, k| v[(i, kept[k])] / d[i])
                .qr()
                .compute_thin_Q()
        });
        let onto_range = |x: &mut [f64]| {
            let Some(q) = &range else { return };
            let c: Vec<f64> = (0..q.ncols())
                .map(|k| dot(column_ref(q.as_ref(), k), x))
                .collect();
            x.fill(0.0);
            for (k, ck) in c.iter().enumerate() {
                for (xi, &qk) in x.iter_mut().zip(column_ref(q.as_ref(), k)) {
                    *xi += ck * qk;
                }
            }
        };
        // a = a0 + F y with y = B^+ (b - A a0) = (D B)^+ D (b - A a0) on
        // range B; twice, the second pass refining with the residual of the
        // first.
        let mut a = free_acceleration(instant);
        let mut y = vec![0.0; n];
        for _ in 0..2 {
            let mut r = rows.residual(&a);
            onto_range(&mut r);
            let mut step = vec![0.0; n];
            for &k in &kept {
                let vk = column_ref(v, k);
                let c = vk
                    .iter()
                    .zip(&r)
                    .zip(&d)
                    .map(|((x, y), z)| x * y * z)
                    .sum::<f64>()
                    / sigma[k];
                for (x, &uk) in step.iter_mut().zip(column_ref(u, k)) {
                    *x += c * uk;
                }
            }
            for (yi, x) in y.iter_mut().zip(&step) {
                *yi += x;
            }
            root.apply(&mut step);
            for (ai, x) in a.iter_mut().zip(&step) {
                *ai += x;
            }
        }
        // The constraint force is M a - Q = M F y = A^T lambda, that is
        // B^T lambda = y (as F^T M F = I): lambda = D ((D B)^T)^+ y, on
        // range B, which is (B B^T)^+ (b - A a0) at the conditioning of
        // D B, not of B B^T.
        let mut lambda = vec![0.0; m];
        for &k in &kept {
            let c = dot(column_ref(u, k), &y) / sigma[k];
            for ((l, &vk), di) in lambda.iter_mut().zip(column_ref(v, k)).zip(&d) {
                *l += c * vk * di;
            }
        }
        onto_range(&mut lambda);
        finish(instant, &rows, name, a, lambda)
    }
}
