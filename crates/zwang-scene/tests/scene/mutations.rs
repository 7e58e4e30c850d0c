//! No input makes the parser panic: random mutations of valid and malformed
//! scenes (seeded, so a failure replays) are either refused with a one-line
//! error naming a key, or accepted as a scene that keeps every invariant of
//! the types.

use std::fs;
use std::path::PathBuf;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zwang_scene::{parse_scene, BodyRef, Force, JointKind, Scene, Shape, Stepping, Surface};

use crate::common;

/// Values that sit on or beyond the edges of the rules.
const VALUES: &[&str] = &[
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "0.0",
    "-0.0",
    "1",
    "1e308",
    "-1e308",
    "5e-324",
    "9223372036854775807",
    "-9223372036854775808",
    "\"\"",
    "\"x\"",
    "\"ground\"",
    "\"rod\"",
    "\"ball\"",
    "\"particle\"",
    "\"rigid\"",
    "\"slot\"",
    "\"weld\"",
    "\"circle\"",
    "\"constant\"",
    "\"contact1\"",
    "\"a\\nb\"",
    "true",
    "1979-05-27T07:32:00Z",
    "[]",
    "[1]",
    "[0, 0]",
    "[1e308, -1e308]",
    "[nan, 0]",
    "[1, 2, 3]",
    "[\"x\", 1]",
    "[[0, 0]]",
    "[[0, 0], [0, 0]]",
    "[[0, 0], [0, 0], [0, 0]]",
    "[[0, 0], 1]",
    "[\"ground\", \"ground\"]",
    "[\"rod\", \"ball\"]",
    "[\"ball\", \"rod\"]",
    "{}",
    "{ kind = \"circle\", center = [0, 0], radius = 1 }",
    "{ kind = \"line\", point = [0, 0], normal = [0, 0] }",
    "\"fixed\"",
    "\"floor\"",
    "\"wall\"",
    "\"event\"",
    "\"timestep\"",
    "\"convex\"",
    "{ kind = \"halfplane\", normal = [1, 1] }",
    "{ kind = \"box\", half_extents = [1, 0.5] }",
    "{ kind = \"capsule\", half_length = 0, radius = 1 }",
    "{ kind = \"polygon\", vertices = [[0, 0], [1, 0], [0, 1]] }",
    "{ kind = \"polygon\", vertices = [[-1, -1], [1, -1], [1, 1], [-1, 1]] }",
    "[[-1, -1], [1, -1], [1, 1e300]]",
];

/// Lines that may be inserted anywhere.
const LINES: &[&str] = &[
    "[scene]",
    "[[body]]",
    "[[joint]]",
    "[[contact]]",
    "[contact.surface]",
    "[[force]]",
    "[solver]",
    "name = \"rod\"",
    "kind = \"particle\"",
    "kind = \"rigid\"",
    "kind = \"distance\"",
    "kind = \"slider\"",
    "inertia = 1",
    "angle = 1",
    "torque = 1",
    "axis = [1, 0]",
    "length = 1",
    "colour = 1",
    "\"odd key\" = 1",
    "body = \"ball\"",
    "bodies = [\"ground\", \"ball\"]",
    "anchors = [[0, 0], [0, 0]]",
    "point = [0, 0]",
    "surface = { kind = \"line\", point = [0, 0], normal = [0, 1] }",
    "[frame]",
    "kind = \"constant\"",
    "kind = \"sinusoid\"",
    "kind = \"knife_edge\"",
    "inertia_tensor = [0, 1, 0]",
    "angular_velocity = [0, 1, 0]",
    "acceleration = [1, 2]",
    "acceleration = { amplitude = [1, 0], frequency = 1 }",
    "angular_velocity = { offset = [1, 0, 0], amplitude = 2, frequency = 0.5, phase = 1 }",
    "kind = \"fixed\"",
    "shape = { kind = \"circle\", radius = 0.5 }",
    "shape = { kind = \"halfplane\", normal = [0, 1] }",
    "friction = 0.1",
    "restitution = 0.5",
    "stepping = \"timestep\"",
    "stepping = \"event\"",
    "time_step = 0.01",
    "friction = \"exact\"",
    "max_steps = 10",
    "bodies = [\"wall\", \"pill\"]",
];

/// Every key of the format, to rename keys with.
const KEYS: &[&str] = &[
    "name",
    "dimension",
    "gravity",
    "duration",
    "output_every",
    "kind",
    "mass",
    "inertia",
    "position",
    "angle",
    "velocity",
    "angular_velocity",
    "bodies",
    "anchors",
    "length",
    "axis",
    "body",
    "point",
    "surface",
    "friction",
    "viscous",
    "restitution",
    "normal",
    "center",
    "radius",
    "stiffness",
    "rest_length",
    "damping",
    "force",
    "torque",
    "method",
    "tolerance",
    "absolute_tolerance",
    "max_steps",
    "acceleration",
    "inertia_tensor",
    "offset",
    "amplitude",
    "frequency",
    "phase",
    "shape",
    "half_extents",
    "vertices",
    "half_length",
    "stepping",
    "time_step",
];

fn seeds() -> Vec<String> {
    let folder =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/scenes/malformed");
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut texts = vec![
        common::FULL.to_string(),
        common::FRAMED.to_string(),
        common::SHAPES.to_string(),
    ];
    texts.extend(files.iter().map(|f| fs::read_to_string(f).unwrap()));
    texts
}

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    let i = rng.gen_range(0..n);
    match rng.gen_range(0..9) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let line = lines[i].clone();
            lines.insert(rng.gen_range(0..=n), line);
        }
        2 => {
            let j = rng.gen_range(0..n);
            lines.swap(i, j);
        }
        3 => {
            if let Some(eq) = lines[i].find('=') {
                let value = VALUES.choose(rng).unwrap();
                lines[i] = format!("{}= {value}", &lines[i][..eq]);
            }
        }
        4 => {
            if let Some(eq) = lines[i].find('=') {
                let key = KEYS.choose(rng).unwrap();
                lines[i] = format!("{key} {}", &lines[i][eq..]);
            }
        }
        5 => {
            let line = LINES.choose(rng).unwrap();
            lines.insert(rng.gen_range(0..=n), line.to_string());
        }
        6 => {
            // A random character anywhere, ASCII or not.
            let mut chars: Vec<char> = lines.join("\n").chars().collect();
            let at = rng.gen_range(0..=chars.len());
            let c = if rng.gen_bool(0.8) {
                char::from(rng.gen_range(0u8..128))
            } else {
                ['é', '∞', '\u{0}', '\u{feff}', '\u{202e}'][rng.gen_range(0..5)]
            };
            chars.insert(at, c);
            return chars.into_iter().collect();
        }
        7 => {
            let mut chars: Vec<char> = lines.join("\n").chars().collect();
            let at = rng.gen_range(0..=chars.len());
            let len = rng.gen_range(0..=8).min(chars.len() - at);
            chars.drain(at..at + len);
            return chars.into_iter().collect();
        }
        _ => {
            let chars: Vec<char> = lines.join("\n").chars().collect();
            let at = rng.gen_range(0..=chars.len());
            return chars[..at].iter().collect();
        }
    }
    lines.join("\n")
}

fn unit(v: [f64; 2]) -> bool {
    (v[0].hypot(v[1]) - 1.0).abs() < 1e-12
}

/// Every promise the types make about a parsed scene.
fn check_invariants(s: &Scene, text: &str) {
    let ok = |r: BodyRef| match r {
        BodyRef::Ground => true,
        BodyRef::Body(i) => i < s.bodies.len(),
    };
    let finite = |v: [f64; 2]| v.iter().all(|x| x.is_finite());
    assert_eq!(s.dimension, 2, "{text}");
    assert!(finite(s.gravity), "{text}");
    assert!(s.duration > 0.0 && s.duration.is_finite(), "{text}");
    assert!(s.output_every > 0.0 && s.output_every.is_finite(), "{text}");
    assert!(!s.bodies.is_empty(), "{text}");
    for (i, b) in s.bodies.iter().enumerate() {
        assert!(!b.name.is_empty() && b.name != "ground", "{text}");
        assert!(s.bodies[..i].iter().all(|o| o.name != b.name), "{text}");
        assert!(b.mass > 0.0 && b.mass.is_finite(), "{text}");
        if b.is_rigid() {
            assert!(b.inertia > 0.0 && b.inertia.is_finite(), "{text}");
        } else {
            assert!(b.inertia == 0.0 && b.angle == 0.0 && b.angular_velocity == 0.0);
        }
        assert!(finite(b.position) && finite(b.velocity), "{text}");
        assert!(
            b.angle.is_finite() && b.angular_velocity.is_finite(),
            "{text}"
        );
        check_surface(b.shape.as_ref(), b.friction, b.restitution, false, text);
    }
    for (i, f) in s.fixed.iter().enumerate() {
        assert!(!f.name.is_empty() && f.name != "ground", "{text}");
        assert!(s.bodies.iter().all(|b| b.name != f.name), "{text}");
        assert!(s.fixed[..i].iter().all(|o| o.name != f.name), "{text}");
        assert!(finite(f.position) && f.angle.is_finite(), "{text}");
        check_surface(f.shape.as_ref(), f.friction, f.restitution, true, text);
    }
    for j in &s.joints {
        assert!(j.bodies.iter().all(|&r| ok(r)) && j.bodies[0] != j.bodies[1]);
        assert!(j.anchors.iter().all(|&a| finite(a)), "{text}");
        match j.kind {
            JointKind::Distance { length } => assert!(length > 0.0 && length.is_finite()),
            JointKind::Slider { axis } | JointKind::Slot { axis } => assert!(unit(axis)),
            JointKind::KnifeEdge { axis } => {
                assert!(unit(axis) && j.bodies[0] == BodyRef::Ground, "{text}");
                assert!(s.body(j.bodies[1]).is_some_and(|b| b.is_rigid()), "{text}");
            }
            JointKind::Pin | JointKind::Weld => {}
        }
    }
    for (i, c) in s.contacts.iter().enumerate() {
        assert!(c.body < s.bodies.len(), "{text}");
        assert!(s.contacts[..i].iter().all(|o| o.name != c.name), "{text}");
        assert!(finite(c.point), "{text}");
        assert!(c.friction >= 0.0 && c.friction.is_finite());
        assert!(c.viscous >= 0.0 && c.viscous.is_finite());
        assert!((0.0..=1.0).contains(&c.restitution));
        match c.surface {
            Surface::Line { point, normal } => assert!(finite(point) && unit(normal)),
            Surface::Circle { center, radius } => {
                assert!(finite(center) && radius > 0.0 && radius.is_finite())
            }
        }
    }
    for f in &s.forces {
        match *f {
            Force::Spring {
                bodies,
                stiffness,
                rest_length,
                ..
            } => {
                assert!(bodies.iter().all(|&r| ok(r)) && bodies[0] != bodies[1]);
                assert!(stiffness >= 0.0 && stiffness.is_finite());
                assert!(rest_length >= 0.0 && rest_length.is_finite());
            }
            Force::Damper {
                bodies, damping, ..
            } => {
                assert!(bodies.iter().all(|&r| ok(r)) && bodies[0] != bodies[1]);
                assert!(damping >= 0.0 && damping.is_finite());
            }
            Force::Constant {
                body,
                force,
                torque,
            } => {
                assert!(body < s.bodies.len() && finite(force) && torque.is_finite());
                assert!(torque == 0.0 || s.bodies[body].is_rigid(), "{text}");
            }
        }
    }
    assert!(s.solver.tolerance > 0.0 && s.solver.tolerance.is_finite());
    assert!(s.solver.absolute_tolerance > 0.0 && s.solver.absolute_tolerance.is_finite());
    assert!(s.solver.max_steps > 0);
    let shapes =
        s.bodies.iter().any(|b| b.shape.is_some()) || s.fixed.iter().any(|f| f.shape.is_some());
    if shapes {
        assert_eq!(s.solver.stepping, Stepping::TimeStep, "{text}");
    }
    if s.solver.stepping == Stepping::TimeStep {
        let h = s.solver.time_step;
        assert!(h > 0.0 && h <= s.duration, "{text}");
        assert!(s.duration / h <= s.solver.max_steps as f64, "{text}");
    }
    // The parser checks all the model checks: a parsed scene builds.
    if let Err(e) = s.model() {
        panic!("parsed but the model refuses it: {e}\n{text}");
    }
}

/// A body's shape and surface: valid, a half-plane (unit normal) only on
/// a fixed body.
fn check_surface(shape: Option<&Shape>, friction: f64, restitution: f64, fixed: bool, text: &str) {
    if let Some(shape) = shape {
        assert!(shape.validate().is_ok(), "{text}");
        if let Shape::HalfPlane { normal } = shape {
            assert!(fixed && unit(*normal), "{text}");
        }
    }
    assert!(friction >= 0.0 && friction.is_finite(), "{text}");
    assert!((0.0..=1.0).contains(&restitution), "{text}");
}

#[test]
fn mutated_scenes_never_panic_and_errors_are_one_line() {
    let seeds = seeds();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ce4e);
    let (mut accepted, mut refused) = (0usize, 0usize);
    for _ in 0..40_000 {
        // Half from the valid scene, lightly mutated, so that many survive.
        let (mut text, rounds) = if rng.gen_bool(0.5) {
            (seeds[rng.gen_range(0..3)].clone(), rng.gen_range(1..=2))
        } else {
            (
                seeds.choose(&mut rng).unwrap().clone(),
                rng.gen_range(1..=4),
            )
        };
        for _ in 0..rounds {
            text = mutate(&text, &mut rng);
        }
        match parse_scene(&text) {
            Ok(scene) => {
                check_invariants(&scene, &text);
                accepted += 1;
            }
            Err(e) => {
                let line = e.to_string();
                assert!(!line.contains(['\n', '\r']), "two lines: {line:?}\n{text}");
                assert!(
                    !e.key.is_empty() && !e.message.is_empty(),
                    "{line:?}\n{text}"
                );
                assert_eq!(line, format!("{}: {}", e.key, e.message));
                refused += 1;
            }
        }
    }
    // Both outcomes are exercised.
    assert!(
        accepted > 1_000 && refused > 10_000,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..5_000 {
        let len = rng.gen_range(0..200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                *b"[]{}=\"',.#\n 0123456789abcdefgnitkx-+e_"
                    .choose(&mut rng)
                    .unwrap()
            })
            .collect();
        let text = String::from_utf8(bytes).unwrap();
        if let Err(e) = parse_scene(&text) {
            assert!(!e.to_string().contains(['\n', '\r']), "{e}\n{text}");
        }
    }
}
