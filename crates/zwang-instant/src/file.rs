//! The instant file: one Gauss QP as JSON, specified in
//! `docs/instant-format.md` at the root of the repository.
//!
//! Reading never panics: every problem becomes an [`InstantError`] naming
//! the key. A key the format does not define, anywhere in the file, is an
//! error ([`InstantError::UnknownKey`]), because a misspelled key would
//! silently change the physics; [`parse_instant_with`] and
//! [`ParseOptions::allow_unknown`] turn such keys into warnings.
//!
//! One key is a zwang addition that keeps every other key's meaning:
//! `equalities.order`, one integer `>= 2` per row, the time derivative of
//! the coordinates the row constrains (`A q^(k) = b`; 2, the default, is
//! `A a = b`). Rows above 2 are constraints of higher order
//! ([`Instant::equality_orders`]).

use crate::error::InstantError;
use crate::instant::{
    matrix_from_triplets, Instant, RowRef, RowSet, SlidingContact, StickingContact,
};
use serde_json::{json, Map, Value};
use sprs::CsMat;

/// The keys the format defines at the top level.
const TOP_LEVEL_KEYS: [&str; 7] = [
    "name",
    "mass",
    "force",
    "equalities",
    "inequalities",
    "friction",
    "sticking",
];

/// The keys of an `inequalities` object.
const ROW_KEYS: [&str; 2] = ["A", "b"];
/// The keys of an `equalities` object: `order` (a zwang addition) gives
/// the order of each row, 2 (accelerations) by default.
const EQUALITY_KEYS: [&str; 3] = ["A", "b", "order"];
/// The keys of a sparse matrix object.
const SPARSE_KEYS: [&str; 4] = ["shape", "rows", "cols", "vals"];
/// The keys of a reference to a row.
const ROW_REF_KEYS: [&str; 2] = ["set", "row"];
/// The keys of a `friction` entry.
const FRICTION_KEYS: [&str; 4] = ["normal", "tangent", "mu", "slip"];
/// The keys of a `sticking` entry.
const STICKING_KEYS: [&str; 3] = ["normal", "tangent", "mu"];

/// An instant read from a file, with the warnings (ignored keys) met.
#[derive(Debug)]
pub struct ParsedInstant {
    /// The validated instant.
    pub instant: Instant,
    /// One line per ignored key (only with
    /// [`ParseOptions::allow_unknown`]; otherwise an unknown key is an
    /// error).
    pub warnings: Vec<String>,
}

/// How strictly an instant file is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Read keys the format does not define as warnings
    /// ([`ParsedInstant::warnings`]) instead of an
    /// [`InstantError::UnknownKey`]. Off by default.
    pub allow_unknown: bool,
}

/// Where the parser stands on unknown keys: refuse them, or collect one
/// warning each.
struct Unknown<'w> {
    allow: bool,
    warnings: &'w mut Vec<String>,
}

impl Unknown<'_> {
    /// Checks the keys of `object`, found at `path` (`""` at the top
    /// level), against the `known` ones.
    fn check(
        &mut self,
        path: &str,
        object: &Map<String, Value>,
        known: &[&str],
    ) -> Result<(), InstantError> {
        for key in object.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let key = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if !self.allow {
                return Err(InstantError::UnknownKey {
                    key,
                    known: known.join(", "),
                });
            }
            self.warnings.push(format!("ignoring unknown key `{key}`"));
        }
        Ok(())
    }
}

fn err(key: &str, what: impl Into<String>) -> InstantError {
    InstantError::File {
        key: key.into(),
        what: what.into(),
    }
}

/// Parses and validates an instant from JSON text; a key the format does
/// not define is an error ([`parse_instant_with`] can allow them).
pub fn parse_instant(text: &str) -> Result<ParsedInstant, InstantError> {
    parse_instant_with(text, ParseOptions::default())
}

/// [`parse_instant`] with the given [`ParseOptions`].
///
/// ```
/// use zwang_instant::file::{parse_instant_with, ParseOptions};
///
/// let text = r#"{"mass": [2.0], "force": [4.0], "inequality": {"A": [[1.0]], "b": [0.0]}}"#;
/// let e = parse_instant_with(text, ParseOptions::default()).unwrap_err();
/// assert_eq!(e.key(), "inequality");
/// let parsed = parse_instant_with(text, ParseOptions { allow_unknown: true }).unwrap();
/// assert_eq!(parsed.warnings, ["ignoring unknown key `inequality`"]);
/// assert_eq!(parsed.instant.inequalities().len(), 0);
/// ```
pub fn parse_instant_with(
    text: &str,
    options: ParseOptions,
) -> Result<ParsedInstant, InstantError> {
    let parse_value = |value: &Value| parse_value_with(value, options);
    match serde_json::from_str(text) {
        Ok(value) => parse_value(&value),
        Err(e) => {
            let invalid = err("file", format!("not valid JSON: {e}"));
            // JSON has no NaN or infinity, but Python's `json` writes `NaN`
            // and `Infinity`, and `1e999` overflows. Read them as strings
            // once more so that the error names the key that holds them;
            // the file stays an error either way.
            let retry = non_finite_as_strings(text).and_then(|t| serde_json::from_str(&t).ok());
            Err(retry
                .and_then(|value| parse_value(&value).err())
                .unwrap_or(invalid))
        }
    }
}

/// `text` with the literals `NaN`, `Infinity`, `-Infinity` and the numbers
/// that overflow `f64` replaced by the strings that [`number`] reports as
/// not finite; `None` when there are none.
fn non_finite_as_strings(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut in_string, mut replaced) = (0, 0, false, false);
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        let literal = ["NaN", "Infinity", "-Infinity"]
            .into_iter()
            .find(|l| bytes[i..].starts_with(l.as_bytes()));
        let (end, replacement) = if let Some(l) = literal {
            (i + l.len(), Some(l))
        } else if c == b'-' || c.is_ascii_digit() {
            let len = bytes[i..]
                .iter()
                .take_while(|&&b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                .count();
            let infinite = text[i..i + len]
                .parse::<f64>()
                .is_ok_and(|x| x.is_infinite());
            let sign = if c == b'-' { "-Infinity" } else { "Infinity" };
            (i + len, infinite.then_some(sign))
        } else {
            in_string = c == b'"';
            (i + 1, None)
        };
        if let Some(r) = replacement {
            out.push_str(&text[copied..i]);
            out.push('"');
            out.push_str(r);
            out.push('"');
            copied = end;
            replaced = true;
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    replaced.then_some(out)
}

/// Parses and validates an instant from a JSON value; a key the format
/// does not define is an error.
pub fn parse_value(value: &Value) -> Result<ParsedInstant, InstantError> {
    parse_value_with(value, ParseOptions::default())
}

/// [`parse_value`] with the given [`ParseOptions`].
pub fn parse_value_with(
    value: &Value,
    options: ParseOptions,
) -> Result<ParsedInstant, InstantError> {
    let obj = value
        .as_object()
        .ok_or_else(|| err("file", "the top level must be a JSON object"))?;
    let mut warnings = Vec::new();
    let mut unknown = Unknown {
        allow: options.allow_unknown,
        warnings: &mut warnings,
    };
    unknown.check("", obj, &TOP_LEVEL_KEYS)?;
    let mass_value = obj.get("mass").ok_or_else(|| err("mass", "missing"))?;
    let force = parse_vector(
        "force",
        obj.get("force").ok_or_else(|| err("force", "missing"))?,
    )?;
    let mass = match mass_value {
        // A diagonal mass as a plain vector: `"mass": [2.0, 2.0, 1.0]`.
        Value::Array(entries) if entries.first().is_some_and(|e| !e.is_array()) => {
            let diagonal = parse_vector("mass", mass_value)?;
            let n = diagonal.len();
            matrix_from_triplets(
                "mass",
                (n, n),
                diagonal.into_iter().enumerate().map(|(i, m)| (i, i, m)),
            )?
        }
        _ => parse_matrix(
            "mass",
            mass_value,
            None,
            ("force", force.len()),
            &mut unknown,
        )?,
    };
    let n = mass.rows();
    if n == 0 {
        return Err(InstantError::Empty);
    }
    let mut builder = Instant::builder(mass, force);
    if let Some(name) = obj.get("name") {
        match name {
            Value::String(s) => builder = builder.name(s.clone()),
            Value::Null => {}
            _ => return Err(err("name", "must be a string")),
        }
    }
    for (set, key) in [("equalities", true), ("inequalities", false)] {
        let Some(rows) = obj.get(set) else { continue };
        if rows.is_null() {
            continue;
        }
        let (a, b) = parse_rows(set, rows, n, &mut unknown)?;
        builder = if key {
            if let Some(order) = rows.get("order").filter(|o| !o.is_null()) {
                builder = builder.equality_orders(parse_orders(order, b.len())?);
            }
            builder.equalities(a, b)
        } else {
            builder.inequalities(a, b)
        };
    }
    if let Some(list) = obj.get("friction") {
        let list = list
            .as_array()
            .ok_or_else(|| err("friction", "must be an array of contacts"))?;
        for (k, entry) in list.iter().enumerate() {
            builder = builder.sliding(parse_sliding(k, entry, &mut unknown)?);
        }
    }
    if let Some(list) = obj.get("sticking") {
        let list = list
            .as_array()
            .ok_or_else(|| err("sticking", "must be an array of contacts"))?;
        for (k, entry) in list.iter().enumerate() {
            builder = builder.sticking(parse_sticking(k, entry, &mut unknown)?);
        }
    }
    let instant = builder.build()?;
    Ok(ParsedInstant { instant, warnings })
}

fn number(key: &str, v: &Value) -> Result<f64, InstantError> {
    match v {
        Value::Number(x) => x
            .as_f64()
            .ok_or_else(|| err(key, "is not a representable number")),
        // JSON has no NaN or infinity; accept the usual spellings so the
        // error says what the value is rather than "not a number".
        Value::String(s)
            if matches!(
                s.as_str(),
                "NaN" | "nan" | "Infinity" | "-Infinity" | "inf" | "-inf"
            ) =>
        {
            Err(InstantError::NonFinite {
                key: key.into(),
                position: String::from("(value)"),
                value: s.parse().unwrap_or(f64::NAN),
            })
        }
        _ => Err(err(key, format!("expected a number, found {}", kind(v)))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn parse_vector(key: &str, v: &Value) -> Result<Vec<f64>, InstantError> {
    let arr = v.as_array().ok_or_else(|| {
        err(
            key,
            format!("expected an array of numbers, found {}", kind(v)),
        )
    })?;
    arr.iter()
        .enumerate()
        .map(|(i, x)| number(&format!("{key}[{i}]"), x))
        .collect()
}

fn index(key: &str, v: &Value) -> Result<usize, InstantError> {
    v.as_u64()
        .map(|x| x as usize)
        .ok_or_else(|| err(key, format!("expected a non-negative integer, found {v}")))
}

/// A dense array of rows, or `{"shape", "rows", "cols", "vals"}` triplets.
/// `cols` fixes the number of columns when known (rows of a 0-row dense
/// matrix carry no column count); `rows_from` is the vector (key, length)
/// whose length the number of rows must equal.
fn parse_matrix(
    key: &str,
    v: &Value,
    cols: Option<usize>,
    rows_from: (&str, usize),
    unknown: &mut Unknown,
) -> Result<CsMat<f64>, InstantError> {
    match v {
        Value::Array(rows) => {
            let width = match rows.first() {
                Some(Value::Array(r)) => r.len(),
                Some(other) => {
                    return Err(err(
                        &format!("{key}[0]"),
                        format!("expected a row (array of numbers), found {}", kind(other)),
                    ))
                }
                None => cols.unwrap_or(0),
            };
            let mut triplets = Vec::new();
            for (i, row) in rows.iter().enumerate() {
                let rkey = format!("{key}[{i}]");
                let row = parse_vector(&rkey, row)?;
                if row.len() != width {
                    return Err(InstantError::Dimension {
                        key: key.into(),
                        what: format!("row {i} has {} entries, row 0 has {width}", row.len()),
                    });
                }
                for (j, x) in row.into_iter().enumerate() {
                    if x != 0.0 {
                        triplets.push((i, j, x));
                    }
                }
            }
            matrix_from_triplets(key, (rows.len(), width), triplets)
        }
        Value::Object(o) => {
            unknown.check(key, o, &SPARSE_KEYS)?;
            parse_triplets(key, o, rows_from)
        }
        _ => Err(err(
            key,
            format!(
                "expected an array of rows or a sparse object, found {}",
                kind(v)
            ),
        )),
    }
}

fn parse_triplets(
    key: &str,
    o: &Map<String, Value>,
    rows_from: (&str, usize),
) -> Result<CsMat<f64>, InstantError> {
    let get = |k: &str| {
        o.get(k).ok_or_else(|| {
            err(
                &format!("{key}.{k}"),
                "missing (sparse matrices need shape, rows, cols, vals)",
            )
        })
    };
    let shape = get("shape")?
        .as_array()
        .filter(|s| s.len() == 2)
        .ok_or_else(|| err(&format!("{key}.shape"), "expected [rows, cols]"))?;
    let shape = (
        index(&format!("{key}.shape[0]"), &shape[0])?,
        index(&format!("{key}.shape[1]"), &shape[1])?,
    );
    // Before anything is allocated by the shape: a sparse matrix declared
    // with 10^12 rows would abort on allocation, not fail.
    if shape.0 != rows_from.1 {
        return Err(InstantError::Dimension {
            key: key.into(),
            what: format!(
                "the shape has {} rows, but `{}` has length {}",
                shape.0, rows_from.0, rows_from.1
            ),
        });
    }
    let ints = |k: &str| -> Result<Vec<usize>, InstantError> {
        let kk = format!("{key}.{k}");
        get(k)?
            .as_array()
            .ok_or_else(|| err(&kk, "expected an array of indices"))?
            .iter()
            .enumerate()
            .map(|(i, x)| index(&format!("{kk}[{i}]"), x))
            .collect()
    };
    let (rows, cols) = (ints("rows")?, ints("cols")?);
    let vals = parse_vector(&format!("{key}.vals"), get("vals")?)?;
    if rows.len() != cols.len() || rows.len() != vals.len() {
        return Err(InstantError::Dimension {
            key: key.into(),
            what: format!(
                "rows, cols and vals must have the same length, found {}, {}, {}",
                rows.len(),
                cols.len(),
                vals.len()
            ),
        });
    }
    if let Some((k, v)) = vals.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(InstantError::NonFinite {
            key: format!("{key}.vals"),
            position: format!("[{k}]"),
            value: *v,
        });
    }
    matrix_from_triplets(
        key,
        shape,
        rows.into_iter()
            .zip(cols)
            .zip(vals)
            .map(|((i, j), v)| (i, j, v)),
    )
}

fn parse_rows(
    set: &str,
    v: &Value,
    n: usize,
    unknown: &mut Unknown,
) -> Result<(CsMat<f64>, Vec<f64>), InstantError> {
    let o = v.as_object().ok_or_else(|| {
        err(
            set,
            format!("expected an object with A and b, found {}", kind(v)),
        )
    })?;
    let known: &[&str] = if set == "equalities" {
        &EQUALITY_KEYS
    } else {
        &ROW_KEYS
    };
    unknown.check(set, o, known)?;
    let akey = format!("{set}.A");
    let bkey = format!("{set}.b");
    let a_value = o.get("A").ok_or_else(|| err(&akey, "missing"))?;
    let b = parse_vector(&bkey, o.get("b").ok_or_else(|| err(&bkey, "missing"))?)?;
    let a = parse_matrix(&akey, a_value, Some(n), (&bkey, b.len()), unknown)?;
    if a.rows() != b.len() {
        return Err(InstantError::Dimension {
            key: bkey,
            what: format!("has length {}, but `{akey}` has {} rows", b.len(), a.rows()),
        });
    }
    Ok((a, b))
}

/// `equalities.order`: one integer `>= 2` per row (`rows` of them).
fn parse_orders(v: &Value, rows: usize) -> Result<Vec<u32>, InstantError> {
    const KEY: &str = "equalities.order";
    let list = v.as_array().ok_or_else(|| {
        err(
            KEY,
            format!(
                "expected an array of integers >= 2 (one per row), found {}",
                kind(v)
            ),
        )
    })?;
    if list.len() != rows {
        return Err(InstantError::Dimension {
            key: KEY.into(),
            what: format!(
                "has length {}, but `equalities.b` has {rows} rows",
                list.len()
            ),
        });
    }
    list.iter()
        .enumerate()
        .map(|(i, x)| {
            let order = x
                .as_u64()
                .filter(|&k| k >= 2)
                .and_then(|k| u32::try_from(k).ok());
            order.ok_or_else(|| InstantError::Order {
                key: format!("{KEY}[{i}]"),
                what: format!("must be an integer >= 2 (2: a row of accelerations), found {x}"),
            })
        })
        .collect()
}

fn parse_row_ref(key: &str, v: &Value, unknown: &mut Unknown) -> Result<RowRef, InstantError> {
    let o = v
        .as_object()
        .ok_or_else(|| err(key, "expected {\"set\": ..., \"row\": ...}"))?;
    unknown.check(key, o, &ROW_REF_KEYS)?;
    let set = match o.get("set").and_then(Value::as_str) {
        Some("equalities") => RowSet::Equalities,
        Some("inequalities") => RowSet::Inequalities,
        _ => {
            return Err(err(
                &format!("{key}.set"),
                "must be \"equalities\" or \"inequalities\"",
            ))
        }
    };
    let rkey = format!("{key}.row");
    let row = index(&rkey, o.get("row").ok_or_else(|| err(&rkey, "missing"))?)?;
    Ok(RowRef { set, row })
}

fn field<'a>(o: &'a Map<String, Value>, key: &str, k: &str) -> Result<&'a Value, InstantError> {
    o.get(k)
        .ok_or_else(|| err(&format!("{key}.{k}"), "missing"))
}

fn parse_sliding(
    k: usize,
    v: &Value,
    unknown: &mut Unknown,
) -> Result<SlidingContact, InstantError> {
    let key = format!("friction[{k}]");
    let o = v
        .as_object()
        .ok_or_else(|| err(&key, "expected an object"))?;
    unknown.check(&key, o, &FRICTION_KEYS)?;
    Ok(SlidingContact {
        normal: parse_row_ref(&format!("{key}.normal"), field(o, &key, "normal")?, unknown)?,
        tangent: parse_vector(&format!("{key}.tangent"), field(o, &key, "tangent")?)?,
        mu: number(&format!("{key}.mu"), field(o, &key, "mu")?)?,
        slip: number(&format!("{key}.slip"), field(o, &key, "slip")?)?,
    })
}

fn parse_sticking(
    k: usize,
    v: &Value,
    unknown: &mut Unknown,
) -> Result<StickingContact, InstantError> {
    let key = format!("sticking[{k}]");
    let o = v
        .as_object()
        .ok_or_else(|| err(&key, "expected an object"))?;
    unknown.check(&key, o, &STICKING_KEYS)?;
    let tangent = parse_row_ref(
        &format!("{key}.tangent"),
        field(o, &key, "tangent")?,
        unknown,
    )?;
    if tangent.set != RowSet::Equalities {
        return Err(err(
            &format!("{key}.tangent.set"),
            "a sticking tangent must be an equality row",
        ));
    }
    Ok(StickingContact {
        normal: parse_row_ref(&format!("{key}.normal"), field(o, &key, "normal")?, unknown)?,
        tangent_row: tangent.row,
        mu: number(&format!("{key}.mu"), field(o, &key, "mu")?)?,
    })
}

/// How matrices are written by [`to_json`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Arrays of rows.
    Dense,
    /// `{"shape", "rows", "cols", "vals"}` triplets.
    Sparse,
}

fn matrix_json(m: &CsMat<f64>, encoding: Encoding) -> Value {
    match encoding {
        Encoding::Dense => {
            let d = m.to_dense();
            Value::Array(d.outer_iter().map(|r| json!(r.to_vec())).collect())
        }
        Encoding::Sparse => {
            let (mut rows, mut cols, mut vals) = (vec![], vec![], vec![]);
            for (v, (i, j)) in m.iter() {
                rows.push(i);
                cols.push(j);
                vals.push(*v);
            }
            json!({"shape": [m.rows(), m.cols()], "rows": rows, "cols": cols, "vals": vals})
        }
    }
}

fn row_ref_json(r: RowRef) -> Value {
    let set = match r.set {
        RowSet::Equalities => "equalities",
        RowSet::Inequalities => "inequalities",
    };
    json!({"set": set, "row": r.row})
}

/// Writes an instant in the file format (the inverse of [`parse_value`]).
pub fn to_json(instant: &Instant, encoding: Encoding) -> Value {
    let mut o = Map::new();
    if let Some(name) = instant.name() {
        o.insert("name".into(), json!(name));
    }
    o.insert("mass".into(), matrix_json(instant.mass(), encoding));
    o.insert("force".into(), json!(instant.force()));
    for (key, rows) in [
        ("equalities", instant.equalities()),
        ("inequalities", instant.inequalities()),
    ] {
        if !rows.is_empty() {
            let mut set = json!({"A": matrix_json(rows.matrix(), encoding), "b": rows.rhs()});
            if key == "equalities" && instant.highest_order() > 2 {
                set["order"] = json!(instant.equality_orders());
            }
            o.insert(key.into(), set);
        }
    }
    if !instant.sliding().is_empty() {
        let list: Vec<Value> = instant
            .sliding()
            .iter()
            .map(|c| {
                json!({"normal": row_ref_json(c.normal), "tangent": c.tangent, "mu": c.mu, "slip": c.slip})
            })
            .collect();
        o.insert("friction".into(), Value::Array(list));
    }
    if !instant.sticking().is_empty() {
        let list: Vec<Value> = instant
            .sticking()
            .iter()
            .map(|c| {
                json!({"normal": row_ref_json(c.normal),
                       "tangent": {"set": "equalities", "row": c.tangent_row}, "mu": c.mu})
            })
            .collect();
        o.insert("sticking".into(), Value::Array(list));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literals outside strings become strings; text inside strings
    /// (a name that says NaN) is left alone.
    #[test]
    fn non_finite_literals_are_named_by_key() {
        let text = r#"{"name": "NaN 1e999 \" -Infinity", "x": [NaN, -1e999, 2e5, Infinity]}"#;
        assert_eq!(
            non_finite_as_strings(text).unwrap(),
            r#"{"name": "NaN 1e999 \" -Infinity", "x": ["NaN", "-Infinity", 2e5, "Infinity"]}"#
        );
        assert_eq!(non_finite_as_strings(r#"{"a": [1e300]}"#), None);
        let e = parse_instant(r#"{"mass": [[1.0]], "force": [NaN]}"#).unwrap_err();
        assert_eq!(e.key(), "force[0]");
        // Still an error where the value is not read at all: the unknown
        // key, or, when unknown keys are allowed, the file.
        let text = r#"{"mass": [[1.0]], "force": [0.0], "x": NaN}"#;
        assert_eq!(parse_instant(text).unwrap_err().key(), "x");
        let allow = ParseOptions {
            allow_unknown: true,
        };
        assert_eq!(parse_instant_with(text, allow).unwrap_err().key(), "file");
    }

    /// Unknown keys are refused wherever they are, naming their path, and
    /// collected as warnings when allowed.
    #[test]
    fn unknown_keys_anywhere() {
        let text = r#"{"mass": {"shape": [1, 1], "rows": [0], "cols": [0], "vals": [1.0], "x": 1},
                       "force": [0.0], "y": 2,
                       "inequalities": {"A": [[1.0]], "b": [0.0], "z": 3},
                       "friction": [{"normal": {"set": "inequalities", "row": 0, "w": 4},
                                     "tangent": [1.0], "mu": 0.1, "slip": 1, "v": 5}]}"#;
        assert_eq!(parse_instant(text).unwrap_err().key(), "y");
        let parsed = parse_instant_with(
            text,
            ParseOptions {
                allow_unknown: true,
            },
        )
        .unwrap();
        assert_eq!(
            parsed.warnings,
            [
                "ignoring unknown key `y`",
                "ignoring unknown key `mass.x`",
                "ignoring unknown key `inequalities.z`",
                "ignoring unknown key `friction[0].v`",
                "ignoring unknown key `friction[0].normal.w`",
            ]
        );
    }

    /// A plain vector is a diagonal mass.
    #[test]
    fn diagonal_mass_as_a_vector() {
        let parsed = parse_instant(r#"{"mass": [2.0, 3.0], "force": [1.0, 1.0]}"#).unwrap();
        let dense = parsed.instant.mass().to_dense();
        assert_eq!(dense.as_slice().unwrap(), &[2.0, 0.0, 0.0, 3.0]);
        assert!(parse_instant(r#"{"mass": [2.0], "force": [1.0, 1.0]}"#).is_err());
    }

    /// `equalities.order`: rows of higher order are read, validated by key,
    /// written back, and absent means every row is of order 2.
    #[test]
    fn equality_orders() {
        let text = |order: &str| {
            format!(
                r#"{{"mass": [1.0, 1.0], "force": [0.0, -9.81],
                    "equalities": {{"A": [[1.0, 0.0], [-0.0125, 9.81]], "b": [0.0, 0.0]{order}}}}}"#
            )
        };
        let plain = parse_instant(&text("")).unwrap().instant;
        assert_eq!(plain.equality_orders(), [2, 2]);
        assert_eq!(plain.highest_order(), 2);
        assert!(to_json(&plain, Encoding::Dense)["equalities"]
            .get("order")
            .is_none());
        let higher = parse_instant(&text(r#", "order": [2, 3]"#))
            .unwrap()
            .instant;
        assert_eq!(higher.equality_orders(), [2, 3]);
        assert_eq!(higher.highest_order(), 3);
        let written = to_json(&higher, Encoding::Sparse);
        assert_eq!(written["equalities"]["order"], json!([2, 3]));
        let again = parse_value(&written).unwrap().instant;
        assert_eq!(again.equality_orders(), [2, 3]);
        let null = parse_instant(&text(r#", "order": null"#)).unwrap().instant;
        assert_eq!(null.equality_orders(), [2, 2]);
        for (order, key) in [
            (r#", "order": [2]"#, "equalities.order"),
            (r#", "order": [2, 3, 3]"#, "equalities.order"),
            (r#", "order": 3"#, "equalities.order"),
            (r#", "order": [2, 1]"#, "equalities.order[1]"),
            (r#", "order": [0, 3]"#, "equalities.order[0]"),
            (r#", "order": [2, 2.5]"#, "equalities.order[1]"),
            (r#", "order": [2, -3]"#, "equalities.order[1]"),
            (r#", "order": [2, "3"]"#, "equalities.order[1]"),
            (r#", "order": [2, 4294967296]"#, "equalities.order[1]"),
        ] {
            let e = parse_instant(&text(order)).unwrap_err();
            assert_eq!(e.key(), key, "{order}: {e}");
        }
        // Inequalities have no order: a key the format does not define there.
        let e = parse_instant(
            r#"{"mass": [1.0], "force": [0.0],
                "inequalities": {"A": [[1.0]], "b": [0.0], "order": [3]}}"#,
        )
        .unwrap_err();
        assert_eq!(e.key(), "inequalities.order");
    }

    /// The builder validates the orders as the file does.
    #[test]
    fn equality_orders_from_the_builder() {
        let mass = matrix_from_triplets("mass", (1, 1), [(0, 0, 1.0)]).unwrap();
        let a = matrix_from_triplets("equalities.A", (1, 1), [(0, 0, 1.0)]).unwrap();
        let build = |orders: Vec<u32>| {
            Instant::builder(mass.clone(), vec![0.0])
                .equalities(a.clone(), vec![0.0])
                .equality_orders(orders)
                .build()
        };
        assert_eq!(build(vec![4]).unwrap().highest_order(), 4);
        assert_eq!(build(vec![]).unwrap_err().key(), "equalities.order");
        assert_eq!(build(vec![1]).unwrap_err().key(), "equalities.order[0]");
        // A copy with the same rows keeps the orders; with others, order 2.
        let higher = build(vec![3]).unwrap();
        let same = higher.with_rows(higher.equalities().clone(), higher.inequalities().clone());
        assert_eq!(same.equality_orders(), [3]);
        let none = higher.with_rows(crate::Rows::empty(1), crate::Rows::empty(1));
        assert_eq!(none.highest_order(), 2);
    }

    /// A sparse shape is checked before it is allocated.
    #[test]
    fn huge_sparse_shape_is_an_error() {
        let text = r#"{"mass": {"shape": [1000000000000, 1000000000000],
                       "rows": [], "cols": [], "vals": []}, "force": [1.0]}"#;
        assert_eq!(parse_instant(text).unwrap_err().key(), "mass");
    }
}
