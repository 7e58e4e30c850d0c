//! The primal solver in space (three rows per contact: a normal and two
//! tangents, the friction cone round) against closed forms, physical laws,
//! the planar solver on planar problems, and Clarabel's second-order cone
//! program on the convex form.

use crate::common;

use clarabel::solver::{DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sprs::CsMat;
use zwang_contact::{
    error_for, parse_island, write_island, BoundedRows, ContactRows, Friction, IslandText,
    IslandTextError, PrimalSolver, ProblemError, SolverSettings, Status, VelocityProblem,
};
use zwang_problems::generate::pyramid;
use zwang_problems::generate::spatial::{Cube, World};
use zwang_problems::generate::G;

const DEGREES_20: f64 = 20.0 * std::f64::consts::PI / 180.0;

struct Answer {
    r: Vec<f64>,
    v: Vec<f64>,
    u: Vec<f64>,
    status: Status,
    newton_steps: usize,
}

fn solve_with(
    solver: &mut PrimalSolver,
    p: &VelocityProblem,
    settings: &SolverSettings,
    warm: Option<&[f64]>,
) -> Answer {
    let k = p.b.len();
    let mut r = warm.map_or(vec![0.0; k], <[f64]>::to_vec);
    let (mut v, mut u) = (vec![0.0; p.force.len()], vec![0.0; k]);
    let report = solver
        .solve_in_place(p, settings, &mut r, &mut v, &mut u)
        .unwrap();
    Answer {
        r,
        v,
        u,
        status: report.status,
        newton_steps: report.newton_steps,
    }
}

fn solve(p: &VelocityProblem, settings: &SolverSettings) -> Answer {
    solve_with(&mut PrimalSolver::new(), p, settings, None)
}

/// The default tolerance.
fn tight() -> SolverSettings {
    SolverSettings {
        tolerance: 1e-10,
        ..SolverSettings::default()
    }
}

/// Closed forms are compared at a tolerance near rounding: Siconos' measure
/// weighs velocities by the largest of `|q|`, `|r|`, `|u|`.
fn precise() -> SolverSettings {
    SolverSettings {
        tolerance: 1e-13,
        ..SolverSettings::default()
    }
}

/// `M x` from all of `M`'s stored entries.
fn mass_times(p: &VelocityProblem, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for (&value, (r, c)) in p.mass.iter() {
        y[r] += value * x[c];
    }
    y
}

/// `M^-1 f` by a dense Cholesky (the test's own, small problems only).
fn mass_solve(p: &VelocityProblem, f: &[f64]) -> Vec<f64> {
    let n = f.len();
    let mut a = vec![0.0; n * n];
    for (&value, (r, c)) in p.mass.iter() {
        a[r * n + c] = value;
    }
    for j in 0..n {
        for k in 0..j {
            let l = a[j * n + k];
            for i in j..n {
                a[i * n + j] -= a[i * n + k] * l;
            }
        }
        let d = a[j * n + j].sqrt();
        for i in j..n {
            a[i * n + j] /= d;
        }
    }
    let mut x = f.to_vec();
    for i in 0..n {
        for k in 0..i {
            x[i] -= a[i * n + k] * x[k];
        }
        x[i] /= a[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            x[i] -= a[k * n + i] * x[k];
        }
        x[i] /= a[i * n + i];
    }
    x
}

/// `J x + b`, three components per contact.
fn contact_velocities(p: &VelocityProblem, x: &[f64]) -> Vec<f64> {
    let k = p.mu.len();
    let mut u = vec![0.0; 3 * k];
    for i in 0..k {
        let ji = p.rows.velocity(i, x);
        for c in 0..3 {
            u[3 * i + c] = ji[c] + p.b[3 * i + c];
        }
    }
    u
}

/// Coulomb's law and Newton's, recomputed from the data: `u = J v + b`
/// from the answer's `v`, Siconos' measure on it, and `M v - f - J^T r`
/// relative to the largest of its terms.
fn check_laws(p: &VelocityProblem, a: &Answer, friction: Friction, tol: f64) {
    let u = contact_velocities(p, &a.v);
    for (x, y) in u.iter().zip(&a.u) {
        assert!(
            (x - y).abs() <= 1e-12 * (1.0 + x.abs()),
            "u {x} against {y}"
        );
    }
    let free = contact_velocities(p, &mass_solve(p, &p.force));
    let coulomb = error_for(friction, &p.mu, &free, &a.r, &u);
    assert!(coulomb <= tol, "Coulomb's law off by {coulomb:e}");
    let mut impulses = vec![0.0; p.force.len()];
    p.rows.add_transpose(&a.r, &mut impulses);
    let mv = mass_times(p, &a.v);
    let scale = [&p.force, &impulses, &mv]
        .iter()
        .flat_map(|x| x.iter())
        .fold(1e-300f64, |m, x| m.max(x.abs()));
    for ((m, f), j) in mv.iter().zip(&p.force).zip(&impulses) {
        let off = (m - f - j).abs();
        assert!(
            off <= 1e-9 * scale,
            "Newton's law off by {off:e} of {scale:e}"
        );
    }
}

#[test]
fn a_cube_at_the_cones_edge_sticks_on_four_corners() {
    // On a 20 degree incline (gravity tilted instead), mu just above
    // tan 20: it must stay at rest, every corner's tangential velocity
    // zero, the impulses carrying the weight's two components.
    let g = [-G * DEGREES_20.sin(), 0.0, -G * DEGREES_20.cos()];
    let h = 0.002;
    let mu = 1.01 * DEGREES_20.tan();
    let m = 1.0;
    let world = common::cube_on_floor(g, h, m, 0.05, mu);
    let p = world.problem();
    let mut solver = PrimalSolver::new();
    let mut warm: Option<Vec<f64>> = None;
    for step in 0..50 {
        let a = solve_with(&mut solver, &p, &tight(), warm.as_deref());
        assert_eq!(a.status, Status::Solved, "step {step}");
        for (j, v) in a.v.iter().enumerate() {
            assert!(v.abs() <= 1e-12, "step {step}: v[{j}] = {v:e}");
        }
        for i in 0..4 {
            let ut = a.u[3 * i + 1].hypot(a.u[3 * i + 2]);
            assert!(ut <= 1e-12, "step {step}: u_T = {ut:e} at corner {i}");
            let rt = a.r[3 * i + 1].hypot(a.r[3 * i + 2]);
            assert!(rt <= mu * a.r[3 * i] * (1.0 + 1e-12), "outside the cone");
        }
        let sum = |c: usize| (0..4).map(|i| a.r[3 * i + c]).sum::<f64>();
        let weight = m * h * G;
        assert!((sum(0) - weight * DEGREES_20.cos()).abs() <= 1e-12 * weight);
        assert!((sum(1) - weight * DEGREES_20.sin()).abs() <= 1e-12 * weight);
        assert!(sum(2).abs() <= 1e-12 * weight);
        if step > 0 {
            assert!(a.newton_steps <= 2, "warm: {} Newton steps", a.newton_steps);
        }
        check_laws(&p, &a, Friction::Exact, 1e-10);
        warm = Some(a.r);
    }
}

#[test]
fn a_cube_below_the_cones_edge_slides_down_with_the_closed_form_velocity() {
    let g = [-G * DEGREES_20.sin(), 0.0, -G * DEGREES_20.cos()];
    let h = 0.002;
    for factor in [0.0, 0.5, 0.9, 0.99] {
        let mu = factor * DEGREES_20.tan();
        let world = common::cube_on_floor(g, h, 2.0, 0.05, mu);
        let p = world.problem();
        let a = solve(&p, &precise());
        assert_eq!(a.status, Status::Solved);
        let expected = -h * G * (DEGREES_20.sin() - mu * DEGREES_20.cos());
        let want = [expected, 0.0, 0.0, 0.0, 0.0, 0.0];
        for (j, (v, w)) in a.v.iter().zip(want).enumerate() {
            assert!(
                (v - w).abs() <= 1e-12,
                "mu {mu}: v[{j}] = {v:e}, want {w:e}"
            );
        }
        check_laws(&p, &a, Friction::Exact, 1e-10);
        // Each corner slides on the cone's surface, against its velocity.
        for i in 0..4 {
            let (rn, rt) = (a.r[3 * i], [a.r[3 * i + 1], a.r[3 * i + 2]]);
            assert!((rt[0] - mu * rn).abs() <= 1e-12 * rn.max(1e-300));
            assert!(rt[1].abs() <= 1e-12 * rn);
        }
        // The convex form lifts a sliding cube off by mu |u_T| (its known
        // artefact): the same slide, a normal velocity mu |v_x|.
        if mu > 0.0 {
            let c = solve(
                &p,
                &SolverSettings {
                    friction: Friction::Convex,
                    ..precise()
                },
            );
            assert_eq!(c.status, Status::Solved);
            check_laws(&p, &c, Friction::Convex, 1e-10);
            for i in 0..4 {
                let (un, ut) = (c.u[3 * i], c.u[3 * i + 1].hypot(c.u[3 * i + 2]));
                assert!(
                    (un - mu * ut).abs() <= 1e-12,
                    "u_N {un} against mu |u_T| {}",
                    mu * ut
                );
            }
        }
    }
}

#[test]
fn a_cube_sliding_at_an_angle_slows_along_its_velocity() {
    // On a flat floor, thrown along (cos phi, sin phi): friction opposes
    // the velocity exactly (a cone, not a pyramid, whose corners would
    // turn it), and takes mu g h off the speed.
    let h = 0.01;
    let mu = 0.3;
    for phi in [0.0, 0.3, std::f64::consts::FRAC_PI_4, 1.2, 2.5, -2.0] {
        let mut world = common::cube_on_floor([0.0, 0.0, -G], h, 1.5, 0.1, mu);
        let (c, s) = (f64::cos(phi), f64::sin(phi));
        world.velocity[0] = 2.0 * c;
        world.velocity[1] = 2.0 * s;
        let p = world.problem();
        let a = solve(&p, &precise());
        assert_eq!(a.status, Status::Solved);
        let speed = 2.0 - mu * G * h;
        let want = [speed * c, speed * s, 0.0, 0.0, 0.0, 0.0];
        for (j, (v, w)) in a.v.iter().zip(want).enumerate() {
            assert!((v - w).abs() <= 1e-11, "phi {phi}: v[{j}] = {v}, want {w}");
        }
        for i in 0..4 {
            let (rt, ut) = (
                [a.r[3 * i + 1], a.r[3 * i + 2]],
                [a.u[3 * i + 1], a.u[3 * i + 2]],
            );
            // Anti-parallel: r_T x u_T = 0 and r_T . u_T < 0.
            let turn = rt[0] * ut[1] - rt[1] * ut[0];
            assert!(turn.abs() <= 1e-12 * rt[0].hypot(rt[1]) * ut[0].hypot(ut[1]));
            assert!(rt[0] * ut[0] + rt[1] * ut[1] < 0.0);
        }
        check_laws(&p, &a, Friction::Exact, 1e-10);
    }
}

#[test]
fn a_stack_alternating_1_and_100_kg_stands_in_few_newton_steps() {
    for light_at_bottom in [true, false] {
        let mut world = World::new([0.0, 0.0, -G], 0.002);
        let mut below = None;
        for level in 0..6 {
            let m = if (level % 2 == 0) == light_at_bottom {
                1.0
            } else {
                100.0
            };
            let cube = Cube {
                m,
                a: 0.05,
                centre: [0.0, 0.0, 0.05 + 0.1 * level as f64],
            };
            below = Some(world.stack(cube, below, 0.5));
        }
        let p = world.problem();
        let mut solver = PrimalSolver::new();
        let first = solve_with(&mut solver, &p, &precise(), None);
        assert_eq!(first.status, Status::Solved);
        let again = solve_with(&mut solver, &p, &precise(), Some(&first.r));
        for a in [&first, &again] {
            for (j, v) in a.v.iter().enumerate() {
                assert!(v.abs() <= 1e-10, "v[{j}] = {v:e}");
            }
            check_laws(&p, a, Friction::Exact, 1e-10);
        }
        assert!(
            again.newton_steps < 10,
            "{} Newton steps",
            again.newton_steps
        );
        // Each level's four corners carry the weight above it.
        for level in 0..6 {
            let above: f64 = world.cubes[level..].iter().map(|c| c.m).sum();
            let carried: f64 = (0..4).map(|c| first.r[3 * (4 * level + c)]).sum();
            let want = above * G * 0.002;
            assert!(
                (carried - want).abs() <= 1e-9 * want,
                "level {level}: carries {carried}, the weight above is {want}"
            );
        }
    }
}

/// A planar problem (three velocities per body: x, y, angle) lifted into
/// space: each body gets a fourth velocity `z` (out of the plane, unit
/// mass, no force), each contact a second tangent along it. Nothing drives
/// `z`, so the answer is the planar one with `z` and its impulses zero.
fn lifted(planar: &VelocityProblem) -> VelocityProblem {
    let n = planar.force.len();
    let bodies = n / 3;
    let diag = planar.mass.diag();
    let mut mass = diag.data().to_vec();
    mass.extend(std::iter::repeat_n(1.0, bodies));
    let mut force = planar.force.clone();
    force.extend(std::iter::repeat_n(0.0, bodies));
    let rows = &planar.rows;
    let mut lifted = ContactRows::new(3);
    for i in 0..rows.contacts() {
        let mut entries: Vec<(usize, [f64; 3])> = Vec::new();
        for a in rows.start[i]..rows.start[i + 1] {
            let e = rows.entry(a);
            entries.push((rows.cols[a], [e[0], e[1], 0.0]));
            if rows.cols[a].is_multiple_of(3) {
                // The body's z, along the second tangent.
                let z = n + rows.cols[a] / 3;
                entries.push((z, [0.0, 0.0, e[1].signum()]));
            }
        }
        lifted.push(entries);
    }
    let k = planar.mu.len();
    let mut b = Vec::new();
    for i in 0..k {
        b.extend([planar.b[2 * i], planar.b[2 * i + 1], 0.0]);
    }
    VelocityProblem {
        mass: CsMat::new_csc(
            (n + bodies, n + bodies),
            (0..=n + bodies).collect(),
            (0..n + bodies).collect(),
            mass,
        ),
        force,
        rows: lifted,
        b,
        mu: planar.mu.clone(),
        bounded: BoundedRows::default(),
    }
}

#[test]
fn a_planar_pile_lifted_into_space_has_the_planar_answer() {
    for (rows, mu) in [(4, 0.6), (7, 0.3), (10, 0.9)] {
        let scene = pyramid(rows, mu, 0.01);
        let planar = scene.velocity_problem();
        let space = lifted(&planar);
        for friction in [Friction::Exact, Friction::Convex] {
            let settings = SolverSettings {
                friction,
                ..tight()
            };
            let flat = solve(&planar, &settings);
            let round = solve(&space, &settings);
            assert_eq!(flat.status, Status::Solved);
            assert_eq!(round.status, Status::Solved, "{rows} rows, {friction:?}");
            check_laws(&space, &round, friction, 1e-10);
            let n = planar.force.len();
            let scale = flat.v.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for j in 0..n {
                assert!(
                    (flat.v[j] - round.v[j]).abs() <= 1e-8 * scale,
                    "{rows} rows {friction:?}: v[{j}] {} against {}",
                    flat.v[j],
                    round.v[j]
                );
            }
            for z in &round.v[n..] {
                assert!(z.abs() <= 1e-10 * scale, "z moved by {z:e}");
            }
        }
    }
}

/// A random problem in space: an SPD `M` (diagonal or not), `k`
/// contacts on random columns, random `f`, `b`, `mu` (some frictionless).
fn random_problem(rng: &mut ChaCha8Rng, diagonal: bool) -> VelocityProblem {
    let n = rng.gen_range(4..14);
    let k = rng.gen_range(1..=n / 2 + 2);
    let m = common::random_mass(rng, n, diagonal);
    let mut rows = ContactRows::new(3);
    for _ in 0..k {
        let mut cols: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.5)).collect();
        if cols.is_empty() {
            cols.push(rng.gen_range(0..n));
        }
        rows.push(
            cols.into_iter()
                .map(|c| (c, [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0))))
                .collect::<Vec<_>>(),
        );
    }
    VelocityProblem {
        mass: m,
        force: (0..n).map(|_| rng.gen_range(-2.0..2.0)).collect(),
        rows,
        b: (0..3 * k).map(|_| rng.gen_range(-1.0..1.0)).collect(),
        mu: (0..k)
            .map(|_| {
                if rng.gen_bool(0.15) {
                    0.0
                } else {
                    rng.gen_range(0.05..1.5)
                }
            })
            .collect(),
        bounded: BoundedRows::default(),
    }
}

/// The convex form as Clarabel's second-order cone program in velocities:
/// `min 1/2 v^T M v - f^T v` with `(u_N, mu u_T)` in the Lorentz cone
/// (`u_N >= 0` alone for a frictionless contact), `u = J v + b`.
fn clarabel_velocities(p: &VelocityProblem) -> Option<Vec<f64>> {
    let n = p.force.len();
    let pm = common::upper_triangle(&p.mass);
    let q: Vec<f64> = p.force.iter().map(|f| -f).collect();
    // s = b_c - A v: per contact (u_N, mu u_T) or u_N.
    let mut a_cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let (mut b, mut cones) = (Vec::new(), Vec::new());
    let mut row = 0;
    for (i, &mu) in p.mu.iter().enumerate() {
        let used = if mu > 0.0 { 3 } else { 1 };
        for a in p.rows.start[i]..p.rows.start[i + 1] {
            let e = p.rows.entry(a);
            for c in 0..used {
                let scale = if c == 0 { 1.0 } else { mu };
                a_cols[p.rows.cols[a]].push((row + c, -scale * e[c]));
            }
        }
        for c in 0..used {
            let scale = if c == 0 { 1.0 } else { mu };
            b.push(scale * p.b[3 * i + c]);
        }
        cones.push(if used == 3 {
            SupportedConeT::SecondOrderConeT(3)
        } else {
            SupportedConeT::NonnegativeConeT(1)
        });
        row += used;
    }
    let a = common::columns(row, &mut a_cols);
    let mut solver = DefaultSolver::new(&pm, &q, &a, &b, &cones, common::settings(1e-11)).unwrap();
    solver.solve();
    // (`AlmostSolved` answers are off by up to 1e-5 here: not a reference.)
    (solver.solution.status == SolverStatus::Solved).then(|| solver.solution.x.clone())
}

/// The convex form is a second-order cone program, whose optimum Clarabel
/// certifies to its duality gap (here about `1e-9` of the objective; its
/// velocities are then good to about `1e-5`, the square root, on these
/// random problems). The primal answer must be at least as good: its
/// objective no higher, the cones held to `1e-10` (from the data), and its
/// velocities within what Clarabel's gap allows in `M`'s norm (`1/2 |v -
/// v*|_M^2 <= J(v) - J(v*)` at the optimum `v*`). On the pile tests the
/// answers are compared with closed forms to `1e-12`.
#[test]
fn the_convex_form_in_space_agrees_with_clarabel() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let settings = SolverSettings {
        friction: Friction::Convex,
        ..tight()
    };
    let objective = |p: &VelocityProblem, v: &[f64]| {
        let mv = mass_times(p, v);
        let quadratic: f64 = v.iter().zip(&mv).map(|(a, b)| a * b).sum();
        0.5 * quadratic - v.iter().zip(&p.force).map(|(a, b)| a * b).sum::<f64>()
    };
    let (mut compared, mut worst, mut lower) = (0, 0.0f64, 0.0f64);
    for case in 0..80 {
        let p = random_problem(&mut rng, case % 2 == 0);
        let Some(reference) = clarabel_velocities(&p) else {
            continue;
        };
        let a = solve(&p, &settings);
        assert_eq!(a.status, Status::Solved, "case {case}");
        check_laws(&p, &a, Friction::Convex, 1e-10);
        let (ours, theirs) = (objective(&p, &a.v), objective(&p, &reference));
        let scale = 1.0 + theirs.abs();
        assert!(
            ours <= theirs + 1e-10 * scale,
            "case {case}: {ours} above {theirs}"
        );
        let gap: Vec<f64> = a.v.iter().zip(&reference).map(|(x, y)| x - y).collect();
        let distance: f64 = gap
            .iter()
            .zip(mass_times(&p, &gap))
            .map(|(a, b)| a * b)
            .sum();
        let allowed = 2.0 * (theirs - ours).max(0.0) + 1e-20 * scale;
        assert!(
            0.5 * distance <= 2.0 * allowed,
            "case {case}: |v - v_clarabel|_M^2 / 2 = {:e}, objectives {ours} and {theirs}",
            0.5 * distance
        );
        worst = worst.max(0.5 * distance / scale);
        lower = lower.max((theirs - ours) / scale);
        compared += 1;
    }
    eprintln!(
        "{compared}/80 compared with Clarabel: objective lower by up to {lower:e}, \
         |v - v_clarabel|_M^2 / 2 up to {worst:e} (relative)"
    );
    assert!(compared >= 50, "{compared} compared");
}

/// A random pile: columns of cubes (masses 0.1 to 100 kg), each on the
/// floor or on the one below, shifted sideways so that the faces overlap
/// in a rectangle whose four corners are the contacts; random speeds
/// (sliding, sticking, separating), random friction.
fn random_pile(rng: &mut ChaCha8Rng) -> World {
    let h = rng.gen_range(0.001..0.02);
    let mut world = World::new([0.0, 0.0, -G], h);
    let columns = rng.gen_range(1..=4);
    for column in 0..columns {
        let mut below: Option<usize> = None;
        let base = [2.0 * column as f64, 0.0];
        let mut top = 0.0;
        let mut last_centre = base;
        for _ in 0..rng.gen_range(1..=5) {
            let a = rng.gen_range(0.05..0.15);
            let m = 10f64.powf(rng.gen_range(-1.0..2.0));
            let centre = match below {
                None => base,
                Some(_) => [
                    last_centre[0] + rng.gen_range(-0.5..0.5) * a,
                    last_centre[1] + rng.gen_range(-0.5..0.5) * a,
                ],
            };
            let cube = Cube {
                m,
                a,
                centre: [centre[0], centre[1], top + a],
            };
            let b = world.cubes.len();
            world.cubes.push(cube);
            let mut v = [0.0; 6];
            for x in v.iter_mut().take(2) {
                *x = if rng.gen_bool(0.5) {
                    rng.gen_range(-1.0..1.0)
                } else {
                    0.0
                };
            }
            v[2] = rng.gen_range(-0.5..0.1);
            for x in v.iter_mut().skip(3) {
                *x = if rng.gen_bool(0.3) {
                    rng.gen_range(-2.0..2.0)
                } else {
                    0.0
                };
            }
            world.velocity.extend(v);
            let mu = rng.gen_range(0.0..1.2);
            // The contact rectangle: this cube's footprint within the one
            // below (the floor holds all of it).
            let (lo, hi) = match below {
                None => (
                    [centre[0] - a, centre[1] - a],
                    [centre[0] + a, centre[1] + a],
                ),
                Some(j) => {
                    let (c, aj) = (world.cubes[j].centre, world.cubes[j].a);
                    (
                        [
                            (centre[0] - a).max(c[0] - aj),
                            (centre[1] - a).max(c[1] - aj),
                        ],
                        [
                            (centre[0] + a).min(c[0] + aj),
                            (centre[1] + a).min(c[1] + aj),
                        ],
                    )
                }
            };
            for (x, y) in [
                (lo[0], lo[1]),
                (hi[0], lo[1]),
                (hi[0], hi[1]),
                (lo[0], hi[1]),
            ] {
                world.contacts.push((below, b, [x, y, top], mu));
            }
            below = Some(b);
            top += 2.0 * a;
            last_centre = centre;
        }
    }
    world
}

/// Every answer satisfies both laws from the data; the convex form is
/// always solved. The exact law (a fixed point, no optimisation problem)
/// is solved on nearly all: De Saxce's fixed point cycles on some of these
/// piles (spinning, sliding boxes on boxes at mass ratios of 1:1000),
/// and the proximal Newton iterations stop on a stationary point of their
/// merit short of an answer on a few (an answer may not exist: Coulomb's
/// problem has one for small enough friction only). Those are reported
/// `NotConverged`, not passed off as answers.
#[test]
fn random_piles_in_space_satisfy_coulombs_and_newtons_laws() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let total = 150;
    let (mut solved, mut finished) = ([0; 2], 0);
    for case in 0..total {
        let world = random_pile(&mut rng);
        let p = world.problem();
        for (f, friction) in [Friction::Exact, Friction::Convex].into_iter().enumerate() {
            let settings = SolverSettings {
                friction,
                ..tight()
            };
            let mut solver = PrimalSolver::new();
            let k = p.b.len();
            let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; p.force.len()], vec![0.0; k]);
            let report = solver
                .solve_in_place(&p, &settings, &mut r, &mut v, &mut u)
                .unwrap();
            finished += usize::from(report.dual);
            if report.status != Status::Solved {
                assert_eq!(
                    report.status,
                    Status::NotConverged,
                    "case {case} {friction:?}"
                );
                assert!(report.error > settings.tolerance);
                continue;
            }
            solved[f] += 1;
            let a = Answer {
                r,
                v,
                u,
                status: report.status,
                newton_steps: report.newton_steps,
            };
            check_laws(&p, &a, friction, 1e-10);
        }
    }
    eprintln!(
        "random piles solved: exact {}/{total}, convex {}/{total}; {finished} finished by the \
         proximal Newton iterations",
        solved[0], solved[1]
    );
    assert_eq!(solved[1], total);
    assert!(solved[0] >= total * 19 / 20, "exact: {}/{total}", solved[0]);
}

/// Random problems on random rows (not a body's frames) may have no
/// answer under the exact law: the solved ones satisfy it, and nearly all
/// are solved.
#[test]
fn random_exact_problems_in_space_satisfy_the_laws_when_solved() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let mut solved = 0;
    let total = 120;
    for case in 0..total {
        let p = random_problem(&mut rng, case % 3 != 0);
        let a = solve(&p, &tight());
        if a.status == Status::Solved {
            check_laws(&p, &a, Friction::Exact, 1e-10);
            solved += 1;
        }
    }
    assert!(solved >= total * 3 / 4, "{solved}/{total} solved");
}

#[test]
fn a_reused_solver_in_space_answers_as_a_fresh_one() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let mut solver = PrimalSolver::new();
    for _ in 0..30 {
        let p = random_problem(&mut rng, true);
        let kept = solve_with(&mut solver, &p, &tight(), None);
        let fresh = solve(&p, &tight());
        assert_eq!(kept.r, fresh.r);
        assert_eq!(kept.v, fresh.v);
    }
}

/// Five islands of three velocities each (the last two without contacts,
/// the last coupled through `M`), two random contacts in each of the
/// first three, and `extra` more in the second, listed first: the other
/// islands' contacts then sit at other places of the whole problem.
fn islands(rng: &mut ChaCha8Rng, extra: usize) -> VelocityProblem {
    let n = 15;
    let mut m = sprs::TriMat::new((n, n));
    for i in 0..n {
        m.add_triplet(i, i, rng.gen_range(2.0..5.0));
    }
    let coupling = rng.gen_range(-1.0..1.0);
    m.add_triplet(12, 13, coupling);
    m.add_triplet(13, 12, coupling);
    let mut rows = ContactRows::new(3);
    let contact = |rows: &mut ContactRows, island: usize, rng: &mut ChaCha8Rng| {
        rows.push(
            (3 * island..3 * island + 3)
                .map(|c| (c, [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0))))
                .collect::<Vec<_>>(),
        );
    };
    for _ in 0..extra {
        contact(&mut rows, 1, rng);
    }
    for island in 0..3 {
        for _ in 0..2 {
            contact(&mut rows, island, rng);
        }
    }
    let k = rows.contacts();
    VelocityProblem {
        mass: m.to_csc(),
        force: (0..n).map(|_| rng.gen_range(-2.0..2.0)).collect(),
        rows,
        b: (0..3 * k).map(|_| rng.gen_range(-1.0..1.0)).collect(),
        mu: (0..k).map(|_| rng.gen_range(0.1..1.0)).collect(),
        bounded: BoundedRows::default(),
    }
}

/// A solver meeting a new pattern keeps the solvers of the islands whose
/// own pattern did not change: their contacts moved in the whole problem,
/// their numbers are new, and the answer is a fresh solver's, bit for bit;
/// the free velocities balance their forces.
#[test]
fn islands_that_keep_their_pattern_keep_their_solver_and_answer_as_fresh() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for friction in [Friction::Exact, Friction::Convex] {
        let settings = SolverSettings {
            friction,
            ..tight()
        };
        let mut solver = PrimalSolver::new();
        for extra in [0, 1, 2, 0, 0, 3] {
            let p = islands(&mut rng, extra);
            let kept = solve_with(&mut solver, &p, &settings, None);
            let fresh = solve(&p, &settings);
            assert_eq!(kept.status, fresh.status, "{friction:?}, {extra} more");
            assert_eq!(kept.r, fresh.r, "{friction:?}, {extra} more");
            assert_eq!(kept.v, fresh.v, "{friction:?}, {extra} more");
            assert_eq!(kept.u, fresh.u, "{friction:?}, {extra} more");
            // The islands without contacts (solved as one): `M v = f`.
            let mut mv = [0.0; 15];
            for (&x, (r, c)) in p.mass.iter() {
                mv[r] += x * kept.v[c];
            }
            for c in 9..15 {
                assert!((mv[c] - p.force[c]).abs() <= 1e-14 * p.force[c].abs().max(1.0));
            }
        }
    }
}

#[test]
fn bad_spatial_input_is_a_typed_error() {
    let mut world = World::new([0.0, 0.0, -G], 0.01);
    world.stack(
        Cube {
            m: 1.0,
            a: 0.1,
            centre: [0.0, 0.0, 0.1],
        },
        None,
        0.5,
    );
    let p = world.problem();
    let run = |p: &VelocityProblem| {
        let k = 3 * p.mu.len();
        let (mut r, mut v, mut u) = (vec![0.0; k], vec![0.0; p.force.len()], vec![0.0; k]);
        PrimalSolver::new().solve_in_place(p, &tight(), &mut r, &mut v, &mut u)
    };
    let mut four = p.clone();
    four.rows.dimension = 4;
    assert!(matches!(
        run(&four),
        Err(zwang_contact::GlobalError::Problem(
            ProblemError::Dimension(4)
        ))
    ));
    // Planar entries in a spatial problem: the values do not add up.
    let mut planar_entries = p.clone();
    planar_entries.rows.clear();
    for _ in 0..4 {
        planar_entries.rows.push([(2, [1.0, 0.0])]);
    }
    assert!(matches!(
        run(&planar_entries),
        Err(zwang_contact::GlobalError::Problem(
            ProblemError::Size { .. }
        ))
    ));
    let mut short_b = p.clone();
    short_b.b.pop();
    assert!(run(&short_b).is_err());
}

/// The bug: a box standing on an edge over the floor, in a landing
/// pile. The outer iterations settle next to the convex form's answer
/// (one corner sticking), where the exact law has none, and the finish,
/// with a fixed weak proximal weight, stayed there: error 6.9e-4. Siconos'
/// PROX, whose weight follows the error, finds the answer with both
/// corners sliding; so does the finish now.
#[test]
fn a_box_edge_sliding_at_both_corners_is_found_as_siconos_finds_it() {
    let a = solve_dumped(include_str!("../data/box_edge_sliding_at_both_corners.txt"));
    // Siconos 4.4's answer for the two corners (the data file's header).
    let siconos = [
        2.9918966066041796e-3,
        1.4945224416639227e-3,
        -6.529929184424009e-5,
        7.75044131737114e-2,
        3.229343604499443e-2,
        -2.1421192864969466e-2,
    ];
    for (x, y) in a.r.iter().zip(siconos) {
        assert!((x - y).abs() <= 1e-8 * y.abs(), "{x} against Siconos' {y}");
    }
    for corner in 0..2 {
        let slip = a.u[3 * corner + 1].hypot(a.u[3 * corner + 2]);
        assert!(slip > 1e-4, "corner {corner} slides at {slip} m/s");
    }
}

/// A problem dumped from a run (see the data file's header), solved from
/// its warm start: solved, under Coulomb's and Newton's laws to 1e-10.
fn solve_dumped(text: &str) -> Answer {
    let (p, warm) = read_problem(text);
    p.validate().unwrap();
    let a = solve_with(&mut PrimalSolver::new(), &p, &tight(), Some(&warm));
    assert_eq!(a.status, Status::Solved);
    check_laws(&p, &a, Friction::Exact, 1e-10);
    a
}

/// A problem written one item a line (see the data file's header).
fn read_problem(text: &str) -> (VelocityProblem, Vec<f64>) {
    let island = parse_island(text).unwrap();
    (island.problem, island.warm)
}

/// An island written as text reads back the same, to the bit; a damaged
/// one is a typed error naming the item.
#[test]
fn an_island_written_as_text_reads_back_the_same() {
    let (p, warm) = read_problem(include_str!("../data/box_landing_on_four_corners.txt"));
    let settings = SolverSettings {
        friction: Friction::Convex,
        tolerance: 5e-11,
        finish_steps: 30,
        ..SolverSettings::default()
    };
    let text = write_island(&p, &warm, Some(&settings), "two lines\nof comment");
    assert!(text.starts_with("# two lines\n# of comment\n"));
    let island = parse_island(&text).unwrap();
    assert_eq!((&island.problem, &island.warm), (&p, &warm));
    assert_eq!(island.settings, Some(settings));
    let bare = write_island(&p, &warm, None, "");
    assert_eq!(parse_island(&bare).unwrap().settings, None);
    // A blank line after the warm start is no settings.
    assert_eq!(parse_island(&format!("{bare}\n")).unwrap().settings, None);
    assert!(matches!(
        parse_island(&text.replace("convex 5e-11", "convex -1")),
        Err(IslandTextError::Syntax { item: 12, .. }) | Err(IslandTextError::Problem(_))
    ));
    let cut: String = text.lines().take(8).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        parse_island(&cut),
        Err(IslandTextError::Truncated { item: 7 })
    );
    let bad = text.replacen("\n3\n", "\nthree\n", 1);
    assert!(matches!(
        parse_island(&bad),
        Err(IslandTextError::Syntax { item: 5, .. })
    ));
}

/// A solver told where to write unsolved islands writes an island it
/// leaves unsolved (here by one outer iteration and no finish) there, with
/// the warm start and settings it was solved with, and nothing for one it
/// solves.
#[test]
fn an_unsolved_island_is_written_where_the_solver_is_told() {
    let (p, warm) = read_problem(include_str!("../data/box_landing_on_four_corners.txt"));
    let directory = std::env::temp_dir().join(format!("zwang-islands-{}", std::process::id()));
    let mut solver = PrimalSolver::new();
    solver.write_unsolved_to(Some(directory.clone()));
    let settings = SolverSettings {
        max_iterations: 1,
        finish_steps: 0,
        ..tight()
    };
    let a = solve_with(&mut solver, &p, &settings, Some(&warm));
    assert_eq!(a.status, Status::NotConverged);
    // Solved: nothing more is written.
    let b = solve_with(&mut solver, &p, &tight(), Some(&warm));
    assert_eq!(b.status, Status::Solved);
    let written: Vec<_> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    std::fs::remove_dir_all(&directory).unwrap();
    assert_eq!(written.len(), 1);
    // The text keeps the friction law, tolerance and finish steps.
    let island = IslandText {
        problem: p,
        warm,
        settings: Some(SolverSettings {
            max_iterations: SolverSettings::default().max_iterations,
            ..settings
        }),
    };
    assert_eq!(parse_island(&written[0]), Ok(island));
}

/// The bug: a box sliding on four corners walked its load between them
/// by 1e-5 an outer iteration, the error stuck at 5e-5, and the finish
/// spent its budget without an answer. The walk is now taken in one jump
/// along the cone's surface, to where a corner lifts.
#[test]
fn a_box_sliding_on_four_corners_does_not_walk_its_load_forever() {
    let (p, warm) = read_problem(include_str!("../data/box_sliding_on_four_corners.txt"));
    p.validate().unwrap();
    let settings = tight();
    let a = solve_with(&mut PrimalSolver::new(), &p, &settings, Some(&warm));
    assert_eq!(a.status, Status::Solved);
    check_laws(&p, &a, Friction::Exact, 1e-10);
    // Every corner slides; one of them lifts.
    for i in 0..4 {
        let t = a.u[3 * i + 1].hypot(a.u[3 * i + 2]);
        assert!(t > 1e-3, "corner {i} slides at {t}");
    }
    let lifted = (0..4).filter(|&i| a.r[3 * i] == 0.0).count();
    assert_eq!(lifted, 1, "{:?}", a.r);
}

/// The bug: a box landing on four corners spent its outer iterations
/// trying a stiffer penalty for 30 Newton steps, failing, softening it
/// and trying again, 570 Newton steps in all for an error of 1e-5. A
/// stiffer penalty now gets 10 steps.
#[test]
fn a_box_landing_on_four_corners_does_not_retry_a_stiffer_penalty_at_length() {
    let a = solve_dumped(include_str!("../data/box_landing_on_four_corners.txt"));
    assert!(a.newton_steps < 300, "{} Newton steps", a.newton_steps);
    // Three corners slide; the fourth lifts off the floor.
    let lifted: Vec<usize> = (0..4).filter(|&i| a.r[3 * i] == 0.0).collect();
    assert_eq!(lifted.len(), 1, "{:?}", a.r);
    assert!(a.u[3 * lifted[0]] > 0.0);
}

/// The bug: two boxes of a landing pile, one on four corners whose gap
/// terms do not let all four keep `u_N = 0`, three of them sliding at
/// 3e-8 m/s or less. The finish left the island at 1.6e-8 (1.1e-10 after
/// 5,000 Newton steps): its residual is not smooth at the verge of
/// sliding. Its pieces solved as smooth equations (the polish), one
/// corner lifts and the law holds to round-off, checked here contact by
/// contact, not by the library's measure.
#[test]
fn two_boxes_at_the_verge_of_sliding_with_a_corner_that_must_lift_are_solved() {
    let text = include_str!("../data/two_boxes_at_the_verge_of_sliding.txt");
    let (a, u, tol) = solve_dumped_by_contact(text);
    // One corner of the face carries nothing and separates.
    let lifted = (0..4)
        .filter(|&i| a.r[3 * i] <= tol && u[3 * i] > tol)
        .count();
    assert_eq!(lifted, 1, "r {:?}, u {u:?}", a.r);
}

/// Regression: an island of a landing pile whose polish stopped 7.6e-10
/// from the answer: its Newton steps, long along a nearly null direction
/// of the impulses, were undone by the cone's curvature (no halving
/// gained, or a fraction of what the linearisation promised). With its
/// proximal weight damped as Levenberg and Marquardt's, the law holds,
/// checked contact by contact.
#[test]
fn six_boxes_whose_polish_steps_the_cone_undoes_are_solved() {
    solve_dumped_by_contact(include_str!(
        "../data/six_boxes_whose_polish_steps_the_cone_undoes.txt"
    ));
}

/// Regression: an island of a landing pile whose polish went away from
/// the answer: its first step, cut where a sticking contact's impulse
/// reaches the cone's surface, was long along a nearly null direction of
/// the impulses, the residual there far above where it started, and the
/// pieces changed round after round farther off. Where the bold steps end unsolved, cautious ones
/// (a cut step no worse than its start, or tried stiffer) solve it,
/// checked contact by contact.
#[test]
fn eleven_boxes_whose_polish_cut_steps_lead_away_are_solved() {
    solve_dumped_by_contact(include_str!(
        "../data/eleven_boxes_whose_polish_cut_steps_lead_away.txt"
    ));
}

/// Regression: an island of a landing pile whose finish ended 9.3e-10
/// from the answer: its full Newton steps crossed a contact's change of
/// piece, Armijo refused them, and the damped steps crawled towards the
/// kink, a factorisation each. A full step refused is now taken once on
/// trial (a watchdog: the point before comes back if the next steps do
/// not gain), and the law holds, checked contact by contact.
#[test]
fn five_boxes_whose_finish_crawls_to_a_kink_are_solved() {
    solve_dumped_by_contact(include_str!(
        "../data/five_boxes_whose_finish_crawls_to_a_kink.txt"
    ));
}

/// Regression: a robot at rest on the floor with one contact grazing it
/// (no impulse, sliding, its normal velocity near zero). The polish
/// entered that contact sliding with no speed and an arbitrary
/// direction, went back to open at once, and cycled there 6e-10 from the
/// answer; entered at its velocity's speed, against that velocity, the
/// law holds, checked contact by contact.
#[test]
fn a_humanoid_with_a_grazing_contact_is_solved() {
    solve_dumped_by_contact(include_str!("../data/humanoid_with_a_grazing_contact.txt"));
}

/// [`solve_dumped`], and Coulomb's law at each contact of the answer, to
/// `1e-10` of the impulses' or velocities' norm (returned, with the answer
/// and its contact velocities): no pull, no approach, in the cone, no
/// impulse or no motion along the normal, and a sliding contact's
/// friction on the cone's surface against its motion.
fn solve_dumped_by_contact(text: &str) -> (Answer, Vec<f64>, f64) {
    let a = solve_dumped(text);
    let (p, _) = read_problem(text);
    let u = contact_velocities(&p, &a.v);
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let tol = 1e-10 * norm(&a.r).max(norm(&u));
    for (i, &mu) in p.mu.iter().enumerate() {
        let (r, w) = (&a.r[3 * i..3 * i + 3], &u[3 * i..3 * i + 3]);
        let (rt, ut) = (r[1].hypot(r[2]), w[1].hypot(w[2]));
        assert!(
            r[0] >= -tol && w[0] >= -tol,
            "contact {i}: r {r:?}, u {w:?}"
        );
        assert!(rt <= mu * r[0] + tol, "contact {i} outside its cone: {r:?}");
        // Either no impulse, or closed (`u_N = 0`).
        assert!(r[0].min(w[0]) <= tol, "contact {i}: r {r:?}, u {w:?}");
        if ut > tol {
            // Sliding: the impulse on the surface, against the motion
            // (`r_T |u_T| = -mu r_N u_T`, weighed by the speed: a slow
            // slide's direction is known to the velocities' tolerance
            // over its speed).
            for t in 1..3 {
                let opposed = r[t] * ut + mu * r[0] * w[t];
                assert!(opposed.abs() <= tol, "contact {i}: r {r:?}, u {w:?}");
            }
        }
    }
    (a, u, tol)
}

/// Regression: a joint at its limit and at rest in a falling model (one
/// frictionless row whose free velocity, impulse and velocity are all
/// round-off, 1e-18) could not be solved below 1e-4 relative to that
/// round-off; with the measure absolute below `DBL_EPSILON`, as Siconos'
/// is, it is solved where it starts: no impulse, the free motion
/// (Newton's law to round-off), the row kept to round-off of the speeds.
#[test]
fn a_limit_at_rest_in_a_falling_model_is_solved_where_it_starts() {
    let island = parse_island(include_str!("../data/limit_at_rest_in_free_fall.txt")).unwrap();
    let p = island.problem;
    p.validate().unwrap();
    let settings = SolverSettings {
        absolute_below: f64::EPSILON,
        ..tight()
    };
    let a = solve_with(&mut PrimalSolver::new(), &p, &settings, Some(&island.warm));
    assert_eq!(a.status, Status::Solved);
    let speed = a.v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let weight = p.force.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(
        a.r[0] >= 0.0 && a.r[0] <= 1e-15 * weight,
        "r_N = {:e}",
        a.r[0]
    );
    assert!(a.u[0] >= -1e-15 * speed, "u_N = {:e}", a.u[0]);
    // M v = f + J^T r, J the row's single entry.
    let mut residual = p.force.iter().map(|f| -f).collect::<Vec<_>>();
    for (&m, (i, j)) in p.mass.iter() {
        residual[i] += m * a.v[j];
    }
    residual[p.rows.cols[0]] -= p.rows.values[0] * a.r[0];
    let worst = residual.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(worst <= 1e-14 * weight, "|M v - f - J^T r| = {worst:e}");

    let bad = SolverSettings {
        absolute_below: -1.0,
        ..tight()
    };
    assert!(matches!(
        bad.validate(),
        Err(ProblemError::Setting {
            name: "absolute_below",
            ..
        })
    ));
}
