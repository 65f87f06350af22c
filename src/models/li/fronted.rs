//! A binary heap with its greatest item kept beside it: in the event
//! core most items pushed are the next to be taken (an op that starts as
//! the one before it ends, a chunk that follows the one before it), and
//! those then cost neither a sift up nor a sift down.

use std::collections::BinaryHeap;

pub struct Fronted<T> {
    /// No less than any item in `heap`.
    front: Option<T>,
    heap: BinaryHeap<T>,
}

impl<T: Ord + Copy> Default for Fronted<T> {
    fn default() -> Self {
        Fronted {
            front: None,
            heap: BinaryHeap::new(),
        }
    }
}

impl<T: Ord + Copy> Fronted<T> {
    #[inline(always)]
    pub fn peek(&self) -> Option<&T> {
        match &self.front {
            Some(f) => Some(f),
            None => self.heap.peek(),
        }
    }

    #[inline(always)]
    pub fn push(&mut self, x: T) {
        // Comparisons as `<` and matches written out: the page's
        // size-optimised build calls `gt` and `is_none_or` otherwise.
        match self.front {
            Some(f) if f < x => {
                self.heap.push(f);
                self.front = Some(x);
            }
            Some(_) => self.heap.push(x),
            None => match self.heap.peek() {
                Some(top) if x < *top => self.heap.push(x),
                _ => self.front = Some(x),
            },
        }
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        match self.front.take() {
            Some(f) => Some(f),
            None => self.heap.pop(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fronted;
    use std::collections::BinaryHeap;

    #[test]
    fn takes_items_in_the_order_a_binary_heap_does() {
        let mut f = Fronted::default();
        let mut b = BinaryHeap::new();
        // Pushes and pops interleaved by a counter-based sequence, with
        // runs where the item pushed is the greatest.
        let mut z = 7u64;
        for i in 0..20_000u64 {
            z = z
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let x = if z.is_multiple_of(5) {
                u64::MAX - i
            } else {
                (z >> 33) % 1000
            };
            f.push(x);
            b.push(x);
            if !z.is_multiple_of(3) {
                assert_eq!(f.pop(), b.pop());
            }
            assert_eq!(f.peek(), b.peek());
        }
        while let Some(x) = b.pop() {
            assert_eq!(f.pop(), Some(x));
        }
        assert_eq!(f.pop(), None);
    }
}
