//! Time derivatives along the motion by nested dual numbers: a number of
//! depth `d` carries `x(t)` and its derivatives up to the `d`-th in `d`
//! nilpotent directions that all stand for `t`, so a function evaluated on
//! such numbers gives its own derivatives along the motion exactly (a
//! truncated Taylor series in `t`). The depth is a type, so the orders the
//! engine takes are a fixed list, dispatched by [`with_depth`].

use crate::system::Scalar;
use num_dual::Dual;

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

impl<T: Jet> Jet for Dual<T>
where
    Dual<T>: Scalar,
{
    /// `x = x_re + eps x_eps` with `x_re` the same quantity one level down
    /// and `x_eps` its derivative one level down.
    fn lift(d: &[f64]) -> Self {
        Dual::new(T::lift(d), T::lift(d.get(1..).unwrap_or(&[])))
    }

    fn nth(&self, k: usize) -> f64 {
        if k == 0 {
            self.re.nth(0)
        } else {
            self.eps.nth(k - 1)
        }
    }
}

/// Depth 1 to 6 (constraints of order 3 to 8).
pub(crate) type J1 = Dual<f64>;
pub(crate) type J2 = Dual<J1>;
pub(crate) type J3 = Dual<J2>;
pub(crate) type J4 = Dual<J3>;
pub(crate) type J5 = Dual<J4>;
pub(crate) type J6 = Dual<J5>;

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
    use num_dual::DualNum;

    /// `sin(x(t))` with `x = t^2` at `t = 0.5`: the derivatives by hand,
    /// `d/dt sin(t^2) = 2 t cos t^2`, `d2 = 2 cos t^2 - 4 t^2 sin t^2`,
    /// `d3 = -12 t sin t^2 - 8 t^3 cos t^2`.
    #[test]
    fn derivatives_along_a_path_by_hand() {
        let t: f64 = 0.5;
        let x = J3::lift(&[t * t, 2.0 * t, 2.0]);
        let y = x.sin();
        let (s, c) = (t * t).sin_cos();
        let want = [
            s,
            2.0 * t * c,
            2.0 * c - 4.0 * t * t * s,
            -12.0 * t * s - 8.0 * t * t * t * c,
        ];
        for (k, w) in want.iter().enumerate() {
            assert!((y.nth(k) - w).abs() < 1e-15, "{k}: {}", y.nth(k));
        }
        assert_eq!(J2::lift(&[1.0]).nth(2), 0.0);
        assert_eq!(J1::lift(&[]).nth(0), 0.0);
    }
}
