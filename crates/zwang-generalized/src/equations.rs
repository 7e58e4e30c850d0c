//! The equations of motion at one state, by hyper-dual numbers: each
//! entry is one evaluation of `T`, `V` or a constraint with two
//! directions seeded, read off the mixed part (`eps1eps2`) or the first
//! part (`eps1`).

use crate::{ConstraintKind, GeneralizedError, System};
use num_dual::HyperDual64 as H;
use zwang_instant::dense;

/// `M qdd + h = Q + A^T lambda`, `A qdd = b` at one state `(t, q, qd)`:
/// everything an instant needs, dense (row-major), in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct Equations {
    /// Number of coordinates `n`.
    pub n: usize,
    /// `M = d2T/dqd2`, `n x n`, row-major, symmetric by construction.
    pub mass: Vec<f64>,
    /// `h = (d2T/dqd dq) qd + d2T/dqd dt - dT/dq`.
    pub velocity_terms: Vec<f64>,
    /// `Q = -dV/dq + forces`.
    pub applied: Vec<f64>,
    /// How each constraint is given.
    pub kinds: Vec<ConstraintKind>,
    /// `A`: `phi_q` (holonomic) or `f_qd` (velocity-level), `m x n`,
    /// row-major.
    pub jacobian: Vec<f64>,
    /// `b`: `-phi''` at zero acceleration, or `-f_q qd - f_t`.
    pub rhs: Vec<f64>,
    /// The constraints' values at the state: `phi(t, q)` or
    /// `f(t, q, qd)` (zero on the motion).
    pub values: Vec<f64>,
    /// The right-hand sides `c` of the velocity-level rows `A qd = c`:
    /// `-phi_t` (holonomic), `A qd - f(t, q, qd)` (velocity-level: `-beta`
    /// for a Pfaffian `f = B qd + beta`).
    pub targets: Vec<f64>,
}

impl Equations {
    /// Zeros for `n` coordinates and `m` constraints.
    pub(crate) fn zeros(n: usize, m: usize) -> Self {
        Equations {
            n,
            mass: vec![0.0; n * n],
            velocity_terms: vec![0.0; n],
            applied: vec![0.0; n],
            kinds: vec![ConstraintKind::Holonomic; m],
            jacobian: vec![0.0; m * n],
            rhs: vec![0.0; m],
            values: vec![0.0; m],
            targets: vec![0.0; m],
        }
    }

    /// Number of constraints `m`.
    pub fn constraints(&self) -> usize {
        self.rhs.len()
    }

    /// `M[i, j]`.
    pub fn mass_at(&self, i: usize, j: usize) -> f64 {
        self.mass[i * self.n + j]
    }

    /// The instant's force `Q - h`.
    pub fn force(&self) -> Vec<f64> {
        self.applied
            .iter()
            .zip(&self.velocity_terms)
            .map(|(q, h)| q - h)
            .collect()
    }

    /// `qdd = M^-1 (Q - h)`, the motion with the constraints left out
    /// (for a system without constraints, its motion).
    pub fn unconstrained_acceleration(&self) -> Result<Vec<f64>, GeneralizedError> {
        let mut l = vec![0.0; self.n * self.n];
        cholesky(&self.mass, self.n, &mut l)?;
        let mut a = self.force();
        dense::cholesky_solve_in_place(&l, self.n, &mut a);
        Ok(a)
    }
}

/// Hyper-dual copies of the state, seeded and cleared in place.
#[derive(Debug, Clone)]
pub(crate) struct Kernel {
    t: H,
    q: Vec<H>,
    qd: Vec<H>,
}

fn lift(x: f64) -> H {
    H::new(x, 0.0, 0.0, 0.0)
}

impl Kernel {
    pub(crate) fn new(n: usize) -> Self {
        Kernel {
            t: lift(0.0),
            q: vec![lift(0.0); n],
            qd: vec![lift(0.0); n],
        }
    }

    fn load(&mut self, t: f64, q: &[f64], qd: &[f64]) {
        self.t = lift(t);
        for (x, &v) in self.q.iter_mut().zip(q) {
            *x = lift(v);
        }
        for (x, &v) in self.qd.iter_mut().zip(qd) {
            *x = lift(v);
        }
    }

    fn kinetic<S: System>(&self, sys: &S) -> H {
        sys.kinetic(self.t, &self.q, &self.qd)
    }

    fn constraint<S: System>(&self, sys: &S, k: usize) -> H {
        sys.constraint(k, self.t, &self.q, &self.qd)
    }

    /// What row `k` of `A` differentiates along: `q` for a holonomic
    /// constraint (`phi_q`), `qd` for a velocity-level one (`f_qd`).
    fn along(&mut self, kind: ConstraintKind) -> &mut [H] {
        match kind {
            ConstraintKind::Holonomic => &mut self.q,
            ConstraintKind::Velocity => &mut self.qd,
        }
    }

    /// Row `k` of `A` into `row`, one direction seeded at a time.
    fn jacobian_row<S: System>(
        &mut self,
        sys: &S,
        k: usize,
        kind: ConstraintKind,
        row: &mut [f64],
    ) {
        for (j, a) in row.iter_mut().enumerate() {
            self.along(kind)[j].eps1 = 1.0;
            *a = self.constraint(sys, k).eps1;
            self.along(kind)[j].eps1 = 0.0;
        }
    }
}

/// Checks the lengths and finiteness of a state.
pub(crate) fn check_state(n: usize, q: &[f64], qd: &[f64]) -> Result<(), GeneralizedError> {
    check_vectors(n, [("q", q), ("qd", qd)])
}

/// Checks that each vector, named for the error, has `n` finite entries.
pub(crate) fn check_vectors(
    n: usize,
    vectors: [(&'static str, &[f64]); 2],
) -> Result<(), GeneralizedError> {
    for (what, x) in vectors {
        if x.len() != n {
            return Err(GeneralizedError::Length {
                what,
                found: x.len(),
                expected: n,
            });
        }
        check_finite(what, x)?;
    }
    Ok(())
}

/// The first non-finite entry of `x`, as an error naming `what[i]`.
pub(crate) fn check_finite(what: &str, x: &[f64]) -> Result<(), GeneralizedError> {
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(GeneralizedError::NotFinite {
            what: format!("{what}[{i}]"),
            value: x[i],
        }),
    }
}

/// Writes the equations at `(t, q, qd)` into `out` (sized for the system)
/// with no allocation; the state must have been checked.
pub(crate) fn evaluate<S: System>(
    sys: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    kern: &mut Kernel,
    out: &mut Equations,
) -> Result<(), GeneralizedError> {
    if !t.is_finite() {
        return Err(GeneralizedError::NotFinite {
            what: "t".into(),
            value: t,
        });
    }
    let n = out.n;
    kern.load(t, q, qd);
    // M: d2T/dqd_i dqd_j, the upper triangle mirrored.
    for i in 0..n {
        for j in i..n {
            kern.qd[i].eps1 = 1.0;
            kern.qd[j].eps2 = 1.0;
            let v = kern.kinetic(sys).eps1eps2;
            kern.qd[i].eps1 = 0.0;
            kern.qd[j].eps2 = 0.0;
            out.mass[i * n + j] = v;
            out.mass[j * n + i] = v;
        }
    }
    // h: d/dt (dT/dqd_i) along (t, q) -> (1, qd) at zero acceleration,
    // minus dT/dq_i (the eps1 part, which the direction does not touch).
    kern.t.eps2 = 1.0;
    for (x, &v) in kern.q.iter_mut().zip(qd) {
        x.eps2 = v;
    }
    for i in 0..n {
        kern.qd[i].eps1 = 1.0;
        let ddt = kern.kinetic(sys).eps1eps2;
        kern.qd[i].eps1 = 0.0;
        kern.q[i].eps1 = 1.0;
        let dq = kern.kinetic(sys).eps1;
        kern.q[i].eps1 = 0.0;
        out.velocity_terms[i] = ddt - dq;
    }
    kern.load(t, q, qd);
    // Q = forces - dV/dq.
    sys.forces(t, q, qd, &mut out.applied);
    for i in 0..n {
        kern.q[i].eps1 = 1.0;
        let dv = sys.potential(kern.t, &kern.q).eps1;
        kern.q[i].eps1 = 0.0;
        out.applied[i] -= dv;
    }
    // The constraint rows.
    for k in 0..out.rhs.len() {
        let kind = sys.constraint_kind(k);
        out.kinds[k] = kind;
        let row = &mut out.jacobian[k * n..(k + 1) * n];
        kern.jacobian_row(sys, k, kind, row);
        match kind {
            ConstraintKind::Holonomic => {
                kern.t.eps1 = 1.0;
                let phi_t = kern.constraint(sys, k).eps1;
                // Along the path (t + s, q + qd s): phi'' at zero
                // acceleration is the mixed part with both directions.
                kern.t.eps2 = 1.0;
                for (x, &v) in kern.q.iter_mut().zip(qd) {
                    x.eps1 = v;
                    x.eps2 = v;
                }
                let v = kern.constraint(sys, k);
                kern.load(t, q, qd);
                out.values[k] = v.re;
                out.rhs[k] = -v.eps1eps2;
                out.targets[k] = -phi_t;
            }
            ConstraintKind::Velocity => {
                // f_q qd + f_t: the derivative along (1, qd) with qd fixed.
                kern.t.eps1 = 1.0;
                for (x, &v) in kern.q.iter_mut().zip(qd) {
                    x.eps1 = v;
                }
                let v = kern.constraint(sys, k);
                kern.load(t, q, qd);
                out.values[k] = v.re;
                out.rhs[k] = -v.eps1;
                let jqd: f64 = row.iter().zip(qd).map(|(a, b)| a * b).sum();
                out.targets[k] = jqd - v.re;
            }
        }
    }
    check_finite("M", &out.mass)?;
    check_finite("h", &out.velocity_terms)?;
    check_finite("Q", &out.applied)?;
    check_finite("A", &out.jacobian)?;
    check_finite("b", &out.rhs)?;
    check_finite("constraint", &out.values)?;
    check_finite("velocity target", &out.targets)?;
    Ok(())
}

/// The `c` of the velocity-level rows `A qd = c` at `(t, q, qd)` into
/// `out` (one per constraint; extra entries 0): `-phi_t` for a holonomic
/// row, `A qd - f(t, q, qd)` for a velocity-level one. No allocation.
pub(crate) fn velocity_targets<S: System>(
    sys: &S,
    t: f64,
    q: &[f64],
    qd: &[f64],
    kern: &mut Kernel,
    out: &mut [f64],
) {
    let m = sys.constraints();
    kern.load(t, q, qd);
    for (k, c) in out.iter_mut().enumerate() {
        if k >= m {
            *c = 0.0;
            continue;
        }
        *c = match sys.constraint_kind(k) {
            ConstraintKind::Holonomic => {
                kern.t.eps1 = 1.0;
                let v = kern.constraint(sys, k).eps1;
                kern.t.eps1 = 0.0;
                -v
            }
            ConstraintKind::Velocity => {
                let mut jqd = 0.0;
                for j in 0..qd.len() {
                    kern.qd[j].eps1 = 1.0;
                    jqd += kern.constraint(sys, k).eps1 * qd[j];
                    kern.qd[j].eps1 = 0.0;
                }
                jqd - kern.constraint(sys, k).re
            }
        };
    }
}

/// `a = L L^T` (`a` symmetric positive definite, `n x n` row-major; `l`
/// gets `a` with the factor in its lower triangle). A pivot at or below
/// `8 n eps` times the largest diagonal entry is singular.
pub(crate) fn cholesky(a: &[f64], n: usize, l: &mut [f64]) -> Result<(), GeneralizedError> {
    let scale = (0..n).map(|i| a[i * n + i]).fold(0.0f64, f64::max);
    let tol = 8.0 * n as f64 * f64::EPSILON * scale;
    l.copy_from_slice(a);
    dense::cholesky_in_place_above(l, n, tol).map_err(|e| GeneralizedError::SingularMass {
        index: e.index,
        pivot: e.value,
    })
}
