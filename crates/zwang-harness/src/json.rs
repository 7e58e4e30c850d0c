//! The JSON pieces that several reports share: a solution in the
//! instant-file output format (`docs/instant-format.md`), a sticking
//! contact's cone check, and the largest differences between answers.
//!
//! serde_json writes a non-finite number as `null`, so the output stays
//! JSON even for the answer of a failed solve or an infinite cone ratio.

use zwang_coulomb::StickingCheck;
use zwang_instant::Instant;
use zwang_qp::Solution;

/// The output object of the instant-file format for one solution:
/// `status`, `acceleration`, `multipliers` {`equalities`, `inequalities`},
/// `compulsion`, `backend`, `residuals` {`stationarity`, `equalities`,
/// `inequalities`, `complementarity`} and `iterations`.
#[derive(serde::Serialize)]
pub struct SolutionJson<'a> {
    status: &'static str,
    acceleration: &'a [f64],
    multipliers: MultipliersJson<'a>,
    compulsion: f64,
    backend: &'static str,
    residuals: ResidualsJson,
    iterations: usize,
}

#[derive(serde::Serialize)]
struct MultipliersJson<'a> {
    equalities: &'a [f64],
    inequalities: &'a [f64],
}

#[derive(serde::Serialize)]
struct ResidualsJson {
    stationarity: f64,
    equalities: f64,
    inequalities: f64,
    complementarity: f64,
}

impl<'a> From<&'a Solution> for SolutionJson<'a> {
    fn from(s: &'a Solution) -> Self {
        SolutionJson {
            status: s.status.as_str(),
            acceleration: &s.acceleration,
            multipliers: MultipliersJson {
                equalities: &s.multipliers_eq,
                inequalities: &s.multipliers_in,
            },
            compulsion: s.compulsion,
            backend: s.backend,
            residuals: ResidualsJson {
                stationarity: s.residuals.stationarity,
                equalities: s.residuals.equalities,
                inequalities: s.residuals.inequalities,
                complementarity: s.residuals.complementarity,
            },
            iterations: s.iterations,
        }
    }
}

/// One sticking contact against its friction cone (`ratio` is `null` when
/// infinite: a tangential force with no normal force).
#[derive(serde::Serialize)]
pub struct StickingJson {
    index: usize,
    normal_force: f64,
    tangential_force: f64,
    ratio: f64,
    holds: bool,
}

impl From<&StickingCheck> for StickingJson {
    fn from(c: &StickingCheck) -> Self {
        StickingJson {
            index: c.index,
            normal_force: c.normal_force,
            tangential_force: c.tangential_force,
            ratio: c.ratio,
            holds: c.holds,
        }
    }
}

/// The cone checks of the instant's sticking contacts on `solution`; none
/// when the solution has no multiplier per row to check them with (a
/// failed solve, the null-space form).
pub fn cone_checks(instant: &Instant, solution: &Solution) -> Vec<StickingCheck> {
    if instant.sticking().is_empty() || !has_every_multiplier(instant, solution) {
        return Vec::new();
    }
    zwang_coulomb::sticking_checks(instant, solution)
}

/// Whether `solution` has one multiplier per row of `instant`, each a
/// number (the null-space form gives NaN: it has no multipliers).
fn has_every_multiplier(instant: &Instant, solution: &Solution) -> bool {
    solution.multipliers_eq.len() == instant.equalities().len()
        && solution.multipliers_in.len() == instant.inequalities().len()
        && solution
            .multipliers_eq
            .iter()
            .chain(&solution.multipliers_in)
            .all(|l| !l.is_nan())
}

/// The largest absolute differences between answers to one instant.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MaxDifference {
    /// Over every coordinate of `a`; `None` when fewer than two answers.
    pub acceleration: Option<f64>,
    /// Over every multiplier, equalities and inequalities together, among
    /// the answers that have one per row (the null-space form has none);
    /// `None` when fewer than two of them.
    pub multipliers: Option<f64>,
}

impl MaxDifference {
    /// Between the solved answers among `solutions`.
    pub fn of<'s>(
        instant: &Instant,
        solutions: impl IntoIterator<Item = &'s Solution>,
    ) -> MaxDifference {
        let solved: Vec<&Solution> = solutions.into_iter().filter(|s| s.is_solved()).collect();
        let accelerations: Vec<Vec<f64>> = solved.iter().map(|s| s.acceleration.clone()).collect();
        let multipliers: Vec<Vec<f64>> = solved
            .iter()
            .filter(|s| has_every_multiplier(instant, s))
            .map(|s| {
                s.multipliers_eq
                    .iter()
                    .chain(&s.multipliers_in)
                    .copied()
                    .collect()
            })
            .collect();
        MaxDifference {
            acceleration: spread(&accelerations),
            multipliers: spread(&multipliers),
        }
    }
}

/// The largest `|x_i - y_i|` over every pair of vectors and every `i`, that
/// is the largest `max - min` of one component; `None` for fewer than two.
fn spread(vectors: &[Vec<f64>]) -> Option<f64> {
    if vectors.len() < 2 {
        return None;
    }
    let len = vectors.iter().map(Vec::len).min().unwrap_or(0);
    let range = |i: usize| {
        let (lo, hi) = vectors
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v[i]), hi.max(v[i]))
            });
        hi - lo
    };
    Some((0..len).map(range).fold(0.0, f64::max))
}

/// Pretty JSON with a final newline. Serializing plain structs of numbers
/// and strings cannot fail.
pub fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .map(|t| t + "\n")
        .unwrap_or_default()
}
