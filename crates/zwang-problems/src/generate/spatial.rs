//! Spatial rigid bodies (cubes) and their contacts, built into velocity
//! problems the way a time stepper does (`M`, `f = M (v + h g)`, three
//! rows per contact), for tests and benchmarks whose physics is known:
//! a cube on an incline, stacks, random piles.

use sprs::CsMat;

use zwang_contact::{BoundedRows, ContactRows, VelocityProblem};

/// `a x b`.
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// A cube of side `2 a` and mass `m` at `centre`, its six velocities
/// `(v, omega)` (world frame) the coordinates `6 b .. 6 b + 6`.
#[derive(Debug, Clone, Copy)]
pub struct Cube {
    /// Mass.
    pub m: f64,
    /// Half the side.
    pub a: f64,
    /// Centre.
    pub centre: [f64; 3],
}

impl Cube {
    /// The moment of inertia about any axis through the centre.
    pub fn inertia(&self) -> f64 {
        self.m * (2.0 * self.a).powi(2) / 6.0
    }
}

/// Cubes, their initial velocities, gravity, and contacts: each on a
/// floor (`z = 0`, the body above) or between two cubes (the first
/// below), at a world point, normal `e_z`, tangents `e_x`, `e_y`.
#[derive(Debug, Clone)]
pub struct World {
    /// The cubes.
    pub cubes: Vec<Cube>,
    /// Their velocities, six each.
    pub velocity: Vec<f64>,
    /// Gravity.
    pub gravity: [f64; 3],
    /// The contacts: the body below (`None`: the floor), the body above,
    /// the world point, the friction coefficient.
    pub contacts: Vec<(Option<usize>, usize, [f64; 3], f64)>,
    /// The time step.
    pub h: f64,
}

impl World {
    /// No cubes yet.
    pub fn new(gravity: [f64; 3], h: f64) -> World {
        World {
            cubes: Vec::new(),
            velocity: Vec::new(),
            gravity,
            contacts: Vec::new(),
            h,
        }
    }

    /// A cube resting on `below` (`None`: the floor) on its four bottom
    /// corners, with friction `mu`.
    pub fn stack(&mut self, cube: Cube, below: Option<usize>, mu: f64) -> usize {
        let b = self.cubes.len();
        self.cubes.push(cube);
        self.velocity.extend([0.0; 6]);
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let c = cube.centre;
            let p = [c[0] + sx * cube.a, c[1] + sy * cube.a, c[2] - cube.a];
            self.contacts.push((below, b, p, mu));
        }
        b
    }

    /// The rows of body `b` at world point `p` along the three axes.
    fn entries(&self, b: usize, p: [f64; 3], sign: f64) -> Vec<(usize, [f64; 3])> {
        let c = self.cubes[b].centre;
        let arm = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
        let axes = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let moments = axes.map(|d| cross(arm, d));
        let mut out = Vec::new();
        for j in 0..3 {
            out.push((6 * b + j, [0, 1, 2].map(|row| sign * axes[row][j])));
            out.push((6 * b + 3 + j, [0, 1, 2].map(|row| sign * moments[row][j])));
        }
        out
    }

    /// The step's problem in velocities (`b = 0`).
    pub fn problem(&self) -> VelocityProblem {
        let n = 6 * self.cubes.len();
        let mut mass = Vec::new();
        for c in &self.cubes {
            mass.extend([c.m, c.m, c.m]);
            mass.extend([c.inertia(); 3]);
        }
        let mut force = Vec::new();
        for (b, c) in self.cubes.iter().enumerate() {
            for j in 0..3 {
                force.push(c.m * (self.velocity[6 * b + j] + self.h * self.gravity[j]));
            }
            for j in 3..6 {
                force.push(c.inertia() * self.velocity[6 * b + j]);
            }
        }
        let mut rows = ContactRows::new(3);
        for &(below, above, p, _) in &self.contacts {
            let mut entries = self.entries(above, p, 1.0);
            if let Some(below) = below {
                entries.extend(self.entries(below, p, -1.0));
            }
            rows.push(entries);
        }
        let k = self.contacts.len();
        VelocityProblem {
            mass: CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), mass),
            force,
            rows,
            b: vec![0.0; 3 * k],
            mu: self.contacts.iter().map(|c| c.3).collect(),
            bounded: BoundedRows::default(),
        }
    }
}
