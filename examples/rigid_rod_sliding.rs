//! The rigid rod of Yao & Gao sliding on a rough plane, beyond the
//! demonstration that `zwang` prints: the checker's verdict as a table over
//! the rod's angle and the friction coefficient (leading and trailing end),
//! with the Newton normal force and how far the frozen-friction QP misses
//! it, then Yao & Gao eqs 21-22 checked against the engine over a sweep of
//! states and every force law.
//!
//! ```text
//! cargo run --release --example rigid_rod_sliding
//! ```

use zwang_coulomb::rod::{painleve_boundary_mu, FrictionLaw, NormalRow, RigidRod};
use zwang_coulomb::{check, frozen_qp, variational, Difference, Verdict};
use zwang_qp::AutoBackend;

fn main() {
    verdict_table();

    // Eqs 21-22 (m x'' = F_t, m y'' = F_n - m g,
    // (m l^2/3) th'' = -F_n l cos th + F_t l sin th) at the engine's answer,
    // and the engine against the closed form, over angles, both slip
    // directions, every force law and both kinds of normal row.
    let rod = RigidRod {
        mass: 2.0,
        half_length: 0.75,
        gravity: 9.81,
        mu: 0.4,
        viscous: 0.8,
    };
    let laws = [
        FrictionLaw::Smooth,
        FrictionLaw::Viscous,
        FrictionLaw::Coulomb,
        FrictionLaw::Sticking,
    ];
    let (mut checked, mut worst) = (0, 0.0f64);
    for deg in (5..=85).step_by(5) {
        let theta = f64::from(deg).to_radians();
        for xd in [-1.5, 1.5] {
            let state = rod.state_on_plane(theta, xd, 0.4);
            for law in laws {
                for normal in [NormalRow::Unilateral, NormalRow::Bilateral] {
                    let check = rod.seed_check(&state, law, normal).expect("a valid rod");
                    assert!(
                        check.residual < 1e-12 && check.difference < 1e-12,
                        "Yao & Gao eqs 21-22 fail at theta = {deg} deg, x' = {xd}, {law:?}, \
                         {normal:?}: residual {:e}, difference {:e}",
                        check.residual,
                        check.difference
                    );
                    worst = worst.max(check.residual).max(check.difference);
                    checked += 1;
                }
            }
        }
    }
    println!(
        "\nYao & Gao eqs 21-22 hold at {checked} instants (theta 5..85 deg, both slips, smooth / \
         viscous / Coulomb / sticking, unilateral and bilateral rows): largest relative residual \
         or engine - closed form difference {worst:.1e}"
    );
}

/// The verdict over angle and friction, for the end leading (`x_A' < 0`)
/// and trailing, the rod at `x' = -/+ 2`, `theta' = 0`: one cell per case,
/// `=` equivalent, `~` not equivalent (with the frozen-QP error in `|a|`),
/// `P!` Painleve inconsistent, `P?` Painleve indeterminate.
fn verdict_table() {
    let mus = [0.1, 0.3, 0.6, 1.0, 1.34, 1.6, 2.0];
    let mut backend = AutoBackend::new();
    for (label, xd) in [
        ("leading end (x_A' < 0)", -2.0),
        ("trailing end (x_A' > 0)", 2.0),
    ] {
        println!("\nverdict of the checker, {label}, theta' = 0 (m = 1, l = 1, g = 9.81)");
        print!("  theta  |");
        for mu in mus {
            print!(" mu = {mu:<5}|");
        }
        println!("  Painleve needs mu >=");
        for deg in (10..=80).step_by(10) {
            let theta = f64::from(deg).to_radians();
            print!("  {deg:>3} deg|");
            for mu in mus {
                let rod = RigidRod {
                    mass: 1.0,
                    half_length: 1.0,
                    gravity: 9.81,
                    mu,
                    viscous: 0.0,
                };
                let state = rod.state_on_plane(theta, xd, 0.0);
                let instant = rod
                    .instant(&state, FrictionLaw::Coulomb, NormalRow::Unilateral)
                    .expect("a valid rod");
                let cell = match check(&instant).verdict {
                    Verdict::Equivalent => "=".to_string(),
                    Verdict::NotEquivalent => {
                        let newton = variational(&instant).solution;
                        let frozen = frozen_qp(&instant, &mut backend).solution;
                        format!(
                            "~ {:.2}",
                            Difference::between(&frozen, &newton).acceleration
                        )
                    }
                    Verdict::PainleveInconsistent => "P!".into(),
                    Verdict::PainleveIndeterminate => "P?".into(),
                    Verdict::StationaryOnly => "S".into(),
                };
                print!(" {cell:<10}|");
            }
            println!("  {:.3}", painleve_boundary_mu(theta));
        }
    }
    println!(
        "\n  = equivalent (frozen friction is exact); ~ e: not equivalent, the frozen-friction QP \
         misses the Newton acceleration by e; P! Painleve, no answer; P? Painleve, several answers"
    );
}
