//! The coupled multiplier equations at the sliding contacts, and the contact
//! operators `D`, `C` and the free normal acceleration that the checker
//! reads off them.
//!
//! Everything here costs one solve with `M` per constraint row that takes
//! part (and per tangent), plus dense factorizations of size "number of
//! rows": `M` is never formed densely, so `n` may be large while the rows
//! stay few.

use crate::linalg::{psd_pinv, solve_square};
use faer::Mat;
use zwang_instant::{Instant, MassFactor, RowRef, RowSet};

/// Relative tolerance on signs: a multiplier above `-SIGN_TOL * |lambda|`
/// counts as non-negative, a slack above `-SIGN_TOL * |row| |a|` as
/// satisfied.
pub(crate) const SIGN_TOL: f64 = 1e-9;

/// Relative residual above which the multiplier system is inconsistent.
const CONSISTENCY_TOL: f64 = 1e-8;

/// The sliding contacts of an instant with the solves by `M` they need,
/// computed once and cached.
pub(crate) struct Contacts<'a> {
    pub instant: &'a Instant,
    /// The distinct normal rows of the sliding contacts.
    pub normals: Vec<RowRef>,
    /// For each sliding contact, the index of its row in `normals`.
    pub normal_of: Vec<usize>,
    /// Whether each normal row is an equality (bilateral contact).
    pub bilateral: Vec<bool>,
    minv_force: Vec<f64>,
    minv_tangent: Vec<Vec<f64>>,
    minv_rows: Vec<Option<Vec<f64>>>,
    /// The factor of `M` (solves give NaN when `M` is not positive definite).
    mass: MassFactor,
}

/// `D`, `C` before the `mu S` scaling, and the free normal acceleration, on
/// the distinct normal rows.
pub(crate) struct Operators {
    /// `D = J_n M_E^-1 J_n^T` (`u x u`).
    pub d: Mat<f64>,
    /// `J_n M_E^-1 J_t^T` (`u x k`), one column per contact.
    pub normal_tangent: Mat<f64>,
    /// `J_t,i M_E^-1 J_t,i^T` per contact (the Cauchy-Schwarz scale of the
    /// coupling).
    pub tangent_diag: Vec<f64>,
    /// `J_n a_free - b_n` with `a_free` the answer with no normal force and
    /// no friction (the other rows still hold).
    pub free_normal_acceleration: Vec<f64>,
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
        let mut mass = instant.mass_factor_or_nan();
        let mut minv_force = instant.force().to_vec();
        mass.solve_in_place(&mut minv_force);
        let minv_tangent = instant
            .sliding()
            .iter()
            .map(|c| {
                let mut y = c.tangent.clone();
                mass.solve_in_place(&mut y);
                y
            })
            .collect();
        let m = instant.equalities().len() + instant.inequalities().len();
        Contacts {
            instant,
            normals,
            normal_of,
            bilateral,
            minv_force,
            minv_tangent,
            minv_rows: vec![None; m],
            mass,
        }
    }

    fn flat(&self, r: RowRef) -> usize {
        match r.set {
            RowSet::Equalities => r.row,
            RowSet::Inequalities => self.instant.equalities().len() + r.row,
        }
    }

    pub fn row_dot(&self, r: RowRef, x: &[f64]) -> f64 {
        self.instant.rows(r.set).row_dot(r.row, x)
    }

    fn rhs(&self, r: RowRef) -> f64 {
        self.instant.rows(r.set).rhs()[r.row]
    }

    /// Computes `M^-1 a_r^T` for the rows not cached yet.
    fn ensure(&mut self, rows: &[RowRef]) {
        for &r in rows {
            let f = self.flat(r);
            if self.minv_rows[f].is_none() {
                let mut x = vec![0.0; self.instant.dim()];
                if let Some(row) = self.instant.rows(r.set).matrix().outer_view(r.row) {
                    for (j, &v) in row.iter() {
                        x[j] = v;
                    }
                }
                self.mass.solve_in_place(&mut x);
                self.minv_rows[f] = Some(x);
            }
        }
    }

    fn minv_row(&self, r: RowRef) -> &[f64] {
        self.minv_rows[self.flat(r)]
            .as_deref()
            .expect("ensure() runs first")
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
    /// and the bound `sum_i |c_i| |J_t,i|` that rounding error scales with.
    pub fn tangent_combination_norm(&self, coef: &[f64]) -> (f64, f64) {
        let n = self.instant.dim();
        let (mut v, mut y) = (vec![0.0; n], vec![0.0; n]);
        let mut bound = 0.0;
        for (i, c) in self.instant.sliding().iter().enumerate() {
            for j in 0..n {
                v[j] += coef[i] * c.tangent[j];
                y[j] += coef[i] * self.minv_tangent[i][j];
            }
            let tt: f64 = c
                .tangent
                .iter()
                .zip(&self.minv_tangent[i])
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

    /// Solves `M a = Q + sum_r a_r^T lambda_r - sum_i J_t,i^T mu_i s_i
    /// sigma_i lambda_n,i`, `a_r a = b_r` on `rows`, where `sigma` is the
    /// assumed sign of each normal force (the friction uses `|lambda_n|`):
    /// the `m x m` system `A M^-1 W lambda = b - A M^-1 Q`, non-symmetric
    /// because `W` carries the friction on the normal columns.
    fn solve_rows(&mut self, rows: &[RowRef], sigma: &[f64]) -> (Vec<f64>, Vec<f64>, f64) {
        self.ensure(rows);
        let columns: Vec<Vec<f64>> = rows
            .iter()
            .map(|&r| {
                let mut v = self.minv_row(r).to_vec();
                if let Some(u) = self.normals.iter().position(|&nr| nr == r) {
                    for (i, c) in self.instant.sliding().iter().enumerate() {
                        if self.normal_of[i] == u {
                            let w = c.mu * c.slip * sigma[u];
                            for (vj, yj) in v.iter_mut().zip(&self.minv_tangent[i]) {
                                *vj -= w * yj;
                            }
                        }
                    }
                }
                v
            })
            .collect();
        let g = Mat::from_fn(rows.len(), rows.len(), |p, q| {
            self.row_dot(rows[p], &columns[q])
        });
        let rhs: Vec<f64> = rows
            .iter()
            .map(|&r| self.rhs(r) - self.row_dot(r, &self.minv_force))
            .collect();
        let (lambda, residual) = solve_square(&g, &rhs);
        let mut a = self.minv_force.clone();
        for (col, l) in columns.iter().zip(&lambda) {
            for (aj, cj) in a.iter_mut().zip(col) {
                *aj += l * cj;
            }
        }
        (a, lambda, residual)
    }

    /// The rows other than the sliding normals that the coupled solve with
    /// every sliding normal closed keeps active: a small active-set loop
    /// decides the other inequality rows (add the most violated, drop the
    /// most negative multiplier) and the sign of each bilateral normal force
    /// (the friction goes with `|lambda_n|`). The checker's reference for
    /// parts whose contact problem has no single answer (Painleve).
    pub fn solve_coupled(&mut self) -> Vec<RowRef> {
        let instant = self.instant;
        let (m_eq, m_in) = (instant.equalities().len(), instant.inequalities().len());
        let normals = self.normals.clone();
        let is_normal = |r: RowRef| normals.contains(&r);
        // Closed contacts are assumed closed until a multiplier says not.
        let mut active: Vec<bool> = vec![true; m_in];
        let mut sigma = vec![1.0; self.normals.len()];
        let limit = 4 * (m_in + self.normals.len()) + 8;
        let (mut l_eq, mut l_in) = (vec![0.0; m_eq], vec![0.0; m_in]);
        let (mut rounds, mut reopened) = (0, false);
        while rounds < limit {
            rounds += 1;
            let rows: Vec<RowRef> = active_rows(m_eq, &active).collect();
            let (a, lambda, residual) = self.solve_rows(&rows, &sigma);
            l_eq.iter_mut().for_each(|x| *x = 0.0);
            l_in.iter_mut().for_each(|x| *x = 0.0);
            for (r, l) in rows.iter().zip(&lambda) {
                match r.set {
                    RowSet::Equalities => l_eq[r.row] = *l,
                    RowSet::Inequalities => l_in[r.row] = *l,
                }
            }
            if residual > CONSISTENCY_TOL {
                // Closed rows that cannot all hold with equality: open every
                // other inequality once and let the loop close back the
                // ones that are crossed.
                let closable: Vec<usize> = (0..m_in)
                    .filter(|&i| {
                        active[i]
                            && !is_normal(RowRef {
                                set: RowSet::Inequalities,
                                row: i,
                            })
                    })
                    .collect();
                if !reopened && !closable.is_empty() {
                    closable.into_iter().for_each(|i| active[i] = false);
                    reopened = true;
                    continue;
                }
                break;
            }
            let l_tol = SIGN_TOL * lambda.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            // The most violated open row, by slack relative to its size.
            let a_inf = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let ineq = instant.inequalities();
            let violated = (0..m_in)
                .filter(|&i| !active[i])
                .map(|i| {
                    let row_max = ineq
                        .matrix()
                        .outer_view(i)
                        .map(|r| r.data().iter().fold(0.0f64, |m, v| m.max(v.abs())))
                        .unwrap_or(0.0);
                    let scale = (row_max * a_inf)
                        .max(ineq.rhs()[i].abs())
                        .max(f64::MIN_POSITIVE);
                    (i, (ineq.row_dot(i, &a) - ineq.rhs()[i]) / scale)
                })
                .filter(|&(_, s)| s < -SIGN_TOL)
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((i, _)) = violated {
                active[i] = true;
                continue;
            }
            let negative = (0..m_in)
                .filter(|&i| {
                    active[i]
                        && !is_normal(RowRef {
                            set: RowSet::Inequalities,
                            row: i,
                        })
                })
                .map(|i| (i, l_in[i]))
                .filter(|&(_, l)| l < -l_tol)
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((i, _)) = negative {
                active[i] = false;
                continue;
            }
            let forces = self.normal_forces(&l_eq, &l_in);
            let mut flipped = false;
            for u in 0..self.normals.len() {
                if self.bilateral[u] && sigma[u] * forces[u] < -l_tol {
                    sigma[u] = -sigma[u];
                    flipped = true;
                }
            }
            if !flipped {
                break;
            }
        }
        active_rows(m_eq, &active)
            .filter(|&r| !is_normal(r))
            .collect()
    }

    /// The contact operators with the rows `other` held as equalities:
    /// with `M_E^-1 = M^-1 - M^-1 A_E^T (A_E M^-1 A_E^T)^+ A_E M^-1` (the
    /// inverse mass of the system the other rows leave free),
    /// `D = J_n M_E^-1 J_n^T` is the Delassus operator of the constrained
    /// system and `J_n M_E^-1 J_t^T` its coupling to the tangents.
    pub fn operators(&mut self, other: &[RowRef]) -> Operators {
        let normals = self.normals.clone();
        self.ensure(other);
        self.ensure(&normals);
        let (e, u, k) = (other.len(), normals.len(), self.minv_tangent.len());
        let schur = Mat::from_fn(e, e, |p, q| {
            0.5 * (self.row_dot(other[p], self.minv_row(other[q]))
                + self.row_dot(other[q], self.minv_row(other[p])))
        });
        let pinv = psd_pinv(&schur);
        // A_E M^-1 J_n^T, A_E M^-1 J_t^T and b_E - A_E M^-1 Q.
        let pn = Mat::from_fn(e, u, |p, v| {
            self.row_dot(other[p], self.minv_row(normals[v]))
        });
        let pt = Mat::from_fn(e, k, |p, i| self.row_dot(other[p], &self.minv_tangent[i]));
        let re: Vec<f64> = other
            .iter()
            .map(|&r| self.rhs(r) - self.row_dot(r, &self.minv_force))
            .collect();
        // x^T S^+ y for columns of the e-row blocks.
        let quad = |x: &dyn Fn(usize) -> f64, y: &dyn Fn(usize) -> f64| -> f64 {
            let mut s = 0.0;
            for p in 0..e {
                let xp = x(p);
                if xp != 0.0 {
                    for q in 0..e {
                        s += xp * pinv[(p, q)] * y(q);
                    }
                }
            }
            s
        };
        let mut d = Mat::from_fn(u, u, |a, b| {
            self.row_dot(normals[a], self.minv_row(normals[b]))
                - quad(&|p| pn[(p, a)], &|q| pn[(q, b)])
        });
        for a in 0..u {
            for b in a + 1..u {
                let s = 0.5 * (d[(a, b)] + d[(b, a)]);
                d[(a, b)] = s;
                d[(b, a)] = s;
            }
        }
        let normal_tangent = Mat::from_fn(u, k, |a, i| {
            self.row_dot(normals[a], &self.minv_tangent[i]) - quad(&|p| pn[(p, a)], &|q| pt[(q, i)])
        });
        let tangent_diag = (0..k)
            .map(|i| {
                let t = &self.instant.sliding()[i].tangent;
                let ty: f64 = t
                    .iter()
                    .zip(&self.minv_tangent[i])
                    .map(|(x, y)| x * y)
                    .sum();
                ty - quad(&|p| pt[(p, i)], &|q| pt[(q, i)])
            })
            .collect();
        let free_normal_acceleration = (0..u)
            .map(|a| {
                self.row_dot(normals[a], &self.minv_force) + quad(&|p| pn[(p, a)], &|q| re[q])
                    - self.rhs(normals[a])
            })
            .collect();
        Operators {
            d,
            normal_tangent,
            tangent_diag,
            free_normal_acceleration,
        }
    }
}

/// Every equality row, then the inequality rows flagged `active`.
fn active_rows(m_eq: usize, active: &[bool]) -> impl Iterator<Item = RowRef> + '_ {
    let equalities = (0..m_eq).map(|row| RowRef {
        set: RowSet::Equalities,
        row,
    });
    let contacts = (0..active.len()).filter(|&i| active[i]).map(|row| RowRef {
        set: RowSet::Inequalities,
        row,
    });
    equalities.chain(contacts)
}
