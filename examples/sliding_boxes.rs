//! N independent boxes sliding on a rough floor for one simulated second,
//! time-stepped: the wall time against N (each box an island of its own,
//! two contacts), to show the cost grows linearly, and the error against
//! the closed form of a box sliding to rest (`x = v0^2 / (2 mu g)`).
//!
//! ```text
//! cargo run --release --example sliding_boxes -- 100 1000
//! ```

use zwang::model::planar::{Body, FixedBody, PlanarModel, Shape};
use zwang::motion::{simulate_steps, NoObserver, StepSettings};

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![100, 1000]
    } else {
        counts
    };
    let (mu, g) = (0.5, 9.81);
    for n in counts {
        // Boxes 1 x 0.5, 2 m apart, starting at 0.5 to 2.5 m/s.
        let speed = |i: usize| 0.5 + 2.0 * (i % 5) as f64 / 4.0;
        let bodies: Vec<Body> = (0..n)
            .map(|i| {
                Body::rigid(format!("box{i}"), 1.0, (0.25 + 0.0625) / 3.0)
                    .at([3.0 * i as f64, 0.25])
                    .moving([speed(i), 0.0])
                    .with_shape(Shape::Box {
                        half_extents: [0.5, 0.25],
                    })
                    .with_surface(mu, 0.0)
            })
            .collect();
        let mut floor = FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] });
        floor.friction = mu;
        let model = PlanarModel::new([0.0, -g], bodies, vec![], vec![], vec![])
            .and_then(|m| m.with_fixed(vec![floor]))
            .expect("valid boxes");
        let settings = StepSettings {
            output_every: 1.0,
            ..StepSettings::default()
        };
        let out = simulate_steps(&model, 1.0, &settings, &mut NoObserver);
        let worst = (0..n)
            .map(|i| {
                let v0 = speed(i);
                let t_stop = v0 / (mu * g);
                let x = if t_stop < 1.0 {
                    v0 * v0 / (2.0 * mu * g)
                } else {
                    v0 - 0.5 * mu * g
                };
                (out.q[3 * i] - 3.0 * i as f64 - x).abs()
            })
            .fold(0.0, f64::max);
        println!(
            "{n} boxes, 1 s at h = 0.002 ({:?}): {:.1} ms wall, {:.2} us per box-step; \
             worst distance error against the closed form {worst:.2e} m, deepest overlap {:.2e} m",
            out.status,
            1e3 * out.stats.wall_time.as_secs_f64(),
            1e6 * out.stats.wall_time.as_secs_f64() / (n * out.steps) as f64,
            out.max_penetration,
        );
    }
}
