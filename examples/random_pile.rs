//! A seeded pile of cubes in random orientations dropped into a bin,
//! landing on edges and corners, time-stepped in space with exact
//! Coulomb friction: the time per step (over the run, at rest, per
//! stage), the steps not solved to the tolerance, the deepest overlap and
//! the speeds at the end; to compare with
//! `python3 benches/mujoco_random_pile.py POSES DURATION TIME_STEP` (the
//! same pile in MuJoCo, its poses written by `poses=FILE`).
//!
//! ```text
//! cargo run --release --example random_pile -- BOXES DURATION TIME_STEP [seed=S] [tolerance=X] [finish=N] [poses=FILE] [serial] [trace] [json]
//! ```
//!
//! BOXES cubes of 0.1 m and 1 kg (default 256), each turned by a uniformly
//! random rotation drawn from the seed (ChaCha8, default seed 1), in
//! layers of 6 x 6 a bounding sphere apart, each layer shifted by half a
//! box from the one below, over a bin 1.2 m wide inside (a floor and four
//! walls), friction 0.6, g = 9.81; DURATION s (default 2) at TIME_STEP
//! (default 0.002). Prints the wall time per step over the whole run and
//! over its last tenth (the pile at rest), the stages' times, the Newton
//! steps, the most contacts, the steps whose contact solve missed the
//! tolerance and the worst error (with its step's time, contacts and
//! islands), the deepest overlap, the fastest box at the end (linear
//! speed, and angular speed times the bounding radius) and whether every
//! box is still inside the bin. `json` prints the same as one JSON line;
//! `poses=FILE` writes the initial poses (and the bin) as JSON for the
//! MuJoCo script; `serial` runs on one thread; `trace` prints each step;
//! `tolerance=X` and `finish=N` set the contact solver's tolerance and
//! finish budget (defaults: `StepSettings`'s).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zwang::geometry::spatial::Shape;
use zwang::model::spatial::{SpatialBody, SpatialKind, SpatialModel};
use zwang::motion::{SpaceStepper, StepSettings};

/// The bin's inner half width, m.
const HALF_WIDTH: f64 = 0.6;
/// The cubes' half edge, m.
const HALF_EDGE: f64 = 0.05;
/// Coulomb's coefficient of every surface.
const MU: f64 = 0.6;
/// Boxes along a row of a layer (a layer holds its square).
const PER_ROW: usize = 6;
/// Between neighbouring centres, in a layer and between layers, m: more
/// than a bounding sphere's diameter, so that no two boxes start touching.
const SPACING: f64 = 0.18;
/// The lowest layer's height, m (its corners clear the floor).
const BOTTOM: f64 = 0.1;

/// A uniformly random unit quaternion `[w, x, y, z]` (Shoemake's).
fn random_rotation(rng: &mut ChaCha8Rng) -> [f64; 4] {
    let (u1, u2, u3): (f64, f64, f64) = (rng.gen(), rng.gen(), rng.gen());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let tau = std::f64::consts::TAU;
    [
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
        b * (tau * u3).cos(),
    ]
}

/// The initial poses of `boxes` cubes, `(position, orientation)`, drawn
/// from `seed`.
fn poses(boxes: usize, seed: u64) -> Vec<([f64; 3], [f64; 4])> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let per_layer = PER_ROW * PER_ROW;
    let start = -0.5 * SPACING * (PER_ROW - 1) as f64;
    (0..boxes)
        .map(|k| {
            let (layer, i, j) = (k / per_layer, (k % per_layer) / PER_ROW, k % PER_ROW);
            // Half a box between a layer and the next.
            let shift = if layer % 2 == 0 { 0.5 } else { -0.5 } * HALF_EDGE;
            let position = [
                start + SPACING * i as f64 + shift,
                start + SPACING * j as f64 + shift,
                BOTTOM + SPACING * layer as f64,
            ];
            (position, random_rotation(&mut rng))
        })
        .collect()
}

/// The scene: the bin and the boxes at `poses`.
fn pile(poses: &[([f64; 3], [f64; 4])]) -> SpatialModel {
    let mut bodies = Vec::new();
    let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
    floor.shape = Some(Shape::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
    floor.friction = MU;
    bodies.push(floor);
    for (i, normal) in [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
    ]
    .into_iter()
    .enumerate()
    {
        let mut wall = SpatialBody::new(&format!("wall{i}"), SpatialKind::Fixed);
        wall.shape = Some(Shape::Halfspace { normal });
        wall.position = normal.map(|x| -HALF_WIDTH * x);
        wall.friction = MU;
        bodies.push(wall);
    }
    for (k, &(position, orientation)) in poses.iter().enumerate() {
        let mut b = SpatialBody::new(
            &format!("box{k}"),
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: None,
            },
        );
        b.shape = Some(Shape::Box {
            half_extents: [HALF_EDGE; 3],
        });
        b.position = position;
        b.orientation = orientation;
        b.friction = MU;
        bodies.push(b);
    }
    SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![]).expect("a valid pile")
}

/// The poses and the bin as JSON, for `benches/mujoco_random_pile.py`.
fn poses_json(poses: &[([f64; 3], [f64; 4])], seed: u64) -> serde_json::Value {
    serde_json::json!({
        "seed": seed,
        "half_width": HALF_WIDTH,
        "half_edge": HALF_EDGE,
        "mass": 1.0,
        "friction": MU,
        "gravity": [0.0, 0.0, -9.81],
        "boxes": poses
            .iter()
            .map(|(p, q)| serde_json::json!({"position": p, "orientation": q}))
            .collect::<Vec<_>>(),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let number = |i: usize| positional.get(i).copied();
    let boxes = number(0).map_or(256, |x| x as usize);
    let duration = number(1).unwrap_or(2.0);
    let time_step = number(2).unwrap_or(0.002);
    let option = |name: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(name)?.strip_prefix('='))
    };
    let flag = |name: &str| args.iter().any(|a| a == name);
    let seed: u64 = option("seed").and_then(|s| s.parse().ok()).unwrap_or(1);
    let defaults = StepSettings::default();
    let tolerance = option("tolerance")
        .and_then(|s| s.parse().ok())
        .unwrap_or(defaults.tolerance);
    let finish_steps = option("finish")
        .and_then(|s| s.parse().ok())
        .unwrap_or(defaults.finish_steps);
    let (serial, trace, json) = (flag("serial"), flag("trace"), flag("json"));
    if serial {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build_global()
            .expect("one thread");
    }
    let start = poses(boxes, seed);
    if let Some(file) = option("poses") {
        std::fs::write(file, poses_json(&start, seed).to_string()).expect("the poses written");
    }
    let model = pile(&start);
    let settings = StepSettings {
        time_step,
        output_every: duration,
        tolerance,
        finish_steps,
        ..defaults
    };
    let radius = (3.0f64).sqrt() * HALF_EDGE;
    // The whole run on rayon's pool (see `SpaceStepper`).
    rayon::scope(|_| {
        let mut stepper = SpaceStepper::new(&model, settings).expect("a valid stepper");
        let steps = (duration / time_step).round() as usize;
        let at_rest = steps - steps / 10;
        let (mut newton, mut outer, mut finished, mut unsolved, mut most) = (0, 0, 0, 0, 0);
        // The worst step: error, time, contacts, islands.
        let mut worst = (0.0f64, 0.0, 0, 0);
        let mut rest_time = 0.0;
        let wall = std::time::Instant::now();
        for n in 0..steps {
            let started = std::time::Instant::now();
            let report = stepper.step(time_step).expect("a step");
            let took = started.elapsed().as_secs_f64();
            if n >= at_rest {
                rest_time += took;
            }
            if trace {
                eprintln!(
                    "{n} {:.3} ms {} contacts {} islands {} outer {} newton error {:.1e}{}{}",
                    1e3 * took,
                    report.contacts,
                    report.islands,
                    report.iterations,
                    report.newton_steps,
                    report.error,
                    if report.dual { " finished" } else { "" },
                    if report.corrected { " corrected" } else { "" }
                );
            }
            if report.error > worst.0 {
                worst = (
                    report.error,
                    (n + 1) as f64 * time_step,
                    report.contacts,
                    report.islands,
                );
            }
            unsolved += usize::from(!report.solved);
            finished += usize::from(report.dual);
            most = most.max(report.contacts);
            newton += report.newton_steps;
            outer += report.iterations;
        }
        let elapsed = wall.elapsed().as_secs_f64();
        let (_, q, v) = stepper.state();
        let (mut linear, mut angular) = (0.0f64, 0.0f64);
        let mut outside = 0;
        for m in 0..boxes {
            let norm = |x: &[f64]| x.iter().map(|y| y * y).sum::<f64>().sqrt();
            linear = linear.max(norm(&v[6 * m..6 * m + 3]));
            angular = angular.max(radius * norm(&v[6 * m + 3..6 * m + 6]));
            let c = &q[7 * m..7 * m + 3];
            let inside = c[0].abs() < HALF_WIDTH && c[1].abs() < HALF_WIDTH && c[2] > 0.0;
            outside += usize::from(!inside);
        }
        let stages = stepper.stages();
        let per = |d: std::time::Duration| 1e3 * d.as_secs_f64() / steps as f64;
        let ms = 1e3 * elapsed / steps as f64;
        let rest_ms = 1e3 * rest_time / (steps - at_rest).max(1) as f64;
        let overlap = stepper.max_penetration();
        if json {
            let out = serde_json::json!({
                "boxes": boxes, "seed": seed, "duration": duration, "time_step": time_step,
                "steps": steps, "tolerance": tolerance, "finish": finish_steps,
                "threads": rayon::current_num_threads(),
                "ms_per_step": ms, "ms_per_step_at_rest": rest_ms,
                "collide_ms": per(stages.collide), "assemble_ms": per(stages.assemble),
                "solve_ms": per(stages.solve), "integrate_ms": per(stages.integrate),
                "correct_ms": per(stages.correct),
                "newton_steps": newton, "newton_per_step": newton as f64 / steps as f64,
                "outer_per_step": outer as f64 / steps as f64, "finished": finished,
                "contacts_max": most, "unsolved": unsolved,
                "worst_error": worst.0, "worst_time": worst.1,
                "worst_contacts": worst.2, "worst_islands": worst.3,
                "overlap": overlap, "fastest_linear": linear, "fastest_angular": angular,
                "outside": outside,
            });
            println!("{out}");
        } else {
            println!(
                "zwang random pile: {boxes} boxes, seed {seed}, {steps} steps of {time_step} s on {} threads: \
                 {ms:.3} ms/step ({rest_ms:.3} over the last tenth; collide {:.3}, assemble {:.3}, solve {:.3}, \
                 integrate {:.3}, correct {:.3}); {newton} Newton steps ({:.1} a step, {:.1} outer), \
                 {finished} finished by the proximal iterations; at most {most} contacts; \
                 {unsolved} steps not solved to {tolerance:e} (worst error {:.1e} at t = {:.3} s, \
                 {} contacts in {} islands); deepest overlap {overlap:.2e} m; fastest at the end \
                 {linear:.2e} m/s linear, {angular:.2e} m/s angular at the bounding radius; {}",
                rayon::current_num_threads(),
                per(stages.collide),
                per(stages.assemble),
                per(stages.solve),
                per(stages.integrate),
                per(stages.correct),
                newton as f64 / steps as f64,
                outer as f64 / steps as f64,
                worst.0,
                worst.1,
                worst.2,
                worst.3,
                if outside == 0 {
                    "every box inside the bin".to_string()
                } else {
                    format!("{outside} boxes outside the bin")
                },
            );
        }
    });
}
