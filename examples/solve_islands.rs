//! Solves islands written as text (`docs/island-format.md`) again, one at
//! a time and alone: the islands a run left unsolved, written where
//! `ZWANG_DUMP_UNSOLVED` named a directory, to measure which are hard and
//! try a change of the solver on them.
//!
//! ```text
//! cargo run --release --example solve_islands -- FILE_OR_DIRECTORY... [tolerance=X] [finish=N] [convex] [each] [why]
//! ```
//!
//! Each island is solved with the settings its file gives (the friction
//! law, tolerance and finish steps it met in the run; `SolverSettings`'
//! defaults for a file without them), from the warm start in its file, on
//! one thread; `tolerance=X`, `finish=N` and `convex` override them.
//! Prints how many islands are solved, how the others' errors spread, the
//! Newton steps and the time in all; `each` prints a line per island.
//! `why` says where the unsolved islands' residual lies: the share of its
//! square at contacts that stick (impulse inside the cone), at the verge
//! of sliding (impulse on the cone's surface, contact velocity below
//! `1e-6` of the error's scale), sliding, or without impulse; and whether
//! it is round-off (the error again with `v` moved by two ulps).

use std::path::PathBuf;
use std::time::Instant;

use zwang::contact::error::natural_map;
use zwang::contact::{parse_island, Friction, PrimalSolver, Status, VelocityProblem};

fn main() {
    if let Err(message) = run() {
        eprintln!("solve_islands: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let (mut tolerance, mut finish, mut convex) = (None, None, false);
    let (mut files, mut each, mut why) = (Vec::new(), false, false);
    for arg in std::env::args().skip(1) {
        if let Some(x) = arg.strip_prefix("tolerance=") {
            tolerance = Some(x.parse().map_err(|_| format!("tolerance: `{x}`"))?);
        } else if let Some(x) = arg.strip_prefix("finish=") {
            finish = Some(x.parse().map_err(|_| format!("finish: `{x}`"))?);
        } else if arg == "convex" {
            convex = true;
        } else if arg == "each" {
            each = true;
        } else if arg == "why" {
            why = true;
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
    // Over the unsolved islands: the residual's shares, summed, and the
    // largest change of an error by two ulps of `v`.
    let (mut shares, mut floor) = ([0.0; 4], 0.0f64);
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
        let split = (why && report.status != Status::Solved).then(|| {
            let (split, moved) = residual_split(&problem, settings.friction, &r, &v, &u);
            for (total, share) in shares.iter_mut().zip(split) {
                *total += share;
            }
            floor = floor.max(moved);
            (split, moved)
        });
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
            if let Some((s, moved)) = split {
                println!(
                    "  residual^2 {:.0}% sticking, {:.0}% at the verge, {:.0}% sliding, {:.0}% without impulse; \
                     two ulps of v change the error by {moved:.1e}",
                    100.0 * s[0],
                    100.0 * s[1],
                    100.0 * s[2],
                    100.0 * s[3]
                );
            }
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
    let unsolved = (files.len() - solved) as f64;
    if why && unsolved > 0.0 {
        println!(
            "unsolved islands' residual^2, mean share: {:.0}% sticking, {:.0}% at the verge of sliding, \
             {:.0}% sliding, {:.0}% without impulse; two ulps of v change an error by at most {floor:.1e}",
            100.0 * shares[0] / unsolved,
            100.0 * shares[1] / unsolved,
            100.0 * shares[2] / unsolved,
            100.0 * shares[3] / unsolved,
        );
    }
    Ok(())
}

/// The shares of the natural map's squared residual at contacts that
/// stick, are at the verge of sliding, slide, or carry no impulse; and by
/// how much the residual moves, relative to `max(|r|, |u|)`, when `v`
/// moves by two ulps (round-off's reach).
fn residual_split(
    problem: &VelocityProblem,
    friction: Friction,
    r: &[f64],
    v: &[f64],
    u: &[f64],
) -> ([f64; 4], f64) {
    let d = problem.rows.dimension;
    let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let scale = norm(r).max(norm(u));
    let mut split = [0.0; 4];
    for (i, &mu) in problem.mu.iter().enumerate() {
        let (ri, ui) = (&r[d * i..d * (i + 1)], &u[d * i..d * (i + 1)]);
        let residual = natural_map(friction, &[mu], ri, ui).powi(2);
        let state = if ri[0] <= 0.0 {
            3
        } else if norm(&ri[1..]) < (1.0 - 1e-3) * mu * ri[0] {
            0
        } else if norm(ui) <= 1e-6 * scale {
            1
        } else {
            2
        };
        split[state] += residual;
    }
    let total: f64 = split.iter().sum();
    if total > 0.0 {
        split.iter_mut().for_each(|s| *s /= total);
    }
    let residual = natural_map(friction, &problem.mu, r, u);
    let mut moved = 0.0f64;
    for sign in [-2.0, 2.0] {
        let nudged: Vec<f64> = v.iter().map(|x| x * (1.0 + sign * f64::EPSILON)).collect();
        let mut u2 = problem.b.clone();
        for i in 0..problem.mu.len() {
            let ji = problem.rows.velocity(i, &nudged);
            u2[d * i..d * (i + 1)]
                .iter_mut()
                .zip(ji)
                .for_each(|(a, j)| *a += j);
        }
        moved = moved.max((natural_map(friction, &problem.mu, r, &u2) - residual).abs() / scale);
    }
    (split, moved)
}
