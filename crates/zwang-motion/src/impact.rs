//! Impacts with Coulomb friction, for the event-driven method: the
//! impulses `P` of every touching contact solved together, as one contact
//! problem, the one the time stepper solves for a step of zero duration:
//!
//! - `v+ = v- + M_E^-1 J^T P` (`M_E^-1` the inverse mass the joints leave
//!   free: the joints' velocities do not jump);
//! - Newton's law in the normal direction, `0 <= P_n _|_ u_n+ + e u_n- >= 0`
//!   (`u = J v`, `e` the contact's restitution where it approaches);
//! - Coulomb's law in the tangent, on the velocity after: the contact
//!   sticks (`u_t+ = 0`) when the cone `|P_t| <= mu P_n` holds the impulse
//!   that stops its slip, else it slides at the cone's edge, `P_t` against
//!   `u_t+`.
//!
//! In local form `u+ + e u- = W P + q` with `W = J M_E^-1 J^T` and
//! `q = u- + e u-`: the problem [`zwang_contact::ContactSolver`] solves
//! (the dual method, with the responses the time stepper's joints use).
//! Frictionless contacts (`mu = 0`) make it Gauss's principle in
//! velocities, `min 1/2 |v+ - v-|_M^2` under Newton's law.
//!
//! The kinetic energy changes by `P . (u- + u+) / 2 = sum e P_n |u_n-| -
//! sum mu P_n |u_t+| - P^T W P / 2`: an impact without restitution never
//! gains energy. With restitution, a contact whose normal impulse also
//! drives its slip (a rod landing aslant on a rough floor) can gain some
//! (Kane's paradox; W. J. Stronge, "Rigid body collisions with friction",
//! 1990): there every restitution coefficient of the impact is lowered by
//! the one largest factor that keeps the energy, and the impact says by how
//! much ([`Jump::restitution_factor`]).

use crate::simulate::Jump;
use crate::stepping::plane::joints::Joints;
use zwang_contact::{ContactRows, ContactSolver, Delassus, LocalProblem, SolverSettings, Status};
use zwang_instant::{Instant, Rows};
use zwang_model::{ContactState, Mechanism, ModelError};

/// Bisections of the restitution factor when an impact would gain energy.
const BISECTIONS: usize = 50;

/// A gain of kinetic energy below this fraction of it is round-off.
const ENERGY_ROUND_OFF: f64 = 1e-9;

/// Why an impact has no velocities after it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ImpactError {
    /// The model failed to write its rows.
    #[error("{0}")]
    Model(String),
    /// The joints cannot be held (redundant or inconsistent rows).
    #[error("{0}")]
    Joints(String),
    /// The contact solver refused the problem (not finite).
    #[error("the impact's contact problem: {0}")]
    Problem(#[from] zwang_contact::ProblemError),
    /// The contact solver ended above its tolerance: no velocities are
    /// taken from it.
    #[error(
        "the impact's contact problem ended at error {error:e}, above the tolerance {tolerance:e}"
    )]
    Unsolved {
        /// Siconos' error measure of the best answer found.
        error: f64,
        /// The solver's tolerance.
        tolerance: f64,
    },
    /// No impulses stop the approach (they grow without bound).
    #[error("the impact's contact problem has no answer (its impulses grow without bound)")]
    Unbounded,
}

impl From<ModelError> for ImpactError {
    fn from(e: ModelError) -> Self {
        ImpactError::Model(crate::dynamics::DynamicsError::from(e).to_string())
    }
}

/// A touching contact at an impact: which, and its restitution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Touching {
    /// The contact.
    pub contact: usize,
    /// Newton's coefficient for this impact (0 for a contact already
    /// closed, or one too slow to bounce).
    pub restitution: f64,
}

/// The impact of the `touching` contacts at `(t, q, v)`: `v` becomes the
/// velocity after it.
pub(crate) fn strike<M: Mechanism>(
    model: &M,
    t: f64,
    q: &[f64],
    v: &mut [f64],
    touching: &[Touching],
) -> Result<Jump, ImpactError> {
    let mut problem = ImpactProblem::new(model, t, q, v, touching)?;
    let before = problem.kinetic(v);
    let v_minus = v.to_vec();
    let mut error = problem.solve(1.0, &v_minus, v)?;
    let mut energy_change = problem.kinetic(v) - before;
    let mut factor = 1.0;
    // Without restitution the answer gains no energy: a gain is the
    // solver's round-off, which no factor changes.
    let restitution = touching.iter().any(|c| c.restitution > 0.0);
    if restitution && energy_change > ENERGY_ROUND_OFF * before {
        // The largest factor found that keeps the energy: 0 always does.
        let (mut keeps, mut gains) = (0.0, 1.0);
        let mut best = v_minus.clone();
        error = problem.solve(0.0, &v_minus, &mut best)?;
        let mut trial = v_minus.clone();
        for _ in 0..BISECTIONS {
            let mid = 0.5 * (keeps + gains);
            let e = problem.solve(mid, &v_minus, &mut trial)?;
            if problem.kinetic(&trial) <= before {
                keeps = mid;
                best.copy_from_slice(&trial);
                error = e;
            } else {
                gains = mid;
            }
        }
        v.copy_from_slice(&best);
        energy_change = problem.kinetic(v) - before;
        factor = keeps;
    }
    Ok(Jump {
        energy_change,
        restitution_factor: factor,
        error,
    })
}

/// An impact's contact problem and what it is made from.
struct ImpactProblem {
    /// The instant written with the touching contacts sticking (its mass
    /// and rows).
    instant: Instant,
    joints: Joints,
    local: LocalProblem,
    solver: ContactSolver,
    settings: SolverSettings,
    /// `u- = J v-` (normal, tangent per contact) and each restitution.
    approach: Vec<f64>,
    restitution: Vec<f64>,
    scratch: Vec<f64>,
}

impl ImpactProblem {
    fn new<M: Mechanism>(
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        touching: &[Touching],
    ) -> Result<Self, ImpactError> {
        // Sticking modes give each touching contact its normal row and,
        // with friction, its tangential one; every contact open, the
        // joints alone.
        let mut modes = vec![ContactState::OPEN; model.contacts()];
        for c in touching {
            modes[c.contact] = ContactState::STICK;
        }
        let (instant, layout) = model.build_instant(t, q, v, &modes)?;
        let open = vec![ContactState::OPEN; model.contacts()];
        let (system, _) = model.build_instant(t, q, v, &open)?;
        let mut joints = Joints::held(&system);
        let (eq, ineq) = (instant.equalities(), instant.inequalities());
        let mut rows = ContactRows::new(2);
        let mut mu = Vec::with_capacity(touching.len());
        for c in touching {
            let at = layout.contacts[c.contact];
            let mut entries = entries_of(ineq, at.normal, 0);
            entries.extend(entries_of(eq, at.tangent, 1));
            rows.push(entries);
            // A contact without a tangential row has no friction.
            mu.push(if at.tangent.is_some() {
                model.friction(c.contact)
            } else {
                0.0
            });
        }
        joints
            .respond(&rows)
            .map_err(|e| ImpactError::Joints(e.to_string()))?;
        let mut local = LocalProblem {
            dimension: 2,
            w: sprs::CsMat::zero((0, 0)),
            q: Vec::new(),
            mu,
        };
        Delassus::new().write_from(&rows, &joints.responses, &mut local);
        let approach: Vec<f64> = (0..2 * touching.len())
            .map(|i| {
                let (c, row) = (i / 2, i % 2);
                (rows.start[c]..rows.start[c + 1])
                    .map(|a| rows.entry(a)[row] * v[rows.cols[a]])
                    .sum()
            })
            .collect();
        Ok(ImpactProblem {
            scratch: vec![0.0; instant.dim()],
            instant,
            joints,
            local,
            solver: ContactSolver::new(),
            settings: SolverSettings {
                parallel: false,
                ..SolverSettings::default()
            },
            approach,
            restitution: touching.iter().map(|c| c.restitution).collect(),
        })
    }

    /// `v^T M v / 2`.
    fn kinetic(&mut self, v: &[f64]) -> f64 {
        self.instant.mass_mul_into(v, &mut self.scratch);
        0.5 * v.iter().zip(&self.scratch).map(|(a, b)| a * b).sum::<f64>()
    }

    /// The velocities after the impact with every restitution times
    /// `factor`, from `v_minus` into `v`; the answer's error measure.
    fn solve(&mut self, factor: f64, v_minus: &[f64], v: &mut [f64]) -> Result<f64, ImpactError> {
        let local = &mut self.local;
        local.q.clear();
        for (u, e) in self.approach.chunks_exact(2).zip(&self.restitution) {
            // Newton's law where the contact approaches; a contact already
            // leaving (or at rest) may not approach.
            local.q.push(u[0] + factor * e * u[0].min(0.0));
            local.q.push(u[1]);
        }
        let mut r = vec![0.0; local.q.len()];
        let mut u = vec![0.0; local.q.len()];
        let report = self
            .solver
            .solve_in_place(local, &self.settings, &mut r, &mut u)?;
        match report.status {
            Status::Solved => {}
            Status::NotConverged => {
                return Err(ImpactError::Unsolved {
                    error: report.error,
                    tolerance: self.settings.tolerance,
                })
            }
            Status::Unbounded => return Err(ImpactError::Unbounded),
        }
        v.copy_from_slice(v_minus);
        self.joints.add_impulses(&r, v);
        Ok(report.error)
    }
}

/// Row `i` of `rows` as a contact's entries, its values in component
/// `slot` (0 normal, 1 tangent); none without a row.
fn entries_of(rows: &Rows, i: Option<usize>, slot: usize) -> Vec<(usize, [f64; 2])> {
    let Some(row) = i.and_then(|i| rows.matrix().outer_view(i)) else {
        return Vec::new();
    };
    row.iter()
        .map(|(col, &x)| {
            let mut e = [0.0; 2];
            e[slot] = x;
            (col, e)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use zwang_model::planar::{Body, Contact, PlanarModel, Surface};
    use zwang_model::Coordinates;

    /// A flat block (1 x 0.5 m) landing on both bottom corners at once,
    /// sliding: two rough contacts with redundant rows.
    fn block() -> (PlanarModel, Vec<f64>, Vec<f64>) {
        let corner = |name: &str, x: f64| {
            Contact::new(name, 0, [x, -0.25], Surface::FLOOR).with_surface(0.5, 0.3)
        };
        let body = Body::rigid("block", 1.0, 0.1)
            .at([0.0, 0.25])
            .moving([1.0, -2.0])
            .spinning(0.5);
        let model = PlanarModel::new(
            [0.0, -9.81],
            vec![body],
            vec![],
            vec![corner("a", -0.5), corner("b", 0.5)],
            vec![],
        )
        .unwrap();
        let (mut q, mut v) = (vec![0.0; 3], vec![0.0; 3]);
        model.initial_state(&mut q, &mut v);
        (model, q, v)
    }

    /// A contact problem that ends above its tolerance is an error, and
    /// the velocities are not touched: never integrated.
    #[test]
    fn an_unsolved_impact_leaves_the_velocities_as_they_were() {
        let (model, q, v) = block();
        let touching = [0, 1].map(|contact| Touching {
            contact,
            restitution: 0.3,
        });
        let mut problem = ImpactProblem::new(&model, 0.0, &q, &v, &touching).unwrap();
        problem.settings.tolerance = 0.0;
        problem.settings.max_iterations = 1;
        let mut after = vec![7.0; 3];
        match problem.solve(1.0, &v, &mut after) {
            Err(ImpactError::Unsolved { error, tolerance }) => {
                assert!(error > 0.0 && tolerance == 0.0, "{error}, {tolerance}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(after, [7.0; 3]);
        // With its settings it is solved, and keeps the energy.
        let mut v_after = v.clone();
        let jump = strike(&model, 0.0, &q, &mut v_after, &touching).unwrap();
        assert!(jump.error <= 1e-10 && jump.energy_change < 0.0, "{jump:?}");
        assert!(v_after[1] > 0.0, "it bounces: {v_after:?}");
    }
}
