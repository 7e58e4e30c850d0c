//! The rigid rod of seed 003 (Yao & Gao) sliding on a rough plane: every
//! form of Gauss's principle side by side (frictionless QP, frozen-friction
//! QP, fixed point, variational; smooth and viscous planes), the checker's
//! verdicts, a Painleve case, and seed 003 eqs 21-22 checked against the
//! engine over a sweep of states.
//!
//! ```text
//! cargo run --release --example rigid_rod_sliding
//! ```

use zwang_coulomb::rod::{demonstration, FrictionLaw, NormalRow, RigidRod};

fn main() {
    print!("{}", demonstration());

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
                        "seed 003 eqs 21-22 fail at theta = {deg} deg, x' = {xd}, {law:?}, \
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
        "\nseed 003 eqs 21-22 hold at {checked} instants (theta 5..85 deg, both slips, smooth / \
         viscous / Coulomb / sticking, unilateral and bilateral rows): largest relative residual \
         or engine - closed form difference {worst:.1e}"
    );
}
