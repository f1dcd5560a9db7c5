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

/// One of `n` choices, by the input's byte at `i` (the first when absent).
fn pick(data: &[u8], i: usize, n: usize) -> usize {
    data.get(i).map_or(0, |b| usize::from(*b) % n)
}

/// A request from bytes: the first four pick the method, the content
/// type, the Accept header and where it goes; the bytes up to the first
/// newline are appended to the target (lossily as UTF-8); the rest is the
/// body. Asserts the answer is an HTTP status and that an error in JSON
/// is a `Status` with that code.
pub fn request(data: &[u8]) {
    let pick = |i: usize, n: usize| pick(data, i, n);
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

/// Kinds whose protobuf bodies the `protobuf` target decodes: the first
/// byte picks one, the rest is the message inside the envelope.
const PROTO_KINDS: [(&str, &str); 16] = [
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "Namespace"),
    ("v1", "Node"),
    ("v1", "Event"),
    ("v1", "PodList"),
    ("v1", "Status"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("batch/v1", "Job"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"),
    ("meta.k8s.io/v1", "DeleteOptions"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
];

/// A protobuf body: the bytes after the first are put in an envelope of
/// the kind the first picks, then decoded as a request body is, and laid
/// out as the wire lens shows it. What decodes must encode, and decode
/// back to the same object (the round trip upstream's generated code
/// keeps); the bytes read as watch frames must not panic either.
pub fn protobuf(data: &[u8]) {
    let (api_version, kind) = PROTO_KINDS[pick(data, 0, PROTO_KINDS.len())];
    let raw = data.get(1..).unwrap_or_default();
    let body = crate::proto::envelope(api_version, kind, raw);
    let spans = crate::proto::annotate(&body);
    assert!(spans.iter().all(|s| s.start <= s.end && s.end <= body.len()), "spans within the body");
    let _ = crate::proto::read_watch_frames(raw);
    if let Ok(v) = crate::proto::decode_object(&body) {
        let again = crate::proto::encode_object(&v).expect("a decoded object encodes");
        let back = crate::proto::decode_object(&again).expect("what was encoded decodes");
        assert_eq!(back, v, "the round trip keeps the object");
        // Encoded from its JSON bytes (as a stored object is), the same.
        let json = serde_json::to_vec(&v).expect("a value serializes");
        assert_eq!(
            crate::proto::encode_raw_stored(api_version, kind, &json),
            crate::proto::encode_raw(api_version, kind, &v),
            "read from its bytes, the object encodes as its value does"
        );
    }
}

/// Objects the `patches` target patches: (apiVersion, kind, the object).
const PATCHED: [(&str, &str, &str); 4] = [
    ("v1", "ConfigMap", SEED[0].1),
    ("apps/v1", "Deployment", SEED[1].1),
    ("v1", "Service", SEED[2].1),
    ("v1", "Pod", SEED[3].1),
];

/// A patch of each kind on its own, as the store applies it, without the
/// server around it: the first byte picks JSON, merge, strategic merge or
/// server-side apply (and, for apply, whether it forces), the second the
/// object, the third the field validation level; the rest is the patch.
/// The patched object is then decoded as the patch handler decodes it;
/// an apply goes over an object another manager applied first, so that
/// it meets ownership and conflicts.
pub fn patches(data: &[u8]) {
    use crate::registry::decode;
    use crate::registry::options::FieldValidation;
    let pick = |i: usize, n: usize| pick(data, i, n);
    let (api_version, kind, json) = PATCHED[pick(1, PATCHED.len())];
    let fv = [FieldValidation::Strict, FieldValidation::Warn, FieldValidation::Ignore][pick(2, 3)];
    let body = data.get(3..).unwrap_or_default();
    let Some(rt) = crate::registry::kinds::builtin_catalog().by_kind(api_version, kind) else {
        panic!("{api_version} {kind} is built in")
    };
    let mut doc: serde_json::Value = serde_json::from_str(json).expect("the objects are JSON");
    doc["apiVersion"] = api_version.into();
    doc["kind"] = kind.into();
    let schemas = crate::schema::schemas();
    let problems = match pick(0, 5) {
        0 => {
            let Ok((patch, problems)) = decode::json_patch(body, fv) else { return };
            if json_patch::patch_unsafe(&mut doc, &patch).is_err() {
                return;
            }
            problems
        }
        1 => {
            let Ok((patch, problems)) = decode::patch_document(body, fv) else { return };
            json_patch::merge(&mut doc, &patch);
            problems
        }
        2 => {
            let Ok((patch, problems)) = decode::patch_document(body, fv) else { return };
            let def = schemas.name_of(rt.group(), rt.version(), rt.kind()).unwrap_or("");
            if crate::patch::apply(schemas, def, &mut doc, &patch).is_err() {
                return;
            }
            problems
        }
        force => {
            let Ok((config, _)) = decode::apply_configuration(rt, body) else { return };
            let writer = |manager| crate::apply::Writer {
                schema: rt.schema(),
                api_version: api_version.to_string(),
                manager,
                subresource: "",
                has_status_subresource: rt.status_subresource,
                now: "2026-01-01T00:00:00Z",
            };
            let live = crate::apply::apply(&writer("first"), None, &doc, false).expect("the first apply creates");
            if let Ok(applied) = crate::apply::apply(&writer("fuzz"), Some(&live), &config, force == 4) {
                assert!(serde_json::to_vec(&applied).is_ok());
            }
            return;
        }
    };
    let mut warnings = Vec::new();
    if let Ok(obj) = decode::patched_object(rt, doc, fv, problems, |v| v.to_string(), &mut warnings) {
        let _ = rt.strategy.validate(&serde_json::Value::Object(obj));
    }
}

/// The opaque and half-opaque strings of a list request: text as a
/// continue token (what decodes must encode and decode back the same), a
/// resourceVersion, an Accept header (negotiated for objects, watches and
/// discovery) and a query string (a list's options, a write's).
pub fn tokens(data: &[u8]) {
    use crate::registry::options::{Subresource, Verb};
    use crate::server::{negotiation, params};
    use crate::storage::continue_token;
    let text = String::from_utf8_lossy(data);
    if let Ok(t) = continue_token::decode(&text) {
        let again = if t.revision.0 == 0 {
            continue_token::encode_inconsistent(&t.start)
        } else {
            continue_token::encode(t.revision, &t.start)
        };
        assert_eq!(continue_token::decode(&again), Ok(t), "a token round-trips");
    }
    let rv = crate::registry::resource_version::ResourceVersion::parse(Some(&text));
    let _ = rv.revision();
    let _ = crate::registry::resource_version::parse(&text);
    for (watch, protobuf) in [(false, false), (false, true), (true, true)] {
        let _ = negotiation::negotiate_output(Some(&text), watch, protobuf);
    }
    let _ = negotiation::negotiate(Some(&text), true);
    let q = params::Query::parse(&text);
    let _ = params::list_options(&q);
    let _ = params::check_write_query("PATCH", &q);
    let _ = params::write_options(Verb::Patch, &q, Some(&text), Subresource::None, None);
}
