//! The Deployment controller (kube-controller-manager's `deployment`):
//! rolls each Deployment's pod template out through ReplicaSets, as
//! upstream's `DeploymentController` does it through requests.
//!
//! - The ReplicaSet of the current template is `<deployment>-<hash>`, the
//!   hash of the template (and `status.collisionCount`) also set as the
//!   `pod-template-hash` label of its selector, template and metadata; the
//!   deployment's annotations are copied to it with the revision
//!   (`deployment.kubernetes.io/revision`, one more than any older
//!   ReplicaSet's; a ReplicaSet brought back by a rollback keeps its old
//!   numbers in `revision-history`), `desired-replicas` and `max-replicas`.
//! - RollingUpdate scales the new ReplicaSet up within `maxSurge` (a
//!   percentage rounds up) and the old ones down within `maxUnavailable`
//!   (rounds down; both zero means one may be unavailable), unhealthy old
//!   replicas first; Recreate scales the old to zero, waits for their pods
//!   to go, then scales the new up.
//! - A change of `spec.replicas` alone is a scaling event: the one active
//!   ReplicaSet is scaled, or, mid-rollout, every active one in proportion
//!   to its `max-replicas` annotation; a paused deployment only scales.
//! - Old ReplicaSets beyond `revisionHistoryLimit` with no replicas are
//!   deleted, lowest revision first, once a rollout is complete.
//! - The status (replicas, updated, ready, available, unavailable,
//!   observedGeneration, collisionCount) and the conditions Available
//!   (`MinimumReplicasAvailable` / `MinimumReplicasUnavailable`) and
//!   Progressing (`NewReplicaSetCreated`, `FoundNewReplicaSet`,
//!   `ReplicaSetUpdated`, `NewReplicaSetAvailable`, `DeploymentPaused`,
//!   `DeploymentResumed`, and `ProgressDeadlineExceeded` once
//!   `progressDeadlineSeconds` pass after the condition's last update with
//!   no progress: the controller wakes on the simulated clock a second
//!   after the deadline, as upstream requeues a stuck deployment) are
//!   written through `/status`, with the revision annotation (the status
//!   strategy lets annotations through).
//! - Events: `ScalingReplicaSet` ("Scaled up replica set X from 0 to 3").
//!
//! - A ReplicaSet's `ReplicaFailure` condition (pods it could not create)
//!   is copied to the deployment's during a rollout, and removed with it.
//!
//! Not yet: the deprecated rollback annotation.
//! The template hash is FNV-1a of the template's canonical JSON where
//! upstream hashes a dump of its Go struct, so names differ from a real
//! cluster's (docs/fidelity.md).

use crate::sort::Order;
use std::sync::Arc;

use serde_json::{json, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{
    canonical, controller_of, int, meta_str, owner_reference, path_of, selects, spec_selector, template_hash,
};
use super::{Controller, Progress};
use crate::clock::SimTime;

mod status;

use status::{condition, progress_check, set_condition, status_map};

pub const HASH_LABEL: &str = "pod-template-hash";
pub const REVISION: &str = "deployment.kubernetes.io/revision";
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// Deployment annotations never copied to its ReplicaSets.
const NOT_COPIED: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    REVISION_HISTORY,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];
/// The longest `revision-history` annotation kept.
const MAX_HISTORY_CHARS: usize = 2000;

pub struct DeploymentController {
    deployments: Informer,
    replica_sets: Informer,
    pods: Informer,
    recorder: Recorder,
    /// When the first stuck rollout's progress deadline passes.
    wake: Option<SimTime>,
}

impl Default for DeploymentController {
    fn default() -> Self {
        DeploymentController {
            deployments: Informer::new("/apis/apps/v1/deployments"),
            replica_sets: Informer::new("/apis/apps/v1/replicasets"),
            pods: Informer::new("/api/v1/pods"),
            recorder: Recorder::new("deployment-controller", ""),
            wake: None,
        }
    }
}

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        "deployment"
    }

    fn service_account(&self) -> &'static str {
        "deployment-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let d_changed = self.deployments.sync(client);
        let rs_changed = self.replica_sets.sync(client);
        let pods_changed = self.pods.sync(client);
        let deployments: Vec<Arc<Value>> = self.deployments.shared().cloned().collect();
        // Pods matter only to Recreate (it waits for the old ones to go).
        let recreating = || deployments.iter().any(|d| d["spec"]["strategy"]["type"] == "Recreate");
        let due = self.wake.is_some_and(|w| w.0 <= client.now_millis());
        if d_changed || rs_changed || due || (pods_changed && recreating()) {
            for d in deployments {
                self.sync_deployment(client, Value::clone(&d));
            }
        }
        self.wake = self.deployments.objects().filter_map(progress_check).min();
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.wake
    }
}

/// A ReplicaSet's revision (0 when it has none or it does not parse).
fn revision_of(rs: &Value) -> i64 {
    rs["metadata"]["annotations"][REVISION].as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn annotation_int(rs: &Value, key: &str) -> Option<i64> {
    rs["metadata"]["annotations"][key].as_str()?.parse().ok()
}

fn replicas(obj: &Value) -> i64 {
    int(obj, "/spec/replicas")
}

/// An int-or-percent of `total`, rounded up or down.
fn scaled(v: &Value, total: i64, round_up: bool) -> i64 {
    match v {
        Value::Number(n) => n.as_i64().unwrap_or(0),
        Value::String(s) => match s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) {
            Some(p) if round_up => (p * total + 99).div_euclid(100),
            Some(p) => (p * total).div_euclid(100),
            None => 0,
        },
        _ => 0,
    }
}

fn is_rolling(d: &Value) -> bool {
    d["spec"]["strategy"]["type"].as_str().unwrap_or("RollingUpdate") == "RollingUpdate"
}

/// maxSurge and maxUnavailable resolved against the replicas (both zero
/// would block a rollout, so one may be unavailable).
fn fenceposts(d: &Value) -> (i64, i64) {
    let ru = &d["spec"]["strategy"]["rollingUpdate"];
    let want = replicas(d);
    let surge = scaled(&ru["maxSurge"], want, true);
    let unavailable = scaled(&ru["maxUnavailable"], want, false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

fn max_surge(d: &Value) -> i64 {
    if is_rolling(d) {
        fenceposts(d).0
    } else {
        0
    }
}

fn max_unavailable(d: &Value) -> i64 {
    if !is_rolling(d) || replicas(d) == 0 {
        return 0;
    }
    fenceposts(d).1.min(replicas(d))
}

/// A template without the hash label, canonical (how templates are
/// compared).
fn without_hash(template: &Value) -> Value {
    let mut t = canonical(template);
    if let Some(labels) = t.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.shift_remove(HASH_LABEL);
        if labels.is_empty() {
            if let Some(m) = t["metadata"].as_object_mut() {
                m.shift_remove("labels");
            }
        }
    }
    t
}

/// Oldest first; the name breaks ties.
fn by_creation(a: &Value, b: &Value) -> std::cmp::Ordering {
    (meta_str(a, "creationTimestamp"), meta_str(a, "name"))
        .cmp(&(meta_str(b, "creationTimestamp"), meta_str(b, "name")))
}

fn set_annotation(obj: &mut Value, key: &str, value: String) -> bool {
    let meta = match obj.get_mut("metadata").and_then(Value::as_object_mut) {
        Some(m) => m,
        None => return false,
    };
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    if annotations[key].as_str() == Some(value.as_str()) {
        return false;
    }
    annotations[key] = json!(value);
    true
}

/// Sets `desired-replicas` and `max-replicas`; whether they changed.
fn set_replicas_annotations(rs: &mut Value, desired: i64, max: i64) -> bool {
    let a = set_annotation(rs, DESIRED_REPLICAS, desired.to_string());
    let b = set_annotation(rs, MAX_REPLICAS, max.to_string());
    a || b
}

/// One deployment's sync: its ReplicaSets as the cache holds them (new
/// and old), and the deployment as last written.
struct Sync<'a, 'c> {
    client: &'a mut Client<'c>,
    recorder: &'a mut Recorder,
    d: Value,
    /// Every ReplicaSet the deployment owns, updated as they are written.
    sets: Vec<Value>,
}

impl DeploymentController {
    fn sync_deployment(&mut self, client: &mut Client<'_>, d: Value) {
        let ns = meta_str(&d, "namespace").to_string();
        let in_ns: Vec<Value> =
            self.replica_sets.objects().filter(|rs| meta_str(rs, "namespace") == ns).cloned().collect();
        let mut s = Sync { client, recorder: &mut self.recorder, d, sets: Vec::new() };
        if !s.d["metadata"]["deletionTimestamp"].is_null() {
            s.sets = in_ns.into_iter().filter(|rs| s.owns(rs)).collect();
            let (new, old) = s.new_and_old(false);
            s.sync_status(new, old);
            return;
        }
        let Some(()) = s.claim_replica_sets(in_ns) else { return };
        if s.check_paused_conditions().is_none() {
            return;
        }
        if s.d["spec"]["paused"].as_bool() == Some(true) || s.is_scaling_event() {
            s.sync();
            return;
        }
        if is_rolling(&s.d) {
            s.rollout_rolling();
        } else {
            let pods: Vec<Arc<Value>> = self.pods.in_namespace(&ns).cloned().collect();
            s.rollout_recreate(&pods);
        }
    }
}

impl Sync<'_, '_> {
    fn uid(&self) -> &str {
        meta_str(&self.d, "uid")
    }

    fn owns(&self, rs: &Value) -> bool {
        controller_of(rs).is_some_and(|c| c["uid"].as_str() == Some(self.uid()))
    }

    fn now(&self) -> String {
        self.client.now_rfc3339()
    }

    /// Adopts orphans the selector matches and releases owned ones it no
    /// longer does (upstream's `ClaimReplicaSets`); None if the
    /// deployment cannot be synced.
    fn claim_replica_sets(&mut self, in_ns: Vec<Value>) -> Option<()> {
        let selector = spec_selector(&self.d)?;
        let uid = self.uid().to_string();
        for rs in in_ns {
            let path = path_of("apps/v1", "replicasets", &rs);
            let matches = selects(&selector, &rs);
            let owned = self.owns(&rs);
            let orphan = controller_of(&rs).is_none();
            let alive = rs["metadata"]["deletionTimestamp"].is_null();
            if owned && matches {
                self.sets.push(rs);
            } else if owned && alive {
                let body = json!({"metadata": {"ownerReferences": [{"$patch": "delete", "uid": uid}],
                    "uid": meta_str(&rs, "uid")}});
                self.client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
            } else if orphan && matches && alive {
                let body = json!({"metadata": {
                    "ownerReferences": [owner_reference(&self.d, "apps/v1", "Deployment")],
                    "uid": meta_str(&rs, "uid")}});
                let r = self.client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
                if r.status == 200 {
                    self.sets.push(r.json_body());
                }
            }
        }
        Some(())
    }

    /// The deployment's status written back (with its annotations); false
    /// when the write failed (the next pass starts over).
    fn update_status(&mut self) -> bool {
        let mut body = self.d.clone();
        body["kind"] = json!("Deployment");
        body["apiVersion"] = json!("apps/v1");
        let path = format!("{}/status", path_of("apps/v1", "deployments", &self.d));
        let r = self.client.write("PUT", &path, "application/json", &body);
        if r.status == 200 {
            self.d = r.json_body();
            true
        } else {
            false
        }
    }

    /// A ReplicaSet written whole; the written one replaces it.
    fn update_rs(&mut self, rs: &Value) -> Option<Value> {
        let mut body = rs.clone();
        body["kind"] = json!("ReplicaSet");
        body["apiVersion"] = json!("apps/v1");
        let r = self.client.write("PUT", &path_of("apps/v1", "replicasets", rs), "application/json", &body);
        if r.status != 200 {
            return None;
        }
        let written = r.json_body();
        let uid = meta_str(&written, "uid").to_string();
        for s in &mut self.sets {
            if meta_str(s, "uid") == uid {
                *s = written.clone();
            }
        }
        Some(written)
    }

    fn event(&mut self, reason: &str, message: String) {
        let d = self.d.clone();
        self.recorder.event(self.client, &d, ("apps/v1", "Deployment"), "", EventType::Normal, reason, &message);
    }

    /// The ReplicaSet of the current template (made if `create`), and the
    /// others; the revision annotations synced.
    fn new_and_old(&mut self, create: bool) -> (Option<Value>, Vec<Value>) {
        self.sets.order_by(by_creation);
        let template = without_hash(&self.d["spec"]["template"]);
        let new_index = self.sets.iter().position(|rs| without_hash(&rs["spec"]["template"]) == template);
        let old: Vec<Value> =
            self.sets.iter().enumerate().filter(|(i, _)| Some(*i) != new_index).map(|(_, rs)| rs.clone()).collect();
        let max_old = old.iter().map(revision_of).max().unwrap_or(0);
        let new_revision = max_old + 1;
        let new = match new_index {
            Some(i) => self.sync_existing_new(self.sets[i].clone(), new_revision),
            None if create => self.create_new(&old, new_revision),
            None => None,
        };
        (new, old)
    }

    /// Copies the deployment's annotations and the revision to a
    /// ReplicaSet; whether anything changed.
    fn set_new_rs_annotations(&self, rs: &mut Value, new_revision: i64, exists: bool) -> bool {
        let mut changed = false;
        if let Some(annotations) = self.d["metadata"]["annotations"].as_object() {
            for (k, v) in annotations {
                if NOT_COPIED.contains(&k.as_str()) {
                    continue;
                }
                changed |= set_annotation(rs, k, v.as_str().unwrap_or("").to_string());
            }
        }
        let old_revision = rs["metadata"]["annotations"][REVISION].as_str().unwrap_or("").to_string();
        let old_int = if old_revision.is_empty() {
            0
        } else {
            match old_revision.parse::<i64>() {
                Ok(n) => n,
                Err(_) => return false,
            }
        };
        if old_int < new_revision {
            changed |= set_annotation(rs, REVISION, new_revision.to_string());
            if !old_revision.is_empty() {
                let history = rs["metadata"]["annotations"][REVISION_HISTORY].as_str().unwrap_or("").to_string();
                if history.is_empty() {
                    set_annotation(rs, REVISION_HISTORY, old_revision);
                } else {
                    let mut olds: Vec<&str> = history.split(',').collect();
                    let mut total = history.len() + old_revision.len() + 1;
                    while total > MAX_HISTORY_CHARS && !olds.is_empty() {
                        total -= olds[0].len() + 1;
                        olds.remove(0);
                    }
                    if total <= MAX_HISTORY_CHARS {
                        olds.push(&old_revision);
                        set_annotation(rs, REVISION_HISTORY, olds.join(","));
                    }
                }
            }
        }
        if !exists {
            changed |= set_replicas_annotations(rs, replicas(&self.d), replicas(&self.d) + max_surge(&self.d));
        }
        changed
    }

    fn sync_existing_new(&mut self, rs: Value, new_revision: i64) -> Option<Value> {
        let mut copy = rs.clone();
        let annotations_changed = self.set_new_rs_annotations(&mut copy, new_revision, true);
        let min_ready = self.d["spec"]["minReadySeconds"].clone();
        let min_ready_changed = copy["spec"]["minReadySeconds"] != min_ready;
        let rs = if annotations_changed || min_ready_changed {
            if let Some(spec) = copy["spec"].as_object_mut() {
                match min_ready {
                    Value::Null => spec.shift_remove("minReadySeconds"),
                    v => spec.insert("minReadySeconds".into(), v),
                };
            }
            self.update_rs(&copy)?
        } else {
            rs
        };
        let revision = rs["metadata"]["annotations"][REVISION].as_str().unwrap_or("").to_string();
        let mut needs_update = set_annotation(&mut self.d, REVISION, revision);
        if condition(&self.d["status"], "Progressing").is_none() {
            let mut status = status_map(&self.d);
            let message = format!("Found new replica set {:?}", meta_str(&rs, "name"));
            let now = self.now();
            set_condition(&mut status, &now, "Progressing", "True", "FoundNewReplicaSet", &message);
            self.d["status"] = Value::Object(status);
            needs_update = true;
        }
        if needs_update && !self.update_status() {
            return None;
        }
        Some(rs)
    }

    /// How many replicas the new ReplicaSet may have now.
    fn new_rs_replicas(&self, all: &[&Value], new: &Value) -> i64 {
        let want = replicas(&self.d);
        if !is_rolling(&self.d) {
            return want;
        }
        let current: i64 = all.iter().map(|rs| replicas(rs)).sum();
        let max_total = want + max_surge(&self.d);
        if current >= max_total {
            return replicas(new);
        }
        let up = (max_total - current).min(want - replicas(new));
        replicas(new) + up
    }

    fn create_new(&mut self, old: &[Value], new_revision: i64) -> Option<Value> {
        let collision = self.d["status"]["collisionCount"].as_i64();
        let hash = template_hash(&self.d["spec"]["template"], collision);
        let mut template = self.d["spec"]["template"].clone();
        template["metadata"]["labels"][HASH_LABEL] = json!(hash);
        let mut selector = self.d["spec"]["selector"].clone();
        selector["matchLabels"][HASH_LABEL] = json!(hash);
        let name = format!("{}-{hash}", meta_str(&self.d, "name"));
        let mut rs = json!({
            "kind": "ReplicaSet", "apiVersion": "apps/v1",
            "metadata": {"name": name, "namespace": meta_str(&self.d, "namespace"),
                "labels": template["metadata"]["labels"].clone(),
                "ownerReferences": [owner_reference(&self.d, "apps/v1", "Deployment")]},
            "spec": {"replicas": 0, "selector": selector, "template": template},
        });
        if let Some(m) = self.d["spec"].get("minReadySeconds").filter(|v| !v.is_null()) {
            rs["spec"]["minReadySeconds"] = m.clone();
        }
        let all: Vec<&Value> = old.iter().chain(std::iter::once(&rs)).collect();
        let count = self.new_rs_replicas(&all, &rs);
        rs["spec"]["replicas"] = json!(count);
        self.set_new_rs_annotations(&mut rs, new_revision, false);
        let collection = super::object::collection("apps/v1", meta_str(&self.d, "namespace"), "replicasets");
        let r = self.client.write("POST", &collection, "application/json", &rs);
        let created = match r.status {
            201 => r.json_body(),
            409 => {
                // Someone has the name: ours if it is our template,
                // otherwise a hash collision (count it and try again).
                let got = self.client.get(&format!("{collection}/{name}"));
                let existing = got.json_body();
                if got.status == 200
                    && self.owns(&existing)
                    && without_hash(&existing["spec"]["template"]) == without_hash(&self.d["spec"]["template"])
                {
                    return Some(existing);
                }
                let mut status = status_map(&self.d);
                status.insert("collisionCount".into(), json!(collision.unwrap_or(0) + 1));
                self.d["status"] = Value::Object(status);
                self.update_status();
                return None;
            }
            _ => return None,
        };
        if count > 0 {
            self.event("ScalingReplicaSet", format!("Scaled up replica set {name} from 0 to {count}"));
        }
        self.sets.push(created.clone());
        set_annotation(&mut self.d, REVISION, new_revision.to_string());
        let mut status = status_map(&self.d);
        let now = self.now();
        let message = format!("Created new replica set {name:?}");
        set_condition(&mut status, &now, "Progressing", "True", "NewReplicaSetCreated", &message);
        self.d["status"] = Value::Object(status);
        self.update_status();
        Some(created)
    }

    /// Scales a ReplicaSet (and refreshes its replicas annotations);
    /// whether its size changed.
    fn scale(&mut self, rs: &Value, to: i64) -> bool {
        let from = replicas(rs);
        let mut copy = rs.clone();
        let annotations =
            set_replicas_annotations(&mut copy, replicas(&self.d), replicas(&self.d) + max_surge(&self.d));
        if from == to && !annotations {
            return false;
        }
        copy["spec"]["replicas"] = json!(to);
        if self.update_rs(&copy).is_none() || from == to {
            return false;
        }
        let op = if from < to { "up" } else { "down" };
        self.event(
            "ScalingReplicaSet",
            format!("Scaled {op} replica set {} from {from} to {to}", meta_str(rs, "name")),
        );
        true
    }

    /// Scales unless the size is already right (upstream's
    /// `scaleReplicaSetAndRecordEvent`).
    fn scale_if_needed(&mut self, rs: &Value, to: i64) -> bool {
        replicas(rs) != to && self.scale(rs, to)
    }

    fn is_scaling_event(&mut self) -> bool {
        let (new, old) = self.new_and_old(false);
        let want = replicas(&self.d);
        new.iter()
            .chain(old.iter())
            .filter(|rs| replicas(rs) > 0)
            .any(|rs| annotation_int(rs, DESIRED_REPLICAS).is_some_and(|n| n != want))
    }

    /// Scaling only (paused, or `spec.replicas` changed), then the status.
    fn sync(&mut self) {
        let (new, old) = self.new_and_old(false);
        self.scale_all(new.as_ref(), &old);
        let (new, old) = (self.fresh_opt(new.as_ref()), self.fresh_all(&old));
        if self.d["spec"]["paused"].as_bool() == Some(true) {
            self.cleanup(&old);
        }
        self.sync_status(new, old);
    }

    /// The cached copy of a ReplicaSet after this sync's writes.
    fn fresh(&self, rs: &Value) -> Value {
        self.sets.iter().find(|s| meta_str(s, "uid") == meta_str(rs, "uid")).cloned().unwrap_or_else(|| rs.clone())
    }

    fn fresh_opt(&self, rs: Option<&Value>) -> Option<Value> {
        rs.map(|r| self.fresh(r))
    }

    fn fresh_all(&self, sets: &[Value]) -> Vec<Value> {
        sets.iter().map(|r| self.fresh(r)).collect()
    }

    fn scale_all(&mut self, new: Option<&Value>, old: &[Value]) {
        let want = replicas(&self.d);
        let mut old_sorted = old.to_vec();
        old_sorted.order_by(by_creation);
        let active: Vec<Value> = old_sorted.iter().chain(new).filter(|rs| replicas(rs) > 0).cloned().collect();
        let single = match active.len() {
            0 => new.cloned().or_else(|| old_sorted.last().cloned()),
            1 => Some(active[0].clone()),
            _ => None,
        };
        if let Some(rs) = single {
            self.scale_if_needed(&rs, want);
            return;
        }
        let saturated = new.is_some_and(|n| {
            replicas(n) == want
                && annotation_int(n, DESIRED_REPLICAS) == Some(want)
                && int(n, "/status/availableReplicas") == want
        });
        if saturated {
            for rs in old_sorted.iter().filter(|rs| replicas(rs) > 0) {
                self.scale_if_needed(rs, 0);
            }
            return;
        }
        if !is_rolling(&self.d) {
            return;
        }
        let total: i64 = active.iter().map(replicas).sum();
        let allowed = if want > 0 { want + max_surge(&self.d) } else { 0 };
        let to_add = allowed - total;
        let mut sets = active;
        // Largest first; on a tie the newer when adding, the older when
        // removing.
        sets.order_by(|a, b| {
            replicas(b).cmp(&replicas(a)).then_with(|| if to_add > 0 { by_creation(b, a) } else { by_creation(a, b) })
        });
        let mut sizes: Vec<i64> = Vec::with_capacity(sets.len());
        let mut added = 0;
        for rs in &sets {
            if to_add != 0 {
                let p = self.proportion(rs, to_add, added);
                sizes.push(replicas(rs) + p);
                added += p;
            } else {
                sizes.push(replicas(rs));
            }
        }
        if to_add != 0 {
            if let Some(first) = sizes.first_mut() {
                *first = (*first + to_add - added).max(0);
            }
        }
        for (rs, size) in sets.iter().zip(sizes) {
            self.scale(rs, size);
        }
    }

    /// A ReplicaSet's share of a proportional scale.
    fn proportion(&self, rs: &Value, to_add: i64, added: i64) -> i64 {
        if replicas(rs) == 0 || to_add == 0 || to_add == added {
            return 0;
        }
        let fraction = if replicas(&self.d) == 0 {
            -replicas(rs)
        } else {
            let total = replicas(&self.d) + max_surge(&self.d);
            let annotated = annotation_int(rs, MAX_REPLICAS).unwrap_or_else(|| int(&self.d, "/status/replicas"));
            if annotated == 0 {
                0
            } else {
                ((replicas(rs) * total) as f64 / annotated as f64).round() as i64 - replicas(rs)
            }
        };
        let allowed = to_add - added;
        if to_add > 0 {
            fraction.min(allowed)
        } else {
            fraction.max(allowed)
        }
    }

    fn rollout_rolling(&mut self) {
        let (new, old) = self.new_and_old(true);
        let Some(new) = new else { return };
        // Scale the new ReplicaSet up within the surge.
        let want = replicas(&self.d);
        let all: Vec<&Value> = old.iter().chain(std::iter::once(&new)).collect();
        let scaled_up = match replicas(&new).cmp(&want) {
            std::cmp::Ordering::Equal => false,
            std::cmp::Ordering::Greater => self.scale_if_needed(&new, want),
            std::cmp::Ordering::Less => {
                let n = self.new_rs_replicas(&all, &new);
                self.scale_if_needed(&new, n)
            }
        };
        let (new, old) = (self.fresh(&new), self.fresh_all(&old));
        if scaled_up {
            self.sync_rollout_status(Some(new), old);
            return;
        }
        let scaled_down = self.reconcile_old(&new, &old);
        let (new, old) = (self.fresh(&new), self.fresh_all(&old));
        if scaled_down {
            self.sync_rollout_status(Some(new), old);
            return;
        }
        if self.complete(&self.d["status"]) {
            self.cleanup(&old);
        }
        self.sync_rollout_status(Some(new), self.fresh_all(&old));
    }

    /// Scales old ReplicaSets down within maxUnavailable; whether any was.
    fn reconcile_old(&mut self, new: &Value, old: &[Value]) -> bool {
        let mut active: Vec<Value> = old.iter().filter(|rs| replicas(rs) > 0).cloned().collect();
        let old_pods: i64 = active.iter().map(replicas).sum();
        if old_pods == 0 {
            return false;
        }
        let all_pods: i64 = old_pods + replicas(new);
        let min_available = replicas(&self.d) - max_unavailable(&self.d);
        let new_unavailable = replicas(new) - int(new, "/status/availableReplicas");
        let max_down = all_pods - min_available - new_unavailable;
        if max_down <= 0 {
            return false;
        }
        // Unhealthy replicas first.
        active.order_by(by_creation);
        let mut cleaned = 0;
        for rs in active.clone() {
            if cleaned >= max_down {
                break;
            }
            let (want, available) = (replicas(&rs), int(&rs, "/status/availableReplicas"));
            if want == 0 || want == available {
                continue;
            }
            let down = (max_down - cleaned).min(want - available);
            if self.scale(&rs, want - down) {
                cleaned += down;
            }
        }
        // Then healthy ones, as far as availability allows.
        let all: Vec<Value> = self.fresh_all(&active).into_iter().chain(std::iter::once(self.fresh(new))).collect();
        let available: i64 = all.iter().map(|rs| int(rs, "/status/availableReplicas")).sum();
        let mut down_total = 0;
        if available > min_available {
            let budget = available - min_available;
            for rs in self.fresh_all(&active) {
                if down_total >= budget {
                    break;
                }
                if replicas(&rs) == 0 {
                    continue;
                }
                let down = replicas(&rs).min(budget - down_total);
                if self.scale(&rs, replicas(&rs) - down) {
                    down_total += down;
                }
            }
        }
        cleaned + down_total > 0
    }

    fn rollout_recreate(&mut self, pods: &[Arc<Value>]) {
        let (mut new, old) = self.new_and_old(false);
        let mut scaled_down = false;
        for rs in old.iter().filter(|rs| replicas(rs) > 0) {
            scaled_down |= self.scale(rs, 0);
        }
        let old = self.fresh_all(&old);
        if scaled_down || self.old_pods_running(new.as_ref(), &old, pods) {
            self.sync_rollout_status(new, old);
            return;
        }
        if new.is_none() {
            new = self.new_and_old(true).0;
        }
        let Some(n) = new else { return };
        self.scale_if_needed(&n, replicas(&self.d));
        let old = self.fresh_all(&old);
        if self.complete(&self.d["status"]) {
            self.cleanup(&old);
        }
        self.sync_rollout_status(Some(self.fresh(&n)), self.fresh_all(&old));
    }

    fn old_pods_running(&self, new: Option<&Value>, old: &[Value], pods: &[Arc<Value>]) -> bool {
        if old.iter().map(|rs| int(rs, "/status/replicas")).sum::<i64>() > 0 {
            return true;
        }
        let new_uid = new.map(|n| meta_str(n, "uid"));
        pods.iter().any(|p| {
            let Some(owner) = controller_of(p).and_then(|c| c["uid"].as_str()) else { return false };
            Some(owner) != new_uid
                && old.iter().any(|rs| meta_str(rs, "uid") == owner)
                && !matches!(p["status"]["phase"].as_str(), Some("Succeeded") | Some("Failed"))
        })
    }

    /// Deletes old ReplicaSets beyond the history limit, lowest revision
    /// first, when they have no replicas.
    fn cleanup(&mut self, old: &[Value]) {
        let Some(limit) = self.d["spec"]["revisionHistoryLimit"].as_i64() else { return };
        let mut alive: Vec<&Value> = old.iter().filter(|rs| rs["metadata"]["deletionTimestamp"].is_null()).collect();
        let diff = alive.len() as i64 - limit;
        if diff <= 0 {
            return;
        }
        alive.order_by(|a, b| revision_of(a).cmp(&revision_of(b)).then_with(|| by_creation(a, b)));
        for rs in alive.into_iter().take(diff as usize) {
            if int(rs, "/status/replicas") != 0
                || replicas(rs) != 0
                || int(rs, "/metadata/generation") > int(rs, "/status/observedGeneration")
            {
                continue;
            }
            let body = json!({"kind": "DeleteOptions", "apiVersion": "v1",
                "preconditions": {"uid": meta_str(rs, "uid")}});
            self.client.write("DELETE", &path_of("apps/v1", "replicasets", rs), "application/json", &body);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_spelled_with_safe_letters_and_moves_with_the_collision_count() {
        let t = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}});
        let h = template_hash(&t, None);
        assert!(h.chars().all(|c| "456789bcdf".contains(c)), "{h}");
        assert!((1..=10).contains(&h.len()));
        // Key order does not matter; the collision count does.
        let reordered =
            json!({"spec": {"containers": [{"image": "x", "name": "c"}]}, "metadata": {"labels": {"app": "web"}}});
        assert_eq!(template_hash(&reordered, None), h);
        assert_ne!(template_hash(&t, Some(1)), h);
    }

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        let d = |surge: Value, unavailable: Value, n: i64| {
            json!({"spec": {"replicas": n, "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}}})
        };
        assert_eq!(fenceposts(&d(json!("25%"), json!("25%"), 10)), (3, 2));
        assert_eq!(fenceposts(&d(json!(0), json!(0), 10)), (0, 1));
        assert_eq!(fenceposts(&d(json!("0%"), json!("10%"), 3)), (0, 1));
        assert_eq!(max_unavailable(&d(json!(1), json!(5), 3)), 3);
    }
}
