//! Metadata helpers over JSON objects, name validation, and the canonical
//! field order kube-apiserver emits (kind, apiVersion, metadata, spec, …).

use crate::sort::Order;
use serde_json::{json, Map, Value};

/// Whether two values are equal, as `==` decides, but without hashing
/// every key when their objects keep their keys in the same order (the
/// common case: a stored object against its next version), which `==` on
/// ordered maps does not take advantage of.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                if ka != kb {
                    // Another order: compared key by key.
                    return x == y;
                }
                if !same(va, vb) {
                    return false;
                }
            }
            true
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        _ => a == b,
    }
}

pub fn metadata(obj: &Value) -> Option<&Map<String, Value>> {
    obj.get("metadata").and_then(Value::as_object)
}

pub fn metadata_mut(obj: &mut Value) -> &mut Map<String, Value> {
    let root = match obj {
        Value::Object(m) => m,
        other => {
            *other = Value::Object(Map::new());
            match other {
                Value::Object(m) => m,
                _ => unreachable!("just assigned an object"),
            }
        }
    };
    let meta = root.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    match meta {
        Value::Object(m) => m,
        _ => unreachable!("ensured an object"),
    }
}

pub fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    metadata(obj).and_then(|m| m.get(field)).and_then(Value::as_str)
}

pub fn name(obj: &Value) -> &str {
    meta_str(obj, "name").unwrap_or("")
}

pub fn namespace(obj: &Value) -> &str {
    meta_str(obj, "namespace").unwrap_or("")
}

pub fn labels(obj: &Value) -> Vec<(String, String)> {
    metadata(obj)
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|l| l.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default()
}

/// Whether `metadata.finalizers` holds `finalizer`.
pub fn has_finalizer(obj: &Value, finalizer: &str) -> bool {
    obj["metadata"]["finalizers"].as_array().is_some_and(|f| f.iter().any(|x| x.as_str() == Some(finalizer)))
}

pub fn finalizers(obj: &Value) -> Vec<String> {
    metadata(obj)
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Reads a dotted path (`spec.nodeName`) as upstream's field selectors see
/// it: strings as they are, booleans and numbers printed, absent as `None`.
pub fn field_at(obj: &Value, path: &str) -> Option<String> {
    let mut cur = obj;
    for part in path.split('.') {
        cur = cur.get(part)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Where kube-apiserver writes a field of ObjectMeta: in the order the
/// struct declares them (name, generateName, namespace, selfLink, uid,
/// resourceVersion, generation, creationTimestamp, deletionTimestamp,
/// deletionGracePeriodSeconds, labels, annotations, ownerReferences,
/// finalizers, managedFields), any other after them. (A `match`, which
/// tells strings apart by length first: a search of a list compared each
/// name in turn, ~1,300 instructions of a create.)
fn metadata_rank(k: &str) -> usize {
    match k {
        "name" => 0,
        "generateName" => 1,
        "namespace" => 2,
        "selfLink" => 3,
        "uid" => 4,
        "resourceVersion" => 5,
        "generation" => 6,
        "creationTimestamp" => 7,
        "deletionTimestamp" => 8,
        "deletionGracePeriodSeconds" => 9,
        "labels" => 10,
        "annotations" => 11,
        "ownerReferences" => 12,
        "finalizers" => 13,
        "managedFields" => 14,
        _ => 15,
    }
}

/// Where kube-apiserver writes a top-level field: kind, apiVersion,
/// metadata, the others, status last.
fn top_rank(k: &str) -> usize {
    match k {
        "kind" => 0,
        "apiVersion" => 1,
        "metadata" => 2,
        "status" => 4,
        _ => 3,
    }
}

fn reorder(map: &mut Map<String, Value>, rank: Rank) {
    // Most maps are in order already (or nearly): only a map out of order
    // is rebuilt.
    let mut ranks = map.keys().map(|k| rank(k));
    let mut prev = 0;
    if ranks.all(|r| std::mem::replace(&mut prev, r) <= r) {
        return;
    }
    // In place, each key ranked once; stable: keys of equal rank keep the
    // order they came in. (The vendored serde_json's: no key is hashed
    // again.)
    map.sort_by_cached_key(|k, _| rank(k));
}

/// Sets a field of `metadata` where kube-apiserver's order puts it when the
/// field is new (after every field that comes at or before it in that
/// order): metadata in order stays in order, so `canonicalize` has nothing
/// to sort. A field already there keeps its place.
pub fn insert_metadata_field(meta: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(v) = meta.get_mut(key) {
        *v = value;
        return;
    }
    let r = metadata_rank(key);
    match meta.keys().position(|k| metadata_rank(k) > r) {
        Some(at) => {
            meta.shift_insert(at, key.to_string(), value);
        }
        // At the end: a plain insert (cheaper).
        None => {
            meta.insert(key.to_string(), value);
        }
    }
}

/// Sets `kind` and `apiVersion` and puts them first, as kube-apiserver
/// writes them; the other keys keep their order. (Each is inserted at its
/// place: only the entries before its old place move, and an object has
/// few top-level keys.)
pub fn set_kind_first(root: &mut Map<String, Value>, kind: &str, api_version: &str) {
    root.shift_insert(0, "kind".into(), Value::String(kind.into()));
    root.shift_insert(1, "apiVersion".into(), Value::String(api_version.into()));
}

/// Puts an object's keys in the order kube-apiserver serializes them:
/// kind, apiVersion, metadata (its own fields in ObjectMeta order), the
/// rest as given, status last.
pub fn canonicalize(obj: &mut Value) {
    if let Value::Object(root) = obj {
        reorder(root, top_rank);
        if let Some(Value::Object(meta)) = root.get_mut("metadata") {
            reorder(meta, metadata_rank);
        }
    }
}

/// Name rules per kind, as upstream's `ValidateObjectMeta` applies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: most kinds.
    Dns1123Subdomain,
    /// RFC 1123 label: namespaces.
    Dns1123Label,
    /// RFC 1035 label (starts with a letter): services.
    Dns1035Label,
    /// RBAC and a few others: any path segment name (no `/`, `%`, not `.`/`..`).
    PathSegment,
}

const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Validates a name; returns the messages upstream would give (empty: valid).
pub fn validate_name(rule: NameRule, name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    match rule {
        NameRule::Dns1123Subdomain => {
            if name.len() > 253 {
                errs.push("must be no more than 253 characters".to_string());
            }
            if !name.split('.').all(is_label) {
                errs.push(DNS1123_SUBDOMAIN_MSG.to_string());
            }
        }
        NameRule::Dns1123Label => {
            if name.len() > 63 {
                errs.push("must be no more than 63 characters".to_string());
            }
            if !is_label(name) {
                // A valid subdomain that is no label can only have dots.
                if name.split('.').all(is_label) {
                    errs.push("must not contain dots".to_string());
                } else {
                    errs.push(DNS1123_LABEL_MSG.to_string());
                }
            }
        }
        NameRule::Dns1035Label => {
            if name.len() > 63 {
                errs.push("must be no more than 63 characters".to_string());
            }
            if !is_label(name) || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                errs.push(DNS1035_LABEL_MSG.to_string());
            }
        }
        NameRule::PathSegment => {
            if name == "." || name == ".." {
                errs.push(format!("may not be '{name}'"));
            }
            for bad in ["/", "%"] {
                if name.contains(bad) {
                    errs.push(format!("may not contain '{bad}'"));
                }
            }
        }
    }
    errs
}

/// Whether a string may be used as a path segment at all (URL routing).
pub fn is_valid_path_segment(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains('/') && !s.contains('%')
}

/// Where a field goes among its map's (`top_rank`, `metadata_rank`).
type Rank = fn(&str) -> usize;

fn write_ordered(map: &Map<String, Value>, rank: Rank, out: &mut Vec<u8>, nested: Option<(&str, Rank)>) {
    let mut entries: Vec<(usize, &String, &Value)> = map.iter().map(|(k, v)| (rank(k), k, v)).collect();
    // Stable: keys of equal rank keep the order they came in.
    entries.order_by_key(|(r, _, _)| *r);
    out.push(b'{');
    for (i, (_, k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::ser::write_string(out, k);
        out.push(b':');
        match (nested, v) {
            (Some((name, rank)), Value::Object(m)) if name == k.as_str() => write_ordered(m, rank, out, None),
            _ => serde_json::ser::write_value(out, v),
        }
    }
    out.push(b'}');
}

/// Serializes an object in canonical order (as `canonicalize` would
/// arrange it) without rebuilding its maps.
pub fn to_canonical_json(obj: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(512);
    write_canonical_json(obj, &mut out);
    out
}

/// Appends the canonical serialization of `obj` to `out`.
/// Drops the metadata fields a Go client would not send back and Go's
/// encoder leaves out: every ObjectMeta field is `omitempty`, so a null,
/// an empty string, an empty list or an empty map is no field at all
/// (`finalizers: null`, `ownerReferences: []` after the last is removed).
pub fn prune_empty_metadata(obj: &mut Value) {
    if let Some(Value::Object(m)) = obj.get_mut("metadata") {
        m.retain(|_, v| match v {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => true,
        });
    }
}

pub fn write_canonical_json(obj: &Value, out: &mut Vec<u8>) {
    match obj {
        Value::Object(root) => write_ordered(root, top_rank, out, Some(("metadata", metadata_rank))),
        other => serde_json::ser::write_value(out, other),
    }
}

/// Sets a condition of `status` as upstream's `SetCRDCondition` and
/// `UpdatePodCondition` do: appended when new, updated in place; its
/// transition time moves (to `now`) only when its status does.
pub fn set_condition(status: &mut Map<String, Value>, mut cond: Value, now: &str) {
    let list = status.entry("conditions").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    let Some(list) = list.as_array_mut() else { return };
    match list.iter_mut().find(|c| c["type"] == cond["type"]) {
        Some(existing) => {
            let moved = existing["status"] != cond["status"] || existing["lastTransitionTime"].is_null();
            cond["lastTransitionTime"] = if moved { json!(now) } else { existing["lastTransitionTime"].clone() };
            *existing = cond;
        }
        None => {
            cond["lastTransitionTime"] = json!(now);
            list.push(cond);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_decides_as_equality_does_whatever_the_key_order() {
        let a = json!({"a": 1, "b": {"x": [1, {"y": 2}], "z": null}, "c": "s"});
        let cases = [
            (json!({"a": 1, "b": {"x": [1, {"y": 2}], "z": null}, "c": "s"}), true),
            (json!({"c": "s", "a": 1, "b": {"z": null, "x": [1, {"y": 2}]}}), true),
            (json!({"a": 1, "b": {"x": [1, {"y": 3}], "z": null}, "c": "s"}), false),
            (json!({"c": "s", "b": {"x": [{"y": 2}, 1], "z": null}, "a": 1}), false),
            (json!({"a": 1, "b": {"x": [1, {"y": 2}], "z": null}, "d": "s"}), false),
            (json!({"a": 1, "b": {"x": [1, {"y": 2}], "z": null}}), false),
            (json!({"a": 1.0, "b": {"x": [1, {"y": 2}], "z": null}, "c": "s"}), false),
        ];
        for (b, equal) in cases {
            assert_eq!(same(&a, &b), equal, "{b}");
            assert_eq!(same(&a, &b), a == b, "{b}");
            assert_eq!(same(&b, &a), equal, "{b}");
        }
    }

    #[test]
    fn canonical_writer_agrees_with_canonicalize() {
        let mut v = json!({"status": {"b": 1}, "data": {"z": 1, "a": 2}, "metadata": {"labels": {"x": "y"}, "uid": "u", "name": "n", "zzz": 1}, "spec": [1], "apiVersion": "v1", "kind": "K"});
        let direct = to_canonical_json(&v);
        canonicalize(&mut v);
        assert_eq!(String::from_utf8(direct).unwrap(), serde_json::to_string(&v).unwrap());
    }

    /// Every ObjectMeta field, sent in reverse with unknown ones among
    /// them, comes out in the struct's order, the unknown ones after it
    /// (as sent); at the top, status comes last.
    #[test]
    fn every_metadata_field_is_put_in_its_place() {
        let order = [
            "name",
            "generateName",
            "namespace",
            "selfLink",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "labels",
            "annotations",
            "ownerReferences",
            "finalizers",
            "managedFields",
        ];
        let mut meta = Map::new();
        for (i, k) in order.iter().rev().enumerate() {
            meta.insert(k.to_string(), json!(i));
            if i % 5 == 0 {
                meta.insert(format!("x{i}"), json!(i));
            }
        }
        let mut v = json!({"status": {}, "metadata": meta, "spec": {}, "kind": "K"});
        let direct = to_canonical_json(&v);
        canonicalize(&mut v);
        let keys: Vec<&str> = v["metadata"].as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = order.to_vec();
        want.extend(["x0", "x5", "x10"]);
        assert_eq!(keys, want);
        let top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(top, ["kind", "metadata", "spec", "status"]);
        assert_eq!(String::from_utf8(direct).unwrap(), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn canonical_order_puts_kind_api_version_metadata_first() {
        let mut v = json!({"data": {}, "metadata": {"uid": "u", "name": "n"}, "apiVersion": "v1", "kind": "ConfigMap"});
        canonicalize(&mut v);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"n","uid":"u"},"data":{}}"#
        );
    }

    #[test]
    fn ranked_inserts_keep_an_ordered_map_in_order() {
        let text = |v: &Value| serde_json::to_string(v).unwrap();
        let mut v = json!({"metadata": {"name": "n", "labels": {}, "managedFields": []}, "data": {}});
        let Value::Object(root) = &mut v else { unreachable!() };
        set_kind_first(root, "ConfigMap", "v1");
        let Some(Value::Object(meta)) = root.get_mut("metadata") else { unreachable!() };
        insert_metadata_field(meta, "creationTimestamp", json!("t"));
        insert_metadata_field(meta, "uid", json!("u"));
        insert_metadata_field(meta, "resourceVersion", json!("1"));
        // A key already there keeps its place and takes the new value.
        insert_metadata_field(meta, "name", json!("m"));
        let inserted = text(&v);
        assert_eq!(
            inserted,
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"m","uid":"u","resourceVersion":"1","creationTimestamp":"t","labels":{},"managedFields":[]},"data":{}}"#
        );
        canonicalize(&mut v);
        assert_eq!(text(&v), inserted);
        // Kind and apiVersion sent in another place move to the front;
        // the rest keeps its order.
        let mut v = json!({"spec": {}, "apiVersion": "x", "kind": "K", "status": {}});
        let Value::Object(root) = &mut v else { unreachable!() };
        set_kind_first(root, "K", "v1");
        assert_eq!(text(&v), r#"{"kind":"K","apiVersion":"v1","spec":{},"status":{}}"#);
        let Value::Object(root) = &mut v else { unreachable!() };
        set_kind_first(root, "K", "v2");
        assert_eq!(text(&v), r#"{"kind":"K","apiVersion":"v2","spec":{},"status":{}}"#);
        for (sent, kept) in [
            (json!({"apiVersion": "x", "kind": "K", "spec": {}}), r#""spec":{}"#),
            (json!({"metadata": {}, "kind": "K", "data": {}}), r#""metadata":{},"data":{}"#),
            (json!({"metadata": {}, "data": {}, "apiVersion": "x"}), r#""metadata":{},"data":{}"#),
        ] {
            let mut v = sent;
            let Value::Object(root) = &mut v else { unreachable!() };
            set_kind_first(root, "K", "v1");
            assert_eq!(text(&v), format!(r#"{{"kind":"K","apiVersion":"v1",{kept}}}"#));
        }
    }

    #[test]
    fn names_follow_rfc1123() {
        assert!(validate_name(NameRule::Dns1123Subdomain, "a.b-c").is_empty());
        assert_eq!(validate_name(NameRule::Dns1123Subdomain, "A").len(), 1);
        assert_eq!(validate_name(NameRule::Dns1123Label, "a.b").len(), 1);
        assert!(validate_name(NameRule::PathSegment, "system:admin").is_empty());
        assert_eq!(validate_name(NameRule::PathSegment, "a/b").len(), 1);
    }
}
