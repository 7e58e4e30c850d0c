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

/// Direct against Clarabel on equality-only chains of `(bodies, joints)`.
fn direct_vs_clarabel(c: &mut Criterion, group: &str, sizes: &[(usize, usize)], coupled: bool) {
    let mut group = c.benchmark_group(group);
    for &(bodies, joints) in sizes {
        let sc = scene(&chain(bodies, joints, 0, coupled));
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

/// Equality-only instants with block-diagonal M (Schur complement, symbolic
/// reused): n = 3, 9, 99, 999, 9999 with 2, 6, 66, 666 and 2000 rows.
fn equality_only(c: &mut Criterion) {
    let sizes = [(1, 0), (3, 2), (33, 32), (333, 332), (3333, 999)];
    direct_vs_clarabel(c, "equality_only", &sizes, false);
}

/// A chain in generalized coordinates (banded, not block-diagonal M): the
/// quasi-definite KKT path.
fn coupled_mass(c: &mut Criterion) {
    direct_vs_clarabel(c, "coupled_mass", &[(33, 32), (333, 332)], true);
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
