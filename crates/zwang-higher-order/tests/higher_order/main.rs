//! The higher-order crate's integration tests as one binary (one build and link instead of one per
//! file): each file a module.

mod any_order;
mod worked_cases;

use zwang_ode::Settings;

/// The worked case's start (Zhang et al., section 5), shared by both
/// modules: `q` and `q'`.
const Q0: [f64; 2] = [1.0, 0.5];
const QD0: [f64; 2] = [0.2, -0.1];

/// Integrator settings with both tolerances at `tol`, no dense output.
fn tolerances(tol: f64) -> Settings {
    Settings {
        rtol: tol,
        atol: tol,
        dense_output: false,
        ..Settings::default()
    }
}
