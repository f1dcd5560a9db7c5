//! The ServiceAccount admission on new pods, as every cluster's: the
//! account must exist (403 with upstream's words), and its credentials
//! are mounted from a projected `kube-api-access-xxxxx` volume into
//! every container unless the pod or the account says not to; the
//! account's pull secrets are copied; an account enforcing its mountable
//! secrets holds the pod to them; a mirror pod may name no account.

use kubesim::server::{Request, Response, Server, ServerConfig};
use serde_json::{json, Value};

const PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

fn call(s: &mut Server, method: &str, path: &str, body: Option<Value>) -> Response {
    let mut req = Request::new(method, path);
    if let Some(b) = body {
        req = req.with_header("Content-Type", "application/json").with_body(serde_json::to_vec(&b).unwrap());
    }
    s.handle(req)
}

fn text(r: &Response) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

fn account(s: &mut Server, body: Value) {
    let r = call(s, "POST", "/api/v1/namespaces/default/serviceaccounts", Some(body));
    assert_eq!(r.status, 201, "{}", text(&r));
}

fn create_pod(s: &mut Server, pod: Value) -> Response {
    call(s, "POST", "/api/v1/namespaces/default/pods", Some(pod))
}

fn created(s: &mut Server, pod: Value) -> Value {
    let r = create_pod(s, pod);
    assert_eq!(r.status, 201, "{}", text(&r));
    r.json_body()
}

fn pod(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    if spec.get("containers").is_none() {
        spec["containers"] = json!([{"name": "c", "image": "nginx"}]);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

fn volume_names(p: &Value) -> Vec<String> {
    p["spec"]["volumes"].as_array().into_iter().flatten().map(|v| v["name"].as_str().unwrap().to_string()).collect()
}

fn token_mounts(c: &Value) -> Vec<Value> {
    c["volumeMounts"].as_array().into_iter().flatten().filter(|m| m["mountPath"] == PATH).cloned().collect()
}

#[test]
fn every_container_gets_the_accounts_credentials_from_a_projected_volume() {
    let mut s = Server::new(ServerConfig::default());
    let p = created(
        &mut s,
        pod(
            "web",
            json!({"initContainers": [{"name": "init", "image": "busybox"}],
                   "containers": [{"name": "a", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                                  {"name": "b", "image": "nginx"}],
                   "volumes": [{"name": "data", "emptyDir": {}}]}),
        ),
    );
    let spec = &p["spec"];
    assert_eq!(
        (spec["serviceAccountName"].as_str(), spec["serviceAccount"].as_str()),
        (Some("default"), Some("default"))
    );
    let names = volume_names(&p);
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(names[0], "data", "the pod's own volumes first");
    let generated = &names[1];
    let suffix = generated.strip_prefix("kube-api-access-").expect("upstream's prefix");
    assert_eq!(suffix.len(), 5);
    assert!(suffix.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{suffix}");
    assert_eq!(
        spec["volumes"][1]["projected"],
        json!({"sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
        ], "defaultMode": 420})
    );
    let mount = json!({"name": generated, "readOnly": true, "mountPath": PATH});
    assert_eq!(spec["initContainers"][0]["volumeMounts"], json!([mount]));
    assert_eq!(spec["containers"][0]["volumeMounts"], json!([{"name": "data", "mountPath": "/data"}, mount]));
    assert_eq!(spec["containers"][1]["volumeMounts"], json!([mount]));
    // The mount and the volume are admission's, no writer's: the
    // creator's managed fields do not hold them.
    let owned = p["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"].to_string();
    assert!(!owned.contains(generated.as_str()) && !owned.contains("serviceaccount"), "{owned}");
    // Another pod, another volume name.
    let q = created(&mut s, pod("other", json!({})));
    assert_ne!(volume_names(&q), vec![generated.clone()]);
}

#[test]
fn a_pod_naming_a_missing_account_is_forbidden_as_upstream_words_it() {
    let mut s = Server::new(ServerConfig::default());
    let r = create_pod(&mut s, pod("web", json!({"serviceAccountName": "robot"})));
    assert_eq!(r.status, 403, "{}", text(&r));
    let b = r.json_body();
    assert_eq!(b["reason"], "Forbidden");
    assert_eq!(
        b["message"],
        "pods \"web\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found"
    );
    assert_eq!(b["details"], json!({"name": "web", "kind": "pods"}));
    // A generated name is not made yet when admission refuses.
    let mut generated = pod("", json!({"serviceAccountName": "robot"}));
    generated["metadata"] = json!({"generateName": "web-"});
    let r = create_pod(&mut s, generated);
    assert!(text(&r).contains("pods \\\"web-\\\" is forbidden: error looking up"), "{}", text(&r));
    // A missing namespace is said first (the namespace's lifecycle admits
    // before the account's).
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/nowhere/pods",
        Some(pod("web", json!({"serviceAccountName": "robot"}))),
    );
    assert_eq!(r.status, 404, "{}", text(&r));
    assert_eq!(r.json_body()["message"], "namespaces \"nowhere\" not found");
    // Once the account exists the pod is admitted.
    account(&mut s, json!({"metadata": {"name": "robot"}}));
    let p = created(&mut s, pod("web", json!({"serviceAccountName": "robot"})));
    assert_eq!(p["spec"]["serviceAccount"], "robot");
    assert_eq!(token_mounts(&p["spec"]["containers"][0]).len(), 1);
}

#[test]
fn the_pods_choice_then_the_accounts_says_whether_credentials_are_mounted() {
    let mut s = Server::new(ServerConfig::default());
    account(&mut s, json!({"metadata": {"name": "quiet"}, "automountServiceAccountToken": false}));
    let off = created(&mut s, pod("off", json!({"automountServiceAccountToken": false})));
    assert!(volume_names(&off).is_empty() && off["spec"]["containers"][0].get("volumeMounts").is_none(), "{off}");
    let quiet = created(&mut s, pod("quiet", json!({"serviceAccountName": "quiet"})));
    assert!(volume_names(&quiet).is_empty(), "{quiet}");
    let on = created(&mut s, pod("on", json!({"serviceAccountName": "quiet", "automountServiceAccountToken": true})));
    assert_eq!(token_mounts(&on["spec"]["containers"][0]).len(), 1, "the pod's choice wins");
    // A container with its own mount at the path keeps it; when every
    // container has one no volume is added.
    let own = json!([{"name": "mine", "mountPath": PATH}]);
    let p = created(
        &mut s,
        pod(
            "own",
            json!({"containers": [{"name": "c", "image": "nginx", "volumeMounts": own}],
                   "volumes": [{"name": "mine", "emptyDir": {}}]}),
        ),
    );
    assert_eq!(volume_names(&p), vec!["mine".to_string()]);
    assert_eq!(p["spec"]["containers"][0]["volumeMounts"], own);
    // A pod that brings a kube-api-access- volume has it mounted, and no other.
    let p = created(
        &mut s,
        pod(
            "brought",
            json!({"containers": [{"name": "c", "image": "nginx"}],
                   "volumes": [{"name": "kube-api-access-mine", "emptyDir": {}}]}),
        ),
    );
    assert_eq!(volume_names(&p), vec!["kube-api-access-mine".to_string()]);
    assert_eq!(token_mounts(&p["spec"]["containers"][0])[0]["name"], "kube-api-access-mine");
}

#[test]
fn the_accounts_pull_secrets_and_its_mountable_secrets() {
    let mut s = Server::new(ServerConfig::default());
    account(
        &mut s,
        json!({"metadata": {"name": "puller"}, "imagePullSecrets": [{"name": "registry"}, {"name": "mirror"}]}),
    );
    let p = created(&mut s, pod("a", json!({"serviceAccountName": "puller"})));
    assert_eq!(p["spec"]["imagePullSecrets"], json!([{"name": "registry"}, {"name": "mirror"}]));
    let p = created(&mut s, pod("b", json!({"serviceAccountName": "puller", "imagePullSecrets": [{"name": "own"}]})));
    assert_eq!(p["spec"]["imagePullSecrets"], json!([{"name": "own"}]), "a pod's own are kept");
    let p = created(&mut s, pod("c", json!({})));
    assert!(p["spec"].get("imagePullSecrets").is_none(), "the default account has none");

    account(
        &mut s,
        json!({"metadata": {"name": "strict", "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"}},
               "secrets": [{"name": "allowed"}], "imagePullSecrets": [{"name": "registry"}]}),
    );
    let refused = |s: &mut Server, spec: Value| -> String {
        let mut spec = spec;
        spec["serviceAccountName"] = json!("strict");
        let r = create_pod(s, pod("p", spec));
        assert_eq!(r.status, 403, "{}", text(&r));
        r.json_body()["message"].as_str().unwrap().trim_start_matches("pods \"p\" is forbidden: ").to_string()
    };
    assert_eq!(
        refused(&mut s, json!({"volumes": [{"name": "v", "secret": {"secretName": "other"}}]})),
        "volume with secret.secretName=\"other\" is not allowed because service account strict does not reference that secret"
    );
    let env = json!([{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "other", "key": "k"}}}]);
    assert_eq!(
        refused(&mut s, json!({"containers": [{"name": "c", "image": "nginx", "env": env}]})),
        "container c with envVar PASSWORD referencing secret.secretName=\"other\" is not allowed because service account strict does not reference that secret"
    );
    assert_eq!(
        refused(&mut s, json!({"initContainers": [{"name": "i", "image": "busybox", "envFrom": [{"secretRef": {"name": "other"}}]}]})),
        "init container i with envFrom referencing secret.secretName=\"other\" is not allowed because service account strict does not reference that secret"
    );
    assert_eq!(
        refused(&mut s, json!({"imagePullSecrets": [{"name": "registry"}, {"name": "other"}]})),
        "imagePullSecrets[1].name=\"other\" is not allowed because service account strict does not reference that imagePullSecret"
    );
    let ok = json!({"volumes": [{"name": "v", "secret": {"secretName": "allowed"}}], "serviceAccountName": "strict"});
    created(&mut s, pod("ok", ok));
}

#[test]
fn a_mirror_pod_names_no_account_and_gets_no_credentials() {
    let mut s = Server::new(ServerConfig::default());
    let mirror = |name: &str, spec: Value| {
        let mut p = pod(name, spec);
        p["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "abc"});
        p
    };
    let p = created(&mut s, mirror("static", json!({})));
    assert!(p["spec"].get("serviceAccountName").is_none() && volume_names(&p).is_empty(), "{p}");
    for (spec, why) in [
        (json!({"serviceAccountName": "default"}), "a mirror pod may not reference service accounts"),
        (json!({"volumes": [{"name": "v", "secret": {"secretName": "s"}}]}), "a mirror pod may not reference secrets"),
        (
            json!({"volumes": [{"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]}),
            "a mirror pod may not use ServiceAccountToken volume projections",
        ),
    ] {
        let r = create_pod(&mut s, mirror("m", spec));
        assert_eq!(r.status, 403, "{}", text(&r));
        assert_eq!(r.json_body()["message"], format!("pods \"m\" is forbidden: {why}"));
    }
}

#[test]
fn a_replica_set_naming_a_missing_account_says_why_in_its_events() {
    let mut s = Server::new(ServerConfig::default());
    let mut c = kubesim::controllers::Controllers::new(&["serviceaccount", "replicaset"]).unwrap();
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"serviceAccountName": "robot", "containers": [{"name": "c", "image": "nginx"}]}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/replicasets", Some(rs));
    assert_eq!(r.status, 201, "{}", text(&r));
    c.settle(&mut s);
    let pods = call(&mut s, "GET", "/api/v1/namespaces/default/pods", None).json_body();
    assert_eq!(pods["items"].as_array().map(Vec::len), Some(0));
    let events = call(&mut s, "GET", "/api/v1/namespaces/default/events", None).json_body();
    let failed: Vec<&Value> =
        events["items"].as_array().unwrap().iter().filter(|e| e["reason"] == "FailedCreate").collect();
    assert!(!failed.is_empty(), "{events}");
    assert_eq!(
        failed[0]["message"],
        "Error creating: pods \"web-\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found"
    );
    // The account made, the replica set's pod follows once its backoff
    // has passed.
    account(&mut s, json!({"metadata": {"name": "robot"}}));
    s.advance(1_000);
    c.tick(&mut s);
    c.settle(&mut s);
    let pods = call(&mut s, "GET", "/api/v1/namespaces/default/pods", None).json_body();
    assert_eq!(pods["items"][0]["spec"]["serviceAccountName"], "robot");
}

#[test]
fn jobs_daemon_sets_and_stateful_sets_say_why_too_and_try_again() {
    let mut s = Server::new(ServerConfig::default());
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker"}});
    assert_eq!(call(&mut s, "POST", "/api/v1/nodes", Some(node)).status, 201);
    let mut c = kubesim::controllers::Controllers::new(&["job", "daemonset", "statefulset"]).unwrap();
    let template = |app: &str| {
        json!({"metadata": {"labels": {"app": app}},
               "spec": {"serviceAccountName": "robot", "restartPolicy": if app == "once" { "Never" } else { "Always" },
                        "containers": [{"name": "c", "image": "busybox"}]}})
    };
    let selector = |app: &str| json!({"matchLabels": {"app": app}});
    for (path, body) in [
        (
            "/apis/batch/v1/namespaces/default/jobs",
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"}, "spec": {"template": template("once")}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/daemonsets",
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                   "spec": {"selector": selector("agent"), "template": template("agent")}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/statefulsets",
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                   "spec": {"replicas": 1, "serviceName": "db", "selector": selector("db"), "template": template("db")}}),
        ),
    ] {
        let r = call(&mut s, "POST", path, Some(body));
        assert_eq!(r.status, 201, "{}", text(&r));
    }
    c.settle(&mut s);
    let events = call(&mut s, "GET", "/api/v1/namespaces/default/events", None).json_body();
    let failed = |kind: &str| -> Vec<String> {
        let items = events["items"].as_array().unwrap().iter();
        let mine = items.filter(|e| e["reason"] == "FailedCreate" && e["involvedObject"]["kind"] == kind);
        mine.map(|e| format!("{} {}", e["type"].as_str().unwrap(), e["message"].as_str().unwrap())).collect()
    };
    let why = "error looking up service account default/robot: serviceaccount \"robot\" not found";
    assert_eq!(failed("Job"), vec![format!("Warning Error creating: pods \"once-\" is forbidden: {why}")]);
    assert_eq!(failed("DaemonSet"), vec![format!("Warning Error creating: pods \"agent-\" is forbidden: {why}")]);
    assert_eq!(
        failed("StatefulSet"),
        vec![format!("Warning create Pod db-0 in StatefulSet db failed error: pods \"db-0\" is forbidden: {why}")]
    );
    assert!(c.next_wake().is_some(), "each is tried again later");
    account(&mut s, json!({"metadata": {"name": "robot"}}));
    s.advance(1_000);
    c.tick(&mut s);
    c.settle(&mut s);
    let pods = call(&mut s, "GET", "/api/v1/namespaces/default/pods", None).json_body();
    let mut names: Vec<String> =
        pods["items"].as_array().unwrap().iter().map(|p| p["metadata"]["name"].as_str().unwrap().to_string()).collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[0].starts_with("agent-") && names[1] == "db-0" && names[2].starts_with("once-"), "{names:?}");
    assert_eq!(c.next_wake(), None, "nothing left to try again");
}
