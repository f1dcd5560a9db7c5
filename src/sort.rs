//! Stable sorting with one copy of the sorting code in the browser build.
//!
//! The standard library's sorts are generic: every element type and every
//! comparison closure gets its own copy of the whole algorithm (about 3 KB
//! of WebAssembly each). With some seventy call sites that was 200 KB of
//! the page's code, a tenth of it. In the browser build these helpers sort
//! a list of indices instead, with the comparison behind a `dyn` call, so
//! the algorithm exists once; what stays generic per call site is only the
//! small loop that moves the elements into place. Natively they are the
//! standard library's stable sort.
//!
//! The result is the same in both builds: a stable sort's output is fully
//! determined by the comparison, so the simulator stays byte-for-byte
//! deterministic between the page and `kubesim serve`.

use std::cmp::Ordering;

/// Stable sorts for slices (use these instead of `sort`, `sort_by`,
/// `sort_by_key` and the unstable variants: `tests/tidy.rs` checks).
pub trait Order<T> {
    /// Sorts by `Ord`, keeping equal elements in their order.
    fn order(&mut self)
    where
        T: Ord;
    /// Sorts by a comparison, keeping equal elements in their order.
    fn order_by(&mut self, cmp: impl FnMut(&T, &T) -> Ordering);
    /// Sorts by a key, keeping elements with equal keys in their order.
    fn order_by_key<K: Ord>(&mut self, mut key: impl FnMut(&T) -> K) {
        self.order_by(|a, b| key(a).cmp(&key(b)))
    }
}

impl<T> Order<T> for [T] {
    fn order(&mut self)
    where
        T: Ord,
    {
        self.order_by(T::cmp)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn order_by(&mut self, cmp: impl FnMut(&T, &T) -> Ordering) {
        self.sort_by(cmp)
    }

    #[cfg(target_arch = "wasm32")]
    fn order_by(&mut self, mut cmp: impl FnMut(&T, &T) -> Ordering) {
        if self.len() < 2 {
            return;
        }
        let mut perm = permutation(self.len(), &mut |a, b| cmp(&self[a], &self[b]));
        apply(self, &mut perm);
    }
}

/// The order of `0..n` that sorts by `cmp` (stable): position `i` of the
/// result names the index whose element belongs at `i`. Not generic, so it
/// is compiled once.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Moves the elements of `v` so that `v[i]` becomes the old `v[perm[i]]`,
/// following each cycle of the permutation with swaps. `perm` is used up
/// (each visited position is marked by pointing at itself).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn apply<T>(v: &mut [T], perm: &mut [usize]) {
    for start in 0..v.len() {
        let mut cur = start;
        while perm[cur] != cur {
            let next = perm[cur];
            perm[cur] = cur;
            if next == start {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The browser build's path, run natively: sorting indices and then
    /// moving the elements gives what the standard stable sort gives.
    fn by_permutation<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
        let mut perm = permutation(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
        apply(v, &mut perm);
    }

    #[test]
    fn the_permutation_path_matches_the_standard_stable_sort() {
        // A small deterministic generator; keys repeat so stability shows.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in 0..200usize {
            let items: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((x % 7) as u8, i)
                })
                .collect();
            let mut want = items.clone();
            want.sort_by_key(|p| p.0);
            let mut got = items.clone();
            by_permutation(&mut got, |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn order_sorts_and_keeps_equal_keys_in_place() {
        let mut v = vec![("b", 1), ("a", 2), ("b", 0), ("a", 1)];
        v.order_by_key(|p| p.0);
        assert_eq!(v, [("a", 2), ("a", 1), ("b", 1), ("b", 0)]);
        let mut w = vec![3, 1, 2];
        w.order();
        assert_eq!(w, [1, 2, 3]);
    }
}
