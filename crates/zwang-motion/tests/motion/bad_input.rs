//! Bad settings, durations and states are reported outcomes, never panics.

use zwang_model::planar::{chain, Body, Contact, PlanarModel, Surface};
use zwang_motion::{simulate, NoObserver, Settings, Status};

#[test]
fn bad_settings_and_durations_fail_the_run_with_a_reason() {
    let model = chain(2).unwrap();
    let mut cases: Vec<(Settings, f64, &str)> = Vec::new();
    let mut s = Settings::default();
    s.ode.rtol = 0.0;
    s.ode.atol = 0.0;
    cases.push((s, 1.0, "rtol and atol"));
    let mut s = Settings::default();
    s.ode.rtol = f64::NAN;
    cases.push((s, 1.0, "rtol and atol"));
    let s = Settings {
        event_tolerance: 0.0,
        ..Settings::default()
    };
    cases.push((s, 1.0, "event_tolerance"));
    let s = Settings {
        drift_tolerance: -1.0,
        ..Settings::default()
    };
    cases.push((s, 1.0, "drift_tolerance"));
    cases.push((Settings::default(), 0.0, "duration"));
    cases.push((Settings::default(), f64::NAN, "duration"));
    for (settings, duration, needle) in cases {
        let o = simulate(&model, duration, &settings, &mut NoObserver);
        assert_eq!(o.status, Status::Failed);
        let reason = o.reason.unwrap();
        assert!(reason.contains(needle), "{reason}");
        assert_eq!(o.time, 0.0);
        assert_eq!(o.q.len(), 6);
    }
}

/// A contact point that starts inside its surface is a failed run that
/// says how deep, not a silent correction.
#[test]
fn a_point_starting_inside_its_surface_is_reported() {
    let ball = Body::particle("ball", 1.0).at([0.0, -0.01]);
    let floor = Contact::new("floor", 0, [0.0, 0.0], Surface::FLOOR);
    let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![floor], vec![]).unwrap();
    let o = simulate(&model, 1.0, &Settings::default(), &mut NoObserver);
    assert_eq!(o.status, Status::Failed);
    assert!(o.reason.unwrap().contains("\"floor\" starts 1e-2 m inside"));
}
