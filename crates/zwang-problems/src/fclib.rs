//! FCLIB's HDF5 files of frictional contact problems (reading only).
//!
//! FCLIB (Acary, Brémond, Huber, "On solving contact problems with Coulomb
//! friction: formulations and numerical comparisons", 2018) stores one
//! problem per HDF5 file, written by its C library (`fclib.h`,
//! `fclib_write_local` / `fclib_write_global`):
//!
//! ```text
//! /fclib_local/spacedim        d: 2 or 3 components per contact
//! /fclib_local/W/...           the Delassus matrix, d nc x d nc
//! /fclib_local/vectors/q       d nc numbers:  u = W r + q
//! /fclib_local/vectors/mu      nc friction coefficients
//!
//! /fclib_global/spacedim       d
//! /fclib_global/M/...          the mass matrix, n x n
//! /fclib_global/H/...          n x d nc
//! /fclib_global/vectors/f      n numbers:     M v = H r + f
//! /fclib_global/vectors/w      d nc numbers:  u = H^T v + w
//! /fclib_global/vectors/mu     nc friction coefficients
//! ```
//!
//! A matrix is a group of CSparse's fields: `m` and `n` (rows and
//! columns), `nzmax`, `nz` and the arrays `p`, `i`, `x`. `nz >= 0` is a
//! triplet matrix of `nz` entries (row `i[k]`, column `p[k]`, value
//! `x[k]`, duplicates summed); `nz = -1` compressed columns (`p` has
//! `n + 1` pointers, `i` row indices); `nz = -2` compressed rows (`p` has
//! `m + 1` pointers, `i` column indices). Datasets may be stored
//! contiguous, compact or chunked and compressed (deflate, shuffle,
//! Fletcher-32): the HDF5 layer is `hdf5-reader`'s.
//!
//! The global form maps onto Siconos' convention as `q = f`, `b = w`
//! ([`GlobalProblem`]). FCLIB's optional extras are refused with
//! [`FclibError::Unsupported`]: equality constraints (`G` and `b` of the
//! global form, `V`, `R` and `s` of the local one). The `info`, `guesses`
//! and `solution` groups are not read.
//!
//! Every size is checked against the others before anything is allocated
//! for it; an index out of its matrix, a pointer out of order, a
//! non-finite number or a negative friction coefficient is a typed error
//! naming the dataset, never a panic.

use hdf5_reader::error::Error as Hdf5Error;
use hdf5_reader::{Datatype, Hdf5File};
use sprs::{CsMat, TriMat};
use thiserror::Error;
use zwang_contact::{GlobalProblem, LocalProblem, ProblemError};

/// The eight bytes every HDF5 file starts with (at offset 0 unless it has
/// a user block).
pub const HDF5_SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// What is wrong with an FCLIB file.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FclibError {
    /// The HDF5 container itself cannot be read: not HDF5, truncated,
    /// damaged, or an encoding the HDF5 reader does not know.
    #[error("{what}: {message}")]
    Hdf5 {
        /// The object being read (`the file` for the container).
        what: String,
        /// The HDF5 reader's message.
        message: String,
    },
    /// Neither `/fclib_local` nor `/fclib_global` is in the file.
    #[error("no group /fclib_local or /fclib_global: not an FCLIB problem")]
    NotFclib,
    /// A dataset the format requires is not there.
    #[error("{path} is missing")]
    Missing {
        /// The dataset's path.
        path: String,
    },
    /// A dataset holds numbers of another kind than the format's.
    #[error("{path} holds {found}, expected {expected}")]
    Type {
        /// The dataset's path.
        path: String,
        /// Its HDF5 datatype.
        found: String,
        /// What the format stores there.
        expected: &'static str,
    },
    /// A dataset has another number of values than the sizes ask for.
    #[error("{path} has {found} values, expected {expected}")]
    Length {
        /// The dataset's path.
        path: String,
        /// Its number of values.
        found: usize,
        /// What the problem's sizes ask for.
        expected: String,
    },
    /// A sparse matrix whose fields disagree (sizes, pointers, indices).
    #[error("{path}: {what}")]
    Matrix {
        /// The matrix's group.
        path: String,
        /// What disagrees.
        what: String,
    },
    /// A part of the format this build does not solve.
    #[error("{what} is not read by this build")]
    Unsupported {
        /// The part.
        what: String,
    },
    /// The problem read is not a valid problem (dimension, `mu`,
    /// non-finite numbers).
    #[error(transparent)]
    Problem(#[from] ProblemError),
}

/// A problem read from an FCLIB file: its local or its global form.
#[derive(Debug, Clone, PartialEq)]
pub enum FclibProblem {
    /// `/fclib_local`: `u = W r + q`.
    Local(LocalProblem),
    /// `/fclib_global`: `M v = H r + q`, `u = H^T v + b` (FCLIB's `f` and
    /// `w`).
    Global(GlobalProblem),
}

impl FclibProblem {
    /// Components per contact.
    pub fn dimension(&self) -> usize {
        match self {
            FclibProblem::Local(p) => p.dimension,
            FclibProblem::Global(p) => p.dimension,
        }
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        match self {
            FclibProblem::Local(p) => p.contacts(),
            FclibProblem::Global(p) => p.contacts(),
        }
    }
}

/// Reads the problem of an FCLIB file from its bytes.
pub fn read_fclib(bytes: Vec<u8>) -> Result<FclibProblem, FclibError> {
    let file = Hdf5File::from_vec(bytes).map_err(|e| FclibError::Hdf5 {
        what: "the file".into(),
        message: hdf5_message(e),
    })?;
    let reader = Reader { file };
    if reader.has_group("fclib_local")? {
        reader.local().map(FclibProblem::Local)
    } else if reader.has_group("fclib_global")? {
        reader.global().map(FclibProblem::Global)
    } else {
        Err(FclibError::NotFclib)
    }
}

/// The HDF5 reader's message without its context chain's repetitions.
fn hdf5_message(e: Hdf5Error) -> String {
    match e {
        Hdf5Error::Context { source, .. } => hdf5_message(*source),
        Hdf5Error::InvalidMagic => "not an HDF5 file (no HDF5 signature)".into(),
        other => other.to_string(),
    }
}

/// Whether the HDF5 reader's error says the object is not there.
fn not_found(e: &Hdf5Error) -> bool {
    match e {
        Hdf5Error::Context { source, .. } => not_found(source),
        Hdf5Error::GroupNotFound(_) | Hdf5Error::DatasetNotFound(_) => true,
        _ => false,
    }
}

/// The open file and the typed reads of its datasets.
struct Reader {
    file: Hdf5File,
}

impl Reader {
    fn damaged(path: &str, e: Hdf5Error) -> FclibError {
        FclibError::Hdf5 {
            what: format!("/{path}"),
            message: hdf5_message(e),
        }
    }

    fn has_group(&self, path: &str) -> Result<bool, FclibError> {
        match self.file.group(path) {
            Ok(_) => Ok(true),
            Err(e) if not_found(&e) => Ok(false),
            Err(e) => Err(Self::damaged(path, e)),
        }
    }

    /// Whether a dataset or group is at `path`.
    fn has(&self, path: &str) -> Result<bool, FclibError> {
        match self.file.dataset(path) {
            Ok(_) => Ok(true),
            Err(e) if not_found(&e) => self.has_group(path),
            Err(e) => Err(Self::damaged(path, e)),
        }
    }

    fn dataset(&self, path: &str) -> Result<hdf5_reader::Dataset, FclibError> {
        self.file.dataset(path).map_err(|e| {
            if not_found(&e) {
                FclibError::Missing {
                    path: format!("/{path}"),
                }
            } else {
                Self::damaged(path, e)
            }
        })
    }

    /// Every value of an integer dataset, in storage order.
    fn integers(&self, path: &str) -> Result<Vec<i64>, FclibError> {
        let ds = self.dataset(path)?;
        let damaged = |e| Self::damaged(path, e);
        let values: Vec<i64> = match ds.dtype() {
            Datatype::FixedPoint { size, signed, .. } => match (size, signed) {
                (4, true) => ds
                    .read_array::<i32>()
                    .map_err(damaged)?
                    .iter()
                    .map(|&x| i64::from(x))
                    .collect(),
                (8, true) => ds
                    .read_array::<i64>()
                    .map_err(damaged)?
                    .iter()
                    .copied()
                    .collect(),
                (4, false) => ds
                    .read_array::<u32>()
                    .map_err(damaged)?
                    .iter()
                    .map(|&x| i64::from(x))
                    .collect(),
                _ => return Err(self.wrong_type(path, ds.dtype(), "integers of 32 or 64 bits")),
            },
            other => return Err(self.wrong_type(path, other, "integers")),
        };
        Ok(values)
    }

    /// The one value of an integer dataset (FCLIB writes sizes as arrays
    /// of one integer).
    fn integer(&self, path: &str) -> Result<i64, FclibError> {
        let values = self.integers(path)?;
        match values.as_slice() {
            [x] => Ok(*x),
            _ => Err(FclibError::Length {
                path: format!("/{path}"),
                found: values.len(),
                expected: "1".into(),
            }),
        }
    }

    /// Every value of a floating-point dataset, in storage order.
    fn reals(&self, path: &str) -> Result<Vec<f64>, FclibError> {
        let ds = self.dataset(path)?;
        let damaged = |e| Self::damaged(path, e);
        match ds.dtype() {
            Datatype::FloatingPoint { size: 8, .. } => Ok(ds
                .read_array::<f64>()
                .map_err(damaged)?
                .iter()
                .copied()
                .collect()),
            Datatype::FloatingPoint { size: 4, .. } => Ok(ds
                .read_array::<f32>()
                .map_err(damaged)?
                .iter()
                .map(|&x| f64::from(x))
                .collect()),
            other => Err(self.wrong_type(path, other, "floating-point numbers")),
        }
    }

    fn wrong_type(&self, path: &str, found: &Datatype, expected: &'static str) -> FclibError {
        FclibError::Type {
            path: format!("/{path}"),
            found: format!("{found:?}"),
            expected,
        }
    }

    /// A vector of exactly `expected` numbers (`sizes` says where the
    /// count comes from).
    fn vector(&self, path: &str, expected: usize, sizes: &str) -> Result<Vec<f64>, FclibError> {
        let x = self.reals(path)?;
        if x.len() != expected {
            return Err(FclibError::Length {
                path: format!("/{path}"),
                found: x.len(),
                expected: format!("{expected} ({sizes})"),
            });
        }
        Ok(x)
    }

    /// `spacedim`: 2 or 3.
    fn dimension(&self, base: &str) -> Result<usize, FclibError> {
        let d = self.integer(&format!("{base}/spacedim"))?;
        match usize::try_from(d) {
            Ok(d @ (2 | 3)) => Ok(d),
            _ => Err(FclibError::Unsupported {
                what: format!("/{base}/spacedim = {d} (2 or 3 components per contact)"),
            }),
        }
    }

    /// Refuses the optional parts that this build does not solve.
    fn refuse(&self, base: &str, names: &[&str], what: &str) -> Result<(), FclibError> {
        for name in names {
            let path = format!("{base}/{name}");
            if self.has(&path)? {
                return Err(FclibError::Unsupported {
                    what: format!("/{path} ({what})"),
                });
            }
        }
        Ok(())
    }

    fn local(&self) -> Result<LocalProblem, FclibError> {
        let base = "fclib_local";
        let dimension = self.dimension(base)?;
        self.refuse(
            base,
            &["V", "R", "vectors/s"],
            "equality constraints: u = W r + V s + q",
        )?;
        let mu = self.reals(&format!("{base}/vectors/mu"))?;
        let rows = dimension * mu.len();
        let sizes = format!("spacedim {dimension} times {} contacts", mu.len());
        let q = self.vector(&format!("{base}/vectors/q"), rows, &sizes)?;
        let w = self.matrix(&format!("{base}/W"), (rows, rows))?;
        let problem = LocalProblem {
            dimension,
            w,
            q,
            mu,
        };
        problem.validate()?;
        Ok(problem)
    }

    fn global(&self) -> Result<GlobalProblem, FclibError> {
        let base = "fclib_global";
        let dimension = self.dimension(base)?;
        self.refuse(
            base,
            &["G", "vectors/b"],
            "equality constraints: G^T v + b = 0",
        )?;
        let mu = self.reals(&format!("{base}/vectors/mu"))?;
        let rows = dimension * mu.len();
        let sizes = format!("spacedim {dimension} times {} contacts", mu.len());
        let b = self.vector(&format!("{base}/vectors/w"), rows, &sizes)?;
        let q = self.reals(&format!("{base}/vectors/f"))?;
        let n = q.len();
        let m = self.matrix(&format!("{base}/M"), (n, n))?;
        let h = self.matrix(&format!("{base}/H"), (n, rows))?;
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

    /// The sparse matrix of the group `path`, of the given shape (the
    /// problem's vectors' sizes, known before anything of the matrix is
    /// allocated).
    fn matrix(&self, path: &str, shape: (usize, usize)) -> Result<CsMat<f64>, FclibError> {
        let error = |what: String| FclibError::Matrix {
            path: format!("/{path}"),
            what,
        };
        let (rows, cols) = shape;
        let m = self.integer(&format!("{path}/m"))?;
        let n = self.integer(&format!("{path}/n"))?;
        if usize::try_from(m) != Ok(rows) || usize::try_from(n) != Ok(cols) {
            return Err(error(format!(
                "m = {m}, n = {n}, but the problem's vectors make it {rows} x {cols}"
            )));
        }
        let nz = self.integer(&format!("{path}/nz"))?;
        let p = self.integers(&format!("{path}/p"))?;
        let i = self.integers(&format!("{path}/i"))?;
        let x = self.reals(&format!("{path}/x"))?;
        let mut tri = TriMat::new(shape);
        match nz {
            nz if nz >= 0 => {
                let count = usize::try_from(nz).unwrap_or(usize::MAX);
                for (name, len) in [("p", p.len()), ("i", i.len()), ("x", x.len())] {
                    if len < count {
                        return Err(FclibError::Length {
                            path: format!("/{path}/{name}"),
                            found: len,
                            expected: format!("at least nz = {nz} (triplets)"),
                        });
                    }
                }
                for k in 0..count {
                    let (row, col) = (index(i[k], rows), index(p[k], cols));
                    match (row, col) {
                        (Some(row), Some(col)) => tri.add_triplet(row, col, x[k]),
                        _ => {
                            return Err(error(format!(
                                "triplet {k} at ({}, {}) is outside {rows} x {cols}",
                                i[k], p[k]
                            )))
                        }
                    }
                }
            }
            -1 | -2 => {
                let by_rows = nz == -2;
                let (outer, inner) = if by_rows { (rows, cols) } else { (cols, rows) };
                let kind = if by_rows { "rows" } else { "columns" };
                if p.len() != outer + 1 {
                    return Err(FclibError::Length {
                        path: format!("/{path}/p"),
                        found: p.len(),
                        expected: format!("{} (compressed {kind}: {outer} + 1)", outer + 1),
                    });
                }
                let ordered = p.first() == Some(&0) && p.windows(2).all(|w| w[0] <= w[1]);
                let entries = p
                    .last()
                    .map_or(0, |&e| usize::try_from(e).unwrap_or(usize::MAX));
                if !ordered || entries > i.len() || entries > x.len() {
                    return Err(error(format!(
                        "the {kind}' pointers do not run from 0 up to at most the {} indices \
                         and {} values stored (they end at {})",
                        i.len(),
                        x.len(),
                        p.last().copied().unwrap_or(0)
                    )));
                }
                for j in 0..outer {
                    // In range: p is ordered and ends within i and x.
                    let (from, to) = (p[j] as usize, p[j + 1] as usize);
                    for k in from..to {
                        let Some(at) = index(i[k], inner) else {
                            return Err(error(format!(
                                "entry {k} of {} {j} has index {}, outside 0..{inner}",
                                &kind[..kind.len() - 1],
                                i[k]
                            )));
                        };
                        let (row, col) = if by_rows { (j, at) } else { (at, j) };
                        tri.add_triplet(row, col, x[k]);
                    }
                }
            }
            other => {
                return Err(error(format!(
                    "nz = {other}: neither a triplet count (>= 0) nor -1 (compressed columns) \
                     or -2 (compressed rows)"
                )))
            }
        }
        Ok(tri.to_csc())
    }
}

/// `i` as an index below `len`.
fn index(i: i64, len: usize) -> Option<usize> {
    usize::try_from(i).ok().filter(|&i| i < len)
}
