//! The owners view's logic: the workloads and pods of a namespace as a
//! forest of ownerReferences (Deployment → ReplicaSets → Pods, CronJob →
//! Jobs → Pods, StatefulSets, DaemonSets…), each with a one-line state,
//! read through ordinary list requests as any client would.

use kubesim::server::Request;
use kubesim::sort::Order;
use serde_json::Value;

use crate::session::{body_json, Session, Source};
use crate::state::ObjectRef;

/// The collections read, as (group, version, resource, kind).
const KINDS: &[(&str, &str, &str, &str)] = &[
    ("apps", "v1", "deployments", "Deployment"),
    ("apps", "v1", "statefulsets", "StatefulSet"),
    ("apps", "v1", "daemonsets", "DaemonSet"),
    ("batch", "v1", "cronjobs", "CronJob"),
    ("batch", "v1", "jobs", "Job"),
    ("apps", "v1", "replicasets", "ReplicaSet"),
    ("", "v1", "pods", "Pod"),
];

/// One row of the forest.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub depth: usize,
    pub kind: &'static str,
    pub name: String,
    /// What it is doing, in a few words (`Running 1/1 on worker-1`).
    pub state: String,
    /// Being deleted.
    pub terminating: bool,
    pub object: ObjectRef,
}

fn int(v: &Value, p: &str) -> i64 {
    v.pointer(p).and_then(Value::as_i64).unwrap_or(0)
}

fn condition_reason(v: &Value, ty: &str) -> Option<String> {
    v.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == ty && c["status"] == "True")
        .map(|c| c["reason"].as_str().unwrap_or(ty).to_string())
}

/// A pod's STATUS as kubectl prints it, roughly: a waiting or terminated
/// reason, else the phase.
fn pod_state(p: &Value) -> String {
    let statuses = p.pointer("/status/containerStatuses").and_then(Value::as_array).cloned().unwrap_or_default();
    let ready = statuses.iter().filter(|s| s["ready"] == true).count();
    let total = p.pointer("/spec/containers").and_then(Value::as_array).map_or(0, Vec::len);
    let reason = statuses
        .iter()
        .find_map(|s| s["state"]["waiting"]["reason"].as_str().or(s["state"]["terminated"]["reason"].as_str()))
        .map(str::to_string);
    let phase = p.pointer("/status/phase").and_then(Value::as_str).unwrap_or("Pending").to_string();
    let status = match reason {
        Some(r) if phase != "Succeeded" && phase != "Failed" => r,
        _ if phase == "Succeeded" => "Completed".into(),
        _ => phase,
    };
    let node = p.pointer("/spec/nodeName").and_then(Value::as_str).unwrap_or("");
    let on = if node.is_empty() { "unscheduled".to_string() } else { format!("on {node}") };
    format!("{status} {ready}/{total} {on}")
}

fn state_of(kind: &str, o: &Value) -> String {
    match kind {
        "Pod" => pod_state(o),
        "Deployment" => format!(
            "{}/{} ready, {} up-to-date{}",
            int(o, "/status/readyReplicas"),
            int(o, "/spec/replicas"),
            int(o, "/status/updatedReplicas"),
            condition_reason(o, "Progressing").map(|r| format!(", {r}")).unwrap_or_default()
        ),
        "ReplicaSet" | "StatefulSet" => {
            format!("{}/{} ready", int(o, "/status/readyReplicas"), int(o, "/spec/replicas"))
        }
        "DaemonSet" => format!("{}/{} ready", int(o, "/status/numberReady"), int(o, "/status/desiredNumberScheduled")),
        "Job" => {
            let done =
                condition_reason(o, "Complete").map(|_| "Complete").or(condition_reason(o, "Failed").map(|_| "Failed"));
            format!("{} succeeded{}", int(o, "/status/succeeded"), done.map(|d| format!(", {d}")).unwrap_or_default())
        }
        "CronJob" => format!(
            "{} active, schedule {}",
            o.pointer("/status/active").and_then(Value::as_array).map_or(0, Vec::len),
            o.pointer("/spec/schedule").and_then(Value::as_str).unwrap_or("")
        ),
        _ => String::new(),
    }
}

/// The namespace's workloads and pods as rows, owners before what they
/// own (children in name order).
pub fn forest(s: &mut Session, namespace: &str) -> Vec<Row> {
    struct Item {
        uid: String,
        owner: Option<String>,
        row: Row,
    }
    let mut items: Vec<Item> = Vec::new();
    for (group, version, resource, kind) in KINDS {
        let base = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") };
        let path = format!("{base}/namespaces/{namespace}/{resource}");
        let e = s.request(Source::Owners, Request::new("GET", &path).with_header("Accept", "application/json"));
        if e.response.status != 200 {
            continue;
        }
        for o in body_json(&e.response)["items"].as_array().into_iter().flatten() {
            let meta = &o["metadata"];
            let name = meta["name"].as_str().unwrap_or("").to_string();
            let owner = meta["ownerReferences"]
                .as_array()
                .and_then(|refs| refs.iter().find(|r| r["controller"] == true).or(refs.first()))
                .and_then(|r| r["uid"].as_str())
                .map(str::to_string);
            items.push(Item {
                uid: meta["uid"].as_str().unwrap_or("").to_string(),
                owner,
                row: Row {
                    depth: 0,
                    kind,
                    name: name.clone(),
                    state: state_of(kind, o),
                    terminating: !meta["deletionTimestamp"].is_null(),
                    object: ObjectRef {
                        group: group.to_string(),
                        version: version.to_string(),
                        resource: resource.to_string(),
                        namespace: namespace.to_string(),
                        name,
                    },
                },
            });
        }
    }
    let known = |uid: &str| items.iter().any(|i| i.uid == uid);
    let roots: Vec<usize> = (0..items.len()).filter(|i| items[*i].owner.as_deref().is_none_or(|o| !known(o))).collect();
    let mut out = Vec::new();
    fn walk(items: &[Item], i: usize, depth: usize, out: &mut Vec<Row>) {
        let mut row = items[i].row.clone();
        row.depth = depth;
        out.push(row);
        let mut children: Vec<usize> =
            (0..items.len()).filter(|j| items[*j].owner.as_deref() == Some(items[i].uid.as_str())).collect();
        children.order_by(|a, b| items[*a].row.name.cmp(&items[*b].row.name));
        for c in children {
            if depth < 8 {
                walk(items, c, depth + 1, out);
            }
        }
    }
    for r in roots {
        // Bare pods and orphans after the workloads, as KINDS orders them.
        walk(&items, r, 0, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_cluster_shows_coredns_down_to_its_running_pods() {
        let mut s = Session::new(1);
        let rows = forest(&mut s, "kube-system");
        let shape: Vec<(usize, &str)> = rows.iter().map(|r| (r.depth, r.kind)).collect();
        assert_eq!(shape, [(0, "Deployment"), (1, "ReplicaSet"), (2, "Pod"), (2, "Pod")]);
        assert_eq!(rows[0].name, "coredns");
        assert!(rows[0].state.starts_with("2/2 ready, 2 up-to-date, NewReplicaSetAvailable"), "{}", rows[0].state);
        assert!(rows[2].state.starts_with("Running 1/1 on "), "{}", rows[2].state);
        assert!(s.log.iter().any(|e| e.source == Source::Owners));
    }
}
