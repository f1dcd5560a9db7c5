//! An informer, as client-go's reflector and store: list a collection,
//! then watch it from the list's resourceVersion with bookmarks, keeping a
//! cache of every object; a watch that ends is resumed from the last
//! resourceVersion seen, and a 410 (history gone) starts over with a list.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;

use super::client::Client;
use crate::api::watch::WatchObject;
use crate::api::{StoredObject, WatchEvent, WatchEventType};
use crate::server::WatchStream;

/// Watch events' objects parsed once for every informer that receives
/// them (each informer has its own watch, but the server shares one stored
/// object among them): keyed by the stored object, which it keeps alive
/// until `clear` (the end of a settle).
#[derive(Default)]
pub struct ParseCache {
    parsed: HashMap<usize, (Arc<StoredObject>, Arc<Value>)>,
}

impl ParseCache {
    pub fn clear(&mut self) {
        self.parsed.clear();
    }

    /// The event's object, parsed.
    pub fn object(&mut self, e: &WatchEvent) -> Option<Arc<Value>> {
        match &e.object {
            WatchObject::Stored(stored) => {
                let key = Arc::as_ptr(stored) as usize;
                if let Some((_, v)) = self.parsed.get(&key) {
                    return Some(v.clone());
                }
                let v = stored.parsed()?;
                self.parsed.insert(key, (stored.clone(), v.clone()));
                Some(v)
            }
            WatchObject::Inline(bytes) => serde_json::from_slice::<Value>(bytes).ok().map(Arc::new),
        }
    }
}

/// The cache of one collection, kept current by `sync`.
pub struct Informer {
    /// The collection's path (`/api/v1/namespaces`, `/apis/apps/v1/deployments`),
    /// with a query when it selects (`?labelSelector=…`).
    pub path: String,
    /// Every object by `namespace/name` (cluster-scoped: `name`), shared
    /// with the other informers that saw the same version.
    objects: BTreeMap<String, Arc<Value>>,
    resource_version: String,
    stream: Option<WatchStream>,
    listed: bool,
    /// What changed since `take_changes` was last called: (before, after),
    /// kept only for an informer made `tracking` (shared, never copied).
    changes: Vec<Change>,
    track: bool,
}

/// One change an informer saw: the object before and after (None for
/// absent), shared with its cache.
pub type Change = (Option<Arc<Value>>, Option<Arc<Value>>);

/// An object's cache key.
pub fn key_of(obj: &Value) -> String {
    let meta = &obj["metadata"];
    let name = meta["name"].as_str().unwrap_or("");
    match meta["namespace"].as_str().filter(|ns| !ns.is_empty()) {
        Some(ns) => {
            // Concatenated by hand: a key per watch event.
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        None => name.to_string(),
    }
}

impl Informer {
    pub fn new(path: impl Into<String>) -> Informer {
        Informer {
            path: path.into(),
            objects: BTreeMap::new(),
            resource_version: String::new(),
            stream: None,
            listed: false,
            changes: Vec::new(),
            track: false,
        }
    }

    /// An informer that keeps what changed, for `take_changes`.
    pub fn tracking(path: impl Into<String>) -> Informer {
        Informer { track: true, ..Informer::new(path) }
    }

    fn record(&mut self, before: Option<Arc<Value>>, after: Option<Arc<Value>>) {
        if self.track {
            self.changes.push((before, after));
        }
    }

    pub fn objects(&self) -> impl Iterator<Item = &Value> {
        self.objects.values().map(|v| &**v)
    }

    /// The cached objects as shared values, for a controller that keeps
    /// them while it sends requests (a copy is a reference count).
    pub fn shared(&self) -> impl Iterator<Item = &Arc<Value>> {
        self.objects.values()
    }

    /// The cached objects of one namespace, in key order: a range of the
    /// cache (keys are `namespace/name`), not a pass over every object.
    pub fn in_namespace<'a>(&'a self, ns: &str) -> impl Iterator<Item = &'a Arc<Value>> + 'a {
        let from = format!("{ns}/");
        // '0' is the character after '/': the end of the namespace's keys.
        let to = format!("{ns}0");
        self.objects.range(from..to).map(|(_, v)| v)
    }

    /// One cached object as a shared value.
    pub fn shared_get(&self, key: &str) -> Option<&Arc<Value>> {
        self.objects.get(key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.objects.get(key).map(|v| &**v)
    }

    /// What changed since the last call, in the order it was seen:
    /// (the object before, the object after); None for absent.
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    /// Whether the first list has been read.
    pub fn has_synced(&self) -> bool {
        self.listed
    }

    /// Catches up with the server; whether anything in the cache changed.
    pub fn sync(&mut self, client: &mut Client<'_>) -> bool {
        let mut changed = false;
        if !self.listed {
            changed |= self.relist(client);
        }
        for _ in 0..3 {
            if self.stream.is_none() {
                let sep = if self.path.contains('?') { '&' } else { '?' };
                let target = format!(
                    "{}{sep}watch=true&allowWatchBookmarks=true&resourceVersion={}",
                    self.path, self.resource_version
                );
                match client.watch(&target) {
                    Ok(s) => self.stream = Some(s),
                    Err(_) => {
                        changed |= self.relist(client);
                        continue;
                    }
                }
            }
            let Some(stream) = self.stream.as_mut() else { break };
            let events = client.poll(stream);
            let done = stream.is_done();
            let mut expired = false;
            for e in events {
                let Some(obj) = client.parsed(&e) else { continue };
                let rv = obj["metadata"]["resourceVersion"].as_str().unwrap_or("").to_string();
                match e.event_type {
                    WatchEventType::Added | WatchEventType::Modified => {
                        self.resource_version = rv;
                        let before = self.objects.insert(key_of(&obj), obj.clone());
                        self.record(before, Some(obj));
                        changed = true;
                    }
                    WatchEventType::Deleted => {
                        self.resource_version = rv;
                        let before = self.objects.remove(&key_of(&obj));
                        self.record(before, None);
                        changed = true;
                    }
                    WatchEventType::Bookmark => self.resource_version = rv,
                    WatchEventType::Error => expired = obj["code"].as_i64() == Some(410),
                }
            }
            if expired {
                self.stream = None;
                changed |= self.relist(client);
                continue;
            }
            if done {
                // Resume from where it got to.
                self.stream = None;
                continue;
            }
            break;
        }
        changed
    }

    /// Lists the collection afresh (the first time, and after a 410).
    fn relist(&mut self, client: &mut Client<'_>) -> bool {
        let r = client.get(&self.path);
        if r.status != 200 {
            return false;
        }
        let mut list = r.json_body();
        let items = match list.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let mut before = std::mem::take(&mut self.objects);
        let mut changed = false;
        for item in items {
            let key = key_of(&item);
            let old = before.remove(&key);
            let item = Arc::new(item);
            if old.as_ref() != Some(&item) {
                changed = true;
                self.record(old, Some(item.clone()));
            }
            self.objects.insert(key, item);
        }
        changed |= !before.is_empty();
        for (_, old) in before {
            self.record(Some(old), None);
        }
        self.resource_version = list["metadata"]["resourceVersion"].as_str().unwrap_or("").to_string();
        self.stream = None;
        self.listed = true;
        changed
    }
}
