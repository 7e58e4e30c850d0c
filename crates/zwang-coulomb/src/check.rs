//! The checker: does the minimum (QP) form of Gauss's principle give the
//! Newton answer at this instant, and does a rigid answer exist at all?

use crate::contact::{solve_parts, Answers, ContactSettings};
use crate::linalg::{normalized_det, psd_pinv, spectral_radius, RANK_TOL};
use crate::space::{Held, HeldFactors, Operators};
use crate::split::{is_whole, Cutter};
use crate::system::{Contacts, SIGN_TOL};
use faer::Mat;
use std::borrow::Cow;
use zwang_contact::{Mode, UnionFind};
use zwang_instant::{Instant, RowRef, RowSet, SlidingContact};

/// A coupling entry whose size is below this fraction of its
/// Cauchy-Schwarz bound `mu sqrt(D_ii T_jj)` counts as zero (a vertical rod
/// has `cos(pi/2) ~ 6e-17`, not 0).
pub const COUPLING_TOL: f64 = 1e-9;

/// The largest group of mutually coupled contacts whose `G` is tested for
/// the P-matrix property (`2^k` branch determinants): beyond it
/// [`Report::p_matrix`] is `None`.
pub const MAX_ENUMERATED_CONTACTS: usize = 12;

/// A normalized determinant (determinant over the product of the column
/// norms) at or below this counts as "not positive".
const DET_TOL: f64 = 1e-12;

/// What the checker concludes, from best to worst (the order of the
/// variants is the order of severity: an instant takes the worst of its
/// contacts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// `C = 0`: no normal force feels the friction; the frozen-friction QP
    /// gives the Newton answer in one pass.
    Equivalent,
    /// `C != 0` but the contact problem has one answer: the minimum form is
    /// off by a computable amount; the Newton answer is the variational one.
    NotEquivalent,
    /// `G = D - C` is not a P-matrix and the contact problem has several
    /// answers: the rigid model does not decide.
    PainleveIndeterminate,
    /// `G` is not a P-matrix and the contact problem has no answer: the
    /// rigid model needs an impulsive normal force.
    PainleveInconsistent,
    /// An instant with equality rows of order above 2 (constraints on
    /// `q'''` or higher, [`Instant::equality_orders`]): the principle of
    /// that order is stationary, not a minimum, so there is no QP at all
    /// (Zhang et al., arbitrary-order Gauss principle of relative motion
    /// dynamics, eq 12). The worst verdict: it replaces any friction
    /// analysis.
    StationaryOnly,
}

impl Verdict {
    /// The spelling of the instant-file output (`equivalent`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::NotEquivalent => "not_equivalent",
            Verdict::PainleveIndeterminate => "painleve_indeterminate",
            Verdict::PainleveInconsistent => "painleve_inconsistent",
            Verdict::StationaryOnly => "stationary_only",
        }
    }

    /// Whether this is one of the two Painleve verdicts.
    pub fn is_painleve(self) -> bool {
        matches!(
            self,
            Verdict::PainleveIndeterminate | Verdict::PainleveInconsistent
        )
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict for one sliding contact (an entry of the spec's `contacts`).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactReport {
    /// Index into `Instant::sliding()`.
    pub index: usize,
    /// The verdict of the group of contacts this one is coupled with.
    pub verdict: Verdict,
    /// `kappa_i = |C_ii| / D_ii`: the contact's coupling on its own.
    pub coupling: f64,
    /// One sentence a person can read.
    pub reason: String,
}

/// The checker's answer for an instant (the spec's `zwang check` output,
/// plus the matrices it was decided from).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The worst verdict of the contacts (`equivalent` with none).
    pub verdict: Verdict,
    /// Spectral radius of `D^-1 C` (`D^+` when redundant normals make `D`
    /// singular): 0 when equivalent, below 1 when the frozen-friction
    /// iteration converges, at or above 1 near or inside Painleve.
    pub coupling: f64,
    /// One entry per sliding contact, in the order of `Instant::sliding()`.
    pub contacts: Vec<ContactReport>,
    /// One sentence a person can read.
    pub reason: String,
    /// The contact operators `D`, `C`, `G` of each independent part's
    /// closed sliding contacts (they are block diagonal across parts; see
    /// [`Report::d`] for the whole matrices).
    pub blocks: Vec<Block>,
    /// `J_n a - b_n` per contact when no normal force and no friction act
    /// (the other rows still hold): negative means the contact is pressed.
    /// For a contact that opens, its normal acceleration in the answer
    /// (positive).
    pub free_normal_acceleration: Vec<f64>,
    /// Whether `G` is a P-matrix (all principal minors positive; with
    /// bilateral normals, every sign branch of `D - C sign(lambda_n)` has a
    /// positive determinant). `None` when a group of coupled contacts is
    /// larger than [`MAX_ENUMERATED_CONTACTS`].
    pub p_matrix: Option<bool>,
    /// Whether friction frozen at the frictionless normal forces equals
    /// the Newton friction whatever the load (`J_t^T mu S D^-1 C = 0`):
    /// always when equivalent, and also in special `not_equivalent` cases
    /// where the normal forces feel friction but the friction force they add
    /// up to does not (a box on two corners with equal `mu`: only the sum
    /// of the normal forces matters, and it is `m g`). The frozen QP is then
    /// exact although the principle is not.
    pub frozen_exact: bool,
}

/// The contact operators of the closed sliding contacts of one independent
/// part (rows and columns in the order of `contacts`).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Indices into `Instant::sliding()`; `k + j` (with `k` friction
    /// entries) for sticking entry `j` when it must slip (or may: in a part
    /// with no single answer) and is analysed as the sliding contact it
    /// becomes.
    pub contacts: Vec<usize>,
    /// `D = J_n M_E^-1 J_n^T`, the Delassus operator of the sliding normals
    /// in the system the other closed rows leave free (`M_E^-1`).
    pub d: Vec<Vec<f64>>,
    /// `C = J_n M_E^-1 J_t^T mu S`, entries below [`COUPLING_TOL`] of their
    /// bound set to zero.
    pub c: Vec<Vec<f64>>,
    /// `G = D - C`.
    pub g: Vec<Vec<f64>>,
}

impl Report {
    /// `D` over all sliding contacts (`k x k`, zero between parts and for
    /// contacts that open). Dense: for display, not for large `k`.
    pub fn d(&self) -> Vec<Vec<f64>> {
        self.dense(|b| &b.d)
    }
    /// `C` over all sliding contacts, as [`Report::d`].
    pub fn c(&self) -> Vec<Vec<f64>> {
        self.dense(|b| &b.c)
    }
    /// `G = D - C` over all sliding contacts, as [`Report::d`].
    pub fn g(&self) -> Vec<Vec<f64>> {
        self.dense(|b| &b.g)
    }
    fn dense(&self, pick: impl Fn(&Block) -> &Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        let k = self.contacts.len();
        let mut m = vec![vec![0.0; k]; k];
        for b in &self.blocks {
            let x = pick(b);
            for (p, &i) in b.contacts.iter().enumerate() {
                for (q, &j) in b.contacts.iter().enumerate() {
                    if i < k && j < k {
                        m[i][j] = x[p][q];
                    }
                }
            }
        }
        m
    }
}

/// The verdict of one group of coupled contacts, with what explains it.
struct Group {
    normals: Vec<usize>,
    verdict: Verdict,
    coupling: f64,
    p_matrix: Option<bool>,
    /// How many answers the part's contact problem has.
    answers: Answers,
    /// See [`Report::frozen_exact`].
    frozen_exact: bool,
}

/// Checks an instant: per sliding contact and for the whole instant, is
/// the minimum form equivalent to the variational (Newton) form, and is the
/// rigid contact problem well posed (Painleve)?
///
/// The contacts are judged in their actual modes: the Coulomb contact
/// problem is solved first ([`crate::variational`]); a contact that opens
/// carries no friction and is `equivalent`; the closed sliding contacts are
/// analysed with the rows that the answer keeps closed held, through
/// `M_E^-1`, the inverse mass of the system those rows leave free. Each
/// independent part of the instant (no mass entry, row or friction entry
/// linking it to the rest) is analysed on its own, so independent contacts
/// cost `O(k)`. Whether an answer exists, and whether it is unique, comes
/// from the contact problem itself (every mode combination of a part is
/// tried, up to [`crate::MAX_ENUMERATED_MODES`]).
///
/// An instant with equality rows of order above 2 is
/// [`Verdict::StationaryOnly`], whatever its contacts: nothing is solved,
/// and the reason names the rows, their orders and why there is no
/// minimum.
pub fn check(instant: &Instant) -> Report {
    if instant.highest_order() > 2 {
        return stationary_report(instant);
    }
    let k = instant.sliding().len();
    let (solved, outcomes) = solve_parts(instant, &ContactSettings::default());
    let mut report = no_sliding_report();
    if k == 0 && instant.sticking().is_empty() {
        return report;
    }
    report.contacts = (0..k)
        .map(|index| ContactReport {
            index,
            verdict: Verdict::Equivalent,
            coupling: 0.0,
            reason: String::new(),
        })
        .collect();
    report.blocks.clear();
    report.free_normal_acceleration = vec![0.0; k];
    report.p_matrix = Some(true);
    report.frozen_exact = true;
    report.coupling = 0.0;
    let a = &solved.solution.acceleration;
    let a_inf = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let ineq = instant.inequalities();
    let slack = |r: usize| {
        let scale = ineq
            .matrix()
            .outer_view(r)
            .map(|v| v.data().iter().fold(0.0f64, |m, x| m.max(x.abs())))
            .unwrap_or(0.0)
            * a_inf;
        (ineq.row_dot(r, a) - ineq.rhs()[r]) / scale.max(ineq.rhs()[r].abs()).max(f64::MIN_POSITIVE)
    };
    let mut worst: Option<(Verdict, String)> = None;
    let mut parts_judged = 0;
    let mut cutter = Cutter::default();
    for out in &outcomes {
        let part = &out.part;
        let painleve = match out.answers {
            Answers::None if out.frictionless_feasible => Some(Verdict::PainleveInconsistent),
            Answers::Several => Some(Verdict::PainleveIndeterminate),
            _ => None,
        };
        let has_answer = matches!(out.answers, Answers::One | Answers::Found);
        let mut reduced = part.clone();
        reduced.sticking.clear();
        if has_answer {
            reduced.sliding.retain(|&i| solved.modes[i] != Mode::Open);
        }
        for &i in &part.sliding {
            if solved.modes[i] == Mode::Open && has_answer {
                let r = instant.sliding()[i].normal;
                let w = instant.rows(r.set).row_dot(r.row, a) - instant.rows(r.set).rhs()[r.row];
                report.free_normal_acceleration[i] = w;
                report.contacts[i].reason = format!(
                    "Open: the contact separates (normal acceleration {w:.4} > 0, no normal force), \
                     so it carries no friction."
                );
            }
        }
        // A sticking entry that must slip is analysed as the sliding
        // contact it becomes: its tangent row, slipping the way the answer
        // accelerates. With no single answer every sticking entry may slip
        // (as every sliding one is kept closed): one that sticks in the
        // reported answer slips against the force that holds it there.
        let slipping: Vec<usize> = part
            .sticking
            .iter()
            .copied()
            .filter(|&j| !has_answer || solved.modes[k + j] == Mode::Slide)
            .collect();
        let eq = instant.equalities();
        let extras: Vec<SlidingContact> = slipping
            .iter()
            .map(|&j| {
                let c = &instant.sticking()[j];
                let mut tangent = vec![0.0; instant.dim()];
                if let Some(row) = eq.matrix().outer_view(c.tangent_row) {
                    for (col, &v) in row.iter() {
                        tangent[col] = v;
                    }
                }
                let at = eq.row_dot(c.tangent_row, a) - eq.rhs()[c.tangent_row];
                let held = solved.tangential_forces[j];
                let slip = if solved.modes[k + j] != Mode::Slide && held != 0.0 {
                    -held.signum()
                } else if at >= 0.0 {
                    1.0
                } else {
                    -1.0
                };
                SlidingContact {
                    normal: c.normal,
                    tangent,
                    mu: c.mu,
                    slip,
                }
            })
            .collect();
        let mut verdict = Verdict::Equivalent;
        let mut reason = String::new();
        if !reduced.sliding.is_empty() || !extras.is_empty() {
            let sub = if !extras.is_empty() {
                match cutter.cut_with(instant, &reduced, &extras) {
                    Ok(s) => Cow::Owned(s),
                    Err(_) => continue,
                }
            } else if is_whole(instant, &reduced) {
                Cow::Borrowed(instant)
            } else if let Some(sub) = out.sub.as_ref().filter(|_| reduced == *part) {
                Cow::Borrowed(sub)
            } else {
                match cutter.cut(instant, &reduced) {
                    Ok(s) => Cow::Owned(s),
                    Err(_) => continue,
                }
            };
            // The rows the answer keeps closed, in the part's numbering
            // (with no single answer, the reported one: the closed branch
            // of several, or the all-closed attempt).
            let other = {
                let normals: Vec<RowRef> = reduced
                    .sliding
                    .iter()
                    .map(|&i| instant.sliding()[i].normal)
                    .chain(extras.iter().map(|c| c.normal))
                    .collect();
                let held_eq = reduced.eq_rows.iter().enumerate().filter(|&(_, &r)| {
                    let free_tangent = part.sticking.iter().any(|&j| {
                        instant.sticking()[j].tangent_row == r
                            && (solved.modes[k + j] == Mode::Open || slipping.contains(&j))
                    });
                    let normal = normals.contains(&RowRef {
                        set: RowSet::Equalities,
                        row: r,
                    });
                    !free_tangent && !normal
                });
                let held_in = reduced.in_rows.iter().enumerate().filter(|&(_, &r)| {
                    let normal = normals.contains(&RowRef {
                        set: RowSet::Inequalities,
                        row: r,
                    });
                    let closed = solved.solution.multipliers_in[r] > 0.0 || slack(r) <= SIGN_TOL;
                    closed && !normal
                });
                held_eq
                    .map(|(row, _)| RowRef {
                        set: RowSet::Equalities,
                        row,
                    })
                    .chain(held_in.map(|(row, _)| RowRef {
                        set: RowSet::Inequalities,
                        row,
                    }))
                    .collect()
            };
            let local = check_part(&sub, other, painleve, out.answers);
            verdict = local.verdict;
            reason = local.reason;
            let own = reduced.sliding.len();
            // Local contact `li`: a friction entry, or (past `own`) a
            // slipping sticking entry, numbered `k + j` in the blocks.
            let global = |li: usize| {
                if li < own {
                    reduced.sliding[li]
                } else {
                    k + slipping[li - own]
                }
            };
            for (li, c) in local.contacts.into_iter().enumerate().take(own) {
                let i = reduced.sliding[li];
                report.contacts[i] = ContactReport { index: i, ..c };
                report.free_normal_acceleration[i] = local.free_normal_acceleration[li];
            }
            for b in local.blocks {
                report.blocks.push(Block {
                    contacts: b.contacts.iter().map(|&li| global(li)).collect(),
                    ..b
                });
            }
            report.coupling = report.coupling.max(local.coupling);
            report.p_matrix = match (report.p_matrix, local.p_matrix) {
                (Some(x), Some(y)) => Some(x && y),
                _ => None,
            };
            report.frozen_exact &= local.frozen_exact;
        }
        // The contact problem itself decides existence and uniqueness.
        let decided = match painleve {
            Some(p) if verdict != p => Some((
                p,
                match p {
                    Verdict::PainleveInconsistent => "Painleve: with friction no combination of \
                        contact modes (open, sliding, sticking) gives an acceleration, although one \
                        exists without friction: the rigid model needs an impulsive force, so neither \
                        form has an answer."
                        .to_string(),
                    _ => "Painleve: several combinations of contact modes give different \
                        accelerations: the rigid model does not choose between them."
                        .to_string(),
                },
            )),
            _ => None,
        };
        if let Some((v, r)) = decided {
            verdict = v;
            reason = r;
            for &i in &reduced.sliding {
                report.contacts[i].verdict = v;
            }
        }
        if !slipping.is_empty() && has_answer {
            reason = format!(
                "{reason} Sticking contact{} {:?} must slip (the force that would hold {} leaves \
                 the friction cone), so the QP that holds its tangent row is not the motion; it is \
                 judged above as the sliding contact it becomes.",
                if slipping.len() > 1 { "s" } else { "" },
                slipping,
                if slipping.len() > 1 { "them" } else { "it" },
            );
        } else if !slipping.is_empty() {
            let many = slipping.len() > 1;
            reason = format!(
                "{reason} Sticking contact{} {:?} {} judged above as the sliding contact{} {} \
                 would become: with no single answer, {} may slip.",
                if many { "s" } else { "" },
                slipping,
                if many { "are" } else { "is" },
                if many { "s" } else { "" },
                if many { "they" } else { "it" },
                if many { "they" } else { "it" },
            );
        }
        if reduced.sliding.is_empty() && slipping.is_empty() && reason.is_empty() {
            reason = "Every sliding contact opens (or sticks): no friction depends on a normal \
                      force, so the minimum (QP) form is exact."
                .into();
        }
        parts_judged += 1;
        if worst.as_ref().is_none_or(|(w, _)| verdict > *w) {
            worst = Some((verdict, reason));
        }
    }
    for c in &mut report.contacts {
        if c.reason.is_empty() {
            c.reason = "Its normal force does not feel friction (C = 0): the QP is exact.".into();
        }
    }
    if let Some((v, r)) = worst {
        report.verdict = v;
        report.reason = if parts_judged > 1 {
            format!("{r} (the worst of {parts_judged} independent parts)")
        } else {
            r
        };
    }
    if report.frozen_exact && report.verdict != Verdict::Equivalent {
        // The matrices say the frozen friction adds up right; make sure the
        // frozen QP (whose contacts may open differently) really lands on
        // the Newton answer before saying so.
        let frozen = crate::frozen_qp(instant, &mut zwang_qp::AutoBackend::new());
        let same = solved.solution.is_solved()
            && frozen.solution.is_solved()
            && crate::Difference::between(&frozen.solution, &solved.solution).acceleration
                <= 1e-8 * (1.0 + a_inf);
        report.frozen_exact = same;
    }
    report
}

/// The report of an instant with rows of higher order: the verdict
/// [`Verdict::StationaryOnly`], no operators (nothing is solved), and a
/// reason that names the rows and their orders.
///
/// Why: a row of order `k = m + 2 > 2` constrains `q^(m+2)` linearly. In
/// the space of those derivatives (Gauss's variation of order `m`: `t`,
/// `q`, ..., `q^(m+1)` fixed) the generalized compulsion
/// `Z_m = d^m/dt^m [1/2 sum m_i (r_i'' - F_i / m_i)^2]` is, for `m >= 1`,
/// linear in `q^(m+2)` (Zhang et al., eq 8), so its difference between the
/// real motion and any possible one is exactly zero (their eq 12): the real
/// motion makes it stationary, not a minimum. The equations are
/// `M q'' - Q - sum_b lambda_b dphi_b/dq^(m+2) = 0` (their eqs 39, 50) with
/// the multipliers part of the state; V. Čović (1977) notes the same: an
/// extremum only in the ordinary (acceleration) case.
fn stationary_report(instant: &Instant) -> Report {
    let rows: Vec<(usize, u32)> = instant
        .equality_orders()
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, k)| k > 2)
        .collect();
    let listed: Vec<String> = rows
        .iter()
        .map(|(i, k)| format!("{i} (order {k}: A q^({k}) = b)"))
        .collect();
    let (noun, verb) = if rows.len() == 1 {
        ("row", "constrains")
    } else {
        ("rows", "constrain")
    };
    let reason = format!(
        "Equality {noun} {} {verb} a derivative of the coordinates above the acceleration: a \
         constraint of order m + 2 with m >= 1. The generalized compulsion of order m is linear \
         in q^(m+2) (Zhang et al., arbitrary-order Gauss principle of relative motion dynamics, \
         eqs 8 and 12), so its difference between the real motion and every possible one is \
         zero: the real motion makes it stationary, not a minimum, and there is no QP to solve. \
         Solve M q'' - Q - sum_b lambda_b dphi_b/dq^(m+2) = 0 with the constraints instead: the \
         multipliers join the state (lambda' comes from the constraint; for order 3, the crate \
         zwang-higher-order integrates it).",
        listed.join(", ")
    );
    let k = instant.sliding().len();
    Report {
        verdict: Verdict::StationaryOnly,
        coupling: 0.0,
        contacts: (0..k)
            .map(|index| ContactReport {
                index,
                verdict: Verdict::StationaryOnly,
                coupling: 0.0,
                reason: "Not analysed: the instant has constraints of higher order, so there is \
                         no minimum form for the friction to be compared with."
                    .into(),
            })
            .collect(),
        reason,
        blocks: Vec::new(),
        free_normal_acceleration: vec![0.0; k],
        p_matrix: None,
        frozen_exact: false,
    }
}

/// The report of an instant without sliding contacts.
fn no_sliding_report() -> Report {
    Report {
        verdict: Verdict::Equivalent,
        coupling: 0.0,
        contacts: Vec::new(),
        reason: "No sliding contacts: no applied force depends on a constraint force, so the \
                     minimum (QP) form is exact."
            .into(),
        blocks: Vec::new(),
        free_normal_acceleration: Vec::new(),
        p_matrix: Some(true),
        frozen_exact: true,
    }
}

/// The analysis of one part's closed sliding contacts, with the rows
/// `other` held; `painleve` and `answers` are what its contact problem
/// says of existence and uniqueness.
fn check_part(
    instant: &Instant,
    other: Vec<RowRef>,
    painleve: Option<Verdict>,
    answers: Answers,
) -> Report {
    let k = instant.sliding().len();
    if k == 0 {
        return no_sliding_report();
    }
    let contacts = Contacts::new(instant);
    let tangents: Vec<&[f64]> = instant.sliding().iter().map(|c| &c.tangent[..]).collect();
    let held_any = !other.is_empty();
    let mut kept = HeldFactors::default();
    let mut ops = Held::new(instant, other, &mut kept)
        .operators(&contacts.normals, &tangents, false)
        .expect("not strict");
    // `M^-1 J_t^T` for the size of a friction force (`ops.yt` when nothing
    // is held).
    let minv_tangent = if held_any {
        let mut held = Held::new(instant, Vec::new(), &mut kept);
        tangents.iter().map(|t| held.response(t.to_vec())).collect()
    } else {
        std::mem::take(&mut ops.yt)
    };
    let u = contacts.normals.len();
    let normal_of = contacts.normal_of.clone();
    let mu_s: Vec<f64> = instant.sliding().iter().map(|c| c.mu * c.slip).collect();
    let nt = cleaned_coupling(&ops);
    // Per contact (k x k, the report) and per distinct normal (u x u, the
    // analysis: contacts sharing a normal row share its force).
    let d_rep = Mat::from_fn(k, k, |i, j| ops.w[(normal_of[i], normal_of[j])]);
    let c_rep = Mat::from_fn(k, k, |i, j| nt[(normal_of[i], j)] * mu_s[j]);
    let mut c_u = Mat::<f64>::zeros(u, u);
    for j in 0..k {
        for a in 0..u {
            c_u[(a, normal_of[j])] += nt[(a, j)] * mu_s[j];
        }
    }
    let dinv_c = psd_pinv(&ops.w) * &c_u;
    let coupling = spectral_radius(&dinv_c);
    // Friction frozen at the frictionless normal forces lambda_0 is off by
    // -J_t^T mu S (lambda_0 - lambda*) = J_t^T mu S D^-1 C G^-1 r: zero for
    // every load iff each column of J_t^T mu S D^-1 C vanishes.
    let exact_column: Vec<bool> = (0..u)
        .map(|b| {
            let coef: Vec<f64> = (0..k)
                .map(|i| mu_s[i] * dinv_c[(normal_of[i], b)])
                .collect();
            let (norm, bound) = contacts.tangent_combination_norm(&minv_tangent, &coef);
            norm <= COUPLING_TOL * bound
        })
        .collect();
    let groups = groups(&ops.w, &c_u)
        .into_iter()
        .map(|normals| {
            let frozen_exact = normals.iter().all(|&b| exact_column[b]);
            let part = (painleve, answers);
            judge(normals, &ops, &c_u, &contacts.bilateral, frozen_exact, part)
        })
        .collect::<Vec<_>>();
    let worst = groups
        .iter()
        .max_by_key(|g| g.verdict)
        .expect("at least one contact");
    let group_of = |u: usize| {
        groups
            .iter()
            .find(|g| g.normals.contains(&u))
            .expect("every normal is in a group")
    };
    let reports = (0..k)
        .map(|i| {
            let kappa = if c_rep[(i, i)] == 0.0 {
                0.0
            } else {
                c_rep[(i, i)].abs() / d_rep[(i, i)]
            };
            let group = group_of(normal_of[i]);
            ContactReport {
                index: i,
                verdict: group.verdict,
                coupling: kappa,
                reason: contact_sentence(group, kappa, &ops, normal_of[i]),
            }
        })
        .collect();
    let rows = |m: &Mat<f64>| -> Vec<Vec<f64>> {
        (0..m.nrows())
            .map(|i| (0..m.ncols()).map(|j| m[(i, j)]).collect())
            .collect()
    };
    let p_matrix = groups
        .iter()
        .try_fold(true, |all, g| g.p_matrix.map(|p| all && p));
    Report {
        verdict: worst.verdict,
        coupling,
        contacts: reports,
        reason: instant_sentence(worst, coupling, &ops, groups.len()),
        blocks: vec![Block {
            contacts: (0..k).collect(),
            d: rows(&d_rep),
            c: rows(&c_rep),
            g: rows(&(&d_rep - &c_rep)),
        }],
        free_normal_acceleration: (0..k).map(|i| ops.w0[normal_of[i]]).collect(),
        p_matrix,
        frozen_exact: exact_column.iter().all(|&e| e),
    }
}

/// `J_n M_E^-1 J_t^T` with the entries below [`COUPLING_TOL`] of their
/// Cauchy-Schwarz bound `sqrt(D_aa T_ii)` set to zero.
fn cleaned_coupling(ops: &Operators) -> Mat<f64> {
    let u = ops.w.nrows();
    let d_max = (0..u).map(|a| ops.w[(a, a)]).fold(0.0, f64::max);
    let mut nt = ops.v.clone();
    for a in 0..u {
        for i in 0..nt.ncols() {
            let bound = (ops.w[(a, a)].max(RANK_TOL * d_max) * ops.t_diag[i].max(0.0)).sqrt();
            if nt[(a, i)].abs() <= COUPLING_TOL * bound {
                nt[(a, i)] = 0.0;
            }
        }
    }
    nt
}

/// The groups of normals that the contact problem couples (through `D` or
/// `C`): each group's problem is independent of the others', so each gets
/// its own verdict and its own `2^k` enumeration.
fn groups(d: &Mat<f64>, c: &Mat<f64>) -> Vec<Vec<usize>> {
    let u = d.nrows();
    let mut islands = UnionFind::new(u);
    for a in 0..u {
        for b in a + 1..u {
            let linked = d[(a, b)].abs() > COUPLING_TOL * (d[(a, a)] * d[(b, b)]).sqrt()
                || c[(a, b)] != 0.0
                || c[(b, a)] != 0.0;
            if linked {
                islands.union(a, b);
            }
        }
    }
    islands.groups(&mut Vec::new())
}

/// The verdict of one group: `equivalent` without coupling, else
/// `not_equivalent` when `G` is a P-matrix (one answer whatever the load),
/// else what the part's contact problem says (`part`: its Painleve
/// verdict, if any, and its count of answers).
fn judge(
    normals: Vec<usize>,
    ops: &Operators,
    c_u: &Mat<f64>,
    bilateral: &[bool],
    frozen_exact: bool,
    part: (Option<Verdict>, Answers),
) -> Group {
    let sub = |m: &Mat<f64>| {
        Mat::from_fn(normals.len(), normals.len(), |x, y| {
            m[(normals[x], normals[y])]
        })
    };
    let (d, c) = (sub(&ops.w), sub(c_u));
    let coupled = (0..normals.len()).any(|x| (0..normals.len()).any(|y| c[(x, y)] != 0.0));
    let coupling = spectral_radius(&(psd_pinv(&d) * &c));
    let p_matrix = (normals.len() <= MAX_ENUMERATED_CONTACTS).then(|| {
        let bil: Vec<bool> = normals.iter().map(|&a| bilateral[a]).collect();
        is_p_matrix(&d, &c, &bil)
    });
    let verdict = match p_matrix {
        _ if !coupled => Verdict::Equivalent,
        Some(true) => Verdict::NotEquivalent,
        _ => part.0.unwrap_or(Verdict::NotEquivalent),
    };
    Group {
        normals,
        verdict,
        coupling,
        p_matrix,
        answers: part.1,
        frozen_exact,
    }
}

/// Whether the contact problem of one group has one solution for every
/// free normal acceleration. As a piecewise-linear equation
/// `F(z) = sum_x B_x(sign z_x) z_x + w_free = 0` it has one branch per sign
/// pattern of `z`:
///
/// - unilateral normal `x`: `z_x > 0` is the closed contact
///   (`lambda_x = z_x`, column `G_x = D_x - C_x`), `z_x < 0` the open one
///   (`lambda_x = 0`, gap acceleration `w_x = -z_x`, column `e_x`): the
///   LCP `w = G lambda + w_free >= 0, lambda >= 0, w . lambda = 0`;
/// - bilateral normal `x`: `lambda_x = z_x` of either sign, the friction
///   going with `|lambda_x|` (column `D_x - C_x` or `D_x + C_x`).
///
/// The branch matrices of an LCP are the principal submatrices of `G`
/// bordered by the identity, so "every branch determinant positive" is
/// "`G` is a P-matrix"; with bilateral normals it is the same
/// coherent-orientation test. An analysis of `G` alone: how many answers a
/// given load has is the contact problem's to say (`Answers`).
fn is_p_matrix(d: &Mat<f64>, c: &Mat<f64>, bilateral: &[bool]) -> bool {
    let m = d.nrows();
    let column = |pattern: usize, x: usize, row: usize| -> f64 {
        let positive = pattern & (1 << x) != 0;
        match (bilateral[x], positive) {
            (false, false) => f64::from(u8::from(row == x)),
            (_, true) => d[(row, x)] - c[(row, x)],
            (true, false) => d[(row, x)] + c[(row, x)],
        }
    };
    let branch = |p: usize| Mat::from_fn(m, m, |row, x| column(p, x, row));
    (0..1usize << m).all(|p| normalized_det(&branch(p)) > DET_TOL)
}

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    if items.len() == 1 {
        items[0].clone()
    } else {
        format!("({})", items.join(", "))
    }
}

fn free_acc(group: &Group, ops: &Operators) -> String {
    let w: Vec<f64> = group.normals.iter().map(|&a| ops.w0[a]).collect();
    list(&w)
}

fn instant_sentence(worst: &Group, coupling: f64, ops: &Operators, n_groups: usize) -> String {
    let scope = if n_groups > 1 {
        " (the worst of the independent contact groups)"
    } else {
        ""
    };
    match worst.verdict {
        Verdict::Equivalent => "No normal force feels the friction (C = 0): friction frozen at the \
             frictionless normal force is exact, so the minimum (QP) form gives the Newton answer."
            .into(),
        Verdict::NotEquivalent if worst.frozen_exact => format!(
            "The normal forces feel the friction (C != 0){scope}, but the friction force they add \
             up to does not (J_t^T mu S D^-1 C = 0, coupling {coupling:.4}): the principle is not \
             equivalent, yet the frozen-friction QP happens to give the Newton answer."
        ),
        Verdict::NotEquivalent => {
            let mut s = format!(
                "Friction feeds back into the normal forces (coupling rho(D^-1 C) = {coupling:.4}){scope}: \
                 the frozen-friction QP is off and the coupled (variational) equations give the Newton answer"
            );
            s.push_str(if coupling < 1.0 {
                ", to which re-solving the QP with updated friction converges at that rate"
            } else {
                "; re-solving the QP with updated friction diverges"
            });
            if worst.p_matrix == Some(false) {
                s.push_str(match worst.answers {
                    Answers::One => {
                        " (G is not a P-matrix, but this contact problem has exactly one solution)"
                    }
                    Answers::Found => {
                        " (G is not a P-matrix; the contact problem's answer was found, without \
                         testing that it is the only one)"
                    }
                    _ => " (G is not a P-matrix; the contact problem's answer was not found)",
                });
            } else if worst.p_matrix.is_none() {
                s.push_str(&format!(
                    " (more than {MAX_ENUMERATED_CONTACTS} coupled contacts: Painleve paradoxes were not tested)"
                ));
            }
            s.push('.');
            s
        }
        Verdict::PainleveInconsistent => format!(
            "G = D - C is not a P-matrix and the contact problem has no solution{scope} (free normal \
             acceleration {}): the rigid model needs an impulsive normal force (impact without \
             collision), so neither form has an answer.",
            free_acc(worst, ops)
        ),
        Verdict::PainleveIndeterminate => format!(
            "G = D - C is not a P-matrix and the contact problem has several solutions{scope} (free \
             normal acceleration {}): the rigid model does not choose between them, so neither form \
             has a unique answer.",
            free_acc(worst, ops)
        ),
        Verdict::StationaryOnly => "A higher-order principle: stationary, not a minimum.".into(),
    }
}

fn contact_sentence(group: &Group, kappa: f64, ops: &Operators, normal: usize) -> String {
    let shared = if group.normals.len() > 1 {
        format!(" (coupled with {} other contacts)", group.normals.len() - 1)
    } else {
        String::new()
    };
    match group.verdict {
        Verdict::Equivalent => "Its normal force does not feel friction (C = 0): the QP is exact.".into(),
        Verdict::NotEquivalent if group.frozen_exact => format!(
            "Friction moves the normal force (kappa = {kappa:.4}){shared}, but not the total \
             friction force: the frozen-friction QP is exact here."
        ),
        Verdict::NotEquivalent => format!(
            "Friction couples into the normal force (kappa = {kappa:.4}, group coupling {:.4}){shared}: \
             the frozen-friction QP is off.",
            group.coupling
        ),
        Verdict::PainleveInconsistent => format!(
            "Painleve{shared}: G is not a P-matrix and with free normal acceleration {:.4} there is \
             no solution.",
            ops.w0[normal]
        ),
        Verdict::PainleveIndeterminate => format!(
            "Painleve{shared}: G is not a P-matrix and with free normal acceleration {:.4} there are \
             several solutions.",
            ops.w0[normal]
        ),
        Verdict::StationaryOnly => "A higher-order principle: stationary, not a minimum.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zwang_instant::matrix_from_triplets;

    /// A unit mass on a floor (`a_y >= 0`), sliding (`mu = 0.3`), with two
    /// equality rows of the given orders.
    fn particle(orders: Vec<u32>) -> Instant {
        let mass = matrix_from_triplets("mass", (2, 2), [(0, 0, 1.0), (1, 1, 1.0)]).unwrap();
        let eq = matrix_from_triplets("equalities.A", (2, 2), [(0, 0, 1.0), (1, 1, 1.0)]);
        let floor = matrix_from_triplets("inequalities.A", (1, 2), [(0, 1, 1.0)]).unwrap();
        Instant::builder(mass, vec![1.0, -9.81])
            .equalities(eq.unwrap(), vec![0.5, 0.0])
            .equality_orders(orders)
            .inequalities(floor, vec![0.0])
            .sliding(SlidingContact {
                normal: RowRef {
                    set: RowSet::Inequalities,
                    row: 0,
                },
                tangent: vec![1.0, 0.0],
                mu: 0.3,
                slip: 1.0,
            })
            .build()
            .unwrap()
    }

    /// Rows of order 2 are the ordinary instant; one row above 2 makes the
    /// whole instant `stationary_only`, its contacts included, and the
    /// reason names the row and its order and says why.
    #[test]
    fn rows_of_higher_order_are_stationary_only() {
        let ordinary = check(&particle(vec![2, 2]));
        assert_eq!(ordinary.verdict, Verdict::Equivalent);
        for (orders, named) in [
            (vec![2, 3], vec!["row 1 (order 3"]),
            (vec![4, 2], vec!["row 0 (order 4"]),
            (vec![3, 5], vec!["rows 0 (order 3", "1 (order 5"]),
        ] {
            let report = check(&particle(orders.clone()));
            assert_eq!(report.verdict, Verdict::StationaryOnly, "{orders:?}");
            assert_eq!(report.verdict.as_str(), "stationary_only");
            for name in named {
                assert!(
                    report.reason.contains(name),
                    "{orders:?}: {}",
                    report.reason
                );
            }
            assert!(
                !report.reason.contains("row 1 (order 2"),
                "{}",
                report.reason
            );
            for why in [
                "linear",
                "stationary, not a minimum",
                "eqs 8 and 12",
                "no QP",
            ] {
                assert!(report.reason.contains(why), "{why}: {}", report.reason);
            }
            assert_eq!(report.contacts.len(), 1);
            assert_eq!(report.contacts[0].verdict, Verdict::StationaryOnly);
            assert_eq!(report.p_matrix, None);
            assert!(report.blocks.is_empty() && !report.frozen_exact);
            // The dense matrices of a report without blocks are zeros.
            assert_eq!(report.g(), vec![vec![0.0]]);
        }
    }
}
