//! Typed identities: group/version/kind (what a body says it is) and
//! group/version/resource (what a URL names). Kubernetes' own words, so a
//! comparison reads as `rt.gvk.kind == "Pod"` only where a test needs it,
//! never as `(group, kind) == ("", "Pod")` in the generic flow.

use std::fmt;

/// `apiVersion` for a group and version: `v1` for the core group,
/// `apps/v1` for the others.
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// Splits an `apiVersion` into group and version (`v1` → `("", "v1")`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.split_once('/').unwrap_or(("", api_version))
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersionKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl GroupVersionKind {
    pub fn new(group: &str, version: &str, kind: &str) -> GroupVersionKind {
        GroupVersionKind { group: group.into(), version: version.into(), kind: kind.into() }
    }

    /// From a body's `apiVersion` and `kind`.
    pub fn from_api_version(api_version: &str, kind: &str) -> GroupVersionKind {
        let (group, version) = split_api_version(api_version);
        GroupVersionKind::new(group, version, kind)
    }

    pub fn api_version(&self) -> String {
        api_version(&self.group, &self.version)
    }
}

impl fmt::Display for GroupVersionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, Kind={}", api_version(&self.group, &self.version), self.kind)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersionResource {
    pub group: String,
    pub version: String,
    /// The plural, lower-case name used in URLs.
    pub resource: String,
}

impl GroupVersionResource {
    pub fn new(group: &str, version: &str, resource: &str) -> GroupVersionResource {
        GroupVersionResource { group: group.into(), version: version.into(), resource: resource.into() }
    }

    /// The group-qualified resource as upstream writes it in messages:
    /// `pods`, `deployments.apps`.
    pub fn group_resource(&self) -> String {
        super::status::qualified_resource(&self.group, &self.resource)
    }
}

impl fmt::Display for GroupVersionResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, Resource={}", api_version(&self.group, &self.version), self.resource)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_versions_split_and_join() {
        assert_eq!(api_version("", "v1"), "v1");
        assert_eq!(api_version("apps", "v1"), "apps/v1");
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        let gvk = GroupVersionKind::from_api_version("batch/v1", "Job");
        assert_eq!((gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()), ("batch", "v1", "Job"));
        assert_eq!(gvk.to_string(), "batch/v1, Kind=Job");
        assert_eq!(GroupVersionResource::new("apps", "v1", "deployments").group_resource(), "deployments.apps");
    }
}
