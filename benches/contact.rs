//! One instant of the Coulomb contact problem (`zwang::coulomb::variational_with`)
//! on a plate on `k = 6, 8, 10, 12` rough points, with the active-set
//! iteration (the default) and without it (enumeration of the mode
//! combinations, or Lemke's method beyond `MAX_ENUMERATED_MODES` of them):
//!
//! - `contact/sliding_plate/{active_set,enumeration_lemke}/k`: the plate
//!   of `crates/zwang-coulomb/tests/coulomb/contacts.rs` (`sliding_plate`), pushed
//!   and sliding on `k` friction entries (`2^k` combinations: enumerated
//!   up to `k = 12`);
//! - `contact/resting_plate/{active_set,enumeration_lemke}/k`: the same
//!   plate at rest, not pushed, its `k` contacts sticking (a tangent row
//!   each: `2^k 3^k` combinations, beyond enumeration from `k = 6`, so
//!   Lemke's method without the active set; with it, its answer stands
//!   as found).
//!
//! Before timing, each instant is solved both ways and the accelerations
//! must agree to `1e-9`, so no timing is of a wrong answer; the answers
//! and the method that solved each are printed. Run with
//! `cargo bench --bench contact` (a filter such as `resting` picks a group).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use zwang::coulomb::{variational_with, ContactSettings, Variational};
use zwang::instant::{
    matrix_from_triplets, Instant, RowRef, RowSet, SlidingContact, StickingContact,
};

const G: f64 = 9.81;
/// The plate's mass (its moment of inertia is 1), the push of the sliding
/// plate, the friction coefficient of every point, and the depth of the
/// points below the centre (friction turns the plate: the pressure is
/// not uniform).
const M: f64 = 2.0;
const PUSH: f64 = 10.0;
const MU: f64 = 0.4;
const DEPTH: f64 = 0.1;

/// The plate (`q = (x, y, th)`, `m = 2`, `J = 1`) on `k` points
/// `x_i = -0.2 (k - 1) / 2 + 0.2 i` at `DEPTH` below its centre (rows
/// `y'' + x_i th'' >= 0`, tangents `(1, 0, DEPTH)`), each with `mu = 0.4`:
/// pushed by `PUSH` and sliding (friction entries, slip `+1`), or not
/// pushed and at rest (sticking entries, the tangents as equality rows).
fn plate(k: usize, sliding: bool) -> Instant {
    let mass = matrix_from_triplets("mass", (3, 3), [(0, 0, M), (1, 1, M), (2, 2, 1.0)])
        .expect("the mass matrix");
    let normals = matrix_from_triplets(
        "inequalities.A",
        (k, 3),
        (0..k).flat_map(|i| [(i, 1, 1.0), (i, 2, 0.2 * (i as f64 - (k - 1) as f64 / 2.0))]),
    )
    .expect("the normal rows");
    let push = if sliding { PUSH } else { 0.0 };
    let mut b = Instant::builder(mass, vec![push, -M * G, 0.0]).inequalities(normals, vec![0.0; k]);
    if !sliding {
        let tangents = matrix_from_triplets(
            "equalities.A",
            (k, 3),
            (0..k).flat_map(|i| [(i, 0, 1.0), (i, 2, DEPTH)]),
        )
        .expect("the tangent rows");
        b = b.equalities(tangents, vec![0.0; k]);
    }
    for row in 0..k {
        let normal = RowRef {
            set: RowSet::Inequalities,
            row,
        };
        b = if sliding {
            b.sliding(SlidingContact {
                normal,
                tangent: vec![1.0, 0.0, DEPTH],
                mu: MU,
                slip: 1.0,
            })
        } else {
            b.sticking(StickingContact {
                normal,
                tangent_row: row,
                mu: MU,
            })
        };
    }
    b.build().expect("a valid plate")
}

/// The two methods: the active set first, or enumeration and Lemke alone.
const METHODS: [(&str, bool); 2] = [("active_set", true), ("enumeration_lemke", false)];

fn settings(active_set: bool) -> ContactSettings {
    ContactSettings {
        active_set,
        ..ContactSettings::default()
    }
}

/// Solves `instant` both ways, checks that each took its path and that
/// the accelerations agree to `1e-9`.
fn same_answer(name: &str, instant: &Instant) {
    let [fast, slow]: [Variational; 2] =
        METHODS.map(|(_, active_set)| variational_with(instant, &settings(active_set)));
    for (v, (method, active_set)) in [&fast, &slow].into_iter().zip(METHODS) {
        assert!(
            v.solution.is_solved(),
            "{name} {method}: {:?}",
            v.solution.status
        );
        assert_eq!(
            v.paths.active_set > 0,
            active_set,
            "{name} {method}: {:?}",
            v.paths
        );
        println!(
            "contact/{name}/{method}: answers {}, {:?}",
            v.answers.as_str(),
            v.paths
        );
    }
    for (x, y) in fast
        .solution
        .acceleration
        .iter()
        .zip(&slow.solution.acceleration)
    {
        assert!((x - y).abs() <= 1e-9, "{name}: {x} vs {y}");
    }
}

fn contact(c: &mut Criterion) {
    for (name, sliding) in [("sliding_plate", true), ("resting_plate", false)] {
        let mut group = c.benchmark_group(format!("contact/{name}"));
        for k in [6usize, 8, 10, 12] {
            let instant = plate(k, sliding);
            same_answer(&format!("{name}/{k}"), &instant);
            for (method, active_set) in METHODS {
                let s = settings(active_set);
                group.bench_with_input(BenchmarkId::new(method, k), &instant, |b, inst| {
                    b.iter(|| variational_with(inst, &s))
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, contact);
criterion_main!(benches);
