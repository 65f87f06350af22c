//! One stable sort for the lists the models and reports order.
//!
//! Each `sort_by` with its own comparator compiles a whole copy of the
//! standard library's sort into the page's wasm (3-4 KB each). These
//! functions sort positions through a single copy and then move the
//! items, which costs nothing measurable on the short lists they serve;
//! hot loops (the simulator, the trace reader's event lists) keep
//! `sort_by`.

use std::cmp::Ordering;

/// Positions ordered by `cmp` on them (stable).
pub fn sort_positions(positions: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    positions.sort_by(|&a, &b| cmp(a, b));
}

/// The positions `0..n` ordered by `cmp` on them (stable).
pub fn positions(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    sort_positions(&mut p, cmp);
    p
}

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` does.
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let p = positions(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut taken: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(p.into_iter().filter_map(|i| taken[i].take()));
}

/// Sorts `v` stably by `key`, as `v.sort_by_key(key)` does.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts a slice of copyable items stably by `cmp`.
pub fn sort_copied_by<T: Copy>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let p = positions(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let sorted: Vec<T> = p.into_iter().map(|i| v[i]).collect();
    v.copy_from_slice(&sorted);
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard stable sort, ties included
        /// (the second field tells equal keys apart).
        #[test]
        fn as_the_standard_sort(keys in prop::collection::vec(0u8..6, 0..40), from in 0usize..40) {
            let base: Vec<(u8, usize)> = keys.into_iter().zip(0..).collect();
            let mut expected = base.clone();
            expected.sort_by_key(|x| x.0);
            let mut ours = base.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(&ours, &expected);
            let mut keyed = base.clone();
            sort_by_key(&mut keyed, |x| x.0);
            prop_assert_eq!(&keyed, &expected);
            let from = from.min(base.len());
            let mut copied = base.clone();
            sort_copied_by(&mut copied[from..], |a, b| b.0.cmp(&a.0));
            let mut expected_copied = base.clone();
            expected_copied[from..].sort_by_key(|x| std::cmp::Reverse(x.0));
            prop_assert_eq!(copied, expected_copied);
            let p = positions(base.len(), &|a, b| base[a].0.cmp(&base[b].0));
            let by_positions: Vec<(u8, usize)> = p.into_iter().map(|i| base[i]).collect();
            prop_assert_eq!(by_positions, expected);
        }
    }
}
