//! A free body under an RK4 of `qdd = M^-1 (tau - c)` written here (the
//! quaternion integrated as four numbers, `dq/dt = q (0, w) / 2`): its
//! linear momentum grows by `m g t` under gravity, and spinning torque-free
//! with its centre of mass off its frame's origin it keeps its energy and
//! its angular momentum (about the world origin) to round-off of RK4 at
//! small steps.

use zwang_tree::{Body, Joint, Tree};

fn body_tree(gravity: [f64; 3]) -> Tree {
    let mut b = Body::new("brick", None);
    b.position = [0.2, -0.1, 0.5];
    b.orientation = [0.9, 0.1, -0.3, 0.2].map(|x: f64| x / (0.81f64 + 0.01 + 0.09 + 0.04).sqrt());
    b.mass = 2.5;
    b.com = [0.15, -0.05, 0.1];
    b.inertia = [[0.10, 0.01, 0.0], [0.01, 0.25, 0.02], [0.0, 0.02, 0.35]];
    b.joints.push(Joint::free("root"));
    Tree::new(vec![b], gravity).unwrap()
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn rotate(q: &[f64], v: [f64; 3]) -> [f64; 3] {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (w, u) = (q[0] / n, [q[1] / n, q[2] / n, q[3] / n]);
    // v + 2 w (u x v) + 2 u x (u x v)
    let t = cross(u, v);
    let tt = cross(u, t);
    [0, 1, 2].map(|k| v[k] + 2.0 * w * t[k] + 2.0 * tt[k])
}

/// The state's derivative: `(v_lin, q (0, w) / 2, M^-1 (-c))`.
fn derivative(tree: &Tree, ws: &mut zwang_tree::Workspace, y: &[f64]) -> Vec<f64> {
    let (q, v) = (&y[..7], &y[7..]);
    tree.positions(ws, q).unwrap();
    tree.velocities(ws, v).unwrap();
    tree.mass_matrix(ws).unwrap();
    tree.factor(ws).unwrap();
    let mut qdd = vec![0.0; 6];
    tree.bias(ws, &mut qdd).unwrap();
    qdd.iter_mut().for_each(|x| *x = -*x);
    tree.solve(ws, &mut qdd).unwrap();
    let (w, x, yq, z) = (q[3], q[4], q[5], q[6]);
    let (a, b, c) = (v[3], v[4], v[5]);
    let mut out = vec![v[0], v[1], v[2]];
    out.extend([
        0.5 * (-x * a - yq * b - z * c),
        0.5 * (w * a + yq * c - z * b),
        0.5 * (w * b + z * a - x * c),
        0.5 * (w * c + x * b - yq * a),
    ]);
    out.extend(qdd);
    out
}

fn rk4(tree: &Tree, y0: &[f64], h: f64, steps: usize, mut each: impl FnMut(&[f64])) {
    let mut ws = tree.workspace();
    let mut y = y0.to_vec();
    for _ in 0..steps {
        let k1 = derivative(tree, &mut ws, &y);
        let at = |k: &[f64], s: f64| y.iter().zip(k).map(|(a, b)| a + s * b).collect::<Vec<_>>();
        let k2 = derivative(tree, &mut ws, &at(&k1, h / 2.0));
        let k3 = derivative(tree, &mut ws, &at(&k2, h / 2.0));
        let k4 = derivative(tree, &mut ws, &at(&k3, h));
        for i in 0..y.len() {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        each(&y);
    }
}

/// Linear momentum `m (v_origin + R (w x com))`, angular momentum about the
/// world origin `R I w + c x p`, energy `1/2 m |v_c|^2 + 1/2 w . I w`.
fn invariants(tree: &Tree, y: &[f64]) -> ([f64; 3], [f64; 3], f64) {
    let b = &tree.bodies()[0];
    let (q, v) = (&y[3..7], &y[7..]);
    let w = [v[3], v[4], v[5]];
    let spin = cross(w, b.com);
    let rs = rotate(q, spin);
    let vc = [v[0] + rs[0], v[1] + rs[1], v[2] + rs[2]];
    let p = vc.map(|x| b.mass * x);
    let iw = [0, 1, 2].map(|r| (0..3).map(|k| b.inertia[r][k] * w[k]).sum::<f64>());
    let rc = rotate(q, b.com);
    let c = [y[0] + rc[0], y[1] + rc[1], y[2] + rc[2]];
    let l_com = rotate(q, iw);
    let cp = cross(c, p);
    let l = [0, 1, 2].map(|k| l_com[k] + cp[k]);
    let energy = 0.5 * b.mass * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2])
        + 0.5 * (w[0] * iw[0] + w[1] * iw[1] + w[2] * iw[2]);
    (p, l, energy)
}

fn initial(tree: &Tree) -> Vec<f64> {
    let mut y = tree.qpos0().to_vec();
    // Spinning mostly about the intermediate axis (the unstable one), with
    // a drift.
    y.extend([0.3, -0.2, 0.5, 0.4, 3.0, -0.6]);
    y
}

#[test]
fn a_torque_free_body_keeps_its_momenta_and_energy() {
    let tree = body_tree([0.0; 3]);
    let y0 = initial(&tree);
    let (p0, l0, e0) = invariants(&tree, &y0);
    let mut worst = [0.0f64; 3];
    // 2 s at 1 ms.
    rk4(&tree, &y0, 1e-3, 2000, |y| {
        let (p, l, e) = invariants(&tree, y);
        for k in 0..3 {
            worst[0] = worst[0].max((p[k] - p0[k]).abs());
            worst[1] = worst[1].max((l[k] - l0[k]).abs());
        }
        worst[2] = worst[2].max((e - e0).abs() / e0);
    });
    assert!(worst[0] < 1e-11, "linear momentum moved by {}", worst[0]);
    assert!(worst[1] < 1e-11, "angular momentum moved by {}", worst[1]);
    assert!(worst[2] < 1e-12, "energy moved by {} (relative)", worst[2]);
}

#[test]
fn gravity_adds_m_g_t_to_the_momentum() {
    let g = [0.5, 0.0, -9.81];
    let tree = body_tree(g);
    let y0 = initial(&tree);
    let (p0, _, _) = invariants(&tree, &y0);
    let (h, steps) = (1e-3, 1000);
    let mut last = Vec::new();
    rk4(&tree, &y0, h, steps, |y| last = y.to_vec());
    let (p, _, _) = invariants(&tree, &last);
    let t = h * steps as f64;
    for k in 0..3 {
        let want = p0[k] + 2.5 * g[k] * t;
        assert!((p[k] - want).abs() < 1e-10, "{} against {want}", p[k]);
    }
}
