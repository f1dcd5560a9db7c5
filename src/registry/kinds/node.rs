//! Nodes: `spec.unschedulable` as a selectable field, kubectl's columns.

use crate::sort::Order;
use serde_json::Value;

use super::super::strategy::{SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
use crate::clock::SimTime;

pub struct Node;

static FIELDS: &[SelectableField] = &[SelectableField::new("spec.unschedulable", "false")];

static COLUMNS: &[Column] = &[
    NAME,
    col("Status", "string", text("The status of the node")),
    col("Roles", "string", text("The roles of the node")),
    AGE,
    col("Version", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "kubeletVersion")),
    wide("Internal-IP", "string", Desc::Field("io.k8s.api.core.v1.NodeStatus", "addresses")),
    wide("External-IP", "string", Desc::Field("io.k8s.api.core.v1.NodeStatus", "addresses")),
    wide("OS-Image", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "osImage")),
    wide("Kernel-Version", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "kernelVersion")),
    wide("Container-Runtime", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "containerRuntimeVersion")),
];

impl Strategy for Node {
    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        node_cells(o, now)
    }
}

fn node_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let mut status: Vec<&str> = Vec::new();
    for c in arr(o, "/status/conditions") {
        if s(c, "/type") == "Ready" {
            status.push(if s(c, "/status") == "True" { "Ready" } else { "NotReady" });
        }
    }
    if status.is_empty() {
        status.push("Unknown");
    }
    if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    let mut roles: Vec<String> = o
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    if let Some(r) = k.strip_prefix("node-role.kubernetes.io/") {
                        Some(r.to_string())
                    } else if k == "kubernetes.io/role" {
                        v.as_str().map(str::to_string)
                    } else {
                        None
                    }
                })
                .filter(|r| !r.is_empty())
                .collect()
        })
        .unwrap_or_default();
    roles.order();
    roles.dedup();
    let addr = |ty: &str| {
        arr(o, "/status/addresses")
            .iter()
            .find(|a| s(a, "/type") == ty)
            .map(|a| s(a, "/address").to_string())
            .unwrap_or_else(|| "<none>".into())
    };
    let info = |f: &str| match s(o, &format!("/status/nodeInfo/{f}")) {
        "" => "<unknown>".to_string(),
        v => v.to_string(),
    };
    vec![
        name(o),
        status.join(",").into(),
        if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }.into(),
        age(o, now),
        s(o, "/status/nodeInfo/kubeletVersion").into(),
        addr("InternalIP").into(),
        addr("ExternalIP").into(),
        info("osImage").into(),
        info("kernelVersion").into(),
        info("containerRuntimeVersion").into(),
    ]
}
