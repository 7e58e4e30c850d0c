//! Contact problems from other simulators and generated ones, for
//! `zwang-contact`'s solvers: the problems come in, the solvers stay apart
//! from their file formats (and from the HDF5 reader).
//!
//! - [`siconos`]: Siconos' text files, local and global form, planar or in
//!   space;
//! - [`fclib`]: FCLIB's HDF5 files, local and global form;
//! - [`generate`]: planar rigid bodies (a box on an incline, a stack, a
//!   pyramid) and stacks of cubes in space, built into problems the way a
//!   time stepper does, for tests and benchmarks whose physics is known.

pub mod fclib;
pub mod generate;
pub mod siconos;

pub use fclib::{read_fclib, FclibError, FclibProblem};
pub use siconos::{parse_global, parse_local, SiconosError};
