//! Representations through the core's front door: Accept negotiation,
//! Tables (one golden per built-in kind), PartialObjectMetadata, YAML and
//! protobuf for get, list, watch and writes.

mod common;
use common::*;
use kubesim::proto;
use kubesim::server::{Request, Response, Server};
use serde_json::{json, Value};

const TABLE: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

fn accept(s: &mut Server, target: &str, accept: &str) -> Response {
    s.handle(Request::new("GET", target).with_header("Accept", accept))
}

fn reason(r: &Response) -> String {
    r.json_body()["reason"].as_str().unwrap_or_default().to_string()
}

#[test]
fn accept_headers_pick_the_first_servable_range() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let cms = "/api/v1/namespaces/default/configmaps";
    let ct = |r: &Response| r.header("Content-Type").unwrap_or_default().to_string();
    // In order; unknown conversions and types are skipped.
    let r = accept(&mut s, cms, "application/json;as=Pod;g=meta.k8s.io;v=v1, application/yaml, application/json");
    assert_eq!(ct(&r), "application/yaml");
    // q-values outrank order.
    let r = accept(&mut s, cms, "application/json;q=0.4, application/vnd.kubernetes.protobuf;q=0.9");
    assert_eq!(ct(&r), PROTOBUF);
    assert_eq!(&r.body[..4], b"k8s\x00");
    // Wildcards are JSON.
    let r = accept(&mut s, cms, "text/html, */*;q=0.1");
    assert_eq!(ct(&r), "application/json");
    let r = accept(&mut s, cms, "application/*");
    assert_eq!(ct(&r), "application/json");
    // Nothing servable.
    let r = accept(&mut s, cms, "text/html, application/json;q=0");
    assert_eq!((r.status, reason(&r).as_str()), (406, "NotAcceptable"));
    let r = accept(&mut s, cms, "application/json;as=Table");
    assert_eq!(r.status, 406, "a conversion needs its group and version");
    // Discovery and the like stay JSON-only.
    let r = accept(&mut s, "/api", PROTOBUF);
    assert_eq!(r.status, 406);
}

#[test]
fn tables_for_get_list_and_paging() {
    let mut s = server();
    for n in ["a", "b", "c"] {
        create_cm(&mut s, n, json!({}));
    }
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps?limit=2", TABLE);
    assert_eq!(r.status, 200);
    let t = r.json_body();
    assert_eq!((t["kind"].as_str(), t["apiVersion"].as_str()), (Some("Table"), Some("meta.k8s.io/v1")));
    assert_eq!(t["rows"].as_array().unwrap().len(), 2);
    assert!(t["metadata"]["continue"].is_string());
    assert_eq!(t["metadata"]["remainingItemCount"], 1);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Data", "Age"]);
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(t["rows"][0]["object"]["metadata"]["name"], "a");
    // The next page, as a Table too.
    let cont = t["metadata"]["continue"].as_str().unwrap();
    let t2 =
        accept(&mut s, &format!("/api/v1/namespaces/default/configmaps?limit=2&continue={cont}"), TABLE).json_body();
    assert_eq!(t2["rows"][0]["cells"][0], "c");

    let one = accept(&mut s, "/api/v1/namespaces/default/configmaps/b?includeObject=Object", TABLE).json_body();
    assert_eq!(one["rows"].as_array().unwrap().len(), 1);
    assert_eq!(one["rows"][0]["object"]["kind"], "ConfigMap");
    assert_eq!(one["metadata"]["resourceVersion"], one["rows"][0]["object"]["metadata"]["resourceVersion"]);
    let none = accept(&mut s, "/api/v1/namespaces/default/configmaps/b?includeObject=None", TABLE).json_body();
    assert_eq!(none["rows"][0]["object"], Value::Null);
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps?includeObject=All", TABLE);
    assert_eq!((r.status, reason(&r).as_str()), (400, "BadRequest"));
    assert_eq!(
        r.json_body()["message"],
        "Unable to convert to Table as requested: includeObject: Unsupported value: \"All\": supported values: \"Metadata\", \"None\", \"Object\""
    );
    // v1beta1, as kubectl's second choice; errors stay Status.
    let r =
        accept(&mut s, "/api/v1/namespaces/default/configmaps/b", "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
    assert_eq!(r.json_body()["apiVersion"], "meta.k8s.io/v1beta1");
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps/missing", TABLE);
    assert_eq!((r.status, r.json_body()["kind"].as_str()), (404, Some("Status")));
}

#[test]
fn table_watches_send_column_definitions_once() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let mut w = match s
        .serve(Request::new("GET", "/api/v1/namespaces/default/configmaps?watch=1").with_header("Accept", TABLE))
    {
        kubesim::server::Served::Watch(head, w) => {
            assert_eq!(head.header("Content-Type"), Some("application/json"));
            w
        }
        kubesim::server::Served::Response(r) | kubesim::server::Served::Log(r, _) => {
            panic!("{}", String::from_utf8_lossy(&r.body))
        }
    };
    create_cm(&mut s, "b", json!({}));
    let evs = s.poll_watch(&mut w, 10);
    let objs: Vec<Value> = evs.iter().map(|e| serde_json::from_slice(e.object_json()).unwrap()).collect();
    assert_eq!(objs.len(), 2);
    assert!(objs.iter().all(|o| o["kind"] == "Table"));
    assert!(objs[0]["columnDefinitions"].is_array());
    assert_eq!(objs[1]["columnDefinitions"], Value::Null);
    assert_eq!(objs[1]["rows"][0]["cells"][0], "b");
}

#[test]
fn partial_object_metadata_for_get_list_and_watch() {
    let mut s = server();
    create_cm(&mut s, "a", json!({"app": "web"}));
    let pom = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    let poml = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let one = accept(&mut s, "/api/v1/namespaces/default/configmaps/a", pom).json_body();
    assert_eq!(one["kind"], "PartialObjectMetadata");
    assert_eq!(one["metadata"]["labels"]["app"], "web");
    assert!(one.get("data").is_none());
    let list = accept(&mut s, "/api/v1/namespaces/default/configmaps", poml).json_body();
    assert_eq!(list["kind"], "PartialObjectMetadataList");
    assert_eq!(list["items"][0]["kind"], "PartialObjectMetadata");
    assert!(list["metadata"]["resourceVersion"].is_string());
    // The wrong one for the request: 406 with upstream's wording.
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps", pom);
    assert_eq!(r.status, 406);
    assert_eq!(
        r.json_body()["message"],
        "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"
    );
    // Protobuf too (metadata informers ask for it so).
    let r = accept(
        &mut s,
        "/api/v1/namespaces/default/configmaps",
        &format!("{PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
    );
    assert_eq!(r.header("Content-Type"), Some(PROTOBUF));
    let v = proto::decode_object(&r.body).unwrap();
    assert_eq!(v["kind"], "PartialObjectMetadataList");
    assert_eq!(v["items"][0]["metadata"]["name"], "a");
    // A watch converts each event.
    let w = s.handle(Request::new("GET", "/api/v1/namespaces/default/configmaps?watch=1").with_header("Accept", pom));
    let evs = events(&w);
    assert_eq!(evs[0].1["kind"], "PartialObjectMetadata");
}

#[test]
fn a_metadata_list_is_each_item_metadata_with_the_page_metadata() {
    let mut s = server();
    for name in ["a", "b", "c"] {
        create_cm(&mut s, name, json!({"app": name}));
    }
    let page = "/api/v1/namespaces/default/configmaps?limit=2";
    let full = get(&mut s, page).json_body();
    for version in ["v1", "v1beta1"] {
        let api_version = format!("meta.k8s.io/{version}");
        let got =
            accept(&mut s, page, &format!("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v={version}"));
        assert_eq!(got.header("Content-Type"), Some("application/json"));
        let items: Vec<Value> = full["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| json!({"kind": "PartialObjectMetadata", "apiVersion": api_version, "metadata": i["metadata"]}))
            .collect();
        let want = json!({"kind": "PartialObjectMetadataList", "apiVersion": api_version,
            "metadata": {"resourceVersion": full["metadata"]["resourceVersion"], "continue": full["metadata"]["continue"],
                "remainingItemCount": 1},
            "items": items});
        assert_eq!(String::from_utf8(got.body).unwrap(), want.to_string());
    }
    // YAML, from the same conversion.
    let yaml = accept(&mut s, page, "application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    let text = String::from_utf8(yaml.body).unwrap();
    assert!(text.contains("kind: PartialObjectMetadataList"), "{text}");
    assert!(text.contains("remainingItemCount: 1") && !text.contains("k: v"), "{text}");
}

#[test]
fn protobuf_gets_lists_writes_and_watches() {
    let mut s = server();
    // Create from protobuf, answer in JSON.
    let cm = json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "pb"}, "data": {"k": "v"}});
    let r = s.handle(
        Request::new("POST", "/api/v1/namespaces/default/configmaps")
            .with_header("Content-Type", PROTOBUF)
            .with_header("Accept", "application/json")
            .with_body(proto::encode_object(&cm).unwrap()),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["data"]["k"], "v");
    // Update in protobuf, answer in protobuf.
    let mut updated = r.json_body();
    updated["data"]["k"] = json!("w");
    let r = s.handle(
        Request::new("PUT", "/api/v1/namespaces/default/configmaps/pb")
            .with_header("Content-Type", PROTOBUF)
            .with_header("Accept", PROTOBUF)
            .with_body(proto::encode_object(&updated).unwrap()),
    );
    assert_eq!(r.status, 200);
    assert_eq!(proto::decode_object(&r.body).unwrap()["data"]["k"], "w");
    // A patch answers in protobuf; its body stays a patch type.
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/configmaps/pb")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_header("Accept", PROTOBUF)
            .with_body(br#"{"data":{"k":"x"}}"#.to_vec()),
    );
    assert_eq!(proto::decode_object(&r.body).unwrap()["data"]["k"], "x");
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/configmaps/pb")
            .with_header("Content-Type", PROTOBUF)
            .with_body(proto::encode_object(&updated).unwrap()),
    );
    assert_eq!(r.status, 415);
    // Lists are XList messages; errors are Status messages.
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps", PROTOBUF);
    let list = proto::decode_object(&r.body).unwrap();
    assert_eq!(
        (list["kind"].as_str(), list["items"][0]["metadata"]["name"].as_str()),
        (Some("ConfigMapList"), Some("pb"))
    );
    let r = accept(&mut s, "/api/v1/namespaces/default/configmaps/nope", PROTOBUF);
    assert_eq!((r.status, r.header("Content-Type")), (404, Some(PROTOBUF)));
    let st = proto::decode_object(&r.body).unwrap();
    assert_eq!(
        (st["kind"].as_str(), st["reason"].as_str(), st["code"].as_i64()),
        (Some("Status"), Some("NotFound"), Some(404))
    );
    // DeleteOptions may come as protobuf (dryRun keeps the object).
    let opts =
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"], "gracePeriodSeconds": 0});
    let r = s.handle(
        Request::new("DELETE", "/api/v1/namespaces/default/configmaps/pb")
            .with_header("Content-Type", PROTOBUF)
            .with_body(proto::encode_object(&opts).unwrap()),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/pb").status, 200, "a dry run deletes nothing");
    // A watch is framed WatchEvents.
    let w = accept(&mut s, "/api/v1/namespaces/default/configmaps?watch=1", PROTOBUF);
    assert_eq!(w.header("Content-Type"), Some("application/vnd.kubernetes.protobuf;stream=watch"));
    let frames = proto::read_watch_frames(&w.body).unwrap();
    assert_eq!(frames[0].0, "ADDED");
    assert_eq!(frames[0].1["metadata"]["name"], "pb");
}

#[test]
fn the_scale_subresource_speaks_protobuf() {
    let mut s = server();
    let (collection, body) = fixtures().into_iter().find(|(c, _)| c.ends_with("/deployments")).unwrap();
    call(&mut s, "POST", collection, Some(body));
    let r = accept(&mut s, &format!("{collection}/web/scale"), PROTOBUF);
    let mut scale = proto::decode_object(&r.body).unwrap();
    assert_eq!((scale["kind"].as_str(), scale["spec"]["replicas"].as_i64()), (Some("Scale"), Some(3)));
    scale["spec"]["replicas"] = json!(0);
    let r = s.handle(
        Request::new("PUT", &format!("{collection}/web/scale"))
            .with_header("Content-Type", PROTOBUF)
            .with_body(proto::encode_object(&scale).unwrap()),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"]["replicas"], 0, "replicas: 0 is a value, not unset");
    // As a Table, the Scale gets the default columns (Deployment's are for Deployments).
    let t = accept(&mut s, &format!("{collection}/web/scale"), TABLE).json_body();
    assert_eq!(t["columnDefinitions"][1]["name"], "Created At");
    assert_eq!(t["rows"][0]["cells"][0], "web");
}

/// A representative object of every built-in kind, and its Table row.
fn fixtures() -> Vec<(&'static str, Value)> {
    let tpl = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}, {"name": "s", "image": "busybox"}]}});
    let sel = json!({"matchLabels": {"app": "web"}});
    vec![
        ("/api/v1/namespaces", json!({"metadata": {"name": "team"}})),
        (
            "/api/v1/namespaces/default/pods",
            json!({"metadata": {"name": "web-1"}, "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "nginx"}], "readinessGates": [{"conditionType": "example.com/ready"}]}}),
        ),
        (
            "/api/v1/namespaces/default/services",
            json!({"metadata": {"name": "web"}, "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "dns", "port": 53, "protocol": "UDP"}]}}),
        ),
        (
            "/api/v1/namespaces/default/configmaps",
            json!({"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
        ),
        (
            "/api/v1/namespaces/default/secrets",
            json!({"metadata": {"name": "tls"}, "type": "kubernetes.io/tls", "data": {"tls.crt": "AA==", "tls.key": "AA=="}}),
        ),
        (
            "/api/v1/namespaces/default/serviceaccounts",
            json!({"metadata": {"name": "robot"}, "secrets": [{"name": "robot-token"}]}),
        ),
        (
            "/api/v1/nodes",
            json!({"metadata": {"name": "node-1", "labels": {"node-role.kubernetes.io/control-plane": ""}}, "spec": {"unschedulable": true}, "status": {"conditions": [{"type": "Ready", "status": "True"}], "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}], "nodeInfo": {"kubeletVersion": "v1.33.0", "osImage": "Debian", "kernelVersion": "6.1", "containerRuntimeVersion": "containerd://2.0", "machineID": "m", "systemUUID": "u", "bootID": "b", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}}),
        ),
        (
            "/api/v1/namespaces/default/events",
            json!({"metadata": {"name": "web-1.1"}, "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default", "fieldPath": "spec.containers{c}"}, "reason": "Pulled", "message": "Pulled image", "type": "Normal", "count": 3, "source": {"component": "kubelet", "host": "node-1"}, "firstTimestamp": "2023-11-14T22:10:00Z", "lastTimestamp": "2023-11-14T22:12:00Z"}),
        ),
        (
            "/api/v1/namespaces/default/endpoints",
            json!({"metadata": {"name": "web"}, "subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}, {"port": 443}]}]}),
        ),
        (
            "/api/v1/persistentvolumes",
            json!({"metadata": {"name": "pv-1"}, "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "fast", "hostPath": {"path": "/data"}, "claimRef": {"namespace": "default", "name": "data"}}}),
        ),
        (
            "/api/v1/namespaces/default/persistentvolumeclaims",
            json!({"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "fast"}}),
        ),
        (
            "/api/v1/namespaces/default/limitranges",
            json!({"metadata": {"name": "defaults"}, "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            json!({"metadata": {"name": "web"}, "spec": {"replicas": 3, "selector": sel, "template": tpl}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/replicasets",
            json!({"metadata": {"name": "web-5d4"}, "spec": {"replicas": 2, "selector": sel, "template": tpl}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/statefulsets",
            json!({"metadata": {"name": "db"}, "spec": {"replicas": 1, "serviceName": "db", "selector": sel, "template": tpl}}),
        ),
        (
            "/apis/apps/v1/namespaces/default/daemonsets",
            json!({"metadata": {"name": "agent"}, "spec": {"selector": sel, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "a", "image": "agent"}]}}}}),
        ),
        (
            "/apis/batch/v1/namespaces/default/jobs",
            json!({"metadata": {"name": "once"}, "spec": {"completions": 3, "parallelism": 2, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "j", "image": "busybox"}]}}}}),
        ),
        (
            "/apis/batch/v1/namespaces/default/cronjobs",
            json!({"metadata": {"name": "nightly"}, "spec": {"schedule": "0 3 * * *", "timeZone": "Etc/UTC", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "j", "image": "busybox"}]}}}}}}),
        ),
        (
            "/apis/coordination.k8s.io/v1/namespaces/default/leases",
            json!({"metadata": {"name": "leader"}, "spec": {"holderIdentity": "node-1"}}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
            json!({"metadata": {"name": "reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
            json!({"metadata": {"name": "read"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}, "subjects": [{"kind": "User", "name": "ann", "apiGroup": "rbac.authorization.k8s.io"}, {"kind": "ServiceAccount", "name": "robot", "namespace": "default"}]}),
        ),
        ("/apis/rbac.authorization.k8s.io/v1/clusterroles", json!({"metadata": {"name": "viewer"}})),
        (
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
            json!({"metadata": {"name": "view"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "viewer"}, "subjects": [{"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        (
            "/apis/networking.k8s.io/v1/ingressclasses",
            json!({"metadata": {"name": "nginx"}, "spec": {"controller": "k8s.io/ingress-nginx"}}),
        ),
        (
            "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
            json!({"metadata": {"name": "web"}, "spec": {"ingressClassName": "nginx", "rules": [{"host": "web.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
        ),
        (
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            json!({"metadata": {"name": "batch"}, "value": 1000, "preemptionPolicy": "Never", "description": "Batch jobs."}),
        ),
        (
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"}, "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}),
        ),
    ]
}

/// Columns (name, type, priority) and each kind's row, one block per kind;
/// regenerate with UPDATE_GOLDEN=1.
#[test]
fn golden_tables_for_every_builtin_kind() {
    let mut s = server();
    let mut out = String::new();
    for (collection, body) in fixtures() {
        let r = call(&mut s, "POST", collection, Some(body.clone()));
        assert!(r.status == 201, "{collection}: {}", String::from_utf8_lossy(&r.body));
        s.advance(90_000);
        let name = body["metadata"]["name"].as_str().unwrap();
        let t = accept(&mut s, &format!("{collection}/{name}"), TABLE).json_body();
        assert_eq!(t["kind"], "Table", "{collection}");
        out.push_str(&format!("## {collection}\n"));
        for c in t["columnDefinitions"].as_array().unwrap() {
            let desc = c["description"].as_str().unwrap_or("");
            out.push_str(&format!(
                "  {} | {}{} | priority {} | {}\n",
                c["name"].as_str().unwrap(),
                c["type"].as_str().unwrap(),
                match c["format"].as_str().unwrap() {
                    "" => String::new(),
                    f => format!(" ({f})"),
                },
                c["priority"],
                desc.chars().take(60).collect::<String>().replace('\n', " "),
            ));
        }
        out.push_str(&format!("  row: {}\n", t["rows"][0]["cells"]));
        if let Some(c) = t["rows"][0].get("conditions") {
            out.push_str(&format!("  conditions: {c}\n"));
        }
    }
    let path = format!("{}/tests/golden/tables.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {path}; run with UPDATE_GOLDEN=1"));
    if want != out {
        let got = format!("{}/target/tables.got.txt", env!("CARGO_MANIFEST_DIR"));
        let _ = std::fs::write(&got, &out);
        panic!("tables differ from {path}; got written to {got}");
    }
}

/// The protobuf bytes of a fixed object, pinned: a change to the encoder
/// or the message layouts shows up here (regenerate with UPDATE_GOLDEN=1).
#[test]
fn golden_protobuf_bytes() {
    let mut s = server();
    let (collection, body) = fixtures().into_iter().find(|(c, _)| c.ends_with("/deployments")).unwrap();
    call(&mut s, "POST", collection, Some(body));
    let r = accept(&mut s, &format!("{collection}/web"), PROTOBUF);
    let mut hex = String::new();
    for (i, chunk) in r.body.chunks(16).enumerate() {
        hex.push_str(&format!("{:06x}  ", i * 16));
        for b in chunk {
            hex.push_str(&format!("{b:02x} "));
        }
        hex.push_str(&" ".repeat((16 - chunk.len()) * 3));
        hex.push(' ');
        hex.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }));
        hex.push('\n');
    }
    let path = format!("{}/tests/golden/deployment.pb.hex", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, &hex).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {path}; run with UPDATE_GOLDEN=1"));
    assert_eq!(want, hex, "protobuf bytes changed; regenerate with UPDATE_GOLDEN=1 if intended");
}

/// The items of a built-in kind's list carry no `kind` or `apiVersion`
/// (kube-apiserver's encoder types only the list), in JSON, YAML and
/// protobuf alike; a single object, each watch event's object and each
/// PartialObjectMetadataList item do carry theirs.
#[test]
fn typed_list_items_are_untyped_but_watch_events_and_metadata_items_are_typed() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let cm = "/api/v1/namespaces/default/configmaps";
    let list = get(&mut s, cm).json_body();
    assert_eq!(list["kind"], "ConfigMapList");
    let item = list["items"][0].as_object().unwrap();
    assert!(!item.contains_key("kind") && !item.contains_key("apiVersion"), "{item:?}");
    assert_eq!(item.keys().next().map(String::as_str), Some("metadata"));
    let yaml = accept(&mut s, cm, "application/yaml");
    let text = String::from_utf8_lossy(&yaml.body);
    assert!(text.starts_with("apiVersion: v1\nitems:\n- data:"), "{text}");
    assert_eq!(text.matches("kind:").count(), 1, "only the list is typed: {text}");
    // deletecollection answers a list too.
    let dc = call(&mut s, "DELETE", &format!("{cm}?dryRun=All"), None).json_body();
    assert!(dc["items"][0].get("kind").is_none(), "{dc}");
    // One object, and watch events, carry their type.
    assert_eq!(get(&mut s, &format!("{cm}/a")).json_body()["kind"], "ConfigMap");
    let w = get(&mut s, &format!("{cm}?watch=1"));
    assert_eq!(common::events(&w)[0].1["kind"], "ConfigMap");
    // PartialObjectMetadataList items are typed.
    let pom = accept(&mut s, cm, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").json_body();
    assert_eq!(pom["items"][0]["kind"], "PartialObjectMetadata");
    assert_eq!(pom["items"][0]["apiVersion"], "meta.k8s.io/v1");
}
