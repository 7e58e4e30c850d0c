//! The Coulomb contact problem at one instant, as it is: every frictional
//! contact open, sliding, or (at zero tangential velocity) sticking or
//! starting to slip.
//!
//! # The problem
//!
//! The equality rows that are always held (every equality row except the
//! normals of bilateral friction entries and the tangent rows of sticking
//! entries) are eliminated first: one sparse solve with the instant's
//! equality system per contact row gives the contact-space operator
//! `W = A_c M_E^-1 A_c^T`, the coupling to the sliding tangents
//! `V = A_c M_E^-1 J_t^T` and the free contact acceleration `w0`
//! (`M_E^-1` is the inverse mass of the system the held rows leave free;
//! `space.rs` builds them, for the checker too). In that space each contact
//! is one of:
//!
//! | contact | modes | conditions |
//! |---|---|---|
//! | unilateral row (frictionless, or the normal of a friction entry) | closed / open | closed: `w = 0`, `lambda >= 0`; open: `lambda = 0`, `w >= 0` |
//! | bilateral normal of a friction entry | force sign `+` / `-` | `w = 0`; friction goes with `|lambda_n|` |
//! | sticking entry (tangent row `t`, zero tangential velocity) | stick / slip `+` / slip `-` | stick: `w_t = 0`, `|lambda_t| <= mu lambda_n`; slip `d`: `lambda_t = -mu d lambda_n`, `d w_t >= 0` |
//!
//! and every sliding entry adds `-J_t mu s |lambda_n|` through its normal.
//! For fixed modes the conditions are one square linear system (not
//! symmetric: friction puts `-V mu s` on the normal columns).
//!
//! # The method
//!
//! The instant is first split into independent parts (no entry of `M`, no
//! row and no friction entry links them), so the cost grows with the size
//! of the coupled groups, not with the number of contacts. In a part:
//!
//! - **the active set** first: from every contact closed and sticking, the
//!   modes whose conditions fail are switched (all at once, then the worst
//!   alone) until one combination holds: a few linear systems. Its answer
//!   stands alone on a part too large to enumerate ([`Answers::Found`]),
//!   and on a part whose motion is shown unique without enumerating
//!   ([`Answers::One`]: every row unilateral, the symmetric part of the
//!   contact matrix positive semi-definite and its null space moving
//!   nothing, which redundant contacts such as a plate on twelve points
//!   pass and Painleve's rod fails); [`Variational::paths`] counts which
//!   method solved each part;
//! - **enumeration** otherwise, when it has at most [`MAX_ENUMERATED_MODES`] mode
//!   combinations: every combination is solved and checked, so the answer
//!   is exact, and the number of distinct motions found says whether it is
//!   unique, absent (Painleve inconsistent) or several (Painleve
//!   indeterminate);
//! - **Lemke's method** beyond, on the standard LCP form of planar
//!   Coulomb friction (`lambda_t = beta+ - beta-` with the slack `gamma`),
//!   bilateral normals eliminated and their force signs iterated: exact and
//!   unique when the contact matrix is a P-matrix, no uniqueness test
//!   otherwise;
//! - parts without friction go to the QP ([`zwang_qp::AutoBackend`]), all
//!   together.

use crate::linalg::{solve_rows, solve_square};
use crate::space::{refactor, Held, HeldFactors, Operators};
use crate::split::{is_whole, merge, parts, Cutter, Part};
use faer::Mat;
use std::mem::take;
use zwang_contact::lemke::{lemke, Lcp};
use zwang_contact::Mode;
use zwang_instant::dense::{semidefinite_null_space, LuScratch};
use zwang_instant::{
    matrix_from_triplets, Instant, InstantBuilder, MassFactor, RowRef, RowSet, ValueRecord,
};
use zwang_qp::{AutoBackend, Backend, Residuals, Solution, Status};

/// Parts with at most this many mode combinations (`2` per unilateral row
/// and per bilateral friction normal, `3` per sticking entry) are solved by
/// enumeration; larger ones by Lemke's method.
pub const MAX_ENUMERATED_MODES: usize = 4096;

/// Relative tolerance on the sign conditions (forces against the part's
/// force scale, accelerations against its acceleration scale).
const TOL: f64 = 1e-9;

/// Relative residual above which a mode's linear system is inconsistent.
const CONSISTENCY_TOL: f64 = 1e-8;

/// Least number of mode switches the active-set iteration may take before
/// it gives up (it may take twice the part's rows).
const ACTIVE_SET_ROUNDS: usize = 16;

/// Relative size below which a pivot of `G`'s symmetric part counts as
/// zero (the redundant contacts' null space), and above which an entry
/// left after the kept pivots makes `G` indefinite.
const NULL_TOL: f64 = 1e-10;

/// How many distinct motions the contact problem has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answers {
    /// Exactly one (every mode combination was tried).
    One,
    /// None: with friction the contacts admit no acceleration (a Painleve
    /// inconsistent case when the frictionless problem has one), or the
    /// rows themselves are inconsistent.
    None,
    /// Several (Painleve indeterminate); the reported one keeps the most
    /// contacts closed.
    Several,
    /// Lemke's method found one; uniqueness was not tested (a part too
    /// large to enumerate).
    Found,
    /// Lemke's method ended on a ray (a part too large to enumerate, whose
    /// contact matrix is not a P-matrix): an answer may still exist, so
    /// this is not a Painleve verdict; the status is `not_converged`.
    NotFound,
}

impl Answers {
    /// The spelling of the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Answers::One => "one",
            Answers::None => "none",
            Answers::Several => "several",
            Answers::Found => "found",
            Answers::NotFound => "not_found",
        }
    }
}

/// The Coulomb contact problem's answer.
#[derive(Debug, PartialEq)]
pub struct Variational {
    /// Backend `"variational"`. The multipliers follow the engine's convention;
    /// the multiplier of a sticking entry's tangent row is its tangential
    /// force also when it slips (`-mu d lambda_n`), so that
    /// `M a = Q + A^T lambda + (sliding friction)` holds. The residuals and
    /// the compulsion are those of the effective instant: sliding friction
    /// counted as an applied force, the tangent rows of slipping entries
    /// dropped. `Infeasible` when no answer exists (see [`Answers`]).
    pub solution: Solution,
    /// The mode of each friction entry, then of each sticking entry
    /// (`Slide` for a sticking entry that must start to slip).
    pub modes: Vec<Mode>,
    /// The normal force of each friction entry, then of each sticking entry.
    pub normal_forces: Vec<f64>,
    /// The tangential force of each sticking entry (its tangent row's
    /// multiplier).
    pub tangential_forces: Vec<f64>,
    /// The generalized friction force of the sliding (friction) entries,
    /// `-sum_i J_t,i^T mu_i s_i |lambda_n,i|`.
    pub friction_force: Vec<f64>,
    /// The worst count of answers over the parts with friction.
    pub answers: Answers,
    /// Whether every part with no answer has one without friction (so the
    /// missing answer is friction's doing: Painleve, not inconsistent rows).
    pub frictionless_feasible: bool,
    /// Largest part solved by Lemke's method (0 when all were enumerated).
    pub lemke_size: usize,
    /// How many parts with friction each method solved.
    pub paths: Paths,
}

impl Clone for Variational {
    fn clone(&self) -> Self {
        let mut copy = Variational::default();
        copy.clone_from(self);
        copy
    }

    /// Field by field, into the buffers `self` has: a stepper's copy
    /// allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        self.solution.clone_from(&source.solution);
        self.modes.clone_from(&source.modes);
        self.normal_forces.clone_from(&source.normal_forces);
        self.tangential_forces.clone_from(&source.tangential_forces);
        self.friction_force.clone_from(&source.friction_force);
        self.answers = source.answers;
        self.frictionless_feasible = source.frictionless_feasible;
        self.lemke_size = source.lemke_size;
        self.paths = source.paths;
    }
}

impl Default for Variational {
    /// An empty answer, for [`VariationalSolver::solve_into`] to fill.
    fn default() -> Self {
        Variational {
            solution: Solution::empty(),
            modes: Vec::new(),
            normal_forces: Vec::new(),
            tangential_forces: Vec::new(),
            friction_force: Vec::new(),
            answers: Answers::One,
            frictionless_feasible: true,
            lemke_size: 0,
            paths: Paths::default(),
        }
    }
}

/// How many parts with friction each method solved: the share of the fast
/// path is what the sweeps report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paths {
    /// By the active-set iteration (with the motion shown unique, or on a
    /// part too large to enumerate).
    pub active_set: usize,
    /// By enumerating every mode combination.
    pub enumerated: usize,
    /// By Lemke's method.
    pub lemke: usize,
}

/// One method of [`Paths`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    ActiveSet,
    Enumerated,
    Lemke,
}

impl Paths {
    fn count(&mut self, path: Path) {
        match path {
            Path::ActiveSet => self.active_set += 1,
            Path::Enumerated => self.enumerated += 1,
            Path::Lemke => self.lemke += 1,
        }
    }

    fn add(&mut self, other: Paths) {
        self.active_set += other.active_set;
        self.enumerated += other.enumerated;
        self.lemke += other.lemke;
    }
}

/// The Newton (variational) answer: the Coulomb contact problem of
/// `instant` solved as it is (see the module docs). An instant without
/// friction or sticking entries gets the plain QP's answer.
pub fn variational(instant: &Instant) -> Variational {
    variational_with(instant, &ContactSettings::default())
}

/// Settings of the contact problem: a plain struct with documented
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContactSettings {
    /// Parts with at most this many mode combinations are enumerated
    /// (exact, with the count of answers); larger ones go to Lemke's
    /// method. Default [`MAX_ENUMERATED_MODES`]; `0` sends every part with
    /// friction to Lemke.
    pub max_enumerated_modes: usize,
    /// Try the active-set iteration first (default `true`): a part it
    /// solves needs no enumeration when its motion is shown unique
    /// ([`Answers::One`]) or when it is too large to enumerate
    /// ([`Answers::Found`]). `false` keeps enumeration and Lemke's method
    /// alone (the reference the fast path is tested against).
    pub active_set: bool,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            max_enumerated_modes: MAX_ENUMERATED_MODES,
            active_set: true,
        }
    }
}

/// [`variational`] with explicit settings.
pub fn variational_with(instant: &Instant, settings: &ContactSettings) -> Variational {
    VariationalSolver::with_settings(*settings).run(instant, None)
}

/// [`variational`] for a stepper, which solves instants of one structure
/// again and again: the independent parts and their cuts (sub-instants)
/// are kept between calls and take the new values in place, so that each
/// call cuts nothing while the structure ([`Instant::structure_id`]) stays.
/// Same answers as [`variational_with`].
#[derive(Debug, Default)]
pub struct VariationalSolver {
    settings: ContactSettings,
    /// The structure stamp and the mass values stamp the cuts are for.
    structure: Option<u64>,
    mass_values: u64,
    cutter: Cutter,
    effective: Effective,
    scratch: Scratch,
    /// The parts without friction, merged into one, and their QP solver
    /// and answer (kept: a warm solve allocates nothing).
    plain: Option<Cut>,
    plain_backend: AutoBackend,
    plain_solution: Solution,
    frictional: Vec<Cut>,
    /// The whole instant's answer while the parts are gathered into it.
    whole: PartAnswer,
    /// The values of the last instant of [`VariationalSolver::solve_into`]
    /// and its answer: the same values get the same answer, copied.
    record: ValueRecord,
    last: Option<Variational>,
}

/// One part, its cut, and the factor of its `M` (kept: refactoring it in
/// place allocates nothing, and costs nothing while `M` stays).
#[derive(Debug)]
struct Cut {
    part: Part,
    sub: CutState,
    /// The factor of its `M` and its held system.
    kept: HeldFactors,
    /// The part's last answer (its buffers written in place).
    answer: PartAnswer,
}

#[derive(Debug)]
enum CutState {
    /// The part is the whole instant: nothing to cut.
    Whole,
    /// (Boxed: an instant is large, and most cuts are small parts.)
    Sub(Box<Instant>),
    /// The cut failed (or was not made yet).
    Failed,
}

impl Cut {
    /// Brings the cut up to `instant`'s values: in place when it can,
    /// else cut again. `mass`: whether `M` changed since the last call.
    fn update(&mut self, cutter: &mut Cutter, instant: &Instant, mass: bool) {
        if is_whole(instant, &self.part) {
            self.sub = CutState::Whole;
            return;
        }
        if let CutState::Sub(sub) = &mut self.sub {
            // New values of `M` must stay positive definite, as `build`
            // checks.
            if cutter.refresh(instant, &self.part, sub, mass)
                && (!mass || refactor(&mut self.kept.mass, sub).is_ok())
            {
                return;
            }
        }
        self.sub = match cutter.cut(instant, &self.part) {
            Ok(sub) => CutState::Sub(Box::new(sub)),
            Err(_) => CutState::Failed,
        };
    }
}

impl CutState {
    /// The instant to solve for the part (`None`: the cut failed).
    fn instant<'a>(&'a self, whole: &'a Instant) -> Option<&'a Instant> {
        match self {
            CutState::Whole => Some(whole),
            CutState::Sub(sub) => Some(sub),
            CutState::Failed => None,
        }
    }
}

impl VariationalSolver {
    /// With the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// With explicit settings.
    pub fn with_settings(settings: ContactSettings) -> Self {
        VariationalSolver {
            settings,
            ..Self::default()
        }
    }

    /// The Newton (variational) answer of `instant`, as [`variational_with`].
    pub fn solve(&mut self, instant: &Instant) -> Variational {
        self.run(instant, None)
    }

    /// [`VariationalSolver::solve`] into `out`, whose buffers are reused:
    /// in the steady state of a stepper (same structure, same modes) the
    /// call allocates nothing. An instant whose values are bit for bit
    /// those of the last call gets the last answer, copied (a body sliding
    /// or resting on flat ground, at every stage of a Runge-Kutta step).
    pub fn solve_into(&mut self, instant: &Instant, out: &mut Variational) {
        let same = self.record.record(instant);
        if let (true, Some(last)) = (same, &self.last) {
            out.clone_from(last);
            return;
        }
        self.run_into(instant, None, out);
        self.last
            .get_or_insert_with(Variational::default)
            .clone_from(out);
    }

    /// Splits `instant` into parts when its structure is new, and brings
    /// every part's cut up to its values.
    fn prepare(&mut self, instant: &Instant) {
        let same = self.structure == Some(instant.structure_id());
        if !same {
            let all = parts(instant);
            let (frictional, plain): (Vec<&Part>, Vec<&Part>) =
                all.iter().partition(|p| p.has_friction());
            let cut = |part: Part| Cut {
                part,
                sub: CutState::Failed,
                kept: HeldFactors::default(),
                answer: PartAnswer::default(),
            };
            self.plain = (!plain.is_empty()).then(|| cut(merge(&plain)));
            self.frictional = frictional.into_iter().cloned().map(cut).collect();
            self.structure = Some(instant.structure_id());
        }
        let mass = !same || self.mass_values != instant.mass_values_id();
        self.mass_values = instant.mass_values_id();
        for cut in self.plain.iter_mut().chain(&mut self.frictional) {
            cut.update(&mut self.cutter, instant, mass);
        }
    }

    /// The answer, and (when asked) the outcome of every part with
    /// friction.
    fn run(&mut self, instant: &Instant, outcomes: Option<&mut Vec<PartOutcome>>) -> Variational {
        let mut out = Variational::default();
        self.run_into(instant, outcomes, &mut out);
        out
    }

    /// [`VariationalSolver::run`] into `answer`.
    fn run_into(
        &mut self,
        instant: &Instant,
        mut outcomes: Option<&mut Vec<PartOutcome>>,
        answer: &mut Variational,
    ) {
        self.prepare(instant);
        let out = &mut self.whole;
        out.reset(instant, Status::Solved, Answers::One, true, 0, 0);
        if let Some(cut) = &self.plain {
            match cut.sub.instant(instant) {
                Some(sub) => {
                    self.plain_backend.solve_into(sub, &mut self.plain_solution);
                    out.scatter_plain(&cut.part, &self.plain_solution);
                }
                None => out.worsen(Status::NumericalError),
            }
        }
        for cut in &mut self.frictional {
            let Some(sub) = cut.sub.instant(instant) else {
                out.worsen(Status::NumericalError);
                continue;
            };
            let solved = &mut cut.answer;
            solve_part(
                sub,
                &self.settings,
                &mut cut.kept,
                &mut self.scratch,
                solved,
            );
            out.scatter_part(&cut.part, solved);
            if let Some(outcomes) = outcomes.as_deref_mut() {
                outcomes.push(PartOutcome {
                    part: cut.part.clone(),
                    sub: match &cut.sub {
                        CutState::Sub(sub) => Some(sub.as_ref().clone()),
                        _ => None,
                    },
                    answers: solved.answers,
                    frictionless_feasible: solved.frictionless_feasible,
                });
            }
        }
        out.finish(instant, &mut self.effective, answer);
    }
}

/// What [`solve_parts`] learned about one part with friction.
pub(crate) struct PartOutcome {
    pub part: Part,
    /// The part as an instant (`None` when it is the whole instant).
    pub sub: Option<Instant>,
    pub answers: Answers,
    pub frictionless_feasible: bool,
}

/// [`variational`], with the outcome of every part that has friction.
pub(crate) fn solve_parts(
    instant: &Instant,
    settings: &ContactSettings,
) -> (Variational, Vec<PartOutcome>) {
    let mut outcomes = Vec::new();
    let solved = VariationalSolver::with_settings(*settings).run(instant, Some(&mut outcomes));
    (solved, outcomes)
}

/// The answer of a part in its local indices, or of the whole instant
/// while the parts are gathered into it.
#[derive(Debug)]
struct PartAnswer {
    status: Status,
    answers: Answers,
    frictionless_feasible: bool,
    lemke_size: usize,
    paths: Paths,
    a: Vec<f64>,
    l_eq: Vec<f64>,
    l_in: Vec<f64>,
    modes: Vec<Mode>,
    normal_forces: Vec<f64>,
    tangential_forces: Vec<f64>,
    /// `mu s |lambda_n|` per sliding entry (the friction magnitude times slip).
    sliding_friction: Vec<f64>,
    /// `-sum_i J_t,i mu_i s_i |lambda_n,i|`, length `n` (local).
    friction_force: Vec<f64>,
    slipping: Vec<bool>,
    iterations: usize,
}

fn severity(s: Status) -> u8 {
    match s {
        Status::Solved => 0,
        Status::NotConverged => 1,
        Status::Infeasible => 2,
        Status::Unbounded => 3,
        _ => 4,
    }
}

/// `v` as `n` copies of `x`, in its own buffer.
fn fill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

impl Default for PartAnswer {
    fn default() -> Self {
        PartAnswer {
            status: Status::Solved,
            answers: Answers::One,
            frictionless_feasible: true,
            lemke_size: 0,
            paths: Paths::default(),
            a: Vec::new(),
            l_eq: Vec::new(),
            l_in: Vec::new(),
            modes: Vec::new(),
            normal_forces: Vec::new(),
            tangential_forces: Vec::new(),
            sliding_friction: Vec::new(),
            friction_force: Vec::new(),
            slipping: Vec::new(),
            iterations: 0,
        }
    }
}

impl PartAnswer {
    /// Zero forces and accelerations shaped for `instant`, in the buffers
    /// already held.
    fn reset(
        &mut self,
        instant: &Instant,
        status: Status,
        answers: Answers,
        frictionless_feasible: bool,
        lemke_size: usize,
        iterations: usize,
    ) {
        let n = instant.dim();
        let (k_slide, k_stick) = (instant.sliding().len(), instant.sticking().len());
        (self.status, self.answers) = (status, answers);
        self.frictionless_feasible = frictionless_feasible;
        self.lemke_size = lemke_size;
        self.paths = Paths::default();
        self.iterations = iterations;
        fill(&mut self.a, n, 0.0);
        fill(&mut self.l_eq, instant.equalities().len(), 0.0);
        fill(&mut self.l_in, instant.inequalities().len(), 0.0);
        fill(&mut self.modes, k_slide + k_stick, Mode::Slide);
        fill(&mut self.normal_forces, k_slide + k_stick, 0.0);
        fill(&mut self.tangential_forces, k_stick, 0.0);
        fill(&mut self.sliding_friction, k_slide, 0.0);
        fill(&mut self.friction_force, n, 0.0);
        fill(&mut self.slipping, k_stick, false);
    }

    fn worsen(&mut self, s: Status) {
        if severity(s) > severity(self.status) {
            self.status = s;
        }
    }

    fn scatter_plain(&mut self, part: &Part, s: &Solution) {
        self.worsen(s.status);
        self.iterations += s.iterations;
        for (k, &j) in part.coords.iter().enumerate() {
            self.a[j] = s.acceleration.get(k).copied().unwrap_or(0.0);
        }
        for (k, &r) in part.eq_rows.iter().enumerate() {
            self.l_eq[r] = s.multipliers_eq.get(k).copied().unwrap_or(0.0);
        }
        for (k, &r) in part.in_rows.iter().enumerate() {
            self.l_in[r] = s.multipliers_in.get(k).copied().unwrap_or(0.0);
        }
    }

    fn scatter_part(&mut self, part: &Part, p: &PartAnswer) {
        self.worsen(p.status);
        self.iterations += p.iterations;
        self.answers = match (self.answers, p.answers) {
            (Answers::None, _) | (_, Answers::None) => Answers::None,
            (Answers::Several, _) | (_, Answers::Several) => Answers::Several,
            (Answers::NotFound, _) | (_, Answers::NotFound) => Answers::NotFound,
            (Answers::Found, _) | (_, Answers::Found) => Answers::Found,
            _ => Answers::One,
        };
        self.frictionless_feasible &= p.frictionless_feasible;
        self.lemke_size = self.lemke_size.max(p.lemke_size);
        self.paths.add(p.paths);
        for (k, &j) in part.coords.iter().enumerate() {
            self.a[j] = p.a[k];
            self.friction_force[j] = p.friction_force[k];
        }
        for (k, &r) in part.eq_rows.iter().enumerate() {
            self.l_eq[r] = p.l_eq[k];
        }
        for (k, &r) in part.in_rows.iter().enumerate() {
            self.l_in[r] = p.l_in[k];
        }
        let k_slide = self.sliding_friction.len();
        for (k, &i) in part.sliding.iter().enumerate() {
            self.modes[i] = p.modes[k];
            self.normal_forces[i] = p.normal_forces[k];
            self.sliding_friction[i] = p.sliding_friction[k];
        }
        let s0 = part.sliding.len();
        for (k, &i) in part.sticking.iter().enumerate() {
            self.modes[k_slide + i] = p.modes[s0 + k];
            self.normal_forces[k_slide + i] = p.normal_forces[s0 + k];
            self.tangential_forces[i] = p.tangential_forces[k];
            self.slipping[i] = p.slipping[k];
        }
    }

    /// The whole instant's answer, copied into `out`'s buffers.
    fn finish(&self, instant: &Instant, effective: &mut Effective, out: &mut Variational) {
        let (residuals, compulsion) = effective_residuals(
            instant,
            effective,
            &self.friction_force,
            &self.slipping,
            &self.a,
            &self.l_eq,
            &self.l_in,
        );
        let solution = &mut out.solution;
        solution.status = self.status;
        solution.acceleration.clone_from(&self.a);
        solution.multipliers_eq.clone_from(&self.l_eq);
        solution.multipliers_in.clone_from(&self.l_in);
        solution.compulsion = compulsion;
        solution.backend = "variational";
        solution.iterations = self.iterations;
        solution.residuals = residuals;
        out.modes.clone_from(&self.modes);
        out.normal_forces.clone_from(&self.normal_forces);
        out.tangential_forces.clone_from(&self.tangential_forces);
        out.friction_force.clone_from(&self.friction_force);
        out.answers = self.answers;
        out.frictionless_feasible = self.frictionless_feasible;
        out.lemke_size = self.lemke_size;
        out.paths = self.paths;
    }
}

/// Residuals and compulsion of the effective instant: `Q` plus the sliding
/// friction, and the tangent rows of slipping sticking entries emptied
/// (their multiplier, the tangential force, moved into the force).
fn effective_residuals(
    instant: &Instant,
    kept: &mut Effective,
    friction: &[f64],
    slipping: &[bool],
    a: &[f64],
    l_eq: &[f64],
    l_in: &[f64],
) -> (Residuals, f64) {
    let mut force = take(&mut kept.force);
    force.clear();
    force.extend(instant.force().iter().zip(friction).map(|(q, f)| q + f));
    let mut dropped = take(&mut kept.dropped);
    fill(&mut dropped, l_eq.len(), false);
    for (c, &slip) in instant.sticking().iter().zip(slipping) {
        if slip {
            dropped[c.tangent_row] = true;
            instant
                .equalities()
                .matrix()
                .outer_view(c.tangent_row)
                .into_iter()
                .for_each(|row| {
                    for (j, &v) in row.iter() {
                        force[j] += v * l_eq[c.tangent_row];
                    }
                });
        }
    }
    let built;
    let effective = if !dropped.iter().any(|&d| d) && kept.refresh(instant, &force) {
        kept.instant.as_ref()
    } else {
        built = without_rows(instant, &dropped, force.clone());
        built.as_ref()
    };
    kept.force = force;
    let Some(effective) = effective else {
        let nan = Residuals {
            stationarity: f64::NAN,
            equalities: f64::NAN,
            inequalities: f64::NAN,
            complementarity: f64::NAN,
        };
        kept.dropped = dropped;
        return (nan, f64::NAN);
    };
    let mut l_eq_eff = take(&mut kept.l_eq);
    l_eq_eff.clear();
    l_eq_eff.extend(
        l_eq.iter()
            .zip(&dropped)
            .map(|(&l, &d)| if d { 0.0 } else { l }),
    );
    kept.dropped = dropped;
    // `Residuals::evaluate`'s free acceleration and the compulsion, with
    // the kept factor of `M` (a factor that fails solves to NaN, as a
    // fresh one's error does there).
    let factor = &mut kept.mass;
    let _ = refactor(factor, effective);
    let factor = factor.as_mut().expect("made by refactor");
    let free = &mut kept.free;
    free.clear();
    free.extend_from_slice(effective.force());
    factor.solve_in_place(free);
    let (residuals, _) =
        Residuals::evaluate_into(effective, free, a, &l_eq_eff, l_in, &mut kept.scratch);
    kept.l_eq = l_eq_eff;
    let compulsion = effective.compulsion_into(factor, a, &mut kept.scratch, &mut kept.free);
    (residuals, compulsion)
}

/// The effective instant of a solver's last call when it drops no row
/// (its values written in place while the structure stays), and the
/// factor of `M`: the residuals of every call cost no copy and no
/// factorization.
#[derive(Debug, Default)]
struct Effective {
    /// The structure and mass values stamps of the instant it was made from.
    source: Option<(u64, u64)>,
    instant: Option<Instant>,
    mass: Option<MassFactor>,
    /// Buffers of [`effective_residuals`].
    force: Vec<f64>,
    dropped: Vec<bool>,
    l_eq: Vec<f64>,
    free: Vec<f64>,
    scratch: Vec<f64>,
}

impl Effective {
    /// Makes the effective instant `instant` with force `force` and no
    /// row dropped, in place when it can; `false` when it cannot (then it
    /// is built afresh, as before).
    fn refresh(&mut self, instant: &Instant, force: &[f64]) -> bool {
        let stamps = (instant.structure_id(), instant.mass_values_id());
        let written = match (&mut self.instant, self.source) {
            (Some(e), Some((structure, mass))) if structure == stamps.0 => {
                (mass == stamps.1 || e.set_mass_values(instant.mass().data()).is_ok())
                    && [RowSet::Equalities, RowSet::Inequalities]
                        .iter()
                        .all(|&set| {
                            let rows = instant.rows(set);
                            e.set_row_values(set, rows.matrix().data()).is_ok()
                                && e.set_rhs(set, rows.rhs()).is_ok()
                        })
                    && e.set_force(force).is_ok()
            }
            _ => false,
        };
        if !written {
            self.source = None;
            self.instant = without_rows(instant, &[], force.to_vec());
            if self.instant.is_some() {
                self.source = Some(stamps);
            }
            return self.instant.is_some();
        }
        self.source = Some(stamps);
        true
    }
}

/// The instant with force `force` and the equality rows flagged in
/// `dropped` emptied (`0 a = 0`), friction entries left out.
fn without_rows(instant: &Instant, dropped: &[bool], force: Vec<f64>) -> Option<Instant> {
    if !dropped.iter().any(|&d| d) {
        // `with_rows` leaves the friction entries (dense tangents) behind.
        return instant
            .with_rows(instant.equalities().clone(), instant.inequalities().clone())
            .with_force(force)
            .ok();
    }
    emptied_rows(instant, dropped, force)?.build().ok()
}

/// A builder for the instant with force `force`, its inequality rows, and
/// its equality rows except those flagged in `dropped`, which become empty
/// (`0 a = 0`, so that the rows keep their numbering); no friction entries.
pub(crate) fn emptied_rows(
    instant: &Instant,
    dropped: &[bool],
    force: Vec<f64>,
) -> Option<InstantBuilder> {
    let eq = instant.equalities();
    let mut t = Vec::new();
    for (i, row) in eq.matrix().outer_iterator().enumerate() {
        if !dropped[i] {
            t.extend(row.iter().map(|(j, &v)| (i, j, v)));
        }
    }
    let b: Vec<f64> = (0..eq.len())
        .map(|i| if dropped[i] { 0.0 } else { eq.rhs()[i] })
        .collect();
    let a_eq = matrix_from_triplets("equalities.A", (eq.len(), instant.dim()), t).ok()?;
    Some(
        Instant::builder(instant.mass().clone(), force)
            .equalities(a_eq, b)
            .inequalities(
                instant.inequalities().matrix().clone(),
                instant.inequalities().rhs().to_vec(),
            ),
    )
}

// ---------------------------------------------------------------------------
// One part.

/// What a contact-space row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An inequality row: open or closed.
    Unilateral,
    /// The equality normal of a friction entry: force of either sign.
    Bilateral,
    /// The tangent row of sticking entry `j`.
    Tangent(usize),
}

/// A sticking entry in contact space.
#[derive(Debug, Clone, Copy)]
struct Stick {
    normal: usize,
    tangent: usize,
    mu: f64,
}

/// The part's contact space: the operators every mode's system is read from.
struct Space<'a> {
    instant: &'a Instant,
    /// Contact-space rows and what they are.
    cs: Vec<RowRef>,
    kind: Vec<Kind>,
    /// Sliding entries: (normal cs index, mu * slip).
    sliding: Vec<(usize, f64)>,
    sticking: Vec<Stick>,
    /// The equality rows held throughout, and their solves.
    held: Held<'a>,
    /// `W = A_c M_E^-1 A_c^T`, `V = A_c M_E^-1 J_t^T`, `w0 = A_c a0 - b_c`.
    w: Mat<f64>,
    v: Mat<f64>,
    w0: Vec<f64>,
    /// Force and acceleration scales for the sign tests.
    force_scale: f64,
    acc_scale: f64,
    /// Whether the held rows are consistent.
    held_consistent: bool,
    /// Responses: `M_E^-1 A_c^T` per cs row and `M_E^-1 J_t^T` per sliding
    /// entry, and the free answer `a0`.
    y: Vec<Vec<f64>>,
    yt: Vec<Vec<f64>>,
    a0: Vec<f64>,
    /// Unused here; kept with the other buffers.
    t_diag: Vec<f64>,
}

/// Working memory of [`Space::evaluate`], kept across the combinations
/// a search tries and across the parts (by the solver): a failing
/// combination allocates nothing.
#[derive(Debug, Default)]
struct Scratch {
    eval: EvalScratch,
    /// The modes the active set tries, and its failing modes.
    closed: Vec<bool>,
    sigma: Vec<f64>,
    slip: Vec<f64>,
    failing: Vec<(usize, f64)>,
    /// The active set's candidate.
    cand: Candidate,
    /// The enumeration's consistent candidates (the first `found` of
    /// them), its digits and distinct motions.
    pool: Vec<Candidate>,
    digits: Vec<usize>,
    motions: Vec<usize>,
    /// [`Space::unique_motion`]'s matrices, null space and responses.
    g: Vec<f64>,
    sym: Vec<f64>,
    null: (Vec<usize>, Vec<f64>),
    y_eff: Vec<Vec<f64>>,
    da: Vec<f64>,
    /// The final force and the held rows' multipliers of an answer.
    total: Vec<f64>,
    l_e: Vec<f64>,
    space: SpaceBufs,
}

/// Working memory of one system of [`Space::evaluate`].
#[derive(Debug, Default)]
struct EvalScratch {
    active: Vec<usize>,
    /// Columns, system and right-hand side.
    buf: Vec<f64>,
    x: Vec<f64>,
    lu: LuScratch,
}

/// A [`Space`]'s buffers, kept between solves.
#[derive(Debug, Default)]
struct SpaceBufs {
    cs: Vec<RowRef>,
    kind: Vec<Kind>,
    cs_of_eq: Vec<usize>,
    sliding: Vec<(usize, f64)>,
    sticking: Vec<Stick>,
    held: Vec<RowRef>,
    ops: Operators,
}

/// A candidate's modes and values, borrowed: the sign tests of the many
/// failing combinations copy nothing.
struct View<'c> {
    closed: &'c [bool],
    sigma: &'c [f64],
    slip: &'c [f64],
    lambda: &'c [f64],
    wv: &'c [f64],
}

/// One consistent (or best-effort) combination of modes.
#[derive(Debug, Clone, Default)]
struct Candidate {
    /// Per cs row: closed (unilateral), or force sign (bilateral: +1/-1
    /// in `sigma`), stick/slip for tangents in `slip` (0 stick, +-1 slip).
    closed: Vec<bool>,
    sigma: Vec<f64>,
    slip: Vec<f64>,
    /// Per cs row: its force (the tangential force for a tangent row).
    lambda: Vec<f64>,
    /// Per cs row: `A_c a - b_c`.
    wv: Vec<f64>,
    /// The acceleration.
    a: Vec<f64>,
    /// The relative residual of the mode's linear system (above
    /// `CONSISTENCY_TOL` the modes admit no answer).
    residual: f64,
}

/// One part's answer, written into `ans`; `kept` is what its solves keep
/// (the factor of its `M`, its held system).
fn solve_part(
    instant: &Instant,
    settings: &ContactSettings,
    kept: &mut HeldFactors,
    ws: &mut Scratch,
    ans: &mut PartAnswer,
) {
    let mut space = Space::new(instant, kept, &mut ws.space);
    if !space.held_consistent {
        space.answer(None, Answers::None, Status::Infeasible, 0, false, ans, ws);
        space.release(&mut ws.space);
        return;
    }
    let small = matches!(space.combinations(), Some(c) if c <= settings.max_enumerated_modes);
    let fast = settings.active_set && space.active_set(ws);
    let mut lemke = None;
    let (best, answers, lemke_size, path) = match fast {
        true if !small => (Some(Best::Fast), Answers::Found, 0, Path::ActiveSet),
        true if space.unique_motion(ws) => (Some(Best::Fast), Answers::One, 0, Path::ActiveSet),
        _ if small => {
            let (best, answers) = space.enumerate(ws);
            (best.map(Best::Found), answers, 0, Path::Enumerated)
        }
        _ => {
            lemke = space.lemke();
            let answers = if lemke.is_some() {
                Answers::Found
            } else {
                Answers::NotFound
            };
            (
                lemke.as_ref().map(|_| Best::Lemke),
                answers,
                space.cs.len(),
                Path::Lemke,
            )
        }
    };
    let status = match (&best, answers) {
        (Some(_), _) => Status::Solved,
        (None, Answers::NotFound) => Status::NotConverged,
        (None, _) => Status::Infeasible,
    };
    // With no friction every sticking entry slides freely: does the part
    // have an answer then?
    let frictionless = answers != Answers::None || {
        let mut dropped = vec![false; instant.equalities().len()];
        for c in instant.sticking() {
            dropped[c.tangent_row] = true;
        }
        without_rows(instant, &dropped, instant.force().to_vec())
            .is_some_and(|plain| AutoBackend::new().solve(&plain).is_solved())
    };
    // The chosen candidate is moved out of the scratch for the answer to
    // borrow, and put back.
    let chosen = match best {
        Some(Best::Fast) => Some(take(&mut ws.cand)),
        Some(Best::Found(i)) => Some(take(&mut ws.pool[i])),
        Some(Best::Lemke) => lemke,
        None => None,
    };
    space.answer(
        chosen.as_ref(),
        answers,
        status,
        lemke_size,
        frictionless,
        ans,
        ws,
    );
    match (best, chosen) {
        (Some(Best::Fast), Some(c)) => ws.cand = c,
        (Some(Best::Found(i)), Some(c)) => ws.pool[i] = c,
        _ => {}
    }
    ans.paths.count(path);
    space.release(&mut ws.space);
}

/// Where a part's chosen candidate is.
#[derive(Debug, Clone, Copy)]
enum Best {
    /// The active set's, in the scratch.
    Fast,
    /// The enumeration's, in the scratch's pool.
    Found(usize),
    /// Lemke's.
    Lemke,
}

impl<'a> Space<'a> {
    fn new(instant: &'a Instant, kept: &'a mut HeldFactors, bufs: &mut SpaceBufs) -> Space<'a> {
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        let mut cs = take(&mut bufs.cs);
        let mut kind = take(&mut bufs.kind);
        let cs_of_eq = &mut bufs.cs_of_eq;
        cs.clear();
        kind.clear();
        cs_of_eq.clear();
        cs_of_eq.resize(m_eq, usize::MAX);
        for row in 0..m_in {
            cs.push(RowRef {
                set: RowSet::Inequalities,
                row,
            });
            kind.push(Kind::Unilateral);
        }
        let eq_normals = instant
            .sliding()
            .iter()
            .map(|c| c.normal)
            .chain(instant.sticking().iter().map(|c| c.normal))
            .filter(|r| r.set == RowSet::Equalities);
        for r in eq_normals {
            if cs_of_eq[r.row] == usize::MAX {
                cs_of_eq[r.row] = cs.len();
                cs.push(r);
                kind.push(Kind::Bilateral);
            }
        }
        let cs_index = |cs_of_eq: &[usize], r: RowRef| match r.set {
            RowSet::Inequalities => r.row,
            RowSet::Equalities => cs_of_eq[r.row],
        };
        let mut sticking = take(&mut bufs.sticking);
        sticking.clear();
        for (j, c) in instant.sticking().iter().enumerate() {
            let t = c.tangent_row;
            // A tangent row is held by its own entry; a row named twice
            // keeps the first.
            if cs_of_eq[t] == usize::MAX {
                cs_of_eq[t] = cs.len();
                cs.push(RowRef {
                    set: RowSet::Equalities,
                    row: t,
                });
                kind.push(Kind::Tangent(j));
            }
            sticking.push(Stick {
                normal: cs_index(cs_of_eq, c.normal),
                tangent: cs_of_eq[t],
                mu: c.mu,
            });
        }
        let mut sliding = take(&mut bufs.sliding);
        sliding.clear();
        sliding.extend(
            instant
                .sliding()
                .iter()
                .map(|c| (cs_index(cs_of_eq, c.normal), c.mu * c.slip)),
        );
        let mut held = take(&mut bufs.held);
        held.clear();
        held.extend(
            (0..m_eq)
                .filter(|&r| cs_of_eq[r] == usize::MAX)
                .map(|row| RowRef {
                    set: RowSet::Equalities,
                    row,
                }),
        );
        let mut held = Held::new(instant, held, kept);
        let mut ops = take(&mut bufs.ops);
        let sliding_entries = instant.sliding();
        let consistent = held.operators_into(
            &cs,
            sliding_entries.len(),
            |i| &sliding_entries[i].tangent[..],
            true,
            &mut ops,
        );
        let mut space = Space {
            instant,
            cs,
            kind,
            sliding,
            sticking,
            held,
            w: Mat::zeros(0, 0),
            v: Mat::zeros(0, 0),
            w0: Vec::new(),
            force_scale: f64::MIN_POSITIVE,
            acc_scale: f64::MIN_POSITIVE,
            held_consistent: consistent,
            y: Vec::new(),
            yt: Vec::new(),
            a0: Vec::new(),
            t_diag: Vec::new(),
        };
        space.take(ops);
        space
    }

    /// Gives the buffers back for the next solve.
    fn release(self, bufs: &mut SpaceBufs) {
        (bufs.cs, bufs.kind) = (self.cs, self.kind);
        (bufs.sliding, bufs.sticking) = (self.sliding, self.sticking);
        bufs.held = self.held.into_rows();
        bufs.ops = Operators {
            a0: self.a0,
            y: self.y,
            yt: self.yt,
            w: self.w,
            v: self.v,
            t_diag: self.t_diag,
            w0: self.w0,
        };
    }

    /// Takes the contact-space operators, and (when consistent) the force
    /// and acceleration scales of the sign tests.
    fn take(&mut self, ops: Operators) {
        let k = self.cs.len();
        (self.w, self.v, self.w0) = (ops.w, ops.v, ops.w0);
        (self.y, self.yt, self.a0, self.t_diag) = (ops.y, ops.yt, ops.a0, ops.t_diag);
        if !self.held_consistent {
            return;
        }
        let w_max = (0..k).map(|p| self.w[(p, p)]).fold(0.0f64, f64::max);
        let f_scale = (0..k)
            .filter(|&p| self.w[(p, p)] > 1e-12 * w_max)
            .map(|p| self.w0[p].abs() / self.w[(p, p)])
            .fold(0.0f64, f64::max);
        self.force_scale = f_scale.max(f64::MIN_POSITIVE);
        let w0_max = self.w0.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        self.acc_scale = w0_max.max(w_max * f_scale).max(f64::MIN_POSITIVE);
    }

    /// The number of mode combinations, `None` on overflow.
    fn combinations(&self) -> Option<usize> {
        let mut total: usize = 1;
        for (c, kind) in self.kind.iter().enumerate() {
            let f = match kind {
                Kind::Unilateral => 2,
                Kind::Bilateral if self.is_friction_normal(c) => 2,
                Kind::Bilateral => 1,
                Kind::Tangent(_) => 3,
            };
            total = total.checked_mul(f)?;
        }
        Some(total)
    }

    fn is_friction_normal(&self, c: usize) -> bool {
        self.sliding.iter().any(|&(nc, _)| nc == c) || self.sticking.iter().any(|s| s.normal == c)
    }

    /// The column of cs row `c'` in a mode's system: `W[:, c']` plus the
    /// friction that its force drives (sliding entries on it and slipping
    /// sticking entries on it).
    fn column(&self, c: usize, sigma: &[f64], slip: &[f64], out: &mut [f64]) {
        let k = self.cs.len();
        for p in 0..k {
            out[p] = self.w[(p, c)];
        }
        for (i, &(nc, mu_s)) in self.sliding.iter().enumerate() {
            if nc == c {
                for p in 0..k {
                    out[p] -= mu_s * sigma[c] * self.v[(p, i)];
                }
            }
        }
        for s in &self.sticking {
            let d = slip[s.tangent];
            if s.normal == c && d != 0.0 {
                for p in 0..k {
                    out[p] -= s.mu * d * sigma[c] * self.w[(p, s.tangent)];
                }
            }
        }
    }

    /// Solves one combination into `out`; `false` when its system is
    /// inconsistent or a condition fails (unless `force` asks for the
    /// answer regardless).
    fn evaluate(
        &self,
        closed: &[bool],
        sigma: &[f64],
        slip: &[f64],
        force: bool,
        ws: &mut EvalScratch,
        out: &mut Candidate,
    ) -> bool {
        let k = self.cs.len();
        let normal_closed = |c: usize| match self.kind[c] {
            Kind::Unilateral => closed[c],
            _ => true,
        };
        // Tangent rows whose normal is open carry nothing.
        let active = &mut ws.active;
        active.clear();
        active.extend((0..k).filter(|&c| match self.kind[c] {
            Kind::Unilateral => closed[c],
            Kind::Bilateral => true,
            Kind::Tangent(j) => normal_closed(self.sticking[j].normal) && slip[c] == 0.0,
        }));
        // One buffer: column `t` of the active rows' system is
        // `cols[t * k..][..k]`, then the system row-major, then its rhs.
        let m = active.len();
        ws.buf.clear();
        ws.buf.resize(m * k + m * m + m, 0.0);
        let (cols, rest) = ws.buf.split_at_mut(m * k);
        let (g, rhs) = rest.split_at_mut(m * m);
        for (t, &c) in active.iter().enumerate() {
            self.column(c, sigma, slip, &mut cols[t * k..(t + 1) * k]);
        }
        for (p, &c) in active.iter().enumerate() {
            for t in 0..m {
                g[p * m + t] = cols[t * k + c];
            }
            rhs[p] = -self.w0[c];
        }
        let x = &mut ws.x;
        let residual = solve_rows(g, rhs, x, &mut ws.lu);
        if !force && residual > CONSISTENCY_TOL {
            return false;
        }
        let lambda = &mut out.lambda;
        lambda.clear();
        lambda.resize(k, 0.0);
        for (t, &c) in active.iter().enumerate() {
            lambda[c] = x[t];
        }
        for s in &self.sticking {
            let d = slip[s.tangent];
            if d != 0.0 && normal_closed(s.normal) {
                lambda[s.tangent] = -s.mu * d * sigma[s.normal] * lambda[s.normal];
            }
        }
        let wv = &mut out.wv;
        wv.clear();
        wv.extend_from_slice(&self.w0);
        for t in 0..m {
            for p in 0..k {
                wv[p] += cols[t * k + p] * x[t];
            }
        }
        let view = View {
            closed,
            sigma,
            slip,
            lambda,
            wv,
        };
        if !force && !self.holds_view(&view) {
            return false;
        }
        out.closed.clear();
        out.closed.extend_from_slice(closed);
        out.sigma.clear();
        out.sigma.extend_from_slice(sigma);
        out.slip.clear();
        out.slip.extend_from_slice(slip);
        out.a.clear();
        out.residual = residual;
        true
    }

    /// Whether a candidate satisfies every sign and cone condition.
    fn holds(&self, c: &Candidate) -> bool {
        self.holds_view(&View {
            closed: &c.closed,
            sigma: &c.sigma,
            slip: &c.slip,
            lambda: &c.lambda,
            wv: &c.wv,
        })
    }

    /// [`Space::holds`] on borrowed modes and values.
    fn holds_view(&self, c: &View) -> bool {
        let lam_tol = TOL * self.force_scale.max(inf(c.lambda));
        let acc_tol = TOL * self.acc_scale.max(inf(c.wv));
        if c.lambda.iter().chain(c.wv).any(|x| !x.is_finite()) {
            return false;
        }
        for p in 0..self.cs.len() {
            let ok = match self.kind[p] {
                Kind::Unilateral if c.closed[p] => c.lambda[p] >= -lam_tol,
                Kind::Unilateral => c.wv[p] >= -acc_tol,
                Kind::Bilateral => {
                    c.sigma[p] * c.lambda[p] >= -lam_tol || !self.is_friction_normal(p)
                }
                Kind::Tangent(j) => {
                    let s = self.sticking[j];
                    let normal = c.lambda[s.normal] * c.sigma[s.normal];
                    if c.slip[p] == 0.0 {
                        c.lambda[p].abs() <= s.mu * normal.max(0.0) + lam_tol
                    } else {
                        c.slip[p] * c.wv[p] >= -acc_tol
                    }
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// The acceleration of a candidate: `a0 + sum_c y_c lambda_c` plus the
    /// sliding friction's response.
    fn acceleration(&self, c: &mut Candidate) {
        let mut a = take(&mut c.a);
        a.clear();
        a.extend_from_slice(&self.a0);
        for (p, y) in self.y.iter().enumerate() {
            let l = c.lambda[p];
            if l != 0.0 {
                a.iter_mut().zip(y).for_each(|(x, v)| *x += l * v);
            }
        }
        for (i, &(nc, mu_s)) in self.sliding.iter().enumerate() {
            let f = self.sliding_magnitude(c, nc, mu_s);
            if f != 0.0 {
                a.iter_mut().zip(&self.yt[i]).for_each(|(x, v)| *x -= f * v);
            }
        }
        c.a = a;
    }

    /// `mu s |lambda_n|` of a sliding entry (zero when its normal is open).
    fn sliding_magnitude(&self, c: &Candidate, nc: usize, mu_s: f64) -> f64 {
        let open = self.kind[nc] == Kind::Unilateral && !c.closed[nc];
        if open {
            0.0
        } else {
            mu_s * c.sigma[nc] * c.lambda[nc]
        }
    }

    /// Every mode combination; the distinct motions among the consistent
    /// ones, and the one to report (most rows active, then least force).
    /// The candidates found are the first of `ws.pool`; the one to report
    /// is given by its index there.
    fn enumerate(&self, ws: &mut Scratch) -> (Option<usize>, Answers) {
        let k = self.cs.len();
        let radix = |c: usize| match self.kind[c] {
            Kind::Unilateral => 2,
            Kind::Bilateral if self.is_friction_normal(c) => 2,
            Kind::Bilateral => 1,
            Kind::Tangent(_) => 3,
        };
        let Scratch {
            eval,
            closed,
            sigma,
            slip,
            pool,
            digits,
            motions,
            ..
        } = ws;
        digits.clear();
        digits.resize(k, 0);
        let mut count = 0;
        loop {
            closed.clear();
            closed.extend((0..k).map(|c| self.kind[c] != Kind::Unilateral || digits[c] == 0));
            let skip = (0..k).any(|c| match self.kind[c] {
                // An open normal makes its tangent's three modes one.
                Kind::Tangent(j) => {
                    let nrm = self.sticking[j].normal;
                    self.kind[nrm] == Kind::Unilateral && !closed[nrm] && digits[c] != 0
                }
                _ => false,
            });
            if !skip {
                sigma.clear();
                sigma.extend((0..k).map(|c| match (self.kind[c], digits[c]) {
                    (Kind::Bilateral, 1) => -1.0,
                    _ => 1.0,
                }));
                slip.clear();
                slip.extend((0..k).map(|c| match (self.kind[c], digits[c]) {
                    (Kind::Tangent(_), 1) => 1.0,
                    (Kind::Tangent(_), 2) => -1.0,
                    _ => 0.0,
                }));
                if count == pool.len() {
                    pool.push(Candidate::default());
                }
                let cand = &mut pool[count];
                if self.evaluate(closed, sigma, slip, false, eval, cand) {
                    self.acceleration(cand);
                    count += 1;
                }
            }
            // Next combination (mixed radix).
            let mut p = 0;
            while p < k {
                digits[p] += 1;
                if digits[p] < radix(p) {
                    break;
                }
                digits[p] = 0;
                p += 1;
            }
            if p == k {
                break;
            }
        }
        // Distinct motions.
        let found = &pool[..count];
        let a_scale = inf(&self.a0).max(found.iter().map(|c| inf(&c.a)).fold(0.0, f64::max));
        let same = |x: &Candidate, y: &Candidate| {
            x.a.iter()
                .zip(&y.a)
                .all(|(p, q)| (p - q).abs() <= 1e-8 * a_scale.max(f64::MIN_POSITIVE))
        };
        motions.clear();
        for i in 0..found.len() {
            if !motions.iter().any(|&m| same(&found[m], &found[i])) {
                motions.push(i);
            }
        }
        let answers = match motions.len() {
            0 => Answers::None,
            1 => Answers::One,
            _ => Answers::Several,
        };
        // Report the motion with the most closed contacts (for several
        // motions: the one the contacts keep, as the checker's closed
        // branch), and within it the least force.
        let score = |c: &Candidate| {
            let closed = (0..k)
                .filter(|&p| self.kind[p] == Kind::Unilateral && c.closed[p])
                .count();
            let sticking = (0..k)
                .filter(|&p| matches!(self.kind[p], Kind::Tangent(_)) && c.slip[p] == 0.0)
                .count();
            (closed, sticking)
        };
        let best = (0..count).max_by(|&x, &y| {
            let (x, y) = (&found[x], &found[y]);
            score(x)
                .cmp(&score(y))
                .then(norm2(&y.lambda).total_cmp(&norm2(&x.lambda)))
        });
        let best = match answers {
            Answers::One | Answers::Several => best,
            _ => None,
        };
        (best, answers)
    }

    /// The active-set iteration: solve the system of a guess of the modes,
    /// then switch every mode whose condition fails (a closed row pulling
    /// opens, an open row penetrating closes, a force leaving the cone
    /// slips against it, a slip running backwards sticks, a bilateral
    /// force of the wrong sign flips) until one guess holds. It starts from
    /// every contact closed and sticking, which is where resting and
    /// sliding contacts are, so a few systems replace the `2^k 3^s`
    /// combinations; `None` when it does not settle (the caller falls back
    /// to enumeration or Lemke). The answer is left in `ws.cand`.
    fn active_set(&self, ws: &mut Scratch) -> bool {
        let k = self.cs.len();
        let Scratch {
            eval,
            closed,
            sigma,
            slip,
            failing,
            cand,
            ..
        } = ws;
        closed.clear();
        closed.resize(k, true);
        sigma.clear();
        sigma.resize(k, 1.0);
        slip.clear();
        slip.resize(k, 0.0);
        // Switch every failing mode at once for a while; then only the
        // worst (block switches can cycle where single ones end).
        let block_rounds = ACTIVE_SET_ROUNDS.max(k);
        for round in 0..block_rounds + ACTIVE_SET_ROUNDS.max(4 * k) {
            if !self.evaluate(closed, sigma, slip, true, eval, cand) {
                return false;
            }
            if cand.lambda.iter().chain(&cand.wv).any(|x| !x.is_finite()) {
                return false;
            }
            let lam_tol = TOL * self.force_scale.max(inf(&cand.lambda));
            let acc_tol = TOL * self.acc_scale.max(inf(&cand.wv));
            // Each failing mode with the size of its failure (relative to
            // the force or the acceleration scale).
            let (fs, acs) = (
                self.force_scale.max(inf(&cand.lambda)),
                self.acc_scale.max(inf(&cand.wv)),
            );
            failing.clear();
            for p in 0..k {
                let size = match self.kind[p] {
                    Kind::Unilateral if closed[p] && cand.lambda[p] < -lam_tol => {
                        -cand.lambda[p] / fs
                    }
                    Kind::Unilateral if !closed[p] && cand.wv[p] < -acc_tol => -cand.wv[p] / acs,
                    Kind::Bilateral
                        if self.is_friction_normal(p) && sigma[p] * cand.lambda[p] < -lam_tol =>
                    {
                        -sigma[p] * cand.lambda[p] / fs
                    }
                    Kind::Tangent(j) => {
                        let s = self.sticking[j];
                        let normal = (cand.lambda[s.normal] * sigma[s.normal]).max(0.0);
                        let excess = cand.lambda[p].abs() - s.mu * normal;
                        if slip[p] == 0.0 && excess > lam_tol {
                            excess / fs
                        } else if slip[p] != 0.0 && slip[p] * cand.wv[p] < -acc_tol {
                            -slip[p] * cand.wv[p] / acs
                        } else {
                            continue;
                        }
                    }
                    _ => continue,
                };
                failing.push((p, size));
            }
            if failing.is_empty() {
                if cand.residual > CONSISTENCY_TOL || !self.holds(cand) {
                    return false;
                }
                self.acceleration(cand);
                return true;
            }
            if round >= block_rounds {
                let worst = failing.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
                failing.clear();
                failing.extend(worst);
            }
            for &(p, _) in failing.iter() {
                match self.kind[p] {
                    Kind::Unilateral => closed[p] = !closed[p],
                    Kind::Bilateral => sigma[p] = -sigma[p],
                    Kind::Tangent(_) if slip[p] == 0.0 => slip[p] = -cand.lambda[p].signum(),
                    Kind::Tangent(_) => slip[p] = 0.0,
                }
            }
        }
        false
    }

    /// Whether the part has one motion, shown without enumerating: when
    /// every contact-space row is unilateral (frictionless rows and
    /// sliding entries), the problem is the LCP `w = G lambda + w0`, and
    /// two answers differ by a `d` with `d^T G d <= 0` (complementarity,
    /// row by row). If the symmetric part of `G` is positive semi-definite,
    /// `d` lies in its null space; if the forces of that null space move
    /// nothing (`Y d = 0`, `Y` the acceleration per unit force, friction
    /// included), the motions agree. Redundant contacts (a plate on twelve
    /// points) pass; Painleve's rod does not (its `G` is negative).
    fn unique_motion(&self, ws: &mut Scratch) -> bool {
        let k = self.cs.len();
        if self.kind.iter().any(|&kd| kd != Kind::Unilateral) {
            return false;
        }
        let Scratch {
            sigma,
            slip,
            g,
            sym,
            null,
            y_eff,
            da,
            ..
        } = ws;
        sigma.clear();
        sigma.resize(k, 1.0);
        slip.clear();
        slip.resize(k, 0.0);
        // Column `c` of `G` is `g[c * k..][..k]`.
        g.clear();
        g.resize(k * k, 0.0);
        for c in 0..k {
            self.column(c, sigma, slip, &mut g[c * k..(c + 1) * k]);
        }
        sym.clear();
        sym.extend((0..k * k).map(|e| 0.5 * (g[e] + g[(e % k) * k + e / k])));
        let Some(nullity) = semidefinite_null_space(sym, k, NULL_TOL, &mut null.0, &mut null.1)
        else {
            return false;
        };
        if nullity == 0 {
            // No null space: nothing to move (the common case of a part
            // sliding on its contacts), no responses to combine.
            return true;
        }
        // The acceleration per unit force of each row, friction included.
        let n = self.a0.len();
        y_eff.resize_with(self.y.len(), Vec::new);
        y_eff.truncate(self.y.len());
        for (e, y) in y_eff.iter_mut().zip(&self.y) {
            e.clone_from(y);
        }
        for (i, &(nc, mu_s)) in self.sliding.iter().enumerate() {
            for (x, t) in y_eff[nc].iter_mut().zip(&self.yt[i]) {
                *x -= mu_s * t;
            }
        }
        let y_scale = y_eff.iter().map(|y| inf(y)).fold(0.0, f64::max);
        da.clear();
        da.resize(n, 0.0);
        for d in null.1.chunks(k) {
            da.iter_mut().for_each(|x| *x = 0.0);
            for (&d, y) in d.iter().zip(y_eff.iter()) {
                da.iter_mut().zip(y).for_each(|(x, v)| *x += d * v);
            }
            // NaN (a failed response) fails too.
            let moves = inf(da);
            if moves.is_nan() || moves > 1e-8 * y_scale {
                return false;
            }
        }
        true
    }

    /// Lemke's method on the LCP form (see the module docs), bilateral
    /// force signs iterated.
    fn lemke(&self) -> Option<Candidate> {
        let k = self.cs.len();
        let mut sigma = vec![1.0; k];
        for _round in 0..(2 * k + 4) {
            let cand = self.lemke_once(&sigma)?;
            let lam_tol = TOL * self.force_scale.max(inf(&cand.lambda));
            let mut flipped = false;
            for p in 0..k {
                if self.kind[p] == Kind::Bilateral
                    && self.is_friction_normal(p)
                    && sigma[p] * cand.lambda[p] < -lam_tol
                {
                    sigma[p] = -sigma[p];
                    flipped = true;
                }
            }
            if !flipped {
                return Some(cand);
            }
        }
        None
    }

    fn lemke_once(&self, sigma: &[f64]) -> Option<Candidate> {
        let k = self.cs.len();
        // Unknowns x: one force per unilateral or bilateral cs row, and
        // (beta+, beta-, gamma) per sticking entry; lambda_t = beta+ - beta-.
        let forces: Vec<usize> = (0..k)
            .filter(|&c| !matches!(self.kind[c], Kind::Tangent(_)))
            .collect();
        let ns = self.sticking.len();
        let nx = forces.len() + 3 * ns;
        let mut x_of = vec![usize::MAX; k];
        for (t, &c) in forces.iter().enumerate() {
            x_of[c] = t;
        }
        let b0 = forces.len();
        // lambda_cs = P x; w = w0 + W lambda_cs - V (mu s sigma lambda_n).
        let mut p = Mat::<f64>::zeros(k, nx);
        for (t, &c) in forces.iter().enumerate() {
            p[(c, t)] = 1.0;
        }
        for (j, s) in self.sticking.iter().enumerate() {
            p[(s.tangent, b0 + 3 * j)] += 1.0;
            p[(s.tangent, b0 + 3 * j + 1)] -= 1.0;
        }
        let mut l = &self.w * &p;
        for (i, &(nc, mu_s)) in self.sliding.iter().enumerate() {
            let xc = x_of[nc];
            for r in 0..k {
                l[(r, xc)] -= mu_s * sigma[nc] * self.v[(r, i)];
            }
        }
        // Complementarity rows R x + r0, one per unknown (same order);
        // bilateral rows are equations.
        let mut rm = Mat::<f64>::zeros(nx, nx);
        let mut r0 = vec![0.0; nx];
        for (t, &c) in forces.iter().enumerate() {
            for q in 0..nx {
                rm[(t, q)] = l[(c, q)];
            }
            r0[t] = self.w0[c];
        }
        for (j, s) in self.sticking.iter().enumerate() {
            let (bp, bm, g) = (b0 + 3 * j, b0 + 3 * j + 1, b0 + 3 * j + 2);
            for q in 0..nx {
                rm[(bp, q)] = l[(s.tangent, q)];
                rm[(bm, q)] = -l[(s.tangent, q)];
            }
            r0[bp] = self.w0[s.tangent];
            r0[bm] = -self.w0[s.tangent];
            rm[(bp, g)] += 1.0;
            rm[(bm, g)] += 1.0;
            rm[(g, x_of[s.normal])] += s.mu * sigma[s.normal];
            rm[(g, bp)] -= 1.0;
            rm[(g, bm)] -= 1.0;
        }
        let eqs: Vec<usize> = forces
            .iter()
            .enumerate()
            .filter(|&(_, &c)| self.kind[c] == Kind::Bilateral)
            .map(|(t, _)| t)
            .collect();
        let zs: Vec<usize> = (0..nx).filter(|t| !eqs.contains(t)).collect();
        // Eliminate the equations: x_e = -R_ee^-1 (r_e + R_ez z).
        let (ne, nz) = (eqs.len(), zs.len());
        let ree = Mat::from_fn(ne, ne, |a, b| rm[(eqs[a], eqs[b])]);
        let mut elim = Mat::<f64>::zeros(ne, nz + 1); // [R_ee^-1 R_ez | R_ee^-1 r_e]
        for col in 0..=nz {
            let rhs: Vec<f64> = (0..ne)
                .map(|a| {
                    if col < nz {
                        rm[(eqs[a], zs[col])]
                    } else {
                        r0[eqs[a]]
                    }
                })
                .collect();
            let (sol, res) = solve_square(&ree, &rhs);
            if res > CONSISTENCY_TOL {
                return None;
            }
            for a in 0..ne {
                elim[(a, col)] = sol[a];
            }
        }
        let mz = Mat::from_fn(nz, nz, |a, b| {
            rm[(zs[a], zs[b])]
                - (0..ne)
                    .map(|e| rm[(zs[a], eqs[e])] * elim[(e, b)])
                    .sum::<f64>()
        });
        let qz: Vec<f64> = (0..nz)
            .map(|a| {
                r0[zs[a]]
                    - (0..ne)
                        .map(|e| rm[(zs[a], eqs[e])] * elim[(e, nz)])
                        .sum::<f64>()
            })
            .collect();
        let z = match lemke(&mz, &qz, 50 * (nz + 2)) {
            Lcp::Solved(z) => z,
            Lcp::Ray | Lcp::Limit => return None,
        };
        let mut x = vec![0.0; nx];
        for (a, &t) in zs.iter().enumerate() {
            x[t] = z[a];
        }
        for (e, &t) in eqs.iter().enumerate() {
            x[t] = -(elim[(e, nz)] + (0..nz).map(|b| elim[(e, b)] * z[b]).sum::<f64>());
        }
        let mut lambda = vec![0.0; k];
        for r in 0..k {
            lambda[r] = (0..nx).map(|q| p[(r, q)] * x[q]).sum();
        }
        let mut wv = self.w0.clone();
        for r in 0..k {
            wv[r] += (0..nx).map(|q| l[(r, q)] * x[q]).sum::<f64>();
        }
        // Modes read off the answer: a contact is open when it separates.
        let acc_tol = TOL * self.acc_scale.max(inf(&wv));
        let closed: Vec<bool> = (0..k)
            .map(|c| self.kind[c] != Kind::Unilateral || wv[c] <= acc_tol)
            .collect();
        let slip: Vec<f64> = (0..k)
            .map(|c| match self.kind[c] {
                Kind::Tangent(_) if wv[c] > acc_tol => 1.0,
                Kind::Tangent(_) if wv[c] < -acc_tol => -1.0,
                _ => 0.0,
            })
            .collect();
        let mut cand = Candidate {
            closed,
            sigma: sigma.to_vec(),
            slip,
            lambda,
            wv,
            a: Vec::new(),
            residual: 0.0,
        };
        self.acceleration(&mut cand);
        Some(cand)
    }

    /// The part's answer, written into `ans`, from the chosen candidate
    /// (or, with none, the all-closed attempt as the best known).
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &mut self,
        best: Option<&Candidate>,
        answers: Answers,
        status: Status,
        lemke_size: usize,
        frictionless_feasible: bool,
        ans: &mut PartAnswer,
        ws: &mut Scratch,
    ) {
        let inst = self.instant;
        let k = self.cs.len();
        let fallback = best.is_none().then(|| {
            if !self.held_consistent {
                return None;
            }
            let (closed, sigma, slip) = (vec![true; k], vec![1.0; k], vec![0.0; k]);
            let mut c = Candidate::default();
            let mut eval = EvalScratch::default();
            if !self.evaluate(&closed, &sigma, &slip, true, &mut eval, &mut c) {
                return None;
            }
            self.acceleration(&mut c);
            Some(c)
        });
        let cand = best.or(fallback.as_ref().and_then(Option::as_ref));
        let k_slide = inst.sliding().len();
        ans.reset(
            inst,
            status,
            answers,
            frictionless_feasible,
            lemke_size,
            self.held.iterations,
        );
        let Some(c) = cand else {
            return;
        };
        // Final answer: the held system under Q plus every contact force.
        let total = &mut ws.total;
        total.clear();
        total.extend_from_slice(inst.force());
        for (p, r) in self.cs.iter().enumerate() {
            if let Some(row) = inst.rows(r.set).matrix().outer_view(r.row) {
                for (j, &v) in row.iter() {
                    total[j] += v * c.lambda[p];
                }
            }
        }
        for (i, (sc, &(nc, mu_s))) in inst.sliding().iter().zip(&self.sliding).enumerate() {
            let f = self.sliding_magnitude(c, nc, mu_s);
            ans.sliding_friction[i] = f;
            for ((x, t), ff) in total
                .iter_mut()
                .zip(&sc.tangent)
                .zip(&mut ans.friction_force)
            {
                *x -= f * t;
                *ff -= f * t;
            }
        }
        let iterations = self.held.iterations;
        let finished = self.held.solve_into(total, &mut ws.l_e, false);
        ans.iterations += self.held.iterations - iterations;
        match finished {
            Some(status) => {
                if severity(status) > severity(ans.status) {
                    ans.status = status;
                }
                std::mem::swap(&mut ans.a, total);
                for (t, r) in self.held.rows().iter().enumerate() {
                    ans.l_eq[r.row] = ws.l_e[t];
                }
            }
            None => {
                ans.a.clone_from(&c.a);
                ans.status = Status::NumericalError;
            }
        }
        for (p, r) in self.cs.iter().enumerate() {
            match r.set {
                RowSet::Equalities => ans.l_eq[r.row] = c.lambda[p],
                RowSet::Inequalities => ans.l_in[r.row] = c.lambda[p],
            }
        }
        let acc_tol = TOL * self.acc_scale.max(inf(&c.wv));
        let separates = |nc: usize| self.kind[nc] == Kind::Unilateral && c.wv[nc] > acc_tol;
        for (i, &(nc, _)) in self.sliding.iter().enumerate() {
            ans.modes[i] = if separates(nc) {
                Mode::Open
            } else {
                Mode::Slide
            };
            ans.normal_forces[i] = c.lambda[nc];
        }
        for (j, s) in self.sticking.iter().enumerate() {
            let slipping = c.slip[s.tangent] != 0.0 && !separates(s.normal);
            ans.modes[k_slide + j] = if separates(s.normal) {
                Mode::Open
            } else if slipping {
                Mode::Slide
            } else {
                Mode::Stick
            };
            ans.normal_forces[k_slide + j] = c.lambda[s.normal];
            ans.tangential_forces[j] = c.lambda[s.tangent];
            // The tangent row does not hold when the contact slips or opens.
            ans.slipping[j] = slipping || separates(s.normal);
        }
    }
}

fn inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}
