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
/// as its message (Go's HTTP client's words for a refused connection). A
/// GET's answer is typed; a list's items are not.
fn status(name: &str, port: Option<u16>, up: bool, typed: bool) -> Value {
    let condition = if up {
        json!({"type": "Healthy", "status": "True", "message": "ok"})
    } else {
        let port = port.unwrap_or_default();
        let message =
            format!("Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: connect: connection refused");
        json!({"type": "Healthy", "status": "False", "message": message})
    };
    let metadata = json!({"name": name, "creationTimestamp": null});
    match typed {
        true => json!({"kind": "ComponentStatus", "apiVersion": "v1", "metadata": metadata, "conditions": [condition]}),
        false => json!({"metadata": metadata, "conditions": [condition]}),
    }
}

impl Server {
    /// Which components answer their health checks (the door that runs
    /// the controllers says so; none do until it does).
    pub fn set_components(&mut self, components: Components) {
        self.components = components;
    }

    /// Whether a component's health endpoint answers (etcd is the store).
    fn is_up(&self, name: &str) -> bool {
        match name {
            "scheduler" => self.components.scheduler,
            "controller-manager" => self.components.controller_manager,
            _ => true,
        }
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
            return Err(Status::method_not_supported(t.rt.group(), t.rt.resource(), "watch"));
        }
        if let Some(name) = &t.name {
            let Some(&(name, port)) = PROBED.iter().find(|(n, _)| n == name) else {
                return Err(Status::failure(500, "", format!("Component not found: {name}")));
            };
            return Ok(answer(status(name, port, self.is_up(name), true)));
        }
        // Upstream's default field label conversion: both metadata fields,
        // the namespace always empty; no labels.
        let (label, field) = selectors(&t.rt, opts)?;
        let items: Vec<Value> = PROBED
            .iter()
            .filter(|(name, _)| {
                label.matches(&[])
                    && field.matches(|f| match f {
                        "metadata.name" => Some(*name),
                        "metadata.namespace" => Some(""),
                        _ => None,
                    })
            })
            .map(|&(name, port)| status(name, port, self.is_up(name), false))
            .collect();
        Ok(answer(json!({"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {}, "items": items})))
    }
}
