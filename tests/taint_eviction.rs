//! The taint eviction controller through requests: pods on a node with a
//! `NoExecute` taint they do not tolerate are marked and deleted at once,
//! those that tolerate it for a while after their `tolerationSeconds`,
//! those that tolerate it for ever never; taints removed or pods deleted
//! cancel a wait, and each step is an event as upstream's.

mod common;
use common::*;
use serde_json::{json, Value};

const PODS: &str = "/api/v1/namespaces/default/pods";

/// Nodes n1 and n2, and a pod `name` bound to n1 with these tolerations
/// (it sleeps, so it takes its grace period to stop).
fn cluster_with_pod(name: &str, tolerations: Value) -> Cluster {
    let mut k = Cluster::new();
    k.ready_node("n1", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    k.ready_node("n2", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    add_pod(&mut k, name, tolerations);
    k
}

/// Lets the kubelet start what was bound.
fn start(k: &mut Cluster) {
    pass(k, 10_000);
}

fn add_pod(k: &mut Cluster, name: &str, tolerations: Value) {
    let p = json!({"metadata": {"name": name}, "spec": {"nodeName": "n1", "tolerations": tolerations,
        "containers": [{"name": "c", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}});
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 201, "{}", text(&r));
}

fn taint(k: &mut Cluster, node: &str, taints: Value) {
    let r = k.send(
        "PATCH",
        &format!("/api/v1/nodes/{node}"),
        "application/merge-patch+json",
        &json!({"spec": {"taints": taints}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
}

fn pass(k: &mut Cluster, ms: i64) {
    k.s.advance(ms);
    k.c.tick(&mut k.s);
}

/// Whether the pod is being deleted (or gone).
fn leaving(k: &mut Cluster, name: &str) -> bool {
    let r = k.get(&format!("{PODS}/{name}"));
    r.status == 404 || !r.json_body()["metadata"]["deletionTimestamp"].is_null()
}

fn eviction_events(k: &mut Cluster) -> Vec<String> {
    k.event_messages("reason=TaintManagerEviction")
}

const NO_EXECUTE: &str = r#"[{"key": "dedicated", "value": "db", "effect": "NoExecute"}]"#;

fn no_execute() -> Value {
    serde_json::from_str(NO_EXECUTE).unwrap()
}

#[test]
fn a_pod_that_does_not_tolerate_the_taint_is_marked_and_deleted_at_once() {
    let mut k = cluster_with_pod("web", json!([]));
    start(&mut k);
    assert_eq!(k.get(&format!("{PODS}/web")).json_body()["status"]["phase"], "Running");
    let uid = k.uid(&format!("{PODS}/web"));
    // NoSchedule taints leave running pods alone.
    taint(&mut k, "n1", json!([{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]));
    assert!(!leaving(&mut k, "web"));
    assert!(eviction_events(&mut k).is_empty());

    taint(&mut k, "n1", no_execute());
    let pod = k.get(&format!("{PODS}/web")).json_body();
    assert!(!pod["metadata"]["deletionTimestamp"].is_null(), "{pod}");
    let target = condition(&pod, "DisruptionTarget");
    assert_eq!(target["status"], "True");
    assert_eq!(target["reason"], "DeletionByTaintManager");
    assert_eq!(target["message"], "Taint manager: deleting due to NoExecute taint");
    // The condition was written by the controller manager, through /status.
    let managers: Vec<(Value, Value)> = pod["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["manager"].clone(), m["subresource"].clone()))
        .collect();
    assert!(managers.contains(&(json!("kube-controller-manager"), json!("status"))), "{managers:?}");

    let events = k.events("reason=TaintManagerEviction");
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e["message"], "Marking for deletion Pod default/web");
    assert_eq!(e["type"], "Normal");
    assert_eq!(e["source"]["component"], "taint-eviction-controller");
    // About the pod by name only, as upstream's reference is made.
    assert_eq!(e["involvedObject"], json!({"kind": "Pod", "namespace": "default", "name": "web", "apiVersion": "v1"}));
    assert_ne!(e["involvedObject"]["uid"], json!(uid));

    // The kubelet finishes it after its grace period; no more events.
    pass(&mut k, 31_000);
    assert_eq!(k.get(&format!("{PODS}/web")).status, 404);
    assert_eq!(eviction_events(&mut k), ["Marking for deletion Pod default/web"]);
}

#[test]
fn a_toleration_for_a_while_delays_the_eviction_and_one_for_ever_prevents_it() {
    let timed = json!([{"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        {"key": "spot", "operator": "Exists", "effect": "NoExecute"}]);
    let mut k = cluster_with_pod("timed", timed);
    add_pod(&mut k, "forever", json!([{"operator": "Exists"}]));
    add_pod(&mut k, "wrong-value", json!([{"key": "dedicated", "value": "web", "effect": "NoExecute"}]));
    taint(&mut k, "n1", no_execute());
    assert!(leaving(&mut k, "wrong-value"));
    assert!(!leaving(&mut k, "timed"));

    pass(&mut k, 59_000);
    assert!(!leaving(&mut k, "timed"));
    // A second taint it tolerates does not restart the wait.
    let mut two = no_execute();
    two.as_array_mut().unwrap().push(json!({"key": "spot", "effect": "NoExecute"}));
    taint(&mut k, "n1", two);
    pass(&mut k, 1_000);
    assert!(leaving(&mut k, "timed"));
    pass(&mut k, 600_000);
    assert!(!leaving(&mut k, "forever"));
    // (Oldest first by name: the pod's name, then the time.)
    assert_eq!(
        eviction_events(&mut k),
        ["Marking for deletion Pod default/timed", "Marking for deletion Pod default/wrong-value"]
    );
}

#[test]
fn removing_the_taint_or_deleting_the_pod_cancels_a_wait() {
    let timed = json!([{"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]);
    let mut k = cluster_with_pod("a", timed.clone());
    add_pod(&mut k, "b", timed);
    taint(&mut k, "n1", no_execute());
    pass(&mut k, 30_000);
    let r = k.call("DELETE", &format!("{PODS}/b?gracePeriodSeconds=0"), None);
    assert_eq!(r.status, 200);
    taint(&mut k, "n1", json!([]));
    pass(&mut k, 120_000);
    assert!(!leaving(&mut k, "a"));
    let mut messages = eviction_events(&mut k);
    messages.sort();
    assert_eq!(messages, ["Cancelling deletion of Pod default/a", "Cancelling deletion of Pod default/b"]);
}

#[test]
fn a_pod_arriving_on_a_tainted_node_is_evicted_and_its_replica_set_replaces_it_elsewhere() {
    let mut k = Cluster::new();
    k.ready_node("n1", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    taint(&mut k, "n1", no_execute());
    // Bound by name (the scheduler would not place it there).
    add_pod(&mut k, "direct", json!([]));
    assert!(leaving(&mut k, "direct"));
    assert_eq!(eviction_events(&mut k), ["Marking for deletion Pod default/direct"]);

    // A ReplicaSet's pod on a node tainted later goes; its replacement waits
    // for a node it tolerates.
    let mut k = Cluster::new();
    k.ready_node("n1", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/replicasets", Some(rs)).status, 201);
    taint(&mut k, "n1", no_execute());
    pass(&mut k, 31_000);
    let pods = k.get(PODS).json_body()["items"].as_array().cloned().unwrap();
    assert_eq!(pods.len(), 1, "the evicted one is gone, one replaces it");
    assert!(pods[0]["spec"]["nodeName"].is_null());
    k.ready_node("n2", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    let pods = k.get(PODS).json_body()["items"].as_array().cloned().unwrap();
    assert_eq!(pods[0]["spec"]["nodeName"], "n2");
}
