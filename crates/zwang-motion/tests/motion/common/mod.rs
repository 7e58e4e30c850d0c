//! What the spatial joint tests build their models of.
#![allow(dead_code)] // each test module uses part of it

use zwang_geometry::spatial::{Pose, Shape};
use zwang_model::articulated::Geom;
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

/// A geom of a kinematic tree: `shape` at `position` on `body` (`None`:
/// fixed), unturned, colliding with every other.
pub fn geom(
    name: &str,
    body: Option<usize>,
    shape: Shape,
    position: [f64; 3],
    friction: f64,
) -> Geom {
    Geom {
        name: name.into(),
        body,
        pose: Pose {
            position,
            orientation: [1.0, 0.0, 0.0, 0.0],
        },
        shape,
        friction,
        condim: 3,
        contype: 1,
        conaffinity: 1,
    }
}
