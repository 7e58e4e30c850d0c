//! A bracketing scalar root finder for locating events on the dense output.

/// A root of the continuous function `f` between `a` and `b`, where
/// `fa = f(a)` and `fb = f(b)` have opposite signs or one of them is zero,
/// by Brent's method (inverse quadratic interpolation and secant steps,
/// safeguarded by bisection; R. P. Brent, "Algorithms for Minimization
/// without Derivatives", 1973, chapter 4).
///
/// The returned `x` lies in a bracket of width at most
/// `xtol + 4 eps |x|` that contains a sign change of `f` (so within that of
/// a root); it is the end of the final bracket where `|f|` is smaller. An
/// endpoint with a zero value is returned at once, `a` first, without
/// calling `f`. The bracket may be given in either order. Errors of `f` are
/// passed through. A NaN value of `f` counts as non-positive.
///
/// # Panics
///
/// If `fa` and `fb` are both nonzero with the same sign (or NaN), or if
/// `xtol` is negative or NaN.
///
/// ```
/// use zwang_ode::find_root;
/// let f = |x: f64| Ok::<f64, ()>(x * x - 2.0);
/// let x = find_root(f, 0.0, 2.0, -2.0, 2.0, 1e-12).unwrap();
/// assert!((x - 2f64.sqrt()).abs() <= 1e-12);
/// ```
pub fn find_root<E>(
    mut f: impl FnMut(f64) -> Result<f64, E>,
    a: f64,
    b: f64,
    fa: f64,
    fb: f64,
    xtol: f64,
) -> Result<f64, E> {
    if fa == 0.0 {
        return Ok(a);
    }
    if fb == 0.0 {
        return Ok(b);
    }
    assert!(
        (fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0),
        "zwang-ode: find_root needs f(a) and f(b) of opposite signs, got {fa} and {fb}"
    );
    assert!(
        xtol >= 0.0,
        "zwang-ode: find_root needs xtol >= 0, got {xtol}"
    );
    // Brent's notation: b is the best estimate, c the other end of the
    // bracket [b, c], a the previous b; d the last step, e the one before.
    let (mut a, mut fa, mut b, mut fb) = (a, fa, b, fb);
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    loop {
        if (fb > 0.0) == (fc > 0.0) {
            // b and c on the same side: the bracket is [a, b].
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol = 2.0 * f64::EPSILON * b.abs() + 0.5 * xtol;
        let m = 0.5 * (c - b);
        if m.abs() <= tol || fb == 0.0 {
            return Ok(b);
        }
        if e.abs() >= tol && fa.abs() > fb.abs() {
            // Interpolate: secant if only two points, else inverse quadratic.
            let s = fb / fa;
            let (mut p, mut q);
            if a == c {
                p = 2.0 * m * s;
                q = 1.0 - s;
            } else {
                let qa = fa / fc;
                let r = fb / fc;
                p = s * (2.0 * m * qa * (qa - r) - (b - a) * (r - 1.0));
                q = (qa - 1.0) * (r - 1.0) * (s - 1.0);
            }
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            // Accept the interpolation only inside the bracket and if it
            // shrinks faster than bisection would have two steps ago.
            if 2.0 * p < 3.0 * m * q - (tol * q).abs() && p < (0.5 * e * q).abs() {
                e = d;
                d = p / q;
            } else {
                d = m;
                e = m;
            }
        } else {
            d = m;
            e = m;
        }
        a = b;
        fa = fb;
        b += if d.abs() > tol { d } else { tol.copysign(m) };
        fb = f(b)?;
    }
}
