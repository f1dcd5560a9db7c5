//! ControllerRevisions: served as upstream's apps/v1 kind (validation,
//! columns), and kept by the StatefulSet and DaemonSet controllers as
//! upstream's history (a revision per template, renumbered on roll back,
//! trimmed to `revisionHistoryLimit`).

mod common;
use common::*;
use serde_json::{json, Value};

const REVISIONS: &str = "/apis/apps/v1/namespaces/default/controllerrevisions";

#[test]
fn served_validated_and_printed_as_upstream() {
    let mut s = server();
    let cr = |data: Value, revision: i64| {
        json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "web-1"},
            "data": data, "revision": revision})
    };
    let r = call(&mut s, "POST", REVISIONS, Some(cr(Value::Null, -1)));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "ControllerRevision.apps \"web-1\" is invalid: [data: Required value: data is mandatory, revision: Invalid value: -1: must be greater than or equal to 0]"
    );
    // The data is any object: nothing in it is an unknown field.
    let data = json!({"spec": {"template": {"$patch": "replace", "metadata": {"labels": {"app": "web"}}}}});
    let r = call(&mut s, "POST", &format!("{REVISIONS}?fieldValidation=Strict"), Some(cr(data.clone(), 1)));
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(r.json_body()["data"], data);
    // The number may change, the data may not.
    let mut v = get(&mut s, &format!("{REVISIONS}/web-1")).json_body();
    v["revision"] = json!(3);
    assert_eq!(call(&mut s, "PUT", &format!("{REVISIONS}/web-1"), Some(v.clone())).status, 200);
    let mut v = get(&mut s, &format!("{REVISIONS}/web-1")).json_body();
    v["data"] = json!({"spec": {}});
    let r = call(&mut s, "PUT", &format!("{REVISIONS}/web-1"), Some(v));
    assert_eq!(r.status, 422);
    assert!(message(&r).ends_with("data: Invalid value: {\"spec\":{}}: field is immutable"), "{}", message(&r));
    // kubectl's columns.
    let t = table(&mut s, REVISIONS);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Controller", "Revision", "Age"]);
    assert_eq!(t["rows"][0]["cells"][1], "<none>");
    assert_eq!(t["rows"][0]["cells"][2], 3);
}

fn revisions(k: &mut Cluster) -> Vec<(String, i64, String)> {
    let mut list: Vec<(String, i64, String)> = k.get(REVISIONS).json_body()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let image = r["data"]["spec"]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().to_string();
            (r["metadata"]["name"].as_str().unwrap().to_string(), r["revision"].as_i64().unwrap(), image)
        })
        .collect();
    list.sort_by_key(|r| r.1);
    list
}

fn set_image(k: &mut Cluster, path: &str, container: &str, image: &str) {
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": container, "image": image}]}}}});
    let r = k.send("PATCH", path, "application/strategic-merge-patch+json", &patch.to_string());
    assert_eq!(r.status, 200, "{}", text(&r));
}

#[test]
fn a_stateful_set_keeps_a_revision_per_template_and_renumbers_one_it_returns_to() {
    let mut k = Cluster::new();
    k.ready_node("node-a", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    const SET: &str = "/apis/apps/v1/namespaces/default/statefulsets/db";
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "annotations": {"team": "data"}},
        "spec": {"replicas": 2, "serviceName": "db", "revisionHistoryLimit": 1, "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "pg", "image": "postgres:16"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", Some(sts)).status, 201);
    let first = revisions(&mut k);
    assert_eq!(first.len(), 1);
    let (name, number, _) = &first[0];
    assert_eq!(*number, 1);
    let cr = k.get(&format!("{REVISIONS}/{name}")).json_body();
    // Named and labelled by the hash of its data and the collision count.
    let hash = cr["metadata"]["labels"]["controller.kubernetes.io/hash"].as_str().unwrap().to_string();
    assert_eq!(*name, format!("db-{hash}"));
    assert_eq!(cr["metadata"]["labels"]["app"], "db");
    assert_eq!(cr["metadata"]["annotations"]["team"], "data");
    assert_eq!(cr["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    assert_eq!(cr["data"]["spec"]["template"]["$patch"], "replace");
    let s = k.get(SET).json_body();
    assert_eq!(
        (s["status"]["currentRevision"].as_str(), s["status"]["updateRevision"].as_str()),
        (Some(name.as_str()), Some(name.as_str()))
    );
    for p in k.get("/api/v1/namespaces/default/pods").json_body()["items"].as_array().unwrap() {
        assert_eq!(p["metadata"]["labels"]["controller-revision-hash"], name.as_str());
    }
    // A new template is revision 2; going back renumbers the first 3.
    set_image(&mut k, SET, "pg", "postgres:17");
    let second = revisions(&mut k);
    assert_eq!(
        second.iter().map(|r| (r.1, r.2.as_str())).collect::<Vec<_>>(),
        [(1, "postgres:16"), (2, "postgres:17")]
    );
    set_image(&mut k, SET, "pg", "postgres:16");
    let third = revisions(&mut k);
    assert_eq!(third.iter().map(|r| (r.1, r.2.as_str())).collect::<Vec<_>>(), [(2, "postgres:17"), (3, "postgres:16")]);
    assert_eq!(third[1].0, first[0].0, "the same revision, renumbered");
    let s = k.get(SET).json_body();
    assert_eq!(s["status"]["updateRevision"].as_str(), Some(first[0].0.as_str()));
    // A third template: the oldest revision no pod uses goes (limit 1).
    set_image(&mut k, SET, "pg", "postgres:18");
    let fourth = revisions(&mut k);
    assert_eq!(
        fourth.iter().map(|r| (r.1, r.2.as_str())).collect::<Vec<_>>(),
        [(3, "postgres:16"), (4, "postgres:18")]
    );
}

#[test]
fn a_daemon_set_keeps_a_revision_per_template_named_by_its_pods_hash() {
    let mut k = Cluster::new();
    k.ready_node("node-a", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    const SET: &str = "/apis/apps/v1/namespaces/default/daemonsets/logs";
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "logs"},
        "spec": {"revisionHistoryLimit": 1, "selector": {"matchLabels": {"app": "logs"}},
            "template": {"metadata": {"labels": {"app": "logs"}},
                "spec": {"containers": [{"name": "f", "image": "fluentd:1"}]}}}});
    assert_eq!(k.call("POST", "/apis/apps/v1/namespaces/default/daemonsets", Some(ds)).status, 201);
    let hash_of_pods = |k: &mut Cluster| -> Vec<String> {
        k.get("/api/v1/namespaces/default/pods").json_body()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["metadata"]["labels"]["controller-revision-hash"].as_str().unwrap().to_string())
            .collect()
    };
    let first = revisions(&mut k);
    let hash = hash_of_pods(&mut k);
    assert_eq!(hash.len(), 1);
    assert_eq!(first, [(format!("logs-{}", hash[0]), 1, "fluentd:1".to_string())]);
    let cr = k.get(&format!("{REVISIONS}/{}", first[0].0)).json_body();
    assert_eq!(cr["metadata"]["labels"]["controller-revision-hash"], hash[0].as_str());
    let pods = k.get("/api/v1/namespaces/default/pods").json_body();
    assert_eq!(pods["items"][0]["metadata"]["labels"]["pod-template-generation"], "1");
    assert_eq!(cr["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
    set_image(&mut k, SET, "f", "fluentd:2");
    assert_eq!(revisions(&mut k).iter().map(|r| r.1).collect::<Vec<_>>(), [1, 2]);
    set_image(&mut k, SET, "f", "fluentd:1");
    let back = revisions(&mut k);
    assert_eq!(back.iter().map(|r| (r.1, r.2.as_str())).collect::<Vec<_>>(), [(2, "fluentd:2"), (3, "fluentd:1")]);
    assert_eq!(back[1].0, first[0].0, "the same revision, renumbered");
    assert_eq!(hash_of_pods(&mut k), hash, "the pods are back at the first hash");
    set_image(&mut k, SET, "f", "fluentd:3");
    let trimmed = revisions(&mut k);
    assert_eq!(trimmed.iter().map(|r| (r.1, r.2.as_str())).collect::<Vec<_>>(), [(3, "fluentd:1"), (4, "fluentd:3")]);
}
