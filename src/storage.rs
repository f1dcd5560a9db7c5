//! MVCC storage, modelled on etcd's: one global revision counter (the
//! resourceVersion), per-key history with tombstones, snapshot reads at a
//! revision, an event log that drives watches, and compaction.
//!
//! Storage knows objects only as JSON with `metadata.resourceVersion`
//! (which it stamps on every write, like upstream's versioner) plus the
//! attributes selectors look at. It knows nothing of kinds or HTTP.

pub mod continue_token;
pub mod key_index;
pub mod log;
pub mod memory;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::api::Revision;
use crate::clock::SimTime;

pub use crate::api::object::{ObjectAttrs, StoredObject};
pub use memory::MemStorage;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Created,
    Updated,
    Deleted,
}

/// One entry of the event log: every successful write produces exactly one.
#[derive(Debug)]
pub struct Event {
    pub revision: Revision,
    pub kind: EventKind,
    pub key: Arc<str>,
    /// The new state; for a delete, the last state stamped with the
    /// delete's revision.
    pub object: Arc<StoredObject>,
    /// The state before this write, as it was stored.
    pub prev: Option<Arc<StoredObject>>,
    /// `prev` stamped with this event's revision, made once on demand (for
    /// watchers that see the object leave their selector) and shared.
    prev_restamped: OnceLock<Arc<StoredObject>>,
}

impl Event {
    pub fn new(
        revision: Revision,
        kind: EventKind,
        key: Arc<str>,
        object: Arc<StoredObject>,
        prev: Option<Arc<StoredObject>>,
    ) -> Event {
        Event { revision, kind, key, object, prev, prev_restamped: OnceLock::new() }
    }

    pub fn prev_at_event_revision(&self) -> Option<Arc<StoredObject>> {
        let prev = self.prev.as_ref()?;
        Some(self.prev_restamped.get_or_init(|| Arc::new(prev.restamped(self.revision))).clone())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    KeyExists {
        key: String,
    },
    NotFound {
        key: String,
    },
    /// A precondition on the key's current revision failed.
    Conflict {
        key: String,
        current: Revision,
    },
    /// The requested revision has been compacted away.
    Compacted {
        requested: Revision,
        compacted: Revision,
    },
    /// A list asked for a snapshot that has been compacted away (etcd's
    /// answer is the same; kube-apiserver words the list's differently).
    ListCompacted,
    /// The requested revision is newer than the newest one.
    FutureRevision {
        requested: Revision,
        current: Revision,
    },
    /// A watcher fell further behind than its buffer allows.
    TooFarBehind {
        cursor: Revision,
        head: Revision,
        limit: usize,
    },
    /// The write is larger than etcd takes in one request
    /// (`MAX_REQUEST_BYTES`): nothing was written; the object is handed
    /// back, so that the caller may try again without its managed fields,
    /// as kube-apiserver does.
    TooLarge {
        value: Box<serde_json::Value>,
    },
}

/// etcd's default `--max-request-bytes` (1.5 MiB), which kube-apiserver
/// meets as "etcdserver: request is too large". Here it applies to the key
/// and the object's stored JSON (kube-apiserver stores built-in kinds as
/// protobuf, which is smaller).
pub const MAX_REQUEST_BYTES: usize = 1536 * 1024;

impl StorageError {
    /// The error as a list met it.
    pub fn in_list(self) -> StorageError {
        match self {
            StorageError::Compacted { .. } => StorageError::ListCompacted,
            e => e,
        }
    }
}

/// Where a list page starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListStart {
    Beginning,
    /// Inclusive start key, relative to the prefix (from a continue token).
    At(String),
}

/// One page of a list at a snapshot revision.
#[derive(Debug)]
pub struct ListPage {
    pub revision: Revision,
    pub items: Vec<Arc<StoredObject>>,
    /// When more may follow: the key (relative to the prefix) to continue at.
    pub continue_at: Option<String>,
    /// Number of items after this page, when no filter was applied.
    pub remaining: Option<u64>,
}

/// How many bytes storage holds. etcd's database file grows with the
/// history it keeps and does not shrink when history is compacted (only a
/// defragmentation, which kubesim does not simulate, gives pages back):
/// `allocated` is the most `in_use` has been, in whole 4 KiB pages (the
/// page size of etcd's bbolt on Linux).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StorageSize {
    /// Keys and values of every retained version (a tombstone: its key).
    pub in_use: u64,
    pub allocated: u64,
}

impl StorageSize {
    /// bbolt's page size.
    pub const PAGE: u64 = 4096;

    fn grow(&mut self, bytes: u64) {
        self.in_use += bytes;
        let pages = self.in_use.div_ceil(Self::PAGE) * Self::PAGE;
        self.allocated = self.allocated.max(pages);
    }
}

/// A watch position: the next revision to deliver, within one key prefix.
#[derive(Clone, Debug)]
pub struct WatchCursor {
    pub prefix: String,
    pub next: Revision,
}

/// The storage contract; `tests/storage_conformance.rs` runs its suite
/// against any implementation.
pub trait Storage {
    /// The newest revision (0 before any write).
    fn revision(&self) -> Revision;
    /// Reads at revisions below this one fail with `Compacted`; watches
    /// must start at or after it.
    fn compacted(&self) -> Revision;
    /// The object at `key` as of `at`, with the revision it was written at.
    fn get(&self, key: &str, at: Revision) -> Result<Option<(Revision, Arc<StoredObject>)>, StorageError>;
    /// Whether any object lives under `prefix` now (one search: what a
    /// check that usually finds nothing should cost).
    fn has_live(&self, prefix: &str) -> bool;
    /// Up to `limit` objects under `prefix` (which ends in `/`) that pass
    /// `filter`, in key order, as of `at`.
    fn list(
        &self,
        prefix: &str,
        at: Revision,
        start: &ListStart,
        limit: Option<usize>,
        filter: Option<&dyn Fn(&StoredObject) -> bool>,
    ) -> Result<ListPage, StorageError>;
    fn create(
        &mut self,
        key: &str,
        obj: Value,
        attrs: ObjectAttrs,
        now: SimTime,
    ) -> Result<Arc<StoredObject>, StorageError>;
    /// Replaces the object; `expect` is a precondition on its current revision.
    fn update(
        &mut self,
        key: &str,
        expect: Option<Revision>,
        obj: Value,
        attrs: ObjectAttrs,
        now: SimTime,
    ) -> Result<Arc<StoredObject>, StorageError>;
    /// Removes the object; returns its last stored state.
    fn delete(&mut self, key: &str, expect: Option<Revision>, now: SimTime) -> Result<Arc<StoredObject>, StorageError>;
    /// Drops history older than `rev` (clamped to the newest revision);
    /// reads at `rev` itself still succeed, as in etcd.
    fn compact(&mut self, rev: Revision);
    /// The bytes history holds (for `apiserver_storage_size_bytes`).
    fn size(&self) -> StorageSize;
    /// The newest revision written at or before `t` (for time-based compaction).
    fn revision_at_time(&self, t: SimTime) -> Option<Revision>;
    /// Starts a watch that delivers events after `after`.
    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchCursor, StorageError>;
    /// Events for the cursor, at most `max`, advancing it.
    fn poll(&self, cursor: &mut WatchCursor, max: usize) -> Result<Vec<&Event>, StorageError>;
    /// Whether a key `matches` accepts was written after `after` (what a
    /// watch from `after` would deliver first, without making one).
    fn written_since(&self, after: Revision, matches: &dyn Fn(&str) -> bool) -> Result<bool, StorageError>;
}
