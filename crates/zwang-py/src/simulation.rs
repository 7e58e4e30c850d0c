//! `zwang.Simulation`: an MJCF model run under Python's control
//! (`docs/mjcf.md`, "Python"), on [`zwang::articulated::Simulation`]. The
//! GIL is released while the model moves.

use numpy::PyArray1;
use pyo3::prelude::*;
use serde_json::json;
use zwang::articulated::{self, Method, Simulation};

use crate::{py_of, value_error};

/// The event-driven method's tolerance when none is given.
const TOLERANCE: f64 = 1e-10;

/// An MJCF model, its state and its controls.
#[pyclass(module = "zwang._zwang", name = "Simulation")]
pub(crate) struct PySimulation {
    sim: Simulation,
}

/// A keyframe given as a name or an index.
fn key_of(keyframe: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(k) = keyframe else { return Ok(None) };
    if k.is_none() {
        return Ok(None);
    }
    if let Ok(i) = k.extract::<usize>() {
        return Ok(Some(i.to_string()));
    }
    k.extract::<String>()
        .map(Some)
        .map_err(|_| value_error("keyframe: a key's name or its 0-based index"))
}

#[pymethods]
impl PySimulation {
    /// Reads `path` (an MJCF file) at `qpos0`, at rest, controls zero.
    /// `stepping` is `"timestep"` (the file's time step) or `"event"`
    /// (the event-driven method at `tolerance`, 1e-10 by default).
    #[new]
    #[pyo3(signature = (path, stepping = "timestep", tolerance = None))]
    fn new(py: Python<'_>, path: &str, stepping: &str, tolerance: Option<f64>) -> PyResult<Self> {
        let method = match (stepping, tolerance) {
            ("timestep", None) => Method::TimeStep,
            ("timestep", Some(_)) => {
                return Err(value_error("tolerance: only with stepping=\"event\""))
            }
            ("event", tol) => Method::Event(tol.unwrap_or(TOLERANCE)),
            (other, _) => {
                return Err(value_error(format!(
                    "stepping: `{other}`: \"timestep\" or \"event\""
                )))
            }
        };
        let path = path.to_string();
        let sim = py
            .detach(|| {
                let (model, ignored) = articulated::load(std::path::Path::new(&path))?;
                Simulation::new(model, ignored, method)
            })
            .map_err(value_error)?;
        Ok(PySimulation { sim })
    }

    /// Back to a keyframe (its name or index) or, with none, to `qpos0` at
    /// rest with zero controls; the report starts over.
    #[pyo3(signature = (keyframe = None))]
    fn reset(&mut self, keyframe: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let key = key_of(keyframe)?;
        self.sim.reset(key.as_deref()).map_err(value_error)
    }

    /// The coordinates (a copy).
    #[getter]
    fn qpos<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.sim.qpos())
    }

    #[setter]
    fn set_qpos(&mut self, value: Vec<f64>) -> PyResult<()> {
        self.sim.set_qpos(&value).map_err(value_error)
    }

    /// The velocities (a copy).
    #[getter]
    fn qvel<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.sim.qvel())
    }

    #[setter]
    fn set_qvel(&mut self, value: Vec<f64>) -> PyResult<()> {
        self.sim.set_qvel(&value).map_err(value_error)
    }

    /// The controls (a copy), held until set again.
    #[getter]
    fn ctrl<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.sim.ctrl())
    }

    #[setter]
    fn set_ctrl(&mut self, value: Vec<f64>) -> PyResult<()> {
        self.sim.set_ctrl(&value).map_err(value_error)
    }

    /// The time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.sim.time()
    }

    /// One time step of the model (`stepping="timestep"`).
    fn step(&mut self, py: Python<'_>) -> PyResult<()> {
        let sim = &mut self.sim;
        py.detach(|| sim.step()).map_err(value_error)
    }

    /// Moves the model `duration` s on with the controls held.
    fn advance(&mut self, py: Python<'_>, duration: f64) -> PyResult<()> {
        let sim = &mut self.sim;
        py.detach(|| sim.advance(duration)).map_err(value_error)
    }

    /// A body's world state: `position`, `orientation` `[w, x, y, z]`,
    /// `velocity`, `angular_velocity`.
    fn body<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let b = self.sim.body(name).map_err(value_error)?;
        py_of(
            py,
            &json!({
                "position": b.position,
                "orientation": b.orientation,
                "velocity": b.velocity,
                "angular_velocity": b.angular_velocity,
            }),
        )
    }

    /// The dict of `zwang simulate MODEL.xml --json` for the run so far.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &self.sim.report().to_json(self.sim.model()))
    }

    fn __repr__(&self) -> String {
        let tree = &self.sim.model().tree;
        format!(
            "Simulation(nq={}, nv={}, nu={}, time={})",
            tree.nq(),
            tree.nv(),
            self.sim.model().actuators.len(),
            self.sim.time()
        )
    }
}
