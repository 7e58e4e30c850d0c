//! The Appell, Lagrange and Nielsen forms of Gauss's principle in
//! generalized coordinates (Zhang & Xia 2024, eqs 36, 49, 54), each
//! computed on its own from `T` or `S` as the linear map
//! `qdd -> E(qdd) = mass qdd + bias`.
//!
//! The map's matrix is read off by differentiating once more with respect
//! to `qdd` (a dual number in the acceleration slot), not by differences:
//! it is exact, and so is the bias (the value at `qdd = 0`).

use crate::equations::check_finite;
use crate::{GeneralizedError, System};
use num_dual::{Dual64, HyperDual, HyperDual64};
use std::fmt::Write;

/// One form's left side `E(qdd) = mass qdd + bias`; the equations of
/// motion are `E(qdd) = Q + A^T lambda` with the same `Q` for every form.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearForm {
    /// `dE/dqdd`, `n x n`, row-major.
    pub mass: Vec<f64>,
    /// `E(0)`.
    pub bias: Vec<f64>,
}

impl LinearForm {
    /// `E(qdd)`.
    pub fn apply(&self, qdd: &[f64]) -> Vec<f64> {
        let n = self.bias.len();
        (0..n)
            .map(|i| self.bias[i] + (0..n).map(|j| self.mass[i * n + j] * qdd[j]).sum::<f64>())
            .collect()
    }
}

/// The forms at one state and their largest differences.
#[derive(Debug, Clone, PartialEq)]
pub struct FormsReport {
    /// Coordinate names.
    pub names: Vec<String>,
    /// What the instant is built from: `M = d2T/dqd2` and the velocity
    /// terms `h` (directional second derivatives of `T`).
    pub engine: LinearForm,
    /// Lagrange: `d/dt dT/dqd - dT/dq`, the time derivative taken along
    /// `(t, q, qd) -> (1, qd, qdd)`.
    pub lagrange: LinearForm,
    /// Nielsen: `d/dqd (dT/dt) - 2 dT/dq`, with `dT/dt` the derivative
    /// along `(1, qd, qdd)`; `qd` is also the direction of `q` there, so
    /// the derivative by `qd` sees it in both places.
    pub nielsen: LinearForm,
    /// Appell: `dS/dqdd`; `None` when the system does not give its
    /// acceleration energy.
    pub appell: Option<LinearForm>,
    /// `Q = -dV/dq + forces`, the right side shared by all.
    pub applied: Vec<f64>,
    /// The largest absolute difference between any two forms, over the
    /// entries of the mass matrices and of the biases.
    pub max_abs_difference: f64,
    /// The same relative to the size of what is compared, whichever is
    /// larger: the largest difference of the mass entries over the
    /// largest mass entry, and of the biases over their scale, the larger
    /// of the largest bias and `max |M| max |qd|^2` (the size of the
    /// velocity-product terms: a bias that cancels to round-off, as for a
    /// pendulum whose `T` does not depend on its angle, is compared with
    /// the terms that cancel). 0 where everything compared is 0.
    pub max_rel_difference: f64,
}

impl FormsReport {
    /// The forms, in order: `("engine", ..)`, `("lagrange", ..)`,
    /// `("nielsen", ..)` and `("appell", ..)` when available.
    pub fn forms(&self) -> Vec<(&'static str, &LinearForm)> {
        let mut v = vec![
            ("engine", &self.engine),
            ("lagrange", &self.lagrange),
            ("nielsen", &self.nielsen),
        ];
        if let Some(a) = &self.appell {
            v.push(("appell", a));
        }
        v
    }

    /// A table: per coordinate, each form's row of the mass matrix and its
    /// bias, then the largest differences.
    pub fn text(&self) -> String {
        let n = self.names.len();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<10} {:<9} {:<width$} {:>14}",
            "row",
            "form",
            "mass row (coefficients of qdd)",
            "bias",
            width = 16 * n
        );
        for (i, name) in self.names.iter().enumerate() {
            for (form, f) in self.forms() {
                let row: String = (0..n)
                    .map(|j| format!("{:>16.9e}", f.mass[i * n + j]))
                    .collect();
                let _ = writeln!(s, "{name:<10} {form:<9} {row} {:>14.6e}", f.bias[i]);
            }
            let _ = writeln!(
                s,
                "{name:<10} {:<9} {:<width$} {:>14.6e}",
                "Q",
                "",
                self.applied[i],
                width = 16 * n
            );
        }
        if self.appell.is_none() {
            let _ = writeln!(s, "appell: not available (the system gives no S)");
        }
        let _ = writeln!(
            s,
            "largest difference between forms: {:.3e} absolute, {:.3e} relative",
            self.max_abs_difference, self.max_rel_difference
        );
        s
    }
}

fn dual(x: f64) -> Dual64 {
    Dual64::new(x, 0.0)
}

/// `dT/dq` by one hyper-dual evaluation per coordinate.
fn kinetic_gradient<S: System>(sys: &S, t: f64, q: &[f64], qd: &[f64]) -> Vec<f64> {
    let lift = |x: f64| HyperDual64::new(x, 0.0, 0.0, 0.0);
    let mut qh: Vec<_> = q.iter().map(|&x| lift(x)).collect();
    let vh: Vec<_> = qd.iter().map(|&x| lift(x)).collect();
    (0..q.len())
        .map(|i| {
            qh[i].eps1 = 1.0;
            let g = sys.kinetic(lift(t), &qh, &vh).eps1;
            qh[i].eps1 = 0.0;
            g
        })
        .collect()
}

/// Lagrange's (`nielsen = false`) or Nielsen's form. Row `i`, column `c`:
/// `T` at `t + e2`, `q + e2 qd (+ e1 e2 e_i for Nielsen)`,
/// `qd + e1 e_i + e2 qdd` with `qdd = e_c` in the inner dual: the mixed
/// part is `d/dt dT/dqd_i` (Lagrange) or `d/dqd_i dT/dt` (Nielsen), whose
/// inner value is the bias and inner derivative `M[i, c]`.
fn second_kind<S: System>(sys: &S, t: f64, q: &[f64], qd: &[f64], nielsen: bool) -> LinearForm {
    let n = q.len();
    let grad = kinetic_gradient(sys, t, q, qd);
    let factor = if nielsen { 2.0 } else { 1.0 };
    let (zero, one) = (dual(0.0), dual(1.0));
    let tt = HyperDual::new(dual(t), zero, one, zero);
    let mut mass = vec![0.0; n * n];
    let mut bias = vec![0.0; n];
    let mut qq: Vec<HyperDual<Dual64>> = (0..n)
        .map(|k| HyperDual::new(dual(q[k]), zero, dual(qd[k]), zero))
        .collect();
    let mut vv: Vec<HyperDual<Dual64>> = (0..n)
        .map(|k| HyperDual::new(dual(qd[k]), zero, zero, zero))
        .collect();
    for i in 0..n {
        vv[i].eps1 = one;
        if nielsen {
            qq[i].eps1eps2 = one;
        }
        for c in 0..n {
            vv[c].eps2 = Dual64::new(0.0, 1.0);
            let e = sys.kinetic(tt, &qq, &vv).eps1eps2;
            vv[c].eps2 = zero;
            mass[i * n + c] = e.eps;
            if c == 0 {
                bias[i] = e.re - factor * grad[i];
            }
        }
        vv[i].eps1 = zero;
        qq[i].eps1eps2 = zero;
    }
    LinearForm { mass, bias }
}

/// Appell's form `dS/dqdd`: `M[i, c] = d2S/dqdd_i dqdd_c`, bias
/// `dS/dqdd_i` at `qdd = 0`; `None` when the system gives no `S`.
fn appell<S: System>(sys: &S, t: f64, q: &[f64], qd: &[f64]) -> Option<LinearForm> {
    let n = q.len();
    let lift = |x: f64| HyperDual64::new(x, 0.0, 0.0, 0.0);
    let qh: Vec<_> = q.iter().map(|&x| lift(x)).collect();
    let vh: Vec<_> = qd.iter().map(|&x| lift(x)).collect();
    let mut ah = vec![lift(0.0); n];
    let mut mass = vec![0.0; n * n];
    let mut bias = vec![0.0; n];
    for i in 0..n {
        for c in 0..n {
            ah[i].eps1 = 1.0;
            ah[c].eps2 = 1.0;
            let s = sys.acceleration_energy(lift(t), &qh, &vh, &ah)?;
            ah[i].eps1 = 0.0;
            ah[c].eps2 = 0.0;
            mass[i * n + c] = s.eps1eps2;
            if c == 0 {
                bias[i] = s.eps1;
            }
        }
    }
    Some(LinearForm { mass, bias })
}

/// The largest entry-wise difference between `a` and `b`, and the
/// largest entry of either.
fn spread(a: &[f64], b: &[f64]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0f64, 0.0f64), |(d, s), (x, y)| {
        (d.max((x - y).abs()), s.max(x.abs()).max(y.abs()))
    })
}

/// Every form at `(t, q, qd)` (checked by the caller), with the engine's
/// `M` and `h` and the applied forces.
pub(crate) fn report<S: System>(
    sys: &S,
    names: Vec<String>,
    t: f64,
    q: &[f64],
    qd: &[f64],
    engine: LinearForm,
    applied: Vec<f64>,
) -> Result<FormsReport, GeneralizedError> {
    let lagrange = second_kind(sys, t, q, qd, false);
    let nielsen = second_kind(sys, t, q, qd, true);
    let appell = appell(sys, t, q, qd);
    for (what, f) in [("Lagrange", Some(&lagrange)), ("Nielsen", Some(&nielsen))]
        .into_iter()
        .chain([("Appell", appell.as_ref())])
    {
        if let Some(f) = f {
            check_finite(&format!("{what} mass"), &f.mass)?;
            check_finite(&format!("{what} bias"), &f.bias)?;
        }
    }
    let mut all = vec![&engine, &lagrange, &nielsen];
    if let Some(a) = &appell {
        all.push(a);
    }
    let (mut abs, mut dm, mut sm, mut db, mut sb) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for x in 0..all.len() {
        for y in x + 1..all.len() {
            let (d, s) = spread(&all[x].mass, &all[y].mass);
            dm = dm.max(d);
            sm = sm.max(s);
            let (d, s) = spread(&all[x].bias, &all[y].bias);
            db = db.max(d);
            sb = sb.max(s);
            abs = abs.max(dm).max(db);
        }
    }
    let speed = qd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let sb = sb.max(sm * speed * speed);
    let rel = |d: f64, s: f64| if d == 0.0 { 0.0 } else { d / s };
    Ok(FormsReport {
        names,
        engine,
        lagrange,
        nielsen,
        appell,
        applied,
        max_abs_difference: abs,
        max_rel_difference: rel(dm, sm).max(rel(db, sb)),
    })
}
