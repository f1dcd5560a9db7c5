//! The Endpoints and EndpointSlice controllers (kube-controller-manager's
//! `endpoint` and `endpointslice`), clients: for every Service with a
//! selector, the pods it selects that have an address become
//!
//! - an `Endpoints` named as the Service (its labels, plus
//!   `endpointslice.kubernetes.io/skip-mirror: "true"`), one subset with
//!   the ready pods under `addresses`, the others under
//!   `notReadyAddresses`, each with its node and a `targetRef` to the pod,
//!   and the Service's ports resolved against each pod (a named
//!   `targetPort` is looked up in the pod's container ports; a pod without
//!   it is left out);
//! - `EndpointSlice`s (`generateName: <service>-`, owned by the Service,
//!   labelled `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by:
//!   endpointslice-controller.k8s.io`), at most 100 endpoints each, with
//!   `ready`/`serving`/`terminating` conditions; a Service selecting no pod
//!   keeps one empty slice, as upstream's placeholder.
//!
//! Both are written only when what they hold changes, with
//! `endpoints.kubernetes.io/last-change-trigger-time` set to the time of
//! the write. Upstream sorts an Endpoints' ports by hash and fills slices
//! in no fixed order; here ports keep the Service's order and endpoints
//! are in pod name order (docs/fidelity.md).

use crate::sort::Order;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::{collection, is_ready, meta_str, owner_reference, selects};
use super::{Controller, Progress};
use crate::selector::LabelSelector;

const TRIGGER_TIME: &str = "endpoints.kubernetes.io/last-change-trigger-time";
const SERVICE_NAME: &str = "kubernetes.io/service-name";
const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
const SLICE_CONTROLLER: &str = "endpointslice-controller.k8s.io";
const MAX_PER_SLICE: usize = 100;

/// A Service's selector as a label selector (None: it has none, and its
/// endpoints are someone else's to keep).
fn service_selector(svc: &Value) -> Option<LabelSelector> {
    let m = svc["spec"]["selector"].as_object()?;
    if svc["spec"]["type"] == "ExternalName" {
        return None;
    }
    let text: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect();
    LabelSelector::parse(&text.join(",")).ok()
}

/// A Service port's target on a pod: a number, or a named container port.
fn target_port(port: &Value, pod: &Value) -> Option<i64> {
    match &port["targetPort"] {
        Value::Number(n) => n.as_i64(),
        Value::String(name) => pod["spec"]["containers"]
            .as_array()?
            .iter()
            .flat_map(|c| c["ports"].as_array().into_iter().flatten())
            .find(|p| {
                p["name"].as_str() == Some(name)
                    && p["protocol"].as_str().unwrap_or("TCP") == port["protocol"].as_str().unwrap_or("TCP")
            })
            .and_then(|p| p["containerPort"].as_i64()),
        _ => port["port"].as_i64(),
    }
}

/// One selected pod with an address, and its ports for the Service.
struct Backend {
    pod: Value,
    ip: String,
    ready: bool,
    ports: Vec<Value>,
}

/// The pods a Service selects, each with its resolved ports (pods with no
/// address, finished or being deleted are not backends).
/// The Services whose endpoints may have changed: every one when a Service
/// or an endpoints object changed, else those in the namespaces where pods
/// changed (a Service selects pods of its own namespace only).
fn to_sync(services: &Informer, pods: &mut Informer, all: bool) -> Vec<Arc<Value>> {
    let changes = pods.take_changes();
    if all {
        return services.shared().cloned().collect();
    }
    let namespaces: std::collections::BTreeSet<&str> = changes
        .iter()
        .filter_map(|(old, new)| old.as_ref().or(new.as_ref()))
        .map(|p| meta_str(p, "namespace"))
        .collect();
    let mut out: Vec<Arc<Value>> = namespaces.into_iter().flat_map(|ns| services.in_namespace(ns).cloned()).collect();
    // In the cache's order, as a pass over every Service would go.
    out.sort_by_cached_key(|s| super::informer::key_of(s));
    out
}

fn backends(svc: &Value, selector: &LabelSelector, pods: &Informer) -> Vec<Backend> {
    let ns = meta_str(svc, "namespace");
    let publish = svc["spec"]["publishNotReadyAddresses"].as_bool() == Some(true);
    let mut out = Vec::new();
    for pod in pods.in_namespace(ns).map(|p| &**p) {
        let ip = pod["status"]["podIP"].as_str().unwrap_or("");
        let finished = matches!(pod["status"]["phase"].as_str(), Some("Succeeded") | Some("Failed"));
        if ip.is_empty() || finished || !pod["metadata"]["deletionTimestamp"].is_null() || !selects(selector, pod) {
            continue;
        }
        let mut ports = Vec::new();
        let mut complete = true;
        for sp in svc["spec"]["ports"].as_array().into_iter().flatten() {
            match target_port(sp, pod) {
                Some(n) => {
                    let mut p = Map::new();
                    if let Some(name) = sp["name"].as_str().filter(|n| !n.is_empty()) {
                        p.insert("name".into(), json!(name));
                    }
                    p.insert("port".into(), json!(n));
                    p.insert("protocol".into(), json!(sp["protocol"].as_str().unwrap_or("TCP")));
                    if let Some(a) = sp.get("appProtocol").filter(|v| !v.is_null()) {
                        p.insert("appProtocol".into(), a.clone());
                    }
                    ports.push(Value::Object(p));
                }
                None => complete = false,
            }
        }
        if !complete {
            continue;
        }
        out.push(Backend { pod: pod.clone(), ip: ip.to_string(), ready: publish || is_ready(pod), ports });
    }
    out
}

fn target_ref(pod: &Value) -> Value {
    json!({"kind": "Pod", "namespace": meta_str(pod, "namespace"), "name": meta_str(pod, "name"), "uid": meta_str(pod, "uid")})
}

fn labels_of(svc: &Value) -> Map<String, Value> {
    svc["metadata"]["labels"].as_object().cloned().unwrap_or_default()
}

pub struct EndpointsController {
    services: Informer,
    pods: Informer,
    endpoints: Informer,
}

impl Default for EndpointsController {
    fn default() -> Self {
        EndpointsController {
            services: Informer::new("/api/v1/services"),
            pods: Informer::tracking("/api/v1/pods"),
            endpoints: Informer::new("/api/v1/endpoints"),
        }
    }
}

impl Controller for EndpointsController {
    fn name(&self) -> &'static str {
        "endpoint"
    }

    fn service_account(&self) -> &'static str {
        "endpoint-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let all = self.services.sync(client) | self.endpoints.sync(client);
        let changed = all | self.pods.sync(client);
        if changed {
            for svc in to_sync(&self.services, &mut self.pods, all) {
                self.sync_service(client, &svc);
            }
            // Endpoints this controller kept for a Service that is gone.
            let orphans: Vec<Arc<Value>> = self
                .endpoints
                .shared()
                .filter(|e| e["metadata"]["labels"]["endpointslice.kubernetes.io/skip-mirror"] == "true")
                .filter(|e| self.services.get(&super::informer::key_of(e)).is_none())
                .cloned()
                .collect();
            for e in orphans {
                let path =
                    format!("{}/{}", collection("v1", meta_str(&e, "namespace"), "endpoints"), meta_str(&e, "name"));
                client.send("DELETE", &path, None);
            }
        }
        Progress { writes: client.writes - before }
    }
}

impl EndpointsController {
    fn sync_service(&mut self, client: &mut Client<'_>, svc: &Value) {
        let Some(selector) = service_selector(svc) else { return };
        let (ns, name) = (meta_str(svc, "namespace"), meta_str(svc, "name"));
        let backends = backends(svc, &selector, &self.pods);
        // One subset per distinct port list, in the order first seen.
        let mut subsets: Vec<(Vec<Value>, Vec<Value>, Vec<Value>)> = Vec::new();
        for b in &backends {
            let mut address = json!({"ip": b.ip, "targetRef": target_ref(&b.pod)});
            if let Some(node) = b.pod["spec"]["nodeName"].as_str() {
                address["nodeName"] = json!(node);
            }
            let i = match subsets.iter().position(|(ports, _, _)| *ports == b.ports) {
                Some(i) => i,
                None => {
                    subsets.push((b.ports.clone(), Vec::new(), Vec::new()));
                    subsets.len() - 1
                }
            };
            if b.ready {
                subsets[i].1.push(address);
            } else {
                subsets[i].2.push(address);
            }
        }
        let subsets: Vec<Value> = subsets
            .into_iter()
            .map(|(ports, mut ready, mut not_ready)| {
                let by_ip = |a: &Value, b: &Value| a["ip"].as_str().cmp(&b["ip"].as_str());
                ready.order_by(by_ip);
                not_ready.order_by(by_ip);
                let mut s = Map::new();
                if !ready.is_empty() {
                    s.insert("addresses".into(), json!(ready));
                }
                if !not_ready.is_empty() {
                    s.insert("notReadyAddresses".into(), json!(not_ready));
                }
                if !ports.is_empty() {
                    s.insert("ports".into(), json!(ports));
                }
                Value::Object(s)
            })
            .collect();
        let mut labels = labels_of(svc);
        labels.insert("endpointslice.kubernetes.io/skip-mirror".into(), json!("true"));
        if svc["spec"]["clusterIP"] == "None" {
            labels.insert("service.kubernetes.io/headless".into(), json!(""));
        }
        let current = self.endpoints.get(&format!("{ns}/{name}")).cloned();
        if let Some(cur) = &current {
            let cur_subsets = cur.get("subsets").cloned().unwrap_or(json!([]));
            let cur_labels = cur["metadata"]["labels"].as_object().cloned().unwrap_or_default();
            if cur_subsets == json!(subsets) && cur_labels == labels {
                return;
            }
        }
        let mut metadata = json!({"name": name, "namespace": ns, "labels": labels,
            "annotations": {TRIGGER_TIME: client.now_rfc3339()}});
        let mut body = json!({"kind": "Endpoints", "apiVersion": "v1"});
        if !subsets.is_empty() {
            body["subsets"] = json!(subsets);
        }
        let path = collection("v1", ns, "endpoints");
        match current {
            Some(cur) => {
                metadata["resourceVersion"] = cur["metadata"]["resourceVersion"].clone();
                if let Some(a) = cur["metadata"]["annotations"].as_object() {
                    for (k, v) in a {
                        if k != TRIGGER_TIME {
                            metadata["annotations"][k] = v.clone();
                        }
                    }
                }
                body["metadata"] = metadata;
                client.write("PUT", &format!("{path}/{name}"), "application/json", &body);
            }
            None => {
                body["metadata"] = metadata;
                client.write("POST", &path, "application/json", &body);
            }
        }
    }
}

pub struct EndpointSliceController {
    services: Informer,
    pods: Informer,
    slices: Informer,
}

impl Default for EndpointSliceController {
    fn default() -> Self {
        EndpointSliceController {
            services: Informer::new("/api/v1/services"),
            pods: Informer::tracking("/api/v1/pods"),
            slices: Informer::new(format!(
                "/apis/discovery.k8s.io/v1/endpointslices?labelSelector={MANAGED_BY}%3D{SLICE_CONTROLLER}"
            )),
        }
    }
}

impl Controller for EndpointSliceController {
    fn name(&self) -> &'static str {
        "endpointslice"
    }

    fn service_account(&self) -> &'static str {
        "endpointslice-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let all = self.services.sync(client) | self.slices.sync(client);
        if all | self.pods.sync(client) {
            for svc in to_sync(&self.services, &mut self.pods, all) {
                self.sync_service(client, &svc);
            }
        }
        Progress { writes: client.writes - before }
    }
}

impl EndpointSliceController {
    fn sync_service(&mut self, client: &mut Client<'_>, svc: &Value) {
        let Some(selector) = service_selector(svc) else { return };
        let (ns, name, uid) = (meta_str(svc, "namespace"), meta_str(svc, "name"), meta_str(svc, "uid"));
        let backends = backends(svc, &selector, &self.pods);
        let endpoints: Vec<Value> = backends
            .iter()
            .map(|b| {
                let mut e = json!({"addresses": [b.ip],
                    "conditions": {"ready": b.ready, "serving": b.ready, "terminating": false},
                    "targetRef": target_ref(&b.pod)});
                if let Some(node) = b.pod["spec"]["nodeName"].as_str() {
                    e["nodeName"] = json!(node);
                }
                e
            })
            .collect();
        // Slices' ports name every port ("" when the Service's is unnamed).
        let ports: Value = match backends.first() {
            None => Value::Null,
            Some(b) => Value::Array(
                b.ports
                    .iter()
                    .map(|p| {
                        let mut p = p.clone();
                        if p.get("name").is_none() {
                            p["name"] = json!("");
                        }
                        p
                    })
                    .collect(),
            ),
        };
        let chunks: Vec<Value> = if endpoints.is_empty() {
            vec![Value::Null]
        } else {
            endpoints.chunks(MAX_PER_SLICE).map(|c| json!(c)).collect()
        };
        let mut labels = labels_of(svc);
        labels.insert(SERVICE_NAME.into(), json!(name));
        labels.insert(MANAGED_BY.into(), json!(SLICE_CONTROLLER));
        let mut owned: Vec<Value> = self
            .slices
            .objects()
            .filter(|s| meta_str(s, "namespace") == ns && s["metadata"]["labels"][SERVICE_NAME] == name)
            .cloned()
            .collect();
        owned.order_by(|a, b| meta_str(a, "name").cmp(meta_str(b, "name")));
        let path = format!("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices");
        let now = client.now_rfc3339();
        for (i, chunk) in chunks.iter().enumerate() {
            let mut body = json!({"kind": "EndpointSlice", "apiVersion": "discovery.k8s.io/v1",
                "metadata": {"namespace": ns, "labels": labels, "annotations": {TRIGGER_TIME: now},
                    "ownerReferences": [owner_reference(svc, "v1", "Service")]},
                "addressType": "IPv4", "endpoints": chunk, "ports": ports});
            match owned.get(i) {
                Some(cur) => {
                    let same = cur["endpoints"] == *chunk
                        && cur["ports"] == ports
                        && cur["metadata"]["labels"] == json!(labels)
                        && cur["metadata"]["ownerReferences"][0]["uid"] == uid;
                    if same {
                        continue;
                    }
                    body["metadata"]["name"] = cur["metadata"]["name"].clone();
                    body["metadata"]["resourceVersion"] = cur["metadata"]["resourceVersion"].clone();
                    client.write("PUT", &format!("{path}/{}", meta_str(cur, "name")), "application/json", &body);
                }
                None => {
                    body["metadata"]["generateName"] = json!(format!("{name}-"));
                    client.write("POST", &path, "application/json", &body);
                }
            }
        }
        for extra in owned.iter().skip(chunks.len()) {
            let body =
                json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": meta_str(extra, "uid")}});
            client.write("DELETE", &format!("{path}/{}", meta_str(extra, "name")), "application/json", &body);
        }
    }
}
