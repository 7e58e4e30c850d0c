//! Seeded random scenes whose exact answer is known by construction.
//!
//! A chain of planar bodies (3 coordinates each: `x`, `y`, `theta`) with
//! pin-like joints between neighbours (2 equality rows each) and closed
//! contacts on single bodies (1 inequality row each). The answer is chosen
//! first, `a*` and multipliers `l*` (some contacts pushing, some open with
//! a positive gap rate, some exactly at rest), and the data are derived from
//! it: `b_eq = A_eq a*`, `b_in = A_in a* - slack`, `Q = M a* - A^T l*`. So
//! every solver can be checked against an answer that no solver produced.

use crate::{matrix_from_triplets, Instant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneSpec {
    /// Number of bodies (3 coordinates each).
    pub bodies: usize,
    /// Number of joints between consecutive bodies (at most `bodies - 1`),
    /// 2 equality rows each.
    pub joints: usize,
    /// Pin the first body to the ground (2 more equality rows).
    pub ground_pin: bool,
    /// Number of contacts (inequality rows), spread over the bodies.
    pub contacts: usize,
    /// Fraction of contacts that push (`l > 0`); the others open.
    pub active_fraction: f64,
    /// Full 3x3 inertia blocks (rotated bodies) instead of diagonal ones.
    pub full_blocks: bool,
    /// Couple neighbouring bodies in `M` (a chain in generalized
    /// coordinates): `M` is then banded, not block diagonal.
    pub coupled_mass: bool,
    /// Seed of the generator.
    pub seed: u64,
}

impl Default for SceneSpec {
    fn default() -> Self {
        SceneSpec {
            bodies: 4,
            joints: 3,
            ground_pin: false,
            contacts: 0,
            active_fraction: 0.6,
            full_blocks: true,
            coupled_mass: false,
            seed: 0,
        }
    }
}

/// A generated instant with its exact answer.
#[derive(Debug)]
pub struct Scene {
    /// The instant.
    pub instant: Instant,
    /// The exact acceleration.
    pub acceleration: Vec<f64>,
    /// The exact equality multipliers.
    pub multipliers_eq: Vec<f64>,
    /// The exact inequality multipliers (zero on open contacts).
    pub multipliers_in: Vec<f64>,
}

/// Generates a scene (see the module docs).
pub fn scene(spec: &SceneSpec) -> Scene {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let nb = spec.bodies.max(1);
    let n = 3 * nb;
    // Mass: per body m I2 (+) J, optionally a full SPD block, optionally
    // coupled to the next body (diagonally dominant, so still SPD).
    let mut mt = Vec::new();
    for b in 0..nb {
        let o = 3 * b;
        let m: f64 = rng.gen_range(0.5..2.0);
        let j: f64 = rng.gen_range(0.05..0.5);
        let diag = [m, m, j];
        if spec.full_blocks {
            // B B^T + diag: SPD with off-diagonal terms.
            let bm: [[f64; 3]; 3] =
                std::array::from_fn(|_| std::array::from_fn(|_| rng.gen_range(-0.3..0.3)));
            for r in 0..3 {
                for c in 0..3 {
                    let mut v: f64 = (0..3).map(|k| bm[r][k] * bm[c][k]).sum();
                    if r == c {
                        v += diag[r];
                    }
                    mt.push((o + r, o + c, v));
                }
            }
        } else {
            for r in 0..3 {
                mt.push((o + r, o + r, diag[r]));
            }
        }
        if spec.coupled_mass {
            // Raise the diagonal, then couple to the next body.
            for r in 0..3 {
                mt.push((o + r, o + r, 0.2));
            }
            if b + 1 < nb {
                for r in 0..3 {
                    let c: f64 = rng.gen_range(-0.05..0.05);
                    mt.push((o + r, o + 3 + r, c));
                    mt.push((o + 3 + r, o + r, c));
                }
            }
        }
    }
    let mass = matrix_from_triplets("mass", (n, n), mt).expect("in range");
    // Joints: 2 rows coupling body k and k+1 (a pin: x_k + r1 th_k = x_{k+1} + r2 th_{k+1}).
    let joints = spec.joints.min(nb.saturating_sub(1));
    let mut et = Vec::new();
    for (row, k) in (0..joints)
        .map(|k| k * (nb - 1) / joints.max(1))
        .enumerate()
    {
        let (o1, o2) = (3 * k, 3 * k + 3);
        for axis in 0..2 {
            let r1: f64 = rng.gen_range(-1.0..1.0);
            let r2: f64 = rng.gen_range(-1.0..1.0);
            et.push((2 * row + axis, o1 + axis, 1.0));
            et.push((2 * row + axis, o1 + 2, r1));
            et.push((2 * row + axis, o2 + axis, -1.0));
            et.push((2 * row + axis, o2 + 2, -r2));
        }
    }
    if spec.ground_pin {
        for axis in 0..2 {
            let r: f64 = rng.gen_range(-1.0..1.0);
            et.push((2 * joints + axis, axis, 1.0));
            et.push((2 * joints + axis, 2, r));
        }
    }
    let m_eq = 2 * joints + if spec.ground_pin { 2 } else { 0 };
    // Contacts: a normal (nx, ny) at a lever arm on one body.
    let mut it = Vec::new();
    for c in 0..spec.contacts {
        let b =
            c * nb / spec.contacts.max(1) + rng.gen_range(0..(nb / spec.contacts.max(1)).max(1));
        let b = b.min(nb - 1);
        let ang: f64 = rng.gen_range(0.3..2.8);
        let (nx, ny) = (ang.cos(), ang.sin());
        let (rx, ry): (f64, f64) = (rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        it.push((c, 3 * b, nx));
        it.push((c, 3 * b + 1, ny));
        it.push((c, 3 * b + 2, rx * ny - ry * nx));
    }
    let a_eq = matrix_from_triplets("equalities.A", (m_eq, n), et).expect("in range");
    let a_in = matrix_from_triplets("inequalities.A", (spec.contacts, n), it).expect("in range");
    // The answer.
    let acc: Vec<f64> = (0..n).map(|_| rng.gen_range(-10.0..10.0)).collect();
    let l_eq: Vec<f64> = (0..m_eq).map(|_| rng.gen_range(-20.0..20.0)).collect();
    let mut l_in = vec![0.0; spec.contacts];
    let mut b_in = vec![0.0; spec.contacts];
    let dot = |m: &sprs::CsMat<f64>, i: usize, x: &[f64]| -> f64 {
        m.outer_view(i)
            .map(|r| r.iter().map(|(j, &v)| v * x[j]).sum())
            .unwrap_or(0.0)
    };
    for c in 0..spec.contacts {
        let g = dot(&a_in, c, &acc);
        if rng.gen_bool(spec.active_fraction.clamp(0.0, 1.0)) {
            l_in[c] = rng.gen_range(0.5..20.0);
            b_in[c] = g;
        } else {
            b_in[c] = g - rng.gen_range(0.5..5.0);
        }
    }
    let b_eq: Vec<f64> = (0..m_eq).map(|i| dot(&a_eq, i, &acc)).collect();
    let mut force = vec![0.0; n];
    for (i, row) in mass.outer_iterator().enumerate() {
        force[i] = row.iter().map(|(j, &v)| v * acc[j]).sum();
    }
    for (m, l) in [(&a_eq, &l_eq), (&a_in, &l_in)] {
        for (i, row) in m.outer_iterator().enumerate() {
            for (j, &v) in row.iter() {
                force[j] -= v * l[i];
            }
        }
    }
    let instant = Instant::builder(mass, force)
        .name(format!(
            "scene-{}x{}-{}-{}",
            nb, joints, spec.contacts, spec.seed
        ))
        .equalities(a_eq, b_eq)
        .inequalities(a_in, b_in)
        .build()
        .expect("a generated scene is valid");
    Scene {
        instant,
        acceleration: acc,
        multipliers_eq: l_eq,
        multipliers_in: l_in,
    }
}

/// A planar chain of `links` rigid links in maximal coordinates (3 per
/// link, full 3x3 inertia blocks), pinned to the ground and to each other:
/// `3 links` variables and `2 links` equality rows. Its Schur complement
/// `A M^-1 A^T` is block tridiagonal, the case that must factor in `O(n)`.
pub fn chain(links: usize, seed: u64) -> Scene {
    scene(&SceneSpec {
        bodies: links.max(1),
        joints: links.max(1) - 1,
        ground_pin: true,
        contacts: 0,
        active_fraction: 0.0,
        full_blocks: true,
        coupled_mass: false,
        seed,
    })
}

/// A plate (one rigid body: `x`, `y`, `theta`) resting on `particles`
/// point masses (2 coordinates each) held in V-shaped grooves under it:
/// two contact rows per particle, every row touching the plate, so
/// `A M^-1 A^T` is dense in all `2 particles` rows while the KKT system
/// stays sparse. The plate is pulled down by gravity; every other particle
/// is pushed up into its groove (its two contacts push) and the others are
/// pulled away (their contacts open).
pub fn plate_on_particles(particles: usize, seed: u64) -> Instant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = 9.81;
    let n = 3 + 2 * particles;
    let (plate_mass, plate_inertia) = (10.0, 40.0);
    let mut mt = vec![
        (0, 0, plate_mass),
        (1, 1, plate_mass),
        (2, 2, plate_inertia),
    ];
    let mut force = vec![0.0; n];
    force[1] = -plate_mass * g;
    let mut it = Vec::new();
    let width = 4.0;
    for p in 0..particles {
        let o = 3 + 2 * p;
        let m: f64 = rng.gen_range(0.05..0.2);
        mt.push((o, o, m));
        mt.push((o + 1, o + 1, m));
        let push = if p % 2 == 0 { 3.0 } else { -3.0 };
        force[o] = rng.gen_range(-0.2..0.2) * m * g;
        force[o + 1] = push * m * g;
        // Contact point on the plate's underside, relative to its centre.
        let (rx, ry) = (
            width * (p as f64 + 0.5) / particles.max(1) as f64 - width / 2.0,
            -0.1,
        );
        let slope: f64 = rng.gen_range(0.3..0.6);
        for side in [-1.0, 1.0] {
            // Normal from the plate towards the particle (downwards).
            let (nx, ny) = (side * slope.sin(), -slope.cos());
            let row = it.len() / 5;
            // Gap rate n . (a_particle - a_plate - alpha x r) >= 0.
            it.push((row, o, nx));
            it.push((row, o + 1, ny));
            it.push((row, 0, -nx));
            it.push((row, 1, -ny));
            it.push((row, 2, -(rx * ny - ry * nx)));
        }
    }
    let m_in = 2 * particles;
    let mass = matrix_from_triplets("mass", (n, n), mt).expect("in range");
    let a_in = matrix_from_triplets("inequalities.A", (m_in, n), it).expect("in range");
    Instant::builder(mass, force)
        .name(format!("plate-on-{particles}-particles"))
        .inequalities(a_in, vec![0.0; m_in])
        .build()
        .expect("a generated plate is valid")
}

/// `particles` point masses (2 coordinates each) on the floor `y = 0`, one
/// contact row each (`a_y >= 0`); every other particle is pulled off the
/// floor (its contact opens), the others pressed onto it.
pub fn particles_on_floor(particles: usize, seed: u64) -> Instant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = 9.81;
    let n = 2 * particles;
    let mut mt = Vec::with_capacity(n);
    let mut it = Vec::with_capacity(particles);
    let mut force = vec![0.0; n];
    for p in 0..particles {
        let m: f64 = rng.gen_range(0.5..2.0);
        mt.push((2 * p, 2 * p, m));
        mt.push((2 * p + 1, 2 * p + 1, m));
        force[2 * p] = rng.gen_range(-1.0..1.0);
        force[2 * p + 1] = if p % 2 == 0 { -m * g } else { 2.0 * m * g };
        it.push((p, 2 * p + 1, 1.0));
    }
    let mass = matrix_from_triplets("mass", (n, n), mt).expect("in range");
    let a_in = matrix_from_triplets("inequalities.A", (particles, n), it).expect("in range");
    Instant::builder(mass, force)
        .name(format!("{particles}-particles-on-a-floor"))
        .inequalities(a_in, vec![0.0; particles])
        .build()
        .expect("generated particles are valid")
}
