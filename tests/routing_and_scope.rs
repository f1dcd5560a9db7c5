//! Which paths take which methods, and what happens when a body's
//! namespace or name contradicts the URL — ported from upstream's
//! `endpoints/apiserver_test.go` (`TestNotFound`,
//! `TestSomeUnimplementedRESTStorage`, `TestUpdatePreventsMismatchedNamespace`,
//! `TestUpdateAllowsMissingNamespace`, `TestUpdateRequiresMatchingName`),
//! `registry/rest/meta_test.go`
//! (`TestEnsureObjectNamespaceMatchesRequestNamespace`) and the resttest
//! create/update namespace checks.

mod common;
use common::*;
use kubesim::server::Request;
use serde_json::{json, Value};

fn cm(name: &str, namespace: Option<&str>) -> Value {
    let mut m = json!({"name": name});
    if let Some(ns) = namespace {
        m["namespace"] = json!(ns);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": {"k": "v"}})
}

/// (method, path, status): the router's answers, before any option or
/// object is looked at.
#[test]
fn the_router_answers_405_where_a_path_has_other_methods_and_404_where_it_has_none() {
    let mut s = server();
    create_cm(&mut s, "x", json!({}));
    let cases: &[(&str, &str, u16)] = &[
        // The all-namespaces collection of a namespaced resource: list and watch only.
        ("POST", "/api/v1/configmaps", 405),
        ("PUT", "/api/v1/configmaps", 405),
        ("PATCH", "/api/v1/configmaps", 405),
        ("DELETE", "/api/v1/configmaps", 405),
        ("GET", "/api/v1/configmaps", 200),
        // A namespaced object at the cluster path has no route at all.
        ("GET", "/api/v1/configmaps/x", 404),
        ("DELETE", "/api/v1/configmaps/x", 404),
        // An object takes no POST; a collection no PUT or PATCH.
        ("POST", "/api/v1/namespaces/default/configmaps/x", 405),
        ("PUT", "/api/v1/namespaces/default/configmaps", 405),
        ("PATCH", "/api/v1/namespaces/default/configmaps", 405),
        // Namespaces serve no deletecollection.
        ("DELETE", "/api/v1/namespaces", 405),
        // Subresources take no DELETE or POST, whether or not the object exists.
        ("DELETE", "/api/v1/namespaces/default/configmaps/x/status", 404),
        ("DELETE", "/apis/apps/v1/namespaces/default/deployments/missing/scale", 405),
        ("POST", "/apis/apps/v1/namespaces/default/deployments/missing/status", 405),
        // A cluster-scoped resource under a namespace: no such path.
        ("GET", "/api/v1/namespaces/default/nodes", 404),
        ("POST", "/api/v1/namespaces/default/nodes", 404),
        ("GET", "/api/v1/namespaces/default/nodes/n1", 404),
        // Unknown methods on a routed path.
        ("OPTIONS", "/api/v1/namespaces/default/configmaps", 405),
    ];
    for (method, path, want) in cases {
        let r = call(&mut s, method, path, Some(cm("x", None)));
        assert_eq!(r.status, *want, "{method} {path}: {}", String::from_utf8_lossy(&r.body));
        let b = r.json_body();
        if *want == 405 {
            assert_eq!(b["reason"], "MethodNotAllowed", "{method} {path}");
            assert_eq!(b["message"], "the server does not allow this method on the requested resource");
            assert_eq!(b["details"], json!({}), "{method} {path}");
        }
        if *want == 404 {
            assert_eq!(b["message"], "the server could not find the requested resource", "{method} {path}");
        }
    }
}

#[test]
fn routing_comes_before_the_options_are_checked() {
    let mut s = server();
    let r = call(&mut s, "POST", "/api/v1/configmaps?dryRun=bogus", Some(cm("y", Some("default"))));
    assert_eq!(r.status, 405);
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps?fieldValidation=bogus", Some(cm("y", None)));
    assert_eq!(r.status, 405);
}

#[test]
fn a_body_namespace_is_filled_matched_or_cleared() {
    let mut s = server();
    // Namespaced: an empty namespace is the URL's; another one is a 400.
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/configmaps", Some(cm("a", None)));
    assert_eq!((r.status, r.json_body()["metadata"]["namespace"].clone()), (201, json!("default")));
    let mismatched = "the namespace of the provided object does not match the namespace sent on the request";
    for (method, path) in
        [("POST", "/api/v1/namespaces/default/configmaps"), ("PUT", "/api/v1/namespaces/default/configmaps/a")]
    {
        let r = call(&mut s, method, path, Some(cm("a", Some("other"))));
        assert_eq!((r.status, reason(&r).as_str()), (400, "BadRequest"), "{method}");
        assert_eq!(r.json_body()["message"], mismatched);
    }
    // Server-side apply checks it too.
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/configmaps/a?fieldManager=m")
            .with_header("Content-Type", "application/apply-patch+yaml")
            .with_body(serde_json::to_vec(&cm("a", Some("other"))).unwrap()),
    );
    assert_eq!((r.status, r.json_body()["message"].clone()), (400, json!(mismatched)));
    // Cluster-scoped: a namespace in the body is dropped, not refused.
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n2", "namespace": "default"}})),
    );
    assert_eq!(r.status, 201);
    assert_eq!(r.json_body()["metadata"].get("namespace"), None);
}

#[test]
fn a_put_checks_the_namespace_before_the_name() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    // Both wrong: the namespace is reported.
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps/a", Some(cm("b", Some("other"))));
    assert_eq!(
        r.json_body()["message"],
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps/a", Some(cm("b", None)));
    assert_eq!(r.status, 400);
    assert_eq!(r.json_body()["message"], "the name of the object (b) does not match the name on the URL (a)");
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps/a", Some(cm("", None)));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json_body()["message"],
        "the name of the object (a based on URL) was undeterminable: name must be provided"
    );
}

/// Services serve no deletecollection upstream: 405 on their collection,
/// and discovery does not list the verb.
#[test]
fn services_have_no_deletecollection() {
    let mut s = server();
    let r = call(&mut s, "DELETE", "/api/v1/namespaces/default/services", None);
    assert_eq!(r.status, 405);
    let v1 = get(&mut s, "/api/v1").json_body();
    let svc = v1["resources"].as_array().unwrap().iter().find(|r| r["name"] == "services").cloned().unwrap();
    assert!(!svc["verbs"].as_array().unwrap().iter().any(|v| v == "deletecollection"), "{svc}");
}
