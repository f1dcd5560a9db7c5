//! OpenAPI v3 documents generated from the resource table: every path with
//! its operations, `x-kubernetes-group-version-kind` and query parameters
//! (so clients such as kubectl can tell which parameters a verb takes).
//! Object schemas are deliberately open (`type: object`) until the
//! write-path work brings generated schemas.

use serde_json::{json, Map, Value};

use crate::registry::{kinds, ResourceType, BUILTIN};

fn gv_path(group: &str) -> String {
    if group.is_empty() {
        "api/v1".into()
    } else {
        format!("apis/{group}/v1")
    }
}

/// `/openapi/v3`: the index of group-version documents.
pub fn index() -> Value {
    let mut paths = Map::new();
    for g in kinds::groups() {
        let p = gv_path(g);
        paths
            .insert(p.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{p}?hash=kubesim-{}", BUILTIN.len())}));
    }
    json!({"paths": paths})
}

fn param(name: &str, kind: &str) -> Value {
    json!({"name": name, "in": "query", "schema": {"type": kind, "uniqueItems": true}})
}

fn op(rt: &ResourceType, action: &str, id: &str, params: &[Value]) -> Value {
    json!({
        "operationId": id,
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "parameters": params,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": schema_ref(rt)}}}}}
    })
}

fn schema_name(rt: &ResourceType) -> String {
    let g = if rt.group.is_empty() { "core".to_string() } else { rt.group.to_string() };
    format!("io.k8s.api.{g}.{}.{}", rt.version, rt.kind)
}

fn schema_ref(rt: &ResourceType) -> String {
    format!("#/components/schemas/{}", schema_name(rt))
}

/// The document for one group-version, or None if it is not served.
pub fn group_version(path: &str) -> Option<Value> {
    let group = match path.split('/').collect::<Vec<_>>().as_slice() {
        ["api", "v1"] => "",
        ["apis", g, "v1"] => g,
        _ => return None,
    };
    let mut paths = Map::new();
    let mut schemas = Map::new();
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
    for rt in BUILTIN.iter().filter(|r| r.group == group) {
        let base = format!("/{path}");
        let coll = if rt.namespaced {
            format!("{base}/namespaces/{{namespace}}/{}", rt.resource)
        } else {
            format!("{base}/{}", rt.resource)
        };
        let item = format!("{coll}/{{name}}");
        let k = rt.kind;
        paths.insert(
            coll.clone(),
            json!({
                "get": op(rt, "list", &format!("list{k}"), &list_params),
                "post": op(rt, "post", &format!("create{k}"), &write_params),
                "delete": op(rt, "deletecollection", &format!("deletecollection{k}"), &list_params),
            }),
        );
        paths.insert(item.clone(), json!({
            "get": op(rt, "get", &format!("read{k}"), &[param("resourceVersion", "string")]),
            "put": op(rt, "put", &format!("replace{k}"), &write_params),
            "patch": op(rt, "patch", &format!("patch{k}"), &patch_params),
            "delete": op(rt, "delete", &format!("delete{k}"), &[param("dryRun", "string"), param("gracePeriodSeconds", "integer"), param("propagationPolicy", "string")]),
        }));
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
        schemas.insert(
            schema_name(rt),
            json!({
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": rt.group, "version": rt.version, "kind": rt.kind}],
                "x-kubernetes-preserve-unknown-fields": true,
            }),
        );
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "components": {"schemas": schemas}
    }))
}
