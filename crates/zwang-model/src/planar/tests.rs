//! The rows against finite differences of the position-level constraints.

use super::*;

/// A model with every joint and contact kind, in a generic state.
pub(crate) fn zoo() -> PlanarModel {
    let bodies = vec![
        Body::rigid("a", 2.0, 0.3)
            .at([0.1, 0.9])
            .turned(0.4)
            .moving([0.3, -0.2])
            .spinning(1.3),
        Body::rigid("b", 1.5, 0.2)
            .at([1.2, 0.7])
            .turned(-0.8)
            .moving([-0.5, 0.4])
            .spinning(-0.7),
        Body::particle("p", 0.7).at([0.4, -0.6]).moving([0.9, 0.6]),
        Body::rigid("c", 1.1, 0.15)
            .at([-0.9, 0.2])
            .turned(2.1)
            .moving([0.2, 0.8])
            .spinning(2.2),
    ];
    let bb = BodyRef::Body;
    let joints = vec![
        Joint {
            kind: JointKind::Pin,
            bodies: [bb(0), bb(1)],
            anchors: [[0.5, 0.1], [-0.4, 0.2]],
        },
        Joint {
            kind: JointKind::Distance { length: 1.0 },
            bodies: [bb(1), bb(2)],
            anchors: [[0.3, -0.2], [0.0, 0.0]],
        },
        Joint {
            kind: JointKind::Slider { axis: [0.6, 0.8] },
            bodies: [bb(0), bb(3)],
            anchors: [[-0.2, 0.3], [0.1, 0.1]],
        },
        Joint {
            kind: JointKind::Slot { axis: [1.0, 0.0] },
            bodies: [bb(3), bb(2)],
            anchors: [[0.2, -0.1], [0.0, 0.0]],
        },
        Joint {
            kind: JointKind::Weld,
            bodies: [BodyRef::Ground, bb(1)],
            anchors: [[1.0, 1.0], [0.2, 0.2]],
        },
        Joint {
            kind: JointKind::Slot { axis: [0.0, 1.0] },
            bodies: [BodyRef::Ground, bb(0)],
            anchors: [[0.3, 0.0], [0.1, -0.3]],
        },
    ];
    let contact = |name: &str, body, point, surface| {
        Contact::new(name, body, point, surface).with_surface(0.4, 0.0)
    };
    let contacts = vec![
        contact(
            "line",
            0,
            [0.3, -0.4],
            Surface::Line {
                point: [0.0, -1.0],
                normal: [0.3, 1.0],
            },
        ),
        contact(
            "circle",
            1,
            [-0.1, 0.5],
            Surface::Circle {
                center: [2.0, -1.0],
                radius: 0.5,
            },
        ),
        contact(
            "particle",
            2,
            [0.0, 0.0],
            Surface::Circle {
                center: [0.0, -2.0],
                radius: 0.3,
            },
        ),
    ];
    PlanarModel::new([0.0, -9.81], bodies, joints, contacts, vec![]).unwrap()
}

/// The position-level functions of the rows at `q`: joint violations and
/// the contacts' gaps and "tangential positions" (not a function of `q`
/// for circles, so only gaps are differentiated twice).
fn functions(m: &PlanarModel, q: &[f64]) -> Vec<f64> {
    let modes = vec![ContactState::slide(1.0); m.contacts()];
    let mut eq = vec![0.0; m.joint_rows()];
    let mut ineq = vec![0.0; m.contacts()];
    m.violations(0.0, q, &modes, &mut eq, &mut ineq);
    eq.into_iter().chain(ineq).collect()
}

/// Along the path `q + s v + s^2/2 a`, each row's value satisfies
/// `C'' = J a - b` at `s = 0`: the second difference of the
/// position-level function checks both `J` and the velocity terms `b`.
#[test]
fn rows_are_the_second_derivatives_of_the_constraints() {
    let m = zoo();
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let modes = vec![ContactState::slide(1.0); m.contacts()];
    let (instant, _) = m.build_instant(0.0, &q, &v, &modes).unwrap();
    let a: Vec<f64> = (0..n)
        .map(|i| ((i * 7 + 3) % 11) as f64 * 0.37 - 1.5)
        .collect();
    let path = |s: f64| uniformly_accelerated(&q, &v, &a, s).0;
    let h = 1e-4;
    let (fm, f0, fp) = (
        functions(&m, &path(-h)),
        functions(&m, &path(0.0)),
        functions(&m, &path(h)),
    );
    let second: Vec<f64> = (0..f0.len())
        .map(|r| (fp[r] - 2.0 * f0[r] + fm[r]) / (h * h))
        .collect();
    let first: Vec<f64> = (0..f0.len()).map(|r| (fp[r] - fm[r]) / (2.0 * h)).collect();
    let rows: Vec<(f64, f64)> = (0..instant.equalities().len())
        .map(|r| {
            (
                instant.equalities().row_dot(r, &a),
                instant.equalities().rhs()[r],
            )
        })
        .chain((0..instant.inequalities().len()).map(|r| {
            (
                instant.inequalities().row_dot(r, &a),
                instant.inequalities().rhs()[r],
            )
        }))
        .collect();
    assert_eq!(rows.len(), second.len());
    for (r, ((ja, b), c2)) in rows.iter().zip(&second).enumerate() {
        assert!(
            (ja - b - c2).abs() < 1e-5 * (1.0 + c2.abs()),
            "row {r}: J a - b = {} vs C'' = {c2}",
            ja - b
        );
    }
    // Velocity level: J v = C' (the same rows at velocity level).
    let jv: Vec<f64> = (0..instant.equalities().len())
        .map(|r| instant.equalities().row_dot(r, &v))
        .chain((0..instant.inequalities().len()).map(|r| instant.inequalities().row_dot(r, &v)))
        .collect();
    for (r, (x, c1)) in jv.iter().zip(&first).enumerate() {
        assert!((x - c1).abs() < 1e-7, "row {r}: J v = {x} vs C' = {c1}");
    }
    // And the contact velocities match the gaps' rates.
    for k in 0..m.contacts() {
        let (gn, _) = m.contact_velocity(k, &q, &v);
        assert!((gn - first[m.joint_rows() + k]).abs() < 1e-7);
    }
}

/// The sticking row is the derivative of the tangential velocity along
/// the path `(q + s v + .., v + s a)`.
#[test]
fn sticking_rows_are_the_rates_of_the_tangential_velocities() {
    let m = zoo();
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let modes = vec![ContactState::STICK; m.contacts()];
    let (instant, layout) = m.build_instant(0.0, &q, &v, &modes).unwrap();
    let a: Vec<f64> = (0..n)
        .map(|i| ((i * 5 + 1) % 7) as f64 * 0.41 - 1.2)
        .collect();
    let h = 1e-5;
    let state = |s: f64| uniformly_accelerated(&q, &v, &a, s);
    for k in 0..m.contacts() {
        let row = layout.contacts[k].tangent.unwrap();
        let (qp, vp) = state(h);
        let (qm, vm) = state(-h);
        let rate =
            (m.contact_velocity(k, &qp, &vp).1 - m.contact_velocity(k, &qm, &vm).1) / (2.0 * h);
        let ja = instant.equalities().row_dot(row, &a) - instant.equalities().rhs()[row];
        assert!((ja - rate).abs() < 1e-6, "contact {k}: {ja} vs {rate}");
    }
}

/// Updating in place gives the instant a fresh build gives, at another
/// state, for every mode.
#[test]
fn update_in_place_equals_a_fresh_build() {
    let m = zoo();
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let modes = [
        ContactState::STICK,
        ContactState::slide(-1.0),
        ContactState::OPEN,
    ];
    let (mut instant, _) = m.build_instant(0.0, &q, &v, &modes).unwrap();
    let q2: Vec<f64> = q
        .iter()
        .enumerate()
        .map(|(i, x)| x + 0.1 * (i as f64).sin())
        .collect();
    let v2: Vec<f64> = v
        .iter()
        .enumerate()
        .map(|(i, x)| x - 0.2 * (i as f64).cos())
        .collect();
    let modes2 = [
        ContactState::STICK,
        ContactState::slide(1.0),
        ContactState::OPEN,
    ];
    m.update_instant(0.0, &q2, &v2, &modes2, &mut instant)
        .unwrap();
    let (fresh, _) = m.build_instant(0.0, &q2, &v2, &modes2).unwrap();
    assert_eq!(instant.force(), fresh.force());
    for set in [RowSet::Equalities, RowSet::Inequalities] {
        assert_eq!(instant.rows(set).matrix(), fresh.rows(set).matrix());
        assert_eq!(instant.rows(set).rhs(), fresh.rows(set).rhs());
    }
    assert_eq!(instant.sliding(), fresh.sliding());
    // Other modes do not fit: an error, not a panic.
    assert!(m
        .update_instant(0.0, &q2, &v2, &[ContactState::OPEN; 3], &mut instant)
        .is_err());
    assert!(m
        .update_instant(0.0, &q2, &v2, &[ContactState::OPEN; 2], &mut instant)
        .is_err());
    let mut bad = q2.clone();
    bad[0] = f64::NAN;
    assert!(m
        .update_instant(0.0, &bad, &v2, &modes2, &mut instant)
        .is_err());
}

/// A body `a` (placed, turned, moving and spinning here) and a moving
/// particle, joined by a stretched spring.
fn sprung_pair(a: Body) -> (Vec<Body>, Vec<Force>) {
    let bodies = vec![
        a.at([0.1, 0.9])
            .turned(0.4)
            .moving([0.3, -0.2])
            .spinning(1.3),
        Body::particle("p", 0.7).at([0.4, -0.6]).moving([0.9, 0.6]),
    ];
    let forces = vec![Force::Spring {
        bodies: [BodyRef::Body(0), BodyRef::Body(1)],
        anchors: [[0.3, 0.2], [0.0, 0.0]],
        stiffness: 7.0,
        rest_length: 0.4,
    }];
    (bodies, forces)
}

/// At the model's initial state: the power `Q . v` of its forces, and the
/// rate `dV/dt` of the energy at zero velocity (its potential part) along
/// `v`, by central differences.
fn power_and_potential_rate(m: &PlanarModel) -> (f64, f64) {
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let mut f = vec![0.0; n];
    m.write_force(0.0, &q, &v, &[], &mut f).unwrap();
    let h = 1e-6;
    let qp: Vec<f64> = (0..n).map(|i| q[i] + h * v[i]).collect();
    let qm: Vec<f64> = (0..n).map(|i| q[i] - h * v[i]).collect();
    let zero = vec![0.0; n];
    let dv = (m.energy(0.0, &qp, &zero) - m.energy(0.0, &qm, &zero)) / (2.0 * h);
    let power: f64 = f.iter().zip(&v).map(|(a, b)| a * b).sum();
    (power, dv)
}

/// The state `(q, v)` a time `s` on from `(q, v)` under the constant
/// acceleration `a` (to second order in `q`).
fn uniformly_accelerated(q: &[f64], v: &[f64], a: &[f64], s: f64) -> (Vec<f64>, Vec<f64>) {
    (
        (0..q.len())
            .map(|i| q[i] + s * v[i] + 0.5 * s * s * a[i])
            .collect(),
        (0..v.len()).map(|i| v[i] + s * a[i]).collect(),
    )
}

/// Springs, dampers and viscous friction do the work their potentials and
/// dissipation say: `Q . v` of a spring is `-dV/dt`.
#[test]
fn spring_force_is_minus_the_gradient_of_its_energy() {
    let (bodies, forces) = sprung_pair(Body::rigid("a", 2.0, 0.3));
    let m = PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], forces).unwrap();
    let (power, dv) = power_and_potential_rate(&m);
    assert!((power + dv).abs() < 1e-6, "{power} vs {}", -dv);
}

#[test]
fn bad_descriptions_name_their_key() {
    let e = PlanarModel::new(
        [0.0, -9.81],
        vec![Body::rigid("a", -1.0, 1.0)],
        vec![],
        vec![],
        vec![],
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "body[0].mass: must be > 0");
    let e = PlanarModel::new(
        [0.0, -9.81],
        vec![Body::rigid("a", 1.0, 0.0)],
        vec![],
        vec![],
        vec![],
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "body[0].inertia: must be > 0");
    let j = Joint {
        kind: JointKind::Weld,
        bodies: [BodyRef::Ground, BodyRef::Body(0)],
        anchors: [[0.0; 2]; 2],
    };
    let e = PlanarModel::new(
        [0.0, -9.81],
        vec![Body::particle("p", 1.0)],
        vec![j],
        vec![],
        vec![],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "joint[0].bodies: sliders and welds join rigid bodies (or ground)"
    );
}

/// A sleigh-like body with a knife edge, in a generic state that does not
/// satisfy the edge (the row holds for any state).
fn knife_model() -> (PlanarModel, [f64; 2], [f64; 2]) {
    let (point, axis) = ([-0.3, 0.2], [0.6, -0.8]);
    let bodies = vec![
        Body::particle("p", 0.7).at([0.4, -0.6]).moving([0.9, 0.6]),
        Body::rigid("sleigh", 2.0, 0.3)
            .at([0.1, 0.9])
            .turned(0.4)
            .moving([0.3, -0.2])
            .spinning(1.3),
    ];
    let joints = vec![Joint::knife_edge(1, point, axis)];
    let m = PlanarModel::new([0.0, -9.81], bodies, joints, vec![], vec![]).unwrap();
    (m, point, axis)
}

/// `n . v_P` written out from `(q, v)` of the sleigh (body 1, at offset
/// 2): the blade's normal and point, independently of the model's
/// geometry code.
fn blade_velocity(q: &[f64], v: &[f64], point: [f64; 2], axis: [f64; 2]) -> f64 {
    let (s, c) = q[4].sin_cos();
    let norm = axis[0].hypot(axis[1]);
    let e = [
        (c * axis[0] - s * axis[1]) / norm,
        (s * axis[0] + c * axis[1]) / norm,
    ];
    let n = [-e[1], e[0]];
    let u = [c * point[0] - s * point[1], s * point[0] + c * point[1]];
    let vp = [v[2] - v[4] * u[1], v[3] + v[4] * u[0]];
    n[0] * vp[0] + n[1] * vp[1]
}

/// The knife edge's row is the time derivative of `n(q) . v_P(q, v)`
/// along the path `(q + s v + s^2/2 a, v + s a)`, and `J v = n . v_P`;
/// it has no position level (violation 0, velocity target 0).
#[test]
fn knife_edge_row_is_the_rate_of_the_blade_normal_velocity() {
    let (m, point, axis) = knife_model();
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let (instant, layout) = m.build_instant(0.0, &q, &v, &[]).unwrap();
    assert_eq!((layout.joint_rows, instant.equalities().len()), (1, 1));
    let eq = instant.equalities();
    let jv = eq.row_dot(0, &v);
    let expected = blade_velocity(&q, &v, point, axis);
    assert!(
        expected.abs() > 0.1 && (jv - expected).abs() < 1e-14,
        "{jv} vs {expected}"
    );
    let mut worst = 0.0f64;
    for seed in 0..5 {
        let a: Vec<f64> = (0..n)
            .map(|i| ((i * 7 + 3 + seed * 5) % 11) as f64 * 0.37 - 1.5)
            .collect();
        let h = 1e-5;
        let state = |s: f64| uniformly_accelerated(&q, &v, &a, s);
        let ((qp, vp), (qm, vm)) = (state(h), state(-h));
        let rate = (blade_velocity(&qp, &vp, point, axis) - blade_velocity(&qm, &vm, point, axis))
            / (2.0 * h);
        let ja = eq.row_dot(0, &a) - eq.rhs()[0];
        worst = worst.max((ja - rate).abs() / (1.0 + rate.abs()));
    }
    assert!(worst < 1e-8, "J a - b vs d/dt (n . v_P): {worst:e}");
    let (mut viol, mut target) = ([1.0], [1.0]);
    m.violations(0.0, &q, &[], &mut viol, &mut []);
    m.velocity_targets(0.0, &q, &v, &[], &mut target);
    assert_eq!((viol, target), ([0.0], [0.0]));
}

#[test]
fn knife_edges_join_ground_to_a_rigid_body() {
    let bodies = || {
        vec![
            Body::particle("p", 1.0),
            Body::rigid("r", 1.0, 0.1).at([1.0, 0.0]),
        ]
    };
    let build = |joint: Joint| {
        PlanarModel::new([0.0; 2], bodies(), vec![joint], vec![], vec![])
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        build(Joint::knife_edge(0, [0.0; 2], [1.0, 0.0])),
        "joint[0].bodies: a knife edge's body is rigid"
    );
    assert_eq!(
        build(Joint::knife_edge(1, [0.0; 2], [0.0, 0.0])),
        "joint[0].axis: must not be zero"
    );
    let mut j = Joint::knife_edge(1, [0.0; 2], [1.0, 0.0]);
    j.bodies = [BodyRef::Body(1), BodyRef::Ground];
    assert_eq!(
        build(j),
        "joint[0].bodies: a knife edge joins ground (first) to a body"
    );
    let mut j = Joint::knife_edge(1, [0.0; 2], [1.0, 0.0]);
    j.anchors[0] = [1.0, 0.0];
    assert_eq!(
        build(j),
        "joint[0].anchors: a knife edge's ground anchor is [0, 0] (unused)"
    );
}

/// The frame's inertial forces on a rigid body are the sum over its mass
/// elements: a box `a x b x c` (thickness `c` out of the plane, turned by
/// `beta` in its body frame so that `Ixy != 0`) is exactly eight equal
/// masses at the 2-point Gauss-Legendre nodes for every integrand of
/// degree <= 3 in the offsets, and the force and moment integrands are of
/// degree <= 2. Each element gets
/// `-dm (a_O + omega' x r + omega x (omega x r) + 2 omega x r')` in 3D;
/// their `x`, `y` sums and `z` moment about the centre must be the
/// model's `Q` (no gravity), for frames turning about any axis.
#[test]
fn frame_forces_are_the_sum_over_mass_elements() {
    let (mass, a, b, c, beta) = (1.7, 0.8, 0.3, 0.2, 0.35);
    let (sb, cb) = f64::sin_cos(beta);
    let rot = |p: [f64; 2], s: f64, c: f64| [c * p[0] - s * p[1], s * p[0] + c * p[1]];
    let g = 1.0 / (2.0 * 3f64.sqrt());
    let mut nodes = Vec::new();
    for i in [-1.0, 1.0] {
        for j in [-1.0, 1.0] {
            for k in [-1.0, 1.0] {
                let p = rot([i * a * g, j * b * g], sb, cb);
                nodes.push([p[0], p[1], k * c * g]);
            }
        }
    }
    // The tensor of the turned box, R(beta) diag R(beta)^T, in body axes.
    let (d0, d1) = (mass * (b * b + c * c) / 12.0, mass * (a * a + c * c) / 12.0);
    let izz = mass * (a * a + b * b) / 12.0;
    let tensor = [
        cb * cb * d0 + sb * sb * d1,
        sb * sb * d0 + cb * cb * d1,
        cb * sb * (d0 - d1),
    ];
    let body = Body::rigid("box", mass, izz)
        .with_inertia_tensor(tensor)
        .at([0.7, -0.4])
        .turned(1.1)
        .moving([0.5, 0.9])
        .spinning(-1.7);
    let particle = Body::particle("p", 0.6).at([-0.3, 0.8]).moving([-0.2, 0.4]);
    let motions = [
        FrameMotion {
            a_o: [0.3, -1.2, 0.7],
            omega: [0.0, 0.0, 1.4],
            omega_dot: [0.0, 0.0, -0.6],
        },
        FrameMotion {
            a_o: [1.1, 0.4, -2.0],
            omega: [0.8, -0.5, 1.2],
            omega_dot: [0.3, 0.9, -0.4],
        },
        FrameMotion {
            a_o: [0.0; 3],
            omega: [0.0, 2.0, 0.0],
            omega_dot: [0.0; 3],
        },
    ];
    for fm in motions {
        let model = PlanarModel::new(
            [0.0; 2],
            vec![body.clone(), particle.clone()],
            vec![],
            vec![],
            vec![],
        )
        .unwrap()
        .in_frame(Frame::custom(move |_| fm))
        .unwrap();
        let n = model.nv();
        let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
        model.initial_state(&mut q, &mut v);
        let (instant, _) = model.build_instant(0.3, &q, &v, &[]).unwrap();
        let got = instant.force();
        // Sum over the elements of the box.
        let (th, w_rel) = (q[2], v[2]);
        let (st, ct) = th.sin_cos();
        let (mut f, mut moment) = ([0.0; 3], 0.0);
        let dm = mass / nodes.len() as f64;
        for node in &nodes {
            let p = rot([node[0], node[1]], st, ct);
            let rho = [p[0], p[1], node[2]];
            let r = [q[0] + rho[0], q[1] + rho[1], rho[2]];
            let rv = [v[0] - w_rel * rho[1], v[1] + w_rel * rho[0], 0.0];
            let (t1, t2) = (
                frame::cross3(fm.omega_dot, r),
                frame::cross3(fm.omega, frame::cross3(fm.omega, r)),
            );
            let t3 = frame::cross3(fm.omega, rv);
            let df: [f64; 3] =
                std::array::from_fn(|k| -dm * (fm.a_o[k] + t1[k] + t2[k] + 2.0 * t3[k]));
            for k in 0..3 {
                f[k] += df[k];
            }
            moment += rho[0] * df[1] - rho[1] * df[0];
        }
        // The particle.
        let (r, rv) = ([q[3], q[4], 0.0], [v[3], v[4], 0.0]);
        let (t1, t2, t3) = (
            frame::cross3(fm.omega_dot, r),
            frame::cross3(fm.omega, frame::cross3(fm.omega, r)),
            frame::cross3(fm.omega, rv),
        );
        let fp: [f64; 2] =
            std::array::from_fn(|k| -0.6 * (fm.a_o[k] + t1[k] + t2[k] + 2.0 * t3[k]));
        let want = [f[0], f[1], moment, fp[0], fp[1]];
        for k in 0..5 {
            assert!(
                (got[k] - want[k]).abs() < 1e-13 * (1.0 + want[k].abs()),
                "{fm:?} coordinate {k}: {} vs {}",
                got[k],
                want[k]
            );
        }
    }
}

/// In a frame with constant `a_O` and `omega` the frame's forces (and
/// gravity and springs) derive from the reported energy's potential part
/// and the Coriolis forces do no work: `Q . v = -dV/dt` with `V` the
/// energy at zero velocity.
#[test]
fn frame_forces_do_the_work_of_the_jacobi_potential() {
    let (bodies, forces) =
        sprung_pair(Body::rigid("a", 2.0, 0.3).with_inertia_tensor([0.1, 0.25, -0.04]));
    let frame = Frame::Constant {
        acceleration: [0.8, -0.3, 2.0],
        angular_velocity: [0.7, -1.1, 1.9],
    };
    let m = PlanarModel::new([0.2, -9.81], bodies, vec![], vec![], forces)
        .unwrap()
        .in_frame(frame)
        .unwrap();
    let (power, dv) = power_and_potential_rate(&m);
    assert!(
        (power + dv).abs() < 1e-7 * (1.0 + dv.abs()),
        "{power} vs {}",
        -dv
    );
}

#[test]
fn frames_and_tensors_are_validated() {
    let rod = || Body::rigid("rod", 1.0, 1.0 / 12.0);
    let model = |b: Body| PlanarModel::new([0.0; 2], vec![b], vec![], vec![], vec![]);
    let turning = Frame::Constant {
        acceleration: [0.0; 3],
        angular_velocity: [0.0, 1.0, 0.0],
    };
    let e = model(rod()).unwrap().in_frame(turning.clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "body[0].inertia_tensor: required: the frame turns about an in-plane axis"
    );
    // About z only: no tensor needed.
    let about_z = Frame::Constant {
        acceleration: [1.0, 0.0, 0.0],
        angular_velocity: [0.0, 0.0, 1.0],
    };
    assert!(model(rod()).unwrap().in_frame(about_z).is_ok());
    // A thin rod sits on the edge of the triangle inequalities.
    let thin = rod().with_inertia_tensor([0.0, 1.0 / 12.0, 0.0]);
    assert!(model(thin).unwrap().in_frame(turning.clone()).is_ok());
    for (tensor, message) in [
        ([-0.1, 0.1, 0.0], "Ixx and Iyy must be >= 0"),
        (
            [0.04, 0.04, 0.05],
            "Ixx Iyy must be >= Ixy^2 (the in-plane block is not positive)",
        ),
        ([0.01, 0.01, 0.0], "with Izz = inertia, not a body's inertia: needs |l1 - l2| <= inertia <= Ixx + Iyy (l1, l2 the principal values of the in-plane block)"),
        ([f64::NAN, 0.1, 0.0], "must be finite"),
    ] {
        let e = model(rod().with_inertia_tensor(tensor)).unwrap_err();
        assert_eq!(e.to_string(), format!("body[0].inertia_tensor: {message}"));
    }
    let mut p = Body::particle("p", 1.0);
    p.inertia_tensor = Some([0.0; 3]);
    assert_eq!(
        model(p).unwrap_err().to_string(),
        "body[0].inertia_tensor: a particle has no inertia tensor"
    );
    let bad = Frame::Sinusoid {
        acceleration: Sinusoid {
            frequency: [1.0, -1.0, 0.0],
            ..Sinusoid::default()
        },
        angular_velocity: Sinusoid::default(),
    };
    assert_eq!(
        model(rod()).unwrap().in_frame(bad).unwrap_err().to_string(),
        "frame.acceleration.frequency: must be >= 0"
    );
    // A closure that turns in plane fails at evaluation, naming the key.
    let m = model(rod())
        .unwrap()
        .in_frame(Frame::custom(|_| FrameMotion {
            omega: [1.0, 0.0, 0.0],
            ..FrameMotion::default()
        }))
        .unwrap();
    let e = m.build_instant(0.5, &[0.0; 3], &[0.0; 3], &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "body[0].inertia_tensor: required: the frame turns about an in-plane axis at t = 0.5"
    );
    assert!(m.energy(0.5, &[0.0; 3], &[0.0; 3]).is_nan());
    let nan = model(rod())
        .unwrap()
        .in_frame(Frame::custom(|_| FrameMotion {
            a_o: [f64::NAN, 0.0, 0.0],
            ..FrameMotion::default()
        }))
        .unwrap();
    assert!(nan.build_instant(0.0, &[0.0; 3], &[0.0; 3], &[]).is_err());
}

/// The sinusoid's rate is the derivative of its value.
#[test]
fn sinusoid_rate_is_the_derivative() {
    let s = Sinusoid {
        offset: [0.1, -0.2, 0.3],
        amplitude: [1.0, 2.0, -0.5],
        frequency: [0.5, 1.5, 0.0],
        phase: [0.2, -1.0, 0.7],
    };
    let h = 1e-6;
    for t in [0.0, 0.37, 2.1] {
        let (p, m) = (s.value(t + h), s.value(t - h));
        let r = s.rate(t);
        for i in 0..3 {
            assert!(((p[i] - m[i]) / (2.0 * h) - r[i]).abs() < 1e-8);
        }
    }
    assert_eq!(s.value(5.0)[2], 0.1 * 0.0 + 0.3 - 0.5 * 0.7f64.sin());
}

/// Three islands: a pin-jointed pair with a contact, a spring pair with a
/// constant force, a lone body on a spring to the ground.
fn archipelago() -> PlanarModel {
    let bb = BodyRef::Body;
    let bodies = vec![
        Body::rigid("a", 2.0, 0.3)
            .at([0.0, 1.0])
            .moving([0.3, 0.1])
            .spinning(0.5),
        Body::particle("p", 0.7).at([5.0, 1.0]).moving([0.2, -0.1]),
        Body::rigid("b", 1.5, 0.2)
            .at([1.0, 1.0])
            .turned(0.3)
            .spinning(-0.4),
        Body::particle("lone", 1.1).at([-3.0, 2.0]),
        Body::rigid("r", 0.9, 0.1).at([6.0, 1.5]).turned(-0.2),
    ];
    let joints = vec![Joint {
        kind: JointKind::Pin,
        bodies: [bb(0), bb(2)],
        anchors: [[0.5, 0.0], [-0.5, 0.0]],
    }];
    let contact = |name: &str, body: usize, point: [f64; 2]| {
        Contact::new(name, body, point, Surface::FLOOR).with_surface(0.4, 0.0)
    };
    let contacts = vec![
        contact("b_foot", 2, [0.4, -0.3]),
        contact("p_foot", 1, [0.0, 0.0]),
        contact("a_foot", 0, [0.0, -0.5]),
    ];
    let forces = vec![
        Force::Spring {
            bodies: [bb(4), bb(1)],
            anchors: [[0.1, 0.0], [0.0, 0.0]],
            stiffness: 30.0,
            rest_length: 0.5,
        },
        Force::Constant {
            body: 4,
            force: [1.0, 2.0],
            torque: 0.3,
        },
        Force::Spring {
            bodies: [BodyRef::Ground, bb(3)],
            anchors: [[-3.0, 3.0], [0.0, 0.0]],
            stiffness: 10.0,
            rest_length: 0.2,
        },
    ];
    PlanarModel::new([0.0, -9.81], bodies, joints, contacts, forces).unwrap()
}

#[test]
fn islands_split_the_bodies_no_joint_or_spring_links_and_keep_their_instants() {
    let model = archipelago();
    let islands = model.islands().unwrap();
    let bodies: Vec<Vec<usize>> = islands.iter().map(|i| i.bodies.clone()).collect();
    assert_eq!(bodies, vec![vec![0, 2], vec![1, 4], vec![3]]);
    assert_eq!(islands[0].contacts, vec![0, 2]);
    assert_eq!(islands[1].contacts, vec![1]);
    assert!(islands[2].contacts.is_empty());
    // The whole's layout: a 0..3, p 3..5, b 5..8, lone 8..10, r 10..13.
    assert_eq!(islands[0].q, vec![0, 1, 2, 5, 6, 7]);
    assert_eq!(islands[1].q, vec![3, 4, 10, 11, 12]);
    assert_eq!(islands[2].q, vec![8, 9]);
    let (mut q, mut v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    model.initial_state(&mut q, &mut v);
    let closed = vec![ContactState::slide(1.0); 3];
    let (whole, _) = model.build_instant(0.0, &q, &v, &closed).unwrap();
    let mut energy = 0.0;
    for island in &islands {
        let m = &island.model;
        let (mut iq, mut iv) = (vec![0.0; m.nq()], vec![0.0; m.nv()]);
        m.initial_state(&mut iq, &mut iv);
        for (k, &g) in island.q.iter().enumerate() {
            assert_eq!(iq[k], q[g]);
            assert_eq!(iv[k], v[island.v[k]]);
        }
        energy += m.energy(0.0, &iq, &iv);
        // The same applied forces, coordinate by coordinate, and the same
        // gaps and contact velocities.
        let modes = vec![ContactState::slide(1.0); m.contacts()];
        let (part, _) = m.build_instant(0.0, &iq, &iv, &modes).unwrap();
        for (k, &g) in island.v.iter().enumerate() {
            assert!((part.force()[k] - whole.force()[g]).abs() < 1e-12);
        }
        for (k, &g) in island.contacts.iter().enumerate() {
            assert_eq!(m.contact_name(k), model.contact_name(g));
            assert_eq!(m.gap(k, &iq), model.gap(g, &q));
            assert_eq!(
                m.contact_velocity(k, &iq, &iv),
                model.contact_velocity(g, &q, &v)
            );
        }
    }
    let whole_energy = model.energy(0.0, &q, &v);
    assert!((energy - whole_energy).abs() < 1e-12 * whole_energy.abs());
}

#[test]
fn a_linked_model_is_one_island() {
    let islands = zoo().islands().unwrap();
    assert_eq!(islands.len(), 1);
    assert_eq!(islands[0].q, (0..zoo().nq()).collect::<Vec<_>>());
}

/// The velocity-level rows of a contact between two shapes give the
/// relative velocity of the contact point: finite differences of the
/// point's position carried by each body (a rigid one turning), along the
/// normal and the tangent `t = (n_y, -n_x)`; and a `[[contact]]` point's
/// rows its velocity from the contact frame.
#[test]
fn velocity_rows_give_the_relative_point_velocity() {
    let model = zoo();
    let (n, m) = (model.nv(), model.nq());
    let (mut q, mut v) = (vec![0.0; m], vec![0.0; n]);
    model.initial_state(&mut q, &mut v);
    let p = [0.6, 0.3];
    let normal = [0.6, 0.8];
    // Where body `b`'s material point at `p` (now) is after `h`.
    let carried = |b: usize, h: f64| -> [f64; 2] {
        let o = model.offset(b);
        let r = [p[0] - q[o], p[1] - q[o + 1]];
        let rigid = model.body_list()[b].is_rigid();
        let turn = if rigid { h * v[o + 2] } else { 0.0 };
        let (s, c) = turn.sin_cos();
        [
            q[o] + h * v[o] + c * r[0] - s * r[1],
            q[o + 1] + h * v[o + 1] + s * r[0] + c * r[1],
        ]
    };
    let h = 1e-6;
    let rate = |b: usize| {
        let (a, z) = (carried(b, h), carried(b, -h));
        [(a[0] - z[0]) / (2.0 * h), (a[1] - z[1]) / (2.0 * h)]
    };
    let t = [normal[1], -normal[0]];
    let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
    for (a, b) in [
        (Some(0), Some(1)),
        (None, Some(3)),
        (Some(2), None),
        (Some(3), Some(0)),
    ] {
        let rows = model.contact_rows(&q, a, b, p, normal);
        let (un, ut) = rows.velocity(&v);
        let va = a.map_or([0.0; 2], rate);
        let vb = b.map_or([0.0; 2], rate);
        let rel = [vb[0] - va[0], vb[1] - va[1]];
        assert!((un - dot(rel, normal)).abs() < 1e-8, "{a:?} {b:?}");
        assert!((ut - dot(rel, t)).abs() < 1e-8, "{a:?} {b:?}");
        assert!(rows.cols[..rows.len].windows(2).all(|w| w[0] < w[1]));
    }
    assert!(model.contacts() >= 2);
    for k in 0..model.contacts() {
        let (gap, rows) = model.point_contact_rows(k, &q).unwrap();
        assert_eq!(gap, model.gap(k, &q));
        let (un, ut) = rows.velocity(&v);
        let (gn, vt) = model.contact_velocity(k, &q, &v);
        assert!(
            (un - gn).abs() < 1e-14 && (ut - vt).abs() < 1e-14,
            "contact {k}"
        );
    }
}

/// Shapes and surfaces are checked with the key at fault: a bad size, a
/// half-plane on a moving body, a negative friction, a restitution above
/// one, a fixed body named as a moving one.
#[test]
fn shapes_and_surfaces_name_their_key() {
    let key = |b: Body| match PlanarModel::new([0.0, -9.81], vec![b], vec![], vec![], vec![]) {
        Err(ModelError::Invalid { key, .. }) => key,
        other => panic!("{other:?}"),
    };
    let body = || Body::rigid("b", 1.0, 0.1);
    assert_eq!(
        key(body().with_shape(Shape::Circle { radius: -1.0 })),
        "body[0].shape.radius"
    );
    assert_eq!(
        key(body().with_shape(Shape::HalfPlane { normal: [0.0, 1.0] })),
        "body[0].shape"
    );
    assert_eq!(key(body().with_surface(-0.1, 0.0)), "body[0].friction");
    assert_eq!(key(body().with_surface(0.1, 1.5)), "body[0].restitution");
    let model = PlanarModel::new([0.0, -9.81], vec![body()], vec![], vec![], vec![]).unwrap();
    let floor = FixedBody::new("b", Shape::HalfPlane { normal: [0.0, 1.0] });
    match model.with_fixed(vec![floor]) {
        Err(ModelError::Invalid { key, .. }) => assert_eq!(key, "body[1].name"),
        other => panic!("{other:?}"),
    }
}
