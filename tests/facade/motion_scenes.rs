//! Every scene shipped in `examples/scenes/` runs to the end it announces
//! with the same events at three tolerances (1e-7 to 1e-11), final
//! states that agree to the tolerance's scale and no energy from nowhere;
//! the scenes with closed forms end where those say; two runs write the
//! same CSV, byte for byte.

use crate::motion_support;

use motion_support::{rk4_until, run, samples, scene, scene_path, Run};
use zwang::coulomb::Mode;
use zwang::motion::report::write_csv;
use zwang::motion::{Contacts, EventKind, Status};

/// A scene, how it ends, and its events in full (kind, contact), found by
/// the physics each scene's comments describe: the bouncing ball and the
/// rocking block, whose lists are long, have tests of their own below.
type Expected = (&'static str, Status, &'static [(EventKind, &'static str)]);

const SCENES: [Expected; 18] = [
    (
        "backspin_ball",
        Status::Finished,
        &[(EventKind::Impact, "rim")],
    ),
    ("bouncing_ball", Status::Finished, &[]),
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
    ("plate_on_twelve_points", Status::Finished, &[]),
    ("rocking_block", Status::Finished, &[]),
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
    (
        "sliding_blocks",
        Status::Finished,
        &[
            (EventKind::Stick, "block0_back"),
            (EventKind::Stick, "block0_front"),
            (EventKind::Stick, "block1_back"),
            (EventKind::Stick, "block1_front"),
            (EventKind::Stick, "block2_back"),
            (EventKind::Stick, "block2_front"),
            (EventKind::Stick, "block3_back"),
            (EventKind::Stick, "block3_front"),
            (EventKind::Stick, "block4_back"),
            (EventKind::Stick, "block4_front"),
        ],
    ),
    ("vakonomic_skate", Status::Finished, &[]),
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

/// The tolerances every shipped scene is run at: relative and absolute,
/// the default in the middle.
const TOLERANCES: [(f64, f64); 3] = [(1e-7, 1e-10), (1e-9, 1e-12), (1e-11, 1e-14)];

/// A scene run at `(rtol, atol)`.
fn run_at(name: &str, (rtol, atol): (f64, f64)) -> Run {
    let mut s = scene(name);
    s.solver.tolerance = rtol;
    s.solver.absolute_tolerance = atol;
    run(&s)
}

/// The events of a run as (kind, contact) pairs.
fn events(r: &Run) -> Vec<(EventKind, String)> {
    r.outcome
        .events
        .iter()
        .map(|e| (e.kind, r.model.contact_name(e.contact).to_string()))
        .collect()
}

/// The largest difference of two runs' final states.
fn final_difference(a: &Run, b: &Run) -> f64 {
    let (a, b) = (&a.outcome, &b.outcome);
    a.q.iter()
        .chain(&a.v)
        .zip(b.q.iter().chain(&b.v))
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn every_shipped_scene_runs_alike_at_every_tolerance() {
    for (name, status, expected) in SCENES {
        let s = scene(name);
        assert_eq!(
            s.name.as_deref(),
            Some(name),
            "the scene's name is its file's"
        );
        let runs: Vec<Run> = TOLERANCES.iter().map(|&t| run_at(name, t)).collect();
        let reference = &runs[1];
        for (r, (rtol, atol)) in runs.iter().zip(TOLERANCES) {
            let o = &r.outcome;
            let at = format!("{name} at tolerances {rtol:e}, {atol:e}");
            assert_eq!(o.status, status, "{at}: {:?}", o.reason);
            if status == Status::Finished {
                assert_eq!(o.time, s.duration, "{at}");
            }
            // The same events, in the same order, at every tolerance; the
            // scenes whose lists are short give them in full.
            assert_eq!(events(r), events(reference), "{at}: the events differ");
            if !matches!(name, "bouncing_ball" | "rocking_block") {
                let want: Vec<(EventKind, String)> =
                    expected.iter().map(|&(k, c)| (k, c.to_string())).collect();
                assert_eq!(events(r), want, "{at}");
            }
            assert!(o.events.windows(2).all(|w| w[0].time <= w[1].time), "{at}");
            // Event times and the end agree within the tolerance's scale.
            for (e, f) in o.events.iter().zip(&reference.outcome.events) {
                assert!(
                    (e.time - f.time).abs() < 1e3 * rtol.max(1e-9),
                    "{at}: {} vs {}",
                    e.time,
                    f.time
                );
            }
            // The double pendulum is chaotic: its end depends on every digit.
            if status == Status::Finished && name != "double_pendulum" {
                let d = final_difference(r, reference);
                assert!(
                    d < 1e4 * rtol.max(1e-9),
                    "{at}: final states differ by {d:e}"
                );
            }
            assert!(
                o.max_constraint_drift < 10.0 * rtol.max(1e-10),
                "{at}: drift {:e}",
                o.max_constraint_drift
            );
            // No energy from nowhere: the scenes without a driven frame
            // keep or lose it.
            if name != "pendulum_on_block" && status == Status::Finished {
                let scale = o.energy_initial.abs().max(1.0);
                assert!(
                    o.energy_final <= o.energy_initial + 1e3 * rtol * scale,
                    "{at}: energy {} -> {}",
                    o.energy_initial,
                    o.energy_final
                );
            }
            println!(
                "{at}: {} at t = {}, {} events, {} steps, drift {:.1e} m, energy {:.9} -> {:.9} J",
                o.status.as_str(),
                o.time,
                o.events.len(),
                o.steps,
                o.max_constraint_drift,
                o.energy_initial,
                o.energy_final,
            );
        }
    }
}

/// Scenes without contacts or with smooth ones keep their energy (the
/// frames' Jacobi integral included) to the tolerance's scale.
#[test]
fn conservative_scenes_keep_their_energy() {
    for name in [
        "pendulum",
        "double_pendulum",
        "chaplygin_sleigh",
        "knife_edge_incline",
        "rod_on_turning_axis",
    ] {
        for t in TOLERANCES {
            let o = run_at(name, t).outcome;
            let scale = o.energy_initial.abs().max(1.0);
            let lost = (o.energy_final - o.energy_initial).abs() / scale;
            assert!(
                lost < 1e3 * t.0,
                "{name} at {:e}: relative change {lost:e}",
                t.0
            );
        }
    }
}

/// The bouncing ball (1 m, e = 0.5): its n-th impact at
/// `sqrt(2 h / g) + sum_k 2 e^k v1 / g`; the impact whose bounce would be
/// slower than the rest speed (1e-6 m/s) is the rest: approach speeds
/// `v1 e^(n-1)` with `v1 = sqrt(2 g h)`, so 22 impacts, then a rest at the
/// 23rd, after which it lies on the floor with no energy.
#[test]
fn bouncing_ball_impact_times_and_rest_are_the_closed_forms() {
    let (g, e, h) = (9.81f64, 0.5f64, 1.0f64);
    let v1 = (2.0 * g * h).sqrt();
    let bounces = (0..).find(|&n| e.powi(n + 1) * v1 < 1e-6).unwrap() as usize;
    let mut t = (2.0 * h / g).sqrt();
    let mut times = vec![t];
    for k in 1..=bounces {
        t += 2.0 * e.powi(k as i32) * v1 / g;
        times.push(t);
    }
    for tol in TOLERANCES {
        let r = run_at("bouncing_ball", tol);
        let ev = events(&r);
        assert_eq!(ev.len(), bounces + 1, "{tol:?}");
        assert!(
            ev[..bounces].iter().all(|(k, _)| *k == EventKind::Impact),
            "{ev:?}"
        );
        assert_eq!(ev[bounces].0, EventKind::Rest);
        for (e, t) in r.outcome.events.iter().zip(&times) {
            assert!((e.time - t).abs() < 1e-9, "{tol:?}: {} vs {t}", e.time);
        }
        assert!(
            r.outcome.energy_final.abs() < 1e-9,
            "{tol:?}: {}",
            r.outcome.energy_final
        );
        assert!(
            r.outcome.v.iter().all(|v| *v == 0.0),
            "at rest: {:?}",
            r.outcome.v
        );
    }
}

/// The rocking block rocks back about its sticking right corner (an
/// inverted pendulum about it, integrated here) until the left corner
/// lands. The landing corner sticks at once: the cone (mu = 1) holds the
/// impulse that stops it, so the block's angular momentum about it is kept
/// and it turns on about it, the other corner leaving; Housner's rocking
/// block (G. W. Housner, "The behavior of inverted pendulum structures
/// during earthquakes", 1963): `w+ = (1 - 2 m b^2 / I_O) w-` with `b` the
/// half-width and `I_O` the inertia about a corner, 0.7 here, from impact
/// to impact on alternate corners (the rocking between them keeps the
/// energy) until it accumulates into a rest; the block ends flat at rest,
/// its energy `m g h/2` exactly.
#[test]
fn rocking_block_lands_when_the_pendulum_about_its_corner_says_and_rocks_down_as_housner_says() {
    let (m, g, i_c, b) = (1.0, 9.81, 1.0 / 60.0, 0.1);
    let i_o = i_c + m * (0.1f64 * 0.1 + 0.2 * 0.2);
    let ratio = 1.0 - 2.0 * m * b * b / i_o;
    // The angle of the block about the corner: the centre at
    // (-0.1 cos - 0.2 sin, -0.1 sin + 0.2 cos) from it.
    let f = |y: &[f64]| vec![y[1], m * g * (0.1 * y[0].cos() + 0.2 * y[0].sin()) / i_o];
    let (t1, y1) = rk4_until(&f, &[-0.1, 0.0], 1e-5, 1.0, &|y: &[f64]| -y[0]).unwrap();
    // The impulse of the landing corner, from the centre's velocity about
    // the right corner before and about the left one after, in its cone.
    let (w_minus, w_plus) = (y1[1], ratio * y1[1]);
    let p = [
        m * (-0.2 * w_plus + 0.2 * w_minus),
        m * (0.1 * w_plus + 0.1 * w_minus),
    ];
    assert!(p[1] > 0.0 && p[0].abs() <= 1.0 * p[1], "{p:?}");
    for tol in TOLERANCES {
        let r = run_at("rocking_block", tol);
        let o = &r.outcome;
        let ev = events(&r);
        let bound = 1e3 * tol.0.max(1e-10);
        assert_eq!(ev[0], (EventKind::Impact, "left".to_string()), "{tol:?}");
        let err = (o.events[0].time - t1).abs();
        let w_err = (o.events[0].v[2] - w_plus).abs() / w_plus;
        println!("rocking block {tol:?}: first impact off by {err:e} s, its w+ by {w_err:e}");
        assert!(
            err < 10.0 * tol.0.max(1e-10),
            "{tol:?}: {} vs {t1}",
            o.events[0].time
        );
        assert!(
            w_err < bound,
            "{tol:?}: w+ {} vs {w_plus}",
            o.events[0].v[2]
        );
        // Impacts on alternate corners, each turning the block back at
        // `ratio` times the speed, until the rocking accumulates.
        let rocking = o.events.iter().take_while(|e| e.v[2].abs() > 1e-3).count();
        assert!(rocking >= 20, "{ev:?}");
        for (i, pair) in o.events[..rocking].windows(2).enumerate() {
            let corner = if i % 2 == 0 { "right" } else { "left" };
            assert_eq!(
                ev[i + 1],
                (EventKind::Impact, corner.to_string()),
                "{tol:?}: impact {i}"
            );
            let got = pair[1].v[2] / pair[0].v[2];
            assert!(
                (got + ratio).abs() < bound,
                "{tol:?}: impact {i}: w ratio {got} vs {}",
                -ratio
            );
        }
        assert!(
            ev.len() - rocking <= 30,
            "no cycles after the rocking: {ev:?}"
        );
        assert!(
            (o.energy_final - m * g * 0.2).abs() < 1e-9,
            "{tol:?}: {}",
            o.energy_final
        );
        assert!(o.v.iter().all(|v| v.abs() < 1e-9), "{tol:?}: {:?}", o.v);
    }
}

/// The ladder on a smooth wall and floor, from rest at `theta0 = 1.2` rad:
/// its top leaves the wall at 2/3 of its height, its centre then moving at
/// `vx = (l/2)(2/3 sin theta0) sqrt(g sin theta0 / l)`, kept to the end (a
/// smooth floor); the top lands plastically and it slides flat with
/// `1/2 m vx^2`.
#[test]
fn ladder_leaves_the_wall_at_two_thirds_of_its_height() {
    let (g, l, theta0) = (9.81f64, 2.0f64, 1.2f64);
    let vx = (l / 2.0) * (2.0 / 3.0 * theta0.sin()) * (g * theta0.sin() / l).sqrt();
    for tol in TOLERANCES {
        let r = run_at("ladder", tol);
        let o = &r.outcome;
        let lift = &o.events[0];
        let top = lift.q[1] + (l / 2.0) * lift.q[2].sin();
        let bound = 10.0 * tol.0.max(1e-10);
        let errs = [
            top - 2.0 / 3.0 * l * theta0.sin(),
            lift.v[0] - vx,
            o.energy_final - 0.5 * vx * vx,
        ];
        println!("ladder {tol:?}: top, vx, energy off by {errs:?}");
        assert!(errs.iter().all(|e| e.abs() < bound), "{tol:?}: {errs:?}");
    }
}

/// The box pushed down a rough incline stops at `v0 / (g (mu cos a -
/// sin a))`, both corners sticking at once, `v0^2 / (2 a)` down the slope.
#[test]
fn incline_box_sticks_where_and_when_the_closed_form_says() {
    let (g, mu, alpha, v0, m) = (9.81f64, 0.5f64, 0.3f64, 1.0f64, 1.0f64);
    let decel = g * (mu * alpha.cos() - alpha.sin());
    let (t_stop, d) = (v0 / decel, v0 * v0 / (2.0 * decel));
    for tol in TOLERANCES {
        let r = run_at("incline_stick", tol);
        let o = &r.outcome;
        for e in &o.events {
            assert!(
                (e.time - t_stop).abs() < 1e-9,
                "{tol:?}: {} vs {t_stop}",
                e.time
            );
        }
        let drop = o.energy_initial - 0.5 * m * v0 * v0 - m * g * d * alpha.sin();
        assert!(
            (o.energy_final - drop).abs() < 1e-9,
            "{tol:?}: {} vs {drop}",
            o.energy_final
        );
    }
}

/// The plate on twelve rough points (`m = 2`, `mu = 0.4`), pushed by
/// `f = 5 N` at its centre from rest: `f < mu m g = 7.848 N`, so every
/// point sticks and the plate stays where it started, `(0, 0.1, 0)`; at
/// every sample the friction forces add up to `-f` (the tangent is
/// `(1, 0)`) and the normal forces to `m g`, however they are split.
#[test]
fn plate_on_twelve_points_sticks_when_the_closed_form_says() {
    let (m, g, mu, f) = (2.0, 9.81, 0.4, 5.0);
    assert!(f < mu * m * g, "the closed form's condition");
    let start = [0.0, 0.1, 0.0];
    for tol in TOLERANCES {
        let r = run_at("plate_on_twelve_points", tol);
        let o = &r.outcome;
        assert_eq!(o.status, Status::Finished, "{tol:?}: {:?}", o.reason);
        assert!(o.events.is_empty(), "{tol:?}: {:?}", events(&r));
        for (q, s) in o.q.iter().zip(start) {
            assert!((q - s).abs() < 1e-12, "{tol:?}: {:?}", o.q);
        }
        assert!(o.v.iter().all(|v| v.abs() < 1e-12), "{tol:?}: {:?}", o.v);
        let mut n = 0;
        for row in samples(&r.rows) {
            assert_eq!(row.contacts.len(), 12);
            assert!(row.contacts.iter().all(|c| c.mode == Mode::Stick));
            let friction: f64 = row.contacts.iter().map(|c| c.friction_force).sum();
            let normal: f64 = row.contacts.iter().map(|c| c.normal_force).sum();
            assert!(
                (friction + f).abs() < 1e-9,
                "{tol:?}, t = {}: {friction}",
                row.t
            );
            assert!(
                (normal - m * g).abs() < 1e-9,
                "{tol:?}, t = {}: {normal}",
                row.t
            );
            assert!(row.contacts.iter().all(|c| c.normal_force >= -1e-12));
            assert!(row
                .contacts
                .iter()
                .all(|c| c.friction_force.abs() <= mu * c.normal_force + 1e-9));
            n += 1;
        }
        assert!(n > 100, "{tol:?}: {n} samples");
    }
}

/// The rods of Yao and Gao on a floor: smooth, the horizontal momentum is
/// kept and the plastic landing leaves `1/2 m vx0^2 = 0.5 J`; rough, it
/// ends at rest flat (no energy); viscous, in between.
#[test]
fn rods_end_with_the_energy_their_floor_leaves() {
    let smooth = run_at("rod_smooth", TOLERANCES[1]).outcome;
    assert!(
        (smooth.energy_final - 0.5).abs() < 1e-9,
        "{}",
        smooth.energy_final
    );
    let rough = run_at("rod_coulomb", TOLERANCES[1]).outcome;
    assert!(rough.energy_final.abs() < 1e-9, "{}", rough.energy_final);
    assert!(rough.v.iter().all(|v| v.abs() < 1e-9), "{:?}", rough.v);
    let viscous = run_at("rod_viscous", TOLERANCES[1]).outcome;
    assert!(viscous.energy_final > 1e-3 && viscous.energy_final < 0.5 - 1e-3);
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

/// Five blocks sliding apart (five islands): each stops at `v / (mu g)`,
/// `v^2 / (2 mu g)` on, and keeps `m g h` of its energy; the events report
/// every block, the others still sliding where their closed form says.
#[test]
fn sliding_blocks_stop_where_the_closed_form_says() {
    let (g, mu) = (9.81, 0.3);
    let speeds = [1.0, 1.5, 2.0, 2.5, 3.0];
    // Block b at time t: its x, and its speed.
    let closed = |b: usize, t: f64| {
        let (v, stop) = (speeds[b], speeds[b] / (mu * g));
        let t = t.min(stop);
        (
            3.0 * b as f64 + v * t - 0.5 * mu * g * t * t,
            v - mu * g * t,
        )
    };
    for tol in TOLERANCES {
        let r = run_at("sliding_blocks", tol);
        let o = &r.outcome;
        assert_eq!(o.status, Status::Finished, "{tol:?}: {:?}", o.reason);
        for e in &o.events {
            let block = e.contact / 2;
            assert!(
                (e.time - speeds[block] / (mu * g)).abs() < 1e-9,
                "{tol:?}: {}",
                e.time
            );
            for b in 0..5 {
                let (x, v) = closed(b, e.time);
                assert!(
                    (e.q[3 * b] - x).abs() < 1e-9,
                    "{tol:?}: block {b} at {}",
                    e.time
                );
                assert!(
                    (e.v[3 * b] - v).abs() < 1e-9,
                    "{tol:?}: block {b} at {}",
                    e.time
                );
                assert!((e.q[3 * b + 1] - 0.1).abs() < 1e-12 && e.q[3 * b + 2].abs() < 1e-12);
            }
        }
        for b in 0..5 {
            let (x, _) = closed(b, 1.2);
            assert!((o.q[3 * b] - x).abs() < 1e-9, "{tol:?}: block {b}");
            assert_eq!(o.v[3 * b], 0.0, "{tol:?}: block {b} at rest");
        }
        let rest: f64 = (0..5).map(|b| (1.0 + b as f64) * g * 0.1).sum();
        assert!(
            (o.energy_final - rest).abs() < 1e-9,
            "{tol:?}: {}",
            o.energy_final
        );
    }
}
