//! Spatial inertias and the cross products of spatial vectors, in world
//! axes about the world origin (Featherstone 2008, ch. 2).

use zwang_core::rotation::{apply, cross};

/// A rigid body's (or a composite's) spatial inertia about the world
/// origin: its mass, first moment `m c` and rotational inertia about the
/// origin. Composites add entry by entry.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Inertia {
    pub mass: f64,
    pub moment: [f64; 3],
    pub rotational: [[f64; 3]; 3],
}

impl Inertia {
    /// The inertia of a body of mass `mass` with its centre at `com`
    /// (world) and inertia `inertia` about it in body axes turned by `rot`.
    pub fn of_body(mass: f64, com: [f64; 3], rot: &[[f64; 3]; 3], inertia: &[[f64; 3]; 3]) -> Self {
        // R I R^T, then the parallel axes: + m (|c|^2 1 - c c^T).
        let mut turned = [[0.0; 3]; 3];
        for a in 0..3 {
            let row = apply(inertia, rot[a]);
            let ra = apply(rot, row);
            turned[a] = ra;
        }
        let cc = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
        for a in 0..3 {
            for b in 0..3 {
                let delta = if a == b { cc } else { 0.0 };
                turned[a][b] += mass * (delta - com[a] * com[b]);
            }
        }
        Inertia {
            mass,
            moment: com.map(|x| mass * x),
            rotational: turned,
        }
    }

    /// `self += other`.
    pub fn add(&mut self, other: &Inertia) {
        self.mass += other.mass;
        for a in 0..3 {
            self.moment[a] += other.moment[a];
            for b in 0..3 {
                self.rotational[a][b] += other.rotational[a][b];
            }
        }
    }

    /// The momentum `[L, p]` (about the origin) of the motion `[w, v]`:
    /// `p = m v + w x h`, `L = I w + h x v`.
    pub fn apply(&self, m: &[f64; 6]) -> [f64; 6] {
        let w = [m[0], m[1], m[2]];
        let v = [m[3], m[4], m[5]];
        let iw = apply(&self.rotational, w);
        let hv = cross(self.moment, v);
        let wh = cross(w, self.moment);
        [
            iw[0] + hv[0],
            iw[1] + hv[1],
            iw[2] + hv[2],
            self.mass * v[0] + wh[0],
            self.mass * v[1] + wh[1],
            self.mass * v[2] + wh[2],
        ]
    }
}

/// The motion cross product `a x m`: the rate of a motion `m` carried by a
/// frame moving at `a`.
pub(crate) fn cross_motion(a: &[f64; 6], m: &[f64; 6]) -> [f64; 6] {
    let (w, v) = ([a[0], a[1], a[2]], [a[3], a[4], a[5]]);
    let (w2, v2) = ([m[0], m[1], m[2]], [m[3], m[4], m[5]]);
    let top = cross(w, w2);
    let (x, y) = (cross(w, v2), cross(v, w2));
    [
        top[0],
        top[1],
        top[2],
        x[0] + y[0],
        x[1] + y[1],
        x[2] + y[2],
    ]
}

/// The force cross product `a x* f`: the rate of a force (or momentum) `f`
/// carried by a frame moving at `a`.
pub(crate) fn cross_force(a: &[f64; 6], f: &[f64; 6]) -> [f64; 6] {
    let (w, v) = ([a[0], a[1], a[2]], [a[3], a[4], a[5]]);
    let (n, f) = ([f[0], f[1], f[2]], [f[3], f[4], f[5]]);
    let (x, y) = (cross(w, n), cross(v, f));
    let bottom = cross(w, f);
    [
        x[0] + y[0],
        x[1] + y[1],
        x[2] + y[2],
        bottom[0],
        bottom[1],
        bottom[2],
    ]
}
