//! The minimum form with Coulomb friction: friction frozen at a normal
//! force and moved into `Q`, then the Gauss QP; once (frozen QP) or until
//! the normal forces stop moving (fixed point).

use crate::contact::emptied_rows;
use crate::sticking::sticking_checks;
use crate::system::Contacts;
use zwang_instant::{Instant, SlidingContact};
use zwang_qp::{Backend, Solution, Status};

/// Friction frozen at the frictionless normal force, then the QP.
#[derive(Debug, Clone, PartialEq)]
pub struct FrozenQp {
    /// Backend `"frozen_qp"`: the QP with `Q + friction` (iterations of both
    /// QP solves added). The frictionless solve's status when it failed.
    pub solution: Solution,
    /// The QP without friction, whose normal forces were frozen.
    pub frictionless: Solution,
    /// The normal force each sliding contact's friction was frozen at.
    pub frozen_normal_forces: Vec<f64>,
    /// The generalized friction force added to `Q`.
    pub friction_force: Vec<f64>,
}

/// A sticking entry that the minimum form lets slip: its tangent row,
/// dropped, becomes a sliding contact.
struct Converted {
    /// The tangent row (an equality row).
    row: usize,
    /// Its index among the converted instant's sliding contacts.
    sliding: usize,
}

/// The minimum form's view of the sticking entries: solve the QP with every
/// sticking row held, check the cones, and turn each entry whose force
/// leaves its cone into a sliding contact on its tangent row (slipping
/// against the force that would have held it, `d = -sign(lambda_t)`), its
/// row dropped. `None` when every sticking entry holds (or there are none).
fn let_slip(instant: &Instant, backend: &mut dyn Backend) -> Option<(Instant, Vec<Converted>)> {
    if instant.sticking().is_empty() {
        return None;
    }
    let held = backend.solve(instant);
    if held.multipliers_eq.len() != instant.equalities().len()
        || held.multipliers_in.len() != instant.inequalities().len()
    {
        return None;
    }
    let checks = sticking_checks(instant, &held);
    let eq = instant.equalities();
    let n = instant.dim();
    let mut dropped = vec![false; eq.len()];
    let mut sliding: Vec<SlidingContact> = instant.sliding().to_vec();
    let mut converted = Vec::new();
    let mut kept = Vec::new();
    for (c, check) in instant.sticking().iter().zip(&checks) {
        if check.holds {
            kept.push(c.clone());
            continue;
        }
        let mut tangent = vec![0.0; n];
        if let Some(row) = eq.matrix().outer_view(c.tangent_row) {
            for (j, &v) in row.iter() {
                tangent[j] = v;
            }
        }
        dropped[c.tangent_row] = true;
        converted.push(Converted {
            row: c.tangent_row,
            sliding: sliding.len(),
        });
        sliding.push(SlidingContact {
            normal: c.normal,
            tangent,
            mu: c.mu,
            slip: if check.tangential_force > 0.0 {
                -1.0
            } else {
                1.0
            },
        });
    }
    if converted.is_empty() {
        return None;
    }
    let mut builder = emptied_rows(instant, &dropped, instant.force().to_vec())?;
    for c in sliding {
        builder = builder.sliding(c);
    }
    for c in kept {
        builder = builder.sticking(c);
    }
    Some((builder.build().ok()?, converted))
}

/// Puts the frozen friction of each converted sticking entry back on its
/// tangent row as that row's multiplier (the tangential force), as the
/// Newton answer reports it.
fn restore_rows(solution: &mut Solution, converted: &[Converted], friction: &[f64]) {
    for c in converted {
        if let (Some(l), Some(&f)) = (
            solution.multipliers_eq.get_mut(c.row),
            friction.get(c.sliding),
        ) {
            *l = f;
        }
    }
}

/// Solves the frictionless QP, freezes `-J_t^T mu S |lambda_n|` at its
/// normal forces, and solves the QP again with that force in `Q`. Exact
/// when the checker says `equivalent`; otherwise off by the coupling.
///
/// Sticking entries are held as rows, except those whose force leaves the
/// cone in the QP that holds them: those slip (against that force) and get
/// their friction frozen like the sliding contacts, their tangent row's
/// multiplier being that frozen tangential force.
pub fn frozen_qp(instant: &Instant, backend: &mut dyn Backend) -> FrozenQp {
    let Some((converted_instant, converted)) = let_slip(instant, backend) else {
        return frozen_qp_as_is(instant, backend);
    };
    let mut f = frozen_qp_as_is(&converted_instant, backend);
    let tangential: Vec<f64> = f
        .frozen_normal_forces
        .iter()
        .zip(converted_instant.sliding())
        .map(|(l, c)| -c.mu * c.slip * l.abs())
        .collect();
    restore_rows(&mut f.solution, &converted, &tangential);
    f
}

fn frozen_qp_as_is(instant: &Instant, backend: &mut dyn Backend) -> FrozenQp {
    let contacts = Contacts::new(instant);
    let frictionless = backend.solve(instant);
    let forces = contacts.normal_forces(&frictionless.multipliers_eq, &frictionless.multipliers_in);
    let per_contact: Vec<f64> = contacts.normal_of.iter().map(|&u| forces[u]).collect();
    let friction_force = contacts.friction_force(&forces);
    let mut solution = if frictionless.is_solved() {
        match with_friction(instant, &friction_force) {
            Some(frozen) => {
                let mut s = backend.solve(&frozen);
                s.iterations += frictionless.iterations;
                s
            }
            None => failed(&frictionless),
        }
    } else {
        frictionless.clone()
    };
    solution.backend = "frozen_qp";
    FrozenQp {
        solution,
        frictionless,
        frozen_normal_forces: per_contact,
        friction_force,
    }
}

/// Settings of [`fixed_point`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedPointOptions {
    /// Stop when the normal forces move by less than `tol * |lambda_n|`.
    /// Default `1e-9` (the reference QP's own accuracy is about `1e-10`).
    pub tol: f64,
    /// Re-solve limit. Default `200`.
    pub max_iter: usize,
}

impl Default for FixedPointOptions {
    fn default() -> Self {
        FixedPointOptions {
            tol: 1e-9,
            max_iter: 200,
        }
    }
}

/// The fixed-point iteration and how it went.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedPoint {
    /// Backend `"fixed_point"`: the last QP, `iterations` = QP re-solves
    /// with updated friction. `NotConverged` when the limit was reached or
    /// the normal forces ran away (coupling at or above 1).
    pub solution: Solution,
    /// Re-solves with updated friction (the frozen QP is the first).
    pub iterations: usize,
    /// Whether the normal forces settled to `tol`.
    pub converged: bool,
    /// Measured contraction: the last ratio of successive differences
    /// `|lambda^(j+2) - lambda^(j+1)| / |lambda^(j+1) - lambda^j|` whose
    /// differences are still well above the QP's accuracy (`1e-6` of
    /// `|lambda_n|`); it tends to `rho(D^-1 C)`. `Some(0)` when the first
    /// re-solve already agreed, `None` when too few steps were measurable.
    pub rate: Option<f64>,
    /// Normal force of each sliding contact at every iterate, starting with
    /// the frictionless QP's.
    pub history: Vec<Vec<f64>>,
}

/// Differences below this fraction of `|lambda_n|` are too close to the
/// QP's accuracy to measure a rate from.
const RATE_FLOOR: f64 = 1e-6;

/// Normal forces growing by this factor over the first difference are
/// taken as divergence.
const RUNAWAY: f64 = 1e8;

/// `lambda <- D^-1 (r + C lambda)` realized as QP re-solves: freeze the
/// friction at the last normal forces, solve the QP, repeat. Converges to
/// the variational answer iff `rho(D^-1 C) < 1`, at that rate.
pub fn fixed_point(
    instant: &Instant,
    backend: &mut dyn Backend,
    options: FixedPointOptions,
) -> FixedPoint {
    let Some((converted_instant, converted)) = let_slip(instant, backend) else {
        return fixed_point_as_is(instant, backend, options);
    };
    let mut f = fixed_point_as_is(&converted_instant, backend, options);
    let tangential: Vec<f64> = f
        .history
        .last()
        .map(|forces| {
            forces
                .iter()
                .zip(converted_instant.sliding())
                .map(|(l, c)| -c.mu * c.slip * l.abs())
                .collect()
        })
        .unwrap_or_default();
    restore_rows(&mut f.solution, &converted, &tangential);
    f
}

fn fixed_point_as_is(
    instant: &Instant,
    backend: &mut dyn Backend,
    options: FixedPointOptions,
) -> FixedPoint {
    let contacts = Contacts::new(instant);
    let mut solution = backend.solve(instant);
    let mut forces = contacts.normal_forces(&solution.multipliers_eq, &solution.multipliers_in);
    let per_contact =
        |f: &[f64]| -> Vec<f64> { contacts.normal_of.iter().map(|&u| f[u]).collect() };
    let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut history = vec![per_contact(&forces)];
    let mut diffs: Vec<f64> = Vec::new();
    let mut rate = None;
    let (mut iterations, mut converged) = (0, false);
    while solution.is_solved() && iterations < options.max_iter {
        iterations += 1;
        let Some(frozen) = with_friction(instant, &contacts.friction_force(&forces)) else {
            solution = failed(&solution);
            break;
        };
        solution = backend.solve(&frozen);
        let next = contacts.normal_forces(&solution.multipliers_eq, &solution.multipliers_in);
        let diff = inf(&next
            .iter()
            .zip(&forces)
            .map(|(a, b)| a - b)
            .collect::<Vec<_>>());
        let scale = inf(&next).max(f64::MIN_POSITIVE);
        forces = next;
        history.push(per_contact(&forces));
        if let Some(&last) = diffs.last() {
            if diff > RATE_FLOOR * scale {
                rate = Some(diff / last);
            }
        }
        diffs.push(diff);
        if diff <= options.tol * scale {
            converged = solution.is_solved();
            if diffs.len() == 1 {
                rate = Some(0.0);
            }
            break;
        }
        if diff > RUNAWAY * (diffs[0] + f64::MIN_POSITIVE) || !diff.is_finite() {
            break;
        }
    }
    if solution.is_solved() && !converged {
        solution.status = Status::NotConverged;
    }
    solution.backend = "fixed_point";
    solution.iterations = iterations;
    FixedPoint {
        solution,
        iterations,
        converged,
        rate,
        history,
    }
}

/// The instant with the friction force added to `Q`; `None` when it is not
/// finite.
fn with_friction(instant: &Instant, friction: &[f64]) -> Option<Instant> {
    let force = instant
        .force()
        .iter()
        .zip(friction)
        .map(|(q, f)| q + f)
        .collect();
    instant.with_force(force).ok()
}

fn failed(last: &Solution) -> Solution {
    Solution {
        status: Status::NumericalError,
        ..last.clone()
    }
}

/// The largest differences between two answers to the same instant (the
/// spec's `max_difference`): the size of the non-equivalence when one is
/// the frozen QP and the other the variational solution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// `max |a_1 - a_2|`.
    pub acceleration: f64,
    /// `max |lambda_1 - lambda_2|` over both row sets.
    pub multipliers: f64,
}

impl Difference {
    /// The differences between `a` and `b`.
    pub fn between(a: &Solution, b: &Solution) -> Difference {
        let max_diff = |x: &[f64], y: &[f64]| {
            x.iter()
                .zip(y)
                .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()))
        };
        Difference {
            acceleration: max_diff(&a.acceleration, &b.acceleration),
            multipliers: max_diff(&a.multipliers_eq, &b.multipliers_eq)
                .max(max_diff(&a.multipliers_in, &b.multipliers_in)),
        }
    }

    /// The larger of the two differences.
    pub fn max(&self) -> f64 {
        self.acceleration.max(self.multipliers)
    }
}
