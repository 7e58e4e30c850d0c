//! `zwang compare DIR`: every instant of a folder, one table row each, as
//! Markdown (stdout) and CSV (`--csv`).

use crate::compare::{CompareJson, Comparison, ALL_FORMS};
use crate::json::{pretty, MaxDifference};
use crate::{emit, one_line, read_instant, table, EXIT_BAD_INPUT, EXIT_OK};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The columns before the time per form.
const COLUMNS: [&str; 7] = [
    "instant",
    "verdict",
    "coupling",
    "max_diff_acceleration",
    "max_diff_multipliers",
    "non_equivalence_acceleration",
    "non_equivalence_multipliers",
];

/// One instant of the table.
pub(crate) struct Row {
    instant: String,
    /// The values, or the one-line error of a malformed file.
    values: Result<Values, String>,
}

struct Values {
    verdict: &'static str,
    coupling: f64,
    max_difference: MaxDifference,
    non_equivalence: Option<MaxDifference>,
    /// One per [`ALL_FORMS`]; `None` where the form did not run.
    times_us: Vec<Option<f64>>,
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
    /// The row of an instant that was compared.
    pub(crate) fn compared(instant: String, c: &Comparison) -> Row {
        let times_us = ALL_FORMS
            .iter()
            .map(|name| {
                c.forms
                    .iter()
                    .find(|f| f.name == *name)
                    .and_then(|f| f.time_us())
            })
            .collect();
        Row {
            instant,
            values: Ok(Values {
                verdict: c.checked.report.verdict.as_str(),
                coupling: c.checked.report.coupling,
                max_difference: c.max_difference,
                non_equivalence: c.non_equivalence,
                times_us,
            }),
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
                cells.push(format!("error: {e}"));
                cells.resize(COLUMNS.len() + ALL_FORMS.len(), blank());
            }
            Ok(v) => {
                let ne = v.non_equivalence.as_ref();
                cells.push(v.verdict.to_owned());
                cells.push(cell(Some(v.coupling), table::number));
                cells.push(cell(v.max_difference.acceleration, table::residual));
                cells.push(cell(v.max_difference.multipliers, table::residual));
                cells.push(cell(ne.and_then(|d| d.acceleration), table::residual));
                cells.push(cell(ne.and_then(|d| d.multipliers), table::residual));
                for t in &v.times_us {
                    cells.push(cell(*t, |t| format!("{t:.1}")));
                }
            }
        }
        cells
    }
}

fn header() -> Vec<String> {
    COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain(ALL_FORMS.iter().map(|f| format!("{f}_us")))
        .collect()
}

/// The rows as a Markdown table, columns padded, numbers right-aligned.
fn markdown(rows: &[Row]) -> String {
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

/// Writes the rows as CSV (a header line, then one line per row).
pub(crate) fn write_csv(path: &Path, rows: &[Row]) -> Result<(), String> {
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
    std::fs::write(path, text).map_err(|e| format!("`--csv`: cannot write {}: {e}", path.display()))
}

/// The instant files of a folder: `*.json` but not `*.expected.json`, not
/// subfolders, sorted by name.
fn instant_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
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
    files.sort();
    Ok(files)
}

/// Runs `zwang compare DIR`; returns the exit code.
pub(crate) fn run(
    dir: &Path,
    json: bool,
    csv: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let files = match instant_files(dir) {
        Ok(files) if files.is_empty() => {
            let what = format!("`file`: no instant files (*.json) in {}", dir.display());
            emit(err, &one_line("error: ", &what));
            return EXIT_BAD_INPUT;
        }
        Ok(files) => files,
        Err(e) => {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let mut rows = Vec::with_capacity(files.len());
    let mut objects = Vec::with_capacity(files.len());
    let mut malformed = false;
    for path in &files {
        let file = path.display().to_string();
        let stem = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        match read_instant(path) {
            Ok(parsed) => {
                for warning in &parsed.warnings {
                    emit(err, &one_line(&format!("warning: {file}: "), warning));
                }
                let comparison = Comparison::of(&parsed.instant);
                rows.push(Row::compared(stem, &comparison));
                if json {
                    let object = CompareJson::new(Some(file), parsed.instant.name(), &comparison);
                    objects.push(serde_json::to_value(object).unwrap_or(Value::Null));
                }
            }
            Err(e) => {
                malformed = true;
                let message = e.to_string();
                emit(err, &one_line(&format!("error: {file}: "), &message));
                objects.push(serde_json::json!({ "file": file, "error": message }));
                rows.push(Row {
                    instant: stem,
                    values: Err(message),
                });
            }
        }
    }
    if let Some(csv) = csv {
        if let Err(e) = write_csv(csv, &rows) {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    }
    emit(
        out,
        &if json {
            pretty(&objects)
        } else {
            markdown(&rows)
        },
    );
    if malformed {
        EXIT_BAD_INPUT
    } else {
        EXIT_OK
    }
}
