//! The right-hand side of the equations of motion: the mechanism's
//! instant at `(t, q, v)`, written in place and solved.

use std::time::{Duration, Instant as Clock};
use zwang_contact::Mode;
use zwang_coulomb::{Answers, Variational, VariationalSolver};
use zwang_instant::Instant;
use zwang_model::{ContactState, Layout, Mechanism, ModelError};
use zwang_ode::OdeSystem;
use zwang_qp::{AutoBackend, Backend, Solution, Status};

/// Why the accelerations at a state could not be had.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DynamicsError {
    /// The contact problem has no answer (`inconsistent: true`) or several.
    #[error("Painleve: the contact problem has {}", if *inconsistent { "no answer" } else { "several answers" })]
    Painleve {
        /// No answer (else: several).
        inconsistent: bool,
    },
    /// The model or the solver failed; the reason in words.
    #[error("{0}")]
    Failed(String),
}

impl From<ModelError> for DynamicsError {
    fn from(e: ModelError) -> Self {
        DynamicsError::Failed(match e {
            ModelError::Instant(e) => in_scene_words(&e),
            e => e.to_string(),
        })
    }
}

/// What an instant's error means to someone who wrote a scene, not an
/// instant file: the part of the mechanism its key stands for.
fn in_scene_words(e: &zwang_instant::InstantError) -> String {
    let part = match e.key().split('.').next().unwrap_or("") {
        "force" => "the applied and inertial forces",
        "mass" => "the mass matrix",
        "equalities" => "the rows of the joints and sticking contacts",
        "inequalities" => "the rows of the closed contacts",
        "friction" | "sticking" => "the friction of the contacts",
        _ => "the state",
    };
    match e {
        zwang_instant::InstantError::NonFinite { .. } => {
            format!("{part} are not finite at this state (the motion blew up)")
        }
        zwang_instant::InstantError::NotPositiveDefinite { .. } => {
            "the mass matrix is not positive definite at this state".into()
        }
        _ => format!(
            "{part}: {}",
            e.to_string().split_once(": ").map_or("", |p| p.1)
        ),
    }
}

/// What one contact does at the last solved state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactValues {
    /// Normal force (`>= 0`), 0 when open.
    pub normal_force: f64,
    /// Friction force along the contact's tangent: Coulomb's and the
    /// viscous `-c v_t`.
    pub friction_force: f64,
    /// Normal acceleration `J_n a - b` beyond the row (`>= 0`; round-off
    /// below `1e-12` of the solve's largest acceleration is 0).
    pub normal_gap_rate: f64,
    /// Tangential acceleration of a sticking contact (0 while it sticks).
    pub tangential_rate: f64,
    /// What the solver made of it: `Open` (separating), `Slide`, `Stick`.
    pub mode: Mode,
}

/// The equations of motion for fixed contact modes: an [`OdeSystem`] on
/// `y = (q, v)`. Frictional instants go to the Coulomb contact problem
/// ([`zwang_coulomb::VariationalSolver`]), the others to [`AutoBackend`], warm.
pub struct Dynamics<'m, M: Mechanism> {
    pub(crate) model: &'m M,
    pub(crate) modes: Vec<ContactState>,
    pub(crate) instant: Instant,
    pub(crate) layout: Layout,
    backend: AutoBackend,
    solution: Solution,
    /// Kept across evaluations (it cuts the instant's parts once per
    /// structure), and made on the first frictional instant: an island
    /// without friction does not hold its working memory.
    variational: Option<Box<VariationalSolver>>,
    coulomb: Option<Variational>,
    frictional: bool,
    /// `max(1, |a|)` of the last solve: the scale of a separating
    /// acceleration that is not round-off.
    accel_scale: f64,
    /// The viscous friction force `-c v_t` of each contact at the last
    /// solved state (0 when open).
    viscous: Vec<f64>,
    /// Per coordinate, the accelerations the forces of the last solve
    /// would give one by one (`sum |term| / M_ii`): the scale of its
    /// round-off.
    term_scale: Vec<f64>,
    /// The last state `(t, q ++ v)` whose contact problem had no answer
    /// or several: where a Painleve stop is recorded.
    pub(crate) painleve_time: f64,
    pub(crate) painleve_state: Vec<f64>,
    /// Solves done, and the time spent in them.
    pub(crate) solves: usize,
    pub(crate) solve_time: Duration,
    /// Whether the last solve was the mechanism's own `M^-1 Q` (no rows;
    /// the instant not written).
    free: bool,
}

impl<'m, M: Mechanism> Dynamics<'m, M> {
    /// For the modes, at the state `(t, q, v)`.
    pub fn new(
        model: &'m M,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: Vec<ContactState>,
    ) -> Result<Self, DynamicsError> {
        let (instant, layout) = model.build_instant(t, q, v, &modes)?;
        let frictional = !instant.sliding().is_empty() || !instant.sticking().is_empty();
        Ok(Dynamics {
            model,
            modes,
            instant,
            layout,
            backend: AutoBackend::new(),
            solution: Solution::empty(),
            variational: None,
            coulomb: None,
            frictional,
            accel_scale: 1.0,
            viscous: vec![0.0; model.contacts()],
            term_scale: vec![0.0; model.nv()],
            painleve_time: f64::NAN,
            painleve_state: Vec::with_capacity(q.len() + v.len()),
            solves: 0,
            solve_time: Duration::ZERO,
            free: false,
        })
    }

    /// Rebuilds the instant for new modes (the backend's workspace stays;
    /// it re-analyses on the new structure stamp). The modes it has keep
    /// their instant: the next solve writes the state's values into it.
    pub fn set_modes(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(), DynamicsError> {
        if modes == self.modes.as_slice() {
            return Ok(());
        }
        let (instant, layout) = self.model.build_instant(t, q, v, modes)?;
        self.frictional = !instant.sliding().is_empty() || !instant.sticking().is_empty();
        self.instant = instant;
        self.layout = layout;
        self.modes.clear();
        self.modes.extend_from_slice(modes);
        self.coulomb = None;
        Ok(())
    }

    /// The modes the instant is written for.
    pub fn modes(&self) -> &[ContactState] {
        &self.modes
    }

    /// Writes and solves the instant at `(t, q, v)`; without rows, takes
    /// the mechanism's own `M^-1 Q` where it has one.
    pub fn solve(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<(), DynamicsError> {
        let mut start = Clock::now();
        self.free = self.free_acceleration(t, q, v)?;
        let status = if self.free {
            Status::Solved
        } else {
            self.model
                .update_instant(t, q, v, &self.modes, &mut self.instant)?;
            start = Clock::now();
            if self.frictional {
                let answer = self.coulomb.get_or_insert_with(Variational::default);
                self.variational
                    .get_or_insert_with(|| Box::new(VariationalSolver::new()))
                    .solve_into(&self.instant, answer);
                let status = answer.solution.status;
                let painleve = match answer.answers {
                    Answers::None if answer.frictionless_feasible => Some(true),
                    Answers::Several => Some(false),
                    _ => None,
                };
                if let Some(inconsistent) = painleve {
                    self.solve_time += start.elapsed();
                    self.painleve_time = t;
                    self.painleve_state.clear();
                    self.painleve_state.extend_from_slice(q);
                    self.painleve_state.extend_from_slice(v);
                    return Err(DynamicsError::Painleve { inconsistent });
                }
                status
            } else {
                self.backend.solve_into(&self.instant, &mut self.solution);
                self.solution.status
            }
        };
        self.solve_time += start.elapsed();
        self.solves += 1;
        if status != Status::Solved {
            return Err(DynamicsError::Failed(format!(
                "the instant solve ended {status}"
            )));
        }
        self.accel_scale = self
            .solution()
            .acceleration
            .iter()
            .fold(1.0f64, |m, x| m.max(x.abs()));
        for (k, f) in self.viscous.iter_mut().enumerate() {
            let c = self.model.viscous(k);
            *f = if c > 0.0 && self.modes[k].is_closed() {
                -c * self.model.contact_velocity(k, q, v).1
            } else {
                0.0
            };
        }
        Ok(())
    }

    /// Writes `M^-1 Q` into the solution by the mechanism's own means
    /// ([`zwang_model::InstantWriter::free_acceleration`]) where the instant has no row
    /// and the mechanism has them; whether it did (the instant is then
    /// not written).
    fn free_acceleration(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<bool, DynamicsError> {
        let instant = &self.instant;
        if self.frictional || !instant.equalities().is_empty() || !instant.inequalities().is_empty()
        {
            return Ok(false);
        }
        self.solution.reset(instant);
        let a = &mut self.solution.acceleration;
        let Some(result) = self.model.free_acceleration(t, q, v, &self.modes, a) else {
            return Ok(false);
        };
        result?;
        self.solution.status = Status::Solved;
        self.solution.backend = "articulated";
        Ok(true)
    }

    /// The last solution.
    pub fn solution(&self) -> &Solution {
        match (&self.coulomb, self.frictional) {
            (Some(c), true) => &c.solution,
            _ => &self.solution,
        }
    }

    /// Contact `k` at the last solved state.
    pub fn contact(&self, k: usize) -> ContactValues {
        let rows = self.layout.contacts[k];
        let Some(normal) = rows.normal else {
            return ContactValues {
                mode: Mode::Open,
                ..ContactValues::default()
            };
        };
        let sol = self.solution();
        let a = &sol.acceleration;
        let ineq = self.instant.inequalities();
        let lambda = sol.multipliers_in.get(normal).copied().unwrap_or(0.0);
        // Round-off is no separation: below the scale of the solve's
        // accelerations the normal acceleration counts as zero.
        let w = ineq.row_dot(normal, a) - ineq.rhs()[normal];
        let w = if w.abs() > 1e-12 * self.accel_scale {
            w
        } else {
            0.0
        };
        let mu = self.model.friction(k);
        let mut values = ContactValues {
            normal_force: lambda,
            normal_gap_rate: w,
            mode: Mode::Slide,
            ..ContactValues::default()
        };
        if let Some(row) = rows.tangent {
            let eq = self.instant.equalities();
            values.friction_force = sol.multipliers_eq.get(row).copied().unwrap_or(0.0);
            values.tangential_rate = eq.row_dot(row, a) - eq.rhs()[row];
        } else if let Some(slip) = self.modes[k].sliding() {
            values.friction_force = -mu * slip * lambda.abs();
        }
        values.friction_force += self.viscous[k];
        if let (Some(c), true) = (&self.coulomb, self.frictional) {
            let entry = rows
                .sliding
                .or(rows.sticking.map(|s| s + self.instant.sliding().len()));
            if let Some(m) = entry.and_then(|e| c.modes.get(e)) {
                values.mode = *m;
            }
        } else if self.modes[k].mode == Mode::Stick && mu > 0.0 {
            values.mode = Mode::Stick;
        }
        // Open means separating: a contact that carries no force but does
        // not move away (one of many holding a body at rest, whose forces
        // are not unique) stays closed, whatever mode the solver named.
        let separating = lambda <= 0.0 && w > 0.0;
        if separating {
            values.mode = Mode::Open;
        } else if values.mode == Mode::Open {
            values.mode = if self.modes[k].mode == Mode::Stick && mu > 0.0 {
                Mode::Stick
            } else {
                Mode::Slide
            };
        }
        values
    }
}

impl Default for ContactValues {
    fn default() -> Self {
        ContactValues {
            normal_force: 0.0,
            friction_force: 0.0,
            normal_gap_rate: 0.0,
            tangential_rate: 0.0,
            mode: Mode::Open,
        }
    }
}

impl<M: Mechanism> Dynamics<'_, M> {
    /// `sum |term| / M_ii` per coordinate over the terms of `M a = Q +
    /// A^T lambda + friction` at the last solve.
    fn write_term_scale(&mut self) {
        let instant = &self.instant;
        let sol = match (&self.coulomb, self.frictional) {
            (Some(c), true) => &c.solution,
            _ => &self.solution,
        };
        let scale = &mut self.term_scale;
        scale.clear();
        scale.extend(instant.force().iter().map(|f| f.abs()));
        let sets = [
            (instant.equalities(), &sol.multipliers_eq),
            (instant.inequalities(), &sol.multipliers_in),
        ];
        for (rows, lambda) in sets {
            for (row, l) in rows.matrix().outer_iterator().zip(lambda.iter()) {
                for (j, a) in row.iter() {
                    scale[j] += (a * l).abs();
                }
            }
        }
        for (i, c) in instant.sliding().iter().enumerate() {
            let normal = match c.normal.set {
                zwang_instant::RowSet::Equalities => sol.multipliers_eq.get(c.normal.row),
                zwang_instant::RowSet::Inequalities => sol.multipliers_in.get(c.normal.row),
            };
            let force = c.mu * normal.map_or(0.0, |l| l.abs());
            for &j in instant.tangent_support(i) {
                scale[j] += (c.tangent[j] * force).abs();
            }
        }
        let mass = instant.mass();
        for (j, s) in scale.iter_mut().enumerate() {
            let m = mass.get(j, j).copied().unwrap_or(0.0);
            *s = if m > 0.0 { *s / m } else { 0.0 };
        }
    }
}

impl<M: Mechanism> OdeSystem for Dynamics<'_, M> {
    type Error = DynamicsError;
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), DynamicsError> {
        let nq = self.model.nq();
        let (q, v) = y.split_at(nq);
        self.solve(t, q, v)?;
        let (dq, dv) = dy.split_at_mut(nq);
        self.model.position_rate(q, v, dq);
        dv.copy_from_slice(&self.solution().acceleration);
        // Round-off is no acceleration: a body resting on its contacts gets
        // exactly zero, so that its rest costs a few steps however long it
        // lasts (noise of 1e-16 m/s^2 would hold the steps to seconds).
        // The scale is that of the forces that cancel: a 6 kg block resting
        // on two corners has an angular acceleration of 3e-14 rad/s^2 from
        // corner forces whose moments are 147 rad/s^2 each, and that noise
        // held a rest of 1e4 s to 4,000 steps.
        // The mechanism's own `M^-1 Q` leaves the instant unwritten: the
        // accelerations' own scale then.
        if self.free {
            self.term_scale.fill(0.0);
        } else {
            self.write_term_scale();
        }
        for (a, s) in dv.iter_mut().zip(&self.term_scale) {
            if a.abs() <= 1e-14 * self.accel_scale.max(*s) {
                *a = 0.0;
            }
        }
        Ok(())
    }
}
