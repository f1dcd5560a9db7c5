//! DELETE's options, finalizers and answers, and generateName retries —
//! ported from upstream's `registry/generic/registry/store_test.go`
//! (`TestStoreDeletionPropagation`, `TestStoreDeleteWithOrphanDependents`,
//! `TestFinalizeDelete`, `TestStoreCreateWithRetryNameGenerate`,
//! `TestStoreCreateGenerateNameConflict`), `endpoints/apiserver_test.go`
//! (`TestDeleteWithOptionsQueryAndBody`), apimachinery's
//! `TestValidateDeleteOptions`, and `endpoints/handlers/delete.go`'s choice
//! of status code.

mod common;
use common::*;
use kubesim::clock::NameGenerator;
use kubesim::server::{Server, ServerConfig};
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";

fn cm_with_finalizers(s: &mut Server, name: &str, finalizers: &[&str]) {
    let r = call(
        s,
        "POST",
        CM,
        Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "finalizers": finalizers}})),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
}

/// Deletes with the options as a query string; returns (status, body).
fn delete(s: &mut Server, path: &str, query: &str, body: Option<Value>) -> (u16, Value) {
    let target = if query.is_empty() { path.to_string() } else { format!("{path}?{query}") };
    let r = call(s, "DELETE", &target, body);
    (r.status, r.json_body())
}

/// `TestStoreDeletionPropagation` and `TestStoreDeleteWithOrphanDependents`
/// for a kind that deletes dependents in the background by default: the
/// finalizers an object has after a delete with each policy, starting from
/// each set of finalizers (None: it is gone).
#[test]
fn propagation_policies_and_existing_finalizers_decide_what_stays() {
    type Case = (&'static [&'static str], &'static str, Option<&'static [&'static str]>);
    let cases: &[Case] = &[
        (&[], "propagationPolicy=Foreground", Some(&["foregroundDeletion"])),
        (&[], "propagationPolicy=Background", None),
        (&[], "propagationPolicy=Orphan", Some(&["orphan"])),
        (&[], "", None),
        (&["orphan"], "propagationPolicy=Foreground", Some(&["foregroundDeletion"])),
        (&["orphan"], "propagationPolicy=Background", None),
        (&["orphan"], "propagationPolicy=Orphan", Some(&["orphan"])),
        (&["orphan"], "", Some(&["orphan"])),
        (&["foregroundDeletion"], "propagationPolicy=Foreground", Some(&["foregroundDeletion"])),
        (&["foregroundDeletion"], "propagationPolicy=Background", None),
        (&["foregroundDeletion"], "propagationPolicy=Orphan", Some(&["orphan"])),
        (&["foregroundDeletion"], "", Some(&["foregroundDeletion"])),
        // The deprecated orphanDependents.
        (&["foo.com/x", "orphan", "bar.com/y"], "orphanDependents=true", Some(&["foo.com/x", "orphan", "bar.com/y"])),
        (&["foo.com/x", "bar.com/y"], "orphanDependents=true", Some(&["foo.com/x", "bar.com/y", "orphan"])),
        (&[], "orphanDependents=true", Some(&["orphan"])),
        (&["foo.com/x", "orphan", "bar.com/y"], "orphanDependents=false", Some(&["foo.com/x", "bar.com/y"])),
        (&["orphan"], "orphanDependents=false", None),
        (&[], "orphanDependents=false", None),
        (&["foo.com/x", "bar.com/y"], "", Some(&["foo.com/x", "bar.com/y"])),
    ];
    for (i, (before, query, after)) in cases.iter().enumerate() {
        let mut s = server();
        let name = format!("c{i}");
        cm_with_finalizers(&mut s, &name, before);
        let (status, body) = delete(&mut s, &format!("{CM}/{name}"), query, None);
        let stays = !body["metadata"]["deletionTimestamp"].is_null();
        match after {
            None => {
                assert_eq!((status, body["status"].as_str()), (200, Some("Success")), "{before:?} {query}: {body}");
                assert_eq!(get(&mut s, &format!("{CM}/{name}")).status, 404);
            }
            Some(want) => {
                assert!(stays, "{before:?} {query}: {body}");
                assert_eq!(body["metadata"]["finalizers"], json!(want), "{before:?} {query}");
                assert_eq!(body["metadata"]["deletionGracePeriodSeconds"], 0);
                // 202 only for the deprecated cascading request on an object that stays.
                let want_status = if *query == "orphanDependents=false" { 202 } else { 200 };
                assert_eq!(status, want_status, "{before:?} {query}");
            }
        }
    }
}

/// A second delete re-decides the finalizers of an object already being
/// deleted; the deletionTimestamp and generation it got first stay.
#[test]
fn a_second_delete_re_decides_the_garbage_collection_finalizers() {
    let mut s = server();
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    assert_eq!(call(&mut s, "POST", deployments, Some(d)).status, 201);
    let (_, first) = delete(&mut s, &format!("{deployments}/web"), "propagationPolicy=Orphan", None);
    assert_eq!(first["metadata"]["generation"], 2, "a delete that marks the object bumps its generation");
    let (status, second) = delete(&mut s, &format!("{deployments}/web"), "propagationPolicy=Foreground", None);
    assert_eq!(status, 200);
    assert_eq!(second["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert_eq!(second["metadata"]["deletionTimestamp"], first["metadata"]["deletionTimestamp"]);
    assert_eq!(second["metadata"]["generation"], 2);
    let (status, gone) = delete(&mut s, &format!("{deployments}/web"), "propagationPolicy=Background", None);
    assert_eq!((status, gone["status"].as_str()), (200, Some("Success")));
    // TestFinalizeDelete: the resource in details.kind, the group, the uid, no code.
    assert_eq!(gone["details"]["kind"], "deployments");
    assert_eq!(gone["details"]["group"], "apps");
    assert_eq!(gone["details"]["uid"], first["metadata"]["uid"]);
    assert!(gone.get("code").is_none(), "{gone}");
}

/// Jobs (batch/v1) keep their pods by default, and say so; Events have no
/// dependents, so policies add nothing.
#[test]
fn kinds_choose_their_default_policy() {
    let mut s = server();
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}});
    let jobs = "/apis/batch/v1/namespaces/default/jobs";
    assert_eq!(call(&mut s, "POST", jobs, Some(job.clone())).status, 201);
    let r = call(&mut s, "DELETE", &format!("{jobs}/j"), None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["orphan"]));
    assert_eq!(
        r.header("Warning"),
        Some("299 - \"child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning\"")
    );
    // Naming a policy silences it (kubectl always names one).
    let mut job2 = job;
    job2["metadata"]["name"] = json!("j2");
    assert_eq!(call(&mut s, "POST", jobs, Some(job2)).status, 201);
    let r = call(&mut s, "DELETE", &format!("{jobs}/j2?propagationPolicy=Background"), None);
    assert_eq!((r.status, r.header("Warning")), (200, None));
    assert_eq!(r.json_body()["status"], "Success");

    let ev = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "finalizers": ["orphan"]},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}, "reason": "R", "message": "m"});
    let events = "/api/v1/namespaces/default/events";
    let r = call(&mut s, "POST", events, Some(ev));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let (status, body) = delete(&mut s, &format!("{events}/e"), "propagationPolicy=Foreground", None);
    assert_eq!((status, body["status"].as_str()), (200, Some("Success")), "{body}");
}

/// `TestDeleteWithOptionsQueryAndBody`: a body's options are the options;
/// the query is not read at all.
#[test]
fn a_delete_body_replaces_the_query() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let (status, body) = delete(
        &mut s,
        &format!("{CM}/a"),
        "dryRun=All&propagationPolicy=Orphan",
        Some(json!({"kind": "DeleteOptions"})),
    );
    assert_eq!((status, body["status"].as_str()), (200, Some("Success")), "not a dry run, no orphaning: {body}");
    assert_eq!(get(&mut s, &format!("{CM}/a")).status, 404);
    // A bad query option does not matter under a body either.
    create_cm(&mut s, "b", json!({}));
    let (status, _) = delete(&mut s, &format!("{CM}/b"), "dryRun=bogus", Some(json!({"dryRun": ["All"]})));
    assert_eq!(status, 200);
    assert_eq!(get(&mut s, &format!("{CM}/b")).status, 200, "the body's dryRun held");
}

/// `ValidateDeleteOptions`, and how the query's values convert.
#[test]
fn delete_options_are_validated_as_upstream() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let cases: &[(&str, Option<Value>, u16, &str)] = &[
        (
            "orphanDependents=true&propagationPolicy=Foreground",
            None,
            422,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Foreground\": orphanDependents and deletionPropagation cannot be both set",
        ),
        (
            "propagationPolicy=foo",
            None,
            422,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"foo\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
        ),
        (
            "propagationPolicy=",
            None,
            422,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
        ),
        (
            "",
            Some(json!({"orphanDependents": false, "propagationPolicy": "bar"})),
            422,
            "DeleteOptions.meta.k8s.io \"\" is invalid: [propagationPolicy: Invalid value: \"bar\": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: \"bar\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"]",
        ),
        ("gracePeriodSeconds=", None, 400, "strconv.ParseInt: parsing \"\": invalid syntax"),
        ("gracePeriodSeconds=x", None, 400, "strconv.ParseInt: parsing \"x\": invalid syntax"),
    ];
    for (query, body, status, message) in cases {
        // Checked before the object is looked up: a missing one answers the same.
        for name in ["a", "missing"] {
            let (got, b) = delete(&mut s, &format!("{CM}/{name}"), query, body.clone());
            assert_eq!((got, b["message"].as_str().unwrap_or("")), (*status, *message), "{query} {body:?}");
            if *status == 422 {
                assert_eq!(
                    b["details"],
                    json!({"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": b["details"]["causes"]})
                );
            }
        }
    }
    // A negative grace period is not an error; orphanDependents is false
    // only for 0 or false, true for anything else.
    let (status, _) = delete(&mut s, &format!("{CM}/a"), "gracePeriodSeconds=-5&orphanDependents=yes", None);
    assert_eq!(status, 200);
    let (_, body) = delete(&mut s, &format!("{CM}/a"), "orphanDependents=FALSE", None);
    assert_eq!(body["status"], "Success", "{body}");
}

/// The preconditions of a delete, as `rest.BeforeDelete` words them (on
/// the kind); a namespace's storage words its own (on the resource).
#[test]
fn delete_preconditions_are_worded_per_kind() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let uid = get(&mut s, &format!("{CM}/a")).json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let (status, b) = delete(&mut s, &format!("{CM}/a"), "", Some(json!({"preconditions": {"uid": "x"}})));
    assert_eq!((status, b["reason"].as_str()), (409, Some("Conflict")));
    assert_eq!(
        b["message"],
        format!("Operation cannot be fulfilled on ConfigMap \"a\": the UID in the precondition (x) does not match the UID in record ({uid}). The object might have been deleted and then recreated")
    );
    assert_eq!(b["details"], json!({"name": "a", "kind": "ConfigMap"}));
    let (_, b) = delete(&mut s, &format!("{CM}/a"), "", Some(json!({"preconditions": {"resourceVersion": "1"}})));
    let rv = get(&mut s, &format!("{CM}/a")).json_body()["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    assert_eq!(
        b["message"],
        format!("Operation cannot be fulfilled on ConfigMap \"a\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ({rv}). The object might have been modified")
    );
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    assert_eq!(call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d)).status, 201);
    let (_, b) = delete(
        &mut s,
        "/apis/apps/v1/namespaces/default/deployments/web",
        "",
        Some(json!({"preconditions": {"uid": "x"}})),
    );
    assert!(b["message"]
        .as_str()
        .unwrap()
        .starts_with("Operation cannot be fulfilled on Deployment.apps \"web\": the UID"));
    assert_eq!(b["details"], json!({"name": "web", "group": "apps", "kind": "Deployment"}));
    assert_eq!(call(&mut s, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "team"}}))).status, 201);
    let ns_uid = get(&mut s, "/api/v1/namespaces/team").json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let (_, b) = delete(&mut s, "/api/v1/namespaces/team", "", Some(json!({"preconditions": {"uid": "x"}})));
    assert_eq!(
        b["message"],
        format!("Operation cannot be fulfilled on namespaces \"team\": Precondition failed: UID in precondition: x, UID in object meta: {ns_uid}")
    );
    // The namespaces every cluster needs refuse deletion first.
    for name in ["default", "kube-system", "kube-public"] {
        let (status, b) = delete(&mut s, &format!("/api/v1/namespaces/{name}"), "", None);
        assert_eq!((status, b["reason"].as_str()), (403, Some("Forbidden")));
        assert_eq!(b["message"], format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted"));
    }
}

/// A PUT's uid is a precondition checked in storage (its error quotes
/// etcd's key); a patch's uid is a field that may not change.
#[test]
fn update_preconditions_come_from_storage_and_patches_cannot_change_the_uid() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    let uid = get(&mut s, &format!("{CM}/a")).json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "uid": "x"}});
    let r = call(&mut s, "PUT", &format!("{CM}/a"), Some(body.clone()));
    assert_eq!((r.status, reason(&r).as_str()), (409, "Conflict"));
    assert_eq!(
        r.json_body()["message"],
        format!("Operation cannot be fulfilled on configmaps \"a\": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: x, UID in object meta: {uid}")
    );
    // A missing object has the empty uid.
    let mut missing = body.clone();
    missing["metadata"]["name"] = json!("nope");
    let r = call(&mut s, "PUT", &format!("{CM}/nope"), Some(missing));
    assert_eq!(r.status, 409);
    assert!(r.json_body()["message"].as_str().unwrap().ends_with("UID in precondition: x, UID in object meta: "));
    // The status subresource and Scale take it too.
    let svc =
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}});
    assert_eq!(call(&mut s, "POST", "/api/v1/namespaces/default/services", Some(svc.clone())).status, 201);
    let mut st = svc;
    st["metadata"]["uid"] = json!("x");
    let r = call(&mut s, "PUT", "/api/v1/namespaces/default/services/s/status", Some(st));
    assert_eq!(r.status, 409);
    assert!(r.json_body()["message"].as_str().unwrap().contains("Key: /registry/services/specs/default/s,"));
    // A merge patch that changes the uid: 422, immutable.
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{CM}/a"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(r#"{"metadata":{"uid":"x"}}"#),
    );
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json_body()["message"],
        "ConfigMap \"a\" is invalid: metadata.uid: Invalid value: \"x\": field is immutable"
    );
}

/// No finalizer may be added once deletion has begun.
#[test]
fn a_terminating_object_takes_no_new_finalizers() {
    let mut s = server();
    cm_with_finalizers(&mut s, "a", &["example.com/keep"]);
    let (_, body) = delete(&mut s, &format!("{CM}/a"), "", None);
    assert!(!body["metadata"]["deletionTimestamp"].is_null());
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{CM}/a"))
            .with_header("Content-Type", "application/json-patch+json")
            .with_body(r#"[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/new"}]"#),
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "ConfigMap \"a\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"example.com/new\"}"
    );
}

fn colliding_server() -> Server {
    // Two possible suffixes: the third generated name must collide.
    Server::new(ServerConfig {
        name_generator: NameGenerator { alphabet: "ab".into(), length: 1 },
        ..Default::default()
    })
}

fn generate(s: &mut Server, query: &str) -> kubesim::server::Response {
    let target = if query.is_empty() { CM.to_string() } else { format!("{CM}?{query}") };
    call(s, "POST", &target, Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "p-"}})))
}

/// `TestStoreCreateWithRetryNameGenerate`: a generated name that is taken
/// is drawn again (8 attempts); when every attempt collides, 409
/// AlreadyExists says the server could not generate a unique name.
#[test]
fn generated_names_that_collide_are_drawn_again() {
    let mut s = colliding_server();
    let mut made = Vec::new();
    for _ in 0..2 {
        let r = generate(&mut s, "");
        assert_eq!(r.status, 201, "retries find the free name: {}", String::from_utf8_lossy(&r.body));
        made.push(r.json_body()["metadata"]["name"].as_str().unwrap().to_string());
    }
    made.sort();
    assert_eq!(made, ["p-a", "p-b"]);
    for query in ["", "dryRun=All"] {
        let r = generate(&mut s, query);
        assert_eq!((r.status, reason(&r).as_str()), (409, "AlreadyExists"), "{query}");
        let b = r.json_body();
        let name = b["details"]["name"].as_str().unwrap().to_string();
        assert!(name == "p-a" || name == "p-b");
        assert_eq!(
            b["message"],
            format!("configmaps \"{name}\" already exists, the server was not able to generate a unique name for the object")
        );
        assert_eq!(b["details"]["retryAfterSeconds"], 1);
        assert_eq!(b["details"]["kind"], "configmaps");
    }
    // A named create that collides keeps the plain message; one that
    // collides with an object being deleted says so.
    let r = call(&mut s, "POST", CM, Some(json!({"metadata": {"name": "p-a"}})));
    assert_eq!(r.json_body()["message"], "configmaps \"p-a\" already exists");
    cm_with_finalizers(&mut s, "held", &["example.com/keep"]);
    delete(&mut s, &format!("{CM}/held"), "", None);
    let r = call(&mut s, "POST", CM, Some(json!({"metadata": {"name": "held"}})));
    assert_eq!(r.json_body()["message"], "object is being deleted: configmaps \"held\" already exists");
}

/// Thirty thousand generated names in one namespace: none collides into
/// an error with upstream's generator and its retries.
#[test]
fn many_generated_names_never_fail() {
    let mut s = server();
    for i in 0..30_000 {
        let r = generate(&mut s, "");
        assert_eq!(r.status, 201, "create {i}: {}", String::from_utf8_lossy(&r.body));
    }
}

/// `TestStoreDeleteCollection`: deletecollection lists as a list would —
/// with a `limit`, one page (and its continue token) is deleted.
#[test]
fn deletecollection_with_a_limit_deletes_one_page() {
    let mut s = server();
    for name in ["a", "b", "c"] {
        create_cm(&mut s, name, json!({"set": "x"}));
    }
    let r = call(&mut s, "DELETE", &format!("{CM}?labelSelector=set%3Dx&limit=2"), None);
    assert_eq!(r.status, 200);
    let b = r.json_body();
    assert_eq!(names(&b), ["a", "b"]);
    assert!(!b["metadata"]["continue"].as_str().unwrap_or("").is_empty(), "{b}");
    assert_eq!(names(&get(&mut s, &format!("{CM}?labelSelector=set%3Dx")).json_body()), ["c"]);
    let r = call(&mut s, "DELETE", &format!("{CM}?labelSelector=set%3Dx"), None);
    assert_eq!(names(&r.json_body()), ["c"]);
    assert!(r.json_body()["metadata"].get("continue").is_none());
}
