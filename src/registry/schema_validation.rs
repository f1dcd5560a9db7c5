//! A custom resource's values checked against its definition's schema,
//! and its defaults filled in, as the apiextensions server does with
//! kube-openapi's validator and its structural defaulting: field errors
//! with the validator's words (`spec.size in body must be of type integer:
//! "string"`, `should be less than or equal to 3`, `supported values`…),
//! each at its field path (`spec.ports[0].port`).

use serde_json::{Map, Value};

use crate::api::FieldError;

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn matches_type(want: &str, v: &Value) -> bool {
    match (want, v) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        ("number", Value::Number(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("string", Value::String(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        _ => false,
    }
}

/// A number as Go's `%v` prints it.
fn num(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        Some(f) => f.to_string(),
        None => v.to_string(),
    }
}

/// A bad value as the validator's errors print it.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

fn invalid(path: &str, v: &Value, detail: String) -> FieldError {
    FieldError::invalid_raw(path, &shown(v), &detail)
}

/// Every problem with `value` under `schema`, at `path` (empty: the root).
pub fn validate(schema: &Value, value: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let Some(s) = schema.as_object() else { return };
    if s.contains_key("$ref") {
        // Object metadata: checked by the store, as for every kind.
        return;
    }
    let at = |child: &str| if path.is_empty() { child.to_string() } else { format!("{path}.{child}") };
    let shown_path = if path.is_empty() { "body".to_string() } else { path.to_string() };
    if value.is_null() {
        // A null where none may be is pruned before validation upstream.
        return;
    }
    if s.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true) {
        if !matches!(value, Value::String(_)) && !matches_type("integer", value) {
            errs.push(invalid(
                path,
                &Value::String(type_of(value).into()),
                format!("{shown_path} in body must be of type int-or-string: {:?}", type_of(value)),
            ));
        }
        return;
    }
    if let Some(want) = s.get("type").and_then(Value::as_str) {
        if !matches_type(want, value) {
            errs.push(invalid(
                path,
                &Value::String(type_of(value).into()),
                format!("{shown_path} in body must be of type {want}: {:?}", type_of(value)),
            ));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = s.get("enum") {
        if !allowed.contains(value) {
            let supported: Vec<String> =
                allowed.iter().map(|a| a.as_str().map_or(a.to_string(), str::to_string)).collect();
            let refs: Vec<&str> = supported.iter().map(String::as_str).collect();
            match value {
                Value::String(v) => errs.push(FieldError::not_supported(path, v, &refs)),
                other => errs.push(FieldError::not_supported_value(path, &other.to_string(), &refs)),
            }
        }
    }
    match value {
        Value::String(text) => {
            let len = text.chars().count() as u64;
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64).filter(|m| len > *m) {
                errs.push(FieldError::too_long(path, &format!("may not be more than {max} bytes")));
            }
            if let Some(min) = s.get("minLength").and_then(Value::as_u64).filter(|m| len < *m) {
                errs.push(invalid(path, value, format!("{shown_path} in body should be at least {min} chars long")));
            }
            if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                if regex_lite::Regex::new(p).is_ok_and(|re| !re.is_match(text)) {
                    errs.push(invalid(path, value, format!("{shown_path} in body should match '{p}'")));
                }
            }
        }
        Value::Number(_) => {
            let f = value.as_f64().unwrap_or(0.0);
            if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
                let exclusive = s.get("exclusiveMaximum").and_then(Value::as_bool) == Some(true);
                if f > max || (exclusive && f == max) {
                    let how = if exclusive { "less than" } else { "less than or equal to" };
                    errs.push(invalid(
                        path,
                        value,
                        format!("{shown_path} in body should be {how} {}", num(&s["maximum"])),
                    ));
                }
            }
            if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
                let exclusive = s.get("exclusiveMinimum").and_then(Value::as_bool) == Some(true);
                if f < min || (exclusive && f == min) {
                    let how = if exclusive { "greater than" } else { "greater than or equal to" };
                    errs.push(invalid(
                        path,
                        value,
                        format!("{shown_path} in body should be {how} {}", num(&s["minimum"])),
                    ));
                }
            }
            if let Some(m) = s.get("multipleOf").and_then(Value::as_f64).filter(|m| *m != 0.0) {
                if (f / m).fract() != 0.0 {
                    errs.push(invalid(
                        path,
                        value,
                        format!("{shown_path} in body should be a multiple of {}", num(&s["multipleOf"])),
                    ));
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|m| items.len() as u64 > *m) {
                errs.push(FieldError::too_many(path, items.len(), &format!("must have at most {max} items")));
            }
            if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|m| (items.len() as u64) < *m) {
                errs.push(invalid(path, value, format!("{shown_path} in body should have at least {min} items")));
            }
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter().enumerate() {
                    validate(item_schema, item, &format!("{path}[{i}]"), errs);
                }
            }
        }
        Value::Object(m) => {
            for r in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !m.contains_key(r) {
                    errs.push(FieldError::required(&at(r), ""));
                }
            }
            if let Some(max) = s.get("maxProperties").and_then(Value::as_u64).filter(|x| m.len() as u64 > *x) {
                errs.push(FieldError::too_many(path, m.len(), &format!("must have at most {max} items")));
            }
            if let Some(min) = s.get("minProperties").and_then(Value::as_u64).filter(|x| (m.len() as u64) < *x) {
                errs.push(invalid(path, value, format!("{shown_path} in body should have at least {min} properties")));
            }
            let props = s.get("properties").and_then(Value::as_object);
            let extra = s.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in m {
                match (props.and_then(|p| p.get(k)), extra) {
                    (Some(ps), _) => validate(ps, v, &at(k), errs),
                    (None, Some(ap)) => validate(ap, v, &at(k), errs),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Fills in defaults top-down (upstream's structural defaulting): a
/// property with a `default` that is absent, or null and not nullable,
/// gets a copy of it, which is then itself defaulted inside; items and
/// additional properties are defaulted only where they are null.
pub fn default(schema: &Value, value: &mut Value) {
    let Some(s) = schema.as_object() else { return };
    match value {
        Value::Object(m) => {
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, ps) in props {
                    let Some(d) = ps.get("default") else { continue };
                    let nullable = ps.get("nullable").and_then(Value::as_bool) == Some(true);
                    match m.get(k) {
                        None => {
                            m.insert(k.clone(), d.clone());
                        }
                        Some(Value::Null) if !nullable => {
                            m.insert(k.clone(), d.clone());
                        }
                        _ => {}
                    }
                }
                for (k, v) in m.iter_mut() {
                    if let Some(ps) = props.get(k) {
                        default(ps, v);
                    }
                }
            } else if let Some(ap) = s.get("additionalProperties").filter(|a| a.is_object()) {
                for v in m.values_mut() {
                    null_default(ap, v);
                    default(ap, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(is) = s.get("items") {
                for v in items.iter_mut() {
                    null_default(is, v);
                    default(is, v);
                }
            }
        }
        _ => {}
    }
}

fn null_default(schema: &Value, v: &mut Value) {
    if v.is_null() && schema.get("nullable").and_then(Value::as_bool) != Some(true) {
        if let Some(d) = schema.get("default") {
            *v = d.clone();
        }
    }
}

/// Defaults for a whole object (its fields, the root's own default aside).
pub fn default_object(schema: &Value, obj: &mut Map<String, Value>) {
    let mut v = Value::Object(std::mem::take(obj));
    default(schema, &mut v);
    if let Value::Object(m) = v {
        *obj = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, value: Value) -> Vec<String> {
        let mut errs = Vec::new();
        validate(&schema, &value, "", &mut errs);
        errs.iter().map(|e| format!("{}: {}", e.field, e.body())).collect()
    }

    #[test]
    fn the_validators_words() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object",
            "required": ["size"], "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 3},
            "color": {"type": "string", "enum": ["red", "blue"]},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
            "tags": {"type": "array", "maxItems": 1, "items": {"type": "string"}},
            "port": {"x-kubernetes-int-or-string": true}}}}});
        assert_eq!(errors(schema.clone(), json!({})), vec!["spec: Required value"]);
        assert_eq!(
            errors(schema.clone(), json!({"spec": {"size": "big"}})),
            vec!["spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\""]
        );
        assert_eq!(
            errors(
                schema.clone(),
                json!({"spec": {"size": 5, "color": "green", "name": "ABCDEFG", "tags": ["a", "b"], "port": true}})
            ),
            vec![
                "spec.size: Invalid value: 5: spec.size in body should be less than or equal to 3",
                "spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\"",
                "spec.name: Too long: may not be more than 5 bytes",
                "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'",
                "spec.tags: Too many: 2: must have at most 1 items",
                "spec.port: Invalid value: \"boolean\": spec.port in body must be of type int-or-string: \"boolean\"",
            ]
        );
        assert!(errors(schema, json!({"spec": {"size": 2, "color": "red", "port": "http"}})).is_empty());
    }

    #[test]
    fn defaults_fill_in_top_down() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "default": {},
            "properties": {"replicas": {"type": "integer", "default": 1},
                "items": {"type": "array", "items": {"type": "object", "properties": {"on": {"type": "boolean", "default": true}}}}}}}});
        let mut v = json!({});
        default(&schema, &mut v);
        assert_eq!(v, json!({"spec": {"replicas": 1}}));
        let mut v = json!({"spec": {"replicas": 5, "items": [{}, {"on": false}]}});
        default(&schema, &mut v);
        assert_eq!(v, json!({"spec": {"replicas": 5, "items": [{"on": true}, {"on": false}]}}));
    }
}
