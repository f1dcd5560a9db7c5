//! The `/scale` subresource: an `autoscaling/v1` Scale read from and
//! written to the object's `spec.replicas`, as kubectl scale and
//! autoscalers use it. Reads come through `get`, writes through `update`
//! and `patch` with `Subresource::Scale`.

use serde_json::{json, Value};

use super::super::decode::Warnings;
use super::super::options::{Subresource, WriteOptions};
use super::super::resource::ResourceType;
use super::{Body, Recorded, Registry, Written};
use crate::api::{meta, FieldError, Status};
use crate::storage::Storage;

fn pointer(dotted: &str) -> String {
    format!("/{}", dotted.replace('.', "/"))
}

/// The Scale view of an object.
pub(super) fn to_scale(rt: &ResourceType, obj: &Value) -> Value {
    let m = |k: &str| obj.pointer(&format!("/metadata/{k}")).cloned().unwrap_or(Value::Null);
    let mut metadata = json!({
        "name": m("name"), "namespace": m("namespace"), "uid": m("uid"),
        "resourceVersion": m("resourceVersion"), "creationTimestamp": m("creationTimestamp"),
    });
    if let Value::Object(md) = &mut metadata {
        md.retain(|_, v| !v.is_null());
    }
    let (spec_replicas, status_replicas, selector) = match rt.strategy.scale_paths() {
        // A custom resource's: what is at its paths (0 where nothing is;
        // the selector a string as stored).
        Some((spec, status, selector)) => (
            obj.pointer(&pointer(spec)).and_then(Value::as_i64).unwrap_or(0),
            obj.pointer(&pointer(status)).and_then(Value::as_i64).unwrap_or(0),
            selector.and_then(|p| obj.pointer(&pointer(p))).and_then(Value::as_str).unwrap_or("").to_string(),
        ),
        None => (
            obj.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1),
            obj.pointer("/status/replicas").and_then(Value::as_i64).unwrap_or(0),
            rt.strategy.scale_selector(obj),
        ),
    };
    let mut status = json!({"replicas": status_replicas});
    if !selector.is_empty() {
        status["selector"] = json!(selector);
    }
    json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": metadata,
        "spec": {"replicas": spec_replicas}, "status": status,
    })
}

impl<S: Storage> Registry<S> {
    /// Writes the replicas of a wanted Scale to its parent (`current`); the
    /// Scale's resourceVersion is a precondition on the parent.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_scale(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        current: Value,
        wanted: &Value,
        opts: &WriteOptions,
        _warnings: &mut Warnings,
    ) -> Result<Written, Status> {
        let n = match wanted.pointer("/spec/replicas") {
            None | Some(Value::Null) => 0,
            Some(v) => match v.as_i64() {
                Some(n) if (0..=i64::from(i32::MAX)).contains(&n) => n,
                _ => {
                    return Err(Status::invalid(
                        "autoscaling",
                        "Scale",
                        name,
                        &[FieldError::invalid_value("spec.replicas", v, "must be greater than or equal to 0")],
                    ));
                }
            },
        };
        let mut parent = current;
        match rt.strategy.scale_paths() {
            Some((spec, _, _)) => set_path(&mut parent, spec, json!(n)),
            None => {
                if let Some(Value::Object(spec)) = parent.get_mut("spec") {
                    spec.insert("replicas".into(), json!(n));
                }
            }
        }
        match meta::meta_str(wanted, "resourceVersion").filter(|s| !s.is_empty()) {
            Some(rv) => meta::metadata_mut(&mut parent).insert("resourceVersion".into(), json!(rv)),
            None => meta::metadata_mut(&mut parent).shift_remove("resourceVersion"),
        };
        let opts = WriteOptions { subresource: Subresource::None, ..opts.clone() };
        let written =
            self.update_value(rt, namespace, name, parent, &opts, Recorded::Update, meta::meta_str(wanted, "uid"))?;
        Ok(Written { body: Body::Value(to_scale(rt, &written.body.into_value())), created: false })
    }
}

/// Sets a dotted path's value, making the objects on the way.
fn set_path(obj: &mut Value, dotted: &str, value: Value) {
    let mut cur = obj;
    let parts: Vec<&str> = dotted.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let Some(m) = cur.as_object_mut() else { return };
        if i + 1 == parts.len() {
            m.insert((*part).to_string(), value);
            return;
        }
        cur = m.entry(*part).or_insert_with(|| json!({}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_read_replicas_and_the_selector() {
        let d = json!({"metadata": {"name": "web", "namespace": "default", "resourceVersion": "7"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 2}});
        let rt = crate::registry::kinds::builtin_catalog().lookup("apps", "v1", "deployments").unwrap().clone();
        let s = to_scale(&rt, &d);
        assert_eq!(s["spec"]["replicas"], 3);
        assert_eq!(s["status"], json!({"replicas": 2, "selector": "app=web"}));
        assert_eq!(s["metadata"]["resourceVersion"], "7");
    }

    #[test]
    fn selectors_print_sorted_as_upstream_does() {
        let sel = json!({"matchLabels": {"b": "2", "a": "1"},
                         "matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]},
                                              {"key": "d", "operator": "DoesNotExist"}]});
        assert_eq!(crate::selector::label_selector_string(Some(&sel)), "a=1,b=2,c in (x,y),!d");
    }
}
