//! StorageClasses (storage.k8s.io/v1): upstream's defaults (reclaim
//! policy Delete, binding mode Immediate), its validation (a provisioner
//! that is a qualified name, the supported policies and modes; the
//! provisioner, parameters, reclaim policy and binding mode fixed once
//! created) and kubectl's columns, the default class marked `(default)`.
//! Which class a claim gets is the DefaultStorageClass admission
//! (`registry/storage_class.rs`).

use serde_json::{json, Map, Value};

use super::super::strategy::{default, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct StorageClass;

const DEF: &str = "io.k8s.api.storage.v1.StorageClass";

/// The annotation that makes a class the default (and its beta
/// spelling, still read).
pub const IS_DEFAULT: [&str; 2] =
    ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"];

const RECLAIM_POLICIES: &[&str] = &["Delete", "Retain"];
const BINDING_MODES: &[&str] = &["Immediate", "WaitForFirstConsumer"];

static COLUMNS: &[Column] = &[
    NAME,
    col("Provisioner", "string", Desc::Field(DEF, "provisioner")),
    col("ReclaimPolicy", "string", Desc::Field(DEF, "reclaimPolicy")),
    col("VolumeBindingMode", "string", Desc::Field(DEF, "volumeBindingMode")),
    col("AllowVolumeExpansion", "string", Desc::Field(DEF, "allowVolumeExpansion")),
    AGE,
];

/// Whether the class is marked the default (upstream's
/// `IsDefaultAnnotation`: either annotation, exactly "true").
pub fn is_default(class: &Value) -> bool {
    let annotations = &class["metadata"]["annotations"];
    IS_DEFAULT.iter().any(|k| annotations[*k].as_str() == Some("true"))
}

/// A field that must be one of `supported` when set.
fn one_of(obj: &Value, field: &str, supported: &[&str], errs: &mut Vec<FieldError>) {
    match obj.get(field) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if supported.contains(&s.as_str()) => {}
        Some(Value::String(s)) => errs.push(FieldError::not_supported(field, s, supported)),
        Some(other) => errs.push(FieldError::not_supported_value(field, &crate::api::to_json_string(other), supported)),
    }
}

impl Strategy for StorageClass {
    fn defaults(&self, o: &mut Map<String, Value>) {
        default(o, "reclaimPolicy", json!("Delete"));
        default(o, "volumeBindingMode", json!("Immediate"));
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        match obj["provisioner"].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required("provisioner", "")),
            p => {
                if let Some(why) = crate::selector::label_key_problem(&p.to_ascii_lowercase()) {
                    errs.push(FieldError::invalid("provisioner", p, &why));
                }
            }
        }
        if let Some(params) = obj["parameters"].as_object() {
            if params.keys().any(String::is_empty) {
                errs.push(FieldError::invalid("parameters", "", "field can not be empty."));
            }
        }
        if obj["reclaimPolicy"].as_str() != Some("") {
            one_of(obj, "reclaimPolicy", RECLAIM_POLICIES, &mut errs);
        }
        one_of(obj, "volumeBindingMode", BINDING_MODES, &mut errs);
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let params = |o: &Value| o.get("parameters").filter(|p| p.as_object().is_some_and(|m| !m.is_empty())).cloned();
        if params(new) != params(old) {
            errs.push(FieldError::forbidden("parameters", "updates to parameters are forbidden."));
        }
        for field in ["provisioner", "reclaimPolicy"] {
            if new[field] != old[field] {
                errs.push(FieldError::forbidden(field, &format!("updates to {field} are forbidden.")));
            }
        }
        if new["volumeBindingMode"] != old["volumeBindingMode"] {
            errs.push(FieldError::invalid_value("volumeBindingMode", &new["volumeBindingMode"], "field is immutable"));
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let mut shown = name(o);
        if is_default(o) {
            shown = json!(format!("{} (default)", shown.as_str().unwrap_or("")));
        }
        let or = |field: &str, zero: &str| o[field].as_str().unwrap_or(zero).to_string();
        vec![
            shown,
            s(o, "/provisioner").into(),
            or("reclaimPolicy", "Delete").into(),
            or("volumeBindingMode", "Immediate").into(),
            json!(o["allowVolumeExpansion"].as_bool().unwrap_or(false)),
            age(o, now),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_annotation_makes_a_class_the_default() {
        let class = |k: &str, v: &str| json!({"metadata": {"annotations": {k: v}}});
        assert!(is_default(&class(IS_DEFAULT[0], "true")));
        assert!(is_default(&class(IS_DEFAULT[1], "true")));
        assert!(!is_default(&class(IS_DEFAULT[0], "True")));
        assert!(!is_default(&json!({"metadata": {}})));
    }
}
