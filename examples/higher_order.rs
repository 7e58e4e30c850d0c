//! Constraints of order 4 and 5: Zhang et al.'s particle on a slowly
//! turning plane (arbitrary-order Gauss principle of relative motion
//! dynamics, section 5) with its third-order constraint raised to
//!
//! ```text
//! phi = q1'' q1^(m) + g q2^(m) = 0,    m = 4, 5
//! ```
//!
//! The equations are theirs (eqs 39 and 50) at every order,
//! `M q'' - Q - lambda B = 0` with `B = dphi/dq^(m) = (q1'', g)`; the
//! state holds `q`, `q'` and `lambda, ..., lambda^(m-3)` (initial
//! conditions: they fix `q'', ..., q^(m-1)`, which the constraint leaves
//! free), and the equations differentiated `m - 2` times along the motion
//! give the rest (V. Čović, "On a differential principle of higher order
//! for non-holonomic mechanical systems", 1977: at order `m` the principle
//! is stationary, not a minimum, and the checker says `stationary_only`).
//!
//! ```sh
//! cargo run --release --example higher_order
//! ```

use zwang::coulomb::check;
use zwang::higher_order::any_order::{instant, integrate, State};
use zwang::higher_order::{TurningPlane, TurningPlaneOfOrder};
use zwang::ode::Settings;

fn main() {
    let plane = TurningPlane {
        mass: 1.0,
        omega: 0.1,
        g: 9.81,
        force: [5.0, -9.81],
    };
    let settings = Settings {
        rtol: 1e-12,
        atol: 1e-12,
        dense_output: false,
        ..Settings::default()
    };
    println!("A particle on a plane turning slowly (omega = 0.1), pushed along q1,");
    println!("under q1'' q1^(m) + g q2^(m) = 0 (Zhang et al. section 5, raised to order m)");
    for order in [4, 5] {
        let system = TurningPlaneOfOrder { plane, order };
        // lambda, lambda' and, at order 5, lambda''.
        let lambda = [0.2, 0.5, -0.02][..order - 2]
            .iter()
            .map(|&l| vec![l])
            .collect();
        let start = State {
            t: 0.0,
            q: vec![1.0, 0.5],
            qd: vec![0.2, -0.1],
            lambda,
        };
        let run = match integrate(&system, &start, 3.0, 0.5, &settings) {
            Ok(run) => run,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        println!(
            "\norder {order}: the state holds lambda up to lambda^({})",
            order - 3
        );
        println!(
            "{:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "t", "q1", "q2", "q1''", "q2''", "lambda", "top", "phi"
        );
        for s in &run.samples {
            // phi with the q^(m) of the solve, against the size of its terms.
            let (a, b) = (s.q[2][0] * s.q[order][0], plane.g * s.q[order][1]);
            let top = &s.lambda[order - 2];
            println!(
                "{:>5.2} {:>10.5} {:>10.5} {:>10.5} {:>10.5} {:>10.6} {:>10.6} {:>10.1e}",
                s.t,
                s.q[0][0],
                s.q[0][1],
                s.q[2][0],
                s.q[2][1],
                s.lambda[0][0],
                top[0],
                (a + b).abs() / (a.abs() + b.abs())
            );
        }
        println!(
            "(top: lambda^({}); {} steps, {} evaluations of the right-hand side)",
            order - 2,
            run.stats.accepted,
            run.stats.evaluations
        );
        match instant(&system, &start) {
            Ok(at_start) => {
                let report = check(&at_start);
                println!(
                    "the instant at t = 0 has a row of order {:?}: verdict {}",
                    at_start.equality_orders(),
                    report.verdict
                );
            }
            Err(e) => eprintln!("error: {e}"),
        }
    }
}
