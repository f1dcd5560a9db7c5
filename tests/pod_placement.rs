//! The scheduler's filters that look at pods already placed, through
//! requests: required inter-pod affinity and anti-affinity (the pod's own
//! and that of pods already there) and `DoNotSchedule` topology spread
//! constraints, with upstream's reasons, and preemption when taking pods
//! of lower priority off a node would satisfy them.

mod common;
use common::*;
use serde_json::{json, Value};

const PODS: &str = "/api/v1/namespaces/default/pods";

/// A Ready node with 2 cpus, labelled `kubernetes.io/hostname` and `labels`.
fn node(k: &mut Cluster, name: &str, labels: Value, taints: Value) {
    let mut all = json!({"kubernetes.io/hostname": name});
    for (key, v) in labels.as_object().cloned().unwrap_or_default() {
        all[key] = v;
    }
    let n = json!({"metadata": {"name": name, "labels": all}, "spec": {"podCIDR": "10.244.0.0/24", "taints": taints}});
    assert_eq!(k.call("POST", "/api/v1/nodes", Some(n)).status, 201);
    let status = json!({"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
        "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}],
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}});
    let path = format!("/api/v1/nodes/{name}/status");
    assert_eq!(k.send("PATCH", &path, "application/merge-patch+json", &status.to_string()).status, 200);
}

fn pod(k: &mut Cluster, name: &str, app: &str, spec_extra: Value) {
    let mut spec = json!({"containers": [{"name": "c", "image": "nginx:1.27"}]});
    for (key, v) in spec_extra.as_object().cloned().unwrap_or_default() {
        spec[key] = v;
    }
    let p =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": app}}, "spec": spec});
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 201, "{}", text(&r));
}

fn node_of(k: &mut Cluster, name: &str) -> Value {
    k.get(&format!("{PODS}/{name}")).json_body()["spec"]["nodeName"].clone()
}

fn why_pending(k: &mut Cluster, name: &str) -> String {
    let p = k.get(&format!("{PODS}/{name}")).json_body();
    assert!(p["spec"]["nodeName"].is_null(), "{name} is bound: {p}");
    condition(&p, "PodScheduled")["message"].as_str().unwrap_or("").to_string()
}

/// Required (anti-)affinity to pods labelled `app`, by `key`.
fn terms(kind: &str, app: &str, key: &str) -> Value {
    json!({"affinity": {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]}}})
}

#[test]
fn replicas_that_repel_each_other_take_a_node_each_and_the_rest_wait() {
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    node(&mut k, "n2", json!({}), json!([]));
    // Three replicas pending at once: each bound in the round counts for the next.
    let mut template = json!({"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}});
    template["spec"]["affinity"] = terms("podAntiAffinity", "web", "kubernetes.io/hostname")["affinity"].clone();
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/replicasets", Some(rs)).status, 201);
    let pods = k.get(PODS).json_body()["items"].as_array().cloned().unwrap();
    let mut nodes: Vec<String> = pods.iter().filter_map(|p| p["spec"]["nodeName"].as_str()).map(String::from).collect();
    nodes.sort();
    assert_eq!(nodes, ["n1", "n2"], "one a node");
    let waiting = pods.iter().find(|p| p["spec"]["nodeName"].is_null()).expect("a replica waits");
    assert_eq!(
        condition(waiting, "PodScheduled")["message"],
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. \
         preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
    );

    // A pod without terms is kept off a node whose pod repels it.
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    pod(&mut k, "loner", "loner", terms("podAntiAffinity", "noisy", "kubernetes.io/hostname"));
    pod(&mut k, "noisy", "noisy", json!({}));
    assert_eq!(
        why_pending(&mut k, "noisy"),
        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules. \
         preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    // Other namespaces are not the term's unless it names them.
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}});
    assert_eq!(k.call("POST", "/api/v1/namespaces", Some(ns)).status, 201);
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "noisy", "labels": {"app": "noisy"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/other/pods", Some(p)).status, 201);
    assert_eq!(k.get("/api/v1/namespaces/other/pods/noisy").json_body()["spec"]["nodeName"], "n1");
    // A term that picks namespaces by their labels (every namespace is
    // labelled with its name) reaches there.
    let mut spec = terms("podAntiAffinity", "noisy", "kubernetes.io/hostname");
    spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["namespaceSelector"] =
        json!({"matchLabels": {"kubernetes.io/metadata.name": "other"}});
    pod(&mut k, "picky", "picky", spec);
    assert_eq!(
        why_pending(&mut k, "picky"),
        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. \
         preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn affinity_waits_for_its_pods_except_the_first_of_a_group() {
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    node(&mut k, "n2", json!({}), json!([]));
    pod(&mut k, "web", "web", terms("podAffinity", "db", "kubernetes.io/hostname"));
    assert_eq!(
        why_pending(&mut k, "web"),
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    // The db pod lands on n2 (pinned); the web pod follows it there.
    pod(&mut k, "db", "db", json!({"nodeSelector": {"kubernetes.io/hostname": "n2"}}));
    assert_eq!(node_of(&mut k, "db"), "n2");
    k.s.advance(5 * 60_000);
    k.c.tick(&mut k.s);
    assert_eq!(node_of(&mut k, "web"), "n2");

    // Pods that want each other: the first goes anywhere, the next beside it.
    pod(&mut k, "cache-1", "cache", terms("podAffinity", "cache", "kubernetes.io/hostname"));
    let first = node_of(&mut k, "cache-1");
    assert!(first.is_string());
    pod(&mut k, "cache-2", "cache", terms("podAffinity", "cache", "kubernetes.io/hostname"));
    assert_eq!(node_of(&mut k, "cache-2"), first);

    // A node without the topology key is never the affinity's.
    pod(&mut k, "zonal", "zonal", terms("podAffinity", "zonal", "topology.kubernetes.io/zone"));
    assert_eq!(
        why_pending(&mut k, "zonal"),
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

fn spread(key: &str, extra: Value) -> Value {
    let mut c = json!({"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "spread"}}});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        c[k] = v;
    }
    json!({"topologySpreadConstraints": [c]})
}

#[test]
fn topology_spread_counts_every_domain_its_policies_include() {
    let taint = json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]);
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    node(&mut k, "n2", json!({}), taint.clone());
    pod(&mut k, "s1", "spread", spread("kubernetes.io/hostname", json!({})));
    assert_eq!(node_of(&mut k, "s1"), "n1");
    // The tainted node's empty domain counts (taints ignored by default): a
    // second pod on n1 would make a skew of 2.
    pod(&mut k, "s2", "spread", spread("kubernetes.io/hostname", json!({})));
    assert_eq!(
        why_pending(&mut k, "s2"),
        "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, \
         1 node(s) had untolerated taint {dedicated: x}. \
         preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, \
         1 Preemption is not helpful for scheduling."
    );
    // Honoured, the taint leaves n2 out of the count.
    pod(&mut k, "s3", "spread", spread("kubernetes.io/hostname", json!({"nodeTaintsPolicy": "Honor"})));
    assert_eq!(node_of(&mut k, "s3"), "n1");
    // Pods of other labels are not counted; with a maxSkew of 3 there is room.
    pod(&mut k, "s4", "spread", spread("kubernetes.io/hostname", json!({"maxSkew": 3})));
    assert_eq!(node_of(&mut k, "s4"), "n1");

    // A node without the constraint's key is never a place.
    let mut k = Cluster::new();
    node(&mut k, "z1", json!({"topology.kubernetes.io/zone": "a"}), json!([]));
    node(&mut k, "z2", json!({"topology.kubernetes.io/zone": "b"}), json!([]));
    node(&mut k, "bare", json!({}), json!([]));
    for i in 1..=4 {
        pod(&mut k, &format!("z{i}"), "spread", spread("topology.kubernetes.io/zone", json!({})));
    }
    let mut zones: Vec<String> =
        (1..=4).map(|i| node_of(&mut k, &format!("z{i}")).as_str().unwrap_or("").to_string()).collect();
    zones.sort();
    assert_eq!(zones, ["z1", "z1", "z2", "z2"], "one zone at most one ahead; never the bare node");
    // minDomains above the domains there are: the fewest count as 0.
    pod(&mut k, "z5", "spread", spread("topology.kubernetes.io/zone", json!({"minDomains": 3, "maxSkew": 2})));
    assert_eq!(
        why_pending(&mut k, "z5"),
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), \
         2 node(s) didn't match pod topology spread constraints. \
         preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, \
         2 No preemption victims found for incoming pod."
    );
}

#[test]
fn preemption_takes_off_the_lower_pods_an_anti_affinity_forbids() {
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    for (name, value) in [("low", 100), ("high", 1000)] {
        let c = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value});
        assert_eq!(k.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", Some(c)).status, 201);
    }
    pod(&mut k, "batch", "batch", json!({"priorityClassName": "low"}));
    pod(&mut k, "peer", "batch", json!({"priorityClassName": "high"}));
    let mut spec = terms("podAntiAffinity", "batch", "kubernetes.io/hostname");
    spec["priorityClassName"] = json!("high");
    pod(&mut k, "alone", "alone", spec);
    // "peer" is of its priority: without the lower pod the node still fails.
    assert_eq!(
        why_pending(&mut k, "alone"),
        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. \
         preemption: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."
    );
    assert!(k.get(&format!("{PODS}/batch")).json_body()["metadata"]["deletionTimestamp"].is_null());

    // Without "peer", the lower pod goes.
    assert_eq!(k.call("DELETE", &format!("{PODS}/peer?gracePeriodSeconds=0"), None).status, 200);
    let batch = k.get(&format!("{PODS}/batch")).json_body();
    assert!(batch["metadata"]["deletionTimestamp"].is_string() || batch["code"] == 404, "{batch}");
    let alone = k.get(&format!("{PODS}/alone")).json_body();
    assert_eq!(alone["status"]["nominatedNodeName"], "n1");
    assert_eq!(k.events("reason=Preempted").len(), 1);
    k.s.advance(31_000);
    k.c.tick(&mut k.s);
    assert_eq!(node_of(&mut k, "alone"), "n1");
}

#[test]
fn match_label_keys_become_expressions_of_the_new_pods_selector() {
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    let term = |hash: &str| {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("web-{hash}"), "labels": {"app": "web", "pod-template-hash": hash, "tenant": "t1"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
                "affinity": {"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname",
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "matchLabelKeys": ["pod-template-hash"], "mismatchLabelKeys": ["tenant"]}],
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
                        "topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchExpressions": []},
                        "matchLabelKeys": ["app", "absent"]}}]}}}})
    };
    assert_eq!(k.call("POST", PODS, Some(term("aaa"))).status, 201);
    let stored = k.get(&format!("{PODS}/web-aaa")).json_body();
    let anti = &stored["spec"]["affinity"]["podAntiAffinity"];
    assert_eq!(
        anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"],
        json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "pod-template-hash", "operator": "In", "values": ["aaa"]},
                {"key": "tenant", "operator": "NotIn", "values": ["t1"]}]})
    );
    assert_eq!(
        anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"],
        json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}),
        "a key the pod has no label of adds nothing"
    );
    // Pods of another template hash are not the term's: both run on n1.
    assert_eq!(k.call("POST", PODS, Some(term("bbb"))).status, 201);
    assert_eq!(node_of(&mut k, "web-aaa"), "n1");
    assert_eq!(node_of(&mut k, "web-bbb"), "n1");
}

#[test]
fn placement_terms_are_validated_as_upstream() {
    let mut k = Cluster::new();
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
            "affinity": {"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}],
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0,
                    "podAffinityTerm": {"topologyKey": "zone"}}]}},
            "topologySpreadConstraints": [
                {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                    "nodeTaintsPolicy": "Sometimes"},
                {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "Never"}]}});
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 422, "{}", text(&r));
    let m = message(&r);
    for part in [
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100",
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{zone, ScheduleAnyway}\"",
        "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        "spec.topologySpreadConstraints[1].nodeTaintsPolicy: Unsupported value: \"Sometimes\": supported values: \"Honor\", \"Ignore\"",
        "spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty",
        "spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
    ] {
        assert!(m.contains(part), "{part} in {m}");
    }
    // A Deployment's template is held to the same.
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Later"}]}}}});
    let r = k.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.status, 422);
    assert!(message(&r)
        .contains("spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Later\""));
}

/// A preferred pod (anti-)affinity term to pods labelled `app`, by `key`.
fn preferred(kind: &str, weight: i64, app: &str, key: &str) -> Value {
    json!({"affinity": {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": weight,
        "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}}]}}})
}

#[test]
fn preferred_pod_affinity_weighs_placed_pods_both_ways() {
    let mut k = Cluster::new();
    let zone = |z: &str| json!({"topology.kubernetes.io/zone": z});
    node(&mut k, "n1", zone("a"), json!([]));
    node(&mut k, "n2", zone("a"), json!([]));
    node(&mut k, "n3", zone("b"), json!([]));
    pod(&mut k, "db", "db", json!({"nodeSelector": {"kubernetes.io/hostname": "n1"}}));
    // Drawn to the node db is on, though two nodes are emptier.
    pod(&mut k, "web", "web", preferred("podAffinity", 100, "db", "kubernetes.io/hostname"));
    assert_eq!(node_of(&mut k, "web"), "n1");
    // Kept out of db's zone, though n2 is emptier than n3 by name only.
    pod(&mut k, "lonely", "lonely", preferred("podAntiAffinity", 100, "db", "topology.kubernetes.io/zone"));
    assert_eq!(node_of(&mut k, "lonely"), "n3");
    // A placed pod's preferred term draws the pods it selects: "star" has
    // no terms of its own, and n2 is the emptiest node.
    let mut fan = preferred("podAffinity", 50, "star", "kubernetes.io/hostname");
    fan["nodeSelector"] = json!({"kubernetes.io/hostname": "n3"});
    pod(&mut k, "fan", "fan", fan);
    pod(&mut k, "star", "star", json!({}));
    assert_eq!(node_of(&mut k, "star"), "n3");
    // Without it, the least requested node.
    pod(&mut k, "plain", "plain", json!({}));
    assert_eq!(node_of(&mut k, "plain"), "n2");
}

#[test]
fn schedule_anyway_spread_constraints_weigh_domains_and_pass_over_nodes_without_the_key() {
    let mut k = Cluster::new();
    let zone = |z: &str| json!({"topology.kubernetes.io/zone": z});
    node(&mut k, "n1", zone("a"), json!([]));
    node(&mut k, "n2", zone("a"), json!([]));
    node(&mut k, "n3", zone("b"), json!([]));
    node(&mut k, "n4", json!({}), json!([]));
    let soft = json!({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "s"}}}]});
    let mut placed = Vec::new();
    for i in 0..4 {
        let name = format!("s{i}");
        pod(&mut k, &name, "s", soft.clone());
        placed.push(node_of(&mut k, &name).as_str().unwrap_or("").to_string());
    }
    // Zone a, then zone b (its count lower), then either zone alike (the
    // emptier node), then zone b again: never n4, which lacks the key.
    assert_eq!(placed, ["n1", "n3", "n2", "n3"]);
}

/// The pods of `namespace` as (name, node), by name: the order the
/// scheduler takes pods created in the same second.
fn placements(k: &mut Cluster) -> Vec<(String, String)> {
    let pods = k.get(PODS).json_body()["items"].as_array().cloned().unwrap_or_default();
    let mut placed: Vec<(String, String)> = pods
        .iter()
        .map(|p| {
            let name = p["metadata"]["name"].as_str().unwrap_or("").to_string();
            (name, p["spec"]["nodeName"].as_str().unwrap_or("").to_string())
        })
        .collect();
    placed.sort();
    placed
}

fn replica_set(k: &mut Cluster, name: &str, replicas: i64) {
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/replicasets", Some(rs)).status, 201);
}

/// Two nodes, n1 with half its cpu requested: least allocated alone sends
/// every small pod to n2 until they even out.
fn one_node_half_busy() -> Cluster {
    let mut k = Cluster::new();
    node(&mut k, "n1", json!({}), json!([]));
    node(&mut k, "n2", json!({}), json!([]));
    let hog = json!({"nodeName": "n1", "containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": "1", "memory": "0"}}}]});
    pod(&mut k, "hog", "hog", hog);
    k
}

#[test]
fn pods_a_service_or_a_workload_selects_are_spread_by_default() {
    let mut k = one_node_half_busy();
    // Nothing selects these two: no default spreading.
    pod(&mut k, "lone-0", "lone", json!({}));
    pod(&mut k, "lone-1", "lone", json!({}));
    assert_eq!((node_of(&mut k, "lone-0"), node_of(&mut k, "lone-1")), (json!("n2"), json!("n2")));
    // A Service selects these: the second is spread to n1 (its node
    // spreading score, 2 × 100 against 2 × 66, outweighs least allocated's
    // 70 against 80).
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
        "spec": {"selector": {"app": "svc"}, "ports": [{"port": 80}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/services", Some(svc)).status, 201);
    pod(&mut k, "svc-0", "svc", json!({}));
    pod(&mut k, "svc-1", "svc", json!({}));
    assert_eq!((node_of(&mut k, "svc-0"), node_of(&mut k, "svc-1")), (json!("n2"), json!("n1")));
    // A ReplicaSet's replicas, by its selector: one a node.
    replica_set(&mut k, "web", 2);
    let web: Vec<String> =
        placements(&mut k).into_iter().filter(|(name, _)| name.starts_with("web-")).map(|(_, n)| n).collect();
    assert_eq!(web, ["n2", "n1"]);

    // By zone too (maxSkew 5 by zone, 3 by node): the second replica
    // leaves the first one's zone for n3 though n2 is as empty, the third
    // takes the node left.
    let mut k = Cluster::new();
    let zone = |z: &str| json!({"topology.kubernetes.io/zone": z});
    node(&mut k, "n1", zone("a"), json!([]));
    node(&mut k, "n2", zone("a"), json!([]));
    node(&mut k, "n3", zone("b"), json!([]));
    replica_set(&mut k, "zoned", 3);
    let nodes: Vec<String> = placements(&mut k).into_iter().map(|(_, n)| n).collect();
    assert_eq!(nodes, ["n1", "n3", "n2"]);

    // A StatefulSet's pods, one at a time, by its selector.
    let mut k = one_node_half_busy();
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "c", "image": "postgres"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", Some(sts)).status, 201);
    assert_eq!((node_of(&mut k, "db-0"), node_of(&mut k, "db-1")), (json!("n2"), json!("n1")));
}

#[test]
fn node_affinity_is_validated_as_upstream() {
    let mut k = Cluster::new();
    let expr = |key: &str, op: &str, values: Value| json!({"key": key, "operator": op, "values": values});
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
            "affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [expr("disk", "In", json!([])), expr("disk", "Exists", json!(["ssd"])),
                        expr("cores", "Gt", json!(["1", "2"])), expr("disk", "Like", json!(["ssd"])),
                        expr("bad key!", "In", json!(["not a value!"]))],
                     "matchFields": [expr("metadata.name", "In", json!(["a", "b"])),
                        expr("metadata.uid", "In", json!(["x"])), expr("metadata.name", "Exists", json!(["Node_1"]))]}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 101, "preference": {"matchExpressions": [expr("disk", "In", json!(["any value!"]))]}},
                    {"weight": 0, "preference": {"matchExpressions": [expr("disk", "NotIn", json!([]))]}}]}}}});
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 422, "{}", text(&r));
    let m = message(&r);
    let required = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]";
    let preferred = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
    for part in [
        format!("{required}.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        format!("{required}.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        format!("{required}.matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"),
        format!("{required}.matchExpressions[3].operator: Invalid value: \"Like\": not a valid selector operator"),
        format!("{required}.matchExpressions[4].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters"),
        format!("{required}.matchExpressions[4].values[0]: Invalid value: \"not a value!\": a valid label must be"),
        format!("{required}.matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
        format!("{required}.matchFields[1].key: Invalid value: \"metadata.uid\": not a valid field selector key"),
        format!("{required}.matchFields[2].operator: Invalid value: \"Exists\": not a valid selector operator"),
        format!("{required}.matchFields[2].values[0]: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain"),
        format!("{preferred}[0].weight: Invalid value: 101: must be in the range 1-100"),
        format!("{preferred}[1].weight: Invalid value: 0: must be in the range 1-100"),
        format!("{preferred}[1].preference.matchExpressions[0].values: Required value: must be specified when"),
    ] {
        assert!(m.contains(&part), "{part} in {m}");
    }
    // A preferred term's values are not held to label values.
    assert!(!m.contains("any value!"), "{m}");
    // A required node affinity without terms.
    let mut p = pod_spec_with(
        json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
    );
    p["metadata"]["name"] = json!("empty");
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 422, "{}", text(&r));
    assert!(message(&r).contains(
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"
    ));
    // A daemon set's pods, pinned by `metadata.name`, pass.
    let mut p = pod_spec_with(
        json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker-1"]}]}]}}}),
    );
    p["metadata"]["name"] = json!("pinned");
    assert_eq!(k.call("POST", PODS, Some(p)).status, 201);
}

/// A pod with `affinity`.
fn pod_spec_with(affinity: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}], "affinity": affinity}})
}
