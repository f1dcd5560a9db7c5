//! One generic flow per verb over any `Storage`. Storage errors become
//! `Status` in exactly one place: `storage_status`.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::rules;
use super::ResourceType;
use crate::api::meta::{self, validate_name};
use crate::api::status::StatusDetails;
use crate::api::{FieldError, Revision, Status};
use crate::clock::{SeededRng, SimTime};
use crate::storage::{ListPage, ListStart, Storage, StorageError, StoredObject};

/// A response body a verb produced.
#[derive(Debug)]
pub enum Body {
    Object(Arc<StoredObject>),
    Value(Value),
    Status(Box<Status>),
}

/// The options of a DELETE, from its query and body.
#[derive(Clone, Debug, Default)]
pub struct DeleteOptions {
    pub propagation_policy: Option<String>,
    pub orphan_dependents: Option<bool>,
    pub precondition_uid: Option<String>,
    pub precondition_rv: Option<String>,
    pub grace_period_seconds: Option<i64>,
    /// `dryRun=All`: every check, no write.
    pub dry_run: bool,
}

/// `fieldValidation`: what to do with unknown and duplicate fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    /// The server's default: a warning per problem.
    #[default]
    Warn,
    /// A 400 listing every problem.
    Strict,
}

/// The options every write takes.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    /// The write is to the status subresource.
    pub status: bool,
    /// Who is writing (`fieldManager`, or from the User-Agent).
    pub field_manager: String,
    /// The body is the result of a server-side apply, its managedFields
    /// already computed: record no Update.
    pub applied: bool,
}

/// What a write says besides its answer (the `Warning` headers).
pub type Warnings = Vec<String>;

/// A body that does not decode into the kind (upstream's decode error).
pub fn cannot_handle(rt: &ResourceType, why: &str) -> Status {
    Status::bad_request(format!("{} in version \"{}\" cannot be handled as a {}: {why}", rt.kind, rt.version, rt.kind))
}

/// Applies a field-validation level to problems found in a body: Strict
/// refuses, Warn warns, Ignore says nothing.
pub fn field_problems(
    rt: &ResourceType,
    fv: FieldValidation,
    problems: Vec<String>,
    warnings: &mut Warnings,
) -> Result<(), Status> {
    if problems.is_empty() {
        return Ok(());
    }
    match fv {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            warnings.extend(problems);
            Ok(())
        }
        FieldValidation::Strict => Err(cannot_handle(rt, &format!("strict decoding error: {}", problems.join(", ")))),
    }
}

/// Who writes, for field management.
fn writer<'a>(rt: &ResourceType, opts: &'a WriteOptions, now: &'a str) -> crate::apply::Writer<'a> {
    let schemas = crate::schema::schemas();
    crate::apply::Writer {
        definition: schemas.name_of(rt.group, rt.version, rt.kind).unwrap_or(""),
        api_version: rt.api_version(),
        manager: &opts.field_manager,
        subresource: if opts.status { "status" } else { "" },
        has_status_subresource: rt.status_subresource,
        now,
    }
}

/// An update keeps what was allocated when the client leaves it out, as
/// upstream's service registry does (`patchAllocatedValues`).
fn keep_allocated(old: &Value, new: &mut Value) {
    let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) else { return };
    for key in ["clusterIP", "clusterIPs"] {
        let missing = spec.get(key).is_none_or(|v| v.is_null() || v.as_str() == Some(""));
        if missing {
            if let Some(v) = old.pointer(&format!("/spec/{key}")) {
                spec.insert(key.into(), v.clone());
            }
        }
    }
    let old_ports = old.pointer("/spec/ports").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(Value::Array(ports)) = spec.get_mut("ports") {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            if p.get("nodePort").is_none() {
                let same =
                    old_ports.iter().find(|o| o.get("port") == p.get("port") && o.get("protocol") == p.get("protocol"));
                if let Some(n) = same.and_then(|o| o.get("nodePort")) {
                    p.insert("nodePort".into(), n.clone());
                }
            }
        }
    }
}

pub struct Registry<S: Storage> {
    pub storage: S,
    pub now: SimTime,
    pub rng: SeededRng,
    /// Namespaces being terminated, which the namespace lifecycle finishes.
    terminating: BTreeSet<String>,
}

/// Translates a storage error to the Status a client sees.
pub fn storage_status(rt: &ResourceType, name: &str, err: StorageError) -> Status {
    match err {
        StorageError::KeyExists { .. } => Status::already_exists(rt.group, rt.resource, name),
        StorageError::NotFound { .. } => Status::not_found(rt.group, rt.resource, name),
        StorageError::Conflict { .. } => Status::conflict(
            rt.group,
            rt.resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        ),
        StorageError::Compacted { requested, compacted } => Status::too_old_resource_version(requested.0, compacted.0),
        StorageError::FutureRevision { requested, current } => Status::too_large_resource_version(requested.0, current.0),
        StorageError::TooFarBehind { cursor, head, limit } => Status::expired(format!(
            "too old resource version: {} ({}): the watch fell more than {limit} revisions behind and was closed; resume from resourceVersion {}",
            cursor.0,
            head.0,
            cursor.0
        )),
    }
}

pub fn key(rt: &ResourceType, namespace: &str, name: &str) -> String {
    let group = if rt.group.is_empty() { "core" } else { rt.group };
    let mut k = String::with_capacity(4 + group.len() + rt.resource.len() + namespace.len() + name.len());
    for part in ["/", group, "/", rt.resource, "/"] {
        k.push_str(part);
    }
    if rt.namespaced {
        k.push_str(namespace);
        k.push('/');
    }
    k.push_str(name);
    k
}

/// The storage prefix a list or watch covers.
pub fn list_prefix(rt: &ResourceType, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if rt.namespaced => format!("{}{}/", rt.prefix(), ns),
        _ => rt.prefix(),
    }
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
            m.insert("namespace".into(), json!(namespace));
            Ok(())
        }
        Some(ns) if ns == namespace => Ok(()),
        Some(_) => Err(Status::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
    }
}

/// Parses a resourceVersion parameter, with upstream's 400 for garbage.
pub fn parse_rv(rv: &str) -> Result<Revision, Status> {
    rv.parse::<u64>().map(Revision).map_err(|_| {
        Status::bad_request(format!(
            "invalid resource version: resourceVersion: Invalid value: \"{rv}\": strconv.ParseUint: parsing \"{rv}\": invalid syntax"
        ))
    })
}

impl<S: Storage> Registry<S> {
    pub fn new(storage: S, seed: u64, now: SimTime) -> Self {
        Registry { storage, now, rng: SeededRng::new(seed), terminating: BTreeSet::new() }
    }

    pub fn get(
        &self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        rv: Option<&str>,
    ) -> Result<Arc<StoredObject>, Status> {
        let head = self.storage.revision();
        // get: unset = most recent, "0" = any, other = not older than.
        if let Some(rv) = rv.filter(|r| !r.is_empty() && *r != "0") {
            let want = parse_rv(rv)?;
            if want > head {
                return Err(Status::too_large_resource_version(want.0, head.0));
            }
        }
        match self.storage.get(&key(rt, namespace, name), head) {
            Ok(Some((_, obj))) => Ok(obj),
            Ok(None) => Err(Status::not_found(rt.group, rt.resource, name)),
            Err(e) => Err(storage_status(rt, name, e)),
        }
    }

    pub fn list(
        &self,
        prefix: &str,
        at: Revision,
        start: &ListStart,
        limit: Option<usize>,
        filter: Option<&dyn Fn(&StoredObject) -> bool>,
    ) -> Result<ListPage, StorageError> {
        self.storage.list(prefix, at, start, limit, filter)
    }

    /// Decodes a body for a write: duplicate and unknown fields are found
    /// (and unknown ones dropped) and dealt with per `fv`.
    fn decode_body(
        rt: &ResourceType,
        body: &[u8],
        fv: FieldValidation,
        warnings: &mut Warnings,
    ) -> Result<Map<String, Value>, Status> {
        let (mut value, dups) = crate::schema::decode::decode_noting_duplicates(body)
            .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))?;
        let schemas = crate::schema::schemas();
        let def = schemas.name_of(rt.group, rt.version, rt.kind);
        if let Some(e) = def.and_then(|d| schemas.first_type_error(d, &value)) {
            return Err(cannot_handle(rt, &e));
        }
        let unknown = match def {
            Some(def) if value.is_object() => schemas.drop_unknown_fields(def, &mut value),
            _ => Vec::new(),
        };
        let problems: Vec<String> = dups
            .iter()
            .map(|d| format!("duplicate field \"{d}\""))
            .chain(unknown.iter().map(|u| format!("unknown field \"{u}\"")))
            .collect();
        let Value::Object(mut obj) = value else {
            return Err(Status::bad_request("couldn't get version/kind; json parse error: expected an object"));
        };
        let api_version = rt.api_version();
        match obj.get("apiVersion").and_then(Value::as_str) {
            None | Some("") => {}
            Some(v) if v == api_version => {}
            Some(v) => {
                return Err(Status::bad_request(format!(
                    "the API version in the data ({v}) does not match the expected API version ({api_version})"
                )))
            }
        }
        match obj.get("kind").and_then(Value::as_str) {
            None | Some("") => {}
            Some(k) if k == rt.kind => {}
            Some(k) => {
                return Err(Status::bad_request(format!(
                    "{k} in version \"{}\" cannot be handled as a {}: the kind in the data ({k}) does not match the expected kind ({})",
                    rt.version, rt.kind, rt.kind
                )))
            }
        }
        if obj.get("metadata").is_some_and(|m| !m.is_object() && !m.is_null()) {
            return Err(Status::bad_request(format!(
                "{} in version \"{}\" cannot be handled as a {}: metadata must be an object",
                rt.kind, rt.version, rt.kind
            )));
        }
        obj.insert("kind".into(), json!(rt.kind));
        obj.insert("apiVersion".into(), json!(api_version));
        field_problems(rt, fv, problems, warnings)?;
        Ok(obj)
    }

    fn check_namespace(&self, rt: &ResourceType, namespace: &str, name: &str) -> Result<(), Status> {
        if !rt.namespaced {
            return Ok(());
        }
        let ns_rt = super::kinds::namespaces();
        match self.storage.get(&key(ns_rt, "", namespace), self.storage.revision()) {
            Ok(Some((_, ns))) => {
                // The phase is a selectable field: no need to parse the namespace.
                let terminating = ns.attrs.field("status.phase") == Some("Terminating");
                if terminating {
                    let mut s = Status::forbidden(
                        rt.group,
                        rt.resource,
                        name,
                        &format!(
                            "unable to create new content in namespace {namespace} because it is being terminated"
                        ),
                    );
                    if let Some(d) = s.details.as_mut() {
                        d.causes.push(crate::api::StatusCause {
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

    fn validate_meta(&self, rt: &ResourceType, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let name = meta::name(obj);
        if name.is_empty() {
            errs.push(FieldError::required("metadata.name", "name or generateName is required"));
        } else {
            for msg in validate_name(rt.name_rule, name) {
                errs.push(FieldError::invalid("metadata.name", name, &msg));
            }
        }
        if rt.namespaced && meta::namespace(obj).is_empty() {
            errs.push(FieldError::required("metadata.namespace", ""));
        }
        if let Some(m) = meta::metadata(obj) {
            for field in ["labels", "annotations"] {
                if let Some(v) = m.get(field) {
                    let ok = v.is_null() || v.as_object().is_some_and(|o| o.values().all(Value::is_string));
                    if !ok {
                        errs.push(FieldError::invalid(
                            &format!("metadata.{field}"),
                            &v.to_string(),
                            "must be a map of string to string",
                        ));
                    }
                }
            }
            if let Some(v) = m.get("finalizers") {
                if !(v.is_null() || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))) {
                    errs.push(FieldError::invalid("metadata.finalizers", &v.to_string(), "must be a list of strings"));
                }
            }
        }
        if let Some(Value::Object(labels)) = meta::metadata(obj).and_then(|m| m.get("labels")) {
            for (k, v) in labels {
                if let Some(p) = crate::selector::label_key_problem(k) {
                    errs.push(FieldError::invalid("metadata.labels", k, &p));
                }
                let v = v.as_str().unwrap_or("");
                if let Some(p) = crate::selector::label_value_problem(v) {
                    errs.push(FieldError::invalid("metadata.labels", v, &p));
                }
            }
        }
        errs
    }

    /// POST: create an object in `namespace` (empty for cluster scope).
    pub fn create(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        body: &[u8],
        opts: WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Body, Status> {
        let dry_run = opts.dry_run;
        let mut obj = Self::decode_body(rt, body, opts.field_validation, warnings)?;
        let mut value = Value::Object(std::mem::take(&mut obj));
        {
            set_namespace(rt, &mut value, namespace)?;
            let m = meta::metadata_mut(&mut value);
            if m.get("resourceVersion").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
                return Err(Status::bad_request("resourceVersion should not be set on objects to be created"));
            }
            let has_name = m.get("name").and_then(Value::as_str).is_some_and(|s| !s.is_empty());
            if !has_name {
                if let Some(base) = m.get("generateName").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                    let base: String = base.chars().take(58).collect();
                    let name = format!("{base}{}", self.rng.name_suffix());
                    m.insert("name".into(), json!(name));
                }
            }
            for k in ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] {
                m.shift_remove(k);
            }
            m.insert("uid".into(), json!(self.rng.uuid()));
            m.insert("creationTimestamp".into(), json!(self.now.rfc3339()));
            if rt.tracks_generation {
                m.insert("generation".into(), json!(1));
            } else {
                m.shift_remove("generation");
            }
        }
        super::defaults::apply(rt, &mut value);
        if let Value::Object(o) = &mut value {
            rules::prepare_for_create(rt, o);
        }
        let name = meta::name(&value).to_string();
        let mut errs = self.validate_meta(rt, &value);
        errs.extend(super::validation::validate(rt, &value));
        if (rt.group, rt.kind) == ("", "Service") && errs.is_empty() {
            errs.extend(self.allocate_service(&mut value));
        }
        if !errs.is_empty() {
            return Err(Status::invalid(rt.group, rt.kind, &name, &errs));
        }
        self.check_namespace(rt, namespace, &name)?;
        if !opts.applied {
            crate::apply::record_update(&writer(rt, &opts, &self.now.rfc3339()), None, &mut value);
        }
        let k = key(rt, namespace, &name);
        if dry_run {
            if self.storage.get(&k, self.storage.revision()).ok().flatten().is_some() {
                return Err(Status::already_exists(rt.group, rt.resource, &name));
            }
            meta::canonicalize(&mut value);
            return Ok(Body::Value(value));
        }
        let attrs = rules::attrs(rt, &value);
        self.storage.create(&k, value, attrs, self.now).map(Body::Object).map_err(|e| storage_status(rt, &name, e))
    }

    /// PUT: replace an object (or its status, when `status` is set).
    /// Returns the body and whether the object was created.
    pub fn update(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        body: &[u8],
        opts: WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<(Body, bool), Status> {
        let (dry_run, status) = (opts.dry_run, opts.status);
        let obj = Self::decode_body(rt, body, opts.field_validation, warnings)?;
        let mut value = Value::Object(obj);
        let body_name = meta::name(&value).to_string();
        if body_name != name {
            return Err(Status::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        set_namespace(rt, &mut value, namespace)?;
        let k = key(rt, namespace, name);
        let head = self.storage.revision();
        let current = self.storage.get(&k, head).map_err(|e| storage_status(rt, name, e))?;
        let Some((cur_rev, current)) = current else {
            if rt.allow_create_on_update && !status {
                let body = serde_json::to_vec(&value).unwrap_or_default();
                let opts = WriteOptions { field_validation: FieldValidation::Ignore, status: false, ..opts.clone() };
                return self.create(rt, namespace, &body, opts, warnings).map(|b| (b, true));
            }
            return Err(Status::not_found(rt.group, rt.resource, name));
        };
        let old = current.value();
        let expect = match meta::meta_str(&value, "resourceVersion").filter(|s| !s.is_empty()) {
            Some(rv) => Some(parse_rv(rv).map_err(|_| {
                Status::invalid(
                    rt.group,
                    rt.kind,
                    name,
                    &[FieldError::invalid("metadata.resourceVersion", rv, "must be a valid resource version")],
                )
            })?),
            None => None,
        };
        if let Some(uid) = meta::meta_str(&value, "uid").filter(|s| !s.is_empty()) {
            let cur_uid = meta::meta_str(&old, "uid").unwrap_or("");
            if uid != cur_uid {
                return Err(Status::conflict(
                    rt.group,
                    rt.resource,
                    name,
                    &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {cur_uid}"),
                ));
            }
        }
        if expect.is_some_and(|e| e != cur_rev) {
            return Err(storage_status(rt, name, StorageError::Conflict { key: k, current: cur_rev }));
        }
        // What the client may not change: identity, timestamps, and either
        // the status (main resource) or everything but the status.
        let mut new = if status {
            let mut n = old.clone();
            if let (Value::Object(n), Some(st)) = (&mut n, value.get("status")) {
                n.insert("status".into(), st.clone());
            }
            n
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
            let old_meta = meta::metadata(&old).cloned().unwrap_or_default();
            let m = meta::metadata_mut(&mut new);
            for f in [
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generateName",
                "generation",
            ] {
                match old_meta.get(f) {
                    Some(v) => m.insert(f.into(), v.clone()),
                    None => m.shift_remove(f),
                };
            }
            if rt.namespaced {
                m.insert("namespace".into(), json!(namespace));
            }
        }
        if !status {
            super::defaults::apply(rt, &mut new);
            if (rt.group, rt.kind) == ("", "Service") {
                keep_allocated(&old, &mut new);
            }
        }
        if rt.tracks_generation && rules::spec_changed(&old, &new) {
            let g = old.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(0);
            meta::metadata_mut(&mut new).insert("generation".into(), json!(g + 1));
        }
        let mut errs = self.validate_meta(rt, &new);
        if !status {
            errs.extend(super::validation::validate(rt, &new));
        }
        if !errs.is_empty() {
            return Err(Status::invalid(rt.group, rt.kind, name, &errs));
        }
        if !opts.applied {
            crate::apply::record_update(&writer(rt, &opts, &self.now.rfc3339()), Some(&old), &mut new);
        }
        if dry_run {
            // What would be stored, at the revision it has now.
            meta::metadata_mut(&mut new).insert("resourceVersion".into(), json!(cur_rev.to_string()));
            meta::canonicalize(&mut new);
            return Ok((Body::Value(new), false));
        }
        // An update that empties the finalizers of a terminating object
        // completes its deletion instead of writing it.
        let terminating = new.pointer("/metadata/deletionTimestamp").is_some_and(|v| !v.is_null());
        if terminating && meta::finalizers(&new).is_empty() && !self.has_spec_finalizers(rt, &new) {
            self.storage.delete(&k, Some(cur_rev), self.now).map_err(|e| storage_status(rt, name, e))?;
            meta::canonicalize(&mut new);
            return Ok((Body::Value(new), false));
        }
        if new == old {
            // No change: no write, no event, the stored object answers.
            return Ok((Body::Object(current), false));
        }
        let attrs = rules::attrs(rt, &new);
        self.storage
            .update(&k, Some(cur_rev), new, attrs, self.now)
            .map(|o| (Body::Object(o), false))
            .map_err(|e| storage_status(rt, name, e))
    }

    /// Gives a new Service its cluster IP and node ports (picked from the
    /// seeded source, never one in use), or refuses ones already taken.
    fn allocate_service(&mut self, svc: &mut Value) -> Vec<FieldError> {
        let services = super::BUILTIN.iter().find(|r| (r.group, r.kind) == ("", "Service"));
        let mut ips = std::collections::HashSet::new();
        let mut node_ports = std::collections::HashSet::new();
        if let Some(rt) = services {
            if let Ok(page) =
                self.storage.list(&rt.prefix(), self.storage.revision(), &ListStart::Beginning, None, None)
            {
                for s in page.items {
                    let v = s.value();
                    if let Some(ip) = v.pointer("/spec/clusterIP").and_then(Value::as_str) {
                        ips.insert(ip.to_string());
                    }
                    for p in v.pointer("/spec/ports").and_then(Value::as_array).into_iter().flatten() {
                        if let Some(n) = p.get("nodePort").and_then(Value::as_i64) {
                            node_ports.insert(n);
                        }
                    }
                }
            }
        }
        let Some(spec) = svc.get_mut("spec").and_then(Value::as_object_mut) else { return Vec::new() };
        let kind = spec.get("type").and_then(Value::as_str).unwrap_or("ClusterIP").to_string();
        if kind == "ExternalName" {
            return Vec::new();
        }
        let wanted = spec.get("clusterIP").and_then(Value::as_str).unwrap_or("").to_string();
        match wanted.as_str() {
            "None" => {
                spec.insert("clusterIPs".into(), json!(["None"]));
            }
            "" => {
                // 10.96.0.0/12, as kubeadm's default service range.
                let ip = loop {
                    let offset = 1 + (self.rng.next_u64() % ((1 << 20) - 2)) as u32;
                    let n = (10u32 << 24 | 96 << 16) + offset;
                    let ip = format!("{}.{}.{}.{}", n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255);
                    if !ips.contains(&ip) {
                        break ip;
                    }
                };
                spec.insert("clusterIP".into(), json!(ip));
                spec.insert("clusterIPs".into(), json!([ip]));
            }
            ip if ips.contains(ip) => {
                return vec![FieldError::invalid_raw(
                    "spec.clusterIPs",
                    &format!("[]string{{\"{ip}\"}}"),
                    &format!("failed to allocate IP {ip}: provided IP is already allocated"),
                )];
            }
            ip => {
                spec.insert("clusterIPs".into(), json!([ip]));
            }
        }
        if kind == "NodePort" || kind == "LoadBalancer" {
            if let Some(Value::Array(ports)) = spec.get_mut("ports") {
                for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                    if p.get("nodePort").and_then(Value::as_i64).is_none() {
                        let n = loop {
                            let n = 30000 + (self.rng.next_u64() % 2768) as i64;
                            if node_ports.insert(n) {
                                break n;
                            }
                        };
                        p.insert("nodePort".into(), json!(n));
                    }
                }
            }
        }
        Vec::new()
    }

    fn has_spec_finalizers(&self, rt: &ResourceType, obj: &Value) -> bool {
        rules::is_namespaces(rt)
            && obj.pointer("/spec/finalizers").and_then(Value::as_array).is_some_and(|a| !a.is_empty())
    }

    /// DELETE of one object.
    pub fn delete(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Body, Status> {
        let mut errs = Vec::new();
        if let Some(p) = &opts.propagation_policy {
            if !["Foreground", "Background", "Orphan"].contains(&p.as_str()) {
                errs.push(FieldError::not_supported(
                    "propagationPolicy",
                    p,
                    &["Foreground", "Background", "Orphan", "nil"],
                ));
            }
            if opts.orphan_dependents.is_some() {
                errs.push(FieldError::invalid(
                    "propagationPolicy",
                    p,
                    "orphanDependents and deletionPropagation cannot be both set",
                ));
            }
        }
        if opts.grace_period_seconds.is_some_and(|g| g < 0) {
            errs.push(FieldError::invalid(
                "gracePeriodSeconds",
                &opts.grace_period_seconds.unwrap_or(0).to_string(),
                "must be greater than or equal to 0",
            ));
        }
        if !errs.is_empty() {
            return Err(Status::invalid("meta.k8s.io", "DeleteOptions", "", &errs));
        }
        let k = key(rt, namespace, name);
        let (cur_rev, current) = self
            .storage
            .get(&k, self.storage.revision())
            .map_err(|e| storage_status(rt, name, e))?
            .ok_or_else(|| Status::not_found(rt.group, rt.resource, name))?;
        let old = current.value();
        if let Some(uid) = &opts.precondition_uid {
            let cur = meta::meta_str(&old, "uid").unwrap_or("");
            if uid != cur {
                return Err(Status::conflict(
                    rt.group,
                    rt.resource,
                    name,
                    &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {cur}"),
                ));
            }
        }
        if let Some(rv) = &opts.precondition_rv {
            let cur = meta::meta_str(&old, "resourceVersion").unwrap_or("");
            if rv != cur {
                return Err(Status::conflict(
                    rt.group,
                    rt.resource,
                    name,
                    &format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {cur}"
                ),
                ));
            }
        }
        let finalizers = meta::finalizers(&old);
        let orphan = opts.propagation_policy.as_deref() == Some("Orphan") || opts.orphan_dependents == Some(true);
        let foreground = opts.propagation_policy.as_deref() == Some("Foreground");
        let background =
            opts.propagation_policy.as_deref() == Some("Background") || opts.orphan_dependents == Some(false);
        let mut want = finalizers.clone();
        if orphan {
            want.retain(|f| f != "foregroundDeletion");
            if !want.iter().any(|f| f == "orphan") {
                want.push("orphan".into());
            }
        } else if foreground {
            want.retain(|f| f != "orphan");
            if !want.iter().any(|f| f == "foregroundDeletion") {
                want.push("foregroundDeletion".into());
            }
        } else if background {
            want.retain(|f| f != "orphan" && f != "foregroundDeletion");
        }
        let terminating = old.pointer("/metadata/deletionTimestamp").is_some_and(|v| !v.is_null());
        let graceful = !want.is_empty() || self.has_spec_finalizers(rt, &old);
        if !graceful {
            if opts.dry_run {
                return Ok(self.finalize_delete(rt, current));
            }
            let last = self.storage.delete(&k, Some(cur_rev), self.now).map_err(|e| storage_status(rt, name, e))?;
            return Ok(self.finalize_delete(rt, last));
        }
        if terminating && want == finalizers {
            return Ok(Body::Object(current));
        }
        let mut new = old.clone();
        {
            let m = meta::metadata_mut(&mut new);
            if !terminating {
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
        if rules::is_namespaces(rt) {
            if let Some(Value::Object(st)) = new.get_mut("status") {
                st.insert("phase".into(), json!("Terminating"));
            }
        }
        if opts.dry_run {
            meta::canonicalize(&mut new);
            return Ok(Body::Value(new));
        }
        if rules::is_namespaces(rt) {
            self.terminating.insert(name.to_string());
        }
        let attrs = rules::attrs(rt, &new);
        let stored =
            self.storage.update(&k, Some(cur_rev), new, attrs, self.now).map_err(|e| storage_status(rt, name, e))?;
        Ok(Body::Object(stored))
    }

    /// The answer to an immediate delete: the object, or a Success Status
    /// whose details name it (with the resource in `kind`, as upstream does).
    fn finalize_delete(&self, rt: &ResourceType, last: Arc<StoredObject>) -> Body {
        if rt.return_deleted_object {
            return Body::Object(last);
        }
        let v = last.value();
        Body::Status(Box::new(Status::success(StatusDetails {
            name: meta::name(&v).to_string(),
            group: rt.group.to_string(),
            kind: rt.resource.to_string(),
            uid: meta::meta_str(&v, "uid").unwrap_or("").to_string(),
            ..Default::default()
        })))
    }

    /// Advances the simulated controllers this core includes: today, the
    /// namespace lifecycle (delete a terminating namespace's content, then
    /// the namespace once it is empty).
    pub fn reconcile(&mut self) {
        let pending: Vec<String> = self.terminating.iter().cloned().collect();
        for ns in pending {
            let mut remaining = 0usize;
            for rt in super::BUILTIN.iter().filter(|r| r.namespaced) {
                let prefix = list_prefix(rt, Some(&ns));
                let Ok(page) = self.storage.list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None)
                else {
                    continue;
                };
                for obj in page.items {
                    let v = obj.value();
                    let name = meta::name(&v).to_string();
                    let already = v.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null());
                    if !already {
                        let _ = self.delete(rt, &ns, &name, &DeleteOptions::default());
                    }
                    if self.storage.get(&key(rt, &ns, &name), self.storage.revision()).ok().flatten().is_some() {
                        remaining += 1;
                    }
                }
            }
            if remaining > 0 {
                continue;
            }
            let ns_rt = super::kinds::namespaces();
            let k = key(ns_rt, "", &ns);
            let Ok(Some((rev, obj))) = self.storage.get(&k, self.storage.revision()) else {
                self.terminating.remove(&ns);
                continue;
            };
            let mut v = obj.value();
            if let Some(Value::Object(spec)) = v.get_mut("spec") {
                spec.shift_remove("finalizers");
            }
            if meta::finalizers(&v).is_empty() {
                let _ = self.storage.delete(&k, Some(rev), self.now);
                self.terminating.remove(&ns);
            } else {
                // Metadata finalizers remain: the namespace waits for them.
                let attrs = rules::attrs(ns_rt, &v);
                if self.storage.update(&k, Some(rev), v, attrs, self.now).is_ok() {
                    self.terminating.remove(&ns);
                }
            }
        }
    }
}
