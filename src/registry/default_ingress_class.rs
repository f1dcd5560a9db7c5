//! The DefaultIngressClass admission (on in every cluster): a new Ingress
//! that names no class, by field or by the deprecated annotation, gets the
//! class annotated `ingressclass.kubernetes.io/is-default-class: "true"`;
//! of several, the newest (then the first by name), as upstream picks.

use serde_json::{json, Value};

use super::kinds::ingress::CLASS_ANNOTATION;
use super::resource::ResourceType;
use super::{keys, Registry};
use crate::sort::Order;
use crate::storage::{ListStart, Storage};

const DEFAULT_ANNOTATION: &str = "ingressclass.kubernetes.io/is-default-class";

impl<S: Storage> Registry<S> {
    /// The class of `(group, version, resource)` a new object gets: of
    /// those `marked` the default, the newest, then the first by name (as
    /// upstream's DefaultIngressClass and DefaultStorageClass pick).
    pub(super) fn newest_default(&self, gvr: (&str, &str, &str), marked: impl Fn(&Value) -> bool) -> Option<String> {
        let classes = self.resources.lookup(gvr.0, gvr.1, gvr.2)?;
        let rev = self.storage.revision();
        let page = self.storage.list(&keys::resource_prefix(classes), rev, &ListStart::Beginning, None, None).ok()?;
        let at = |o: &Value, f: &str| o["metadata"][f].as_str().unwrap_or("").to_string();
        let mut defaults: Vec<(String, String)> = page
            .items
            .iter()
            .map(|o| o.value())
            .filter(|o| marked(o))
            .map(|o| (at(&o, "creationTimestamp"), at(&o, "name")))
            .collect();
        // Newest first (RFC 3339 in UTC orders as text), then by name.
        defaults.order_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        defaults.into_iter().next().map(|(_, name)| name)
    }

    pub(super) fn admit_ingress_class(&self, rt: &ResourceType, value: &mut Value) {
        if rt.gvr.group != "networking.k8s.io" || rt.gvr.resource != "ingresses" {
            return;
        }
        let named = value.pointer("/spec/ingressClassName").is_some_and(|v| !v.is_null());
        let annotated = value.pointer("/metadata/annotations").and_then(|a| a.get(CLASS_ANNOTATION)).is_some();
        if named || annotated {
            return;
        }
        let marked = |o: &Value| o["metadata"]["annotations"][DEFAULT_ANNOTATION].as_str() == Some("true");
        let Some(name) = self.newest_default(("networking.k8s.io", "v1", "ingressclasses"), marked) else { return };
        if let Value::Object(o) = value {
            if let Some(spec) = o.entry("spec").or_insert_with(|| json!({})).as_object_mut() {
                spec.insert("ingressClassName".into(), json!(name));
            }
        }
    }
}
