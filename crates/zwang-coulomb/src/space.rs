//! The contact-space operators of an instant with some rows held: the one
//! builder behind the contact problem (`contact.rs`) and the checker, so
//! that both read `W`, `V` and the free contact acceleration off the same
//! `M_E^-1` (the inverse mass of the system the held rows leave free).
//!
//! `M_E^-1 f` is one solve of the held system under the force `f` with zero
//! right-hand sides: by the direct backend (sparse, redundant rows
//! included), or by the factor of `M` alone when nothing is held, the
//! common case of free bodies touching the ground. So `M` is never formed
//! densely and the held rows may be many while the contact rows stay few.

use faer::Mat;
use zwang_instant::{matrix_from_triplets, Instant, MassFactor, RowRef};
use zwang_qp::{Backend, DirectBackend, Status};

/// The system an instant's held rows leave free, and its solves.
pub(crate) struct Held<'a> {
    instant: &'a Instant,
    /// The held rows (equalities or inequalities, all held as equalities).
    rows: Vec<RowRef>,
    /// The held system as an instant, with `b_E` and with zero right-hand
    /// sides (none when nothing is held).
    base: Option<Instant>,
    base_zero: Option<Instant>,
    /// (Made on first use, boxed: it holds 16 KB of inline scratch, which
    /// parts with no held row would zero and move.)
    direct: Option<Box<DirectBackend>>,
    /// The factor of `M`, when nothing is held (the caller's, refactored on
    /// first use).
    mass: &'a mut Option<MassFactor>,
    mass_ready: bool,
    /// Solver iterations spent, for the answer's count.
    pub iterations: usize,
}

/// The held system's answer under some force.
pub(crate) struct HeldAnswer {
    pub a: Vec<f64>,
    /// Multipliers of the held rows, in their order.
    pub l_e: Vec<f64>,
    pub status: Status,
}

/// The contact space of some contact rows `A_c` and tangents `J_t`.
pub(crate) struct Operators {
    /// `a0`: the held system's answer under `Q` alone.
    pub a0: Vec<f64>,
    /// `M_E^-1 a_r^T` per contact row and `M_E^-1 J_t,i^T` per tangent.
    pub y: Vec<Vec<f64>>,
    pub yt: Vec<Vec<f64>>,
    /// `W = A_c M_E^-1 A_c^T` (symmetrized), `V = A_c M_E^-1 J_t^T`, and
    /// the diagonal of `T = J_t M_E^-1 J_t^T` (the scale of `V`'s entries).
    pub w: Mat<f64>,
    pub v: Mat<f64>,
    pub t_diag: Vec<f64>,
    /// `w0 = A_c a0 - b_c`, the free contact acceleration (with
    /// inconsistent held rows, of a least-squares compromise).
    pub w0: Vec<f64>,
}

impl<'a> Held<'a> {
    /// The held system of `rows`; `mass` is a factor of `M` to reuse (or
    /// to make) when `rows` is empty.
    pub fn new(instant: &'a Instant, rows: Vec<RowRef>, mass: &'a mut Option<MassFactor>) -> Self {
        let mut held = Held {
            instant,
            rows,
            base: None,
            base_zero: None,
            direct: None,
            mass,
            mass_ready: false,
            iterations: 0,
        };
        if !held.rows.is_empty() {
            let n = instant.dim();
            let mut t = Vec::new();
            for (k, r) in held.rows.iter().enumerate() {
                if let Some(row) = instant.rows(r.set).matrix().outer_view(r.row) {
                    t.extend(row.iter().map(|(j, &v)| (k, j, v)));
                }
            }
            let build = |b: Vec<f64>| {
                matrix_from_triplets("equalities.A", (b.len(), n), t.clone())
                    .ok()
                    .and_then(|a| {
                        Instant::builder(instant.mass().clone(), instant.force().to_vec())
                            .equalities(a, b)
                            .build()
                            .ok()
                    })
            };
            let b: Vec<f64> = held
                .rows
                .iter()
                .map(|r| instant.rows(r.set).rhs()[r.row])
                .collect();
            held.base_zero = build(vec![0.0; b.len()]);
            held.base = build(b);
        }
        held
    }

    pub fn rows(&self) -> &[RowRef] {
        &self.rows
    }

    /// The held system under the force `f` (right-hand sides `b_E`, or zero
    /// for a response); `None` when it cannot be posed.
    pub fn solve(&mut self, f: Vec<f64>, zero_rhs: bool) -> Option<HeldAnswer> {
        if self.rows.is_empty() {
            let mut a = f;
            if a.iter().any(|x| !x.is_finite()) {
                return None;
            }
            if !self.mass_ready {
                // A factor that fails solves to NaN (`mass_factor_or_nan`).
                let _ = refactor(self.mass, self.instant);
                self.mass_ready = true;
            }
            if let Some(factor) = self.mass.as_mut() {
                factor.solve_in_place(&mut a);
            }
            self.iterations += 1;
            return Some(HeldAnswer {
                a,
                l_e: Vec::new(),
                status: Status::Solved,
            });
        }
        let base = if zero_rhs {
            &self.base_zero
        } else {
            &self.base
        };
        let inst = base.as_ref()?.with_force(f).ok()?;
        let s = self.direct.get_or_insert_default().solve(&inst);
        self.iterations += s.iterations;
        Some(HeldAnswer {
            a: s.acceleration,
            l_e: s.multipliers_eq,
            status: s.status,
        })
    }

    /// `M_E^-1 f`: the acceleration a generalized force causes with the
    /// held rows in place (NaN when the held system cannot be posed).
    pub fn response(&mut self, f: Vec<f64>) -> Vec<f64> {
        match self.solve(f, true) {
            Some(s) => s.a,
            None => vec![f64::NAN; self.instant.dim()],
        }
    }

    /// The operators of the contact rows `cs` and the tangents `tangents`;
    /// with `strict`, `None` as soon as the held rows turn out inconsistent
    /// (the contact problem has no answer then, so nothing more is solved);
    /// else always `Some`.
    pub fn operators(
        &mut self,
        cs: &[RowRef],
        tangents: &[&[f64]],
        strict: bool,
    ) -> Option<Operators> {
        let inst = self.instant;
        let n = inst.dim();
        let s0 = self.solve(inst.force().to_vec(), false);
        let consistent = s0.as_ref().is_some_and(|s| s.status == Status::Solved);
        if strict && !consistent {
            return None;
        }
        let a0 = s0.map_or_else(|| vec![f64::NAN; n], |s| s.a);
        let (k, kt) = (cs.len(), tangents.len());
        let y: Vec<Vec<f64>> = cs
            .iter()
            .map(|r| {
                let mut f = vec![0.0; n];
                if let Some(row) = inst.rows(r.set).matrix().outer_view(r.row) {
                    for (j, &v) in row.iter() {
                        f[j] = v;
                    }
                }
                self.response(f)
            })
            .collect();
        let yt: Vec<Vec<f64>> = tangents.iter().map(|t| self.response(t.to_vec())).collect();
        let (mut w, mut v, mut w0) = (Mat::zeros(k, k), Mat::zeros(k, kt), vec![0.0; k]);
        for (p, r) in cs.iter().enumerate() {
            let rows = inst.rows(r.set);
            w0[p] = rows.row_dot(r.row, &a0) - rows.rhs()[r.row];
            for q in 0..k {
                w[(p, q)] = rows.row_dot(r.row, &y[q]);
            }
            for (i, yt) in yt.iter().enumerate() {
                v[(p, i)] = rows.row_dot(r.row, yt);
            }
        }
        // Symmetrize W (round-off only: it is A M_E^-1 A^T).
        for p in 0..k {
            for q in p + 1..k {
                let s = 0.5 * (w[(p, q)] + w[(q, p)]);
                w[(p, q)] = s;
                w[(q, p)] = s;
            }
        }
        let t_diag = tangents
            .iter()
            .zip(&yt)
            .map(|(t, y)| t.iter().zip(y).map(|(a, b)| a * b).sum())
            .collect();
        Some(Operators {
            a0,
            y,
            yt,
            w,
            v,
            t_diag,
            w0,
        })
    }
}

/// The factor of `instant`'s `M` in `factor`, refactored in place (made on
/// first use).
pub(crate) fn refactor(factor: &mut Option<MassFactor>, instant: &Instant) -> Result<(), usize> {
    factor
        .get_or_insert_with(|| MassFactor::analyze(instant.mass()))
        .refactor(instant.mass())
}
