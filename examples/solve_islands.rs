//! Solves islands written as text (`docs/island-format.md`) again, one at
//! a time and alone: the islands a run left unsolved, written where
//! `ZWANG_DUMP_UNSOLVED` named a directory, to measure which are hard and
//! try a change of the solver on them.
//!
//! ```text
//! cargo run --release --example solve_islands -- FILE_OR_DIRECTORY... [tolerance=X] [finish=N] [convex] [each]
//! ```
//!
//! Each island is solved with the settings its file gives (the friction
//! law, tolerance and finish steps it met in the run; `SolverSettings`'
//! defaults for a file without them), from the warm start in its file, on
//! one thread; `tolerance=X`, `finish=N` and `convex` override them.
//! Prints how many islands are solved, how the others' errors spread, the
//! Newton steps and the time in all; `each` prints a line per island.

use std::path::PathBuf;
use std::time::Instant;

use zwang::contact::{parse_island, Friction, PrimalSolver, Status};

fn main() {
    if let Err(message) = run() {
        eprintln!("solve_islands: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let (mut tolerance, mut finish, mut convex) = (None, None, false);
    let (mut files, mut each) = (Vec::new(), false);
    for arg in std::env::args().skip(1) {
        if let Some(x) = arg.strip_prefix("tolerance=") {
            tolerance = Some(x.parse().map_err(|_| format!("tolerance: `{x}`"))?);
        } else if let Some(x) = arg.strip_prefix("finish=") {
            finish = Some(x.parse().map_err(|_| format!("finish: `{x}`"))?);
        } else if arg == "convex" {
            convex = true;
        } else if arg == "each" {
            each = true;
        } else {
            let path = PathBuf::from(&arg);
            if path.is_dir() {
                let entries = std::fs::read_dir(&path).map_err(|e| format!("{arg}: {e}"))?;
                let mut found: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                    .collect();
                found.sort();
                files.extend(found);
            } else {
                files.push(path);
            }
        }
    }
    if files.is_empty() {
        return Err("no island files given".into());
    }
    // Unsolved islands by their error's decade: below 1e-9, 1e-8, 1e-7,
    // 1e-6, and above.
    let (mut solved, mut spread, mut worst) = (0, [0usize; 5], 0.0f64);
    let mut tolerances = (f64::INFINITY, 0.0f64);
    let (mut newton, mut seconds) = (0, 0.0);
    for file in &files {
        let name = file.display();
        let text = std::fs::read_to_string(file).map_err(|e| format!("{name}: {e}"))?;
        let island = parse_island(&text).map_err(|e| format!("{name}: {e}"))?;
        let mut settings = island.settings.unwrap_or_default();
        settings.parallel = false;
        settings.tolerance = tolerance.unwrap_or(settings.tolerance);
        settings.finish_steps = finish.unwrap_or(settings.finish_steps);
        if convex {
            settings.friction = Friction::Convex;
        }
        settings.validate().map_err(|e| e.to_string())?;
        let (problem, mut r) = (island.problem, island.warm);
        let (mut v, mut u) = (vec![0.0; problem.force.len()], vec![0.0; r.len()]);
        tolerances = (
            tolerances.0.min(settings.tolerance),
            tolerances.1.max(settings.tolerance),
        );
        let start = Instant::now();
        let report = PrimalSolver::new()
            .solve_in_place(&problem, &settings, &mut r, &mut v, &mut u)
            .map_err(|e| format!("{name}: {e}"))?;
        let elapsed = start.elapsed().as_secs_f64();
        seconds += elapsed;
        newton += report.newton_steps;
        if report.status == Status::Solved {
            solved += 1;
        } else {
            worst = worst.max(report.error);
            let decade = [1e-9, 1e-8, 1e-7, 1e-6]
                .iter()
                .take_while(|&&x| report.error >= x)
                .count();
            spread[decade] += 1;
        }
        if each {
            println!(
                "{name}: {:?}, error {:.2e}, {} outer iterations, {} Newton steps, {} contacts, {:.1} ms",
                report.status,
                report.error,
                report.iterations,
                report.newton_steps,
                problem.mu.len(),
                elapsed * 1e3
            );
        }
    }
    println!(
        "{solved} of {} islands solved (tolerances {:e} to {:e}); unsolved by error: {} below 1e-9, {} below 1e-8, \
         {} below 1e-7, {} below 1e-6, {} above (worst {worst:.2e}); {newton} Newton steps, {seconds:.2} s",
        files.len(),
        tolerances.0,
        tolerances.1,
        spread[0],
        spread[1],
        spread[2],
        spread[3],
        spread[4],
    );
    Ok(())
}
