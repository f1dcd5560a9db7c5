//! Simulated kubelets (KWOK-like), one per Node, as clients: each keeps
//! its node's heartbeat Lease in `kube-node-lease` (renewed every 10 s of
//! simulated time) and runs the pods bound
//! to it. A bound pod first reports `Pending` with its containers
//! `ContainerCreating` (hostIP, startTime, the conditions
//! `PodReadyToStartContainers`, `Initialized`, `Ready`, `ContainersReady`,
//! `PodScheduled`), then `Running` with a pod IP from the node's
//! `spec.podCIDR`, every container running and ready (one with a startup
//! or readiness probe not `started`/`ready` until its probes have
//! succeeded, after their initial delays on simulated time: those probes
//! succeed unless the output model says they fail; a failing liveness
//! probe kills the container, a failing readiness probe makes it unready),
//! each step a strategic merge patch of `/status` carrying the
//! pod's uid. A container whose program ends at once (the output model of
//! `server::logs` says which) is `terminated` with its exit code: the pod
//! `Succeeded` or `Failed` under `restartPolicy: Never` (or OnFailure and
//! exit 0), otherwise it is started again at once, ends again, and waits
//! in `CrashLoopBackOff` with one restart and a `BackOff` event. Events: `Pulled` ("Container image … already present on
//! machine": simulated nodes have every image), `Created`, `Started`.
//!
//! Both steps happen at the same simulated instant. As simulated time
//! passes (`next_wake`), containers that run a while (`sleep N`) end, and
//! a container that ends is started again at once the first time, later
//! ones waiting in CrashLoopBackOff until their back-off (10 s, doubling to
//! 5 min) is over; a deleted pod is stopped within its grace
//! period (docs/fidelity.md).

use std::collections::{BTreeMap, BTreeSet};

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{Client, Identity};
use super::events::{EventType, Recorder};
use super::informer::{key_of, Informer};
use super::object::{meta_str, path_of};
use super::{Controller, Progress};
use crate::clock::{parse_rfc3339, SimTime};

mod config;
mod init;
mod resize;

pub struct Kubelets {
    pods: Informer,
    nodes: Informer,
    leases: Informer,
    /// Each node's event recorder (its host is the node).
    recorders: BTreeMap<String, Recorder>,
    /// Pods being stopped (their `Killing` events recorded), by uid.
    stopping: BTreeSet<String>,
    /// When the next grace period ends.
    wake: Option<SimTime>,
    /// When the first node Lease is due to be renewed (`i64::MAX`: none).
    leases_due: i64,
    /// When each pod (by cache key) next needs its kubelet though nothing
    /// changed: a grace period ending, a container ending or restarting.
    wakes: BTreeMap<String, i64>,
    /// The pod IPs in use on each node, kept up to date from the pod
    /// informer's changes.
    taken: BTreeMap<String, BTreeSet<String>>,
    /// The pods (by cache key) whose resize waits for room on their node
    /// (`PodResizePending`, `Deferred`), kept from the informer's changes.
    deferred: BTreeSet<String>,
    /// The pods (by cache key) a container of which could not be made
    /// (its image or its configuration wanting), when they are tried
    /// again, and their spec's fingerprint (a changed spec is tried at
    /// once).
    retry: BTreeMap<String, (i64, u64)>,
    /// Image pulls that failed, backed off.
    pulls: config::Pulls,
    /// Each running container whose liveness or readiness probe has
    /// failed (by pod uid, name and start; `/readiness` after the start
    /// for the latter), how far its failures have been told (for liveness,
    /// one more than the threshold once it is being killed).
    probe_failures: BTreeMap<String, i64>,
}

impl Default for Kubelets {
    fn default() -> Self {
        Kubelets {
            pods: Informer::tracking("/api/v1/pods"),
            nodes: Informer::new("/api/v1/nodes"),
            leases: Informer::new("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"),
            recorders: BTreeMap::new(),
            stopping: BTreeSet::new(),
            wake: None,
            leases_due: i64::MAX,
            wakes: BTreeMap::new(),
            taken: BTreeMap::new(),
            deferred: BTreeSet::new(),
            retry: BTreeMap::new(),
            pulls: BTreeMap::new(),
            probe_failures: BTreeMap::new(),
        }
    }
}

/// An image as the runtime reports it (`nginx` → `docker.io/library/nginx:latest`).
pub fn full_image(image: &str) -> String {
    let (name, tag) = match image.rsplit_once(':').filter(|(_, t)| !t.contains('/')) {
        Some((n, t)) => (n.to_string(), format!(":{t}")),
        None if image.contains('@') => (image.to_string(), String::new()),
        None => (image.to_string(), ":latest".to_string()),
    };
    let first = name.split('/').next().unwrap_or("");
    let registry = first.contains('.') || first.contains(':') || first == "localhost";
    let name = match (registry, name.contains('/')) {
        (true, _) => name,
        (false, true) => format!("docker.io/{name}"),
        (false, false) => format!("docker.io/library/{name}"),
    };
    format!("{name}{tag}")
}

/// 64 hex digits drawn from `seed` (FNV-1a, chained): stable stand-ins
/// for container and image digests.
fn digest(seed: &str) -> String {
    let mut out = String::with_capacity(64);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0..4u8 {
        for b in seed.bytes().chain(std::iter::once(round)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out
}

/// A container as the runtime names what it made: the image in full
/// (`full_image`), the image's ID (`repo@sha256:…`, a stable digest of
/// it) and a `containerd://` ID drawn from `seed` (the pod's uid and the
/// container's name, and for an init container its restart count).
fn runtime_ids(image: &str, seed: &str) -> (String, String, String) {
    let full = full_image(image);
    let repo = full.rsplit_once(':').map(|(r, _)| r).unwrap_or(&full);
    let image_id = format!("{repo}@sha256:{}", digest(&full));
    (full, image_id, format!("containerd://{}", digest(seed)))
}

/// The first free address of a /24 (or wider) IPv4 CIDR, from .2 up
/// (upstream's host-local IPAM leaves .1 to the gateway).
fn next_ip(cidr: &str, taken: &BTreeSet<String>) -> Option<String> {
    let (base, bits) = cidr.split_once('/')?;
    let bits: u32 = bits.parse().ok()?;
    let octets: Vec<u32> = base.split('.').map(|o| o.parse().ok()).collect::<Option<_>>()?;
    if octets.len() != 4 || !(8..=30).contains(&bits) {
        return None;
    }
    let start = (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3];
    let size = 1u32 << (32 - bits);
    (2..size - 1)
        .map(|i| start + i)
        .map(|a| format!("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255))
        .find(|ip| !taken.contains(ip))
}

/// `$setElementOrder/conditions`, as the kubelet's two-way patch of a
/// status carries it: the pod's conditions the kubelet does not write
/// where they were, then the kubelet's in the order it lists them
/// (PodReadyToStartContainers, Initialized, Ready, ContainersReady,
/// PodScheduled), which is the order they are stored in.
fn in_kubelet_order(pod: &Value, status: &mut Value) {
    let empty = Vec::new();
    let ours = status["conditions"].as_array().unwrap_or(&empty);
    let mut order = Vec::new();
    for c in pod["status"]["conditions"].as_array().unwrap_or(&empty) {
        if !ours.iter().any(|o| o["type"] == c["type"]) {
            order.push(json!({"type": c["type"]}));
        }
    }
    for c in ours {
        order.push(json!({"type": c["type"]}));
    }
    status["$setElementOrder/conditions"] = Value::Array(order);
}

/// A fingerprint of the pod's spec, to tell a changed one.
#[inline(never)]
fn spec_print(pod: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    pod["spec"].to_string().hash(&mut h);
    h.finish()
}

/// A pod condition as the kubelet writes it. A true one has no reason or
/// message: the nulls remove those a false one had (the kubelet's status
/// patches are strategic merges, which would otherwise keep them).
fn condition(type_: &str, status: bool, now: &str) -> Value {
    let mut c = json!({"type": type_, "status": if status { "True" } else { "False" }, "lastProbeTime": null,
        "lastTransitionTime": now});
    if status {
        c["reason"] = Value::Null;
        c["message"] = Value::Null;
    }
    c
}

/// A pod's phase from its containers' states, as the kubelet's
/// `getPhase` counts them: a container waiting that never ran (its image
/// or configuration wanting) keeps the pod `Pending`; one running makes it
/// `Running`; when every one has stopped (a crash-looping one waits with a
/// last termination: it counts as stopped), the restart policy decides.
fn phase_of(policy: &str, statuses: &[Value]) -> &'static str {
    let (mut waiting, mut running, mut stopped, mut succeeded) = (0, 0, 0, 0);
    for s in statuses {
        let state = &s["state"];
        if state["running"].is_object() {
            running += 1;
        } else if let Some(code) = state["terminated"]["exitCode"].as_i64() {
            stopped += 1;
            succeeded += usize::from(code == 0);
        } else if s["lastState"]["terminated"].is_object() {
            stopped += 1;
        } else {
            waiting += 1;
        }
    }
    match () {
        _ if waiting > 0 => "Pending",
        _ if running > 0 => "Running",
        _ if stopped == 0 => "Pending",
        _ if policy == "Always" => "Running",
        _ if stopped == succeeded => "Succeeded",
        _ if policy == "Never" => "Failed",
        _ => "Running",
    }
}

/// The conditions the kubelet writes for a pod whose containers have been
/// made (or tried): the sandbox ready until the pod has finished, `Ready`
/// and `ContainersReady` when it runs and every container is ready (else
/// `ContainersNotReady` naming the unready, or `PodCompleted`). A
/// condition whose status is unchanged keeps its transition time.
fn pod_conditions(pod: &Value, phase: &str, statuses: &[Value], at: &str) -> Vec<Value> {
    let finished = matches!(phase, "Succeeded" | "Failed");
    let ready = phase == "Running" && statuses.iter().all(|s| s["ready"] == true);
    let mut conditions = vec![
        condition("PodReadyToStartContainers", !finished, at),
        condition("Initialized", true, at),
        condition("Ready", ready, at),
        condition("ContainersReady", ready, at),
        condition("PodScheduled", true, at),
    ];
    let unready: Vec<&str> =
        statuses.iter().filter(|s| s["ready"] != true).filter_map(|s| s["name"].as_str()).collect();
    let old = pod["status"]["conditions"].as_array().map(Vec::as_slice).unwrap_or_default();
    for c in conditions.iter_mut() {
        if c["status"] == "False" && c["type"] != "PodReadyToStartContainers" {
            if finished {
                c["reason"] = json!("PodCompleted");
            } else {
                c["reason"] = json!("ContainersNotReady");
                c["message"] = json!(format!("containers with unready status: [{}]", unready.join(" ")));
            }
        }
        if let Some(o) = old.iter().find(|o| o["type"] == c["type"] && o["status"] == c["status"]) {
            c["lastTransitionTime"] = o["lastTransitionTime"].clone();
        }
    }
    conditions
}

fn internal_ip(node: &Value) -> String {
    node["status"]["addresses"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["type"] == "InternalIP"))
        .and_then(|a| a["address"].as_str())
        .unwrap_or("")
        .to_string()
}

impl Controller for Kubelets {
    fn name(&self) -> &'static str {
        "kubelet"
    }

    fn service_account(&self) -> &'static str {
        "kubelet"
    }

    fn identity(&self) -> Identity {
        Identity::component("kubelet")
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let pods_changed = self.pods.sync(client);
        let nodes_changed = self.nodes.sync(client);
        let leases_changed = self.leases.sync(client);
        let due = self.wake.is_some_and(|w| w.0 <= client.now_millis());
        if !(pods_changed || nodes_changed || leases_changed || due) {
            return Progress::default();
        }
        let nodes: Vec<Arc<Value>> = self.nodes.shared().cloned().collect();
        self.leases_due = i64::MAX;
        for node in &nodes {
            self.leases_due = self.leases_due.min(self.heartbeat(client, node));
        }
        // The pods to look at: those that changed and those whose time has
        // come (every pod when the nodes changed), not every pod each time.
        let mut look: BTreeSet<String> = BTreeSet::new();
        for (old, new) in self.pods.take_changes() {
            if let Some(pod) = old.as_ref().or(new.as_ref()) {
                look.insert(key_of(pod));
                match new.as_deref().is_some_and(resize::deferred) {
                    true => self.deferred.insert(key_of(pod)),
                    false => self.deferred.remove(&key_of(pod)),
                };
            }
            for (pod, add) in [(old, false), (new, true)] {
                let Some(pod) = pod else { continue };
                let (Some(node), Some(ip)) = (pod["spec"]["nodeName"].as_str(), pod["status"]["podIP"].as_str()) else {
                    continue;
                };
                let ips = self.taken.entry(node.to_string()).or_default();
                if add {
                    ips.insert(ip.to_string());
                } else {
                    ips.remove(ip);
                }
            }
        }
        // A pod on a node changed: the resizes waiting there for room
        // are tried again.
        if !look.is_empty() {
            look.extend(self.deferred.iter().cloned());
        }
        let now = client.now_millis();
        look.extend(self.wakes.iter().filter(|(_, t)| **t <= now).map(|(k, _)| k.clone()));
        if nodes_changed {
            look.extend(self.pods.shared().map(|p| key_of(p)));
        }
        for key in &look {
            self.wakes.remove(key);
        }
        let looked: Vec<Arc<Value>> = look.iter().filter_map(|k| self.pods.shared_get(k)).cloned().collect();
        // Addresses in use on the nodes this round starts pods on, with
        // the ones it gives out.
        let mut taken: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let bound: Vec<Arc<Value>> = looked
            .iter()
            .filter(|p| p["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty()))
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .filter(|p| matches!(p["status"]["phase"].as_str(), None | Some("Pending")))
            .cloned()
            .collect();
        for pod in bound {
            let key = key_of(&pod);
            if !self.retry.is_empty() && self.retry.contains_key(&key) && self.waits(client, &key, &pod, now) {
                continue;
            }
            let node_name = pod["spec"]["nodeName"].as_str().unwrap_or("").to_string();
            let Some(node) = nodes.iter().find(|n| meta_str(n, "name") == node_name) else { continue };
            let used = taken
                .entry(node_name.clone())
                .or_insert_with(|| self.taken.get(&node_name).cloned().unwrap_or_default());
            if let Some(at) = self.start(client, &pod, node, used) {
                self.retry.insert(key.clone(), (at, spec_print(&pod)));
                self.wakes.insert(key, at);
            }
        }
        if !self.retry.is_empty() {
            self.retry.retain(|k, _| self.pods.shared_get(k).is_some());
        }
        if !self.pulls.is_empty() {
            let pods = &self.pods;
            self.pulls.retain(|(pod, _, _), _| pods.shared_get(pod).is_some());
        }
        if !self.probe_failures.is_empty() {
            let uids: BTreeSet<&str> = self.pods.shared().map(|p| meta_str(p, "uid")).collect();
            self.probe_failures.retain(|k, _| uids.contains(k.split('/').next().unwrap_or("")));
        }
        // Pods being deleted: stopped, then removed.
        if looked.iter().any(|p| !p["metadata"]["deletionTimestamp"].is_null()) {
            self.stop_deleted(client, &looked, &nodes);
        }
        // Running pods whose containers end or restart as time passes.
        let running: Vec<Arc<Value>> = looked
            .iter()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null() && p["status"]["phase"] == "Running")
            .filter(|p| p["spec"]["nodeName"].as_str().is_some_and(|n| nodes.iter().any(|x| meta_str(x, "name") == n)))
            .cloned()
            .collect();
        for pod in running {
            self.start_ephemeral(client, &pod);
            let node_name = pod["spec"]["nodeName"].as_str().unwrap_or("");
            if let Some(node) = nodes.iter().find(|n| meta_str(n, "name") == node_name) {
                self.resize(client, &pod, node);
            }
            if let Some(when) = self.advance(client, &pod) {
                let key = key_of(&pod);
                let at = self.wakes.get(&key).map_or(when.0, |t| (*t).min(when.0));
                self.wakes.insert(key, at);
            }
        }
        let first = self.wakes.values().min().map_or(self.leases_due, |t| self.leases_due.min(*t));
        self.wake = (first < i64::MAX).then_some(SimTime(first));
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.wake
    }
}

impl Kubelets {
    /// The node's Lease, made when missing, and renewed every 10 s (a
    /// fourth of its 40 s, as the kubelet's lease controller renews it);
    /// when it is next due (none when just made: the next pass sees it).
    fn heartbeat(&mut self, client: &mut Client<'_>, node: &Value) -> i64 {
        let name = meta_str(node, "name");
        if let Some(lease) = self.leases.get(&format!("kube-node-lease/{name}")) {
            let renewed = lease["spec"]["renewTime"].as_str().and_then(parse_rfc3339).unwrap_or(0);
            return match renewed + RENEW_MS > client.now_millis() {
                true => renewed + RENEW_MS,
                false => renew(client, lease),
            };
        }
        let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": meta_str(node, "uid")}]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": micro_time(client)}});
        client.write(
            "POST",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
            "application/json",
            &lease,
        );
        i64::MAX
    }

    /// Stops the pods being deleted among those looked at (on a node
    /// there is). Not inlined: nothing is deleted while a server starts.
    #[inline(never)]
    fn stop_deleted(&mut self, client: &mut Client<'_>, looked: &[Arc<Value>], nodes: &[Arc<Value>]) {
        let on_node = |p: &&Arc<Value>| {
            p["spec"]["nodeName"].as_str().is_some_and(|n| nodes.iter().any(|x| meta_str(x, "name") == n))
        };
        for pod in looked.iter().filter(|p| !p["metadata"]["deletionTimestamp"].is_null()).filter(on_node) {
            if let Some(deadline) = self.stop(client, pod) {
                self.wakes.insert(key_of(pod), deadline.0);
            }
        }
    }

    /// Stops a pod being deleted: its containers are told to stop
    /// (`Killing`); once they have (at once, or when the grace period ends
    /// for those that ignore SIGTERM) its final status is written and it
    /// is deleted with no grace left. The deadline still waited for, if
    /// any. (Not inlined: nothing is deleted while a server starts, so the
    /// browser's module need not load this first.)
    #[inline(never)]
    fn stop(&mut self, client: &mut Client<'_>, pod: &Value) -> Option<SimTime> {
        let uid = meta_str(pod, "uid").to_string();
        let node = pod["spec"]["nodeName"].as_str().unwrap_or("").to_string();
        let containers: Vec<Value> = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
        let running = |name: &str| {
            pod["status"]["containerStatuses"]
                .as_array()
                .and_then(|s| s.iter().find(|s| s["name"] == name))
                .is_some_and(|s| !s["state"]["running"].is_null())
        };
        if self.stopping.insert(uid.clone()) {
            let recorder = self.recorder(&node);
            for c in containers.iter().filter(|c| running(c["name"].as_str().unwrap_or(""))) {
                let name = c["name"].as_str().unwrap_or("");
                let field = format!("spec.containers{{{name}}}");
                let message = format!("Stopping container {name}");
                recorder.event(client, pod, ("v1", "Pod"), &field, EventType::Normal, "Killing", &message);
            }
        }
        let deadline = SimTime(parse_rfc3339(meta_str(pod, "deletionTimestamp")).unwrap_or(0));
        let now = client.now_millis();
        let quick = containers
            .iter()
            .all(|c| !running(c["name"].as_str().unwrap_or("")) || crate::server::logs::stops_on_sigterm(c));
        if !quick && now < deadline.0 {
            return Some(deadline);
        }
        // Stopped: SIGTERM handled (exit 0), or killed (137).
        let at = client.now_rfc3339();
        let statuses: Vec<Value> = pod["status"]["containerStatuses"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|mut s| {
                if let Some(started) = s["state"]["running"]["startedAt"].as_str().map(str::to_string) {
                    let code = if quick { 0 } else { 137 };
                    s["state"] = json!({"terminated": {"exitCode": code, "reason": if code == 0 { "Completed" } else { "Error" },
                        "startedAt": started, "finishedAt": at, "containerID": s["containerID"]}});
                    s["ready"] = json!(false);
                    s["started"] = json!(false);
                }
                s
            })
            .collect();
        let status_path = format!("{}/status", path_of("v1", "pods", pod));
        if !statuses.is_empty() {
            let phase = if quick { "Succeeded" } else { "Failed" };
            let body = json!({"metadata": {"uid": uid}, "status": {"phase": phase, "containerStatuses": statuses}});
            client.write("PATCH", &status_path, "application/strategic-merge-patch+json", &body);
        }
        let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
            "preconditions": {"uid": uid}});
        client.write("DELETE", &path_of("v1", "pods", pod), "application/json", &body);
        self.stopping.remove(&uid);
        None
    }

    /// Ends the containers whose programs have run their time and
    /// restarts the ones whose back-off is over (10 s, doubling to 5 min);
    /// the next time one is due, if any.
    fn advance(&mut self, client: &mut Client<'_>, pod: &Value) -> Option<SimTime> {
        let now = client.now_millis();
        let at = client.now_rfc3339();
        let policy = pod["spec"]["restartPolicy"].as_str().unwrap_or("Always").to_string();
        let uid = meta_str(pod, "uid").to_string();
        let pod_ref = format!("{}_{}({uid})", meta_str(pod, "name"), meta_str(pod, "namespace"));
        let containers: Vec<Value> = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
        let mut statuses: Vec<Value> = pod["status"]["containerStatuses"].as_array().cloned().unwrap_or_default();
        let (mut changed, mut next): (bool, Option<i64>) = (false, None);
        let mut events: Told = Vec::new();
        let soonest = |t: i64, next: &mut Option<i64>| *next = Some(next.map_or(t, |n| n.min(t)));
        for st in statuses.iter_mut() {
            let name = st["name"].as_str().unwrap_or("").to_string();
            let Some(c) = containers.iter().find(|c| c["name"] == name.as_str()) else { continue };
            let life = crate::server::logs::lifetime(c);
            let started = st["state"]["running"]["startedAt"].as_str().and_then(parse_rfc3339);
            let backing_off = st["state"]["waiting"]["reason"] == "CrashLoopBackOff";
            let restarts = st["restartCount"].as_i64().unwrap_or(0);
            let exit = Exit { at: &at, now, policy: &policy, restarts, name: &name, pod_ref: &pod_ref };
            match (started, life) {
                (Some(s), Some((ms, code))) if ms > 0 => {
                    if now >= s + ms {
                        let from = st["state"]["running"]["startedAt"].clone();
                        exit.ended(st, code, &from, c, &mut events);
                        changed = true;
                    } else {
                        soonest(s + ms, &mut next);
                    }
                }
                _ if backing_off => match exit.restart(st, c, life, &mut events) {
                    Ok(when) => {
                        changed = true;
                        if let Some(t) = when {
                            soonest(t, &mut next);
                        }
                    }
                    Err(due) => {
                        soonest(due, &mut next);
                        continue;
                    }
                },
                _ => {}
            }
            // A liveness probe that fails has the container killed.
            // (Only an exec probe or agnhost's server may fail: CoreDNS's
            // HTTP probe, at every start, is not looked at further.)
            if may_fail(c, "livenessProbe") && st["state"]["running"].is_object() {
                match self.liveness(pod, c, st, &exit, now, &mut events) {
                    Liveness::Fine => {}
                    Liveness::Wait(t) => soonest(t, &mut next),
                    Liveness::Killed => changed = true,
                }
            }
            // Probes succeed on simulated time (the startup probe, then
            // the readiness probe, each after its initial delay).
            if let Some(s) = st["state"]["running"]["startedAt"].as_str().and_then(parse_rfc3339) {
                let (started_after, ready_after) = probe_delays(c);
                if st["started"] != true {
                    if now >= s + started_after {
                        st["started"] = json!(true);
                        changed = true;
                    } else {
                        soonest(s + started_after, &mut next);
                    }
                }
                let failing = match st["started"] == true && may_fail(c, "readinessProbe") {
                    true => self.readiness(client, pod, c, (s, started_after), now),
                    false => None,
                };
                if let Some((ready, wake)) = failing {
                    if st["ready"] != ready {
                        st["ready"] = json!(ready);
                        changed = true;
                    }
                    soonest(wake, &mut next);
                } else if st["started"] == true && st["ready"] != true {
                    if now >= s + ready_after {
                        st["ready"] = json!(true);
                        changed = true;
                    } else {
                        soonest(s + ready_after, &mut next);
                    }
                }
            }
        }
        if changed {
            let phase = phase_of(&policy, &statuses);
            let conditions = pod_conditions(pod, phase, &statuses, &at);
            let mut status = json!({"phase": phase, "conditions": conditions, "containerStatuses": statuses});
            in_kubelet_order(pod, &mut status);
            let body = json!({"metadata": {"uid": uid}, "status": status});
            let path = format!("{}/status", path_of("v1", "pods", pod));
            if client.write("PATCH", &path, "application/strategic-merge-patch+json", &body).status != 200 {
                return next.map(SimTime);
            }
        }
        // (A failing probe is told though the status stays as it was.)
        if !events.is_empty() {
            self.tell(client, pod, events);
        }
        next.map(SimTime)
    }

    /// Records what the kubelet told of a pod's containers (each event on
    /// `spec.containers{NAME}`). Never inlined: no container ends, restarts
    /// or fails a probe while a server starts.
    #[inline(never)]
    fn tell(&mut self, client: &mut Client<'_>, pod: &Value, events: Told) {
        let recorder = self.recorder(pod["spec"]["nodeName"].as_str().unwrap_or(""));
        for (name, t, reason, message) in events {
            let field = format!("spec.containers{{{name}}}");
            recorder.event(client, pod, ("v1", "Pod"), &field, t, reason, &message);
        }
    }

    fn recorder(&mut self, node: &str) -> &mut Recorder {
        self.recorders.entry(node.to_string()).or_insert_with(|| Recorder::new("kubelet", node))
    }

    /// A running container's liveness probe on simulated time, as the
    /// output model says it fares (`server::logs::probe_fails_after`):
    /// probed every `periodSeconds` from `initialDelaySeconds` after the
    /// start, each failure told (Warning `Unhealthy`, `Liveness probe
    /// failed: …`); at the `failureThreshold`-th in a row the container is
    /// killed (Normal `Killing`, `Container NAME failed liveness probe,
    /// will be restarted`), ending at once if its program stops on SIGTERM
    /// (exit 0), else when the probe's or the pod's grace period ends
    /// (137), then restarted as a container that ended. Never inlined: no
    /// starter container has a liveness probe that fails.
    #[inline(never)]
    fn liveness(
        &mut self,
        pod: &Value,
        c: &Value,
        st: &mut Value,
        exit: &Exit<'_>,
        now: i64,
        events: &mut Told,
    ) -> Liveness {
        let Some((fails, said)) = crate::server::logs::probe_fails_after(c, "livenessProbe") else {
            return Liveness::Fine;
        };
        let Some(started) = st["state"]["running"]["startedAt"].as_str().and_then(parse_rfc3339) else {
            return Liveness::Fine;
        };
        let probe = &c["livenessProbe"];
        let ms = |field: &str, default: i64| probe[field].as_i64().unwrap_or(default).max(0) * 1000;
        let (delay, period) = (ms("initialDelaySeconds", 0), ms("periodSeconds", 10).max(1000));
        let threshold = probe["failureThreshold"].as_i64().unwrap_or(3).max(1);
        let grace = probe["terminationGracePeriodSeconds"]
            .as_i64()
            .or_else(|| pod["spec"]["terminationGracePeriodSeconds"].as_i64())
            .unwrap_or(30)
            .max(0)
            * 1000;
        // The first probe after the failure, and the one that kills.
        let first = match fails {
            f if f <= delay => started + delay,
            f => started + delay + ((f - delay) / period + 1) * period,
        };
        let kill = first + (threshold - 1) * period;
        let quick = crate::server::logs::stops_on_sigterm(c);
        let end = if quick { kill } else { kill + grace };
        let key = format!("{}/{}/{started}", meta_str(pod, "uid"), exit.name);
        let told = self.probe_failures.get(&key).copied().unwrap_or(0);
        let failed = if now < first { 0 } else { ((now - first) / period + 1).min(threshold) };
        let name = exit.name.to_string();
        for _ in told..failed {
            events.push((name.clone(), EventType::Warning, "Unhealthy", format!("Liveness probe failed: {said}")));
        }
        if now >= kill && told <= threshold {
            let message = format!("Container {name} failed liveness probe, will be restarted");
            events.push((name, EventType::Normal, "Killing", message));
        }
        if now >= end {
            self.probe_failures.remove(&key);
            let from = st["state"]["running"]["startedAt"].clone();
            exit.ended(st, if quick { 0 } else { 137 }, &from, c, events);
            return Liveness::Killed;
        }
        self.probe_failures.insert(key, if now >= kill { threshold + 1 } else { failed });
        Liveness::Wait(match now {
            n if n < first => first,
            n if n < kill => first + failed * period,
            _ => end,
        })
    }

    /// A started container's readiness when its readiness probe fails
    /// where the output model says so (`server::logs::probe_fails_after`;
    /// None: it never fails), and when to look next: probed every
    /// `periodSeconds` from its `initialDelaySeconds` (no sooner than the
    /// startup probe's success, `started_after` its start), ready after
    /// `successThreshold` successes and unready after `failureThreshold`
    /// failures in a row; looked at only for the probes that change
    /// something. Each failure is told (Warning `Unhealthy`, `Readiness
    /// probe failed: …`, the failures since the last look counted at once);
    /// unlike liveness the container goes on, and so do the failures. Never
    /// inlined: no starter container has a readiness probe that fails.
    #[inline(never)]
    fn readiness(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        c: &Value,
        (started, started_after): (i64, i64),
        now: i64,
    ) -> Option<(bool, i64)> {
        let (fails, said) = crate::server::logs::probe_fails_after(c, "readinessProbe")?;
        let probe = &c["readinessProbe"];
        let ms = |field: &str, default: i64| probe[field].as_i64().unwrap_or(default).max(0) * 1000;
        let period = ms("periodSeconds", 10).max(1000);
        let first = started + started_after.max(ms("initialDelaySeconds", 0));
        let successes = probe["successThreshold"].as_i64().unwrap_or(1).max(1);
        let threshold = probe["failureThreshold"].as_i64().unwrap_or(3).max(1);
        // Probes made by now, and the first of them to fail.
        let made = if now < first { 0 } else { (now - first) / period + 1 };
        // (The probe at the instant the file goes still reads it, as the
        // liveness probe's.)
        let failing_from = match started + fails - first {
            f if f <= 0 => 0,
            f => f / period + 1,
        };
        let failed = (made - failing_from).max(0);
        let ready = failed < threshold && made.min(failing_from) >= successes;
        let name = c["name"].as_str().unwrap_or("");
        let key = format!("{}/{name}/{started}/readiness", meta_str(pod, "uid"));
        let told = self.probe_failures.get(&key).copied().unwrap_or(0);
        if failed > told {
            let node = pod["spec"]["nodeName"].as_str().unwrap_or("");
            let message = format!("Readiness probe failed: {said}");
            let field = format!("spec.containers{{{name}}}");
            let what = (EventType::Warning, "Unhealthy", message.as_str());
            self.recorder(node).repeated(client, pod, ("v1", "Pod"), &field, what, failed - told);
            self.probe_failures.insert(key, failed);
        }
        // The next probe that changes something: the one that makes it
        // ready, the first to fail, then every one (each failure is told).
        let next = match made {
            m if m < failing_from && m < successes => (successes - 1).min(failing_from),
            m if m < failing_from => failing_from,
            m => m,
        };
        Some((ready, first + next * period))
    }

    /// Starts the ephemeral containers added to a running pod
    /// (`kubectl debug`): each runs once, never restarted nor probed (so
    /// never ready). A shell with no stdin to read ends at once, as it does
    /// on a node.
    fn start_ephemeral(&mut self, client: &mut Client<'_>, pod: &Value) {
        let ecs = pod["spec"]["ephemeralContainers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        if !ecs.is_empty() {
            self.start_ephemeral_now(client, pod, ecs);
        }
    }

    /// `start_ephemeral` for a pod that has ephemeral containers. (Not
    /// inlined: seldom needed, and never while a server starts.)
    #[inline(never)]
    fn start_ephemeral_now(&mut self, client: &mut Client<'_>, pod: &Value, ecs: &[Value]) {
        let mut statuses: Vec<Value> =
            pod["status"]["ephemeralContainerStatuses"].as_array().cloned().unwrap_or_default();
        let new: Vec<&Value> = ecs.iter().filter(|c| !statuses.iter().any(|s| s["name"] == c["name"])).collect();
        if new.is_empty() {
            return;
        }
        let now = client.now_rfc3339();
        let uid = meta_str(pod, "uid").to_string();
        for c in &new {
            let name = c["name"].as_str().unwrap_or("");
            let (full, image_id, container_id) =
                runtime_ids(c["image"].as_str().unwrap_or(""), &format!("{uid}/{name}"));
            let exit = if c["stdin"] == true { None } else { crate::server::logs::exit_code(c) };
            let state = match exit {
                None => json!({"running": {"startedAt": now}}),
                Some(code) => json!({"terminated": {"exitCode": code,
                    "reason": if code == 0 { "Completed" } else { "Error" }, "startedAt": now, "finishedAt": now,
                    "containerID": container_id}}),
            };
            statuses.push(json!({"name": name, "state": state, "lastState": {}, "ready": false, "restartCount": 0,
                "image": full, "imageID": image_id, "containerID": container_id}));
        }
        let body = json!({"metadata": {"uid": uid}, "status": {"ephemeralContainerStatuses": statuses}});
        let path = format!("{}/status", path_of("v1", "pods", pod));
        if client.write("PATCH", &path, "application/strategic-merge-patch+json", &body).status != 200 {
            return;
        }
        let recorder = self.recorder(pod["spec"]["nodeName"].as_str().unwrap_or(""));
        for c in new {
            let (name, image) = (c["name"].as_str().unwrap_or(""), c["image"].as_str().unwrap_or(""));
            started_events(recorder, client, pod, &format!("spec.ephemeralContainers{{{name}}}"), name, image);
        }
    }

    /// Whether a pod waiting to be tried again (a container of it could
    /// not be made) is left for now: its containers that were made go on
    /// meanwhile (a program ends, a crash-looping one restarts), and until
    /// their new statuses are read back, or its time has come, the pod is
    /// not tried. Never inlined: only a pod a container of which could not
    /// be made is retried.
    #[inline(never)]
    fn waits(&mut self, client: &mut Client<'_>, key: &str, pod: &Value, now: i64) -> bool {
        let writes = client.writes;
        if let Some(when) = self.advance(client, pod) {
            let at = self.wakes.get(key).map_or(when.0, |t| (*t).min(when.0));
            self.wakes.insert(key.to_string(), at);
        }
        if client.writes > writes {
            return true;
        }
        self.retried(key, pod, now)
    }

    /// Whether the pod at `key` waits for its retry (its wake kept), or,
    /// its time come, is forgotten and tried now.
    fn retried(&mut self, key: &str, pod: &Value, now: i64) -> bool {
        match self.retry.get(key) {
            // A changed spec (a new image) is tried at once, as the
            // kubelet syncs a pod it is told changed.
            Some(&(at, print)) if at > now && print == spec_print(pod) => {
                let wake = self.wakes.entry(key.to_string()).or_insert(at);
                *wake = (*wake).min(at);
                true
            }
            _ => {
                self.retry.remove(key);
                false
            }
        }
    }

    /// Takes a bound pod from Pending to Running; when to try again, if a
    /// container could not be made (its image or configuration wanting).
    fn start(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        node: &Value,
        taken: &mut BTreeSet<String>,
    ) -> Option<i64> {
        let now = client.now_rfc3339();
        let node_name = meta_str(node, "name").to_string();
        let host_ip = internal_ip(node);
        let containers: Vec<Value> = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
        let status_path = format!("{}/status", path_of("v1", "pods", pod));
        let uid = meta_str(pod, "uid").to_string();
        let cidr = node["spec"]["podCIDR"].as_str().unwrap_or("");
        let ip = match pod["status"]["podIP"].as_str() {
            // Tried again: the sandbox and its address are kept.
            Some(ip) if !ip.is_empty() => None,
            _ if pod["spec"]["hostNetwork"].as_bool() == Some(true) => Some(host_ip.clone()),
            _ => next_ip(cidr, taken),
        };
        let has_init = pod["spec"]["initContainers"].as_array().is_some_and(|i| !i.is_empty());
        if has_init {
            if let Some(ip) = &ip {
                taken.insert(ip.clone());
            }
            match self.initialize(client, pod, ip.as_deref(), &host_ip) {
                init::Init::Done => {}
                _ => return None,
            }
        }
        let creating = !has_init && pod["status"]["containerStatuses"].is_null();
        if creating {
            let statuses: Vec<Value> = containers
                .iter()
                .map(|c| {
                    json!({"name": c["name"], "state": {"waiting": {"reason": "ContainerCreating"}}, "lastState": {},
                        "ready": false, "restartCount": 0, "image": c["image"], "imageID": "", "started": false})
                })
                .collect();
            let not_ready = |t: &str| {
                let mut c = condition(t, false, &now);
                c["reason"] = json!("ContainersNotReady");
                let names: Vec<&str> = containers.iter().filter_map(|c| c["name"].as_str()).collect();
                c["message"] = json!(format!("containers with unready status: [{}]", names.join(" ")));
                c
            };
            let mut status = json!({"phase": "Pending", "conditions": [
                    condition("PodReadyToStartContainers", false, &now), condition("Initialized", true, &now),
                    not_ready("Ready"), not_ready("ContainersReady"), condition("PodScheduled", true, &now)],
                "startTime": now, "containerStatuses": statuses});
            if !host_ip.is_empty() {
                status["hostIP"] = json!(host_ip);
                status["hostIPs"] = json!([{"ip": host_ip}]);
            }
            in_kubelet_order(pod, &mut status);
            let body = json!({"metadata": {"uid": uid}, "status": status});
            if client.write("PATCH", &status_path, "application/strategic-merge-patch+json", &body).status != 200 {
                return None;
            }
        }
        let earlier = pod["status"]["containerStatuses"].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut unmade = Vec::new();
        let mut recorder_events = Vec::new();
        let policy = pod["spec"]["restartPolicy"].as_str().unwrap_or("Always").to_string();
        let pod_ref = format!("{}_{}({uid})", meta_str(pod, "name"), meta_str(pod, "namespace"));
        let statuses: Vec<Value> = containers
            .iter()
            .map(|c| {
                let name = c["name"].as_str().unwrap_or("");
                let image = c["image"].as_str().unwrap_or("");
                // Tried again: a container made before (running, ended or
                // crash-looping) is left be.
                let made = |s: &&Value| s["state"]["waiting"].is_null() || s["lastState"]["terminated"].is_object();
                if let Some(st) = earlier.iter().filter(made).find(|s| s["name"] == name) {
                    return st.clone();
                }
                if config::suspect(c) {
                    let pulls = &mut self.pulls;
                    if let Some(problem) = config::problem(client, pulls, pod, c) {
                        return config::unmade(c, problem, &mut unmade);
                    }
                }
                let (full, image_id, container_id) = runtime_ids(image, &format!("{uid}/{name}"));
                let exit = crate::server::logs::exit_code(c);
                recorder_events.push((name.to_string(), image.to_string(), exit));
                let mut st = json!({"name": name, "lastState": {}, "ready": false, "restartCount": 0, "image": full,
                    "imageID": image_id, "containerID": container_id, "started": false});
                match exit {
                    None => {
                        st["state"] = json!({"running": {"startedAt": now}});
                        // A probed container waits for its probes.
                        let (started, ready) = probed(c);
                        st["ready"] = json!(!ready);
                        st["started"] = json!(!started);
                    }
                    Some(code) => exited_at_once(&mut st, code, &policy, name, &pod_ref, &now),
                }
                resize::report_resources(&mut st, c);
                st
            })
            .collect();
        let phase = phase_of(&policy, &statuses);
        let conditions = pod_conditions(pod, phase, &statuses, &now);
        let mut status = json!({"phase": phase, "conditions": conditions, "containerStatuses": statuses});
        if let Some(ip) = ip.filter(|ip| !ip.is_empty()) {
            taken.insert(ip.clone());
            status["podIP"] = json!(ip);
            status["podIPs"] = json!([{"ip": ip}]);
        }
        in_kubelet_order(pod, &mut status);
        let body = json!({"metadata": {"uid": uid}, "status": status});
        if client.write("PATCH", &status_path, "application/strategic-merge-patch+json", &body).status != 200 {
            return None;
        }
        let recorder = self.recorder(&node_name);
        let again = config::tell(recorder, client, pod, &unmade);
        for (name, image, exit) in recorder_events {
            let field = format!("spec.containers{{{name}}}");
            started_events(recorder, client, pod, &field, &name, &image);
            if exit.is_some_and(|code| policy == "Always" || (policy == "OnFailure" && code != 0)) {
                started_again(recorder, client, pod, (&field, &name, &image), &pod_ref);
            }
        }
        again
    }
}

/// A container that ended as it started (at `now`, with `code`):
/// terminated for good, or, its policy restarting it, started again at
/// once, ended again, and backing off 10 s (what `Exit::ended` gives a
/// first end whose restart ends at once). Never inlined: no starter
/// container ends.
#[inline(never)]
fn exited_at_once(st: &mut Value, code: i64, policy: &str, name: &str, pod_ref: &str, now: &str) {
    let terminated = json!({"terminated": {"exitCode": code, "reason": if code == 0 { "Completed" } else { "Error" },
        "startedAt": now, "finishedAt": now, "containerID": st["containerID"]}});
    if policy == "Never" || (policy == "OnFailure" && code == 0) {
        st["state"] = terminated;
        return;
    }
    st["lastState"] = terminated;
    st["restartCount"] = json!(1);
    st["state"] = json!({"waiting": {"reason": "CrashLoopBackOff",
        "message": format!("back-off {}s restarting failed container={name} pod={pod_ref}", back_off(1) / 1000)}});
}

/// The events of `exited_at_once`'s restart, told after the first start's:
/// Pulled, Created and Started again, then BackOff. Never inlined, as it.
#[inline(never)]
fn started_again(
    recorder: &mut Recorder,
    client: &mut Client<'_>,
    pod: &Value,
    (field, name, image): (&str, &str, &str),
    pod_ref: &str,
) {
    started_events(recorder, client, pod, field, name, image);
    let message = format!("Back-off restarting failed container {name} in pod {pod_ref}");
    recorder.event(client, pod, ("v1", "Pod"), field, EventType::Warning, "BackOff", &message);
}

/// Where a container's liveness probe leaves it after a pass.
enum Liveness {
    /// It succeeds (or is not failing yet and never will).
    Fine,
    /// Look again then: the next failing probe, the kill, or its end.
    Wait(i64),
    /// Killed and ended: its status changed.
    Killed,
}

/// A container's exit as the kubelet handles it: when (`at`, and `now`
/// in milliseconds), under which restart policy, after how many restarts,
/// and who it is (its name, and its pod as the kubelet's messages name
/// it). Its handling is never inlined into the pass: no container ends or
/// restarts while a server starts.
#[derive(Clone, Copy)]
struct Exit<'a> {
    at: &'a str,
    now: i64,
    policy: &'a str,
    restarts: i64,
    name: &'a str,
    pod_ref: &'a str,
}

type Told = Vec<(String, EventType, &'static str, String)>;

/// How long the kubelet waits before it starts a container again that
/// ended `restarts` restarts in (upstream's per-container back-off: the
/// first end is restarted at once, then 10 s, doubling to 5 min).
fn back_off(restarts: i64) -> i64 {
    match restarts {
        ..=0 => 0,
        n => (10_000i64 << ((n - 1).min(5) as u32)).min(300_000),
    }
}

impl Exit<'_> {
    /// The container `c` ended with `code` (running since `from`):
    /// terminated for good; or, its policy restarting it, started again
    /// at once the first time (no back-off yet) and otherwise backing off,
    /// its restart count the instance that ended until the next starts.
    #[inline(never)]
    fn ended(&self, st: &mut Value, code: i64, from: &Value, c: &Value, events: &mut Told) {
        let terminated = json!({"terminated": {"exitCode": code,
            "reason": if code == 0 { "Completed" } else { "Error" }, "startedAt": from, "finishedAt": self.at,
            "containerID": st["containerID"]}});
        st["ready"] = json!(false);
        st["started"] = json!(false);
        if self.policy == "Never" || (self.policy == "OnFailure" && code == 0) {
            st["state"] = terminated;
            return;
        }
        st["lastState"] = terminated;
        if self.restarts == 0 {
            let _started_at_once = self.restart(st, c, crate::server::logs::lifetime(c), events);
            return;
        }
        let (name, pod_ref) = (self.name, self.pod_ref);
        st["state"] = json!({"waiting": {"reason": "CrashLoopBackOff",
            "message": format!("back-off {}s restarting failed container={name} pod={pod_ref}", back_off(self.restarts) / 1000)}});
        let message = format!("Back-off restarting failed container {name} in pod {pod_ref}");
        events.push((name.to_string(), EventType::Warning, "BackOff", message));
    }

    /// A container that ended: started again once its back-off is over
    /// (`Ok` with when it ends next, if it does), else `Err` with when the
    /// back-off ends.
    #[inline(never)]
    fn restart(
        &self,
        st: &mut Value,
        c: &Value,
        life: Option<(i64, i64)>,
        events: &mut Told,
    ) -> Result<Option<i64>, i64> {
        let now = self.now;
        let finished = st["lastState"]["terminated"]["finishedAt"].as_str().and_then(parse_rfc3339).unwrap_or(now);
        let backoff = back_off(self.restarts);
        if now < finished + backoff {
            return Err(finished + backoff);
        }
        let name = self.name;
        for (reason, message) in [
            ("Pulled", format!("Container image {:?} already present on machine", c["image"].as_str().unwrap_or(""))),
            ("Created", format!("Created container: {name}")),
            ("Started", format!("Started container {name}")),
        ] {
            events.push((name.to_string(), EventType::Normal, reason, message));
        }
        let next = Exit { restarts: self.restarts + 1, ..*self };
        st["restartCount"] = json!(next.restarts);
        match life {
            // Ends again at once.
            Some((0, code)) => {
                next.ended(st, code, &json!(self.at), c, events);
                Ok(None)
            }
            _ => {
                st["state"] = json!({"running": {"startedAt": self.at}});
                resize::report_resources(st, c);
                let (started, ready) = probed(c);
                st["ready"] = json!(!ready);
                st["started"] = json!(!started);
                Ok(life.map(|(ms, _)| now + ms))
            }
        }
    }
}

/// How often a kubelet renews its node's Lease.
const RENEW_MS: i64 = 10_000;

/// A node's Lease renewed now, as the kubelet's lease controller renews
/// it: the Lease as last seen, its `renewTime` now, PUT (a refusal is
/// tried again at the next renewal); when the next one is due. Never
/// inlined: no Lease is due while a server starts.
#[inline(never)]
fn renew(client: &mut Client<'_>, lease: &Value) -> i64 {
    let mut body = lease.clone();
    body["spec"]["renewTime"] = json!(micro_time(client));
    let path = format!("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{}", meta_str(lease, "name"));
    client.write("PUT", &path, "application/json", &body);
    client.now_millis() + RENEW_MS
}

/// The kubelet's three events for a container it has started (its image
/// counted as present): Pulled, Created, Started, on `field`. Inlined: a
/// pod's start runs it, and the web modules' first part keeps its callers.
#[inline(always)]
fn started_events(recorder: &mut Recorder, client: &mut Client<'_>, pod: &Value, field: &str, name: &str, image: &str) {
    let pulled = format!("Container image {image:?} already present on machine");
    recorder.event(client, pod, ("v1", "Pod"), field, EventType::Normal, "Pulled", &pulled);
    let created = format!("Created container: {name}");
    recorder.event(client, pod, ("v1", "Pod"), field, EventType::Normal, "Created", &created);
    let started = format!("Started container {name}");
    recorder.event(client, pod, ("v1", "Pod"), field, EventType::Normal, "Started", &started);
}

/// A MicroTime (`2024-01-01T00:00:00.000000Z`) of the simulated now.
/// Inlined: a start makes each node's Lease with it.
#[inline(always)]
fn micro_time(client: &Client<'_>) -> String {
    SimTime(client.now_millis()).rfc3339_micro()
}

/// Whether a container's probe (`livenessProbe`, `readinessProbe`) may
/// fail: an exec probe, or one of agnhost's server (CoreDNS's HTTP probes,
/// looked at on every start, are not looked at further).
fn may_fail(c: &Value, probe: &str) -> bool {
    c[probe]["exec"].is_object() || (c[probe].is_object() && c["image"].as_str().is_some_and(|i| i.contains("agnhost")))
}

/// Whether a container waits for a startup probe (not `started` until it
/// succeeds), and for any probe at all (not `ready` until they succeed).
fn probed(c: &Value) -> (bool, bool) {
    let startup = c["startupProbe"].is_object();
    (startup, startup || c["readinessProbe"].is_object())
}

/// How long after a container starts its probes have succeeded, in
/// milliseconds: the startup probe's first success after its
/// `initialDelaySeconds`, then the readiness probe's `successThreshold`
/// successes, the first no sooner than its own initial delay, one every
/// `periodSeconds`. (Probes succeed: the programs are modelled, not run.)
fn probe_delays(c: &Value) -> (i64, i64) {
    let seconds = |probe: &str, field: &str, default: i64| c[probe][field].as_i64().unwrap_or(default).max(0) * 1000;
    let started = if c["startupProbe"].is_object() { seconds("startupProbe", "initialDelaySeconds", 0) } else { 0 };
    let ready = if c["readinessProbe"].is_object() {
        let first = started.max(seconds("readinessProbe", "initialDelaySeconds", 0));
        let more = (c["readinessProbe"]["successThreshold"].as_i64().unwrap_or(1).max(1) - 1)
            * seconds("readinessProbe", "periodSeconds", 10).max(1000);
        first + more
    } else {
        started
    };
    (started, ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_named_as_the_runtime_reports_them() {
        assert_eq!(full_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(full_image("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(full_image("bitnami/redis:7"), "docker.io/bitnami/redis:7");
        assert_eq!(full_image("registry.k8s.io/coredns/coredns:v1.12.0"), "registry.k8s.io/coredns/coredns:v1.12.0");
        assert_eq!(full_image("localhost:5000/app"), "localhost:5000/app:latest");
    }

    #[test]
    fn pod_addresses_come_from_the_node_range_lowest_free_first() {
        let mut taken = BTreeSet::new();
        assert_eq!(next_ip("10.244.1.0/24", &taken).as_deref(), Some("10.244.1.2"));
        taken.insert("10.244.1.2".to_string());
        assert_eq!(next_ip("10.244.1.0/24", &taken).as_deref(), Some("10.244.1.3"));
        assert_eq!(next_ip("nonsense", &taken), None);
    }
}
