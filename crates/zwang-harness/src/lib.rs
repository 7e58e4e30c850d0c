//! The benchmark harness of zwang: every form of Gauss's principle on one
//! instant, or on every instant of a folder, with the largest differences
//! between their answers, the checker's verdict and the time per form.
//!
//! Use it when you want the answers of *several* forms side by side from
//! Rust: to test a new solver against the references, to check a folder of
//! stored instants, or to build a table for a report. To solve an instant
//! use a backend of `zwang_qp` directly (one form, no comparison, no
//! timing); to judge friction alone use `zwang_coulomb::check`. The
//! `zwang compare` and `zwang check` commands are thin wrappers around
//! this crate, so what they print is what it computes:
//!
//! - [`Comparison::of`] runs every form ([`ALL_FORMS`]) on one instant and
//!   measures their differences; [`Comparison::text`] and [`CompareJson`]
//!   are its readable and JSON reports;
//! - on an instant with constraints of higher order (equality rows of
//!   order above 2) there is no minimum: the verdict is `stationary_only`
//!   and every form is [`Outcome::NotApplicable`] with the reason
//!   [`no_minimum`] gives;
//! - [`checked`] is the checker's verdict with the cone checks of the
//!   sticking contacts folded into its reason ([`Checked::text`],
//!   [`CheckJson`]);
//! - [`suite`] runs a folder of instant files and writes the table, one
//!   [`Row`] per instant, as Markdown or CSV;
//! - [`json`] holds the JSON shapes of the instant-file output format
//!   (a solution, a cone check, the largest differences), and [`table`]
//!   the readable table of several answers side by side.
//!
//! The instant file these read is specified in `docs/instant-format.md`
//! at the root of the repository.
//!
//! ```
//! use zwang_harness::Comparison;
//! use zwang_instant::parse_instant;
//!
//! // A unit mass on a frictionless floor, pushed sideways.
//! let text = r#"{"mass": [[1.0, 0.0], [0.0, 1.0]], "force": [1.0, -9.81],
//!                "inequalities": {"A": [[0.0, 1.0]], "b": [0.0]}}"#;
//! let instant = parse_instant(text).unwrap().instant;
//! let comparison = Comparison::of(&instant);
//! assert!(comparison.forms.iter().any(|f| f.name == "qp"));
//! assert!(!comparison.friction);
//! assert_eq!(comparison.checked.report.verdict.as_str(), "equivalent");
//! ```

mod check;
mod compare;
pub mod json;
pub mod suite;
pub mod table;

pub use check::{checked, CheckJson, Checked};
pub use compare::{
    no_minimum, CompareJson, Comparison, Extra, FormRun, InstantScale, Outcome, ALL_FORMS,
    FRICTION_FORMS, IDEAL_FORMS,
};
pub use json::{cone_checks, MaxDifference};
pub use suite::Row;
