//! The vakonomic equations of a planar model, and their motion beside the
//! nonholonomic one from the same start.
//!
//! Gauss's principle (with Chetaev's rule) gives the motion of a system
//! with nonholonomic constraints: that is what [`simulate()`](crate::simulate())
//! integrates. The vakonomic equations, Hamilton's principle with the
//! constraints adjoined (`L* = L + mu . A(q) q'`), are another ODE, in
//! `(q, q', mu)`:
//!
//! ```text
//! M q'' + A^T mu' = Q + F(mu),    A q'' = -(dA/dt) q',
//! F(mu) = (d(A q')/dq - dA/dt)^T mu,
//! ```
//!
//! Gauss's problem with the extra force `F(mu)` and `-mu'` as the
//! multipliers of the velocity-level rows (the knife edges, see
//! [`PlanarModel::add_vakonomic_force`]); holonomic joints keep their
//! Lagrangian motion. The multipliers are part of the state and need
//! initial values. The two motions agree for holonomic constraints and
//! part for nonholonomic ones (Liu Caishan, "The fundamental equations in
//! analytical mechanics for nonholonomic systems", 2016).

use crate::dynamics::DynamicsError;
use crate::projection::Projector;
use crate::simulate::drift::{project_start, speed_tolerance};
use crate::simulate::{simulate, Observer, Outcome, Settings, StartProjection, Stats, Status};
use std::time::Instant as Clock;
use zwang_instant::Instant;
use zwang_model::planar::PlanarModel;
use zwang_model::{Bodies, Contacts, Coordinates, InstantWriter, ModelError};
use zwang_ode::{Integrator, OdeSystem, StepError};
use zwang_qp::{AutoBackend, Backend, Solution, Status as SolveStatus};

/// The right-hand side on `y = (q, v, mu)`.
struct Equations<'m> {
    model: &'m PlanarModel,
    nq: usize,
    /// The equality rows of the knife edges, one per multiplier.
    rows: Vec<usize>,
    instant: Instant,
    backend: AutoBackend,
    solution: Solution,
    solves: usize,
}

impl OdeSystem for Equations<'_> {
    type Error = DynamicsError;

    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), DynamicsError> {
        let (nq, nv) = (self.nq, self.model.nv());
        let (q, rest) = y.split_at(nq);
        let (v, mu) = rest.split_at(nv);
        let model = self.model;
        model.update_instant(t, q, v, &[], &mut self.instant)?;
        self.instant
            .edit_force(|f| model.add_vakonomic_force(q, v, mu, f))
            .map_err(ModelError::Instant)?;
        self.backend.solve_into(&self.instant, &mut self.solution);
        self.solves += 1;
        if self.solution.status != SolveStatus::Solved {
            return Err(DynamicsError::Failed(format!(
                "the instant solve ended {}",
                self.solution.status
            )));
        }
        let (dq, rest) = dy.split_at_mut(nq);
        let (dv, dmu) = rest.split_at_mut(nv);
        model.position_rate(q, v, dq);
        dv.copy_from_slice(&self.solution.acceleration);
        // M a = Q + F + A^T lambda: the rows' multipliers are -mu'.
        for (d, &row) in dmu.iter_mut().zip(&self.rows) {
            *d = -self.solution.multipliers_eq[row];
        }
        Ok(())
    }
}

/// Runs `model` from its initial state to `duration` under the vakonomic
/// equations, the knife edges' multipliers starting at `multipliers` (one
/// per knife edge, in joint order). The start is first moved onto the
/// joints (Gauss's metric), as [`simulate()`](crate::simulate()) does;
/// positions and velocities are projected back when they drift (the
/// multipliers stay). The observer gets samples every
/// `settings.output_every` (no contacts, no events); the outcome's
/// `multipliers` are their values at the end. A model with contacts, or
/// a count of multipliers that is not the knife edges', is a failed run
/// at its start.
pub fn simulate_vakonomic(
    model: &PlanarModel,
    duration: f64,
    settings: &Settings,
    multipliers: &[f64],
    observer: &mut dyn Observer,
) -> Outcome {
    let clock = Clock::now();
    let (nq, nv) = (model.nq(), model.nv());
    let mut y = vec![0.0; nq + nv];
    {
        let (q, v) = y.split_at_mut(nq);
        model.initial_state(q, v);
    }
    y.extend_from_slice(multipliers);
    let mut run = VakonomicRun {
        model,
        settings: *settings,
        duration,
        nq,
        t: 0.0,
        energy_initial: model.energy(0.0, &y[..nq], &y[nq..nq + nv]),
        y,
        stats: Stats::default(),
        steps: 0,
        max_drift: 0.0,
        start_projection: None,
    };
    let (status, reason) = match run.go(observer) {
        Ok(()) => (Status::Finished, None),
        Err(reason) => (Status::Failed, Some(reason)),
    };
    let (q, rest) = run.y.split_at(nq);
    let (v, mu) = rest.split_at(nv.min(rest.len()));
    let mut stats = run.stats;
    stats.wall_time = clock.elapsed();
    Outcome {
        status,
        reason,
        time: run.t,
        steps: run.steps,
        events: Vec::new(),
        q: q.to_vec(),
        v: v.to_vec(),
        modes: Vec::new(),
        energy_initial: run.energy_initial,
        start_projection: run.start_projection,
        energy_final: model.energy(run.t, q, v),
        max_constraint_drift: run.max_drift,
        max_penetration: 0.0,
        multipliers: Some(mu.to_vec()),
        unsolved: Default::default(),
        stats,
    }
}

/// A vakonomic run's state.
struct VakonomicRun<'m> {
    model: &'m PlanarModel,
    settings: Settings,
    duration: f64,
    nq: usize,
    t: f64,
    /// `(q, v, mu)`.
    y: Vec<f64>,
    energy_initial: f64,
    stats: Stats,
    steps: usize,
    max_drift: f64,
    start_projection: Option<StartProjection>,
}

impl VakonomicRun<'_> {
    /// Checks the run's inputs, projects the start and integrates; the
    /// reason when it fails.
    fn go(&mut self, observer: &mut dyn Observer) -> Result<(), String> {
        let model = self.model;
        let (nq, nv) = (self.nq, model.nv());
        if let Err(reason) = self.settings.validate() {
            return Err(format!("settings: {reason}"));
        }
        if !(self.duration.is_finite() && self.duration > 0.0) {
            return Err(format!("duration must be > 0, found {}", self.duration));
        }
        if model.contacts() > 0 {
            return Err("the vakonomic equations are integrated without contacts".into());
        }
        let rows = model.knife_edge_rows();
        if self.y.len() != nq + nv + rows.len() {
            return Err(format!(
                "{} vakonomic multipliers for {} knife edges",
                self.y.len() - nq - nv,
                rows.len()
            ));
        }
        if !self.y.iter().all(|x| x.is_finite()) {
            return Err("the initial state is not finite".into());
        }
        let start = {
            let (q, rest) = self.y.split_at_mut(nq);
            let v = &mut rest[..nv];
            Projector::new(model, 0.0, q, v, &[]).and_then(|mut p| {
                let moved = project_start(model, &mut p, q, v, &[], &self.settings)?;
                Ok((p, moved))
            })
        };
        let mut projector = match start {
            Ok((p, moved)) => {
                self.start_projection = moved;
                p
            }
            Err(e) => return Err(e.to_string()),
        };
        self.energy_initial = model.energy(0.0, &self.y[..nq], &self.y[nq..nq + nv]);
        let (instant, _) = match model.build_instant(0.0, &self.y[..nq], &self.y[nq..nq + nv], &[])
        {
            Ok(built) => built,
            Err(e) => return Err(e.to_string()),
        };
        let mut equations = Equations {
            model,
            nq,
            rows,
            instant,
            backend: AutoBackend::new(),
            solution: Solution::empty(),
            solves: 0,
        };
        let result = self.integrate(&mut equations, &mut projector, observer);
        self.stats.solves = equations.solves;
        result
    }

    /// From the projected start to the duration.
    fn integrate(
        &mut self,
        equations: &mut Equations<'_>,
        projector: &mut Projector,
        observer: &mut dyn Observer,
    ) -> Result<(), String> {
        let output_every = if self.settings.output_every > 0.0 {
            self.settings.output_every
        } else {
            self.duration / 1000.0
        };
        let last = (self.duration / output_every).round() as usize;
        let mut integrator = Integrator::new(self.y.len(), self.settings.ode);
        integrator
            .reset(equations, 0.0, &self.y)
            .map_err(|e| words(e, "could not start"))?;
        let mut scratch = self.y.clone();
        if observer.wants_samples() {
            self.sample(projector, observer, 0.0, &mut scratch)?;
        }
        let mut next = 1usize;
        while self.t < self.duration {
            if self.steps >= self.settings.max_steps {
                return Err(format!(
                    "{} steps (max_steps) without reaching the end, at t = {}",
                    self.steps, self.t
                ));
            }
            let t_new = integrator
                .step(equations, self.duration)
                .map_err(|e| words(e, "failed"))?;
            self.steps += 1;
            while next <= last && observer.wants_samples() {
                let ts = if next == last {
                    self.duration
                } else {
                    next as f64 * output_every
                };
                if ts > t_new {
                    break;
                }
                integrator.dense(ts, &mut scratch);
                self.sample(projector, observer, ts, &mut scratch)?;
                next += 1;
            }
            self.t = t_new;
            self.y.copy_from_slice(integrator.y());
            if self.project(projector, t_new)? {
                integrator
                    .set_state(equations, &self.y)
                    .map_err(|e| words(e, "failed"))?;
            }
            observer.progress(self.t, self.duration);
            self.stats.evaluations = integrator.stats().evaluations;
            self.stats.rejected = integrator.stats().rejected;
        }
        Ok(())
    }

    /// Projects `(q, v)` back onto the joints when they drift (the
    /// multipliers stay); whether it moved them.
    fn project(&mut self, p: &mut Projector, t: f64) -> Result<bool, String> {
        let model = self.model;
        let (tol, speed_tol) = (
            self.settings.drift_tolerance,
            speed_tolerance(&self.settings),
        );
        let nv = model.nv();
        let (q, rest) = self.y.split_at_mut(self.nq);
        let v = &mut rest[..nv];
        let mut inner = || -> Result<bool, DynamicsError> {
            let before = p.positions(model, t, q, v, &[], tol)?;
            self.max_drift = self.max_drift.max(before);
            let moved = before > tol || p.velocity_violation(model, t, q, v, &[])? > tol;
            if moved {
                p.velocities(model, t, q, v, &[], speed_tol)?;
            }
            Ok(moved)
        };
        let moved = inner().map_err(|e| e.to_string())?;
        if moved {
            self.stats.projections += 1;
        }
        Ok(moved)
    }

    /// Gives the observer the state `y` at `t`, projected like the steps'
    /// ends.
    fn sample(
        &self,
        p: &mut Projector,
        observer: &mut dyn Observer,
        t: f64,
        y: &mut [f64],
    ) -> Result<(), String> {
        let model = self.model;
        let (tol, speed_tol) = (
            self.settings.drift_tolerance,
            speed_tolerance(&self.settings),
        );
        let (q, rest) = y.split_at_mut(self.nq);
        let v = &mut rest[..model.nv()];
        let mut inner = || -> Result<(), DynamicsError> {
            if p.positions(model, t, q, v, &[], tol)? > tol
                || p.velocity_violation(model, t, q, v, &[])? > speed_tol
            {
                p.velocities(model, t, q, v, &[], speed_tol)?;
            }
            Ok(())
        };
        inner().map_err(|e| e.to_string())?;
        observer.sample(t, q, v, &[]);
        Ok(())
    }
}

/// A step's error in words.
fn words(e: StepError<DynamicsError>, what: &str) -> String {
    match e {
        StepError::System(e) => e.to_string(),
        e => format!("the integrator {what}: {e}"),
    }
}

/// One sample of both motions from one start.
#[derive(Debug, Clone, PartialEq)]
pub struct EquationsRow {
    /// s.
    pub t: f64,
    /// The positions under the nonholonomic equations (Gauss's principle).
    pub nonholonomic: Vec<f64>,
    /// The positions under the vakonomic equations.
    pub vakonomic: Vec<f64>,
    /// The largest difference of any coordinate of `q`.
    pub position_difference: f64,
}

/// Both motions of a model from one start, sample by sample.
#[derive(Debug, Clone, PartialEq)]
pub struct EquationsComparison {
    /// A row per output sample, the start and the end included.
    pub rows: Vec<EquationsRow>,
    /// The largest position difference over the samples.
    pub max_position_difference: f64,
    /// The nonholonomic run.
    pub nonholonomic: Outcome,
    /// The vakonomic run (its `multipliers` at the end).
    pub vakonomic: Outcome,
}

/// Collects the positions of the samples.
struct Positions(Vec<(f64, Vec<f64>)>);

impl Observer for Positions {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], _v: &[f64], _c: &[crate::ContactSample]) {
        self.0.push((t, q.to_vec()));
    }
}

/// Runs `model` under both equations from its initial state (the
/// vakonomic multipliers starting at `multipliers`) and compares their
/// positions at every output sample: the contrast Liu Caishan (2016)
/// draws between the mechanics of nonholonomic systems and the vakonomic
/// variational problem.
pub fn compare_equations(
    model: &PlanarModel,
    duration: f64,
    settings: &Settings,
    multipliers: &[f64],
) -> EquationsComparison {
    let (mut a, mut b) = (Positions(Vec::new()), Positions(Vec::new()));
    let nonholonomic = simulate(model, duration, settings, &mut a);
    let vakonomic = simulate_vakonomic(model, duration, settings, multipliers, &mut b);
    let rows: Vec<EquationsRow> =
        a.0.into_iter()
            .zip(b.0)
            .map(|((t, nh), (_, vk))| EquationsRow {
                t,
                position_difference: nh
                    .iter()
                    .zip(&vk)
                    .fold(0.0f64, |m, (x, y)| m.max((x - y).abs())),
                nonholonomic: nh,
                vakonomic: vk,
            })
            .collect();
    let max_position_difference = rows
        .iter()
        .fold(0.0f64, |m, r| m.max(r.position_difference));
    EquationsComparison {
        rows,
        max_position_difference,
        nonholonomic,
        vakonomic,
    }
}
