//! The checker's verdict on one instant, with the sticking contacts' cone
//! checks: what `zwang check` prints.

use crate::json::{cone_checks, StickingJson};
use crate::table::number;
use std::fmt::Write as _;
use zwang_coulomb::{check, variational, Mode, Report, StickingCheck, Verdict};
use zwang_instant::Instant;
use zwang_qp::{AutoBackend, Backend};

/// The reason given for an instant without sliding contacts, in the
/// words of the file (the checker's own sentence speaks of contacts).
const NO_FRICTION: &str = "No Coulomb friction (no `friction` entries): no applied force depends \
                           on a constraint force, so the minimum (QP) form is exact.";

/// The checker's report, with the sticking contacts' cone checks folded
/// into the reason.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The checker's report (`zwang_coulomb::check`); without `friction`
    /// entries its reason says so in the words of the file.
    pub report: Report,
    /// The cone check of every `sticking` entry on the Newton answer
    /// (empty without sticking entries or without multipliers to check).
    pub sticking: Vec<StickingCheck>,
}

/// Runs the checker, and checks the sticking contacts against their
/// cones: a contact that sticks in the Newton answer is checked on it
/// (`ratio <= 1`); one that must slip (or opens) is reported with
/// `holds: false` and the force that holding it would take, from the QP
/// with its tangent row held (`ratio > 1`, or a pulling normal force).
///
/// An instant with rows of higher order is `stationary_only` and nothing
/// is solved: its sticking contacts are not checked (there is no answer to
/// check them on).
pub fn checked(instant: &Instant) -> Checked {
    let mut report = check(instant);
    let stationary = report.verdict == Verdict::StationaryOnly;
    if instant.sliding().is_empty() && instant.sticking().is_empty() && !stationary {
        report.reason = NO_FRICTION.into();
    }
    let sticking = if instant.sticking().is_empty() || stationary {
        Vec::new()
    } else {
        let newton = variational(instant);
        let on_newton = cone_checks(instant, &newton.solution);
        let held = cone_checks(instant, &AutoBackend::new().solve(instant));
        let k = instant.sliding().len();
        (0..instant.sticking().len())
            .filter_map(|j| match newton.modes.get(k + j) {
                Some(Mode::Stick) => on_newton.get(j).cloned(),
                _ => held
                    .get(j)
                    .cloned()
                    .map(|c| StickingCheck { holds: false, ..c }),
            })
            .collect()
    };
    Checked { report, sticking }
}

/// The `zwang check --json` object: the verdict, the coupling, one entry
/// per contact, the reason, the matrices the verdict was decided from and
/// the cone checks (see `docs/instant-format.md`).
#[derive(serde::Serialize)]
pub struct CheckJson<'a> {
    verdict: &'static str,
    coupling: f64,
    contacts: Vec<ContactJson<'a>>,
    reason: &'a str,
    d: Vec<Vec<f64>>,
    c: Vec<Vec<f64>>,
    g: Vec<Vec<f64>>,
    free_normal_acceleration: &'a [f64],
    p_matrix: Option<bool>,
    frozen_exact: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sticking: Vec<StickingJson>,
}

#[derive(serde::Serialize)]
struct ContactJson<'a> {
    index: usize,
    verdict: &'static str,
    coupling: f64,
    reason: &'a str,
}

impl<'a> From<&'a Checked> for CheckJson<'a> {
    fn from(checked: &'a Checked) -> Self {
        let r = &checked.report;
        CheckJson {
            verdict: r.verdict.as_str(),
            coupling: r.coupling,
            contacts: r
                .contacts
                .iter()
                .map(|c| ContactJson {
                    index: c.index,
                    verdict: c.verdict.as_str(),
                    coupling: c.coupling,
                    reason: &c.reason,
                })
                .collect(),
            reason: &r.reason,
            d: r.d(),
            c: r.c(),
            g: r.g(),
            free_normal_acceleration: &r.free_normal_acceleration,
            p_matrix: r.p_matrix,
            frozen_exact: r.frozen_exact,
            sticking: checked.sticking.iter().map(StickingJson::from).collect(),
        }
    }
}

impl Checked {
    /// The readable report under `title`: the verdict, then one paragraph
    /// per contact and one line per sticking contact.
    pub fn text(&self, title: &str) -> String {
        text(title, self)
    }
}

/// [`Checked::text`], numbers in the tables' one style.
fn text(title: &str, checked: &Checked) -> String {
    let r = &checked.report;
    let mut t = format!(
        "{title}\n\nverdict: {} (coupling {})\n  {}\n",
        r.verdict,
        number(r.coupling),
        r.reason
    );
    let g = r.g();
    for c in &r.contacts {
        let _ = write!(
            t,
            "friction[{}]: {}, kappa {}, G = {}, free normal acceleration {}\n  {}\n",
            c.index,
            c.verdict,
            number(c.coupling),
            number(g[c.index][c.index]),
            number(r.free_normal_acceleration[c.index]),
            c.reason
        );
    }
    for s in &checked.sticking {
        let _ = writeln!(
            t,
            "sticking[{}]: {}, |lambda_t| / (mu |lambda_n|) = {} (lambda_n {}, lambda_t {})",
            s.index,
            if s.holds { "sticks" } else { "must slip" },
            number(s.ratio),
            number(s.normal_force),
            number(s.tangential_force)
        );
    }
    t
}
