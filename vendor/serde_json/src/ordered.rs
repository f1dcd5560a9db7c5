//! kubesim: the insertion-ordered map behind `Map` with `preserve_order`
//! (vendor/README.md), in place of `IndexMap`.
//!
//! Entries live in a vector in insertion order. A map of at most `SMALL`
//! entries has no hash index: a lookup compares keys in order (a length
//! compare rejects most keys at once), and an insert pushes. A larger map
//! keeps an index from key hash to position, built when the map grows past
//! `SMALL` and dropped when it shrinks back, so lookups stay O(1) however
//! many keys a client sends. Most of an object's maps are small (metadata,
//! a container, a port), and `IndexMap` hashed every key of every one of
//! them as it was parsed and looked up.
//!
//! Semantics follow `IndexMap` where `Map` exposes them: `insert` keeps an
//! existing key's position, `swap_remove` moves the last entry into the
//! hole, `shift_remove` keeps the order, equality ignores order.

use crate::value::Value;
use alloc::string::String;
use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt;
use core::hash::{BuildHasher, Hash};
use core::mem;
use hashbrown::HashTable;

/// Maps of at most this many entries have no hash index.
pub(crate) const SMALL: usize = 8;

type Entry = (String, Value);

/// The hash index of a large map: position of each key, by the key's hash.
#[derive(Clone)]
struct Index {
    hasher: foldhash::fast::RandomState,
    table: HashTable<usize>,
}

impl Index {
    fn hash<Q: ?Sized + Hash>(&self, key: &Q) -> u64 {
        self.hasher.hash_one(key)
    }

    fn build(entries: &[Entry]) -> Index {
        let mut ix = Index {
            hasher: foldhash::fast::RandomState::default(),
            table: HashTable::with_capacity(entries.len()),
        };
        for (i, (k, _)) in entries.iter().enumerate() {
            let h = ix.hash(k.as_str());
            ix.table.insert_unique(h, i, |_| unreachable!("capacity reserved"));
        }
        ix
    }

    /// Forgets that entry `i` (whose key is `key`) is at `i`.
    fn erase(&mut self, key: &str, i: usize) {
        let h = self.hash(key);
        if let Ok(slot) = self.table.find_entry(h, |&j| j == i) {
            slot.remove();
        }
    }

    /// Records that the entry `key` moved from `from` to `to`.
    fn relocate(&mut self, key: &str, from: usize, to: usize) {
        let h = self.hash(key);
        if let Some(slot) = self.table.find_mut(h, |&j| j == from) {
            *slot = to;
        }
    }
}

/// An insertion-ordered map of strings to values.
/// (Generic only because `Map<K, V>` is; it is used as
/// `OrderedMap<String, Value>`.)
#[derive(Clone)]
pub(crate) struct OrderedMap<K, V> {
    entries: Vec<(K, V)>,
    // Inline, not boxed: a boxed index made `Value` 32 bytes or less,
    // which LLVM moves with loads and stores instead of `memory.copy`,
    // and the WebAssembly module grew by kilobytes (vendor/README.md).
    index: Option<Index>,
}

impl<K, V> Default for OrderedMap<K, V> {
    fn default() -> Self {
        OrderedMap {
            entries: Vec::new(),
            index: None,
        }
    }
}

impl OrderedMap<String, Value> {
    #[inline]
    pub fn with_capacity(capacity: usize) -> Self {
        OrderedMap {
            entries: Vec::with_capacity(capacity),
            index: None,
        }
    }

    /// A map of `entries` in their order, which hold no key twice (only
    /// debug builds check): the vector is kept, and no key is looked for.
    pub fn from_distinct(entries: Vec<Entry>) -> Self {
        debug_assert!(
            entries
                .iter()
                .enumerate()
                .all(|(i, (k, _))| entries[..i].iter().all(|(j, _)| j != k)),
            "from_distinct: a key repeated"
        );
        let index = (entries.len() > SMALL).then(|| Index::build(&entries));
        OrderedMap { entries, index }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline]
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index = None;
    }

    /// The position of `key`.
    fn find<Q>(&self, key: &Q) -> Option<usize>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        match &self.index {
            None => self.entries.iter().position(|(k, _)| k.borrow() == key),
            Some(ix) => {
                let entries = &self.entries;
                ix.table
                    .find(ix.hash(key), |&i| entries[i].0.borrow() == key)
                    .copied()
            }
        }
    }

    /// `find` for a `str` key, the common case: a small map compares each
    /// key with `same_key`, which tests short keys with two loads each
    /// where `==` on `str` calls `memcmp`.
    #[inline]
    fn find_str(&self, key: &str) -> Option<usize> {
        match &self.index {
            None => {
                let key = key.as_bytes();
                self.entries.iter().position(|(k, _)| same_key(k.as_bytes(), key))
            }
            Some(_) => self.find(key),
        }
    }

    /// Rebuilds the index (or drops it) after the entries were reordered
    /// or removed in bulk.
    fn reindex(&mut self) {
        self.index = if self.entries.len() > SMALL {
            Some(Index::build(&self.entries))
        } else {
            None
        };
    }

    /// Appends an entry whose key is not in the map; its position.
    fn push(&mut self, k: String, v: Value) -> usize {
        let i = self.entries.len();
        self.entries.push((k, v));
        if let Some(ix) = &mut self.index {
            let h = ix.hash(self.entries[i].0.as_str());
            let entries = &self.entries;
            let hasher = &ix.hasher;
            ix.table
                .insert_unique(h, i, |&j| hasher.hash_one(entries[j].0.as_str()));
        } else if self.entries.len() > SMALL {
            self.index = Some(Index::build(&self.entries));
        }
        i
    }

    #[inline]
    pub fn get<Q>(&self, key: &Q) -> Option<&Value>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.find(key).map(|i| &self.entries[i].1)
    }

    /// `get` of a `str` key (`find_str`).
    #[inline]
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        self.find_str(key).map(|i| &self.entries[i].1)
    }

    /// `get_mut` of a `str` key (`find_str`).
    #[inline]
    pub fn get_str_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.find_str(key).map(|i| &mut self.entries[i].1)
    }

    #[inline]
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut Value>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.find(key).map(|i| &mut self.entries[i].1)
    }

    #[inline]
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&String, &Value)>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.find(key).map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    #[inline]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.find(key).is_some()
    }

    /// Sets `k` to `v`: an existing key keeps its position and its old
    /// value is returned; a new one goes last.
    pub fn insert(&mut self, k: String, v: Value) -> Option<Value> {
        match self.find_str(k.as_str()) {
            Some(i) => Some(mem::replace(&mut self.entries[i].1, v)),
            None => {
                self.push(k, v);
                None
            }
        }
    }

    /// Sets `k` to `v` at position `index` (an existing key moves there).
    /// Panics when `index` is out of bounds, as `IndexMap` does.
    pub fn shift_insert(&mut self, index: usize, k: String, v: Value) -> Option<Value> {
        let old = match self.find_str(k.as_str()) {
            Some(i) => {
                assert!(index < self.entries.len(), "index out of bounds");
                let (key, old) = self.entries.remove(i);
                self.entries.insert(index, (key, v));
                Some(old)
            }
            None => {
                assert!(index <= self.entries.len(), "index out of bounds");
                self.entries.insert(index, (k, v));
                None
            }
        };
        self.reindex();
        old
    }

    fn swap_remove_index(&mut self, i: usize) -> Entry {
        let last = self.entries.len() - 1;
        if let Some(ix) = &mut self.index {
            ix.erase(self.entries[i].0.as_str(), i);
            if i != last {
                ix.relocate(self.entries[last].0.as_str(), last, i);
            }
        }
        let entry = self.entries.swap_remove(i);
        if self.entries.len() <= SMALL {
            self.index = None;
        }
        entry
    }

    fn shift_remove_index(&mut self, i: usize) -> Entry {
        if let Some(ix) = &mut self.index {
            ix.erase(self.entries[i].0.as_str(), i);
            for j in ix.table.iter_mut() {
                if *j > i {
                    *j -= 1;
                }
            }
        }
        let entry = self.entries.remove(i);
        if self.entries.len() <= SMALL {
            self.index = None;
        }
        entry
    }

    pub fn swap_remove<Q>(&mut self, key: &Q) -> Option<Value>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.swap_remove_entry(key).map(|(_, v)| v)
    }

    pub fn swap_remove_entry<Q>(&mut self, key: &Q) -> Option<Entry>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        let i = self.find(key)?;
        Some(self.swap_remove_index(i))
    }

    pub fn shift_remove<Q>(&mut self, key: &Q) -> Option<Value>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        self.shift_remove_entry(key).map(|(_, v)| v)
    }

    pub fn shift_remove_entry<Q>(&mut self, key: &Q) -> Option<Entry>
    where
        String: Borrow<Q>,
        Q: ?Sized + Eq + Hash,
    {
        let i = self.find(key)?;
        Some(self.shift_remove_index(i))
    }

    pub fn entry(&mut self, key: String) -> MapEntry {
        match self.find_str(key.as_str()) {
            Some(index) => MapEntry::Occupied(OccupiedEntry { map: self, index }),
            None => MapEntry::Vacant(VacantEntry { map: self, key }),
        }
    }

    pub fn retain<F>(&mut self, mut f: F)
    where
        F: FnMut(&String, &mut Value) -> bool,
    {
        let before = self.entries.len();
        self.entries.retain_mut(|(k, v)| f(k, v));
        if self.entries.len() != before {
            self.reindex();
        }
    }

    pub fn sort_unstable_keys(&mut self) {
        self.entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.reindex();
    }

    /// A stable sort, each entry's key computed once.
    pub fn sort_by_cached_key<T, F>(&mut self, mut sort_key: F)
    where
        T: Ord,
        F: FnMut(&String, &Value) -> T,
    {
        self.entries.sort_by_cached_key(|(k, v)| sort_key(k, v));
        self.reindex();
    }

    #[inline]
    pub fn iter(&self) -> Iter {
        Iter(self.entries.iter())
    }

    #[inline]
    pub fn iter_mut(&mut self) -> IterMut {
        IterMut(self.entries.iter_mut())
    }

    #[inline]
    pub fn keys(&self) -> Keys {
        Keys(self.entries.iter())
    }

    #[inline]
    pub fn values(&self) -> Values {
        Values(self.entries.iter())
    }

    #[inline]
    pub fn values_mut(&mut self) -> ValuesMut {
        ValuesMut(self.entries.iter_mut())
    }

    #[inline]
    pub fn into_values(self) -> IntoValues {
        IntoValues(self.entries.into_iter())
    }

    #[inline]
    pub fn into_iter(self) -> IntoIter {
        self.entries.into_iter()
    }
}

/// An iterator over a map's entries that hands out part of each.
macro_rules! entries_iterator {
    ($(#[$attr:meta])* $name:ident $(<$a:lifetime>)?, $inner:ty, $item:ty, |$e:ident| $part:expr) => {
        $(#[$attr])*
        pub(crate) struct $name$(<$a>)?($inner);

        impl$(<$a>)? Iterator for $name$(<$a>)? {
            type Item = $item;
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                self.0.next().map(|$e| $part)
            }
            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }
        }

        impl$(<$a>)? DoubleEndedIterator for $name$(<$a>)? {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                self.0.next_back().map(|$e| $part)
            }
        }

        impl$(<$a>)? ExactSizeIterator for $name$(<$a>)? {
            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }
        }

        impl$(<$a>)? fmt::Debug for $name$(<$a>)? {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0.len()).finish()
            }
        }
    };
}

entries_iterator!(#[derive(Clone)] Iter<'a>, core::slice::Iter<'a, Entry>, (&'a String, &'a Value), |e| (&e.0, &e.1));
entries_iterator!(IterMut<'a>, core::slice::IterMut<'a, Entry>, (&'a String, &'a mut Value), |e| (&e.0, &mut e.1));
entries_iterator!(#[derive(Clone)] Keys<'a>, core::slice::Iter<'a, Entry>, &'a String, |e| &e.0);
entries_iterator!(#[derive(Clone)] Values<'a>, core::slice::Iter<'a, Entry>, &'a Value, |e| &e.1);
entries_iterator!(ValuesMut<'a>, core::slice::IterMut<'a, Entry>, &'a mut Value, |e| &mut e.1);
entries_iterator!(IntoValues, alloc::vec::IntoIter<Entry>, Value, |e| e.1);

pub(crate) type IntoIter = alloc::vec::IntoIter<Entry>;

impl PartialEq for OrderedMap<String, Value> {
    /// Equal when both hold the same keys with equal values, in any order
    /// (as `IndexMap`'s equality).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|(k, v)| other.get(k.as_str()) == Some(v))
    }
}

impl fmt::Debug for OrderedMap<String, Value> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Extend<(String, Value)> for OrderedMap<String, Value> {
    fn extend<T: IntoIterator<Item = (String, Value)>>(&mut self, iter: T) {
        let iter = iter.into_iter();
        self.entries.reserve(iter.size_hint().0);
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl FromIterator<(String, Value)> for OrderedMap<String, Value> {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        let mut map = OrderedMap::default();
        map.extend(iter);
        map
    }
}

/// A key's place in the map, present or not (`Map::entry`).
pub(crate) enum MapEntry<'a> {
    Vacant(VacantEntry<'a>),
    Occupied(OccupiedEntry<'a>),
}

pub(crate) struct VacantEntry<'a> {
    map: &'a mut OrderedMap<String, Value>,
    key: String,
}

impl<'a> VacantEntry<'a> {
    #[inline]
    pub fn key(&self) -> &String {
        &self.key
    }

    pub fn insert(self, value: Value) -> &'a mut Value {
        let i = self.map.push(self.key, value);
        &mut self.map.entries[i].1
    }
}

pub(crate) struct OccupiedEntry<'a> {
    map: &'a mut OrderedMap<String, Value>,
    index: usize,
}

impl<'a> OccupiedEntry<'a> {
    #[inline]
    pub fn key(&self) -> &String {
        &self.map.entries[self.index].0
    }

    #[inline]
    pub fn get(&self) -> &Value {
        &self.map.entries[self.index].1
    }

    #[inline]
    pub fn get_mut(&mut self) -> &mut Value {
        &mut self.map.entries[self.index].1
    }

    #[inline]
    pub fn into_mut(self) -> &'a mut Value {
        &mut self.map.entries[self.index].1
    }

    #[inline]
    pub fn insert(&mut self, value: Value) -> Value {
        mem::replace(self.get_mut(), value)
    }

    pub fn swap_remove(self) -> Value {
        self.swap_remove_entry().1
    }

    pub fn shift_remove(self) -> Value {
        self.shift_remove_entry().1
    }

    pub fn swap_remove_entry(self) -> Entry {
        self.map.swap_remove_index(self.index)
    }

    pub fn shift_remove_entry(self) -> Entry {
        self.map.shift_remove_index(self.index)
    }
}

/// Whether two keys are the same bytes. Keys are mostly short (a field's
/// name): up to sixteen bytes they are compared as two overlapping words
/// (or half-words, or bytes) each, with no call; longer ones with `==`.
#[inline(always)]
fn same_key(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| s.get(at..at + 8).and_then(|w| w.try_into().ok()).map_or(0, u64::from_le_bytes);
    let half = |s: &[u8], at: usize| s.get(at..at + 4).and_then(|w| w.try_into().ok()).map_or(0, u32::from_le_bytes);
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}
