//! Resource URLs, built in one place and read back in one place: every
//! panel that names a collection or an object asks here.

/// The group-version prefix: `/api/v1` for the core group, `/apis/apps/v1`.
fn base(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

/// A collection: in one namespace (a non-empty `namespace`), or across all
/// of them (and for cluster-scoped resources).
pub fn collection(group: &str, version: &str, resource: &str, namespace: Option<&str>) -> String {
    match namespace.filter(|ns| !ns.is_empty()) {
        Some(ns) => format!("{}/namespaces/{ns}/{resource}", base(group, version)),
        None => format!("{}/{resource}", base(group, version)),
    }
}

/// One object of a collection.
pub fn item(group: &str, version: &str, resource: &str, namespace: Option<&str>, name: &str) -> String {
    format!("{}/{name}", collection(group, version, resource, namespace))
}

/// What a resource path names: group, version and resource (empty when the
/// path is not a resource path).
pub fn group_version_resource(path: &str) -> (String, String, String) {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => ("", "", &[][..]),
    };
    let resource = match rest {
        ["namespaces", _ns, r, ..] => r,
        [r, ..] => r,
        [] => &"",
    };
    (group.to_string(), version.to_string(), resource.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_group_and_scope_and_read_back() {
        assert_eq!(collection("", "v1", "pods", Some("default")), "/api/v1/namespaces/default/pods");
        assert_eq!(collection("", "v1", "pods", Some("")), "/api/v1/pods");
        assert_eq!(collection("apps", "v1", "deployments", None), "/apis/apps/v1/deployments");
        assert_eq!(item("apps", "v1", "deployments", Some("ns"), "web"), "/apis/apps/v1/namespaces/ns/deployments/web");
        let back = |p: &str| group_version_resource(p);
        assert_eq!(back("/api/v1/namespaces/default/configmaps"), ("".into(), "v1".into(), "configmaps".into()));
        assert_eq!(back("/apis/apps/v1/deployments"), ("apps".into(), "v1".into(), "deployments".into()));
        assert_eq!(back("/api/v1/namespaces"), ("".into(), "v1".into(), "namespaces".into()));
        assert_eq!(back("/nonsense"), ("".into(), "".into(), "".into()));
    }
}
