//! Objects as upstream stores and answers them: decoded into Go types, so
//! each struct holds the fields its Go type always encodes, whether the
//! client wrote them or not (`src/schema/zero-fields.json`).

mod common;

use common::{call, server};
use kubesim::server::Request;
use serde_json::{json, Value};

fn has(v: &Value, key: &str) -> bool {
    v.as_object().is_some_and(|m| m.contains_key(key))
}

#[test]
fn a_templates_metadata_holds_a_null_creation_timestamp_no_one_owns() {
    let mut s = server();
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let template_meta = &body["spec"]["template"]["metadata"];
    assert!(has(template_meta, "creationTimestamp") && template_meta["creationTimestamp"].is_null(), "{template_meta}");
    assert_eq!(body["status"], json!({}));
    let fields = &body["metadata"]["managedFields"][0]["fieldsV1"];
    assert_eq!(fields["f:spec"]["f:template"]["f:metadata"], json!({"f:labels": {".": {}, "f:app": {}}}));
    // A read answers the same (it is stored so).
    let r = call(&mut s, "GET", "/apis/apps/v1/namespaces/default/deployments/web", None);
    assert!(has(&r.json_body()["spec"]["template"]["metadata"], "creationTimestamp"));
}

#[test]
fn a_status_patch_that_nulls_a_zero_field_leaves_it_null() {
    let mut s = server();
    let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    assert_eq!(call(&mut s, "POST", "/api/v1/namespaces/default/pods", Some(pod)).status, 201);
    // A strategic merge patch's null deletes a key; Go encodes the zero
    // time as null again, as the kubelet's conditions show it.
    let patch = json!({"status": {"conditions": [{"type": "Ready", "status": "False", "lastProbeTime": null,
        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
        "containerStatuses": [{"name": "c", "image": "nginx", "state": {"waiting": {"reason": "ContainerCreating"}}}]}});
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/pods/p/status")
            .with_header("Content-Type", "application/strategic-merge-patch+json")
            .with_body(serde_json::to_vec(&patch).unwrap()),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let status = r.json_body()["status"].clone();
    let ready = &status["conditions"][0];
    assert!(has(ready, "lastProbeTime") && ready["lastProbeTime"].is_null(), "{ready}");
    let c = &status["containerStatuses"][0];
    assert_eq!(
        (&c["lastState"], &c["ready"], &c["restartCount"], &c["imageID"]),
        (&json!({}), &json!(false), &json!(0), &json!(""))
    );
}

#[test]
fn an_event_holds_its_empty_reporting_fields() {
    let mut s = server();
    let e = json!({"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started", "message": "m", "type": "Normal"});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/events", Some(e));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    assert_eq!((&body["reportingComponent"], &body["reportingInstance"]), (&json!(""), &json!("")), "{body}");
    assert!(has(&body, "eventTime") && body["eventTime"].is_null(), "{body}");
    assert_eq!(body["source"], json!({}));
}

#[test]
fn omitempty_fields_written_empty_are_left_out_and_no_ones() {
    let mut s = server();
    let pod = json!({"metadata": {"name": "p", "labels": {}}, "spec": {
        "hostNetwork": false, "nodeSelector": {}, "terminationGracePeriodSeconds": 0,
        "automountServiceAccountToken": false, "securityContext": {},
        "containers": [{"name": "c", "image": "nginx", "args": [], "stdin": false,
            "ports": [{"containerPort": 80, "hostPort": 0}]}]}});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    let spec = &body["spec"];
    for gone in ["hostNetwork", "nodeSelector"] {
        assert!(!has(spec, gone), "{gone}: {spec}");
    }
    // Pointers keep their zero; an empty struct stays.
    assert_eq!(
        (&spec["terminationGracePeriodSeconds"], &spec["automountServiceAccountToken"]),
        (&json!(0), &json!(false))
    );
    assert_eq!(spec["securityContext"], json!({}));
    let c = &spec["containers"][0];
    assert!(!has(c, "args") && !has(c, "stdin") && !has(&c["ports"][0], "hostPort"), "{c}");
    let fields = &body["metadata"]["managedFields"][0]["fieldsV1"];
    assert!(
        !has(&fields["f:spec"], "f:hostNetwork") && has(&fields["f:spec"], "f:automountServiceAccountToken"),
        "{fields}"
    );
    assert!(!has(&fields["f:metadata"], "f:labels"), "{fields}");

    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 0, "minReadySeconds": 0, "paused": false, "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let spec = r.json_body()["spec"].clone();
    assert_eq!(spec["replicas"], json!(0));
    assert!(!has(&spec, "minReadySeconds") && !has(&spec, "paused"), "{spec}");
}

#[test]
fn a_put_that_leaves_out_a_zero_field_changes_nothing() {
    let mut s = server();
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.status, 201);
    let mut live = r.json_body();
    let rv = live["metadata"]["resourceVersion"].clone();
    // The same object without what Go would write for it anyway.
    live["spec"]["template"]["metadata"].as_object_mut().unwrap().remove("creationTimestamp");
    live.as_object_mut().unwrap().remove("status");
    let r = call(&mut s, "PUT", "/apis/apps/v1/namespaces/default/deployments/web", Some(live));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    assert_eq!(body["metadata"]["generation"], 1, "the spec did not change");
    assert_eq!(body["metadata"]["resourceVersion"], rv, "nothing changed: nothing was written");
}
