//! `find_root` against known roots, with its tolerance, endpoint and error
//! contracts.

use std::cell::Cell;
use zwang_ode::find_root;

/// `f` wrapped to count its calls.
fn counted<'a>(
    f: impl Fn(f64) -> f64 + 'a,
    calls: &'a Cell<usize>,
) -> impl FnMut(f64) -> Result<f64, ()> + 'a {
    move |x| {
        calls.set(calls.get() + 1);
        Ok(f(x))
    }
}

#[test]
fn cos_has_its_root_at_half_pi() {
    let calls = Cell::new(0);
    let x = find_root(
        counted(f64::cos, &calls),
        1.0,
        2.0,
        1f64.cos(),
        2f64.cos(),
        1e-12,
    )
    .unwrap();
    assert!((x - std::f64::consts::FRAC_PI_2).abs() <= 1e-12, "{x}");
    // Superlinear: far fewer calls than the 40 of bisection.
    assert!(calls.get() <= 10, "{} calls", calls.get());
}

#[test]
fn cube_minus_two_has_its_root_at_the_cube_root_of_two() {
    let f = |x: f64| x * x * x - 2.0;
    let calls = Cell::new(0);
    let x = find_root(counted(f, &calls), 0.0, 2.0, f(0.0), f(2.0), 1e-12).unwrap();
    assert!((x - 2f64.cbrt()).abs() <= 1e-12, "{x}");
    assert!(calls.get() <= 15, "{} calls", calls.get());
    // The bracket in the other order, and a decreasing function.
    let g = |x: f64| 2.0 - x * x * x;
    let x = find_root(|x| Ok::<f64, ()>(g(x)), 2.0, 0.0, g(2.0), g(0.0), 1e-12).unwrap();
    assert!((x - 2f64.cbrt()).abs() <= 1e-12, "{x}");
}

#[test]
fn a_root_at_an_endpoint_is_returned_without_a_call() {
    let never = |_: f64| -> Result<f64, ()> { panic!("f must not be called") };
    assert_eq!(find_root(never, 1.0, 3.0, 0.0, 5.0, 1e-12), Ok(1.0));
    assert_eq!(find_root(never, 1.0, 3.0, -2.0, 0.0, 1e-12), Ok(3.0));
    assert_eq!(find_root(never, 1.0, 3.0, 0.0, 0.0, 1e-12), Ok(1.0));
    // And found when the root is at an endpoint the caller's values miss
    // (x^2 - 1 on [1 - 1e-3, 3] with the root 1 near the left end).
    let f = |x: f64| x * x - 1.0;
    let x = find_root(|x| Ok::<f64, ()>(f(x)), 0.999, 3.0, f(0.999), f(3.0), 1e-12).unwrap();
    assert!((x - 1.0).abs() <= 1e-12);
}

/// A discontinuous sign change: no interpolation helps, the bisection
/// safeguard still brings the bracket down to the tolerance.
#[test]
fn a_jump_is_bracketed_to_the_tolerance() {
    let jump = 0.3 + 1e-9;
    let f = |x: f64| if x < jump { -1.0 } else { 1.0 };
    for xtol in [1e-6, 1e-12, 0.0] {
        let calls = Cell::new(0);
        let x = find_root(counted(f, &calls), 0.0, 1.0, -1.0, 1.0, xtol).unwrap();
        assert!(
            (x - jump).abs() <= xtol + 4.0 * f64::EPSILON,
            "xtol {xtol}: {x}"
        );
        assert!(calls.get() <= 3 * 64, "xtol {xtol}: {} calls", calls.get());
    }
}

/// Flat near the root ((x - 0.7)^9, below 1e-40 within 1e-5 of it): the
/// tolerance is on x, not on f, and the signs stay right down to the root.
#[test]
fn a_flat_root_is_found_in_x() {
    let f = |x: f64| (x - 0.7).powi(9);
    let calls = Cell::new(0);
    let x = find_root(counted(f, &calls), 0.0, 1.0, f(0.0), f(1.0), 1e-10).unwrap();
    assert!((x - 0.7).abs() <= 1e-10 + 4.0 * f64::EPSILON, "{x}");
    assert!(calls.get() <= 3 * 40, "{} calls", calls.get());
}

#[test]
fn errors_of_f_are_passed_through() {
    let calls = Cell::new(0);
    let f = |x: f64| {
        calls.set(calls.get() + 1);
        if calls.get() == 3 {
            Err(format!("failed at {x}"))
        } else {
            Ok(x.cos())
        }
    };
    let err = find_root(f, 1.0, 2.0, 1f64.cos(), 2f64.cos(), 1e-12).unwrap_err();
    assert!(err.starts_with("failed at"));
    assert_eq!(calls.get(), 3);
}

#[test]
#[should_panic(expected = "opposite signs")]
fn the_same_sign_at_both_ends_panics() {
    let _ = find_root(Ok::<f64, ()>, 1.0, 2.0, 1.0, 2.0, 1e-12);
}
