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
    /// `stringData` is write-only: each of its values is stored in `data`
    /// (base64 in JSON), over a `data` value of the same key, and
    /// `stringData` itself is never stored (upstream folds it in while
    /// converting to its internal form, before anything else looks).
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(Value::Object(values)) = o.shift_remove("stringData") {
            use base64::Engine;
            if !o.get("data").is_some_and(Value::is_object) {
                o.insert("data".into(), json!({}));
            }
            if let Some(Value::Object(data)) = o.get_mut("data") {
                for (k, v) in values {
                    let text = v.as_str().unwrap_or("");
                    data.insert(k, json!(base64::engine::general_purpose::STANDARD.encode(text)));
                }
            }
        }
        default(o, "type", json!("Opaque"));
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        super::config_map::data_keys(obj, &mut errs);
        super::config_map::data_size(obj, &[], &["data"], "data", &mut errs);
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
