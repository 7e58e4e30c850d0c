//! A suite: every instant file of a folder through [`Comparison::of`], one
//! table [`Row`] each, as Markdown or CSV; what `zwang compare DIR` prints.
//!
//! ```no_run
//! use std::path::Path;
//! use zwang_harness::suite;
//!
//! let options = Default::default(); // unknown keys are errors
//! let entries = suite::compare_folder(Path::new("tests/data/friction"), options).unwrap();
//! let rows: Vec<suite::Row> = entries.iter().map(suite::Entry::row).collect();
//! print!("{}", suite::markdown(&rows));
//! suite::write_csv(Path::new("suite.csv"), &rows).unwrap();
//! ```

use crate::compare::{CompareJson, Comparison, ALL_FORMS};
use crate::json::MaxDifference;
use crate::table;
use serde_json::Value;
use std::path::{Path, PathBuf};
use zwang_instant::file::{parse_instant_with, ParseOptions};
use zwang_instant::{InstantError, ParsedInstant};

/// The columns before the time per form (then one `<form>_us` column per
/// entry of [`ALL_FORMS`]).
pub const COLUMNS: [&str; 8] = [
    "instant",
    "status",
    "verdict",
    "coupling",
    "max_diff_acceleration",
    "max_diff_multipliers",
    "non_equivalence_acceleration",
    "non_equivalence_multipliers",
];

/// One instant of the table.
#[derive(Debug, Clone)]
pub struct Row {
    instant: String,
    /// The values, or the one-line error of a malformed file.
    values: Result<Values, String>,
}

#[derive(Debug, Clone)]
struct Values {
    /// The status of the Newton answer (`variational` with friction, the
    /// QP without).
    status: &'static str,
    verdict: &'static str,
    /// The checker found the frozen-friction QP exact although the
    /// principle is not equivalent (friction moves the normal forces,
    /// not their friction): the Markdown verdict says so.
    frozen_exact: bool,
    coupling: f64,
    max_difference: MaxDifference,
    non_equivalence: Option<MaxDifference>,
    /// The size of the instant and its answers: differences within
    /// round-off of it show as 0.
    scale: Scale,
    /// One per [`ALL_FORMS`]; `None` where the form did not run.
    times_us: Vec<Option<f64>>,
}

/// The largest acceleration and multiplier of an instant's answers, at
/// least its own free acceleration and force.
#[derive(Debug, Clone, Copy, Default)]
struct Scale {
    acceleration: f64,
    multipliers: f64,
}

impl Scale {
    fn of(c: &Comparison) -> Scale {
        let largest = |x: &[f64]| x.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let own = Scale {
            acceleration: c.scale.acceleration,
            multipliers: c.scale.force,
        };
        c.forms
            .iter()
            .filter_map(|f| f.solution())
            .filter(|s| s.is_solved())
            .fold(own, |m, s| Scale {
                acceleration: m.acceleration.max(largest(&s.acceleration)),
                multipliers: m
                    .multipliers
                    .max(largest(&s.multipliers_eq))
                    .max(largest(&s.multipliers_in)),
            })
    }
}

/// How a cell is written.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// Short numbers, a dash for nothing, `|` escaped.
    Markdown,
    /// Full precision, an empty cell for nothing.
    Csv,
}

impl Row {
    /// The row of an instant that was compared, under the name `instant`
    /// (the file stem in a suite).
    pub fn compared(instant: String, c: &Comparison) -> Row {
        let times_us = ALL_FORMS
            .iter()
            .map(|name| {
                c.forms
                    .iter()
                    .find(|f| f.name == *name)
                    .and_then(|f| f.time_us())
            })
            .collect();
        let reference = if c.friction { "variational" } else { "qp" };
        let status = c
            .forms
            .iter()
            .find(|f| f.name == reference)
            .and_then(|f| f.solution())
            .map_or("not_applicable", |s| s.status.as_str());
        Row {
            instant,
            values: Ok(Values {
                status,
                verdict: c.checked.report.verdict.as_str(),
                frozen_exact: c.checked.report.frozen_exact,
                coupling: c.checked.report.coupling,
                max_difference: c.max_difference,
                non_equivalence: c.non_equivalence,
                scale: Scale::of(c),
                times_us,
            }),
        }
    }

    /// The row of a file that could not be read or parsed: the verdict
    /// cell says `error: <message>`, the others are empty.
    pub fn error(instant: String, message: String) -> Row {
        Row {
            instant,
            values: Err(message),
        }
    }

    fn cells(&self, style: Style) -> Vec<String> {
        let blank = || match style {
            Style::Markdown => "-".to_owned(),
            Style::Csv => String::new(),
        };
        let cell = |x: Option<f64>, short: fn(f64) -> String| match (x, style) {
            (None, _) => blank(),
            (Some(x), Style::Markdown) => short(x),
            (Some(x), Style::Csv) => x.to_string(),
        };
        let mut cells = vec![self.instant.clone()];
        match &self.values {
            Err(e) => {
                cells.push("error".to_owned());
                cells.push(format!("error: {e}"));
                cells.resize(COLUMNS.len() + ALL_FORMS.len(), blank());
            }
            Ok(v) => {
                let ne = v.non_equivalence.as_ref();
                cells.push(v.status.to_owned());
                // An instant without an answer is not "equivalent": only a
                // Painleve verdict, or a principle of higher order (no
                // minimum), explains a missing answer.
                let answered = v.status == "solved"
                    || v.verdict.starts_with("painleve")
                    || v.verdict == "stationary_only";
                cells.push(match (answered, style) {
                    (false, _) => blank(),
                    (true, Style::Markdown) if v.frozen_exact && v.verdict == "not_equivalent" => {
                        "not_equivalent (QP exact)".to_owned()
                    }
                    (true, _) => v.verdict.to_owned(),
                });
                cells.push(cell(Some(v.coupling), table::number));
                let (a, lambda) = (v.scale.acceleration, v.scale.multipliers);
                let diff = |x: Option<f64>, scale: f64| match (x, style) {
                    (Some(x), Style::Markdown) => table::difference(x, scale),
                    _ => cell(x, table::residual),
                };
                cells.push(diff(v.max_difference.acceleration, a));
                cells.push(diff(v.max_difference.multipliers, lambda));
                cells.push(diff(ne.and_then(|d| d.acceleration), a));
                cells.push(diff(ne.and_then(|d| d.multipliers), lambda));
                for t in &v.times_us {
                    cells.push(cell(*t, |t| format!("{t:.1}")));
                }
            }
        }
        cells
    }
}

/// The header of the table: [`COLUMNS`], then `<form>_us` per form.
pub fn header() -> Vec<String> {
    COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain(ALL_FORMS.iter().map(|f| format!("{f}_us")))
        .collect()
}

/// The rows as a Markdown table, columns padded, numbers right-aligned,
/// short numbers, a dash where there is no value.
pub fn markdown(rows: &[Row]) -> String {
    let header = header();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.cells(Style::Markdown)
                .into_iter()
                .map(|c| c.replace('|', "\\|"))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|k| {
            body.iter()
                .map(|r| r[k].chars().count())
                .chain([header[k].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // The instant and the verdict are text; the rest are numbers.
    let numeric = |k: usize| k >= 2;
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(k, (c, &w))| {
                if numeric(k) {
                    format!("{c:>w$}")
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(k, &w)| {
            if numeric(k) {
                format!("{}:", "-".repeat(w + 1))
            } else {
                "-".repeat(w + 2)
            }
        })
        .collect();
    let mut text = line(&header);
    text += &format!("|{}|\n", rule.join("|"));
    for r in &body {
        text += &line(r);
    }
    text
}

/// The rows as CSV: a header line, then one line per row, numbers in full
/// precision, empty cells where there is no value.
pub fn csv(rows: &[Row]) -> String {
    let quote = |c: &str| {
        if c.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", c.replace('"', "\"\""))
        } else {
            c.to_owned()
        }
    };
    let line = |cells: &[String]| {
        let quoted: Vec<String> = cells.iter().map(|c| quote(c)).collect();
        quoted.join(",") + "\n"
    };
    let mut text = line(&header());
    for r in rows {
        text += &line(&r.cells(Style::Csv));
    }
    text
}

/// Writes [`csv`] to `path`; the error is one line naming the file.
pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), String> {
    std::fs::write(path, csv(rows))
        .map_err(|e| format!("`--csv`: cannot write {}: {e}", path.display()))
}

/// Reads and parses one instant file; every failure, reading included, is
/// an [`InstantError`] (key `file` for an unreadable file).
pub fn read_instant(path: &Path, options: ParseOptions) -> Result<ParsedInstant, InstantError> {
    let text = std::fs::read_to_string(path).map_err(|e| InstantError::File {
        key: "file".into(),
        what: format!("cannot read {}: {e}", path.display()),
    })?;
    parse_instant_with(&text, options)
}

/// The instant files of a folder: `*.json` but not the `*.expected.json`
/// sidecars, not subfolders, sorted by name. An unreadable folder, or one
/// without instant files, is an error (one line).
pub fn instant_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("`file`: cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            p.is_file() && name.ends_with(".json") && !name.ends_with(".expected.json")
        })
        .collect();
    if files.is_empty() {
        return Err(format!(
            "`file`: no instant files (*.json) in {}",
            dir.display()
        ));
    }
    files.sort();
    Ok(files)
}

/// One instant file of a suite and what became of it.
#[derive(Debug)]
pub struct Entry {
    /// The file, as found in the folder.
    pub file: PathBuf,
    /// The parsed instant (with the parser's warnings) and its comparison,
    /// or why the file could not be read.
    pub outcome: Result<(ParsedInstant, Comparison), InstantError>,
}

impl Entry {
    /// Reads `file` and, when it parses, runs every form on it.
    pub fn compare(file: PathBuf, options: ParseOptions) -> Entry {
        let outcome = read_instant(&file, options).map(|parsed| {
            let comparison = Comparison::of(&parsed.instant);
            (parsed, comparison)
        });
        Entry { file, outcome }
    }

    /// The file stem: the `instant` column of the table.
    pub fn stem(&self) -> String {
        self.file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    }

    /// The table row.
    pub fn row(&self) -> Row {
        match &self.outcome {
            Ok((_, comparison)) => Row::compared(self.stem(), comparison),
            Err(e) => Row::error(self.stem(), e.to_string()),
        }
    }

    /// The JSON object: [`CompareJson`] with `file`, or {`file`, `error`}.
    pub fn json(&self) -> Value {
        let file = self.file.display().to_string();
        match &self.outcome {
            Ok((parsed, comparison)) => {
                let object = CompareJson::new(Some(file), parsed.instant.name(), comparison);
                serde_json::to_value(object).unwrap_or(Value::Null)
            }
            Err(e) => serde_json::json!({ "file": file, "error": e.to_string() }),
        }
    }
}

/// Every instant file of `dir` ([`instant_files`]) through
/// [`Entry::compare`], in order. A malformed file is an entry with its
/// error; the others still run.
pub fn compare_folder(dir: &Path, options: ParseOptions) -> Result<Vec<Entry>, String> {
    Ok(instant_files(dir)?
        .into_iter()
        .map(|file| Entry::compare(file, options))
        .collect())
}
