//! The three forms of Gauss's principle in generalized coordinates of
//! Zhang & Xia 2024 (Appell eq 36, Lagrange eq 49, Nielsen eq 54), each
//! computed on its own by automatic differentiation, agree with each
//! other and with the engine's `M` and `h` on every system of the catalog
//! at random states; and the Appell form says when it is not available.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use zwang_generalized::catalog::{self, DoublePendulum};
use zwang_generalized::{Generalized, Scalar, System};

const STATES: usize = 200;

#[test]
fn appell_lagrange_and_nielsen_agree_on_every_catalog_system() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    assert!(catalog::entries().len() >= 3);
    for entry in catalog::entries() {
        let sys = (entry.build)().unwrap();
        let n = sys.dof();
        let mut worst = (0.0f64, 0.0f64);
        for _ in 0..STATES {
            let t = rng.gen_range(-5.0..5.0);
            let q: Vec<f64> = (0..n).map(|_| rng.gen_range(-PI..PI)).collect();
            let qd: Vec<f64> = (0..n).map(|_| rng.gen_range(-5.0..5.0)).collect();
            let r = sys.forms(t, &q, &qd).unwrap();
            assert!(r.appell.is_some(), "{}: the catalog gives S", entry.name);
            worst.0 = worst.0.max(r.max_rel_difference);
            worst.1 = worst.1.max(r.max_abs_difference);
            // Each form at a random acceleration: E(qdd) is the same.
            let qdd: Vec<f64> = (0..n).map(|_| rng.gen_range(-20.0..20.0)).collect();
            let e: Vec<Vec<f64>> = r.forms().iter().map(|(_, f)| f.apply(&qdd)).collect();
            let scale = e[0].iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for other in &e[1..] {
                for (a, b) in e[0].iter().zip(other) {
                    assert!((a - b).abs() <= 1e-11 * scale, "{}: {a} vs {b}", entry.name);
                }
            }
        }
        println!(
            "{:<28} forms agree to {:.1e} relative ({:.1e} absolute)",
            entry.name, worst.0, worst.1
        );
        assert!(worst.0 < 1e-12, "{}: {:e}", entry.name, worst.0);
    }
}

/// A system without `S`: the Appell form is reported as not available,
/// and the others still agree.
struct NoAppell;

impl System for NoAppell {
    fn dof(&self) -> usize {
        2
    }
    // A particle in polar coordinates (r, phi): T = m (r'^2 + r^2 phi'^2) / 2.
    fn kinetic<D: Scalar>(&self, _t: D, q: &[D], qd: &[D]) -> D {
        (qd[0] * qd[0] + q[0] * q[0] * qd[1] * qd[1]) * 0.5
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![1.0, 0.0], vec![0.0, 1.0])
    }
}

#[test]
fn appell_is_not_available_without_s() {
    let sys = Generalized::new(NoAppell).unwrap();
    let r = sys.forms(0.0, &[1.5, 0.3], &[0.7, -1.1]).unwrap();
    assert!(r.appell.is_none());
    assert_eq!(r.forms().len(), 3);
    assert!(r.text().contains("appell: not available"));
    assert!(r.max_rel_difference < 1e-14);
    // Closed form: r'' - r phi'^2 and r^2 phi'' + 2 r r' phi'.
    let e = r.lagrange.apply(&[0.0, 0.0]);
    assert!((e[0] + 1.5 * 1.1 * 1.1).abs() < 1e-14);
    assert!((e[1] - 2.0 * 1.5 * 0.7 * -1.1).abs() < 1e-14);
    assert!((r.nielsen.mass[3] - 1.5 * 1.5).abs() < 1e-14);
}

#[test]
fn the_report_prints_every_form_side_by_side() {
    let sys = Generalized::new(DoublePendulum::default()).unwrap();
    let text = sys.forms(0.0, &[0.3, -0.2], &[1.0, 2.0]).unwrap().text();
    for form in [
        "engine", "lagrange", "nielsen", "appell", "theta1", "theta2",
    ] {
        assert!(text.contains(form), "{form} missing from\n{text}");
    }
    print!("{text}");
}

#[test]
fn every_catalog_system_runs_as_a_boxed_mechanism() {
    use zwang_motion::{simulate, NoObserver, Settings, Status};
    for entry in catalog::entries() {
        let sys = (entry.build)().unwrap();
        let run = simulate(&sys, 0.5, &Settings::default(), &mut NoObserver);
        assert_eq!(
            run.status,
            Status::Finished,
            "{}: {:?}",
            entry.name,
            run.reason
        );
        assert_eq!(run.q.len(), sys.dof());
    }
}
