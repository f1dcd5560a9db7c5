//! The roles and bindings kube-apiserver's `rbac/bootstrap-roles` step
//! makes at start (with `--authorization-mode=RBAC`): `cluster-admin` for
//! `system:masters`; discovery, basic-user and public-info for every
//! user; and the user-facing `admin`, `edit` and `view`, aggregated from
//! the `system:aggregate-to-*` roles by their labels. The aggregated
//! roles' rules are the common core of upstream's (the workloads, their
//! pods and services, configuration, RBAC for admin).

use serde_json::{json, Value};

fn meta(name: &str, extra_labels: Value) -> Value {
    let mut labels = json!({"kubernetes.io/bootstrapping": "rbac-defaults"});
    if let (Some(l), Some(e)) = (labels.as_object_mut(), extra_labels.as_object()) {
        l.extend(e.clone());
    }
    json!({"name": name, "labels": labels, "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}})
}

fn cluster_role(name: &str, labels: Value, rules: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta(name, labels), "rules": rules})
}

fn aggregated(name: &str, to: &str) -> Value {
    let mut labels = json!({});
    if name != "admin" {
        // edit is part of admin, view of edit.
        labels[format!("rbac.authorization.k8s.io/aggregate-to-{}", if name == "edit" { "admin" } else { "edit" })] =
            json!("true");
    }
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta(name, labels),
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {format!("rbac.authorization.k8s.io/aggregate-to-{to}"): "true"}}]},
        "rules": []})
}

fn binding(name: &str, role: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> =
        groups.iter().map(|g| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g})).collect();
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": meta(name, json!({})),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}, "subjects": subjects})
}

const READ: &[&str] = &["get", "list", "watch"];
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];

fn view_rules() -> Value {
    json!([
        {"apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
            "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status"],
         "verbs": READ},
        {"apiGroups": [""], "resources": ["bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
            "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"], "verbs": READ},
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": READ},
        {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": READ},
        {"apiGroups": ["apps"], "resources": ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
            "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status",
            "statefulsets", "statefulsets/scale", "statefulsets/status"], "verbs": READ},
        {"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], "verbs": READ},
        {"apiGroups": ["batch"], "resources": ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], "verbs": READ},
        {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets", "poddisruptionbudgets/status"], "verbs": READ},
        {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses", "ingresses/status", "networkpolicies"], "verbs": READ},
    ])
}

fn edit_rules() -> Value {
    json!([
        {"apiGroups": [""], "resources": ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
         "verbs": READ},
        {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]},
        {"apiGroups": [""], "resources": ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], "verbs": WRITE},
        {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
        {"apiGroups": [""], "resources": ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
            "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"], "verbs": WRITE},
        {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]},
        {"apiGroups": ["apps"], "resources": ["daemonsets", "deployments", "deployments/rollback", "deployments/scale",
            "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"], "verbs": WRITE},
        {"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": WRITE},
        {"apiGroups": ["batch"], "resources": ["cronjobs", "jobs"], "verbs": WRITE},
        {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses", "networkpolicies"], "verbs": WRITE},
        {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": WRITE},
        {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": WRITE},
    ])
}

fn admin_rules() -> Value {
    json!([
        {"apiGroups": ["authorization.k8s.io"], "resources": ["localsubjectaccessreviews"], "verbs": ["create"]},
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings", "roles"],
         "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]},
    ])
}

/// The objects, in the order they are made: (resource, object).
pub fn objects() -> Vec<(&'static str, Value)> {
    let url_rule = |urls: &[&str]| json!([{"nonResourceURLs": urls, "verbs": ["get"]}]);
    let mut out = vec![
        (
            "clusterroles",
            cluster_role(
                "cluster-admin",
                json!({}),
                json!([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}, {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:discovery",
                json!({}),
                url_rule(&[
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                    "/healthz",
                    "/livez",
                    "/openapi",
                    "/openapi/*",
                    "/readyz",
                    "/version",
                    "/version/",
                ]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:basic-user",
                json!({}),
                json!([
                    {"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], "verbs": ["create"]},
                    {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]},
                ]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:public-info-viewer",
                json!({}),
                url_rule(&["/healthz", "/livez", "/readyz", "/version", "/version/"]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:monitoring",
                json!({}),
                url_rule(&[
                    "/metrics",
                    "/metrics/slis",
                    "/livez",
                    "/readyz",
                    "/healthz",
                    "/livez/*",
                    "/readyz/*",
                    "/healthz/*",
                ]),
            ),
        ),
        ("clusterroles", aggregated("admin", "admin")),
        ("clusterroles", aggregated("edit", "edit")),
        ("clusterroles", aggregated("view", "view")),
    ];
    for (name, labels, rules) in [
        ("system:aggregate-to-admin", json!({"rbac.authorization.k8s.io/aggregate-to-admin": "true"}), admin_rules()),
        ("system:aggregate-to-edit", json!({"rbac.authorization.k8s.io/aggregate-to-edit": "true"}), edit_rules()),
        ("system:aggregate-to-view", json!({"rbac.authorization.k8s.io/aggregate-to-view": "true"}), view_rules()),
    ] {
        out.push(("clusterroles", cluster_role(name, labels, rules)));
    }
    out.push(("clusterrolebindings", binding("cluster-admin", "cluster-admin", &["system:masters"])));
    out.push(("clusterrolebindings", binding("system:discovery", "system:discovery", &["system:authenticated"])));
    out.push(("clusterrolebindings", binding("system:basic-user", "system:basic-user", &["system:authenticated"])));
    out.push((
        "clusterrolebindings",
        binding(
            "system:public-info-viewer",
            "system:public-info-viewer",
            &["system:authenticated", "system:unauthenticated"],
        ),
    ));
    out.push(("clusterrolebindings", binding("system:monitoring", "system:monitoring", &["system:monitoring"])));
    out
}
