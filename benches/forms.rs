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
use zwang::instant::{parse_instant, Instant};
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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .sample_size(15);
    targets = forms_on_the_suite
}
criterion_main!(benches);
