//! `/metrics`: what kube-apiserver's instrumentation counts, in the
//! Prometheus text format (0.0.4) its client library writes, each help
//! text led by the metric's stability level as Kubernetes' component-base
//! writes it. Kept per server (tests run many); the object counts are
//! read at scrape time, as upstream's storage check reads them.

use prometheus::core::Collector;
use prometheus::{Encoder, IntCounterVec, IntGaugeVec, Opts, Registry, TextEncoder};

use crate::auth::Attributes;
use crate::registry::options::ListOptions;

pub(super) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";

/// (A metric the library would refuse — it cannot, the names and labels
/// are fixed — is left out rather than panicking.)
pub(super) struct Metrics {
    registry: Registry,
    requests: Option<IntCounterVec>,
    dispatched: Option<IntCounterVec>,
}

fn counter(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> Option<IntCounterVec> {
    let c = IntCounterVec::new(Opts::new(name, help), labels).ok()?;
    registry.register(Box::new(c.clone())).ok()?;
    Some(c)
}

impl Default for Metrics {
    fn default() -> Metrics {
        let registry = Registry::new();
        let requests = counter(
            &registry,
            "apiserver_request_total",
            "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
            &["code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"],
        );
        let dispatched = counter(
            &registry,
            "apiserver_flowcontrol_dispatched_requests_total",
            "[BETA] Number of requests executed by API Priority and Fairness subsystem",
            &["flow_schema", "priority_level"],
        );
        Metrics { registry, requests, dispatched }
    }
}

/// The verb upstream reports: the method, with GET split into LIST, WATCH
/// and GET, and a server-side apply as APPLY.
fn reported_verb(method: &str, a: &Attributes, content_type: &str) -> String {
    match (method, a.verb.as_str()) {
        ("GET" | "HEAD", "list") => "LIST".into(),
        ("GET" | "HEAD", "watch") => "WATCH".into(),
        ("PATCH", _) if content_type.starts_with("application/apply-patch") => "APPLY".into(),
        (m, _) => m.to_ascii_uppercase(),
    }
}

impl Metrics {
    /// One request answered.
    pub(super) fn record(&self, method: &str, query: &str, content_type: &str, a: &Attributes, code: u16) {
        let scope = if !a.resource_request {
            ""
        } else if !a.name.is_empty() {
            "resource"
        } else if !a.namespace.is_empty() {
            "namespace"
        } else {
            "cluster"
        };
        let dry_run = form_urlencoded::parse(query.as_bytes())
            .filter(|(k, _)| k == "dryRun")
            .map(|(_, v)| v.into_owned())
            .collect::<Vec<_>>()
            .join(",");
        let code = code.to_string();
        let verb = reported_verb(method, a, content_type);
        let component = "apiserver";
        let labels: [&str; 9] = if a.resource_request {
            [&code, component, &dry_run, &a.api_group, &a.resource, scope, &a.subresource, &verb, &a.api_version]
        } else {
            // (Upstream names a non-resource endpoint by its path in the
            // subresource label: `/healthz`, `/metrics`.)
            [&code, component, &dry_run, "", "", "", &a.path, &verb, ""]
        };
        if let Some(c) = &self.requests {
            c.with_label_values(&labels).inc();
        }
    }

    /// One request classified and dispatched (at once: nothing waits).
    pub(super) fn dispatched(&self, flow_schema: &str, priority_level: &str) {
        if let Some(c) = &self.dispatched {
            c.with_label_values(&[flow_schema, priority_level]).inc();
        }
    }

    /// The text of a scrape, with the stored objects counted now.
    pub(super) fn render(&self, objects: &[(String, i64)]) -> Vec<u8> {
        let stored = IntGaugeVec::new(
            Opts::new(
                "apiserver_storage_objects",
                "[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
            ),
            &["resource"],
        );
        let mut families = self.registry.gather();
        if let Ok(stored) = stored {
            for (resource, n) in objects {
                stored.with_label_values(&[resource]).set(*n);
            }
            families.extend(stored.collect());
        }
        families.sort_by(|a, b| a.name().cmp(b.name()));
        let mut out = Vec::new();
        let _ = TextEncoder::new().encode(&families, &mut out);
        out
    }
}

impl super::Server {
    /// Each served resource's stored object count (`resource.group`).
    pub(super) fn object_counts(&self) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for rt in self.registry.resources().iter() {
            if rt.stored_as.is_some() || !rt.serves(crate::registry::options::Verb::List) {
                continue;
            }
            let name = if rt.group().is_empty() {
                rt.resource().to_string()
            } else {
                format!("{}.{}", rt.resource(), rt.group())
            };
            if !seen.insert(name.clone()) {
                continue;
            }
            let opts = ListOptions { limit: Some(1), ..Default::default() };
            let n = match self.registry.list(rt, None, &opts) {
                Ok(l) => l.items.len() as i64 + l.remaining.unwrap_or(0) as i64,
                Err(_) => -1,
            };
            out.push((name, n));
        }
        out
    }
}
