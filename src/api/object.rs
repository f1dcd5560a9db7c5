//! An object as it is kept: its JSON bytes (resourceVersion included) and
//! the attributes selectors look at. Plain data, shared by `Arc` between
//! storage, lists and every watcher (fan-out never copies an object).

use std::sync::Arc;

use serde_json::Value;

use super::Revision;

/// What selectors can see of an object, computed once per write and kept
/// compact (boxed slices); versions whose attributes did not change share
/// one copy. Field names are shared with the kind that declares them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectAttrs {
    pub labels: Box<[(Box<str>, Box<str>)]>,
    pub fields: Box<[(Arc<str>, Box<str>)]>,
}

impl ObjectAttrs {
    pub fn new(labels: Vec<(String, String)>, fields: Vec<(Arc<str>, String)>) -> ObjectAttrs {
        ObjectAttrs {
            labels: labels.into_iter().map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str())).collect(),
            fields: fields.into_iter().map(|(k, v)| (k, v.into_boxed_str())).collect(),
        }
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| &**k == name).map(|(_, v)| &**v)
    }
}

/// One stored version of an object: its JSON (resourceVersion included)
/// and its selector attributes.
#[derive(Debug, PartialEq)]
pub struct StoredObject {
    pub json: Box<[u8]>,
    pub attrs: Arc<ObjectAttrs>,
}

impl StoredObject {
    /// Whether the object passes label and field selectors.
    pub fn selected_by(&self, label: &crate::selector::LabelSelector, field: &crate::selector::FieldSelector) -> bool {
        label.matches_fn(|k| self.attrs.label(k)) && field.matches(|f| self.attrs.field(f))
    }

    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.json).unwrap_or(Value::Null)
    }

    /// Serializes `obj` with `metadata.resourceVersion` set to `rev`.
    pub fn encode(obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>) -> StoredObject {
        Self::encode_with(obj, rev, attrs, &mut Vec::new())
    }

    /// As `encode`, serializing through a reusable scratch buffer so the
    /// stored bytes take exactly one allocation of exactly their size.
    pub fn encode_with(mut obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>, scratch: &mut Vec<u8>) -> StoredObject {
        super::meta::metadata_mut(&mut obj).insert("resourceVersion".into(), Value::String(rev.to_string()));
        scratch.clear();
        super::meta::write_canonical_json(&obj, scratch);
        StoredObject { json: Box::from(scratch.as_slice()), attrs }
    }

    /// The same object stamped with another resourceVersion.
    pub fn restamped(&self, rev: Revision) -> StoredObject {
        StoredObject::encode(self.value(), rev, self.attrs.clone())
    }
}
