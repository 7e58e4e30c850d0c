//! Coulomb friction at sliding and sticking contacts, and the checker that
//! says when the minimum form of Gauss's principle stops giving the Newton
//! answer (Yao & Gao, see below).
//!
//! # When to use it
//!
//! A sliding contact's friction `-mu s |lambda_n|` depends on an ideal
//! constraint force, which a QP over accelerations cannot express: it can
//! only take the friction as a force frozen at some normal force. Use this
//! crate on an [`Instant`](zwang_instant::Instant) with `friction` entries
//! (`Instant::sliding()`) or `sticking` entries:
//!
//! - [`variational`]: the Newton answer, the Coulomb contact problem
//!   solved as it is: every frictional contact open, sliding, sticking or
//!   starting to slip ([`Mode`]), with the number of answers ([`Answers`]).
//!   Each independent part of the instant is solved on its own: by an
//!   active-set iteration on the modes, alone where the motion is shown
//!   unique or the part is too large to enumerate; otherwise by
//!   enumerating its mode combinations (exact, and it tells one answer from
//!   none or several) up to [`MAX_ENUMERATED_MODES`], by Lemke's method
//!   beyond ([`ContactSettings`], [`Paths`]).
//!   [`VariationalSolver`] is the same for a stepper: it keeps its
//!   working memory (the parts, cut once per structure) across calls.
//! - [`check`]: is the frozen-friction QP exact here, and does a rigid
//!   answer exist at all? It judges the contacts in the modes of the Newton
//!   answer, part by part, on the contact-space operators the contact
//!   problem is solved with (one builder: the rows the answer keeps
//!   closed held, `M_E^-1` below), and takes existence and uniqueness
//!   from that answer's count.
//! - [`frozen_qp`]: the minimum form with friction frozen at the
//!   frictionless normal force; [`fixed_point`]: the same re-solved with
//!   updated friction until the normal forces settle. Both take the QP
//!   backend to use: `&mut zwang_qp::AutoBackend::new()` unless you are
//!   comparing solvers.
//! - [`sticking`] / [`sticking_checks`]: sticking contacts as ideal
//!   tangential rows, and whether their force stays in the cone.
//! - [`rod`]: the rigid rod of Yao & Gao as a model, with closed forms.
//!
//! Every solver returns the common [`zwang_qp::Solution`] (backends
//! `"variational"`, `"frozen_qp"`, `"fixed_point"`); answers that do not
//! exist come back as statuses, never panics.
//!
//! # Reference
//!
//! Yao Wenli and Gao Junping, "A discussion on the equivalence of two forms
//! of Gauss' principle" (in Chinese, with an English abstract; Qingdao
//! University of Technology, 2026): the minimum and the variational forms
//! agree for ideal constraints and for non-ideal forces that depend on the
//! state only, and not for Coulomb friction whose normal force moves under
//! the Gauss variation; its rigid rod (eqs 18-25) is [`rod`].
//!
//! # Sign conventions
//!
//! As everywhere in zwang, `M a = Q + A_eq^T lambda_eq + A_in^T lambda_in`
//! with `lambda_in >= 0`. A sliding contact names the row whose multiplier
//! is its normal force `lambda_n` (an inequality: unilateral and closed; an
//! equality: bilateral, `lambda_n` of either sign), its tangent `J_t` and
//! `s = sign(v_t)`; its generalized friction force is
//! `-J_t^T mu s |lambda_n|`.
//!
//! # The verdicts
//!
//! With `J_n`, `J_t` the sliding normals and tangents, `S = diag(s)`,
//! `D = J_n M_E^-1 J_n^T` and `C = J_n M_E^-1 J_t^T mu S`, the coupled
//! equations read `G lambda_n = r`, `G = D - C`. Here `M_E^-1` is the
//! inverse mass of the system that the other constraint rows leave free
//! (`M^-1` minus its projection on those rows, so `D` is the Delassus
//! operator of the constrained system; with no other rows it is `M^-1`).
//! A QP freezing friction at `lambda` computes `D^-1 (r + C lambda)`, so:
//!
//! | verdict | when | meaning |
//! |---|---|---|
//! | `equivalent` | `C = 0` | no normal force feels friction: the frozen QP is exact in one pass |
//! | `not_equivalent` | `C != 0`, one solution | the frozen QP is off; re-solving converges iff `rho(D^-1 C) < 1`, at that rate |
//! | `painleve_inconsistent` | `G` not a P-matrix, no solution | the rigid model needs an impulse ("impact without collision") |
//! | `painleve_indeterminate` | `G` not a P-matrix, several solutions | the rigid model does not decide |
//! | `stationary_only` | higher-order principles | an equality row of order above 2 (`equalities.order`): no minimum exists, no QP is solved |
//!
//! For one contact, `kappa = |C| / D`; the contact problem is the LCP
//! `w = G lambda + w_free >= 0, lambda >= 0, w . lambda = 0` (`w_free` the
//! free normal acceleration), so `G <= 0` with `w_free < 0` has no solution
//! and with `w_free > 0` has two. Several contacts: whether `G` is a
//! P-matrix (one answer whatever the load) is read off the signs of the
//! determinants of the LCP's `2^k` branches, for groups of up to
//! [`MAX_ENUMERATED_CONTACTS`] coupled contacts; whether this load has no
//! answer or several is the contact problem's own count ([`Answers`]).
//!
//! ```
//! use zwang_coulomb::rod::{FrictionLaw, NormalRow, RigidRod};
//! use zwang_coulomb::{check, Verdict};
//! let rod = RigidRod { mass: 1.0, half_length: 1.0, gravity: 9.81, mu: 1.5, viscous: 0.0 };
//! // The contact end leads (x_A' < 0) at tan th = 2, where kappa = 1.125.
//! let state = rod.state_on_plane(2f64.atan(), -1.0, 0.0);
//! let instant = rod.instant(&state, FrictionLaw::Coulomb, NormalRow::Unilateral).unwrap();
//! assert_eq!(check(&instant).verdict, Verdict::PainleveInconsistent);
//! ```

mod check;
mod contact;
mod frozen;
mod linalg;
pub mod rod;
mod space;
mod split;
mod sticking;
mod system;

pub use check::{
    check, Block, ContactReport, Report, Verdict, COUPLING_TOL, MAX_ENUMERATED_CONTACTS,
};
pub use contact::{
    variational, variational_with, Answers, ContactSettings, Paths, Variational, VariationalSolver,
    MAX_ENUMERATED_MODES,
};
pub use frozen::{fixed_point, frozen_qp, Difference, FixedPoint, FixedPointOptions, FrozenQp};
pub use sticking::{sticking, sticking_checks, Sticking, StickingCheck};
// The mode of an entry in an answer (`Variational::modes`) is the contact
// space's, shared with the mechanisms and the stepper.
pub use zwang_contact::Mode;
