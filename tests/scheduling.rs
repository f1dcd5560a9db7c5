//! The scheduler and the simulated kubelets through requests: pods bound
//! through `pods/binding` to nodes that fit, unschedulable pods told why in
//! upstream's words, bound pods run with addresses from their node's
//! range, nodes keep Leases; and the binding subresource's own answers.

mod common;
use common::*;
use serde_json::{json, Value};

const PODS: &str = "/api/v1/namespaces/default/pods";

/// A node as a kubelet registers it: Ready, with allocatable resources.
fn add_node(k: &mut Cluster, name: &str, i: u8, labels: Value) {
    let r = k.call(
        "POST",
        "/api/v1/nodes",
        Some(json!({"metadata": {"name": name, "labels": labels}, "spec": {"podCIDR": format!("10.244.{i}.0/24")}})),
    );
    assert_eq!(r.status, 201);
    let status = json!({"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
        "addresses": [{"type": "InternalIP", "address": format!("172.18.0.{}", i + 2)}],
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}});
    let r =
        k.send("PATCH", &format!("/api/v1/nodes/{name}/status"), "application/merge-patch+json", &status.to_string());
    assert_eq!(r.status, 200);
}

fn two_nodes() -> Cluster {
    let mut k = Cluster::new();
    add_node(&mut k, "node-a", 0, json!({"disk": "hdd"}));
    add_node(&mut k, "node-b", 1, json!({"disk": "ssd"}));
    k
}

/// Each kubelet renews its node's Lease every 10 s of simulated time (a
/// fourth of its 40 s duration), as upstream's lease controller does:
/// a PUT of the Lease with `renewTime` now, nothing in between.
#[test]
fn kubelets_renew_their_node_leases_every_ten_seconds() {
    let mut k = two_nodes();
    const LEASE: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a";
    let first = k.get(LEASE).json_body();
    assert_eq!(first["spec"]["leaseDurationSeconds"], 40);
    let renewed = |k: &mut Cluster| k.get(LEASE).json_body()["spec"]["renewTime"].clone();
    let start = k.s.now().0;
    k.s.advance(9_000);
    k.c.tick(&mut k.s);
    assert_eq!(k.get(LEASE).json_body(), first, "not due before 10 s");
    k.s.advance(1_000);
    assert!(k.c.tick(&mut k.s));
    let at = kubesim::clock::SimTime(start + 10_000).rfc3339_micro();
    assert_eq!(renewed(&mut k), json!(at));
    let second = k.get(LEASE).json_body();
    assert_ne!(second["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"]);
    assert_eq!(second["spec"]["holderIdentity"], "node-a");
    // A minute: six renewals each, each at its time.
    k.s.step_jumps(true);
    assert_eq!(k.call("POST", "/debug/kubesim/clock?advance=60s", None).status, 200);
    let at = kubesim::clock::SimTime(start + 70_000).rfc3339_micro();
    assert_eq!(renewed(&mut k), json!(at));
    let puts = String::from_utf8(k.get("/metrics").body).unwrap();
    let line = puts.lines().find(|l| {
        l.starts_with("apiserver_request_total{") && l.contains("resource=\"leases\"") && l.contains("verb=\"PUT\"")
    });
    assert!(line.is_some_and(|l| l.ends_with(" 14")), "{line:?}");
}

fn pod(name: &str, spec_extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "c", "image": "nginx:1.27"}]});
    for (k, v) in spec_extra.as_object().cloned().unwrap_or_default() {
        spec[k] = v;
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

#[test]
fn a_deployment_runs_spread_over_the_nodes_with_addresses_from_their_ranges() {
    let mut k = two_nodes();
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                    "resources": {"requests": {"cpu": "100m"}}}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(d)).status, 201);
    let pods = k.get(PODS).json_body()["items"].as_array().unwrap().clone();
    assert_eq!(pods.len(), 4);
    let mut per_node = std::collections::BTreeMap::new();
    for p in &pods {
        let node = p["spec"]["nodeName"].as_str().unwrap().to_string();
        let ip = p["status"]["podIP"].as_str().unwrap();
        let range = if node == "node-a" { "10.244.0." } else { "10.244.1." };
        assert!(ip.starts_with(range), "{node} {ip}");
        assert_eq!(p["status"]["phase"], "Running");
        assert_eq!(p["status"]["hostIP"], if node == "node-a" { "172.18.0.2" } else { "172.18.0.3" });
        assert_eq!(condition(p, "Ready")["status"], "True");
        assert!(condition(p, "Ready").get("reason").is_none(), "the ContainersNotReady of the first patch is gone");
        assert_eq!(condition(p, "PodScheduled")["status"], "True");
        let cs = &p["status"]["containerStatuses"][0];
        assert_eq!(cs["image"], "docker.io/library/nginx:1.27");
        assert!(cs["state"]["running"]["startedAt"].is_string());
        assert!(cs["containerID"].as_str().unwrap().starts_with("containerd://"));
        *per_node.entry(node).or_insert(0) += 1;
    }
    assert_eq!(per_node.values().copied().collect::<Vec<i32>>(), [2, 2], "least requested spreads");
    let d = k.get("/apis/apps/v1/namespaces/default/deployments/web").json_body();
    assert_eq!(d["status"]["availableReplicas"], 4);
    assert_eq!(d["status"]["conditions"][1]["reason"], "NewReplicaSetAvailable");

    // The events of one pod, as `kubectl describe pod` lists them (its
    // "From": the source, or the reporting component of a newer event).
    let name = pods[0]["metadata"]["name"].as_str().unwrap();
    let evs = k.events(&format!("involvedObject.name={name}"));
    fn from(e: &Value) -> &str {
        e["source"]["component"].as_str().or(e["reportingComponent"].as_str()).unwrap_or("")
    }
    let reasons: Vec<(&str, &str)> = evs.iter().map(|e| (e["reason"].as_str().unwrap_or(""), from(e))).collect();
    assert_eq!(
        reasons,
        [("Scheduled", "default-scheduler"), ("Pulled", "kubelet"), ("Created", "kubelet"), ("Started", "kubelet")]
    );
    // Each node keeps a Lease.
    let leases = k.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases").json_body();
    let holders: Vec<&str> =
        leases["items"].as_array().unwrap().iter().map(|l| l["spec"]["holderIdentity"].as_str().unwrap()).collect();
    assert_eq!(holders, ["node-a", "node-b"]);
}

#[test]
fn node_selectors_and_resources_decide_and_misfits_are_told_why() {
    let mut k = two_nodes();
    k.call("POST", PODS, Some(pod("fast", json!({"nodeSelector": {"disk": "ssd"}}))));
    assert_eq!(k.get(&format!("{PODS}/fast")).json_body()["spec"]["nodeName"], "node-b");

    let big = json!({"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "3"}}}]});
    k.call("POST", PODS, Some(pod("big", big)));
    let p = k.get(&format!("{PODS}/big")).json_body();
    assert!(p["spec"]["nodeName"].is_null());
    assert_eq!(p["status"]["phase"], "Pending");
    let message = "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
    let c = condition(&p, "PodScheduled");
    assert_eq!(
        (c["status"].as_str(), c["reason"].as_str(), c["message"].as_str()),
        (Some("False"), Some("Unschedulable"), Some(message))
    );

    k.call("POST", PODS, Some(pod("nowhere", json!({"nodeSelector": {"disk": "tape"}}))));
    let messages = k.event_messages("reason=FailedScheduling");
    assert!(messages.contains(&message.to_string()));
    assert!(messages.contains(
        &"0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.".to_string()
    ), "{messages:?}");

    // A node that stops being schedulable takes no new pods.
    k.send("PATCH", "/api/v1/nodes/node-a", "application/merge-patch+json", r#"{"spec":{"unschedulable":true}}"#);
    k.call("POST", PODS, Some(pod("later", json!({}))));
    assert_eq!(k.get(&format!("{PODS}/later")).json_body()["spec"]["nodeName"], "node-b");
}

fn node_of(k: &mut Cluster, name: &str) -> String {
    k.get(&format!("{PODS}/{name}")).json_body()["spec"]["nodeName"].as_str().unwrap_or("").to_string()
}

fn asking(cpu: &str, memory: &str, extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "c", "image": "nginx",
        "resources": {"requests": {"cpu": cpu, "memory": memory}}}]});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        spec[k] = v;
    }
    spec
}

#[test]
fn preferred_node_affinity_and_prefer_no_schedule_taints_weigh_in_scoring() {
    let mut k = two_nodes();
    // Alike and empty nodes: the first by name would win the tie; a
    // preferred term for the other's label outweighs it.
    let prefers_ssd = json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}});
    k.call("POST", PODS, Some(pod("prefers-ssd", prefers_ssd.clone())));
    assert_eq!(node_of(&mut k, "prefers-ssd"), "node-b");
    k.call("POST", PODS, Some(pod("plain", json!({}))));
    assert_eq!(node_of(&mut k, "plain"), "node-a");
    // Preferring is not requiring: with node-b full for its cpu, the pod
    // goes where it fits.
    k.call("POST", PODS, Some(pod("hog", asking("1800m", "0", json!({"nodeName": "node-b"})))));
    k.call("POST", PODS, Some(pod("prefers-ssd-big", asking("500m", "0", prefers_ssd))));
    assert_eq!(node_of(&mut k, "prefers-ssd-big"), "node-a");

    // A PreferNoSchedule taint turns plain pods away while another node
    // fits, and not a pod that tolerates it.
    let mut k = two_nodes();
    let taint = r#"{"spec":{"taints":[{"key":"dedicated","value":"batch","effect":"PreferNoSchedule"}]}}"#;
    assert_eq!(k.send("PATCH", "/api/v1/nodes/node-a", "application/merge-patch+json", taint).status, 200);
    for name in ["one", "two", "three"] {
        k.call("POST", PODS, Some(pod(name, json!({}))));
        assert_eq!(node_of(&mut k, name), "node-b", "{name}");
    }
    let tolerates = json!({"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "PreferNoSchedule"}]});
    k.call("POST", PODS, Some(pod("batch", tolerates)));
    assert_eq!(node_of(&mut k, "batch"), "node-a", "tolerating, it goes to the less requested node");
    let elsewhere =
        json!({"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]});
    k.call("POST", PODS, Some(pod("other", elsewhere)));
    assert_eq!(node_of(&mut k, "other"), "node-b", "a NoSchedule toleration does not tolerate PreferNoSchedule");
}

#[test]
fn extreme_preference_weights_are_refused_before_scoring() {
    // The largest weights never reach the scores (whose sums saturate
    // anyway): node affinity's preferred weights are 1-100, as upstream's.
    let mut k = two_nodes();
    let term = |weight: i64| {
        json!({"weight": weight, "preference": {"matchExpressions": [
        {"key": "disk", "operator": "In", "values": ["ssd"]}]}})
    };
    let both = json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        term(i64::MAX), term(100)]}}});
    let r = k.call("POST", PODS, Some(pod("greedy", both)));
    assert_eq!(r.status, 422, "{}", text(&r));
    assert!(message(&r).contains("[0].weight: Invalid value: 9223372036854775807: must be in the range 1-100"));
    assert_eq!(k.get(&format!("{PODS}/greedy")).status, 404);
}

#[test]
fn scoring_weighs_cpu_and_memory_together_and_their_balance() {
    // node-a has its memory mostly requested, node-b some of its cpu. A
    // pod asking 500m and 512Mi is less requested in cpu on node-a, but
    // upstream's least allocated (cpu and memory averaged) and balanced
    // allocation scores both favour node-b: 41 + 68 against 66 + 81.
    let mut k = two_nodes();
    k.call("POST", PODS, Some(pod("memory-hog", asking("0", "3Gi", json!({"nodeName": "node-a"})))));
    k.call("POST", PODS, Some(pod("cpu-user", asking("500m", "0", json!({"nodeName": "node-b"})))));
    k.call("POST", PODS, Some(pod("new", asking("500m", "512Mi", json!({})))));
    assert_eq!(node_of(&mut k, "new"), "node-b");
}

#[test]
fn the_binding_subresource_assigns_once_and_answers_as_upstream() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", PODS, Some(pod("p", json!({})))).status, 201);
    let binding = |name: &str, node: &str| json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"kind": "Node", "name": node}});
    let r = call(&mut s, "POST", &format!("{PODS}/p/binding"), Some(binding("q", "n1")));
    assert_eq!(
        (r.status, r.json_body()["message"].clone()),
        (400, json!("name in URL does not match name in Binding object"))
    );
    let r = call(&mut s, "POST", &format!("{PODS}/p/binding"), Some(binding("p", "")));
    assert_eq!(r.status, 422);
    assert_eq!(r.json_body()["details"]["causes"][0]["field"], "target.name");
    let r = call(&mut s, "POST", &format!("{PODS}/p/binding"), Some(binding("p", "n1")));
    assert_eq!(r.status, 201);
    assert_eq!(
        r.json_body(),
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})
    );
    let p = get(&mut s, &format!("{PODS}/p")).json_body();
    assert_eq!(p["spec"]["nodeName"], "n1");
    assert_eq!(condition(&p, "PodScheduled")["status"], "True");
    let r = call(&mut s, "POST", &format!("{PODS}/p/binding"), Some(binding("p", "n2")));
    assert_eq!(r.status, 409);
    assert_eq!(
        r.json_body()["message"],
        "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"n1\""
    );
    assert_eq!(call(&mut s, "GET", &format!("{PODS}/p/binding"), None).status, 405);
    let r = call(&mut s, "POST", &format!("{PODS}/missing/binding"), Some(binding("missing", "n1")));
    assert_eq!(r.status, 404);
    let discovery = get(&mut s, "/api/v1").json_body();
    let entry = discovery["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods/binding").cloned();
    assert_eq!(entry.unwrap()["verbs"], json!(["create"]));
}

#[test]
fn services_get_endpoints_and_slices_of_the_pods_they_select() {
    let mut k = two_nodes();
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"tier": "front"}},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"},
                                                       {"name": "metrics", "port": 9000, "targetPort": 9000}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/services", Some(svc)).status, 201);
    // No pod yet: an Endpoints without subsets, one empty slice.
    let ep = k.get("/api/v1/namespaces/default/endpoints/web").json_body();
    assert!(ep.get("subsets").is_none(), "{ep}");
    assert_eq!(ep["metadata"]["labels"], json!({"tier": "front", "endpointslice.kubernetes.io/skip-mirror": "true"}));
    let slices = |k: &mut Cluster| {
        k.get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3Dweb")
            .json_body()["items"]
            .as_array()
            .unwrap()
            .clone()
    };
    let s = slices(&mut k);
    assert_eq!(s.len(), 1);
    assert!(s[0]["endpoints"].is_null() && s[0]["ports"].is_null());
    assert!(s[0]["metadata"]["name"].as_str().unwrap().starts_with("web-"));

    for name in ["a", "b"] {
        let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}]}});
        k.call("POST", PODS, Some(p));
    }
    let ep = k.get("/api/v1/namespaces/default/endpoints/web").json_body();
    let subset = &ep["subsets"][0];
    assert_eq!(
        subset["ports"],
        json!([{"name": "http", "port": 8080, "protocol": "TCP"}, {"name": "metrics", "port": 9000, "protocol": "TCP"}])
    );
    let addresses = subset["addresses"].as_array().unwrap();
    assert_eq!(addresses.len(), 2);
    assert_eq!(addresses[0]["targetRef"]["kind"], "Pod");
    assert!(addresses[0]["nodeName"].is_string());
    let s = slices(&mut k);
    assert_eq!(s.len(), 1);
    assert_eq!(
        s[0]["ports"],
        json!([{"name": "http", "port": 8080, "protocol": "TCP"}, {"name": "metrics", "port": 9000, "protocol": "TCP"}])
    );
    assert_eq!(s[0]["endpoints"].as_array().unwrap().len(), 2);
    assert_eq!(s[0]["endpoints"][0]["conditions"], json!({"ready": true, "serving": true, "terminating": false}));
    assert_eq!(s[0]["metadata"]["ownerReferences"][0]["kind"], "Service");
    assert_eq!(s[0]["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"], "endpointslice-controller.k8s.io");

    // A deleted pod leaves both; a deleted Service takes both with it.
    k.call("DELETE", &format!("{PODS}/a"), None);
    let ep = k.get("/api/v1/namespaces/default/endpoints/web").json_body();
    assert_eq!(ep["subsets"][0]["addresses"].as_array().unwrap().len(), 1);
    assert_eq!(slices(&mut k)[0]["endpoints"].as_array().unwrap().len(), 1);
    k.call("DELETE", "/api/v1/namespaces/default/services/web", None);
    assert_eq!(k.get("/api/v1/namespaces/default/endpoints/web").status, 404);
    assert!(slices(&mut k).is_empty());
}

#[test]
fn pod_logs_come_from_the_running_container_and_time() {
    let mut k = two_nodes();
    let script = "i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done";
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "counter"},
        "spec": {"containers": [{"name": "count", "image": "busybox:1.28", "args": ["/bin/sh", "-c", script]}]}});
    k.call("POST", PODS, Some(p));
    k.s.advance(2_000);
    let r = k.get(&format!("{PODS}/counter/log"));
    assert_eq!((r.status, r.header("Content-Type")), (200, Some("text/plain")));
    let text = String::from_utf8(r.body).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3 && lines[0].starts_with("0: ") && lines[2].starts_with("2: "), "{text}");
    let r = k.get(&format!("{PODS}/counter/log?tailLines=1"));
    assert_eq!(String::from_utf8(r.body).unwrap().lines().count(), 1);
    assert_eq!(k.call("POST", &format!("{PODS}/counter/log"), Some(json!({}))).status, 405);
    assert_eq!(k.get(&format!("{PODS}/missing/log")).status, 404);
    let discovery = k.get("/api/v1").json_body();
    let entry = discovery["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods/log").cloned();
    assert_eq!(entry.unwrap()["verbs"], json!(["get"]));
}

#[test]
fn a_daemon_set_runs_one_pod_per_fitting_node_and_rolls_node_by_node() {
    let mut k = two_nodes();
    // A tainted node runs daemon pods only when they tolerate the taint.
    add_node(&mut k, "node-c", 2, json!({}));
    k.send(
        "PATCH",
        "/api/v1/nodes/node-c",
        "application/merge-patch+json",
        r#"{"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"}]}}"#,
    );
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
            "template": {"metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "a", "image": "fluentd:v1"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/daemonsets", Some(ds)).status, 201);
    let pods = k.get(PODS).json_body()["items"].as_array().unwrap().clone();
    let mut nodes: Vec<&str> = pods.iter().map(|p| p["spec"]["nodeName"].as_str().unwrap()).collect();
    nodes.sort();
    assert_eq!(nodes, ["node-a", "node-b"]);
    assert!(pods.iter().all(|p| p["status"]["phase"] == "Running"));
    let d = k.get("/apis/apps/v1/namespaces/default/daemonsets/agent").json_body();
    assert_eq!(d["status"]["desiredNumberScheduled"], 2);
    assert_eq!(d["status"]["numberReady"], 2);
    assert_eq!(d["status"]["updatedNumberScheduled"], 2);
    // A new template replaces the pods; a new node gets one too.
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"fluentd:v2"}]}}}}"#;
    k.send(
        "PATCH",
        "/apis/apps/v1/namespaces/default/daemonsets/agent",
        "application/strategic-merge-patch+json",
        patch,
    );
    add_node(&mut k, "node-d", 3, json!({}));
    let pods = k.get(PODS).json_body()["items"].as_array().unwrap().clone();
    assert_eq!(pods.len(), 3);
    assert!(pods.iter().all(|p| p["spec"]["containers"][0]["image"] == "fluentd:v2"), "{pods:?}");
}

#[test]
fn a_stateful_set_starts_pods_in_order_with_claims_and_scales_down_from_the_top() {
    let mut k = two_nodes();
    // kind's default class: each claim is provisioned once its pod is placed.
    let class = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer"});
    assert_eq!(k.call("POST", "/apis/storage.k8s.io/v1/storageclasses", Some(class)).status, 201);
    // Its volumes are held to a node by the node's hostname label.
    for node in ["node-a", "node-b"] {
        let labels = json!({"metadata": {"labels": {"kubernetes.io/hostname": node}}}).to_string();
        assert_eq!(
            k.send("PATCH", &format!("/api/v1/nodes/{node}"), "application/merge-patch+json", &labels).status,
            200
        );
    }
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "serviceName": "nginx", "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                    "volumeMounts": [{"name": "www", "mountPath": "/usr/share/nginx/html"}]}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "www"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", Some(sts)).status, 201);
    let names = |k: &mut Cluster, path: &str| -> Vec<String> {
        let mut n: Vec<String> = k.get(path).json_body()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&mut k, PODS), ["web-0", "web-1", "web-2"]);
    assert_eq!(
        names(&mut k, "/api/v1/namespaces/default/persistentvolumeclaims"),
        ["www-web-0", "www-web-1", "www-web-2"]
    );
    let p = k.get(&format!("{PODS}/web-1")).json_body();
    assert_eq!((p["spec"]["hostname"].as_str(), p["spec"]["subdomain"].as_str()), (Some("web-1"), Some("nginx")));
    assert_eq!(p["metadata"]["labels"]["apps.kubernetes.io/pod-index"], "1");
    assert_eq!(p["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "www-web-1");
    let c = k.get("/api/v1/namespaces/default/persistentvolumeclaims/www-web-1").json_body();
    assert_eq!(c["status"]["phase"], "Bound");
    assert_eq!(c["metadata"]["annotations"]["volume.kubernetes.io/selected-node"], p["spec"]["nodeName"]);
    // Each pod waited for the one before it: creates in ordinal order.
    let messages = k.event_messages("involvedObject.name=web,reason=SuccessfulCreate");
    assert_eq!(
        messages,
        [
            "create Claim www-web-0 Pod web-0 in StatefulSet web success",
            "create Pod web-0 in StatefulSet web successful",
            "create Claim www-web-1 Pod web-1 in StatefulSet web success",
            "create Pod web-1 in StatefulSet web successful",
            "create Claim www-web-2 Pod web-2 in StatefulSet web success",
            "create Pod web-2 in StatefulSet web successful",
        ]
    );
    let s = k.get("/apis/apps/v1/namespaces/default/statefulsets/web").json_body();
    assert_eq!((s["status"]["readyReplicas"].clone(), s["status"]["replicas"].clone()), (json!(3), json!(3)));
    // Each pod was made once, at the revision the set reports: the
    // controller hashes a missing collisionCount as 0, as upstream does, so
    // its first status write does not make web-0 look stale.
    assert!(k.event_messages("involvedObject.name=web,reason=SuccessfulDelete").is_empty());
    assert!(k.events("involvedObject.name=web,reason=SuccessfulCreate").iter().all(|e| e["count"] == 1));
    for p in k.get(PODS).json_body()["items"].as_array().unwrap() {
        assert_eq!(p["metadata"]["labels"]["controller-revision-hash"], s["status"]["updateRevision"]);
    }
    k.send(
        "PATCH",
        "/apis/apps/v1/namespaces/default/statefulsets/web/scale",
        "application/merge-patch+json",
        r#"{"spec":{"replicas":1}}"#,
    );
    assert_eq!(names(&mut k, PODS), ["web-0"]);
    assert_eq!(names(&mut k, "/api/v1/namespaces/default/persistentvolumeclaims").len(), 3, "claims are kept");
    // A new template: pods replaced at the new revision.
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}"#;
    k.send(
        "PATCH",
        "/apis/apps/v1/namespaces/default/statefulsets/web",
        "application/strategic-merge-patch+json",
        patch,
    );
    let p = k.get(&format!("{PODS}/web-0")).json_body();
    assert_eq!(p["spec"]["containers"][0]["image"], "nginx:1.28");
    let s = k.get("/apis/apps/v1/namespaces/default/statefulsets/web").json_body();
    assert_eq!(s["status"]["currentRevision"], s["status"]["updateRevision"]);
}

fn job(name: &str, completions: i64, parallelism: i64, command: Value) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
        "spec": {"completions": completions, "parallelism": parallelism, "backoffLimit": 2,
            "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "perl:5.34", "command": command}]}}}})
}

fn condition_types(j: &Value) -> Vec<String> {
    j["status"]["conditions"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap().to_string()).collect()
}

#[test]
fn jobs_run_to_their_completions_or_fail_past_their_backoff_limit() {
    let mut k = two_nodes();
    const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";
    let pi = json!(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]);
    let r = k.call("POST", JOBS, Some(job("pi", 3, 2, pi)));
    assert_eq!(r.status, 201);
    let created = r.json_body();
    let uid = created["metadata"]["uid"].as_str().unwrap();
    assert_eq!(created["spec"]["selector"], json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}));
    assert_eq!(created["spec"]["template"]["metadata"]["labels"]["job-name"], "pi");
    let j = k.get(&format!("{JOBS}/pi")).json_body();
    assert_eq!(condition_types(&j), ["SuccessCriteriaMet", "Complete"]);
    assert_eq!((j["status"]["succeeded"].clone(), j["status"].get("active")), (json!(3), None));
    assert!(j["status"]["completionTime"].is_string());
    let pods = k.get(&format!("{PODS}?labelSelector=job-name%3Dpi")).json_body()["items"].as_array().unwrap().clone();
    assert_eq!(pods.len(), 3);
    assert!(pods.iter().all(|p| p["status"]["phase"] == "Succeeded"));
    let state = &pods[0]["status"]["containerStatuses"][0]["state"]["terminated"];
    assert_eq!((state["exitCode"].clone(), state["reason"].clone()), (json!(0), json!("Completed")));

    k.call("POST", JOBS, Some(job("fails", 1, 1, json!(["sh", "-c", "exit 3"]))));
    let j = k.get(&format!("{JOBS}/fails")).json_body();
    assert_eq!(condition_types(&j), ["FailureTarget", "Failed"]);
    assert_eq!(j["status"]["conditions"][1]["reason"], "BackoffLimitExceeded");
    assert_eq!(j["status"]["failed"], 3, "the first try and two retries");

    // A pod whose container exits under restartPolicy Always waits in CrashLoopBackOff.
    k.call(
        "POST",
        PODS,
        Some(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bb"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}})),
    );
    let p = k.get(&format!("{PODS}/bb")).json_body();
    let cs = &p["status"]["containerStatuses"][0];
    assert_eq!((p["status"]["phase"].as_str(), cs["restartCount"].as_i64()), (Some("Running"), Some(1)));
    assert_eq!(cs["state"]["waiting"]["reason"], "CrashLoopBackOff");
    assert_eq!(cs["lastState"]["terminated"]["reason"], "Completed");
}

#[test]
fn deleting_a_running_pod_waits_for_its_kubelet_and_the_grace_period() {
    let mut k = two_nodes();
    let script = "while true; do echo tick; sleep 1; done";
    for (name, container) in [
        ("web", json!({"name": "c", "image": "nginx"})),
        ("loop", json!({"name": "c", "image": "busybox", "command": ["sh", "-c", script]})),
        ("quick", json!({"name": "c", "image": "busybox", "command": ["sh", "-c", script]})),
    ] {
        let p =
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}});
        k.call("POST", PODS, Some(p));
    }
    // nginx stops on SIGTERM: stopped and removed at once.
    let r = k.call("DELETE", &format!("{PODS}/web"), None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["metadata"]["deletionGracePeriodSeconds"], 30);
    assert_eq!(k.get(&format!("{PODS}/web")).status, 404);
    assert_eq!(k.event_messages("reason=Killing"), ["Stopping container c"]);

    // A shell ignores SIGTERM: Terminating for the grace period, then killed.
    let r = k.call("DELETE", &format!("{PODS}/loop"), None);
    let deleting = r.json_body();
    assert!(deleting["metadata"]["deletionTimestamp"].is_string());
    k.s.advance(29_000);
    k.c.tick(&mut k.s);
    assert_eq!(k.get(&format!("{PODS}/loop")).json_body(), deleting, "nothing is due yet");
    // A second DELETE may only bring the end forward.
    let r = k.call("DELETE", &format!("{PODS}/loop?gracePeriodSeconds=60"), None);
    assert_eq!(r.json_body()["metadata"]["deletionTimestamp"], deleting["metadata"]["deletionTimestamp"]);
    let rv = k.get(&format!("{PODS}/loop")).json_body()["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    k.s.advance(2_000);
    assert!(k.c.tick(&mut k.s));
    assert_eq!(k.get(&format!("{PODS}/loop")).status, 404);
    // Its kubelet wrote the killed container's end before the last DELETE:
    // a status write during the grace period is written, not a deletion.
    let seen = events(&k.get(&format!("{PODS}?watch=1&resourceVersion={rv}&fieldSelector=metadata.name%3Dloop")));
    let steps: Vec<(String, Value, Value)> = seen
        .iter()
        .map(|(t, o)| {
            (
                t.clone(),
                o["status"]["phase"].clone(),
                o["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"].clone(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [("MODIFIED".to_string(), json!("Failed"), json!(137)), ("DELETED".to_string(), json!("Failed"), json!(137))]
    );

    // --grace-period=0 --force: gone at once.
    let r = k.call("DELETE", &format!("{PODS}/quick?gracePeriodSeconds=0"), None);
    assert_eq!(r.status, 200);
    assert_eq!(k.get(&format!("{PODS}/quick")).status, 404);
}

#[test]
fn a_cron_job_makes_jobs_on_simulated_time_and_keeps_its_history() {
    let mut k = two_nodes();
    const CRON: &str = "/apis/batch/v1/namespaces/default/cronjobs";
    let cj = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello"},
        "spec": {"schedule": "* * * * *", "successfulJobsHistoryLimit": 2,
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "containers": [{"name": "hello", "image": "busybox:1.28", "command": ["echo", "Hello from the Kubernetes cluster"]}]}}}}}});
    assert_eq!(k.call("POST", CRON, Some(cj)).status, 201);
    let jobs = |k: &mut Cluster| -> Vec<String> {
        let mut n: Vec<String> = k.get("/apis/batch/v1/namespaces/default/jobs").json_body()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert!(jobs(&mut k).is_empty(), "nothing before the first minute");
    // (The controllers' next wake is a node Lease's renewal, every 10 s.)
    let wake = kubesim::clock::SimTime((k.s.now().0 / 60_000 + 1) * 60_000);
    for _ in 0..4 {
        k.s.advance(60_000);
        assert!(k.c.tick(&mut k.s));
    }
    let names = jobs(&mut k);
    assert_eq!(names.len(), 2, "two successful kept: {names:?}");
    let minute = wake.0 / 60_000;
    assert_eq!(names, [format!("hello-{}", minute + 2), format!("hello-{}", minute + 3)]);
    let cj = k.get(&format!("{CRON}/hello")).json_body();
    assert!(cj["status"].get("active").is_none(), "{}", cj["status"]);
    assert!(cj["status"]["lastScheduleTime"].is_string() && cj["status"]["lastSuccessfulTime"].is_string());
    // The job's pod printed its greeting.
    let pods = k.get(&format!("{PODS}?labelSelector=job-name%3D{}", names[1])).json_body();
    let pod = pods["items"][0]["metadata"]["name"].as_str().unwrap().to_string();
    let r = k.get(&format!("{PODS}/{pod}/log"));
    assert_eq!(String::from_utf8(r.body).unwrap(), "Hello from the Kubernetes cluster\n");
}

/// What upstream's CronJob controller tells besides its own Jobs: a Job
/// it owns but did not make (`kubectl create job --from=cronjob/…`) is
/// not listed as active but counts for `lastSuccessfulTime`; under Forbid
/// a time that comes while a Job runs is left unmet and run when it ends;
/// a listed Job deleted by hand went missing.
#[test]
fn a_cron_job_tells_of_jobs_it_did_not_make_and_runs_a_forbidden_time_late() {
    let mut k = two_nodes();
    const CRON: &str = "/apis/batch/v1/namespaces/default/cronjobs";
    const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";
    let cj = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello"},
        "spec": {"schedule": "* * * * *", "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "90"]}]}}}}}});
    assert_eq!(k.call("POST", CRON, Some(cj)).status, 201);
    let cj = k.get(&format!("{CRON}/hello")).json_body();
    let manual = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "manual", "annotations": {"cronjob.kubernetes.io/instantiate": "manual"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "hello",
                "uid": cj["metadata"]["uid"], "controller": true}]},
        "spec": cj["spec"]["jobTemplate"]["spec"]});
    assert_eq!(k.call("POST", JOBS, Some(manual)).status, 201);
    let told = |k: &mut Cluster, reason: &str| k.event_messages(&format!("involvedObject.name=hello,reason={reason}"));
    assert_eq!(told(&mut k, "UnexpectedJob"), ["Saw a job that the controller did not create or forgot: manual"]);
    let status = |k: &mut Cluster| k.get(&format!("{CRON}/hello")).json_body()["status"].clone();
    assert!(status(&mut k).get("active").is_none(), "not adopted: {}", status(&mut k));

    // Its first minute: the manual Job does not hold Forbid back.
    let wake = (k.s.now().0 / 60_000 + 1) * 60_000;
    k.s.advance(wake - k.s.now().0);
    k.c.tick(&mut k.s);
    let first = format!("hello-{}", wake / 60_000);
    assert_eq!(status(&mut k)["active"][0]["name"], first.as_str());
    // The next minute comes while it runs: left unmet.
    k.s.advance(60_000);
    k.c.tick(&mut k.s);
    let forbidden = "Not starting job because prior execution is running and concurrency policy is Forbid";
    assert_eq!(told(&mut k, "JobAlreadyActive"), [forbidden]);
    assert_eq!(status(&mut k)["lastScheduleTime"], kubesim::clock::SimTime(wake).rfc3339());
    // It ends 30 s later: the unmet minute runs then, named for it.
    k.s.advance(30_000);
    k.c.tick(&mut k.s);
    let late = format!("hello-{}", wake / 60_000 + 1);
    assert_eq!(told(&mut k, "SawCompletedJob"), [format!("Saw completed job: {first}, condition: Complete")]);
    let st = status(&mut k);
    assert_eq!(
        (st["active"][0]["name"].as_str(), st["active"].as_array().map(Vec::len)),
        (Some(late.as_str()), Some(1))
    );
    assert_eq!(st["lastScheduleTime"], kubesim::clock::SimTime(wake + 60_000).rfc3339());
    // Every Job of its that succeeded counts, the manual one too (it
    // ended first, and was never listed: no SawCompletedJob for it).
    let done =
        |k: &mut Cluster, job: &str| k.get(&format!("{JOBS}/{job}")).json_body()["status"]["completionTime"].clone();
    assert!(done(&mut k, "manual").is_string());
    assert_eq!(st["lastSuccessfulTime"], done(&mut k, &first));
    // A listed Job deleted by hand went missing.
    let r = k.call("DELETE", &format!("{JOBS}/{late}?propagationPolicy=Background"), None);
    assert_eq!(r.status, 200);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "MissingJob"), [format!("Active job went missing: {late}")]);
    assert!(status(&mut k).get("active").is_none());
}

#[test]
fn evictions_honour_the_disruption_budget() {
    let mut k = two_nodes();
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}}});
    k.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    const PDBS: &str = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
        "spec": {"minAvailable": 3, "selector": {"matchLabels": {"app": "web"}}}});
    assert_eq!(k.call("POST", PDBS, Some(pdb)).status, 201);
    let status = k.get(&format!("{PDBS}/web")).json_body()["status"].clone();
    assert_eq!(
        (status["currentHealthy"].clone(), status["desiredHealthy"].clone(), status["disruptionsAllowed"].clone()),
        (json!(3), json!(3), json!(0))
    );
    assert_eq!(status["conditions"][0]["reason"], "InsufficientPods");
    let pods: Vec<String> = k.get(PODS).json_body()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    let eviction = |name: &str| json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}});
    let r = k.call("POST", &format!("{PODS}/{}/eviction", pods[0]), Some(eviction(&pods[0])));
    assert_eq!(r.status, 429);
    let body = r.json_body();
    assert_eq!(body["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
    assert_eq!(
        body["details"]["causes"][0],
        json!({"reason": "DisruptionBudget",
        "message": "The disruption budget web needs 3 healthy pods and has 3 currently"})
    );
    let r = k.call("POST", &format!("{PODS}/{}/eviction", pods[0]), Some(eviction("other")));
    assert_eq!(r.status, 400);

    // One may go: the pod is evicted and the ReplicaSet replaces it.
    k.send("PATCH", &format!("{PDBS}/web"), "application/merge-patch+json", r#"{"spec":{"minAvailable":2}}"#);
    let r = k.call("POST", &format!("{PODS}/{}/eviction", pods[0]), Some(eviction(&pods[0])));
    assert_eq!((r.status, r.json_body()["status"].clone()), (201, json!("Success")));
    assert_eq!(k.get(&format!("{PODS}/{}", pods[0])).status, 404);
    assert_eq!(k.get(PODS).json_body()["items"].as_array().unwrap().len(), 3);
    let discovery = k.get("/api/v1").json_body();
    let entry =
        discovery["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods/eviction").cloned().unwrap();
    assert_eq!(
        (entry["group"].as_str(), entry["version"].as_str(), entry["kind"].as_str()),
        (Some("policy"), Some("v1"), Some("Eviction"))
    );
}

/// A budget with no selector selects no pod (policy/v1's nil selector),
/// where an empty one selects the namespace: it counts none, says so with
/// a `NoPods` event, and blocks no eviction.
#[test]
fn a_budget_without_a_selector_selects_no_pod() {
    let mut k = two_nodes();
    for name in ["a", "b"] {
        let spec = json!({"containers": [{"name": "c", "image": "nginx"}]});
        assert_eq!(k.call("POST", PODS, Some(pod(name, spec))).status, 201);
    }
    const PDBS: &str = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    for (name, selector) in [("none", Value::Null), ("all", json!({}))] {
        let mut pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"minAvailable": 2}});
        if !selector.is_null() {
            pdb["spec"]["selector"] = selector;
        }
        assert_eq!(k.call("POST", PDBS, Some(pdb)).status, 201);
    }
    let counts = |k: &mut Cluster, name: &str| {
        let st = k.get(&format!("{PDBS}/{name}")).json_body()["status"].clone();
        [st["currentHealthy"].clone(), st["desiredHealthy"].clone(), st["expectedPods"].clone()]
    };
    assert_eq!(counts(&mut k, "none"), [json!(0), json!(2), json!(0)]);
    assert_eq!(counts(&mut k, "all"), [json!(2), json!(2), json!(2)]);
    let told = k.events("reason=NoPods");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        (
            told[0]["involvedObject"]["name"].as_str(),
            told[0]["message"].as_str(),
            told[0]["source"]["component"].as_str()
        ),
        (Some("none"), Some("No matching pods found"), Some("controllermanager"))
    );
    assert_eq!(told[0]["count"], 2, "told at its create and at its status update, as upstream's syncs tell it");
    // The empty selector's budget blocks the eviction; without it, none does.
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "a"}});
    assert_eq!(k.call("POST", &format!("{PODS}/a/eviction"), Some(eviction.clone())).status, 429);
    assert_eq!(k.call("DELETE", &format!("{PDBS}/all"), None).status, 200);
    assert_eq!(k.call("POST", &format!("{PODS}/a/eviction"), Some(eviction)).status, 201);
}

/// Kubernetes' liveness example: the script removes the file the probe
/// reads after 30 s; the probes (from 5 s, every 5 s) fail from then, the
/// third failure kills the container, which (a shell, deaf to SIGTERM)
/// dies when the grace period ends and is restarted.
#[test]
fn a_failing_liveness_probe_kills_and_restarts_the_container() {
    use kubesim::server::logs::probe_fails_after;
    let exec = json!({"name": "liveness", "image": "registry.k8s.io/busybox:1.27.2",
        "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
        "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5, "periodSeconds": 5}});
    assert_eq!(
        probe_fails_after(&exec, "livenessProbe"),
        Some((30_000, "cat: can't open '/tmp/healthy': No such file or directory".to_string()))
    );
    let http = json!({"name": "liveness", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40", "args": ["liveness"],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}}});
    assert_eq!(
        probe_fails_after(&http, "livenessProbe"),
        Some((10_000, "HTTP probe failed with statuscode: 500".to_string()))
    );
    let never_made = json!({"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 3600"],
        "livenessProbe": {"exec": {"command": ["ls", "/tmp/ready"]}}});
    assert_eq!(
        probe_fails_after(&never_made, "livenessProbe"),
        Some((0, "ls: /tmp/ready: No such file or directory".to_string()))
    );
    // The image's own program, or a file the image may hold: passes.
    let image_own =
        json!({"name": "c", "image": "nginx", "livenessProbe": {"exec": {"command": ["ls", "/tmp/ready"]}}});
    assert_eq!(probe_fails_after(&image_own, "livenessProbe"), None);
    let mut image_file = never_made.clone();
    image_file["livenessProbe"]["exec"]["command"] = json!(["cat", "/etc/hostname"]);
    assert_eq!(probe_fails_after(&image_file, "livenessProbe"), None);
    let fine = json!({"name": "c", "image": "nginx", "livenessProbe": {"httpGet": {"path": "/", "port": 80}}});
    assert_eq!(probe_fails_after(&fine, "livenessProbe"), None);

    let mut k = two_nodes();
    assert_eq!(k.call("POST", PODS, Some(pod("liveness-exec", json!({"containers": [exec]})))).status, 201);
    let look = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/liveness-exec")).json_body();
        let cs = p["status"]["containerStatuses"][0].clone();
        let state = cs["state"].as_object().unwrap().keys().next().unwrap().clone();
        (state, cs["restartCount"].as_i64().unwrap(), cs["lastState"]["terminated"]["exitCode"].clone())
    };
    let told = |k: &mut Cluster, reason: &str| {
        let e = k.events(&format!("reason={reason},involvedObject.name=liveness-exec"));
        e.first().map(|e| (e["count"].as_i64().unwrap(), e["message"].as_str().unwrap().to_string()))
    };
    k.s.advance(34_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "Unhealthy"), None, "the file is there until 30 s; the probe at 30 s still read it");
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    let failed = "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory".to_string();
    assert_eq!(told(&mut k, "Unhealthy"), Some((1, failed.clone())));
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "Unhealthy"), Some((3, failed.clone())));
    let killing = "Container liveness failed liveness probe, will be restarted".to_string();
    assert_eq!(told(&mut k, "Killing"), Some((1, killing.clone())));
    assert_eq!(look(&mut k), ("running".into(), 0, Value::Null), "a shell waits out its grace period");
    k.s.advance(29_000);
    k.c.tick(&mut k.s);
    assert_eq!(look(&mut k).1, 0);
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    assert_eq!(
        look(&mut k),
        ("running".into(), 1, json!(137)),
        "killed when the grace period ends, and started again at once: its first end"
    );
    assert_eq!(told(&mut k, "BackOff"), None);
    // The new instance has its file again, and loses it 30 s on.
    k.s.advance(34_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "Unhealthy"), Some((3, failed.clone())));
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "Unhealthy"), Some((4, failed)));
    assert_eq!(told(&mut k, "Killing"), Some((1, killing.clone())));
    // Killed again (third failure at 45 s, grace over at 75 s): its
    // second end backs off 10 s, the count the instance that ended.
    k.s.advance(40_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k, "Killing"), Some((2, killing)));
    assert_eq!(look(&mut k), ("waiting".into(), 1, json!(137)));
    let back_off = "Back-off restarting failed container liveness in pod liveness-exec_default";
    assert!(told(&mut k, "BackOff").is_some_and(|(n, m)| n == 1 && m.starts_with(back_off)));
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(look(&mut k), ("running".into(), 2, json!(137)), "restarted after its back-off");
}

#[test]
fn containers_end_on_simulated_time_and_crashing_ones_restart_after_a_back_off() {
    let mut k = two_nodes();
    const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";
    k.call("POST", JOBS, Some(job("nap", 1, 1, json!(["sleep", "5"]))));
    let j = k.get(&format!("{JOBS}/nap")).json_body();
    assert_eq!(j["status"]["active"], 1);
    k.s.advance(4_000);
    assert!(!k.c.tick(&mut k.s));
    k.s.advance(1_000);
    assert!(k.c.tick(&mut k.s));
    let j = k.get(&format!("{JOBS}/nap")).json_body();
    assert_eq!(condition_types(&j), ["SuccessCriteriaMet", "Complete"]);

    // busybox's shell ends at once: restarted after 10 s, then 20 s, …
    k.call(
        "POST",
        PODS,
        Some(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bb"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}})),
    );
    let restarts = |k: &mut Cluster| {
        k.get(&format!("{PODS}/bb")).json_body()["status"]["containerStatuses"][0]["restartCount"].as_i64().unwrap()
    };
    assert_eq!(restarts(&mut k), 1);
    // Started, ended, started again at once, ended again: each of the
    // kubelet's start events counted twice, then the back-off told.
    let told: Vec<(String, i64)> = k
        .events("involvedObject.name=bb,source=kubelet")
        .iter()
        .map(|e| (e["reason"].as_str().unwrap_or("").to_string(), e["count"].as_i64().unwrap_or(0)))
        .collect();
    let want = [("Pulled", 2), ("Created", 2), ("Started", 2), ("BackOff", 1)];
    assert_eq!(told, want.map(|(r, n)| (r.to_string(), n)));
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(restarts(&mut k), 2);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(restarts(&mut k), 2, "the second back-off is 20 s");
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(restarts(&mut k), 3);
    let p = k.get(&format!("{PODS}/bb")).json_body();
    let cs = &p["status"]["containerStatuses"][0];
    assert_eq!(
        cs["state"]["waiting"]["message"].as_str().unwrap().split(' ').take(2).collect::<Vec<_>>(),
        ["back-off", "40s"]
    );
    // The BackOff event is one event counted up, as the recorder aggregates.
    let evs = k.events("reason=BackOff,involvedObject.name=bb");
    assert_eq!((evs.len(), evs[0]["count"].as_i64()), (1, Some(3)));
}

/// Serves a request that may be a followed log.
fn follow(k: &mut Cluster, target: &str) -> (String, Option<kubesim::server::logs::LogFollow>) {
    match k.s.serve(kubesim::server::Request::new("GET", target)) {
        kubesim::server::Served::Log(head, f) => (String::from_utf8(head.body).unwrap(), Some(f)),
        kubesim::server::Served::Response(r) => (String::from_utf8(r.body).unwrap(), None),
        kubesim::server::Served::Watch(..) => panic!("a watch"),
    }
}

#[test]
fn a_followed_log_grows_with_simulated_time_and_ends_when_the_container_stops() {
    let mut k = two_nodes();
    let script = "i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done";
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "counter"},
        "spec": {"terminationGracePeriodSeconds": 3,
            "containers": [{"name": "count", "image": "busybox:1.28", "args": ["/bin/sh", "-c", script]}]}});
    k.call("POST", PODS, Some(p));
    k.s.advance(1_000);
    let (first, f) = follow(&mut k, &format!("{PODS}/counter/log?follow=true&timestamps=true"));
    let mut f = f.expect("a running container is followed");
    assert_eq!(first.lines().count(), 2, "{first}");
    assert!(k.s.poll_log(&mut f).is_empty(), "nothing new at the same instant");
    k.s.advance(2_000);
    let more = String::from_utf8(k.s.poll_log(&mut f)).unwrap();
    let numbers: Vec<&str> = more.lines().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(numbers, ["2:", "3:"]);
    assert!(!f.is_done());
    // Deleted: the shell ignores SIGTERM, so it prints through the grace period.
    k.call("DELETE", &format!("{PODS}/counter"), None);
    k.s.advance(2_000);
    assert_eq!(String::from_utf8(k.s.poll_log(&mut f)).unwrap().lines().count(), 2);
    assert!(!f.is_done());
    k.s.advance(1_500);
    k.c.tick(&mut k.s);
    k.s.poll_log(&mut f);
    assert!(f.is_done(), "the stream ends with the container");

    // limitBytes ends a stream too; a finished container is not followed.
    k.call(
        "POST",
        PODS,
        Some(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c2"},
        "spec": {"containers": [{"name": "count", "image": "busybox:1.28", "args": ["/bin/sh", "-c", script]}]}})),
    );
    let (_, f) = follow(&mut k, &format!("{PODS}/c2/log?follow=true&limitBytes=40"));
    let mut f = f.unwrap();
    k.s.advance(5_000);
    let text = String::from_utf8(k.s.poll_log(&mut f)).unwrap();
    assert!(f.is_done() && !text.is_empty(), "{text}");
    k.call("POST", PODS, Some(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hi"},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["echo", "hi"]}]}})));
    let (text, f) = follow(&mut k, &format!("{PODS}/hi/log?follow=true"));
    assert_eq!((text.as_str(), f.is_none()), ("hi\n", true));
}

#[test]
fn previous_reads_the_instance_before_the_last_restart() {
    let mut k = two_nodes();
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "crash"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "args": ["sh", "-c", "echo boom; exit 3"]}]}});
    k.call("POST", PODS, Some(p));
    let r = k.get(&format!("{PODS}/crash/log?previous=true"));
    assert_eq!((r.status, String::from_utf8(r.body).unwrap()), (200, "boom\n".to_string()));
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fine"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    k.call("POST", PODS, Some(p));
    let r = k.get(&format!("{PODS}/fine/log?previous=true"));
    assert_eq!(r.status, 400);
    assert_eq!(r.json_body()["message"], "previous terminated container \"c\" in pod \"fine\" not found");
}

#[test]
fn the_node_log_query_answers_from_the_nodes_kubelet() {
    let mut k = two_nodes();
    k.call("POST", PODS, Some(pod("web", json!({"nodeName": "node-b"}))));
    let r = k.get("/api/v1/nodes/node-b/proxy/logs/?query=kubelet&pattern=SyncLoop");
    assert_eq!((r.status, r.header("Content-Type")), (200, Some("text/plain;charset=UTF-8")));
    let text = String::from_utf8(r.body).unwrap();
    assert!(text.lines().all(|l| l.contains(" node-b kubelet[")), "{text}");
    assert!(text.contains("\"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]"), "{text}");
    let r = k.get("/api/v1/nodes/node-a/proxy/logs/?query=kubelet&pattern=default/web");
    assert_eq!(String::from_utf8(r.body).unwrap(), "-- No entries --\n", "another node's kubelet never saw it");
    let r = k.get("/api/v1/nodes/node-b/proxy/logs/?query=kubelet&boot=1");
    assert_eq!(
        (r.status, String::from_utf8(r.body).unwrap()),
        (406, "boot: Invalid value: 1: must be less than 1\n".into())
    );
    assert_eq!(k.call("POST", "/api/v1/nodes/node-b/proxy/logs/", None).status, 405);
    assert_eq!(String::from_utf8(k.get("/api/v1/nodes/node-b/proxy/healthz").body).unwrap(), "ok");
    let r = k.get("/api/v1/nodes/nope/proxy/logs/?query=kubelet");
    assert_eq!((r.status, r.json_body()["message"].as_str()), (404, Some("nodes \"nope\" not found")));
    // A node with no address cannot be reached.
    k.call("POST", "/api/v1/nodes", Some(json!({"metadata": {"name": "bare"}})));
    let r = k.get("/api/v1/nodes/bare/proxy/logs/?query=kubelet");
    assert_eq!(
        (r.status, r.json_body()["message"].as_str()),
        (500, Some("no preferred addresses found; known addresses: []"))
    );
    assert!(r.json_body().get("reason").is_none() && r.json_body().get("details").is_none(), "a plain error");
    let discovery = k.get("/api/v1").json_body();
    let entry = discovery["resources"].as_array().unwrap().iter().find(|r| r["name"] == "nodes/proxy").cloned();
    assert_eq!(entry.unwrap()["kind"], "NodeProxyOptions");
}

#[test]
fn the_scheduler_records_through_events_k8s_io_and_repeats_become_a_series() {
    let mut k = two_nodes();
    const V1: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
    k.call("POST", PODS, Some(pod("web", json!({}))));
    let node = k.get(&format!("{PODS}/web")).json_body()["spec"]["nodeName"].as_str().unwrap().to_string();
    let scheduled = k.get(&format!("{V1}?fieldSelector=reason%3DScheduled")).json_body();
    let e = &scheduled["items"][0];
    assert_eq!(
        (&e["reportingController"], &e["reportingInstance"], &e["action"], &e["type"]),
        (&json!("default-scheduler"), &json!("default-scheduler-control-plane"), &json!("Binding"), &json!("Normal"))
    );
    assert_eq!(e["note"], format!("Successfully assigned default/web to {node}"));
    assert!(e["eventTime"].as_str().unwrap().ends_with("000Z"), "a MicroTime");
    // Through core/v1, as `kubectl describe` reads it.
    let core = &k.events("reason=Scheduled")[0];
    assert_eq!((&core["source"], &core["reportingComponent"]), (&json!({}), &json!("default-scheduler")));
    assert!(core.get("count").is_none());

    // A pod nothing fits: tried again every five minutes, each failure
    // recorded; the same event about the same pod becomes a series.
    k.call("POST", PODS, Some(pod("nowhere", json!({"nodeSelector": {"disk": "tape"}}))));
    let failures = |k: &mut Cluster| {
        let r = k.get(&format!("{V1}?fieldSelector=reason%3DFailedScheduling,regarding.name%3Dnowhere"));
        let mut items = r.json_body()["items"].as_array().cloned().unwrap();
        items.sort_by_key(|e| e["metadata"]["name"].as_str().unwrap().to_string());
        items.iter().map(|e| e["series"]["count"].as_i64().unwrap_or(1)).collect::<Vec<i64>>()
    };
    let minutes = |k: &mut Cluster, n: i64| {
        for _ in 0..n {
            k.s.advance(60_000);
            k.c.tick(&mut k.s);
        }
    };
    assert_eq!(failures(&mut k), [1]);
    minutes(&mut k, 5);
    // The pod's resourceVersion changed with its PodScheduled condition:
    // another object reference, another event (as upstream's key has it).
    assert_eq!(failures(&mut k), [1, 1]);
    minutes(&mut k, 5);
    assert_eq!(failures(&mut k), [1, 2], "the second occurrence patches the series");
    minutes(&mut k, 5);
    assert_eq!(failures(&mut k), [1, 2], "later ones are only counted");
    // The series ends once quiet for six minutes, sending its count.
    assert_eq!(k.call("DELETE", &format!("{PODS}/nowhere?gracePeriodSeconds=0"), None).status, 200);
    minutes(&mut k, 12);
    assert_eq!(failures(&mut k), [1, 3]);
}

#[test]
fn probed_containers_are_ready_once_their_probes_have_succeeded_on_simulated_time() {
    let mut k = two_nodes();
    let probe =
        |delay: i64| json!({"httpGet": {"path": "/", "port": 80}, "initialDelaySeconds": delay, "periodSeconds": 5});
    let spec = json!({"containers": [{"name": "c", "image": "nginx:1.27",
        "startupProbe": probe(3), "readinessProbe": {"httpGet": {"path": "/", "port": 80},
            "initialDelaySeconds": 5, "periodSeconds": 5, "successThreshold": 2}}]});
    k.call("POST", PODS, Some(pod("slow", spec)));
    let state = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/slow")).json_body();
        let cs = &p["status"]["containerStatuses"][0];
        (
            p["status"]["phase"].as_str().unwrap_or("").to_string(),
            cs["started"].as_bool().unwrap_or(false),
            cs["ready"].as_bool().unwrap_or(false),
            condition(&p, "Ready")["status"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(state(&mut k), ("Running".into(), false, false, "False".into()));
    let c = condition(&k.get(&format!("{PODS}/slow")).json_body(), "Ready");
    assert_eq!(c["message"], "containers with unready status: [c]");
    k.s.advance(3_000);
    k.c.tick(&mut k.s);
    assert_eq!(state(&mut k), ("Running".into(), true, false, "False".into()), "started after the startup probe");
    // The readiness probe's first success at 5 s, its second at 10 s.
    k.s.advance(6_000);
    k.c.tick(&mut k.s);
    assert!(!state(&mut k).2, "one success is not enough");
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    assert_eq!(state(&mut k), ("Running".into(), true, true, "True".into()));
    let ready = condition(&k.get(&format!("{PODS}/slow")).json_body(), "Ready");
    assert!(ready.get("reason").is_none() && ready.get("message").is_none(), "{ready}");
}

/// A container whose environment names a ConfigMap or Secret (or a key of
/// one) that is not there is not made: `CreateContainerConfigError`, the
/// pod Pending with its other containers running, a Warning `Failed` event
/// told again at each retry; once the object is there, the next retry
/// starts it. What is `optional` may be missing.
#[test]
fn a_container_waits_for_the_config_its_environment_names() {
    let mut k = two_nodes();
    let spec = json!({"containers": [
        {"name": "side", "image": "nginx:1.27",
            "env": [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "extra", "key": "mode", "optional": true}}}],
            "envFrom": [{"secretRef": {"name": "nope", "optional": true}}]},
        {"name": "app", "image": "nginx:1.27",
            "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "level"}}}]}]});
    assert_eq!(k.call("POST", PODS, Some(pod("cfg", spec))).status, 201);
    let statuses = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/cfg")).json_body();
        let states: Vec<Value> = p["status"]["containerStatuses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| json!([s["name"], s["state"].as_object().unwrap().keys().next(), s["state"]["waiting"]]))
            .collect();
        (p["status"]["phase"].as_str().unwrap().to_string(), states)
    };
    let (phase, states) = statuses(&mut k);
    assert_eq!(phase, "Pending");
    assert_eq!(
        states,
        [
            json!(["side", "running", null]),
            json!(["app", "waiting", {"reason": "CreateContainerConfigError", "message": "configmap \"settings\" not found"}])
        ]
    );
    let p = k.get(&format!("{PODS}/cfg")).json_body();
    assert_eq!(condition(&p, "PodReadyToStartContainers")["status"], "True");
    assert_eq!(condition(&p, "Ready")["message"], "containers with unready status: [app]");
    assert!(p["status"]["podIP"].is_string());
    // Each message its own Event, counted (the recorder's key holds it).
    let failed = |k: &mut Cluster| {
        let e = k.events("reason=Failed,involvedObject.name=cfg");
        assert!(e.iter().all(|e| e["involvedObject"]["fieldPath"] == "spec.containers{app}"));
        e.iter().map(|e| (e["message"].as_str().unwrap().to_string(), e["count"].as_i64().unwrap())).collect::<Vec<_>>()
    };
    let missing = ("Error: configmap \"settings\" not found".to_string(), 1);
    assert_eq!(failed(&mut k), std::slice::from_ref(&missing));
    // The map without the key: the next retry says so.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"other": "1"}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/configmaps", Some(cm)).status, 201);
    assert_eq!(failed(&mut k), std::slice::from_ref(&missing), "nothing retried before the back-off");
    let keyless = ("Error: couldn't find key level in ConfigMap default/settings".to_string(), 1);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(failed(&mut k), [missing.clone(), keyless.clone()]);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(failed(&mut k), [missing.clone(), (keyless.0.clone(), 2)], "told again at the next retry");
    let ip = k.get(&format!("{PODS}/cfg")).json_body()["status"]["podIP"].clone();
    // With the key, the container starts; the first one is left as it was.
    let patch = json!({"data": {"level": "debug"}}).to_string();
    k.send("PATCH", "/api/v1/namespaces/default/configmaps/settings", "application/merge-patch+json", &patch);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    let (phase, states) = statuses(&mut k);
    assert_eq!(phase, "Running");
    assert_eq!(states, [json!(["side", "running", null]), json!(["app", "running", null])]);
    let p = k.get(&format!("{PODS}/cfg")).json_body();
    assert_eq!(p["status"]["podIP"], ip, "the sandbox's address is kept");
    assert_eq!(k.events("reason=Started,involvedObject.name=cfg").len(), 2);
    assert_eq!(failed(&mut k), [missing, (keyless.0, 2)]);
}

/// While a container waits for its configuration, the pod's other
/// containers go on: a program that ends, ends (and is restarted), a
/// crash-looping one restarts on its back-off, and a retry of the waiting
/// container leaves their restart counts be (the pod stays Pending, as
/// the kubelet's phase counts a container that never ran as waiting).
#[test]
fn a_pods_other_containers_go_on_while_one_waits_for_its_config() {
    let mut k = two_nodes();
    let spec = json!({"containers": [
        {"name": "crash", "image": "busybox"},
        {"name": "nap", "image": "busybox", "command": ["sleep", "5"]},
        {"name": "app", "image": "nginx:1.27",
            "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "level"}}}]}]});
    assert_eq!(k.call("POST", PODS, Some(pod("mix", spec))).status, 201);
    let look = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/mix")).json_body();
        let states: Vec<(String, String, i64)> = p["status"]["containerStatuses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let state = s["state"].as_object().unwrap();
                let (kind, detail) = state.iter().next().unwrap();
                let what = detail["reason"].as_str().map_or(kind.clone(), |r| format!("{kind} {r}"));
                (s["name"].as_str().unwrap().to_string(), what, s["restartCount"].as_i64().unwrap())
            })
            .collect();
        (p["status"]["phase"].as_str().unwrap().to_string(), states)
    };
    let st = |n: &str, w: &str, r: i64| (n.to_string(), w.to_string(), r);
    assert_eq!(
        look(&mut k),
        (
            "Pending".into(),
            vec![
                st("crash", "waiting CrashLoopBackOff", 1),
                st("nap", "running", 0),
                st("app", "waiting CreateContainerConfigError", 0)
            ]
        )
    );
    k.s.advance(5_000);
    k.c.tick(&mut k.s);
    let (phase, states) = look(&mut k);
    assert_eq!(phase, "Pending");
    assert_eq!(states[1], st("nap", "running", 1), "the sleep ended, started again at once (a first end)");
    k.s.advance(5_000);
    k.c.tick(&mut k.s);
    let (phase, states) = look(&mut k);
    assert_eq!(phase, "Pending");
    assert_eq!(states[0], st("crash", "waiting CrashLoopBackOff", 2), "restarted after 10 s, not counted afresh");
    assert_eq!(states[2], st("app", "waiting CreateContainerConfigError", 0));
    assert_eq!(k.events("reason=Failed,involvedObject.name=mix")[0]["count"], 2, "tried again");
    let p = k.get(&format!("{PODS}/mix")).json_body();
    assert_eq!(condition(&p, "Ready")["message"], "containers with unready status: [crash nap app]");
    // Once the config is there, the waiting container starts; the others
    // keep their counts.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"level": "1"}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/configmaps", Some(cm)).status, 201);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    let (phase, states) = look(&mut k);
    assert_eq!(phase, "Running");
    assert_eq!(states[2], st("app", "running", 0));
    assert!(states[0].2 >= 2, "{states:?}");
    // The nap's second end (at 10 s) waits 10 s, counted as the instance
    // that ended until the next starts.
    assert_eq!(states[1], st("nap", "running", 2), "{states:?}");
}

/// Init containers run one at a time before the pod's containers, each
/// to its end on simulated time; kubectl's STATUS follows them
/// (`Init:0/2`, `Init:1/2`, `PodInitializing` gone once the pod runs).
#[test]
fn init_containers_run_in_order_before_the_containers() {
    let mut k = two_nodes();
    let spec = json!({
        "initContainers": [
            {"name": "wait", "image": "busybox", "command": ["sh", "-c", "sleep 5"]},
            {"name": "prepare", "image": "busybox", "command": ["sh", "-c", "echo ready"]}],
        "containers": [{"name": "app", "image": "nginx:1.27"}]});
    assert_eq!(k.call("POST", PODS, Some(pod("boot", spec))).status, 201);
    let status_column = |k: &mut Cluster| {
        let t = table(&mut k.s, &format!("{PODS}/boot"));
        t["rows"][0]["cells"][2].as_str().unwrap().to_string()
    };
    let p = k.get(&format!("{PODS}/boot")).json_body();
    assert_eq!(p["status"]["phase"], "Pending");
    let inits = &p["status"]["initContainerStatuses"];
    assert!(inits[0]["state"]["running"].is_object());
    assert_eq!((inits[0]["ready"].as_bool(), inits[0]["started"].as_bool()), (Some(false), Some(true)));
    assert_eq!(inits[1]["state"]["waiting"]["reason"], "PodInitializing");
    assert_eq!(p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "PodInitializing");
    let init = condition(&p, "Initialized");
    assert_eq!((init["status"].as_str(), init["reason"].as_str()), (Some("False"), Some("ContainersNotInitialized")));
    assert_eq!(init["message"], "containers with incomplete status: [wait prepare]");
    assert_eq!(condition(&p, "PodReadyToStartContainers")["status"], "True");
    assert!(p["status"]["podIP"].is_string());
    assert_eq!(status_column(&mut k), "Init:0/2");
    k.s.advance(4_000);
    k.c.tick(&mut k.s);
    assert_eq!(status_column(&mut k), "Init:0/2", "the first runs 5 seconds");
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    let p = k.get(&format!("{PODS}/boot")).json_body();
    assert_eq!(p["status"]["phase"], "Running");
    for s in p["status"]["initContainerStatuses"].as_array().unwrap() {
        assert_eq!(s["state"]["terminated"]["reason"], "Completed", "{s}");
        assert_eq!((s["ready"].as_bool(), s["started"].as_bool()), (Some(true), Some(false)));
    }
    assert!(p["status"]["containerStatuses"][0]["state"]["running"].is_object());
    assert_eq!(condition(&p, "Initialized")["status"], "True");
    assert_eq!(status_column(&mut k), "Running");
    let started: Vec<String> = k
        .events("reason=Started,involvedObject.name=boot")
        .iter()
        .map(|e| e["involvedObject"]["fieldPath"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(started, ["spec.initContainers{wait}", "spec.initContainers{prepare}", "spec.containers{app}"]);
}

/// A failing init container is restarted after a back-off (the pod's
/// containers wait), unless the pod never restarts: then the pod fails.
#[test]
fn a_failing_init_container_backs_off_or_fails_the_pod() {
    let mut k = two_nodes();
    let init = json!([{"name": "check", "image": "busybox", "command": ["sh", "-c", "exit 3"]}]);
    let spec = json!({"initContainers": init, "containers": [{"name": "app", "image": "nginx:1.27"}]});
    assert_eq!(k.call("POST", PODS, Some(pod("retry", spec.clone()))).status, 201);
    let init_status = |k: &mut Cluster, name: &str| {
        k.get(&format!("{PODS}/{name}")).json_body()["status"]["initContainerStatuses"][0].clone()
    };
    let st = init_status(&mut k, "retry");
    assert_eq!(st["state"]["waiting"]["reason"], "CrashLoopBackOff");
    assert_eq!(st["lastState"]["terminated"]["exitCode"], 3);
    assert_eq!(st["restartCount"], 1);
    let t = table(&mut k.s, &format!("{PODS}/retry"));
    assert_eq!(t["rows"][0]["cells"][2], "Init:CrashLoopBackOff");
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(init_status(&mut k, "retry")["restartCount"], 2);
    assert_eq!(k.get(&format!("{PODS}/retry")).json_body()["status"]["phase"], "Pending");

    let mut never = spec;
    never["restartPolicy"] = json!("Never");
    assert_eq!(k.call("POST", PODS, Some(pod("once", never))).status, 201);
    let p = k.get(&format!("{PODS}/once")).json_body();
    assert_eq!(p["status"]["phase"], "Failed");
    assert_eq!(p["status"]["initContainerStatuses"][0]["state"]["terminated"]["reason"], "Error");
    assert_eq!(p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "PodInitializing");
    let t = table(&mut k.s, &format!("{PODS}/once"));
    assert_eq!(t["rows"][0]["cells"][2], "Init:Error");
}

/// Kubernetes' init container example: each init container loops `until
/// nslookup` finds its Service, so the pod stays `Init:0/2` until
/// `myservice` exists and starts once `mydb` does too.
#[test]
fn init_containers_waiting_for_services_go_on_once_they_exist() {
    let mut k = two_nodes();
    let wait = |svc: &str| {
        json!({"name": format!("init-{svc}"), "image": "busybox:1.28", "command": ["sh", "-c",
            format!("until nslookup {svc}.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for {svc}; sleep 2; done")]})
    };
    let spec = json!({"initContainers": [wait("myservice"), wait("mydb")],
        "containers": [{"name": "myapp-container", "image": "busybox:1.28",
            "command": ["sh", "-c", "echo The app is running! && sleep 3600"]}]});
    assert_eq!(k.call("POST", PODS, Some(pod("myapp-pod", spec))).status, 201);
    let status = |k: &mut Cluster| {
        table(&mut k.s, &format!("{PODS}/myapp-pod"))["rows"][0]["cells"][2].as_str().unwrap().to_string()
    };
    let service = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"ports": [{"protocol": "TCP", "port": 80, "targetPort": 9376}]}})
    };
    for _ in 0..5 {
        k.s.advance(2_000);
        k.c.tick(&mut k.s);
    }
    assert_eq!(status(&mut k), "Init:0/2", "no Service, no end");
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/services", Some(service("myservice"))).status, 201);
    k.s.advance(2_000);
    k.c.tick(&mut k.s);
    assert_eq!(status(&mut k), "Init:1/2");
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/services", Some(service("mydb"))).status, 201);
    k.s.advance(2_000);
    k.c.tick(&mut k.s);
    assert_eq!(status(&mut k), "Running");
}

/// An image the runtime cannot parse is never pulled: the container waits
/// with `InvalidImageName`, told by `InspectFailed` and `Failed`, and the
/// kubelet tries again (the same answer) after its back-off.
#[test]
fn an_image_name_the_runtime_cannot_parse_stops_the_container() {
    let mut k = two_nodes();
    let spec = json!({"containers": [{"name": "c", "image": "NGINX"}]});
    assert_eq!(k.call("POST", PODS, Some(pod("shout", spec))).status, 201);
    let p = k.get(&format!("{PODS}/shout")).json_body();
    assert_eq!(p["status"]["phase"], "Pending");
    let waiting = &p["status"]["containerStatuses"][0]["state"]["waiting"];
    assert_eq!(waiting["reason"], "InvalidImageName");
    let message = "Failed to apply default image tag \"NGINX\": couldn't parse image name \"NGINX\": invalid reference format: repository name (library/NGINX) must be lowercase";
    assert_eq!(waiting["message"], message);
    let told = |k: &mut Cluster| {
        k.events("involvedObject.name=shout")
            .iter()
            .filter(|e| e["source"]["component"] == "kubelet")
            .map(|e| format!("{} {} x{}", e["reason"].as_str().unwrap(), e["message"].as_str().unwrap(), e["count"]))
            .collect::<Vec<_>>()
    };
    assert_eq!(told(&mut k), [format!("InspectFailed {message} x1"), "Failed Error: InvalidImageName x1".to_string()]);
    let t = table(&mut k.s, &format!("{PODS}/shout"));
    assert_eq!(t["rows"][0]["cells"][2], "InvalidImageName");
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k), [format!("InspectFailed {message} x2"), "Failed Error: InvalidImageName x2".to_string()]);
}

/// An image from a registry no one can reach (a host under `.invalid`):
/// the pull fails (`ErrImagePull`), a moment later the kubelet backs off
/// (`ImagePullBackOff`), pulls again after 10 s, then 20 s, …; a new image
/// in the spec is tried at once and starts.
#[test]
fn an_image_that_cannot_be_pulled_backs_off_until_the_spec_names_another() {
    let mut k = two_nodes();
    let spec = json!({"containers": [{"name": "c", "image": "registry.invalid/hello:1.0"}]});
    assert_eq!(k.call("POST", PODS, Some(pod("far", spec))).status, 201);
    let state = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/far")).json_body();
        let w = p["status"]["containerStatuses"][0]["state"]["waiting"].clone();
        (w["reason"].as_str().unwrap_or("").to_string(), w["message"].as_str().unwrap_or("").to_string())
    };
    let counts = |k: &mut Cluster| {
        k.events("involvedObject.name=far")
            .iter()
            .filter(|e| e["source"]["component"] == "kubelet")
            .map(|e| format!("{} x{}", e["message"].as_str().unwrap(), e["count"]))
            .collect::<Vec<_>>()
    };
    let error = "rpc error: code = Unknown desc = failed to pull and unpack image \"registry.invalid/hello:1.0\": failed to resolve reference \"registry.invalid/hello:1.0\": failed to do request: Head \"https://registry.invalid/v2/hello/manifests/1.0\": dial tcp: lookup registry.invalid on 172.18.0.1:53: no such host";
    assert_eq!(state(&mut k), ("ErrImagePull".to_string(), error.to_string()));
    let logs = k.get(&format!("{PODS}/far/log")).json_body();
    assert_eq!(logs["message"], "container \"c\" in pod \"far\" is waiting to start: image can't be pulled");
    assert_eq!(
        counts(&mut k),
        [
            "Pulling image \"registry.invalid/hello:1.0\" x1".to_string(),
            format!("Failed to pull image \"registry.invalid/hello:1.0\": {error} x1"),
            "Error: ErrImagePull x1".to_string(),
        ]
    );
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    let (reason, message) = state(&mut k);
    assert_eq!(reason, "ImagePullBackOff");
    assert_eq!(message, format!("Back-off pulling image \"registry.invalid/hello:1.0\": ErrImagePull: {error}"));
    assert_eq!(table(&mut k.s, &format!("{PODS}/far"))["rows"][0]["cells"][2], "ImagePullBackOff");
    let logs = k.get(&format!("{PODS}/far/log"));
    assert_eq!(logs.status, 400);
    assert_eq!(
        logs.json_body()["message"],
        "container \"c\" in pod \"far\" is waiting to start: trying and failing to pull image"
    );
    // Pulled again 10 s after the first, then 20 s after the second.
    k.s.advance(9_000);
    k.c.tick(&mut k.s);
    assert_eq!(state(&mut k).0, "ErrImagePull");
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    k.s.advance(10_000);
    k.c.tick(&mut k.s);
    assert_eq!(state(&mut k).0, "ImagePullBackOff", "the second back-off is 20 s");
    k.s.advance(9_000);
    k.c.tick(&mut k.s);
    assert_eq!(state(&mut k).0, "ErrImagePull");
    let told = counts(&mut k);
    assert!(told.contains(&"Pulling image \"registry.invalid/hello:1.0\" x3".to_string()), "{told:?}");
    assert!(told.contains(&"Error: ImagePullBackOff x2".to_string()), "{told:?}");
    // The image fixed: started at once.
    let patch = json!({"spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}).to_string();
    assert_eq!(k.send("PATCH", &format!("{PODS}/far"), "application/strategic-merge-patch+json", &patch).status, 200);
    let p = k.get(&format!("{PODS}/far")).json_body();
    assert_eq!(p["status"]["phase"], "Running");
    // Under imagePullPolicy Never, nothing is pulled.
    let spec =
        json!({"containers": [{"name": "c", "image": "registry.invalid/hello:1.0", "imagePullPolicy": "Never"}]});
    assert_eq!(k.call("POST", PODS, Some(pod("never", spec))).status, 201);
    let p = k.get(&format!("{PODS}/never")).json_body();
    let w = &p["status"]["containerStatuses"][0]["state"]["waiting"];
    assert_eq!(w["reason"], "ErrImageNeverPull");
    assert_eq!(w["message"], "Container image \"registry.invalid/hello:1.0\" is not present with pull policy of Never");
}

/// Kubernetes' readiness example (the liveness example's script with a
/// readiness probe): ready after the first probe, unready at the third
/// failure after the file goes; the container runs on, the probe fails on
/// every period, and the Service's endpoints move the pod to
/// `notReadyAddresses`.
#[test]
fn a_failing_readiness_probe_makes_the_pod_unready_and_keeps_failing() {
    let mut k = two_nodes();
    let c = json!({"name": "readiness", "image": "registry.k8s.io/busybox:1.27.2",
        "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
        "readinessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5, "periodSeconds": 5}});
    let mut p = pod("readiness-exec", json!({"containers": [c]}));
    p["metadata"]["labels"] = json!({"app": "ready"});
    assert_eq!(k.call("POST", PODS, Some(p)).status, 201);
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ready"},
        "spec": {"selector": {"app": "ready"}, "ports": [{"port": 80}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/services", Some(svc)).status, 201);
    let look = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/readiness-exec")).json_body();
        let cs = &p["status"]["containerStatuses"][0];
        let ready =
            p["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Ready").unwrap().clone();
        (cs["ready"].clone(), cs["restartCount"].clone(), ready["status"].clone(), ready["message"].clone())
    };
    let told = |k: &mut Cluster| {
        let e = k.events("reason=Unhealthy,involvedObject.name=readiness-exec");
        assert!(e.len() <= 1, "one event, counted: {e:?}");
        e.first().map(|e| (e["count"].as_i64().unwrap(), e["message"].as_str().unwrap().to_string()))
    };
    let endpoints = |k: &mut Cluster| {
        let e = k.get("/api/v1/namespaces/default/endpoints/ready").json_body();
        let s = &e["subsets"][0];
        (s["addresses"].as_array().map_or(0, Vec::len), s["notReadyAddresses"].as_array().map_or(0, Vec::len))
    };
    let unready = json!("containers with unready status: [readiness]");
    assert_eq!(look(&mut k), (json!(false), json!(0), json!("False"), unready.clone()));
    k.s.advance(5_000);
    k.c.tick(&mut k.s);
    assert_eq!(look(&mut k), (json!(true), json!(0), json!("True"), Value::Null));
    assert_eq!(endpoints(&mut k), (1, 0));
    k.s.advance(20_000);
    let pod = k.get(&format!("{PODS}/readiness-exec")).json_body();
    assert_eq!(pod["metadata"]["name"], "readiness-exec");
    k.c.tick(&mut k.s);
    assert_eq!(k.get(&format!("{PODS}/readiness-exec")).json_body(), pod, "the passing probes change nothing");
    k.s.advance(9_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k), None, "the probe at 30 s still read the file");
    k.s.advance(1_000);
    k.c.tick(&mut k.s);
    let failed = "Readiness probe failed: cat: can't open '/tmp/healthy': No such file or directory".to_string();
    assert_eq!(told(&mut k), Some((1, failed.clone())));
    k.s.advance(5_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k), Some((2, failed.clone())));
    assert_eq!(look(&mut k).0, json!(true), "ready until the third failure");
    k.s.advance(5_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k), Some((3, failed.clone())));
    assert_eq!(look(&mut k), (json!(false), json!(0), json!("False"), unready));
    assert_eq!(endpoints(&mut k), (0, 1));
    // 500 s on (one look): 100 more failures, counted at once; the
    // container runs on.
    k.s.advance(500_000);
    k.c.tick(&mut k.s);
    assert_eq!(told(&mut k), Some((103, failed)));
    assert_eq!(look(&mut k).1, json!(0));
}

/// A clock jump (`POST /debug/kubesim/clock?advance=`, in a door whose
/// controllers walk jumps, as the page's and `kubesim serve`'s do) passes
/// as time would: what it leaves is what steps of 250 ms leave — a pod
/// ready only inside the jump was ready and then not, a CronJob ran at
/// each of its schedules — where one look at the jump's end saw neither.
#[test]
fn a_clock_jump_passes_as_time_would() {
    let start = |walks: bool| {
        let mut k = two_nodes();
        k.s.step_jumps(walks);
        let c = json!({"name": "readiness", "image": "registry.k8s.io/busybox:1.27.2",
            "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
            "readinessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5, "periodSeconds": 5}});
        assert_eq!(k.call("POST", PODS, Some(pod("readiness-exec", json!({"containers": [c]})))).status, 201);
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "command": ["echo", "tick"]}]}}}}}});
        assert_eq!(k.call("POST", "/apis/batch/v1/namespaces/default/cronjobs", Some(cron)).status, 201);
        k
    };
    let left = |k: &mut Cluster| {
        let p = k.get(&format!("{PODS}/readiness-exec")).json_body();
        let ready = p["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Ready").cloned();
        let unhealthy = k.events("reason=Unhealthy,involvedObject.name=readiness-exec");
        let jobs = k.get("/apis/batch/v1/namespaces/default/jobs").json_body();
        let mut names: Vec<String> =
            jobs["items"].as_array().unwrap().iter().map(|j| j["metadata"]["name"].as_str().unwrap().into()).collect();
        names.sort();
        json!({"ready": ready, "unhealthy": unhealthy.first().map(|e| e["count"].clone()), "jobs": names})
    };
    let begun = start(true).s.now();

    let mut walked = start(true);
    let r = walked.call("POST", "/debug/kubesim/clock?advance=3m", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["now"], json!(begun.plus_millis(180_000).rfc3339()), "the answer tells where it ends");
    assert_eq!(walked.s.now(), begun.plus_millis(180_000));
    let mut stepped = start(false);
    for _ in 0..720 {
        stepped.s.advance(250);
        stepped.c.tick(&mut stepped.s);
    }
    let walked = left(&mut walked);
    assert_eq!(walked, left(&mut stepped));
    assert_eq!(walked["jobs"].as_array().unwrap().len(), 3, "{walked}");
    assert_eq!(walked["ready"]["status"], "False");
    // Each failure told as it happened: the spam filter's burst of 25,
    // the failures after it counted but not sent until a token comes
    // back (one in 5 minutes).
    assert_eq!(walked["unhealthy"], json!(25));

    // A door that does not walk makes the jump at once: one look.
    let mut summed = start(false);
    assert_eq!(summed.call("POST", "/debug/kubesim/clock?advance=3m", None).status, 200);
    let summed = left(&mut summed);
    assert_eq!(summed["jobs"].as_array().unwrap().len(), 1, "only the last schedule missed: {summed}");
    assert_ne!(summed["ready"], walked["ready"], "never seen ready");
}
