//! Bad input refused, each with its one typed error naming the body or
//! joint; and calls out of order or with wrong lengths refused the same
//! way (no panic).

use zwang_tree::{Body, Joint, Tree, TreeError};

fn good() -> Body {
    let mut b = Body::new("arm", None);
    b.mass = 1.0;
    b.inertia = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
    b.joints
        .push(Joint::hinge("elbow", [0.0, 0.0, 1.0], [0.0; 3]));
    b
}

fn refused(bodies: Vec<Body>) -> TreeError {
    let e = Tree::new(bodies, [0.0, 0.0, -9.81]).unwrap_err();
    assert!(!e.to_string().is_empty());
    e
}

#[test]
fn bad_trees_are_refused_one_error_each() {
    let mut child = good();
    child.name = "hand".into();
    child.parent = Some(1);
    assert!(
        matches!(refused(vec![good(), child]), TreeError::ParentAfterChild { body, index: 1, parent: 1 } if body == "hand")
    );

    let mut b = good();
    b.mass = -1.0;
    assert!(matches!(refused(vec![b]), TreeError::Mass { body, .. } if body == "arm"));

    let mut b = good();
    b.inertia[2][2] = -0.1;
    let e = refused(vec![b]);
    assert!(
        matches!(&e, TreeError::Inertia { body, why: "not positive semidefinite" } if body == "arm"),
        "{e}"
    );

    // Principal minors: diagonal fine, a 2 x 2 minor negative.
    let mut b = good();
    b.inertia = [[0.1, 0.2, 0.0], [0.2, 0.1, 0.0], [0.0, 0.0, 0.1]];
    assert!(matches!(
        refused(vec![b]),
        TreeError::Inertia {
            why: "not positive semidefinite",
            ..
        }
    ));

    let mut b = good();
    b.inertia[0][1] = 0.01;
    assert!(matches!(
        refused(vec![b]),
        TreeError::Inertia {
            why: "not symmetric",
            ..
        }
    ));

    let mut b = good();
    b.orientation = [1.0, 0.1, 0.0, 0.0];
    assert!(matches!(
        refused(vec![b]),
        TreeError::Frame {
            what: "orientation",
            ..
        }
    ));

    let mut b = good();
    b.com[1] = f64::NAN;
    assert!(matches!(
        refused(vec![b]),
        TreeError::Frame { what: "com", .. }
    ));

    let mut b = good();
    b.joints[0] = Joint::hinge("elbow", [0.0, 0.0, 1.01], [0.0; 3]);
    let e = refused(vec![b]);
    assert!(
        matches!(&e, TreeError::Axis { body, joint, what: "axis" } if body == "arm" && joint == "elbow"),
        "{e}"
    );
    assert!(e.to_string().contains("elbow"));

    let mut b = good();
    b.joints[0] = Joint::slide("rail", [0.0, 0.0, 0.0]);
    assert!(matches!(refused(vec![b]), TreeError::Axis { joint, .. } if joint == "rail"));

    let mut b = good();
    b.joints[0] = Joint::ball("shoulder", [f64::INFINITY, 0.0, 0.0]);
    assert!(matches!(
        refused(vec![b]),
        TreeError::Axis { what: "anchor", .. }
    ));

    let mut b = good();
    b.joints[0].armature = -0.5;
    assert!(matches!(refused(vec![b]), TreeError::Armature { joint, .. } if joint == "elbow"));

    let mut b = good();
    b.joints.push(Joint::free("loose"));
    assert!(matches!(refused(vec![b]), TreeError::FreeJoint { joint, .. } if joint == "loose"));

    let mut child = good();
    child.parent = Some(0);
    child.joints = vec![Joint::free("loose")];
    assert!(matches!(
        refused(vec![good(), child]),
        TreeError::FreeJoint { .. }
    ));

    assert_eq!(
        Tree::new(vec![good()], [0.0, f64::NAN, 0.0]).unwrap_err(),
        TreeError::Gravity
    );

    // Round-off is not refused: a unit axis to 1e-12, normalized.
    let mut b = good();
    b.joints[0] = Joint::hinge("elbow", [0.0, 0.0, 1.0 + 1e-12], [0.0; 3]);
    assert!(Tree::new(vec![b], [0.0; 3]).is_ok());
}

#[test]
fn bad_calls_are_refused_one_error_each() {
    let mut ball = good();
    ball.name = "wrist".into();
    ball.parent = Some(0);
    ball.joints = vec![Joint::ball("wrist", [0.0; 3])];
    let tree = Tree::new(vec![good(), ball], [0.0, 0.0, -9.81]).unwrap();
    let mut ws = tree.workspace();
    let mut c = vec![0.0; tree.nv()];

    // Out of order.
    assert!(matches!(
        tree.mass_matrix(&mut ws),
        Err(TreeError::Stage {
            needs: "positions",
            ..
        })
    ));
    assert!(matches!(
        tree.velocities(&mut ws, &[0.0; 4]),
        Err(TreeError::Stage { .. })
    ));
    assert!(matches!(
        tree.factor(&mut ws),
        Err(TreeError::Stage {
            needs: "mass_matrix",
            ..
        })
    ));
    assert!(matches!(
        tree.solve(&ws, &mut c),
        Err(TreeError::Stage {
            needs: "factor",
            ..
        })
    ));

    // Wrong lengths, zero quaternions, non-finite numbers, bad indices.
    assert!(matches!(
        tree.positions(&mut ws, &[0.0; 4]),
        Err(TreeError::Length {
            what: "qpos",
            expected: 5,
            got: 4
        })
    ));
    let e = tree
        .positions(&mut ws, &[0.1, 0.0, 0.0, 0.0, 0.0])
        .unwrap_err();
    assert!(
        matches!(&e, TreeError::Quaternion { joint } if joint == "wrist"),
        "{e}"
    );
    assert!(matches!(
        tree.positions(&mut ws, &[f64::NAN, 1.0, 0.0, 0.0, 0.0]),
        Err(TreeError::NotFinite {
            what: "qpos",
            index: 0
        })
    ));
    tree.positions(&mut ws, tree.qpos0()).unwrap();
    assert!(matches!(
        tree.bias(&mut ws, &mut c),
        Err(TreeError::Stage {
            needs: "velocities",
            ..
        })
    ));
    assert!(matches!(
        tree.velocities(&mut ws, &[0.0; 3]),
        Err(TreeError::Length { what: "qvel", .. })
    ));
    assert!(matches!(
        tree.pose(&ws, 2),
        Err(TreeError::Body {
            index: 2,
            bodies: 2
        })
    ));
    let mut jt = vec![0.0; 5];
    let mut jr = vec![0.0; 12];
    assert!(matches!(
        tree.point_jacobian(&ws, 1, [0.0; 3], &mut jt, &mut jr),
        Err(TreeError::Length {
            what: "translation",
            ..
        })
    ));
    let mut q = tree.qpos0().to_vec();
    assert!(matches!(
        tree.integrate(&mut q, &[0.0; 3], 0.1),
        Err(TreeError::Length { .. })
    ));
}

/// A massless end without armature has no inertia along its dof: the
/// factor says which.
#[test]
fn a_singular_mass_matrix_is_named() {
    let mut tip = Body::new("tip", Some(0));
    tip.joints.push(Joint::slide("feather", [1.0, 0.0, 0.0]));
    let tree = Tree::new(vec![good(), tip], [0.0; 3]).unwrap();
    let mut ws = tree.workspace();
    tree.positions(&mut ws, tree.qpos0()).unwrap();
    tree.mass_matrix(&mut ws).unwrap();
    let e = tree.factor(&mut ws).unwrap_err();
    assert!(
        matches!(&e, TreeError::NotPositive { dof: 1, joint, .. } if joint == "feather"),
        "{e}"
    );
}
