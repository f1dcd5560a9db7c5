//! fieldValidation=Ignore|Warn|Strict: unknown fields (by schema, at any
//! depth, metadata included) and duplicate fields, with upstream's words.

mod common;
use common::*;
use kubesim::server::{Request, Response, Server};

const CM: &str = "/api/v1/namespaces/default/configmaps";
const BODY: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"a","colour":"red"},"dta":{"k":"v"},"data":{"k":"v"}}"#;

fn send(s: &mut Server, method: &str, target: &str, content_type: &str, body: &str) -> Response {
    s.handle(Request::new(method, target).with_header("Content-Type", content_type).with_body(body.as_bytes().to_vec()))
}

fn warnings(r: &Response) -> Vec<String> {
    r.headers.iter().filter(|(k, _)| k == "Warning").map(|(_, v)| v.to_string()).collect()
}

#[test]
fn warn_is_the_default_with_one_warning_per_problem_in_document_order_and_unknown_fields_dropped() {
    let mut s = server();
    let r = send(&mut s, "POST", CM, "application/json", BODY);
    assert_eq!(r.status, 201);
    assert_eq!(
        warnings(&r),
        vec![
            r#"299 - "duplicate field \"metadata.name\"""#,
            r#"299 - "unknown field \"metadata.colour\"""#,
            r#"299 - "unknown field \"dta\"""#,
        ]
    );
    let stored = get(&mut s, &format!("{CM}/a")).json_body();
    assert!(stored.get("dta").is_none() && stored["metadata"].get("colour").is_none(), "{stored}");
    assert_eq!(stored["data"]["k"], "v");
}

#[test]
fn strict_refuses_listing_every_problem() {
    let mut s = server();
    let r = send(&mut s, "POST", &format!("{CM}?fieldValidation=Strict"), "application/json", BODY);
    assert_eq!(r.status, 400);
    let v = r.json_body();
    assert_eq!(v["reason"], "BadRequest");
    assert_eq!(
        v["message"],
        r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "metadata.colour", unknown field "dta""#
    );
    assert_eq!(get(&mut s, &format!("{CM}/a")).status, 404, "nothing was stored");
}

#[test]
fn ignore_drops_silently_and_strict_applies_to_put_and_patch() {
    let mut s = server();
    let r = send(&mut s, "POST", &format!("{CM}?fieldValidation=Ignore"), "application/json", BODY);
    assert_eq!((r.status, warnings(&r).len()), (201, 0));

    let put = r#"{"metadata":{"name":"a"},"spec":{"x":1}}"#;
    let r = send(&mut s, "PUT", &format!("{CM}/a?fieldValidation=Strict"), "application/json", put);
    assert_eq!(r.status, 400);
    assert!(r.json_body()["message"].as_str().unwrap().ends_with(r#"strict decoding error: unknown field "spec""#));

    let patch = r#"{"data":{"k":"1","k":"2"},"extra":{"deep":true}}"#;
    let r = send(&mut s, "PATCH", &format!("{CM}/a"), "application/merge-patch+json", patch);
    assert_eq!(r.status, 200);
    assert_eq!(warnings(&r), vec![r#"299 - "duplicate field \"data.k\"""#, r#"299 - "unknown field \"extra\"""#]);
    assert_eq!(r.json_body()["data"]["k"], "2");
    // A patch that Strict refuses is a 422 on the field `patch`.
    let r = send(&mut s, "PATCH", &format!("{CM}/a?fieldValidation=Strict"), "application/merge-patch+json", patch);
    assert_eq!((r.status, r.json_body()["reason"].as_str()), (422, Some("Invalid")));
    let b = r.json_body();
    let message = b["message"].as_str().unwrap();
    assert!(message.starts_with(r#" "" is invalid: patch: Invalid value: "{"#), "{message}");
    assert!(
        message.ends_with(r#"strict decoding error: duplicate field "data.k", unknown field "extra""#),
        "{message}"
    );
    assert_eq!(b["details"]["causes"][0]["field"], "patch");
    let r = send(
        &mut s,
        "PATCH",
        &format!("{CM}/a?fieldValidation=Strict"),
        "application/json-patch+json",
        r#"[{"op":"add","path":"/metadata/bogus","value":1}]"#,
    );
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .ends_with(r#"strict decoding error: unknown field "metadata.bogus""#));
}

#[test]
fn deep_unknown_fields_use_list_indexes() {
    let mut s = server();
    let pod = r#"{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always","resources":{"limits":{"cpu":"1"}},"colour":"x"}]}}"#;
    let r = send(&mut s, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", pod);
    assert_eq!(r.status, 400);
    assert!(r.json_body()["message"].as_str().unwrap().ends_with(r#"unknown field "spec.containers[0].colour""#));
}

#[test]
fn unsupported_field_validation_values_are_invalid_options() {
    let mut s = server();
    let r =
        send(&mut s, "POST", &format!("{CM}?fieldValidation=Loud"), "application/json", r#"{"metadata":{"name":"b"}}"#);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        r#"CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn""#
    );
}

#[test]
fn type_errors_always_fail_whatever_the_level() {
    let mut s = server();
    for level in ["Ignore", "Warn", "Strict"] {
        let r = send(
            &mut s,
            "POST",
            &format!("/apis/apps/v1/namespaces/default/deployments?fieldValidation={level}"),
            "application/json",
            r#"{"metadata":{"name":"d"},"spec":{"replicas":"three"}}"#,
        );
        assert_eq!(r.status, 400, "{level}");
        assert_eq!(
            r.json_body()["message"],
            r#"Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"#
        );
    }
}

#[test]
fn apply_refuses_unknown_fields_whatever_the_level_and_checks_repeated_keys_after_applying() {
    let mut s = server();
    let apply = |s: &mut Server, yaml: &str, level: &str| {
        s.handle(
            Request::new("PATCH", &format!("{CM}/y?fieldManager=m&fieldValidation={level}"))
                .with_header("Content-Type", "application/apply-patch+yaml")
                .with_body(yaml.as_bytes().to_vec()),
        )
    };
    let unknown = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  namespace: default\ncolour: red\n";
    for level in ["Ignore", "Warn", "Strict"] {
        let r = apply(&mut s, unknown, level);
        let b = r.json_body();
        assert_eq!((r.status, b.get("reason")), (500, None), "{level}: {b}");
        assert_eq!(
            b["message"],
            "failed to create typed patch object (default/y; /v1, Kind=ConfigMap): .colour: field not declared in schema"
        );
    }
    let repeated = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: a\n  k: b\n";
    let r = apply(&mut s, repeated, "Strict");
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json_body()["message"],
        "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"k\" already set in map"
    );
    assert_eq!(get(&mut s, &format!("{CM}/y")).status, 404, "nothing was written");
    let r = apply(&mut s, repeated, "Warn");
    assert_eq!(r.status, 201);
    assert_eq!(warnings(&r), vec![r#"299 - "line 7: key \"k\" already set in map""#]);
    assert_eq!(r.json_body()["data"]["k"], "b");
    let r = apply(&mut s, "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: y\n", "Warn");
    assert_eq!(
        (r.status, r.json_body()["message"].clone()),
        (400, serde_json::json!("invalid object type: /v2, Kind=ConfigMap"))
    );
}

/// The strict decoder checks each value's JSON kind against its schema's
/// type as it reads, and the type check's second walk
/// (`first_type_error`) runs only when it saw one that may not fit. So:
/// whenever the decoder says every value fits, the type check must find
/// nothing. Asked of every built-in definition with values made from its
/// schema, some of each kind at random places (a seeded generator).
#[test]
fn the_decoder_says_values_fit_only_when_the_type_check_finds_nothing() {
    use serde_json::{json, Value};
    let schemas = kubesim::schema::schemas();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    fn any(roll: u64) -> Value {
        match roll % 9 {
            0 => json!("text"),
            1 => json!(7),
            2 => json!(-2),
            3 => json!(1.5),
            4 => json!(true),
            5 => Value::Null,
            6 => json!({}),
            7 => json!([1, "x"]),
            _ => json!({"x": {"y": [true]}}),
        }
    }
    fn make(schemas: &kubesim::schema::Schemas, node: &Value, next: &mut dyn FnMut() -> u64, depth: u32) -> Value {
        let r = schemas.resolve(node);
        if next() % 8 == 0 || depth > 5 {
            return any(next());
        }
        if let Some(props) = r.get("properties").and_then(Value::as_object) {
            let mut out = serde_json::Map::new();
            for (k, child) in props {
                if next() % 3 == 0 {
                    out.insert(k.clone(), make(schemas, child, next, depth + 1));
                }
            }
            if next() % 5 == 0 {
                out.insert("unknownField".into(), any(next()));
            }
            return Value::Object(out);
        }
        if let Some(values) = r.get("additionalProperties").filter(|a| a.is_object()) {
            return Value::Object(
                (0..next() % 3).map(|i| (format!("k{i}"), make(schemas, values, next, depth + 1))).collect(),
            );
        }
        if let Some(items) = r.get("items") {
            return Value::Array((0..next() % 3).map(|_| make(schemas, items, next, depth + 1)).collect());
        }
        match r.get("type").and_then(Value::as_str) {
            Some("string") => json!("s"),
            Some("integer") => json!(3),
            Some("number") => [json!(2), json!(0.5)][(next() % 2) as usize].clone(),
            Some("boolean") => json!(false),
            _ => any(next()),
        }
    }
    let (mut fit, mut misfit, mut errors) = (0, 0, 0);
    for (name, def) in schemas.definitions() {
        for _ in 0..12 {
            let body = serde_json::to_vec(&make(schemas, def, &mut next, 0)).unwrap();
            let (value, _, fits) = kubesim::schema::decode::decode_strict(&body, schemas, def).unwrap();
            let error = schemas.first_type_error(name, &value);
            if fits {
                fit += 1;
                assert_eq!(error, None, "{name}: {}", String::from_utf8_lossy(&body));
            } else {
                misfit += 1;
                errors += usize::from(error.is_some());
            }
        }
    }
    // Both answers were given many times, and the type check found errors
    // where the decoder had its doubts.
    assert!(fit > 1000 && misfit > 1000 && errors > 500, "fit {fit}, misfit {misfit}, errors {errors}");
}
