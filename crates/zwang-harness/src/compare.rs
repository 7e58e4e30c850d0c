//! Every form of Gauss's principle on one instant, with their differences
//! and the checker's verdict: what `zwang compare FILE` prints.

use crate::check::{checked, Checked};
use crate::json::{MaxDifference, SolutionJson, StickingJson};
use crate::table::{self, Run, NOT_APPLICABLE};
use serde::ser::{Serialize, Serializer};
use std::fmt::Write as _;
use zwang_coulomb::{fixed_point, frozen_qp, variational, Difference, FixedPointOptions, Verdict};
use zwang_forms::{contact_set_of, form_by_name, FORM_NAMES};
use zwang_instant::Instant;
use zwang_qp::{AutoBackend, Backend, Solution, Status};

/// The forms that solve the instant's rows as they stand, friction unseen:
/// the Gauss QP (`auto` backend) and the variational forms of
/// `zwang-forms`.
pub const IDEAL_FORMS: [&str; 4] = ["qp", "multiplier", "udwadia_kalaba", "null_space"];

/// The forms that take the Coulomb friction into account, run only on an
/// instant with `friction` or `sticking` entries: `frozen_qp` (friction frozen at the
/// frictionless normal force, then the QP), `fixed_point` (the QP re-solved
/// with updated friction until the normal forces settle; it reaches the
/// Newton answer iff the coupling is below 1, at that rate) and
/// `variational` (the Coulomb contact problem solved as it is, contacts
/// open, sliding, sticking or starting to slip: the Newton answer).
pub const FRICTION_FORMS: [&str; 3] = ["frozen_qp", "fixed_point", "variational"];

/// Every form, in the order they run (and of the table's time columns).
pub const ALL_FORMS: [&str; 7] = [
    "qp",
    "multiplier",
    "udwadia_kalaba",
    "null_space",
    "frozen_qp",
    "fixed_point",
    "variational",
];

/// One form on one instant.
#[derive(Debug, Clone)]
pub struct FormRun {
    /// The form's name, one of [`ALL_FORMS`].
    pub name: &'static str,
    /// The contact set the form was given (one flag per inequality row,
    /// `true` = closed): the QP's, for the variational forms on an instant
    /// with contacts; `None` otherwise.
    pub contact_set: Option<Vec<bool>>,
    /// Its answer and time, or why it does not apply.
    pub outcome: Outcome,
}

/// What a form gave: an answer (any status) and how long it took, or why
/// it does not apply.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The form ran (its solution may still be unsolved).
    Ran {
        /// The answer, any status.
        solution: Solution,
        /// Wall-clock microseconds of the one call, setup included.
        time_us: f64,
        /// What a friction form knows beyond its solution.
        extra: Option<Box<Extra>>,
    },
    /// The form does not apply to the instant, and why (the null-space
    /// form with contact rows; the QP friction forms on a Painleve
    /// instant; every form on an instant with rows of higher order, which
    /// has no minimum).
    NotApplicable(String),
}

/// What a friction form knows beyond its solution (serialized flat into
/// the form's JSON object).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum Extra {
    /// `frozen_qp`.
    Frozen {
        /// The frictionless normal forces the friction was frozen at, one
        /// per `friction` entry.
        frozen_normal_forces: Vec<f64>,
        /// The generalized friction force, length n.
        friction_force: Vec<f64>,
    },
    /// `fixed_point`.
    FixedPoint {
        /// Whether the normal forces settled.
        converged: bool,
        /// The measured contraction per step; `None` when too few steps.
        rate: Option<f64>,
    },
    /// `variational`.
    Variational {
        /// The mode of every `friction` entry, then of every `sticking`
        /// entry: `open`, `slide` or `stick`.
        modes: Vec<&'static str>,
        /// The normal forces, one per `friction` entry, then one per
        /// `sticking` entry.
        normal_forces: Vec<f64>,
        /// The tangential force of each `sticking` entry.
        tangential_forces: Vec<f64>,
        /// The generalized friction force of the `friction` entries, length n.
        friction_force: Vec<f64>,
        /// How many answers the contact problem has: `one`, `none`,
        /// `several`, or `found` (Lemke's method, uniqueness not tested).
        answers: &'static str,
    },
}

impl FormRun {
    /// Runs `solve` once under a clock.
    fn timed(name: &'static str, solve: impl FnOnce() -> (Solution, Option<Extra>)) -> FormRun {
        let start = std::time::Instant::now();
        let (solution, extra) = solve();
        FormRun {
            name,
            contact_set: None,
            outcome: Outcome::Ran {
                solution,
                time_us: start.elapsed().as_secs_f64() * 1e6,
                extra: extra.map(Box::new),
            },
        }
    }

    /// The answer, when the form ran.
    pub fn solution(&self) -> Option<&Solution> {
        match &self.outcome {
            Outcome::Ran { solution, .. } => Some(solution),
            Outcome::NotApplicable(_) => None,
        }
    }

    /// Why the form did not solve, in words (`None` when it solved): what
    /// its status means for this form.
    pub fn reason(&self) -> Option<String> {
        let (solution, extra) = match &self.outcome {
            Outcome::NotApplicable(reason) => return Some(reason.clone()),
            Outcome::Ran {
                solution, extra, ..
            } => (solution, extra),
        };
        if solution.is_solved() {
            return None;
        }
        let status = solution.status;
        let why = match (self.name, status) {
            ("qp", Status::Infeasible) => "the constraint rows admit no acceleration".into(),
            ("multiplier" | "udwadia_kalaba" | "null_space", Status::Infeasible)
                if self.contact_set.is_some() =>
            {
                "with the contact set given (the QP's) a closed contact pulls or an open one is \
                 crossed, or the rows are inconsistent"
                    .into()
            }
            ("multiplier" | "udwadia_kalaba" | "null_space", Status::Infeasible) => {
                "the rows are inconsistent, or (every contact taken closed) a contact pulls".into()
            }
            ("fixed_point", Status::NotConverged) => {
                "the normal forces did not settle: re-solving with updated friction diverges \
                 (coupling at or above 1) or hit its limit"
                    .into()
            }
            ("variational", _) => match extra.as_deref() {
                Some(Extra::Variational {
                    answers: "none", ..
                }) => "no combination of contact modes (open, sliding, sticking) gives an \
                     acceleration: Painleve inconsistent, or inconsistent rows"
                    .into(),
                Some(Extra::Variational {
                    answers: "not_found",
                    ..
                }) => "Lemke's method ended without an answer on a coupled group too large to \
                       enumerate; one may still exist"
                    .into(),
                _ => format!("the contact problem ended {status}"),
            },
            (_, Status::NumericalError) => "the linear algebra broke down".into(),
            _ => format!("the form ended {status}"),
        };
        Some(format!("{status}: {why}"))
    }

    /// Its time in microseconds, when the form ran.
    pub fn time_us(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Ran { time_us, .. } => Some(*time_us),
            Outcome::NotApplicable(_) => None,
        }
    }
}

/// Every form on one instant, and what compares them.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Every form that was tried, in the order of [`ALL_FORMS`] (the
    /// friction forms only with `friction` entries).
    pub forms: Vec<FormRun>,
    /// The largest difference between the forms that solved the same
    /// problem: [`IDEAL_FORMS`] without friction, [`FRICTION_FORMS`] with
    /// it (so it is the size of the non-equivalence).
    pub max_difference: MaxDifference,
    /// The same between [`IDEAL_FORMS`]: do the solvers agree on the
    /// frictionless problem?
    pub ideal_difference: MaxDifference,
    /// `frozen_qp` minus `variational`, the error of the minimum form;
    /// `None` without friction or when either has no answer.
    pub non_equivalence: Option<MaxDifference>,
    /// The checker's verdict and the cone checks.
    pub checked: Checked,
    /// Whether the instant has `friction` or `sticking` entries (and so the
    /// friction forms).
    pub friction: bool,
    /// The instant's own sizes, which the tables judge differences
    /// against (a difference within their round-off is no finding).
    pub scale: InstantScale,
}

/// The sizes of an instant: its largest free acceleration `|Q_i| / M_ii`
/// and its largest generalized force `|Q_i|`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InstantScale {
    /// The largest `|Q_i| / M_ii`.
    pub acceleration: f64,
    /// The largest `|Q_i|`.
    pub force: f64,
}

impl InstantScale {
    /// The sizes of `instant`.
    pub fn of(instant: &Instant) -> InstantScale {
        let mass = instant.mass();
        instant
            .force()
            .iter()
            .enumerate()
            .fold(InstantScale::default(), |m, (i, &q)| {
                let mii = mass.get(i, i).copied().unwrap_or(0.0);
                let a = if mii > 0.0 { q.abs() / mii } else { 0.0 };
                InstantScale {
                    acceleration: m.acceleration.max(a),
                    force: m.force.max(q.abs()),
                }
            })
    }
}

impl Comparison {
    /// Runs the checker and every form on `instant`, each once under a
    /// clock. On an instant with rows of higher order (verdict
    /// `stationary_only`) no form applies: each is listed as
    /// [`Outcome::NotApplicable`] with the checker's reason, and no
    /// difference is measured.
    pub fn of(instant: &Instant) -> Comparison {
        let checked = checked(instant);
        let friction = !instant.sliding().is_empty() || !instant.sticking().is_empty();
        if checked.report.verdict == Verdict::StationaryOnly {
            let names = if friction {
                &ALL_FORMS[..]
            } else {
                &IDEAL_FORMS
            };
            let reason = no_minimum(instant).unwrap_or_default();
            let forms = names
                .iter()
                .map(|&name| FormRun {
                    name,
                    contact_set: None,
                    outcome: Outcome::NotApplicable(reason.clone()),
                })
                .collect();
            let none = MaxDifference {
                acceleration: None,
                multipliers: None,
            };
            return Comparison {
                forms,
                max_difference: none,
                ideal_difference: none,
                non_equivalence: None,
                checked,
                friction,
                scale: InstantScale::of(instant),
            };
        }
        let mut backend = AutoBackend::new();
        let qp = FormRun::timed("qp", || (backend.solve(instant), None));
        // The variational forms take the contact set as given: hand them
        // the QP's, so that they check it and compare on every instant
        // with an answer, contacts that open included.
        let contact_set = qp
            .solution()
            .filter(|s| s.is_solved() && !instant.inequalities().is_empty())
            .map(|s| contact_set_of(instant, s));
        let mut forms = vec![qp];
        for mut form in FORM_NAMES.into_iter().filter_map(form_by_name) {
            form.set_contact_set(contact_set.clone());
            let mut run = match form.not_applicable_reason(instant) {
                Some(reason) => FormRun {
                    name: form.name(),
                    contact_set: None,
                    outcome: Outcome::NotApplicable(reason),
                },
                None => FormRun::timed(form.name(), || (form.solve(instant), None)),
            };
            run.contact_set = form.contact_set().map(<[bool]>::to_vec);
            forms.push(run);
        }
        if friction {
            forms.extend(friction_forms(instant, checked.report.verdict));
        }
        let solutions = |names: &[&str]| -> Vec<&Solution> {
            forms
                .iter()
                .filter(|f| names.contains(&f.name))
                .filter_map(FormRun::solution)
                .collect()
        };
        let ideal_difference = MaxDifference::of(instant, solutions(&IDEAL_FORMS));
        let (max_difference, non_equivalence) = if !friction {
            (ideal_difference, None)
        } else {
            let pair = solutions(&["frozen_qp", "variational"]);
            let non_equivalence = match pair[..] {
                [frozen, var] if frozen.is_solved() && var.is_solved() => {
                    let d = Difference::between(frozen, var);
                    Some(MaxDifference {
                        acceleration: Some(d.acceleration),
                        multipliers: Some(d.multipliers),
                    })
                }
                _ => None,
            };
            (
                MaxDifference::of(instant, solutions(&FRICTION_FORMS)),
                non_equivalence,
            )
        };
        Comparison {
            forms,
            max_difference,
            ideal_difference,
            non_equivalence,
            checked,
            friction,
            scale: InstantScale::of(instant),
        }
    }
}

/// Why no form of the principle over the accelerations applies to
/// `instant`, naming its rows of higher order: `Some` exactly when it has
/// some (verdict `stationary_only`; the checker's reason says more), `None`
/// for an instant of accelerations. What `zwang solve` and `zwang compare`
/// report as `not_applicable`, without running any form.
///
/// ```
/// use zwang_harness::no_minimum;
/// use zwang_instant::parse_instant;
///
/// let text = r#"{"mass": [1.0, 1.0], "force": [0.0, -9.81],
///                "equalities": {"A": [[-0.0125, 9.81]], "b": [0.0], "order": [3]}}"#;
/// let instant = parse_instant(text).unwrap().instant;
/// let reason = no_minimum(&instant).unwrap();
/// assert!(reason.contains("equality row 0, order 3"));
/// ```
pub fn no_minimum(instant: &Instant) -> Option<String> {
    if instant.highest_order() <= 2 {
        return None;
    }
    let rows: Vec<String> = instant
        .equality_orders()
        .iter()
        .enumerate()
        .filter(|&(_, &k)| k > 2)
        .map(|(i, k)| format!("equality row {i}, order {k}"))
        .collect();
    Some(format!(
        "stationary_only: the instant has constraints of higher order ({}); there the principle \
         is stationary, not a minimum, so no form over the accelerations applies (see the \
         verdict's reason)",
        rows.join("; ")
    ))
}

/// `frozen_qp`, `fixed_point` and `variational`; the two QP forms do not
/// apply on a Painleve instant, where there is no single rigid answer for
/// them to approach.
fn friction_forms(instant: &Instant, verdict: Verdict) -> Vec<FormRun> {
    let mut backend = AutoBackend::new();
    let painleve = verdict.is_painleve().then(|| {
        format!(
            "the instant is {verdict} (G = D - C is not a P-matrix): there is no unique rigid \
             answer for a QP with frozen friction to approach"
        )
    });
    let qp_form =
        |name: &'static str, solve: &mut dyn FnMut() -> (Solution, Option<Extra>)| -> FormRun {
            match &painleve {
                Some(reason) => FormRun {
                    name,
                    contact_set: None,
                    outcome: Outcome::NotApplicable(reason.clone()),
                },
                None => FormRun::timed(name, solve),
            }
        };
    let frozen = qp_form("frozen_qp", &mut || {
        let f = frozen_qp(instant, &mut backend);
        let extra = Extra::Frozen {
            frozen_normal_forces: f.frozen_normal_forces,
            friction_force: f.friction_force,
        };
        (f.solution, Some(extra))
    });
    let fixed = qp_form("fixed_point", &mut || {
        let f = fixed_point(instant, &mut backend, FixedPointOptions::default());
        let extra = Extra::FixedPoint {
            converged: f.converged,
            rate: f.rate,
        };
        (f.solution, Some(extra))
    });
    let var = FormRun::timed("variational", || {
        let v = variational(instant);
        let extra = Extra::Variational {
            modes: v.modes.iter().map(|m| m.as_str()).collect(),
            normal_forces: v.normal_forces,
            tangential_forces: v.tangential_forces,
            friction_force: v.friction_force,
            answers: v.answers.as_str(),
        };
        (v.solution, Some(extra))
    });
    vec![frozen, fixed, var]
}

/// The `zwang compare --json` object of one instant: `forms` keyed by
/// name, the differences, the verdict and the cone checks (see
/// `docs/instant-format.md`).
#[derive(serde::Serialize)]
pub struct CompareJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    forms: FormsJson<'a>,
    max_difference: MaxDifference,
    ideal_difference: MaxDifference,
    non_equivalence: Option<MaxDifference>,
    verdict: &'static str,
    coupling: f64,
    reason: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sticking: Vec<StickingJson>,
}

impl<'a> CompareJson<'a> {
    /// The object for `comparison` of the instant called `name`; `file` is
    /// given in a folder's array.
    pub fn new(file: Option<String>, name: Option<&'a str>, comparison: &'a Comparison) -> Self {
        let report = &comparison.checked.report;
        CompareJson {
            file,
            name,
            forms: FormsJson(&comparison.forms),
            max_difference: comparison.max_difference,
            ideal_difference: comparison.ideal_difference,
            non_equivalence: comparison.non_equivalence,
            verdict: report.verdict.as_str(),
            coupling: report.coupling,
            reason: &report.reason,
            sticking: comparison
                .checked
                .sticking
                .iter()
                .map(StickingJson::from)
                .collect(),
        }
    }
}

/// The forms as a JSON object keyed by name, in the order they ran.
struct FormsJson<'a>(&'a [FormRun]);

impl Serialize for FormsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|f| (f.name, FormJson::from(f))))
    }
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum FormJson<'a> {
    Ran(RanJson<'a>),
    NotApplicable {
        status: &'static str,
        reason: &'a str,
    },
}

#[derive(serde::Serialize)]
struct RanJson<'a> {
    #[serde(flatten)]
    solution: SolutionJson<'a>,
    /// Why the form did not solve (absent when it did).
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The contact set the form was given: the QP's.
    #[serde(skip_serializing_if = "Option::is_none")]
    contact_set: Option<ContactSetJson<'a>>,
    time_us: f64,
    #[serde(flatten)]
    extra: Option<&'a Extra>,
}

/// Where a form's contact set came from, and the set (`true` = closed).
#[derive(serde::Serialize)]
struct ContactSetJson<'a> {
    from: &'static str,
    closed: &'a [bool],
}

impl<'a> From<&'a FormRun> for FormJson<'a> {
    fn from(f: &'a FormRun) -> Self {
        match &f.outcome {
            Outcome::Ran {
                solution,
                time_us,
                extra,
            } => FormJson::Ran(RanJson {
                solution: solution.into(),
                reason: f.reason(),
                contact_set: f
                    .contact_set
                    .as_deref()
                    .map(|closed| ContactSetJson { from: "qp", closed }),
                time_us: *time_us,
                extra: extra.as_deref(),
            }),
            Outcome::NotApplicable(reason) => FormJson::NotApplicable {
                status: NOT_APPLICABLE,
                reason,
            },
        }
    }
}

impl Comparison {
    /// The readable comparison under `title`: a column per form, then the
    /// differences and the verdict.
    pub fn text(&self, title: &str) -> String {
        text(title, self)
    }
}

/// [`Comparison::text`].
fn text(title: &str, c: &Comparison) -> String {
    let runs: Vec<Run> = c
        .forms
        .iter()
        .map(|f| Run {
            name: f.name,
            solution: f.solution().cloned(),
        })
        .collect();
    let times = c
        .forms
        .iter()
        .map(|f| f.time_us().map_or_else(String::new, |t| format!("{t:.1}")))
        .collect();
    let mut t = table::render(title, &runs, vec![("time (us)".into(), times)]);
    let not_applicable: Vec<String> = c
        .forms
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::NotApplicable(reason) => Some(format!("  {}: {reason}\n", f.name)),
            Outcome::Ran { .. } => None,
        })
        .collect();
    if !not_applicable.is_empty() {
        t += &format!("\nnot applicable:\n{}", not_applicable.concat());
    }
    let r = &c.checked.report;
    let _ = write!(
        t,
        "\nverdict: {} (coupling {:.4})\n  {}\n",
        r.verdict, r.coupling, r.reason
    );
    if c.friction {
        t += &difference_line(
            "largest difference between the forms with friction (frozen_qp, fixed_point, variational)",
            Some(&c.max_difference),
        );
        t += &difference_line(
            "between the forms that ignore the friction (qp, multiplier, udwadia_kalaba, null_space)",
            Some(&c.ideal_difference),
        );
        t += &difference_line(
            "non-equivalence, frozen_qp - variational",
            c.non_equivalence.as_ref(),
        );
    } else {
        t += &difference_line(
            "largest difference between the forms",
            Some(&c.max_difference),
        );
    }
    for s in &c.checked.sticking {
        let _ = writeln!(
            t,
            "sticking[{}]: {}, |lambda_t| / (mu |lambda_n|) = {:.4}",
            s.index,
            if s.holds { "sticks" } else { "must slip" },
            s.ratio
        );
    }
    t
}

/// A difference on one line; a dash for what was not measured.
fn difference_line(what: &str, d: Option<&MaxDifference>) -> String {
    let value = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), table::residual);
    format!(
        "{what}: acceleration {}, multipliers {}\n",
        value(d.and_then(|d| d.acceleration)),
        value(d.and_then(|d| d.multipliers))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::{csv, Row};
    use zwang_instant::parse_instant;

    /// The particle on the turning plane of Zhang et al. (section 5) at one
    /// state, as an instant with its third-order row, `with` more keys.
    fn turning_plane(order: &str, with: &str) -> Instant {
        let text = format!(
            r#"{{"mass": [1.0, 1.0], "force": [-0.01, -9.845],
                "equalities": {{"A": [[-0.0125, 9.81]], "b": [0.0]{order}}}{with}}}"#
        );
        parse_instant(&text).unwrap().instant
    }

    /// No form runs on an instant of higher order: each is not applicable
    /// with the reason, nothing is compared, the verdict is
    /// `stationary_only`; friction entries add the friction forms, also not
    /// applicable. The same rows at order 2 solve as usual.
    #[test]
    fn no_form_applies_to_rows_of_higher_order() {
        let friction = r#", "inequalities": {"A": [[0.0, 1.0]], "b": [0.0]},
            "friction": [{"normal": {"set": "inequalities", "row": 0},
                          "tangent": [1.0, 0.0], "mu": 0.2, "slip": 1}]"#;
        for (with, forms) in [("", &IDEAL_FORMS[..]), (friction, &ALL_FORMS[..])] {
            let instant = turning_plane(r#", "order": [3]"#, with);
            let c = Comparison::of(&instant);
            assert_eq!(c.checked.report.verdict, Verdict::StationaryOnly);
            let names: Vec<&str> = c.forms.iter().map(|f| f.name).collect();
            assert_eq!(names, forms);
            for f in &c.forms {
                let Outcome::NotApplicable(reason) = &f.outcome else {
                    panic!("{} ran", f.name);
                };
                assert!(reason.contains("equality row 0, order 3"), "{reason}");
                assert!(f.solution().is_none() && f.time_us().is_none());
            }
            assert_eq!(c.max_difference.acceleration, None);
            assert_eq!(c.non_equivalence, None);
            assert!(c.checked.sticking.is_empty());
            let json = serde_json::to_value(CompareJson::new(None, None, &c)).unwrap();
            assert_eq!(json["verdict"], "stationary_only");
            assert_eq!(json["forms"]["qp"]["status"], "not_applicable");
            assert!(json["forms"]["null_space"]["reason"]
                .as_str()
                .unwrap()
                .contains("stationary, not a minimum"));
            let text = c.text("turning plane");
            assert!(text.contains("not applicable:") && text.contains("stationary_only"));
            // The table row: no answer, and the verdict that explains it.
            let table = csv(&[Row::compared("plane".into(), &c)]);
            let row = table.lines().nth(1).unwrap();
            assert!(
                row.starts_with("plane,not_applicable,stationary_only,"),
                "{row}"
            );
        }
        let ordinary = Comparison::of(&turning_plane("", ""));
        assert_eq!(ordinary.checked.report.verdict, Verdict::Equivalent);
        assert!(ordinary.forms.iter().all(|f| f.solution().is_some()));
        assert!(no_minimum(&turning_plane(r#", "order": [2]"#, "")).is_none());
    }
}
