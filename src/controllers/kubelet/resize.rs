//! In-place pod resize as a 1.33 kubelet carries it out. A running pod
//! whose containers' `resources` (in the spec, written through
//! `pods/NAME/resize`) differ from what its running containers report
//! (`status.containerStatuses[].resources`) is resized in two steps, each
//! a status write:
//! - **allocate**: the node must be able to hold the pod's new requests.
//!   Not even an empty node could (more than its allocatable cpu or
//!   memory): `PodResizePending`, reason `Infeasible`. Not beside the
//!   other pods on it: `Deferred` (tried again when a pod on the node
//!   changes). Otherwise the requests become `allocatedResources` and the
//!   pod `PodResizeInProgress`.
//! - **actuate**: the containers run with the new resources (`resources`),
//!   and the condition goes. A container whose changed cpu, or memory
//!   limit, has the `RestartContainer` policy is restarted for it
//!   (`Killing`, "Container NAME resize requires restart").
//!
//! The 1.33 kubelet writes no event for a resize itself.

use serde_json::{json, Map, Value};

use super::super::client::Client;
use super::super::events::EventType;
use super::super::object::{meta_str, path_of};
use super::super::scheduler::{allocatable, requests, spec_in_use};
use super::{probed, started_events, Kubelets};
use crate::api::pod::same_amounts as same;
use crate::api::quantity::milli_value;

/// What a running container reports as its resources: the requests and
/// limits it runs with (`{}` for neither).
pub(super) fn running_resources(c: &Value) -> Value {
    let mut out = Map::new();
    for kind in ["requests", "limits"] {
        if let Some(m) = c["resources"][kind].as_object().filter(|m| !m.is_empty()) {
            out.insert(kind.into(), Value::Object(m.clone()));
        }
    }
    Value::Object(out)
}

/// Sets a container status's `allocatedResources` (the requests the
/// kubelet admitted, none for none) and, if it runs, its `resources`.
pub(super) fn report_resources(st: &mut Value, c: &Value) {
    match c["resources"]["requests"].as_object().filter(|m| !m.is_empty()) {
        Some(r) => st["allocatedResources"] = Value::Object(r.clone()),
        None => {
            if let Some(o) = st.as_object_mut() {
                o.shift_remove("allocatedResources");
            }
        }
    }
    if !st["state"]["running"].is_null() {
        st["resources"] = running_resources(c);
    }
}

fn condition<'a>(pod: &'a Value, type_: &str) -> Option<&'a Value> {
    pod["status"]["conditions"].as_array().and_then(|cs| cs.iter().find(|c| c["type"] == type_))
}

/// Whether a pod's resize waits for room on its node (inlined: the
/// kubelet asks it of every changed pod, at start too).
#[inline(always)]
pub(super) fn deferred(pod: &Value) -> bool {
    condition(pod, "PodResizePending").is_some_and(|c| c["reason"] == "Deferred")
}

/// A strategic-merge entry that removes a condition.
fn removed(type_: &str) -> Value {
    json!({"type": type_, "$patch": "delete"})
}

impl Kubelets {
    /// Carries a running pod's resize one step further, if it has one.
    pub(super) fn resize(&mut self, client: &mut Client<'_>, pod: &Value, node: &Value) {
        let containers = pod["spec"]["containers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let statuses = pod["status"]["containerStatuses"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let spec_of = |st: &Value| containers.iter().find(|c| c["name"] == st["name"]);
        let differs = statuses
            .iter()
            .filter(|st| !st["state"]["running"].is_null() && st.get("resources").is_some())
            .any(|st| spec_of(st).is_some_and(|c| !same(&st["resources"], &running_resources(c))));
        let (pending, in_progress) = (condition(pod, "PodResizePending"), condition(pod, "PodResizeInProgress"));
        if differs || pending.is_some() || in_progress.is_some() {
            self.resize_now(client, pod, node, differs);
        }
    }

    /// `resize` for a pod whose resources differ from its containers' or
    /// that has resize conditions. (Not inlined: no starting pod has
    /// either, so the browser's module need not load this first.)
    #[inline(never)]
    fn resize_now(&mut self, client: &mut Client<'_>, pod: &Value, node: &Value, differs: bool) {
        let containers = pod["spec"]["containers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let statuses = pod["status"]["containerStatuses"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let spec_of = |st: &Value| containers.iter().find(|c| c["name"] == st["name"]);
        let (pending, in_progress) = (condition(pod, "PodResizePending"), condition(pod, "PodResizeInProgress"));
        if !differs {
            // Nothing (left) to resize: its conditions go.
            let gone: Vec<Value> = [("PodResizePending", pending), ("PodResizeInProgress", in_progress)]
                .iter()
                .filter(|(_, c)| c.is_some())
                .map(|(t, _)| removed(t))
                .collect();
            if !gone.is_empty() {
                self.write_status(client, pod, json!({"conditions": gone}));
            }
            return;
        }
        let allocated = statuses
            .iter()
            .all(|st| spec_of(st).is_none_or(|c| same(&st["allocatedResources"], &c["resources"]["requests"])));
        if in_progress.is_some() && allocated {
            self.actuate(client, pod);
            return;
        }
        let now = client.now_rfc3339();
        match self.misfit(pod, node) {
            Some((reason, message)) => {
                let was = pending.filter(|p| p["reason"] == reason);
                if was.is_some_and(|p| p["message"] == message.as_str()) {
                    return;
                }
                let since = was.map_or(json!(now), |p| p["lastTransitionTime"].clone());
                let c = json!({"type": "PodResizePending", "status": "True", "lastProbeTime": now,
                    "lastTransitionTime": since, "reason": reason, "message": message});
                self.write_status(client, pod, json!({"conditions": [c]}));
            }
            None => {
                let mut statuses = statuses.to_vec();
                for st in statuses.iter_mut() {
                    if let Some(c) = spec_of(st).cloned() {
                        let running = st["resources"].take();
                        report_resources(st, &c);
                        st["resources"] = running;
                    }
                }
                let c = json!({"type": "PodResizeInProgress", "status": "True", "lastProbeTime": now,
                    "lastTransitionTime": now, "reason": null, "message": null});
                let mut conditions = vec![c];
                if pending.is_some() {
                    conditions.push(removed("PodResizePending"));
                }
                self.write_status(client, pod, json!({"conditions": conditions, "containerStatuses": statuses}));
            }
        }
    }

    /// Why the node cannot take the pod's new requests now (the pending
    /// condition's reason and message), if it cannot: cpu in thousandths,
    /// memory in bytes, as the kubelet prints them.
    fn misfit(&self, pod: &Value, node: &Value) -> Option<(&'static str, String)> {
        let want = requests(&pod["spec"]);
        let (cpu, memory) = (allocatable(node, "cpu"), allocatable(node, "memory"));
        if want.memory > memory {
            let m = format!("memory, requested: {}, capacity: {}", want.memory / 1000, memory / 1000);
            return Some(("Infeasible", format!("Node didn't have enough capacity: {m}")));
        }
        if want.cpu > cpu {
            return Some((
                "Infeasible",
                format!("Node didn't have enough capacity: cpu, requested: {}, capacity: {cpu}", want.cpu),
            ));
        }
        let node_name = meta_str(node, "name");
        let uid = meta_str(pod, "uid");
        let (mut used_cpu, mut used_memory) = (0, 0);
        for other in self.pods.shared() {
            let active = !matches!(other["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
            if other["spec"]["nodeName"] == node_name && meta_str(other, "uid") != uid && active {
                let d = requests(&spec_in_use(other));
                used_cpu += d.cpu;
                used_memory += d.memory;
            }
        }
        let short = |what: &str, want: i128, used: i128, cap: i128| {
            (
                "Deferred",
                format!("Node didn't have enough resource: {what}, requested: {want}, used: {used}, capacity: {cap}"),
            )
        };
        if want.cpu > 0 && used_cpu + want.cpu > cpu {
            return Some(short("cpu", want.cpu, used_cpu, cpu));
        }
        if want.memory > 0 && used_memory + want.memory > memory {
            return Some(short("memory", want.memory / 1000, used_memory / 1000, memory / 1000));
        }
        None
    }

    /// The allocated resize carried out: the containers report their new
    /// resources, those whose policy asks for it restarted.
    fn actuate(&mut self, client: &mut Client<'_>, pod: &Value) {
        let containers = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
        let mut statuses = pod["status"]["containerStatuses"].as_array().cloned().unwrap_or_default();
        let now = client.now_rfc3339();
        let mut restarted = Vec::new();
        for st in statuses.iter_mut() {
            let Some(c) = containers.iter().find(|c| c["name"] == st["name"]) else { continue };
            if !st["state"]["running"].is_null() && restarts(c, &st["resources"]) {
                let name = c["name"].as_str().unwrap_or("").to_string();
                let started = st["state"]["running"]["startedAt"].clone();
                let code = if crate::server::logs::stops_on_sigterm(c) { 0 } else { 137 };
                st["lastState"] = json!({"terminated": {"exitCode": code,
                    "reason": if code == 0 { "Completed" } else { "Error" }, "startedAt": started,
                    "finishedAt": now, "containerID": st["containerID"]}});
                st["restartCount"] = json!(st["restartCount"].as_i64().unwrap_or(0) + 1);
                st["state"] = json!({"running": {"startedAt": now}});
                let (startup, readiness) = probed(c);
                st["started"] = json!(!startup);
                st["ready"] = json!(!readiness);
                restarted.push((name, c["image"].as_str().unwrap_or("").to_string()));
            }
            report_resources(st, c);
        }
        let body = json!({"conditions": [removed("PodResizeInProgress")], "containerStatuses": statuses});
        if !self.write_status(client, pod, body) {
            return;
        }
        let recorder = self.recorder(pod["spec"]["nodeName"].as_str().unwrap_or(""));
        for (name, image) in restarted {
            let field = format!("spec.containers{{{name}}}");
            let why = format!("Container {name} resize requires restart");
            recorder.event(client, pod, ("v1", "Pod"), &field, EventType::Normal, "Killing", &why);
            started_events(recorder, client, pod, &field, &name, &image);
        }
    }

    /// A strategic merge of `status` into the pod's; whether it was written.
    fn write_status(&mut self, client: &mut Client<'_>, pod: &Value, status: Value) -> bool {
        let body = json!({"metadata": {"uid": meta_str(pod, "uid")}, "status": status});
        let path = format!("{}/status", path_of("v1", "pods", pod));
        client.write("PATCH", &path, "application/strategic-merge-patch+json", &body).status == 200
    }
}

/// Whether a container must restart to run with its new resources: its
/// cpu (request or limit) changed under a `RestartContainer` cpu policy,
/// or its memory limit under such a memory policy (a memory request alone
/// never restarts it).
fn restarts(c: &Value, running: &Value) -> bool {
    let policy = |resource: &str| {
        c["resizePolicy"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["resourceName"] == resource && p["restartPolicy"] == "RestartContainer")
    };
    let q = |r: &Value, kind: &str, resource: &str| r[kind][resource].as_str().and_then(milli_value);
    let new = &c["resources"];
    let cpu = ["requests", "limits"].iter().any(|k| q(new, k, "cpu") != q(running, k, "cpu"));
    let memory = q(new, "limits", "memory") != q(running, "limits", "memory");
    (cpu && policy("cpu")) || (memory && policy("memory"))
}
