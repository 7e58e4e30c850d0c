//! The variational (Newton) solution: friction coupled to the normal force
//! it depends on, solved as one linear system in the multipliers.

use crate::system::Contacts;
use zwang_instant::Instant;
use zwang_qp::{Solution, Status};

/// The coupled multiplier solution `M a = Q + A^T lambda - J_t^T mu S
/// |lambda_n|`, `A a = b` on the active rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Variational {
    /// Backend `"variational"`. The compulsion and residuals are those of
    /// the extended compulsion, with the friction at the answer counted as
    /// an applied force. `Infeasible` when a closed unilateral contact
    /// would need a negative normal force (see `separating`) or the rows
    /// are inconsistent; `NotConverged` when the signs never settled.
    pub solution: Solution,
    /// The normal force `lambda_n` of each sliding contact (signed).
    pub normal_forces: Vec<f64>,
    /// The generalized friction force `-sum_i J_t,i^T mu_i s_i |lambda_n,i|`.
    pub friction_force: Vec<f64>,
    /// Sliding contacts on unilateral rows whose normal force came out
    /// negative: with them closed there is no rigid answer (they separate,
    /// or, in a Painleve case, need an impulse).
    pub separating: Vec<usize>,
}

/// Solves the coupled multiplier equations directly (no QP).
///
/// The sliding normals are kept closed; the other inequality rows start
/// closed and a small active-set loop opens those that pull, and closes
/// back those that are crossed; a bilateral normal force may take either
/// sign (its friction goes with `|lambda_n|`). The `m x m` system
/// `A M^-1 (A^T - W) lambda = b - A M^-1 Q` is non-symmetric, since `W`
/// puts `J_t^T mu S` on the normal columns, and is solved by a dense LU:
/// meant for instants with few rows, `n` may be large.
pub fn variational(instant: &Instant) -> Variational {
    let mut contacts = Contacts::new(instant);
    let coupled = contacts.solve_coupled();
    let forces = contacts.normal_forces(&coupled.lambda_eq, &coupled.lambda_in);
    let friction_force = contacts.friction_force(&forces);
    let force: Vec<f64> = instant
        .force()
        .iter()
        .zip(&friction_force)
        .map(|(q, f)| q + f)
        .collect();
    let (extended, status) = match instant.with_force(force) {
        Ok(e) => (e, coupled.status),
        // A non-finite friction force: the linear algebra broke down.
        Err(_) => (instant.clone(), Status::NumericalError),
    };
    let solution = Solution::assemble(
        &extended,
        status,
        "variational",
        coupled.rounds,
        coupled.acceleration,
        coupled.lambda_eq,
        coupled.lambda_in,
    );
    Variational {
        solution,
        normal_forces: contacts.normal_of.iter().map(|&u| forces[u]).collect(),
        friction_force,
        separating: (0..contacts.normal_of.len())
            .filter(|&i| coupled.separating.contains(&contacts.normal_of[i]))
            .collect(),
    }
}
