//! The two worked examples of Zhang & Xia, "Gauss principle of least
//! compulsion for relative motion dynamics and differential equations of
//! motion", 2024, each in generalized coordinates two ways: the absolute
//! motion (a rheonomic `T`) and the relative one (`T_r` and the moving
//! frame's inertial forces, eqs 30-34), both against the paper's closed
//! equations at random states and parameters.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use zwang::generalized::catalog::{PendulumOnBlock, RodOnTurningAxis};
use zwang::generalized::elements::{self, FrameMotion};
use zwang::generalized::{Generalized, System};

const STATES: usize = 250;

fn acceleration<S: System>(sys: &Generalized<S>, t: f64, q: f64, qd: f64) -> f64 {
    sys.equations(t, &[q], &[qd])
        .unwrap()
        .unconstrained_acceleration()
        .unwrap()[0]
}

fn random_block(rng: &mut ChaCha8Rng) -> PendulumOnBlock {
    PendulumOnBlock {
        m: rng.gen_range(0.2..5.0),
        rho: rng.gen_range(0.05..1.0),
        r: rng.gen_range(0.1..2.0),
        l0: rng.gen_range(0.1..2.0),
        g: rng.gen_range(1.0..20.0),
        omega: rng.gen_range(-4.0..4.0),
        beta: rng.gen_range(-1.0..1.0),
        nu: rng.gen_range(0.1..5.0),
        ..PendulumOnBlock::default()
    }
}

/// Eq 70 solved for `phi''`:
/// `m (rho^2 + R^2) phi'' = -m l0 R theta'^2 sin(phi - theta)
///  - m l0 R theta'' cos(phi - theta) - m g R sin phi`,
/// with `theta = Omega t + beta sin(nu t)` differentiated by hand.
fn eq70(p: &PendulumOnBlock, t: f64, phi: f64) -> (f64, f64) {
    let theta = p.omega * t + p.beta * (p.nu * t).sin();
    let theta_d = p.omega + p.beta * p.nu * (p.nu * t).cos();
    let theta_dd = -p.beta * p.nu * p.nu * (p.nu * t).sin();
    let (m, r) = (p.m, p.r);
    let frame =
        m * p.l0 * r * (theta_d * theta_d * (phi - theta).sin() + theta_dd * (phi - theta).cos());
    let gravity = m * p.g * r * phi.sin();
    (-(frame + gravity) / (m * (p.rho * p.rho + r * r)), frame)
}

#[test]
fn example_1_pendulum_on_a_block_both_ways_against_eq_70() {
    let mut rng = ChaCha8Rng::seed_from_u64(70);
    let mut worst = [0.0f64; 3];
    for _ in 0..STATES {
        let p = random_block(&mut rng);
        let (t, phi, phid) = (
            rng.gen_range(-10.0..10.0),
            rng.gen_range(-PI..PI),
            rng.gen_range(-6.0..6.0),
        );
        let (want, frame_moment) = eq70(&p, t, phi);
        let scale = want.abs().max(p.g / p.r);
        let absolute = Generalized::new(p.clone()).unwrap();
        let relative = Generalized::new(PendulumOnBlock {
            relative: true,
            ..p.clone()
        })
        .unwrap();
        worst[0] = worst[0].max((acceleration(&absolute, t, phi, phid) - want).abs() / scale);
        worst[1] = worst[1].max((acceleration(&relative, t, phi, phid) - want).abs() / scale);
        // The frame translates: no centrifugal, rotational or Coriolis
        // part; the uniform field of -a_O has the moment of eq 67.
        let parts = elements::inertial_forces(relative.system(), &p.frame(t), t, &[phi], &[phid]);
        assert_eq!(parts.rotational[0], 0.0);
        assert_eq!(parts.gyroscopic[0], 0.0);
        worst[2] = worst[2].max(
            (parts.potential_gradient[0] - frame_moment).abs()
                / frame_moment.abs().max(p.m * p.g * p.r),
        );
    }
    println!(
        "example 1 (eq 70), relative to max(|phi''|, g/R): absolute {:.1e}, relative {:.1e}; frame moment {:.1e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst.iter().all(|&x| x < 1e-10), "{worst:?}");
}

fn random_rod(rng: &mut ChaCha8Rng) -> RodOnTurningAxis {
    RodOnTurningAxis {
        m: rng.gen_range(0.2..5.0),
        l: rng.gen_range(0.1..2.0),
        k: rng.gen_range(0.0..20.0),
        omega: rng.gen_range(-6.0..6.0),
        g: rng.gen_range(1.0..20.0),
        ..RodOnTurningAxis::default()
    }
}

/// Eq 91 solved for `theta''`:
/// `theta'' = (omega^2 - 3k/m) sin th cos th + (3g / 2l) sin th`.
fn eq91(p: &RodOnTurningAxis, th: f64) -> f64 {
    (p.omega * p.omega - 3.0 * p.k / p.m) * th.sin() * th.cos() + 1.5 * p.g / p.l * th.sin()
}

#[test]
fn example_2_rod_on_a_turning_axis_both_ways_against_eq_91() {
    let mut rng = ChaCha8Rng::seed_from_u64(91);
    let mut worst = [0.0f64; 4];
    for _ in 0..STATES {
        let p = random_rod(&mut rng);
        let (t, th, thd) = (
            rng.gen_range(-10.0..10.0),
            rng.gen_range(0.0..PI / 2.0),
            rng.gen_range(-6.0..6.0),
        );
        let want = eq91(&p, th);
        let scale = want
            .abs()
            .max(p.omega * p.omega)
            .max(p.k / p.m)
            .max(p.g / p.l);
        let absolute = Generalized::new(p.clone()).unwrap();
        let relative = Generalized::new(RodOnTurningAxis {
            relative: true,
            ..p.clone()
        })
        .unwrap();
        worst[0] = worst[0].max((acceleration(&absolute, t, th, thd) - want).abs() / scale);
        worst[1] = worst[1].max((acceleration(&relative, t, th, thd) - want).abs() / scale);
        // The absolute T of the rod (two equivalent particles turned by
        // omega t): m l^2 (th'^2 + omega^2 sin^2 th) / 6.
        let t_closed = p.m * p.l * p.l * (thd * thd + (p.omega * th.sin()).powi(2)) / 6.0;
        let t_engine = absolute.system().kinetic(t, &[th], &[thd]);
        worst[2] = worst[2].max((t_engine - t_closed).abs() / t_closed);
        // The turning frame's parts: the centrifugal potential
        // Pi_omega = -m omega^2 l^2 sin^2 th / 6 (the rod's second moment
        // about Oz), no rotational force (omega' = 0), and a Coriolis force
        // normal to the rod's plane, which does no work on theta.
        let frame = FrameMotion {
            angular_velocity: [0.0, 0.0, p.omega],
            ..FrameMotion::default()
        };
        let parts = elements::inertial_forces(relative.system(), &frame, t, &[th], &[thd]);
        let dpi = -p.m * p.omega * p.omega * p.l * p.l * th.sin() * th.cos() / 3.0;
        worst[3] = worst[3].max(
            (parts.potential_gradient[0] - dpi).abs()
                / (p.m * p.omega * p.omega * p.l * p.l).max(1e-300),
        );
        assert_eq!(parts.rotational[0], 0.0);
        assert_eq!(parts.gyroscopic[0], 0.0);
    }
    println!(
        "example 2 (eq 91): absolute {:.1e}, relative {:.1e}, T {:.1e}, dPi/dth {:.1e}",
        worst[0], worst[1], worst[2], worst[3]
    );
    assert!(worst.iter().all(|&x| x < 1e-10), "{worst:?}");
}

/// `phi(t)` of eq 70 from `(phi0, phid0)` at 0 by the classical
/// Runge-Kutta method with a fixed step (independent of zwang's stepper).
fn rk4_eq70(p: &PendulumOnBlock, duration: f64, steps: usize) -> (f64, f64) {
    let f = |t: f64, y: [f64; 2]| [y[1], eq70(p, t, y[0]).0];
    let h = duration / steps as f64;
    let mut y = [p.phi0, p.phid0];
    for k in 0..steps {
        let t = k as f64 * h;
        let k1 = f(t, y);
        let k2 = f(
            t + h / 2.0,
            [y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]],
        );
        let k3 = f(
            t + h / 2.0,
            [y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]],
        );
        let k4 = f(t + h, [y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    (y[0], y[1])
}

#[test]
fn both_runs_of_example_1_follow_eq_70() {
    use zwang::motion::{simulate, NoObserver, Settings, Status};
    let duration = 3.0;
    let (phi, phid) = rk4_eq70(&PendulumOnBlock::default(), duration, 30_000);
    for relative in [false, true] {
        let p = PendulumOnBlock {
            relative,
            ..PendulumOnBlock::default()
        };
        let sys = Generalized::new(p).unwrap();
        let run = simulate(&sys, duration, &Settings::default(), &mut NoObserver);
        assert_eq!(run.status, Status::Finished, "{:?}", run.reason);
        let off = (run.q[0] - phi).abs().max((run.v[0] - phid).abs());
        println!("example 1 over {duration} s (relative: {relative}) vs RK4 of eq 70: {off:.1e}");
        assert!(off < 1e-9, "{off:e}");
    }
}
