//! Event-driven impacts with Coulomb friction: the time stepper (whose
//! impacts have had friction all along) converges to the event-driven
//! runs of the rocking block and of a ball thrown with backspin at first
//! order in its step, and no impact of any shipped event-driven scene
//! gains energy.

use crate::motion_support;

use motion_support::{max_diff, run, scene, Run};
use zwang::model::Bodies;
use zwang::motion::{EventKind, Status};
use zwang::scene::{parse_scene, Stepping};

/// The largest difference of two runs' final states.
fn final_difference(a: &Run, b: &Run) -> f64 {
    let (a, b) = (&a.outcome, &b.outcome);
    max_diff(&a.q, &b.q).max(max_diff(&a.v, &b.v))
}

/// `name` run to `duration` by the event-driven method and by the time
/// stepper at steps of about `coarse` and `levels - 1` halvings of it: the
/// steps and the final states' differences. An impact inside a step is
/// taken at the step's start, where the contact point is off by the part
/// of the step before the impact: the steps are cut so that the first
/// impact falls half-way through its step at every level
/// (`h = t1 / (n + 1/2)`), else that part, not the step, sets the error.
fn differences(name: &str, duration: f64, coarse: f64, levels: u32) -> (Vec<f64>, Vec<f64>) {
    let mut s = scene(name);
    s.duration = duration;
    assert_eq!(s.solver.stepping, Stepping::Event);
    let event = run(&s);
    assert_eq!(event.outcome.status, Status::Finished, "{name}");
    let first = &event.outcome.events[0];
    assert_eq!(first.kind, EventKind::Impact, "{name}");
    let n = (first.time / coarse).round();
    let steps: Vec<f64> = (0..levels)
        .map(|k| first.time / (n * f64::from(1 << k) + 0.5))
        .collect();
    let diffs = steps
        .iter()
        .map(|&h| {
            let mut stepped = s.clone();
            stepped.solver.stepping = Stepping::TimeStep;
            stepped.solver.time_step = h;
            let r = run(&stepped);
            assert_eq!(r.outcome.status, Status::Finished, "{name} at h = {h}");
            assert_eq!(r.outcome.unsolved.steps, 0, "{name} at h = {h}");
            final_difference(&r, &event)
        })
        .collect();
    (steps, diffs)
}

/// Each halving of the step halves the difference (first order), and the
/// finest run is close.
fn assert_first_order(name: &str, steps: &[f64], diffs: &[f64], finest: f64) {
    for (h, d) in steps.iter().zip(diffs) {
        println!("{name}: h = {h:.4e}: {d:.4e} from the event-driven run");
    }
    for (i, pair) in diffs.windows(2).enumerate() {
        let ratio = pair[0] / pair[1];
        println!(
            "{name}: ratio {ratio:.3} (h = {:.3e} over {:.3e})",
            steps[i],
            steps[i + 1]
        );
        assert!(
            (1.7..2.3).contains(&ratio),
            "{name}: h = {:e} over {:e}: ratio {ratio}",
            steps[i],
            steps[i + 1]
        );
    }
    let last = *diffs.last().unwrap();
    assert!(last < finest, "{name}: {last:e}");
}

/// The rocking block between its first impact (0.128 s: the left corner
/// lands and sticks, the block turns on about it) and its second (0.293
/// s): the time stepper's corner sticks in the step it lands in, so its
/// state differs at first order in the step; frictionless event-driven
/// impacts would differ by the slip they let the corner take.
#[test]
fn the_time_stepped_rocking_block_converges_at_first_order_to_frictional_impacts() {
    let (steps, diffs) = differences("rocking_block", 0.25, 2e-3, 4);
    assert_first_order("rocking_block", &steps, &diffs, 1e-2);
}

/// The ball thrown with backspin, after its sliding bounce (0.4515 s) in
/// its flight back: the time stepper's impact (within a step) has the
/// same Coulomb impulse, at first order in the step.
#[test]
fn the_time_stepped_thrown_ball_converges_at_first_order_to_frictional_impacts() {
    let (steps, diffs) = differences("backspin_ball", 0.85, 5e-4, 4);
    assert_first_order("backspin_ball", &steps, &diffs, 0.5);
}

/// Every planar scene shipped in `examples/scenes/` (the spatial ones
/// have no contacts under the event-driven method) run event-driven: each
/// impact's kinetic energy after it is at most the one before, to
/// round-off. The jump each impact reports says so; the first impacts of
/// each scene are also checked from outside, the energy just before them
/// from a run that stops 1e-7 s earlier.
#[test]
fn no_impact_of_a_shipped_event_driven_scene_gains_energy() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/scenes");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut scenes, mut impacts) = (0, 0);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(s) = parse_scene(&text) else {
            assert!(text.contains("dimension = 3"), "{}", path.display());
            continue;
        };
        if s.solver.stepping != Stepping::Event {
            continue;
        }
        scenes += 1;
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let r = run(&s);
        assert_ne!(
            r.outcome.status,
            Status::Failed,
            "{name}: {:?}",
            r.outcome.reason
        );
        let scale = r.outcome.energy_initial.abs().max(1.0);
        let mut seen = 0;
        for e in &r.outcome.events {
            if !matches!(e.kind, EventKind::Impact | EventKind::Rest) {
                continue;
            }
            impacts += 1;
            let jump = e.jump.expect("an impact's jump");
            assert!(
                jump.energy_change <= 1e-12 * scale,
                "{name} at t = {}: {jump:?}",
                e.time
            );
            assert!(jump.error <= 1e-10, "{name}: {jump:?}");
            if seen == 3 || e.time == 0.0 {
                continue;
            }
            seen += 1;
            let mut before = s.clone();
            // Not closer: a contact within 1e-9 m counts as touching.
            before.duration = e.time - 1e-7;
            let b = run(&before);
            let o = &b.outcome;
            let energy_before = r.model.energy(o.time, &o.q, &o.v);
            let energy_after = r.model.energy(e.time, &e.q, &e.v);
            assert!(
                energy_after <= energy_before + 1e-9 * scale,
                "{name} at t = {}: {energy_before} -> {energy_after}",
                e.time
            );
            assert!(
                (energy_after - energy_before - jump.energy_change).abs() < 1e-5 * scale,
                "{name} at t = {}: {} vs {jump:?}",
                e.time,
                energy_after - energy_before
            );
        }
    }
    println!("{scenes} event-driven scenes, {impacts} impacts");
    assert!(
        scenes >= 17 && impacts >= 60,
        "{scenes} scenes, {impacts} impacts"
    );
}
