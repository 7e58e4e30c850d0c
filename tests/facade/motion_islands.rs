//! Islands integrated apart give the motion of the whole: the same
//! events, samples and end as one run of the whole scene, the closed forms
//! of their parts, and each island the very steps it takes alone.

use zwang::motion::{
    simulate, simulate_islands, ContactSample, Contacts, Event, EventKind, Observer, Outcome,
    Settings, Status,
};
use zwang::run::settings_of;
use zwang::scene::parse_scene;

const G: f64 = 9.81;
const MU: f64 = 0.3;

/// Blocks 0.2 m wide sliding on two rough corners at `speeds`, 3 m apart.
fn blocks(speeds: &[f64]) -> String {
    let mut s = String::new();
    for (b, v) in speeds.iter().enumerate() {
        s += &format!(
            "[[body]]\nname = \"b{b}\"\nkind = \"rigid\"\nmass = {m}\ninertia = {i}\n\
             position = [{x}, 0.1]\nvelocity = [{v}, 0.0]\n",
            m = 1.0 + b as f64,
            i = (1.0 + b as f64) * 0.08 / 12.0,
            x = 3.0 * b as f64,
        );
        for (c, dx) in [-0.1, 0.1].iter().enumerate() {
            s += &format!(
                "[[contact]]\nname = \"b{b}c{c}\"\nbody = \"b{b}\"\npoint = [{dx}, -0.1]\n\
                 surface = {{ kind = \"line\", point = [0.0, 0.0], normal = [0.0, 1.0] }}\n\
                 friction = {MU}\n"
            );
        }
    }
    s
}

/// Sliding blocks, a bouncing ball, a pendulum, and two particles on a
/// spring: five kinds of island.
fn mixed() -> String {
    format!(
        r#"[scene]
name = "mixed"
dimension = 2
gravity = [0.0, -{G}]
duration = 0.8
output_every = 0.01

[solver]
tolerance = 1e-10

{blocks}
[[body]]
name = "ball"
kind = "particle"
mass = 0.5
position = [-5.0, 1.0]

[[contact]]
name = "ball_floor"
body = "ball"
point = [0.0, 0.0]
surface = {{ kind = "line", point = [0.0, 0.0], normal = [0.0, 1.0] }}
restitution = 0.5

[[body]]
name = "bob"
kind = "particle"
mass = 2.0
position = [-10.0, -1.0]
velocity = [1.0, 0.0]

[[joint]]
kind = "distance"
bodies = ["ground", "bob"]
anchors = [[-10.0, 0.0], [0.0, 0.0]]
length = 1.0

[[body]]
name = "p"
kind = "particle"
mass = 1.0
position = [-20.0, 5.0]
velocity = [0.0, 1.0]

[[body]]
name = "r"
kind = "particle"
mass = 3.0
position = [-21.5, 5.0]

[[force]]
kind = "spring"
bodies = ["p", "r"]
anchors = [[0.0, 0.0], [0.0, 0.0]]
stiffness = 50.0
rest_length = 1.0
"#,
        blocks = blocks(&[1.0, 1.3, 1.6, 2.5]),
    )
}

/// Everything a run gives its observer.
#[derive(Default)]
struct Recorder {
    samples: Vec<(f64, Vec<f64>, Vec<ContactSample>)>,
    events: Vec<(Event, Vec<ContactSample>)>,
}

impl Observer for Recorder {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        self.samples.push((t, [q, v].concat(), contacts.to_vec()));
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        self.events.push((event.clone(), contacts.to_vec()));
    }
}

/// The scene run whole and island by island.
fn both(text: &str) -> ((Outcome, Recorder), (Outcome, Recorder), usize) {
    let scene = parse_scene(text).expect("scene");
    let model = scene.model().expect("model");
    let islands = model.islands().expect("islands");
    let settings = settings_of(&scene);
    let mut whole = Recorder::default();
    let a = simulate(&model, scene.duration, &settings, &mut whole);
    let mut apart = Recorder::default();
    let b = simulate_islands(&model, &islands, scene.duration, &settings, &mut apart);
    ((a, whole), (b, apart), islands.len())
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn islands_give_the_whole_runs_events_samples_and_end() {
    let ((a, whole), (b, apart), count) = both(&mixed());
    assert_eq!(
        count, 7,
        "4 blocks, the ball, the pendulum, the spring pair"
    );
    assert_eq!((a.status, b.status), (Status::Finished, Status::Finished));
    assert_eq!(a.time, b.time);
    // The same events in the same order, the whole's state at each.
    let kinds = |o: &Outcome| -> Vec<(EventKind, usize)> {
        o.events.iter().map(|e| (e.kind, e.contact)).collect()
    };
    assert_eq!(kinds(&a), kinds(&b));
    // Three blocks stop (two corners each, the fourth still slides), the
    // ball lands once (it bounces back up for 0.45 s).
    assert_eq!(a.events.len(), 7);
    assert_eq!(whole.events.len(), apart.events.len());
    for ((x, cx), (y, cy)) in whole.events.iter().zip(&apart.events) {
        assert!((x.time - y.time).abs() < 1e-9, "{} vs {}", x.time, y.time);
        assert!(max_diff(&x.q, &y.q) < 1e-7, "q at {:?}", x.kind);
        assert!(max_diff(&x.v, &y.v) < 1e-7, "v at {:?}", x.kind);
        for (p, r) in cx.iter().zip(cy) {
            assert_eq!(p.mode, r.mode);
            assert!((p.normal_force - r.normal_force).abs() < 1e-6);
            assert!((p.friction_force - r.friction_force).abs() < 1e-6);
        }
    }
    // The same samples at the same times.
    assert_eq!(whole.samples.len(), apart.samples.len());
    assert_eq!(whole.samples.len(), 81);
    for ((ta, ya, ca), (tb, yb, cb)) in whole.samples.iter().zip(&apart.samples) {
        assert_eq!(ta, tb);
        assert!(max_diff(ya, yb) < 1e-7, "sample at {ta}");
        let modes = |c: &[ContactSample]| c.iter().map(|c| c.mode).collect::<Vec<_>>();
        assert_eq!(modes(ca), modes(cb), "modes at {ta}");
    }
    assert!(max_diff(&a.q, &b.q) < 1e-7 && max_diff(&a.v, &b.v) < 1e-7);
    assert_eq!(a.modes, b.modes);
    assert!((a.energy_initial - b.energy_initial).abs() < 1e-9 * a.energy_initial.abs());
    assert!((a.energy_final - b.energy_final).abs() < 1e-6);
    assert_eq!(a.start_projection, b.start_projection);
}

#[test]
fn each_block_stops_at_its_closed_form_time_and_place() {
    // A block sliding at v on two corners with mu: friction mu m g
    // decelerates it at mu g (the corners' normal forces change, their sum
    // does not); it stops at v / (mu g), v^2 / (2 mu g) further on.
    let speeds = [1.0, 1.3, 1.6, 2.5];
    let ((_, _), (b, apart), _) = both(&mixed());
    for (i, v) in speeds.iter().enumerate() {
        let stops: Vec<&Event> = (apart.events.iter())
            .map(|(e, _)| e)
            .filter(|e| e.kind == EventKind::Stick && e.contact / 2 == i && e.contact < 8)
            .collect();
        let t_stop = v / (MU * G);
        if t_stop < 0.8 {
            assert_eq!(stops.len(), 2, "block {i}: both corners stick");
            for e in stops {
                assert!((e.time - t_stop).abs() < 1e-9, "block {i}: {}", e.time);
                let x = e.q[3 * i];
                let expected = 3.0 * i as f64 + v * v / (2.0 * MU * G);
                assert!(
                    (x - expected).abs() < 1e-9,
                    "block {i}: x {x} vs {expected}"
                );
                assert!(e.v[3 * i].abs() < 1e-9);
            }
        } else {
            assert!(stops.is_empty(), "block {i} is still sliding");
            let x = b.q[3 * i];
            let expected = 3.0 * i as f64 + v * 0.8 - 0.5 * MU * G * 0.8 * 0.8;
            assert!(
                (x - expected).abs() < 1e-9,
                "block {i}: x {x} vs {expected}"
            );
        }
    }
    // The ball falls 1 m: its first impact at sqrt(2 h / g).
    let first = (apart.events.iter())
        .map(|(e, _)| e)
        .find(|e| e.kind == EventKind::Impact)
        .expect("the ball lands");
    assert!((first.time - (2.0 / G).sqrt()).abs() < 1e-9);
}

#[test]
fn an_island_takes_the_steps_it_takes_alone() {
    // The point of integrating apart: no island pays for another's events.
    // (Observers that want samples, so that every run has the method's
    // dense output, as islands of a whole with contacts do.)
    let scene = parse_scene(&mixed()).expect("scene");
    let model = scene.model().expect("model");
    let islands = model.islands().expect("islands");
    let settings = settings_of(&scene);
    let together = simulate_islands(
        &model,
        &islands,
        scene.duration,
        &settings,
        &mut Recorder::default(),
    );
    let mut alone = (0, 0, 0);
    for island in &islands {
        let o = simulate(
            &island.model,
            scene.duration,
            &settings,
            &mut Recorder::default(),
        );
        alone.0 += o.steps;
        alone.1 += o.stats.evaluations;
        alone.2 += o.events.len();
    }
    let s = &together.stats;
    assert_eq!(
        (together.steps, s.evaluations, together.events.len()),
        alone
    );
}

#[test]
fn blocks_stop_on_time_at_every_tolerance_and_a_long_rest_costs_a_few_steps() {
    // 40 blocks, 1 to 2.17 m/s: each stops at v / (mu g) whatever the
    // tolerance; resting on for 1e4 s costs each a few steps more.
    let speeds: Vec<f64> = (0..40).map(|b| 1.0 + 0.03 * b as f64).collect();
    for (tolerance, duration) in [(1e-6, 1.0), (1e-9, 1.0), (1e-12, 1.0), (1e-9, 1e4)] {
        let text = format!(
            "[scene]\ndimension = 2\nduration = {duration}\n\
             [solver]\ntolerance = {tolerance}\n{}",
            blocks(&speeds)
        );
        let scene = parse_scene(&text).expect("scene");
        let model = scene.model().expect("model");
        let islands = model.islands().expect("islands");
        let settings = settings_of(&scene);
        let o = simulate_islands(
            &model,
            &islands,
            duration,
            &settings,
            &mut zwang::motion::NoObserver,
        );
        assert_eq!(o.status, Status::Finished, "{tolerance:e}: {:?}", o.reason);
        let stops = speeds.iter().filter(|v| *v / (MU * G) < duration).count();
        assert_eq!(o.events.len(), 2 * stops, "{tolerance:e}");
        for e in &o.events {
            assert_eq!(e.kind, EventKind::Stick);
            let v = speeds[e.contact / 2];
            assert!(
                (e.time - v / (MU * G)).abs() < 1e-9,
                "{tolerance:e}: {}",
                e.time
            );
        }
        assert!(
            o.steps <= 12 * speeds.len(),
            "{tolerance:e}, {duration} s: {} steps",
            o.steps
        );
    }
}

#[test]
fn a_painleve_stop_in_one_island_ends_the_run_there_for_all() {
    // Painleve's rod beside a sliding block: the rod's contact problem
    // loses its answer at t = 0.0291 s; the run stops there, the block at
    // its closed-form place at that time.
    let rod = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scenes/rod_painleve.toml"
    ))
    .expect("the example scene");
    let text = format!("{rod}\n{}", blocks(&[2.0]));
    let ((a, whole), (b, apart), count) = both(&text);
    assert_eq!(count, 2);
    assert_eq!((a.status, b.status), (Status::Painleve, Status::Painleve));
    assert!((a.time - b.time).abs() < 1e-9, "{} vs {}", a.time, b.time);
    assert!((b.time - 0.0291).abs() < 1e-3, "{}", b.time);
    let last = b.events.last().expect("the stop");
    assert_eq!(last.kind, EventKind::PainleveInconsistent);
    assert_eq!(last.contact, 0);
    let x = b.q[3];
    let expected = 2.0 * b.time - 0.5 * MU * G * b.time * b.time;
    assert!(
        (x - expected).abs() < 1e-9,
        "block at {x}, expected {expected}"
    );
    assert!((last.q[3] - expected).abs() < 1e-9);
    assert_eq!(whole.samples.len(), apart.samples.len());
    assert!(max_diff(&a.q, &b.q) < 1e-6);
}

#[test]
fn an_island_that_cannot_start_fails_the_run_at_the_start() {
    let text = format!(
        "[scene]\ndimension = 2\nduration = 1.0\n{}\n\
         [[body]]\nname = \"sunk\"\nkind = \"particle\"\nmass = 1.0\nposition = [-4.0, -0.5]\n\
         [[contact]]\nname = \"sunk_floor\"\nbody = \"sunk\"\n\
         point = [0.0, 0.0]\nsurface = {{ kind = \"line\", point = [0.0, 0.0], normal = [0.0, 1.0] }}\n",
        blocks(&[1.0])
    );
    let ((a, _), (b, _), count) = both(&text);
    assert_eq!(count, 2);
    assert_eq!((a.status, b.status), (Status::Failed, Status::Failed));
    assert_eq!(a.reason, b.reason);
    assert!(b.reason.as_deref().unwrap_or("").contains("sunk_floor"));
    assert_eq!(b.time, 0.0);
}

#[test]
fn islands_that_do_not_fit_the_whole_run_it_whole() {
    let scene = parse_scene(&mixed()).expect("scene");
    let model = scene.model().expect("model");
    let mut islands = model.islands().expect("islands");
    islands.pop();
    let settings = Settings {
        max_steps: 100_000,
        ..settings_of(&scene)
    };
    let o = simulate_islands(
        &model,
        &islands,
        0.1,
        &settings,
        &mut zwang::motion::NoObserver,
    );
    let whole = simulate(&model, 0.1, &settings, &mut zwang::motion::NoObserver);
    assert_eq!(o.status, Status::Finished);
    assert_eq!(o.q, whole.q);
    assert_eq!(o.steps, whole.steps);
}

/// A shipped scene's bodies, contacts and joints (its `[scene]` table
/// dropped, contact names made its own).
fn shipped(name: &str) -> String {
    let path = format!("{}/examples/scenes/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("the example scene");
    let body = text
        .split("[[body]]")
        .skip(1)
        .collect::<Vec<_>>()
        .join("[[body]]");
    format!(
        "[[body]]{}",
        body.replace("name = \"floor\"", &format!("name = \"{name}_floor\""))
    )
}

#[test]
fn shipped_scenes_side_by_side_run_as_they_run_alone() {
    // Lift-off and a landing (the ladder), rocking to rest on a sticking
    // corner, a Zeno sequence of bounces ending in rest, twelve redundant
    // rough points under one plate, a stick on an incline, a rod landing
    // and sticking: each island's events are exactly those of its scene
    // run alone, and the whole run agrees with them.
    let names = [
        "ladder",
        "rocking_block",
        "bouncing_ball",
        "plate_on_twelve_points",
        "incline_stick",
        "rod_coulomb",
    ];
    for tolerance in [1e-7, 1e-10] {
        let header = format!(
            "[scene]\ndimension = 2\ngravity = [0.0, -9.81]\nduration = 1.5\n\
             output_every = 0.01\n[solver]\ntolerance = {tolerance}\n"
        );
        let all = header.clone() + &names.map(shipped).join("\n");
        let ((whole, _), (apart, _), count) = both(&all);
        assert_eq!(count, names.len());
        assert_eq!(apart.status, Status::Finished, "{:?}", apart.reason);
        assert_eq!(whole.status, Status::Finished, "{:?}", whole.reason);
        let mut first_contact = 0;
        let mut kinds = 0;
        for name in names {
            let alone = parse_scene(&(header.clone() + &shipped(name))).expect("scene");
            let model = alone.model().expect("model");
            let o = simulate(
                &model,
                1.5,
                &settings_of(&alone),
                &mut zwang::motion::NoObserver,
            );
            let n = model.contacts();
            let mine: Vec<&Event> = (apart.events.iter())
                .filter(|e| (first_contact..first_contact + n).contains(&e.contact))
                .collect();
            assert_eq!(mine.len(), o.events.len(), "{name} at {tolerance:e}");
            for (a, b) in mine.iter().zip(&o.events) {
                assert_eq!(
                    (a.kind, a.contact - first_contact),
                    (b.kind, b.contact),
                    "{name}"
                );
                assert_eq!(a.time, b.time, "{name} at {tolerance:e}");
            }
            let mut seen: Vec<EventKind> = o.events.iter().map(|e| e.kind).collect();
            seen.sort_by_key(|k| k.as_str());
            seen.dedup();
            kinds += seen.len();
            first_contact += n;
        }
        assert!(kinds >= 6, "impacts, lift-offs, sticks and rests: {kinds}");
        assert!((whole.energy_final - apart.energy_final).abs() < 1e-4 * whole.energy_initial);
        assert!(max_diff(&whole.q, &apart.q) < 1e-4, "{tolerance:e}");
    }
}
