//! The scheduler (kube-scheduler's `default-scheduler`), a client: each
//! pending pod that names no node (and no other scheduler) is bound
//! through `pods/NAME/binding` to a node that fits, and gets a `Scheduled`
//! event (events.k8s.io/v1, action `Binding`, as upstream's scheduler
//! records through client-go's newer recorder); a pod no node fits gets
//! `PodScheduled: False` (`Unschedulable`) in its status and a
//! `FailedScheduling` event (action `Scheduling`) in upstream's words
//! (`0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match
//! Pod's node affinity/selector. preemption: …`).
//!
//! A node fits when it is Ready and schedulable (or the pod tolerates
//! `node.kubernetes.io/unschedulable`), its labels match the pod's
//! `nodeSelector` and required node affinity (expressions on labels,
//! `metadata.name` fields), the pod tolerates its `NoSchedule`/`NoExecute`
//! taints, and the pod's requests (the largest of its init containers'
//! and the sum of its containers') fit its allocatable cpu, memory and
//! pods beside the pods already bound there, and the `DoNotSchedule`
//! topology spread constraints and required inter-pod (anti-)affinity are
//! met (`neighbours`). Of the nodes that fit, the one with the highest
//! score wins, summed as upstream's default profile weighs its plugins:
//! least allocated (cpu and memory, a container requesting nothing
//! counted as 100m and 200Mi) and balanced allocation, 1 each; the
//! `PreferNoSchedule` taints the pod does not tolerate, 3; the pod's
//! preferred node affinity, 2; preferred pod (anti-)affinity, the pod's
//! and the placed pods' (`neighbours`), and topology spread, the pod's
//! `ScheduleAnyway` constraints or, without constraints, the defaults that
//! spread what a Service or a workload selects (`spreading`), 2 each.
//! Upstream breaks ties at random, where the least requested node, then
//! the name, breaks them here (docs/fidelity.md). Pods are
//! taken in priority order, then by creation, as upstream's active queue
//! does.

use crate::sort::Order;
use std::collections::BTreeMap;

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{Client, Identity};
use super::events::{EventType, SeriesRecorder};
use super::informer::{key_of, Informer};
use super::object::{meta_str, path_of};
use super::{Controller, Progress};
use crate::api::pod::same_amounts;
use crate::api::quantity::milli_value;

mod neighbours;
mod preemption;
mod spreading;
mod volume_binding;

/// Pending pods with a nominated node (`status.nominatedNodeName`), by uid.
/// (Maps of strings to shared values, as the scheduler's others: another
/// map type is more code in the part of the browser's module loaded first.)
type Nominated = BTreeMap<String, Arc<Value>>;

/// The node a pending pod is nominated to.
#[inline(always)]
fn nominated_node(pod: &Value) -> &str {
    pod["status"]["nominatedNodeName"].as_str().unwrap_or("")
}

/// What a node's bound pods use, with the pods nominated to it that are
/// not of lower priority than `pod` (nor `pod` itself).
fn with_nominated(mut u: Used, pod: &Value, node: &str, nominated: &Nominated) -> Used {
    for (uid, other) in nominated {
        if nominated_node(other) == node && uid != meta_str(pod, "uid") && priority_of(other) >= priority_of(pod) {
            u.add(&other["spec"]);
        }
    }
    u
}

/// A bound pod's place in `Scheduler::on_node`: its node, its priority
/// (sortable as text: the sign bit flipped, in hex) and its cache key.
fn bound_key(node: &str, pod: &Value) -> String {
    format!("{}{}", priority_prefix(node, priority_of(pod)), key_of(pod))
}

/// Where the pods of `node` with priority `priority` begin in
/// `Scheduler::on_node`.
fn priority_prefix(node: &str, priority: i64) -> String {
    format!("{node}\u{0}{:016x}\u{0}", (priority as u64) ^ (1 << 63))
}

pub struct Scheduler {
    pods: Informer,
    nodes: Informer,
    recorder: SeriesRecorder,
    /// Unschedulable pods (by uid) and when they are next tried though
    /// nothing changed: upstream moves a pod left unschedulable for five
    /// minutes back to its active queue, and records the failure again.
    retry_at: BTreeMap<String, i64>,
    /// What the pods bound to each node use, kept up to date from the pod
    /// informer's changes (a change costs O(1), not a pass over every pod).
    used: BTreeMap<String, Used>,
    /// The pods waiting for a node, by cache key.
    pending: BTreeMap<String, Arc<Value>>,
    /// The pods bound to a node and not finished, by node, priority and
    /// cache key (`bound_key`): those preemption may take off it, the
    /// lower ones first.
    on_node: BTreeMap<String, Arc<Value>>,
    /// PodDisruptionBudgets, watched from the first time pods of lower
    /// priority could make room on a node (victims their budget would not
    /// allow are spared first).
    budgets: Option<Informer>,
    /// The bound pods (as `on_node`) with required pod anti-affinity.
    repelling: BTreeMap<String, Arc<Value>>,
    /// The pods bound in this round, with their nodes (the informer
    /// reports them in the next), and how many of them have required pod
    /// anti-affinity.
    bound_now: Vec<(String, Arc<Value>)>,
    repelling_now: usize,
    /// How many bound pods (as `on_node`) have terms that weigh on where
    /// other pods go: preferred pod (anti-)affinity, required pod affinity.
    attracting: i64,
    /// Namespaces, watched from the first pod affinity term that chooses
    /// namespaces by their labels.
    namespaces: Option<Informer>,
    /// Services, ReplicaSets and StatefulSets, watched from the first pod
    /// spread by default (their selectors make its spreading selector).
    selecting: Option<Box<spreading::Selecting>>,
    /// This round's counts of placed pods by spreading selector.
    matching: Vec<spreading::Matching>,
    /// Claims, volumes and classes, watched from the first pod that uses
    /// a claim.
    volumes: Option<Box<volume_binding::VolumeBinding>>,
}

/// How long a pod stays unschedulable before it is tried again
/// (upstream's `podMaxInUnschedulablePodsDuration`).
const UNSCHEDULABLE_RETRY_MS: i64 = 5 * 60_000;

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler {
            pods: Informer::tracking("/api/v1/pods"),
            nodes: Informer::new("/api/v1/nodes"),
            recorder: SeriesRecorder::new("default-scheduler", "control-plane"),
            retry_at: BTreeMap::new(),
            used: BTreeMap::new(),
            pending: BTreeMap::new(),
            on_node: BTreeMap::new(),
            budgets: None,
            repelling: BTreeMap::new(),
            bound_now: Vec::new(),
            repelling_now: 0,
            attracting: 0,
            namespaces: None,
            selecting: None,
            matching: Vec::new(),
            volumes: None,
        }
    }
}

/// What a pod asks of a node: cpu and memory (thousandths), one pod.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Demand {
    pub(crate) cpu: i128,
    pub(crate) memory: i128,
}

/// What scoring counts for a container that requests nothing (upstream's
/// `DefaultMilliCPURequest` and `DefaultMemoryRequest`), so that pods
/// without requests still spread.
const NONZERO_CPU: i128 = 100;
const NONZERO_MEMORY: i128 = 200 * 1024 * 1024 * 1000;

/// The pod's requests; with `nonzero`, a missing request counts as
/// upstream's scoring counts it.
fn requests_of(spec: &Value, nonzero: bool) -> Demand {
    let sum = |list: &Value| {
        let mut d = Demand::default();
        for c in list.as_array().into_iter().flatten() {
            let r = &c["resources"]["requests"];
            let cpu = r["cpu"].as_str().and_then(milli_value);
            let memory = r["memory"].as_str().and_then(milli_value);
            d.cpu += cpu.unwrap_or(if nonzero { NONZERO_CPU } else { 0 });
            d.memory += memory.unwrap_or(if nonzero { NONZERO_MEMORY } else { 0 });
        }
        d
    };
    let main = sum(&spec["containers"]);
    let mut init = Demand::default();
    for c in spec["initContainers"].as_array().into_iter().flatten() {
        let one = sum(&json!([c]));
        init.cpu = init.cpu.max(one.cpu);
        init.memory = init.memory.max(one.memory);
    }
    Demand { cpu: main.cpu.max(init.cpu), memory: main.memory.max(init.memory) }
}

pub(crate) fn requests(spec: &Value) -> Demand {
    requests_of(spec, false)
}

/// The spec whose requests a bound pod is counted with (upstream's
/// `PodRequests` with the status's resources, as in-place resize needs):
/// each container's request of a resource is the largest of the spec's,
/// the running container's and the kubelet's allocated one; of a resize
/// the node cannot take, the status's alone.
pub(crate) fn spec_in_use(pod: &Value) -> std::borrow::Cow<'_, Value> {
    use std::borrow::Cow;
    let statuses = pod["status"]["containerStatuses"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let containers = pod["spec"]["containers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    // Most pods run with what their spec asks: their spec as it is.
    let as_asked = statuses.iter().all(|s| {
        s.get("resources").is_none()
            || containers.iter().find(|c| c["name"] == s["name"]).is_some_and(|c| {
                let asked = &c["resources"]["requests"];
                same_amounts(asked, &s["resources"]["requests"]) && same_amounts(asked, &s["allocatedResources"])
            })
    });
    if as_asked {
        return Cow::Borrowed(&pod["spec"]);
    }
    let infeasible = pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "PodResizePending"))
        .is_some_and(|c| c["reason"] == "Infeasible");
    let mut spec = pod["spec"].clone();
    for c in spec["containers"].as_array_mut().into_iter().flatten() {
        let Some(s) = statuses.iter().find(|s| s["name"] == c["name"] && s.get("resources").is_some()) else {
            continue;
        };
        let mut sources = vec![&s["resources"]["requests"], &s["allocatedResources"]];
        if !infeasible {
            sources.push(&c["resources"]["requests"]);
        }
        let mut most = serde_json::Map::new();
        for (k, v) in sources.into_iter().filter_map(Value::as_object).flatten() {
            let bigger = most.get(k).and_then(Value::as_str).and_then(milli_value) < v.as_str().and_then(milli_value);
            if bigger || !most.contains_key(k) {
                most.insert(k.clone(), v.clone());
            }
        }
        c["resources"]["requests"] = Value::Object(most);
    }
    Cow::Owned(spec)
}

pub(crate) fn allocatable(node: &Value, resource: &str) -> i128 {
    node["status"]["allocatable"][resource].as_str().and_then(milli_value).unwrap_or(0)
}

fn node_ready(node: &Value) -> bool {
    node["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == "Ready" && c["status"] == "True"))
}

fn tolerates(pod: &Value, taint: &Value) -> bool {
    tolerated(pod["spec"]["tolerations"].as_array().map_or(&[], Vec::as_slice), taint)
}

/// Whether any of `tolerations` tolerates `taint` (key, or an empty key
/// with Exists; effect, or none; value, or Exists).
pub(crate) fn tolerated(tolerations: &[Value], taint: &Value) -> bool {
    tolerations.iter().any(|t| {
        let key_ok =
            (t["key"].as_str().unwrap_or("").is_empty() && t["operator"] == "Exists") || t["key"] == taint["key"];
        let effect_ok = t["effect"].as_str().unwrap_or("").is_empty() || t["effect"] == taint["effect"];
        let value_ok =
            t["operator"] == "Exists" || t["value"].as_str().unwrap_or("") == taint["value"].as_str().unwrap_or("");
        key_ok && effect_ok && value_ok
    })
}

/// Why a node does not fit a pod: upstream's reasons (a node short of
/// several resources gives each), and whether taking pods off the node
/// could change that (the resources: upstream's `Unschedulable`, where
/// preemption is tried) or not (`UnschedulableAndUnresolvable`).
pub(crate) struct Misfit {
    pub(crate) reasons: Vec<String>,
    pub(crate) resolvable: bool,
}

#[inline(always)]
fn unresolvable(reason: String) -> Option<Misfit> {
    Some(Misfit { reasons: vec![reason], resolvable: false })
}

/// Why a node does not fit a pod, or None if it does; the filters in
/// upstream's order (NodeUnschedulable, TaintToleration, NodeAffinity,
/// NodeResourcesFit; PodTopologySpread and InterPodAffinity follow, in
/// `neighbours`), the first that fails answering.
fn misfit(pod: &Value, demand: Demand, node: &Value, used: &Used) -> Option<Misfit> {
    if node["spec"]["unschedulable"].as_bool() == Some(true) && !tolerates(pod, &UNSCHEDULABLE_TAINT) {
        return unresolvable("node(s) were unschedulable".into());
    }
    if let Some(t) = untolerated_taint(pod, node) {
        let value = t["value"].as_str().unwrap_or("");
        return unresolvable(format!("node(s) had untolerated taint {{{}: {value}}}", t["key"].as_str().unwrap_or("")));
    }
    if !node_selected(pod, node) {
        return unresolvable("node(s) didn't match Pod's node affinity/selector".into());
    }
    let mut reasons = Vec::new();
    if used.pods + 1 > allocatable(node, "pods") / 1000 {
        reasons.push("Too many pods".to_string());
    }
    if demand.cpu > 0 && used.cpu + demand.cpu > allocatable(node, "cpu") {
        reasons.push("Insufficient cpu".to_string());
    }
    if demand.memory > 0 && used.memory + demand.memory > allocatable(node, "memory") {
        reasons.push("Insufficient memory".to_string());
    }
    (!reasons.is_empty()).then_some(Misfit { reasons, resolvable: true })
}

/// The first `NoSchedule`/`NoExecute` taint of the node the pod does not
/// tolerate (a node that is not ready counts as tainted not-ready).
fn untolerated_taint<'a>(pod: &Value, node: &'a Value) -> Option<&'a Value> {
    let mut taints: Vec<&Value> = node["spec"]["taints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["effect"] == "NoSchedule" || t["effect"] == "NoExecute")
        .collect();
    if !node_ready(node) {
        // What the node lifecycle controller taints a node that is not ready with.
        taints.insert(0, &NOT_READY_TAINT);
    }
    taints.into_iter().find(|t| !tolerates(pod, t))
}

/// Whether the node matches the pod's `nodeSelector` and required node
/// affinity.
fn node_selected(pod: &Value, node: &Value) -> bool {
    let selector_ok = pod["spec"]["nodeSelector"].as_object().is_none_or(|selector| {
        let labels = &node["metadata"]["labels"];
        selector.iter().all(|(k, v)| labels.get(k) == Some(v))
    });
    selector_ok && affinity_matches(pod, node)
}

/// Reasons counted, as upstream's `FitError` lists them: `2 Insufficient
/// cpu, 1 Too many pods`, each "count reason" sorted as a string.
pub(crate) fn histogram<'a>(reasons: impl IntoIterator<Item = &'a str>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in reasons {
        *counts.entry(r).or_default() += 1;
    }
    let mut listed: Vec<String> = counts.iter().map(|(why, n)| format!("{n} {why}")).collect();
    listed.order();
    listed.join(", ")
}

/// A pod's priority (the Priority admission has set it; 0 without).
#[inline(always)]
pub(crate) fn priority_of(pod: &Value) -> i64 {
    pod["spec"]["priority"].as_i64().unwrap_or(0)
}

/// Whether the node satisfies the pod's required node affinity: any one
/// of its terms, each term's expressions (on labels) and fields (on
/// `metadata.name`) all.
pub(crate) fn affinity_matches(pod: &Value, node: &Value) -> bool {
    let terms =
        &pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    let Some(terms) = terms.as_array() else { return true };
    terms.iter().any(|term| term_matches(term, node))
}

/// Whether a node selector term selects the node: its expressions (on
/// labels) and fields (on `metadata.name`) all, and at least one of them
/// (an empty term selects nothing).
pub(super) fn term_matches(term: &Value, node: &Value) -> bool {
    let requirement = |r: &Value, value: Option<&str>| {
        let values: Vec<&str> = r["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let number = |s: &str| s.parse::<i64>().ok();
        match r["operator"].as_str().unwrap_or("") {
            "In" => value.is_some_and(|v| values.contains(&v)),
            "NotIn" => value.is_none_or(|v| !values.contains(&v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            "Gt" => value.and_then(number).zip(values.first().and_then(|v| number(v))).is_some_and(|(a, b)| a > b),
            "Lt" => value.and_then(number).zip(values.first().and_then(|v| number(v))).is_some_and(|(a, b)| a < b),
            _ => false,
        }
    };
    let labels = &node["metadata"]["labels"];
    let exprs = term["matchExpressions"].as_array().into_iter().flatten();
    let fields = term["matchFields"].as_array().into_iter().flatten();
    let has_any = term["matchExpressions"].as_array().is_some_and(|a| !a.is_empty())
        || term["matchFields"].as_array().is_some_and(|a| !a.is_empty());
    has_any
        && exprs.clone().all(|r| requirement(r, labels[r["key"].as_str().unwrap_or("")].as_str()))
        && fields.clone().all(|r| {
            let value = (r["key"] == "metadata.name").then(|| meta_str(node, "name"));
            requirement(r, value)
        })
}

/// Of the nodes that fit (all but the `misfits`), the one upstream's
/// default profile scores highest: `NodeResourcesFit` (least allocated)
/// and `NodeResourcesBalancedAllocation`, weight 1 each, and what the
/// other plugins add to each (`preferred`, by node; none when they add
/// the same to every node). Upstream breaks ties at random; here the node
/// least requested at a finer grain wins them (cpu, then memory, in
/// millionths of allocatable), then the name.
fn best_node(
    pod: &Value,
    demand: Demand,
    nodes: &[Arc<Value>],
    misfits: &[(usize, Misfit)],
    used: &BTreeMap<String, Used>,
    preferred: &[i64],
) -> Option<String> {
    let scored = requests_of(&pod["spec"], true);
    let share = |used: i128, of: i128| if of <= 0 { 0 } else { ((used * 1_000_000) / of).max(0) as u128 };
    let mut best: Option<(std::cmp::Reverse<i64>, u128, u128, &str)> = None;
    let mut next_misfit = 0;
    for (i, node) in nodes.iter().enumerate() {
        if misfits.get(next_misfit).is_some_and(|(m, _)| *m == i) {
            next_misfit += 1;
            continue;
        }
        let u = used.get(meta_str(node, "name")).copied().unwrap_or_default();
        let (cpu, memory) = (allocatable(node, "cpu"), allocatable(node, "memory"));
        let (scored_cpu, scored_memory) = (u.scored.cpu + scored.cpu, u.scored.memory + scored.memory);
        let mut total = least_allocated(&[(scored_cpu, cpu), (scored_memory, memory)]);
        // BalancedAllocation skips a pod that requests nothing (1.33).
        if demand.cpu != 0 || demand.memory != 0 {
            total += balanced_allocation((u.cpu + demand.cpu, cpu), (u.memory + demand.memory, memory));
        }
        total += preferred.get(i).copied().unwrap_or(0);
        let key =
            (std::cmp::Reverse(total), share(scored_cpu, cpu), share(scored_memory, memory), meta_str(node, "name"));
        if best.as_ref().is_none_or(|b| key < *b) {
            best = Some(key);
        }
    }
    best.map(|b| b.3.to_string())
}

/// Upstream's `LeastAllocated` score of (requested, allocatable) pairs:
/// each resource's free share out of 100, truncated, averaged over the
/// resources the node has (equal weights).
pub(crate) fn least_allocated(resources: &[(i128, i128)]) -> i64 {
    let (mut sum, mut n) = (0i128, 0i128);
    for &(requested, allocatable) in resources {
        if allocatable <= 0 {
            continue;
        }
        n += 1;
        if requested <= allocatable {
            sum += (allocatable - requested) * 100 / allocatable;
        }
    }
    if n == 0 {
        0
    } else {
        (sum / n) as i64
    }
}

/// Upstream's `BalancedAllocation` score of cpu's and memory's
/// (requested, allocatable): 100 less the standard deviation of the two
/// requested fractions (each at most 1; of two, half their difference)
/// in hundredths, truncated; a resource the node has none of is left out.
pub(crate) fn balanced_allocation(cpu: (i128, i128), memory: (i128, i128)) -> i64 {
    let fraction = |(requested, allocatable): (i128, i128)| {
        (allocatable > 0).then(|| (requested as f64 / allocatable as f64).min(1.0))
    };
    let deviation = match (fraction(cpu), fraction(memory)) {
        (Some(a), Some(b)) => ((a - b) / 2.0).abs(),
        _ => 0.0,
    };
    ((1.0 - deviation) * 100.0) as i64
}

/// What `TaintToleration` and `NodeAffinity` add to each fitting node's
/// score (weighted); nothing when they would add the same to every node:
/// the pod prefers no node and no node has a `PreferNoSchedule` taint.
fn preferences(pod: &Value, nodes: &[Arc<Value>], misfits: &[(usize, Misfit)]) -> Vec<i64> {
    let prefers = neighbours::lists(pod, &[("nodeAffinity", neighbours::PREFERRED)]);
    let soft = |node: &Value| {
        node["spec"]["taints"].as_array().is_some_and(|ts| ts.iter().any(|t| t["effect"] == "PreferNoSchedule"))
    };
    if prefers || nodes.iter().any(|n| soft(n)) {
        preferred_scores(pod, nodes, misfits)
    } else {
        Vec::new()
    }
}

/// Each fitting node's `TaintToleration` score (its `PreferNoSchedule`
/// taints the pod does not tolerate, fewest best, normalized to 0–100),
/// times 3, plus its `NodeAffinity` score (the weights of the pod's
/// preferred terms it matches, normalized to 0–100 by the largest),
/// times 2. (Not inlined: seldom needed, so the browser's module keeps it
/// out of the part loaded first.)
#[inline(never)]
fn preferred_scores(pod: &Value, nodes: &[Arc<Value>], misfits: &[(usize, Misfit)]) -> Vec<i64> {
    let fits = fitting(nodes.len(), misfits);
    let tolerations = pod["spec"]["tolerations"].as_array().map_or(&[][..], Vec::as_slice);
    let terms =
        pod["spec"]["affinity"]["nodeAffinity"][neighbours::PREFERRED].as_array().map_or(&[][..], Vec::as_slice);
    let raw: Vec<(i64, i64)> = fits
        .iter()
        .map(|i| {
            let node = &nodes[*i];
            let intolerable = node["spec"]["taints"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t["effect"] == "PreferNoSchedule" && !tolerated(tolerations, t))
                .count() as i64;
            let weights = terms
                .iter()
                .filter(|t| term_matches(&t["preference"], node))
                .map(|t| t["weight"].as_i64().unwrap_or(0))
                .fold(0, i64::saturating_add);
            (intolerable, weights)
        })
        .collect();
    let most_intolerable = raw.iter().map(|r| r.0).max().unwrap_or(0);
    let most_weight = raw.iter().map(|r| r.1).max().unwrap_or(0);
    // Upstream's `DefaultNormalizeScore`: out of 100 against the largest
    // (reversed for taints: fewest best; all 100 when none has any).
    let normalized = |score: i64, most: i64, reverse: bool| {
        let s = if most == 0 { 0 } else { (100 * i128::from(score) / i128::from(most)) as i64 };
        if reverse {
            100 - s
        } else {
            s
        }
    };
    let mut scores = vec![0; nodes.len()];
    for (i, &(taints, weights)) in fits.iter().zip(&raw) {
        scores[*i] = 3 * normalized(taints, most_intolerable, true) + 2 * normalized(weights, most_weight, false);
    }
    scores
}

/// The nodes that fit: all but the `misfits` (both in node order).
pub(super) fn fitting(nodes: usize, misfits: &[(usize, Misfit)]) -> Vec<usize> {
    (0..nodes).filter(|i| !misfits.iter().any(|(m, _)| m == i)).collect()
}

static UNSCHEDULABLE_TAINT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));

static NOT_READY_TAINT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| json!({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}));

/// What is already bound to a node: requests as filters count them, and
/// as scoring does.
#[derive(Clone, Copy, Default, Debug)]
struct Used {
    cpu: i128,
    memory: i128,
    pods: i128,
    scored: Demand,
}

impl Used {
    fn add(&mut self, spec: &Value) {
        self.count(spec, 1);
    }

    /// Adds (`sign` 1) or takes away (-1) what a pod asks for.
    fn count(&mut self, spec: &Value, sign: i128) {
        let (d, n) = (requests(spec), requests_of(spec, true));
        self.cpu += sign * d.cpu;
        self.memory += sign * d.memory;
        self.pods += sign;
        self.scored.cpu += sign * n.cpu;
        self.scored.memory += sign * n.memory;
    }
}

/// Where a pod stands for the scheduler: bound to a node (and using it
/// while it has not finished), or waiting for one.
enum Standing<'a> {
    Uses(&'a str),
    Pending,
    Neither,
}

fn standing(pod: &Value) -> Standing<'_> {
    let finished = matches!(pod["status"]["phase"].as_str(), Some("Succeeded") | Some("Failed"));
    match pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        Some(node) if !finished => Standing::Uses(node),
        Some(_) => Standing::Neither,
        None => {
            let ours = pod["spec"]["schedulerName"].as_str().is_none_or(|s| s == "default-scheduler");
            if ours && !finished && pod["metadata"]["deletionTimestamp"].is_null() {
                Standing::Pending
            } else {
                Standing::Neither
            }
        }
    }
}

impl Controller for Scheduler {
    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn service_account(&self) -> &'static str {
        "kube-scheduler"
    }

    fn identity(&self) -> Identity {
        Identity::component("kube-scheduler")
    }

    /// The event recorder's series to end or refresh, an unschedulable
    /// pod's next try.
    fn next_wake(&self) -> Option<crate::clock::SimTime> {
        let retry = self.retry_at.values().min().map(|t| crate::clock::SimTime(*t));
        [self.recorder.next_wake(), retry].into_iter().flatten().min_by_key(|t| t.0)
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        self.recorder.flush(client);
        let pods_changed = self.pods.sync(client);
        let nodes_changed = self.nodes.sync(client);
        let retry_due = self.retry_at.values().any(|t| *t <= client.now_millis());
        let volumes_changed = self.volumes.as_mut().is_some_and(|v| v.sync(client));
        if !(pods_changed || nodes_changed || retry_due || volumes_changed) {
            return Progress { writes: client.writes - before };
        }
        for (old, new) in self.pods.take_changes() {
            for (pod, sign) in [(old, -1), (new, 1)] {
                let Some(pod) = pod else { continue };
                match standing(&pod) {
                    Standing::Uses(node) => {
                        let u = self.used.entry(node.to_string()).or_default();
                        u.count(&spec_in_use(&pod), sign);
                        if u.pods == 0 {
                            self.used.remove(node);
                        }
                        let key = bound_key(node, &pod);
                        if neighbours::attracts(&pod) {
                            self.attracting += sign as i64;
                        }
                        if neighbours::repels(&pod) {
                            if sign > 0 {
                                self.repelling.insert(key.clone(), Arc::clone(&pod));
                            } else {
                                self.repelling.remove(&key);
                            }
                        }
                        if sign > 0 {
                            self.on_node.insert(key, Arc::clone(&pod));
                        } else {
                            self.on_node.remove(&key);
                        }
                    }
                    Standing::Pending if sign > 0 => {
                        self.pending.insert(key_of(&pod), Arc::clone(&pod));
                    }
                    Standing::Pending => {
                        self.pending.remove(&key_of(&pod));
                    }
                    Standing::Neither => {}
                }
            }
        }
        if self.volumes.is_none() && self.pending.values().any(|p| volume_binding::uses_claims(p)) {
            self.watch_volumes(client);
        }
        let nodes: Vec<Arc<Value>> = self.nodes.shared().cloned().collect();
        // What this round binds counts at once; the informer's changes
        // count it for later rounds.
        let mut used = self.used.clone();
        // Pending pods shared with the informer's cache, not copied.
        let mut pending: Vec<Arc<Value>> = self.pending.values().cloned().collect();
        pending.order_by(|a, b| {
            let by = |field| meta_str(a, field).cmp(meta_str(b, field));
            priority_of(b)
                .cmp(&priority_of(a))
                .then_with(|| by("creationTimestamp"))
                .then_with(|| by("namespace"))
                .then_with(|| by("name"))
        });
        self.retry_at.retain(|uid, _| pending.iter().any(|p| meta_str(p, "uid") == uid));
        // The pods a preemption nominated a node for, by uid: counted there
        // for pods of no higher priority, as upstream's filters count them.
        let mut nominated: Nominated = BTreeMap::new();
        for p in &pending {
            if !nominated_node(p).is_empty() {
                nominated.insert(meta_str(p, "uid").to_string(), Arc::clone(p));
            }
        }
        self.bound_now.clear();
        self.matching.clear();
        self.repelling_now = 0;
        let volumes = self.volumes.take();
        for pod in pending {
            self.schedule(client, &pod, &nodes, &mut used, &mut nominated, volumes.as_deref());
        }
        self.volumes = volumes;
        Progress { writes: client.writes - before }
    }
}

impl Scheduler {
    #[inline(never)]
    fn watch_volumes(&mut self, client: &mut Client<'_>) {
        let mut v = Box::new(volume_binding::VolumeBinding::new());
        v.sync(client);
        self.volumes = Some(v);
    }

    fn schedule(
        &mut self,
        client: &mut Client<'_>,
        pod: &Arc<Value>,
        nodes: &[Arc<Value>],
        used: &mut BTreeMap<String, Used>,
        nominated: &mut Nominated,
        volumes: Option<&volume_binding::VolumeBinding>,
    ) {
        let demand = requests(&pod["spec"]);
        let claims = match volumes.filter(|_| volume_binding::uses_claims(pod)) {
            None => None,
            Some(v) => match v.pre_filter(pod) {
                Ok(c) if c.waiting(v.volumes()) => return,
                Ok(c) => Some(c),
                Err(why) => return self.not_placed(client, pod, demand, nodes, used, nominated, &[], Some(&why)),
            },
        };
        let hood = if self.looks_around(pod) { self.neighbourhood(client, pod, nodes, &|_| false) } else { None };
        let mut misfits: Vec<(usize, Misfit)> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let name = meta_str(node, "name");
            let u = with_nominated(used.get(name).copied().unwrap_or_default(), pod, name, nominated);
            let bound_volumes = || volumes?.misfit(claims.as_ref()?, node);
            if let Some(why) =
                misfit(pod, demand, node, &u).or_else(bound_volumes).or_else(|| hood.as_ref()?.misfit(node))
            {
                misfits.push((i, why));
            }
        }
        // The nodes that fit are scored (as upstream's, without the
        // nominated pods the filters count).
        let mut preferred = preferences(pod, nodes, &misfits);
        if self.weighs_neighbours(pod) {
            self.affinity_scores(client, pod, nodes, &misfits, &mut preferred);
        }
        // Upstream scores nothing when one node fits.
        if spreading::spreads(pod) && nodes.len() > misfits.len() + 1 {
            self.spread_scores(client, pod, nodes, &misfits, &mut preferred);
        }
        let best = best_node(pod, demand, nodes, &misfits, used, &preferred);
        let (ns, name) = (meta_str(pod, "namespace"), meta_str(pod, "name"));
        match best {
            Some(node) => {
                if let (Some(v), Some(c)) = (volumes, &claims) {
                    let chosen = nodes.iter().find(|n| meta_str(n, "name") == node.as_str());
                    if chosen.is_some_and(|n| v.pre_bind(client, c, n)) {
                        return;
                    }
                }
                let binding = json!({"kind": "Binding", "apiVersion": "v1",
                    "metadata": {"name": name, "namespace": ns, "uid": meta_str(pod, "uid")},
                    "target": {"kind": "Node", "name": node}});
                let r = client.write(
                    "POST",
                    &format!("{}/binding", path_of("v1", "pods", pod)),
                    "application/json",
                    &binding,
                );
                if r.status == 201 {
                    used.entry(node.clone()).or_default().add(&pod["spec"]);
                    self.repelling_now += usize::from(neighbours::repels(pod));
                    self.bound_now.push((node.clone(), Arc::clone(pod)));
                    if !self.matching.is_empty() {
                        self.count_bound(pod, nodes, &node);
                    }
                    nominated.remove(meta_str(pod, "uid"));
                    let message = format!("Successfully assigned {ns}/{name} to {node}");
                    self.recorder.event(
                        client,
                        pod,
                        ("v1", "Pod"),
                        EventType::Normal,
                        "Scheduled",
                        "Binding",
                        &message,
                    );
                }
            }
            None if nodes.is_empty() => {
                self.unschedulable(client, pod, "no nodes available to schedule pods".into(), None);
            }
            None => self.not_placed(client, pod, demand, nodes, used, nominated, &misfits, None),
        }
    }

    /// A pod no node fits: why, in upstream's words, after preemption was
    /// tried; with a PreFilter's refusal (`pre_filter`), every node failed
    /// that way, unresolvably. (Not inlined, as `preempt`: the round runs
    /// at start, this seldom.)
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn not_placed(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        demand: Demand,
        nodes: &[Arc<Value>],
        used: &BTreeMap<String, Used>,
        nominated: &mut Nominated,
        misfits: &[(usize, Misfit)],
        pre_filter: Option<&str>,
    ) {
        let total = nodes.len();
        let refused: Vec<(usize, Misfit)>;
        let misfits = match pre_filter {
            Some(why) => {
                let misfit = |i| (i, Misfit { reasons: vec![why.to_string()], resolvable: false });
                refused = (0..total).map(misfit).collect();
                &refused
            }
            None => misfits,
        };
        let message = match pre_filter {
            // A PreFilter's refusal is told as it is, not per node.
            Some(why) => format!("0/{total} nodes are available: {why}."),
            None => {
                let filtered = histogram(misfits.iter().flat_map(|(_, m)| m.reasons.iter().map(String::as_str)));
                format!("0/{total} nodes are available: {filtered}.")
            }
        };
        let (message, nomination) = match self.preempt(client, pod, demand, nodes, used, nominated, misfits) {
            preemption::Outcome::NotEligible(why) => (format!("{message} preemption: {why}"), None),
            preemption::Outcome::NoCandidates(why) => (format!("{message} preemption: {why}"), Some(None)),
            preemption::Outcome::Nominated(node) => {
                let mut now_nominated = pod.clone();
                now_nominated["status"]["nominatedNodeName"] = json!(node);
                nominated.insert(meta_str(pod, "uid").to_string(), Arc::new(now_nominated));
                (message, Some(Some(node)))
            }
        };
        self.unschedulable(client, pod, message, nomination);
    }

    /// Records why a pod was not bound: its `PodScheduled` condition and a
    /// `FailedScheduling` event; with a `nomination`, the node a preemption
    /// made room on (`Some(None)`: none any more) in the same status patch.
    fn unschedulable(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        message: String,
        nomination: Option<Option<String>>,
    ) {
        let had = pod["status"]["nominatedNodeName"].as_str().filter(|n| !n.is_empty());
        let nomination = nomination.filter(|n| n.as_deref() != had);
        let current = pod["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "PodScheduled"))
            .cloned();
        let uid = meta_str(pod, "uid").to_string();
        let now = client.now_millis();
        let unchanged = nomination.is_none()
            && current.as_ref().is_some_and(|c| c["status"] == "False" && c["message"] == message.as_str());
        if unchanged {
            // Tried again after its time as unschedulable: the same
            // failure, recorded again (a series of the event).
            if self.retry_at.get(&uid).is_some_and(|t| *t <= now) {
                self.retry_at.insert(uid, now + UNSCHEDULABLE_RETRY_MS);
                let event = (EventType::Warning, "FailedScheduling", "Scheduling");
                self.recorder.event(client, pod, ("v1", "Pod"), event.0, event.1, event.2, &message);
            }
            return;
        }
        let condition = json!({"type": "PodScheduled", "status": "False", "lastProbeTime": null,
            "lastTransitionTime": client.now_rfc3339(), "reason": "Unschedulable", "message": message});
        let mut body = json!({"metadata": {"uid": meta_str(pod, "uid")}, "status": {"conditions": [condition]}});
        if let Some(node) = nomination {
            body["status"]["nominatedNodeName"] = json!(node);
        }
        let path = format!("{}/status", path_of("v1", "pods", pod));
        let r = client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
        if r.status == 200 {
            self.retry_at.insert(uid, now + UNSCHEDULABLE_RETRY_MS);
            self.recorder.event(
                client,
                pod,
                ("v1", "Pod"),
                EventType::Warning,
                "FailedScheduling",
                "Scheduling",
                &message,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{balanced_allocation, least_allocated};

    #[test]
    fn resource_scores_truncate_as_upstream_integers_do() {
        // (2000-600)*100/2000 = 70 and (4096-3584)*100/4096 = 12.5 → 12;
        // their average 41.
        assert_eq!(least_allocated(&[(600, 2000), (3584, 4096)]), 41);
        // A resource asked beyond what the node has scores 0; one the
        // node has none of is left out of the average.
        assert_eq!(least_allocated(&[(3000, 2000), (0, 100)]), 50);
        assert_eq!(least_allocated(&[(10, 0), (25, 100)]), 75);
        assert_eq!(least_allocated(&[(10, 0)]), 0);
        // Fractions 0.25 and 0.875: deviation 0.3125, 68.75 → 68.
        assert_eq!(balanced_allocation((500, 2000), (3584, 4096)), 68);
        assert_eq!(balanced_allocation((3584, 4096), (500, 2000)), 68);
        // Fractions are capped at 1; alike fractions are balanced.
        assert_eq!(balanced_allocation((5000, 2000), (4096, 4096)), 100);
        assert_eq!(balanced_allocation((1, 0), (50, 100)), 100);
        assert_eq!(balanced_allocation((0, 10), (10, 10)), 50);
    }
}
