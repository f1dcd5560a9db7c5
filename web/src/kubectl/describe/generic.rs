//! `describe` of a kind kubectl has no describer of its own for (a custom
//! resource, a CRD, a Lease, a FlowSchema…): kubectl 1.33's generic
//! describer, which prints the name, namespace, labels and annotations,
//! then every other field of the object as read (sorted, nested by
//! indentation, each name made a label: `apiVersion` is `API Version`),
//! then the object's events.

use super::*;

/// The generic description of `obj` (read through its kind's path).
pub(super) fn generic(s: &mut Session, w: &mut TabWriter, obj: &Value, _namespace: &str) {
    let namespace = text(obj, "/metadata/namespace");
    w.w(0, &format!("Name:\t{}\n", text(obj, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{namespace}\n"));
    labels(w, "", "Labels", obj.pointer("/metadata/labels"));
    annotations(w, "Annotations", obj.pointer("/metadata/annotations"));
    if let Some(map) = obj.as_object() {
        content(w, 0, map, "");
    }
    let kind = text(obj, "/kind").to_string();
    let namespace = namespace.to_string();
    events(s, w, obj, &kind, &namespace);
}

/// The paths the generic describer leaves out (printed above, or noise).
const SKIPPED: [&str; 5] =
    [".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations"];

/// A map's fields in byte order, as kubectl's `printUnstructuredContent`
/// walks them: a map or list under its label, its entries a level deeper
/// (a list's maps one after another, its other items one a line); any
/// other value beside its label.
fn content(w: &mut TabWriter, level: usize, map: &serde_json::Map<String, Value>, at: &str) {
    let mut fields: Vec<&String> = map.keys().collect();
    fields.order();
    for field in fields {
        let path = format!("{at}.{field}");
        if SKIPPED.contains(&path.as_str()) {
            continue;
        }
        match &map[field] {
            Value::Object(inner) => {
                w.w(level, &format!("{}:\n", smart_label(field)));
                content(w, level + 1, inner, &path);
            }
            Value::Array(list) => {
                w.w(level, &format!("{}:\n", smart_label(field)));
                for item in list {
                    match item {
                        Value::Object(inner) => content(w, level + 1, inner, &path),
                        other => w.w(level + 1, &format!("{}\n", go_value(other))),
                    }
                }
            }
            other => w.w(level, &format!("{}:\t{}\n", smart_label(field), go_value(other))),
        }
    }
}

/// A field name as a label, as kubectl's `smartLabelFor`: names of
/// letters and `-` only are split where their case changes (fatih's
/// camelcase rules: `HTTPServer` is `HTTP Server`), each word titled and
/// the acronyms API, URL, UID, OSB and GUID upper-cased; any other name
/// is left as it is.
pub(super) fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    let class = |c: char| match c {
        c if c.is_lowercase() => 1,
        c if c.is_uppercase() => 2,
        _ => 4,
    };
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut last = 0;
    for c in field.chars() {
        let this = class(c);
        match runs.last_mut() {
            Some(run) if this == last => run.push(c),
            _ => runs.push(vec![c]),
        }
        last = this;
    }
    // An upper-case run followed by a lower-case one gives it its last
    // letter ("PDFL", "oader" → "PDF", "Loader").
    for i in 0..runs.len().saturating_sub(1) {
        let upper = runs[i].first().is_some_and(|c| c.is_uppercase());
        let lower = runs[i + 1].first().is_some_and(|c| c.is_lowercase());
        if upper && lower {
            if let Some(c) = runs[i].pop() {
                runs[i + 1].insert(0, c);
            }
        }
    }
    let words: Vec<String> = runs
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.into_iter().collect::<String>())
        .filter(|w| w != "_")
        .map(|w| {
            let upper = w.to_uppercase();
            if ["API", "URL", "UID", "OSB", "GUID"].contains(&upper.as_str()) {
                return upper;
            }
            let mut chars = w.chars();
            chars.next().map(|f| f.to_uppercase().chain(chars).collect()).unwrap_or_default()
        })
        .collect();
    words.join(" ")
}

/// A JSON value as Go's `%v` prints what the dynamic client decoded: whole
/// numbers as integers, others as the shortest `%g` (an exponent below
/// 1e-4 or from 1e6 on), `<nil>` for null.
pub(super) fn go_value(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_i64() => n.to_string(),
        Value::Number(n) => go_float(n.as_f64().unwrap_or(0.0)),
        other => other.to_string(),
    }
}

/// Go's `%v` of a float64: the shortest digits that read back, with an
/// exponent (`1.5e+06`, `1e-05`) when it is below -4 or at least 6.
/// (JSON's numbers are finite: no NaN or infinities to print.)
fn go_float(f: f64) -> String {
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}
