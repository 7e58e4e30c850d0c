//! Running a scene file's description ([`zwang_scene::Scene`], or
//! [`zwang_scene::SpatialScene`] in space) with the settings it asks for:
//! its `[solver]` table as the stepper's settings. It lives here, where
//! the scene format and motion meet, so that `zwang-motion` does not
//! depend on the scene format.

use zwang_model::planar::PlanarModel;
use zwang_model::spatial::SpatialModel;
use zwang_model::ModelError;
use zwang_motion::{
    simulate, simulate_islands, simulate_space, simulate_steps, simulate_vakonomic, Observer,
    Outcome, Settings, StepSettings,
};
use zwang_scene::{Equations, Scene, SolverSettings, SpatialScene, Stepping};

/// The stepper settings a scene asks for (`[solver]`, `output_every`).
pub fn settings_of(scene: &Scene) -> Settings {
    event_settings(&scene.solver, scene.output_every)
}

/// The event-driven method's settings a spatial scene asks for
/// (`stepping = "event"`): those of a planar scene with the same keys.
pub fn space_event_settings_of(scene: &SpatialScene) -> Settings {
    event_settings(&scene.solver, scene.output_every)
}

/// The event-driven method's settings of a `[solver]` table, either
/// dimension.
fn event_settings(solver: &SolverSettings, output_every: f64) -> Settings {
    let mut s = Settings::default();
    s.ode.method = solver.method;
    s.ode.rtol = solver.tolerance;
    s.ode.atol = solver.absolute_tolerance;
    s.max_steps = solver.max_steps;
    s.output_every = output_every;
    s
}

/// The time stepper's settings a scene asks for (`[solver]` with
/// `stepping = "timestep"`, `output_every`).
pub fn step_settings_of(scene: &Scene) -> StepSettings {
    step_settings(&scene.solver, scene.output_every)
}

/// The time stepper's settings a spatial scene asks for (`[solver]`,
/// `output_every`): those of a planar scene with the same keys.
pub fn space_step_settings_of(scene: &SpatialScene) -> StepSettings {
    step_settings(&scene.solver, scene.output_every)
}

/// The time stepper's settings of a `[solver]` table, either dimension.
fn step_settings(solver: &SolverSettings, output_every: f64) -> StepSettings {
    StepSettings {
        time_step: solver.time_step,
        friction: solver.friction,
        output_every,
        max_steps: solver.max_steps,
        on_unsolved: solver.on_unsolved,
        tolerance: solver.contact_tolerance,
        ..StepSettings::default()
    }
}

/// Builds a spatial scene's model and runs it to its duration with the
/// time stepper in space ([`simulate_space`]) or, when the scene asks for
/// `stepping = "event"` (no shapes; joints of any kind), the event-driven
/// method ([`simulate()`]). The observer gets each moving body's coordinates
/// (of its principal frame): turn them into what users see with
/// [`SpatialModel::body_state`].
///
/// A function of its own beside [`run_scene`], not a variant of it (an
/// enum of the two models): the two dimensions share no model type, no
/// state users see (an angle or a quaternion) and no stepper (events and
/// independent parts are planar), so a caller matches on the dimension
/// once, where it reads the file ([`zwang_scene::AnyScene`]), and each
/// path stays typed to its model; [`run_scene`] and its callers are left
/// as they were.
pub fn run_space_scene(
    scene: &SpatialScene,
    observer: &mut dyn Observer,
) -> Result<(SpatialModel, Outcome), ModelError> {
    let model = scene.model()?;
    let outcome = match scene.solver.stepping {
        Stepping::TimeStep => simulate_space(
            &model,
            scene.duration,
            &space_step_settings_of(scene),
            observer,
        ),
        Stepping::Event => simulate(
            &model,
            scene.duration,
            &space_event_settings_of(scene),
            observer,
        ),
    };
    Ok((model, outcome))
}

/// Builds the scene's model and runs it to its duration: by its
/// `stepping`, event-driven (each independent part, bodies no joint or
/// spring links, on its own steps and events) or time-stepped; with
/// `equations = "vakonomic"`, the vakonomic equations
/// ([`simulate_vakonomic`], the whole model at once).
pub fn run_scene(
    scene: &Scene,
    observer: &mut dyn Observer,
) -> Result<(PlanarModel, Outcome), ModelError> {
    let model = scene.model()?;
    let outcome = match scene.solver.stepping {
        Stepping::TimeStep => {
            simulate_steps(&model, scene.duration, &step_settings_of(scene), observer)
        }
        Stepping::Event if scene.solver.equations == Equations::Vakonomic => {
            run_vakonomic(&model, scene, &settings_of(scene), observer)
        }
        Stepping::Event => {
            let islands = model.islands()?;
            simulate_islands(
                &model,
                &islands,
                scene.duration,
                &settings_of(scene),
                observer,
            )
        }
    };
    Ok((model, outcome))
}

/// The vakonomic run of a scene's model, with its initial multipliers.
fn run_vakonomic(
    model: &PlanarModel,
    scene: &Scene,
    settings: &Settings,
    observer: &mut dyn Observer,
) -> Outcome {
    let multipliers = &scene.solver.vakonomic_multipliers;
    simulate_vakonomic(model, scene.duration, settings, multipliers, observer)
}

/// A scene ready to run: its model built, and what its stepping needs
/// checked up front (the time stepper's joints and masses, the
/// event-driven parts), so that a scene it cannot run is refused like a
/// malformed one. `zwang simulate`, the Python package and the sweeps
/// run scenes with it.
pub struct Runnable {
    /// The scene.
    pub scene: Scene,
    /// Its model.
    pub model: PlanarModel,
    /// The independent parts, for event-driven stepping.
    islands: Vec<zwang_model::Island<PlanarModel>>,
}

impl Runnable {
    /// Builds the scene's model and checks that its stepping can run it;
    /// the error is the one line `zwang simulate` prints (exit code 2).
    pub fn new(scene: Scene) -> Result<Runnable, String> {
        let model = scene.model().map_err(|e| e.to_string())?;
        let islands = match scene.solver.stepping {
            Stepping::TimeStep => {
                zwang_motion::TimeStepper::new(&model, step_settings_of(&scene))
                    .map_err(|e| e.to_string())?;
                Vec::new()
            }
            Stepping::Event if scene.solver.equations == Equations::Vakonomic => Vec::new(),
            Stepping::Event => model.islands().map_err(|e| e.to_string())?,
        };
        Ok(Runnable {
            scene,
            model,
            islands,
        })
    }

    /// Runs the scene to its duration. With `sampled` false the steppers
    /// sample only the two ends (a stepper walks through every sample
    /// time even when nobody wants it): `zwang simulate --json` without
    /// `--csv`, `--plot` or `--draw`.
    pub fn run(&self, observer: &mut dyn Observer, sampled: bool) -> Outcome {
        let duration = self.scene.duration;
        match self.scene.solver.stepping {
            Stepping::TimeStep => {
                let mut settings = step_settings_of(&self.scene);
                if !sampled {
                    settings.output_every = duration;
                }
                simulate_steps(&self.model, duration, &settings, observer)
            }
            Stepping::Event => {
                let mut settings = settings_of(&self.scene);
                if !sampled {
                    settings.output_every = duration;
                }
                if self.scene.solver.equations == Equations::Vakonomic {
                    return run_vakonomic(&self.model, &self.scene, &settings, observer);
                }
                simulate_islands(&self.model, &self.islands, duration, &settings, observer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zwang_motion::NoObserver;

    /// A unit cube dropped from 1 cm lands on the floor and rests there:
    /// the spatial path runs through `simulate_space` with the scene's
    /// settings.
    #[test]
    fn a_spatial_scene_runs() {
        let scene = zwang_scene::parse_spatial_scene(
            r#"
            [scene]
            dimension = 3
            duration = 0.5
            [[body]]
            name = "floor"
            kind = "fixed"
            shape = { kind = "halfspace", normal = [0, 0, 1] }
            [[body]]
            name = "cube"
            kind = "rigid"
            mass = 1
            position = [0, 0, 0.51]
            shape = { kind = "box", half_extents = [0.5, 0.5, 0.5] }
            [solver]
            time_step = 0.005
            "#,
        )
        .unwrap();
        assert_eq!(space_step_settings_of(&scene).time_step, 0.005);
        let (model, outcome) = run_space_scene(&scene, &mut NoObserver).unwrap();
        assert_eq!(outcome.time, 0.5);
        assert_eq!(outcome.steps, 100);
        let state = model.body_state(1, &outcome.q, &outcome.v);
        assert!((state.position[2] - 0.5).abs() < 1e-5, "{state:?}");
    }
}
