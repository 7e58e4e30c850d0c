//! The Painleve map of the rigid rod of Yao & Gao: the checker's verdict
//! over the rod angle `theta` and the friction `mu`, for the contact end
//! trailing and leading, computed by `zwang_coulomb::check` on the rod's
//! instant (not by the closed form), with the analytic boundary
//! `mu = (1 + 3 cos^2 th) / (3 sin th cos th)` drawn over it. Prints the
//! smallest friction at which the checker finds Painleve (bisection on its
//! verdict): `mu = 4/3` at `tan th = 2`.
//!
//! ```text
//! cargo run --release --example painleve_map [OUTPUT.png]
//! ```
//!
//! The picture is written to `OUTPUT.png`, by default `painleve_map.png`
//! in the current directory (a relative path is the current directory's,
//! as for any command). Each panel's legend names every verdict found in
//! it ([`legend`]).

use plotters::prelude::*;
use zwang_coulomb::rod::{painleve_boundary_mu, FrictionLaw, NormalRow, RigidRod};
use zwang_coulomb::{check, Verdict};
use zwang_draw::plot::{register_font, FONT};

const MU_MAX: f64 = 3.0;
/// Cells of the map: 0.5 degree by 0.025 in `mu`.
const N_THETA: usize = 180;
const N_MU: usize = 120;

/// One panel: which way the contact end slides and how fast the rod spins.
struct Panel {
    title: &'static str,
    leading: bool,
    thetad: f64,
}

const PANELS: [Panel; 3] = [
    Panel {
        title: "contact end trailing (s = +1), θ' = 0",
        leading: false,
        thetad: 0.0,
    },
    Panel {
        title: "contact end leading (s = −1), θ' = 0",
        leading: true,
        thetad: 0.0,
    },
    Panel {
        title: "leading, θ' = 6 rad/s (free normal acc. > 0)",
        leading: true,
        thetad: 6.0,
    },
];

fn rod(mu: f64) -> RigidRod {
    RigidRod {
        mass: 1.0,
        half_length: 1.0,
        gravity: 9.81,
        mu,
        viscous: 0.0,
    }
}

/// The checker's verdict for the rod at `theta` (radians) sliding with
/// friction `mu`, its contact end closed (unilateral row).
fn verdict(panel: &Panel, theta: f64, mu: f64) -> Verdict {
    let rod = rod(mu);
    // |x'| above l |th'| keeps the slip direction whatever the angle.
    let speed = 1.0 + rod.half_length * panel.thetad.abs();
    let xd = if panel.leading { -speed } else { speed };
    let state = rod.state_on_plane(theta, xd, panel.thetad);
    let instant = rod
        .instant(&state, FrictionLaw::Coulomb, NormalRow::Unilateral)
        .expect("a valid rod");
    check(&instant).verdict
}

/// Every verdict, in the order of the legends.
const VERDICTS: [Verdict; 5] = [
    Verdict::Equivalent,
    Verdict::NotEquivalent,
    Verdict::PainleveIndeterminate,
    Verdict::PainleveInconsistent,
    Verdict::StationaryOnly,
];

/// The verdicts of a panel's cells, `n_theta` by `n_mu` cells (the angle
/// from 0 to 90 degrees, `mu` from 0 to `MU_MAX`, each at its centre),
/// column by column.
fn cells(panel: &Panel, n_theta: usize, n_mu: usize) -> Vec<Verdict> {
    let (d_theta, d_mu) = (90.0 / n_theta as f64, MU_MAX / n_mu as f64);
    (0..n_theta)
        .flat_map(|i| (0..n_mu).map(move |j| (i, j)))
        .map(|(i, j)| {
            let (deg, mu) = ((i as f64 + 0.5) * d_theta, (j as f64 + 0.5) * d_mu);
            verdict(panel, deg.to_radians(), mu)
        })
        .collect()
}

/// The legend of a map: each verdict found in `cells` with its count,
/// in the order of [`VERDICTS`]; none left out however large its region.
fn legend(cells: &[Verdict]) -> Vec<(Verdict, usize)> {
    VERDICTS
        .iter()
        .map(|&v| (v, cells.iter().filter(|&&c| c == v).count()))
        .filter(|&(_, n)| n > 0)
        .collect()
}

fn color(v: Verdict) -> RGBColor {
    match v {
        Verdict::Equivalent => RGBColor(190, 190, 190),
        Verdict::NotEquivalent => RGBColor(171, 204, 229),
        Verdict::PainleveInconsistent => RGBColor(215, 48, 39),
        Verdict::PainleveIndeterminate => RGBColor(253, 174, 97),
        Verdict::StationaryOnly => RGBColor(120, 120, 120),
    }
}

/// The smallest `mu` in `(0, MU_MAX]` at which the checker says Painleve
/// for the leading rod at rest in `theta`, by bisection on the verdict.
fn checker_boundary(theta: f64) -> Option<f64> {
    let panel = &PANELS[1];
    if !verdict(panel, theta, MU_MAX).is_painleve() {
        return None;
    }
    let (mut lo, mut hi) = (0.0, MU_MAX);
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if verdict(panel, theta, mid).is_painleve() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The minimum of the checker's boundary: sampled on a grid of angles,
/// then refined by golden-section search around the best sample.
fn boundary_minimum() -> ((f64, f64), (f64, f64), usize) {
    let samples = 900;
    let mut best = (0.0, f64::INFINITY);
    let mut found = 0;
    for i in 1..samples {
        let theta = i as f64 * std::f64::consts::FRAC_PI_2 / samples as f64;
        if let Some(mu) = checker_boundary(theta) {
            found += 1;
            if mu < best.1 {
                best = (theta, mu);
            }
        }
    }
    let step = std::f64::consts::FRAC_PI_2 / samples as f64;
    let (mut a, mut b) = (best.0 - step, best.0 + step);
    let f = |t: f64| checker_boundary(t).unwrap_or(f64::INFINITY);
    let r = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..60 {
        let (c, d) = (b - r * (b - a), a + r * (b - a));
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let theta = 0.5 * (a + b);
    (best, (theta, f(theta)), found)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "painleve_map.png".into()),
    );
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // DejaVu Sans, bundled with zwang-motion (its plots use it too).
    register_font()?;

    let root = BitMapBackend::new(&path, (1950, 720)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Rigid rod sliding on a rough plane (Yao & Gao): the checker's verdict over rod angle θ and friction μ",
        (FONT, 28),
    )?;
    let d_theta = 90.0 / N_THETA as f64;
    let d_mu = MU_MAX / N_MU as f64;
    let analytic: Vec<(f64, f64)> = (1..1800)
        .map(|i| i as f64 * 0.05)
        .map(|deg| (deg, painleve_boundary_mu(f64::to_radians(deg))))
        .filter(|&(_, mu)| mu <= MU_MAX)
        .collect();
    let min_theta = 2f64.atan().to_degrees();
    for (area, panel) in root.split_evenly((1, 3)).iter().zip(&PANELS) {
        let verdicts = cells(panel, N_THETA, N_MU);
        let legend = legend(&verdicts);
        let rectangles = verdicts.iter().enumerate().map(|(k, v)| {
            let (i, j) = (k / N_MU, k % N_MU);
            Rectangle::new(
                [
                    (i as f64 * d_theta, j as f64 * d_mu),
                    ((i + 1) as f64 * d_theta, (j + 1) as f64 * d_mu),
                ],
                color(*v).filled(),
            )
        });
        let counts: Vec<String> = legend
            .iter()
            .map(|(v, n)| format!("{n} cells {}", v.as_str()))
            .collect();
        println!("{}: {}", panel.title, counts.join(", "));
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, (FONT, 21))
            .margin(14)
            .x_label_area_size(55)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..90f64, 0f64..MU_MAX)?;
        chart.draw_series(rectangles)?;
        chart
            .configure_mesh()
            .x_desc("θ, rod angle to the ground (degrees)")
            .y_desc("μ, Coulomb friction coefficient")
            .x_labels(10)
            .y_labels(7)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.12))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .draw()?;
        for (v, n) in legend {
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                .label(format!("{} ({n} cells)", v.as_str()))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 18, y + 7)], color(v).filled())
                });
        }
        if !panel.leading {
            chart.draw_series(
                [
                    "trailing end: G = D + |C| > 0,",
                    "never Painlevé; equivalent only",
                    "at μ = 0, θ = 0° and θ = 90°",
                ]
                .into_iter()
                .enumerate()
                .map(|(k, line)| Text::new(line, (22.0, 1.6 - 0.14 * k as f64), (FONT, 18))),
            )?;
        }
        if panel.leading {
            chart
                .draw_series(LineSeries::new(
                    analytic.iter().copied(),
                    BLACK.stroke_width(2),
                ))?
                .label("μ = (1 + 3cos²θ) / (3 sinθ cosθ)")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(2))
                });
            chart
                .draw_series(std::iter::once(Circle::new(
                    (min_theta, 4.0 / 3.0),
                    6,
                    BLACK.filled(),
                )))?
                .label("minimum μ = 4/3 at tan θ = 2 (63.43°)")
                .legend(|(x, y)| Circle::new((x + 9, y), 5, BLACK.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.5))
            .label_font((FONT, 15))
            .draw()?;
    }
    root.present()?;

    let ((t_s, mu_s), (t_r, mu_r), found) = boundary_minimum();
    println!(
        "checker boundary (leading end, theta' = 0, bisection on the verdict at {found} angles):\n  \
         smallest sampled: mu = {mu_s:.6} at theta = {:.4} deg (tan theta = {:.4})\n  \
         refined:          mu = {mu_r:.10} at theta = {:.4} deg (tan theta = {:.6})\n  \
         analytic:         mu = 4/3 = {:.10} at theta = {min_theta:.4} deg (tan theta = 2)",
        t_s.to_degrees(),
        t_s.tan(),
        t_r.to_degrees(),
        t_r.tan(),
        4.0 / 3.0
    );
    assert!((mu_r - 4.0 / 3.0).abs() < 1e-8, "boundary minimum {mu_r}");
    assert!(
        (t_r.tan() - 2.0).abs() < 1e-3,
        "at tan theta = {}",
        t_r.tan()
    );
    println!("map written to {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a coarse grid (9 by 6 cells a panel), each legend names exactly
    /// the verdicts of its cells, with their counts summing to the cells:
    /// `equivalent`, the largest region of the spinning rod's panel (the
    /// contact opens), among them.
    #[test]
    fn every_region_is_in_its_legend() {
        for (p, panel) in PANELS.iter().enumerate() {
            let verdicts = cells(panel, 9, 6);
            let legend = legend(&verdicts);
            for v in &verdicts {
                assert!(legend.iter().any(|(w, _)| w == v), "panel {p}: {v:?}");
            }
            assert_eq!(legend.iter().map(|(_, n)| n).sum::<usize>(), verdicts.len());
            if p == 2 {
                let (largest, _) = legend.iter().max_by_key(|(_, n)| *n).unwrap();
                assert_eq!(*largest, Verdict::Equivalent, "{legend:?}");
            }
        }
    }
}
