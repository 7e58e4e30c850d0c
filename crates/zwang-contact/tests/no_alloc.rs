//! Warm solves of a problem whose pattern did not change allocate nothing,
//! friction included: the islands' factorizations are analysed once per
//! pattern and every vector lives in the solver.
//!
//! The count is process-wide, so this file holds a single test.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_contact::{
    parse_island, ContactSolver, Friction, LocalProblem, PrimalSolver, SolverSettings, Status,
    VelocityProblem,
};
use zwang_problems::generate::spatial::{Cube, World};
use zwang_problems::generate::{box_on_incline, pyramid, stack, G};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The least count of allocations over three runs (the test harness's own
/// thread may allocate meanwhile) of five calls of `solve_scaled`, each
/// with a factor a few parts per million above 1.
fn least_allocations(mut solve_scaled: impl FnMut(f64)) -> usize {
    (0..3)
        .map(|_| {
            let region = Region::new(GLOBAL);
            for step in 0..5 {
                solve_scaled(1.0 + 1e-6 * (step as f64 + 1.0));
            }
            let change = region.change();
            change.allocations + change.reallocations
        })
        .min()
        .unwrap()
}

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
    least_allocations(|f| {
        for v in problem.q.iter_mut().chain(problem.w.data_mut()) {
            *v *= f;
        }
        let report = solver
            .solve_in_place(problem, settings, &mut r, &mut u)
            .unwrap();
        assert_eq!(report.status, Status::Solved);
    })
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
    let (n, k) = (
        problem.force.len(),
        problem.rows.dimension * problem.mu.len() + problem.bounded.len(),
    );
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; n], vec![0.0; k]);
    let report = solver
        .solve_in_place(problem, settings, &mut r, &mut v, &mut u)
        .unwrap();
    assert_eq!(report.status, Status::Solved);
    least_allocations(|f| {
        for x in problem.rows.values.iter_mut() {
            *x *= f;
        }
        let report = solver
            .solve_in_place(problem, settings, &mut r, &mut v, &mut u)
            .unwrap();
        assert_eq!(report.status, Status::Solved, "{report:?}");
        assert_eq!(report.dual, dual);
    })
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
    // tolerance below the primal method's floor); in space a cube at the
    // cone's edge on an incline, and a 1:100 stack of cubes below the
    // floor (the proximal Newton finish then runs every solve).
    let heavy: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1.0 } else { 1e4 })
        .collect();
    let mut incline = World::new([-G * angle.sin(), 0.0, -G * angle.cos()], 0.002);
    let cube = |m: f64, level: usize| Cube {
        m,
        a: 0.05,
        centre: [0.0, 0.0, 0.05 + 0.1 * level as f64],
    };
    incline.stack(cube(1.0, 0), None, 1.01 * angle.tan());
    let mut tower = World::new([0.0, 0.0, -G], 0.002);
    let mut below = None;
    for (level, &m) in masses.iter().take(6).enumerate() {
        below = Some(tower.stack(cube(m, level), below, 0.5));
    }
    let edge = box_on_incline(angle, 1.01 * angle.tan(), 4, 0.002);
    // Bounded rows too: the bottom two boxes' horizontal velocities tied,
    // dry friction on each box's turning, a limit on the top one's rise.
    let mut jointed = stack(&masses, 0.5, 0.002).velocity_problem();
    jointed
        .bounded
        .push([(0, 1.0), (3, -1.0)], 0.0, f64::NEG_INFINITY, f64::INFINITY);
    for b in 0..masses.len() {
        jointed.bounded.push([(3 * b + 2, 1.0)], 0.0, -0.01, 0.01);
    }
    let top = 3 * (masses.len() - 1) + 1;
    jointed.bounded.push([(top, 1.0)], 0.0, 0.0, f64::INFINITY);
    let cases = [
        (
            "box at the cone's edge",
            edge.velocity_problem(),
            1e-10,
            false,
        ),
        (
            "mass-ratio stack",
            stack(&masses, 0.5, 0.002).velocity_problem(),
            1e-10,
            false,
        ),
        // 165 velocities: the supernodal Cholesky.
        (
            "pyramid of 10 rows",
            pyramid(10, 0.5, 0.002).velocity_problem(),
            1e-10,
            false,
        ),
        (
            "1:10,000 stack",
            stack(&heavy, 0.5, 0.002).velocity_problem(),
            1e-13,
            true,
        ),
        ("cube at the cone's edge", incline.problem(), 1e-10, false),
        ("mass-ratio stack, jointed", jointed, 1e-10, false),
        ("1:100 stack of cubes", tower.problem(), 1e-12, true),
    ];
    for (name, problem, tolerance, finished) in cases {
        for friction in [Friction::Exact, Friction::Convex] {
            let settings = SolverSettings {
                friction,
                tolerance,
                parallel: false,
                ..SolverSettings::default()
            };
            let count = warm_primal_allocations(&mut problem.clone(), &settings, finished);
            assert_eq!(
                count, 0,
                "primal, {name}, {friction:?}: {count} allocations"
            );
        }
    }
    // The polish: an island that the proximal finish leaves unsolved,
    // solved from its own warm start every time (some of its scaled
    // copies stay unsolved, a few parts in 1e10: `docs/benchmarks.md`;
    // the polish runs on each).
    let island = parse_island(include_str!("data/two_boxes_at_the_verge_of_sliding.txt")).unwrap();
    let mut problem = island.problem;
    let settings = SolverSettings {
        tolerance: 1e-10,
        parallel: false,
        ..SolverSettings::default()
    };
    let mut solver = PrimalSolver::new();
    let (n, k) = (problem.force.len(), island.warm.len());
    let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; n], vec![0.0; k]);
    let mut solve = |problem: &VelocityProblem| {
        r.copy_from_slice(&island.warm);
        let report = solver
            .solve_in_place(problem, &settings, &mut r, &mut v, &mut u)
            .unwrap();
        assert!(report.dual && report.error < 1e-8, "{report:?}");
    };
    solve(&problem);
    let count = least_allocations(|f| {
        for x in problem.rows.values.iter_mut() {
            *x *= f;
        }
        solve(&problem);
    });
    assert_eq!(count, 0, "the polish: {count} allocations");
}
