//! Walking values by schema for server-side apply: the set of fields a
//! value sets, the comparison of two values (added, modified, removed
//! paths), the merge of an applied configuration into a live object, and
//! the removal of fields. List and map semantics come from the schemas'
//! `x-kubernetes-list-type`/`-list-map-keys`/`-map-type` (falling back to
//! the patch strategy and merge key, as upstream's converter does).

use crate::sort::Order;
use serde_json::{Map, Value};

use super::fieldpath::{key_element, Path, PathElement, Set};
use crate::api::meta::same;
use crate::schema::Schemas;

#[derive(Clone, Copy, Debug, PartialEq)]
enum ListKind<'a> {
    Atomic,
    Set,
    /// Keyed by these fields; an item leaving one out is keyed by its
    /// default, if it has one.
    Map(&'a [Value], Option<&'a Map<String, Value>>),
}

/// What a schema node is.
enum Shape<'a> {
    Leaf,
    /// A struct: its fields, and the fields its zero value holds (see
    /// `Facts::zero`).
    Struct(crate::schema::Props<'a>, Option<&'a Map<String, Value>>),
    Map(Option<&'a Value>),
    List(ListKind<'a>, Option<&'a Value>),
}

fn shape<'a>(s: &'a Schemas, schema: Option<&'a Value>, value: &Value) -> Shape<'a> {
    let Some(raw) = schema else {
        // No schema (an unknown field): a leaf.
        return Shape::Leaf;
    };
    let facts = s.facts(raw);
    match value {
        Value::Array(_) => {
            let items = facts.items;
            let defaults = || items.and_then(|i| s.facts(i).key_defaults);
            let kind = match facts.list_type {
                Some("map") => match facts.list_map_keys {
                    Some(Value::Array(keys)) => ListKind::Map(keys, defaults()),
                    _ => ListKind::Atomic,
                },
                Some("set") => ListKind::Set,
                Some(_) => ListKind::Atomic,
                None => match (facts.patch_strategy, facts.patch_merge_key) {
                    (Some(st), Some(k @ Value::String(_))) if st.split(',').any(|x| x == "merge") => {
                        ListKind::Map(std::slice::from_ref(k), defaults())
                    }
                    (Some(st), None) if st.split(',').any(|x| x == "merge") => ListKind::Set,
                    _ => ListKind::Atomic,
                },
            };
            Shape::List(kind, items)
        }
        Value::Object(_) => {
            if facts.map_type == Some("atomic") {
                return Shape::Leaf;
            }
            match (facts.properties, facts.additional) {
                (Some(p), _) => Shape::Struct(p, facts.zero),
                (_, Some(ap)) => Shape::Map(Some(ap)),
                _ => Shape::Leaf,
            }
        }
        _ => Shape::Leaf,
    }
}

/// The element naming a list item, or None when the item cannot be keyed.
fn item_element(kind: ListKind, item: &Value, index: usize) -> Option<PathElement> {
    match kind {
        ListKind::Atomic => Some(PathElement::Index(index)),
        ListKind::Set => Some(PathElement::Value(crate::api::to_json_string(item))),
        ListKind::Map(keys, defaults) => {
            let obj = item.as_object()?;
            let mut fields = Map::new();
            for k in keys.iter().filter_map(Value::as_str) {
                if let Some(v) = obj.get(k).or_else(|| defaults.and_then(|d| d.get(k))) {
                    fields.insert(k.to_string(), v.clone());
                }
            }
            Some(key_element(&fields))
        }
    }
}

/// The fields of `value` its schema does not declare, as building the
/// typed object reports them (`.spec.x: field not declared in schema`),
/// sorted by path.
pub fn undeclared_fields(s: &Schemas, schema: Option<&Value>, value: &Value) -> Vec<String> {
    fn walk(s: &Schemas, schema: Option<&Value>, value: &Value, path: &mut Path, out: &mut Vec<String>) {
        match (shape(s, schema, value), value) {
            (Shape::Struct(props, _), Value::Object(m)) => {
                for (k, v) in m {
                    path.push(PathElement::Field(k.clone()));
                    match props.get(k) {
                        Some(child) => walk(s, Some(child), v, path, out),
                        None => out.push(format!("{}: field not declared in schema", super::fieldpath::display(path))),
                    }
                    path.pop();
                }
            }
            (Shape::Map(elem), Value::Object(m)) => {
                for (k, v) in m {
                    path.push(PathElement::Field(k.clone()));
                    walk(s, elem, v, path, out);
                    path.pop();
                }
            }
            (Shape::List(kind, items), Value::Array(list)) => {
                for (i, item) in list.iter().enumerate() {
                    let e = if kind == ListKind::Set { None } else { item_element(kind, item, i) };
                    if let Some(e) = e {
                        path.push(e);
                        walk(s, items, item, path, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(s, schema, value, &mut Vec::new(), &mut out);
    out.order();
    out
}

/// The fields `value` sets (upstream's `ToFieldSet`).
pub fn to_set(s: &Schemas, schema: Option<&Value>, value: &Value) -> Set {
    let mut out = Set::default();
    walk_set(s, schema, value, &mut Vec::new(), &mut out);
    out
}

fn walk_set(s: &Schemas, schema: Option<&Value>, value: &Value, path: &mut Path, out: &mut Set) {
    match (shape(s, schema, value), value) {
        (Shape::Struct(props, _), Value::Object(m)) => {
            for (k, v) in m {
                path.push(PathElement::Field(k.clone()));
                let child = props.get(k);
                walk_set(s, child, v, path, out);
                if child.is_none() {
                    out.insert(path.clone());
                }
                path.pop();
            }
        }
        (Shape::Map(elem), Value::Object(m)) => {
            for (k, v) in m {
                path.push(PathElement::Field(k.clone()));
                walk_set(s, elem, v, path, out);
                out.insert(path.clone());
                path.pop();
            }
        }
        (Shape::List(kind, items), Value::Array(list)) if kind != ListKind::Atomic => {
            for (i, item) in list.iter().enumerate() {
                if let Some(e) = item_element(kind, item, i) {
                    path.push(e);
                    if !matches!(kind, ListKind::Set) {
                        walk_set(s, items, item, path, out);
                    }
                    out.insert(path.clone());
                    path.pop();
                }
            }
        }
        _ => {
            if !path.is_empty() {
                out.insert(path.clone());
            }
        }
    }
}

/// What changed between two values, path by path.
#[derive(Debug, Default)]
pub struct Comparison {
    pub added: Set,
    pub modified: Set,
    pub removed: Set,
}

impl Comparison {
    pub fn changed(&self) -> Set {
        self.modified.union(&self.added)
    }

    /// What changed (modified or added) and what was removed, moved out.
    pub fn into_changed_removed(self) -> (Set, Set) {
        let mut changed = self.modified;
        changed.0.extend(self.added.0);
        (changed, self.removed)
    }
}

/// A FieldsV1 key for a field (`f:name`), without `format!` (a new
/// object's managed fields write one per field it sets).
fn field_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len() + 2);
    key.push_str("f:");
    key.push_str(name);
    key
}

/// Compares `old` and `new` (either may be absent).
pub fn compare(s: &Schemas, schema: Option<&Value>, old: Option<&Value>, new: Option<&Value>) -> Comparison {
    let mut c = Comparison::default();
    walk_cmp(s, schema, old, new, &mut Vec::new(), &mut c);
    c
}

fn is_empty_container(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        _ => false,
    }
}

fn leaf(old: Option<&Value>, new: Option<&Value>, path: &Path, c: &mut Comparison) {
    if path.is_empty() {
        return;
    }
    match (old, new) {
        (None, Some(_)) => c.added.insert(path.clone()),
        (Some(_), None) => c.removed.insert(path.clone()),
        (Some(a), Some(b)) if !same(a, b) => c.modified.insert(path.clone()),
        _ => {}
    }
}

/// Upstream compares typed Go values, where a struct that exists holds its
/// zero fields whether or not the JSON wrote them (a non-pointer struct, a
/// field without `omitempty`): within a struct present on one side, a zero
/// field it leaves out counts as its zero value there. So adding a pointer
/// struct (`rollingUpdate`) is a change of its own, and filling a
/// non-pointer one (`strategy`) or a list that is never omitted
/// (`containers`) is not.
fn walk_cmp(
    s: &Schemas,
    schema: Option<&Value>,
    old: Option<&Value>,
    new: Option<&Value>,
    path: &mut Path,
    c: &mut Comparison,
) {
    // Equal subtrees hold no change (a status write leaves the spec be).
    if let (Some(a), Some(b)) = (old, new) {
        if same(a, b) {
            return;
        }
    }
    let probe = new.or(old).unwrap_or(&Value::Null);
    let sh = shape(s, schema, probe);
    let leafish = matches!(sh, Shape::Leaf)
        || matches!(sh, Shape::List(ListKind::Atomic, _))
        || (is_empty_container(old) && is_empty_container(new));
    if leafish {
        leaf(old, new, path, c);
        return;
    }
    match sh {
        Shape::Struct(props, zero) => {
            let (om, nm) = (old.and_then(Value::as_object), new.and_then(Value::as_object));
            let zero_of = |side: Option<&Map<String, Value>>, k: &str| side.and(zero).and_then(|z| z.get(k));
            for (k, o, n) in union_entries(om, nm) {
                let o = o.or_else(|| zero_of(om, k));
                let n = n.or_else(|| zero_of(nm, k));
                path.push(PathElement::Field(k.clone()));
                let child = props.get(k.as_str());
                if child.is_none() {
                    leaf(o, n, path, c);
                } else {
                    walk_cmp(s, child, o, n, path, c);
                }
                path.pop();
            }
        }
        Shape::Map(elem) => {
            let (om, nm) = (old.and_then(Value::as_object), new.and_then(Value::as_object));
            for (k, o, n) in union_entries(om, nm) {
                path.push(PathElement::Field(k.clone()));
                walk_cmp(s, elem, o, n, path, c);
                path.pop();
            }
        }
        Shape::List(kind, items) => {
            fn index<'v>(kind: ListKind, l: Option<&'v Value>) -> Vec<(PathElement, &'v Value)> {
                let mut out: Vec<(PathElement, &Value)> = Vec::new();
                for (i, item) in l.and_then(Value::as_array).into_iter().flatten().enumerate() {
                    if let Some(e) = item_element(kind, item, i) {
                        if !out.iter().any(|(x, _)| *x == e) {
                            out.push((e, item));
                        }
                    }
                }
                out
            }
            let (ol, nl) = (index(kind, old), index(kind, new));
            let mut keys: Vec<&PathElement> = ol.iter().map(|(e, _)| e).collect();
            for (e, _) in &nl {
                if !keys.contains(&e) {
                    keys.push(e);
                }
            }
            for e in keys {
                let o = ol.iter().find(|(x, _)| x == e).map(|(_, v)| *v);
                let n = nl.iter().find(|(x, _)| x == e).map(|(_, v)| *v);
                path.push(e.clone());
                if matches!(kind, ListKind::Set) {
                    leaf(o, n, path, c);
                } else {
                    walk_cmp(s, items, o, n, path, c);
                }
                path.pop();
            }
        }
        Shape::Leaf => {}
    }
    // A container added or removed as a whole is a change of its own
    // (upstream's post-item hook).
    if !path.is_empty() {
        match (old, new) {
            (None, Some(_)) => c.added.insert(path.clone()),
            (Some(_), None) => c.removed.insert(path.clone()),
            _ => {}
        }
    }
}

/// Every key of `a` then every other key of `b`, with its value in each.
/// While the two keep their keys in the same order (a new version of an
/// object usually does), values are paired by position, not looked up.
#[allow(clippy::type_complexity)]
fn union_entries<'a>(
    a: Option<&'a Map<String, Value>>,
    b: Option<&'a Map<String, Value>>,
) -> Vec<(&'a String, Option<&'a Value>, Option<&'a Value>)> {
    let mut out = Vec::with_capacity(a.map_or(0, Map::len).max(b.map_or(0, Map::len)));
    let mut aligned = true;
    let mut in_b = b.into_iter().flatten();
    for (k, v) in a.into_iter().flatten() {
        let other = match in_b.next() {
            Some((kb, vb)) if aligned && kb == k => Some(vb),
            _ => {
                aligned = false;
                b.and_then(|b| b.get(k.as_str()))
            }
        };
        out.push((k, Some(v), other));
    }
    if aligned {
        // b began with a's keys in a's order: the rest are b's alone.
        out.extend(in_b.map(|(k, v)| (k, None, Some(v))));
    } else {
        let only_b = b.into_iter().flatten().filter(|(k, _)| !a.is_some_and(|a| a.contains_key(k.as_str())));
        out.extend(only_b.map(|(k, v)| (k, None, Some(v))));
    }
    out
}

/// The FieldsV1 document of everything a create of `value` changes:
/// what `compare(zero, value)` marks added or modified, where `zero` is
/// the kind's zero value (upstream's field manager starts a create from
/// it), written directly as the nested document, without building a set
/// of paths first. `keep` decides which top-level fields (and metadata
/// fields) are managed.
pub fn added_fields_v1(
    s: &Schemas,
    schema: Option<&Value>,
    value: &Value,
    keep: &dyn Fn(&str, Option<&str>) -> bool,
) -> Value {
    let Value::Object(m) = value else { return Value::Object(Map::new()) };
    let facts = schema.map(|sc| s.facts(sc));
    let props = facts.as_ref().and_then(|f| f.properties);
    let zero = facts.as_ref().and_then(|f| f.zero);
    let mut out = Vec::with_capacity(m.len());
    for (k, v) in m {
        if !keep(k, None) {
            continue;
        }
        let child = props.and_then(|p| p.get(k));
        let was = zero.and_then(|z| z.get(k));
        let node = match (k.as_str(), child, v) {
            // Metadata's fields the server owns are left out before they
            // are walked.
            ("metadata", Some(child), Value::Object(md)) => {
                let meta = s.facts(child);
                // Metadata's own zero fields count only where the zero
                // value has metadata (a built-in kind's does).
                let meta_zero = was.and(meta.zero);
                let mut fields = Vec::new();
                for (f, fv) in md {
                    if keep("metadata", Some(f)) {
                        let c = meta.properties.and_then(|p| p.get(f));
                        if let Some(node) = changed_node(s, c, fv, meta_zero.and_then(|z| z.get(f))) {
                            fields.push((field_key(f), node));
                        }
                    }
                }
                if fields.is_empty() {
                    continue;
                }
                sorted_object(fields)
            }
            // Metadata that is not an object sets none of its fields.
            ("metadata", _, _) => continue,
            _ => match changed_node(s, child, v, was) {
                Some(node) => node,
                None => continue,
            },
        };
        out.push((field_key(k), node));
    }
    sorted_object(out)
}

/// An object of FieldsV1 entries, its keys in order (each key is unique).
fn sorted_object(mut entries: Vec<(String, Value)>) -> Value {
    entries.order_by(|a, b| a.0.cmp(&b.0));
    Value::Object(Map::from_distinct(entries))
}

/// The FieldsV1 node of `value` where it was `was` before (None: absent),
/// or None when nothing changed: `walk_cmp` for one side known to be a
/// zero value. A node absent before is added, and so holds `.` when it has
/// children; a node that existed (a zero field) does not.
fn changed_node(s: &Schemas, schema: Option<&Value>, value: &Value, was: Option<&Value>) -> Option<Value> {
    let leaf = || Value::Object(Map::new());
    if was.is_some_and(|w| same(w, value)) {
        return None;
    }
    if schema.is_none() {
        return Some(leaf());
    }
    let sh = shape(s, schema, value);
    if matches!(sh, Shape::Leaf)
        || matches!(sh, Shape::List(ListKind::Atomic, _))
        || (is_empty_container(was) && is_empty_container(Some(value)))
    {
        return Some(leaf());
    }
    let mut out = Vec::new();
    match (sh, value) {
        (Shape::Struct(props, zero), Value::Object(m)) => {
            out.reserve(m.len() + 1);
            // A struct that existed holds its zero fields.
            let zero = was.and(zero);
            for (k, v) in m {
                if let Some(node) = changed_node(s, props.get(k), v, zero.and_then(|z| z.get(k))) {
                    out.push((field_key(k), node));
                }
            }
        }
        (Shape::Map(elem), Value::Object(m)) => {
            out.reserve(m.len() + 1);
            for (k, v) in m {
                out.extend(changed_node(s, elem, v, None).map(|node| (field_key(k), node)));
            }
        }
        (Shape::List(kind, items), Value::Array(list)) => {
            let mut seen = std::collections::HashSet::new();
            for (i, item) in list.iter().enumerate() {
                let Some(e) = item_element(kind, item, i) else { continue };
                let key = e.encode();
                if !seen.insert(key.clone()) {
                    continue;
                }
                let node =
                    if matches!(kind, ListKind::Set) { Some(leaf()) } else { changed_node(s, items, item, None) };
                out.extend(node.map(|node| (key, node)));
            }
        }
        _ => return Some(leaf()),
    }
    if out.is_empty() {
        return was.is_none().then(leaf);
    }
    if was.is_none() {
        out.push((".".into(), leaf()));
    }
    Some(sorted_object(out))
}

/// Merges an applied configuration into the live object: the
/// configuration's values win; what it leaves out stays.
pub fn merge(s: &Schemas, schema: Option<&Value>, live: &Value, config: &Value) -> Value {
    match (shape(s, schema, config), live, config) {
        (Shape::Struct(props, _), Value::Object(l), Value::Object(cfg)) => {
            let mut out = l.clone();
            for (k, v) in cfg {
                let merged = match l.get(k) {
                    Some(lv) => merge(s, props.get(k), lv, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Shape::Map(elem), Value::Object(l), Value::Object(cfg)) => {
            let mut out = l.clone();
            for (k, v) in cfg {
                let merged = match l.get(k) {
                    Some(lv) => merge(s, elem, lv, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Shape::List(kind, items), Value::Array(l), Value::Array(cfg)) if kind != ListKind::Atomic => {
            let mut out: Vec<Value> = l.clone();
            for (i, item) in cfg.iter().enumerate() {
                let e = item_element(kind, item, i);
                let pos = out.iter().enumerate().position(|(j, x)| item_element(kind, x, j) == e);
                match (pos, kind) {
                    (Some(_), ListKind::Set) => {}
                    (Some(p), _) => out[p] = merge(s, items, &out[p], item),
                    (None, _) => out.push(item.clone()),
                }
            }
            Value::Array(out)
        }
        _ => config.clone(),
    }
}

/// Removes the fields of `set` from `value`.
pub fn remove(s: &Schemas, schema: Option<&Value>, value: &mut Value, set: &Set) {
    walk_remove(s, schema, value, &mut Vec::new(), set);
}

fn walk_remove(s: &Schemas, schema: Option<&Value>, value: &mut Value, path: &mut Path, set: &Set) {
    let sh = shape(s, schema, value);
    match (sh, value) {
        (sh @ (Shape::Struct(..) | Shape::Map(_)), Value::Object(m)) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                let child = match &sh {
                    Shape::Struct(props, _) => props.get(&k),
                    Shape::Map(elem) => *elem,
                    _ => None,
                };
                path.push(PathElement::Field(k.clone()));
                if set.contains(path) {
                    m.shift_remove(&k);
                } else if let Some(v) = m.get_mut(&k) {
                    walk_remove(s, child, v, path, set);
                }
                path.pop();
            }
        }
        (Shape::List(kind, items), Value::Array(list)) if kind != ListKind::Atomic => {
            let mut kept = Vec::with_capacity(list.len());
            for (i, mut item) in std::mem::take(list).into_iter().enumerate() {
                match item_element(kind, &item, i) {
                    Some(e) => {
                        path.push(e);
                        if !set.contains(path) {
                            walk_remove(s, items, &mut item, path, set);
                            kept.push(item);
                        }
                        path.pop();
                    }
                    None => kept.push(item),
                }
            }
            *list = kept;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::fieldpath::display;
    use super::*;
    use crate::schema::schemas;
    use serde_json::json;

    fn deploy_schema() -> Option<&'static Value> {
        schemas().definition("io.k8s.api.apps.v1.Deployment")
    }

    fn shown(set: &Set) -> Vec<String> {
        set.iter().map(display).collect()
    }

    #[test]
    fn a_comparison_does_not_depend_on_key_order() {
        let old = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"replicas": 1, "paused": false}});
        let orders = [
            json!({"metadata": {"labels": {"a": "1", "b": "3", "c": "4"}}, "spec": {"replicas": 2, "paused": false}}),
            json!({"spec": {"paused": false, "replicas": 2}, "metadata": {"labels": {"c": "4", "b": "3", "a": "1"}}}),
            json!({"metadata": {"labels": {"b": "3", "a": "1", "c": "4"}}, "spec": {"replicas": 2, "paused": false}}),
        ];
        for new in orders {
            let c = compare(schemas(), deploy_schema(), Some(&old), Some(&new));
            assert_eq!(shown(&c.modified), [".metadata.labels.b", ".spec.replicas"], "{new}");
            assert_eq!(shown(&c.added), [".metadata.labels.c"], "{new}");
            assert!(c.removed.is_empty());
            let back = compare(schemas(), deploy_schema(), Some(&new), Some(&old));
            assert_eq!(shown(&back.removed), [".metadata.labels.c"], "{new}");
        }
    }

    #[test]
    fn to_set_follows_list_and_map_types() {
        let d = json!({"metadata": {"labels": {"app": "web"}, "finalizers": ["x"]},
                       "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                                "template": {"spec": {"containers": [{"name": "web", "image": "nginx", "args": ["a"]}]}}}});
        assert_eq!(
            shown(&to_set(schemas(), deploy_schema(), &d)),
            vec![
                ".metadata.finalizers[=\"x\"]",
                ".metadata.labels.app",
                ".spec.replicas",
                ".spec.selector",
                ".spec.template.spec.containers[name=\"web\"]",
                ".spec.template.spec.containers[name=\"web\"].args",
                ".spec.template.spec.containers[name=\"web\"].image",
                ".spec.template.spec.containers[name=\"web\"].name",
            ]
        );
    }

    #[test]
    fn compare_marks_what_the_zero_value_lacks_as_added() {
        // As upstream's typed values: a DeploymentSpec always holds
        // `strategy` and `template` (non-pointer structs) and a PodSpec
        // `containers` (no omitempty), so filling them is no addition of
        // their own; `labels`, `rollingUpdate` (a pointer) and list items
        // are added.
        let old = json!({"spec": {"replicas": 1}});
        let new = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"replicas": 2,
            "strategy": {"rollingUpdate": {"maxSurge": 1}},
            "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let c = compare(schemas(), deploy_schema(), Some(&old), Some(&new));
        assert_eq!(shown(&c.modified), vec![".spec.replicas"]);
        assert_eq!(
            shown(&c.added),
            vec![
                ".metadata.labels",
                ".metadata.labels.a",
                ".spec.strategy.rollingUpdate",
                ".spec.strategy.rollingUpdate.maxSurge",
                ".spec.template.spec.containers[name=\"c\"]",
                ".spec.template.spec.containers[name=\"c\"].image",
                ".spec.template.spec.containers[name=\"c\"].name",
            ]
        );
        assert!(c.removed.is_empty());
        // Taking the pointer struct away removes it; emptying the list
        // that is never omitted modifies it.
        let back = compare(schemas(), deploy_schema(), Some(&new), Some(&old));
        assert!(shown(&back.removed).contains(&".spec.strategy.rollingUpdate".to_string()));
        assert!(!shown(&back.removed).iter().any(|p| p == ".spec.template.spec.containers"));
        // A zero field written with its zero value changes nothing.
        let same = compare(schemas(), deploy_schema(), Some(&json!({})), Some(&json!({"spec": {"strategy": {}}})));
        assert!(same.added.is_empty() && same.modified.is_empty(), "{:?}", same);
    }

    #[test]
    fn merge_keeps_what_the_config_leaves_out_and_remove_takes_fields_away() {
        let live = json!({"spec": {"replicas": 1, "template": {"spec": {"containers": [
            {"name": "a", "image": "x", "env": [{"name": "E", "value": "1"}]}, {"name": "b", "image": "y"}]}}}});
        let cfg = json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "a", "image": "z"}]}}}});
        let mut merged = merge(schemas(), deploy_schema(), &live, &cfg);
        assert_eq!(merged["spec"]["replicas"], 3);
        assert_eq!(
            merged["spec"]["template"]["spec"]["containers"][0],
            json!({"name": "a", "image": "z", "env": [{"name": "E", "value": "1"}]})
        );
        assert_eq!(merged["spec"]["template"]["spec"]["containers"][1]["name"], "b");
        let gone = to_set(
            schemas(),
            deploy_schema(),
            &json!({"spec": {"template": {"spec": {"containers": [{"name": "b"}]}}}}),
        );
        remove(schemas(), deploy_schema(), &mut merged, &gone);
        assert_eq!(merged["spec"]["template"]["spec"]["containers"].as_array().unwrap().len(), 1);
    }
}
