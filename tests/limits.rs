//! Upstream's size limits, with upstream's answers: a ConfigMap's or a
//! Secret's values over 1 MiB, an object larger than etcd takes in one
//! request (tried again without its managed fields, as kube-apiserver
//! tries it, except for apply), and a JSON patch of more than 10,000
//! operations; at most ten managers of Updates in `managedFields`; and
//! pathological bodies and selectors answered, not hung on.

mod common;
use common::*;
use kubesim::server::{Request, Response, Server};
use serde_json::{json, Map, Value};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

fn body(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

/// A ConfigMap with `keys` keys of `len` bytes of value each.
fn config_map(name: &str, keys: usize, len: usize) -> Value {
    let data: Map<String, Value> = (0..keys).map(|i| (format!("k{i:05}"), json!("v".repeat(len)))).collect();
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

fn send(s: &mut Server, method: &str, target: &str, ct: &str, body: &Value) -> Response {
    s.handle(Request::new(method, target).with_header("Content-Type", ct).with_body(serde_json::to_vec(body).unwrap()))
}

const PODS: &str = "/api/v1/namespaces/default/pods";

/// A pod whose container carries two environment values of `len` bytes.
fn pod(name: &str, len: usize) -> Value {
    let env: Vec<Value> = (0..2).map(|i| json!({"name": format!("E{i}"), "value": "x".repeat(len)})).collect();
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx", "env": env}]}})
}

#[test]
fn an_object_larger_than_etcd_takes_is_etcd_s_500_and_nothing_is_written() {
    let mut s = server();
    let before = s.revision();
    // 1.6 MiB of environment.
    let r = send(&mut s, "POST", PODS, "application/json", &pod("big", 800 * 1024));
    assert_eq!(r.status, 500, "{}", String::from_utf8_lossy(&r.body[..r.body.len().min(300)]));
    let st = body(&r);
    assert_eq!(st["message"], "etcdserver: request is too large");
    assert!(st.get("reason").is_none(), "upstream's reason is empty: {st}");
    assert_eq!(s.revision(), before, "nothing was written");
    assert_eq!(get(&mut s, &format!("{PODS}/big")).status, 404);

    // An update past the limit leaves the stored object as it was (an
    // image, what a pod's update may change).
    assert_eq!(send(&mut s, "POST", PODS, "application/json", &pod("grows", 10)).status, 201);
    let big_image = json!({"spec": {"containers": [{"name": "c", "image": "x".repeat(1600 * 1024)}]}});
    let r = send(&mut s, "PATCH", &format!("{PODS}/grows"), "application/strategic-merge-patch+json", &big_image);
    assert_eq!((r.status, body(&r)["message"].clone()), (500, json!("etcdserver: request is too large")));
    let stored = body(&get(&mut s, &format!("{PODS}/grows")));
    assert_eq!(stored["spec"]["containers"][0]["image"], "nginx");
}

#[test]
fn config_map_and_secret_values_over_1_mib_are_invalid_as_upstream_says() {
    let mut s = server();
    let r = send(&mut s, "POST", CMS, "application/json", &config_map("big", 2, 600 * 1024));
    assert_eq!(r.status, 422);
    let st = body(&r);
    assert_eq!(st["message"], r#"ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes"#);
    assert_eq!(st["details"]["causes"][0]["field"], "[]");
    // Exactly 1 MiB is allowed: values count, keys do not.
    assert_eq!(send(&mut s, "POST", CMS, "application/json", &config_map("full", 1, 1024 * 1024)).status, 201);
    // binaryData counts the bytes its base64 decodes to: 1,048,575 bytes
    // (1.33 MiB of base64) are allowed.
    let b64 = "QUJD".repeat(1024 * 1024 / 3);
    let bin = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bin"}, "binaryData": {"b": b64}});
    assert_eq!(send(&mut s, "POST", CMS, "application/json", &bin).status, 201);

    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "stringData": {"a": "x".repeat(600 * 1024), "b": "y".repeat(600 * 1024)}});
    let r = send(&mut s, "POST", "/api/v1/namespaces/default/secrets", "application/json", &secret);
    assert_eq!(r.status, 422);
    assert_eq!(body(&r)["message"], r#"Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes"#);
}

#[test]
fn managed_fields_that_push_an_object_past_the_limit_are_dropped_except_by_apply() {
    let mut s = server();
    // 65,000 small keys: ~0.9 MB of data, and as much again of FieldsV1
    // naming each key.
    let cm = config_map("wide", 65_000, 1);
    let r = send(&mut s, "POST", CMS, "application/json", &cm);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body[..r.body.len().min(300)]));
    let created = body(&r);
    assert!(created["metadata"].get("managedFields").is_none(), "written without its managed fields");
    assert_eq!(created["data"].as_object().map(Map::len), Some(65_000));

    // Server-side apply keeps its managed fields, so it is refused.
    let mut applied = config_map("applied", 65_000, 1);
    applied["metadata"]["namespace"] = json!("default");
    let r =
        send(&mut s, "PATCH", &format!("{CMS}/applied?fieldManager=test"), "application/apply-patch+yaml", &applied);
    assert_eq!((r.status, body(&r)["message"].clone()), (500, json!("etcdserver: request is too large")));
    assert_eq!(get(&mut s, &format!("{CMS}/applied")).status, 404);

    // A merge patch is an update: tried again without managed fields.
    assert_eq!(send(&mut s, "POST", CMS, "application/json", &config_map("patched", 1, 1)).status, 201);
    let r = send(&mut s, "PATCH", &format!("{CMS}/patched"), "application/merge-patch+json", &cm_data(65_000));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body[..r.body.len().min(300)]));
    assert!(body(&r)["metadata"].get("managedFields").is_none());
}

fn cm_data(keys: usize) -> Value {
    let data: Map<String, Value> = (0..keys).map(|i| (format!("k{i:05}"), json!("v"))).collect();
    json!({"data": data})
}

#[test]
fn a_json_patch_of_more_than_10000_operations_is_413() {
    let mut s = server();
    assert_eq!(send(&mut s, "POST", CMS, "application/json", &config_map("p", 1, 1)).status, 201);
    let ops = |n: usize| Value::Array(vec![json!({"op": "test", "path": "/metadata/name", "value": "p"}); n]);
    let r = send(&mut s, "PATCH", &format!("{CMS}/p"), "application/json-patch+json", &ops(10_001));
    assert_eq!(r.status, 413);
    let st = body(&r);
    assert_eq!(st["reason"], "RequestEntityTooLarge");
    assert_eq!(
        st["message"],
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
    );
    let r = send(&mut s, "PATCH", &format!("{CMS}/p"), "application/json-patch+json", &ops(10_000));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
}

/// Twelve managers each updating a key of one ConfigMap, and one applier:
/// the Update entries are capped at ten by merging the oldest into
/// `ancient-changes` (upstream's `capManagersManager`); the Apply entry
/// is never merged.
#[test]
fn more_than_ten_update_managers_are_merged_into_ancient_changes() {
    let mut s = server();
    let apply =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "many"}, "data": {"applied": "x"}});
    let r = send(&mut s, "PATCH", &format!("{CMS}/many?fieldManager=applier"), "application/apply-patch+yaml", &apply);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    for i in 0..12 {
        let patch = json!({"data": {format!("k{i:02}"): "v"}});
        let r =
            send(&mut s, "PATCH", &format!("{CMS}/many?fieldManager=m{i:02}"), "application/merge-patch+json", &patch);
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let entries = body(&get(&mut s, &format!("{CMS}/many")))["metadata"]["managedFields"].clone();
        let updates = entries.as_array().unwrap().iter().filter(|e| e["operation"] == "Update").count();
        assert_eq!(updates, (i + 1).min(10), "after m{i:02}: {entries}");
    }
    let cm = body(&get(&mut s, &format!("{CMS}/many")));
    let entries = cm["metadata"]["managedFields"].as_array().unwrap().clone();
    let managers: Vec<&str> = entries.iter().map(|e| e["manager"].as_str().unwrap()).collect();
    // m00, m01 and m02 became one entry; m03..m11 stay as they were.
    let mut expected = vec!["applier", "ancient-changes"];
    let rest: Vec<String> = (3..12).map(|i| format!("m{i:02}")).collect();
    expected.extend(rest.iter().map(String::as_str));
    assert_eq!(managers, expected, "{entries:?}");
    let ancient = &entries[1];
    assert_eq!(ancient["operation"], "Update");
    assert_eq!(ancient["apiVersion"], "v1");
    let owned: Vec<&String> = ancient["fieldsV1"]["f:data"].as_object().unwrap().keys().collect();
    assert_eq!(owned, ["f:k00", "f:k01", "f:k02"]);
    assert_eq!(entries[0]["fieldsV1"]["f:data"].as_object().unwrap().keys().collect::<Vec<_>>(), ["f:applied"]);
    // One more: merged into the existing bucket.
    let patch = json!({"data": {"k12": "v"}});
    let r = send(&mut s, "PATCH", &format!("{CMS}/many?fieldManager=m12"), "application/merge-patch+json", &patch);
    assert_eq!(r.status, 200);
    let cm = body(&get(&mut s, &format!("{CMS}/many")));
    let entries = cm["metadata"]["managedFields"].as_array().unwrap();
    let updates: Vec<&str> =
        entries.iter().filter(|e| e["operation"] == "Update").map(|e| e["manager"].as_str().unwrap()).collect();
    assert_eq!(updates.len(), 10, "{entries:?}");
    assert_eq!(updates[0], "ancient-changes");
    assert!(!updates.contains(&"m03"), "{updates:?}");
    let owned: Vec<&String> = entries[1]["fieldsV1"]["f:data"].as_object().unwrap().keys().collect();
    assert_eq!(owned, ["f:k00", "f:k01", "f:k02", "f:k03"]);
}

/// Sends raw bytes; the answer, and how long it took (printed, never
/// asserted: `BENCHMARKS.md` has the figures).
fn timed(s: &mut Server, method: &str, target: &str, ct: &str, body: Vec<u8>) -> Response {
    let started = std::time::Instant::now();
    let r = s.handle(Request::new(method, target).with_header("Content-Type", ct).with_body(body));
    eprintln!("{method} {ct} {}: {} in {:?}", &target[..target.len().min(60)], r.status, started.elapsed());
    r
}

/// `prefix`, then `n` of `[`, `n` of `]`, then `suffix`.
fn nested(prefix: &str, n: usize, suffix: &str) -> Vec<u8> {
    let mut b = prefix.as_bytes().to_vec();
    b.extend(std::iter::repeat_n(b'[', n));
    b.extend(std::iter::repeat_n(b']', n));
    b.extend(suffix.as_bytes());
    b
}

/// A 3 MiB body of nested arrays, as JSON, YAML and every kind of patch;
/// selectors of 10,000 terms; a strategic merge patch of 10,000
/// directives. Each is answered at once (`cargo test --release --test
/// limits pathological -- --nocapture` prints how fast).
#[test]
fn pathological_bodies_and_selectors_are_answered() {
    let mut s = server();
    let n = 3 * 1024 * 1024 / 2 - 200;
    let head = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":"#;
    let r = timed(&mut s, "POST", CMS, "application/json", nested(head, n, "}"));
    assert_eq!((r.status, reason(&r)), (400, "BadRequest".to_string()));
    // YAML: refused before parsing, as go-yaml refuses flow nesting past
    // 10,000 (a libyaml-style scanner is quadratic in the depth).
    let yaml = nested("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: ", n, "\n");
    let r = timed(&mut s, "POST", CMS, "application/yaml", yaml);
    assert_eq!(r.status, 400);
    let message = body(&r)["message"].as_str().unwrap_or("").to_string();
    assert!(
        message.starts_with(
            "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: \
             yaml: line 5: exceeded max depth of 10000"
        ),
        "{message}"
    );
    assert_eq!(send(&mut s, "POST", CMS, "application/json", &config_map("p", 1, 1)).status, 201);
    let item = format!("{CMS}/p");
    for ct in ["application/merge-patch+json", "application/strategic-merge-patch+json"] {
        let r = timed(&mut s, "PATCH", &item, ct, nested(r#"{"data":"#, n, "}"));
        assert_eq!((r.status, reason(&r)), (400, "BadRequest".to_string()), "{ct}");
    }
    let r = timed(
        &mut s,
        "PATCH",
        &item,
        "application/json-patch+json",
        nested(r#"[{"op":"add","path":"/data/x","value":"#, n, "}]"),
    );
    assert_eq!(r.status, 400);
    let r =
        timed(&mut s, "PATCH", &format!("{item}?fieldManager=a"), "application/apply-patch+yaml", nested("", n, ""));
    assert_eq!(r.status, 400);
    assert_eq!(
        body(&r)["message"],
        "error decoding YAML: error converting YAML to JSON: yaml: line 1: exceeded max depth of 10000"
    );
    // Brackets in a quoted scalar are text, not nesting.
    let quoted = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: brackets # [[[\ndata:\n  k: '{}'\n",
        "[".repeat(20_000)
    );
    let r = timed(&mut s, "POST", CMS, "application/yaml", quoted.into_bytes());
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));

    // Selectors of 10,000 terms.
    let labels: Vec<String> = (0..10_000).map(|i| format!("k{i}=v")).collect();
    let r = timed(&mut s, "GET", &format!("/api/v1/pods?labelSelector={}", labels.join(",")), "", Vec::new());
    assert_eq!(r.status, 200);
    let fields: Vec<String> = (0..10_000).map(|i| format!("metadata.name!=n{i}")).collect();
    let r = timed(&mut s, "GET", &format!("{CMS}?fieldSelector={}", fields.join(",")), "", Vec::new());
    assert_eq!((r.status, body(&r)["items"].as_array().map(Vec::len)), (200, Some(2)));

    // A strategic merge patch of 10,000 directives.
    assert_eq!(send(&mut s, "POST", PODS, "application/json", &pod("pp", 1)).status, 201);
    let finalizers: Vec<String> = (0..10_000).map(|i| format!("example.com/f{i}")).collect();
    let deletes: Vec<Value> = (0..10_000).map(|i| json!({"name": format!("c{i}"), "$patch": "delete"})).collect();
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": finalizers},
        "spec": {"containers": deletes}});
    let r = timed(
        &mut s,
        "PATCH",
        &format!("{PODS}/pp"),
        "application/strategic-merge-patch+json",
        serde_json::to_vec(&patch).unwrap(),
    );
    assert!(matches!(r.status, 200 | 422), "{}", String::from_utf8_lossy(&r.body[..r.body.len().min(300)]));
}
