//! The checker: does the minimum (QP) form of Gauss's principle give the
//! Newton answer at this instant, and does a rigid answer exist at all?

use crate::linalg::{normalized_det, psd_pinv, solve_square, spectral_radius, RANK_TOL};
use crate::system::{Contacts, Operators, SIGN_TOL};
use faer::Mat;
use zwang_instant::Instant;

/// A coupling entry whose size is below this fraction of its
/// Cauchy-Schwarz bound `mu sqrt(D_ii T_jj)` counts as zero (a vertical rod
/// has `cos(pi/2) ~ 6e-17`, not 0).
pub const COUPLING_TOL: f64 = 1e-9;

/// The largest group of mutually coupled contacts whose contact problem is
/// enumerated (`2^k` branches): beyond it the Painleve test is not run.
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
    /// A higher-order principle: stationary, not a minimum, so there is no
    /// QP at all. Never produced from an instant file (the variant is kept
    /// so that every producer of verdicts shares one type).
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
    /// `D = J_n M_E^-1 J_n^T` (`k x k`, rows of arrays), the Delassus
    /// operator of the sliding normals in the system the other rows leave
    /// free.
    pub d: Vec<Vec<f64>>,
    /// `C = J_n M_E^-1 J_t^T mu S` (`k x k`), entries below
    /// [`COUPLING_TOL`] of their bound set to zero.
    pub c: Vec<Vec<f64>>,
    /// `G = D - C`.
    pub g: Vec<Vec<f64>>,
    /// `J_n a - b_n` per contact when no normal force and no friction act
    /// (the other rows still hold): negative means the contact is pressed.
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

/// What the enumeration of one group's contact problem found.
struct Branches {
    p_matrix: bool,
    /// Isolated solutions (counted only when `p_matrix` is false).
    solutions: usize,
    /// A singular branch with a consistent solution: a continuum.
    continuum: bool,
}

/// The verdict of one group of coupled contacts, with what explains it.
struct Group {
    normals: Vec<usize>,
    verdict: Verdict,
    coupling: f64,
    p_matrix: Option<bool>,
    /// A non-P `G` whose contact problem still has exactly one solution.
    unique_despite_non_p: bool,
    /// See [`Report::frozen_exact`].
    frozen_exact: bool,
}

/// Checks an instant: per sliding contact and for the whole instant, is
/// the minimum form equivalent to the variational (Newton) form, and is the
/// rigid contact problem well posed (Painleve)?
///
/// The rows other than the sliding normals are taken into account through
/// `M_E^-1`, the inverse mass of the system they leave free: every equality
/// row, and the inequality rows that the variational solution keeps active.
pub fn check(instant: &Instant) -> Report {
    let k = instant.sliding().len();
    if k == 0 {
        return Report {
            verdict: Verdict::Equivalent,
            coupling: 0.0,
            contacts: Vec::new(),
            reason: "No sliding contacts: no applied force depends on a constraint force, so the \
                     minimum (QP) form is exact."
                .into(),
            d: Vec::new(),
            c: Vec::new(),
            g: Vec::new(),
            free_normal_acceleration: Vec::new(),
            p_matrix: Some(true),
            frozen_exact: true,
        };
    }
    let mut contacts = Contacts::new(instant);
    let other = contacts.solve_coupled().other_rows;
    let ops = contacts.operators(&other);
    let u = contacts.normals.len();
    let normal_of = contacts.normal_of.clone();
    let mu_s: Vec<f64> = instant.sliding().iter().map(|c| c.mu * c.slip).collect();
    let nt = cleaned_coupling(&ops);
    // Per contact (k x k, the report) and per distinct normal (u x u, the
    // analysis: contacts sharing a normal row share its force).
    let d_rep = Mat::from_fn(k, k, |i, j| ops.d[(normal_of[i], normal_of[j])]);
    let c_rep = Mat::from_fn(k, k, |i, j| nt[(normal_of[i], j)] * mu_s[j]);
    let mut c_u = Mat::<f64>::zeros(u, u);
    for j in 0..k {
        for a in 0..u {
            c_u[(a, normal_of[j])] += nt[(a, j)] * mu_s[j];
        }
    }
    let dinv_c = psd_pinv(&ops.d) * &c_u;
    let coupling = spectral_radius(&dinv_c);
    // Friction frozen at the frictionless normal forces lambda_0 is off by
    // -J_t^T mu S (lambda_0 - lambda*) = J_t^T mu S D^-1 C G^-1 r: zero for
    // every load iff each column of J_t^T mu S D^-1 C vanishes.
    let exact_column: Vec<bool> = (0..u)
        .map(|b| {
            let coef: Vec<f64> = (0..k)
                .map(|i| mu_s[i] * dinv_c[(normal_of[i], b)])
                .collect();
            let (norm, bound) = contacts.tangent_combination_norm(&coef);
            norm <= COUPLING_TOL * bound
        })
        .collect();
    let groups = groups(&ops.d, &c_u)
        .into_iter()
        .map(|normals| {
            let frozen_exact = normals.iter().all(|&b| exact_column[b]);
            judge(normals, &ops, &c_u, &contacts.bilateral, frozen_exact)
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
        d: rows(&d_rep),
        c: rows(&c_rep),
        g: rows(&(&d_rep - &c_rep)),
        free_normal_acceleration: (0..k)
            .map(|i| ops.free_normal_acceleration[normal_of[i]])
            .collect(),
        p_matrix,
        frozen_exact: exact_column.iter().all(|&e| e),
    }
}

/// `J_n M_E^-1 J_t^T` with the entries below [`COUPLING_TOL`] of their
/// Cauchy-Schwarz bound `sqrt(D_aa T_ii)` set to zero.
fn cleaned_coupling(ops: &Operators) -> Mat<f64> {
    let u = ops.d.nrows();
    let d_max = (0..u).map(|a| ops.d[(a, a)]).fold(0.0, f64::max);
    let mut nt = ops.normal_tangent.clone();
    for a in 0..u {
        for i in 0..nt.ncols() {
            let bound = (ops.d[(a, a)].max(RANK_TOL * d_max) * ops.tangent_diag[i].max(0.0)).sqrt();
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
    let mut parent: Vec<usize> = (0..u).collect();
    fn root(p: &mut [usize], mut a: usize) -> usize {
        while p[a] != a {
            p[a] = p[p[a]];
            a = p[a];
        }
        a
    }
    for a in 0..u {
        for b in a + 1..u {
            let linked = d[(a, b)].abs() > COUPLING_TOL * (d[(a, a)] * d[(b, b)]).sqrt()
                || c[(a, b)] != 0.0
                || c[(b, a)] != 0.0;
            if linked {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut label: Vec<Option<usize>> = vec![None; u];
    for a in 0..u {
        let r = root(&mut parent, a);
        match label[r] {
            Some(g) => out[g].push(a),
            None => {
                label[r] = Some(out.len());
                out.push(vec![a]);
            }
        }
    }
    out
}

fn judge(
    normals: Vec<usize>,
    ops: &Operators,
    c_u: &Mat<f64>,
    bilateral: &[bool],
    frozen_exact: bool,
) -> Group {
    let sub = |m: &Mat<f64>| {
        Mat::from_fn(normals.len(), normals.len(), |x, y| {
            m[(normals[x], normals[y])]
        })
    };
    let (d, c) = (sub(&ops.d), sub(c_u));
    let coupled = (0..normals.len()).any(|x| (0..normals.len()).any(|y| c[(x, y)] != 0.0));
    let coupling = spectral_radius(&(psd_pinv(&d) * &c));
    let branches = (normals.len() <= MAX_ENUMERATED_CONTACTS).then(|| {
        let w: Vec<f64> = normals
            .iter()
            .map(|&a| ops.free_normal_acceleration[a])
            .collect();
        let bil: Vec<bool> = normals.iter().map(|&a| bilateral[a]).collect();
        enumerate(&d, &c, &w, &bil)
    });
    let verdict = match &branches {
        _ if !coupled => Verdict::Equivalent,
        None => Verdict::NotEquivalent,
        Some(b) if b.p_matrix => Verdict::NotEquivalent,
        Some(b) if b.solutions == 0 && !b.continuum => Verdict::PainleveInconsistent,
        Some(b) if b.solutions >= 2 || b.continuum => Verdict::PainleveIndeterminate,
        Some(_) => Verdict::NotEquivalent,
    };
    Group {
        normals,
        verdict,
        coupling,
        p_matrix: branches.as_ref().map(|b| b.p_matrix),
        unique_despite_non_p: coupled
            && verdict == Verdict::NotEquivalent
            && branches.as_ref().is_some_and(|b| !b.p_matrix),
        frozen_exact,
    }
}

/// The contact problem of one group as a piecewise-linear equation
/// `F(z) = sum_x B_x(sign z_x) z_x + w_free = 0`, one branch per sign
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
/// "`G` is a P-matrix" (a unique solution for every `w_free`); with bilateral
/// normals it is the same coherent-orientation test. When it fails, every
/// branch is solved and the consistent solutions are counted.
fn enumerate(d: &Mat<f64>, c: &Mat<f64>, w_free: &[f64], bilateral: &[bool]) -> Branches {
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
    let p_matrix = (0..1usize << m).all(|p| normalized_det(&branch(p)) > DET_TOL);
    let mut found: Vec<Vec<f64>> = Vec::new();
    let mut continuum = false;
    if !p_matrix {
        let rhs: Vec<f64> = w_free.iter().map(|w| -w).collect();
        for p in 0..1usize << m {
            let b = branch(p);
            let singular = normalized_det(&b).abs() <= DET_TOL;
            let (z, residual) = solve_square(&b, &rhs);
            let tol = SIGN_TOL * z.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            let signs_ok = (0..m).all(|x| {
                if p & (1 << x) != 0 {
                    z[x] >= -tol
                } else {
                    z[x] <= tol
                }
            });
            if residual > 1e-9 || !signs_ok {
                continue;
            }
            if singular {
                continuum = true;
                continue;
            }
            // (lambda, w) of the solution, so that a solution on a branch
            // boundary (some z_x = 0) is counted once.
            let sol: Vec<f64> = (0..m)
                .flat_map(|x| {
                    let positive = p & (1 << x) != 0;
                    match (bilateral[x], positive) {
                        (false, false) => [0.0, -z[x]],
                        _ => [z[x], 0.0],
                    }
                })
                .collect();
            let scale = sol.iter().fold(f64::MIN_POSITIVE, |s, v| s.max(v.abs()));
            if !found.iter().any(|f| {
                f.iter()
                    .zip(&sol)
                    .all(|(a, b)| (a - b).abs() <= 1e-8 * scale)
            }) {
                found.push(sol);
            }
        }
    }
    Branches {
        p_matrix,
        solutions: found.len(),
        continuum,
    }
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
    let w: Vec<f64> = group
        .normals
        .iter()
        .map(|&a| ops.free_normal_acceleration[a])
        .collect();
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
            if worst.unique_despite_non_p {
                s.push_str(" (G is not a P-matrix, but this contact problem has exactly one solution)");
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
            ops.free_normal_acceleration[normal]
        ),
        Verdict::PainleveIndeterminate => format!(
            "Painleve{shared}: G is not a P-matrix and with free normal acceleration {:.4} there are \
             several solutions.",
            ops.free_normal_acceleration[normal]
        ),
        Verdict::StationaryOnly => "A higher-order principle: stationary, not a minimum.".into(),
    }
}
