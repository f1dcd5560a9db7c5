//! The DefaultStorageClass admission (on in every cluster): a new claim
//! that names no class, neither by `spec.storageClassName` nor by the beta
//! annotation, gets the default StorageClass, the newest when more than
//! one is marked default; with none marked, it stays without a class.
//! A claim that says `storageClassName: ""` asks for no class and keeps
//! it. The classes themselves are `kinds/storage_class.rs`.

use serde_json::{json, Value};

use super::kinds::storage_class::is_default;
use super::resource::ResourceType;
use super::Registry;
use crate::storage::Storage;

impl<S: Storage> Registry<S> {
    /// The default class's name (upstream's `GetDefaultClass`).
    pub(crate) fn default_storage_class(&self) -> Option<String> {
        self.newest_default(("storage.k8s.io", "v1", "storageclasses"), is_default)
    }

    /// A new claim's class (mutating admission, after the writer's managed
    /// fields are recorded: no one owns it).
    #[inline(never)]
    pub(super) fn admit_claim_class(&self, rt: &ResourceType, value: &mut Value) {
        if !(rt.gvr.group.is_empty() && rt.gvr.resource == "persistentvolumeclaims") {
            return;
        }
        let annotated = value.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class").is_some();
        let spec = &mut value["spec"];
        if annotated || !spec.get("storageClassName").is_none_or(Value::is_null) || !spec.is_object() {
            return;
        }
        if let Some(class) = self.default_storage_class() {
            spec["storageClassName"] = json!(class);
        }
    }
}
