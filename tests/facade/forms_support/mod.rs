//! Helpers of the tests of systems in generalized coordinates: every
//! solver and form on one instant, and a scaled largest difference.

use zwang::forms::{MultiplierForm, NullSpaceForm, UdwadiaKalabaForm};
use zwang::instant::Instant;
use zwang::qp::{AutoBackend, Backend, ClarabelBackend, Solution};

/// Every solver and form on `instant`, each asserted solved:
/// `(name, solution)`.
pub fn solve_all(instant: &Instant) -> Vec<(&'static str, Solution)> {
    let out: Vec<(&'static str, Solution)> = vec![
        ("auto", AutoBackend::new().solve(instant)),
        ("clarabel", ClarabelBackend::new().solve(instant)),
        ("multiplier", MultiplierForm::new().solve(instant)),
        ("udwadia_kalaba", UdwadiaKalabaForm::new().solve(instant)),
        ("null_space", NullSpaceForm::new().solve(instant)),
    ];
    for (name, s) in &out {
        assert!(s.is_solved(), "{name}: {:?}", s.status);
    }
    out
}

/// `max |x - y| / scale`.
pub fn off(x: &[f64], y: &[f64], scale: f64) -> f64 {
    assert_eq!(x.len(), y.len());
    x.iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}
