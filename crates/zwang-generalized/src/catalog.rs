//! Systems in generalized coordinates with their parameters, by name
//! (what `zwang compare --system NAME` offers).
//!
//! Each system is a plain struct whose public fields are its parameters
//! (SI units; `Default` gives the documented values) and implements
//! [`System`]; [`entries`] lists them by name and [`by_name`] builds one,
//! with its default parameters, wrapped as an [`AnySystem`]. To add a
//! system: a struct, its `System` impl, and an [`Entry`] in the list.
//!
//! Angles are measured from the downward vertical unless said otherwise;
//! gravity is `g` along `-y` (`-z` for [`RodOnTurningAxis`]).

use crate::elements::{self, Element, Elements, FrameMotion, Pose};
use crate::{AnySystem, ConstraintKind, Generalized, GeneralizedError, Scalar, System};
use num_dual::HyperDual64;

pub mod nonholonomic;

/// A system of the catalog: its name, one line about it, and how to build
/// it with its default parameters.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The name `by_name` takes.
    pub name: &'static str,
    /// What it is, in one line.
    pub summary: &'static str,
    /// Builds it with its default parameters.
    pub build: fn() -> Result<Box<dyn AnySystem>, GeneralizedError>,
}

fn boxed<S: System + 'static>(s: S) -> Result<Box<dyn AnySystem>, GeneralizedError> {
    Ok(Box::new(Generalized::new(s)?))
}

const ENTRIES: &[Entry] = &[
    Entry {
        name: "double_pendulum",
        summary: "two uniform rods (1 kg, 1 m) pinned in a chain, absolute angles, released horizontal",
        build: || boxed(DoublePendulum::default()),
    },
    Entry {
        name: "pendulum_on_block",
        summary: "physical pendulum on a block in circular translation (Zhang & Xia 2024, example 1, eq 70): absolute, rheonomic T",
        build: || boxed(PendulumOnBlock::default()),
    },
    Entry {
        name: "pendulum_on_block_relative",
        summary: "the same in the block's frame: relative T and the frame's inertial forces",
        build: || {
            boxed(PendulumOnBlock {
                relative: true,
                ..PendulumOnBlock::default()
            })
        },
    },
    Entry {
        name: "rod_on_turning_axis",
        summary: "rod with ends on a vertical axis and a turning horizontal one, spring at B (example 2, eq 91): absolute",
        build: || boxed(RodOnTurningAxis::default()),
    },
    Entry {
        name: "rod_on_turning_axis_relative",
        summary: "the same in the turning frame: relative T, centrifugal and Coriolis forces",
        build: || {
            boxed(RodOnTurningAxis {
                relative: true,
                ..RodOnTurningAxis::default()
            })
        },
    },
    Entry {
        name: "particle_on_circle",
        summary: "a particle in (x, y) held on a circle by a holonomic constraint",
        build: || boxed(ParticleOnCircle::default()),
    },
    Entry {
        name: "double_pendulum_cartesian",
        summary: "two point masses in (x1, y1, x2, y2) with two distance constraints",
        build: || boxed(CartesianDoublePendulum::default()),
    },
];

/// Every system of the catalog: the holonomic ones above, then the
/// [`nonholonomic`] ones.
pub fn entries() -> Vec<Entry> {
    ENTRIES
        .iter()
        .chain(nonholonomic::entries())
        .copied()
        .collect()
}

/// The system named `name`, with its default parameters.
pub fn by_name(name: &str) -> Result<Box<dyn AnySystem>, GeneralizedError> {
    let all = entries();
    match all.iter().find(|e| e.name == name) {
        Some(e) => (e.build)(),
        None => Err(GeneralizedError::Unknown {
            name: name.to_string(),
            known: all.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// `(sin a, -cos a)`: the unit vector at angle `a` from the downward
/// vertical.
fn down<D: Scalar>(a: D) -> [D; 2] {
    [a.sin(), -a.cos()]
}

/// A double pendulum in absolute angles `theta1`, `theta2` (from the
/// downward vertical): link 1 hangs from a fixed pin, link 2 from the end
/// of link 1. Each link has its mass, its centre at `c` from its pin and
/// its moment of inertia about the centre (`c = l`, `I = 0`: point
/// masses).
#[derive(Debug, Clone, PartialEq)]
pub struct DoublePendulum {
    /// Masses, kg. Default `[1, 1]`.
    pub mass: [f64; 2],
    /// Length of link 1 (pin to pin), m. Default 1.
    pub length1: f64,
    /// Distances from each link's pin to its centre of mass, m.
    /// Default `[0.5, 0.5]`.
    pub centre: [f64; 2],
    /// Moments of inertia about the centres, kg m^2. Default
    /// `[1/12, 1/12]` (uniform rods of 1 m).
    pub inertia: [f64; 2],
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// Initial angles, rad. Default `[pi/2, pi/2]` (horizontal).
    pub theta0: [f64; 2],
    /// Initial rates, rad/s. Default `[0, 0]`.
    pub omega0: [f64; 2],
}

impl Default for DoublePendulum {
    fn default() -> Self {
        DoublePendulum::rods([1.0, 1.0], [1.0, 1.0])
    }
}

impl DoublePendulum {
    /// Two uniform rods of the given masses and lengths.
    pub fn rods(mass: [f64; 2], length: [f64; 2]) -> Self {
        DoublePendulum {
            mass,
            length1: length[0],
            centre: [0.5 * length[0], 0.5 * length[1]],
            inertia: [
                mass[0] * length[0] * length[0] / 12.0,
                mass[1] * length[1] * length[1] / 12.0,
            ],
            g: 9.81,
            theta0: [std::f64::consts::FRAC_PI_2; 2],
            omega0: [0.0; 2],
        }
    }

    /// Two point masses on massless rods of the given lengths.
    pub fn point_masses(mass: [f64; 2], length: [f64; 2]) -> Self {
        DoublePendulum {
            centre: length,
            inertia: [0.0; 2],
            ..DoublePendulum::rods(mass, length)
        }
    }
}

impl Elements for DoublePendulum {
    fn count(&self) -> usize {
        2
    }
    fn element(&self, k: usize) -> Element {
        Element::body(self.mass[k], self.inertia[k])
    }
    fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D> {
        let zero = t * 0.0;
        let u1 = down(q[0]);
        if k == 0 {
            let c = self.centre[0];
            Pose::body([u1[0] * c, u1[1] * c, zero], q[0])
        } else {
            let (l, c) = (self.length1, self.centre[1]);
            let u2 = down(q[1]);
            Pose::body([u1[0] * l + u2[0] * c, u1[1] * l + u2[1] * c, zero], q[1])
        }
    }
}

impl System for DoublePendulum {
    fn dof(&self) -> usize {
        2
    }
    fn coordinate_name(&self, i: usize) -> String {
        format!("theta{}", i + 1)
    }
    fn kinetic<D: Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D {
        elements::kinetic(self, t, q, qd)
    }
    fn potential<D: Scalar>(&self, t: D, q: &[D]) -> D {
        elements::gravity_potential(self, t, q, [0.0, -self.g, 0.0])
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.theta0.to_vec(), self.omega0.to_vec())
    }
}

/// Zhang & Xia 2024, example 1: a physical pendulum (mass `m`, centre at
/// `R` from its pivot `O`, radius of gyration `rho` about the centre)
/// hangs from a block whose point `O` moves on a circle of radius `l0`
/// in circular translation, `O = l0 (sin theta, -cos theta)` with
/// `theta(t) = Omega t + beta sin(nu t)` prescribed. One coordinate, the
/// pendulum's angle `phi`. Its equation is eq 70:
/// `m (rho^2 + R^2) phi'' + m l0 R theta'^2 sin(phi - theta)
///  + m l0 R theta'' cos(phi - theta) + m g R sin phi = 0`.
///
/// `relative: false`: absolute positions, a rheonomic `T(t, phi, phi')`.
/// `relative: true`: positions in the block's frame (which translates:
/// `a_O = O''`, `omega = 0`), `T_r`, and the frame's inertial forces.
#[derive(Debug, Clone, PartialEq)]
pub struct PendulumOnBlock {
    /// Mass `m`, kg. Default 2.
    pub m: f64,
    /// Radius of gyration about the centre `rho`, m. Default 0.3.
    pub rho: f64,
    /// Pivot to centre `R`, m. Default 0.8.
    pub r: f64,
    /// Radius of the block's circle `l0`, m. Default 0.5.
    pub l0: f64,
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// `theta = omega t + beta sin(nu t)`: `omega` (rad/s). Default 1.5.
    pub omega: f64,
    /// `beta` (rad). Default 0.4.
    pub beta: f64,
    /// `nu` (rad/s). Default 2.3.
    pub nu: f64,
    /// The block's frame (`true`) or the ground's (`false`, default).
    pub relative: bool,
    /// Initial `phi`, rad. Default 0.3.
    pub phi0: f64,
    /// Initial `phi'`, rad/s. Default 0.
    pub phid0: f64,
}

impl Default for PendulumOnBlock {
    fn default() -> Self {
        PendulumOnBlock {
            m: 2.0,
            rho: 0.3,
            r: 0.8,
            l0: 0.5,
            g: 9.81,
            omega: 1.5,
            beta: 0.4,
            nu: 2.3,
            relative: false,
            phi0: 0.3,
            phid0: 0.0,
        }
    }
}

impl PendulumOnBlock {
    /// The block's angle `theta(t)`.
    pub fn theta<D: Scalar>(&self, t: D) -> D {
        t * self.omega + (t * self.nu).sin() * self.beta
    }

    /// The block's point `O(t)` (ground frame).
    pub fn pivot<D: Scalar>(&self, t: D) -> [D; 2] {
        let u = down(self.theta(t));
        [u[0] * self.l0, u[1] * self.l0]
    }

    /// The block's frame at `t`: `a_O = O''` (a second derivative of
    /// [`PendulumOnBlock::pivot`] by hyper-dual numbers), no rotation.
    pub fn frame(&self, t: f64) -> FrameMotion {
        let o = self.pivot(HyperDual64::new(t, 1.0, 1.0, 0.0));
        FrameMotion {
            origin_acceleration: [o[0].eps1eps2, o[1].eps1eps2, 0.0],
            ..FrameMotion::default()
        }
    }
}

impl Elements for PendulumOnBlock {
    fn count(&self) -> usize {
        1
    }
    fn element(&self, _k: usize) -> Element {
        Element::body(self.m, self.m * self.rho * self.rho)
    }
    fn place<D: Scalar>(&self, _k: usize, t: D, q: &[D]) -> Pose<D> {
        let u = down(q[0]);
        let zero = t * 0.0;
        let o = if self.relative {
            [zero, zero]
        } else {
            self.pivot(t)
        };
        Pose::body([o[0] + u[0] * self.r, o[1] + u[1] * self.r, zero], q[0])
    }
}

impl System for PendulumOnBlock {
    fn dof(&self) -> usize {
        1
    }
    fn coordinate_name(&self, _i: usize) -> String {
        "phi".into()
    }
    fn kinetic<D: Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D {
        elements::kinetic(self, t, q, qd)
    }
    fn potential<D: Scalar>(&self, t: D, q: &[D]) -> D {
        elements::gravity_potential(self, t, q, [0.0, -self.g, 0.0])
    }
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        if self.relative {
            elements::add_inertial_forces(self, &self.frame(t), t, q, qd, out);
        }
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![self.phi0], vec![self.phid0])
    }
}

/// Zhang & Xia 2024, example 2: a uniform rod `AB` (mass `m`, length `l`)
/// with `A` sliding on the vertical axis `Oz` and `B` on the horizontal
/// axis `Ox`, which turns about `Oz` at the constant rate `omega`; a
/// spring of stiffness `k` along `Ox` pulls `B` back to `O` (unstretched
/// at `theta = 0`). One coordinate, the rod's angle `theta` to the
/// vertical. Its equation is eq 91:
/// `theta'' - (omega^2 - 3k/m) sin theta cos theta - (3g / 2l) sin theta = 0`.
///
/// `relative: false`: the rod in the ground frame, as two particles of
/// `m/2` at `l/2 -+ l/(2 sqrt 3)` from `A` (the rod's mass, centre and
/// second moments exactly, so `T` and `S` are the rod's; its motion is
/// not planar), turned by `omega t`: `T = m l^2 (theta'^2 + omega^2
/// sin^2 theta) / 6`. `relative: true`: the rod in the turning frame
/// (a rod element in its `xz` plane), `T_r`, and the centrifugal and
/// Coriolis forces.
#[derive(Debug, Clone, PartialEq)]
pub struct RodOnTurningAxis {
    /// Mass `m`, kg. Default 1.5.
    pub m: f64,
    /// Length `l`, m. Default 0.8.
    pub l: f64,
    /// Spring stiffness `k`, N/m. Default 4.
    pub k: f64,
    /// Rate of the turning axis `omega`, rad/s. Default 3.
    pub omega: f64,
    /// Gravity, m/s^2 (along `-z`). Default 9.81.
    pub g: f64,
    /// The turning frame (`true`) or the ground's (`false`, default).
    pub relative: bool,
    /// Initial `theta`, rad. Default 0.5.
    pub theta0: f64,
    /// Initial `theta'`, rad/s. Default 0.
    pub thetad0: f64,
}

impl Default for RodOnTurningAxis {
    fn default() -> Self {
        RodOnTurningAxis {
            m: 1.5,
            l: 0.8,
            k: 4.0,
            omega: 3.0,
            g: 9.81,
            relative: false,
            theta0: 0.5,
            thetad0: 0.0,
        }
    }
}

impl Elements for RodOnTurningAxis {
    fn count(&self) -> usize {
        if self.relative {
            1
        } else {
            2
        }
    }
    fn element(&self, _k: usize) -> Element {
        if self.relative {
            Element::rod(self.m, self.l).in_plane([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
        } else {
            Element::particle(0.5 * self.m)
        }
    }
    fn place<D: Scalar>(&self, k: usize, t: D, q: &[D]) -> Pose<D> {
        let (s, c) = q[0].sin_cos();
        let zero = t * 0.0;
        if self.relative {
            // The centre, and the rod's direction A -> B = (sin, 0, -cos)
            // at the angle theta - pi/2 from x towards z.
            let h = 0.5 * self.l;
            Pose::body([s * h, zero, c * h], q[0] - std::f64::consts::FRAC_PI_2)
        } else {
            // At d from A along A -> B, then turned by omega t about z.
            let sign = if k == 0 { -1.0 } else { 1.0 };
            let d = 0.5 * self.l * (1.0 + sign / 3f64.sqrt());
            let (x, z) = (s * d, c * (self.l - d));
            let (sw, cw) = (t * self.omega).sin_cos();
            Pose::point([x * cw, x * sw, z])
        }
    }
}

impl System for RodOnTurningAxis {
    fn dof(&self) -> usize {
        1
    }
    fn coordinate_name(&self, _i: usize) -> String {
        "theta".into()
    }
    fn kinetic<D: Scalar>(&self, t: D, q: &[D], qd: &[D]) -> D {
        elements::kinetic(self, t, q, qd)
    }
    fn potential<D: Scalar>(&self, t: D, q: &[D]) -> D {
        let xb = q[0].sin() * self.l;
        elements::gravity_potential(self, t, q, [0.0, 0.0, -self.g]) + xb * xb * (0.5 * self.k)
    }
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        if self.relative {
            let frame = FrameMotion {
                angular_velocity: [0.0, 0.0, self.omega],
                ..FrameMotion::default()
            };
            elements::add_inertial_forces(self, &frame, t, q, qd, out);
        }
    }
    fn acceleration_energy<D: Scalar>(&self, t: D, q: &[D], qd: &[D], qdd: &[D]) -> Option<D> {
        Some(elements::acceleration_energy(self, t, q, qd, qdd))
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![self.theta0], vec![self.thetad0])
    }
}

/// A particle in `(x, y)` under gravity held on the circle of radius `r`
/// about the origin by `phi = (x^2 + y^2 - r^2) / 2 = 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleOnCircle {
    /// Mass, kg. Default 1.
    pub m: f64,
    /// Radius, m. Default 1.
    pub r: f64,
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// Initial angle from the downward vertical, rad. Default 1.
    pub angle0: f64,
    /// Initial angular rate, rad/s. Default 0.
    pub rate0: f64,
}

impl Default for ParticleOnCircle {
    fn default() -> Self {
        ParticleOnCircle {
            m: 1.0,
            r: 1.0,
            g: 9.81,
            angle0: 1.0,
            rate0: 0.0,
        }
    }
}

impl System for ParticleOnCircle {
    fn dof(&self) -> usize {
        2
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x", "y"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.m)
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        q[1] * (self.m * self.g)
    }
    fn acceleration_energy<D: Scalar>(&self, _t: D, _q: &[D], _qd: &[D], qdd: &[D]) -> Option<D> {
        Some((qdd[0] * qdd[0] + qdd[1] * qdd[1]) * (0.5 * self.m))
    }
    fn constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _k: usize) -> ConstraintKind {
        ConstraintKind::Holonomic
    }
    fn constraint<D: Scalar>(&self, _k: usize, _t: D, q: &[D], _qd: &[D]) -> D {
        (q[0] * q[0] + q[1] * q[1] - self.r * self.r) * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let (s, c) = self.angle0.sin_cos();
        let v = self.rate0 * self.r;
        (vec![self.r * s, -self.r * c], vec![v * c, v * s])
    }
}

/// A double pendulum of two point masses in Cartesian coordinates
/// `(x1, y1, x2, y2)`, held by the distance constraints
/// `(x1^2 + y1^2 - l1^2) / 2 = 0` and
/// `((x2 - x1)^2 + (y2 - y1)^2 - l2^2) / 2 = 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct CartesianDoublePendulum {
    /// Masses, kg. Default `[1, 1]`.
    pub mass: [f64; 2],
    /// Lengths, m. Default `[1, 1]`.
    pub length: [f64; 2],
    /// Gravity, m/s^2. Default 9.81.
    pub g: f64,
    /// Initial angles from the downward vertical, rad. Default
    /// `[pi/2, pi/2]`.
    pub theta0: [f64; 2],
    /// Initial angular rates, rad/s. Default `[0, 0]`.
    pub omega0: [f64; 2],
}

impl Default for CartesianDoublePendulum {
    fn default() -> Self {
        CartesianDoublePendulum {
            mass: [1.0, 1.0],
            length: [1.0, 1.0],
            g: 9.81,
            theta0: [std::f64::consts::FRAC_PI_2; 2],
            omega0: [0.0; 2],
        }
    }
}

impl CartesianDoublePendulum {
    /// `(q, qd)` of the pendulum at angles `theta` with rates `omega`.
    pub fn state_of(&self, theta: [f64; 2], omega: [f64; 2]) -> (Vec<f64>, Vec<f64>) {
        let [l1, l2] = self.length;
        let (s1, c1) = theta[0].sin_cos();
        let (s2, c2) = theta[1].sin_cos();
        let q = vec![l1 * s1, -l1 * c1, l1 * s1 + l2 * s2, -l1 * c1 - l2 * c2];
        let (v1, v2) = (l1 * omega[0], l2 * omega[1]);
        let qd = vec![v1 * c1, v1 * s1, v1 * c1 + v2 * c2, v1 * s1 + v2 * s2];
        (q, qd)
    }
}

impl System for CartesianDoublePendulum {
    fn dof(&self) -> usize {
        4
    }
    fn coordinate_name(&self, i: usize) -> String {
        ["x1", "y1", "x2", "y2"][i].into()
    }
    fn kinetic<D: Scalar>(&self, _t: D, _q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.mass[0])
            + (qd[2] * qd[2] + qd[3] * qd[3]) * (0.5 * self.mass[1])
    }
    fn potential<D: Scalar>(&self, _t: D, q: &[D]) -> D {
        q[1] * (self.mass[0] * self.g) + q[3] * (self.mass[1] * self.g)
    }
    fn acceleration_energy<D: Scalar>(&self, _t: D, _q: &[D], _qd: &[D], qdd: &[D]) -> Option<D> {
        Some(
            (qdd[0] * qdd[0] + qdd[1] * qdd[1]) * (0.5 * self.mass[0])
                + (qdd[2] * qdd[2] + qdd[3] * qdd[3]) * (0.5 * self.mass[1]),
        )
    }
    fn constraints(&self) -> usize {
        2
    }
    fn constraint<D: Scalar>(&self, k: usize, _t: D, q: &[D], _qd: &[D]) -> D {
        let (dx, dy, l) = if k == 0 {
            (q[0], q[1], self.length[0])
        } else {
            (q[2] - q[0], q[3] - q[1], self.length[1])
        };
        (dx * dx + dy * dy - l * l) * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        self.state_of(self.theta0, self.omega0)
    }
}
