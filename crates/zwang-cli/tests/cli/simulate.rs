//! `zwang simulate` as a user meets it (the contract of
//! `docs/scene-format.md`): exit codes, the one-line errors of malformed
//! scenes, the JSON summary, the CSV trajectory, the PNG plot and the
//! pictures of `--draw`.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use crate::elliptic;
use crate::motion_support;
use common::{
    files_with_extension, numbers, png_size, repo, stderr, stdout, zwang, zwang_with_stdin,
};
use elliptic::{complete_k, jacobi, Pendulum};
use motion_support::{max_diff, rk4_step};

/// The keys of the JSON summary: those of the contract, `reason` (when
/// failed) and the project's `stats`.
const REQUIRED_KEYS: [&str; 8] = [
    "status",
    "time",
    "steps",
    "events",
    "final",
    "energy",
    "max_constraint_drift",
    // The spec's section on shapes: always there, 0 without shapes.
    "max_penetration",
];
/// The project's additions: `unsolved_steps` (every run), `contact_error`
/// (time-stepped runs), `stats`, `overrides` (`--duration`, `--time-step`);
/// and the contract's `multipliers` of vakonomic runs.
const OPTIONAL_KEYS: [&str; 6] = [
    "reason",
    "stats",
    "unsolved_steps",
    "contact_error",
    "overrides",
    "multipliers",
];
/// The event kinds of the contract.
const EVENT_KINDS: [&str; 7] = [
    "impact",
    "lift_off",
    "stick",
    "slip",
    "rest",
    "painleve_inconsistent",
    "painleve_indeterminate",
];
const G: f64 = 9.81;

/// A path for this test binary's outputs, removed first.
fn scratch(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_simulate_{name}"));
    let _ = std::fs::remove_file(&path);
    path
}

fn scene(name: &str) -> String {
    format!("tests/data/scenes/{name}.toml")
}

/// A malformed scene: exit 2, nothing on stdout, exactly one line on
/// stderr, which `check` accepts.
fn assert_malformed(o: &Output, what: &str, check: impl Fn(&str) -> bool) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(o.stdout.is_empty(), "{what}: stdout {:?}", stdout(o));
    assert!(err.ends_with('\n'), "{what}: {err:?}");
    assert_eq!(err.lines().count(), 1, "{what}: {err:?}");
    assert!(check(err.trim_end_matches('\n')), "{what}: {err:?}");
}

/// Runs `zwang simulate SCENE --json EXTRA`: the output and the one JSON
/// object it printed (exactly one, on one line).
fn simulate_json(scene: &str, extra: &[&str]) -> (Output, Value) {
    let mut args = vec!["simulate", scene, "--json"];
    args.extend_from_slice(extra);
    let o = zwang(&args);
    let out = stdout(&o);
    let values: Vec<Value> = serde_json::Deserializer::from_str(&out)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{scene}: not JSON ({e}): {out}"));
    assert_eq!(values.len(), 1, "{scene}: one JSON value: {out}");
    assert!(out.ends_with('\n') && out.lines().count() == 1, "{out:?}");
    let v = values.into_iter().next().unwrap();
    assert!(v.is_object(), "{scene}: an object: {v}");
    (o, v)
}

/// A body's state in the JSON: `position` and `velocity` (2 numbers), and
/// `angle`, `angular_velocity` exactly for rigid bodies.
fn assert_body(what: &str, body: &Value, rigid: bool) {
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    let mut want = vec!["position", "velocity"];
    if rigid {
        want.extend(["angle", "angular_velocity"]);
    }
    let (mut got, mut want) = (keys.clone(), want);
    got.sort();
    want.sort();
    assert_eq!(got, want, "{what}: {body}");
    assert_eq!(numbers(&body["position"]).len(), 2, "{what}");
    assert_eq!(numbers(&body["velocity"]).len(), 2, "{what}");
    if rigid {
        assert!(body["angle"].is_f64(), "{what}");
        assert!(body["angular_velocity"].is_f64(), "{what}");
    }
}

/// The summary's keys and shapes, for a scene whose bodies are `bodies`
/// (name, rigid) and whose contacts are `contacts`.
fn assert_summary(v: &Value, bodies: &[(&str, bool)], contacts: &[&str]) {
    let map: &Map<String, Value> = v.as_object().unwrap();
    for key in REQUIRED_KEYS {
        assert!(map.contains_key(key), "missing {key}: {v}");
    }
    for key in map.keys() {
        assert!(
            REQUIRED_KEYS.contains(&key.as_str()) || OPTIONAL_KEYS.contains(&key.as_str()),
            "a key outside the contract: {key}"
        );
    }
    let status = v["status"].as_str().unwrap();
    assert!(
        ["finished", "painleve", "failed"].contains(&status),
        "{status}"
    );
    assert_eq!(map.contains_key("reason"), status == "failed", "{v}");
    assert!(v["time"].as_f64().unwrap() >= 0.0);
    assert!(v["steps"].is_u64());
    assert!(v["max_constraint_drift"].as_f64().unwrap() >= 0.0);
    let energy = v["energy"].as_object().unwrap();
    let mut keys: Vec<&String> = energy.keys().collect();
    keys.sort();
    assert_eq!(keys, ["final", "initial"]);
    assert!(energy.values().all(Value::is_f64), "{v}");

    let check_bodies = |what: &str, b: &Value| {
        let names: Vec<&String> = b.as_object().unwrap().keys().collect();
        assert_eq!(names.len(), bodies.len(), "{what}: {b}");
        for (name, rigid) in bodies {
            assert_body(&format!("{what}.{name}"), &b[*name], *rigid);
        }
    };
    check_bodies("final", &v["final"]);
    let mut last = f64::NEG_INFINITY;
    for (i, e) in v["events"].as_array().unwrap().iter().enumerate() {
        let what = format!("events[{i}]");
        let mut keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["bodies", "contact", "kind", "time"], "{what}");
        let t = e["time"].as_f64().unwrap();
        assert!(t >= last, "{what}: events in time order");
        last = t;
        assert!(EVENT_KINDS.contains(&e["kind"].as_str().unwrap()), "{e}");
        assert!(contacts.contains(&e["contact"].as_str().unwrap()), "{e}");
        check_bodies(&format!("{what}.bodies"), &e["bodies"]);
    }
}

fn kinds(v: &Value) -> Vec<&str> {
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect()
}

/// The CSV: its header and rows, each row split at the commas.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'));
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect());
    let header: Vec<String> = lines.next().expect("a header");
    let rows: Vec<Vec<String>> = lines.collect();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), header.len(), "row {i}: {row:?}");
    }
    (header, rows)
}

#[test]
fn every_malformed_scene_is_exit_2_and_its_one_line() {
    let dir = repo("tests/data/scenes/malformed");
    let scenes = files_with_extension(&dir, "toml");
    assert!(scenes.len() >= 80, "only {} malformed scenes", scenes.len());
    let (csv, png) = (scratch("malformed.csv"), scratch("malformed.png"));
    for path in &scenes {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let expected = std::fs::read_to_string(path.with_extension("expected"))
            .unwrap_or_else(|_| panic!("{name}.expected is missing"));
        let expected = expected.trim_end_matches(['\n', '\r']).to_string();
        assert!(!expected.contains('\n'), "{name}.expected: one line");
        let matches = |line: &str| match expected.strip_suffix('*') {
            Some(prefix) => line.starts_with(prefix) && line.len() > prefix.len(),
            None => line == expected,
        };
        let file = format!("tests/data/scenes/malformed/{name}.toml");
        let (csv, png) = (csv.to_str().unwrap(), png.to_str().unwrap());
        for args in [
            &["simulate", file.as_str()][..],
            &["simulate", &file, "--json"],
            &["simulate", &file, "--json", "--csv", csv, "--plot", png],
        ] {
            assert_malformed(&zwang(args), &format!("{args:?}"), matches);
        }
        assert!(
            !Path::new(csv).exists(),
            "{name}: no CSV for a malformed scene"
        );
        assert!(
            !Path::new(png).exists(),
            "{name}: no plot for a malformed scene"
        );
    }
}

#[test]
fn an_unreadable_scene_is_exit_2_and_one_line() {
    for (path, what) in [
        ("tests/data/scenes/no_such_scene.toml", "a missing file"),
        ("tests/data/scenes", "a folder"),
    ] {
        for json in [false, true] {
            let mut args = vec!["simulate", path];
            if json {
                args.push("--json");
            }
            assert_malformed(&zwang(&args), what, |line| {
                line.starts_with("scene: cannot read ") && line.contains(path)
            });
        }
    }
}

/// A particle dropped from 1 m, restitution 0.8: impacts at
/// `t1 = sqrt(2 h / g)` and `t1 + 2 e v1 / g`, each returning `e` times the
/// speed.
#[test]
fn bouncing_particle_json() {
    let (o, v) = simulate_json(&scene("bouncing_particle"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_summary(&v, &[("ball", false)], &["floor"]);
    assert_eq!(v["status"], "finished");
    assert_eq!(v["time"], 1.5);
    assert!(v["steps"].as_u64().unwrap() > 0);
    assert_eq!(kinds(&v), ["impact", "impact"]);
    let (e, v1) = (0.8, (2.0 * G).sqrt());
    let t1 = (2.0 / G).sqrt();
    let events = v["events"].as_array().unwrap();
    for (event, (t, speed)) in events
        .iter()
        .zip([(t1, e * v1), (t1 + 2.0 * e * v1 / G, e * e * v1)])
    {
        assert_eq!(event["contact"], "floor");
        assert!(
            (event["time"].as_f64().unwrap() - t).abs() < 1e-9,
            "{event}"
        );
        // The state after the jump.
        let ball = &event["bodies"]["ball"];
        let velocity = numbers(&ball["velocity"]);
        assert!((velocity[1] - speed).abs() < 1e-8, "{event}");
        assert!(numbers(&ball["position"])[1].abs() < 1e-9, "{event}");
    }
    let energy = |k: &str| v["energy"][k].as_f64().unwrap();
    assert!((energy("initial") - G).abs() < 1e-12);
    // Two impacts keep e^4 of it.
    assert!((energy("final") - G * e.powi(4)).abs() < 1e-7, "{v}");
}

/// The helpers of the pendulum's closed form against known values: `K`
/// at `m = 1/2` (A&S table 17.1), `K(0) = pi/2`; `sn`, `cn`, `dn` at `K`
/// and `K/2` (`sn(K/2) = 1 / sqrt(1 + k')`, `cn(K/2) = sqrt(k' / (1 + k'))`,
/// `dn(K/2) = sqrt(k')`, `k' = sqrt(1 - m)`); the limits `m -> 0`
/// (`sin`, `cos`, 1) and `m -> 1` (`tanh`, `sech`, `sech`); and
/// `sn' = cn dn` by central differences.
#[test]
fn elliptic_functions_match_known_values() {
    use std::f64::consts::FRAC_PI_2;
    assert!((complete_k(0.5) - 1.854_074_677_301_372).abs() < 2e-15);
    assert!((complete_k(0.0) - FRAC_PI_2).abs() < 1e-15);
    // K(m) = pi/2 (1 + m/4 + 9 m^2/64 + ...) for small m.
    let m = 1e-4;
    assert!((complete_k(m) - FRAC_PI_2 * (1.0 + m / 4.0 + 9.0 * m * m / 64.0)).abs() < 1e-12);
    for m in [0.1, 0.5, 0.9, 0.999] {
        let (k, kp) = (complete_k(m), (1.0 - m).sqrt());
        let close = |got: (f64, f64, f64), want: (f64, f64, f64)| {
            let d = (got.0 - want.0)
                .abs()
                .max((got.1 - want.1).abs())
                .max((got.2 - want.2).abs());
            assert!(d < 1e-13, "m = {m}: {got:?} vs {want:?}");
        };
        close(jacobi(0.0, m), (0.0, 1.0, 1.0));
        close(jacobi(k, m), (1.0, 0.0, kp));
        close(
            jacobi(0.5 * k, m),
            (
                (1.0 + kp).recip().sqrt(),
                (kp / (1.0 + kp)).sqrt(),
                kp.sqrt(),
            ),
        );
        // Odd in u, period 4K.
        close(jacobi(-0.5 * k, m), {
            let (s, c, d) = jacobi(0.5 * k, m);
            (-s, c, d)
        });
        close(jacobi(0.3 + 4.0 * k, m), jacobi(0.3, m));
        for u in [0.1, 0.7, 1.9, 3.5] {
            let h = 1e-5;
            let derivative = (jacobi(u + h, m).0 - jacobi(u - h, m).0) / (2.0 * h);
            let (_, cn, dn) = jacobi(u, m);
            assert!((derivative - cn * dn).abs() < 1e-9, "m = {m}, u = {u}");
        }
    }
    for u in [0.2, 1.0, 2.5] {
        let (sn, cn, dn) = jacobi(u, 1e-14);
        assert!((sn - u.sin()).abs() < 1e-13 && (cn - u.cos()).abs() < 1e-13);
        assert!((dn - 1.0).abs() < 1e-13);
        let (sn, cn, dn) = jacobi(u, 1.0 - 1e-14);
        let sech = u.cosh().recip();
        assert!((sn - u.tanh()).abs() < 1e-12 && (cn - sech).abs() < 1e-12);
        assert!((dn - sech).abs() < 1e-12);
    }
    // The pendulum: a small swing has the period 2 pi sqrt(l / g)
    // (1 + phi0^2 / 16); phi0 = pi/2 takes K(1/2) / (pi/2) longer.
    let small = Pendulum {
        l: 1.0,
        g: G,
        phi0: 0.01,
    };
    let linear = 2.0 * std::f64::consts::PI / small.omega();
    assert!((small.period() / linear - (1.0 + 1e-4 / 16.0)).abs() < 1e-9);
    // ... and swings as `phi0 cos(w (1 - phi0^2 / 16) t)`, up to its third
    // harmonic, `phi0^3 / 192`.
    let w = small.omega() * (1.0 - 1e-4 / 16.0);
    for t in [0.1, 0.4, 1.3, 5.0] {
        let (phi, _) = small.angle(t);
        assert!((phi - 0.01 * (w * t).cos()).abs() < 1e-8, "t = {t}");
    }
    let quarter = Pendulum {
        l: 1.0,
        g: G,
        phi0: FRAC_PI_2,
    };
    assert!((quarter.period() - 4.0 * 1.854_074_677_301_372 / G.sqrt()).abs() < 1e-14);
    // Energy: phi'^2 / 2 = (g / l) (cos phi - cos phi0).
    for t in [0.0, 0.3, 0.6, 1.0, 2.0] {
        let (phi, phid) = quarter.angle(t);
        assert!((0.5 * phid * phid - G * phi.cos()).abs() < 1e-12, "t = {t}");
    }
}

/// A pendulum (length 1, pivot at the origin) released horizontal: no
/// events, and the bob where the closed form puts it (`Pendulum`: Jacobi's
/// elliptic functions, amplitude pi/2, period `4 K(1/2) / sqrt(g)` =
/// 2.3678 s) at every sample of the CSV and at the end, position and
/// velocity, to 1e-7 (the default tolerance is 1e-9 per step); energy and
/// length kept.
#[test]
fn pendulum_json() {
    let csv = scratch("pendulum_closed_form.csv");
    let (o, v) = simulate_json(&scene("pendulum"), &["--csv", csv.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_summary(&v, &[("bob", false)], &[]);
    assert_eq!(v["status"], "finished");
    assert_eq!(v["time"], 1.0);
    assert!(kinds(&v).is_empty());
    let exact = Pendulum {
        l: 1.0,
        g: G,
        phi0: std::f64::consts::FRAC_PI_2,
    };
    // 1 s is past the bottom (T/4 = 0.592 s), on the way up the far side.
    assert!(exact.period() / 4.0 < 1.0 && 1.0 < exact.period() / 2.0);
    let bob = &v["final"]["bob"];
    let state: Vec<f64> = [numbers(&bob["position"]), numbers(&bob["velocity"])].concat();
    let want = exact.bob(1.0);
    let off = max_diff(&state, &want);
    assert!(
        off < 1e-7,
        "at 1 s: {state:?} vs the closed form {want:?} ({off:e})"
    );
    assert!(want[0] < -0.5 && want[2] < 0.0, "{want:?}");

    let (header, rows) = read_csv(&csv);
    assert_eq!(header, ["t", "bob.x", "bob.y", "bob.vx", "bob.vy"]);
    assert_eq!(rows.len(), 101);
    let mut worst = 0.0f64;
    for row in &rows {
        let x: Vec<f64> = row.iter().map(|c| c.parse().unwrap()).collect();
        worst = worst.max(max_diff(&x[1..], &exact.bob(x[0])));
    }
    println!("pendulum: samples off the closed form by {worst:e}, at 1 s by {off:e}");
    assert!(worst < 1e-7, "samples off the closed form by {worst:e}");
    let last: Vec<f64> = rows[100][1..].iter().map(|c| c.parse().unwrap()).collect();
    assert_eq!(last, state, "the last sample is the final state");

    let p = numbers(&v["final"]["bob"]["position"]);
    assert!((p[0].hypot(p[1]) - 1.0).abs() < 1e-6, "{p:?}");
    let (e0, e1) = (
        v["energy"]["initial"].as_f64().unwrap(),
        v["energy"]["final"].as_f64().unwrap(),
    );
    assert_eq!(e0, 0.0, "released at the pivot's height, at rest");
    assert!((e1 - e0).abs() < 1e-6, "{e0} -> {e1}");
    assert!(v["max_constraint_drift"].as_f64().unwrap() < 1e-6);
}

/// A rigid block sliding to a stop (both corners stick at `v / (mu g)`),
/// beside a pendulum: rigid and particle bodies in the JSON.
#[test]
fn sliding_block_json() {
    let (o, v) = simulate_json(&scene("sliding_block"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_summary(&v, &[("block", true), ("bob", false)], &["left", "right"]);
    assert_eq!(kinds(&v), ["stick", "stick"]);
    for e in v["events"].as_array().unwrap() {
        assert!(
            (e["time"].as_f64().unwrap() - 1.0 / (0.5 * G)).abs() < 1e-9,
            "{e}"
        );
    }
    let block = &v["final"]["block"];
    let x = numbers(&block["position"])[0];
    assert!((x - 1.0 / (2.0 * 0.5 * G)).abs() < 1e-9, "{block}");
    // Friction took the block's kinetic energy, 1 J.
    let (e0, e1) = (
        v["energy"]["initial"].as_f64().unwrap(),
        v["energy"]["final"].as_f64().unwrap(),
    );
    assert!((e0 - e1 - 1.0).abs() < 1e-6, "{e0} -> {e1}");
}

/// The CSV: the columns in the contract's order, one row per sample
/// (every `output_every`, from 0 to the duration) and one per event.
#[test]
fn csv_columns_and_rows() {
    let cases: [(&str, &str, f64, f64); 3] = [
        (
            "sliding_block",
            "t,block.x,block.y,block.angle,block.vx,block.vy,block.omega,\
             bob.x,bob.y,bob.vx,bob.vy,\
             left.normal_force,left.friction_force,left.mode,\
             right.normal_force,right.friction_force,right.mode",
            0.5,
            0.01,
        ),
        (
            "bouncing_particle",
            "t,ball.x,ball.y,ball.vx,ball.vy,floor.normal_force,floor.friction_force,floor.mode",
            1.5,
            0.01,
        ),
        ("pendulum", "t,bob.x,bob.y,bob.vx,bob.vy", 1.0, 0.01),
    ];
    for (name, header, duration, every) in cases {
        let csv = scratch(&format!("{name}.csv"));
        let (o, v) = simulate_json(&scene(name), &["--csv", csv.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let (got, rows) = read_csv(&csv);
        assert_eq!(got.join(","), header, "{name}");

        let event_times: Vec<f64> = v["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["time"].as_f64().unwrap())
            .collect();
        let samples = (duration / every).round() as usize + 1;
        assert_eq!(rows.len(), samples + event_times.len(), "{name}");
        let times: Vec<f64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{name}: rows in time order"
        );
        // The event rows, at the events' times (the same shortest
        // round-trip numbers), then the samples every `output_every`.
        let mut sample_times = times.clone();
        for t in &event_times {
            let at = sample_times.iter().position(|s| s == t);
            sample_times.remove(at.unwrap_or_else(|| panic!("{name}: no row at event {t}")));
        }
        for (k, t) in sample_times.iter().enumerate() {
            assert!(
                (t - k as f64 * every).abs() < 1e-9,
                "{name}: sample {k} at {t}"
            );
        }
        for row in &rows {
            for (column, cell) in got.iter().zip(row) {
                if column.ends_with(".mode") {
                    assert!(
                        ["open", "slide", "stick"].contains(&cell.as_str()),
                        "{cell}"
                    );
                } else {
                    let x: f64 = cell.parse().unwrap_or_else(|_| panic!("{column}: {cell}"));
                    assert!(x.is_finite(), "{name}: {column} = {cell}");
                }
            }
        }
        // The first row is the initial state.
        if name == "bouncing_particle" {
            assert_eq!(rows[0], ["0", "0", "1", "0", "0", "0", "0", "open"]);
        }
    }
}

/// Two runs write the same bytes: CSV and JSON.
#[test]
fn two_runs_are_bit_identical() {
    for name in ["sliding_block", "thrown_ball"] {
        let (a, b) = (
            scratch(&format!("{name}_a.csv")),
            scratch(&format!("{name}_b.csv")),
        );
        let (oa, _) = simulate_json(&scene(name), &["--csv", a.to_str().unwrap()]);
        let (ob, _) = simulate_json(&scene(name), &["--csv", b.to_str().unwrap()]);
        assert_eq!(oa.status.code(), Some(0), "{}", stderr(&oa));
        assert_eq!(oa.stdout, ob.stdout, "{name}: JSON");
        let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        assert!(a.len() > 1000);
        assert!(a == b, "{name}: CSV differs between two runs");
    }
}

/// The RGB pixels of a PNG and its size.
pub(crate) fn decode_png(bytes: &[u8]) -> (Vec<[u8; 3]>, u32, u32) {
    let mut reader = png::Decoder::new(bytes).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgb, png::BitDepth::Eight)
    );
    let pixels = buffer[..info.buffer_size()]
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (pixels, info.width, info.height)
}

/// The plots' first and second curve colours (matplotlib's blue and
/// orange).
const BLUE: [u8; 3] = [31, 119, 180];
const ORANGE: [u8; 3] = [255, 127, 14];

/// The pixels of `color` in panel `k` (of three: positions, energy,
/// contact forces; stacked under the title) left of the legends, as
/// `(column, row)`.
fn curve(pixels: &[[u8; 3]], (w, h): (u32, u32), k: u32, color: [u8; 3]) -> Vec<(u32, u32)> {
    // The title takes 45 pixels, the legends the last 250 columns.
    let band = (h - 45) / 3;
    let rows = 45 + k * band..45 + (k + 1) * band;
    (0..w * h)
        .filter(|&i| pixels[i as usize] == color)
        .map(|i| (i % w, i / w))
        .filter(|&(x, y)| x < w - 250 && rows.contains(&y))
        .collect()
}

/// The mean row of a curve's pixels in its first and last few columns:
/// where it starts and ends (rows grow downwards).
fn ends(points: &[(u32, u32)]) -> (f64, f64) {
    let first = points.iter().map(|p| p.0).min().unwrap();
    let last = points.iter().map(|p| p.0).max().unwrap();
    let mean = |keep: &dyn Fn(u32) -> bool| {
        let rows: Vec<f64> = points
            .iter()
            .filter(|p| keep(p.0))
            .map(|p| f64::from(p.1))
            .collect();
        rows.iter().sum::<f64>() / rows.len() as f64
    };
    (mean(&|x| x <= first + 3), mean(&|x| x + 3 >= last))
}

/// `--plot` draws a picture: a PNG of the plots' size, not of one colour
/// (a white background under at most 97% of it), the curves' colours in
/// their panels. The thrown ball's curves go where its motion does: `x`
/// rising from 0 to 4.55 m across the positions panel while `y` falls
/// from 1 m to the floor, the energy from 22.31 J to 0, the normal force
/// from 0 to `m g`.
#[test]
fn plot_writes_a_png() {
    for (name, code) in [
        ("thrown_ball", 0),
        ("sliding_block", 0),
        ("rod_painleve", 1),
    ] {
        let png = scratch(&format!("{name}.png"));
        let o = zwang(&["simulate", &scene(name), "--plot", png.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(code), "{name}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{name}: {}", stderr(&o));
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(png_size(&bytes), (1280, 1200), "{name}");
        let (pixels, w, h) = decode_png(&bytes);
        assert_eq!((w, h), (1280, 1200), "{name}");
        let white = pixels.iter().filter(|&&p| p == [255; 3]).count();
        assert!(
            white > pixels.len() / 2 && 100 * white < 97 * pixels.len(),
            "{name}: {white} white pixels of {}",
            pixels.len()
        );
        let mut colors: Vec<[u8; 3]> = pixels.clone();
        colors.sort_unstable();
        colors.dedup();
        assert!(colors.len() >= 20, "{name}: {} colours", colors.len());
        if name == "rod_painleve" {
            // Stopped at its start: nothing but a dot at t = 0 to draw.
            continue;
        }
        for k in 0..3 {
            let n = curve(&pixels, (w, h), k, BLUE).len();
            assert!(n >= 500, "{name}: {n} blue pixels in panel {k}");
        }
        if name == "thrown_ball" {
            let x = ends(&curve(&pixels, (w, h), 0, BLUE));
            let y = ends(&curve(&pixels, (w, h), 0, ORANGE));
            assert!(x.0 > x.1 + 150.0, "x rises: rows {x:?}");
            assert!(y.0 + 40.0 < y.1, "y falls: rows {y:?}");
            assert!(y.0 + 40.0 < x.0, "y starts above x: rows {y:?}, {x:?}");
            let energy = ends(&curve(&pixels, (w, h), 1, BLUE));
            assert!(energy.0 + 200.0 < energy.1, "energy falls: rows {energy:?}");
            let normal = ends(&curve(&pixels, (w, h), 2, BLUE));
            assert!(
                normal.0 > normal.1 + 100.0,
                "the normal force rises: {normal:?}"
            );
        }
    }
}

#[test]
fn an_unwritable_output_is_one_line() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no/such/folder");
    for flag in ["--csv", "--plot", "--draw"] {
        // `--draw` chooses its format by the extension.
        let out = missing.join("out.png");
        let o = zwang(&["simulate", &scene("pendulum"), flag, out.to_str().unwrap()]);
        assert_malformed(&o, flag, |line| {
            line.starts_with(&format!("{}: cannot write ", &flag[2..]))
        });
    }
}

/// `G = 1 + 3 cos^2 th - 3 mu sin th cos th`, `m G` the normal
/// acceleration of the leading end per unit normal force once Coulomb
/// friction `mu` rides on it (rod of Yao and Gao, `I = m l^2 / 3`).
fn rod_g(theta: f64, mu: f64) -> f64 {
    let (s, c) = theta.sin_cos();
    1.0 + 3.0 * c * c - 3.0 * mu * s * c
}

/// The two roots `tan th` of `G = 0` (`G / cos^2 = tan^2 - 3 mu tan + 4`):
/// the Painleve band of the leading end, `mu > 4/3`.
fn painleve_band(mu: f64) -> (f64, f64) {
    let root = (9.0 * mu * mu - 16.0).sqrt();
    (0.5 * (3.0 * mu - root), 0.5 * (3.0 * mu + root))
}

/// The rod of Yao and Gao (mass `m`, half length `l`, `I = m l^2 / 3`)
/// sliding with its lower end `A` on a rough floor (`mu`), `A` leading
/// (`x_A' < 0`: friction `F = mu N` pushes it back), from below the
/// Painleve band, turning up: when does `th` reach the band's edge `th*`
/// (`G(th*) = 0`, `tan th* = (3 mu - sqrt(9 mu^2 - 16)) / 2`), where the
/// normal force `N = m (g - l sin th th'^2) / G` diverges?
///
/// With `A` on the floor (`y = l sin th`) Newton-Euler give
/// `th'' = -3 (cos th - mu sin th) (g - l sin th th'^2) / (l G)`, which
/// involves `th` and `u = th'^2` only: `du/dth = 2 th''` is a linear ODE in
/// `th`, and the time is `int dth / sqrt(u)`. Near `th*` the coefficient
/// grows like `1 / (th* - th)`: with `th = th* - e^(-tau)` and
/// `G = cos th (tan th_2 - tan th) sin(th* - th) / cos th*` (the factored
/// quadratic in `tan th`, no cancellation) the system in `tau` is regular,
/// and `dt/dtau = e^(-tau) / sqrt(u)` dies out: RK4 in `tau` (step `h`) to
/// `tau = 40`. `x_A'` comes along (`x_A'' = mu N / m + l sin th th'' +
/// l cos th th'^2`) to check that `A` keeps leading and `N > 0` all the
/// way. Returns `t*` and `x_A'` at `tau = 40` (`x_A'` still changes
/// beyond, slowly: `N dt` dies out only like a small power of `th* - th`).
fn painleve_reference(l: f64, mu: f64, theta0: f64, thetad0: f64, xa0: f64, h: f64) -> (f64, f64) {
    let (t1, t2) = painleve_band(mu);
    let star = t1.atan();
    assert!(theta0 < star && thetad0 > 0.0 && xa0 < 0.0);
    let g = G;
    // y = (tau, u, t, x_A').
    let f = |y: &[f64]| {
        let delta = (-y[0]).exp();
        let theta = star - delta;
        let (s, c) = theta.sin_cos();
        let u = y[1];
        // G / delta, and delta th''.
        let sinc = if delta < 1e-8 {
            1.0
        } else {
            delta.sin() / delta
        };
        let g_over_delta = c * (t2 - theta.tan()) * sinc / star.cos();
        let free = g - l * s * u;
        assert!(free > 0.0 && g_over_delta > 0.0, "A pressed on the floor");
        let delta_thdd = -3.0 * (c - mu * s) * free / (l * g_over_delta);
        // N / m = free / G.
        let delta_xadd = mu * free / g_over_delta + l * s * delta_thdd + delta * l * c * u;
        let dt = delta / u.sqrt();
        vec![1.0, 2.0 * delta_thdd, dt, delta_xadd / u.sqrt()]
    };
    let tau0 = -(star - theta0).ln();
    let mut y = vec![tau0, thetad0 * thetad0, 0.0, xa0];
    let steps = ((40.0 - tau0) / h).ceil() as usize;
    let h = (40.0 - tau0) / steps as f64;
    for _ in 0..steps {
        y = rk4_step(&f, &y, h);
        assert!(y[3] < 0.0, "A keeps leading");
    }
    (y[2], y[3])
}

/// The stop of a Painleve run: status, exit code 1, the JSON printed all
/// the same, one event, `painleve_inconsistent` on `contact`, at the run's
/// time; returns the time and the rod's final state.
fn painleve_stop(path: &str, contact: &str) -> (f64, Value) {
    let (o, v) = simulate_json(path, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_summary(&v, &[("rod", true)], &[contact]);
    assert_eq!(v["status"], "painleve");
    assert_eq!(kinds(&v), ["painleve_inconsistent"], "{v}");
    let time = v["time"].as_f64().unwrap();
    let event = &v["events"][0];
    assert_eq!(event["contact"], contact);
    assert_eq!(event["time"], time);
    assert_eq!(event["bodies"], v["final"]);
    (time, v["final"]["rod"].clone())
}

/// The rod of Yao and Gao (`l = 1`, `mu = 2`) started in the Painleve
/// band, its contact end leading (`x_A' = -1`) and not turning: `tan 1` is
/// inside the band (0.764, 5.236), so `G < 0`, and the free normal
/// acceleration of the end is `-g + l sin th th'^2 = -g < 0`: no rigid
/// answer (closed, `N = -g m / G` would pull; open, the end would sink).
/// The run stops at once, `t = 0` exactly, inconsistent, in the initial
/// state.
#[test]
fn painleve_rod_exits_1_with_its_json() {
    let mu: f64 = 2.0;
    let (lo, hi) = painleve_band(mu);
    assert!(lo < 1f64.tan() && 1f64.tan() < hi);
    assert!(rod_g(1.0, mu) < -0.85);

    let (time, rod) = painleve_stop(&scene("rod_painleve"), "end");
    assert_eq!(time, 0.0, "the start is inside the band");
    assert_eq!(numbers(&rod["position"]), [0.0, 1f64.sin()]);
    assert_eq!(numbers(&rod["velocity"]), [-1.0, 0.0]);
    assert_eq!(rod["angle"], 1.0);
    assert_eq!(rod["angular_velocity"], 0.0);

    // Without --json: the text, exit 1 too.
    let o = zwang(&["simulate", &scene("rod_painleve")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("Painleve"), "{}", stdout(&o));
}

/// The shipped Painleve rod (`examples/scenes/rod_painleve.toml`: `L = 1`,
/// `mu = 5`, `th = 0.2`, `th' = 2`, `x_A' = -30`) slides into the band: the
/// run stops when `th` reaches the band's edge `th*`, `tan th* =
/// (3 mu - sqrt(9 mu^2 - 16)) / 2` (closed form), at the time of
/// [`painleve_reference`] (a quadrature in `th` written here, converged to
/// 1e-11 by halving its step), inconsistent: there the end is still
/// pressed (`g - l sin th th'^2 > 0`) and `G` changes sign, so the closed
/// contact would need a pulling force. That time is 0.0291 s (the scene's
/// comment says 0.019 s).
#[test]
fn shipped_painleve_rod_stops_at_the_band_edge() {
    let (mu, l, theta0, thetad0, xa0) = (5.0, 0.5, 0.2, 2.0, -30.0);
    let (t_star, xa_star) = painleve_reference(l, mu, theta0, thetad0, xa0, 2e-3);
    let (t_half, xa_half) = painleve_reference(l, mu, theta0, thetad0, xa0, 1e-3);
    assert!((t_star - t_half).abs() < 1e-11, "{t_star} vs {t_half}");
    println!("reference: t* = {t_star:.15} (half step {t_half:.15}), x_A' = {xa_star} ({xa_half})");
    assert!(
        xa_star < -10.0 && xa_half < -10.0,
        "A still leading: {xa_star}"
    );
    assert!((t_star - 0.0291).abs() < 5e-5, "reference {t_star}");

    let (time, rod) = painleve_stop("examples/scenes/rod_painleve.toml", "end_a");
    let theta = rod["angle"].as_f64().unwrap();
    let star = painleve_band(mu).0.atan();
    println!(
        "shipped painleve rod: stops at {time:.12} s, th = {theta:.12} (reference t* = \
         {t_star:.12} s, th* = {star:.12})"
    );
    assert!((time - t_star).abs() < 1e-9, "{time} vs {t_star}");
    assert!((theta - star).abs() < 1e-7, "{theta} vs {star}");
    assert!(rod_g(theta, mu).abs() < 1e-6);
}

/// With stderr not a terminal (here a pipe) there is no progress bar:
/// nothing on stderr, with or without --json.
#[test]
fn no_progress_bar_off_a_terminal() {
    for args in [
        &["simulate", "tests/data/scenes/thrown_ball.toml"][..],
        &["simulate", "tests/data/scenes/thrown_ball.toml", "--json"],
    ] {
        let o = zwang(args);
        assert_eq!(o.status.code(), Some(0));
        assert!(o.stderr.is_empty(), "{args:?}: {:?}", stderr(&o));
        assert!(!stdout(&o).contains('\r'), "{args:?}");
    }
}

/// `-` reads the scene from standard input.
#[test]
fn standard_input() {
    let text = std::fs::read(repo(&scene("bouncing_particle"))).unwrap();
    let o = zwang_with_stdin(&["simulate", "-", "--json"], &text);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let (_, file) = simulate_json(&scene("bouncing_particle"), &[]);
    assert_eq!(v, file);
}

/// A scene with shapes (run by the time stepper): a box at rest on a
/// floor, a ball falling beside it.
const SHAPES: &str = r#"
[scene]
name = "shapes"
dimension = 2
duration = 0.5
output_every = 0.01

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfplane", normal = [0.0, 1.0] }

[[body]]
name = "crate"
kind = "rigid"
mass = 1.0
position = [0.0, 0.25]
shape = { kind = "box", half_extents = [0.5, 0.25] }

[[body]]
name = "ball"
kind = "rigid"
mass = 1.0
position = [1.5, 1.0]
shape = { kind = "circle", radius = 0.2 }
"#;

#[test]
fn draw_writes_pictures_by_extension() {
    let file = scratch("shapes.toml");
    std::fs::write(&file, SHAPES).unwrap();
    let file = file.to_str().unwrap();
    for (name, magic) in [
        ("draw.png", &b"\x89PNG"[..]),
        ("draw.gif", b"GIF89a"),
        ("draw.svg", b"<svg"),
    ] {
        let out = scratch(name);
        let o = zwang(&["simulate", file, "--draw", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{name}: {}", stderr(&o));
        assert!(stdout(&o).starts_with("finished"), "{name}");
        assert!(std::fs::read(&out).unwrap().starts_with(magic), "{name}");
    }
    // Instants side by side: four panels of 640 x 480 in a 2 x 2 grid.
    let out = scratch("draw_at.png");
    let path = out.to_str().unwrap();
    let o = zwang(&[
        "simulate",
        file,
        "--draw",
        path,
        "--draw-at",
        "0,0.1,0.2,0.5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(png_size(&std::fs::read(&out).unwrap()), (1280, 960));
}

#[test]
fn draw_refuses_what_it_cannot_draw_in_one_line() {
    let file = scratch("shapes_bad.toml");
    std::fs::write(&file, SHAPES).unwrap();
    let file = file.to_str().unwrap();
    let out = scratch("never.bmpx");
    let o = zwang(&["simulate", file, "--draw", out.to_str().unwrap()]);
    assert_malformed(&o, "extension", |line| line.starts_with("--draw: "));
    assert!(!out.exists());
    let png = scratch("never.png");
    let png = png.to_str().unwrap();
    let o = zwang(&[
        "simulate",
        "--system",
        "appell_hamel",
        "--duration",
        "0.5",
        "--draw",
        png,
    ]);
    assert_malformed(&o, "--system", |line| line.starts_with("--draw: "));
    for (at, what) in [
        ("--draw-at=0,0.7", "after the run"),
        ("--draw-at=-1", "before the run"),
        ("--draw-at=nan", "not a number"),
    ] {
        let o = zwang(&["simulate", file, "--draw", png, at]);
        assert_malformed(&o, what, |line| line.starts_with("--draw-at: "));
    }
    let gif = scratch("never.gif");
    let o = zwang(&[
        "simulate",
        file,
        "--draw",
        gif.to_str().unwrap(),
        "--draw-at",
        "0.1",
    ]);
    assert_malformed(&o, "an animation at instants", |line| {
        line == "--draw-at: only with --draw FILE.png"
    });
    let many = vec!["0.1"; 17].join(",");
    let o = zwang(&["simulate", file, "--draw", png, "--draw-at", &many]);
    assert_malformed(&o, "too many", |line| {
        line.starts_with("--draw-at: 17 instants")
    });
    assert!(!Path::new(png).exists());
}
