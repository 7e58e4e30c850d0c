//! The independent parts of a planar model: bodies that no joint, spring
//! or damper links to each other move on their own (contacts are against
//! fixed surfaces, gravity and a moving frame act on each body alone).

use super::{dofs, BodyRef, Force, PlanarModel};
use crate::{Island, ModelError};
use zwang_core::UnionFind;

impl PlanarModel {
    /// The model's islands, in the order of their first body, each a model
    /// of its own with the same gravity and frame; one island (a copy of
    /// the model) when everything is linked.
    pub fn islands(&self) -> Result<Vec<Island<PlanarModel>>, ModelError> {
        let n = self.bodies.len();
        let mut uf = UnionFind::new(n);
        let mut link = |pair: [BodyRef; 2]| {
            if let [BodyRef::Body(a), BodyRef::Body(b)] = pair {
                uf.union(a, b);
            }
        };
        for joint in &self.joints {
            link(joint.bodies);
        }
        for force in &self.forces {
            if let Force::Spring { bodies, .. } | Force::Damper { bodies, .. } = force {
                link(*bodies);
            }
        }
        let mut label = Vec::new();
        let members = uf.groups(&mut label);
        let count = members.len();
        // Each body's index within its island.
        let mut local = vec![0; n];
        for group in &members {
            for (i, &b) in group.iter().enumerate() {
                local[b] = i;
            }
        }
        let within = |r: BodyRef| match r {
            BodyRef::Ground => BodyRef::Ground,
            BodyRef::Body(b) => BodyRef::Body(local[b]),
        };
        let island_of = |r: &[BodyRef; 2]| {
            r.iter().find_map(|b| match b {
                BodyRef::Body(b) => Some(label[*b]),
                BodyRef::Ground => None,
            })
        };
        let mut islands = Vec::with_capacity(count);
        for (l, bodies) in members.into_iter().enumerate() {
            let joints = (self.joints.iter())
                .filter(|j| island_of(&j.bodies) == Some(l))
                .map(|j| {
                    let mut j = j.clone();
                    j.bodies = j.bodies.map(within);
                    j
                })
                .collect();
            let contacts: Vec<usize> = (0..self.contacts.len())
                .filter(|&k| label[self.contacts[k].body] == l)
                .collect();
            let contact_list = (contacts.iter())
                .map(|&k| {
                    let mut c = self.contacts[k].clone();
                    c.body = local[c.body];
                    c
                })
                .collect();
            let forces = (self.forces.iter())
                .filter_map(|f| {
                    let mut f = f.clone();
                    match &mut f {
                        Force::Spring { bodies, .. } | Force::Damper { bodies, .. } => {
                            if island_of(bodies) != Some(l) {
                                return None;
                            }
                            *bodies = bodies.map(within);
                        }
                        Force::Constant { body, .. } => {
                            if label[*body] != l {
                                return None;
                            }
                            *body = local[*body];
                        }
                    }
                    Some(f)
                })
                .collect();
            let body_list = bodies.iter().map(|&b| self.bodies[b].clone()).collect();
            let mut model =
                PlanarModel::new(self.gravity, body_list, joints, contact_list, forces)?;
            if let Some(frame) = &self.frame {
                model = model.in_frame(frame.clone())?;
            }
            let coordinates: Vec<usize> = (bodies.iter())
                .flat_map(|&b| self.offsets[b]..self.offsets[b] + dofs(self.bodies[b].kind))
                .collect();
            islands.push(Island {
                model,
                q: coordinates.clone(),
                v: coordinates,
                contacts,
                bodies,
            });
        }
        Ok(islands)
    }
}
