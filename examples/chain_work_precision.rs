//! Work-precision of zwang on a chain released horizontal (links 1 m,
//! 1 kg, uniform rods, pins at the ends, g = 9.81): the error of the tip
//! position at the end against the time per simulated second, for a few
//! tolerances, and the overhead of the model and the stepper over the
//! instant solves.
//!
//! ```text
//! cargo run --release --example chain_work_precision -- [LINKS DURATION]...
//! ```
//!
//! Without arguments: 10 links for 2 s and 100 links for 1 s. The
//! reference is zwang itself at `rtol = 1e-13` (the tightest tolerance
//! DOP853 keeps in double precision); `benches/mujoco_chain.py` runs
//! MuJoCo on the same chain and compares with the reference printed here.

use std::time::Instant as Clock;
use zwang::model::planar::{chain, PlanarModel};
use zwang::motion::{simulate, NoObserver, Settings, Status};

/// The tip (the free end of the last link) at `q`.
fn tip(model: &PlanarModel, q: &[f64]) -> [f64; 2] {
    let o = model.offset(model.body_list().len() - 1);
    let (s, c) = q[o + 2].sin_cos();
    [q[o] + 0.5 * c, q[o + 1] + 0.5 * s]
}

fn run(model: &PlanarModel, duration: f64, rtol: f64) -> ([f64; 2], f64, zwang::motion::Outcome) {
    let mut settings = Settings::default();
    settings.ode.rtol = rtol;
    settings.ode.atol = rtol * 1e-3;
    let start = Clock::now();
    let outcome = simulate(model, duration, &settings, &mut NoObserver);
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(outcome.status, Status::Finished, "{:?}", outcome.reason);
    (tip(model, &outcome.q), seconds, outcome)
}

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let cases: Vec<(usize, f64)> = if args.len() >= 2 {
        args.chunks(2).map(|c| (c[0] as usize, c[1])).collect()
    } else {
        vec![(10, 2.0), (100, 1.0)]
    };
    for (links, duration) in cases {
        let model = chain(links).expect("a valid chain");
        let (reference, _, _) = run(&model, duration, 1e-13);
        println!(
            "# {links} links, {duration} s; reference tip ({:.15}, {:.15}) at rtol 1e-13",
            reference[0], reference[1]
        );
        println!("rtol\ttip error (m)\tms per simulated s\tsteps\tsolves\toverhead\tdrift (m)");
        for rtol in [1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11] {
            // Best of three for the time.
            let mut best = f64::INFINITY;
            let mut last = None;
            for _ in 0..3 {
                let (t, seconds, outcome) = run(&model, duration, rtol);
                best = best.min(seconds);
                last = Some((t, outcome));
            }
            let (t, outcome) = last.expect("three runs");
            let error = (t[0] - reference[0]).hypot(t[1] - reference[1]);
            let s = outcome.stats;
            let solve = s.solve_time.as_secs_f64();
            let overhead = (s.wall_time.as_secs_f64() - solve) / solve;
            println!(
                "{rtol:.0e}\t{error:.2e}\t{:.2}\t{}\t{}\t{:.0}%\t{:.1e}",
                1e3 * best / duration,
                outcome.steps,
                s.solves,
                100.0 * overhead,
                outcome.max_constraint_drift
            );
        }
    }
}
