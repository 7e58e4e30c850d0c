//! Siconos' text files: the shipped problems read to the values seen in
//! them by eye, a hand-made sparse-block file, and malformed variants.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sprs::CsMat;
use zwang_contact::{global_error, local_error, Friction, ProblemError};
use zwang_problems::{parse_global, parse_local, SiconosError};

const SLIDER_CRANK: &str = "FC2D_SliderCrankLagrangian00000.dat";
const GRANULAR: &str = "fc2d_granularflowonwall_00667_00000.dat";
const GRANULAR_GLOBAL: &str = "gfc2d_granularflowonwall_00000_00117.dat";

fn text(name: &str) -> String {
    let path = format!(
        "{}/../../tests/data/contact-problems/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A number as the file writes it (more digits than an `f64` literal
/// may have).
fn as_written(x: &str) -> f64 {
    x.parse().unwrap()
}

fn at(w: &CsMat<f64>, row: usize, col: usize) -> f64 {
    w.get(row, col).copied().unwrap_or(0.0)
}

/// `w` is the 4x4 `want` (rows), entry by entry.
fn assert_dense(w: &CsMat<f64>, want: [[f64; 4]; 4]) {
    for (i, row) in want.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            assert_eq!(at(w, i, j), x, "W[{i}, {j}]");
        }
    }
}

/// The largest `|W - W^T|` relative to the largest `|W|`.
fn asymmetry(w: &CsMat<f64>) -> f64 {
    let largest = w.iter().fold(0.0_f64, |a, (v, _)| a.max(v.abs()));
    let worst = w
        .iter()
        .fold(0.0_f64, |a, (v, (i, j))| a.max((v - at(w, j, i)).abs()));
    worst / largest
}

#[test]
fn slider_crank_dense_storage_is_column_major() {
    let p = parse_local(&text(SLIDER_CRANK)).unwrap();
    assert_eq!((p.dimension, p.contacts()), (2, 2));
    assert_eq!(p.w.shape(), (4, 4));
    // Each text line is a column: line 1 is W[.., 0], line 2 W[.., 1].
    assert_eq!(at(&p.w, 0, 0), as_written("9.365610022253570150496671e+02"));
    assert_eq!(
        at(&p.w, 1, 0),
        as_written("-4.642665883420582986218506e+02")
    );
    assert_eq!(
        at(&p.w, 0, 1),
        as_written("-4.642662921766745967033785e+02")
    );
    assert_eq!(at(&p.w, 3, 2), as_written("4.616593375838677957290201e+02"));
    // Symmetric to the simulator's rounding only (6e-7 here).
    assert!(asymmetry(&p.w) < 1e-6, "{}", asymmetry(&p.w));
    assert_eq!(p.q[1], as_written("-8.407368208001527065675873e+00"));
    assert_eq!(p.mu, vec![as_written("1.000000000000000020816682e-02"); 2]);
}

#[test]
fn granular_flow_compressed_columns() {
    let p = parse_local(&text(GRANULAR)).unwrap();
    assert_eq!((p.dimension, p.contacts()), (2, 667));
    assert_eq!(p.w.shape(), (1334, 1334));
    assert_eq!(p.w.nnz(), 3822);
    assert_eq!(at(&p.w, 0, 0), 856.713);
    assert_eq!(at(&p.w, 649, 0), -454.43);
    assert_eq!(at(&p.w, 9, 8), 1.60499e-06);
    assert_eq!(at(&p.w, 1, 649), 903.676);
    // CSparse printed both triangles with the same rounding.
    assert_eq!(asymmetry(&p.w), 0.0);
    assert_eq!(p.q[0], 0.0);
    assert_eq!(p.q[2], as_written("-1.084202172485504434007453e-19"));
    assert!(p.mu.iter().all(|&m| m == 0.5));
}

#[test]
fn granular_flow_global_form_without_contacts() {
    let p = parse_global(&text(GRANULAR_GLOBAL)).unwrap();
    // The second line is nc = 0: H is 900-by-0, b and mu are empty.
    assert_eq!((p.dimension, p.contacts()), (2, 0));
    assert_eq!(p.m.shape(), (900, 900));
    assert_eq!(p.m.nnz(), 900);
    assert_eq!(at(&p.m, 0, 0), 0.00150187);
    assert_eq!(at(&p.m, 2, 2), 1.46527e-10);
    assert_eq!(p.h.shape(), (900, 0));
    assert_eq!(p.q.len(), 900);
    assert_eq!(p.q[0], as_written("8.692653227118612546241855e-05"));
    assert!(p.b.is_empty() && p.mu.is_empty());
    // Its local form is empty; v = M^-1 q solves it to rounding.
    let mut reformulation = p.to_local().unwrap();
    assert_eq!(reformulation.local.w.shape(), (0, 0));
    let v = reformulation.velocity(&[]);
    assert!(global_error(&p, &[], &v, Friction::Exact) < 1e-15);
    assert!(global_error(&p, &[], &vec![0.0; 900], Friction::Exact) >= 1.0);
}

/// Siconos' own answer to the slider crank (Siconos 4.4, its Python
/// module: `fc2d_driver` with NSGS to 1e-12 on this file) and the error
/// Siconos reported for it: read here, the same error to four digits. `W`
/// read transposed would move `u` by 1e-5 and the error to about 1e-6.
#[test]
fn siconos_answer_to_the_slider_crank_has_siconos_error() {
    let p = parse_local(&text(SLIDER_CRANK)).unwrap();
    let r = [
        0.055779417655146664,
        0.0005577941765514666,
        0.05522439857400735,
        0.0005522439857400736,
    ];
    let mut u = [0.0; 4];
    p.velocity(&r, &mut u);
    let siconos = 9.887607148651763e-13;
    let e = local_error(&p.mu, &p.q, &r, &u);
    assert!((e - siconos).abs() < 1e-3 * siconos, "{e}");
    // Both contacts slide (r_T = mu r_N) against u_T = -8.546.
    assert!((u[1] + 8.546495812154124).abs() < 1e-12, "{u:?}");
}

/// Two bodies on a line (masses 2 and 4, and a coupled 2x2 block), two
/// planar contacts, in global form.
const TWO_BODIES: &str = "2\n2\n\
        0\n4\n4\n4\t4\n\
        2 0 0 0\n0 3 1 0\n0 1 3 0\n0 0 0 4\n\
        0\n4\n4\n4\t4\n\
        1 0 0 0\n0 1 0 0\n0 0 1 -1\n0 0 0 1\n\
        0.5 -1 2 -3\n0.1 0 0 0.2\n0.3 0.6\n";

/// A global problem's local form is Siconos' own reformulation, and
/// agrees with it: `u` from `W r + q_local` is `H^T v + b` with `v`
/// recovered, and the errors vanish together.
#[test]
fn global_to_local_on_a_hand_made_problem() {
    let p = parse_global(TWO_BODIES).unwrap();
    let mut reformulation = p.to_local().unwrap();
    let local = reformulation.local.clone();
    // What Siconos 4.4's globalFrictionContact_reformulation_FrictionContact
    // gives on this file.
    let w = [
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.375, -0.125, 0.0],
        [0.0, -0.125, 0.625, -0.25],
        [0.0, 0.0, -0.25, 0.25],
    ];
    for (i, row) in w.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            assert!((at(&local.w, i, j) - x).abs() < 1e-15, "W[{i}, {j}]");
        }
    }
    for (a, b) in local.q.iter().zip([0.35, -0.625, 1.625, -0.55]) {
        assert!((a - b).abs() < 1e-15, "{:?}", local.q);
    }
    let r = [1.0, 0.2, 0.5, -0.1];
    let mut u = [0.0; 4];
    local.velocity(&r, &mut u);
    let v = reformulation.velocity(&r);
    let u_global = p.contact_velocity(&v);
    for i in 0..4 {
        assert!((u[i] - u_global[i]).abs() < 1e-14, "{u:?} {u_global:?}");
    }
    // M v = H r + q holds, so the global error is the local one's
    // complementarity term (with its own scale).
    let e = global_error(&p, &r, &v, Friction::Exact);
    let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let local_part =
        local_error(&p.mu, &[], &r, &u) * norm(&r).max(norm(&u)) / norm(&r).max(norm(&u_global));
    assert!((e - local_part).abs() < 1e-12, "{e} {local_part}");
    // The primal method on the same problem in velocities: the answer of
    // the dual method on the local form.
    let settings = zwang_contact::SolverSettings {
        tolerance: 1e-13,
        ..Default::default()
    };
    let dual = zwang_contact::ContactSolver::new()
        .solve(&local, &settings, None)
        .unwrap();
    let v_dual = reformulation.velocity(&dual.r);
    let velocity = p.to_velocity().unwrap();
    let (mut r, mut v, mut u) = (vec![0.0; 4], vec![0.0; 4], vec![0.0; 4]);
    let report = zwang_contact::PrimalSolver::new()
        .solve_in_place(&velocity, &settings, &mut r, &mut v, &mut u)
        .unwrap();
    assert_eq!(report.status, zwang_contact::Status::Solved);
    for (a, b) in v.iter().zip(&v_dual) {
        assert!((a - b).abs() < 1e-12, "{v:?} {v_dual:?}");
    }
    assert!(global_error(&p, &r, &v, Friction::Exact) < 1e-12);
    // An M that is not positive definite is an error, not a panic.
    let bad = TWO_BODIES.replacen("2 0 0 0", "-2 0 0 0", 1);
    assert!(matches!(
        parse_global(&bad).unwrap().to_velocity().and_then(|b| {
            zwang_contact::PrimalSolver::new()
                .solve_in_place(&b, &settings, &mut r, &mut v, &mut u)
                .map(|_| ())
        }),
        Err(zwang_contact::GlobalError::MassNotPositiveDefinite { .. })
    ));
    assert!(matches!(
        parse_global(&bad).unwrap().to_local(),
        Err(zwang_contact::GlobalError::MassNotPositiveDefinite { .. })
    ));
}

/// The 4x4 of the slider crank, as `SBM_write_in_file` would write it in
/// 2x2 blocks (block rows ending at 2 and 4; three blocks: (0,0), (0,1),
/// (1,1); each block column-major).
const SPARSE_BLOCK: &str = "2\n2\n1\n4\n4\n\
    3\n2\n2\n2\t4\t\n2\t4\t\n3\n3\n0\t2\t3\t\n0\t1\t1\t\n\
    0\n1.0\n2.0\n3.0\n4.0\n\
    1\n5.0\n6.0\n7.0\n8.0\n\
    2\n9.0\n10.0\n11.0\n12.0\n\
    0.1 0.2 0.3 0.4\n0.5 0.6\n";

/// What Siconos 4.4's `frictionContact_printInFilename` wrote for the
/// block lower-triangular `[[1, 3, 0, 0], [2, 4, 0, 0], [5, 7, 9, 11],
/// [6, 8, 10, 12]]` in 2x2 blocks (from `SBM_from_csparse`), `q`, `mu`.
const SPARSE_BLOCK_BY_SICONOS: &str = "2\n2\n1\n4\n4\n3\n2\n2\n2\t4\t\n2\t4\t\n3\n3\n\
    0\t1\t3\t\n0\t0\t1\t\n\
    0\n  1.000000000000000000000000e+00\n  2.000000000000000000000000e+00\n\
      3.000000000000000000000000e+00\n  4.000000000000000000000000e+00\n\
    1\n  5.000000000000000000000000e+00\n  6.000000000000000000000000e+00\n\
      7.000000000000000000000000e+00\n  8.000000000000000000000000e+00\n\
    2\n  9.000000000000000000000000e+00\n  1.000000000000000000000000e+01\n\
      1.100000000000000000000000e+01\n  1.200000000000000000000000e+01\n\
      1.000000000000000055511151e-01   2.000000000000000111022302e-01   \
    2.999999999999999888977698e-01   4.000000000000000222044605e-01 \n\
      5.000000000000000000000000e-01   5.999999999999999777955395e-01 \n";

#[test]
fn sparse_block_as_siconos_writes_it() {
    let p = parse_local(SPARSE_BLOCK_BY_SICONOS).unwrap();
    assert_dense(
        &p.w,
        [
            [1.0, 3.0, 0.0, 0.0],
            [2.0, 4.0, 0.0, 0.0],
            [5.0, 7.0, 9.0, 11.0],
            [6.0, 8.0, 10.0, 12.0],
        ],
    );
    assert_eq!(p.q, vec![0.1, 0.2, 0.3, 0.4]);
}

#[test]
fn sparse_block_storage() {
    let p = parse_local(SPARSE_BLOCK).unwrap();
    assert_eq!(p.w.shape(), (4, 4));
    assert_eq!(p.w.nnz(), 12);
    assert_dense(
        &p.w,
        [
            [1.0, 3.0, 5.0, 7.0],
            [2.0, 4.0, 6.0, 8.0],
            [0.0, 0.0, 9.0, 11.0],
            [0.0, 0.0, 10.0, 12.0],
        ],
    );
    assert_eq!(p.mu, vec![0.5, 0.6]);
    // No block at all: an empty (zero) W.
    let empty = "2\n1\n1\n2\n2\n0\n1.0 2.0\n0.3\n";
    assert_eq!(parse_local(empty).unwrap().w.nnz(), 0);
}

#[test]
fn csparse_triplets_and_compressed_rows() {
    let banner = "CSparse Version 3.1.9, May 4, 2016.  Copyright (c) Timothy A. Davis, 2006-2016";
    let triplet = format!(
        "2\n1\n2\n2\n2\n1\n{banner}\ntriplet: 2-by-2, nzmax: 3 nnz: 3\n    0 0 : 4\n    1 0 : \
         -1\n    1 1 : 2.5e-1\n1 -2\n0.7\n"
    );
    let p = parse_local(&triplet).unwrap();
    assert_eq!(
        (
            at(&p.w, 0, 0),
            at(&p.w, 1, 0),
            at(&p.w, 0, 1),
            at(&p.w, 1, 1)
        ),
        (4.0, -1.0, 0.0, 0.25)
    );
    let csr = format!(
        "2\n1\n2\n2\n2\n3\n{banner}\ncsr: 2-by-2, nzmax: 3 nnz: 3, 1-norm: 5\n    row 0 : \
         locations 0 to 0\n      0 : 4\n    row 1 : locations 1 to 2\n      0 : -1\n      1 : \
         0.25\n1 -2\n0.7\n"
    );
    assert_eq!(parse_local(&csr).unwrap(), p);
    // An empty column reads `locations a to a-1`.
    let csc = format!(
        "2\n1\n2\n2\n2\n2\n{banner}\n2-by-2, nzmax: 1 nnz: 1, 1-norm: 4\n    col 0 : locations \
         0 to -1\n    col 1 : locations 0 to 0\n      1 : 4\n1 -2\n0.7\n"
    );
    assert_eq!(at(&parse_local(&csc).unwrap().w, 1, 1), 4.0);
}

/// `text` with the `k`-th occurrence of `from` replaced.
fn replace_nth(text: &str, from: &str, to: &str, k: usize) -> String {
    let (at, _) = text.match_indices(from).nth(k).expect("occurrence");
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

#[test]
fn malformed_files_are_typed_errors() {
    let slider = text(SLIDER_CRANK);
    let granular = text(GRANULAR);
    let global = text(GRANULAR_GLOBAL);
    let mu = "1.000000000000000020816682e-02";
    let cases: Vec<(&str, Result<(), SiconosError>)> = vec![
        (
            "truncated dense",
            parse_local(&slider[..slider.len() / 2]).map(drop),
        ),
        (
            "truncated csc",
            parse_local(&granular[..granular.len() / 2]).map(drop),
        ),
        (
            "truncated triplet",
            parse_global(&global[..global.len() / 2]).map(drop),
        ),
        ("empty", parse_local("").map(drop)),
        (
            "nc 3 for 2",
            parse_local(&slider.replacen("2\n2\n", "2\n3\n", 1)).map(drop),
        ),
        (
            "nc 1 for 2",
            parse_local(&slider.replacen("2\n2\n", "2\n1\n", 1)).map(drop),
        ),
        (
            "dense sizes",
            parse_local(&slider.replacen("4\t4", "4\t3", 1)).map(drop),
        ),
        (
            "nnz",
            parse_local(&granular.replacen("nnz: 3822", "nnz: 3823", 1)).map(drop),
        ),
        (
            "locations",
            parse_local(&granular.replacen("locations 2 to 4", "locations 3 to 4", 1)).map(drop),
        ),
        (
            "triplet count",
            parse_global(&global.replacen("nnz: 900", "nnz: 901", 1)).map(drop),
        ),
        (
            "nan in W",
            parse_local(&slider.replacen("9.365610022253570150496671e+02", "nan", 1)).map(drop),
        ),
        (
            "-nan in W",
            parse_local(&granular.replacen("856.713", "-nan", 1)).map(drop),
        ),
        (
            "inf in q",
            parse_local(&slider.replacen("-1.179087309965789476251530e+00", "inf", 1)).map(drop),
        ),
        (
            "negative mu",
            parse_local(&replace_nth(&slider, mu, "-0.01", 1)).map(drop),
        ),
        (
            "nan mu",
            parse_local(&replace_nth(&slider, mu, "NaN", 0)).map(drop),
        ),
        (
            "dimension 4",
            parse_local(&slider.replacen("2\n", "4\n", 1)).map(drop),
        ),
        (
            "storage 7",
            parse_local(&slider.replacen("2\n2\n0\n", "2\n2\n7\n", 1)).map(drop),
        ),
        (
            "huge size",
            parse_local(&granular.replacen("1334\n1334\n", "1334\n99999999999999\n", 1)).map(drop),
        ),
        (
            "a word for a number",
            parse_local(&slider.replacen("4\t4", "4\tfour", 1)).map(drop),
        ),
        (
            "block numbering",
            parse_local(&SPARSE_BLOCK.replacen("1\n5.0", "2\n5.0", 1)).map(drop),
        ),
        (
            "block sizes",
            parse_local(&SPARSE_BLOCK.replacen("2\t4\t\n2\t4", "2\t5\t\n2\t4", 1)).map(drop),
        ),
    ];
    for (what, result) in cases {
        let e = result.expect_err(what);
        let text = e.to_string();
        println!("{what}: {text}");
        assert!(!text.contains('\n'), "{what}: {text}");
        let kind_ok = match what {
            w if w.starts_with("truncated")
                || w == "empty"
                || w == "nc 3 for 2"
                || w == "huge size" =>
            {
                matches!(e, SiconosError::Truncated { .. })
            }
            "nc 1 for 2" => matches!(e, SiconosError::Trailing { .. }),
            w if w.contains("nan in") || w.contains("inf in") => {
                matches!(e, SiconosError::NotFinite { .. })
            }
            "negative mu" => {
                e == ProblemError::Friction {
                    contact: 1,
                    value: -0.01,
                }
                .into()
            }
            "nan mu" => matches!(e, SiconosError::NotFinite { .. }),
            "dimension 4" => e == ProblemError::Dimension(4).into(),
            "storage 7" => matches!(e, SiconosError::Unsupported { .. }),
            "a word for a number" => matches!(e, SiconosError::Syntax { line: 6, .. }),
            // The 901st triplet runs into H's header.
            "triplet count" => matches!(e, SiconosError::Syntax { .. }),
            _ => matches!(e, SiconosError::Count { .. }),
        };
        assert!(kind_ok, "{what}: {e:?}");
    }
}

/// What a mutated token becomes: counts, sizes, numbers and words.
const REPLACEMENTS: [&str; 12] = [
    "0",
    "1",
    "2",
    "3",
    "-1",
    "7",
    "99999999999999999999",
    "1e308",
    "-0.5",
    "nan",
    "x",
    ":",
];

/// `text` with one token deleted, repeated or replaced.
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let spans: Vec<(usize, usize)> = text
        .split_inclusive(char::is_whitespace)
        .scan(0, |at, piece| {
            let start = *at;
            *at += piece.len();
            Some((start, start + piece.trim_end().len()))
        })
        .filter(|(a, b)| a < b)
        .collect();
    let (a, b) = spans[rng.gen_range(0..spans.len())];
    let token = &text[a..b];
    let new = match rng.gen_range(0..3) {
        0 => String::new(),
        1 => format!("{token} {token}"),
        _ => REPLACEMENTS[rng.gen_range(0..REPLACEMENTS.len())].to_owned(),
    };
    format!("{}{new}{}", &text[..a], &text[b..])
}

/// Seeded mutants of the files above (a token deleted, repeated, or
/// replaced by another count or number) read to a problem or to a typed
/// error, never a panic; a global one that reads reformulates or errs.
#[test]
fn mutants_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_260_101);
    for (text, global) in [
        (text(SLIDER_CRANK), false),
        (text(GRANULAR), false),
        (text(GRANULAR_GLOBAL), true),
        (SPARSE_BLOCK.to_owned(), false),
        (SPARSE_BLOCK_BY_SICONOS.to_owned(), false),
        (TWO_BODIES.to_owned(), true),
    ] {
        // Half of the mutants are of the first 40 lines, where the
        // headers and the matrices' structure are.
        for k in 0..300 {
            let source = if k % 2 == 0 {
                text.lines().take(40).collect::<Vec<_>>().join("\n")
            } else {
                text.clone()
            };
            let mutant = mutate(&source, &mut rng);
            if global {
                if let Ok(p) = parse_global(&mutant) {
                    let _ = p.to_local();
                }
            } else {
                let _ = parse_local(&mutant);
            }
        }
    }
}
