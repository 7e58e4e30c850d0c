//! The contact-rich scenes of `examples/scenes/contact/`, run by the time
//! stepper, each checked against a closed form or a physical law computed
//! here from the scene's own numbers: a box held exactly at the edge of the
//! friction cone (and sliding just below it), a pyramid and a stack of
//! alternating masses that stand still, a thrown disk that ends rolling at
//! two thirds of its speed, Newton's cradle's first ball sent back and
//! its row on together (Moreau's law at a simultaneous elastic impact),
//! boxes settling in a bin without gaining energy, and the rod of Yao and Gao
//! converging to its event-driven run at first order in the time step.

use crate::motion_support;

use motion_support::{run, samples, scene, scene_path, Run};
use zwang::model::planar::{PlanarModel, Shape};
use zwang::motion::Status;
use zwang::scene::{Scene, Stepping};

/// The scenes of `examples/scenes/contact/`, each with a test below.
const SCENES: [&str; 7] = [
    "box_cone_edge",
    "boxes_into_bin",
    "disk_thrown",
    "mass_ratio_stack",
    "newtons_cradle",
    "pyramid",
    "rod_timestep",
];

/// The contact scene `NAME`, parsed.
fn contact_scene(name: &str) -> Scene {
    scene(&format!("contact/{name}"))
}

/// A body's state `[x, y, angle, vx, vy, omega]` in `q`, `v`.
fn state_of(model: &PlanarModel, q: &[f64], v: &[f64], name: &str) -> [f64; 6] {
    let b = body_index(model, name);
    let o = model.offset(b);
    [q[o], q[o + 1], q[o + 2], v[o], v[o + 1], v[o + 2]]
}

/// The index of the moving body `name`.
fn body_index(model: &PlanarModel, name: &str) -> usize {
    model
        .body_list()
        .iter()
        .position(|b| b.name == name)
        .unwrap_or_else(|| panic!("no body {name}"))
}

/// A body's final state.
fn final_of(r: &Run, name: &str) -> [f64; 6] {
    state_of(&r.model, &r.outcome.q, &r.outcome.v, name)
}

/// The largest speed of any point of any body over the samples (the
/// centre's speed plus `|omega|` times the body's reach `reach`).
fn max_speed(r: &Run, reach: f64) -> f64 {
    samples(&r.rows)
        .flat_map(|row| {
            r.model.body_list().iter().enumerate().map(move |(b, _)| {
                let o = r.model.offset(b);
                row.v[o].hypot(row.v[o + 1]) + reach * row.v[o + 2].abs()
            })
        })
        .fold(0.0, f64::max)
}

/// The half extents of a box shape.
fn half_extents(shape: &Option<Shape>) -> [f64; 2] {
    match shape {
        Some(Shape::Box { half_extents }) => *half_extents,
        other => panic!("not a box: {other:?}"),
    }
}

/// Runs a contact scene, checks it finished and ran by time steps, and
/// prints its summary.
fn run_finished(name: &str, s: &Scene) -> Run {
    assert_eq!(s.solver.stepping, Stepping::TimeStep, "{name}");
    let r = run(s);
    let o = &r.outcome;
    assert_eq!(o.status, Status::Finished, "{name}: {:?}", o.reason);
    assert_eq!(o.time, s.duration, "{name}");
    println!(
        "{name}: {} steps in {:.3} s, max penetration {:.1e} m, energy {:.12} -> {:.12} J",
        o.steps,
        r.wall.as_secs_f64(),
        o.max_penetration,
        o.energy_initial,
        o.energy_final
    );
    r
}

#[test]
fn the_list_is_every_contact_scene() {
    // Every file of the folder is listed (so has a test), every listed
    // scene is a file named as the scene.
    let dir = scene_path("contact/x").with_file_name("");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let stem = file.strip_suffix(".toml").unwrap_or(&file);
        assert!(SCENES.contains(&stem), "{file} has no test");
    }
    for name in SCENES {
        let s = contact_scene(name);
        assert_eq!(s.name.as_deref(), Some(name), "{name}: the scene's name");
    }
}

/// The incline's angle, the pair's friction coefficient and gravity of
/// the box on the incline.
fn incline(s: &Scene) -> (f64, f64, f64) {
    let (fixed, body) = (&s.fixed[0], &s.bodies[0]);
    let Some(Shape::HalfPlane { normal }) = fixed.shape else {
        panic!("the incline is a half-plane: {:?}", fixed.shape)
    };
    let alpha = (-normal[0]).atan2(normal[1]);
    assert!(
        (body.angle - alpha).abs() < 1e-15,
        "the box turned as the incline"
    );
    let mu = (body.friction * fixed.friction).sqrt();
    let g = s.gravity[0].hypot(s.gravity[1]);
    (alpha, mu, g)
}

#[test]
fn a_box_at_the_edge_of_the_cone_stays_exactly() {
    let s = contact_scene("box_cone_edge");
    let (alpha, mu, _) = incline(&s);
    // One percent above the cone's edge: tan alpha < mu < 1.02 tan alpha.
    let margin = mu / alpha.tan();
    assert!((1.0..1.02).contains(&margin), "mu / tan a = {margin}");
    let r = run_finished("box_cone_edge", &s);
    let [x, y, angle, ..] = final_of(&r, "box");
    let b = &s.bodies[0];
    let moved = (x - b.position[0]).hypot(y - b.position[1]);
    let turned = (angle - b.angle).abs();
    // The box's reach (its half diagonal) makes a turn a displacement.
    let [hx, hy] = half_extents(&b.shape);
    let reach = hx.hypot(hy);
    let speed = max_speed(&r, reach);
    println!(
        "box_cone_edge: moved {moved:.1e} m, turned {turned:.1e} rad, max speed {speed:.1e} m/s"
    );
    assert!(
        moved + reach * turned < 1e-8,
        "moved {moved:e} m, turned {turned:e}"
    );
    assert!(speed < 1e-9, "max speed {speed:e} m/s");
    assert!(
        r.outcome.max_penetration < 1e-9,
        "{:e}",
        r.outcome.max_penetration
    );
}

#[test]
fn a_box_below_the_edge_of_the_cone_slides_at_the_closed_form() {
    // The same box with mu = 0.99 tan alpha slides down the slope at
    // a = g (sin alpha - mu cos alpha). The velocity-level step gives the
    // exact speed a t at each step's end, and the distance
    // a t (t + h) / 2 (the semi-implicit Euler sum h^2 a n (n + 1) / 2).
    let mut s = contact_scene("box_cone_edge");
    s.duration = 1.0;
    let (alpha, _, g) = incline(&s);
    let mu = 0.99 * alpha.tan();
    s.fixed[0].friction = mu;
    s.bodies[0].friction = mu;
    let r = run_finished("box_cone_edge at mu = 0.99 tan a", &s);
    let a = g * (alpha.sin() - mu * alpha.cos());
    let (t, h) = (s.duration, s.solver.time_step);
    let [x, y, angle, vx, vy, omega] = final_of(&r, "box");
    let b = &s.bodies[0];
    let down = [-alpha.cos(), -alpha.sin()];
    let along = (x - b.position[0]) * down[0] + (y - b.position[1]) * down[1];
    let speed = vx * down[0] + vy * down[1];
    println!(
        "box below the cone: speed {speed:.15} (a t = {:.15}), distance {along:.15} (a t (t + h) / 2 = {:.15})",
        a * t,
        a * t * (t + h) / 2.0
    );
    assert!(
        (speed - a * t).abs() < 1e-9 * a * t,
        "speed {speed} vs {}",
        a * t
    );
    assert!(
        (along - a * t * (t + h) / 2.0).abs() < 1e-9,
        "distance {along} vs {}",
        a * t * (t + h) / 2.0
    );
    assert!((angle - b.angle).abs() < 1e-9 && omega.abs() < 1e-9);
}

/// Every box of a stack ends where it starts (its rest position: the
/// scenes start at rest, exactly touching), to `tol`; returns the largest
/// lateral and vertical drifts.
fn assert_stands(r: &Run, s: &Scene, tol: f64) -> (f64, f64) {
    let (mut lateral, mut vertical) = (0.0f64, 0.0f64);
    for b in &s.bodies {
        let [x, y, angle, vx, vy, omega] = final_of(r, &b.name);
        lateral = lateral.max((x - b.position[0]).abs());
        vertical = vertical.max((y - b.position[1]).abs());
        assert!(
            (x - b.position[0]).abs() < tol && (y - b.position[1]).abs() < tol,
            "{}: at ({x}, {y}), started at {:?}",
            b.name,
            b.position
        );
        assert!((angle - b.angle).abs() < tol, "{}: angle {angle}", b.name);
        assert!(vx.hypot(vy) + omega.abs() < tol, "{}: moving", b.name);
    }
    (lateral, vertical)
}

#[test]
fn a_pyramid_of_boxes_stands_still() {
    let s = contact_scene("pyramid");
    // The start is the rest position: every box rests on the floor or on
    // two boxes of the row below, touching its neighbours side by side.
    let floor = 0.0;
    for b in &s.bodies {
        let [hx, hy] = half_extents(&b.shape);
        let row = ((b.position[1] - floor - hy) / (2.0 * hy)).round();
        assert!((b.position[1] - (floor + hy + 2.0 * hy * row)).abs() < 1e-15);
        // Rows alternate between whole and half box offsets.
        let shift = (b.position[0] / (2.0 * hx) - 0.5 * (row + 1.0)).rem_euclid(1.0);
        assert!(shift.min(1.0 - shift) < 1e-12, "{}: offset", b.name);
    }
    let r = run_finished("pyramid", &s);
    let (lateral, vertical) = assert_stands(&r, &s, 1e-6);
    let top = &s.bodies[body_index(&r.model, "top")];
    let [x, y, ..] = final_of(&r, "top");
    let drift = (x - top.position[0]).hypot(y - top.position[1]);
    let pen = r.outcome.max_penetration;
    println!(
        "pyramid: top drift {drift:.1e} m, lateral {lateral:.1e} m, vertical {vertical:.1e} m, penetration {pen:.1e} m"
    );
    assert!(drift < 1e-6, "top drift {drift:e}");
    assert!(pen < 1e-6, "max penetration {pen:e}");
}

#[test]
fn a_stack_of_alternating_masses_stands_still() {
    let s = contact_scene("mass_ratio_stack");
    // Masses alternate, light at the bottom, a ratio of 100; the rest
    // heights are the floor plus the heights of the boxes below.
    let mut rest = 0.0;
    for (k, b) in s.bodies.iter().enumerate() {
        let ratio = if k % 2 == 0 { 1.0 } else { 100.0 };
        assert_eq!(b.mass, ratio * s.bodies[0].mass, "{}", b.name);
        let [_, hy] = half_extents(&b.shape);
        rest += hy;
        assert!(
            (b.position[1] - rest).abs() < 1e-15,
            "{}: not at rest",
            b.name
        );
        rest += hy;
    }
    let r = run_finished("mass_ratio_stack", &s);
    let (lateral, vertical) = assert_stands(&r, &s, 1e-6);
    println!("mass_ratio_stack: lateral drift {lateral:.1e} m, height error {vertical:.1e} m");
}

#[test]
fn a_thrown_disk_ends_rolling_at_two_thirds_of_its_speed() {
    let s = contact_scene("disk_thrown");
    let (floor, disk) = (&s.fixed[0], &s.bodies[0]);
    let Some(Shape::Circle { radius }) = disk.shape else {
        panic!("a disk")
    };
    let mu = (floor.friction * disk.friction).sqrt();
    let g = -s.gravity[1];
    let v0 = disk.velocity[0];
    assert_eq!(disk.angular_velocity, 0.0, "thrown without spin");
    assert!((disk.inertia - disk.mass * radius * radius / 2.0).abs() < 1e-15);
    // Sliding: v = v0 - mu g t, omega = -2 mu g t / r, until
    // v = -omega r at t1 = v0 / (3 mu g); then rolling at 2 v0 / 3.
    let t1 = v0 / (3.0 * mu * g);
    assert!(t1 < 0.5 * s.duration, "it rolls well before the end");
    let r = run_finished("disk_thrown", &s);
    let h = s.solver.time_step;
    // The sampled velocities follow the sliding law to a step's change.
    let o = r.model.offset(0);
    for row in samples(&r.rows).filter(|row| row.t < t1 - 2.0 * h) {
        let (v, w) = (v0 - mu * g * row.t, -2.0 * mu * g * row.t / radius);
        assert!(
            (row.v[o] - v).abs() <= 1.01 * mu * g * h,
            "t = {}: v",
            row.t
        );
        assert!(
            (row.v[o + 2] - w).abs() <= 1.01 * 2.0 * mu * g * h / radius,
            "t = {}: omega",
            row.t
        );
    }
    let [x, y, _, vx, vy, omega] = final_of(&r, "disk");
    let v1 = 2.0 * v0 / 3.0;
    // Where it ends: slid to t1, then rolled (first order in h).
    let x1 = disk.position[0] + v0 * t1 - mu * g * t1 * t1 / 2.0 + v1 * (s.duration - t1);
    println!(
        "disk_thrown: vx - 2 v0 / 3 = {:.1e} m/s, vx + omega r = {:.1e} m/s, x - closed form = {:.1e} m",
        vx - v1,
        vx + omega * radius,
        x - x1
    );
    assert!((vx - v1).abs() < 1e-9, "vx = {vx}, 2 v0 / 3 = {v1}");
    assert!(
        (vx + omega * radius).abs() < 1e-9,
        "rolling: vx {vx}, omega {omega}"
    );
    assert!(vy.abs() < 1e-9 && (y - disk.position[1]).abs() < 1e-9);
    assert!((x - x1).abs() < v0 * h, "x = {x}, closed form {x1}");
}

#[test]
fn newtons_cradle_sends_the_first_ball_back_and_the_row_on_as_moreaus_law_says() {
    // Moreau's impact law solves the touching balls' contacts together:
    // the first ball meets the row of four as one rigid block of mass
    // `M = 4 m` (the inner contacts, closed, have u_N- = 0 and so u_N+ >=
    // 0), and with e = 1 the impact is elastic: the first ball goes back
    // at (m - M) / (m + M) v = -0.6 v and the row on together at 2 m / (m
    // + M) v = 0.4 v, not the sequential ideal (the last ball at v, the
    // others at rest: the scene's comment). A plastic impact (all at v /
    // 5) or the ideal fails it. Momentum is kept to round-off; so is the
    // kinetic energy, which an elastic impact of one ball on a block
    // keeps exactly (0.18 + 0.32 J of 0.5).
    let s = contact_scene("newtons_cradle");
    assert_eq!(s.gravity, [0.0, 0.0]);
    let radius = |b: &zwang::scene::Body| match b.shape {
        Some(Shape::Circle { radius }) => radius,
        ref other => panic!("not a ball: {other:?}"),
    };
    let (first, row) = s.bodies.split_first().unwrap();
    assert_eq!(row.len(), 4);
    assert!(s
        .bodies
        .iter()
        .all(|b| b.restitution == 1.0 && b.friction == 0.0));
    // The row touches, at rest; the first comes along the line.
    for pair in row.windows(2) {
        let gap = pair[1].position[0] - pair[0].position[0] - radius(&pair[0]) - radius(&pair[1]);
        assert!(gap.abs() < 1e-15 && pair[1].position[1] == pair[0].position[1]);
    }
    assert!(row.iter().all(|b| b.velocity == [0.0, 0.0]));
    let v = first.velocity[0];
    assert!(v > 0.0 && first.velocity[1] == 0.0);
    let (m, big) = (first.mass, row.iter().map(|b| b.mass).sum::<f64>());
    let (back, on) = ((m - big) / (m + big) * v, 2.0 * m / (m + big) * v);
    // The impact, at the time the gap closes.
    let gap = row[0].position[0] - first.position[0] - radius(first) - radius(&row[0]);
    let t_impact = gap / v;
    assert!(t_impact > 0.0 && t_impact < s.duration);

    let p0: [f64; 2] = s.bodies.iter().fold([0.0; 2], |p, b| {
        [p[0] + b.mass * b.velocity[0], p[1] + b.mass * b.velocity[1]]
    });
    let e0: f64 = s
        .bodies
        .iter()
        .map(|b| 0.5 * b.mass * (b.velocity[0].powi(2) + b.velocity[1].powi(2)))
        .sum();
    let r = run_finished("newtons_cradle", &s);
    let momentum = |v: &[f64]| {
        r.model
            .body_list()
            .iter()
            .enumerate()
            .fold([0.0; 2], |p, (b, body)| {
                let o = r.model.offset(b);
                [p[0] + body.mass * v[o], p[1] + body.mass * v[o + 1]]
            })
    };
    let energy = |v: &[f64]| -> f64 {
        r.model
            .body_list()
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let o = r.model.offset(b);
                0.5 * body.mass * (v[o].powi(2) + v[o + 1].powi(2))
                    + 0.5 * body.inertia * v[o + 2].powi(2)
            })
            .sum()
    };
    let scale = p0[0].hypot(p0[1]);
    let mut worst = 0.0f64;
    for v in samples(&r.rows).map(|row| &row.v).chain([&r.outcome.v]) {
        let p = momentum(v);
        worst = worst.max((p[0] - p0[0]).hypot(p[1] - p0[1]) / scale);
        assert!(
            energy(v) <= e0 * (1.0 + 1e-12),
            "energy {} > {e0}",
            energy(v)
        );
    }
    let names: Vec<&str> = s.bodies.iter().map(|b| b.name.as_str()).collect();
    let finals: Vec<[f64; 6]> = names.iter().map(|n| final_of(&r, n)).collect();
    println!(
        "newtons_cradle: final velocities {:?} (closed form {back}, then {on}), momentum error \
         {worst:.1e} (relative), energy {e0} -> {}",
        finals.iter().map(|f| f[3]).collect::<Vec<_>>(),
        energy(&r.outcome.v)
    );
    assert!(worst < 1e-12, "momentum error {worst:e}");
    let e1 = energy(&r.outcome.v);
    assert!((e1 - e0).abs() <= 1e-12 * e0, "energy {e0} -> {e1}");
    // The velocities of the closed form, and the places they lead to from
    // the impact on, to a step's travel at the change of speed: Moreau's
    // law gives the speeds after the impact to the whole step that closes
    // the gap, so up to one step early.
    let h = s.solver.time_step;
    let after = s.duration - t_impact;
    for (i, (b, f)) in s.bodies.iter().zip(&finals).enumerate() {
        let (speed, x, change) = if i == 0 {
            (back, b.position[0] + v * t_impact + back * after, v - back)
        } else {
            (on, b.position[0] + on * after, on)
        };
        let [fx, fy, _, vx, vy, omega] = *f;
        assert!(
            (vx - speed).abs() < 1e-9 && vy.abs() < 1e-12 && omega.abs() < 1e-12,
            "{}: ({vx}, {vy}, {omega}) against ({speed}, 0, 0)",
            b.name
        );
        assert!(
            (fx - x).abs() <= change.abs() * h * (1.0 + 1e-9) && (fy - b.position[1]).abs() < 1e-12,
            "{}: x = {fx}, closed form {x}",
            b.name
        );
    }
}

#[test]
fn boxes_dropped_into_a_bin_settle_inside_without_gaining_energy() {
    let s = contact_scene("boxes_into_bin");
    assert!(s.bodies.iter().all(|b| b.restitution == 0.0));
    assert!(s.fixed.iter().all(|b| b.restitution == 0.0));
    // The inside of the bin: between the walls' inner faces, above the
    // floor's top face.
    let face = |name: &str, side: f64, axis: usize| {
        let f = s.fixed.iter().find(|f| f.name == name).unwrap();
        f.position[axis] + side * half_extents(&f.shape)[axis]
    };
    let (left, right, floor) = (
        face("left_wall", 1.0, 0),
        face("right_wall", -1.0, 0),
        face("bin_floor", 1.0, 1),
    );
    let r = run_finished("boxes_into_bin", &s);
    let e0 = r.outcome.energy_initial;
    let tol = 1e-12 * e0.abs();
    let (mut highest, mut rises) = (f64::NEG_INFINITY, 0.0f64);
    let mut last = e0;
    for row in samples(&r.rows) {
        highest = highest.max(row.energy);
        rises = rises.max(row.energy - last);
        last = row.energy;
    }
    println!(
        "boxes_into_bin: energy {e0} -> {}, highest sample {highest}, largest rise between samples {rises:.1e} J",
        r.outcome.energy_final
    );
    assert!(highest <= e0 + tol, "energy rose to {highest} from {e0}");
    assert!(r.outcome.energy_final <= e0);
    let pen = r.outcome.max_penetration;
    assert!(pen < 1e-4, "max penetration {pen:e}");
    let mut fastest = 0.0f64;
    for b in &s.bodies {
        let [x, y, angle, vx, vy, omega] = final_of(&r, &b.name);
        let [hx, hy] = half_extents(&b.shape);
        fastest = fastest.max(vx.hypot(vy) + hx.hypot(hy) * omega.abs());
        for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            let (cx, cy) = (sx * hx, sy * hy);
            let corner = [
                x + angle.cos() * cx - angle.sin() * cy,
                y + angle.sin() * cx + angle.cos() * cy,
            ];
            assert!(
                corner[0] > left - 1e-4 && corner[0] < right + 1e-4 && corner[1] > floor - 1e-4,
                "{}: a corner at {corner:?} is outside the bin",
                b.name
            );
        }
    }
    println!("boxes_into_bin: fastest point at the end {fastest:.1e} m/s, penetration {pen:.1e} m");
    assert!(fastest < 1e-6, "still moving at {fastest:e} m/s");
}

/// The largest difference of two states `(q, v)`.
fn state_difference(a: (&[f64], &[f64]), b: (&[f64], &[f64])) -> f64 {
    a.0.iter()
        .chain(a.1)
        .zip(b.0.iter().chain(b.1))
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// The sample of a run at time `t`.
fn sample_at(r: &Run, t: f64) -> (&[f64], &[f64]) {
    let row = samples(&r.rows)
        .find(|row| (row.t - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no sample at t = {t}"));
    (&row.q, &row.v)
}

#[test]
fn the_time_stepped_rod_converges_at_first_order_to_coulomb_impacts() {
    // rod_timestep is rod_coulomb's bodies and contacts under the time
    // stepper. Before the far end lands the two runs are the same motion,
    // and the time stepper's error there is first order in h. At the
    // landing both impacts have Coulomb friction, which takes mu times the
    // normal impulse off vx: the closed form below, built from the
    // event-driven state just before the landing, is where the
    // event-driven run ends (to its tolerance), and the time stepper's
    // final state converges to it at first order.
    let event = scene("rod_coulomb");
    let stepped = contact_scene("rod_timestep");
    assert_eq!(event.solver.stepping, Stepping::Event);
    assert_eq!(
        (
            &event.bodies,
            &event.contacts,
            event.gravity,
            event.duration
        ),
        (
            &stepped.bodies,
            &stepped.contacts,
            stepped.gravity,
            stepped.duration
        )
    );
    let reference = run(&event);
    assert_eq!(reference.outcome.status, Status::Finished);
    let landing = reference.outcome.events[0].time;
    // Just before the landing (1e-10 s: the state moves by ~2e-9).
    let mut before = event.clone();
    before.duration = landing - 1e-10;
    let before = run(&before);
    let [x, y, angle, vx, vy, omega] = final_of(&before, "rod");
    let rod = &event.bodies[0];
    let contacts = &event.contacts;
    let mu = contacts[0].friction;
    assert!(contacts.iter().all(|c| c.friction == mu));
    let g = -event.gravity[1];
    let half = 0.5; // the ends at (-1/2, 0) and (1/2, 0) of the rod's frame
    assert!(y.abs() < 1e-8 && angle.abs() < 1e-8, "the rod lands flat");
    // Both ends sliding forward through the impact (e = 0): the normal
    // impulses P_a + P_b = -m vy stop the fall and P_b - P_a = -I omega /
    // half the turn; the friction impulses mu (P_a + P_b) slow the slide;
    // then the flat rod slides to rest over vx+^2 / (2 mu g).
    let total = -rod.mass * vy;
    let turn = -rod.inertia * omega / half;
    let (p_a, p_b) = ((total - turn) / 2.0, (total + turn) / 2.0);
    assert!(p_a > 0.0 && p_b > 0.0, "both ends push: {p_a}, {p_b}");
    let vx_after = vx - mu * total / rod.mass;
    assert!(vx_after > 0.0, "both ends slide on after the impact");
    let x_end = x + vx_after * vx_after / (2.0 * mu * g);
    let end_of = |r: &Run| {
        let [x, y, angle, vx, vy, omega] = final_of(r, "rod");
        let err = [x - x_end, y, angle, vx, vy, omega]
            .iter()
            .fold(0.0f64, |m, e| m.max(e.abs()));
        (x, err)
    };
    let (x_event, event_end) = end_of(&reference);
    println!("rod_coulomb ends at x = {x_event:.12}, {event_end:.1e} from the closed form");
    assert!(event_end < 1e-8, "the event-driven rod: {event_end:e}");
    let mut errors = Vec::new();
    for h in [2e-3, 2e-4] {
        let mut s = stepped.clone();
        s.solver.time_step = h;
        let r = run_finished(&format!("rod_timestep at h = {h}"), &s);
        let early = state_difference(sample_at(&r, 0.2), sample_at(&reference, 0.2));
        let (x, end) = end_of(&r);
        println!(
            "rod_timestep at h = {h}: at t = 0.2 {early:.3e} from the event-driven run; ends at x = {x:.9}, {end:.3e} from the Coulomb impact's {x_end:.9}"
        );
        errors.push((early, end));
    }
    let (early, end) = (errors[0].0 / errors[1].0, errors[0].1 / errors[1].1);
    println!("rod_timestep: error ratios (h = 2e-3 over 2e-4): {early:.2} before the landing, {end:.2} at the end");
    assert!(
        (5.0..20.0).contains(&early),
        "before the landing: ratio {early}"
    );
    assert!((5.0..20.0).contains(&end), "at the end: ratio {end}");
    assert!(errors[1].1 < 1e-3, "{:e}", errors[1].1);
}
