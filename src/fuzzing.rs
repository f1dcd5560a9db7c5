//! Entry points for coverage-guided fuzzing (`fuzz/`, cargo-fuzz on a
//! nightly toolchain: `docs/hardening.md`) and for replaying the fuzzers'
//! corpora as ordinary tests (`tests/fuzz_corpus.rs`). Each takes
//! arbitrary bytes, drives one part of the server, and fails only by
//! panicking: every input must get an answer.

use std::cell::RefCell;

use crate::server::{Request, Server, ServerConfig};

const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "BREW"];

const CONTENT_TYPES: [&str; 9] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/json-patch+json",
    "application/apply-patch+yaml",
    "text/plain",
    "",
];

const ACCEPTS: [&str; 8] = [
    "",
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/json;as=Table;g=meta.k8s.io;v=v1",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
    "text/html",
];

/// Where a request goes, before the fuzzer's own suffix (more path, a
/// query: selectors, continue tokens, resourceVersions…).
const TARGETS: [&str; 12] = [
    "/api/v1/namespaces/default/configmaps",
    "/api/v1/namespaces/default/configmaps/x",
    "/api/v1/namespaces/default/pods",
    "/api/v1/namespaces/default/pods/p",
    "/apis/apps/v1/namespaces/default/deployments/x",
    "/apis/apps/v1/namespaces/default/deployments/x/scale",
    "/api/v1/namespaces/default/services/x",
    "/api/v1/namespaces",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
    "/api/v1/pods?",
    "/",
];

/// Objects the fuzzer's requests can read, patch, scale and apply over.
const SEED: [(&str, &str); 4] = [
    ("/api/v1/namespaces/default/configmaps", r#"{"metadata":{"name":"x","labels":{"a":"b"}},"data":{"k":"v"}}"#),
    (
        "/apis/apps/v1/namespaces/default/deployments",
        r#"{"metadata":{"name":"x"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"#,
    ),
    ("/api/v1/namespaces/default/services", r#"{"metadata":{"name":"x"},"spec":{"ports":[{"port":80}]}}"#),
    (
        "/api/v1/namespaces/default/pods",
        r#"{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#,
    ),
];

thread_local! {
    /// One server per thread, seeded afresh every `INPUTS_PER_SERVER`
    /// inputs: a fuzzer's inputs build on what the earlier ones left (a
    /// fresh server per input would be slower than the requests
    /// themselves), but not forever (the simulated clock never moves
    /// here, so nothing is compacted: after 400,000 inputs a watch from
    /// resourceVersion 1 replayed every write, 10–17 s an input, and the
    /// fuzzer slowed to a third).
    static SERVER: RefCell<(Option<Server>, u32)> = const { RefCell::new((None, 0)) };
}

const INPUTS_PER_SERVER: u32 = 5_000;

/// A request from bytes: the first four pick the method, the content
/// type, the Accept header and where it goes; the bytes up to the first
/// newline are appended to the target (lossily as UTF-8); the rest is the
/// body. Asserts the answer is an HTTP status and that an error in JSON
/// is a `Status` with that code.
pub fn request(data: &[u8]) {
    let pick = |i: usize, n: usize| data.get(i).map_or(0, |b| usize::from(*b) % n);
    let method = METHODS[pick(0, METHODS.len())];
    let content_type = CONTENT_TYPES[pick(1, CONTENT_TYPES.len())];
    let accept = ACCEPTS[pick(2, ACCEPTS.len())];
    let base = TARGETS[pick(3, TARGETS.len())];
    let rest = data.get(4..).unwrap_or_default();
    let (suffix, body) = match rest.iter().position(|b| *b == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let target = format!("{base}{}", String::from_utf8_lossy(suffix));
    let mut req = Request::new(method, &target).with_body(body.to_vec());
    if !content_type.is_empty() {
        req = req.with_header("Content-Type", content_type);
    }
    if !accept.is_empty() {
        req = req.with_header("Accept", accept);
    }
    let r = SERVER.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (server, served) = &mut *cell;
        *served += 1;
        if *served > INPUTS_PER_SERVER {
            *served = 1;
            *server = None;
        }
        let s = server.get_or_insert_with(|| {
            let mut s = Server::new(ServerConfig::default());
            for (path, body) in SEED {
                s.handle(Request::new("POST", path).with_body(body.as_bytes().to_vec()));
            }
            s
        });
        s.handle(req)
    });
    assert!((100..600).contains(&r.status), "status {}", r.status);
    let is_json = r.header("Content-Type").is_some_and(|c| c.starts_with("application/json"));
    if r.status >= 400 && is_json {
        let v: serde_json::Value = serde_json::from_slice(&r.body).expect("an error in JSON is JSON");
        assert_eq!(v["kind"], "Status", "{v}");
        assert_eq!(v["code"].as_u64(), Some(u64::from(r.status)), "{v}");
    }
}

/// Label and field selectors from text: parsed, and a parsed one matched
/// against a few labels and fields.
pub fn selectors(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let labels = [("a".to_string(), "b".to_string()), ("app".to_string(), "web".to_string())];
    if let Ok(s) = crate::selector::LabelSelector::parse(&text) {
        let _ = s.matches(&labels) || s.matches(&[]);
    }
    if let Ok(s) = crate::selector::FieldSelector::parse(&text) {
        let _ = s.matches(|f| match f {
            "metadata.name" => Some("x"),
            "metadata.namespace" => Some("default"),
            _ => None,
        });
    }
}

/// YAML text decoded as a body is (anchors, aliases, nesting, repeated
/// keys); whatever it gives must be JSON we can print.
pub fn yaml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(v) = crate::schema::decode::decode_yaml(text) {
        assert!(serde_json::to_vec(&v).is_ok());
        let _ = crate::schema::decode::yaml_repeated_keys(text);
    }
}
