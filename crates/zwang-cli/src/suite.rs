//! `zwang compare DIR`: every instant of a folder, one table row each, as
//! Markdown (stdout) and CSV (`--csv`), through [`zwang_harness::suite`].

use crate::{emit, error_message, one_line, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use std::path::Path;
use zwang_harness::json::pretty;
use zwang_harness::suite::{compare_folder, markdown, write_csv, Entry, Row};
use zwang_instant::file::ParseOptions;

/// Runs `zwang compare DIR`; returns the exit code.
pub(crate) fn run(
    dir: &Path,
    options: ParseOptions,
    json: bool,
    csv: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let entries = match compare_folder(dir, options) {
        Ok(entries) => entries,
        Err(e) => {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    };
    let mut malformed = false;
    for entry in &entries {
        let file = entry.file.display().to_string();
        match &entry.outcome {
            Ok((parsed, _)) => {
                for warning in &parsed.warnings {
                    emit(err, &one_line(&format!("warning: {file}: "), warning));
                }
            }
            Err(e) => {
                malformed = true;
                emit(
                    err,
                    &one_line(&format!("error: {file}: "), &error_message(e)),
                );
            }
        }
    }
    let rows: Vec<Row> = entries.iter().map(Entry::row).collect();
    if let Some(csv) = csv {
        if let Err(e) = write_csv(csv, &rows) {
            emit(err, &one_line("error: ", &e));
            return EXIT_BAD_INPUT;
        }
    }
    emit(
        out,
        &if json {
            pretty(&entries.iter().map(Entry::json).collect::<Vec<_>>())
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
