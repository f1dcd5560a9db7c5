//! Discovery documents: `/version`, `/api`, `/apis`, per-group and
//! per-group-version resource lists, and aggregated discovery
//! (`apidiscovery.k8s.io/v2`).

use crate::sort::Order;
use serde_json::{json, Value};

use crate::registry::options::Verb;
use crate::registry::{Catalog, ResourceType};

pub const AGGREGATED_CONTENT_TYPE: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "emulationMajor": "1",
        "emulationMinor": "33",
        "minCompatibilityMajor": "1",
        "minCompatibilityMinor": "32",
        "gitVersion": "v1.33.0",
        "gitCommit": "kubesim",
        "gitTreeState": "clean",
        "buildDate": "2025-04-23T00:00:00Z",
        "goVersion": "go1.24.2",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

/// How discovery orders versions (upstream's `CompareKubeAwareVersionStrings`):
/// GA before beta before alpha, higher numbers first; names of another
/// shape after them, in alphabetical order.
fn version_rank(v: &str) -> (u8, std::cmp::Reverse<u64>, std::cmp::Reverse<u64>, String) {
    let parsed = v.strip_prefix('v').and_then(|rest| {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        match &rest[digits..] {
            "" => Some((0, major, 0)),
            tail => {
                let (class, n) =
                    if let Some(n) = tail.strip_prefix("beta") { (1, n) } else { (2, tail.strip_prefix("alpha")?) };
                Some((class, major, n.parse().ok()?))
            }
        }
    });
    match parsed {
        Some((class, major, minor)) => (class, std::cmp::Reverse(major), std::cmp::Reverse(minor), String::new()),
        None => (3, std::cmp::Reverse(0), std::cmp::Reverse(0), v.to_string()),
    }
}

/// A group's versions, the preferred first.
fn sorted_versions<'a>(catalog: &'a Catalog, group: &str) -> Vec<&'a str> {
    let mut versions = catalog.versions(group);
    versions.order_by_key(|v| version_rank(v));
    versions
}

fn group_entry(catalog: &Catalog, group: &str) -> Value {
    let versions: Vec<Value> = sorted_versions(catalog, group)
        .into_iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    let preferred = versions.first().cloned().unwrap_or(Value::Null);
    json!({"name": group, "versions": versions, "preferredVersion": preferred})
}

/// Verb names as discovery lists them.
fn verbs(v: &[Verb]) -> Vec<&'static str> {
    v.iter().map(|v| v.as_str()).collect()
}

pub fn api_group_list(catalog: &Catalog) -> Value {
    let groups: Vec<Value> =
        catalog.groups().into_iter().filter(|g| !g.is_empty()).map(|g| group_entry(catalog, g)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

pub fn api_group(catalog: &Catalog, group: &str) -> Option<Value> {
    if group.is_empty() || !catalog.groups().contains(&group) {
        return None;
    }
    let mut g = group_entry(catalog, group);
    if let Value::Object(m) = &mut g {
        let mut out = serde_json::Map::new();
        out.insert("kind".into(), json!("APIGroup"));
        out.insert("apiVersion".into(), json!("v1"));
        out.extend(std::mem::take(m));
        return Some(Value::Object(out));
    }
    None
}

pub fn api_resource_list(catalog: &Catalog, group: &str, version: &str) -> Option<Value> {
    let mut resources = Vec::new();
    for r in by_name(catalog, group, version) {
        let mut entry =
            resource_entry(r.resource().to_string(), &r.singular, r.namespaced, None, r.kind(), &verbs(&r.verbs));
        if let Value::Object(m) = &mut entry {
            let strings = |l: &[String]| Value::Array(l.iter().map(|s| Value::from(s.as_str())).collect());
            if !r.short_names.is_empty() {
                m.insert("shortNames".into(), strings(&r.short_names));
            }
            if !r.categories.is_empty() {
                m.insert("categories".into(), strings(&r.categories));
            }
            if let Some(hash) = storage_version_hash(catalog, r) {
                m.insert("storageVersionHash".into(), Value::String(hash));
            }
        }
        resources.push(entry);
        let sub = |name: &str, gv: Option<(&str, &str)>, kind: &str, verbs: &[&str]| {
            resource_entry(format!("{}/{name}", r.resource()), "", r.namespaced, gv, kind, verbs)
        };
        for side in r.side {
            let (group, version, kind) = side.kind(&r.gvk);
            // Named only when it differs from the resource's own.
            let own = (group.as_str(), version.as_str()) == (r.gvk.group.as_str(), r.gvk.version.as_str());
            resources.push(sub(side.name(), (!own).then_some((&group, &version)), &kind, side.verbs()));
        }
        if r.finalize_subresource {
            resources.push(sub("finalize", None, r.kind(), &["update"]));
        }
        // A built-in's subresources in path order, as kube-apiserver's
        // installer sorts them (`scale` before `status`); a custom
        // resource's as the apiextensions discovery controller appends
        // them, `status` first.
        let subresource = verbs(Verb::SUBRESOURCE);
        let status = r.status_subresource.then(|| sub("status", None, r.kind(), &subresource));
        let scale = r.scale_subresource.then(|| sub("scale", Some(("autoscaling", "v1")), "Scale", &subresource));
        resources.extend(in_discovery_order(r, status, scale));
    }
    if resources.is_empty() {
        return None;
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Some(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}))
}

/// One `APIResource`, its fields in the Go struct's order (a group and
/// version only where they differ from the list's).
fn resource_entry(
    name: String,
    singular: &str,
    namespaced: bool,
    group_version: Option<(&str, &str)>,
    kind: &str,
    verbs: &[&str],
) -> Value {
    let mut m = serde_json::Map::with_capacity(10);
    m.insert("name".into(), Value::String(name));
    m.insert("singularName".into(), Value::from(singular));
    m.insert("namespaced".into(), Value::Bool(namespaced));
    if let Some((group, version)) = group_version {
        m.insert("group".into(), Value::from(group));
        m.insert("version".into(), Value::from(version));
    }
    m.insert("kind".into(), Value::from(kind));
    m.insert("verbs".into(), Value::Array(verbs.iter().map(|v| Value::from(*v)).collect()));
    Value::Object(m)
}

fn aggregated_group(catalog: &Catalog, group: &str) -> Value {
    let versions: Vec<Value> = sorted_versions(catalog, group)
        .into_iter()
        .map(|v| json!({"version": v, "resources": aggregated_resources(catalog, group, v), "freshness": "Current"}))
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata = json!({"name": group, "creationTimestamp": null});
    }
    json!({"metadata": metadata, "versions": versions})
}

fn aggregated_resources(catalog: &Catalog, group: &str, version: &str) -> Vec<Value> {
    by_name(catalog, group, version)
        .into_iter()
        .map(|r: &std::sync::Arc<ResourceType>| {
            let kind = json!({"group": r.group(), "version": r.version(), "kind": r.kind()});
            let mut e = json!({
                "resource": r.resource(),
                "responseKind": kind,
                "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
                "singularResource": r.singular,
                "verbs": verbs(&r.verbs),
            });
            if !r.short_names.is_empty() {
                e["shortNames"] = json!(r.short_names);
            }
            if !r.categories.is_empty() {
                e["categories"] = json!(r.categories);
            }
            let mut subresources = Vec::new();
            for side in r.side {
                let (group, version, kind) = side.kind(&r.gvk);
                subresources.push(json!({"subresource": side.name(),
                    "responseKind": {"group": group, "version": version, "kind": kind}, "verbs": side.verbs()}));
            }
            if r.finalize_subresource {
                subresources.push(json!({"subresource": "finalize", "responseKind": kind, "verbs": ["update"]}));
            }
            let status = r
                .status_subresource
                .then(|| json!({"subresource": "status", "responseKind": kind, "verbs": verbs(Verb::SUBRESOURCE)}));
            let scale = r.scale_subresource.then(|| {
                json!({
                    "subresource": "scale",
                    "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                    "verbs": verbs(Verb::SUBRESOURCE),
                })
            });
            subresources.extend(in_discovery_order(r, status, scale));
            if !subresources.is_empty() {
                e["subresources"] = json!(subresources);
            }
            e
        })
        .collect()
}

/// A group-version's resources in name order, as kube-apiserver's
/// installer sorts their paths (and the apiextensions discovery controller
/// its aggregated list; its classic one is in no order of its own).
fn by_name<'a>(catalog: &'a Catalog, group: &'a str, version: &'a str) -> Vec<&'a std::sync::Arc<ResourceType>> {
    let mut out: Vec<_> = catalog.of_group_version(group, version).collect();
    out.order_by(|a, b| a.resource().cmp(b.resource()));
    out
}

/// What classic discovery says of a stored resource's storage version
/// (upstream's `StorageVersionHash`): the first 8 bytes of the SHA-256 of
/// `group/version/kind` as it is stored, in base64. A resource served
/// over another's storage (events.k8s.io/v1, autoscaling/v1, a custom
/// resource's other versions) has that one's; one without storage (the
/// reviews, componentstatuses), and a custom resource whose storage
/// version is not served, none.
fn storage_version_hash(catalog: &Catalog, r: &ResourceType) -> Option<String> {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    if !r.serves(Verb::Watch) {
        return None;
    }
    let stored = match r.stored_as {
        None => r,
        Some(_) => catalog.iter().map(|o| &**o).find(|o| {
            o.stored_as.is_none() && o.group() == r.storage_group() && o.resource() == r.storage_resource()
        })?,
    };
    let gvk = format!("{}/{}/{}", stored.group(), stored.version(), stored.kind());
    Some(base64::engine::general_purpose::STANDARD.encode(&Sha256::digest(gvk.as_bytes())[..8]))
}

/// The status and scale subresources' entries in the order discovery
/// lists them: `status` first for a custom resource, `scale` first for a
/// built-in.
fn in_discovery_order(r: &ResourceType, status: Option<Value>, scale: Option<Value>) -> Vec<Value> {
    let custom = r.strategy.published_schema().is_some();
    let (a, b) = if custom { (status, scale) } else { (scale, status) };
    a.into_iter().chain(b).collect()
}

/// Aggregated discovery for `/api` (core) or `/apis` (every named group).
pub fn aggregated(catalog: &Catalog, core: bool) -> Value {
    let items: Vec<Value> =
        catalog.groups().into_iter().filter(|g| g.is_empty() == core).map(|g| aggregated_group(catalog, g)).collect();
    json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items})
}

#[cfg(test)]
mod version_order {
    use crate::sort::Order;

    #[test]
    fn kube_aware() {
        let mut v = vec!["v1alpha1", "v2beta1", "foo", "v1", "v1beta2", "v2", "v1beta1", "bar", "v10"];
        v.order_by_key(|x| super::version_rank(x));
        assert_eq!(v, vec!["v10", "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"]);
    }
}
