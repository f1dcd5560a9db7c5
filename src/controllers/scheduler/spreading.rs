//! `PodTopologySpread`'s score: the pod's `ScheduleAnyway` constraints,
//! or, for a pod with no spread constraints at all, the plugin's system
//! defaults (kube-scheduler's `defaultingType: System`): by node
//! (`kubernetes.io/hostname`, maxSkew 3) and by zone
//! (`topology.kubernetes.io/zone`, maxSkew 5), counting the pods that
//! the Services selecting the pod and its controlling
//! ReplicationController, ReplicaSet or StatefulSet select. That is what
//! spreads a Deployment's replicas over nodes upstream, whatever they
//! request.

use std::sync::Arc;

use serde_json::Value;

use super::super::informer::Informer;
use super::super::object::{controller_of, meta_str, selects};
use super::neighbours::{constraints, label, spread_selector_text};
use super::{node_selected, untolerated_taint, Misfit, Scheduler};
use crate::selector::{label_selector_string, set_selector_string, LabelSelector};
use crate::sort::Order;

const HOSTNAME: &str = "kubernetes.io/hostname";
const ZONE: &str = "topology.kubernetes.io/zone";

/// A `ScheduleAnyway` constraint as the score reads it.
struct Soft<'a> {
    key: &'a str,
    max_skew: i64,
    /// The pods it counts (None, or empty: none), and its text.
    text: String,
    selector: Option<LabelSelector>,
    /// Nodes that the pod's node affinity does not select count too.
    affinity_ignored: bool,
    /// Nodes with taints the pod does not tolerate do not count.
    taints_honoured: bool,
}

impl<'a> Soft<'a> {
    fn read(pod: &Value, c: &'a Value) -> Soft<'a> {
        let text = spread_selector_text(pod, c);
        Soft {
            key: c["topologyKey"].as_str().unwrap_or(""),
            max_skew: c["maxSkew"].as_i64().unwrap_or(1),
            selector: text.as_ref().and_then(|t| LabelSelector::parse(t).ok()),
            text: text.unwrap_or_default(),
            affinity_ignored: c["nodeAffinityPolicy"] == "Ignore",
            taints_honoured: c["nodeTaintsPolicy"] == "Honor",
        }
    }

    /// Whether the pods on `node` count toward its domain (node
    /// inclusion policies: affinity honoured, taints ignored unless asked).
    fn counts_on(&self, pod: &Value, node: &Value) -> bool {
        (self.affinity_ignored || node_selected(pod, node))
            && (!self.taints_honoured || untolerated_taint(pod, node).is_none())
    }
}

/// The objects whose selectors make a pod's default spreading selector.
pub(super) struct Selecting {
    services: Informer,
    replication_controllers: Informer,
    replica_sets: Informer,
    stateful_sets: Informer,
}

/// The placed pods a spreading selector selects in a namespace, by node.
/// A round counts each selector once, not once for each pod it
/// schedules (a workload's replicas share theirs): the placed pods change
/// within a round only by what it binds.
pub(super) struct Matching {
    namespace: String,
    text: String,
    selector: LabelSelector,
    /// By the round's nodes (in name order).
    on_node: Vec<i64>,
}

/// Where the node named `name` is among `nodes` (in name order).
fn node_index(nodes: &[Arc<Value>], name: &str) -> Option<usize> {
    nodes.binary_search_by(|n| meta_str(n, "name").cmp(name)).ok()
}

/// Whether `PodTopologySpread` scores nodes for `pod`: it has a
/// `ScheduleAnyway` constraint, or no constraints (the defaults apply
/// when something selects it).
#[inline(always)]
pub(super) fn spreads(pod: &Value) -> bool {
    pod["spec"]["topologySpreadConstraints"]
        .as_array()
        .is_none_or(|cs| cs.is_empty() || cs.iter().any(|c| c["whenUnsatisfiable"] == "ScheduleAnyway"))
}

impl Scheduler {
    /// Upstream's default selector for `pod` (its `DefaultSelector`), as
    /// text: the selectors of the Services in its namespace that select it,
    /// merged, and its controlling ReplicationController's, ReplicaSet's or
    /// StatefulSet's; empty when that selects nothing.
    fn default_selector(&mut self, client: &mut super::Client<'_>, pod: &Value) -> String {
        let s = self.selecting.get_or_insert_with(|| {
            Box::new(Selecting {
                services: Informer::new("/api/v1/services"),
                replication_controllers: Informer::new("/api/v1/replicationcontrollers"),
                replica_sets: Informer::new("/apis/apps/v1/replicasets"),
                stateful_sets: Informer::new("/apis/apps/v1/statefulsets"),
            })
        });
        s.services.sync(client);
        let ns = meta_str(pod, "namespace");
        let labels = &pod["metadata"]["labels"];
        // Each selecting Service's pairs (alike where two Services share a
        // key: both select the pod), in order.
        let mut text: Vec<String> = Vec::new();
        for service in s.services.in_namespace(ns) {
            let Some(wanted) = service["spec"]["selector"].as_object().filter(|w| !w.is_empty()) else { continue };
            if wanted.iter().all(|(k, v)| labels.get(k) == Some(v)) {
                text.extend(wanted.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))));
            }
        }
        text.order();
        let owner = controller_of(pod);
        let owners = match owner.map(|o| (o["apiVersion"].as_str(), o["kind"].as_str())) {
            Some((Some("v1"), Some("ReplicationController"))) => Some(&mut s.replication_controllers),
            Some((Some("apps/v1"), Some("ReplicaSet"))) => Some(&mut s.replica_sets),
            Some((Some("apps/v1"), Some("StatefulSet"))) => Some(&mut s.stateful_sets),
            _ => None,
        };
        if let (Some(owners), Some(owner)) = (owners, owner) {
            owners.sync(client);
            let key = format!("{ns}/{}", owner["name"].as_str().unwrap_or(""));
            if let Some(workload) = owners.get(&key) {
                let selector = workload["spec"].get("selector").filter(|v| v.is_object());
                let own = match owner["kind"] == "ReplicationController" {
                    true => set_selector_string(selector),
                    false => label_selector_string(selector),
                };
                text.extend((!own.is_empty()).then_some(own));
            }
        }
        text.join(",")
    }

    /// Where this round's count of the placed pods of namespace `ns` that
    /// `selector` (its text) selects and that are not being deleted, on
    /// each of the round's `nodes`, is in `self.matching`: counted the
    /// first time a round asks (see `Matching`).
    fn matching(&mut self, ns: &str, text: &str, selector: &LabelSelector, nodes: &[Arc<Value>]) -> usize {
        if let Some(i) = self.matching.iter().position(|m| m.namespace == ns && m.text == text) {
            return i;
        }
        let mut on_node = vec![0i64; nodes.len()];
        for (node, p) in self.placed() {
            if meta_str(p, "namespace") == ns && p["metadata"]["deletionTimestamp"].is_null() && selects(selector, p) {
                if let Some(i) = node_index(nodes, node) {
                    on_node[i] += 1;
                }
            }
        }
        let parsed = LabelSelector::parse(text).unwrap_or_default();
        self.matching.push(Matching { namespace: ns.to_string(), text: text.to_string(), selector: parsed, on_node });
        self.matching.len() - 1
    }

    /// Counts a pod this round bound to `node` (of the round's `nodes`)
    /// where it matches.
    pub(super) fn count_bound(&mut self, pod: &Value, nodes: &[Arc<Value>], node: &str) {
        let Some(i) = node_index(nodes, node) else { return };
        for m in &mut self.matching {
            if m.namespace == meta_str(pod, "namespace") && selects(&m.selector, pod) {
                m.on_node[i] += 1;
            }
        }
    }

    /// Adds to the score of each node that fits (all but the `misfits`)
    /// what kube-scheduler's `PodTopologySpread` gives it, weighted 2:
    /// per constraint, the matching pods in its domain times
    /// log(domains + 2) plus maxSkew − 1, summed and rounded, then scaled
    /// so the fewest scores 100 (upstream's `100 × (max + min − score) /
    /// max`). With the pod's own constraints, a node without every key
    /// scores 0; with the defaults, a node without a key is only not
    /// scored by that constraint.
    #[inline(never)]
    pub(super) fn spread_scores(
        &mut self,
        client: &mut super::Client<'_>,
        pod: &Value,
        nodes: &[Arc<Value>],
        misfits: &[(usize, Misfit)],
        scores: &mut Vec<i64>,
    ) {
        let fits = |i: usize| !misfits.iter().any(|(m, _)| *m == i);
        let own = pod["spec"]["topologySpreadConstraints"].as_array().is_some_and(|cs| !cs.is_empty());
        let mut soft: Vec<Soft> = Vec::new();
        if own {
            for c in constraints(pod, "ScheduleAnyway") {
                soft.push(Soft::read(pod, c));
            }
        } else {
            // The defaults score nothing on nodes with neither key.
            let keyed = |n: &Arc<Value>| label(n, HOSTNAME).is_some() || label(n, ZONE).is_some();
            if !nodes.iter().enumerate().any(|(i, n)| fits(i) && keyed(n)) {
                return;
            }
            let text = self.default_selector(client, pod);
            if text.is_empty() {
                return;
            }
            for (key, max_skew) in [(HOSTNAME, 3), (ZONE, 5)] {
                let selector = LabelSelector::parse(&text).ok();
                let text = text.clone();
                soft.push(Soft { key, max_skew, text, selector, affinity_ignored: false, taints_honoured: false });
            }
        }
        // Each node's raw score; None for a node that does not fit, or that
        // lacks a key of the pod's own constraints (not scored).
        let scored = |node: &Value| !own || soft.iter().all(|c| label(node, c.key).is_some());
        let mut raw: Vec<Option<f64>> =
            nodes.iter().enumerate().map(|(i, n)| (fits(i) && scored(n)).then_some(0.0)).collect();
        let ns = meta_str(pod, "namespace");
        for c in &soft {
            // No node scored has the key: it adds nothing anywhere.
            let with_key = |i: usize| raw[i].is_some() && label(&nodes[i], c.key).is_some();
            let Some(selector) = c.selector.as_ref().filter(|s| !s.is_empty()) else { continue };
            if !(0..nodes.len()).any(with_key) {
                continue;
            }
            // Each node's domain (a node without the key in the empty
            // one), the domains of the nodes scored, in order, and the pods
            // that match in each.
            let values: Vec<&str> = nodes.iter().map(|n| label(n, c.key).unwrap_or("")).collect();
            let mut domains: Vec<&str> =
                values.iter().zip(&raw).filter(|(_, r)| r.is_some()).map(|(v, _)| *v).collect();
            domains.order();
            domains.dedup();
            let mut counts = vec![0i64; domains.len()];
            let by_node = c.key == HOSTNAME;
            let m = self.matching(ns, &c.text, selector, nodes);
            for (j, matching) in self.matching[m].on_node.iter().enumerate() {
                // Per node, every pod on it counts; per domain, those on
                // the nodes the constraint counts.
                let node = &nodes[j];
                if *matching > 0 && scored(node) && (by_node || c.counts_on(pod, node)) {
                    if let Ok(d) = domains.binary_search(&values[j]) {
                        counts[d] += matching;
                    }
                }
            }
            let size = if by_node { raw.iter().flatten().count() } else { domains.len() };
            let weight = ((size + 2) as f64).ln();
            for ((node, r), value) in nodes.iter().zip(raw.iter_mut()).zip(&values) {
                if let (Some(r), Ok(d)) = (r, domains.binary_search(value)) {
                    if label(node, c.key).is_some() {
                        *r += counts[d] as f64 * weight + (c.max_skew - 1) as f64;
                    }
                }
            }
        }
        let rounded = |r: &Option<f64>| r.map(|r| r.round() as i64);
        let most = raw.iter().filter_map(rounded).fold(0, i64::max);
        let fewest = raw.iter().filter_map(rounded).fold(i64::MAX, i64::min);
        scores.resize(nodes.len(), 0);
        for (score, r) in scores.iter_mut().zip(&raw) {
            *score += 2 * match rounded(r) {
                None => 0,
                Some(_) if most == 0 => 100,
                Some(s) => (100 * (i128::from(most) + i128::from(fewest) - i128::from(s)) / i128::from(most)) as i64,
            };
        }
    }
}
