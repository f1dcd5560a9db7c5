//! What an update of a pod may change, as kube-apiserver's
//! `ValidatePodUpdate` allows: images, a lower (or first)
//! `activeDeadlineSeconds`, added tolerations and their seconds, removed
//! scheduling gates; anything else of the spec is refused with upstream's
//! Forbidden and a diff naming the fields.

use kubesim::server::{Request, Response, Server, ServerConfig};
use serde_json::{json, Value};

const POD: &str = "/api/v1/namespaces/default/pods/web";
const UPDATABLE: &str = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n";

fn call(s: &mut Server, method: &str, path: &str, ct: &str, body: &Value) -> Response {
    s.handle(Request::new(method, path).with_header("Content-Type", ct).with_body(serde_json::to_vec(body).unwrap()))
}

fn patch(s: &mut Server, body: Value) -> Response {
    call(s, "PATCH", POD, "application/strategic-merge-patch+json", &body)
}

fn text(r: &Response) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

fn server() -> Server {
    let mut s = Server::new(ServerConfig::default());
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"initContainers": [{"name": "init", "image": "busybox"}],
                 "containers": [{"name": "c", "image": "nginx:1"}],
                 "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
                 "schedulingGates": [{"name": "wait"}, {"name": "longer"}]}});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/pods", "application/json", &pod);
    assert_eq!(r.status, 201, "{}", text(&r));
    s
}

/// A 422's message without its `Pod "web" is invalid: ` head.
fn refused(r: &Response) -> String {
    assert_eq!(r.status, 422, "{}", text(r));
    let b = r.json_body();
    assert_eq!(b["reason"], "Invalid");
    b["message"].as_str().unwrap().strip_prefix("Pod \"web\" is invalid: ").unwrap().to_string()
}

#[test]
fn images_deadlines_tolerations_and_gates_change_as_upstream_allows() {
    let mut s = server();
    let r = patch(&mut s, json!({"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = patch(&mut s, json!({"spec": {"initContainers": [{"name": "init", "image": "busybox:2"}]}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    // A deadline may be set, then lowered; not raised, not removed.
    assert_eq!(patch(&mut s, json!({"spec": {"activeDeadlineSeconds": 100}})).status, 200);
    assert_eq!(patch(&mut s, json!({"spec": {"activeDeadlineSeconds": 50}})).status, 200);
    assert_eq!(
        refused(&patch(&mut s, json!({"spec": {"activeDeadlineSeconds": 60}}))),
        "spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value"
    );
    assert_eq!(
        refused(&patch(&mut s, json!({"spec": {"activeDeadlineSeconds": null}}))),
        "spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive integer to nil value"
    );
    // Tolerations may be added, and their seconds changed; not removed.
    let t = |secs: i64| json!({"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": secs});
    let r = patch(
        &mut s,
        json!({"spec": {"$setElementOrder/tolerations": [t(5), {"key": "b"}],
        "tolerations": [t(5), {"key": "b", "operator": "Exists"}]}}),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = patch(&mut s, json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}));
    assert!(
        refused(&r).starts_with(
            "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
        ),
        "{}",
        text(&r)
    );
    // Gates may be removed, not added (a merge patch replaces the list).
    let merge = |s: &mut Server, body: Value| call(s, "PATCH", POD, "application/merge-patch+json", &body);
    let r = merge(&mut s, json!({"spec": {"schedulingGates": [{"name": "wait"}, {"name": "new"}]}}));
    assert_eq!(
        refused(&r),
        "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'new'"
    );
    let r = merge(&mut s, json!({"spec": {"schedulingGates": [{"name": "wait"}]}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let now = r.json_body();
    assert_eq!(now["spec"]["containers"][0]["image"], "nginx:2");
    assert_eq!(now["spec"]["activeDeadlineSeconds"], 50);
    assert_eq!(now["spec"]["schedulingGates"], json!([{"name": "wait"}]));
}

#[test]
fn any_other_change_is_forbidden_with_the_fields_it_touches() {
    let mut s = server();
    let r = patch(&mut s, json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}]}}));
    let message = refused(&r);
    let body = r.json_body();
    assert_eq!(body["details"]["causes"][0]["field"], "spec");
    assert_eq!(body["details"]["causes"][0]["reason"], "FieldValueForbidden");
    let diff = message.strip_prefix(&format!("spec: Forbidden: {UPDATABLE}")).expect(&message);
    assert!(diff.starts_with("  core.PodSpec{\n") && diff.ends_with("  }\n"), "{diff}");
    let lines: Vec<&str> = diff.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("- \tVolumes: [{\"name\":\"kube-api-access-")), "{diff}");
    assert!(
        lines.iter().any(|l| l.starts_with("+ \tVolumes: [") && l.contains("{\"name\":\"v\",\"emptyDir\":{}}")),
        "{diff}"
    );
    assert!(lines.iter().any(|l| l.contains("identical fields")), "{diff}");

    // A port, a node, an image together with a command: each its line.
    let r = patch(
        &mut s,
        json!({"spec": {"nodeName": "worker", "containers": [{"name": "c", "image": "nginx:3", "command": ["sh"]}]}}),
    );
    let message = refused(&r);
    assert!(message.contains("+ \tNodeName: \"worker\",\n"), "{message}");
    assert!(message.contains("+ \tContainers: [") && message.contains("\"command\":[\"sh\"]"), "{message}");
    assert!(!message.contains("- \tNodeName"), "no old node: {message}");

    // More containers: said alone, before anything else.
    let r = patch(&mut s, json!({"spec": {"containers": [{"name": "d", "image": "nginx"}], "nodeName": "worker"}}));
    assert_eq!(refused(&r), "spec.containers: Forbidden: pod updates may not add or remove containers");

    // A replace that leaves out what admission set (its account) is
    // refused as on a cluster.
    let mut pod = call(&mut s, "GET", POD, "application/json", &Value::Null).json_body();
    let spec = pod["spec"].as_object_mut().unwrap();
    spec.remove("serviceAccountName");
    spec.remove("serviceAccount");
    let message = refused(&call(&mut s, "PUT", POD, "application/json", &pod));
    assert!(message.contains("- \tServiceAccountName: \"default\",\n"), "{message}");
    // The same object sent back unchanged is no change.
    // An empty list or a null where the pod has none is no change either
    // (Go's nil and empty slices compare equal there).
    let mut pod = call(&mut s, "GET", POD, "application/json", &Value::Null).json_body();
    pod["spec"]["imagePullSecrets"] = json!([]);
    pod["spec"]["nodeSelector"] = Value::Null;
    let r = call(&mut s, "PUT", POD, "application/json", &pod);
    assert_eq!(r.status, 200, "{}", text(&r));

    // Labels and annotations are metadata, free to change; the mirror
    // pod's annotation is not.
    assert_eq!(patch(&mut s, json!({"metadata": {"labels": {"tier": "web"}}})).status, 200);
    let r = patch(&mut s, json!({"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}}));
    assert_eq!(
        refused(&r),
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation"
    );
}

#[test]
fn a_pods_generation_counts_its_spec_changes_and_its_graceful_delete() {
    let mut s = server();
    let generation = |s: &mut Server| {
        let r = s.handle(Request::new("GET", POD));
        r.json_body()["metadata"]["generation"].clone()
    };
    assert_eq!(generation(&mut s), 1);
    // What a client sends is not kept, on create or after.
    let pod =
        json!({"metadata": {"name": "other", "generation": 5}, "spec": {"containers": [{"name": "c", "image": "x"}]}});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/pods", "application/json", &pod);
    assert_eq!(r.json_body()["metadata"]["generation"], 1);
    assert_eq!(patch(&mut s, json!({"metadata": {"generation": 9}})).status, 200);
    assert_eq!(generation(&mut s), 1);
    // Labels, status and binding are not the spec.
    assert_eq!(patch(&mut s, json!({"metadata": {"labels": {"a": "b"}}})).status, 200);
    let status = json!({"status": {"phase": "Pending", "message": "waiting"}});
    let r = call(&mut s, "PATCH", &format!("{POD}/status"), "application/merge-patch+json", &status);
    assert_eq!(r.status, 200, "{}", text(&r));
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"}, "target": {"kind": "Node", "name": "n"}});
    let r = call(&mut s, "POST", &format!("{POD}/binding"), "application/json", &binding);
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(generation(&mut s), 1);
    // An image is.
    assert_eq!(patch(&mut s, json!({"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}})).status, 200);
    assert_eq!(generation(&mut s), 2);
    // A graceful delete sets deletionTimestamp and counts once.
    let r = s.handle(Request::new("DELETE", POD));
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(generation(&mut s), 3);
    let r = s.handle(Request::new("DELETE", &format!("{POD}?gracePeriodSeconds=5")));
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(generation(&mut s), 3);
}
