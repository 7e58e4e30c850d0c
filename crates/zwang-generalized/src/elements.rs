//! Systems given by where their masses are: `T`, Appell's `S` and the
//! inertial forces of a moving frame, from positions alone.
//!
//! An [`Elements`] system says, for each element (a particle, or a rigid
//! body moving in a plane), its mass and second moments ([`Element`]) and
//! where it is at `(t, q)` ([`Pose`]: the centre of mass and the angle in
//! its plane). Its velocity and acceleration come by differentiating the
//! pose along the motion (`t + s`, `q + qd s + qdd s^2 / 2`), so:
//!
//! - the kinetic energy ([`kinetic`]) `T = sum 1/2 m |r_C'|^2 + 1/2 I theta'^2`,
//! - Appell's acceleration energy ([`acceleration_energy`])
//!   `S = sum 1/2 m |r_C''|^2 + 1/2 I (theta''^2 + theta'^4)` (Zhang & Xia
//!   2024, eq 15, for a body in planar motion), computed without `T`, so
//!   that the Appell form is an independent check of the Lagrange and
//!   Nielsen forms,
//! - the inertial forces ([`inertial_forces`]): in a frame whose origin accelerates with `a_O`
//!   and which turns with `omega` (prescribed), the generalized convective
//!   and Coriolis inertial forces of Zhang & Xia's eqs 30-34,
//!   `-d(Pi_O + Pi_omega)/dq + Q_omega + Gamma`, with
//!   `Pi_O = sum m a_O . r`, `Pi_omega = -1/2 sum m |omega x r|^2`,
//!   `Q_omega_s = -sum m (omega' x r) . dr/dq_s`,
//!   `Gamma_s = -2 sum m (omega x r') . dr/dq_s`.
//!
//! The sums over a body's mass need its mass, centre and second-moment
//! tensor only (the fields are affine in the offset from the centre, and
//! so are the partial velocities): each body is replaced, exactly, by six
//! points of mass `m/6` at `+-sqrt(3 s_a / m)` along its principal axes
//! (`s_a` its second moments `sum m x_a^2`), which have the same mass,
//! centre and second moments.

use crate::buffer::with_slice;
use crate::Scalar;
use num_dual::{Dual, Dual64, HyperDual};
use zwang_model::spatial::rotation::{cross, dot};

/// A particle or a rigid body moving in a plane of the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    /// Mass, `> 0`.
    pub mass: f64,
    /// Principal second moments about the centre of mass,
    /// `[sum m x^2, sum m y^2, sum m z^2]` in the body's axes: `x`, `y` in
    /// its plane (`x` along the angle), `z` its axis of rotation. The
    /// moment of inertia about that axis is `s_x + s_y`. Zero for a
    /// particle.
    pub second_moments: [f64; 3],
    /// The plane it turns in: two orthonormal directions `e1`, `e2` of
    /// the frame; its angle turns from `e1` towards `e2`, about `e1 x e2`.
    pub plane: [[f64; 3]; 2],
}

/// The frame's `xy` plane.
const XY: [[f64; 3]; 2] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

impl Element {
    /// A particle of mass `mass`.
    pub fn particle(mass: f64) -> Element {
        Element {
            mass,
            second_moments: [0.0; 3],
            plane: XY,
        }
    }

    /// A body of mass `mass` turning in the `xy` plane with moment of
    /// inertia `inertia` about its axis, its mass spread evenly around the
    /// axis (a disc, a ring: second moments `[I/2, I/2, 0]`). `T` and `S`
    /// need only `I`; the inertial forces of a frame whose `omega` is not
    /// along the axis need the true second moments
    /// ([`Element::with_second_moments`]).
    pub fn body(mass: f64, inertia: f64) -> Element {
        Element {
            mass,
            second_moments: [0.5 * inertia, 0.5 * inertia, 0.0],
            plane: XY,
        }
    }

    /// A thin uniform rod of mass `mass` and length `length` along the
    /// body's `x` axis: second moments `[m l^2 / 12, 0, 0]`.
    pub fn rod(mass: f64, length: f64) -> Element {
        Element {
            mass,
            second_moments: [mass * length * length / 12.0, 0.0, 0.0],
            plane: XY,
        }
    }

    /// A body with the given principal second moments (see
    /// [`Element::second_moments`]).
    pub fn with_second_moments(mass: f64, second_moments: [f64; 3]) -> Element {
        Element {
            mass,
            second_moments,
            plane: XY,
        }
    }

    /// The same element turning in the plane of `e1` and `e2`
    /// (orthonormal, frame axes).
    pub fn in_plane(mut self, e1: [f64; 3], e2: [f64; 3]) -> Element {
        self.plane = [e1, e2];
        self
    }

    /// Moment of inertia about its axis of rotation, `s_x + s_y`.
    pub fn inertia(&self) -> f64 {
        self.second_moments[0] + self.second_moments[1]
    }

    fn is_particle(&self) -> bool {
        self.second_moments == [0.0; 3]
    }
}

/// Where an element is: its centre of mass (frame coordinates) and its
/// angle in its plane (ignored for particles).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose<D> {
    /// Centre of mass.
    pub position: [D; 3],
    /// Angle in the element's plane, from `e1` towards `e2`.
    pub angle: D,
}

impl<D: Scalar> Pose<D> {
    /// A particle at `position`.
    pub fn point(position: [D; 3]) -> Self {
        Pose {
            angle: position[0] * 0.0,
            position,
        }
    }

    /// A body at `position`, turned by `angle`.
    pub fn body(position: [D; 3], angle: D) -> Self {
        Pose { position, angle }
    }
}

/// A system given by its elements and where they are at `(t, q)`.
pub trait Elements {
    /// Number of elements.
    fn count(&self) -> usize;
    /// Element `k`'s mass and second moments.
    fn element(&self, k: usize) -> Element;
    /// Where element `k` is at `(t, q)`; written with `D`'s operations
    /// only, so that its derivatives are exact.
    fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D>;
}

/// `T = sum 1/2 m |r_C'|^2 + 1/2 I theta'^2`, the velocities by one dual
/// evaluation of each pose along `(t, q) -> (1, qd)`.
pub fn kinetic<E: Elements + ?Sized, D: Scalar>(e: &E, t: D, q: &[D], qd: &[D]) -> D {
    let zero = t * 0.0;
    with_slice(q.len(), Dual::new(zero, zero), |path| {
        for ((p, &x), &v) in path.iter_mut().zip(q).zip(qd) {
            *p = Dual::new(x, v);
        }
        let time = Dual::new(t, zero + 1.0);
        let mut total = zero;
        for k in 0..e.count() {
            let el = e.element(k);
            let pose = e.place(k, time, path);
            let v = pose.position;
            total +=
                (v[0].eps * v[0].eps + v[1].eps * v[1].eps + v[2].eps * v[2].eps) * (0.5 * el.mass);
            if !el.is_particle() {
                total += pose.angle.eps * pose.angle.eps * (0.5 * el.inertia());
            }
        }
        total
    })
}

/// Appell's acceleration energy
/// `S = sum 1/2 m |r_C''|^2 + 1/2 I (theta''^2 + theta'^4)`; the
/// accelerations are the second derivatives of the poses along
/// `t + s`, `q + qd s + qdd s^2 / 2` (hyper-dual numbers with both
/// directions `(1, qd)` and the mixed part `qdd`).
pub fn acceleration_energy<E: Elements + ?Sized, D: Scalar>(
    e: &E,
    t: D,
    q: &[D],
    qd: &[D],
    qdd: &[D],
) -> D {
    let zero = t * 0.0;
    let one = zero + 1.0;
    with_slice(q.len(), HyperDual::new(zero, zero, zero, zero), |path| {
        for (i, p) in path.iter_mut().enumerate() {
            *p = HyperDual::new(q[i], qd[i], qd[i], qdd[i]);
        }
        let time = HyperDual::new(t, one, one, zero);
        let mut total = zero;
        for k in 0..e.count() {
            let el = e.element(k);
            let pose = e.place(k, time, path);
            let a = pose.position;
            total += (a[0].eps1eps2 * a[0].eps1eps2
                + a[1].eps1eps2 * a[1].eps1eps2
                + a[2].eps1eps2 * a[2].eps1eps2)
                * (0.5 * el.mass);
            if !el.is_particle() {
                let (w, alpha) = (pose.angle.eps1, pose.angle.eps1eps2);
                total += (alpha * alpha + w * w * w * w) * (0.5 * el.inertia());
            }
        }
        total
    })
}

/// The potential of a uniform field `g` (frame axes; `[0, -9.81, 0]` for
/// gravity along `-y`): `V = -sum m g . r_C`.
pub fn gravity_potential<E: Elements + ?Sized, D: Scalar>(e: &E, t: D, q: &[D], g: [f64; 3]) -> D {
    let mut v = t * 0.0;
    for k in 0..e.count() {
        let r = e.place(k, t, q).position;
        v -= (r[0] * g[0] + r[1] * g[1] + r[2] * g[2]) * e.element(k).mass;
    }
    v
}

/// The prescribed motion of a moving frame at one time, in its own axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameMotion {
    /// Acceleration of the origin, `a_O`.
    pub origin_acceleration: [f64; 3],
    /// Angular velocity `omega`.
    pub angular_velocity: [f64; 3],
    /// Angular acceleration `omega'` (the derivative of `omega`, the same
    /// in both frames).
    pub angular_acceleration: [f64; 3],
}

/// The generalized inertial forces of a moving frame (Zhang & Xia 2024,
/// eq 30), by their parts.
#[derive(Debug, Clone, PartialEq)]
pub struct InertialForces {
    /// `d(Pi_O + Pi_omega)/dq` (eqs 31, 32): the uniform field of `-a_O`
    /// and the centrifugal potential.
    pub potential_gradient: Vec<f64>,
    /// `Q_omega` (eq 33): the generalized rotational inertia force.
    pub rotational: Vec<f64>,
    /// `Gamma` (eq 34): the generalized gyroscopic (Coriolis) force.
    pub gyroscopic: Vec<f64>,
}

impl InertialForces {
    /// Their sum `-d(Pi_O + Pi_omega)/dq + Q_omega + Gamma`.
    pub fn total(&self) -> Vec<f64> {
        (0..self.rotational.len())
            .map(|s| -self.potential_gradient[s] + self.rotational[s] + self.gyroscopic[s])
            .collect()
    }
}

fn axpy(a: [f64; 3], s: f64, b: [f64; 3]) -> [f64; 3] {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

/// Calls `f(s, d Pi / dq_s, Q_omega_s, Gamma_s)` with each element's
/// (equivalent point's) contribution. No allocation for `n <= 16`.
fn visit<E: Elements + ?Sized>(
    e: &E,
    frame: &FrameMotion,
    t: f64,
    q: &[f64],
    qd: &[f64],
    mut f: impl FnMut(usize, f64, f64, f64),
) {
    let n = q.len();
    let (a_o, w, dw) = (
        frame.origin_acceleration,
        frame.angular_velocity,
        frame.angular_acceleration,
    );
    with_slice(n, Dual64::new(0.0, 0.0), |path| {
        for k in 0..e.count() {
            let el = e.element(k);
            // Pose and its rate.
            for ((p, &x), &v) in path.iter_mut().zip(q).zip(qd) {
                *p = Dual64::new(x, v);
            }
            let pose = e.place(k, Dual64::new(t, 1.0), path);
            let rc = pose.position.map(|x| x.re);
            let vc = pose.position.map(|x| x.eps);
            let (theta, omega) = (pose.angle.re, pose.angle.eps);
            // The equivalent points: offsets u from the centre.
            let [e1, e2] = el.plane;
            let axis = cross(e1, e2);
            let (s, c) = theta.sin_cos();
            let bx = axpy(e1.map(|x| x * c), s, e2);
            let by = axpy(e1.map(|x| -x * s), c, e2);
            let mut offsets = [[0.0; 3]; 6];
            let (count, mass) = if el.is_particle() {
                (1, el.mass)
            } else {
                for (a, b) in [bx, by, axis].into_iter().enumerate() {
                    let d = (3.0 * el.second_moments[a] / el.mass).sqrt();
                    offsets[2 * a] = b.map(|x| x * d);
                    offsets[2 * a + 1] = b.map(|x| -x * d);
                }
                (6, el.mass / 6.0)
            };
            // dr/dq_s of the centre and the angle, one coordinate at a time.
            for s in 0..n {
                for (j, (p, &x)) in path.iter_mut().zip(q).enumerate() {
                    *p = Dual64::new(x, if j == s { 1.0 } else { 0.0 });
                }
                let ps = e.place(k, Dual64::new(t, 0.0), path);
                let drc = ps.position.map(|x| x.eps);
                let dtheta = ps.angle.eps;
                let (mut grad, mut rot, mut gyro) = (0.0, 0.0, 0.0);
                for u in &offsets[..count] {
                    let turn = cross(axis, *u);
                    let r = axpy(rc, 1.0, *u);
                    let v = axpy(vc, omega, turn);
                    let dr = axpy(drc, dtheta, turn);
                    grad += mass * (dot(a_o, dr) - dot(cross(w, r), cross(w, dr)));
                    rot -= mass * dot(cross(dw, r), dr);
                    gyro -= 2.0 * mass * dot(cross(w, v), dr);
                }
                f(s, grad, rot, gyro);
            }
        }
    });
}

/// The generalized inertial forces of `frame` on the elements at
/// `(t, q, qd)`, by parts.
pub fn inertial_forces<E: Elements + ?Sized>(
    e: &E,
    frame: &FrameMotion,
    t: f64,
    q: &[f64],
    qd: &[f64],
) -> InertialForces {
    let n = q.len();
    let mut out = InertialForces {
        potential_gradient: vec![0.0; n],
        rotational: vec![0.0; n],
        gyroscopic: vec![0.0; n],
    };
    visit(e, frame, t, q, qd, |s, grad, rot, gyro| {
        out.potential_gradient[s] += grad;
        out.rotational[s] += rot;
        out.gyroscopic[s] += gyro;
    });
    out
}

/// Adds the total of [`inertial_forces`] to `out` (no allocation for up
/// to 16 coordinates): for a relative system's
/// [`System::forces`](crate::System::forces).
pub fn add_inertial_forces<E: Elements + ?Sized>(
    e: &E,
    frame: &FrameMotion,
    t: f64,
    q: &[f64],
    qd: &[f64],
    out: &mut [f64],
) {
    visit(e, frame, t, q, qd, |s, grad, rot, gyro| {
        out[s] += -grad + rot + gyro;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` particles of masses `1..=n`, particle `i` at
    /// `(q_i^2, sin(t) q_i, 0)`: `x' = 2 q q'`, `y' = cos(t) q + sin(t) q'`,
    /// `x'' = 2 q'^2 + 2 q q''`,
    /// `y'' = -sin(t) q + 2 cos(t) q' + sin(t) q''`.
    struct Row(usize);

    impl Elements for Row {
        fn count(&self) -> usize {
            self.0
        }
        fn element(&self, k: usize) -> Element {
            Element::particle((k + 1) as f64)
        }
        fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D> {
            Pose::point([q[k] * q[k], t.sin() * q[k], t * 0.0])
        }
    }

    #[test]
    fn t_and_s_of_particles_on_the_stack_and_on_the_heap() {
        // 20 coordinates: past the stack buffer.
        for n in [3, 20] {
            let row = Row(n);
            let t = 0.7;
            let q: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 - 0.5).collect();
            let qd: Vec<f64> = (0..n).map(|i| 0.3 - 0.05 * i as f64).collect();
            let qdd: Vec<f64> = (0..n).map(|i| (i as f64).cos()).collect();
            let (s, c) = f64::sin_cos(t);
            let (mut t_want, mut s_want) = (0.0, 0.0);
            for i in 0..n {
                let m = (i + 1) as f64;
                let (x, v, a) = (q[i], qd[i], qdd[i]);
                let (vx, vy) = (2.0 * x * v, c * x + s * v);
                let (ax, ay) = (2.0 * v * v + 2.0 * x * a, -s * x + 2.0 * c * v + s * a);
                t_want += 0.5 * m * (vx * vx + vy * vy);
                s_want += 0.5 * m * (ax * ax + ay * ay);
            }
            let t_got = kinetic(&row, t, &q, &qd);
            let s_got = acceleration_energy(&row, t, &q, &qd, &qdd);
            assert!(
                (t_got - t_want).abs() < 1e-14 * t_want,
                "{n}: {t_got} {t_want}"
            );
            assert!(
                (s_got - s_want).abs() < 1e-14 * s_want,
                "{n}: {s_got} {s_want}"
            );
        }
    }
}
