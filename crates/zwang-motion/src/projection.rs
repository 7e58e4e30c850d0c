//! Gauss's metric at position and velocity level: drift projections are
//! the QP `min 1/2 |x - x0|_M^2` under the instant's rows, solved by the
//! same backends as the accelerations (impacts, with friction, are a
//! contact problem: `crate::impact`).
//!
//! A closed contact sits on its surface for as long as it stays closed (it
//! leaves only through a located `lift_off`), so the drift projections
//! hold it as an equality, at position level (`g = 0`) and at velocity
//! level (`g' = 0`), like a joint. Held as an inequality it could float
//! away from its surface unseen: a block resting on two corners then tilts
//! by round-off until the rows it is projected on contradict each other.
//!
//! Bodies resting on several contacts have redundant rows (two sticking
//! corners of a flat block hold the same sideways motion). The backends
//! judge rows consistent relative to the size of the answer, which for a
//! body at rest is round-off itself; a projection is a least-squares
//! problem with a tolerance in metres (or metres per second), so its
//! answer is taken when every row holds to that tolerance, whatever the
//! backend's relative verdict.

use crate::dynamics::DynamicsError;
use zwang_instant::{Instant, RowSet};
use zwang_model::{ContactState, Layout, Mechanism};
use zwang_qp::{AutoBackend, Backend, Solution};

/// Projections for one set of modes, with their own instants (the rows of
/// the dynamics' instant, other right-hand sides and force).
pub(crate) struct Projector {
    /// The rows as the model writes them (closed contacts unilateral).
    instant: Instant,
    /// The same rows, every closed contact held: drift projections.
    held: Instant,
    layout: Layout,
    backend: AutoBackend,
    solution: Solution,
    mx: Vec<f64>,
    eq: Vec<f64>,
    ineq: Vec<f64>,
    targets: Vec<f64>,
}

impl Projector {
    pub fn new<M: Mechanism>(
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<Self, DynamicsError> {
        let (instant, layout) = model.build_instant(t, q, v, modes)?;
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        Ok(Projector {
            mx: vec![0.0; instant.dim()],
            eq: vec![0.0; m_eq],
            ineq: vec![0.0; m_in],
            targets: vec![0.0; m_eq],
            held: instant.with_inequalities_held(),
            instant,
            layout,
            backend: AutoBackend::new(),
            solution: Solution::empty(),
        })
    }

    /// Whether it has no rows at all: its projections leave `q` where it
    /// is and solve for `v` without constraints.
    pub fn rowless(&self) -> bool {
        self.eq.is_empty() && self.ineq.is_empty()
    }

    /// The largest position-level violation of the rows at `q`: joints
    /// (both signs) and closed contacts (both signs: a closed contact sits
    /// on its surface).
    pub fn violation<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        modes: &[ContactState],
    ) -> f64 {
        model.violations(t, q, modes, &mut self.eq, &mut self.ineq);
        self.eq
            .iter()
            .chain(&self.ineq)
            .fold(0.0f64, |m, x| m.max(x.abs()))
    }

    /// Solves `min 1/2 |x - x0|_M^2` under the rows written at `(t, q, v)`
    /// with right-hand sides `rhs(set, i, eq, ineq)` (`i` counts the
    /// held instant's equalities on from the model's inequalities),
    /// returning `x` in the solution. An answer whose rows hold to `tol`
    /// (absolute) is taken whatever the backend's verdict.
    #[allow(clippy::too_many_arguments)]
    fn solve<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        x0: Option<&[f64]>,
        tol: f64,
        rhs: impl Fn(RowSet, usize, &[f64], &[f64]) -> f64,
    ) -> Result<(), DynamicsError> {
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        let (eq, ineq) = (self.instant.equalities(), self.instant.inequalities());
        let nnz = eq.matrix().nnz();
        let (a_eq, a_in) = (eq.matrix().data(), ineq.matrix().data());
        self.held
            .edit_rows(RowSet::Equalities, |values, _| {
                values[..nnz].copy_from_slice(a_eq);
                values[nnz..].copy_from_slice(a_in);
            })
            .map_err(failed)?;
        let target = &mut self.held;
        match x0 {
            Some(x0) => target.mass_mul_into(x0, &mut self.mx),
            None => self.mx.fill(0.0),
        }
        let mx = &self.mx;
        target
            .edit_force(|f| f.copy_from_slice(mx))
            .map_err(failed)?;
        let m_eq = self.eq.len();
        for set in [RowSet::Equalities, RowSet::Inequalities] {
            let (eq, ineq) = (&self.eq, &self.ineq);
            target
                .edit_rows(set, |_, b| {
                    for (i, x) in b.iter_mut().enumerate() {
                        *x = match set {
                            RowSet::Equalities if i >= m_eq => {
                                rhs(RowSet::Inequalities, i - m_eq, eq, ineq)
                            }
                            _ => rhs(set, i, eq, ineq),
                        };
                    }
                })
                .map_err(failed)?;
        }
        self.backend.solve_into(target, &mut self.solution);
        let x = &self.solution.acceleration;
        let residual = |set: RowSet| {
            let rows = target.rows(set);
            (0..rows.len()).map(move |i| {
                let r = rows.row_dot(i, x) - rows.rhs()[i];
                match set {
                    RowSet::Equalities => (i, r.abs()),
                    RowSet::Inequalities => (m_eq + i, (-r).max(0.0)),
                }
            })
        };
        let worst = residual(RowSet::Equalities)
            .chain(residual(RowSet::Inequalities))
            .fold(
                (0, 0.0f64),
                |w, (i, r)| if r > w.1 || r.is_nan() { (i, r) } else { w },
            );
        let finite = x.iter().all(|x| x.is_finite());
        // Round-off of rows written at the answer's own size.
        let tol = tol.max(1e-12 * x.iter().fold(0.0f64, |m, x| m.max(x.abs())));
        if finite && worst.1 <= tol {
            return Ok(());
        }
        Err(DynamicsError::Failed(format!(
            "a projection onto the joints and closed contacts ended {}: {} is off by {:e}",
            self.solution.status,
            self.row_name(model, worst.0),
            worst.1
        )))
    }

    /// The row (of the held instant) with the largest violation found by
    /// the last [`Projector::violation`]; [`Projector::row_name`] names it.
    pub fn most_violated(&self) -> usize {
        let worst = self
            .eq
            .iter()
            .chain(&self.ineq)
            .enumerate()
            .fold(
                (0, -1.0f64),
                |w, (i, x)| if x.abs() > w.1 { (i, x.abs()) } else { w },
            );
        worst.0
    }

    /// What row `i` of the held instant (the model's equalities, then its
    /// inequalities) is, in the scene's words.
    pub fn row_name<M: Mechanism>(&self, model: &M, i: usize) -> String {
        let m_eq = self.eq.len();
        let contact = |k: usize| format!("contact \"{}\"", model.contact_name(k));
        for (k, rows) in self.layout.contacts.iter().enumerate() {
            if rows.tangent == Some(i) {
                return format!("the sticking of {}", contact(k));
            }
            if i >= m_eq && rows.normal == Some(i - m_eq) {
                return contact(k);
            }
        }
        if i < self.layout.joint_rows {
            return model.joint_row_name(i);
        }
        format!("row {i}")
    }

    /// Moves `q` onto the joints and closed contacts (Gauss's metric, a
    /// few Newton steps) when it is off by more than `tol`; returns the
    /// violation found before.
    pub fn positions<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &mut [f64],
        v: &[f64],
        modes: &[ContactState],
        tol: f64,
    ) -> Result<f64, DynamicsError> {
        let before = self.violation(model, t, q, modes);
        let mut now = before;
        for _ in 0..4 {
            if now <= tol {
                break;
            }
            // J dq = -C on the joints (sticking rows: 0) and -g on the
            // closed contacts. The linearized rows hold to a small part of
            // the violation; what is left goes in the next Newton step.
            self.solve(
                model,
                t,
                q,
                v,
                modes,
                None,
                tol.max(1e-3 * now),
                |set, i, eq, ineq| match set {
                    RowSet::Equalities => -eq[i],
                    RowSet::Inequalities => -ineq[i],
                },
            )?;
            model.displace(q, &self.solution.acceleration);
            now = self.violation(model, t, q, modes);
        }
        Ok(before)
    }

    /// The largest velocity-level violation `|J v - c|` of the equality
    /// rows at `(t, q, v)` (`c` from
    /// [`zwang_model::InstantWriter::velocity_targets`]): nonholonomic rows
    /// have no position level, so only this sees their drift.
    pub fn velocity_violation<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<f64, DynamicsError> {
        if self.targets.is_empty() {
            // No equality rows (a body sliding on its contacts): nothing
            // to violate, and no instant to write at every sample.
            return Ok(0.0);
        }
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        model.velocity_targets(t, q, v, modes, &mut self.targets);
        let eq = self.instant.equalities();
        Ok((0..eq.len()).fold(0.0f64, |m, i| {
            m.max((eq.row_dot(i, v) - self.targets[i]).abs())
        }))
    }

    /// The largest velocity-level violation of the held rows at
    /// `(t, q, v)`: `|J v - c|` on the joints and sticking rows, `|J_n v|`
    /// on the closed contacts; and its row (as [`Projector::row_name`]
    /// takes it).
    pub fn velocity_violation_at<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(f64, usize), DynamicsError> {
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        model.velocity_targets(t, q, v, modes, &mut self.targets);
        let (eq, ineq) = (self.instant.equalities(), self.instant.inequalities());
        let residuals = (0..eq.len())
            .map(|i| eq.row_dot(i, v) - self.targets[i])
            .chain((0..ineq.len()).map(|i| ineq.row_dot(i, v)));
        let (i, worst) =
            residuals.enumerate().fold(
                (0, 0.0f64),
                |w, (i, r)| if r.abs() > w.1 { (i, r.abs()) } else { w },
            );
        Ok((worst, i))
    }

    /// Moves `v` onto the rows' velocity level (`J v = c` on joints and
    /// sticking rows, `c` from
    /// [`zwang_model::InstantWriter::velocity_targets`], zero for
    /// scleronomic joints; `J_n v = 0` on closed contacts) in Gauss's
    /// metric, the rows holding to `tol`; returns the largest correction.
    pub fn velocities<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &mut [f64],
        modes: &[ContactState],
        tol: f64,
    ) -> Result<f64, DynamicsError> {
        model.velocity_targets(t, q, v, modes, &mut self.targets);
        let targets = std::mem::take(&mut self.targets);
        let solved = self.solve(
            model,
            t,
            q,
            v,
            modes,
            Some(v),
            tol,
            |set, i, _, _| match set {
                RowSet::Equalities => targets[i],
                RowSet::Inequalities => 0.0,
            },
        );
        self.targets = targets;
        solved?;
        let a = &self.solution.acceleration;
        let change = v
            .iter()
            .zip(a)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        v.copy_from_slice(a);
        // Speeds below what the rows are held to are round-off: a body
        // brought to rest on its contacts is exactly at rest.
        if v.iter().all(|x| x.abs() <= tol) {
            v.fill(0.0);
        }
        Ok(change)
    }
}

fn failed(e: impl std::fmt::Display) -> DynamicsError {
    DynamicsError::Failed(e.to_string())
}
