//! Secrets: `type` defaults to Opaque and is a selectable field; data keys
//! are checked as a ConfigMap's; kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct Secret;

static FIELDS: &[SelectableField] = &[SelectableField::new("type", "")];

static COLUMNS: &[Column] = &[
    NAME,
    col("Type", "string", Desc::Field("io.k8s.api.core.v1.Secret", "type")),
    col("Data", "string", Desc::Field("io.k8s.api.core.v1.Secret", "data")),
    AGE,
];

impl Strategy for Secret {
    fn defaults(&self, o: &mut Map<String, Value>) {
        default(o, "type", json!("Opaque"));
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        super::config_map::data_keys(obj, &mut errs);
        errs
    }

    /// A Secret's type never changes; an immutable one keeps its data.
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let kind = |v: &Value| v.get("type").and_then(Value::as_str).unwrap_or("").to_string();
        if kind(new) != kind(old) {
            errs.push(FieldError::invalid("type", &kind(new), "field is immutable"));
        }
        errs.extend(super::config_map::immutable_data(new, old, &["data"]));
        errs
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), s(o, "/type").into(), json!(len(o, "/data")), age(o, now)]
    }
}
