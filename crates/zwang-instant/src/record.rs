//! A record of an instant's values, for a solver that may reuse its last
//! answer: a body sliding or resting on flat ground has, at every stage of
//! a Runge-Kutta step, an instant whose values are those of the last one
//! bit for bit (its rows do not depend on where along the ground it is),
//! and the same instant has the same answer.

use crate::instant::{Instant, RowSet};

/// The structure stamp and the bits of every value of the last instant
/// recorded: `M`, both row sets with their right-hand sides, the force and
/// the friction entries.
#[derive(Debug, Clone, Default)]
pub struct ValueRecord {
    structure: Option<u64>,
    bits: Vec<u64>,
}

impl ValueRecord {
    /// Records `instant`'s values and says whether they are, bit for bit,
    /// those recorded last (with the same structure stamp). One pass, and
    /// no allocation once the record has the room.
    pub fn record(&mut self, instant: &Instant) -> bool {
        let mut same = self.structure == Some(instant.structure_id());
        self.structure = Some(instant.structure_id());
        let old = self.bits.len();
        let mut i = 0;
        let bits = &mut self.bits;
        let mut put = |x: f64| {
            let b = x.to_bits();
            match bits.get_mut(i) {
                Some(slot) if *slot == b => {}
                Some(slot) => {
                    *slot = b;
                    same = false;
                }
                None => bits.push(b),
            }
            i += 1;
        };
        instant.mass().data().iter().for_each(|&x| put(x));
        for set in [RowSet::Equalities, RowSet::Inequalities] {
            let rows = instant.rows(set);
            rows.matrix().data().iter().for_each(|&x| put(x));
            rows.rhs().iter().for_each(|&x| put(x));
        }
        instant.force().iter().for_each(|&x| put(x));
        for (k, c) in instant.sliding().iter().enumerate() {
            put(c.mu);
            put(c.slip);
            // Outside its support a tangent is zero.
            instant
                .tangent_support(k)
                .iter()
                .for_each(|&j| put(c.tangent[j]));
        }
        instant.sticking().iter().for_each(|c| put(c.mu));
        self.bits.truncate(i);
        same && i == old
    }

    /// Forgets the record: the next [`ValueRecord::record`] says `false`.
    pub fn clear(&mut self) {
        self.structure = None;
    }
}
