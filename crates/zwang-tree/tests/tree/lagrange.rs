//! `M(q)` against the Hessian of the kinetic energy in the velocities and
//! `c(q, v)` against Lagrange's equations, both by dual numbers through the
//! tests' own kinematics (rotation matrices, not the crate's quaternions
//! and spatial vectors), on seeded random trees with all four joint kinds.
//!
//! Lagrange's equations are written in the coordinates `theta` of `q = q0
//! (+) theta` around the state: at `theta = 0` they are the crate's
//! velocities (`theta_dot = v`), their mass matrix is `M`, and because the
//! exponential's velocity map `A(theta)` has `A(0) = 1` and `(dA/dt)
//! theta_dot = -1/2 theta_dot x theta_dot = 0` there, their velocity terms
//! are `c` itself:
//!
//! `c_i = sum_j d2T/dtheta_dot_i dtheta_j v_j - dT/dtheta_i + dV/dtheta_i`.

use crate::common;

use common::{kinetic, mass_frames, potential, random_state, random_tree};
use num_dual::{Dual64, HyperDual64};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-11 * scale.max(1.0)
}

#[test]
fn mass_matrix_is_the_hessian_of_the_kinetic_energy_and_the_bias_follows_lagrange() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut checked = 0;
    for trial in 0..12 {
        let tree = random_tree(&mut rng, 3 + trial % 5);
        let nv = tree.nv();
        let (q, v) = random_state(&mut rng, &tree);
        let mut ws = tree.workspace();
        tree.positions(&mut ws, &q).unwrap();
        tree.velocities(&mut ws, &v).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let m = common::dense(&tree, ws.mass());
        let mut c = vec![0.0; nv];
        tree.bias(&mut ws, &mut c).unwrap();

        // M_ij = d2T / dv_i dv_j (plus the armature, which T does not see).
        let zero_h = vec![HyperDual64::from(0.0); nv];
        let scale = m.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        for i in 0..nv {
            for j in 0..nv {
                let vd: Vec<HyperDual64> = (0..nv)
                    .map(|k| {
                        let e1 = if k == i { 1.0 } else { 0.0 };
                        let e2 = if k == j { 1.0 } else { 0.0 };
                        HyperDual64::new(v[k], e1, e2, 0.0)
                    })
                    .collect();
                let t = kinetic(&tree, &q, &zero_h, &vd);
                let armature = if i == j { armature_of(&tree, i) } else { 0.0 };
                let expected = t.eps1eps2 + armature;
                assert!(
                    close(m[i * nv + j], expected, scale),
                    "trial {trial}: M[{i}][{j}] = {} against {expected}",
                    m[i * nv + j]
                );
            }
        }

        // The kinetic and potential energies agree with the crate's.
        let t0 = kinetic(&tree, &q, &vec![0.0; nv], &v);
        let t_crate = tree.kinetic_energy(&ws).unwrap();
        assert!(close(t0, t_crate, t0.abs()), "{t0} against {t_crate}");
        let v0 = potential(&tree, &q, &vec![0.0; nv]);
        let v_crate = tree.potential_energy(&ws).unwrap();
        assert!(close(v0, v_crate, v0.abs()), "{v0} against {v_crate}");

        // c by Lagrange's equations.
        let c_scale = c.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        for i in 0..nv {
            let unit = |k: usize| if k == i { 1.0 } else { 0.0 };
            // dT/dtheta_i and dV/dtheta_i.
            let theta: Vec<Dual64> = (0..nv).map(|k| Dual64::new(0.0, unit(k))).collect();
            let vd: Vec<Dual64> = v.iter().map(|&x| Dual64::from(x)).collect();
            let dt = kinetic(&tree, &q, &theta, &vd).eps;
            let dv = potential(&tree, &q, &theta).eps;
            // sum_j d2T/dtheta_dot_i dtheta_j v_j: theta along v (eps1),
            // theta_dot along e_i (eps2).
            let theta: Vec<HyperDual64> = v
                .iter()
                .map(|&x| HyperDual64::new(0.0, x, 0.0, 0.0))
                .collect();
            let vd: Vec<HyperDual64> = (0..nv)
                .map(|k| HyperDual64::new(v[k], 0.0, unit(k), 0.0))
                .collect();
            let mixed = kinetic(&tree, &q, &theta, &vd).eps1eps2;
            let expected = mixed - dt + dv;
            assert!(
                close(c[i], expected, c_scale),
                "trial {trial}: c[{i}] = {} against {expected}",
                c[i]
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 12);
}

/// The point Jacobian against the derivative of a body point's position
/// along each dof (the tests' kinematics, one dual number).
#[test]
fn point_jacobians_are_the_derivatives_of_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for trial in 0..10 {
        let tree = random_tree(&mut rng, 6);
        let nv = tree.nv();
        let (q, _) = random_state(&mut rng, &tree);
        let mut ws = tree.workspace();
        tree.positions(&mut ws, &q).unwrap();
        let mut jt = vec![0.0; 3 * nv];
        let mut jr = vec![0.0; 3 * nv];
        for body in 0..tree.nbody() {
            // The point at the body's centre of mass plus an offset.
            let zero = vec![0.0; nv];
            let (com, _, _) = mass_frames(&tree, &q, &zero)[body];
            let point = [com[0] + 0.1, com[1] - 0.2, com[2] + 0.3];
            tree.point_jacobian(&ws, body, point, &mut jt, &mut jr)
                .unwrap();
            let on_path: Vec<usize> = tree.path(body).collect();
            for i in 0..nv {
                let theta: Vec<Dual64> = (0..nv)
                    .map(|k| Dual64::new(0.0, if k == i { 1.0 } else { 0.0 }))
                    .collect();
                let (com_d, r, _) = mass_frames(&tree, &q, &theta)[body];
                // The body point at `point`: com + R R0^T (point - com0).
                let r0 = common::frames(&tree, &q, &zero)[body].0;
                let d = [point[0] - com[0], point[1] - com[1], point[2] - com[2]];
                let local = [0, 1, 2].map(|k| r0[0][k] * d[0] + r0[1][k] * d[1] + r0[2][k] * d[2]);
                let rl = [0, 1, 2]
                    .map(|row| r[row][0] * local[0] + r[row][1] * local[1] + r[row][2] * local[2]);
                for row in 0..3 {
                    let expected = com_d[row].eps + rl[row].eps;
                    let got = jt[row * nv + i];
                    assert!(
                        (got - expected).abs() < 1e-12,
                        "trial {trial} body {body} dof {i}: {got} against {expected}"
                    );
                }
                if !on_path.contains(&i) {
                    assert!((0..3).all(|row| jt[row * nv + i] == 0.0 && jr[row * nv + i] == 0.0));
                }
            }
        }
    }
}

fn armature_of(tree: &zwang_tree::Tree, dof: usize) -> f64 {
    let mut k = 0;
    for body in tree.bodies() {
        for joint in &body.joints {
            let n = joint.kind.nv();
            if dof < k + n {
                return joint.armature;
            }
            k += n;
        }
    }
    unreachable!()
}
