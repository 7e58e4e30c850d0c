//! One velocity-level step, as a pipeline of named stages (collide,
//! assemble, solve, integrate, correct), each timed; written once, for
//! every model's [`Stages`].

use std::time::Instant as Clock;

use super::{OnUnsolved, StepError, StepReport, StepTotals};

/// What a model does in each stage of a step; [`step`] runs them in
/// order, times them, and judges the step.
pub(crate) trait Stages {
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
    /// (after [`Stages::solve`]).
    fn restore(&mut self) {}

    /// 4. The new velocities and positions, and the time, checked finite.
    fn integrate(&mut self, h: f64) -> Result<(), StepError>;

    /// The contacts at the new positions, and 5. correct: overlap and
    /// joint drift projected away; each part timed into `totals`, the
    /// correction said in `last`.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError>;

    /// The time now.
    fn time(&self) -> f64;

    /// What an unsolved step does.
    fn on_unsolved(&self) -> OnUnsolved;

    /// The run's totals and the step's report, written by the stages.
    fn books(&mut self) -> (&mut StepTotals, &mut StepReport);
}

/// One step of `h` through `stages`: a step whose contact problem ends
/// unsolved under [`OnUnsolved::Fail`] is not integrated (the state stays
/// the step's start).
pub(crate) fn step<S: Stages>(stages: &mut S, h: f64) -> Result<StepReport, StepError> {
    let clock = Clock::now();
    stages.prepare(h)?;
    stages.books().0.stages.assemble += clock.elapsed();
    let clock = Clock::now();
    stages.collide(h)?;
    stages.books().0.stages.collide += clock.elapsed();
    let clock = Clock::now();
    stages.assemble(h)?;
    stages.books().0.stages.assemble += clock.elapsed();
    let clock = Clock::now();
    let report = stages.solve()?;
    let (totals, last) = stages.books();
    totals.stages.solve += clock.elapsed();
    *last = report;
    let start = stages.time();
    if !report.solved && stages.on_unsolved() == OnUnsolved::Fail {
        stages.restore();
        stages.books().0.judge(start, &report, OnUnsolved::Fail)?;
    }
    let clock = Clock::now();
    stages.integrate(h)?;
    stages.books().0.stages.integrate += clock.elapsed();
    stages.end_of_step(h)?;
    let on_unsolved = stages.on_unsolved();
    let (totals, last) = stages.books();
    totals.steps += 1;
    totals.judge(start, last, on_unsolved)?;
    Ok(*last)
}
