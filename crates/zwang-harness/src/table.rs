//! The readable table of several answers to one instant, as `zwang solve`
//! and `zwang compare FILE` print it: one column per backend or form, one
//! line per quantity (status, solver, `Z`, residuals, then every coordinate
//! and every multiplier), and the short number formats of the tables.

use std::path::Path;
use zwang_qp::Solution;

/// The status shown for a backend or form that does not apply to the
/// instant.
pub const NOT_APPLICABLE: &str = "not_applicable";

/// One backend's or form's answer, under the name it was asked for (the
/// solution's own `backend` says which solver actually ran, e.g. `auto` ->
/// `direct`).
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The column heading.
    pub name: &'a str,
    /// The answer; `None` when the backend does not apply to the instant.
    pub solution: Option<Solution>,
}

/// Longer vectors are cut after this many entries (`--json` has them all).
const MAX_ENTRIES: usize = 20;

/// Picks one vector (accelerations, multipliers) out of a solution.
type Vector = fn(&Solution) -> &[f64];

/// The heading of a table: the instant's name and its file.
pub fn title(name: Option<&str>, file: &Path) -> String {
    match name {
        Some(name) => format!("{name} ({})", file.display()),
        None => file.display().to_string(),
    }
}

/// The table for the runs on one instant, under `title`; the `extra`
/// lines (a label and a cell per run) follow the residuals.
pub fn render(title: &str, runs: &[Run], extra: Vec<(String, Vec<String>)>) -> String {
    // A backend that does not apply has a status and blanks.
    let cells = |cell: &dyn Fn(&Solution) -> String| -> Vec<String> {
        runs.iter()
            .map(|r| r.solution.as_ref().map_or_else(String::new, cell))
            .collect()
    };
    let status = runs
        .iter()
        .map(|r| match &r.solution {
            Some(s) => s.status.to_string(),
            None => NOT_APPLICABLE.to_owned(),
        })
        .collect();
    let mut lines: Vec<(String, Vec<String>)> = vec![
        ("status".into(), status),
        ("solver".into(), cells(&|s| s.backend.to_owned())),
        ("iterations".into(), cells(&|s| s.iterations.to_string())),
        ("Z".into(), cells(&|s| number(s.compulsion))),
        (
            "residual stationarity".into(),
            cells(&|s| residual(s.residuals.stationarity)),
        ),
        (
            "residual equalities".into(),
            cells(&|s| residual(s.residuals.equalities)),
        ),
        (
            "residual inequalities".into(),
            cells(&|s| residual(s.residuals.inequalities)),
        ),
        (
            "residual complementarity".into(),
            cells(&|s| residual(s.residuals.complementarity)),
        ),
    ];
    lines.extend(extra);
    let vectors: [(&str, Vector); 3] = [
        ("a", |s| &s.acceleration),
        ("lambda_eq", |s| &s.multipliers_eq),
        ("lambda_in", |s| &s.multipliers_in),
    ];
    for (symbol, vector) in vectors {
        let len = runs
            .iter()
            .filter_map(|r| r.solution.as_ref())
            .map(|s| vector(s).len())
            .max()
            .unwrap_or(0);
        for i in 0..len.min(MAX_ENTRIES) {
            // A backend that returned a shorter vector shows a blank.
            let entry = cells(&|s| vector(s).get(i).map_or_else(String::new, |&x| number(x)));
            lines.push((format!("{symbol}[{i}]"), entry));
        }
        if len > MAX_ENTRIES {
            let more = len - MAX_ENTRIES;
            lines.push((format!("{symbol}: {more} more, see --json"), Vec::new()));
        }
    }

    let header: Vec<String> = runs.iter().map(|r| r.name.to_owned()).collect();
    let label_width = lines
        .iter()
        .map(|(l, c)| if c.is_empty() { 0 } else { l.len() })
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = (0..runs.len())
        .map(|k| {
            lines
                .iter()
                .filter_map(|(_, cells)| cells.get(k).map(String::len))
                .chain([header[k].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let format_line = |label: &str, cells: &[String]| {
        let mut line = format!("{label:<label_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            line += &format!("  {cell:>width$}");
        }
        line.trim_end().to_owned() + "\n"
    };

    let mut text = format!("{title}\n\n");
    text += &format_line("", &header);
    for (label, cells) in &lines {
        text += &format_line(label, cells);
    }
    text
}

/// Six significant digits in one style ([`zwang_core::readable`]).
pub fn number(x: f64) -> String {
    zwang_core::readable(x)
}

/// Residuals (and differences) only need their order of magnitude: two
/// significant digits, in the same style.
pub fn residual(x: f64) -> String {
    zwang_core::readable_digits(x, 2)
}

/// A difference between answers of size `scale`: [`residual`], or `0`
/// within round-off of it (round-off is not a finding).
pub fn difference(x: f64, scale: f64) -> String {
    if zwang_core::is_round_off(x, scale) {
        "0".to_owned()
    } else {
        residual(x)
    }
}

#[cfg(test)]
mod tests {
    use super::{difference, number, residual};

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-9.81), "-9.81");
        assert_eq!(number(4.0), "4");
        assert_eq!(number(1.0 / 3.0), "0.333333");
        assert_eq!(number(123456.7), "123457");
        assert_eq!(number(9.81e6), "9.81e6");
        assert_eq!(number(1.5e-7), "1.5e-7");
        assert_eq!(number(f64::NAN), "NaN");
    }

    #[test]
    fn differences_within_round_off_are_none() {
        assert_eq!(residual(22.04), "22");
        assert_eq!(residual(0.7412), "0.74");
        assert_eq!(difference(1.8e-15, 9.81), "0");
        assert_eq!(difference(1.8e-15, 1e-3), "1.8e-15");
        assert_eq!(difference(5.2e2, 9.81), "520");
    }
}
