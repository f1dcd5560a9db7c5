//! The managed fields an Update (POST, PUT, PATCH) records, entry for
//! entry as kube-apiserver writes them: a node the write added holds `.`
//! when it has children; a node the kind's zero Go value already holds (a
//! non-pointer struct such as `strategy`, a field never omitted such as
//! `containers`) does not.

mod common;

use common::{call, server};
use serde_json::{json, Value};

fn fields(body: &Value) -> &Value {
    &body["metadata"]["managedFields"][0]["fieldsV1"]
}

#[test]
fn a_deployment_created_as_kubectl_create_sends_it_is_owned_as_upstream_records_it() {
    let mut s = server();
    // The body `kubectl create deployment web --image=nginx` sends.
    let body = json!({"kind": "Deployment", "apiVersion": "apps/v1",
        "metadata": {"name": "web", "creationTimestamp": null, "labels": {"app": "web"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]}},
            "strategy": {}},
        "status": {}});
    let r =
        call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create", Some(body));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    // As a real cluster records that create (kube-apiserver's answer).
    let upstream: Value = serde_json::from_str(
        r#"{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}"#,
    )
    .unwrap();
    let body = r.json_body();
    assert_eq!(fields(&body), &upstream);
    // In upstream's order too: the keys sorted, `.` first.
    assert_eq!(serde_json::to_string(fields(&body)).unwrap(), serde_json::to_string(&upstream).unwrap());

    // A later write that adds a pointer struct to a container owns it with
    // `.`; the container's non-pointer `resources` was there all along.
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "nginx",
        "livenessProbe": {"httpGet": {"path": "/", "port": 80}}, "resources": {"limits": {"cpu": "1"}}}]}}}});
    let r = s.handle(
        kubesim::server::Request::new("PATCH", "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=editor")
            .with_header("Content-Type", "application/strategic-merge-patch+json")
            .with_body(serde_json::to_vec(&patch).unwrap()),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let editor = body["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "editor")
        .expect("the editor's entry")["fieldsV1"]
        .clone();
    let container = &editor["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"nginx\"}"];
    assert!(container.get(".").is_none(), "the item existed: {editor}");
    assert!(container["f:resources"].get(".").is_none(), "{editor}");
    assert_eq!(container["f:resources"]["f:limits"], json!({".": {}, "f:cpu": {}}));
    let probe = &container["f:livenessProbe"];
    assert_eq!(probe["."], json!({}), "{editor}");
    assert_eq!(probe["f:httpGet"]["."], json!({}), "{editor}");
}

#[test]
fn a_pod_created_with_an_empty_pointer_struct_owns_it_as_a_leaf() {
    let mut s = server();
    let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx",
        "securityContext": {}, "ports": [{"containerPort": 80}]}]}});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let spec = &fields(&body)["f:spec"];
    assert!(spec.get(".").is_none() && spec["f:containers"].get(".").is_none(), "{spec}");
    let c = &spec["f:containers"]["k:{\"name\":\"c\"}"];
    assert_eq!(c["f:securityContext"], json!({}));
    assert_eq!(
        c["f:ports"],
        json!({".": {}, "k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}})
    );
}

#[test]
fn a_priority_class_of_value_zero_does_not_own_the_value_its_zero_value_holds() {
    let mut s = server();
    let pc = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "zero"}, "value": 0, "description": "d"});
    let r = call(&mut s, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", Some(pc));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let f = fields(&body);
    assert_eq!(f.get("f:description"), Some(&json!({})), "{f}");
    assert!(f.get("f:value").is_none(), "value 0 is PriorityClass{{}}'s own: {f}");
}

#[test]
fn an_applied_port_without_its_protocol_is_keyed_by_the_default() {
    // Ports are a list map keyed by containerPort and protocol; protocol
    // defaults to TCP, so an item that leaves it out is the TCP item (as
    // structured-merge-diff keys it), not a second one.
    let mut s = server();
    let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n      - name: api\n        image: nginx\n        ports:\n        - containerPort: 80\n";
    let apply = |s: &mut kubesim::server::Server| {
        s.handle(
            kubesim::server::Request::new("PATCH", "/apis/apps/v1/namespaces/default/deployments/api?fieldManager=me")
                .with_header("Content-Type", "application/apply-patch+yaml")
                .with_body(yaml.as_bytes().to_vec()),
        )
    };
    assert_eq!(apply(&mut s).status, 201);
    let r = apply(&mut s);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let c = &body["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["ports"], json!([{"containerPort": 80, "protocol": "TCP"}]));
    assert_eq!(body["metadata"]["generation"], 1, "applying the same configuration again changes nothing");
    let mine = &body["metadata"]["managedFields"][0]["fieldsV1"];
    let ports = &mine["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"api\"}"]["f:ports"];
    assert!(ports.get("k:{\"containerPort\":80,\"protocol\":\"TCP\"}").is_some(), "{ports}");
}
