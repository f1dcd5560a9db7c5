//! The horizontal pod autoscaler (kube-controller-manager's
//! `horizontal-pod-autoscaler`), a client: every 15 seconds of simulated
//! time (upstream's `--horizontal-pod-autoscaler-sync-period`; a new or
//! changed autoscaler waits its turn too, as upstream's queue adds every
//! key with that delay) each HorizontalPodAutoscaler reads its target's
//! `/scale`, keeps the replicas within `minReplicas`..`maxReplicas`
//! (writing the scale back, with upstream's `SuccessfulRescale` event and
//! reasons), and otherwise checks the scale's selector (present, valid,
//! and selecting no pod another autoscaler's selector selects: upstream's
//! `SelectorRequired`, `InvalidSelector`, `AmbiguousSelector`) and asks for
//! its metrics.
//!
//! The cluster has no metrics API (no metrics-server, no custom or
//! external metrics adapter), so every metric fails as it fails upstream
//! without one: `FailedGet*Metric` and `FailedComputeMetricsReplicas`
//! warnings, `ScalingActive=False`, each metric's current value unknown;
//! the replica count is left alone. The status (current and desired
//! replicas, current metrics, `AbleToScale`/`ScalingActive` conditions,
//! the last scale time) is written through `/status` when it changed.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::meta_str;
use super::{Controller, Progress};
use crate::clock::SimTime;
use crate::selector::LabelSelector;

/// Upstream's sync period.
const SYNC_MS: i64 = 15_000;

const KIND: (&str, &str) = ("autoscaling/v2", "HorizontalPodAutoscaler");

pub struct HorizontalPodAutoscalerController {
    hpas: Informer,
    recorder: Recorder,
    /// When each autoscaler (namespace/name) is next synced.
    due: BTreeMap<String, SimTime>,
    /// The resource of each (apiVersion, kind) a target named, read from
    /// discovery on a miss (upstream's REST mapper caches it too).
    resources: BTreeMap<(String, String), String>,
    /// The selector of each autoscaler's target at its last pass, by
    /// namespace/name (upstream's `hpaSelectors`): who controls a pod.
    selectors: BTreeMap<String, String>,
}

impl Default for HorizontalPodAutoscalerController {
    fn default() -> Self {
        HorizontalPodAutoscalerController {
            hpas: Informer::new("/apis/autoscaling/v2/horizontalpodautoscalers"),
            recorder: Recorder::new("horizontal-pod-autoscaler", ""),
            due: BTreeMap::new(),
            resources: BTreeMap::new(),
            selectors: BTreeMap::new(),
        }
    }
}

impl Controller for HorizontalPodAutoscalerController {
    fn name(&self) -> &'static str {
        "horizontal-pod-autoscaler"
    }

    fn service_account(&self) -> &'static str {
        "horizontal-pod-autoscaler"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.hpas.sync(client);
        if changed || !self.due.is_empty() {
            self.sync_due(client);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.due.values().min().copied()
    }
}

impl HorizontalPodAutoscalerController {
    /// The autoscalers whose turn it is. (Never inlined into `reconcile`,
    /// which every module runs at start with no autoscalers: this part is
    /// loaded second.)
    #[inline(never)]
    fn sync_due(&mut self, client: &mut Client<'_>) {
        let now = SimTime(client.now_millis());
        let hpas: Vec<Arc<Value>> = self.hpas.shared().cloned().collect();
        let key = |h: &Value| format!("{}/{}", meta_str(h, "namespace"), meta_str(h, "name"));
        let present: std::collections::BTreeSet<String> = hpas.iter().map(|h| key(h)).collect();
        self.due.retain(|k, _| present.contains(k));
        self.selectors.retain(|k, _| present.contains(k));
        for hpa in &hpas {
            let due = *self.due.entry(key(hpa)).or_insert(now.plus_millis(SYNC_MS));
            if due <= now {
                self.due.insert(key(hpa), now.plus_millis(SYNC_MS));
                self.sync(client, hpa);
            }
        }
    }

    fn warn(&mut self, client: &mut Client<'_>, hpa: &Value, reason: &str, message: &str) {
        self.recorder.event(client, hpa, KIND, "", EventType::Warning, reason, message);
    }

    /// One autoscaler's pass, as upstream's `reconcileAutoscaler`.
    fn sync(&mut self, client: &mut Client<'_>, hpa: &Value) {
        let now = client.now_rfc3339();
        let mut status = hpa["status"].as_object().cloned().unwrap_or_default();
        let original = Value::Object(status.clone());
        let condition = |status: &mut Map<String, Value>, kind: &str, ok: bool, reason: &str, message: String| {
            let cond = json!({"type": kind, "status": if ok { "True" } else { "False" }, "lastTransitionTime": null,
                "reason": reason, "message": message});
            crate::api::meta::set_condition(status, cond, &now);
        };
        let spec = &hpa["spec"];
        let (scale_path, mut scale) = match self.scale(client, hpa) {
            Ok(found) => found,
            Err(e) => {
                self.warn(client, hpa, "FailedGetScale", &e);
                let message = format!("the HPA controller was unable to get the target's current scale: {e}");
                condition(&mut status, "AbleToScale", false, "FailedGetScale", message);
                self.write_status(client, hpa, status, &original);
                return;
            }
        };
        let message = "the HPA controller was able to get the target's current scale".to_string();
        condition(&mut status, "AbleToScale", true, "SucceededGetScale", message);
        let current = scale["spec"]["replicas"].as_i64().unwrap_or(0);
        let min = spec["minReplicas"].as_i64().unwrap_or(1);
        let max = spec["maxReplicas"].as_i64().unwrap_or(0);
        let (desired, reason) = if current == 0 && min != 0 {
            let message = "scaling is disabled since the replica count of the target is zero".to_string();
            condition(&mut status, "ScalingActive", false, "ScalingDisabled", message);
            (0, "")
        } else if current > max {
            (max, "Current number of replicas above Spec.MaxReplicas")
        } else if current < min {
            (min, "Current number of replicas below Spec.MinReplicas")
        } else if let Some(p) = self.selector_problem(client, hpa, &scale) {
            // As upstream's `validateAndParseSelector`: the metrics are not
            // asked for.
            self.warn(client, hpa, p.reason, &p.message);
            condition(&mut status, "ScalingActive", false, p.condition, p.condition_message);
            status.insert("currentReplicas".into(), json!(current));
            status.insert("currentMetrics".into(), Value::Null);
            self.write_status(client, hpa, status, &original);
            self.warn(client, hpa, "FailedComputeMetricsReplicas", &p.message);
            return;
        } else {
            // Every metric fails: there is no metrics API to ask.
            let specs = spec["metrics"].as_array().cloned().unwrap_or_default();
            let failures: Vec<MetricFailure> = specs.iter().map(metric_failure).collect();
            for f in &failures {
                self.warn(client, hpa, f.reason, &f.message);
            }
            if let Some(f) = failures.first() {
                let condition_message = format!("the HPA was unable to compute the replica count: {}", f.message);
                condition(&mut status, "ScalingActive", false, f.reason, condition_message);
            }
            status.insert("currentReplicas".into(), json!(current));
            status.insert("currentMetrics".into(), json!(vec![json!({"type": ""}); specs.len()]));
            self.write_status(client, hpa, status, &original);
            if let Some(f) = failures.first() {
                let n = failures.len();
                let text = format!("invalid metrics ({n} invalid out of {n}), first error is: {}", f.wrapped);
                self.warn(client, hpa, "FailedComputeMetricsReplicas", &text);
            }
            return;
        };
        let rescale = desired != current;
        if rescale {
            scale["spec"]["replicas"] = json!(desired);
            let r = client.write("PUT", &scale_path, "application/json", &scale);
            if r.status != 200 {
                let e = status_message(&r.json_body());
                let text = format!("New size: {desired}; reason: {reason}; error: {e}");
                self.warn(client, hpa, "FailedRescale", &text);
                let message = format!("the HPA controller was unable to update the target scale: {e}");
                condition(&mut status, "AbleToScale", false, "FailedUpdateScale", message);
                status.insert("currentReplicas".into(), json!(current));
                status.insert("currentMetrics".into(), Value::Null);
                self.write_status(client, hpa, status, &original);
                return;
            }
            let message = format!("the HPA controller was able to update the target scale to {desired}");
            condition(&mut status, "AbleToScale", true, "SucceededRescale", message);
            let text = format!("New size: {desired}; reason: {reason}");
            self.recorder.event(client, hpa, KIND, "", EventType::Normal, "SuccessfulRescale", &text);
            status.insert("lastScaleTime".into(), json!(client.now_rfc3339()));
        }
        status.insert("currentReplicas".into(), json!(current));
        status.insert("desiredReplicas".into(), json!(if rescale { desired } else { current }));
        status.insert("currentMetrics".into(), Value::Null);
        self.write_status(client, hpa, status, &original);
    }

    /// A PUT of `/status` when the status changed.
    fn write_status(&mut self, client: &mut Client<'_>, hpa: &Value, mut status: Map<String, Value>, original: &Value) {
        // In the order Go writes the struct.
        const ORDER: &[&str] = &[
            "observedGeneration",
            "lastScaleTime",
            "currentReplicas",
            "desiredReplicas",
            "currentMetrics",
            "conditions",
        ];
        let mut ordered = Map::new();
        for f in ORDER {
            if let Some(v) = status.shift_remove(*f) {
                ordered.insert(f.to_string(), v);
            }
        }
        ordered.extend(status);
        let status = Value::Object(ordered);
        if crate::api::meta::same(&status, original) {
            return;
        }
        let mut updated = hpa.clone();
        updated["status"] = status;
        let path = format!(
            "/apis/autoscaling/v2/namespaces/{}/horizontalpodautoscalers/{}/status",
            meta_str(hpa, "namespace"),
            meta_str(hpa, "name")
        );
        let r = client.write("PUT", &path, "application/json", &updated);
        if r.status != 200 {
            let e = status_message(&r.json_body());
            self.warn(client, hpa, "FailedUpdateStatus", &e);
        }
    }
}

fn status_message(body: &Value) -> String {
    body["message"].as_str().unwrap_or("").to_string()
}

impl HorizontalPodAutoscalerController {
    /// The target's `/scale` (its path and the Scale read), found as
    /// upstream's REST mapper finds it: by the reference's group, version
    /// and kind, discovery read again only for one not seen before.
    fn scale(&mut self, client: &mut Client<'_>, hpa: &Value) -> Result<(String, Value), String> {
        let r = &hpa["spec"]["scaleTargetRef"];
        let (kind, name) = (r["kind"].as_str().unwrap_or(""), r["name"].as_str().unwrap_or(""));
        let api_version = r["apiVersion"].as_str().unwrap_or("");
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let no_match = || format!("no matches for kind \"{kind}\" in group \"{group}\"");
        if version.is_empty() {
            return Err(no_match());
        }
        let base = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") };
        let key = (api_version.to_string(), kind.to_string());
        if !self.resources.contains_key(&key) {
            let list = client.get(&base).json_body();
            for x in list["resources"].as_array().into_iter().flatten() {
                let (Some(k), Some(resource)) = (x["kind"].as_str(), x["name"].as_str()) else { continue };
                if !resource.contains('/') {
                    self.resources.insert((api_version.to_string(), k.to_string()), resource.to_string());
                }
            }
        }
        let Some(resource) = self.resources.get(&key) else { return Err(no_match()) };
        let path = format!("{base}/namespaces/{}/{resource}/{name}/scale", meta_str(hpa, "namespace"));
        let r = client.get(&path);
        match r.status {
            200 => Ok((path, r.json_body())),
            _ => Err(status_message(&r.json_body())),
        }
    }
}

/// What is wrong with a target's selector: the event's reason and message
/// (the error too), the condition's reason and message.
struct SelectorProblem {
    reason: &'static str,
    message: String,
    condition: &'static str,
    condition_message: String,
}

impl HorizontalPodAutoscalerController {
    /// The scale's selector checked as upstream's `validateAndParseSelector`
    /// checks it: present, parsed, and its pods selected by this
    /// autoscaler's selector alone among the namespace's (the others' as
    /// their last pass found them). The pods are read only when another
    /// autoscaler of the namespace has a selector.
    fn selector_problem(&mut self, client: &mut Client<'_>, hpa: &Value, scale: &Value) -> Option<SelectorProblem> {
        let selector = scale["status"]["selector"].as_str().unwrap_or("");
        if selector.is_empty() {
            return Some(SelectorProblem {
                reason: "SelectorRequired",
                message: "selector is required".into(),
                condition: "InvalidSelector",
                condition_message: "the HPA target's scale is missing a selector".into(),
            });
        }
        if let Err(e) = LabelSelector::parse(selector) {
            let message = format!("couldn't convert selector into a corresponding internal selector object: {e}");
            return Some(SelectorProblem {
                reason: "InvalidSelector",
                message: message.clone(),
                condition: "InvalidSelector",
                condition_message: message,
            });
        }
        let ns = meta_str(hpa, "namespace");
        let prefix = format!("{ns}/");
        self.selectors.insert(format!("{prefix}{}", meta_str(hpa, "name")), selector.to_string());
        let mine: Vec<(&str, LabelSelector)> = self
            .selectors
            .iter()
            .filter_map(|(k, s)| Some((k.strip_prefix(&prefix)?, LabelSelector::parse(s).ok()?)))
            .collect();
        if mine.len() < 2 {
            return None;
        }
        let query: String = form_urlencoded::byte_serialize(selector.as_bytes()).collect();
        let pods = client.get(&format!("/api/v1/namespaces/{ns}/pods?labelSelector={query}")).json_body();
        let mut controlling = std::collections::BTreeSet::new();
        for pod in pods["items"].as_array().into_iter().flatten() {
            let labels = &pod["metadata"]["labels"];
            for (name, s) in &mine {
                if s.matches_fn(|k| labels.get(k).and_then(Value::as_str)) {
                    controlling.insert(*name);
                }
            }
        }
        if controlling.len() < 2 {
            return None;
        }
        // Go's `%v` of the keys ({name namespace}); upstream's order is a
        // map's, here by name.
        let keys: Vec<String> = controlling.iter().map(|n| format!("{{{n} {ns}}}")).collect();
        let message = format!("pods by selector {selector} are controlled by multiple HPAs: [{}]", keys.join(" "));
        Some(SelectorProblem {
            reason: "AmbiguousSelector",
            message: message.clone(),
            condition: "AmbiguousSelector",
            condition_message: message,
        })
    }
}

/// Why asking for one metric failed: the event's reason, its message,
/// and the message as the aggregate error wraps it.
struct MetricFailure {
    reason: &'static str,
    message: String,
    wrapped: String,
}

/// How asking for one metric fails without a metrics API.
fn metric_failure(m: &Value) -> MetricFailure {
    let kind = m["type"].as_str().unwrap_or("");
    let (reason, wrapped, message) = match kind {
        "Resource" | "ContainerResource" => {
            let source = if kind == "Resource" { &m["resource"] } else { &m["containerResource"] };
            let name = source["name"].as_str().unwrap_or("");
            let what = if source["target"]["type"] == "AverageValue" { "usage" } else { "utilization" };
            let message = format!(
                "failed to get {name} {what}: unable to get metrics for resource {name}: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
            );
            match kind {
                "Resource" => (
                    "FailedGetResourceMetric",
                    format!("failed to get {name} resource metric value: {message}"),
                    message,
                ),
                _ => (
                    "FailedGetContainerResourceMetric",
                    format!("failed to get {name} container metric value: {message}"),
                    message,
                ),
            }
        }
        "Pods" | "Object" => {
            let source = if kind == "Pods" { &m["pods"] } else { &m["object"] };
            let name = source["metric"]["name"].as_str().unwrap_or("");
            let message = format!(
                "unable to get metric {name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"
            );
            match kind {
                "Pods" => ("FailedGetPodsMetric", format!("failed to get pods metric value: {message}"), message),
                _ => ("FailedGetObjectMetric", format!("failed to get object metric value: {message}"), message),
            }
        }
        "External" => {
            let name = m["external"]["metric"]["name"].as_str().unwrap_or("");
            let message = format!(
                "unable to get external metric {name}: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered"
            );
            ("FailedGetExternalMetric", format!("failed to get {name} external metric value: {message}"), message)
        }
        other => {
            let message = format!("unknown metric source type {other:?}");
            ("InvalidMetricSourceType", message.clone(), message)
        }
    };
    MetricFailure { reason, message, wrapped }
}
