//! The disruption controller (kube-controller-manager's `disruption`), a
//! client: keeps each PodDisruptionBudget's status, which the eviction
//! subresource reads.
//!
//! The pods a budget selects (policy/v1: an empty selector selects the
//! whole namespace) that are not finished are expected; those Ready and
//! not being deleted are healthy; `minAvailable` (a number or a percentage
//! of the expected, rounded up) or `maxUnavailable` (subtracted from the
//! expected) gives the desired healthy count, and `disruptionsAllowed` is
//! what the healthy exceed it by. The status (`currentHealthy`,
//! `desiredHealthy`, `expectedPods`, `disruptionsAllowed`,
//! `observedGeneration`, the `DisruptionAllowed` condition with
//! `SufficientPods`/`InsufficientPods`) is written through `/status`;
//! evicted pods leave `disruptedPods` once they are gone.
//!
//! Upstream counts the expected pods from the scale of their controllers
//! when a percentage or maxUnavailable is used; here from the pods
//! themselves (docs/fidelity.md).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::{collection, is_ready, meta_str, selects};
use super::{Controller, Progress};
use crate::selector::LabelSelector;

pub struct DisruptionController {
    budgets: Informer,
    pods: Informer,
}

impl Default for DisruptionController {
    fn default() -> Self {
        DisruptionController {
            budgets: Informer::new("/apis/policy/v1/poddisruptionbudgets"),
            pods: Informer::new("/api/v1/pods"),
        }
    }
}

impl Controller for DisruptionController {
    fn name(&self) -> &'static str {
        "disruption"
    }

    fn service_account(&self) -> &'static str {
        "disruption-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if self.budgets.sync(client) | self.pods.sync(client) {
            let budgets: Vec<Arc<Value>> = self.budgets.shared().cloned().collect();
            for pdb in budgets {
                self.sync(client, &pdb);
            }
        }
        Progress { writes: client.writes - before }
    }
}

/// An int-or-percent of `total` (percentages round up).
fn scaled_up(v: &Value, total: i64) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.strip_suffix('%')?.parse::<i64>().ok().map(|p| (p * total + 99).div_euclid(100)),
        _ => None,
    }
}

impl DisruptionController {
    /// One budget's pass. (Never inlined into `reconcile`, which every
    /// module runs at start with no budgets: this part is loaded second.)
    #[inline(never)]
    fn sync(&mut self, client: &mut Client<'_>, pdb: &Value) {
        let ns = meta_str(pdb, "namespace");
        let text = crate::selector::label_selector_string(pdb["spec"].get("selector"));
        let Ok(selector) = LabelSelector::parse(&text) else { return };
        let pods: Vec<&Value> = self
            .pods
            .objects()
            .filter(|p| meta_str(p, "namespace") == ns && selects(&selector, p))
            .filter(|p| !matches!(p["status"]["phase"].as_str(), Some("Succeeded") | Some("Failed")))
            .collect();
        let expected = pods.len() as i64;
        let healthy =
            pods.iter().filter(|p| is_ready(p) && p["metadata"]["deletionTimestamp"].is_null()).count() as i64;
        let desired = if let Some(min) = scaled_up(&pdb["spec"]["minAvailable"], expected) {
            min
        } else if let Some(max) = scaled_up(&pdb["spec"]["maxUnavailable"], expected) {
            (expected - max).max(0)
        } else {
            expected
        };
        let allowed = (healthy - desired).max(0);
        let mut status = Map::new();
        // Evicted pods stay listed until they are gone.
        let disrupted: Map<String, Value> = pdb["status"]["disruptedPods"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(name, _)| {
                        pods.iter().any(|p| {
                            meta_str(p, "name") == name.as_str() && p["metadata"]["deletionTimestamp"].is_null()
                        })
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if !disrupted.is_empty() {
            status.insert("disruptedPods".into(), Value::Object(disrupted));
        }
        let generation = pdb["metadata"]["generation"].clone();
        status.insert("disruptionsAllowed".into(), json!(allowed));
        status.insert("currentHealthy".into(), json!(healthy));
        status.insert("desiredHealthy".into(), json!(desired));
        status.insert("expectedPods".into(), json!(expected));
        status.insert("observedGeneration".into(), generation.clone());
        let (st, reason) = if allowed > 0 { ("True", "SufficientPods") } else { ("False", "InsufficientPods") };
        let transition = pdb["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "DisruptionAllowed" && c["status"] == st))
            .map(|c| c["lastTransitionTime"].clone())
            .unwrap_or_else(|| json!(client.now_rfc3339()));
        status.insert(
            "conditions".into(),
            json!([{"type": "DisruptionAllowed", "status": st, "observedGeneration": generation,
                "lastTransitionTime": transition, "reason": reason, "message": ""}]),
        );
        let status = Value::Object(status);
        if pdb["status"] == status {
            return;
        }
        let mut body = pdb.clone();
        body["status"] = status;
        body["kind"] = json!("PodDisruptionBudget");
        body["apiVersion"] = json!("policy/v1");
        let path = format!("{}/{}/status", collection("policy/v1", ns, "poddisruptionbudgets"), meta_str(pdb, "name"));
        client.write("PUT", &path, "application/json", &body);
    }
}
