//! One velocity-level step, as a pipeline of named stages (collide,
//! assemble, solve, integrate, correct), each timed; written once, for
//! every model's [`Stages`].

use std::time::Instant as Clock;

use super::{OnUnsolved, StepCore, StepError, StepReport};
use crate::simulate::ContactSample;

/// What a model does in each stage of a velocity-level step, and what the
/// run loop asks of it; [`step`] runs the stages in order, times them and
/// judges the step, and the run loop (`run.rs`) runs the steps. The planar
/// ([`crate::TimeStepper`]) and spatial ([`crate::SpaceStepper`]) models
/// implement it; so will the next model that steps at velocity level.
pub trait Stages {
    /// Before the contacts: what their margin needs (in space, the free
    /// velocity), timed with assemble. Nothing by default.
    fn prepare(&mut self, _h: f64) -> Result<(), StepError> {
        Ok(())
    }

    /// 1. The contacts at the current positions, unless the last step's
    ///    end found them there.
    fn collide(&mut self, h: f64) -> Result<(), StepError>;

    /// 2. The free velocity and the contact problem.
    fn assemble(&mut self, h: f64) -> Result<(), StepError>;

    /// 3. Coulomb's law on the impulses, warm-started: what the solve did.
    fn solve(&mut self) -> Result<StepReport, StepError>;

    /// The state back at the step's start, for a step not integrated
    /// (after [`Stages::solve`]). Nothing by default.
    fn restore(&mut self) {}

    /// 4. The new velocities and positions, and the time (checked finite
    ///    by [`step`]).
    fn integrate(&mut self, h: f64) -> Result<(), StepError>;

    /// The contacts at the new positions, and 5. correct: overlap and
    /// joint drift projected away; each part timed into the totals, a
    /// correction said in the last step's report.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError>;

    /// The positions `s` into a step that started at `q` with the step's
    /// velocities `v` (`q (+) s v`, on the orientations' manifold), into
    /// `out`, which holds `q` on entry.
    fn advance(&self, v: &[f64], s: f64, out: &mut [f64]);

    /// The energy at `(t, q, v)`.
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64;

    /// The contact points' forces and modes over the last step of `h`
    /// (none by default).
    fn contact_samples(&self, _h: f64, out: &mut Vec<ContactSample>) {
        out.clear();
    }

    /// The state, settings and totals every model has.
    fn core(&self) -> &StepCore;

    /// The same, to write.
    fn core_mut(&mut self) -> &mut StepCore;
}

/// One step of `h` through `stages`: a step whose contact problem ends
/// unsolved under [`OnUnsolved::Fail`] is not integrated (the state stays
/// the step's start).
pub fn step<S: Stages + ?Sized>(stages: &mut S, h: f64) -> Result<StepReport, StepError> {
    let clock = Clock::now();
    stages.prepare(h)?;
    stages.core_mut().totals.stages.assemble += clock.elapsed();
    let clock = Clock::now();
    stages.collide(h)?;
    stages.core_mut().totals.stages.collide += clock.elapsed();
    let clock = Clock::now();
    stages.assemble(h)?;
    stages.core_mut().totals.stages.assemble += clock.elapsed();
    let clock = Clock::now();
    let report = stages.solve()?;
    let core = stages.core_mut();
    core.totals.stages.solve += clock.elapsed();
    core.last = report;
    let start = core.t;
    if !report.solved && core.settings.on_unsolved == OnUnsolved::Fail {
        stages.restore();
        stages
            .core_mut()
            .totals
            .judge(start, &report, OnUnsolved::Fail)?;
    }
    let clock = Clock::now();
    stages.integrate(h)?;
    let core = stages.core_mut();
    core.totals.stages.integrate += clock.elapsed();
    // Collision detection takes only finite poses.
    if !core.q.iter().chain(&core.v).all(|x| x.is_finite()) {
        return Err(StepError::NotFinite);
    }
    stages.end_of_step(h)?;
    let core = stages.core_mut();
    core.totals.steps += 1;
    core.totals
        .judge(start, &core.last, core.settings.on_unsolved)?;
    Ok(core.last)
}
