//! `zwang._zwang`: the native half of the Python package `zwang` (the
//! Python half, `python/zwang`, builds instants from NumPy and SciPy
//! arrays, and runs sweeps on Dask).
//!
//! Everything here calls the facade crate `zwang`, as the command line
//! does: instants are read by the instant file's parser, from the same
//! JSON (`zwang_instant::file::parse_value`), so an array the parser
//! refuses raises the CLI's one-line message; answers are `zwang::answer`,
//! runs `zwang::run::Runnable` and `zwang_motion::report`, sweeps
//! `zwang::sweep`. Errors are `ValueError`s; the GIL is released while an
//! instant is solved, checked or compared, a scene runs, or a sweep runs.

mod simulation;

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};
use serde_json::{Map, Value};
use zwang::answer::{self, Answer};
use zwang::instant::file::{parse_instant, parse_value};
use zwang::instant::Instant;
use zwang::motion::report::{self, CsvWriter};
use zwang::run::Runnable;
use zwang::sweep::{self, Subject};

/// Why a spatial scene is refused: `zwang simulate` runs it; the
/// package's runs, trajectories and sweeps are planar for now.
const SPATIAL: &str = "scene.dimension: the Python package runs planar scenes (2) for now; \
                       `zwang simulate` runs spatial ones (3)";

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// The text of the file at `path`, or a `ValueError` that names the file
/// by `what` it was to hold, as the command line's message does.
fn read_text(path: &str, what: &str) -> PyResult<String> {
    std::fs::read_to_string(path)
        .map_err(|e| value_error(format!("{what}: cannot read {path}: {e}")))
}

/// A Python object as JSON: `None`, booleans, integers, floats (a NaN or
/// an infinity as the string the instant parser reports as not finite),
/// strings, lists and tuples, dicts with string keys; anything with
/// `tolist()` (NumPy arrays and scalars) through it.
fn json_of(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    if o.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = o.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = o.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if o.is_instance_of::<PyFloat>() {
        let x: f64 = o.extract()?;
        return Ok(serde_json::Number::from_f64(x).map_or_else(
            || {
                Value::String(
                    if x.is_nan() {
                        "NaN"
                    } else if x > 0.0 {
                        "Infinity"
                    } else {
                        "-Infinity"
                    }
                    .into(),
                )
            },
            Value::Number,
        ));
    }
    if let Ok(i) = o.extract::<i64>() {
        return Ok(Value::from(i));
    }
    if let Ok(d) = o.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| value_error(format!("a key must be a string, found {k}")))?;
            map.insert(key, json_of(&v)?);
        }
        return Ok(Value::Object(map));
    }
    if o.is_instance_of::<PyList>() || o.is_instance_of::<PyTuple>() {
        return o
            .try_iter()?
            .map(|v| json_of(&v?))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if o.hasattr("tolist")? {
        return json_of(&o.call_method0("tolist")?);
    }
    if let Ok(x) = o.extract::<f64>() {
        return json_of(&PyFloat::new(o.py(), x).into_any());
    }
    Err(value_error(format!(
        "cannot read {} as a number, string, list or dict",
        o.get_type().name()?
    )))
}

/// JSON as Python: dicts, lists, floats, ints, strings, `None`.
fn py_of<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(x) => match (x.as_i64(), x.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, x.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| py_of(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, py_of(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A TOML table as JSON (a scene's table, for `to_dict` and pickling).
fn json_of_toml(t: &toml::Table) -> Value {
    serde_json::to_value(t).unwrap_or_default()
}

/// JSON as a TOML table (a scene given as a dict).
fn toml_of_json(v: &Value) -> PyResult<toml::Table> {
    let Value::Object(o) = v else {
        return Err(value_error("scene: the top level must be a dict of tables"));
    };
    fn convert(key: &str, v: &Value) -> PyResult<toml::Value> {
        Ok(match v {
            Value::Null => return Err(value_error(format!("{key}: None has no TOML form"))),
            Value::Bool(b) => toml::Value::Boolean(*b),
            Value::Number(x) => match x.as_i64() {
                Some(i) => toml::Value::Integer(i),
                None => toml::Value::Float(x.as_f64().unwrap_or(f64::NAN)),
            },
            // A NaN given as a float reads as a float: the scene's check
            // then names its key.
            Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
                toml::Value::Float(s.parse().unwrap_or(f64::NAN))
            }
            Value::String(s) => toml::Value::String(s.clone()),
            Value::Array(a) => toml::Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| convert(&format!("{key}[{i}]"), x))
                    .collect::<PyResult<_>>()?,
            ),
            Value::Object(o) => toml::Value::Table(
                o.iter()
                    .map(|(k, x)| Ok((k.clone(), convert(&format!("{key}.{k}"), x)?)))
                    .collect::<PyResult<_>>()?,
            ),
        })
    }
    o.iter()
        .map(|(k, x)| Ok((k.clone(), convert(k, x)?)))
        .collect()
}

/// One instant: `M`, `Q`, constraint rows, friction entries, validated.
#[pyclass(module = "zwang._zwang", name = "Instant", frozen)]
struct PyInstant {
    /// The instant file's JSON it was read from.
    doc: Value,
    instant: Instant,
}

#[pymethods]
impl PyInstant {
    /// Reads an instant from the instant file's JSON as a dict (arrays as
    /// nested lists or NumPy arrays).
    #[staticmethod]
    fn _from_dict(doc: &Bound<'_, PyAny>) -> PyResult<Self> {
        let doc = json_of(doc)?;
        let instant = parse_value(&doc)
            .map_err(|e| value_error(e.to_string()))?
            .instant;
        Ok(PyInstant { doc, instant })
    }

    /// Reads an instant file (JSON), as `zwang solve FILE` does.
    #[staticmethod]
    fn from_file(path: &str) -> PyResult<Self> {
        Self::from_json(&read_text(path, "`file`")?)
    }

    /// Reads an instant from the text of an instant file.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let instant = parse_instant(text)
            .map_err(|e| value_error(e.to_string()))?
            .instant;
        let doc = serde_json::from_str(text).map_err(|e| value_error(e.to_string()))?;
        Ok(PyInstant { doc, instant })
    }

    /// The number of coordinates.
    #[getter]
    fn n(&self) -> usize {
        self.instant.dim()
    }

    /// The label, if any.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.instant.name()
    }

    /// The number of equality rows.
    #[getter]
    fn n_equalities(&self) -> usize {
        self.instant.equalities().len()
    }

    /// The number of inequality rows.
    #[getter]
    fn n_inequalities(&self) -> usize {
        self.instant.inequalities().len()
    }

    /// The instant file's JSON, as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &self.doc)
    }

    fn __repr__(&self) -> String {
        format!(
            "Instant(n={}, equalities={}, inequalities={}, friction={}, sticking={})",
            self.instant.dim(),
            self.instant.equalities().len(),
            self.instant.inequalities().len(),
            self.instant.sliding().len(),
            self.instant.sticking().len()
        )
    }
}

/// The answer of `solve`.
#[pyclass(module = "zwang._zwang", name = "Solution", frozen)]
struct PySolution {
    answer: Answer,
}

fn array<'py>(py: Python<'py>, x: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, x)
}

#[pymethods]
impl PySolution {
    /// `solved`, `infeasible`, `unbounded`, `not_converged`,
    /// `numerical_error` or `not_applicable`.
    #[getter]
    fn status(&self) -> &'static str {
        match &self.answer {
            Answer::NotApplicable { .. } | Answer::Qp { solution: None, .. } => "not_applicable",
            a => a.solution().map_or("not_applicable", |s| s.status.as_str()),
        }
    }

    /// The accelerations (empty when not applicable).
    #[getter]
    fn acceleration<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, self.answer.solution().map_or(&[], |s| &s.acceleration))
    }

    /// The multipliers of the equality rows.
    #[getter]
    fn multipliers_eq<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(
            py,
            self.answer.solution().map_or(&[], |s| &s.multipliers_eq),
        )
    }

    /// The multipliers of the inequality rows (`>= 0`).
    #[getter]
    fn multipliers_in<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(
            py,
            self.answer.solution().map_or(&[], |s| &s.multipliers_in),
        )
    }

    /// `Z = 1/2 (M a - Q)^T M^-1 (M a - Q)` (NaN when not applicable).
    #[getter]
    fn compulsion(&self) -> f64 {
        self.answer.solution().map_or(f64::NAN, |s| s.compulsion)
    }

    /// Whether it solved.
    #[getter]
    fn solved(&self) -> bool {
        self.answer.is_solved()
    }

    /// The `zwang solve --json` object, as a dict (lists for arrays).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &self.answer.json())
    }

    /// Any other key of the `zwang solve --json` object (`backend`,
    /// `residuals`, `iterations`, `form`, `verdict`, `modes`,
    /// `normal_forces`...): arrays of numbers as NumPy arrays.
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let json = self.answer.json();
        let Some(value) = json.get(name) else {
            return Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'Solution' has no attribute '{name}' (keys: {})",
                json.as_object()
                    .map(|o| o.keys().cloned().collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            )));
        };
        numbers_as_arrays(py, value)
    }

    fn __repr__(&self) -> String {
        format!(
            "Solution(status={:?}, acceleration={:?})",
            self.status(),
            self.answer.solution().map_or(&[][..], |s| &s.acceleration)
        )
    }

    /// The warning `zwang solve` prints for a Painleve-indeterminate
    /// instant, or `None`.
    #[getter]
    fn warning(&self) -> Option<&'static str> {
        self.answer.warning()
    }
}

/// JSON as Python, with arrays of numbers (at any depth) as NumPy arrays.
fn numbers_as_arrays<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Array(a) if a.iter().all(|x| x.is_number() || x.is_null()) => {
            let x: Vec<f64> = a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect();
            Ok(PyArray1::from_vec(py, x).into_any())
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, numbers_as_arrays(py, x)?)?;
            }
            Ok(d.into_any())
        }
        _ => py_of(py, v),
    }
}

/// Solves an instant as `zwang solve FILE --json --backend NAME` does.
#[pyfunction]
#[pyo3(signature = (instant, backend = "auto"))]
fn solve(py: Python<'_>, instant: &Bound<'_, PyInstant>, backend: &str) -> PyResult<PySolution> {
    let instant = instant.get();
    let answer = py
        .detach(|| answer::solve(&instant.instant, backend))
        .map_err(value_error)?;
    Ok(PySolution { answer })
}

/// Seconds per call of the Rust solve (`zwang::answer::solve`) on the
/// instant, over `reps` calls in a loop with the GIL released: the
/// reference the Python call's overhead is measured against
/// (`benches/measure.py`).
#[pyfunction]
#[pyo3(signature = (instant, reps, backend = "auto"))]
fn _time_solve(
    py: Python<'_>,
    instant: &Bound<'_, PyInstant>,
    reps: usize,
    backend: &str,
) -> PyResult<f64> {
    let instant = instant.get();
    py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(answer::solve(
                std::hint::black_box(&instant.instant),
                backend,
            )?);
        }
        Ok::<f64, String>(start.elapsed().as_secs_f64() / reps.max(1) as f64)
    })
    .map_err(value_error)
}

/// The object of `zwang check FILE --json`, as a dict.
#[pyfunction]
fn check<'py>(py: Python<'py>, instant: &Bound<'py, PyInstant>) -> PyResult<Bound<'py, PyAny>> {
    let instant = instant.get();
    let json = py.detach(|| {
        let checked = zwang::harness::checked(&instant.instant);
        serde_json::to_value(zwang::harness::CheckJson::from(&checked)).unwrap_or_default()
    });
    py_of(py, &json)
}

/// The object of `zwang compare FILE --json`, as a dict.
#[pyfunction]
fn compare<'py>(py: Python<'py>, instant: &Bound<'py, PyInstant>) -> PyResult<Bound<'py, PyAny>> {
    let instant = instant.get();
    let json = py.detach(|| {
        let comparison = zwang::harness::Comparison::of(&instant.instant);
        let name = instant.instant.name();
        serde_json::to_value(zwang::harness::CompareJson::new(None, name, &comparison))
            .unwrap_or_default()
    });
    py_of(py, &json)
}

/// A scene: the file's tables, and the scene they read as.
#[pyclass(module = "zwang._zwang", name = "Scene")]
struct PyScene {
    table: toml::Table,
    scene: zwang::scene::Scene,
}

#[pymethods]
impl PyScene {
    /// Reads a scene file (TOML), as `zwang simulate FILE` does.
    #[staticmethod]
    fn from_file(path: &str) -> PyResult<Self> {
        Self::from_toml(&read_text(path, "scene")?)
    }

    /// Reads a scene from the text of a scene file.
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<Self> {
        let scene = match zwang::scene::parse_any_scene(text) {
            Ok(zwang::scene::AnyScene::Planar(scene)) => scene,
            Ok(zwang::scene::AnyScene::Spatial(_)) => return Err(value_error(SPATIAL.to_string())),
            Err(e) => return Err(value_error(e.to_string())),
        };
        let table = toml::from_str(text).map_err(|e| value_error(e.to_string()))?;
        Ok(PyScene { table, scene })
    }

    /// Reads a scene from its tables as a dict (the TOML file as Python).
    #[staticmethod]
    fn from_dict(d: &Bound<'_, PyAny>) -> PyResult<Self> {
        let table = toml_of_json(&json_of(d)?)?;
        let dimension = table
            .get("scene")
            .and_then(|s| s.get("dimension"))
            .and_then(toml::Value::as_integer);
        if dimension == Some(3) {
            return Err(value_error(SPATIAL.to_string()));
        }
        let scene =
            zwang::scene::parse_scene_table(&table).map_err(|e| value_error(e.to_string()))?;
        Ok(PyScene { table, scene })
    }

    /// Sets a parameter by key path (`contact.floor.restitution`,
    /// `scene.duration`, `solver.time_step`, `body[0].mass`); a bad key or
    /// value raises `ValueError` naming the key, and leaves the scene as
    /// it was.
    fn set(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = toml_of_json(&Value::Object(Map::from_iter([(
            key.to_string(),
            json_of(value)?,
        )])))?
        .remove(key)
        .unwrap_or(toml::Value::Boolean(false));
        let (table, scene) = zwang::scene::with_key(&self.table, key, value)
            .map_err(|e| value_error(e.to_string()))?;
        self.table = table;
        self.scene = scene;
        Ok(())
    }

    /// The scene's tables as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &json_of_toml(&self.table))
    }

    /// `scene.name`, if any.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.scene.name.as_deref()
    }

    /// `scene.duration`, s.
    #[getter]
    fn duration(&self) -> f64 {
        self.scene.duration
    }

    fn __repr__(&self) -> String {
        format!(
            "Scene(name={:?}, bodies={}, contacts={}, duration={})",
            self.scene.name.as_deref().unwrap_or(""),
            self.scene.bodies.len(),
            self.scene.contacts.len(),
            self.scene.duration
        )
    }
}

/// Runs a scene as `zwang simulate SCENE --json --csv FILE` does; returns
/// the JSON summary as a dict, and (with `trajectory`) the CSV's header
/// and rows as the CSV's text.
#[pyfunction]
#[pyo3(signature = (scene, trajectory = true))]
fn simulate<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyScene>,
    trajectory: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<String>)> {
    let scene = scene.borrow().scene.clone();
    let (summary, csv) = py
        .detach(|| -> Result<(Value, Option<String>), String> {
            let runnable = Runnable::new(scene)?;
            if !trajectory {
                let outcome = runnable.run(&mut NoSamples, false);
                return Ok((report::summary(&runnable.model, &outcome), None));
            }
            let mut csv = CsvWriter::new(&runnable.model, Vec::new()).map_err(|e| e.to_string())?;
            let outcome = runnable.run(&mut csv, true);
            let text = csv.finish().map_err(|e| e.to_string())?;
            let text = String::from_utf8(text).map_err(|e| e.to_string())?;
            Ok((report::summary(&runnable.model, &outcome), Some(text)))
        })
        .map_err(value_error)?;
    Ok((py_of(py, &summary)?, csv))
}

/// An observer that wants no samples.
struct NoSamples;

impl zwang::motion::Observer for NoSamples {
    fn wants_samples(&self) -> bool {
        false
    }
    fn sample(&mut self, _: f64, _: &[f64], _: &[f64], _: &[zwang::motion::ContactSample]) {}
    fn event(&mut self, _: &zwang::motion::Event, _: &[zwang::motion::ContactSample]) {}
}

/// What a sweep runs, from a `Scene` or an `Instant`.
fn subject_of(o: &Bound<'_, PyAny>) -> PyResult<Subject> {
    if let Ok(scene) = o.cast::<PyScene>() {
        return Ok(Subject::Scene(scene.borrow().table.clone()));
    }
    if let Ok(instant) = o.cast::<PyInstant>() {
        return Ok(Subject::Instant(instant.get().doc.clone()));
    }
    Err(value_error("sweep: give a zwang.Scene or a zwang.Instant"))
}

/// Runs the parameter sets `points` (lists of values for `keys`) on
/// `threads` threads; returns one list per set, in order: the outputs.
#[pyfunction]
fn run_points<'py>(
    py: Python<'py>,
    subject: &Bound<'py, PyAny>,
    keys: Vec<String>,
    points: &Bound<'py, PyAny>,
    outputs: Vec<String>,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let subject = subject_of(subject)?;
    let points = match json_of(points)? {
        Value::Array(points) => points
            .into_iter()
            .map(|p| match p {
                Value::Array(p) if p.len() == keys.len() => Ok(p),
                _ => Err(value_error(
                    "sweep: each parameter set has one value per key",
                )),
            })
            .collect::<PyResult<Vec<_>>>()?,
        _ => return Err(value_error("sweep: the parameter sets are a list")),
    };
    let rows = py
        .detach(|| sweep::run_points(&subject, &keys, &points, &outputs, threads))
        .map_err(value_error)?;
    let rows = rows
        .into_iter()
        .map(|row| py_of(py, &Value::Array(row)))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, rows)
}

/// Checks every parameter set (reads it, builds the scene or instant)
/// without running any: the first that fails raises `ValueError`.
#[pyfunction]
fn check_points(
    py: Python<'_>,
    subject: &Bound<'_, PyAny>,
    keys: Vec<String>,
    points: &Bound<'_, PyAny>,
    outputs: Vec<String>,
) -> PyResult<()> {
    let subject = subject_of(subject)?;
    let points: Vec<Value> = match json_of(points)? {
        Value::Array(points) => points,
        _ => return Err(value_error("sweep: the parameter sets are a list")),
    };
    py.detach(|| -> Result<(), String> {
        subject.check_outputs(&outputs)?;
        for p in &points {
            let values = p.as_array().map_or(&[][..], Vec::as_slice);
            if values.len() != keys.len() {
                return Err("sweep: each parameter set has one value per key".into());
            }
            subject.prepare(&keys, values)?;
        }
        Ok(())
    })
    .map_err(value_error)
}

/// The module `zwang._zwang`.
#[pymodule]
fn _zwang(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyInstant>()?;
    m.add_class::<PySolution>()?;
    m.add_class::<PyScene>()?;
    m.add_class::<simulation::PySimulation>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(run_points, m)?)?;
    m.add_function(wrap_pyfunction!(check_points, m)?)?;
    m.add_function(wrap_pyfunction!(_time_solve, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
