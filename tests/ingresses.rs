//! networking.k8s.io/v1 Ingresses and IngressClasses as kube-apiserver
//! answers them: validation in upstream's words, the default class
//! admission, the deprecated annotation, status and generation, columns,
//! protobuf.

mod common;
use common::*;
use serde_json::{json, Value};

const INGRESSES: &str = "/apis/networking.k8s.io/v1/namespaces/default/ingresses";
const CLASSES: &str = "/apis/networking.k8s.io/v1/ingressclasses";

fn ingress(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name}, "spec": spec})
}

/// What `kubectl create ingress web --rule="foo.com/bar=svc:80"` sends.
fn one_rule() -> Value {
    json!({"rules": [{"host": "foo.com", "http": {"paths": [{"path": "/bar", "pathType": "Exact",
        "backend": {"service": {"name": "svc", "port": {"number": 80}}}}]}}]})
}

fn class(name: &str, default: bool) -> Value {
    let mut c = json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": name},
        "spec": {"controller": "k8s.io/ingress-nginx"}});
    if default {
        c["metadata"]["annotations"] = json!({"ingressclass.kubernetes.io/is-default-class": "true"});
    }
    c
}

#[test]
fn an_ingress_is_created_with_an_empty_status_and_generation_one_then_bumped_by_spec_changes() {
    let mut s = server();
    let r = call(&mut s, "POST", INGRESSES, Some(ingress("web", one_rule())));
    assert_eq!(r.status, 201, "{}", message(&r));
    let o = r.json_body();
    assert_eq!(o["status"], json!({"loadBalancer": {}}));
    assert_eq!(o["metadata"]["generation"], 1);
    assert!(o["spec"].get("ingressClassName").is_none(), "no default class exists");

    let patch = json!({"spec": {"tls": [{"hosts": ["foo.com"], "secretName": "foo-tls"}]}});
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{INGRESSES}/web"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(patch.to_string().into_bytes()),
    );
    assert_eq!(r.status, 200, "{}", message(&r));
    assert_eq!(r.json_body()["metadata"]["generation"], 2);
}

#[test]
fn validation_as_upstream_words_it() {
    let mut s = server();
    let backend = json!({"service": {"name": "svc", "port": {"number": 80}}});
    let cases = [
        (json!({}), "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"),
        (json!({"rules": [{"host": "10.0.0.1"}]}), "spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address"),
        (json!({"rules": [{"host": "*"}]}), "spec.rules[0].host: Invalid value: \"*\": a wildcard DNS-1123 subdomain must start with '*.'"),
        (json!({"rules": [{"http": {"paths": []}}]}), "spec.rules[0].http.paths: Required value"),
        (json!({"rules": [{"http": {"paths": [{"path": "/a", "backend": backend}]}}]}), "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"),
        (json!({"rules": [{"http": {"paths": [{"path": "a//b/..", "pathType": "Prefix", "backend": backend}]}}]}), "[spec.rules[0].http.paths[0].path: Invalid value: \"a//b/..\": must be an absolute path, spec.rules[0].http.paths[0].path: Invalid value: \"a//b/..\": must not contain '//', spec.rules[0].http.paths[0].path: Invalid value: \"a//b/..\": cannot end with '/..']"),
        (json!({"rules": [{"http": {"paths": [{"path": "/", "pathType": "Regex", "backend": backend}]}}]}), "spec.rules[0].http.paths[0].pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""),
        (json!({"defaultBackend": {}}), "spec.defaultBackend: Invalid value: \"\": resource or service backend is required"),
        (json!({"defaultBackend": {"service": {"name": "svc", "port": {"name": "http", "number": 80}}}}), "spec.defaultBackend: Invalid value: \"\": cannot set both port name & port number"),
        (json!({"defaultBackend": {"service": {"name": "svc"}}}), "spec.defaultBackend: Required value: port name or number is required"),
        (json!({"defaultBackend": {"service": {"name": "svc", "port": {"number": 70000}}}}), "spec.defaultBackend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive"),
        (json!({"defaultBackend": {"service": {"name": "1svc", "port": {"name": "80"}}}}), "[spec.defaultBackend.service.name: Invalid value: \"1svc\": a DNS-1035 label"),
        (json!({"defaultBackend": {"resource": {"kind": "Bucket"}, "service": {"name": "s"}}}), "spec.defaultBackend: Invalid value: \"\": cannot set both resource and service backends"),
        (json!({"defaultBackend": {"resource": {"apiGroup": "x.io"}}}), "[spec.defaultBackend.resource.kind: Required value: kind is required, spec.defaultBackend.resource.name: Required value: name is required]"),
        (json!({"defaultBackend": backend, "tls": [{"hosts": ["Bad"], "secretName": "a_b"}]}), "[spec.tls[0].hosts[0]: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain"),
        (json!({"defaultBackend": backend, "ingressClassName": "No"}), "spec.ingressClassName: Invalid value: \"No\": a lowercase RFC 1123 subdomain"),
    ];
    for (spec, want) in cases {
        let r = call(&mut s, "POST", INGRESSES, Some(ingress("bad", spec.clone())));
        assert_eq!(r.status, 422, "{spec}: {}", message(&r));
        let m = message(&r);
        let want = format!("Ingress.networking.k8s.io \"bad\" is invalid: {want}");
        assert!(m.starts_with(&want), "{spec}:\n got {m}\nwant {want}");
    }
    // A port name that breaks its rules, the last of the service's checks.
    let spec = json!({"defaultBackend": {"service": {"name": "svc", "port": {"name": "80"}}}});
    let r = call(&mut s, "POST", INGRESSES, Some(ingress("bad", spec)));
    assert!(
        message(&r).ends_with(
            "spec.defaultBackend.service.port.name: Invalid value: \"80\": must contain at least one letter (a-z)"
        ),
        "{}",
        message(&r)
    );
    // Wildcards and implementation-specific relative paths that are fine.
    let spec = json!({"rules": [{"host": "*.foo.com", "http": {"paths": [{"pathType": "ImplementationSpecific",
        "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "b"}}}]}}]});
    assert_eq!(call(&mut s, "POST", INGRESSES, Some(ingress("ok", spec))).status, 201);
}

#[test]
fn the_default_class_is_admitted_into_ingresses_that_name_none() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("old", true))).status, 201);
    s.advance(1000);
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("nginx", true))).status, 201);
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("other", false))).status, 201);
    let r = call(&mut s, "POST", INGRESSES, Some(ingress("a", one_rule())));
    assert_eq!(r.json_body()["spec"]["ingressClassName"], "nginx", "the newest default");
    // A class named, by field or annotation, is kept.
    let mut named = one_rule();
    named["ingressClassName"] = json!("other");
    let r = call(&mut s, "POST", INGRESSES, Some(ingress("b", named)));
    assert_eq!(r.json_body()["spec"]["ingressClassName"], "other");
    let mut annotated = ingress("c", one_rule());
    annotated["metadata"]["annotations"] = json!({"kubernetes.io/ingress.class": "legacy"});
    let r = call(&mut s, "POST", INGRESSES, Some(annotated));
    assert_eq!(r.status, 201);
    assert!(r.json_body()["spec"].get("ingressClassName").is_none());
    assert_eq!(
        r.header("Warning"),
        Some("299 - \"annotation \\\"kubernetes.io/ingress.class\\\" is deprecated, please use 'spec.ingressClassName' instead\"")
    );
    // Both, differing: refused on create.
    let mut both = ingress("d", one_rule());
    both["metadata"]["annotations"] = json!({"kubernetes.io/ingress.class": "legacy"});
    both["spec"]["ingressClassName"] = json!("other");
    let r = call(&mut s, "POST", INGRESSES, Some(both));
    assert_eq!(r.status, 422);
    assert_eq!(message(&r), "Ingress.networking.k8s.io \"d\" is invalid: annotations.kubernetes.io/ingress.class: Invalid value: \"legacy\": must match `ingressClassName` when both are specified");
}

#[test]
fn classes_validate_their_controller_and_parameters() {
    let mut s = server();
    let mut c = class("x", false);
    let cases = [
        (json!({"controller": "nginx"}), "spec.controller: Invalid value: \"nginx\": must be a domain-prefixed path (such as \"acme.io/foo\")"),
        (json!({"controller": ""}), "spec.controller: Required value"),
        (json!({"controller": "Acme.io/x"}), "spec.controller: Invalid value: \"Acme.io\": a lowercase RFC 1123 subdomain"),
        (json!({"controller": "acme.io/a b"}), "spec.controller: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"),
        (json!({"controller": "acme.io/x", "parameters": {"kind": "P", "name": "p", "scope": "Namespace"}}), "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"),
        (json!({"controller": "acme.io/x", "parameters": {"kind": "P", "name": "p", "namespace": "n"}}), "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"),
        (json!({"controller": "acme.io/x", "parameters": {"kind": "P", "name": "p", "scope": "World"}}), "spec.parameters.scope: Unsupported value: \"World\": supported values: \"Cluster\", \"Namespace\""),
    ];
    for (spec, want) in cases {
        c["spec"] = spec.clone();
        let r = call(&mut s, "POST", CLASSES, Some(c.clone()));
        assert_eq!(r.status, 422, "{spec}");
        let want = format!("IngressClass.networking.k8s.io \"x\" is invalid: {want}");
        assert!(message(&r).starts_with(&want), "{spec}:\n got {}\nwant {want}", message(&r));
    }
    c["spec"] =
        json!({"controller": "acme.io/x", "parameters": {"apiGroup": "k8s.example.com", "kind": "P", "name": "p"}});
    let r = call(&mut s, "POST", CLASSES, Some(c));
    assert_eq!(r.status, 201);
    assert_eq!(r.json_body()["spec"]["parameters"]["scope"], "Cluster", "defaulted");
    let mut changed = r.json_body();
    changed["spec"]["controller"] = json!("acme.io/y");
    let r = call(&mut s, "PUT", &format!("{CLASSES}/x"), Some(changed));
    assert_eq!(message(&r), "IngressClass.networking.k8s.io \"x\" is invalid: spec.controller: Invalid value: \"acme.io/y\": field is immutable");
}

#[test]
fn kubectl_sees_the_columns_it_prints() {
    let mut s = server();
    let mut c = class("nginx", true);
    c["spec"]["parameters"] = json!({"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "cfg"});
    assert_eq!(call(&mut s, "POST", CLASSES, Some(c)).status, 201);
    let t = table(&mut s, CLASSES);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Controller", "Parameters", "Age"]);
    assert_eq!(t["rows"][0]["cells"][2], "IngressParameters.k8s.example.com/cfg");

    let spec = json!({"tls": [{"hosts": ["a.com"]}], "rules": [
        {"host": "a.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "s", "port": {"number": 80}}}}]}},
        {"host": "b.com"}, {}, {"host": "c.com"}, {"host": "d.com"}]});
    assert_eq!(call(&mut s, "POST", INGRESSES, Some(ingress("web", spec))).status, 201);
    let status = json!({"status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}, {"hostname": "lb.example.com"}, {"ip": "10.0.0.2"}]}}});
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{INGRESSES}/web/status"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(status.to_string().into_bytes()),
    );
    assert_eq!(r.status, 200, "{}", message(&r));
    let t = table(&mut s, INGRESSES);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Class", "Hosts", "Address", "Ports", "Age"]);
    let cells = &t["rows"][0]["cells"];
    assert_eq!(cells[1], "nginx");
    assert_eq!(cells[2], "a.com,b.com,c.com + 2 more...");
    assert_eq!(cells[3], "10.0.0.2,10.0.0.9,lb.example.com");
    assert_eq!(cells[4], "80, 443");
}

#[test]
fn an_ingress_round_trips_through_protobuf() {
    let mut s = server();
    let spec = json!({"ingressClassName": "nginx", "tls": [{"hosts": ["a.com"], "secretName": "t"}], "rules": [
        {"host": "a.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "s", "port": {"name": "http"}}}}]}}]});
    let created = call(&mut s, "POST", INGRESSES, Some(ingress("web", spec))).json_body();
    let pb = s.handle(
        kubesim::server::Request::new("GET", &format!("{INGRESSES}/web"))
            .with_header("Accept", "application/vnd.kubernetes.protobuf"),
    );
    assert_eq!(pb.status, 200);
    // Sent back as protobuf, it is the same object.
    let r = s.handle(
        kubesim::server::Request::new("PUT", &format!("{INGRESSES}/web"))
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(pb.body.clone()),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let back = get(&mut s, &format!("{INGRESSES}/web")).json_body();
    assert_eq!(back["spec"], created["spec"]);
    assert_eq!(back["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"], "nothing changed");
}
