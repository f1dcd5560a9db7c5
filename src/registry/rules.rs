//! What is special about particular kinds: initial status on create,
//! namespace lifecycle, pods' immediate deletion. Everything else is the
//! generic flow in `store.rs`.

use serde_json::{json, Map, Value};

use super::ResourceType;

/// Fields a kind's create strategy sets, before validation.
pub fn prepare_for_create(rt: &ResourceType, obj: &mut Map<String, Value>) {
    if rt.status_subresource {
        // Create strategies of kinds with a status subresource start from a
        // fresh status: clients cannot create an object with a status.
        let status = match (rt.group, rt.resource) {
            ("", "pods") => json!({
                "phase": "Pending",
                "qosClass": super::defaults::qos_class(obj.get("spec").unwrap_or(&Value::Null)),
            }),
            ("", "namespaces") => json!({"phase": "Active"}),
            ("", "persistentvolumeclaims") | ("", "persistentvolumes") => json!({"phase": "Pending"}),
            _ => json!({}),
        };
        obj.insert("status".into(), status);
    }
    if (rt.group, rt.resource) == ("", "namespaces") {
        let spec = obj.entry("spec").or_insert_with(|| json!({}));
        if let Value::Object(spec) = spec {
            spec.insert("finalizers".into(), json!(["kubernetes"]));
        }
    }
}

pub fn is_namespaces(rt: &ResourceType) -> bool {
    (rt.group, rt.resource) == ("", "namespaces")
}

/// The fields that belong to the main resource rather than its status.
pub fn spec_changed(old: &Value, new: &Value) -> bool {
    let strip = |v: &Value| -> Value {
        let mut m = v.as_object().cloned().unwrap_or_default();
        for k in ["metadata", "status", "kind", "apiVersion"] {
            m.remove(k);
        }
        Value::Object(m)
    };
    strip(old) != strip(new)
}

/// The selector attributes of an object for its kind.
pub fn attrs(rt: &ResourceType, obj: &Value) -> crate::storage::ObjectAttrs {
    use crate::api::meta;
    let mut fields: Vec<(&'static str, String)> = vec![("metadata.name", meta::name(obj).to_string())];
    if rt.namespaced {
        fields.push(("metadata.namespace", meta::namespace(obj).to_string()));
    }
    for (path, zero) in rt.field_selectors {
        let v = if *path == "source" {
            // Events select on the reporting component of `source`.
            meta::field_at(obj, "source.component")
        } else {
            meta::field_at(obj, path)
        };
        let v = v.unwrap_or_else(|| (*zero).to_string());
        // An empty value reads the same as an absent one: keep it out.
        if !v.is_empty() {
            fields.push((path, v));
        }
    }
    crate::storage::ObjectAttrs::new(meta::labels(obj), fields)
}
