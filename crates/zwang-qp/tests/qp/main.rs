//! The QP crate's integration tests (the no-allocation test keeps its own binary, for its counting allocator) as one binary (one build and link instead of one per
//! file): each file a module.

mod hand_solved;
mod properties;
mod regressions;
mod sweep;

/// How far two answers are apart, shared by the modules:
/// max |x - y| / max(|y|_inf, 1)
pub(crate) fn rel(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    x.iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}
