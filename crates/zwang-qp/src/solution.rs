//! What every solver returns: the accelerations, the constraint forces, and
//! how well they satisfy the optimality conditions.

use zwang_instant::Instant;

/// How a solve ended. An outcome, not an error: every status comes with the
/// best answer known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Optimal to the solver's tolerances.
    Solved,
    /// Clarabel met only its reduced tolerances (its `AlmostSolved`): an
    /// answer near the optimum, not one to the tolerances asked for.
    AlmostSolved,
    /// The constraint rows admit no acceleration (for example inconsistent
    /// equalities); the residuals say by how much.
    Infeasible,
    /// The compulsion has no minimum (cannot happen with a positive definite
    /// mass, kept for the reference solver's sake).
    Unbounded,
    /// The iteration limit was reached.
    NotConverged,
    /// The linear algebra broke down (also: a mass whose values were set in
    /// place and are no longer positive definite).
    NumericalError,
    /// The backend does not apply to this instant (the direct backend
    /// given inequality rows); nothing was solved.
    NotApplicable,
}

impl Status {
    /// The spelling used in the instant file's output (`solved`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::AlmostSolved => "almost_solved",
            Status::Infeasible => "infeasible",
            Status::Unbounded => "unbounded",
            Status::NotConverged => "not_converged",
            Status::NumericalError => "numerical_error",
            Status::NotApplicable => "not_applicable",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Optimality residuals, each an infinity norm divided by the size of the
/// terms it balances, so that they are dimensionless: a pendulum in grams
/// and millimetres has the same residuals as in SI units.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Residuals {
    /// `|M a - Q - A_eq^T l_eq - A_in^T l_in| / max(|M a|, |Q|, |A^T l|)`.
    pub stationarity: f64,
    /// `|A_eq a - b_eq| / max(|A_eq| max(|a|, |M^-1 Q|), |b_eq|)`, row by
    /// row (the free acceleration `M^-1 Q` keeps a body at rest under load
    /// from being measured against zero).
    pub equalities: f64,
    /// `max(0, b_in - A_in a)`, scaled as the equalities.
    pub inequalities: f64,
    /// Largest product of a contact's force and its gap rate, each made
    /// dimensionless: `(|l_i| |A_i| / F) * (|A_i a - b_i| / row scale)`
    /// with `F = max(|M a|, |Q|, |A^T l|)` the force scale of the
    /// stationarity residual; a negative multiplier counts as
    /// `max(0, -l_i) |A_i| / F`. Measuring the force against `F` rather
    /// than against the largest multiplier keeps an instant whose contacts
    /// are all open (multipliers at round-off) at round-off too.
    pub complementarity: f64,
}

impl Residuals {
    /// The largest of the four.
    pub fn max(&self) -> f64 {
        self.stationarity
            .max(self.equalities)
            .max(self.inequalities)
            .max(self.complementarity)
    }

    /// Evaluates the residuals of `(a, l_eq, l_in)` on `instant` (factors
    /// `M` afresh for the free acceleration).
    pub fn evaluate(instant: &Instant, a: &[f64], l_eq: &[f64], l_in: &[f64]) -> Residuals {
        let free = free_acceleration(instant);
        Self::evaluate_with_free(instant, &free, a, l_eq, l_in).0
    }

    /// The residuals and the compulsion, given the free acceleration
    /// `a_free = M^-1 Q` (which the fast solvers know already). Uses
    /// `Z = 1/2 (M a - Q)^T M^-1 (M a - Q) = 1/2 (M a - Q) . (a - a_free)`,
    /// so no further solve with `M` is needed.
    pub fn evaluate_with_free(
        instant: &Instant,
        free: &[f64],
        a: &[f64],
        l_eq: &[f64],
        l_in: &[f64],
    ) -> (Residuals, f64) {
        Self::evaluate_into(instant, free, a, l_eq, l_in, &mut Vec::new())
    }

    /// [`Residuals::evaluate_with_free`] with the caller's scratch vector
    /// (resized to `n`), so that a warm solver allocates nothing.
    pub fn evaluate_into(
        instant: &Instant,
        free: &[f64],
        a: &[f64],
        l_eq: &[f64],
        l_in: &[f64],
        scratch: &mut Vec<f64>,
    ) -> (Residuals, f64) {
        let n = instant.dim();
        let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, x| max_abs(m, *x));
        let tiny = f64::MIN_POSITIVE;
        let a_inf = inf(a).max(inf(free));
        // The constraint force A^T l, and the equality rows' slacks in the
        // same pass over the rows (row by row, entry by entry: the sums
        // are formed in the same order as `Rows::add_transpose_mul` and
        // `row_slacks`, so the values are the same to the bit).
        let force = scratch;
        force.clear();
        force.resize(n, 0.0);
        let eq = instant.equalities();
        let (ptr, idx, val) = csr(eq.matrix());
        let mut equalities = 0.0f64;
        for (i, (w, &b)) in ptr.windows(2).zip(eq.rhs()).enumerate() {
            let (ri, rv) = (&idx[w[0]..w[1]], &val[w[0]..w[1]]);
            let yi = l_eq.get(i).copied().unwrap_or(0.0);
            if yi != 0.0 {
                for (&j, &v) in ri.iter().zip(rv) {
                    force[j] += v * yi;
                }
            }
            let (mut dot, mut amax) = (0.0, 0.0f64);
            for (&j, &v) in ri.iter().zip(rv) {
                dot += v * a[j];
                amax = max_abs(amax, v);
            }
            let scale = (amax * a_inf).max(b.abs()).max(tiny);
            equalities = max_abs(equalities, (dot - b) / scale);
        }
        instant.inequalities().add_transpose_mul(l_in, force);
        // Stationarity: r = (M a - Q) - A^T l, with the size of each term.
        let (mut ma_inf, mut q_inf, mut f_inf, mut r_inf) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut compulsion = 0.0;
        let (ptr, idx, val) = csr(instant.mass());
        let q = instant.force();
        for (i, w) in ptr.windows(2).enumerate().take(n) {
            let ma: f64 = idx[w[0]..w[1]]
                .iter()
                .zip(&val[w[0]..w[1]])
                .map(|(&j, &v)| v * a[j])
                .sum();
            ma_inf = max_abs(ma_inf, ma);
            q_inf = max_abs(q_inf, q[i]);
            let g = ma - q[i];
            compulsion += g * (a[i] - free[i]);
            f_inf = max_abs(f_inf, force[i]);
            r_inf = max_abs(r_inf, g - force[i]);
        }
        let compulsion = 0.5 * compulsion;
        let scale = ma_inf.max(q_inf).max(f_inf).max(tiny);
        let stationarity = r_inf / scale;
        // Feasibility, each row scaled by its own size: for every row, its
        // largest coefficient and its dimensionless slack.
        let (mut inequalities, mut complementarity) = (0.0f64, 0.0f64);
        for (i, (amax, slack)) in row_slacks(instant.inequalities(), a, a_inf).enumerate() {
            inequalities = inequalities.max(-slack);
            let force = l_in.get(i).copied().unwrap_or(0.0) * amax / scale;
            complementarity = complementarity.max((force * slack).abs()).max(-force);
        }
        let residuals = Residuals {
            stationarity,
            equalities,
            inequalities: inequalities.max(0.0),
            complementarity,
        };
        (residuals, compulsion.max(0.0))
    }
}

/// `m.max(|x|)` for a running maximum `m` that starts at zero (so is never
/// NaN): a NaN `x` is skipped, as by `f64::max`, in one instruction.
#[inline(always)]
fn max_abs(m: f64, x: f64) -> f64 {
    let x = x.abs();
    if x > m {
        x
    } else {
        m
    }
}

/// For every row: its largest coefficient and its dimensionless slack
/// `(A_i a - b_i) / max(|A_i| a_inf, |b_i|)`.
fn row_slacks<'a>(
    rows: &'a zwang_instant::Rows,
    a: &'a [f64],
    a_inf: f64,
) -> impl Iterator<Item = (f64, f64)> + 'a {
    let (ptr, idx, val) = csr(rows.matrix());
    (0..rows.len()).map(move |i| {
        let (mut dot, mut amax) = (0.0, 0.0f64);
        for e in ptr[i]..ptr[i + 1] {
            dot += val[e] * a[idx[e]];
            amax = amax.max(val[e].abs());
        }
        let b = rows.rhs()[i];
        let scale = (amax * a_inf).max(b.abs()).max(f64::MIN_POSITIVE);
        (amax, (dot - b) / scale)
    })
}

/// The raw compressed-row arrays of a matrix (`indptr`, `indices`, `data`).
fn csr(m: &sprs::CsMat<f64>) -> (&[usize], &[usize], &[f64]) {
    (m.indptr().into_raw_storage(), m.indices(), m.data())
}

/// The answer at one instant, in the engine's sign convention
///
/// ```text
/// M a = Q + A_eq^T lambda_eq + A_in^T lambda_in,   lambda_in >= 0
/// ```
#[derive(Debug, PartialEq)]
pub struct Solution {
    /// How the solve ended.
    pub status: Status,
    /// The accelerations `a` (the best known when not solved).
    pub acceleration: Vec<f64>,
    /// `lambda_eq`, one per equality row.
    pub multipliers_eq: Vec<f64>,
    /// `lambda_in >= 0`, one per inequality row.
    pub multipliers_in: Vec<f64>,
    /// Gauss's compulsion `Z = 1/2 (M a - Q)^T M^-1 (M a - Q)` at `a`.
    pub compulsion: f64,
    /// Which solver produced it.
    pub backend: &'static str,
    /// Iterations (factorizations for the direct and active-set solvers,
    /// interior-point steps for Clarabel).
    pub iterations: usize,
    /// Optimality residuals of the answer.
    pub residuals: Residuals,
}

/// `M^-1 Q` by a fresh factorization (NaN when `M` is not positive
/// definite), for the paths that do not know it already.
fn free_acceleration(instant: &Instant) -> Vec<f64> {
    let mut free = instant.force().to_vec();
    match instant.mass_factor() {
        Ok(mut f) => f.solve_in_place(&mut free),
        Err(_) => free.fill(f64::NAN),
    }
    free
}

impl Clone for Solution {
    fn clone(&self) -> Self {
        let mut copy = Solution::empty();
        copy.clone_from(self);
        copy
    }

    /// Field by field, into the buffers `self` has: a stepper's copy
    /// allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        self.status = source.status;
        self.acceleration.clone_from(&source.acceleration);
        self.multipliers_eq.clone_from(&source.multipliers_eq);
        self.multipliers_in.clone_from(&source.multipliers_in);
        self.compulsion = source.compulsion;
        self.backend = source.backend;
        self.iterations = source.iterations;
        self.residuals = source.residuals;
    }
}

impl Default for Solution {
    fn default() -> Self {
        Solution::empty()
    }
}

impl Solution {
    /// An empty solution (no vectors, status `not_applicable`), to be
    /// filled by [`crate::Backend::solve_into`].
    pub fn empty() -> Solution {
        Solution {
            status: Status::NotApplicable,
            acceleration: Vec::new(),
            multipliers_eq: Vec::new(),
            multipliers_in: Vec::new(),
            compulsion: 0.0,
            backend: "",
            iterations: 0,
            residuals: Residuals::default(),
        }
    }

    /// Resizes the three vectors to the instant's sizes (`n`, `m_eq`,
    /// `m_in`) and zeroes them, keeping their allocations.
    pub fn reset(&mut self, instant: &Instant) {
        let fill = |v: &mut Vec<f64>, len: usize| {
            v.clear();
            v.resize(len, 0.0);
        };
        fill(&mut self.acceleration, instant.dim());
        fill(&mut self.multipliers_eq, instant.equalities().len());
        fill(&mut self.multipliers_in, instant.inequalities().len());
        self.compulsion = 0.0;
        self.iterations = 0;
        self.residuals = Residuals::default();
    }

    /// Sets status, backend and iteration count and evaluates the residuals
    /// and the compulsion of the vectors already written into `self`,
    /// given the free acceleration `M^-1 Q`; `scratch` is reused.
    pub fn finish(
        &mut self,
        instant: &Instant,
        free: &[f64],
        status: Status,
        backend: &'static str,
        iterations: usize,
        scratch: &mut Vec<f64>,
    ) {
        let (residuals, compulsion) = Residuals::evaluate_into(
            instant,
            free,
            &self.acceleration,
            &self.multipliers_eq,
            &self.multipliers_in,
            scratch,
        );
        self.status = status;
        self.backend = backend;
        self.iterations = iterations;
        self.residuals = residuals;
        self.compulsion = compulsion;
    }

    /// Assembles a solution and evaluates its compulsion and residuals.
    pub fn assemble(
        instant: &Instant,
        status: Status,
        backend: &'static str,
        iterations: usize,
        acceleration: Vec<f64>,
        multipliers_eq: Vec<f64>,
        multipliers_in: Vec<f64>,
    ) -> Solution {
        let free = free_acceleration(instant);
        Self::assemble_with_free(
            instant,
            &free,
            status,
            backend,
            iterations,
            acceleration,
            multipliers_eq,
            multipliers_in,
        )
    }

    /// [`Solution::assemble`] given the free acceleration `M^-1 Q`.
    pub fn assemble_with_free(
        instant: &Instant,
        free: &[f64],
        status: Status,
        backend: &'static str,
        iterations: usize,
        acceleration: Vec<f64>,
        multipliers_eq: Vec<f64>,
        multipliers_in: Vec<f64>,
    ) -> Solution {
        let (residuals, compulsion) = Residuals::evaluate_with_free(
            instant,
            free,
            &acceleration,
            &multipliers_eq,
            &multipliers_in,
        );
        Solution {
            status,
            acceleration,
            multipliers_eq,
            multipliers_in,
            compulsion,
            backend,
            iterations,
            residuals,
        }
    }

    /// Whether the status is [`Status::Solved`].
    pub fn is_solved(&self) -> bool {
        self.status == Status::Solved
    }
}
