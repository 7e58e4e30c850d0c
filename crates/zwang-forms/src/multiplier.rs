//! The multiplier form: the KKT system by block elimination.

use crate::rows::{
    breakdown, column_ref, contact_set_mismatch, dot, finish, free_acceleration, rank_tol,
    too_large, ClosedRows,
};
use crate::Form;
use faer::{Mat, Side};
use zwang_instant::Instant;
use zwang_qp::{Backend, Solution};

/// The d'Alembert-Lagrange multiplier form: solves
///
/// ```text
/// [M  A^T] [ a     ]   [Q]
/// [A  0  ] [-lambda] = [b]
/// ```
///
/// by eliminating `a`: `S lambda = b - A M^-1 Q` with the Schur complement
/// `S = A M^-1 A^T`, then `a = M^-1 (Q + A^T lambda)`. `S` is built densely
/// (`m` solves with the factored `M`, `m x m` entries), scaled to unit
/// diagonal (Jacobi: rows in different units would square their scale
/// ratio into the spread of `S`) and solved through its
/// eigendecomposition, dropping eigenvalues below
/// `max(m, n) eps max(eig)`; one step of iterative refinement follows.
/// Redundant but consistent rows then get the minimum-norm multipliers,
/// and inconsistent rows the least-squares answer (least `|A a - b|_2` for
/// the rows as written, then least compulsion), reported `Infeasible` with
/// its residual.
///
/// The contact set is taken as given ([`Form::set_contact_set`]; without
/// one every contact is closed): closed contacts are solved as equalities,
/// open ones get multiplier 0. The answer is `Solved` only if no closed
/// contact pulls (`lambda_in >= 0` up to round-off) and every open contact
/// holds (`A_i a >= b_i` up to round-off), else `Infeasible` with that
/// answer filled in: choosing the contact set is the QP's job, checking it
/// is this form's. Friction entries are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MultiplierForm {
    contacts: Option<Vec<bool>>,
}

impl MultiplierForm {
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

impl Form for MultiplierForm {
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
        too_large(n * m.max(1), "M^-1 A^T")
            .or_else(|| too_large(m * m, "the Schur complement A M^-1 A^T"))
    }
}

impl Backend for MultiplierForm {
    fn name(&self) -> &'static str {
        "multiplier"
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
        let a0 = free_acceleration(instant);
        // W = M^-1 A^T, column by column.
        let mut w = Mat::<f64>::zeros(n, m);
        let mut col = vec![0.0; n];
        let mut mass = instant.mass_factor_or_nan();
        for i in 0..m {
            rows.row_into(i, &mut col);
            mass.solve_in_place(&mut col);
            for (k, &v) in col.iter().enumerate() {
                w[(k, i)] = v;
            }
        }
        // The lower triangle of S = A W (all that the eigensolver reads),
        // with Jacobi scaling D = diag(S)^-1/2: rows written in different
        // units would otherwise spread the eigenvalues of S by the square of
        // their scale ratio, and the rank cut would drop real rows.
        let mut d = vec![1.0; m];
        for (i, di) in d.iter_mut().enumerate() {
            let sii = rows.row_dot(i, column_ref(w.as_ref(), i));
            if sii > 0.0 {
                *di = sii.sqrt().recip();
            }
        }
        let mut s = Mat::<f64>::zeros(m, m);
        for j in 0..m {
            let wj = column_ref(w.as_ref(), j);
            for i in j..m {
                s[(i, j)] = d[i] * rows.row_dot(i, wj) * d[j];
            }
        }
        let Ok(evd) = s.self_adjoint_eigen(Side::Lower) else {
            return breakdown(instant, name, 0.0);
        };
        let (u, eig) = (evd.U(), evd.S().column_vector());
        let largest = (0..m).fold(0.0f64, |l, k| l.max(eig[k].abs()));
        let tol = rank_tol(m, n, largest);
        let kept: Vec<usize> = (0..m).filter(|&k| eig[k] > tol).collect();
        // An orthonormal basis Z of ker S = D ker(D S D) = ker A^T. The
        // scaled pseudo-inverse D (D S D)^+ D is S^+ only on full rank; with
        // fewer independent rows than rows, projecting the residual onto
        // range S (least squares for the rows as written, not as scaled)
        // and the multipliers out of ker S (minimum norm) gives S^+ back.
        let dropped: Vec<usize> = (0..m).filter(|&k| eig[k] <= tol).collect();
        let z = Mat::from_fn(m, dropped.len(), |i, k| d[i] * u[(i, dropped[k])])
            .qr()
            .compute_thin_Q();
        let project_out = |v: &mut [f64]| {
            for k in 0..z.ncols() {
                let zk = column_ref(z.as_ref(), k);
                let c = dot(zk, v);
                for (x, &y) in v.iter_mut().zip(zk) {
                    *x -= c * y;
                }
            }
        };
        // lambda = S^+ (b - A a) = D (D S D)^+ D r on range S, then
        // a = M^-1 (Q + A^T lambda) = a + W lambda; twice, the second pass
        // refining with the residual of the first.
        let mut a = a0;
        let mut lambda = vec![0.0; m];
        for _ in 0..2 {
            let mut r = rows.residual(&a);
            project_out(&mut r);
            let dr: Vec<f64> = r.iter().zip(&d).map(|(x, y)| x * y).collect();
            let mut step = vec![0.0; m];
            for &k in &kept {
                let uk = column_ref(u, k);
                let coef = dot(uk, &dr) / eig[k];
                for (l, &x) in step.iter_mut().zip(uk) {
                    *l += coef * x;
                }
            }
            for (l, di) in step.iter_mut().zip(&d) {
                *l *= di;
            }
            project_out(&mut step);
            for (j, &l) in step.iter().enumerate() {
                lambda[j] += l;
                for (ak, &x) in a.iter_mut().zip(column_ref(w.as_ref(), j)) {
                    *ak += l * x;
                }
            }
        }
        finish(instant, &rows, name, a, lambda)
    }
}
