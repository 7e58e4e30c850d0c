//! Joints at velocity level. The joint rows `J_E v = c` are held in every
//! step: the free velocity is Gauss's principle with the joints alone,
//! `min 1/2 |v - v*|_M` with `J_E v = c`, and a contact's impulse moves the
//! bodies through `M_E^-1` (the inverse mass the joints leave free), one
//! response per contact row. Both are solves of the joint system by the
//! direct backend, whose factors serve every response of a step. What the
//! rows' linearization leaves of the joints' positions is projected away
//! at the end of the step. The event-driven method's impacts take the same
//! responses (`crate::impact`).

use crate::stepping::StepError;
use zwang_contact::ContactRows;
use zwang_instant::{Instant, RowSet};
use zwang_qp::{Backend, DirectBackend, Solution, Status};

/// The joint system and its solver, kept between steps.
pub(crate) struct Joints {
    system: Instant,
    direct: DirectBackend,
    solution: Solution,
    zeros: Vec<f64>,
    force: Vec<f64>,
    /// `M_E^-1 J_i^T` per contact row (normal, tangent per contact).
    pub responses: Vec<Vec<f64>>,
}

impl Joints {
    /// The joint system of an instant written with every contact open
    /// (its rows are the joints'); `None` without joints.
    pub fn new(instant: &Instant) -> Option<Joints> {
        (!instant.equalities().is_empty()).then(|| Joints::held(instant))
    }

    /// The joint system of an instant written with every contact open,
    /// with or without joints (without them a response is `M^-1 J_i^T`).
    pub fn held(instant: &Instant) -> Joints {
        Joints {
            system: instant.clone(),
            direct: DirectBackend::new(),
            solution: Solution::empty(),
            zeros: vec![0.0; instant.equalities().len()],
            force: vec![0.0; instant.dim()],
            responses: Vec::new(),
        }
    }

    /// Takes the instant's values (the rows move with the bodies).
    pub fn refresh(&mut self, instant: &Instant) -> Result<(), StepError> {
        let refused = |e: zwang_instant::InstantError| StepError::Unsupported(e.to_string());
        if self.system.row_values_id() != instant.row_values_id() {
            self.system
                .set_row_values(RowSet::Equalities, instant.equalities().matrix().data())
                .map_err(refused)?;
        }
        if self.system.mass_values_id() != instant.mass_values_id() {
            self.system
                .set_mass_values(instant.mass().data())
                .map_err(refused)?;
        }
        Ok(())
    }

    /// One solve of the joint system under `force` with right-hand sides
    /// `rhs`, the answer into `out`.
    fn solve(&mut self, rhs: Option<&[f64]>, out: &mut [f64]) -> Result<(), StepError> {
        let failed = || {
            StepError::Unsupported(
                "the joints cannot be held (redundant or inconsistent rows)".into(),
            )
        };
        let rhs = rhs.unwrap_or(&self.zeros);
        self.system
            .set_rhs(RowSet::Equalities, rhs)
            .and_then(|()| self.system.set_force(&self.force))
            .map_err(|_| failed())?;
        self.direct.solve_into(&self.system, &mut self.solution);
        if self.solution.status != Status::Solved {
            return Err(failed());
        }
        out.copy_from_slice(&self.solution.acceleration);
        Ok(())
    }

    /// `v*` moved onto the joints' velocities `J_E v = targets` in Gauss's
    /// metric (`minv` the diagonal of `M^-1`), in place.
    pub fn project(
        &mut self,
        minv: &[f64],
        targets: &[f64],
        v_star: &mut [f64],
    ) -> Result<(), StepError> {
        for ((f, mi), v) in self.force.iter_mut().zip(minv).zip(v_star.iter()) {
            *f = v / mi;
        }
        self.solve(Some(targets), v_star)
    }

    /// The responses `M_E^-1 J_i^T` of every contact row (`d` per contact:
    /// normal, then tangents).
    pub fn respond(&mut self, rows: &ContactRows) -> Result<(), StepError> {
        let (n, d) = (self.force.len(), rows.dimension);
        let m = d * rows.contacts();
        self.responses.resize_with(m, Vec::new);
        self.responses.truncate(m);
        let mut out = std::mem::take(&mut self.responses);
        for (i, group) in out.chunks_exact_mut(d).enumerate() {
            for (row, y) in group.iter_mut().enumerate() {
                self.force.fill(0.0);
                // A column repeated within a contact counts as the sum.
                for a in rows.start[i]..rows.start[i + 1] {
                    self.force[rows.cols[a]] += rows.entry(a)[row];
                }
                y.resize(n, 0.0);
                let result = self.solve(None, y);
                if result.is_err() {
                    self.responses = out;
                    return result;
                }
            }
        }
        self.responses = out;
        Ok(())
    }

    /// `v += sum_i y_i r_i` over the contact rows.
    pub fn add_impulses(&self, r: &[f64], v: &mut [f64]) {
        for (y, &ri) in self.responses.iter().zip(r) {
            if ri != 0.0 {
                v.iter_mut().zip(y).for_each(|(x, yi)| *x += yi * ri);
            }
        }
    }
}
