//! HorizontalPodAutoscalers, of both APIs over one storage: autoscaling/v2
//! as stored, autoscaling/v1 converted to and from it (v1's one CPU
//! target is the first CPU utilization metric; what v1 cannot hold, other
//! metrics, their current values, conditions and behavior, travels in
//! the `autoscaling.alpha.kubernetes.io/*` annotations), as kube-apiserver
//! serves both from one etcd key. Defaults as upstream's (one replica at
//! least, 80% CPU when no metric is named, a behavior's missing rules
//! filled in), upstream's validation of either API's objects in v2's
//! terms, and kubectl's columns.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::super::resource::{Conversion, ConversionRef, StoredAs};
use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::quantity::milli_value;
use crate::api::FieldError;
use crate::clock::SimTime;

/// autoscaling/v2 HorizontalPodAutoscalers (as stored).
pub struct Hpa;

/// autoscaling/v1 HorizontalPodAutoscalers (stored as v2).
pub struct HpaV1;

/// The storage autoscaling/v1 shares with autoscaling/v2.
pub static STORED_AS_V2: StoredAs = StoredAs {
    group: Cow::Borrowed("autoscaling"),
    resource: Cow::Borrowed("horizontalpodautoscalers"),
    conversion: ConversionRef::Static(&V1),
};

/// The conversion between autoscaling/v1 and autoscaling/v2.
pub struct V1;

/// The annotations autoscaling/v1 carries what it has no field for in.
pub const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
pub const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
pub const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
pub const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// The CPU utilization a HorizontalPodAutoscaler that names no metric
/// aims at.
pub const DEFAULT_CPU_UTILIZATION: i64 = 80;

const SPEC: &str = "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec";
const STATUS: &str = "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus";

static COLUMNS: &[Column] = &[
    NAME,
    col("Reference", "string", Desc::Field(SPEC, "scaleTargetRef")),
    col("Targets", "string", Desc::Field(SPEC, "metrics")),
    col("MinPods", "string", Desc::Field(SPEC, "minReplicas")),
    col("MaxPods", "string", Desc::Field(SPEC, "maxReplicas")),
    col("Replicas", "string", Desc::Field(STATUS, "currentReplicas")),
    AGE,
];

fn cpu_metric(utilization: Value) -> Value {
    json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}}})
}

/// A scaling direction's rules as upstream fills them in: `defaults`'
/// own, each field the client set kept.
fn default_rules(given: Option<&Value>, up: bool) -> Value {
    let mut rules = if up {
        json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ]})
    } else {
        json!({"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
    };
    if let Some(Value::Object(given)) = given {
        for f in ["selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"] {
            if let Some(v) = given.get(f).filter(|v| !v.is_null()) {
                rules[f] = v.clone();
            }
        }
    }
    rules
}

fn defaults_v2(obj: &mut Map<String, Value>) {
    let Some(Value::Object(spec)) = obj.get_mut("spec") else { return };
    if spec.get("minReplicas").is_none_or(Value::is_null) {
        spec.insert("minReplicas".into(), json!(1));
    }
    if spec.get("metrics").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        spec.insert("metrics".into(), json!([cpu_metric(json!(DEFAULT_CPU_UTILIZATION))]));
    }
    if let Some(Value::Object(behavior)) = spec.get_mut("behavior") {
        let up = default_rules(behavior.get("scaleUp"), true);
        let down = default_rules(behavior.get("scaleDown"), false);
        behavior.insert("scaleUp".into(), up);
        behavior.insert("scaleDown".into(), down);
    }
}

/// `tolerance` is an alpha field (HPAConfigurableTolerance, off in 1.33):
/// dropped from a write unless the stored object has it already.
fn drop_tolerance(obj: &mut Map<String, Value>, old: Option<&Value>) {
    let had = |o: &Value| ["scaleUp", "scaleDown"].iter().any(|d| !o["spec"]["behavior"][d]["tolerance"].is_null());
    if old.is_some_and(had) {
        return;
    }
    let Some(Value::Object(behavior)) = obj.get_mut("spec").and_then(|s| s.get_mut("behavior")) else { return };
    for d in ["scaleUp", "scaleDown"] {
        if let Some(Value::Object(rules)) = behavior.get_mut(d) {
            rules.shift_remove("tolerance");
        }
    }
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64()
}

/// `IsValidPathSegmentName`'s complaints.
fn path_segment_errors(at: &str, value: &str, errs: &mut Vec<FieldError>) {
    let messages = crate::api::meta::validate_name(crate::api::meta::NameRule::PathSegment, value);
    errs.extend(messages.iter().map(|m| FieldError::invalid(at, value, m)));
}

fn object_reference(r: &Value, at: &str, errs: &mut Vec<FieldError>) {
    for f in ["kind", "name"] {
        match r[f].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required(&format!("{at}.{f}"), "")),
            v => path_segment_errors(&format!("{at}.{f}"), v, errs),
        }
    }
}

fn metric_identifier(m: &Value, at: &str, errs: &mut Vec<FieldError>) {
    match m["name"].as_str().unwrap_or("") {
        "" => errs.push(FieldError::required(&format!("{at}.name"), "must specify a metric name")),
        name => path_segment_errors(&format!("{at}.name"), name, errs),
    }
}

fn positive_quantity(t: &Value, f: &str, at: &str, errs: &mut Vec<FieldError>) {
    if let Some(q) = t[f].as_str() {
        if milli_value(q).is_some_and(|m| m <= 0) {
            errs.push(FieldError::invalid(&format!("{at}.{f}"), q, "must be positive"));
        }
    }
}

fn metric_target(t: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let kind = t["type"].as_str().unwrap_or("");
    if kind.is_empty() {
        errs.push(FieldError::required(&format!("{at}.type"), "must specify a metric target type"));
    }
    if !matches!(kind, "Utilization" | "Value" | "AverageValue") {
        errs.push(FieldError::invalid(
            &format!("{at}.type"),
            kind,
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    positive_quantity(t, "value", at, errs);
    positive_quantity(t, "averageValue", at, errs);
    if let Some(u) = int(&t["averageUtilization"]).filter(|u| *u < 1) {
        errs.push(FieldError::invalid_value(&format!("{at}.averageUtilization"), &json!(u), "must be greater than 0"));
    }
}

fn set(v: &Value) -> bool {
    !v.is_null()
}

/// A Resource or ContainerResource source's target: a raw value or a
/// utilization, not both.
fn resource_target(source: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let t = &source["target"];
    metric_target(t, &format!("{at}.target"), errs);
    let (u, v) = (set(&t["averageUtilization"]), set(&t["averageValue"]));
    if !u && !v {
        errs.push(FieldError::required(
            &format!("{at}.target.averageUtilization"),
            "must set either a target raw value or a target utilization",
        ));
    } else if u && v {
        errs.push(FieldError::forbidden(
            &format!("{at}.target.averageValue"),
            "may not set both a target raw value and a target utilization",
        ));
    }
}

/// The metric sources in the order upstream looks for the one set.
const SOURCES: &[(&str, &str)] = &[
    ("object", "Object"),
    ("external", "External"),
    ("pods", "Pods"),
    ("resource", "Resource"),
    ("containerResource", "ContainerResource"),
];
const METRIC_TYPES: &[&str] = &["ContainerResource", "External", "Object", "Pods", "Resource"];

fn metric_source(field: &str, s: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let at = format!("{at}.{field}");
    let target = &s["target"];
    let (value, average) = (set(&target["value"]), set(&target["averageValue"]));
    match field {
        "object" => {
            object_reference(&s["describedObject"], &format!("{at}.describedObject"), errs);
            metric_identifier(&s["metric"], &format!("{at}.metric"), errs);
            metric_target(target, &format!("{at}.target"), errs);
            if !value && !average {
                errs.push(FieldError::required(
                    &format!("{at}.target.averageValue"),
                    "must set either a target value or averageValue",
                ));
            }
        }
        "external" => {
            metric_identifier(&s["metric"], &format!("{at}.metric"), errs);
            metric_target(target, &format!("{at}.target"), errs);
            if !value && !average {
                errs.push(FieldError::required(
                    &format!("{at}.target.averageValue"),
                    "must set either a target value for metric or a per-pod target",
                ));
            } else if value && average {
                errs.push(FieldError::forbidden(
                    &format!("{at}.target.value"),
                    "may not set both a target value for metric and a per-pod target",
                ));
            }
        }
        "pods" => {
            metric_identifier(&s["metric"], &format!("{at}.metric"), errs);
            metric_target(target, &format!("{at}.target"), errs);
            if !average {
                errs.push(FieldError::required(
                    &format!("{at}.target.averageValue"),
                    "must specify a positive target averageValue",
                ));
            }
        }
        "resource" => {
            if s["name"].as_str().unwrap_or("").is_empty() {
                errs.push(FieldError::required(&format!("{at}.name"), "must specify a resource name"));
            }
            resource_target(s, &at, errs);
        }
        _ => {
            match s["name"].as_str().unwrap_or("") {
                "" => errs.push(FieldError::required(&format!("{at}.name"), "must specify a resource name")),
                name => container_resource_name(name, &format!("{at}.name"), errs),
            }
            match s["container"].as_str().unwrap_or("") {
                "" => errs.push(FieldError::required(&format!("{at}.container"), "must specify a container")),
                c => {
                    for m in crate::api::meta::validate_name(crate::api::meta::NameRule::Dns1123Label, c) {
                        errs.push(FieldError::invalid(&format!("{at}.container"), c, &m));
                    }
                }
            }
            resource_target(s, &at, errs);
        }
    }
}

/// A container resource's name: a standard one (`cpu`, `memory`,
/// `ephemeral-storage`, `hugepages-*`), a native prefixed one
/// (`*kubernetes.io/*`) or an extended one (`example.com/gpu`, not
/// `requests.*`).
fn container_resource_name(name: &str, at: &str, errs: &mut Vec<FieldError>) {
    if !name.contains('/') {
        if !matches!(name, "cpu" | "memory" | "ephemeral-storage") && !name.starts_with("hugepages-") {
            errs.push(FieldError::invalid(at, name, "must be a standard resource for containers"));
        }
    } else if !name.contains("kubernetes.io/") && name.starts_with("requests.") {
        errs.push(FieldError::invalid(at, name, "doesn't follow extended resource name standard"));
    }
}

fn metric_spec(m: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let kind = m["type"].as_str().unwrap_or("");
    if kind.is_empty() {
        errs.push(FieldError::required(&format!("{at}.type"), "must specify a metric source type"));
    }
    if !METRIC_TYPES.contains(&kind) {
        errs.push(FieldError::not_supported(&format!("{at}.type"), kind, METRIC_TYPES));
    }
    let present: Vec<&str> = SOURCES.iter().filter(|(f, _)| set(&m[*f])).map(|(f, _)| *f).collect();
    if let Some(first) = present.first() {
        metric_source(first, &m[*first], at, errs);
    }
    let expected = SOURCES.iter().find(|(_, t)| *t == kind).map(|(f, _)| *f);
    match expected {
        Some(f) if !set(&m[f]) => errs
            .push(FieldError::required(&format!("{at}.{f}"), "must populate information for the given metric source")),
        Some(_) => {}
        None => errs.push(FieldError::not_supported(&format!("{at}.type"), kind, METRIC_TYPES)),
    }
    if present.len() != 1 {
        for f in present.into_iter().filter(|f| Some(*f) != expected) {
            errs.push(FieldError::forbidden(&format!("{at}.{f}"), "must populate the given metric source only"));
        }
    }
}

fn scaling_rules(r: &Value, at: &str, errs: &mut Vec<FieldError>) {
    if let Some(w) = int(&r["stabilizationWindowSeconds"]) {
        let at = format!("{at}.stabilizationWindowSeconds");
        if w < 0 {
            errs.push(FieldError::invalid_value(&at, &json!(w), "must be greater than or equal to zero"));
        }
        if w > 3600 {
            errs.push(FieldError::invalid_value(&at, &json!(w), "must be less than or equal to 3600"));
        }
    }
    if let Some(p) = r["selectPolicy"].as_str() {
        const POLICIES: &[&str] = &["Disabled", "Max", "Min"];
        if !POLICIES.contains(&p) {
            errs.push(FieldError::not_supported(&format!("{at}.selectPolicy"), p, POLICIES));
        }
    }
    let policies = r["policies"].as_array().map(Vec::as_slice).unwrap_or_default();
    if policies.is_empty() {
        errs.push(FieldError::required(&format!("{at}.policies"), "must specify at least one Policy"));
    }
    for (i, p) in policies.iter().enumerate() {
        let at = format!("{at}.policies[{i}]");
        let kind = p["type"].as_str().unwrap_or("");
        if !matches!(kind, "Pods" | "Percent") {
            errs.push(FieldError::not_supported(&format!("{at}.type"), kind, &["Percent", "Pods"]));
        }
        let value = int(&p["value"]).unwrap_or(0);
        if value <= 0 {
            errs.push(FieldError::invalid_value(&format!("{at}.value"), &json!(value), "must be greater than zero"));
        }
        let period = int(&p["periodSeconds"]).unwrap_or(0);
        if period <= 0 {
            errs.push(FieldError::invalid_value(
                &format!("{at}.periodSeconds"),
                &json!(period),
                "must be greater than zero",
            ));
        }
        if period > 1800 {
            errs.push(FieldError::invalid_value(
                &format!("{at}.periodSeconds"),
                &json!(period),
                "must be less than or equal to 1800",
            ));
        }
    }
    if let Some(t) = r["tolerance"].as_str() {
        if milli_value(t).is_some_and(|m| m < 0) {
            errs.push(FieldError::invalid(&format!("{at}.tolerance"), t, "must be greater than or equal to 0"));
        }
    }
}

/// Upstream's `ValidateHorizontalPodAutoscaler` of a v2 object, with the
/// least `minReplicas` it allows (1; 0 for an update of an object that
/// has 0 already).
fn validate_v2(obj: &Value, min_bound: i64) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = &obj["spec"];
    let min = int(&spec["minReplicas"]);
    if let Some(min) = min.filter(|m| *m < min_bound) {
        errs.push(FieldError::invalid_value(
            "spec.minReplicas",
            &json!(min),
            &format!("must be greater than or equal to {min_bound}"),
        ));
    }
    let max = int(&spec["maxReplicas"]).unwrap_or(0);
    if max < 1 {
        errs.push(FieldError::invalid_value("spec.maxReplicas", &json!(max), "must be greater than 0"));
    }
    if min.is_some_and(|min| max < min) {
        errs.push(FieldError::invalid_value(
            "spec.maxReplicas",
            &json!(max),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    object_reference(&spec["scaleTargetRef"], "spec.scaleTargetRef", &mut errs);
    let metrics = spec["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
    for (i, m) in metrics.iter().enumerate() {
        metric_spec(m, &format!("spec.metrics[{i}]"), &mut errs);
    }
    if min == Some(0) && !metrics.iter().any(|m| matches!(m["type"].as_str(), Some("Object" | "External"))) {
        errs.push(FieldError::forbidden(
            "spec.metrics",
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    for d in ["scaleUp", "scaleDown"] {
        let rules = &spec["behavior"][d];
        if rules.is_object() {
            scaling_rules(rules, &format!("spec.behavior.{d}"), &mut errs);
        }
    }
    errs
}

fn update_bound(old: &Value) -> i64 {
    if int(&old["spec"]["minReplicas"]) == Some(0) {
        0
    } else {
        1
    }
}

fn validate_status(new: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in ["currentReplicas", "desiredReplicas"] {
        if let Some(n) = int(&new["status"][f]).filter(|n| *n < 0) {
            errs.push(FieldError::invalid_value(
                &format!("status.{f}"),
                &json!(n),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs
}

impl Strategy for Hpa {
    fn defaults(&self, obj: &mut Map<String, Value>) {
        defaults_v2(obj);
    }

    fn prepare_for_create(&self, obj: &mut Map<String, Value>) {
        drop_tolerance(obj, None);
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        if let Value::Object(new) = new {
            drop_tolerance(new, Some(old));
        }
    }

    fn validate_create(&self, obj: &Value) -> Vec<FieldError> {
        validate_v2(obj, 1)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validate_v2(new, update_bound(old))
    }

    fn validate_status_update(&self, new: &Value, _old: &Value) -> Vec<FieldError> {
        validate_status(new)
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        hpa_cells(o, now)
    }
}

impl Strategy for HpaV1 {
    /// v1's own default is the least replicas; the CPU target is filled
    /// in by the conversion, as upstream's (it needs the annotations).
    fn defaults(&self, obj: &mut Map<String, Value>) {
        if let Some(Value::Object(spec)) = obj.get_mut("spec") {
            if spec.get("minReplicas").is_none_or(Value::is_null) {
                spec.insert("minReplicas".into(), json!(1));
            }
        }
    }

    fn validate_create(&self, obj: &Value) -> Vec<FieldError> {
        validate_v2(&V1.to_storage(obj.clone()), 1)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validate_v2(&V1.to_storage(new.clone()), update_bound(old))
    }

    fn validate_status_update(&self, new: &Value, _old: &Value) -> Vec<FieldError> {
        validate_status(new)
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        hpa_cells(&V1.to_storage(o.clone()), now)
    }
}

/// How one metric source's fields sit in v1's annotation form and in v2:
/// (v1 field, v2 JSON pointer under the source, written as `"0"` when v2
/// has none: Go's non-pointer quantities).
type Fields = &'static [(&'static str, &'static str, bool)];

fn spec_fields(source: &str) -> Fields {
    match source {
        "object" => &[
            ("target", "/describedObject", false),
            ("metricName", "/metric/name", false),
            ("targetValue", "/target/value", true),
            ("selector", "/metric/selector", false),
            ("averageValue", "/target/averageValue", false),
        ],
        "pods" => &[
            ("metricName", "/metric/name", false),
            ("targetAverageValue", "/target/averageValue", true),
            ("selector", "/metric/selector", false),
        ],
        "resource" | "containerResource" => &[
            ("name", "/name", false),
            ("targetAverageUtilization", "/target/averageUtilization", false),
            ("targetAverageValue", "/target/averageValue", false),
            ("container", "/container", false),
        ],
        _ => &[
            ("metricName", "/metric/name", false),
            ("metricSelector", "/metric/selector", false),
            ("targetValue", "/target/value", false),
            ("targetAverageValue", "/target/averageValue", false),
        ],
    }
}

fn status_fields(source: &str) -> Fields {
    match source {
        "object" => &[
            ("target", "/describedObject", false),
            ("metricName", "/metric/name", false),
            ("currentValue", "/current/value", true),
            ("selector", "/metric/selector", false),
            ("averageValue", "/current/averageValue", false),
        ],
        "pods" => &[
            ("metricName", "/metric/name", false),
            ("currentAverageValue", "/current/averageValue", true),
            ("selector", "/metric/selector", false),
        ],
        "resource" | "containerResource" => &[
            ("name", "/name", false),
            ("currentAverageUtilization", "/current/averageUtilization", false),
            ("currentAverageValue", "/current/averageValue", true),
            ("container", "/container", false),
        ],
        _ => &[
            ("metricName", "/metric/name", false),
            ("metricSelector", "/metric/selector", false),
            ("currentValue", "/current/value", true),
            ("currentAverageValue", "/current/averageValue", false),
        ],
    }
}

/// Sets `pointer` (of object keys) under `root`, making the objects on
/// the way.
fn put(root: &mut Value, pointer: &str, v: Value) {
    let mut at = root;
    for key in pointer.split('/').skip(1) {
        if !at.is_object() {
            *at = json!({});
        }
        let Value::Object(m) = at else { return };
        at = m.entry(key.to_string()).or_insert(Value::Null);
    }
    *at = v;
}

/// A v2 metric (spec or status) in v1's annotation form.
fn metric_to_v1(m: &Value, fields: fn(&str) -> Fields) -> Value {
    let kind = m["type"].as_str().unwrap_or("");
    let mut out = json!({"type": kind});
    if let Some((source, _)) = SOURCES.iter().find(|(s, _)| m[*s].is_object()) {
        let mut v1 = Map::new();
        for (field, pointer, always) in fields(source) {
            match m[*source].pointer(pointer).filter(|v| !v.is_null()) {
                Some(v) => drop(v1.insert(field.to_string(), v.clone())),
                None if *always => drop(v1.insert(field.to_string(), json!("0"))),
                None => {}
            }
        }
        out[*source] = Value::Object(v1);
    }
    out
}

/// A metric of v1's annotation form in v2's, each target's type as
/// upstream's conversion gives it.
fn metric_from_v1(m: &Value, fields: fn(&str) -> Fields, spec: bool) -> Value {
    let kind = m["type"].as_str().unwrap_or("");
    let mut out = json!({"type": kind});
    if let Some((source, _)) = SOURCES.iter().find(|(s, _)| m[*s].is_object()) {
        let v1 = &m[*source];
        let mut v2 = json!({});
        for (field, pointer, _) in fields(source) {
            if let Some(v) = v1.get(*field).filter(|v| !v.is_null()) {
                put(&mut v2, pointer, v.clone());
            }
        }
        if spec {
            let has = |f: &str| v1.get(f).is_some_and(|v| !v.is_null());
            let target = match *source {
                "object" if has("averageValue") => "AverageValue",
                "object" => "Value",
                "pods" => "AverageValue",
                "resource" | "containerResource" if has("targetAverageUtilization") => "Utilization",
                "resource" | "containerResource" => "AverageValue",
                _ if has("targetValue") => "Value",
                _ => "AverageValue",
            };
            put(&mut v2, "/target/type", json!(target));
        }
        out[*source] = v2;
    }
    out
}

/// Go's `json.Marshal`: compact, with `<`, `>` and `&` escaped (they can
/// only be inside strings, so they are replaced anywhere).
fn go_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

fn parse_annotation(annotations: &Map<String, Value>, key: &str) -> Option<Value> {
    serde_json::from_str(annotations.get(key)?.as_str()?).ok()
}

/// The behavior annotation holds upstream's internal Go struct, which has
/// no JSON names: its fields as Go spells them.
const RULE_FIELDS: &[(&str, &str)] = &[
    ("StabilizationWindowSeconds", "stabilizationWindowSeconds"),
    ("SelectPolicy", "selectPolicy"),
    ("Policies", "policies"),
    ("Tolerance", "tolerance"),
];
const POLICY_FIELDS: &[(&str, &str)] = &[("Type", "type"), ("Value", "value"), ("PeriodSeconds", "periodSeconds")];

fn renamed(v: &Value, names: &[(&'static str, &'static str)], to_go: bool) -> Value {
    let mut out = Map::new();
    for (go, json) in names {
        let (from, to) = if to_go { (*json, *go) } else { (*go, *json) };
        // Go's decoder matches names without regard to case.
        let found = v.as_object().and_then(|m| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(from)).map(|(_, v)| v));
        let value = found.cloned().unwrap_or(Value::Null);
        let value = match (*go, value) {
            ("Policies", Value::Array(ps)) => {
                Value::Array(ps.iter().map(|p| renamed(p, POLICY_FIELDS, to_go)).collect())
            }
            (_, value) => value,
        };
        if to_go || !value.is_null() {
            out.insert(to.to_string(), value);
        }
    }
    Value::Object(out)
}

fn behavior_to_go(b: &Value) -> Value {
    let rules = |r: &Value| if r.is_object() { renamed(r, RULE_FIELDS, true) } else { Value::Null };
    json!({"ScaleUp": rules(&b["scaleUp"]), "ScaleDown": rules(&b["scaleDown"])})
}

fn behavior_from_go(b: &Value) -> Option<Value> {
    let find = |name: &str| {
        b.as_object().and_then(|m| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()))
    };
    let (up, down) = (find("ScaleUp").filter(Value::is_object), find("ScaleDown").filter(Value::is_object));
    if up.is_none() && down.is_none() {
        return None;
    }
    let mut out = Map::new();
    for (key, rules) in [("scaleUp", up), ("scaleDown", down)] {
        if let Some(r) = rules {
            out.insert(key.into(), renamed(&r, RULE_FIELDS, false));
        }
    }
    Some(Value::Object(out))
}

const ROUND_TRIP: &[&str] = &[
    METRICS,
    CURRENT_METRICS,
    CONDITIONS,
    BEHAVIOR,
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
    "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
];

fn is_cpu_utilization(m: &Value, at: &str) -> bool {
    m["type"] == "Resource" && m["resource"]["name"] == "cpu" && !m["resource"][at]["averageUtilization"].is_null()
}

/// The object's metadata without the round-trip annotations (and without
/// an annotation map left empty by that).
fn metadata_without_round_trip(m: &mut Map<String, Value>) -> (Value, Map<String, Value>) {
    let mut metadata = m.shift_remove("metadata").unwrap_or_else(|| json!({}));
    let mut taken = Map::new();
    if let Some(Value::Object(a)) = metadata.get_mut("annotations") {
        if ROUND_TRIP.iter().any(|k| a.contains_key(*k)) {
            for k in ROUND_TRIP {
                if let Some(v) = a.shift_remove(*k) {
                    taken.insert(k.to_string(), v);
                }
            }
            // Go leaves an empty map out.
            if a.is_empty() {
                if let Value::Object(md) = &mut metadata {
                    md.shift_remove("annotations");
                }
            }
        }
    }
    (metadata, taken)
}

fn typed(api_version: &str, m: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    if m.contains_key("kind") {
        out.insert("kind".into(), json!("HorizontalPodAutoscaler"));
    }
    if m.contains_key("apiVersion") {
        out.insert("apiVersion".into(), json!(api_version));
    }
    out
}

fn carry(from: &Value, field: &str, to: &mut Map<String, Value>) {
    if let Some(v) = from.get(field).filter(|v| !v.is_null()) {
        to.insert(field.into(), v.clone());
    }
}

impl Conversion for V1 {
    fn to_storage(&self, obj: Value) -> Value {
        let Value::Object(mut m) = obj else { return obj };
        let mut out = typed("autoscaling/v2", &m);
        let (metadata, taken) = metadata_without_round_trip(&mut m);
        let (spec, status) = (m.shift_remove("spec"), m.shift_remove("status"));
        out.insert("metadata".into(), metadata);
        if let Some(spec) = spec {
            let mut s = Map::new();
            carry(&spec, "scaleTargetRef", &mut s);
            carry(&spec, "minReplicas", &mut s);
            carry(&spec, "maxReplicas", &mut s);
            let mut metrics: Vec<Value> = match parse_annotation(&taken, METRICS) {
                Some(Value::Array(ms)) => ms.iter().map(|m| metric_from_v1(m, spec_fields, true)).collect(),
                _ => Vec::new(),
            };
            if let Some(cpu) = spec.get("targetCPUUtilizationPercentage").filter(|v| !v.is_null()) {
                metrics.push(cpu_metric(cpu.clone()));
            }
            if metrics.is_empty() {
                metrics.push(cpu_metric(json!(DEFAULT_CPU_UTILIZATION)));
            }
            s.insert("metrics".into(), Value::Array(metrics));
            if let Some(b) = parse_annotation(&taken, BEHAVIOR).as_ref().and_then(behavior_from_go) {
                s.insert("behavior".into(), b);
            }
            out.insert("spec".into(), Value::Object(s));
        }
        if let Some(status) = status {
            let mut s = Map::new();
            for f in ["observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"] {
                carry(&status, f, &mut s);
            }
            let current = match parse_annotation(&taken, CURRENT_METRICS) {
                Some(Value::Array(ms)) => ms.iter().map(|m| metric_from_v1(m, status_fields, false)).collect(),
                _ => match status.get("currentCPUUtilizationPercentage").filter(|v| !v.is_null()) {
                    Some(cpu) => vec![
                        json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": cpu}}}),
                    ],
                    None => Vec::new(),
                },
            };
            s.insert("currentMetrics".into(), if current.is_empty() { Value::Null } else { Value::Array(current) });
            if let Some(c @ Value::Array(_)) = parse_annotation(&taken, CONDITIONS) {
                s.insert("conditions".into(), c);
            }
            out.insert("status".into(), Value::Object(s));
        }
        Value::Object(out)
    }

    fn to_served(&self, obj: Value) -> Value {
        let Value::Object(mut m) = obj else { return obj };
        let mut out = typed("autoscaling/v1", &m);
        let (mut metadata, _) = metadata_without_round_trip(&mut m);
        let (spec, status) = (m.shift_remove("spec").unwrap_or(Value::Null), m.shift_remove("status"));
        let mut annotations = Map::new();
        let mut s = Map::new();
        carry(&spec, "scaleTargetRef", &mut s);
        carry(&spec, "minReplicas", &mut s);
        carry(&spec, "maxReplicas", &mut s);
        let metrics = spec["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
        if let Some(cpu) = metrics.iter().find(|m| is_cpu_utilization(m, "target")) {
            s.insert("targetCPUUtilizationPercentage".into(), cpu["resource"]["target"]["averageUtilization"].clone());
        }
        let others: Vec<Value> =
            metrics.iter().filter(|m| !is_cpu_utilization(m, "target")).map(|m| metric_to_v1(m, spec_fields)).collect();
        if !others.is_empty() {
            annotations.insert(METRICS.into(), json!(go_json(&Value::Array(others))));
        }
        if spec["behavior"].is_object() {
            annotations.insert(BEHAVIOR.into(), json!(go_json(&behavior_to_go(&spec["behavior"]))));
        }
        let spec_out = Value::Object(s);
        let mut status_out = None;
        if let Some(status) = status {
            let mut s = Map::new();
            carry(&status, "observedGeneration", &mut s);
            carry(&status, "lastScaleTime", &mut s);
            // Neither count is omitted when zero in v1.
            for f in ["currentReplicas", "desiredReplicas"] {
                s.insert(f.into(), json!(status[f].as_i64().unwrap_or(0)));
            }
            let current = status["currentMetrics"].as_array().map(Vec::as_slice).unwrap_or_default();
            if let Some(cpu) = current.iter().rfind(|m| is_cpu_utilization(m, "current")) {
                s.insert(
                    "currentCPUUtilizationPercentage".into(),
                    cpu["resource"]["current"]["averageUtilization"].clone(),
                );
            }
            if !current.is_empty() {
                let v1: Vec<Value> = current.iter().map(|m| metric_to_v1(m, status_fields)).collect();
                annotations.insert(CURRENT_METRICS.into(), json!(go_json(&Value::Array(v1))));
            }
            if let Some(c) = status["conditions"].as_array().filter(|c| !c.is_empty()) {
                annotations.insert(CONDITIONS.into(), json!(go_json(&Value::Array(c.clone()))));
            }
            status_out = Some(Value::Object(s));
        }
        if !annotations.is_empty() {
            if !metadata["annotations"].is_object() {
                metadata["annotations"] = json!({});
            }
            if let Value::Object(a) = &mut metadata["annotations"] {
                a.extend(annotations);
            }
        }
        out.insert("metadata".into(), metadata);
        out.insert("spec".into(), spec_out);
        if let Some(status) = status_out {
            out.insert("status".into(), status);
        }
        Value::Object(out)
    }

    fn field_label<'a>(&self, label: &'a str) -> Option<Cow<'a, str>> {
        matches!(label, "metadata.namespace" | "metadata.name").then_some(Cow::Borrowed(label))
    }
}

/// kubectl's TARGETS: each metric's current value (matched by place) over
/// its target, two at most and a count of the rest.
fn targets(o: &Value) -> String {
    let specs = o["spec"]["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
    if specs.is_empty() {
        return "<none>".into();
    }
    let statuses = o["status"]["currentMetrics"].as_array().map(Vec::as_slice).unwrap_or_default();
    let unknown = || "<unknown>".to_string();
    let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
    let shown: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let status = statuses.get(i);
            let current = |source: &str, f: &str| {
                status.map(|s| &s[source]).filter(|s| s.is_object()).map(|s| &s["current"][f]).filter(|v| !v.is_null())
            };
            let kind = m["type"].as_str().unwrap_or("");
            let source = SOURCES.iter().find(|(_, t)| *t == kind).map(|(s, _)| *s);
            let Some(source) = source else { return "<unknown type>".into() };
            let s = &m[source];
            let target = &s["target"];
            let average = target["type"] == "AverageValue";
            match source {
                "external" | "object" if average => {
                    let cur = current(source, "averageValue").map(text).unwrap_or_else(unknown);
                    format!("{cur}/{} (avg)", text(&target["averageValue"]))
                }
                "external" | "object" => {
                    let cur = current(source, "value").map(text).unwrap_or_else(unknown);
                    format!("{cur}/{}", text(&target["value"]))
                }
                "pods" => {
                    let cur = current(source, "averageValue").map(text).unwrap_or_else(unknown);
                    format!("{cur}/{}", text(&target["averageValue"]))
                }
                _ => {
                    let name = s["name"].as_str().unwrap_or("");
                    if average {
                        let cur = current(source, "averageValue").map(text).unwrap_or_else(unknown);
                        format!("{name}: {cur}/{}", text(&target["averageValue"]))
                    } else {
                        let cur = current(source, "averageUtilization")
                            .map(|v| format!("{}%", text(v)))
                            .unwrap_or_else(unknown);
                        let goal = match &target["averageUtilization"] {
                            Value::Null => "<auto>".to_string(),
                            v => format!("{}%", text(v)),
                        };
                        format!("{name}: {cur}/{goal}")
                    }
                }
            }
        })
        .collect();
    match shown.len() {
        n if n > 2 => format!("{} + {} more...", shown[..2].join(", "), n - 2),
        _ => shown.join(", "),
    }
}

fn hpa_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let r = &o["spec"]["scaleTargetRef"];
    let reference = format!("{}/{}", r["kind"].as_str().unwrap_or(""), r["name"].as_str().unwrap_or(""));
    let min = match &o["spec"]["minReplicas"] {
        Value::Null => "<unset>".to_string(),
        v => v.to_string(),
    };
    vec![
        name(o),
        reference.into(),
        targets(o).into(),
        min.into(),
        json!(o["spec"]["maxReplicas"].as_i64().unwrap_or(0)),
        json!(o["status"]["currentReplicas"].as_i64().unwrap_or(0)),
        age(o, now),
    ]
}
