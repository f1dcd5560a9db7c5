//! core/v1 ReplicationControllers: served as kube-apiserver serves them
//! (defaults from the template's labels, validation and status validation
//! in upstream's words, the scale subresource over a map selector, kubectl's
//! columns, pods orphaned by a DELETE that names no policy) and kept by the
//! replication manager, the ReplicaSet controller's code under its own name.

mod common;
use common::*;
use serde_json::{json, Value};

const RC: &str = "/api/v1/namespaces/default/replicationcontrollers";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn rc(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
        "spec": {"replicas": replicas,
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]}}}})
}

fn pods_of(k: &mut Cluster, app: &str) -> Vec<Value> {
    let list = k.get(&format!("{PODS}?labelSelector=app%3D{app}")).json_body();
    list["items"].as_array().cloned().unwrap_or_default()
}

#[test]
fn defaults_come_from_the_template_and_the_spec_is_validated_in_upstreams_words() {
    let mut s = server();
    let r = call(&mut s, "POST", RC, Some(rc("web", 2)));
    assert_eq!(r.status, 201, "{}", text(&r));
    let o = r.json_body();
    assert_eq!(o["spec"]["selector"], json!({"app": "web"}), "the selector from the template's labels");
    assert_eq!(o["metadata"]["labels"], json!({"app": "web"}), "so are the object's labels");
    assert_eq!(o["metadata"]["generation"], 1);
    assert_eq!(o["status"], json!({"replicas": 0}), "Go writes a zero replicas");
    let template = &o["spec"]["template"]["spec"];
    assert_eq!(template["restartPolicy"], "Always");
    assert_eq!(template["containers"][0]["terminationMessagePath"], "/dev/termination-log");
    let one = call(
        &mut s,
        "POST",
        RC,
        Some(json!({"metadata": {"name": "one"}, "spec": {"template": rc("one", 1)["spec"]["template"]}})),
    );
    assert_eq!(one.json_body()["spec"]["replicas"], 1);

    // A selector given stays, the object's own labels too.
    let mut own = rc("own", 1);
    own["metadata"]["labels"] = json!({"team": "a"});
    own["spec"]["selector"] = json!({"app": "own"});
    own["spec"]["template"]["metadata"]["labels"]["tier"] = json!("fe");
    let o = call(&mut s, "POST", RC, Some(own)).json_body();
    assert_eq!(
        (o["metadata"]["labels"].clone(), o["spec"]["selector"].clone()),
        (json!({"team": "a"}), json!({"app": "own"}))
    );

    // Upstream's order and words.
    let mut bad = rc("bad", -1);
    bad["spec"]["minReadySeconds"] = json!(-2);
    bad["spec"]["selector"] = json!({"app": "other"});
    bad["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
    bad["spec"]["template"]["spec"]["activeDeadlineSeconds"] = json!(10);
    let r = call(&mut s, "POST", RC, Some(bad));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "ReplicationController \"bad\" is invalid: [spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0, \
         spec.replicas: Invalid value: -1: must be greater than or equal to 0, \
         spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"bad\"}: `selector` does not match template `labels`, \
         spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\", \
         spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported]"
    );
    let r = call(&mut s, "POST", RC, Some(json!({"metadata": {"name": "empty"}, "spec": {}})));
    assert_eq!(
        message(&r),
        "ReplicationController \"empty\" is invalid: [spec.selector: Required value, spec.template: Required value]"
    );

    // Nothing in the spec is fixed: the selector may change (with the
    // template). The generation counts spec changes only.
    let mut changed = call(&mut s, "GET", &format!("{RC}/web"), None).json_body();
    changed["spec"]["selector"] = json!({"app": "web2"});
    changed["spec"]["template"]["metadata"]["labels"] = json!({"app": "web2"});
    let r = call(&mut s, "PUT", &format!("{RC}/web"), Some(changed.clone()));
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.json_body()["metadata"]["generation"], 2);
    // An update checks the spec twice, as upstream's strategy does: one
    // message, two causes.
    let mut worse = r.json_body();
    worse["spec"]["replicas"] = json!(-5);
    let r = call(&mut s, "PUT", &format!("{RC}/web"), Some(worse));
    assert_eq!(
        message(&r),
        "ReplicationController \"web\" is invalid: spec.replicas: Invalid value: -5: must be greater than or equal to 0"
    );
    assert_eq!(r.json_body()["details"]["causes"].as_array().map(Vec::len), Some(2));
}

/// Discovery lists a built-in's subresources in path order, as the
/// installer sorts them: `scale` before `status`.
#[test]
fn discovery_names_them_as_kube_apiserver_does() {
    let mut s = server();
    let list = call(&mut s, "GET", "/api/v1", None).json_body();
    let entries: Vec<&Value> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"].as_str().unwrap().starts_with("replicationcontrollers"))
        .collect();
    assert_eq!(
        entries.iter().map(|r| r["name"].as_str().unwrap()).collect::<Vec<_>>(),
        ["replicationcontrollers", "replicationcontrollers/scale", "replicationcontrollers/status"]
    );
    // Every group-version's resources in name order, as the installer
    // sorts its paths.
    for path in ["/api/v1", "/apis/apps/v1", "/apis/rbac.authorization.k8s.io/v1"] {
        let list = call(&mut s, "GET", path, None).json_body();
        let names: Vec<String> =
            list["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "{path}");
    }
    assert_eq!(entries[0]["shortNames"], json!(["rc"]));
    assert_eq!(entries[0]["categories"], json!(["all"]));
    assert_eq!((entries[1]["group"].clone(), entries[1]["kind"].clone()), (json!("autoscaling"), json!("Scale")));
    let r = s.handle(
        kubesim::server::Request::new("GET", "/api")
            .with_header("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
    );
    let doc = r.json_body();
    let rc = doc["items"][0]["versions"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "replicationcontrollers")
        .cloned()
        .unwrap();
    let core: Vec<&str> = doc["items"][0]["versions"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["resource"].as_str().unwrap())
        .collect();
    let mut sorted = core.clone();
    sorted.sort();
    assert_eq!(core, sorted);
    let subs: Vec<&str> =
        rc["subresources"].as_array().unwrap().iter().map(|s| s["subresource"].as_str().unwrap()).collect();
    assert_eq!(subs, ["scale", "status"]);
}

#[test]
fn status_writes_are_checked_and_the_scale_reads_the_map_selector() {
    let mut s = server();
    call(&mut s, "POST", RC, Some(rc("web", 3)));
    let status = |ready: i64, available: i64| {
        json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "web"},
            "status": {"replicas": 2, "readyReplicas": ready, "availableReplicas": available}})
    };
    let path = format!("{RC}/web/status");
    let r = call(&mut s, "PUT", &path, Some(status(3, 3)));
    assert_eq!(
        message(&r),
        "ReplicationController \"web\" is invalid: [status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas, \
         status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas]"
    );
    let r = call(&mut s, "PUT", &path, Some(status(1, 2)));
    assert_eq!(
        message(&r),
        "ReplicationController \"web\" is invalid: status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"
    );
    let r = call(&mut s, "PUT", &path, Some(status(2, 2)));
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.json_body()["metadata"]["generation"], 1, "a status write is no spec change");

    let scale = call(&mut s, "GET", &format!("{RC}/web/scale"), None).json_body();
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(scale["spec"], json!({"replicas": 3}));
    assert_eq!(scale["status"], json!({"replicas": 2, "selector": "app=web"}));
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{RC}/web/scale"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(br#"{"spec":{"replicas":5}}"#.to_vec()),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let o = call(&mut s, "GET", &format!("{RC}/web"), None).json_body();
    assert_eq!((o["spec"]["replicas"].clone(), o["metadata"]["generation"].clone()), (json!(5), json!(2)));

    // kubectl's columns, the wide ones too (the selector as labels print).
    let t = table(&mut s, RC);
    let columns: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"]);
    let cells = t["rows"][0]["cells"].as_array().unwrap();
    assert_eq!(cells[0..4], [json!("web"), json!(5), json!(2), json!(2)]);
    assert_eq!(cells[5..8], [json!("nginx"), json!("nginx:1.27"), json!("app=web")]);

    // `status.replicas` is a field label; another is refused.
    let r = call(&mut s, "GET", &format!("{RC}?fieldSelector=status.replicas%3D2"), None);
    assert_eq!(names(&r.json_body()), ["web"]);
    let r = call(&mut s, "GET", &format!("{RC}?fieldSelector=spec.replicas%3D5"), None);
    assert_eq!(r.status, 400);
    assert_eq!(message(&r), "field label not supported: spec.replicas");
}

#[test]
fn the_replication_manager_keeps_the_pods_and_a_bare_delete_orphans_them() {
    let mut k = Cluster::new();
    let r = k.call("POST", RC, Some(rc("web", 3)));
    assert_eq!(r.status, 201);
    let uid = r.json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let pods = pods_of(&mut k, "web");
    assert_eq!(pods.len(), 3);
    for p in &pods {
        assert!(p["metadata"]["name"].as_str().unwrap().starts_with("web-"));
        assert_eq!(
            p["metadata"]["ownerReferences"],
            json!([{"apiVersion": "v1", "kind": "ReplicationController", "name": "web", "uid": uid,
                "controller": true, "blockOwnerDeletion": true}])
        );
        let creator = &p["metadata"]["managedFields"][0];
        assert_eq!(creator["manager"], "kube-controller-manager");
    }
    let o = k.get(&format!("{RC}/web")).json_body();
    assert_eq!(o["status"]["replicas"], 3);
    assert_eq!(o["status"]["observedGeneration"], 1);
    let events = k.events("involvedObject.name=web");
    assert_eq!(events.len(), 3, "{events:?}");
    for e in &events {
        assert_eq!(e["reason"], "SuccessfulCreate");
        assert_eq!(e["source"]["component"], "replication-controller");
        assert_eq!(e["involvedObject"]["kind"], "ReplicationController");
        assert_eq!(e["involvedObject"]["apiVersion"], "v1");
    }

    // Scaled down through /scale, as `kubectl scale rc` does.
    let r = k.send("PATCH", &format!("{RC}/web/scale"), "application/merge-patch+json", r#"{"spec":{"replicas":1}}"#);
    assert_eq!(r.status, 200);
    assert_eq!(pods_of(&mut k, "web").len(), 1);
    assert!(k.event_messages("reason=SuccessfulDelete").iter().all(|m| m.starts_with("Deleted pod: web-")));

    // A DELETE naming no policy orphans the pods (upstream's default for
    // /api/v1 ReplicationControllers); kubectl names Background.
    assert_eq!(k.call("DELETE", &format!("{RC}/web"), None).status, 200);
    assert_eq!(k.get(&format!("{RC}/web")).status, 404);
    let left = pods_of(&mut k, "web");
    assert_eq!(left.len(), 1);
    assert!(left[0]["metadata"].get("ownerReferences").is_none(), "{}", left[0]);

    // A new one adopts the orphan; a background delete collects it.
    k.call("POST", RC, Some(rc("web", 1)));
    let pods = pods_of(&mut k, "web");
    assert_eq!(pods.len(), 1);
    assert_eq!(pods[0]["metadata"]["name"], left[0]["metadata"]["name"], "adopted, not replaced");
    let background = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
    assert_eq!(k.call("DELETE", &format!("{RC}/web"), Some(background)).status, 200);
    let gone: Vec<Value> =
        pods_of(&mut k, "web").into_iter().filter(|p| p["metadata"]["deletionTimestamp"].is_null()).collect();
    assert!(gone.is_empty(), "{gone:?}");
}

/// Classic discovery names each stored resource's storage version hash
/// (SHA-256 of its storage group/version/kind, 8 bytes, base64): the
/// figures kube-apiserver's own test data pins for the resources served
/// here, a resource served over another's storage with that one's, none
/// for the reviews and componentstatuses, none for a subresource.
#[test]
fn discovery_names_each_stored_resources_storage_version_hash() {
    const PINNED: &[(&str, &str)] = &[
        ("v1/configmaps", "qFsyl6wFWjQ="),
        ("v1/endpoints", "fWeeMqaN/OA="),
        ("v1/events", "r2yiGXH7wu8="),
        ("v1/limitranges", "EBKMFVe6cwo="),
        ("v1/namespaces", "Q3oi5N2YM8M="),
        ("v1/nodes", "XwShjMxG9Fs="),
        ("v1/persistentvolumeclaims", "QWTyNDq0dC4="),
        ("v1/persistentvolumes", "HN/zwEC+JgM="),
        ("v1/pods", "xPOwRZ+Yhw8="),
        ("v1/replicationcontrollers", "Jond2If31h0="),
        ("v1/resourcequotas", "8uhSgffRX6w="),
        ("v1/secrets", "S6u1pOWzb84="),
        ("v1/serviceaccounts", "pbx9ZvyFpBE="),
        ("v1/services", "0/CO1lhkEBI="),
        ("autoscaling/v1/horizontalpodautoscalers", "qwQve8ut294="),
        ("autoscaling/v2/horizontalpodautoscalers", "qwQve8ut294="),
        ("batch/v1/jobs", "mudhfqk/qZY="),
        ("batch/v1/cronjobs", "sd5LIXh4Fjs="),
        ("coordination.k8s.io/v1/leases", "gqkMMb/YqFM="),
        ("discovery.k8s.io/v1/endpointslices", "qgS0xkrxYAI="),
        ("networking.k8s.io/v1/ingresses", "39NQlfNR+bo="),
        ("networking.k8s.io/v1/ingressclasses", "l/iqIbDgFyQ="),
        ("policy/v1/poddisruptionbudgets", "EVWiDmWqyJw="),
        ("rbac.authorization.k8s.io/v1/clusterrolebindings", "48tpQ8gZHFc="),
        ("rbac.authorization.k8s.io/v1/clusterroles", "bYE5ZWDrJ44="),
        ("rbac.authorization.k8s.io/v1/rolebindings", "eGsCzGH6b1g="),
        ("rbac.authorization.k8s.io/v1/roles", "7FuwZcIIItM="),
        ("scheduling.k8s.io/v1/priorityclasses", "1QwjyaZjj3Y="),
        ("storage.k8s.io/v1/storageclasses", "K+m6uJwbjGY="),
        ("apps/v1/controllerrevisions", "85nkx63pcBU="),
        ("apps/v1/daemonsets", "dd7pWHUlMKQ="),
        ("apps/v1/deployments", "8aSe+NMegvE="),
        ("apps/v1/replicasets", "P1RzHs8/mWQ="),
        ("apps/v1/statefulsets", "H+vl74LkKdo="),
        ("events.k8s.io/v1/events", "r2yiGXH7wu8="),
        ("flowcontrol.apiserver.k8s.io/v1/flowschemas", "GJVAJZSZBIw="),
        ("flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", "Kir5PVfvNeI="),
    ];
    const NONE: &[&str] = &[
        "v1/componentstatuses",
        "authentication.k8s.io/v1/selfsubjectreviews",
        "authentication.k8s.io/v1/tokenreviews",
        "authorization.k8s.io/v1/localsubjectaccessreviews",
        "authorization.k8s.io/v1/selfsubjectaccessreviews",
        "authorization.k8s.io/v1/selfsubjectrulesreviews",
        "authorization.k8s.io/v1/subjectaccessreviews",
    ];
    let mut s = server();
    let mut seen = 0;
    let groups = call(&mut s, "GET", "/apis", None).json_body();
    let mut versions: Vec<String> = vec!["/api/v1".into()];
    for g in groups["groups"].as_array().unwrap() {
        for v in g["versions"].as_array().unwrap() {
            versions.push(format!("/apis/{}", v["groupVersion"].as_str().unwrap()));
        }
    }
    for path in versions {
        let list = call(&mut s, "GET", &path, None).json_body();
        let gv = list["groupVersion"].as_str().unwrap().to_string();
        for r in list["resources"].as_array().unwrap() {
            let name = r["name"].as_str().unwrap();
            let key = format!("{gv}/{name}");
            let hash = r.get("storageVersionHash");
            if name.contains('/') {
                assert!(hash.is_none(), "{key}");
            } else if NONE.contains(&key.as_str()) {
                assert!(hash.is_none(), "{key}");
                seen += 1;
            } else if let Some((_, want)) = PINNED.iter().find(|(k, _)| *k == key) {
                assert_eq!(hash, Some(&json!(want)), "{key}");
                seen += 1;
            } else {
                // apiextensions.k8s.io's own, not in that data.
                assert_eq!(key, "apiextensions.k8s.io/v1/customresourcedefinitions");
                assert!(hash.is_some());
            }
        }
    }
    assert_eq!(seen, PINNED.len() + NONE.len(), "every pinned resource is served");

    // A custom resource's versions name its storage version's hash.
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {"group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}},
                {"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
    assert_eq!(call(&mut s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd)).status, 201);
    for v in ["v1", "v2"] {
        let list = call(&mut s, "GET", &format!("/apis/stable.example.com/{v}"), None).json_body();
        assert_eq!(list["resources"][0]["storageVersionHash"], "EdX2FP+L0js=", "{v}");
    }
}
