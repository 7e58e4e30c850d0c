//! Writing the instant in place allocates nothing (the derivative kernels
//! seed preallocated hyper-dual copies of the state, and the elements'
//! scratch lives on the stack), and neither does a step of a run: a run
//! ten times longer allocates exactly as often.
//!
//! The count is process-wide, so this file holds a single test, and each
//! count is the least of three measurements: the test harness's main
//! thread may still be allocating (its bookkeeping after spawning the
//! test's thread) when a machine is loaded, which only ever adds.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System as Heap;
use zwang_generalized::catalog::{CartesianDoublePendulum, DoublePendulum, PendulumOnBlock};
use zwang_generalized::{Generalized, System};
use zwang_model::Mechanism;
use zwang_motion::{simulate, NoObserver, Settings, Status};

#[global_allocator]
static GLOBAL: &StatsAlloc<Heap> = &INSTRUMENTED_SYSTEM;

/// The least count of three measurements (see the file's docs).
fn least<T: Ord>(mut measure: impl FnMut() -> T) -> T {
    (0..3).map(|_| measure()).min().expect("three")
}

/// Allocations of 100 in-place updates at moving states.
fn update_allocations<S: System>(sys: &Generalized<S>) -> usize {
    least(|| update_allocations_once(sys))
}

fn update_allocations_once<S: System>(sys: &Generalized<S>) -> usize {
    let (q0, qd) = sys.initial();
    let mut instant = sys.instant(0.0, &q0, &qd).unwrap();
    let mut q = q0.clone();
    let region = Region::new(GLOBAL);
    for k in 0..100 {
        let t = 0.01 * k as f64;
        for (x, x0) in q.iter_mut().zip(&q0) {
            *x = x0 + 0.1 * t;
        }
        sys.update(t, &q, &qd, &mut instant).unwrap();
    }
    region.change().allocations
}

fn run_allocations<M: Mechanism>(model: &M, duration: f64) -> (usize, usize) {
    least(|| run_allocations_once(model, duration))
}

fn run_allocations_once<M: Mechanism>(model: &M, duration: f64) -> (usize, usize) {
    let region = Region::new(GLOBAL);
    let outcome = simulate(model, duration, &Settings::default(), &mut NoObserver);
    let count = region.change().allocations;
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    (count, outcome.steps)
}

#[test]
fn updates_and_steps_allocate_nothing() {
    let angles = Generalized::new(DoublePendulum::default()).unwrap();
    let block = Generalized::new(PendulumOnBlock {
        relative: true,
        ..PendulumOnBlock::default()
    })
    .unwrap();
    let cartesian = Generalized::new(CartesianDoublePendulum::default()).unwrap();
    assert_eq!(update_allocations(&angles), 0, "double pendulum");
    assert_eq!(
        update_allocations(&block),
        0,
        "pendulum on a block (frame forces)"
    );
    assert_eq!(
        update_allocations(&cartesian),
        0,
        "cartesian double pendulum (rows)"
    );
    for (name, short, long) in [
        (
            "double pendulum",
            run_allocations(&angles, 0.5),
            run_allocations(&angles, 5.0),
        ),
        (
            "cartesian",
            run_allocations(&cartesian, 0.5),
            run_allocations(&cartesian, 5.0),
        ),
    ] {
        println!(
            "{name}: {} allocations in {} steps, {} in {}",
            short.0, short.1, long.0, long.1
        );
        assert!(
            long.1 > 5 * short.1,
            "{name}: the long run takes more steps"
        );
        assert_eq!(short.0, long.0, "{name}: steps allocate");
    }
}
