//! Helpers of the `motion_*` tests: the shipped scenes, a run that keeps
//! the trajectory, and a fixed-step Runge-Kutta integrator for the
//! references the tests compute themselves (independently of zwang).

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};
use zwang::model::planar::PlanarModel;
use zwang::motion::report::{Recorder, Row};
use zwang::motion::{simulate, Outcome, Settings};
use zwang::run::run_scene;
use zwang::scene::{parse_scene, Scene};

/// `examples/scenes/NAME.toml`.
pub fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("examples/scenes/{name}.toml"))
}

/// The shipped scene `NAME`, parsed.
pub fn scene(name: &str) -> Scene {
    let path = scene_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_scene(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Tight tolerances (relative 1e-12, absolute 1e-14), sampled every
/// `output_every`: for references checked to 1e-8 or finer.
pub fn tight(output_every: f64) -> Settings {
    let mut s = Settings {
        output_every,
        ..Settings::default()
    };
    s.ode.rtol = 1e-12;
    s.ode.atol = 1e-14;
    s
}

/// A run with its trajectory (samples and events, in time order).
pub struct Run {
    pub model: PlanarModel,
    pub outcome: Outcome,
    pub rows: Vec<Row>,
    pub wall: Duration,
}

/// Runs a scene with the settings it asks for.
pub fn run(scene: &Scene) -> Run {
    let model = scene.model().expect("the scene builds a model");
    let clock = Instant::now();
    let (outcome, rows) = {
        let mut recorder = Recorder::new(&model);
        let (_, outcome) = run_scene(scene, &mut recorder).expect("the scene builds a model");
        (outcome, recorder.rows)
    };
    Run {
        wall: clock.elapsed(),
        model,
        outcome,
        rows,
    }
}

/// Runs a model with explicit settings.
pub fn run_model(model: PlanarModel, duration: f64, settings: &Settings) -> Run {
    let clock = Instant::now();
    let (outcome, rows) = {
        let mut recorder = Recorder::new(&model);
        let outcome = simulate(&model, duration, settings, &mut recorder);
        (outcome, recorder.rows)
    };
    Run {
        wall: clock.elapsed(),
        model,
        outcome,
        rows,
    }
}

/// The samples (rows that are not events).
pub fn samples(rows: &[Row]) -> impl Iterator<Item = &Row> {
    rows.iter().filter(|r| r.event.is_none())
}

/// One classical Runge-Kutta step of `y' = f(y)` (autonomous).
pub fn rk4_step(f: &impl Fn(&[f64]) -> Vec<f64>, y: &[f64], h: f64) -> Vec<f64> {
    let shift = |y: &[f64], k: &[f64], s: f64| -> Vec<f64> {
        y.iter().zip(k).map(|(a, b)| a + s * b).collect()
    };
    let k1 = f(y);
    let k2 = f(&shift(y, &k1, h / 2.0));
    let k3 = f(&shift(y, &k2, h / 2.0));
    let k4 = f(&shift(y, &k3, h));
    (0..y.len())
        .map(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
        .collect()
}

/// Integrates `y' = f(y)` from `y0` over `t` with `n` equal RK4 steps.
pub fn rk4(f: &impl Fn(&[f64]) -> Vec<f64>, y0: &[f64], t: f64, n: usize) -> Vec<f64> {
    let h = t / n as f64;
    let mut y = y0.to_vec();
    for _ in 0..n {
        y = rk4_step(f, &y, h);
    }
    y
}

/// Integrates `y' = f(y)` with RK4 steps of `h` until `event(y)` changes
/// sign (from positive to `<= 0`), and returns the time and the state
/// there: the last step's length is found by bisection so that the event
/// is met by a Runge-Kutta step itself (its accuracy, not an
/// interpolation's).
pub fn rk4_until(
    f: &impl Fn(&[f64]) -> Vec<f64>,
    y0: &[f64],
    h: f64,
    t_max: f64,
    event: &impl Fn(&[f64]) -> f64,
) -> Option<(f64, Vec<f64>)> {
    let mut y = y0.to_vec();
    let mut t = 0.0;
    assert!(event(&y) > 0.0, "the event function starts at or below 0");
    while t < t_max {
        let next = rk4_step(f, &y, h);
        if event(&next) <= 0.0 {
            let (mut lo, mut hi) = (0.0, h);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                if event(&rk4_step(f, &y, mid)) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let tau = 0.5 * (lo + hi);
            return Some((t + tau, rk4_step(f, &y, tau)));
        }
        y = next;
        t += h;
    }
    None
}

/// The largest absolute difference of two slices.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}
