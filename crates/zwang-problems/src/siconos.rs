//! Siconos' text files of frictional contact problems (parsing only).
//!
//! Siconos writes a problem with `frictionContact_printInFile` (local form)
//! or `globalFrictionContact_printInFile` (global form) and reads it back
//! with `fscanf`, so numbers are separated by any white space; only the
//! CSparse part is read line by line. The layout, header by header:
//!
//! ```text
//! d                 components per contact (2 in the plane, 3 in space)
//! nc                number of contacts
//! <matrix>          W (local form); M then H (global form)
//! q                 size1 of W (local) or of M (global) numbers
//! b                 global form only: size1 of H numbers
//! mu                nc numbers
//! ```
//!
//! and a matrix (`NM_write_in_file`) is its storage type (0 dense, 1 sparse
//! block, 2 sparse), its row count `size0` and column count `size1`, then:
//!
//! - dense: `size0 size1` again, then the `size0 * size1` entries in
//!   column-major order (a column per text line; its zeros are not
//!   stored, nor a block's below);
//! - sparse block (`SBM_write_in_file`): the block count (0: no block, an
//!   empty matrix), the numbers of block rows and block columns, the
//!   cumulative block row and column sizes, `filled1` and `filled2`, the
//!   row pointers (`filled1` of them) and the block column indices
//!   (`filled2`), then each block, row of blocks by row of blocks: its
//!   number, then its entries in column-major order;
//! - sparse (`NSM_write_in_file`, CSparse's `cs_print`): the origin (1
//!   triplet, 2 compressed columns, 3 compressed rows), CSparse's banner
//!   line, a header `[triplet: |csr: ]m-by-n, nzmax: N nnz: Z[, 1-norm: X]`
//!   and the entries: `i j : x` per triplet, or per column (row)
//!   `col j : locations a to b` followed by `b - a + 1` lines `i : x`.
//!
//! The reader is stricter than Siconos': a count that disagrees with the
//! data (a missing or an extra number, a block or a column out of order),
//! a non-finite number or a negative friction coefficient is a typed
//! error naming the line, never a panic or a silently wrong problem.

use sprs::{CsMat, TriMat};
use thiserror::Error;
use zwang_contact::{GlobalProblem, LocalProblem, ProblemError};

/// What is wrong with a Siconos text file.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SiconosError {
    /// The text ends before the problem does.
    #[error("the file ends before {expected}")]
    Truncated {
        /// What was still to come.
        expected: String,
    },
    /// A token is not what the format has at that place.
    #[error("line {line}: expected {expected}, found `{found}`")]
    Syntax {
        /// Line of the token (from 1).
        line: usize,
        /// What the format has there.
        expected: String,
        /// The token.
        found: String,
    },
    /// A number is NaN or infinite.
    #[error("line {line}: {what} is `{found}`, not a finite number")]
    NotFinite {
        /// Line of the number.
        line: usize,
        /// Which datum.
        what: String,
        /// The token.
        found: String,
    },
    /// Counts that disagree with each other or with the data.
    #[error("line {line}: {what}")]
    Count {
        /// Line where the disagreement shows.
        line: usize,
        /// What disagrees.
        what: String,
    },
    /// A storage this reader does not take.
    #[error("line {line}: {what} is not read by this build")]
    Unsupported {
        /// Line of the storage's header.
        line: usize,
        /// The storage.
        what: String,
    },
    /// Data after the last friction coefficient: the counts say less.
    #[error("line {line}: `{found}` after the last friction coefficient (the counts say the problem ends before it)")]
    Trailing {
        /// Line of the first extra token.
        line: usize,
        /// The token.
        found: String,
    },
    /// The problem read is not a valid problem (dimension, sizes, `mu`).
    #[error(transparent)]
    Problem(#[from] ProblemError),
}

/// Reads a local-form problem (`frictionContact_printInFile`).
pub fn parse_local(text: &str) -> Result<LocalProblem, SiconosError> {
    let mut t = Tokens::new(text);
    let (dimension, contacts) = t.header()?;
    let w = matrix(&mut t, "W")?;
    let q = t.numbers(w.cols(), "q")?;
    let mu = t.numbers(contacts, "mu")?;
    t.finish()?;
    let problem = LocalProblem {
        dimension,
        w,
        q,
        mu,
    };
    problem.validate()?;
    Ok(problem)
}

/// Reads a global-form problem (`globalFrictionContact_printInFile`).
pub fn parse_global(text: &str) -> Result<GlobalProblem, SiconosError> {
    let mut t = Tokens::new(text);
    let (dimension, contacts) = t.header()?;
    let m = matrix(&mut t, "M")?;
    let h = matrix(&mut t, "H")?;
    let q = t.numbers(m.cols(), "q")?;
    let b = t.numbers(h.cols(), "b")?;
    let mu = t.numbers(contacts, "mu")?;
    t.finish()?;
    let problem = GlobalProblem {
        dimension,
        m,
        h,
        q,
        b,
        mu,
    };
    problem.validate()?;
    Ok(problem)
}

/// One matrix as `NM_write_in_file` writes it.
fn matrix(t: &mut Tokens<'_>, name: &str) -> Result<CsMat<f64>, SiconosError> {
    let line = t.line();
    let storage = t.count(&format!("{name}'s storage type (0, 1 or 2)"))?;
    let rows = t.count(&format!("{name}'s row count"))?;
    let cols = t.count(&format!("{name}'s column count"))?;
    // Each row and column has a number of q or b further on (M's rows
    // are H's): a size beyond the text's length cannot be read (and is
    // refused before anything is allocated for it).
    if rows.max(cols) > t.remaining() {
        return Err(SiconosError::Truncated {
            expected: format!(
                "the {rows}-by-{cols} {name} and its vectors (line {line}; {} numbers follow)",
                t.remaining()
            ),
        });
    }
    let mut tri = TriMat::new((rows, cols));
    match storage {
        0 => dense(t, name, &mut tri)?,
        1 => sparse_block(t, name, &mut tri)?,
        2 => csparse(t, name, &mut tri)?,
        other => {
            return Err(SiconosError::Unsupported {
                line,
                what: format!("{name}'s storage type {other}"),
            })
        }
    }
    Ok(tri.to_csc())
}

/// Dense storage: the sizes again, then the entries column by column.
fn dense(t: &mut Tokens<'_>, name: &str, tri: &mut TriMat<f64>) -> Result<(), SiconosError> {
    let (rows, cols) = tri.shape();
    let line = t.line();
    let again = (
        t.count(&format!("{name}'s row count (dense)"))?,
        t.count(&format!("{name}'s column count (dense)"))?,
    );
    if again != (rows, cols) {
        return Err(SiconosError::Count {
            line,
            what: format!(
                "{name} is {rows}-by-{cols} but its dense data says {}-by-{}",
                again.0, again.1
            ),
        });
    }
    let what = format!("an entry of {name}");
    for col in 0..cols {
        for row in 0..rows {
            add_nonzero(tri, row, col, t.number(&what)?);
        }
    }
    Ok(())
}

/// Stores an entry of a dense matrix or block unless it is zero: a
/// Delassus matrix written densely (or by `3 x 3` blocks) is mostly
/// zeros, which the solvers' sparse factorisations would otherwise carry
/// as entries.
fn add_nonzero(tri: &mut TriMat<f64>, row: usize, col: usize, x: f64) {
    if x != 0.0 {
        tri.add_triplet(row, col, x);
    }
}

/// Cumulative block sizes: strictly increasing, the last one the size.
fn block_ends(
    t: &mut Tokens<'_>,
    count: usize,
    size: usize,
    what: &str,
) -> Result<Vec<usize>, SiconosError> {
    let line = t.line();
    let ends = t.counts(count, what)?;
    let increasing = ends.windows(2).all(|w| w[0] < w[1]) && ends.first().is_none_or(|&e| e > 0);
    if !increasing || ends.last() != Some(&size) {
        return Err(SiconosError::Count {
            line,
            what: format!("{what} {ends:?} do not increase to {size}"),
        });
    }
    Ok(ends)
}

/// Sparse-block storage (`SBM_write_in_file`).
fn sparse_block(t: &mut Tokens<'_>, name: &str, tri: &mut TriMat<f64>) -> Result<(), SiconosError> {
    let (rows, cols) = tri.shape();
    let blocks = t.count(&format!("{name}'s block count"))?;
    if blocks == 0 {
        // Siconos writes nothing more for a matrix without blocks.
        return Ok(());
    }
    let block_rows = t.count(&format!("{name}'s number of block rows"))?;
    let block_cols = t.count(&format!("{name}'s number of block columns"))?;
    let row_ends = block_ends(t, block_rows, rows, &format!("{name}'s block row sizes"))?;
    let col_ends = block_ends(t, block_cols, cols, &format!("{name}'s block column sizes"))?;
    let line = t.line();
    let filled1 = t.count(&format!("{name}'s filled1"))?;
    let filled2 = t.count(&format!("{name}'s filled2"))?;
    if filled2 != blocks || filled1 == 0 || filled1 > block_rows + 1 {
        return Err(SiconosError::Count {
            line,
            what: format!(
                "{name} has {blocks} blocks in {block_rows} block rows, but filled1 = {filled1} \
                 and filled2 = {filled2}"
            ),
        });
    }
    let line = t.line();
    let row_ptr = t.counts(filled1, &format!("{name}'s block row pointers"))?;
    let col_index = t.counts(filled2, &format!("{name}'s block column indices"))?;
    let pointers_ok = row_ptr[0] == 0
        && row_ptr.windows(2).all(|w| w[0] <= w[1])
        && row_ptr[filled1 - 1] == blocks;
    if !pointers_ok || col_index.iter().any(|&c| c >= block_cols) {
        return Err(SiconosError::Count {
            line,
            what: format!(
                "{name}'s block row pointers {row_ptr:?} or column indices do not fit {blocks} \
                 blocks in {block_cols} block columns"
            ),
        });
    }
    let start = |ends: &[usize], k: usize| if k == 0 { 0 } else { ends[k - 1] };
    let what = format!("an entry of {name}");
    for block_row in 0..filled1 - 1 {
        let (r0, r1) = (start(&row_ends, block_row), row_ends[block_row]);
        for block in row_ptr[block_row]..row_ptr[block_row + 1] {
            let line = t.line();
            let number = t.count(&format!("{name}'s block number {block}"))?;
            if number != block {
                return Err(SiconosError::Count {
                    line,
                    what: format!("{name}'s block number {number} where block {block} is due"),
                });
            }
            let c = col_index[block];
            let (c0, c1) = (start(&col_ends, c), col_ends[c]);
            for col in c0..c1 {
                for row in r0..r1 {
                    add_nonzero(tri, row, col, t.number(&what)?);
                }
            }
        }
    }
    Ok(())
}

/// How CSparse printed a sparse matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compressed {
    Triplet,
    Columns,
    Rows,
}

/// Sparse storage (`NSM_write_in_file`, CSparse's printing).
fn csparse(t: &mut Tokens<'_>, name: &str, tri: &mut TriMat<f64>) -> Result<(), SiconosError> {
    let (rows, cols) = tri.shape();
    let line = t.line();
    let origin = t.count(&format!("{name}'s sparse origin (1, 2 or 3)"))?;
    let form = match origin {
        1 => Compressed::Triplet,
        2 => Compressed::Columns,
        3 => Compressed::Rows,
        other => {
            return Err(SiconosError::Unsupported {
                line,
                what: format!("{name}'s sparse origin {other}"),
            })
        }
    };
    t.literal("CSparse", "CSparse's banner line")?;
    t.skip_line();
    let (line, header) = t.rest_of_line(&format!("{name}'s CSparse header"))?;
    let (shape, nnz) = csparse_header(&header).ok_or_else(|| SiconosError::Syntax {
        line,
        expected: format!("{name}'s CSparse header `[triplet: |csr: ]m-by-n, nzmax: N nnz: Z`"),
        found: header.join(" "),
    })?;
    let said = match header[0] {
        "triplet:" => Compressed::Triplet,
        "csr:" => Compressed::Rows,
        _ => Compressed::Columns,
    };
    if said != form || shape != (rows, cols) {
        return Err(SiconosError::Count {
            line,
            what: format!(
                "{name} is {rows}-by-{cols} with origin {origin}, but its CSparse header says `{}`",
                header.join(" ")
            ),
        });
    }
    let what = format!("an entry of {name}");
    let out_of_range = |line, row, col| SiconosError::Count {
        line,
        what: format!("{name}[{row}, {col}] is outside its {rows}-by-{cols}"),
    };
    if form == Compressed::Triplet {
        for _ in 0..nnz {
            let line = t.line();
            let row = t.count(&format!("a row index of {name}"))?;
            let col = t.count(&format!("a column index of {name}"))?;
            t.literal(":", "`:`")?;
            let x = t.number(&what)?;
            if row >= rows || col >= cols {
                return Err(out_of_range(line, row, col));
            }
            tri.add_triplet(row, col, x);
        }
        return Ok(());
    }
    let (word, outer, lines) = match form {
        Compressed::Rows => ("row", rows, "rows"),
        _ => ("col", cols, "columns"),
    };
    let mut next = 0;
    for j in 0..outer {
        let line = t.line();
        t.literal(word, &format!("`{word} {j} : locations ...`"))?;
        let index = t.count(&format!("{word} number {j}"))?;
        t.literal(":", "`:`")?;
        t.literal("locations", "`locations`")?;
        let from = t.count("the first location")?;
        t.literal("to", "`to`")?;
        let to = t.signed("the last location")?;
        let count = i128::from(to) + 1 - from as i128;
        if index != j || from != next || count < 0 || count > t.remaining() as i128 {
            return Err(SiconosError::Count {
                line,
                what: format!(
                    "`{word} {index} : locations {from} to {to}` where {word} {j} from location \
                     {next} is due"
                ),
            });
        }
        for _ in 0..count {
            let line = t.line();
            let i = t.count(&format!("an index in {name}'s {word} {j}"))?;
            t.literal(":", "`:`")?;
            let x = t.number(&what)?;
            let (row, col) = if form == Compressed::Rows {
                (j, i)
            } else {
                (i, j)
            };
            if row >= rows || col >= cols {
                return Err(out_of_range(line, row, col));
            }
            tri.add_triplet(row, col, x);
        }
        next += count as usize;
    }
    if next != nnz {
        return Err(SiconosError::Count {
            line: t.line(),
            what: format!("{name}'s header says nnz {nnz}, its {lines} hold {next} entries"),
        });
    }
    Ok(())
}

/// `(m, n)` and `nnz` of CSparse's header line.
fn csparse_header(tokens: &[&str]) -> Option<((usize, usize), usize)> {
    let skip = usize::from(matches!(tokens.first(), Some(&"triplet:") | Some(&"csr:")));
    let rest = tokens.get(skip..)?;
    let (m, n) = rest.first()?.trim_end_matches(',').split_once("-by-")?;
    if rest.get(1) != Some(&"nzmax:") || rest.get(3) != Some(&"nnz:") {
        return None;
    }
    let nnz = rest.get(4)?.trim_end_matches(',').parse().ok()?;
    Some(((m.parse().ok()?, n.parse().ok()?), nnz))
}

/// The white-space separated tokens of the text, with their line numbers.
struct Tokens<'a> {
    items: Vec<(usize, &'a str)>,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        let items = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |w| (i + 1, w)))
            .collect();
        Tokens { items, at: 0 }
    }

    /// The line of the next token (of the last one at the end).
    fn line(&self) -> usize {
        let i = self.at.min(self.items.len().saturating_sub(1));
        self.items.get(i).map_or(1, |&(l, _)| l)
    }

    fn next(&mut self, expected: &str) -> Result<(usize, &'a str), SiconosError> {
        let item = self.items.get(self.at).copied();
        self.at += 1;
        item.ok_or_else(|| SiconosError::Truncated {
            expected: expected.to_owned(),
        })
    }

    /// `d` and `nc`, the two first lines of either form. `d` (2 in the
    /// plane, 3 in space) is checked at once, before any size is derived
    /// from it.
    fn header(&mut self) -> Result<(usize, usize), SiconosError> {
        let dimension = self.count("the dimension d")?;
        if !matches!(dimension, 2 | 3) {
            return Err(ProblemError::Dimension(dimension).into());
        }
        Ok((dimension, self.count("the number of contacts nc")?))
    }

    /// Tokens not read yet: a bound on every count, so that a huge count
    /// is an error rather than an allocation that fails.
    fn remaining(&self) -> usize {
        self.items.len().saturating_sub(self.at)
    }

    /// `n` more tokens are due: [`SiconosError::Truncated`] at once if the
    /// text holds fewer.
    fn expect(&self, n: usize, expected: &str) -> Result<(), SiconosError> {
        if n > self.remaining() {
            return Err(SiconosError::Truncated {
                expected: format!("{n} numbers of {expected}"),
            });
        }
        Ok(())
    }

    fn parse<T: std::str::FromStr>(&mut self, expected: &str) -> Result<T, SiconosError> {
        let (line, word) = self.next(expected)?;
        word.parse().map_err(|_| SiconosError::Syntax {
            line,
            expected: expected.to_owned(),
            found: word.to_owned(),
        })
    }

    /// A count or an index: an integer >= 0.
    fn count(&mut self, what: &str) -> Result<usize, SiconosError> {
        self.parse(&format!("{what} (an integer >= 0)"))
    }

    fn signed(&mut self, what: &str) -> Result<i64, SiconosError> {
        self.parse(&format!("{what} (an integer)"))
    }

    fn counts(&mut self, n: usize, what: &str) -> Result<Vec<usize>, SiconosError> {
        self.expect(n, what)?;
        (0..n).map(|_| self.count(what)).collect()
    }

    /// A finite number.
    fn number(&mut self, what: &str) -> Result<f64, SiconosError> {
        let (line, word) = self.next(what)?;
        let syntax = || SiconosError::Syntax {
            line,
            expected: format!("{what} (a number)"),
            found: word.to_owned(),
        };
        let lower = word.to_ascii_lowercase();
        let x = match word.parse::<f64>() {
            Ok(x) => x,
            // C's printf writes `-nan`, which Rust does not parse.
            Err(_) if lower.contains("nan") || lower.contains("inf") => f64::NAN,
            Err(_) => return Err(syntax()),
        };
        if !x.is_finite() {
            return Err(SiconosError::NotFinite {
                line,
                what: what.to_owned(),
                found: word.to_owned(),
            });
        }
        Ok(x)
    }

    fn numbers(&mut self, n: usize, what: &str) -> Result<Vec<f64>, SiconosError> {
        self.expect(n, what)?;
        (0..n).map(|_| self.number(what)).collect()
    }

    fn literal(&mut self, word: &str, expected: &str) -> Result<(), SiconosError> {
        let (line, found) = self.next(expected)?;
        if found != word {
            return Err(SiconosError::Syntax {
                line,
                expected: expected.to_owned(),
                found: found.to_owned(),
            });
        }
        Ok(())
    }

    /// Skips the rest of the line of the token read last.
    fn skip_line(&mut self) {
        if let Some(&(line, _)) = self.at.checked_sub(1).and_then(|i| self.items.get(i)) {
            while self.items.get(self.at).is_some_and(|&(l, _)| l == line) {
                self.at += 1;
            }
        }
    }

    /// Every token of the next token's line.
    fn rest_of_line(&mut self, expected: &str) -> Result<(usize, Vec<&'a str>), SiconosError> {
        let (line, first) = self.next(expected)?;
        let mut words = vec![first];
        while let Some(&(l, w)) = self.items.get(self.at) {
            if l != line {
                break;
            }
            words.push(w);
            self.at += 1;
        }
        Ok((line, words))
    }

    /// Nothing may follow the last friction coefficient.
    fn finish(&self) -> Result<(), SiconosError> {
        match self.items.get(self.at) {
            Some(&(line, found)) => Err(SiconosError::Trailing {
                line,
                found: found.to_owned(),
            }),
            None => Ok(()),
        }
    }
}
