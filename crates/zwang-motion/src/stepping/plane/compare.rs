//! The time stepper's two friction laws side by side along a motion:
//! exact Coulomb and the convex relaxation (cone complementarity, the
//! minimum form MuJoCo and Drake solve) from the same start, step by step.
//! They part where friction couples to the normal impulse: a sliding
//! contact of the convex form separates at `u_N = mu |u_T|` ("gliding",
//! seed 003's non-equivalence in velocities), and the positions drift
//! apart by what it accumulates.

use super::TimeStepper;
use crate::stepping::{OnUnsolved, StepError, StepSettings};
use zwang_contact::Friction;
use zwang_model::planar::PlanarModel;

/// One sample of the comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareRow {
    /// s.
    pub t: f64,
    /// The largest difference of any coordinate of `q`, exact less convex.
    pub position_difference: f64,
    /// The largest spurious separation `u_N` of a pushing contact over the
    /// steps since the last sample under the exact law, m/s (its
    /// tolerance).
    pub separation_exact: f64,
    /// The same under the convex form (`mu |u_T|` where it slides).
    pub separation_convex: f64,
}

/// A whole comparison: a row per output sample (and the end), and the
/// largest values over every step.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// A row per output sample, the start and the end included.
    pub rows: Vec<CompareRow>,
    /// The largest position difference over every step, m.
    pub max_position_difference: f64,
    /// The largest separation of a pushing contact over every step, m/s:
    /// the exact law's and the convex form's.
    pub max_separation_exact: f64,
    /// See [`Comparison::max_separation_exact`].
    pub max_separation_convex: f64,
    /// Steps each law took.
    pub steps: usize,
}

/// Runs `model` to `duration` with both friction laws (the rest of
/// `settings` shared), comparing them every step; a row every
/// `settings.output_every`. A step of either law whose contact problem
/// ends above the tolerance ends the comparison
/// ([`StepError::Unsolved`]): unconverged answers are not compared.
pub fn compare_frictions(
    model: &PlanarModel,
    duration: f64,
    settings: &StepSettings,
) -> Result<Comparison, StepError> {
    settings.validate(duration).map_err(StepError::Settings)?;
    // An unconverged answer is not compared: a step that ends above the
    // tolerance ends the comparison with the error.
    let with = |friction| StepSettings {
        friction,
        on_unsolved: OnUnsolved::Fail,
        ..settings.clone()
    };
    let mut exact = TimeStepper::new(model, with(Friction::Exact))?;
    let mut convex = TimeStepper::new(model, with(Friction::Convex))?;
    let h = settings.time_step;
    let mut out = Comparison {
        rows: vec![CompareRow {
            t: 0.0,
            position_difference: 0.0,
            separation_exact: 0.0,
            separation_convex: 0.0,
        }],
        max_position_difference: 0.0,
        max_separation_exact: 0.0,
        max_separation_convex: 0.0,
        steps: 0,
    };
    let (mut since_exact, mut since_convex) = (0.0f64, 0.0f64);
    let mut next = 1usize;
    while exact.core.t < duration {
        let left = duration - exact.core.t;
        let step = if left < 1.5 * h { left } else { h };
        let a = exact.step(step)?;
        let b = convex.step(step)?;
        out.steps += 1;
        since_exact = since_exact.max(a.separation);
        since_convex = since_convex.max(b.separation);
        let difference = exact
            .core
            .q
            .iter()
            .zip(&convex.core.q)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        out.max_position_difference = out.max_position_difference.max(difference);
        out.max_separation_exact = out.max_separation_exact.max(a.separation);
        out.max_separation_convex = out.max_separation_convex.max(b.separation);
        let sample = next as f64 * settings.output_every;
        let end = exact.core.t >= duration;
        if exact.core.t >= sample || end {
            out.rows.push(CompareRow {
                t: exact.core.t,
                position_difference: difference,
                separation_exact: since_exact,
                separation_convex: since_convex,
            });
            (since_exact, since_convex) = (0.0, 0.0);
            while next as f64 * settings.output_every <= exact.core.t {
                next += 1;
            }
        }
    }
    Ok(out)
}
