//! RoleBindings and ClusterRoleBindings: a role reference of a kind the
//! binding may name, named subjects, and kubectl's columns (the same cells;
//! the column descriptions name the kind).

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
use super::super::validation::str_at;
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct RoleBinding;
pub struct ClusterRoleBinding;

static ROLE_BINDING_COLUMNS: &[Column] = &[
    NAME,
    col("Role", "string", Desc::Field("io.k8s.api.rbac.v1.RoleBinding", "roleRef")),
    AGE,
    wide("Users", "string", text("Users in the roleBinding")),
    wide("Groups", "string", text("Groups in the roleBinding")),
    wide("ServiceAccounts", "string", text("ServiceAccounts in the roleBinding")),
];

static CLUSTER_ROLE_BINDING_COLUMNS: &[Column] = &[
    NAME,
    col("Role", "string", Desc::Field("io.k8s.api.rbac.v1.ClusterRoleBinding", "roleRef")),
    AGE,
    wide("Users", "string", text("Users in the clusterRoleBinding")),
    wide("Groups", "string", text("Groups in the clusterRoleBinding")),
    wide("ServiceAccounts", "string", text("ServiceAccounts in the clusterRoleBinding")),
];

impl Strategy for RoleBinding {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validate_binding(obj, &["Role", "ClusterRole"])
    }

    fn columns(&self) -> &[Column] {
        ROLE_BINDING_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        binding_cells(o, now)
    }
}

impl Strategy for ClusterRoleBinding {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validate_binding(obj, &["ClusterRole"])
    }

    fn columns(&self) -> &[Column] {
        CLUSTER_ROLE_BINDING_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        binding_cells(o, now)
    }
}

/// `roleRef` names a role of one of `kinds`; every subject has a name.
fn validate_binding(obj: &Value, kinds: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
    if str_at(role_ref, "name").is_none_or(str::is_empty) {
        errs.push(FieldError::required("roleRef.name", ""));
    }
    match str_at(role_ref, "kind") {
        Some(k) if kinds.contains(&k) => {}
        Some(k) => errs.push(FieldError::not_supported("roleRef.kind", k, kinds)),
        None => errs.push(FieldError::not_supported("roleRef.kind", "", kinds)),
    }
    for (i, sub) in obj.get("subjects").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if str_at(sub, "name").is_none_or(str::is_empty) {
            errs.push(FieldError::required(&format!("subjects[{i}].name"), ""));
        }
    }
    errs
}

fn binding_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let subjects = |kind: &str| -> Value {
        let list: Vec<String> = arr(o, "/subjects")
            .iter()
            .filter(|sub| s(sub, "/kind") == kind)
            .map(|sub| match (kind, s(sub, "/namespace")) {
                ("ServiceAccount", ns) => format!("{ns}/{}", s(sub, "/name")),
                _ => s(sub, "/name").to_string(),
            })
            .collect();
        list.join(", ").into()
    };
    vec![
        name(o),
        format!("{}/{}", s(o, "/roleRef/kind"), s(o, "/roleRef/name")).into(),
        age(o, now),
        subjects("User"),
        subjects("Group"),
        subjects("ServiceAccount"),
    ]
}
