//! Cell helpers every printer shares, as upstream's printers compute them
//! (each kind's own cells live in its file under `registry/kinds/`).

use crate::sort::Order;
use serde_json::Value;

use crate::clock::{human_duration, parse_rfc3339, SimTime};

pub(crate) fn s<'a>(o: &'a Value, ptr: &str) -> &'a str {
    o.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn i(o: &Value, ptr: &str) -> i64 {
    o.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

pub(crate) fn arr<'a>(o: &'a Value, ptr: &str) -> &'a [Value] {
    o.pointer(ptr).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

pub(crate) fn len(o: &Value, ptr: &str) -> usize {
    match o.pointer(ptr) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

pub(crate) fn or_none(v: &str) -> &str {
    if v.is_empty() {
        "<none>"
    } else {
        v
    }
}

pub(crate) fn name(o: &Value) -> Value {
    s(o, "/metadata/name").into()
}

pub(crate) fn since(ts: Option<&Value>, now: SimTime, missing: &str) -> String {
    match ts.and_then(Value::as_str).and_then(parse_rfc3339) {
        Some(t) => human_duration(now.0 - t),
        None => missing.to_string(),
    }
}

pub(crate) fn age(o: &Value, now: SimTime) -> Value {
    since(o.pointer("/metadata/creationTimestamp"), now, "<unknown>").into()
}

/// `a=b,c=d` in key order, or `<none>`.
pub(crate) fn labels(m: Option<&Value>) -> String {
    let Some(Value::Object(m)) = m else { return "<none>".into() };
    if m.is_empty() {
        return "<none>".into();
    }
    let mut kv: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect();
    kv.order();
    kv.join(",")
}

/// A label selector as the printers write it (upstream's
/// `FormatLabelSelector`): the selector string, or `<none>`.
pub(crate) fn selector(sel: Option<&Value>) -> String {
    match crate::selector::label_selector_string(sel.filter(|v| v.is_object())) {
        t if t.is_empty() => "<none>".into(),
        t => t,
    }
}

/// Containers, Images and (when `sel` is a path) Selector of a pod template.
pub(crate) fn template(o: &Value, spec: &str, sel: &str) -> Vec<Value> {
    let containers = arr(o, &format!("{spec}/containers"));
    let names: Vec<&str> = containers.iter().map(|c| s(c, "/name")).collect();
    let images: Vec<&str> = containers.iter().map(|c| s(c, "/image")).collect();
    let mut out = vec![Value::from(names.join(",")), Value::from(images.join(","))];
    if !sel.is_empty() {
        out.push(selector(o.pointer(sel)).into());
    }
    out
}
