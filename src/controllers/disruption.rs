//! The disruption controller (kube-controller-manager's `disruption`), a
//! client: keeps each PodDisruptionBudget's status, which the eviction
//! subresource reads.
//!
//! The pods a budget selects (policy/v1: an empty selector selects the
//! whole namespace, none selects no pod) that are not finished are expected; those Ready and
//! not being deleted are healthy; `minAvailable` (a number or a percentage
//! of the expected, rounded up) or `maxUnavailable` (subtracted from the
//! expected) gives the desired healthy count, and `disruptionsAllowed` is
//! what the healthy exceed it by. The status (`currentHealthy`,
//! `desiredHealthy`, `expectedPods`, `disruptionsAllowed`,
//! `observedGeneration`, the `DisruptionAllowed` condition with
//! `SufficientPods`/`InsufficientPods`) is written through `/status`;
//! evicted pods leave `disruptedPods` once they are gone. A budget that
//! selects no pod is told so (Normal `NoPods`, `No matching pods found`,
//! from `controllermanager`) each time it changes, as upstream's sync
//! tells it on each of the budget's updates.
//!
//! Upstream counts the expected pods from the scale of their controllers
//! when a percentage or maxUnavailable is used; here from the pods
//! themselves (docs/fidelity.md).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{collection, is_ready, meta_str, selects};
use super::{Controller, Progress};
use crate::selector::LabelSelector;

pub struct DisruptionController {
    budgets: Informer,
    pods: Informer,
    recorder: Recorder,
    /// Each budget (by uid) last told it selects no pod, at its
    /// resourceVersion then.
    told: std::collections::BTreeMap<String, String>,
}

impl Default for DisruptionController {
    fn default() -> Self {
        DisruptionController {
            budgets: Informer::new("/apis/policy/v1/poddisruptionbudgets"),
            pods: Informer::new("/api/v1/pods"),
            recorder: Recorder::new("controllermanager", ""),
            told: std::collections::BTreeMap::new(),
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
            for pdb in &budgets {
                self.sync(client, pdb);
            }
            if !self.told.is_empty() {
                self.told.retain(|uid, _| budgets.iter().any(|b| meta_str(b, "uid") == uid.as_str()));
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
        // No selector selects no pod (`LabelSelectorAsSelector` of nil).
        let given = pdb["spec"].get("selector").filter(|s| s.is_object());
        let text = crate::selector::label_selector_string(given);
        let Ok(selector) = LabelSelector::parse(&text) else { return };
        let matching: Vec<&Value> = self
            .pods
            .objects()
            .filter(|p| given.is_some() && meta_str(p, "namespace") == ns && selects(&selector, p))
            .collect();
        if matching.is_empty() {
            let (uid, rv) = (meta_str(pdb, "uid"), meta_str(pdb, "resourceVersion"));
            if self.told.get(uid).map(String::as_str) != Some(rv) {
                self.told.insert(uid.to_string(), rv.to_string());
                let kind = ("policy/v1", "PodDisruptionBudget");
                let message = "No matching pods found";
                self.recorder.event(client, pdb, kind, "", EventType::Normal, "NoPods", message);
            }
        }
        let pods: Vec<&Value> = matching
            .into_iter()
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
