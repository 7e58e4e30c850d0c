//! Jacobi's elliptic functions and the complete elliptic integral of the
//! first kind, by the arithmetic-geometric mean and the descending Landen
//! transformation (Abramowitz & Stegun 16.4 and 17.6), for the closed form
//! of the simple pendulum: written here, independently of zwang, and
//! checked against known values in `simulate.rs`.

#![allow(dead_code)]

use std::f64::consts::PI;

/// The AGM sequence from `(1, sqrt(1 - m))`: `(a_n, c_n)` for
/// `n = 0..=N`, `c_0 = sqrt(m)`, `c_n = (a_{n-1} - b_{n-1}) / 2`, until
/// `c_N` is below round-off. It converges quadratically: five rounds for
/// `m = 1/2`, at most a dozen for `m < 1 - 1e-15`.
fn agm_sequence(m: f64) -> Vec<(f64, f64)> {
    assert!((0.0..1.0).contains(&m), "parameter m = {m} outside [0, 1)");
    let (mut a, mut b) = (1.0f64, (1.0 - m).sqrt());
    let mut seq = vec![(a, m.sqrt())];
    while seq.last().unwrap().1 > 1e-17 * a && seq.len() < 40 {
        let c = 0.5 * (a - b);
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
        seq.push((a, c));
    }
    seq
}

/// `K(m) = pi / (2 agm(1, sqrt(1 - m)))`, `m = k^2` the parameter.
pub fn complete_k(m: f64) -> f64 {
    PI / (2.0 * agm_sequence(m).last().unwrap().0)
}

/// `(sn, cn, dn)(u | m)`: `phi_N = 2^N a_N u`, then
/// `phi_{n-1} = (phi_n + asin(c_n sin(phi_n) / a_n)) / 2` down to
/// `phi_0 = am(u)`; `sn = sin phi_0`, `cn = cos phi_0`,
/// `dn = sqrt(1 - m sn^2)` (positive for `m < 1`).
pub fn jacobi(u: f64, m: f64) -> (f64, f64, f64) {
    let seq = agm_sequence(m);
    let n = seq.len() - 1;
    let mut phi = 2f64.powi(n as i32) * seq[n].0 * u;
    for &(a, c) in seq[1..].iter().rev() {
        phi = 0.5 * (phi + (c / a * phi.sin()).asin());
    }
    let (sn, cn) = phi.sin_cos();
    (sn, cn, (1.0 - m * sn * sn).sqrt())
}

/// A simple pendulum of length `l` under gravity `g`, released from rest
/// at the angle `phi0` from the downward vertical (`0 < phi0 < pi`):
/// `phi'' = -(g / l) sin(phi)`, so with `k = sin(phi0 / 2)`,
/// `w = sqrt(g / l)` and `u = K(k^2) - w t`,
///
/// ```text
/// sin(phi / 2) = k sn(u | k^2),   cos(phi / 2) = dn(u | k^2),
/// phi' = -2 k w cn(u | k^2)
/// ```
///
/// (`sn(K) = 1`, `cn(K) = 0`: at rest at `phi0` at `t = 0`), the period
/// `4 K / w`.
#[derive(Debug, Clone, Copy)]
pub struct Pendulum {
    pub l: f64,
    pub g: f64,
    pub phi0: f64,
}

impl Pendulum {
    /// `m = k^2 = sin^2(phi0 / 2)`.
    pub fn parameter(&self) -> f64 {
        (0.5 * self.phi0).sin().powi(2)
    }

    /// `sqrt(g / l)`.
    pub fn omega(&self) -> f64 {
        (self.g / self.l).sqrt()
    }

    /// `4 K(k^2) sqrt(l / g)`.
    pub fn period(&self) -> f64 {
        4.0 * complete_k(self.parameter()) / self.omega()
    }

    /// `(phi, phi')` at `t`.
    pub fn angle(&self, t: f64) -> (f64, f64) {
        let m = self.parameter();
        let k = m.sqrt();
        let w = self.omega();
        let (sn, cn, dn) = jacobi(complete_k(m) - w * t, m);
        (2.0 * (k * sn).atan2(dn), -2.0 * k * w * cn)
    }

    /// The bob `[x, y, vx, vy]` at `t`, the pivot at the origin, the bob
    /// at `l (sin phi, -cos phi)`.
    pub fn bob(&self, t: f64) -> [f64; 4] {
        let (phi, phid) = self.angle(t);
        let (s, c) = phi.sin_cos();
        let l = self.l;
        [l * s, -l * c, l * c * phid, l * s * phid]
    }
}
