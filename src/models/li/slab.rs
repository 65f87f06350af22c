//! Items under way named by a small number (what a 16-byte heap entry
//! can carry instead of the item), their places reused once they are
//! taken back, so a long run does not grow it.

pub struct Slab<T> {
    items: Vec<T>,
    /// Places taken back, reused last in, first out.
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T: Copy> Slab<T> {
    /// Keeps `x`; its place.
    #[inline(always)]
    pub fn insert(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = x;
                i
            }
            None => {
                self.items.push(x);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Takes back the item at `i`, freeing its place.
    #[inline(always)]
    pub fn remove(&mut self, i: u32) -> T {
        self.free.push(i);
        self.items[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn places_are_reused_once_taken_back() {
        let mut s = Slab::default();
        let (a, b) = (s.insert('a'), s.insert('b'));
        assert_eq!((a, b), (0, 1));
        assert_eq!(s.remove(a), 'a');
        assert_eq!(s.insert('c'), a, "the freed place, not a new one");
        assert_eq!((s.remove(a), s.remove(b)), ('c', 'b'));
        assert_eq!(s.insert('d'), b, "last freed, first reused");
    }
}
