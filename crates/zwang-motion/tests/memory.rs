//! The bug (issue 33, working memory that scales): a scene of 20,000
//! free particles, one island each, held 73 KB a body (1.46 GB) while it
//! ran 1 ms under the event-driven method. Each island's solvers held the
//! working memory of problems it never meets: the tiny dense path's
//! matrices at their largest size (16 KB, three times: the dynamics, the
//! projector, the Coulomb solver's QP), the active-set and general paths,
//! and the Coulomb solver itself. Now they are made on first need and
//! sized to the problem: a run holds under 10 KB a body, and doubling the
//! bodies at most doubles it (and a little for vectors that grow by
//! doubling).
//!
//! The allocator counts the bytes allocated and freed, process-wide (so
//! this file holds a single test); an observer reads the bytes live at
//! the run's last sample, when every island's working memory is held.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

use zwang_model::planar::{Body, PlanarModel};
use zwang_motion::{simulate_islands, ContactSample, Observer, Settings, Status};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The most bytes live, above those before the region, at any sample.
struct Live<'a> {
    region: &'a Region<'static, System>,
    most: usize,
}

impl Observer for Live<'_> {
    fn wants_samples(&self) -> bool {
        true
    }

    fn sample(&mut self, _: f64, _: &[f64], _: &[f64], _: &[ContactSample]) {
        let change = self.region.change();
        let live = change.bytes_allocated + change.bytes_reallocated.max(0) as usize;
        self.most = self.most.max(live.saturating_sub(change.bytes_deallocated));
    }
}

/// The bytes live at the last sample of `n` free particles' model and
/// islands run 1 ms (the least of three runs: the harness's main thread
/// may still be allocating when the test starts, which only ever adds).
fn bytes(n: usize) -> usize {
    (0..3).map(|_| bytes_once(n)).min().expect("three")
}

fn bytes_once(n: usize) -> usize {
    let region = Region::new(GLOBAL);
    let bodies = (0..n)
        .map(|i| {
            let mut b = Body::particle(format!("p{i}"), 1.0).at([0.01 * i as f64, 1.0]);
            b.velocity = [0.0, 0.1 * (i % 7) as f64];
            b
        })
        .collect();
    let model = PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], vec![]).unwrap();
    let islands = model.islands().unwrap();
    assert_eq!(islands.len(), n);
    let settings = Settings {
        output_every: 1e-3,
        ..Settings::default()
    };
    let mut live = Live {
        region: &region,
        most: 0,
    };
    let outcome = simulate_islands(&model, &islands, 1e-3, &settings, &mut live);
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    live.most
}

#[test]
fn free_particles_hold_under_10_kb_a_body() {
    let small = bytes(2_000);
    let large = bytes(4_000);
    eprintln!(
        "live: {:.0} B a body at 2,000 particles, {:.0} B at 4,000",
        small as f64 / 2_000.0,
        large as f64 / 4_000.0
    );
    assert!(large < 10_000 * 4_000, "{large} B for 4,000 bodies");
    assert!(
        (large as f64) < 2.1 * small as f64,
        "{small} B for 2,000 bodies, {large} B for 4,000"
    );
}
