//! The built-in resource table. A new kind is one entry here (plus, when it
//! has special behaviour, a hook in `rules.rs`).

use crate::api::meta::NameRule;

#[derive(Debug)]
pub struct ResourceType {
    pub group: &'static str,
    pub version: &'static str,
    /// The plural resource name used in URLs.
    pub resource: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub status_subresource: bool,
    pub name_rule: NameRule,
    /// DELETE answers with the deleted object instead of a Success Status.
    pub return_deleted_object: bool,
    /// PUT of a missing object creates it.
    pub allow_create_on_update: bool,
    /// `metadata.generation` is kept and bumped on spec changes.
    pub tracks_generation: bool,
    /// Extra field-selector fields beyond metadata.name/namespace, with the
    /// value an absent field reads as (Go's zero value).
    pub field_selectors: &'static [(&'static str, &'static str)],
    /// The verbs served (most kinds: all of `STANDARD_VERBS`).
    pub verbs: &'static [&'static str],
    /// Serves `/scale` (autoscaling/v1 Scale over `spec.replicas`).
    pub scale_subresource: bool,
}

impl ResourceType {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// The storage prefix of this resource (ends in `/`).
    pub fn prefix(&self) -> String {
        format!("/{}/{}/", if self.group.is_empty() { "core" } else { self.group }, self.resource)
    }

    pub fn serves(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    pub fn supports_field(&self, field: &str) -> bool {
        field == "metadata.name"
            || (field == "metadata.namespace" && self.namespaced)
            || self.field_selectors.iter().any(|(f, _)| *f == field)
    }
}

const fn rt(
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> ResourceType {
    ResourceType {
        group,
        version,
        resource,
        singular,
        kind,
        namespaced,
        short_names: &[],
        categories: &[],
        status_subresource: false,
        name_rule: NameRule::Dns1123Subdomain,
        return_deleted_object: false,
        allow_create_on_update: false,
        tracks_generation: false,
        field_selectors: &[],
        verbs: super::STANDARD_VERBS,
        scale_subresource: false,
    }
}

const ALL: &[&str] = &["all"];

pub static BUILTIN: &[ResourceType] = &[
    // core/v1
    ResourceType {
        name_rule: NameRule::Dns1123Label,
        short_names: &["ns"],
        status_subresource: true,
        return_deleted_object: true,
        field_selectors: &[("status.phase", "")],
        verbs: &["create", "delete", "get", "list", "patch", "update", "watch"],
        ..rt("", "v1", "namespaces", "namespace", "Namespace", false)
    },
    ResourceType {
        short_names: &["po"],
        categories: ALL,
        status_subresource: true,
        return_deleted_object: true,
        field_selectors: &[
            ("spec.nodeName", ""),
            ("spec.restartPolicy", ""),
            ("spec.schedulerName", ""),
            ("spec.serviceAccountName", ""),
            ("spec.hostNetwork", "false"),
            ("status.phase", ""),
            ("status.podIP", ""),
            ("status.nominatedNodeName", ""),
        ],
        ..rt("", "v1", "pods", "pod", "Pod", true)
    },
    ResourceType {
        short_names: &["svc"],
        categories: ALL,
        status_subresource: true,
        return_deleted_object: true,
        name_rule: NameRule::Dns1035Label,
        field_selectors: &[("spec.clusterIP", ""), ("spec.type", "")],
        ..rt("", "v1", "services", "service", "Service", true)
    },
    ResourceType { short_names: &["cm"], ..rt("", "v1", "configmaps", "configmap", "ConfigMap", true) },
    ResourceType { field_selectors: &[("type", "")], ..rt("", "v1", "secrets", "secret", "Secret", true) },
    ResourceType {
        short_names: &["sa"],
        return_deleted_object: true,
        ..rt("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true)
    },
    ResourceType {
        short_names: &["no"],
        status_subresource: true,
        field_selectors: &[("spec.unschedulable", "false")],
        ..rt("", "v1", "nodes", "node", "Node", false)
    },
    ResourceType {
        short_names: &["ev"],
        allow_create_on_update: true,
        field_selectors: &[
            ("involvedObject.kind", ""),
            ("involvedObject.namespace", ""),
            ("involvedObject.name", ""),
            ("involvedObject.uid", ""),
            ("involvedObject.apiVersion", ""),
            ("involvedObject.resourceVersion", ""),
            ("involvedObject.fieldPath", ""),
            ("reason", ""),
            ("reportingComponent", ""),
            ("source", ""),
            ("type", ""),
        ],
        ..rt("", "v1", "events", "event", "Event", true)
    },
    ResourceType {
        short_names: &["ep"],
        allow_create_on_update: true,
        ..rt("", "v1", "endpoints", "endpoints", "Endpoints", true)
    },
    ResourceType {
        short_names: &["pv"],
        status_subresource: true,
        return_deleted_object: true,
        ..rt("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false)
    },
    ResourceType {
        short_names: &["pvc"],
        status_subresource: true,
        return_deleted_object: true,
        ..rt("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true)
    },
    // apps/v1
    ResourceType {
        scale_subresource: true,
        short_names: &["deploy"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        ..rt("apps", "v1", "deployments", "deployment", "Deployment", true)
    },
    ResourceType {
        scale_subresource: true,
        short_names: &["rs"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        field_selectors: &[("status.replicas", "0")],
        ..rt("apps", "v1", "replicasets", "replicaset", "ReplicaSet", true)
    },
    ResourceType {
        scale_subresource: true,
        short_names: &["sts"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        ..rt("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true)
    },
    ResourceType {
        short_names: &["ds"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        ..rt("apps", "v1", "daemonsets", "daemonset", "DaemonSet", true)
    },
    // batch/v1
    ResourceType {
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        field_selectors: &[("status.successful", "0")],
        ..rt("batch", "v1", "jobs", "job", "Job", true)
    },
    ResourceType {
        short_names: &["cj"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        ..rt("batch", "v1", "cronjobs", "cronjob", "CronJob", true)
    },
    // coordination.k8s.io/v1
    ResourceType { allow_create_on_update: true, ..rt("coordination.k8s.io", "v1", "leases", "lease", "Lease", true) },
    // rbac.authorization.k8s.io/v1
    ResourceType {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        ..rt("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true)
    },
    ResourceType {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        ..rt("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true)
    },
    ResourceType {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        ..rt("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false)
    },
    ResourceType {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        ..rt(
            "rbac.authorization.k8s.io",
            "v1",
            "clusterrolebindings",
            "clusterrolebinding",
            "ClusterRoleBinding",
            false,
        )
    },
    // apiextensions.k8s.io/v1 (stored only for now)
    ResourceType {
        short_names: &["crd", "crds"],
        categories: &["api-extensions"],
        status_subresource: true,
        return_deleted_object: true,
        tracks_generation: true,
        ..rt(
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            "customresourcedefinition",
            "CustomResourceDefinition",
            false,
        )
    },
];

/// Finds a resource by group, version and plural name.
pub fn lookup(group: &str, version: &str, resource: &str) -> Option<&'static ResourceType> {
    BUILTIN.iter().find(|r| r.group == group && r.version == version && r.resource == resource)
}

pub fn namespaces() -> &'static ResourceType {
    &BUILTIN[0]
}

/// The groups served, in discovery order (core first, as "").
pub fn groups() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for r in BUILTIN {
        if !out.contains(&r.group) {
            out.push(r.group);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        assert_eq!(namespaces().resource, "namespaces");
        let mut seen = std::collections::HashSet::new();
        for r in BUILTIN {
            assert!(seen.insert((r.group, r.resource)), "duplicate {}", r.resource);
            assert!(r.resource.ends_with('s'), "{}", r.resource);
        }
        assert_eq!(BUILTIN.len(), 23);
    }
}
