//! What the tests that ask Clarabel share.

use clarabel::algebra::CscMatrix;
use clarabel::solver::DefaultSettings;
use sprs::CsMat;

/// The upper triangle of a symmetric matrix, as Clarabel's `P`.
pub fn upper_triangle(m: &CsMat<f64>) -> CscMatrix<f64> {
    let n = m.rows();
    let m = m.to_csc();
    let mut colptr = vec![0];
    let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
    for (j, col) in m.outer_iterator().enumerate() {
        for (i, &v) in col.iter() {
            if i <= j {
                rowval.push(i);
                nzval.push(v);
            }
        }
        colptr.push(rowval.len());
    }
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
