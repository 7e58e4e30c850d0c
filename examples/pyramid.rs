//! A planar pyramid of boxes on a floor, time-stepped with exact Coulomb
//! friction: the time per step, the top box's drift and the deepest
//! overlap of two boxes over the run, to compare with
//! `python3 benches/mujoco_pyramid.py ROWS DURATION` (the same scene in
//! MuJoCo).
//!
//! ```text
//! cargo run --release --example pyramid -- ROWS DURATION [TIME_STEP] [convex]
//! ```
//!
//! ROWS rows of 1 m boxes of 1 kg, the bottom row ROWS boxes side by side
//! (touching), each row above offset by half a box, friction 0.6, g = 9.81,
//! time step 0.002 s unless given (`benches/box2d_pyramid.py` runs Box2D
//! at its usual 1/60 s).

use zwang::model::planar::{Body, FixedBody, PlanarModel, Shape};
use zwang::motion::{simulate_steps, NoObserver, StepSettings};

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let duration: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let rest: Vec<String> = args.collect();
    let convex = rest.iter().any(|a| a == "convex");
    let time_step = rest
        .iter()
        .find_map(|a| a.parse::<f64>().ok())
        .unwrap_or(0.002);
    let half = 0.5;
    let mut bodies = Vec::new();
    for r in 0..rows {
        let count = rows - r;
        for i in 0..count {
            let x = i as f64 - (count as f64 - 1.0) / 2.0;
            let y = half + r as f64;
            bodies.push(
                Body::rigid(format!("b{r}_{i}"), 1.0, 2.0 * half * half / 3.0)
                    .at([x, y])
                    .with_shape(Shape::Box {
                        half_extents: [half, half],
                    })
                    .with_surface(0.6, 0.0),
            );
        }
    }
    let n = bodies.len();
    let mut floor = FixedBody::new("floor", Shape::HalfPlane { normal: [0.0, 1.0] });
    floor.friction = 0.6;
    let model = PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], vec![])
        .and_then(|m| m.with_fixed(vec![floor]))
        .expect("a valid pyramid");
    let settings = StepSettings {
        time_step,
        friction: if convex {
            zwang::contact::Friction::Convex
        } else {
            zwang::contact::Friction::Exact
        },
        output_every: duration,
        ..StepSettings::default()
    };
    let out = simulate_steps(&model, duration, &settings, &mut NoObserver);
    let top = 3 * (n - 1);
    let start = [0.0, half + (rows - 1) as f64];
    let stages = out.stats.stages.unwrap_or_default();
    let per = |d: std::time::Duration| 1e3 * d.as_secs_f64() / out.steps.max(1) as f64;
    println!(
        "zwang {}: rows {rows} bodies {n} steps {} ({:?}): {:.3} ms/step \
         (collide {:.3}, assemble {:.3}, solve {:.3}, correct {:.3}), \
         top drift x {:.3e} y {:.3e} m, deepest overlap {:.3e} m",
        if convex { "convex" } else { "exact" },
        out.steps,
        out.status,
        per(out.stats.wall_time),
        per(stages.collide),
        per(stages.assemble),
        per(stages.solve),
        per(stages.correct),
        out.q[top] - start[0],
        out.q[top + 1] - start[1],
        out.max_penetration,
    );
}
