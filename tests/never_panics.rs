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
        Just("deployments".to_string()),
        Just("services".to_string()),
        Just("x".to_string()),
        Just("scale".to_string()),
        Just("openapi".to_string()),
        Just("v2".to_string()),
        Just("v3".to_string()),
        Just("history".to_string()),
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
        Just("fieldManager"),
        Just("fieldValidation"),
        Just("force"),
        Just("after"),
    ];
    proptest::collection::vec((key, prop_oneof!["[ -~]{0,16}", "\\PC{0,12}"]), 0..5).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()))
            .collect::<Vec<_>>()
            .join("&")
    })
}

fn protobuf_pod() -> Vec<u8> {
    kubesim::proto::encode_object(&serde_json::json!({"kind": "Pod", "apiVersion": "v1",
        "metadata": {"name": "x", "labels": {"a": "b"}, "creationTimestamp": "2023-11-14T22:13:20Z"},
        "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
            "livenessProbe": {"httpGet": {"port": "http"}}}]}}))
    .unwrap_or_default()
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(protobuf_pod()),
        (any::<usize>(), 1..=255u8).prop_map(|(i, x)| {
            let mut v = protobuf_pod();
            let n = v.len();
            v[i % n] ^= x;
            v
        }),
        (any::<usize>()).prop_map(|i| {
            let mut v = protobuf_pod();
            v.truncate(i % v.len());
            v
        }),
        Just(Vec::new()),
        Just(br#"{"metadata":{"name":"x"}}"#.to_vec()),
        Just(br#"{"metadata":{"name":"x","labels":{"a":1}},"kind":"Pod"}"#.to_vec()),
        Just(br#"{"metadata":"nope"}"#.to_vec()),
        Just(br#"[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]"#.to_vec()),
        Just(br#"{"metadata":{"generateName":"g-","finalizers":[1]}}"#.to_vec()),
        Just(br#"{"metadata":{"name":"x","managedFields":[{}]},"data":{"k":"v","k":"w"}}"#.to_vec()),
        Just(br#"{"metadata":{"name":"x","managedFields":[{"manager":1,"fieldsV1":{"f:x":{"k:{bad":{}}}}]}}"#.to_vec()),
        Just(br#"{"spec":{"replicas":"three","template":{"spec":{"containers":[{"image":"x"},{"name":"c","$patch":"delete"}]}}}}"#.to_vec()),
        Just(br#"{"spec":{"$patch":"replace","$retainKeys":"no","$setElementOrder/containers":[1],"$deleteFromPrimitiveList/x":{}}}"#.to_vec()),
        Just(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: a\n  k: b\n".to_vec()),
        Just(b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: 3, selector: {matchLabels: {a: b}}}\n".to_vec()),
        Just(b"- not\n- a map\n".to_vec()),
        Just(br#"{"spec":{"ports":[{"port":70000,"protocol":"XYZ"}],"type":"Nope","clusterIP":"10.96.0.1"}}"#.to_vec()),
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
        ct in prop_oneof![
            Just("application/json"),
            Just("application/merge-patch+json"),
            Just("application/json-patch+json"),
            Just("application/strategic-merge-patch+json"),
            Just("application/apply-patch+yaml"),
            Just("application/yaml"),
            Just("application/vnd.kubernetes.protobuf"),
            Just("text/plain"),
        ],
        accept in prop_oneof![
            Just(""),
            Just("application/json"),
            Just("*/*"),
            Just("application/vnd.kubernetes.protobuf"),
            Just("application/json;as=Table;g=meta.k8s.io;v=v1"),
            Just("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"),
            Just("application/yaml"),
            Just("application/yaml;q=0.2, application/json"),
            Just("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Just("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"),
            Just("application/yaml;as=Table;g=meta.k8s.io;v=v1beta1"),
        ],
        b in body(),
    ) {
        let mut s = Server::new(ServerConfig::default());
        // Objects to patch, scale and apply over.
        for (path, body) in [
            ("/api/v1/namespaces/default/configmaps", r#"{"metadata":{"name":"x"},"data":{"k":"v"}}"#),
            ("/apis/apps/v1/namespaces/default/deployments", r#"{"metadata":{"name":"x"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"#),
            ("/api/v1/namespaces/default/services", r#"{"metadata":{"name":"x"},"spec":{"ports":[{"port":80}]}}"#),
        ] {
            s.handle(Request::new("POST", path).with_body(body.as_bytes().to_vec()));
        }
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
        let is_protobuf = r.header("Content-Type").is_some_and(|c| c == "application/vnd.kubernetes.protobuf");
        if is_protobuf {
            let v = kubesim::proto::decode_object(&r.body).expect("protobuf answers decode");
            if r.status >= 400 {
                prop_assert_eq!(&v["kind"], "Status");
            }
        }
    }
}
