//! Which field labels a list's field selector may name, as upstream's
//! conversions decide before the storage reads anything: the default
//! conversion takes `metadata.name` and `metadata.namespace` whatever the
//! kind's scope (a cluster-scoped object's namespace reads as empty);
//! kinds with a conversion of their own (namespaces, nodes, pods, …) and
//! custom resources (which take the namespace only when namespaced) name
//! what they refuse as `field label not supported`.

mod common;
use common::*;
use serde_json::json;

fn message(s: &mut kubesim::server::Server, target: &str) -> (u16, String) {
    let r = get(s, target);
    (r.status, r.json_body()["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn the_default_conversion_takes_the_namespace_of_cluster_scoped_kinds() {
    let mut s = server();
    let all = names(&get(&mut s, "/apis/scheduling.k8s.io/v1/priorityclasses").json_body());
    assert_eq!(all.len(), 2, "{all:?}");
    let q = |s: &mut kubesim::server::Server, sel: &str| {
        let r = get(s, &format!("/apis/scheduling.k8s.io/v1/priorityclasses?fieldSelector={sel}"));
        assert_eq!(r.status, 200, "{sel}: {}", String::from_utf8_lossy(&r.body));
        names(&r.json_body())
    };
    assert_eq!(q(&mut s, "metadata.namespace%3D"), all);
    assert!(q(&mut s, "metadata.namespace%3Ddefault").is_empty());
    assert_eq!(q(&mut s, "metadata.namespace!%3Ddefault"), all);
    assert_eq!(
        message(&mut s, "/apis/scheduling.k8s.io/v1/priorityclasses?fieldSelector=value%3D1"),
        (400, "\"value\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"".into())
    );
    // Namespaces and nodes convert their own labels, the namespace not
    // among them.
    for target in ["/api/v1/namespaces", "/api/v1/nodes"] {
        assert_eq!(
            message(&mut s, &format!("{target}?fieldSelector=metadata.namespace%3D")),
            (400, "field label not supported: metadata.namespace".into()),
            "{target}"
        );
    }
}

#[test]
fn custom_resources_name_every_label_they_refuse() {
    let mut s = server();
    for (plural, kind, scope) in [("gadgets", "Gadget", "Namespaced"), ("clusters", "Cluster", "Cluster")] {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.example.com")},
            "spec": {"group": "example.com", "scope": scope, "names": {"plural": plural, "kind": kind},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
        let r = call(&mut s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    }
    assert_eq!(
        message(&mut s, "/apis/example.com/v1/namespaces/default/gadgets?fieldSelector=spec.size%3D1"),
        (400, "field label not supported: spec.size".into())
    );
    let r = get(&mut s, "/apis/example.com/v1/namespaces/default/gadgets?fieldSelector=metadata.namespace%3Ddefault");
    assert_eq!(r.status, 200);
    assert_eq!(
        message(&mut s, "/apis/example.com/v1/clusters?fieldSelector=metadata.namespace%3D"),
        (400, "field label not supported: metadata.namespace".into())
    );
}
