//! Events, of both APIs over one storage: core/v1 Events as stored, and
//! events.k8s.io/v1 Events converted to and from them (`regarding` is
//! `involvedObject`, `note` is `message`, the `deprecated*` fields are the
//! old API's source, timestamps and count), as kube-apiserver serves both
//! from one etcd key. What both check (upstream's legacy event
//! validation, worded per API), what only events.k8s.io/v1 checks (a new
//! event's eventTime, type and unset deprecated fields; an update may
//! change only the series), the fields selectors may name under either
//! API's labels, kubectl's columns.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::super::options::GcPolicy;
use super::super::resource::{Conversion, ConversionRef, StoredAs};
use super::super::strategy::{SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

/// core/v1 Events.
pub struct Event;

/// events.k8s.io/v1 Events (the objects are core/v1 Events in storage).
pub struct EventV1;

/// The storage events.k8s.io/v1 Events share.
pub static STORED_AS_CORE_EVENTS: StoredAs = StoredAs {
    group: Cow::Borrowed(""),
    resource: Cow::Borrowed("events"),
    conversion: ConversionRef::Static(&EventsV1),
};

/// The conversion between events.k8s.io/v1 and core/v1 Events.
pub struct EventsV1;

static FIELDS: &[SelectableField] = &[
    SelectableField::new("involvedObject.kind", ""),
    SelectableField::new("involvedObject.namespace", ""),
    SelectableField::new("involvedObject.name", ""),
    SelectableField::new("involvedObject.uid", ""),
    SelectableField::new("involvedObject.apiVersion", ""),
    SelectableField::new("involvedObject.resourceVersion", ""),
    SelectableField::new("involvedObject.fieldPath", ""),
    SelectableField::new("reason", ""),
    SelectableField::new("reportingComponent", ""),
    SelectableField::at("source", "source.component", ""),
    SelectableField::new("type", ""),
];

static COLUMNS: &[Column] = &[
    col("Last Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "lastTimestamp")),
    col("Type", "string", Desc::Field("io.k8s.api.core.v1.Event", "type")),
    col("Reason", "string", Desc::Field("io.k8s.api.core.v1.Event", "reason")),
    col("Object", "string", Desc::Field("io.k8s.api.core.v1.Event", "involvedObject")),
    wide("Subobject", "string", Desc::Field("io.k8s.api.core.v1.ObjectReference", "fieldPath")),
    wide("Source", "string", Desc::Field("io.k8s.api.core.v1.Event", "source")),
    col("Message", "string", Desc::Field("io.k8s.api.core.v1.Event", "message")),
    wide("First Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "firstTimestamp")),
    wide("Count", "string", Desc::Field("io.k8s.api.core.v1.Event", "count")),
    Column { priority: 1, ..NAME },
];

impl Strategy for Event {
    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        legacy_validation(obj, Api::Core)
    }

    /// Events have no dependents: propagation policies do nothing, and a
    /// delete drops any garbage-collection finalizer.
    fn gc_policy(&self) -> GcPolicy {
        GcPolicy::Unsupported
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        event_cells(o, now)
    }
}

impl Strategy for EventV1 {
    /// The stored objects' fields: labels are converted before selecting.
    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        legacy_validation(obj, Api::V1)
    }

    /// Read in this API's names; the errors name upstream's internal
    /// fields.
    fn validate_create(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = series_validation(o);
        if !is_set(o, "eventTime") {
            errs.push(FieldError::required("eventTime", ""));
        }
        let t = s(o, "/type");
        if t != "Normal" && t != "Warning" {
            errs.push(FieldError::invalid("type", "", &format!("has invalid value: {t}")));
        }
        for (path, field) in
            [("firstTimestamp", "deprecatedFirstTimestamp"), ("lastTimestamp", "deprecatedLastTimestamp")]
        {
            if is_set(o, field) {
                errs.push(FieldError::invalid(path, "", "needs to be unset"));
            }
        }
        if i(o, "/deprecatedCount") != 0 {
            errs.push(FieldError::invalid("count", "", "needs to be unset"));
        }
        if !s(o, "/deprecatedSource/component").is_empty() || !s(o, "/deprecatedSource/host").is_empty() {
            errs.push(FieldError::invalid("source", "", "needs to be unset"));
        }
        errs
    }

    /// Through events.k8s.io/v1 only the series (and metadata) may change.
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if new.get("series") != old.get("series") {
            errs.extend(series_validation(new));
        }
        for (path, field) in IMMUTABLE {
            let (a, b) = (set_value(new.get(*field)), set_value(old.get(*field)));
            if a != b {
                errs.push(FieldError::invalid_raw(path, &go_value(path, a), "field is immutable"));
            }
        }
        errs
    }

    fn gc_policy(&self) -> GcPolicy {
        GcPolicy::Unsupported
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    /// The same rows as core/v1's (upstream prints the internal object).
    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        event_cells(&EventsV1.to_storage(o.clone()), now)
    }
}

/// What an events.k8s.io/v1 update may not change: the error's path
/// (upstream's internal names) and the field of this API.
const IMMUTABLE: &[(&str, &str)] = &[
    ("involvedObject", "regarding"),
    ("reason", "reason"),
    ("message", "note"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
    ("type", "type"),
    ("eventTime", "eventTime"),
    ("action", "action"),
    ("related", "related"),
    ("reportingController", "reportingController"),
    ("reportingInstance", "reportingInstance"),
];

/// A value unless it is Go's zero value for its field (absent, null, "",
/// 0, or an object of zero values), which the internal type cannot tell
/// apart.
fn set_value(v: Option<&Value>) -> Option<&Value> {
    fn zero(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::Object(m) => m.values().all(zero),
            _ => false,
        }
    }
    v.filter(|v| !zero(v))
}

/// The API a request came through: validation words some fields after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    Core,
    V1,
}

const REPORTING_INSTANCE_MAX: usize = 128;
const ACTION_MAX: usize = 128;
const REASON_MAX: usize = 128;
const NOTE_MAX: usize = 1024;

fn is_set(o: &Value, key: &str) -> bool {
    o.get(key).is_some_and(|v| !v.is_null() && v != "")
}

/// What every event must satisfy, through either API (upstream's
/// `legacyValidateEvent`): an old-style event (no eventTime) sits in its
/// object's namespace; a new-style one names its reporter, action and
/// reason, within their lengths.
fn legacy_validation(o: &Value, api: Api) -> Vec<FieldError> {
    // Each API's names for the fields, and the one its errors use for
    // the reporting controller.
    let (object, controller, message, controller_path) = match api {
        Api::Core => ("/involvedObject/namespace", "/reportingComponent", "/message", "reportingComponent"),
        Api::V1 => ("/regarding/namespace", "/reportingController", "/note", "reportingController"),
    };
    let mut errs = Vec::new();
    let namespace = o.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
    let object_ns = s(o, object);
    let mismatch = || FieldError::invalid("involvedObject.namespace", object_ns, "does not match event.namespace");
    if !is_set(o, "eventTime") {
        let fits = if object_ns.is_empty() { ["", "default"].contains(&namespace) } else { object_ns == namespace };
        if !fits {
            errs.push(mismatch());
        }
        return errs;
    }
    if object_ns.is_empty() && !["default", "kube-system"].contains(&namespace) {
        errs.push(mismatch());
    }
    let controller = s(o, controller);
    if controller.is_empty() {
        errs.push(FieldError::required(controller_path, ""));
        errs.push(FieldError::invalid(controller_path, "", "name part must be non-empty"));
    }
    if let Some(why) = crate::selector::label_key_problem(controller) {
        errs.push(FieldError::invalid(controller_path, controller, &why));
    }
    let bounded = |errs: &mut Vec<FieldError>, path: &str, value: &str, max: usize, required: bool| {
        if required && value.is_empty() {
            errs.push(FieldError::required(path, ""));
        }
        if value.len() > max {
            errs.push(FieldError::invalid(path, "", &format!("can have at most {max} characters")));
        }
    };
    bounded(&mut errs, "reportingInstance", s(o, "/reportingInstance"), REPORTING_INSTANCE_MAX, true);
    bounded(&mut errs, "action", s(o, "/action"), ACTION_MAX, true);
    bounded(&mut errs, "reason", s(o, "/reason"), REASON_MAX, true);
    bounded(&mut errs, "message", s(o, message), NOTE_MAX, false);
    errs
}

/// A series counts at least two occurrences and says when it saw the last.
fn series_validation(o: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(series) = o.get("series").filter(|v| !v.is_null()) {
        if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
            errs.push(FieldError::invalid("series.count", "", "should be at least 2"));
        }
        if series.get("lastObservedTime").is_none_or(|v| v.is_null() || v == "") {
            errs.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errs
}

/// A stored field's value as Go prints the internal type in an
/// immutable-field error (`%#v` for structs, `String()` for times).
fn go_value(key: &str, v: Option<&Value>) -> String {
    let q = |v: Option<&Value>, k: &str| {
        serde_json::to_string(v.and_then(|v| v.get(k)).and_then(Value::as_str).unwrap_or("")).unwrap_or_default()
    };
    match key {
        "involvedObject" | "related" => match v {
            None if key == "related" => "null".into(),
            _ => format!(
                "core.ObjectReference{{Kind:{}, Namespace:{}, Name:{}, UID:{}, APIVersion:{}, ResourceVersion:{}, FieldPath:{}}}",
                q(v, "kind"),
                q(v, "namespace"),
                q(v, "name"),
                q(v, "uid"),
                q(v, "apiVersion"),
                q(v, "resourceVersion"),
                q(v, "fieldPath")
            ),
        },
        "source" => format!("core.EventSource{{Component:{}, Host:{}}}", q(v, "component"), q(v, "host")),
        "firstTimestamp" | "lastTimestamp" | "eventTime" => go_time(v.and_then(Value::as_str).unwrap_or("")),
        "count" => v.and_then(Value::as_i64).unwrap_or(0).to_string(),
        _ => serde_json::to_string(v.and_then(Value::as_str).unwrap_or("")).unwrap_or_default(),
    }
}

/// An RFC 3339 UTC time as Go's `time.Time.String()` prints it.
fn go_time(t: &str) -> String {
    let Some(t) = t.strip_suffix('Z') else { return "0001-01-01 00:00:00 +0000 UTC".into() };
    let t = t.replacen('T', " ", 1);
    let t = match t.split_once('.') {
        Some((whole, frac)) if frac.trim_end_matches('0').is_empty() => whole.to_string(),
        Some((whole, frac)) => format!("{whole}.{}", frac.trim_end_matches('0')),
        None => t,
    };
    format!("{t} +0000 UTC")
}

/// Moves `from` of `m` to `to` of `out` when Go would write it (a
/// non-empty string, a non-zero number, any other non-null value).
fn carry(m: &mut Map<String, Value>, from: &str, out: &mut Map<String, Value>, to: &str) {
    match m.remove(from) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::Number(n)) if n.as_i64() == Some(0) => {}
        Some(v) => {
            out.insert(to.into(), v);
        }
    }
}

/// Moves `from` to `to`, or writes `zero` (a field Go always writes: a
/// struct, a time, a string without omitempty).
fn carry_or(m: &mut Map<String, Value>, from: &str, out: &mut Map<String, Value>, to: &str, zero: Value) {
    let v = m.remove(from).filter(|v| !v.is_null()).unwrap_or(zero);
    out.insert(to.into(), v);
}

fn typed(api_version: &str, m: &mut Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("kind".into(), json!("Event"));
    out.insert("apiVersion".into(), json!(api_version));
    if let Some(md) = m.remove("metadata") {
        out.insert("metadata".into(), md);
    }
    out
}

impl Conversion for EventsV1 {
    /// In core/v1's field order, with what Go writes of its zero fields.
    fn to_storage(&self, obj: Value) -> Value {
        let Value::Object(mut m) = obj else { return obj };
        let mut out = typed("v1", &mut m);
        carry_or(&mut m, "regarding", &mut out, "involvedObject", json!({}));
        carry(&mut m, "reason", &mut out, "reason");
        carry(&mut m, "note", &mut out, "message");
        carry_or(&mut m, "deprecatedSource", &mut out, "source", json!({}));
        carry_or(&mut m, "deprecatedFirstTimestamp", &mut out, "firstTimestamp", Value::Null);
        carry_or(&mut m, "deprecatedLastTimestamp", &mut out, "lastTimestamp", Value::Null);
        carry(&mut m, "deprecatedCount", &mut out, "count");
        carry(&mut m, "type", &mut out, "type");
        carry_or(&mut m, "eventTime", &mut out, "eventTime", Value::Null);
        carry(&mut m, "series", &mut out, "series");
        carry(&mut m, "action", &mut out, "action");
        carry(&mut m, "related", &mut out, "related");
        carry_or(&mut m, "reportingController", &mut out, "reportingComponent", json!(""));
        carry_or(&mut m, "reportingInstance", &mut out, "reportingInstance", json!(""));
        Value::Object(out)
    }

    /// In events.k8s.io/v1's field order, with what Go writes of its zero
    /// fields.
    fn to_served(&self, obj: Value) -> Value {
        let Value::Object(mut m) = obj else { return obj };
        let mut out = typed("events.k8s.io/v1", &mut m);
        carry_or(&mut m, "eventTime", &mut out, "eventTime", Value::Null);
        carry(&mut m, "series", &mut out, "series");
        carry(&mut m, "reportingComponent", &mut out, "reportingController");
        carry(&mut m, "reportingInstance", &mut out, "reportingInstance");
        carry(&mut m, "action", &mut out, "action");
        carry(&mut m, "reason", &mut out, "reason");
        carry_or(&mut m, "involvedObject", &mut out, "regarding", json!({}));
        carry(&mut m, "related", &mut out, "related");
        carry(&mut m, "message", &mut out, "note");
        carry(&mut m, "type", &mut out, "type");
        carry_or(&mut m, "source", &mut out, "deprecatedSource", json!({}));
        carry_or(&mut m, "firstTimestamp", &mut out, "deprecatedFirstTimestamp", Value::Null);
        carry_or(&mut m, "lastTimestamp", &mut out, "deprecatedLastTimestamp", Value::Null);
        carry(&mut m, "count", &mut out, "deprecatedCount");
        Value::Object(out)
    }

    /// events.k8s.io/v1's labels: `regarding.*` for `involvedObject.*`,
    /// `reportingController` for `reportingComponent`; the old names are
    /// not labels of this API.
    fn field_label<'a>(&self, label: &'a str) -> Option<Cow<'a, str>> {
        const OBJECT: &[&str] = &["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];
        if let Some(field) = label.strip_prefix("regarding.") {
            return OBJECT.contains(&field).then(|| Cow::Owned(format!("involvedObject.{field}")));
        }
        match label {
            "reportingController" => Some(Cow::Borrowed("reportingComponent")),
            "reason" | "source" | "type" | "metadata.namespace" | "metadata.name" => Some(Cow::Borrowed(label)),
            _ => None,
        }
    }
}

fn event_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let set = |p: &str| o.pointer(p).filter(|v| !v.is_null());
    // Zero times read as "<unknown>", as translateTimestampSince says.
    let first = match set("/firstTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => since(set("/eventTime"), now, "<unknown>"),
    };
    let mut last = match set("/lastTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => first.clone(),
    };
    let mut count = i(o, "/count");
    if set("/series").is_some() {
        last = since(set("/series/lastObservedTime"), now, "<unknown>");
        count = i(o, "/series/count");
    } else if count == 0 {
        // Singleton events of the newer API carry no count.
        count = 1;
    }
    let first_non_empty = |a: &'static str, b: &'static str| if s(o, a).is_empty() { s(o, b) } else { s(o, a) };
    let (component, instance) = (
        first_non_empty("/source/component", "/reportingComponent"),
        first_non_empty("/source/host", "/reportingInstance"),
    );
    let source = if instance.is_empty() { component.to_string() } else { format!("{component}, {instance}") };
    let kind = s(o, "/involvedObject/kind").to_lowercase();
    let target = match s(o, "/involvedObject/name") {
        "" => kind,
        n => format!("{kind}/{n}"),
    };
    vec![
        last.into(),
        s(o, "/type").into(),
        s(o, "/reason").into(),
        target.into(),
        s(o, "/involvedObject/fieldPath").into(),
        source.into(),
        s(o, "/message").trim().into(),
        first.into(),
        json!(count),
        name(o),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_of_either_api_print_their_times_counts_and_sources() {
        let now = SimTime(1_700_000_000_000);
        let new_api = json!({"metadata": {"name": "e"}, "eventTime": "2023-11-14T22:12:20.000000Z",
            "reportingComponent": "kubelet", "reportingInstance": "node-1", "involvedObject": {"kind": "Node"},
            "type": "Normal", "reason": "Starting", "message": " started \n"});
        let c = Event.cells(&new_api, now);
        assert_eq!(
            c[..7],
            [
                json!("60s"),
                json!("Normal"),
                json!("Starting"),
                json!("node"),
                json!(""),
                json!("kubelet, node-1"),
                json!("started")
            ]
        );
        assert_eq!((&c[7], &c[8]), (&json!("60s"), &json!(1)));
        let series = json!({"metadata": {"name": "e"}, "firstTimestamp": "2023-11-14T22:00:00Z",
            "series": {"count": 7, "lastObservedTime": "2023-11-14T22:13:10.000000Z"}, "involvedObject": {"kind": "Pod", "name": "p"}});
        let c = Event.cells(&series, now);
        assert_eq!((&c[0], &c[3], &c[7], &c[8]), (&json!("10s"), &json!("pod/p"), &json!("13m"), &json!(7)));
    }
}
