//! The StatefulSet controller (kube-controller-manager's `statefulset`),
//! a client: pods with stable names and claims.
//!
//! - Pod `<set>-<ordinal>` for ordinals 0 … replicas−1 (from
//!   `spec.ordinals.start`), labelled `controller-revision-hash:
//!   <set>-<hash>`, `statefulset.kubernetes.io/pod-name` and
//!   `apps.kubernetes.io/pod-index`, with `hostname` and `subdomain`
//!   (`serviceName`); each `volumeClaimTemplates` entry becomes a claim
//!   `<template>-<set>-<ordinal>` (made first, kept after) mounted as that
//!   volume.
//! - OrderedReady: one pod at a time, each only once every lower ordinal
//!   is Running and Ready; surplus pods go from the highest ordinal down,
//!   one at a time. Parallel: all at once.
//! - RollingUpdate: pods of an old revision at or above `partition` are
//!   deleted from the highest ordinal down, one at a time, each once the
//!   others are Ready, and come back at the new revision; OnDelete waits.
//! - The status (replicas, ready, current, updated, available, the two
//!   revisions, observedGeneration, collisionCount) through `/status`;
//!   events as upstream words them ("create Pod web-0 in StatefulSet web
//!   successful", "create Claim www-web-0 Pod web-0 in StatefulSet web
//!   success").
//!
//! - Its history as upstream keeps it (`getStatefulSetRevisions`): a
//!   ControllerRevision per template, named `<set>-<hash>` (the FNV-1 hash
//!   of the stored patch and the collision count; a name taken by other
//!   data counts a collision), labelled `controller.kubernetes.io/hash`;
//!   a template that returns to an older revision renumbers it the newest
//!   instead of making another; revisions no pod uses beyond
//!   `revisionHistoryLimit` (default 10) are deleted, oldest first.

use crate::sort::Order;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::backoff::Backoff;
use super::client::Client;
use super::events::{EventType, Recorder};
use super::history;
use super::informer::Informer;
use super::object::{collection, controller_of, int, is_ready, meta_str, owner_reference};
use super::{Controller, Progress};
use crate::clock::SimTime;

const REVISION_LABEL: &str = "controller-revision-hash";

pub struct StatefulSetController {
    sets: Informer,
    pods: Informer,
    claims: Informer,
    revisions: Informer,
    recorder: Recorder,
    /// StatefulSets whose pods the server refused, and when to try again.
    failing: Backoff,
}

impl Default for StatefulSetController {
    fn default() -> Self {
        StatefulSetController {
            sets: Informer::new("/apis/apps/v1/statefulsets"),
            pods: Informer::new("/api/v1/pods"),
            claims: Informer::new("/api/v1/persistentvolumeclaims"),
            revisions: Informer::new("/apis/apps/v1/controllerrevisions"),
            recorder: Recorder::new("statefulset-controller", ""),
            failing: Backoff::default(),
        }
    }
}

impl Controller for StatefulSetController {
    fn name(&self) -> &'static str {
        "statefulset"
    }

    fn service_account(&self) -> &'static str {
        "statefulset-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed =
            self.sets.sync(client) | self.pods.sync(client) | self.claims.sync(client) | self.revisions.sync(client);
        let now = SimTime(client.now_millis());
        if changed || self.failing.due(now) {
            let sets: Vec<Arc<Value>> = self.sets.shared().cloned().collect();
            for set in sets {
                self.failing.begin();
                if set["metadata"]["deletionTimestamp"].is_null() {
                    self.sync(client, &set);
                }
                self.failing.end(meta_str(&set, "uid"), now);
            }
            self.failing.forget_gone(&self.sets);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.failing.next_wake()
    }
}

fn running_and_ready(pod: &Value) -> bool {
    pod["status"]["phase"] == "Running" && is_ready(pod) && pod["metadata"]["deletionTimestamp"].is_null()
}

impl StatefulSetController {
    fn event(&mut self, client: &mut Client<'_>, set: &Value, event_type: EventType, reason: &str, message: String) {
        self.recorder.event(client, set, ("apps/v1", "StatefulSet"), "", event_type, reason, &message);
    }

    fn pod_for(&self, set: &Value, ordinal: i64, revision: &str) -> Value {
        let name = format!("{}-{ordinal}", meta_str(set, "name"));
        let template = &set["spec"]["template"];
        let mut labels = template["metadata"]["labels"].as_object().cloned().unwrap_or_default();
        labels.insert(REVISION_LABEL.into(), json!(revision));
        labels.insert("statefulset.kubernetes.io/pod-name".into(), json!(name));
        labels.insert("apps.kubernetes.io/pod-index".into(), json!(ordinal.to_string()));
        let mut metadata = json!({"name": name, "namespace": meta_str(set, "namespace"), "labels": labels,
            "ownerReferences": [owner_reference(set, "apps/v1", "StatefulSet")]});
        if let Some(a) = template["metadata"].get("annotations").filter(|v| !v.is_null()) {
            metadata["annotations"] = a.clone();
        }
        let mut spec = template["spec"].clone();
        spec["hostname"] = json!(name);
        if let Some(service) = set["spec"]["serviceName"].as_str().filter(|s| !s.is_empty()) {
            spec["subdomain"] = json!(service);
        }
        let mut volumes: Vec<Value> = spec["volumes"].as_array().cloned().unwrap_or_default();
        for t in set["spec"]["volumeClaimTemplates"].as_array().into_iter().flatten() {
            let vol = meta_str(t, "name");
            volumes.retain(|v| v["name"] != vol);
            volumes.push(json!({"name": vol, "persistentVolumeClaim": {"claimName": format!("{vol}-{name}")}}));
        }
        if !volumes.is_empty() {
            spec["volumes"] = json!(volumes);
        }
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    }

    /// The claims of a pod, made when missing.
    fn ensure_claims(&mut self, client: &mut Client<'_>, set: &Value, pod_name: &str) -> bool {
        let ns = meta_str(set, "namespace");
        let mut ok = true;
        for t in set["spec"]["volumeClaimTemplates"].as_array().cloned().unwrap_or_default() {
            let claim = format!("{}-{pod_name}", meta_str(&t, "name"));
            if self.claims.get(&format!("{ns}/{claim}")).is_some() {
                continue;
            }
            let mut labels = set["spec"]["selector"]["matchLabels"].as_object().cloned().unwrap_or_default();
            if let Some(l) = t["metadata"]["labels"].as_object() {
                labels.extend(l.clone());
            }
            let body = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim, "namespace": ns, "labels": labels}, "spec": t["spec"]});
            let r = client.write("POST", &collection("v1", ns, "persistentvolumeclaims"), "application/json", &body);
            let set_name = meta_str(set, "name");
            if r.status == 201 {
                let message = format!("create Claim {claim} Pod {pod_name} in StatefulSet {set_name} success");
                self.event(client, set, EventType::Normal, "SuccessfulCreate", message);
            } else if r.status != 409 {
                ok = false;
            }
        }
        ok
    }

    fn sync(&mut self, client: &mut Client<'_>, set: &Value) {
        let (ns, uid, set_name) = (meta_str(set, "namespace"), meta_str(set, "uid"), meta_str(set, "name"));
        let Some((revision, collisions)) = self.update_revision(client, set) else { return };
        let replicas = int(set, "/spec/replicas").max(0);
        let start = int(set, "/spec/ordinals/start").max(0);
        let parallel = set["spec"]["podManagementPolicy"] == "Parallel";
        let prefix = format!("{set_name}-");
        // Owned pods by ordinal.
        let mut pods: Vec<(i64, Value)> = self
            .pods
            .objects()
            .filter(|p| meta_str(p, "namespace") == ns)
            .filter(|p| controller_of(p).is_some_and(|c| c["uid"].as_str() == Some(uid)))
            .filter_map(|p| meta_str(p, "name").strip_prefix(&prefix)?.parse::<i64>().ok().map(|o| (o, p.clone())))
            .collect();
        pods.order_by_key(|(o, _)| *o);
        let pods_path = collection("v1", ns, "pods");
        let wanted = start..start + replicas;
        let mut blocked = false;
        // Create the missing, in order.
        for ordinal in wanted.clone() {
            let existing = pods.iter().find(|(o, _)| *o == ordinal).map(|(_, p)| p);
            match existing {
                Some(p) => {
                    if !parallel && !running_and_ready(p) {
                        blocked = true;
                        break;
                    }
                }
                None => {
                    let pod = self.pod_for(set, ordinal, &revision);
                    let name = meta_str(&pod, "name").to_string();
                    if !self.ensure_claims(client, set, &name) {
                        blocked = true;
                        break;
                    }
                    let r = client.write("POST", &pods_path, "application/json", &pod);
                    if r.status == 201 {
                        let message = format!("create Pod {name} in StatefulSet {set_name} successful");
                        self.event(client, set, EventType::Normal, "SuccessfulCreate", message);
                    } else if r.status != 409 {
                        let why = r.json_body()["message"].as_str().unwrap_or("").to_string();
                        let message = format!("create Pod {name} in StatefulSet {set_name} failed error: {why}");
                        self.event(client, set, EventType::Warning, "FailedCreate", message);
                        self.failing.fail();
                        blocked = true;
                        break;
                    }
                    if !parallel {
                        blocked = true;
                        break;
                    }
                }
            }
        }
        let delete = |client: &mut Client<'_>, pod: &Value| {
            let body =
                json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": meta_str(pod, "uid")}});
            client.write("DELETE", &format!("{pods_path}/{}", meta_str(pod, "name")), "application/json", &body).status
                == 200
        };
        // Surplus pods, highest ordinal first.
        let all_ready = pods.iter().filter(|(o, _)| wanted.contains(o)).all(|(_, p)| running_and_ready(p));
        for (ordinal, pod) in pods.iter().rev().filter(|(o, _)| !wanted.contains(o)) {
            if !parallel && !all_ready {
                break;
            }
            if delete(client, pod) {
                let message = format!("delete Pod {set_name}-{ordinal} in StatefulSet {set_name} successful");
                self.event(client, set, EventType::Normal, "SuccessfulDelete", message);
            }
            if !parallel {
                break;
            }
        }
        // Roll out a new revision, highest ordinal first.
        let rolling = set["spec"]["updateStrategy"]["type"].as_str().unwrap_or("RollingUpdate") == "RollingUpdate";
        let partition = int(set, "/spec/updateStrategy/rollingUpdate/partition");
        if rolling && !blocked && all_ready {
            let stale = pods
                .iter()
                .rev()
                .filter(|(o, _)| wanted.contains(o) && *o >= partition)
                .find(|(_, p)| p["metadata"]["labels"][REVISION_LABEL] != revision.as_str());
            if let Some((ordinal, pod)) = stale {
                if delete(client, pod) {
                    let message = format!("delete Pod {set_name}-{ordinal} in StatefulSet {set_name} successful");
                    self.event(client, set, EventType::Normal, "SuccessfulDelete", message);
                }
            }
        }
        self.truncate_history(client, set, &pods, &revision);
        self.write_status(client, set, &pods, &revision, collisions);
    }

    /// The revision the set's template is (upstream's
    /// `getStatefulSetRevisions`): the newest when it holds the same
    /// data; an older one that does, renumbered the newest; else a new
    /// one, counting a collision for each name another's data holds. With
    /// the collision count, or `None` when the server refused.
    fn update_revision(&mut self, client: &mut Client<'_>, set: &Value) -> Option<(String, i64)> {
        let revisions = history::owned(&self.revisions, set);
        let data = history::patch_data(set);
        let next = revisions.last().map_or(1, |r| history::number(r) + 1);
        // Upstream hashes with the collision count, 0 while the status has
        // none, so the first status write changes nothing.
        let mut collisions = set["status"]["collisionCount"].as_i64().unwrap_or(0);
        if let Some(last) = revisions.last().filter(|r| r["data"] == data) {
            return Some((meta_str(last, "name").to_string(), collisions));
        }
        if let Some(older) = revisions.iter().rev().find(|r| r["data"] == data) {
            return history::renumber(client, older, next).then(|| (meta_str(older, "name").to_string(), collisions));
        }
        let path = history::collection_of(set);
        let set_name = meta_str(set, "name");
        // A name taken by other data is a collision (bounded, as a name
        // can only be taken so many times).
        for _ in 0..16 {
            let hash = history::revision_hash(&data, Some(collisions));
            let name = history::revision_name(set_name, &hash);
            let revision =
                history::new_revision(set, "StatefulSet", &name, (history::HASH_LABEL, &hash), data.clone(), next);
            let r = client.write("POST", &path, "application/json", &revision);
            match r.status {
                201 => return Some((name, collisions)),
                409 => {
                    let existing = client.get(&format!("{path}/{name}"));
                    if existing.status == 200 && existing.json_body()["data"] == data {
                        return Some((name, collisions));
                    }
                    collisions += 1;
                }
                _ => return None,
            }
        }
        None
    }

    /// Deletes the oldest revisions no pod uses, neither current nor
    /// update, beyond `revisionHistoryLimit` (upstream's `truncateHistory`).
    fn truncate_history(&mut self, client: &mut Client<'_>, set: &Value, pods: &[(i64, Value)], update: &str) {
        let current = set["status"]["currentRevision"].as_str().unwrap_or(update);
        let live = |name: &str| {
            name == update
                || name == current
                || pods.iter().any(|(_, p)| p["metadata"]["labels"][REVISION_LABEL] == name)
        };
        let old: Vec<Arc<Value>> =
            history::owned(&self.revisions, set).into_iter().filter(|r| !live(meta_str(r, "name"))).collect();
        let limit = set["spec"]["revisionHistoryLimit"].as_i64().unwrap_or(10).max(0) as usize;
        let path = history::collection_of(set);
        for r in old.iter().take(old.len().saturating_sub(limit)) {
            client.send("DELETE", &format!("{path}/{}", meta_str(r, "name")), None);
        }
    }

    fn write_status(
        &self,
        client: &mut Client<'_>,
        set: &Value,
        pods: &[(i64, Value)],
        revision: &str,
        collisions: i64,
    ) {
        let live: Vec<&Value> =
            pods.iter().map(|(_, p)| p).filter(|p| p["metadata"]["deletionTimestamp"].is_null()).collect();
        let ready = live.iter().filter(|p| is_ready(p)).count();
        let updated = live.iter().filter(|p| p["metadata"]["labels"][REVISION_LABEL] == revision).count();
        let current_revision = match set["status"]["currentRevision"].as_str() {
            // The rollout is done when every pod is at the new revision.
            Some(c) if updated < live.len() => c.to_string(),
            _ => revision.to_string(),
        };
        let current =
            live.iter().filter(|p| p["metadata"]["labels"][REVISION_LABEL] == current_revision.as_str()).count();
        let mut status = Map::new();
        status.insert("observedGeneration".into(), set["metadata"]["generation"].clone());
        status.insert("replicas".into(), json!(live.len()));
        if ready > 0 {
            status.insert("readyReplicas".into(), json!(ready));
        }
        if current > 0 {
            status.insert("currentReplicas".into(), json!(current));
        }
        if updated > 0 {
            status.insert("updatedReplicas".into(), json!(updated));
        }
        status.insert("currentRevision".into(), json!(current_revision));
        status.insert("updateRevision".into(), json!(revision));
        status.insert("collisionCount".into(), json!(collisions));
        status.insert("availableReplicas".into(), json!(ready));
        let status = Value::Object(status);
        if set["status"] == status {
            return;
        }
        let mut body = set.clone();
        body["status"] = status;
        body["kind"] = json!("StatefulSet");
        body["apiVersion"] = json!("apps/v1");
        let path = format!(
            "/apis/apps/v1/namespaces/{}/statefulsets/{}/status",
            meta_str(set, "namespace"),
            meta_str(set, "name")
        );
        client.write("PUT", &path, "application/json", &body);
    }
}
