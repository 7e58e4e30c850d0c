//! The rigid rod of Yao & Gao (2026) sliding on the floor, run by zwang
//! from the shipped scenes and compared with the rod's own Newton-Euler
//! equations integrated here (fixed-step RK4, checked by halving the step):
//! unknowns `x'', y'', theta'', N, F`, with
//!
//! ```text
//! m x'' = F,   m y'' = N - m g,   I theta'' = -N l cos(th) + F l sin(th),
//! y_A'' = y'' - l cos(th) theta'' + l sin(th) theta'^2 = 0
//! ```
//!
//! for the contact end `A = C - l (cos th, sin th)` (`l` the half length),
//! and `F = 0` (smooth), `F = -c x_A'` (viscous) or `F = -mu N sign(x_A')`
//! (Coulomb), `x_A' = x' + l sin(th) theta'`.

use crate::motion_support;

use motion_support::{max_diff, rk4, rk4_step, rk4_until, run, samples, scene};
use zwang::motion::{Contacts, EventKind, Status};

const G: f64 = 9.81;

#[derive(Debug, Clone, Copy)]
enum Law {
    Smooth,
    Viscous(f64),
    Coulomb(f64),
}

/// The rod: mass, moment of inertia about the centre, half length.
#[derive(Debug, Clone, Copy)]
struct Rod {
    m: f64,
    inertia: f64,
    l: f64,
    law: Law,
}

impl Rod {
    /// `(N, F)` at the state `s = (x, y, th, x', y', th')` with A on the
    /// floor.
    fn forces(&self, s: &[f64]) -> (f64, f64) {
        let Rod { m, inertia, l, law } = *self;
        let (sn, c) = s[2].sin_cos();
        let thd = s[5];
        // N (1/m + l^2 c^2 / I) = g - l sn th'^2 + (l^2 c sn / I) F.
        let free = G - l * sn * thd * thd;
        let a = 1.0 / m + l * l * c * c / inertia;
        let b = l * l * c * sn / inertia;
        match law {
            Law::Smooth => (free / a, 0.0),
            Law::Viscous(cv) => {
                let f = -cv * self.slip_velocity(s);
                ((free + b * f) / a, f)
            }
            Law::Coulomb(mu) => {
                let sign = self.slip_velocity(s).signum();
                let n = free / (a + b * mu * sign);
                (n, -mu * sign * n)
            }
        }
    }

    /// `x_A'`.
    fn slip_velocity(&self, s: &[f64]) -> f64 {
        s[3] + self.l * s[2].sin() * s[5]
    }

    /// `y' = f(y)` of the state.
    fn rhs(&self, s: &[f64]) -> Vec<f64> {
        let (n, f) = self.forces(s);
        let (sn, c) = s[2].sin_cos();
        vec![
            s[3],
            s[4],
            s[5],
            f / self.m,
            n / self.m - G,
            self.l / self.inertia * (-c * n + sn * f),
        ]
    }
}

/// The rod of a shipped scene: its body and its first contact (end A).
fn rod_of(name: &str) -> (zwang::scene::Scene, Rod, Vec<f64>) {
    let s = scene(name);
    let b = &s.bodies[0];
    let c = &s.contacts[0];
    assert_eq!(c.point, [-0.5, 0.0], "end A is the body point (-l, 0)");
    let law = if c.friction > 0.0 {
        Law::Coulomb(c.friction)
    } else if c.viscous > 0.0 {
        Law::Viscous(c.viscous)
    } else {
        Law::Smooth
    };
    let rod = Rod {
        m: b.mass,
        inertia: b.inertia,
        l: 0.5,
        law,
    };
    let y0 = vec![
        b.position[0],
        b.position[1],
        b.angle,
        b.velocity[0],
        b.velocity[1],
        b.angular_velocity,
    ];
    // A on the floor, not moving normally.
    assert!((y0[1] - rod.l * y0[2].sin()).abs() < 1e-15);
    assert!((y0[4] - rod.l * y0[2].cos() * y0[5]).abs() < 1e-15);
    (s, rod, y0)
}

/// Yao & Gao's three cases from the same initial state: zwang's samples
/// (state and contact forces of end A) against the reference over the
/// fall, until just before end B lands; then the landing time.
#[test]
fn rod_slides_as_its_newton_euler_equations_say() {
    for name in ["rod_smooth", "rod_viscous", "rod_coulomb"] {
        let (mut s, rod, y0) = rod_of(name);
        let f = |y: &[f64]| rod.rhs(y);
        // Until t = 0.25 s: end B lands at about 0.256 s.
        s.duration = 0.25;
        let r = run(&s);
        assert_eq!(
            r.outcome.status,
            Status::Finished,
            "{name}: {:?}",
            r.outcome.reason
        );
        assert!(
            r.outcome.events.is_empty(),
            "{name}: {:?}",
            r.outcome.events
        );

        // The reference at every sample, 50 RK4 steps between them.
        let every = s.output_every;
        let (mut y, mut t) = (y0.clone(), 0.0);
        let (mut worst_state, mut worst_force) = (0.0f64, 0.0f64);
        let mut count = 0;
        for row in samples(&r.rows) {
            let steps = ((row.t - t) / every * 50.0).round() as usize;
            if steps > 0 {
                y = rk4(&f, &y, row.t - t, steps);
                t = row.t;
            }
            let (n, fr) = rod.forces(&y);
            assert!(n > 0.0, "{name}: the end stays pressed on the floor");
            if let Law::Coulomb(_) = rod.law {
                assert!(rod.slip_velocity(&y) > 0.0, "{name}: the end keeps sliding");
            }
            let got: Vec<f64> = row.q.iter().chain(&row.v).copied().collect();
            worst_state = worst_state.max(max_diff(&got, &y));
            let c = &row.contacts[0];
            worst_force = worst_force
                .max((c.normal_force - n).abs())
                .max((c.friction_force - fr).abs());
            count += 1;
        }
        assert_eq!(count, 51);
        // The reference is converged: half the step changes nothing.
        let fine = rk4(&f, &y0, 0.25, 5000);
        let half = rk4(&f, &y0, 0.25, 10000);
        assert!(
            max_diff(&fine, &half) < 1e-12,
            "{name}: the reference converged"
        );
        println!(
            "{name}: over 0.25 s, state off the Newton-Euler reference by at most \
             {worst_state:.1e}, contact forces by {worst_force:.1e} N ({:.1} ms)",
            r.wall.as_secs_f64() * 1e3
        );
        assert!(worst_state < 1e-7, "{name}: {worst_state:e}");
        assert!(worst_force < 1e-6, "{name}: {worst_force:e}");

        // The full scene: end B lands when the rod is flat (theta = 0).
        let r = run(&scene(name));
        assert_eq!(
            r.outcome.status,
            Status::Finished,
            "{name}: {:?}",
            r.outcome.reason
        );
        let landing = &r.outcome.events[0];
        assert_eq!(landing.kind, EventKind::Impact, "{name}");
        assert_eq!(r.model.contact_name(landing.contact), "end_b", "{name}");
        let (t_ref, _) = rk4_until(&f, &y0, 1e-4, 1.0, &|y: &[f64]| y[2]).unwrap();
        let (t_half, _) = rk4_until(&f, &y0, 5e-5, 1.0, &|y: &[f64]| y[2]).unwrap();
        assert!((t_ref - t_half).abs() < 1e-12);
        let dt = (landing.time - t_ref).abs();
        println!(
            "{name}: end B lands at {:.12} (reference {t_ref:.12}, off by {dt:.1e})",
            landing.time
        );
        assert!(dt < 1e-9, "{name}");
    }
}

/// `G = 1 + 3 cos^2 th - 3 mu sin th cos th` (times `1/m`): the leading
/// end's `J_n M^-1 (J_n - mu J_t)^T` for `I = m l^2 / 3`.
fn painleve_g(theta: f64, mu: f64) -> f64 {
    let (sn, c) = theta.sin_cos();
    1.0 + 3.0 * c * c - 3.0 * mu * sn * c
}

/// The Painleve rod: the leading end slides into the band where `G < 0`
/// with the normal force growing without bound. The reference is the rod's
/// equations in the time `s` with `dt = G ds` (Sundman's transformation:
/// `G N` stays bounded), integrated here until `G` is below 1e-13; the
/// time reached is the time `G` reaches 0 (to that accuracy).
#[test]
fn painleve_rod_stops_where_g_reaches_zero() {
    let (s, rod, y0) = rod_of("rod_painleve");
    let Law::Coulomb(mu) = rod.law else {
        panic!("the Painleve rod has Coulomb friction")
    };
    assert!((rod.inertia - rod.m * rod.l * rod.l / 3.0).abs() < 1e-15);
    // The band: tan(th) in ((3mu - sqrt(9mu^2 - 16))/2, ...); the rod
    // starts below it, turning up, its end leading.
    let low = ((3.0 * mu - (9.0 * mu * mu - 16.0).sqrt()) / 2.0).atan();
    assert!(y0[2] < low && y0[5] > 0.0 && rod.slip_velocity(&y0) < 0.0);
    assert!(painleve_g(y0[2], mu) > 0.0);

    // (t, state) in the time s: d/ds = G d/dt.
    let f = |z: &[f64]| {
        let g = painleve_g(z[3], mu);
        let d = rod.rhs(&z[1..]);
        let mut out = vec![g];
        out.extend(d.iter().map(|x| g * x));
        out
    };
    let reach = |h: f64| {
        let mut z: Vec<f64> = std::iter::once(0.0).chain(y0.iter().copied()).collect();
        while painleve_g(z[3], mu) > 1e-13 {
            z = rk4_step(&f, &z, h);
        }
        z
    };
    let z = reach(2.5e-4);
    let z_half = reach(1.25e-4);
    let t_star = z[0];
    assert!(
        (t_star - z_half[0]).abs() < 1e-11,
        "the reference converged"
    );
    // There the end still slides, pressed down: no normal force keeps it
    // on the floor past it (not the singular point where the free normal
    // acceleration vanishes too).
    assert!(rod.slip_velocity(&z[1..]) < -1.0);
    assert!(G - rod.l * z[3].sin() * z[6] * z[6] > 1.0);

    let r = run(&s);
    assert_eq!(r.outcome.status, Status::Painleve, "{:?}", r.outcome.reason);
    let last = r.outcome.events.last().expect("a Painleve event");
    assert_eq!(last.kind, EventKind::PainleveInconsistent);
    assert_eq!(r.model.contact_name(last.contact), "end_a");
    assert_eq!(r.outcome.events.len(), 1, "{:?}", r.outcome.events);
    let state: Vec<f64> = last.q.iter().chain(&last.v).copied().collect();
    let dt = (last.time - t_star).abs();
    println!(
        "painleve rod: stops at {:.13} with G = {:.1e} (reference: G = 0 at {t_star:.13}, off by \
         {dt:.1e}), x_A' = {:.3} m/s ({:.0} ms)",
        last.time,
        painleve_g(last.q[2], mu),
        rod.slip_velocity(&state),
        r.wall.as_secs_f64() * 1e3
    );
    assert!(dt < 1e-9);
    assert!(painleve_g(last.q[2], mu).abs() < 1e-6);
    assert!(rod.slip_velocity(&state) < -1.0);
}
