//! Spec 000's resourceVersion tables, one row per cell, as data.

mod common;
use common::*;
use serde_json::json;

/// A server with history: a@r1', b@r2', then a modified @r3' (offsets past
/// the bootstrap revisions), compacted before r2'.
struct Fixture {
    s: kubesim::Server,
    r_a: u64,
    r_b: u64,
    r_mod: u64,
}

fn fixture() -> Fixture {
    let mut s = server();
    let r_a: u64 = create_cm(&mut s, "a", json!({})).parse().unwrap();
    let r_b: u64 = create_cm(&mut s, "b", json!({})).parse().unwrap();
    let r = call(
        &mut s,
        "PUT",
        "/api/v1/namespaces/default/configmaps/a",
        Some(json!({
            "metadata": {"name": "a"}, "data": {"k": "changed"}
        })),
    );
    assert_eq!(r.status, 200);
    let r_mod: u64 = rv(&r.json_body()).parse().unwrap();
    s.compact(Some(kubesim::api::Revision(r_b)));
    Fixture { s, r_a, r_b, r_mod }
}

#[derive(Debug, Clone, Copy)]
enum Want {
    /// 200 and the list/object is served at this revision.
    At(u64),
    /// 200, served at the newest revision.
    Head,
    Status(u16, &'static str),
}

#[test]
fn get_table() {
    let f = fixture();
    let cells: Vec<(&str, String, Want)> = vec![
        ("unset: most recent", "".into(), Want::Head),
        ("0: any", "0".into(), Want::Head),
        ("older: not older than", format!("{}", f.r_a), Want::Head),
        ("future: too large", format!("{}", f.r_mod + 100), Want::Status(504, "Timeout")),
        ("garbage", "abc".into(), Want::Status(400, "BadRequest")),
    ];
    let mut s = f.s;
    for (what, rv_param, want) in cells {
        let q = if rv_param.is_empty() { String::new() } else { format!("?resourceVersion={rv_param}") };
        let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps/a{q}"));
        match want {
            Want::Head => {
                assert_eq!(r.status, 200, "{what}");
                assert_eq!(rv(&r.json_body()), f.r_mod.to_string(), "{what}: the newest version of a");
            }
            Want::Status(code, reason_) => {
                assert_eq!((r.status, reason(&r).as_str()), (code, reason_), "{what}");
            }
            Want::At(_) => unreachable!(),
        }
    }
}

#[test]
fn list_table() {
    let f = fixture();
    let (a, b, m) = (f.r_a, f.r_b, f.r_mod);
    let future = m + 100;
    // (resourceVersionMatch, paging, resourceVersion) -> outcome
    let cells: Vec<(&str, &str, String, Want)> = vec![
        // match unset, limit unset
        ("", "", "".into(), Want::Head),
        ("", "", "0".into(), Want::Head),
        ("", "", b.to_string(), Want::Head),
        ("", "", future.to_string(), Want::Status(504, "Timeout")),
        // match unset, limit set: unset = most recent, 0 = any, other = exact
        ("", "limit=1", "".into(), Want::Head),
        ("", "limit=1", "0".into(), Want::Head),
        ("", "limit=1", b.to_string(), Want::At(b)),
        ("", "limit=1", a.to_string(), Want::Status(410, "Expired")),
        ("", "limit=1", future.to_string(), Want::Status(504, "Timeout")),
        // Exact
        ("Exact", "", "".into(), Want::Status(422, "Invalid")),
        ("Exact", "", "0".into(), Want::Status(422, "Invalid")),
        ("Exact", "", b.to_string(), Want::At(b)),
        ("Exact", "", a.to_string(), Want::Status(410, "Expired")),
        ("Exact", "limit=1", "".into(), Want::Status(422, "Invalid")),
        ("Exact", "limit=1", "0".into(), Want::Status(422, "Invalid")),
        ("Exact", "limit=1", b.to_string(), Want::At(b)),
        // NotOlderThan
        ("NotOlderThan", "", "".into(), Want::Status(422, "Invalid")),
        ("NotOlderThan", "", "0".into(), Want::Head),
        ("NotOlderThan", "", a.to_string(), Want::Head),
        ("NotOlderThan", "", future.to_string(), Want::Status(504, "Timeout")),
        ("NotOlderThan", "limit=1", "".into(), Want::Status(422, "Invalid")),
        ("NotOlderThan", "limit=1", "0".into(), Want::Head),
        ("NotOlderThan", "limit=1", b.to_string(), Want::Head),
        // an unsupported match value
        ("Newest", "", b.to_string(), Want::Status(422, "Invalid")),
    ];
    let mut s = f.s;
    for (rvm, paging, rv_param, want) in cells {
        let mut q = vec![];
        if !rvm.is_empty() {
            q.push(format!("resourceVersionMatch={rvm}"));
        }
        if !paging.is_empty() {
            q.push(paging.to_string());
        }
        if !rv_param.is_empty() {
            q.push(format!("resourceVersion={rv_param}"));
        }
        let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?{}", q.join("&")));
        let cell = format!("match={rvm:?} {paging:?} rv={rv_param:?}");
        let body = r.json_body();
        match want {
            Want::Head => {
                assert_eq!(r.status, 200, "{cell}: {body}");
                assert_eq!(rv(&body), m.to_string(), "{cell}");
            }
            Want::At(at) => {
                assert_eq!(r.status, 200, "{cell}: {body}");
                assert_eq!(rv(&body), at.to_string(), "{cell}: Exact serves the requested revision");
                // At b, `a` is still its first version.
                assert_eq!(body["items"][0]["metadata"]["resourceVersion"], a.to_string(), "{cell}");
            }
            Want::Status(code, why) => {
                assert_eq!((r.status, reason(&r).as_str()), (code, why), "{cell}: {body}");
            }
        }
    }
}

#[test]
fn list_with_continue_cells() {
    let f = fixture();
    let mut s = f.s;
    let first = get(&mut s, "/api/v1/namespaces/default/configmaps?limit=1").json_body();
    let token = first["metadata"]["continue"].as_str().unwrap().to_string();
    let snapshot = rv(&first);
    // continue, rv unset: continue token, exact
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?limit=1&continue={token}"));
    assert_eq!((r.status, rv(&r.json_body())), (200, snapshot.clone()));
    // continue, rv=0: invalid, treated as continue token, exact
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?limit=1&continue={token}&resourceVersion=0"));
    assert_eq!((r.status, rv(&r.json_body())), (200, snapshot));
    // continue, rv=other: 400
    let r = get(
        &mut s,
        &format!("/api/v1/namespaces/default/configmaps?limit=1&continue={token}&resourceVersion={}", f.r_b),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json_body()["message"], "specifying resource version is not allowed when using continue");
    // continue with a match: 422
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?limit=1&continue={token}&resourceVersionMatch=Exact&resourceVersion={}", f.r_b));
    assert_eq!(r.status, 422);
}

#[test]
fn watch_table() {
    let f = fixture();
    let mut s = f.s;
    // unset: get state and start at most recent
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?watch=1");
    let evs = events(&r);
    assert_eq!(
        evs.iter().map(|(t, o)| (t.as_str(), o["metadata"]["name"].as_str().unwrap())).collect::<Vec<_>>(),
        [("ADDED", "a"), ("ADDED", "b")]
    );
    // 0: get state and start at any
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0");
    assert_eq!(events(&r).len(), 2);
    // other: start at exact, no synthetic ADDED
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={}", f.r_b));
    let evs = events(&r);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].0, "MODIFIED");
    assert_eq!(rv(&evs[0].1), f.r_mod.to_string());
    // compacted: 200 with an ERROR event carrying 410
    let r = get(&mut s, &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={}", f.r_a));
    assert_eq!(r.status, 200);
    let evs = events(&r);
    assert_eq!(evs[0].0, "ERROR");
    assert_eq!(evs[0].1["code"], 410);
    assert_eq!(evs[0].1["reason"], "Expired");
    assert!(evs[0].1["message"].as_str().unwrap().starts_with("too old resource version: "));
    // resourceVersionMatch without sendInitialEvents: 422
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersionMatch=NotOlderThan");
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["details"]["causes"][0]["message"],
        "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"
    );
    // sendInitialEvents without NotOlderThan: 422
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true");
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
    );
    // sendInitialEvents on a list: 422
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?sendInitialEvents=true");
    assert_eq!(r.status, 422);
}

#[test]
fn streaming_list_ends_with_annotated_bookmark() {
    let f = fixture();
    let mut s = f.s;
    let r = get(&mut s, "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersion=&resourceVersionMatch=NotOlderThan");
    let evs = events(&r);
    let types: Vec<&str> = evs.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(types, ["ADDED", "ADDED", "BOOKMARK"]);
    let bm = &evs[2].1;
    assert_eq!(bm["metadata"]["resourceVersion"], f.r_mod.to_string());
    assert_eq!(bm["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
    assert_eq!(bm["kind"], "ConfigMap");
    // NotOlderThan with sendInitialEvents=false: no initial state.
    let r = get(
        &mut s,
        "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan",
    );
    assert!(events(&r).is_empty());
}

/// Each path that answers 410 or 504 words it as kube-apiserver does
/// there: a list's compacted snapshot in etcd's words (`TestListOptions`),
/// an expired continue token with a token to continue inconsistently, a
/// watch in the watch cache's words (as an ERROR event), a revision not
/// reached yet as `NewTooLargeResourceVersionError`. A GET never answers 410.
#[test]
fn every_expired_or_future_resource_version_is_worded_for_its_path() {
    let f = fixture();
    let (a, head) = (f.r_a, f.r_mod);
    let mut s = f.s;
    let cm = "/api/v1/namespaces/default/configmaps";
    let list_expired = "The resourceVersion for the provided list is too old.";
    for query in [format!("limit=1&resourceVersion={a}"), format!("resourceVersionMatch=Exact&resourceVersion={a}")] {
        let r = get(&mut s, &format!("{cm}?{query}"));
        let b = r.json_body();
        assert_eq!(
            (r.status, b["reason"].as_str(), b["message"].as_str()),
            (410, Some("Expired"), Some(list_expired)),
            "{query}"
        );
        assert!(b.get("details").is_none(), "{b}");
    }
    // A get with an old resourceVersion reads the newest state.
    assert_eq!(get(&mut s, &format!("{cm}/a?resourceVersion={a}")).status, 200);
    // A continue token whose snapshot is gone.
    let token = {
        let mut s2 = server();
        create_cm(&mut s2, "x", json!({}));
        create_cm(&mut s2, "y", json!({}));
        let r = get(&mut s2, &format!("{cm}?limit=1"));
        r.json_body()["metadata"]["continue"].as_str().unwrap().to_string()
    };
    s.compact(Some(kubesim::api::Revision(head)));
    let r = get(&mut s, &format!("{cm}?limit=1&continue={token}"));
    let b = r.json_body();
    assert_eq!(r.status, 410, "{b}");
    assert!(b["message"].as_str().unwrap().starts_with("The provided continue parameter is too old"), "{b}");
    assert!(!b["metadata"]["continue"].as_str().unwrap_or("").is_empty(), "offers a token to go on");
    // A watch: 200, then one ERROR event.
    let r = get(&mut s, &format!("{cm}?watch=1&resourceVersion={a}"));
    let evs = events(&r);
    assert_eq!((r.status, evs.len(), evs[0].0.as_str()), (200, 1, "ERROR"));
    assert!(evs[0].1["message"].as_str().unwrap().starts_with(&format!("too old resource version: {a} (")));
    // Not reached yet: 504 with the cause and a retry hint.
    for target in [format!("{cm}?resourceVersion={}", head + 50), format!("{cm}/a?resourceVersion={}", head + 50)] {
        let r = get(&mut s, &target);
        let b = r.json_body();
        assert_eq!((r.status, b["reason"].as_str()), (504, Some("Timeout")), "{target}");
        assert_eq!(b["message"], format!("Timeout: Too large resource version: {}, current: {head}", head + 50));
        assert_eq!(b["details"]["causes"][0]["reason"], "ResourceVersionTooLarge");
        assert_eq!(b["details"]["retryAfterSeconds"], 1);
    }
}
