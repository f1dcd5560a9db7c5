//! The roles and bindings kube-apiserver's `rbac/bootstrap-roles` step
//! makes at start (with `--authorization-mode=RBAC`): `cluster-admin` for
//! `system:masters`; discovery, basic-user and public-info for every
//! user; and the user-facing `admin`, `edit` and `view`, aggregated from
//! the `system:aggregate-to-*` roles by their labels (by the aggregation
//! controller, which writes their rules, as upstream's). The aggregated
//! roles' rules are the common core of upstream's (the workloads, their
//! pods and services, configuration, RBAC for admin).
//!
//! The objects are data, `bootstrap_rbac.json` (one a line, in the order
//! they are made), parsed when a server starts: as code they were ~25 KB
//! of the module every page and package loads first.

use serde_json::Value;

static OBJECTS: &str = include_str!("bootstrap_rbac.json");

/// The objects, in the order they are made: (resource, object).
pub fn objects() -> Vec<(&'static str, Value)> {
    let Ok(Value::Array(objects)) = serde_json::from_str::<Value>(OBJECTS) else { return Vec::new() };
    objects
        .into_iter()
        .filter_map(|o| match o.get("kind").and_then(Value::as_str) {
            Some("ClusterRole") => Some(("clusterroles", o)),
            Some("ClusterRoleBinding") => Some(("clusterrolebindings", o)),
            _ => None,
        })
        .collect()
}
