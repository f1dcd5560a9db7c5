//! PersistentVolumeClaims: `volumeMode` defaults to Filesystem, Pending on
//! create, access modes and a storage request required, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
use super::persistent_volume::{access_modes, protect, storage_class, unset};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct PersistentVolumeClaim;

static COLUMNS: &[Column] = &[
    NAME,
    col("Status", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "phase")),
    col("Volume", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeName")),
    col("Capacity", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "capacity")),
    col("Access Modes", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "accessModes")),
    col("StorageClass", "string", text("StorageClass of the pvc")),
    col("VolumeAttributesClass", "string", text("VolumeAttributesClass of the pvc")),
    AGE,
    wide("VolumeMode", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeMode")),
];

impl Strategy for PersistentVolumeClaim {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "volumeMode", json!("Filesystem"));
        }
    }

    fn admit_create(&self, o: &mut Map<String, Value>) {
        protect(o, "kubernetes.io/pvc-protection");
    }

    fn initial_status(&self, _obj: &Map<String, Value>) -> Value {
        json!({"phase": "Pending"})
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        if spec.get("accessModes").and_then(Value::as_array).is_none_or(Vec::is_empty) {
            errs.push(FieldError::required("spec.accessModes", "at least 1 access mode is required"));
        }
        if spec.pointer("/resources/requests/storage").is_none() {
            errs.push(FieldError::required("spec.resources[storage]", ""));
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        pvc_cells(o, now)
    }
}

fn pvc_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let phase = if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else {
        s(o, "/status/phase")
    };
    let bound = !s(o, "/spec/volumeName").is_empty();
    let (capacity, modes) = if bound {
        (s(o, "/status/capacity/storage").to_string(), access_modes(arr(o, "/status/accessModes")))
    } else {
        (String::new(), String::new())
    };
    let class = storage_class(o);
    vec![
        name(o),
        phase.into(),
        s(o, "/spec/volumeName").into(),
        capacity.into(),
        modes.into(),
        class.into(),
        unset(s(o, "/spec/volumeAttributesClassName")).into(),
        age(o, now),
        unset(s(o, "/spec/volumeMode")).into(),
    ]
}
