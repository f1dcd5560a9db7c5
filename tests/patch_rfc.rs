//! RFC 6902 (JSON patch) and RFC 7386 (JSON merge patch), from the RFCs'
//! own examples: the documents the server patches go through the same
//! json-patch functions these cases call, and the HTTP cases check how the
//! server answers when a patch does not apply.

mod common;
use common::*;
use kubesim::server::Request;
use serde_json::{json, Value};

/// (document, patch, result or None for an error)
fn rfc6902_cases() -> Vec<(Value, Value, Option<Value>)> {
    vec![
        // A.1 adding an object member
        (
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/baz", "value": "qux"}]),
            Some(json!({"baz": "qux", "foo": "bar"})),
        ),
        // A.2 adding an array element
        (
            json!({"foo": ["bar", "baz"]}),
            json!([{"op": "add", "path": "/foo/1", "value": "qux"}]),
            Some(json!({"foo": ["bar", "qux", "baz"]})),
        ),
        // A.3 removing an object member
        (json!({"baz": "qux", "foo": "bar"}), json!([{"op": "remove", "path": "/baz"}]), Some(json!({"foo": "bar"}))),
        // A.4 removing an array element
        (
            json!({"foo": ["bar", "qux", "baz"]}),
            json!([{"op": "remove", "path": "/foo/1"}]),
            Some(json!({"foo": ["bar", "baz"]})),
        ),
        // A.5 replacing a value
        (
            json!({"baz": "qux", "foo": "bar"}),
            json!([{"op": "replace", "path": "/baz", "value": "boo"}]),
            Some(json!({"baz": "boo", "foo": "bar"})),
        ),
        // A.6 moving a value
        (
            json!({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}),
            json!([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]),
            Some(json!({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})),
        ),
        // A.7 moving an array element
        (
            json!({"foo": ["all", "grass", "cows", "eat"]}),
            json!([{"op": "move", "from": "/foo/1", "path": "/foo/3"}]),
            Some(json!({"foo": ["all", "cows", "eat", "grass"]})),
        ),
        // A.8 testing a value: success
        (
            json!({"baz": "qux", "foo": ["a", 2, "c"]}),
            json!([{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]),
            Some(json!({"baz": "qux", "foo": ["a", 2, "c"]})),
        ),
        // A.9 testing a value: error
        (json!({"baz": "qux"}), json!([{"op": "test", "path": "/baz", "value": "bar"}]), None),
        // A.10 adding a nested member object
        (
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/child", "value": {"grandchild": {}}}]),
            Some(json!({"foo": "bar", "child": {"grandchild": {}}})),
        ),
        // A.12 adding to a nonexistent target
        (json!({"foo": "bar"}), json!([{"op": "add", "path": "/baz/bat", "value": "qux"}]), None),
        // A.14 ~ escape ordering
        (
            json!({"/": 9, "~1": 10}),
            json!([{"op": "test", "path": "/~01", "value": 10}]),
            Some(json!({"/": 9, "~1": 10})),
        ),
        // A.15 comparing strings and numbers
        (json!({"/": 9, "~1": 10}), json!([{"op": "test", "path": "/~01", "value": "10"}]), None),
        // A.16 adding an array value
        (
            json!({"foo": ["bar"]}),
            json!([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]),
            Some(json!({"foo": ["bar", ["abc", "def"]]})),
        ),
        // Section 5: an error stops the whole patch, nothing applied.
        (
            json!({"a": 1}),
            json!([{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/missing"}]),
            None,
        ),
    ]
}

#[test]
fn rfc6902_appendix_a() {
    for (i, (doc, patch, want)) in rfc6902_cases().into_iter().enumerate() {
        let mut d = doc.clone();
        let p: json_patch::Patch = serde_json::from_value(patch).unwrap();
        let got = json_patch::patch(&mut d, &p).map(|_| d);
        match want {
            Some(w) => assert_eq!(got.unwrap(), w, "case {i}"),
            None => assert!(got.is_err(), "case {i} should fail"),
        }
    }
}

#[test]
fn rfc7386_appendix_a() {
    let cases = [
        (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
        (json!({"a": "b"}), json!({"b": "c"}), json!({"a": "b", "b": "c"})),
        (json!({"a": "b"}), json!({"a": null}), json!({})),
        (json!({"a": "b", "b": "c"}), json!({"a": null}), json!({"b": "c"})),
        (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
        (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
        (json!({"a": {"b": "c"}}), json!({"a": {"b": "d", "c": null}}), json!({"a": {"b": "d"}})),
        (json!({"a": [{"b": "c"}]}), json!({"a": [1]}), json!({"a": [1]})),
        (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
        (json!({"a": "b"}), json!(["c"]), json!(["c"])),
        (json!({"a": "foo"}), json!(null), json!(null)),
        (json!({"a": "foo"}), json!("bar"), json!("bar")),
        (json!({"e": null}), json!({"a": 1}), json!({"e": null, "a": 1})),
        (json!([1, 2]), json!({"a": "b", "c": null}), json!({"a": "b"})),
        (json!({}), json!({"a": {"bb": {"ccc": null}}}), json!({"a": {"bb": {}}})),
    ];
    for (i, (doc, patch, want)) in cases.into_iter().enumerate() {
        let mut d = doc;
        json_patch::merge(&mut d, &patch);
        assert_eq!(d, want, "case {i}");
    }
}

#[test]
fn the_server_answers_a_patch_that_does_not_apply_as_upstream_does() {
    let mut s = server();
    create_cm(&mut s, "p", json!({"a": "b"}));
    let send = |s: &mut kubesim::Server, body: &str| {
        s.handle(
            Request::new("PATCH", "/api/v1/namespaces/default/configmaps/p")
                .with_header("Content-Type", "application/json-patch+json")
                .with_body(body.as_bytes().to_vec()),
        )
    };
    // A failed test: a generic 422 (upstream does not say which operation).
    let r = send(&mut s, r#"[{"op":"test","path":"/data/k","value":"nope"}]"#);
    assert_eq!(r.status, 422);
    let v = r.json_body();
    assert_eq!(
        (v["reason"].as_str(), v["message"].as_str()),
        (Some("Invalid"), Some("the server rejected our request due to an error in our request"))
    );
    // The patch applies whole or not at all.
    let r = send(&mut s, r#"[{"op":"replace","path":"/data/k","value":"x"},{"op":"remove","path":"/data/missing"}]"#);
    assert_eq!(r.status, 422);
    assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/p").json_body()["data"]["k"], "v");
    // test then replace, as the inspector removes a finalizer.
    let r =
        send(&mut s, r#"[{"op":"test","path":"/data/k","value":"v"},{"op":"replace","path":"/data/k","value":"w"}]"#);
    assert_eq!((r.status, r.json_body()["data"]["k"].as_str()), (200, Some("w")));
    // An operation failing after a copy and a move: still a 422 and the
    // object untouched (the patch library's undo used to panic here).
    let r = send(
        &mut s,
        r#"[{"op":"copy","from":"/metadata/name","path":"/data/n"},{"op":"move","from":"/data/n","path":"/dat!/m"}]"#,
    );
    assert_eq!(r.status, 422);
    let v = get(&mut s, "/api/v1/namespaces/default/configmaps/p").json_body();
    assert_eq!((v["data"]["k"].as_str(), v["data"].get("n")), (Some("w"), None));
    // Not a patch document: 400.
    let r = send(&mut s, r#"{"op":"add"}"#);
    assert_eq!(r.status, 400);
}
