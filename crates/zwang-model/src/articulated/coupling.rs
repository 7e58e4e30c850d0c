//! Joint and tendon equalities (`L1 = P(L2)`, `P` a polynomial of degree
//! four at most; `L1 = p0` without a second side) as two-sided rows of
//! the event-driven method: at acceleration level, from `phi(q) = L1(q) -
//! P(L2(q))` with `L1`, `L2` linear in `q` (hinge and slide coordinates,
//! fixed tendons),
//!
//! `phi'' = (g1 - P'(L2) g2) a - P''(L2) (g2 v)^2 = 0`,
//!
//! so the row is `g1 - P'(L2) g2` and its right-hand side `P''(L2) (g2
//! v)^2`.

use std::collections::BTreeMap;

use super::forces::JointAddress;
use super::{Articulated, Equality, TendonPath};
use crate::ModelError;

/// A linear function of the coordinates: `(qpos index, dof, coefficient)`.
type Linear = Vec<(usize, usize, f64)>;

/// One equality `L1 = P(L2)` over hinge and slide coordinates.
#[derive(Debug, Clone)]
pub(super) struct Coupling {
    /// `equality[k] (joint)` or `(tendon)`, for messages.
    pub name: String,
    first: Linear,
    second: Option<Linear>,
    p: [f64; 5],
    /// The row's dofs, sorted, each once: its pattern.
    pub dofs: Vec<usize>,
}

fn value(f: &Linear, q: &[f64]) -> f64 {
    f.iter().map(|&(a, _, c)| c * q[a]).sum()
}

fn rate(f: &Linear, v: &[f64]) -> f64 {
    f.iter().map(|&(_, d, c)| c * v[d]).sum()
}

impl Coupling {
    /// The model's equalities as couplings; `connect`, `weld` and
    /// equalities of spatial tendons are refused, naming the element.
    pub fn of(
        model: &Articulated,
        addresses: &[JointAddress],
    ) -> Result<Vec<Coupling>, ModelError> {
        let mut out = Vec::new();
        for (k, e) in model.equalities.iter().enumerate() {
            let refuse = |kind: &str, what: &str| ModelError::Invalid {
                key: format!("equality[{k}] ({kind})"),
                message: format!("{what} are not supported by the event-driven method yet"),
            };
            let joint = |j: usize| -> Result<Linear, ModelError> {
                match addresses.get(j) {
                    Some(a) if a.kind.nv() == 1 => Ok(vec![(a.qpos, a.dof, 1.0)]),
                    _ => Err(ModelError::Invalid {
                        key: format!("equality[{k}] (joint)"),
                        message: format!("joint {j} is not a hinge or a slide"),
                    }),
                }
            };
            let tendon = |t: usize| -> Result<Linear, ModelError> {
                match model.tendons.get(t).map(|t| &t.path) {
                    Some(TendonPath::Fixed(terms)) => terms
                        .iter()
                        .map(|&(j, c)| joint(j).map(|l| (l[0].0, l[0].1, c)))
                        .collect(),
                    Some(TendonPath::Spatial(_)) => {
                        Err(refuse("tendon", "equalities of spatial tendons"))
                    }
                    None => Err(ModelError::Invalid {
                        key: format!("equality[{k}] (tendon)"),
                        message: format!("no tendon {t}"),
                    }),
                }
            };
            let (kind, [a, b], p, side): (_, _, _, &dyn Fn(usize) -> _) = match e {
                Equality::Joint { joints, polycoef } => ("joint", *joints, *polycoef, &joint),
                Equality::Tendon { tendons, polycoef } => ("tendon", *tendons, *polycoef, &tendon),
                Equality::Connect { .. } => return Err(refuse("connect", "connect equalities")),
                Equality::Weld { .. } => return Err(refuse("weld", "weld equalities")),
            };
            if let Some(i) = p.iter().position(|x| !x.is_finite()) {
                return Err(ModelError::Invalid {
                    key: format!("equality[{k}] ({kind}).polycoef[{i}]"),
                    message: "not finite".into(),
                });
            }
            let first = side(a)?;
            let second = if a != b { Some(side(b)?) } else { None };
            let dofs: BTreeMap<usize, ()> = first
                .iter()
                .chain(second.iter().flatten())
                .map(|&(_, d, _)| (d, ()))
                .collect();
            out.push(Coupling {
                name: format!("equality[{k}] ({kind})"),
                first,
                second,
                p,
                dofs: dofs.into_keys().collect(),
            });
        }
        Ok(out)
    }

    /// `P(x)`, `P'(x)` and `P''(x)` at the second side's value `x` (all
    /// `p0, 0, 0` without a second side).
    fn polynomial(&self, q: &[f64]) -> [f64; 3] {
        let Some(second) = &self.second else {
            return [self.p[0], 0.0, 0.0];
        };
        let (x, p) = (value(second, q), &self.p);
        [
            p[0] + x * (p[1] + x * (p[2] + x * (p[3] + x * p[4]))),
            p[1] + x * (2.0 * p[2] + x * (3.0 * p[3] + x * 4.0 * p[4])),
            2.0 * p[2] + x * (6.0 * p[3] + x * 12.0 * p[4]),
        ]
    }

    /// `phi(q) = L1(q) - P(L2(q))`.
    pub fn violation(&self, q: &[f64]) -> f64 {
        value(&self.first, q) - self.polynomial(q)[0]
    }

    /// The row's values at `q` (in the order of [`Coupling::dofs`]) and
    /// its right-hand side at `(q, v)`.
    pub fn write(&self, q: &[f64], v: &[f64], values: &mut [f64]) -> f64 {
        let [_, slope, curvature] = self.polynomial(q);
        values.fill(0.0);
        let mut add = |d: usize, c: f64| {
            if let Ok(i) = self.dofs.binary_search(&d) {
                values[i] += c;
            }
        };
        for &(_, d, c) in &self.first {
            add(d, c);
        }
        let Some(second) = &self.second else {
            return 0.0;
        };
        for &(_, d, c) in second {
            add(d, -slope * c);
        }
        curvature * rate(second, v).powi(2)
    }
}
