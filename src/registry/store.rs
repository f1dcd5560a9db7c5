//! The generic store: one flow per verb for every resource, calling the
//! kind's strategy at fixed points (as k8s.io/apiserver's
//! `registry/generic/registry/store.go`). Reads and the create and update
//! flows are here; the other verbs each have a file under `store/`:
//! `list.rs` (list, deletecollection), `watch.rs`, `patch.rs` (JSON, merge,
//! strategic, apply), `delete.rs`, `scale.rs`.
//!
//! Storage errors become `Status` in exactly one function,
//! `storage_status`, and only the store calls it.

mod binding;
mod custom;
mod delete;
mod eviction;
mod list;
mod patch;
mod scale;
mod watch;

pub use custom::CustomResources;

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::decode::{self, RequestBody, Warnings};
use super::options::{FieldValidation, GetOptions, Subresource, WriteOptions};
use super::resource::ResourceType;
use super::resource_version as rv;
use super::strategy::Allocation;
use super::{keys, validation, Registry};
use crate::api::{meta, FieldError, ObjectAttrs, Status, StoredObject};
use crate::storage::{ListStart, Storage, StorageError};

pub(crate) use list::selectors;
pub use list::ListResult;
pub use watch::{Watcher, BOOKMARK_INTERVAL_MS};

/// A response body a verb produced.
#[derive(Debug)]
pub enum Body {
    /// The object as stored (its bytes answer as they are).
    Object(Arc<StoredObject>),
    /// An object that was not stored (dry-run, a deletion's last state, a
    /// Scale).
    Value(Value),
    Status(Box<Status>),
}

impl Body {
    pub fn into_value(self) -> Value {
        match self {
            Body::Object(o) => o.value(),
            Body::Value(v) => v,
            Body::Status(s) => serde_json::from_slice(&s.to_json()).unwrap_or(Value::Null),
        }
    }
}

/// What a write answered, and whether it created the object.
#[derive(Debug)]
pub struct Written {
    pub body: Body,
    pub created: bool,
}

/// How many times a create whose generated name is taken is attempted.
const MAX_GENERATE_NAME_ATTEMPTS: usize = 8;

/// Translates a storage error to the Status a client sees. The one place
/// this happens.
fn storage_status(rt: &ResourceType, name: &str, err: StorageError) -> Status {
    match err {
        StorageError::KeyExists { .. } => Status::already_exists(rt.group(), rt.resource(), name),
        StorageError::NotFound { .. } => Status::not_found(rt.group(), rt.resource(), name),
        StorageError::Conflict { .. } => Status::conflict(
            rt.group(),
            rt.resource(),
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        ),
        StorageError::Compacted { requested, compacted } => rv::too_old(requested, compacted),
        StorageError::ListCompacted => rv::list_too_old(),
        StorageError::FutureRevision { requested, current } => rv::too_large(requested, current),
        StorageError::TooFarBehind { cursor, head, limit } => rv::watch_fell_behind(cursor, head, limit),
        // etcd's own error, which kube-apiserver passes on as it is: a 500
        // with no reason.
        StorageError::TooLarge { .. } => Status::failure(500, "", "etcdserver: request is too large".to_string()),
    }
}

/// An object too large for etcd, tried again as kube-apiserver tries it
/// (a create, an update or a patch other than apply): without its managed
/// fields, which can be large.
fn without_managed_fields(mut value: Value) -> Value {
    meta::metadata_mut(&mut value).shift_remove("managedFields");
    value
}

/// A precondition checked where upstream's storage layer checks it (a
/// PUT's uid, inside etcd3's GuaranteedUpdate): 409 worded as its
/// `StorageError`, quoting the key kube-apiserver would keep the object at.
fn precondition_failed(rt: &ResourceType, namespace: &str, name: &str, why: &str) -> Status {
    let key = keys::upstream_key(rt, namespace, name);
    Status::conflict(
        rt.group(),
        rt.resource(),
        name,
        &format!("StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: {why}"),
    )
}

/// The selector attributes of an object: its labels, its name (and
/// namespace), and the fields its kind lets selectors name.
pub(super) fn attrs(rt: &ResourceType, obj: &Value) -> ObjectAttrs {
    let names = rt.field_names();
    // Made as they are kept (boxed text, in a vector boxed at the end),
    // so that nothing is copied again; the vector's room is exact unless a
    // selectable field is empty.
    let mut fields: Vec<(Arc<str>, Box<str>)> = Vec::with_capacity(names.len());
    fields.push((names[0].clone(), meta::name(obj).into()));
    let mut own = 1;
    if rt.namespaced {
        fields.push((names[1].clone(), meta::namespace(obj).into()));
        own = 2;
    }
    for (f, name) in rt.strategy.selectable_fields().iter().zip(&names[own..]) {
        let v = meta::field_at(obj, &f.path).unwrap_or_else(|| f.zero.to_string());
        // An empty value reads the same as an absent one: keep it out.
        if !v.is_empty() {
            fields.push((name.clone(), v.into_boxed_str()));
        }
    }
    let labels = meta::labels(obj).into_iter().map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str())).collect();
    ObjectAttrs { labels, fields: fields.into_boxed_slice() }
}

/// The stored pod spec with the ephemeral containers a write to
/// `pods/NAME/ephemeralcontainers` sent (none sent: none kept), as
/// upstream's strategy drops every other change.
fn with_ephemeral_containers(stored: Option<&Value>, sent: Option<Value>) -> Value {
    let mut spec = match stored {
        Some(Value::Object(o)) => o.clone(),
        _ => Map::new(),
    };
    match sent.and_then(|mut s| s.as_object_mut().and_then(|o| o.shift_remove("ephemeralContainers"))) {
        Some(v) if !v.is_null() => spec.insert("ephemeralContainers".into(), v),
        _ => spec.shift_remove("ephemeralContainers"),
    };
    Value::Object(spec)
}

/// The stored pod spec with the containers' and init containers'
/// `resources` and `resizePolicy` a write to `pods/NAME/resize` sent, each
/// taken by its place in the list (upstream's `podResizeStrategy`). A sent
/// list of another length, or naming another container at a place, leaves
/// the sent spec whole, for validation to refuse.
fn with_resized_containers(stored: Option<&Value>, sent: Option<Value>) -> Value {
    let mut spec = match stored {
        Some(Value::Object(o)) => o.clone(),
        _ => Map::new(),
    };
    let sent = sent.unwrap_or(Value::Null);
    let list = |s: &Value, name: &str| s.get(name).and_then(Value::as_array).map_or(0, Vec::len);
    let lined_up = ["containers", "initContainers"].iter().all(|l| {
        list(&sent, l) == spec.get(*l).and_then(Value::as_array).map_or(0, Vec::len)
            && (0..list(&sent, l)).all(|i| sent[*l][i]["name"] == spec[*l][i]["name"])
    });
    if !lined_up {
        return sent;
    }
    for l in ["containers", "initContainers"] {
        let Some(Value::Array(cs)) = spec.get_mut(l) else { continue };
        for (i, c) in cs.iter_mut().enumerate() {
            let Value::Object(c) = c else { continue };
            for field in ["resources", "resizePolicy"] {
                match sent[l][i].get(field) {
                    Some(v) if !v.is_null() => c.insert(field.into(), v.clone()),
                    _ => c.shift_remove(field),
                };
            }
        }
    }
    Value::Object(spec)
}

/// Who writes, for field management.
fn writer<'a>(rt: &'a ResourceType, opts: &'a WriteOptions, now: &'a str) -> crate::apply::Writer<'a> {
    crate::apply::Writer {
        schema: rt.schema(),
        api_version: rt.api_version().to_string(),
        manager: &opts.field_manager,
        subresource: opts.subresource.managed_fields_name(),
        has_status_subresource: rt.status_subresource,
        now,
    }
}

/// A built-in object as upstream holds it: with the zero fields of each of
/// its structs (`Schemas::fill_zero_fields`). A custom resource's schema
/// has none (its zero value is an empty object).
fn fill_zero_fields(rt: &ResourceType, value: &mut Value) {
    let s = crate::schema::schemas();
    if let Some(schema) = rt.schema().filter(|sc| s.facts(sc).zero.is_some()) {
        s.fill_zero_fields(schema, value);
    }
}

/// The kind's defaults (`Strategy::defaults`), then those core/v1's
/// defaulters set on nested structs wherever they appear
/// (`Schemas::fill_defaults`): as upstream's decoder defaults a write.
fn apply_defaults(rt: &ResourceType, value: &mut Value) {
    if let Value::Object(o) = value {
        rt.strategy.defaults(o);
    }
    let s = crate::schema::schemas();
    if let Some(schema) = rt.schema().filter(|sc| s.facts(sc).zero.is_some()) {
        s.fill_defaults(schema, value);
    }
}

/// A built-in object as upstream decodes it into its Go types and encodes
/// it again: without the `omitempty` fields it wrote empty
/// (`Schemas::drop_omitted`), its quantities canonical (unless the kind
/// canonicalizes its own: `Strategy::keeps_quantities`), a text that is
/// no quantity refused as the decoder refuses it. A custom resource is
/// kept as written.
fn as_decoded(rt: &ResourceType, value: &mut Value) -> Result<(), Status> {
    let s = crate::schema::schemas();
    if let Some(schema) = rt.schema().filter(|sc| s.facts(sc).zero.is_some()) {
        s.drop_omitted(schema, value);
        s.quantities(schema, value, !rt.strategy.keeps_quantities()).map_err(|e| decode::cannot_handle(rt, e))?;
    }
    Ok(())
}

/// The body's namespace must be empty (it is filled in) or the URL's; a
/// cluster-scoped object has none.
fn set_namespace(rt: &ResourceType, value: &mut Value, namespace: &str) -> Result<(), Status> {
    let m = meta::metadata_mut(value);
    if !rt.namespaced {
        m.shift_remove("namespace");
        return Ok(());
    }
    match m.get("namespace").and_then(Value::as_str) {
        None | Some("") => {
            meta::insert_metadata_field(m, "namespace", json!(namespace));
            Ok(())
        }
        Some(ns) if ns == namespace => Ok(()),
        Some(_) => Err(Status::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
    }
}

/// The object's name must be the URL's (`checkName`, after the namespace).
fn check_name(value: &Value, name: &str) -> Result<(), Status> {
    match meta::name(value) {
        "" => Err(Status::bad_request(format!(
            "the name of the object ({name} based on URL) was undeterminable: name must be provided"
        ))),
        n if n != name => Err(Status::bad_request(format!(
            "the name of the object ({n}) does not match the name on the URL ({name})"
        ))),
        _ => Ok(()),
    }
}

/// The object stored at a key now, if any.
fn stored_at<S: Storage>(storage: &S, k: &str) -> Option<Arc<StoredObject>> {
    storage.get(k, storage.revision()).ok().flatten().map(|(_, o)| o)
}

/// Whether an object's deletion has begun.
pub(super) fn is_terminating(obj: &Value) -> bool {
    obj.pointer("/metadata/deletionTimestamp").is_some_and(|v| !v.is_null())
}

/// The fields that belong to the main resource rather than its status.
fn spec_changed(old: &Value, new: &Value) -> bool {
    fn rest(v: &Value) -> Vec<(&String, &Value)> {
        let fields = v.as_object().into_iter().flatten();
        fields.filter(|(k, _)| !matches!(k.as_str(), "metadata" | "status" | "kind" | "apiVersion")).collect()
    }
    let (a, b) = (rest(old), rest(new));
    if a.len() != b.len() {
        return true;
    }
    if a.iter().zip(&b).all(|((ka, va), (kb, vb))| ka == kb && meta::same(va, vb)) {
        return false;
    }
    // Another order: field by field.
    !a.iter().all(|(k, v)| new.get(k.as_str()).is_some_and(|w| meta::same(v, w)))
}

/// The stored object an update starts from: as stored, as its resource
/// serves it, and parsed.
pub(super) struct Current {
    rev: crate::api::Revision,
    stored: Arc<StoredObject>,
    served: Arc<StoredObject>,
    old: Arc<Value>,
}

impl Current {
    /// A copy of the parsed object (cheaper than parsing it again).
    pub(super) fn value(&self) -> Value {
        (*self.old).clone()
    }
}

/// How a write came to be: a body to record under the writer's manager, or
/// the result of a server-side apply whose managedFields are computed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Recorded {
    Update,
    Applied,
}

/// How admission names a new object in a refusal: by its `generateName`
/// when its name is `generated` (upstream's admission runs before the name
/// is made).
#[inline(always)]
pub(super) fn shown_name(value: &Value, generated: bool) -> &str {
    match generated {
        true => meta::meta_str(value, "generateName").unwrap_or(""),
        false => meta::name(value),
    }
}

impl<S: Storage> Registry<S> {
    /// The object at the head, or 404.
    pub(super) fn current(
        &self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
    ) -> Result<(crate::api::Revision, Arc<StoredObject>), Status> {
        match self.storage.get(&keys::key(rt, namespace, name), self.storage.revision()) {
            Ok(Some((rev, obj))) => Ok((rev, rt.served(obj))),
            Ok(None) => Err(Status::not_found(rt.group(), rt.resource(), name)),
            Err(e) => Err(storage_status(rt, name, e)),
        }
    }

    /// GET of one object (or its status, or its Scale).
    pub fn get(&self, rt: &ResourceType, namespace: &str, name: &str, opts: &GetOptions) -> Result<Body, Status> {
        rv::get_at(&opts.resource_version, self.storage.revision())?;
        let (_, obj) = self.current(rt, namespace, name)?;
        match opts.subresource {
            Subresource::Scale => Ok(Body::Value(scale::to_scale(rt, &obj.value()))),
            Subresource::None
            | Subresource::Status
            | Subresource::Finalize
            | Subresource::Binding
            | Subresource::Eviction
            | Subresource::EphemeralContainers
            | Subresource::Resize => Ok(Body::Object(obj)),
        }
    }

    /// POST: create an object in `namespace` (empty for cluster scope).
    pub fn create(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        body: RequestBody<'_>,
        opts: &WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Body, Status> {
        let obj = Value::Object(decode::object(rt, body, opts.field_validation, warnings)?);
        warnings.extend(rt.strategy.warnings(&obj));
        self.create_value(rt, namespace, obj, opts, Recorded::Update)
    }

    /// A create, retried with a fresh name when a generated one is taken
    /// (upstream's RetryGenerateName: up to 8 attempts, each a whole create).
    fn create_value(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        value: Value,
        opts: &WriteOptions,
        recorded: Recorded,
    ) -> Result<Body, Status> {
        if let Some(why) = rt.strategy.create_forbidden() {
            let name = meta::name(&value);
            let mut status = Status::forbidden(rt.group(), rt.resource(), name, why);
            if name.is_empty() {
                status.message = format!(
                    "{} is forbidden: {why}",
                    crate::api::status::qualified_resource(rt.group(), rt.resource())
                );
            }
            return Err(status);
        }
        let generates =
            meta::name(&value).is_empty() && meta::meta_str(&value, "generateName").is_some_and(|s| !s.is_empty());
        if !generates {
            return self.create_once(rt, namespace, value, opts, recorded);
        }
        let mut attempt = 1;
        loop {
            match self.create_once(rt, namespace, value.clone(), opts, recorded) {
                Err(s) if s.reason == "AlreadyExists" && attempt < MAX_GENERATE_NAME_ATTEMPTS => attempt += 1,
                r => return r,
            }
        }
    }

    fn create_once(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        mut value: Value,
        opts: &WriteOptions,
        recorded: Recorded,
    ) -> Result<Body, Status> {
        set_namespace(rt, &mut value, namespace)?;
        as_decoded(rt, &mut value)?;
        meta::prune_empty_metadata(&mut value);
        let mut generated = false;
        // (Formatted once: the creation time and the field manager's.)
        let now = self.now.rfc3339();
        {
            let m = meta::metadata_mut(&mut value);
            if m.get("resourceVersion").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
                return Err(Status::bad_request("resourceVersion should not be set on objects to be created"));
            }
            let has_name = m.get("name").and_then(Value::as_str).is_some_and(|s| !s.is_empty());
            if !has_name {
                if let Some(base) = m.get("generateName").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                    let name = self.names.generate(base, &mut self.rng);
                    meta::insert_metadata_field(m, "name", json!(name));
                    generated = true;
                }
            }
            for k in ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] {
                m.shift_remove(k);
            }
            meta::insert_metadata_field(m, "uid", json!(self.rng.uuid()));
            meta::insert_metadata_field(m, "creationTimestamp", Value::String(now.clone()));
            if rt.tracks_generation {
                meta::insert_metadata_field(m, "generation", json!(1));
            } else {
                m.shift_remove("generation");
            }
        }
        apply_defaults(rt, &mut value);
        // The writer owns what it sent, with its defaults: upstream's field
        // manager records a create before the strategy prepares the object
        // and before allocation, so what those add (a Job's selector and
        // template labels, a namespace's finalizer, a Service's cluster IPs)
        // is no one's.
        if recorded == Recorded::Update {
            crate::apply::record_update(&writer(rt, opts, &now), None, &mut value);
        }
        // Mutating admission, after the field manager as upstream's, the
        // namespace's lifecycle first.
        self.admit_to_namespace(rt, namespace, shown_name(&value, generated))?;
        if let Value::Object(o) = &mut value {
            rt.strategy.admit(o);
            rt.strategy.admit_create(o);
        }
        self.admit_pod_service_account(rt, namespace, generated, &mut value)?;
        self.admit_pod_priority_on_create(rt, generated, &mut value)?;
        self.admit_claim_class(rt, &mut value);
        self.admit_ingress_class(rt, &mut value);
        self.admit_limit_ranges(rt, namespace, &mut value);
        if let Value::Object(o) = &mut value {
            if rt.status_subresource {
                match rt.strategy.initial_status(o) {
                    Value::Null => o.shift_remove("status"),
                    status => o.insert("status".into(), status),
                };
            }
            rt.strategy.prepare_for_create(o);
        }
        fill_zero_fields(rt, &mut value);
        let name = meta::name(&value).to_string();
        let mut errs = validation::validate_meta(rt, &value);
        errs.extend(rt.strategy.validate(&value));
        errs.extend(rt.strategy.validate_create(&value));
        if errs.is_empty() {
            let storage = &self.storage;
            let existing = || -> Vec<Value> {
                storage
                    .list(&keys::resource_prefix(rt), storage.revision(), &ListStart::Beginning, None, None)
                    .map(|page| page.items.iter().map(|o| o.value()).collect())
                    .unwrap_or_default()
            };
            let mut allocation = Allocation { rng: &mut self.rng, existing: &existing, ranges: &self.service_ranges };
            errs.extend(rt.strategy.allocate(&mut value, &mut allocation)?);
        }
        if !errs.is_empty() {
            return Err(Status::invalid(rt.group(), rt.kind(), &name, &errs));
        }
        self.admit_priority_class(rt, &value, true)?;
        let shown = shown_name(&value, generated);
        self.validate_limit_ranges(rt, namespace, &value, shown, true)?;
        self.admit_quota(rt, namespace, &value, None, shown, opts.dry_run)?;
        let k = keys::key(rt, namespace, &name);
        let taken = |existing: Option<Arc<StoredObject>>| {
            let mut s = if generated {
                Status::generate_name_conflict(rt.group(), rt.resource(), &name)
            } else {
                Status::already_exists(rt.group(), rt.resource(), &name)
            };
            if existing.is_some_and(|o| is_terminating(&o.value())) {
                s.message = format!("object is being deleted: {}", s.message);
            }
            s
        };
        if opts.dry_run {
            if let Some(o) = stored_at(&self.storage, &k) {
                return Err(taken(Some(o)));
            }
            let mut value = rt.served_value(rt.to_storage(value));
            meta::canonicalize(&mut value);
            return Ok(Body::Value(value));
        }
        let value = rt.to_storage(value);
        let attrs = attrs(rt, &value);
        let written = match self.storage.create(&k, value, attrs, self.now) {
            Err(StorageError::TooLarge { value }) if recorded == Recorded::Update => {
                let value = without_managed_fields(*value);
                let attrs = self::attrs(rt, &value);
                self.storage.create(&k, value, attrs, self.now)
            }
            other => other,
        };
        match written {
            Ok(o) => Ok(Body::Object(rt.served(o))),
            Err(StorageError::KeyExists { .. }) => Err(taken(stored_at(&self.storage, &k))),
            Err(e) => Err(storage_status(rt, &name, e)),
        }
    }

    /// PUT: replace an object, its status (`Subresource::Status`) or its
    /// replicas (`Subresource::Scale`).
    pub fn update(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        body: RequestBody<'_>,
        opts: &WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Written, Status> {
        if opts.subresource == Subresource::Scale {
            let (_, current) = self.current(rt, namespace, name)?;
            let wanted = decode::sub_object(body)?;
            return self.write_scale(rt, namespace, name, current.value(), &wanted, opts, warnings);
        }
        let obj = decode::object(rt, body, opts.field_validation, warnings)?;
        // A PUT's uid is a precondition on the stored object (a patch's is
        // not: changing it there is an immutable-field error).
        let uid = obj.get("metadata").and_then(|m| m.get("uid")).and_then(Value::as_str).map(str::to_string);
        let obj = Value::Object(obj);
        warnings.extend(rt.strategy.warnings(&obj));
        self.update_value(rt, namespace, name, obj, opts, Recorded::Update, uid.as_deref())
    }

    /// The object an update starts from, if it exists.
    fn read_current(&self, rt: &ResourceType, namespace: &str, name: &str) -> Result<Option<Current>, Status> {
        let k = keys::key(rt, namespace, name);
        let found = self.storage.get(&k, self.storage.revision()).map_err(|e| storage_status(rt, name, e))?;
        Ok(found.map(|(rev, stored)| {
            let served = rt.served(stored.clone());
            let old = served.parsed().unwrap_or_else(|| Arc::new(Value::Null));
            Current { rev, stored, served, old }
        }))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_value(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        value: Value,
        opts: &WriteOptions,
        recorded: Recorded,
        uid_precondition: Option<&str>,
    ) -> Result<Written, Status> {
        let current = self.read_current(rt, namespace, name)?;
        self.update_from(rt, namespace, name, value, opts, recorded, uid_precondition, current)
    }

    /// An update from `current` as read (a patch has read and parsed it
    /// already: it is not read again).
    #[allow(clippy::too_many_arguments)]
    fn update_from(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        mut value: Value,
        opts: &WriteOptions,
        recorded: Recorded,
        uid_precondition: Option<&str>,
        current: Option<Current>,
    ) -> Result<Written, Status> {
        let status = opts.subresource == Subresource::Status;
        let ephemeral = opts.subresource == Subresource::EphemeralContainers;
        let resize = opts.subresource == Subresource::Resize;
        // Pods' subresources that write a part of the spec.
        let spec_part = ephemeral || resize;
        set_namespace(rt, &mut value, namespace)?;
        as_decoded(rt, &mut value)?;
        check_name(&value, name)?;
        let k = keys::key(rt, namespace, name);
        let uid_precondition = uid_precondition.filter(|u| !u.is_empty());
        if let Some(uid) = uid_precondition {
            let cur_uid = current.as_ref().map(|c| meta::meta_str(&c.old, "uid").unwrap_or("").to_string());
            let cur_uid = cur_uid.unwrap_or_default();
            if uid != cur_uid {
                return Err(precondition_failed(
                    rt,
                    namespace,
                    name,
                    &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {cur_uid}"),
                ));
            }
        }
        let Some(Current { rev: cur_rev, stored, served: current, old: old_arc }) = current else {
            if rt.allow_create_on_update && !status {
                let opts = WriteOptions { field_validation: FieldValidation::Ignore, ..opts.clone() };
                let body = self.create_value(rt, namespace, value, &opts, recorded)?;
                return Ok(Written { body, created: true });
            }
            return Err(Status::not_found(rt.group(), rt.resource(), name));
        };
        let old: &Value = &old_arc;
        let expect = match meta::meta_str(&value, "resourceVersion").filter(|s| !s.is_empty()) {
            Some(v) => Some(rv::parse(v).map_err(|_| {
                Status::invalid(
                    rt.group(),
                    rt.kind(),
                    name,
                    &[FieldError::invalid("metadata.resourceVersion", v, "must be a valid resource version")],
                )
            })?),
            None => None,
        };
        if expect.is_some_and(|e| e != cur_rev) {
            return Err(storage_status(rt, name, StorageError::Conflict { key: k, current: cur_rev }));
        }
        // What the client may not change: identity, timestamps, and either
        // the status (main resource), everything but the status, or (pods'
        // ephemeralcontainers, resize) everything but the ephemeral
        // containers or the containers' resources.
        let mut new = if status || spec_part {
            // The request's metadata and status (or spec) over the stored
            // object's everything else (less the metadata the kind keeps).
            let mut value = value;
            let section = if status { "status" } else { "spec" };
            let sent = value.as_object_mut();
            let (mut sent_section, sent_meta) = match sent {
                Some(o) => (o.shift_remove(section), o.shift_remove("metadata")),
                None => (None, None),
            };
            if ephemeral {
                sent_section = Some(with_ephemeral_containers(old.get("spec"), sent_section));
            } else if resize {
                sent_section = Some(with_resized_containers(old.get("spec"), sent_section));
            }
            match old {
                Value::Object(o) => {
                    let mut m = match sent_meta {
                        Some(Value::Object(m)) => m,
                        _ => Map::new(),
                    };
                    let old_meta = meta::metadata(old);
                    // Pods' ephemeral containers and resize keep what
                    // upstream's `ResetObjectMetaForStatus` keeps.
                    let kept = if spec_part {
                        &["labels", "annotations", "finalizers", "ownerReferences"]
                    } else {
                        rt.strategy.metadata_kept_on_status_update()
                    };
                    for f in kept {
                        match old_meta.and_then(|o| o.get(*f)) {
                            Some(v) => m.insert((*f).to_string(), v.clone()),
                            None => m.shift_remove(*f),
                        };
                    }
                    // The stored object in its order, its status (or spec)
                    // and metadata the request's (neither copied only to be
                    // replaced); either, absent before, goes last.
                    let mut n = Map::new();
                    let (mut replaced, mut metadata) = (sent_section, Some(Value::Object(m)));
                    for (k, v) in o {
                        match k.as_str() {
                            k if k == section => {
                                if let Some(st) = replaced.take() {
                                    n.insert(k.to_string(), st);
                                }
                            }
                            "metadata" => {
                                if let Some(md) = metadata.take() {
                                    n.insert(k.clone(), md);
                                }
                            }
                            _ => {
                                n.insert(k.clone(), v.clone());
                            }
                        }
                    }
                    if let Some(st) = replaced {
                        n.insert(section.into(), st);
                    }
                    if let Some(md) = metadata {
                        n.insert("metadata".into(), md);
                    }
                    Value::Object(n)
                }
                other => other.clone(),
            }
        } else {
            if rt.status_subresource {
                if let Value::Object(o) = &mut value {
                    match old.get("status") {
                        Some(st) => o.insert("status".into(), st.clone()),
                        None => o.shift_remove("status"),
                    };
                }
            }
            value
        };
        {
            // As upstream's BeforeUpdate: an absent uid is the stored one (a
            // different one is refused below); the system's timestamps and
            // the generation are the stored ones.
            // Read in place (the stored object's metadata, managed fields
            // and all, is not copied for the five fields taken from it).
            let no_meta = Map::new();
            let old_meta = meta::metadata(old).unwrap_or(&no_meta);
            let m = meta::metadata_mut(&mut new);
            if m.get("uid").and_then(Value::as_str).is_none_or(str::is_empty) {
                match old_meta.get("uid") {
                    Some(v) => m.insert("uid".into(), v.clone()),
                    None => m.shift_remove("uid"),
                };
            }
            for f in ["creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"] {
                match old_meta.get(f) {
                    Some(v) => m.insert(f.into(), v.clone()),
                    None => m.shift_remove(f),
                };
            }
            if rt.namespaced {
                m.insert("namespace".into(), json!(namespace));
            }
        }
        // A finalize takes `spec.finalizers` from the body, as it came.
        if spec_part {
            // The new ephemeral containers (or resources) take their
            // defaults; nothing else of the pod changes, so no admission
            // asks again.
            apply_defaults(rt, &mut new);
        } else if !status && opts.subresource != Subresource::Finalize {
            apply_defaults(rt, &mut new);
            if let Value::Object(o) = &mut new {
                rt.strategy.admit(o);
            }
            Self::admit_pod_priority_on_update(rt, &mut new, old);
            rt.strategy.prepare_for_update(&mut new, old);
        } else if status {
            rt.strategy.prepare_for_status_update(&mut new, old, self.now);
        }
        // Compared with the stored object as upstream compares Go values.
        fill_zero_fields(rt, &mut new);
        if rt.tracks_generation && spec_changed(old, &new) {
            let g = old.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(0);
            meta::metadata_mut(&mut new).insert("generation".into(), json!(g + 1));
        }
        meta::prune_empty_metadata(&mut new);
        let mut errs = validation::validate_meta(rt, &new);
        errs.extend(validation::validate_meta_update(&new, old));
        if status {
            errs.extend(rt.strategy.validate_status_update(&new, old));
        } else if ephemeral {
            errs.extend(rt.strategy.validate(&new));
            errs.extend(rt.strategy.validate_ephemeral_containers_update(&new, old));
        } else if resize {
            errs.extend(rt.strategy.validate(&new));
            errs.extend(rt.strategy.validate_resize_update(&new, old));
        } else {
            errs.extend(rt.strategy.validate(&new));
            errs.extend(rt.strategy.validate_update(&new, old));
        }
        if !errs.is_empty() {
            return Err(Status::invalid(rt.group(), rt.kind(), name, &errs));
        }
        if !status && !spec_part {
            self.admit_priority_class(rt, &new, false)?;
            self.validate_limit_ranges(rt, namespace, &new, name, false)?;
            self.admit_quota(rt, namespace, &new, Some(old), name, opts.dry_run)?;
        }
        if recorded == Recorded::Update {
            crate::apply::record_update(&writer(rt, opts, &self.now.rfc3339()), Some(old), &mut new);
        }
        let unchanged = |body| Ok(Written { body, created: false });
        if opts.dry_run {
            // What would be stored, at the revision it has now.
            meta::metadata_mut(&mut new).insert("resourceVersion".into(), json!(cur_rev.to_string()));
            let mut new = rt.served_value(rt.to_storage(new));
            meta::canonicalize(&mut new);
            return unchanged(Body::Value(new));
        }
        // An update that leaves no finalizers on an object being deleted
        // with no grace period left completes its deletion instead of
        // writing it (upstream's `ShouldDeleteDuringUpdate`); a pod still
        // in its grace period is written (its kubelet's last status).
        let grace = old.pointer("/metadata/deletionGracePeriodSeconds").and_then(Value::as_i64);
        let no_grace_left = matches!(grace, None | Some(0));
        if is_terminating(old)
            && no_grace_left
            && meta::finalizers(&new).is_empty()
            && !rt.strategy.has_pending_finalizers(&new)
        {
            self.storage.delete(&k, Some(cur_rev), self.now).map_err(|e| storage_status(rt, name, e))?;
            meta::canonicalize(&mut new);
            return unchanged(Body::Value(new));
        }
        // Compared as stored (a resource served over another's storage
        // converts first): no change, no write, no event, the stored
        // object answers.
        let new = rt.to_storage(new);
        let same = match rt.stored_as {
            None => meta::same(&new, old),
            Some(_) => meta::same(&new, &stored.value()),
        };
        if same {
            return unchanged(Body::Object(current));
        }
        let attrs = attrs(rt, &new);
        let written = match self.storage.update(&k, Some(cur_rev), new, attrs, self.now) {
            Err(StorageError::TooLarge { value }) if recorded == Recorded::Update => {
                let new = without_managed_fields(*value);
                let attrs = self::attrs(rt, &new);
                self.storage.update(&k, Some(cur_rev), new, attrs, self.now)
            }
            other => other,
        };
        written
            .map(|o| Written { body: Body::Object(rt.served(o)), created: false })
            .map_err(|e| storage_status(rt, name, e))
    }
}
