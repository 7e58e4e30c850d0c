//! Velocity-level time stepping of kinematic trees in joint coordinates
//! (MuJoCo's models, [`Articulated`]): MuJoCo's semi-implicit Euler with
//! the contacts and limits held exactly.
//!
//! A step of length `h` from `(q, v)` with the controls `ctrl`:
//!
//! 1. **collide** (`collide.rs`): the geoms' contacts within the distance
//!    the bodies may close in a step, MuJoCo's filter on which pairs
//!    may touch, three rows each in joint coordinates; the joint and
//!    tendon limits within reach as frictionless one-sided rows
//!    (`physics.rs`);
//! 2. **assemble**: `M(q)` by the composite-rigid-body algorithm
//!    (armature included), `c(q, v)` by recursive Newton-Euler, and the
//!    problem `(M + h D) v+ = M v + h (tau - c) + J^T r`: `D` the
//!    joints' and tendons' damping (implicit: the compulsion's linear
//!    term), `tau` the springs and the actuators, gravity in `c`; the
//!    normal free terms the gap a contact still apart may close (the
//!    space stepper's `gap_term`, no restitution);
//! 3. **solve**: Coulomb's law by [`PrimalSolver`] with `M + h D` in the
//!    tree's sparsity (a fixed pattern: its symbolic factorization is
//!    kept), warm-started; without rows, the free velocity. That is found
//!    without `M` when `D` is diagonal (joints' damping only): the
//!    articulated-body recursion, whose work is linear in the dofs however
//!    deep the tree (a long chain's `M` is dense: its factor's work is
//!    cubic); `M` is then formed only for a step with rows;
//! 4. **integrate**: `q+ = q (+) h v+` on the joints' manifolds;
//! 5. **correct**: overlap or a limit passed beyond the tolerance
//!    projected away in Gauss's metric (`min 1/2 dq^T M dq`, the rows
//!    held), the kinetic energy of the moved trees paying for the
//!    potential energy it adds.
//!
//! Equality constraints (joint and tendon couplings, `connect`, `weld`)
//! and dry friction at joints are bounded rows of the contact problem
//! (free impulses, or in `[-f h, f h]`), each equality's velocity target
//! closing its position error within the step. Tendons are fixed or
//! spatial (straight segments between sites). Steady-state steps
//! allocate nothing.

mod collide;
mod physics;

use std::ops::{Deref, Range};
use std::sync::Arc;
use std::time::Instant as Clock;

use sprs::CsMat;
use zwang_contact::{ContactRows, PrimalSolver, SolverSettings, VelocityProblem, FINISH_SIZE};
use zwang_core::rotation::cross;
use zwang_model::articulated::{full_pattern, Articulated};
use zwang_tree::{Tree, TreeError, Workspace};

use crate::simulate::{Observer, Outcome, StartProjection};
use crate::stepping::space::collide::{overlap_problem, SpaceContact};
use crate::stepping::space::level_faces;
use crate::stepping::{
    self, gap_term, pay_for, run_keeping, Stages, StepCore, StepError, StepReport, StepSettings,
    GAP_SLOP, START_CORRECTIONS,
};
use crate::warm::Warm;
use collide::Geoms;
pub use collide::{Overlaps, Touch};
use physics::Physics;

/// Outer iterations of the contact solver's quick first try
/// ([`TreeStepper::solve_twice`]), and Newton steps in each: the finish
/// goes on from an iterate near the outer iteration's minimum, not at it.
const QUICK_OUTER: usize = 1;
const QUICK_NEWTON: usize = 2;

/// How much farther than it separates two geoms an overlap correction may
/// slide them (by `M`'s diagonal: `w_t <= SLIDE^2 w_n`). A contact whose
/// normal the joints barely move (the normal nearly through the axes of
/// every hinge between the geoms) would be corrected by a linearised
/// displacement of radians, far outside where it holds: it is left
/// overlapping, and the overlap reported.
const SLIDE: f64 = 10.0;

/// A body's state in the world frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyState {
    /// Its name.
    pub name: String,
    /// Its frame's origin, m.
    pub position: [f64; 3],
    /// Its orientation, a unit quaternion `[w, x, y, z]`.
    pub orientation: [f64; 4],
    /// The velocity of its frame's origin, m/s.
    pub velocity: [f64; 3],
    /// Its angular velocity, rad/s.
    pub angular_velocity: [f64; 3],
}

/// Where a run starts: MuJoCo's `qpos`, `qvel` and `ctrl`.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeStart {
    /// Length `tree.nq()`.
    pub qpos: Vec<f64>,
    /// Length `tree.nv()`.
    pub qvel: Vec<f64>,
    /// One per actuator, held for the run.
    pub ctrl: Vec<f64>,
}

impl TreeStart {
    /// `qpos0`, at rest, the controls zero.
    pub fn rest(model: &Articulated) -> TreeStart {
        TreeStart {
            qpos: model.tree.qpos0().to_vec(),
            qvel: vec![0.0; model.tree.nv()],
            ctrl: vec![0.0; model.actuators.len()],
        }
    }
}

/// What a run of a tree ends with: the outcome every stepper reports,
/// and what a tree adds.
#[derive(Debug, Clone)]
pub struct TreeOutcome {
    /// The run's outcome (`q` is `qpos`, `v` is `qvel`; energies are
    /// kinetic, gravity's and the springs').
    pub outcome: Outcome,
    /// Each body's final state, in the tree's order.
    pub bodies: Vec<BodyState>,
    /// The largest violation of a joint or tendon limit at the end of any
    /// step, rad or m.
    pub max_limit_violation: f64,
}

/// The model a [`TreeStepper`] steps: borrowed, or shared so that the
/// stepper can live as long as its owner wants it (a simulation that keeps
/// one stepper, its warm starts and factorizations, from call to call).
enum ModelRef<'m> {
    Borrowed(&'m Articulated),
    Shared(Arc<Articulated>),
}

impl Deref for ModelRef<'_> {
    type Target = Articulated;

    fn deref(&self) -> &Articulated {
        match self {
            ModelRef::Borrowed(m) => m,
            ModelRef::Shared(m) => m,
        }
    }
}

/// A velocity-level time stepper of a kinematic tree and its working
/// memory. Make it with [`TreeStepper::new`] (at `qpos0`, at rest, the
/// controls zero; [`TreeStepper::shared`] for a model held by an `Arc`),
/// set a start with [`TreeStepper::reset`] and the
/// controls with [`TreeStepper::set_ctrl`], then [`TreeStepper::step`]
/// or [`TreeStepper::advance`].
pub struct TreeStepper<'m> {
    model: ModelRef<'m>,
    core: StepCore,
    ctrl: Vec<f64>,
    physics: Physics,
    geoms: Geoms,
    ws: Workspace,
    solver_settings: SolverSettings,
    /// `M v`, `c`, `tau`, and the free velocity `(M + h D)^-1 (M v + h
    /// (tau - c))`.
    mv: Vec<f64>,
    bias: Vec<f64>,
    tau: Vec<f64>,
    v_star: Vec<f64>,
    /// Each dof's damping when `D` is diagonal (none with a tendon's), for
    /// the free velocity without `M`; `h d` and the right side there.
    joint_damping: Option<Vec<f64>>,
    hd: Vec<f64>,
    rhs: Vec<f64>,
    /// Whether `problem`'s `M + h D` and force are this step's.
    assembled: bool,
    /// The fastest geom point at the free velocity.
    fastest_free: f64,
    /// Per stored entry of the problems' `M` (full symmetric storage),
    /// its entry in the tree's layout.
    mass_map: Vec<usize>,
    /// The root trees' dof ranges when each is contiguous (else all the
    /// dofs as one): the groups a correction takes energy from.
    groups: Vec<Range<usize>>,
    contacts: Vec<SpaceContact>,
    entries: Vec<(usize, [f64; 3])>,
    /// The first `touching` of `contacts` are the geoms'; the rest are
    /// limits.
    touching: usize,
    fresh: bool,
    /// The `(q, v)` whose positions and velocities the workspace holds
    /// from the last step's end, when `kinematics_kept` (no correction
    /// moved them since): the next step's start need not compute them
    /// again.
    kinematics_q: Vec<f64>,
    kinematics_v: Vec<f64>,
    kinematics_kept: bool,
    problem: VelocityProblem,
    primal: PrimalSolver,
    /// The solver's settings for a first, quick try: `solver_settings`
    /// with [`QUICK_OUTER`] outer iterations before the finish.
    quick: SolverSettings,
    r: Vec<f64>,
    /// The warm start `r` began from, for a second try.
    r_warm: Vec<f64>,
    u: Vec<f64>,
    v_start: Vec<f64>,
    warm: Warm,
    overlap: VelocityProblem,
    correct: PrimalSolver,
    dq: Vec<f64>,
    max_limit_violation: f64,
}

/// An empty problem over `M`'s pattern ([`full_pattern`]), three rows
/// per contact.
fn problem_of(n: usize, indptr: &[usize], indices: &[usize]) -> VelocityProblem {
    let data = vec![0.0; indices.len()];
    VelocityProblem {
        mass: CsMat::new_csc((n, n), indptr.to_vec(), indices.to_vec(), data),
        force: vec![0.0; n],
        rows: ContactRows::new(3),
        b: Vec::new(),
        mu: Vec::new(),
        bounded: zwang_contact::BoundedRows::default(),
    }
}

/// Each dof's damping when every entry of `damping` (in the tree's mass
/// layout) is on the diagonal; `None` when one couples two dofs.
fn diagonal(tree: &zwang_tree::Tree, damping: &[(usize, f64)]) -> Option<Vec<f64>> {
    let (start, _) = tree.mass_layout();
    let mut d = vec![0.0; tree.nv()];
    for &(e, value) in damping {
        d[start.iter().position(|&s| s == e)?] += value;
    }
    Some(d)
}

/// The dof ranges of the root trees when each is contiguous, else one
/// range of all the dofs.
fn root_groups(tree: &zwang_tree::Tree) -> Vec<Range<usize>> {
    let nv = tree.nv();
    let root = |d: usize| tree.ancestors(d).last().unwrap_or(d);
    let mut groups: Vec<Range<usize>> = Vec::new();
    for d in 0..nv {
        match groups.last_mut() {
            Some(g) if root(g.start) == root(d) => g.end = d + 1,
            _ => groups.push(d..d + 1),
        }
    }
    let mut roots: Vec<usize> = groups.iter().map(|g| root(g.start)).collect();
    roots.sort_unstable();
    roots.dedup();
    if roots.len() == groups.len() {
        groups
    } else {
        std::iter::once(0..nv).collect()
    }
}

impl TreeStepper<'static> {
    /// [`TreeStepper::new`] for a model held by an `Arc`: the stepper
    /// keeps it alive, so its owner can keep the stepper (and its warm
    /// starts and factorizations) without borrowing the model.
    pub fn shared(model: Arc<Articulated>, settings: StepSettings) -> Result<Self, StepError> {
        Self::of(ModelRef::Shared(model), settings)
    }
}

impl<'m> TreeStepper<'m> {
    /// A stepper of `model` at `qpos0`, at rest, the controls zero. What
    /// does not fit the model is refused with the element named.
    pub fn new(model: &'m Articulated, settings: StepSettings) -> Result<Self, StepError> {
        Self::of(ModelRef::Borrowed(model), settings)
    }

    /// A model's stepper, as [`TreeStepper::new`] makes it.
    fn of(model: ModelRef<'m>, settings: StepSettings) -> Result<Self, StepError> {
        settings
            .validate(settings.time_step)
            .map_err(StepError::Settings)?;
        let m: &Articulated = &model;
        let tree = &m.tree;
        let physics = Physics::new(m)?;
        let mut ws = tree.workspace();
        let geoms = Geoms::new(m, &mut ws)?;
        let (n, nq) = (tree.nv(), tree.nq());
        let (indptr, indices, mass_map) = full_pattern(tree);
        let solver_settings = SolverSettings {
            friction: settings.friction,
            tolerance: settings.tolerance,
            finish_steps: settings.finish_steps,
            // Its islands are parts of a moving model.
            absolute_below: f64::EPSILON,
            ..SolverSettings::default()
        };
        let quick = SolverSettings {
            max_iterations: QUICK_OUTER,
            newton_steps: QUICK_NEWTON,
            ..solver_settings.clone()
        };
        let start = TreeStart::rest(m);
        let ctrl = vec![0.0; m.actuators.len()];
        let groups = root_groups(tree);
        let joint_damping = diagonal(tree, &physics.damping);
        let mut stepper = TreeStepper {
            model,
            core: StepCore::new(vec![0.0; nq], vec![0.0; n], settings),
            ctrl,
            physics,
            geoms,
            ws,
            solver_settings,
            quick,
            mv: vec![0.0; n],
            bias: vec![0.0; n],
            tau: vec![0.0; n],
            v_star: vec![0.0; n],
            joint_damping,
            hd: vec![0.0; n],
            rhs: vec![0.0; n],
            assembled: false,
            fastest_free: 0.0,
            mass_map,
            groups,
            contacts: Vec::new(),
            entries: Vec::new(),
            touching: 0,
            fresh: false,
            kinematics_q: vec![0.0; nq],
            kinematics_v: vec![0.0; n],
            kinematics_kept: false,
            problem: problem_of(n, &indptr, &indices),
            overlap: problem_of(n, &indptr, &indices),
            primal: PrimalSolver::new(),
            correct: PrimalSolver::new(),
            r: Vec::new(),
            u: Vec::new(),
            v_start: vec![0.0; n],
            r_warm: Vec::new(),
            warm: Warm::default(),
            dq: vec![0.0; n],
            max_limit_violation: 0.0,
        };
        stepper.reset(&start.qpos, &start.qvel, &start.ctrl)?;
        Ok(stepper)
    }

    /// Starts anew at `t = 0` from `(qpos, qvel)` with the controls
    /// `ctrl`, nothing counted. A start whose geoms overlap or whose
    /// limits are passed beyond the tolerance is moved apart in Gauss's
    /// metric ([`TreeStepper::start_projection`] says how far).
    pub fn reset(&mut self, qpos: &[f64], qvel: &[f64], ctrl: &[f64]) -> Result<(), StepError> {
        check("qpos", self.model.tree.nq(), qpos)?;
        check("qvel", self.model.tree.nv(), qvel)?;
        self.set_ctrl(ctrl)?;
        let tree = &self.model.tree;
        // Quaternions of any nonzero length are made unit.
        tree.positions(&mut self.ws, qpos)?;
        let mut q = qpos.to_vec();
        tree.integrate(&mut q, &vec![0.0; tree.nv()], 0.0)?;
        let settings = self.core.settings.clone();
        self.core = StepCore::new(q, qvel.to_vec(), settings);
        self.warm = Warm::default();
        self.fresh = false;
        self.kinematics_kept = false;
        self.max_limit_violation = 0.0;
        self.v_star.copy_from_slice(qvel);
        self.start(qpos, qvel)
    }

    /// Sets the controls (one per actuator), held until set again.
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<(), StepError> {
        check("ctrl", self.ctrl.len(), ctrl)?;
        self.ctrl.copy_from_slice(ctrl);
        Ok(())
    }

    /// The controls.
    pub fn ctrl(&self) -> &[f64] {
        &self.ctrl
    }

    /// `qpos` now.
    pub fn qpos(&self) -> &[f64] {
        &self.core.q
    }

    /// `qvel` now.
    pub fn qvel(&self) -> &[f64] {
        &self.core.v
    }

    /// The time since the last reset, s.
    pub fn time(&self) -> f64 {
        self.core.t
    }

    /// The model.
    pub fn model(&self) -> &Articulated {
        &self.model
    }

    /// What the run counted so far (steps, unsolved steps, the deepest
    /// overlap, the time in each stage).
    pub fn totals(&self) -> &stepping::StepTotals {
        &self.core.totals
    }

    /// What the last step did.
    pub fn last(&self) -> &StepReport {
        &self.core.last
    }

    /// The largest violation of a joint or tendon limit at the end of any
    /// step since the last reset, rad or m.
    pub fn max_limit_violation(&self) -> f64 {
        self.max_limit_violation
    }

    /// How the start was moved apart, if it was.
    pub fn start_projection(&self) -> Option<&StartProjection> {
        self.core.start_projection.as_ref()
    }

    /// One step of the settings' `time_step`.
    pub fn step(&mut self) -> Result<StepReport, StepError> {
        let h = self.core.settings.time_step;
        stepping::step(self, h)
    }

    /// Steps of `time_step` over `duration` (the last one ending on it,
    /// shortened or lengthened by less than half a step; a duration of
    /// less than half a step is one step of its length), the controls
    /// held.
    pub fn advance(&mut self, duration: f64) -> Result<(), StepError> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(StepError::Settings(format!(
                "duration must be a finite number >= 0, found {duration}"
            )));
        }
        let h = self.core.settings.time_step;
        let end = self.core.t + duration;
        if duration > 0.0 && duration <= 0.5 * h {
            return stepping::step(self, duration).map(|_| ());
        }
        while end - self.core.t > 0.5 * h {
            let left = end - self.core.t;
            let h_step = if left < 1.5 * h { left } else { h };
            stepping::step(self, h_step)?;
        }
        Ok(())
    }

    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.model.tree.bodies().iter().position(|b| b.name == name)
    }

    /// Body `body`'s state now, in the world frame.
    pub fn body(&mut self, body: usize) -> Result<BodyState, StepError> {
        let tree = &self.model.tree;
        tree.positions(&mut self.ws, &self.core.q)?;
        tree.velocities(&mut self.ws, &self.core.v)?;
        body_state(tree, &self.ws, body)
    }

    /// Every body's state now, in the tree's order.
    pub fn bodies(&mut self) -> Result<Vec<BodyState>, StepError> {
        (0..self.model.tree.nbody()).map(|b| self.body(b)).collect()
    }

    /// The energy now: kinetic, gravity's and the springs'.
    pub fn energy(&mut self) -> Result<f64, StepError> {
        energy_of(
            &self.model,
            &self.physics,
            &mut self.ws,
            &self.core.q,
            &self.core.v,
        )
    }

    /// The problem's `M + h D` (in the workspace's mass, and in the
    /// problem's storage) and its force `M v + h (tau - c)`, at the step's
    /// start (the workspace's positions; `tau` and `c` by `prepare`).
    fn assemble_mass(&mut self, h: f64) -> Result<(), StepError> {
        let tree = &self.model.tree;
        let ws = &mut self.ws;
        tree.mass_matrix(ws)?;
        tree.mul_mass(ws, &self.core.v, &mut self.mv)?;
        let p = &mut self.problem;
        for (((f, mv), tau), c) in p
            .force
            .iter_mut()
            .zip(&self.mv)
            .zip(&self.tau)
            .zip(&self.bias)
        {
            *f = mv + h * (tau - c);
        }
        let mass = ws.mass_mut();
        for &(e, d) in &self.physics.damping {
            mass[e] += h * d;
        }
        for (x, &e) in p.mass.data_mut().iter_mut().zip(&self.mass_map) {
            *x = mass[e];
        }
        self.assembled = true;
        Ok(())
    }

    /// The contacts and limits at the positions in the workspace (the
    /// current ones) within `margin`, the limits within reach of a step
    /// of `h`.
    fn recollide(&mut self, margin: f64, h: f64) -> Result<(), StepError> {
        self.contacts.clear();
        self.entries.clear();
        self.geoms.contacts(
            &self.model,
            &self.ws,
            margin,
            &mut self.contacts,
            &mut self.entries,
        )?;
        self.touching = self.contacts.len();
        self.physics.refresh(&self.model, &self.ws, &self.core.q)?;
        self.physics.limits(
            &self.core.q,
            [&self.core.v, &self.v_star],
            h,
            &mut self.contacts,
            &mut self.entries,
        );
        Ok(())
    }

    /// The contact problem solved quickly (a few outer iterations, then
    /// proximal Newton steps in `(v, r)`, which on a tree's few velocities
    /// converge where the outer iterations crawl) and, when that ends
    /// above the tolerance, again from the same start with the full
    /// budget of outer iterations: never worse than the full solve alone.
    /// Problems larger than [`FINISH_SIZE`], on which the finish takes
    /// fewer steps, go straight to the full solve.
    fn solve_twice(&mut self) -> Result<zwang_contact::Report, StepError> {
        let mut first = None;
        if self.problem.unknowns() <= FINISH_SIZE {
            self.r_warm.clear();
            self.r_warm.extend_from_slice(&self.r);
            let report = self.solve_with(true)?;
            if report.status == zwang_contact::Status::Solved {
                return Ok(report);
            }
            self.r.copy_from_slice(&self.r_warm);
            self.core.v.copy_from_slice(&self.v_start);
            first = Some(report);
        }
        let mut report = self.solve_with(false)?;
        if let Some(first) = first {
            report.newton_steps += first.newton_steps;
            report.iterations += first.iterations;
        }
        Ok(report)
    }

    /// One solve of the contact problem from `r` and `v`, quick or full.
    fn solve_with(&mut self, quick: bool) -> Result<zwang_contact::Report, StepError> {
        let settings = if quick {
            &self.quick
        } else {
            &self.solver_settings
        };
        self.primal
            .solve_in_place(
                &self.problem,
                settings,
                &mut self.r,
                &mut self.core.v,
                &mut self.u,
            )
            .map_err(StepError::from_global)
    }

    /// The distance geoms may close within a step of `h`: twice the
    /// fastest point's travel at the velocities in the workspace and at
    /// the last free velocity.
    fn margin(&self, h: f64) -> Result<f64, StepError> {
        let now = self.geoms.fastest(&self.model, &self.ws)?;
        Ok(2.0 * h * now.max(self.fastest_free) + 1e-9)
    }

    /// The deepest overlap and the largest limit violation among the
    /// contacts found.
    fn violations(&self) -> (f64, f64) {
        let deepest = |c: &[SpaceContact]| c.iter().fold(0.0f64, |m, c| m.max(-c.gap));
        let (geoms, limits) = self.contacts.split_at(self.touching);
        (deepest(geoms).max(self.geoms.stuck), deepest(limits))
    }

    /// The displacement `dq` that removes the overlaps and the passed
    /// limits: `min 1/2 dq^T M dq` with `g + J_n dq >= 0` at every row
    /// but those a displacement would slide far ([`SLIDE`]), `M` at the
    /// current positions (in the workspace: computed by
    /// [`TreeStepper::overlapping`], which decides a correction is due);
    /// the solve's report.
    fn displacement(&mut self) -> Result<zwang_contact::Report, StepError> {
        let tree = &self.model.tree;
        let p = &mut self.overlap;
        for (x, &e) in p.mass.data_mut().iter_mut().zip(&self.mass_map) {
            *x = self.ws.mass()[e];
        }
        let contacts = self.contacts.iter().filter(|c| {
            correctable(
                tree,
                self.ws.mass(),
                &self.entries[c.entries.0..c.entries.1],
            )
        });
        let settings = overlap_problem(p, contacts, &self.entries, &mut self.r, &mut self.u);
        self.correct
            .solve_in_place(p, &settings, &mut self.r, &mut self.dq, &mut self.u)
            .map_err(StepError::from_global)
    }

    /// Whether an overlap correction is due: a contact beyond the
    /// tolerance that a displacement can correct (`M` at the current
    /// positions computed for it).
    fn overlapping(&mut self) -> Result<bool, StepError> {
        let tol = self.core.settings.penetration_tolerance;
        if !self.contacts.iter().any(|c| c.gap < -tol) {
            return Ok(false);
        }
        let tree = &self.model.tree;
        tree.mass_matrix(&mut self.ws)?;
        Ok(self.contacts.iter().any(|c| {
            c.gap < -tol
                && correctable(
                    tree,
                    self.ws.mass(),
                    &self.entries[c.entries.0..c.entries.1],
                )
        }))
    }

    /// Moves the current positions by the last displacement and takes the
    /// potential energy that adds from the kinetic energy of the trees it
    /// moved (all of it, when they have less); the workspace ends at the
    /// new positions.
    fn displace(&mut self) -> Result<(), StepError> {
        let before = self.energy()?;
        self.model.tree.integrate(&mut self.core.q, &self.dq, 1.0)?;
        let raised = self.energy()? - before;
        let tree = &self.model.tree;
        tree.mass_matrix(&mut self.ws)?;
        if raised > 0.0 {
            tree.mul_mass(&self.ws, &self.core.v, &mut self.mv)?;
            let mv = &self.mv;
            pay_for(
                raised,
                self.groups.iter().cloned(),
                &self.dq,
                &mut self.core.v,
                |c, vc| 0.5 * vc * mv[c],
            );
        }
        Ok(())
    }

    /// Moves an overlapping start apart (as a step's correction, without
    /// paying for the energy it adds: the run's energy starts from the
    /// moved start), and reports how far.
    fn start(&mut self, given_q: &[f64], given_v: &[f64]) -> Result<(), StepError> {
        let (h, tol) = (
            self.core.settings.time_step,
            self.core.settings.penetration_tolerance,
        );
        self.model.tree.positions(&mut self.ws, &self.core.q)?;
        self.model.tree.velocities(&mut self.ws, &self.core.v)?;
        self.fastest_free = 0.0;
        let margin = self.margin(h)?;
        self.recollide(margin, h)?;
        let (overlap, passed) = self.violations();
        self.core.totals.max_penetration = overlap;
        self.max_limit_violation = passed;
        for _ in 0..START_CORRECTIONS {
            if !self.overlapping()? {
                break;
            }
            self.displacement()?;
            self.model.tree.integrate(&mut self.core.q, &self.dq, 1.0)?;
            self.model.tree.positions(&mut self.ws, &self.core.q)?;
            self.recollide(margin, h)?;
        }
        if overlap.max(passed) <= tol {
            return Ok(());
        }
        let change = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        };
        let given = energy_of(&self.model, &self.physics, &mut self.ws, given_q, given_v)?;
        self.core.start_projection = Some(StartProjection {
            violation: overlap.max(passed),
            at: if overlap >= passed {
                "an overlap of two geoms".into()
            } else {
                "a joint or tendon limit".into()
            },
            speed_violation: 0.0,
            speed_at: String::new(),
            position_change: change(given_q, &self.core.q),
            velocity_change: 0.0,
            energy_given: given,
        });
        Ok(())
    }
}

/// Each entry of `x` is finite and there are `expected` of them.
fn check(what: &'static str, expected: usize, x: &[f64]) -> Result<(), StepError> {
    if x.len() != expected {
        return Err(TreeError::Length {
            what,
            expected,
            got: x.len(),
        }
        .into());
    }
    match x.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(TreeError::NotFinite { what, index }.into()),
        None => Ok(()),
    }
}

/// Body `body`'s state from the positions and velocities in `ws`.
fn body_state(
    tree: &zwang_tree::Tree,
    ws: &Workspace,
    body: usize,
) -> Result<BodyState, StepError> {
    let (position, orientation) = tree.pose(ws, body)?;
    let s = tree.velocity(ws, body)?;
    let w = [s[0], s[1], s[2]];
    let c = cross(w, position);
    Ok(BodyState {
        name: tree.bodies()[body].name.clone(),
        position,
        orientation,
        velocity: [s[3] + c[0], s[4] + c[1], s[5] + c[2]],
        angular_velocity: w,
    })
}

/// The energy at `(q, v)`: kinetic, gravity's and the springs'.
fn energy_of(
    model: &Articulated,
    physics: &Physics,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
) -> Result<f64, StepError> {
    Ok(model.energy(ws, &physics.addresses, q, v)?)
}

impl Stages for TreeStepper<'_> {
    /// The dynamics at the step's start, and the free velocity.
    fn prepare(&mut self, h: f64) -> Result<(), StepError> {
        let tree = &self.model.tree;
        let ws = &mut self.ws;
        let (q, v) = (&self.core.q, &self.core.v);
        // Bit for bit, as the run left them (nothing between the steps
        // moved the state, or the workspace to another).
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        let kept =
            self.kinematics_kept && same(&self.kinematics_q, q) && same(&self.kinematics_v, v);
        self.kinematics_kept = false;
        if !kept {
            tree.positions(ws, q)?;
            tree.velocities(ws, v)?;
        }
        tree.bias(ws, &mut self.bias)?;
        self.tau.fill(0.0);
        // The damping is implicit (below), the rest explicit.
        let addresses = &self.physics.addresses;
        self.model
            .add_forces(ws, addresses, q, v, &self.ctrl, false, &mut self.tau)?;
        self.physics.refresh(&self.model, ws, q)?;
        self.physics.add_explicit_damping(v, &mut self.tau);
        if let Some(d) = &self.joint_damping {
            // (M + h D) (v+ - v) = h (tau - c - D v), without M.
            for i in 0..d.len() {
                self.hd[i] = h * d[i];
                self.rhs[i] = self.tau[i] - self.bias[i] - d[i] * v[i];
            }
            tree.solve_articulated(ws, &self.hd, &self.rhs, &mut self.v_star)?;
            for (x, vi) in self.v_star.iter_mut().zip(v) {
                *x = vi + h * *x;
            }
            self.assembled = false;
        } else {
            self.assemble_mass(h)?;
            self.v_star.copy_from_slice(&self.problem.force);
            let tree = &self.model.tree;
            tree.factor(&mut self.ws)?;
            tree.solve(&self.ws, &mut self.v_star)?;
        }
        if self.v_star.iter().any(|x| !x.is_finite()) {
            return Err(StepError::NotFinite);
        }
        let (tree, ws) = (&self.model.tree, &mut self.ws);
        tree.velocities(ws, &self.v_star)?;
        self.fastest_free = self.geoms.fastest(&self.model, ws)?;
        tree.velocities(ws, &self.core.v)?;
        Ok(())
    }

    fn collide(&mut self, h: f64) -> Result<(), StepError> {
        if !self.fresh {
            let margin = self.margin(h)?;
            self.recollide(margin, h)?;
        }
        self.fresh = false;
        Ok(())
    }

    fn assemble(&mut self, h: f64) -> Result<(), StepError> {
        let slop = GAP_SLOP * self.core.settings.penetration_tolerance;
        let p = &mut self.problem;
        p.rows.clear();
        p.b.clear();
        p.mu.clear();
        for c in &self.contacts {
            let entries = &self.entries[c.entries.0..c.entries.1];
            p.rows.push(entries.iter().copied());
            let before: f64 = entries
                .iter()
                .map(|(col, e)| e[0] * self.core.v[*col])
                .sum();
            p.b.extend([gap_term(before, c.gap, 0.0, h, slop), 0.0, 0.0]);
            p.mu.push(c.mu);
        }
        level_faces(&self.contacts, slop, h, &mut p.b);
        p.bounded.clear();
        for &(dof, f) in &self.physics.friction {
            p.bounded.push([(dof, 1.0)], 0.0, -f * h, f * h);
        }
        self.physics
            .push_equalities(&self.model, &self.ws, &self.core.q, h, &mut p.bounded)?;
        let rows = !(self.contacts.is_empty() && p.bounded.is_empty());
        if rows && !self.assembled {
            self.assemble_mass(h)?;
        }
        Ok(())
    }

    fn solve(&mut self) -> Result<StepReport, StepError> {
        let k = 3 * self.contacts.len();
        let rows = k + self.problem.bounded.len();
        self.r.resize(rows, 0.0);
        self.u.resize(rows, 0.0);
        // The bounded rows start from no impulse (the warm start knows the
        // contacts only).
        self.r[k..].fill(0.0);
        let warm_started = self
            .warm
            .fill(self.contacts.iter().map(|c| c.key), 3, &mut self.r);
        self.v_start.copy_from_slice(&self.core.v);
        let report = if rows == 0 {
            self.core.v.copy_from_slice(&self.v_star);
            None
        } else {
            Some(self.solve_twice()?)
        };
        self.warm
            .store(self.contacts.iter().map(|c| c.key), 3, &self.r[..k]);
        Ok(StepReport::of(
            report,
            warm_started,
            &self.r[..k],
            &self.u[..k],
            3,
        ))
    }

    fn restore(&mut self) {
        self.core.v.copy_from_slice(&self.v_start);
    }

    fn integrate(&mut self, h: f64) -> Result<(), StepError> {
        self.model
            .tree
            .integrate(&mut self.core.q, &self.core.v, h)?;
        self.core.t += h;
        Ok(())
    }

    /// The contacts and limits at the new positions (kept for the next
    /// step), and 5. correct: overlap and passed limits beyond the
    /// tolerance projected away.
    fn end_of_step(&mut self, h: f64) -> Result<(), StepError> {
        let tree = &self.model.tree;
        let clock = Clock::now();
        tree.positions(&mut self.ws, &self.core.q)?;
        tree.velocities(&mut self.ws, &self.core.v)?;
        self.kinematics_q.copy_from_slice(&self.core.q);
        self.kinematics_v.copy_from_slice(&self.core.v);
        self.kinematics_kept = true;
        let margin = self.margin(h)?;
        self.recollide(margin, h)?;
        self.fresh = true;
        self.core.totals.stages.collide += clock.elapsed();
        let clock = Clock::now();
        if self.overlapping()? {
            let report = self.displacement()?;
            self.core.totals.corrections += 1;
            self.core.last.corrected = true;
            self.core.last.account_for(&report);
            self.kinematics_kept = false;
            self.displace()?;
            self.recollide(margin, h)?;
        }
        let (overlap, passed) = self.violations();
        let totals = &mut self.core.totals;
        totals.max_penetration = totals.max_penetration.max(overlap);
        self.max_limit_violation = self.max_limit_violation.max(passed);
        totals.stages.correct += clock.elapsed();
        Ok(())
    }

    fn advance(&self, v: &[f64], s: f64, out: &mut [f64]) {
        // The lengths are the tree's and the step's velocities finite
        // (checked by the pipeline): nothing to refuse.
        let _ = self.model.tree.integrate(out, v, s);
    }

    fn energy(&self, _t: f64, q: &[f64], v: &[f64]) -> f64 {
        let mut ws = self.model.tree.workspace();
        energy_of(&self.model, &self.physics, &mut ws, q, v).unwrap_or(f64::NAN)
    }

    fn core(&self) -> &StepCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut StepCore {
        &mut self.core
    }
}

/// Runs `model` from `start` to `duration` by velocity-level time steps,
/// the controls held, the observer sampling every `output_every` (states
/// within a step on `q (+) s v+`). A start or a model the stepper refuses
/// ends the run unstarted with the reason.
pub fn simulate_tree(
    model: &Articulated,
    start: &TreeStart,
    duration: f64,
    settings: &StepSettings,
    observer: &mut dyn Observer,
) -> TreeOutcome {
    let energy = |q: &[f64], v: &[f64]| match Physics::new(model) {
        Ok(physics) => {
            let mut ws = model.tree.workspace();
            energy_of(model, &physics, &mut ws, q, v).unwrap_or(f64::NAN)
        }
        Err(_) => f64::NAN,
    };
    let make = || {
        let mut stepper = TreeStepper::new(model, settings.clone())?;
        stepper.reset(&start.qpos, &start.qvel, &start.ctrl)?;
        Ok(stepper)
    };
    let (outcome, stepper) = run_keeping(
        (start.qpos.clone(), start.qvel.clone()),
        Vec::new(),
        energy,
        duration,
        settings,
        make,
        observer,
    );
    let (bodies, max_limit_violation) = match stepper {
        Some(mut s) => (s.bodies().unwrap_or_default(), s.max_limit_violation),
        None => (Vec::new(), 0.0),
    };
    TreeOutcome {
        outcome,
        bodies,
        max_limit_violation,
    }
}

/// Whether a contact's overlap is one a displacement corrects: one that
/// slides the geoms at most [`SLIDE`] times as far as it separates them
/// (by `M`'s diagonal, in the tree's layout in `mass`).
fn correctable(tree: &Tree, mass: &[f64], entries: &[(usize, [f64; 3])]) -> bool {
    let madr = tree.mass_layout().0;
    let (mut normal, mut all) = (0.0, 0.0);
    for (dof, e) in entries {
        let d = mass[madr[*dof]];
        normal += e[0] * e[0] / d;
        all += (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / d;
    }
    normal * (1.0 + SLIDE * SLIDE) >= all
}
