//! A warm `solve_into` on an instant whose structure and active set did not
//! change allocates nothing: the workspaces live in the backends, analysed
//! once per structure stamp, and the solution's vectors are reused.
//!
//! The count is process-wide, so this file holds a single test (the test
//! harness runs nothing else beside it).

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_instant::generate::{chain, particles_on_floor, plate_on_particles, scene, SceneSpec};
use zwang_instant::{Instant, RowSet};
use zwang_qp::{ActiveSetBackend, AutoBackend, Backend, DirectBackend, Solution, Status};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Solves once to warm up, then five times with every value changed in
/// place (force, right-hand sides, row values and mass values scaled by a
/// few parts per million, which keeps the active set but forces every
/// numeric factorization to be redone), and returns the allocations counted
/// over those five solves and value updates.
fn warm_allocations(backend: &mut dyn Backend, instant: &mut Instant) -> usize {
    let mut out = Solution::empty();
    backend.solve_into(instant, &mut out);
    assert_eq!(out.status, Status::Solved, "{}", backend.name());
    backend.solve_into(instant, &mut out);
    let mut force = instant.force().to_vec();
    let mut b_eq = instant.equalities().rhs().to_vec();
    let mut b_in = instant.inequalities().rhs().to_vec();
    let mut a_eq = instant.equalities().matrix().data().to_vec();
    let mut a_in = instant.inequalities().matrix().data().to_vec();
    let mut mass = instant.mass().data().to_vec();
    let region = Region::new(GLOBAL);
    for step in 0..5 {
        let f = 1.0 + 1e-6 * (step as f64 + 1.0);
        let all = force.iter_mut().chain(&mut b_eq).chain(&mut b_in);
        for v in all.chain(&mut a_eq).chain(&mut a_in).chain(&mut mass) {
            *v *= f;
        }
        instant.set_force(&force).unwrap();
        instant.set_rhs(RowSet::Equalities, &b_eq).unwrap();
        instant.set_rhs(RowSet::Inequalities, &b_in).unwrap();
        instant.set_row_values(RowSet::Equalities, &a_eq).unwrap();
        instant.set_row_values(RowSet::Inequalities, &a_in).unwrap();
        instant.set_mass_values(&mass).unwrap();
        backend.solve_into(instant, &mut out);
        assert_eq!(out.status, Status::Solved);
    }
    let change = region.change();
    change.allocations + change.reallocations
}

#[test]
fn warm_solves_allocate_nothing() {
    let coupled = |bodies, contacts| {
        scene(&SceneSpec {
            bodies,
            joints: bodies - 1,
            ground_pin: true,
            contacts,
            coupled_mass: true,
            seed: 3,
            ..SceneSpec::default()
        })
        .instant
    };
    let with_contacts = scene(&SceneSpec {
        bodies: 30,
        joints: 20,
        contacts: 20,
        seed: 4,
        ..SceneSpec::default()
    })
    .instant;
    let cases: Vec<(&str, Box<dyn Backend>, Instant)> = vec![
        (
            "direct, tiny dense",
            Box::new(DirectBackend::new()),
            chain(1, 1).instant,
        ),
        (
            "direct, Schur",
            Box::new(DirectBackend::new()),
            chain(200, 2).instant,
        ),
        (
            "direct, KKT",
            Box::new(DirectBackend::new()),
            coupled(40, 0),
        ),
        (
            "auto, Schur",
            Box::new(AutoBackend::new()),
            chain(30, 5).instant,
        ),
        (
            "active set, Schur",
            Box::new(ActiveSetBackend::new()),
            with_contacts,
        ),
        (
            "active set, KKT (coupled M)",
            Box::new(ActiveSetBackend::new()),
            coupled(30, 12),
        ),
        (
            "active set, KKT by cost",
            Box::new(ActiveSetBackend::new()),
            plate_on_particles(60, 1),
        ),
        (
            "auto, floor",
            Box::new(AutoBackend::new()),
            particles_on_floor(300, 2),
        ),
    ];
    // The counter counts: a cold solve allocates its workspace.
    let region = Region::new(GLOBAL);
    let _ = DirectBackend::new().solve(&chain(20, 1).instant);
    assert!(region.change().allocations > 0);
    for (what, mut backend, mut instant) in cases {
        let count = warm_allocations(backend.as_mut(), &mut instant);
        assert_eq!(count, 0, "{what}: {count} allocations in five warm solves");
    }
}
