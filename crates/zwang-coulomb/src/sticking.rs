//! Sticking contacts: an ideal tangential constraint while the friction
//! force stays inside the cone, so the minimum form holds; the check says
//! when it stops holding.

use zwang_instant::{Instant, RowSet};
use zwang_qp::{Backend, Solution};

/// Relative slack on the cone test, so that a force on the cone's edge up
/// to round-off still counts as inside.
const CONE_TOL: f64 = 1e-9;

/// One sticking contact checked against its friction cone.
#[derive(Debug, Clone, PartialEq)]
pub struct StickingCheck {
    /// Index into `Instant::sticking()`.
    pub index: usize,
    /// The normal multiplier `lambda_n`.
    pub normal_force: f64,
    /// The tangential row's multiplier `lambda_t`.
    pub tangential_force: f64,
    /// `|lambda_t| / (mu |lambda_n|)`: at most 1 inside the cone (`0` when
    /// both vanish, infinite when only the denominator does).
    pub ratio: f64,
    /// Whether the contact can stick: `lambda_n >= 0` on a unilateral row
    /// and `|lambda_t| <= mu |lambda_n|`. If not, it must slip and becomes
    /// a sliding contact with `slip = -sign(lambda_t)`.
    pub holds: bool,
}

/// A solve with the sticking rows as ideal constraints, and the cone check.
#[derive(Debug, Clone, PartialEq)]
pub struct Sticking {
    /// The backend's solution (sticking rows are ordinary equality rows).
    pub solution: Solution,
    /// One check per sticking contact.
    pub contacts: Vec<StickingCheck>,
}

/// Solves the instant with the backend (sticking tangents are equality
/// rows like any other) and checks every sticking contact's cone.
pub fn sticking(instant: &Instant, backend: &mut dyn Backend) -> Sticking {
    let solution = backend.solve(instant);
    let contacts = sticking_checks(instant, &solution);
    Sticking { solution, contacts }
}

/// The cone check of every sticking contact on any solution of the
/// instant (the QP's, or the variational one).
pub fn sticking_checks(instant: &Instant, solution: &Solution) -> Vec<StickingCheck> {
    instant
        .sticking()
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let normal_force = match c.normal.set {
                RowSet::Equalities => solution.multipliers_eq[c.normal.row],
                RowSet::Inequalities => solution.multipliers_in[c.normal.row],
            };
            let tangential_force = solution.multipliers_eq[c.tangent_row];
            let bound = c.mu * normal_force.abs();
            let ratio = if tangential_force == 0.0 {
                0.0
            } else if bound == 0.0 {
                f64::INFINITY
            } else {
                tangential_force.abs() / bound
            };
            let pressed = c.normal.set == RowSet::Equalities
                || normal_force >= -CONE_TOL * tangential_force.abs().max(normal_force.abs());
            StickingCheck {
                index,
                normal_force,
                tangential_force,
                ratio,
                holds: pressed && ratio <= 1.0 + CONE_TOL,
            }
        })
        .collect()
}
