use super::rotation::{apply, matrix, normalized};
use super::*;

fn cube(name: &str, mass: f64, half: f64) -> SpatialBody {
    let mut b = SpatialBody::new(
        name,
        SpatialKind::Rigid {
            mass,
            inertia: None,
        },
    );
    b.shape = Some(Shape::Box {
        half_extents: [half; 3],
    });
    b
}

/// A body with products of inertia (its principal frame is turned from
/// its body frame), turned and spinning.
fn lopsided() -> SpatialBody {
    let mut b = SpatialBody::new(
        "lopsided",
        SpatialKind::Rigid {
            mass: 2.0,
            inertia: Some([[0.5, 0.1, -0.05], [0.1, 0.3, 0.02], [-0.05, 0.02, 0.2]]),
        },
    );
    b.orientation = normalized([0.9, 0.2, -0.3, 0.1]).unwrap();
    b.position = [0.3, -0.2, 1.0];
    b.velocity = [0.5, 0.0, -1.0];
    b.angular_velocity = [1.0, -2.0, 3.0];
    b
}

#[test]
fn the_state_users_see_is_the_state_they_gave() {
    let model = SpatialModel::new([0.0, 0.0, -9.81], vec![lopsided()], vec![]).unwrap();
    let (mut q, mut v) = (vec![0.0; 7], vec![0.0; 6]);
    model.initial_state(&mut q, &mut v);
    let s = model.body_state(0, &q, &v);
    let b = &model.bodies()[0];
    let same = (0..4).all(|i| (s.orientation[i] - b.orientation[i]).abs() < 1e-14)
        || (0..4).all(|i| (s.orientation[i] + b.orientation[i]).abs() < 1e-14);
    assert!(same, "{:?} against {:?}", s.orientation, b.orientation);
    for j in 0..3 {
        assert!((s.angular_velocity[j] - b.angular_velocity[j]).abs() < 1e-14);
        assert_eq!(s.position[j], b.position[j]);
        assert_eq!(s.velocity[j], b.velocity[j]);
    }
    // M is diagonal: the tensor's eigenvalues.
    let mut d = vec![0.0; 6];
    model.mass_diagonal(&mut d);
    let trace: f64 = d[3..].iter().sum();
    assert!((trace - 1.0).abs() < 1e-14);
    // The kinetic energy is the body frame's 1/2 w . I w.
    let t = [[0.5, 0.1, -0.05], [0.1, 0.3, 0.02], [-0.05, 0.02, 0.2]];
    let r = matrix(b.orientation);
    let wb = super::rotation::apply_transpose(&r, b.angular_velocity);
    let iw = t.map(|row| row[0] * wb[0] + row[1] * wb[1] + row[2] * wb[2]);
    let rotational = 0.5 * (0..3).map(|j| wb[j] * iw[j]).sum::<f64>();
    let translational = 0.5 * 2.0 * (0.25 + 1.0);
    let potential = 2.0 * 9.81 * 1.0;
    let e = model.energy(&q, &v);
    assert!(
        (e - (rotational + translational + potential)).abs() < 1e-12,
        "{e}"
    );
}

#[test]
fn point_rows_are_the_points_velocity() {
    // A point fixed in the body: its rows times v against the difference
    // of its world positions over a tiny step.
    let model = SpatialModel::new([0.0; 3], vec![lopsided()], vec![]).unwrap();
    let (mut q, mut v) = (vec![0.0; 7], vec![0.0; 6]);
    model.initial_state(&mut q, &mut v);
    let local = [0.1, -0.2, 0.05];
    let world = |q: &[f64]| {
        let s = model.body_state(0, q, &v);
        let p = apply(&matrix(s.orientation), local);
        [0, 1, 2].map(|j| s.position[j] + p[j])
    };
    let p0 = world(&q);
    let frame = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let mut rows = Vec::new();
    model.point_rows(&q, 0, p0, &frame, 1.0, &mut rows);
    let mut u = [0.0; 3];
    for (col, values) in &rows {
        for k in 0..3 {
            u[k] += values[k] * v[*col];
        }
    }
    let h = 1e-7;
    let (mut qp, mut qm) = (q.clone(), q.clone());
    model.integrate(&mut qp, &v, h);
    model.integrate(&mut qm, &v, -h);
    let (pp, pm) = (world(&qp), world(&qm));
    let velocity = [0, 1, 2].map(|j| (pp[j] - pm[j]) / (2.0 * h));
    for k in 0..3 {
        let along = (0..3).map(|j| frame[k][j] * velocity[j]).sum::<f64>();
        assert!((u[k] - along).abs() < 1e-7, "{k}: {} against {along}", u[k]);
    }
}

#[test]
fn a_free_asymmetric_body_keeps_its_angular_momentum() {
    // Torque-free: L = R I w is constant in the world; the explicit
    // gyroscopic step keeps it to first order in h.
    let model = SpatialModel::new([0.0; 3], vec![lopsided()], vec![]).unwrap();
    let (mut q, mut v) = (vec![0.0; 7], vec![0.0; 6]);
    model.initial_state(&mut q, &mut v);
    let mut d = vec![0.0; 6];
    model.mass_diagonal(&mut d);
    let momentum = |q: &[f64], v: &[f64]| {
        let r = matrix(q[3..7].try_into().unwrap());
        apply(&r, [0, 1, 2].map(|j| d[3 + j] * v[3 + j]))
    };
    let l0 = momentum(&q, &v);
    let drift = |h: f64| {
        let (mut q, mut v) = (q.clone(), v.clone());
        let mut next = vec![0.0; 6];
        for _ in 0..(1.0 / h).round() as usize {
            model.free_velocity(&q, &v, h, &mut next);
            v.copy_from_slice(&next);
            model.integrate(&mut q, &v, h);
        }
        let l = momentum(&q, &v);
        (0..3).map(|j| (l[j] - l0[j]).abs()).fold(0.0, f64::max)
    };
    let (coarse, fine) = (drift(1e-3), drift(1e-4));
    assert!(fine < 2e-3, "{fine}");
    // First order: ten times smaller steps, about ten times less drift.
    assert!(coarse / fine > 5.0, "{coarse} / {fine}");
}

#[test]
fn bad_bodies_name_their_key() {
    let check = |bodies: Vec<SpatialBody>, key: &str| {
        let err = SpatialModel::new([0.0; 3], bodies, vec![]).unwrap_err();
        assert!(err.to_string().starts_with(key), "{err}");
    };
    check(vec![cube("a", 0.0, 0.1)], "body[0].mass");
    check(vec![cube("a", 1.0, -0.1)], "body[0].shape.half_extents");
    let mut zero = cube("a", 1.0, 0.1);
    zero.orientation = [0.0; 4];
    check(vec![zero], "body[0].orientation");
    let mut half = cube("a", 1.0, 0.1);
    half.shape = Some(Shape::Halfspace {
        normal: [0.0, 0.0, 1.0],
    });
    check(vec![half], "body[0].shape");
    let bare = SpatialBody::new(
        "a",
        SpatialKind::Rigid {
            mass: 1.0,
            inertia: None,
        },
    );
    check(vec![cube("b", 1.0, 0.1), bare], "body[1].inertia");
    let indefinite = SpatialBody::new(
        "a",
        SpatialKind::Rigid {
            mass: 1.0,
            inertia: Some([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]),
        },
    );
    check(vec![indefinite], "body[0].inertia");
    let mut sticky = cube("a", 1.0, 0.1);
    sticky.restitution = 2.0;
    check(vec![sticky], "body[0].restitution");
    let err = SpatialModel::new(
        [0.0; 3],
        vec![cube("a", 1.0, 0.1)],
        vec![SpatialForce {
            body: 3,
            force: [0.0; 3],
            torque: [0.0; 3],
        }],
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("force[0].body"), "{err}");
    // A turned body frame is no error, and its principal frame is its own
    // for a cube.
    let mut turned = cube("a", 1.0, 0.1);
    turned.orientation = [0.0, 0.0, 0.0, 2.0];
    let model = SpatialModel::new([0.0; 3], vec![turned], vec![]).unwrap();
    assert_eq!(model.bodies()[0].orientation, [0.0, 0.0, 0.0, 1.0]);
}
