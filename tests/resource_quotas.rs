//! core/v1 ResourceQuotas as a cluster keeps them: validation and
//! kubectl's columns, the resource quota controller's status (`hard` from
//! the spec, `used` summed from the namespace), the ResourceQuota
//! admission charging writes and refusing them with upstream's 403s, and
//! what a ReplicaSet and its Deployment show when a quota stops their
//! pods (`FailedCreate`, `ReplicaFailure`), until the quota allows them.

mod common;
use common::*;
use serde_json::{json, Value};

const QUOTAS: &str = "/api/v1/namespaces/default/resourcequotas";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn quota(name: &str, hard: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard}})
}

fn pod(name: &str, resources: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}})
}

fn cluster() -> Cluster {
    let mut k = Cluster::new();
    k.c = kubesim::controllers::Controllers::new(&["resourcequota"]).unwrap();
    k
}

fn status(k: &mut Cluster, name: &str) -> Value {
    k.get(&format!("{QUOTAS}/{name}")).json_body()["status"].clone()
}

#[test]
fn a_quota_is_validated_and_printed_as_upstream() {
    let mut k = cluster();
    let cases = [
        (json!({"foo": "1"}), "[spec.hard[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified, spec.hard[foo]: Invalid value: \"foo\": must be a standard resource for quota]"),
        (json!({"pods": "-1"}), "spec.hard[pods]: Invalid value: \"-1\": must be greater than or equal to 0"),
        (json!({"pods": "1.5"}), "spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer"),
    ];
    for (hard, want) in cases {
        let r = k.call("POST", QUOTAS, Some(quota("bad", hard.clone())));
        assert_eq!(r.status, 422, "{hard}");
        assert_eq!(message(&r), format!("ResourceQuota \"bad\" is invalid: {want}"), "{hard}");
    }
    let mut scoped = quota("bad", json!({"services": "1"}));
    scoped["spec"]["scopes"] = json!(["BestEffort"]);
    let r = k.call("POST", QUOTAS, Some(scoped));
    assert_eq!(
        message(&r),
        "ResourceQuota \"bad\" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\"}: unsupported scope applied to resource"
    );

    // Stored canonical; the controller fills the status at once.
    let r = k.call(
        "POST",
        QUOTAS,
        Some(quota("q", json!({"limits.cpu": "2000m", "pods": "10", "requests.memory": "1Gi"}))),
    );
    assert_eq!(r.status, 201, "{}", message(&r));
    assert_eq!(r.json_body()["status"], json!({}), "created without a status");
    assert_eq!(r.json_body()["spec"]["hard"]["limits.cpu"], "2");
    assert_eq!(
        status(&mut k, "q"),
        json!({"hard": {"limits.cpu": "2", "pods": "10", "requests.memory": "1Gi"},
            "used": {"limits.cpu": "0", "pods": "0", "requests.memory": "0"}})
    );
    let t = table(&mut k.s, QUOTAS);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Request", "Limit", "Age"]);
    assert_eq!(t["rows"][0]["cells"][1], "pods: 0/10, requests.memory: 0/1Gi");
    assert_eq!(t["rows"][0]["cells"][2], "limits.cpu: 0/2");

    // The status is written through /status only; scopes are fixed.
    let mut body = k.get(&format!("{QUOTAS}/q")).json_body();
    body["spec"]["scopes"] = json!(["NotBestEffort"]);
    let r = k.call("PUT", &format!("{QUOTAS}/q"), Some(body));
    assert_eq!(
        message(&r),
        "ResourceQuota \"q\" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{\"NotBestEffort\"}: field is immutable"
    );
}

#[test]
fn writes_are_charged_and_refused_past_the_hard_amount() {
    let mut k = cluster();
    assert_eq!(k.call("POST", PODS, Some(pod("before", json!({})))).status, 201);
    let r = k.call("POST", QUOTAS, Some(quota("q", json!({"pods": "2", "count/configmaps": "2", "configmaps": "5"}))));
    assert_eq!(r.status, 201);
    assert_eq!(
        status(&mut k, "q")["used"],
        json!({"configmaps": "1", "count/configmaps": "1", "pods": "1"}),
        "kube-root-ca.crt, which the root CA publisher puts in every namespace, is a ConfigMap"
    );

    // A dry run is checked, not charged.
    let r = k.call("POST", &format!("{PODS}?dryRun=All"), Some(pod("dry", json!({}))));
    assert_eq!(r.status, 201);
    assert_eq!(status(&mut k, "q")["used"]["pods"], "1");

    assert_eq!(k.call("POST", PODS, Some(pod("second", json!({})))).status, 201);
    let q = k.get(&format!("{QUOTAS}/q")).json_body();
    assert_eq!(q["status"]["used"]["pods"], "2");
    let entry =
        q["metadata"]["managedFields"].as_array().unwrap().iter().find(|m| m["manager"] == "kube-apiserver").cloned();
    let entry = entry.expect("admission's write of the status");
    assert_eq!((entry["operation"].as_str(), entry["subresource"].as_str()), (Some("Update"), Some("status")));

    let r = k.call("POST", PODS, Some(pod("third", json!({}))));
    assert_eq!(r.status, 403);
    assert_eq!(reason(&r), "Forbidden");
    assert_eq!(
        message(&r),
        "pods \"third\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"
    );
    let r = k.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"name": "cm"}})));
    assert_eq!(r.status, 201);
    let r = k.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"name": "cm2"}})));
    assert_eq!(
        message(&r),
        "configmaps \"cm2\" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2",
        "only what is exceeded is listed"
    );

    // A deletion is given back by the controller.
    assert_eq!(k.call("DELETE", &format!("{PODS}/second?gracePeriodSeconds=0"), None).status, 200);
    assert_eq!(status(&mut k, "q")["used"]["pods"], "1");
    assert_eq!(k.call("POST", PODS, Some(pod("third", json!({})))).status, 201);

    // Another namespace is not charged.
    let r = k.call("POST", "/api/v1/namespaces/kube-public/pods", Some(pod("elsewhere", json!({}))));
    assert_eq!(r.status, 201);

    // Without the quota nothing is refused (the admission asks again once
    // a quota was written, here deleted, since it last looked).
    assert_eq!(k.call("DELETE", &format!("{QUOTAS}/q"), None).status, 200);
    let r = k.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"name": "cm2"}})));
    assert_eq!(r.status, 201);
}

#[test]
fn a_compute_quota_asks_every_container_for_what_it_tracks() {
    let mut k = cluster();
    let r = k.call(
        "POST",
        QUOTAS,
        Some(quota("compute", json!({"requests.cpu": "1", "requests.memory": "1Gi", "limits.memory": "2Gi"}))),
    );
    assert_eq!(r.status, 201);
    let r = k.call("POST", PODS, Some(pod("bare", json!({}))));
    assert_eq!(
        message(&r),
        "pods \"bare\" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c; requests.memory for: c"
    );
    let sized = json!({"requests": {"cpu": "600m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}});
    assert_eq!(k.call("POST", PODS, Some(pod("a", sized.clone()))).status, 201);
    assert_eq!(
        status(&mut k, "compute")["used"],
        json!({"limits.memory": "512Mi", "requests.cpu": "600m", "requests.memory": "256Mi"})
    );
    let r = k.call("POST", PODS, Some(pod("b", sized)));
    assert_eq!(
        message(&r),
        "pods \"b\" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1"
    );
}

#[test]
fn a_quota_with_no_usage_for_what_it_tracks_refuses_until_it_has() {
    let mut k = Cluster::new();
    k.c = kubesim::controllers::Controllers::none();
    assert_eq!(k.call("POST", QUOTAS, Some(quota("q", json!({"pods": "1"})))).status, 201);
    // No status yet: the quota holds nothing.
    assert_eq!(k.call("POST", PODS, Some(pod("a", json!({})))).status, 201);
    let mut body = k.get(&format!("{QUOTAS}/q")).json_body();
    body["status"] = json!({"hard": {"pods": "1"}});
    assert_eq!(k.call("PUT", &format!("{QUOTAS}/q/status"), Some(body)).status, 200);
    let r = k.call("POST", PODS, Some(pod("b", json!({}))));
    assert_eq!(message(&r), "pods \"b\" is forbidden: status unknown for quota: q, resources: pods");
}

#[test]
fn services_are_charged_their_node_ports() {
    let mut k = cluster();
    assert_eq!(k.call("POST", QUOTAS, Some(quota("q", json!({"services.nodeports": "1"})))).status, 201);
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}});
    let r = k.call("POST", "/api/v1/namespaces/default/services", Some(svc));
    assert_eq!(
        message(&r),
        "services \"web\" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1"
    );
}

#[test]
fn a_deployment_held_back_by_a_quota_says_so_and_catches_up_when_allowed() {
    let mut k = Cluster::new();
    k.call("POST", QUOTAS, Some(quota("pods", json!({"pods": "2"}))));
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(deploy)).status, 201);
    let pods = |k: &mut Cluster| k.get(PODS).json_body()["items"].as_array().unwrap().len();
    assert_eq!(pods(&mut k), 2);
    let rs = k.get("/apis/apps/v1/namespaces/default/replicasets").json_body()["items"][0].clone();
    let rs_name = rs["metadata"]["name"].as_str().unwrap().to_string();
    let failure =
        rs["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ReplicaFailure").cloned().unwrap();
    let why = format!(
        "pods \"{rs_name}-\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2"
    );
    assert_eq!((failure["reason"].as_str(), failure["message"].as_str()), (Some("FailedCreate"), Some(why.as_str())));
    assert_eq!(
        k.event_messages("reason=FailedCreate").first().map(String::as_str),
        Some(format!("Error creating: {why}").as_str())
    );
    let d = k.get("/apis/apps/v1/namespaces/default/deployments/web").json_body();
    let c =
        d["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ReplicaFailure").cloned().unwrap();
    assert_eq!(c["message"], why.as_str());

    // Raised, the quota lets the ReplicaSet's next try through.
    let mut q = k.get(&format!("{QUOTAS}/pods")).json_body();
    q["spec"]["hard"]["pods"] = json!("5");
    assert_eq!(k.call("PUT", &format!("{QUOTAS}/pods"), Some(q)).status, 200);
    for _ in 0..20 {
        k.s.advance(1_000);
        k.c.tick(&mut k.s);
    }
    assert_eq!(pods(&mut k), 3);
    let rs = k.get(&format!("/apis/apps/v1/namespaces/default/replicasets/{rs_name}")).json_body();
    assert!(rs["status"]["conditions"].as_array().is_none_or(|cs| cs.iter().all(|c| c["type"] != "ReplicaFailure")));
    let d = k.get("/apis/apps/v1/namespaces/default/deployments/web").json_body();
    assert!(d["status"]["conditions"].as_array().unwrap().iter().all(|c| c["type"] != "ReplicaFailure"));
}
