//! One island's velocity-level problem and warm start as text: the form
//! the solver writes an island it leaves unsolved in (where
//! `ZWANG_DUMP_UNSOLVED` names a directory, or
//! `PrimalSolver::write_unsolved_to`), so that a hard island met in a
//! long run can be solved again alone, by this solver or another
//! simulator's (`docs/island-format.md`).
//!
//! Lines starting with `#` are comments; then one item a line, numbers
//! separated by spaces: `M`'s column starts, row indices and values (by
//! compressed columns); `f`; the rows per contact (2 or 3); `J`'s contact
//! starts, columns and values (`dimension` values per entry: the normal
//! row's, then the tangents'); `b`; `mu`; the warm start `r`; and, if
//! the writer knew them, the settings it was solved with (friction law,
//! tolerance, finish steps: a run gives each of several islands half its
//! tolerance; a blank line where it did not know them but bounded rows
//! follow); then, if there are bounded rows, their starts, columns,
//! values, `b`, `lo` and `hi` (the warm start holding their impulses after
//! the contacts').

use std::fmt::Write;

use sprs::CsMat;
use thiserror::Error;

use super::{BoundedRows, ContactRows, VelocityProblem};
use crate::{Friction, ProblemError, SolverSettings};

/// What is wrong with an island's text.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IslandTextError {
    /// The text ends before item `item` (from 1) of eleven (a twelfth,
    /// the settings, is optional, and so are the bounded rows' six after
    /// it, all or none).
    #[error("the text ends before item {item} of 11")]
    Truncated {
        /// The missing item, from 1.
        item: usize,
    },
    /// A token is not a number of the item's kind.
    #[error("item {item}: `{found}` is not {expected}")]
    Syntax {
        /// The item, from 1.
        item: usize,
        /// What the item holds.
        expected: &'static str,
        /// The token.
        found: String,
    },
    /// The numbers do not make a problem (sizes, columns, friction).
    #[error("{0}")]
    Problem(#[from] ProblemError),
    /// `M`'s column starts do not describe a compressed matrix.
    #[error("M's compressed columns are inconsistent")]
    Mass,
}

/// An island read from text: the problem, its warm start, and the
/// settings it was solved with when the text gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct IslandText {
    /// The problem, checked.
    pub problem: VelocityProblem,
    /// The impulses it was solved from.
    pub warm: Vec<f64>,
    /// Friction law, tolerance and finish steps (the other settings at
    /// their defaults); `None` when the text stops after the warm start.
    pub settings: Option<SolverSettings>,
}

/// `problem`, its warm start `r` and the `settings` it was solved with
/// (if given) as text, after `comment` (each of its lines made a comment).
pub fn write_island(
    problem: &VelocityProblem,
    r: &[f64],
    settings: Option<&SolverSettings>,
    comment: &str,
) -> String {
    let mut text = String::new();
    for line in comment.lines() {
        let _ = writeln!(text, "# {line}");
    }
    let rows = &problem.rows;
    let mut lines = vec![
        join(problem.mass.indptr().raw_storage()),
        join(problem.mass.indices()),
        reals(problem.mass.data()),
        reals(&problem.force),
        rows.dimension.to_string(),
        join(&rows.start),
        join(&rows.cols),
        reals(&rows.values),
        reals(&problem.b),
        reals(&problem.mu),
        reals(r),
    ];
    if let Some(settings) = settings {
        let friction = match settings.friction {
            Friction::Exact => "exact",
            Friction::Convex => "convex",
        };
        lines.push(format!(
            "{friction} {:e} {}",
            settings.tolerance, settings.finish_steps
        ));
    } else if !problem.bounded.is_empty() {
        lines.push(String::new());
    }
    let bounded = &problem.bounded;
    if !bounded.is_empty() {
        lines.extend([
            join(&bounded.start),
            join(&bounded.cols),
            reals(&bounded.values),
            reals(&bounded.b),
            reals(&bounded.lo),
            reals(&bounded.hi),
        ]);
    }
    for line in lines {
        let _ = writeln!(text, "{line}");
    }
    text
}

/// Reads an island written by [`write_island`].
pub fn parse_island(text: &str) -> Result<IslandText, IslandTextError> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let line = |item: usize| -> Result<&str, IslandTextError> {
        lines
            .get(item - 1)
            .copied()
            .ok_or(IslandTextError::Truncated { item })
    };
    let reals = |item: usize| numbers::<f64>(line(item)?, item, "a real number");
    let whole = |item: usize| numbers::<usize>(line(item)?, item, "a whole number");
    let (start, rows, values) = (whole(1)?, whole(2)?, reals(3)?);
    let n = start.len().saturating_sub(1);
    let mass =
        CsMat::try_new_csc((n, n), start, rows, values).map_err(|_| IslandTextError::Mass)?;
    let dimension = match whole(5)?.as_slice() {
        [d] => *d,
        _ => {
            return Err(IslandTextError::Syntax {
                item: 5,
                expected: "one whole number",
                found: line(5)?.to_string(),
            })
        }
    };
    let problem = VelocityProblem {
        mass,
        force: reals(4)?,
        rows: ContactRows {
            dimension,
            start: whole(6)?,
            cols: whole(7)?,
            values: reals(8)?,
        },
        b: reals(9)?,
        mu: reals(10)?,
        bounded: match lines.get(12) {
            Some(line) if !line.trim().is_empty() => BoundedRows {
                start: whole(13)?,
                cols: whole(14)?,
                values: reals(15)?,
                b: reals(16)?,
                lo: reals(17)?,
                hi: reals(18)?,
            },
            _ => BoundedRows::default(),
        },
    };
    problem.validate()?;
    let r = reals(11)?;
    if r.len() != problem.b.len() + problem.bounded.len() {
        return Err(ProblemError::Size {
            what: "the warm start r",
            found: r.len(),
            expected: problem.b.len() + problem.bounded.len(),
        }
        .into());
    }
    // (A blank line after the warm start is no settings.)
    let settings = match lines.get(11) {
        Some(line) if !line.trim().is_empty() => Some(settings(line)?),
        _ => None,
    };
    Ok(IslandText {
        problem,
        warm: r,
        settings,
    })
}

/// Item 12: `exact` or `convex`, the tolerance, the finish steps.
fn settings(line: &str) -> Result<SolverSettings, IslandTextError> {
    let wrong = |expected: &'static str, found: &str| IslandTextError::Syntax {
        item: 12,
        expected,
        found: found.to_string(),
    };
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let [friction, tolerance, finish] = tokens[..] else {
        return Err(wrong("a friction law, a tolerance and finish steps", line));
    };
    let friction = match friction {
        "exact" => Friction::Exact,
        "convex" => Friction::Convex,
        other => return Err(wrong("`exact` or `convex`", other)),
    };
    let settings = SolverSettings {
        friction,
        tolerance: tolerance
            .parse()
            .map_err(|_| wrong("a tolerance", tolerance))?,
        finish_steps: finish
            .parse()
            .map_err(|_| wrong("a whole number of finish steps", finish))?,
        ..SolverSettings::default()
    };
    settings.validate()?;
    Ok(settings)
}

/// The numbers of item `item`'s line.
fn numbers<T: std::str::FromStr>(
    line: &str,
    item: usize,
    expected: &'static str,
) -> Result<Vec<T>, IslandTextError> {
    line.split_whitespace()
        .map(|x| {
            x.parse().map_err(|_| IslandTextError::Syntax {
                item,
                expected,
                found: x.to_string(),
            })
        })
        .collect()
}

/// Reals in the shortest form that reads back to the same number.
fn reals(x: &[f64]) -> String {
    let strings: Vec<String> = x.iter().map(|v| format!("{v:e}")).collect();
    strings.join(" ")
}

fn join(x: &[usize]) -> String {
    let strings: Vec<String> = x.iter().map(usize::to_string).collect();
    strings.join(" ")
}
