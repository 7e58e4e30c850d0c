//! The factor `M = L^T D L` in the tree's order: against the tests' own
//! dense elimination (same order: the entries outside the tree's pattern
//! stay zero, so there is no fill) and its solves against a dense Cholesky
//! (`zwang_instant::dense`), on seeded random trees; its storage and work
//! counted on a 1,000-link chain and on trees of bounded depth.

use crate::common;

use common::{random_state, random_tree};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use zwang_instant::dense::{cholesky_in_place, cholesky_solve_in_place};
use zwang_tree::{Body, Joint, Tree};

/// Whether `j` is `i` or one of its ancestors (the tests' own walk).
fn in_pattern(tree: &Tree, i: usize, j: usize) -> bool {
    let mut a = Some(i);
    while let Some(k) = a {
        if k == j {
            return true;
        }
        a = tree.dof_parent()[k];
    }
    false
}

#[test]
fn factor_matches_dense_elimination_without_fill_and_solves_like_cholesky() {
    let mut rng = ChaCha8Rng::seed_from_u64(2008);
    for trial in 0..20 {
        let tree = random_tree(&mut rng, 4 + trial % 9);
        let nv = tree.nv();
        let (q, _) = random_state(&mut rng, &tree);
        let mut ws = tree.workspace();
        tree.positions(&mut ws, &q).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let m = common::dense(&tree, ws.mass());
        tree.factor(&mut ws).unwrap();

        // The pattern: one entry per dof and ancestor, as many as M keeps.
        let pattern = (0..nv)
            .map(|i| (0..=i).filter(|&j| in_pattern(&tree, i, j)).count())
            .sum::<usize>();
        assert_eq!(ws.factor().len(), pattern);
        assert_eq!(ws.mass().len(), pattern);

        // Dense L^T D L by elimination from the last dof: D_k = A_kk,
        // L_kj = A_kj / D_k, A_ij -= L_ki D_k L_kj (i, j < k).
        let mut a = m.clone();
        let mut l = vec![0.0; nv * nv];
        let mut d = vec![0.0; nv];
        for k in (0..nv).rev() {
            d[k] = a[k * nv + k];
            for j in 0..k {
                l[k * nv + j] = a[k * nv + j] / d[k];
            }
            for i in 0..k {
                for j in 0..k {
                    a[i * nv + j] -= l[k * nv + i] * d[k] * l[k * nv + j];
                }
            }
        }
        let scale = m.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        let (start, _) = tree.mass_layout();
        for i in 0..nv {
            assert!((ws.factor()[start[i]] - d[i]).abs() <= 1e-12 * scale);
            for j in 0..i {
                let dense = l[i * nv + j];
                if in_pattern(&tree, i, j) {
                    let got = tree.entry(ws.factor(), i, j);
                    assert!(
                        (got - dense).abs() <= 1e-11 * (1.0 + dense.abs()),
                        "L[{i}][{j}]: {got} against {dense}"
                    );
                } else {
                    // No fill: the dense elimination leaves it zero too.
                    assert!(dense.abs() <= 1e-12, "fill at ({i}, {j}): {dense}");
                }
            }
        }

        // Solves against a dense Cholesky.
        let mut chol = m.clone();
        cholesky_in_place(&mut chol, nv).unwrap();
        for _ in 0..3 {
            let b: Vec<f64> = (0..nv)
                .map(|k| ((k * 7 + trial) % 5) as f64 - 2.0 + 0.1 * k as f64)
                .collect();
            let mut x = b.clone();
            tree.solve(&ws, &mut x).unwrap();
            let mut y = b.clone();
            cholesky_solve_in_place(&chol, nv, &mut y);
            let size = y.iter().fold(1.0f64, |s, v| s.max(v.abs()));
            for k in 0..nv {
                assert!(
                    (x[k] - y[k]).abs() <= 1e-10 * size,
                    "trial {trial}: x[{k}] = {} against {}",
                    x[k],
                    y[k]
                );
            }
            // And M x = b through the crate's product.
            let mut mx = vec![0.0; nv];
            tree.mul_mass(&ws, &x, &mut mx).unwrap();
            for k in 0..nv {
                assert!((mx[k] - b[k]).abs() <= 1e-10 * size * scale);
            }
        }
    }
}

fn link(name: String, parent: Option<usize>, axis: [f64; 3]) -> Body {
    let mut b = Body::new(name.clone(), parent);
    b.position = if parent.is_some() {
        [0.0, 0.0, -0.1]
    } else {
        [0.0; 3]
    };
    b.mass = 0.1;
    b.com = [0.0, 0.0, -0.05];
    b.inertia = [[1e-4, 0.0, 0.0], [0.0, 1e-4, 0.0], [0.0, 0.0, 2e-5]];
    b.joints
        .push(Joint::hinge(name, axis, [0.0; 3]).with_armature(1e-3));
    b
}

/// An unbranched chain of `n` hinges (alternating axes).
fn chain(n: usize) -> Tree {
    let bodies = (0..n)
        .map(|k| {
            let axis = if k % 2 == 0 {
                [0.0, 1.0, 0.0]
            } else {
                [1.0, 0.0, 0.0]
            };
            link(format!("l{k}"), k.checked_sub(1), axis)
        })
        .collect();
    Tree::new(bodies, [0.0, 0.0, -9.81]).unwrap()
}

/// A free torso with `n / 4` limbs of four hinges each (`n` links).
fn limbs(n: usize) -> Tree {
    let mut torso = Body::new("torso", None);
    torso.mass = 5.0;
    torso.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
    torso.joints.push(Joint::free("root"));
    let mut bodies = vec![torso];
    for limb in 0..n / 4 {
        for k in 0..4 {
            let parent = if k == 0 { 0 } else { bodies.len() - 1 };
            let axis = if k % 2 == 0 {
                [0.0, 1.0, 0.0]
            } else {
                [1.0, 0.0, 0.0]
            };
            bodies.push(link(format!("limb{limb}_{k}"), Some(parent), axis));
        }
    }
    Tree::new(bodies, [0.0, 0.0, -9.81]).unwrap()
}

/// The factor's storage and multiply-adds, counted from the dofs' parents
/// by the test: storage `sum (depth + 1)`, work `sum` over each dof's
/// ancestors of their `depth + 1`.
fn counts(tree: &Tree) -> (usize, usize) {
    let depth = |i: usize| {
        let mut d = 0;
        let mut a = tree.dof_parent()[i];
        while let Some(k) = a {
            d += 1;
            a = tree.dof_parent()[k];
        }
        d
    };
    let storage = (0..tree.nv()).map(|i| depth(i) + 1).sum();
    let mut work = 0;
    for k in 0..tree.nv() {
        let mut a = tree.dof_parent()[k];
        while let Some(i) = a {
            work += depth(i) + 1;
            a = tree.dof_parent()[i];
        }
    }
    (storage, work)
}

/// Factor and solve at `qpos0`, and return the residual of `M x = b`
/// relative to `|M| |x|` (largest entries: backward error).
fn solve_residual(tree: &Tree) -> f64 {
    let mut ws = tree.workspace();
    tree.positions(&mut ws, tree.qpos0()).unwrap();
    tree.mass_matrix(&mut ws).unwrap();
    tree.factor(&mut ws).unwrap();
    let b: Vec<f64> = (0..tree.nv()).map(|k| (k % 3) as f64 - 1.0).collect();
    let mut x = b.clone();
    tree.solve(&ws, &mut x).unwrap();
    let mut mx = vec![0.0; tree.nv()];
    tree.mul_mass(&ws, &x, &mut mx).unwrap();
    let largest = |v: &[f64]| v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    let r = mx
        .iter()
        .zip(&b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    r / (largest(ws.mass()) * largest(&x))
}

/// Along one unbranched chain every dof is an ancestor of the ones after
/// it: `M` is dense, and the factor keeps exactly its `n (n + 1) / 2`
/// entries (no fill, but quadratic storage and cubic work). On trees of
/// bounded depth (limbs on a torso) both are linear in the links.
#[test]
fn factor_storage_and_work_follow_the_pattern() {
    for n in [10, 100, 1000] {
        let tree = chain(n);
        let (storage, work) = counts(&tree);
        assert_eq!(tree.mass_layout().1, storage);
        assert_eq!(storage, n * (n + 1) / 2);
        assert_eq!(tree.factor_work(), work);
        // sum over k of sum over i < k of (i + 1) = (n - 1) n (n + 1) / 6.
        assert_eq!(work, (n - 1) * n * (n + 1) / 6);
    }
    let r = solve_residual(&chain(1000));
    assert!(r < 1e-13, "{r}");

    let (small, large) = (limbs(100), limbs(1000));
    let (s100, w100) = counts(&small);
    let (s1000, w1000) = counts(&large);
    assert_eq!((small.mass_layout().1, small.factor_work()), (s100, w100));
    assert_eq!((large.mass_layout().1, large.factor_work()), (s1000, w1000));
    // Per limb of four hinges below six free dofs: 7 + 8 + 9 + 10 = 34
    // entries; the torso's 21.
    assert_eq!(s100, 21 + 25 * 34);
    assert_eq!(s1000, 21 + 250 * 34);
    // Ten times the links: at most ten times the storage and work.
    assert!(
        s1000 <= 10 * s100 && w1000 <= 10 * w100,
        "{s100} {s1000} {w100} {w1000}"
    );
    let r = solve_residual(&large);
    assert!(r < 1e-13, "{r}");
}

/// The articulated-body solve against the factor's, `(M + diag(extra)) x
/// = f`, on seeded random trees (every joint kind, several joints on one
/// body, bodies welded to their parents) and on a 1,000-link chain, where
/// the factor's work is cubic and the recursion's linear.
#[test]
fn the_articulated_body_solve_matches_the_factor() {
    let mut rng = ChaCha8Rng::seed_from_u64(1983);
    let check = |tree: &Tree, q: &[f64], extra: &[f64], f: &[f64], tol: f64, backward: f64| {
        let mut ws = tree.workspace();
        tree.positions(&mut ws, q).unwrap();
        let mut x = vec![0.0; tree.nv()];
        tree.solve_articulated(&mut ws, extra, f, &mut x).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let (start, _) = tree.mass_layout();
        for (i, e) in extra.iter().enumerate() {
            ws.mass_mut()[start[i]] += e;
        }
        tree.factor(&mut ws).unwrap();
        let mut y = f.to_vec();
        tree.solve(&ws, &mut y).unwrap();
        let largest = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = x
            .iter()
            .zip(&y)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(worst <= tol * largest, "{worst:e} of {largest:e}");
        // Its backward error: |(M + E) x - f| against |M + E| |x|.
        let mut mx = vec![0.0; tree.nv()];
        tree.mul_mass(&ws, &x, &mut mx).unwrap();
        let mut r = 0.0f64;
        for i in 0..tree.nv() {
            r = r.max((mx[i] - f[i]).abs());
        }
        let size = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let relative = r / (size(ws.mass()) * size(&x));
        assert!(relative <= backward, "{relative:e}");
    };
    for trial in 0..20 {
        let tree = random_tree(&mut rng, 3 + trial % 10);
        let (q, _) = random_state(&mut rng, &tree);
        let nv = tree.nv();
        let extra: Vec<f64> = (0..nv)
            .map(|i| if i % 2 == 0 { 0.0 } else { 0.01 * i as f64 })
            .collect();
        let f: Vec<f64> = (0..nv).map(|i| (i as f64 * 0.7).sin()).collect();
        check(&tree, &q, &extra, &f, 1e-12, 1e-14);
    }
    let tree = chain(1000);
    let q: Vec<f64> = (0..1000).map(|i| 0.3 * (i as f64 * 0.1).sin()).collect();
    let f: Vec<f64> = (0..1000).map(|i| ((i % 3) as f64 - 1.0) * 1e-3).collect();
    // The chain's M is ill-conditioned: the two answers differ by 2.7e-8 of
    // the largest; the recursion's backward error stays below 1e-14.
    check(&tree, &q, &vec![1e-4; 1000], &f, 1e-7, 1e-14);
    // Before positions: refused, not a stale answer.
    let mut ws = tree.workspace();
    let mut x = vec![0.0; 1000];
    assert!(tree
        .solve_articulated(&mut ws, &vec![0.0; 1000], &f, &mut x)
        .is_err());
}
