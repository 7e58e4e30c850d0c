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
    let contact = |name: &str, body, point, surface| Contact {
        name: name.into(),
        body,
        point,
        surface,
        friction: 0.4,
        viscous: 0.0,
        restitution: 0.0,
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
    let modes = vec![ContactMode::Slide { slip: 1.0 }; m.contacts()];
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
    let modes = vec![ContactMode::Slide { slip: 1.0 }; m.contacts()];
    let (instant, _) = m.build_instant(0.0, &q, &v, &modes).unwrap();
    let a: Vec<f64> = (0..n)
        .map(|i| ((i * 7 + 3) % 11) as f64 * 0.37 - 1.5)
        .collect();
    let path = |s: f64| -> Vec<f64> {
        (0..n)
            .map(|i| q[i] + s * v[i] + 0.5 * s * s * a[i])
            .collect()
    };
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
    let modes = vec![ContactMode::Stick; m.contacts()];
    let (instant, layout) = m.build_instant(0.0, &q, &v, &modes).unwrap();
    let a: Vec<f64> = (0..n)
        .map(|i| ((i * 5 + 1) % 7) as f64 * 0.41 - 1.2)
        .collect();
    let h = 1e-5;
    let state = |s: f64| -> (Vec<f64>, Vec<f64>) {
        (
            (0..n)
                .map(|i| q[i] + s * v[i] + 0.5 * s * s * a[i])
                .collect(),
            (0..n).map(|i| v[i] + s * a[i]).collect(),
        )
    };
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
        ContactMode::Stick,
        ContactMode::Slide { slip: -1.0 },
        ContactMode::Open,
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
        ContactMode::Stick,
        ContactMode::Slide { slip: 1.0 },
        ContactMode::Open,
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
        .update_instant(0.0, &q2, &v2, &[ContactMode::Open; 3], &mut instant)
        .is_err());
    assert!(m
        .update_instant(0.0, &q2, &v2, &[ContactMode::Open; 2], &mut instant)
        .is_err());
    let mut bad = q2.clone();
    bad[0] = f64::NAN;
    assert!(m
        .update_instant(0.0, &bad, &v2, &modes2, &mut instant)
        .is_err());
}

/// Springs, dampers and viscous friction do the work their potentials and
/// dissipation say: `Q . v` of a spring is `-dV/dt`.
#[test]
fn spring_force_is_minus_the_gradient_of_its_energy() {
    let bodies = vec![
        Body::rigid("a", 2.0, 0.3)
            .at([0.1, 0.9])
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
    let m = PlanarModel::new([0.0, -9.81], bodies, vec![], vec![], forces).unwrap();
    let n = m.nv();
    let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
    m.initial_state(&mut q, &mut v);
    let mut f = vec![0.0; n];
    m.write_force(&q, &v, &[], &mut f).unwrap();
    let h = 1e-6;
    let qp: Vec<f64> = (0..n).map(|i| q[i] + h * v[i]).collect();
    let qm: Vec<f64> = (0..n).map(|i| q[i] - h * v[i]).collect();
    let zero = vec![0.0; n];
    let dv = (m.energy(0.0, &qp, &zero) - m.energy(0.0, &qm, &zero)) / (2.0 * h);
    let power: f64 = f.iter().zip(&v).map(|(a, b)| a * b).sum();
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
