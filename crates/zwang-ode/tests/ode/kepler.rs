//! The Kepler problem with mu = 1, `(x, y, vx, vy)`: shared by the
//! integrator's tests and the no-allocation test's own binary.

use zwang_ode::OdeSystem;

/// The Kepler problem with mu = 1: (x, y, vx, vy).
pub struct Kepler;

impl OdeSystem for Kepler {
    type Error = ();
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), ()> {
        let r3 = (y[0] * y[0] + y[1] * y[1]).powf(1.5);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
        Ok(())
    }
}
