//! The protobuf encoding against an independent decoder: random objects of
//! every built-in kind, generated from the kind's schema, go JSON →
//! protobuf → JSON unchanged, and prost's generated messages (the `k8s-pb`
//! crate) decode our bytes and re-encode them to the same bytes — so every
//! field sits under the number and wire type upstream's `generated.proto`
//! gives it.

use kubesim::proto;
use kubesim::schema::schemas;
use kubesim::server::{Request, Server, ServerConfig};
use proptest::prelude::*;
use prost::Message;
use serde_json::{json, Map, Value};

/// A small deterministic generator (xorshift) driven by proptest's seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn word(&mut self) -> String {
        const W: &[&str] = &["a", "web", "x-1", "Zed", "ünï", "10.0.0.1", "key.io/v", "spaces here"];
        W[self.below(W.len() as u64) as usize].to_string() + &self.below(100).to_string()
    }
}

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// A random JSON value for a schema node, `depth` levels deep at most.
/// Scalars are never zero (a zero is "unset" on Go's wire, see proto.rs).
fn value(g: &mut Gen, node: &Value, depth: usize) -> Option<Value> {
    let s = schemas();
    if let Some(r) = node
        .get("$ref")
        .and_then(Value::as_str)
        .or_else(|| node.get("allOf").and_then(|a| a.get(0)).and_then(|x| x.get("$ref")).and_then(Value::as_str))
    {
        let name = r.trim_start_matches("#/definitions/");
        return match name.strip_prefix(META) {
            Some("Time") => Some(json!(format!(
                "20{:02}-0{}-1{}T0{}:1{}:2{}Z",
                10 + g.below(20),
                1 + g.below(9),
                g.below(10),
                g.below(10),
                g.below(6),
                g.below(10)
            ))),
            Some("MicroTime") => Some(json!(format!("2023-11-14T22:13:20.{:06}Z", 1 + g.below(999_999)))),
            Some("FieldsV1") => Some(json!({"f:metadata": {"f:labels": {".": {}}}})),
            Some("Duration") => None,
            _ if name.ends_with("intstr.IntOrString") => {
                Some(if g.below(2) == 0 { json!(1 + g.below(1000)) } else { json!(format!("{}%", 1 + g.below(99))) })
            }
            _ if name.ends_with("resource.Quantity") => {
                Some(json!(["1", "500m", "2Gi", "1.5", "100Ki"][g.below(5) as usize]))
            }
            _ if name.ends_with("runtime.RawExtension") || name.ends_with("apiextensions.v1.JSON") => {
                Some(json!({"any": [1, "json"]}))
            }
            _ if name.contains("JSONSchemaPropsOr") => None,
            _ if depth == 0 => None,
            _ => value(g, s.definition(name)?, depth - 1),
        };
    }
    let ty = node.get("type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "object" => {
            let mut m = Map::new();
            if let Some(Value::Object(props)) = node.get("properties") {
                for (k, p) in props {
                    if k == "kind" || k == "apiVersion" || g.below(3) == 0 {
                        continue;
                    }
                    if let Some(v) = value(g, p, depth) {
                        m.insert(k.clone(), v);
                    }
                }
            } else if let Some(ap) = node.get("additionalProperties") {
                // Never empty: an empty map and an absent one are the same
                // bytes (and the same Go JSON, under omitempty).
                for _ in 0..1 + g.below(2) {
                    if let Some(v) = value(g, ap, depth) {
                        m.insert(g.word(), v);
                    }
                }
                if m.is_empty() {
                    return None;
                }
            }
            Some(Value::Object(m))
        }
        "array" => {
            let items = node.get("items")?;
            let n = 1 + g.below(2);
            let a: Vec<Value> = (0..n).filter_map(|_| value(g, items, depth)).collect();
            (!a.is_empty()).then_some(Value::Array(a))
        }
        "string" => Some(match node.get("format").and_then(Value::as_str) {
            Some("byte") => json!("aGVsbG8="),
            Some("date-time") => json!("2023-11-14T22:13:20Z"),
            _ => json!(g.word()),
        }),
        "integer" => Some(json!(1 + g.below(1 << 20))),
        "boolean" => Some(json!(true)),
        "number" => Some(json!(g.below(1000) as f64 + 0.5)),
        _ => None,
    }
}

macro_rules! kinds {
    ($($api:literal, $kind:literal => $ty:ty;)*) => {
        /// Decodes with prost's generated message for the kind and encodes again.
        fn prost_round_trip(api_version: &str, kind: &str, raw: &[u8]) -> Result<Vec<u8>, String> {
            match (api_version, kind) {
                $(($api, $kind) => <$ty>::decode(raw).map(|m| m.encode_to_vec()).map_err(|e| e.to_string()),)*
                _ => Err(format!("no k8s-pb message listed for {api_version} {kind}")),
            }
        }
        const KINDS: &[(&str, &str)] = &[$(($api, $kind)),*];
    };
}

kinds! {
    "v1", "Namespace" => k8s_pb::api::core::v1::Namespace;
    "v1", "Pod" => k8s_pb::api::core::v1::Pod;
    "v1", "Service" => k8s_pb::api::core::v1::Service;
    "v1", "ConfigMap" => k8s_pb::api::core::v1::ConfigMap;
    "v1", "Secret" => k8s_pb::api::core::v1::Secret;
    "v1", "ServiceAccount" => k8s_pb::api::core::v1::ServiceAccount;
    "v1", "Node" => k8s_pb::api::core::v1::Node;
    "v1", "Event" => k8s_pb::api::core::v1::Event;
    "v1", "Endpoints" => k8s_pb::api::core::v1::Endpoints;
    "v1", "PersistentVolume" => k8s_pb::api::core::v1::PersistentVolume;
    "v1", "PersistentVolumeClaim" => k8s_pb::api::core::v1::PersistentVolumeClaim;
    "apps/v1", "Deployment" => k8s_pb::api::apps::v1::Deployment;
    "apps/v1", "ReplicaSet" => k8s_pb::api::apps::v1::ReplicaSet;
    "apps/v1", "StatefulSet" => k8s_pb::api::apps::v1::StatefulSet;
    "apps/v1", "DaemonSet" => k8s_pb::api::apps::v1::DaemonSet;
    "batch/v1", "Job" => k8s_pb::api::batch::v1::Job;
    "batch/v1", "CronJob" => k8s_pb::api::batch::v1::CronJob;
    "coordination.k8s.io/v1", "Lease" => k8s_pb::api::coordination::v1::Lease;
    "events.k8s.io/v1", "Event" => k8s_pb::api::events::v1::Event;
    "rbac.authorization.k8s.io/v1", "Role" => k8s_pb::api::rbac::v1::Role;
    "rbac.authorization.k8s.io/v1", "RoleBinding" => k8s_pb::api::rbac::v1::RoleBinding;
    "rbac.authorization.k8s.io/v1", "ClusterRole" => k8s_pb::api::rbac::v1::ClusterRole;
    "rbac.authorization.k8s.io/v1", "ClusterRoleBinding" => k8s_pb::api::rbac::v1::ClusterRoleBinding;
    "apiextensions.k8s.io/v1", "CustomResourceDefinition" =>
        k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
}

fn random_object(seed: u64, api_version: &str, kind: &str) -> Value {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let name = schemas().name_of(group, version, kind).expect("schema for kind").to_string();
    let mut g = Gen(seed | 1);
    let mut v = value(&mut g, &json!({"$ref": name}), 6).unwrap_or_else(|| json!({}));
    v["kind"] = json!(kind);
    v["apiVersion"] = json!(api_version);
    // Reorder so kind and apiVersion lead, as decode_object writes them.
    let mut out = Map::new();
    out.insert("kind".into(), v["kind"].take());
    out.insert("apiVersion".into(), v["apiVersion"].take());
    if let Value::Object(rest) = v {
        out.extend(rest.into_iter().filter(|(k, _)| k != "kind" && k != "apiVersion"));
    }
    Value::Object(out)
}

fn raw_of(enveloped: &[u8]) -> Vec<u8> {
    #[derive(Clone, PartialEq, Message)]
    struct Unknown {
        #[prost(bytes = "vec", tag = "2")]
        raw: Vec<u8>,
    }
    assert_eq!(&enveloped[..4], b"k8s\x00");
    Unknown::decode(&enveloped[4..]).expect("an Unknown envelope").raw
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn json_protobuf_json_is_the_identity_and_prost_agrees(seed in any::<u64>()) {
        let mut straight_reads = 0;
        for (api_version, kind) in KINDS {
            let obj = random_object(seed, api_version, kind);
            let bytes = proto::encode_object(&obj).map_err(|e| TestCaseError::fail(format!("{kind}: {e}")))?;
            let back = proto::decode_object(&bytes).map_err(|e| TestCaseError::fail(format!("{kind}: {e}")))?;
            if back != obj {
                let (a, b) = (serde_json::to_string_pretty(&back).unwrap(), serde_json::to_string_pretty(&obj).unwrap());
                let diff: Vec<String> = similar::TextDiff::from_lines(&b, &a)
                    .iter_all_changes()
                    .filter(|c| c.tag() != similar::ChangeTag::Equal)
                    .map(|c| format!("{}{}", if c.tag() == similar::ChangeTag::Delete { "-" } else { "+" }, c))
                    .take(20)
                    .collect();
                return Err(TestCaseError::fail(format!("{kind} did not survive the round trip:\n{}", diff.join(""))));
            }
            let raw = raw_of(&bytes);
            let again = prost_round_trip(api_version, kind, &raw).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&again, &raw, "prost re-encodes {} differently", kind);
            // Read straight from its JSON bytes, as a stored object's first
            // protobuf read is: the same message, or left to the Value
            // encoder (which gives the same).
            let json = serde_json::to_vec(&obj).unwrap();
            if let Some(straight) = proto::transcode(api_version, kind, &json) {
                prop_assert_eq!(&straight, &raw, "{} read from its bytes encodes differently", kind);
                straight_reads += 1;
            }
            prop_assert_eq!(proto::encode_raw_stored(api_version, kind, &json), Ok(raw));
        }
        // (Only a few shapes are left to the Value encoder.)
        prop_assert!(straight_reads * 2 > KINDS.len(), "only {} of {} kinds read straight", straight_reads, KINDS.len());
    }
}

#[test]
fn prost_reads_the_fields_we_wrote() {
    let pod = json!({"kind": "Pod", "apiVersion": "v1",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "creationTimestamp": "2023-11-14T22:13:20Z"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}],
                 "volumes": [{"name": "v", "configMap": {"name": "cm", "defaultMode": 420}}]},
        "status": {"phase": "Running", "podIP": "10.0.0.7"}});
    let raw = raw_of(&proto::encode_object(&pod).unwrap());
    let p = k8s_pb::api::core::v1::Pod::decode(raw.as_slice()).unwrap();
    let meta = p.metadata.unwrap();
    assert_eq!(meta.name.as_deref(), Some("web"));
    assert_eq!(meta.labels.get("app").map(String::as_str), Some("web"));
    assert_eq!(meta.creation_timestamp.unwrap().seconds, Some(1_700_000_000));
    let spec = p.spec.unwrap();
    assert_eq!(spec.containers[0].ports[0].container_port, Some(80));
    let cm = spec.volumes[0].volume_source.as_ref().unwrap().config_map.as_ref().unwrap();
    assert_eq!(cm.local_object_reference.as_ref().unwrap().name.as_deref(), Some("cm"));
    assert_eq!(cm.default_mode, Some(420));
    assert_eq!(p.status.unwrap().pod_ip.as_deref(), Some("10.0.0.7"));
}

/// A prost message's bytes in the `k8s\0` envelope, with its type meta.
fn enveloped(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut body = b"k8s\x00".to_vec();
    let mut tm = Vec::new();
    for (n, s) in [(1u8, api_version), (2, kind)] {
        tm.extend_from_slice(&[n << 3 | 2, s.len() as u8]);
        tm.extend_from_slice(s.as_bytes());
    }
    body.extend_from_slice(&[0x0a, tm.len() as u8]);
    body.extend_from_slice(&tm);
    body.push(0x12);
    prost::encoding::encode_varint(raw.len() as u64, &mut body);
    body.extend_from_slice(raw);
    body
}

/// Go writes a pointer field only when it is set, so a zero there is a
/// zero: a toleration's `tolerationSeconds: 0` (evicted at once, not
/// tolerated forever), an owner reference's `controller: false`, a
/// priority level's `nominalConcurrencyShares: 0` (not defaulted to 30).
/// A non-pointer `omitempty` zero (a Deployment status's `replicas`,
/// `observedGeneration`) reads as unset, as Go's JSON leaves it out.
#[test]
fn go_pointer_zeros_read_as_zeros() {
    use k8s_pb::api::apps::v1 as apps;
    use k8s_pb::api::core::v1 as core;
    use k8s_pb::api::flowcontrol::v1 as fc;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let pod = core::Pod {
        metadata: Some(meta::ObjectMeta {
            name: Some("p".into()),
            owner_references: vec![meta::OwnerReference {
                api_version: Some("v1".into()),
                kind: Some("ConfigMap".into()),
                name: Some("owner".into()),
                uid: Some("u-1".into()),
                controller: Some(false),
                ..Default::default()
            }],
            ..Default::default()
        }),
        spec: Some(core::PodSpec {
            containers: vec![core::Container {
                name: Some("c".into()),
                image: Some("nginx".into()),
                ..Default::default()
            }],
            tolerations: vec![core::Toleration {
                key: Some("k".into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(0),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: Some(Default::default()),
    };
    let v = proto::decode_object(&enveloped("v1", "Pod", &pod.encode_to_vec())).unwrap();
    assert_eq!(v["spec"]["tolerations"][0]["tolerationSeconds"], json!(0));
    assert_eq!(v["metadata"]["ownerReferences"][0]["controller"], json!(false));

    let deployment = apps::Deployment {
        metadata: Some(meta::ObjectMeta { name: Some("d".into()), ..Default::default() }),
        spec: Some(apps::DeploymentSpec { replicas: Some(0), ..Default::default() }),
        status: Some(apps::DeploymentStatus {
            replicas: Some(0),
            observed_generation: Some(0),
            ready_replicas: Some(0),
            ..Default::default()
        }),
    };
    let v = proto::decode_object(&enveloped("apps/v1", "Deployment", &deployment.encode_to_vec())).unwrap();
    assert_eq!(v["spec"], json!({"replicas": 0}));
    assert_eq!(v["status"], json!({}));

    // Through the server: the zero shares stay zero.
    let level = fc::PriorityLevelConfiguration {
        metadata: Some(meta::ObjectMeta { name: Some("none".into()), ..Default::default() }),
        spec: Some(fc::PriorityLevelConfigurationSpec {
            r#type: Some("Limited".into()),
            limited: Some(fc::LimitedPriorityLevelConfiguration {
                nominal_concurrency_shares: Some(0),
                lendable_percent: Some(0),
                limit_response: Some(fc::LimitResponse { r#type: Some("Reject".into()), queuing: None }),
                ..Default::default()
            }),
            exempt: None,
        }),
        status: Some(Default::default()),
    };
    let body = enveloped("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", &level.encode_to_vec());
    let mut s = Server::new(ServerConfig::default());
    let r = s.handle(
        Request::new("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations")
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(body),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let limited = &r.json_body()["spec"]["limited"];
    assert_eq!(limited["nominalConcurrencyShares"], json!(0), "{limited}");
    assert_eq!(limited["lendablePercent"], json!(0), "{limited}");
}

/// Go's encoder writes zero values of non-pointer fields; such a body (as
/// `kubectl create` sends it) reads as the JSON Go would have written.
#[test]
fn go_style_zero_fields_read_as_unset() {
    use k8s_pb::api::core::v1 as core;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let svc = core::Service {
        metadata: Some(meta::ObjectMeta {
            name: Some("s".into()),
            generate_name: Some(String::new()),
            generation: Some(0),
            creation_timestamp: Some(meta::Time::default()),
            ..Default::default()
        }),
        spec: Some(core::ServiceSpec {
            r#type: Some("NodePort".into()),
            ports: vec![core::ServicePort {
                port: Some(80),
                node_port: Some(0),
                protocol: Some("TCP".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: Some(Default::default()),
    };
    let body = enveloped("v1", "Service", &svc.encode_to_vec());
    let v = proto::decode_object(&body).unwrap();
    assert_eq!(v["metadata"], json!({"name": "s"}));
    assert_eq!(v["spec"]["ports"], json!([{"port": 80, "protocol": "TCP"}]));
    assert_eq!(v["status"], json!({}));

    // And the server takes it: the node port is allocated, not 0.
    let mut s = Server::new(ServerConfig::default());
    let r = s.handle(
        Request::new("POST", "/api/v1/namespaces/default/services")
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(body),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    let port = r.json_body()["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&port), "{port}");
}

/// Every resource discovery lists answers a protobuf list (a kind added
/// without its message layout would answer 500).
#[test]
fn every_served_kind_lists_as_protobuf() {
    let mut s = Server::new(ServerConfig::default());
    let mut versions = vec!["/api/v1".to_string()];
    let groups: Value = serde_json::from_slice(&s.handle(Request::new("GET", "/apis")).body).unwrap();
    for g in groups["groups"].as_array().unwrap() {
        versions.push(format!("/apis/{}", g["preferredVersion"]["groupVersion"].as_str().unwrap()));
    }
    for base in versions {
        let list: Value = serde_json::from_slice(&s.handle(Request::new("GET", &base)).body).unwrap();
        for r in list["resources"].as_array().unwrap() {
            let name = r["name"].as_str().unwrap();
            if name.contains('/') || !r["verbs"].as_array().unwrap().iter().any(|v| v == "list") {
                continue;
            }
            let req = Request::new("GET", &format!("{base}/{name}"))
                .with_header("Accept", "application/vnd.kubernetes.protobuf");
            let r = s.handle(req);
            assert_eq!(r.status, 200, "{base}/{name}: {}", String::from_utf8_lossy(&r.body));
        }
    }
}

#[test]
fn values_json_cannot_hold_are_refused_with_400() {
    // A time past year 9999 and a NaN: Go decodes both, then cannot write
    // them as JSON; kubesim refuses them where the body is read
    // (docs/fidelity.md, "Protobuf").
    use k8s_pb::api::core::v1 as core;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let event = core::Event {
        metadata: Some(meta::ObjectMeta { name: Some("e".into()), ..Default::default() }),
        involved_object: Some(core::ObjectReference { kind: Some("Pod".into()), ..Default::default() }),
        event_time: Some(meta::MicroTime { seconds: Some(253_402_300_800), nanos: Some(0) }),
        ..Default::default()
    };
    let mut s = Server::new(ServerConfig::default());
    let r = s.handle(
        Request::new("POST", "/api/v1/namespaces/default/events")
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(proto::envelope("v1", "Event", &event.encode_to_vec())),
    );
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json_body()["message"].as_str().unwrap_or("").contains("timestamp out of range"), "{:?}", r.json_body());

    let mut raw = proto::encode_raw(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        &json!({
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "minimum": 1.5}}}]}}),
    )
    .unwrap();
    // 1.5 as a little-endian double, made NaN.
    let at = raw.windows(8).position(|w| w == 1.5f64.to_le_bytes()).unwrap();
    raw[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    let r = s.handle(
        Request::new("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
            .with_header("Content-Type", "application/vnd.kubernetes.protobuf")
            .with_body(proto::envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", &raw)),
    );
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json_body()["message"].as_str().unwrap_or("").contains("not a finite number"), "{:?}", r.json_body());
}
