//! Serving what CustomResourceDefinitions define, as kube-apiserver's
//! apiextensions server does, inside the server (its controllers are the
//! apiserver's own, not kube-controller-manager's):
//!
//! - the naming controller accepts a definition's names unless another
//!   definition of the group holds them (`NamesAccepted`, and `Established`
//!   False `Installing`), then the establishing controller marks it
//!   `Established` — two status writes by `kube-apiserver`, as upstream;
//! - a definition whose names are accepted is served: one resource per
//!   served version, over one storage (its storage version's; other
//!   versions rewrite `apiVersion`, upstream's `None` conversion), through
//!   the same generic store as every built-in, with a strategy built from
//!   the definition;
//! - a deleted definition waits on its cleanup finalizer while its objects
//!   are deleted (each as a DELETE would, finalizers honoured), then goes,
//!   and its resource with it.
//!
//! The registry notices definitions changing through a watch cursor on
//! their storage prefix, polled after every request (nothing to do costs
//! one poll).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::super::kinds::crd::{self, make_condition, set_condition, CLEANUP_FINALIZER};
use super::super::options::{DeleteOptions, FieldValidation, Subresource, Verb, WriteOptions};
use super::super::resource::{Conversion, ConversionRef, ResourceDefinition, ResourceType, StoredAs};
use super::super::strategy::{SelectableField, Strategy, StrategyRef};
use super::super::table::{Column, Desc, META, NAME};
use super::super::{keys, schema_validation, Registry};
use super::{is_terminating, Recorded};
use crate::api::jsonpath;
use crate::api::meta::NameRule;
use crate::api::{FieldError, GroupVersionResource};
use crate::clock::{human_duration, parse_rfc3339, SimTime};
use crate::storage::{ListStart, Storage, WatchCursor};

/// What the registry keeps of the definitions it serves.
#[derive(Default)]
pub struct CustomResources {
    cursor: Option<WatchCursor>,
    /// Definition name → the resources served for it.
    served: BTreeMap<String, Vec<GroupVersionResource>>,
    /// A definition is being deleted: look again after every request (its
    /// objects' finalizers may have gone).
    terminating: bool,
}

const MANAGER: &str = "kube-apiserver";

/// A custom resource's rules, from its definition's version: its printer
/// columns and its selectable fields.
struct CustomStrategy {
    columns: Vec<Column>,
    /// Each column's JSONPath and type (after the name column).
    paths: Vec<(String, &'static str)>,
    fields: Vec<SelectableField>,
    /// The version's schema as the OpenAPI documents publish it.
    published: Option<Value>,
    /// The same as the server reads it (`structural`).
    schema: Option<Value>,
    /// The definition is being deleted: no creates.
    terminating: bool,
    /// The scale subresource's paths (dotted, no leading dot).
    scale: Option<(String, String, Option<String>)>,
    /// The schema declares a `default` somewhere: objects are defaulted
    /// when read too (one stored before the default was added gets it).
    has_defaults: bool,
}

/// Does a schema declare a default anywhere?
fn declares_default(node: &Value) -> bool {
    match node {
        Value::Object(m) => m.contains_key("default") || m.values().any(declares_default),
        Value::Array(a) => a.iter().any(declares_default),
        _ => false,
    }
}

/// A published schema as the store's schema walks read it: an object with
/// neither properties nor additional properties (nor
/// `x-kubernetes-preserve-unknown-fields`) has no fields at all, so what
/// is under it is unknown (pruned), as upstream's structural pruning does;
/// the generated built-in schemas read such an object as free-form.
fn structural(mut node: Value) -> Value {
    if let Some(m) = node.as_object_mut() {
        let free = m.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(true);
        let object = m.get("type").and_then(Value::as_str) == Some("object");
        if object && !free && !m.contains_key("properties") && !m.contains_key("additionalProperties") {
            m.insert("properties".into(), json!({}));
        }
        for k in ["items", "additionalProperties"] {
            if let Some(child) = m.get_mut(k) {
                *child = structural(child.take());
            }
        }
        if let Some(Value::Object(props)) = m.get_mut("properties") {
            for (_, p) in props.iter_mut() {
                *p = structural(p.take());
            }
        }
    }
    node
}

/// A version's published schema: its `openAPIV3Schema` with the type and
/// object metadata fields every kind has, and its group-version-kind.
fn published_schema(version: &Value, group: &str, kind: &str) -> Option<Value> {
    let mut schema = version.pointer("/schema/openAPIV3Schema").filter(|s| s.is_object())?.clone();
    // The type fields and metadata as the built-in kinds document them.
    let builtin = crate::schema::schemas().definition("io.k8s.api.core.v1.ConfigMap");
    let prop = |name: &str| {
        let mut p = builtin.and_then(|d| d.pointer(&format!("/properties/{name}"))).cloned().unwrap_or(json!({}));
        if let Some(o) = p.as_object_mut() {
            o.remove("enum");
        }
        p
    };
    let props = schema.as_object_mut()?.entry("properties").or_insert_with(|| json!({}));
    if let Some(props) = props.as_object_mut() {
        props.insert("apiVersion".into(), prop("apiVersion"));
        props.insert("kind".into(), prop("kind"));
        props.insert("metadata".into(), prop("metadata"));
    }
    let version_name = version["name"].as_str().unwrap_or("");
    schema["x-kubernetes-group-version-kind"] = json!([{"group": group, "kind": kind, "version": version_name}]);
    let fields: Vec<Value> = version["selectableFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["jsonPath"].as_str())
        .map(|p| json!({"fieldPath": p.trim_start_matches('.')}))
        .collect();
    if !fields.is_empty() {
        schema["x-kubernetes-selectable-fields"] = Value::Array(fields);
    }
    Some(schema)
}

const TYPES: &[&str] = &["boolean", "date", "integer", "number", "string"];
const FORMATS: &[&str] = &["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

fn known(list: &[&'static str], v: &str) -> &'static str {
    list.iter().find(|t| **t == v).copied().unwrap_or("")
}

impl CustomStrategy {
    fn new(version: &Value, group: &str, kind: &str, terminating: bool) -> CustomStrategy {
        let mut columns = vec![NAME];
        let mut paths = Vec::new();
        let given = version["additionalPrinterColumns"].as_array().cloned().unwrap_or_default();
        if given.is_empty() {
            columns.push(Column {
                name: Cow::Borrowed("Age"),
                ty: "date",
                format: "",
                priority: 0,
                desc: Desc::Field(META, "creationTimestamp"),
            });
            paths.push((".metadata.creationTimestamp".to_string(), "date"));
        }
        for c in &given {
            let path = c["jsonPath"].as_str().unwrap_or("").to_string();
            let ty = known(TYPES, c["type"].as_str().unwrap_or(""));
            let description = match c["description"].as_str().unwrap_or("") {
                "" => format!("Custom resource definition column (in JSONPath format): {path}"),
                d => d.to_string(),
            };
            columns.push(Column {
                name: Cow::Owned(c["name"].as_str().unwrap_or("").to_string()),
                ty,
                format: known(FORMATS, c["format"].as_str().unwrap_or("")),
                priority: c["priority"].as_i64().unwrap_or(0) as i32,
                desc: Desc::Text(Cow::Owned(description)),
            });
            paths.push((path, ty));
        }
        let fields = version["selectableFields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["jsonPath"].as_str())
            .map(|p| {
                let name = p.trim_start_matches('.').to_string();
                SelectableField { name: Cow::Owned(name.clone()), path: Cow::Owned(name), zero: Cow::Borrowed("") }
            })
            .collect();
        let published = published_schema(version, group, kind);
        let schema = published.clone().map(structural);
        let scale = version.pointer("/subresources/scale").filter(|s| s.is_object()).map(|s| {
            let path = |k: &str| s[k].as_str().unwrap_or("").trim_start_matches('.').to_string();
            let selector = s["labelSelectorPath"].as_str().map(|p| p.trim_start_matches('.').to_string());
            (path("specReplicasPath"), path("statusReplicasPath"), selector)
        });
        let has_defaults = published.as_ref().is_some_and(declares_default);
        CustomStrategy { columns, paths, fields, published, schema, terminating, scale, has_defaults }
    }
}

/// A printer column's cell, as upstream's table convertor makes it from
/// the first value its path selects (null where there is none, or where
/// it is not of the column's type).
fn cell(v: Option<&Value>, ty: &str, now: SimTime) -> Value {
    let Some(v) = v else { return Value::Null };
    match ty {
        "integer" => v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)).map_or(Value::Null, Value::from),
        "number" => v.as_f64().map_or(Value::Null, Value::from),
        "boolean" => v.as_bool().map_or(Value::Null, Value::from),
        "date" => match v.as_str() {
            Some(t) => Value::from(parse_rfc3339(t).map_or("<invalid>".to_string(), |t| human_duration(now.0 - t))),
            None => Value::Null,
        },
        _ => match v {
            Value::String(s) => Value::from(s.clone()),
            Value::Null => Value::Null,
            other => Value::from(other.to_string()),
        },
    }
}

impl Strategy for CustomStrategy {
    fn columns(&self) -> &[Column] {
        &self.columns
    }

    fn cells(&self, obj: &Value, now: SimTime) -> Vec<Value> {
        let mut out = vec![Value::from(obj.pointer("/metadata/name").and_then(Value::as_str).unwrap_or(""))];
        for (path, ty) in &self.paths {
            let first = jsonpath::select(obj, path).and_then(|found| found.first().copied());
            out.push(cell(first, ty, now));
        }
        out
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        &self.fields
    }

    fn schema(&self) -> Option<&Value> {
        self.schema.as_ref()
    }

    fn scale_paths(&self) -> Option<(&str, &str, Option<&str>)> {
        self.scale.as_ref().map(|(spec, status, selector)| (spec.as_str(), status.as_str(), selector.as_deref()))
    }

    fn create_forbidden(&self) -> Option<&str> {
        self.terminating.then_some("create not allowed while custom resource definition is terminating")
    }

    /// A custom resource starts with no status at all (upstream's
    /// strategy deletes what the create sent; an unstructured object has no
    /// zero status to hold), so its first status write adds `status`.
    fn initial_status(&self, _obj: &serde_json::Map<String, Value>) -> Value {
        Value::Null
    }

    /// A status write changes no metadata (upstream's
    /// `ResetObjectMetaForStatus` for custom resources).
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels", "annotations", "finalizers", "ownerReferences", "generateName", "deletionGracePeriodSeconds"]
    }

    /// The schema's defaults, top-down.
    fn defaults(&self, obj: &mut serde_json::Map<String, Value>) {
        if let Some(schema) = &self.published {
            schema_validation::default_object(schema, obj);
        }
    }

    fn defaults_on_read(&self) -> bool {
        self.has_defaults
    }

    /// The schema's value validations.
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(schema) = &self.published {
            schema_validation::validate(schema, obj, "", &mut errs);
        }
        errs
    }

    fn published_schema(&self) -> Option<&Value> {
        self.published.as_ref()
    }
}

/// A version other than the storage version: the same object, another
/// `apiVersion` (upstream's `None` strategy).
struct ApiVersionConversion {
    served: String,
    stored: String,
    /// The version's selectable fields (beyond the metadata ones).
    fields: Vec<String>,
}

impl Conversion for ApiVersionConversion {
    fn to_storage(&self, mut obj: Value) -> Value {
        if let Some(o) = obj.as_object_mut() {
            o.insert("apiVersion".into(), json!(self.stored));
        }
        obj
    }

    fn to_served(&self, mut obj: Value) -> Value {
        if let Some(o) = obj.as_object_mut() {
            o.insert("apiVersion".into(), json!(self.served));
        }
        obj
    }

    fn field_label<'a>(&self, label: &'a str) -> Option<Cow<'a, str>> {
        (matches!(label, "metadata.name" | "metadata.namespace") || self.fields.iter().any(|f| f == label))
            .then_some(Cow::Borrowed(label))
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// The resources a definition serves (none until a name is accepted).
fn resources_of(def: &Value) -> Vec<ResourceType> {
    if !(crd::is_true(def, "NamesAccepted") || crd::is_true(def, "Established")) {
        return Vec::new();
    }
    let names = &def["status"]["acceptedNames"];
    let text = |k: &str| names[k].as_str().unwrap_or("").to_string();
    let (plural, singular, kind) = (text("plural"), text("singular"), text("kind"));
    if plural.is_empty() || kind.is_empty() || text("listKind").is_empty() {
        return Vec::new();
    }
    let group = def["spec"]["group"].as_str().unwrap_or("").to_string();
    let Some(storage) = crd::storage_version(def).map(str::to_string) else { return Vec::new() };
    let api_version = |v: &str| format!("{group}/{v}");
    let versions = def["spec"]["versions"].as_array().cloned().unwrap_or_default();
    versions
        .iter()
        .filter(|v| v["served"] == true)
        .map(|v| {
            let version = v["name"].as_str().unwrap_or("").to_string();
            let strategy = CustomStrategy::new(v, &group, &kind, is_terminating(def));
            let stored_as = (version != storage).then(|| StoredAs {
                group: Cow::Owned(group.clone()),
                resource: Cow::Owned(plural.clone()),
                conversion: ConversionRef::Shared(Arc::new(ApiVersionConversion {
                    served: api_version(&version),
                    stored: api_version(&storage),
                    fields: strategy.fields.iter().map(|f| f.name.to_string()).collect(),
                })),
            });
            ResourceType::new(ResourceDefinition {
                gvr: GroupVersionResource::new(&group, &version, &plural),
                kind: kind.clone(),
                singular: singular.clone(),
                namespaced: def["spec"]["scope"] == "Namespaced",
                short_names: strings(&names["shortNames"]),
                categories: strings(&names["categories"]),
                verbs: Verb::STANDARD.to_vec(),
                status_subresource: v.pointer("/subresources/status").is_some_and(|s| !s.is_null()),
                scale_subresource: v.pointer("/subresources/scale").is_some_and(Value::is_object),
                finalize_subresource: false,
                side: &[],
                name_rule: NameRule::Dns1123Subdomain,
                return_deleted_object: false,
                allow_create_on_update: false,
                tracks_generation: true,
                protobuf: false,
                stored_as,
                strategy: StrategyRef::Shared(Arc::new(strategy)),
            })
        })
        .collect()
}

/// The names a definition may have, given what the group's other
/// definitions hold (upstream's naming controller): the accepted names
/// and the NamesAccepted condition (status, reason, message).
fn accept_names(def: &Value, others: &[&Value]) -> (Value, (&'static str, &'static str, String)) {
    let requested = &def["spec"]["names"];
    let accepted = &def["status"]["acceptedNames"];
    let mut resources: Vec<String> = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for o in others {
        let n = &o["status"]["acceptedNames"];
        for k in ["plural", "singular"] {
            resources.extend(n[k].as_str().filter(|s| !s.is_empty()).map(str::to_string));
        }
        resources.extend(strings(&n["shortNames"]));
        for k in ["kind", "listKind"] {
            kinds.extend(n[k].as_str().filter(|s| !s.is_empty()).map(str::to_string));
        }
    }
    let mut out = json!({});
    let mut cond = ("True", "NoConflicts", "no conflicts found".to_string());
    type Cond = (&'static str, &'static str, String);
    let one = |field: &str, pool: &[String], reason: &'static str, out: &mut Value, cond: &mut Cond| {
        let want = requested[field].as_str().unwrap_or("");
        let now = accepted[field].as_str().unwrap_or("");
        if want == now || !pool.iter().any(|p| p == want) {
            out[field] = json!(want);
        } else {
            if !now.is_empty() {
                out[field] = json!(now);
            }
            *cond = ("False", reason, format!("\"{want}\" is already in use"));
        }
    };
    one("plural", &resources, "PluralConflict", &mut out, &mut cond);
    one("singular", &resources, "SingularConflict", &mut out, &mut cond);
    let short = strings(&requested["shortNames"]);
    let taken: Vec<&String> = short.iter().filter(|s| resources.contains(s)).collect();
    if taken.is_empty() {
        if !short.is_empty() {
            out["shortNames"] = json!(short);
        }
    } else {
        let msgs: Vec<String> = taken.iter().map(|s| format!("\"{s}\" is already in use")).collect();
        let message = if msgs.len() == 1 { msgs[0].clone() } else { format!("[{}]", msgs.join(", ")) };
        if let Some(kept) = accepted.get("shortNames").filter(|v| !v.is_null()) {
            out["shortNames"] = kept.clone();
        }
        cond = ("False", "ShortNamesConflict", message);
    }
    one("kind", &kinds, "KindConflict", &mut out, &mut cond);
    one("listKind", &kinds, "ListKindConflict", &mut out, &mut cond);
    let categories = strings(&requested["categories"]);
    if !categories.is_empty() {
        out["categories"] = json!(categories);
    }
    // Go's field order, and the two fields that are never omitted.
    let mut names = serde_json::Map::new();
    for k in ["plural", "singular", "shortNames", "kind", "listKind", "categories"] {
        match out.get(k) {
            Some(v) => {
                names.insert(k.into(), v.clone());
            }
            None if k == "plural" || k == "kind" => {
                names.insert(k.into(), json!(""));
            }
            None => {}
        }
    }
    (Value::Object(names), cond)
}

impl<S: Storage> Registry<S> {
    /// Brings the served custom resources in line with the stored
    /// definitions; called after every request.
    pub fn sync_custom_resources(&mut self) {
        // (Whether a definition changed first: that is all most requests
        // need, and it costs no look-up.)
        let changed = match self.custom.cursor.as_mut() {
            None => true,
            Some(c) => match self.storage.poll(c, usize::MAX) {
                Ok(events) => !events.is_empty(),
                Err(_) => true,
            },
        };
        if !changed && !self.custom.terminating {
            return;
        }
        let Some(crd_rt) = self.resources.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions").cloned()
        else {
            return;
        };
        let prefix = keys::prefix(&crd_rt, None);
        // Each pass may write statuses, which the next pass reads back;
        // two naming steps and a cleanup are the most one change needs.
        for _ in 0..6 {
            if !self.reconcile_definitions(&crd_rt) {
                break;
            }
        }
        self.custom.cursor = self.storage.watch(&prefix, self.storage.revision()).ok();
    }

    fn definitions(&self, crd_rt: &ResourceType) -> Vec<Value> {
        let prefix = keys::prefix(crd_rt, None);
        self.storage
            .list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None)
            .map(|page| page.items.iter().map(|o| o.value()).collect())
            .unwrap_or_default()
    }

    /// One pass over every definition; whether anything was written.
    fn reconcile_definitions(&mut self, crd_rt: &Arc<ResourceType>) -> bool {
        let defs = self.definitions(crd_rt);
        let mut wrote = false;
        self.custom.terminating = false;
        for def in &defs {
            let name = def["metadata"]["name"].as_str().unwrap_or("").to_string();
            if is_terminating(def) {
                self.custom.terminating = true;
                wrote |= self.clean_up(crd_rt, def, &name);
                continue;
            }
            let group = def["spec"]["group"].as_str().unwrap_or("");
            let others: Vec<&Value> =
                defs.iter().filter(|o| o["spec"]["group"] == group && o["metadata"]["name"] != name.as_str()).collect();
            wrote |= self.name_and_establish(crd_rt, def, &name, &others);
        }
        self.serve_definitions(&defs);
        wrote
    }

    /// The naming controller's step, or else the establishing one.
    fn name_and_establish(&mut self, crd_rt: &Arc<ResourceType>, def: &Value, name: &str, others: &[&Value]) -> bool {
        let now = self.now.rfc3339();
        let (names, (st, reason, message)) = accept_names(def, others);
        let mut status = def["status"].as_object().cloned().unwrap_or_default();
        let named = def["status"]["acceptedNames"] == names
            && crd::condition(def, "NamesAccepted")
                .is_some_and(|c| c["status"] == st && c["reason"] == reason && c["message"] == message.as_str());
        if !named {
            status.insert("acceptedNames".into(), names);
            set_condition(&mut status, make_condition("NamesAccepted", st, reason, &message), &now);
            let established = crd::condition(def, "Established");
            if established.is_none() {
                set_condition(
                    &mut status,
                    make_condition("Established", "False", "NotAccepted", "not all names are accepted"),
                    &now,
                );
            }
            if st == "True" && !crd::is_true(def, "Established") {
                set_condition(
                    &mut status,
                    make_condition("Established", "False", "Installing", "the initial names have been accepted"),
                    &now,
                );
            }
        } else if crd::is_true(def, "NamesAccepted") && !crd::is_true(def, "Established") {
            set_condition(
                &mut status,
                make_condition("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"),
                &now,
            );
        } else {
            return false;
        }
        self.write_definition_status(crd_rt, def, name, status)
    }

    fn write_definition_status(
        &mut self,
        crd_rt: &Arc<ResourceType>,
        def: &Value,
        name: &str,
        status: serde_json::Map<String, Value>,
    ) -> bool {
        // Go's field order for the status.
        let mut ordered = serde_json::Map::new();
        for k in ["conditions", "acceptedNames", "storedVersions"] {
            if let Some(v) = status.get(k) {
                ordered.insert(k.into(), v.clone());
            }
        }
        for (k, v) in status {
            if !ordered.contains_key(&k) {
                ordered.insert(k, v);
            }
        }
        let mut new = def.clone();
        new["status"] = Value::Object(ordered);
        let opts = WriteOptions {
            field_validation: FieldValidation::Ignore,
            field_manager: MANAGER.into(),
            subresource: Subresource::Status,
            ..WriteOptions::default()
        };
        self.update_value(crd_rt, "", name, new, &opts, Recorded::Update, None).is_ok()
    }

    /// A deleted definition: its objects go, then its finalizer.
    fn clean_up(&mut self, crd_rt: &Arc<ResourceType>, def: &Value, name: &str) -> bool {
        if !crd::is_true(def, "Terminating") && crd::condition(def, "Terminating").is_some() {
            // Instances gone and the condition written: the finalizer goes.
            return self.drop_finalizer(crd_rt, def, name);
        }
        let now = self.now.rfc3339();
        let mut status = def["status"].as_object().cloned().unwrap_or_default();
        let rt = self.custom.served.get(name).and_then(|gvrs| {
            gvrs.iter().find_map(|g| self.resources.lookup(&g.group, &g.version, &g.resource).cloned())
        });
        let Some(rt) = rt else {
            set_condition(
                &mut status,
                make_condition("Terminating", "False", "NeverEstablished", "resource was never established"),
                &now,
            );
            return self.write_definition_status(crd_rt, def, name, status);
        };
        let prefix = keys::prefix(&rt, None);
        let items: Vec<Value> = self
            .storage
            .list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None)
            .map(|p| p.items.iter().map(|o| o.value()).collect())
            .unwrap_or_default();
        if items.is_empty() {
            set_condition(
                &mut status,
                make_condition("Terminating", "False", "InstanceDeletionCompleted", "removed all instances"),
                &now,
            );
            return self.write_definition_status(crd_rt, def, name, status);
        }
        for item in items.iter().filter(|i| !is_terminating(i)) {
            let ns = item["metadata"]["namespace"].as_str().unwrap_or("");
            let n = item["metadata"]["name"].as_str().unwrap_or("");
            let _ = self.delete_one(&rt, ns, n, &DeleteOptions::default());
        }
        if crd::condition(def, "Terminating").is_some_and(|c| c["reason"] == "InstanceDeletionInProgress") {
            return false;
        }
        set_condition(
            &mut status,
            make_condition(
                "Terminating",
                "True",
                "InstanceDeletionInProgress",
                "CustomResource deletion is in progress",
            ),
            &now,
        );
        self.write_definition_status(crd_rt, def, name, status)
    }

    fn drop_finalizer(&mut self, crd_rt: &Arc<ResourceType>, def: &Value, name: &str) -> bool {
        let mut new = def.clone();
        let Some(list) = new.pointer_mut("/metadata/finalizers").and_then(Value::as_array_mut) else { return false };
        let before = list.len();
        list.retain(|f| f != CLEANUP_FINALIZER);
        if list.len() == before {
            return false;
        }
        let opts = WriteOptions {
            field_validation: FieldValidation::Ignore,
            field_manager: MANAGER.into(),
            ..WriteOptions::default()
        };
        self.update_value(crd_rt, "", name, new, &opts, Recorded::Update, None).is_ok()
    }

    /// Registers what the definitions serve, and unregisters what they no
    /// longer do.
    fn serve_definitions(&mut self, defs: &[Value]) {
        let mut wanted: BTreeMap<String, Vec<ResourceType>> = BTreeMap::new();
        for def in defs {
            let name = def["metadata"]["name"].as_str().unwrap_or("").to_string();
            wanted.insert(name, resources_of(def));
        }
        let gone: Vec<String> = self.custom.served.keys().filter(|k| !wanted.contains_key(*k)).cloned().collect();
        for name in gone {
            for gvr in self.custom.served.remove(&name).unwrap_or_default() {
                self.resources.unregister(&gvr);
            }
        }
        for (name, types) in wanted {
            for gvr in self.custom.served.remove(&name).unwrap_or_default() {
                self.resources.unregister(&gvr);
            }
            let mut gvrs = Vec::new();
            for rt in types {
                let gvr = rt.gvr.clone();
                // A built-in of the same name keeps it.
                if self.resources.register(rt).is_ok() {
                    gvrs.push(gvr);
                }
            }
            if !gvrs.is_empty() {
                self.custom.served.insert(name, gvrs);
            }
        }
    }
}
