//! Running a scene file's description: its solver settings as the
//! stepper's.

use crate::islands::simulate_islands;
use crate::simulate::{Observer, Outcome, Settings};
use zwang_model::planar::PlanarModel;
use zwang_model::ModelError;
use zwang_scene::{Method, Scene};

/// The stepper settings a scene asks for (`[solver]`, `output_every`).
pub fn settings_of(scene: &Scene) -> Settings {
    let mut s = Settings::default();
    s.ode.method = match scene.solver.method {
        Method::Dop853 => zwang_ode::Method::Dop853,
        Method::Dopri5 => zwang_ode::Method::Dopri5,
    };
    s.ode.rtol = scene.solver.tolerance;
    s.ode.atol = scene.solver.absolute_tolerance;
    s.max_steps = scene.solver.max_steps;
    s.output_every = scene.output_every;
    s
}

/// Builds the scene's model and runs it to its duration, each of its
/// independent parts (bodies no joint or spring links) on its own steps
/// and events.
pub fn run_scene(
    scene: &Scene,
    observer: &mut dyn Observer,
) -> Result<(PlanarModel, Outcome), ModelError> {
    let model = scene.model()?;
    let islands = model.islands()?;
    let outcome = simulate_islands(
        &model,
        &islands,
        scene.duration,
        &settings_of(scene),
        observer,
    );
    Ok((model, outcome))
}
