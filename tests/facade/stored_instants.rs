//! Every stored instant (`tests/data/*.json` and `examples/*.json`) through
//! every backend: each must agree with the Clarabel reference to 1e-8
//! relative, and with the answer derived by hand where one is stored.
//!
//! The hand-derived answer of `tests/data/NAME.json` is the sidecar
//! `tests/data/NAME.expected.json` (its `note` says how it was derived):
//! `status`, and for a solved instant `acceleration`, `compulsion`, and
//! either `multipliers` or, where redundant rows make them non-unique,
//! `constraint_force` (`A_eq^T l_eq + A_in^T l_in`). In the second case the
//! backends are compared on the constraint force only.

use serde_json::Value;
use std::path::{Path, PathBuf};
use zwang_instant::{parse_instant, Instant};
use zwang_qp::{backend_by_name, Solution, Status, BACKEND_NAMES};

/// Agreement between backends, and with the hand-derived answers.
const TOL: f64 = 1e-8;

/// The instant files of a folder of the repository, sorted.
fn instant_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".json") && !name.ends_with(".expected.json")
        })
        .collect();
    files.sort();
    files
}

fn sidecar(path: &Path) -> Option<Value> {
    let path = path.with_extension("expected.json");
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_json::from_str(&text).expect("a sidecar is valid JSON"))
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// `|x - y|_inf <= TOL * scale`, with a message naming what differs.
fn assert_close(what: &str, x: &[f64], y: &[f64], scale: f64) {
    assert_eq!(x.len(), y.len(), "{what}: lengths differ");
    let diff = x
        .iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        diff <= TOL * scale,
        "{what}: {x:?} vs {y:?} differ by {diff:.3e} (scale {scale:.3e})"
    );
}

/// The generalized constraint force `A_eq^T l_eq + A_in^T l_in`.
fn constraint_force(instant: &Instant, s: &Solution) -> Vec<f64> {
    let mut f = vec![0.0; instant.dim()];
    instant
        .equalities()
        .add_transpose_mul(&s.multipliers_eq, &mut f);
    instant
        .inequalities()
        .add_transpose_mul(&s.multipliers_in, &mut f);
    f
}

/// Unit-free scales of one instant, so that the same tolerance serves a
/// pendulum in SI units and in grams and millimetres.
struct Scales {
    acceleration: f64,
    force: f64,
    multiplier: f64,
    compulsion: f64,
}

impl Scales {
    /// From the instant and its reference answer: the free acceleration
    /// `M^-1 Q`, the forces `Q` and `M a`, the multipliers and the force
    /// over the largest row entry (for multipliers that are zero).
    fn of(instant: &Instant, reference: &Solution) -> Scales {
        let mut free = instant.force().to_vec();
        instant.mass_factor_or_nan().solve_in_place(&mut free);
        let mut ma = vec![0.0; instant.dim()];
        instant.mass_mul_into(&reference.acceleration, &mut ma);
        let force = inf_norm(instant.force())
            .max(inf_norm(&ma))
            .max(inf_norm(&constraint_force(instant, reference)))
            .max(f64::MIN_POSITIVE);
        let row_entry = [instant.equalities(), instant.inequalities()]
            .iter()
            .flat_map(|rows| rows.matrix().data().iter())
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let multipliers: Vec<f64> = reference
            .multipliers_eq
            .iter()
            .chain(&reference.multipliers_in)
            .copied()
            .collect();
        let free_compulsion = 0.5
            * instant
                .force()
                .iter()
                .zip(&free)
                .map(|(q, a)| q * a)
                .sum::<f64>();
        Scales {
            acceleration: inf_norm(&reference.acceleration)
                .max(inf_norm(&free))
                .max(f64::MIN_POSITIVE),
            force,
            multiplier: inf_norm(&multipliers).max(force / row_entry.max(f64::MIN_POSITIVE)),
            compulsion: reference
                .compulsion
                .max(free_compulsion)
                .max(f64::MIN_POSITIVE),
        }
    }
}

/// `candidate` agrees with `reference`: acceleration, constraint force,
/// multipliers (unless redundant rows make them non-unique), compulsion.
fn assert_agree(
    what: &str,
    instant: &Instant,
    reference: &Solution,
    candidate: &Solution,
    unique_multipliers: bool,
) {
    let scales = Scales::of(instant, reference);
    assert_close(
        &format!("{what}: acceleration"),
        &candidate.acceleration,
        &reference.acceleration,
        scales.acceleration,
    );
    assert_close(
        &format!("{what}: constraint force"),
        &constraint_force(instant, candidate),
        &constraint_force(instant, reference),
        scales.force,
    );
    if unique_multipliers {
        assert_close(
            &format!("{what}: equality multipliers"),
            &candidate.multipliers_eq,
            &reference.multipliers_eq,
            scales.multiplier,
        );
        assert_close(
            &format!("{what}: inequality multipliers"),
            &candidate.multipliers_in,
            &reference.multipliers_in,
            scales.multiplier,
        );
    }
    assert_close(
        &format!("{what}: compulsion"),
        &[candidate.compulsion],
        &[reference.compulsion],
        scales.compulsion,
    );
    // Complementarity is left out: it is divided by max |l_in|, which is
    // round-off when every contact is open (Clarabel's 1e-11 multipliers on
    // box_lifted give 1.0); the multipliers are compared above instead.
    let r = &candidate.residuals;
    assert!(
        r.stationarity.max(r.equalities).max(r.inequalities) <= TOL,
        "{what}: residuals {r:?}"
    );
}

/// The stored answer as a solution, so that it goes through the same
/// comparison as the backends. Without `multipliers`, the multipliers of
/// `fallback` stand in (only the constraint force is compared then), so
/// they must give the stored constraint force.
fn expected_solution(instant: &Instant, expected: &Value, fallback: &Solution) -> Solution {
    let acceleration = numbers(&expected["acceleration"]);
    let (l_eq, l_in) = match expected.get("multipliers") {
        Some(m) => (numbers(&m["equalities"]), numbers(&m["inequalities"])),
        None => (
            fallback.multipliers_eq.clone(),
            fallback.multipliers_in.clone(),
        ),
    };
    let mut s = Solution::assemble(
        instant,
        Status::Solved,
        "expected",
        0,
        acceleration,
        l_eq,
        l_in,
    );
    if let Some(force) = expected.get("constraint_force") {
        let scale = Scales::of(instant, &s).force;
        assert_close(
            "stored constraint force",
            &constraint_force(instant, fallback),
            &numbers(force),
            scale,
        );
    }
    let compulsion = expected["compulsion"].as_f64().expect("a compulsion");
    assert_close(
        "stored compulsion",
        &[s.compulsion],
        &[compulsion],
        Scales::of(instant, &s).compulsion,
    );
    s.compulsion = compulsion;
    s
}

fn check_file(path: &Path) {
    let name = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path);
    let name = name.display();
    let text = std::fs::read_to_string(path).unwrap();
    let parsed = parse_instant(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        parsed.warnings.is_empty(),
        "{name}: stored instants use only the keys of the format: {:?}",
        parsed.warnings
    );
    let instant = &parsed.instant;
    let expected = sidecar(path);
    let expected_status = expected
        .as_ref()
        .map_or("solved", |e| e["status"].as_str().expect("a status"));
    let unique_multipliers = expected
        .as_ref()
        .is_none_or(|e| e.get("constraint_force").is_none());

    let reference = backend_by_name("clarabel").unwrap().solve(instant);
    assert_eq!(
        reference.status.as_str(),
        expected_status,
        "{name}: clarabel"
    );
    if let Some(e) = expected.as_ref().filter(|_| reference.is_solved()) {
        let hand = expected_solution(instant, e, &reference);
        assert_agree(
            &format!("{name}: clarabel vs by hand"),
            instant,
            &hand,
            &reference,
            unique_multipliers,
        );
    }
    let minimum_norm = expected
        .as_ref()
        .and_then(|e| e.get("minimum_norm_multipliers"))
        .map(|m| (numbers(&m["as_written"]), numbers(&m["equilibrated"])));
    let mut ran = 0;
    for backend_name in BACKEND_NAMES {
        let mut backend = backend_by_name(backend_name).unwrap();
        if !backend.applies(instant) {
            continue;
        }
        ran += 1;
        let solution = backend.solve(instant);
        let what = format!("{name}: {backend_name} vs clarabel");
        assert_eq!(solution.status.as_str(), expected_status, "{what}");
        if solution.is_solved() {
            assert_agree(&what, instant, &reference, &solution, unique_multipliers);
        }
        // Redundant rows: the fast paths give the minimum-norm multipliers
        // of the equilibrated rows (to their refinement's accuracy).
        if let (Some((_, equilibrated)), true) = (&minimum_norm, backend_name != "clarabel") {
            close(
                &format!("{what}: equilibrated minimum norm"),
                &solution.multipliers_eq,
                equilibrated,
                1e-6,
            );
        }
    }
    // Every backend that applies ran: all four on equality rows, all but
    // `direct` with contacts.
    let want = if instant.inequalities().is_empty() {
        4
    } else {
        3
    };
    assert_eq!(ran, want, "{name}: backends that ran");
    // The variational forms give the minimum-norm multipliers as written.
    if let Some((as_written, _)) = &minimum_norm {
        for form in ["multiplier", "udwadia_kalaba"] {
            let s = zwang_forms::form_by_name(form).unwrap().solve(instant);
            close(
                &format!("{name}: {form} minimum norm"),
                &s.multipliers_eq,
                as_written,
                1e-12,
            );
        }
    }
}

#[test]
fn stored_instants_agree_across_backends_and_with_the_hand_answers() {
    let files = instant_files("tests/data");
    assert!(
        files.len() >= 10,
        "tests/data holds {} instants",
        files.len()
    );
    for path in &files {
        assert!(
            sidecar(path).is_some(),
            "{}: every stored instant has its hand-derived answer",
            path.display()
        );
        check_file(path);
    }
}

#[test]
fn examples_agree_across_backends() {
    let files = instant_files("examples");
    assert!(!files.is_empty());
    for path in &files {
        check_file(path);
    }
}

/// `|got - want|_inf <= tol max(1, |want|_inf)`.
fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let diff = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(diff <= tol * scale, "{what}: {got:?} vs {want:?}");
}
