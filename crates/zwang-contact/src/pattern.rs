//! Sparsity patterns by compressed columns, from their entries: one pass
//! to count each column's, one to place them, a sort of each short column
//! (no vector per column: a pile's island is rebuilt whenever a contact
//! comes or goes, at rest too).

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
    }
}
