//! `pods/NAME/ephemeralcontainers`, what `kubectl debug` writes: a pod's
//! ephemeral containers are added through it alone (upstream's
//! `podEphemeralContainersStrategy` keeps every other change out, and
//! `ValidatePodEphemeralContainersUpdate` refuses removing or changing
//! one), never on create or in a template; the kubelet starts each once.

mod common;

use common::{text, Cluster};
use kubesim::server::Response;
use serde_json::{json, Value};

const POD: &str = "/api/v1/namespaces/default/pods/web";
const ECS: &str = "/api/v1/namespaces/default/pods/web/ephemeralcontainers";
const SMP: &str = "application/strategic-merge-patch+json";

/// A 422's message without its `Pod "web" is invalid: ` head.
fn refused(r: &Response) -> String {
    common::refused(r, "Pod \"web\" is invalid: ")
}

/// A cluster with a Ready node and the pod `web` running on it.
fn cluster() -> Cluster {
    let mut k = Cluster::new();
    k.ready_node("n", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    let pod = json!({"metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}});
    let r = k.call("POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(k.get(POD).json_body()["status"]["phase"], "Running");
    k
}

/// What `kubectl debug web --image=IMAGE --target=app` sends.
fn debug(k: &mut Cluster, name: &str, image: &str) -> Response {
    let ec = json!({"image": image, "name": name, "resources": {}, "targetContainerName": "app",
        "terminationMessagePolicy": "File"});
    k.send("PATCH", ECS, SMP, &json!({"spec": {"ephemeralContainers": [ec]}}).to_string())
}

fn statuses(k: &mut Cluster) -> Vec<Value> {
    k.get(POD).json_body()["status"]["ephemeralContainerStatuses"].as_array().cloned().unwrap_or_default()
}

#[test]
fn kubectl_debug_adds_a_container_the_kubelet_starts_once() {
    let mut k = cluster();
    let before = k.get(POD).json_body();
    let r = debug(&mut k, "debugger-abcde", "busybox");
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = r.json_body();
    assert_eq!(pod["kind"], "Pod", "the subresource answers with the pod");
    // Defaulted as a container is.
    assert_eq!(
        pod["spec"]["ephemeralContainers"][0],
        json!({"image": "busybox", "name": "debugger-abcde", "resources": {}, "targetContainerName": "app",
            "terminationMessagePolicy": "File", "terminationMessagePath": "/dev/termination-log",
            "imagePullPolicy": "Always"})
    );
    // Nothing else of the pod changed; its spec did, so its generation.
    assert_eq!(pod["spec"]["containers"], before["spec"]["containers"]);
    assert_eq!((before["metadata"]["generation"].as_i64(), pod["metadata"]["generation"].as_i64()), (Some(1), Some(2)));
    // The field manager records the subresource.
    let entry = pod["metadata"]["managedFields"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (entry["operation"].as_str(), entry["subresource"].as_str()),
        (Some("Update"), Some("ephemeralcontainers"))
    );
    // A shell with no stdin ends at once; it is not restarted.
    let st = statuses(&mut k);
    assert_eq!(st.len(), 1);
    assert_eq!(st[0]["name"], "debugger-abcde");
    assert_eq!(st[0]["ready"], false);
    assert_eq!(st[0]["state"]["terminated"]["reason"], "Completed");
    assert_eq!(st[0]["image"], "docker.io/library/busybox:latest");
    assert!(st[0].get("started").is_none());
    // A server keeps running; the first container's status stays.
    let r = k.send(
        "PATCH",
        ECS,
        SMP,
        &json!({"spec": {"$setElementOrder/ephemeralContainers": [{"name": "debugger-abcde"}, {"name": "web-debug"}],
            "ephemeralContainers": [{"name": "web-debug", "image": "nginx:1.27"}]}})
        .to_string(),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let st = statuses(&mut k);
    assert_eq!(st.len(), 2);
    assert_eq!(st[0]["state"]["terminated"]["reason"], "Completed");
    assert!(st[1]["state"]["running"]["startedAt"].is_string(), "{}", st[1]);
    let started = k.event_messages("reason=Started");
    assert!(started.contains(&"Started container web-debug".to_string()), "{started:?}");
    let e = k.events("reason=Started").into_iter().find(|e| e["message"] == "Started container web-debug").unwrap();
    assert_eq!(e["involvedObject"]["fieldPath"], "spec.ephemeralContainers{web-debug}");
    // Its log can be asked for by name.
    let r = k.get("/api/v1/namespaces/default/pods/web/log?container=web-debug");
    assert_eq!(r.status, 200, "{}", text(&r));
    // GET reads the pod.
    assert_eq!(k.get(ECS).json_body()["metadata"]["name"], "web");
}

#[test]
fn only_the_ephemeral_containers_change_and_only_by_additions() {
    let mut k = cluster();
    assert_eq!(debug(&mut k, "dbg", "busybox").status, 200);
    // Everything else a write there sends is dropped: labels, images.
    let mut pod = k.get(POD).json_body();
    pod["metadata"]["labels"]["app"] = json!("other");
    pod["spec"]["containers"][0]["image"] = json!("nginx:2");
    pod["spec"]["ephemeralContainers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "two", "image": "busybox", "stdin": true}));
    let r = k.call("PUT", ECS, Some(pod));
    assert_eq!(r.status, 200, "{}", text(&r));
    let now = k.get(POD).json_body();
    assert_eq!(now["metadata"]["labels"]["app"], "web");
    assert_eq!(now["spec"]["containers"][0]["image"], "nginx:1.27");
    assert_eq!(now["spec"]["ephemeralContainers"][1]["name"], "two");
    // With stdin to read, a shell runs.
    assert!(statuses(&mut k)[1]["state"]["running"].is_object());
    // Removing or changing one is refused.
    let r = k.send(
        "PATCH",
        ECS,
        "application/json-patch+json",
        r#"[{"op":"remove","path":"/spec/ephemeralContainers/0"}]"#,
    );
    assert_eq!(
        refused(&r),
        "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"
    );
    let r = k.send(
        "PATCH",
        ECS,
        "application/json-patch+json",
        r#"[{"op":"replace","path":"/spec/ephemeralContainers/0/image","value":"alpine"}]"#,
    );
    let m = refused(&r);
    assert!(m.starts_with("spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be changed\n  core.EphemeralContainer{\n"), "{m}");
    assert!(m.contains("- \tImage: \"busybox\",\n+ \tImage: \"alpine\",\n"), "{m}");
    // The pod itself may not gain them: they are part of its spec.
    let mut pod = k.get(POD).json_body();
    pod["spec"]["ephemeralContainers"].as_array_mut().unwrap().push(json!({"name": "three", "image": "busybox"}));
    let m = refused(&k.call("PUT", POD, Some(pod)));
    assert!(m.starts_with("spec: Forbidden: pod updates may not change fields other than"), "{m}");
}

#[test]
fn what_an_ephemeral_container_may_not_have() {
    let mut k = cluster();
    let ec = json!({"name": "app", "image": "busybox", "targetContainerName": "nope",
        "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}},
        "readinessProbe": {"exec": {"command": ["true"]}},
        "volumeMounts": [{"name": "v", "mountPath": "/v", "subPath": "x"}]});
    let r = k.send("PATCH", ECS, SMP, &json!({"spec": {"ephemeralContainers": [ec]}}).to_string());
    assert_eq!(r.status, 422, "{}", text(&r));
    let causes: Vec<String> = r.json_body()["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}: {}",
                c["reason"].as_str().unwrap(),
                c["field"].as_str().unwrap(),
                c["message"].as_str().unwrap()
            )
        })
        .collect();
    for want in [
        "FieldValueDuplicate spec.ephemeralContainers[0].name: Duplicate value: \"app\"",
        "FieldValueNotFound spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"",
        "FieldValueForbidden spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
        "FieldValueForbidden spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container",
        "FieldValueForbidden spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container",
        "FieldValueForbidden spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container",
    ] {
        assert!(causes.iter().any(|c| c == want), "{want} not in {causes:#?}");
    }
    let r = k.send("PATCH", ECS, SMP, &json!({"spec": {"ephemeralContainers": [{"name": "x"}]}}).to_string());
    assert_eq!(refused(&r), "spec.ephemeralContainers[0].image: Required value");
    // Not on create, not in a template.
    let pod = json!({"metadata": {"name": "early"}, "spec": {"containers": [{"name": "a", "image": "nginx"}],
        "ephemeralContainers": [{"name": "e", "image": "busybox"}]}});
    let r = k.call("POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "Pod \"early\" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create"
    );
    let rs = json!({"metadata": {"name": "rs"}, "spec": {"selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "a", "image": "nginx"}],
            "ephemeralContainers": [{"name": "e", "image": "busybox"}]}}}});
    let r = k.call("POST", "/apis/apps/v1/namespaces/default/replicasets", Some(rs));
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"].as_str().unwrap().ends_with(
        "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"
    ));
    // A mirror pod has none.
    let mirror = json!({"metadata": {"name": "static", "annotations": {"kubernetes.io/config.mirror": "x"}},
        "spec": {"nodeName": "n", "containers": [{"name": "a", "image": "nginx"}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(mirror)).status, 201);
    let r = k.send(
        "PATCH",
        "/api/v1/namespaces/default/pods/static/ephemeralcontainers",
        SMP,
        r#"{"spec":{"ephemeralContainers":[{"name":"d","image":"busybox"}]}}"#,
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "Pod \"static\" is invalid: []: Forbidden: static pods do not support ephemeral containers"
    );
}

#[test]
fn discovery_lists_the_subresource_and_other_resources_do_not_serve_it() {
    let mut k = cluster();
    let list = k.get("/api/v1").json_body();
    let entry = list["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods/ephemeralcontainers").cloned();
    assert_eq!(
        entry,
        Some(json!({"name": "pods/ephemeralcontainers", "singularName": "", "namespaced": true, "kind": "Pod",
            "verbs": ["get", "patch", "update"]}))
    );
    let r = k.call("POST", ECS, Some(json!({})));
    assert_eq!(r.status, 405);
    let r = k.get("/api/v1/namespaces/default/configmaps/x/ephemeralcontainers");
    assert_eq!(r.status, 404);
}
