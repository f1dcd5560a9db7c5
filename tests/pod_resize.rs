//! `pods/NAME/resize`, in-place pod resize (beta and on in 1.33): only the
//! containers' `resources` and `resizePolicy` change through it (upstream's
//! `podResizeStrategy`), `ValidatePodResize` refuses what a running
//! container cannot take, and the kubelet allocates then actuates the
//! resize, or says why it cannot (`PodResizePending`).

mod common;

use common::{text, Cluster};
use kubesim::server::Response;
use serde_json::{json, Value};

const POD: &str = "/api/v1/namespaces/default/pods/web";
const RESIZE: &str = "/api/v1/namespaces/default/pods/web/resize";
const SMP: &str = "application/strategic-merge-patch+json";

/// A 422's message without its `Pod "web" is invalid: ` head.
fn refused(r: &Response) -> String {
    common::refused(r, "Pod \"web\" is invalid: ")
}

/// A cluster with a Ready node (2 cpu, 4Gi) and the Burstable pod `web`
/// running on it (`resources` and `policy` its container's).
fn cluster(resources: Value, policy: Value) -> Cluster {
    let mut k = Cluster::new();
    k.ready_node("n", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    let mut c = json!({"name": "app", "image": "nginx:1.27", "resources": resources});
    if !policy.is_null() {
        c["resizePolicy"] = policy;
    }
    let pod = json!({"metadata": {"name": "web"}, "spec": {"containers": [c]}});
    let r = k.call("POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(k.get(POD).json_body()["status"]["phase"], "Running");
    k
}

fn burstable() -> Cluster {
    cluster(json!({"requests": {"cpu": "500m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}), Value::Null)
}

/// What `kubectl patch pod web --subresource resize -p …` sends.
fn resize(k: &mut Cluster, resources: Value) -> Response {
    let patch = json!({"spec": {"containers": [{"name": "app", "resources": resources}]}});
    k.send("PATCH", RESIZE, SMP, &patch.to_string())
}

/// A condition's type, reason and message.
type Condition = (String, String, String);

fn conditions(pod: &Value) -> Vec<Condition> {
    let field = |c: &Value, k: &str| c[k].as_str().unwrap_or("").to_string();
    pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"].as_str().is_some_and(|t| t.starts_with("PodResize")))
        .map(|c| (field(c, "type"), field(c, "reason"), field(c, "message")))
        .collect()
}

#[test]
fn a_running_pod_reports_its_resources_and_a_resize_is_allocated_then_actuated() {
    let mut k = burstable();
    let pod = k.get(POD).json_body();
    let st = &pod["status"]["containerStatuses"][0];
    assert_eq!(st["allocatedResources"], json!({"cpu": "500m", "memory": "128Mi"}));
    assert_eq!(st["resources"], json!({"requests": {"cpu": "500m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}));
    let rv = pod["metadata"]["resourceVersion"].as_str().unwrap().parse::<u64>().unwrap();

    // GET answers with the pod, as kubectl's patch first reads it.
    let r = k.get(RESIZE);
    assert_eq!((r.status, r.json_body()["kind"].as_str()), (200, Some("Pod")));

    let r = resize(&mut k, json!({"requests": {"cpu": "800m"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let answered = r.json_body();
    assert_eq!(answered["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "800m", "memory": "128Mi"}));
    assert_eq!(answered["metadata"]["generation"], 2, "a spec change");
    let entry = answered["metadata"]["managedFields"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(entry["subresource"], "resize");

    // The watch shows the kubelet's two steps: allocated (in progress),
    // then actuated (the condition gone).
    let w =
        k.get(&format!("/api/v1/namespaces/default/pods?watch=1&resourceVersion={rv}&fieldSelector=metadata.name=web"));
    let seen: Vec<Value> = common::events(&w).into_iter().map(|(_, o)| o).collect();
    let steps: Vec<(Vec<Condition>, Value, Value)> = seen
        .iter()
        .map(|p| {
            let st = &p["status"]["containerStatuses"][0];
            (conditions(p), st["allocatedResources"]["cpu"].clone(), st["resources"]["requests"]["cpu"].clone())
        })
        .collect();
    let in_progress = ("PodResizeInProgress".to_string(), String::new(), String::new());
    assert!(steps.contains(&(vec![in_progress], json!("800m"), json!("500m"))), "{steps:?}");
    let last = steps.last().unwrap();
    assert_eq!(last, &(vec![], json!("800m"), json!("800m")));
    // Nothing restarted: the policy is NotRequired by default.
    let pod = k.get(POD).json_body();
    assert_eq!(pod["status"]["containerStatuses"][0]["restartCount"], 0);
}

#[test]
fn only_resources_and_resize_policies_change_through_the_subresource() {
    let mut k = burstable();
    let mut pod = k.get(POD).json_body();
    pod["metadata"]["labels"] = json!({"sneaked": "in"});
    pod["spec"]["containers"][0]["image"] = json!("nginx:1.28");
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("600m");
    pod["spec"]["containers"][0]["resizePolicy"] = json!([{"resourceName": "cpu", "restartPolicy": "NotRequired"}]);
    pod["spec"]["activeDeadlineSeconds"] = json!(30);
    let r = k.call("PUT", RESIZE, Some(pod));
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = r.json_body();
    let c = &pod["spec"]["containers"][0];
    assert_eq!((c["image"].as_str(), c["resources"]["requests"]["cpu"].as_str()), (Some("nginx:1.27"), Some("600m")));
    assert_eq!(c["resizePolicy"], json!([{"resourceName": "cpu", "restartPolicy": "NotRequired"}]));
    assert!(pod["spec"]["activeDeadlineSeconds"].is_null());
    assert!(pod["metadata"]["labels"].is_null());
    // The main resource still refuses a resources change.
    let mut pod = k.get(POD).json_body();
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("700m");
    let m = refused(&k.call("PUT", POD, Some(pod)));
    assert!(m.starts_with("spec: Forbidden: pod updates may not change fields other than"), "{m}");
}

#[test]
fn what_a_resize_may_not_do_is_refused_in_upstreams_words() {
    let mut k = burstable();
    let m = refused(&resize(
        &mut k,
        json!({"requests": {"cpu": "500m", "memory": "128Mi"}, "limits": {"memory": "200Mi"}}),
    ));
    assert_eq!(
        m,
        "spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer"
    );
    // Removing a request (a memory request would come back from its
    // limit, as defaulting sets it; cpu has none).
    let r = resize(&mut k, json!({"requests": {"cpu": null}}));
    assert_eq!(refused(&r), "spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed");
    // A resource other than cpu and memory.
    let r = resize(&mut k, json!({"requests": {"ephemeral-storage": "1Gi"}}));
    assert_eq!(refused(&r), "spec: Forbidden: only cpu and memory resources are mutable");
    // The QoS class may not change (requests equal to limits make it Guaranteed).
    let r =
        resize(&mut k, json!({"requests": {"cpu": "1", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "256Mi"}}));
    assert_eq!(refused(&r), "spec: Invalid value: \"Burstable\": Pod QOS Class may not change as a result of resizing");
    // Containers may not be added.
    let app = k.get(POD).json_body()["spec"]["containers"][0].clone();
    let two = json!({"spec": {"containers": [app, {"name": "more", "image": "busybox"}]}});
    let r = k.send("PATCH", RESIZE, "application/merge-patch+json", &two.to_string());
    assert_eq!(refused(&r), "spec.containers: Forbidden: containers may not be added or removed on resize");
    // A resize policy names cpu or memory, once each.
    let policy = json!([{"resourceName": "cpu", "restartPolicy": "NotRequired"}, {"resourceName": "cpu", "restartPolicy": "Sometimes"}]);
    let patch = json!({"spec": {"containers": [{"name": "app", "resizePolicy": policy}]}});
    let r = k.send("PATCH", RESIZE, SMP, &patch.to_string());
    assert_eq!(
        refused(&r),
        "[spec.containers[0].resizePolicy[1]: Duplicate value: \"cpu\", spec.containers[0].resizePolicy: Unsupported value: \"Sometimes\": supported values: \"NotRequired\", \"RestartContainer\"]"
    );
}

#[test]
fn a_static_pod_is_never_resized() {
    let mut k = Cluster::new();
    let node = json!({"metadata": {"name": "n"}});
    assert_eq!(k.call("POST", "/api/v1/nodes", Some(node)).status, 201);
    let pod = json!({"metadata": {"name": "web", "annotations": {"kubernetes.io/config.mirror": "abc"}},
        "spec": {"nodeName": "n", "containers": [{"name": "app", "image": "nginx"}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(pod)).status, 201);
    let r = resize(&mut k, json!({"requests": {"cpu": "100m"}}));
    assert_eq!(refused(&r), "[]: Forbidden: static pods cannot be resized");
}

#[test]
fn the_kubelet_says_why_a_resize_waits_and_carries_it_out_when_there_is_room() {
    let mut k = burstable();
    // More than the node has at all: never.
    let r = resize(&mut k, json!({"requests": {"cpu": "3"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = k.get(POD).json_body();
    let why = (
        "PodResizePending".to_string(),
        "Infeasible".to_string(),
        "Node didn't have enough capacity: cpu, requested: 3000, capacity: 2000".to_string(),
    );
    assert_eq!(conditions(&pod), vec![why]);
    assert_eq!(pod["status"]["containerStatuses"][0]["resources"]["requests"]["cpu"], "500m");

    // Another pod takes a cpu: 1.8 cpu no longer fits beside it.
    let other = json!({"metadata": {"name": "other"}, "spec": {"containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": "1"}}}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(other)).status, 201);
    let r = resize(&mut k, json!({"requests": {"cpu": "1800m"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = k.get(POD).json_body();
    let why = (
        "PodResizePending".to_string(),
        "Deferred".to_string(),
        "Node didn't have enough resource: cpu, requested: 1800, used: 1000, capacity: 2000".to_string(),
    );
    assert_eq!(conditions(&pod), vec![why]);

    // The other pod goes: the deferred resize is carried out.
    let r = k.call("DELETE", "/api/v1/namespaces/default/pods/other?gracePeriodSeconds=0", None);
    assert!(r.status < 300, "{}", text(&r));
    let pod = k.get(POD).json_body();
    assert_eq!(conditions(&pod), vec![]);
    assert_eq!(pod["status"]["containerStatuses"][0]["resources"]["requests"]["cpu"], "1800m");
    assert_eq!(pod["status"]["containerStatuses"][0]["allocatedResources"]["cpu"], "1800m");
}

#[test]
fn a_restart_container_policy_restarts_the_container_for_its_resize() {
    let policy = json!([{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]);
    let mut k = cluster(json!({"requests": {"cpu": "500m", "memory": "128Mi"}}), policy);
    let r = resize(&mut k, json!({"requests": {"memory": "200Mi"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = k.get(POD).json_body();
    assert_eq!(pod["status"]["containerStatuses"][0]["restartCount"], 0, "memory's policy is NotRequired");
    let r = resize(&mut k, json!({"requests": {"cpu": "700m"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    let pod = k.get(POD).json_body();
    let st = &pod["status"]["containerStatuses"][0];
    assert_eq!(st["restartCount"], 1);
    assert_eq!(st["resources"]["requests"], json!({"cpu": "700m", "memory": "200Mi"}));
    assert!(!st["lastState"]["terminated"].is_null());
    let events = k.event_messages("involvedObject.name=web,reason=Killing");
    assert_eq!(events, vec!["Container app resize requires restart".to_string()]);
}

#[test]
fn the_scheduler_counts_what_a_pod_holds_after_its_resize() {
    let mut k = burstable();
    // A resize the node can never take: the pod holds what it runs with.
    assert_eq!(resize(&mut k, json!({"requests": {"cpu": "3"}})).status, 200);
    let p = json!({"metadata": {"name": "fits"}, "spec": {"containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": "1200m"}}}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(p)).status, 201);
    let fits = k.get("/api/v1/namespaces/default/pods/fits").json_body();
    assert_eq!(fits["spec"]["nodeName"], "n");
    assert_eq!(k.call("DELETE", "/api/v1/namespaces/default/pods/fits?gracePeriodSeconds=0", None).status, 200);
    assert_eq!(resize(&mut k, json!({"requests": {"cpu": "1500m"}})).status, 200);
    // 2 cpu less 1.5 held: a pod asking 600m waits.
    let p = json!({"metadata": {"name": "late"}, "spec": {"containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": "600m"}}}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(p)).status, 201);
    let late = k.get("/api/v1/namespaces/default/pods/late").json_body();
    assert!(late["spec"]["nodeName"].is_null(), "{late}");
}

#[test]
fn a_request_added_where_there_was_none_is_only_the_qos_class_s_business() {
    let mut k = cluster(json!({"limits": {"cpu": "1"}, "requests": {"memory": "64Mi"}}), Value::Null);
    // Burstable before and after: a cpu request below its limit is fine.
    let r = resize(&mut k, json!({"requests": {"cpu": "250m"}}));
    assert_eq!(r.status, 200, "{}", text(&r));
    // A BestEffort pod would become Burstable: refused for that alone.
    let mut k = cluster(json!({}), Value::Null);
    let r = resize(&mut k, json!({"requests": {"cpu": "250m"}}));
    assert_eq!(
        refused(&r),
        "spec: Invalid value: \"BestEffort\": Pod QOS Class may not change as a result of resizing"
    );
}

#[test]
fn resize_policies_are_validated_on_every_pod_write() {
    let mut k = Cluster::new();
    let pod = json!({"metadata": {"name": "web"}, "spec": {"restartPolicy": "Never",
        "initContainers": [{"name": "init", "image": "busybox",
            "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}],
        "containers": [{"name": "app", "image": "nginx",
            "resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]}]}});
    let r = k.call("POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(
        refused(&r),
        "[spec.initContainers[0].resizePolicy: Invalid value: []core.ContainerResizePolicy{core.ContainerResizePolicy{ResourceName:\"cpu\", RestartPolicy:\"NotRequired\"}}: must not be set for init containers, spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when `restartPolicy` is 'Never']"
    );
}
