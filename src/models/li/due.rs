//! What the event core's heaps hold: something due at a time, ordered
//! earliest first and, at the same time, first scheduled first.
//!
//! 16 bytes: the heaps move items on every push and pop, and a small item
//! moves in one or two loads and stores. `key` is the scheduling order
//! above `ID_BITS` bits naming what is due, so ordering by `key` is
//! ordering by scheduling.

use std::cmp::Ordering;

#[derive(Clone, Copy)]
pub struct Due<const ID_BITS: u32> {
    /// When it is due (a time [s], or a link's virtual mark [B]).
    pub at: f64,
    key: u64,
}

impl<const ID_BITS: u32> Due<ID_BITS> {
    /// Ids below 2^ID_BITS, schedulings below 2^(64 − ID_BITS).
    #[inline(always)]
    pub fn new(at: f64, seq: u64, id: u32) -> Self {
        debug_assert!(u64::from(id) < 1 << ID_BITS && seq < 1 << (64 - ID_BITS));
        Due {
            at,
            key: seq << ID_BITS | u64::from(id),
        }
    }

    #[inline(always)]
    pub fn id(&self) -> u32 {
        (self.key & ((1 << ID_BITS) - 1)) as u32
    }

    /// The scheduling order it was made with.
    #[inline(always)]
    pub fn seq(&self) -> u64 {
        self.key >> ID_BITS
    }
}

impl<const ID_BITS: u32> PartialEq for Due<ID_BITS> {
    #[inline(always)]
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl<const ID_BITS: u32> Eq for Due<ID_BITS> {}

impl<const ID_BITS: u32> Ord for Due<ID_BITS> {
    // Earliest first in a max-heap; at the same time, first scheduled
    // first.
    #[inline(always)]
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.total_cmp(&self.at).then(o.key.cmp(&self.key))
    }
}

impl<const ID_BITS: u32> PartialOrd for Due<ID_BITS> {
    #[inline(always)]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }

    // The comparisons the heap sifts with, inlined (the page's
    // size-optimised build would otherwise call the default methods).
    #[inline(always)]
    fn lt(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Less
    }

    #[inline(always)]
    fn le(&self, o: &Self) -> bool {
        self.cmp(o) != Ordering::Greater
    }
}

#[cfg(test)]
mod tests {
    use super::Due;

    #[test]
    fn earliest_first_then_first_scheduled() {
        let a = Due::<24>::new(1.0, 5, 3);
        let b = Due::<24>::new(2.0, 1, 0);
        let c = Due::<24>::new(1.0, 6, 0);
        // Greater is taken first from a max-heap.
        assert!(a > b && a > c && c > b);
        assert_eq!((a.id(), b.id(), c.id()), (3, 0, 0));
        assert_eq!(Due::<20>::new(0.0, 7, (1 << 20) - 1).id(), (1 << 20) - 1);
    }
}
