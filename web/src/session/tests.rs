//! The session's tests: the starter cluster, acting as another user, the
//! journal and its replay, export and import, the lanes and the clock.

use super::*;
use crate::lanes::{Lane, LaneState, RowKind};
use kubesim::sort::Order;

/// Everything a client can observe of the cluster: every collection at
/// the head, the head and compacted revisions, and the clock.
pub(crate) fn observed(s: &mut Session) -> Vec<String> {
    let mut out = vec![format!("{} {} {}", s.server.revision(), s.server.compacted(), s.server.now().rfc3339())];
    let mut discovery = crate::resources::Discovery::default();
    for path in ["/api", "/apis"] {
        let req = Request::new("GET", path).with_header("Accept", crate::resources::AGGREGATED_ACCEPT);
        discovery.absorb(&body_json(&s.request(Source::Console, req).response));
    }
    for path in discovery.resources.iter().map(|r| r.collection(None)) {
        let e = s.request(Source::Console, Request::new("GET", &path));
        out.push(String::from_utf8_lossy(&e.response.body).into_owned());
    }
    out
}

#[test]
fn a_new_session_has_a_small_realistic_cluster() {
    let mut s = Session::new(1);
    assert!(s.log.iter().filter(|e| e.source == Source::Setup).all(|e| e.response.status < 300), "setup failed");
    let names = |s: &mut Session, path: &str| -> Vec<String> {
        let v = body_json(&s.request(Source::Console, Request::new("GET", path)).response);
        v["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&mut s, "/api/v1/services"), vec!["hello", "kubernetes", "kube-dns"]);
    // A first visit finds workloads running in `default`.
    let mut pods = names(&mut s, "/api/v1/namespaces/default/pods");
    pods.order();
    assert_eq!(pods.len(), 3, "{pods:?}");
    assert_eq!(pods[0], "counter");
    assert!(pods[1].starts_with("hello-") && pods[2].starts_with("hello-"), "{pods:?}");
    let phases =
        body_json(&s.request(Source::Console, Request::new("GET", "/api/v1/namespaces/default/pods")).response);
    for p in phases["items"].as_array().unwrap() {
        assert_eq!(p["status"]["phase"], "Running", "{}", p["metadata"]["name"]);
    }
    assert_eq!(names(&mut s, "/api/v1/nodes").len(), 3);
    let ns = names(&mut s, "/api/v1/namespaces");
    for want in ["default", "kube-system", "kube-public"] {
        assert!(ns.contains(&want.to_string()));
    }
    let node = body_json(&s.request(Source::Console, Request::new("GET", "/api/v1/nodes/worker-1")).response);
    // The four conditions a kubelet reports, Ready last.
    assert_eq!(node["status"]["conditions"][3]["type"], "Ready");
    assert_eq!(node["status"]["conditions"][3]["status"], "True");
    assert!(s.timeline.points.len() >= 10);
}

#[test]
fn a_starter_built_a_request_at_a_time_is_the_one_built_at_once() {
    let mut at_once = Session::new(1);
    let mut deferred = Session::deferred(1);
    assert!(deferred.starter_pending());
    assert!(deferred.log.iter().all(|e| e.source != Source::Setup), "nothing sent before the first step");
    let mut steps = 0u32;
    deferred.tick(1_000.0);
    while deferred.starter_step() {
        // Real time passes between the page's slices; the clock waits.
        deferred.tick(1_000.0 + 500.0 * f64::from(steps + 1));
        steps += 1;
    }
    assert!(!deferred.starter_pending());
    assert!(!deferred.starter_step(), "a built starter has nothing more to send");
    assert_eq!(
        steps as usize + 1,
        kubesim::starter::requests(&Default::default(), kubesim::clock::SimTime::default()).len()
    );
    assert_eq!(deferred.export_json().unwrap(), at_once.export_json().unwrap());
    assert_eq!(observed(&mut deferred), observed(&mut at_once));
    assert_eq!(deferred.timeline.points.len(), at_once.timeline.points.len());
    // Built, it keeps time again.
    let wall = deferred.clock.wall;
    deferred.tick(1_000.0 + 500.0 * f64::from(steps) + 2_000.0);
    assert_eq!(deferred.clock.wall, wall + 2_000);
}

#[test]
fn acting_as_someone_else_shows_their_403_until_a_binding_lets_them() {
    let mut s = Session::new(1);
    let get_pods = |s: &mut Session| s.request(Source::Console, Request::new("GET", "/api/v1/namespaces/default/pods"));
    assert_eq!(get_pods(&mut s).response.status, 200);
    s.acting_as = ActingAs::parse("alice", "");
    let e = get_pods(&mut s);
    assert_eq!(e.request.header("Impersonate-User"), Some("alice"));
    assert_eq!(e.response.status, 403);
    assert!(body_json(&e.response)["message"]
        .as_str()
        .unwrap()
        .contains("User \"alice\" cannot list resource \"pods\""));
    // The administrator binds alice to view; then she may list.
    s.acting_as = None;
    let binding = serde_json::json!({"metadata": {"name": "alice-view"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}]});
    let e = serve_json(
        &mut s,
        Source::Console,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
        Some(&binding),
    );
    assert_eq!(e.response.status, 201);
    s.acting_as = ActingAs::parse("alice", "devs, qa");
    let e = get_pods(&mut s);
    assert_eq!(e.response.status, 200);
    let groups: Vec<&str> =
        e.request.headers.iter().filter(|(k, _)| k == "Impersonate-Group").map(|(_, v)| v.as_str()).collect();
    assert_eq!(groups, ["devs", "qa"]);
    // The cluster's own clients are not impersonated.
    assert!(s.log.iter().filter(|e| e.source == Source::Setup).all(|e| e.request.header("Impersonate-User").is_none()));
}

#[test]
fn bodies_that_are_not_text_replay_byte_for_byte() {
    let mut s = Session::new(3);
    let cm = serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": "pb"}, "binaryData": {"b": "/w=="}, "data": {"k": "é"}});
    let body = kubesim::proto::encode_object(&cm).unwrap();
    assert!(std::str::from_utf8(&body).is_err(), "a protobuf body is not UTF-8");
    let r = s.request(
        Source::Console,
        Request::new("POST", "/api/v1/namespaces/default/configmaps")
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(body.clone()),
    );
    assert_eq!(r.response.status, 201);
    let saved = s.save().unwrap();
    let entry = saved.journal.last().unwrap();
    assert!(entry.body.is_empty() && !entry.body_base64.is_empty(), "kept as base64, not lossy text");
    assert_eq!(entry.request().unwrap().body, body);
    let mut back = Session::import_json(&s.export_json().unwrap()).unwrap();
    assert_eq!(observed(&mut back), observed(&mut s));
}

#[test]
fn export_then_import_gives_the_identical_state() {
    let mut s = Session::new(9);
    s.request(
        Source::Console,
        Request::new("POST", "/api/v1/namespaces/default/configmaps")
            .with_body(r#"{"metadata":{"generateName":"x-","finalizers":["a/b"]}}"#),
    );
    s.tick(0.0);
    s.tick(90_000.0);
    s.request(
        Source::Console,
        Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(r#"{"metadata":{"name":"y"}}"#),
    );
    s.advance("6m");
    s.request(Source::Console, Request::new("DELETE", "/api/v1/namespaces/default/configmaps/y"));
    s.request(Source::Console, Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body("not json"));
    s.set_paused(true);
    let text = s.export_json().unwrap();
    let mut back = Session::import_json(&text).unwrap();
    assert_eq!(back.export_json().unwrap(), text);
    assert!(back.clock.paused);
    assert_eq!(observed(&mut back), observed(&mut s));
    // And the futures match: the next generated name and uid are the same.
    let next = |s: &mut Session| {
        let r = s.request(
            Source::Console,
            Request::new("POST", "/api/v1/namespaces/default/configmaps")
                .with_body(r#"{"metadata":{"generateName":"z-"}}"#),
        );
        let v = body_json(&r.response);
        (v["metadata"]["name"].clone(), v["metadata"]["uid"].clone())
    };
    assert_eq!(next(&mut back), next(&mut s));
}

#[test]
fn broken_imports_are_refused_without_harm() {
    assert!(Session::import_json("{").err().unwrap().contains("not a kubesim session"));
    let mut saved = Session::new(1).save().unwrap();
    saved.format = "other".into();
    assert!(Session::restore(&saved).err().unwrap().contains("not a kubesim session"));
    let mut saved = Session::new(1).save().unwrap();
    saved.journal[1].wall = 0;
    assert!(Session::restore(&saved).err().unwrap().contains("back in time"));
}

#[test]
fn the_clock_follows_real_time_unless_paused() {
    let mut s = Session::new(1);
    let t0 = s.server.now().0;
    s.tick(1000.0);
    let g = s.generation;
    s.tick(1500.0);
    assert_eq!(s.generation, g, "no re-render within a second");
    s.tick(3000.0);
    assert_eq!(s.server.now().0, t0 + 2000);
    assert!(s.generation > g, "the shown second changed");
    s.set_paused(true);
    s.tick(60_000.0);
    assert_eq!(s.server.now().0, t0 + 2000);
    s.set_paused(false);
    s.tick(61_000.0);
    assert_eq!(s.server.now().0, t0 + 3000);
}

/// The clock bar's jump passes as time would: a CronJob runs at each
/// minute on the way, and the request log shows each controller request
/// at the time it was served, not at the jump's end.
#[test]
fn a_clock_jump_logs_each_controller_request_at_its_time() {
    let mut s = Session::new(1);
    let out =
        crate::kubectl::run(&mut s, "create cronjob tick --image=busybox --schedule='* * * * *' -- echo tick", "");
    assert!(!out.failed, "{}", out.text);
    let from = s.log.len();
    let end = s.server.now().plus_millis(180_000);
    s.advance("3m");
    assert_eq!(s.server.now(), end);
    let created: Vec<i64> = s.log[from..]
        .iter()
        .filter(|e| e.source == Source::Controller && e.request.method == "POST" && e.request.path.ends_with("/jobs"))
        .map(|e| e.at.0)
        .collect();
    assert_eq!(created.len(), 3, "{created:?}");
    assert!(created.iter().all(|t| t % 60_000 == 0), "each on its minute: {created:?}");
    assert!(created.windows(2).all(|w| w[1] - w[0] == 60_000), "{created:?}");
}

/// The end-to-end story of the issue, as plain logic: finalizers hold a
/// delete, the lane shows each phase, a resume after the window is 410.
#[test]
fn lane_sees_terminating_then_deleted_then_410_on_a_late_resume() {
    let mut s = Session::new(1);
    let cm = "/api/v1/namespaces/default/configmaps";
    s.request(
        Source::Console,
        Request::new("POST", cm).with_body(r#"{"metadata":{"name":"held","finalizers":["a.io/one","a.io/two"]}}"#),
    );
    let mut lane = Lane::new(1, cm, "", true);
    lane.start(&mut s);
    s.lanes.push(lane);
    assert_eq!(s.lanes[0].state, LaneState::Watching);
    s.request(Source::Console, Request::new("DELETE", &format!("{cm}/held")));
    s.tick(0.0);
    let last = s.lanes[0].rows.last().unwrap().clone();
    assert_eq!(last.kind, RowKind::Modified);
    assert!(
        last.detail.contains("deletionTimestamp=") && last.detail.contains("a.io/one, a.io/two"),
        "{}",
        last.detail
    );
    s.request(
        Source::Inspector,
        Request::new("PATCH", &format!("{cm}/held"))
            .with_header("Content-Type", "application/json-patch+json")
            .with_body(r#"[{"op":"test","path":"/metadata/finalizers/0","value":"a.io/one"},{"op":"remove","path":"/metadata/finalizers/0"}]"#),
    );
    s.request(
        Source::Inspector,
        Request::new("PATCH", &format!("{cm}/held"))
            .with_header("Content-Type", "application/json-patch+json")
            .with_body(r#"[{"op":"remove","path":"/metadata/finalizers/0"}]"#),
    );
    s.tick(0.0);
    let kinds: Vec<RowKind> = s.lanes[0].rows.iter().rev().take(2).map(|r| r.kind.clone()).collect();
    assert_eq!(kinds, vec![RowKind::Deleted, RowKind::Modified]);
    s.lanes[0].stop();
    s.request(Source::Console, Request::new("POST", cm).with_body(r#"{"metadata":{"name":"later"}}"#));
    s.advance("6m");
    let mut lane = s.lanes.remove(0);
    lane.resume(&mut s);
    let err = lane.rows.iter().find(|r| r.kind == RowKind::Error).expect("a 410 in the lane");
    assert!(err.detail.starts_with("410 Expired"), "{}", err.detail);
    assert_eq!(lane.state, LaneState::RelistingAfterGone);
    // On the next tick an informer lane lists again and goes on watching.
    s.lanes.push(lane);
    s.tick(0.0);
    assert_eq!(s.lanes[0].state, LaneState::Watching);
    assert!(s.lanes[0].rows.iter().any(|r| r.detail.starts_with("listed 2 items")));
}
