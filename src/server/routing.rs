//! Routing: a request path resolved to discovery documents, debug
//! endpoints, or a resource (group, version, namespace, name, subresource).

use std::sync::Arc;

use serde_json::Value;

use super::{discovery, openapi, Server};
use crate::registry::{ResourceType, Side};

use crate::registry::options::Verb;

/// A resolved resource path.
pub(crate) struct Target {
    pub rt: Arc<ResourceType>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// What follows a connecter's subresource (`nodes/N/proxy/logs/`:
    /// `logs/`), as upstream's `{path:*}`.
    pub rest: Option<String>,
}

impl Target {
    /// The side subresource addressed, if the resource serves it.
    pub(crate) fn side(&self) -> Option<Side> {
        let sub = self.subresource.as_deref()?;
        self.rt.side.iter().copied().find(|s| s.name() == sub)
    }

    /// Whether the path has a route for the method, as kube-apiserver
    /// registers them: an object takes GET, PUT, PATCH and DELETE (its
    /// status and scale subresources all but DELETE), a collection GET,
    /// POST and DELETE (deletecollection) — but a namespaced resource's
    /// all-namespaces collection only GET (list and watch). A verb the
    /// resource does not serve has no route.
    pub(crate) fn routes(&self, method: &str) -> bool {
        if let Some(side) = self.side() {
            return side.routes(method);
        }
        // Upstream's finalize storage implements only Update.
        if self.subresource.as_deref() == Some("finalize") {
            return method == "PUT";
        }
        let verb = match (method, self.name.is_some(), self.subresource.is_some()) {
            ("GET" | "HEAD", true, _) => Verb::Get,
            ("PUT", true, _) => Verb::Update,
            ("PATCH", true, _) => Verb::Patch,
            ("DELETE", true, false) => Verb::Delete,
            ("GET" | "HEAD", false, _) => Verb::List,
            ("POST", false, _) => Verb::Create,
            ("DELETE", false, _) => Verb::DeleteCollection,
            _ => return false,
        };
        let all_namespaces = self.rt.namespaced && self.namespace.is_none();
        if all_namespaces && verb != Verb::List {
            return false;
        }
        self.rt.serves(verb)
    }
}

pub(crate) enum Route {
    /// `/healthz`, `/livez`, `/readyz` (`server/health.rs`).
    Health(&'static str),
    /// One check of one of them (`/readyz/ping`): it passes.
    HealthCheck,
    /// `/metrics`, in Prometheus' text format.
    Metrics,
    Value(Value),
    Aggregated(bool),
    Version,
    Resource(Target),
    Debug(String),
    /// `/debug/api_priority_and_fairness/dump_*`.
    ApfDump(&'static str),
    /// `/openapi/v2`: JSON or gnostic protobuf, by Accept.
    OpenApiV2,
    NotFoundStatus,
    NotFoundPage,
}

impl Server {
    pub(crate) fn resolve(&self, raw_path: &str) -> Route {
        let catalog = self.registry.resources();
        // Like Go's server: the path is percent-decoded, then split.
        let path = if raw_path.contains('%') {
            percent_encoding::percent_decode_str(raw_path).decode_utf8_lossy()
        } else {
            // Nothing to decode (most paths): not walked byte by byte.
            std::borrow::Cow::Borrowed(raw_path)
        };
        let segs = crate::auth::segments(path.trim_end_matches('/'), 1);
        let segs: Vec<&str> = if segs == [""] { Vec::new() } else { segs };
        match segs.as_slice() {
            ["version"] => Route::Version,
            ["healthz"] => Route::Health("healthz"),
            ["livez"] => Route::Health("livez"),
            ["readyz"] => Route::Health("readyz"),
            [e @ ("healthz" | "livez" | "readyz"), check @ ..] if super::health::has_check(e, &check.join("/")) => {
                Route::HealthCheck
            }
            ["metrics"] => Route::Metrics,
            ["api"] => Route::Aggregated(true),
            ["apis"] => Route::Aggregated(false),
            ["api", "v1"] => {
                discovery::api_resource_list(catalog, "", "v1").map(Route::Value).unwrap_or(Route::NotFoundPage)
            }
            ["apis", g] => discovery::api_group(catalog, g).map(Route::Value).unwrap_or(Route::NotFoundPage),
            ["apis", g, v] => {
                discovery::api_resource_list(catalog, g, v).map(Route::Value).unwrap_or(Route::NotFoundPage)
            }
            ["debug", "kubesim", what] => Route::Debug(what.to_string()),
            ["debug", "api_priority_and_fairness", what] if self.config.apf => {
                match ["dump_priority_levels", "dump_queues", "dump_requests"].into_iter().find(|w| w == what) {
                    Some(w) => Route::ApfDump(w),
                    None => Route::NotFoundPage,
                }
            }
            ["openapi", "v2"] => Route::OpenApiV2,
            ["openapi", "v3"] => Route::Value(openapi::index(catalog)),
            ["openapi", "v3", rest @ ..] => {
                openapi::group_version(catalog, &rest.join("/")).map(Route::Value).unwrap_or(Route::NotFoundPage)
            }
            ["api", "v1", rest @ ..] => self.resolve_resource("", "v1", rest),
            ["apis", g, v, rest @ ..] => {
                if catalog.of_group_version(g, v).next().is_none() {
                    return Route::NotFoundPage;
                }
                self.resolve_resource(g, v, rest)
            }
            _ => Route::NotFoundPage,
        }
    }

    fn resolve_resource(&self, group: &str, version: &str, rest: &[&str]) -> Route {
        let catalog = self.registry.resources();
        let lookup = |r: &str| catalog.lookup(group, version, r).cloned();
        let t = |rt, ns: Option<&str>, name: Option<&str>, sub: Option<&str>| {
            Route::Resource(Target {
                rt,
                namespace: ns.map(str::to_string),
                name: name.map(str::to_string),
                subresource: sub.map(str::to_string),
                rest: None,
            })
        };
        // A connecter takes the rest of the path (`nodes/N/proxy/logs/`).
        let connect = |rt: Arc<ResourceType>, ns: Option<&str>, name: &str, rest: &[&str]| {
            Route::Resource(Target {
                rt,
                namespace: ns.map(str::to_string),
                name: Some(name.to_string()),
                subresource: Some(Side::Proxy.name().to_string()),
                rest: Some(rest.join("/")),
            })
        };
        match rest {
            ["namespaces", ns, res, tail @ ..]
                if !(group.is_empty() && (*res == "status" || *res == "finalize") && tail.is_empty()) =>
            {
                let Some(rt) = lookup(res).filter(|r| r.namespaced) else { return Route::NotFoundStatus };
                match tail {
                    [] => t(rt, Some(ns), None, None),
                    [name] => t(rt, Some(ns), Some(name), None),
                    [name, sub] => t(rt, Some(ns), Some(name), Some(sub)),
                    _ => Route::NotFoundStatus,
                }
            }
            [res, tail @ ..] => {
                let Some(rt) = lookup(res) else { return Route::NotFoundStatus };
                match (rt.namespaced, tail) {
                    (_, []) => t(rt, None, None, None),
                    (false, [name]) => t(rt, None, Some(name), None),
                    (false, [name, sub]) => t(rt, None, Some(name), Some(sub)),
                    (false, [name, "proxy", rest @ ..]) if rt.has(Side::Proxy) => connect(rt, None, name, rest),
                    _ => Route::NotFoundStatus,
                }
            }
            _ => Route::NotFoundStatus,
        }
    }
}
