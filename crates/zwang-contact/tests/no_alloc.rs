//! Warm solves of a problem whose pattern did not change allocate nothing,
//! friction included: the islands' factorizations are analysed once per
//! pattern and every vector lives in the solver; nor do the warm starts
//! stored and found again by contact id.
//!
//! The count is process-wide, so this file holds a single test.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_contact::generate::{box_on_incline, stack};
use zwang_contact::{
    ContactSolver, Friction, LocalProblem, PrimalSolver, SolverSettings, Status, VelocityProblem,
    WarmStarts,
};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Solves once to warm up, then five times with `q` and `W` scaled by a
/// few parts per million (every factorization redone), warm-started from
/// the last answer; the least count over three such runs (the test
/// harness's own thread may allocate meanwhile).
fn warm_allocations(problem: &mut LocalProblem, settings: &SolverSettings) -> usize {
    let mut solver = ContactSolver::new();
    let n = problem.q.len();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let report = solver
        .solve_in_place(problem, settings, &mut r, &mut u)
        .unwrap();
    assert_eq!(report.status, Status::Solved);
    let mut ids: Vec<u64> = (0..problem.contacts() as u64)
        .map(|i| 1000 + 7 * i)
        .collect();
    let mut warm = WarmStarts::new();
    warm.store(&ids, &r);
    (0..3)
        .map(|_| {
            let region = Region::new(GLOBAL);
            for step in 0..5 {
                let f = 1.0 + 1e-6 * (step as f64 + 1.0);
                for v in problem.q.iter_mut().chain(problem.w.data_mut()) {
                    *v *= f;
                }
                // The contacts found again by id, in reverse order.
                warm.store(&ids, &r);
                ids.reverse();
                warm.fill(&ids, &mut r);
                ids.reverse();
                warm.fill(&ids, &mut r);
                let report = solver
                    .solve_in_place(problem, settings, &mut r, &mut u)
                    .unwrap();
                assert_eq!(report.status, Status::Solved);
            }
            let change = region.change();
            change.allocations + change.reallocations
        })
        .min()
        .unwrap()
}

/// The same for the primal solver: the rows scaled by a few parts per
/// million each solve (the Newton matrix refactored); `dual` says whether
/// the answers must come from its dual finish.
fn warm_primal_allocations(
    problem: &mut VelocityProblem,
    settings: &SolverSettings,
    dual: bool,
) -> usize {
    let mut solver = PrimalSolver::new();
    let (n, k) = (problem.force.len(), 2 * problem.mu.len());
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; n], vec![0.0; k]);
    let report = solver
        .solve_in_place(problem, settings, &mut r, &mut v, &mut u)
        .unwrap();
    assert_eq!(report.status, Status::Solved);
    (0..3)
        .map(|_| {
            let region = Region::new(GLOBAL);
            for step in 0..5 {
                let f = 1.0 + 1e-6 * (step as f64 + 1.0);
                for x in problem
                    .rows
                    .normal
                    .iter_mut()
                    .chain(&mut problem.rows.tangent)
                {
                    *x *= f;
                }
                let report = solver
                    .solve_in_place(problem, settings, &mut r, &mut v, &mut u)
                    .unwrap();
                assert_eq!(report.status, Status::Solved);
                assert_eq!(report.dual, dual);
            }
            let change = region.change();
            change.allocations + change.reallocations
        })
        .min()
        .unwrap()
}

#[test]
fn warm_solves_allocate_nothing() {
    let angle = 20f64.to_radians();
    let masses: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1.0 } else { 100.0 })
        .collect();
    let cases = [
        (
            "box at the cone's edge",
            box_on_incline(angle, 1.01 * angle.tan(), 4, 0.002),
        ),
        (
            "sliding box",
            box_on_incline(angle, 0.9 * angle.tan(), 4, 0.002),
        ),
        ("mass-ratio stack", stack(&masses, 0.5, 0.002)),
    ];
    for (name, scene) in cases {
        for friction in [Friction::Exact, Friction::Convex] {
            let settings = SolverSettings {
                friction,
                parallel: false,
                ..SolverSettings::default()
            };
            let mut problem = scene.problem();
            let count = warm_allocations(&mut problem, &settings);
            assert_eq!(count, 0, "{name}, {friction:?}: {count} allocations");
        }
    }
    // The primal method, and its dual finish (a 1:10,000 stack at a
    // tolerance below the primal method's floor).
    let heavy: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1.0 } else { 1e4 })
        .collect();
    let cases = [
        (
            "box at the cone's edge",
            box_on_incline(angle, 1.01 * angle.tan(), 4, 0.002),
            1e-10,
            false,
        ),
        ("mass-ratio stack", stack(&masses, 0.5, 0.002), 1e-10, false),
        ("1:10,000 stack", stack(&heavy, 0.5, 0.002), 1e-13, true),
    ];
    for (name, scene, tolerance, dual) in cases {
        for friction in [Friction::Exact, Friction::Convex] {
            let settings = SolverSettings {
                friction,
                tolerance,
                parallel: false,
                ..SolverSettings::default()
            };
            let mut problem = scene.velocity_problem();
            let count = warm_primal_allocations(&mut problem, &settings, dual);
            assert_eq!(
                count, 0,
                "primal, {name}, {friction:?}: {count} allocations"
            );
        }
    }
}
