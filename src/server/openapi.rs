//! OpenAPI documents generated from the resource table and the generated
//! schemas (`crate::schema`): every path with its operations,
//! `x-kubernetes-group-version-kind` and query parameters (so clients such
//! as kubectl can tell which parameters a verb takes), and every schema a
//! group-version's kinds reach (so `kubectl explain` works). v3 per
//! group-version, v2 as one document.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use crate::registry::options::Verb;
use crate::registry::{Catalog, ResourceType};
use crate::schema::schemas;

/// The definitions reachable from `roots`.
fn closure(roots: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    fn refs(node: &Value, out: &mut Vec<String>) {
        match node {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r.clone()),
                        _ => refs(v, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let s = schemas();
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.into_iter().collect();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(d) = s.definition(&name) {
            refs(d, &mut todo);
        }
    }
    seen
}

/// A generated schema in OpenAPI's terms: `$ref`s point into the document
/// (`prefix`), a `$ref` with siblings becomes `allOf` (as upstream's v3
/// does), and a type list becomes the string-with-format upstream uses.
fn convert(node: &Value, prefix: &str, v3: bool) -> Value {
    let Value::Object(m) = node else { return node.clone() };
    let mut out = Map::new();
    for (k, v) in m {
        match (k.as_str(), v) {
            ("$ref", Value::String(r)) => {
                let target = json!({"$ref": format!("{prefix}{r}")});
                if v3 && m.len() > 1 {
                    out.insert("allOf".into(), json!([target]));
                } else {
                    out.insert("$ref".into(), target["$ref"].clone());
                }
            }
            ("type", Value::Array(types)) => {
                out.insert("type".into(), json!("string"));
                if types.iter().any(|t| t == "integer") {
                    out.insert("format".into(), json!("int-or-string"));
                }
            }
            ("properties", Value::Object(props)) => {
                let p: Map<String, Value> = props.iter().map(|(k, v)| (k.clone(), convert(v, prefix, v3))).collect();
                out.insert("properties".into(), Value::Object(p));
            }
            ("items" | "additionalProperties", v) => {
                out.insert(k.clone(), convert(v, prefix, v3));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    if v3 && out.contains_key("allOf") && !out.contains_key("default") {
        out.insert("default".into(), json!({}));
    }
    Value::Object(out)
}

/// Types every group-version's operations refer to.
const META_ROOTS: &[&str] = &[
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
    "io.k8s.api.autoscaling.v1.Scale",
];

/// The definitions the kinds start from: a built-in's by name; a custom
/// resource's schema refers to the metadata types.
fn kind_roots<'a>(rts: impl Iterator<Item = &'a std::sync::Arc<ResourceType>>) -> Vec<String> {
    let s = schemas();
    rts.flat_map(|rt| match rt.strategy.published_schema() {
        Some(_) => vec![
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".to_string(),
            "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta".to_string(),
        ],
        None => s.name_of(rt.group(), rt.version(), rt.kind()).map(str::to_string).into_iter().collect(),
    })
    .chain(META_ROOTS.iter().map(|r| r.to_string()))
    .collect()
}

fn converted<'a>(
    names: &BTreeSet<String>,
    custom: impl Iterator<Item = &'a std::sync::Arc<ResourceType>>,
    prefix: &str,
    v3: bool,
) -> Map<String, Value> {
    let s = schemas();
    let mut out: Map<String, Value> =
        names.iter().filter_map(|n| s.definition(n).map(|d| (n.clone(), convert(d, prefix, v3)))).collect();
    for rt in custom {
        if let Some(schema) = rt.strategy.published_schema() {
            out.insert(schema_name(rt), convert(schema, prefix, v3));
        }
    }
    // (A name for a PATCH's body, not a Go type the schemas hold; without
    // upstream's description, which the page's documents could not get
    // back from the descriptions it loads later.)
    out.insert(PATCH.into(), json!({"type": "object"}));
    out
}

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// `/openapi/v3`: the index of group-version documents.
pub fn index(catalog: &Catalog) -> Value {
    let mut paths = Map::new();
    let served = catalog.iter().count();
    for g in catalog.groups() {
        for v in catalog.versions(g) {
            let p = gv_path(g, v);
            paths.insert(
                p.clone(),
                json!({"serverRelativeURL": format!("/openapi/v3/{p}?hash=kubesim-k8s-v1.33-schemas-{served}")}),
            );
        }
    }
    json!({"paths": paths})
}

fn param(name: &str, kind: &str) -> Value {
    json!({"name": name, "in": "query", "schema": {"type": kind, "uniqueItems": true}})
}

/// The body every PATCH names (any of the patch types it consumes).
const PATCH: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

/// The patch types an operation takes, as upstream lists them: a custom
/// resource has no strategic merge patch (so kubectl, which reads this
/// list, sends it a merge patch instead).
fn patch_types(rt: &ResourceType) -> &'static [&'static str] {
    if rt.strategy.published_schema().is_some() {
        &["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"]
    } else {
        &[
            "application/apply-patch+yaml",
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
        ]
    }
}

/// A request body: the object for a create or an update, a patch of one
/// of the types the resource takes for a patch.
fn request_body(rt: &ResourceType, action: &str, object: &str) -> Option<Value> {
    let content: Map<String, Value> = match action {
        "post" | "put" => [("*/*".to_string(), json!({"schema": {"$ref": object}}))].into_iter().collect(),
        "patch" => patch_types(rt)
            .iter()
            .map(|t| (t.to_string(), json!({"schema": {"$ref": format!("#/components/schemas/{PATCH}")}})))
            .collect(),
        _ => return None,
    };
    Some(json!({"content": content, "required": true}))
}

fn op(rt: &ResourceType, action: &str, id: &str, params: &[Value]) -> Value {
    let object = schema_ref(rt);
    let mut op = json!({
        "operationId": id,
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": rt.group(), "version": rt.version(), "kind": rt.kind()},
        "parameters": params,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": object}}}}}
    });
    if let Some(body) = request_body(rt, action, &object) {
        op["requestBody"] = body;
    }
    op
}

/// A kind's definition name: a built-in's as generated; a custom
/// resource's as the apiextensions server names it (the group reversed,
/// then the version and kind: `com.example.stable.v1.CronTab`).
fn schema_name(rt: &ResourceType) -> String {
    if rt.strategy.published_schema().is_some() {
        let group: Vec<&str> = rt.group().split('.').rev().collect();
        return format!("{}.{}.{}", group.join("."), rt.version(), rt.kind());
    }
    schemas().name_of(rt.group(), rt.version(), rt.kind()).map(str::to_string).unwrap_or_else(|| rt.kind().to_string())
}

fn schema_ref(rt: &ResourceType) -> String {
    format!("#/components/schemas/{}", schema_name(rt))
}

/// The document for one group-version, or None if it is not served.
pub fn group_version(catalog: &Catalog, path: &str) -> Option<Value> {
    let (group, version) = match path.split('/').collect::<Vec<_>>().as_slice() {
        ["api", "v1"] => ("", "v1"),
        ["apis", g, v] => (*g, *v),
        _ => return None,
    };
    if !catalog.iter().any(|r| r.group() == group && r.version() == version) {
        return None;
    }
    let mut paths = Map::new();
    let list_params: Vec<Value> = ["allowWatchBookmarks", "watch", "sendInitialEvents"]
        .iter()
        .map(|p| param(p, "boolean"))
        .chain(
            ["continue", "fieldSelector", "labelSelector", "resourceVersion", "resourceVersionMatch"]
                .iter()
                .map(|p| param(p, "string")),
        )
        .chain(["limit", "timeoutSeconds"].iter().map(|p| param(p, "integer")))
        .collect();
    let write_params =
        vec![param("dryRun", "string"), param("fieldManager", "string"), param("fieldValidation", "string")];
    let mut patch_params = write_params.clone();
    patch_params.push(param("force", "boolean"));
    for rt in catalog.iter().filter(|r| r.group() == group && r.version() == version) {
        let base = format!("/{path}");
        let coll = if rt.namespaced {
            format!("{base}/namespaces/{{namespace}}/{}", rt.resource())
        } else {
            format!("{base}/{}", rt.resource())
        };
        let item = format!("{coll}/{{name}}");
        let k = rt.kind();
        // Only the verbs the resource serves (a review is created, nothing
        // more).
        let ops = |candidates: Vec<(Verb, &str, Value)>| -> Map<String, Value> {
            candidates.into_iter().filter(|(verb, ..)| rt.serves(*verb)).map(|(_, m, o)| (m.to_string(), o)).collect()
        };
        let coll_ops = ops(vec![
            (Verb::List, "get", op(rt, "list", &format!("list{k}"), &list_params)),
            (Verb::Create, "post", op(rt, "post", &format!("create{k}"), &write_params)),
            (
                Verb::DeleteCollection,
                "delete",
                op(rt, "deletecollection", &format!("deletecollection{k}"), &list_params),
            ),
        ]);
        paths.insert(coll.clone(), Value::Object(coll_ops));
        let delete_params =
            [param("dryRun", "string"), param("gracePeriodSeconds", "integer"), param("propagationPolicy", "string")];
        let item_ops = ops(vec![
            (Verb::Get, "get", op(rt, "get", &format!("read{k}"), &[param("resourceVersion", "string")])),
            (Verb::Update, "put", op(rt, "put", &format!("replace{k}"), &write_params)),
            (Verb::Patch, "patch", op(rt, "patch", &format!("patch{k}"), &patch_params)),
            (Verb::Delete, "delete", op(rt, "delete", &format!("delete{k}"), &delete_params)),
        ]);
        if !item_ops.is_empty() {
            paths.insert(item.clone(), Value::Object(item_ops));
        }
        if rt.scale_subresource {
            let scale = |action: &str, id: &str, params: &[Value]| {
                let mut o = op(rt, action, id, params);
                o["x-kubernetes-group-version-kind"] =
                    json!({"group": "autoscaling", "version": "v1", "kind": "Scale"});
                let scale = json!("#/components/schemas/io.k8s.api.autoscaling.v1.Scale");
                o["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] = scale.clone();
                if action == "put" {
                    o["requestBody"]["content"]["*/*"]["schema"]["$ref"] = scale;
                }
                o
            };
            paths.insert(
                format!("{item}/scale"),
                json!({
                    "get": scale("get", &format!("read{k}Scale"), &[]),
                    "put": scale("put", &format!("replace{k}Scale"), &write_params),
                    "patch": scale("patch", &format!("patch{k}Scale"), &patch_params),
                }),
            );
        }
        if rt.status_subresource {
            paths.insert(
                format!("{item}/status"),
                json!({
                    "get": op(rt, "get", &format!("read{k}Status"), &[]),
                    "put": op(rt, "put", &format!("replace{k}Status"), &write_params),
                    "patch": op(rt, "patch", &format!("patch{k}Status"), &patch_params),
                }),
            );
        }
        // Pods' subresources that read and write the pod itself.
        for (side, op_name) in [
            (crate::registry::resource::Side::EphemeralContainers, "Ephemeralcontainers"),
            (crate::registry::resource::Side::Resize, "Resize"),
        ] {
            if rt.has(side) {
                paths.insert(
                    format!("{item}/{}", side.name()),
                    json!({
                        "get": op(rt, "get", &format!("read{k}{op_name}"), &[]),
                        "put": op(rt, "put", &format!("replace{k}{op_name}"), &write_params),
                        "patch": op(rt, "patch", &format!("patch{k}{op_name}"), &patch_params),
                    }),
                );
            }
        }
    }
    let here = || catalog.iter().filter(|r| r.group() == group && r.version() == version);
    let names = closure(kind_roots(here()));
    let schemas = converted(&names, here(), "#/components/schemas/", true);
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "components": {"schemas": schemas}
    }))
}

/// `/openapi/v2`: one document for every group, with the same schemas
/// under `definitions`.
pub fn v2(catalog: &Catalog) -> Value {
    let mut paths = Map::new();
    for g in catalog.groups() {
        for v in catalog.versions(g) {
            if let Some(Value::Object(doc_paths)) =
                group_version(catalog, &gv_path(g, v)).and_then(|d| d.get("paths").cloned())
            {
                for (p, ops) in doc_paths {
                    paths.insert(p, v2_operations(ops));
                }
            }
        }
    }
    let names = closure(kind_roots(catalog.iter()));
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "definitions": converted(&names, catalog.iter(), "#/definitions/", false),
    })
}

/// v3 operations in v2's shape: parameters carry their type directly and
/// responses their schema.
fn v2_operations(ops: Value) -> Value {
    let Value::Object(ops) = ops else { return ops };
    let mut out = Map::new();
    for (method, mut op) in ops {
        if let Some(Value::Array(params)) = op.get_mut("parameters") {
            for p in params.iter_mut() {
                if let Some(Value::Object(schema)) = p.get("schema").cloned() {
                    if let Value::Object(pm) = p {
                        pm.remove("schema");
                        pm.extend(schema);
                    }
                }
            }
        }
        if let Some(r) = op.pointer("/responses/200/content/application~1json/schema/$ref").and_then(Value::as_str) {
            let r = r.replace("#/components/schemas/", "#/definitions/");
            op["responses"] = json!({"200": {"description": "OK", "schema": {"$ref": r}}});
        }
        // A request body is a `body` parameter, its media types `consumes`.
        if let Some(Value::Object(body)) = op.as_object_mut().and_then(|o| o.remove("requestBody")) {
            let content = body.get("content").and_then(Value::as_object);
            let consumes: Vec<&String> = content.map(|c| c.keys().collect()).unwrap_or_default();
            let schema = content.and_then(|c| c.values().next()).and_then(|m| m.pointer("/schema/$ref"));
            let r = schema.and_then(Value::as_str).unwrap_or("").replace("#/components/schemas/", "#/definitions/");
            let consumes = json!(consumes);
            op["consumes"] = consumes;
            if let Some(Value::Array(params)) = op.get_mut("parameters") {
                params.insert(0, json!({"name": "body", "in": "body", "required": true, "schema": {"$ref": r}}));
            }
        }
        out.insert(method, op);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_catalog;

    #[test]
    fn documents_hold_every_schema_their_kinds_reach() {
        let doc = group_version(builtin_catalog(), "api/v1").unwrap();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let pod = &schemas["io.k8s.api.core.v1.Pod"];
        assert_eq!(pod["x-kubernetes-group-version-kind"], json!([{"group": "", "kind": "Pod", "version": "v1"}]));
        assert_eq!(
            pod["properties"]["spec"]["allOf"],
            json!([{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}])
        );
        assert!(schemas.contains_key("io.k8s.api.core.v1.Container"));
        assert!(schemas.contains_key("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
        let target = &schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"];
        assert_eq!((target["type"].as_str(), target["format"].as_str()), (Some("string"), Some("int-or-string")));
        // Every $ref resolves inside the document.
        let text = doc.to_string();
        for r in text.split("\"#/components/schemas/").skip(1) {
            let name = &r[..r.find('"').unwrap()];
            assert!(schemas.contains_key(name), "dangling $ref {name}");
        }
        assert!(group_version(builtin_catalog(), "apis/apps/v1").unwrap()["components"]["schemas"]
            .get("io.k8s.api.apps.v1.Deployment")
            .is_some());
        // Writes say what body they take: kubectl reads a PATCH's media
        // types here to choose a strategic merge patch for a built-in.
        let item = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"];
        let patch = item["patch"]["requestBody"]["content"].as_object().unwrap();
        assert!(patch.contains_key("application/strategic-merge-patch+json"));
        assert_eq!(
            patch["application/apply-patch+yaml"]["schema"]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
        );
        assert_eq!(
            item["put"]["requestBody"]["content"]["*/*"]["schema"]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.ConfigMap"
        );
        assert!(item["get"].get("requestBody").is_none());
    }

    #[test]
    fn v2_uses_definitions() {
        let doc = v2(builtin_catalog());
        let defs = doc["definitions"].as_object().unwrap();
        assert!(defs.contains_key("io.k8s.api.apps.v1.Deployment"));
        assert_eq!(
            defs["io.k8s.api.core.v1.Pod"]["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.PodSpec"
        );
        let op = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
        assert!(op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "fieldValidation" && p["type"] == "string"));
        assert_eq!(op["responses"]["200"]["schema"]["$ref"], "#/definitions/io.k8s.api.core.v1.ConfigMap");
        assert!(op["consumes"].as_array().unwrap().contains(&json!("application/strategic-merge-patch+json")));
        assert!(op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["in"] == "body"
                && p["schema"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"));
        assert!(defs.contains_key("io.k8s.apimachinery.pkg.apis.meta.v1.Patch"));
        let scale = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["put"];
        assert_eq!(scale["consumes"], json!(["*/*"]));
        assert!(scale["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["in"] == "body" && p["schema"]["$ref"] == "#/definitions/io.k8s.api.autoscaling.v1.Scale"));
    }
}
