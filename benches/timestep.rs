//! The velocity-level time stepper, per step (`time_step = 0.002`), warm:
//!
//! - `pyramid/ROWS`: a pyramid of boxes standing on a floor (ROWS = 5, 10;
//!   21 boxes and 70 contacts, 55 and 290), exact Coulomb friction, after
//!   100 steps of settling; the peer (MuJoCo on the same planar scene) is
//!   `benches/mujoco_pyramid.py`, outside the tests;
//! - `sliding/N`: N boxes sliding on a floor, each an island of its own
//!   (N = 100, 1000): the cost per box should not grow with N.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;
use zwang::model::planar::{Body, FixedBody, PlanarModel, Shape};
use zwang::motion::{StepSettings, TimeStepper};

fn boxed(name: String, half: [f64; 2], at: [f64; 2], v: f64) -> Body {
    Body::rigid(name, 1.0, (half[0] * half[0] + half[1] * half[1]) / 3.0)
        .at(at)
        .moving([v, 0.0])
        .with_shape(Shape::Box { half_extents: half })
        .with_surface(0.6, 0.0)
}

fn on_floor(bodies: Vec<Body>) -> PlanarModel {
    let mut floor = FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] });
    floor.friction = 0.6;
    PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], vec![])
        .and_then(|m| m.with_fixed(vec![floor]))
        .expect("a valid scene")
}

fn pyramid(rows: usize) -> PlanarModel {
    let mut bodies = Vec::new();
    for r in 0..rows {
        let count = rows - r;
        for i in 0..count {
            let x = i as f64 - (count as f64 - 1.0) / 2.0;
            bodies.push(boxed(
                format!("b{r}_{i}"),
                [0.5, 0.5],
                [x, 0.5 + r as f64],
                0.0,
            ));
        }
    }
    on_floor(bodies)
}

fn sliding(n: usize) -> PlanarModel {
    on_floor(
        (0..n)
            .map(|i| boxed(format!("b{i}"), [0.5, 0.25], [3.0 * i as f64, 0.25], 50.0))
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("timestep");
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(10);
    let cases: [(&str, usize, PlanarModel); 4] = [
        ("pyramid", 5, pyramid(5)),
        ("pyramid", 10, pyramid(10)),
        ("sliding", 100, sliding(100)),
        ("sliding", 1000, sliding(1000)),
    ];
    for (name, size, model) in &cases {
        let mut stepper = TimeStepper::new(model, StepSettings::default()).expect("a stepper");
        for _ in 0..100 {
            stepper.step(0.002).expect("a step");
        }
        group.bench_with_input(BenchmarkId::new(*name, size), size, |b, _| {
            b.iter(|| stepper.step(0.002).expect("a step"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
