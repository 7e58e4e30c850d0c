//! A constraint of third order: the worked case of Zhang et al.
//! (arbitrary-order Gauss principle of relative motion dynamics, section
//! 5). A particle of mass `M` moves on a plane that turns slowly (`omega`)
//! about its normal, in coordinates `q1`, `q2` fixed to the plane, under
//! the constraint `q1'' q1''' + g q2''' = 0` (their eq 42). Its equations
//! (their eqs 50)
//!
//! ```text
//! M q1'' - (F1 + M omega^2 q1 + 2 M omega q2') - lambda q1'' = 0
//! M q2'' - (F2 + M omega^2 q2 - 2 M omega q1') - lambda g  = 0
//! ```
//!
//! hold the multiplier `lambda` as part of the state; `lambda(0)` is an
//! initial condition (it fixes `q''(0)`, which the constraint leaves
//! free). At any instant the principle of order 3 is stationary, not a
//! minimum: the checker says `stationary_only` and no QP is solved.
//!
//! ```sh
//! cargo run --release --example third_order
//! ```

use zwang::coulomb::check;
use zwang::higher_order::{instant, integrate, State, TurningPlane};
use zwang::instant::{to_json, Encoding};
use zwang::ode::Settings;

fn main() {
    let plane = TurningPlane {
        mass: 1.0,
        omega: 0.1,
        g: 9.81,
        force: [0.0, -9.81],
    };
    let start = State {
        t: 0.0,
        q: vec![1.0, 0.5],
        qd: vec![0.2, -0.1],
        lambda: vec![0.2],
    };
    let settings = Settings {
        rtol: 1e-12,
        atol: 1e-12,
        dense_output: false,
        ..Settings::default()
    };
    let run = match integrate(&plane, &start, 5.0, 0.5, &settings) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };

    println!("A particle on a plane turning slowly (omega = 0.1) with q1'' q1''' + g q2''' = 0");
    println!(
        "(Zhang et al., arbitrary-order Gauss principle of relative motion dynamics, section 5)\n"
    );
    println!(
        "{:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>14} {:>10}",
        "t", "q1", "q2", "q1''", "q2''", "lambda", "I", "phi"
    );
    for s in &run.samples {
        // I = q1''^2 / 2 + g q2'' is conserved (the constraint is dI/dt);
        // phi is the constraint with the q''' of the solve.
        let phi = s.qdd[0] * s.qddd[0] + plane.g * s.qddd[1];
        println!(
            "{:>5.2} {:>10.5} {:>10.5} {:>10.5} {:>10.5} {:>10.6} {:>14.10} {:>10.1e}",
            s.t,
            s.q[0],
            s.q[1],
            s.qdd[0],
            s.qdd[1],
            s.lambda[0],
            plane.invariant(&s.qdd),
            phi
        );
    }
    println!(
        "\n{} steps, {} evaluations of the right-hand side",
        run.stats.accepted, run.stats.evaluations
    );

    // The instant at the start: M, Q and the row of order 3, B q''' = -phi0.
    let at_start = instant(&plane, start.t, &start.q, &start.qd, &start.lambda)
        .expect("the start is a regular state");
    let report = check(&at_start);
    println!(
        "\nThe instant at t = 0 (as tests/data/higher_order/turning_plane.json):\n{}",
        to_json(&at_start, Encoding::Dense)
    );
    println!("verdict: {}\n  {}", report.verdict, report.reason);
}
