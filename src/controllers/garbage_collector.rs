//! The garbage collector (kube-controller-manager's
//! `garbage-collector`): ownerReferences made to mean something. It keeps
//! a graph of every object of every resource that can be listed, watched
//! and deleted (events excepted), built from its informers, and works
//! through the objects that changed:
//!
//! - an object whose owners are all gone (a GET of each by name answers
//!   404, or another uid) is deleted, with preconditions on its uid and
//!   resourceVersion, propagating as its own finalizers say (Background by
//!   default); one with an owner left loses only its dangling references;
//! - an owner being deleted with the `orphan` finalizer: each dependent
//!   loses its reference to it (a strategic merge patch whose `uid` is the
//!   precondition), then the finalizer is removed (a merge patch carrying
//!   the resourceVersion);
//! - an owner being deleted with `foregroundDeletion`: each dependent with
//!   no other owner standing is deleted (Foreground if it has dependents of
//!   its own), one with another owner loses its reference instead, and
//!   once none with `blockOwnerDeletion: true` remains the finalizer is
//!   removed.
//!
//! Upstream works through its queues with 20 workers in no fixed order;
//! here the queue is worked in uid order until it is empty.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{ApiResource, Client};
use super::informer::{Informer, Metadata};
use super::{Controller, Progress};

const ORPHAN: &str = "orphan";
const FOREGROUND: &str = "foregroundDeletion";

/// What the graph knows of one object: its resource and its metadata as
/// the informer read it (shared with the informer's cache).
#[derive(Clone, Debug)]
struct Node {
    resource: usize,
    meta: Arc<Metadata>,
}

impl Node {
    fn deleting(&self) -> bool {
        self.meta.deletion_timestamp.is_some()
    }

    fn owners(&self) -> &[Value] {
        &self.meta.owner_references
    }

    fn has_finalizer(&self, f: &str) -> bool {
        self.meta.finalizers.iter().any(|x| x == f)
    }
}

#[derive(Default)]
pub struct GarbageCollector {
    resources: Vec<ApiResource>,
    informers: Vec<Informer<Metadata>>,
    started: bool,
    nodes: BTreeMap<String, Node>,
    /// owner uid → the uids of objects that name it.
    dependents: BTreeMap<String, BTreeSet<String>>,
    /// uids to look at.
    queue: BTreeSet<String>,
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn uid_of(v: &Value) -> &str {
    v["metadata"]["uid"].as_str().unwrap_or("")
}

fn owner_uids(owners: &[Value]) -> Vec<String> {
    owners.iter().filter_map(|o| o["uid"].as_str()).map(str::to_string).collect()
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector"
    }

    fn service_account(&self) -> &'static str {
        "generic-garbage-collector"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if !self.started {
            self.resources = client
                .discover()
                .into_iter()
                .filter(|r| {
                    ["delete", "list", "watch"].iter().all(|v| r.serves(v))
                        && !(r.resource == "events" && (r.group.is_empty() || r.group == "events.k8s.io"))
                })
                .collect();
            self.informers = self.resources.iter().map(|r| Informer::metadata(r.collection(None))).collect();
            self.started = true;
        }
        for i in 0..self.informers.len() {
            self.informers[i].sync(client);
            for (old, new) in self.informers[i].take_changes() {
                self.observe(i, old, new);
            }
        }
        while let Some(uid) = self.queue.pop_first() {
            self.attempt(client, &uid);
        }
        Progress { writes: client.writes - before }
    }
}

impl GarbageCollector {
    /// Brings the graph up to date with one change and queues what it
    /// touches.
    fn observe(&mut self, resource: usize, old: Option<Arc<Metadata>>, new: Option<Arc<Metadata>>) {
        if let Some(old) = &old {
            let uid = &old.uid;
            if let Some(node) = self.nodes.remove(uid) {
                for o in owner_uids(node.owners()) {
                    if let Some(d) = self.dependents.get_mut(&o) {
                        d.remove(uid);
                    }
                    // A foreground owner may have been waiting for it.
                    self.queue.insert(o);
                }
            }
            if new.is_none() {
                // Its dependents lost an owner.
                for d in self.dependents.get(uid).into_iter().flatten() {
                    self.queue.insert(d.clone());
                }
            }
        }
        if let Some(meta) = new {
            let uid = meta.uid.clone();
            let node = Node { resource, meta };
            for o in owner_uids(node.owners()) {
                self.dependents.entry(o.clone()).or_default().insert(uid.clone());
                self.queue.insert(o);
            }
            // An object with no owner that is not being deleted gives
            // `attempt` nothing to do: it is in the graph, not the queue.
            let idle = !node.deleting() && node.owners().is_empty();
            if idle {
                self.nodes.insert(uid, node);
            } else {
                self.nodes.insert(uid.clone(), node);
                self.queue.insert(uid);
            }
        }
    }

    fn path_of(&self, node: &Node) -> String {
        self.resources[node.resource].item(&node.meta.namespace, &node.meta.name)
    }

    /// The resource an ownerReference names (by apiVersion and kind).
    fn resource_for(&self, owner: &Value) -> Option<&ApiResource> {
        let (api_version, kind) = (owner["apiVersion"].as_str()?, owner["kind"].as_str()?);
        self.resources.iter().find(|r| r.kind == kind && r.api_version() == api_version)
    }

    fn attempt(&mut self, client: &mut Client<'_>, uid: &str) {
        let Some(node) = self.nodes.get(uid).cloned() else { return };
        if node.deleting() {
            if node.has_finalizer(ORPHAN) {
                self.orphan_dependents(client, uid, &node);
            } else if node.has_finalizer(FOREGROUND) {
                self.delete_dependents_first(client, uid, &node);
            }
            return;
        }
        self.collect_if_owners_gone(client, uid, &node);
    }

    /// Whether an owner still exists: in the graph with its uid, or (not
    /// seen) by a live GET.
    fn owner_exists(&self, client: &mut Client<'_>, dependent: &Node, owner: &Value) -> Option<bool> {
        let owner_uid = owner["uid"].as_str().unwrap_or("");
        if self.nodes.contains_key(owner_uid) {
            return Some(true);
        }
        let r = self.resource_for(owner)?;
        let name = owner["name"].as_str().unwrap_or("");
        let resp = client.get(&r.item(&dependent.meta.namespace, name));
        match resp.status {
            404 => Some(false),
            200 => Some(uid_of(&resp.json_body()) == owner_uid),
            _ => None,
        }
    }

    fn collect_if_owners_gone(&mut self, client: &mut Client<'_>, uid: &str, node: &Node) {
        let mut dangling = Vec::new();
        let mut solid = 0;
        for owner in node.owners() {
            match self.owner_exists(client, node, owner) {
                Some(true) => solid += 1,
                Some(false) => dangling.push(owner["uid"].as_str().unwrap_or("").to_string()),
                // An owner whose kind is unknown: left alone, as upstream.
                None => return,
            }
        }
        if dangling.is_empty() {
            return;
        }
        let path = self.path_of(node);
        if solid > 0 {
            let refs: Vec<Value> = dangling.iter().map(|u| json!({"$patch": "delete", "uid": u})).collect();
            let body = json!({"metadata": {"uid": uid, "ownerReferences": refs}});
            client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
            return;
        }
        let current = client.get(&path);
        if current.status != 200 {
            return;
        }
        let obj = current.json_body();
        let finalizers = str_list(&obj["metadata"]["finalizers"]);
        let policy = if finalizers.iter().any(|f| f == ORPHAN) {
            "Orphan"
        } else if finalizers.iter().any(|f| f == FOREGROUND) {
            "Foreground"
        } else {
            "Background"
        };
        let body = json!({"kind": "DeleteOptions", "apiVersion": "v1",
            "preconditions": {"uid": uid, "resourceVersion": obj["metadata"]["resourceVersion"]},
            "propagationPolicy": policy});
        client.write("DELETE", &path, "application/json", &body);
    }

    fn orphan_dependents(&mut self, client: &mut Client<'_>, uid: &str, node: &Node) {
        let dependents: Vec<String> = self.dependents.get(uid).into_iter().flatten().cloned().collect();
        for d in dependents {
            let Some(dep) = self.nodes.get(&d).cloned() else { continue };
            let body = json!({"metadata": {"uid": d, "ownerReferences": [{"$patch": "delete", "uid": uid}]}});
            client.write("PATCH", &self.path_of(&dep), "application/strategic-merge-patch+json", &body);
        }
        remove_finalizer(client, &self.path_of(node), ORPHAN);
    }

    /// An owner in foreground deletion: each dependent is looked at as
    /// upstream's `attemptToDeleteItem` does once its owner waits for
    /// it. One with another owner that stands loses its references to the
    /// owners that are gone or waiting; one without is deleted (Foreground
    /// if it has dependents of its own, else as its finalizers say). Once
    /// no dependent blocks the owner, its finalizer is removed.
    fn delete_dependents_first(&mut self, client: &mut Client<'_>, uid: &str, node: &Node) {
        let dependents: Vec<String> = self.dependents.get(uid).into_iter().flatten().cloned().collect();
        let mut blocking = 0;
        for d in dependents {
            let Some(dep) = self.nodes.get(&d).cloned() else { continue };
            let blocks = dep
                .owners()
                .iter()
                .any(|o| o["uid"].as_str() == Some(uid) && o["blockOwnerDeletion"].as_bool() == Some(true));
            if blocks {
                blocking += 1;
            }
            if dep.deleting() {
                continue;
            }
            let mut solid = false;
            let mut unneeded = Vec::new();
            for owner in dep.owners() {
                let owner_uid = owner["uid"].as_str().unwrap_or("").to_string();
                match self.nodes.get(&owner_uid) {
                    Some(o) if o.deleting() && o.has_finalizer(FOREGROUND) => unneeded.push(owner_uid),
                    Some(_) => solid = true,
                    None => match self.owner_exists(client, &dep, owner) {
                        Some(false) => unneeded.push(owner_uid),
                        _ => solid = true,
                    },
                }
            }
            let path = self.path_of(&dep);
            if solid {
                let refs: Vec<Value> = unneeded.iter().map(|u| json!({"$patch": "delete", "uid": u})).collect();
                let body = json!({"metadata": {"uid": d, "ownerReferences": refs}});
                client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
                continue;
            }
            let has_dependents = self.dependents.get(&d).is_some_and(|s| !s.is_empty());
            let policy = if has_dependents || dep.has_finalizer(FOREGROUND) {
                "Foreground"
            } else if dep.has_finalizer(ORPHAN) {
                "Orphan"
            } else {
                "Background"
            };
            let body = json!({"kind": "DeleteOptions", "apiVersion": "v1",
                "preconditions": {"uid": d}, "propagationPolicy": policy});
            client.write("DELETE", &path, "application/json", &body);
        }
        if blocking == 0 {
            remove_finalizer(client, &self.path_of(node), FOREGROUND);
        }
    }
}

/// Removes one finalizer: a GET, then a merge patch carrying the
/// resourceVersion it read and the finalizers that remain (null for none).
fn remove_finalizer(client: &mut Client<'_>, path: &str, finalizer: &str) {
    let r = client.get(path);
    if r.status != 200 {
        return;
    }
    let obj = r.json_body();
    let remaining: Vec<String> =
        str_list(&obj["metadata"]["finalizers"]).into_iter().filter(|f| f != finalizer).collect();
    if remaining.len() == str_list(&obj["metadata"]["finalizers"]).len() {
        return;
    }
    let finalizers = if remaining.is_empty() { Value::Null } else { json!(remaining) };
    let body = json!({"metadata": {"resourceVersion": obj["metadata"]["resourceVersion"], "finalizers": finalizers}});
    client.write("PATCH", path, "application/merge-patch+json", &body);
}
