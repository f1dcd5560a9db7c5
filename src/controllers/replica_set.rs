//! The ReplicaSet controller (kube-controller-manager's `replicaset`):
//! keeps `spec.replicas` pods matching each ReplicaSet's selector, as
//! upstream's `ReplicaSetController` does it through requests. The same
//! code is the replication manager (`replicationcontroller`), as upstream's
//! wraps the ReplicaSet controller: for core/v1 ReplicationControllers,
//! whose selector is a map, under its own name and event source:
//!
//! - pods it owns are those whose controller reference names it; a pod the
//!   selector matches with no controller is adopted, one it owns that the
//!   selector no longer matches is released (strategic merge patches of
//!   `metadata.ownerReferences` whose `uid` is the precondition);
//! - missing pods are created from the template (`generateName:
//!   <replicaset>-`, the template's labels and annotations, a controller
//!   reference with `blockOwnerDeletion`), in batches of 1, 2, 4, … up to
//!   500 per pass, stopping at the first failure (slow start);
//! - surplus pods are deleted, the least useful first: unscheduled before
//!   scheduled, Pending before Running, not ready before ready, newest
//!   first (uid breaks ties, where upstream's order is random);
//! - the status (`replicas`, `fullyLabeledReplicas`, `readyReplicas`,
//!   `availableReplicas`, `observedGeneration`) is written through
//!   `/status` when it changes.
//!
//! - events `SuccessfulCreate` ("Created pod: X") and `SuccessfulDelete`
//!   ("Deleted pod: X") are recorded on the ReplicaSet;
//! - a pod create the server refuses (a quota exceeded) is a Warning
//!   `FailedCreate` event ("Error creating: <the server's message>") and the
//!   `ReplicaFailure` condition in the status (gone again once a pass
//!   succeeds), and the ReplicaSet is tried again after upstream's
//!   per-item backoff (5 ms, doubling, at most 1000 s) in simulated time.

use crate::sort::Order;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::backoff::Backoff;
use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{
    controller_of, is_active, is_ready, meta_str, name_in, owner_reference, pod_from_template, selects, spec_selector,
};
use super::{Controller, Progress};
use crate::clock::SimTime;
use crate::selector::{set_selector_string, LabelSelector};
use crate::server::Response;

/// The most pods one pass creates (upstream's `burstReplicas`).
const BURST: usize = 500;

/// What a controller of this file manages.
pub struct Managed {
    /// Its name among kube-controller-manager's controllers.
    name: &'static str,
    /// Its service account, and its events' source.
    account: &'static str,
    api_version: &'static str,
    kind: &'static str,
    /// The group-version's path and the resource.
    base: &'static str,
    resource: &'static str,
    /// The selector is a map of labels, not a LabelSelector.
    map_selector: bool,
}

pub static REPLICA_SETS: Managed = Managed {
    name: "replicaset",
    account: "replicaset-controller",
    api_version: "apps/v1",
    kind: "ReplicaSet",
    base: "/apis/apps/v1",
    resource: "replicasets",
    map_selector: false,
};

pub static REPLICATION_CONTROLLERS: Managed = Managed {
    name: "replicationcontroller",
    account: "replication-controller",
    api_version: "v1",
    kind: "ReplicationController",
    base: "/api/v1",
    resource: "replicationcontrollers",
    map_selector: true,
};

pub struct ReplicaSetController {
    managed: &'static Managed,
    replica_sets: Informer,
    pods: Informer,
    recorder: Recorder,
    /// ReplicaSets whose last pass failed, and when to try them again.
    failing: Backoff,
}

impl ReplicaSetController {
    pub fn new(managed: &'static Managed) -> Self {
        ReplicaSetController {
            managed,
            replica_sets: Informer::new(format!("{}/{}", managed.base, managed.resource)),
            pods: Informer::new("/api/v1/pods"),
            recorder: Recorder::new(managed.account, ""),
            failing: Backoff::default(),
        }
    }

    fn kind(&self) -> (&'static str, &'static str) {
        (self.managed.api_version, self.managed.kind)
    }
}

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        self.managed.name
    }

    fn service_account(&self) -> &'static str {
        self.managed.account
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let rs_changed = self.replica_sets.sync(client);
        let pods_changed = self.pods.sync(client);
        let now = SimTime(client.now_millis());
        let retry = self.failing.due(now);
        if rs_changed || pods_changed || retry {
            let sets: Vec<Arc<Value>> = self.replica_sets.shared().cloned().collect();
            for rs in sets {
                self.sync_replica_set(client, &rs);
            }
            self.failing.forget_gone(&self.replica_sets);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.failing.next_wake()
    }
}

/// Which pods go first when scaling down (lower first).
fn deletion_rank(pod: &Value) -> (bool, u8, bool, std::cmp::Reverse<String>, String) {
    let phase = match pod["status"]["phase"].as_str() {
        Some("Pending") => 0,
        Some("Running") => 2,
        _ => 1,
    };
    (
        !pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty(),
        phase,
        is_ready(pod),
        std::cmp::Reverse(meta_str(pod, "creationTimestamp").to_string()),
        meta_str(pod, "uid").to_string(),
    )
}

impl ReplicaSetController {
    fn sync_replica_set(&mut self, client: &mut Client<'_>, rs: &Value) {
        if !rs["metadata"]["deletionTimestamp"].is_null() {
            return;
        }
        let (ns, uid) = (meta_str(rs, "namespace"), meta_str(rs, "uid"));
        let selector = match self.managed.map_selector {
            false => spec_selector(rs),
            true => LabelSelector::parse(&set_selector_string(rs["spec"].get("selector"))).ok(),
        };
        let Some(selector) = selector.filter(|s| !s.is_empty()) else { return };
        let pods_path = format!("/api/v1/namespaces/{ns}/pods");
        let mut owned: Vec<Arc<Value>> = Vec::new();
        let candidates: Vec<Arc<Value>> = self.pods.in_namespace(ns).cloned().collect();
        for pod in candidates {
            let matches = selects(&selector, &pod);
            let pod_uid = meta_str(&pod, "uid").to_string();
            let pod_path = format!("{pods_path}/{}", meta_str(&pod, "name"));
            match controller_of(&pod) {
                Some(c) if c["uid"].as_str() == Some(uid) => {
                    if matches {
                        owned.push(pod);
                    } else if is_active(&pod) {
                        let body = json!({"metadata": {"ownerReferences": [{"$patch": "delete", "uid": uid}], "uid": pod_uid}});
                        client.write("PATCH", &pod_path, "application/strategic-merge-patch+json", &body);
                    }
                }
                Some(_) => {}
                None if matches && is_active(&pod) => {
                    let body = json!({"metadata": {"ownerReferences": [owner_reference(rs, self.managed.api_version, self.managed.kind)], "uid": pod_uid}});
                    let r = client.write("PATCH", &pod_path, "application/strategic-merge-patch+json", &body);
                    if r.status == 200 {
                        owned.push(Arc::new(r.json_body()));
                    }
                }
                None => {}
            }
        }
        let active: Vec<&Value> = owned.iter().map(|p| &**p).filter(|p| is_active(p)).collect();
        let want = rs["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
        let mut created = 0usize;
        let mut failure: Option<(&str, String)> = None;
        if active.len() < want {
            let missing = (want - active.len()).min(BURST);
            let mut batch = 1;
            'slow_start: while created < missing {
                for _ in 0..batch.min(missing - created) {
                    let r = client.write("POST", &pods_path, "application/json", &pod_from_template(rs, self.kind()));
                    if r.status != 201 {
                        failure = Some(("FailedCreate", self.failed_create(client, rs, &r)));
                        break 'slow_start;
                    }
                    let message = format!("Created pod: {}", name_in(&r.body));
                    self.event(client, rs, "SuccessfulCreate", &message);
                    created += 1;
                }
                batch *= 2;
            }
        } else if active.len() > want {
            let mut doomed = active.clone();
            doomed.order_by_key(|p| deletion_rank(p));
            for pod in doomed.into_iter().take(active.len() - want) {
                let body = json!({"kind": "DeleteOptions", "apiVersion": "v1",
                    "preconditions": {"uid": meta_str(pod, "uid")}});
                let r = client.write(
                    "DELETE",
                    &format!("{pods_path}/{}", meta_str(pod, "name")),
                    "application/json",
                    &body,
                );
                if r.status == 200 {
                    let message = format!("Deleted pod: {}", meta_str(pod, "name"));
                    self.event(client, rs, "SuccessfulDelete", &message);
                }
            }
        }
        self.failing.record(uid, failure.is_some(), SimTime(client.now_millis()));
        self.write_status(client, rs, &owned, failure);
    }

    /// A refused pod create: its Warning event; the server's message.
    /// (Apart, so the passes that succeed stay small in the page's first
    /// module part.)
    #[inline(never)]
    fn failed_create(&mut self, client: &mut Client<'_>, rs: &Value, r: &Response) -> String {
        let why = super::backoff::refusal(r);
        if let Some(why) = &why {
            let message = format!("Error creating: {why}");
            let kind = self.kind();
            self.recorder.event(client, rs, kind, "", EventType::Warning, "FailedCreate", &message);
        }
        why.unwrap_or_else(|| r.json_body()["message"].as_str().unwrap_or("").to_string())
    }

    /// The ReplicaFailure condition after a pass: set when the pass failed
    /// and it was not, removed when the pass did not fail.
    #[inline(never)]
    fn replica_failure(conditions: &mut Vec<Value>, failure: Option<(&str, String)>, now: String) {
        let had = conditions.iter().any(|c| c["type"] == "ReplicaFailure");
        match failure {
            Some((reason, message)) if !had => conditions.push(json!({"type": "ReplicaFailure", "status": "True",
                "lastTransitionTime": now, "reason": reason, "message": message})),
            None if had => conditions.retain(|c| c["type"] != "ReplicaFailure"),
            _ => {}
        }
    }

    fn event(&mut self, client: &mut Client<'_>, rs: &Value, reason: &str, message: &str) {
        let kind = self.kind();
        self.recorder.event(client, rs, kind, "", EventType::Normal, reason, message);
    }

    /// The status from what the informer holds (as upstream computes it
    /// from its cache), written when it differs.
    fn write_status(&self, client: &mut Client<'_>, rs: &Value, owned: &[Arc<Value>], failure: Option<(&str, String)>) {
        let active: Vec<&Value> = owned.iter().map(|p| &**p).filter(|p| is_active(p)).collect();
        let template_labels = rs["spec"]["template"]["metadata"]["labels"].as_object().cloned().unwrap_or_default();
        let fully = active
            .iter()
            .filter(|p| {
                let labels = p["metadata"]["labels"].as_object();
                template_labels.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
            })
            .count();
        let ready = active.iter().filter(|p| is_ready(p)).count();
        let mut status = Map::new();
        status.insert("replicas".into(), json!(active.len()));
        if fully > 0 {
            status.insert("fullyLabeledReplicas".into(), json!(fully));
        }
        if ready > 0 {
            status.insert("readyReplicas".into(), json!(ready));
            status.insert("availableReplicas".into(), json!(ready));
        }
        status.insert("observedGeneration".into(), rs["metadata"]["generation"].clone());
        let mut conditions: Vec<Value> = rs["status"]["conditions"].as_array().cloned().unwrap_or_default();
        if failure.is_some() || !conditions.is_empty() {
            Self::replica_failure(&mut conditions, failure, client.now_rfc3339());
        }
        if !conditions.is_empty() {
            status.insert("conditions".into(), Value::Array(conditions));
        }
        let status = Value::Object(status);
        if rs["status"] == status {
            return;
        }
        let mut updated = rs.clone();
        updated["status"] = status;
        updated["kind"] = json!(self.managed.kind);
        updated["apiVersion"] = json!(self.managed.api_version);
        let m = self.managed;
        let path = format!(
            "{}/namespaces/{}/{}/{}/status",
            m.base,
            meta_str(rs, "namespace"),
            m.resource,
            meta_str(rs, "name")
        );
        client.write("PUT", &path, "application/json", &updated);
    }
}
