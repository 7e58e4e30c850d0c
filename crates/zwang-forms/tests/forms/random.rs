//! Seeded random instants: the three forms and Clarabel give the same
//! motion, and the forms satisfy their equations to round-off; with
//! contacts, the forms given the contact set Clarabel found certify it.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zwang_forms::{Form, MultiplierForm, NullSpaceForm, UdwadiaKalabaForm};
use zwang_instant::{matrix_from_triplets, Instant};
use zwang_qp::{Backend, ClarabelBackend, Solution, Status};

/// A symmetric positive definite mass: diagonal blocks of 1 to 6
/// (`B B^T + I/10`, scaled by `10^[-1, 1]`), or, when `coupled`, a sparse
/// matrix with a band and a few long-range couplings made diagonally
/// dominant (for `n > 48` that takes the sparse Cholesky path).
fn random_mass(rng: &mut ChaCha8Rng, n: usize, coupled: bool) -> Vec<(usize, usize, f64)> {
    let mut t = Vec::new();
    if coupled {
        let mut diag = vec![0.0; n];
        let mut couple = |i: usize, j: usize, v: f64, diag: &mut Vec<f64>| {
            t.push((i, j, v));
            t.push((j, i, v));
            diag[i] += v.abs();
            diag[j] += v.abs();
        };
        for i in 0..n {
            for d in 1..=2 {
                if i + d < n {
                    couple(i, i + d, rng.gen_range(-1.0..1.0), &mut diag);
                }
            }
        }
        for _ in 0..n / 10 {
            let (i, j) = (rng.gen_range(0..n), rng.gen_range(0..n));
            if i != j {
                couple(i, j, rng.gen_range(-1.0..1.0), &mut diag);
            }
        }
        for (i, d) in diag.into_iter().enumerate() {
            t.push((i, i, d + rng.gen_range(0.1..2.0)));
        }
    } else {
        let mut start = 0;
        while start < n {
            let size = rng.gen_range(1..=6).min(n - start);
            let scale = 10f64.powf(rng.gen_range(-1.0..1.0));
            let b: Vec<f64> = (0..size * size).map(|_| rng.gen_range(-1.0..1.0)).collect();
            for i in 0..size {
                for j in 0..size {
                    let bbt: f64 = (0..size).map(|k| b[i * size + k] * b[j * size + k]).sum();
                    let v = scale * (bbt + if i == j { 0.1 } else { 0.0 });
                    t.push((start + i, start + j, v));
                }
            }
            start += size;
        }
    }
    t
}

/// `m` sparse rows of full rank: row `i` has a large entry on its own
/// pivot column (distinct per row, so the structural rank is `m`) and up
/// to four small random others.
fn random_rows(rng: &mut ChaCha8Rng, n: usize, m: usize) -> Vec<(usize, usize, f64)> {
    let mut columns: Vec<usize> = (0..n).collect();
    for i in 0..m {
        let j = rng.gen_range(i..n);
        columns.swap(i, j);
    }
    let mut t = Vec::new();
    for (i, &pivot) in columns[..m].iter().enumerate() {
        let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        t.push((i, pivot, sign * rng.gen_range(1.0..2.0)));
        for _ in 0..rng.gen_range(0..=4) {
            let j = rng.gen_range(0..n);
            if j != pivot {
                t.push((i, j, rng.gen_range(-0.5..0.5)));
            }
        }
    }
    t
}

fn random_instant(seed: u64, n: usize, coupled: bool, duplicate: bool) -> Instant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let m = rng.gen_range(0..n);
    let mass = matrix_from_triplets("mass", (n, n), random_mass(&mut rng, n, coupled)).unwrap();
    let force = (0..n).map(|_| rng.gen_range(-10.0..10.0)).collect();
    let mut rows = random_rows(&mut rng, n, m);
    let mut rhs: Vec<f64> = (0..m).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let m = if duplicate && m > 0 {
        // Row m repeats row 0 (same right-hand side: consistent).
        let copy: Vec<_> = rows
            .iter()
            .filter(|e| e.0 == 0)
            .map(|&(_, j, v)| (m, j, v))
            .collect();
        rows.extend(copy);
        rhs.push(rhs[0]);
        m + 1
    } else {
        m
    };
    let a = matrix_from_triplets("equalities.A", (m, n), rows).unwrap();
    Instant::builder(mass, force)
        .equalities(a, rhs)
        .build()
        .unwrap()
}

fn inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// `|x - y|_inf / |y|_inf` (absolute when `y` vanishes).
fn rel_diff(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let d = x
        .iter()
        .zip(y)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    d / inf(y)
        .max(1e-300)
        .max(if inf(y) == 0.0 { 1.0 } else { 0.0 })
}

fn solve_all(instant: &Instant) -> [Solution; 3] {
    let forms: [&mut dyn Form; 3] = [
        &mut MultiplierForm::new(),
        &mut UdwadiaKalabaForm::new(),
        &mut NullSpaceForm::new(),
    ];
    forms.map(|f| {
        assert!(f.applies(instant));
        f.solve(instant)
    })
}

/// Sizes from 3 to 300, log-spaced, with both kinds of mass.
fn cases() -> impl Iterator<Item = (u64, usize, bool)> {
    (0..24u64).map(|seed| {
        let n = (3.0 * 100f64.powf(seed as f64 / 23.0)).round() as usize;
        (seed, n, seed % 3 == 2)
    })
}

#[test]
fn forms_agree_with_clarabel() {
    for (seed, n, coupled) in cases() {
        let instant = random_instant(seed, n, coupled, false);
        let qp = ClarabelBackend::new().solve(&instant);
        assert_eq!(qp.status, Status::Solved, "seed {seed}");
        let sols = solve_all(&instant);
        let m = instant.equalities().len();
        let mut free = instant.force().to_vec();
        instant.mass_factor_or_nan().solve_in_place(&mut free);
        let z_free = 0.5
            * free
                .iter()
                .zip(instant.force())
                .map(|(a, q)| a * q)
                .sum::<f64>();
        for s in &sols {
            let ctx = format!("seed {seed}, n {n}, m {m}, {}", s.backend);
            assert_eq!(s.status, Status::Solved, "{ctx}");
            assert!(s.residuals.max() < 1e-12, "{ctx}: {:?}", s.residuals);
            let da = rel_diff(&s.acceleration, &qp.acceleration);
            assert!(da < 1e-8, "{ctx}: acceleration differs by {da:e}");
            // Z against its natural scale 1/2 Q^T M^-1 Q (Z vanishes
            // without rows).
            let dz = (s.compulsion - qp.compulsion).abs();
            assert!(
                dz <= 1e-8 * (qp.compulsion + z_free),
                "{ctx}: Z {} vs {}",
                s.compulsion,
                qp.compulsion
            );
            if s.backend != "null_space" {
                let dl = rel_diff(&s.multipliers_eq, &qp.multipliers_eq);
                assert!(dl < 1e-8, "{ctx}: multipliers differ by {dl:e}");
            }
        }
        // The forms among themselves: closer still.
        for s in &sols[1..] {
            let d = rel_diff(&s.acceleration, &sols[0].acceleration);
            assert!(d < 1e-10, "seed {seed}: {} vs multiplier: {d:e}", s.backend);
        }
        let dl = rel_diff(&sols[1].multipliers_eq, &sols[0].multipliers_eq);
        assert!(dl < 1e-10, "seed {seed}: multipliers {dl:e}");
    }
}

/// The same instants with row 0 written twice: the motion is unchanged and
/// the minimum-norm multipliers give each copy half the original force.
#[test]
fn duplicated_rows_share_the_force() {
    for (seed, n, coupled) in cases().filter(|c| c.0 % 2 == 0) {
        let once = random_instant(seed, n, coupled, false);
        let twice = random_instant(seed, n, coupled, true);
        let m = once.equalities().len();
        if m == 0 {
            continue;
        }
        let reference = solve_all(&once);
        for (s, r) in solve_all(&twice).iter().zip(&reference) {
            let ctx = format!("seed {seed}, n {n}, m {m}, {}", s.backend);
            assert_eq!(s.status, Status::Solved, "{ctx}");
            assert!(s.residuals.max() < 1e-12, "{ctx}: {:?}", s.residuals);
            let da = rel_diff(&s.acceleration, &r.acceleration);
            assert!(da < 1e-10, "{ctx}: acceleration {da:e}");
            if s.backend != "null_space" {
                let mut want = r.multipliers_eq.clone();
                want[0] /= 2.0;
                want.push(want[0]);
                let dl = rel_diff(&s.multipliers_eq, &want);
                assert!(dl < 1e-10, "{ctx}: multipliers {dl:e}");
            }
        }
    }
}

/// The rows of `instant` with every other one turned into a contact,
/// oriented by `sign(lambda_i) * flip` so that the contact pushes when
/// `flip = 1` (the closed-contact answer is then the QP's) and pulls when
/// `flip = -1`.
fn with_contacts(instant: &Instant, lambda: &[f64], flip: f64) -> Instant {
    let (n, eq) = (instant.dim(), instant.equalities());
    let contact = |i: usize| i % 2 == 1;
    let (mut keep, mut turn) = (Vec::new(), Vec::new());
    let (mut b_keep, mut b_turn) = (Vec::new(), Vec::new());
    for i in 0..eq.len() {
        let row = eq.matrix().outer_view(i).unwrap();
        if contact(i) {
            let s = flip * lambda[i].signum();
            let k = b_turn.len();
            turn.extend(row.iter().map(|(j, &v)| (k, j, s * v)));
            b_turn.push(s * eq.rhs()[i]);
        } else {
            let k = b_keep.len();
            keep.extend(row.iter().map(|(j, &v)| (k, j, v)));
            b_keep.push(eq.rhs()[i]);
        }
    }
    let a_eq = matrix_from_triplets("equalities.A", (b_keep.len(), n), keep).unwrap();
    let a_in = matrix_from_triplets("inequalities.A", (b_turn.len(), n), turn).unwrap();
    Instant::builder(instant.mass().clone(), instant.force().to_vec())
        .equalities(a_eq, b_keep)
        .inequalities(a_in, b_turn)
        .build()
        .unwrap()
}

/// Contacts that push: the two multiplier forms close them and agree with
/// the QP; the null-space form does not apply. Contacts that pull: the
/// all-closed answer is reported `Infeasible`.
#[test]
fn closed_contacts() {
    let mut tried = 0;
    for (seed, n, coupled) in cases().filter(|c| c.0 % 2 == 0 && c.1 < 100) {
        let instant = random_instant(seed, n, coupled, false);
        let lambda = MultiplierForm::new().solve(&instant).multipliers_eq;
        if lambda.len() < 2 {
            continue;
        }
        tried += 1;
        let pushing = with_contacts(&instant, &lambda, 1.0);
        let qp = ClarabelBackend::new().solve(&pushing);
        assert_eq!(qp.status, Status::Solved);
        assert!(NullSpaceForm::new()
            .not_applicable_reason(&pushing)
            .is_some());
        let pulling = with_contacts(&instant, &lambda, -1.0);
        for form in [
            &mut MultiplierForm::new() as &mut dyn Form,
            &mut UdwadiaKalabaForm::new(),
        ] {
            let s = form.solve(&pushing);
            let ctx = format!("seed {seed}, n {n}, {}", s.backend);
            assert_eq!(s.status, Status::Solved, "{ctx}");
            assert!(rel_diff(&s.acceleration, &qp.acceleration) < 1e-8, "{ctx}");
            assert!(
                rel_diff(&s.multipliers_in, &qp.multipliers_in) < 1e-8,
                "{ctx}"
            );
            let s = form.solve(&pulling);
            assert_eq!(s.status, Status::Infeasible, "{ctx}");
            assert!(s.multipliers_in.iter().all(|&l| l < 0.0), "{ctx}");
        }
    }
    assert!(tried >= 5, "only {tried} instants with two rows or more");
}

/// `once` with a row that combines its first two, `A_m = alpha A_0 +
/// beta A_1`, `b_m = alpha b_0 + beta b_1 + offset`.
fn with_combined_row(once: &Instant, alpha: f64, beta: f64, offset: f64) -> Instant {
    let (n, eq) = (once.dim(), once.equalities());
    let m = eq.len();
    let mut rows: Vec<(usize, usize, f64)> = Vec::new();
    for i in 0..m {
        let row = eq.matrix().outer_view(i).unwrap();
        rows.extend(row.iter().map(|(j, &v)| (i, j, v)));
        if i < 2 {
            let c = if i == 0 { alpha } else { beta };
            rows.extend(row.iter().map(|(j, &v)| (m, j, c * v)));
        }
    }
    let mut rhs = eq.rhs().to_vec();
    rhs.push(alpha * rhs[0] + beta * rhs[1] + offset);
    let a = matrix_from_triplets("equalities.A", (m + 1, n), rows).unwrap();
    Instant::builder(once.mass().clone(), once.force().to_vec())
        .equalities(a, rhs)
        .build()
        .unwrap()
}

/// A combined row with a consistent right-hand side (redundant, and not
/// exactly so in floating point, as in Bricard's mechanism): the motion is
/// that of the instant without it, and the minimum-norm multipliers are
/// orthogonal to the null vector `(alpha, beta, 0, ..., 0, -1)` of `A^T`.
/// With an inconsistent one: every form is `Infeasible` with the same
/// answer, whose violation `A a - b` satisfies the normal equations
/// `A^T (A a - b) = 0` (least squares).
#[test]
fn combined_rows() {
    let mut tried = 0;
    for (seed, n, coupled) in cases().filter(|c| c.1 >= 4) {
        let once = random_instant(seed, n, coupled, false);
        let m = once.equalities().len();
        if m < 2 {
            continue;
        }
        tried += 1;
        let (alpha, beta) = (0.3 + seed as f64 / 7.0, -1.1);
        let redundant = with_combined_row(&once, alpha, beta, 0.0);
        for (s, r) in solve_all(&redundant).iter().zip(&solve_all(&once)) {
            let ctx = format!("seed {seed}, n {n}, m {m}, {}", s.backend);
            assert_eq!(s.status, Status::Solved, "{ctx}: {:?}", s.residuals);
            assert!(s.residuals.max() < 1e-12, "{ctx}: {:?}", s.residuals);
            let da = rel_diff(&s.acceleration, &r.acceleration);
            assert!(da < 1e-10, "{ctx}: acceleration {da:e}");
            if s.backend != "null_space" {
                let l = &s.multipliers_eq;
                let along = alpha * l[0] + beta * l[1] - l[m];
                assert!(along.abs() < 1e-10 * inf(l), "{ctx}: {along:e}");
            }
        }
        let inconsistent = with_combined_row(&once, alpha, beta, 0.5);
        let eq = inconsistent.equalities();
        let sols = solve_all(&inconsistent);
        for s in &sols {
            let ctx = format!("seed {seed}, n {n}, m {m}, {}", s.backend);
            assert_eq!(s.status, Status::Infeasible, "{ctx}");
            let mut v = vec![0.0; m + 1];
            eq.mul_into(&s.acceleration, &mut v);
            for (vi, b) in v.iter_mut().zip(eq.rhs()) {
                *vi -= b;
            }
            let mut normal = vec![0.0; n];
            eq.add_transpose_mul(&v, &mut normal);
            assert!(inf(&normal) < 1e-10 * inf(&v), "{ctx}: {:e}", inf(&normal));
            let da = rel_diff(&s.acceleration, &sols[0].acceleration);
            assert!(da < 1e-10, "{ctx}: acceleration {da:e}");
        }
        let dl = rel_diff(&sols[1].multipliers_eq, &sols[0].multipliers_eq);
        assert!(dl < 1e-10, "seed {seed}: multipliers {dl:e}");
    }
    assert!(tried >= 10);
}

/// Units: `M` and `Q` times `1e-6`, each row times `10^[-3, 3]`. The
/// motion is unchanged, each multiplier is divided by its row's factor and
/// multiplied by `1e-6`, and the tolerances (all relative) still call
/// every answer solved.
#[test]
fn answers_do_not_depend_on_the_units() {
    for (seed, n, coupled) in cases().filter(|c| c.0 % 4 == 1) {
        let base = random_instant(seed, n, coupled, false);
        let mut rng = ChaCha8Rng::seed_from_u64(seed + 1000);
        let eq = base.equalities();
        let factors: Vec<f64> = (0..eq.len())
            .map(|_| 10f64.powf(rng.gen_range(-3.0..3.0)))
            .collect();
        let rows = (0..eq.len()).flat_map(|i| {
            let f = factors[i];
            eq.matrix()
                .outer_view(i)
                .unwrap()
                .iter()
                .map(move |(j, &v)| (i, j, f * v))
                .collect::<Vec<_>>()
        });
        let rhs = eq.rhs().iter().zip(&factors).map(|(b, f)| b * f).collect();
        let mass = base.mass().map(|v| 1e-6 * v);
        let scaled = Instant::builder(mass, base.force().iter().map(|q| 1e-6 * q).collect())
            .equalities(
                matrix_from_triplets("equalities.A", (eq.len(), n), rows).unwrap(),
                rhs,
            )
            .build()
            .unwrap();
        for (s, r) in solve_all(&scaled).iter().zip(&solve_all(&base)) {
            let ctx = format!("seed {seed}, n {n}, {}", s.backend);
            assert_eq!(s.status, Status::Solved, "{ctx}");
            assert!(s.residuals.max() < 1e-12, "{ctx}: {:?}", s.residuals);
            assert!(rel_diff(&s.acceleration, &r.acceleration) < 1e-10, "{ctx}");
            if s.backend != "null_space" {
                let want: Vec<f64> = r
                    .multipliers_eq
                    .iter()
                    .zip(&factors)
                    .map(|(l, f)| 1e-6 * l / f)
                    .collect();
                let d = s
                    .multipliers_eq
                    .iter()
                    .zip(&want)
                    .map(|(x, y)| (x - y).abs() / y.abs())
                    .fold(0.0, f64::max);
                assert!(d < 1e-8, "{ctx}: multipliers {d:e}");
            }
        }
    }
}

/// A random instant with contacts: `m_eq` equality rows and `m_in`
/// inequality rows, all of them of full rank together (distinct pivots,
/// so every contact set is feasible), right-hand sides in `[-1, 1]`
/// and forces in `[-10, 10]`, so that some contacts open and some close.
fn random_instant_with_contacts(seed: u64, n: usize, coupled: bool) -> Instant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed + 5000);
    let m = rng.gen_range(1..n.max(2)).min(n);
    let m_eq = rng.gen_range(0..=m / 2);
    let m_in = m - m_eq;
    let mass = matrix_from_triplets("mass", (n, n), random_mass(&mut rng, n, coupled)).unwrap();
    let force = (0..n).map(|_| rng.gen_range(-10.0..10.0)).collect();
    let all = random_rows(&mut rng, n, m);
    let rhs: Vec<f64> = (0..m).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let eq: Vec<_> = all.iter().copied().filter(|e| e.0 < m_eq).collect();
    let ineq: Vec<_> = all
        .iter()
        .filter(|e| e.0 >= m_eq)
        .map(|&(i, j, v)| (i - m_eq, j, v))
        .collect();
    Instant::builder(mass, force)
        .equalities(
            matrix_from_triplets("equalities.A", (m_eq, n), eq).unwrap(),
            rhs[..m_eq].to_vec(),
        )
        .inequalities(
            matrix_from_triplets("inequalities.A", (m_in, n), ineq).unwrap(),
            rhs[m_eq..].to_vec(),
        )
        .build()
        .unwrap()
}

/// Contacts that open and close: the contact set Clarabel finds, handed
/// to every form, is certified (`Solved`) by each of them, and the forms
/// agree with Clarabel on the accelerations (all three) and on every
/// multiplier (the two that give them; zero on the open contacts) to
/// `1e-7` relative. Flipping one contact of the set makes the two forms
/// with multipliers say `Infeasible` (a closed contact pulls or an open
/// one is gone through), the null-space form too when the flipped contact
/// was closed (it is then gone through).
#[test]
fn forms_check_the_contact_set_of_the_qp() {
    let (mut open, mut closed) = (0, 0);
    for (seed, n, coupled) in cases().filter(|c| c.1 < 150) {
        let instant = random_instant_with_contacts(seed, n, coupled);
        let qp = ClarabelBackend::new().solve(&instant);
        assert_eq!(qp.status, Status::Solved, "seed {seed}");
        let set = zwang_forms::contact_set_of(&instant, &qp);
        closed += set.iter().filter(|&&c| c).count();
        open += set.iter().filter(|&&c| !c).count();
        let forms: [&mut dyn Form; 3] = [
            &mut MultiplierForm::with_contact_set(set.clone()),
            &mut UdwadiaKalabaForm::with_contact_set(set.clone()),
            &mut NullSpaceForm::with_contact_set(set.clone()),
        ];
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        for form in forms {
            let ctx = format!(
                "seed {seed}, n {n}, m_eq {m_eq}, set {set:?}, {}",
                form.name()
            );
            assert!(form.not_applicable_reason(&instant).is_none(), "{ctx}");
            let s = form.solve(&instant);
            assert_eq!(s.status, Status::Solved, "{ctx}: {:?}", s.residuals);
            assert!(s.residuals.max() < 1e-12, "{ctx}: {:?}", s.residuals);
            let da = rel_diff(&s.acceleration, &qp.acceleration);
            assert!(da < 1e-7, "{ctx}: acceleration differs by {da:e}");
            assert_eq!(
                (s.multipliers_eq.len(), s.multipliers_in.len()),
                (m_eq, m_in)
            );
            if form.gives_multipliers() {
                let mut got = s.multipliers_eq.clone();
                got.extend(&s.multipliers_in);
                let mut want = qp.multipliers_eq.clone();
                want.extend(&qp.multipliers_in);
                // Relative to the multipliers, or to the forces where
                // every contact is open (the QP's multipliers then sit at
                // its tolerance, the forms' are 0); the rows' entries are
                // of order 1.
                let scale = inf(&want).max(inf(instant.force()));
                let dl = inf(&got
                    .iter()
                    .zip(&want)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>())
                    / scale;
                assert!(dl < 1e-7, "{ctx}: multipliers differ by {dl:e}");
                for (l, &c) in s.multipliers_in.iter().zip(&set) {
                    assert!(c || *l == 0.0, "{ctx}");
                }
            } else {
                assert!(s
                    .multipliers_eq
                    .iter()
                    .chain(&s.multipliers_in)
                    .all(|l| l.is_nan()));
            }
            // One contact flipped: the set is no longer the motion.
            let flip = (seed as usize) % m_in;
            let mut wrong = set.clone();
            wrong[flip] = !wrong[flip];
            form.set_contact_set(Some(wrong));
            let s = form.solve(&instant);
            if form.gives_multipliers() || set[flip] {
                assert_eq!(s.status, Status::Infeasible, "{ctx}: flipped {flip}");
            }
        }
    }
    assert!(open >= 10 && closed >= 10, "{open} open, {closed} closed");
}
