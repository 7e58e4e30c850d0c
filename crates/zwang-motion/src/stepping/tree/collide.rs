//! Stage 1 over a tree, collide: the geoms as colliders (a geom on a body
//! that moves is a moving collider at the geom's world pose; the world's
//! geoms and those of bodies welded to it are fixed), MuJoCo's filter of
//! which pairs may touch, and each contact's three rows in joint
//! coordinates: the normal and the two tangents times the difference of
//! the two geoms' point Jacobians.

use zwang_core::rotation::{cross, dot, tangents};
use zwang_geometry::spatial::{Collider, Collision, ContactPoint, Pose};
use zwang_model::articulated::Articulated;
use zwang_tree::{Tree, Workspace};

use crate::stepping::space::collide::{bounding_radius, SpaceContact};
use crate::stepping::StepError;
use crate::warm::Key;

/// The collision world of a model's geoms.
type Finder = crate::world::ContactFinder<Collision, Pose, ContactPoint>;

/// The geoms that may touch, their collision world and MuJoCo's filter.
pub(super) struct Geoms {
    finder: Finder,
    /// The geom of each collider.
    geom_of: Vec<usize>,
    /// The geom and body of each moving collider, and its bounding
    /// radius.
    moving: Vec<(usize, usize)>,
    radii: Vec<f64>,
    /// Pairs `[fixed collider, moving collider]` the filter keeps apart,
    /// sorted (the collision world keeps apart the moving pairs itself).
    apart: Vec<[usize; 2]>,
    /// The deepest overlap among the last contacts left out because no
    /// joint moves their normal ([`ROUND_OFF`]).
    pub stuck: f64,
}

/// A contact's normal row is round-off, and the contact is left out, when
/// its length is below this fraction of the terms it is summed from: no
/// joint moves the two geoms apart or together (their normal passes
/// through every hinge's axis or ball's centre between them), so no
/// impulse of the contact does work and the least one, zero, is its
/// answer. Kept, its penalty `1 / |J_n M^-1 J_n^T|` would be `1e32`, and
/// an overlap along it could never be corrected.
const ROUND_OFF: f64 = 1e-10;

/// The body a body is welded to (itself when it has joints), `None` for
/// the world: MuJoCo's `body_weldid`.
fn welds(tree: &Tree) -> Vec<Option<usize>> {
    let mut weld: Vec<Option<usize>> = Vec::with_capacity(tree.nbody());
    for (b, body) in tree.bodies().iter().enumerate() {
        let w = if body.joints.is_empty() {
            body.parent.and_then(|p| weld[p])
        } else {
            Some(b)
        };
        weld.push(w);
    }
    weld
}

/// MuJoCo's filter: whether geoms `a` and `b` may touch. Their
/// `contype`/`conaffinity` bits must meet; never two geoms of one body
/// (bodies welded together count as one), nor of a parent and its child
/// unless the parent is the world, nor of an excluded pair of bodies.
fn may_touch(model: &Articulated, weld: &[Option<usize>], a: usize, b: usize) -> bool {
    let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
    if ga.contype & gb.conaffinity == 0 && gb.contype & ga.conaffinity == 0 {
        return false;
    }
    let (wa, wb) = (ga.body.and_then(|x| weld[x]), gb.body.and_then(|x| weld[x]));
    if wa == wb {
        return false;
    }
    if let (Some(x), Some(y)) = (wa, wb) {
        let parent = |w: usize| model.tree.bodies()[w].parent.and_then(|p| weld[p]);
        if parent(x) == Some(y) || parent(y) == Some(x) {
            return false;
        }
    }
    let pair = [ga.body, gb.body];
    !model
        .excluded
        .iter()
        .any(|e| *e == pair || [e[1], e[0]] == pair)
}

impl Geoms {
    /// The colliders of `model`'s geoms at the tree's positions in `ws`
    /// (for the fixed ones' poses); none when contacts are off. Geoms
    /// whose bits meet no other's are left out.
    pub fn new(model: &Articulated, ws: &mut Workspace) -> Result<Geoms, StepError> {
        let tree = &model.tree;
        let weld = welds(tree);
        tree.positions(ws, tree.qpos0())?;
        let mut colliders = Vec::new();
        let mut geom_of = Vec::new();
        let mut moving = Vec::new();
        for (g, geom) in model.geoms.iter().enumerate() {
            let name = || format!("geom {} (geom[{g}])", geom.name);
            if !matches!(geom.condim, 1 | 3) {
                return Err(StepError::Unsupported(format!(
                    "{}: condim {} (1 and 3 are supported)",
                    name(),
                    geom.condim
                )));
            }
            if !(geom.friction.is_finite() && geom.friction >= 0.0) {
                return Err(StepError::Unsupported(format!(
                    "{}: friction {} is not a finite number >= 0",
                    name(),
                    geom.friction
                )));
            }
            if let Some(b) = geom.body.filter(|&b| b >= tree.nbody()) {
                return Err(StepError::Unsupported(format!(
                    "{}: body {b} is not in the tree",
                    name()
                )));
            }
            let touches_any =
                (0..model.geoms.len()).any(|o| o != g && may_touch(model, &weld, g, o));
            if !model.contact || !touches_any {
                continue;
            }
            let (body, pose) = match (geom.body, geom.body.and_then(|b| weld[b])) {
                (Some(b), Some(_)) => {
                    moving.push((g, b));
                    (Some(moving.len() - 1), geom.pose)
                }
                (Some(_), None) => (None, geom.world_pose(tree, ws)?),
                (None, _) => (None, geom.pose),
            };
            colliders.push(Collider {
                shape: geom.shape.clone(),
                body,
                pose,
            });
            geom_of.push(g);
        }
        let mut excluded = Vec::new();
        for a in 0..moving.len() {
            for b in a + 1..moving.len() {
                if !may_touch(model, &weld, moving[a].0, moving[b].0) {
                    excluded.push([a, b]);
                }
            }
        }
        let mut apart = Vec::new();
        for (i, ci) in colliders.iter().enumerate() {
            for (j, cj) in colliders.iter().enumerate() {
                if ci.body.is_none()
                    && cj.body.is_some()
                    && !may_touch(model, &weld, geom_of[i], geom_of[j])
                {
                    apart.push([i, j]);
                }
            }
        }
        let radii = moving
            .iter()
            .map(|&(g, _)| bounding_radius(&model.geoms[g].shape))
            .collect();
        let coefficients = geom_of
            .iter()
            .map(|&g| [model.geoms[g].friction, 0.0])
            .collect();
        let finder = Finder::new(
            (colliders, coefficients),
            |c: &Collider| bounding_radius(&c.shape),
            |c| Collision::new(c, &excluded),
        )
        .map_err(|e| match e {
            // Which geom: the collision world names the shape's key only.
            zwang_model::ModelError::Invalid { key, message } => StepError::Unsupported(format!(
                "a geom's {key}: {message} (a plane must be on the world or a body welded to it)"
            )),
            other => StepError::Model(other),
        })?;
        Ok(Geoms {
            finder,
            geom_of,
            moving,
            radii,
            apart,
            stuck: 0.0,
        })
    }

    /// The fastest point of any moving geom at the velocities in `ws`
    /// (its centre's speed plus its angular speed times its radius).
    pub fn fastest(&self, model: &Articulated, ws: &Workspace) -> Result<f64, StepError> {
        let tree = &model.tree;
        let mut fastest = 0.0f64;
        for (&(g, body), &radius) in self.moving.iter().zip(&self.radii) {
            let s = tree.velocity(ws, body)?;
            let pose = model.geoms[g].world_pose(tree, ws)?;
            let w = [s[0], s[1], s[2]];
            let c = cross(w, pose.position);
            let v = [s[3] + c[0], s[4] + c[1], s[5] + c[2]];
            fastest = fastest.max(dot(v, v).sqrt() + dot(w, w).sqrt() * radius);
        }
        Ok(fastest)
    }

    /// The moving colliders' poses at the tree's positions in `ws`.
    fn pose_moving(&mut self, model: &Articulated, ws: &Workspace) -> Result<(), StepError> {
        let poses = &mut self.finder.poses;
        poses.clear();
        for &(g, _) in &self.moving {
            poses.push(model.geoms[g].world_pose(&model.tree, ws)?);
        }
        Ok(())
    }

    /// The contacts at the tree's positions in `ws` with a gap of at most
    /// `margin`, appended to `out`, their rows to `rows`.
    pub fn contacts(
        &mut self,
        model: &Articulated,
        ws: &Workspace,
        margin: f64,
        out: &mut Vec<SpaceContact>,
        rows: &mut Vec<(usize, [f64; 3])>,
    ) -> Result<(), StepError> {
        let tree = &model.tree;
        self.pose_moving(model, ws)?;
        let finder = &mut self.finder;
        let Some(collision) = finder.collision.as_mut() else {
            return Ok(());
        };
        collision.collide(&finder.poses, margin, &mut finder.points);
        self.stuck = 0.0;
        for p in &finder.points {
            let [i, j] = p.colliders;
            if kept_apart(&self.apart, i, j) {
                continue;
            }
            let (ga, gb) = (&model.geoms[self.geom_of[i]], &model.geoms[self.geom_of[j]]);
            let mu = if ga.condim.max(gb.condim) == 1 {
                0.0
            } else {
                ga.friction.max(gb.friction)
            };
            let (pair, reach) = finder.surfaces.pair(p.colliders);
            let (t1, t2) = tangents(p.normal);
            let start = rows.len();
            let terms = relative_rows(
                tree,
                ws,
                [ga.body, gb.body],
                p.point,
                &[p.normal, t1, t2],
                rows,
            )?;
            let normal: f64 = rows[start..].iter().map(|(_, e)| e[0] * e[0]).sum();
            if normal <= ROUND_OFF * ROUND_OFF * terms {
                rows.truncate(start);
                self.stuck = self.stuck.max(-p.gap);
                continue;
            }
            out.push(SpaceContact {
                key: Key {
                    id: p.id,
                    pair,
                    point: p.point,
                    reach,
                },
                entries: (start, rows.len()),
                gap: p.gap,
                mu,
                restitution: 0.0,
            });
        }
        Ok(())
    }
}

/// Two geoms that overlap: how deep, and which (indices of the model's
/// geoms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Touch {
    /// The overlap, m (positive).
    pub depth: f64,
    /// The two geoms.
    pub geoms: [usize; 2],
}

/// The geoms' overlaps of a model at given positions, for a method that
/// does not hold contacts between geoms (the event-driven one) to check
/// its run against: it must say when geoms it lets pass meet.
pub struct Overlaps<'m> {
    model: &'m Articulated,
    geoms: Geoms,
    ws: Workspace,
}

impl<'m> Overlaps<'m> {
    /// The model's geoms that may touch (MuJoCo's filter).
    pub fn new(model: &'m Articulated) -> Result<Overlaps<'m>, StepError> {
        let mut ws = model.tree.workspace();
        let geoms = Geoms::new(model, &mut ws)?;
        Ok(Overlaps { model, geoms, ws })
    }

    /// The deepest overlap of two geoms that may touch at positions `q`
    /// (`None` when no two overlap).
    pub fn deepest(&mut self, q: &[f64]) -> Result<Option<Touch>, StepError> {
        self.model.tree.positions(&mut self.ws, q)?;
        self.geoms.deepest(self.model, &self.ws)
    }
}

impl Geoms {
    /// The deepest overlap among the pairs that may touch, at the tree's
    /// positions in `ws`.
    fn deepest(&mut self, model: &Articulated, ws: &Workspace) -> Result<Option<Touch>, StepError> {
        self.pose_moving(model, ws)?;
        let finder = &mut self.finder;
        let Some(collision) = finder.collision.as_mut() else {
            return Ok(None);
        };
        collision.collide(&finder.poses, 0.0, &mut finder.points);
        let mut deepest: Option<Touch> = None;
        for p in &finder.points {
            let [i, j] = p.colliders;
            if kept_apart(&self.apart, i, j)
                || p.gap >= 0.0
                || deepest.is_some_and(|d| d.depth >= -p.gap)
            {
                continue;
            }
            deepest = Some(Touch {
                depth: -p.gap,
                geoms: [self.geom_of[i], self.geom_of[j]],
            });
        }
        Ok(deepest)
    }
}

/// Whether MuJoCo's filter keeps colliders `i` and `j` apart (`apart`
/// sorted pairs of a fixed and a moving one; the collision world keeps
/// moving pairs apart itself).
fn kept_apart(apart: &[[usize; 2]], i: usize, j: usize) -> bool {
    apart.binary_search(&[i, j]).is_ok() || apart.binary_search(&[j, i]).is_ok()
}

/// The rows `frame · (J_b(point) - J_a(point))` of a point on bodies `a`
/// and `b` (`None`: the world), entry by entry: the dofs on one path and
/// not the other (those above where the paths meet move both alike); the
/// sum of the squared sizes of the terms each entry's velocity is summed
/// from (its round-off's scale).
fn relative_rows(
    tree: &Tree,
    ws: &Workspace,
    [a, b]: [Option<usize>; 2],
    point: [f64; 3],
    frame: &[[f64; 3]; 3],
    rows: &mut Vec<(usize, [f64; 3])>,
) -> Result<f64, StepError> {
    let mut terms = 0.0;
    let mut pa = a.into_iter().flat_map(|x| tree.path(x)).peekable();
    let mut pb = b.into_iter().flat_map(|x| tree.path(x)).peekable();
    loop {
        // Dofs come in decreasing order along a path to the root.
        let (dof, sign) = match (pa.peek().copied(), pb.peek().copied()) {
            (Some(x), Some(y)) if x == y => break,
            (Some(x), Some(y)) if x > y => {
                pa.next();
                (x, -1.0)
            }
            (_, Some(y)) => {
                pb.next();
                (y, 1.0)
            }
            (Some(x), None) => {
                pa.next();
                (x, -1.0)
            }
            (None, None) => break,
        };
        let s = tree.dof_motion(ws, dof)?;
        let w = [s[0], s[1], s[2]];
        let c = cross(w, point);
        let v = [s[3] + c[0], s[4] + c[1], s[5] + c[2]];
        terms += (dot([s[3], s[4], s[5]], [s[3], s[4], s[5]]).sqrt() + dot(c, c).sqrt()).powi(2);
        rows.push((dof, frame.map(|n| sign * dot(n, v))));
    }
    Ok(terms)
}
