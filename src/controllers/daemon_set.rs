//! The DaemonSet controller (kube-controller-manager's `daemonset`), a
//! client: one pod of each DaemonSet on every node that should run it.
//!
//! - A node should run one when the template's `nodeSelector` and
//!   required node affinity match it and its NoSchedule/NoExecute taints
//!   are tolerated (the tolerations every daemon pod gets are added:
//!   not-ready and unreachable NoExecute, the pressure ones and
//!   unschedulable NoSchedule).
//! - Pods are created from the template (`generateName: <ds>-`, the
//!   `controller-revision-hash` and `pod-template-generation` labels) with a required node affinity on
//!   `metadata.name` for their node, which the scheduler honours, as
//!   upstream does; pods on nodes that should not run one are deleted.
//! - A changed template rolls out (RollingUpdate): pods of the old hash
//!   are deleted at most `maxUnavailable` (default 1) unavailable at a
//!   time, and replaced; OnDelete waits for them to be deleted.
//! - The status (desired, current, misscheduled, ready, available,
//!   unavailable, updated, observedGeneration) is written through
//!   `/status`; events `SuccessfulCreate` / `SuccessfulDelete`.
//!
//! - Its history as upstream keeps it (`constructHistory`): a
//!   ControllerRevision `<ds>-<hash>` per template (the hash as the pods'
//!   label, computed from the template as the Deployment controller's is:
//!   docs/fidelity.md), renumbered the newest when the template returns
//!   to it; a name another template's revision holds counts a collision;
//!   revisions no pod uses beyond `revisionHistoryLimit` (default 10) are
//!   deleted, oldest first.

use crate::sort::Order;
use std::collections::BTreeMap;

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::backoff::Backoff;
use super::client::Client;
use super::events::{EventType, Recorder};
use super::history;
use super::informer::Informer;
use super::object::{
    collection, controller_of, is_active, is_available, is_ready, meta_str, name_in, pod_from_template, template_hash,
};
use super::scheduler::tolerated;
use super::{Controller, Progress};
use crate::clock::SimTime;

const HASH_LABEL: &str = "controller-revision-hash";

pub struct DaemonSetController {
    daemon_sets: Informer,
    pods: Informer,
    nodes: Informer,
    revisions: Informer,
    recorder: Recorder,
    /// DaemonSets whose pods the server refused, and when to try again.
    failing: Backoff,
}

impl Default for DaemonSetController {
    fn default() -> Self {
        DaemonSetController {
            daemon_sets: Informer::new("/apis/apps/v1/daemonsets"),
            pods: Informer::new("/api/v1/pods"),
            nodes: Informer::new("/api/v1/nodes"),
            revisions: Informer::new("/apis/apps/v1/controllerrevisions"),
            recorder: Recorder::new("daemonset-controller", ""),
            failing: Backoff::default(),
        }
    }
}

/// The tolerations upstream adds to every daemon pod.
fn daemon_tolerations() -> Vec<Value> {
    let mut t = Vec::new();
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        t.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute"}));
    }
    for key in [
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/unschedulable",
    ] {
        t.push(json!({"key": key, "operator": "Exists", "effect": "NoSchedule"}));
    }
    t
}

/// The template's spec with the daemon tolerations added.
fn daemon_spec(ds: &Value) -> Value {
    let mut spec = ds["spec"]["template"]["spec"].clone();
    let mut tolerations: Vec<Value> = spec["tolerations"].as_array().cloned().unwrap_or_default();
    for t in daemon_tolerations() {
        if !tolerations.iter().any(|have| have["key"] == t["key"] && have["effect"] == t["effect"]) {
            tolerations.push(t);
        }
    }
    spec["tolerations"] = json!(tolerations);
    spec
}

/// Whether a node should run the DaemonSet's pod.
fn should_run(spec: &Value, node: &Value) -> bool {
    let labels = &node["metadata"]["labels"];
    let selector_ok = spec["nodeSelector"].as_object().is_none_or(|s| s.iter().all(|(k, v)| labels.get(k) == Some(v)));
    let tolerations: Vec<Value> = spec["tolerations"].as_array().cloned().unwrap_or_default();
    let taints_ok = node["spec"]["taints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["effect"] == "NoSchedule" || t["effect"] == "NoExecute")
        .all(|t| tolerated(&tolerations, t));
    let probe = json!({"spec": spec});
    selector_ok && taints_ok && super::scheduler::affinity_matches(&probe, node)
}

fn node_of(pod: &Value) -> String {
    if let Some(n) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return n.to_string();
    }
    // Not bound yet: the node its affinity names.
    let terms =
        &pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    terms[0]["matchFields"][0]["values"][0].as_str().unwrap_or("").to_string()
}

impl Controller for DaemonSetController {
    fn name(&self) -> &'static str {
        "daemonset"
    }

    fn service_account(&self) -> &'static str {
        "daemon-set-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.daemon_sets.sync(client)
            | self.pods.sync(client)
            | self.nodes.sync(client)
            | self.revisions.sync(client);
        let now = SimTime(client.now_millis());
        if changed || self.failing.due(now) {
            let sets: Vec<Arc<Value>> = self.daemon_sets.shared().cloned().collect();
            for ds in sets {
                self.failing.begin();
                if ds["metadata"]["deletionTimestamp"].is_null() {
                    self.sync(client, &ds);
                }
                self.failing.end(meta_str(&ds, "uid"), now);
            }
            self.failing.forget_gone(&self.daemon_sets);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.failing.next_wake()
    }
}

impl DaemonSetController {
    /// The revision of the template (upstream's `constructHistory`): the
    /// one holding its patch, renumbered the newest if an older template's
    /// came after it, else a new one. The other revisions, oldest first;
    /// `None` when the server refused or a name collided (the collision
    /// counted in the status, for the next pass).
    fn construct_history(&mut self, client: &mut Client<'_>, ds: &Value, hash: &str) -> Option<Vec<Arc<Value>>> {
        let data = history::patch_data(ds);
        let (current, old): (Vec<Arc<Value>>, Vec<Arc<Value>>) =
            history::owned(&self.revisions, ds).into_iter().partition(|r| r["data"] == data);
        let next = old.iter().map(|r| history::number(r)).max().unwrap_or(0) + 1;
        let path = history::collection_of(ds);
        match current.last() {
            Some(cur) if history::number(cur) < next => history::renumber(client, cur, next).then_some(old),
            Some(_) => Some(old),
            None => {
                let name = format!("{}-{hash}", meta_str(ds, "name"));
                let revision = history::new_revision(ds, "DaemonSet", &name, (HASH_LABEL, hash), data.clone(), next);
                let r = client.write("POST", &path, "application/json", &revision);
                match r.status {
                    201 => Some(old),
                    409 if client.get(&format!("{path}/{name}")).json_body()["data"] == data => Some(old),
                    409 => {
                        let mut body = ds.clone();
                        body["status"]["collisionCount"] =
                            json!(ds["status"]["collisionCount"].as_i64().unwrap_or(0) + 1);
                        body["kind"] = json!("DaemonSet");
                        body["apiVersion"] = json!("apps/v1");
                        let status = format!(
                            "{}/{}/status",
                            collection("apps/v1", meta_str(ds, "namespace"), "daemonsets"),
                            meta_str(ds, "name")
                        );
                        client.write("PUT", &status, "application/json", &body);
                        None
                    }
                    _ => None,
                }
            }
        }
    }

    /// Deletes the oldest of `old` no pod of the set uses, beyond
    /// `revisionHistoryLimit` (upstream's `cleanupHistory`).
    fn cleanup_history(&mut self, ds: &Value, client: &mut Client<'_>, old: Vec<Arc<Value>>) {
        let limit = ds["spec"]["revisionHistoryLimit"].as_i64().unwrap_or(10).max(0) as usize;
        let mut to_kill = old.len().saturating_sub(limit);
        if to_kill == 0 {
            return;
        }
        let uid = meta_str(ds, "uid");
        let live: Vec<&str> = self
            .pods
            .in_namespace(meta_str(ds, "namespace"))
            .filter(|p| controller_of(p).is_some_and(|c| c["uid"].as_str() == Some(uid)))
            .filter_map(|p| p["metadata"]["labels"][HASH_LABEL].as_str())
            .collect();
        let path = history::collection_of(ds);
        for r in &old {
            if to_kill == 0 {
                break;
            }
            if r["metadata"]["labels"][HASH_LABEL].as_str().is_some_and(|h| live.contains(&h)) {
                continue;
            }
            client.send("DELETE", &format!("{path}/{}", meta_str(r, "name")), None);
            to_kill -= 1;
        }
    }

    fn event(&mut self, client: &mut Client<'_>, ds: &Value, reason: &str, message: String) {
        self.recorder.event(client, ds, ("apps/v1", "DaemonSet"), "", EventType::Normal, reason, &message);
    }

    fn sync(&mut self, client: &mut Client<'_>, ds: &Value) {
        let (ns, uid) = (meta_str(ds, "namespace"), meta_str(ds, "uid"));
        let hash = template_hash(&ds["spec"]["template"], ds["status"]["collisionCount"].as_i64());
        let Some(old) = self.construct_history(client, ds, &hash) else { return };
        let spec = daemon_spec(ds);
        let nodes: Vec<Arc<Value>> = self.nodes.shared().cloned().collect();
        let mut by_node: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for pod in self.pods.in_namespace(ns).map(|p| &**p) {
            if controller_of(pod).is_some_and(|c| c["uid"].as_str() == Some(uid)) && is_active(pod) {
                by_node.entry(node_of(pod)).or_default().push(pod.clone());
            }
        }
        let pods_path = collection("v1", ns, "pods");
        let delete = |client: &mut Client<'_>, pod: &Value| {
            let body =
                json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": meta_str(pod, "uid")}});
            client.write("DELETE", &format!("{pods_path}/{}", meta_str(pod, "name")), "application/json", &body).status
                == 200
        };
        let (mut desired, mut misscheduled) = (0, 0);
        let mut wanted_nodes = Vec::new();
        for node in &nodes {
            let name = meta_str(node, "name").to_string();
            let run = should_run(&spec, node);
            let pods = by_node.get(&name).cloned().unwrap_or_default();
            if run {
                desired += 1;
                wanted_nodes.push(name.clone());
                if pods.is_empty() {
                    let mut pod = pod_from_template(ds, ("apps/v1", "DaemonSet"));
                    pod["metadata"]["labels"][HASH_LABEL] = json!(hash);
                    // Upstream still labels daemon pods with the set's
                    // generation (`pod-template-generation`, deprecated).
                    if let Some(generation) = ds["metadata"]["generation"].as_i64() {
                        pod["metadata"]["labels"]["pod-template-generation"] = json!(generation.to_string());
                    }
                    let mut pod_spec = spec.clone();
                    pod_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json!({
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]});
                    pod["spec"] = pod_spec;
                    let r = client.write("POST", &pods_path, "application/json", &pod);
                    if r.status == 201 {
                        let message = format!("Created pod: {}", name_in(&r.body));
                        self.event(client, ds, "SuccessfulCreate", message);
                    } else {
                        if let Some(why) = super::backoff::refusal(&r) {
                            let message = format!("Error creating: {why}");
                            let kind = ("apps/v1", "DaemonSet");
                            self.recorder.event(client, ds, kind, "", EventType::Warning, "FailedCreate", &message);
                        }
                        self.failing.fail();
                    }
                } else {
                    // More than one on a node: keep the oldest.
                    let mut extra = pods.clone();
                    extra.order_by(|a, b| meta_str(a, "creationTimestamp").cmp(meta_str(b, "creationTimestamp")));
                    for pod in extra.iter().skip(1) {
                        if delete(client, pod) {
                            self.event(
                                client,
                                ds,
                                "SuccessfulDelete",
                                format!("Deleted pod: {}", meta_str(pod, "name")),
                            );
                        }
                    }
                }
            } else {
                misscheduled += pods.iter().filter(|p| !p["spec"]["nodeName"].is_null()).count();
                for pod in &pods {
                    if delete(client, pod) {
                        self.event(client, ds, "SuccessfulDelete", format!("Deleted pod: {}", meta_str(pod, "name")));
                    }
                }
            }
        }
        // Roll out a changed template.
        let current: Vec<Value> =
            wanted_nodes.iter().filter_map(|n| by_node.get(n).and_then(|p| p.first())).cloned().collect();
        if ds["spec"]["updateStrategy"]["type"].as_str().unwrap_or("RollingUpdate") == "RollingUpdate" {
            let max_unavailable = match &ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] {
                Value::Number(n) => n.as_i64().unwrap_or(1),
                Value::String(p) => p
                    .strip_suffix('%')
                    .and_then(|p| p.parse::<i64>().ok())
                    .map(|p| (p * desired as i64) / 100)
                    .unwrap_or(1),
                _ => 1,
            }
            .max(1);
            let unavailable = desired as i64 - current.iter().filter(|p| is_available(p)).count() as i64;
            let mut budget = max_unavailable - unavailable;
            for pod in current.iter().filter(|p| p["metadata"]["labels"][HASH_LABEL] != hash.as_str()) {
                if budget <= 0 {
                    break;
                }
                if is_available(pod) && delete(client, pod) {
                    self.event(client, ds, "SuccessfulDelete", format!("Deleted pod: {}", meta_str(pod, "name")));
                    budget -= 1;
                }
            }
        }
        self.cleanup_history(ds, client, old);
        let scheduled = current.iter().filter(|p| !p["spec"]["nodeName"].is_null()).count();
        let ready = current.iter().filter(|p| is_ready(p)).count();
        let updated = current.iter().filter(|p| p["metadata"]["labels"][HASH_LABEL] == hash.as_str()).count();
        let mut status = Map::new();
        status.insert("currentNumberScheduled".into(), json!(scheduled));
        status.insert("numberMisscheduled".into(), json!(misscheduled));
        status.insert("desiredNumberScheduled".into(), json!(desired));
        status.insert("numberReady".into(), json!(ready));
        status.insert("observedGeneration".into(), ds["metadata"]["generation"].clone());
        if updated > 0 {
            status.insert("updatedNumberScheduled".into(), json!(updated));
        }
        if ready > 0 {
            status.insert("numberAvailable".into(), json!(ready));
        }
        if desired > ready {
            status.insert("numberUnavailable".into(), json!(desired - ready));
        }
        if let Some(c) = ds["status"].get("collisionCount").filter(|v| !v.is_null()) {
            status.insert("collisionCount".into(), c.clone());
        }
        let status = Value::Object(status);
        if ds["status"] == status {
            return;
        }
        let mut body = ds.clone();
        body["status"] = status;
        body["kind"] = json!("DaemonSet");
        body["apiVersion"] = json!("apps/v1");
        let path = format!("/apis/apps/v1/namespaces/{ns}/daemonsets/{}/status", meta_str(ds, "name"));
        client.write("PUT", &path, "application/json", &body);
    }
}
