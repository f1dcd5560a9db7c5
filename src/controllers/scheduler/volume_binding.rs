//! kube-scheduler's `VolumeBinding` plugin: a pod's claims decide where it
//! may go, and a claim whose class waits for its first consumer is bound
//! (or provisioned) on the node the pod goes to before the pod is bound.
//!
//! - PreFilter: a claim that does not exist (`persistentvolumeclaim "x"
//!   not found`) or is being deleted, or an unbound claim whose class
//!   binds at once (no class, a missing class, `Immediate`: "pod has
//!   unbound immediate PersistentVolumeClaims") keeps the pod off every
//!   node.
//! - Filter: a bound claim's volume must exist and its node affinity
//!   select the node ("node(s) had volume node affinity conflict"); an
//!   unbound claim of delayed binding needs an Available volume that fits
//!   it there, or a class whose provisioner can make one there ("node(s)
//!   didn't find available persistent volumes to bind").
//! - PreBind: on the chosen node, a fitting volume is pre-bound to the
//!   claim (its `claimRef`), else the claim is annotated
//!   `volume.kubernetes.io/selected-node` for the provisioner; the pod is
//!   bound once its claims are (upstream waits in PreBind; here the pod
//!   stays pending, without a condition or event, and the claims' changes
//!   bring it back).
//!
//! The claims, volumes and classes are watched from the first pod that
//! uses a claim; none of this runs for a pod without claims (nor at start,
//! so none of it is inlined into the scheduler's round).

use std::sync::Arc;

use serde_json::{json, Value};

use super::super::client::Client;
use super::super::informer::Informer;
use super::super::object::{meta_str, path_of};
use super::super::volumes::{
    bound_to, deleting, has_annotation, phase, put, rank, satisfies, set_annotation, waits_for_consumer,
    BOUND_BY_CONTROLLER, CLAIMS, CLASSES, SELECTED_NODE, VOLUMES,
};
use super::{term_matches, Misfit};
use crate::api::storage::storage_class;

/// The class that never provisions (local volumes made by hand).
const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// The claims a pod's volumes name: by name, or made for its generic
/// ephemeral volumes (`<pod>-<volume>`).
fn claim_names(pod: &Value) -> Vec<String> {
    let volumes = pod["spec"]["volumes"].as_array().into_iter().flatten();
    volumes
        .filter_map(|v| match v["persistentVolumeClaim"]["claimName"].as_str() {
            Some(name) => Some(name.to_string()),
            None if v["ephemeral"].is_object() => {
                Some(format!("{}-{}", meta_str(pod, "name"), v["name"].as_str().unwrap_or("")))
            }
            None => None,
        })
        .collect()
}

/// Whether any of a pod's volumes is a claim (the cheap test every
/// pending pod passes).
pub(super) fn uses_claims(pod: &Value) -> bool {
    let mut volumes = pod["spec"]["volumes"].as_array().into_iter().flatten();
    volumes.any(|v| v["persistentVolumeClaim"].is_object() || v["ephemeral"].is_object())
}

/// A pod's claims, as PreFilter sorted them.
pub(super) struct PodClaims {
    /// The volumes of its bound claims (None: the volume is missing).
    bound: Vec<Option<Arc<Value>>>,
    /// Its unbound claims of delayed binding, with their classes.
    delayed: Vec<(Arc<Value>, Arc<Value>)>,
}

impl PodClaims {
    /// Whether the pod waits for its claims: each of delayed binding was
    /// given a node or a volume already (PreBind waits for the binder and
    /// the provisioner).
    #[inline(never)]
    pub(super) fn waiting(&self, volumes: &Informer) -> bool {
        !self.delayed.is_empty()
            && self
                .delayed
                .iter()
                .all(|(claim, _)| has_annotation(claim, SELECTED_NODE) || volumes.objects().any(|v| bound_to(v, claim)))
    }
}

pub(super) struct VolumeBinding {
    claims: Informer,
    volumes: Informer,
    classes: Informer,
}

/// Whether a volume's required node affinity selects the node.
fn volume_fits(volume: &Value, node: &Value) -> bool {
    match volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"].as_array() {
        Some(terms) => terms.iter().any(|t| term_matches(t, node)),
        None => true,
    }
}

/// Whether the class's provisioner may make a volume on the node (its
/// allowed topologies, when it has any, select the node's labels).
fn provisions_on(class: &Value, node: &Value) -> bool {
    if class["provisioner"] == NO_PROVISIONER {
        return false;
    }
    let Some(terms) = class["allowedTopologies"].as_array().filter(|t| !t.is_empty()) else { return true };
    let labels = &node["metadata"]["labels"];
    terms.iter().any(|term| {
        term["matchLabelExpressions"].as_array().into_iter().flatten().all(|e| {
            let value = labels[e["key"].as_str().unwrap_or("")].as_str();
            e["values"].as_array().into_iter().flatten().any(|v| v.as_str().is_some() && v.as_str() == value)
        })
    })
}

fn unresolvable(reason: &str) -> Option<Misfit> {
    Some(Misfit { reasons: vec![reason.to_string()], resolvable: false })
}

impl VolumeBinding {
    pub(super) fn new() -> Self {
        VolumeBinding {
            claims: Informer::new("/api/v1/persistentvolumeclaims"),
            volumes: Informer::new(VOLUMES),
            classes: Informer::new(CLASSES),
        }
    }

    /// Brings the informers up to date: whether anything changed.
    pub(super) fn sync(&mut self, client: &mut Client<'_>) -> bool {
        self.claims.sync(client) | self.volumes.sync(client) | self.classes.sync(client)
    }

    pub(super) fn volumes(&self) -> &Informer {
        &self.volumes
    }

    /// PreFilter: the pod's claims sorted, or why no node will do.
    #[inline(never)]
    pub(super) fn pre_filter(&self, pod: &Value) -> Result<PodClaims, String> {
        let ns = meta_str(pod, "namespace");
        let names = claim_names(pod);
        let mut found = PodClaims { bound: Vec::new(), delayed: Vec::new() };
        let mut immediate = false;
        for name in &names {
            let Some(claim) = self.claims.shared_get(&format!("{ns}/{name}")) else {
                return Err(format!("persistentvolumeclaim {name:?} not found"));
            };
            if deleting(claim) {
                return Err(format!("persistentvolumeclaim {name:?} is being deleted"));
            }
            match claim["spec"]["volumeName"].as_str().filter(|v| !v.is_empty()) {
                Some(volume) => found.bound.push(self.volumes.shared_get(volume).cloned()),
                None => match self.classes.shared_get(storage_class(claim)).filter(|c| waits_for_consumer(c)) {
                    Some(class) if !storage_class(claim).is_empty() => {
                        found.delayed.push((Arc::clone(claim), Arc::clone(class)))
                    }
                    _ => immediate = true,
                },
            }
        }
        if immediate {
            return Err("pod has unbound immediate PersistentVolumeClaims".into());
        }
        Ok(found)
    }

    /// The Available volume that fits the claim on the node, if any (the
    /// best by `rank`), none of `taken`.
    fn static_match(&self, claim: &Value, node: &Value, taken: &[String]) -> Option<Arc<Value>> {
        self.volumes
            .shared()
            .filter(|v| {
                phase(v) == "Available"
                    && satisfies(v, claim)
                    && volume_fits(v, node)
                    && !taken.iter().any(|t| t == meta_str(v, "name"))
            })
            .min_by_key(|v| rank(v))
            .cloned()
    }

    /// Filter: why the node does not do for the pod's claims, if it does
    /// not.
    #[inline(never)]
    pub(super) fn misfit(&self, claims: &PodClaims, node: &Value) -> Option<Misfit> {
        for volume in &claims.bound {
            match volume {
                None => {
                    return unresolvable("node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)")
                }
                Some(v) if !volume_fits(v, node) => return unresolvable("node(s) had volume node affinity conflict"),
                Some(_) => {}
            }
        }
        let mut taken = Vec::new();
        for (claim, class) in &claims.delayed {
            if self.volumes.objects().any(|v| bound_to(v, claim) && volume_fits(v, node)) {
                continue;
            }
            match self.static_match(claim, node, &taken) {
                Some(v) => taken.push(meta_str(&v, "name").to_string()),
                None if provisions_on(class, node) => {}
                None => return unresolvable("node(s) didn't find available persistent volumes to bind"),
            }
        }
        None
    }

    /// PreBind on `node`: each unbound claim of delayed binding gets a
    /// volume that fits it there (pre-bound, as the scheduler's binder
    /// writes it) or the node, for its provisioner. Whether the pod must
    /// wait for its claims before it is bound.
    #[inline(never)]
    pub(super) fn pre_bind(&self, client: &mut Client<'_>, claims: &PodClaims, node: &Value) -> bool {
        let name = meta_str(node, "name");
        let mut taken = Vec::new();
        for (claim, _) in &claims.delayed {
            if self.volumes.objects().any(|v| bound_to(v, claim)) {
                continue;
            }
            if let Some(v) = self.static_match(claim, node, &taken) {
                taken.push(meta_str(&v, "name").to_string());
                let mut body = (*v).clone();
                body["spec"]["claimRef"] = json!({"kind": "PersistentVolumeClaim",
                    "namespace": meta_str(claim, "namespace"), "name": meta_str(claim, "name"),
                    "uid": meta_str(claim, "uid"), "apiVersion": "v1",
                    "resourceVersion": meta_str(claim, "resourceVersion")});
                set_annotation(&mut body, BOUND_BY_CONTROLLER, "yes");
                put(client, &format!("{VOLUMES}/{}", meta_str(&v, "name")), "PersistentVolume", &mut body);
            } else if claim["metadata"]["annotations"][SELECTED_NODE].as_str() != Some(name) {
                let mut body = (**claim).clone();
                set_annotation(&mut body, SELECTED_NODE, name);
                put(client, &path_of("v1", CLAIMS, claim), "PersistentVolumeClaim", &mut body);
            }
        }
        !claims.delayed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_names_its_claims_and_its_ephemeral_volumes_claims() {
        assert!(!uses_claims(&json!({"spec": {"volumes": [{"name": "c", "configMap": {"name": "c"}}]}})));
        let pod = json!({"metadata": {"name": "web-0"}, "spec": {"volumes": [
            {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-0"}},
            {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}},
            {"name": "config", "configMap": {"name": "c"}}]}});
        assert_eq!(claim_names(&pod), ["www-web-0", "web-0-scratch"]);
    }

    #[test]
    fn a_class_provisions_on_the_nodes_its_topologies_allow() {
        let node = json!({"metadata": {"labels": {"topology.kubernetes.io/zone": "a"}}});
        let class = |topologies: Value| json!({"provisioner": "x", "allowedTopologies": topologies});
        assert!(provisions_on(&class(json!([])), &node));
        let zone =
            |z: &str| json!([{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": [z]}]}]);
        assert!(provisions_on(&class(zone("a")), &node));
        assert!(!provisions_on(&class(zone("b")), &node));
        assert!(!provisions_on(&json!({"provisioner": NO_PROVISIONER}), &node));
    }
}
