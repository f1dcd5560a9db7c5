//! `componentstatuses` (core/v1 ComponentStatus, deprecated since 1.19 and
//! still served): kube-apiserver probes the scheduler's and the controller
//! manager's `/healthz` and its etcd on every read, and answers what it
//! found; nothing is stored. Here the door that runs the controllers says
//! which of the two components answer (`Server::set_components`: a paused
//! or absent controller manager is one whose port refuses connections), and
//! etcd is the store, always there.
//!
//! As upstream: `get` and `list` only (a watch is 405), no resourceVersion
//! on the list or its items (`creationTimestamp: null`), labels none (a
//! label selector that needs one selects nothing), field selectors on
//! `metadata.name` and `metadata.namespace`, an unknown name a 500 without
//! a reason (upstream's storage returns a plain error), and every answer
//! with the deprecation warning. Upstream lists the components in the order
//! their probes finish; here they are in name order.

use serde_json::{json, Value};

use super::{Served, Server, Target, Warnings};
use crate::api::status::StatusDetails;
use crate::api::Status;
use crate::registry::options::ListOptions;
use crate::registry::store::{selectors, Body};

/// Which components' health endpoints answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Components {
    pub scheduler: bool,
    pub controller_manager: bool,
}

/// The warning every answer carries (the type's deprecation, 1.19).
const DEPRECATED: &str = "v1 ComponentStatus is deprecated in v1.19+";

/// Each component's name, and the health endpoint kube-apiserver probes.
const PROBED: [(&str, Option<u16>); 3] =
    [("controller-manager", Some(10257)), ("etcd-0", None), ("scheduler", Some(10259))];

pub(super) fn is_component_status(t: &Target) -> bool {
    t.rt.group().is_empty() && t.rt.resource() == "componentstatuses"
}

/// One component's status as upstream reports it: a `Healthy` condition,
/// True with the endpoint's answer (`ok`), or False with the probe's error
/// as its message (Go's HTTP client's words for a refused connection).
fn status(name: &str, port: Option<u16>, up: bool) -> Value {
    let condition = if up {
        json!({"type": "Healthy", "status": "True", "message": "ok"})
    } else {
        let port = port.unwrap_or_default();
        let message =
            format!("Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: connect: connection refused");
        json!({"type": "Healthy", "status": "False", "message": message})
    };
    json!({"metadata": {"name": name, "creationTimestamp": null}, "conditions": [condition]})
}

impl Server {
    /// Which components answer their health checks (the door that runs
    /// the controllers says so; none do until it does).
    pub fn set_components(&mut self, components: Components) {
        self.components = components;
    }

    fn component_statuses(&self) -> impl Iterator<Item = Value> + '_ {
        PROBED.iter().map(|&(name, port)| {
            let up = match name {
                "scheduler" => self.components.scheduler,
                "controller-manager" => self.components.controller_manager,
                _ => true,
            };
            status(name, port, up)
        })
    }

    /// GET of `componentstatuses` or one of them.
    #[inline(never)]
    pub(super) fn component_status(
        &self,
        t: &Target,
        opts: &ListOptions,
        warnings: &mut Warnings,
    ) -> Result<Served, Status> {
        warnings.push(DEPRECATED.into());
        let warnings = std::mem::take(warnings);
        let answer =
            |v: Value| Served::Response(super::with_warnings(super::body_response(200, Body::Value(v)), warnings));
        if opts.watch {
            return Err(method_not_supported(t, "watch"));
        }
        if let Some(name) = &t.name {
            let mut found = self.component_statuses().find(|s| s.pointer("/metadata/name") == Some(&json!(name)));
            let Some(Value::Object(m)) = found.as_mut() else {
                return Err(Status::failure(500, "", format!("Component not found: {name}")));
            };
            let mut typed = serde_json::Map::new();
            typed.insert("kind".into(), json!("ComponentStatus"));
            typed.insert("apiVersion".into(), json!("v1"));
            typed.extend(std::mem::take(m));
            return Ok(answer(Value::Object(typed)));
        }
        // Upstream's default field label conversion: both metadata fields,
        // the namespace always empty.
        let (label, field) = selectors(&t.rt, opts)?;
        let items: Vec<Value> = self
            .component_statuses()
            .filter(|s| {
                let name = s.pointer("/metadata/name").and_then(Value::as_str);
                label.matches(&[])
                    && field.matches(|f| match f {
                        "metadata.name" => name,
                        "metadata.namespace" => Some(""),
                        _ => None,
                    })
            })
            .collect();
        Ok(answer(json!({"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {}, "items": items})))
    }
}

/// 405 for a verb the storage lacks, as upstream's `NewMethodNotSupported`.
fn method_not_supported(t: &Target, action: &str) -> Status {
    let (group, resource) = (t.rt.group(), t.rt.resource());
    let qualified = if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") };
    let mut s = Status::failure(
        405,
        "MethodNotAllowed",
        format!("{action} is not supported on resources of kind {qualified:?}"),
    );
    s.details = Some(StatusDetails { group: group.into(), kind: resource.into(), ..Default::default() });
    s
}
