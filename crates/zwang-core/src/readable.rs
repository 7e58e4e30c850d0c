//! Numbers as a person reads them: six significant digits in one style,
//! and what lies within round-off of its scale shown as `0`.
//!
//! The reports (JSON, CSV) keep every digit; the text reports, the
//! checker's table and the harness's lines use these, so that `9.81 ->
//! 0 J` is printed where the run ended at `2.5e-20 J`, and `22` where
//! `{:e}` would write `2.2e1`.

/// How many significant digits a readable number has.
const DIGITS: i32 = 6;

/// Round-off of a scale: a value whose size is below this many units in
/// the last place of its scale is shown as `0` by [`readable_at`]. Runs
/// accumulate a few hundred roundings; 64 is still far below any
/// tolerance the engine is given.
const ROUND_OFF_ULPS: f64 = 64.0;

/// `x` to six significant digits: plain between `1e-4` and `1e6`
/// (`0.451524`, `9.81`, `12000`), scientific outside (`2.58445e-21`,
/// `1.2e7`), trailing zeros dropped, `-0` as `0`.
///
/// ```
/// use zwang_core::readable;
/// assert_eq!(readable(9.81), "9.81");
/// assert_eq!(readable(0.451523641), "0.451524");
/// assert_eq!(readable(22.0), "22");
/// assert_eq!(readable(2.5844545659736474e-21), "2.58445e-21");
/// assert_eq!(readable(-1.0e-5), "-1e-5");
/// assert_eq!(readable(-0.0), "0");
/// ```
pub fn readable(x: f64) -> String {
    readable_digits(x, DIGITS)
}

/// `x` as [`readable`] with `digits` significant digits (at least one):
/// residuals and differences need only their order of magnitude.
///
/// ```
/// use zwang_core::readable_digits;
/// assert_eq!(readable_digits(22.04, 2), "22");
/// assert_eq!(readable_digits(0.7412, 2), "0.74");
/// assert_eq!(readable_digits(1.8e-15, 2), "1.8e-15");
/// assert_eq!(readable_digits(1.8e-15, 0), "2e-15");
/// ```
pub fn readable_digits(x: f64, digits: i32) -> String {
    let digits = digits.clamp(1, 17);
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-4..1e6).contains(&a) {
        let decimals = (digits - 1 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.decimals$}");
        // Rounding may carry into a seventh digit (999999.7 -> 1000000):
        // the scientific form then says it in six.
        let whole = s.trim_start_matches('-').split('.').next().unwrap_or("");
        if whole.len() > 6 {
            return scientific(x, digits);
        }
        trim_zeros(&s)
    } else {
        scientific(x, digits)
    }
}

/// `x` as [`readable`], or `0` when it is within round-off of `scale`
/// (the size of the quantity it is measured against: a run's largest
/// position for a position, its largest energy for an energy).
///
/// ```
/// use zwang_core::readable_at;
/// assert_eq!(readable_at(2.5e-20, 9.81), "0");
/// assert_eq!(readable_at(1.0e-9, 9.81), "1e-9");
/// assert_eq!(readable_at(3.0, 0.0), "3");
/// ```
pub fn readable_at(x: f64, scale: f64) -> String {
    if is_round_off(x, scale) {
        "0".into()
    } else {
        readable(x)
    }
}

/// Whether `x` is within round-off of `scale` (below 64 units in the last
/// place of `|scale|`).
///
/// ```
/// use zwang_core::is_round_off;
/// assert!(is_round_off(1.8e-15, 1.0));
/// assert!(!is_round_off(1.0e-12, 1.0));
/// assert!(!is_round_off(1.0e-300, 0.0));
/// assert!(is_round_off(0.0, 0.0));
/// ```
pub fn is_round_off(x: f64, scale: f64) -> bool {
    x == 0.0 || x.abs() < ROUND_OFF_ULPS * f64::EPSILON * scale.abs()
}

/// A vector as `[a, b, c]`, each entry [`readable_at`] the vector's own
/// largest entry or `scale`, whichever is larger.
///
/// ```
/// use zwang_core::readable_vec;
/// assert_eq!(readable_vec(&[0.0, 2.58e-21], 1.0), "[0, 0]");
/// assert_eq!(readable_vec(&[1.0, 2.58e-21], 0.0), "[1, 0]");
/// assert_eq!(readable_vec(&[1.5, -0.25], 0.0), "[1.5, -0.25]");
/// ```
pub fn readable_vec(xs: &[f64], scale: f64) -> String {
    let scale = xs.iter().fold(scale.abs(), |m, x| m.max(x.abs()));
    let parts: Vec<String> = xs.iter().map(|&x| readable_at(x, scale)).collect();
    format!("[{}]", parts.join(", "))
}

/// `{:e}` with `digits` significant digits and the mantissa's trailing
/// zeros dropped: `2.58445e-21`, `1e-5`.
fn scientific(x: f64, digits: i32) -> String {
    let s = format!("{:.*e}", (digits - 1) as usize, x);
    match s.split_once('e') {
        Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa)),
        None => s,
    }
}

/// Drops the trailing zeros of a decimal fraction, and its point if
/// nothing is left after it; `-0` becomes `0`.
fn trim_zeros(s: &str) -> String {
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_significant_digits_on_both_sides_of_the_switch() {
        assert_eq!(readable(1.0e-4), "0.0001");
        assert_eq!(readable(9.99999e-5), "9.99999e-5");
        assert_eq!(readable(123456.7), "123457");
        assert_eq!(readable(999999.7), "1e6");
        assert_eq!(readable(1.0e6), "1e6");
        assert_eq!(readable(0.999_999_7), "1");
        assert_eq!(readable(-1.354569201), "-1.35457");
        assert_eq!(readable(1.2), "1.2");
        assert_eq!(readable(f64::NAN), "NaN");
        assert_eq!(readable(f64::NEG_INFINITY), "-inf");
        assert_eq!(readable(-1.0e-300), "-1e-300");
    }

    #[test]
    fn round_off_is_relative_to_the_scale() {
        assert_eq!(readable_at(1.0e-14, 1.0), "0");
        assert_eq!(readable_at(1.0e-13, 1.0), "1e-13");
        assert_eq!(readable_at(1.0e-14, 1.0e-3), "1e-14");
        assert_eq!(readable_at(-5.0e-12, 1.0e4), "0");
    }
}
