//! Nonholonomic systems: velocity-level constraints, Pfaffian and not,
//! with closed forms (Liu Caishan, "The fundamental equations in analytical
//! mechanics for nonholonomic systems", 2016; Neimark & Fufaev, "Dynamics of
//! nonholonomic systems", 1972).
//!
//! Each system gives its kinetic energy `T` by hand and Appell's
//! acceleration energy `S` from where its masses are
//! ([`elements`]), so that the Appell form checks `T`.
//! A rigid body in space is given to the elements as six particles of
//! `m/6` at `+-sqrt(3 s_a / m)` along its principal axes (`s_a` its
//! principal second moments `sum m x_a^2`): the velocity and acceleration
//! fields of a rigid body are affine in the offset from its centre, so
//! these points have exactly its `T` and `S`.
//!
//! The constraints are written as `f(t, q, qd) = 0` with
//! [`ConstraintKind::Velocity`]; the core turns them into acceleration rows
//! by Chetaev's rule (`f_qd qdd = -f_q qd - f_t`, virtual accelerations
//! `f_qd dqdd = 0`). With `M qdd + h = Q + A^T lambda` and `A = f_qd`, the
//! multipliers are the constraint forces along the rows documented per
//! system.

use super::Entry;
use crate::elements::{self, Element, Elements, Pose};
use crate::{AnySystem, ConstraintKind, Generalized, GeneralizedError, Scalar, System};

fn boxed<S: System + 'static>(s: S) -> Result<Box<dyn AnySystem>, GeneralizedError> {
    Ok(Box::new(Generalized::new(s)?))
}

const ENTRIES: &[Entry] = &[
    Entry {
        name: "chaplygin_sleigh",
        summary: "Chaplygin sleigh: a body on a blade behind its centre, turning into a straight line",
        build: || boxed(ChaplyginSleigh::default()),
    },
    Entry {
        name: "knife_edge_incline",
        summary: "knife edge on an inclined plane (Neimark & Fufaev): a cycloid-like path down the slope",
        build: || boxed(KnifeEdge::default()),
    },
    Entry {
        name: "vertical_disk",
        summary: "vertical disk rolling without slipping: its contact runs on a circle",
        build: || boxed(VerticalDisk::default()),
    },
    Entry {
        name: "euler_disk",
        summary: "tilting (Euler) disk rolling without slipping in five coordinates, started in steady circular rolling",
        build: || boxed(EulerDisk::default()),
    },
    Entry {
        name: "appell_hamel",
        summary: "Appell-Hamel: a particle in gravity with z' = a |(x', y')| (nonlinear nonholonomic)",
        build: || boxed(AppellHamel::default()),
    },
];

/// The nonholonomic systems, in the catalog's [`Entry`] form (names
/// distinct from the main list's).
pub fn entries() -> &'static [Entry] {
    ENTRIES
}

fn cross<D: Scalar>(a: [D; 3], b: [D; 3]) -> [D; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Turns `v` by `a` about the `z` axis.
fn rot_z<D: Scalar>(a: D, v: [D; 3]) -> [D; 3] {
    let (s, c) = a.sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]]
}

/// Turns `v` by `a` about the `x` axis.
fn rot_x<D: Scalar>(a: D, v: [D; 3]) -> [D; 3] {
    let (s, c) = a.sin_cos();
    [v[0], c * v[1] - s * v[2], s * v[1] + c * v[2]]
}

/// Turns `v` by `a` about the `y` axis.
fn rot_y<D: Scalar>(a: D, v: [D; 3]) -> [D; 3] {
    let (s, c) = a.sin_cos();
    [c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]]
}

/// Offset of point `k` (of six) of a body with principal second moments
/// `s` (body axes) and mass `m`: `+-sqrt(3 s_a / m)` along axis `k / 2`.
fn six_point_offset(k: usize, m: f64, s: [f64; 3]) -> [f64; 3] {
    let mut b = [0.0; 3];
    let sign = if k.is_multiple_of(2) { 1.0 } else { -1.0 };
    b[k / 2] = sign * (3.0 * s[k / 2] / m).sqrt();
    b
}

/// The heading unit vector `(cos a, sin a)` and its left normal
/// `(-sin a, cos a)`.
fn heading(a: f64) -> ([f64; 2], [f64; 2]) {
    let (s, c) = a.sin_cos();
    ([c, s], [-s, c])
}

/// Chaplygin's sleigh: a body of mass `m` (moment of inertia `inertia`
/// about its centre `C`) on a knife edge at `P`, a distance `a` behind `C`
/// on the body's axis, that cannot slip sideways. `q = (x, y, theta)`: `C`
/// and the axis's angle from `x`. The blade's point moves along the axis:
/// `f = -sin(theta) x' + cos(theta) y' - a theta' = 0`, the sideways
/// velocity of `P` (`v_P = v_C - a theta' n`, `n = (-sin, cos)`).
/// `lambda` is the blade's sideways force on the body, along `n`.
///
/// With `u` the speed of `P` along the axis and `w = theta'`,
/// `u' = a w^2`, `w' = -(m a / J) u w` with `J = I + m a^2`: see
/// [`ChaplyginSleigh::closed_form`].
#[derive(Debug, Clone, PartialEq)]
pub struct ChaplyginSleigh {
    /// Mass `m`, kg. Default 1.
    pub m: f64,
    /// Moment of inertia about `C`, kg m^2. Default 0.2.
    pub inertia: f64,
    /// Distance `a` from `C` forward of the blade, m. Default 0.5.
    pub a: f64,
    /// Initial `(x, y, theta)`. Default `(0, 0, 0)`.
    pub q0: [f64; 3],
    /// Initial speed `u` along the axis, m/s. Default 0.5.
    pub u0: f64,
    /// Initial rate `w = theta'`, rad/s. Default 2.
    pub w0: f64,
}

impl Default for ChaplyginSleigh {
    fn default() -> Self {
        ChaplyginSleigh {
            m: 1.0,
            inertia: 0.2,
            a: 0.5,
            q0: [0.0; 3],
            u0: 0.5,
            w0: 2.0,
        }
    }
}

impl ChaplyginSleigh {
    /// `qd` at angle `theta` with speed `u` along the axis and rate `w`:
    /// `v_C = u e + a w n`.
    pub fn velocity(&self, theta: f64, u: f64, w: f64) -> [f64; 3] {
        let (e, n) = heading(theta);
        [
            u * e[0] + self.a * w * n[0],
            u * e[1] + self.a * w * n[1],
            w,
        ]
    }

    /// `J = I + m a^2`, the moment of inertia about the blade.
    pub fn blade_inertia(&self) -> f64 {
        self.inertia + self.m * self.a * self.a
    }

    /// `(u, w, theta)` at time `t` from the initial state. Energy
    /// `m u^2 + J w^2 = m U^2` is conserved, so `u' = (a m / J)(U^2 - u^2)`:
    /// `u = U tanh(k t + c0)` with `k = a m U / J`, `c0 = atanh(u0 / U)`;
    /// `w = w0 cosh(c0) / cosh(k t + c0)`; and
    /// `theta = theta0 + (w0 cosh(c0) / k) (gd(k t + c0) - gd(c0))` with
    /// `gd(s) = atan(sinh s)`. Needs `w0 != 0` (else `u` is constant).
    pub fn closed_form(&self, t: f64) -> (f64, f64, f64) {
        let (m, a, j) = (self.m, self.a, self.blade_inertia());
        let big_u = (self.u0 * self.u0 + j * self.w0 * self.w0 / m).sqrt();
        let k = a * m * big_u / j;
        let c0 = (self.u0 / big_u).atanh();
        let s = k * t + c0;
        let u = big_u * s.tanh();
        let w = self.w0 * c0.cosh() / s.cosh();
        let gd = |s: f64| s.sinh().atan();
        let theta = self.q0[2] + self.w0 * c0.cosh() / k * (gd(s) - gd(c0));
        (u, w, theta)
    }

    /// The heading the sleigh tends to, `theta(inf) = theta0 +
    /// (w0 cosh(c0) / k) (pi/2 - gd(c0))`, where
    /// `w0 cosh(c0) / k = sign(w0) sqrt(J / m) / a`.
    pub fn asymptotic_heading(&self) -> f64 {
        let (m, a, j) = (self.m, self.a, self.blade_inertia());
        let big_u = (self.u0 * self.u0 + j * self.w0 * self.w0 / m).sqrt();
        let c0 = (self.u0 / big_u).atanh();
        let factor = self.w0.signum() * (j / m).sqrt() / a;
        self.q0[2] + factor * (std::f64::consts::FRAC_PI_2 - c0.sinh().atan())
    }
}

impl Elements for ChaplyginSleigh {
    fn count(&self) -> usize {
        1
    }
    fn element(&self, _k: usize) -> Element {
        Element::body(self.m, self.inertia)
    }
    fn place<D: Scalar>(&self, _k: usize, t: D, q: &[D]) -> Pose<D> {
        Pose::body([q[0], q[1], t * 0.0], q[2])
    }
}

impl System for ChaplyginSleigh {
    fn dof(&self) -> usize {
        3
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y", "theta"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m) + qd[2] * qd[2] * (0.5 * self.inertia)
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, q: &[D], qd: &[D]) -> D {
        let (s, c) = q[2].sin_cos();
        -s * qd[0] + c * qd[1] - qd[2] * self.a
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (
            self.q0.to_vec(),
            self.velocity(self.q0[2], self.u0, self.w0).to_vec(),
        )
    }
}

/// A knife edge (skate) on a plane inclined at `alpha`: `q = (x, y, phi)`
/// with `x` down the slope, `phi` the blade's angle from `x`; the blade
/// passes through the centre of mass and cannot move sideways:
/// `f = -sin(phi) x' + cos(phi) y' = 0`. Gravity pulls with
/// `m g sin(alpha)` along `x` (`V = -m g sin(alpha) x`). `lambda` is the
/// blade's sideways force along `(-sin phi, cos phi)`.
///
/// From rest at the origin with `phi = 0`, `phi' = w` (Neimark & Fufaev):
/// `phi = w t`, `x = (g sin(alpha) / (2 w^2)) sin^2(w t)`,
/// `y = (g sin(alpha) / (2 w^2)) (w t - sin(w t) cos(w t))`
/// ([`KnifeEdge::closed_form`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KnifeEdge {
    /// Mass, kg. Default 1.
    pub m: f64,
    /// Moment of inertia about the vertical through the centre, kg m^2.
    /// Default 0.05.
    pub inertia: f64,
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// Inclination of the plane `alpha`, rad (0: level). Default 0.3.
    pub alpha: f64,
    /// Initial `phi'` from rest at the origin with `phi = 0`, rad/s.
    /// Default 2.
    pub w0: f64,
}

impl Default for KnifeEdge {
    fn default() -> Self {
        KnifeEdge {
            m: 1.0,
            inertia: 0.05,
            g: 9.81,
            alpha: 0.3,
            w0: 2.0,
        }
    }
}

impl KnifeEdge {
    /// `(x, y, phi)` at time `t` from rest at the origin with `phi = 0`,
    /// `phi' = w0`: the speed along the blade obeys
    /// `v' = g sin(alpha) cos(w t)`, so `v = (g sin(alpha) / w) sin(w t)`.
    pub fn closed_form(&self, t: f64) -> [f64; 3] {
        let w = self.w0;
        let k = self.g * self.alpha.sin() / (2.0 * w * w);
        let (s, c) = (w * t).sin_cos();
        [k * s * s, k * (w * t - s * c), w * t]
    }

    /// The velocity `(x', y', phi')` of the same motion.
    pub fn closed_form_velocity(&self, t: f64) -> [f64; 3] {
        let w = self.w0;
        let (s, c) = (w * t).sin_cos();
        let v = self.g * self.alpha.sin() / w * s;
        [v * c, v * s, w]
    }
}

impl Elements for KnifeEdge {
    fn count(&self) -> usize {
        1
    }
    fn element(&self, _k: usize) -> Element {
        Element::body(self.m, self.inertia)
    }
    fn place<D: Scalar>(&self, _k: usize, t: D, q: &[D]) -> Pose<D> {
        Pose::body([q[0], q[1], t * 0.0], q[2])
    }
}

impl System for KnifeEdge {
    fn dof(&self) -> usize {
        3
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y", "phi"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m) + qd[2] * qd[2] * (0.5 * self.inertia)
    }
    fn potential<D: Scalar>(&self, t: D, q: &[D]) -> D {
        elements::gravity_potential(self, t, q, [self.g * self.alpha.sin(), 0.0, 0.0])
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, q: &[D], qd: &[D]) -> D {
        let (s, c) = q[2].sin_cos();
        -s * qd[0] + c * qd[1]
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0; 3], vec![0.0, 0.0, self.w0])
    }
}

/// A disk of radius `r` kept vertical, rolling without slipping on a
/// level plane: `q = (x, y, phi, psi)`, the contact point, the heading
/// (the disk's plane contains `(cos phi, sin phi, 0)`) and the spin about
/// the axle `(-sin phi, cos phi, 0)`. The two rolling constraints
/// `f1 = x' - r psi' cos(phi) = 0`, `f2 = y' - r psi' sin(phi) = 0`;
/// `lambda` is the horizontal contact force `(F_x, F_y)`.
///
/// Free of forces, `phi'` and `psi'` are constant and the contact point
/// runs on a circle of radius `r psi' / phi'` ([`VerticalDisk::closed_form`]).
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalDisk {
    /// Mass, kg. Default 1.
    pub m: f64,
    /// Radius, m. Default 0.3.
    pub r: f64,
    /// Moment of inertia about the axle, kg m^2. Default `m r^2 / 2`
    /// (uniform thin disk).
    pub axial: f64,
    /// Moment of inertia about a diameter, kg m^2; at least `axial / 2`.
    /// Default `m r^2 / 4`.
    pub diametral: f64,
    /// Initial `(x, y, phi, psi)`. Default `(0, 0, 0, 0)`.
    pub q0: [f64; 4],
    /// Initial heading rate `phi'`, rad/s. Default 1.5.
    pub phid0: f64,
    /// Initial spin rate `psi'`, rad/s. Default 4.
    pub psid0: f64,
}

impl Default for VerticalDisk {
    fn default() -> Self {
        VerticalDisk::uniform(1.0, 0.3)
    }
}

impl VerticalDisk {
    /// A uniform thin disk of mass `m` and radius `r`, with the default
    /// initial state.
    pub fn uniform(m: f64, r: f64) -> Self {
        VerticalDisk {
            m,
            r,
            axial: 0.5 * m * r * r,
            diametral: 0.25 * m * r * r,
            q0: [0.0; 4],
            phid0: 1.5,
            psid0: 4.0,
        }
    }

    /// `qd` at heading `phi` with rates `phi'`, `psi'` (the rolling
    /// velocity `r psi'` along the heading).
    pub fn velocity(&self, phi: f64, phid: f64, psid: f64) -> [f64; 4] {
        let (e, _) = heading(phi);
        [self.r * psid * e[0], self.r * psid * e[1], phid, psid]
    }

    /// `q` at time `t`: `phi = phi0 + phi' t`, `psi = psi0 + psi' t`, the
    /// contact at `(x0, y0) + rho (sin phi - sin phi0, cos phi0 - cos phi)`
    /// with `rho = r psi' / phi'` (a straight line when `phi' = 0`).
    pub fn closed_form(&self, t: f64) -> [f64; 4] {
        let [x0, y0, phi0, psi0] = self.q0;
        let phi = phi0 + self.phid0 * t;
        let psi = psi0 + self.psid0 * t;
        let (dx, dy) = if self.phid0 == 0.0 {
            let v = self.r * self.psid0 * t;
            (v * phi0.cos(), v * phi0.sin())
        } else {
            let rho = self.r * self.psid0 / self.phid0;
            (
                rho * (phi.sin() - phi0.sin()),
                rho * (phi0.cos() - phi.cos()),
            )
        };
        [x0 + dx, y0 + dy, phi, psi]
    }

    /// Principal second moments in the body axes (heading, axle,
    /// vertical at `psi = 0`).
    fn second_moments(&self) -> [f64; 3] {
        let s_plane = 0.5 * self.axial;
        [s_plane, (self.diametral - s_plane).max(0.0), s_plane]
    }
}

impl Elements for VerticalDisk {
    fn count(&self) -> usize {
        6
    }
    fn element(&self, _k: usize) -> Element {
        Element::particle(self.m / 6.0)
    }
    fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D> {
        let zero = t * 0.0;
        let b = six_point_offset(k, self.m, self.second_moments());
        let b = [zero + b[0], zero + b[1], zero + b[2]];
        // Spin about the body's y (the axle), then heading about z.
        let p = rot_z(q[2], rot_y(q[3], b));
        Pose::point([q[0] + p[0], q[1] + p[1], p[2] + self.r])
    }
}

impl System for VerticalDisk {
    fn dof(&self) -> usize {
        4
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y", "phi", "psi"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m)
            + qd[2] * qd[2] * (0.5 * self.diametral)
            + qd[3] * qd[3] * (0.5 * self.axial)
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn constraints(&self) -> usize {
        2
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, k: usize, _t: D, q: &[D], qd: &[D]) -> D {
        let (s, c) = q[2].sin_cos();
        if k == 0 {
            qd[0] - qd[3] * c * self.r
        } else {
            qd[1] - qd[3] * s * self.r
        }
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (
            self.q0.to_vec(),
            self.velocity(self.q0[2], self.phid0, self.psid0).to_vec(),
        )
    }
}

/// A disk of radius `r` rolling without slipping on a level plane, free
/// to tilt (Euler's disk): `q = (x, y, phi, theta, psi)`, the horizontal
/// position of the centre, the heading, the tilt of the axle from the
/// horizontal (of the disk from the vertical), and the spin. The
/// orientation is `Rz(phi) Rx(theta) Ry(psi)` (body axes: `x` along the
/// heading, `y` the axle, `z` up at rest); the centre is at height
/// `r cos(theta)` above the contact, which is at `-r d` from it with
/// `d = (sin phi sin theta, -cos phi sin theta, cos theta)` the disk's
/// upward direction in its plane.
///
/// The two rolling constraints are the horizontal components of the
/// velocity of the disk's material point at the contact,
/// `v_C - r omega x d = 0` with `omega = phi' z + theta' e + psi' a`
/// (`e` the heading, `a` the axle); its vertical component vanishes
/// identically in these coordinates. `lambda` is the horizontal contact
/// force `(F_x, F_y)`.
///
/// `T = m/2 (x'^2 + y'^2 + r^2 sin^2(theta) theta'^2)
///    + I_a/2 (psi' + phi' sin theta)^2 + I_d/2 (phi'^2 cos^2 theta + theta'^2)`,
/// `V = m g r cos(theta)`. Steady rolling at constant tilt:
/// [`EulerDisk::steady_spin`].
#[derive(Debug, Clone, PartialEq)]
pub struct EulerDisk {
    /// Mass, kg. Default 1.
    pub m: f64,
    /// Radius, m. Default 0.3.
    pub r: f64,
    /// Moment of inertia about the axle `I_a`, kg m^2. Default `m r^2 / 2`.
    pub axial: f64,
    /// Moment of inertia about a diameter `I_d`, kg m^2; at least
    /// `axial / 2`. Default `m r^2 / 4`.
    pub diametral: f64,
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// Initial `q`. Default: tilt 0.3, the rest 0.
    pub q0: [f64; 5],
    /// Initial `qd`. Default: steady rolling at heading rate 2 rad/s
    /// ([`EulerDisk::steady_velocity`]).
    pub qd0: [f64; 5],
}

impl Default for EulerDisk {
    fn default() -> Self {
        EulerDisk::uniform(1.0, 0.3).steady(0.3, 2.0)
    }
}

impl EulerDisk {
    /// A uniform thin disk of mass `m` and radius `r`, upright and at rest.
    pub fn uniform(m: f64, r: f64) -> Self {
        EulerDisk {
            m,
            r,
            axial: 0.5 * m * r * r,
            diametral: 0.25 * m * r * r,
            g: 9.81,
            q0: [0.0; 5],
            qd0: [0.0; 5],
        }
    }

    /// The same disk started at the origin, heading 0, in steady rolling
    /// at tilt `theta` and heading rate `omega`.
    pub fn steady(mut self, theta: f64, omega: f64) -> Self {
        self.q0 = [0.0, 0.0, 0.0, theta, 0.0];
        self.qd0 = self.steady_velocity(0.0, theta, omega);
        self
    }

    /// The spin `psi'` of steady rolling at tilt `theta` with heading rate
    /// `omega` (`theta' = 0`): the rate about the axle
    /// `w_a = psi' + omega sin(theta)` solves Euler's equation about the
    /// centre, `(I_a + m r^2) omega w_a cos(theta)
    /// - I_d omega^2 sin(theta) cos(theta) + m g r sin(theta) = 0`
    /// (the gyroscopic torque balances that of gravity and of the contact
    /// force that bends the centre's path). `omega` must not be 0.
    pub fn steady_spin(&self, theta: f64, omega: f64) -> f64 {
        let (s, c) = theta.sin_cos();
        let w_a = (self.diametral * omega * omega * s * c - self.m * self.g * self.r * s)
            / ((self.axial + self.m * self.r * self.r) * omega * c);
        w_a - omega * s
    }

    /// `qd` of steady rolling at heading `phi`, tilt `theta`, heading rate
    /// `omega`: the centre moves along the heading at `r w_a`.
    pub fn steady_velocity(&self, phi: f64, theta: f64, omega: f64) -> [f64; 5] {
        let psid = self.steady_spin(theta, omega);
        let v = self.r * (psid + omega * theta.sin());
        let (e, _) = heading(phi);
        [v * e[0], v * e[1], omega, 0.0, psid]
    }

    /// `(x', y')` that satisfy the rolling constraints at `(phi, theta)`
    /// with rates `(phi', theta', psi')`: `r omega x d` horizontally.
    pub fn rolling_velocity(&self, phi: f64, theta: f64, rates: [f64; 3]) -> [f64; 5] {
        let (w, d) = Self::frame(phi, theta, rates);
        let v = cross(w, d);
        [self.r * v[0], self.r * v[1], rates[0], rates[1], rates[2]]
    }

    /// `omega = phi' z + theta' e + psi' a` and `d` (see the type's docs).
    fn frame<D: Scalar>(phi: D, theta: D, rates: [D; 3]) -> ([D; 3], [D; 3]) {
        let (sp, cp) = phi.sin_cos();
        let (st, ct) = theta.sin_cos();
        let zero = phi * 0.0;
        let e = [cp, sp, zero];
        let a = [-sp * ct, cp * ct, st];
        let d = [sp * st, -cp * st, ct];
        let [pd, td, sd] = rates;
        let w = [
            td * e[0] + sd * a[0],
            td * e[1] + sd * a[1],
            pd + td * e[2] + sd * a[2],
        ];
        (w, d)
    }

    /// The contact point `(x, y)` at `q`.
    pub fn contact(&self, q: &[f64]) -> [f64; 2] {
        let (_, d) = Self::frame(q[2], q[3], [0.0; 3]);
        [q[0] - self.r * d[0], q[1] - self.r * d[1]]
    }

    fn second_moments(&self) -> [f64; 3] {
        let s_plane = 0.5 * self.axial;
        [s_plane, (self.diametral - s_plane).max(0.0), s_plane]
    }
}

impl Elements for EulerDisk {
    fn count(&self) -> usize {
        6
    }
    fn element(&self, _k: usize) -> Element {
        Element::particle(self.m / 6.0)
    }
    fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D> {
        let zero = t * 0.0;
        let b = six_point_offset(k, self.m, self.second_moments());
        let b = [zero + b[0], zero + b[1], zero + b[2]];
        let p = rot_z(q[2], rot_x(q[3], rot_y(q[4], b)));
        let z = q[3].cos() * self.r;
        Pose::point([q[0] + p[0], q[1] + p[1], z + p[2]])
    }
}

impl System for EulerDisk {
    fn dof(&self) -> usize {
        5
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y", "phi", "theta", "psi"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, q: &[D], qd: &[D]) -> D {
        let (st, ct) = q[3].sin_cos();
        let (pd, td, sd) = (qd[2], qd[3], qd[4]);
        let vz = st * td * self.r;
        let w_a = sd + pd * st;
        let w_perp2 = pd * pd * ct * ct + td * td;
        (qd[0] * qd[0] + qd[1] * qd[1] + vz * vz) * (0.5 * self.m)
            + w_a * w_a * (0.5 * self.axial)
            + w_perp2 * (0.5 * self.diametral)
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        q[3].cos() * (self.m * self.g * self.r)
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn constraints(&self) -> usize {
        2
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, k: usize, _t: D, q: &[D], qd: &[D]) -> D {
        let (w, d) = Self::frame(q[2], q[3], [qd[2], qd[3], qd[4]]);
        let v = cross(w, d);
        qd[k] - v[k] * self.r
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.to_vec(), self.qd0.to_vec())
    }
}

/// Appell and Hamel's example of a nonlinear nonholonomic constraint: a
/// particle of mass `m` in gravity (`-z`) whose climb rate is tied to its
/// horizontal speed, `f = z' - a sqrt(x'^2 + y'^2) = 0` (Appell 1911,
/// Hamel). `q = (x, y, z)`. By Chetaev's rule the force is
/// `lambda f_qd = lambda (-a x'/v, -a y'/v, 1)`: the horizontal velocity
/// keeps its direction and its size `v` obeys `v' = -g a / (1 + a^2)`,
/// with `lambda = m g / (1 + a^2)` ([`AppellHamel::closed_form`]).
/// `f` is homogeneous of degree 1 in `qd`, so the force does no work:
/// `T + V` is conserved. The row is singular at `v = 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct AppellHamel {
    /// Mass, kg. Default 1.
    pub m: f64,
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// The ratio `a` of climb rate to horizontal speed. Default 0.5.
    pub a: f64,
    /// Initial horizontal velocity `(x', y')` (from the origin), m/s.
    /// Default `(3, 4)`.
    pub v0: [f64; 2],
}

impl Default for AppellHamel {
    fn default() -> Self {
        AppellHamel {
            m: 1.0,
            g: 9.81,
            a: 0.5,
            v0: [3.0, 4.0],
        }
    }
}

impl AppellHamel {
    /// `v' = -g a / (1 + a^2)`, the horizontal deceleration.
    pub fn deceleration(&self) -> f64 {
        self.g * self.a / (1.0 + self.a * self.a)
    }

    /// When the horizontal speed reaches 0 (the run must stop before).
    pub fn stop_time(&self) -> f64 {
        self.v0[0].hypot(self.v0[1]) / self.deceleration()
    }

    /// `(q, qd)` at time `t < stop_time()`: `v = v0 - k t`, the path
    /// `s = v0 t - k t^2 / 2` along the initial direction, `z = a s`.
    pub fn closed_form(&self, t: f64) -> ([f64; 3], [f64; 3]) {
        let speed = self.v0[0].hypot(self.v0[1]);
        let u = [self.v0[0] / speed, self.v0[1] / speed];
        let k = self.deceleration();
        let v = speed - k * t;
        let s = speed * t - 0.5 * k * t * t;
        (
            [u[0] * s, u[1] * s, self.a * s],
            [u[0] * v, u[1] * v, self.a * v],
        )
    }
}

impl Elements for AppellHamel {
    fn count(&self) -> usize {
        1
    }
    fn element(&self, _k: usize) -> Element {
        Element::particle(self.m)
    }
    fn place<D: Scalar>(&self, _k: usize, _t: D, q: &[D]) -> Pose<D> {
        Pose::point([q[0], q[1], q[2]])
    }
}

impl System for AppellHamel {
    fn dof(&self) -> usize {
        3
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y", "z"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2]) * (0.5 * self.m)
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        q[2] * (self.m * self.g)
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Velocity
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, _q: &[D], qd: &[D]) -> D {
        qd[2] - (qd[0] * qd[0] + qd[1] * qd[1]).sqrt() * self.a
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let (q, qd) = self.closed_form(0.0);
        (q.to_vec(), qd.to_vec())
    }
}
