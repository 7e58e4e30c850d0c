//! The two worked examples of Zhang & Xia, "Gauss principle of least
//! compulsion for relative motion dynamics and differential equations of
//! motion", 2024, each in generalized coordinates two ways: the absolute
//! motion (a rheonomic `T`) and the relative one (`T_r` and the moving
//! frame's inertial forces, eqs 30-34), both against the paper's closed
//! equations at random states and parameters; and a general moving frame
//! (accelerating origin, turning about a tilted axis at a varying rate)
//! carrying a particle and a rod, relative against absolute.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use zwang_generalized::catalog::{PendulumOnBlock, RodOnTurningAxis};
use zwang_generalized::elements::{self, FrameMotion};
use zwang_generalized::{Generalized, System};

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
    use zwang_motion::{simulate, NoObserver, Settings, Status};
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

/// A frame turning about a fixed tilted axis `n` by `alpha(t) = a t + b
/// sin(c t)` (so `omega = alpha' n` and `omega' = alpha'' n` are both
/// there), whose origin moves on `O(t) = (A sin(nu t), B cos(nu t), C t^2)`;
/// in it, a particle on a spring (`q0..q2`, its frame coordinates) and a
/// rod pinned at a frame point `P`, swinging in a plane `(e1, e2)` of the
/// frame that does not contain `n` (`q3`, its angle). Absolute: the
/// rod as its two equivalent particles, everything carried by the frame;
/// relative: a rod element and the frame's inertial forces. The same `q`,
/// so the accelerations must agree.
#[derive(Clone)]
struct Carried {
    relative: bool,
    n: [f64; 3],
    turn: [f64; 3],
    origin: [f64; 4],
    e: [[f64; 3]; 2],
    pin: [f64; 3],
    m: [f64; 2],
    l: f64,
    k: f64,
}

fn rotate<D: zwang_generalized::Scalar>(n: [f64; 3], alpha: D, r: [D; 3]) -> [D; 3] {
    // Rodrigues: r cos + (n x r) sin + n (n . r)(1 - cos).
    let (s, c) = alpha.sin_cos();
    let nxr = [
        r[2] * n[1] - r[1] * n[2],
        r[0] * n[2] - r[2] * n[0],
        r[1] * n[0] - r[0] * n[1],
    ];
    let nr = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
    std::array::from_fn(|i| r[i] * c + nxr[i] * s + nr * (-c + 1.0) * n[i])
}

impl Carried {
    fn alpha<D: zwang_generalized::Scalar>(&self, t: D) -> D {
        t * self.turn[0] + (t * self.turn[2]).sin() * self.turn[1]
    }
    fn origin<D: zwang_generalized::Scalar>(&self, t: D) -> [D; 3] {
        let [a, b, c, nu] = self.origin;
        [(t * nu).sin() * a, (t * nu).cos() * b, t * t * c]
    }
    /// A point given in the frame, in the ground's frame.
    fn carry<D: zwang_generalized::Scalar>(&self, t: D, r: [D; 3]) -> [D; 3] {
        let o = self.origin(t);
        let r = rotate(self.n, self.alpha(t), r);
        std::array::from_fn(|i| o[i] + r[i])
    }
    /// The rod's point at `d` from the pin, frame coordinates.
    fn rod_point<D: zwang_generalized::Scalar>(&self, th: D, d: f64) -> [D; 3] {
        let (s, c) = th.sin_cos();
        std::array::from_fn(|i| (c * self.e[0][i] + s * self.e[1][i]) * d + self.pin[i])
    }
    fn frame(&self, t: f64) -> FrameMotion {
        use zwang_generalized::num_dual::HyperDual64;
        let a = self.alpha(HyperDual64::new(t, 1.0, 1.0, 0.0));
        let o = self
            .origin(HyperDual64::new(t, 1.0, 1.0, 0.0))
            .map(|x| x.eps1eps2);
        // a_O in the frame's axes: turned back by alpha.
        FrameMotion {
            origin_acceleration: rotate(self.n, -a.re, o),
            angular_velocity: self.n.map(|x| x * a.eps1),
            angular_acceleration: self.n.map(|x| x * a.eps1eps2),
        }
    }
}

impl elements::Elements for Carried {
    fn count(&self) -> usize {
        if self.relative {
            2
        } else {
            3
        }
    }
    fn element(&self, k: usize) -> elements::Element {
        match (self.relative, k) {
            (_, 0) => elements::Element::particle(self.m[0]),
            (true, _) => elements::Element::rod(self.m[1], self.l).in_plane(self.e[0], self.e[1]),
            (false, _) => elements::Element::particle(0.5 * self.m[1]),
        }
    }
    fn place<D: zwang_generalized::Scalar>(&self, k: usize, t: D, q: &[D]) -> elements::Pose<D> {
        let particle = [q[0], q[1], q[2]];
        if self.relative {
            if k == 0 {
                elements::Pose::point(particle)
            } else {
                elements::Pose::body(self.rod_point(q[3], 0.5 * self.l), q[3])
            }
        } else if k == 0 {
            elements::Pose::point(self.carry(t, particle))
        } else {
            let sign = if k == 1 { -1.0 } else { 1.0 };
            let d = 0.5 * self.l * (1.0 + sign / 3f64.sqrt());
            elements::Pose::point(self.carry(t, self.rod_point(q[3], d)))
        }
    }
}

impl System for Carried {
    fn dof(&self) -> usize {
        4
    }
    fn kinetic<D: zwang_generalized::Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D {
        elements::kinetic(self, t, q, qd)
    }
    fn potential<D: zwang_generalized::Scalar>(&self, t: D, q: &[D]) -> D {
        // Gravity along the ground's -z on the particle and the rod's
        // centre, and a spring from the particle to the frame's origin.
        let g = 9.81;
        let p = self.carry(t, [q[0], q[1], q[2]]);
        let c = self.carry(t, self.rod_point(q[3], 0.5 * self.l));
        p[2] * (self.m[0] * g)
            + c[2] * (self.m[1] * g)
            + (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) * (0.5 * self.k)
    }
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        if self.relative {
            elements::add_inertial_forces(self, &self.frame(t), t, q, qd, out);
        }
    }
    fn acceleration_energy<D: zwang_generalized::Scalar>(
        &self,
        t: D,
        q: &[D],
        qd: &[D],
        qdd: &[D],
    ) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.5, 0.0, 0.0, 0.3], vec![0.0; 4])
    }
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / n)
}

#[test]
fn a_general_moving_frame_relative_equals_absolute() {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    let mut worst = 0.0f64;
    for _ in 0..STATES {
        let mut v = || {
            [
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            ]
        };
        let (n, a, b) = (unit(v()), v(), v());
        // An orthonormal plane (e1, e2) in general position.
        let e1 = unit(a);
        let d = b[0] * e1[0] + b[1] * e1[1] + b[2] * e1[2];
        let e2 = unit(std::array::from_fn(|i| b[i] - d * e1[i]));
        let pin = v();
        let mut r = || rng.gen_range(0.2..2.0);
        let sys = Carried {
            relative: false,
            n,
            turn: [r(), r() - 1.0, r()],
            origin: [r(), r(), r() - 1.0, r()],
            e: [e1, e2],
            pin,
            m: [r(), r()],
            l: r(),
            k: 3.0 * r(),
        };
        let t = rng.gen_range(-3.0..3.0);
        let q: Vec<f64> = (0..4).map(|_| rng.gen_range(-1.5..1.5)).collect();
        let qd: Vec<f64> = (0..4).map(|_| rng.gen_range(-3.0..3.0)).collect();
        let absolute = Generalized::new(sys.clone()).unwrap();
        let relative = Generalized::new(Carried {
            relative: true,
            ..sys
        })
        .unwrap();
        let want = absolute
            .equations(t, &q, &qd)
            .unwrap()
            .unconstrained_acceleration()
            .unwrap();
        let got = relative
            .equations(t, &q, &qd)
            .unwrap()
            .unconstrained_acceleration()
            .unwrap();
        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let off = want
            .iter()
            .zip(&got)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        worst = worst.max(off / scale);
        // Both formulations' forms agree among themselves.
        assert!(relative.forms(t, &q, &qd).unwrap().max_rel_difference < 1e-12);
        assert!(absolute.forms(t, &q, &qd).unwrap().max_rel_difference < 1e-12);
    }
    println!("general moving frame (a_O, omega, omega' on a particle and a tilted rod): relative vs absolute {worst:.1e}");
    assert!(worst < 1e-10, "{worst:e}");
}
