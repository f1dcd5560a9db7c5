//! CustomResourceDefinitions (apiextensions.k8s.io/v1): upstream's v1
//! defaults, the create/update strategy of `customresourcedefinition`
//! (status reset with the storage version recorded, stored versions only
//! ever appended), the validation a CRD gets (names, group, scope,
//! versions, the structural rules of its schemas, worded and placed as
//! upstream's `ValidateCustomResourceDefinition`), and deletion through the
//! cleanup finalizer. What serving a definition means is in
//! `registry/store/custom.rs`.

use crate::sort::Order;
use serde_json::{json, Map, Value};

use super::super::strategy::Strategy;
use crate::api::meta::{validate_name, NameRule};
use crate::api::FieldError;

pub struct CustomResourceDefinition;

/// The finalizer a deleted definition waits on while its objects go.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// The version marked for storage, if exactly one is.
pub fn storage_version(crd: &Value) -> Option<&str> {
    let versions = crd.pointer("/spec/versions")?.as_array()?;
    let mut storage = versions.iter().filter(|v| v["storage"] == true);
    let first = storage.next()?;
    storage.next().is_none().then(|| first["name"].as_str()).flatten()
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// A `status.conditions` entry by type.
pub fn condition<'a>(crd: &'a Value, kind: &str) -> Option<&'a Value> {
    crd.pointer("/status/conditions")?.as_array()?.iter().find(|c| c["type"] == kind)
}

/// Whether the condition is there with status True.
pub fn is_true(crd: &Value, kind: &str) -> bool {
    condition(crd, kind).is_some_and(|c| c["status"] == "True")
}

pub use crate::api::meta::set_condition;

/// A condition as upstream writes one (its transition time set by
/// `set_condition`).
pub fn make_condition(kind: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": kind, "status": status, "lastTransitionTime": null, "reason": reason, "message": message})
}

/// The schema paths (as upstream names them in field errors) that carry
/// CEL rules, under `at`.
fn cel_rule_paths(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(o) = schema.as_object() else { return };
    if o.get("x-kubernetes-validations").and_then(Value::as_array).is_some_and(|r| !r.is_empty()) {
        out.push(format!("{at}.x-kubernetes-validations"));
    }
    for (key, value) in o {
        match (key.as_str(), value) {
            ("properties" | "patternProperties" | "definitions", Value::Object(props)) => {
                for (name, sub) in props {
                    cel_rule_paths(sub, &format!("{at}.{key}[{name}]"), out);
                }
            }
            ("items" | "additionalProperties" | "not", sub) => cel_rule_paths(sub, &format!("{at}.{key}"), out),
            ("allOf" | "anyOf" | "oneOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    cel_rule_paths(sub, &format!("{at}.{key}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
}

impl Strategy for CustomResourceDefinition {
    /// CEL rules (`x-kubernetes-validations`) are stored and published but
    /// not evaluated: each version that has them says so.
    fn warnings(&self, obj: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for (i, v) in obj.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let mut paths = Vec::new();
            if let Some(schema) = v.pointer("/schema/openAPIV3Schema") {
                cel_rule_paths(schema, &format!("spec.versions[{i}].schema.openAPIV3Schema"), &mut paths);
            }
            for p in paths {
                out.push(format!(
                    "{p}: CEL validation rules are not evaluated by kubesim: objects of this version are not checked against them"
                ));
            }
        }
        out
    }

    /// Upstream's v1 defaults: the singular and list kind from the kind,
    /// conversion `None`.
    fn defaults(&self, obj: &mut Map<String, Value>) {
        let Some(Value::Object(spec)) = obj.get_mut("spec") else { return };
        if let Some(Value::Object(names)) = spec.get_mut("names") {
            let kind = names.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
            if names.get("singular").and_then(Value::as_str).unwrap_or("").is_empty() {
                names.insert("singular".into(), json!(kind.to_lowercase()));
            }
            if !kind.is_empty() && names.get("listKind").and_then(Value::as_str).unwrap_or("").is_empty() {
                names.insert("listKind".into(), json!(format!("{kind}List")));
            }
        }
        if spec.get("conversion").is_none_or(Value::is_null) {
            spec.insert("conversion".into(), json!({"strategy": "None"}));
        }
    }

    /// The status a client sent is dropped; the storage version is
    /// recorded, and no name is accepted yet.
    fn initial_status(&self, obj: &Map<String, Value>) -> Value {
        let mut status = json!({"acceptedNames": {"plural": "", "kind": ""}});
        if let Some(v) = storage_version(&Value::Object(obj.clone())) {
            status["storedVersions"] = json!([v]);
        }
        status
    }

    /// A new storage version joins the stored ones (never leaves them).
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        let Some(v) = storage_version(new).map(str::to_string) else { return };
        let Some(status) = new.as_object_mut().map(|o| o.entry("status").or_insert_with(|| json!({}))) else { return };
        let Some(status) = status.as_object_mut() else { return };
        let stored = status.entry("storedVersions").or_insert_with(|| json!([]));
        if let Value::Array(list) = stored {
            if !list.iter().any(|s| s == v.as_str()) {
                list.push(json!(v));
            }
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validate(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let immutable = |path: &str, ptr: &str, errs: &mut Vec<FieldError>| {
            if str_at(new, ptr) != str_at(old, ptr) {
                errs.push(FieldError::invalid(path, str_at(new, ptr), "field is immutable"));
            }
        };
        immutable("spec.group", "/spec/group", &mut errs);
        immutable("spec.names.plural", "/spec/names/plural", &mut errs);
        if is_true(old, "Established") {
            immutable("spec.scope", "/spec/scope", &mut errs);
            immutable("spec.names.kind", "/spec/names/kind", &mut errs);
        }
        errs
    }

    /// The first DELETE does not remove it: its objects must go first.
    fn has_pending_finalizers(&self, obj: &Value) -> bool {
        obj.pointer("/metadata/deletionTimestamp").is_none_or(Value::is_null)
    }

    fn prepare_for_delete(&self, obj: &mut Value) {
        let Some(o) = obj.as_object_mut() else { return };
        if let Value::Object(m) = o.entry("metadata").or_insert_with(|| json!({})) {
            let list = m.entry("finalizers").or_insert_with(|| json!([]));
            if let Value::Array(a) = list {
                if !a.iter().any(|f| f == CLEANUP_FINALIZER) {
                    a.push(json!(CLEANUP_FINALIZER));
                }
            }
        }
        let now = o
            .get("metadata")
            .and_then(|m| m.get("deletionTimestamp"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if let Value::Object(status) = o.entry("status").or_insert_with(|| json!({})) {
            set_condition(
                status,
                make_condition(
                    "Terminating",
                    "True",
                    "InstanceDeletionPending",
                    "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
                ),
                &now,
            );
        }
    }
}

fn dns1035(path: &str, value: &str, errs: &mut Vec<FieldError>) {
    let problems = validate_name(NameRule::Dns1035Label, value);
    if !problems.is_empty() {
        errs.push(FieldError::invalid(path, value, &problems.join(",")));
    }
}

/// `ValidateCustomResourceDefinition`, for what v1 clients can send.
fn validate(crd: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let group = str_at(crd, "/spec/group");
    let plural = str_at(crd, "/spec/names/plural");
    let name = str_at(crd, "/metadata/name");
    if name != format!("{plural}.{group}") {
        errs.push(FieldError::invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
    }
    if group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else {
        let problems = validate_name(NameRule::Dns1123Subdomain, group);
        if !problems.is_empty() {
            errs.push(FieldError::invalid("spec.group", group, &problems.join(",")));
        } else if !group.contains('.') {
            errs.push(FieldError::invalid("spec.group", group, "should be a domain with at least one dot"));
        }
    }
    match str_at(crd, "/spec/scope") {
        "" => errs.push(FieldError::required("spec.scope", "")),
        "Cluster" | "Namespaced" => {}
        other => errs.push(FieldError::not_supported("spec.scope", other, &["Cluster", "Namespaced"])),
    }
    match str_at(crd, "/spec/conversion/strategy") {
        "" | "None" => {}
        // kubesim runs no webhooks: refused here, where upstream would
        // call the webhook to convert between versions.
        "Webhook" => errs.push(FieldError::forbidden(
            "spec.conversion.strategy",
            "kubesim does not call conversion webhooks: only \"None\" is supported (served versions differ only in apiVersion)",
        )),
        other => errs.push(FieldError::not_supported("spec.conversion.strategy", other, &["None", "Webhook"])),
    }
    validate_versions(crd, &mut errs);
    validate_names(crd, &mut errs);
    validate_schemas(crd, &mut errs);
    validate_scale(crd, &mut errs);
    errs
}

/// The scale subresource's paths (`spec.subresources` when every version
/// has the same subresources, as upstream's internal form hoists them).
fn validate_scale(crd: &Value, errs: &mut Vec<FieldError>) {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let subs: Vec<Value> = versions.iter().map(|v| v["subresources"].clone()).collect();
    let hoisted = subs.windows(2).all(|w| w[0] == w[1]);
    let places: Vec<(String, &Value)> = if hoisted {
        subs.first().map(|s| ("spec.subresources".to_string(), s)).into_iter().collect()
    } else {
        subs.iter().enumerate().map(|(i, s)| (format!("spec.versions[{i}].subresources"), s)).collect()
    };
    for (at, sub) in places {
        let Some(scale) = sub.get("scale").filter(|s| s.is_object()) else { continue };
        let mut path = |field: &str, under: &[&str], what: &str, required: bool| {
            let p = format!("{at}.scale.{field}");
            match scale[field].as_str() {
                None | Some("") if required => errs.push(FieldError::required(&p, "")),
                None | Some("") => {}
                Some(v) if !v.starts_with('.') => {
                    errs.push(FieldError::invalid(&p, v, "must be a simple json path starting with ."))
                }
                Some(v) if !under.iter().any(|u| v.starts_with(u)) => {
                    errs.push(FieldError::invalid(&p, v, &format!("should be a json path under {what}")))
                }
                Some(_) => {}
            }
        };
        path("specReplicasPath", &[".spec."], ".spec", true);
        path("statusReplicasPath", &[".status."], ".status", true);
        path("labelSelectorPath", &[".spec.", ".status."], "either .spec or .status", false);
    }
}

fn validate_names(crd: &Value, errs: &mut Vec<FieldError>) {
    let names = &crd["spec"]["names"];
    for f in ["plural", "singular"] {
        match names[f].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required(&format!("spec.names.{f}"), "")),
            v => dns1035(&format!("spec.names.{f}"), v, errs),
        }
    }
    for (f, key) in [("shortNames", "shortNames"), ("categories", "categories")] {
        for (i, v) in names[key].as_array().into_iter().flatten().enumerate() {
            dns1035(&format!("spec.names.{f}[{i}]"), v.as_str().unwrap_or(""), errs);
        }
    }
    let kind = names["kind"].as_str().unwrap_or("");
    let list_kind = names["listKind"].as_str().unwrap_or("");
    for (f, v) in [("kind", kind), ("listKind", list_kind)] {
        if v.is_empty() {
            errs.push(FieldError::required(&format!("spec.names.{f}"), ""));
            continue;
        }
        let problems = validate_name(NameRule::Dns1035Label, &v.to_lowercase());
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                &format!("spec.names.{f}"),
                v,
                &format!("may have mixed case, but should otherwise match: {}", problems.join(",")),
            ));
        }
    }
    if !kind.is_empty() && kind == list_kind {
        errs.push(FieldError::invalid("spec.names.listKind", list_kind, "kind and listKind may not be the same"));
    }
}

fn validate_versions(crd: &Value, errs: &mut Vec<FieldError>) {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut seen = std::collections::BTreeSet::new();
    let mut unique = true;
    for (i, v) in versions.iter().enumerate() {
        let name = v["name"].as_str().unwrap_or("");
        dns1035(&format!("spec.versions[{i}].name"), name, errs);
        unique &= seen.insert(name.to_string());
    }
    let shown = crd.pointer("/spec/versions").cloned().unwrap_or(json!([]));
    if !unique {
        errs.push(FieldError::invalid_value("spec.versions", &shown, "must contain unique version names"));
    }
    if versions.iter().filter(|v| v["storage"] == true).count() != 1 {
        errs.push(FieldError::invalid_value(
            "spec.versions",
            &shown,
            "must have exactly one version marked as storage version",
        ));
    }
}

/// Where a version's schema errors are reported: upstream validates its
/// internal form, where schemas equal in every version are one
/// `spec.validation`.
fn schema_paths(crd: &Value) -> Vec<(String, Option<Value>)> {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let schemas: Vec<Option<Value>> =
        versions.iter().map(|v| v.pointer("/schema/openAPIV3Schema").cloned().filter(|s| !s.is_null())).collect();
    let all_same = schemas.windows(2).all(|w| w[0] == w[1]);
    if all_same && schemas.first().is_some_and(Option::is_some) {
        return vec![("spec.validation.openAPIV3Schema".into(), schemas[0].clone())];
    }
    schemas.into_iter().enumerate().map(|(i, s)| (format!("spec.versions[{i}].schema.openAPIV3Schema"), s)).collect()
}

fn validate_schemas(crd: &Value, errs: &mut Vec<FieldError>) {
    let status_enabled = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|v| v.pointer("/subresources/status").is_some_and(|s| !s.is_null()));
    for (path, schema) in schema_paths(crd) {
        let Some(schema) = schema else {
            errs.push(FieldError::required(&path, "schemas are required"));
            continue;
        };
        let mut found = Vec::new();
        structural(&schema, &path, Level::Root, &mut found);
        if status_enabled {
            if let Some(t) = schema["type"].as_str().filter(|t| *t != "object") {
                found.push(FieldError::invalid(
                    &format!("{path}.type"),
                    t,
                    "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                ));
            }
        }
        // Upstream sorts the structural errors by their text.
        found.order_by_key(|e| format!("{}: {}", e.field, e.body()));
        errs.extend(found);
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Field,
    Item,
}

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// The structural rules upstream's `ValidateStructural` checks, for the
/// shapes a v1 schema can take (no nested value validations are walked).
fn structural(s: &Value, path: &str, level: Level, errs: &mut Vec<FieldError>) {
    let Some(m) = s.as_object() else { return };
    let flag = |k: &str| m.get(k).and_then(Value::as_bool) == Some(true);
    let int_or_string = flag("x-kubernetes-int-or-string");
    let preserve = flag("x-kubernetes-preserve-unknown-fields");
    let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
    if m.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(false) {
        errs.push(FieldError::invalid_raw(
            &format!("{path}.x-kubernetes-preserve-unknown-fields"),
            "false",
            "must be true or undefined",
        ));
    }
    if int_or_string && preserve {
        errs.push(FieldError::invalid_raw(
            &format!("{path}.x-kubernetes-preserve-unknown-fields"),
            "true",
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    for k in ["$ref", "id", "additionalItems", "patternProperties", "definitions", "dependencies"] {
        if m.contains_key(k) {
            errs.push(FieldError::forbidden(&format!("{path}.{k}"), &format!("{k} is not supported")));
        }
    }
    if !ty.is_empty() && !TYPES.contains(&ty) {
        errs.push(FieldError::not_supported(&format!("{path}.type"), ty, TYPES));
    }
    if ty.is_empty() && !int_or_string && !preserve {
        let why = match level {
            Level::Root => "must not be empty at the root",
            Level::Field => "must not be empty for specified object fields",
            Level::Item => "must not be empty for specified array items",
        };
        errs.push(FieldError::required(&format!("{path}.type"), why));
    }
    if level == Level::Root {
        if !ty.is_empty() && ty != "object" {
            errs.push(FieldError::invalid(&format!("{path}.type"), ty, "must be object at the root"));
        }
        if m.get("additionalProperties").is_some_and(|a| !a.is_null()) {
            errs.push(FieldError::forbidden(&format!("{path}.additionalProperties"), "must not be used at the root"));
        }
        if flag("nullable") {
            errs.push(FieldError::forbidden(&format!("{path}.nullable"), "nullable cannot be true at the root"));
        }
        if let Some(meta) = m.get("properties").and_then(|p| p.get("metadata")) {
            let only_names = meta.as_object().is_some_and(|mm| {
                mm.keys().all(|k| k == "type" || k == "properties")
                    && mm
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName"))
            });
            if !only_names {
                errs.push(FieldError::forbidden(
                    &format!("{path}.properties[metadata]"),
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
                ));
            }
        }
    }
    if m.contains_key("properties") && m.get("additionalProperties").is_some_and(|a| !a.is_null()) {
        errs.push(FieldError::forbidden(
            &format!("{path}.additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if let Some(props) = m.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            if level == Level::Root && k == "metadata" {
                continue;
            }
            structural(p, &format!("{path}.properties[{k}]"), Level::Field, errs);
        }
    }
    if let Some(ap) = m.get("additionalProperties").filter(|a| a.is_object()) {
        structural(ap, &format!("{path}.additionalProperties"), Level::Field, errs);
    }
    match m.get("items") {
        Some(Value::Array(_)) => {
            errs.push(FieldError::forbidden(&format!("{path}.items"), "items must be a schema object and not an array"))
        }
        Some(items @ Value::Object(_)) => structural(items, &format!("{path}.items"), Level::Item, errs),
        _ if ty == "array" => errs.push(FieldError::required(&format!("{path}.items"), "must be specified")),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(schema: Value) -> Value {
        json!({"metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}})
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(|e| format!("{}: {}", e.field, e.body())).collect()
    }

    #[test]
    fn a_good_definition_passes() {
        let ok = crd(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "string"}, "ports": {"type": "array", "items": {"type": "integer"}},
            "any": {"x-kubernetes-int-or-string": true}}}}}));
        assert_eq!(messages(&validate(&ok)), Vec::<String>::new());
    }

    #[test]
    fn upstream_wording_and_paths() {
        let cases = [
            (json!({"properties": {}}), "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"),
            (json!({"type": "string"}), "spec.validation.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root"),
            (
                json!({"type": "object", "properties": {"spec": {}}}),
                "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
            ),
            (
                json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"list": {"type": "array", "items": {}}}}}}),
                "spec.validation.openAPIV3Schema.properties[spec].properties[list].items.type: Required value: must not be empty for specified array items",
            ),
            (
                json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}),
                "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root",
            ),
        ];
        for (schema, want) in cases {
            let got = messages(&validate(&crd(schema)));
            assert!(got.contains(&want.to_string()), "{got:?} lacks {want}");
        }
        let mut bad = crd(json!({"type": "object"}));
        bad["metadata"]["name"] = json!("foo.example.com");
        bad["spec"]["scope"] = json!("Global");
        bad["spec"]["names"]["listKind"] = json!("Widget");
        let got = messages(&validate(&bad));
        for want in [
            "metadata.name: Invalid value: \"foo.example.com\": must be spec.names.plural+\".\"+spec.group",
            "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"",
            "spec.names.listKind: Invalid value: \"Widget\": kind and listKind may not be the same",
        ] {
            assert!(got.contains(&want.to_string()), "{got:?} lacks {want}");
        }
        let mut scaled = crd(json!({"type": "object"}));
        scaled["spec"]["versions"][0]["subresources"] =
            json!({"scale": {"specReplicasPath": ".replicas", "statusReplicasPath": ".status.replicas"}});
        assert!(messages(&validate(&scaled)).contains(
            &"spec.subresources.scale.specReplicasPath: Invalid value: \".replicas\": should be a json path under .spec".to_string()
        ));
        let mut no_schema = crd(json!(null));
        no_schema["spec"]["versions"][0]["schema"] = json!(null);
        assert!(messages(&validate(&no_schema))
            .contains(&"spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required".to_string()));
    }

    #[test]
    fn one_storage_version_exactly() {
        let mut two = crd(json!({"type": "object"}));
        two["spec"]["versions"] = json!([{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}},
            {"name": "v2", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]);
        let got = messages(&validate(&two));
        assert!(
            got.iter().any(|m| m.starts_with("spec.versions: Invalid value: ")
                && m.ends_with(": must have exactly one version marked as storage version")),
            "{got:?}"
        );
    }
}
