//! Nonholonomic systems in generalized coordinates (Liu Caishan, "The
//! fundamental equations in analytical mechanics for nonholonomic
//! systems", 2016): for each system of
//! `zwang::generalized::catalog::nonholonomic`, the accelerations and
//! constraint forces at one state by the QP and by the multiplier,
//! Udwadia-Kalaba (eq 29) and null-space (Maggi / Kane) forms side by
//! side, the Appell, Lagrange and Nielsen forms' largest difference, and
//! a short run against the closed form.
//!
//! ```sh
//! cargo run --release --example nonholonomic
//! ```

use std::error::Error;
use zwang::forms::{MultiplierForm, NullSpaceForm, UdwadiaKalabaForm};
use zwang::generalized::catalog::nonholonomic::{
    AppellHamel, ChaplyginSleigh, EulerDisk, KnifeEdge, VerticalDisk,
};
use zwang::generalized::{Generalized, System};
use zwang::motion::{simulate, NoObserver, Settings, Status};
use zwang::qp::{AutoBackend, Backend, ClarabelBackend};

/// Prints every form's answer at `(q, qd)` and the spread of the
/// Appell, Lagrange and Nielsen forms.
fn forms<S: System>(sys: &Generalized<S>, q: &[f64], qd: &[f64]) -> Result<(), Box<dyn Error>> {
    let instant = sys.instant(0.0, q, qd)?;
    let names = sys.coordinate_names().join(", ");
    println!("  qdd: second derivatives of ({names}); lambda: the constraint forces");
    let solutions = [
        ("QP (auto)", AutoBackend::new().solve(&instant)),
        ("QP (Clarabel)", ClarabelBackend::new().solve(&instant)),
        ("multiplier", MultiplierForm::new().solve(&instant)),
        ("Udwadia-Kalaba", UdwadiaKalabaForm::new().solve(&instant)),
        ("null space", NullSpaceForm::new().solve(&instant)),
    ];
    for (name, s) in &solutions {
        let a: Vec<String> = s
            .acceleration
            .iter()
            .map(|x| format!("{x:>19.15}"))
            .collect();
        let l: Vec<String> = s
            .multipliers_eq
            .iter()
            .map(|x| {
                if x.is_nan() {
                    format!("{:>19}", "-")
                } else {
                    format!("{x:>19.15}")
                }
            })
            .collect();
        println!("  {name:<15} qdd {}  lambda {}", a.join(""), l.join(""));
    }
    let report = sys.forms(0.0, q, qd)?;
    println!(
        "  Appell / Lagrange / Nielsen / engine: largest relative difference {:.1e}",
        report.max_rel_difference
    );
    Ok(())
}

/// Runs `sys` for `duration` s (integrator tolerance 1e-11); returns the
/// final `(q, qd)`.
fn run<S: System>(
    sys: &Generalized<S>,
    duration: f64,
) -> Result<(Vec<f64>, Vec<f64>), Box<dyn Error>> {
    let mut settings = Settings::default();
    settings.ode.rtol = 1e-11;
    settings.ode.atol = 1e-13;
    let out = simulate(sys, duration, &settings, &mut NoObserver);
    if out.status != Status::Finished {
        return Err(format!("run stopped: {:?}", out.reason).into());
    }
    let residual = sys
        .equations(out.time, &out.q, &out.v)?
        .values
        .iter()
        .fold(0.0f64, |m, f| m.max(f.abs()));
    println!(
        "  run to {duration} s: {} steps, constraint residual at the end {residual:.1e}, energy change {:.1e}",
        out.steps,
        out.energy_final - out.energy_initial
    );
    Ok((out.q, out.v))
}

fn compare(what: &str, run: &[f64], closed: &[f64]) {
    let gap = run
        .iter()
        .zip(closed)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "  {what}: run {run:.10?}\n  {:>width$}  closed form {closed:.10?}   largest gap {gap:.1e}",
        "",
        width = what.len()
    );
}

fn main() -> Result<(), Box<dyn Error>> {
    println!("Chaplygin sleigh (m 1 kg, I 0.2 kg m^2, blade 0.5 m behind the centre)");
    let s = ChaplyginSleigh::default();
    let sys = Generalized::new(s.clone())?;
    forms(&sys, &[0.1, 0.2, 0.7], &s.velocity(0.7, 0.8, -1.5))?;
    let (q, v) = run(&sys, 5.0)?;
    let u = q[2].cos() * v[0] + q[2].sin() * v[1];
    let (uc, wc, thc) = s.closed_form(5.0);
    compare("(u, w, theta) at 5 s", &[u, v[2], q[2]], &[uc, wc, thc]);
    println!("  limit heading: {:.12} rad", s.asymptotic_heading());

    println!("\nknife edge on a plane inclined at 0.3 rad (Neimark & Fufaev)");
    let k = KnifeEdge::default();
    let sys = Generalized::new(k.clone())?;
    forms(
        &sys,
        &[0.0, 0.0, 0.4],
        &[1.2 * 0.4f64.cos(), 1.2 * 0.4f64.sin(), 0.9],
    )?;
    let (q, _) = run(&sys, 3.0)?;
    compare("(x, y, phi) at 3 s", &q, &k.closed_form(3.0));

    println!("\nvertical disk rolling (uniform, 1 kg, r 0.3 m)");
    let d = VerticalDisk::default();
    let sys = Generalized::new(d.clone())?;
    forms(&sys, &[0.0, 0.0, 0.5, 0.0], &d.velocity(0.5, -1.0, 6.0))?;
    let (q, _) = run(&sys, 3.0)?;
    compare("(x, y, phi, psi) at 3 s", &q, &d.closed_form(3.0));

    println!("\ntilting (Euler) disk rolling (uniform, 1 kg, r 0.3 m)");
    let e = EulerDisk::default();
    let sys = Generalized::new(e.clone())?;
    forms(
        &sys,
        &[0.0, 0.0, 0.2, 0.4, 0.0],
        &e.rolling_velocity(0.2, 0.4, [1.5, -0.7, 8.0]),
    )?;
    println!(
        "  steady rolling at tilt {} rad, heading rate {} rad/s: spin {:.12} rad/s",
        e.q0[3], e.qd0[2], e.qd0[4]
    );
    let (q, v) = run(&sys, 3.0)?;
    compare(
        "(tilt, phi', theta', psi') at 3 s",
        &[q[3], v[2], v[3], v[4]],
        &[e.q0[3], e.qd0[2], 0.0, e.qd0[4]],
    );

    println!("\nAppell-Hamel: z' = a sqrt(x'^2 + y'^2), a = 0.5, in gravity");
    let h = AppellHamel::default();
    let sys = Generalized::new(h.clone())?;
    let (q0, qd0) = h.closed_form(0.2);
    forms(&sys, &q0, &qd0)?;
    println!(
        "  closed form: v' = -g a / (1 + a^2) = {:.15}, lambda = m g / (1 + a^2) = {:.15}",
        -h.deceleration(),
        h.m * h.g / (1.0 + h.a * h.a)
    );
    let t = 0.9 * h.stop_time();
    let (q, v) = run(&sys, t)?;
    let (qc, vc) = h.closed_form(t);
    compare("(x, y, z) at 0.9 of the stop", &q, &qc);
    compare("(x', y', z')", &v, &vc);
    Ok(())
}
