//! Moving frames: a model whose bodies are described relative to a frame
//! that accelerates and turns with a prescribed motion.
//!
//! In a frame whose origin `O` has the acceleration `a_O(t)` and which
//! turns with `omega(t)`, Newton's law of the relative motion keeps its
//! form once every mass element `dm` at `r` (relative velocity `r'`) also
//! feels the convective inertial force
//! `-dm (a_O + omega' x r + omega x (omega x r))` and the Coriolis force
//! `-2 dm omega x r'` (Zhang & Xia, "Gauss principle of least compulsion
//! for relative motion dynamics and differential equations of motion",
//! 2024, eq 1). Both depend on the state only, not on the accelerations,
//! so they go into `Q` and the minimum of Gauss's compulsion over the
//! relative accelerations stays exact (their eqs 5-8).
//!
//! All three vectors are given in the moving frame's own axes: `x`, `y` in
//! the plane of motion, `z` out of it. `a_O` is the acceleration of the
//! origin relative to an inertial frame; `omega` may have in-plane
//! components (a frame turning about an axis that lies in the plane of
//! motion, as a vertical axis in a vertical plane).
//!
//! Integrated over a rigid body (mass `m`, centre `C` at `r_C`, inertia
//! tensor `I_C` about `C` in frame axes), the fields are affine in the
//! offset `rho` from the centre and `sum dm rho = 0`, so exactly:
//!
//! - the force at the centre is `-m (a_O + omega' x r_C + omega x (omega x
//!   r_C)) - 2 m omega x v_C`, of which the plane takes `x`, `y` (the `z`
//!   part is carried by the ideal constraint that keeps the motion planar);
//! - the moment about `C` is `-I_C omega' - omega x (I_C omega)` from the
//!   convective forces, of which a planar rotation feels the `z` part;
//! - the Coriolis forces give no `z` moment: with the relative angular
//!   velocity `w z`, `rho' = w z x rho` and
//!   `omega x (z x rho) = z (omega . rho) - rho omega_z`, so
//!   `rho x (omega x rho') = w (rho x z) (omega . rho)`, perpendicular to
//!   `z`.
//!
//! `I_C = R(theta) I_body R(theta)^T` keeps the block form of `I_body`
//! (no `xz`, `yz` products: a body symmetric about its plane of motion), so
//! `(I_C omega')_z = I_zz omega'_z` and `(omega x I_C omega)_z` involves
//! only the in-plane block and the in-plane part of `omega`: a body needs
//! its in-plane inertia ([`Body::inertia_tensor`](super::Body)) only when
//! the frame turns about an in-plane axis.

use std::fmt;
use std::sync::Arc;

/// The frame's motion at one instant, in its own axes (`x`, `y` in the
/// plane of motion, `z` out of it).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameMotion {
    /// Acceleration of the origin relative to an inertial frame, m/s².
    pub a_o: [f64; 3],
    /// Angular velocity of the frame, rad/s.
    pub omega: [f64; 3],
    /// Its rate of change (the same in frame and inertial axes), rad/s².
    pub omega_dot: [f64; 3],
}

/// Three components, each `offset + amplitude sin(2 pi frequency t +
/// phase)` (frequency in Hz, phase in radians).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sinusoid {
    /// The mean value.
    pub offset: [f64; 3],
    /// The amplitude about it.
    pub amplitude: [f64; 3],
    /// Hz, `>= 0`.
    pub frequency: [f64; 3],
    /// Radians.
    pub phase: [f64; 3],
}

impl Sinusoid {
    /// A constant value (zero amplitude).
    pub fn constant(value: [f64; 3]) -> Sinusoid {
        Sinusoid {
            offset: value,
            ..Sinusoid::default()
        }
    }
    /// The value at `t`.
    pub fn value(&self, t: f64) -> [f64; 3] {
        std::array::from_fn(|i| {
            let w = 2.0 * std::f64::consts::PI * self.frequency[i];
            self.offset[i] + self.amplitude[i] * (w * t + self.phase[i]).sin()
        })
    }
    /// The exact time derivative at `t`.
    pub fn rate(&self, t: f64) -> [f64; 3] {
        std::array::from_fn(|i| {
            let w = 2.0 * std::f64::consts::PI * self.frequency[i];
            self.amplitude[i] * w * (w * t + self.phase[i]).cos()
        })
    }
    /// Whether component `i` is zero at every time.
    fn vanishes(&self, i: usize) -> bool {
        self.offset[i] == 0.0 && self.amplitude[i] == 0.0
    }
}

/// A user's frame motion: `t -> (a_O, omega, omega')`.
pub type FrameFn = Arc<dyn Fn(f64) -> FrameMotion + Send + Sync>;

/// The motion of the frame the model's bodies are described in.
#[derive(Clone)]
pub enum Frame {
    /// Constant `a_O` and `omega`, `omega' = 0`.
    Constant {
        /// `a_O`, m/s², frame axes.
        acceleration: [f64; 3],
        /// `omega`, rad/s, frame axes.
        angular_velocity: [f64; 3],
    },
    /// `a_O(t)` and `omega(t)` sinusoids per component; `omega'` is the
    /// exact derivative of `omega`.
    Sinusoid {
        /// `a_O(t)`, m/s².
        acceleration: Sinusoid,
        /// `omega(t)`, rad/s.
        angular_velocity: Sinusoid,
    },
    /// Any motion, from a closure (Rust only). Whether it turns about an
    /// in-plane axis is known only when it is evaluated: a rigid body
    /// without [`Body::inertia_tensor`](super::Body) then makes the
    /// evaluation fail with an error naming that key (never an assumed
    /// tensor).
    Custom(FrameFn),
}

impl Frame {
    /// A frame moving as `f(t)` says.
    pub fn custom(f: impl Fn(f64) -> FrameMotion + Send + Sync + 'static) -> Frame {
        Frame::Custom(Arc::new(f))
    }

    /// The motion at `t`.
    pub fn motion(&self, t: f64) -> FrameMotion {
        match self {
            Frame::Constant {
                acceleration,
                angular_velocity,
            } => FrameMotion {
                a_o: *acceleration,
                omega: *angular_velocity,
                omega_dot: [0.0; 3],
            },
            Frame::Sinusoid {
                acceleration,
                angular_velocity,
            } => FrameMotion {
                a_o: acceleration.value(t),
                omega: angular_velocity.value(t),
                omega_dot: angular_velocity.rate(t),
            },
            Frame::Custom(f) => f(t),
        }
    }

    /// Whether `omega` may have an in-plane (`x`, `y`) component at some
    /// time; `None` for a closure (unknown until evaluated).
    pub fn turns_in_plane(&self) -> Option<bool> {
        match self {
            Frame::Constant {
                angular_velocity, ..
            } => Some(angular_velocity[0] != 0.0 || angular_velocity[1] != 0.0),
            Frame::Sinusoid {
                angular_velocity, ..
            } => Some(!(angular_velocity.vanishes(0) && angular_velocity.vanishes(1))),
            Frame::Custom(_) => None,
        }
    }

    /// The first non-finite or out-of-range value, as `(key, message)`
    /// with keys as a scene file writes them (`frame.acceleration`).
    pub(crate) fn problem(&self) -> Option<(String, &'static str)> {
        let finite = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
        match self {
            Frame::Constant {
                acceleration,
                angular_velocity,
            } => [
                ("frame.acceleration", acceleration),
                ("frame.angular_velocity", angular_velocity),
            ]
            .into_iter()
            .find(|(_, v)| !finite(v))
            .map(|(k, _)| (k.to_string(), "must be finite")),
            Frame::Sinusoid {
                acceleration,
                angular_velocity,
            } => {
                for (name, s) in [
                    ("acceleration", acceleration),
                    ("angular_velocity", angular_velocity),
                ] {
                    for (part, v) in [
                        ("offset", &s.offset),
                        ("amplitude", &s.amplitude),
                        ("frequency", &s.frequency),
                        ("phase", &s.phase),
                    ] {
                        if !finite(v) {
                            return Some((format!("frame.{name}.{part}"), "must be finite"));
                        }
                    }
                    if s.frequency.iter().any(|&f| f < 0.0) {
                        return Some((format!("frame.{name}.frequency"), "must be >= 0"));
                    }
                }
                None
            }
            Frame::Custom(_) => None,
        }
    }
}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Frame::Constant {
                acceleration,
                angular_velocity,
            } => f
                .debug_struct("Constant")
                .field("acceleration", acceleration)
                .field("angular_velocity", angular_velocity)
                .finish(),
            Frame::Sinusoid {
                acceleration,
                angular_velocity,
            } => f
                .debug_struct("Sinusoid")
                .field("acceleration", acceleration)
                .field("angular_velocity", angular_velocity)
                .finish(),
            Frame::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// Closures are equal only when they are the same closure (the same
/// `Arc`).
impl PartialEq for Frame {
    fn eq(&self, other: &Frame) -> bool {
        match (self, other) {
            (
                Frame::Constant {
                    acceleration: a,
                    angular_velocity: w,
                },
                Frame::Constant {
                    acceleration: b,
                    angular_velocity: v,
                },
            ) => a == b && w == v,
            (
                Frame::Sinusoid {
                    acceleration: a,
                    angular_velocity: w,
                },
                Frame::Sinusoid {
                    acceleration: b,
                    angular_velocity: v,
                },
            ) => a == b && w == v,
            (Frame::Custom(f), Frame::Custom(g)) => Arc::ptr_eq(f, g),
            _ => false,
        }
    }
}

/// `a x b`.
pub(crate) fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The in-plane block `[[xx, xy], [xy, yy]]` of `R(theta) I R(theta)^T`
/// for the body-axes block `[xx, yy, xy]`, as `[xx, yy, xy]`.
pub(crate) fn rotate_tensor(tensor: [f64; 3], theta: f64) -> [f64; 3] {
    let [ixx, iyy, ixy] = tensor;
    let (s, c) = theta.sin_cos();
    [
        c * c * ixx - 2.0 * c * s * ixy + s * s * iyy,
        s * s * ixx + 2.0 * c * s * ixy + c * c * iyy,
        c * s * (ixx - iyy) + (c * c - s * s) * ixy,
    ]
}

/// Why `[Ixx, Iyy, Ixy]` (body axes, about the centre) with
/// `Izz = inertia` is not the inertia tensor of a body symmetric about
/// its plane of motion, or `None` when it is one: the in-plane block is
/// positive semi-definite and the principal moments `l1`, `l2`, `Izz`
/// satisfy the triangle inequalities (`|l1 - l2| <= Izz <= l1 + l2`; a
/// thin rod or a flat plate sits on an edge), to a relative `1e-9`.
pub fn inertia_tensor_problem(inertia: f64, tensor: [f64; 3]) -> Option<&'static str> {
    let [ixx, iyy, ixy] = tensor;
    if !tensor.iter().all(|x| x.is_finite()) {
        return Some("must be finite");
    }
    if ixx < 0.0 || iyy < 0.0 {
        return Some("Ixx and Iyy must be >= 0");
    }
    let tol = 1e-9 * (ixx + iyy + inertia.abs());
    let spread = (ixx - iyy).hypot(2.0 * ixy); // l1 - l2
    if spread > ixx + iyy + tol {
        return Some("Ixx Iyy must be >= Ixy^2 (the in-plane block is not positive)");
    }
    if inertia > ixx + iyy + tol || inertia < spread - tol {
        return Some(
            "with Izz = inertia, not a body's inertia: needs |l1 - l2| <= inertia <= Ixx + Iyy \
             (l1, l2 the principal values of the in-plane block)",
        );
    }
    None
}
