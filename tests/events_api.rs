//! Events through both APIs over one storage: what an event written
//! through one looks like through the other, each API's validation and
//! field labels, watches, tables and protobuf of events.k8s.io/v1.

mod common;
use common::*;
use kubesim::server::{Request, Served, Server};
use serde_json::{json, Value};

const CORE: &str = "/api/v1/namespaces/default/events";
const V1: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// An event as client-go's legacy recorder posts it.
fn core_event(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "u-1", "apiVersion": "v1"},
        "reason": "Pulled", "message": "Container image \"nginx\" already present on machine",
        "source": {"component": "kubelet", "host": "worker-1"},
        "firstTimestamp": "2023-11-14T22:13:20Z", "lastTimestamp": "2023-11-14T22:13:20Z", "count": 1,
        "type": "Normal", "reportingComponent": "kubelet", "reportingInstance": "worker-1"})
}

/// An event as client-go's events.k8s.io recorder (the scheduler's) posts it.
fn v1_event(name: &str) -> Value {
    json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "eventTime": "2023-11-14T22:13:20.123456Z",
        "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-host",
        "action": "Binding", "reason": "Scheduled",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "u-1", "apiVersion": "v1"},
        "note": "Successfully assigned default/web to worker-1", "type": "Normal"})
}

fn created(s: &mut Server, target: &str, body: Value) -> Value {
    let r = call(s, "POST", target, Some(body));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    r.json_body()
}

#[test]
fn a_core_event_reads_through_events_k8s_io_with_its_fields_renamed() {
    let mut s = server();
    let core = created(&mut s, CORE, core_event("web.1"));
    let r = get(&mut s, &format!("{V1}/web.1"));
    assert_eq!(r.status, 200);
    let v1 = r.json_body();
    assert_eq!(v1["apiVersion"], "events.k8s.io/v1");
    assert_eq!(v1["metadata"], core["metadata"], "one object: same uid, same resourceVersion");
    assert_eq!(v1["regarding"], core["involvedObject"]);
    assert_eq!(v1["note"], core["message"]);
    assert_eq!(v1["deprecatedSource"], json!({"component": "kubelet", "host": "worker-1"}));
    assert_eq!(v1["deprecatedFirstTimestamp"], "2023-11-14T22:13:20Z");
    assert_eq!(v1["deprecatedCount"], 1);
    assert_eq!(v1["eventTime"], Value::Null, "written though zero, as Go writes a MicroTime");
    assert!(v1.get("series").is_none() && v1.get("message").is_none() && v1.get("involvedObject").is_none());
    let keys: Vec<&str> = v1.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "kind",
            "apiVersion",
            "metadata",
            "eventTime",
            "reportingController",
            "reportingInstance",
            "reason",
            "regarding",
            "note",
            "type",
            "deprecatedSource",
            "deprecatedFirstTimestamp",
            "deprecatedLastTimestamp",
            "deprecatedCount"
        ],
        "events.k8s.io/v1's field order"
    );
    let list = get(&mut s, V1).json_body();
    assert_eq!(list["kind"], "EventList");
    assert_eq!(list["apiVersion"], "events.k8s.io/v1");
    assert_eq!(list["items"][0]["note"], core["message"]);
}

#[test]
fn an_events_k8s_io_event_reads_through_core_with_go_zero_fields() {
    let mut s = server();
    let v1 = created(&mut s, V1, v1_event("web.2"));
    assert_eq!(v1["apiVersion"], "events.k8s.io/v1", "answered in the API it was written through");
    assert_eq!(v1["deprecatedSource"], json!({}));
    let core = get(&mut s, &format!("{CORE}/web.2")).json_body();
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["involvedObject"]["name"], "web");
    assert_eq!(core["message"], "Successfully assigned default/web to worker-1");
    assert_eq!(core["reportingComponent"], "default-scheduler");
    assert_eq!(core["source"], json!({}));
    assert_eq!((&core["firstTimestamp"], &core["lastTimestamp"]), (&Value::Null, &Value::Null));
    assert!(core.get("count").is_none());
    assert_eq!(core["eventTime"], "2023-11-14T22:13:20.123456Z");
    assert_eq!(core["metadata"]["uid"], v1["metadata"]["uid"]);
    // Either API deletes it.
    assert_eq!(call(&mut s, "DELETE", &format!("{V1}/web.2"), None).status, 200);
    assert_eq!(get(&mut s, &format!("{CORE}/web.2")).status, 404);
}

#[test]
fn field_selectors_use_each_apis_labels() {
    let mut s = server();
    created(&mut s, CORE, core_event("web.1"));
    let mut other = core_event("db.1");
    other["involvedObject"]["name"] = json!("db");
    created(&mut s, CORE, other);
    let picked = |s: &mut Server, target: &str| names(&get(s, target).json_body());
    assert_eq!(picked(&mut s, &format!("{V1}?fieldSelector=regarding.name%3Dweb")), ["web.1"]);
    assert_eq!(picked(&mut s, &format!("{CORE}?fieldSelector=involvedObject.name%3Ddb")), ["db.1"]);
    assert_eq!(picked(&mut s, &format!("{V1}?fieldSelector=reportingController%3Dkubelet")).len(), 2);
    assert_eq!(picked(&mut s, &format!("{V1}?fieldSelector=source%3Dkubelet,reason%3DPulled")).len(), 2);
    for (target, label) in [
        (format!("{V1}?fieldSelector=involvedObject.name%3Dweb"), "involvedObject.name"),
        (format!("{V1}?fieldSelector=note%3Dx"), "note"),
        (format!("{CORE}?fieldSelector=regarding.name%3Dweb"), "regarding.name"),
    ] {
        let r = get(&mut s, &target);
        assert_eq!((r.status, message(&r)), (400, format!("field label not supported: {label}")), "{target}");
    }
}

#[test]
fn events_k8s_io_creates_need_an_event_time_a_type_and_no_deprecated_fields() {
    let mut s = server();
    let mut old_style = v1_event("a");
    for k in ["eventTime", "reportingController", "reportingInstance", "action"] {
        old_style.as_object_mut().unwrap().remove(k);
    }
    let r = call(&mut s, "POST", V1, Some(old_style));
    assert_eq!(
        (r.status, message(&r)),
        (422, "Event.events.k8s.io \"a\" is invalid: eventTime: Required value".into())
    );

    let mut bare = v1_event("b");
    for k in ["reportingController", "reportingInstance", "action", "type"] {
        bare.as_object_mut().unwrap().remove(k);
    }
    bare["deprecatedCount"] = json!(3);
    bare["deprecatedSource"] = json!({"component": "x"});
    let r = call(&mut s, "POST", V1, Some(bare));
    assert_eq!(r.status, 422);
    let causes: Vec<String> = r.json_body()["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}: {}", c["field"].as_str().unwrap(), c["message"].as_str().unwrap()))
        .collect();
    assert_eq!(causes[0], "reportingController: Required value");
    assert_eq!(causes[1], "reportingController: Invalid value: \"\": name part must be non-empty");
    assert!(causes[2].starts_with("reportingController: Invalid value: \"\": name part must consist of"));
    assert_eq!(
        causes[3..],
        [
            "reportingInstance: Required value",
            "action: Required value",
            "type: Invalid value: \"\": has invalid value: ",
            "count: Invalid value: \"\": needs to be unset",
            "source: Invalid value: \"\": needs to be unset"
        ]
    );
    // The same object through core/v1: only the legacy rules, named as
    // that API names the field.
    let mut through_core = v1_event("c");
    through_core.as_object_mut().unwrap().remove("reportingController");
    let conv = json!({"apiVersion": "v1", "kind": "Event", "metadata": through_core["metadata"],
        "involvedObject": through_core["regarding"], "reason": "Scheduled", "eventTime": through_core["eventTime"],
        "reportingInstance": "i", "action": "Binding", "type": "Custom"});
    let r = call(&mut s, "POST", CORE, Some(conv));
    assert_eq!(r.status, 422);
    assert!(
        message(&r).starts_with("Event \"c\" is invalid: [reportingComponent: Required value, "),
        "{}",
        message(&r)
    );
}

#[test]
fn both_apis_check_the_event_namespace_against_its_object() {
    let mut s = server();
    let mut e = core_event("x");
    e["involvedObject"]["namespace"] = json!("other");
    let r = call(&mut s, "POST", CORE, Some(e));
    assert_eq!(
        (r.status, message(&r)),
        (422, "Event \"x\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace".into())
    );
    // A node's event (no namespace) belongs in default.
    let mut node = core_event("n");
    node["involvedObject"] = json!({"kind": "Node", "name": "worker-1"});
    created(&mut s, CORE, node);
}

#[test]
fn through_events_k8s_io_only_the_series_changes_and_core_may_change_anything() {
    let mut s = server();
    created(&mut s, V1, v1_event("web.3"));
    let patch = |s: &mut Server, target: &str, body: &str| {
        s.handle(
            Request::new("PATCH", target)
                .with_header("Content-Type", "application/strategic-merge-patch+json")
                .with_body(body.as_bytes().to_vec()),
        )
    };
    // The recorder's second occurrence.
    let r = patch(
        &mut s,
        &format!("{V1}/web.3"),
        r#"{"series":{"count":2,"lastObservedTime":"2023-11-14T22:14:00.000000Z"}}"#,
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["series"]["count"], 2);
    let r = patch(&mut s, &format!("{V1}/web.3"), r#"{"series":{"count":1}}"#);
    assert_eq!(
        (r.status, message(&r)),
        (
            422,
            "Event.events.k8s.io \"web.3\" is invalid: series.count: Invalid value: \"\": should be at least 2".into()
        )
    );
    let r = patch(&mut s, &format!("{V1}/web.3"), r#"{"note":"other","regarding":{"name":"db"}}"#);
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "Event.events.k8s.io \"web.3\" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:\"Pod\", \
         Namespace:\"default\", Name:\"db\", UID:\"u-1\", APIVersion:\"v1\", ResourceVersion:\"\", FieldPath:\"\"}: \
         field is immutable, message: Invalid value: \"other\": field is immutable]"
    );
    // core/v1 updates are checked by the legacy rules only.
    let r = patch(&mut s, &format!("{CORE}/web.3"), r#"{"message":"other"}"#);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(get(&mut s, &format!("{V1}/web.3")).json_body()["note"], "other");
}

#[test]
fn a_watch_through_events_k8s_io_sees_core_writes_converted() {
    let mut s = server();
    let head = s.revision().0;
    let mut w = match s.serve(Request::new("GET", &format!("{V1}?watch=1&resourceVersion={head}"))) {
        Served::Watch(_, w) => w,
        Served::Response(r) | Served::Log(r, _) => panic!("{}", String::from_utf8_lossy(&r.body)),
    };
    created(&mut s, CORE, core_event("web.1"));
    assert_eq!(call(&mut s, "DELETE", &format!("{CORE}/web.1"), None).status, 200);
    let evs = s.poll_watch(&mut w, 10);
    let got: Vec<(&str, Value)> = evs
        .iter()
        .map(|e| (e.event_type.as_str(), serde_json::from_slice::<Value>(e.object_json()).unwrap()))
        .collect();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].0, got[1].0), ("ADDED", "DELETED"));
    for (_, o) in &got {
        assert_eq!((&o["apiVersion"], &o["regarding"]["name"]), (&json!("events.k8s.io/v1"), &json!("web")));
    }
}

#[test]
fn tables_of_either_api_print_the_same_rows() {
    let mut s = server();
    created(&mut s, CORE, core_event("web.1"));
    created(&mut s, V1, v1_event("web.2"));
    let table = |s: &mut Server, target: &str| {
        let r =
            s.handle(Request::new("GET", target).with_header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"));
        assert_eq!(r.status, 200);
        let t = r.json_body();
        t["rows"].as_array().unwrap().iter().map(|row| row["cells"].clone()).collect::<Vec<Value>>()
    };
    let (a, b) = (table(&mut s, CORE), table(&mut s, V1));
    assert_eq!(a, b);
    assert_eq!(a[1][5], "default-scheduler, default-scheduler-host", "the reporter stands in for the source");
}

#[test]
fn events_k8s_io_speaks_protobuf() {
    let mut s = server();
    created(&mut s, V1, v1_event("web.2"));
    let r = s.handle(
        Request::new("GET", &format!("{V1}/web.2")).with_header("Accept", "application/vnd.kubernetes.protobuf"),
    );
    assert_eq!(r.status, 200);
    use prost::Message;
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown::decode(&r.body[4..]).unwrap();
    assert_eq!(unknown.type_meta.as_ref().and_then(|t| t.api_version.clone()).as_deref(), Some("events.k8s.io/v1"));
    let e = k8s_pb::api::events::v1::Event::decode(unknown.raw.as_deref().unwrap()).unwrap();
    assert_eq!(e.note.as_deref(), Some("Successfully assigned default/web to worker-1"));
    assert_eq!(e.regarding.and_then(|r| r.name).as_deref(), Some("web"));
}
