//! Each backend against Clarabel on the same instants, by size.
//!
//! The fast backends are timed warm (`solve_into` on a backend that solved
//! the same structure before: the time-stepping case), Clarabel on the same
//! instant in the same run, so the ratios can be read off the report. Run
//! with `cargo bench --bench solvers` (a filter such as `chain` picks a
//! group). The groups and the bars they check:
//!
//! - `tiny`: `n <= 10` with equality rows (direct/auto under 0.3 us, 30x);
//! - `chain`: planar chains of rigid links in maximal coordinates, up to
//!   1,000 and 3,333 links (30x);
//! - `plate`: a plate on 800 particles, 1,600 contact rows (10x);
//! - `floor`: 1,000 particles on a floor, half pulled off (30x);
//! - `update`: the value setters on a 1,000-variable instant against one
//!   warm solve (under 10%);
//! - `equality_only`, `coupled_mass`, `contacts`: the earlier sweeps.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;
use zwang::instant::generate::{chain, particles_on_floor, plate_on_particles, scene, SceneSpec};
use zwang::instant::{Instant, RowSet};
use zwang::qp::{ActiveSetBackend, AutoBackend, Backend, ClarabelBackend, DirectBackend, Solution};

fn spec(bodies: usize, joints: usize, contacts: usize, coupled_mass: bool) -> SceneSpec {
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

/// Times `backend` warm on `instant` under `name`/`id`.
fn warm(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    id: &str,
    mut backend: Box<dyn Backend>,
    instant: &Instant,
) {
    let mut out = Solution::empty();
    backend.solve_into(instant, &mut out);
    assert!(out.is_solved(), "{name} {id}: {:?}", out.status);
    group.bench_with_input(BenchmarkId::new(name, id), instant, |b, inst| {
        b.iter(|| backend.solve_into(inst, &mut out))
    });
}

/// Times `backend` warm on `instant` with its row and mass values changed
/// before every solve (alternating between the values and the values
/// scaled by `1 + 1e-9`: the same motion, but every numeric factorization
/// is redone, as in a step where the bodies moved). The setters' cost is
/// included.
fn moving(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    id: &str,
    mut backend: Box<dyn Backend>,
    instant: &Instant,
) {
    let mut inst = instant.clone();
    let mut out = Solution::empty();
    let rows = [inst.equalities().matrix().data().to_vec(), {
        let mut v = inst.equalities().matrix().data().to_vec();
        v.iter_mut().for_each(|x| *x *= 1.0 + 1e-9);
        v
    }];
    let rhs = [inst.equalities().rhs().to_vec(), {
        let mut v = inst.equalities().rhs().to_vec();
        v.iter_mut().for_each(|x| *x *= 1.0 + 1e-9);
        v
    }];
    let mass = [inst.mass().data().to_vec(), {
        let mut v = inst.mass().data().to_vec();
        v.iter_mut().for_each(|x| *x *= 1.0 + 1e-9);
        v
    }];
    backend.solve_into(&inst, &mut out);
    assert!(out.is_solved(), "{name} {id}: {:?}", out.status);
    let mut k = 0;
    group.bench_function(BenchmarkId::new(name, id), |b| {
        b.iter(|| {
            k ^= 1;
            inst.set_row_values(RowSet::Equalities, &rows[k]).unwrap();
            inst.set_rhs(RowSet::Equalities, &rhs[k]).unwrap();
            inst.set_mass_values(&mass[k]).unwrap();
            backend.solve_into(&inst, &mut out)
        })
    });
}

/// Direct (and optionally auto) against Clarabel.
fn against_clarabel(
    c: &mut Criterion,
    group: &str,
    instants: &[(String, Instant)],
    with_auto: bool,
) {
    let mut group = c.benchmark_group(group);
    for (id, instant) in instants {
        warm(
            &mut group,
            "direct",
            id,
            Box::new(DirectBackend::new()),
            instant,
        );
        moving(
            &mut group,
            "direct_moving",
            id,
            Box::new(DirectBackend::new()),
            instant,
        );
        if with_auto {
            warm(
                &mut group,
                "auto",
                id,
                Box::new(AutoBackend::new()),
                instant,
            );
        }
        warm(
            &mut group,
            "clarabel",
            id,
            Box::new(ClarabelBackend::new()),
            instant,
        );
    }
    group.finish();
}

/// `n <= 10` with equality rows: one body pinned (n = 3, 2 rows), three
/// linked bodies (n = 9, 6 rows).
fn tiny(c: &mut Criterion) {
    let instants: Vec<_> = [1, 3]
        .iter()
        .map(|&links| {
            let inst = chain(links, 7).instant;
            (
                format!("n{}_m{}", inst.dim(), inst.equalities().len()),
                inst,
            )
        })
        .collect();
    against_clarabel(c, "tiny", &instants, true);
}

/// Planar chains in maximal coordinates: 3 variables and 2 pin rows per
/// link; the Schur complement is block tridiagonal.
fn chains(c: &mut Criterion) {
    let instants: Vec<_> = [10, 100, 1000, 3333]
        .iter()
        .map(|&links| (format!("links{links}"), chain(links, 7).instant))
        .collect();
    against_clarabel(c, "chain", &instants, false);
}

/// A plate on 800 particles (1,600 contact rows, all touching the plate):
/// the active set warm (the KKT path, chosen by cost), auto, Clarabel.
fn plate(c: &mut Criterion) {
    let mut group = c.benchmark_group("plate");
    let instant = plate_on_particles(800, 7);
    let id = "particles800";
    warm(
        &mut group,
        "active_set_warm",
        id,
        Box::new(ActiveSetBackend::new()),
        &instant,
    );
    warm(
        &mut group,
        "auto_warm",
        id,
        Box::new(AutoBackend::new()),
        &instant,
    );
    warm(
        &mut group,
        "clarabel",
        id,
        Box::new(ClarabelBackend::new()),
        &instant,
    );
    group.finish();
}

/// 1,000 particles on a floor, half pulled off.
fn floor(c: &mut Criterion) {
    let mut group = c.benchmark_group("floor");
    let instant = particles_on_floor(1000, 7);
    let id = "particles1000";
    warm(
        &mut group,
        "auto_warm",
        id,
        Box::new(AutoBackend::new()),
        &instant,
    );
    warm(
        &mut group,
        "clarabel",
        id,
        Box::new(ClarabelBackend::new()),
        &instant,
    );
    group.finish();
}

/// Every value of a 1,000-variable instant (a 333-link chain: 999
/// variables, 666 rows) set in place, against one warm solve of it with
/// unchanged values (factors kept) and with changed values (refactored).
fn update(c: &mut Criterion) {
    let mut group = c.benchmark_group("update");
    let mut instant = chain(333, 7).instant;
    let force = instant.force().to_vec();
    let rhs = instant.equalities().rhs().to_vec();
    let rows = instant.equalities().matrix().data().to_vec();
    let mass = instant.mass().data().to_vec();
    group.bench_function("set_all_values_n999", |b| {
        b.iter(|| {
            instant.set_force(&force).unwrap();
            instant.set_rhs(RowSet::Equalities, &rhs).unwrap();
            instant.set_row_values(RowSet::Equalities, &rows).unwrap();
            instant.set_mass_values(&mass).unwrap();
        })
    });
    warm(
        &mut group,
        "direct_solve",
        "n999",
        Box::new(DirectBackend::new()),
        &instant,
    );
    // The solve that follows an update: values changed, every numeric
    // factorization redone (setters included).
    moving(
        &mut group,
        "direct_solve_moving",
        "n999",
        Box::new(DirectBackend::new()),
        &instant,
    );
    group.finish();
}

/// Equality-only instants with block-diagonal M: n = 99, 999, 9999.
fn equality_only(c: &mut Criterion) {
    let instants: Vec<_> = [(33, 32), (333, 332), (3333, 999)]
        .iter()
        .map(|&(b, j)| {
            let inst = scene(&spec(b, j, 0, false)).instant;
            (format!("{}", inst.dim()), inst)
        })
        .collect();
    against_clarabel(c, "equality_only", &instants, false);
}

/// A chain in generalized coordinates (banded, not block-diagonal M): the
/// quasi-definite KKT path.
fn coupled_mass(c: &mut Criterion) {
    let instants: Vec<_> = [(33, 32), (333, 332)]
        .iter()
        .map(|&(b, j)| {
            let inst = scene(&spec(b, j, 0, true)).instant;
            (format!("{}", inst.dim()), inst)
        })
        .collect();
    against_clarabel(c, "coupled_mass", &instants, false);
}

/// Instants with contacts: the active set warm-started from the previous
/// answer (the time-stepping case), cold, and Clarabel.
fn contacts(c: &mut Criterion) {
    let mut group = c.benchmark_group("contacts");
    for (bodies, joints, contacts) in [(3, 2, 2), (33, 20, 20), (333, 200, 200), (3333, 999, 2000)]
    {
        let sc = scene(&spec(bodies, joints, contacts, false));
        let n = sc.instant.dim();
        let id = format!("n{n}_c{contacts}");
        warm(
            &mut group,
            "active_set_warm",
            &id,
            Box::new(ActiveSetBackend::new()),
            &sc.instant,
        );
        group.bench_with_input(
            BenchmarkId::new("active_set_cold", &id),
            &sc.instant,
            |b, inst| b.iter(|| ActiveSetBackend::new().solve(inst)),
        );
        warm(
            &mut group,
            "clarabel",
            &id,
            Box::new(ClarabelBackend::new()),
            &sc.instant,
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = tiny, chains, plate, floor, update, equality_only, coupled_mass, contacts
}
criterion_main!(benches);
