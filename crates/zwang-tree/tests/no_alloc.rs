//! After the workspace is made, the calls allocate nothing: positions,
//! velocities, the mass matrix, the bias, the factor and its solve, the
//! product with `M`, a point Jacobian, the energies, `integrate` and
//! `difference`.
//!
//! The count is process-wide, so this file holds a single test (the test
//! harness runs nothing else beside it).

mod common;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn calls_after_the_workspace_allocate_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let tree = common::random_tree(&mut rng, 12);
    let (q, v) = common::random_state(&mut rng, &tree);
    let nv = tree.nv();
    let mut ws = tree.workspace();
    let mut c = vec![0.0; nv];
    let mut x = vec![0.0; nv];
    let mut mx = vec![0.0; nv];
    let mut jt = vec![0.0; 3 * nv];
    let mut jr = vec![0.0; 3 * nv];
    let mut moved = q.clone();
    let mut dq = vec![0.0; nv];
    let (extra, mut y) = (vec![0.0; nv], vec![0.0; nv]);
    let region = Region::new(GLOBAL);
    let mut energy = 0.0;
    for step in 0..5 {
        tree.positions(&mut ws, &moved).unwrap();
        tree.velocities(&mut ws, &v).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        tree.bias(&mut ws, &mut c).unwrap();
        tree.factor(&mut ws).unwrap();
        x.copy_from_slice(&c);
        tree.solve(&ws, &mut x).unwrap();
        tree.solve_articulated(&mut ws, &extra, &c, &mut y).unwrap();
        tree.mul_mass(&ws, &x, &mut mx).unwrap();
        tree.point_jacobian(&ws, step % tree.nbody(), [0.1, 0.2, 0.3], &mut jt, &mut jr)
            .unwrap();
        energy += tree.kinetic_energy(&ws).unwrap() + tree.potential_energy(&ws).unwrap();
        tree.integrate(&mut moved, &v, 1e-3).unwrap();
        tree.difference(&q, &moved, &mut dq).unwrap();
    }
    let change = region.change();
    assert_eq!(change.allocations + change.reallocations, 0, "{change:?}");
    assert!(energy.is_finite());
    for k in 0..nv {
        assert!((mx[k] - c[k]).abs() < 1e-9 * (1.0 + c[k].abs()));
        assert!((y[k] - x[k]).abs() < 1e-9 * (1.0 + x[k].abs()));
    }
}
