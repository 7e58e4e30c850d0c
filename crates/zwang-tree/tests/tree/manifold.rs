//! `q (+) h v` and the difference of two `qpos`: inverse to each other,
//! and the quaternion turn the exponential of the angular velocity in the
//! turned frame (a body spinning at a constant local rate turns about a
//! fixed axis).

use crate::common;

use common::{quat_matrix, random_state, random_tree};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn integrate_and_difference_are_inverse() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..20 {
        let tree = random_tree(&mut rng, 6);
        let (q, v) = random_state(&mut rng, &tree);
        let h = 0.37;
        let mut moved = q.clone();
        tree.integrate(&mut moved, &v, h).unwrap();
        let mut back = vec![0.0; tree.nv()];
        tree.difference(&q, &moved, &mut back).unwrap();
        for k in 0..tree.nv() {
            assert!(
                (back[k] - h * v[k]).abs() < 1e-13,
                "{} against {}",
                back[k],
                h * v[k]
            );
        }
        // And the difference carries q to the other state.
        let (other, _) = random_state(&mut rng, &tree);
        tree.difference(&q, &other, &mut back).unwrap();
        let mut there = q.clone();
        tree.integrate(&mut there, &back, 1.0).unwrap();
        let mut rest = vec![0.0; tree.nv()];
        tree.difference(&other, &there, &mut rest).unwrap();
        assert!(rest.iter().all(|x| x.abs() < 1e-12), "{rest:?}");
    }
}

/// A free body spun at `w` (body axes) for time `t` is turned by the
/// rotation of angle `|w| t` about `w` after its first orientation:
/// `R(t) = R0 Rot(w, |w| t)`, here checked on `w = (0, 0, 2)`.
#[test]
fn quaternions_turn_in_the_body_frame() {
    let mut b = zwang_tree::Body::new("top", None);
    b.mass = 1.0;
    b.inertia = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    b.orientation = [0.5, 0.5, 0.5, 0.5];
    b.joints.push(zwang_tree::Joint::free("root"));
    let tree = zwang_tree::Tree::new(vec![b], [0.0; 3]).unwrap();
    let mut q = tree.qpos0().to_vec();
    for _ in 0..10 {
        tree.integrate(&mut q, &[0.0, 0.0, 0.0, 0.0, 0.0, 2.0], 0.1)
            .unwrap();
    }
    let r = quat_matrix([q[3], q[4], q[5], q[6]]);
    let r0 = quat_matrix([0.5, 0.5, 0.5, 0.5]);
    let (s, c) = (2.0f64.sin(), 2.0f64.cos());
    let rz = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
    for i in 0..3 {
        for j in 0..3 {
            let want: f64 = (0..3).map(|k| r0[i][k] * rz[k][j]).sum();
            assert!((r[i][j] - want).abs() < 1e-14);
        }
    }
}
