//! An object as it is kept: its JSON bytes (resourceVersion included) and
//! the attributes selectors look at. Plain data, shared by `Arc` between
//! storage, lists and every watcher (fan-out never copies an object).

use std::sync::{Arc, Mutex};

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
/// and its selector attributes; for a while after it is written, also the
/// object it was serialized from (see `decoded`).
#[derive(Debug)]
pub struct StoredObject {
    pub json: Box<[u8]>,
    pub attrs: Arc<ObjectAttrs>,
    /// The parsed object, equal to parsing `json` (map order included):
    /// the writer's own value, kept so that whoever reads the version soon
    /// after (watchers, the next patch) need not parse it. Storage keeps
    /// it for its most recent writes only and then forgets it.
    decoded: Mutex<Option<Arc<Value>>>,
}

impl PartialEq for StoredObject {
    fn eq(&self, other: &StoredObject) -> bool {
        self.json == other.json && self.attrs == other.attrs
    }
}

impl StoredObject {
    pub fn new(json: Box<[u8]>, attrs: Arc<ObjectAttrs>) -> StoredObject {
        StoredObject { json, attrs, decoded: Mutex::new(None) }
    }

    fn kept(&self) -> Option<Arc<Value>> {
        self.decoded.lock().ok().and_then(|d| d.clone())
    }

    /// The object, parsed: the kept value when there is one (shared, not
    /// copied), else parsed from the bytes (and not kept).
    pub fn parsed(&self) -> Option<Arc<Value>> {
        match self.kept() {
            Some(v) => Some(v),
            None => serde_json::from_slice::<Value>(&self.json).ok().map(Arc::new),
        }
    }

    /// Drops the kept parsed value (storage's bound on how many it keeps).
    pub fn forget_decoded(&self) {
        if let Ok(mut d) = self.decoded.lock() {
            *d = None;
        }
    }

    /// Whether the object passes label and field selectors.
    pub fn selected_by(&self, label: &crate::selector::LabelSelector, field: &crate::selector::FieldSelector) -> bool {
        label.matches_fn(|k| self.attrs.label(k)) && field.matches(|f| self.attrs.field(f))
    }

    pub fn value(&self) -> Value {
        match self.kept() {
            Some(v) => (*v).clone(),
            None => serde_json::from_slice(&self.json).unwrap_or(Value::Null),
        }
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
        StoredObject::new(Box::from(scratch.as_slice()), attrs)
    }

    /// As `encode_with`, keeping the object (put in the serialized order)
    /// as the parsed value until `forget_decoded`.
    pub fn encode_keeping(obj: Value, rev: Revision, attrs: Arc<ObjectAttrs>, scratch: &mut Vec<u8>) -> StoredObject {
        let mut obj = obj;
        super::meta::insert_metadata_field(
            super::meta::metadata_mut(&mut obj),
            "resourceVersion",
            Value::String(rev.to_string()),
        );
        super::meta::canonicalize(&mut obj);
        scratch.clear();
        // In canonical order already: written as it is.
        serde_json::ser::write_value(scratch, &obj);
        StoredObject { json: Box::from(scratch.as_slice()), attrs, decoded: Mutex::new(Some(Arc::new(obj))) }
    }

    /// The same object stamped with another resourceVersion.
    pub fn restamped(&self, rev: Revision) -> StoredObject {
        StoredObject::encode(self.value(), rev, self.attrs.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_kept_object_is_the_parse_of_its_bytes_order_included() {
        let obj = json!({"status": {"b": 1, "a": [1.5, "x"]}, "spec": {"z": 1, "a": 2},
            "metadata": {"labels": {"x": "y"}, "uid": "u", "name": "n"}, "apiVersion": "v1", "kind": "K"});
        let kept = StoredObject::encode_keeping(obj.clone(), Revision(7), Arc::default(), &mut Vec::new());
        let plain = StoredObject::encode(obj, Revision(7), Arc::default());
        assert_eq!(kept.json, plain.json);
        let parsed: Value = serde_json::from_slice(&kept.json).unwrap();
        let v = kept.parsed().unwrap();
        assert_eq!(*v, parsed);
        assert_eq!(serde_json::to_vec(&*v).unwrap(), kept.json.to_vec());
        assert_eq!(kept.value(), parsed);
        // Forgotten, it is parsed again, to the same.
        kept.forget_decoded();
        assert!(kept.kept().is_none());
        assert_eq!(*kept.parsed().unwrap(), parsed);
    }
}
