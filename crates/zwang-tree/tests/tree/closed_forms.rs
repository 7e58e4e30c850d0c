//! `M` and `c` of small trees against their closed forms, written here from
//! the pendulums' geometry.

use zwang_tree::{Body, Joint, Tree};

const G: f64 = 9.81;

/// A body hinged about `y` through an anchor off its origin, with its
/// centre of mass off the axis and a full inertia tensor: `M = I_yy + m
/// |r|^2 + armature` (`r` from the axis to the centre, perpendicular to
/// `y`) and `c = dV/dq = -m g (r_x cos q + r_z sin q)`, whatever the speed.
#[test]
fn hinge_pendulum() {
    let mut body = Body::new("bob", None);
    body.position = [0.3, -0.2, 1.0];
    body.mass = 1.7;
    body.com = [0.1, 0.4, -0.5];
    body.inertia = [[0.2, 0.01, 0.03], [0.01, 0.3, 0.02], [0.03, 0.02, 0.25]];
    let anchor = [0.0, 0.0, 0.2];
    body.joints
        .push(Joint::hinge("pin", [0.0, 1.0, 0.0], anchor).with_armature(0.05));
    let tree = Tree::new(vec![body], [0.0, 0.0, -G]).unwrap();
    let (rx, rz) = (0.1 - anchor[0], -0.5 - anchor[2]);
    let mut ws = tree.workspace();
    for (q, v) in [(0.0, 0.0), (0.4, 3.0), (-2.0, -1.0), (3.0, 10.0)] {
        tree.positions(&mut ws, &[q]).unwrap();
        tree.velocities(&mut ws, &[v]).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let mut c = [0.0];
        tree.bias(&mut ws, &mut c).unwrap();
        let m = 0.3 + 1.7 * (rx * rx + rz * rz) + 0.05;
        let bias = -1.7 * G * (rx * q.cos() + rz * q.sin());
        assert!(
            (ws.mass()[0] - m).abs() < 1e-14,
            "{} against {m}",
            ws.mass()[0]
        );
        assert!((c[0] - bias).abs() < 1e-13, "{} against {bias}", c[0]);
    }
}

/// Two uniform rods (masses `m1`, `m2`, lengths `l1`, `l2`) hanging along
/// `-z` from hinges about `y`, the second at the end of the first; `q1`
/// the first's angle, `q2` the second's relative to it:
///
/// ```text
/// M11 = I1 + m1 l1^2/4 + I2 + m2 (l1^2 + l2^2/4 + l1 l2 cos q2)
/// M12 = I2 + m2 (l2^2/4 + l1 l2/2 cos q2),  M22 = I2 + m2 l2^2/4
/// c1 = -h sin q2 (2 v1 v2 + v2^2) + g ((m1/2 + m2) l1 sin q1 + m2 l2/2 sin(q1 + q2))
/// c2 = h sin q2 v1^2 + g m2 l2/2 sin(q1 + q2),  h = m2 l1 l2 / 2
/// ```
#[test]
fn double_pendulum_of_two_rods() {
    let (m1, l1, m2, l2) = (1.3, 0.9, 0.7, 1.4);
    let rod = |name: &str, parent, top: f64, m: f64, l: f64| {
        let mut b = Body::new(name, parent);
        b.position = [0.0, 0.0, top];
        b.mass = m;
        b.com = [0.0, 0.0, -l / 2.0];
        let i = m * l * l / 12.0;
        b.inertia = [[i, 0.0, 0.0], [0.0, i, 0.0], [0.0, 0.0, 0.0]];
        b.joints.push(Joint::hinge(name, [0.0, 1.0, 0.0], [0.0; 3]));
        b
    };
    let tree = Tree::new(
        vec![
            rod("upper", None, 0.0, m1, l1),
            rod("lower", Some(0), -l1, m2, l2),
        ],
        [0.0, 0.0, -G],
    )
    .unwrap();
    let (i1, i2) = (m1 * l1 * l1 / 12.0, m2 * l2 * l2 / 12.0);
    let h = m2 * l1 * l2 / 2.0;
    let mut ws = tree.workspace();
    for (q1, q2, v1, v2) in [
        (0.0, 0.0, 0.0, 0.0),
        (0.3, 0.7, 1.0, -2.0),
        (-1.2, 2.5, -3.0, 0.5),
        (2.9, -0.4, 4.0, 4.0),
    ] {
        tree.positions(&mut ws, &[q1, q2]).unwrap();
        tree.velocities(&mut ws, &[v1, v2]).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let mut c = [0.0; 2];
        tree.bias(&mut ws, &mut c).unwrap();
        let m11 =
            i1 + m1 * l1 * l1 / 4.0 + i2 + m2 * (l1 * l1 + l2 * l2 / 4.0 + l1 * l2 * q2.cos());
        let m12 = i2 + m2 * (l2 * l2 / 4.0 + l1 * l2 / 2.0 * q2.cos());
        let m22 = i2 + m2 * l2 * l2 / 4.0;
        let c1 = -h * q2.sin() * (2.0 * v1 * v2 + v2 * v2)
            + G * ((m1 / 2.0 + m2) * l1 * q1.sin() + m2 * l2 / 2.0 * (q1 + q2).sin());
        let c2 = h * q2.sin() * v1 * v1 + G * m2 * l2 / 2.0 * (q1 + q2).sin();
        let m = ws.mass();
        for (got, want) in [
            (tree.entry(m, 0, 0), m11),
            (tree.entry(m, 0, 1), m12),
            (tree.entry(m, 1, 0), m12),
            (tree.entry(m, 1, 1), m22),
            (c[0], c1),
            (c[1], c2),
        ] {
            assert!(
                (got - want).abs() < 1e-13,
                "at {q1} {q2} {v1} {v2}: {got} against {want}"
            );
        }
    }
}

/// A hinge and a slide with references: `qpos0` holds them, the bodies sit
/// at their given frames there, and a hinge turned by `q - ref` moves a
/// point as the rotation by that angle about the axis says.
#[test]
fn references_set_qpos0_and_measure_from_it() {
    let mut arm = Body::new("arm", None);
    arm.position = [1.0, 0.0, 0.5];
    arm.mass = 1.0;
    arm.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
    arm.joints
        .push(Joint::hinge("pin", [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]).with_reference(0.7));
    let mut slider = Body::new("slider", Some(0));
    slider.position = [0.5, 0.0, 0.0];
    slider.mass = 1.0;
    slider.inertia = arm.inertia;
    slider
        .joints
        .push(Joint::slide("rail", [1.0, 0.0, 0.0]).with_reference(-0.2));
    let tree = Tree::new(vec![arm, slider], [0.0, 0.0, -G]).unwrap();
    assert_eq!(tree.qpos0(), &[0.7, -0.2]);
    assert_eq!((tree.joint_qpos(1), tree.joint_dof(1)), (Some(1), Some(1)));
    assert_eq!(tree.joint_qpos(2), None);
    let mut ws = tree.workspace();
    tree.positions(&mut ws, tree.qpos0()).unwrap();
    let (p, q) = tree.pose(&ws, 1).unwrap();
    assert_eq!(p, [1.5, 0.0, 0.5]);
    assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    // Turned by 0.3 past the reference and slid 0.1 past its own: the
    // slider's origin is 1.6 from the axis at (0, 0, 0.5), at angle 0.3.
    tree.positions(&mut ws, &[1.0, -0.1]).unwrap();
    let (p, _) = tree.pose(&ws, 1).unwrap();
    let want = [1.6 * 0.3f64.cos(), 1.6 * 0.3f64.sin(), 0.5];
    assert!((0..3).all(|i| (p[i] - want[i]).abs() < 1e-15), "{p:?}");
}
