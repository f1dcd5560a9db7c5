//! The resource quota controller (kube-controller-manager's
//! `resourcequota`), a client: keeps each ResourceQuota's status, which
//! the ResourceQuota admission reads. `status.hard` is a copy of
//! `spec.hard`; `status.used` has every hard name, each the sum of what
//! the namespace's objects in the quota's scopes use of it (zero when none
//! does; a name no evaluator sums keeps what it had), written through
//! `/status` when it differs.
//!
//! It watches the quotas and, for the resources their hard names track,
//! those resources' objects (found through discovery for
//! `count/<resource>.<group>`), and sums again whenever any of them
//! changed. Upstream sums again on deletions and on the updates that
//! change usage, and every five minutes; admission charges creates as
//! they happen, so both agree on what a namespace holds.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{ApiResource, Client};
use super::informer::Informer;
use super::object::meta_str;
use super::{Controller, Progress};
use crate::api::quantity::Quantity;
use crate::quota::{amounts, masked, tracked_by, written, Evaluator, Usage};

pub struct ResourceQuotaController {
    quotas: Informer,
    /// An informer per tracked resource, by (group, plural).
    tracked: BTreeMap<(String, String), Informer>,
    /// What discovery listed, when a group's resource was asked for.
    discovered: Option<Vec<ApiResource>>,
}

impl Default for ResourceQuotaController {
    fn default() -> Self {
        ResourceQuotaController {
            quotas: Informer::new("/api/v1/resourcequotas"),
            tracked: BTreeMap::new(),
            discovered: None,
        }
    }
}

impl Controller for ResourceQuotaController {
    fn name(&self) -> &'static str {
        "resourcequota"
    }

    fn service_account(&self) -> &'static str {
        "resourcequota-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let quotas_changed = self.quotas.sync(client);
        // A cluster without quotas costs a watch and nothing more.
        if self.quotas.objects().next().is_some() {
            self.sync_all(client, quotas_changed);
        }
        Progress { writes: client.writes - before }
    }
}

impl ResourceQuotaController {
    /// Catches up the tracked resources (started for new hard names when
    /// the quotas changed) and writes every quota whose status differs.
    #[inline(never)]
    fn sync_all(&mut self, client: &mut Client<'_>, quotas_changed: bool) {
        if quotas_changed {
            self.track(client);
        }
        let mut changed = quotas_changed;
        for informer in self.tracked.values_mut() {
            changed |= informer.sync(client);
        }
        if changed {
            let quotas: Vec<Arc<Value>> = self.quotas.shared().cloned().collect();
            for q in quotas {
                self.sync(client, &q);
            }
        }
    }

    /// Starts an informer for every resource a quota's hard names track.
    fn track(&mut self, client: &mut Client<'_>) {
        let wanted: Vec<(String, String)> = self
            .quotas
            .objects()
            .flat_map(|q| q.pointer("/spec/hard").and_then(Value::as_object).into_iter().flatten())
            .filter_map(|(k, _)| tracked_by(k))
            .filter(|gr| *gr != (String::new(), "resourcequotas".to_string()))
            .collect();
        for (group, resource) in wanted {
            if self.tracked.contains_key(&(group.clone(), resource.clone())) {
                continue;
            }
            let path = if group.is_empty() {
                Some(format!("/api/v1/{resource}"))
            } else {
                let find = |d: &[ApiResource]| {
                    d.iter().find(|r| r.group == group && r.resource == resource).map(|r| r.collection(None))
                };
                match self.discovered.as_deref().and_then(find) {
                    Some(p) => Some(p),
                    None => {
                        // A resource discovery did not list before (a
                        // definition added since) is looked for again.
                        let d = client.discover();
                        let p = find(&d);
                        self.discovered = Some(d);
                        p
                    }
                }
            };
            if let Some(p) = path {
                self.tracked.insert((group, resource), Informer::new(p));
            }
        }
    }

    /// The objects of a tracked resource in a namespace.
    fn objects<'a>(&'a self, group: &str, resource: &str, ns: &'a str) -> Vec<&'a Arc<Value>> {
        if group.is_empty() && resource == "resourcequotas" {
            return self.quotas.in_namespace(ns).collect();
        }
        match self.tracked.get(&(group.to_string(), resource.to_string())) {
            Some(i) => i.in_namespace(ns).collect(),
            None => Vec::new(),
        }
    }

    fn sync(&mut self, client: &mut Client<'_>, quota: &Value) {
        if !quota["metadata"]["deletionTimestamp"].is_null() {
            return;
        }
        let ns = meta_str(quota, "namespace");
        let hard = amounts(quota.pointer("/spec/hard"));
        let old_used = amounts(quota.pointer("/status/used"));
        // What no evaluator sums keeps what it had.
        let mut used = masked(&old_used, &|k| hard.contains_key(k));
        let mut resources: Vec<(String, String)> = hard.keys().filter_map(|k| tracked_by(k)).collect();
        resources.dedup();
        let now = client.now_millis();
        let mut done: Vec<(String, String)> = Vec::new();
        for (group, resource) in resources {
            if done.contains(&(group.clone(), resource.clone())) {
                continue;
            }
            let Some(eval) = Evaluator::of(&group, &resource) else { continue };
            let matched = eval.matching(hard.keys().map(String::as_str));
            let mut sum = Usage::new();
            for k in &matched {
                sum.insert(k.to_string(), Quantity::ZERO);
            }
            for obj in self.objects(&group, &resource, ns) {
                if !eval.in_scopes(quota, obj) {
                    continue;
                }
                for (k, q) in eval.usage(obj, now) {
                    if let Some(s) = sum.get_mut(&k) {
                        s.add(q);
                    }
                }
            }
            for (k, q) in sum {
                used.insert(k, q);
            }
            done.push((group, resource));
        }
        let status = json!({"hard": written(&hard), "used": written(&used)});
        if quota["status"] == status {
            return;
        }
        let mut body = quota.clone();
        body["status"] = status;
        body["kind"] = json!("ResourceQuota");
        body["apiVersion"] = json!("v1");
        let path = format!("/api/v1/namespaces/{ns}/resourcequotas/{}/status", meta_str(quota, "name"));
        client.write("PUT", &path, "application/json", &body);
    }
}
