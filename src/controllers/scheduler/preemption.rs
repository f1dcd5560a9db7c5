//! Preemption (kube-scheduler's `DefaultPreemption` plugin): a pod no node
//! fits may take the place of pods of lower priority.
//!
//! A pod is not eligible when its `preemptionPolicy` is `Never`, or while a
//! pod it preempted on its nominated node is still terminating. Otherwise
//! each node that failed only a filter taking pods off could help
//! (resources, topology spread, anti-affinity) is tried: every pod of
//! lower priority comes off it; if the pod then fits, the most important
//! of them (priority, then the earliest start) go back one by one while it
//! still fits — those a PodDisruptionBudget would not allow to go first —
//! and the rest are the node's victims. Of the nodes with victims, the one
//! with the fewest budget violations wins, then the lowest highest victim
//! priority, the lowest sum of priorities, the fewest victims, the latest
//! start of its most important victims, and the node order (upstream: a
//! random start). Each victim gets the `DisruptionTarget` condition
//! (`PreemptionByScheduler`) through its status, is deleted with its own
//! grace period, and gets a `Preempted` event; pods of lower priority
//! nominated to that node lose their nomination; the pod is nominated to
//! it (`status.nominatedNodeName`) and bound there once the victims are
//! gone.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::super::client::Client;
use super::super::events::EventType;
use super::super::informer::Informer;
use super::super::object::{meta_str, path_of, selects};
use super::{
    histogram, misfit, nominated_node, priority_of, priority_prefix, spec_in_use, with_nominated, Demand, Misfit,
    Nominated, Scheduler, Used,
};
use crate::selector::LabelSelector;
use crate::sort::Order;

/// What preemption did for a pod.
pub(super) enum Outcome {
    /// It may not preempt (the words after `preemption: `).
    NotEligible(&'static str),
    /// No node would fit it however many pods went: why, per node.
    NoCandidates(String),
    /// Pods were preempted on this node for it.
    Nominated(String),
}

/// A node and the pods that must go for the pod to fit there.
struct Candidate {
    node: String,
    victims: Vec<Arc<Value>>,
    violations: usize,
}

/// Whether a pod is being deleted because a preemption took its place.
fn terminating_by_preemption(pod: &Value) -> bool {
    !pod["metadata"]["deletionTimestamp"].is_null()
        && pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "DisruptionTarget" && c["status"] == "True" && c["reason"] == "PreemptionByScheduler")
}

/// When a pod started (one not started yet counts as now).
fn start_of<'a>(pod: &'a Value, now: &'a str) -> &'a str {
    pod["status"]["startTime"].as_str().unwrap_or(now)
}

impl Scheduler {
    /// Tries to make room for `pod`, which no node fits (`misfits`: why,
    /// by the node's place in `nodes`). Never inlined: the scheduler runs
    /// at start, preemption seldom, and the browser's module loads what
    /// runs at start first, function by function.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn preempt(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        demand: Demand,
        nodes: &[Arc<Value>],
        used: &BTreeMap<String, Used>,
        nominated: &mut Nominated,
        misfits: &[(usize, Misfit)],
    ) -> Outcome {
        if pod["spec"]["preemptionPolicy"] == "Never" {
            return Outcome::NotEligible("not eligible due to preemptionPolicy=Never.");
        }
        let priority = priority_of(pod);
        if let Some(at) = pod["status"]["nominatedNodeName"].as_str().filter(|n| !n.is_empty()) {
            let unresolvable = misfits.iter().any(|(i, m)| !m.resolvable && meta_str(&nodes[*i], "name") == at);
            let waiting = self.lower_on(at, priority).any(|p| terminating_by_preemption(p));
            if !unresolvable && waiting {
                return Outcome::NotEligible("not eligible due to a terminating pod on the nominated node.");
            }
        }
        let mut budgets_synced = false;
        let now = client.now_rfc3339();
        let mut statuses: Vec<String> = Vec::new();
        let mut tried = 0;
        let mut candidates = Vec::new();
        for (i, _) in misfits.iter().filter(|(_, m)| m.resolvable) {
            tried += 1;
            let node = &nodes[*i];
            let name = meta_str(node, "name");
            let mut lower: Vec<Arc<Value>> = self.lower_on(name, priority).cloned().collect();
            if lower.is_empty() {
                statuses.push("No preemption victims found for incoming pod".into());
                continue;
            }
            let mut u = with_nominated(used.get(name).copied().unwrap_or_default(), pod, name, nominated);
            for p in &lower {
                u.count(&spec_in_use(p), -1);
            }
            // The uids of the pods taken off, for the filters that look at
            // placed pods.
            let mut off: Vec<String> = lower.iter().map(|p| meta_str(p, "uid").to_string()).collect();
            if let Some(still) = self.misfit_without(client, pod, demand, nodes, *i, &u, &off) {
                statuses.extend(still.reasons);
                continue;
            }
            // The most important first: higher priority, then started earlier.
            lower.order_by_key(|p| (Reverse(priority_of(p)), start_of(p, &now).to_string()));
            if !budgets_synced {
                // Watched from the first node where pods could go.
                let budgets = self.budgets.get_or_insert_with(|| Informer::new("/apis/policy/v1/poddisruptionbudgets"));
                budgets.sync(client);
                budgets_synced = true;
            }
            let (violating, allowed) = self.split_by_budgets(lower);
            let mut victims = Vec::new();
            let mut violations = 0;
            for (p, violates) in violating.into_iter().map(|p| (p, true)).chain(allowed.into_iter().map(|p| (p, false)))
            {
                let spec = spec_in_use(&p).into_owned();
                u.count(&spec, 1);
                off.retain(|uid| uid != meta_str(&p, "uid"));
                if self.misfit_without(client, pod, demand, nodes, *i, &u, &off).is_some() {
                    u.count(&spec, -1);
                    off.push(meta_str(&p, "uid").to_string());
                    violations += usize::from(violates);
                    victims.push(p);
                }
            }
            victims.order_by_key(|p| (Reverse(priority_of(p)), start_of(p, &now).to_string()));
            candidates.push(Candidate { node: name.to_string(), victims, violations });
        }
        let Some(chosen) = pick(candidates, &now) else {
            let absent = nodes.len() - tried;
            let reasons = statuses
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat_n("Preemption is not helpful for scheduling", absent));
            return Outcome::NoCandidates(format!("0/{} nodes are available: {}.", nodes.len(), histogram(reasons)));
        };
        let scheduler = pod["spec"]["schedulerName"].as_str().unwrap_or("default-scheduler");
        for victim in &chosen.victims {
            self.take_off(client, victim, pod, scheduler, &chosen.node);
        }
        // Pods of lower priority nominated to the node lose the nomination.
        let lower_nominated: Vec<String> = nominated
            .iter()
            .filter(|(_, p)| nominated_node(p) == chosen.node && priority_of(p) < priority)
            .map(|(uid, _)| uid.clone())
            .collect();
        for uid in lower_nominated {
            if let Some(p) = nominated.remove(&uid) {
                let path = format!("{}/status", path_of("v1", "pods", &p));
                let body = json!({"status": {"nominatedNodeName": null}});
                client.write("PATCH", &path, "application/strategic-merge-patch+json", &body);
            }
        }
        Outcome::Nominated(chosen.node)
    }

    /// Why the pod would not fit `nodes[i]` with what its pods use `u`
    /// and the pods of uids `off` gone, or None.
    #[allow(clippy::too_many_arguments)]
    fn misfit_without(
        &mut self,
        client: &mut Client<'_>,
        pod: &Value,
        demand: Demand,
        nodes: &[Arc<Value>],
        i: usize,
        u: &Used,
        off: &[String],
    ) -> Option<Misfit> {
        let node = &nodes[i];
        misfit(pod, demand, node, u).or_else(|| {
            let gone = |p: &Value| off.iter().any(|uid| uid == meta_str(p, "uid"));
            self.neighbourhood(client, pod, nodes, &gone)?.misfit(node)
        })
    }

    /// The pods bound to `node` of lower priority than `priority`.
    fn lower_on(&self, node: &str, priority: i64) -> impl Iterator<Item = &Arc<Value>> {
        let (lowest, below) = (priority_prefix(node, i64::MIN), priority_prefix(node, priority));
        self.on_node.range(lowest..below).map(|(_, p)| p)
    }

    /// Victims their PodDisruptionBudgets would not allow to go (the
    /// budgets' allowed disruptions counted down as they are taken), and
    /// the others, each in the order given.
    fn split_by_budgets(&self, pods: Vec<Arc<Value>>) -> (Vec<Arc<Value>>, Vec<Arc<Value>>) {
        let mut allowed: BTreeMap<String, i64> = BTreeMap::new();
        let budgets: Vec<(String, &Value, LabelSelector)> = self
            .budgets
            .iter()
            .flat_map(|b| b.objects())
            .filter_map(|b| {
                let text = crate::selector::label_selector_string(b["spec"].get("selector"));
                // An empty selector here selects nothing, as upstream's preemption reads it.
                let selector = LabelSelector::parse(&text).ok().filter(|_| !text.is_empty())?;
                Some((format!("{}/{}", meta_str(b, "namespace"), meta_str(b, "name")), b, selector))
            })
            .collect();
        let (mut violating, mut rest) = (Vec::new(), Vec::new());
        for p in pods {
            let mut violates = false;
            for (key, b, selector) in &budgets {
                if meta_str(b, "namespace") != meta_str(&p, "namespace") || !selects(selector, &p) {
                    continue;
                }
                if b["status"]["disruptedPods"].get(meta_str(&p, "name")).is_some() {
                    continue;
                }
                let left = allowed
                    .entry(key.clone())
                    .or_insert_with(|| b["status"]["disruptionsAllowed"].as_i64().unwrap_or(0));
                *left -= 1;
                violates |= *left < 0;
            }
            if violates {
                violating.push(p);
            } else {
                rest.push(p);
            }
        }
        (violating, rest)
    }

    /// Takes a victim off its node: the `DisruptionTarget` condition, the
    /// delete, the `Preempted` event (about it, related to the preemptor).
    fn take_off(&mut self, client: &mut Client<'_>, victim: &Value, preemptor: &Value, scheduler: &str, node: &str) {
        let path = path_of("v1", "pods", victim);
        let message = format!("{scheduler}: preempting to accommodate a higher priority pod");
        let marked = victim["status"]["conditions"].as_array().into_iter().flatten().any(|c| {
            c["type"] == "DisruptionTarget"
                && c["status"] == "True"
                && c["reason"] == "PreemptionByScheduler"
                && c["message"] == message.as_str()
        });
        if !marked {
            let condition = json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null,
                "lastTransitionTime": client.now_rfc3339(), "reason": "PreemptionByScheduler", "message": message});
            let body = json!({"status": {"conditions": [condition]}});
            let r = client.write("PATCH", &format!("{path}/status"), "application/strategic-merge-patch+json", &body);
            if r.status != 200 {
                return;
            }
        }
        let r = client.send("DELETE", &path, None);
        if r.status == 404 {
            return;
        }
        let note = format!("Preempted by pod {} on node {node}", meta_str(preemptor, "uid"));
        self.recorder.related = Some(super::super::events::reference_to(preemptor, ("v1", "Pod")));
        self.recorder.event(client, victim, ("v1", "Pod"), EventType::Normal, "Preempted", "Preempting", &note);
    }
}

/// The node to preempt on: upstream's `pickOneNodeForPreemption` order.
fn pick(candidates: Vec<Candidate>, now: &str) -> Option<Candidate> {
    if let Some(i) = candidates.iter().position(|c| c.victims.is_empty()) {
        return candidates.into_iter().nth(i);
    }
    candidates.into_iter().min_by_key(|c| {
        let highest = c.victims.first().map(|p| priority_of(p)).unwrap_or(i64::MIN);
        let sum: i128 = c.victims.iter().map(|p| i128::from(priority_of(p)) + i128::from(i32::MAX) + 1).sum();
        let earliest = c
            .victims
            .iter()
            .filter(|p| priority_of(p) == highest)
            .map(|p| start_of(p, now).to_string())
            .min()
            .unwrap_or_default();
        (c.violations, highest, sum, c.victims.len(), Reverse(earliest))
    })
}
