//! Stage 2, assemble: the contact problem of the step in local form,
//! `u = W r + q`, from the contacts' rows: the Delassus operator
//! `W = J M^-1 J^T` (two rows per contact, normal then tangent; sparse:
//! contacts couple only through a body they share) and the free contact
//! velocity `q = J v*`, its normal part shifted by Newton's restitution
//! and by the gap a contact may still close within the step.

use super::collide::StepContact;
use sprs::CsMat;
use zwang_contact::LocalProblem;

/// The working memory of the stage: `W`'s pattern and values as they are
/// written, the contacts touching each body, and the problem itself (its
/// matrix kept while its pattern stays, so that the contact solver's
/// analysis of it does too).
#[derive(Default)]
pub(super) struct Assemble {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
    /// Contacts per coordinate of `v` (a body's first column stands for
    /// it), and one contact's neighbours.
    touching: Vec<Vec<usize>>,
    near: Vec<usize>,
    pub problem: Option<LocalProblem>,
}

impl Assemble {
    /// Writes `W` of `contacts` (`minv` the diagonal of `M^-1`) into the
    /// problem, in place while its pattern stays.
    pub fn delassus(&mut self, contacts: &[StepContact], minv: &[f64]) -> &CsMat<f64> {
        let n = minv.len();
        self.touching.resize_with(n, Vec::new);
        self.touching.iter_mut().for_each(Vec::clear);
        for (i, c) in contacts.iter().enumerate() {
            for k in 0..c.rows.len {
                let col = c.rows.cols[k];
                if self.touching[col].last() != Some(&i) {
                    self.touching[col].push(i);
                }
            }
        }
        self.indptr.clear();
        self.indices.clear();
        self.data.clear();
        self.indptr.push(0);
        for ci in contacts {
            self.near.clear();
            for k in 0..ci.rows.len {
                self.near.extend_from_slice(&self.touching[ci.rows.cols[k]]);
            }
            self.near.sort_unstable();
            self.near.dedup();
            // Rows 2i (normal) and 2i + 1 (tangent): the 2 x 2 block of
            // each neighbour j, `J_i M^-1 J_j^T` over their shared columns.
            for row in 0..2 {
                for &j in &self.near {
                    let cj = &contacts[j];
                    let mut block = [0.0; 2];
                    for a in 0..ci.rows.len {
                        let col = ci.rows.cols[a];
                        let ji = if row == 0 {
                            ci.rows.normal[a]
                        } else {
                            ci.rows.tangent[a]
                        };
                        for b in 0..cj.rows.len {
                            if cj.rows.cols[b] == col {
                                block[0] += ji * minv[col] * cj.rows.normal[b];
                                block[1] += ji * minv[col] * cj.rows.tangent[b];
                            }
                        }
                    }
                    self.indices.extend([2 * j, 2 * j + 1]);
                    self.data.extend(block);
                }
                self.indptr.push(self.indices.len());
            }
        }
        self.store(contacts.len())
    }

    /// `W = J M_E^-1 J^T` of `contacts` from the responses `M_E^-1 J_i^T`
    /// of their rows (joints held): every pair of contacts may couple
    /// through the joints, so `W` is stored dense.
    pub fn delassus_from(
        &mut self,
        contacts: &[StepContact],
        responses: &[Vec<f64>],
    ) -> &CsMat<f64> {
        self.indptr.clear();
        self.indices.clear();
        self.data.clear();
        self.indptr.push(0);
        for ci in contacts {
            for row in 0..2 {
                for (col, y) in responses.iter().enumerate() {
                    let value: f64 = (0..ci.rows.len)
                        .map(|a| {
                            let j = if row == 0 {
                                ci.rows.normal[a]
                            } else {
                                ci.rows.tangent[a]
                            };
                            j * y[ci.rows.cols[a]]
                        })
                        .sum();
                    self.indices.push(col);
                    self.data.push(value);
                }
                self.indptr.push(self.indices.len());
            }
        }
        self.store(contacts.len())
    }

    /// The written pattern and values as the problem's `W` (`k` contacts):
    /// in place when the pattern is the last one's.
    fn store(&mut self, k: usize) -> &CsMat<f64> {
        let m = 2 * k;
        let same = self.problem.as_ref().is_some_and(|p| {
            p.w.rows() == m
                && p.w.indptr().raw_storage() == self.indptr.as_slice()
                && p.w.indices() == self.indices.as_slice()
        });
        if !same {
            self.problem = Some(LocalProblem {
                dimension: 2,
                w: CsMat::new(
                    (m, m),
                    self.indptr.clone(),
                    self.indices.clone(),
                    self.data.clone(),
                ),
                q: Vec::with_capacity(m),
                mu: Vec::with_capacity(k),
            });
        }
        let problem = self.problem.as_mut().expect("just made");
        if same {
            problem.w.data_mut().copy_from_slice(&self.data);
        }
        &problem.w
    }

    /// Writes the free contact velocity of `contacts` at step `h` (`v`
    /// the velocity at the start of the step, `v_star` the free one) and
    /// their friction into the problem, after [`Assemble::delassus`].
    ///
    /// Gaps below `slop` count as touching: the gap term turns a position
    /// into a velocity by `1 / h`, and would feed the round-off a solve
    /// leaves in the velocities (which moves the positions by a little each
    /// step) back into every next problem, enlarged.
    pub fn free(
        &mut self,
        contacts: &[StepContact],
        v: &[f64],
        v_star: &[f64],
        h: f64,
        slop: f64,
    ) -> &LocalProblem {
        let problem = self.problem.as_mut().expect("delassus first");
        problem.q.clear();
        problem.mu.clear();
        for c in contacts {
            let (un_free, ut_free) = c.rows.velocity(v_star);
            let (un_before, _) = c.rows.velocity(v);
            // Newton's law on an impact within the step: the contact
            // leaves at `e` times the speed it came in with (from where
            // the step starts: the position is off by less than a step's
            // travel, the speed is right). Otherwise a contact still apart
            // may close, exactly, by the step's end.
            let closing = un_before < 0.0 && c.gap + h * un_before <= 0.0;
            let bias = if closing && c.restitution > 0.0 {
                c.restitution * un_before
            } else {
                (c.gap - slop).max(0.0) / h
            };
            problem.q.extend([un_free + bias, ut_free]);
            problem.mu.push(c.mu);
        }
        problem
    }
}
