//! What an articulated model measures on its tree, for both methods:
//! sites in the world, tendon lengths and their Jacobians (the rows
//! `dL/dq` over the dofs, sparse), and the points and frames equality
//! constraints hold together.

use zwang_core::rotation::{apply, dot, matrix};
use zwang_tree::{TreeError, Workspace};

use super::{Articulated, TendonPath};

impl Articulated {
    /// The world position of the point `local` of body `body` (`None`:
    /// the world, `local` is already a world point), at the positions in
    /// `ws` ([`zwang_tree::Tree::positions`]).
    pub fn world_point(
        &self,
        ws: &Workspace,
        body: Option<usize>,
        local: [f64; 3],
    ) -> Result<[f64; 3], TreeError> {
        match body {
            None => Ok(local),
            Some(b) => {
                let (x, q) = self.tree.pose(ws, b)?;
                let r = apply(&matrix(q), local);
                Ok([x[0] + r[0], x[1] + r[1], x[2] + r[2]])
            }
        }
    }

    /// Site `site`'s world position at the positions in `ws`.
    pub fn site_position(&self, ws: &Workspace, site: usize) -> Result<[f64; 3], TreeError> {
        let s = self.sites.get(site).ok_or(TreeError::Length {
            what: "site index",
            expected: self.sites.len(),
            got: site,
        })?;
        self.world_point(ws, s.body, s.position)
    }

    /// Tendon `tendon`'s length at `qpos`, whose positions are in `ws`
    /// (a spatial tendon's sites are read there, a fixed tendon's joints
    /// in `qpos`).
    pub fn tendon_length(
        &self,
        ws: &Workspace,
        qpos: &[f64],
        tendon: usize,
    ) -> Result<f64, TreeError> {
        self.visit_tendon(ws, qpos, tendon, |_, _| {})
    }

    /// Tendon `tendon`'s length at `qpos` (positions in `ws`), and its
    /// Jacobian `dL/dq` into `row` (cleared first) as `(dof, coefficient)`,
    /// each dof once: a fixed tendon's coefficients; a spatial tendon's
    /// `sum u_i^T (J(s_{i+1}) - J(s_i))` over its segments, `u_i` the unit
    /// vector from site `s_i` to `s_{i+1}` (a segment of zero length adds
    /// nothing), only the dofs that move its sites.
    pub fn tendon_jacobian(
        &self,
        ws: &Workspace,
        qpos: &[f64],
        tendon: usize,
        row: &mut Vec<(usize, f64)>,
    ) -> Result<f64, TreeError> {
        row.clear();
        self.visit_tendon(ws, qpos, tendon, |dof, c| add_entry(row, dof, c))
    }

    /// Tendon `tendon`'s length, visiting each entry of its Jacobian
    /// (`visit(dof, coefficient)`, a dof possibly more than once: the
    /// entries add).
    pub(crate) fn visit_tendon(
        &self,
        ws: &Workspace,
        qpos: &[f64],
        tendon: usize,
        mut visit: impl FnMut(usize, f64),
    ) -> Result<f64, TreeError> {
        let t = self.tendons.get(tendon).ok_or(TreeError::Length {
            what: "tendon index",
            expected: self.tendons.len(),
            got: tendon,
        })?;
        match &t.path {
            TendonPath::Fixed(terms) => {
                let mut length = 0.0;
                for &(joint, c) in terms {
                    let missing = TreeError::Length {
                        what: "joint index",
                        expected: self.tree.njoint(),
                        got: joint,
                    };
                    let (qadr, dof) = self
                        .tree
                        .joint_qpos(joint)
                        .zip(self.tree.joint_dof(joint))
                        .ok_or(missing)?;
                    let q = qpos.get(qadr).ok_or(TreeError::Length {
                        what: "qpos",
                        expected: self.tree.nq(),
                        got: qpos.len(),
                    })?;
                    length += c * q;
                    visit(dof, c);
                }
                Ok(length)
            }
            TendonPath::Spatial(sites) => {
                let mut length = 0.0;
                for pair in sites.windows(2) {
                    let a = self.site_position(ws, pair[0])?;
                    let b = self.site_position(ws, pair[1])?;
                    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                    let l = dot(d, d).sqrt();
                    length += l;
                    if l == 0.0 {
                        continue;
                    }
                    let u = d.map(|x| x / l);
                    for (site, point, sign) in [(pair[0], a, -1.0), (pair[1], b, 1.0)] {
                        if let Some(body) = self.sites[site].body {
                            self.tree
                                .visit_point_jacobian(ws, body, point, |dof, v, _| {
                                    visit(dof, sign * dot(u, v));
                                })?;
                        }
                    }
                }
                Ok(length)
            }
        }
    }

    /// The relative velocity rows of two bodies' points (`None`: the
    /// world): `visit(dof, dv, dw)`, the columns of `J(body1, point1) -
    /// J(body2, point2)` (translation at the points, rotation), a dof
    /// possibly twice (the entries add).
    pub fn visit_relative_jacobian(
        &self,
        ws: &Workspace,
        bodies: [Option<usize>; 2],
        points: [[f64; 3]; 2],
        mut visit: impl FnMut(usize, [f64; 3], [f64; 3]),
    ) -> Result<(), TreeError> {
        for (k, sign) in [(0, 1.0), (1, -1.0)] {
            if let Some(body) = bodies[k] {
                self.tree
                    .visit_point_jacobian(ws, body, points[k], |dof, v, w| {
                        visit(dof, v.map(|x| sign * x), w.map(|x| sign * x));
                    })?;
            }
        }
        Ok(())
    }
}

/// Adds `c` at `dof` to a sparse row (a linear search: tendon rows are
/// short).
fn add_entry(row: &mut Vec<(usize, f64)>, dof: usize, c: f64) {
    match row.iter_mut().find(|e| e.0 == dof) {
        Some(e) => e.1 += c,
        None => row.push((dof, c)),
    }
}
