//! After `Integrator::new`, nothing allocates: steps (with rejections),
//! dense output, undo, step_exactly, set_state, reset, and the root finder
//! on the dense output.
//!
//! The count is process-wide, so this file holds a single test (the test
//! harness runs nothing else beside it).

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_ode::{find_root, Integrator, Method, Settings};

#[path = "ode/kepler.rs"]
mod kepler;
use kepler::Kepler;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Integrates two orbits of the Kepler problem at eccentricity 0.9 (the
/// step size changes by orders of magnitude and steps get rejected) with
/// every operation of the integrator, and returns how many events were
/// located.
fn exercise(ode: &mut Integrator, out: &mut [f64; 4]) -> usize {
    let mut events = 0;
    let start = [0.1, 0.0, 0.0, (1.9f64 / 0.1).sqrt()];
    ode.reset(&mut Kepler, 0.0, &start).unwrap();
    let t_end = 4.0 * std::f64::consts::PI;
    while ode.t() < t_end {
        ode.step(&mut Kepler, t_end).unwrap();
        for i in 0..5 {
            let t = ode.t_prev() + (ode.t() - ode.t_prev()) * i as f64 / 4.0;
            ode.dense(t, out);
        }
        // An "event" when x crosses -0.5: locate, undo, redo, restart
        // (not again at the start of the step after the restart).
        let (fa, fb) = (ode.y_prev()[0] + 0.5, ode.y()[0] + 0.5);
        if fa > 1e-9 && fb <= 0.0 {
            let (a, b) = (ode.t_prev(), ode.t());
            let t_event = find_root(
                |t| {
                    ode.dense(t, out);
                    Ok::<f64, ()>(out[0] + 0.5)
                },
                a,
                b,
                fa,
                fb,
                1e-12,
            )
            .unwrap();
            ode.undo();
            ode.step_exactly(&mut Kepler, t_event - a).unwrap();
            out.copy_from_slice(ode.y());
            ode.reset(&mut Kepler, ode.t(), &out[..]).unwrap();
            events += 1;
        }
        // A "projection": scale the velocity by 1 (a copy in place).
        out.copy_from_slice(ode.y());
        ode.set_state(&mut Kepler, &out[..]).unwrap();
    }
    events
}

#[test]
fn stepping_allocates_nothing_after_new() {
    let mut out = [0.0; 4];
    for method in [Method::Dopri5, Method::Dop853] {
        let mut ode = Integrator::new(
            4,
            Settings {
                method,
                ..Settings::default()
            },
        );
        let region = Region::new(GLOBAL);
        let events = exercise(&mut ode, &mut out);
        let change = region.change();
        let stats = ode.stats();
        assert!(
            stats.accepted > 50 && stats.rejected > 0,
            "{method:?}: {stats:?}"
        );
        assert_eq!(events, 2, "{method:?}");
        assert_eq!(
            change.allocations + change.reallocations,
            0,
            "{method:?}: {change:?}"
        );
        // The methods switch without new memory either.
        let other = match method {
            Method::Dopri5 => Method::Dop853,
            Method::Dop853 => Method::Dopri5,
        };
        let region = Region::new(GLOBAL);
        ode.set_settings(Settings {
            method: other,
            ..*ode.settings()
        });
        exercise(&mut ode, &mut out);
        let change = region.change();
        assert_eq!(change.allocations + change.reallocations, 0, "{change:?}");
    }
    // The counter counts.
    let region = Region::new(GLOBAL);
    let ode = Integrator::new(4, Settings::default());
    assert!(region.change().allocations > 0);
    drop(ode);
}
