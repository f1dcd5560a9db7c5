//! Field paths and sets of them, as server-side apply tracks ownership, and
//! their `FieldsV1` encoding (`f:name`, `k:{...}`, `v:...`, `i:N`, with
//! `.` marking a node that is itself a member).

use crate::sort::Order;
use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A struct field or a map key.
    Field(String),
    /// An item of an associative list, by its key fields (sorted by name;
    /// values as canonical JSON).
    Key(Vec<(String, String)>),
    /// An item of a set, by its value (canonical JSON).
    Value(String),
    /// An item of a list without keys.
    Index(usize),
}

pub type Path = Vec<PathElement>;

impl PathElement {
    /// The key in `FieldsV1`.
    pub fn encode(&self) -> String {
        match self {
            PathElement::Field(f) => {
                let mut key = String::with_capacity(f.len() + 2);
                key.push_str("f:");
                key.push_str(f);
                key
            }
            PathElement::Key(kv) => {
                let body: Vec<String> =
                    kv.iter().map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap_or_default())).collect();
                format!("k:{{{}}}", body.join(","))
            }
            PathElement::Value(v) => format!("v:{v}"),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    pub fn decode(s: &str) -> Option<PathElement> {
        let (tag, rest) = s.split_at_checked(2)?;
        match tag {
            "f:" => Some(PathElement::Field(rest.to_string())),
            "v:" => {
                let v: Value = serde_json::from_str(rest).ok()?;
                Some(PathElement::Value(crate::api::to_json_string(&v)))
            }
            "i:" => rest.parse().ok().map(PathElement::Index),
            "k:" => {
                let Value::Object(m) = serde_json::from_str::<Value>(rest).ok()? else { return None };
                Some(key_element(&m))
            }
            _ => None,
        }
    }
}

/// The element of an associative-list item, from its key fields.
pub fn key_element(fields: &Map<String, Value>) -> PathElement {
    let mut kv: Vec<(String, String)> =
        fields.iter().map(|(k, v)| (k.clone(), crate::api::to_json_string(v))).collect();
    kv.order();
    PathElement::Key(kv)
}

impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(n) => write!(f, ".{n}"),
            PathElement::Key(kv) => {
                let parts: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={v}]"),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path as upstream prints it in conflicts: `.spec.containers[name="web"].image`.
pub fn display(path: &Path) -> String {
    path.iter().map(|e| e.to_string()).collect()
}

/// A set of field paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set(pub BTreeSet<Path>);

impl Set {
    pub fn insert(&mut self, p: Path) {
        self.0.insert(p);
    }
    pub fn contains(&self, p: &Path) -> bool {
        self.0.contains(p)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn union(&self, o: &Set) -> Set {
        Set(self.0.union(&o.0).cloned().collect())
    }
    pub fn difference(&self, o: &Set) -> Set {
        Set(self.0.difference(&o.0).cloned().collect())
    }
    pub fn intersection(&self, o: &Set) -> Set {
        Set(self.0.intersection(&o.0).cloned().collect())
    }
    pub fn iter(&self) -> impl Iterator<Item = &Path> {
        self.0.iter()
    }

    /// The `FieldsV1` document of the set.
    pub fn to_fields_v1(&self) -> Value {
        // The set is sorted, so the paths under one node are consecutive:
        // each node's key is encoded once, not once per path through it.
        fn render(paths: &[&[PathElement]], depth: usize) -> Value {
            let mut member = false;
            let mut children: Vec<(String, Value)> = Vec::new();
            let mut i = 0;
            while i < paths.len() {
                let Some(e) = paths[i].get(depth) else {
                    member = true;
                    i += 1;
                    continue;
                };
                let end = i + paths[i..].iter().take_while(|p| p.get(depth) == Some(e)).count();
                children.push((e.encode(), render(&paths[i..end], depth + 1)));
                i = end;
            }
            children.order_by(|a, b| a.0.cmp(&b.0));
            let mut m = Map::new();
            if member && !children.is_empty() {
                m.insert(".".into(), Value::Object(Map::new()));
            }
            m.extend(children);
            Value::Object(m)
        }
        let paths: Vec<&[PathElement]> = self.0.iter().map(Vec::as_slice).collect();
        render(&paths, 0)
    }

    /// Reads a `FieldsV1` document (unknown keys are skipped).
    /// Whether a `FieldsV1` document holds `path`, read in place (no set
    /// is built): the node at the path exists and is a leaf or marked `.`.
    pub fn fields_v1_contains(v: &Value, path: &Path) -> bool {
        let mut node = v;
        for e in path {
            let Value::Object(m) = node else { return false };
            // Keys of our own writing match at once; others are decoded.
            let child = m
                .get(&e.encode())
                .or_else(|| m.iter().find(|(k, _)| PathElement::decode(k).as_ref() == Some(e)).map(|(_, c)| c));
            match child {
                Some(c) => node = c,
                None => return false,
            }
        }
        match node {
            Value::Object(m) => !path.is_empty() && (m.is_empty() || m.contains_key(".")),
            _ => false,
        }
    }

    /// Adds `path` to a `FieldsV1` document in place (its keys left in
    /// insertion order until `sort_fields_v1`); whether the document's set
    /// grew. Gives what decoding it, adding the path and rendering it
    /// again gives, for a document in the canonical encoding this module
    /// writes.
    pub fn fields_v1_add(doc: &mut Value, path: &Path) -> bool {
        let Value::Object(root) = doc else { return false };
        let mut node = root;
        if path.is_empty() {
            return false;
        }
        let mut created = false;
        for (depth, e) in path.iter().enumerate() {
            // A member leaf (`{}`) that gains a child stays a member.
            if depth > 0 && node.is_empty() && !created {
                node.insert(".".into(), Value::Object(Map::new()));
            }
            let child = node.entry(e.encode()).or_insert_with(|| {
                created = true;
                Value::Object(Map::new())
            });
            let Value::Object(m) = child else { return false };
            node = m;
        }
        if created || node.is_empty() || node.contains_key(".") {
            return created;
        }
        node.insert(".".into(), Value::Object(Map::new()));
        true
    }

    /// Removes `path` from a `FieldsV1` document in place (nodes left
    /// with nothing under them and not members themselves go too);
    /// whether the document's set shrank.
    pub fn fields_v1_remove(doc: &mut Value, path: &Path) -> bool {
        fn remove(node: &mut Map<String, Value>, path: &[PathElement]) -> bool {
            let Some((first, rest)) = path.split_first() else { return false };
            let key = first.encode();
            let Some(Value::Object(child)) = node.get_mut(&key) else { return false };
            let removed = if rest.is_empty() {
                if child.is_empty() {
                    node.shift_remove(&key);
                    return true;
                }
                child.shift_remove(".").is_some()
            } else {
                remove(child, rest)
            };
            if removed {
                if child.is_empty() && !rest.is_empty() {
                    // Not a member, and nothing under it any more.
                    node.shift_remove(&key);
                } else if child.len() == 1 && child.contains_key(".") {
                    // A member with nothing under it: a leaf.
                    child.clear();
                }
            }
            removed
        }
        match doc {
            Value::Object(m) => remove(m, path),
            _ => false,
        }
    }

    /// Puts every node's keys of a `FieldsV1` document in the order
    /// `to_fields_v1` writes them (sorted; `.` sorts first).
    pub fn sort_fields_v1(doc: &mut Value) {
        if let Value::Object(m) = doc {
            m.sort_keys();
            m.values_mut().for_each(Set::sort_fields_v1);
        }
    }

    /// Whether a `FieldsV1` document holds no path at all (what
    /// `from_fields_v1` would find, stopping at the first).
    pub fn fields_v1_is_empty(v: &Value) -> bool {
        fn has_paths(v: &Value, root: bool) -> bool {
            let Value::Object(m) = v else { return false };
            if !root && (m.is_empty() || m.contains_key(".")) {
                return true;
            }
            m.iter().any(|(k, c)| k != "." && PathElement::decode(k).is_some() && has_paths(c, false))
        }
        !has_paths(v, true)
    }

    pub fn from_fields_v1(v: &Value) -> Set {
        fn walk(v: &Value, prefix: &mut Path, out: &mut Set) {
            let Value::Object(m) = v else { return };
            if m.is_empty() && !prefix.is_empty() {
                out.insert(prefix.clone());
            }
            for (k, child) in m {
                if k == "." {
                    if !prefix.is_empty() {
                        out.insert(prefix.clone());
                    }
                    continue;
                }
                if let Some(e) = PathElement::decode(k) {
                    prefix.push(e);
                    walk(child, prefix, out);
                    prefix.pop();
                }
            }
        }
        let mut out = Set::default();
        walk(v, &mut Vec::new(), &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fields_v1_document_is_edited_in_place_as_its_set_would_be() {
        let f = |s: &str| PathElement::Field(s.into());
        let key = |k: &str, v: &str| PathElement::Key(vec![(k.into(), format!("{v:?}"))]);
        let paths: Vec<Path> = vec![
            vec![f("metadata"), f("labels")],
            vec![f("metadata"), f("labels"), f("app")],
            vec![f("metadata"), f("labels"), f("tier")],
            vec![f("spec"), f("nodeName")],
            vec![f("status"), f("conditions"), key("type", "Ready")],
            vec![f("status"), f("conditions"), key("type", "Ready"), f("status")],
            vec![f("status"), f("conditions"), key("type", "Ready"), f("lastTransitionTime")],
            vec![f("status"), f("conditions"), key("type", "PodScheduled"), f("status")],
            vec![f("status"), f("podIP")],
            vec![f("status"), f("podIPs"), PathElement::Value("{\"ip\":\"10.0.0.1\"}".into())],
            vec![f("status"), f("podIPs"), PathElement::Index(0)],
        ];
        // Every start (a subset of the paths) with every later addition
        // and removal of one or two of them.
        let subset = |bits: u32| {
            Set(paths.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).map(|(_, p)| p.clone()).collect())
        };
        let n = paths.len() as u32;
        let mut checked = 0;
        for start in (0..1u32 << n).step_by(13) {
            for (i, j) in [(0, 1), (2, 4), (5, 6), (3, 9), (7, 10), (1, 5)] {
                let before = subset(start);
                let change = Set([paths[i].clone(), paths[j].clone()].into_iter().collect());
                for adding in [true, false] {
                    let want = if adding { before.union(&change) } else { before.difference(&change) };
                    let mut doc = before.to_fields_v1();
                    let mut changed = false;
                    for p in change.iter() {
                        changed |=
                            if adding { Set::fields_v1_add(&mut doc, p) } else { Set::fields_v1_remove(&mut doc, p) };
                    }
                    Set::sort_fields_v1(&mut doc);
                    assert_eq!(doc, want.to_fields_v1(), "start {start:b} {} {i} {j}", if adding { "+" } else { "-" });
                    assert_eq!(Set::from_fields_v1(&doc), want);
                    assert_eq!(changed, want != before);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn a_fields_v1_document_is_read_in_place() {
        let doc = json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}}}});
        let f = |s: &str| PathElement::Field(s.into());
        let key = PathElement::decode("k:{\"name\":\"c\"}").unwrap();
        for (path, held) in [
            (vec![f("metadata"), f("labels")], true),
            (vec![f("metadata"), f("labels"), f("app")], true),
            (vec![f("metadata")], false),
            (vec![f("spec"), f("containers"), key.clone()], true),
            (vec![f("spec"), f("containers"), key, f("image")], true),
            (vec![f("spec"), f("replicas")], false),
        ] {
            assert_eq!(Set::fields_v1_contains(&doc, &path), held, "{path:?}");
            assert_eq!(Set::from_fields_v1(&doc).contains(&path), held, "{path:?}");
        }
        assert!(!Set::fields_v1_is_empty(&doc));
        assert!(Set::fields_v1_is_empty(&json!({})));
        assert!(Set::fields_v1_is_empty(&json!({"x:junk": {}})));
    }

    fn f(n: &str) -> PathElement {
        PathElement::Field(n.into())
    }

    #[test]
    fn fields_v1_round_trips_with_dot_markers() {
        let mut s = Set::default();
        let item = key_element(json!({"name": "web"}).as_object().unwrap());
        s.insert(vec![f("metadata"), f("labels")]);
        s.insert(vec![f("metadata"), f("labels"), f("app")]);
        s.insert(vec![f("spec"), f("containers"), item.clone()]);
        s.insert(vec![f("spec"), f("containers"), item.clone(), f("image")]);
        s.insert(vec![f("metadata"), f("finalizers"), PathElement::Value("\"x\"".into())]);
        let v = s.to_fields_v1();
        assert_eq!(
            v,
            json!({"f:metadata": {"f:finalizers": {"v:\"x\"": {}}, "f:labels": {".": {}, "f:app": {}}},
                   "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}}}}})
        );
        assert_eq!(Set::from_fields_v1(&v), s);
    }

    #[test]
    fn paths_print_as_upstream_prints_them() {
        let port = key_element(json!({"protocol": "TCP", "containerPort": 80}).as_object().unwrap());
        assert_eq!(port.encode(), r#"k:{"containerPort":80,"protocol":"TCP"}"#);
        let p = vec![f("spec"), f("ports"), port, f("name")];
        assert_eq!(display(&p), r#".spec.ports[containerPort=80,protocol="TCP"].name"#);
        assert_eq!(
            display(&vec![f("metadata"), f("finalizers"), PathElement::Value("\"a\"".into())]),
            r#".metadata.finalizers[="a"]"#
        );
    }
}
