//! What an object uses of a ResourceQuota: upstream's quota evaluators
//! (pods, services, persistent volume claims, and a count of objects for
//! every other resource), shared by the ResourceQuota admission (which
//! charges a write) and the resource quota controller (which sums what a
//! namespace holds).
//!
//! Each evaluator says which of a quota's resource names it tracks, what
//! one object uses of them (as quantities, so sums are written as
//! upstream writes them), whether an object falls in a quota's scopes,
//! and, for pods, which containers fail to say what a quota needs them to
//! (`must specify …`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::quantity::Quantity;

/// Amounts by resource name, in name order.
pub type Usage = BTreeMap<String, Quantity>;

/// The scopes a quota may name.
pub const SCOPES: &[&str] =
    &["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"];

/// The resource names of a pod's compute usage.
const POD_RESOURCES: &[&str] = &[
    "count/pods",
    "pods",
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
];

/// What a quota on cpu or memory requires every container to say.
const REQUIRED_OF_CONTAINERS: &[&str] =
    &["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"];

/// Resources named for the old object-count names (`configmaps` besides
/// `count/configmaps`).
const LEGACY_COUNTS: &[&str] = &["configmaps", "secrets", "replicationcontrollers", "resourcequotas"];

/// Resources a quota never evaluates.
const IGNORED: &[(&str, &str)] = &[
    ("", "bindings"),
    ("", "componentstatuses"),
    ("", "events"),
    ("events.k8s.io", "events"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
];

/// One resource's evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluator {
    Pods,
    Services,
    Claims,
    /// Any other resource: `count/<resource>[.<group>]`.
    Count(String),
}

fn one() -> Quantity {
    Quantity { milli: 1000, format: crate::api::quantity::Format::DecimalSi }
}

fn add(usage: &mut Usage, key: &str, q: Quantity) {
    usage.entry(key.to_string()).or_insert(Quantity::ZERO).add(q);
}

/// A resource name that is not the cluster's own (`example.com/gpu`,
/// `count/pods`), which a quota may only name as `requests.<name>`.
pub fn is_extended(name: &str) -> bool {
    name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests.")
}

/// A quota's resource name for an extended resource (`requests.example.com/gpu`).
fn is_extended_for_quota(name: &str) -> bool {
    name.strip_prefix("requests.").is_some_and(is_extended)
}

impl Evaluator {
    /// The evaluator of a resource, or None for those quota ignores.
    pub fn of(group: &str, resource: &str) -> Option<Evaluator> {
        if IGNORED.contains(&(group, resource)) {
            return None;
        }
        Some(match (group, resource) {
            ("", "pods") => Evaluator::Pods,
            ("", "services") => Evaluator::Services,
            ("", "persistentvolumeclaims") => Evaluator::Claims,
            ("", r) => Evaluator::Count(format!("count/{r}")),
            (g, r) => Evaluator::Count(format!("count/{r}.{g}")),
        })
    }

    /// Whether a write is charged: a create (not of a subresource) for
    /// every evaluator; an update of a service or a claim, or of a pod
    /// whose `Terminating` scope it changes.
    pub fn handles(&self, creating: bool, subresource: &str, new: &Value, old: Option<&Value>) -> bool {
        if !subresource.is_empty() {
            return false;
        }
        match self {
            _ if creating => true,
            Evaluator::Pods => old.is_some_and(|old| is_terminating(old) != is_terminating(new)),
            Evaluator::Services | Evaluator::Claims => true,
            Evaluator::Count(_) => false,
        }
    }

    /// The quota resource names among `names` this evaluator tracks.
    pub fn matching<'a>(&self, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        names
            .filter(|n| match self {
                Evaluator::Pods => {
                    POD_RESOURCES.contains(n)
                        || n.starts_with("hugepages-")
                        || n.starts_with("requests.hugepages-")
                        || is_extended_for_quota(n)
                }
                Evaluator::Services => {
                    matches!(*n, "services" | "count/services" | "services.loadbalancers" | "services.nodeports")
                }
                Evaluator::Claims => {
                    matches!(*n, "persistentvolumeclaims" | "count/persistentvolumeclaims" | "requests.storage")
                        || n.strip_suffix("/requests.storage")
                            .or_else(|| n.strip_suffix("/persistentvolumeclaims"))
                            .is_some_and(|c| c.ends_with(".storageclass.storage.k8s.io"))
                }
                Evaluator::Count(name) => {
                    *n == name.as_str()
                        || name.strip_prefix("count/").is_some_and(|r| LEGACY_COUNTS.contains(&r) && r == *n)
                }
            })
            .collect()
    }

    /// What one object uses (`now`: the simulated time in milliseconds,
    /// for a pod whose deletion grace period has run out).
    pub fn usage(&self, obj: &Value, now: i64) -> Usage {
        let mut u = Usage::new();
        match self {
            Evaluator::Pods => pod_usage(obj, now, &mut u),
            Evaluator::Services => service_usage(obj, &mut u),
            Evaluator::Claims => claim_usage(obj, &mut u),
            Evaluator::Count(name) => {
                add(&mut u, name, one());
                if let Some(legacy) = name.strip_prefix("count/").filter(|r| LEGACY_COUNTS.contains(r)) {
                    add(&mut u, legacy, one());
                }
            }
        }
        u
    }

    /// Whether the object falls in every scope of the quota (its `scopes`
    /// and its `scopeSelector`); only pods have scopes, so a scoped quota
    /// holds nothing else.
    pub fn in_scopes(&self, quota: &Value, obj: &Value) -> bool {
        let scopes = quota.pointer("/spec/scopes").and_then(Value::as_array).into_iter().flatten();
        let exprs =
            quota.pointer("/spec/scopeSelector/matchExpressions").and_then(Value::as_array).into_iter().flatten();
        let mut requirements = scopes
            .map(|s| (s.as_str().unwrap_or(""), "Exists", &[][..]))
            .chain(exprs.map(|e| {
                (
                    e["scopeName"].as_str().unwrap_or(""),
                    e["operator"].as_str().unwrap_or(""),
                    e["values"].as_array().map(Vec::as_slice).unwrap_or_default(),
                )
            }))
            .peekable();
        if requirements.peek().is_none() {
            return true;
        }
        *self == Evaluator::Pods && requirements.all(|(scope, op, values)| pod_in_scope(obj, scope, op, values))
    }

    /// For a pod: the containers that do not say what the quota's
    /// `matched` names need (a request or limit of cpu or memory), in
    /// upstream's words; None when all do.
    pub fn constraints(&self, matched: &[&str], obj: &Value) -> Option<String> {
        if *self != Evaluator::Pods {
            return None;
        }
        let required: Vec<&str> = REQUIRED_OF_CONTAINERS.iter().copied().filter(|r| matched.contains(r)).collect();
        let mut missing: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for list in ["containers", "initContainers"] {
            for c in obj.pointer(&format!("/spec/{list}")).and_then(Value::as_array).into_iter().flatten() {
                let resources = &c["resources"];
                let has = |field: &str, name: &str| resources[field].get(name).is_some();
                for r in &required {
                    let said = match *r {
                        "cpu" | "requests.cpu" => has("requests", "cpu"),
                        "memory" | "requests.memory" => has("requests", "memory"),
                        "limits.cpu" => has("limits", "cpu"),
                        _ => has("limits", "memory"),
                    };
                    if !said {
                        let names = missing.entry(r).or_default();
                        let name = c["name"].as_str().unwrap_or("").to_string();
                        if !names.contains(&name) {
                            names.push(name);
                        }
                    }
                }
            }
        }
        if missing.is_empty() {
            return None;
        }
        let parts: Vec<String> = missing
            .into_iter()
            .map(|(r, mut names)| {
                crate::sort::Order::order(names.as_mut_slice());
                format!("{r} for: {}", names.join(","))
            })
            .collect();
        Some(format!("must specify {}", parts.join("; ")))
    }
}

/// The resource (group, plural) whose objects a quota's resource name
/// sums, or None for a name no evaluator tracks.
pub fn tracked_by(name: &str) -> Option<(String, String)> {
    let core = |r: &str| Some((String::new(), r.to_string()));
    if let Some(rest) = name.strip_prefix("count/") {
        return match rest.split_once('.') {
            Some((r, g)) => Some((g.to_string(), r.to_string())),
            None => core(rest),
        };
    }
    for (resource, eval) in
        [("pods", Evaluator::Pods), ("services", Evaluator::Services), ("persistentvolumeclaims", Evaluator::Claims)]
    {
        if !eval.matching(std::iter::once(name)).is_empty() {
            return core(resource);
        }
    }
    LEGACY_COUNTS.contains(&name).then(|| core(name)).flatten()
}

/// A resource list (`spec.hard`, `status.used`) as amounts; entries that
/// are not quantities are left out. (Maps are filled by insertion, not
/// collected: each collect into a map is a sort of its own in the page's
/// module.)
pub fn amounts(list: Option<&Value>) -> Usage {
    let mut u = Usage::new();
    for (k, v) in list.and_then(Value::as_object).into_iter().flatten() {
        if let Some(q) = v.as_str().and_then(Quantity::parse) {
            u.insert(k.clone(), q);
        }
    }
    u
}

/// The entries of `u` whose names `keep` holds.
pub fn masked(u: &Usage, keep: &dyn Fn(&str) -> bool) -> Usage {
    let mut out = Usage::new();
    for (k, q) in u {
        if keep(k) {
            out.insert(k.clone(), *q);
        }
    }
    out
}

/// Amounts as a resource list is written: canonical quantities.
pub fn written(u: &Usage) -> Value {
    let mut m = serde_json::Map::new();
    for (k, q) in u {
        m.insert(k.clone(), Value::String(q.to_string()));
    }
    Value::Object(m)
}

/// Whether a request is never charged (the resources quota ignores).
pub fn ignored(group: &str, resource: &str) -> bool {
    IGNORED.contains(&(group, resource))
}

fn is_terminating(pod: &Value) -> bool {
    pod.pointer("/spec/activeDeadlineSeconds").and_then(Value::as_i64).is_some_and(|s| s >= 0)
}

/// A pod's QoS class is BestEffort: no container asks for or limits cpu
/// or memory.
fn is_best_effort(pod: &Value) -> bool {
    ["containers", "initContainers"].iter().all(|list| {
        pod["spec"][list].as_array().into_iter().flatten().all(|c| {
            ["requests", "limits"].iter().all(|f| {
                c["resources"][f]
                    .as_object()
                    .is_none_or(|m| !m.iter().any(|(k, v)| matches!(k.as_str(), "cpu" | "memory") && !is_zero(v)))
            })
        })
    })
}

fn is_zero(v: &Value) -> bool {
    v.as_str().and_then(Quantity::parse).is_some_and(|q| q.milli == 0)
}

fn uses_cross_namespace_affinity(pod: &Value) -> bool {
    let cross =
        |t: &Value| t["namespaces"].as_array().is_some_and(|n| !n.is_empty()) || !t["namespaceSelector"].is_null();
    ["podAffinity", "podAntiAffinity"].iter().any(|kind| {
        let a = &pod["spec"]["affinity"][kind];
        a["requiredDuringSchedulingIgnoredDuringExecution"].as_array().into_iter().flatten().any(cross)
            || a["preferredDuringSchedulingIgnoredDuringExecution"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| cross(&w["podAffinityTerm"]))
    })
}

fn pod_in_scope(pod: &Value, scope: &str, op: &str, values: &[Value]) -> bool {
    match scope {
        "Terminating" => is_terminating(pod),
        "NotTerminating" => !is_terminating(pod),
        "BestEffort" => is_best_effort(pod),
        "NotBestEffort" => !is_best_effort(pod),
        "PriorityClass" => {
            let class = pod.pointer("/spec/priorityClassName").and_then(Value::as_str).unwrap_or("");
            let named = values.iter().any(|v| v.as_str() == Some(class));
            // As a label selector over {PriorityClass: <class>}, a label
            // set only when the pod names a class.
            match op {
                "Exists" => !class.is_empty(),
                "DoesNotExist" => class.is_empty(),
                "In" => !class.is_empty() && named,
                "NotIn" => class.is_empty() || !named,
                _ => false,
            }
        }
        "CrossNamespacePodAffinity" => uses_cross_namespace_affinity(pod),
        _ => false,
    }
}

/// A pod still charged: not finished, and not past the end of its
/// deletion's grace period.
fn is_live(pod: &Value, now: i64) -> bool {
    if matches!(pod.pointer("/status/phase").and_then(Value::as_str), Some("Succeeded" | "Failed")) {
        return false;
    }
    let meta = &pod["metadata"];
    match (
        meta["deletionTimestamp"].as_str().and_then(crate::clock::parse_rfc3339),
        meta["deletionGracePeriodSeconds"].as_i64(),
    ) {
        (Some(at), Some(grace)) => now <= at + grace * 1000,
        _ => true,
    }
}

fn quantities(m: &Value) -> impl Iterator<Item = (&String, Quantity)> {
    m.as_object().into_iter().flatten().filter_map(|(k, v)| Some((k, v.as_str().and_then(Quantity::parse)?)))
}

/// A pod's requests or limits (`field`) as upstream sums them: its
/// containers and its sidecars (init containers that restart) added; each
/// other init container, with the sidecars started before it, counted
/// instead where it needs more; then the pod's overhead (for limits, only
/// of those it limits).
pub fn pod_resources(pod: &Value, field: &str) -> Usage {
    let mut sum = Usage::new();
    let containers = |list: &str| pod["spec"][list].as_array().map(Vec::as_slice).unwrap_or_default();
    for c in containers("containers") {
        for (k, q) in quantities(&c["resources"][field]) {
            add(&mut sum, k, q);
        }
    }
    let (mut sidecars, mut init_max) = (Usage::new(), Usage::new());
    for c in containers("initContainers") {
        let own = amounts(Some(&c["resources"][field]));
        let restarts = c["restartPolicy"].as_str() == Some("Always");
        let mut this = sidecars.clone();
        for (k, q) in &own {
            add(&mut this, k, *q);
            if restarts {
                add(&mut sum, k, *q);
                add(&mut sidecars, k, *q);
            }
        }
        let this = if restarts { sidecars.clone() } else { this };
        for (k, q) in this {
            let m = init_max.entry(k).or_insert(Quantity::ZERO);
            if q.milli > m.milli {
                *m = q;
            }
        }
    }
    for (k, q) in init_max {
        let s = sum.entry(k).or_insert(Quantity::ZERO);
        if q.milli > s.milli {
            *s = q;
        }
    }
    for (k, q) in quantities(&pod["spec"]["overhead"]) {
        if field == "requests" || sum.get(k).is_some_and(|s| s.milli != 0) {
            add(&mut sum, k, q);
        }
    }
    sum
}

fn pod_usage(pod: &Value, now: i64, u: &mut Usage) {
    add(u, "count/pods", one());
    if !is_live(pod, now) {
        return;
    }
    add(u, "pods", one());
    for (k, q) in pod_resources(pod, "requests") {
        match k.as_str() {
            "cpu" | "memory" | "ephemeral-storage" => {
                add(u, &k, q);
                add(u, &format!("requests.{k}"), q);
            }
            h if h.starts_with("hugepages-") => {
                add(u, h, q);
                add(u, &format!("requests.{h}"), q);
            }
            e if is_extended(e) => add(u, &format!("requests.{e}"), q),
            _ => {}
        }
    }
    for (k, q) in pod_resources(pod, "limits") {
        if matches!(k.as_str(), "cpu" | "memory" | "ephemeral-storage") {
            add(u, &format!("limits.{k}"), q);
        }
    }
}

fn service_usage(svc: &Value, u: &mut Usage) {
    add(u, "services", one());
    add(u, "count/services", one());
    let ports = svc.pointer("/spec/ports").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let count = |n: usize| Quantity { milli: n as i128 * 1000, format: crate::api::quantity::Format::DecimalSi };
    let (balancers, node_ports) = match svc.pointer("/spec/type").and_then(Value::as_str) {
        Some("NodePort") => (0, ports.len()),
        Some("LoadBalancer") => {
            let allocated = svc.pointer("/spec/allocateLoadBalancerNodePorts").and_then(Value::as_bool) != Some(false);
            (
                1,
                if allocated {
                    ports.len()
                } else {
                    ports.iter().filter(|p| p["nodePort"].as_i64().is_some_and(|n| n != 0)).count()
                },
            )
        }
        _ => (0, 0),
    };
    add(u, "services.loadbalancers", count(balancers));
    add(u, "services.nodeports", count(node_ports));
}

fn claim_usage(pvc: &Value, u: &mut Usage) {
    add(u, "persistentvolumeclaims", one());
    add(u, "count/persistentvolumeclaims", one());
    let class = pvc.pointer("/spec/storageClassName").and_then(Value::as_str).filter(|c| !c.is_empty());
    if let Some(c) = class {
        add(u, &format!("{c}.storageclass.storage.k8s.io/persistentvolumeclaims"), one());
    }
    let requested = pvc.pointer("/spec/resources/requests/storage").and_then(Value::as_str).and_then(Quantity::parse);
    let allocated = pvc.pointer("/status/allocatedResources/storage").and_then(Value::as_str).and_then(Quantity::parse);
    let storage = match (requested, allocated) {
        (Some(r), Some(a)) if a.milli > r.milli => Some(a),
        (Some(r), _) => Some(r),
        (None, a) => a,
    };
    if let Some(mut q) = storage {
        // Whole bytes, rounded up.
        q.milli = (q.milli + 999).div_euclid(1000) * 1000;
        add(u, "requests.storage", q);
        if let Some(c) = class {
            add(u, &format!("{c}.storageclass.storage.k8s.io/requests.storage"), q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(u: &Usage) -> Vec<String> {
        u.iter().map(|(k, q)| format!("{k}={q}")).collect()
    }

    #[test]
    fn a_pod_uses_its_requests_and_limits_as_quota_names_them() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "200m", "memory": "64Mi", "example.com/gpu": "1", "hugepages-2Mi": "4Mi"}}}]}});
        let u = Evaluator::Pods.usage(&pod, 0);
        assert_eq!(
            shown(&u),
            [
                "count/pods=1",
                "cpu=300m",
                "hugepages-2Mi=4Mi",
                "limits.cpu=1",
                "limits.memory=128Mi",
                "memory=128Mi",
                "pods=1",
                "requests.cpu=300m",
                "requests.example.com/gpu=1",
                "requests.hugepages-2Mi=4Mi",
                "requests.memory=128Mi"
            ]
        );
    }

    #[test]
    fn a_finished_pod_or_one_past_its_grace_period_is_only_counted() {
        let done = json!({"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Succeeded"}});
        assert_eq!(shown(&Evaluator::Pods.usage(&done, 0)), ["count/pods=1"]);
        let deleting = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:30Z", "deletionGracePeriodSeconds": 30},
            "spec": {"containers": [{}]}});
        let at = crate::clock::parse_rfc3339("2026-01-01T00:00:30Z").unwrap();
        assert_eq!(shown(&Evaluator::Pods.usage(&deleting, at + 30_000)), ["count/pods=1", "pods=1"]);
        assert_eq!(shown(&Evaluator::Pods.usage(&deleting, at + 30_001)), ["count/pods=1"]);
    }

    #[test]
    fn services_count_their_node_ports_and_balancers() {
        let lb = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 80}, {"port": 443}]}});
        assert_eq!(
            shown(&Evaluator::Services.usage(&lb, 0)),
            ["count/services=1", "services=1", "services.loadbalancers=1", "services.nodeports=2"]
        );
        let ip = json!({"spec": {"ports": [{"port": 80}]}});
        assert_eq!(
            shown(&Evaluator::Services.usage(&ip, 0)),
            ["count/services=1", "services=1", "services.loadbalancers=0", "services.nodeports=0"]
        );
    }

    #[test]
    fn claims_use_their_storage_by_class_too() {
        let pvc = json!({"spec": {"storageClassName": "gold", "resources": {"requests": {"storage": "1Gi"}}}});
        assert_eq!(
            shown(&Evaluator::Claims.usage(&pvc, 0)),
            [
                "count/persistentvolumeclaims=1",
                "gold.storageclass.storage.k8s.io/persistentvolumeclaims=1",
                "gold.storageclass.storage.k8s.io/requests.storage=1Gi",
                "persistentvolumeclaims=1",
                "requests.storage=1Gi"
            ]
        );
    }

    #[test]
    fn other_resources_are_counted_under_both_names_where_there_are_two() {
        let cm = Evaluator::of("", "configmaps").unwrap();
        assert_eq!(shown(&cm.usage(&json!({}), 0)), ["configmaps=1", "count/configmaps=1"]);
        let deploy = Evaluator::of("apps", "deployments").unwrap();
        assert_eq!(shown(&deploy.usage(&json!({}), 0)), ["count/deployments.apps=1"]);
        assert_eq!(
            deploy.matching(["count/deployments.apps", "pods", "count/deployments"].into_iter()),
            ["count/deployments.apps"]
        );
        assert_eq!(Evaluator::of("", "events"), None);
    }

    #[test]
    fn scopes_hold_pods_only() {
        let quota = json!({"spec": {"scopes": ["BestEffort"]}});
        let best_effort = json!({"spec": {"containers": [{"name": "a"}]}});
        let burstable = json!({"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}});
        assert!(Evaluator::Pods.in_scopes(&quota, &best_effort));
        assert!(!Evaluator::Pods.in_scopes(&quota, &burstable));
        assert!(!Evaluator::Services.in_scopes(&quota, &json!({})));
        let high = json!({"spec": {"scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}}});
        assert!(Evaluator::Pods.in_scopes(&high, &json!({"spec": {"priorityClassName": "high"}})));
        assert!(!Evaluator::Pods.in_scopes(&high, &json!({"spec": {}})));
    }

    #[test]
    fn containers_must_say_what_a_compute_quota_tracks() {
        let pod = json!({"spec": {"containers": [{"name": "web", "resources": {"requests": {"cpu": "1"}}}, {"name": "log"}],
            "initContainers": [{"name": "init", "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}}]}});
        assert_eq!(
            Evaluator::Pods.constraints(&["requests.cpu", "limits.cpu", "pods"], &pod).as_deref(),
            Some("must specify limits.cpu for: log,web; requests.cpu for: log")
        );
        assert_eq!(Evaluator::Pods.constraints(&["pods"], &pod), None);
    }
}
