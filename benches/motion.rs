//! The cost of the model and the stepper against the cost of the instant
//! solves they wrap, on the benchmark chain (10 and 100 links), in the same
//! run:
//!
//! - `solve`: two warm instant solves alone ([`AutoBackend::solve_into`] on
//!   the chain's instant at two states);
//! - `evaluate`: two right-hand-side evaluations of the stepper at the same
//!   two states (the model writes the instant in place at `(t, q, v)`,
//!   then the same solve);
//! - `step`: one DOP853 step of the stepper (its stage evaluations, the
//!   dense output and the integrator's arithmetic), to be compared with
//!   `evaluations per step x solve`.
//!
//! The bar: the overhead of the model and the stepper under 50% of
//! the solves. `cargo run --release --example chain_work_precision` gives
//! the same ratio over whole runs, with the work-precision table.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;
use zwang::model::planar::chain;
use zwang::model::{Coordinates, InstantWriter};
use zwang::motion::Dynamics;
use zwang::ode::{Integrator, OdeSystem, Settings};
use zwang::qp::{AutoBackend, Backend, Solution};

fn motion(c: &mut Criterion) {
    let mut group = c.benchmark_group("motion");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for links in [10usize, 100] {
        let model = chain(links).expect("a valid chain");
        let n = model.nv();
        let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
        model.initial_state(&mut q, &mut v);
        // A state in motion: a little angular velocity on every link.
        for b in 0..links {
            v[model.offset(b) + 2] = 0.01 * b as f64;
        }
        // A second state, so that every timed solve sees new values (a
        // backend may skip work on values it has seen).
        let q2: Vec<f64> = q
            .iter()
            .enumerate()
            .map(|(i, x)| x + 1e-3 * (i as f64).sin())
            .collect();
        let mut dynamics = Dynamics::new(&model, 0.0, &q, &v, vec![]).expect("the chain's instant");
        let (mut a, _) = model
            .build_instant(0.0, &q, &v, &[])
            .expect("the chain's instant");
        let mut b = a.clone();
        model
            .update_instant(0.0, &q2, &v, &[], &mut b)
            .expect("written");
        model
            .update_instant(0.0, &q, &v, &[], &mut a)
            .expect("written");
        let mut backend = AutoBackend::new();
        let mut solution = Solution::empty();
        backend.solve_into(&a, &mut solution);
        group.bench_with_input(BenchmarkId::new("solve", links), &links, |bench, _| {
            bench.iter(|| {
                backend.solve_into(&a, &mut solution);
                backend.solve_into(&b, &mut solution);
            })
        });
        let y: Vec<f64> = q.iter().chain(&v).copied().collect();
        let y2: Vec<f64> = q2.iter().chain(&v).copied().collect();
        let mut dy = vec![0.0; 2 * n];
        group.bench_with_input(BenchmarkId::new("evaluate", links), &links, |bench, _| {
            bench.iter(|| {
                dynamics.rhs(0.0, &y, &mut dy).expect("solved");
                dynamics.rhs(0.0, &y2, &mut dy).expect("solved");
            })
        });
        let mut integrator = Integrator::new(2 * n, Settings::default());
        integrator.reset(&mut dynamics, 0.0, &y).expect("started");
        let evaluations = {
            let before = integrator.stats().evaluations;
            integrator
                .step_exactly(&mut dynamics, 1e-3)
                .expect("a step");
            integrator.stats().evaluations - before
        };
        println!("motion/step/{links}: {evaluations} evaluations per step");
        group.bench_with_input(BenchmarkId::new("step", links), &links, |b, _| {
            b.iter(|| {
                integrator.undo();
                integrator
                    .step_exactly(&mut dynamics, 1e-3)
                    .expect("a step")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, motion);
criterion_main!(benches);
