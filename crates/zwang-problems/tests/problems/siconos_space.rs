//! Siconos' text files of problems in space (`d` = 3), `W` in each of
//! Siconos' storages (dense, sparse block, CSparse by triplets, columns or
//! rows): read, solved, and checked against answers known in closed form;
//! Siconos' measure in its degenerate cases (`q = 0`, an answer `r = 0`,
//! data below `DBL_EPSILON`) against a computation of it written here; and
//! malformed files as named errors.
//!
//! The files are written by `tests/data/siconos-3d/make.py` (which can
//! also check them against Siconos' own reader); this test needs neither.

use sprs::CsMat;
use zwang_contact::factored::solve_local;
use zwang_contact::{
    local_error, ContactSolver, LocalProblem, ProblemError, SolverSettings, Status,
};
use zwang_problems::{parse_local, SiconosError};

const STORAGES: [&str; 5] = ["dense", "sbm", "triplet", "csc", "csr"];

fn data(name: &str) -> String {
    let path = format!(
        "{}/tests/data/siconos-3d/{name}.dat",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `three_contacts`' `W` (block diagonal: independent bodies), by rows.
const THREE_W: [[f64; 9]; 9] = [
    [2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.2, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 1.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
];
const THREE_Q: [f64; 9] = [-2.0, -0.15, 0.0, -1.0, 3.0, 4.0, 0.5, -1.0, 2.0];
const THREE_MU: [f64; 3] = [0.5, 0.5, 0.3];

/// The closed-form answer of `three_contacts`:
/// 1. sticking: `u_1 = 0`, so `r_1 = -W_1^-1 q_1 = (1, 0.2, -0.1)`
///    (`W_1`'s normal row is decoupled: `r_N = 2 / 2`; the tangential
///    block `[[1, 0.5], [0.5, 1]]` takes `(0.15, 0)` from `(0.2, -0.1)`),
///    inside the cone: `|r_T| = 0.224 < 0.5 r_N`;
/// 2. sliding (`W_2 = I`, `q_T = (3, 4)`, `|q_T|` 5): `u_N = 0` so `r_N =
///    1`; the friction `-mu r_N q_T / |q_T| = (-0.3, -0.4)` slows the slip
///    to `u_T = (2.7, 3.6)`, still along `q_T` (maximal dissipation);
/// 3. open (`q_N = 0.5 > 0`, and De Saxce's `0.5 + 0.3 |q_T|` outside the
///    reach of `mu |q_T|`): `r_3 = 0`, `u_3 = q_3`.
const THREE_R: [f64; 9] = [1.0, 0.2, -0.1, 1.0, -0.3, -0.4, 0.0, 0.0, 0.0];
const THREE_U: [f64; 9] = [0.0, 0.0, 0.0, 0.0, 2.7, 3.6, 0.5, -1.0, 2.0];

fn entry(w: &CsMat<f64>, row: usize, col: usize) -> f64 {
    w.get(row, col).copied().unwrap_or(0.0)
}

fn settings(tolerance: f64) -> SolverSettings {
    SolverSettings {
        tolerance,
        ..SolverSettings::default()
    }
}

/// `u = W r + q`, row by row over the stored entries (not the library's).
fn velocity(w: &CsMat<f64>, q: &[f64], r: &[f64]) -> Vec<f64> {
    let mut u = q.to_vec();
    for (&x, (row, col)) in w.iter() {
        u[row] += x * r[col];
    }
    u
}

/// Siconos' `projectionOnCone` (`fc3d_projection`): onto `|t| <= mu n`.
fn project_3d(mu: f64, x: [f64; 3]) -> [f64; 3] {
    let t = x[1].hypot(x[2]);
    if mu * t <= -x[0] {
        [0.0; 3]
    } else if t <= mu * x[0] {
        x
    } else {
        let n = (mu * t + x[0]) / (mu * mu + 1.0);
        [n, mu * n * x[1] / t, mu * n * x[2] / t]
    }
}

/// The projection of `fc2d_compute_error` onto `|t| <= mu n`.
fn project_2d(mu: f64, x: [f64; 2]) -> [f64; 2] {
    let t = x[1].abs();
    if mu * t <= -x[0] {
        [0.0; 2]
    } else if t > mu * x[0] {
        let n = (mu * t + x[0]) / (mu * mu + 1.0);
        let sign = if x[1] < 0.0 {
            -1.0
        } else if x[1] > 0.0 {
            1.0
        } else {
            0.0
        };
        [n, mu * n * sign]
    } else {
        x
    }
}

/// Siconos' `fc3d_compute_error` / `fc2d_compute_error` as their C source
/// reads: `u = W r + q` recomputed, the residual of `r - P_K(r - u - mu
/// |u_T| e_N)` summed over contacts, divided by `max(||q||, ||r||, ||u||)`
/// only when that is above `DBL_EPSILON` (2.220446049250313e-16).
fn siconos_error(p: &LocalProblem, r: &[f64]) -> f64 {
    let u = velocity(&p.w, &p.q, r);
    let d = p.dimension;
    let mut sum = 0.0;
    for (i, &mu) in p.mu.iter().enumerate() {
        let (ri, ui) = (&r[d * i..d * i + d], &u[d * i..d * i + d]);
        if d == 3 {
            let x = [
                ri[0] - ui[0] - mu * ui[1].hypot(ui[2]),
                ri[1] - ui[1],
                ri[2] - ui[2],
            ];
            let proj = project_3d(mu, x);
            sum += (0..3).map(|a| (ri[a] - proj[a]).powi(2)).sum::<f64>();
        } else {
            let x = [ri[0] - ui[0] - mu * ui[1].abs(), ri[1] - ui[1]];
            let proj = project_2d(mu, x);
            sum += (0..2).map(|a| (ri[a] - proj[a]).powi(2)).sum::<f64>();
        }
    }
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let error = sum.sqrt();
    let scale = norm(&p.q).max(norm(r)).max(norm(&u));
    if scale > 2.220446049250313e-16 {
        error / scale
    } else {
        error
    }
}

/// The library's measure is [`siconos_error`] to its rounding: a few
/// `DBL_EPSILON` of the data over the same divisor (the residual of an
/// answer is a difference of numbers of the data's size).
fn assert_same_measure(what: &str, p: &LocalProblem, r: &[f64], library: f64) {
    let independent = siconos_error(p, r);
    let u = velocity(&p.w, &p.q, r);
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let scale = norm(&p.q).max(norm(r)).max(norm(&u));
    let divisor = if scale > 2.220446049250313e-16 {
        scale
    } else {
        1.0
    };
    let rounding = 8.0 * f64::EPSILON * scale / divisor;
    println!("{what}: measure {independent:e}, library {library:e}, rounding {rounding:e}");
    assert!(
        (library - independent).abs() <= 1e-9 * independent + rounding,
        "{what}: {library:e} against {independent:e}"
    );
}

/// Solves a local problem as `zwang contact` does: the dual method in the
/// plane, the primal one on `W = J J^T` in space.
fn solve(p: &LocalProblem, tolerance: f64) -> (Vec<f64>, Vec<f64>, Status) {
    let s = if p.dimension == 2 {
        ContactSolver::new()
            .solve(p, &settings(tolerance), None)
            .unwrap()
    } else {
        solve_local(p, &settings(tolerance)).unwrap()
    };
    let u = velocity(&p.w, &p.q, &s.r);
    (s.r, u, s.status)
}

#[test]
fn three_independent_contacts_read_in_every_storage() {
    for storage in STORAGES {
        let p = parse_local(&data(&format!("three_contacts_{storage}"))).unwrap();
        assert_eq!((p.dimension, p.contacts()), (3, 3), "{storage}");
        assert_eq!(p.w.shape(), (9, 9), "{storage}");
        for (i, row) in THREE_W.iter().enumerate() {
            for (j, &x) in row.iter().enumerate() {
                assert_eq!(entry(&p.w, i, j), x, "{storage}: W[{i}, {j}]");
            }
        }
        // Zeros written densely (or inside a block) are not stored.
        assert_eq!(p.w.nnz(), 13, "{storage}");
        assert_eq!(p.q, THREE_Q, "{storage}");
        assert_eq!(p.mu, THREE_MU, "{storage}");
    }
}

#[test]
fn three_independent_contacts_solve_to_their_closed_form_in_every_storage() {
    for storage in STORAGES {
        let p = parse_local(&data(&format!("three_contacts_{storage}"))).unwrap();
        let (r, u, status) = solve(&p, 1e-8);
        assert_eq!(status, Status::Solved, "{storage}");
        let error = siconos_error(&p, &r);
        assert!(error <= 1e-8, "{storage}: {error:e}");
        for k in 0..9 {
            assert!(
                (r[k] - THREE_R[k]).abs() <= 1e-8,
                "{storage}: r[{k}] = {} against {}",
                r[k],
                THREE_R[k]
            );
            assert!(
                (u[k] - THREE_U[k]).abs() <= 1e-8,
                "{storage}: u[{k}] = {} against {}",
                u[k],
                THREE_U[k]
            );
        }
        // The closed form itself is an answer to rounding (0.15's).
        assert!(siconos_error(&p, &THREE_R) < 1e-16);
    }
}

#[test]
fn every_storage_of_a_coupled_problem_reads_and_solves_alike() {
    let problems: Vec<LocalProblem> = STORAGES
        .iter()
        .map(|s| parse_local(&data(&format!("coupled_{s}"))).unwrap())
        .collect();
    let dense = &problems[0];
    assert_eq!((dense.dimension, dense.contacts()), (3, 2));
    // Every block of the sparse-block file is off its place if the block
    // column index were ignored: W[0, 3] is block (0, 1)'s.
    assert_eq!(entry(&dense.w, 0, 3), 0.5);
    assert_eq!(entry(&dense.w, 5, 2), 0.3);
    assert_eq!(dense.w.nnz(), 24);
    let (r0, _, status) = solve(dense, 1e-10);
    assert_eq!(status, Status::Solved);
    assert!(siconos_error(dense, &r0) <= 1e-10);
    for (storage, p) in STORAGES.iter().zip(&problems).skip(1) {
        assert_eq!(p, dense, "{storage}: another problem than the dense one");
        let (r, _, status) = solve(p, 1e-10);
        assert_eq!(status, Status::Solved, "{storage}");
        for (a, b) in r.iter().zip(&r0) {
            assert!((a - b).abs() <= 1e-12, "{storage}: {r:?} against {r0:?}");
        }
    }
}

/// A dense 6-by-6 `W` (two contacts, coupled) with this `q`, in space.
fn two_contacts(q: [f64; 6]) -> String {
    let w = [
        [2.0, 0.1, 0.0, 0.5, 0.0, 0.1],
        [0.1, 1.5, 0.2, 0.0, 0.3, 0.0],
        [0.0, 0.2, 1.5, 0.1, 0.0, 0.3],
        [0.5, 0.0, 0.1, 2.0, 0.1, 0.0],
        [0.0, 0.3, 0.0, 0.1, 1.5, 0.2],
        [0.1, 0.0, 0.3, 0.0, 0.2, 1.5],
    ];
    let mut text = String::from("3\n2\n0\n6\n6\n6\t6\n");
    for col in 0..6 {
        let line: Vec<String> = (0..6).map(|row| format!("{:e}", w[row][col])).collect();
        text += &(line.join(" ") + "\n");
    }
    let q: Vec<String> = q.iter().map(|x| format!("{x:e}")).collect();
    text + &q.join(" ") + "\n0.6 0.4\n"
}

/// Siconos' measure when the data vanish: with `q = 0` the answer is `r =
/// 0` and its measure 0 (no scale: absolute); with `||q||` below
/// `DBL_EPSILON` the measure is the residual itself, not the residual over
/// `||q||`.
#[test]
fn the_measure_of_degenerate_problems_is_siconos_own() {
    // r = 0 given, q approaching by 1e-18 (no impulse stops it): the
    // residual is 1e-18, and so is Siconos' measure (the scale 1e-18 is
    // below DBL_EPSILON); dividing by ||q|| would say 1.
    let mu = [0.5];
    for (q, want) in [
        ([-1e-18, 0.0, 0.0], 1e-18),
        ([1e-18, 0.0, 0.0], 0.0),
        ([-1e-3, 0.0, 0.0], 1.0),
        ([0.0; 3], 0.0),
    ] {
        let r = [0.0; 3];
        let e = local_error(&mu, &q, &r, &q);
        assert!((e - want).abs() <= 1e-15 * want, "q = {q:?}: {e:e}");
    }
    let cases = [
        ("q = 0", [0.0; 6]),
        // Separating by 1e-18: the answer is r = 0.
        ("r = 0", [1e-18, 2e-19, 0.0, 3e-18, 0.0, -1e-19]),
        // Approaching by 1e-18: a tiny answer, measured absolutely.
        ("tiny", [-1e-18, 2e-19, 0.0, -3e-18, 1e-19, 0.0]),
    ];
    for (what, q) in cases {
        let p = parse_local(&two_contacts(q)).unwrap();
        let (r, u, status) = solve(&p, 1e-8);
        assert_eq!(status, Status::Solved, "{what}");
        let independent = siconos_error(&p, &r);
        println!("{what}: r = {r:?}");
        assert_same_measure(what, &p, &r, local_error(&p.mu, &p.q, &r, &u));
        assert!(independent <= 1e-8, "{what}: {independent:e}");
        let norm = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        match what {
            "q = 0" | "r = 0" => assert!(norm <= 1e-17, "{what}: {r:?}"),
            _ => assert!(norm <= 1e-16, "{what}: {r:?}"),
        }
    }
}

/// The granular flow (667 planar contacts, `||q||` 4.3e-18): the measure
/// of the answer is Siconos' (absolute here), recomputed from the file.
#[test]
fn the_granular_flow_at_rest_is_measured_as_siconos_measures_it() {
    let path = format!(
        "{}/../../tests/data/contact-problems/fc2d_granularflowonwall_00667_00000.dat",
        env!("CARGO_MANIFEST_DIR")
    );
    let p = parse_local(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (r, u, status) = solve(&p, 1e-8);
    assert_eq!(status, Status::Solved);
    let independent = siconos_error(&p, &r);
    assert_same_measure("granular", &p, &r, local_error(&p.mu, &p.q, &r, &u));
    // Every scale is below DBL_EPSILON: the measure is the residual itself,
    // at most ||q|| (the residual of r = 0).
    assert!(independent <= 4.3e-18, "{independent:e}");
}

fn replace_nth(text: &str, from: &str, to: &str, n: usize) -> String {
    let at = text.match_indices(from).nth(n).expect("present").0;
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

#[test]
fn malformed_files_in_space_are_named_errors() {
    let dense = data("three_contacts_dense");
    let sbm = data("three_contacts_sbm");
    let triplet = data("three_contacts_triplet");
    let csc = data("three_contacts_csc");
    let csr = data("three_contacts_csr");
    type Check = fn(&SiconosError) -> bool;
    let cases: Vec<(&str, String, Check)> = vec![
        ("dimension 4", dense.replacen("3\n3\n", "4\n3\n", 1), |e| {
            *e == ProblemError::Dimension(4).into()
        }),
        (
            "dimension 2 for 3",
            dense.replacen("3\n3\n", "2\n3\n", 1),
            |e| {
                *e == ProblemError::Size {
                    what: "W's rows",
                    found: 9,
                    expected: 6,
                }
                .into()
            },
        ),
        ("nc 2 for 3", dense.replacen("3\n3\n", "3\n2\n", 1), |e| {
            matches!(e, SiconosError::Trailing { .. })
        }),
        ("nc 4 for 3", dense.replacen("3\n3\n", "3\n4\n", 1), |e| {
            matches!(e, SiconosError::Truncated { .. })
        }),
        ("dense sizes", dense.replacen("9\t9", "9\t8", 1), |e| {
            matches!(e, SiconosError::Count { line: 6, .. })
        }),
        ("truncated sbm", sbm[..sbm.len() / 2].to_owned(), |e| {
            matches!(e, SiconosError::Truncated { .. })
        }),
        (
            "sbm block sizes",
            sbm.replacen("3\t6\t9\t\n", "3\t6\t10\t\n", 1),
            |e| matches!(e, SiconosError::Count { .. }),
        ),
        (
            "sbm block column",
            sbm.replacen("0\t1\t2\t\n", "0\t1\t3\t\n", 1),
            |e| matches!(e, SiconosError::Count { .. }),
        ),
        (
            "sbm block number",
            sbm.replacen("\n1\n  1.0", "\n2\n  1.0", 1),
            |e| matches!(e, SiconosError::Count { .. }),
        ),
        (
            "sbm word",
            replace_nth(&sbm, "5.000000000000000000000000e-01", "half", 0),
            |e| matches!(e, SiconosError::Syntax { .. }),
        ),
        (
            "triplet outside",
            triplet.replacen("    8 8 : 1", "    9 8 : 1", 1),
            |e| matches!(e, SiconosError::Count { .. }),
        ),
        ("csc nnz", csc.replacen("nnz: 13", "nnz: 14", 1), |e| {
            matches!(e, SiconosError::Count { .. })
        }),
        (
            "csr header",
            csr.replacen("csr: 9-by-9", "9-by-9", 1),
            |e| matches!(e, SiconosError::Count { .. }),
        ),
        (
            "origin 4",
            csc.replacen("\n2\nCSparse", "\n4\nCSparse", 1),
            |e| matches!(e, SiconosError::Unsupported { .. }),
        ),
        (
            "nan in q",
            replace_nth(&dense, "-2.000000000000000000000000e+00", "nan", 0),
            |e| matches!(e, SiconosError::NotFinite { .. }),
        ),
        (
            "negative mu",
            replace_nth(&dense, "2.999999999999999888977698e-01", "-0.3", 0),
            |e| {
                *e == ProblemError::Friction {
                    contact: 2,
                    value: -0.3,
                }
                .into()
            },
        ),
    ];
    for (what, text, check) in cases {
        let e = parse_local(&text).expect_err(what);
        let message = e.to_string();
        println!("{what}: {message}");
        assert!(!message.contains('\n'), "{what}: {message}");
        assert!(check(&e), "{what}: {e:?}");
    }
}
