//! The taint eviction controller (kube-controller-manager's
//! `taint-eviction-controller`, which runs as the `node-controller`
//! service account as upstream's does), a client: takes pods off nodes
//! that have `NoExecute` taints they do not tolerate.
//!
//! It keeps each node's `NoExecute` taints. When a node's change them, it
//! looks at every pod bound there; when a pod arrives on a tainted node or
//! its tolerations change, at that pod. A pod that does not tolerate every
//! one of them is evicted at once; one that tolerates them all waits for
//! the least `tolerationSeconds` of the tolerations used (one for each
//! taint, the first that matches; zero or less is at once), or forever
//! when none of them says. A wait already running keeps its time. Taints
//! removed, or the pod gone, cancel a wait: a Normal `TaintManagerEviction`
//! event "Cancelling deletion of Pod ns/name".
//!
//! An eviction is upstream's: the event "Marking for deletion Pod ns/name"
//! (about the pod by namespace and name, no uid), a GET of the pod, its
//! `DisruptionTarget` condition (`DeletionByTaintManager`, "Taint manager:
//! deleting due to NoExecute taint") added through `/status` by a
//! strategic merge patch carrying the pod's uid, then a DELETE with no
//! options (the pod's own grace period). All on the simulated clock: the
//! controller's `next_wake` is the first wait's end.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::{key_of, Change, Informer};
use super::object::meta_str;
use super::{Controller, Progress};
use crate::clock::SimTime;

const REASON: &str = "DeletionByTaintManager";
const MESSAGE: &str = "Taint manager: deleting due to NoExecute taint";

pub struct TaintEvictionController {
    nodes: Informer,
    pods: Informer,
    /// Each node's `NoExecute` taints (nodes without any are absent).
    tainted: BTreeMap<String, Vec<Value>>,
    /// Evictions waiting, by pod key: when each was decided, when it is due
    /// (simulated milliseconds).
    waiting: BTreeMap<String, (i64, i64)>,
    recorder: Recorder,
}

impl Default for TaintEvictionController {
    fn default() -> Self {
        TaintEvictionController {
            nodes: Informer::tracking("/api/v1/nodes"),
            pods: Informer::tracking("/api/v1/pods"),
            tainted: BTreeMap::new(),
            waiting: BTreeMap::new(),
            recorder: Recorder::new("taint-eviction-controller", ""),
        }
    }
}

impl Controller for TaintEvictionController {
    fn name(&self) -> &'static str {
        "taint-eviction-controller"
    }

    fn service_account(&self) -> &'static str {
        "node-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        self.nodes.sync(client);
        self.pods.sync(client);
        let nodes = self.nodes.take_changes();
        let pods = self.pods.take_changes();
        // Nothing to look at while no node has a NoExecute taint.
        let quiet = self.tainted.is_empty()
            && self.waiting.is_empty()
            && !nodes.iter().any(|(_, after)| after.as_deref().is_some_and(has_no_execute));
        if !quiet {
            self.work(client, nodes, pods);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.waiting.values().map(|&(_, due)| due).min().map(SimTime)
    }
}

/// Whether a node has a `NoExecute` taint (no copies: run for every node
/// change while none has).
fn has_no_execute(node: &Value) -> bool {
    node["spec"]["taints"].as_array().is_some_and(|ts| ts.iter().any(|t| t["effect"] == "NoExecute"))
}

/// A node's `NoExecute` taints.
fn no_execute(node: &Value) -> Vec<Value> {
    node["spec"]["taints"].as_array().into_iter().flatten().filter(|t| t["effect"] == "NoExecute").cloned().collect()
}

/// Whether one toleration tolerates one taint (upstream's
/// `ToleratesTaint`: its effect, if any; its key, if any; its value unless
/// the operator is `Exists`).
fn tolerates(toleration: &Value, taint: &Value) -> bool {
    let effect = toleration["effect"].as_str().unwrap_or("");
    let key = toleration["key"].as_str().unwrap_or("");
    if (!effect.is_empty() && taint["effect"] != effect) || (!key.is_empty() && taint["key"] != key) {
        return false;
    }
    match toleration["operator"].as_str().unwrap_or("") {
        "" | "Equal" => toleration["value"].as_str().unwrap_or("") == taint["value"].as_str().unwrap_or(""),
        "Exists" => true,
        _ => false,
    }
}

/// How long the pod may stay with these taints: None if it must go now
/// (a taint not tolerated), `Some(None)` forever, else the least
/// `tolerationSeconds` (at least zero) of the tolerations used, the first
/// matching each taint.
fn tolerated_for(tolerations: &[Value], taints: &[Value]) -> Option<Option<i64>> {
    let mut least: Option<i64> = None;
    for taint in taints {
        let used = tolerations.iter().find(|t| tolerates(t, taint))?;
        if let Some(s) = used["tolerationSeconds"].as_i64() {
            least = Some(least.map_or(s, |l| l.min(s)).max(0));
        }
    }
    Some(least)
}

impl TaintEvictionController {
    /// Node changes first (as upstream's workers take them), then pod
    /// changes, then the evictions due.
    #[inline(never)]
    fn work(&mut self, client: &mut Client<'_>, nodes: Vec<Change>, pods: Vec<Change>) {
        let now = client.now_millis();
        let mut now_out: BTreeSet<String> = BTreeSet::new();
        for (before, after) in nodes {
            let taints = after.as_deref().map(no_execute).unwrap_or_default();
            if let (Some(b), Some(_)) = (&before, &after) {
                if no_execute(b) == taints {
                    continue;
                }
            }
            let Some(node) = after.as_deref().or(before.as_deref()) else { continue };
            let name = meta_str(node, "name").to_string();
            if after.is_none() {
                // A node gone: its pods' waits stay, as upstream's do.
                self.tainted.remove(&name);
                continue;
            }
            if taints.is_empty() {
                self.tainted.remove(&name);
            } else {
                self.tainted.insert(name.clone(), taints.clone());
            }
            let on_node: Vec<(String, Vec<Value>)> = self
                .pods
                .objects()
                .filter(|p| p["spec"]["nodeName"] == name.as_str())
                .map(|p| (key_of(p), tolerations_of(p)))
                .collect();
            for (key, tolerations) in on_node {
                if taints.is_empty() {
                    self.cancel(client, &key);
                } else {
                    self.decide(client, key, &tolerations, &taints, now, &mut now_out);
                }
            }
        }
        for (before, after) in pods {
            if let (Some(b), Some(a)) = (&before, &after) {
                if b["spec"]["tolerations"] == a["spec"]["tolerations"]
                    && b["spec"]["nodeName"] == a["spec"]["nodeName"]
                {
                    continue;
                }
            }
            let Some(pod) = after.as_deref().or(before.as_deref()) else { continue };
            let key = key_of(pod);
            // What the cache holds now (a later change may have followed).
            let Some(current) = self.pods.shared_get(&key).cloned() else {
                self.cancel(client, &key);
                continue;
            };
            let node = current["spec"]["nodeName"].as_str().unwrap_or("");
            let Some(taints) = self.tainted.get(node).cloned() else { continue };
            self.decide(client, key, &tolerations_of(&current), &taints, now, &mut now_out);
        }
        let due: Vec<String> = self.waiting.iter().filter(|(_, &(_, at))| at <= now).map(|(k, _)| k.clone()).collect();
        for key in due {
            self.waiting.remove(&key);
            now_out.insert(key);
        }
        for key in now_out {
            self.evict(client, &key);
        }
    }

    /// What becomes of one pod on a node with these taints.
    fn decide(
        &mut self,
        client: &mut Client<'_>,
        key: String,
        tolerations: &[Value],
        taints: &[Value],
        now: i64,
        now_out: &mut BTreeSet<String>,
    ) {
        match tolerated_for(tolerations, taints) {
            None => {
                self.cancel(client, &key);
                now_out.insert(key);
            }
            Some(None) => self.cancel(client, &key),
            Some(Some(_)) if self.waiting.contains_key(&key) => {}
            Some(Some(0)) => {
                now_out.insert(key);
            }
            Some(Some(seconds)) => {
                self.waiting.insert(key, (now, now.saturating_add(seconds.saturating_mul(1000))));
            }
        }
    }

    /// Drops a waiting eviction, saying so.
    fn cancel(&mut self, client: &mut Client<'_>, key: &str) {
        if self.waiting.remove(key).is_some() {
            self.event(client, key, &format!("Cancelling deletion of Pod {key}"));
        }
    }

    fn event(&mut self, client: &mut Client<'_>, key: &str, message: &str) {
        let (namespace, name) = key.split_once('/').unwrap_or(("", key));
        let about = json!({"metadata": {"namespace": namespace, "name": name}});
        self.recorder.event(client, &about, ("v1", "Pod"), "", EventType::Normal, "TaintManagerEviction", message);
    }

    /// Marks the pod a disruption target, then deletes it.
    fn evict(&mut self, client: &mut Client<'_>, key: &str) {
        self.event(client, key, &format!("Marking for deletion Pod {key}"));
        let (namespace, name) = key.split_once('/').unwrap_or(("", key));
        let path = format!("/api/v1/namespaces/{namespace}/pods/{name}");
        let got = client.get(&path);
        if got.status != 200 {
            return;
        }
        let pod = got.json_body();
        if let Some(patch) = disruption_patch(&pod, &client.now_rfc3339()) {
            let r = client.write("PATCH", &format!("{path}/status"), "application/strategic-merge-patch+json", &patch);
            if r.status != 200 {
                return;
            }
        }
        client.send("DELETE", &path, None);
    }
}

fn tolerations_of(pod: &Value) -> Vec<Value> {
    pod["spec"]["tolerations"].as_array().cloned().unwrap_or_default()
}

/// The status patch that makes the pod a taint manager's disruption
/// target, as upstream's two-way diff of the status writes it (the pod's
/// uid, the conditions' order, the condition), or None if it already is.
fn disruption_patch(pod: &Value, now: &str) -> Option<Value> {
    let conditions = pod["status"]["conditions"].as_array().map_or(&[][..], Vec::as_slice);
    let old = conditions.iter().find(|c| c["type"] == "DisruptionTarget");
    if old.is_some_and(|c| c["status"] == "True" && c["reason"] == REASON && c["message"] == MESSAGE) {
        return None;
    }
    // The time it turned True, if it already was.
    let since = old.filter(|c| c["status"] == "True").map_or_else(|| json!(now), |c| c["lastTransitionTime"].clone());
    let mut order: Vec<Value> = conditions.iter().map(|c| json!({"type": c["type"]})).collect();
    if old.is_none() {
        order.push(json!({"type": "DisruptionTarget"}));
    }
    let condition = json!({"lastProbeTime": null, "lastTransitionTime": since, "message": MESSAGE,
        "reason": REASON, "status": "True", "type": "DisruptionTarget"});
    Some(json!({"metadata": {"uid": pod["metadata"]["uid"]},
        "status": {"$setElementOrder/conditions": order, "conditions": [condition]}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_toleration_of_those_used_decides() {
        let taints =
            [json!({"key": "a", "effect": "NoExecute"}), json!({"key": "b", "value": "x", "effect": "NoExecute"})];
        let forever = [json!({"key": "a", "operator": "Exists"}), json!({"key": "b", "value": "x"})];
        assert_eq!(tolerated_for(&forever, &taints), Some(None));
        let timed = [
            json!({"key": "a", "operator": "Exists", "tolerationSeconds": 60}),
            json!({"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}),
            json!({"key": "b", "value": "x", "tolerationSeconds": 5}),
        ];
        // b is tolerated first by the empty-key Exists (30 s), not the later 5 s.
        assert_eq!(tolerated_for(&timed, &taints), Some(Some(30)));
        let wrong_value = [json!({"key": "a", "operator": "Exists"}), json!({"key": "b", "value": "y"})];
        assert_eq!(tolerated_for(&wrong_value, &taints), None);
        let negative = [json!({"operator": "Exists", "tolerationSeconds": -4})];
        assert_eq!(tolerated_for(&negative, &taints), Some(Some(0)));
        let other_effect = [json!({"operator": "Exists", "effect": "NoSchedule"})];
        assert_eq!(tolerated_for(&other_effect, &taints), None);
    }

    #[test]
    fn the_status_patch_adds_the_condition_once() {
        let pod = json!({"metadata": {"uid": "u1"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        let patch = disruption_patch(&pod, "2026-01-01T00:00:00Z").unwrap();
        assert_eq!(patch["metadata"]["uid"], "u1");
        assert_eq!(
            patch["status"]["$setElementOrder/conditions"],
            json!([{"type": "Ready"}, {"type": "DisruptionTarget"}])
        );
        assert_eq!(patch["status"]["conditions"][0]["reason"], REASON);
        let mut marked = pod.clone();
        marked["status"]["conditions"].as_array_mut().unwrap().push(patch["status"]["conditions"][0].clone());
        assert_eq!(disruption_patch(&marked, "2026-01-01T00:01:00Z"), None);
        // A DisruptionTarget for another reason is taken over, keeping its time.
        let preempted = json!({"metadata": {"uid": "u1"}, "status": {"conditions": [{"type": "DisruptionTarget",
            "status": "True", "reason": "PreemptionByScheduler", "lastTransitionTime": "2025-01-01T00:00:00Z"}]}});
        let patch = disruption_patch(&preempted, "2026-01-01T00:00:00Z").unwrap();
        assert_eq!(patch["status"]["conditions"][0]["lastTransitionTime"], "2025-01-01T00:00:00Z");
        assert_eq!(patch["status"]["$setElementOrder/conditions"], json!([{"type": "DisruptionTarget"}]));
    }
}
