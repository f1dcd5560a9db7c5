//! Strategic merge patch over HTTP and the scale subresource.

mod common;
use common::*;
use kubesim::server::{Request, Response, Server};
use serde_json::{json, Value};

const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments";

fn deployment(s: &mut Server) {
    let r = call(
        s,
        "POST",
        DEPLOY,
        Some(json!({"metadata": {"name": "web"}, "spec": {"replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                {"name": "web", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]}]}}}})),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
}

fn patch(s: &mut Server, target: &str, ct: &str, body: Value) -> Response {
    s.handle(
        Request::new("PATCH", target).with_header("Content-Type", ct).with_body(serde_json::to_vec(&body).unwrap()),
    )
}

#[test]
fn strategic_merge_patch_merges_containers_by_name() {
    let mut s = server();
    deployment(&mut s);
    let r = patch(
        &mut s,
        &format!("{DEPLOY}/web"),
        "application/strategic-merge-patch+json",
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "web", "env": [{"name": "B", "value": "2"}]},
            {"name": "side", "image": "busybox"}]}}}}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let c = &r.json_body()["spec"]["template"]["spec"]["containers"];
    assert_eq!(c[0]["image"], "nginx:1");
    assert_eq!(c[0]["env"], json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]));
    assert_eq!(c[1]["name"], "side");
    assert_eq!(r.json_body()["metadata"]["generation"], 2);

    let r = patch(
        &mut s,
        &format!("{DEPLOY}/web"),
        "application/strategic-merge-patch+json",
        json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}),
    );
    assert_eq!(r.status, 500);
    assert_eq!(
        r.json_body()["message"],
        "Internal error occurred: map: map[image:x] does not contain declared merge key: name"
    );
    let r = patch(
        &mut s,
        &format!("{DEPLOY}/web"),
        "application/strategic-merge-patch+json",
        json!({"spec": {"$patch": "nope"}}),
    );
    assert_eq!((r.status, r.json_body()["message"].as_str()), (400, Some("Unknown patch type: nope")));
    let r = patch(&mut s, &format!("{DEPLOY}/web"), "application/apply-patch+yaml", json!({}));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        r#"PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch"#
    );
    let r = patch(&mut s, &format!("{DEPLOY}/web?force=true"), "application/merge-patch+json", json!({}));
    assert_eq!(
        r.json_body()["message"],
        r#"PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch"#
    );
}

#[test]
fn scale_reads_and_writes_spec_replicas() {
    let mut s = server();
    deployment(&mut s);
    let scale = format!("{DEPLOY}/web/scale");
    let v = get(&mut s, &scale).json_body();
    assert_eq!((v["kind"].as_str(), v["apiVersion"].as_str()), (Some("Scale"), Some("autoscaling/v1")));
    assert_eq!((v["spec"]["replicas"].as_i64(), v["status"]["selector"].as_str()), (Some(2), Some("app=web")));
    let rv = rv(&v);

    let r = patch(&mut s, &scale, "application/merge-patch+json", json!({"spec": {"replicas": 5}}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["spec"]["replicas"], 5);
    assert_eq!(get(&mut s, &format!("{DEPLOY}/web")).json_body()["spec"]["replicas"], 5);

    // The Scale's resourceVersion is a precondition.
    let r = call(
        &mut s,
        "PUT",
        &scale,
        Some(json!({"metadata": {"name": "web", "resourceVersion": rv}, "spec": {"replicas": 1}})),
    );
    assert_eq!(r.status, 409);
    let r = call(&mut s, "PUT", &scale, Some(json!({"metadata": {"name": "web"}, "spec": {"replicas": -1}})));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        r#"Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"#
    );
    assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/x/scale").status, 404);
    let discovery = get(&mut s, "/apis/apps/v1").json_body();
    let scale_entry =
        discovery["resources"].as_array().unwrap().iter().find(|r| r["name"] == "deployments/scale").cloned();
    assert_eq!(
        scale_entry.map(|e| (e["group"].clone(), e["kind"].clone())),
        Some((json!("autoscaling"), json!("Scale")))
    );
}

#[test]
fn services_get_a_cluster_ip_that_stays_and_is_never_shared() {
    let mut s = server();
    let svc = "/api/v1/namespaces/default/services";
    let r = call(&mut s, "POST", svc, Some(json!({"metadata": {"name": "a"}, "spec": {"ports": [{"port": 80}]}})));
    assert_eq!(r.status, 201);
    let a = r.json_body();
    let ip = a["spec"]["clusterIP"].as_str().unwrap().to_string();
    assert!(ip.starts_with("10."), "{ip}");
    assert_eq!(a["spec"]["clusterIPs"], json!([ip]));
    assert_eq!(a["spec"]["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
    assert_eq!((a["spec"]["type"].as_str(), a["spec"]["sessionAffinity"].as_str()), (Some("ClusterIP"), Some("None")));

    let r = call(
        &mut s,
        "POST",
        svc,
        Some(json!({"metadata": {"name": "b"}, "spec": {"clusterIP": ip, "ports": [{"port": 80}]}})),
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        format!(
            r#"Service "b" is invalid: spec.clusterIPs: Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: provided IP is already allocated"#
        )
    );
    // A PUT that leaves the cluster IP out keeps it.
    let r = call(
        &mut s,
        "PUT",
        &format!("{svc}/a"),
        Some(json!({"metadata": {"name": "a"}, "spec": {"ports": [{"port": 81}]}})),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["spec"]["clusterIP"], json!(ip));
    let np = call(
        &mut s,
        "POST",
        svc,
        Some(json!({"metadata": {"name": "np"}, "spec": {"type": "NodePort", "ports": [{"port": 80}]}})),
    );
    let port = np.json_body()["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&port));
    let headless = call(&mut s, "POST", svc, Some(json!({"metadata": {"name": "h"}, "spec": {"clusterIP": "None"}})));
    assert_eq!(headless.json_body()["spec"]["clusterIPs"], json!(["None"]));
}

#[test]
fn pods_are_defaulted_as_kubectl_shows_them() {
    let mut s = server();
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/default/pods",
        Some(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})),
    );
    assert_eq!(r.status, 201);
    let p = r.json_body();
    assert_eq!(p["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");
    assert_eq!(p["spec"]["restartPolicy"], "Always");
    assert_eq!(p["status"], json!({"phase": "Pending", "qosClass": "BestEffort"}));
    let tolerations: Vec<&str> =
        p["spec"]["tolerations"].as_array().unwrap().iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert_eq!(tolerations, vec!["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);
}

/// What core/v1's defaulters set on nested structs wherever they appear:
/// probes, HTTP actions, volume sources, field selectors; a volume with no
/// source is an emptyDir. The writer owns them (defaulting is decoding).
#[test]
fn probes_volumes_and_field_selectors_are_defaulted_wherever_they_appear() {
    let mut s = server();
    let spec = json!({
        "containers": [{"name": "c", "image": "nginx",
            "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
            "livenessProbe": {"httpGet": {"port": 80, "path": ""}, "timeoutSeconds": 0},
            "readinessProbe": {"grpc": {"port": 9000}, "periodSeconds": 5},
            "lifecycle": {"preStop": {"httpGet": {"port": 80}}}}],
        "volumes": [
            {"name": "s", "secret": {"secretName": "x", "defaultMode": null}},
            {"name": "c", "configMap": {"name": "x"}},
            {"name": "d", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
            {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
            {"name": "h", "hostPath": {"path": "/x"}},
            {"name": "bare"}]});
    let r =
        call(&mut s, "POST", "/api/v1/namespaces/default/pods", Some(json!({"metadata": {"name": "p"}, "spec": spec})));
    assert_eq!(r.status, 201, "{}", text(&r));
    let p = r.json_body();
    let c = &p["spec"]["containers"][0];
    assert_eq!(c["env"][0]["valueFrom"]["fieldRef"], json!({"apiVersion": "v1", "fieldPath": "spec.nodeName"}));
    assert_eq!(
        c["livenessProbe"],
        json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
            "failureThreshold": 3, "periodSeconds": 10, "successThreshold": 1})
    );
    assert_eq!(c["readinessProbe"]["grpc"], json!({"port": 9000, "service": ""}));
    assert_eq!(c["readinessProbe"]["periodSeconds"], 5);
    assert_eq!(c["lifecycle"]["preStop"]["httpGet"]["scheme"], "HTTP");
    let v = &p["spec"]["volumes"];
    assert_eq!(v[0]["secret"]["defaultMode"], 420);
    assert_eq!(v[1]["configMap"]["defaultMode"], 420);
    assert_eq!(v[2]["downwardAPI"]["defaultMode"], 420);
    assert_eq!(v[2]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"], "v1");
    assert_eq!(v[3]["projected"]["defaultMode"], 420);
    assert_eq!(v[3]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"], 3600);
    assert_eq!(v[4]["hostPath"], json!({"path": "/x", "type": ""}));
    assert_eq!(v[5], json!({"name": "bare", "emptyDir": {}}));
    // The writer owns them.
    let owned = p["metadata"]["managedFields"][0]["fieldsV1"].to_string();
    assert!(owned.contains("\"f:defaultMode\""), "{owned}");
    assert!(owned.contains("\"f:successThreshold\""), "{owned}");
    // A Deployment's template too, and a PersistentVolume's host path.
    let d = json!({"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": spec}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    let t = &r.json_body()["spec"]["template"]["spec"];
    assert_eq!(t["containers"][0]["livenessProbe"]["periodSeconds"], 10);
    assert_eq!(t["volumes"][1]["configMap"]["defaultMode"], 420);
    let pv = json!({"metadata": {"name": "v"}, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/mnt"}}});
    let r = call(&mut s, "POST", "/api/v1/persistentvolumes", Some(pv));
    assert_eq!(r.json_body()["spec"]["hostPath"]["type"], "");
    // Updates are defaulted as creates are.
    let path = "/apis/apps/v1/namespaces/default/deployments/d";
    let mut d = get(&mut s, path).json_body();
    d["spec"]["template"]["spec"]["containers"][0]["startupProbe"] = json!({"tcpSocket": {"port": 80}});
    let r = call(&mut s, "PUT", path, Some(d));
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.json_body()["spec"]["template"]["spec"]["containers"][0]["startupProbe"]["failureThreshold"], 3);
}

fn apply(s: &mut Server, manager: &str, force: bool, yaml: &str) -> Response {
    s.handle(
        Request::new(
            "PATCH",
            &format!("/api/v1/namespaces/default/configmaps/cfg?fieldManager={manager}&force={force}"),
        )
        .with_header("Content-Type", "application/apply-patch+yaml")
        .with_body(yaml.as_bytes().to_vec()),
    )
}

#[test]
fn server_side_apply_creates_conflicts_forces_and_prunes() {
    let mut s = server();
    let r = apply(
        &mut s,
        "alice",
        false,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n  b: \"2\"\n",
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json_body();
    let mf = &v["metadata"]["managedFields"][0];
    assert_eq!((mf["manager"].as_str(), mf["operation"].as_str()), (Some("alice"), Some("Apply")));
    assert_eq!(mf["fieldsV1"], json!({"f:data": {"f:a": {}, "f:b": {}}}));

    // An Update by someone else takes b over.
    let r = patch(
        &mut s,
        "/api/v1/namespaces/default/configmaps/cfg?fieldManager=bob",
        "application/merge-patch+json",
        json!({"data": {"b": "bob"}}),
    );
    assert_eq!(r.status, 200);
    let managers: Vec<String> = r.json_body()["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(managers, vec!["alice", "bob"]);

    // Alice re-applies b: a conflict with bob, named as upstream names it.
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n  b: \"2\"\n";
    let r = apply(&mut s, "alice", false, yaml);
    assert_eq!(r.status, 409);
    let v = r.json_body();
    assert_eq!(v["reason"], "Conflict");
    assert_eq!(v["message"], r#"Apply failed with 1 conflict: conflict with "bob" using v1: .data.b"#);
    assert_eq!(
        v["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"bob\" using v1", "field": ".data.b"}])
    );

    // Forced: alice owns b again, bob owns nothing and drops out.
    let r = apply(&mut s, "alice", true, yaml);
    assert_eq!(r.status, 200);
    let v = r.json_body();
    assert_eq!(v["data"]["b"], "2");
    assert_eq!(v["metadata"]["managedFields"].as_array().unwrap().len(), 1);

    // Alice stops applying b: nobody else owns it, so it is removed.
    let r =
        apply(&mut s, "alice", false, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n");
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["data"], json!({"a": "1"}));

    // [{}] clears managedFields.
    let mut cur = get(&mut s, "/api/v1/namespaces/default/configmaps/cfg").json_body();
    cur["metadata"]["managedFields"] = json!([{}]);
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps/cfg", Some(cur));
    assert_eq!(r.status, 200);
    assert!(r.json_body()["metadata"].get("managedFields").is_none());
}

/// The fields a create's writer owns are what it sent, with their
/// defaults: what the strategy adds afterwards (a Job's selector and
/// template labels, a namespace's `kubernetes` finalizer) and what the
/// registry allocates (a Service's cluster IPs and IP families) are no
/// one's, as upstream's field manager records a create before either runs.
/// So a later apply by the writer, which drops what it does not send,
/// leaves them be.
#[test]
fn what_a_create_adds_after_the_request_is_no_ones() {
    let mut s = server();
    let owned = |s: &mut Server, path: &str, body: Value| -> Value {
        let r = call(s, "POST", path, Some(body));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json_body();
        let entries = v["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
        assert_eq!(entries.len(), 1, "{entries:?}");
        entries[0]["fieldsV1"].clone()
    };

    let job = owned(
        &mut s,
        "/apis/batch/v1/namespaces/default/jobs",
        json!({"metadata": {"name": "once"}, "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}}}}),
    );
    let spec = &job["f:spec"];
    assert!(spec.get("f:selector").is_none(), "{spec}");
    assert!(spec["f:template"].get("f:metadata").is_none(), "{spec}");
    assert!(spec.get("f:backoffLimit").is_some(), "defaults are the writer's: {spec}");
    let stored = get(&mut s, "/apis/batch/v1/namespaces/default/jobs/once").json_body();
    assert!(stored["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"].is_string());

    let ns = owned(&mut s, "/api/v1/namespaces", json!({"metadata": {"name": "team"}}));
    assert_eq!(ns, json!({"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}}));

    let svc = owned(
        &mut s,
        "/api/v1/namespaces/default/services",
        json!({"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
    );
    let mut fields: Vec<&String> = svc["f:spec"].as_object().unwrap().keys().collect();
    fields.sort();
    assert_eq!(fields, ["f:internalTrafficPolicy", "f:ports", "f:selector", "f:sessionAffinity", "f:type"], "{svc}");
    let stored = get(&mut s, "/api/v1/namespaces/default/services/web").json_body();
    assert_eq!(stored["spec"]["ipFamilies"], json!(["IPv4"]));
    assert_eq!(stored["spec"]["clusterIPs"], json!([stored["spec"]["clusterIP"]]));
}

/// A Job's selector is immutable, refused with upstream's message.
#[test]
fn a_jobs_selector_cannot_change() {
    let mut s = server();
    let path = "/apis/batch/v1/namespaces/default/jobs";
    let body = json!({"metadata": {"name": "once"}, "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox"}]}}}});
    assert_eq!(call(&mut s, "POST", path, Some(body)).status, 201);
    let mut job = get(&mut s, &format!("{path}/once")).json_body();
    let uid = job["metadata"]["uid"].as_str().unwrap().to_string();
    job["spec"]["selector"] = json!({"matchLabels": {"job-name": "once"}});
    let r = call(&mut s, "PUT", &format!("{path}/once"), Some(job.clone()));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        format!(
            "Job.batch \"once\" is invalid: spec.selector: Invalid value: v1.LabelSelector{{MatchLabels:map[string]string{{\"job-name\":\"once\"}}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}: field is immutable"
        )
    );
    job["spec"]["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}});
    job["spec"]["suspend"] = json!(true);
    assert_eq!(call(&mut s, "PUT", &format!("{path}/once"), Some(job)).status, 200);
}

/// Every namespace carries its name as the label
/// `kubernetes.io/metadata.name`: one named by `generateName` too, and an
/// update cannot take it off or change it.
#[test]
fn a_namespace_is_labelled_with_its_name() {
    let mut s = server();
    let label = |v: &Value| v["metadata"]["labels"]["kubernetes.io/metadata.name"].clone();
    let r = call(&mut s, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"generateName": "team-"}})));
    assert_eq!(r.status, 201);
    let v = r.json_body();
    let name = v["metadata"]["name"].as_str().unwrap().to_string();
    assert!(name.starts_with("team-"), "{name}");
    assert_eq!(label(&v), json!(name));

    let mut ns = v.clone();
    ns["metadata"]["labels"] = json!({"kubernetes.io/metadata.name": "other", "tier": "x"});
    let r = call(&mut s, "PUT", &format!("/api/v1/namespaces/{name}"), Some(ns.clone()));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["metadata"]["labels"], json!({"kubernetes.io/metadata.name": name, "tier": "x"}));
    ns = r.json_body();
    ns["metadata"].as_object_mut().unwrap().remove("labels");
    let r = call(&mut s, "PUT", &format!("/api/v1/namespaces/{name}"), Some(ns));
    assert_eq!(label(&r.json_body()), json!(name));
    let listed = get(&mut s, "/api/v1/namespaces?labelSelector=kubernetes.io/metadata.name%3Dteam-nope").json_body();
    assert_eq!(listed["items"], json!([]));
    let listed =
        get(&mut s, &format!("/api/v1/namespaces?labelSelector=kubernetes.io/metadata.name%3D{name}")).json_body();
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(1));
}
