//! A frictional contact problem in global form, its reduction to the local
//! form and Siconos' error measure for it.
//!
//! Siconos' convention: velocities `v` with `M v = H r + q` and contact
//! velocities `u = H^T v + b`. Eliminating `v = M^-1 (H r + q)` gives the
//! local problem `u = W r + q_local` with `W = H^T M^-1 H` and
//! `q_local = H^T M^-1 q + b`, solved by the local solver; `v` is then
//! recovered from `r`.

use crate::error::natural_map;
use crate::problem::{check_finite, check_finite_matrix, check_friction, check_sizes};
use crate::{BoundedRows, ContactRows, Friction, LocalProblem, ProblemError, VelocityProblem};
use sprs::{CsMat, TriMat};
use thiserror::Error;
use zwang_instant::mass::MassFactor;

/// Below this, Siconos' `gfc3d_compute_error` does not divide by a scale
/// (`sqrt(DBL_EPSILON)`, its `MIN_RELATIVE_SCALING`).
const MIN_RELATIVE_SCALING: f64 = 1.490_116_119_384_765_6e-8;

/// What keeps a global problem from its local form.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum GlobalError {
    /// Sizes, finiteness or friction coefficients.
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// `M` is not symmetric (relative to its largest entry).
    #[error("M is not symmetric: M[{row}, {col}] differs from M[{col}, {row}]")]
    MassNotSymmetric {
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
    },
    /// `M` is not positive definite.
    #[error("M is not positive definite (pivot of coordinate {coordinate})")]
    MassNotPositiveDefinite {
        /// The coordinate whose pivot failed.
        coordinate: usize,
    },
}

/// `M v = H r + q`, `u = H^T v + b`, Coulomb's law at each contact.
///
/// `M` is `n x n` (symmetric positive definite), `H` is `n x (d nc)`;
/// contact `i` owns columns `d i .. d i + d` of `H` (normal first).
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalProblem {
    /// Components per contact: 2 in the plane, 3 in space.
    pub dimension: usize,
    /// The mass matrix.
    pub m: CsMat<f64>,
    /// The contact operator (`u = H^T v + b`).
    pub h: CsMat<f64>,
    /// The free term of the dynamics (forces times the step).
    pub q: Vec<f64>,
    /// The free term of the contact velocities.
    pub b: Vec<f64>,
    /// One friction coefficient per contact.
    pub mu: Vec<f64>,
}

impl GlobalProblem {
    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Checks sizes, finiteness and friction coefficients (the symmetry
    /// and definiteness of `M` are checked by [`GlobalProblem::to_local`]).
    pub fn validate(&self) -> Result<(), ProblemError> {
        if !matches!(self.dimension, 2 | 3) {
            return Err(ProblemError::Dimension(self.dimension));
        }
        let n = self.m.rows();
        let c = self.dimension * self.mu.len();
        check_sizes(&[
            ("M's columns", self.m.cols(), n),
            ("H's rows", self.h.rows(), n),
            ("H's columns", self.h.cols(), c),
            ("q", self.q.len(), n),
            ("b", self.b.len(), c),
        ])?;
        check_friction(&self.mu)?;
        check_finite("q", &self.q)?;
        check_finite("b", &self.b)?;
        check_finite_matrix("M", &self.m)?;
        check_finite_matrix("H", &self.h)
    }

    /// The local form `W = H^T M^-1 H`, `q_local = H^T M^-1 q + b`, with
    /// the factor of `M` that recovers `v` from an answer
    /// ([`Reformulation::velocity`]).
    pub fn to_local(&self) -> Result<Reformulation<'_>, GlobalError> {
        self.validate()?;
        self.check_symmetric()?;
        let mut factor = MassFactor::new(&self.m.to_csr())
            .map_err(|coordinate| GlobalError::MassNotPositiveDefinite { coordinate })?;
        let h = self.h.to_csc();
        let (n, columns) = (h.rows(), h.cols());
        // X = M^-1 H column by column, kept sparse (a block-diagonal M
        // keeps each column on its bodies' coordinates).
        let mut x = TriMat::new((n, columns));
        let mut rhs = vec![0.0; n];
        for (j, col) in h.outer_iterator().enumerate() {
            rhs.fill(0.0);
            for (i, &v) in col.iter() {
                rhs[i] = v;
            }
            factor.solve_in_place(&mut rhs);
            for (i, &v) in rhs.iter().enumerate() {
                if v != 0.0 {
                    x.add_triplet(i, j, v);
                }
            }
        }
        let x: CsMat<f64> = x.to_csr();
        let ht: CsMat<f64> = h.transpose_view().to_owned();
        let w = (&ht * &x).to_csc();
        let mut free = self.q.clone();
        factor.solve_in_place(&mut free);
        let mut q = self.b.clone();
        mul_transpose_add(&h, &free, &mut q);
        Ok(Reformulation {
            global: self,
            local: LocalProblem {
                dimension: self.dimension,
                w,
                q,
                mu: self.mu.clone(),
            },
            factor,
        })
    }

    /// The same problem in velocities, for [`crate::PrimalSolver`]: `M`,
    /// `f = q`, `J = H^T` by contact, `b`, `mu` (`W` never formed).
    pub fn to_velocity(&self) -> Result<VelocityProblem, GlobalError> {
        self.validate()?;
        self.check_symmetric()?;
        let h = self.h.to_csc();
        let d = self.dimension;
        let mut rows = ContactRows::new(d);
        let k = self.contacts();
        let mut entries: Vec<(usize, [f64; 3])> = Vec::new();
        for i in 0..k {
            // Contact i's columns of H, merged by coordinate.
            entries.clear();
            for row in 0..d {
                for (c, &x) in h.outer_view(d * i + row).iter().flat_map(|v| v.iter()) {
                    match entries.iter_mut().find(|e| e.0 == c) {
                        Some(e) => e.1[row] = x,
                        None => {
                            let mut values = [0.0; 3];
                            values[row] = x;
                            entries.push((c, values));
                        }
                    }
                }
            }
            for (c, values) in &entries {
                rows.cols.push(*c);
                rows.values.extend_from_slice(&values[..d]);
            }
            rows.start.push(rows.cols.len());
        }
        Ok(VelocityProblem {
            mass: self.m.to_csc(),
            force: self.q.clone(),
            rows,
            b: self.b.clone(),
            mu: self.mu.clone(),
            bounded: BoundedRows::default(),
        })
    }

    /// `M` symmetric to 1e-12 of its largest entry.
    fn check_symmetric(&self) -> Result<(), GlobalError> {
        let largest = self.m.iter().fold(0.0_f64, |a, (v, _)| a.max(v.abs()));
        let transpose = self.m.transpose_view().to_csc();
        let m = self.m.to_csc();
        for (&v, (row, col)) in m.iter() {
            let t = transpose.get(row, col).copied().unwrap_or(0.0);
            if (v - t).abs() > 1e-12 * largest {
                return Err(GlobalError::MassNotSymmetric { row, col });
            }
        }
        Ok(())
    }

    /// `u = H^T v + b`.
    pub fn contact_velocity(&self, v: &[f64]) -> Vec<f64> {
        let mut u = self.b.clone();
        mul_transpose_add(&self.h, v, &mut u);
        u
    }
}

/// `y += A^T x`.
fn mul_transpose_add(a: &CsMat<f64>, x: &[f64], y: &mut [f64]) {
    for (&v, (row, col)) in a.iter() {
        y[col] += v * x[row];
    }
}

/// `y += A x`.
fn mul_add(a: &CsMat<f64>, x: &[f64], y: &mut [f64]) {
    for (&v, (row, col)) in a.iter() {
        y[row] += v * x[col];
    }
}

/// A global problem's local form, with what recovers `v` from `r`.
#[derive(Debug)]
pub struct Reformulation<'a> {
    global: &'a GlobalProblem,
    /// `W = H^T M^-1 H`, `q_local = H^T M^-1 q + b`, the same `mu`.
    pub local: LocalProblem,
    factor: MassFactor,
}

impl Reformulation<'_> {
    /// The velocities of an answer `r`: `v = M^-1 (H r + q)`.
    pub fn velocity(&mut self, r: &[f64]) -> Vec<f64> {
        let mut v = self.global.q.clone();
        mul_add(&self.global.h, r, &mut v);
        self.factor.solve_in_place(&mut v);
        v
    }
}

/// Siconos' error of a global answer (`gfc3d_compute_error`, here in the
/// plane): the sum of
/// `||-M v + H r + q|| / max(||q||, ||M v||, ||H r||)` and
/// `|| r - P_K(r - (u + mu |u_T| e_N)) || / max(||u||, ||r||)` with
/// `u = H^T v + b`, each divided only when its scale exceeds `sqrt(eps)`
/// (as Siconos does).
/// For [`Friction::Convex`] the second term is the convex form's (`w = u`).
pub fn global_error(problem: &GlobalProblem, r: &[f64], v: &[f64], friction: Friction) -> f64 {
    let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let relative = |e: f64, scale: f64| {
        if scale > MIN_RELATIVE_SCALING {
            e / scale
        } else {
            e
        }
    };
    let n = problem.q.len();
    let mut hr = vec![0.0; n];
    mul_add(&problem.h, r, &mut hr);
    let mut mv = vec![0.0; n];
    mul_add(&problem.m, v, &mut mv);
    let residual: Vec<f64> = (0..n).map(|i| problem.q[i] + hr[i] - mv[i]).collect();
    let dynamics = relative(
        norm(&residual),
        norm(&problem.q).max(norm(&mv)).max(norm(&hr)),
    );
    let u = problem.contact_velocity(v);
    let contact = natural_map(friction, &problem.mu, r, &u);
    dynamics + relative(contact, norm(&u).max(norm(r)))
}
