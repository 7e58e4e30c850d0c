//! The Delassus operator `W = J M^-1 J^T` of contact rows and a diagonal
//! `M`: `d` rows per contact (normal, then the tangents), sparse (contacts
//! couple only through a coordinate they share), written in place while
//! its pattern stays so that a solver's analysis of it does too.

use sprs::CsMat;

use crate::{ContactRows, LocalProblem};

/// The builder's working memory: the pattern and values as written, the
/// contacts on each coordinate, one contact's neighbours.
#[derive(Debug, Default)]
pub struct Delassus {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
    touching: Vec<Vec<usize>>,
    near: Vec<usize>,
}

impl Delassus {
    /// A builder with empty working memory.
    pub fn new() -> Self {
        Delassus::default()
    }

    /// Writes `W` of `rows` (`minv` the diagonal of `M^-1`) into
    /// `problem.w`: in place when its pattern is the one written, a new
    /// matrix otherwise.
    pub fn write(&mut self, rows: &ContactRows, minv: &[f64], problem: &mut LocalProblem) {
        let (k, d) = (rows.contacts(), rows.dimension);
        problem.dimension = d;
        self.touching.resize_with(minv.len(), Vec::new);
        self.touching.iter_mut().for_each(Vec::clear);
        for i in 0..k {
            for &col in &rows.cols[rows.start[i]..rows.start[i + 1]] {
                if self.touching[col].last() != Some(&i) {
                    self.touching[col].push(i);
                }
            }
        }
        self.indptr.clear();
        self.indices.clear();
        self.data.clear();
        self.indptr.push(0);
        for i in 0..k {
            let own = rows.start[i]..rows.start[i + 1];
            self.near.clear();
            for &col in &rows.cols[own.clone()] {
                self.near.extend_from_slice(&self.touching[col]);
            }
            self.near.sort_unstable();
            self.near.dedup();
            // Rows d i .. d i + d (normal, tangents): the d x d block of
            // each neighbour j, `J_i M^-1 J_j^T` over their shared columns.
            for row in 0..d {
                for &j in &self.near {
                    let mut block = [0.0; 3];
                    for a in own.clone() {
                        let col = rows.cols[a];
                        let ji = rows.entry(a)[row];
                        for b in rows.start[j]..rows.start[j + 1] {
                            if rows.cols[b] == col {
                                let jj = rows.entry(b);
                                for (x, y) in block.iter_mut().zip(jj) {
                                    *x += ji * minv[col] * y;
                                }
                            }
                        }
                    }
                    self.indices.extend(d * j..d * j + d);
                    self.data.extend_from_slice(&block[..d]);
                }
                self.indptr.push(self.indices.len());
            }
        }
        self.store(d * k, &mut problem.w);
    }

    /// Writes `W = J Y` of `rows` into `problem.w` from the responses
    /// `Y = M_E^-1 J^T`, one per contact row (the velocity an impulse along
    /// the row makes, joints held: `M_E` is `M` with them): every pair of
    /// contacts may couple through the joints, so `W` is stored dense.
    pub fn write_from(
        &mut self,
        rows: &ContactRows,
        responses: &[Vec<f64>],
        problem: &mut LocalProblem,
    ) {
        let d = rows.dimension;
        problem.dimension = d;
        self.indptr.clear();
        self.indices.clear();
        self.data.clear();
        self.indptr.push(0);
        for i in 0..rows.contacts() {
            let own = rows.start[i]..rows.start[i + 1];
            for row in 0..d {
                for (col, y) in responses.iter().enumerate() {
                    let value: f64 = own
                        .clone()
                        .map(|a| rows.entry(a)[row] * y[rows.cols[a]])
                        .sum();
                    self.indices.push(col);
                    self.data.push(value);
                }
                self.indptr.push(self.indices.len());
            }
        }
        self.store(d * rows.contacts(), &mut problem.w);
    }

    /// The written pattern and values as `w` (`m x m`, by rows): in place
    /// when its pattern is the one written.
    fn store(&self, m: usize, w: &mut CsMat<f64>) {
        let same = w.rows() == m
            && w.is_csr()
            && w.indptr().raw_storage() == self.indptr.as_slice()
            && w.indices() == self.indices.as_slice();
        if same {
            w.data_mut().copy_from_slice(&self.data);
        } else {
            *w = CsMat::new(
                (m, m),
                self.indptr.clone(),
                self.indices.clone(),
                self.data.clone(),
            );
        }
    }
}
