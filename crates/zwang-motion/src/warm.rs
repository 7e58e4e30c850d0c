//! Warm starts of a step's contacts from the last step's impulses: by the
//! nearest point of the same pair within a small distance, else by id (the
//! same features of the same pair: a contact that moved farther, a
//! rolling disk's). Ids alone are not enough: collision detection may name
//! contacts anew, or swap the names of two, when the features it sees
//! change without the contacts moving (two faces that touch exactly, the
//! two ends of a face whose order flips), and one impulse on the wrong
//! contact costs a fresh solve. The same for both time steppers: a planar
//! contact's point has `z = 0`, its impulse two components.

/// What a contact is known by from one step to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Key {
    /// Persistent id (the same features of the same pair).
    pub id: u64,
    /// The pair of colliders (or the point contact) it belongs to.
    pub pair: u64,
    /// Its world point (`z = 0` in the plane).
    pub point: [f64; 3],
    /// How far a contact of the last step of the same pair may be to
    /// count as this one when the ids differ.
    pub reach: f64,
}

/// One contact of the last step.
#[derive(Debug, Clone, Copy)]
struct LastContact {
    key: Key,
    r: [f64; 3],
}

/// The last step's contacts and impulses.
#[derive(Debug, Default)]
pub(crate) struct Warm {
    /// Sorted by id.
    by_id: Vec<LastContact>,
    /// Sorted by pair.
    by_pair: Vec<LastContact>,
}

impl Warm {
    /// Each contact's starting impulse (`d` components per contact, zero
    /// for a new one) into `r`; returns how many were found.
    pub fn fill(&self, keys: impl Iterator<Item = Key>, d: usize, r: &mut [f64]) -> usize {
        let mut found = 0;
        for (c, slot) in keys.zip(r.chunks_exact_mut(d)) {
            let hit = self.nearest(&c).or_else(|| {
                let at = self.by_id.binary_search_by_key(&c.id, |k| k.key.id).ok()?;
                Some(self.by_id[at].r)
            });
            match hit {
                Some(impulse) => {
                    slot.copy_from_slice(&impulse[..d]);
                    found += 1;
                }
                None => slot.fill(0.0),
            }
        }
        found
    }

    /// The impulse of the last step's contact of the same pair nearest to
    /// `c`'s point, within its reach.
    fn nearest(&self, c: &Key) -> Option<[f64; 3]> {
        let start = self.by_pair.partition_point(|k| k.key.pair < c.pair);
        self.by_pair[start..]
            .iter()
            .take_while(|k| k.key.pair == c.pair)
            .map(|k| {
                let d = (0..3)
                    .map(|j| (k.key.point[j] - c.point[j]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                (d, k.r)
            })
            .filter(|&(d, _)| d <= c.reach)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, r)| r)
    }

    /// Keeps the contacts `keys` and their impulses `r` (`d` per contact)
    /// for the next step.
    pub fn store(&mut self, keys: impl Iterator<Item = Key>, d: usize, r: &[f64]) {
        self.by_id.clear();
        self.by_id
            .extend(keys.zip(r.chunks_exact(d)).map(|(key, ri)| {
                let mut impulse = [0.0; 3];
                impulse[..d].copy_from_slice(ri);
                LastContact { key, r: impulse }
            }));
        self.by_pair.clear();
        self.by_pair.extend_from_slice(&self.by_id);
        self.by_id.sort_unstable_by_key(|k| k.key.id);
        self.by_pair.sort_unstable_by_key(|k| k.key.pair);
    }
}
