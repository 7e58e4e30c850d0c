//! Time per form on the stored suite: every variational form and every QP
//! backend on each instant of `tests/data` (and `tests/data/friction` for
//! the Coulomb forms), so that each form's ratio to the QP's fastest
//! backend can be read off one report. Run with `cargo bench --bench forms`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::path::Path;
use std::time::Duration;
use zwang::coulomb::{check, fixed_point, frozen_qp, variational, FixedPointOptions};
use zwang::forms::{form_by_name, FORM_NAMES};
use zwang::instant::{
    matrix_from_triplets, parse_instant, Instant, RowRef, RowSet, SlidingContact,
};
use zwang::qp::{backend_by_name, AutoBackend, BACKEND_NAMES};

/// The instants of a folder (skipping the `*.expected.json` sidecars).
fn suite(dir: &str) -> Vec<(String, Instant)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json") && !name.ends_with(".expected.json")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let parsed = parse_instant(&text).ok()?;
            let stem = p.file_stem()?.to_str()?.to_string();
            Some((stem, parsed.instant))
        })
        .collect()
}

fn forms_on_the_suite(c: &mut Criterion) {
    let ideal = suite("tests/data");
    let friction = suite("tests/data/friction");
    for (name, instant) in ideal.iter().chain(&friction) {
        let mut group = c.benchmark_group(format!("suite/{name}"));
        for backend in BACKEND_NAMES {
            let mut b = backend_by_name(backend).expect("known backend");
            if b.applies(instant) {
                group.bench_function(BenchmarkId::new("qp", backend), |bench| {
                    bench.iter(|| b.solve(instant))
                });
            }
        }
        for form in FORM_NAMES {
            let mut f = form_by_name(form).expect("known form");
            if f.not_applicable_reason(instant).is_none() {
                group.bench_function(BenchmarkId::new("form", form), |bench| {
                    bench.iter(|| f.solve(instant))
                });
            }
        }
        // The Coulomb forms, on instants with sliding contacts (the
        // fixed point only where it converges, so that it measures a
        // solve rather than the iteration limit).
        if !instant.sliding().is_empty() {
            group.bench_function("checker", |bench| bench.iter(|| check(instant)));
            group.bench_function(BenchmarkId::new("coulomb", "variational"), |bench| {
                bench.iter(|| variational(instant))
            });
            let mut qp = AutoBackend::new();
            group.bench_function(BenchmarkId::new("coulomb", "frozen_qp"), |bench| {
                bench.iter(|| frozen_qp(instant, &mut qp))
            });
            let options = FixedPointOptions::default();
            if fixed_point(instant, &mut qp, options).converged {
                group.bench_function(BenchmarkId::new("coulomb", "fixed_point"), |bench| {
                    bench.iter(|| fixed_point(instant, &mut qp, options))
                });
            }
        }
        group.finish();
    }
}

/// `k` boxes `(x, y, th)` each sliding on one corner (`C != 0`: not
/// equivalent), all independent: the checker and the contact problem must
/// cost `O(k)`.
fn sliding_boxes(k: usize) -> Instant {
    let n = 3 * k;
    let (mut mass, mut rows, mut force) = (Vec::new(), Vec::new(), vec![0.0; n]);
    let mut contacts = Vec::new();
    for i in 0..k {
        let (x, y, t) = (3 * i, 3 * i + 1, 3 * i + 2);
        mass.extend([(x, x, 1.0), (y, y, 1.0), (t, t, 0.4)]);
        rows.extend([(i, y, 1.0), (i, t, -0.5)]);
        force[y] = -9.81;
        let mut tangent = vec![0.0; n];
        tangent[x] = 1.0;
        tangent[t] = 1.0;
        contacts.push(SlidingContact {
            normal: RowRef {
                set: RowSet::Inequalities,
                row: i,
            },
            tangent,
            mu: 0.3,
            slip: 1.0,
        });
    }
    let mut b = Instant::builder(matrix_from_triplets("mass", (n, n), mass).unwrap(), force)
        .inequalities(
            matrix_from_triplets("inequalities.A", (k, n), rows).unwrap(),
            vec![0.0; k],
        );
    for c in contacts {
        b = b.sliding(c);
    }
    b.build().unwrap()
}

/// One plate `(x, y, th)` sliding on `k` contacts spread under it: one
/// coupled group, beyond the enumeration from 13 contacts (Lemke).
fn plate_on_contacts(k: usize) -> Instant {
    let rows: Vec<(usize, usize, f64)> = (0..k)
        .flat_map(|i| [(i, 1, 1.0), (i, 2, -1.0 + 2.0 * i as f64 / (k - 1) as f64)])
        .collect();
    let mut b = Instant::builder(
        matrix_from_triplets("mass", (3, 3), [(0, 0, 2.0), (1, 1, 2.0), (2, 2, 1.0)]).unwrap(),
        vec![10.0, -19.62, 0.5],
    )
    .inequalities(
        matrix_from_triplets("inequalities.A", (k, 3), rows).unwrap(),
        vec![0.0; k],
    );
    for row in 0..k {
        b = b.sliding(SlidingContact {
            normal: RowRef {
                set: RowSet::Inequalities,
                row,
            },
            tangent: vec![1.0, 0.0, 0.1],
            mu: 0.4,
            slip: 1.0,
        });
    }
    b.build().unwrap()
}

/// The Coulomb contact problem and the checker at scale, with Clarabel on
/// the same instant (friction ignored) as the yardstick.
fn contacts_at_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("coulomb_scale");
    for (name, instant) in [
        ("boxes_100", sliding_boxes(100)),
        ("boxes_800", sliding_boxes(800)),
        ("plate_8", plate_on_contacts(8)),
        ("plate_32", plate_on_contacts(32)),
    ] {
        group.bench_function(BenchmarkId::new("checker", name), |b| {
            b.iter(|| check(&instant))
        });
        group.bench_function(BenchmarkId::new("variational", name), |b| {
            b.iter(|| variational(&instant))
        });
        let mut clarabel = backend_by_name("clarabel").expect("known backend");
        group.bench_function(BenchmarkId::new("clarabel", name), |b| {
            b.iter(|| clarabel.solve(&instant))
        });
    }
    group.finish();
}

criterion_group! {
    name = scale;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10);
    targets = contacts_at_scale
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .sample_size(15);
    targets = forms_on_the_suite
}
criterion_main!(benches, scale);
