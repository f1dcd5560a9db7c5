//! What volumes and claims share, read as upstream's storage helpers read
//! it (the registry's columns and the storage controllers both use it).

use serde_json::Value;

/// The beta storage-class annotation, else `spec.storageClassName` (as
/// upstream's `GetPersistentVolume(Claim)Class` read them).
pub fn storage_class(o: &Value) -> &str {
    match o.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class").and_then(Value::as_str) {
        Some(c) => c,
        None => o.pointer("/spec/storageClassName").and_then(Value::as_str).unwrap_or(""),
    }
}
