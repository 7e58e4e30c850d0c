//! Joints in space, held at velocity level as in the plane
//! ([`crate::stepping::plane`]'s `joints.rs`): Gauss's principle with the joints,
//! `min 1/2 |v - v*|_M` with `J_E v = 0`, and contact impulses moving the
//! bodies through what the joints leave free.
//!
//! In space the contact problem has three rows per contact, which the
//! primal solver takes ([`zwang_contact::PrimalSolver`], in velocities);
//! so the joints are held by writing the velocities in a basis of the
//! joints' null space, `v = N z` (`J_E N = 0`): the problem in `z` has the
//! mass `N^T M N`, the momentum `N^T M v*` and the rows `J N`, and its
//! answer satisfies the joints exactly, whatever the contacts do. `N` is
//! block diagonal: the identity on the bodies no joint touches (their
//! coordinates pass through unchanged), and, per group of bodies the
//! joints link, a basis from a Householder QR of `J_E^T` with column
//! pivoting (redundant rows, as a closed loop's, drop out), made
//! `M`-orthonormal (`N L^-T`, `L L^T` the Cholesky factor of `N^T M N`):
//! the mass in `z` is then diagonal, as without joints, and the primal
//! solver takes its diagonal path. Without contacts `z = N^T M v*`.
//!
//! What the linear rows leave of the joints' positions is projected away
//! at the end of the step in Gauss's metric: Newton steps
//! `dq = -M^-1 J_E^T (J_E M^-1 J_E^T)^-1 e` on the errors `e`.
//!
//! Buffers grow in the first steps and are reused: steady steps allocate
//! nothing.

use sprs::CsMat;
use zwang_contact::{
    BoundedRows, ContactRows, PrimalSolver, Report, SolverSettings, UnionFind, VelocityProblem,
};
use zwang_instant::dense;
use zwang_model::spatial::{JointRows, SpatialModel};

use crate::stepping::StepError;

/// Pivots of the QR below this fraction of the largest count as zero (a
/// redundant row).
const RANK_TOLERANCE: f64 = 1e-9;

/// A contact row whose motion the joints leave below this fraction of
/// what it has without them is held by the joints (left out).
const BLOCKED: f64 = 1e-9;

/// Newton steps the drift projection may take.
const DRIFT_ITERATIONS: usize = 8;

/// A group of moving bodies the joints link, and its part of `N`.
struct Block {
    /// Its velocity coordinates and joint rows.
    coords: Vec<usize>,
    rows: Vec<usize>,
    /// `J_E^T` of the block (coords x rows, by column), overwritten by the
    /// QR's reflectors; each reflector's factor; the pivots' order.
    house: Vec<f64>,
    betas: Vec<f64>,
    order: Vec<usize>,
    /// `N`'s block (coords x null, by column) and its width.
    basis: Vec<f64>,
    null: usize,
    /// Where its `z` start.
    z0: usize,
    /// The Cholesky factor of `N^T M N` (null x null); the drift's
    /// `J M^-1 J^T` (rows x rows).
    factor: Vec<f64>,
    schur: Vec<f64>,
}

/// The joints of a spatial model as the stepper holds them.
pub(super) struct SpaceJoints {
    rows: JointRows,
    blocks: Vec<Block>,
    /// Per velocity coordinate: `(block, index in it)`, or `(usize::MAX,
    /// z index)` for a coordinate no joint touches.
    place: Vec<(usize, usize)>,
    /// The size of `z` and the free coordinates' `z` (in order).
    nz: usize,
    free: Vec<usize>,
    /// The problem in `z` and its solver, answer and scratch.
    problem: VelocityProblem,
    primal: PrimalSolver,
    z: Vec<f64>,
    spread: Vec<[f64; 3]>,
    touched: Vec<usize>,
    work: Vec<f64>,
}

/// No block: the coordinate maps to `z` one to one.
const FREE: usize = usize::MAX;

impl SpaceJoints {
    /// The joints of `model` (`None` without joints: the stepper's path
    /// without them stays as it is).
    pub fn new(model: &SpatialModel) -> Option<SpaceJoints> {
        if model.joints() == 0 {
            return None;
        }
        let movers = model.movers();
        // The moving bodies the joints link, as sets.
        let mut linked = UnionFind::new(movers);
        let mut jointed = vec![false; movers];
        for j in 0..model.joints() {
            let ends = model.joint_movers(j);
            for m in ends.iter().flatten() {
                jointed[*m] = true;
            }
            if let [Some(a), Some(b)] = ends {
                linked.union(a, b);
            }
        }
        let mut block_of_root = vec![FREE; movers];
        let mut blocks: Vec<Block> = Vec::new();
        let mut place = vec![(FREE, 0); 6 * movers];
        for m in 0..movers {
            if !jointed[m] {
                continue;
            }
            let r = linked.find(m);
            if block_of_root[r] == FREE {
                block_of_root[r] = blocks.len();
                blocks.push(Block {
                    coords: Vec::new(),
                    rows: Vec::new(),
                    house: Vec::new(),
                    betas: Vec::new(),
                    order: Vec::new(),
                    basis: Vec::new(),
                    null: 0,
                    z0: 0,
                    factor: Vec::new(),
                    schur: Vec::new(),
                });
            }
            let b = block_of_root[r];
            for c in 6 * m..6 * m + 6 {
                place[c] = (b, blocks[b].coords.len());
                blocks[b].coords.push(c);
            }
        }
        let mut row = 0;
        for j in 0..model.joints() {
            let ends = model.joint_movers(j);
            let m = ends[0].or(ends[1]).expect("a joint has a moving end");
            let b = block_of_root[linked.find(m)];
            let count = joint_rows_of(model, j);
            blocks[b].rows.extend(row..row + count);
            row += count;
        }
        let mut free = Vec::new();
        for (c, p) in place.iter_mut().enumerate() {
            if p.0 == FREE {
                p.1 = free.len();
                free.push(c);
            }
        }
        Some(SpaceJoints {
            rows: JointRows::default(),
            blocks,
            place,
            nz: 0,
            free,
            problem: VelocityProblem {
                mass: CsMat::zero((0, 0)).into_csc(),
                force: Vec::new(),
                rows: ContactRows::new(3),
                b: Vec::new(),
                mu: Vec::new(),
                bounded: BoundedRows::default(),
            },
            primal: PrimalSolver::new(),
            z: Vec::new(),
            spread: Vec::new(),
            touched: Vec::new(),
            work: Vec::new(),
        })
    }

    /// The rows and `N` at `q`, and the mass `N^T M N` (`mass` the
    /// diagonal of `M`).
    pub fn refresh(
        &mut self,
        model: &SpatialModel,
        q: &[f64],
        mass: &[f64],
    ) -> Result<(), StepError> {
        model.joint_rows(q, &mut self.rows)?;
        let mut z0 = self.free.len();
        for block in &mut self.blocks {
            block.null_space(&self.rows, &self.place);
            block.z0 = z0;
            z0 += block.null;
            block.orthonormalize(mass);
        }
        self.nz = z0;
        self.write_mass(mass);
        Ok(())
    }

    /// The problem's mass in `z`: the free coordinates' `M`, and 1 on
    /// each group's (its basis is `M`-orthonormal): diagonal, as without
    /// joints (the pattern made again only when the size changes).
    fn write_mass(&mut self, mass: &[f64]) {
        if self.problem.mass.rows() != self.nz {
            let n = self.nz;
            self.problem.mass =
                CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), vec![1.0; n]);
        }
        let data = self.problem.mass.data_mut();
        data.fill(1.0);
        for (x, &c) in data.iter_mut().zip(&self.free) {
            *x = mass[c];
        }
    }

    /// The step's velocities under the contacts of `p` (a problem in `v`:
    /// its momentum `M v*`, rows, free terms and friction; `mass` the
    /// diagonal of `M`) with the joints
    /// held, into `v`; `r` and `u` as the primal solver leaves them
    /// (`None`: no contacts, the joints alone).
    pub fn solve(
        &mut self,
        p: &VelocityProblem,
        mass: &[f64],
        settings: &SolverSettings,
        r: &mut [f64],
        v: &mut [f64],
        u: &mut [f64],
    ) -> Result<Option<Report>, StepError> {
        // The momentum in z: N^T f.
        let z = &mut self.z;
        z.clear();
        z.resize(self.nz, 0.0);
        for (zi, &c) in z.iter_mut().zip(&self.free) {
            *zi = p.force[c];
        }
        for b in &self.blocks {
            let n = b.coords.len();
            for j in 0..b.null {
                let col = &b.basis[j * n..(j + 1) * n];
                z[b.z0 + j] = col
                    .iter()
                    .zip(&b.coords)
                    .map(|(x, &c)| x * p.force[c])
                    .sum();
            }
        }
        let report = if p.mu.is_empty() {
            for (zi, &c) in z.iter_mut().zip(&self.free) {
                *zi /= mass[c];
            }
            // A group's basis is M-orthonormal: z is its momentum.
            None
        } else {
            self.problem.force.clear();
            self.problem.force.extend_from_slice(&self.z);
            self.rows_in_z(p, mass);
            let report = self
                .primal
                .solve_in_place(&self.problem, settings, r, &mut self.z, u)
                .map_err(|e| match e {
                    zwang_contact::GlobalError::Problem(p) => StepError::Contact(p),
                    other => StepError::Unsupported(other.to_string()),
                })?;
            Some(report)
        };
        self.velocities_of_z(v);
        Ok(report)
    }

    /// `v = N z`.
    fn velocities_of_z(&self, v: &mut [f64]) {
        for (zi, &c) in self.z.iter().zip(&self.free) {
            v[c] = *zi;
        }
        for b in &self.blocks {
            let n = b.coords.len();
            for (i, &c) in b.coords.iter().enumerate() {
                v[c] = (0..b.null)
                    .map(|j| b.basis[j * n + i] * self.z[b.z0 + j])
                    .sum();
            }
        }
    }

    /// The rows of `p` in `z` (`J N`), its free terms and friction, into
    /// the problem in `z`.
    fn rows_in_z(&mut self, p: &VelocityProblem, mass: &[f64]) {
        let q = &mut self.problem;
        q.rows.clear();
        q.b.clear();
        q.b.extend_from_slice(&p.b);
        q.mu.clear();
        q.mu.extend_from_slice(&p.mu);
        self.spread.clear();
        self.spread.resize(self.nz, [0.0; 3]);
        let rows = &p.rows;
        for i in 0..rows.contacts() {
            self.touched.clear();
            // |J_i|^2 in M^-1 per row: against it, a row the joints leave
            // no motion along (|J_i N|, N M-orthonormal, at round-off).
            let mut free = [0.0; 3];
            for a in rows.start[i]..rows.start[i + 1] {
                let e = rows.entry(a);
                for (f, x) in free.iter_mut().zip(e) {
                    *f += x * x / mass[rows.cols[a]];
                }
                let (block, at) = self.place[rows.cols[a]];
                if block == FREE {
                    add(&mut self.spread, &mut self.touched, at, e, 1.0);
                } else {
                    let b = &self.blocks[block];
                    let n = b.coords.len();
                    for j in 0..b.null {
                        let s = b.basis[j * n + at];
                        add(&mut self.spread, &mut self.touched, b.z0 + j, e, s);
                    }
                }
            }
            let mut held = [0.0; 3];
            for &k in &self.touched {
                let m = q.mass.data()[k];
                for (h, x) in held.iter_mut().zip(self.spread[k]) {
                    *h += x * x / m;
                }
            }
            // Such a row is left out (zero): the joints hold the contact
            // along it, and its impulse can move nothing.
            let keep = [0, 1, 2].map(|c| held[c] > BLOCKED * BLOCKED * free[c]);
            let spread = &mut self.spread;
            q.rows.push(self.touched.iter().map(|&k| {
                let x = spread[k];
                spread[k] = [0.0; 3];
                (k, [0, 1, 2].map(|c| if keep[c] { x[c] } else { 0.0 }))
            }));
        }
    }

    /// A start `(q, v)` moved onto the joints: the drift projected away,
    /// then the velocities (Gauss's metric, `mass` the diagonal of `M`);
    /// the largest error of a joint before.
    pub fn start(
        &mut self,
        model: &SpatialModel,
        q: &mut [f64],
        v: &mut [f64],
        mass: &[f64],
        tolerance: f64,
    ) -> Result<f64, StepError> {
        let violation = self.correct(model, q, mass, tolerance)?;
        self.refresh(model, q, mass)?;
        let n = mass.len();
        let p = VelocityProblem {
            mass: CsMat::new_csc((n, n), (0..=n).collect(), (0..n).collect(), mass.to_vec()),
            force: v.iter().zip(mass).map(|(x, m)| x * m).collect(),
            rows: ContactRows::new(3),
            b: Vec::new(),
            mu: Vec::new(),
            bounded: BoundedRows::default(),
        };
        self.solve(&p, mass, &SolverSettings::default(), &mut [], v, &mut [])?;
        Ok(violation)
    }

    /// The joints' drift at `q` projected away (Gauss's metric, `mass` the
    /// diagonal of `M`), in place; the largest error before it.
    pub fn correct(
        &mut self,
        model: &SpatialModel,
        q: &mut [f64],
        mass: &[f64],
        tolerance: f64,
    ) -> Result<f64, StepError> {
        let mut first = None;
        for _ in 0..DRIFT_ITERATIONS {
            model.joint_rows(q, &mut self.rows)?;
            let worst = self.rows.errors.iter().fold(0.0f64, |m, e| m.max(e.abs()));
            first.get_or_insert(worst);
            if worst <= tolerance {
                break;
            }
            self.work.clear();
            self.work.resize(mass.len(), 0.0);
            for b in &mut self.blocks {
                b.drift_step(&self.rows, mass, &mut self.work);
            }
            model.integrate(q, &self.work, 1.0);
        }
        Ok(first.unwrap_or(0.0))
    }
}

/// `spread[k] += s e`, `k` noted once.
fn add(spread: &mut [[f64; 3]], touched: &mut Vec<usize>, k: usize, e: [f64; 3], s: f64) {
    if !touched.contains(&k) {
        touched.push(k);
    }
    for (x, y) in spread[k].iter_mut().zip(e) {
        *x += s * y;
    }
}

/// The rows joint `j` has.
fn joint_rows_of(model: &SpatialModel, j: usize) -> usize {
    model.joint_row_count(j)
}

impl Block {
    /// `N`: the null space of the block's rows, by a Householder QR of
    /// `J^T` with column pivoting.
    fn null_space(&mut self, rows: &JointRows, place: &[(usize, usize)]) {
        let (n, k) = (self.coords.len(), self.rows.len());
        self.house.clear();
        self.house.resize(n * k, 0.0);
        for (j, &row) in self.rows.iter().enumerate() {
            for &(c, x) in rows.row(row) {
                self.house[j * n + place[c].1] += x;
            }
        }
        self.order.clear();
        self.order.extend(0..k);
        self.betas.clear();
        let norm = |h: &[f64], j: usize, from: usize| -> f64 {
            h[j * n + from..(j + 1) * n].iter().map(|x| x * x).sum()
        };
        let largest = (0..k).map(|j| norm(&self.house, j, 0)).fold(0.0, f64::max);
        let mut rank = 0;
        while rank < k.min(n) {
            // The pivot: the column with the most left below `rank`.
            let (best, size) = (rank..k)
                .map(|j| (j, norm(&self.house, j, rank)))
                .fold((rank, -1.0), |m, x| if x.1 > m.1 { x } else { m });
            if size.is_nan() || size <= RANK_TOLERANCE * RANK_TOLERANCE * largest {
                break;
            }
            if best != rank {
                for i in 0..n {
                    self.house.swap(best * n + i, rank * n + i);
                }
                self.order.swap(best, rank);
            }
            // The reflector taking the column below `rank` onto e_rank.
            let col = rank * n;
            let x0 = self.house[col + rank];
            let alpha = if x0 >= 0.0 { -size.sqrt() } else { size.sqrt() };
            self.house[col + rank] = x0 - alpha;
            let vv: f64 = self.house[col + rank..col + n].iter().map(|x| x * x).sum();
            let beta = 2.0 / vv;
            for j in rank + 1..k {
                let s: f64 = (rank..n)
                    .map(|i| self.house[col + i] * self.house[j * n + i])
                    .sum();
                for i in rank..n {
                    self.house[j * n + i] -= beta * s * self.house[col + i];
                }
            }
            self.betas.push(beta);
            rank += 1;
        }
        // N = H_0 ... H_{rank-1} [e_rank .. e_n].
        self.null = n - rank;
        self.basis.clear();
        self.basis.resize(n * self.null, 0.0);
        for j in 0..self.null {
            let out = &mut self.basis[j * n..(j + 1) * n];
            out[rank + j] = 1.0;
            for s in (0..rank).rev() {
                let h = &self.house[s * n..(s + 1) * n];
                let d: f64 = (s..n).map(|i| h[i] * out[i]).sum();
                for i in s..n {
                    out[i] -= self.betas[s] * d * h[i];
                }
            }
        }
    }

    /// `N` made `M`-orthonormal: `N L^-T`, `L L^T = N^T M N`, so that
    /// the problem in `z` has the identity for the group's mass (the
    /// primal solver's diagonal path, as without joints).
    fn orthonormalize(&mut self, mass: &[f64]) {
        let (n, r) = (self.coords.len(), self.null);
        self.factor.clear();
        self.factor.resize(r * r, 0.0);
        for a in 0..r {
            for b in 0..=a {
                let x: f64 = (0..n)
                    .map(|i| self.basis[a * n + i] * mass[self.coords[i]] * self.basis[b * n + i])
                    .sum();
                self.factor[a * r + b] = x;
                self.factor[b * r + a] = x;
            }
        }
        cholesky(&mut self.factor, r);
        // Each row of N: y = L^-1 x (a zero pivot leaves its column out).
        for i in 0..n {
            for a in 0..r {
                let d = self.factor[a * r + a];
                let s: f64 = (0..a)
                    .map(|p| self.factor[a * r + p] * self.basis[p * n + i])
                    .sum();
                let x = self.basis[a * n + i];
                self.basis[a * n + i] = if d == 0.0 { 0.0 } else { (x - s) / d };
            }
        }
    }

    /// One Newton step of the block's drift into `dq`: `-M^-1 J^T S^-1 e`.
    fn drift_step(&mut self, rows: &JointRows, mass: &[f64], dq: &mut [f64]) {
        let k = self.rows.len();
        self.schur.clear();
        self.schur.resize(k * k, 0.0);
        for (a, &ra) in self.rows.iter().enumerate() {
            for (b, &rb) in self.rows.iter().enumerate().take(a + 1) {
                let mut s = 0.0;
                for &(ca, xa) in rows.row(ra) {
                    for &(cb, xb) in rows.row(rb) {
                        if ca == cb {
                            s += xa * xb / mass[ca];
                        }
                    }
                }
                self.schur[a * k + b] = s;
                self.schur[b * k + a] = s;
            }
        }
        cholesky(&mut self.schur, k);
        self.betas.clear();
        self.betas.extend(self.rows.iter().map(|&r| rows.errors[r]));
        dense::semidefinite_cholesky_solve_in_place(&self.schur, k, &mut self.betas);
        for (&row, &lambda) in self.rows.iter().zip(&self.betas) {
            for &(c, x) in rows.row(row) {
                dq[c] -= x * lambda / mass[c];
            }
        }
    }
}

/// The Cholesky factor of the symmetric `a` (`n x n`) in its lower
/// triangle, in place; a pivot that is not clearly positive (a redundant
/// row) is dropped, its unknown then left at zero by
/// [`dense::semidefinite_cholesky_solve_in_place`].
fn cholesky(a: &mut [f64], n: usize) {
    let scale = (0..n).map(|i| a[i * n + i].abs()).fold(0.0, f64::max);
    dense::semidefinite_cholesky_in_place(a, n, 1e-13 * scale);
}
