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
//! | [`MultiplierForm`] | `multiplier` | KKT `[M A^T; A 0]` by the Schur complement `A M^-1 A^T`, eigendecomposition | minimum norm | closed |
//! | [`UdwadiaKalabaForm`] | `udwadia_kalaba` | `a = M^-1 Q + M^-1/2 (A M^-1/2)^+ (b - A M^-1 Q)`, SVD | minimum norm | closed |
//! | [`NullSpaceForm`] | `null_space` | `a = a_p + N z`, `N^T M N z = N^T (Q - M a_p)`, SVD of `A` | none | not applicable |
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
//! - the forms take the contact set as given: contact rows
//!   (`A_in a >= b_in`) are treated as closed (`A_in a = b_in`), and the
//!   answer is `Solved` only if every contact pushes (`lambda_in >= 0`),
//!   `Infeasible` otherwise. Choosing the contact set is the QP's job. The
//!   null-space form, which has no multipliers to check, does not apply.
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
//! let s = MultiplierForm.solve(&instant);
//! assert!(s.is_solved());
//! assert!((s.acceleration[1] + g / 2.0).abs() < 1e-12);
//! assert!((s.multipliers_eq[0] - g / 2.0).abs() < 1e-12);
//! assert!(NullSpaceForm.not_applicable_reason(&instant).is_none());
//! assert!(NullSpaceForm.solve(&instant).multipliers_eq.is_empty());
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

/// A variational form: a [`Backend`] that also says why it does not apply
/// ([`Backend::applies`] is `not_applicable_reason(..).is_none()`).
pub trait Form: Backend {
    /// `None` if the form applies to `instant`, else why not (in words, for
    /// a comparison table). `solve` still answers where a form does not
    /// apply: for a reason of principle (contacts in the null-space form)
    /// never with [`Status::Solved`](zwang_qp::Status::Solved); a size
    /// limit only warns of the cost.
    fn not_applicable_reason(&self, instant: &Instant) -> Option<String>;
}

/// The forms' names, as [`Backend::name`] spells them.
pub const FORM_NAMES: [&str; 3] = ["multiplier", "udwadia_kalaba", "null_space"];

/// A form by its name (`multiplier`, `udwadia_kalaba`, `null_space`; a
/// `-` may stand for the `_`).
pub fn form_by_name(name: &str) -> Option<Box<dyn Form>> {
    Some(match name.replace('-', "_").as_str() {
        "multiplier" => Box::new(MultiplierForm),
        "udwadia_kalaba" => Box::new(UdwadiaKalabaForm),
        "null_space" => Box::new(NullSpaceForm),
        _ => return None,
    })
}
