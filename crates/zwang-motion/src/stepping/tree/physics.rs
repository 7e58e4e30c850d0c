//! What an articulated model adds to its tree's dynamics, resolved once
//! to the tree's coordinates and dofs: joint springs and damping, fixed
//! tendons, actuators, and joint and tendon limits as one-sided rows.

use zwang_core::rotation::dot;
use zwang_model::articulated::{Articulated, Equality, TendonPath, Transmission};
use zwang_tree::{log, JointKind, Tree};

use crate::stepping::space::collide::SpaceContact;
use crate::stepping::StepError;
use crate::warm::Key;

/// Where a joint's coordinates and dofs are.
#[derive(Debug, Clone, Copy)]
struct Slot {
    kind: JointKind,
    qadr: usize,
    dadr: usize,
}

/// A fixed tendon over hinge and slide coordinates.
#[derive(Debug, Clone)]
struct FixedTendon {
    /// `(qpos index, qvel index, coefficient)`, one per joint (repeats
    /// summed).
    terms: Vec<(usize, usize, f64)>,
    stiffness: f64,
    rest: f64,
}

impl FixedTendon {
    fn length(&self, q: &[f64]) -> f64 {
        self.terms.iter().map(|&(a, _, c)| c * q[a]).sum()
    }

    fn rate(&self, v: &[f64]) -> f64 {
        self.terms.iter().map(|&(_, d, c)| c * v[d]).sum()
    }
}

/// What an actuator's force moves.
#[derive(Debug, Clone, Copy)]
enum Along {
    /// A hinge or slide: its coordinate and dof.
    Coordinate { qadr: usize, dadr: usize },
    /// A fixed tendon (index).
    Tendon(usize),
}

#[derive(Debug, Clone)]
struct Drive {
    along: Along,
    gear: f64,
    gain: f64,
    bias: [f64; 3],
    ctrlrange: Option<[f64; 2]>,
    forcerange: Option<[f64; 2]>,
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

/// Joint and tendon physics in the tree's coordinates.
#[derive(Debug, Clone)]
pub(super) struct Physics {
    /// `(qpos index, qvel index, stiffness, rest)`.
    springs: Vec<(usize, usize, f64, f64)>,
    tendons: Vec<FixedTendon>,
    drives: Vec<Drive>,
    limits: Vec<Limit>,
    /// The damping matrix `D` (joints' and tendons') as entries of
    /// [`Tree::mass_layout`]: `(index, value)`.
    pub damping: Vec<(usize, f64)>,
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
    /// Resolves the model's joint physics, tendons and actuators; refuses
    /// what the stepper does not hold yet (equality constraints, dry
    /// friction, spatial tendons) and what does not fit (a spring on a
    /// ball, an actuator on a free joint, tendon damping across branches).
    pub fn new(model: &Articulated) -> Result<Physics, StepError> {
        let tree = &model.tree;
        let mut slots = Vec::new();
        let (mut qadr, mut dadr) = (0, 0);
        for body in tree.bodies() {
            for joint in &body.joints {
                slots.push(Slot {
                    kind: joint.kind,
                    qadr,
                    dadr,
                });
                qadr += joint.kind.nq();
                dadr += joint.kind.nv();
            }
        }
        if model.joints.len() != slots.len() {
            return Err(unsupported(format!(
                "the model gives the physics of {} joints, its tree has {}",
                model.joints.len(),
                slots.len()
            )));
        }
        if let Some(k) = (0..model.equalities.len()).next() {
            let kind = match model.equalities[k] {
                Equality::Connect { .. } => "connect",
                Equality::Weld { .. } => "weld",
                Equality::Joint { .. } => "joint",
                Equality::Tendon { .. } => "tendon",
            };
            return Err(unsupported(format!(
                "equality[{k}] ({kind}): equality constraints are not supported yet by the time stepper over trees"
            )));
        }
        let mut springs = Vec::new();
        let mut limits = Vec::new();
        let mut damping = Vec::new();
        let (madr, _) = tree.mass_layout();
        for (joint, (slot, physics)) in slots.iter().zip(&model.joints).enumerate() {
            let name = &physics.name;
            let what = format!("joint {name}");
            finite_nonnegative(&format!("{what}: damping"), physics.damping)?;
            finite_nonnegative(&format!("{what}: stiffness"), physics.stiffness)?;
            finite_nonnegative(&format!("{what}: frictionloss"), physics.frictionloss)?;
            check_range(&what, physics.range)?;
            if physics.frictionloss > 0.0 {
                return Err(unsupported(format!(
                    "{what}: frictionloss is not supported yet by the time stepper over trees"
                )));
            }
            if !physics.springref.is_finite() {
                return Err(unsupported(format!("{what}: springref is not finite")));
            }
            if physics.damping > 0.0 {
                for d in slot.dadr..slot.dadr + slot.kind.nv() {
                    damping.push((madr[d], physics.damping));
                }
            }
            let one = matches!(slot.kind, JointKind::Hinge { .. } | JointKind::Slide { .. });
            if physics.stiffness > 0.0 {
                if !one {
                    return Err(unsupported(format!(
                        "{what}: a spring on a ball or free joint is not supported"
                    )));
                }
                springs.push((slot.qadr, slot.dadr, physics.stiffness, physics.springref));
            }
            if let Some(range) = physics.range {
                let what = match slot.kind {
                    JointKind::Hinge { .. } | JointKind::Slide { .. } => Bounded::Coordinate {
                        qadr: slot.qadr,
                        dadr: slot.dadr,
                    },
                    JointKind::Ball { .. } => Bounded::Ball {
                        qadr: slot.qadr,
                        dadr: slot.dadr,
                    },
                    JointKind::Free => {
                        return Err(unsupported(format!(
                            "joint {name} (joint[{joint}]): a free joint has no range"
                        )))
                    }
                };
                limits.push(Limit { what, range });
            }
        }
        let mut tendons = Vec::new();
        for (k, tendon) in model.tendons.iter().enumerate() {
            let what = format!("tendon {} (tendon[{k}])", tendon.name);
            let TendonPath::Fixed(path) = &tendon.path else {
                return Err(unsupported(format!(
                    "{what}: spatial tendons are not supported yet by the time stepper over trees"
                )));
            };
            finite_nonnegative(&format!("{what}: damping"), tendon.damping)?;
            finite_nonnegative(&format!("{what}: stiffness"), tendon.stiffness)?;
            check_range(&what, tendon.range)?;
            let mut terms: Vec<(usize, usize, f64)> = Vec::new();
            for &(joint, coef) in path {
                let slot = slots.get(joint).ok_or_else(|| {
                    unsupported(format!("{what}: joint {joint} is not in the tree"))
                })?;
                if !matches!(slot.kind, JointKind::Hinge { .. } | JointKind::Slide { .. }) {
                    return Err(unsupported(format!(
                        "{what}: a fixed tendon runs over hinge and slide joints only"
                    )));
                }
                if !coef.is_finite() {
                    return Err(unsupported(format!("{what}: a coefficient is not finite")));
                }
                match terms.iter_mut().find(|t| t.1 == slot.dadr) {
                    Some(t) => t.2 += coef,
                    None => terms.push((slot.qadr, slot.dadr, coef)),
                }
            }
            let mut fixed = FixedTendon {
                terms,
                stiffness: tendon.stiffness,
                rest: 0.0,
            };
            fixed.rest = match tendon.springlength {
                Some(l) if l.is_finite() => l,
                Some(l) => return Err(unsupported(format!("{what}: springlength {l}"))),
                None => fixed.length(tree.qpos0()),
            };
            if tendon.damping > 0.0 {
                tendon_damping(tree, &fixed, tendon.damping, &what, &mut damping)?;
            }
            if let Some(range) = tendon.range {
                limits.push(Limit {
                    what: Bounded::Tendon(k),
                    range,
                });
            }
            tendons.push(fixed);
        }
        let mut drives = Vec::new();
        for (k, a) in model.actuators.iter().enumerate() {
            let what = format!("actuator {} (actuator[{k}])", a.name);
            let along = match a.transmission {
                Transmission::Joint(j) => match slots.get(j) {
                    Some(slot)
                        if matches!(
                            slot.kind,
                            JointKind::Hinge { .. } | JointKind::Slide { .. }
                        ) =>
                    {
                        Along::Coordinate {
                            qadr: slot.qadr,
                            dadr: slot.dadr,
                        }
                    }
                    Some(_) => {
                        return Err(unsupported(format!(
                            "{what}: an actuator on a ball or free joint is not supported"
                        )))
                    }
                    None => return Err(unsupported(format!("{what}: no joint {j}"))),
                },
                Transmission::Tendon(t) if t < tendons.len() => Along::Tendon(t),
                Transmission::Tendon(t) => {
                    return Err(unsupported(format!("{what}: no tendon {t}")))
                }
            };
            let numbers = [a.gear, a.gain, a.bias[0], a.bias[1], a.bias[2]];
            if numbers.iter().any(|x| !x.is_finite()) {
                return Err(unsupported(format!(
                    "{what}: gear, gain and bias must be finite"
                )));
            }
            check_range(&format!("{what}: ctrl"), a.ctrlrange)?;
            check_range(&format!("{what}: force"), a.forcerange)?;
            drives.push(Drive {
                along,
                gear: a.gear,
                gain: a.gain,
                bias: a.bias,
                ctrlrange: a.ctrlrange,
                forcerange: a.forcerange,
            });
        }
        Ok(Physics {
            springs,
            tendons,
            drives,
            limits,
            damping,
        })
    }

    /// Adds to `tau` the springs' forces (joints' and tendons') and the
    /// actuators' at `(q, v)` with the controls `ctrl` (clamped into
    /// their ranges, the forces into theirs).
    pub fn forces(&self, q: &[f64], v: &[f64], ctrl: &[f64], tau: &mut [f64]) {
        for &(a, d, k, rest) in &self.springs {
            tau[d] -= k * (q[a] - rest);
        }
        for t in &self.tendons {
            if t.stiffness > 0.0 {
                let f = -t.stiffness * (t.length(q) - t.rest);
                for &(_, d, c) in &t.terms {
                    tau[d] += c * f;
                }
            }
        }
        for (drive, &u) in self.drives.iter().zip(ctrl) {
            let u = match drive.ctrlrange {
                Some([lo, hi]) => u.clamp(lo, hi),
                None => u,
            };
            let (length, rate) = match drive.along {
                Along::Coordinate { qadr, dadr } => (q[qadr], v[dadr]),
                Along::Tendon(t) => (self.tendons[t].length(q), self.tendons[t].rate(v)),
            };
            let g = drive.gear;
            let mut f = drive.gain * u
                + drive.bias[0]
                + drive.bias[1] * g * length
                + drive.bias[2] * g * rate;
            if let Some([lo, hi]) = drive.forcerange {
                f = f.clamp(lo, hi);
            }
            match drive.along {
                Along::Coordinate { dadr, .. } => tau[dadr] += g * f,
                Along::Tendon(t) => {
                    for &(_, d, c) in &self.tendons[t].terms {
                        tau[d] += g * f * c;
                    }
                }
            }
        }
    }

    /// The springs' potential energy at `q`.
    pub fn spring_energy(&self, q: &[f64]) -> f64 {
        let joints: f64 = self
            .springs
            .iter()
            .map(|&(a, _, k, rest)| 0.5 * k * (q[a] - rest).powi(2))
            .sum();
        let tendons: f64 = self
            .tendons
            .iter()
            .map(|t| 0.5 * t.stiffness * (t.length(q) - t.rest).powi(2))
            .sum();
        joints + tendons
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
                                tendon
                                    .terms
                                    .iter()
                                    .map(|&(_, d, c)| (d, [sign * c, 0.0, 0.0])),
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
    tendon: &FixedTendon,
    d: f64,
    what: &str,
    out: &mut Vec<(usize, f64)>,
) -> Result<(), StepError> {
    let (madr, _) = tree.mass_layout();
    for &(_, i, ci) in &tendon.terms {
        for &(_, j, cj) in &tendon.terms {
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
