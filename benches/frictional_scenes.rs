//! Whole runs of frictional scenes (the event-driven stepper on the Coulomb
//! contact problem), 0.5 s simulated each:
//!
//! - `plate/K`: a plate sliding on `K` rough points (6 to 12), one part
//!   whose contact problem has `3^K` mode combinations;
//! - `blocks/N` and `blocks_whole/N`: `N` blocks each sliding to a stop on
//!   two rough corners, integrated island by island (as `zwang simulate`
//!   does) and, the peer in the same run, as one system, whose every event
//!   restarts the integration of all the blocks.
//!
//! The same answers either way are tested (`tests/facade/
//! motion_islands.rs`); here only the cost.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;
use zwang::motion::{simulate_islands, NoObserver, Status};
use zwang::run::settings_of;
use zwang::scene::{parse_scene, Scene};

const HEADER: &str = "[scene]\ndimension = 2\ngravity = [0.0, -9.81]\nduration = 0.5\n";

/// A body and its rough corner points on the floor `y = 0`.
fn body(name: &str, mass: f64, inertia: f64, x: f64, v: f64, corners: &[f64], mu: f64) -> String {
    let mut s = format!(
        "[[body]]\nname = \"{name}\"\nkind = \"rigid\"\nmass = {mass}\ninertia = {inertia}\n\
         position = [{x}, 0.1]\nvelocity = [{v}, 0.0]\n"
    );
    for (c, dx) in corners.iter().enumerate() {
        s += &format!(
            "[[contact]]\nname = \"{name}_{c}\"\nbody = \"{name}\"\npoint = [{dx}, -0.1]\n\
             surface = {{ kind = \"line\", point = [0.0, 0.0], normal = [0.0, 1.0] }}\n\
             friction = {mu}\n"
        );
    }
    s
}

fn plate(k: usize) -> Scene {
    let w = 0.2 * k as f64;
    let points: Vec<f64> = (0..k)
        .map(|i| -0.1 * (k - 1) as f64 + 0.2 * i as f64)
        .collect();
    let inertia = 2.0 * (w * w + 0.04) / 12.0;
    let text = HEADER.to_string() + &body("plate", 2.0, inertia, 0.0, 2.0, &points, 0.4);
    parse_scene(&text).expect("a valid scene")
}

fn blocks(n: usize) -> Scene {
    let mut text = HEADER.to_string();
    for b in 0..n {
        let v = 1.0 + 0.01 * b as f64;
        text += &body(
            &format!("b{b}"),
            1.0,
            0.08 / 12.0,
            3.0 * b as f64,
            v,
            &[-0.1, 0.1],
            0.3,
        );
    }
    parse_scene(&text).expect("a valid scene")
}

fn frictional_scenes(c: &mut Criterion) {
    let mut group = c.benchmark_group("frictional_scenes");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let mut run = |name: &str, size: usize, scene: Scene, apart: bool| {
        let model = scene.model().expect("a valid model");
        let islands = if apart {
            model.islands().expect("islands")
        } else {
            Vec::new()
        };
        let mut settings = settings_of(&scene);
        settings.output_every = scene.duration;
        group.bench_with_input(BenchmarkId::new(name, size), &size, |b, _| {
            b.iter(|| {
                let o =
                    simulate_islands(&model, &islands, scene.duration, &settings, &mut NoObserver);
                assert_eq!(o.status, Status::Finished);
                o.steps
            })
        });
    };
    for k in [6, 8, 10, 12] {
        run("plate", k, plate(k), true);
    }
    for n in [10, 100] {
        run("blocks", n, blocks(n), true);
        run("blocks_whole", n, blocks(n), false);
    }
    group.finish();
}

criterion_group!(benches, frictional_scenes);
criterion_main!(benches);
