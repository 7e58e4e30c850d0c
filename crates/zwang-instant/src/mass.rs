//! The factorization of the mass matrix. Each solver owns one in its
//! workspace (analysed once per pattern, refactored in place per instant);
//! reference code makes a fresh one with `Instant::mass_factor`.
//!
//! Free rigid bodies give a block-diagonal `M` with tiny dense blocks
//! (2x2, 3x3, 6x6): those are factored block by block with dense kernels, in
//! `O(n)` time and memory, and `M^-1` stays block diagonal, which is what
//! makes the Schur complement `A M^-1 A^T` sparse. Anything else (a chain
//! in generalized coordinates) goes to faer's sparse Cholesky.

use crate::dense;
use crate::sparse_cholesky::SparseCholesky;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use sprs::CsMat;

/// Largest diagonal block factored densely; larger coupled groups use the
/// sparse factorization.
pub const MAX_DENSE_BLOCK: usize = 48;

/// `M = L L^T`, either block by block or as one sparse factor.
///
/// The factor owns its scratch, so solving with it needs `&mut self` but no
/// lock: the solvers keep one in their workspace, analysed once per
/// sparsity pattern and refactored in place ([`MassFactor::refactor`]) when
/// only the values of `M` change, without allocating.
#[derive(Debug)]
pub struct MassFactor {
    n: usize,
    /// The pattern the analysis was made for (`indptr`, `indices` of the
    /// compressed rows), compared on every refactor so that a matrix of
    /// another pattern is re-analysed rather than misread.
    indptr: Vec<usize>,
    indices: Vec<usize>,
    /// Whether the last numeric factorization succeeded.
    ok: bool,
    /// The values of `M` the factor holds, so that a refactor with the same
    /// values (a mass that is constant in time) costs one comparison.
    seen: Vec<f64>,
    storage: Storage,
}

#[derive(Debug)]
enum Storage {
    Blocks(BlockFactor),
    Sparse(Box<SparseMass>),
}

/// Contiguous diagonal blocks, each kept as its explicit inverse: the
/// blocks are tiny (rigid bodies have 2, 3 or 6 coordinates), so applying
/// `M_b^-1` is a small matrix-vector product with no divisions and no
/// dependency chain, several times faster than two triangular solves.
#[derive(Debug, Clone)]
struct BlockFactor {
    /// Block `k` covers coordinates `starts[k]..starts[k + 1]`.
    starts: Vec<usize>,
    /// Block `k`'s inverse, row-major, begins at `offsets[k]`.
    offsets: Vec<usize>,
    inverse: Vec<f64>,
    /// Where each stored entry of `M` goes in `values` (symbolic).
    dest: Vec<usize>,
    /// The blocks themselves, then their Cholesky factors (numeric scratch).
    values: Vec<f64>,
    /// One column of a block (scratch, as long as the largest block).
    col: Vec<f64>,
}

#[derive(Debug)]
struct SparseMass {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    vals: Vec<f64>,
    /// For each entry of the upper triangle, the stored entry of `M` it is
    /// copied from (symbolic).
    src: Vec<usize>,
    chol: SparseCholesky,
}

impl MassFactor {
    /// Analyses and factors `mass` (CSC or CSR, symmetric, full storage).
    /// Returns the first coordinate whose pivot is not positive on failure.
    pub fn new(mass: &CsMat<f64>) -> Result<Self, usize> {
        let mut f = Self::analyze(mass);
        f.refactor(mass)?;
        Ok(f)
    }

    /// The symbolic analysis of `mass`'s pattern, with no numeric factor
    /// yet (solving before a successful [`MassFactor::refactor`] gives NaN).
    pub fn analyze(mass: &CsMat<f64>) -> Self {
        let n = mass.rows();
        let (indptr, indices, _) = raw(mass);
        let starts = diagonal_blocks(mass);
        let largest = starts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let storage = if largest <= MAX_DENSE_BLOCK {
            let mut offsets = Vec::with_capacity(starts.len());
            let mut total = 0;
            for w in starts.windows(2) {
                offsets.push(total);
                total += (w[1] - w[0]) * (w[1] - w[0]);
            }
            let mut dest = Vec::with_capacity(indices.len());
            for row in 0..n {
                let b = starts.partition_point(|&s| s <= row) - 1;
                let (s0, size) = (starts[b], starts[b + 1] - starts[b]);
                for &col in &indices[indptr[row]..indptr[row + 1]] {
                    // Symmetric: row/column storage order does not matter.
                    dest.push(offsets[b] + (row - s0) * size + (col - s0));
                }
            }
            Storage::Blocks(BlockFactor {
                starts,
                offsets,
                inverse: vec![0.0; total],
                dest,
                values: vec![0.0; total],
                col: vec![0.0; largest],
            })
        } else {
            // Upper triangle in compressed columns: column j of the upper
            // triangle is row j's entries at columns <= j (M is symmetric).
            let mut col_ptr = Vec::with_capacity(n + 1);
            let mut row_idx = Vec::new();
            let mut src = Vec::new();
            col_ptr.push(0);
            for j in 0..n {
                for e in indptr[j]..indptr[j + 1] {
                    if indices[e] <= j {
                        row_idx.push(indices[e]);
                        src.push(e);
                    }
                }
                col_ptr.push(row_idx.len());
            }
            let pattern = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
            let chol = SparseCholesky::analyze(pattern);
            let vals = vec![0.0; src.len()];
            Storage::Sparse(Box::new(SparseMass {
                col_ptr,
                row_idx,
                vals,
                src,
                chol,
            }))
        };
        MassFactor {
            n,
            indptr: indptr.to_vec(),
            indices: indices.to_vec(),
            ok: false,
            seen: Vec::new(),
            storage,
        }
    }

    /// Whether `mass` has the pattern this factor was analysed for.
    pub fn same_pattern(&self, mass: &CsMat<f64>) -> bool {
        let (indptr, indices, _) = raw(mass);
        mass.rows() == self.n && indptr == self.indptr && indices == self.indices
    }

    /// The numeric factorization of `mass`, reusing the analysis (and
    /// allocating nothing) when the pattern is the one analysed; another
    /// pattern is analysed afresh. Returns the first coordinate whose pivot
    /// is not positive on failure; the factor then solves to NaN until the
    /// next successful refactor.
    pub fn refactor(&mut self, mass: &CsMat<f64>) -> Result<(), usize> {
        if !self.same_pattern(mass) {
            *self = Self::analyze(mass);
        }
        self.update(mass).map(|_| ())
    }

    /// [`MassFactor::refactor`] for a caller that knows the pattern is the
    /// analysed one (a solver keyed on the instant's structure stamp): the
    /// pattern is not compared entry by entry, only its size (so that a
    /// wrong pattern of another size is re-analysed; one of the same size
    /// gives a wrong factor, never a panic). Returns whether the values
    /// differed from the ones factored last (`false`: nothing was done).
    pub fn update(&mut self, mass: &CsMat<f64>) -> Result<bool, usize> {
        if mass.rows() != self.n || mass.nnz() != self.indices.len() {
            *self = Self::analyze(mass);
        }
        let data = mass.data();
        if self.ok && self.seen == data {
            return Ok(false);
        }
        self.ok = false;
        self.seen.clear();
        self.seen.extend_from_slice(data);
        match &mut self.storage {
            Storage::Blocks(b) => {
                b.values.fill(0.0);
                for (&d, &v) in b.dest.iter().zip(data) {
                    b.values[d] += v;
                }
                for (k, w) in b.starts.windows(2).enumerate() {
                    let size = w[1] - w[0];
                    let range = b.offsets[k]..b.offsets[k] + size * size;
                    if size <= 3 {
                        // Rigid bodies: closed-form inverses, checked by
                        // their leading minors (the Cholesky pivots).
                        let (block, inv) = (&b.values[range.clone()], &mut b.inverse[range]);
                        dense::small_spd_inverse(block, size, inv).map_err(|e| w[0] + e.index)?;
                        continue;
                    }
                    let block = &mut b.values[range.clone()];
                    dense::cholesky_in_place(block, size).map_err(|e| w[0] + e.index)?;
                    // Column c of the inverse is M_b^-1 e_c (symmetric, so
                    // it is also row c).
                    let inv = &mut b.inverse[range];
                    let col = &mut b.col[..size];
                    for c in 0..size {
                        col.fill(0.0);
                        col[c] = 1.0;
                        dense::cholesky_solve_in_place(block, size, col);
                        for r in 0..size {
                            inv[r * size + c] = col[r];
                        }
                    }
                }
            }
            Storage::Sparse(s) => {
                for (v, &e) in s.vals.iter_mut().zip(&s.src) {
                    *v = data[e];
                }
                let pattern = SymbolicSparseColMatRef::new_checked(
                    self.n, self.n, &s.col_ptr, None, &s.row_idx,
                );
                s.chol
                    .factor_llt(SparseColMatRef::new(pattern, &s.vals))
                    .map_err(|e| e.index)?;
            }
        }
        self.ok = true;
        Ok(true)
    }

    /// Whether the factor holds a successful factorization of exactly these
    /// values of `M` (stored entries, in order).
    pub fn holds(&self, values: &[f64]) -> bool {
        self.ok && self.seen == values
    }

    /// Number of coordinates.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Whether the last numeric factorization succeeded.
    pub fn is_factored(&self) -> bool {
        self.ok
    }

    /// The diagonal blocks `starts` (block `k` is `starts[k]..starts[k+1]`)
    /// when `M` is block diagonal with small blocks, else `None`.
    pub fn block_starts(&self) -> Option<&[usize]> {
        match &self.storage {
            Storage::Blocks(b) => Some(&b.starts),
            Storage::Sparse(_) => None,
        }
    }

    /// Solves `M x = rhs` in place (NaN everywhere when the last
    /// factorization failed).
    ///
    /// # Panics
    /// If `rhs` does not have [`MassFactor::dim`] entries.
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) {
        assert_eq!(
            rhs.len(),
            self.n,
            "MassFactor::solve_in_place: wrong length"
        );
        if !self.ok {
            rhs.fill(f64::NAN);
            return;
        }
        match &mut self.storage {
            Storage::Blocks(b) => {
                for (k, w) in b.starts.windows(2).enumerate() {
                    b.apply(k, &mut rhs[w[0]..w[1]]);
                }
            }
            Storage::Sparse(s) => s.chol.solve_in_place(rhs),
        }
    }

    /// Solves `M_k x = rhs` in place for diagonal block `k` (an index into
    /// [`MassFactor::block_starts`]). Only for block-diagonal masses; on
    /// another factor, or before a successful factorization, `rhs` becomes
    /// NaN.
    pub fn solve_block_in_place(&self, k: usize, rhs: &mut [f64]) {
        match &self.storage {
            Storage::Blocks(b) if self.ok => b.apply(k, rhs),
            _ => rhs.fill(f64::NAN),
        }
    }

    /// The stored upper triangle when the sparse path is used (for tests).
    #[doc(hidden)]
    pub fn sparse_nnz(&self) -> Option<usize> {
        match &self.storage {
            Storage::Sparse(s) => Some(s.vals.len() + s.col_ptr.len() + s.row_idx.len()),
            Storage::Blocks(_) => None,
        }
    }
}

/// The raw compressed arrays of a matrix (`indptr`, `indices`, `data`).
fn raw(m: &CsMat<f64>) -> (&[usize], &[usize], &[f64]) {
    (m.indptr().into_raw_storage(), m.indices(), m.data())
}

impl BlockFactor {
    /// `x <- M_k^-1 x`. Inlined into the loops over all blocks (a solve
    /// with `M` is one call per block, so a call each costed more than the
    /// 3x3 product itself); the rare sizes are out of line.
    #[inline(always)]
    fn apply(&self, k: usize, x: &mut [f64]) {
        let size = x.len();
        let inv = &self.inverse[self.offsets[k]..self.offsets[k] + size * size];
        // Rigid bodies have 1, 2, 3 or 6 coordinates: unrolled kernels.
        match size {
            1 => x[0] *= inv[0],
            2 => apply_fixed::<2>(inv, x),
            3 => apply_fixed::<3>(inv, x),
            6 => apply_fixed::<6>(inv, x),
            _ => apply_any(inv, x),
        }
    }
}

/// `x <- B x` for a square row-major `B` of any size up to
/// [`MAX_DENSE_BLOCK`].
#[inline(never)]
fn apply_any(inv: &[f64], x: &mut [f64]) {
    let size = x.len();
    let mut xin = [0.0; MAX_DENSE_BLOCK];
    xin[..size].copy_from_slice(x);
    for (o, row) in x.iter_mut().zip(inv.chunks_exact(size)) {
        *o = row.iter().zip(&xin[..size]).map(|(m, v)| m * v).sum();
    }
}

/// `x <- B x` for an `N x N` row-major `B`, fully unrolled by the compiler.
#[inline(always)]
fn apply_fixed<const N: usize>(b: &[f64], x: &mut [f64]) {
    let xin: [f64; N] = x.try_into().expect("segment of the right size");
    for (xr, row) in x.iter_mut().zip(b.chunks_exact(N)) {
        let row: &[f64; N] = row.try_into().expect("block of the right size");
        let mut acc = 0.0;
        for c in 0..N {
            acc += row[c] * xin[c];
        }
        *xr = acc;
    }
}

/// Splits `0..n` into the finest contiguous ranges that no entry of `M`
/// couples: boundary `k` is kept when no `M[i][j] != 0` has `i < k <= j`.
fn diagonal_blocks(mass: &CsMat<f64>) -> Vec<usize> {
    let n = mass.rows();
    // reach[i] = the largest index coupled to i.
    let mut reach: Vec<usize> = (0..n).collect();
    for (row, vec) in mass.outer_iterator().enumerate() {
        for (col, _) in vec.iter() {
            let (lo, hi) = (row.min(col), row.max(col));
            reach[lo] = reach[lo].max(hi);
        }
    }
    let mut starts = vec![0];
    let mut end = 0;
    for i in 0..n {
        end = end.max(reach[i]);
        if end == i {
            starts.push(i + 1);
        }
    }
    starts
}

/// The upper triangle of a symmetric matrix as CSC arrays.
pub fn upper_triangle(mat: &CsMat<f64>) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let csc = mat.to_csc();
    let n = csc.cols();
    let mut col_ptr = Vec::with_capacity(n + 1);
    let mut row_idx = Vec::new();
    let mut vals = Vec::new();
    col_ptr.push(0);
    for (col, vec) in csc.outer_iterator().enumerate() {
        for (row, &v) in vec.iter() {
            if row <= col {
                row_idx.push(row);
                vals.push(v);
            }
        }
        col_ptr.push(row_idx.len());
    }
    (col_ptr, row_idx, vals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    fn csr(n: usize, entries: &[(usize, usize, f64)]) -> CsMat<f64> {
        let mut t = TriMat::new((n, n));
        for &(i, j, v) in entries {
            t.add_triplet(i, j, v);
        }
        t.to_csr()
    }

    #[test]
    fn blocks_follow_the_coupling() {
        // [2 1 . .; 1 2 . .; . . 3 .; . . . 4]
        let m = csr(
            4,
            &[
                (0, 0, 2.),
                (0, 1, 1.),
                (1, 0, 1.),
                (1, 1, 2.),
                (2, 2, 3.),
                (3, 3, 4.),
            ],
        );
        assert_eq!(diagonal_blocks(&m), vec![0, 2, 3, 4]);
        let mut f = MassFactor::new(&m).unwrap();
        let mut x = vec![3.0, 3.0, 3.0, 8.0];
        f.solve_in_place(&mut x);
        let want = [1.0, 1.0, 1.0, 2.0];
        for (a, b) in x.iter().zip(want) {
            assert!((a - b).abs() < 1e-14);
        }
    }

    #[test]
    fn sparse_path_matches_a_hand_solve() {
        // A tridiagonal [2 -1; -1 2 -1; ...] of size 60 (one block too big
        // for the dense path); x = 1 gives rhs = [1, 0, ..., 0, 1].
        let n = 60;
        let mut e = vec![];
        for i in 0..n {
            e.push((i, i, 2.0));
            if i + 1 < n {
                e.push((i, i + 1, -1.0));
                e.push((i + 1, i, -1.0));
            }
        }
        let m = csr(n, &e);
        let mut f = MassFactor::new(&m).unwrap();
        assert!(f.block_starts().is_none());
        let mut x = vec![0.0; n];
        x[0] = 1.0;
        x[n - 1] = 1.0;
        f.solve_in_place(&mut x);
        for v in x {
            assert!((v - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn indefinite_mass_names_the_coordinate() {
        let m = csr(
            3,
            &[(0, 0, 1.), (1, 1, 1.), (1, 2, 2.), (2, 1, 2.), (2, 2, 1.)],
        );
        assert_eq!(MassFactor::new(&m).unwrap_err(), 2);
    }
}
