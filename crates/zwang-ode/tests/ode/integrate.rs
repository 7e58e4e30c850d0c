//! The integrator against closed-form solutions: convergence orders with
//! fixed steps, adaptive accuracy, dense output, the event protocol
//! (undo, step_exactly), and the error paths.

use std::f64::consts::PI;
use zwang_ode::{find_root, Integrator, Method, OdeSystem, Settings, StepError};

use crate::kepler::Kepler;

const METHODS: [Method; 2] = [Method::Dopri5, Method::Dop853];

/// x'' = -x as (x, x').
struct Oscillator;

impl OdeSystem for Oscillator {
    type Error = ();
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), ()> {
        dy[0] = y[1];
        dy[1] = -y[0];
        Ok(())
    }
}

/// The exact flow of the oscillator over `tau` from `y`.
fn rotate(y: &[f64], tau: f64) -> [f64; 2] {
    let (s, c) = tau.sin_cos();
    [y[0] * c + y[1] * s, -y[0] * s + y[1] * c]
}

const ECC: f64 = 0.5;

/// The orbit with semi-major axis 1 and eccentricity 0.5, at pericenter at
/// t = 0 (period 2 pi).
fn kepler_start() -> [f64; 4] {
    [1.0 - ECC, 0.0, 0.0, ((1.0 + ECC) / (1.0 - ECC)).sqrt()]
}

/// The exact orbit at time t, from Kepler's equation M = E - e sin E
/// solved by Newton's method.
fn kepler_exact(t: f64) -> [f64; 4] {
    let b = (1.0 - ECC * ECC).sqrt();
    let mut ea = t;
    for _ in 0..100 {
        let step = (ea - ECC * ea.sin() - t) / (1.0 - ECC * ea.cos());
        ea -= step;
        if step.abs() < 1e-16 {
            break;
        }
    }
    let rate = 1.0 / (1.0 - ECC * ea.cos());
    [
        ea.cos() - ECC,
        b * ea.sin(),
        -ea.sin() * rate,
        b * ea.cos() * rate,
    ]
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn settings(method: Method, rtol: f64, atol: f64) -> Settings {
    Settings {
        method,
        rtol,
        atol,
        ..Settings::default()
    }
}

#[test]
fn defaults_are_the_documented_ones() {
    let s = Settings::default();
    assert_eq!(s.method, Method::Dop853);
    assert_eq!(Method::default(), Method::Dop853);
    assert_eq!((s.rtol, s.atol), (1e-9, 1e-12));
    assert_eq!(
        (s.h_max, s.h_min, s.initial_step),
        (f64::INFINITY, 0.0, 0.0)
    );
    assert_eq!(s.max_rejections, 50);
}

/// Least-squares slope of log(err) against log(h).
fn fitted_order(hs: &[f64], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

/// Fixed steps with `step_exactly` on the oscillator over [0, 20], halving
/// h: the global error (Euclidean, against cos and sin) falls as h^5 for
/// DOPRI5 and h^8 for DOP853. The ranges keep the errors between 1e-4 and
/// 1e-13, clear of round-off.
#[test]
fn fixed_steps_converge_at_order_5_and_8() {
    for (method, ns, order) in [
        (Method::Dopri5, [80, 160, 320, 640], 5.0),
        (Method::Dop853, [20, 40, 80, 160], 8.0),
    ] {
        let mut hs = Vec::new();
        let mut errs = Vec::new();
        for n in ns {
            let h = 20.0 / n as f64;
            let mut ode = Integrator::new(2, settings(method, 1e-9, 1e-12));
            ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
            for _ in 0..n {
                ode.step_exactly(&mut Oscillator, h).unwrap();
            }
            let t = ode.t();
            assert!((t - 20.0).abs() < 1e-12);
            let err = ((ode.y()[0] - t.cos()).powi(2) + (ode.y()[1] + t.sin()).powi(2)).sqrt();
            hs.push(h);
            errs.push(err);
        }
        let p = fitted_order(&hs, &errs);
        eprintln!("{method:?}: errors {errs:?}, observed order {p:.3}");
        assert!(
            (p - order).abs() <= 0.3,
            "{method:?}: observed order {p} (errors {errs:?})"
        );
    }
}

/// One period of the Kepler orbit with e = 0.5: back to the start to
/// about the tolerance, landing on t = 2 pi exactly.
#[test]
fn kepler_orbit_returns_to_its_start_after_one_period() {
    for method in METHODS {
        let mut ode = Integrator::new(4, settings(method, 1e-10, 1e-12));
        let start = kepler_start();
        ode.reset(&mut Kepler, 0.0, &start).unwrap();
        let period = 2.0 * PI;
        while ode.t() < period {
            ode.step(&mut Kepler, period).unwrap();
        }
        assert_eq!(ode.t(), period);
        let err = max_diff(ode.y(), &start);
        eprintln!("{method:?}: Kepler error {err:.2e}, {:?}", ode.stats());
        assert!(err < 1e-8, "{method:?}: error {err:e} after one period");
        // And not by accident: the same run at a loose tolerance is off.
        let mut loose = Integrator::new(4, settings(method, 1e-5, 1e-7));
        loose.reset(&mut Kepler, 0.0, &start).unwrap();
        while loose.t() < period {
            loose.step(&mut Kepler, period).unwrap();
        }
        assert!(max_diff(loose.y(), &start) > 1e-7);
    }
}

/// 100 periods of the oscillator against cos and sin, with an error
/// proportional to the tolerance.
#[test]
fn oscillator_over_100_periods_matches_the_closed_form() {
    for method in METHODS {
        let mut errs = Vec::new();
        for rtol in [1e-8, 1e-10] {
            let mut ode = Integrator::new(2, settings(method, rtol, 1e-2 * rtol));
            ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
            let t_end = 200.0 * PI;
            while ode.t() < t_end {
                ode.step(&mut Oscillator, t_end).unwrap();
            }
            assert_eq!(ode.t(), t_end);
            let err = max_diff(ode.y(), &[t_end.cos(), -t_end.sin()]);
            eprintln!(
                "{method:?}: rtol {rtol:e}: error {err:.2e}, {:?}",
                ode.stats()
            );
            assert!(
                err < 200.0 * rtol,
                "{method:?}: rtol {rtol:e}, error {err:e}"
            );
            errs.push(err);
            // The control is efficient on this smooth problem: few
            // rejections, and about as many steps as the order predicts
            // (DOPRI5 ~ 21000 and DOP853 ~ 2000 at 1e-10; a regression
            // guard of +25%, not an independent reference).
            let s = ode.stats();
            assert!(s.rejected * 20 <= s.accepted, "{method:?}: {s:?}");
            if rtol == 1e-10 {
                let most = if method == Method::Dopri5 {
                    26_000
                } else {
                    2_500
                };
                assert!(s.accepted <= most, "{method:?}: {s:?}");
            }
        }
        // Tolerance proportionality: 100 times tighter, about 100 times
        // more accurate.
        let ratio = errs[0] / errs[1];
        assert!((30.0..300.0).contains(&ratio), "{method:?}: ratio {ratio}");
    }
}

/// Dense output at 50 points inside the steps of the Kepler orbit, against
/// Kepler's equation; at the ends of each step the states themselves.
#[test]
fn dense_output_matches_the_exact_orbit_inside_steps() {
    for method in METHODS {
        let mut ode = Integrator::new(4, settings(method, 1e-10, 1e-12));
        ode.reset(&mut Kepler, 0.0, &kepler_start()).unwrap();
        let period = 2.0 * PI;
        let mut out = [0.0; 4];
        let mut next = 0;
        let mut worst: f64 = 0.0;
        while ode.t() < period {
            ode.step(&mut Kepler, period).unwrap();
            ode.dense(ode.t_prev(), &mut out);
            assert_eq!(out, ode.y_prev(), "{method:?}: dense at t_prev");
            ode.dense(ode.t(), &mut out);
            assert_eq!(out, ode.y(), "{method:?}: dense at t");
            // The points (i + 0.5) T / 50 that fall inside this step.
            loop {
                let t = (next as f64 + 0.5) * period / 50.0;
                if t > ode.t() || next == 50 {
                    break;
                }
                assert!(t > ode.t_prev());
                ode.dense(t, &mut out);
                worst = worst.max(max_diff(&out, &kepler_exact(t)));
                next += 1;
            }
        }
        assert_eq!(next, 50);
        eprintln!("{method:?}: dense output error {worst:.2e}");
        assert!(worst < 1e-8, "{method:?}: dense error {worst:e}");
    }
}

/// The dense output alone, without the global error: on the oscillator the
/// exact solution through the start of each step is a rotation. Its error
/// is a small multiple of the tolerance; the interpolant has one order less
/// than the step (4 and 7), checked by halving a fixed step.
#[test]
fn dense_output_has_its_order_and_local_accuracy() {
    for method in METHODS {
        let rtol = 1e-9;
        let mut ode = Integrator::new(2, settings(method, rtol, 1e-12));
        ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
        let mut out = [0.0; 2];
        let mut worst: f64 = 0.0;
        while ode.t() < 20.0 {
            ode.step(&mut Oscillator, 20.0).unwrap();
            let (t0, h) = (ode.t_prev(), ode.t() - ode.t_prev());
            for i in 1..50 {
                let t = t0 + h * i as f64 / 50.0;
                ode.dense(t, &mut out);
                worst = worst.max(max_diff(&out, &rotate(ode.y_prev(), t - t0)));
            }
        }
        eprintln!("{method:?}: local dense error {worst:.2e}");
        assert!(
            worst < 5.0 * rtol,
            "{method:?}: local dense error {worst:e}"
        );

        // Local error of the interpolant at fixed steps: O(h^(q+1)) with
        // q = 4 (DOPRI5) or 7 (DOP853).
        // The steps keep the errors between 1e-5 and 1e-12.
        let (q, steps) = match method {
            Method::Dopri5 => (4.0, [0.4, 0.2, 0.1]),
            Method::Dop853 => (7.0, [0.8, 0.4, 0.2]),
        };
        let (hs, errs): (Vec<f64>, Vec<f64>) = steps
            .iter()
            .map(|&h| {
                let mut ode = Integrator::new(2, settings(method, rtol, 1e-12));
                ode.reset(&mut Oscillator, 0.3, &[0.6, 0.8]).unwrap();
                ode.step_exactly(&mut Oscillator, h).unwrap();
                let mut worst: f64 = 0.0;
                for i in 1..10 {
                    let tau = h * i as f64 / 10.0;
                    ode.dense(0.3 + tau, &mut out);
                    worst = worst.max(max_diff(&out, &rotate(&[0.6, 0.8], tau)));
                }
                (h, worst)
            })
            .unzip();
        let p = fitted_order(&hs, &errs);
        eprintln!("{method:?}: dense local errors {errs:?}, order {p:.2}");
        assert!((p - (q + 1.0)).abs() <= 0.3, "{method:?}: dense order {p}");
    }
}

/// A ball dropped from height 1 under gravity, and the whole event
/// protocol: step, sign change, root on the dense output, undo, redo up to
/// the event. The motion is a parabola, which both continuous extensions
/// reproduce exactly, so the event is found to the root finder's tolerance.
#[test]
fn an_event_is_located_and_stepped_to_exactly() {
    struct Fall;
    impl OdeSystem for Fall {
        type Error = ();
        fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), ()> {
            dy[0] = y[1];
            dy[1] = -9.81;
            Ok(())
        }
    }
    let t_hit = (2.0 / 9.81_f64).sqrt();
    for method in METHODS {
        let mut ode = Integrator::new(2, settings(method, 1e-9, 1e-12));
        ode.set_step_size(0.1);
        ode.reset(&mut Fall, 0.0, &[1.0, 0.0]).unwrap();
        let mut out = [0.0; 2];
        loop {
            ode.step(&mut Fall, 10.0).unwrap();
            if ode.y()[0] <= 0.0 {
                break;
            }
        }
        let (a, b) = (ode.t_prev(), ode.t());
        let (fa, fb) = (ode.y_prev()[0], ode.y()[0]);
        let t_event = find_root(
            |t| {
                ode.dense(t, &mut out);
                Ok::<f64, ()>(out[0])
            },
            a,
            b,
            fa,
            fb,
            1e-13,
        )
        .unwrap();
        assert!(
            (t_event - t_hit).abs() < 1e-12,
            "{method:?}: {t_event} vs {t_hit}"
        );
        let (step_size, y_prev) = (ode.step_size(), ode.y_prev().to_vec());
        ode.undo();
        assert_eq!((ode.t(), ode.y()), (a, &y_prev[..]));
        assert!(max_diff(ode.y(), &[1.0 - 4.905 * a * a, -9.81 * a]) < 1e-14);
        let t = ode.step_exactly(&mut Fall, t_event - a).unwrap();
        assert_eq!(t, a + (t_event - a));
        assert_eq!(ode.t(), t);
        assert!(
            ode.y()[0].abs() < 1e-11,
            "{method:?}: height {}",
            ode.y()[0]
        );
        assert_eq!(
            ode.step_size(),
            step_size,
            "step_exactly keeps the suggestion"
        );
    }
}

/// `undo` restores the previous state and derivative bit for bit, and a
/// redo of the same step with `step_exactly` reproduces it bit for bit; a
/// redo to a point inside the step agrees with the dense output there.
#[test]
fn undo_and_step_exactly_reproduce_the_step() {
    for method in METHODS {
        let mut ode = Integrator::new(4, settings(method, 1e-10, 1e-12));
        ode.reset(&mut Kepler, 0.0, &kepler_start()).unwrap();
        // undo with no step: nothing happens.
        ode.undo();
        assert_eq!((ode.t(), ode.y()), (0.0, &kepler_start()[..]));
        for _ in 0..5 {
            ode.step(&mut Kepler, 10.0).unwrap();
        }
        let (t0, y0, dy0) = (ode.t(), ode.y().to_vec(), ode.dy().to_vec());
        let t1 = ode.step(&mut Kepler, 10.0).unwrap();
        let (y1, dy1) = (ode.y().to_vec(), ode.dy().to_vec());
        let tm = t0 + 0.37 * (t1 - t0);
        let mut ym = [0.0; 4];
        ode.dense(tm, &mut ym);

        ode.undo();
        assert_eq!((ode.t(), ode.t_prev()), (t0, t0));
        assert_eq!(
            (ode.y(), ode.dy(), ode.y_prev()),
            (&y0[..], &dy0[..], &y0[..])
        );
        // One level only: a second undo stays.
        ode.undo();
        assert_eq!((ode.t(), ode.y()), (t0, &y0[..]));

        let t = ode.step_exactly(&mut Kepler, tm - t0).unwrap();
        assert_eq!(t, t0 + (tm - t0));
        assert_eq!((ode.t_prev(), ode.y_prev()), (t0, &y0[..]));
        let off = max_diff(ode.y(), &ym);
        assert!(
            off < 1e-9,
            "{method:?}: redo to tm off the dense output by {off:e}"
        );

        ode.undo();
        assert_eq!(t0 + (t1 - t0), t1, "the test needs an exact redo time");
        let t = ode.step_exactly(&mut Kepler, t1 - t0).unwrap();
        assert_eq!(t, t1);
        assert_eq!((ode.y(), ode.dy()), (&y1[..], &dy1[..]), "{method:?}");

        // A step of zero (an event at the very start of the step) is
        // refused and changes nothing.
        let err = ode.step_exactly(&mut Kepler, 0.0).unwrap_err();
        assert!(matches!(err, StepError::StepTooSmall { t, h } if t == t1 && h == 0.0));
        assert_eq!((ode.t(), ode.y()), (t1, &y1[..]));
    }
}

/// Stepping to a horizon lands on it bit for bit, whatever it is, and
/// stopping there does not shrink the steps after it.
#[test]
fn steps_land_exactly_on_t_end() {
    for method in METHODS {
        let mut ode = Integrator::new(2, settings(method, 1e-9, 1e-12));
        ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
        let mut t_end = 0.0;
        for horizon in [1.0 / 3.0, 0.1 * 7.0, 0.7 + 1e-9, 2.0, PI, 10.0] {
            t_end = horizon;
            while ode.t() < t_end {
                let t = ode.step(&mut Oscillator, t_end).unwrap();
                assert!(t <= t_end);
                assert_eq!(t, ode.t());
            }
            assert_eq!(ode.t(), t_end, "{method:?}: t_end {t_end}");
            assert!(
                ode.step_size() > 0.01,
                "{method:?}: suggestion {}",
                ode.step_size()
            );
        }
        assert!(max_diff(ode.y(), &[t_end.cos(), -t_end.sin()]) < 1e-8);
    }
}

/// A right-hand side that fails (or returns NaN) at its `fail_at`-th
/// call.
struct Faulty {
    calls: usize,
    fail_at: usize,
    nan: bool,
}

impl OdeSystem for Faulty {
    type Error = String;
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), String> {
        self.calls += 1;
        if self.calls == self.fail_at {
            if !self.nan {
                return Err(format!("fails at t = {t}"));
            }
            dy.fill(f64::NAN);
            return Ok(());
        }
        Kepler.rhs(t, y, dy).map_err(|_| String::new())
    }
}

/// Everything observable about the integrator's state.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    t: f64,
    t_prev: f64,
    y: Vec<f64>,
    y_prev: Vec<f64>,
    dy: Vec<f64>,
    step_size: f64,
    /// The dense output in the middle of the last step.
    mid: Vec<f64>,
}

fn snapshot(ode: &Integrator) -> Snapshot {
    let mut mid = vec![0.0; ode.dim()];
    ode.dense(0.5 * (ode.t_prev() + ode.t()), &mut mid);
    Snapshot {
        t: ode.t(),
        t_prev: ode.t_prev(),
        y: ode.y().to_vec(),
        y_prev: ode.y_prev().to_vec(),
        dy: ode.dy().to_vec(),
        step_size: ode.step_size(),
        mid,
    }
}

/// A failure at any evaluation of a step (main stages, FSAL stage, DOP853's
/// dense-output stages, the starting-step heuristic) is returned, leaves the
/// state unchanged, and the retried step is the one that would have been
/// taken without the failure.
#[test]
fn system_errors_propagate_and_leave_the_state_unchanged() {
    for method in METHODS {
        for nan in [false, true] {
            // The reference run: reset and three steps, no failure.
            let mut reference = Integrator::new(4, settings(method, 1e-10, 1e-12));
            let mut sys = Faulty {
                calls: 0,
                fail_at: 0,
                nan,
            };
            reference.reset(&mut sys, 0.0, &kepler_start()).unwrap();
            for _ in 0..3 {
                reference.step(&mut sys, 10.0).unwrap();
            }
            let per_step = if method == Method::Dopri5 { 6 } else { 15 };
            // Fail at every evaluation of the first two steps (the first
            // includes the starting-step heuristic).
            for k in 1..=2 * per_step + 1 {
                let mut ode = Integrator::new(4, settings(method, 1e-10, 1e-12));
                let mut sys = Faulty {
                    calls: 0,
                    fail_at: usize::MAX,
                    nan,
                };
                ode.reset(&mut sys, 0.0, &kepler_start()).unwrap();
                sys.fail_at = sys.calls + k;
                let mut failures = 0;
                while ode.stats().accepted < 3 {
                    let before = snapshot(&ode);
                    match ode.step(&mut sys, 10.0) {
                        Ok(_) => {}
                        Err(e) => {
                            failures += 1;
                            match (nan, &e) {
                                (false, StepError::System(msg)) => {
                                    assert!(msg.starts_with("fails at t ="))
                                }
                                (true, StepError::NonFinite { t }) => assert_eq!(*t, ode.t()),
                                _ => panic!("{method:?}: unexpected {e:?}"),
                            }
                            assert_eq!(snapshot(&ode), before, "{method:?}, failure at {k}");
                        }
                    }
                }
                assert_eq!(failures, 1, "{method:?}: failure at evaluation {k}");
                assert_eq!(snapshot(&ode), snapshot(&reference), "{method:?}, k = {k}");
            }
        }
    }
}

#[test]
fn failures_of_reset_step_exactly_and_set_state_change_nothing() {
    let mut ode = Integrator::new(4, Settings::default());
    let mut sys = Faulty {
        calls: 0,
        fail_at: usize::MAX,
        nan: false,
    };
    ode.reset(&mut sys, 0.0, &kepler_start()).unwrap();
    ode.step(&mut sys, 1.0).unwrap();
    ode.step(&mut sys, 1.0).unwrap();
    let before = snapshot(&ode);
    for k in 1..=15 {
        sys.fail_at = sys.calls + k;
        assert!(matches!(
            ode.step_exactly(&mut sys, 0.01),
            Err(StepError::System(_))
        ));
        assert_eq!(snapshot(&ode), before);
    }
    sys.fail_at = sys.calls + 1;
    assert!(ode.set_state(&mut sys, &[0.4, 0.1, 0.0, 1.0]).is_err());
    assert_eq!(snapshot(&ode), before);
    sys.fail_at = sys.calls + 1;
    assert!(ode.reset(&mut sys, 5.0, &[0.4, 0.1, 0.0, 1.0]).is_err());
    assert_eq!(snapshot(&ode), before);
    // NaN or infinity in a state handed in: refused before any evaluation.
    let calls = sys.calls;
    assert!(matches!(
        ode.set_state(&mut sys, &[f64::NAN, 0.0, 0.0, 1.0]),
        Err(StepError::NonFinite { .. })
    ));
    assert!(matches!(
        ode.reset(&mut sys, 0.0, &[f64::INFINITY, 0.0, 0.0, 1.0]),
        Err(StepError::NonFinite { t }) if t == 0.0
    ));
    assert_eq!((sys.calls, snapshot(&ode)), (calls, before.clone()));
    // NaN from the right-hand side at reset.
    sys.nan = true;
    sys.fail_at = sys.calls + 1;
    assert!(matches!(
        ode.reset(&mut sys, 2.0, &[0.4, 0.1, 0.0, 1.0]),
        Err(StepError::NonFinite { t }) if t == 2.0
    ));
    assert_eq!(snapshot(&ode), before);
}

/// A state replaced in place: the derivative is re-evaluated, the next step
/// starts from it (the same step as from a fresh start there), and undo
/// still returns to the state before the last step.
#[test]
fn set_state_replaces_the_state_in_place() {
    let mut ode = Integrator::new(2, Settings::default());
    ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
    ode.step(&mut Oscillator, 10.0).unwrap();
    ode.step(&mut Oscillator, 10.0).unwrap();
    let (t, y_prev) = (ode.t(), ode.y_prev().to_vec());
    let norm = (ode.y()[0].powi(2) + ode.y()[1].powi(2)).sqrt();
    let projected = [ode.y()[0] / norm * 1.01, ode.y()[1] / norm * 1.01];
    ode.set_state(&mut Oscillator, &projected).unwrap();
    assert_eq!((ode.t(), ode.y()), (t, &projected[..]));
    assert_eq!(ode.dy(), &[projected[1], -projected[0]][..]);

    let mut fresh = Integrator::new(2, Settings::default());
    fresh.reset(&mut Oscillator, t, &projected).unwrap();
    fresh.set_step_size(ode.step_size());
    ode.step(&mut Oscillator, 10.0).unwrap();
    fresh.step(&mut Oscillator, 10.0).unwrap();
    assert_eq!((ode.t(), ode.y()), (fresh.t(), fresh.y()));

    let mut again = Integrator::new(2, Settings::default());
    again.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
    again.step(&mut Oscillator, 10.0).unwrap();
    again.step(&mut Oscillator, 10.0).unwrap();
    again.set_state(&mut Oscillator, &projected).unwrap();
    again.undo();
    assert_eq!(again.y(), &y_prev[..]);
}

#[test]
fn step_too_small_and_too_many_rejections_are_reported() {
    // h_min above what the Kepler pericenter needs.
    let mut ode = Integrator::new(
        4,
        Settings {
            h_min: 0.5,
            ..Settings::default()
        },
    );
    ode.set_step_size(0.5);
    ode.reset(&mut Kepler, 0.0, &kepler_start()).unwrap();
    let err = ode.step(&mut Kepler, 10.0).unwrap_err();
    assert!(matches!(err, StepError::StepTooSmall { t, h } if t == 0.0 && h < 0.5));
    assert!(matches!(err, StepError::StepTooSmall { .. }));
    assert_eq!(ode.t(), 0.0);
    // A step shortened to land on t_end is never too small.
    let t = ode.step(&mut Kepler, 1e-3).unwrap();
    assert_eq!(t, 1e-3);

    // No rejection allowed, and a first step far too large.
    let mut ode = Integrator::new(
        4,
        Settings {
            max_rejections: 0,
            initial_step: 1.0,
            ..Settings::default()
        },
    );
    ode.reset(&mut Kepler, 0.0, &kepler_start()).unwrap();
    let err = ode.step(&mut Kepler, 10.0).unwrap_err();
    assert!(matches!(err, StepError::TooManyRejections { t } if t == 0.0));
    assert_eq!(ode.stats().rejected, 1);
    assert_eq!(ode.step_size(), 1.0, "the suggestion is part of the state");
    // With the default limit the same step succeeds after rejections.
    let mut settings = *ode.settings();
    settings.max_rejections = 50;
    ode.set_settings(settings);
    ode.step(&mut Kepler, 10.0).unwrap();
    assert!(ode.stats().rejected >= 2);
}

/// The counters: one evaluation at reset, one for the starting step, 6
/// (DOPRI5) or 12 + 3 (DOP853) per accepted step, 6 or 12 per rejected one.
#[test]
fn stats_count_the_work() {
    for method in METHODS {
        let mut ode = Integrator::new(4, settings(method, 1e-10, 1e-12));
        ode.reset(&mut Kepler, 0.0, &kepler_start()).unwrap();
        while ode.t() < 2.0 * PI {
            ode.step(&mut Kepler, 2.0 * PI).unwrap();
        }
        let s = ode.stats();
        let (per_accepted, per_rejected) = match method {
            Method::Dopri5 => (6, 6),
            Method::Dop853 => (15, 12),
        };
        assert!(s.accepted > 10);
        assert_eq!(
            s.evaluations,
            2 + per_accepted * s.accepted + per_rejected * s.rejected
        );
    }
}

#[test]
#[should_panic(expected = "not after t")]
fn stepping_backwards_panics() {
    let mut ode = Integrator::new(2, Settings::default());
    ode.reset(&mut Oscillator, 1.0, &[1.0, 0.0]).unwrap();
    let _ = ode.step(&mut Oscillator, 1.0);
}

#[test]
fn errors_display_and_chain() {
    #[derive(Debug)]
    struct Boom;
    impl std::fmt::Display for Boom {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("boom")
        }
    }
    impl std::error::Error for Boom {}
    let e: StepError<Boom> = StepError::System(Boom);
    assert_eq!(e.to_string(), "the right-hand side failed: boom");
    let dyn_err: &dyn std::error::Error = &e;
    assert!(dyn_err.source().is_some());
    let e: StepError<Boom> = StepError::TooManyRejections { t: 1.5 };
    assert_eq!(e.to_string(), "too many rejected steps in a row at t = 1.5");
    let e: StepError<Boom> = StepError::NonFinite { t: 2.0 };
    assert!(e.to_string().contains("not finite"));
}

/// Without the method's dense output, DOP853 spends 12 evaluations a step
/// instead of 15, takes the same steps, and interpolates by cubic Hermite:
/// exact at both ends, and inside a step of the oscillator within the
/// Hermite bound `h^4 / 384 * max|y''''|` (`max|y''''| = 1`).
#[test]
fn hermite_dense_output_saves_the_extra_stages() {
    let run = |dense_output: bool| {
        let mut ode = Integrator::new(
            2,
            Settings {
                dense_output,
                ..settings(Method::Dop853, 1e-10, 1e-12)
            },
        );
        ode.reset(&mut Oscillator, 0.0, &[1.0, 0.0]).unwrap();
        let mut worst: f64 = 0.0;
        let mut out = [0.0; 2];
        while ode.t() < 10.0 {
            ode.step(&mut Oscillator, 10.0).unwrap();
            let (t0, t1) = (ode.t_prev(), ode.t());
            let h = t1 - t0;
            for j in 0..=8 {
                let t = t0 + h * j as f64 / 8.0;
                ode.dense(t, &mut out);
                let bound = h.powi(4) / 384.0 + 1e-9;
                let err = (out[0] - t.cos()).abs().max((out[1] + t.sin()).abs());
                worst = worst.max(err / bound);
            }
            ode.dense(t1, &mut out);
            assert_eq!(out, [ode.y()[0], ode.y()[1]]);
        }
        (ode.stats(), worst)
    };
    let (full, _) = run(true);
    let (hermite, worst) = run(false);
    assert_eq!(full.accepted, hermite.accepted);
    assert_eq!(full.evaluations - hermite.evaluations, 3 * full.accepted);
    assert!(worst <= 1.0, "Hermite error {worst} times its bound");
}
