//! dryRun=All on every write verb: every check runs, the answer is what
//! would have been stored, and nothing is: no revision, no watch event.

mod common;
use common::*;
use kubesim::server::{Request, Served, Server, WatchStream};
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";

fn watch(s: &mut Server) -> WatchStream {
    let rv = s.revision().to_string();
    match s.serve(Request::new("GET", &format!("{CM}?watch=true&resourceVersion={rv}"))) {
        Served::Watch(_, w) => w,
        Served::Response(r) | Served::Log(r, _) => panic!("no watch: {}", r.status),
    }
}

/// Runs `f` and checks that it wrote nothing a client could see.
fn writes_nothing(s: &mut Server, f: impl FnOnce(&mut Server)) {
    let mut w = watch(s);
    let before = s.revision();
    let list = get(s, CM).body;
    f(s);
    assert_eq!(s.revision(), before, "a dry run bumped the revision");
    assert_eq!(get(s, CM).body, list, "a dry run changed what a list shows");
    assert!(s.poll_watch(&mut w, 100).is_empty(), "a dry run produced a watch event");
}

#[test]
fn put_and_patch_answer_with_the_would_be_object() {
    let mut s = server();
    let rv = create_cm(&mut s, "a", json!({}));
    writes_nothing(&mut s, |s| {
        let r = call(
            s,
            "PUT",
            &format!("{CM}/a?dryRun=All"),
            Some(json!({"metadata": {"name": "a", "resourceVersion": rv}, "data": {"k": "changed"}})),
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json_body();
        assert_eq!(
            (v["data"]["k"].as_str(), v["metadata"]["resourceVersion"].as_str()),
            (Some("changed"), Some(rv.as_str()))
        );
        assert!(v["metadata"]["uid"].is_string() && v["metadata"]["creationTimestamp"].is_string());

        let r = s.handle(
            Request::new("PATCH", &format!("{CM}/a?dryRun=All"))
                .with_header("Content-Type", "application/merge-patch+json")
                .with_body(r#"{"data":{"extra":"x"}}"#),
        );
        assert_eq!(r.status, 200);
        assert_eq!(r.json_body()["data"], json!({"k": "v", "extra": "x"}));
    });
    // The checks still run: a stale resourceVersion is a conflict.
    let r = call(
        &mut s,
        "PUT",
        &format!("{CM}/a?dryRun=All"),
        Some(json!({"metadata": {"name": "a", "resourceVersion": "1"}, "data": {}})),
    );
    assert_eq!(r.status, 409);
}

#[test]
fn delete_answers_as_the_delete_would_and_keeps_the_object() {
    let mut s = server();
    create_cm(&mut s, "plain", json!({}));
    let r = call(&mut s, "POST", CM, Some(json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})));
    assert_eq!(r.status, 201);
    writes_nothing(&mut s, |s| {
        let r = call(s, "DELETE", &format!("{CM}/plain?dryRun=All"), None);
        assert_eq!(r.status, 200);
        let v = r.json_body();
        assert_eq!((v["kind"].as_str(), v["status"].as_str()), (Some("Status"), Some("Success")));
        assert_eq!(v["details"]["name"], "plain");

        // With a finalizer: the object as it would be, terminating.
        let r = call(s, "DELETE", &format!("{CM}/held"), Some(json!({"dryRun": ["All"]})));
        assert_eq!(r.status, 200);
        let v = r.json_body();
        assert!(v["metadata"]["deletionTimestamp"].is_string(), "{v}");

        let r = call(s, "DELETE", &format!("{CM}?dryRun=All"), None);
        assert_eq!(r.status, 200);
        assert_eq!(names(&r.json_body()), vec!["held", "plain"]);
    });
    assert_eq!(get(&mut s, &format!("{CM}/plain")).status, 200);
    assert!(get(&mut s, &format!("{CM}/held")).json_body()["metadata"]["deletionTimestamp"].is_null());
}

#[test]
fn unsupported_dry_run_values_are_invalid_options() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let cases: [(&str, String, Option<Value>, &str); 4] = [
        ("POST", format!("{CM}?dryRun=Some"), Some(json!({"metadata": {"name": "b"}})), "CreateOptions"),
        ("PUT", format!("{CM}/a?dryRun=Some"), Some(json!({"metadata": {"name": "a"}})), "UpdateOptions"),
        ("DELETE", format!("{CM}/a?dryRun=Some"), None, "DeleteOptions"),
        ("DELETE", format!("{CM}/a"), Some(json!({"dryRun": ["Some"]})), "DeleteOptions"),
    ];
    for (method, target, body, kind) in cases {
        let r = call(&mut s, method, &target, body);
        assert_eq!(r.status, 422, "{method} {target}");
        let v = r.json_body();
        assert_eq!(
            v["message"].as_str().unwrap(),
            format!(
                r#"{kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{{"Some"}}: supported values: "All""#
            )
        );
        assert_eq!(v["details"]["kind"], kind);
        assert_eq!(v["details"]["group"], "meta.k8s.io");
        assert_eq!(v["details"]["causes"][0]["reason"], "FieldValueNotSupported");
        assert_eq!(v["details"]["causes"][0]["field"], "dryRun");
    }
    let r = s.handle(
        Request::new("PATCH", &format!("{CM}/a?dryRun=All&dryRun=x"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body("{}"),
    );
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .starts_with(r#"PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}"#));
    assert_eq!(get(&mut s, &format!("{CM}/a")).status, 200);
}
