//! ReplicaSets: defaults, validation as every workload, `status.replicas` as
//! a selectable field, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct ReplicaSet;

static FIELDS: &[SelectableField] = &[SelectableField::new("status.replicas", "0")];

static COLUMNS: &[Column] = &[
    NAME,
    col("Desired", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetSpec", "replicas")),
    col("Current", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "replicas")),
    col("Ready", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "readyReplicas")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.ReplicaSetSpec", "selector")),
];

impl Strategy for ReplicaSet {
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels"]
    }

    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "replicas", json!(1));
            super::workload::template_defaults(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            super::workload::validate_spec("ReplicaSet", spec, &mut errs);
        }
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::workload::validate_selector_update(new, old)
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
        c.extend(template(o, "/spec/template/spec", "/spec/selector"));
        c
    }
}
