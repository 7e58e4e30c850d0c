//! Sparsity patterns by compressed columns: built from their entries (one
//! pass to count each column's, one to place them, a sort of each short
//! column; no vector per column: a pile's island is rebuilt whenever a
//! contact comes or goes), and an entry's place in them.

/// The pattern of `n` columns holding the `(column, row)` entries (in
/// any order, repeats allowed): column starts, and each column's rows
/// sorted without repeats.
pub(crate) fn compress(n: usize, entries: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
    let mut start = vec![0; n + 1];
    for &(c, _) in entries {
        start[c + 1] += 1;
    }
    for c in 0..n {
        start[c + 1] += start[c];
    }
    let mut rows = vec![0; entries.len()];
    let mut next = start.clone();
    for &(c, r) in entries {
        rows[next[c]] = r;
        next[c] += 1;
    }
    // Sorted and compacted column by column; `next` becomes the starts.
    let mut kept = 0;
    next[0] = 0;
    for c in 0..n {
        let column = &mut rows[start[c]..start[c + 1]];
        column.sort_unstable();
        for k in start[c]..start[c + 1] {
            if k == start[c] || rows[k] != rows[k - 1] {
                rows[kept] = rows[k];
                kept += 1;
            }
        }
        next[c + 1] = kept;
    }
    rows.truncate(kept);
    (next, rows)
}

/// The place of `(row, col)` among the stored entries (its column's rows
/// sorted).
///
/// # Panics
///
/// If the pattern does not hold it (a pattern built for the problem at
/// hand holds every entry asked for).
pub(crate) fn place(col_ptr: &[usize], row_idx: &[usize], row: usize, col: usize) -> usize {
    let range = col_ptr[col]..col_ptr[col + 1];
    // A column that holds every row (a robot's) holds `row` at `row`.
    if range.start + row < range.end && row_idx[range.start + row] == row {
        return range.start + row;
    }
    range.start
        + row_idx[range]
            .binary_search(&row)
            .expect("in the analysed pattern")
}

/// Per stored entry of `mass`, its place in the pattern and its
/// mirror's (`usize::MAX` for none: a diagonal entry, or a triangle
/// stored in full), for a pattern that holds `mass` in both triangles.
pub(crate) fn mass_places(
    mass: &sprs::CsMat<f64>,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Vec<(usize, usize)> {
    let at = |row: usize, col: usize| place(col_ptr, row_idx, row, col);
    // Stored in full, every entry has its mirror stored.
    let every = mass.nnz() == mass.rows() * mass.cols();
    mass.iter()
        .map(|(_, (r, c))| {
            let mirrored = r != c && !every && mass.get(c, r).is_none();
            (at(r, c), if mirrored { at(c, r) } else { usize::MAX })
        })
        .collect()
}

/// Whether `mass` holds every entry of an `n x n` matrix (in either
/// triangle or both): a chain's `M`, each joint moving every link below
/// it. A pattern that holds `M` is then full whatever rows are added, and
/// the places of a row's entry pairs are computed, not listed: a contact
/// on a chain's last link reaches every joint, and listing its pairs
/// costs the square of the links, per contact.
pub(crate) fn holds_every_entry(mass: &sprs::CsMat<f64>, n: usize) -> bool {
    let distinct = mass
        .iter()
        .filter(|&(_, (r, c))| r <= c || mass.get(c, r).is_none())
        .count();
    distinct == n * (n + 1) / 2
}

/// Islands of up to `DENSE_UP_TO` velocities have their Newton matrices
/// taken as full and factored dense (as do those whose `M` holds every
/// entry, past that size by the sparse factorizations on a full pattern):
/// a tree's contacts reach most of its joints, and on a few dozen
/// velocities a sparse factorization's index lists cost more than the
/// zeros they skip (`docs/benchmarks.md`).
pub(crate) const DENSE_UP_TO: usize = 96;

/// Whether the Newton matrices of an island with this `M` (`n x n`) are
/// full: a small island's, or `M`'s when it holds every entry.
pub(crate) fn newton_is_full(mass: &sprs::CsMat<f64>, n: usize) -> bool {
    n <= DENSE_UP_TO || holds_every_entry(mass, n)
}

/// The place of `(row, col)` in a full triangle by compressed columns
/// (`lower`: column `c` holds rows `c..n`; else `0..=c`), `row` and `col`
/// on the triangle's side.
pub(crate) fn place_in_full_triangle(
    col_ptr: &[usize],
    lower: bool,
    row: usize,
    col: usize,
) -> usize {
    col_ptr[col] + if lower { row - col } else { row }
}

/// What [`compress`] gives for every entry of an `n x n` matrix (`None`),
/// or of its lower (`Some(true)`) or upper (`Some(false)`) triangle,
/// written down without gathering and sorting the pairs: a robot's island
/// is full, and is rebuilt whenever a contact comes or goes.
pub(crate) fn full(n: usize, triangle: Option<bool>) -> (Vec<usize>, Vec<usize>) {
    let rows = |c: usize| match triangle {
        None => 0..n,
        Some(true) => c..n,
        Some(false) => 0..c + 1,
    };
    let mut start = Vec::with_capacity(n + 1);
    start.push(0);
    let mut row_idx = Vec::new();
    for c in 0..n {
        row_idx.extend(rows(c));
        start.push(row_idx.len());
    }
    (start, row_idx)
}

/// Visits `m`'s stored entries in storage order, `(value, row, col)`, as
/// sprs's `iter` gives them, lane by lane over its slices: the solvers
/// read `M` this way at every solve, where `iter`'s per-entry
/// bookkeeping costs more than the reading.
pub(crate) fn for_each_stored(m: &sprs::CsMat<f64>, mut visit: impl FnMut(f64, usize, usize)) {
    let (indptr, indices, data) = (m.indptr(), m.indices(), m.data());
    let csr = m.is_csr();
    for outer in 0..m.outer_dims() {
        let lane = indptr.outer_inds_sz(outer);
        for (&inner, &value) in indices[lane.clone()].iter().zip(&data[lane]) {
            let (row, col) = if csr { (outer, inner) } else { (inner, outer) };
            visit(value, row, col);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_in_any_order_with_repeats_make_sorted_columns() {
        let entries = [(2, 1), (0, 0), (2, 0), (2, 1), (0, 0), (2, 2), (1, 1)];
        let (start, rows) = compress(4, &entries);
        assert_eq!(start, vec![0, 1, 2, 5, 5]);
        assert_eq!(rows, vec![0, 1, 0, 1, 2]);
        assert_eq!(compress(2, &[]), (vec![0, 0, 0], vec![]));
        assert_eq!(place(&start, &rows, 2, 2), 4);
        assert_eq!(place(&start, &rows, 0, 0), 0);
    }

    #[test]
    fn full_triangles_place_as_searched() {
        let n = 5;
        for lower in [true, false] {
            let entries: Vec<_> = (0..n)
                .flat_map(|c| (0..n).map(move |r| (c, r)))
                .filter(|&(c, r)| if lower { r >= c } else { r <= c })
                .collect();
            let (start, rows) = compress(n, &entries);
            for &(c, r) in &entries {
                assert_eq!(
                    place_in_full_triangle(&start, lower, r, c),
                    place(&start, &rows, r, c)
                );
            }
        }
    }

    #[test]
    fn small_islands_and_full_masses_have_full_newton_matrices() {
        let n = DENSE_UP_TO + 1;
        let diagonal = |n: usize| sprs::CsMat::<f64>::eye(n);
        assert!(newton_is_full(&diagonal(DENSE_UP_TO), DENSE_UP_TO));
        assert!(!newton_is_full(&diagonal(n), n));
        let mut full = sprs::TriMat::new((n, n));
        for r in 0..n {
            for c in r..n {
                full.add_triplet(r, c, 1.0);
            }
        }
        assert!(newton_is_full(&full.to_csc(), n));
    }

    #[test]
    fn a_mass_holds_every_entry_in_either_triangle_or_both() {
        let full = sprs::CsMat::new((2, 2), vec![0, 2, 4], vec![0, 1, 0, 1], vec![1.0; 4]);
        let upper = sprs::CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![1.0; 3]);
        let diagonal = sprs::CsMat::new((2, 2), vec![0, 1, 2], vec![0, 1], vec![1.0; 2]);
        assert!(holds_every_entry(&full, 2));
        assert!(holds_every_entry(&upper, 2));
        assert!(!holds_every_entry(&diagonal, 2));
    }

    /// The entries visited are sprs's own, in its order, by rows and by
    /// columns alike.
    #[test]
    fn the_stored_entries_are_those_sprs_iterates() {
        let mut triplets = sprs::TriMat::new((3, 4));
        for (r, c, v) in [
            (0, 1, 2.0),
            (2, 0, -1.0),
            (1, 3, 0.5),
            (2, 2, 4.0),
            (0, 0, 3.0),
        ] {
            triplets.add_triplet(r, c, v);
        }
        for m in [triplets.to_csr::<usize>(), triplets.to_csc()] {
            let mut visited = Vec::new();
            for_each_stored(&m, |v, r, c| visited.push((v, (r, c))));
            let theirs: Vec<_> = m.iter().map(|(&v, rc)| (v, rc)).collect();
            assert_eq!(visited, theirs);
            assert_eq!(visited.len(), 5);
        }
    }

    /// The full patterns are [`compress`]'s of every pair.
    #[test]
    fn a_full_pattern_is_compress_of_every_pair() {
        let n = 5;
        let pairs = |keep: fn(usize, usize) -> bool| -> Vec<(usize, usize)> {
            (0..n)
                .flat_map(|c| (0..n).map(move |r| (c, r)))
                .filter(|&(c, r)| keep(c, r))
                .rev()
                .collect()
        };
        assert_eq!(full(n, None), compress(n, &pairs(|_, _| true)));
        assert_eq!(full(n, Some(true)), compress(n, &pairs(|c, r| r >= c)));
        assert_eq!(full(n, Some(false)), compress(n, &pairs(|c, r| r <= c)));
        assert_eq!(full(0, None), (vec![0], vec![]));
    }
}
