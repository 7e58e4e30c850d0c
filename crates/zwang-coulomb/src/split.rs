//! Independent parts of an instant.
//!
//! Two coordinates belong to the same part when an entry of `M`, a
//! constraint row, or a friction entry (its tangent and its normal row)
//! links them: no force can pass between parts, so each part's contact
//! problem can be solved, and checked, on its own. That is what makes the
//! cost grow with the size of the coupled groups instead of with all
//! contacts (800 boxes on a floor are 800 problems of one contact each).

use zwang_contact::UnionFind;
use zwang_instant::{
    matrix_from_triplets, Instant, InstantError, RowRef, RowSet, SlidingContact, StickingContact,
};

/// One independent part: its coordinates, rows and friction entries, all
/// as indices into the whole instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Part {
    /// Coordinates, increasing.
    pub coords: Vec<usize>,
    /// Equality rows, increasing.
    pub eq_rows: Vec<usize>,
    /// Inequality rows, increasing.
    pub in_rows: Vec<usize>,
    /// Indices into `Instant::sliding()`.
    pub sliding: Vec<usize>,
    /// Indices into `Instant::sticking()`.
    pub sticking: Vec<usize>,
}

impl Part {
    /// Whether any friction entry lives here.
    pub fn has_friction(&self) -> bool {
        !self.sliding.is_empty() || !self.sticking.is_empty()
    }
}

fn first_column(instant: &Instant, r: RowRef) -> Option<usize> {
    instant
        .rows(r.set)
        .matrix()
        .outer_view(r.row)
        .and_then(|v| v.indices().first().copied())
}

/// The independent parts of `instant`, ordered by their first coordinate.
/// Rows without any entry (which constrain nothing) go with coordinate 0.
pub(crate) fn parts(instant: &Instant) -> Vec<Part> {
    let n = instant.dim();
    let mut islands = UnionFind::new(n);
    for (i, row) in instant.mass().outer_iterator().enumerate() {
        for (j, _) in row.iter() {
            islands.union(i, j);
        }
    }
    for set in [RowSet::Equalities, RowSet::Inequalities] {
        for row in instant.rows(set).matrix().outer_iterator() {
            let idx = row.indices();
            for w in idx.windows(2) {
                islands.union(w[0], w[1]);
            }
        }
    }
    let anchor = |r: RowRef| first_column(instant, r).unwrap_or(0);
    for (i, c) in instant.sliding().iter().enumerate() {
        let a = anchor(c.normal);
        for &j in instant.tangent_support(i) {
            islands.union(a, j);
        }
    }
    for c in instant.sticking() {
        let t = RowRef {
            set: RowSet::Equalities,
            row: c.tangent_row,
        };
        islands.union(anchor(c.normal), anchor(t));
    }
    let mut part_of = Vec::new();
    let count = islands.labels(&mut part_of);
    let mut out: Vec<Part> = vec![Part::default(); count];
    for (j, &p) in part_of.iter().enumerate() {
        out[p].coords.push(j);
    }
    for row in 0..instant.equalities().len() {
        let r = RowRef {
            set: RowSet::Equalities,
            row,
        };
        out[part_of[anchor(r)]].eq_rows.push(row);
    }
    for row in 0..instant.inequalities().len() {
        let r = RowRef {
            set: RowSet::Inequalities,
            row,
        };
        out[part_of[anchor(r)]].in_rows.push(row);
    }
    for (i, c) in instant.sliding().iter().enumerate() {
        out[part_of[anchor(c.normal)]].sliding.push(i);
    }
    for (i, c) in instant.sticking().iter().enumerate() {
        out[part_of[anchor(c.normal)]].sticking.push(i);
    }
    out
}

/// Merges parts into one (their index lists stay sorted).
pub(crate) fn merge(parts: &[&Part]) -> Part {
    let mut m = Part::default();
    for p in parts {
        m.coords.extend_from_slice(&p.coords);
        m.eq_rows.extend_from_slice(&p.eq_rows);
        m.in_rows.extend_from_slice(&p.in_rows);
        m.sliding.extend_from_slice(&p.sliding);
        m.sticking.extend_from_slice(&p.sticking);
    }
    m.coords.sort_unstable();
    m.eq_rows.sort_unstable();
    m.in_rows.sort_unstable();
    m.sliding.sort_unstable();
    m.sticking.sort_unstable();
    m
}

/// Whether `part` is the whole instant (then no copy is needed).
pub(crate) fn is_whole(instant: &Instant, part: &Part) -> bool {
    part.coords.len() == instant.dim()
        && part.eq_rows.len() == instant.equalities().len()
        && part.in_rows.len() == instant.inequalities().len()
        && part.sliding.len() == instant.sliding().len()
        && part.sticking.len() == instant.sticking().len()
}

/// Makes sub-instants of one instant, keeping the global-to-local map
/// between calls so that cutting `p` parts costs `O(n + p)`, not `O(n p)`.
#[derive(Debug, Default)]
pub(crate) struct Cutter {
    local: Vec<usize>,
    /// Scratch for [`Cutter::refresh`].
    values: Vec<f64>,
}

impl Cutter {
    /// The part as an instant of its own, with local indices (coordinate
    /// `k` of the sub-instant is `part.coords[k]`, and so on for rows and
    /// entries).
    pub fn cut(&mut self, instant: &Instant, part: &Part) -> Result<Instant, InstantError> {
        self.cut_with(instant, part, &[])
    }

    /// [`Cutter::cut`] with more sliding contacts (normals and tangents in
    /// the whole instant's numbering), appended after the part's own.
    pub fn cut_with(
        &mut self,
        instant: &Instant,
        part: &Part,
        extra: &[SlidingContact],
    ) -> Result<Instant, InstantError> {
        if self.local.len() != instant.dim() {
            self.local = vec![usize::MAX; instant.dim()];
        }
        for (k, &j) in part.coords.iter().enumerate() {
            self.local[j] = k;
        }
        let sub = sub_instant(instant, part, &self.local, extra);
        for &j in &part.coords {
            self.local[j] = usize::MAX;
        }
        sub
    }
}

impl Cutter {
    /// Writes the values of `instant` into `sub`, a cut of `part` from an
    /// instant of the same structure (same [`Instant::structure_id`]), so
    /// that the stepper's many solves of one structure cut once. `false`
    /// when the values do not fit `sub` (then cut again: the error, if
    /// any, is the cut's). `mass` says whether `M` changed since the cut.
    pub fn refresh(
        &mut self,
        instant: &Instant,
        part: &Part,
        sub: &mut Instant,
        mass: bool,
    ) -> bool {
        let values = &mut self.values;
        // The stored entries of the part's rows, in the cut's order (the
        // local numbering keeps the order of the columns).
        let gather = |values: &mut Vec<f64>, data: &[f64], rows: &mut dyn Iterator<Item = _>| {
            values.clear();
            for range in rows {
                values.extend_from_slice(&data[range]);
            }
        };
        if mass {
            let m = instant.mass();
            let mut rows = part.coords.iter().map(|&r| m.indptr().outer_inds_sz(r));
            gather(values, m.data(), &mut rows);
            // (Whether it is still positive definite is the caller's to
            // check, with the factor it keeps.)
            if sub.set_mass_values(values).is_err() {
                return false;
            }
        }
        for (set, which) in [
            (RowSet::Equalities, &part.eq_rows),
            (RowSet::Inequalities, &part.in_rows),
        ] {
            let all = instant.rows(set);
            let a = all.matrix();
            let mut rows = which.iter().map(|&r| a.indptr().outer_inds_sz(r));
            gather(values, a.data(), &mut rows);
            if sub.set_row_values(set, values).is_err() {
                return false;
            }
            values.clear();
            values.extend(which.iter().map(|&r| all.rhs()[r]));
            if sub.set_rhs(set, values).is_err() {
                return false;
            }
        }
        values.clear();
        values.extend(part.coords.iter().map(|&j| instant.force()[j]));
        if sub.set_force(values).is_err() {
            return false;
        }
        for (k, &i) in part.sliding.iter().enumerate() {
            let c = &instant.sliding()[i];
            values.clear();
            values.extend(part.coords.iter().map(|&j| c.tangent[j]));
            if sub.set_sliding(k, values, c.slip).is_err() {
                return false;
            }
        }
        true
    }
}

fn sub_instant(
    instant: &Instant,
    part: &Part,
    local: &[usize],
    extra: &[SlidingContact],
) -> Result<Instant, InstantError> {
    let n = part.coords.len();
    let mass = instant.mass();
    let mut m = Vec::new();
    for (k, &i) in part.coords.iter().enumerate() {
        if let Some(row) = mass.outer_view(i) {
            for (j, &v) in row.iter() {
                m.push((k, local[j], v));
            }
        }
    }
    let rows = |set: RowSet, which: &[usize]| -> Result<_, InstantError> {
        let all = instant.rows(set);
        let mut t = Vec::new();
        for (k, &r) in which.iter().enumerate() {
            if let Some(row) = all.matrix().outer_view(r) {
                for (j, &v) in row.iter() {
                    t.push((k, local[j], v));
                }
            }
        }
        let key = match set {
            RowSet::Equalities => "equalities.A",
            RowSet::Inequalities => "inequalities.A",
        };
        let a = matrix_from_triplets(key, (which.len(), n), t)?;
        let b: Vec<f64> = which.iter().map(|&r| all.rhs()[r]).collect();
        Ok((a, b))
    };
    let force: Vec<f64> = part.coords.iter().map(|&j| instant.force()[j]).collect();
    let (a_eq, b_eq) = rows(RowSet::Equalities, &part.eq_rows)?;
    let (a_in, b_in) = rows(RowSet::Inequalities, &part.in_rows)?;
    let local_row = |r: RowRef| {
        let list = match r.set {
            RowSet::Equalities => &part.eq_rows,
            RowSet::Inequalities => &part.in_rows,
        };
        RowRef {
            set: r.set,
            row: list.binary_search(&r.row).unwrap_or(0),
        }
    };
    let mut builder = Instant::builder(matrix_from_triplets("mass", (n, n), m)?, force)
        .equalities(a_eq, b_eq)
        .inequalities(a_in, b_in);
    let local_sliding = |c: &SlidingContact| SlidingContact {
        normal: local_row(c.normal),
        tangent: part.coords.iter().map(|&j| c.tangent[j]).collect(),
        mu: c.mu,
        slip: c.slip,
    };
    // The whole instant's supports, so that the cut takes new tangent
    // values in place (`Cutter::refresh`) wherever the whole one may.
    for &i in &part.sliding {
        let support = instant.tangent_support(i).iter().map(|&j| local[j]);
        builder = builder.sliding_on(local_sliding(&instant.sliding()[i]), support.collect());
    }
    for c in extra {
        builder = builder.sliding(local_sliding(c));
    }
    for &i in &part.sticking {
        let c = &instant.sticking()[i];
        builder = builder.sticking(StickingContact {
            normal: local_row(c.normal),
            tangent_row: part.eq_rows.binary_search(&c.tangent_row).unwrap_or(0),
            mu: c.mu,
        });
    }
    builder.build()
}
