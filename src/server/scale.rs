//! The `/scale` subresource: an `autoscaling/v1` Scale read from and
//! written to the object's `spec.replicas`, as kubectl scale and autoscalers
//! use it.

use serde_json::{json, Value};

use super::{body_response, decode_patch, Request, Response, Server};
use crate::api::{meta, FieldError, Status};
use crate::registry::store::{Body, Warnings, WriteOptions};
use crate::registry::ResourceType;

/// The Scale view of an object.
fn to_scale(obj: &Value) -> Value {
    let m = |k: &str| obj.pointer(&format!("/metadata/{k}")).cloned().unwrap_or(Value::Null);
    let mut metadata = json!({
        "name": m("name"), "namespace": m("namespace"), "uid": m("uid"),
        "resourceVersion": m("resourceVersion"), "creationTimestamp": m("creationTimestamp"),
    });
    if let Value::Object(md) = &mut metadata {
        md.retain(|_, v| !v.is_null());
    }
    let spec_replicas = obj.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1);
    let status_replicas = obj.pointer("/status/replicas").and_then(Value::as_i64).unwrap_or(0);
    let mut status = json!({"replicas": status_replicas});
    let selector = crate::selector::label_selector_string(obj.pointer("/spec/selector"));
    if !selector.is_empty() {
        status["selector"] = json!(selector);
    }
    json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": metadata,
        "spec": {"replicas": spec_replicas}, "status": status,
    })
}

fn body_value(b: Body) -> Value {
    match b {
        Body::Object(o) => o.value(),
        Body::Value(v) => v,
        Body::Status(s) => serde_json::from_slice(&s.to_json()).unwrap_or(Value::Null),
    }
}

impl Server {
    pub(crate) fn scale(
        &mut self,
        req: &Request,
        rt: &'static ResourceType,
        ns: &str,
        name: &str,
        opts: WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        let current = self.registry.get(rt, ns, name, None)?.value();
        let scale = to_scale(&current);
        let wanted = match req.method.as_str() {
            "GET" => return Ok(Response::value(200, &scale)),
            "PUT" if super::media_type(req) == super::negotiation::PROTOBUF => {
                crate::proto::decode_object(&req.body).map_err(Status::bad_request)?
            }
            "PUT" => serde_json::from_slice::<Value>(&req.body)
                .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))?,
            "PATCH" => {
                let ct = super::media_type(req);
                let mut doc = scale.clone();
                match ct.as_str() {
                    "application/merge-patch+json" | "application/strategic-merge-patch+json" => {
                        let patch = decode_patch(req, rt, opts.field_validation, warnings)?;
                        json_patch::merge(&mut doc, &patch);
                    }
                    "application/json-patch+json" => {
                        let patch: json_patch::Patch = serde_json::from_slice(&req.body)
                            .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
                        json_patch::patch(&mut doc, &patch).map_err(|_| super::json_patch_failed())?;
                    }
                    _ => {
                        return Err(Status::unsupported_media_type(format!(
                            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (content type {ct:?})"
                        )))
                    }
                }
                doc
            }
            _ => return Err(Status::method_not_supported("autoscaling", &format!("{}/scale", rt.resource), "delete")),
        };
        let replicas = wanted.pointer("/spec/replicas");
        let n = match replicas {
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
        if let Some(Value::Object(spec)) = parent.get_mut("spec") {
            spec.insert("replicas".into(), json!(n));
        }
        // The Scale's resourceVersion is a precondition on the parent.
        match meta::meta_str(&wanted, "resourceVersion").filter(|s| !s.is_empty()) {
            Some(rv) => meta::metadata_mut(&mut parent).insert("resourceVersion".into(), json!(rv)),
            None => meta::metadata_mut(&mut parent).shift_remove("resourceVersion"),
        };
        let body = serde_json::to_vec(&parent).map_err(Status::internal_error)?;
        let opts = WriteOptions { status: false, ..opts };
        let (b, _) = self.registry.update(rt, ns, name, &body, opts, warnings)?;
        Ok(body_response(200, Body::Value(to_scale(&body_value(b)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_print_sorted_as_upstream_does() {
        let sel = json!({"matchLabels": {"b": "2", "a": "1"},
                         "matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]},
                                              {"key": "d", "operator": "DoesNotExist"}]});
        assert_eq!(crate::selector::label_selector_string(Some(&sel)), "a=1,b=2,c in (x,y),!d");
    }
}
