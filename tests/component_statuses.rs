//! `componentstatuses`: probed on every read, never stored, deprecated and
//! still served as kube-apiserver 1.33 serves it.

mod common;

use common::*;
use kubesim::controllers::Controllers;
use kubesim::server::components::Components;
use kubesim::server::Request;
use serde_json::{json, Value};

const DEPRECATED: &str = "299 - \"v1 ComponentStatus is deprecated in v1.19+\"";

fn refused(port: u16) -> String {
    format!("Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: connect: connection refused")
}

#[test]
fn each_component_answers_as_its_probe_found_it() {
    let mut s = server();
    // No door has said the components run: their ports refuse.
    let r = get(&mut s, "/api/v1/componentstatuses");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Warning"), Some(DEPRECATED));
    assert_eq!(
        r.json_body(),
        json!({"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {}, "items": [
            {"metadata": {"name": "controller-manager", "creationTimestamp": null},
             "conditions": [{"type": "Healthy", "status": "False", "message": refused(10257)}]},
            {"metadata": {"name": "etcd-0", "creationTimestamp": null},
             "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]},
            {"metadata": {"name": "scheduler", "creationTimestamp": null},
             "conditions": [{"type": "Healthy", "status": "False", "message": refused(10259)}]},
        ]})
    );

    s.set_components(Components { scheduler: true, controller_manager: true });
    let r = get(&mut s, "/api/v1/componentstatuses/scheduler");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Warning"), Some(DEPRECATED));
    assert_eq!(
        r.json_body(),
        json!({"kind": "ComponentStatus", "apiVersion": "v1",
               "metadata": {"name": "scheduler", "creationTimestamp": null},
               "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]})
    );

    let r = get(&mut s, "/api/v1/componentstatuses/kube-proxy");
    assert_eq!(r.status, 500);
    let body = r.json_body();
    assert_eq!(body["message"], "Component not found: kube-proxy");
    assert_eq!(body.get("reason"), None, "{body}");

    // Nothing stored, so no stored-object count (the metric lists stored
    // resources only).
    let metrics = String::from_utf8(get(&mut s, "/metrics").body).unwrap();
    assert!(metrics.contains("apiserver_storage_objects{resource=\"configmaps\"}"), "{metrics}");
    assert!(!metrics.contains("apiserver_storage_objects{resource=\"componentstatuses\"}"), "{metrics}");
    assert!(metrics.contains("resource=\"componentstatuses\""), "the requests are counted");
}

#[test]
fn kubectl_columns_and_protobuf() {
    let mut s = server();
    s.set_components(Components { scheduler: false, controller_manager: true });
    let r = s.handle(
        Request::new("GET", "/api/v1/componentstatuses")
            .with_header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"),
    );
    assert_eq!(r.status, 200);
    let table = r.json_body();
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Status", "Message", "Error"]);
    assert_eq!(table["columnDefinitions"][1]["description"], "Status of the component conditions");
    let cells: Vec<Value> = table["rows"].as_array().unwrap().iter().map(|r| r["cells"].clone()).collect();
    assert_eq!(
        cells,
        [
            json!(["controller-manager", "Healthy", "ok", ""]),
            json!(["etcd-0", "Healthy", "ok", ""]),
            json!(["scheduler", "Unhealthy", refused(10259), ""]),
        ]
    );

    let r = s.handle(
        Request::new("GET", "/api/v1/componentstatuses/etcd-0")
            .with_header("Accept", "application/vnd.kubernetes.protobuf"),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("application/vnd.kubernetes.protobuf"));
    let back = kubesim::proto::decode_object(&r.body).unwrap();
    assert_eq!(back["conditions"], json!([{"type": "Healthy", "status": "True", "message": "ok"}]));
}

#[test]
fn get_and_list_only_with_upstream_selectors() {
    let mut s = server();
    let names_of = |s: &mut kubesim::server::Server, q: &str| {
        let r = get(s, &format!("/api/v1/componentstatuses?{q}"));
        assert_eq!(r.status, 200, "{q}: {}", String::from_utf8_lossy(&r.body));
        names(&r.json_body())
    };
    assert_eq!(names_of(&mut s, "fieldSelector=metadata.name%3Detcd-0"), ["etcd-0"]);
    assert_eq!(names_of(&mut s, "fieldSelector=metadata.name!%3Detcd-0"), ["controller-manager", "scheduler"]);
    assert_eq!(names_of(&mut s, "fieldSelector=metadata.namespace%3D"), ["controller-manager", "etcd-0", "scheduler"]);
    // They have no labels.
    assert!(names_of(&mut s, "labelSelector=tier").is_empty());
    assert_eq!(names_of(&mut s, "labelSelector=!tier").len(), 3);

    let r = get(&mut s, "/api/v1/componentstatuses?fieldSelector=status%3DTrue");
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json_body()["message"],
        "\"status\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
    );

    let r = get(&mut s, "/api/v1/componentstatuses?watch=1");
    assert_eq!(r.status, 405);
    let body = r.json_body();
    assert_eq!(body["reason"], "MethodNotAllowed");
    assert_eq!(body["message"], "watch is not supported on resources of kind \"componentstatuses\"");
    assert_eq!(body["details"], json!({"kind": "componentstatuses"}));

    for (method, target) in [
        ("POST", "/api/v1/componentstatuses"),
        ("DELETE", "/api/v1/componentstatuses/etcd-0"),
        ("PUT", "/api/v1/componentstatuses/etcd-0"),
    ] {
        let r = call(&mut s, method, target, Some(json!({"metadata": {"name": "etcd-0"}})));
        assert_eq!(r.status, 405, "{method} {target}");
    }

    let r = get(&mut s, "/api/v1");
    let cs = r.json_body()["resources"].as_array().unwrap().iter().find(|r| r["name"] == "componentstatuses").cloned();
    let cs = cs.expect("componentstatuses in discovery");
    assert_eq!(cs["verbs"], json!(["get", "list"]));
    assert_eq!(cs["shortNames"], json!(["cs"]));
    assert_eq!(cs["singularName"], "componentstatus");
    assert_eq!(cs["namespaced"], false);
}

/// The controllers say which components run: the scheduler when it is
/// among them, the controller manager when any of its controllers is,
/// neither while they are paused.
#[test]
fn the_controllers_running_are_the_components_up() {
    let all = Controllers::new(kubesim::controllers::ALL).unwrap();
    assert_eq!(all.components(), Components { scheduler: true, controller_manager: true });
    assert_eq!(Controllers::none().components(), Components::default());
    let scheduler = Controllers::new(&["scheduler", "kubelet"]).unwrap();
    assert_eq!(scheduler.components(), Components { scheduler: true, controller_manager: false });
    let mut gc = Controllers::new(&["garbage-collector"]).unwrap();
    assert_eq!(gc.components(), Components { scheduler: false, controller_manager: true });
    gc.pause(true);
    assert_eq!(gc.components(), Components::default());
}
