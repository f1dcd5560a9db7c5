//! The namespace controller (kube-controller-manager's `namespace`):
//! empties a namespace whose deletion has begun, then removes the
//! `kubernetes` finalizer through `/finalize` so the API server can remove
//! it. Requests as upstream's `namespacedResourcesDeleter` makes them: the
//! namespace read live; discovery; pods first (ordered namespace deletion,
//! on by default in 1.33); then every other namespaced resource that can
//! be deleted, by deletecollection (or one DELETE per item where the
//! resource has none), each with `propagationPolicy: Background`, and a
//! list to see what remains; the status conditions when they change; the
//! finalize. Content that remains (finalizers, terminating pods) is waited
//! for: the namespace is looked at again when its informers change.
//!
//! Upstream waits 5 s after a namespace's deletion before its first pass
//! and visits resources in Go's random map order; here the pass runs at
//! once and visits resources sorted by group and name, so a scenario
//! replays the same requests (`docs/fidelity.md`).

use crate::sort::Order;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::client::{ApiResource, Client};
use super::informer::Informer;
use super::{Controller, Progress};

const FINALIZER: &str = "kubernetes";

pub struct NamespaceController {
    namespaces: Informer,
    /// Every namespaced resource discovery listed (read once, refreshed
    /// when a pass finds a resource it did not know).
    resources: Option<Vec<ApiResource>>,
}

impl Default for NamespaceController {
    fn default() -> Self {
        NamespaceController { namespaces: Informer::new("/api/v1/namespaces"), resources: None }
    }
}

/// What a pass found left in a namespace.
#[derive(Default)]
struct Remaining {
    /// `resource.group` → how many objects.
    resources: BTreeMap<String, usize>,
    /// finalizer → on how many objects.
    finalizers: BTreeMap<String, usize>,
    /// Requests that failed (other than 404/405, which fall back or mean gone).
    errors: Vec<String>,
}

impl Controller for NamespaceController {
    fn name(&self) -> &'static str {
        "namespace"
    }

    fn service_account(&self) -> &'static str {
        "namespace-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        self.namespaces.sync(client);
        let terminating: Vec<String> = self
            .namespaces
            .objects()
            .filter(|ns| !ns["metadata"]["deletionTimestamp"].is_null() && has_finalizer(ns))
            .filter_map(|ns| ns["metadata"]["name"].as_str().map(str::to_string))
            .collect();
        for name in terminating {
            self.delete_namespace(client, &name);
        }
        Progress { writes: client.writes - before }
    }
}

fn has_finalizer(ns: &Value) -> bool {
    ns["spec"]["finalizers"].as_array().is_some_and(|f| f.iter().any(|x| x == FINALIZER))
}

fn background() -> Value {
    json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"})
}

impl NamespaceController {
    fn delete_namespace(&mut self, client: &mut Client<'_>, name: &str) {
        let path = format!("/api/v1/namespaces/{name}");
        let r = client.get(&path);
        if r.status != 200 {
            return;
        }
        let ns = r.json_body();
        if ns["metadata"]["deletionTimestamp"].is_null() || !has_finalizer(&ns) {
            return;
        }
        let resources = match &self.resources {
            Some(r) => r.clone(),
            None => {
                let found: Vec<ApiResource> = client
                    .discover()
                    .into_iter()
                    .filter(|r| r.namespaced && r.serves("delete") && r.serves("list"))
                    .collect();
                self.resources = Some(found.clone());
                found
            }
        };
        // Pods first; the rest only once no pod remains.
        let (pods, rest): (Vec<&ApiResource>, Vec<&ApiResource>) =
            resources.iter().partition(|r| r.group.is_empty() && r.resource == "pods");
        let mut remaining = Remaining::default();
        for r in &pods {
            delete_content(client, r, name, &mut remaining);
        }
        let pods_remain = !remaining.resources.is_empty();
        if pods_remain {
            // As 1.33: while pods remain, the content conditions are not
            // updated from what remains (kubernetes/kubernetes#138208).
            remaining = Remaining { errors: std::mem::take(&mut remaining.errors), ..Default::default() };
        } else {
            let mut rest = rest;
            rest.order_by(|a, b| (&a.group, &a.resource).cmp(&(&b.group, &b.resource)));
            for r in rest {
                delete_content(client, r, name, &mut remaining);
            }
        }
        let ns = update_conditions(client, ns, &remaining);
        if pods_remain || !remaining.resources.is_empty() || !remaining.errors.is_empty() {
            return;
        }
        let mut finalizers: Vec<String> = ns["spec"]["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|f| *f != FINALIZER)
            .map(str::to_string)
            .collect();
        finalizers.order();
        finalizers.dedup();
        let body = json!({
            "kind": "Namespace", "apiVersion": "v1",
            "metadata": ns["metadata"],
            "spec": {"finalizers": finalizers},
        });
        client.write("PUT", &format!("{path}/finalize"), "application/json", &body);
    }
}

/// Deletes one resource's content in a namespace (deletecollection, or
/// each item), then lists what remains.
fn delete_content(client: &mut Client<'_>, r: &ApiResource, namespace: &str, remaining: &mut Remaining) {
    let collection = r.collection(Some(namespace));
    let mut each = !r.serves("deletecollection");
    if !each {
        let resp = client.write("DELETE", &collection, "application/json", &background());
        match resp.status {
            200..=299 => {}
            404 | 405 => each = true,
            _ => remaining.errors.push(message_of(&resp)),
        }
    }
    if each {
        let list = client.get(&collection).json_body();
        for item in list["items"].as_array().into_iter().flatten() {
            let Some(n) = item["metadata"]["name"].as_str() else { continue };
            if !item["metadata"]["deletionTimestamp"].is_null() {
                continue;
            }
            let resp = client.write("DELETE", &r.item(namespace, n), "application/json", &background());
            if !matches!(resp.status, 200..=299 | 404 | 405) {
                remaining.errors.push(message_of(&resp));
            }
        }
    }
    let list = client.get(&collection).json_body();
    let items = list["items"].as_array().cloned().unwrap_or_default();
    if items.is_empty() {
        return;
    }
    *remaining.resources.entry(format!("{}.{}", r.resource, r.group)).or_default() += items.len();
    let mut held = false;
    for item in &items {
        for f in item["metadata"]["finalizers"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            *remaining.finalizers.entry(f.to_string()).or_default() += 1;
            held = true;
        }
    }
    if !held && r.resource != "pods" {
        // Nothing should hold these: upstream reports them as an error.
        let gvr = format!("{}, Resource={}", r.api_version(), r.resource);
        let gvr = if r.group.is_empty() { format!("/{gvr}") } else { gvr };
        remaining.errors.push(format!("unexpected items still remain in namespace: {namespace} for gvr: {gvr}"));
    }
}

fn message_of(r: &crate::server::Response) -> String {
    r.json_body()["message"].as_str().unwrap_or("").to_string()
}

/// The five deletion conditions, as upstream's `status_condition_utils.go`
/// words them; the namespace as it now is (after a status write, if one
/// was needed).
fn update_conditions(client: &mut Client<'_>, mut ns: Value, remaining: &Remaining) -> Value {
    let (content_failure, content_remaining, finalizers_remaining) = (
        if remaining.errors.is_empty() {
            ("False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization".to_string())
        } else {
            let mut msgs = remaining.errors.clone();
            msgs.order();
            (
                "True",
                "ContentDeletionFailed",
                format!("Failed to delete all resource types, {} remaining: {}", msgs.len(), msgs.join(", ")),
            )
        },
        if remaining.resources.is_empty() {
            ("False", "ContentRemoved", "All content successfully removed".to_string())
        } else {
            let parts: Vec<String> =
                remaining.resources.iter().map(|(r, n)| format!("{r} has {n} resource instances")).collect();
            ("True", "SomeResourcesRemain", format!("Some resources are remaining: {}", parts.join(", ")))
        },
        if remaining.finalizers.is_empty() {
            ("False", "ContentHasNoFinalizers", "All content-preserving finalizers finished".to_string())
        } else {
            let parts: Vec<String> =
                remaining.finalizers.iter().map(|(f, n)| format!("{f} in {n} resource instances")).collect();
            (
                "True",
                "SomeFinalizersRemain",
                format!("Some content in the namespace has finalizers remaining: {}", parts.join(", ")),
            )
        },
    );
    let wanted = [
        (
            "NamespaceDeletionDiscoveryFailure",
            "False",
            "ResourcesDiscovered",
            "All resources successfully discovered".to_string(),
        ),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            "False",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed".to_string(),
        ),
        ("NamespaceDeletionContentFailure", content_failure.0, content_failure.1, content_failure.2),
        ("NamespaceContentRemaining", content_remaining.0, content_remaining.1, content_remaining.2),
        ("NamespaceFinalizersRemaining", finalizers_remaining.0, finalizers_remaining.1, finalizers_remaining.2),
    ];
    let now = client.now_rfc3339();
    let mut conditions: Vec<Value> = ns["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let mut changed = false;
    for (kind, status, reason, message) in wanted {
        match conditions.iter_mut().find(|c| c["type"] == kind) {
            Some(c) => {
                if c["status"] != status || c["reason"] != reason || c["message"] != message.as_str() {
                    if c["status"] != status {
                        c["lastTransitionTime"] = json!(now);
                    }
                    c["status"] = json!(status);
                    c["reason"] = json!(reason);
                    c["message"] = json!(message);
                    changed = true;
                }
            }
            None => {
                conditions.push(json!({"type": kind, "status": status, "lastTransitionTime": now,
                    "reason": reason, "message": message}));
                changed = true;
            }
        }
    }
    if !changed {
        return ns;
    }
    ns["status"]["conditions"] = Value::Array(conditions);
    let name = ns["metadata"]["name"].as_str().unwrap_or("").to_string();
    let r = client.write("PUT", &format!("/api/v1/namespaces/{name}/status"), "application/json", &ns);
    if r.status == 200 {
        r.json_body()
    } else {
        ns
    }
}
