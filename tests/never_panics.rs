//! Any request gets an answer: random methods, paths, queries, headers and
//! bodies never panic, and every error is a JSON Status whose code is the
//! HTTP status.

use kubesim::server::{Request, Server, ServerConfig};
use proptest::prelude::*;

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("api".to_string()),
        Just("apis".to_string()),
        Just("v1".to_string()),
        Just("apps".to_string()),
        Just("namespaces".to_string()),
        Just("default".to_string()),
        Just("pods".to_string()),
        Just("configmaps".to_string()),
        Just("status".to_string()),
        Just("debug".to_string()),
        Just("kubesim".to_string()),
        Just("clock".to_string()),
        Just("".to_string()),
        Just("..".to_string()),
        Just("%2F".to_string()),
        "[a-z0-9%._-]{0,12}",
        "\\PC{0,8}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("watch"),
        Just("resourceVersion"),
        Just("resourceVersionMatch"),
        Just("limit"),
        Just("continue"),
        Just("labelSelector"),
        Just("fieldSelector"),
        Just("allowWatchBookmarks"),
        Just("sendInitialEvents"),
        Just("timeoutSeconds"),
        Just("propagationPolicy"),
        Just("dryRun"),
        Just("advance"),
        Just("gracePeriodSeconds"),
    ];
    proptest::collection::vec((key, prop_oneof!["[ -~]{0,16}", "\\PC{0,12}"]), 0..5).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()))
            .collect::<Vec<_>>()
            .join("&")
    })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        Just(br#"{"metadata":{"name":"x"}}"#.to_vec()),
        Just(br#"{"metadata":{"name":"x","labels":{"a":1}},"kind":"Pod"}"#.to_vec()),
        Just(br#"{"metadata":"nope"}"#.to_vec()),
        Just(br#"[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]"#.to_vec()),
        Just(br#"{"metadata":{"generateName":"g-","finalizers":[1]}}"#.to_vec()),
        proptest::collection::vec(any::<u8>(), 0..64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    #[test]
    fn every_request_gets_an_answer(
        method in prop_oneof![Just("GET"), Just("POST"), Just("PUT"), Just("PATCH"), Just("DELETE"), Just("HEAD"), Just("BREW")],
        segs in proptest::collection::vec(segment(), 0..7),
        q in query(),
        ct in prop_oneof![Just("application/json"), Just("application/merge-patch+json"), Just("application/json-patch+json"), Just("text/plain")],
        accept in prop_oneof![Just(""), Just("application/json"), Just("*/*"), Just("application/vnd.kubernetes.protobuf"), Just("application/json;as=Table;g=meta.k8s.io;v=v1")],
        b in body(),
    ) {
        let mut s = Server::new(ServerConfig::default());
        let target = format!("/{}?{q}", segs.join("/"));
        let mut req = Request::new(method, &target).with_header("Content-Type", ct).with_body(b);
        if !accept.is_empty() {
            req = req.with_header("Accept", accept);
        }
        let r = s.handle(req);
        prop_assert!((200..600).contains(&r.status));
        let is_json = r.header("Content-Type").is_some_and(|c| c.starts_with("application/json"));
        if r.status >= 400 && is_json {
            let v: serde_json::Value = serde_json::from_slice(&r.body).expect("error bodies are JSON");
            prop_assert_eq!(&v["kind"], "Status");
            prop_assert_eq!(v["code"].as_u64(), Some(r.status as u64));
        }
    }
}
