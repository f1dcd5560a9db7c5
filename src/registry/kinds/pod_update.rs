//! What an update of a pod may change (upstream's `ValidatePodUpdate`):
//! its containers' and init containers' images, `activeDeadlineSeconds`
//! (set, or lowered), tolerations (added, or their `tolerationSeconds`),
//! scheduling gates (removed), a negative grace period set to 1 — and
//! nothing else of its spec. Its status is written through `/status`.
//!
//! Upstream ends the refusal with go-cmp's diff of its internal Go values
//! (whose spacing go-cmp varies on purpose); ours names the same fields
//! with their old and new values as JSON (`docs/fidelity.md`).

use serde_json::{Map, Value};

use crate::api::FieldError;

/// What the refusal lists as updatable, joined as upstream joins it.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,\
`spec.tolerations` (only additions to existing tolerations),\
`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// Annotations a pod may neither gain, lose nor change: the mirror pod's,
/// and (by prefix) AppArmor's old per-container ones.
pub(super) const MIRROR: &str = "kubernetes.io/config.mirror";
const APPARMOR: &str = "container.apparmor.security.beta.kubernetes.io/";

const MAX_INT32: i64 = i32::MAX as i64;

pub(super) fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = annotation_updates(new, old);
    let (n, o) = (&new["spec"], &old["spec"]);
    for (list, path) in [("containers", "spec.containers"), ("initContainers", "spec.initContainers")] {
        if items(n, list).len() != items(o, list).len() {
            errs.push(FieldError::forbidden(path, "pod updates may not add or remove containers"));
            return errs;
        }
    }
    let deadline = |s: &Value| s.get("activeDeadlineSeconds").and_then(Value::as_i64);
    let path = "spec.activeDeadlineSeconds";
    match (deadline(o), deadline(n)) {
        (_, Some(d)) if !(0..=MAX_INT32).contains(&d) => {
            errs.push(FieldError::invalid_value(path, &d.into(), "must be between 0 and 2147483647, inclusive"));
            return errs;
        }
        (Some(was), Some(d)) if was < d => {
            errs.push(FieldError::invalid_value(path, &d.into(), "must be less than or equal to previous value"));
            return errs;
        }
        (Some(_), None) => {
            errs.push(FieldError::invalid(path, "null", "must not update from a positive integer to nil value"))
        }
        _ => {}
    }
    let now = items(n, "tolerations");
    let kept = items(o, "tolerations").iter().all(|was| now.iter().any(|t| same_but_seconds(was, t)));
    if !kept {
        let why = "existing toleration can not be modified except its tolerationSeconds";
        errs.push(FieldError::forbidden("spec.tolerations", why));
    }
    let gates = |s: &Value| -> Vec<String> {
        items(s, "schedulingGates").iter().filter_map(|g| g["name"].as_str()).map(str::to_string).collect()
    };
    let old_gates = gates(o);
    for (i, gate) in gates(n).iter().enumerate() {
        if !old_gates.contains(gate) {
            let why = format!("only deletion is allowed, but found new scheduling gate '{gate}'");
            errs.push(FieldError::forbidden(&format!("spec.schedulingGates[{i}].name"), &why));
        }
    }
    if equal(n, o) {
        return errs;
    }
    let munged = munge(n, o);
    if !equal(&munged, o) {
        let why =
            format!("pod updates may not change fields other than {UPDATABLE}\n{}", diff("core.PodSpec", o, &munged));
        errs.push(FieldError::forbidden("spec", &why));
    }
    errs
}

/// What a write of `pods/NAME/ephemeralcontainers` may change beyond the
/// spec's own rules (upstream's `ValidatePodEphemeralContainersUpdate`):
/// ephemeral containers are added, never removed or changed (each found by
/// name: a patch may reorder them); a mirror pod has none.
pub(super) fn validate_ephemeral_update(new: &Value, old: &Value) -> Vec<FieldError> {
    if old.pointer("/metadata/annotations").and_then(|a| a.get(MIRROR)).is_some() {
        return vec![FieldError::forbidden("[]", "static pods do not support ephemeral containers")];
    }
    let mut errs = annotation_updates(new, old);
    let path = "spec.ephemeralContainers";
    let now = items(&new["spec"], "ephemeralContainers");
    for was in items(&old["spec"], "ephemeralContainers") {
        let name = was["name"].as_str().unwrap_or("");
        match now.iter().find(|c| c["name"].as_str() == Some(name)) {
            None => errs.push(FieldError::forbidden(
                path,
                &format!("existing ephemeral containers {name:?} may not be removed\n"),
            )),
            Some(c) if !equal(c, was) => {
                let why = format!(
                    "existing ephemeral containers {name:?} may not be changed\n{}",
                    diff("core.EphemeralContainer", was, c)
                );
                errs.push(FieldError::forbidden(path, &why));
            }
            Some(_) => {}
        }
    }
    errs
}

pub(super) fn items<'a>(v: &'a Value, field: &str) -> &'a [Value] {
    v.get(field).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Two tolerations alike but for their `tolerationSeconds`.
fn same_but_seconds(a: &Value, b: &Value) -> bool {
    let strip = |t: &Value| {
        let mut t = t.clone();
        if let Some(m) = t.as_object_mut() {
            m.shift_remove("tolerationSeconds");
        }
        t
    };
    equal(&strip(a), &strip(b))
}

/// The new spec with what may change taken from the old one.
fn munge(new: &Value, old: &Value) -> Value {
    let mut m = new.clone();
    let Some(spec) = m.as_object_mut() else { return m };
    for list in ["containers", "initContainers"] {
        let olds = items(old, list);
        if let Some(Value::Array(cs)) = spec.get_mut(list) {
            for (c, was) in cs.iter_mut().zip(olds) {
                if let Some(c) = c.as_object_mut() {
                    set(c, "image", was.get("image"));
                }
            }
        }
    }
    for field in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        set(spec, field, old.get(field));
    }
    let grace = |s: &Value| s.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
    if grace(old).is_some_and(|g| g < 0) && grace(new) == Some(1) {
        set(spec, "terminationGracePeriodSeconds", old.get("terminationGracePeriodSeconds"));
    }
    m
}

fn set(m: &mut Map<String, Value>, field: &str, value: Option<&Value>) {
    match value {
        Some(v) => m.insert(field.into(), v.clone()),
        None => m.shift_remove(field),
    };
}

/// Equal as upstream's semantic comparison sees JSON: a missing field, a
/// null and an empty list are one (nil and empty slices are equal there).
fn equal(a: &Value, b: &Value) -> bool {
    let absent = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_array().is_some_and(Vec::is_empty));
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.into_iter().all(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => equal(p, q),
                (p, q) => absent(p) && absent(q),
            })
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        _ => a == b,
    }
}

/// The fields of a PodSpec (or of another struct, `type_name`) that
/// differ, in the shape of go-cmp's report: the type's name, a `-` line
/// with the old value and a `+` line with the new, named
/// as the Go fields are.
fn diff(type_name: &str, old: &Value, new: &Value) -> String {
    let none = Map::new();
    let (o, n) = (old.as_object().unwrap_or(&none), new.as_object().unwrap_or(&none));
    let mut out = format!("  {type_name}{{\n");
    let mut same = 0;
    for k in o.keys().chain(n.keys().filter(|k| !o.contains_key(*k))) {
        if k == "serviceAccount" {
            continue;
        }
        let (p, q) = (o.get(k), n.get(k));
        if equal(p.unwrap_or(&Value::Null), q.unwrap_or(&Value::Null)) {
            same += 1;
            continue;
        }
        if same > 0 {
            out.push_str(&format!("  \t... // {same} identical fields\n"));
            same = 0;
        }
        let name = go_name(k);
        for (sign, v) in [("-", p), ("+", q)] {
            if let Some(v) = v.filter(|v| !v.is_null()) {
                out.push_str(&format!("{sign} \t{name}: {v},\n"));
            }
        }
    }
    if same > 0 {
        out.push_str(&format!("  \t... // {same} identical fields\n"));
    }
    out.push_str("  }\n");
    out
}

/// A PodSpec field's Go name.
fn go_name(json: &str) -> String {
    match json {
        "dnsPolicy" => "DNSPolicy".into(),
        "dnsConfig" => "DNSConfig".into(),
        "hostIPC" => "HostIPC".into(),
        "hostPID" => "HostPID".into(),
        "os" => "OS".into(),
        _ => {
            let mut c = json.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        }
    }
}

/// The annotations an update may not touch (upstream's
/// `ValidatePodSpecificAnnotationUpdates`).
fn annotation_updates(new: &Value, old: &Value) -> Vec<FieldError> {
    let none = Map::new();
    let n = new.pointer("/metadata/annotations").and_then(Value::as_object).unwrap_or(&none);
    let o = old.pointer("/metadata/annotations").and_then(Value::as_object).unwrap_or(&none);
    let mut errs = Vec::new();
    let guarded = |k: &str| k == MIRROR || k.starts_with(APPARMOR);
    let what = |k: &str| if k == MIRROR { "mirror pod annotation" } else { "AppArmor annotations" };
    for (k, v) in o.iter().filter(|(k, _)| guarded(k)) {
        if n.get(k) != Some(v) {
            let path = format!("metadata.annotations[{k}]");
            errs.push(FieldError::forbidden(&path, &format!("may not remove or update {}", what(k))));
        }
    }
    for k in n.keys().filter(|k| guarded(k) && !o.contains_key(*k)) {
        let path = format!("metadata.annotations[{k}]");
        errs.push(FieldError::forbidden(&path, &format!("may not add {}", what(k))));
    }
    errs
}
