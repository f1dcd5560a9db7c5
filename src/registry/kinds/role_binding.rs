//! RoleBindings and ClusterRoleBindings: defaulted, validated and kept
//! from changing their role as upstream's RBAC strategy does (the role
//! reference's group and kind, a path-segment role name, each subject's
//! kind, group and name, a cluster binding's service accounts with their
//! namespace; `roleRef` fixed once made), and kubectl's columns (the same
//! cells; the column descriptions name the kind).

use serde_json::{Map, Value};

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
use super::super::validation::str_at;
use crate::api::meta::{validate_name, NameRule};
use crate::api::FieldError;
use crate::clock::SimTime;

const RBAC: &str = "rbac.authorization.k8s.io";

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
    fn defaults(&self, obj: &mut Map<String, Value>) {
        binding_defaults(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validate_binding(obj, &["Role", "ClusterRole"])
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        role_ref_kept(new, old)
    }

    fn columns(&self) -> &[Column] {
        ROLE_BINDING_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        binding_cells(o, now)
    }
}

impl Strategy for ClusterRoleBinding {
    fn defaults(&self, obj: &mut Map<String, Value>) {
        binding_defaults(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validate_binding(obj, &["ClusterRole"])
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        role_ref_kept(new, old)
    }

    fn columns(&self) -> &[Column] {
        CLUSTER_ROLE_BINDING_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        binding_cells(o, now)
    }
}

/// As upstream's v1 defaults: an empty group is RBAC's for the role
/// reference and for User and Group subjects.
fn binding_defaults(obj: &mut Map<String, Value>) {
    let unset = |m: &Map<String, Value>| m.get("apiGroup").and_then(Value::as_str).is_none_or(str::is_empty);
    if let Some(Value::Object(r)) = obj.get_mut("roleRef") {
        if unset(r) {
            r.insert("apiGroup".into(), RBAC.into());
        }
    }
    for sub in obj.get_mut("subjects").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Value::Object(m) = sub {
            if unset(m) && matches!(m.get("kind").and_then(Value::as_str), Some("User" | "Group")) {
                m.insert("apiGroup".into(), RBAC.into());
            }
        }
    }
}

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    str_at(v, key).unwrap_or("")
}

/// The role reference of a binding and each subject, checked as upstream
/// checks them. A well-formed binding (every one made at start is) is
/// told apart here; the problems are worked out only for one that is not,
/// so that work stays out of the part of the module loaded first.
fn validate_binding(obj: &Value, kinds: &[&str]) -> Vec<FieldError> {
    let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
    let name = field(role_ref, "name");
    let mut ok = field(role_ref, "apiGroup") == RBAC
        && kinds.contains(&field(role_ref, "kind"))
        && !name.is_empty()
        && validate_name(NameRule::PathSegment, name).is_empty();
    let cluster = kinds.len() == 1;
    for sub in obj.get("subjects").and_then(Value::as_array).into_iter().flatten() {
        let (name, group) = (field(sub, "name"), field(sub, "apiGroup"));
        ok &= !name.is_empty()
            && match field(sub, "kind") {
                "ServiceAccount" => {
                    group.is_empty()
                        && (!cluster || !field(sub, "namespace").is_empty())
                        && validate_name(NameRule::Dns1123Subdomain, name).is_empty()
                }
                "User" | "Group" => group == RBAC,
                _ => false,
            };
    }
    if ok {
        return Vec::new();
    }
    binding_errors(obj, kinds)
}

/// Every problem of a binding, in upstream's order.
#[inline(never)]
fn binding_errors(obj: &Value, kinds: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
    if field(role_ref, "apiGroup") != RBAC {
        errs.push(FieldError::not_supported("roleRef.apiGroup", field(role_ref, "apiGroup"), &[RBAC]));
    }
    let kind = field(role_ref, "kind");
    if !kinds.contains(&kind) {
        errs.push(FieldError::not_supported("roleRef.kind", kind, kinds));
    }
    let name = field(role_ref, "name");
    if name.is_empty() {
        errs.push(FieldError::required("roleRef.name", ""));
    }
    for msg in validate_name(NameRule::PathSegment, name) {
        errs.push(FieldError::invalid("roleRef.name", name, &msg));
    }
    let cluster = kinds.len() == 1;
    for (i, sub) in obj.get("subjects").and_then(Value::as_array).into_iter().flatten().enumerate() {
        subject_problems(sub, cluster, i, &mut errs);
    }
    errs
}

fn subject_problems(sub: &Value, cluster: bool, i: usize, errs: &mut Vec<FieldError>) {
    let at = |f: &str| format!("subjects[{i}].{f}");
    let (name, group) = (field(sub, "name"), field(sub, "apiGroup"));
    if name.is_empty() {
        errs.push(FieldError::required(&at("name"), ""));
    }
    match field(sub, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for msg in validate_name(NameRule::Dns1123Subdomain, name) {
                    errs.push(FieldError::invalid(&at("name"), name, &msg));
                }
            }
            if !group.is_empty() {
                errs.push(FieldError::not_supported(&at("apiGroup"), group, &[""]));
            }
            if cluster && field(sub, "namespace").is_empty() {
                errs.push(FieldError::required(&at("namespace"), ""));
            }
        }
        k @ ("User" | "Group") => {
            if name.is_empty() {
                let what = if k == "User" { "user name cannot be empty" } else { "group name cannot be empty" };
                errs.push(FieldError::invalid(&at("name"), "", what));
            }
            if group != RBAC {
                errs.push(FieldError::not_supported(&at("apiGroup"), group, &[RBAC]));
            }
        }
        k => errs.push(FieldError::not_supported(&at("kind"), k, &["ServiceAccount", "User", "Group"])),
    }
}

/// A binding's `roleRef` cannot change (upstream prints the new one as
/// Go prints its internal struct).
fn role_ref_kept(new: &Value, old: &Value) -> Vec<FieldError> {
    // (An empty group reads as RBAC's, as upstream defaults it when it
    // reads what it stored: a binding kept from before defaulting counts
    // as unchanged.)
    let part = |o: &Value, k: &str| match o.get("roleRef").map_or("", |r| field(r, k)) {
        "" if k == "apiGroup" => RBAC.to_string(),
        v => v.to_string(),
    };
    let fields = ["apiGroup", "kind", "name"];
    if fields.iter().all(|k| part(new, k) == part(old, k)) {
        return Vec::new();
    }
    let shown = format!(
        "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
        crate::schema::decode::go_quote(&part(new, "apiGroup")),
        crate::schema::decode::go_quote(&part(new, "kind")),
        crate::schema::decode::go_quote(&part(new, "name"))
    );
    vec![FieldError::invalid_raw("roleRef", &shown, "cannot change roleRef")]
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_role_reference_stored_before_defaulting_reads_as_defaulted() {
        let old = json!({"roleRef": {"apiGroup": "", "kind": "Role", "name": "r"}});
        let same = json!({"roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "r"}});
        assert!(role_ref_kept(&same, &old).is_empty());
        let other = json!({"roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "s"}});
        assert_eq!(role_ref_kept(&other, &old).len(), 1);
    }
}
