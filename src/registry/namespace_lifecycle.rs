//! The namespace lifecycle, apart from the generic store (so that the
//! controllers issue can make it a controller): admission refuses new
//! content in a namespace that is missing or Terminating, and once a
//! namespace's deletion has begun, `reconcile` deletes its content, then
//! removes the `kubernetes` finalizer from `spec.finalizers` so the
//! namespace can go (at once, or when its metadata finalizers are gone).
//!
//! It learns which namespaces are being deleted as a controller would: from
//! the event log, through a cursor over the namespaces' keys (a relist when
//! that cursor has fallen behind compaction).

use std::collections::BTreeSet;

use serde_json::Value;

use super::options::{DeleteOptions, PropagationPolicy};
use super::resource::ResourceType;
use super::{keys, Registry};
use crate::api::{meta, Status, StatusCause};
use crate::storage::{EventKind, ListStart, Storage, WatchCursor};

/// What the lifecycle remembers between reconciles.
#[derive(Debug, Default)]
pub(super) struct NamespaceLifecycle {
    /// Where it has read the namespaces' events up to (None: list first).
    cursor: Option<WatchCursor>,
    /// Namespaces whose deletion has begun and whose `spec.finalizers`
    /// still hold the lifecycle's finalizer.
    terminating: BTreeSet<String>,
}

/// Whether the lifecycle has work to do on this namespace.
fn pending(rt: &ResourceType, ns: &Value) -> bool {
    super::store::is_terminating(ns) && rt.strategy.has_pending_finalizers(ns)
}

impl<S: Storage> Registry<S> {
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

    /// Brings the set of terminating namespaces up to date with the writes
    /// since the last look.
    fn observe_namespaces(&mut self) {
        let Some(rt) = self.resources.namespaces().cloned() else { return };
        let prefix = keys::resource_prefix(&rt);
        if let Some(cursor) = self.namespaces.cursor.as_mut() {
            if let Ok(events) = self.storage.poll(cursor, usize::MAX) {
                for e in events {
                    let v = e.object.value();
                    let name = meta::name(&v).to_string();
                    if e.kind != EventKind::Deleted && pending(&rt, &v) {
                        self.namespaces.terminating.insert(name);
                    } else {
                        self.namespaces.terminating.remove(&name);
                    }
                }
                return;
            }
        }
        // First look, or history is gone: list.
        let head = self.storage.revision();
        self.namespaces.terminating.clear();
        if let Ok(page) = self.storage.list(&prefix, head, &ListStart::Beginning, None, None) {
            for ns in page.items {
                let v = ns.value();
                if pending(&rt, &v) {
                    self.namespaces.terminating.insert(meta::name(&v).to_string());
                }
            }
        }
        self.namespaces.cursor = Some(WatchCursor { prefix, next: head.next() });
    }

    /// Advances the namespace lifecycle: deletes the content of each
    /// terminating namespace, then finalizes the ones left empty.
    pub fn reconcile(&mut self) {
        self.observe_namespaces();
        let Some(ns_rt) = self.resources.namespaces().cloned() else { return };
        let pending: Vec<String> = self.namespaces.terminating.iter().cloned().collect();
        let namespaced: Vec<_> = self.resources.iter().filter(|r| r.namespaced).cloned().collect();
        for ns in pending {
            let mut remaining = 0usize;
            for rt in &namespaced {
                let prefix = keys::prefix(rt, Some(&ns));
                let Ok(page) = self.storage.list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None)
                else {
                    continue;
                };
                for obj in page.items {
                    let v = obj.value();
                    let name = meta::name(&v).to_string();
                    if !super::store::is_terminating(&v) {
                        // As the namespace controller: background propagation.
                        let opts = DeleteOptions {
                            propagation_policy: Some(PropagationPolicy::Background),
                            ..Default::default()
                        };
                        let _ = self.delete_one(rt, &ns, &name, &opts);
                    }
                    let key = keys::key(rt, &ns, &name);
                    if self.storage.get(&key, self.storage.revision()).ok().flatten().is_some() {
                        remaining += 1;
                    }
                }
            }
            if remaining > 0 {
                continue;
            }
            self.finalize_namespace(&ns_rt, &ns);
        }
    }

    /// Removes the lifecycle's finalizer from an emptied namespace: it goes
    /// now, or once its metadata finalizers are gone.
    fn finalize_namespace(&mut self, rt: &ResourceType, ns: &str) {
        let k = keys::key(rt, "", ns);
        let Ok(Some((rev, obj))) = self.storage.get(&k, self.storage.revision()) else {
            self.namespaces.terminating.remove(ns);
            return;
        };
        let mut v = obj.value();
        if let Some(Value::Object(spec)) = v.get_mut("spec") {
            spec.shift_remove("finalizers");
        }
        let written = if meta::finalizers(&v).is_empty() {
            self.storage.delete(&k, Some(rev), self.now).is_ok()
        } else {
            let attrs = super::store::attrs(rt, &v);
            self.storage.update(&k, Some(rev), v, attrs, self.now).is_ok()
        };
        if written {
            self.namespaces.terminating.remove(ns);
        }
    }
}
