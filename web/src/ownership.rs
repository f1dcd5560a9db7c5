//! Field ownership as a tree: every field some manager owns (from
//! `metadata.managedFields`), with the managers that own it, so shared
//! fields and a conflict's fields read at a glance.

use kubesim::apply::fieldpath::{display, Path, Set};
use serde_json::Value;
use std::collections::BTreeMap;

/// One managedFields entry: who, by which operation, when.
#[derive(Clone, Debug, PartialEq)]
pub struct Manager {
    pub name: String,
    /// `Apply` or `Update` (with the subresource, if any: `Update (status)`).
    pub operation: String,
    pub apply: bool,
    pub time: String,
}

/// One line of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub depth: usize,
    /// The last step of the path (`data`, `[name="web"]`, `[0]`).
    pub label: String,
    /// The whole path as conflicts print it (`.data.colour`).
    pub path: String,
    /// Indexes into the managers of those owning this field.
    pub owners: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct FieldTree {
    pub managers: Vec<Manager>,
    pub rows: Vec<Row>,
}

/// The object's managed fields as a tree, fields in the order
/// structured-merge-diff sorts paths, parents before their children.
pub fn field_tree(obj: &Value) -> FieldTree {
    let mut managers = Vec::new();
    let mut owned: BTreeMap<Path, Vec<usize>> = BTreeMap::new();
    for (i, e) in obj.pointer("/metadata/managedFields").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let operation = if s("subresource").is_empty() {
            s("operation")
        } else {
            format!("{} ({})", s("operation"), s("subresource"))
        };
        managers.push(Manager { name: s("manager"), apply: s("operation") == "Apply", operation, time: s("time") });
        for path in Set::from_fields_v1(e.get("fieldsV1").unwrap_or(&Value::Null)).iter() {
            // Every parent is a row of its own, owned or not.
            for n in 1..path.len() {
                owned.entry(path[..n].to_vec()).or_default();
            }
            owned.entry(path.clone()).or_default().push(i);
        }
    }
    let rows = owned
        .into_iter()
        .filter(|(path, _)| !path.is_empty())
        .map(|(path, owners)| {
            let label = path.last().map(|e| e.to_string()).unwrap_or_default();
            let label = label.strip_prefix('.').map(str::to_string).unwrap_or(label);
            Row { depth: path.len() - 1, label, path: display(&path), owners }
        })
        .collect();
    FieldTree { managers, rows }
}

/// The fields a 409 from server-side apply names (its causes), to mark in
/// the tree.
pub fn conflict_fields(status: &Value) -> Vec<String> {
    if status["code"] != 409 {
        return Vec::new();
    }
    status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["reason"] == "FieldManagerConflict")
        .filter_map(|c| c["field"].as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{serve_json, Session, Source};
    use kubesim::server::Request;

    fn apply(s: &mut Session, manager: &str, data: &str, force: bool) -> Value {
        let body = format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"shared\"}},\"data\":{data}}}"
        );
        let force = if force { "&force=true" } else { "" };
        let req = Request::new(
            "PATCH",
            &format!("/api/v1/namespaces/default/configmaps/shared?fieldManager={manager}{force}"),
        )
        .with_header("Content-Type", "application/apply-patch+yaml")
        .with_body(body.into_bytes());
        crate::session::body_json(&s.request(Source::Console, req).response)
    }

    /// Two appliers share one field and own one each; an update by kubectl
    /// owns the label it set (and the labels map it made); a conflict names
    /// the field the tree marks.
    #[test]
    fn shared_fields_show_every_owner_and_a_conflict_names_its_field() {
        let mut s = Session::new(1);
        apply(&mut s, "alice", r#"{"colour":"blue","size":"small"}"#, false);
        apply(&mut s, "bob", r#"{"size":"small","shape":"round"}"#, false);
        crate::kubectl::run(&mut s, "label configmap shared tier=web", "");
        let conflict = apply(&mut s, "bob", r#"{"colour":"red"}"#, false);
        assert_eq!(conflict_fields(&conflict), [".data.colour"]);
        let obj = crate::session::body_json(
            &serve_json(&mut s, Source::Inspector, "GET", "/api/v1/namespaces/default/configmaps/shared", None)
                .response,
        );
        let tree = field_tree(&obj);
        let names: Vec<(&str, &str, bool)> =
            tree.managers.iter().map(|m| (m.name.as_str(), m.operation.as_str(), m.apply)).collect();
        assert_eq!(names, [("alice", "Apply", true), ("bob", "Apply", true), ("kubectl-label", "Update", false)]);
        let rows: Vec<(usize, &str, &str, Vec<usize>)> =
            tree.rows.iter().map(|r| (r.depth, r.label.as_str(), r.path.as_str(), r.owners.clone())).collect();
        assert_eq!(
            rows,
            [
                (0, "data", ".data", vec![]),
                (1, "colour", ".data.colour", vec![0]),
                (1, "shape", ".data.shape", vec![1]),
                (1, "size", ".data.size", vec![0, 1]),
                (0, "metadata", ".metadata", vec![]),
                (1, "labels", ".metadata.labels", vec![2]),
                (2, "tier", ".metadata.labels.tier", vec![2]),
            ]
        );
        assert!(conflict_fields(&serde_json::json!({"code": 200})).is_empty());
    }
}
