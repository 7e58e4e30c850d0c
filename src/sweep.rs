//! Parameter sweeps: a scene or an instant run once per parameter set of a
//! grid (the cartesian product of lists of values, by key path), a row per
//! run with the parameters and the outputs asked for. `zwang sweep SPEC
//! --shard i/n` and the Python package's `zwang.sweep` run them with this
//! module; the specification file is documented in `docs/sweeps.md` at the
//! root of the repository.
//!
//! Key paths: for a scene those of [`zwang_scene::set_key`]
//! (`contact.floor.restitution`, `scene.duration`, `body[0].mass`); for an
//! instant, keys of the instant file with indices (`force[1]`,
//! `friction[0].mu`, `inequalities.b[0]`). Outputs are paths into the JSON
//! of the run: for a scene the object of `zwang simulate --json`
//! (`status`, `time`, `final.ball.position`, `energy.final`, `events`); for
//! an instant that of `zwang solve --json` (`status`, `acceleration`,
//! `multipliers.inequalities`), `check.KEY` in that of `zwang check
//! --json` (`check.verdict`) and `compare.KEY` in that of `zwang compare
//! --json` (`compare.non_equivalence.acceleration`). A path that is not
//! there in a run's object is `null` in its row.

use crate::answer;
use crate::run::Runnable;
use serde_json::Value;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use zwang_instant::file::parse_value;
use zwang_instant::Instant;
use zwang_motion::report;

/// What a sweep runs: a scene file's table or an instant file's JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// A scene file, as read from its TOML.
    Scene(toml::Table),
    /// An instant file, as read from its JSON.
    Instant(Value),
}

/// The top-level keys of `zwang simulate --json` an output may start with.
const SCENE_OUTPUTS: &[&str] = &[
    "status",
    "reason",
    "time",
    "steps",
    "events",
    "final",
    "energy",
    "start_projection",
    "max_constraint_drift",
    "max_penetration",
    "multipliers",
    "unsolved_steps",
    "contact_error",
    "stats",
];
/// Those of `zwang solve --json`, with `check` and `compare`.
const INSTANT_OUTPUTS: &[&str] = &[
    "status",
    "acceleration",
    "multipliers",
    "compulsion",
    "backend",
    "residuals",
    "iterations",
    "form",
    "reason",
    "verdict",
    "coupling",
    "modes",
    "answers",
    "normal_forces",
    "tangential_forces",
    "friction_force",
    "sticking",
    "equality_orders",
    "check",
    "compare",
];

/// One piece of a path: a key and the indices after it.
fn pieces(path: &str) -> Option<Vec<(&str, Vec<usize>)>> {
    path.split('.')
        .map(|part| {
            let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
            let mut indices = Vec::new();
            while !rest.is_empty() {
                let close = rest.find(']')?;
                indices.push(rest.get(1..close)?.parse().ok()?);
                rest = &rest[close + 1..];
            }
            (!key.is_empty()).then_some((key, indices))
        })
        .collect()
}

/// The value at `path` in `value` (`final.ball.position[0]`), if there.
pub fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut at = value;
    for (key, indices) in pieces(path)? {
        at = at.get(key)?;
        for i in indices {
            at = at.get(i)?;
        }
    }
    Some(at)
}

/// Sets the value at `path` in an instant file's JSON (`force[1]`,
/// `friction[0].mu`): every key and index on the way must be there but the
/// last key.
fn set_json(root: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let pieces = pieces(path).ok_or_else(|| format!("{path}: not a key path"))?;
    let mut at = root;
    let last = pieces.len() - 1;
    for (k, (key, indices)) in pieces.into_iter().enumerate() {
        let object = at
            .as_object_mut()
            .ok_or_else(|| format!("{path}: `{key}` is not in an object"))?;
        if k == last && indices.is_empty() {
            object.insert(key.to_string(), value);
            return Ok(());
        }
        at = object
            .get_mut(key)
            .ok_or_else(|| format!("{path}: the instant has no `{key}`"))?;
        for i in indices {
            let len = at.as_array().map_or(0, Vec::len);
            at = at
                .get_mut(i)
                .ok_or_else(|| format!("{path}: index {i} is past the end ({len} entries)"))?;
        }
    }
    *at = value;
    Ok(())
}

/// A JSON value as TOML (`null` has no TOML form).
fn toml_of(value: &Value) -> Result<toml::Value, String> {
    Ok(match value {
        Value::Null => return Err("null has no TOML form".into()),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(x) => match x.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(x.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(a) => toml::Value::Array(a.iter().map(toml_of).collect::<Result<_, _>>()?),
        Value::Object(o) => toml::Value::Table(
            o.iter()
                .map(|(k, v)| Ok((k.clone(), toml_of(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// A run set up: the scene built and checked, or the instant validated.
pub enum Prepared {
    /// A scene ready to run.
    Scene(Box<Runnable>),
    /// A valid instant.
    Instant(Box<Instant>),
}

impl Subject {
    /// The subject with the parameters `keys` set to `values`, read and
    /// checked; the error is one line naming the key.
    pub fn prepare(&self, keys: &[String], values: &[Value]) -> Result<Prepared, String> {
        match self {
            Subject::Scene(table) => {
                let mut table = table.clone();
                let mut scene = None;
                for (key, value) in keys.iter().zip(values) {
                    let value = toml_of(value).map_err(|e| format!("{key}: {e}"))?;
                    let (t, s) =
                        zwang_scene::with_key(&table, key, value).map_err(|e| e.to_string())?;
                    table = t;
                    scene = Some(s);
                }
                let scene = match scene {
                    Some(scene) => scene,
                    None => zwang_scene::parse_scene_table(&table).map_err(|e| e.to_string())?,
                };
                Ok(Prepared::Scene(Box::new(Runnable::new(scene)?)))
            }
            Subject::Instant(doc) => {
                let mut doc = doc.clone();
                for (key, value) in keys.iter().zip(values) {
                    set_json(&mut doc, key, value.clone())?;
                }
                let parsed = parse_value(&doc).map_err(|e| e.to_string())?;
                Ok(Prepared::Instant(Box::new(parsed.instant)))
            }
        }
    }

    /// The outputs when none are named: `status` and `time` for a scene,
    /// `status` for an instant.
    pub fn default_outputs(&self) -> Vec<String> {
        match self {
            Subject::Scene(_) => vec!["status".into(), "time".into()],
            Subject::Instant(_) => vec!["status".into()],
        }
    }

    /// Refuses an output whose first key the run's object never has.
    pub fn check_outputs(&self, outputs: &[String]) -> Result<(), String> {
        let known = match self {
            Subject::Scene(_) => SCENE_OUTPUTS,
            Subject::Instant(_) => INSTANT_OUTPUTS,
        };
        for output in outputs {
            let first = pieces(output).and_then(|p| p.first().map(|(key, _)| key.to_string()));
            if !first.is_some_and(|key| known.contains(&key.as_str())) {
                return Err(format!(
                    "output `{output}`: not a key of the run's object (known: {})",
                    known.join(", ")
                ));
            }
        }
        Ok(())
    }
}

impl Prepared {
    /// Runs it (a scene sampled at its ends only) and returns the outputs
    /// asked for, in their order.
    pub fn outputs(&self, outputs: &[String]) -> Vec<Value> {
        let mut row = Vec::with_capacity(outputs.len());
        match self {
            Prepared::Scene(runnable) => {
                let outcome = runnable.run(&mut NoSamples, false);
                let summary = report::summary(&runnable.model, &outcome);
                for output in outputs {
                    row.push(lookup(&summary, output).cloned().unwrap_or(Value::Null));
                }
            }
            Prepared::Instant(instant) => {
                let (mut solved, mut check, mut compare) = (None, None, None);
                for output in outputs {
                    let (object, path) = if let Some(path) = output.strip_prefix("check.") {
                        let v = check.get_or_insert_with(|| {
                            let checked = zwang_harness::checked(instant);
                            serde_json::to_value(zwang_harness::CheckJson::from(&checked))
                                .unwrap_or_default()
                        });
                        (&*v, path)
                    } else if let Some(path) = output.strip_prefix("compare.") {
                        let v = compare.get_or_insert_with(|| {
                            let comparison = zwang_harness::Comparison::of(instant);
                            serde_json::to_value(zwang_harness::CompareJson::new(
                                None,
                                instant.name(),
                                &comparison,
                            ))
                            .unwrap_or_default()
                        });
                        (&*v, path)
                    } else {
                        let v = solved.get_or_insert_with(|| {
                            answer::solve(instant, answer::DEFAULT_BACKEND)
                                .map(|a| a.json())
                                .unwrap_or_default()
                        });
                        (&*v, output.as_str())
                    };
                    row.push(lookup(object, path).cloned().unwrap_or(Value::Null));
                }
            }
        }
        row
    }
}

/// An observer that wants no samples.
struct NoSamples;

impl zwang_motion::Observer for NoSamples {
    fn wants_samples(&self) -> bool {
        false
    }
    fn sample(&mut self, _: f64, _: &[f64], _: &[f64], _: &[zwang_motion::ContactSample]) {}
    fn event(&mut self, _: &zwang_motion::Event, _: &[zwang_motion::ContactSample]) {}
}

/// The grid's parameter sets, the cartesian product of the lists in
/// order: the first key varies slowest, the last fastest (as Python's
/// `itertools.product`). An empty list gives no set; no key gives one.
pub fn points(lists: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out = vec![Vec::new()];
    for list in lists {
        out = out
            .into_iter()
            .flat_map(|p| {
                list.iter().map(move |v| {
                    let mut p = p.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

/// The runs of shard `i` of `n` (0-based) among `total`: consecutive
/// blocks, the first `total % n` one run longer, so that the shards'
/// rows, concatenated in shard order, are the whole table in order.
pub fn shard(total: usize, i: usize, n: usize) -> Range<usize> {
    let (size, extra) = (total / n, total % n);
    let start = i * size + i.min(extra);
    start..start + size + usize::from(i < extra)
}

/// Runs every parameter set of `points` on `threads` threads (at least
/// one) and returns their outputs in order, one list per set (the
/// outputs in the order asked; [`row`] puts the parameters before them).
/// Every set is read and checked before any runs: the first
/// that fails is the error (one line naming the key).
pub fn run_points(
    subject: &Subject,
    keys: &[String],
    points: &[Vec<Value>],
    outputs: &[String],
    threads: usize,
) -> Result<Vec<Vec<Value>>, String> {
    subject.check_outputs(outputs)?;
    let prepared = points
        .iter()
        .map(|values| subject.prepare(keys, values))
        .collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<Mutex<Option<Vec<Value>>>> = prepared.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(p) = prepared.get(k) else { break };
        let row = p.outputs(outputs);
        if let Ok(mut slot) = rows[k].lock() {
            *slot = Some(row);
        }
    };
    let threads = threads.clamp(1, prepared.len().max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    rows.into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .ok_or_else(|| "a run panicked".to_string())
        })
        .collect()
}

/// One run's row as a JSON object's text, its keys in order: `run` (its
/// index in the whole sweep), the parameters by key path, the outputs by
/// path (`zwang sweep` prints one per line).
pub fn row(
    run: usize,
    keys: &[String],
    values: &[Value],
    outputs: &[String],
    got: &[Value],
) -> String {
    let mut text = format!("{{\"run\":{run}");
    for (key, value) in keys.iter().zip(values).chain(outputs.iter().zip(got)) {
        text.push(',');
        text.push_str(&Value::String(key.clone()).to_string());
        text.push(':');
        text.push_str(&value.to_string());
    }
    text.push('}');
    text
}

/// A sweep specification file (TOML, `docs/sweeps.md`): the subject, the
/// grid and the outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The scene or instant.
    pub subject: Subject,
    /// The parameters' key paths, in the grid's order.
    pub keys: Vec<String>,
    /// Their values.
    pub lists: Vec<Vec<Value>>,
    /// The outputs, by path.
    pub outputs: Vec<String>,
}

impl Spec {
    /// Reads a specification; `read(path)` gives the text of the scene or
    /// instant file it names (relative paths are the caller's to resolve).
    pub fn parse(
        text: &str,
        read: impl Fn(&str) -> Result<String, String>,
    ) -> Result<Spec, String> {
        let root: toml::Table = toml::from_str(text)
            .map_err(|e| format!("spec: {}", e.message().trim().replace('\n', "; ")))?;
        for key in root.keys() {
            if !["scene", "instant", "grid", "outputs"].contains(&key.as_str()) {
                return Err(format!(
                    "spec.{key}: unknown key (known: scene, instant, grid, outputs)"
                ));
            }
        }
        let path_of = |key: &str| match root.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("spec.{key}: must be a path (a string)")),
        };
        let subject = match (path_of("scene")?, path_of("instant")?) {
            (Some(path), None) => {
                let text = read(&path).map_err(|e| format!("spec.scene: {e}"))?;
                let table: toml::Table = toml::from_str(&text).map_err(|_| {
                    zwang_scene::parse_scene(&text)
                        .err()
                        .map_or_else(|| "scene: not TOML".into(), |e| e.to_string())
                })?;
                Subject::Scene(table)
            }
            (None, Some(path)) => {
                let text = read(&path).map_err(|e| format!("spec.instant: {e}"))?;
                let doc: Value = serde_json::from_str(&text).map_err(|_| {
                    zwang_instant::file::parse_instant(&text)
                        .err()
                        .map_or_else(|| "instant: not JSON".into(), |e| e.to_string())
                })?;
                Subject::Instant(doc)
            }
            _ => return Err("spec: give exactly one of `scene` and `instant`".into()),
        };
        let mut keys = Vec::new();
        let mut lists = Vec::new();
        match root.get("grid") {
            None => {}
            Some(toml::Value::Table(grid)) => {
                for (key, list) in grid {
                    let toml::Value::Array(list) = list else {
                        return Err(format!("spec.grid.\"{key}\": must be a list of values"));
                    };
                    let list = list
                        .iter()
                        .map(|v| serde_json::to_value(v).map_err(|e| e.to_string()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| format!("spec.grid.\"{key}\": {e}"))?;
                    keys.push(key.clone());
                    lists.push(list);
                }
            }
            Some(_) => return Err("spec.grid: must be a table of lists".into()),
        }
        let outputs = match root.get("outputs") {
            None => subject.default_outputs(),
            Some(toml::Value::Array(list)) => list
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| "spec.outputs: must be a list of paths (strings)".into())
                })
                .collect::<Result<_, String>>()?,
            Some(_) => return Err("spec.outputs: must be a list of paths (strings)".into()),
        };
        subject.check_outputs(&outputs)?;
        Ok(Spec {
            subject,
            keys,
            lists,
            outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_product_is_in_order_and_shards_cover_it() {
        let p = points(&[
            vec![json!(1), json!(2)],
            vec![json!("a"), json!("b"), json!("c")],
        ]);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], [json!(1), json!("a")]);
        assert_eq!(p[1], [json!(1), json!("b")]);
        assert_eq!(p[3], [json!(2), json!("a")]);
        assert_eq!(points(&[]), vec![Vec::<Value>::new()]);
        for total in 0..12 {
            for n in 1..5 {
                let all: Vec<usize> = (0..n).flat_map(|i| shard(total, i, n)).collect();
                assert_eq!(all, (0..total).collect::<Vec<_>>());
            }
        }
    }

    /// The vakonomic skate (a blade through the centre, `m = 1`, `v0 = 1`)
    /// swept over its initial multiplier: from 0 the multiplier ends at
    /// `-m v0 sin(theta)`; from 0.5 the motion is another.
    #[test]
    fn a_vakonomic_scene_by_its_initial_multiplier() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/scenes/vakonomic_skate.toml"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let subject = Subject::Scene(toml::from_str(&text).unwrap());
        let keys = vec!["solver.vakonomic_multipliers[0]".to_string()];
        let rows = run_points(
            &subject,
            &keys,
            &points(&[vec![json!(0.0), json!(0.5)]]),
            &["multipliers[0]".into(), "final.skate.angle".into()],
            1,
        )
        .unwrap();
        let (mu, theta) = (rows[0][0].as_f64().unwrap(), rows[0][1].as_f64().unwrap());
        assert!((mu + theta.sin()).abs() < 1e-6, "{mu} vs {theta}");
        let other = rows[1][1].as_f64().unwrap();
        assert!((other - theta).abs() > 0.1, "{other} vs {theta}");
    }

    #[test]
    fn an_instant_by_key_path() {
        let doc =
            json!({"mass": [2.0], "force": [4.0], "inequalities": {"A": [[1.0]], "b": [0.0]}});
        let subject = Subject::Instant(doc);
        let keys = vec!["force[0]".to_string()];
        let rows = run_points(
            &subject,
            &keys,
            &points(&[vec![json!(4.0), json!(-4.0)]]),
            &[
                "acceleration[0]".into(),
                "multipliers.inequalities".into(),
                "check.verdict".into(),
            ],
            2,
        )
        .unwrap();
        assert_eq!(rows[0][0], json!(2.0));
        assert!(rows[1][0].as_f64().unwrap().abs() < 1e-12);
        assert!((rows[1][1][0].as_f64().unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(rows[1][2], json!("equivalent"));
        let line = row(1, &keys, &[json!(-4.0)], &["x".into()], &[json!([1.0])]);
        assert_eq!(line, r#"{"run":1,"force[0]":-4.0,"x":[1.0]}"#);
        let e = run_points(&subject, &keys, &[vec![json!("x")]], &[], 1).unwrap_err();
        assert!(e.contains("force[0]"), "{e}");
        let e = subject.check_outputs(&["acceleratio".into()]).unwrap_err();
        assert!(e.contains("acceleratio"), "{e}");
    }
}
