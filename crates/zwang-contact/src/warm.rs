//! Warm starts keyed on contact ids: a time stepper's contacts come and go
//! between steps (a manifold gains a point, a box lifts a corner), so last
//! step's impulses are found by the contacts' persistent ids, not by their
//! places.

/// Last step's impulses by contact id. Memory is kept from step to step:
/// once it has seen the largest contact set, storing and looking up
/// allocate nothing.
#[derive(Debug, Clone, Default)]
pub struct WarmStarts {
    /// `(id, place in impulses)`, sorted by id.
    index: Vec<(u64, usize)>,
    /// The impulses, `dimension` per contact, in the order stored.
    impulses: Vec<f64>,
    dimension: usize,
}

impl WarmStarts {
    /// An empty store.
    pub fn new() -> Self {
        WarmStarts::default()
    }

    /// Number of contacts stored.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Keeps the impulses `r` (`r.len() / ids.len()` per contact, in the
    /// order of `ids`) for the next step; what was stored before is
    /// forgotten. An id given twice keeps its first impulse.
    pub fn store(&mut self, ids: &[u64], r: &[f64]) {
        self.dimension = if ids.is_empty() {
            0
        } else {
            r.len() / ids.len()
        };
        self.impulses.clear();
        self.impulses.extend_from_slice(r);
        self.index.clear();
        self.index.extend(ids.iter().copied().zip(0..));
        // By id, then place: of repeated ids the first stays first (and an
        // unstable sort allocates nothing).
        self.index.sort_unstable();
        self.index.dedup_by_key(|&mut (id, _)| id);
    }

    /// Writes the stored impulse of each of `ids` into `r` (`r.len() /
    /// ids.len()` per contact), zeros for a contact not seen last step or
    /// stored with another dimension. Returns how many were found.
    pub fn fill(&self, ids: &[u64], r: &mut [f64]) -> usize {
        let d = if ids.is_empty() {
            0
        } else {
            r.len() / ids.len()
        };
        let mut found = 0;
        for (k, id) in ids.iter().enumerate() {
            let slot = &mut r[d * k..d * (k + 1)];
            match self.index.binary_search_by_key(id, |&(id, _)| id) {
                Ok(at) if d == self.dimension => {
                    let from = d * self.index[at].1;
                    slot.copy_from_slice(&self.impulses[from..from + d]);
                    found += 1;
                }
                _ => slot.fill(0.0),
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_are_found_by_id_whatever_their_order() {
        let mut warm = WarmStarts::new();
        warm.store(&[7, 3, 9], &[1.0, 0.1, 2.0, 0.2, 3.0, 0.3]);
        let mut r = [f64::NAN; 6];
        // 3 and 7 persist (swapped), 4 is new.
        assert_eq!(warm.fill(&[3, 4, 7], &mut r), 2);
        assert_eq!(r, [2.0, 0.2, 0.0, 0.0, 1.0, 0.1]);
    }

    #[test]
    fn a_repeated_id_keeps_its_first_impulse_and_a_new_dimension_starts_cold() {
        let mut warm = WarmStarts::new();
        warm.store(&[5, 5], &[1.0, 0.0, 2.0, 0.0]);
        assert_eq!(warm.len(), 1);
        let mut r = [0.0; 2];
        warm.fill(&[5], &mut r);
        assert_eq!(r, [1.0, 0.0]);
        let mut r3 = [9.0; 3];
        assert_eq!(warm.fill(&[5], &mut r3), 0);
        assert_eq!(r3, [0.0; 3]);
        let mut none: [f64; 0] = [];
        assert_eq!(warm.fill(&[], &mut none), 0);
    }
}
