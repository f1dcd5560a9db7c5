//! Strategic merge patch (`application/strategic-merge-patch+json`) for the
//! built-in kinds, driven by the generated schemas: lists whose schema says
//! `x-kubernetes-patch-strategy: merge` are merged element by element on
//! their `x-kubernetes-patch-merge-key` (or as a set, for lists of
//! scalars); other lists are replaced; maps merge; `null` deletes. The
//! directives: `$patch: replace|delete|merge` (on maps and in lists),
//! `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
//! `$setElementOrder/<field>`.
//!
//! Written by hand: no maintained Rust crate implements Kubernetes'
//! strategic merge patch (json-patch covers RFC 6902 and 7386 only).

use crate::sort::Order;
use serde_json::{Map, Value};

use crate::schema::Schemas;

const PATCH: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM: &str = "$deleteFromPrimitiveList/";
const SET_ORDER: &str = "$setElementOrder/";

/// Why a patch could not be applied; `bad_request` ones are the client's
/// malformed patch (400), the others are answered as upstream does (500).
#[derive(Debug, PartialEq)]
pub struct PatchError {
    pub message: String,
    pub bad_request: bool,
}

impl PatchError {
    fn bad(message: impl Into<String>) -> PatchError {
        PatchError { message: message.into(), bad_request: true }
    }
    fn other(message: impl Into<String>) -> PatchError {
        PatchError { message: message.into(), bad_request: false }
    }
}

/// Applies `patch` to `original`, whose schema is the definition `def`.
pub fn apply(s: &Schemas, def: &str, original: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let Value::Object(p) = patch else {
        return Err(PatchError::bad("invalid JSON document: a strategic merge patch must be a JSON object"));
    };
    let schema = s.definition(def);
    if !original.is_object() {
        *original = Value::Object(Map::new());
    }
    if let Value::Object(o) = original {
        if map_directive(p)? == Some("replace") {
            *o = strip_directives(p);
            return Ok(());
        }
        merge_map(s, schema, o, p)?;
    }
    Ok(())
}

fn map_directive(p: &Map<String, Value>) -> Result<Option<&str>, PatchError> {
    match p.get(PATCH) {
        None => Ok(None),
        Some(Value::String(d)) if matches!(d.as_str(), "replace" | "delete" | "merge") => Ok(Some(d)),
        Some(other) => Err(PatchError::bad(format!("Unknown patch type: {}", go_value(other)))),
    }
}

/// A patch map without its directives (what `$patch: replace` leaves).
fn strip_directives(p: &Map<String, Value>) -> Map<String, Value> {
    p.iter()
        .filter(|(k, _)| !k.starts_with('$'))
        .map(|(k, v)| {
            let v = match v {
                Value::Object(m) => Value::Object(strip_directives(m)),
                other => other.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// The schema of a field of an object schema, with `$ref`s followed.
fn field<'a>(s: &'a Schemas, schema: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    let facts = s.facts(schema?);
    facts.properties.and_then(|p| p.get(name)).or(facts.additional)
}

fn merge_map(
    s: &Schemas,
    schema: Option<&Value>,
    o: &mut Map<String, Value>,
    p: &Map<String, Value>,
) -> Result<(), PatchError> {
    // Directives that read the original first.
    for (k, v) in p {
        if let Some(list_field) = k.strip_prefix(DELETE_FROM) {
            let Value::Array(remove) = v else {
                return Err(PatchError::bad("invalid patch: $deleteFromPrimitiveList must be a list"));
            };
            if let Some(Value::Array(items)) = o.get_mut(list_field) {
                items.retain(|i| !remove.contains(i));
            }
        }
    }
    for (k, pv) in p {
        if k.starts_with('$') {
            continue;
        }
        let fs = field(s, schema, k);
        match pv {
            Value::Null => {
                o.shift_remove(k);
            }
            Value::Object(pm) => match map_directive(pm)? {
                Some("delete") => {
                    o.shift_remove(k);
                }
                Some("replace") => {
                    o.insert(k.clone(), Value::Object(strip_directives(pm)));
                }
                _ => {
                    let entry = o.entry(k.clone()).or_insert_with(|| Value::Object(Map::new()));
                    if !entry.is_object() {
                        *entry = Value::Object(Map::new());
                    }
                    if let Value::Object(om) = entry {
                        merge_map(s, fs, om, pm)?;
                    }
                }
            },
            Value::Array(pl) => {
                let merged = merge_list(s, fs, o.get(k).and_then(Value::as_array), pl)?;
                o.insert(k.clone(), Value::Array(merged));
            }
            scalar => {
                o.insert(k.clone(), scalar.clone());
            }
        }
    }
    for (k, v) in p {
        if let Some(list_field) = k.strip_prefix(SET_ORDER) {
            let Value::Array(order) = v else {
                return Err(PatchError::bad("invalid patch: $setElementOrder must be a list"));
            };
            let key = field(s, schema, list_field)
                .and_then(|f| f.get("x-kubernetes-patch-merge-key"))
                .and_then(Value::as_str);
            if let Some(Value::Array(items)) = o.get_mut(list_field) {
                set_order(items, order, key);
            }
        }
    }
    if let Some(retain) = p.get(RETAIN_KEYS) {
        let Value::Array(keys) = retain else {
            return Err(PatchError::bad("invalid patch: $retainKeys must be a list of strings"));
        };
        let keys: Vec<&str> = keys.iter().filter_map(Value::as_str).collect();
        o.retain(|k, _| keys.contains(&k.as_str()));
    }
    Ok(())
}

fn merge_list(
    s: &Schemas,
    fs: Option<&Value>,
    orig: Option<&Vec<Value>>,
    patch: &[Value],
) -> Result<Vec<Value>, PatchError> {
    // `{"$patch": "replace"}` in the list: the rest of the list replaces it.
    if patch
        .iter()
        .any(|e| e.get(PATCH).and_then(Value::as_str) == Some("replace") && e.as_object().is_some_and(|m| m.len() == 1))
    {
        return Ok(patch.iter().filter(|e| e.get(PATCH).is_none()).cloned().collect());
    }
    let fs = fs.map(|f| s.resolve(f));
    let strategy = fs.and_then(|f| f.get("x-kubernetes-patch-strategy")).and_then(Value::as_str).unwrap_or("");
    if !strategy.split(',').any(|st| st == "merge") {
        return Ok(patch.iter().filter(|e| e.get(PATCH).is_none()).map(strip_value).collect());
    }
    let mut out: Vec<Value> = orig.cloned().unwrap_or_default();
    let items_schema = fs.and_then(|f| f.get("items"));
    match fs.and_then(|f| f.get("x-kubernetes-patch-merge-key")).and_then(Value::as_str) {
        None => {
            // A set of scalars: add what is missing.
            for e in patch {
                if !out.contains(e) {
                    out.push(e.clone());
                }
            }
        }
        Some(key) => {
            for e in patch {
                let Value::Object(pe) = e else {
                    return Err(PatchError::bad(format!(
                        "invalid patch: list of maps with merge key {key:?} holds {}",
                        go_value(e)
                    )));
                };
                let Some(kv) = pe.get(key) else {
                    return Err(PatchError::other(format!(
                        "map: {} does not contain declared merge key: {key}",
                        go_value(e)
                    )));
                };
                let pos = out.iter().position(|x| x.get(key) == Some(kv));
                match (map_directive(pe)?, pos) {
                    (Some("delete"), Some(i)) => {
                        out.remove(i);
                    }
                    (Some("delete"), None) => {}
                    (Some("replace"), Some(i)) => out[i] = Value::Object(strip_directives(pe)),
                    (_, Some(i)) => {
                        if let Value::Object(om) = &mut out[i] {
                            merge_map(s, items_schema, om, pe)?;
                        }
                    }
                    (_, None) => {
                        let mut fresh = Map::new();
                        merge_map(s, items_schema, &mut fresh, pe)?;
                        out.push(Value::Object(fresh));
                    }
                }
            }
        }
    }
    Ok(out)
}

fn strip_value(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(strip_directives(m)),
        other => other.clone(),
    }
}

/// Orders a merged list as `$setElementOrder` says: the listed elements in
/// that order, then the others in the order they had.
fn set_order(items: &mut Vec<Value>, order: &[Value], key: Option<&str>) {
    let ident = |v: &Value| -> Value {
        match key {
            Some(k) => v.get(k).cloned().unwrap_or(Value::Null),
            None => v.clone(),
        }
    };
    // Each wanted identity in turn takes every element it names, in the
    // order they had (lists here are short: no sort is needed).
    let mut rest = std::mem::take(items);
    for (i, w) in order.iter().enumerate() {
        let w = ident(w);
        if order[..i].iter().any(|o| ident(o) == w) {
            continue;
        }
        let mut k = 0;
        while k < rest.len() {
            if ident(&rest[k]) == w {
                items.push(rest.remove(k));
            } else {
                k += 1;
            }
        }
    }
    items.append(&mut rest);
}

/// A value as Go's `%v` prints a decoded JSON value (`map[k:v]`).
fn go_value(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.order();
            let parts: Vec<String> = keys.iter().map(|k| format!("{k}:{}", go_value(&m[*k]))).collect();
            format!("map[{}]", parts.join(" "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::schemas;
    use serde_json::json;

    const POD: &str = "io.k8s.api.core.v1.Pod";

    fn pod() -> Value {
        json!({"metadata": {"name": "p", "labels": {"a": "1", "b": "2"}, "finalizers": ["x"]},
               "spec": {"containers": [
                   {"name": "web", "image": "nginx:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
                   {"name": "side", "image": "busybox", "args": ["sleep", "1"]}]}})
    }

    fn patched(p: Value) -> Value {
        let mut doc = pod();
        apply(schemas(), POD, &mut doc, &p).unwrap();
        doc
    }

    #[test]
    fn containers_merge_by_name_and_env_by_name() {
        let doc = patched(json!({"spec": {"containers": [
            {"name": "web", "image": "nginx:2", "env": [{"name": "B", "value": "two"}, {"name": "C", "value": "3"}]},
            {"name": "new", "image": "redis"}]}}));
        let c = &doc["spec"]["containers"];
        assert_eq!(c.as_array().unwrap().len(), 3);
        assert_eq!(c[0]["image"], "nginx:2");
        assert_eq!(
            c[0]["env"],
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "two"}, {"name": "C", "value": "3"}])
        );
        assert_eq!(c[1]["name"], "side");
        assert_eq!(c[2], json!({"name": "new", "image": "redis"}));
    }

    #[test]
    fn lists_without_a_merge_strategy_are_replaced_and_scalar_sets_unite() {
        let doc = patched(json!({"metadata": {"finalizers": ["y", "x"]},
                                "spec": {"containers": [{"name": "side", "args": ["sleep", "2"]}]}}));
        assert_eq!(doc["spec"]["containers"][1]["args"], json!(["sleep", "2"]));
        // finalizers are a merge-strategy list of strings.
        assert_eq!(doc["metadata"]["finalizers"], json!(["x", "y"]));
    }

    #[test]
    fn null_deletes_and_maps_merge() {
        let doc = patched(json!({"metadata": {"labels": {"a": null, "c": "3"}}}));
        assert_eq!(doc["metadata"]["labels"], json!({"b": "2", "c": "3"}));
    }

    #[test]
    fn patch_directives_replace_delete_and_merge() {
        let doc = patched(json!({"metadata": {"labels": {"$patch": "replace", "only": "this"}}}));
        assert_eq!(doc["metadata"]["labels"], json!({"only": "this"}));
        let doc = patched(json!({"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}));
        assert_eq!(doc["spec"]["containers"].as_array().unwrap().len(), 1);
        let doc = patched(json!({"spec": {"containers": [{"$patch": "replace"}, {"name": "solo", "image": "x"}]}}));
        assert_eq!(doc["spec"]["containers"], json!([{"name": "solo", "image": "x"}]));
        let doc = patched(json!({"metadata": {"labels": {"$patch": "delete"}}}));
        assert!(doc["metadata"].get("labels").is_none());
        let doc = patched(json!({"metadata": {"labels": {"$patch": "merge", "z": "9"}}}));
        assert_eq!(doc["metadata"]["labels"]["z"], "9");
        assert_eq!(doc["metadata"]["labels"]["a"], "1");
    }

    #[test]
    fn delete_from_primitive_list_and_set_element_order() {
        let doc = patched(json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}}));
        assert_eq!(doc["metadata"]["finalizers"], json!([]));
        let doc = patched(json!({"spec": {
            "$setElementOrder/containers": [{"name": "side"}, {"name": "web"}],
            "containers": [{"name": "web", "image": "nginx:3"}]}}));
        let names: Vec<&str> =
            doc["spec"]["containers"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, vec!["side", "web"]);
        assert_eq!(doc["spec"]["containers"][1]["image"], "nginx:3");
    }

    #[test]
    fn retain_keys_drops_what_is_not_listed() {
        let mut deploy = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
        let p = json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}});
        apply(schemas(), "io.k8s.api.apps.v1.Deployment", &mut deploy, &p).unwrap();
        assert_eq!(deploy["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn malformed_patches_are_refused_as_upstream_does() {
        let mut doc = pod();
        let e = apply(schemas(), POD, &mut doc, &json!({"spec": {"containers": [{"image": "x"}]}})).unwrap_err();
        assert_eq!(e, PatchError::other("map: map[image:x] does not contain declared merge key: name"));
        let e = apply(schemas(), POD, &mut doc, &json!({"metadata": {"$patch": "frob"}})).unwrap_err();
        assert_eq!(e, PatchError::bad("Unknown patch type: frob"));
        assert!(apply(schemas(), POD, &mut doc, &json!([1])).unwrap_err().bad_request);
    }
}
