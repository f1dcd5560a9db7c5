//! The storage key layout, built and parsed here and nowhere else:
//!
//! ```text
//! /<group>/<resource>/<namespace>/<name>    namespaced  (/core/pods/default/web)
//! /<group>/<resource>/<name>                cluster     (/core/namespaces/default)
//! ```
//!
//! The core group is written `core`. No version appears: every version of a
//! resource shares its objects, as in etcd under kube-apiserver. A prefix
//! ends in `/`, so `/core/pods/default/` never covers `/core/pods/default2/`.
//! A resource served over another's storage (events.k8s.io/v1 events) has
//! that one's keys.

use super::resource::{Catalog, ResourceType};

/// An API group's first segment of a key (`core` for the core group).
pub fn group_segment(group: &str) -> &str {
    if group.is_empty() {
        "core"
    } else {
        group
    }
}

/// Every object of the resource.
pub fn resource_prefix(rt: &ResourceType) -> String {
    ["/", group_segment(rt.storage_group()), "/", rt.storage_resource(), "/"].concat()
}

/// The prefix a list or watch covers: one namespace of a namespaced
/// resource, or all of it.
pub fn prefix(rt: &ResourceType, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if rt.namespaced => format!("{}{}/", resource_prefix(rt), ns),
        _ => resource_prefix(rt),
    }
}

/// The key of one object (`namespace` is ignored for cluster scope).
pub fn key(rt: &ResourceType, namespace: &str, name: &str) -> String {
    let group = group_segment(rt.storage_group());
    let resource = rt.storage_resource();
    let mut k = String::with_capacity(4 + group.len() + resource.len() + namespace.len() + name.len());
    for part in ["/", group, "/", resource, "/"] {
        k.push_str(part);
    }
    if rt.namespaced {
        k.push_str(namespace);
        k.push('/');
    }
    k.push_str(name);
    k
}

/// The key kube-apiserver keeps the object under in etcd, which its
/// storage errors quote (`/registry/configmaps/default/a`): built-in
/// resources without their group, some under historical names; other
/// groups' resources under `<group>/<resource>`.
pub fn upstream_key(rt: &ResourceType, namespace: &str, name: &str) -> String {
    let group = rt.storage_group();
    let builtin = group.is_empty() || !group.contains('.') || group.ends_with(".k8s.io");
    let prefix = match (group, rt.storage_resource()) {
        ("", "services") => "services/specs".to_string(),
        ("", "endpoints") => "services/endpoints".to_string(),
        ("", "nodes") => "minions".to_string(),
        ("", "replicationcontrollers") => "controllers".to_string(),
        ("networking.k8s.io", "ingresses") => "ingress".to_string(),
        (_, resource) if builtin => resource.to_string(),
        (group, resource) => format!("{group}/{resource}"),
    };
    if rt.namespaced {
        format!("/registry/{prefix}/{namespace}/{name}")
    } else {
        format!("/registry/{prefix}/{name}")
    }
}

/// What a key names, as a client would name the object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    pub group: &'a str,
    pub resource: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
}

/// Reads a key back, knowing from the catalog whether its resource is
/// namespaced (a resource no longer served reads as cluster-scoped).
pub fn parse<'a>(key: &'a str, catalog: &Catalog) -> ParsedKey<'a> {
    let mut parts = key.trim_start_matches('/').splitn(3, '/');
    let group = match parts.next().unwrap_or("") {
        "core" => "",
        g => g,
    };
    let resource = parts.next().unwrap_or("");
    let rest = parts.next().unwrap_or("");
    let namespaced = catalog.lookup_group_resource(group, resource).is_some_and(|rt| rt.namespaced);
    let (namespace, name) = match rest.split_once('/') {
        Some((ns, name)) if namespaced => (ns, name),
        _ => ("", rest),
    };
    ParsedKey { group, resource, namespace, name }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_catalog;

    #[test]
    fn keys_round_trip() {
        let c = builtin_catalog();
        let pods = c.lookup("", "v1", "pods").unwrap();
        let deploys = c.lookup("apps", "v1", "deployments").unwrap();
        let nodes = c.lookup("", "v1", "nodes").unwrap();
        assert_eq!(key(pods, "default", "web"), "/core/pods/default/web");
        assert_eq!(key(nodes, "ignored", "n1"), "/core/nodes/n1");
        assert_eq!(prefix(pods, Some("kube-system")), "/core/pods/kube-system/");
        assert_eq!(prefix(pods, None), "/core/pods/");
        assert_eq!(prefix(nodes, Some("x")), "/core/nodes/");
        assert_eq!(
            parse(&key(deploys, "ns", "d"), c),
            ParsedKey { group: "apps", resource: "deployments", namespace: "ns", name: "d" }
        );
        assert_eq!(parse("/core/nodes/n1", c), ParsedKey { group: "", resource: "nodes", namespace: "", name: "n1" });
    }

    #[test]
    fn upstream_keys_follow_etcd_layout() {
        let c = builtin_catalog();
        let rt = |g: &str, v: &str, r: &str| c.lookup(g, v, r).unwrap();
        assert_eq!(upstream_key(rt("", "v1", "configmaps"), "default", "a"), "/registry/configmaps/default/a");
        assert_eq!(upstream_key(rt("", "v1", "services"), "default", "s"), "/registry/services/specs/default/s");
        assert_eq!(upstream_key(rt("", "v1", "nodes"), "", "n1"), "/registry/minions/n1");
        assert_eq!(upstream_key(rt("apps", "v1", "deployments"), "ns", "d"), "/registry/deployments/ns/d");
        assert_eq!(upstream_key(rt("", "v1", "namespaces"), "", "kube-system"), "/registry/namespaces/kube-system");
    }
}
