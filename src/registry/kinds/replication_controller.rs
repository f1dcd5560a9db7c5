//! core/v1 ReplicationControllers: a ReplicaSet's elder, whose selector is
//! a plain map of labels. Defaults (the selector and the object's labels
//! taken from the template's labels), validation and status validation in
//! upstream's order and words, `status.replicas` as a selectable field,
//! kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use super::super::validation::{go_string_map, str_at, validate_labels};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct ReplicationController;

static FIELDS: &[SelectableField] = &[SelectableField::new("status.replicas", "0")];

const SPEC: &str = "io.k8s.api.core.v1.ReplicationControllerSpec";
const STATUS: &str = "io.k8s.api.core.v1.ReplicationControllerStatus";

static COLUMNS: &[Column] = &[
    NAME,
    col("Desired", "integer", Desc::Field(SPEC, "replicas")),
    col("Current", "integer", Desc::Field(STATUS, "replicas")),
    col("Ready", "integer", Desc::Field(STATUS, "readyReplicas")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field(SPEC, "selector")),
];

/// `must be greater than or equal to 0` for a negative integer at `field`
/// of `obj` (upstream's `ValidateNonnegativeField`).
fn non_negative(obj: &Value, pointer: &str, field: &str, errs: &mut Vec<FieldError>) {
    if let Some(v) = obj.pointer(pointer).filter(|v| v.as_i64().is_some_and(|n| n < 0)) {
        errs.push(FieldError::invalid_value(field, v, "must be greater than or equal to 0"));
    }
}

/// The spec's checks (`ValidateReplicationControllerSpec`), in upstream's
/// order: minReadySeconds, a selector, replicas, then the template: there,
/// matching the selector, valid as a pod template, restarting Always,
/// without a deadline.
fn validate_spec(obj: &Value, errs: &mut Vec<FieldError>) {
    let Some(spec) = obj.get("spec") else { return };
    non_negative(spec, "/minReadySeconds", "spec.minReadySeconds", errs);
    let selector = spec.get("selector").and_then(Value::as_object).filter(|s| !s.is_empty());
    if selector.is_none() {
        errs.push(FieldError::required("spec.selector", ""));
    }
    non_negative(spec, "/replicas", "spec.replicas", errs);
    let Some(template) = spec.get("template").filter(|t| t.is_object()) else {
        errs.push(FieldError::required("spec.template", ""));
        return;
    };
    let labels = template.pointer("/metadata/labels").and_then(Value::as_object);
    if let Some(selector) = selector {
        let selects = selector.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
        if !selects {
            errs.push(FieldError::invalid_raw(
                "spec.template.metadata.labels",
                &go_string_map(labels),
                "`selector` does not match template `labels`",
            ));
        }
    }
    if let Some(labels) = labels {
        validate_labels(labels, "spec.template.metadata.labels", errs);
    }
    let pod_spec = template.get("spec").unwrap_or(&Value::Null);
    super::pod::validate_spec(pod_spec, "spec.template.spec", errs);
    // (The pod-spec check above refused values that are no policy.)
    if let Some(r @ ("OnFailure" | "Never")) = str_at(pod_spec, "restartPolicy") {
        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", r, &["Always"]));
    }
    if pod_spec.get("activeDeadlineSeconds").is_some_and(|v| !v.is_null()) {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in ReplicationController is not Supported",
        ));
    }
}

impl Strategy for ReplicationController {
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels"]
    }

    /// `SetDefaults_ReplicationController`: a template with labels (even
    /// none, `{}`) lends them to an empty selector and to an object
    /// without labels; one replica; then the template's pod defaults.
    fn defaults(&self, o: &mut Map<String, Value>) {
        let template_labels = o.get("spec").and_then(|s| s.pointer("/template/metadata/labels")).cloned();
        if let Some(labels @ Value::Object(_)) = template_labels {
            let empty = |v: Option<&Value>| v.and_then(Value::as_object).is_none_or(Map::is_empty);
            if let Some(spec) = object(o, "spec") {
                if empty(spec.get("selector")) {
                    spec.insert("selector".into(), labels.clone());
                }
            }
            if let Some(metadata) = object(o, "metadata") {
                if empty(metadata.get("labels")) {
                    metadata.insert("labels".into(), labels);
                }
            }
        }
        if let Some(spec) = object(o, "spec") {
            default(spec, "replicas", json!(1));
            super::workload::template_defaults(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        validate_spec(obj, &mut errs);
        errs
    }

    /// Nothing in the spec is fixed; upstream's update validation checks
    /// the spec a second time (each error is a second cause, the message
    /// names it once).
    fn validate_update(&self, new: &Value, _old: &Value) -> Vec<FieldError> {
        self.validate(new)
    }

    /// `ValidateReplicationControllerStatus`: counts not negative, none
    /// above the replicas, the available ones not above the ready ones.
    fn validate_status_update(&self, new: &Value, _old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        const COUNTS: [&str; 5] =
            ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"];
        for f in COUNTS {
            non_negative(new, &format!("/status/{f}"), &format!("status.{f}"), &mut errs);
        }
        let n = |f: &str| new.pointer(&format!("/status/{f}")).and_then(Value::as_i64).unwrap_or(0);
        for f in ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"] {
            if n(f) > n("replicas") {
                errs.push(FieldError::invalid_value(
                    &format!("status.{f}"),
                    &json!(n(f)),
                    "cannot be greater than status.replicas",
                ));
            }
        }
        if n("availableReplicas") > n("readyReplicas") {
            errs.push(FieldError::invalid_value(
                "status.availableReplicas",
                &json!(n("availableReplicas")),
                "cannot be greater than readyReplicas",
            ));
        }
        errs
    }

    fn scale_selector(&self, obj: &Value) -> String {
        crate::selector::set_selector_string(obj.pointer("/spec/selector"))
    }

    fn gc_policy(&self) -> super::super::options::GcPolicy {
        // Through /api/v1, "for back compatibility", as upstream's strategy.
        super::super::options::GcPolicy::Orphan
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let mut c = vec![
            name(o),
            json!(i(o, "/spec/replicas")),
            json!(i(o, "/status/replicas")),
            json!(i(o, "/status/readyReplicas")),
            age(o, now),
        ];
        c.extend(template(o, "/spec/template/spec", ""));
        c.push(labels(o.pointer("/spec/selector")).into());
        c
    }
}
