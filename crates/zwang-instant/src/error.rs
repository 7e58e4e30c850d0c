//! Typed errors for everything that makes an instant unusable.

use thiserror::Error;

/// Why an instant was refused. Every variant names the key of the instant
/// file (`mass`, `force`, `equalities.A`, ...) so that a person can find it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum InstantError {
    /// The system has no coordinates.
    #[error("`mass`: the system is empty (no coordinates)")]
    Empty,
    /// A matrix or vector has the wrong shape.
    #[error("`{key}`: {what}")]
    Dimension {
        /// The key of the offending entry.
        key: String,
        /// What is wrong, in words (expected and found shapes).
        what: String,
    },
    /// A NaN or infinite entry.
    #[error("`{key}`: entry {position} is not finite ({value})")]
    NonFinite {
        /// The key of the offending entry.
        key: String,
        /// Where, as `[row, col]` or `[index]`.
        position: String,
        /// The value found.
        value: f64,
    },
    /// The mass matrix differs from its transpose.
    #[error("`mass`: not symmetric, M[{row}][{col}] = {upper} but M[{col}][{row}] = {lower}")]
    NotSymmetric {
        /// Row of the first entry.
        row: usize,
        /// Column of the first entry.
        col: usize,
        /// `M[row][col]`.
        upper: f64,
        /// `M[col][row]`.
        lower: f64,
    },
    /// The Cholesky factorization of the mass matrix met a non-positive pivot.
    #[error("`mass`: not positive definite (the factorization fails at coordinate {index})")]
    NotPositiveDefinite {
        /// The coordinate at which the pivot was not positive.
        index: usize,
    },
    /// A friction or sticking entry is inconsistent with the rest.
    #[error("`{key}`: {what}")]
    Friction {
        /// The key, for example `friction[0].normal.row`.
        key: String,
        /// What is wrong.
        what: String,
    },
    /// The order of an equality row is not an integer `>= 2` (2: a row
    /// of accelerations; above 2, a constraint of higher order).
    #[error("`{key}`: {what}")]
    Order {
        /// The key, for example `equalities.order[1]`.
        key: String,
        /// What is wrong.
        what: String,
    },
    /// A key the instant file format does not define (a misspelling would
    /// otherwise change the physics silently: `"inequality"` for
    /// `"inequalities"` drops every contact). Read with
    /// `ParseOptions { allow_unknown: true }` to make it a warning.
    #[error("`{key}`: unknown key (known here: {known})")]
    UnknownKey {
        /// The path of the unknown key, for example `inequality` or
        /// `friction[0].mu_s`.
        key: String,
        /// The keys defined at that place, in words.
        known: String,
    },
    /// The instant file could not be read or parsed.
    #[error("`{key}`: {what}")]
    File {
        /// The key (or `file` when the whole file is unreadable).
        key: String,
        /// What is wrong.
        what: String,
    },
}

impl InstantError {
    /// The key of the instant file that this error is about.
    pub fn key(&self) -> &str {
        match self {
            InstantError::Empty
            | InstantError::NotSymmetric { .. }
            | InstantError::NotPositiveDefinite { .. } => "mass",
            InstantError::Dimension { key, .. }
            | InstantError::NonFinite { key, .. }
            | InstantError::Friction { key, .. }
            | InstantError::Order { key, .. }
            | InstantError::UnknownKey { key, .. }
            | InstantError::File { key, .. } => key,
        }
    }
}
