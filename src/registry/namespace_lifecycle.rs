//! The namespace lifecycle admission (upstream's NamespaceLifecycle
//! plugin): new content in a namespace that is missing or being
//! terminated is refused, and the namespaces every cluster needs refuse
//! deletion. Emptying and finalizing a terminating namespace is the
//! namespace controller's work (`controllers/namespace.rs`), a client.

use super::resource::ResourceType;
use super::{keys, Registry};
use crate::api::{Status, StatusCause};
use crate::storage::Storage;

/// The namespaces that may not be deleted.
const IMMORTAL: &[&str] = &["default", "kube-system", "kube-public"];

impl<S: Storage> Registry<S> {
    /// Refuses the deletion of a namespace every cluster needs (before the
    /// object is read, as admission runs before the storage's delete), or
    /// of an object its kind keeps (the system priority classes).
    pub(super) fn admit_delete(&self, rt: &ResourceType, name: &str) -> Result<(), Status> {
        let is_namespaces = self.resources.namespaces().is_some_and(|ns| ns.gvr == rt.gvr);
        if is_namespaces && IMMORTAL.contains(&name) {
            return Err(Status::forbidden(rt.group(), rt.resource(), name, "this namespace may not be deleted"));
        }
        if let Some(why) = rt.strategy.delete_forbidden(name) {
            return Err(Status::forbidden(rt.group(), rt.resource(), name, why));
        }
        Ok(())
    }

    /// Refuses new content in a namespace that is missing or being
    /// terminated (upstream's NamespaceLifecycle admission).
    pub(super) fn admit_to_namespace(&self, rt: &ResourceType, namespace: &str, name: &str) -> Result<(), Status> {
        if !rt.namespaced {
            return Ok(());
        }
        let Some(ns_rt) = self.resources.namespaces() else { return Ok(()) };
        match self.storage.get(&keys::key(ns_rt, "", namespace), self.storage.revision()) {
            Ok(Some((_, ns))) => {
                // The phase is a selectable field: no need to parse the namespace.
                if ns.attrs.field("status.phase") == Some("Terminating") {
                    let mut s = Status::forbidden(
                        rt.group(),
                        rt.resource(),
                        name,
                        &format!(
                            "unable to create new content in namespace {namespace} because it is being terminated"
                        ),
                    );
                    if let Some(d) = s.details.as_mut() {
                        d.causes.push(StatusCause {
                            reason: "NamespaceTerminating".into(),
                            message: format!("namespace {namespace} is being terminated"),
                            field: "metadata.namespace".into(),
                        });
                    }
                    return Err(s);
                }
                Ok(())
            }
            _ => Err(Status::not_found("", "namespaces", namespace)),
        }
    }
}
