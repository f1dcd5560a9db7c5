//! The built-in resources: one table entry each. A kind with rules of its
//! own (defaults, validation, allocation, a printer, selectable fields)
//! names its strategy from a file under `kinds/`; the rest use the default
//! strategy. Adding a kind is one entry here, plus, if it has rules, one
//! file.

use std::sync::OnceLock;

use super::options::Verb;
use super::resource::{Catalog, ResourceDefinition, ResourceType, Side, StoredAs};
use super::strategy::{DefaultStrategy, Strategy, StrategyRef};
use crate::api::meta::NameRule;
use crate::api::GroupVersionResource;

pub use ingress::port_name_messages;

mod component_status;
mod config_map;
mod controller_revision;
pub mod crd;
mod cron_job;
mod daemon_set;
mod deployment;
mod endpoint_slice;
mod endpoints;
mod event;
mod flow_control;
mod horizontal_pod_autoscaler;
pub(super) mod ingress;
mod job;
mod lease;
pub(super) mod limit_range;
mod namespace;
mod node;
mod persistent_volume;
mod persistent_volume_claim;
mod pod;
mod pod_disruption_budget;
mod pod_env;
mod pod_resize;
mod pod_update;
pub(super) mod priority_class;
mod replica_set;
mod replication_controller;
pub(super) mod resource_quota;
mod role;
mod role_binding;
mod secret;
mod service;
mod service_account;
mod stateful_set;
pub(super) mod storage_class;
mod workload;

/// A built-in resource, as the table spells it.
pub struct Builtin {
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
    /// The verbs served (most kinds: all of `Verb::STANDARD`).
    pub verbs: &'static [Verb],
    /// Serves `/scale` (autoscaling/v1 Scale over `spec.replicas`).
    pub scale_subresource: bool,
    /// Serves `/finalize` (namespaces).
    pub finalize_subresource: bool,
    /// The subresources served beside the object's own.
    pub side: &'static [Side],
    /// Served over another resource's storage.
    pub stored_as: Option<&'static StoredAs>,
    pub strategy: &'static dyn Strategy,
}

impl Builtin {
    fn definition(&self) -> ResourceDefinition {
        let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect();
        ResourceDefinition {
            gvr: GroupVersionResource::new(self.group, self.version, self.resource),
            kind: self.kind.into(),
            singular: self.singular.into(),
            namespaced: self.namespaced,
            short_names: strings(self.short_names),
            categories: strings(self.categories),
            verbs: self.verbs.to_vec(),
            status_subresource: self.status_subresource,
            scale_subresource: self.scale_subresource,
            finalize_subresource: self.finalize_subresource,
            side: self.side,
            name_rule: self.name_rule,
            return_deleted_object: self.return_deleted_object,
            allow_create_on_update: self.allow_create_on_update,
            tracks_generation: self.tracks_generation,
            protobuf: true,
            stored_as: self.stored_as.cloned(),
            strategy: StrategyRef::Static(self.strategy),
        }
    }
}

const fn rt(
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> Builtin {
    Builtin {
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
        verbs: Verb::STANDARD,
        scale_subresource: false,
        finalize_subresource: false,
        side: &[],
        stored_as: None,
        strategy: &DefaultStrategy,
    }
}

/// A review: cluster-scoped, created and answered, never stored.
const fn review(group: &'static str, resource: &'static str, kind: &'static str) -> Builtin {
    // (The singular name is the plural's stem, as upstream derives it.)
    let singular = match resource.as_bytes() {
        [stem @ .., b's'] => match std::str::from_utf8(stem) {
            Ok(s) => s,
            Err(_) => resource,
        },
        _ => resource,
    };
    Builtin { name_rule: NameRule::PathSegment, ..rt(group, "v1", resource, singular, kind, false) }
}

const ALL: &[&str] = &["all"];
const CREATE_ONLY: &[Verb] = &[Verb::Create];
const NO_COLLECTION_DELETE: &[Verb] =
    &[Verb::Create, Verb::Delete, Verb::Get, Verb::List, Verb::Patch, Verb::Update, Verb::Watch];

pub static BUILTIN: &[Builtin] = &[
    // core/v1
    Builtin {
        name_rule: NameRule::Dns1123Label,
        short_names: &["ns"],
        status_subresource: true,
        return_deleted_object: true,
        verbs: NO_COLLECTION_DELETE,
        finalize_subresource: true,
        strategy: &namespace::Namespace,
        ..rt("", "v1", "namespaces", "namespace", "Namespace", false)
    },
    Builtin {
        short_names: &["po"],
        categories: ALL,
        status_subresource: true,
        return_deleted_object: true,
        strategy: &pod::Pod,
        side: &[Side::Binding, Side::EphemeralContainers, Side::Eviction, Side::Log, Side::Resize],
        // Since 1.33, ungated (KEP-5067): 1 on create, +1 for each spec
        // change (an update, `ephemeralcontainers`) and a graceful delete;
        // never for `status` or `binding` writes.
        tracks_generation: true,
        ..rt("", "v1", "pods", "pod", "Pod", true)
    },
    Builtin {
        short_names: &["rc"],
        categories: ALL,
        status_subresource: true,
        scale_subresource: true,
        tracks_generation: true,
        strategy: &replication_controller::ReplicationController,
        ..rt("", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", true)
    },
    Builtin {
        short_names: &["svc"],
        categories: ALL,
        status_subresource: true,
        return_deleted_object: true,
        name_rule: NameRule::Dns1035Label,
        // Upstream's service storage has no deletecollection.
        verbs: NO_COLLECTION_DELETE,
        strategy: &service::Service,
        ..rt("", "v1", "services", "service", "Service", true)
    },
    Builtin {
        short_names: &["cm"],
        strategy: &config_map::ConfigMap,
        ..rt("", "v1", "configmaps", "configmap", "ConfigMap", true)
    },
    Builtin { strategy: &secret::Secret, ..rt("", "v1", "secrets", "secret", "Secret", true) },
    Builtin {
        short_names: &["sa"],
        return_deleted_object: true,
        strategy: &service_account::ServiceAccount,
        side: &[Side::Token],
        ..rt("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true)
    },
    Builtin {
        short_names: &["no"],
        status_subresource: true,
        strategy: &node::Node,
        side: &[Side::Proxy],
        ..rt("", "v1", "nodes", "node", "Node", false)
    },
    Builtin {
        short_names: &["ev"],
        allow_create_on_update: true,
        strategy: &event::Event,
        ..rt("", "v1", "events", "event", "Event", true)
    },
    Builtin {
        short_names: &["ep"],
        allow_create_on_update: true,
        strategy: &endpoints::Endpoints,
        ..rt("", "v1", "endpoints", "endpoints", "Endpoints", true)
    },
    Builtin {
        short_names: &["pv"],
        status_subresource: true,
        return_deleted_object: true,
        strategy: &persistent_volume::PersistentVolume,
        ..rt("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false)
    },
    Builtin {
        short_names: &["pvc"],
        status_subresource: true,
        return_deleted_object: true,
        strategy: &persistent_volume_claim::PersistentVolumeClaim,
        ..rt("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true)
    },
    Builtin {
        short_names: &["quota"],
        status_subresource: true,
        strategy: &resource_quota::ResourceQuota,
        ..rt("", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true)
    },
    Builtin {
        short_names: &["limits"],
        allow_create_on_update: true,
        strategy: &limit_range::LimitRange,
        ..rt("", "v1", "limitranges", "limitrange", "LimitRange", true)
    },
    // Probed on every read, never stored (`src/server/components.rs`).
    Builtin {
        short_names: &["cs"],
        name_rule: NameRule::PathSegment,
        verbs: &[Verb::Get, Verb::List],
        strategy: &component_status::ComponentStatus,
        ..rt("", "v1", "componentstatuses", "componentstatus", "ComponentStatus", false)
    },
    // apps/v1
    Builtin {
        strategy: &controller_revision::ControllerRevision,
        ..rt("apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", true)
    },
    Builtin {
        scale_subresource: true,
        short_names: &["deploy"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &deployment::Deployment,
        ..rt("apps", "v1", "deployments", "deployment", "Deployment", true)
    },
    Builtin {
        scale_subresource: true,
        short_names: &["rs"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &replica_set::ReplicaSet,
        ..rt("apps", "v1", "replicasets", "replicaset", "ReplicaSet", true)
    },
    Builtin {
        scale_subresource: true,
        short_names: &["sts"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &stateful_set::StatefulSet,
        ..rt("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true)
    },
    Builtin {
        short_names: &["ds"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &daemon_set::DaemonSet,
        ..rt("apps", "v1", "daemonsets", "daemonset", "DaemonSet", true)
    },
    // events.k8s.io/v1: core/v1 Events, converted
    Builtin {
        short_names: &["ev"],
        allow_create_on_update: true,
        strategy: &event::EventV1,
        stored_as: Some(&event::STORED_AS_CORE_EVENTS),
        ..rt("events.k8s.io", "v1", "events", "event", "Event", true)
    },
    // autoscaling/v2 (stored) and autoscaling/v1 (converted)
    Builtin {
        short_names: &["hpa"],
        categories: ALL,
        status_subresource: true,
        strategy: &horizontal_pod_autoscaler::Hpa,
        ..rt(
            "autoscaling",
            "v2",
            "horizontalpodautoscalers",
            "horizontalpodautoscaler",
            "HorizontalPodAutoscaler",
            true,
        )
    },
    Builtin {
        short_names: &["hpa"],
        categories: ALL,
        status_subresource: true,
        strategy: &horizontal_pod_autoscaler::HpaV1,
        stored_as: Some(&horizontal_pod_autoscaler::STORED_AS_V2),
        ..rt(
            "autoscaling",
            "v1",
            "horizontalpodautoscalers",
            "horizontalpodautoscaler",
            "HorizontalPodAutoscaler",
            true,
        )
    },
    // batch/v1
    Builtin {
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &job::Job,
        ..rt("batch", "v1", "jobs", "job", "Job", true)
    },
    Builtin {
        short_names: &["cj"],
        categories: ALL,
        status_subresource: true,
        tracks_generation: true,
        strategy: &cron_job::CronJob,
        ..rt("batch", "v1", "cronjobs", "cronjob", "CronJob", true)
    },
    // coordination.k8s.io/v1
    Builtin {
        allow_create_on_update: true,
        strategy: &lease::Lease,
        ..rt("coordination.k8s.io", "v1", "leases", "lease", "Lease", true)
    },
    // discovery.k8s.io/v1
    Builtin {
        strategy: &endpoint_slice::EndpointSlice,
        ..rt("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", true)
    },
    // networking.k8s.io/v1
    Builtin {
        short_names: &["ing"],
        status_subresource: true,
        tracks_generation: true,
        strategy: &ingress::Ingress,
        ..rt("networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", true)
    },
    Builtin {
        tracks_generation: true,
        strategy: &ingress::IngressClass,
        ..rt("networking.k8s.io", "v1", "ingressclasses", "ingressclass", "IngressClass", false)
    },
    // policy/v1
    Builtin {
        short_names: &["pdb"],
        status_subresource: true,
        strategy: &pod_disruption_budget::PodDisruptionBudget,
        ..rt("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true)
    },
    // rbac.authorization.k8s.io/v1
    Builtin {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        strategy: &role::Role,
        ..rt("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true)
    },
    Builtin {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        strategy: &role_binding::RoleBinding,
        ..rt("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true)
    },
    Builtin {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        strategy: &role::ClusterRole,
        ..rt("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false)
    },
    Builtin {
        name_rule: NameRule::PathSegment,
        allow_create_on_update: true,
        strategy: &role_binding::ClusterRoleBinding,
        ..rt(
            "rbac.authorization.k8s.io",
            "v1",
            "clusterrolebindings",
            "clusterrolebinding",
            "ClusterRoleBinding",
            false,
        )
    },
    // storage.k8s.io/v1
    Builtin {
        short_names: &["sc"],
        strategy: &storage_class::StorageClass,
        ..rt("storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false)
    },
    // scheduling.k8s.io/v1
    Builtin {
        short_names: &["pc"],
        strategy: &priority_class::PriorityClass,
        ..rt("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false)
    },
    // flowcontrol.apiserver.k8s.io/v1: API Priority and Fairness.
    Builtin {
        status_subresource: true,
        tracks_generation: true,
        strategy: &flow_control::FlowSchema,
        ..rt("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "flowschema", "FlowSchema", false)
    },
    Builtin {
        status_subresource: true,
        tracks_generation: true,
        strategy: &flow_control::PriorityLevelConfiguration,
        ..rt(
            "flowcontrol.apiserver.k8s.io",
            "v1",
            "prioritylevelconfigurations",
            "prioritylevelconfiguration",
            "PriorityLevelConfiguration",
            false,
        )
    },
    // authorization.k8s.io/v1 and authentication.k8s.io/v1: reviews,
    // answered by the server's authorizer and never stored (see
    // `server/reviews.rs`).
    Builtin { verbs: CREATE_ONLY, ..review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview") },
    Builtin {
        verbs: CREATE_ONLY,
        ..review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview")
    },
    Builtin {
        verbs: CREATE_ONLY,
        namespaced: true,
        ..review("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview")
    },
    Builtin {
        verbs: CREATE_ONLY,
        ..review("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview")
    },
    Builtin { verbs: CREATE_ONLY, ..review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview") },
    Builtin { verbs: CREATE_ONLY, ..review("authentication.k8s.io", "tokenreviews", "TokenReview") },
    // apiextensions.k8s.io/v1
    Builtin {
        short_names: &["crd", "crds"],
        categories: &["api-extensions"],
        strategy: &crd::CustomResourceDefinition,
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

/// The catalog of built-in resources, built once.
pub fn builtin_catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut c = Catalog::default();
        for b in BUILTIN {
            // The table's consistency is a test; a duplicate is skipped.
            let _ = c.register(ResourceType::new(b.definition()));
        }
        c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        let c = builtin_catalog();
        assert_eq!(c.iter().count(), BUILTIN.len(), "no entry collides with another");
        assert_eq!(BUILTIN.len(), 45);
        assert!(c.namespaces().is_some());
        for r in c.iter() {
            assert!(r.resource().ends_with('s'), "{}", r.resource());
        }
    }

    #[test]
    fn every_builtin_kind_has_a_schema_and_protobuf_messages() {
        let s = crate::schema::schemas();
        for rt in builtin_catalog().iter() {
            let name = s.name_of(rt.group(), rt.version(), rt.kind());
            assert!(name.is_some_and(|n| s.definition(n).is_some()), "{} has no schema", rt.kind());
            assert!(crate::proto::has_protobuf(rt.api_version(), rt.kind()), "{}", rt.kind());
            if rt.serves(Verb::List) {
                assert!(crate::proto::has_protobuf(rt.api_version(), rt.list_kind()), "{}", rt.kind());
            }
        }
    }

    #[test]
    fn every_printer_has_as_many_cells_as_columns() {
        let now = crate::clock::SimTime(1_700_000_000_000);
        let empty = serde_json::json!({"metadata": {"name": "x"}});
        for rt in builtin_catalog().iter() {
            let cols = rt.strategy.columns().len();
            assert_eq!(rt.strategy.cells(&empty, now).len(), cols, "{}", rt.kind());
        }
    }
}
