//! ConfigMaps: valid data keys (which Secrets share), kubectl's columns.

use serde_json::{json, Value};

use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

use super::super::strategy::Strategy;

pub struct ConfigMap;

static COLUMNS: &[Column] = &[NAME, col("Data", "string", Desc::Field("io.k8s.api.core.v1.ConfigMap", "data")), AGE];

impl Strategy for ConfigMap {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        data_keys(obj, &mut errs);
        // The whole object's: upstream names the empty path.
        data_size(obj, &["data"], &["binaryData"], "[]", &mut errs);
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        immutable_data(new, old, &["data", "binaryData"])
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), json!(len(o, "/data") + len(o, "/binaryData")), age(o, now)]
    }
}

pub(super) const CONFIG_KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// A ConfigMap or Secret marked `immutable: true` keeps its flag and its
/// data (`ValidateConfigMapUpdate`, `ValidateSecretUpdate`).
pub(super) fn immutable_data(new: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("immutable").and_then(Value::as_bool) != Some(true) {
        return errs;
    }
    const WHY: &str = "field is immutable when `immutable` is set";
    if new.get("immutable").and_then(Value::as_bool) != Some(true) {
        errs.push(FieldError::forbidden("immutable", WHY));
    }
    for f in fields {
        let empty = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_object().is_some_and(|m| m.is_empty()));
        let (a, b) = (new.get(*f), old.get(*f));
        if a != b && !(empty(a) && empty(b)) {
            errs.push(FieldError::forbidden(f, WHY));
        }
    }
    errs
}

/// Upstream's `MaxSecretSize`: the most a ConfigMap's or a Secret's values
/// may hold together.
pub(super) const MAX_DATA_BYTES: usize = 1024 * 1024;

/// The values' total size against `MAX_DATA_BYTES`: `text` fields count
/// their strings' bytes, `binary` ones the bytes their base64 decodes to.
pub(super) fn data_size(obj: &Value, text: &[&str], binary: &[&str], field: &str, errs: &mut Vec<FieldError>) {
    let decoded = |s: &str| {
        let padding = s.bytes().rev().take(2).filter(|b| *b == b'=').count();
        (s.len() / 4 * 3 + s.len() % 4 * 3 / 4).saturating_sub(padding)
    };
    let total = strings(obj, text).map(str::len).sum::<usize>() + strings(obj, binary).map(decoded).sum::<usize>();
    if total > MAX_DATA_BYTES {
        errs.push(FieldError::too_long(field, &format!("may not be more than {MAX_DATA_BYTES} bytes")));
    }
}

/// The string values of the maps at `fields`.
fn strings<'a>(obj: &'a Value, fields: &'a [&str]) -> impl Iterator<Item = &'a str> + 'a {
    fields
        .iter()
        .filter_map(|f| obj.get(*f).and_then(Value::as_object))
        .flat_map(|m| m.values().filter_map(Value::as_str))
}

/// The keys of `data` and `binaryData` (ConfigMaps and Secrets).
/// Upstream's `IsConfigMapKey`: what is wrong with `k` as a ConfigMap's
/// or Secret's key (none when it is one).
pub(super) fn config_key(k: &str) -> Vec<String> {
    let mut msgs = Vec::new();
    if k.len() > 253 {
        msgs.push("must be no more than 253 characters".to_string());
    }
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)) {
        msgs.push(CONFIG_KEY_MSG.to_string());
    }
    if k == "." || k == ".." {
        msgs.push(format!("must not be '{k}'"));
    } else if k.starts_with("..") {
        msgs.push("must not start with '..'".to_string());
    }
    msgs
}

pub(super) fn data_keys(obj: &Value, errs: &mut Vec<FieldError>) {
    let data = obj.get("data").and_then(Value::as_object);
    let binary = obj.get("binaryData").and_then(Value::as_object);
    for (field, map) in [("data", data), ("binaryData", binary)] {
        for k in map.into_iter().flatten().map(|(k, _)| k) {
            // The path is made only for an error.
            let at = || format!("{field}[{k}]");
            for msg in config_key(k) {
                errs.push(FieldError::invalid(&at(), k, &msg));
            }
            if field == "data" && binary.is_some_and(|b| b.contains_key(k)) {
                errs.push(FieldError::invalid(&at(), k, "duplicate of key present in binaryData"));
            }
        }
    }
}
