//! One island's primal solver: the augmented Lagrangian outer iterations, each
//! Newton's method on the island's velocities (the method the module's
//! documentation describes), and the dual method's finish.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use sprs::CsMat;
use zwang_instant::sparse_cholesky::SparseCholesky;

use super::finish::{self, Finish, IslandView};
use super::momentum::{dynamics_residual, MassView};
use super::{bounded_error, three, BoundedRows, VelocityProblem};
use crate::error::{components, cone_derivative, project_on_cone, set_components, ConePiece};
use crate::pattern::{compress, newton_is_full, place, place_in_full_triangle, DENSE_UP_TO};
use crate::solver::{Report, Status};
use crate::{ContactSolver, Delassus, Friction, GlobalError, LocalProblem, SolverSettings};

/// The penalty `rho_i` relative to contact `i`'s inverse effective mass
/// to start with: an outer iteration contracts the error by about
/// `1 / (1 + KAPPA lambda)` along each direction the (normalised)
/// contacts move, `lambda` the normalised Delassus eigenvalue.
const KAPPA_START: f64 = 1e4;
/// The largest relative penalty (the Newton matrix stays well
/// conditioned enough below it: `M` keeps its smallest eigenvalue).
const KAPPA_MAX: f64 = 1e6;
/// The smallest relative penalty (a softer one is taken where Newton's
/// steps do not reach a stiffer one's minimum).
const KAPPA_MIN: f64 = 1.0;
/// The penalty grows by this factor when an outer iteration does not
/// bring the error below [`SLOW`] times the best so far.
const KAPPA_GROWTH: f64 = 10.0;
/// See [`KAPPA_GROWTH`].
const SLOW: f64 = 0.5;
/// Outer iterations without progress that make a stall (at the largest
/// penalty).
const STALL: usize = 5;
/// Outer iterations without progress that make a crawl, whatever the
/// penalty (De Saxce's fixed point creeping, the penalty going up and down
/// as Newton's steps reach its minimum or not): the finish goes on.
const CRAWL: usize = 12;
/// Outer iterations whose impulses move by at least `DRIFT` times as much
/// as in the one before, `DRIFT_STEPS` in a row, make a drift.
const DRIFT: f64 = 0.9;
/// See [`DRIFT`].
const DRIFT_STEPS: usize = 8;
/// Rounding, relative, in a certificate that a problem has no answer
/// (see `Island::certifies_no_answer`).
const CERTIFICATE: f64 = 1e-9;
/// Two outer steps are the same direction when their cosine is above
/// this (and as long to within `2 - STEADY`).
const STEADY: f64 = 0.99;
/// A point is in the cone when its projection moves it by less than this
/// fraction of the step it was walked along.
const EDGE: f64 = 1e-9;
/// An impulse within this fraction of its cone's surface is on it (a
/// sliding contact, which a walk may move along the surface).
const SURFACE: f64 = 1e-9;
/// A walk whose step fits this many times in every cone does not end.
const ENDLESS: f64 = 1e12;

/// What [`Island::jump`] did.
enum Jump {
    /// The step was no steady walk (or a short one): nothing.
    Along,
    /// Jumped to where the walk leaves a cone.
    Jumped,
    /// The walk never leaves the cones: no answer.
    Endless,
}

/// The fraction of the tolerance an answer the outer iterations passed
/// by must meet (as the finish aims at).
const FINISH_MARGIN: f64 = 0.5;
/// The fraction of the tolerance the outer iterations aim at.
const PAST: f64 = 1e-2;
/// The error below which the outer iterations stop, the dual method
/// finishing for smaller tolerances: the penalty turns the round-off of
/// `J v` into impulses enlarged by `rho`, about `KAPPA_MAX` times the
/// machine epsilon.
const FLOOR: f64 = 1e-11;
/// The relative shifts of the Newton matrix's diagonal tried, from the
/// first to the last (each 100 times the one before), when its factor
/// meets a pivot lost to round-off.
const SHIFT_MIN: f64 = 1e-14;
/// See [`SHIFT_MIN`].
const SHIFT_MAX: f64 = 1e-8;
/// Velocities from which the Newton matrix is factored supernodal.
const SUPERNODAL_FROM: usize = 64;
/// The gradient's cut by a full step on a stale factor that keeps it.
const STALE_GAIN: f64 = 0.5;
/// Most Newton steps at a penalty just made stiffer: a stiffer penalty
/// whose minimum is not reached by then is softened again (on a landing
/// pile most Newton steps went to such attempts before they failed).
/// Fewer steps cost the large islands accuracy, more cost them time for
/// no better answers (`docs/benchmarks.md`).
const RAISED_NEWTON: usize = 10;
/// Most evaluations of the slope along a Newton direction.
const SEARCH_STEPS: usize = 40;
/// A step is long enough when the slope along it has fallen to this
/// fraction of the slope at its start.
const SEARCH_SLOPE: f64 = 0.1;
/// An outer iteration's minimum is close enough when its gradient (as
/// velocities, relative to the velocities it balances) is this fraction of
/// the error the outer iterations aim at.
const INNER: f64 = 0.1;

/// The Newton matrix's triangle its factorization works on (compressed
/// columns), in its fill-reducing order (the factorization reads it in
/// place, where a matrix in the problem's order was copied permuted at
/// every one), and where each term lands in it.
#[derive(Debug, Default)]
struct Newton {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// The order: `order[new] = old`, `position[old] = new`; a vector
    /// permuted into it to solve with.
    order: Vec<usize>,
    position: Vec<usize>,
    permuted: Vec<f64>,
    /// Whether the triangle is the lower one (the supernodal layout's).
    lower: bool,
    /// Per stored entry of `M`, its place (`usize::MAX`: below the
    /// diagonal, counted by its mirror).
    pub(super) mass: Vec<usize>,
    /// Per contact, from `pair_start[i]`, the places of its entry pairs
    /// `(a, b)`, `a <= b`, in row-major order; none when `full`.
    pair_start: Vec<usize>,
    pairs: Vec<usize>,
    /// Whether the triangle is full ([`crate::pattern::newton_is_full`]):
    /// a pair's place is then computed.
    full: bool,
    /// A small full triangle's matrix and factor, dense, in place of
    /// `values` and `factor`.
    dense: Option<Dense>,
    /// Whether `M` is diagonal (its inverse is then applied directly).
    diagonal: bool,
    /// `M`'s diagonal.
    mass_diagonal: Vec<f64>,
    factor: Option<SparseCholesky>,
}

impl Newton {
    fn place(&self, row: usize, col: usize) -> usize {
        let (a, b) = (self.position[row], self.position[col]);
        let (row, col) = if self.lower {
            (a.max(b), a.min(b))
        } else {
            (a.min(b), a.max(b))
        };
        if self.full {
            place_in_full_triangle(&self.col_ptr, self.lower, row, col)
        } else {
            place(&self.col_ptr, &self.row_idx, row, col)
        }
    }

    /// The place of a row's `p`-th entry pair, of columns `a` and `b`.
    fn pair(&self, p: usize, a: usize, b: usize) -> usize {
        if self.full {
            self.place(a, b)
        } else {
            self.pairs[p]
        }
    }

    fn build(problem: &VelocityProblem) -> Newton {
        let n = problem.force.len();
        let rows = &problem.rows;
        // The upper triangle, `(column, row)` with `row <= column`.
        let mut entries: Vec<(usize, usize)> = (0..n).map(|j| (j, j)).collect();
        let mut diagonal = true;
        for (_, (r, c)) in problem.mass.iter() {
            if r != c {
                diagonal = false;
            }
            entries.push((r.max(c), r.min(c)));
        }
        let bounded = &problem.bounded;
        let row_cols = (0..rows.contacts())
            .map(|i| &rows.cols[rows.start[i]..rows.start[i + 1]])
            .chain((0..bounded.len()).map(|j| &bounded.cols[bounded.entries(j)]));
        let full = newton_is_full(&problem.mass, n);
        // The upper triangle in the problem's order gives the order; the
        // factorization's triangle in that order is what is factored.
        let (col_ptr, row_idx) = if full {
            crate::pattern::full(n, Some(false))
        } else {
            for cols in row_cols {
                for &a in cols {
                    for &b in cols {
                        if a <= b {
                            entries.push((b, a));
                        }
                    }
                }
            }
            compress(n, &entries)
        };
        let upper = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        // A full triangle has no fill to reduce: a dense island keeps the
        // problem's order.
        let dense = full && n <= DENSE_UP_TO;
        let order = if dense {
            (0..n).collect()
        } else {
            SparseCholesky::fill_reducing_order(upper)
        };
        let mut position = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        // Three velocities per body, and a fill of dense fronts where bodies
        // touch in a grid (a pyramid): supernodal pays from a few dozen
        // bodies on.
        let supernodal = n >= SUPERNODAL_FROM;
        let lower = SparseCholesky::in_order_side(supernodal) == faer::Side::Lower;
        // Both triangles in the order (a full one in any order is full):
        // the upper one is analysed.
        entries.clear();
        if !full {
            for c in 0..n {
                for &r in &row_idx[col_ptr[c]..col_ptr[c + 1]] {
                    let (a, b) = (position[r], position[c]);
                    entries.push((a.max(b), a.min(b)));
                }
            }
        }
        let in_order = |entries: &[(usize, usize)], lower: bool| {
            if full {
                crate::pattern::full(n, Some(lower))
            } else {
                compress(n, entries)
            }
        };
        let (upper_ptr, upper_idx) = in_order(&entries, false);
        let ordered = SymbolicSparseColMatRef::new_checked(n, n, &upper_ptr, None, &upper_idx);
        let factor = (!dense).then(|| SparseCholesky::analyze_in_order(ordered, supernodal));
        if lower {
            for e in &mut entries {
                *e = (e.1, e.0);
            }
        }
        let (col_ptr, row_idx) = if lower {
            in_order(&entries, true)
        } else {
            (upper_ptr, upper_idx)
        };
        let mut newton = Newton {
            values: vec![0.0; row_idx.len()],
            col_ptr,
            row_idx,
            order,
            position,
            permuted: vec![0.0; n],
            lower,
            diagonal,
            full,
            mass_diagonal: vec![0.0; n],
            factor,
            dense: dense.then(|| Dense::new(n)),
            ..Newton::default()
        };
        // Stored in full, every entry has its mirror stored.
        let every = problem.mass.nnz() == n * n;
        newton.mass = problem
            .mass
            .iter()
            .map(|(_, (r, c))| {
                if r <= c || !(every || problem_has_both(problem, r, c)) {
                    newton.place(r, c)
                } else {
                    usize::MAX
                }
            })
            .collect();
        // The contacts' pairs, then the bounded rows'.
        newton.pair_start.push(0);
        let row_cols = (0..rows.contacts())
            .map(|i| &rows.cols[rows.start[i]..rows.start[i + 1]])
            .chain((0..bounded.len()).map(|j| &bounded.cols[bounded.entries(j)]));
        for cols in row_cols.filter(|_| !full) {
            for a in 0..cols.len() {
                for b in a..cols.len() {
                    newton.pairs.push(newton.place(cols[a], cols[b]));
                }
            }
            newton.pair_start.push(newton.pairs.len());
        }
        newton
    }

    /// Writes `M + sum rho_i J_i^T D_i J_i` and factors it, `D_i` the
    /// projection's derivative at `points[i]`, on `pieces[i]` (the
    /// contacts', then the bounded rows', whose `D` is 1 inside their box
    /// and 0 clamped); a dense island's on the `M` last loaded
    /// ([`Newton::load_mass`]).
    fn factor(
        &mut self,
        problem: &VelocityProblem,
        rho: &[f64],
        pieces: &[ConePiece],
        points: &[[f64; 3]],
    ) -> Result<(), GlobalError> {
        if let Some(dense) = &mut self.dense {
            // The lower triangle on the loaded `M`: a row's entries in
            // increasing columns write down a column.
            let (n, a) = (dense.n, &mut dense.assembled);
            a.copy_from_slice(&dense.mass);
            for_each_term(problem, rho, pieces, points, |_, _, ca, cb, value| {
                a[ca.min(cb) * n + ca.max(cb)] += value;
            });
        } else {
            self.assemble(problem, rho, pieces, points);
        }
        let n = self.position.len();
        let mut shift = 0.0;
        loop {
            let Err(index) = self.try_factor() else {
                return Ok(());
            };
            // `M + J^T R J` is positive definite, but a pivot can be lost
            // to round-off: a long chain's `M` (scaled condition 1e13)
            // beside the stiffest penalty. The diagonal is raised by a
            // relative shift (as MuJoCo clamps its pivots), which keeps
            // the Newton direction one of descent; `M` alone (every
            // contact open: the velocities' solve) is never shifted.
            if shift >= SHIFT_MAX || pieces.iter().all(|&p| p == ConePiece::Apex) {
                return Err(GlobalError::MassNotPositiveDefinite {
                    coordinate: self.order[index.min(n.saturating_sub(1))],
                });
            }
            let next = if shift == 0.0 {
                SHIFT_MIN
            } else {
                100.0 * shift
            };
            let ratio = (1.0 + next) / (1.0 + shift);
            match &mut self.dense {
                Some(dense) => dense.scale_diagonal(ratio),
                None => {
                    for j in 0..n {
                        let at = self.place(j, j);
                        self.values[at] *= ratio;
                    }
                }
            }
            shift = next;
        }
    }

    /// Writes `M + sum rho_i J_i^T D_i J_i` into `values` (the sparse
    /// factorization's triangle).
    fn assemble(
        &mut self,
        problem: &VelocityProblem,
        rho: &[f64],
        pieces: &[ConePiece],
        points: &[[f64; 3]],
    ) {
        self.values.fill(0.0);
        for (&place, &value) in self.mass.iter().zip(problem.mass.data()) {
            if place != usize::MAX {
                self.values[place] += value;
            }
        }
        let mut values = std::mem::take(&mut self.values);
        for_each_term(problem, rho, pieces, points, |row, q, a, b, value| {
            let p = if self.full {
                0
            } else {
                self.pair_start[row] + q
            };
            values[self.pair(p, a, b)] += value;
        });
        self.values = values;
    }

    /// `problem`'s `M` to multiply by: a dense island's as loaded.
    fn view<'a>(&'a self, problem: &'a VelocityProblem) -> MassView<'a> {
        MassView {
            mass: &problem.mass,
            places: &self.mass,
            dense: self.dense.as_ref().map(|d| d.mass.as_slice()),
        }
    }

    /// Loads `problem`'s `M` for the factorizations of a solve (a dense
    /// island's: the sparse triangle is written whole at each).
    fn load_mass(&mut self, problem: &VelocityProblem) {
        if let Some(dense) = &mut self.dense {
            dense.load_mass(problem, &self.mass);
        }
    }

    /// Factors the assembled matrix, dense or sparse; the failing pivot's
    /// index in the factor's order.
    fn try_factor(&mut self) -> Result<(), usize> {
        let n = self.col_ptr.len() - 1;
        if let Some(dense) = &mut self.dense {
            return dense.factor_in_place();
        }
        let symbolic =
            SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let factor = self.factor.as_mut().expect("analysed");
        let index = |e: zwang_instant::sparse_cholesky::PivotError| e.index;
        factor
            .factor_llt(SparseColMatRef::new(symbolic, &self.values))
            .map_err(index)
    }

    /// `x = A^-1 x` with the last factor `A`, through the factor's order.
    fn solve(&mut self, x: &mut [f64]) {
        if let Some(dense) = &self.dense {
            // In the problem's order.
            dense.solve_in_place(x);
            return;
        }
        for (p, &old) in self.permuted.iter_mut().zip(&self.order) {
            *p = x[old];
        }
        self.factor
            .as_mut()
            .expect("analysed")
            .solve_in_place(&mut self.permuted);
        for (p, &old) in self.permuted.iter().zip(&self.order) {
            x[old] = *p;
        }
    }
}

/// Calls `add(row, q, col_a, col_b, value)` for the terms of `sum rho_i
/// J_i^T D_i J_i` (`D_i` the projection's derivative at `points[i]` on
/// `pieces[i]`; the contacts', then the bounded rows', whose `D` is 1
/// inside their box and 0 clamped): each pair `a <= b` of a row's entries
/// once, `q` its ordinal in the row, doubled where two entries of one
/// column land on the diagonal as both `(a, b)` and `(b, a)`.
fn for_each_term(
    problem: &VelocityProblem,
    rho: &[f64],
    pieces: &[ConePiece],
    points: &[[f64; 3]],
    mut add: impl FnMut(usize, usize, usize, usize, f64),
) {
    let rows = &problem.rows;
    let k = rows.contacts();
    for (i, &piece) in pieces[..k].iter().enumerate() {
        if piece == ConePiece::Apex {
            continue;
        }
        let d = cone_derivative(problem.mu[i], points[i], piece);
        let (s, e) = (rows.start[i], rows.start[i + 1]);
        let (cols, dim) = (&rows.cols[s..e], rows.dimension.max(1));
        let values = &rows.values[dim * s..dim * e];
        let mut q = 0;
        for (a, (&ca, ea)) in cols.iter().zip(values.chunks_exact(dim)).enumerate() {
            let ea = three(ea);
            let left: [f64; 3] = std::array::from_fn(|c| {
                rho[i] * (ea[0] * d[0][c] + ea[1] * d[1][c] + ea[2] * d[2][c])
            });
            add(
                i,
                q,
                ca,
                ca,
                left[0] * ea[0] + left[1] * ea[1] + left[2] * ea[2],
            );
            q += 1;
            // Below the diagonal; an entry pair in one column (a column
            // twice in a contact) stands for both of its mirrored terms.
            let rest = values[dim * (a + 1)..].chunks_exact(dim);
            for (&cb, eb) in cols[a + 1..].iter().zip(rest) {
                let eb = three(eb);
                let value = left[0] * eb[0] + left[1] * eb[1] + left[2] * eb[2];
                add(i, q, ca, cb, if ca == cb { 2.0 * value } else { value });
                q += 1;
            }
        }
    }
    let bounded = &problem.bounded;
    for (j, &piece) in pieces[k..].iter().enumerate() {
        if piece != ConePiece::Inside {
            continue;
        }
        let entries = bounded.entries(j);
        let mut q = 0;
        for a in entries.clone() {
            for b in a..entries.end {
                let (ca, cb) = (bounded.cols[a], bounded.cols[b]);
                let twice = if b != a && ca == cb { 2.0 } else { 1.0 };
                add(
                    k + j,
                    q,
                    ca,
                    cb,
                    twice * rho[k + j] * bounded.values[a] * bounded.values[b],
                );
                q += 1;
            }
        }
    }
}

/// A small island's Newton matrix, dense, in the problem's order: `M`'s
/// lower triangle as loaded for the solve, the matrix assembled on it, and
/// its factor by faer's Cholesky (by columns, `(row, col)` at `col n +
/// row`), solved with by [`zwang_instant::dense`]. On a tree's few dozen
/// velocities, writing columns directly costs less than a sparse
/// triangle's places, and the plain solve less than faer's
/// (`docs/benchmarks.md`).
struct Dense {
    n: usize,
    mass: Vec<f64>,
    assembled: Vec<f64>,
    factor: Vec<f64>,
    scratch: faer::dyn_stack::MemBuffer,
}

impl std::fmt::Debug for Dense {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dense").field("size", &self.n).finish()
    }
}

impl Dense {
    fn new(n: usize) -> Self {
        use faer::linalg::cholesky::llt::factor;
        let req = factor::cholesky_in_place_scratch::<f64>(n, faer::Par::Seq, Default::default());
        Dense {
            n,
            mass: vec![0.0; n * n],
            assembled: vec![0.0; n * n],
            factor: vec![0.0; n * n],
            scratch: faer::dyn_stack::MemBuffer::new(req),
        }
    }

    /// Loads `M`'s lower triangle (`places` as [`Newton::mass`]: an entry
    /// below the diagonal with a mirror is counted by the mirror).
    fn load_mass(&mut self, problem: &VelocityProblem, places: &[usize]) {
        let n = self.n;
        self.mass.fill(0.0);
        let (mass, mut places) = (&mut self.mass, places.iter());
        crate::pattern::for_each_stored(&problem.mass, |value, r, c| {
            if places.next().is_some_and(|&p| p != usize::MAX) {
                mass[r.min(c) * n + r.max(c)] += value;
            }
        });
    }

    fn scale_diagonal(&mut self, ratio: f64) {
        let n = self.n;
        for j in 0..n {
            self.assembled[j * n + j] *= ratio;
        }
    }

    /// Factors the assembled matrix; the first pivot not positive.
    fn factor_in_place(&mut self) -> Result<(), usize> {
        use faer::linalg::cholesky::llt::factor::{cholesky_in_place, LltError};
        self.factor.copy_from_slice(&self.assembled);
        let stack = faer::dyn_stack::MemStack::new(&mut self.scratch);
        cholesky_in_place(
            faer::MatMut::from_column_major_slice_mut(&mut self.factor, self.n, self.n),
            Default::default(),
            faer::Par::Seq,
            stack,
            Default::default(),
        )
        .map(|_| ())
        .map_err(|LltError::NonPositivePivot { index }| index)
    }

    /// `x = A^-1 x` with the last factor.
    fn solve_in_place(&self, x: &mut [f64]) {
        zwang_instant::dense::cholesky_solve_by_columns_in_place(&self.factor, self.n, x);
    }
}

/// Whether `M` stores both `(r, c)` and `(c, r)` (all its entries, not
/// only a triangle).
fn problem_has_both(problem: &VelocityProblem, r: usize, c: usize) -> bool {
    problem.mass.get(c, r).is_some() && problem.mass.get(r, c).is_some()
}

/// One island's solver and its working memory.
#[derive(Debug, Default)]
pub(super) struct Island {
    newton: Newton,
    /// Per contact: penalty, frozen slip, piece at the iterate (and the
    /// point projected there) and the pieces the factor holds; the
    /// penalties and pieces go on with the bounded rows' (`Inside` their
    /// box or `Apex`, clamped).
    rho: Vec<f64>,
    slip: Vec<f64>,
    pieces: Vec<ConePiece>,
    points: Vec<[f64; 3]>,
    factored: Vec<ConePiece>,
    /// The outer iterate's impulses, their projection at the inner iterate,
    /// and the outer iteration's step before this one (the contacts', then
    /// the bounded rows', as are `jd`, `free` and `best_*`).
    lambda: Vec<f64>,
    projected: Vec<f64>,
    last_step: Vec<f64>,
    /// The best outer iterate `(lambda, v, u)`: an iteration may make
    /// things worse (a jump, De Saxce's fixed point cycling).
    best_lambda: Vec<f64>,
    best_v: Vec<f64>,
    best_u: Vec<f64>,
    /// `J d` and `M d` of the Newton direction, the free contact velocity
    /// (the error's scale).
    jd: Vec<f64>,
    md: Vec<f64>,
    free: Vec<f64>,
    gradient: Vec<f64>,
    direction: Vec<f64>,
    mv: Vec<f64>,
    /// Where the outer iterations stall: the dual method, on `W` built
    /// from the rows and `M^-1`.
    dual: ContactSolver,
    delassus: Delassus,
    local: Option<LocalProblem>,
    minv: Vec<f64>,
    /// In space, Newton's method in `(v, r)` (made on first need).
    finish: Option<Finish>,
}

impl Island {
    /// Solves `problem` (valid, of the pattern the island was built for)
    /// from the impulses in `r`, writing the answer's impulses to `r`,
    /// velocities to `v` and contact velocities to `u`; allocates nothing.
    pub fn solve_in_place(
        &mut self,
        problem: &VelocityProblem,
        settings: &SolverSettings,
        r: &mut [f64],
        v: &mut [f64],
        u: &mut [f64],
    ) -> Result<Report, GlobalError> {
        let (k, d) = (problem.mu.len(), problem.rows.dimension);
        let (m, dk) = (problem.bounded.len(), d * k);
        let exact = settings.friction == Friction::Exact;
        self.mass_diagonal(problem)?;
        // The free velocity `M^-1 f`.
        self.mv.copy_from_slice(&problem.force);
        self.apply_mass_inverse(v);
        // The free contact velocity, the error's scale.
        let mut free = std::mem::take(&mut self.free);
        self.contact_velocity(problem, v, &mut free);
        self.free = free;
        // The warm start, in the cone, and its velocities.
        for i in 0..k {
            let (p, _) = project_on_cone(problem.mu[i], components(r, d, i), d);
            set_components(&mut self.lambda, d, i, p);
        }
        for j in 0..m {
            self.lambda[dk + j] = problem.bounded.clamp(j, r[dk + j]);
        }
        self.impulse_velocities(problem, v, u);
        let mut error = bounded_error(
            settings.friction,
            settings.absolute_below,
            problem,
            &self.free,
            &self.lambda,
            u,
            v,
        );
        let mut report = Report {
            status: Status::NotConverged,
            error,
            iterations: 0,
            newton_steps: 0,
            islands: usize::from(k + m > 0),
            dual: false,
        };
        let mut kappa = KAPPA_START;
        self.penalties(problem, kappa);
        self.factored.fill(ConePiece::Apex);
        let (mut fresh, mut slow, mut best) = (false, 0, error);
        let (mut drifting, mut last_move) = (0, f64::INFINITY);
        // Past the tolerance by what the outer iterations' cheap steps
        // (no new factor while the pieces stay) give, as the dual method's
        // Newton steps go past it: the velocities of resting contacts
        // come out at `1e-12` of the impulses, not at the tolerance.
        let enough = if m > 0 {
            // No finish takes bounded rows: the outer iterations go on to
            // the tolerance (as far as their progress lasts).
            PAST * settings.tolerance
        } else {
            (PAST * settings.tolerance).max(FLOOR)
        };
        let mut kept = f64::INFINITY;
        let mut raised = false;
        while error > enough && report.iterations < settings.max_iterations {
            report.iterations += 1;
            for i in 0..k {
                self.slip[i] = if exact {
                    let ui = components(u, d, i);
                    problem.mu[i] * crate::error::length(ui[1], ui[2])
                } else {
                    0.0
                };
            }
            let converged = self.minimise(
                problem,
                v,
                u,
                INNER * enough,
                &mut fresh,
                &mut report.newton_steps,
                if raised {
                    RAISED_NEWTON.min(settings.newton_steps)
                } else {
                    settings.newton_steps
                },
            )?;
            raised = false;
            if !converged && kappa > KAPPA_MIN {
                // Newton's steps did not reach this penalty's minimum (many
                // contacts changing piece, each step cut short by the
                // next kink): the impulses stay, and a softer penalty,
                // whose pieces are wider, goes on from these velocities.
                kappa = (kappa / KAPPA_GROWTH).max(KAPPA_MIN);
                self.penalties(problem, kappa);
                fresh = false;
                continue;
            }
            std::mem::swap(&mut self.lambda, &mut self.projected);
            // A problem without an answer shows as impulses that move by
            // as much every outer iteration, ever further, while the
            // relative error shrinks with their growing size: the dual
            // method tells it (`Status::Unbounded`).
            let moved = self
                .lambda
                .iter()
                .zip(&self.projected)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt();
            drifting = if moved > 0.0 && moved >= DRIFT * last_move {
                drifting + 1
            } else {
                0
            };
            last_move = moved;
            if d == 3 && drifting > 0 && m == 0 {
                // In space (no dual method to tell): a steady drift is
                // taken to where it leaves the cone, or found endless.
                match self.jump(&problem.mu, d) {
                    Jump::Along => {}
                    Jump::Jumped => {
                        drifting = 0;
                        last_move = f64::INFINITY;
                        // The velocities of the impulses jumped to: the
                        // point is measured (and kept if the best) as it is.
                        self.impulse_velocities(problem, v, u);
                        fresh = false;
                    }
                    Jump::Endless => {
                        drifting = DRIFT_STEPS;
                        break;
                    }
                }
            } else if drifting == DRIFT_STEPS {
                break;
            }
            self.last_step
                .iter_mut()
                .zip(self.lambda.iter().zip(&self.projected))
                .for_each(|(s, (a, b))| *s = a - b);
            // Coulomb's law, and Newton's (the minimum's gradient).
            error = bounded_error(
                settings.friction,
                settings.absolute_below,
                problem,
                &self.free,
                &self.lambda,
                u,
                v,
            )
            .max(dynamics_residual(
                problem,
                &self.newton.view(problem),
                &self.newton.mass_diagonal,
                v,
                &self.lambda,
                &mut self.mv,
                &mut self.md,
            ));
            if error < kept {
                kept = error;
                self.best_lambda.copy_from_slice(&self.lambda);
                self.best_v.copy_from_slice(v);
                self.best_u.copy_from_slice(u);
            }
            // Progress is a new best error, by a factor: De Saxce's fixed
            // point may cycle, not only slow down.
            if error <= SLOW * best {
                best = error;
                slow = 0;
            } else {
                slow += 1;
                if slow >= CRAWL {
                    break;
                }
                if kappa < KAPPA_MAX {
                    raised = true;
                    kappa = (kappa * KAPPA_GROWTH).min(KAPPA_MAX);
                    self.penalties(problem, kappa);
                    fresh = false;
                } else if slow >= STALL {
                    break;
                }
            }
        }
        let drifted = drifting == DRIFT_STEPS;
        // In space the best iterate goes on (the finish starts from it,
        // or it is the answer); an iterate that was not the last is an
        // answer only with the finish's margin under the tolerance (the
        // measure's round-off).
        let mut margin = 1.0;
        if d == 3 && kept < error && !drifted {
            error = kept;
            margin = FINISH_MARGIN;
            self.lambda.copy_from_slice(&self.best_lambda);
            v.copy_from_slice(&self.best_v);
            u.copy_from_slice(&self.best_u);
        }
        r.copy_from_slice(&self.lambda);
        report.error = error;
        if error <= margin * settings.tolerance && !drifted {
            report.status = Status::Solved;
        } else if (d == 3 || m > 0)
            && k + m > 0
            && finish::budget(problem, settings.finish_steps) > 0
        {
            // The dual method is planar, without bounded rows; in space,
            // or with bounded rows, proximal Newton iterations in `(v, r)`
            // finish. A walk found endless that they do not end is a
            // problem without an answer.
            let finish = self.finish.get_or_insert_with(|| Finish::build(problem));
            let given = IslandView {
                problem,
                mass: self.newton.view(problem),
                diagonal: &self.newton.mass_diagonal,
                free: &self.free,
            };
            let (status, finished, steps) = finish.solve(&given, settings, v, r, u);
            // No answer only where the drift is a certificate; with bounded
            // rows a finish that ends on their growing impulses (the
            // measure relative to them) has none either.
            let solved = status == Status::Solved;
            report.status = match status {
                Status::Solved if m == 0 || !drifted => Status::Solved,
                _ if drifted && self.certifies_no_answer(problem, exact, u) => Status::Unbounded,
                _ if solved => Status::Solved,
                Status::Unbounded => Status::NotConverged,
                other => other,
            };
            report.error = finished;
            report.newton_steps += steps;
            report.dual = true;
        } else if self.newton.diagonal && k > 0 && d == 2 && m == 0 {
            self.finish_dual(problem, settings, r, v, u, &mut report)?;
        }
        Ok(report)
    }

    /// The dual method ([`ContactSolver`], on `W = J M^-1 J^T`) from the
    /// impulses in `r`, where the outer iterations stall: De Saxce's fixed
    /// point cycling, or a contraction too slow for the tolerance (mass
    /// ratios of 1:10,000, tolerances near the penalty's round-off). Its
    /// answer, and `v` from it, replace the primal one.
    fn finish_dual(
        &mut self,
        problem: &VelocityProblem,
        settings: &SolverSettings,
        r: &mut [f64],
        v: &mut [f64],
        u: &mut [f64],
        report: &mut Report,
    ) -> Result<(), GlobalError> {
        for (m, d) in self.minv.iter_mut().zip(&self.newton.mass_diagonal) {
            *m = 1.0 / d;
        }
        let local = self.local.get_or_insert_with(|| LocalProblem {
            dimension: 2,
            w: CsMat::zero((0, 0)),
            q: Vec::new(),
            mu: Vec::new(),
        });
        self.delassus.write(&problem.rows, &self.minv, local);
        local.q.clear();
        local.q.extend_from_slice(&self.free);
        local.mu.clear();
        local.mu.extend_from_slice(&problem.mu);
        let dual = self.dual.solve_in_place(local, settings, r, u)?;
        self.mv.copy_from_slice(&problem.force);
        problem.rows.add_transpose(r, &mut self.mv);
        for ((x, m), mi) in v.iter_mut().zip(&self.mv).zip(&self.minv) {
            *x = m * mi;
        }
        report.status = dual.status;
        report.error = dual.error;
        report.iterations += dual.iterations;
        report.newton_steps += dual.newton_steps;
        report.dual = true;
        Ok(())
    }

    /// `M`'s diagonal, which must be positive; the factor of `M` alone
    /// when it is not diagonal.
    fn mass_diagonal(&mut self, problem: &VelocityProblem) -> Result<(), GlobalError> {
        let diagonal = &mut self.newton.mass_diagonal;
        diagonal.fill(0.0);
        crate::pattern::for_each_stored(&problem.mass, |value, r, c| {
            if r == c {
                diagonal[r] = value;
            }
        });
        if let Some(coordinate) = diagonal.iter().position(|&d| d.is_nan() || d <= 0.0) {
            return Err(GlobalError::MassNotPositiveDefinite { coordinate });
        }
        self.newton.load_mass(problem);
        if !self.newton.diagonal {
            self.factored.fill(ConePiece::Apex);
            self.newton
                .factor(problem, &self.rho, &self.factored, &self.points)?;
        }
        Ok(())
    }

    /// `v = M^-1 mv`: directly for a diagonal `M`, else by the Newton
    /// matrix with every contact open (its pattern holds `M`'s).
    fn apply_mass_inverse(&mut self, v: &mut [f64]) {
        if self.newton.diagonal {
            for ((x, m), d) in v.iter_mut().zip(&self.mv).zip(&self.newton.mass_diagonal) {
                *x = m / d;
            }
            return;
        }
        v.copy_from_slice(&self.mv);
        self.newton.solve(v);
    }

    /// `rho_i = kappa / w_i`, `w_i` contact `i`'s normal row's (or a
    /// bounded row's) inverse effective mass by `M`'s diagonal.
    fn penalties(&mut self, problem: &VelocityProblem, kappa: f64) {
        let rows = &problem.rows;
        let k = rows.contacts();
        let bounded = &problem.bounded;
        for (j, rho) in self.rho[k..].iter_mut().enumerate() {
            let w: f64 = bounded
                .entries(j)
                .map(|a| bounded.values[a].powi(2) / self.newton.mass_diagonal[bounded.cols[a]])
                .sum();
            *rho = if w > 0.0 { kappa / w } else { kappa };
        }
        for (i, rho) in self.rho[..k].iter_mut().enumerate() {
            let w: f64 = (rows.start[i]..rows.start[i + 1])
                .map(|a| rows.entry(a)[0].powi(2) / self.newton.mass_diagonal[rows.cols[a]])
                .sum();
            *rho = if w > 0.0 { kappa / w } else { kappa };
        }
    }

    /// `u = J v + b`, the bounded rows' `g v + b` after the contacts'.
    fn contact_velocity(&self, problem: &VelocityProblem, v: &[f64], u: &mut [f64]) {
        let d = problem.rows.dimension;
        for i in 0..problem.mu.len() {
            let ji = problem.rows.velocity(i, v);
            for c in 0..d {
                u[d * i + c] = ji[c] + problem.b[d * i + c];
            }
        }
        let (dk, bounded) = (d * problem.mu.len(), &problem.bounded);
        for j in 0..bounded.len() {
            u[dk + j] = bounded.velocity(j, v) + bounded.b[j];
        }
    }

    /// The velocities `v = M^-1 (f + J^T lambda)` of the outer iterate's
    /// impulses (the bounded rows' too), and their `u`.
    fn impulse_velocities(&mut self, problem: &VelocityProblem, v: &mut [f64], u: &mut [f64]) {
        let dk = problem.rows.dimension * problem.mu.len();
        self.mv.copy_from_slice(&problem.force);
        problem.rows.add_transpose(&self.lambda, &mut self.mv);
        problem
            .bounded
            .add_transpose(&self.lambda[dk..], &mut self.mv);
        self.apply_mass_inverse(v);
        self.contact_velocity(problem, v, u);
    }

    /// `p(t) . J d` summed over the contacts and the bounded rows, `p_i(t)`
    /// the projection at the velocities `u + t J d` (`phi`'s contact part's
    /// slope along `d`, negated), with the projections and pieces written
    /// when `keep`.
    fn contact_slope(
        &mut self,
        mu: &[f64],
        bounded: &BoundedRows,
        d: usize,
        u: &[f64],
        t: f64,
        keep: bool,
    ) -> f64 {
        let mut slope = 0.0;
        for i in 0..mu.len() {
            let (jd, ui, li) = (
                components(&self.jd, d, i),
                components(u, d, i),
                components(&self.lambda, d, i),
            );
            let rho = self.rho[i];
            let mut x = [0.0; 3];
            for c in 0..3 {
                let w = ui[c] + t * jd[c] + if c == 0 { self.slip[i] } else { 0.0 };
                x[c] = li[c] - rho * w;
            }
            let (p, piece) = project_on_cone(mu[i], x, d);
            slope += p[0] * jd[0] + p[1] * jd[1] + p[2] * jd[2];
            if keep {
                set_components(&mut self.projected, d, i, p);
                self.pieces[i] = piece;
                self.points[i] = x;
            }
        }
        let (k, dk) = (mu.len(), d * mu.len());
        for j in 0..bounded.len() {
            let (jd, a) = (self.jd[dk + j], dk + j);
            let x = self.lambda[a] - self.rho[k + j] * (u[a] + t * jd);
            let (lo, hi) = (bounded.lo[j], bounded.hi[j]);
            let (p, piece) = if x <= lo {
                (lo, ConePiece::Apex)
            } else if x >= hi {
                (hi, ConePiece::Apex)
            } else {
                (x, ConePiece::Inside)
            };
            slope += p * jd;
            if keep {
                self.projected[a] = p;
                self.pieces[k + j] = piece;
            }
        }
        slope
    }

    /// Newton's method on `phi` from `v` (with `u = J v + b`), to its
    /// minimum: `v`, `u`, the projections and pieces there; `false` when
    /// its `most` steps ran out first.
    ///
    /// The step length is found on `phi`'s slope along the direction, not
    /// on its values: near the minimum `phi` changes by less than its
    /// round-off, its slope (monotone, piecewise linear in the step) does
    /// not.
    fn minimise(
        &mut self,
        problem: &VelocityProblem,
        v: &mut [f64],
        u: &mut [f64],
        tolerance: f64,
        fresh: &mut bool,
        steps: &mut usize,
        most: usize,
    ) -> Result<bool, GlobalError> {
        let d = problem.rows.dimension;
        self.jd.fill(0.0);
        self.contact_slope(&problem.mu, &problem.bounded, d, u, 0.0, true);
        self.newton.view(problem).product(v, &mut self.mv);
        let (mut refining, mut full, mut last) = (false, false, f64::INFINITY);
        for _ in 0..most {
            // The gradient `M v - f - J^T p`, and the scale it is zero at,
            // both as velocities (divided by `M`'s diagonal: a light body
            // beside a heavy one is held to its own speeds).
            let diagonal = &self.newton.mass_diagonal;
            let mut scale = 0.0f64;
            for (((g, m), f), d) in self
                .gradient
                .iter_mut()
                .zip(&self.mv)
                .zip(&problem.force)
                .zip(diagonal)
            {
                *g = m - f;
                scale = scale.max(m.abs() / d).max(f.abs() / d);
            }
            let rows = &problem.rows;
            for i in 0..rows.contacts() {
                let p = components(&self.projected, d, i);
                for a in rows.start[i]..rows.start[i + 1] {
                    let col = rows.cols[a];
                    let e = rows.entry(a);
                    let term = e[0] * p[0] + e[1] * p[1] + e[2] * p[2];
                    self.gradient[col] -= term;
                    scale = scale.max(term.abs() / diagonal[col]);
                }
            }
            let (bounded, dk) = (&problem.bounded, d * rows.contacts());
            for j in 0..bounded.len() {
                let p = self.projected[dk + j];
                for a in bounded.entries(j) {
                    let col = bounded.cols[a];
                    let term = bounded.values[a] * p;
                    self.gradient[col] -= term;
                    scale = scale.max(term.abs() / diagonal[col]);
                }
            }
            let largest = self
                .gradient
                .iter()
                .zip(diagonal)
                .fold(0.0f64, |m, (g, d)| m.max(g.abs() / d));
            // A full step within one piece lands on its minimum but for
            // the factor's round-off, which more steps on the same factor
            // refine away while they halve the gradient.
            if largest <= tolerance * scale || (refining && largest > 0.5 * last) {
                return Ok(true);
            }
            // A factor whose pieces are no longer all right still gives a
            // descent direction: kept while its full steps halve the
            // gradient (contacts at a kink of the projection, no impulse
            // and no speed, change piece on round-off).
            let stale_ok = full && largest <= STALE_GAIN * last;
            last = largest;
            if !*fresh || (!self.factor_exact() && !stale_ok) {
                self.newton
                    .factor(problem, &self.rho, &self.pieces, &self.points)?;
                self.factored.copy_from_slice(&self.pieces);
                *fresh = true;
                *steps += 1;
            }
            for (d, g) in self.direction.iter_mut().zip(&self.gradient) {
                *d = -g;
            }
            self.newton.solve(&mut self.direction);
            // Along the direction: `J d`, and the slope of `phi`'s mass
            // part, linear in the step.
            for i in 0..rows.contacts() {
                let jd = rows.velocity(i, &self.direction);
                set_components(&mut self.jd, d, i, jd);
            }
            for j in 0..bounded.len() {
                self.jd[dk + j] = bounded.velocity(j, &self.direction);
            }
            self.newton
                .view(problem)
                .product(&self.direction, &mut self.md);
            let slope: f64 = self
                .gradient
                .iter()
                .zip(&self.direction)
                .map(|(g, d)| g * d)
                .sum();
            if slope >= 0.0 {
                // Round-off: no descent left.
                return Ok(true);
            }
            let mass_slope: f64 = self
                .direction
                .iter()
                .zip(&self.mv)
                .zip(&problem.force)
                .map(|((d, m), f)| d * (m - f))
                .sum();
            let curvature: f64 = self
                .direction
                .iter()
                .zip(&self.md)
                .map(|(d, m)| d * m)
                .sum();
            let along = |s: &mut Self, t: f64| {
                mass_slope + t * curvature
                    - s.contact_slope(&problem.mu, &problem.bounded, d, u, t, false)
            };
            let mut t = 1.0;
            // The full step's projections are kept: most steps take it.
            let end = mass_slope + curvature
                - self.contact_slope(&problem.mu, &problem.bounded, d, u, 1.0, true);
            if end > 0.0 {
                // The slope's zero in (0, 1), by regula falsi (Illinois).
                let (mut a, mut fa, mut b, mut fb) = (0.0, slope, 1.0, end);
                let mut side = 0;
                t = 0.0;
                for _ in 0..SEARCH_STEPS {
                    let c = a - fa * (b - a) / (fb - fa);
                    let fc = along(self, c);
                    if fc <= 0.0 {
                        t = c;
                    }
                    if fc.abs() <= SEARCH_SLOPE * -slope {
                        // Past the zero by little: `phi` is lower there
                        // too (convex, its slope small).
                        t = c;
                        break;
                    }
                    if fc < 0.0 {
                        (a, fa) = (c, fc);
                        if side == -1 {
                            fb /= 2.0;
                        }
                        side = -1;
                    } else {
                        (b, fb) = (c, fc);
                        if side == 1 {
                            fa /= 2.0;
                        }
                        side = 1;
                    }
                }
                if t == 0.0 {
                    t = a;
                }
                if t == 0.0 {
                    // The projections back at the iterate.
                    self.contact_slope(&problem.mu, &problem.bounded, d, u, 0.0, true);
                    return Ok(true);
                }
            }
            for (x, d) in v.iter_mut().zip(&self.direction) {
                *x += t * d;
            }
            if t != 1.0 {
                self.contact_slope(&problem.mu, &problem.bounded, d, u, t, true);
            }
            for (x, d) in u.iter_mut().zip(&self.jd) {
                *x += t * d;
            }
            for (m, d) in self.mv.iter_mut().zip(&self.md) {
                *m += t * d;
            }
            self.jd.fill(0.0);
            full = t == 1.0;
            refining = full && self.factor_exact();
        }
        Ok(false)
    }

    /// An outer iteration that steps the impulses as the one before did
    /// (the same direction, as far), with the velocities still, walks a
    /// direction the dual function is flat along: redistributing the load
    /// of redundant contacts (a box sliding on four corners), which only
    /// the cone's edge ends, or, if nothing ends it, a problem without an
    /// answer. The walk is taken in one jump to the edge (`lambda`, the new
    /// iterate, and `projected`, the old one, as the step left them).
    fn jump(&mut self, mu: &[f64], d: usize) -> Jump {
        let step = |s: &Self, i: usize| s.lambda[i] - s.projected[i];
        // Contact `i`'s impulse on its cone's surface, off the apex.
        let sliding = |s: &Self, i: usize| {
            let l = components(&s.lambda, d, i);
            mu[i] > 0.0
                && l[0] > 0.0
                && crate::error::length(l[1], l[2]) >= (1.0 - SURFACE) * mu[i] * l[0]
        };
        let (mut dot, mut now, mut before) = (0.0, 0.0, 0.0);
        for i in 0..self.lambda.len() {
            dot += step(self, i) * self.last_step[i];
            now += step(self, i).powi(2);
            before += self.last_step[i].powi(2);
        }
        let steady = dot >= STEADY * now.sqrt() * before.sqrt()
            && now.sqrt() <= (2.0 - STEADY) * before.sqrt();
        if !steady || now == 0.0 {
            return Jump::Along;
        }
        // The longest multiple of the step that keeps every contact as it
        // is, by doubling and then bisection: one inside its cone stays
        // inside (to the projection's round-off); one sliding, on the
        // cone's surface, may slide along it (its direction turning with
        // the slip) until its impulse reaches the apex, where it lifts.
        let inside = |s: &Self, t: f64| {
            (0..mu.len()).all(|i| {
                let mut x = [0.0; 3];
                for c in 0..d {
                    x[c] = s.lambda[d * i + c] + t * step(s, d * i + c);
                }
                let (p, piece) = project_on_cone(mu[i], x, d);
                if sliding(s, i) {
                    return piece != ConePiece::Apex;
                }
                let off: f64 = (0..d).map(|c| (p[c] - x[c]).powi(2)).sum::<f64>().sqrt();
                off <= EDGE * t * now.sqrt()
            })
        };
        let (mut low, mut high) = (0.0, 1.0);
        while inside(self, high) {
            low = high;
            high *= 2.0;
            if high > ENDLESS {
                return Jump::Endless;
            }
        }
        for _ in 0..50 {
            let mid = 0.5 * (low + high);
            if inside(self, mid) {
                low = mid;
            } else {
                high = mid;
            }
        }
        if low < 1.0 {
            return Jump::Along;
        }
        for i in 0..mu.len() {
            let mut x = [0.0; 3];
            for c in 0..d {
                x[c] = self.lambda[d * i + c] + high * step(self, d * i + c);
            }
            let (p, _) = project_on_cone(mu[i], x, d);
            set_components(&mut self.lambda, d, i, p);
        }
        Jump::Jumped
    }

    /// Whether the outer iterations' last step `d = lambda - projected`
    /// certifies that the problem has no answer: `d` in the cones, moving
    /// no contact (`W d = J M^-1 J^T d` at rounding of `W`'s largest
    /// diagonal entry times `|d|`), and the free velocity, with De Saxce's
    /// slip at the iterate `u`, working against it (`(q + s) . d < 0`,
    /// beyond rounding). Along such a ray the velocities do not change and
    /// the impulses grow without bound: every answer would have
    /// `(u + s) . d >= 0` (`u + s` in the dual cones), and here it is
    /// negative. (For the convex form `s = 0` and this is Clarabel's
    /// certificate of dual infeasibility.) A bounded row's component of
    /// `d` must keep to its box's directions (negative only where `lo =
    /// -inf`, positive only where `hi = +inf`): contradictory equality rows
    /// are such a ray. Uses `best_*` as scratch.
    fn certifies_no_answer(&mut self, problem: &VelocityProblem, exact: bool, u: &[f64]) -> bool {
        let (k, d) = (problem.mu.len(), problem.rows.dimension);
        let (bounded, dk) = (&problem.bounded, d * k);
        let mut ray = std::mem::take(&mut self.best_u);
        for (x, (a, b)) in ray.iter_mut().zip(self.lambda.iter().zip(&self.projected)) {
            *x = a - b;
        }
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let length = norm(&ray);
        let mut certified = length > 0.0 && length.is_finite();
        // In the cones, to rounding.
        for i in 0..k {
            let x = components(&ray, d, i);
            let (p, _) = project_on_cone(problem.mu[i], x, d);
            let off: f64 = (0..d).map(|c| (p[c] - x[c]).powi(2)).sum::<f64>().sqrt();
            certified &= off <= CERTIFICATE * length;
        }
        for j in 0..bounded.len() {
            let x = ray[dk + j];
            let off = if bounded.lo[j].is_finite() {
                (-x).max(0.0)
            } else {
                0.0
            } + if bounded.hi[j].is_finite() {
                x.max(0.0)
            } else {
                0.0
            };
            certified &= off <= CERTIFICATE * length;
        }
        // Its image by `W`, against `W`'s scale (its largest diagonal
        // entry, by `M`'s diagonal).
        if certified {
            self.mv.fill(0.0);
            problem.rows.add_transpose(&ray, &mut self.mv);
            bounded.add_transpose(&ray[dk..], &mut self.mv);
            let mut v = std::mem::take(&mut self.best_v);
            self.apply_mass_inverse(&mut v);
            let mut image = 0.0;
            for i in 0..k {
                let ji = problem.rows.velocity(i, &v);
                image += (0..d).map(|c| ji[c] * ji[c]).sum::<f64>();
            }
            for j in 0..bounded.len() {
                image += bounded.velocity(j, &v).powi(2);
            }
            self.best_v = v;
            let scale = (0..k)
                .map(|i| {
                    (problem.rows.start[i]..problem.rows.start[i + 1])
                        .map(|a| {
                            problem.rows.entry(a)[0].powi(2)
                                / self.newton.mass_diagonal[problem.rows.cols[a]]
                        })
                        .sum::<f64>()
                })
                .chain((0..bounded.len()).map(|j| {
                    bounded
                        .entries(j)
                        .map(|a| {
                            bounded.values[a].powi(2) / self.newton.mass_diagonal[bounded.cols[a]]
                        })
                        .sum::<f64>()
                }))
                .fold(0.0f64, f64::max);
            certified &= image.sqrt() <= CERTIFICATE * scale * length;
        }
        // The work of the free velocity (and the slip) along it.
        let (mut work, mut size) = (0.0, 0.0);
        for i in 0..k {
            let (x, q, ui) = (
                components(&ray, d, i),
                components(&self.free, d, i),
                components(u, d, i),
            );
            let slip = if exact {
                problem.mu[i] * crate::error::length(ui[1], ui[2])
            } else {
                0.0
            };
            for c in 0..d {
                let qc = q[c] + if c == 0 { slip } else { 0.0 };
                work += qc * x[c];
                size += qc * qc;
            }
        }
        for j in 0..bounded.len() {
            let q = self.free[dk + j];
            work += q * ray[dk + j];
            size += q * q;
        }
        self.best_u = ray;
        certified && work < -CERTIFICATE * size.sqrt() * length
    }

    /// Whether the factor is the Newton matrix at the iterate: the same
    /// pieces, each with one derivative all over it (in the plane; on the
    /// cone's curved surface in space the derivative moves with the
    /// point, and Newton's method needs a new factor, or a stale one that
    /// still halves the gradient, at each step).
    fn factor_exact(&self) -> bool {
        self.pieces == self.factored && self.pieces.iter().all(|p| p.is_flat())
    }

    /// The working memory of `problem`'s pattern (an island's, indexed
    /// from zero).
    /// The last solve's free contact velocities (`J M^-1 f + b`).
    pub fn free(&self) -> &[f64] {
        &self.free
    }

    pub fn new(problem: &VelocityProblem) -> Island {
        let mut island = Island::default();
        island.build(problem);
        island
    }

    fn build(&mut self, problem: &VelocityProblem) {
        let (n, k, d) = (
            problem.force.len(),
            problem.mu.len(),
            problem.rows.dimension,
        );
        let m = problem.bounded.len();
        self.newton = Newton::build(problem);
        self.finish = None;
        self.points.clear();
        self.points.resize(k, [0.0; 3]);
        self.slip.clear();
        self.slip.resize(k, 0.0);
        self.rho.clear();
        self.rho.resize(k + m, 0.0);
        for v in [&mut self.pieces, &mut self.factored] {
            v.clear();
            v.resize(k + m, ConePiece::Apex);
        }
        for v in [
            &mut self.lambda,
            &mut self.projected,
            &mut self.last_step,
            &mut self.best_lambda,
            &mut self.best_u,
            &mut self.jd,
            &mut self.free,
        ] {
            v.clear();
            v.resize(d * k + m, 0.0);
        }
        for v in [
            &mut self.md,
            &mut self.gradient,
            &mut self.direction,
            &mut self.mv,
            &mut self.minv,
            &mut self.best_v,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primal::{BoundedRows, ContactRows};

    /// `M = [[1, 1 - d], [1 - d, 1]]` (positive definite, its smallest
    /// eigenvalue `d = 1e-13`) and one contact whose normal row `(1, 1)`
    /// does not see that eigenvector, inside its cone at a penalty of
    /// `2e6`: `M + rho J^T J` is positive definite, but its second pivot,
    /// `2 d` less the round-off of entries of `2e6`, is not (a long
    /// chain's Newton matrix beside the stiffest penalty failed so: "M is
    /// not positive definite"). The shifted factor gives a direction.
    #[test]
    fn a_pivot_lost_to_round_off_beside_a_stiff_penalty_is_restored() {
        let (d, rho): (f64, f64) = (1e-13, 2e6);
        let a = [[1.0 + rho, 1.0 - d + rho], [1.0 - d + rho, 1.0 + rho]];
        let l21 = a[1][0] / a[0][0].sqrt();
        assert!(
            a[1][1] - l21 * l21 <= 0.0,
            "Cholesky by hand loses the pivot"
        );
        let mass = CsMat::new(
            (2, 2),
            vec![0, 2, 4],
            vec![0, 1, 0, 1],
            vec![1.0, 1.0 - d, 1.0 - d, 1.0],
        );
        let mut rows = ContactRows::new(3);
        rows.push([(0, [1.0, 0.0, 0.0]), (1, [1.0, 0.0, 0.0])]);
        let problem = VelocityProblem {
            mass,
            force: vec![0.0; 2],
            rows,
            b: vec![0.0; 3],
            mu: vec![0.5],
            bounded: BoundedRows::new(),
        };
        let mut newton = Newton::build(&problem);
        assert!(newton.full, "M holds every entry: the places are computed");
        // The dense factor the small island takes loses it too.
        let mut dense = Dense::new(2);
        for (r, c) in [(0, 0), (1, 0), (1, 1)] {
            dense.assembled[2 * c + r] = a[r][c];
        }
        assert_eq!(dense.factor_in_place(), Err(1), "the dense factor");
        assert!(newton.dense.is_some(), "a small island is factored dense");
        newton.load_mass(&problem);
        let points = [[0.0; 3]];
        newton
            .factor(&problem, &[rho], &[ConePiece::Apex], &points)
            .expect("M alone factors");
        newton
            .factor(&problem, &[rho], &[ConePiece::Inside], &points)
            .expect("restored by the shift");
        // `(1, 1)` is an eigenvector, of eigenvalue `2 - d + 2 rho`.
        let mut x = vec![1.0, 1.0];
        newton.solve(&mut x);
        let exact = 1.0 / (2.0 - d + 2.0 * rho);
        // A direction of descent (`y . A^-1 y > 0`), and `A^-1 y` along
        // `y` to the round-off of a matrix of condition `1e14` (the shift's
        // `1e-14` of `2e6`): percents, where without the shift there was
        // no direction at all.
        assert!(x[0] + x[1] > 0.0, "{x:?}");
        for xi in x {
            assert!((xi / exact - 1.0).abs() < 0.05, "{xi} against {exact}");
        }
    }
}
