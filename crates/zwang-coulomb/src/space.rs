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
use zwang_instant::{matrix_from_triplets, Instant, MassFactor, RowRef, RowSet};
use zwang_qp::{Backend, DirectBackend, Solution, Status};

/// The system an instant's held rows leave free, and its solves.
pub(crate) struct Held<'a> {
    instant: &'a Instant,
    /// The held rows (equalities or inequalities, all held as equalities).
    rows: Vec<RowRef>,
    /// The factor of `M` and the held system, kept by the caller.
    kept: &'a mut HeldFactors,
    mass_ready: bool,
    /// Solver iterations spent, for the answer's count.
    pub iterations: usize,
}

/// What a [`Held`] keeps between the solves of a stepper: the factor of
/// `M` (used when nothing is held) and the held system with its solver,
/// whose values are written in place while the structure and the held
/// rows stay, so that its symbolic analysis (and, while `M` and the rows
/// keep their values, its factors) serve every response of every solve.
#[derive(Debug, Default)]
pub(crate) struct HeldFactors {
    pub mass: Option<MassFactor>,
    system: Option<HeldSystem>,
}

/// The held rows as the equalities of an instant of their own.
#[derive(Debug)]
struct HeldSystem {
    /// The structure, mass and row value stamps of the instant it was
    /// written from, and its rows.
    source: (u64, u64, u64),
    rows: Vec<RowRef>,
    instant: Instant,
    /// `b_E`, zeros, and the rows' values gathered.
    rhs: Vec<f64>,
    zeros: Vec<f64>,
    values: Vec<f64>,
    /// Whether `instant` holds the zero right-hand sides.
    zero_rhs: bool,
    direct: DirectBackend,
    solution: Solution,
}

impl HeldSystem {
    /// The held system of `rows` in `instant`, made afresh.
    fn build(instant: &Instant, rows: &[RowRef]) -> Option<HeldSystem> {
        let n = instant.dim();
        let mut t = Vec::new();
        for (k, r) in rows.iter().enumerate() {
            if let Some(row) = instant.rows(r.set).matrix().outer_view(r.row) {
                t.extend(row.iter().map(|(j, &v)| (k, j, v)));
            }
        }
        let rhs: Vec<f64> = rows
            .iter()
            .map(|r| instant.rows(r.set).rhs()[r.row])
            .collect();
        let a = matrix_from_triplets("equalities.A", (rows.len(), n), t).ok()?;
        let system = Instant::builder(instant.mass().clone(), instant.force().to_vec())
            .equalities(a, rhs.clone())
            .build()
            .ok()?;
        Some(HeldSystem {
            source: stamps(instant),
            rows: rows.to_vec(),
            instant: system,
            zeros: vec![0.0; rhs.len()],
            rhs,
            values: Vec::new(),
            zero_rhs: false,
            direct: DirectBackend::new(),
            solution: Solution::empty(),
        })
    }

    /// Writes `instant`'s values in place; `false` when the structure or
    /// the rows differ (or a value is refused): then it is built afresh.
    fn refresh(&mut self, instant: &Instant, rows: &[RowRef]) -> bool {
        let now = stamps(instant);
        if now.0 != self.source.0 || rows != self.rows.as_slice() {
            return false;
        }
        if now.1 != self.source.1 && self.instant.set_mass_values(instant.mass().data()).is_err() {
            return false;
        }
        if now.2 != self.source.2 {
            self.values.clear();
            for r in rows {
                if let Some(row) = instant.rows(r.set).matrix().outer_view(r.row) {
                    self.values.extend_from_slice(row.data());
                }
            }
            if self
                .instant
                .set_row_values(RowSet::Equalities, &self.values)
                .is_err()
            {
                return false;
            }
        }
        for (b, r) in self.rhs.iter_mut().zip(rows) {
            *b = instant.rows(r.set).rhs()[r.row];
        }
        if self.instant.set_rhs(RowSet::Equalities, &self.rhs).is_err() {
            return false;
        }
        self.zero_rhs = false;
        self.source = now;
        true
    }
}

/// An instant's structure, mass values and row values stamps.
fn stamps(instant: &Instant) -> (u64, u64, u64) {
    (
        instant.structure_id(),
        instant.mass_values_id(),
        instant.row_values_id(),
    )
}

/// The contact space of some contact rows `A_c` and tangents `J_t`.
#[derive(Debug)]
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

impl Default for Operators {
    fn default() -> Self {
        Operators {
            a0: Vec::new(),
            y: Vec::new(),
            yt: Vec::new(),
            w: Mat::zeros(0, 0),
            v: Mat::zeros(0, 0),
            t_diag: Vec::new(),
            w0: Vec::new(),
        }
    }
}

impl<'a> Held<'a> {
    /// The held system of `rows`, with what `kept` holds from the last
    /// solve (a fresh [`HeldFactors`] makes everything).
    pub fn new(instant: &'a Instant, rows: Vec<RowRef>, kept: &'a mut HeldFactors) -> Self {
        if !rows.is_empty() {
            let fresh = match kept.system.as_mut() {
                Some(system) => !system.refresh(instant, &rows),
                None => true,
            };
            if fresh {
                kept.system = HeldSystem::build(instant, &rows);
            }
        }
        Held {
            instant,
            rows,
            kept,
            mass_ready: false,
            iterations: 0,
        }
    }

    pub fn rows(&self) -> &[RowRef] {
        &self.rows
    }

    /// The held rows back, for the caller to reuse their buffer.
    pub fn into_rows(self) -> Vec<RowRef> {
        self.rows
    }

    /// The held system under the force in `a` (right-hand sides `b_E`, or
    /// zero for a response), in place: `a` gets the acceleration, `l_e` the
    /// held rows' multipliers; `None` when it cannot be posed.
    pub fn solve_into(
        &mut self,
        a: &mut Vec<f64>,
        l_e: &mut Vec<f64>,
        zero_rhs: bool,
    ) -> Option<Status> {
        if self.rows.is_empty() {
            if a.iter().any(|x| !x.is_finite()) {
                return None;
            }
            if !self.mass_ready {
                // A factor that fails solves to NaN (`mass_factor_or_nan`).
                let _ = refactor(&mut self.kept.mass, self.instant);
                self.mass_ready = true;
            }
            if let Some(factor) = self.kept.mass.as_mut() {
                factor.solve_in_place(a);
            }
            self.iterations += 1;
            l_e.clear();
            return Some(Status::Solved);
        }
        let system = self.kept.system.as_mut()?;
        if system.zero_rhs != zero_rhs {
            let b = if zero_rhs { &system.zeros } else { &system.rhs };
            system.instant.set_rhs(RowSet::Equalities, b).ok()?;
            system.zero_rhs = zero_rhs;
        }
        system.instant.set_force(a).ok()?;
        let s = &mut system.solution;
        system.direct.solve_into(&system.instant, s);
        self.iterations += s.iterations;
        a.clone_from(&s.acceleration);
        l_e.clone_from(&s.multipliers_eq);
        Some(s.status)
    }

    /// `M_E^-1 f`: the acceleration a generalized force causes with the
    /// held rows in place (NaN when the held system cannot be posed).
    pub fn response(&mut self, f: Vec<f64>) -> Vec<f64> {
        let mut a = f;
        self.response_into(&mut a, &mut Vec::new());
        a
    }

    /// [`Held::response`] in place (`a`: the force, then the response).
    fn response_into(&mut self, a: &mut Vec<f64>, l_e: &mut Vec<f64>) {
        if self.solve_into(a, l_e, true).is_none() {
            a.clear();
            a.resize(self.instant.dim(), f64::NAN);
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
        let mut ops = Operators::default();
        self.operators_into(cs, tangents.len(), |i| tangents[i], strict, &mut ops)
            .then_some(ops)
    }

    /// [`Held::operators`] written into `ops` (a stepper's, whose buffers
    /// are reused), tangent `i` given by `tangent(i)`; `false` where
    /// `operators` gives `None`.
    pub fn operators_into<'t>(
        &mut self,
        cs: &[RowRef],
        kt: usize,
        tangent: impl Fn(usize) -> &'t [f64],
        strict: bool,
        ops: &mut Operators,
    ) -> bool {
        let inst = self.instant;
        let n = inst.dim();
        let mut l_e = std::mem::take(&mut ops.t_diag);
        let a0 = &mut ops.a0;
        a0.clear();
        a0.extend_from_slice(inst.force());
        let status = self.solve_into(a0, &mut l_e, false);
        let consistent = status == Some(Status::Solved);
        if strict && !consistent {
            ops.t_diag = l_e;
            return false;
        }
        if status.is_none() {
            a0.clear();
            a0.resize(n, f64::NAN);
        }
        let k = cs.len();
        ops.y.resize_with(k, Vec::new);
        for (r, y) in cs.iter().zip(&mut ops.y) {
            y.clear();
            y.resize(n, 0.0);
            if let Some(row) = inst.rows(r.set).matrix().outer_view(r.row) {
                for (j, &v) in row.iter() {
                    y[j] = v;
                }
            }
            self.response_into(y, &mut l_e);
        }
        ops.yt.resize_with(kt, Vec::new);
        for (i, y) in ops.yt.iter_mut().enumerate() {
            y.clear();
            y.extend_from_slice(tangent(i));
            self.response_into(y, &mut l_e);
        }
        let (w, v, w0) = (&mut ops.w, &mut ops.v, &mut ops.w0);
        w.resize_with(k, k, |_, _| 0.0);
        v.resize_with(k, kt, |_, _| 0.0);
        w0.clear();
        w0.resize(k, 0.0);
        let a0 = &ops.a0;
        for (p, r) in cs.iter().enumerate() {
            let rows = inst.rows(r.set);
            w0[p] = rows.row_dot(r.row, a0) - rows.rhs()[r.row];
            for q in 0..k {
                w[(p, q)] = rows.row_dot(r.row, &ops.y[q]);
            }
            for (i, yt) in ops.yt.iter().enumerate() {
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
        l_e.clear();
        l_e.extend(
            ops.yt
                .iter()
                .enumerate()
                .map(|(i, y)| tangent(i).iter().zip(y).map(|(a, b)| a * b).sum::<f64>()),
        );
        ops.t_diag = l_e;
        true
    }
}

/// The factor of `instant`'s `M` in `factor`, refactored in place (made on
/// first use).
pub(crate) fn refactor(factor: &mut Option<MassFactor>, instant: &Instant) -> Result<(), usize> {
    factor
        .get_or_insert_with(|| MassFactor::analyze(instant.mass()))
        .refactor(instant.mass())
}
