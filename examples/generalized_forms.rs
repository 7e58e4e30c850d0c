//! The three forms of Gauss's principle in generalized coordinates
//! (Zhang & Xia 2024: Appell eq 36, Lagrange eq 49, Nielsen eq 54), each
//! computed on its own by automatic differentiation, side by side with
//! the engine's `M` and `h`: for the double pendulum, and for the
//! pendulum on a block in circular translation (the paper's example 1)
//! in the ground's frame and in the block's, with eq 70 beside it.
//!
//! ```sh
//! cargo run --release --example generalized_forms
//! ```

use zwang::generalized::catalog::{DoublePendulum, PendulumOnBlock};
use zwang::generalized::{Generalized, GeneralizedError};

fn main() -> Result<(), GeneralizedError> {
    let pendulum = Generalized::new(DoublePendulum::default())?;
    let (q, qd) = ([0.7, -0.4], [1.3, -2.1]);
    println!("double pendulum (two uniform rods, 1 kg, 1 m) at theta = {q:?}, theta' = {qd:?}:");
    println!("E(qdd) = mass qdd + bias = Q for every form\n");
    print!("{}", pendulum.forms(0.0, &q, &qd)?.text());

    let (t, phi, phid) = (0.9, 0.4, -1.1);
    for relative in [false, true] {
        let p = PendulumOnBlock {
            relative,
            ..PendulumOnBlock::default()
        };
        let frame = if relative {
            "the block's frame: T_r, and the inertial force of the frame in Q"
        } else {
            "the ground's frame: rheonomic T(t, phi, phi')"
        };
        let sys = Generalized::new(p.clone())?;
        let report = sys.forms(t, &[phi], &[phid])?;
        println!("\npendulum on a block (example 1) at t = {t}, phi = {phi}, phi' = {phid}, in {frame}:\n");
        print!("{}", report.text());
        let a = sys
            .equations(t, &[phi], &[phid])?
            .unconstrained_acceleration()?;
        // Eq 70 solved for phi'', theta = Omega t + beta sin(nu t).
        let th = p.omega * t + p.beta * (p.nu * t).sin();
        let thd = p.omega + p.beta * p.nu * (p.nu * t).cos();
        let thdd = -p.beta * p.nu * p.nu * (p.nu * t).sin();
        let eq70 = -(p.m * p.l0 * p.r * (thd * thd * (phi - th).sin() + thdd * (phi - th).cos())
            + p.m * p.g * p.r * phi.sin())
            / (p.m * (p.rho * p.rho + p.r * p.r));
        println!(
            "phi'' = {:.15}   eq 70: {eq70:.15}   difference {:.1e}",
            a[0],
            (a[0] - eq70).abs()
        );
    }
    Ok(())
}
