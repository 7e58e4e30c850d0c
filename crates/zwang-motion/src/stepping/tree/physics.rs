//! What the time stepper adds to an articulated model's forces (which
//! are the model's, [`Articulated::add_forces`]): the joints' and
//! tendons' damping as entries of the tree's mass layout (taken
//! implicitly), and joint and tendon limits as one-sided rows.

use zwang_core::rotation::dot;
use zwang_model::articulated::{Articulated, Equality, JointAddress, TendonPath};
use zwang_tree::{log, JointKind, Tree};

use crate::stepping::space::collide::SpaceContact;
use crate::stepping::StepError;
use crate::warm::Key;

/// A fixed tendon's terms: `(qpos index, qvel index, coefficient)`, one
/// per joint (repeats summed).
#[derive(Debug, Clone)]
struct Terms(Vec<(usize, usize, f64)>);

impl Terms {
    fn length(&self, q: &[f64]) -> f64 {
        self.0.iter().map(|&(a, _, c)| c * q[a]).sum()
    }

    fn rate(&self, v: &[f64]) -> f64 {
        self.0.iter().map(|&(_, d, c)| c * v[d]).sum()
    }
}

/// What a limit bounds.
#[derive(Debug, Clone, Copy)]
enum Bounded {
    /// A hinge or slide coordinate.
    Coordinate { qadr: usize, dadr: usize },
    /// A ball joint's angle of rotation (its upper end only).
    Ball { qadr: usize, dadr: usize },
    /// A fixed tendon's length.
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
    tendons: Vec<Terms>,
    limits: Vec<Limit>,
    /// Dry friction at joints (MuJoCo's `frictionloss`): `(dof, f)`, a
    /// force in `[-f, f]` at each dof, a bounded row of the contact
    /// problem with its impulse in `[-f h, f h]`.
    pub friction: Vec<(usize, f64)>,
    /// Joint and fixed-tendon equalities, `L1 = P(L2)` with `P` the
    /// polynomial (`L1 = a0` without a second side).
    equalities: Vec<(Terms, Option<Terms>, [f64; 5])>,
    /// The damping matrix `D` (joints' and tendons') as entries of
    /// [`Tree::mass_layout`]: `(index, value)`.
    pub damping: Vec<(usize, f64)>,
}

impl Physics {
    /// Pushes the equalities' rows at `(q, v)`: `g v+ = -err / h`, so
    /// that the step ends on `L1 = P(L2)` to first order.
    pub fn push_equalities(&self, q: &[f64], h: f64, rows: &mut zwang_contact::BoundedRows) {
        for (first, second, p) in &self.equalities {
            let l1 = first.length(q);
            let (value, slope) = match second {
                Some(t) => {
                    let x = t.length(q);
                    let value = p[0] + x * (p[1] + x * (p[2] + x * (p[3] + x * p[4])));
                    let slope = p[1] + x * (2.0 * p[2] + x * (3.0 * p[3] + x * 4.0 * p[4]));
                    (value, slope)
                }
                None => (p[0], 0.0),
            };
            let entries = first.0.iter().map(|&(_, d, c)| (d, c)).chain(
                second
                    .iter()
                    .flat_map(|t| t.0.iter().map(move |&(_, d, c)| (d, -slope * c))),
            );
            rows.push(entries, (l1 - value) / h, f64::NEG_INFINITY, f64::INFINITY);
        }
    }
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
    /// Resolves the model's joint physics; refuses what the stepper does
    /// not hold yet (equality constraints, dry friction at joints,
    /// spatial tendons) and what does not fit (forces the model cannot
    /// compute, a range on a free joint, tendon damping across branches).
    pub fn new(model: &Articulated) -> Result<Physics, StepError> {
        let tree = &model.tree;
        for (k, e) in model.equalities.iter().enumerate() {
            let kind = match e {
                Equality::Connect { .. } => "connect",
                Equality::Weld { .. } => "weld",
                Equality::Joint { .. } | Equality::Tendon { .. } => continue,
            };
            return Err(unsupported(format!(
                "equality[{k}] ({kind}): connect and weld equalities are not supported yet by the time stepper over trees"
            )));
        }
        for (k, tendon) in model.tendons.iter().enumerate() {
            if let TendonPath::Spatial(_) = tendon.path {
                return Err(unsupported(format!(
                    "tendon {} (tendon[{k}]): spatial tendons are not supported yet by the time stepper over trees",
                    tendon.name
                )));
            }
        }
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
        let mut tendons = Vec::new();
        for (k, tendon) in model.tendons.iter().enumerate() {
            let what = format!("tendon {} (tendon[{k}])", tendon.name);
            finite_nonnegative(&format!("{what}: damping"), tendon.damping)?;
            check_range(&what, tendon.range)?;
            let mut terms: Vec<(usize, usize, f64)> = Vec::new();
            if let TendonPath::Fixed(path) = &tendon.path {
                for &(joint, coef) in path {
                    let a = addresses[joint];
                    match terms.iter_mut().find(|t| t.1 == a.dof) {
                        Some(t) => t.2 += coef,
                        None => terms.push((a.qpos, a.dof, coef)),
                    }
                }
            }
            let terms = Terms(terms);
            if tendon.damping > 0.0 {
                tendon_damping(tree, &terms, tendon.damping, &what, &mut damping)?;
            }
            if let Some(range) = tendon.range {
                limits.push(Limit {
                    what: Bounded::Tendon(k),
                    range,
                });
            }
            tendons.push(terms);
        }
        let mut equalities = Vec::new();
        for (k, e) in model.equalities.iter().enumerate() {
            let side = |what: &str, i: usize| -> Result<Terms, StepError> {
                if what == "joint" {
                    match addresses.get(i) {
                        Some(a) if a.kind.nv() == 1 => Ok(Terms(vec![(a.qpos, a.dof, 1.0)])),
                        _ => Err(unsupported(format!(
                            "equality[{k}]: joint {i} is not a hinge or a slide"
                        ))),
                    }
                } else {
                    tendons
                        .get(i)
                        .cloned()
                        .ok_or_else(|| unsupported(format!("equality[{k}]: no tendon {i}")))
                }
            };
            let (what, [a, b], polycoef) = match e {
                Equality::Joint { joints, polycoef } => ("joint", *joints, *polycoef),
                Equality::Tendon { tendons, polycoef } => ("tendon", *tendons, *polycoef),
                _ => continue,
            };
            if polycoef.iter().any(|c| !c.is_finite()) {
                return Err(unsupported(format!("equality[{k}].polycoef: not finite")));
            }
            let second = (a != b).then(|| side(what, b)).transpose()?;
            equalities.push((side(what, a)?, second, polycoef));
        }
        Ok(Physics {
            addresses,
            tendons,
            limits,
            damping,
            friction,
            equalities,
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
                    let length = tendon.length(q);
                    let reach = reach(h, speeds.map(|v| tendon.rate(v).abs()));
                    for (side, gap, sign) in [(0, length - lo, 1.0), (1, hi - length, -1.0)] {
                        if gap <= reach {
                            let start = rows.len();
                            rows.extend(
                                tendon.0.iter().map(|&(_, d, c)| (d, [sign * c, 0.0, 0.0])),
                            );
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
    tendon: &Terms,
    d: f64,
    what: &str,
    out: &mut Vec<(usize, f64)>,
) -> Result<(), StepError> {
    let (madr, _) = tree.mass_layout();
    for &(_, i, ci) in &tendon.0 {
        for &(_, j, cj) in &tendon.0 {
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
