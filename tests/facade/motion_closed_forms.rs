//! The simulator against answers known in closed form, or from a 1-dof
//! equation integrated here: the pendulum's period, a particle leaving a
//! circle, a ladder leaving its wall, a bouncing ball's series of impacts,
//! a box that sticks on an incline, and the energy of a double pendulum.
//! No expected value comes from zwang itself.

use crate::motion_support;

use motion_support::{rk4_until, run, run_model, samples, scene};
use std::f64::consts::PI;
use zwang::model::planar::{Body, BodyRef, Contact, Joint, JointKind, PlanarModel, Surface};
use zwang::motion::{Contacts, EventKind, Settings, Status};

const G: f64 = 9.81;

/// The arithmetic-geometric mean of `a` and `b`: it converges
/// quadratically, so 8 rounds reach double precision for any `b / a`
/// above 1e-10 (a loop on `|a - b| > 1e-16 a` may never end: the two can
/// settle one ulp apart).
fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..8 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    a
}

/// The complete elliptic integral of the first kind, `K(k) = pi / (2
/// agm(1, sqrt(1 - k^2)))`.
fn elliptic_k(k: f64) -> f64 {
    PI / (2.0 * agm(1.0, (1.0 - k * k).sqrt()))
}

/// A pendulum (a particle on a distance joint of length `l` to a pivot at
/// the origin) released from rest at `theta0`: after each quarter of the
/// exact period `4 sqrt(l/g) K(sin(theta0/2))` the bob is at the bottom
/// with the top speed, at the other end at rest, at the bottom again, and
/// back where it started, at rest. Returns the largest deviation.
fn check_pendulum(model: PlanarModel, l: f64, theta0: f64, settings: Settings) -> f64 {
    let period = 4.0 * (l / G).sqrt() * elliptic_k((theta0 / 2.0).sin());
    let (x0, y0) = (l * theta0.sin(), -l * theta0.cos());
    let top_speed = (2.0 * G * l * (1.0 - theta0.cos())).sqrt();
    let settings = Settings {
        output_every: period / 4.0,
        ..settings
    };
    let r = run_model(model, period, &settings);
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    assert!(r.outcome.events.is_empty());
    // [x, y, vx, vy] at T/4, T/2, 3T/4, T.
    let expected = [
        [0.0, -l, -top_speed, 0.0],
        [-x0, y0, 0.0, 0.0],
        [0.0, -l, top_speed, 0.0],
        [x0, y0, 0.0, 0.0],
    ];
    let rows: Vec<_> = samples(&r.rows).collect();
    assert_eq!(rows.len(), 5, "samples at 0, T/4, T/2, 3T/4, T");
    let mut worst = 0.0f64;
    for (k, (row, want)) in rows[1..].iter().zip(expected).enumerate() {
        assert!((row.t - (k + 1) as f64 * period / 4.0).abs() < 1e-12);
        let got = [row.q[0], row.q[1], row.v[0], row.v[1]];
        let d = motion_support::max_diff(&got, &want);
        assert!(
            d < 1e-7,
            "theta0 = {theta0}: at {}/4 of the period {period}: {got:?}, expected {want:?} \
             (off by {d:e})",
            k + 1
        );
        worst = worst.max(d);
    }
    worst
}

#[test]
fn pendulum_period_is_the_elliptic_integrals() {
    // Small amplitude, built here.
    let theta0: f64 = 0.05;
    let bob = Body::particle("bob", 1.0).at([theta0.sin(), -theta0.cos()]);
    let rod = Joint {
        kind: JointKind::Distance { length: 1.0 },
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0, 0.0], [0.0, 0.0]],
    };
    let model = PlanarModel::new([0.0, -G], vec![bob], vec![rod], vec![], vec![]).unwrap();
    let small = check_pendulum(model, 1.0, theta0, Settings::default());
    // The shipped scene: 0.3 rad, its period 1.14 % longer than 2 pi
    // sqrt(L/g).
    let s = scene("pendulum");
    let shipped = check_pendulum(s.model().unwrap(), 1.0, 0.3, zwang::run::settings_of(&s));
    println!(
        "pendulum: largest deviation over a period {small:.1e} (0.05 rad), {shipped:.1e} (0.3 rad)"
    );
}

/// A particle set on top of a frictionless circle (radius `R`) with speed
/// `v0` leaves it where `cos(phi) = (2 + v0^2 / (g R)) / 3` (phi from the
/// vertical); the time is `int_0^phi dphi / phi'`, from the 1-dof equation
/// `phi'' = (g / R) sin(phi)` integrated here.
#[test]
fn particle_leaves_a_smooth_circle_where_gravity_no_longer_holds_it() {
    let (radius, v0) = (1.0, 1.0);
    let ball = Body::particle("bead", 1.0)
        .at([0.0, radius])
        .moving([v0, 0.0]);
    let dome = Contact::new(
        "dome",
        0,
        [0.0, 0.0],
        Surface::Circle {
            center: [0.0, 0.0],
            radius,
        },
    );
    let model = PlanarModel::new([0.0, -G], vec![ball], vec![], vec![dome], vec![]).unwrap();
    let r = run_model(model, 1.0, &Settings::default());
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    let events = &r.outcome.events;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].kind, EventKind::LiftOff);

    let cos_expected = (2.0 + v0 * v0 / (G * radius)) / 3.0;
    let phi_expected = cos_expected.acos();
    // phi'' = (g/R) sin(phi), phi(0) = 0, phi'(0) = v0 / R.
    let f = |y: &[f64]| vec![y[1], G / radius * y[0].sin()];
    let event = |y: &[f64]| phi_expected - y[0];
    let (t_ref, _) = rk4_until(&f, &[0.0, v0 / radius], 1e-4, 2.0, &event).unwrap();
    let (t_half, _) = rk4_until(&f, &[0.0, v0 / radius], 5e-5, 2.0, &event).unwrap();
    assert!((t_ref - t_half).abs() < 1e-12, "the reference converged");

    let q = &events[0].q;
    let cos_phi = q[1] / q[0].hypot(q[1]);
    let dt = (events[0].time - t_ref).abs();
    println!(
        "circle: lift-off at cos(phi) = {cos_phi:.15} (expected {cos_expected:.15}), t = {:.12} \
         (reference {t_ref:.12}, off by {dt:.1e})",
        events[0].time
    );
    assert!((cos_phi - cos_expected).abs() < 1e-9);
    assert!(dt < 1e-9);
    // Leaving, it moves tangentially: its speed is v^2 = g R cos(phi).
    let speed2 = events[0].v[0].powi(2) + events[0].v[1].powi(2);
    assert!((speed2 - G * radius * cos_expected).abs() < 1e-8);
}

/// A uniform ladder released from rest between a frictionless wall and
/// floor leaves the wall when its top has fallen to 2/3 of its initial
/// height; until then its angle `a` (from the floor) follows
/// `a'' = -(3 g / (2 L)) cos(a)`, integrated here for the time.
#[test]
fn ladder_leaves_the_wall_at_two_thirds_of_its_height() {
    let s = scene("ladder");
    let (length, a0) = (2.0, 1.2f64);
    let r = run(&s);
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    let first = &r.outcome.events[0];
    assert_eq!(first.kind, EventKind::LiftOff);
    assert_eq!(r.model.contact_name(first.contact), "wall");
    // The top is the body point (L/2, 0).
    let (y, angle) = (first.q[1], first.q[2]);
    let top = y + length / 2.0 * angle.sin();
    let ratio = top / (length * a0.sin());

    let f = |y: &[f64]| vec![y[1], -1.5 * G / length * y[0].cos()];
    let target = (2.0 / 3.0 * a0.sin()).asin();
    let event = |y: &[f64]| y[0] - target;
    let (t_ref, _) = rk4_until(&f, &[a0, 0.0], 1e-4, 5.0, &event).unwrap();
    let (t_half, _) = rk4_until(&f, &[a0, 0.0], 5e-5, 5.0, &event).unwrap();
    assert!((t_ref - t_half).abs() < 1e-12);
    let dt = (first.time - t_ref).abs();
    println!(
        "ladder: leaves the wall at height ratio {ratio:.15}, t = {:.12} (reference {t_ref:.12}, \
         off by {dt:.1e})",
        first.time
    );
    assert!((ratio - 2.0 / 3.0).abs() < 1e-9, "height ratio {ratio}");
    assert!(dt < 1e-9);
    // The foot stayed on the floor; the top lands later.
    assert!(r.outcome.events[1..]
        .iter()
        .all(|e| r.model.contact_name(e.contact) == "top_floor"));
}

/// A ball dropped from `h` with restitution `e`: impacts at
/// `t1 = sqrt(2h/g)`, `t_{k+1} = t_k + 2 e^k v1 / g`, each keeping `e^2` of
/// the kinetic energy, until the bounce would leave slower than the rest
/// speed (1e-6 m/s): that impact is plastic, a rest, at most the remaining
/// series `2 e u / (g (1 - e))` (`u < 1e-6 / e` its approach speed)
/// before the accumulation time `t1 + 2 e v1 / (g (1 - e))`.
#[test]
fn bouncing_ball_impacts_follow_the_geometric_series_and_end_in_rest() {
    let s = scene("bouncing_ball");
    let (h, e, rest_speed) = (1.0, 0.5f64, Settings::default().rest_speed);
    let r = run(&s);
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    let events = &r.outcome.events;

    let v1 = (2.0 * G * h).sqrt();
    // The expected impacts: times and approach speeds until one would
    // bounce off slower than the rest speed.
    let mut times = vec![(2.0 * h / G).sqrt()];
    let mut approach = vec![v1];
    while e * approach.last().unwrap() >= rest_speed {
        let k = times.len() as i32;
        times.push(times.last().unwrap() + 2.0 * e.powi(k) * v1 / G);
        approach.push(e.powi(k) * v1);
    }
    let n = times.len();
    assert_eq!(events.len(), n, "{} impacts and a rest", n - 1);
    let mut worst_t = 0.0f64;
    let mut worst_ratio = 0.0f64;
    for (k, ev) in events.iter().enumerate() {
        let kind = if k + 1 == n {
            EventKind::Rest
        } else {
            EventKind::Impact
        };
        assert_eq!(ev.kind, kind, "event {k}");
        worst_t = worst_t.max((ev.time - times[k]).abs());
        // The speed after impact k (0-based) is e^(k+1) v1 (0 at rest).
        if k + 1 < n {
            assert!((ev.v[1] - e * approach[k]).abs() < 1e-9 * v1, "event {k}");
        }
        if k > 0 && approach[k] > 1e-3 {
            let ratio = (ev.v[1] / events[k - 1].v[1]).powi(2);
            worst_ratio = worst_ratio.max((ratio - e * e).abs());
        }
    }
    let t_inf = times[0] + 2.0 * e * v1 / (G * (1.0 - e));
    let t_rest = events[n - 1].time;
    let bound = 2.0 * e * approach[n - 1] / (G * (1.0 - e));
    println!(
        "bouncing ball: {} impacts, largest time error {worst_t:.1e} s, kinetic energy ratio off \
         e^2 by at most {worst_ratio:.1e}; rest at {t_rest:.12}, {:.3e} s before the \
         accumulation time {t_inf:.12} (bound {bound:.3e})",
        n - 1,
        t_inf - t_rest
    );
    assert!(worst_t < 1e-9);
    assert!(worst_ratio < 1e-9);
    assert!(t_rest <= t_inf + 1e-12 && t_inf - t_rest <= bound + 1e-9);
    assert!(t_inf - t_rest <= 2.0 * rest_speed / (G * (1.0 - e)) + 1e-9);
    // It stays on the floor, held by m g.
    assert!(r.outcome.q[1].abs() < 1e-9 && r.outcome.v[1].abs() < 1e-9);
    for row in samples(&r.rows).filter(|row| row.t > t_rest) {
        assert!(row.q[1].abs() < 1e-9, "t = {}: y = {}", row.t, row.q[1]);
        assert!((row.contacts[0].normal_force - G).abs() < 1e-9);
    }
}

/// A box on two corners on an incline (alpha = 0.3, mu = 0.5 > tan alpha)
/// pushed at `v0` down, or up, the slope: it slides with friction `mu N`
/// against its motion, stops at `v0 / (g (mu cos a -+ sin a))` and then
/// sticks for good, its corners' friction adding up to `m g sin a` up the
/// slope.
#[test]
fn box_on_an_incline_sticks_when_it_stops() {
    let (a, mu, v0, m) = (0.3f64, 0.5, 1.0, 1.0);
    for down in [true, false] {
        let mut s = scene("incline_stick");
        if !down {
            s.bodies[0].velocity = [v0 * a.cos(), v0 * a.sin()];
        }
        let decel = if down {
            G * (mu * a.cos() - a.sin())
        } else {
            G * (mu * a.cos() + a.sin())
        };
        let t_stick = v0 / decel;
        let r = run(&s);
        let case = if down { "down" } else { "up" };
        assert_eq!(
            r.outcome.status,
            Status::Finished,
            "{case}: {:?}",
            r.outcome.reason
        );
        let events = &r.outcome.events;
        assert_eq!(events.len(), 2, "{case}: both corners stick: {events:?}");
        let mut worst_t = 0.0f64;
        for ev in events {
            assert_eq!(ev.kind, EventKind::Stick, "{case}");
            worst_t = worst_t.max((ev.time - t_stick).abs());
        }
        assert!(
            worst_t < 1e-9,
            "{case}: stick at {:?}, expected {t_stick}",
            events
        );
        // Where it stops: v0^2 / (2 decel) along the slope.
        let slope = [a.cos(), a.sin()];
        let travel = (r.outcome.q[0] - s.bodies[0].position[0]) * slope[0]
            + (r.outcome.q[1] - s.bodies[0].position[1]) * slope[1];
        let expected_travel = if down { -1.0 } else { 1.0 } * v0 * v0 / (2.0 * decel);
        assert!(
            (travel - expected_travel).abs() < 1e-9,
            "{case}: travel {travel}"
        );
        let (mut worst_f, mut worst_v) = (0.0f64, 0.0f64);
        for row in samples(&r.rows) {
            let friction: f64 = row.contacts.iter().map(|c| c.friction_force).sum();
            let normal: f64 = row.contacts.iter().map(|c| c.normal_force).sum();
            let speed = row.v[0] * slope[0] + row.v[1] * slope[1];
            let (want_f, want_v) = if row.t < t_stick {
                let sign = if down { 1.0 } else { -1.0 };
                (sign * mu * m * G * a.cos(), -sign * (v0 - decel * row.t))
            } else {
                for c in &row.contacts {
                    assert_eq!(c.mode.as_str(), "stick", "{case}: t = {}", row.t);
                }
                (m * G * a.sin(), 0.0)
            };
            worst_f = worst_f.max((friction - want_f).abs());
            worst_v = worst_v.max((speed - want_v).abs());
            assert!(
                (normal - m * G * a.cos()).abs() < 1e-9,
                "{case}: t = {}",
                row.t
            );
        }
        println!(
            "incline ({case}): stick at {:.12} (expected {t_stick:.12}), friction off by at most \
             {worst_f:.1e} N, speed by {worst_v:.1e} m/s",
            events[0].time
        );
        assert!(worst_f < 1e-9 && worst_v < 1e-9, "{case}");
    }
}

/// A frictionless double pendulum (two rigid rods on pins) keeps its
/// energy, and its pins stay joined.
#[test]
fn double_pendulum_keeps_its_energy_over_100_s() {
    let mut s = scene("double_pendulum");
    s.duration = 100.0;
    s.output_every = 0.1;
    s.solver.tolerance = 1e-11;
    s.solver.absolute_tolerance = 1e-14;
    let r = run(&s);
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    // The energy's scale: lifting both rods by their length, m g (L + L).
    let scale = 2.0 * 1.0 * G * 1.0;
    let drift_e = samples(&r.rows)
        .map(|row| (row.energy - r.outcome.energy_initial).abs())
        .fold(0.0f64, f64::max)
        / scale;
    println!(
        "double pendulum, 100 s: energy off by {drift_e:.1e} (relative to m g 2L), max \
         constraint drift {:.1e} m, {} steps, {:.0} ms",
        r.outcome.max_constraint_drift,
        r.outcome.steps,
        r.wall.as_secs_f64() * 1e3
    );
    assert!(drift_e < 1e-8);
    assert!(r.outcome.max_constraint_drift < 1e-10);
}

/// Many contacts on one body: a plate sliding on twelve rough points of
/// the floor (`mu = 0.3`, a part too large to enumerate: `3^12` modes, so
/// Lemke's method) decelerates at `mu g` and stops for good at
/// `t = v0 / (mu g)`, `x = v0^2 / (2 mu g)`, every contact sticking at the
/// same event time. The normal forces are not unique (twelve points on a
/// line hold one body); their sum is, `m g`, and so is the friction, zero
/// once it sticks. (Regression: a point left without force by the solver's
/// choice among the equal answers used to be reported as lifting off.)
#[test]
fn plate_on_twelve_rough_points_stops_where_friction_says() {
    let (m, mu, v0, points) = (2.0, 0.3, 1.5, 12);
    let plate = Body::rigid("plate", m, 0.17)
        .at([0.0, 0.05])
        .moving([v0, 0.0]);
    let contacts = (0..points)
        .map(|i| {
            Contact::new(
                format!("p{i}"),
                0,
                [-0.5 + i as f64 / (points - 1) as f64, -0.05],
                Surface::FLOOR,
            )
            .with_surface(mu, 0.0)
        })
        .collect();
    let model = PlanarModel::new([0.0, -G], vec![plate], vec![], contacts, vec![]).unwrap();
    let settings = Settings {
        output_every: 0.02,
        ..Settings::default()
    };
    let r = run_model(model, 1.0, &settings);
    assert_eq!(r.outcome.status, Status::Finished, "{:?}", r.outcome.reason);
    println!(
        "plate on {points} points: {:?} in {:.0} ms",
        r.outcome.events.iter().map(|e| e.kind).collect::<Vec<_>>(),
        r.wall.as_secs_f64() * 1e3
    );
    let t_stop = v0 / (mu * G);
    let x_stop = v0 * v0 / (2.0 * mu * G);
    let sticks: Vec<_> = r
        .outcome
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Stick)
        .collect();
    assert_eq!(sticks.len(), points, "{:?}", r.outcome.events);
    // Nothing lifts off: points that carry no force at rest stay closed.
    assert_eq!(r.outcome.events.len(), points, "{:?}", r.outcome.events);
    for e in &sticks {
        assert!(
            (e.time - t_stop).abs() < 1e-9,
            "stick at {} vs {t_stop}",
            e.time
        );
    }
    assert!(
        (r.outcome.q[0] - x_stop).abs() < 1e-9,
        "{} vs {x_stop}",
        r.outcome.q[0]
    );
    assert!(
        r.outcome.v.iter().all(|v| v.abs() < 1e-9),
        "{:?}",
        r.outcome.v
    );
    for row in samples(&r.rows) {
        let normal: f64 = row.contacts.iter().map(|c| c.normal_force).sum();
        let friction: f64 = row.contacts.iter().map(|c| c.friction_force).sum();
        assert!(
            (normal - m * G).abs() < 1e-8,
            "t = {}: sum of normal forces {normal}",
            row.t
        );
        let expected = if row.t < t_stop - 1e-9 {
            -mu * m * G
        } else {
            0.0
        };
        if (row.t - t_stop).abs() > 1e-6 {
            assert!(
                (friction - expected).abs() < 1e-8,
                "t = {}: friction {friction}",
                row.t
            );
        }
    }
}
