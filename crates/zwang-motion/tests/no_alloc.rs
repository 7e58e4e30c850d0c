//! The stepper allocates per run and per event, never per step: a run ten
//! times longer allocates exactly as often (the instant is written in
//! place, the backends and the integrator reuse their workspaces, the
//! switching functions and projections reuse their buffers).
//!
//! Covered: joints only (a chain), and frictionless contacts that stay
//! closed (a box on the floor pulled to and fro by a spring: a switching
//! solve every step).
//! Frictional instants go to the Coulomb contact problem, which allocates
//! per solve (it enumerates modes); they are not covered here.
//!
//! The count is process-wide, so this file holds a single test, and each
//! count is the least of three runs: the test harness's main thread may
//! still be allocating (its bookkeeping after spawning the test's thread)
//! when a machine is loaded, which only ever adds.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_model::planar::{chain, Body, BodyRef, Contact, Force, PlanarModel, Surface};
use zwang_motion::{simulate, NoObserver, Settings, Status};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn allocations(model: &PlanarModel, duration: f64) -> (usize, usize) {
    (0..3)
        .map(|_| allocations_once(model, duration))
        .min()
        .expect("three")
}

fn allocations_once(model: &PlanarModel, duration: f64) -> (usize, usize) {
    let region = Region::new(GLOBAL);
    let outcome = simulate(model, duration, &Settings::default(), &mut NoObserver);
    let count = region.change().allocations;
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    (count, outcome.steps)
}

#[test]
fn steps_allocate_nothing() {
    let links = chain(5).unwrap();
    let floor = |body: usize, point: [f64; 2]| Contact {
        name: format!("corner{body}{}", point[0]),
        body,
        point,
        surface: Surface::Line {
            point: [0.0, 0.0],
            normal: [0.0, 1.0],
        },
        friction: 0.0,
        viscous: 0.0,
        restitution: 0.0,
    };
    let resting = PlanarModel::new(
        [0.0, -9.81],
        vec![Body::rigid("box", 2.0, 0.5).at([0.3, 0.25])],
        vec![],
        vec![floor(0, [-0.5, -0.25]), floor(0, [0.5, -0.25])],
        // Pulled to and fro along the floor by a spring.
        vec![Force::Spring {
            bodies: [BodyRef::Ground, BodyRef::Body(0)],
            anchors: [[-1.0, 0.25], [0.0, 0.0]],
            stiffness: 50.0,
            rest_length: 1.0,
        }],
    )
    .unwrap();
    for (name, model) in [("chain", &links), ("resting box", &resting)] {
        let (short, short_steps) = allocations(model, 1.0);
        let (long, long_steps) = allocations(model, 4.0);
        assert!(
            long_steps > short_steps + 10,
            "{name}: {short_steps} vs {long_steps} steps"
        );
        assert_eq!(
            short, long,
            "{name}: {short} allocations in {short_steps} steps, {long} in {long_steps}"
        );
    }
}
