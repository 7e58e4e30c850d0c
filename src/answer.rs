//! The answer to one instant, as `zwang solve --json` prints it and the
//! Python package returns it: the Gauss QP with one backend; the
//! variational (Newton) answer for an instant with Coulomb friction
//! (`friction` or `sticking` entries), with the checker's verdict; or
//! `not_applicable` for constraints of higher order, where there is no
//! minimum. The keys are those of `docs/instant-format.md`.

use serde::ser::{Serialize, Serializer};
use serde_json::Value;
use zwang_coulomb::{variational, Answers, Variational};
use zwang_harness::json::{SolutionJson, StickingJson};
use zwang_harness::table::{Run, NOT_APPLICABLE};
use zwang_harness::MaxDifference;
use zwang_harness::{checked, Checked};
use zwang_instant::Instant;
use zwang_qp::{backend_by_name, Solution};

/// The backend `zwang solve` uses when none is named.
pub const DEFAULT_BACKEND: &str = "auto";

/// What solving one instant gave.
pub enum Answer {
    /// The Gauss QP, by `backend`; `solution` is `None` when the backend
    /// does not apply to the instant (`direct` takes equality rows only).
    Qp {
        /// The backend's name, as asked.
        backend: &'static str,
        /// Its answer.
        solution: Option<Solution>,
    },
    /// The Coulomb contact problem solved as it is (the Newton answer).
    Variational {
        /// The checker's verdict and the sticking entries' cone checks.
        checked: Box<Checked>,
        /// The answer.
        var: Box<Variational>,
    },
    /// Constraints of higher order: nothing solved.
    NotApplicable {
        /// The checker's verdict (`stationary_only`) and reason.
        checked: Box<Checked>,
        /// The order of each equality row.
        orders: Vec<u32>,
    },
}

/// Solves `instant` as `zwang solve FILE --backend NAME` does. An unknown
/// backend, or a backend other than `auto` for an instant with friction
/// entries (solved as a contact problem, with no QP backend), is an error
/// (the one line the command line prints after `error: `).
pub fn solve(instant: &Instant, backend: &str) -> Result<Answer, String> {
    if instant.highest_order() > 2 {
        return Ok(Answer::NotApplicable {
            checked: Box::new(checked(instant)),
            orders: instant.equality_orders().to_vec(),
        });
    }
    if !instant.sliding().is_empty() || !instant.sticking().is_empty() {
        if backend != DEFAULT_BACKEND {
            return Err(format!(
                "`--backend {backend}`: an instant with `friction` or `sticking` entries is \
                 solved as a Coulomb contact problem, which uses no QP backend; `zwang compare \
                 FILE` runs the QP forms"
            ));
        }
        return Ok(Answer::Variational {
            checked: Box::new(checked(instant)),
            var: Box::new(variational(instant)),
        });
    }
    let Some(name) = zwang_qp::BACKEND_NAMES
        .into_iter()
        .find(|&name| name == backend)
    else {
        return Err(format!(
            "`--backend`: unknown backend `{backend}` (known: {})",
            zwang_qp::BACKEND_NAMES.join(", ")
        ));
    };
    Ok(Answer::Qp {
        backend: name,
        solution: qp_run(instant, name).solution,
    })
}

/// One backend's run on an instant without friction: its answer, or none
/// when it does not apply. An unknown name does not apply.
pub fn qp_run<'a>(instant: &Instant, name: &'a str) -> Run<'a> {
    let solution = backend_by_name(name)
        .and_then(|mut backend| backend.applies(instant).then(|| backend.solve(instant)));
    Run { name, solution }
}

impl Answer {
    /// The solution, when there is one.
    pub fn solution(&self) -> Option<&Solution> {
        match self {
            Answer::Qp { solution, .. } => solution.as_ref(),
            Answer::Variational { var, .. } => Some(&var.solution),
            Answer::NotApplicable { .. } => None,
        }
    }

    /// Whether it solved (`zwang solve` exits with 0).
    pub fn is_solved(&self) -> bool {
        self.solution().is_some_and(Solution::is_solved)
    }

    /// The warning `zwang solve` prints on stderr for a
    /// Painleve-indeterminate instant, whose answer is one of several.
    pub fn warning(&self) -> Option<&'static str> {
        match self {
            Answer::Variational { var, .. }
                if var.answers == Answers::Several && var.solution.is_solved() =>
            {
                Some(
                    "painleve_indeterminate: the rigid model has several answers; this is the \
                     one that keeps the most contacts closed",
                )
            }
            _ => None,
        }
    }

    /// The `zwang solve --json` object.
    pub fn json(&self) -> Value {
        let value = match self {
            Answer::Qp { backend, solution } => serde_json::to_value(SolveJson {
                answer: RunJson::of(backend, solution.as_ref()),
                form: "qp",
                friction: None,
                sticking: Vec::new(),
                all: None,
            }),
            Answer::Variational { checked, var } => serde_json::to_value(SolveJson {
                answer: RunJson::of("variational", Some(&var.solution)),
                form: "variational",
                friction: Some(FrictionJson::new(checked, var)),
                sticking: checked.sticking.iter().map(StickingJson::from).collect(),
                all: None,
            }),
            Answer::NotApplicable { checked, orders } => serde_json::to_value(NotApplicableJson {
                status: NOT_APPLICABLE,
                reason: &checked.report.reason,
                verdict: checked.report.verdict.as_str(),
                equality_orders: orders,
            }),
        };
        value.unwrap_or_default()
    }
}

/// The `zwang solve --json` object of an instant of higher order.
#[derive(serde::Serialize)]
struct NotApplicableJson<'a> {
    status: &'static str,
    reason: &'a str,
    verdict: &'static str,
    equality_orders: &'a [u32],
}

/// The `zwang solve --json` object: the answer's keys, the form, and what
/// friction, sticking contacts and `--backend all` add.
#[derive(serde::Serialize)]
pub struct SolveJson<'a> {
    /// The answer's keys.
    #[serde(flatten)]
    pub answer: RunJson<'a>,
    /// `qp` or `variational`.
    pub form: &'static str,
    /// The variational answer's keys.
    #[serde(flatten)]
    pub friction: Option<FrictionJson<'a>>,
    /// The cone checks of the sticking entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sticking: Vec<StickingJson>,
    /// `--backend all`: every backend and their largest differences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<ComparisonJson<'a>>,
}

/// What the variational answer adds to the object.
#[derive(serde::Serialize)]
pub struct FrictionJson<'a> {
    verdict: &'static str,
    coupling: f64,
    reason: &'a str,
    /// One per `friction` entry, then one per `sticking` entry, in file
    /// order: `open`, `slide` or `stick`.
    modes: Vec<&'static str>,
    answers: &'static str,
    normal_forces: &'a [f64],
    tangential_forces: &'a [f64],
    friction_force: &'a [f64],
}

impl<'a> FrictionJson<'a> {
    /// The verdict of `checked` and the answer `var`.
    pub fn new(checked: &'a Checked, var: &'a Variational) -> Self {
        FrictionJson {
            verdict: checked.report.verdict.as_str(),
            coupling: checked.report.coupling,
            reason: &checked.report.reason,
            modes: var.modes.iter().map(|m| m.as_str()).collect(),
            answers: var.answers.as_str(),
            normal_forces: &var.normal_forces,
            tangential_forces: &var.tangential_forces,
            friction_force: &var.friction_force,
        }
    }
}

/// A run in JSON: the solution, or why there is none.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum RunJson<'a> {
    /// The solution's keys.
    Solved(SolutionJson<'a>),
    /// The backend does not apply.
    NotApplicable {
        /// `not_applicable`.
        status: &'static str,
        /// The backend's name.
        backend: &'a str,
        /// Why.
        reason: String,
    },
}

impl<'a> RunJson<'a> {
    /// The object of backend `name`'s answer (`None`: it does not apply).
    pub fn of(name: &'a str, solution: Option<&'a Solution>) -> Self {
        match solution {
            Some(s) => RunJson::Solved(s.into()),
            None => RunJson::NotApplicable {
                status: NOT_APPLICABLE,
                backend: name,
                reason: format!("the `{name}` backend does not apply to this instant"),
            },
        }
    }
}

impl<'a> From<&'a Run<'a>> for RunJson<'a> {
    fn from(run: &'a Run<'a>) -> Self {
        RunJson::of(run.name, run.solution.as_ref())
    }
}

/// `--backend all`: every backend's object, and the largest differences
/// between those that solved.
#[derive(serde::Serialize)]
pub struct ComparisonJson<'a> {
    /// The runs, by backend name.
    pub backends: BackendsJson<'a>,
    /// Between the backends that solved.
    pub max_difference: MaxDifference,
}

/// The runs as a JSON object keyed by backend name, in the order they ran.
pub struct BackendsJson<'a>(pub &'a [Run<'a>]);

impl Serialize for BackendsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|r| (r.name, RunJson::from(r))))
    }
}
