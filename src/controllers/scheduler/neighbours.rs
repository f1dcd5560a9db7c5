//! The filters that look at the pods already placed, after the resources
//! in upstream's order: topology spread constraints (kube-scheduler's
//! `PodTopologySpread`, the `DoNotSchedule` ones) and required inter-pod
//! affinity (`InterPodAffinity`: the pod's affinity and anti-affinity, and
//! the anti-affinity of the pods already there); and the score that looks
//! at them for affinity (`InterPodAffinity`'s preferred terms;
//! `PodTopologySpread`'s score is in `spreading`).
//!
//! As upstream's plugins, each is worked out once per pod (its PreFilter:
//! counts per topology domain, a domain being a node label's key and
//! value) and then asked about each node. Preemption asks again with its
//! victims left out. Nothing here runs for a pod that has no such terms
//! while no placed pod has required anti-affinity (nor, for the scores,
//! preferred terms or required affinity): the browser's module loads what
//! runs at start first, and the starter cluster has none.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::super::informer::Informer;
use super::super::object::{meta_str, selects};
use super::{node_selected, untolerated_taint, Misfit, Scheduler};
use crate::selector::{label_selector_string, LabelSelector};

/// A topology domain: a node label's key and value.
type Domain = (String, String);

const AFFINITY: &str = "node(s) didn't match pod affinity rules";
const ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
const EXISTING_ANTI_AFFINITY: &str = "node(s) didn't satisfy existing pods anti-affinity rules";
const SPREAD: &str = "node(s) didn't match pod topology spread constraints";
const SPREAD_LABEL: &str = "node(s) didn't match pod topology spread constraints (missing required label)";

/// A label selector as a `LabelSelector` object reads: absent (or one
/// that does not parse) selects nothing, `{}` everything.
fn selector_of(value: Option<&Value>) -> Option<LabelSelector> {
    let value = value.filter(|v| v.is_object())?;
    LabelSelector::parse(&label_selector_string(Some(value))).ok()
}

pub(super) fn label<'a>(node: &'a Value, key: &str) -> Option<&'a str> {
    node["metadata"]["labels"][key].as_str()
}

/// A required pod affinity term, read once.
struct Term {
    namespaces: Vec<String>,
    /// Namespaces chosen by their labels (`namespaceSelector`; `{}`: all).
    namespace_selector: Option<LabelSelector>,
    selector: Option<LabelSelector>,
    key: String,
}

impl Term {
    /// The terms of `owner`'s `podAffinity` or `podAntiAffinity`.
    fn all(owner: &Value, kind: &str) -> Vec<Term> {
        let terms = &owner["spec"]["affinity"][kind][REQUIRED];
        let terms = terms.as_array().map(Vec::as_slice).unwrap_or(&[]);
        terms.iter().map(|t| Term::read(owner, t)).collect()
    }

    /// One term of `owner`'s.
    fn read(owner: &Value, t: &Value) -> Term {
        let mut namespaces: Vec<String> =
            t["namespaces"].as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect();
        let namespace_selector = selector_of(t.get("namespaceSelector"));
        if namespaces.is_empty() && t.get("namespaceSelector").is_none_or(Value::is_null) {
            // Neither: the owner's own namespace.
            namespaces.push(meta_str(owner, "namespace").to_string());
        }
        Term {
            namespaces,
            namespace_selector,
            selector: selector_of(t.get("labelSelector")),
            key: t["topologyKey"].as_str().unwrap_or("").to_string(),
        }
    }

    /// The preferred terms of `owner`'s `podAffinity` and
    /// `podAntiAffinity`, each with its weight (negated for anti-affinity).
    fn weighted(owner: &Value) -> Vec<(i64, Term)> {
        let mut weighted = Vec::new();
        for (kind, sign) in [("podAffinity", 1), ("podAntiAffinity", -1)] {
            let terms = &owner["spec"]["affinity"][kind][PREFERRED];
            for t in terms.as_array().into_iter().flatten() {
                let weight = t["weight"].as_i64().unwrap_or(0).saturating_mul(sign);
                weighted.push((weight, Term::read(owner, &t["podAffinityTerm"])));
            }
        }
        weighted
    }

    /// Whether the term selects `pod` (its namespace, then its labels).
    fn selects(&self, pod: &Value, namespaces: Option<&Informer>) -> bool {
        let ns = meta_str(pod, "namespace");
        let in_namespace = self.namespaces.iter().any(|n| n == ns)
            || self
                .namespace_selector
                .as_ref()
                .is_some_and(|s| s.is_empty() || namespaces.and_then(|i| i.get(ns)).is_some_and(|n| selects(s, n)));
        in_namespace && self.selector.as_ref().is_some_and(|s| selects(s, pod))
    }
}

/// A `DoNotSchedule` topology spread constraint and the matching pods in
/// each of its domains (those of the nodes it counts, empty ones too).
struct Spread {
    key: String,
    max_skew: i64,
    min_domains: i64,
    self_match: bool,
    counts: BTreeMap<String, i64>,
}

/// What the filters that look at placed pods worked out for one pod.
pub(super) struct Neighbourhood {
    spread: Vec<Spread>,
    affinity: Vec<Term>,
    anti: Vec<Term>,
    /// The pod matches all its own affinity terms.
    self_affine: bool,
    /// Placed pods matching all the pod's affinity terms, by domain.
    affine: BTreeMap<Domain, i64>,
    /// Placed pods matching one of its anti-affinity terms, per term, by domain.
    repelled: BTreeMap<Domain, i64>,
    /// Placed pods whose anti-affinity selects the pod, by domain.
    repelling: BTreeMap<Domain, i64>,
}

const REQUIRED: &str = "requiredDuringSchedulingIgnoredDuringExecution";
pub(super) const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";

/// Whether the pod's affinity lists a term in any of `places` (a kind of
/// affinity and `REQUIRED` or `PREFERRED`). One function for each such
/// question, asked of every pod the scheduler sees (at start too: less
/// code in the browser's part loaded first).
#[inline(never)]
pub(super) fn lists(pod: &Value, places: &[(&str, &str)]) -> bool {
    let affinity = &pod["spec"]["affinity"];
    places.iter().any(|(kind, when)| affinity[*kind][*when].as_array().is_some_and(|a| !a.is_empty()))
}

/// Whether a pod has terms these filters read.
#[inline(always)]
pub(super) fn has_terms(pod: &Value) -> bool {
    lists(pod, &[("podAffinity", REQUIRED), ("podAntiAffinity", REQUIRED)])
        || pod["spec"]["topologySpreadConstraints"].as_array().is_some_and(|a| !a.is_empty())
}

/// Whether a placed pod has required anti-affinity (it may keep others off).
#[inline(always)]
pub(super) fn repels(pod: &Value) -> bool {
    lists(pod, &[("podAntiAffinity", REQUIRED)])
}

fn do_not_schedule(pod: &Value) -> Vec<&Value> {
    constraints(pod, "DoNotSchedule")
}

pub(super) fn constraints<'a>(pod: &'a Value, when: &str) -> Vec<&'a Value> {
    let constraints = pod["spec"]["topologySpreadConstraints"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    constraints.iter().filter(|c| c["whenUnsatisfiable"] == when).collect()
}

/// Whether `pod` has terms the affinity score of placed pods reads:
/// preferred pod (anti-)affinity.
#[inline(always)]
fn weighs(pod: &Value) -> bool {
    lists(pod, &[("podAffinity", PREFERRED), ("podAntiAffinity", PREFERRED)])
}

/// Whether a placed pod's terms weigh on where others go: its preferred
/// pod (anti-)affinity, or its required pod affinity (upstream's
/// `hardPodAffinityWeight`).
#[inline(always)]
pub(super) fn attracts(pod: &Value) -> bool {
    lists(pod, &[("podAffinity", PREFERRED), ("podAntiAffinity", PREFERRED), ("podAffinity", REQUIRED)])
}

/// A constraint's selector with the pod's values of its `matchLabelKeys`
/// added (as upstream's scheduler merges them in 1.33).
fn spread_selector(pod: &Value, c: &Value) -> Option<LabelSelector> {
    LabelSelector::parse(&spread_selector_text(pod, c)?).ok()
}

/// `spread_selector` as text.
pub(super) fn spread_selector_text(pod: &Value, c: &Value) -> Option<String> {
    let base = c.get("labelSelector").filter(|v| v.is_object())?;
    let mut text = label_selector_string(Some(base));
    for key in c["matchLabelKeys"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        if let Some(v) = pod["metadata"]["labels"][key].as_str() {
            if !text.is_empty() {
                text.push(',');
            }
            text.push_str(&format!("{key}={v}"));
        }
    }
    Some(text)
}

impl Scheduler {
    /// Whether the filters that look at placed pods have anything to say
    /// about `pod`: it has terms, or a placed pod has anti-affinity.
    #[inline(always)]
    pub(super) fn looks_around(&self, pod: &Value) -> bool {
        has_terms(pod) || !self.repelling.is_empty() || self.repelling_now > 0
    }

    /// Whether the affinity score of placed pods can tell nodes apart for
    /// `pod`: it has terms it reads, or a placed pod does.
    #[inline(always)]
    pub(super) fn weighs_neighbours(&self, pod: &Value) -> bool {
        weighs(pod) || self.attracting > 0 || self.bound_now.iter().any(|(_, p)| attracts(p))
    }

    /// Adds to the score of each node that fits (all but the `misfits`;
    /// `scores` by node, empty for all zero) what kube-scheduler's
    /// `InterPodAffinity` score gives it, weighted 2: for each placed pod,
    /// the weight of each of the pod's preferred affinity terms selecting
    /// it (less, for anti-affinity), the weight of each of its own
    /// preferred terms selecting the pod, and 1 for each of its required
    /// affinity terms selecting the pod, counted for its node's domain of
    /// the term's key; a node scores the sum of its domains', scaled from
    /// the lowest (0) to the highest (100). (`PodTopologySpread`'s score is
    /// in `spreading`.)
    #[inline(never)]
    pub(super) fn affinity_scores(
        &mut self,
        client: &mut super::Client<'_>,
        pod: &Value,
        nodes: &[Arc<Value>],
        misfits: &[(usize, Misfit)],
        scores: &mut Vec<i64>,
    ) {
        let fits = super::fitting(nodes.len(), misfits);
        let own: Vec<(i64, Term)> = Term::weighted(pod);
        let theirs = |p: &Value| {
            let mut terms = Term::weighted(p);
            terms.extend(Term::all(p, "podAffinity").into_iter().map(|t| (1, t)));
            terms
        };
        let by_label = |terms: &[(i64, Term)]| {
            terms.iter().any(|(_, t)| t.namespace_selector.as_ref().is_some_and(|s| !s.is_empty()))
        };
        if by_label(&own) || self.placed().any(|(_, p)| attracts(p) && by_label(&theirs(p))) {
            let namespaces = self.namespaces.get_or_insert_with(|| Informer::new("/api/v1/namespaces"));
            namespaces.sync(client);
        }
        let namespaces = self.namespaces.as_ref();
        let node_of: BTreeMap<&str, &Value> = nodes.iter().map(|n| (meta_str(n, "name"), n.as_ref())).collect();
        let placed: Vec<(&Value, &Value)> =
            self.placed().filter_map(|(n, p)| Some((*node_of.get(n)?, p.as_ref()))).collect();
        // InterPodAffinity: each domain's sum.
        let mut domains: BTreeMap<Domain, i64> = BTreeMap::new();
        let mut add = |node: &Value, key: &str, weight: i64| {
            if let Some(v) = label(node, key) {
                let sum = domains.entry((key.to_string(), v.to_string())).or_default();
                *sum = sum.saturating_add(weight);
            }
        };
        for &(node, other) in &placed {
            for (w, t) in own.iter().filter(|(_, t)| t.selects(other, namespaces)) {
                add(node, &t.key, *w);
            }
            if attracts(other) {
                for (w, t) in theirs(other).iter().filter(|(_, t)| t.selects(pod, namespaces)) {
                    add(node, &t.key, *w);
                }
            }
        }
        let affinity: Vec<i64> = fits
            .iter()
            .map(|i| {
                let labels = nodes[*i]["metadata"]["labels"].as_object();
                let value = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
                domains
                    .iter()
                    .filter(|((k, v), _)| value(k) == Some(v.as_str()))
                    .fold(0i64, |a, (_, w)| a.saturating_add(*w))
            })
            .collect();
        let (low, high) = (affinity.iter().copied().min().unwrap_or(0), affinity.iter().copied().max().unwrap_or(0));
        scores.resize(nodes.len(), 0);
        for (j, i) in fits.iter().enumerate() {
            let score = &mut scores[*i];
            if high > low {
                // In floating point and truncated, as upstream's.
                let (above, range) = (affinity[j] as f64 - low as f64, high as f64 - low as f64);
                *score += 2 * (100.0 * (above / range)) as i64;
            }
        }
    }

    /// The pods placed on nodes as the filters see them (each with its
    /// node's name): those bound, and those bound earlier in this round.
    pub(super) fn placed(&self) -> impl Iterator<Item = (&str, &Arc<Value>)> {
        let bound = self.on_node.values().map(|p| (p["spec"]["nodeName"].as_str().unwrap_or(""), p));
        bound.chain(self.bound_now.iter().map(|(n, p)| (n.as_str(), p)))
    }

    /// The filters' work for `pod`, None when they have nothing to say;
    /// placed pods for which `left_out` holds are not counted (preemption's
    /// victims).
    #[inline(never)]
    pub(super) fn neighbourhood(
        &mut self,
        client: &mut super::Client<'_>,
        pod: &Value,
        nodes: &[Arc<Value>],
        left_out: &dyn Fn(&Value) -> bool,
    ) -> Option<Neighbourhood> {
        if !self.looks_around(pod) {
            return None;
        }
        let (affinity, anti) = (Term::all(pod, "podAffinity"), Term::all(pod, "podAntiAffinity"));
        let by_label =
            |terms: &[Term]| terms.iter().any(|t| t.namespace_selector.as_ref().is_some_and(|s| !s.is_empty()));
        let placed_by_label = self.placed().any(|(_, p)| repels(p) && by_label(&Term::all(p, "podAntiAffinity")));
        if by_label(&affinity) || by_label(&anti) || placed_by_label {
            // Namespaces' labels, watched from the first term that reads them.
            let namespaces = self.namespaces.get_or_insert_with(|| Informer::new("/api/v1/namespaces"));
            namespaces.sync(client);
        }
        let namespaces = self.namespaces.as_ref();
        let node_of: BTreeMap<&str, &Value> = nodes.iter().map(|n| (meta_str(n, "name"), n.as_ref())).collect();
        let mut hood = Neighbourhood {
            spread: Vec::new(),
            self_affine: !affinity.is_empty() && affinity.iter().all(|t| t.selects(pod, namespaces)),
            affinity,
            anti,
            affine: BTreeMap::new(),
            repelled: BTreeMap::new(),
            repelling: BTreeMap::new(),
        };
        let placed: Vec<(&Value, &Value)> = self
            .placed()
            .filter(|(_, p)| !left_out(p))
            .filter_map(|(n, p)| Some((*node_of.get(n)?, p.as_ref())))
            .collect();
        let bump = |counts: &mut BTreeMap<Domain, i64>, node: &Value, key: &str| {
            if let Some(v) = label(node, key) {
                *counts.entry((key.to_string(), v.to_string())).or_default() += 1;
            }
        };
        for &(node, other) in &placed {
            if repels(other) {
                for t in Term::all(other, "podAntiAffinity").iter().filter(|t| t.selects(pod, namespaces)) {
                    bump(&mut hood.repelling, node, &t.key);
                }
            }
            if !hood.affinity.is_empty() && hood.affinity.iter().all(|t| t.selects(other, namespaces)) {
                for t in &hood.affinity {
                    bump(&mut hood.affine, node, &t.key);
                }
            }
            for t in hood.anti.iter().filter(|t| t.selects(other, namespaces)) {
                bump(&mut hood.repelled, node, &t.key);
            }
        }
        let constraints = do_not_schedule(pod);
        let keys: Vec<&str> = constraints.iter().map(|c| c["topologyKey"].as_str().unwrap_or("")).collect();
        for c in &constraints {
            let selector = spread_selector(pod, c);
            let mut spread = Spread {
                key: c["topologyKey"].as_str().unwrap_or("").to_string(),
                max_skew: c["maxSkew"].as_i64().unwrap_or(1),
                min_domains: c["minDomains"].as_i64().unwrap_or(1),
                self_match: selector.as_ref().is_some_and(|s| selects(s, pod)),
                counts: BTreeMap::new(),
            };
            // The nodes the constraint counts: every constraint's key, and
            // its node inclusion policies (affinity honoured, taints ignored
            // unless asked).
            let counted = |node: &Value| {
                keys.iter().all(|k| label(node, k).is_some())
                    && (c["nodeAffinityPolicy"] == "Ignore" || node_selected(pod, node))
                    && (c["nodeTaintsPolicy"] != "Honor" || untolerated_taint(pod, node).is_none())
            };
            // Every counted node's domain, empty or not; then one pass over
            // the placed pods.
            for node in nodes.iter().filter(|n| counted(n)) {
                spread.counts.entry(label(node, &spread.key).unwrap_or("").to_string()).or_default();
            }
            for &(node, p) in &placed {
                let matching = p["metadata"]["deletionTimestamp"].is_null()
                    && meta_str(p, "namespace") == meta_str(pod, "namespace")
                    && selector.as_ref().is_some_and(|s| selects(s, p));
                if matching && counted(node) {
                    *spread.counts.entry(label(node, &spread.key).unwrap_or("").to_string()).or_default() += 1;
                }
            }
            hood.spread.push(spread);
        }
        Some(hood)
    }
}

impl Neighbourhood {
    /// Why `node` does not fit, or None: topology spread, then the pod's
    /// affinity, its anti-affinity and the placed pods' anti-affinity.
    pub(super) fn misfit(&self, node: &Value) -> Option<Misfit> {
        let fail = |reason: &str, resolvable| Some(Misfit { reasons: vec![reason.to_string()], resolvable });
        if self.spread.iter().any(|s| label(node, &s.key).is_none()) {
            return fail(SPREAD_LABEL, false);
        }
        for s in &self.spread {
            let value = label(node, &s.key).unwrap_or("");
            let fewest =
                if (s.counts.len() as i64) < s.min_domains { 0 } else { s.counts.values().copied().min().unwrap_or(0) };
            let skew = s.counts.get(value).copied().unwrap_or(0) + i64::from(s.self_match) - fewest;
            if skew > s.max_skew {
                return fail(SPREAD, true);
            }
        }
        let count = |counts: &BTreeMap<Domain, i64>, key: &str, value: &str| {
            counts.get(&(key.to_string(), value.to_string())).copied().unwrap_or(0)
        };
        let mut together = true;
        for t in &self.affinity {
            let Some(value) = label(node, &t.key) else { return fail(AFFINITY, false) };
            together &= count(&self.affine, &t.key, value) > 0;
        }
        // The first of pods that want each other may go anywhere.
        let first_of_group = self.affine.is_empty() && self.self_affine;
        if !(together || first_of_group) {
            return fail(AFFINITY, false);
        }
        if self.anti.iter().any(|t| label(node, &t.key).is_some_and(|v| count(&self.repelled, &t.key, v) > 0)) {
            return fail(ANTI_AFFINITY, true);
        }
        let labels = node["metadata"]["labels"].as_object().into_iter().flatten();
        if !self.repelling.is_empty()
            && labels.into_iter().any(|(k, v)| v.as_str().is_some_and(|v| count(&self.repelling, k, v) > 0))
        {
            return fail(EXISTING_ANTI_AFFINITY, true);
        }
        None
    }
}
