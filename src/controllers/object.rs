//! Reading the objects controllers hold (JSON values from informers): the
//! few questions every workload controller asks of them.

use crate::sort::Order;
use serde_json::{json, Map, Value};

use crate::selector::LabelSelector;

/// The name of the object a response carries, read without building the
/// object (a created pod's name, for its event).
pub fn name_in(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(default)]
        name: String,
    }
    #[derive(serde::Deserialize)]
    struct Object {
        metadata: Meta,
    }
    serde_json::from_slice::<Object>(body).map(|o| o.metadata.name).unwrap_or_default()
}

pub fn meta_str<'a>(v: &'a Value, f: &str) -> &'a str {
    v["metadata"][f].as_str().unwrap_or("")
}

/// The controller reference of an object, if any.
pub fn controller_of(obj: &Value) -> Option<&Value> {
    obj["metadata"]["ownerReferences"].as_array()?.iter().find(|o| o["controller"].as_bool() == Some(true))
}

/// A controller reference to `owner` (with `blockOwnerDeletion`, as
/// workload controllers set it).
pub fn owner_reference(owner: &Value, api_version: &str, kind: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": meta_str(owner, "name"),
        "uid": meta_str(owner, "uid"), "controller": true, "blockOwnerDeletion": true})
}

/// Whether `selector` selects `obj` by its labels.
pub fn selects(selector: &LabelSelector, obj: &Value) -> bool {
    let labels = obj["metadata"]["labels"].as_object();
    selector.matches_fn(|k| labels.and_then(|l| l.get(k)).and_then(Value::as_str))
}

/// The `spec.selector` of a workload as a selector (None: it selects
/// nothing, as an empty or unparsable one).
pub fn spec_selector(obj: &Value) -> Option<LabelSelector> {
    let text = crate::selector::label_selector_string(obj["spec"].get("selector"));
    if text.is_empty() {
        return None;
    }
    LabelSelector::parse(&text).ok()
}

/// A pod neither being deleted nor finished.
pub fn is_active(pod: &Value) -> bool {
    pod["metadata"]["deletionTimestamp"].is_null()
        && !matches!(pod["status"]["phase"].as_str(), Some("Succeeded") | Some("Failed"))
}

pub fn is_ready(pod: &Value) -> bool {
    pod["status"]["conditions"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "Ready" && c["status"] == "True"))
}

/// An integer field (absent: 0).
/// Whether a namespace is live (not being deleted): what the controllers
/// that fill every namespace (root CA, service accounts) look at.
#[inline(always)]
pub fn is_namespace_active(ns: &Value) -> bool {
    ns["metadata"]["deletionTimestamp"].is_null() && ns["status"]["phase"] != "Terminating"
}

pub fn int(v: &Value, pointer: &str) -> i64 {
    v.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The collection path of a namespaced resource.
pub fn collection(api_version: &str, namespace: &str, resource: &str) -> String {
    let base = if api_version.contains('/') { format!("/apis/{api_version}") } else { format!("/api/{api_version}") };
    format!("{base}/namespaces/{namespace}/{resource}")
}

/// The path of one namespaced object of `resource`.
pub fn path_of(api_version: &str, resource: &str, obj: &Value) -> String {
    format!("{}/{}", collection(api_version, meta_str(obj, "namespace"), resource), meta_str(obj, "name"))
}

/// A pod as a workload's template describes it: `generateName:
/// <owner>-`, the template's labels and annotations, a controller
/// reference to the owner (of `api_version`/`kind`).
pub fn pod_from_template(owner: &Value, (api_version, kind): (&str, &str)) -> Value {
    let template = &owner["spec"]["template"];
    let mut metadata = Map::new();
    metadata.insert("generateName".into(), json!(format!("{}-", meta_str(owner, "name"))));
    metadata.insert("namespace".into(), json!(meta_str(owner, "namespace")));
    for f in ["labels", "annotations"] {
        if let Some(v) = template["metadata"].get(f).filter(|v| !v.is_null()) {
            metadata.insert(f.into(), v.clone());
        }
    }
    metadata.insert("ownerReferences".into(), json!([owner_reference(owner, api_version, kind)]));
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
}

/// Whether a pod has been Ready (and so available, `minReadySeconds`
/// aside) and is not going.
pub fn is_available(pod: &Value) -> bool {
    is_active(pod) && is_ready(pod)
}

/// Sorts keys at every level and drops null fields, so objects Go would
/// decode alike (`creationTimestamp: null` is a zero time, as absent) are
/// equal and print alike.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().filter(|k| !m[*k].is_null()).collect();
            keys.order();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&m[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The pod-template-hash of a template: FNV-1a (32 bits) of its
/// canonical JSON and the collision count, its decimal digits spelled
/// with the letters upstream's `rand.SafeEncodeString` uses.
pub fn template_hash(template: &Value, collision_count: Option<i64>) -> String {
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    feed(&crate::api::to_json(&canonical(template)));
    if let Some(c) = collision_count {
        feed(&(c as u32).to_le_bytes());
    }
    safe_encode(h)
}

/// A hash's decimal digits spelled with the letters upstream's
/// `rand.SafeEncodeString` uses (no vowels, no look-alikes).
pub fn safe_encode(h: u32) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string().bytes().map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char).collect()
}
