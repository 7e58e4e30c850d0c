//! Gauss's metric at position and velocity level: drift projections and
//! impacts are the QP `min 1/2 |x - x0|_M^2` under the instant's rows,
//! solved by the same backends as the accelerations.

use crate::dynamics::DynamicsError;
use zwang_instant::{Instant, RowSet};
use zwang_model::{ContactMode, Mechanism};
use zwang_qp::{AutoBackend, Backend, Solution, Status};

/// Projections for one set of modes, with their own instant (the rows of
/// the dynamics' instant, other right-hand sides and force).
pub(crate) struct Projector {
    instant: Instant,
    backend: AutoBackend,
    solution: Solution,
    mx: Vec<f64>,
    eq: Vec<f64>,
    ineq: Vec<f64>,
    targets: Vec<f64>,
}

fn failed(e: impl std::fmt::Display) -> DynamicsError {
    DynamicsError::Failed(e.to_string())
}

impl Projector {
    pub fn new<M: Mechanism>(
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactMode],
    ) -> Result<Self, DynamicsError> {
        let (instant, _) = model.build_instant(t, q, v, modes)?;
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        Ok(Projector {
            mx: vec![0.0; instant.dim()],
            eq: vec![0.0; m_eq],
            ineq: vec![0.0; m_in],
            targets: vec![0.0; m_eq],
            instant,
            backend: AutoBackend::new(),
            solution: Solution::empty(),
        })
    }

    /// The largest position-level violation of the rows at `q`: joints
    /// (both signs) and closed contacts (both signs: a closed contact sits
    /// on its surface).
    pub fn violation<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        modes: &[ContactMode],
    ) -> f64 {
        model.violations(t, q, modes, &mut self.eq, &mut self.ineq);
        self.eq
            .iter()
            .chain(&self.ineq)
            .fold(0.0f64, |m, x| m.max(x.abs()))
    }

    /// Solves `min 1/2 |x - x0|_M^2` s.t. `A_eq x = eq_rhs`, `A_in x >= in_rhs`
    /// (the rows written at `(t, q, v)`), returning `x` in the solution.
    fn solve<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactMode],
        x0: Option<&[f64]>,
        rhs: impl Fn(RowSet, usize, &[f64], &[f64]) -> f64,
    ) -> Result<(), DynamicsError> {
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        match x0 {
            Some(x0) => self.instant.mass_mul_into(x0, &mut self.mx),
            None => self.mx.fill(0.0),
        }
        let mx = &self.mx;
        self.instant
            .edit_force(|f| f.copy_from_slice(mx))
            .map_err(failed)?;
        for set in [RowSet::Equalities, RowSet::Inequalities] {
            let (eq, ineq) = (&self.eq, &self.ineq);
            self.instant
                .edit_rows(set, |_, b| {
                    for (i, x) in b.iter_mut().enumerate() {
                        *x = rhs(set, i, eq, ineq);
                    }
                })
                .map_err(failed)?;
        }
        self.backend.solve_into(&self.instant, &mut self.solution);
        if self.solution.status != Status::Solved {
            return Err(DynamicsError::Failed(format!(
                "a projection ended {}",
                self.solution.status
            )));
        }
        Ok(())
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
        modes: &[ContactMode],
        tol: f64,
    ) -> Result<f64, DynamicsError> {
        let before = self.violation(model, t, q, modes);
        let mut now = before;
        for _ in 0..4 {
            if now <= tol {
                break;
            }
            // J dq = -C on the joints (sticking rows: 0), J dq >= -g on
            // the closed contacts.
            self.solve(model, t, q, v, modes, None, |set, i, eq, ineq| match set {
                RowSet::Equalities => -eq[i],
                RowSet::Inequalities => -ineq[i],
            })?;
            model.displace(q, &self.solution.acceleration);
            now = self.violation(model, t, q, modes);
        }
        Ok(before)
    }

    /// The largest velocity-level violation `|J v - c|` of the equality
    /// rows at `(t, q, v)` (`c` from [`Mechanism::velocity_targets`]):
    /// nonholonomic rows have no position level, so only this sees their
    /// drift.
    pub fn velocity_violation<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactMode],
    ) -> Result<f64, DynamicsError> {
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        model.velocity_targets(t, q, v, modes, &mut self.targets);
        let eq = self.instant.equalities();
        Ok((0..eq.len()).fold(0.0f64, |m, i| {
            m.max((eq.row_dot(i, v) - self.targets[i]).abs())
        }))
    }

    /// Moves `v` onto the rows' velocity level (`J v = c` on joints and
    /// sticking rows, `c` from [`Mechanism::velocity_targets`], zero for
    /// scleronomic joints; `J_n v >= 0` on closed contacts) in Gauss's
    /// metric; returns the largest correction.
    pub fn velocities<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &mut [f64],
        modes: &[ContactMode],
    ) -> Result<f64, DynamicsError> {
        model.velocity_targets(t, q, v, modes, &mut self.targets);
        let targets = std::mem::take(&mut self.targets);
        let solved = self.solve(model, t, q, v, modes, Some(v), |set, i, _, _| match set {
            RowSet::Equalities => targets[i],
            RowSet::Inequalities => 0.0,
        });
        self.targets = targets;
        solved?;
        let a = &self.solution.acceleration;
        let change = v
            .iter()
            .zip(a)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        v.copy_from_slice(a);
        Ok(change)
    }

    /// An impact: `min 1/2 |v+ - v-|_M^2` s.t. the joints (and sticking
    /// rows) `J v+ = 0` and Newton's law `J_n v+ >= -e_k J_n v-` on every
    /// touching contact (the modes close them). Writes `v+` into `v`.
    pub fn impact<M: Mechanism>(
        &mut self,
        model: &M,
        t: f64,
        q: &[f64],
        v: &mut [f64],
        modes: &[ContactMode],
        restitution: &[f64],
    ) -> Result<(), DynamicsError> {
        // The approach speeds J_n v- of the closed rows, then the bounds.
        model.update_instant(t, q, v, modes, &mut self.instant)?;
        let ineq = self.instant.inequalities();
        let approach: Vec<f64> = (0..ineq.len()).map(|i| ineq.row_dot(i, v)).collect();
        let v0 = v.to_vec();
        self.solve(
            model,
            t,
            q,
            &v0,
            modes,
            Some(&v0),
            |set, i, _, _| match set {
                RowSet::Equalities => 0.0,
                RowSet::Inequalities => {
                    let w = approach[i];
                    if w < 0.0 {
                        -restitution[i] * w
                    } else {
                        0.0
                    }
                }
            },
        )?;
        v.copy_from_slice(&self.solution.acceleration);
        Ok(())
    }
}
