//! A second `collide` with the same touching pairs allocates nothing: the
//! tree, the pairs' manifolds and the point buffer are all kept.
//!
//! The count is process-wide, so this file holds a single test (the test
//! harness runs nothing else beside it).

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_geometry::{Collider, Collision, Pose, Shape};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// 200 boxes resting in 20 stacks on a floor, jiggled by a few
/// micrometres at each call (the same pairs keep touching): after two
/// warm-up calls, five more allocate nothing.
#[test]
fn steady_collisions_allocate_nothing() {
    let mut colliders = vec![Collider {
        shape: Shape::HalfPlane { normal: [0.0, 1.0] },
        body: None,
        pose: Pose::default(),
    }];
    let mut poses = Vec::new();
    for stack in 0..20 {
        for level in 0..10 {
            colliders.push(Collider {
                shape: Shape::Box {
                    half_extents: [0.5, 0.25],
                },
                body: Some(poses.len()),
                pose: Pose::default(),
            });
            poses.push(Pose {
                position: [stack as f64 * 2.0, 0.25 + level as f64 * 0.4999 - 1e-4],
                angle: 0.0,
            });
        }
    }
    let mut world = Collision::new(colliders, &[]).unwrap();
    let mut out = Vec::new();
    for _ in 0..2 {
        world.collide(&poses, 1e-3, &mut out);
        world.max_penetration(&poses);
    }
    assert_eq!(out.len(), 400);
    let region = Region::new(GLOBAL);
    for step in 0..5 {
        for (k, pose) in poses.iter_mut().enumerate() {
            pose.position[0] += 1e-6 * ((k + step) % 3) as f64;
            pose.angle = 1e-7 * (step as f64 - 2.0);
        }
        world.collide(&poses, 1e-3, &mut out);
        assert_eq!(out.len(), 400);
        assert!(world.max_penetration(&poses) > 0.0);
    }
    let change = region.change();
    assert_eq!(change.allocations + change.reallocations, 0, "{change:?}");
}
