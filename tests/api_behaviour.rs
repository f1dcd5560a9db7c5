//! Behaviour of the verbs beyond the resourceVersion tables, each test named
//! after what it pins.

mod common;
use common::*;
use kubesim::server::{Request, Served, Server, ServerConfig};
use serde_json::json;

fn open(s: &mut Server, target: &str) -> kubesim::server::WatchStream {
    match s.serve(Request::new("GET", target)) {
        Served::Watch(_, w) => w,
        Served::Response(r) | Served::Log(r, _) => panic!("{}", String::from_utf8_lossy(&r.body)),
    }
}

fn types(evs: &[kubesim::server::WatchEvent]) -> Vec<&'static str> {
    evs.iter().map(|e| e.event_type.as_str()).collect()
}

#[test]
fn objects_entering_and_leaving_a_selector_are_added_and_deleted() {
    let mut s = server();
    create_cm(&mut s, "a", json!({"app": "web"}));
    let head = s.revision().0;
    let mut w = open(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={head}&labelSelector=app%3Dweb"),
    );
    let patch = |s: &mut Server, app: &str| {
        let r = s.handle(
            Request::new("PATCH", "/api/v1/namespaces/default/configmaps/a")
                .with_header("Content-Type", "application/merge-patch+json")
                .with_body(format!("{{\"metadata\":{{\"labels\":{{\"app\":\"{app}\"}}}}}}").into_bytes()),
        );
        assert_eq!(r.status, 200);
        rv(&r.json_body())
    };
    let left = patch(&mut s, "db");
    let back = patch(&mut s, "web");
    let evs = s.poll_watch(&mut w, 10);
    assert_eq!(types(&evs), ["DELETED", "ADDED"]);
    let deleted: serde_json::Value = serde_json::from_slice(evs[0].object_json()).unwrap();
    assert_eq!(deleted["metadata"]["labels"]["app"], "web", "the previous content");
    assert_eq!(rv(&deleted), left, "stamped with the event's revision");
    assert_eq!(evs[1].resource_version().unwrap(), back);
}

#[test]
fn bookmarks_follow_the_simulated_clock_and_timeouts_end_watches() {
    let mut s = server();
    let mut w = open(
        &mut s,
        "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=150",
    );
    assert!(s.poll_watch(&mut w, 10).is_empty());
    s.advance(59_000);
    assert!(s.poll_watch(&mut w, 10).is_empty(), "not yet due");
    s.advance(1_000);
    let evs = s.poll_watch(&mut w, 10);
    assert_eq!(types(&evs), ["BOOKMARK"]);
    assert_eq!(evs[0].resource_version().unwrap(), s.revision().to_string());
    assert!(!w.is_done());
    s.advance(90_000);
    let evs = s.poll_watch(&mut w, 10);
    assert_eq!(types(&evs), ["BOOKMARK"]);
    assert!(w.is_done(), "timeoutSeconds=150 has passed");
}

#[test]
fn a_watch_from_the_future_waits_for_its_revision() {
    let mut s = server();
    let future = s.revision().0 + 2;
    let mut w = open(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion={future}"),
    );
    s.advance(61_000);
    assert!(s.poll_watch(&mut w, 10).is_empty(), "no bookmark for a revision that does not exist yet");
    create_cm(&mut s, "a", json!({}));
    create_cm(&mut s, "b", json!({}));
    let evs = s.poll_watch(&mut w, 10);
    assert_eq!(
        types(&evs),
        ["BOOKMARK"],
        "both writes are at or before the requested revision; the overdue bookmark is sent once the head is there"
    );
    assert_eq!(evs[0].resource_version().unwrap(), future.to_string());
    create_cm(&mut s, "c", json!({}));
    assert_eq!(types(&s.poll_watch(&mut w, 10)), ["ADDED"]);
}

#[test]
fn a_watcher_too_far_behind_is_closed_with_an_error() {
    let mut s = Server::new(ServerConfig { watch_buffer: 5, ..Default::default() });
    let head = s.revision().0;
    let mut w = open(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={head}"));
    for i in 0..6 {
        create_cm(&mut s, &format!("c{i}"), json!({}));
    }
    let evs = s.poll_watch(&mut w, 100);
    assert_eq!(types(&evs), ["ERROR"]);
    let st: serde_json::Value = serde_json::from_slice(evs[0].object_json()).unwrap();
    assert_eq!((st["code"].as_i64(), st["reason"].as_str()), (Some(410), Some("Expired")));
    assert!(w.is_done());
    // Resuming from where it was is possible while history lasts.
    let mut again = open(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={head}"));
    assert_eq!(s.poll_watch(&mut again, 3).len(), 3);
}

#[test]
fn deletecollection_honours_selectors() {
    let mut s = server();
    create_cm(&mut s, "a", json!({"app": "web"}));
    create_cm(&mut s, "b", json!({"app": "db"}));
    let r = call(&mut s, "DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["kind"], "ConfigMapList");
    assert_eq!(names(&r.json_body()), ["a"]);
    assert_eq!(names(&get(&mut s, "/api/v1/namespaces/default/configmaps").json_body()), ["b"]);
}

#[test]
fn a_namespace_keeps_its_spec_finalizers_through_updates() {
    let mut s = server();
    call(&mut s, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "team"}})));
    let r = call(
        &mut s,
        "PUT",
        "/api/v1/namespaces/team",
        Some(json!({"metadata": {"name": "team", "labels": {"a": "b"}}})),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["spec"]["finalizers"], json!(["kubernetes"]), "only finalization removes them");
    assert_eq!(r.json_body()["metadata"]["labels"]["a"], "b");
}

#[test]
fn an_unknown_patch_media_type_is_refused_before_the_object_is_read() {
    let mut s = server();
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/configmaps/missing")
            .with_header("Content-Type", "application/json")
            .with_body(b"{}".to_vec()),
    );
    assert_eq!(r.status, 415, "as upstream's patch handler, before any read (not 404)");
    assert_eq!(r.json_body()["reason"], "UnsupportedMediaType");
}

#[test]
fn generation_counts_spec_changes_only() {
    let mut s = server();
    let d = json!({"metadata": {"name": "web"}, "spec": {"replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.json_body()["metadata"]["generation"], 1);
    assert_eq!(r.json_body()["status"], json!({}), "create starts from an empty status");
    let mut cur = r.json_body();
    cur["metadata"]["labels"] = json!({"a": "b"});
    let r = call(&mut s, "PUT", "/apis/apps/v1/namespaces/default/deployments/web", Some(cur));
    assert_eq!(r.json_body()["metadata"]["generation"], 1);
    let mut cur = r.json_body();
    cur["spec"]["replicas"] = json!(3);
    cur["status"] = json!({"replicas": 99});
    let r = call(&mut s, "PUT", "/apis/apps/v1/namespaces/default/deployments/web", Some(cur));
    assert_eq!(r.json_body()["metadata"]["generation"], 2);
    assert_eq!(r.json_body()["status"], json!({}), "the main resource ignores status");
    let mut cur = r.json_body();
    cur["status"] = json!({"replicas": 3});
    cur["spec"]["replicas"] = json!(7);
    let r = call(&mut s, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", Some(cur));
    assert_eq!(r.status, 200);
    let body = r.json_body();
    assert_eq!(
        (body["status"]["replicas"].as_i64(), body["spec"]["replicas"].as_i64()),
        (Some(3), Some(3)),
        "status ignores spec"
    );
    assert_eq!(body["metadata"]["generation"], 2);
}

#[test]
fn put_creates_where_upstream_allows_it() {
    let mut s = server();
    let lease = json!({"metadata": {"name": "l"}, "spec": {"holderIdentity": "me"}});
    let r = call(&mut s, "PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l", Some(lease));
    assert_eq!(r.status, 201);
    let r =
        call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps/nope", Some(json!({"metadata": {"name": "nope"}})));
    assert_eq!(r.status, 404);
}

#[test]
fn propagation_policies_add_gc_finalizers() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let r = call(&mut s, "DELETE", "/api/v1/namespaces/default/configmaps/a?propagationPolicy=Orphan", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["orphan"]));
    create_cm(&mut s, "b", json!({}));
    let r = call(
        &mut s,
        "DELETE",
        "/api/v1/namespaces/default/configmaps/b",
        Some(json!({"propagationPolicy": "Foreground"})),
    );
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    create_cm(&mut s, "c", json!({}));
    let r = call(
        &mut s,
        "DELETE",
        "/api/v1/namespaces/default/configmaps/c",
        Some(json!({"propagationPolicy": "Background"})),
    );
    assert_eq!(r.json_body()["status"], "Success");
    assert_eq!(r.json_body()["details"]["kind"], "configmaps");
}

#[test]
fn delete_preconditions_and_returned_objects() {
    let mut s = server();
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/default/pods",
        Some(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})),
    );
    let uid = r.json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let r = call(
        &mut s,
        "DELETE",
        "/api/v1/namespaces/default/pods/p",
        Some(json!({"preconditions": {"resourceVersion": "1"}})),
    );
    assert_eq!(r.status, 409);
    let r = call(&mut s, "DELETE", "/api/v1/namespaces/default/pods/p", Some(json!({"preconditions": {"uid": uid}})));
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["kind"], "Pod", "pods return the deleted object");
}

#[test]
fn a_scenario_replays_byte_for_byte() {
    let run = || {
        let mut s = server();
        let mut out = Vec::new();
        for i in 0..5 {
            let r = call(
                &mut s,
                "POST",
                "/api/v1/namespaces/default/configmaps",
                Some(json!({"metadata": {"generateName": "gen-"}, "data": {"i": i.to_string()}})),
            );
            out.extend(r.body);
            s.advance(1234);
        }
        out.extend(get(&mut s, "/api/v1/namespaces/default/configmaps?limit=2").body);
        out
    };
    assert_eq!(run(), run());
}

#[test]
fn wrong_methods_and_subresources_are_refused() {
    let mut s = server();
    assert_eq!(call(&mut s, "PUT", "/api/v1/namespaces/default/configmaps", None).status, 405);
    assert_eq!(call(&mut s, "POST", "/api/v1/namespaces/default/configmaps/x", None).status, 405);
    assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/x/status").status, 404);
    let r = call(&mut s, "DELETE", "/api/v1/namespaces", None);
    assert_eq!(r.status, 405, "namespaces serve no deletecollection");
    assert_eq!(r.json_body()["message"], "the server does not allow this method on the requested resource");
    let r = s.handle(Request::new("GET", "/api/v1/namespaces").with_header("Accept", "text/html"));
    assert_eq!((r.status, reason(&r).as_str()), (406, "NotAcceptable"));
    assert_eq!(
        r.json_body()["message"],
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
    );
    let r = s.handle(
        Request::new("GET", "/api/v1/namespaces")
            .with_header("Accept", "application/vnd.kubernetes.protobuf, application/json"),
    );
    assert_eq!(r.status, 200);
}

#[test]
fn label_keys_and_values_are_validated_on_objects() {
    let mut s = server();
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some(json!({"metadata": {"name": "x", "labels": {"a b": "ok", "good": "x,y=z"}}})),
    );
    assert_eq!(r.status, 422);
    let causes = r.json_body()["details"]["causes"].as_array().unwrap().clone();
    assert_eq!(causes.len(), 2, "every cause: {causes:?}");
    assert!(causes[0]["message"].as_str().unwrap().starts_with("Invalid value: \"a b\": name part must consist of"));
    assert!(causes[1]["message"].as_str().unwrap().starts_with("Invalid value: \"x,y=z\": a valid label must be"));
    assert!(causes.iter().all(|c| c["field"] == "metadata.labels"));
}

#[test]
fn paths_are_percent_decoded() {
    let mut s = server();
    let r = call(
        &mut s,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        Some(json!({"metadata": {"name": "system:viewer"}})),
    );
    assert_eq!(r.status, 201);
    assert_eq!(get(&mut s, "/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aviewer").status, 200);
    assert_eq!(get(&mut s, "/api/v1/namespaces/default/config%6Daps").status, 200);
}

#[test]
fn discovery_documents() {
    let mut s = server();
    let v = get(&mut s, "/version").json_body();
    assert_eq!((v["major"].as_str(), v["minor"].as_str()), (Some("1"), Some("33")));
    let core = get(&mut s, "/api/v1").json_body();
    let pods = core["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods").unwrap().clone();
    assert_eq!(pods["shortNames"], json!(["po"]));
    assert_eq!(pods["categories"], json!(["all"]));
    assert!(core["resources"].as_array().unwrap().iter().any(|r| r["name"] == "pods/status"));
    let groups = get(&mut s, "/apis").json_body();
    assert_eq!(groups["kind"], "APIGroupList");
    let agg = s.handle(Request::new("GET", "/apis").with_header(
        "Accept",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
    ));
    assert_eq!(
        agg.header("Content-Type"),
        Some("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    );
    let agg = agg.json_body();
    assert_eq!(agg["kind"], "APIGroupDiscoveryList");
    let apps = agg["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"] == "apps").unwrap().clone();
    let deploy = apps["versions"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "deployments")
        .unwrap()
        .clone();
    assert_eq!(deploy["scope"], "Namespaced");
    assert_eq!(deploy["subresources"][0]["subresource"], "scale", "in path order, as the installer sorts them");
    assert_eq!(get(&mut s, "/healthz").body, b"ok");
}

/// The health endpoints as `kubectl get --raw '/readyz?verbose'` shows
/// them, one check at a time under their paths, and 404 for a check the
/// endpoint does not have.
#[test]
fn health_endpoints_list_and_answer_their_checks() {
    let mut s = server();
    let text = |r: kubesim::server::Response| (r.status, String::from_utf8(r.body).unwrap());
    let (status, ready) = text(get(&mut s, "/readyz?verbose"));
    assert_eq!(status, 200);
    assert!(ready.starts_with("[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n"), "{ready}");
    assert!(ready.ends_with("[+]shutdown ok\nreadyz check passed\n"), "{ready}");
    let (_, live) = text(get(&mut s, "/livez?verbose&exclude=etcd"));
    assert!(live.contains("[+]etcd excluded: ok\n") && live.ends_with("livez check passed\n"), "{live}");
    assert_eq!(text(get(&mut s, "/readyz/ping")), (200, "ok".to_string()));
    assert_eq!(text(get(&mut s, "/livez/poststarthook/rbac/bootstrap-roles")), (200, "ok".to_string()));
    assert_eq!(get(&mut s, "/livez/shutdown").status, 404);
    assert_eq!(get(&mut s, "/readyz/nope").status, 404);
    // (Only under a health endpoint: `/api/ping` is no check.)
    assert_eq!(get(&mut s, "/api/ping").status, 404);
    assert_eq!(get(&mut s, "/version/log").status, 404);
}

#[test]
fn the_history_window_is_configurable() {
    let mut s = Server::new(ServerConfig { history_window_ms: 60_000, ..Default::default() });
    let first = create_cm(&mut s, "a", json!({}));
    s.advance(30_000);
    create_cm(&mut s, "b", json!({}));
    let r = get(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?resourceVersion={first}&resourceVersionMatch=Exact"),
    );
    assert_eq!(r.status, 200, "30 s old: still within a 1 minute window");
    s.advance(45_000);
    let r = get(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?resourceVersion={first}&resourceVersionMatch=Exact"),
    );
    assert_eq!(r.status, 200, "at 75 s the horizon (15 s) still sees revision {first}: it is the state then");
    s.advance(30_000);
    let r = get(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?resourceVersion={first}&resourceVersionMatch=Exact"),
    );
    assert_eq!(r.status, 410, "at 105 s the horizon (45 s) is past b's write: {first} is compacted");
}

#[test]
fn watching_one_object_by_its_url() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    create_cm(&mut s, "b", json!({}));
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps/a?watch=true");
    let evs = events(&r);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].1["metadata"]["name"], "a");
}

#[test]
fn streaming_lists_from_a_given_resource_version() {
    let mut s = server();
    let rv_a = create_cm(&mut s, "a", json!({}));
    create_cm(&mut s, "b", json!({}));
    let head = s.revision().0;
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion={rv_a}"));
    let evs = events(&r);
    assert_eq!(evs.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(), ["ADDED", "ADDED", "BOOKMARK"]);
    assert_eq!(rv(&evs[2].1), head.to_string(), "synced at least to the requested revision");
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion={}", head + 50));
    assert_eq!(r.status, 504);
    assert_eq!(r.header("Retry-After"), Some("1"));
}

#[test]
fn the_history_endpoint_lists_every_write_after_a_revision() {
    let mut s = Server::new(ServerConfig::default());
    let head = s.revision().0;
    let cm = "/api/v1/namespaces/default/configmaps";
    s.handle(Request::new("POST", cm).with_body(r#"{"metadata":{"name":"a"}}"#));
    s.handle(Request::new("POST", "/apis/apps/v1/namespaces/default/deployments").with_body(
        r#"{"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"#,
    ));
    s.handle(Request::new("DELETE", &format!("{cm}/a")));
    let r = s.handle(Request::new("GET", &format!("/debug/kubesim/history?after={head}")));
    assert_eq!(r.status, 200);
    let v = r.json_body();
    let got: Vec<String> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let f = |k: &str| e[k].as_str().unwrap().to_string();
            format!(
                "{} {} {}/{} {} {}/{}",
                f("revision"),
                f("type"),
                f("group"),
                f("version"),
                f("kind"),
                f("namespace"),
                f("name")
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            format!("{} ADDED /v1 ConfigMap default/a", head + 1),
            format!("{} ADDED apps/v1 Deployment default/d", head + 2),
            format!("{} DELETED /v1 ConfigMap default/a", head + 3),
        ]
    );
    // After compaction the answer starts at the horizon.
    s.compact(None);
    let v = s.handle(Request::new("GET", "/debug/kubesim/history?after=0")).json_body();
    assert_eq!(v["from"], json!((head + 3).to_string()));
    assert_eq!(v["events"], json!([]));
    assert_eq!(s.handle(Request::new("GET", "/debug/kubesim/history?after=x")).status, 400);
    assert_eq!(s.handle(Request::new("POST", "/debug/kubesim/history")).status, 400);
}

#[test]
fn yaml_bodies_in_and_yaml_answers_out() {
    let mut s = server();
    let cm = "/api/v1/namespaces/default/configmaps";
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: v\n";
    let r = s.handle(
        Request::new("POST", cm).with_header("Content-Type", "application/yaml").with_body(yaml.as_bytes().to_vec()),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["data"]["k"], "v");
    // Asked for YAML: the object, a list and an error come back as YAML.
    let r = s.handle(Request::new("GET", &format!("{cm}/y")).with_header("Accept", "application/yaml"));
    assert_eq!((r.status, r.header("Content-Type")), (200, Some("application/yaml")));
    let text = String::from_utf8(r.body.clone()).unwrap();
    assert!(text.starts_with("apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n"), "{text}");
    let r = s.handle(Request::new("GET", cm).with_header("Accept", "application/yaml"));
    assert!(String::from_utf8_lossy(&r.body).starts_with("apiVersion: v1\nitems:\n"));
    let r = s.handle(Request::new("GET", &format!("{cm}/nope")).with_header("Accept", "application/yaml"));
    assert_eq!(r.status, 404);
    assert!(String::from_utf8_lossy(&r.body).contains("reason: NotFound"));
    // Preference order and q-values decide; a watch is never YAML.
    let r = s.handle(Request::new("GET", cm).with_header("Accept", "application/yaml;q=0.5, application/json"));
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    let r = s.handle(Request::new("GET", &format!("{cm}?watch=true")).with_header("Accept", "application/yaml"));
    assert_eq!(r.status, 406);
    assert_eq!(r.json_body()["reason"], "NotAcceptable");
    // YAML duplicates follow fieldValidation; other body types are 415.
    let dup = "metadata:\n  name: z\ndata:\n  k: a\n  k: b\n";
    let r = s.handle(
        Request::new("POST", &format!("{cm}?fieldValidation=Strict"))
            .with_header("Content-Type", "application/yaml")
            .with_body(dup.as_bytes().to_vec()),
    );
    assert_eq!(r.status, 400);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .ends_with("strict decoding error: yaml: unmarshal errors:\n  line 5: key \"k\" already set in map"));
    let r = s.handle(
        Request::new("POST", cm)
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(vec![0x6b, 0x38, 0x73, 0, 0x0a, 0xff]),
    );
    assert_eq!(r.status, 400, "a truncated protobuf body is a bad request");
    let r = s.handle(Request::new("POST", cm).with_header("Content-Type", "application/cbor").with_body(vec![0xa0]));
    assert_eq!(r.status, 415);
    assert_eq!(reason(&r), "UnsupportedMediaType");
}

#[test]
fn secret_string_data_is_written_into_data_and_never_stored() {
    let mut s = server();
    let secret = json!({"metadata": {"name": "s"}, "data": {"a": "b2xk", "keep": "eA=="}, "stringData": {"a": "new", "b": "hi"}});
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/secrets", Some(secret));
    assert_eq!(r.status, 201);
    let body = r.json_body();
    assert_eq!(body["data"], json!({"a": "bmV3", "keep": "eA==", "b": "aGk="}));
    assert!(body.get("stringData").is_none(), "{body}");
    let fields = &body["metadata"]["managedFields"][0]["fieldsV1"];
    assert!(fields["f:data"]["f:b"].is_object() && fields.get("f:stringData").is_none(), "{fields}");
    // On update and patch too.
    let patch = json!({"stringData": {"c": "x"}});
    let r = s.handle(
        Request::new("PATCH", "/api/v1/namespaces/default/secrets/s")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(serde_json::to_vec(&patch).unwrap()),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["data"]["c"], "eA==");
    assert!(r.json_body().get("stringData").is_none());
}

#[test]
fn bodies_that_do_not_parse_are_unrecognized_objects_with_a_summary() {
    let mut s = server();
    let post = |s: &mut Server, ct: &str, body: &[u8]| {
        let r = s.handle(
            Request::new("POST", "/api/v1/namespaces/default/configmaps")
                .with_header("Content-Type", ct)
                .with_body(body.to_vec()),
        );
        assert_eq!((r.status, reason(&r)), (400, "BadRequest".to_string()));
        r.json_body()["message"].as_str().unwrap().to_string()
    };
    // JSON: the body shown as text (30 bytes, then " ...").
    assert_eq!(
        post(&mut s, "application/json", br#"{"apiVersion":"v1","kind":"ConfigMap","#),
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; \
         json parse error: unexpected end of JSON input ({\"apiVersion\":\"v1\",\"kind\":\"Con ...)"
    );
    assert_eq!(
        post(&mut s, "application/json", b""),
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; \
         json parse error: unexpected end of JSON input (<empty>)"
    );
    // Syntax errors in the words of Go's JSON scanner.
    for (body, error) in [
        ("abc", "invalid character 'a' looking for beginning of value"),
        (r#"{a:1}"#, "invalid character 'a' looking for beginning of object key string"),
        (r#"{"a" 1}"#, "invalid character '1' after object key"),
        (r#"{"a":1 "b":2}"#, "invalid character '\"' after object key:value pair"),
        (r#"{"a":[1 2]}"#, "invalid character '2' after array element"),
        (r#"{"a":1}x"#, "invalid character 'x' after top-level value"),
        (r#"{"a":1,}"#, "invalid character '}' looking for beginning of object key string"),
        (r#"{"a":[1,]}"#, "invalid character ']' looking for beginning of value"),
        ("{\n  \"a\": 1,\n  'b': 2}", "invalid character '\\'' looking for beginning of object key string"),
    ] {
        let message = post(&mut s, "application/json", body.as_bytes());
        let want = format!("couldn't get version/kind; json parse error: {error} (");
        assert!(message.contains(&want), "{body}: {message}");
    }
    // A DeleteOptions body: the same words, not wrapped (as upstream's
    // delete handler answers).
    let r = s.handle(
        Request::new("DELETE", "/api/v1/namespaces/default/configmaps/x")
            .with_header("Content-Type", "application/json")
            .with_body(b"abc".to_vec()),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json_body()["message"],
        "couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value"
    );
    // YAML: go-yaml's words, the body in hex.
    let laughs = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_string()
        + &(1..10).map(|i| format!("  a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", "))).collect::<String>();
    assert_eq!(
        post(&mut s, "application/yaml", laughs.as_bytes()),
        "the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: \
         yaml: document contains excessive aliasing (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)"
    );
    let broken = post(&mut s, "application/yaml", b"a: b: c\n");
    assert!(broken.starts_with("the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: line 1: "), "{broken}");
    assert!(broken.ends_with(" (613a20623a20630a)"), "{broken}");
}

#[test]
fn annotations_are_qualified_names_in_any_case_and_at_most_256_kib_in_all() {
    let mut s = server();
    let create = |s: &mut Server, name: &str, annotations: serde_json::Value| {
        call(
            s,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            Some(json!({"metadata": {"name": name, "annotations": annotations}})),
        )
    };
    // Upper case is fine in annotation keys (not in label keys).
    let ok = create(&mut s, "upper", json!({"Example.COM/Owner": "x"}));
    assert_eq!(ok.status, 201, "{}", String::from_utf8_lossy(&ok.body));
    // Exactly 256 KiB of keys and values is allowed; one byte more is not.
    let key = "k";
    let fits = create(&mut s, "fits", json!({key: "v".repeat(256 * 1024 - key.len())}));
    assert_eq!(fits.status, 201);
    let over = create(&mut s, "over", json!({key: "v".repeat(256 * 1024 - key.len() + 1)}));
    assert_eq!(over.status, 422);
    let body = over.json_body();
    assert_eq!(
        body["message"],
        "ConfigMap \"over\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes"
    );
    assert_eq!(body["details"]["causes"][0]["reason"], "FieldValueTooLong");
    let bad = create(&mut s, "bad", json!({"not a key!": "x"}));
    assert_eq!(bad.status, 422);
    let message = bad.json_body()["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("ConfigMap \"bad\" is invalid: metadata.annotations: Invalid value: \"not a key!\": name part must consist of alphanumeric characters"), "{message}");
}
