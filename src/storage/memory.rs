//! The in-memory MVCC store.

use crate::sort::Order;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::ops::Bound;
use std::sync::{Arc, Weak};

use serde_json::Value;

use super::key_index::{KeyHistory, RankedSet};
use super::log::LogRecord;
use super::{
    Event, EventKind, ListPage, ListStart, ObjectAttrs, Storage, StorageError, StorageSize, StoredObject, WatchCursor,
};
use crate::api::Revision;
use crate::clock::SimTime;

#[derive(Default)]
pub struct MemStorage {
    revision: Revision,
    compacted: Revision,
    keys: BTreeMap<Arc<str>, KeyHistory>,
    /// Keys that exist at the newest revision, for rank queries.
    live: RankedSet,
    /// One event per revision, from `compacted + 1` to `revision`.
    events: VecDeque<Event>,
    /// When each retained revision was written.
    times: VecDeque<(Revision, SimTime)>,
    /// Reused serialization buffer.
    scratch: Vec<u8>,
    /// The most recent writes, which keep their parsed objects (a watcher
    /// or the next patch reads them soon after); older ones forget theirs.
    recent: VecDeque<Weak<StoredObject>>,
    /// What the retained versions hold (keys and values), and the most
    /// it has ever held.
    size: StorageSize,
}

/// How many recent writes keep their parsed object: enough to span most
/// of a 1,000-pod rollout's busiest step (a pod's create, its scheduling
/// and its status writes, read back by every informer and the next
/// patch). A kept value an informer caches is shared with it; one nobody
/// reads costs its parsed size (~20 KB for a small pod: ~40 MB at most).
const KEEP_DECODED: usize = 2048;

/// The end of a prefix range: `"a/"` -> `"a0"` (`'0'` follows `'/'`).
fn prefix_end(prefix: &str) -> String {
    let mut end = prefix.to_string();
    if end.pop() == Some('/') {
        end.push('0');
    } else {
        end.push('\u{10FFFF}');
    }
    end
}

impl MemStorage {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new version, keeping its parsed object among the recent writes'.
    fn encode(&mut self, obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>) -> Arc<StoredObject> {
        let stored = Arc::new(StoredObject::encode_keeping(obj, rev, attrs, &mut self.scratch));
        if self.recent.len() == KEEP_DECODED {
            if let Some(old) = self.recent.pop_front().and_then(|w| w.upgrade()) {
                old.forget_decoded();
            }
        }
        self.recent.push_back(Arc::downgrade(&stored));
        stored
    }

    fn check_readable(&self, at: Revision) -> Result<(), StorageError> {
        if at > self.revision {
            return Err(StorageError::FutureRevision { requested: at, current: self.revision });
        }
        if at < self.compacted {
            return Err(StorageError::Compacted { requested: at, compacted: self.compacted });
        }
        Ok(())
    }

    /// Records one write: the key's new version (`value`, None for a
    /// tombstone) and the event describing it.
    fn commit(
        &mut self,
        key: &str,
        value: Option<Arc<StoredObject>>,
        event: (EventKind, Arc<StoredObject>, Option<Arc<StoredObject>>),
        rev: Revision,
        now: SimTime,
    ) {
        let Ok(()) = self.commit_if(key, value, event, rev, now, |_| Ok::<(), Infallible>(()));
    }

    /// `commit`, once `admit` accepts the key's history as found (None for
    /// a key never written): a create's check that the key is free made
    /// in the commit's one search of the keys.
    fn commit_if<E>(
        &mut self,
        key: &str,
        value: Option<Arc<StoredObject>>,
        event: (EventKind, Arc<StoredObject>, Option<Arc<StoredObject>>),
        rev: Revision,
        now: SimTime,
        admit: impl FnOnce(Option<&KeyHistory>) -> Result<(), E>,
    ) -> Result<(), E> {
        let (kind, event_obj, prev) = event;
        // One search of the keys: a key written before keeps its first
        // `Arc` (shared with its events), and the new one is dropped.
        let (key, history) = match self.keys.entry(Arc::from(key)) {
            Entry::Occupied(e) => {
                admit(Some(e.get()))?;
                (e.key().clone(), e.into_mut())
            }
            Entry::Vacant(e) => {
                admit(None)?;
                (e.key().clone(), e.insert(KeyHistory::default()))
            }
        };
        let versions = &mut history.versions;
        match kind {
            EventKind::Created => self.live.insert(key.clone()),
            EventKind::Deleted => self.live.remove(&key),
            EventKind::Updated => {}
        }
        // Histories are short: grow them exactly rather than by doubling.
        versions.reserve_exact(1);
        self.size.grow(key.len() as u64 + value.as_ref().map_or(0, |v| v.json.len() as u64));
        versions.push((rev, value));
        self.events.push_back(Event::new(rev, kind, key, event_obj, prev));
        // One entry per distinct time, holding the newest revision written then.
        match self.times.back_mut() {
            Some((r, t)) if *t == now => *r = rev,
            _ => self.times.push_back((rev, now)),
        }
        self.revision = rev;
        Ok(())
    }

    fn current(&self, key: &str) -> Option<(Revision, Arc<StoredObject>)> {
        self.keys.get(key).and_then(|h| h.latest()).map(|(r, o)| (r, o.clone()))
    }

    /// Live keys in `[from, to)` at revision `at`: the head count adjusted
    /// by the events after `at`, so the cost is O(log n + events since at).
    fn count_live(&self, from: &str, to: &str, at: Revision) -> u64 {
        let mut count = (self.live.rank(to) - self.live.rank(from)) as i64;
        if at < self.revision {
            let first = self.events.front().map(|e| e.revision).unwrap_or(Revision(self.revision.0 + 1));
            let skip = (at.0 + 1).saturating_sub(first.0) as usize;
            let mut touched: Vec<&str> =
                self.events.iter().skip(skip).map(|e| &*e.key).filter(|k| *k >= from && *k < to).collect();
            touched.order();
            touched.dedup();
            for k in touched {
                if let Some(h) = self.keys.get(k) {
                    let then = h.at(at).is_some() as i64;
                    let now = h.latest().is_some() as i64;
                    count += then - now;
                }
            }
        }
        count.max(0) as u64
    }
}

/// Writing the store out as a log and reading it back (`super::log`).
impl MemStorage {
    /// When the retained revision `rev` was written.
    fn time_of(&self, rev: Revision) -> SimTime {
        let i = self.times.partition_point(|(r, _)| *r < rev);
        self.times.get(i).or(self.times.back()).map_or(SimTime(0), |(_, t)| *t)
    }

    fn record(&self, e: &Event) -> LogRecord {
        let object = (e.kind != EventKind::Deleted).then(|| e.object.clone());
        LogRecord { revision: e.revision, kind: e.kind, key: e.key.clone(), time: self.time_of(e.revision), object }
    }

    /// The writes after `after`, as log records; None when compaction has
    /// dropped some of them (write the whole store instead: `dump`).
    pub fn log_since(&self, after: Revision, out: &mut Vec<u8>) -> bool {
        if after < self.compacted {
            return false;
        }
        let first = self.events.front().map_or(self.revision.next(), |e| e.revision);
        let skip = (after.0 + 1).saturating_sub(first.0) as usize;
        for e in self.events.iter().skip(skip) {
            super::log::encode(out, &self.record(e));
        }
        true
    }

    /// The whole store as a log: each key's version from before the
    /// compaction horizon (as a create at its revision), then every
    /// retained write.
    pub fn dump(&self, out: &mut Vec<u8>) {
        let mut base: Vec<LogRecord> = self
            .keys
            .iter()
            .filter_map(|(key, h)| {
                let (rev, obj) = h.versions.first()?;
                let obj = obj.as_ref().filter(|_| *rev <= self.compacted)?;
                Some(LogRecord {
                    revision: *rev,
                    kind: EventKind::Created,
                    key: key.clone(),
                    time: self.time_of(*rev),
                    object: Some(obj.clone()),
                })
            })
            .collect();
        base.order_by_key(|r| r.revision);
        for r in &base {
            super::log::encode(out, r);
        }
        self.log_since(self.compacted, out);
    }

    /// Applies a log's writes in order, as they were first made.
    pub fn apply_log(&mut self, data: &[u8]) -> Result<(), String> {
        let mut reader = super::log::Reader::new(data);
        while let Some(r) = reader.next_record()? {
            if r.revision <= self.revision {
                return Err(format!("the log goes back from revision {} to {}", self.revision.0, r.revision.0));
            }
            let prev = self.current(&r.key).map(|(_, o)| o);
            let event = match (r.kind, prev, r.object) {
                (EventKind::Created, None, Some(obj)) => (obj.clone(), (EventKind::Created, obj, None)),
                (EventKind::Updated, Some(prev), Some(mut obj)) => {
                    // Unchanged attributes are shared, as `update` shares them.
                    if let Some(o) = Arc::get_mut(&mut obj).filter(|o| o.attrs == prev.attrs) {
                        o.attrs = prev.attrs.clone();
                    }
                    (obj.clone(), (EventKind::Updated, obj, Some(prev)))
                }
                (EventKind::Deleted, Some(prev), None) => {
                    let last = Arc::new(prev.restamped(r.revision));
                    self.commit(&r.key, None, (EventKind::Deleted, last, Some(prev)), r.revision, r.time);
                    continue;
                }
                _ => {
                    return Err(format!(
                        "the log's write at revision {} does not follow from the one before",
                        r.revision.0
                    ))
                }
            };
            let (value, event) = event;
            self.commit(&r.key, Some(value), event, r.revision, r.time);
        }
        Ok(())
    }

    /// Ends a restore: history compacted as it was, and the most storage
    /// ever held (which compaction does not give back) as it was.
    pub fn finish_restore(&mut self, compacted: Revision, allocated: u64) {
        self.compact(compacted);
        self.compacted = self.compacted.max(compacted);
        self.size.allocated = allocated.max(self.size.in_use.div_ceil(StorageSize::PAGE) * StorageSize::PAGE);
    }
}

/// Refuses a write etcd would refuse for its size, nothing written.
fn too_large(key: &str, stored: &StoredObject) -> Result<(), StorageError> {
    if key.len() + stored.json.len() > crate::storage::MAX_REQUEST_BYTES {
        return Err(StorageError::TooLarge { value: Box::new(stored.value()) });
    }
    Ok(())
}

impl Storage for MemStorage {
    fn has_live(&self, prefix: &str) -> bool {
        self.live.first_at_or_after(prefix).is_some_and(|k| k.starts_with(prefix))
    }

    fn revision(&self) -> Revision {
        self.revision
    }

    fn compacted(&self) -> Revision {
        self.compacted
    }

    fn get(&self, key: &str, at: Revision) -> Result<Option<(Revision, Arc<StoredObject>)>, StorageError> {
        self.check_readable(at)?;
        Ok(self.keys.get(key).and_then(|h| h.at(at)).map(|(r, o)| (r, o.clone())))
    }

    fn list(
        &self,
        prefix: &str,
        at: Revision,
        start: &ListStart,
        limit: Option<usize>,
        filter: Option<&dyn Fn(&StoredObject) -> bool>,
    ) -> Result<ListPage, StorageError> {
        self.check_readable(at)?;
        let end = prefix_end(prefix);
        let from = match start {
            ListStart::Beginning => prefix.to_string(),
            ListStart::At(rel) => format!("{prefix}{rel}"),
        };
        let mut items = Vec::new();
        let mut last_key: Option<&str> = None;
        let mut more = false;
        let range = self.keys.range::<str, _>((Bound::Included(from.as_str()), Bound::Excluded(end.as_str())));
        for (key, hist) in range {
            let Some((_, obj)) = hist.at(at) else { continue };
            if filter.is_some_and(|f| !f(obj)) {
                continue;
            }
            if limit.is_some_and(|l| items.len() >= l) {
                more = true;
                break;
            }
            items.push(obj.clone());
            last_key = Some(key);
        }
        let (continue_at, remaining) = match (more, last_key) {
            (true, Some(last)) => {
                // Continue right after the last returned key.
                let next = format!("{}\u{0}", &last[prefix.len()..]);
                let remaining =
                    if filter.is_none() { Some(self.count_live(&format!("{last}\u{0}"), &end, at)) } else { None };
                (Some(next), remaining)
            }
            _ => (None, None),
        };
        Ok(ListPage { revision: at, items, continue_at, remaining })
    }

    fn create(
        &mut self,
        key: &str,
        obj: Value,
        attrs: ObjectAttrs,
        now: SimTime,
    ) -> Result<Arc<StoredObject>, StorageError> {
        let rev = self.revision.next();
        // Encoded before the key is found free (the commit's search says
        // so): a create refused for its name encodes for nothing, and
        // every other create searches the keys once.
        let stored = self.encode(obj, rev, Arc::new(attrs));
        let event = (EventKind::Created, stored.clone(), None);
        self.commit_if(key, Some(stored.clone()), event, rev, now, |history| {
            if history.is_some_and(|h| h.latest().is_some()) {
                return Err(StorageError::KeyExists { key: key.into() });
            }
            too_large(key, &stored)
        })?;
        Ok(stored)
    }

    fn update(
        &mut self,
        key: &str,
        expect: Option<Revision>,
        obj: Value,
        attrs: ObjectAttrs,
        now: SimTime,
    ) -> Result<Arc<StoredObject>, StorageError> {
        let (cur_rev, prev) = self.current(key).ok_or_else(|| StorageError::NotFound { key: key.into() })?;
        if expect.is_some_and(|e| e != cur_rev) {
            return Err(StorageError::Conflict { key: key.into(), current: cur_rev });
        }
        let rev = self.revision.next();
        // Unchanged attributes are shared with the previous version.
        let attrs = if *prev.attrs == attrs { prev.attrs.clone() } else { Arc::new(attrs) };
        let stored = self.encode(obj, rev, attrs);
        too_large(key, &stored)?;
        self.commit(key, Some(stored.clone()), (EventKind::Updated, stored.clone(), Some(prev)), rev, now);
        Ok(stored)
    }

    fn delete(&mut self, key: &str, expect: Option<Revision>, now: SimTime) -> Result<Arc<StoredObject>, StorageError> {
        let (cur_rev, prev) = self.current(key).ok_or_else(|| StorageError::NotFound { key: key.into() })?;
        if expect.is_some_and(|e| e != cur_rev) {
            return Err(StorageError::Conflict { key: key.into(), current: cur_rev });
        }
        let rev = self.revision.next();
        let final_state = Arc::new(prev.restamped(rev));
        self.commit(key, None, (EventKind::Deleted, final_state, Some(prev.clone())), rev, now);
        Ok(prev)
    }

    fn compact(&mut self, rev: Revision) {
        let rev = rev.min(self.revision);
        if rev <= self.compacted {
            return;
        }
        // Only keys written in (old compacted, rev] can have droppable history.
        let mut touched: Vec<Arc<str>> = Vec::new();
        while self.events.front().is_some_and(|e| e.revision <= rev) {
            if let Some(e) = self.events.pop_front() {
                touched.push(e.key.clone());
            }
        }
        while self.times.front().is_some_and(|(r, _)| *r < rev) {
            self.times.pop_front();
        }
        touched.order();
        touched.dedup();
        for key in touched {
            let Some(h) = self.keys.get_mut(&key) else { continue };
            let (versions, bytes) = h.compact(rev);
            self.size.in_use = self.size.in_use.saturating_sub((versions * key.len()) as u64 + bytes);
            if h.versions.is_empty() {
                self.keys.remove(&key);
            }
        }
        self.compacted = rev;
    }

    fn size(&self) -> StorageSize {
        self.size
    }

    fn revision_at_time(&self, t: SimTime) -> Option<Revision> {
        let idx = self.times.partition_point(|(_, when)| *when <= t);
        if idx == 0 {
            None
        } else {
            Some(self.times[idx - 1].0)
        }
    }

    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchCursor, StorageError> {
        if after < self.compacted {
            return Err(StorageError::Compacted { requested: after, compacted: self.compacted });
        }
        Ok(WatchCursor { prefix: prefix.to_string(), next: after.next() })
    }

    fn written_since(&self, after: Revision, matches: &dyn Fn(&str) -> bool) -> Result<bool, StorageError> {
        if after < self.compacted {
            return Err(StorageError::Compacted { requested: after, compacted: self.compacted });
        }
        let Some(first) = self.events.front().map(|e| e.revision) else { return Ok(false) };
        let start = (after.next().0.saturating_sub(first.0)) as usize;
        Ok(self.events.iter().skip(start).any(|e| matches(&e.key)))
    }

    fn poll(&self, cursor: &mut WatchCursor, max: usize) -> Result<Vec<&Event>, StorageError> {
        let mut out = Vec::new();
        // Events at or before the compaction revision are gone.
        if cursor.next <= self.compacted {
            return Err(StorageError::Compacted { requested: Revision(cursor.next.0 - 1), compacted: self.compacted });
        }
        if cursor.next > self.revision {
            return Ok(out);
        }
        let Some(first) = self.events.front().map(|e| e.revision) else {
            return Ok(out);
        };
        let start = (cursor.next.0 - first.0) as usize;
        for e in self.events.iter().skip(start) {
            cursor.next = e.revision.next();
            if e.key.starts_with(cursor.prefix.as_str()) {
                out.push(e);
                if out.len() >= max {
                    break;
                }
            }
        }
        Ok(out)
    }
}
