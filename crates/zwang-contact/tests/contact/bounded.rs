//! The primal solver's bounded rows (`u = g v + b`, the impulse in
//! `[lo, hi]` with the mixed complementarity): equality rows, one-sided
//! limits and dry friction, alone (a quadratic program, against Clarabel
//! and closed forms) and with Coulomb contacts (closed forms of a box
//! driven along a floor), the islands they join, and a solver that meets a
//! new pattern.

use crate::common;

use clarabel::solver::{DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sprs::{CsMat, TriMat};
use zwang_contact::{
    parse_island, write_island, BoundedRows, ContactRows, Friction, PrimalSolver, ProblemError,
    Report, SolverSettings, Status, VelocityProblem,
};
use zwang_problems::generate::{box_on_incline, G};

const INF: f64 = f64::INFINITY;

/// An answer: the report, impulses and contact velocities (contacts', then
/// the bounded rows'), velocities.
struct Answer {
    report: Report,
    r: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
}

fn settings(tolerance: f64) -> SolverSettings {
    SolverSettings {
        tolerance,
        friction: Friction::Exact,
        parallel: false,
        ..SolverSettings::default()
    }
}

/// The same with a single outer iteration: the proximal Newton finish
/// must end the solve.
fn finishing(tolerance: f64) -> SolverSettings {
    SolverSettings {
        max_iterations: 1,
        ..settings(tolerance)
    }
}

fn rows_of(p: &VelocityProblem) -> usize {
    p.rows.dimension * p.mu.len() + p.bounded.len()
}

fn solve_with(solver: &mut PrimalSolver, p: &VelocityProblem, s: &SolverSettings) -> Answer {
    let rows = rows_of(p);
    let (mut r, mut u, mut v) = (vec![0.0; rows], vec![0.0; rows], vec![0.0; p.force.len()]);
    let report = solver
        .solve_in_place(p, s, &mut r, &mut v, &mut u)
        .expect("a valid problem");
    Answer { report, r, u, v }
}

fn solve(p: &VelocityProblem, s: &SolverSettings) -> Answer {
    solve_with(&mut PrimalSolver::new(), p, s)
}

/// `M x` from all of `M`'s entries.
fn mass_times(p: &VelocityProblem, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for (&value, (r, c)) in p.mass.iter() {
        y[r] += value * x[c];
    }
    y
}

/// `|M v - f - J^T r - G^T r_b| / max(|f|, |M v|)`, by this file's own
/// arithmetic.
fn dynamics_violation(p: &VelocityProblem, a: &Answer) -> f64 {
    let mut residual = mass_times(p, &a.v);
    let norm = |x: &[f64]| x.iter().map(|y| y * y).sum::<f64>().sqrt();
    let scale = norm(&residual).max(norm(&p.force)).max(1e-300);
    for (x, f) in residual.iter_mut().zip(&p.force) {
        *x -= f;
    }
    let d = p.rows.dimension;
    for i in 0..p.mu.len() {
        for e in p.rows.start[i]..p.rows.start[i + 1] {
            for c in 0..d {
                residual[p.rows.cols[e]] -= p.rows.values[d * e + c] * a.r[d * i + c];
            }
        }
    }
    let dk = d * p.mu.len();
    let g = &p.bounded;
    for j in 0..g.len() {
        for e in g.start[j]..g.start[j + 1] {
            residual[g.cols[e]] -= g.values[e] * a.r[dk + j];
        }
    }
    norm(&residual) / scale
}

/// The bounded rows' conditions, by this file's own arithmetic: `u = g v +
/// b`; `lo <= r <= hi`; `u > 0` only at `r = lo`, `u < 0` only at `r =
/// hi` (as products with the distance to the bound, no threshold deciding
/// a row's state; an infinite bound admits no velocity of that sign). The
/// largest violation, impulses relative to `impulse`, velocities to
/// `speed`.
fn box_violation(p: &VelocityProblem, a: &Answer, impulse: f64, speed: f64) -> f64 {
    let dk = p.rows.dimension * p.mu.len();
    let g = &p.bounded;
    let mut worst: f64 = 0.0;
    for j in 0..g.len() {
        let (x, w, lo, hi) = (a.r[dk + j], a.u[dk + j], g.lo[j], g.hi[j]);
        let gv: f64 = (g.start[j]..g.start[j + 1])
            .map(|e| g.values[e] * a.v[g.cols[e]])
            .sum();
        worst = worst
            .max((gv + g.b[j] - w).abs() / speed)
            .max((lo - x) / impulse)
            .max((x - hi) / impulse);
        let (up, down) = (w.max(0.0), (-w).max(0.0));
        worst = worst.max(if lo.is_finite() {
            up * (x - lo) / (speed * impulse)
        } else {
            up / speed
        });
        worst = worst.max(if hi.is_finite() {
            down * (hi - x) / (speed * impulse)
        } else {
            down / speed
        });
    }
    worst
}

/// Coulomb's law in space or the plane, by this file's own arithmetic
/// (products, as `zwang_problems::generate::coulomb_violation` in the
/// plane): in the cone; exact, no approach, no separation while pressed,
/// on the cone's edge while slipping, the friction against the slip;
/// convex, `u` in the dual cone (`u_N >= mu |u_T|`) and `r . u = 0`.
fn coulomb_violation(
    p: &VelocityProblem,
    a: &Answer,
    [impulse, speed]: [f64; 2],
    friction: Friction,
) -> f64 {
    let d = p.rows.dimension;
    let both = impulse * speed;
    let mut worst: f64 = 0.0;
    for (i, &mu) in p.mu.iter().enumerate() {
        let (r, u) = (&a.r[d * i..d * i + d], &a.u[d * i..d * i + d]);
        let rt = r[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
        let ut = u[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
        worst = worst.max(-r[0] / impulse).max((rt - mu * r[0]) / impulse);
        worst = worst.max(match friction {
            Friction::Exact => {
                let against: f64 = r[1..].iter().zip(&u[1..]).map(|(a, b)| a * b).sum();
                (-u[0] / speed)
                    .max((r[0] * u[0]).abs() / both)
                    .max((ut * (mu * r[0] - rt)).abs() / both)
                    // `r_T` antiparallel to `u_T`: `r_T . u_T = -|r_T| |u_T|`.
                    .max((against + rt * ut) / both)
            }
            Friction::Convex => {
                let dot: f64 = r.iter().zip(u).map(|(x, y)| x * y).sum();
                ((mu * ut - u[0]) / speed).max(dot.abs() / both)
            }
        });
    }
    worst
}

/// `phi(u) = sup_{lo <= r <= hi} -r u`, the bounded row's term in the
/// velocities' objective where `u` keeps a one-sided row (`+inf` where it
/// breaks it; taken as 0 here, [`box_violation`] bounding the breach).
fn row_objective(lo: f64, hi: f64, u: f64) -> f64 {
    if u > 0.0 && lo.is_finite() {
        -lo * u
    } else if u < 0.0 && hi.is_finite() {
        -hi * u
    } else {
        0.0
    }
}

/// With no contacts (or contacts in the convex form) the problem is `min 1/2 v^T M v - f^T v + sum_j
/// phi_j(g_j v + b_j)`, `phi_j(u) = sup_{r in [lo_j, hi_j]} -r u`, whose
/// optimality conditions are the bounded rows' law. Clarabel's form: an
/// equality row is a zero cone on `u`; a row with one finite bound `l` a
/// nonnegative cone on `u` (or `-u`) and the linear term `-l u`; a box
/// an epigraph variable `t >= -lo u`, `t >= -hi u`. Returns `v` and the
/// objective.
fn clarabel_reference(p: &VelocityProblem) -> Option<(Vec<f64>, f64)> {
    let n = p.force.len();
    let g = &p.bounded;
    let boxes: Vec<usize> = (0..g.len())
        .filter(|&j| g.lo[j].is_finite() && g.hi[j].is_finite())
        .collect();
    let nx = n + boxes.len();
    // `P` with zeros for the epigraph variables.
    let mut mass = TriMat::new((nx, nx));
    for (&value, (r, c)) in p.mass.iter() {
        mass.add_triplet(r, c, value);
    }
    let pm = common::upper_triangle(&mass.to_csc());
    let mut q: Vec<f64> = p.force.iter().map(|f| -f).collect();
    q.resize(nx, 1.0);
    let mut constant = 0.0;
    let mut a_cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); nx];
    let (mut b, mut cones) = (Vec::new(), Vec::new());
    let mut row = 0;
    // `s = b_c - A x`: `s = sign (g v + b)` row by row.
    let push_row = |a_cols: &mut Vec<Vec<(usize, f64)>>, j: usize, sign: f64, row: usize| {
        for e in g.start[j]..g.start[j + 1] {
            a_cols[g.cols[e]].push((row, -sign * g.values[e]));
        }
    };
    let mut next_box = n;
    for j in 0..g.len() {
        let (lo, hi) = (g.lo[j], g.hi[j]);
        let linear = |q: &mut Vec<f64>, constant: &mut f64, l: f64| {
            // `-l (g v + b)` in the objective.
            for e in g.start[j]..g.start[j + 1] {
                q[g.cols[e]] -= l * g.values[e];
            }
            *constant -= l * g.b[j];
        };
        if lo.is_finite() && hi.is_finite() {
            // `t + lo u >= 0`, `t + hi u >= 0`.
            for bound in [lo, hi] {
                push_row(&mut a_cols, j, bound, row);
                a_cols[next_box].push((row, -1.0));
                b.push(bound * g.b[j]);
                row += 1;
            }
            cones.push(SupportedConeT::NonnegativeConeT(2));
            next_box += 1;
        } else if lo.is_finite() {
            push_row(&mut a_cols, j, 1.0, row);
            b.push(g.b[j]);
            cones.push(SupportedConeT::NonnegativeConeT(1));
            linear(&mut q, &mut constant, lo);
            row += 1;
        } else if hi.is_finite() {
            push_row(&mut a_cols, j, -1.0, row);
            b.push(-g.b[j]);
            cones.push(SupportedConeT::NonnegativeConeT(1));
            linear(&mut q, &mut constant, hi);
            row += 1;
        } else {
            push_row(&mut a_cols, j, 1.0, row);
            b.push(g.b[j]);
            cones.push(SupportedConeT::ZeroConeT(1));
            row += 1;
        }
    }
    // Contacts in the convex form: `(u_N, mu u_T)` in the Lorentz cone
    // (`u_N >= 0` alone for a frictionless one).
    let d = p.rows.dimension;
    for (i, &mu) in p.mu.iter().enumerate() {
        let used = if mu > 0.0 { d } else { 1 };
        let scale = |c: usize| if c == 0 { 1.0 } else { mu };
        for e in p.rows.start[i]..p.rows.start[i + 1] {
            for c in 0..used {
                a_cols[p.rows.cols[e]].push((row + c, -scale(c) * p.rows.values[d * e + c]));
            }
        }
        for c in 0..used {
            b.push(scale(c) * p.b[d * i + c]);
        }
        cones.push(if used > 1 {
            SupportedConeT::SecondOrderConeT(used)
        } else {
            SupportedConeT::NonnegativeConeT(1)
        });
        row += used;
    }
    let a = common::columns(row, &mut a_cols);
    let mut solver = DefaultSolver::new(&pm, &q, &a, &b, &cones, common::settings(1e-12)).ok()?;
    solver.solve();
    (solver.solution.status == SolverStatus::Solved).then(|| {
        (
            solver.solution.x[..n].to_vec(),
            objective(p, &solver.solution.x[..n]),
        )
    })
}

/// Where Clarabel finds `p`'s optimum: checks that the answer's objective
/// is no higher, and returns how far its velocities are from Clarabel's
/// (largest difference, relative to the largest velocity or 1).
fn clarabel_distance(p: &VelocityProblem, a: &Answer, case: usize) -> Option<f64> {
    let (reference, theirs) = clarabel_reference(p)?;
    let ours = objective(p, &a.v);
    assert!(
        ours <= theirs + 1e-9 * theirs.abs().max(1.0),
        "case {case}: objective {ours} above Clarabel's {theirs}"
    );
    let scale = reference.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let far =
        a.v.iter()
            .zip(&reference)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    Some(far / scale)
}

/// Solves case `case`, which must be solved, with the largest violation
/// of the laws (the bounded rows', the convex form's at the contacts, the
/// dynamics) and, where Clarabel finds an optimum, [`clarabel_distance`]
/// within `within` (in that order); returns the answer, the violation and
/// the distance.
fn solve_and_compare(
    p: &VelocityProblem,
    s: &SolverSettings,
    case: usize,
    within: [f64; 2],
) -> (Answer, f64, Option<f64>) {
    let a = solve(p, s);
    assert_eq!(
        a.report.status,
        Status::Solved,
        "case {case}: {:?}",
        a.report
    );
    let (impulse, speed) = scales(p, &a);
    let law = box_violation(p, &a, impulse, speed)
        .max(coulomb_violation(p, &a, [impulse, speed], Friction::Convex))
        .max(dynamics_violation(p, &a));
    assert!(law <= within[0], "case {case}: the laws broken by {law:e}");
    let distance = clarabel_distance(p, &a, case);
    if let Some(dv) = distance {
        assert!(dv <= within[1], "case {case}: |v - v_clarabel| = {dv:e}");
    }
    (a, law, distance)
}

/// An answer's scales: its largest impulse (or momentum), and speed.
fn scales(p: &VelocityProblem, a: &Answer) -> (f64, f64) {
    let largest = |x: &mut dyn Iterator<Item = &f64>| x.fold(1e-300f64, |m, y| m.max(y.abs()));
    (
        largest(&mut a.r.iter().chain(&p.force)),
        largest(&mut a.u.iter().chain(&a.v)),
    )
}

/// `1/2 v^T M v - f^T v + sum_j phi_j(g_j v + b_j)`.
fn objective(p: &VelocityProblem, v: &[f64]) -> f64 {
    let mv = mass_times(p, v);
    let g = &p.bounded;
    let mut total: f64 = v
        .iter()
        .zip(&mv)
        .zip(&p.force)
        .map(|((x, m), f)| 0.5 * x * m - f * x)
        .sum();
    for j in 0..g.len() {
        let u: f64 = (g.start[j]..g.start[j + 1])
            .map(|e| g.values[e] * v[g.cols[e]])
            .sum::<f64>()
            + g.b[j];
        total += row_objective(g.lo[j], g.hi[j], u);
    }
    total
}

/// A random problem of bounded rows alone, feasible by construction (each
/// one-sided row holds at a random `v0`, some exactly there): equality
/// rows (fewer than the velocities), limits, one-sided rows with a
/// nonzero bound, boxes, and redundant copies (a row scaled, its `b` too).
fn random_rows(rng: &mut ChaCha8Rng, diagonal: bool) -> VelocityProblem {
    random_rows_at(rng, diagonal).0
}

/// [`random_rows`], and the velocities `v0` that keep its rows.
fn random_rows_at(rng: &mut ChaCha8Rng, diagonal: bool) -> (VelocityProblem, Vec<f64>) {
    let n = rng.gen_range(3..12);
    let v0: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut bounded = BoundedRows::new();
    let (mut equalities, rows) = (0, rng.gen_range(1..2 * n));
    for _ in 0..rows {
        let copy = !bounded.is_empty() && rng.gen_bool(0.15);
        let (cols, values, kind) = if copy {
            let j = rng.gen_range(0..bounded.len());
            let s = rng.gen_range(0.5..2.0);
            let e = bounded.start[j]..bounded.start[j + 1];
            let kind = match (bounded.lo[j].is_finite(), bounded.hi[j].is_finite()) {
                (false, false) => 0,
                _ => 1,
            };
            if kind == 0 {
                // A redundant equality: the same row scaled, consistent.
                let cols: Vec<usize> = bounded.cols[e.clone()].to_vec();
                let values: Vec<f64> = bounded.values[e].iter().map(|x| s * x).collect();
                let b = s * bounded.b[j];
                bounded.push(cols.into_iter().zip(values), b, -INF, INF);
                continue;
            }
            (
                bounded.cols[e.clone()].to_vec(),
                bounded.values[e].iter().map(|x| s * x).collect::<Vec<_>>(),
                1,
            )
        } else {
            let mut cols: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.4)).collect();
            if cols.is_empty() {
                cols.push(rng.gen_range(0..n));
            }
            let values: Vec<f64> = cols.iter().map(|_| rng.gen_range(-1.0..1.0)).collect();
            let kind = if equalities + 1 < n && rng.gen_bool(0.2) {
                equalities += 1;
                0
            } else {
                rng.gen_range(1..5)
            };
            (cols, values, kind)
        };
        let gv0: f64 = cols.iter().zip(&values).map(|(&c, x)| x * v0[c]).sum();
        // Rows held at `v0` exactly, or with room.
        let slack = if rng.gen_bool(0.3) {
            0.0
        } else {
            rng.gen_range(0.0..0.5)
        };
        let entries = cols.into_iter().zip(values);
        match kind {
            0 => bounded.push(entries, -gv0, -INF, INF),
            1 => bounded.push(entries, -gv0 + slack, 0.0, INF),
            2 => bounded.push(entries, -gv0 + slack, rng.gen_range(-1.0..1.0), INF),
            3 => bounded.push(entries, -gv0 - slack, -INF, rng.gen_range(-1.0..1.0)),
            _ => {
                let f = rng.gen_range(0.0..1.5);
                bounded.push(entries, rng.gen_range(-0.5..0.5), -f, f);
            }
        }
    }
    let p = VelocityProblem {
        mass: common::random_mass(rng, n, diagonal),
        force: (0..n).map(|_| rng.gen_range(-3.0..3.0)).collect(),
        rows: ContactRows::new(if rng.gen_bool(0.5) { 2 } else { 3 }),
        b: Vec::new(),
        mu: Vec::new(),
        bounded,
    };
    (p, v0)
}

/// Random bounded rows with contacts in space (the convex form, a second
/// order cone program with them): each contact's `b` lets the rows'
/// velocities `v0` touch or leave, so that the whole is feasible. The
/// answer must satisfy both laws and the dynamics, and agree with
/// Clarabel's optimum (its velocities good to the square root of its gap
/// on cones); half the cases go to the finish after one outer iteration.
#[test]
fn contacts_and_bounded_rows_in_the_convex_form_agree_with_clarabel() {
    let mut rng = ChaCha8Rng::seed_from_u64(3434);
    let (mut worst_v, mut worst_law, mut compared) = (0.0f64, 0.0f64, 0);
    for case in 0..60 {
        let (mut p, v0) = random_rows_at(&mut rng, case % 2 == 0);
        let n = p.force.len();
        let mut rows = ContactRows::new(3);
        let k = rng.gen_range(1..=n / 2 + 1);
        for _ in 0..k {
            let mut cols: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.5)).collect();
            if cols.is_empty() {
                cols.push(rng.gen_range(0..n));
            }
            let entries: Vec<(usize, [f64; 3])> = cols
                .into_iter()
                .map(|c| (c, [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0))))
                .collect();
            let mut at = [0.0; 3];
            for (c, e) in &entries {
                for (x, y) in at.iter_mut().zip(e) {
                    *x += y * v0[*c];
                }
            }
            let gap = if rng.gen_bool(0.3) {
                0.0
            } else {
                rng.gen_range(0.0..0.5)
            };
            p.b.extend([gap - at[0], -at[1], -at[2]]);
            rows.push(entries);
            p.mu.push(if rng.gen_bool(0.15) {
                0.0
            } else {
                rng.gen_range(0.05..1.5)
            });
        }
        p.rows = rows;
        p.validate().unwrap();
        let s = SolverSettings {
            friction: Friction::Convex,
            ..if case % 4 < 2 {
                settings(1e-11)
            } else {
                finishing(1e-11)
            }
        };
        let (_, law, distance) = solve_and_compare(&p, &s, case, [1e-10, 1e-6]);
        worst_law = worst_law.max(law);
        if let Some(dv) = distance {
            compared += 1;
            worst_v = worst_v.max(dv);
        }
    }
    assert!(compared >= 35, "Clarabel solved only {compared} cases");
    eprintln!("mixed: worst law {worst_law:e}, worst |v - v_clarabel| {worst_v:e} over {compared}");
}

/// Bounded rows alone are a convex quadratic program: the answer must
/// satisfy its optimality conditions (checked here, not by the solver's
/// measure) and agree with Clarabel's optimum, objective and velocities.
/// Half the cases are left to the proximal Newton finish after one outer
/// iteration (in the plane too: the rows' dimension is drawn).
#[test]
fn bounded_rows_alone_agree_with_clarabel() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let (mut worst_v, mut worst_law, mut compared, mut finished) = (0.0f64, 0.0f64, 0, 0);
    for case in 0..120 {
        let p = random_rows(&mut rng, case % 2 == 0);
        p.validate().unwrap();
        let s = if case % 4 < 2 {
            settings(1e-12)
        } else {
            finishing(1e-12)
        };
        let (a, law, distance) = solve_and_compare(&p, &s, case, [1e-11, 1e-9]);
        finished += usize::from(a.report.dual);
        worst_law = worst_law.max(law);
        if let Some(dv) = distance {
            compared += 1;
            worst_v = worst_v.max(dv);
        }
    }
    assert!(compared >= 100, "Clarabel solved only {compared} cases");
    assert!(finished >= 40, "the finish ran on only {finished} cases");
    eprintln!(
        "worst law {worst_law:e}, worst |v - v_clarabel| {worst_v:e} over {compared}; \
         {finished} finished"
    );
}

/// One velocity, one row `u = v + b`: the problem whose answers are known.
fn one_mass(m: f64, v0: f64, b: f64, lo: f64, hi: f64) -> VelocityProblem {
    let mut bounded = BoundedRows::new();
    bounded.push([(0, 1.0)], b, lo, hi);
    VelocityProblem {
        mass: CsMat::new_csc((1, 1), vec![0, 1], vec![0], vec![m]),
        force: vec![m * v0],
        rows: ContactRows::new(3),
        b: Vec::new(),
        mu: Vec::new(),
        bounded,
    }
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-12 * y.abs().max(1.0)
}

/// A mass meeting a limit stops (its impulse exactly the approach's
/// momentum), or stops at the row's allowed approach `b`; one moving away
/// passes untouched.
#[test]
fn a_limit_cancels_the_approach() {
    let s = settings(1e-12);
    for (m, v0, b, v, r) in [
        (2.5, -1.3, 0.0, 0.0, 3.25),
        (2.5, -1.3, 0.4, -0.4, 2.25),
        (0.1, 1.0, 0.0, 1.0, 0.0),
        (1e3, -1e-3, 0.0, 0.0, 1.0),
    ] {
        let a = solve(&one_mass(m, v0, b, 0.0, INF), &s);
        assert_eq!(a.report.status, Status::Solved);
        assert!(
            close(a.v[0], v) && close(a.r[0], r),
            "{m} {v0} {b}: v {} r {}",
            a.v[0],
            a.r[0]
        );
        assert!(close(a.u[0], v + b));
    }
}

/// Dry friction `F` over a step: momentum below `F` stops exactly, above
/// it loses exactly `F`, either way; an equality row stops any momentum.
#[test]
fn dry_friction_stops_or_takes_its_bound() {
    let s = settings(1e-12);
    let (m, f) = (2.0, 1.5);
    for (p, v, r) in [
        (1.2, 0.0, -1.2),
        (-1.49, 0.0, 1.49),
        (4.0, 1.25, -1.5),
        (-4.0, -1.25, 1.5),
    ] {
        let a = solve(&one_mass(m, p / m, 0.0, -f, f), &s);
        assert_eq!(a.report.status, Status::Solved);
        assert!(
            close(a.v[0], v) && close(a.r[0], r),
            "{p}: v {} r {}",
            a.v[0],
            a.r[0]
        );
        let a = solve(&one_mass(m, p / m, 0.0, -INF, INF), &s);
        assert!(
            close(a.v[0], 0.0) && close(a.r[0], -p),
            "{p}: v {} r {}",
            a.v[0],
            a.r[0]
        );
    }
}

/// Two masses joined by an equality row `v_1 - v_2 = 0` share their
/// momentum, one island; beside a third mass on its own limit, two.
#[test]
fn an_equality_row_joins_two_bodies() {
    let (m1, m2, m3) = (1.0, 3.0, 2.0);
    let (p1, p2, p3) = (2.0, -6.0, -1.0);
    let mut bounded = BoundedRows::new();
    bounded.push([(2, 1.0)], 0.0, 0.0, INF);
    bounded.push([(0, 1.0), (1, -1.0)], 0.0, -INF, INF);
    let p = VelocityProblem {
        mass: CsMat::new_csc((3, 3), vec![0, 1, 2, 3], vec![0, 1, 2], vec![m1, m2, m3]),
        force: vec![p1, p2, p3],
        rows: ContactRows::new(2),
        b: Vec::new(),
        mu: Vec::new(),
        bounded,
    };
    let a = solve(&p, &settings(1e-12));
    assert_eq!(a.report.status, Status::Solved);
    assert_eq!(a.report.islands, 2);
    let v = (p1 + p2) / (m1 + m2);
    assert!(close(a.v[0], v) && close(a.v[1], v), "{:?}", a.v);
    assert!(close(a.r[1], m1 * v - p1), "{:?}", a.r);
    assert!(close(a.v[2], 0.0) && close(a.r[0], -p3), "{:?}", a);
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "r {:?} u {:?} v {:?} {:?}",
            self.r, self.u, self.v, self.report
        )
    }
}

/// A box on an incline (four contacts in the plane, friction below the
/// slope's), or a cube on a floor (four corners in space), driven along
/// the surface at `speed` by an equality row on its velocity: it slides
/// at exactly that speed without turning, the contacts' normal impulses
/// carry its weight, their friction is `mu` times that against the slip,
/// and the row's impulse makes up the rest of the momentum. Both laws hold
/// to the tolerance (checked here from the data).
#[test]
fn a_body_driven_along_a_surface_by_an_equality_row() {
    let (h, speed) = (0.002, 0.3);
    let angle = 20f64.to_radians();
    let mu = 0.5 * angle.tan();
    let mut planar = box_on_incline(angle, mu, 4, h).velocity_problem();
    let world = common::cube_on_floor([0.0, 0.0, -G], h, 2.0, 0.05, mu);
    let mut spatial = world.problem();
    // The problem, its weight's impulse per unit mass across the surface,
    // its mass.
    let cases = [
        (&mut planar, G * angle.cos() * h, 1.0),
        (&mut spatial, G * h, 2.0),
    ];
    for (p, weight, m) in cases {
        let (weight, forward) = (m * weight, p.force[0]);
        p.bounded.push([(0, 1.0)], -speed, -INF, INF);
        // A limit on the velocity across the surface that never binds.
        p.bounded.push([(1, 1.0)], 1.0, 0.0, INF);
        p.validate().unwrap();
        for s in [settings(1e-10), finishing(1e-10)] {
            let a = solve(p, &s);
            assert_eq!(a.report.status, Status::Solved, "{:?}", a.report);
            assert_eq!(a.report.dual, s.max_iterations == 1);
            let d = p.rows.dimension;
            let dk = d * p.mu.len();
            let impulse = weight.max(forward.abs());
            assert!(
                coulomb_violation(p, &a, [impulse, speed], Friction::Exact) <= 1e-9,
                "{a:?}"
            );
            assert!(box_violation(p, &a, impulse, speed) <= 1e-9, "{a:?}");
            assert!(dynamics_violation(p, &a) <= 1e-9, "{a:?}");
            // Slides at `speed`, nothing else moves.
            for (c, &x) in a.v.iter().enumerate() {
                let expected = if c == 0 { speed } else { 0.0 };
                assert!((x - expected).abs() <= 1e-9 * speed, "v[{c}] = {x}");
            }
            let normal: f64 = (0..p.mu.len()).map(|i| a.r[d * i]).sum();
            assert!(
                (normal - weight).abs() <= 1e-9 * weight,
                "{normal} {weight}"
            );
            // The contacts' friction along the slip, by `J^T r`.
            let mut along = 0.0;
            for i in 0..p.mu.len() {
                for e in p.rows.start[i]..p.rows.start[i + 1] {
                    if p.rows.cols[e] == 0 {
                        along += (0..d)
                            .map(|c| p.rows.values[d * e + c] * a.r[d * i + c])
                            .sum::<f64>();
                    }
                }
            }
            assert!(
                (along + mu * weight).abs() <= 1e-9 * weight,
                "{along} {}",
                -mu * weight
            );
            let row = m * speed - forward - along;
            assert!((a.r[dk] - row).abs() <= 1e-9 * impulse, "{} {row}", a.r[dk]);
            assert!(a.r[dk + 1].abs() <= 1e-9 * impulse);
        }
    }
}

/// A solver meeting problems of new patterns (rows added, removed, moved)
/// and an old one again answers each as a new solver does, to the bit.
#[test]
fn a_reused_solver_meets_new_patterns() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let problems: Vec<VelocityProblem> =
        (0..6).map(|c| random_rows(&mut rng, c % 2 == 1)).collect();
    let s = settings(1e-11);
    let mut solver = PrimalSolver::new();
    for p in problems.iter().chain(&problems[..2]) {
        let (reused, fresh) = (solve_with(&mut solver, p, &s), solve(p, &s));
        assert_eq!(reused.report.status, Status::Solved);
        assert_eq!(reused.r, fresh.r);
        assert_eq!(reused.v, fresh.v);
        assert_eq!(reused.u, fresh.u);
    }
}

/// Malformed bounded rows are refused, naming what is wrong.
#[test]
fn malformed_bounded_rows_are_refused() {
    let good = one_mass(1.0, -1.0, 0.0, 0.0, INF);
    good.validate().unwrap();
    for (lo, hi) in [
        (1.0, 0.0),
        (INF, INF),
        (-INF, -INF),
        (f64::NAN, 1.0),
        (0.0, f64::NAN),
    ] {
        let mut p = good.clone();
        p.bounded.lo[0] = lo;
        p.bounded.hi[0] = hi;
        assert!(
            matches!(p.validate(), Err(ProblemError::Bounds { row: 0, .. })),
            "{lo} {hi}"
        );
    }
    let mut p = good.clone();
    p.bounded.cols[0] = 1;
    assert!(matches!(p.validate(), Err(ProblemError::Size { .. })));
    let mut p = good.clone();
    p.bounded.b.push(0.0);
    assert!(matches!(p.validate(), Err(ProblemError::Size { .. })));
    let mut p = good.clone();
    p.bounded.values[0] = f64::NAN;
    assert!(matches!(p.validate(), Err(ProblemError::NotFinite { .. })));
    // The answer's vectors hold the bounded rows too.
    let (mut r, mut v, mut u) = (vec![0.0; 0], vec![0.0; 1], vec![0.0; 1]);
    let e = PrimalSolver::new().solve_in_place(&good, &settings(1e-10), &mut r, &mut v, &mut u);
    assert!(e.is_err());
}

/// Three hundred bodies, in pairs joined by an equality row, each pair
/// with a limit on one body and dry friction on the other: one island a
/// pair, solved on rayon's pool as in series (to the bit), each pair's
/// velocity the closed form's.
#[test]
fn islands_of_bounded_rows_solve_in_parallel_as_in_series() {
    let pairs = 150;
    let n = 2 * pairs;
    let mut bounded = BoundedRows::new();
    let masses: Vec<f64> = (0..n).map(|c| 1.0 + (c % 7) as f64).collect();
    let force: Vec<f64> = (0..n).map(|c| ((c * 37) % 11) as f64 - 5.0).collect();
    for q in 0..pairs {
        let (a, b) = (2 * q, 2 * q + 1);
        bounded.push([(a, 1.0), (b, -1.0)], 0.0, -INF, INF);
        bounded.push([(a, 1.0)], 0.0, 0.0, INF);
        bounded.push([(b, 1.0)], 0.0, -2.0, 2.0);
    }
    let p = VelocityProblem {
        mass: CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), masses.clone()),
        force: force.clone(),
        rows: ContactRows::new(3),
        b: Vec::new(),
        mu: Vec::new(),
        bounded,
    };
    let series = solve(&p, &settings(1e-12));
    let parallel = solve(
        &p,
        &SolverSettings {
            parallel: true,
            ..settings(1e-12)
        },
    );
    assert_eq!(series.report.status, Status::Solved);
    assert_eq!(parallel.report.status, Status::Solved);
    assert_eq!(parallel.report.islands, pairs);
    assert_eq!(series.r, parallel.r);
    assert_eq!(series.v, parallel.v);
    for q in 0..pairs {
        // The pair moves as one body of momentum `p`: the limit stops it
        // from going backwards, the friction takes up to 2 off it.
        let (a, b) = (2 * q, 2 * q + 1);
        let (m, momentum) = (masses[a] + masses[b], force[a] + force[b]);
        let v = if momentum > 2.0 {
            (momentum - 2.0) / m
        } else {
            0.0
        };
        for c in [a, b] {
            assert!(
                (series.v[c] - v).abs() <= 1e-12 * v.abs().max(1.0),
                "pair {q}: {}",
                series.v[c]
            );
        }
    }
}

/// Two equality rows that contradict each other (`v = 1` and `v = 2`) have
/// no answer: the outer iterations' impulses drift along a ray that
/// certifies it, which the finish's answer (its measure, relative to the
/// growing impulses, small) does not overrule.
#[test]
fn contradictory_equalities_have_no_answer() {
    let mut p = one_mass(1.0, 0.0, -1.0, -INF, INF);
    p.bounded.push([(0, 1.0)], -2.0, -INF, INF);
    let a = solve(&p, &settings(1e-10));
    assert_eq!(a.report.status, Status::Unbounded, "{a:?}");
    // Consistent, the same rows have the answer `v = 1`.
    p.bounded.b[1] = -1.0;
    let a = solve(&p, &settings(1e-10));
    assert_eq!(a.report.status, Status::Solved, "{a:?}");
    assert!((a.v[0] - 1.0).abs() <= 1e-10, "{a:?}");
}

/// An island with bounded rows (infinite bounds included) reads back as
/// written, with its settings or without.
#[test]
fn islands_with_bounded_rows_read_back_as_written() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let p = random_rows(&mut rng, false);
    assert!(p.bounded.lo.contains(&-INF) && p.bounded.hi.contains(&INF));
    let warm: Vec<f64> = (0..rows_of(&p)).map(|j| j as f64 - 0.5).collect();
    for settings in [Some(settings(1e-9)), None] {
        let text = write_island(&p, &warm, settings.as_ref(), "bounded");
        let island = parse_island(&text).unwrap();
        assert_eq!(island.problem, p);
        assert_eq!(island.warm, warm);
        assert_eq!(
            island.settings.map(|s| s.tolerance),
            settings.map(|s| s.tolerance)
        );
    }
    // A warm start without the bounded rows' impulses is refused.
    let text = write_island(&p, &warm[..warm.len() - 1], None, "");
    assert!(parse_island(&text).is_err());
}

/// Regression: an equality row that the free motion already keeps (its
/// free term and velocity are round-off of a cancellation) was held to a
/// tolerance below that round-off and reported "not converged" at every
/// step of a gripper's fall; it is solved, at Clarabel's answer, with the
/// row kept to round-off of its terms.
#[test]
fn a_row_the_free_motion_keeps_is_not_held_below_its_round_off() {
    let island = parse_island(include_str!(
        "../data/gripper_coupling_kept_by_symmetry.txt"
    ))
    .expect("the file reads");
    let p = island.problem;
    p.validate().unwrap();
    for s in [settings(5e-11), finishing(5e-11), settings(1e-14)] {
        let a = solve(&p, &s);
        assert_eq!(a.report.status, Status::Solved, "{:?}", a.report);
        let speed = a.v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(a.u[0].abs() <= 1e-14 * speed, "u = {:e}", a.u[0]);
        assert!(dynamics_violation(&p, &a) <= 1e-12);
        let distance = clarabel_distance(&p, &a, 0).expect("Clarabel solves it");
        assert!(distance <= 1e-9, "|v - v_clarabel| = {distance:e}");
    }
}
