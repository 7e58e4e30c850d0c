//! The sliding contacts of an instant: their distinct normal rows, and
//! the friction force and tangent sizes that the checker and the frozen
//! forms read off them. (The contact-space operators are `space.rs`'s.)

use zwang_instant::{Instant, RowRef, RowSet};

/// Relative tolerance on signs: a slack above `-SIGN_TOL * |row| |a|`
/// counts as satisfied.
pub(crate) const SIGN_TOL: f64 = 1e-9;

/// The sliding contacts of an instant, by distinct normal row.
pub(crate) struct Contacts<'a> {
    pub instant: &'a Instant,
    /// The distinct normal rows of the sliding contacts.
    pub normals: Vec<RowRef>,
    /// For each sliding contact, the index of its row in `normals`.
    pub normal_of: Vec<usize>,
    /// Whether each normal row is an equality (bilateral contact).
    pub bilateral: Vec<bool>,
}

impl<'a> Contacts<'a> {
    pub fn new(instant: &'a Instant) -> Self {
        let mut normals: Vec<RowRef> = Vec::new();
        let normal_of = instant
            .sliding()
            .iter()
            .map(|c| match normals.iter().position(|&r| r == c.normal) {
                Some(u) => u,
                None => {
                    normals.push(c.normal);
                    normals.len() - 1
                }
            })
            .collect();
        let bilateral = normals
            .iter()
            .map(|r| r.set == RowSet::Equalities)
            .collect();
        Contacts {
            instant,
            normals,
            normal_of,
            bilateral,
        }
    }

    /// The friction force of the sliding contacts on the system,
    /// `-sum_i J_t,i^T mu_i s_i |lambda_n,i|`, for normal forces given per
    /// distinct normal row.
    pub fn friction_force(&self, normal_forces: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; self.instant.dim()];
        for (c, &u) in self.instant.sliding().iter().zip(&self.normal_of) {
            let w = c.mu * c.slip * normal_forces[u].abs();
            for (fj, tj) in f.iter_mut().zip(&c.tangent) {
                *fj -= w * tj;
            }
        }
        f
    }

    /// The size of a combination of the contacts' tangents,
    /// `|sum_i c_i J_t,i|` in the `M^-1` norm (the acceleration it causes),
    /// and the bound `sum_i |c_i| |J_t,i|` that rounding error scales with;
    /// `minv_tangent` holds `M^-1 J_t,i^T` per contact.
    pub fn tangent_combination_norm(&self, minv_tangent: &[Vec<f64>], coef: &[f64]) -> (f64, f64) {
        let n = self.instant.dim();
        let (mut v, mut y) = (vec![0.0; n], vec![0.0; n]);
        let mut bound = 0.0;
        for (i, c) in self.instant.sliding().iter().enumerate() {
            for j in 0..n {
                v[j] += coef[i] * c.tangent[j];
                y[j] += coef[i] * minv_tangent[i][j];
            }
            let tt: f64 = c
                .tangent
                .iter()
                .zip(&minv_tangent[i])
                .map(|(a, b)| a * b)
                .sum();
            bound += coef[i].abs() * tt.max(0.0).sqrt();
        }
        let vy: f64 = v.iter().zip(&y).map(|(a, b)| a * b).sum();
        (vy.max(0.0).sqrt(), bound)
    }

    /// The multiplier of each distinct normal row in a solution.
    pub fn normal_forces(&self, lambda_eq: &[f64], lambda_in: &[f64]) -> Vec<f64> {
        self.normals
            .iter()
            .map(|r| match r.set {
                RowSet::Equalities => lambda_eq[r.row],
                RowSet::Inequalities => lambda_in[r.row],
            })
            .collect()
    }
}
