//! The vakonomic contrast (Liu Caishan, "The fundamental equations in
//! analytical mechanics for nonholonomic systems", 2016): the Chaplygin
//! sleigh (a blade 0.3 m behind the centre) run from one start under
//! Gauss's principle, the mechanics of nonholonomic systems, and under
//! the vakonomic equations (Hamilton's principle with the blade's
//! constraint adjoined) for three initial multipliers. Gauss's sleigh
//! straightens out along a line; the vakonomic ones do not, and each
//! initial multiplier, which the mechanics cannot know, gives another
//! motion. Both keep the energy: the vakonomic extra force
//! `mu (omega e, -e . v_C)` does no work on the motion, but it pushes
//! along the blade, which a blade cannot do (docs/vakonomic.md).
//!
//! ```sh
//! cargo run --release --example vakonomic
//! ```

use zwang::model::planar::{Body, Joint, PlanarModel};
use zwang::motion::{compare_equations, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (m, i, a) = (1.0, 0.05, 0.3);
    let (u0, w0) = (0.2, 2.0);
    // The centre moves at u0 along the blade and a w0 across it.
    let sleigh = Body::rigid("sleigh", m, i)
        .moving([u0, a * w0])
        .spinning(w0);
    let model = PlanarModel::new(
        [0.0, 0.0],
        vec![sleigh],
        vec![Joint::knife_edge(0, [-a, 0.0], [1.0, 0.0])],
        vec![],
        vec![],
    )?;
    let settings = Settings {
        output_every: 1.0,
        ..Settings::default()
    };
    let duration = 6.0;
    for mu0 in [0.0, 0.3, -0.3] {
        let cmp = compare_equations(&model, duration, &settings, &[mu0]);
        println!("initial multiplier {mu0}:");
        println!(
            "  {:>4}  {:>28}  {:>28}  {:>10}",
            "t", "nonholonomic (x, y, theta)", "vakonomic (x, y, theta)", "apart"
        );
        for r in &cmp.rows {
            let show = |q: &[f64]| format!("({:7.3}, {:7.3}, {:7.3})", q[0], q[1], q[2]);
            println!(
                "  {:>4.1}  {:>28}  {:>28}  {:>10.3e}",
                r.t,
                show(&r.nonholonomic),
                show(&r.vakonomic),
                r.position_difference
            );
        }
        let (nh, vk) = (&cmp.nonholonomic, &cmp.vakonomic);
        println!(
            "  energy {:.9} -> {:.9} J nonholonomic, {:.9} -> {:.9} J vakonomic; \
             multiplier at the end {:?}\n",
            nh.energy_initial,
            nh.energy_final,
            vk.energy_initial,
            vk.energy_final,
            vk.multipliers.as_deref().unwrap_or(&[])
        );
    }
    Ok(())
}
