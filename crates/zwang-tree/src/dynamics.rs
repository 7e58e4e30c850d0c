//! The mass matrix by the composite-rigid-body algorithm, the bias forces
//! by recursive Newton-Euler, and the factor `M = L^T D L` in the tree's
//! order (Featherstone 2008, chs. 5-6; MuJoCo's `mj_crb`, `mj_rne`,
//! `mj_factorM` and `mj_solveM`).

use crate::kinematics::{check_length, check_stage, spatial_dot, Stage, Workspace};
use crate::spatial::cross_force;
use crate::{Tree, TreeError};

impl Tree {
    /// `M(q)` at the last [`Tree::positions`], with the armatures on its
    /// diagonal, into [`Workspace::mass`] in [`Tree::mass_layout`].
    ///
    /// Each body's composite inertia (it and everything below it) is moved
    /// by each of its dofs; the force that takes, paired with the motion of
    /// each dof above, is that entry of `M`: work `sum` of the dofs' depths.
    pub fn mass_matrix(&self, ws: &mut Workspace) -> Result<(), TreeError> {
        check_stage(ws, Stage::Positions, "mass_matrix", "positions")?;
        ws.crb.copy_from_slice(&ws.inertia);
        for b in (0..self.nbody()).rev() {
            if let Some(p) = self.bodies[b].parent {
                let child = ws.crb[b];
                ws.crb[p].add(&child);
            }
        }
        for i in 0..self.nv() {
            let body = self.joints[self.dof_joint[i]].body;
            let force = ws.crb[body].apply(&ws.cdof[i]);
            let start = self.madr[i];
            for (k, j) in self.ancestors(i).enumerate() {
                ws.mass[start + k] = spatial_dot(&ws.cdof[j], &force);
            }
            ws.mass[start] += self.dof_armature[i];
        }
        ws.mass_ready = true;
        ws.factor_ready = false;
        Ok(())
    }

    /// The bias forces `c(q, v)` at the last [`Tree::velocities`]: the
    /// joint forces that hold `qdd = 0` against gravity and the
    /// velocity-product (Coriolis, centrifugal, gyroscopic) forces, so that
    /// `M qdd + c = tau`. Into `c` (length nv).
    pub fn bias(&self, ws: &mut Workspace, c: &mut [f64]) -> Result<(), TreeError> {
        check_stage(ws, Stage::Velocities, "bias", "velocities")?;
        check_length("c", self.nv(), c.len())?;
        for b in 0..self.nbody() {
            let inertia = &ws.inertia[b];
            let vel = &ws.cvel[b];
            let mut f = inertia.apply(&ws.cacc[b]);
            let gyro = cross_force(vel, &inertia.apply(vel));
            for k in 0..6 {
                f[k] += gyro[k];
            }
            ws.cfrc[b] = f;
        }
        for b in (0..self.nbody()).rev() {
            for i in self.body_dofs[b].clone() {
                c[i] = spatial_dot(&ws.cdof[i], &ws.cfrc[b]);
            }
            if let Some(p) = self.bodies[b].parent {
                let f = ws.cfrc[b];
                for k in 0..6 {
                    ws.cfrc[p][k] += f[k];
                }
            }
        }
        Ok(())
    }

    /// `out = M x` with the last [`Tree::mass_matrix`], from the lower
    /// triangle kept in the tree's sparsity.
    pub fn mul_mass(&self, ws: &Workspace, x: &[f64], out: &mut [f64]) -> Result<(), TreeError> {
        if !ws.mass_ready {
            return Err(TreeError::Stage {
                call: "mul_mass",
                needs: "mass_matrix",
            });
        }
        check_length("x", self.nv(), x.len())?;
        check_length("out", self.nv(), out.len())?;
        for i in 0..self.nv() {
            out[i] = ws.mass[self.madr[i]] * x[i];
        }
        for i in 0..self.nv() {
            let start = self.madr[i];
            for (k, j) in self.ancestors(i).enumerate().skip(1) {
                let m = ws.mass[start + k];
                out[i] += m * x[j];
                out[j] += m * x[i];
            }
        }
        Ok(())
    }

    /// Factor the last [`Tree::mass_matrix`] as `M = L^T D L` in place in
    /// its own sparsity (Featherstone's LTDL, 2008, sec. 6.5): the dofs
    /// are eliminated leaves first, and eliminating a dof only touches its
    /// ancestors, which are already in the pattern, so nothing fills in.
    /// [`Tree::factor_work`] counts its multiply-adds.
    pub fn factor(&self, ws: &mut Workspace) -> Result<(), TreeError> {
        if !ws.mass_ready {
            return Err(TreeError::Stage {
                call: "factor",
                needs: "mass_matrix",
            });
        }
        ws.factor.copy_from_slice(&ws.mass);
        ws.factor_ready = false;
        let ld = &mut ws.factor;
        for k in (0..self.nv()).rev() {
            let start = self.madr[k];
            let len = self.row_len(k);
            let pivot = ld[start];
            if !(pivot > 0.0 && pivot.is_finite()) {
                return Err(TreeError::NotPositive {
                    dof: k,
                    joint: self.joint_names[self.dof_joint[k]].clone(),
                    pivot,
                });
            }
            // Row k's entries after ancestor i are i's own ancestors, in
            // the order of row i after its diagonal: one contiguous update.
            for (offset, i) in (1..len).zip(self.ancestors(k).skip(1)) {
                let a = ld[start + offset] / pivot;
                let row_i = self.madr[i];
                let (head, tail) = ld.split_at_mut(start);
                let source = &tail[offset..len];
                for (target, s) in head[row_i..row_i + source.len()].iter_mut().zip(source) {
                    *target -= s * a;
                }
                tail[offset] = a;
            }
        }
        ws.factor_ready = true;
        Ok(())
    }

    /// Solve `M x = b` in place (`x` holds `b` on entry) with the last
    /// [`Tree::factor`]: `L^T`, then `D`, then `L`, each a walk over the
    /// pattern.
    pub fn solve(&self, ws: &Workspace, x: &mut [f64]) -> Result<(), TreeError> {
        if !ws.factor_ready {
            return Err(TreeError::Stage {
                call: "solve",
                needs: "factor",
            });
        }
        check_length("x", self.nv(), x.len())?;
        let ld = &ws.factor;
        for i in (0..self.nv()).rev() {
            let start = self.madr[i];
            let xi = x[i];
            for (k, j) in self.ancestors(i).enumerate().skip(1) {
                x[j] -= ld[start + k] * xi;
            }
        }
        for i in 0..self.nv() {
            x[i] /= ld[self.madr[i]];
        }
        for i in 0..self.nv() {
            let start = self.madr[i];
            let mut xi = x[i];
            for (k, j) in self.ancestors(i).enumerate().skip(1) {
                xi -= ld[start + k] * x[j];
            }
            x[i] = xi;
        }
        Ok(())
    }

    /// Solve `(M + diag(extra)) x = f` at the last [`Tree::positions`]
    /// without `M`: the articulated-body recursion (Featherstone 2008,
    /// sec. 7.3, one dof at a time in world axes, the armature and `extra`
    /// added to each dof's `D`). Its work is linear in the dofs whatever
    /// the tree's depth, where [`Tree::factor`]'s is cubic along one long
    /// chain. `extra` (length nv, `>= 0`) is, for example, a time step's
    /// implicit damping `h d`.
    pub fn solve_articulated(
        &self,
        ws: &mut Workspace,
        extra: &[f64],
        f: &[f64],
        x: &mut [f64],
    ) -> Result<(), TreeError> {
        check_stage(ws, Stage::Positions, "solve_articulated", "positions")?;
        check_length("extra", self.nv(), extra.len())?;
        check_length("f", self.nv(), f.len())?;
        check_length("x", self.nv(), x.len())?;
        ws.art_inertia.fill([[0.0; 6]; 6]);
        ws.art_p.fill([0.0; 6]);
        // Each body's inertia on its last dof (a body without dofs of its
        // own moves with its parent's; one welded to the world, not at all).
        for (b, &last) in self.body_last_dof.iter().enumerate() {
            if let Some(d) = last {
                let target = &mut ws.art_inertia[d];
                for k in 0..6 {
                    let mut e = [0.0; 6];
                    e[k] = 1.0;
                    let column = ws.inertia[b].apply(&e);
                    for (row, c) in target.iter_mut().zip(column) {
                        row[k] += c;
                    }
                }
            }
        }
        // Leaves to root: each dof's articulated inertia and bias, seen
        // through it, move to its parent.
        for i in (0..self.nv()).rev() {
            let s = &ws.cdof[i];
            let ia = ws.art_inertia[i];
            let u: [f64; 6] = std::array::from_fn(|r| spatial_dot(&ia[r], s));
            let d = spatial_dot(s, &u) + self.dof_armature[i] + extra[i];
            if !(d > 0.0 && d.is_finite()) {
                return Err(TreeError::NotPositive {
                    dof: i,
                    joint: self.joint_names[self.dof_joint[i]].clone(),
                    pivot: d,
                });
            }
            let r = f[i] - spatial_dot(s, &ws.art_p[i]);
            ws.art_u[i] = u;
            ws.art_d[i] = d;
            ws.art_r[i] = r;
            if let Some(parent) = self.dof_parent[i] {
                let p = ws.art_p[i];
                let target = &mut ws.art_inertia[parent];
                for (a, row) in target.iter_mut().enumerate() {
                    for (b, x) in row.iter_mut().enumerate() {
                        *x += ia[a][b] - u[a] * u[b] / d;
                    }
                }
                let bias = &mut ws.art_p[parent];
                for k in 0..6 {
                    bias[k] += p[k] + u[k] * r / d;
                }
            }
        }
        // Root to leaves: each dof's acceleration from its parent's (the
        // bias slots now hold the accelerations).
        for i in 0..self.nv() {
            let a_parent = self.dof_parent[i].map_or([0.0; 6], |p| ws.art_p[p]);
            let xi = (ws.art_r[i] - spatial_dot(&ws.art_u[i], &a_parent)) / ws.art_d[i];
            x[i] = xi;
            let s = &ws.cdof[i];
            ws.art_p[i] = std::array::from_fn(|k| a_parent[k] + s[k] * xi);
        }
        Ok(())
    }
}
