//! What the kubelet needs before it can make a container: the ConfigMaps
//! and Secrets its environment names (`env[].valueFrom.configMapKeyRef`,
//! `secretKeyRef`, `envFrom[]`). As upstream's `makeEnvironmentVariables`,
//! a missing object or key that is not `optional` stops the container at
//! `CreateContainerConfigError` (the pod stays `Pending`), told by a
//! Warning `Failed` event `Error: configmap "x" not found`; the kubelet
//! tries again after its pod worker's back-off.
//!
//! The kubelet reads each object with a GET, as its configmap and secret
//! managers do for a pod bound to it.

use serde_json::{json, Value};

use super::super::client::Client;
use super::super::events::{EventType, Recorder};

/// The pod worker's back-off after a failed sync (upstream's 10 s; the
/// jitter left out).
pub(super) const RETRY_MS: i64 = 10_000;

/// Whether the container's environment names anything to read.
pub(super) fn reads_objects(c: &Value) -> bool {
    c["envFrom"].as_array().is_some_and(|a| !a.is_empty())
        || c["env"].as_array().is_some_and(|a| a.iter().any(|e| e["valueFrom"].is_object()))
}

/// One object's kind as the kubelet's managers name it in their errors,
/// its collection, and what a key missing from it is called.
struct Source {
    noun: &'static str,
    resource: &'static str,
    kind: &'static str,
}

const CONFIG_MAP: Source = Source { noun: "configmap", resource: "configmaps", kind: "ConfigMap" };
const SECRET: Source = Source { noun: "secret", resource: "secrets", kind: "Secret" };

/// Why the container cannot be made (`configmap "x" not found`, `couldn't
/// find key k in ConfigMap ns/x`), or None when everything it needs is
/// there or optional. Never inlined: only a pod whose environment reads
/// objects comes here.
#[inline(never)]
pub(super) fn config_error(client: &mut Client<'_>, namespace: &str, c: &Value) -> Option<String> {
    let mut read = |source: &Source, name: &str| -> Result<Value, String> {
        let r = client.get(&format!("/api/v1/namespaces/{namespace}/{}/{name}", source.resource));
        match r.status {
            200 => Ok(serde_json::from_slice(&r.body).unwrap_or(Value::Null)),
            404 => Err(format!("{} {name:?} not found", source.noun)),
            _ => Err(format!("failed to get {} {namespace}/{name}", source.noun)),
        }
    };
    let optional = |r: &Value| r["optional"].as_bool() == Some(true);
    for from in c["envFrom"].as_array().into_iter().flatten() {
        for (field, source) in [("configMapRef", &CONFIG_MAP), ("secretRef", &SECRET)] {
            let Some(r) = from.get(field).filter(|r| r.is_object()) else { continue };
            match read(source, r["name"].as_str().unwrap_or("")) {
                Err(_) if optional(r) => {}
                Err(e) => return Some(e),
                Ok(_) => {}
            }
        }
    }
    for var in c["env"].as_array().into_iter().flatten() {
        for (field, source) in [("configMapKeyRef", &CONFIG_MAP), ("secretKeyRef", &SECRET)] {
            let Some(r) = var["valueFrom"].get(field).filter(|r| r.is_object()) else { continue };
            let (name, key) = (r["name"].as_str().unwrap_or(""), r["key"].as_str().unwrap_or(""));
            match read(source, name) {
                Err(_) if optional(r) => {}
                Err(e) => return Some(e),
                Ok(obj) if obj["data"].get(key).is_none() && !optional(r) => {
                    return Some(format!("couldn't find key {key} in {} {namespace}/{name}", source.kind));
                }
                Ok(_) => {}
            }
        }
    }
    None
}

/// The status of container `c` that could not be made for `message`,
/// noted in `unmade` (its name, image and message) for `tell`. Never
/// inlined, as `config_error`.
#[inline(never)]
pub(super) fn unmade(c: &Value, message: String, unmade: &mut Vec<(String, String, String)>) -> Value {
    let (name, image) = (c["name"].as_str().unwrap_or(""), c["image"].as_str().unwrap_or(""));
    let status = json!({"name": name, "state": {"waiting": {"reason": "CreateContainerConfigError",
        "message": message}}, "lastState": {}, "ready": false, "restartCount": 0,
        "image": image, "imageID": "", "started": false});
    unmade.push((name.to_string(), image.to_string(), message));
    status
}

/// The kubelet's events for the containers it could not make: the image
/// (present), then the Warning `Failed` with the reason.
#[inline(never)]
pub(super) fn tell(recorder: &mut Recorder, client: &mut Client<'_>, pod: &Value, unmade: &[(String, String, String)]) {
    for (name, image, message) in unmade {
        let field = format!("spec.containers{{{name}}}");
        let pulled = format!("Container image {image:?} already present on machine");
        recorder.event(client, pod, ("v1", "Pod"), &field, EventType::Normal, "Pulled", &pulled);
        let message = format!("Error: {message}");
        recorder.event(client, pod, ("v1", "Pod"), &field, EventType::Warning, "Failed", &message);
    }
}
