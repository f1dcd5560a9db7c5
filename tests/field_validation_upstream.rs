//! Upstream's field-validation integration test
//! (`test/integration/apiserver/field_validation_test.go`, the typed
//! Deployment cases), ported: create, update, merge, JSON and strategic
//! merge patches and server-side apply, each under Strict, Warn, Ignore and
//! no parameter, with JSON and YAML bodies. The bodies are laid out here
//! anew (same fields, same problems); YAML line numbers follow this layout.
//! Plus validation after every patch type.

mod common;
use common::*;
use kubesim::server::{Request, Response, Server};
use serde_json::json;

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn send(s: &mut Server, method: &str, target: &str, content_type: &str, body: &str) -> Response {
    s.handle(Request::new(method, target).with_header("Content-Type", content_type).with_body(body.as_bytes().to_vec()))
}

fn warnings(r: &Response) -> Vec<String> {
    r.headers
        .iter()
        .filter(|(k, _)| k == "Warning")
        .map(|(_, v)| {
            let text = v.strip_prefix("299 - \"").and_then(|t| t.strip_suffix('"')).unwrap_or(v);
            text.replace("\\\"", "\"")
        })
        .collect()
}

/// A Deployment with every kind of problem: a duplicated name, unknown
/// fields (one of them also duplicated), a duplicated known field, and an
/// unknown and a duplicated field inside a container.
fn invalid_json(name: &str) -> String {
    format!(
        r#"{{"apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {{"name": "dupename", "name": "{name}", "labels": {{"app": "nginx"}}, "unknownMeta": "metaVal"}},
  "spec": {{
    "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
    "paused": true, "paused": false,
    "selector": {{"matchLabels": {{"app": "nginx"}}}},
    "template": {{"metadata": {{"labels": {{"app": "nginx"}}}},
      "spec": {{"containers": [{{"name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
        "imagePullPolicy": "Always", "imagePullPolicy": "Never"}}]}}}}}}}}"#
    )
}

/// The same problems in YAML; the repeated keys are on lines 5, 12, 14, 28.
fn invalid_yaml(name: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: {name}
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never
"
    )
}

fn valid_json(name: &str) -> String {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": "nginx"}, "annotations": {"a1": "foo", "a2": "bar"}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "imagePullPolicy": "Always"}]}}}})
    .to_string()
}

const JSON_PROBLEMS: &[&str] = &[
    r#"duplicate field "metadata.name""#,
    r#"unknown field "metadata.unknownMeta""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
    r#"duplicate field "spec.paused""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
];

const YAML_REPEATS: &[&str] = &[
    r#"line 5: key "name" already set in map"#,
    r#"line 12: key "unknownDupe" already set in map"#,
    r#"line 14: key "paused" already set in map"#,
    r#"line 28: key "imagePullPolicy" already set in map"#,
];

const YAML_UNKNOWN: &[&str] = &[
    r#"unknown field "metadata.unknownMeta""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
];

fn strict_json_message() -> String {
    format!(
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: {}",
        JSON_PROBLEMS.join(", ")
    )
}

fn strict_yaml_message() -> String {
    format!(
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: yaml: unmarshal errors:\n  {}, {}",
        YAML_REPEATS.join("\n  "),
        YAML_UNKNOWN.join(", ")
    )
}

fn yaml_warnings() -> Vec<String> {
    YAML_REPEATS.iter().chain(YAML_UNKNOWN).map(|s| s.to_string()).collect()
}

/// `testFieldValidationPost` and `testFieldValidationPut`.
#[test]
fn create_and_update_with_json_and_yaml_bodies() {
    let mut s = server();
    for (method, ok) in [("POST", 201), ("PUT", 200)] {
        for (i, (level, yaml)) in [
            ("Strict", false),
            ("Warn", false),
            ("Ignore", false),
            ("", false),
            ("Strict", true),
            ("Warn", true),
            ("Ignore", true),
            ("", true),
        ]
        .into_iter()
        .enumerate()
        {
            let name = if method == "PUT" { "test-deployment-put".to_string() } else { format!("post-{i}") };
            if method == "PUT" && i == 0 {
                assert_eq!(send(&mut s, "POST", DEPLOYMENTS, "application/json", &valid_json(&name)).status, 201);
            }
            let target = match (method, level) {
                ("POST", "") => DEPLOYMENTS.to_string(),
                ("POST", l) => format!("{DEPLOYMENTS}?fieldValidation={l}"),
                (_, "") => format!("{DEPLOYMENTS}/{name}"),
                (_, l) => format!("{DEPLOYMENTS}/{name}?fieldValidation={l}"),
            };
            let (content_type, body) = if yaml {
                ("application/yaml", invalid_yaml(&name))
            } else {
                ("application/json", invalid_json(&name))
            };
            let r = send(&mut s, method, &target, content_type, &body);
            let case = format!("{method} {level:?} yaml={yaml}");
            match level {
                "Strict" => {
                    assert_eq!(r.status, 400, "{case}");
                    let want = if yaml { strict_yaml_message() } else { strict_json_message() };
                    assert_eq!(r.json_body()["message"], want, "{case}");
                }
                "Ignore" => assert_eq!((r.status, warnings(&r)), (ok, vec![]), "{case}"),
                _ => {
                    assert_eq!(r.status, ok, "{case}: {}", String::from_utf8_lossy(&r.body));
                    let want: Vec<String> =
                        if yaml { yaml_warnings() } else { JSON_PROBLEMS.iter().map(|s| s.to_string()).collect() };
                    assert_eq!(warnings(&r), want, "{case}");
                }
            }
        }
    }
}

const MERGE_PATCH: &str = r#"{"spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
  "paused": true, "paused": false,
  "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
    "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}"#;

const JSON_PATCH: &str = r#"[
  {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo": "bar"},
  {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
  {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
  {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
  {"op": "add", "path": "/spec/paused", "value": true},
  {"op": "add", "path": "/spec/paused", "value": false},
  {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
  {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
  {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
]"#;

const NONCONFLICTING_MERGE_PATCH: &str = r#"{"spec": {"paused": true, "paused": false,
  "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:latest",
    "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}"#;

const SMP: &str = r#"{"spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
  "paused": true, "paused": false,
  "selector": {"matchLabels": {"app": "nginx"}},
  "template": {"metadata": {"labels": {"app": "nginx"}},
    "spec": {"containers": [{"name": "nginx", "unknownNested": "val1",
      "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}"#;

const NONCONFLICTING_SMP: &str = r#"{"spec": {"paused": true, "paused": false,
  "selector": {"matchLabels": {"app": "nginx"}},
  "template": {"metadata": {"labels": {"app": "nginx"}},
    "spec": {"containers": [{"name": "nginx", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}"#;

const PATCH_PROBLEMS: &[&str] = &[
    r#"duplicate field "spec.unknownDupe""#,
    r#"duplicate field "spec.paused""#,
    r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
];

const JSON_PATCH_PROBLEMS: &[&str] = &[
    r#"json patch unknown field "[0].foo""#,
    r#"json patch duplicate field "[1].path""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknown3""#,
    r#"unknown field "spec.unknownDupe""#,
];

const NONCONFLICTING_PROBLEMS: &[&str] =
    &[r#"duplicate field "spec.paused""#, r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#];

/// `testFieldValidationPatchTyped` and `testFieldValidationSMP`: the
/// patch's own problems first, then the patched object's unknown fields;
/// Strict refuses with 422 on the field `patch`.
#[test]
fn merge_json_and_strategic_patches() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("application/merge-patch+json", MERGE_PATCH, PATCH_PROBLEMS),
        ("application/json-patch+json", JSON_PATCH, JSON_PATCH_PROBLEMS),
        ("application/merge-patch+json", NONCONFLICTING_MERGE_PATCH, NONCONFLICTING_PROBLEMS),
        ("application/strategic-merge-patch+json", SMP, PATCH_PROBLEMS),
        ("application/strategic-merge-patch+json", NONCONFLICTING_SMP, NONCONFLICTING_PROBLEMS),
    ];
    for (i, (content_type, patch, problems)) in cases.iter().enumerate() {
        for level in ["Strict", "Warn", "Ignore", ""] {
            let mut s = server();
            let name = format!("patch-{i}");
            assert_eq!(send(&mut s, "POST", DEPLOYMENTS, "application/json", &valid_json(&name)).status, 201);
            let target = if level.is_empty() {
                format!("{DEPLOYMENTS}/{name}")
            } else {
                format!("{DEPLOYMENTS}/{name}?fieldValidation={level}")
            };
            let r = send(&mut s, "PATCH", &target, content_type, patch);
            let case = format!("{content_type} #{i} {level:?}");
            match level {
                "Strict" => {
                    let b = r.json_body();
                    assert_eq!((r.status, b["reason"].as_str()), (422, Some("Invalid")), "{case}: {b}");
                    let message = b["message"].as_str().unwrap();
                    assert!(message.starts_with(r#" "" is invalid: patch: Invalid value: ""#), "{case}: {message}");
                    assert!(
                        message.ends_with(&format!("strict decoding error: {}", problems.join(", "))),
                        "{case}: {message}"
                    );
                    assert_eq!(b["details"]["causes"][0]["field"], "patch");
                    assert_eq!(b["details"]["causes"][0]["reason"], "FieldValueInvalid");
                }
                "Ignore" => assert_eq!((r.status, warnings(&r)), (200, vec![]), "{case}"),
                _ => {
                    assert_eq!(r.status, 200, "{case}: {}", String::from_utf8_lossy(&r.body));
                    assert_eq!(warnings(&r), *problems, "{case}");
                    let d = r.json_body();
                    // The last of repeated keys wins: false, which Go's
                    // encoding leaves out (true would be there).
                    assert!(d["spec"].get("paused").is_none(), "{case}: the last of repeated keys wins");
                    assert_eq!(d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"], "Never", "{case}");
                    assert!(d["spec"].get("unknown1").is_none(), "{case}: unknown fields are dropped");
                }
            }
        }
    }
}

/// A JSON patch's repeated `path` applies its last value, whatever the level.
#[test]
fn a_json_patch_operation_with_a_repeated_key_applies_the_last() {
    let mut s = server();
    assert_eq!(send(&mut s, "POST", DEPLOYMENTS, "application/json", &valid_json("d")).status, 201);
    let patch = r#"[{"op": "add", "path": "/spec/replicas", "path": "/spec/paused", "value": true}]"#;
    let r =
        send(&mut s, "PATCH", &format!("{DEPLOYMENTS}/d?fieldValidation=Ignore"), "application/json-patch+json", patch);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        (r.json_body()["spec"]["paused"].clone(), r.json_body()["spec"]["replicas"].clone()),
        (json!(true), json!(2))
    );
}

/// JSON written as an apply configuration; the repeated keys are on lines
/// 10 and 19.
fn apply_body(name: &str) -> String {
    format!(
        r#"{{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {{
    "name": "{name}",
    "labels": {{"app": "nginx"}}
  }},
  "spec": {{
    "paused": false,
    "paused": true,
    "selector": {{"matchLabels": {{"app": "nginx"}}}},
    "template": {{
      "metadata": {{"labels": {{"app": "nginx"}}}},
      "spec": {{
        "containers": [{{
          "name": "nginx",
          "image": "nginx:latest",
          "imagePullPolicy": "Never",
          "imagePullPolicy": "Always"
        }}]
      }}
    }}
  }}
}}"#
    )
}

/// `testFieldValidationApplyCreate` and `testFieldValidationApplyUpdate`.
#[test]
fn server_side_apply_creating_and_updating() {
    let repeats =
        [r#"line 10: key "paused" already set in map"#, r#"line 19: key "imagePullPolicy" already set in map"#];
    for update in [false, true] {
        for level in ["Strict", "Warn", "Ignore", ""] {
            let mut s = server();
            let name = format!("apply-{}-{}", if update { "update" } else { "create" }, level.to_lowercase() + "x");
            let target = if level.is_empty() {
                format!("{DEPLOYMENTS}/{name}?fieldManager=mgr")
            } else {
                format!("{DEPLOYMENTS}/{name}?fieldManager=mgr&fieldValidation={level}")
            };
            if update {
                let r = send(&mut s, "PATCH", &target, "application/apply-patch+yaml", &valid_json(&name));
                assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
            }
            let r = send(&mut s, "PATCH", &target, "application/apply-patch+yaml", &apply_body(&name));
            let ok = if update { 200 } else { 201 };
            let case = format!("update={update} {level:?}");
            match level {
                "Strict" => {
                    assert_eq!(r.status, 400, "{case}");
                    assert_eq!(
                        r.json_body()["message"],
                        format!(
                            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
                            repeats.join("\n  ")
                        ),
                        "{case}"
                    );
                }
                "Ignore" => assert_eq!((r.status, warnings(&r)), (ok, vec![]), "{case}"),
                _ => {
                    assert_eq!(r.status, ok, "{case}: {}", String::from_utf8_lossy(&r.body));
                    assert_eq!(warnings(&r), repeats, "{case}");
                }
            }
        }
    }
    // An undeclared field is no decoding problem for apply: building the
    // typed object fails, whatever the level.
    let mut s = server();
    let body = valid_json("u").replace(r#""replicas":2"#, r#""replicas":2,"foo":1"#);
    let r = send(
        &mut s,
        "PATCH",
        &format!("{DEPLOYMENTS}/u?fieldManager=mgr&fieldValidation=Ignore"),
        "application/apply-patch+yaml",
        &body,
    );
    assert_eq!(r.status, 500);
    assert_eq!(
        r.json_body()["message"],
        "failed to create typed patch object (/u; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema"
    );
}

/// Every patch type validates what it produced as an update would: a bad
/// label value or container name is a 422 with upstream's cause, never a
/// 200.
#[test]
fn every_patch_type_validates_the_patched_object() {
    let mut s = server();
    assert_eq!(send(&mut s, "POST", DEPLOYMENTS, "application/json", &valid_json("web")).status, 201);
    let d = format!("{DEPLOYMENTS}/web");
    let label = "spec.template.metadata.labels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let container = "spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    let cases: &[(&str, &str, &str)] = &[
        (
            "application/json-patch+json",
            r#"[{"op":"replace","path":"/spec/template/spec/containers/0/name","value":"Bad_Name"}]"#,
            container,
        ),
        (
            "application/merge-patch+json",
            r#"{"spec":{"template":{"spec":{"containers":[{"name":"Bad_Name","image":"nginx"}]}}}}"#,
            container,
        ),
        (
            "application/strategic-merge-patch+json",
            r#"{"spec":{"template":{"metadata":{"labels":{"extra":"bad value!"}}}}}"#,
            label,
        ),
        (
            "application/merge-patch+json",
            r#"{"spec":{"template":{"metadata":{"labels":{"extra":"bad value!"}}}}}"#,
            label,
        ),
    ];
    for (content_type, patch, cause) in cases {
        let r = send(&mut s, "PATCH", &d, content_type, patch);
        let b = r.json_body();
        assert_eq!((r.status, b["reason"].as_str()), (422, Some("Invalid")), "{content_type} {patch}: {b}");
        let message = b["message"].as_str().unwrap();
        assert!(message.starts_with("Deployment.apps \"web\" is invalid: "), "{message}");
        assert!(message.contains(cause), "{content_type}: {message}");
    }
    // Apply too.
    let applied = valid_json("web").replace("\"name\":\"nginx\"", "\"name\":\"Bad_Name\"");
    let r = send(&mut s, "PATCH", &format!("{d}?fieldManager=m&force=true"), "application/apply-patch+yaml", &applied);
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json_body()["message"].as_str().unwrap().contains("Invalid value: \"Bad_Name\""));
    // A container name with a dot says so.
    let r = send(
        &mut s,
        "PATCH",
        &d,
        "application/json-patch+json",
        r#"[{"op":"replace","path":"/spec/template/spec/containers/0/name","value":"a.b"}]"#,
    );
    assert_eq!(r.status, 422);
    assert!(
        r.json_body()["message"]
            .as_str()
            .unwrap()
            .ends_with("containers[0].name: Invalid value: \"a.b\": must not contain dots"),
        "{}",
        r.json_body()["message"]
    );
    // A ConfigMap's label set by a JSON patch.
    create_cm(&mut s, "c", json!({}));
    let r = send(
        &mut s,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/c",
        "application/json-patch+json",
        r#"[{"op":"add","path":"/metadata/labels","value":{"app":"bad value!"}}]"#,
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json_body()["details"]["causes"][0]["field"], "metadata.labels");
    // Warnings of a Warn-level request survive its failure.
    let r = send(
        &mut s,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/c",
        "application/merge-patch+json",
        r#"{"colour":"red","metadata":{"labels":{"app":"bad value!"}}}"#,
    );
    assert_eq!((r.status, warnings(&r)), (422, vec![r#"unknown field "colour""#.to_string()]));
}

/// Update-only rules, whatever the write: a workload's selector, an
/// immutable ConfigMap's or Secret's data, a Secret's type.
#[test]
fn updates_keep_what_may_not_change() {
    let mut s = server();
    assert_eq!(send(&mut s, "POST", DEPLOYMENTS, "application/json", &valid_json("web")).status, 201);
    let patch =
        r#"{"spec":{"selector":{"matchLabels":{"app":"web2"}},"template":{"metadata":{"labels":{"app":"web2"}}}}}"#;
    let r = send(&mut s, "PATCH", &format!("{DEPLOYMENTS}/web"), "application/merge-patch+json", patch);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"
    );
    let cm = "/api/v1/namespaces/default/configmaps";
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "frozen"}, "immutable": true, "data": {"k": "v"}});
    assert_eq!(send(&mut s, "POST", cm, "application/json", &body.to_string()).status, 201);
    let r = send(&mut s, "PATCH", &format!("{cm}/frozen"), "application/merge-patch+json", r#"{"data":{"k":"w"}}"#);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"
    );
    let r = send(&mut s, "PATCH", &format!("{cm}/frozen"), "application/merge-patch+json", r#"{"immutable":false}"#);
    assert_eq!(
        r.json_body()["message"],
        "ConfigMap \"frozen\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set"
    );
    // Labels may still change.
    let r = send(
        &mut s,
        "PATCH",
        &format!("{cm}/frozen"),
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"a":"b"}}}"#,
    );
    assert_eq!(r.status, 200);
    let secrets = "/api/v1/namespaces/default/secrets";
    let body = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque"});
    assert_eq!(send(&mut s, "POST", secrets, "application/json", &body.to_string()).status, 201);
    let r = send(
        &mut s,
        "PATCH",
        &format!("{secrets}/s"),
        "application/merge-patch+json",
        r#"{"type":"kubernetes.io/tls"}"#,
    );
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .contains("type: Invalid value: \"kubernetes.io/tls\": field is immutable"));
}
