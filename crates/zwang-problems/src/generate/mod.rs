//! Planar rigid bodies and their contacts, built into local problems the way
//! a time stepper does (`W = J M^-1 J^T`, `q = J (v + h g)`), for tests and
//! benchmarks whose physics is known: a box on an incline, a stack, and
//! Coulomb's law checked from the data with arithmetic of its own.

pub mod spatial;

use sprs::{CsMat, TriMat};

use zwang_contact::{BoundedRows, ContactRows, LocalProblem, VelocityProblem};

/// Standard gravity.
pub const G: f64 = 9.81;

/// A rigid body in the plane: mass, moment of inertia, centre.
#[derive(Debug, Clone, Copy)]
pub struct Body {
    /// Mass.
    pub mass: f64,
    /// Moment of inertia about the centre.
    pub inertia: f64,
    /// Centre of mass.
    pub centre: [f64; 2],
}

impl Body {
    /// A box of `width` x `height` with its centre at `centre`.
    pub fn boxed(mass: f64, width: f64, height: f64, centre: [f64; 2]) -> Self {
        Body {
            mass,
            inertia: mass * (width * width + height * height) / 12.0,
            centre,
        }
    }
}

/// A contact of body `b` (on `a`, or on the ground when `a` is `None`) at
/// `point`, with the normal `normal` pointing from `a` into `b`.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    /// The body below (`None`: the ground).
    pub a: Option<usize>,
    /// The body above.
    pub b: usize,
    /// The contact point.
    pub point: [f64; 2],
    /// The unit normal, from `a` into `b`.
    pub normal: [f64; 2],
    /// The friction coefficient.
    pub mu: f64,
}

/// Bodies, contacts, and the state of one step.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The bodies.
    pub bodies: Vec<Body>,
    /// The contacts.
    pub contacts: Vec<Contact>,
    /// Velocities `(v_x, v_y, omega)` per body.
    pub velocity: Vec<[f64; 3]>,
    /// Applied force per unit mass `(a_x, a_y)` (gravity).
    pub gravity: [f64; 2],
    /// The time step.
    pub h: f64,
}

impl Scene {
    /// The contact Jacobian, two rows per contact (normal, then the tangent
    /// `(n_y, -n_x)`), three columns per body.
    pub fn jacobian(&self) -> CsMat<f64> {
        let mut j = TriMat::new((2 * self.contacts.len(), 3 * self.bodies.len()));
        for (i, c) in self.contacts.iter().enumerate() {
            let (n, t) = (c.normal, [c.normal[1], -c.normal[0]]);
            for (body, sign) in [(Some(c.b), 1.0), (c.a, -1.0)] {
                let Some(k) = body else { continue };
                let arm = [
                    c.point[0] - self.bodies[k].centre[0],
                    c.point[1] - self.bodies[k].centre[1],
                ];
                for (row, d) in [(2 * i, n), (2 * i + 1, t)] {
                    j.add_triplet(row, 3 * k, sign * d[0]);
                    j.add_triplet(row, 3 * k + 1, sign * d[1]);
                    j.add_triplet(row, 3 * k + 2, sign * (arm[0] * d[1] - arm[1] * d[0]));
                }
            }
        }
        j.to_csr()
    }

    /// `M^-1` as a diagonal.
    pub fn inverse_mass(&self) -> Vec<f64> {
        self.bodies
            .iter()
            .flat_map(|b| [1.0 / b.mass, 1.0 / b.mass, 1.0 / b.inertia])
            .collect()
    }

    /// The free velocity `v + h g` (the velocity without contact impulses).
    pub fn free_velocity(&self) -> Vec<f64> {
        self.velocity
            .iter()
            .flat_map(|v| {
                [
                    v[0] + self.h * self.gravity[0],
                    v[1] + self.h * self.gravity[1],
                    v[2],
                ]
            })
            .collect()
    }

    /// The step's local problem.
    pub fn problem(&self) -> LocalProblem {
        let j = self.jacobian();
        let minv = self.inverse_mass();
        let mut scaled = j.clone();
        for (mut row, _) in scaled.outer_iterator_mut().zip(0..) {
            for (col, v) in row.iter_mut() {
                *v *= minv[col];
            }
        }
        let jt = j.transpose_view().to_owned().to_csr();
        let w = (&scaled * &jt).to_csr();
        let vfree = self.free_velocity();
        let q = multiply(&j, &vfree);
        LocalProblem {
            dimension: 2,
            w,
            q,
            mu: self.contacts.iter().map(|c| c.mu).collect(),
        }
    }

    /// The step's problem in velocities (`M` diagonal, `f = M (v + h g)`,
    /// `b = 0`): the same problem as [`Scene::problem`] without `W`.
    pub fn velocity_problem(&self) -> VelocityProblem {
        let j = self.jacobian();
        let n = 3 * self.bodies.len();
        let mass: Vec<f64> = self.inverse_mass().iter().map(|m| 1.0 / m).collect();
        let force = self
            .free_velocity()
            .iter()
            .zip(&mass)
            .map(|(v, m)| m * v)
            .collect();
        let mut rows = ContactRows::default();
        for i in 0..self.contacts.len() {
            let (normal, tangent) = (j.outer_view(2 * i), j.outer_view(2 * i + 1));
            let (normal, tangent) = (normal.expect("a row"), tangent.expect("a row"));
            rows.push(
                normal
                    .iter()
                    .map(|(c, &x)| (c, [x, tangent.get(c).copied().unwrap_or(0.0)])),
            );
        }
        VelocityProblem {
            mass: CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), mass),
            force,
            rows,
            b: vec![0.0; 2 * self.contacts.len()],
            mu: self.contacts.iter().map(|c| c.mu).collect(),
            bounded: BoundedRows::default(),
        }
    }

    /// The velocities after the impulses `r`: `v + h g + M^-1 J^T r`.
    pub fn velocity_after(&self, r: &[f64]) -> Vec<f64> {
        let j = self.jacobian();
        let minv = self.inverse_mass();
        let mut v = self.free_velocity();
        for (row, vec) in j.outer_iterator().enumerate() {
            for (col, &x) in vec.iter() {
                v[col] += minv[col] * x * r[row];
            }
        }
        v
    }
}

/// A pyramid of `rows` rows of unit-mass boxes (`w` x `s` = 0.2 x 0.1), the
/// bottom row on the ground on two corners each, every other box on the
/// inner corners of the two below it (bricks): `rows (rows + 1) / 2` boxes
/// and `rows (rows + 1)` contacts in one island, with friction `mu`.
pub fn pyramid(rows: usize, mu: f64, h: f64) -> Scene {
    let (w, s) = (0.2, 0.1);
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let mut first_of_row = Vec::new();
    for row in 0..rows {
        first_of_row.push(bodies.len());
        let count = rows - row;
        for i in 0..count {
            let x = w * (i as f64 - (count - 1) as f64 / 2.0);
            let y = s * (row as f64 + 0.5);
            let b = bodies.len();
            bodies.push(Body::boxed(1.0, w, s, [x, y]));
            for dx in [-w / 2.0, w / 2.0] {
                let below = (row > 0).then(|| {
                    // The box below this corner: of the row below, the one
                    // whose extent holds `x + dx` (bricks are offset by w/2).
                    let k = if dx < 0.0 { i } else { i + 1 };
                    first_of_row[row - 1] + k
                });
                contacts.push(Contact {
                    a: below,
                    b,
                    point: [x + dx / 2.0, s * row as f64],
                    normal: [0.0, 1.0],
                    mu,
                });
            }
        }
    }
    Scene {
        velocity: vec![[0.0; 3]; bodies.len()],
        bodies,
        contacts,
        gravity: [0.0, -G],
        h,
    }
}

/// The scenes side by side as one (bodies and contacts renumbered): its
/// problem has one island per scene at least.
pub fn beside(scenes: &[Scene]) -> Scene {
    let mut all = Scene {
        bodies: Vec::new(),
        contacts: Vec::new(),
        velocity: Vec::new(),
        gravity: scenes.first().map_or([0.0, -G], |s| s.gravity),
        h: scenes.first().map_or(0.01, |s| s.h),
    };
    for scene in scenes {
        let offset = all.bodies.len();
        all.bodies.extend(&scene.bodies);
        all.velocity.extend(&scene.velocity);
        all.contacts.extend(scene.contacts.iter().map(|c| Contact {
            a: c.a.map(|k| k + offset),
            b: c.b + offset,
            ..*c
        }));
    }
    all
}

/// `a x` for a sparse `a`.
pub fn multiply(a: &CsMat<f64>, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; a.rows()];
    for (&v, (row, col)) in a.iter() {
        y[row] += v * x[col];
    }
    y
}

/// A box of side `side` resting on a line of slope `angle` (radians) on
/// `points` contacts spread evenly along its bottom face, in the incline's
/// frame (gravity tilted): the bottom face along x.
pub fn box_on_incline(angle: f64, mu: f64, points: usize, h: f64) -> Scene {
    let side = 0.1;
    let body = Body::boxed(1.0, side, side, [0.0, side / 2.0]);
    let contacts = (0..points)
        .map(|i| Contact {
            a: None,
            b: 0,
            point: [-side / 2.0 + side * i as f64 / (points - 1) as f64, 0.0],
            normal: [0.0, 1.0],
            mu,
        })
        .collect();
    Scene {
        bodies: vec![body],
        contacts,
        velocity: vec![[0.0; 3]],
        gravity: [-G * angle.sin(), -G * angle.cos()],
        h,
    }
}

/// A stack of boxes of `masses` (bottom first), each on two corners of the
/// one below (the bottom one on the ground).
pub fn stack(masses: &[f64], mu: f64, h: f64) -> Scene {
    let (w, s) = (0.2, 0.1);
    let bodies = masses
        .iter()
        .enumerate()
        .map(|(i, &m)| Body::boxed(m, w, s, [0.0, s * (i as f64 + 0.5)]))
        .collect();
    let contacts = (0..masses.len())
        .flat_map(|i| {
            [-w / 2.0, w / 2.0].map(|x| Contact {
                a: i.checked_sub(1),
                b: i,
                point: [x, s * i as f64],
                normal: [0.0, 1.0],
                mu,
            })
        })
        .collect();
    Scene {
        bodies,
        contacts,
        velocity: vec![[0.0; 3]; masses.len()],
        gravity: [0.0, -G],
        h,
    }
}

/// Coulomb's law checked from the data, contact by contact, with its own
/// arithmetic (not the solver's error measure), as products so no threshold
/// decides a mode: the impulse in the cone, no approach, `r_N u_N = 0`
/// (sliding contacts do not separate), `|u_T| (mu r_N - |r_T|) = 0` (a
/// contact that slips is on the cone's edge) and `r_T u_T <= 0` (against
/// the slip). The largest violation, relative to `scale` (products to its
/// square).
pub fn coulomb_violation(mu: &[f64], r: &[f64], u: &[f64], scale: f64) -> f64 {
    let mut worst: f64 = 0.0;
    for (i, &m) in mu.iter().enumerate() {
        let (rn, rt, un, ut) = (r[2 * i], r[2 * i + 1], u[2 * i], u[2 * i + 1]);
        worst = worst
            .max(-rn / scale)
            .max((rt.abs() - m * rn) / scale)
            .max(-un / scale);
        worst = worst
            .max((rn * un).abs() / (scale * scale))
            .max((ut.abs() * (m * rn - rt.abs())).abs() / (scale * scale))
            .max(rt * ut / (scale * scale));
    }
    worst
}

/// The largest of `|q|`, `|r|`, `|u|`: the scale of an answer.
pub fn scale(q: &[f64], r: &[f64], u: &[f64]) -> f64 {
    q.iter()
        .chain(r)
        .chain(u)
        .fold(0.0, |m: f64, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE)
}
