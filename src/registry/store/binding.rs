//! The `/binding` subresource of pods: a `Binding` assigns a pending pod
//! to a node, as the scheduler does it. Like upstream's `BindingREST` it
//! writes the pod in storage directly (no field manager is recorded):
//! `spec.nodeName`, the Binding's annotations merged into the pod's, and
//! a `PodScheduled` condition; the answer is a `Success` Status (201).

use serde_json::{json, Value};

use super::super::decode;
use super::super::keys;
use super::super::options::WriteOptions;
use super::super::resource::ResourceType;
use super::RequestBody;
use super::{attrs, storage_status, Body, Registry};
use crate::api::{meta, FieldError, Status};
use crate::storage::Storage;

impl<S: Storage> Registry<S> {
    /// POST of a Binding to `pods/NAME/binding`.
    pub fn bind(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        body: RequestBody<'_>,
        opts: &WriteOptions,
    ) -> Result<Body, Status> {
        let binding = decode::sub_object(body)?;
        if meta::meta_str(&binding, "name").unwrap_or("") != name {
            return Err(Status::bad_request("name in URL does not match name in Binding object"));
        }
        let target = &binding["target"];
        let mut errs = Vec::new();
        let kind = target["kind"].as_str().unwrap_or("");
        if !kind.is_empty() && kind != "Node" {
            errs.push(FieldError::not_supported("target.kind", kind, &["Node", "<empty>"]));
        }
        let node = target["name"].as_str().unwrap_or("");
        if node.is_empty() {
            errs.push(FieldError::required("target.name", ""));
        }
        if !errs.is_empty() {
            return Err(Status::invalid("", "Binding", name, &errs));
        }
        let k = keys::key(rt, namespace, name);
        let (rev, current) = match self.storage.get(&k, self.storage.revision()) {
            Ok(Some(found)) => found,
            Ok(None) => return Err(Status::not_found(rt.group(), rt.resource(), name)),
            Err(e) => return Err(storage_status(rt, name, e)),
        };
        let mut pod = current.value();
        let refuse = |why: String| Status::conflict("", "pods/binding", name, &why);
        if !pod["metadata"]["deletionTimestamp"].is_null() {
            return Err(refuse(format!("pod {name} is being deleted, cannot be assigned to a host")));
        }
        if let Some(assigned) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
            return Err(refuse(format!("pod {name} is already assigned to node {assigned:?}")));
        }
        pod["spec"]["nodeName"] = json!(node);
        if let Some(extra) = binding["metadata"]["annotations"].as_object().filter(|a| !a.is_empty()) {
            let m = meta::metadata_mut(&mut pod);
            let annotations = m.entry("annotations").or_insert_with(|| json!({}));
            for (k, v) in extra {
                annotations[k] = v.clone();
            }
        }
        let now = self.now.rfc3339();
        let scheduled =
            json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now});
        let status = pod.as_object_mut().map(|o| o.entry("status").or_insert_with(|| json!({})));
        if let Some(status) = status.and_then(Value::as_object_mut) {
            let conditions = status.entry("conditions").or_insert_with(|| json!([]));
            if let Value::Array(cs) = conditions {
                match cs.iter_mut().find(|c| c["type"] == "PodScheduled") {
                    Some(c) if c["status"] == "True" => {}
                    Some(c) => *c = scheduled,
                    None => cs.push(scheduled),
                }
            }
        }
        if !opts.dry_run {
            let attrs = attrs(rt, &pod);
            self.storage.update(&k, Some(rev), pod, attrs, self.now).map_err(|e| storage_status(rt, name, e))?;
        }
        let mut s = Status::success(Default::default());
        s.details = None;
        s.code = 201;
        Ok(Body::Status(Box::new(s)))
    }
}
