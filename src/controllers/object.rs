//! Reading the objects controllers hold (JSON values from informers): the
//! few questions every workload controller asks of them.

use serde_json::{json, Value};

use crate::selector::LabelSelector;

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
