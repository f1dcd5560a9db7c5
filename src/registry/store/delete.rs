//! DELETE of one object: preconditions, propagation policies as
//! finalizers, and the two phases of deletion — an object with finalizers
//! (or, for a namespace, pending `spec.finalizers`) gets a
//! deletionTimestamp and stays until they are gone; one without goes at
//! once.

use std::sync::Arc;

use serde_json::{json, Value};

use super::super::keys;
use super::super::options::DeleteOptions;
use super::super::resource::ResourceType;
use super::{is_terminating, storage_status, Body, Registry};
use crate::api::status::StatusDetails;
use crate::api::{meta, Status, StoredObject};
use crate::storage::Storage;

impl<S: Storage> Registry<S> {
    pub fn delete(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Body, Status> {
        opts.validate()?;
        let k = keys::key(rt, namespace, name);
        let (cur_rev, current) = self.current(rt, namespace, name)?;
        let old = current.value();
        let conflict = |why: String| Status::conflict(rt.group(), rt.resource(), name, &why);
        if let Some(uid) = &opts.preconditions.uid {
            let cur = meta::meta_str(&old, "uid").unwrap_or("");
            if uid != cur {
                return Err(conflict(format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {cur}"
                )));
            }
        }
        if let Some(rv) = &opts.preconditions.resource_version {
            let cur = meta::meta_str(&old, "resourceVersion").unwrap_or("");
            if rv != cur {
                return Err(conflict(format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {cur}"
                )));
            }
        }
        let finalizers = meta::finalizers(&old);
        let mut want = finalizers.clone();
        if opts.orphans() {
            want.retain(|f| f != "foregroundDeletion");
            if !want.iter().any(|f| f == "orphan") {
                want.push("orphan".into());
            }
        } else if opts.foreground() {
            want.retain(|f| f != "orphan");
            if !want.iter().any(|f| f == "foregroundDeletion") {
                want.push("foregroundDeletion".into());
            }
        } else if opts.background() {
            want.retain(|f| f != "orphan" && f != "foregroundDeletion");
        }
        let was_terminating = is_terminating(&old);
        let graceful = !want.is_empty() || rt.strategy.has_pending_finalizers(&old);
        if !graceful {
            if opts.dry_run {
                return Ok(deleted(rt, current));
            }
            let last = self.storage.delete(&k, Some(cur_rev), self.now).map_err(|e| storage_status(rt, name, e))?;
            return Ok(deleted(rt, last));
        }
        if was_terminating && want == finalizers {
            return Ok(Body::Object(current));
        }
        let mut new = old.clone();
        {
            let m = meta::metadata_mut(&mut new);
            if !was_terminating {
                m.insert("deletionTimestamp".into(), json!(self.now.rfc3339()));
                m.insert("deletionGracePeriodSeconds".into(), json!(0));
                if let Some(g) = m.get("generation").and_then(Value::as_i64) {
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
            return Ok(Body::Value(new));
        }
        let attrs = super::attrs(rt, &new);
        let stored =
            self.storage.update(&k, Some(cur_rev), new, attrs, self.now).map_err(|e| storage_status(rt, name, e))?;
        Ok(Body::Object(stored))
    }
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
