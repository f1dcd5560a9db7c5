//! An informer, as client-go's reflector and store: list a collection,
//! then watch it from the list's resourceVersion with bookmarks, keeping a
//! cache of every object; a watch that ends is resumed from the last
//! resourceVersion seen, and a 410 (history gone) starts over with a list.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Deserializer};
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

/// What an informer keeps of each object, and how it reads it.
pub trait Cached: PartialEq + Sized {
    /// What its list and its watch ask for (`Accept`).
    const ACCEPT_LIST: &'static str;
    const ACCEPT_WATCH: &'static str;
    /// `namespace/name`, or `name` for a cluster-scoped object.
    fn key(&self) -> String;
    fn resource_version(&self) -> &str;
    /// A list's resourceVersion and items.
    fn read_list(body: &[u8]) -> Option<(String, Vec<Self>)>;
    /// A watch event's object (not an ERROR's).
    fn read_event(client: &mut Client<'_>, e: &WatchEvent) -> Option<Arc<Self>>;
}

/// Whole objects, as JSON values (parsed once for every informer that
/// receives them, through the client's parse cache).
impl Cached for Value {
    const ACCEPT_LIST: &'static str = "application/json";
    const ACCEPT_WATCH: &'static str = "application/json";

    fn key(&self) -> String {
        key_of(self)
    }

    fn resource_version(&self) -> &str {
        self["metadata"]["resourceVersion"].as_str().unwrap_or("")
    }

    fn read_list(body: &[u8]) -> Option<(String, Vec<Value>)> {
        let mut list: Value = serde_json::from_slice(body).ok()?;
        let rv = list["metadata"]["resourceVersion"].as_str().unwrap_or("").to_string();
        match list.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => Some((rv, items)),
            _ => Some((rv, Vec::new())),
        }
    }

    fn read_event(client: &mut Client<'_>, e: &WatchEvent) -> Option<Arc<Value>> {
        client.parsed(e)
    }
}

/// An object as a metadata informer keeps it (client-go's metadata
/// informers, which the garbage collector uses upstream): the server
/// answers PartialObjectMetadata, and of that these fields are kept. The
/// rest (labels, annotations, managedFields…) is skipped as it is read,
/// as kube-controller-manager's informers drop managedFields.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Metadata {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub uid: String,
    #[serde(deserialize_with = "nullable")]
    pub resource_version: String,
    pub deletion_timestamp: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub finalizers: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub owner_references: Vec<Value>,
}

/// A field written as null reads as its default.
fn nullable<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A PartialObjectMetadata (or any object) read for its metadata.
#[derive(Deserialize)]
struct PartialObject {
    #[serde(default, deserialize_with = "nullable")]
    metadata: Metadata,
}

#[derive(Deserialize)]
struct PartialList {
    #[serde(default, deserialize_with = "nullable")]
    metadata: Metadata,
    #[serde(default, deserialize_with = "nullable")]
    items: Vec<PartialObject>,
}

impl Cached for Metadata {
    const ACCEPT_LIST: &'static str =
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    const ACCEPT_WATCH: &'static str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

    fn key(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    fn resource_version(&self) -> &str {
        &self.resource_version
    }

    fn read_list(body: &[u8]) -> Option<(String, Vec<Metadata>)> {
        let list: PartialList = serde_json::from_slice(body).ok()?;
        Some((list.metadata.resource_version, list.items.into_iter().map(|i| i.metadata).collect()))
    }

    fn read_event(_: &mut Client<'_>, e: &WatchEvent) -> Option<Arc<Metadata>> {
        serde_json::from_slice::<PartialObject>(e.object_json()).ok().map(|o| Arc::new(o.metadata))
    }
}

/// The cache of one collection, kept current by `sync`: whole objects
/// (`Informer`), or their metadata (`Informer<Metadata>`).
pub struct Informer<T = Value> {
    /// The collection's path (`/api/v1/namespaces`, `/apis/apps/v1/deployments`),
    /// with a query when it selects (`?labelSelector=…`).
    pub path: String,
    /// Every object by `namespace/name` (cluster-scoped: `name`), shared
    /// with the other informers that saw the same version.
    objects: BTreeMap<String, Arc<T>>,
    resource_version: String,
    stream: Option<WatchStream>,
    listed: bool,
    /// What changed since `take_changes` was last called: (before, after),
    /// kept only for an informer made `tracking` (shared, never copied).
    changes: Vec<Change<T>>,
    track: bool,
}

/// One change an informer saw: the object before and after (None for
/// absent), shared with its cache.
pub type Change<T = Value> = (Option<Arc<T>>, Option<Arc<T>>);

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

impl Informer<Value> {
    pub fn new(path: impl Into<String>) -> Informer {
        Informer::of(path, false)
    }

    /// An informer that keeps what changed, for `take_changes`.
    pub fn tracking(path: impl Into<String>) -> Informer {
        Informer::of(path, true)
    }
}

impl Informer<Metadata> {
    /// A tracking informer of the collection's metadata.
    pub fn metadata(path: impl Into<String>) -> Informer<Metadata> {
        Informer::of(path, true)
    }
}

/// The `code` of an ERROR event's Status.
#[derive(Deserialize)]
struct ErrorCode {
    #[serde(default)]
    code: Option<i64>,
}

impl<T: Cached> Informer<T> {
    fn of(path: impl Into<String>, track: bool) -> Informer<T> {
        Informer {
            path: path.into(),
            objects: BTreeMap::new(),
            resource_version: String::new(),
            stream: None,
            listed: false,
            changes: Vec::new(),
            track,
        }
    }

    fn record(&mut self, before: Option<Arc<T>>, after: Option<Arc<T>>) {
        if self.track {
            self.changes.push((before, after));
        }
    }

    pub fn objects(&self) -> impl Iterator<Item = &T> {
        self.objects.values().map(|v| &**v)
    }

    /// The cached objects as shared values, for a controller that keeps
    /// them while it sends requests (a copy is a reference count).
    pub fn shared(&self) -> impl Iterator<Item = &Arc<T>> {
        self.objects.values()
    }

    /// The cached objects of one namespace, in key order: a range of the
    /// cache (keys are `namespace/name`), not a pass over every object.
    pub fn in_namespace<'a>(&'a self, ns: &str) -> impl Iterator<Item = &'a Arc<T>> + 'a {
        let from = format!("{ns}/");
        // '0' is the character after '/': the end of the namespace's keys.
        let to = format!("{ns}0");
        self.objects.range(from..to).map(|(_, v)| v)
    }

    /// One cached object as a shared value.
    pub fn shared_get(&self, key: &str) -> Option<&Arc<T>> {
        self.objects.get(key)
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.objects.get(key).map(|v| &**v)
    }

    /// What changed since the last call, in the order it was seen:
    /// (the object before, the object after); None for absent.
    pub fn take_changes(&mut self) -> Vec<Change<T>> {
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
                match client.watch_as(&target, T::ACCEPT_WATCH) {
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
                if e.event_type == WatchEventType::Error {
                    let code = serde_json::from_slice::<ErrorCode>(e.object_json()).ok().and_then(|c| c.code);
                    expired = code == Some(410);
                    continue;
                }
                let Some(obj) = T::read_event(client, &e) else { continue };
                self.resource_version = obj.resource_version().to_string();
                match e.event_type {
                    WatchEventType::Added | WatchEventType::Modified => {
                        let before = self.objects.insert(obj.key(), obj.clone());
                        self.record(before, Some(obj));
                        changed = true;
                    }
                    WatchEventType::Deleted => {
                        let before = self.objects.remove(&obj.key());
                        self.record(before, None);
                        changed = true;
                    }
                    WatchEventType::Bookmark | WatchEventType::Error => {}
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
        let r = client.get_as(&self.path, T::ACCEPT_LIST);
        if r.status != 200 {
            return false;
        }
        let Some((resource_version, items)) = T::read_list(&r.body) else { return false };
        let mut before = std::mem::take(&mut self.objects);
        let mut changed = false;
        for item in items {
            let key = item.key();
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
        self.resource_version = resource_version;
        self.stream = None;
        self.listed = true;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_keeps_what_controllers_read_and_skips_the_rest() {
        let list = br#"{"kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"9"},"items":[
            {"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"5",
              "labels":{"x":"y"},"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}],
              "finalizers":["orphan"],"ownerReferences":[{"uid":"o","kind":"ReplicaSet"}],
              "deletionTimestamp":"2023-11-14T22:13:20Z"}},
            {"metadata":{"name":"n","finalizers":null,"ownerReferences":null}}]}"#;
        let (rv, items) = Metadata::read_list(list).unwrap();
        assert_eq!(rv, "9");
        assert_eq!(items[0].key(), "ns/a");
        assert_eq!(items[0].resource_version(), "5");
        assert_eq!(items[0].finalizers, ["orphan"]);
        assert_eq!(items[0].owner_references[0]["uid"], "o");
        assert_eq!(items[0].deletion_timestamp.as_deref(), Some("2023-11-14T22:13:20Z"));
        assert_eq!(items[1], Metadata { name: "n".into(), ..Metadata::default() });
        assert_eq!(items[1].key(), "n");
        assert!(Metadata::read_list(b"[1]").is_none());
    }
}
