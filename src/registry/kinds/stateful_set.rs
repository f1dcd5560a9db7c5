//! StatefulSets: defaults (OrderedReady, a RollingUpdate with partition 0,
//! claims retained), validation as every workload, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, object_or_empty, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, Column, AGE, CONTAINERS, IMAGES, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct StatefulSet;

static COLUMNS: &[Column] =
    &[NAME, col("Ready", "string", text("Number of the pod with ready state")), AGE, CONTAINERS, IMAGES];

impl Strategy for StatefulSet {
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels"]
    }

    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "replicas", json!(1));
            default(spec, "podManagementPolicy", json!("OrderedReady"));
            if let Some(us) = object_or_empty(spec, "updateStrategy") {
                default(us, "type", json!("RollingUpdate"));
                if us.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                    if let Some(ru) = object_or_empty(us, "rollingUpdate") {
                        default(ru, "partition", json!(0));
                    }
                }
            }
            default(spec, "revisionHistoryLimit", json!(10));
            if let Some(p) = object_or_empty(spec, "persistentVolumeClaimRetentionPolicy") {
                default(p, "whenDeleted", json!("Retain"));
                default(p, "whenScaled", json!("Retain"));
            }
            super::workload::template_defaults(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            super::workload::validate_spec("StatefulSet", spec, &mut errs);
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
        let mut c =
            vec![name(o), format!("{}/{}", i(o, "/status/readyReplicas"), i(o, "/spec/replicas")).into(), age(o, now)];
        c.extend(template(o, "/spec/template/spec", "").into_iter().take(2));
        c
    }
}
