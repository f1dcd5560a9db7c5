//! Preemption through requests: a pod of higher priority that no node fits
//! takes the place of pods of lower priority (the victims get the
//! `DisruptionTarget` condition, are deleted and told so in a `Preempted`
//! event; the pod is nominated to the node and bound there once they are
//! gone), in upstream's words when it may not or cannot; evictions mark
//! their pods too.

mod common;
use common::*;
use serde_json::{json, Value};

const PODS: &str = "/api/v1/namespaces/default/pods";
const CLASSES: &str = "/apis/scheduling.k8s.io/v1/priorityclasses";

fn class(k: &mut Cluster, name: &str, value: i64, policy: &str) {
    let c = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
        "value": value, "preemptionPolicy": policy});
    assert_eq!(k.call("POST", CLASSES, Some(c)).status, 201);
}

/// A pod asking for `cpu`, of priority class `class`; its container
/// ignores SIGTERM (a shell loop), so a deletion takes its grace period.
fn pod(k: &mut Cluster, name: &str, class: &str, cpu: &str, extra: Value) -> String {
    let mut spec = json!({"containers": [{"name": "c", "image": "busybox",
        "command": ["sh", "-c", "while true; do sleep 1; done"], "resources": {"requests": {"cpu": cpu}}}]});
    if !class.is_empty() {
        spec["priorityClassName"] = json!(class);
    }
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        spec[k] = v;
    }
    let p =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}}, "spec": spec});
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 201, "{}", text(&r));
    r.json_body()["metadata"]["uid"].as_str().unwrap().to_string()
}

fn get_pod(k: &mut Cluster, name: &str) -> Value {
    k.get(&format!("{PODS}/{name}")).json_body()
}

fn node_of(k: &mut Cluster, name: &str) -> Value {
    get_pod(k, name)["spec"]["nodeName"].clone()
}

fn cluster(nodes: &[&str]) -> Cluster {
    let mut k = Cluster::new();
    for n in nodes {
        k.ready_node(n, json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    }
    class(&mut k, "low", 100, "PreemptLowerPriority");
    class(&mut k, "high", 1000, "PreemptLowerPriority");
    k
}

#[test]
fn a_higher_priority_pod_takes_the_place_of_the_fewest_lower_ones() {
    let mut k = cluster(&["n1"]);
    pod(&mut k, "big", "low", "1200m", json!({}));
    k.s.advance(1_000);
    pod(&mut k, "small", "low", "300m", json!({}));
    assert_eq!(node_of(&mut k, "small"), "n1");
    let uid = pod(&mut k, "urgent", "high", "1500m", json!({}));

    // Without "big" it fits; "small" may stay beside it.
    let big = get_pod(&mut k, "big");
    assert!(big["metadata"]["deletionTimestamp"].is_string(), "being deleted: {big}");
    let c = condition(&big, "DisruptionTarget");
    assert_eq!(
        (&c["status"], &c["reason"], &c["message"]),
        (
            &json!("True"),
            &json!("PreemptionByScheduler"),
            &json!("default-scheduler: preempting to accommodate a higher priority pod")
        )
    );
    assert!(get_pod(&mut k, "small")["metadata"]["deletionTimestamp"].is_null());
    let urgent = get_pod(&mut k, "urgent");
    assert!(urgent["spec"]["nodeName"].is_null());
    assert_eq!(urgent["status"]["nominatedNodeName"], "n1");
    let failures = k.event_messages("reason=FailedScheduling,involvedObject.name=urgent");
    assert_eq!(failures[0], "0/1 nodes are available: 1 Insufficient cpu.", "a preemption adds nothing");
    let preempted = k.events("reason=Preempted");
    assert_eq!(preempted.len(), 1);
    let e = &preempted[0];
    assert_eq!(e["involvedObject"]["name"], "big");
    assert_eq!(e["message"], format!("Preempted by pod {uid} on node n1"));
    assert_eq!((&e["type"], &e["action"]), (&json!("Normal"), &json!("Preempting")));
    assert_eq!((&e["related"]["name"], &e["related"]["uid"]), (&json!("urgent"), &json!(uid)));
    assert_eq!(e["reportingComponent"], "default-scheduler");

    // While the victim terminates, the pod waits rather than preempt again.
    pod(&mut k, "late", "low", "400m", json!({}));
    let late = get_pod(&mut k, "late");
    assert!(late["spec"]["nodeName"].is_null(), "the nominated pod's requests count on n1");
    let waiting = "0/1 nodes are available: 1 Insufficient cpu. \
                   preemption: not eligible due to a terminating pod on the nominated node.";
    assert_eq!(condition(&get_pod(&mut k, "urgent"), "PodScheduled")["message"], waiting);
    assert!(k.event_messages("reason=FailedScheduling,involvedObject.name=urgent").contains(&waiting.to_string()));
    assert_eq!(k.events("reason=Preempted").len(), 1);

    // The victim's grace period ends: the pod is bound where it was nominated.
    k.s.advance(31_000);
    k.c.tick(&mut k.s);
    assert_eq!(k.get(&format!("{PODS}/big")).status, 404);
    let urgent = get_pod(&mut k, "urgent");
    assert_eq!(urgent["spec"]["nodeName"], "n1");
    assert_eq!(urgent["status"]["nominatedNodeName"], "n1", "1.33 leaves the nomination after binding");
    assert!(get_pod(&mut k, "late")["spec"]["nodeName"].is_null(), "no room left beside small and urgent");
    assert_eq!(
        condition(&get_pod(&mut k, "late"), "PodScheduled")["message"],
        "0/1 nodes are available: 1 Insufficient cpu. \
         preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn a_pod_that_may_not_or_cannot_preempt_is_told_why() {
    let mut k = cluster(&["n1", "n2"]);
    class(&mut k, "polite", 2000, "Never");
    let labels = json!({"metadata": {"labels": {"disk": "ssd"}}});
    k.send("PATCH", "/api/v1/nodes/n2", "application/merge-patch+json", &labels.to_string());
    pod(&mut k, "a", "low", "1500m", json!({"nodeName": "n1"}));
    pod(&mut k, "b", "low", "1500m", json!({"nodeName": "n2"}));

    pod(&mut k, "never", "polite", "1", json!({}));
    assert_eq!(
        condition(&get_pod(&mut k, "never"), "PodScheduled")["message"],
        "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
    );

    // Only n2 has the label: n1 is not worth a preemption, and on n2 the
    // pod would not fit even alone.
    pod(&mut k, "huge", "high", "3", json!({"nodeSelector": {"disk": "ssd"}}));
    assert_eq!(
        condition(&get_pod(&mut k, "huge"), "PodScheduled")["message"],
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector. \
         preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 Preemption is not helpful for scheduling."
    );

    // Of equal priority: nothing to take.
    pod(&mut k, "peer", "low", "1", json!({"nodeSelector": {"disk": "ssd"}}));
    assert_eq!(
        condition(&get_pod(&mut k, "peer"), "PodScheduled")["message"],
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector. \
         preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, \
         1 Preemption is not helpful for scheduling."
    );
    assert!(k.events("reason=Preempted").is_empty());
    for name in ["a", "b"] {
        assert!(get_pod(&mut k, name)["metadata"]["deletionTimestamp"].is_null());
    }
}

#[test]
fn reasons_are_counted_as_upstream_sorts_them() {
    let mut k = cluster(&["n1", "n2", "n3"]);
    let taint = json!({"spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}});
    k.send("PATCH", "/api/v1/nodes/n3", "application/merge-patch+json", &taint.to_string());
    pod(&mut k, "p", "", "3", json!({}));
    // "1 node(s) had …" sorts before "2 Insufficient cpu", as strings.
    assert_eq!(
        condition(&get_pod(&mut k, "p"), "PodScheduled")["message"],
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 2 Insufficient cpu. \
         preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, \
         2 No preemption victims found for incoming pod."
    );
    // A node short of both resources gives both; a taint is told before a
    // selector that does not match, as upstream's filters run.
    let both = json!({"containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": "3", "memory": "5Gi"}}}], "nodeSelector": {"disk": "tape"}});
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"}, "spec": both});
    k.call("POST", PODS, Some(p));
    assert_eq!(
        condition(&get_pod(&mut k, "q"), "PodScheduled")["message"],
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, \
         2 node(s) didn't match Pod's node affinity/selector. \
         preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    k.send("PATCH", "/api/v1/nodes/n1", "application/merge-patch+json", r#"{"metadata":{"labels":{"disk":"tape"}}}"#);
    k.s.advance(5 * 60_000);
    k.c.tick(&mut k.s);
    assert_eq!(
        condition(&get_pod(&mut k, "q"), "PodScheduled")["message"],
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, \
         1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: db}. \
         preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
         2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn the_node_is_chosen_by_budgets_then_by_the_victims_priorities() {
    let mut k = cluster(&["n1", "n2", "n3"]);
    class(&mut k, "middle", 500, "PreemptLowerPriority");
    // n1: a pod a budget protects; n2: a pod of middle priority; n3: a low one.
    pod(&mut k, "guarded", "low", "1500m", json!({"nodeName": "n1"}));
    pod(&mut k, "middling", "middle", "1500m", json!({"nodeName": "n2"}));
    pod(&mut k, "plain", "low", "1500m", json!({"nodeName": "n3"}));
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}});
    assert_eq!(k.call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", Some(pdb)).status, 201);

    pod(&mut k, "first", "high", "1500m", json!({}));
    assert_eq!(get_pod(&mut k, "first")["status"]["nominatedNodeName"], "n3", "the lowest victim, no budget");
    k.s.advance(31_000);
    k.c.tick(&mut k.s);
    assert_eq!(node_of(&mut k, "first"), "n3");

    // Left: n1 (a budget says no) and n2 (a victim of higher priority).
    pod(&mut k, "second", "high", "1500m", json!({}));
    let second = get_pod(&mut k, "second");
    assert_eq!(second["status"]["nominatedNodeName"], "n2", "no budget broken: {}", second["status"]);
    k.s.advance(31_000);
    k.c.tick(&mut k.s);
    assert_eq!(node_of(&mut k, "second"), "n2");

    // Only n1 is left: the budget is a preference, not a guarantee.
    pod(&mut k, "third", "high", "1500m", json!({}));
    assert_eq!(get_pod(&mut k, "third")["status"]["nominatedNodeName"], "n1");
    let victims: Vec<String> =
        k.events("reason=Preempted").iter().map(|e| e["involvedObject"]["name"].as_str().unwrap().into()).collect();
    assert_eq!(victims, ["guarded", "middling", "plain"], "(listed by name) one victim each");
}

#[test]
fn an_eviction_marks_its_pod_before_deleting_it() {
    let mut k = cluster(&["n1"]);
    pod(&mut k, "web", "", "100m", json!({}));
    // Watch from here: the mark, then the deletion.
    let rv = get_pod(&mut k, "web")["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}});
    let r = k.call("POST", &format!("{PODS}/web/eviction"), Some(eviction));
    assert_eq!(r.status, 201, "{}", text(&r));
    let c = condition(&get_pod(&mut k, "web"), "DisruptionTarget");
    assert_eq!(
        (&c["status"], &c["reason"], &c["message"]),
        (&json!("True"), &json!("EvictionByEvictionAPI"), &json!("Eviction API: evicting"))
    );
    let r = k.get(&format!("{PODS}?watch=1&resourceVersion={rv}&fieldSelector=metadata.name%3Dweb"));
    let seen = events(&r);
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(condition(&seen[0].1, "DisruptionTarget").is_object(), "marked first");
    assert!(seen[0].1["metadata"]["deletionTimestamp"].is_null());
    assert!(seen[1].1["metadata"]["deletionTimestamp"].is_string());

    // Preconditions are checked against the pod before it is marked.
    pod(&mut k, "api", "", "100m", json!({}));
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "api"},
        "deleteOptions": {"preconditions": {"uid": "nope"}}});
    let r = k.call("POST", &format!("{PODS}/api/eviction"), Some(eviction));
    assert_eq!(r.status, 409);
    assert!(condition(&get_pod(&mut k, "api"), "DisruptionTarget").is_null());
    // A dry run marks nothing.
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "api"}});
    let r = k.call("POST", &format!("{PODS}/api/eviction?dryRun=All"), Some(eviction));
    assert_eq!(r.status, 201);
    assert!(condition(&get_pod(&mut k, "api"), "DisruptionTarget").is_null());
}
