//! Boxes dropped into a bin, time-stepped in space with exact Coulomb
//! friction: the time per step (split into its stages), whether the pile
//! came to rest, and the deepest overlap; to compare with
//! `python3 benches/mujoco_bin.py BOXES DURATION` (the same scene in
//! MuJoCo).
//!
//! ```text
//! cargo run --release --example box_bin -- BOXES DURATION [TIME_STEP] [convex] [serial] [trace] [tolerance=X] [finish=N]
//! ```
//!
//! BOXES cubes of 0.1 m and 1 kg (default 256) in layers of 8 x 8, a
//! little apart and turned a little, dropped from just above a 0.9 m
//! square bin (a floor and four walls), friction 0.5, g = 9.81, time step
//! 0.002 s unless given. `serial` runs on one thread (collision and
//! islands); `trace` prints each step's time, contacts, iterations and
//! error (and whether the overlap was projected away); `tolerance=X` sets
//! the contact solver's (default 1e-10), `finish=N` its finish's budget
//! of Newton steps (default 200; more solves more landing islands to the
//! tolerance, at more cost).

use zwang::contact::Friction;
use zwang::geometry::spatial::Shape;
use zwang::model::spatial::{rotation, SpatialBody, SpatialKind, SpatialModel};
use zwang::motion::{NoObserver, SpaceStepper, StepSettings};

/// The bin's inner half width, m.
const HALF_WIDTH: f64 = 0.45;

/// The scene: BOXES cubes over the bin.
pub fn bin(boxes: usize) -> SpatialModel {
    let mut bodies = Vec::new();
    let mut floor = SpatialBody::new("floor", SpatialKind::Fixed);
    floor.shape = Some(Shape::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
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
        bodies.push(wall);
    }
    for k in 0..boxes {
        let (layer, i, j) = (k / 64, (k % 64) / 8, k % 8);
        let mut b = SpatialBody::new(
            &format!("box{k}"),
            SpatialKind::Rigid {
                mass: 1.0,
                inertia: None,
            },
        );
        b.shape = Some(Shape::Box {
            half_extents: [0.05; 3],
        });
        // A deterministic jitter: no two boxes alike, none resting flat.
        let jitter = |s: usize| ((k * 7919 + s * 104_729) % 1000) as f64 / 1000.0 - 0.5;
        b.position = [
            -0.392 + 0.112 * i as f64 + 0.004 * jitter(1),
            -0.392 + 0.112 * j as f64 + 0.004 * jitter(2),
            0.07 + 0.13 * layer as f64,
        ];
        b.orientation = rotation::exp([0.2 * jitter(3), 0.2 * jitter(4), 0.1 * jitter(5)]);
        bodies.push(b);
    }
    SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![]).expect("a valid bin")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let boxes: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(256);
    let duration: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let rest: Vec<String> = args.collect();
    let convex = rest.iter().any(|a| a == "convex");
    let serial = rest.iter().any(|a| a == "serial");
    let trace = rest.iter().any(|a| a == "trace");
    let time_step = rest
        .iter()
        .find_map(|a| a.parse::<f64>().ok())
        .unwrap_or(0.002);
    let tolerance = rest
        .iter()
        .find_map(|a| a.strip_prefix("tolerance=")?.parse::<f64>().ok())
        .unwrap_or(StepSettings::default().tolerance);
    let finish_steps = rest
        .iter()
        .find_map(|a| a.strip_prefix("finish=")?.parse::<usize>().ok())
        .unwrap_or(StepSettings::default().finish_steps);
    if serial {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build_global()
            .expect("one thread");
    }
    let model = bin(boxes);
    let settings = StepSettings {
        time_step,
        friction: if convex {
            Friction::Convex
        } else {
            Friction::Exact
        },
        output_every: duration,
        tolerance,
        finish_steps,
        ..StepSettings::default()
    };
    // The whole run on rayon's pool: called from outside it, each step's
    // parallel stages would be handed to the pool and waited for (64 boxes:
    // 0.30 ms a step against 0.22).
    rayon::scope(|_| {
        let mut stepper = SpaceStepper::new(&model, settings).expect("a valid stepper");
        let steps = (duration / time_step).round() as usize;
        let (mut contacts, mut unsolved, mut finished, mut newton, mut outer) = (0, 0, 0, 0, 0);
        let wall = std::time::Instant::now();
        let mut worst = 0.0f64;
        // The last quarter of the run on its own: the pile at rest.
        let (quarter, mut last) = (steps - steps / 4, 0.0);
        for n in 0..steps {
            let started = std::time::Instant::now();
            let report = stepper.step(time_step).expect("a step");
            if n >= quarter {
                last += started.elapsed().as_secs_f64();
            }
            if trace {
                eprintln!(
                    "{n} {:.3} ms {} contacts {} outer {} newton error {:.1e}{}{}",
                    1e3 * started.elapsed().as_secs_f64(),
                    report.contacts,
                    report.iterations,
                    report.newton_steps,
                    report.error,
                    if report.dual { " finished" } else { "" },
                    if report.corrected { " corrected" } else { "" }
                );
            }
            contacts = report.contacts;
            unsolved += usize::from(!report.solved);
            worst = worst.max(report.error);
            finished += usize::from(report.dual);
            newton += report.newton_steps;
            outer += report.iterations;
        }
        let elapsed = wall.elapsed().as_secs_f64();
        let (_, _, v) = stepper.state();
        let fastest = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let stages = stepper.stages();
        let per = |d: std::time::Duration| 1e3 * d.as_secs_f64() / steps as f64;
        println!(
        "zwang {}: {boxes} boxes, {steps} steps: {:.3} ms/step ({:.3} over the last quarter; collide {:.3}, assemble {:.3}, solve {:.3}, integrate {:.3}, correct {:.3}); {contacts} contacts at the end; {unsolved} steps not solved to the tolerance (worst error {worst:.1e}), {finished} finished by the proximal Newton iterations, {:.1} outer iterations and {:.1} Newton steps a step; fastest speed at the end {fastest:.2e}; deepest overlap {:.2e} m",
        if convex { "convex" } else { "exact" },
        1e3 * elapsed / steps as f64,
        1e3 * last / (steps - quarter).max(1) as f64,
        per(stages.collide),
        per(stages.assemble),
        per(stages.solve),
        per(stages.integrate),
        per(stages.correct),
        outer as f64 / steps as f64,
        newton as f64 / steps as f64,
        stepper.max_penetration(),
    );
    });
    let _ = NoObserver;
}
