//! `zwang check`: the equivalence verdict of one instant.

use crate::json::{cone_checks, pretty, StickingJson};
use crate::{emit, load, EXIT_BAD_INPUT, EXIT_OK};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use zwang_coulomb::{check, variational, Report, StickingCheck};
use zwang_instant::Instant;

/// Check one instant: is the minimum (QP) form exact, is there a rigid answer?
///
/// Is the minimum form of Gauss's principle exact at this instant (does
/// it give the Newton answer), and does a rigid answer exist at all
/// (Painleve)? Cheap: no QP is solved. The checker reads the contact operators of the
/// `friction` entries: `D = J_n M^-1 J_n^T`, `C = J_n M^-1 J_t^T mu S`,
/// `G = D - C` (with the other rows' constraints taken into account).
///
/// With `--json`, prints one object with the keys `verdict`, `coupling`,
/// `contacts` [{`index`, `verdict`, `coupling`, `reason`}] (one per
/// `friction` entry) and `reason`, as `shared/spec/instant-format.md`
/// specifies, plus the matrices it was decided from: `d`, `c`, `g`
/// (per contact), `free_normal_acceleration`, `p_matrix` (null when a group
/// of coupled contacts is too large to enumerate) and `frozen_exact`
/// (friction frozen at the frictionless normal force happens to be exact).
/// With `sticking` entries, also `sticking` [{`index`, `normal_force`,
/// `tangential_force`, `ratio`, `holds`}]: the cone check on the Newton
/// answer (`ratio` = |lambda_t| / (mu |lambda_n|), null when infinite).
///
/// `verdict` is `equivalent` (C = 0: the frozen-friction QP is exact),
/// `not_equivalent` (a unique Newton answer that the QP misses; `coupling`
/// = rho(D^-1 C) < 1 means re-solving the QP with updated friction
/// converges to it), `painleve_inconsistent` (no rigid answer) or
/// `painleve_indeterminate` (several); the instant takes the worst of its
/// contacts. An instant without `friction` entries is `equivalent`, with
/// coupling 0 and no contacts (sticking contacts are ideal rows).
///
/// Exit code 0 for any verdict, 2 for a malformed or unreadable file (one
/// line on stderr, nothing on stdout).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CheckArgs {
    /// The instant file (JSON), or `-` for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The reason given for an instant without sliding contacts, in the
/// words of the file (the checker's own sentence speaks of contacts).
const NO_FRICTION: &str = "No Coulomb friction (no `friction` entries): no applied force depends \
                           on a constraint force, so the minimum (QP) form is exact.";

/// The checker's report, with the sticking contacts' cone checks folded
/// into the reason.
pub(crate) struct Checked {
    pub(crate) report: Report,
    pub(crate) sticking: Vec<StickingCheck>,
}

/// Runs the checker; the sticking contacts are checked on the Newton
/// answer (the variational one, plain multipliers without friction).
pub(crate) fn checked(instant: &Instant) -> Checked {
    let mut report = check(instant);
    if instant.sliding().is_empty() {
        report.reason = NO_FRICTION.into();
    }
    let sticking = if instant.sticking().is_empty() {
        Vec::new()
    } else {
        cone_checks(instant, &variational(instant).solution)
    };
    let slipping: Vec<String> = sticking
        .iter()
        .filter(|c| !c.holds)
        .map(|c| format!("{} (ratio {:.4})", c.index, c.ratio))
        .collect();
    if !slipping.is_empty() {
        // Still one sentence: the sticking note replaces the final stop.
        let base = report.reason.trim_end_matches('.');
        report.reason = format!(
            "{base}; but sticking contact {} cannot stick (outside its friction cone, or a \
             pulling normal force), so it must slip.",
            slipping.join(", ")
        );
    }
    Checked { report, sticking }
}

/// Runs `zwang check`; returns the exit code.
pub(crate) fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(instant) = load(&args.file, err) else {
        return EXIT_BAD_INPUT;
    };
    let checked = checked(&instant);
    let text = if args.json {
        pretty(&CheckJson::from(&checked))
    } else {
        let title = instant
            .name()
            .map_or_else(|| args.file.display().to_string(), str::to_owned);
        text(&title, &checked)
    };
    emit(out, &text);
    EXIT_OK
}

/// The `zwang check --json` object.
#[derive(serde::Serialize)]
struct CheckJson<'a> {
    verdict: &'static str,
    coupling: f64,
    contacts: Vec<ContactJson<'a>>,
    reason: &'a str,
    d: &'a [Vec<f64>],
    c: &'a [Vec<f64>],
    g: &'a [Vec<f64>],
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
            d: &r.d,
            c: &r.c,
            g: &r.g,
            free_normal_acceleration: &r.free_normal_acceleration,
            p_matrix: r.p_matrix,
            frozen_exact: r.frozen_exact,
            sticking: checked.sticking.iter().map(StickingJson::from).collect(),
        }
    }
}

/// The readable report: the verdict, then one paragraph per contact.
fn text(title: &str, checked: &Checked) -> String {
    let r = &checked.report;
    let mut t = format!(
        "{title}\n\nverdict: {} (coupling {:.4})\n  {}\n",
        r.verdict, r.coupling, r.reason
    );
    for c in &r.contacts {
        let _ = write!(
            t,
            "friction[{}]: {}, kappa {:.4}, G = {:.4}, free normal acceleration {:.4}\n  {}\n",
            c.index,
            c.verdict,
            c.coupling,
            r.g[c.index][c.index],
            r.free_normal_acceleration[c.index],
            c.reason
        );
    }
    for s in &checked.sticking {
        let _ = writeln!(
            t,
            "sticking[{}]: {}, |lambda_t| / (mu |lambda_n|) = {:.4} (lambda_n {:.4}, lambda_t {:.4})",
            s.index,
            if s.holds { "sticks" } else { "must slip" },
            s.ratio,
            s.normal_force,
            s.tangential_force
        );
    }
    t
}
