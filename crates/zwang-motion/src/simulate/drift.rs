//! Drift: positions and velocities projected back onto the joints and
//! closed contacts in Gauss's metric, at the start (said in the outcome
//! when it moved the given state), after steps that drift, and for
//! samples taken from the dense output.

use super::{Run, Settings, StartProjection, Stop};
use crate::dynamics::DynamicsError;
use crate::projection::Projector;
use zwang_model::{ContactState, Mechanism};

/// How well projected velocities must meet their rows, m/s: far below
/// the speeds events tell apart.
pub(crate) fn speed_tolerance(settings: &Settings) -> f64 {
    1e-6 * settings.rest_speed
}

/// Moves the start `(q, v)` onto the joints and the contacts `modes`
/// close (Gauss's metric, by `p`, made at the start as given); how, when
/// that changed it beyond round-off.
pub(crate) fn project_start<M: Mechanism>(
    model: &M,
    p: &mut Projector,
    q: &mut [f64],
    v: &mut [f64],
    modes: &[ContactState],
    settings: &Settings,
) -> Result<Option<StartProjection>, DynamicsError> {
    let (q0, v0) = (q.to_vec(), v.to_vec());
    let violation = p.violation(model, 0.0, &q0, modes);
    // Rows are named only for a start that moved (names are strings).
    let at = p.most_violated();
    let (speed_violation, speed_at) = p.velocity_violation_at(model, 0.0, &q0, &v0, modes)?;
    let (tol, speed_tol) = (settings.drift_tolerance, speed_tolerance(settings));
    p.positions(model, 0.0, q, v, modes, tol)?;
    p.velocities(model, 0.0, q, v, modes, speed_tol)?;
    let change = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
    };
    let (dq, dv) = (change(q, &q0), change(v, &v0));
    let v_scale = v0.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    Ok(
        (violation > tol || dv > 1e-9 * v_scale).then(|| StartProjection {
            violation,
            at: p.row_name(model, at),
            speed_violation,
            speed_at: p.row_name(model, speed_at),
            position_change: dq,
            velocity_change: dv,
            energy_given: model.energy(0.0, &q0, &v0),
        }),
    )
}

impl<'m, M: Mechanism> Run<'m, M> {
    /// Moves the start onto the joints and the contacts it closes (Gauss's
    /// metric), and says so in the outcome when that changed it beyond
    /// round-off: the run's initial energy is the projected start's.
    pub(super) fn project_start(&mut self) -> Result<(), Stop> {
        let model = self.model;
        let (q, v) = self.y.split_at_mut(self.nq);
        let mut p = Projector::new(model, 0.0, q, v, &self.modes)?;
        self.start_projection = project_start(model, &mut p, q, v, &self.modes, &self.settings)?;
        self.energy_initial = model.energy(0.0, q, v);
        self.projector = Some(p);
        Ok(())
    }

    /// How well projected velocities must meet their rows, m/s: far below
    /// the speeds events tell apart.
    pub(super) fn speed_tolerance(&self) -> f64 {
        speed_tolerance(&self.settings)
    }

    /// Projects positions (and velocities) onto the joints and closed
    /// contacts when they drift; `always` forces the velocity projection.
    pub(super) fn project(&mut self, always: bool) -> Result<bool, Stop> {
        let model = self.model;
        let t = self.t;
        if self.projector.is_none() {
            let (q, v) = self.state();
            self.projector = Some(Projector::new(model, t, q, v, &self.modes)?);
        }
        let tol = self.settings.drift_tolerance;
        let speed_tol = self.speed_tolerance();
        let p = self.projector.as_mut().expect("made above");
        let modes = &self.modes;
        let (q, v) = self.y.split_at_mut(self.nq);
        let before = p.positions(model, t, q, v, modes, tol)?;
        self.max_drift = self.max_drift.max(before);
        let mut moved = before > tol;
        if !moved && !always && p.velocity_violation(model, t, q, v, modes)? > tol {
            // Velocity-level rows (nonholonomic) drift without any
            // position-level sign.
            moved = true;
        }
        if moved {
            self.stats.projections += 1;
        }
        if moved || always {
            p.velocities(model, t, q, v, modes, speed_tol)?;
        }
        Ok(moved)
    }

    /// A state inside a step comes from the dense output, off the joints
    /// by the integrator's error: it is projected like the steps' ends, so
    /// that what is reported keeps the constraints as well.
    pub(super) fn project_sample(&mut self, t: f64, y: &mut [f64]) -> Result<(), Stop> {
        let model = self.model;
        let (tol, speed_tol) = (self.settings.drift_tolerance, self.speed_tolerance());
        if let Some(p) = self.projector.as_mut() {
            let (q, v) = y.split_at_mut(self.nq);
            let modes = &self.modes;
            if p.positions(model, t, q, v, modes, tol)? > tol
                || p.velocity_violation(model, t, q, v, modes)? > speed_tol
            {
                p.velocities(model, t, q, v, modes, speed_tol)?;
            }
        }
        Ok(())
    }
}
