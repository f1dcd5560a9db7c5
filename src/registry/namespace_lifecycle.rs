//! The namespace lifecycle admission (upstream's NamespaceLifecycle
//! plugin): new content in a namespace that is missing or being
//! terminated is refused, and the namespaces every cluster needs refuse
//! deletion. Emptying and finalizing a terminating namespace is the
//! namespace controller's work (`controllers/namespace.rs`), a client.

use super::resource::ResourceType;
use super::{keys, Registry};
use crate::api::Revision;
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
        match self.namespace_state(ns_rt, namespace) {
            Some(false) => Ok(()),
            Some(true) => {
                let mut s = Status::forbidden(
                    rt.group(),
                    rt.resource(),
                    name,
                    &format!("unable to create new content in namespace {namespace} because it is being terminated"),
                );
                if let Some(d) = s.details.as_mut() {
                    d.causes.push(StatusCause {
                        reason: "NamespaceTerminating".into(),
                        message: format!("namespace {namespace} is being terminated"),
                        field: "metadata.namespace".into(),
                    });
                }
                Err(s)
            }
            None => Err(Status::not_found("", "namespaces", namespace)),
        }
    }

    /// Whether the namespace is being terminated now (None: it does not
    /// exist). The last answer stands while its namespace was not written
    /// since (a scan of the events since, usually one); otherwise storage
    /// is searched.
    fn namespace_state(&self, ns_rt: &ResourceType, namespace: &str) -> Option<bool> {
        let head = self.storage.revision();
        let mut memo = self.namespace_at.borrow_mut();
        if let Some(seen) = memo.as_mut().filter(|seen| seen.name == namespace) {
            let written = |key: &str| key == seen.key;
            if seen.at == head || self.storage.written_since(seen.at, &written) == Ok(false) {
                seen.at = head;
                return seen.terminating;
            }
        }
        let key = keys::key(ns_rt, "", namespace);
        let terminating = match self.storage.get(&key, head) {
            // The phase is a selectable field: no need to parse the namespace.
            Ok(Some((_, ns))) => Some(ns.attrs.field("status.phase") == Some("Terminating")),
            _ => None,
        };
        *memo = Some(Seen { at: head, name: namespace.to_string(), key, terminating });
        terminating
    }
}

/// What the namespace lifecycle admission last found (`namespace_state`).
pub(super) struct Seen {
    at: Revision,
    name: String,
    key: String,
    terminating: Option<bool>,
}
