//! Each backend against Clarabel on the same instants, by size.
//!
//! Scenes are planar body chains (3 coordinates per body, block-diagonal
//! `M`) with pin joints (2 equality rows each) and, for the contact group,
//! closed contacts (1 inequality row each). Run with
//! `cargo bench --bench solvers`; the ratios are read off the report.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;
use zwang::instant::generate::{scene, SceneSpec};
use zwang::qp::{ActiveSetBackend, Backend, ClarabelBackend, DirectBackend};

fn chain(bodies: usize, joints: usize, contacts: usize, coupled_mass: bool) -> SceneSpec {
    SceneSpec {
        bodies,
        joints,
        ground_pin: true,
        contacts,
        active_fraction: 0.7,
        full_blocks: true,
        coupled_mass,
        seed: 7,
    }
}

/// Equality-only instants: direct (Schur on block-diagonal M, symbolic
/// reused) against Clarabel; n = 3, 9, 99, 999, 9999 with 2, 6, 66, 666
/// and 2000 rows.
fn equality_only(c: &mut Criterion) {
    let mut group = c.benchmark_group("equality_only");
    for (bodies, joints) in [(1, 0), (3, 2), (33, 32), (333, 332), (3333, 999)] {
        let sc = scene(&chain(bodies, joints, 0, false));
        let n = sc.instant.dim();
        let mut direct = DirectBackend::new();
        assert!(direct.solve(&sc.instant).is_solved());
        group.bench_with_input(BenchmarkId::new("direct", n), &sc.instant, |b, inst| {
            b.iter(|| direct.solve(inst))
        });
        let mut clarabel = ClarabelBackend::new();
        group.bench_with_input(BenchmarkId::new("clarabel", n), &sc.instant, |b, inst| {
            b.iter(|| clarabel.solve(inst))
        });
    }
    group.finish();
}

/// A chain in generalized coordinates (banded, not block-diagonal M): the
/// quasi-definite KKT path.
fn coupled_mass(c: &mut Criterion) {
    let mut group = c.benchmark_group("coupled_mass");
    for (bodies, joints) in [(33, 32), (333, 332)] {
        let sc = scene(&chain(bodies, joints, 0, true));
        let n = sc.instant.dim();
        let mut direct = DirectBackend::new();
        assert!(direct.solve(&sc.instant).is_solved());
        group.bench_with_input(BenchmarkId::new("direct", n), &sc.instant, |b, inst| {
            b.iter(|| direct.solve(inst))
        });
        let mut clarabel = ClarabelBackend::new();
        group.bench_with_input(BenchmarkId::new("clarabel", n), &sc.instant, |b, inst| {
            b.iter(|| clarabel.solve(inst))
        });
    }
    group.finish();
}

/// Instants with contacts: the active set warm-started from the previous
/// answer (the time-stepping case), cold, and Clarabel. n = 999 with 200
/// closed contacts is the bar.
fn contacts(c: &mut Criterion) {
    let mut group = c.benchmark_group("contacts");
    for (bodies, joints, contacts) in [(3, 2, 2), (33, 20, 20), (333, 200, 200), (3333, 999, 2000)]
    {
        let sc = scene(&chain(bodies, joints, contacts, false));
        let n = sc.instant.dim();
        let id = format!("n{n}_c{contacts}");
        let mut warm = ActiveSetBackend::new();
        assert!(warm.solve(&sc.instant).is_solved());
        group.bench_with_input(
            BenchmarkId::new("active_set_warm", &id),
            &sc.instant,
            |b, inst| b.iter(|| warm.solve(inst)),
        );
        group.bench_with_input(
            BenchmarkId::new("active_set_cold", &id),
            &sc.instant,
            |b, inst| b.iter(|| ActiveSetBackend::new().solve(inst)),
        );
        let mut clarabel = ClarabelBackend::new();
        group.bench_with_input(BenchmarkId::new("clarabel", &id), &sc.instant, |b, inst| {
            b.iter(|| clarabel.solve(inst))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = equality_only, coupled_mass, contacts
}
criterion_main!(benches);
