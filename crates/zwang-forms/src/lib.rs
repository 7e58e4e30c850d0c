//! The variational forms of Gauss's principle, as independent references
//! for the QP.
//!
//! For ideal constraints the minimum of Gauss's compulsion (the QP that
//! [`zwang_qp`] solves) and the classical equations of motion give the same
//! accelerations and the same constraint forces. This crate computes the
//! latter, each form on its own linear algebra (no QP code), so that a
//! harness can check the solvers against them and against each other. Use
//! it to compare and to diagnose, not in a time-stepping loop: the forms
//! build dense matrices of size `n x m` (or `n x n`) and allocate on every
//! call.
//!
//! | form | name | method | multipliers | contact rows |
//! |---|---|---|---|---|
//! | [`MultiplierForm`] | `multiplier` | KKT `[M A^T; A 0]` by the Schur complement `A M^-1 A^T`, eigendecomposition | minimum norm | the given contact set (default: all closed) |
//! | [`UdwadiaKalabaForm`] | `udwadia_kalaba` | `a = M^-1 Q + M^-1/2 (A M^-1/2)^+ (b - A M^-1 Q)`, SVD | minimum norm | the given contact set (default: all closed) |
//! | [`NullSpaceForm`] | `null_space` | `a = a_p + N z`, `N^T M N z = N^T (Q - M a_p)`, SVD of `A` | none: one `NaN` per row | the given contact set (none given: not applicable) |
//!
//! Each form implements [`zwang_qp::Backend`], so it returns the common
//! [`Solution`](zwang_qp::Solution) whose [`Status`](zwang_qp::Status) says
//! how it ended; bad cases are statuses, not panics:
//!
//! - redundant but consistent rows (a duplicated row, Bricard's mechanism)
//!   solve, with the minimum-norm multipliers;
//! - inconsistent rows give `Infeasible` with the least-squares answer
//!   (least `|A a - b|_2` for the rows as written, then least compulsion)
//!   and its residual; all three forms give the same one;
//! - rank decisions cut at `max(m, n) eps` times the largest singular value
//!   (or eigenvalue); the multiplier and Udwadia-Kalaba forms scale the
//!   rows to unit size first, so that rows written in different units do
//!   not pass for dependent ones; a step of iterative refinement brings
//!   the residuals to round-off (the tests check unit independence over
//!   row scales of `10^[-3, 3]` and `M`, `Q` times `1e-6`);
//! - the forms take the contact set as given, one flag per inequality row
//!   ([`Form::set_contact_set`], `true` = closed): the closed contacts are
//!   solved as equalities (`A_i a = b_i`), the open ones get multiplier 0
//!   and are checked. The answer is `Solved` only if no closed contact
//!   pulls (`lambda_i >= 0`) and no open contact is gone through
//!   (`A_i a >= b_i`), both up to [`FEASIBILITY_TOL`], `Infeasible`
//!   otherwise: the given set is then not the motion (the null-space form,
//!   without multipliers, checks the open contacts only). Choosing the contact
//!   set is the QP's job; a harness passes the set the QP found
//!   ([`contact_set_of`] reads it off a solution) and the forms check it
//!   independently (they call no QP code). Without a contact set every
//!   contact is closed (the multiplier forms) or the form does not apply
//!   (the null-space form, which has no multipliers to tell a pushing
//!   contact from a pulling one). A contact set of the wrong length is
//!   ignored (every contact closed), the form says so in
//!   [`Form::not_applicable_reason`], and `solve` never reports `Solved`
//!   with it;
//! - the null-space form gives no multipliers: its `multipliers_eq` and
//!   `multipliers_in` have one `f64::NAN` per row (so that indexing them
//!   never panics, and no number is mistaken for a force); ask
//!   [`Form::gives_multipliers`].
//!
//! Friction entries of the instant are ignored here: the Coulomb-coupled
//! variational form is `zwang-coulomb`'s. Ask [`Form::not_applicable_reason`]
//! before solving to list a form as not applicable with a reason.
//!
//! ```
//! use zwang_forms::{Form, MultiplierForm, NullSpaceForm};
//! use zwang_instant::{matrix_from_triplets, Instant};
//! use zwang_qp::Backend;
//! // A unit mass on the line y = x under gravity: a = -g/2 (1, 1), and the
//! // line pushes with lambda = g/2 along its normal (-1, 1).
//! let g = 9.81;
//! let mass = matrix_from_triplets("mass", (2, 2), [(0, 0, 1.0), (1, 1, 1.0)]).unwrap();
//! let row = matrix_from_triplets("equalities.A", (1, 2), [(0, 0, -1.0), (0, 1, 1.0)]).unwrap();
//! let instant = Instant::builder(mass, vec![0.0, -g]).equalities(row, vec![0.0]).build().unwrap();
//! let s = MultiplierForm::new().solve(&instant);
//! assert!(s.is_solved());
//! assert!((s.acceleration[1] + g / 2.0).abs() < 1e-12);
//! assert!((s.multipliers_eq[0] - g / 2.0).abs() < 1e-12);
//! assert!(NullSpaceForm::new().not_applicable_reason(&instant).is_none());
//! // The null-space form gives no multipliers: NaN, one per row.
//! assert!(NullSpaceForm::new().solve(&instant).multipliers_eq[0].is_nan());
//!
//! // The same mass on a floor (a_y >= 0) pulled up by 5: the contact opens.
//! // With the contact set [open] every form gives a = M^-1 Q = (0, 5) and
//! // lambda_in = 0; with [closed] the contact would have to pull.
//! let floor = matrix_from_triplets("inequalities.A", (1, 2), [(0, 1, 1.0)]).unwrap();
//! let mass = matrix_from_triplets("mass", (2, 2), [(0, 0, 1.0), (1, 1, 1.0)]).unwrap();
//! let lifted = Instant::builder(mass, vec![0.0, 5.0]).inequalities(floor, vec![0.0]).build().unwrap();
//! let s = MultiplierForm::with_contact_set(vec![false]).solve(&lifted);
//! assert!(s.is_solved() && s.acceleration == [0.0, 5.0] && s.multipliers_in == [0.0]);
//! let mut form = MultiplierForm::new();
//! form.set_contact_set(Some(vec![true]));
//! assert!(!form.solve(&lifted).is_solved());
//! ```

mod mass_root;
mod multiplier;
mod null_space;
mod rows;
mod udwadia_kalaba;

pub use multiplier::MultiplierForm;
pub use null_space::NullSpaceForm;
pub use udwadia_kalaba::UdwadiaKalabaForm;

use zwang_instant::Instant;
use zwang_qp::Backend;

/// Relative size above which a constraint violation, or a pulling contact
/// force, is real rather than round-off. Violations are scaled as in
/// [`zwang_qp::Residuals`] (`|A_i a - b_i| / max(|A_i| |a|, |b_i|)`), a
/// contact force `lambda_i A_i` by `max(|M a|, |Q|)`. Round-off sits
/// several orders below on any reasonably conditioned instant.
pub const FEASIBILITY_TOL: f64 = 1e-9;

/// The largest dense matrix (in entries, 8 bytes each) a form builds before
/// it calls itself not applicable: `2^24`, 128 MiB.
pub const MAX_DENSE_ENTRIES: usize = 1 << 24;

/// A variational form: a [`Backend`] that takes a contact set as given and
/// says why it does not apply ([`Backend::applies`] is
/// `not_applicable_reason(..).is_none()`).
pub trait Form: Backend {
    /// Sets the contact set: one flag per inequality row of the instants
    /// to come, `true` for a closed contact (solved as an equality), `false`
    /// for an open one (multiplier 0, checked: `A_i a >= b_i`). `None`
    /// (the default) closes every contact in the multiplier forms and makes
    /// the null-space form not applicable to contacts. A set whose length
    /// is not the instant's number of inequality rows is ignored (every
    /// contact closed) and reported by
    /// [`not_applicable_reason`](Self::not_applicable_reason); `solve`
    /// then never says `Solved`.
    fn set_contact_set(&mut self, active: Option<Vec<bool>>);

    /// The contact set given, if any.
    fn contact_set(&self) -> Option<&[bool]>;

    /// Whether the multipliers of [`Backend::solve`]'s answer are numbers.
    /// `false` for the null-space form, whose multipliers are all `NaN`.
    fn gives_multipliers(&self) -> bool {
        true
    }

    /// `None` if the form applies to `instant`, else why not (in words, for
    /// a comparison table): a contact set of the wrong length, contacts
    /// without a contact set in the null-space form, a size limit. `solve`
    /// still answers where a form does not apply: for a reason of principle
    /// (the first two) never with [`Status::Solved`](zwang_qp::Status::Solved);
    /// a size limit only warns of the cost.
    fn not_applicable_reason(&self, instant: &Instant) -> Option<String>;
}

/// The contact set of a solution (the QP's, typically), to hand to the
/// forms with [`Form::set_contact_set`]: contact `i` is closed when its
/// force outweighs its gap rate, each made dimensionless as in
/// [`zwang_qp::Residuals`]: `lambda_i |A_i| / max(|M a|, |Q|)` against
/// `(A_i a - b_i) / max(|A_i| max(|a|, |M^-1 Q|), |b_i|)`. A contact with
/// both at round-off (degenerate) may land on either side; the forms accept
/// it either way. A multiplier that is not a number (or missing) counts as
/// no force.
pub fn contact_set_of(instant: &Instant, solution: &zwang_qp::Solution) -> Vec<bool> {
    let a = &solution.acceleration;
    let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut ma = vec![0.0; instant.dim()];
    instant.mass_mul_into(a, &mut ma);
    let force_scale = inf(&ma).max(inf(instant.force())).max(f64::MIN_POSITIVE);
    let mut free = instant.force().to_vec();
    instant.mass_factor_or_nan().solve_in_place(&mut free);
    let a_inf = inf(a).max(inf(&free));
    let rows = instant.inequalities();
    (0..rows.len())
        .map(|i| {
            let row_max = rows
                .matrix()
                .outer_view(i)
                .map(|r| inf(r.data()))
                .unwrap_or(0.0);
            let b = rows.rhs()[i];
            let gap =
                (rows.row_dot(i, a) - b) / (row_max * a_inf).max(b.abs()).max(f64::MIN_POSITIVE);
            let lambda = solution.multipliers_in.get(i).copied().unwrap_or(0.0);
            let force = if lambda.is_nan() {
                0.0
            } else {
                lambda * row_max / force_scale
            };
            force > gap
        })
        .collect()
}

/// The forms' names, as [`Backend::name`] spells them.
pub const FORM_NAMES: [&str; 3] = ["multiplier", "udwadia_kalaba", "null_space"];

/// A form by its name (`multiplier`, `udwadia_kalaba`, `null_space`; a
/// `-` may stand for the `_`), without a contact set.
pub fn form_by_name(name: &str) -> Option<Box<dyn Form>> {
    Some(match name.replace('-', "_").as_str() {
        "multiplier" => Box::new(MultiplierForm::new()),
        "udwadia_kalaba" => Box::new(UdwadiaKalabaForm::new()),
        "null_space" => Box::new(NullSpaceForm::new()),
        _ => return None,
    })
}
