//! The velocity-level Coulomb solver (`zwang::contact::ContactSolver`), one
//! time step's contact problem, warm-started from the step before (the
//! steady state of a time stepper) unless the name says `cold`:
//!
//! - `velocity/stack/n`: a stack of `n` boxes alternating 1 and 100 kg, the
//!   light one at the bottom, each on two corners of the one below (`2n`
//!   contacts, one island): how cost grows with bodies;
//! - `velocity/stack_cold/n`: the same from zero impulses;
//! - `velocity/points/k`: one box at the cone's edge on a 20 degree
//!   incline (`mu = 1.01 tan 20`) on `k` redundant contacts: how cost grows
//!   with contacts per body;
//! - `velocity/islands/{parallel,serial}/k`: `k` stacks of ten boxes side
//!   by side (`k` islands), on rayon's pool or one after the other;
//! - `velocity/pyramid/rows`: a pyramid of bricks, `rows (rows + 1) / 2`
//!   boxes and twice as many contacts in one island.
//!
//! Each problem is solved once before timing, and must be solved to the
//! default tolerance (`1e-10`), so no timing is of a failed solve. Run with
//! `cargo bench --bench velocity_contact`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use zwang::contact::{ContactSolver, LocalProblem, SolverSettings, Status};
use zwang::problems::generate::{beside, box_on_incline, pyramid, stack, Scene};

fn mass_ratio_stack(n: usize) -> Scene {
    let masses: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { 1.0 } else { 100.0 })
        .collect();
    stack(&masses, 0.5, 0.002)
}

/// A solver warmed on `problem`, its answer, and the settings.
fn warmed(problem: &LocalProblem, settings: &SolverSettings) -> (ContactSolver, Vec<f64>) {
    let mut solver = ContactSolver::new();
    let n = problem.q.len();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let report = solver
        .solve_in_place(problem, settings, &mut r, &mut u)
        .expect("a valid problem");
    assert_eq!(report.status, Status::Solved, "{report:?}");
    eprintln!(
        "{} contacts, {} islands: {} iterations, {} Newton steps cold",
        problem.contacts(),
        report.islands,
        report.iterations,
        report.newton_steps
    );
    (solver, r)
}

fn bench_problem(
    c: &mut Criterion,
    group: &str,
    id: usize,
    problem: &LocalProblem,
    settings: &SolverSettings,
    cold: bool,
) {
    let (mut solver, answer) = warmed(problem, settings);
    let n = problem.q.len();
    let (mut r, mut u) = (answer.clone(), vec![0.0; n]);
    c.benchmark_group(group)
        .bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                if cold {
                    r.fill(0.0);
                } else {
                    r.copy_from_slice(&answer);
                }
                solver
                    .solve_in_place(problem, settings, &mut r, &mut u)
                    .expect("a valid problem")
            })
        });
}

fn velocity(c: &mut Criterion) {
    let serial = SolverSettings {
        parallel: false,
        ..SolverSettings::default()
    };
    for n in [10, 40, 160] {
        let problem = mass_ratio_stack(n).problem();
        bench_problem(c, "velocity/stack", n, &problem, &serial, false);
        bench_problem(c, "velocity/stack_cold", n, &problem, &serial, true);
    }
    let angle = 20f64.to_radians();
    for k in [2, 4, 8, 16, 32] {
        let problem = box_on_incline(angle, 1.01 * angle.tan(), k, 0.002).problem();
        bench_problem(c, "velocity/points", k, &problem, &serial, false);
    }
    for rows in [10, 20, 40] {
        let problem = pyramid(rows, 0.5, 0.002).problem();
        bench_problem(c, "velocity/pyramid", rows, &problem, &serial, false);
    }
    for k in [1, 4, 16, 64] {
        let stacks: Vec<Scene> = (0..k).map(|_| mass_ratio_stack(10)).collect();
        let problem = beside(&stacks).problem();
        bench_problem(c, "velocity/islands/serial", k, &problem, &serial, false);
        bench_problem(
            c,
            "velocity/islands/parallel",
            k,
            &problem,
            &SolverSettings::default(),
            false,
        );
    }
}

criterion_group!(benches, velocity);
criterion_main!(benches);
