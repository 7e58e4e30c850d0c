//! One frozen instant of a mechanical system, validated once.
//!
//! At an instant the state `(t, q, qd)` is fixed and only the acceleration
//! `a` varies. Gauss's principle then asks for
//!
//! ```text
//! minimize   1/2 a^T M a - Q^T a
//! subject to A_eq a  = b_eq     (two-sided constraints)
//!            A_in a >= b_in     (closed unilateral contacts)
//! ```
//!
//! Use this crate to build that data from [`sprs`] matrices or triplets, or
//! to read it from the JSON instant file; every solver of zwang takes an
//! [`Instant`]. Bad input (wrong shapes, NaN, a mass that is not symmetric
//! positive definite) is refused here with an [`InstantError`] that names
//! the offending key, so the solvers never see it.
//!
//! ```
//! use zwang_instant::{Instant, matrix_from_triplets};
//! // A particle of mass 2 in the plane under gravity, on the line y = x.
//! let mass = matrix_from_triplets("mass", (2, 2), [(0, 0, 2.0), (1, 1, 2.0)]).unwrap();
//! let a_eq = matrix_from_triplets("equalities.A", (1, 2), [(0, 0, 1.0), (0, 1, -1.0)]).unwrap();
//! let instant = Instant::builder(mass, vec![0.0, -19.62])
//!     .equalities(a_eq, vec![0.0])
//!     .build()
//!     .unwrap();
//! assert_eq!(instant.dim(), 2);
//! ```

pub mod dense;
mod error;
pub mod file;
#[cfg(feature = "generate")]
pub mod generate;
mod instant;
pub mod mass;
mod record;
pub mod sparse_cholesky;

pub use error::InstantError;
pub use file::{parse_instant, parse_instant_with, to_json, Encoding, ParseOptions, ParsedInstant};
pub use instant::{
    matrix_from_triplets, Instant, InstantBuilder, RowRef, RowSet, Rows, SlidingContact,
    StickingContact,
};
pub use mass::MassFactor;
pub use record::ValueRecord;
