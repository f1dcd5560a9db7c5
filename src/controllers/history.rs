//! ControllerRevisions as the StatefulSet and DaemonSet controllers keep
//! them (upstream's `controller/history` and the two controllers' own
//! `getPatch`): each revision stores the patch that puts its template
//! back, `{"spec":{"template":{"$patch":"replace",…}}}`, with the keys in
//! the order Go's encoding/json writes a map (sorted, at every level);
//! StatefulSets name theirs after the FNV-1 hash of those bytes and the
//! collision count (`HashControllerRevision`).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::{meta_str, owner_reference, safe_encode};
use crate::sort::Order;

/// The label a StatefulSet's revisions carry their hash in.
pub const HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// `v` with every object's keys sorted, nulls kept (a map Go decoded and
/// encodes again).
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.order();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// What a revision of `owner` stores: the patch that restores its
/// template.
pub fn patch_data(owner: &Value) -> Value {
    let mut template = owner["spec"]["template"].clone();
    if let Value::Object(m) = &mut template {
        m.insert("$patch".into(), json!("replace"));
    }
    sorted(&json!({"spec": {"template": template}}))
}

/// The bytes Go's encoding/json writes for `v` (already in key order):
/// serde_json's, with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go
/// escapes them (they only occur inside strings).
fn go_json(v: &Value) -> Vec<u8> {
    // (JSON is UTF-8: the bytes are a string.)
    let plain = String::from_utf8(crate::api::to_json(v)).unwrap_or_default();
    let mut out = String::with_capacity(plain.len());
    for c in plain.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.into_bytes()
}

/// `HashControllerRevision`: FNV-1 (32 bits) of the stored data and, when
/// there is one, the collision count's decimal digits.
pub fn revision_hash(data: &Value, probe: Option<i64>) -> String {
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = h.wrapping_mul(0x0100_0193);
            h ^= u32::from(*b);
        }
    };
    feed(&go_json(data));
    if let Some(p) = probe {
        feed(p.to_string().as_bytes());
    }
    safe_encode(h)
}

/// `ControllerRevisionName`: the owner's name (its first 223 bytes) and
/// the hash.
pub fn revision_name(owner: &str, hash: &str) -> String {
    let mut end = owner.len().min(223);
    while !owner.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}-{hash}", &owner[..end])
}

/// The collection of `owner`'s namespace's ControllerRevisions.
pub fn collection_of(owner: &Value) -> String {
    super::object::collection("apps/v1", meta_str(owner, "namespace"), "controllerrevisions")
}

/// Renumbers `revision` (the newest again, when a template returns to
/// it); whether the server took it.
pub fn renumber(client: &mut Client<'_>, revision: &Value, number: i64) -> bool {
    let mut renumbered = revision.clone();
    renumbered["revision"] = json!(number);
    let path = format!("{}/{}", collection_of(revision), meta_str(revision, "name"));
    client.write("PUT", &path, "application/json", &renumbered).status == 200
}

pub fn number(revision: &Value) -> i64 {
    revision["revision"].as_i64().unwrap_or(0)
}

/// The revisions `owner` controls, oldest first (by number, then
/// creation, then name, as upstream sorts them).
pub fn owned(revisions: &Informer, owner: &Value) -> Vec<Arc<Value>> {
    let uid = meta_str(owner, "uid");
    let mut list: Vec<Arc<Value>> = revisions
        .in_namespace(meta_str(owner, "namespace"))
        .filter(|r| super::object::controller_of(r).is_some_and(|c| c["uid"].as_str() == Some(uid)))
        .cloned()
        .collect();
    list.order_by(|a, b| {
        (number(a), meta_str(a, "creationTimestamp"), meta_str(a, "name")).cmp(&(
            number(b),
            meta_str(b, "creationTimestamp"),
            meta_str(b, "name"),
        ))
    });
    list
}

/// A new revision of `owner` (kind `kind`, apps/v1): its template's labels
/// and `extra_label`, its annotations, controlled by it.
pub fn new_revision(
    owner: &Value,
    kind: &str,
    name: &str,
    extra_label: (&str, &str),
    data: Value,
    number: i64,
) -> Value {
    let mut labels = owner["spec"]["template"]["metadata"]["labels"].as_object().cloned().unwrap_or_default();
    labels.insert(extra_label.0.into(), json!(extra_label.1));
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
    metadata.insert("namespace".into(), json!(meta_str(owner, "namespace")));
    metadata.insert("labels".into(), Value::Object(labels));
    if let Some(a) = owner["metadata"]["annotations"].as_object().filter(|a| !a.is_empty()) {
        metadata.insert("annotations".into(), Value::Object(a.clone()));
    }
    metadata.insert("ownerReferences".into(), json!([owner_reference(owner, "apps/v1", kind)]));
    json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": metadata, "data": data, "revision": number})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1_of_the_bytes_then_the_probe() {
        // FNV-1 (multiply, then xor) of "a": 0x050c5d7e; "a" then probe 0
        // is the hash of "a0".
        let fnv1 = |s: &[u8]| {
            let mut h: u32 = 0x811c_9dc5;
            for b in s {
                h = h.wrapping_mul(0x0100_0193);
                h ^= u32::from(*b);
            }
            h
        };
        assert_eq!(fnv1(b"a"), 0x050c_5d7e);
        let data = json!("a");
        assert_eq!(revision_hash(&data, None), safe_encode(fnv1(b"\"a\"")));
        assert_eq!(revision_hash(&data, Some(0)), safe_encode(fnv1(b"\"a\"0")));
        assert_eq!(safe_encode(1234567890), "56789bcdf4");
    }

    #[test]
    fn the_patch_is_sorted_with_nulls_kept_and_written_as_go_writes_it() {
        let set = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "command": ["sh", "-c", "a && b <c>"]}]},
            "metadata": {"labels": {"app": "web"}, "creationTimestamp": null}}}});
        let data = patch_data(&set);
        assert_eq!(
            String::from_utf8(go_json(&data)).unwrap(),
            r#"{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"command":["sh","-c","a \u0026\u0026 b \u003cc\u003e"],"name":"a"}]}}}}"#
        );
        assert_eq!(revision_name(&"x".repeat(300), "h").len(), 225);
    }
}
