//! What the workload kinds (Deployments, ReplicaSets, StatefulSets,
//! DaemonSets, and through their templates Jobs and CronJobs) share: pod
//! template defaults, and validation of replicas, the selector and the
//! template.

use serde_json::{Map, Value};

use super::super::strategy::object;
use super::super::validation::{go_string_map, str_at, validate_label_selector, validate_labels};
use crate::api::FieldError;

/// A workload's pod template gets the pod spec's defaults (not the ones
/// admission adds to real pods).
pub(super) fn template_defaults(spec: &mut Map<String, Value>) {
    if let Some(ps) = object(spec, "template").and_then(|t| object(t, "spec")) {
        super::pod::spec_defaults(ps);
    }
}

/// A workload's spec: replicas not negative, a selector that matches the
/// template's labels, a valid template that restarts Always.
pub(super) fn validate_spec(kind: &str, spec: &Value, errs: &mut Vec<FieldError>) {
    if let Some(r) = spec.get("replicas") {
        if r.as_i64().is_some_and(|n| n < 0) {
            errs.push(FieldError::invalid_value("spec.replicas", r, "must be greater than or equal to 0"));
        }
    }
    let selector = spec.get("selector").filter(|s| !s.is_null());
    let template_labels = spec.pointer("/template/metadata/labels").and_then(Value::as_object);
    match selector {
        None => errs.push(FieldError::required("spec.selector", "")),
        Some(sel) => {
            let before = errs.len();
            validate_label_selector(sel, "spec.selector", errs);
            let valid = errs.len() == before;
            let ml = sel.get("matchLabels").and_then(Value::as_object);
            let me = sel.get("matchExpressions").and_then(Value::as_array);
            if ml.is_none_or(Map::is_empty) && me.is_none_or(Vec::is_empty) {
                errs.push(FieldError::invalid_raw(
                    "spec.selector",
                    &go_label_selector(sel),
                    &format!("empty selector is invalid for {}", kind.to_ascii_lowercase()),
                ));
            } else if !valid {
                // A selector that does not convert: upstream says so in
                // each kind's words (a DaemonSet not at all), and does not
                // hold the template's labels to it.
                let detail = match kind {
                    "Deployment" | "ReplicaSet" => Some("invalid label selector"),
                    "StatefulSet" => Some(""),
                    _ => None,
                };
                if let Some(detail) = detail {
                    errs.push(FieldError::invalid_raw("spec.selector", &go_label_selector(sel), detail));
                }
            } else if !selector_matches(sel, template_labels) {
                errs.push(FieldError::invalid_raw(
                    "spec.template.metadata.labels",
                    &go_string_map(template_labels),
                    "`selector` does not match template `labels`",
                ));
            }
        }
    }
    if let Some(labels) = template_labels {
        validate_labels(labels, "spec.template.metadata.labels", errs);
    }
    match spec.pointer("/template/spec") {
        Some(ps) => {
            super::pod::validate_spec(ps, "spec.template.spec", errs);
            if kind != "Job" {
                if let Some(r) = str_at(ps, "restartPolicy").filter(|r| *r != "Always") {
                    // The pod-spec check above already refused unknown values.
                    if ["OnFailure", "Never"].contains(&r) {
                        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", r, &["Always"]));
                    }
                }
            }
        }
        None if kind != "DaemonSet" || spec.get("template").is_none() => {
            errs.push(FieldError::required("spec.template.spec.containers", ""));
        }
        None => {}
    }
}

/// A workload's selector cannot change (apps/v1 strategies' ValidateUpdate).
pub(super) fn validate_selector_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let (a, b) = (new.pointer("/spec/selector"), old.pointer("/spec/selector"));
    if a == b {
        return Vec::new();
    }
    let shown = a.filter(|s| !s.is_null()).map_or_else(|| "null".to_string(), go_label_selector);
    vec![FieldError::invalid_raw("spec.selector", &shown, "field is immutable")]
}

/// A LabelSelector as Go's `%#v` prints it.
fn go_label_selector(sel: &Value) -> String {
    let match_labels = go_string_map(sel.get("matchLabels").and_then(Value::as_object));
    let exprs = match sel.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_string(),
        Some(list) => {
            let items: Vec<String> = list
                .iter()
                .map(|e| {
                    let values = match e.get("values").and_then(Value::as_array) {
                        None => "[]string(nil)".to_string(),
                        Some(v) => format!(
                            "[]string{{{}}}",
                            v.iter()
                                .map(|x| serde_json::to_string(x.as_str().unwrap_or("")).unwrap_or_default())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    };
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{values}}}",
                        serde_json::to_string(str_at(e, "key").unwrap_or("")).unwrap_or_default(),
                        serde_json::to_string(str_at(e, "operator").unwrap_or("")).unwrap_or_default()
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        }
    };
    format!("v1.LabelSelector{{MatchLabels:{match_labels}, MatchExpressions:{exprs}}}")
}

/// Whether a LabelSelector selects a set of labels.
fn selector_matches(sel: &Value, labels: Option<&Map<String, Value>>) -> bool {
    let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let ml_ok =
        sel.get("matchLabels").and_then(Value::as_object).into_iter().flatten().all(|(k, v)| get(k) == v.as_str());
    let me_ok = sel.get("matchExpressions").and_then(Value::as_array).into_iter().flatten().all(|e| {
        let key = str_at(e, "key").unwrap_or("");
        let values: Vec<&str> =
            e.get("values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        match str_at(e, "operator").unwrap_or("") {
            "In" => get(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => get(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => get(key).is_some(),
            "DoesNotExist" => get(key).is_none(),
            _ => false,
        }
    });
    ml_ok && me_ok
}
