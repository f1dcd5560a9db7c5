//! MVCC storage, modelled on etcd's: one global revision counter (the
//! resourceVersion), per-key history with tombstones, snapshot reads at a
//! revision, an event log that drives watches, and compaction.
//!
//! Storage knows objects only as JSON with `metadata.resourceVersion`
//! (which it stamps on every write, like upstream's versioner) plus the
//! attributes selectors look at. It knows nothing of kinds or HTTP.

pub mod continue_token;
pub mod key_index;
pub mod memory;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::api::Revision;
use crate::clock::SimTime;

pub use memory::MemStorage;

/// What selectors can see of an object, computed once per write and kept
/// compact (boxed slices); versions whose attributes did not change share
/// one copy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectAttrs {
    pub labels: Box<[(Box<str>, Box<str>)]>,
    pub fields: Box<[(&'static str, Box<str>)]>,
}

impl ObjectAttrs {
    pub fn new(labels: Vec<(String, String)>, fields: Vec<(&'static str, String)>) -> ObjectAttrs {
        ObjectAttrs {
            labels: labels.into_iter().map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str())).collect(),
            fields: fields.into_iter().map(|(k, v)| (k, v.into_boxed_str())).collect(),
        }
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| *k == name).map(|(_, v)| &**v)
    }
}

/// One stored version of an object: its JSON (resourceVersion included)
/// and its selector attributes.
#[derive(Debug, PartialEq)]
pub struct StoredObject {
    pub json: Box<[u8]>,
    pub attrs: Arc<ObjectAttrs>,
}

impl StoredObject {
    /// Whether the object passes label and field selectors.
    pub fn selected_by(&self, label: &crate::selector::LabelSelector, field: &crate::selector::FieldSelector) -> bool {
        label.matches_fn(|k| self.attrs.label(k)) && field.matches(|f| self.attrs.field(f))
    }

    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.json).unwrap_or(Value::Null)
    }

    /// Serializes `obj` with `metadata.resourceVersion` set to `rev`.
    pub fn encode(obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>) -> StoredObject {
        Self::encode_with(obj, rev, attrs, &mut Vec::new())
    }

    /// As `encode`, serializing through a reusable scratch buffer so the
    /// stored bytes take exactly one allocation of exactly their size.
    pub fn encode_with(mut obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>, scratch: &mut Vec<u8>) -> StoredObject {
        crate::api::meta::metadata_mut(&mut obj).insert("resourceVersion".into(), Value::String(rev.to_string()));
        scratch.clear();
        crate::api::meta::write_canonical_json(&obj, scratch);
        StoredObject { json: Box::from(scratch.as_slice()), attrs }
    }

    /// The same object stamped with another resourceVersion.
    pub fn restamped(&self, rev: Revision) -> StoredObject {
        StoredObject::encode(self.value(), rev, self.attrs.clone())
    }
}

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
    /// The newest revision written at or before `t` (for time-based compaction).
    fn revision_at_time(&self, t: SimTime) -> Option<Revision>;
    /// Starts a watch that delivers events after `after`.
    fn watch(&self, prefix: &str, after: Revision) -> Result<WatchCursor, StorageError>;
    /// Events for the cursor, at most `max`, advancing it.
    fn poll(&self, cursor: &mut WatchCursor, max: usize) -> Result<Vec<&Event>, StorageError>;
}
