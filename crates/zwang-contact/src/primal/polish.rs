//! Where the proximal iterations end near an answer but not at it: each
//! contact's piece of Coulomb's law guessed from the iterate, then the
//! pieces' equations, smooth, solved by Newton's method (OSQP's polish,
//! for cones: Stellato et al., "OSQP: an operator splitting solver for
//! quadratic programs", 2020).
//!
//! The finish's residual is not smooth where a contact is at the verge of
//! sliding (its impulse on the cone's surface, its velocity zero): Newton's
//! steps flip it between sticking and sliding, and proximal iterations
//! lose their rate there. Written as a piece of its own, with the sliding
//! speed `lambda` an unknown, sliding is
//!
//! `u_N = 0`, `u_T = -lambda r_T / |r_T|`, `|r_T| = mu r_N`, `lambda >= 0`,
//!
//! smooth at `lambda = 0`: the verge is the sliding piece's point of zero
//! speed, not a corner. Sticking is `u = 0` with the impulse in the cone,
//! separating `r = 0` with `u_N >= 0`; a bounded row is at a bound
//! (`r = lo` or `hi`) or free (`u = 0`). Each Newton step is cut where a
//! contact first breaks its piece's inequality, and that contact takes
//! the piece it enters (the ratio test of an active set method; a
//! contact that cycles there, sliding asking for a negative speed and
//! sticking for an impulse outside the cone, is left sticking until the
//! next round's check: the verge's degenerate case). The
//! answer is checked on the law itself (the caller's measure); a contact
//! that breaks its piece by more than a share of the tolerance takes the
//! piece its projection gives, and the equations are solved again.
//!
//! Redundant contacts (a box's four corners) leave the impulses of the
//! equations not unique, and their gap terms can make the pieces'
//! equations inconsistent (four corners that cannot all keep `u_N = 0`).
//! Each row that holds a velocity holds a weak proximal term
//! `eps_i (r_i - c_i)` in the Jacobian only, centred on the iterate (a compliance:
//! more impulse, more approach), so that a step is the least change of
//! the impulses that solves the linearisation, and where the equations
//! are inconsistent it is a long walk along the impulses' null direction,
//! which the ratio test ends where a corner's load reaches zero: that
//! corner lifts.
//!
//! Nearly null directions are the harder case: a contact sliding at the
//! verge, whose small speed barely fixes its impulse's direction, beside
//! redundant ones. A Newton step takes a long way along them, and the
//! cone's curvature undoes it: no halving reduces the residual, and the
//! polish ended there (a falling humanoid's islands, 1e-9 from the
//! answer). The proximal weight is damped as Levenberg and Marquardt's:
//! stiffer after a step that fails or gains little of what its
//! linearisation promised, which shortens the next step or, where the
//! equations are inconsistent at that weight, makes it a walk to the
//! first contact's boundary; weaker after one that gains as promised.
//!
//! A step cut where a contact changes its piece is taken as far as the
//! cut, however far that is: often the long step is the one that solves
//! (a corner that lifts, far along a null direction). Where it leads away
//! instead (the cone's curvature leaves the residual at the cut far above
//! where the step started, and the pieces change round after round
//! farther off: a landing pile's islands), the rounds are run again, from
//! the best answer yet, with cautious steps: a cut step that ends worse
//! under its pieces than it started is tried again stiffer, and at the
//! stiffest weight only the part of it that is no worse is taken, the
//! pieces kept. A walk is never held to that: it keeps the residual only
//! to first order, and is how an inconsistent set of pieces is left.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

use super::finish::IslandView;
use crate::error::{components, length, project_on_cone, ConePiece};
use crate::pattern::{compress, mass_places, newton_is_full, place, DENSE_UP_TO};
use crate::sparse_lu::SparseLu;

/// The proximal weight of a row that holds a velocity, relative to its
/// contact's `W_ii`: strong enough that round-off in the impulses' null
/// directions is not enlarged past the tolerance (round-off over `eps`),
/// weak enough that each step solves the equations to within it.
const EPS: f64 = 1e-9;
/// Newton steps (not cut by the ratio test) per set of pieces.
const NEWTON: usize = 12;
/// A step is a walk when the proximal terms' part of its linearisation
/// is this fraction of the residual.
const WALK: f64 = 0.5;
/// Steps in all, cut ones included.
const STEPS: usize = 30;
/// Sets of pieces tried.
pub(super) const ROUNDS: usize = 5;
/// A Newton step's residual below this fraction of the equations' scale
/// ends them.
const ROUND_OFF: f64 = 1e-15;
/// Halvings of a step that does not reduce the residual.
const HALVINGS: usize = 12;
/// The proximal weight's damping (Levenberg and Marquardt's): a step
/// that had to be halved, or gains less than `POOR` of what its
/// linearisation promised, makes the next `GROW` times stiffer (up to
/// `MOST_DAMPING` times `EPS`); a whole one that gains more than `GOOD`
/// makes it `GROW` times weaker (down to `EPS`); a step that no halving
/// makes gain is tried again `FAILED_GROW` times stiffer, and ends the
/// set of pieces once the weight has reached `MOST_DAMPING` times `EPS`.
const POOR: f64 = 0.25;
const GOOD: f64 = 0.75;
const GROW: f64 = 10.0;
const FAILED_GROW: f64 = 100.0;
const MOST_DAMPING: f64 = 1e6;

/// A contact's or bounded row's piece of the law.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// No impulse: `r = 0`.
    Open,
    /// No motion: `u = 0`.
    Stick,
    /// In space, on the cone's surface: `u_N = 0`, `|r_T| = mu r_N`,
    /// `u_T = -lambda r_T / |r_T|` with the speed `lambda >= 0` an
    /// unknown of its own (zero at the verge).
    Slide,
    /// In the plane, on the edge `r_T = mu r_N` (`true`) or `-mu r_N`,
    /// `u_N = 0`.
    Edge(bool),
    /// Frictionless and closed: `u_N = 0`, `r_T = 0`.
    Normal,
    /// A bounded row at its lower or upper bound, or between (`u = 0`).
    Lower,
    Upper,
    Free,
}

/// The polish's pattern (the equations' Jacobian in `(v, r)`, both kinds
/// of rows), where each term lands, and its working memory.
#[derive(Debug)]
pub(super) struct Polish {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    lu: SparseLu,
    /// Per stored entry of `M`: its place, and its mirror's
    /// (`usize::MAX` for none).
    mass: Vec<(usize, usize)>,
    /// Per contact entry, per row `l`: the places of `-J^T` (row: the
    /// entry's velocity, column: the impulse) and of `J` (row: the
    /// contact's row `l`, column: the velocity).
    transposed: Vec<[usize; 3]>,
    direct: Vec<[usize; 3]>,
    /// Per contact, its block in its slots (the impulse's components,
    /// then in space the sliding speed).
    blocks: Vec<[[usize; 4]; 4]>,
    /// Per bounded entry, `-g^T`'s and `g`'s places; per bounded row, its
    /// diagonal's.
    bounded_transposed: Vec<usize>,
    bounded_direct: Vec<usize>,
    bounded_diagonal: Vec<usize>,
    pieces: Vec<Piece>,
    /// Per contact, whether the ratio test leaves its cone alone (it
    /// cycled between sticking and sliding at the verge), and the last
    /// contact to change its piece.
    pinned: Vec<bool>,
    entered: Option<usize>,
    /// The proximal weight in `EPS`s, 1 at each solve's start.
    damping: f64,
    /// Per contact, the direction a sliding contact without a tangent
    /// impulse takes (against its tangent velocity when it entered).
    fallback: Vec<[f64; 2]>,
    /// The unknowns `(v, r)`, the residual, the step, a trial point, the
    /// contact velocities `u` (contacts, then bounded rows), `M v` and
    /// `J^T r`.
    x: Vec<f64>,
    f: Vec<f64>,
    step: Vec<f64>,
    trial: Vec<f64>,
    u: Vec<f64>,
    mv: Vec<f64>,
    jr: Vec<f64>,
}

impl Polish {
    /// The pattern of `problem`'s (an island's) equations and its analysis.
    pub fn build(problem: &super::VelocityProblem) -> Polish {
        let (n, d, k, m) = problem.sizes();
        let (rows, bounded) = (&problem.rows, &problem.bounded);
        // In space each contact has a sliding speed too, after the impulses.
        let speeds = if d == 3 { k } else { 0 };
        let size = n + d * k + m + speeds;
        let slots = slots(d);
        // Contact `i`'s unknown (and equation) in slot `l`: its impulse's
        // components, then its speed.
        let unknown = |i: usize, l: usize| {
            if l < d {
                n + d * i + l
            } else {
                n + d * k + m + i
            }
        };
        let mut entries: Vec<(usize, usize)> = (0..size).map(|j| (j, j)).collect();
        for (_, (r, c)) in problem.mass.iter() {
            entries.extend([(c, r), (r, c)]);
        }
        for i in 0..k {
            for a in rows.start[i]..rows.start[i + 1] {
                let c = rows.cols[a];
                for l in 0..d {
                    entries.extend([(unknown(i, l), c), (c, unknown(i, l))]);
                }
            }
            for a in 0..slots {
                for b in 0..slots {
                    entries.push((unknown(i, b), unknown(i, a)));
                }
            }
        }
        for j in 0..m {
            for a in bounded.entries(j) {
                let c = bounded.cols[a];
                entries.extend([(n + d * k + j, c), (c, n + d * k + j)]);
            }
        }
        if size <= DENSE_UP_TO || newton_is_full(&problem.mass, n) {
            // Factored dense (see `DENSE_UP_TO`): a tree's contacts reach
            // most of its joints.
            entries.extend((0..size).flat_map(|c| (0..size).map(move |r| (c, r))));
        }
        let (col_ptr, row_idx) = compress(size, &entries);
        let at = |row: usize, col: usize| place(&col_ptr, &row_idx, row, col);
        let mass = mass_places(&problem.mass, &col_ptr, &row_idx);
        let mut transposed = Vec::with_capacity(rows.cols.len());
        let mut direct = Vec::with_capacity(rows.cols.len());
        let mut blocks = Vec::with_capacity(k);
        for i in 0..k {
            for a in rows.start[i]..rows.start[i + 1] {
                let c = rows.cols[a];
                let (mut t, mut g) = ([usize::MAX; 3], [usize::MAX; 3]);
                for l in 0..d {
                    t[l] = at(c, unknown(i, l));
                    g[l] = at(unknown(i, l), c);
                }
                transposed.push(t);
                direct.push(g);
            }
            let mut block = [[usize::MAX; 4]; 4];
            for (a, row) in block.iter_mut().enumerate().take(slots) {
                for (b, place) in row.iter_mut().enumerate().take(slots) {
                    *place = at(unknown(i, a), unknown(i, b));
                }
            }
            blocks.push(block);
        }
        let (mut bounded_transposed, mut bounded_direct) = (Vec::new(), Vec::new());
        for j in 0..m {
            let row = n + d * k + j;
            for a in bounded.entries(j) {
                let c = bounded.cols[a];
                bounded_transposed.push(at(c, row));
                bounded_direct.push(at(row, c));
            }
        }
        let bounded_diagonal = (0..m).map(|j| at(n + d * k + j, n + d * k + j)).collect();
        let symbolic = SymbolicSparseColMatRef::new_checked(size, size, &col_ptr, None, &row_idx);
        let lu = SparseLu::analyze(symbolic);
        let values = vec![0.0; row_idx.len()];
        Polish {
            col_ptr,
            row_idx,
            values,
            lu,
            mass,
            transposed,
            direct,
            blocks,
            bounded_transposed,
            bounded_direct,
            bounded_diagonal,
            pieces: vec![Piece::Open; k + m],
            pinned: vec![false; k],
            entered: None,
            damping: 1.0,
            fallback: vec![[1.0, 0.0]; k],
            x: vec![0.0; size],
            f: vec![0.0; size],
            step: vec![0.0; size],
            trial: vec![0.0; size],
            u: vec![0.0; d * k + m],
            mv: vec![0.0; n],
            jr: vec![0.0; n],
        }
    }

    /// Starts the next solve from `(v, r)`, each contact's piece guessed
    /// from `(r, u)` by the projection the law makes (`rho` per contact and
    /// bounded row, as the finish's), a sliding one's speed from `u`.
    pub fn start(&mut self, given: &IslandView, rho: &[f64], v: &[f64], r: &[f64], u: &[f64]) {
        self.x[..v.len()].copy_from_slice(v);
        self.x[v.len()..v.len() + r.len()].copy_from_slice(r);
        let problem = given.problem;
        let (d, k) = (problem.rows.dimension, problem.mu.len());
        let m = problem.bounded.len();
        for i in 0..k {
            let (ri, ui) = (components(r, d, i), components(u, d, i));
            let mut piece = piece_of(problem.mu[i], d, rho[i], ri, ui);
            if piece == Piece::Slide && length(ri[1], ri[2]) == 0.0 {
                piece = Piece::Stick;
            }
            self.take(given, i, piece, ri, ui);
        }
        for j in 0..m {
            let x = r[d * k + j] - rho[k + j] * u[d * k + j];
            self.pieces[k + j] = bounded_piece(problem, j, x);
        }
    }

    /// Newton's method on the pieces' equations from the last answer (or
    /// [`Polish::start`]'s point), each step cut where a contact first
    /// breaks its piece's inequalities, which then takes the piece it
    /// enters (the ratio test of an active set method: where redundant
    /// contacts make the pieces' equations inconsistent, the weak
    /// proximal term turns the step into a walk along the impulses'
    /// null direction, and the walk ends where a corner's load reaches
    /// zero); `cautious`, a cut step that is not a walk is held to the
    /// residual it started from ([`Polish::backtrack`]). The answer (`v`,
    /// `r`, `u`) from [`Polish::answer`]. `false` when a Jacobian is
    /// singular.
    pub fn solve(&mut self, given: &IslandView, rho: &[f64], cautious: bool) -> bool {
        self.pinned.fill(false);
        self.entered = None;
        self.damping = 1.0;
        let mut norm = self.residual(given, true, rho);
        let mut newton = 0;
        for _ in 0..STEPS {
            let scale = self.scale(given);
            if norm <= ROUND_OFF * scale || newton == NEWTON {
                break;
            }
            let matrix = SparseColMatRef::new(
                SymbolicSparseColMatRef::new_checked(
                    self.x.len(),
                    self.x.len(),
                    &self.col_ptr,
                    None,
                    &self.row_idx,
                ),
                &self.values,
            );
            if !self.lu.factor(matrix) {
                return false;
            }
            for (s, f) in self.step.iter_mut().zip(&self.f) {
                *s = -f;
            }
            self.lu.solve_in_place(&mut self.step);
            if self.step.iter().any(|s| !s.is_finite()) {
                return false;
            }
            // A step the proximal terms lengthen (`|E dx|`, what the
            // linearisation leaves unsolved, not below `|F|`: the pieces'
            // equations inconsistent) is a walk along the impulses' null
            // direction, as far as the first contact's boundary.
            let regularised = self.regularised(given, rho);
            let walk = regularised > WALK * norm;
            let limit = if walk { f64::INFINITY } else { 1.0 };
            let (cut, entered) = self.ratio(given, ROUND_OFF * scale, limit);
            if walk && entered.is_none() {
                break;
            }
            if let Some((i, piece)) = entered {
                if cautious && !walk && cut > 0.0 {
                    // No worse under its pieces than where it started, or
                    // tried again stiffer; at the stiffest, the longest
                    // of its halvings that is no worse, the pieces kept.
                    let stiffest = self.damping >= MOST_DAMPING;
                    match self.backtrack(given, rho, cut, norm + ROUND_OFF * scale, stiffest) {
                        Some((t, _)) if t == cut => {}
                        Some((_, tried)) => {
                            norm = tried;
                            self.jacobian(given, rho);
                            continue;
                        }
                        None if stiffest => break,
                        None => {
                            self.damping *= FAILED_GROW;
                            self.jacobian(given, rho);
                            continue;
                        }
                    }
                } else {
                    for (x, s) in self.x.iter_mut().zip(&self.step) {
                        *x += cut * s;
                    }
                }
                if cut == 0.0 && piece == Piece::Stick && self.entered == Some(i) {
                    // At the verge, sliding asks for a negative speed and
                    // sticking for an impulse outside the cone: it sticks,
                    // the cone left to the next round's check.
                    self.pinned[i] = true;
                }
                self.entered = Some(i);
                self.enter(given, i, piece);
                norm = self.residual(given, true, rho);
                continue;
            }
            // Damped until the residual falls.
            newton += 1;
            let Some((t, tried)) = self.backtrack(given, rho, 1.0, norm, true) else {
                // The same point again with a stiffer weight (a shorter
                // step, or a walk).
                if self.damping >= MOST_DAMPING {
                    break;
                }
                self.damping *= FAILED_GROW;
                self.jacobian(given, rho);
                continue;
            };
            // What the step gained against what its linearisation promised
            // (`|F|` to at most `|E dx|` along the whole step); a step
            // that had to be halved was longer than its linearisation holds.
            let (gained, promised) = (norm - tried, t * (norm - regularised).max(0.0));
            if t < 1.0 || gained < POOR * promised {
                self.damping = (GROW * self.damping).min(MOST_DAMPING);
            } else if gained > GOOD * promised {
                self.damping = (self.damping / GROW).max(1.0);
            }
            // `F` and `u` are the accepted point's: only the Jacobian is new.
            norm = tried;
            self.jacobian(given, rho);
        }
        true
    }

    /// The point `t` along `self.step` (halved while `halve`, at most
    /// `HALVINGS` tries) whose residual under the present pieces is below
    /// `bound`: `self.x`, `u` and `F` left there, with `t` and that
    /// residual; `None`, all three back where they were.
    fn backtrack(
        &mut self,
        given: &IslandView,
        rho: &[f64],
        mut t: f64,
        bound: f64,
        halve: bool,
    ) -> Option<(f64, f64)> {
        self.trial.copy_from_slice(&self.x);
        for _ in 0..HALVINGS {
            for ((x, s), y) in self.x.iter_mut().zip(&self.step).zip(&self.trial) {
                *x = y + t * s;
            }
            let tried = self.residual(given, false, rho);
            if tried < bound {
                return Some((t, tried));
            }
            if !halve {
                break;
            }
            t *= 0.5;
        }
        self.x.copy_from_slice(&self.trial);
        self.residual(given, false, rho);
        None
    }

    /// Contact `i` (or bounded row `i - contacts`) takes `piece`, its
    /// speed zero (entering sliding or leaving it, its speed is).
    fn enter(&mut self, given: &IslandView, i: usize, piece: Piece) {
        let problem = given.problem;
        let (n, d, k, _) = problem.sizes();
        self.pieces[i] = piece;
        if d == 3 && i < k {
            self.x[n + d * k + problem.bounded.len() + i] = 0.0;
        }
    }

    /// Contact `i` takes `piece` at `(r_i, u_i)` (not at a boundary the
    /// ratio test found, as [`Polish::enter`]): sliding in space, at its
    /// velocity's speed against its tangent impulse, or without one
    /// (grazing: no impulse, sliding) against its velocity. Entered with
    /// no speed and the first tangent, a grazing contact's step asked for
    /// a negative speed at once, and it went back to open, round after
    /// round (humanoid_CMU at rest at 10 ms).
    fn take(&mut self, given: &IslandView, i: usize, piece: Piece, r: [f64; 3], u: [f64; 3]) {
        self.enter(given, i, piece);
        let (n, d, k, m) = given.problem.sizes();
        if piece != Piece::Slide || d != 3 {
            return;
        }
        let slip = length(u[1], u[2]);
        self.fallback[i] = if slip > 0.0 {
            [-u[1] / slip, -u[2] / slip]
        } else {
            [1.0, 0.0]
        };
        let (_, s) = tangent_direction(r, self.fallback[i]);
        self.x[n + d * k + m + i] = (-(u[1] * s[0] + u[2] * s[1])).max(0.0);
    }

    /// `|E dx|`: the proximal terms' share of the step's linearisation.
    fn regularised(&self, given: &IslandView, rho: &[f64]) -> f64 {
        let problem = given.problem;
        let (n, d, k, _) = problem.sizes();
        let (r, dr) = (&self.x[n..], &self.step[n..]);
        let mut sum = 0.0;
        for i in 0..k {
            let eps = self.damping * EPS / rho[i];
            let (ri, di) = (components(r, d, i), components(dr, d, i));
            sum += match self.pieces[i] {
                Piece::Open => 0.0,
                Piece::Stick => eps * eps * (di[0] * di[0] + di[1] * di[1] + di[2] * di[2]),
                Piece::Slide if d == 3 => {
                    // Across the tangent impulse, or across the direction
                    // the Jacobian takes without one.
                    let across = match tangent_direction(ri, self.fallback[i]) {
                        (t, _) if t > 0.0 => (ri[2] * di[1] - ri[1] * di[2]) / t,
                        (_, s) => s[1] * di[1] - s[0] * di[2],
                    };
                    eps * eps * (di[0] * di[0] + across * across)
                }
                _ => eps * eps * di[0] * di[0],
            };
        }
        for j in 0..problem.bounded.len() {
            if self.pieces[k + j] == Piece::Free {
                sum += (self.damping * EPS / rho[k + j] * dr[d * k + j]).powi(2);
            }
        }
        sum.sqrt()
    }

    /// The largest fraction of `self.step` (at most `limit`) along which every
    /// contact keeps its piece's inequalities (those it holds to within
    /// `slack` at the start), and the contact that stops it with the
    /// piece it enters.
    fn ratio(&self, given: &IslandView, slack: f64, limit: f64) -> (f64, Option<(usize, Piece)>) {
        let problem = given.problem;
        let (rows, bounded) = (&problem.rows, &problem.bounded);
        let (n, d, k) = (problem.force.len(), rows.dimension, problem.mu.len());
        let m = bounded.len();
        let r = &self.x[n..];
        let (dv, dr) = self.step.split_at(n);
        let mut best = (limit, None);
        let mut consider = |t: f64, i: usize, piece: Piece| {
            if t >= 0.0 && t < best.0 {
                best = (t, Some((i, piece)));
            }
        };
        for i in 0..k {
            let (ri, di) = (components(r, d, i), components(dr, d, i));
            match self.pieces[i] {
                Piece::Open => {
                    let (u, du) = (self.u[d * i], rows.velocity(i, dv)[0]);
                    if u >= -slack && du < 0.0 {
                        consider(-u.max(0.0) / du, i, Piece::Stick);
                    }
                }
                Piece::Stick if !self.pinned[i] => {
                    if let Some((t, piece)) = leaves_cone(problem.mu[i], ri, di, slack) {
                        consider(t, i, piece);
                    }
                }
                Piece::Slide if d == 3 => {
                    let (speed, dspeed) = (r[d * k + m + i], dr[d * k + m + i]);
                    if speed >= -slack && dspeed < 0.0 {
                        consider(-speed.max(0.0) / dspeed, i, Piece::Stick);
                    }
                    if ri[0] >= -slack && di[0] < 0.0 {
                        consider(-ri[0].max(0.0) / di[0], i, Piece::Open);
                    }
                }
                _ => {
                    if ri[0] >= -slack && di[0] < 0.0 {
                        consider(-ri[0].max(0.0) / di[0], i, Piece::Open);
                    }
                }
            }
        }
        for j in 0..bounded.len() {
            let (x, dx) = (r[d * k + j], dr[d * k + j]);
            let (w, dw) = (self.u[d * k + j], bounded.velocity(j, dv));
            let (lo, hi) = (bounded.lo[j], bounded.hi[j]);
            match self.pieces[k + j] {
                Piece::Free if dx < 0.0 && x >= lo - slack => {
                    consider((lo - x).min(0.0) / dx, k + j, Piece::Lower);
                }
                Piece::Free if dx > 0.0 && x <= hi + slack => {
                    consider((hi - x).max(0.0) / dx, k + j, Piece::Upper);
                }
                Piece::Lower if w >= -slack && dw < 0.0 => {
                    consider(-w.max(0.0) / dw, k + j, Piece::Free);
                }
                Piece::Upper if w <= slack && dw > 0.0 => {
                    consider(-w.min(0.0) / dw, k + j, Piece::Free);
                }
                _ => {}
            }
        }
        best
    }

    /// The last solve's `(v, r, u)` (the bounded rows' after the
    /// contacts').
    pub fn answer(&self, n: usize) -> (&[f64], &[f64], &[f64]) {
        (&self.x[..n], &self.x[n..n + self.u.len()], &self.u)
    }

    /// Moves each contact whose answer breaks its piece's inequalities
    /// by more than `share` of the measure's scale to the piece its
    /// projection gives; whether any moved.
    pub fn reclassify(&mut self, given: &IslandView, rho: &[f64], share: f64) -> bool {
        let problem = given.problem;
        let (n, d, k, _) = problem.sizes();
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let slack = share * norm(given.free).max(norm(&self.x[n..])).max(norm(&self.u));
        let mut moved = false;
        let m = problem.bounded.len();
        for i in 0..k {
            let mu = problem.mu[i];
            let (ri, ui) = (components(&self.x[n..], d, i), components(&self.u, d, i));
            let tangent = length(ri[1], ri[2]);
            let broken = match self.pieces[i] {
                Piece::Open => ui[0] < -slack,
                Piece::Stick => ri[0] < -slack || tangent - mu * ri[0] > slack,
                Piece::Normal => ri[0] < -slack,
                Piece::Slide if d == 3 => ri[0] < -slack || self.x[n + d * k + m + i] < -slack,
                Piece::Slide | Piece::Edge(_) => {
                    let along = if tangent > 0.0 {
                        (ui[1] * ri[1] + ui[2] * ri[2]) / tangent
                    } else {
                        0.0
                    };
                    ri[0] < -slack || along > slack
                }
                _ => false,
            };
            if broken {
                let mut piece = piece_of(mu, d, rho[i], ri, ui);
                if piece == self.pieces[i] {
                    // A sliding contact moving along its friction sticks; a
                    // sticking one whose impulse leaves the cone slides.
                    piece = match piece {
                        Piece::Slide | Piece::Edge(_) if ri[0] >= -slack => Piece::Stick,
                        Piece::Stick | Piece::Normal => Piece::Open,
                        _ => Piece::Stick,
                    };
                }
                moved |= piece != self.pieces[i];
                self.take(given, i, piece, ri, ui);
            }
        }
        let bounded = &problem.bounded;
        for j in 0..bounded.len() {
            let (x, w) = (self.x[n + d * k + j], self.u[d * k + j]);
            let piece = match self.pieces[k + j] {
                Piece::Lower if w < -slack => Piece::Free,
                Piece::Upper if w > slack => Piece::Free,
                Piece::Free if x < bounded.lo[j] - slack => Piece::Lower,
                Piece::Free if x > bounded.hi[j] + slack => Piece::Upper,
                other => other,
            };
            moved |= piece != self.pieces[k + j];
            self.pieces[k + j] = piece;
        }
        moved
    }

    /// `max(|f|, |M v|, |r|)`: what the equations balance.
    fn scale(&self, given: &IslandView) -> f64 {
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let n = given.problem.force.len();
        norm(&given.problem.force)
            .max(norm(&self.mv))
            .max(norm(&self.x[n..]))
            .max(norm(given.free))
    }

    /// Writes `u`, `M v` and the equations' residual `F` at `self.x`, and
    /// when `jacobian` their Jacobian (with the proximal terms) into
    /// `self.values`; returns `|F|`.
    fn residual(&mut self, given: &IslandView, jacobian: bool, rho: &[f64]) -> f64 {
        let problem = given.problem;
        let (rows, bounded) = (&problem.rows, &problem.bounded);
        let (n, d, k) = (problem.force.len(), rows.dimension, problem.mu.len());
        let m = bounded.len();
        let (v, r) = self.x.split_at(n);
        given.mass.product(v, &mut self.mv);
        // Newton's equations: M v - f - J^T r - G^T r_b.
        for c in 0..n {
            self.f[c] = self.mv[c] - problem.force[c];
        }
        for i in 0..k {
            let ui = rows.velocity(i, v);
            for l in 0..d {
                self.u[d * i + l] = ui[l] + problem.b[d * i + l];
            }
        }
        for j in 0..bounded.len() {
            self.u[d * k + j] = bounded.velocity(j, v) + bounded.b[j];
        }
        self.jr.fill(0.0);
        rows.add_transpose(&r[..d * k], &mut self.jr);
        bounded.add_transpose(&r[d * k..d * k + m], &mut self.jr);
        let (head, tail) = self.f.split_at_mut(n);
        for (h, j) in head.iter_mut().zip(&self.jr) {
            *h -= j;
        }
        // Each piece's equations.
        let slots = slots(d);
        for i in 0..k {
            let (ri, ui) = (components(r, d, i), components(&self.u, d, i));
            let speed = if d == 3 { r[d * k + m + i] } else { 0.0 };
            let s = tangent_direction(ri, self.fallback[i]);
            let equations = equations(self.pieces[i], problem.mu[i], d, ri, s, speed, ui);
            tail[d * i..d * i + d].copy_from_slice(&equations[..d]);
            if slots > d {
                tail[d * k + m + i] = equations[3];
            }
        }
        for j in 0..bounded.len() {
            let (x, w) = (r[d * k + j], self.u[d * k + j]);
            tail[d * k + j] = match self.pieces[k + j] {
                Piece::Lower => x - bounded.lo[j],
                Piece::Upper => x - bounded.hi[j],
                _ => w,
            };
        }
        if jacobian {
            self.jacobian(given, rho);
        }
        self.f.iter().map(|f| f * f).sum::<f64>().sqrt()
    }

    /// The equations' Jacobian at `self.x`.
    fn jacobian(&mut self, given: &IslandView, rho: &[f64]) {
        let problem = given.problem;
        let (rows, bounded) = (&problem.rows, &problem.bounded);
        let (n, d, k) = (problem.force.len(), rows.dimension, problem.mu.len());
        self.values.fill(0.0);
        for (&(at, mirror), (&value, _)) in self.mass.iter().zip(problem.mass.iter()) {
            self.values[at] += value;
            if mirror != usize::MAX {
                self.values[mirror] += value;
            }
        }
        let r = &self.x[n..];
        let (m, slots) = (bounded.len(), slots(d));
        for i in 0..k {
            let ri = components(r, d, i);
            let speed = if d == 3 { r[d * k + m + i] } else { 0.0 };
            let eps = self.damping * EPS / rho[i];
            // Each row's weights on `J_i`'s rows (normal, tangents) and its
            // block in the contact's slots.
            let s = tangent_direction(ri, self.fallback[i]);
            let (weights, block) = linearisation(self.pieces[i], problem.mu[i], d, eps, s, speed);
            for a in rows.start[i]..rows.start[i + 1] {
                let e = rows.entry(a);
                for l in 0..d {
                    self.values[self.transposed[a][l]] -= e[l];
                    let g: f64 = (0..d).map(|c| weights[l][c] * e[c]).sum();
                    self.values[self.direct[a][l]] += g;
                }
            }
            for (a, row) in block.iter().enumerate().take(slots) {
                for (b, value) in row.iter().enumerate().take(slots) {
                    self.values[self.blocks[i][a][b]] += value;
                }
            }
        }
        let mut entry = 0;
        for j in 0..bounded.len() {
            let free = matches!(self.pieces[k + j], Piece::Free);
            for a in bounded.entries(j) {
                self.values[self.bounded_transposed[entry]] -= bounded.values[a];
                if free {
                    self.values[self.bounded_direct[entry]] += bounded.values[a];
                }
                entry += 1;
            }
            self.values[self.bounded_diagonal[j]] += if free {
                self.damping * EPS / rho[k + j]
            } else {
                1.0
            };
        }
    }
}

/// A contact's unknowns: its impulse's components, and in space its
/// sliding speed.
fn slots(d: usize) -> usize {
    if d == 3 {
        4
    } else {
        2
    }
}

/// The piece whose projection `r - rho w` (De Saxce's `w = u + mu |u_T|
/// e_N`) lands in.
fn piece_of(mu: f64, d: usize, rho: f64, r: [f64; 3], u: [f64; 3]) -> Piece {
    let wn = u[0] + mu * length(u[1], u[2]);
    let x = [r[0] - rho * wn, r[1] - rho * u[1], r[2] - rho * u[2]];
    match project_on_cone(mu, x, d).1 {
        ConePiece::Apex => Piece::Open,
        ConePiece::Inside => Piece::Stick,
        ConePiece::Surface => Piece::Slide,
        ConePiece::Upper | ConePiece::Lower if mu == 0.0 => Piece::Normal,
        ConePiece::Upper => Piece::Edge(true),
        ConePiece::Lower => Piece::Edge(false),
    }
}

/// A bounded row's piece from its projection's argument `x = r - rho u`.
fn bounded_piece(problem: &super::VelocityProblem, j: usize, x: f64) -> Piece {
    if x <= problem.bounded.lo[j] {
        Piece::Lower
    } else if x >= problem.bounded.hi[j] {
        Piece::Upper
    } else {
        Piece::Free
    }
}

/// A contact's equations under its piece (the first `d`, then in space
/// the speed's), `(|r_T|, s)` its tangent impulse's length and direction
/// ([`tangent_direction`]).
fn equations(
    piece: Piece,
    mu: f64,
    d: usize,
    r: [f64; 3],
    (t, [s1, s2]): (f64, [f64; 2]),
    speed: f64,
    u: [f64; 3],
) -> [f64; 4] {
    match piece {
        Piece::Open => [r[0], r[1], r[2], speed],
        Piece::Normal => [u[0], r[1], r[2], speed],
        Piece::Edge(upper) => {
            let e = if upper { 1.0 } else { -1.0 };
            [u[0], r[1] - e * mu * r[0], 0.0, 0.0]
        }
        Piece::Slide if d == 3 => [u[0], u[1] + speed * s1, u[2] + speed * s2, t - mu * r[0]],
        // Sticking; a sliding piece in the plane is an edge (`piece_of`
        // never gives it there).
        _ => [u[0], u[1], u[2], speed],
    }
}

/// `|r_T|` and `r_T / |r_T|`; without a tangent impulse (a contact that
/// enters sliding with none) `fallback`, against its velocity when it
/// entered (else the first tangent), which Newton's steps then turn: a
/// zero direction left the speed's column empty and the Jacobian
/// singular (18 of the 64-box pile's 105 unsolved islands solved against
/// 23).
fn tangent_direction(r: [f64; 3], fallback: [f64; 2]) -> (f64, [f64; 2]) {
    let t = length(r[1], r[2]);
    if t > 0.0 {
        (t, [r[1] / t, r[2] / t])
    } else {
        (0.0, fallback)
    }
}

/// A contact's equations' linearisation: per row, its weights on the
/// contact's `J` rows (normal, tangents), and its block in the contact's
/// slots (with `eps` on the rows that hold a velocity, along the
/// impulse's directions those rows leave free); `(|r_T|, s)` as in
/// [`equations`].
fn linearisation(
    piece: Piece,
    mu: f64,
    d: usize,
    eps: f64,
    (t, [s1, s2]): (f64, [f64; 2]),
    speed: f64,
) -> ([[f64; 3]; 4], [[f64; 4]; 4]) {
    let mut weights = [[0.0; 3]; 4];
    let mut block = [[0.0; 4]; 4];
    // The speed is zero but where sliding.
    block[3][3] = 1.0;
    match piece {
        Piece::Open => {
            for (a, row) in block.iter_mut().enumerate().take(3) {
                row[a] = 1.0;
            }
        }
        Piece::Slide if d == 3 => {
            weights[0][0] = 1.0;
            block[0][0] = eps;
            // `d s / d r_T = (I - s s^T) / |r_T|`; the proximal term acts
            // across the tangent impulse, which the speed leaves free at
            // the verge.
            let across = [[1.0 - s1 * s1, -s1 * s2], [-s2 * s1, 1.0 - s2 * s2]];
            let gain = if t > 0.0 { speed / t } else { 0.0 } + eps;
            for a in 0..2 {
                weights[a + 1][a + 1] = 1.0;
                for b in 0..2 {
                    block[a + 1][b + 1] = gain * across[a][b];
                }
            }
            block[1][3] = s1;
            block[2][3] = s2;
            block[3] = [-mu, s1, s2, 0.0];
        }
        Piece::Normal | Piece::Edge(_) => {
            weights[0][0] = 1.0;
            block[0][0] = eps;
            block[1][1] = 1.0;
            block[2][2] = 1.0;
            if let Piece::Edge(upper) = piece {
                block[1][0] = if upper { -mu } else { mu };
            }
        }
        _ => {
            for a in 0..3 {
                weights[a][a] = 1.0;
                block[a][a] = eps;
            }
        }
    }
    (weights, block)
}

/// Where an impulse `r + t dr` inside the cone `|r_T| <= mu r_N` (to
/// within `slack`) first leaves it for `t > 0`, and the piece it enters
/// (sliding through the surface, open through the apex).
fn leaves_cone(mu: f64, r: [f64; 3], dr: [f64; 3], slack: f64) -> Option<(f64, Piece)> {
    let apex = (dr[0] < 0.0 && r[0] >= -slack).then(|| -r[0].max(0.0) / dr[0]);
    let tangent = length(r[1], r[2]);
    if mu == 0.0 || tangent > mu * r[0] + slack {
        return apex.map(|t| (t, Piece::Open));
    }
    // |r_T + t dr_T|^2 - mu^2 (r_N + t dr_N)^2 = a t^2 + b t + c, c <= 0.
    let a = dr[1] * dr[1] + dr[2] * dr[2] - mu * mu * dr[0] * dr[0];
    let b = 2.0 * (r[1] * dr[1] + r[2] * dr[2] - mu * mu * r[0] * dr[0]);
    let c = (tangent * tangent - mu * mu * r[0] * r[0]).min(0.0);
    let surface = if a == 0.0 {
        (b > 0.0).then(|| -c / b)
    } else {
        let disc = b * b - 4.0 * a * c;
        if disc < 0.0 {
            None
        } else {
            // Roots without cancellation.
            let q = -0.5 * (b + b.signum() * disc.sqrt());
            let (t1, t2) = if q == 0.0 {
                (0.0, 0.0)
            } else {
                let (x, y) = (q / a, c / q);
                (x.min(y), x.max(y))
            };
            if a > 0.0 {
                Some(t2.max(0.0))
            } else if t1 >= 0.0 {
                Some(t1)
            } else {
                None
            }
        }
    };
    match (surface, apex) {
        (Some(s), Some(t)) if t <= s => Some((t, Piece::Open)),
        (Some(s), _) if r[0] + s * dr[0] >= 0.0 => Some((s, Piece::Slide)),
        (_, Some(t)) => Some((t, Piece::Open)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primal::momentum::MassView;
    use crate::primal::parse_island;

    #[test]
    fn an_impulse_leaves_the_cone_where_its_tangent_reaches_mu_times_its_normal() {
        // r = (1, 0.3, 0) moving by (0, 0.5, 0): |r_T| = 0.6 r_N at t = 0.6.
        let (t, piece) = leaves_cone(0.6, [1.0, 0.3, 0.0], [0.0, 0.5, 0.0], 0.0).unwrap();
        assert!((t - 0.6).abs() <= 1e-15, "{t}");
        assert_eq!(piece, Piece::Slide);
        // Unloading along the axis, it leaves through the apex at t = 2.
        let (t, piece) = leaves_cone(0.6, [1.0, 0.0, 0.0], [-0.5, 0.0, 0.0], 0.0).unwrap();
        assert_eq!((t, piece), (2.0, Piece::Open));
        // Moving inwards it never leaves.
        assert_eq!(
            leaves_cone(0.6, [1.0, 0.3, 0.0], [1.0, 0.0, 0.0], 0.0),
            None
        );
        // Diagonally across: `(0.3 + t)^2 + t^2 = 0.36`, `2 t^2 + 0.6 t - 0.27 = 0`.
        let (t, _) = leaves_cone(0.6, [1.0, 0.3, 0.0], [0.0, 1.0, 1.0], 0.0).unwrap();
        let exact = (-0.3 + 0.63f64.sqrt()) / 2.0;
        assert!((t - exact).abs() <= 1e-15, "{t} against {exact}");
    }

    #[test]
    fn the_pieces_jacobian_is_the_derivative_of_their_equations() {
        let text = include_str!("../../tests/data/two_boxes_at_the_verge_of_sliding.txt");
        let problem = parse_island(text).unwrap().problem;
        let (n, d, k) = (problem.force.len(), 3, problem.mu.len());
        // `M` is diagonal here: every stored entry counts once.
        let places = vec![0; problem.mass.nnz()];
        let mut diagonal = vec![0.0; n];
        for (&value, (r, c)) in problem.mass.iter() {
            assert_eq!(r, c);
            diagonal[r] = value;
        }
        let free = vec![1.0; d * k];
        let given = IslandView {
            problem: &problem,
            mass: MassView {
                mass: &problem.mass,
                places: &places,
                dense: None,
            },
            diagonal: &diagonal,
            free: &free,
        };
        let mut polish = Polish::build(&problem);
        let rho = vec![1.0; k];
        // Every piece a contact can take, at a point off the answer.
        let pieces = [
            Piece::Slide,
            Piece::Stick,
            Piece::Open,
            Piece::Normal,
            Piece::Slide,
            Piece::Stick,
            Piece::Slide,
        ];
        polish.pieces.copy_from_slice(&pieces);
        let size = polish.x.len();
        for (j, x) in polish.x.iter_mut().enumerate() {
            *x = 0.1 + 0.01 * (j as f64).sin();
        }
        let x0 = polish.x.clone();
        polish.residual(&given, true, &rho);
        // The proximal terms are in the Jacobian only: take them out.
        let eps = EPS;
        let h = 1e-6;
        for j in 0..size {
            let mut f = [vec![0.0; size], vec![0.0; size]];
            for (side, sign) in [(0, 1.0), (1, -1.0)] {
                polish.x.copy_from_slice(&x0);
                polish.x[j] += sign * h;
                polish.residual(&given, false, &rho);
                f[side].copy_from_slice(&polish.f);
            }
            polish.x.copy_from_slice(&x0);
            for row in 0..size {
                let numeric = (f[0][row] - f[1][row]) / (2.0 * h);
                let at = (polish.col_ptr[j]..polish.col_ptr[j + 1])
                    .find(|&p| polish.row_idx[p] == row)
                    .map_or(0.0, |p| polish.values[p]);
                assert!(
                    (numeric - at).abs() <= 1e-7 + 2.0 * eps,
                    "({row}, {j}): {at} against {numeric}"
                );
            }
        }
    }
}
