//! PersistentVolumes: Pending on create, kubectl's columns (whose access
//! mode, storage class and unset helpers claims share).

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
pub(super) use crate::api::storage::storage_class;
use crate::clock::SimTime;

pub struct PersistentVolume;

static COLUMNS: &[Column] = &[
    NAME,
    col("Capacity", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "capacity")),
    col("Access Modes", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "accessModes")),
    col(
        "Reclaim Policy",
        "string",
        Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "persistentVolumeReclaimPolicy"),
    ),
    col("Status", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeStatus", "phase")),
    col("Claim", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "claimRef")),
    col("StorageClass", "string", text("StorageClass of the pv")),
    col("VolumeAttributesClass", "string", text("VolumeAttributesClass of the pv")),
    col("Reason", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeStatus", "reason")),
    AGE,
    wide("VolumeMode", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "volumeMode")),
];

impl Strategy for PersistentVolume {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
            default(spec, "volumeMode", json!("Filesystem"));
        }
    }

    fn admit_create(&self, o: &mut Map<String, Value>) {
        protect(o, "kubernetes.io/pv-protection");
    }

    fn initial_status(&self, _obj: &Map<String, Value>) -> Value {
        json!({"phase": "Pending"})
    }

    /// The phase's transition time is the creation's.
    fn prepare_for_create(&self, o: &mut Map<String, Value>) {
        let created = o.get("metadata").and_then(|m| m.get("creationTimestamp")).cloned();
        if let (Some(t), Some(Value::Object(status))) = (created, o.get_mut("status")) {
            status.insert("lastPhaseTransitionTime".into(), t);
        }
    }

    /// A new phase gets a new transition time unless the writer set one;
    /// the same phase keeps the stored one unless the writer set one.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value, now: SimTime) {
        const T: &str = "lastPhaseTransitionTime";
        let old_status = &old["status"];
        let Some(status) = new.get_mut("status").and_then(Value::as_object_mut) else { return };
        let sent = status.get(T).filter(|t| !t.is_null()).cloned();
        let same_phase = status.get("phase") == old_status.get("phase");
        match (same_phase, sent) {
            (true, None) => match old_status.get(T) {
                Some(t) => status.insert(T.into(), t.clone()),
                None => status.shift_remove(T),
            },
            (false, sent) if sent.is_none() || sent.as_ref() == old_status.get(T) => {
                status.insert(T.into(), json!(now.rfc3339()))
            }
            _ => None,
        };
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        pv_cells(o, now)
    }
}

pub(super) fn access_modes(modes: &[Value]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (full, short) in
        [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")]
    {
        if modes.iter().any(|m| m.as_str() == Some(full)) {
            out.push(short);
        }
    }
    out.join(",")
}

fn pv_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let claim = match o.pointer("/spec/claimRef") {
        Some(c) if c.is_object() => format!("{}/{}", s(c, "/namespace"), s(c, "/name")),
        _ => String::new(),
    };
    let phase = if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else {
        s(o, "/status/phase")
    };
    vec![
        name(o),
        s(o, "/spec/capacity/storage").into(),
        access_modes(arr(o, "/spec/accessModes")).into(),
        s(o, "/spec/persistentVolumeReclaimPolicy").into(),
        phase.into(),
        claim.into(),
        storage_class(o).into(),
        unset(s(o, "/spec/volumeAttributesClassName")).into(),
        s(o, "/status/reason").into(),
        age(o, now),
        unset(s(o, "/spec/volumeMode")).into(),
    ]
}

pub(super) fn unset(v: &str) -> &str {
    if v.is_empty() {
        "<unset>"
    } else {
        v
    }
}

/// StorageObjectInUseProtection's admission: a new claim or volume gets
/// its protection finalizer.
pub(super) fn protect(o: &mut Map<String, Value>, finalizer: &str) {
    let Some(Value::Object(meta)) = o.get_mut("metadata") else { return };
    let list = meta.entry("finalizers").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    if let Value::Array(list) = list {
        if !list.iter().any(|f| f.as_str() == Some(finalizer)) {
            list.push(json!(finalizer));
        }
    }
}
