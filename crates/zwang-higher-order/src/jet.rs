//! Time derivatives along the motion by nested dual numbers: a number of
//! depth `d` carries `x(t)` and its derivatives up to the `d`-th in
//! nilpotent directions that all stand for `t`, so a function evaluated on
//! such numbers gives its own derivatives along the motion exactly (a
//! truncated Taylor series in `t`). The depth is a type, so the orders the
//! engine takes are a fixed list, dispatched by [`with_depth`].

use crate::system::Scalar;
use num_dual::{Dual, Dual2, Dual3};

/// A scalar that carries the time derivatives of a quantity along the
/// motion up to its depth.
pub(crate) trait Jet: Scalar {
    /// The number whose derivatives are `d[0], d[1], ...` (zero past the
    /// end of `d`).
    fn lift(d: &[f64]) -> Self;

    /// The `k`-th time derivative carried (`k` at most the depth).
    fn nth(&self, k: usize) -> f64;
}

impl Jet for f64 {
    fn lift(d: &[f64]) -> f64 {
        d.first().copied().unwrap_or(0.0)
    }

    fn nth(&self, k: usize) -> f64 {
        if k == 0 {
            *self
        } else {
            0.0
        }
    }
}

/// The slice of `d` from `k` on (empty past its end).
fn from(d: &[f64], k: usize) -> &[f64] {
    d.get(k..).unwrap_or(&[])
}

impl<T: Jet> Jet for Dual<T>
where
    Dual<T>: Scalar,
{
    /// `x = x_re + eps x_eps` with `x_re` the same quantity one level down
    /// and `x_eps` its derivative one level down.
    fn lift(d: &[f64]) -> Self {
        Dual::new(T::lift(d), T::lift(from(d, 1)))
    }

    fn nth(&self, k: usize) -> f64 {
        match k {
            0 => self.re.nth(0),
            _ => self.eps.nth(k - 1),
        }
    }
}

/// As [`Dual`], with the first and second derivatives along one more
/// direction (a truncated Taylor series of degree 2 over `T`).
impl<T: Jet> Jet for Dual2<T>
where
    Dual2<T>: Scalar,
{
    fn lift(d: &[f64]) -> Self {
        Dual2::new(T::lift(d), T::lift(from(d, 1)), T::lift(from(d, 2)))
    }

    fn nth(&self, k: usize) -> f64 {
        match k {
            0 => self.re.nth(0),
            1 => self.v1.nth(0),
            _ => self.v2.nth(k - 2),
        }
    }
}

/// As [`Dual`], to the third derivative along one more direction.
impl<T: Jet> Jet for Dual3<T>
where
    Dual3<T>: Scalar,
{
    fn lift(d: &[f64]) -> Self {
        Dual3::new(
            T::lift(d),
            T::lift(from(d, 1)),
            T::lift(from(d, 2)),
            T::lift(from(d, 3)),
        )
    }

    fn nth(&self, k: usize) -> f64 {
        match k {
            0 => self.re.nth(0),
            1 => self.v1.nth(0),
            2 => self.v2.nth(0),
            _ => self.v3.nth(k - 3),
        }
    }
}

/// Depth 1 to 6 (constraints of order 3 to 8): the Taylor types of
/// num-dual (to the third derivative in one direction), nested past it. A
/// function of `x(t + e1 + e2)` has `f^(a + b)` as its derivative `a` in
/// `e1` and `b` in `e2`, so nesting adds the depths, at far less work than
/// nesting first-order duals (16 parts at depth 6, not 64).
pub(crate) type J1 = Dual<f64>;
pub(crate) type J2 = Dual2<f64>;
pub(crate) type J3 = Dual3<f64>;
pub(crate) type J4 = Dual<Dual3<f64>>;
pub(crate) type J5 = Dual2<Dual3<f64>>;
pub(crate) type J6 = Dual3<Dual3<f64>>;

/// The deepest jet: constraints of order up to `MAX_DEPTH + 2`.
pub(crate) const MAX_DEPTH: usize = 6;

/// Calls `$f::<J>` with the jet type of depth `$depth` (1 to [`MAX_DEPTH`]),
/// `$default` for any other depth.
macro_rules! with_depth {
    ($depth:expr, $f:ident ( $($arg:expr),* ), $default:expr) => {
        match $depth {
            1 => $f::<_, $crate::jet::J1>($($arg),*),
            2 => $f::<_, $crate::jet::J2>($($arg),*),
            3 => $f::<_, $crate::jet::J3>($($arg),*),
            4 => $f::<_, $crate::jet::J4>($($arg),*),
            5 => $f::<_, $crate::jet::J5>($($arg),*),
            6 => $f::<_, $crate::jet::J6>($($arg),*),
            _ => $default,
        }
    };
}
pub(crate) use with_depth;

#[cfg(test)]
mod tests {
    use super::*;

    /// `sin(x(t))` with `x = t^2` at `t = 0.5`: the derivatives by hand,
    /// `d/dt sin(t^2) = 2 t cos t^2`, `d2 = 2 cos t^2 - 4 t^2 sin t^2`,
    /// `d3 = -12 t sin t^2 - 8 t^3 cos t^2`.
    /// At every depth: `sin(x(t))` with `x = t^2` at `t = 0.5` against the
    /// derivatives by hand (`2 t cos t^2`, `2 cos t^2 - 4 t^2 sin t^2`,
    /// `-12 t sin t^2 - 8 t^3 cos t^2`, `(16 t^4 - 12) sin t^2 - 48 t^2
    /// cos t^2`), and `(1 + t)^6` at `t = 0.5`, whose `k`-th derivative is
    /// `6! / (6 - k)! 1.5^(6 - k)`, to the sixth.
    #[test]
    fn derivatives_along_a_path_by_hand() {
        fn check<J: Jet>(depth: usize) {
            let t: f64 = 0.5;
            let y = J::lift(&[t * t, 2.0 * t, 2.0]).sin();
            let (s, c) = (t * t).sin_cos();
            let want = [
                s,
                2.0 * t * c,
                2.0 * c - 4.0 * t * t * s,
                -12.0 * t * s - 8.0 * t.powi(3) * c,
                (16.0 * t.powi(4) - 12.0) * s - 48.0 * t * t * c,
            ];
            for (k, w) in want.iter().enumerate().take(depth + 1) {
                assert!(
                    (y.nth(k) - w).abs() < 1e-14,
                    "depth {depth}, {k}: {}",
                    y.nth(k)
                );
            }
            // (1 + t)^6 at t = 0.5 through x^3 * x^3 / x^0: 6!/(6-k)! 1.5^(6-k).
            let x = J::lift(&[1.5, 1.0]);
            let y = x.powi(3) * x * x * x / J::from(1.0);
            let mut want = 1.5f64.powi(6);
            for k in 0..=depth {
                assert!(
                    (y.nth(k) - want).abs() < 1e-12 * want.abs().max(1.0),
                    "depth {depth}, {k}"
                );
                want = want * (6 - k) as f64 / 1.5;
            }
        }
        check::<f64>(0);
        check::<J1>(1);
        check::<J2>(2);
        check::<J3>(3);
        check::<J4>(4);
        check::<J5>(5);
        check::<J6>(6);
        assert_eq!(J2::lift(&[1.0]).nth(2), 0.0);
        assert_eq!(J1::lift(&[]).nth(0), 0.0);
    }
}
