//! The rigid rod of Yao & Gao: a rod of mass `m` and length
//! `2l` whose end `A` slides on a rough horizontal plane, the smallest
//! system where the minimum and the variational forms of Gauss's principle
//! part ways, and where Painleve's paradox lives.
//!
//! Coordinates `q = (x, y, theta)`: the centre and the angle to the ground;
//! `J = m l^2 / 3`; the contact end is `A = (x - l cos th, y - l sin th)`,
//! so (differentiating `y_A` twice) the normal row is Yao & Gao eq 18,
//!
//! ```text
//! y_A'' = y'' - l cos th th'' + l sin th th'^2 >= 0
//! J_n = (0, 1, -l cos th),   J_t = (1, 0, l sin th),   x_A' = x' + l sin th th'
//! ```
//!
//! and the slip sign is `s = sign(x_A')`: `s = +1` the contact end trails
//! the rod, `s = -1` it leads (the only case where Painleve can happen).

use crate::check::check;
use crate::contact::variational;
use crate::frozen::{fixed_point, frozen_qp, Difference, FixedPointOptions};
use std::fmt::Write;
use zwang_instant::{
    matrix_from_triplets, Instant, InstantError, RowRef, RowSet, SlidingContact, StickingContact,
};
use zwang_qp::{AutoBackend, Backend, Solution};

/// The rod and its contact with the plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidRod {
    /// `m`.
    pub mass: f64,
    /// `l` (the rod is `2l` long).
    pub half_length: f64,
    /// `g`, pointing down (`-y`).
    pub gravity: f64,
    /// Coulomb coefficient `mu` (for [`FrictionLaw::Coulomb`] and
    /// [`FrictionLaw::Sticking`]).
    pub mu: f64,
    /// Viscous coefficient `k` of `F_t = -k x_A'` (for
    /// [`FrictionLaw::Viscous`]).
    pub viscous: f64,
}

/// The rod's state `(q, q')`; only the velocities enter the instant (and
/// `theta`), the position of the centre does not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodState {
    /// Centre, horizontal.
    pub x: f64,
    /// Centre, vertical.
    pub y: f64,
    /// Angle to the ground.
    pub theta: f64,
    /// `x'`.
    pub xd: f64,
    /// `y'`.
    pub yd: f64,
    /// `theta'`.
    pub thetad: f64,
}

/// The tangential force law at the contact end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionLaw {
    /// No tangential force.
    Smooth,
    /// `F_t = -k x_A'`: a state function, folded into `Q` (Yao & Gao, case 1).
    Viscous,
    /// `F_t = -mu s |F_n|`, `s = sign(x_A')`: a sliding contact entry.
    Coulomb,
    /// The contact end does not slip: the equality row `x_A'' = 0`
    /// (`x'' + l sin th th'' = -l cos th th'^2`) with a cone check.
    Sticking,
}

/// How the normal row is posed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormalRow {
    /// `y_A'' >= 0`: a closed unilateral contact (the physical one).
    Unilateral,
    /// `y_A'' = 0`: the end held on the plane both ways, as Yao & Gao
    /// assumes for simplicity.
    Bilateral,
}

/// Accelerations and contact forces of the rod.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodAnswer {
    /// `(x'', y'', theta'')`.
    pub acceleration: [f64; 3],
    /// `F_n` (the normal row's multiplier).
    pub normal_force: f64,
    /// `F_t` along `+x` at the contact end.
    pub friction_force: f64,
}

/// The closed forms of the contact operators (design notes section 3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodCoupling {
    /// `D = (1 + 3 cos^2 th) / m`.
    pub d: f64,
    /// `C = J_n M^-1 J_t^T mu s = -3 mu s sin th cos th / m`.
    pub c: f64,
    /// `G = D - C = (1 + 3 cos^2 th + 3 mu s sin th cos th) / m`.
    pub g: f64,
    /// `kappa = |C| / D = 3 mu sin th cos th / (1 + 3 cos^2 th)`.
    pub kappa: f64,
}

/// Seed 003 eqs 21-22 against the engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeedCheck {
    /// The engine's variational answer.
    pub engine: RodAnswer,
    /// The closed form from the Newton-Euler equations.
    pub closed_form: RodAnswer,
    /// Largest residual of eqs 21-22 (`m x'' = F_t`, `m y'' = F_n - m g`,
    /// `(m l^2 / 3) th'' = -F_n l cos th + F_t l sin th`) at the engine's
    /// answer, relative to the largest force in them (at least `m g`).
    pub residual: f64,
    /// Largest difference engine - closed form, relative to the size of
    /// the closed-form accelerations (at least `g`) and forces (at least
    /// `m g`): near Painleve they grow like `1 / G`.
    pub difference: f64,
}

/// The friction coefficient at which the leading-end rod at angle `theta`
/// reaches `kappa = 1` (Painleve beyond it):
/// `mu = (1 + 3 cos^2 th) / (3 sin th cos th)`; smallest, `4/3`, at
/// `tan th = 2`.
pub fn painleve_boundary_mu(theta: f64) -> f64 {
    let (s, c) = theta.sin_cos();
    (1.0 + 3.0 * c * c) / (3.0 * s * c)
}

impl RigidRod {
    /// `J = m l^2 / 3` about the centre.
    pub fn inertia(&self) -> f64 {
        self.mass * self.half_length * self.half_length / 3.0
    }

    /// A state with the contact end on the plane and not moving vertically
    /// (`y_A = 0`, `y_A' = 0`).
    pub fn state_on_plane(&self, theta: f64, xd: f64, thetad: f64) -> RodState {
        let l = self.half_length;
        RodState {
            x: 0.0,
            y: l * theta.sin(),
            theta,
            xd,
            yd: l * theta.cos() * thetad,
            thetad,
        }
    }

    /// `x_A' = x' + l sin th th'`, the contact end's sliding velocity.
    pub fn contact_velocity(&self, state: &RodState) -> f64 {
        state.xd + self.half_length * state.theta.sin() * state.thetad
    }

    /// `s = sign(x_A')`; a contact end at rest counts as trailing (`+1`):
    /// use [`FrictionLaw::Sticking`] for a rod that does not slip.
    pub fn slip(&self, state: &RodState) -> f64 {
        if self.contact_velocity(state) >= 0.0 {
            1.0
        } else {
            -1.0
        }
    }

    /// The instant of the rod at `state`: `M = diag(m, m, J)`,
    /// `Q = (0, -m g, 0)` plus the viscous force, the normal row (eq 18),
    /// and the friction entry or sticking row of the law.
    pub fn instant(
        &self,
        state: &RodState,
        law: FrictionLaw,
        normal: NormalRow,
    ) -> Result<Instant, InstantError> {
        let (m, l) = (self.mass, self.half_length);
        let (s, c) = state.theta.sin_cos();
        let w2 = state.thetad * state.thetad;
        let tangent = vec![1.0, 0.0, l * s];
        let mut force = vec![0.0, -m * self.gravity, 0.0];
        if law == FrictionLaw::Viscous {
            let ft = -self.viscous * self.contact_velocity(state);
            for (f, t) in force.iter_mut().zip(&tangent) {
                *f += ft * t;
            }
        }
        let mass = matrix_from_triplets(
            "mass",
            (3, 3),
            [(0, 0, m), (1, 1, m), (2, 2, self.inertia())],
        )?;
        let normal_row = [(0, 1, 1.0), (0, 2, -l * c)];
        let normal_rhs = -l * s * w2;
        let sticking = law == FrictionLaw::Sticking;
        // Equalities: the normal row when bilateral, then the sticking row.
        let mut eq = Vec::new();
        let mut eq_rhs = Vec::new();
        let normal_ref = match normal {
            NormalRow::Bilateral => {
                eq.extend(normal_row);
                eq_rhs.push(normal_rhs);
                RowRef {
                    set: RowSet::Equalities,
                    row: 0,
                }
            }
            NormalRow::Unilateral => RowRef {
                set: RowSet::Inequalities,
                row: 0,
            },
        };
        if sticking {
            let row = eq_rhs.len();
            eq.extend([(row, 0, 1.0), (row, 2, l * s)]);
            eq_rhs.push(-l * c * w2);
        }
        let mut builder = Instant::builder(mass, force).name("rigid rod (Yao & Gao)");
        if !eq_rhs.is_empty() {
            builder = builder.equalities(
                matrix_from_triplets("equalities.A", (eq_rhs.len(), 3), eq)?,
                eq_rhs.clone(),
            );
        }
        if normal == NormalRow::Unilateral {
            builder = builder.inequalities(
                matrix_from_triplets("inequalities.A", (1, 3), normal_row)?,
                vec![normal_rhs],
            );
        }
        match law {
            FrictionLaw::Coulomb => {
                builder = builder.sliding(SlidingContact {
                    normal: normal_ref,
                    tangent,
                    mu: self.mu,
                    slip: self.slip(state),
                })
            }
            FrictionLaw::Sticking => {
                builder = builder.sticking(StickingContact {
                    normal: normal_ref,
                    tangent_row: eq_rhs.len() - 1,
                    mu: self.mu,
                })
            }
            FrictionLaw::Smooth | FrictionLaw::Viscous => {}
        }
        builder.build()
    }

    /// `D`, `C`, `G`, `kappa` in closed form for the angle and slip sign.
    pub fn coupling(&self, theta: f64, slip: f64) -> RodCoupling {
        let (s, c) = theta.sin_cos();
        let m = self.mass;
        let d = (1.0 + 3.0 * c * c) / m;
        let coupling = -3.0 * self.mu * slip * s * c / m;
        RodCoupling {
            d,
            c: coupling,
            g: d - coupling,
            kappa: coupling.abs() / d,
        }
    }

    /// The rod's accelerations and forces from Newton-Euler (Yao & Gao
    /// eqs 21-22) and the contact row, by hand: with
    /// `r = m (g - l sin th th'^2)`,
    /// `F_n (1 + 3 cos^2 th) - 3 sin th cos th F_t = r`; Coulomb
    /// `F_t = -mu s |F_n|`; sticking pins `A`, `th'' = -3 g cos th / (4 l)`,
    /// while `|F_t| <= mu F_n`, and otherwise the end starts to slip against
    /// the force that would have pinned it. A bilateral row takes the sign
    /// of `F_n` that is consistent; a unilateral row pulled off opens (free
    /// flight under `Q`).
    pub fn closed_form(&self, state: &RodState, law: FrictionLaw, normal: NormalRow) -> RodAnswer {
        let (m, l, g) = (self.mass, self.half_length, self.gravity);
        let (s, c) = state.theta.sin_cos();
        let w2 = state.thetad * state.thetad;
        let r = m * (g - l * s * w2);
        let from_forces = |fnormal: f64, ft: f64| RodAnswer {
            acceleration: [
                ft / m,
                fnormal / m - g,
                3.0 * (ft * s - fnormal * c) / (m * l),
            ],
            normal_force: fnormal,
            friction_force: ft,
        };
        let unilateral = normal == NormalRow::Unilateral;
        // With the contact open only the applied forces act (the viscous
        // force is part of `Q`, as in the instant).
        let open = |ft: f64| from_forces(0.0, ft);
        let free_normal = -g + l * s * w2;
        // Sliding with F_t = -mu d sigma F_n (sigma = sign(F_n) on a
        // bilateral row): the normal force from eq 18 and eqs 21-22; `None`
        // on a unilateral row that would have to pull.
        let sliding = |d: f64| -> Option<RodAnswer> {
            let solve = |sigma: f64| r / (1.0 + 3.0 * c * c + 3.0 * self.mu * d * sigma * s * c);
            let mut fnormal = solve(1.0);
            if fnormal < 0.0 && !unilateral && solve(-1.0) <= 0.0 {
                fnormal = solve(-1.0);
            }
            (fnormal >= 0.0 || !unilateral)
                .then(|| from_forces(fnormal, -self.mu * d * fnormal.abs()))
        };
        let tangent_acc =
            |a: &RodAnswer| a.acceleration[0] + l * s * a.acceleration[2] + l * c * w2;
        match law {
            FrictionLaw::Smooth => {
                let fnormal = r / (1.0 + 3.0 * c * c);
                if fnormal < 0.0 && unilateral {
                    open(0.0)
                } else {
                    from_forces(fnormal, 0.0)
                }
            }
            FrictionLaw::Viscous => {
                let ft = -self.viscous * self.contact_velocity(state);
                let fnormal = (r + 3.0 * s * c * ft) / (1.0 + 3.0 * c * c);
                if fnormal < 0.0 && unilateral {
                    open(ft)
                } else {
                    from_forces(fnormal, ft)
                }
            }
            FrictionLaw::Coulomb => sliding(self.slip(state)).unwrap_or_else(|| open(0.0)),
            FrictionLaw::Sticking => {
                let thdd = -3.0 * g * c / (4.0 * l);
                let xdd = -l * s * thdd - l * c * w2;
                let ydd = l * c * thdd - l * s * w2;
                let (fnormal, ft) = (m * (ydd + g), m * xdd);
                let pinned = fnormal >= 0.0 || !unilateral;
                if pinned && ft.abs() <= self.mu * fnormal.abs() {
                    RodAnswer {
                        acceleration: [xdd, ydd, thdd],
                        normal_force: fnormal,
                        friction_force: ft,
                    }
                } else {
                    // The force that would pin the end leaves the cone (or
                    // would pull): the end slips against it, or lifts off.
                    let d = if ft == 0.0 { 1.0 } else { -ft.signum() };
                    let slip = |d: f64| sliding(d).filter(|a| d * tangent_acc(a) >= 0.0);
                    slip(d)
                        .or_else(|| (unilateral && free_normal >= 0.0).then(|| open(0.0)))
                        .or_else(|| slip(-d))
                        .unwrap_or_else(|| open(0.0))
                }
            }
        }
    }

    /// Largest residual of Yao & Gao eqs 21-22 at `answer`, relative to the
    /// largest force in them (at least `m g`).
    pub fn equations_residual(&self, state: &RodState, answer: &RodAnswer) -> f64 {
        let (m, l, g) = (self.mass, self.half_length, self.gravity);
        let (s, c) = state.theta.sin_cos();
        let [xdd, ydd, thdd] = answer.acceleration;
        let (fnormal, ft) = (answer.normal_force, answer.friction_force);
        let residuals = [
            m * xdd - ft,
            m * ydd - (fnormal - m * g),
            (self.inertia() * thdd - (-fnormal * l * c + ft * l * s)) / l,
        ];
        let scale = [m * g, fnormal, ft, m * xdd, m * ydd, m * l * thdd]
            .iter()
            .fold(f64::MIN_POSITIVE, |a, x| a.max(x.abs()));
        residuals.iter().fold(0.0f64, |a, r| a.max(r.abs())) / scale
    }

    /// The rod's answer read off an engine solution of [`RigidRod::instant`].
    pub fn answer(
        &self,
        state: &RodState,
        law: FrictionLaw,
        normal: NormalRow,
        solution: &Solution,
    ) -> RodAnswer {
        let fnormal = match normal {
            NormalRow::Bilateral => solution.multipliers_eq[0],
            NormalRow::Unilateral => solution.multipliers_in[0],
        };
        let ft = match law {
            FrictionLaw::Smooth => 0.0,
            FrictionLaw::Viscous => -self.viscous * self.contact_velocity(state),
            FrictionLaw::Coulomb => -self.mu * self.slip(state) * fnormal.abs(),
            FrictionLaw::Sticking => *solution.multipliers_eq.last().expect("the sticking row"),
        };
        let a = &solution.acceleration;
        RodAnswer {
            acceleration: [a[0], a[1], a[2]],
            normal_force: fnormal,
            friction_force: ft,
        }
    }

    /// Seed 003 eqs 21-22 against the engine's variational answer (for the
    /// smooth, viscous and sticking laws it is the plain multiplier
    /// solution, the same as the QP's).
    pub fn seed_check(
        &self,
        state: &RodState,
        law: FrictionLaw,
        normal: NormalRow,
    ) -> Result<SeedCheck, InstantError> {
        let instant = self.instant(state, law, normal)?;
        let engine = self.answer(state, law, normal, &variational(&instant).solution);
        let closed_form = self.closed_form(state, law, normal);
        let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let acc_scale = inf(&closed_form.acceleration).max(self.gravity.abs());
        let force_scale = inf(&[closed_form.normal_force, closed_form.friction_force])
            .max((self.mass * self.gravity).abs());
        let mut difference = 0.0f64;
        for (a, b) in engine.acceleration.iter().zip(&closed_form.acceleration) {
            difference = difference.max((a - b).abs() / acc_scale);
        }
        difference = difference
            .max((engine.normal_force - closed_form.normal_force).abs() / force_scale)
            .max((engine.friction_force - closed_form.friction_force).abs() / force_scale);
        Ok(SeedCheck {
            engine,
            closed_form,
            residual: self.equations_residual(state, &engine),
            difference,
        })
    }
}

/// A readable side-by-side of every form on the rod of Yao & Gao at a
/// default state, with the checker's verdicts, the check of eqs 21-22 and
/// a Painleve case. Self-contained and fast (a few milliseconds).
pub fn demonstration() -> String {
    let rod = RigidRod {
        mass: 1.0,
        half_length: 1.0,
        gravity: 9.81,
        mu: 0.3,
        viscous: 0.5,
    };
    let theta = 60f64.to_radians();
    let thetad = 0.5;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "The rigid rod of Yao & Gao sliding on a rough plane\n  \
         (Yao Wenli and Gao Junping, \"A discussion on the equivalence of two forms of Gauss' \
         principle\", 2026)\n  \
         m = {}, l = {} (length 2l, J = m l^2/3), g = {}, theta = 60 deg, theta' = {thetad} rad/s\n  \
         q = (x, y, theta); contact end A = (x - l cos th, y - l sin th), closed (unilateral row)\n  \
         eq 18: y'' - l cos th th'' + l sin th th'^2 >= 0; slip s = sign(x_A'), x_A' = x' + l sin th th'",
        rod.mass, rod.half_length, rod.gravity
    );
    let _ = writeln!(
        w,
        "\nWhat the symbols mean:\n  \
         F_n, F_t  normal force of the plane on the rod end, and friction force along the plane\n  \
         D         how much the end's normal acceleration grows per unit of normal force (an inverse mass)\n  \
         C         how much the friction that comes with that normal force changes the same acceleration\n  \
         G = D - C the normal acceleration per unit of normal force once friction is counted; G <= 0: Painleve\n  \
         kappa     |C| / D, the share of the normal response that friction takes back (1 or more: Painleve band)\n  \
         coupling  rho(D^-1 C), the largest such share over coupled contacts; frozen friction re-solved\n            \
         converges to the Newton answer at this rate when it is below 1\n  \
         P-matrix  every principal minor of G positive: the contact problem has exactly one answer\n  \
         qp         the minimum form with friction left out; frozen_qp: friction frozen at the\n             \
         frictionless F_n, then the minimum form; fixed_point: frozen_qp repeated until F_n settles;\n             \
         variational: the equations of motion with friction coupled to F_n (the Newton answer)"
    );
    let mut backend = AutoBackend::new();
    for (label, xd) in [("trailing", 2.0), ("leading", -2.0)] {
        let state = rod.state_on_plane(theta, xd, thetad);
        sliding_section(w, &rod, &state, label, &mut backend);
    }
    painleve_section(w, &mut backend);
    out
}

fn row(w: &mut String, form: &str, status: &str, a: &RodAnswer) {
    let [x, y, t] = a.acceleration;
    let _ = writeln!(
        w,
        "  {form:<34} {status:<14} {x:>9.4} {y:>9.4} {t:>9.4} {:>9.4} {:>9.4}",
        a.normal_force, a.friction_force
    );
}

fn sliding_section(
    w: &mut String,
    rod: &RigidRod,
    state: &RodState,
    label: &str,
    backend: &mut dyn Backend,
) {
    let normal = NormalRow::Unilateral;
    let slip = rod.slip(state);
    let _ = writeln!(
        w,
        "\n[{label} end: x' = {}, x_A' = {:.4}, s = {slip:+}]  Coulomb mu = {}",
        state.xd,
        rod.contact_velocity(state),
        rod.mu
    );
    let instant = rod
        .instant(state, FrictionLaw::Coulomb, normal)
        .expect("the default rod is valid");
    let report = check(&instant);
    let closed = rod.coupling(state.theta, slip);
    let _ = writeln!(
        w,
        "  checker: {}, coupling {:.4} (closed form kappa {:.4}); D = {:.4}, C = {:.4}, G = {:.4} \
         (closed form {:.4}, {:.4}, {:.4})\n  {}",
        report.verdict,
        report.coupling,
        closed.kappa,
        report.d()[0][0],
        report.c()[0][0],
        report.g()[0][0],
        closed.d,
        closed.c,
        closed.g,
        report.reason
    );
    let _ = writeln!(
        w,
        "  {:<34} {:<14} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "form", "status", "x''", "y''", "th''", "F_n", "F_t"
    );
    let frozen = frozen_qp(&instant, backend);
    let fixed = fixed_point(&instant, backend, FixedPointOptions::default());
    let var = variational(&instant);
    let answer = |s: &Solution| rod.answer(state, FrictionLaw::Coulomb, normal, s);
    // The QPs' friction is the frozen one, not -mu s |F_n| of their answer.
    let frozen_answer = RodAnswer {
        friction_force: frozen.friction_force[0],
        ..answer(&frozen.solution)
    };
    let frictionless = RodAnswer {
        friction_force: 0.0,
        ..answer(&frozen.frictionless)
    };
    row(
        w,
        "qp (friction ignored)",
        frozen.frictionless.status.as_str(),
        &frictionless,
    );
    row(
        w,
        "frozen_qp",
        frozen.solution.status.as_str(),
        &frozen_answer,
    );
    let rate = fixed.rate.map_or("-".into(), |r| format!("{r:.4}"));
    row(
        w,
        &format!("fixed_point ({} it, rate {rate})", fixed.iterations),
        fixed.solution.status.as_str(),
        &answer(&fixed.solution),
    );
    row(
        w,
        "variational",
        var.solution.status.as_str(),
        &answer(&var.solution),
    );
    let seed = rod
        .seed_check(state, FrictionLaw::Coulomb, normal)
        .expect("valid");
    row(
        w,
        "Yao & Gao eqs 21-22 (closed form)",
        "-",
        &seed.closed_form,
    );
    let diff = Difference::between(&frozen.solution, &var.solution);
    let _ = writeln!(
        w,
        "  variational vs eqs 21-22: residual {:.1e}, |engine - closed form| {:.1e} (relative)\n  \
         frozen_qp - variational: |a| {:.4}, |lambda| {:.4} (the non-equivalence)",
        seed.residual, seed.difference, diff.acceleration, diff.multipliers
    );
    for (law, name) in [
        (FrictionLaw::Smooth, "smooth plane (qp)".to_string()),
        (
            FrictionLaw::Viscous,
            format!("viscous k = {} (qp)", rod.viscous),
        ),
    ] {
        let instant = rod.instant(state, law, normal).expect("valid");
        let qp = backend.solve(&instant);
        let seed = rod.seed_check(state, law, normal).expect("valid");
        row(
            w,
            &name,
            qp.status.as_str(),
            &rod.answer(state, law, normal, &qp),
        );
        let _ = writeln!(
            w,
            "    checker: {}; vs eqs 21-22: residual {:.1e}, |engine - closed form| {:.1e}",
            check(&instant).verdict,
            seed.residual,
            seed.difference
        );
    }
}

fn painleve_section(w: &mut String, backend: &mut dyn Backend) {
    let rod = RigidRod {
        mass: 1.0,
        half_length: 1.0,
        gravity: 9.81,
        mu: 1.5,
        viscous: 0.0,
    };
    let theta = 2f64.atan();
    let _ = writeln!(
        w,
        "\n[Painleve: leading end, mu = {}, tan th = 2 (theta = {:.2} deg)]\n  \
         boundary mu = (1 + 3 cos^2 th)/(3 sin th cos th) = {:.4} here, smallest 4/3 at tan th = 2",
        rod.mu,
        theta.to_degrees(),
        painleve_boundary_mu(theta)
    );
    for thetad in [0.0, 4.0] {
        // x' = -6 keeps the end leading (x_A' < 0) at both spin rates.
        let state = rod.state_on_plane(theta, -6.0, thetad);
        let instant = rod
            .instant(&state, FrictionLaw::Coulomb, NormalRow::Unilateral)
            .expect("valid");
        let report = check(&instant);
        let closed = rod.coupling(theta, rod.slip(&state));
        let var = variational(&instant);
        let fixed = fixed_point(&instant, backend, FixedPointOptions::default());
        let _ = writeln!(
            w,
            "  theta' = {thetad}, x_A' = {:.4}: free normal acceleration {:.4}, kappa {:.4} (closed form {:.4}), G = {:.4}\n    \
             checker: {}: {}\n    variational: {}{}; fixed_point: {} after {} re-solves",
            rod.contact_velocity(&state),
            report.free_normal_acceleration[0],
            report.coupling,
            closed.kappa,
            report.g()[0][0],
            report.verdict,
            report.reason,
            var.solution.status,
            match var.answers {
                crate::Answers::None => " (no combination of contact modes gives an answer)".to_string(),
                _ => format!(
                    " (contact {}, F_n = {:.4}; answers: {})",
                    var.modes[0],
                    var.normal_forces[0],
                    var.answers.as_str()
                ),
            },
            fixed.solution.status,
            fixed.iterations
        );
    }
}
