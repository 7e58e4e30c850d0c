//! What the spatial joint tests build their models of.
#![allow(dead_code)] // each test module uses part of it

use zwang_model::spatial::{SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind};

/// A rigid body of `mass` with principal `moments` along its body axes,
/// at `position`, at rest.
pub fn rigid(name: &str, mass: f64, moments: [f64; 3], position: [f64; 3]) -> SpatialBody {
    let mut b = SpatialBody::new(
        name,
        SpatialKind::Rigid {
            mass,
            inertia: Some([
                [moments[0], 0.0, 0.0],
                [0.0, moments[1], 0.0],
                [0.0, 0.0, moments[2]],
            ]),
        },
    );
    b.position = position;
    b
}

pub fn joint(
    kind: SpatialJointKind,
    bodies: [Option<usize>; 2],
    anchors: [[f64; 3]; 2],
) -> SpatialJoint {
    SpatialJoint {
        kind,
        bodies,
        anchors,
    }
}
