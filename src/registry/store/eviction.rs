//! The `/eviction` subresource of pods: a policy/v1 `Eviction` deletes
//! the pod if its PodDisruptionBudget allows, as upstream's `EvictionREST`
//! does (and as `kubectl drain` uses it):
//!
//! - a pod being deleted, finished or still Pending is deleted without
//!   asking any budget;
//! - with no budget selecting it, it is deleted;
//! - with one, the budget must have observed its own generation and allow
//!   a disruption: its `disruptionsAllowed` goes down by one and the pod
//!   is recorded in `disruptedPods` (through the budget's status), then the
//!   pod is deleted; otherwise 429 TooManyRequests "Cannot evict pod as it
//!   would violate the pod's disruption budget." with a `DisruptionBudget`
//!   cause saying why;
//! - more than one budget is a 500, as upstream refuses to choose.
//!
//! Before the deletion the pod gets the `DisruptionTarget` condition
//! (`EvictionByEvictionAPI`, "Eviction API: evicting") through its status,
//! as upstream's `addConditionAndDeletePod` writes it: the deletion's
//! preconditions are checked first, and a resourceVersion precondition
//! then names the marked pod.
//!
//! The answer is a `Success` Status (201); the Eviction's `deleteOptions`
//! apply to the pod's deletion.

use serde_json::{json, Value};

use super::super::keys;
use super::super::options::{DeleteOptions, Subresource, WriteOptions};
use super::super::resource::ResourceType;
use super::{Body, Recorded, Registry};
use crate::api::status::{StatusCause, StatusDetails};
use crate::api::{meta, Status};
use crate::selector::LabelSelector;
use crate::storage::{ListStart, Storage};

fn too_many_requests(cause: String) -> Status {
    let mut s = Status::failure(
        429,
        "TooManyRequests",
        "Cannot evict pod as it would violate the pod's disruption budget.".into(),
    );
    s.details = Some(StatusDetails {
        causes: vec![StatusCause { reason: "DisruptionBudget".into(), message: cause, field: String::new() }],
        ..Default::default()
    });
    s
}

fn success() -> Body {
    let mut s = Status::success(Default::default());
    s.details = None;
    s.code = 201;
    Body::Status(Box::new(s))
}

/// Whether a PodDisruptionBudget selects the pod (policy/v1: an empty
/// selector selects every pod of the namespace, none selects no pod).
fn selects(pdb: &Value, pod: &Value) -> bool {
    let Some(given) = pdb.pointer("/spec/selector").filter(|s| s.is_object()) else { return false };
    let text = crate::selector::label_selector_string(Some(given));
    let Ok(selector) = LabelSelector::parse(&text) else { return false };
    let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
    selector.matches_fn(|k| labels.and_then(|l| l.get(k)).and_then(Value::as_str))
}

impl<S: Storage> Registry<S> {
    /// POST of an Eviction to `pods/NAME/eviction`.
    pub fn evict(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        eviction: &Value,
        opts: &DeleteOptions,
        _warnings: &mut Vec<String>,
    ) -> Result<Body, Status> {
        if meta::meta_str(eviction, "name").unwrap_or("") != name {
            return Err(Status::bad_request("name in URL does not match name in Eviction object"));
        }
        opts.validate()?;
        let mut opts = opts.clone();
        let opts = &mut opts;
        let (_, current) = self.current(rt, namespace, name)?;
        let pod = current.value();
        let phase = pod.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
        let deleting = pod.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null());
        if deleting || matches!(phase, "Succeeded" | "Failed" | "Pending" | "") {
            self.mark_and_delete(rt, namespace, name, opts)?;
            return Ok(success());
        }
        let Some(pdb_rt) = self.resources().lookup("policy", "v1", "poddisruptionbudgets").cloned() else {
            self.mark_and_delete(rt, namespace, name, opts)?;
            return Ok(success());
        };
        let prefix = keys::prefix(&pdb_rt, Some(namespace));
        let budgets: Vec<Value> = self
            .storage
            .list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None)
            .map(|page| page.items.iter().map(|o| o.value()).collect::<Vec<Value>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|pdb| selects(pdb, &pod))
            .collect();
        match budgets.as_slice() {
            [] => {}
            [pdb] => {
                let pdb_name = meta::meta_str(pdb, "name").unwrap_or("").to_string();
                let int = |p: &str| pdb.pointer(p).and_then(Value::as_i64).unwrap_or(0);
                if int("/status/observedGeneration") < int("/metadata/generation") {
                    return Err(too_many_requests(format!(
                        "The disruption budget {pdb_name} is still being processed by the server."
                    )));
                }
                let allowed = int("/status/disruptionsAllowed");
                if allowed <= 0 {
                    return Err(too_many_requests(format!(
                        "The disruption budget {pdb_name} needs {} healthy pods and has {} currently",
                        int("/status/desiredHealthy"),
                        int("/status/currentHealthy")
                    )));
                }
                if !opts.dry_run {
                    let mut updated = pdb.clone();
                    updated["status"]["disruptionsAllowed"] = json!(allowed - 1);
                    updated["status"]["disruptedPods"][name] = json!(self.now.rfc3339());
                    let write = WriteOptions { subresource: Subresource::Status, ..Default::default() };
                    self.update_value(&pdb_rt, namespace, &pdb_name, updated, &write, Recorded::Update, None)?;
                }
            }
            _ => {
                return Err(Status::internal_error(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                ))
            }
        }
        self.mark_and_delete(rt, namespace, name, opts)?;
        Ok(success())
    }

    /// Gives the pod the `DisruptionTarget` condition, then deletes it.
    fn mark_and_delete(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        opts: &mut DeleteOptions,
    ) -> Result<(), Status> {
        if !opts.dry_run {
            let (_, current) = self.current(rt, namespace, name)?;
            let mut pod = current.value();
            super::delete::preconditions(rt, name, opts, &pod)?;
            let condition = json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null,
                "lastTransitionTime": self.now.rfc3339(), "reason": "EvictionByEvictionAPI",
                "message": "Eviction API: evicting"});
            if !pod["status"].is_object() {
                pod["status"] = json!({});
            }
            if let Some(status) = pod["status"].as_object_mut() {
                meta::set_condition(status, condition, &self.now.rfc3339());
            }
            let write = WriteOptions { subresource: Subresource::Status, ..Default::default() };
            let written = self.update_value(rt, namespace, name, pod, &write, Recorded::Applied, None)?;
            if opts.preconditions.resource_version.is_some() {
                let marked = written.body.into_value();
                opts.preconditions.resource_version = meta::meta_str(&marked, "resourceVersion").map(str::to_string);
            }
        }
        self.delete_one(rt, namespace, name, opts)?;
        Ok(())
    }
}
