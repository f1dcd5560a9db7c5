//! What the page knows of the API: read from aggregated discovery, as
//! kubectl reads it, and used to resolve `pods`, `po`, `pod`, `Pod` and
//! `deployments.apps` to a resource, and to complete console paths.

use kubesim::sort::Order;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct ApiResource {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub verbs: Vec<String>,
}

impl ApiResource {
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The collection path: in one namespace, or across all of them (a
    /// cluster-scoped resource ignores the namespace).
    pub fn collection(&self, namespace: Option<&str>) -> String {
        let ns = namespace.filter(|_| self.namespaced);
        crate::paths::collection(&self.group, &self.version, &self.resource, ns)
    }

    pub fn item(&self, namespace: Option<&str>, name: &str) -> String {
        let ns = namespace.filter(|_| self.namespaced);
        crate::paths::item(&self.group, &self.version, &self.resource, ns, name)
    }

    /// `deployments.apps`, or `pods` for the core group.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Discovery {
    pub resources: Vec<ApiResource>,
}

/// The Accept header kubectl sends for aggregated discovery.
pub const AGGREGATED_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

impl Discovery {
    /// Adds the resources of one APIGroupDiscoveryList document.
    pub fn absorb(&mut self, doc: &Value) {
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        for item in doc.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            let group = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
            for ver in item.get("versions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                let version = ver.get("version").and_then(Value::as_str).unwrap_or("").to_string();
                for r in ver.get("resources").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                    let s = |p: &str| r.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
                    self.resources.push(ApiResource {
                        group: group.clone(),
                        version: version.clone(),
                        resource: s("/resource"),
                        singular: s("/singularResource"),
                        kind: s("/responseKind/kind"),
                        namespaced: s("/scope") == "Namespaced",
                        short_names: strings(r.get("shortNames")),
                        categories: strings(r.get("categories")),
                        verbs: strings(r.get("verbs")),
                    });
                }
            }
        }
    }

    /// Resolves what a user typed, as kubectl's RESTMapper does: plural,
    /// singular, short name or kind, optionally qualified by group.
    pub fn resolve(&self, typed: &str) -> Result<&ApiResource, String> {
        let lower = typed.to_ascii_lowercase();
        let (name, group) = match lower.split_once('.') {
            Some((n, g)) => (n.to_string(), Some(g.to_string())),
            None => (lower.clone(), None),
        };
        let hit = self
            .named(&name)
            .into_iter()
            .find(|r| group.as_deref().is_none_or(|g| r.group == g || r.group.starts_with(&format!("{g}."))));
        hit.ok_or_else(|| format!("the server doesn't have a resource type \"{typed}\""))
    }

    /// The resources a lower-case name (plural, singular, short name or
    /// kind) may mean, in every group: the core group's first, as
    /// kubectl's priority order has it.
    pub fn named(&self, name: &str) -> Vec<&ApiResource> {
        let mut hits: Vec<&ApiResource> = self
            .resources
            .iter()
            .filter(|r| {
                r.resource == name
                    || r.singular == name
                    || r.kind.to_ascii_lowercase() == name
                    || r.short_names.iter().any(|s| s == name)
            })
            .collect();
        hits.order_by_key(|r| !r.group.is_empty());
        hits
    }

    /// The resource types an object can be read from, for completion:
    /// plural names (qualified by group where a plural is in several
    /// groups), each once, sorted.
    pub fn readable_types(&self) -> Vec<String> {
        let readable: Vec<&ApiResource> =
            self.resources.iter().filter(|r| r.verbs.iter().any(|v| v == "get")).collect();
        let mut out: Vec<String> = readable
            .iter()
            .map(|r| {
                let shared = readable.iter().any(|o| o.resource == r.resource && o.group != r.group);
                if shared && !r.group.is_empty() {
                    format!("{}.{}", r.resource, r.group)
                } else {
                    r.resource.clone()
                }
            })
            .collect();
        out.order();
        out.dedup();
        out
    }

    /// Resources in a category (`all`).
    pub fn category(&self, category: &str) -> Vec<&ApiResource> {
        self.resources.iter().filter(|r| r.categories.iter().any(|c| c == category)).collect()
    }

    /// Paths a console user may want, for completion.
    pub fn paths(&self, namespaces: &[String]) -> Vec<String> {
        let mut out = vec!["/api".to_string(), "/apis".to_string(), "/version".to_string(), "/openapi/v3".to_string()];
        for r in &self.resources {
            out.push(r.collection(None));
            if r.namespaced {
                for ns in namespaces {
                    out.push(r.collection(Some(ns)));
                }
            }
        }
        out.order();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery() -> Discovery {
        let mut s = kubesim::Server::new(Default::default());
        let mut d = Discovery::default();
        for path in ["/api", "/apis"] {
            let r = s.handle(kubesim::Request::new("GET", path).with_header("Accept", AGGREGATED_ACCEPT));
            d.absorb(&serde_json::from_slice(&r.body).unwrap());
        }
        d
    }

    #[test]
    fn resolves_plural_singular_short_name_and_kind() {
        let d = discovery();
        for typed in ["pods", "pod", "po", "Pod", "POD"] {
            assert_eq!(d.resolve(typed).unwrap().resource, "pods", "{typed}");
        }
        let deploy = d.resolve("deploy").unwrap();
        assert_eq!(deploy.collection(Some("kube-system")), "/apis/apps/v1/namespaces/kube-system/deployments");
        assert_eq!(d.resolve("deployments.apps").unwrap().group, "apps");
        assert_eq!(d.resolve("cm").unwrap().item(Some("default"), "x"), "/api/v1/namespaces/default/configmaps/x");
        assert_eq!(d.resolve("nodes").unwrap().collection(Some("default")), "/api/v1/nodes");
        assert_eq!(d.resolve("flurb").unwrap_err(), "the server doesn't have a resource type \"flurb\"");
    }

    #[test]
    fn category_all_and_completion_paths() {
        let d = discovery();
        let all: Vec<String> = d.category("all").iter().map(|r| r.qualified()).collect();
        assert!(all.contains(&"pods".to_string()) && all.contains(&"deployments.apps".to_string()), "{all:?}");
        let paths = d.paths(&["default".to_string()]);
        assert!(paths.contains(&"/api/v1/namespaces/default/configmaps".to_string()));
    }
}
