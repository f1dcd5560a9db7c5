//! The registry, shaped as k8s.io/apiserver's: the resources it serves
//! (`resource.rs`; built-in ones in `kinds.rs`, a file per kind with rules
//! under `kinds/`), a strategy per kind (`strategy.rs`), and one generic
//! store that offers every verb on any of them (`store.rs`, `store/`) over
//! a `Storage`. Around the store: typed options (`options.rs`), body
//! decoding and field validation (`decode.rs`), resourceVersions and their
//! answers (`resource_version.rs`), the storage key layout (`keys.rs`),
//! Table printing (`table.rs`) and the namespace lifecycle
//! (`namespace_lifecycle.rs`). Storage errors become `Status` in exactly one
//! function, `store::storage_status`.
//!
//! The registry's state is private: the server reads it through the views
//! below and changes it only through the verbs, the clock and compaction.

pub mod decode;
mod default_ingress_class;
mod default_storage_class;
pub mod keys;
pub mod kinds;
mod limit_ranger;
mod namespace_lifecycle;
pub mod options;
pub mod priority;
pub mod resource;
mod resource_quota;
pub mod resource_version;
pub mod schema_validation;
mod service_account_admission;
pub mod store;
pub mod strategy;
pub mod table;
pub mod validation;

use std::sync::Arc;

use crate::api::{Revision, WatchEventType};
use crate::clock::{NameGenerator, SeededRng, SimTime};
use crate::storage::{EventKind, MemStorage, Storage};

/// What storage holds, in bytes (read by the server for its metrics).
pub use crate::storage::StorageSize;

pub use resource::{Catalog, ResourceType, Side};

pub struct Registry<S: Storage = MemStorage> {
    storage: S,
    now: SimTime,
    rng: SeededRng,
    names: NameGenerator,
    resources: Catalog,
    /// Where Services' cluster IPs and node ports come from.
    service_ranges: crate::network::ServiceRanges,
    /// The custom resources served from stored definitions.
    custom: store::CustomResources,
    /// Whether any ResourceQuota lived at a revision (the quota admission's
    /// question on every write, answered again only when a quota was
    /// written since).
    quotas_at: std::cell::Cell<Option<(Revision, bool)>>,
    /// The namespace lifecycle admission's last look (asked on every
    /// namespaced create): looked again only when that namespace was
    /// written since.
    namespace_at: std::cell::RefCell<Option<namespace_lifecycle::Seen>>,
}

/// Where a restored registry stands (`Registry::restore`).
#[derive(Clone, Copy, Debug)]
pub struct RestorePoint {
    pub revision: Revision,
    pub compacted: Revision,
    /// The most bytes storage ever held.
    pub allocated: u64,
    pub rng: u64,
    pub now: SimTime,
}

/// One write of the event log: its storage key (`HistoryEntry::names`
/// reads it as a client names the object) and the resource it belongs to
/// (None for one no longer served). Shared with storage, not copied: a
/// page reload reads every retained write through here.
#[derive(Clone, Debug)]
pub struct HistoryEntry {
    pub revision: Revision,
    pub event_type: WatchEventType,
    pub key: Arc<str>,
    pub resource: Option<Arc<ResourceType>>,
}

impl HistoryEntry {
    /// The object's group, resource, namespace and name.
    pub fn names<'a>(&'a self, catalog: &Catalog) -> keys::ParsedKey<'a> {
        keys::parse(&self.key, catalog)
    }
}

/// Every write after a revision, as far back as history goes.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// Where the entries start (the compaction horizon, if it is later than
    /// what was asked for).
    pub from: Revision,
    pub entries: Vec<HistoryEntry>,
}

impl Registry<MemStorage> {
    /// A registry over in-memory storage serving the built-in resources.
    pub fn in_memory(seed: u64, now: SimTime) -> Registry<MemStorage> {
        Registry::new(MemStorage::new(), seed, now)
    }

    /// Where the uid and name source stands.
    pub fn rng_state(&self) -> u64 {
        self.rng.state()
    }

    /// The writes after `after` as a log (`storage::log`) appended to
    /// `out`; false when compaction dropped some of them.
    pub fn log_since(&self, after: Revision, out: &mut Vec<u8>) -> bool {
        self.storage.log_since(after, out)
    }

    /// The whole store as a log.
    pub fn dump(&self, out: &mut Vec<u8>) {
        self.storage.dump(out)
    }

    /// Rebuilds the store from logs written by `dump` and `log_since`,
    /// then compacts it as it was; the uid source and the time go on from
    /// where they stood. The served custom resources follow the stored
    /// definitions.
    pub fn restore(&mut self, logs: &[&[u8]], at: RestorePoint) -> Result<(), String> {
        for log in logs {
            self.storage.apply_log(log)?;
        }
        if self.storage.revision() != at.revision {
            return Err(format!(
                "the log ends at revision {}, the saved state at {}",
                self.storage.revision().0,
                at.revision.0
            ));
        }
        self.storage.finish_restore(at.compacted, at.allocated);
        self.quotas_at.set(None);
        self.namespace_at.replace(None);
        self.rng = SeededRng::new(at.rng);
        self.now = at.now;
        self.sync_custom_resources();
        Ok(())
    }
}

impl<S: Storage> Registry<S> {
    pub fn new(storage: S, seed: u64, now: SimTime) -> Self {
        Registry {
            storage,
            now,
            rng: SeededRng::new(seed),
            names: NameGenerator::default(),
            resources: kinds::builtin_catalog().clone(),
            service_ranges: Default::default(),
            custom: Default::default(),
            quotas_at: Default::default(),
            namespace_at: Default::default(),
        }
    }

    /// Where Services' cluster IPs and node ports come from.
    pub fn set_service_ranges(&mut self, ranges: crate::network::ServiceRanges) {
        self.service_ranges = ranges;
    }

    /// How `generateName` suffixes are drawn.
    pub fn set_name_generator(&mut self, names: NameGenerator) {
        self.names = names;
    }

    /// The simulated time writes are stamped with.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The newest revision.
    pub fn revision(&self) -> Revision {
        self.storage.revision()
    }

    /// Whether any object of the API group was written after `after` (for
    /// a cache of its objects; true when history no longer says).
    pub fn group_written_since(&self, group: &str, after: Revision) -> bool {
        if after == self.storage.revision() {
            return false;
        }
        // (Every request asks twice, for RBAC and for APF: no prefix made.)
        let segment = keys::group_segment(group);
        let in_group =
            |key: &str| key.strip_prefix('/').and_then(|k| k.strip_prefix(segment)).is_some_and(|k| k.starts_with('/'));
        self.storage.written_since(after, &in_group).unwrap_or(true)
    }

    /// The bytes storage holds.
    pub fn storage_size(&self) -> StorageSize {
        self.storage.size()
    }

    /// Reads below this revision answer 410.
    pub fn compacted(&self) -> Revision {
        self.storage.compacted()
    }

    /// The resources served.
    pub fn resources(&self) -> &Catalog {
        &self.resources
    }

    /// Serves another resource (a kind defined at run time).
    pub fn register(&mut self, rt: ResourceType) -> Result<Arc<ResourceType>, String> {
        self.resources.register(rt)
    }

    /// Moves simulated time forward (never backwards).
    pub fn set_time(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Compacts history up to `rev` (clamped to the newest revision).
    pub fn compact(&mut self, rev: Revision) {
        self.storage.compact(rev);
    }

    /// Compacts everything written before `t`.
    pub fn compact_before(&mut self, t: SimTime) {
        if let Some(rev) = self.storage.revision_at_time(t) {
            self.storage.compact(rev);
        }
    }

    /// The write log as storage sees it (like watching all of etcd's
    /// keyspace): up to `limit` entries after `after`, oldest first.
    pub fn history(&self, after: Revision, limit: usize) -> History {
        let from = after.max(self.storage.compacted());
        let mut entries = Vec::new();
        if let Ok(mut cursor) = self.storage.watch("/", from) {
            if let Ok(batch) = self.storage.poll(&mut cursor, limit) {
                entries.reserve(batch.len());
                for e in batch {
                    let k = keys::parse(&e.key, &self.resources);
                    let resource = self.resources.lookup_group_resource(k.group, k.resource).cloned();
                    entries.push(HistoryEntry {
                        revision: e.revision,
                        event_type: match e.kind {
                            EventKind::Created => WatchEventType::Added,
                            EventKind::Updated => WatchEventType::Modified,
                            EventKind::Deleted => WatchEventType::Deleted,
                        },
                        key: e.key.clone(),
                        resource,
                    });
                }
            }
        }
        History { from, entries }
    }
}
