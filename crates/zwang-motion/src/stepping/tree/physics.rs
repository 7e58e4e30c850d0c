//! What the time stepper adds to an articulated model's forces (which
//! are the model's, [`Articulated::add_forces`]): the joints' and fixed
//! tendons' damping as entries of the tree's mass layout (taken
//! implicitly; a spatial tendon's explicitly, its Jacobian changing with
//! the positions and crossing branches), joint and tendon limits as
//! one-sided rows, and equality constraints as rows of free impulse.

use zwang_core::rotation::{conjugate, dot, mul};
use zwang_model::articulated::{Articulated, Equality, JointAddress, TendonPath};
use zwang_tree::{log, JointKind, Tree, Workspace};

use crate::stepping::space::collide::SpaceContact;
use crate::stepping::StepError;
use crate::warm::Key;

/// A tendon's length and Jacobian at the current positions
/// ([`Articulated::tendon_jacobian`]), refreshed by [`Physics::refresh`].
#[derive(Debug, Clone, Default)]
struct TendonState {
    length: f64,
    row: Vec<(usize, f64)>,
}

impl TendonState {
    fn rate(&self, v: &[f64]) -> f64 {
        self.row.iter().map(|&(d, c)| c * v[d]).sum()
    }
}

/// One side of a joint or tendon equality.
#[derive(Debug, Clone, Copy)]
enum Side {
    /// A hinge or slide coordinate.
    Joint { qadr: usize, dadr: usize },
    /// A tendon's length.
    Tendon(usize),
}

/// An equality constraint as the stepper holds it.
#[derive(Debug, Clone)]
enum Held {
    /// `L1 = P(L2)` with `P` the polynomial (`L1 = a0` without a second
    /// side).
    Polynomial(Side, Option<Side>, [f64; 5]),
    /// Two bodies' points coincide: 3 rows.
    Connect {
        bodies: [Option<usize>; 2],
        points: [[f64; 3]; 2],
    },
    /// The second body's origin at `position` in the first's frame and
    /// its orientation `orientation` there: 3 + 3 rows.
    Weld {
        bodies: [Option<usize>; 2],
        position: [f64; 3],
        orientation: [f64; 4],
    },
}

/// What a limit bounds.
#[derive(Debug, Clone, Copy)]
enum Bounded {
    /// A hinge or slide coordinate.
    Coordinate { qadr: usize, dadr: usize },
    /// A ball joint's angle of rotation (its upper end only).
    Ball { qadr: usize, dadr: usize },
    /// A tendon's length.
    Tendon(usize),
}

#[derive(Debug, Clone, Copy)]
struct Limit {
    what: Bounded,
    range: [f64; 2],
}

/// The stepper's view of a model's joint physics.
#[derive(Debug, Clone)]
pub(super) struct Physics {
    /// Each joint's kind and addresses ([`Articulated::joint_addresses`]).
    pub addresses: Vec<JointAddress>,
    tendons: Vec<TendonState>,
    limits: Vec<Limit>,
    /// Dry friction at joints (MuJoCo's `frictionloss`): `(dof, f)`, a
    /// force in `[-f, f]` at each dof, a bounded row of the contact
    /// problem with its impulse in `[-f h, f h]`.
    pub friction: Vec<(usize, f64)>,
    /// The equality constraints.
    equalities: Vec<Held>,
    /// The relative Jacobian of a connect or weld, `(dof, dv, dw)`.
    scratch: Vec<(usize, [f64; 3], [f64; 3])>,
    /// The damping matrix `D` (joints' and fixed tendons') as entries of
    /// [`Tree::mass_layout`]: `(index, value)`.
    pub damping: Vec<(usize, f64)>,
    /// Spatial tendons' damping, explicit: `(tendon, d)`.
    spatial_damping: Vec<(usize, f64)>,
    /// `(d, 1)` for each dof `d`: a joint's row.
    units: Vec<(usize, f64)>,
}

impl Physics {
    /// The tendons' lengths and Jacobians at `q`, whose positions are in
    /// `ws`.
    pub fn refresh(
        &mut self,
        model: &Articulated,
        ws: &Workspace,
        q: &[f64],
    ) -> Result<(), StepError> {
        for (k, t) in self.tendons.iter_mut().enumerate() {
            t.length = model.tendon_jacobian(ws, q, k, &mut t.row)?;
        }
        Ok(())
    }

    /// Adds the spatial tendons' damping `-d J^T (J v)` to `tau`
    /// (after [`Physics::refresh`]).
    pub fn add_explicit_damping(&self, v: &[f64], tau: &mut [f64]) {
        for &(t, d) in &self.spatial_damping {
            let tendon = &self.tendons[t];
            let force = -d * tendon.rate(v);
            for &(dof, c) in &tendon.row {
                tau[dof] += c * force;
            }
        }
    }

    /// A side's value and Jacobian entries.
    fn side(&self, side: Side, q: &[f64]) -> (f64, &[(usize, f64)]) {
        match side {
            Side::Joint { qadr, dadr } => (q[qadr], self.unit(dadr)),
            Side::Tendon(t) => (self.tendons[t].length, &self.tendons[t].row),
        }
    }

    /// The row `[(dof, 1)]`, without allocating: a slice of the dofs'
    /// unit entries.
    fn unit(&self, dof: usize) -> &[(usize, f64)] {
        std::slice::from_ref(&self.units[dof])
    }

    /// Pushes the equalities' rows at `q` (positions in `ws`, tendons
    /// refreshed): `g v+ = -err / h`, so that the step ends on each
    /// constraint to first order. Joint and tendon couplings: `L1 =
    /// P(L2)`, one row. Connect: the two points' world positions, three
    /// rows. Weld: the second body's origin against the first's point
    /// (three rows), and the rotation vector (world axes) from the second
    /// body's orientation to the one held (three rows, the relative
    /// angular velocity).
    pub fn push_equalities(
        &mut self,
        model: &Articulated,
        ws: &Workspace,
        q: &[f64],
        h: f64,
        rows: &mut zwang_contact::BoundedRows,
    ) -> Result<(), StepError> {
        let free = |rows: &mut zwang_contact::BoundedRows,
                    entries: &mut dyn Iterator<Item = (usize, f64)>,
                    err: f64| {
            rows.push(entries, err / h, f64::NEG_INFINITY, f64::INFINITY);
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        for e in &self.equalities {
            match *e {
                Held::Polynomial(first, second, p) => {
                    let (l1, row1) = self.side(first, q);
                    let (value, slope, row2) = match second {
                        Some(side) => {
                            let (x, row2) = self.side(side, q);
                            let value = p[0] + x * (p[1] + x * (p[2] + x * (p[3] + x * p[4])));
                            let slope = p[1] + x * (2.0 * p[2] + x * (3.0 * p[3] + x * 4.0 * p[4]));
                            (value, slope, row2)
                        }
                        None => (p[0], 0.0, &[][..]),
                    };
                    let mut entries = row1
                        .iter()
                        .copied()
                        .chain(row2.iter().map(|&(d, c)| (d, -slope * c)));
                    free(rows, &mut entries, l1 - value);
                }
                Held::Connect { bodies, points } => {
                    let p1 = model.world_point(ws, bodies[0], points[0])?;
                    let p2 = model.world_point(ws, bodies[1], points[1])?;
                    coincide(model, ws, bodies, [p1, p2], h, &mut scratch, rows)?;
                }
                Held::Weld {
                    bodies,
                    position,
                    orientation,
                } => {
                    let p1 = model.world_point(ws, bodies[0], position)?;
                    let p2 = model.world_point(ws, bodies[1], [0.0; 3])?;
                    let frame = |b: Option<usize>| -> Result<[f64; 4], StepError> {
                        Ok(match b {
                            Some(b) => model.tree.pose(ws, b)?.1,
                            None => [1.0, 0.0, 0.0, 0.0],
                        })
                    };
                    let held = mul(frame(bodies[0])?, orientation);
                    let turn = log(mul(held, conjugate(frame(bodies[1])?)));
                    coincide(model, ws, bodies, [p1, p2], h, &mut scratch, rows)?;
                    for k in 0..3 {
                        let mut entries = scratch.iter().map(|e| (e.0, e.2[k]));
                        free(rows, &mut entries, turn[k]);
                    }
                }
            }
        }
        self.scratch = scratch;
        Ok(())
    }
}

/// Three free rows that bring two world points, on `bodies`, together
/// within a step of `h`: the difference of their Jacobians (left in
/// `scratch`, whose angular parts a weld's rows take next) against `(p1 -
/// p2) / h`.
fn coincide(
    model: &Articulated,
    ws: &Workspace,
    bodies: [Option<usize>; 2],
    [p1, p2]: [[f64; 3]; 2],
    h: f64,
    scratch: &mut Vec<(usize, [f64; 3], [f64; 3])>,
    rows: &mut zwang_contact::BoundedRows,
) -> Result<(), StepError> {
    scratch.clear();
    model.visit_relative_jacobian(ws, bodies, [p1, p2], |d, dv, dw| scratch.push((d, dv, dw)))?;
    for k in 0..3 {
        let entries = scratch.iter().map(|e| (e.0, e.1[k]));
        rows.push(
            entries,
            (p1[k] - p2[k]) / h,
            f64::NEG_INFINITY,
            f64::INFINITY,
        );
    }
    Ok(())
}

/// A limit's key for the warm starts: its own pair, out of the range of
/// the colliders' pairs.
fn limit_key(index: usize) -> Key {
    Key {
        id: u64::MAX - index as u64,
        pair: u64::MAX - index as u64,
        point: [0.0; 3],
        reach: 0.0,
    }
}

fn unsupported(message: String) -> StepError {
    StepError::Unsupported(message)
}

fn finite_nonnegative(what: &str, x: f64) -> Result<(), StepError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(unsupported(format!(
            "{what} is {x}, not a finite number >= 0"
        )))
    }
}

fn check_range(what: &str, range: Option<[f64; 2]>) -> Result<(), StepError> {
    match range {
        Some([lo, hi]) if !(lo.is_finite() && hi.is_finite() && lo <= hi) => Err(unsupported(
            format!("{what} range [{lo}, {hi}] is not ordered and finite"),
        )),
        _ => Ok(()),
    }
}

impl Physics {
    /// Resolves the model's joint physics; refuses what does not fit
    /// (forces the model cannot compute, a range on a free joint, a fixed
    /// tendon's damping across branches, an equality naming what does
    /// not exist or not finite).
    pub fn new(model: &Articulated) -> Result<Physics, StepError> {
        let tree = &model.tree;
        model.check_forces()?;
        let addresses = model.joint_addresses();
        let mut limits = Vec::new();
        let mut damping = Vec::new();
        let mut friction = Vec::new();
        let (madr, _) = tree.mass_layout();
        for (joint, (slot, physics)) in addresses.iter().zip(&model.joints).enumerate() {
            let what = format!("joint {} (joint[{joint}])", physics.name);
            finite_nonnegative(&format!("{what}: damping"), physics.damping)?;
            finite_nonnegative(&format!("{what}: frictionloss"), physics.frictionloss)?;
            check_range(&what, physics.range)?;
            if physics.frictionloss > 0.0 {
                for d in slot.dof..slot.dof + slot.kind.nv() {
                    friction.push((d, physics.frictionloss));
                }
            }
            if physics.damping > 0.0 {
                for d in slot.dof..slot.dof + slot.kind.nv() {
                    damping.push((madr[d], physics.damping));
                }
            }
            if let Some(range) = physics.range {
                let (qadr, dadr) = (slot.qpos, slot.dof);
                let what = match slot.kind {
                    JointKind::Hinge { .. } | JointKind::Slide { .. } => {
                        Bounded::Coordinate { qadr, dadr }
                    }
                    JointKind::Ball { .. } => Bounded::Ball { qadr, dadr },
                    JointKind::Free => {
                        return Err(unsupported(format!("{what}: a free joint has no range")))
                    }
                };
                limits.push(Limit { what, range });
            }
        }
        let mut ws = tree.workspace();
        let q0 = tree.qpos0();
        tree.positions(&mut ws, q0)?;
        let mut tendons = Vec::new();
        let mut spatial_damping = Vec::new();
        for (k, tendon) in model.tendons.iter().enumerate() {
            let what = format!("tendon {} (tendon[{k}])", tendon.name);
            finite_nonnegative(&format!("{what}: damping"), tendon.damping)?;
            check_range(&what, tendon.range)?;
            let mut state = TendonState::default();
            state.length = model.tendon_jacobian(&ws, q0, k, &mut state.row)?;
            if tendon.damping > 0.0 {
                match tendon.path {
                    TendonPath::Fixed(_) => {
                        tendon_damping(tree, &state.row, tendon.damping, &what, &mut damping)?
                    }
                    TendonPath::Spatial(_) => spatial_damping.push((k, tendon.damping)),
                }
            }
            if let Some(range) = tendon.range {
                limits.push(Limit {
                    what: Bounded::Tendon(k),
                    range,
                });
            }
            tendons.push(state);
        }
        let mut equalities = Vec::new();
        for (k, e) in model.equalities.iter().enumerate() {
            let side = |what: &str, i: usize| -> Result<Side, StepError> {
                if what == "joint" {
                    match addresses.get(i) {
                        Some(a) if a.kind.nv() == 1 => Ok(Side::Joint {
                            qadr: a.qpos,
                            dadr: a.dof,
                        }),
                        _ => Err(unsupported(format!(
                            "equality[{k}]: joint {i} is not a hinge or a slide"
                        ))),
                    }
                } else if i < tendons.len() {
                    Ok(Side::Tendon(i))
                } else {
                    Err(unsupported(format!("equality[{k}]: no tendon {i}")))
                }
            };
            let body = |b: Option<usize>| -> Result<(), StepError> {
                match b {
                    Some(b) if b >= tree.nbody() => {
                        Err(unsupported(format!("equality[{k}]: no body {b}")))
                    }
                    _ => Ok(()),
                }
            };
            let finite = |what: &str, x: &[f64]| -> Result<(), StepError> {
                if x.iter().all(|x| x.is_finite()) {
                    Ok(())
                } else {
                    Err(unsupported(format!("equality[{k}].{what}: not finite")))
                }
            };
            let held = match e {
                Equality::Joint { joints, polycoef } => ("joint", *joints, *polycoef),
                Equality::Tendon { tendons, polycoef } => ("tendon", *tendons, *polycoef),
                Equality::Connect {
                    bodies,
                    anchor,
                    anchor2,
                } => {
                    bodies.iter().try_for_each(|&b| body(b))?;
                    finite("anchor", anchor)?;
                    finite("anchor2", anchor2)?;
                    equalities.push(Held::Connect {
                        bodies: *bodies,
                        points: [*anchor, *anchor2],
                    });
                    continue;
                }
                Equality::Weld { bodies, relative } => {
                    bodies.iter().try_for_each(|&b| body(b))?;
                    finite("relative", &relative.position)?;
                    let orientation = zwang_core::rotation::normalized(relative.orientation)
                        .ok_or_else(|| {
                            unsupported(format!(
                                "equality[{k}].relative: the orientation is not a nonzero finite quaternion"
                            ))
                        })?;
                    equalities.push(Held::Weld {
                        bodies: *bodies,
                        position: relative.position,
                        orientation,
                    });
                    continue;
                }
            };
            let (what, [a, b], polycoef) = held;
            finite("polycoef", &polycoef)?;
            let second = (a != b).then(|| side(what, b)).transpose()?;
            equalities.push(Held::Polynomial(side(what, a)?, second, polycoef));
        }
        Ok(Physics {
            addresses,
            tendons,
            limits,
            damping,
            spatial_damping,
            friction,
            equalities,
            scratch: Vec::new(),
            units: (0..tree.nv()).map(|d| (d, 1.0)).collect(),
        })
    }

    /// The limits within reach of a step of `h` at the velocities `v`
    /// and `v_star` (twice the larger travel), as frictionless contacts:
    /// a normal row (the tangent rows zero), the gap to the bound.
    pub fn limits(
        &self,
        q: &[f64],
        speeds: [&[f64]; 2],
        h: f64,
        out: &mut Vec<SpaceContact>,
        rows: &mut Vec<(usize, [f64; 3])>,
    ) {
        for (k, limit) in self.limits.iter().enumerate() {
            let [lo, hi] = limit.range;
            match limit.what {
                Bounded::Coordinate { qadr, dadr } => {
                    let reach = reach(h, speeds.map(|v| v[dadr].abs()));
                    for (side, gap, sign) in [(0, q[qadr] - lo, 1.0), (1, hi - q[qadr], -1.0)] {
                        if gap <= reach {
                            let start = rows.len();
                            rows.push((dadr, [sign, 0.0, 0.0]));
                            out.push(limit_contact(2 * k + side, start, rows.len(), gap));
                        }
                    }
                }
                Bounded::Ball { qadr, dadr } => {
                    let rotation = log([q[qadr], q[qadr + 1], q[qadr + 2], q[qadr + 3]]);
                    let angle = dot(rotation, rotation).sqrt();
                    let norm = |v: &[f64]| {
                        dot(
                            [v[dadr], v[dadr + 1], v[dadr + 2]],
                            [v[dadr], v[dadr + 1], v[dadr + 2]],
                        )
                        .sqrt()
                    };
                    let gap = hi - angle;
                    // At the identity the angle has no direction: a
                    // limit there is far (hi > 0) or every way at once.
                    if angle > 0.0 && gap <= reach(h, speeds.map(norm)) {
                        let axis = rotation.map(|x| x / angle);
                        let start = rows.len();
                        for (i, a) in axis.iter().enumerate() {
                            rows.push((dadr + i, [-a, 0.0, 0.0]));
                        }
                        out.push(limit_contact(2 * k + 1, start, rows.len(), gap));
                    }
                }
                Bounded::Tendon(t) => {
                    let tendon = &self.tendons[t];
                    let length = tendon.length;
                    let reach = reach(h, speeds.map(|v| tendon.rate(v).abs()));
                    for (side, gap, sign) in [(0, length - lo, 1.0), (1, hi - length, -1.0)] {
                        if gap <= reach {
                            let start = rows.len();
                            rows.extend(tendon.row.iter().map(|&(d, c)| (d, [sign * c, 0.0, 0.0])));
                            out.push(limit_contact(2 * k + side, start, rows.len(), gap));
                        }
                    }
                }
            }
        }
    }
}

/// The distance a bound may be closed within a step of `h` at the larger
/// of two speeds, twice over (as the contacts' margin).
fn reach(h: f64, speeds: [f64; 2]) -> f64 {
    2.0 * h * speeds[0].max(speeds[1]) + 1e-9
}

fn limit_contact(index: usize, start: usize, end: usize, gap: f64) -> SpaceContact {
    SpaceContact {
        key: limit_key(index),
        entries: (start, end),
        gap,
        mu: 0.0,
        restitution: 0.0,
    }
}

/// A fixed tendon's damping `d a a^T` into the mass layout's entries;
/// refused when two of its dofs are on different branches (an entry
/// outside the tree's pattern).
fn tendon_damping(
    tree: &Tree,
    row: &[(usize, f64)],
    d: f64,
    what: &str,
    out: &mut Vec<(usize, f64)>,
) -> Result<(), StepError> {
    let (madr, _) = tree.mass_layout();
    for &(i, ci) in row {
        for &(j, cj) in row {
            if j > i {
                continue;
            }
            let offset = tree.ancestors(i).position(|a| a == j).ok_or_else(|| {
                unsupported(format!(
                    "{what}: damping on a tendon over joints of different branches is not supported"
                ))
            })?;
            out.push((madr[i] + offset, d * ci * cj));
        }
    }
    Ok(())
}
