//! A second spatial `collide` with the same candidate pairs allocates
//! nothing: the tree, the pairs' manifolds (parry's point `Vec`s keep
//! their room) and the point buffer are all kept.
//!
//! The count is process-wide, so this file holds a single test (the test
//! harness runs nothing else beside it).

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use zwang_geometry::spatial::{Collider, Collision, Pose, Shape};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// 60 stacks of five bodies on a floor, every kind of shape (boxes, hulls,
/// spheres, capsules and cylinders, standing on one another: each
/// manifold generator parry has for them, the half-space one included),
/// jiggled by a few micrometres at each call: after two calls at rest and
/// five jiggled ones (EPA's memory grows once in them, by one step), five
/// more allocate nothing.
#[test]
fn steady_collisions_allocate_nothing() {
    let cube: Vec<[f64; 3]> = (0..8)
        .map(|k| [1, 2, 4].map(|bit| if k & bit == 0 { -0.25 } else { 0.25 }))
        .collect();
    // Each shape and its half height.
    let kinds = [
        (
            Shape::Box {
                half_extents: [0.25; 3],
            },
            0.25,
        ),
        (Shape::Convex { vertices: cube }, 0.25),
        (
            Shape::Cylinder {
                half_length: 0.25,
                radius: 0.25,
            },
            0.25,
        ),
        (Shape::Sphere { radius: 0.25 }, 0.25),
        (
            Shape::Capsule {
                half_length: 0.1,
                radius: 0.15,
            },
            0.25,
        ),
    ];
    let mut colliders = vec![Collider {
        shape: Shape::Halfspace {
            normal: [0.0, 0.0, 1.0],
        },
        body: None,
        pose: Pose::default(),
    }];
    let mut poses = Vec::new();
    for stack in 0..60 {
        let mut z = 0.0;
        for level in 0..5 {
            let (shape, half) = kinds[(stack + level) % kinds.len()].clone();
            colliders.push(Collider {
                shape,
                body: Some(poses.len()),
                pose: Pose::default(),
            });
            z += half - 1e-4;
            poses.push(Pose {
                position: [(stack % 10) as f64 * 2.0, (stack / 10) as f64 * 2.0, z],
                orientation: [1.0, 0.0, 0.0, 0.0],
            });
            z += half;
        }
    }
    let mut world = Collision::new(colliders, &[]).unwrap();
    let mut out = Vec::new();
    for _ in 0..2 {
        world.collide(&poses, 1e-3, &mut out);
        world.max_penetration(&poses);
    }
    let count = out.len();
    assert!(count >= 300, "{count}");
    let mut jiggle = |poses: &mut [Pose], step: usize| {
        for (k, pose) in poses.iter_mut().enumerate() {
            pose.position[0] += 1e-6 * ((k + step) % 3) as f64;
            let a = 1e-7 * (step as f64 - 2.0);
            pose.orientation = [(0.5 * a).cos(), 0.0, 0.0, (0.5 * a).sin()];
        }
        world.collide(poses, 1e-3, &mut out);
        assert_eq!(out.len(), count);
        assert!(world.max_penetration(poses) > 0.0);
    };
    for step in 0..5 {
        jiggle(&mut poses, step);
    }
    let region = Region::new(GLOBAL);
    for step in 0..5 {
        jiggle(&mut poses, step);
    }
    let change = region.change();
    assert_eq!(change.allocations + change.reallocations, 0, "{change:?}");
}
