//! DaemonSets: defaults (a RollingUpdate of one unavailable), validation as
//! every workload, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, object_or_empty, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct DaemonSet;

static COLUMNS: &[Column] = &[
    NAME,
    col("Desired", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "desiredNumberScheduled")),
    col("Current", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "currentNumberScheduled")),
    col("Ready", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "numberReady")),
    col("Up-to-date", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "updatedNumberScheduled")),
    col("Available", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "numberAvailable")),
    col("Node Selector", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "nodeSelector")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.DaemonSetSpec", "selector")),
];

impl Strategy for DaemonSet {
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels"]
    }

    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            if let Some(us) = object_or_empty(spec, "updateStrategy") {
                default(us, "type", json!("RollingUpdate"));
                if us.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                    if let Some(ru) = object_or_empty(us, "rollingUpdate") {
                        default(ru, "maxUnavailable", json!(1));
                        default(ru, "maxSurge", json!(0));
                    }
                }
            }
            default(spec, "revisionHistoryLimit", json!(10));
            super::workload::template_defaults(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            super::workload::validate_spec("DaemonSet", spec, &mut errs);
        }
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::workload::validate_selector_update(new, old)
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let mut c = vec![
            name(o),
            json!(i(o, "/status/desiredNumberScheduled")),
            json!(i(o, "/status/currentNumberScheduled")),
            json!(i(o, "/status/numberReady")),
            json!(i(o, "/status/updatedNumberScheduled")),
            json!(i(o, "/status/numberAvailable")),
            labels(o.pointer("/spec/template/spec/nodeSelector")).into(),
            age(o, now),
        ];
        c.extend(template(o, "/spec/template/spec", "/spec/selector"));
        c
    }
}
