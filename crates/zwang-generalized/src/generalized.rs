//! A [`System`] as a mechanism: its instant written in place, for the
//! QP, the forms and the stepper.

use crate::equations::{
    check_state, check_vectors, cholesky, evaluate, velocity_targets, Equations, Kernel,
};
use crate::forms::{self, FormsReport, LinearForm};
use crate::{ConstraintKind, GeneralizedError, System};
use sprs::CsMat;
use std::cell::RefCell;
use zwang_instant::{Instant, RowSet};
use zwang_model::{
    Bodies, BodyState, ContactState, Contacts, Coordinates, InstantWriter, Layout, Mechanism,
    ModelError,
};

/// What an evaluation in the stepper's loop writes into: kept in the
/// wrapper so that [`InstantWriter::update_instant`] allocates nothing.
#[derive(Debug, Clone)]
struct Scratch {
    kernel: Kernel,
    equations: Equations,
    /// The Cholesky factor of the last `M` (the positive definiteness
    /// check).
    factor: Vec<f64>,
    /// `Q - h`.
    force: Vec<f64>,
    /// `qd = 0` (holonomic constraints are evaluated there).
    zeros: Vec<f64>,
}

/// A [`System`] with what evaluating it needs: its coordinate names and
/// preallocated scratch. It implements [`Mechanism`] (no contacts; one
/// "body" per coordinate, so that reports print the coordinates;
/// energy `T + V`), so `zwang_motion::simulate` runs it. Writing the
/// instant in place ([`Generalized::update`], [`InstantWriter::update_instant`])
/// allocates nothing (the [`elements`](crate::elements) helpers keep their
/// scratch on the stack up to 16 coordinates).
///
/// Velocity-level rows and the stepper's velocity projection: the
/// projection asks for the `c` of `A qd = c` at `(t, q)` and the velocity
/// it projects. For a holonomic row `c = -phi_t`; for a velocity-level
/// row `c = A qd - f(t, q, qd)`, exact for a Pfaffian `f = B qd + beta`
/// (`c = -beta`) at any `qd`. For a nonlinear `f` it is the linearization
/// at that velocity: the projection is one Newton step towards `f = 0`,
/// and repeated projections converge to it.
#[derive(Debug)]
pub struct Generalized<S: System> {
    system: S,
    names: Vec<String>,
    initial: (Vec<f64>, Vec<f64>),
    scratch: RefCell<Scratch>,
}

impl<S: System> Generalized<S> {
    /// Wraps `system`; checks that it has coordinates and that its initial
    /// state has `n` finite entries each.
    pub fn new(system: S) -> Result<Self, GeneralizedError> {
        let n = system.dof();
        if n == 0 {
            return Err(GeneralizedError::NoCoordinates);
        }
        let (q0, qd0) = system.initial_state();
        check_vectors(n, [("initial q", &q0), ("initial qd", &qd0)])?;
        let m = system.constraints();
        let names = (0..n).map(|i| system.coordinate_name(i)).collect();
        let scratch = Scratch {
            kernel: Kernel::new(n),
            equations: Equations::zeros(n, m),
            factor: vec![0.0; n * n],
            force: vec![0.0; n],
            zeros: vec![0.0; n],
        };
        Ok(Generalized {
            system,
            names,
            initial: (q0, qd0),
            scratch: RefCell::new(scratch),
        })
    }

    /// The wrapped system.
    pub fn system(&self) -> &S {
        &self.system
    }

    /// Number of coordinates `n`.
    pub fn dof(&self) -> usize {
        self.names.len()
    }

    /// The coordinates' names.
    pub fn coordinate_names(&self) -> &[String] {
        &self.names
    }

    /// Number of constraints `m` (fixed when wrapped).
    pub fn constraint_count(&self) -> usize {
        self.scratch.borrow().equations.constraints()
    }

    /// The initial `(q, qd)`.
    pub fn initial(&self) -> (Vec<f64>, Vec<f64>) {
        self.initial.clone()
    }

    /// Evaluates into the scratch and checks `M`.
    fn fill(&self, s: &mut Scratch, t: f64, q: &[f64], qd: &[f64]) -> Result<(), GeneralizedError> {
        check_state(self.dof(), q, qd)?;
        let Scratch {
            kernel,
            equations,
            factor,
            force,
            ..
        } = s;
        evaluate(&self.system, t, q, qd, kernel, equations)?;
        cholesky(&equations.mass, equations.n, factor)?;
        for ((f, a), h) in force
            .iter_mut()
            .zip(&equations.applied)
            .zip(&equations.velocity_terms)
        {
            *f = a - h;
        }
        Ok(())
    }

    /// The equations of motion at `(t, q, qd)`: `M`, `h`, `Q`, the rows.
    /// Errors: wrong lengths, a state or value that is not finite, `M` not
    /// positive definite.
    pub fn equations(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Equations, GeneralizedError> {
        let mut s = self.scratch.borrow_mut();
        self.fill(&mut s, t, q, qd)?;
        Ok(s.equations.clone())
    }

    /// The instant at `(t, q, qd)`: `M`, `Q - h`, and the constraints as
    /// equality rows `A qdd = b` (dense patterns: every entry is stored, so
    /// that the pattern does not change as the values pass through zero).
    pub fn instant(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Instant, GeneralizedError> {
        let mut s = self.scratch.borrow_mut();
        self.fill(&mut s, t, q, qd)?;
        let e = &s.equations;
        let n = e.n;
        let m = e.constraints();
        let dense = |rows: usize, values: &[f64]| {
            CsMat::new(
                (rows, n),
                (0..=rows).map(|i| i * n).collect(),
                (0..rows * n).map(|k| k % n).collect(),
                values.to_vec(),
            )
        };
        let mut builder = Instant::builder(dense(n, &e.mass), s.force.clone());
        if m > 0 {
            builder = builder.equalities(dense(m, &e.jacobian), e.rhs.clone());
        }
        Ok(builder.build()?)
    }

    /// Writes the values at `(t, q, qd)` into an instant made by
    /// [`Generalized::instant`] (no allocation).
    pub fn update(
        &self,
        t: f64,
        q: &[f64],
        qd: &[f64],
        instant: &mut Instant,
    ) -> Result<(), GeneralizedError> {
        let n = self.dof();
        let mut s = self.scratch.borrow_mut();
        let m = s.equations.constraints();
        let eq = instant.equalities();
        if instant.dim() != n
            || instant.mass().nnz() != n * n
            || eq.len() != m
            || eq.matrix().nnz() != m * n
            || !instant.inequalities().is_empty()
        {
            return Err(GeneralizedError::Length {
                what: "instant (not made by this system)",
                found: instant.dim(),
                expected: n,
            });
        }
        self.fill(&mut s, t, q, qd)?;
        instant.set_mass_values(&s.equations.mass)?;
        instant.set_force(&s.force)?;
        if m > 0 {
            let e = &s.equations;
            instant.edit_rows(RowSet::Equalities, |a, b| {
                a.copy_from_slice(&e.jacobian);
                b.copy_from_slice(&e.rhs);
            })?;
        }
        Ok(())
    }

    /// The Appell, Lagrange and Nielsen forms at `(t, q, qd)` beside the
    /// engine's `M` and `h`, with their largest differences. Allocates:
    /// a check, not for a stepping loop.
    pub fn forms(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<FormsReport, GeneralizedError> {
        let e = self.equations(t, q, qd)?;
        let engine = LinearForm {
            mass: e.mass.clone(),
            bias: e.velocity_terms.clone(),
        };
        forms::report(
            &self.system,
            self.names.clone(),
            t,
            q,
            qd,
            engine,
            e.applied,
        )
    }

    /// `T + V` at `(t, q, qd)` (`NaN` for a state of the wrong length).
    pub fn energy_at(&self, t: f64, q: &[f64], qd: &[f64]) -> f64 {
        let n = self.dof();
        if q.len() != n || qd.len() != n {
            return f64::NAN;
        }
        self.system.kinetic(t, q, qd) + self.system.potential(t, q)
    }

    /// The `c` of `A qd = c` at `(t, q, qd)` into `out` (see the type's
    /// docs).
    fn targets(&self, t: f64, q: &[f64], qd: &[f64], out: &mut [f64]) {
        let s = &mut *self.scratch.borrow_mut();
        if q.len() != self.dof() || qd.len() != self.dof() {
            out.fill(f64::NAN);
            return;
        }
        velocity_targets(&self.system, t, q, qd, &mut s.kernel, out);
    }
}

/// A [`Generalized`] system with its type erased: what the catalog hands
/// out, and what a command line holds. `Box<dyn AnySystem>` is a
/// [`Mechanism`] too.
pub trait AnySystem: Mechanism {
    /// Number of coordinates `n`.
    fn dof(&self) -> usize;
    /// The coordinates' names.
    fn coordinate_names(&self) -> &[String];
    /// Number of constraints.
    fn constraint_count(&self) -> usize;
    /// The initial `(q, qd)`.
    fn initial(&self) -> (Vec<f64>, Vec<f64>);
    /// See [`Generalized::equations`].
    fn equations(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Equations, GeneralizedError>;
    /// See [`Generalized::instant`].
    fn instant(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Instant, GeneralizedError>;
    /// See [`Generalized::forms`].
    fn forms(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<FormsReport, GeneralizedError>;
}

impl<S: System> AnySystem for Generalized<S> {
    fn dof(&self) -> usize {
        Generalized::dof(self)
    }
    fn coordinate_names(&self) -> &[String] {
        Generalized::coordinate_names(self)
    }
    fn constraint_count(&self) -> usize {
        Generalized::constraint_count(self)
    }
    fn initial(&self) -> (Vec<f64>, Vec<f64>) {
        Generalized::initial(self)
    }
    fn equations(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Equations, GeneralizedError> {
        Generalized::equations(self, t, q, qd)
    }
    fn instant(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<Instant, GeneralizedError> {
        Generalized::instant(self, t, q, qd)
    }
    fn forms(&self, t: f64, q: &[f64], qd: &[f64]) -> Result<FormsReport, GeneralizedError> {
        Generalized::forms(self, t, q, qd)
    }
}

fn no_contacts(modes: &[ContactState]) -> Result<(), ModelError> {
    zwang_model::no_contacts(modes, "a system in generalized coordinates")
}

impl<S: System> Coordinates for Generalized<S> {
    fn nq(&self) -> usize {
        self.dof()
    }
    fn nv(&self) -> usize {
        self.dof()
    }
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        q.copy_from_slice(&self.initial.0);
        v.copy_from_slice(&self.initial.1);
    }
    fn position_rate(&self, _q: &[f64], v: &[f64], qdot: &mut [f64]) {
        qdot.copy_from_slice(v);
    }
    fn displace(&self, q: &mut [f64], dv: &[f64]) {
        for (x, d) in q.iter_mut().zip(dv) {
            *x += d;
        }
    }
}

impl<S: System> InstantWriter for Generalized<S> {
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError> {
        no_contacts(modes)?;
        let instant = self.instant(t, q, v)?;
        let layout = Layout {
            joint_rows: self.constraint_count(),
            contacts: Vec::new(),
        };
        Ok((instant, layout))
    }
    fn update_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        instant: &mut Instant,
    ) -> Result<(), ModelError> {
        no_contacts(modes)?;
        Ok(self.update(t, q, v, instant)?)
    }
    fn violations(
        &self,
        t: f64,
        q: &[f64],
        _modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        ineq.fill(0.0);
        let n = self.dof();
        if q.len() != n {
            eq.fill(f64::NAN);
            return;
        }
        let s = self.scratch.borrow();
        for (k, x) in eq.iter_mut().enumerate() {
            *x = if k < s.equations.constraints()
                && self.system.constraint_kind(k) == ConstraintKind::Holonomic
            {
                self.system.constraint(k, t, q, &s.zeros)
            } else {
                0.0
            };
        }
    }
    fn velocity_targets(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        _modes: &[ContactState],
        eq: &mut [f64],
    ) {
        self.targets(t, q, v, eq);
    }
}

/// No contacts: the catalog's systems hold their constraints as rows.
impl<S: System> Contacts for Generalized<S> {}

impl<S: System> Bodies for Generalized<S> {
    fn bodies(&self) -> usize {
        self.dof()
    }
    fn body_name(&self, b: usize) -> &str {
        &self.names[b]
    }
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState {
        BodyState {
            position: vec![q[b]],
            velocity: vec![v[b]],
            angle: None,
            angular_velocity: None,
        }
    }
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        self.energy_at(t, q, v)
    }
}

/// The type-erased system runs in the stepper like any mechanism.
impl Coordinates for Box<dyn AnySystem> {
    fn nq(&self) -> usize {
        (**self).nq()
    }
    fn nv(&self) -> usize {
        (**self).nv()
    }
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]) {
        (**self).initial_state(q, v)
    }
    fn position_rate(&self, q: &[f64], v: &[f64], qdot: &mut [f64]) {
        (**self).position_rate(q, v, qdot)
    }
    fn displace(&self, q: &mut [f64], dv: &[f64]) {
        (**self).displace(q, dv)
    }
}

impl InstantWriter for Box<dyn AnySystem> {
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError> {
        (**self).build_instant(t, q, v, modes)
    }
    fn update_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        instant: &mut Instant,
    ) -> Result<(), ModelError> {
        (**self).update_instant(t, q, v, modes, instant)
    }
    fn violations(
        &self,
        t: f64,
        q: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    ) {
        (**self).violations(t, q, modes, eq, ineq)
    }
    fn velocity_targets(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
    ) {
        (**self).velocity_targets(t, q, v, modes, eq)
    }
}

impl Contacts for Box<dyn AnySystem> {
    fn contacts(&self) -> usize {
        (**self).contacts()
    }
    fn contact_name(&self, k: usize) -> &str {
        (**self).contact_name(k)
    }
    fn friction(&self, k: usize) -> f64 {
        (**self).friction(k)
    }
    fn viscous(&self, k: usize) -> f64 {
        (**self).viscous(k)
    }
    fn restitution(&self, k: usize) -> f64 {
        (**self).restitution(k)
    }
    fn gap(&self, k: usize, q: &[f64]) -> f64 {
        (**self).gap(k, q)
    }
    fn contact_velocity(&self, k: usize, q: &[f64], v: &[f64]) -> (f64, f64) {
        (**self).contact_velocity(k, q, v)
    }
}

impl Bodies for Box<dyn AnySystem> {
    fn bodies(&self) -> usize {
        (**self).bodies()
    }
    fn body_name(&self, b: usize) -> &str {
        (**self).body_name(b)
    }
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState {
        (**self).body_state(b, q, v)
    }
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        (**self).energy(t, q, v)
    }
}
