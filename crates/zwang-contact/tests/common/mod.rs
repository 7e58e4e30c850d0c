//! What the tests that ask Clarabel share.

use clarabel::algebra::CscMatrix;
use clarabel::solver::DefaultSettings;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sprs::{CsMat, TriMat};
use zwang_problems::generate::spatial::{Cube, World};

/// The upper triangle of a symmetric matrix, as Clarabel's `P`.
pub fn upper_triangle(m: &CsMat<f64>) -> CscMatrix<f64> {
    let n = m.rows();
    let (colptr, rowval, nzval) = zwang_instant::mass::upper_triangle(m);
    CscMatrix::new(n, n, colptr, rowval, nzval)
}

/// Clarabel's `A` from its columns' entries `(row, value)` (summed where a
/// row repeats), with `rows` rows.
pub fn columns(rows: usize, cols: &mut [Vec<(usize, f64)>]) -> CscMatrix<f64> {
    let mut colptr = vec![0];
    let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
    for col in cols.iter_mut() {
        col.sort_by_key(|e| e.0);
        let mut merged: Vec<(usize, f64)> = Vec::new();
        for &(i, v) in col.iter() {
            match merged.last_mut() {
                Some(last) if last.0 == i => last.1 += v,
                _ => merged.push((i, v)),
            }
        }
        for (i, v) in merged {
            rowval.push(i);
            nzval.push(v);
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(rows, cols.len(), colptr, rowval, nzval)
}

/// Clarabel at tolerances `tol`, quiet.
pub fn settings(tol: f64) -> DefaultSettings<f64> {
    DefaultSettings {
        verbose: false,
        tol_gap_abs: tol,
        tol_gap_rel: tol,
        tol_feas: tol,
        max_iter: 400,
        ..DefaultSettings::default()
    }
}

/// A random symmetric positive definite `M` of size `n`: diagonal, or
/// `A^T A + I / 2` (all entries) for a random `A`.
#[allow(dead_code)] // Not every test file that shares this module asks.
pub fn random_mass(rng: &mut ChaCha8Rng, n: usize, diagonal: bool) -> CsMat<f64> {
    let mut m = TriMat::new((n, n));
    if diagonal {
        for i in 0..n {
            m.add_triplet(i, i, rng.gen_range(0.1..10.0));
        }
    } else {
        let a: Vec<f64> = (0..n * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n).map(|l| a[l * n + i] * a[l * n + j]).sum();
                m.add_triplet(i, j, dot + if i == j { 0.5 } else { 0.0 });
            }
        }
    }
    m.to_csc()
}

/// A world of gravity `g` and step `h` holding one cube (mass `m`, half
/// side `a`) resting on the floor, with friction `mu`.
pub fn cube_on_floor(g: [f64; 3], h: f64, m: f64, a: f64, mu: f64) -> World {
    let mut world = World::new(g, h);
    let centre = [0.0, 0.0, a];
    world.stack(Cube { m, a, centre }, None, mu);
    world
}
