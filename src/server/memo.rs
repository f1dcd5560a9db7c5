//! A bounded memo keyed by bytes: the caller writes a lookup's key into a
//! buffer the memo keeps (a hit allocates nothing), then reads what is
//! kept for it, made on the first miss. Past its bound it starts again
//! (what it keeps can always be made again). The classifier's memo of
//! classifications and the metrics' memo of request series are two.

use std::collections::HashMap;

type Fast = foldhash::fast::FixedState;

#[derive(Clone, Debug)]
pub(super) struct BoundedMemo<V> {
    by_key: HashMap<Box<[u8]>, V, Fast>,
    /// The key being looked up (reused: it keeps its room).
    key: Vec<u8>,
    bound: usize,
}

impl<V> Default for BoundedMemo<V> {
    /// Room for 4,096 keys.
    fn default() -> BoundedMemo<V> {
        BoundedMemo { by_key: HashMap::default(), key: Vec::new(), bound: 4096 }
    }
}

impl<V> BoundedMemo<V> {
    /// The next lookup's key, emptied, to be written.
    pub(super) fn key(&mut self) -> &mut Vec<u8> {
        self.key.clear();
        &mut self.key
    }

    /// Hands `use_it` what is kept for the key written, made by `make`
    /// first if nothing is (one search for a hit).
    pub(super) fn with<R>(&mut self, make: impl FnOnce() -> V, use_it: impl FnOnce(&V) -> R) -> R {
        match self.by_key.get(self.key.as_slice()) {
            Some(v) => use_it(v),
            None => {
                let v = make();
                let r = use_it(&v);
                if self.by_key.len() >= self.bound {
                    self.by_key.clear();
                }
                self.by_key.insert(self.key.as_slice().into(), v);
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BoundedMemo;

    #[test]
    fn a_key_is_made_for_once_and_the_memo_starts_again_past_its_bound() {
        let mut memo = BoundedMemo { bound: 3, ..Default::default() };
        let mut made = 0;
        let look = |memo: &mut BoundedMemo<String>, k: &str, made: &mut u32| {
            memo.key().extend_from_slice(k.as_bytes());
            memo.with(
                || {
                    *made += 1;
                    format!("<{k}>")
                },
                |v| v.clone(),
            )
        };
        assert_eq!(look(&mut memo, "a", &mut made), "<a>");
        assert_eq!(look(&mut memo, "a", &mut made), "<a>");
        assert_eq!(made, 1, "a hit makes nothing");
        // (A key written after a longer one is not the longer one's tail.)
        assert_eq!(look(&mut memo, "bc", &mut made), "<bc>");
        assert_eq!(look(&mut memo, "b", &mut made), "<b>");
        assert_eq!((made, memo.by_key.len()), (3, 3));
        // Full: the next new key empties it first.
        assert_eq!(look(&mut memo, "d", &mut made), "<d>");
        assert_eq!((made, memo.by_key.len()), (4, 1));
        assert_eq!(look(&mut memo, "a", &mut made), "<a>");
        assert_eq!(made, 5, "forgotten, so made again");
    }
}
