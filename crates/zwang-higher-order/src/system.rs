//! The system: mass, force and constraints of third order, as functions
//! generic over dual numbers so that their derivatives come exactly.

use num_dual::DualNum;

/// The numbers the system's functions are evaluated with: `f64`, and the
/// dual numbers of `num-dual` (`Dual64`, `HyperDual64`, ...) through which
/// the engine takes their derivatives. Blanket-implemented: write
/// `fn mass<D: Scalar>(...)`, use `D::from(x)` for a constant and the usual
/// arithmetic and functions (`sin`, `sqrt`, ...) of [`DualNum`].
pub trait Scalar: DualNum<Primitive = f64> + Copy {}

impl<D: DualNum<Primitive = f64> + Copy> Scalar for D {}

/// A mechanical system with constraints of third order,
/// `phi_b(t, q, q', q'', q''') = 0`, each linear in `q'''`.
///
/// The equations of motion are those of Zhang et al. (arbitrary-order
/// Gauss principle of relative motion dynamics, eqs 39 and 50, m = 1):
///
/// ```text
/// M(t, q) q'' - Q(t, q, q') - sum_b lambda_b B_b = 0,   B_b = dphi_b/dq'''
/// phi_b(t, q, q', q'', q''') = 0
/// ```
///
/// `Q` is every generalized force that is not a constraint force: applied
/// forces, and in generalized coordinates the velocity-product terms
/// (`Q - h`), in a moving frame the inertial forces of the frame. Every
/// function writes into a slice of zeros, so only nonzero entries need be
/// set, and must be written for any [`Scalar`]: the engine differentiates
/// them (in `t`, `q`, `q'`, `q''`, `q'''`) by evaluating them on dual
/// numbers.
pub trait ThirdOrderSystem {
    /// Number of coordinates `n` (at least 1).
    fn dim(&self) -> usize;

    /// Number of constraints of third order `g` (may be 0: then the
    /// motion is `M q'' = Q`).
    fn constraint_count(&self) -> usize;

    /// Writes `M(t, q)`, `n x n` row by row, into `m` (zeros on entry).
    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]);

    /// Writes `Q(t, q, q')`, length `n`, into `f` (zeros on entry).
    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]);

    /// `phi_b(t, q, q', q'', q''')` for `b < g`: linear in `q'''` (checked
    /// at every state; its coefficients may depend on `q''`).
    fn constraint<D: Scalar>(&self, b: usize, t: D, q: &[D], qd: &[D], qdd: &[D], qddd: &[D]) -> D;
}

/// A mechanical system with constraints of order `m >= 3`,
/// `phi_b(t, q, q', ..., q^(m)) = 0`, each linear in `q^(m)`.
///
/// The equations of motion are those of Zhang et al. (arbitrary-order
/// Gauss principle of relative motion dynamics, eq 39, their `m` is this
/// `m - 2`), the same for every order:
///
/// ```text
/// M(t, q) q'' - Q(t, q, q') - sum_b lambda_b B_b = 0,   B_b = dphi_b/dq^(m)
/// phi_b(t, q, q', ..., q^(m)) = 0
/// ```
///
/// The rows `B_b` may depend on `t`, `q`, `q'` and `q''` but not on
/// `q''', ..., q^(m-1)` (checked at every state): the equations stay of
/// second order in `q`, and their `m - 2` time derivatives, with the
/// constraints, give `q''', ..., q^(m)` and `lambda^(m-2)`. `phi_b`'s part
/// without `q^(m)` may depend on every derivative below `q^(m)`. As for
/// [`ThirdOrderSystem`], every function is written for any [`Scalar`] and
/// writes into a slice of zeros; the engine takes its time derivatives by
/// nested dual numbers (truncated Taylor series in `t` along the motion).
pub trait OrderSystem {
    /// The order `m` of the constraints (3 to [`crate::MAX_ORDER`]).
    fn order(&self) -> usize;

    /// Number of coordinates `n` (at least 1).
    fn dim(&self) -> usize;

    /// Number of constraints `g` (may be 0: then the motion is `M q'' = Q`).
    fn constraint_count(&self) -> usize;

    /// Writes `M(t, q)`, `n x n` row by row, into `m` (zeros on entry).
    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]);

    /// Writes `Q(t, q, q')`, length `n`, into `f` (zeros on entry).
    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]);

    /// `phi_b(t, q, q', ..., q^(m))` for `b < g`, where `q[k]` is the
    /// `k`-th derivative `q^(k)` (`m + 1` slices of length `n`): linear in
    /// `q[m]`, with coefficients that depend on `q[0]`, `q[1]`, `q[2]` at
    /// most.
    fn constraint<D: Scalar>(&self, b: usize, t: D, q: &[&[D]]) -> D;
}

impl<S: OrderSystem + ?Sized> OrderSystem for &S {
    fn order(&self) -> usize {
        (**self).order()
    }
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn constraint_count(&self) -> usize {
        (**self).constraint_count()
    }
    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]) {
        (**self).mass(t, q, m)
    }
    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]) {
        (**self).force(t, q, qd, f)
    }
    fn constraint<D: Scalar>(&self, b: usize, t: D, q: &[&[D]]) -> D {
        (**self).constraint(b, t, q)
    }
}

/// A [`ThirdOrderSystem`] as the [`OrderSystem`] of order 3: the third-order
/// functions of the crate's root run on the engine of every order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Third<'s, S>(pub(crate) &'s S);

impl<S: ThirdOrderSystem> OrderSystem for Third<'_, S> {
    fn order(&self) -> usize {
        3
    }
    fn dim(&self) -> usize {
        self.0.dim()
    }
    fn constraint_count(&self) -> usize {
        self.0.constraint_count()
    }
    fn mass<D: Scalar>(&self, t: D, q: &[D], m: &mut [D]) {
        self.0.mass(t, q, m)
    }
    fn force<D: Scalar>(&self, t: D, q: &[D], qd: &[D], f: &mut [D]) {
        self.0.force(t, q, qd, f)
    }
    fn constraint<D: Scalar>(&self, b: usize, t: D, q: &[&[D]]) -> D {
        self.0.constraint(b, t, q[0], q[1], q[2], q[3])
    }
}
