//! Every scene shipped in `examples/scenes/` parses and runs to the end it
//! announces, and a run is deterministic: two runs write the same CSV,
//! byte for byte.

mod motion_support;

use motion_support::{run, scene, scene_path};
use zwang::motion::report::write_csv;
use zwang::motion::{EventKind, Mechanism, Status};

/// Each shipped scene, the status it ends with, and the kind and contact
/// of the events it must show (in this order, among others).
/// A scene, how it ends, and the events it must show (kind, contact).
type Expected = (&'static str, Status, &'static [(EventKind, &'static str)]);

const SCENES: [Expected; 14] = [
    (
        "bouncing_ball",
        Status::Finished,
        &[(EventKind::Impact, "floor"), (EventKind::Rest, "floor")],
    ),
    ("chaplygin_sleigh", Status::Finished, &[]),
    ("double_pendulum", Status::Finished, &[]),
    (
        "incline_stick",
        Status::Finished,
        &[(EventKind::Stick, "lower"), (EventKind::Stick, "upper")],
    ),
    ("knife_edge_incline", Status::Finished, &[]),
    (
        "ladder",
        Status::Finished,
        &[
            (EventKind::LiftOff, "wall"),
            (EventKind::Impact, "top_floor"),
        ],
    ),
    ("pendulum", Status::Finished, &[]),
    ("pendulum_on_block", Status::Finished, &[]),
    (
        "rocking_block",
        Status::Finished,
        &[(EventKind::Impact, "left"), (EventKind::Stick, "left")],
    ),
    (
        "rod_coulomb",
        Status::Finished,
        &[
            (EventKind::Impact, "end_b"),
            (EventKind::Stick, "end_a"),
            (EventKind::Stick, "end_b"),
        ],
    ),
    ("rod_on_turning_axis", Status::Finished, &[]),
    (
        "rod_painleve",
        Status::Painleve,
        &[(EventKind::PainleveInconsistent, "end_a")],
    ),
    (
        "rod_smooth",
        Status::Finished,
        &[(EventKind::Impact, "end_b")],
    ),
    (
        "rod_viscous",
        Status::Finished,
        &[(EventKind::Impact, "end_b")],
    ),
];

#[test]
fn the_list_is_every_shipped_scene() {
    let dir = scene_path("x").parent().unwrap().to_path_buf();
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    let listed: Vec<&str> = SCENES.iter().map(|s| s.0).collect();
    assert_eq!(shipped, listed);
}

#[test]
fn every_shipped_scene_runs_to_its_announced_end() {
    let mut total = 0.0;
    for (name, status, expected) in SCENES {
        let s = scene(name);
        assert_eq!(
            s.name.as_deref(),
            Some(name),
            "the scene's name is its file's"
        );
        let r = run(&s);
        let o = &r.outcome;
        assert_eq!(o.status, status, "{name}: {:?}", o.reason);
        if status == Status::Finished {
            assert_eq!(o.time, s.duration, "{name}");
        } else {
            let last = o.events.last().expect("a Painleve event");
            assert_eq!(last.kind, EventKind::PainleveInconsistent, "{name}");
        }
        // The expected events, in order, among the others.
        let mut it = o.events.iter();
        for (kind, contact) in expected {
            assert!(
                it.any(|e| e.kind == *kind && r.model.contact_name(e.contact) == *contact),
                "{name}: no {} of {contact} where expected: {:?}",
                kind.as_str(),
                o.events
                    .iter()
                    .map(|e| (e.time, e.kind.as_str(), r.model.contact_name(e.contact)))
                    .collect::<Vec<_>>()
            );
        }
        assert!(o.events.windows(2).all(|w| w[0].time <= w[1].time));
        assert!(
            o.max_constraint_drift < 1e-8,
            "{name}: {:e}",
            o.max_constraint_drift
        );
        total += r.wall.as_secs_f64();
        println!(
            "{name}: {} at t = {}, {} events, {} steps, drift {:.1e} m, energy {:.6} -> {:.6} J, \
             {:.1} ms",
            o.status.as_str(),
            o.time,
            o.events.len(),
            o.steps,
            o.max_constraint_drift,
            o.energy_initial,
            o.energy_final,
            r.wall.as_secs_f64() * 1e3
        );
    }
    println!("all scenes: {:.0} ms", total * 1e3);
}

#[test]
fn two_runs_write_the_same_csv() {
    for (name, _, _) in SCENES {
        let s = scene(name);
        let csv = || {
            let r = run(&s);
            let mut out = Vec::new();
            write_csv(&r.model, &r.rows, &mut out).unwrap();
            out
        };
        let (a, b) = (csv(), csv());
        assert!(a.len() > 100, "{name}");
        assert!(a == b, "{name}: two runs differ");
    }
}
