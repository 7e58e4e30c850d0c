//! The worked case of Zhang et al. (arbitrary-order Gauss principle of
//! relative motion dynamics, section 5): a particle on a plane that turns
//! slowly about its normal, under a constraint of third order.

use crate::system::{OrderSystem, Scalar, ThirdOrderSystem};

/// A particle of mass `M` on a plane turning with constant `omega` about
/// its normal, in coordinates `q1`, `q2` fixed to the plane, applied force
/// `F = (F1, F2)` (in the plane's axes), and the constraint of third order
/// (their eq 42)
///
/// ```text
/// phi = q1'' q1''' + g q2''' = 0
/// ```
///
/// `Q` holds the applied force and the frame's inertial forces, the
/// centrifugal `M omega^2 q` and the Coriolis `2 M omega (q2', -q1')`
/// (their eqs 45, 46), so that the equations are their eqs (50):
///
/// ```text
/// M q1'' - (F1 + M omega^2 q1 + 2 M omega q2') - lambda q1'' = 0
/// M q2'' - (F2 + M omega^2 q2 - 2 M omega q1') - lambda g  = 0
/// ```
///
/// `B = dphi/dq''' = (q1'', g)` depends on `q''`. Since
/// `phi = d/dt (q1''^2 / 2 + g q2'')`, the motion keeps
/// [`TurningPlane::invariant`] constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurningPlane {
    /// The particle's mass `M`.
    pub mass: f64,
    /// The plane's angular velocity `omega` about its normal.
    pub omega: f64,
    /// The constant `g` of the constraint.
    pub g: f64,
    /// The applied force `(F1, F2)`, constant.
    pub force: [f64; 2],
}

impl TurningPlane {
    /// `q1''^2 / 2 + g q2''`: the constraint is its time derivative, so it
    /// stays at its initial value.
    pub fn invariant(&self, qdd: &[f64]) -> f64 {
        0.5 * qdd[0] * qdd[0] + self.g * qdd[1]
    }
}

impl ThirdOrderSystem for TurningPlane {
    fn dim(&self) -> usize {
        2
    }

    fn constraint_count(&self) -> usize {
        1
    }

    fn mass<D: Scalar>(&self, _t: D, _q: &[D], m: &mut [D]) {
        m[0] = D::from(self.mass);
        m[3] = D::from(self.mass);
    }

    fn force<D: Scalar>(&self, _t: D, q: &[D], qd: &[D], f: &mut [D]) {
        let (m, w) = (self.mass, self.omega);
        f[0] = q[0] * (m * w * w) + qd[1] * (2.0 * m * w) + self.force[0];
        f[1] = q[1] * (m * w * w) - qd[0] * (2.0 * m * w) + self.force[1];
    }

    fn constraint<D: Scalar>(
        &self,
        _b: usize,
        _t: D,
        _q: &[D],
        _qd: &[D],
        qdd: &[D],
        qddd: &[D],
    ) -> D {
        qdd[0] * qddd[0] + qddd[1] * self.g
    }
}

/// Zhang et al.'s turning plane with the constraint raised to order `m`:
///
/// ```text
/// phi = q1'' q1^(m) + g q2^(m) = 0
/// ```
///
/// (order 3 is [`TurningPlane`]'s). The row `B = (q1'', g)` is the same at
/// every order, so are the equations of motion (their eqs 50); the state
/// holds `lambda, ..., lambda^(m-3)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurningPlaneOfOrder {
    /// The particle, the plane and the constant `g`.
    pub plane: TurningPlane,
    /// The order `m` of the constraint.
    pub order: usize,
}

impl OrderSystem for TurningPlaneOfOrder {
    fn order(&self) -> usize {
        self.order
    }

    fn dim(&self) -> usize {
        2
    }

    fn constraint_count(&self) -> usize {
        1
    }

    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]) {
        self.plane.mass(t, q, m)
    }

    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]) {
        self.plane.force(t, q, qd, f)
    }

    fn constraint<D: Scalar>(&self, _b: usize, _t: D, q: &[&[D]]) -> D {
        let top = q[self.order];
        q[2][0] * top[0] + top[1] * self.plane.g
    }
}
