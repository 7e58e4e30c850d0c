//! What the tests share: seeded random trees with every joint kind, random
//! states, the dense matrix of a kept lower triangle, and the tests' own
//! kinematics (rotation matrices, generic over dual numbers), written
//! apart from the crate's so that the crate is checked against something
//! else.

#![allow(dead_code)]

use num_dual::DualNum;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use zwang_tree::{Body, Joint, JointKind, Tree};

pub const GRAVITY: [f64; 3] = [0.3, -0.4, -9.81];

fn unit3(rng: &mut ChaCha8Rng) -> [f64; 3] {
    loop {
        let a: [f64; 3] = [0; 3].map(|_| rng.gen_range(-1.0..1.0));
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        if n > 0.2 && n < 1.0 {
            return a.map(|x| x / n);
        }
    }
}

pub fn unit_quaternion(rng: &mut ChaCha8Rng) -> [f64; 4] {
    loop {
        let q: [f64; 4] = [0; 4].map(|_| rng.gen_range(-1.0..1.0));
        let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.2 && n < 1.0 {
            return q.map(|x| x / n);
        }
    }
}

fn point(rng: &mut ChaCha8Rng, r: f64) -> [f64; 3] {
    [0; 3].map(|_| rng.gen_range(-r..r))
}

/// A random symmetric positive definite inertia `A A^T + 0.05 1`.
fn inertia(rng: &mut ChaCha8Rng) -> [[f64; 3]; 3] {
    let a: [[f64; 3]; 3] = [[0.0; 3]; 3].map(|row| row.map(|_: f64| rng.gen_range(-0.5..0.5)));
    let mut i = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            i[r][c] =
                (0..3).map(|k| a[r][k] * a[c][k]).sum::<f64>() + if r == c { 0.05 } else { 0.0 };
        }
    }
    i
}

/// A random tree of `n` bodies: body 0 free, the others on a random
/// earlier body (now and then on the world), with one or two of hinge,
/// slide and ball (at most one ball; now and then none: welded), random frames, anchors,
/// masses, inertias and armatures.
pub fn random_tree(rng: &mut ChaCha8Rng, n: usize) -> Tree {
    let mut bodies = Vec::new();
    for b in 0..n {
        let parent = if b == 0 || rng.gen_bool(0.1) {
            None
        } else {
            Some(rng.gen_range(0..b))
        };
        let mut body = Body::new(format!("b{b}"), parent);
        body.position = point(rng, 0.8);
        body.orientation = unit_quaternion(rng);
        body.mass = rng.gen_range(0.5..2.0);
        body.com = point(rng, 0.5);
        body.inertia = inertia(rng);
        if b == 0 {
            body.joints.push(Joint::free("free0"));
        } else {
            let count = [0, 1, 1, 2][rng.gen_range(0..4)];
            let mut kinds = 3;
            for j in 0..count {
                let name = format!("j{b}_{j}");
                // One ball a body: two balls about different anchors
                // move it in five ways with six dofs (a singular M).
                let kind = rng.gen_range(0..kinds);
                if kind == 2 {
                    kinds = 2;
                }
                let joint = match kind {
                    0 => Joint::hinge(name, unit3(rng), point(rng, 0.3)),
                    1 => Joint::slide(name, unit3(rng)),
                    _ => Joint::ball(name, point(rng, 0.3)),
                };
                let armature = if rng.gen_bool(0.3) {
                    rng.gen_range(0.0..0.2)
                } else {
                    0.0
                };
                body.joints.push(joint.with_armature(armature));
            }
        }
        bodies.push(body);
    }
    Tree::new(bodies, GRAVITY).unwrap()
}

/// A random state: angles and displacements in `[-1.5, 1.5]`, random unit
/// quaternions, positions in a unit box, velocities in `[-1, 1]`.
pub fn random_state(rng: &mut ChaCha8Rng, tree: &Tree) -> (Vec<f64>, Vec<f64>) {
    let mut q = Vec::new();
    for body in tree.bodies() {
        for joint in &body.joints {
            match joint.kind {
                JointKind::Hinge { .. } | JointKind::Slide { .. } => {
                    q.push(rng.gen_range(-1.5..1.5))
                }
                JointKind::Ball { .. } => q.extend(unit_quaternion(rng)),
                JointKind::Free => {
                    q.extend(point(rng, 1.0));
                    q.extend(unit_quaternion(rng));
                }
            }
        }
    }
    let v = (0..tree.nv()).map(|_| rng.gen_range(-1.0..1.0)).collect();
    (q, v)
}

/// The dense symmetric matrix (row-major) of a lower triangle kept in the
/// tree's layout, read entry by entry through the dofs' parents.
pub fn dense(tree: &Tree, values: &[f64]) -> Vec<f64> {
    let nv = tree.nv();
    let (start, _) = tree.mass_layout();
    let mut m = vec![0.0; nv * nv];
    for i in 0..nv {
        let mut j = Some(i);
        let mut k = start[i];
        while let Some(a) = j {
            m[i * nv + a] = values[k];
            m[a * nv + i] = values[k];
            k += 1;
            j = tree.dof_parent()[a];
        }
    }
    m
}

// ---------------------------------------------------------------------
// The tests' own kinematics: rotation matrices composed body by body,
// generic over the scalar, at `q = q0 (+) theta` (theta in R^nv: angles and
// displacements added, rotations by the exponential of a rotation vector
// on the right, a free joint's position added in world axes).

pub type M3<D> = [[D; 3]; 3];

fn c<D: DualNum<Primitive = f64> + Copy>(x: f64) -> D {
    D::from(x)
}

pub fn matmul<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, b: &M3<D>) -> M3<D> {
    let mut out = [[c::<D>(0.0); 3]; 3];
    for r in 0..3 {
        for col in 0..3 {
            out[r][col] = a[r][0] * b[0][col] + a[r][1] * b[1][col] + a[r][2] * b[2][col];
        }
    }
    out
}

pub fn matvec<D: DualNum<Primitive = f64> + Copy>(a: &M3<D>, v: &[D; 3]) -> [D; 3] {
    [0, 1, 2].map(|r| a[r][0] * v[0] + a[r][1] * v[1] + a[r][2] * v[2])
}

fn constant<D: DualNum<Primitive = f64> + Copy>(m: &[[f64; 3]; 3]) -> M3<D> {
    m.map(|row| row.map(c::<D>))
}

fn vconst<D: DualNum<Primitive = f64> + Copy>(v: [f64; 3]) -> [D; 3] {
    v.map(c::<D>)
}

/// The rotation matrix of a unit quaternion `[w, x, y, z]`, by the
/// conjugation `v -> q v q*` written out.
pub fn quat_matrix(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = q;
    [
        [
            w * w + x * x - y * y - z * z,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            w * w - x * x - y * y + z * z,
        ],
    ]
}

fn skew<D: DualNum<Primitive = f64> + Copy>(t: &[D; 3]) -> M3<D> {
    let z = c::<D>(0.0);
    [[z, -t[2], t[1]], [t[2], z, -t[0]], [-t[1], t[0], z]]
}

/// `exp([theta]x) = 1 + a K + b K^2`, with `a = sin|t|/|t|` and `b = (1 -
/// cos|t|)/|t|^2` by their series in `|t|^2` (smooth at zero, where the
/// Lagrange derivatives are taken).
pub fn expmap<D: DualNum<Primitive = f64> + Copy>(t: &[D; 3]) -> M3<D> {
    let x = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    let (mut a, mut b) = (c::<D>(0.0), c::<D>(0.0));
    let mut power = c::<D>(1.0);
    let mut fact = 1.0;
    for k in 0..12 {
        // (-x)^k / (2k+1)! and (-x)^k / (2k+2)!
        fact *= if k == 0 {
            1.0
        } else {
            (2 * k) as f64 * (2 * k + 1) as f64
        };
        a += power / fact;
        b += power / (fact * (2 * k + 2) as f64);
        power *= -x;
    }
    let k = skew(t);
    let k2 = matmul(&k, &k);
    let mut r = [[c::<D>(0.0); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = k[i][j] * a + k2[i][j] * b + if i == j { c::<D>(1.0) } else { c::<D>(0.0) };
        }
    }
    r
}

/// Rodrigues' rotation by `angle` about the unit `axis`.
fn axis_angle<D: DualNum<Primitive = f64> + Copy>(axis: [f64; 3], angle: D) -> M3<D> {
    let k = skew(&vconst::<D>(axis));
    let k2 = matmul(&k, &k);
    let (s, co) = (angle.sin(), angle.cos());
    let mut r = [[c::<D>(0.0); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = k[i][j] * s
                + k2[i][j] * (c::<D>(1.0) - co)
                + if i == j { c::<D>(1.0) } else { c::<D>(0.0) };
        }
    }
    r
}

/// Each body's world rotation and frame origin at `q0 (+) theta`.
pub fn frames<D: DualNum<Primitive = f64> + Copy>(
    tree: &Tree,
    q0: &[f64],
    theta: &[D],
) -> Vec<(M3<D>, [D; 3])> {
    let mut out: Vec<(M3<D>, [D; 3])> = Vec::new();
    let (mut qa, mut da) = (0, 0);
    let identity = constant::<D>(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    for body in tree.bodies() {
        let (rp, xp) = match body.parent {
            Some(p) => out[p],
            None => (identity, vconst::<D>([0.0; 3])),
        };
        let mut r = matmul(&rp, &constant(&quat_matrix(body.orientation)));
        let off = matvec(&rp, &vconst(body.position));
        let mut x = [0, 1, 2].map(|k| xp[k] + off[k]);
        for joint in &body.joints {
            match joint.kind {
                JointKind::Hinge { axis, anchor } => {
                    let a = matvec(&r, &vconst(anchor));
                    let anchor_w = [0, 1, 2].map(|k| x[k] + a[k]);
                    r = matmul(&r, &axis_angle(axis, theta[da] + q0[qa]));
                    let a = matvec(&r, &vconst(anchor));
                    x = [0, 1, 2].map(|k| anchor_w[k] - a[k]);
                    qa += 1;
                    da += 1;
                }
                JointKind::Slide { axis } => {
                    let a = matvec(&r, &vconst(axis));
                    let d = theta[da] + q0[qa];
                    x = [0, 1, 2].map(|k| x[k] + a[k] * d);
                    qa += 1;
                    da += 1;
                }
                JointKind::Ball { anchor } => {
                    let a = matvec(&r, &vconst(anchor));
                    let anchor_w = [0, 1, 2].map(|k| x[k] + a[k]);
                    let q: [f64; 4] = q0[qa..qa + 4].try_into().unwrap();
                    let t = [theta[da], theta[da + 1], theta[da + 2]];
                    r = matmul(&r, &matmul(&constant(&quat_matrix(q)), &expmap(&t)));
                    let a = matvec(&r, &vconst(anchor));
                    x = [0, 1, 2].map(|k| anchor_w[k] - a[k]);
                    qa += 4;
                    da += 3;
                }
                JointKind::Free => {
                    x = [0, 1, 2].map(|k| theta[da + k] + q0[qa + k]);
                    let q: [f64; 4] = q0[qa + 3..qa + 7].try_into().unwrap();
                    let t = [theta[da + 3], theta[da + 4], theta[da + 5]];
                    r = matmul(&constant(&quat_matrix(q)), &expmap(&t));
                    qa += 7;
                    da += 6;
                }
            }
        }
        out.push((r, x));
    }
    out
}

/// Each body's centre of mass and inertia about it in world axes.
pub fn mass_frames<D: DualNum<Primitive = f64> + Copy>(
    tree: &Tree,
    q0: &[f64],
    theta: &[D],
) -> Vec<([D; 3], M3<D>, M3<D>)> {
    frames(tree, q0, theta)
        .into_iter()
        .zip(tree.bodies())
        .map(|((r, x), body)| {
            let off = matvec(&r, &vconst(body.com));
            let com = [0, 1, 2].map(|k| x[k] + off[k]);
            (com, r, constant(&body.inertia))
        })
        .collect()
}

/// The kinetic energy at `q0 (+) theta` moving at `theta_dot`, from the
/// bodies' velocities (the time derivative by one more dual level:
/// `theta + eps theta_dot`); generic over the outer scalar.
pub fn kinetic<S: DualNum<Primitive = f64> + Copy>(
    tree: &Tree,
    q0: &[f64],
    theta: &[S],
    theta_dot: &[S],
) -> S {
    use num_dual::Dual;
    let moving: Vec<Dual<S>> = theta
        .iter()
        .zip(theta_dot)
        .map(|(&t, &d)| Dual::new(t, d))
        .collect();
    let mut energy = S::from(0.0);
    for ((com, r, inertia), body) in mass_frames(tree, q0, &moving)
        .into_iter()
        .zip(tree.bodies())
    {
        let cdot = com.map(|x| x.eps);
        let rr = r.map(|row| row.map(|x| x.re));
        let rdot = r.map(|row| row.map(|x| x.eps));
        // w = vex(Rdot R^T); the body-axes angular velocity R^T w.
        let mut w = [[S::from(0.0); 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                w[i][j] = rdot[i][0] * rr[j][0] + rdot[i][1] * rr[j][1] + rdot[i][2] * rr[j][2];
            }
        }
        let omega = [
            (w[2][1] - w[1][2]) * 0.5,
            (w[0][2] - w[2][0]) * 0.5,
            (w[1][0] - w[0][1]) * 0.5,
        ];
        let local =
            [0, 1, 2].map(|k| rr[0][k] * omega[0] + rr[1][k] * omega[1] + rr[2][k] * omega[2]);
        let inertia = inertia.map(|row| row.map(|x| x.re));
        let iw = matvec(&inertia, &local);
        let rot = local[0] * iw[0] + local[1] * iw[1] + local[2] * iw[2];
        let trans = cdot[0] * cdot[0] + cdot[1] * cdot[1] + cdot[2] * cdot[2];
        energy += (trans * body.mass + rot) * 0.5;
    }
    energy
}

/// Gravity's potential energy at `q0 (+) theta`.
pub fn potential<D: DualNum<Primitive = f64> + Copy>(tree: &Tree, q0: &[f64], theta: &[D]) -> D {
    let g = tree.gravity();
    let mut v = D::from(0.0);
    for ((com, _, _), body) in mass_frames(tree, q0, theta).into_iter().zip(tree.bodies()) {
        v -= (com[0] * g[0] + com[1] * g[1] + com[2] * g[2]) * body.mass;
    }
    v
}
