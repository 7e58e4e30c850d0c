//! Warm starts of a step's contacts from the last step's impulses: by the
//! nearest point of the same pair within a small distance, else by id (the
//! same features of the same pair: a contact that moved farther, a
//! rolling disk's). Ids alone are not enough: collision detection may name
//! contacts anew, or swap the names of two, when the features it sees
//! change without the contacts moving (two faces that touch exactly, the
//! two ends of a face whose order flips), and one impulse on the wrong
//! contact costs a fresh solve.

use super::collide::StepContact;

/// One contact of the last step.
#[derive(Debug, Clone, Copy)]
struct Kept {
    id: u64,
    pair: u64,
    point: [f64; 2],
    r: [f64; 2],
}

/// The last step's contacts and impulses.
#[derive(Debug, Default)]
pub(super) struct Warm {
    /// Sorted by id.
    by_id: Vec<Kept>,
    /// Sorted by pair.
    by_pair: Vec<Kept>,
}

impl Warm {
    /// Each contact's starting impulse (two per contact, zero for a new
    /// one) into `r`; returns how many were found.
    pub fn fill(&self, contacts: &[StepContact], r: &mut [f64]) -> usize {
        let mut found = 0;
        for (c, slot) in contacts.iter().zip(r.chunks_exact_mut(2)) {
            let hit = self.nearest(c).or_else(|| {
                let at = self.by_id.binary_search_by_key(&c.id, |k| k.id).ok()?;
                Some(self.by_id[at].r)
            });
            match hit {
                Some(impulse) => {
                    slot.copy_from_slice(&impulse);
                    found += 1;
                }
                None => slot.fill(0.0),
            }
        }
        found
    }

    /// The impulse of the last step's contact of the same pair nearest to
    /// `c`'s point, within its reach.
    fn nearest(&self, c: &StepContact) -> Option<[f64; 2]> {
        let start = self.by_pair.partition_point(|k| k.pair < c.pair);
        self.by_pair[start..]
            .iter()
            .take_while(|k| k.pair == c.pair)
            .map(|k| {
                let d = (k.point[0] - c.point[0]).hypot(k.point[1] - c.point[1]);
                (d, k.r)
            })
            .filter(|&(d, _)| d <= c.reach)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, r)| r)
    }

    /// Keeps `contacts` and their impulses `r` for the next step.
    pub fn store(&mut self, contacts: &[StepContact], r: &[f64]) {
        self.by_id.clear();
        self.by_id
            .extend(contacts.iter().zip(r.chunks_exact(2)).map(|(c, ri)| Kept {
                id: c.id,
                pair: c.pair,
                point: c.point,
                r: [ri[0], ri[1]],
            }));
        self.by_pair.clear();
        self.by_pair.extend_from_slice(&self.by_id);
        self.by_id.sort_unstable_by_key(|k| k.id);
        self.by_pair.sort_unstable_by_key(|k| k.pair);
    }
}
