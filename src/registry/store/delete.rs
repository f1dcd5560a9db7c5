//! DELETE of one object: preconditions, propagation policies as
//! finalizers, and the two phases of deletion — an object with finalizers
//! (or, for a namespace, pending `spec.finalizers`) or a grace period (a
//! pod on a node) gets a deletionTimestamp (now plus the grace) and
//! `deletionGracePeriodSeconds`, and stays until they are gone or a
//! DELETE with no grace left removes it; one without goes at once.

use std::sync::Arc;

use serde_json::{json, Value};

use super::super::decode::Warnings;
use super::super::keys;
use super::super::options::{DeleteOptions, FINALIZER_FOREGROUND, FINALIZER_ORPHAN};
use super::super::resource::ResourceType;
use super::{is_terminating, storage_status, Body, Registry};
use crate::api::status::StatusDetails;
use crate::api::{meta, Status, StoredObject};
use crate::storage::Storage;

/// What a DELETE answered, and whether the object is gone (a DELETE that
/// only began a deletion answers 202 when the client asked for cascading
/// with the deprecated `orphanDependents=false`).
#[derive(Debug)]
pub struct Deleted {
    pub body: Body,
    pub gone: bool,
}

impl<S: Storage> Registry<S> {
    pub fn delete(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
        warnings: &mut Warnings,
    ) -> Result<Deleted, Status> {
        opts.validate()?;
        orphan_warning(rt, opts, warnings);
        self.admit_delete(rt, name)?;
        self.delete_one(rt, namespace, name, opts)
    }

    /// One object's deletion, its options already checked.
    pub(in crate::registry) fn delete_one(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, Status> {
        let k = keys::key(rt, namespace, name);
        let (cur_rev, current) = self.current(rt, namespace, name)?;
        let old = current.value();
        preconditions(rt, name, opts, &old)?;
        let finalizers = meta::finalizers(&old);
        let policy = rt.strategy.gc_policy();
        let mut want: Vec<String> =
            finalizers.iter().filter(|f| *f != FINALIZER_ORPHAN && *f != FINALIZER_FOREGROUND).cloned().collect();
        if opts.orphans(&finalizers, policy) {
            want.push(FINALIZER_ORPHAN.into());
        }
        if opts.foreground(&finalizers, policy) {
            want.push(FINALIZER_FOREGROUND.into());
        }
        // The same set in another order is no change: the stored order stays.
        if same_set(&want, &finalizers) {
            want = finalizers.clone();
        }
        let was_terminating = is_terminating(&old);
        let grace = rt.strategy.grace_period(&old, opts.grace_period_seconds);
        // The time it would go, and whether that shortens a grace period
        // already running (a second DELETE may only bring it forward).
        let deadline = self.now.plus_millis(grace * 1000);
        let current_deadline = meta::meta_str(&old, "deletionTimestamp").and_then(crate::clock::parse_rfc3339);
        let shortens = was_terminating && current_deadline.is_some_and(|d| deadline.0 < d);
        let graceful = grace > 0 || !want.is_empty() || rt.strategy.has_pending_finalizers(&old);
        if !graceful {
            if opts.dry_run {
                return Ok(Deleted { body: deleted(rt, current), gone: true });
            }
            let last = self.storage.delete(&k, Some(cur_rev), self.now).map_err(|e| storage_status(rt, name, e))?;
            return Ok(Deleted { body: deleted(rt, rt.served(last)), gone: true });
        }
        let pending = |body| Ok(Deleted { body, gone: false });
        if was_terminating && want == finalizers && !shortens {
            return pending(Body::Object(current));
        }
        let mut new = old.clone();
        {
            let m = meta::metadata_mut(&mut new);
            if !was_terminating || shortens {
                m.insert("deletionTimestamp".into(), json!(deadline.rfc3339()));
                m.insert("deletionGracePeriodSeconds".into(), json!(grace));
            }
            if !was_terminating {
                if let Some(g) = m.get("generation").and_then(Value::as_i64).filter(|g| *g > 0) {
                    m.insert("generation".into(), json!(g + 1));
                }
            }
            if want.is_empty() {
                m.shift_remove("finalizers");
            } else {
                m.insert("finalizers".into(), json!(want));
            }
        }
        rt.strategy.prepare_for_delete(&mut new);
        if opts.dry_run {
            meta::canonicalize(&mut new);
            return pending(Body::Value(new));
        }
        let new = rt.to_storage(new);
        let attrs = super::attrs(rt, &new);
        let stored =
            self.storage.update(&k, Some(cur_rev), new, attrs, self.now).map_err(|e| storage_status(rt, name, e))?;
        pending(Body::Object(rt.served(stored)))
    }
}

/// The warning of a kind that orphans by default, when no policy was named
/// (before the object is looked up, as upstream's Job storage adds it).
pub(super) fn orphan_warning(rt: &ResourceType, opts: &DeleteOptions, warnings: &mut Warnings) {
    if opts.no_policy() {
        if let Some(w) = rt.strategy.orphan_by_default_warning() {
            warnings.push(w.to_string());
        }
    }
}

/// A DELETE's preconditions against the stored object: 409, worded as
/// upstream's `rest.BeforeDelete` on the kind, or (a kind that checks them
/// itself, namespaces) in the storage layer's words on the resource.
pub(super) fn preconditions(rt: &ResourceType, name: &str, opts: &DeleteOptions, old: &Value) -> Result<(), Status> {
    let own = rt.strategy.own_delete_preconditions();
    let conflict = |why: String| {
        let on = if own { rt.resource() } else { rt.kind() };
        Status::conflict(rt.group(), on, name, &why)
    };
    if let Some(uid) = &opts.preconditions.uid {
        let cur = meta::meta_str(old, "uid").unwrap_or("");
        if uid != cur {
            return Err(conflict(if own {
                format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {cur}")
            } else {
                format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({cur}). \
                     The object might have been deleted and then recreated"
                )
            }));
        }
    }
    if let Some(rv) = &opts.preconditions.resource_version {
        let cur = meta::meta_str(old, "resourceVersion").unwrap_or("");
        if rv != cur {
            return Err(conflict(if own {
                format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {cur}"
                )
            } else {
                format!(
                    "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({cur}). \
                     The object might have been modified"
                )
            }));
        }
    }
    Ok(())
}

fn same_set(a: &[String], b: &[String]) -> bool {
    fn set(v: &[String]) -> std::collections::BTreeSet<&str> {
        v.iter().map(String::as_str).collect()
    }
    set(a) == set(b)
}

/// The answer to an immediate delete: the object, or a Success Status
/// whose details name it (with the resource in `kind`, as upstream does).
fn deleted(rt: &ResourceType, last: Arc<StoredObject>) -> Body {
    if rt.return_deleted_object {
        return Body::Object(last);
    }
    let v = last.value();
    Body::Status(Box::new(Status::success(StatusDetails {
        name: meta::name(&v).to_string(),
        group: rt.group().to_string(),
        kind: rt.resource().to_string(),
        uid: meta::meta_str(&v, "uid").unwrap_or("").to_string(),
        ..Default::default()
    })))
}
