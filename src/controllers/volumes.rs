//! The storage controllers of kube-controller-manager, clients as every
//! controller here is:
//!
//! - `persistentvolume-binder` binds claims to the volumes that satisfy
//!   them, as upstream's PersistentVolume controller does: an unbound claim
//!   gets the Available volume of its storage class whose access modes,
//!   volume mode, selector and size fit (fewest access modes first, then
//!   the smallest), or the volume it names, or the volume pre-bound to it
//!   (only that one while its class waits for a first consumer and the
//!   scheduler has not chosen a node); a claim nothing fits waits for its
//!   first pod, or is handed to its class's external provisioner
//!   (`controllers/provisioner.rs`) by annotation; the volume is written first (its `claimRef`,
//!   `pv.kubernetes.io/bound-by-controller`), then its phase, then the claim
//!   (`volumeName`, `pv.kubernetes.io/bind-completed`), then the claim's
//!   status (Bound, the volume's access modes and capacity). A volume whose
//!   claim is gone is Released and its reclaim policy applied (Retain keeps
//!   it; Delete removes a `hostPath` volume under `/tmp/` and fails any
//!   other, in the words of upstream's volume plugins).
//! - `pvc-protection` removes `kubernetes.io/pvc-protection` from a claim
//!   being deleted once no scheduled pod uses it, and adds it to a claim
//!   that lacks it.
//! - `pv-protection` removes `kubernetes.io/pv-protection` from a volume
//!   being deleted once it is not Bound, and adds it to one that lacks it.
//!
//! kube-apiserver's StorageObjectInUseProtection admission adds both
//! finalizers on create (`registry/kinds/persistent_volume*.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{meta_str, path_of};
use super::{Controller, Progress};
use crate::api::meta::has_finalizer;
use crate::api::quantity::milli_value;
use crate::api::storage::storage_class;
use crate::clock::SimTime;
use crate::selector::LabelSelector;

/// The finalizer that keeps a claim while a pod uses it.
pub const PVC_FINALIZER: &str = "kubernetes.io/pvc-protection";
/// The finalizer that keeps a volume while it is bound.
pub const PV_FINALIZER: &str = "kubernetes.io/pv-protection";
pub(super) const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// The node the scheduler chose for a claim of delayed binding.
pub(super) const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// Who is to provision a claim (and the beta spelling, written too).
pub(super) const STORAGE_PROVISIONER: [&str; 2] =
    ["volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner"];
/// Who provisioned a volume.
pub(super) const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
pub(super) const CLASSES: &str = "/apis/storage.k8s.io/v1/storageclasses";

pub(super) const VOLUMES: &str = "/api/v1/persistentvolumes";
pub(super) const CLAIMS: &str = "persistentvolumeclaims";

pub(super) fn has_annotation(o: &Value, key: &str) -> bool {
    o["metadata"]["annotations"].get(key).is_some()
}

pub(super) fn set_annotation(o: &mut Value, key: &str, value: &str) {
    let meta = &mut o["metadata"];
    if !meta["annotations"].is_object() {
        meta["annotations"] = json!({});
    }
    meta["annotations"][key] = json!(value);
}

pub(super) fn deleting(o: &Value) -> bool {
    !o["metadata"]["deletionTimestamp"].is_null()
}

pub(super) fn phase(o: &Value) -> &str {
    o["status"]["phase"].as_str().unwrap_or("")
}

/// Whether a class binds its claims once a pod uses them.
pub(super) fn waits_for_consumer(class: &Value) -> bool {
    class["volumeBindingMode"] == "WaitForFirstConsumer"
}

pub(super) fn storage(o: &Value, pointer: &str) -> i128 {
    o.pointer(pointer).and_then(Value::as_str).and_then(milli_value).unwrap_or(0)
}

/// An object written whole (`PUT`), as client-go's `Update` sends it.
pub(super) fn put(client: &mut Client<'_>, path: &str, kind: &str, body: &mut Value) -> Option<Value> {
    body["kind"] = json!(kind);
    body["apiVersion"] = json!("v1");
    let r = client.write("PUT", path, "application/json", body);
    (r.status == 200).then(|| r.json_body())
}

/// Whether the volume's `claimRef` names the claim (a uid, when it has
/// one, the claim's): upstream's `IsVolumeBoundToClaim`.
pub(super) fn bound_to(volume: &Value, claim: &Value) -> bool {
    let r = &volume["spec"]["claimRef"];
    r.is_object()
        && r["name"].as_str() == Some(meta_str(claim, "name"))
        && r["namespace"].as_str() == Some(meta_str(claim, "namespace"))
        && r["uid"].as_str().is_none_or(|u| u.is_empty() || u == meta_str(claim, "uid"))
}

fn volume_mode(o: &Value) -> &str {
    o["spec"]["volumeMode"].as_str().unwrap_or("Filesystem")
}

pub(super) fn modes(o: &Value, pointer: &str) -> Vec<String> {
    o.pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Every access mode the claim asks for is one the volume offers.
fn access_modes_fit(volume: &Value, claim: &Value) -> bool {
    let offered = modes(volume, "/spec/accessModes");
    modes(claim, "/spec/accessModes").iter().all(|m| offered.contains(m))
}

/// Why a volume a claim names cannot be bound to it (upstream's
/// `checkVolumeSatisfyClaim`).
fn unsatisfied(volume: &Value, claim: &Value) -> Option<String> {
    if deleting(volume) {
        return Some(format!("the volume is marked for deletion {:?}", meta_str(volume, "name")));
    }
    if storage(volume, "/spec/capacity/storage") < storage(claim, "/spec/resources/requests/storage") {
        return Some("requested PV is too small".into());
    }
    if storage_class(volume) != storage_class(claim) {
        return Some("storageClassName does not match".into());
    }
    if volume_mode(volume) != volume_mode(claim) {
        return Some("incompatible volumeMode".into());
    }
    if !access_modes_fit(volume, claim) {
        return Some("incompatible accessMode".into());
    }
    None
}

/// Whether an unclaimed volume could be bound to the claim: of its class,
/// big enough, of its volume mode and access modes, chosen by its
/// selector, not being deleted.
pub(super) fn satisfies(volume: &Value, claim: &Value) -> bool {
    storage(volume, "/spec/capacity/storage") >= storage(claim, "/spec/resources/requests/storage")
        && volume_mode(volume) == volume_mode(claim)
        && !deleting(volume)
        && !volume["spec"]["claimRef"].is_object()
        && selected(claim, volume)
        && storage_class(volume) == storage_class(claim)
        && access_modes_fit(volume, claim)
}

/// How a fitting volume ranks for a claim (the lowest first): fewest
/// access modes, then the smallest, then by name.
pub(super) fn rank(volume: &Value) -> (usize, i128, String) {
    let size = storage(volume, "/spec/capacity/storage");
    (modes(volume, "/spec/accessModes").len(), size, meta_str(volume, "name").to_string())
}

/// The claim's label selector over a volume's labels.
fn selected(claim: &Value, volume: &Value) -> bool {
    let text = crate::selector::label_selector_string(claim["spec"].get("selector"));
    text.is_empty() || LabelSelector::parse(&text).is_ok_and(|s| super::object::selects(&s, volume))
}

pub struct VolumeBinder {
    volumes: Informer,
    claims: Informer,
    classes: Informer,
    recorder: Recorder,
    /// When each event about a claim or volume (uid and reason) was last
    /// told: told again at the next resync, not at every pass.
    told: BTreeMap<(String, &'static str), i64>,
    /// The next resync, while the last pass had something to tell.
    resync_at: Option<SimTime>,
}

/// kube-controller-manager's `--pvclaimbinder-sync-period`: how often the
/// controller goes over every claim and volume again (and so repeats what
/// it tells about those still waiting).
const RESYNC_MS: i64 = 15_000;

impl Default for VolumeBinder {
    fn default() -> Self {
        VolumeBinder {
            volumes: Informer::new(VOLUMES),
            claims: Informer::new("/api/v1/persistentvolumeclaims"),
            classes: Informer::new(CLASSES),
            recorder: Recorder::new("persistentvolume-controller", ""),
            told: BTreeMap::new(),
            resync_at: None,
        }
    }
}

impl Controller for VolumeBinder {
    fn name(&self) -> &'static str {
        "persistentvolume-binder"
    }

    fn service_account(&self) -> &'static str {
        "persistent-volume-binder"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.volumes.sync(client) | self.claims.sync(client) | self.classes.sync(client);
        let due = self.resync_at.is_some_and(|t| client.now_millis() >= t.0);
        // Classes matter only to claims; without claims or volumes there
        // is nothing to do.
        if (changed || due) && (self.claims.objects().next().is_some() || self.volumes.objects().next().is_some()) {
            self.pass(client);
        } else if due {
            self.resync_at = None;
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.resync_at
    }
}

/// One pass's view of the volumes: the informer's, with what the pass
/// wrote over it.
struct Volumes<'a> {
    cached: &'a Informer,
    written: BTreeMap<String, Value>,
}

impl Volumes<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        match self.written.get(name) {
            Some(v) => Some(v.clone()),
            None => self.cached.get(name).cloned(),
        }
    }

    fn names(&self) -> Vec<String> {
        self.cached.objects().map(|v| meta_str(v, "name").to_string()).collect()
    }
}

impl VolumeBinder {
    #[inline(never)]
    fn pass(&mut self, client: &mut Client<'_>) {
        let mut volumes = Volumes { cached: &self.volumes, written: BTreeMap::new() };
        let mut told = std::mem::take(&mut self.told);
        let mut events = Vec::new();
        let now = client.now_millis();
        for name in volumes.names() {
            if let Some(v) = volumes.get(&name) {
                sync_volume(client, &mut volumes, &self.claims, &v, &mut events);
            }
        }
        let claims: Vec<Arc<Value>> = self.claims.shared().cloned().collect();
        for claim in claims {
            sync_claim(client, &mut volumes, &self.classes, &claim, &mut events);
        }
        // Forget what was told about objects that are gone.
        let live: BTreeSet<&str> =
            self.claims.objects().chain(self.volumes.objects()).map(|o| meta_str(o, "uid")).collect();
        told.retain(|(uid, _), _| live.contains(uid.as_str()));
        // Something still to tell is told again at the next resync (as
        // upstream's periodic sync repeats it), counted by the recorder.
        self.resync_at = (!events.is_empty()).then_some(SimTime(now + RESYNC_MS));
        for (obj, kind, event_type, reason, message) in events {
            let key = (meta_str(&obj, "uid").to_string(), reason);
            if told.get(&key).is_none_or(|&t| now >= t + RESYNC_MS) {
                told.insert(key, now);
                self.recorder.event(client, &obj, ("v1", kind), "", event_type, reason, &message);
            }
        }
        self.told = told;
    }
}

/// An event to record once the pass is done: the object, its kind, type,
/// reason and message.
type Told = (Value, &'static str, EventType, &'static str, String);

/// Upstream's `syncVolume`, without provisioning.
fn sync_volume(
    client: &mut Client<'_>,
    volumes: &mut Volumes<'_>,
    claims: &Informer,
    volume: &Value,
    events: &mut Vec<Told>,
) {
    let r = &volume["spec"]["claimRef"];
    if !r.is_object() || r["uid"].as_str().is_none_or(str::is_empty) {
        set_volume_phase(client, volumes, volume, "Available", "");
        return;
    }
    let key = format!("{}/{}", r["namespace"].as_str().unwrap_or(""), r["name"].as_str().unwrap_or(""));
    let claim = claims.get(&key).filter(|c| meta_str(c, "uid") == r["uid"].as_str().unwrap_or(""));
    match claim {
        None => {
            let volume = match phase(volume) {
                "Released" | "Failed" => volume.clone(),
                _ => match set_volume_phase(client, volumes, volume, "Released", "") {
                    Some(v) => v,
                    None => return,
                },
            };
            reclaim(client, volumes, &volume, events);
        }
        Some(c) if c["spec"]["volumeName"].as_str().is_none_or(str::is_empty) => {}
        Some(c) if c["spec"]["volumeName"].as_str() == Some(meta_str(volume, "name")) => {
            set_volume_phase(client, volumes, volume, "Bound", "");
        }
        Some(_) => unbind(client, volumes, volume),
    }
}

/// Upstream's `reclaimVolume` for a volume whose claim is gone.
fn reclaim(client: &mut Client<'_>, volumes: &mut Volumes<'_>, volume: &Value, events: &mut Vec<Told>) {
    let name = meta_str(volume, "name");
    let failed = match volume["spec"]["persistentVolumeReclaimPolicy"].as_str().unwrap_or("") {
        "Retain" | "Recycle" => return,
        "Delete" if phase(volume) == "Failed" => return,
        // An external provisioner deletes what it provisioned.
        "Delete"
            if volume["metadata"]["annotations"][PROVISIONED_BY]
                .as_str()
                .is_some_and(|p| !p.starts_with("kubernetes.io/")) =>
        {
            return
        }
        "Delete" => match volume["spec"]["hostPath"]["path"].as_str() {
            Some(path) if tmp_path(path) => {
                if !deleting(volume) {
                    client.send("DELETE", &format!("{VOLUMES}/{name}"), None);
                }
                return;
            }
            Some(path) => {
                ("VolumeFailedDelete", format!("host_path deleter only supports /tmp/.+ but received provided {path}"))
            }
            None => (
                "VolumeFailedDelete",
                format!("error getting deleter volume plugin for volume {name:?}: no deletable volume plugin matched"),
            ),
        },
        _ => ("VolumeUnknownReclaimPolicy", "Volume has unrecognized PersistentVolumeReclaimPolicy".to_string()),
    };
    let (reason, message) = failed;
    if let Some(v) = set_volume_phase(client, volumes, volume, "Failed", &message) {
        events.push((v, "PersistentVolume", EventType::Warning, reason, message));
    }
}

/// Go's `regexp.MustCompile("/tmp/.+").MatchString`: `/tmp/` followed by
/// anything but a line break, anywhere in the path.
fn tmp_path(path: &str) -> bool {
    path.match_indices("/tmp/").any(|(i, _)| path[i + 5..].chars().next().is_some_and(|c| c != '\n'))
}

/// Upstream's `unbindVolume`: a volume the controller bound loses its
/// `claimRef`; one a user pre-bound keeps it without the uid.
fn unbind(client: &mut Client<'_>, volumes: &mut Volumes<'_>, volume: &Value) {
    let mut body = volume.clone();
    if has_annotation(volume, BOUND_BY_CONTROLLER) {
        if let Some(spec) = body["spec"].as_object_mut() {
            spec.shift_remove("claimRef");
        }
        if let Some(a) = body["metadata"]["annotations"].as_object_mut() {
            a.shift_remove(BOUND_BY_CONTROLLER);
            if a.is_empty() {
                body["metadata"].as_object_mut().map(|m| m.shift_remove("annotations"));
            }
        }
    } else if let Some(r) = body["spec"]["claimRef"].as_object_mut() {
        r.shift_remove("uid");
    }
    let path = format!("{VOLUMES}/{}", meta_str(volume, "name"));
    if let Some(v) = put(client, &path, "PersistentVolume", &mut body) {
        volumes.written.insert(meta_str(volume, "name").to_string(), v.clone());
        set_volume_phase(client, volumes, &v, "Available", "");
    }
}

/// Upstream's `updateVolumePhase`: the status written when the phase
/// differs; the volume as written (or as it was).
fn set_volume_phase(
    client: &mut Client<'_>,
    volumes: &mut Volumes<'_>,
    volume: &Value,
    to: &str,
    message: &str,
) -> Option<Value> {
    if phase(volume) == to {
        return Some(volume.clone());
    }
    let mut body = volume.clone();
    let mut status: Map<String, Value> = body["status"].as_object_mut().map(std::mem::take).unwrap_or_default();
    status.insert("phase".into(), json!(to));
    if message.is_empty() {
        status.shift_remove("message");
    } else {
        status.insert("message".into(), json!(message));
    }
    body["status"] = Value::Object(status);
    let path = format!("{VOLUMES}/{}/status", meta_str(volume, "name"));
    let v = put(client, &path, "PersistentVolume", &mut body)?;
    volumes.written.insert(meta_str(volume, "name").to_string(), v.clone());
    Some(v)
}

/// Upstream's `syncClaim`: an unbound claim's binding found and made, a
/// bound one's checked.
fn sync_claim(
    client: &mut Client<'_>,
    volumes: &mut Volumes<'_>,
    classes: &Informer,
    claim: &Value,
    events: &mut Vec<Told>,
) {
    let wanted = claim["spec"]["volumeName"].as_str().unwrap_or("");
    if has_annotation(claim, BIND_COMPLETED) {
        let lost = |reason, message: &str| (reason, message.to_string());
        let lost = match volumes.get(wanted) {
            _ if wanted.is_empty() => Some(lost(
                "ClaimLost",
                "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!",
            )),
            None => Some(lost("ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!")),
            Some(v) if !v["spec"]["claimRef"].is_object() || bound_to(&v, claim) => {
                bind(client, volumes, &v, claim);
                None
            }
            Some(_) => {
                Some(lost("ClaimMisbound", "Two claims are bound to the same volume, this one is bound incorrectly"))
            }
        };
        if let Some((reason, message)) = lost {
            if phase(claim) != "Lost" && set_claim_status(client, claim, "Lost", None).is_some() {
                events.push((claim.clone(), "PersistentVolumeClaim", EventType::Warning, reason, message));
            }
        }
        return;
    }
    if wanted.is_empty() {
        let class = classes.get(storage_class(claim));
        let delayed = class.is_some_and(waits_for_consumer) && !has_annotation(claim, SELECTED_NODE);
        match best_match(volumes, claim, delayed) {
            Some(v) => bind(client, volumes, &v, claim),
            None => {
                if let Some(told) = unmatched(client, claim, class, delayed) {
                    events.push((claim.clone(), "PersistentVolumeClaim", told.0, told.1, told.2));
                }
                set_claim_status(client, claim, "Pending", None);
            }
        }
        return;
    }
    let Some(volume) = volumes.get(wanted) else {
        set_claim_status(client, claim, "Pending", None);
        return;
    };
    if !volume["spec"]["claimRef"].is_object() {
        match unsatisfied(&volume, claim) {
            Some(why) => {
                let message = format!("Cannot bind to requested volume {wanted:?}: {why}");
                events.push((claim.clone(), "PersistentVolumeClaim", EventType::Warning, "VolumeMismatch", message));
                set_claim_status(client, claim, "Pending", None);
            }
            None => bind(client, volumes, &volume, claim),
        }
    } else if bound_to(&volume, claim) {
        bind(client, volumes, &volume, claim);
    } else if !has_annotation(claim, BOUND_BY_CONTROLLER) {
        let message = format!("volume {wanted:?} already bound to a different claim.");
        events.push((claim.clone(), "PersistentVolumeClaim", EventType::Warning, "FailedBinding", message));
        set_claim_status(client, claim, "Pending", None);
    }
}

/// What upstream's `syncUnboundClaim` tells of a claim no volume fits:
/// waiting for its first pod (a class of delayed binding), no class,
/// no such class, or a provisioner to wait for (the claim annotated with
/// it, as `setClaimProvisioner` does, for an external one).
fn unmatched(
    client: &mut Client<'_>,
    claim: &Value,
    class: Option<&Value>,
    delayed: bool,
) -> Option<(EventType, &'static str, String)> {
    let name = storage_class(claim);
    let Some(class) = class.filter(|_| !name.is_empty()) else {
        return Some(match name {
            "" => (
                EventType::Normal,
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set".to_string(),
            ),
            _ => (EventType::Warning, "ProvisioningFailed", format!("storageclass.storage.k8s.io {name:?} not found")),
        });
    };
    if delayed {
        let message = "waiting for first consumer to be created before binding";
        return Some((EventType::Normal, "WaitForFirstConsumer", message.to_string()));
    }
    let provisioner = class["provisioner"].as_str().unwrap_or("");
    if provisioner.starts_with("kubernetes.io/") {
        // The in-tree provisioners are not served (nor is there one for
        // `kubernetes.io/no-provisioner`).
        return Some((EventType::Warning, "ProvisioningFailed", "no provisionable volume plugin matched".to_string()));
    }
    if STORAGE_PROVISIONER.iter().any(|k| claim["metadata"]["annotations"][*k].as_str() != Some(provisioner)) {
        let mut body = claim.clone();
        for key in STORAGE_PROVISIONER {
            set_annotation(&mut body, key, provisioner);
        }
        put(client, &path_of("v1", CLAIMS, claim), "PersistentVolumeClaim", &mut body)?;
    }
    let message = format!("Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.");
    Some((EventType::Normal, "ExternalProvisioning", message))
}

/// Upstream's `findBestMatchForClaim`: the volume pre-bound to the claim,
/// else (unless its binding waits for a pod, `delayed`) the Available
/// unclaimed one of its class that fits, ranked by `rank`.
fn best_match(volumes: &Volumes<'_>, claim: &Value, delayed: bool) -> Option<Value> {
    let mut best: Option<((usize, i128, String), Value)> = None;
    for name in volumes.names() {
        let Some(v) = volumes.get(&name) else { continue };
        let small = storage(&v, "/spec/capacity/storage") < storage(claim, "/spec/resources/requests/storage");
        if small || volume_mode(&v) != volume_mode(claim) || deleting(&v) {
            continue;
        }
        if bound_to(&v, claim) {
            return Some(v);
        }
        if delayed || phase(&v) != "Available" || !satisfies(&v, claim) {
            continue;
        }
        let rank = rank(&v);
        if best.as_ref().is_none_or(|(r, _)| rank < *r) {
            best = Some((rank, v));
        }
    }
    best.map(|(_, v)| v)
}

/// Upstream's `bind`: the volume, its phase, the claim, the claim's
/// status, each written only when it differs, in that order.
fn bind(client: &mut Client<'_>, volumes: &mut Volumes<'_>, volume: &Value, claim: &Value) {
    let name = meta_str(volume, "name").to_string();
    let (ns, claim_name, uid) = (meta_str(claim, "namespace"), meta_str(claim, "name"), meta_str(claim, "uid"));
    let mut volume = volume.clone();
    let r = &volume["spec"]["claimRef"];
    let refers =
        r["name"].as_str() == Some(claim_name) && r["namespace"].as_str() == Some(ns) && r["uid"].as_str() == Some(uid);
    if !refers {
        let mut body = volume.clone();
        if !bound_to(&volume, claim) && !has_annotation(&volume, BOUND_BY_CONTROLLER) {
            set_annotation(&mut body, BOUND_BY_CONTROLLER, "yes");
        }
        body["spec"]["claimRef"] = json!({"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim_name,
            "uid": uid, "apiVersion": "v1", "resourceVersion": meta_str(claim, "resourceVersion")});
        let Some(v) = put(client, &format!("{VOLUMES}/{name}"), "PersistentVolume", &mut body) else { return };
        volumes.written.insert(name.clone(), v.clone());
        volume = v;
    }
    if set_volume_phase(client, volumes, &volume, "Bound", "").is_none() {
        return;
    }
    let mut claim = claim.clone();
    let mut body = claim.clone();
    let mut dirty = false;
    if claim["spec"]["volumeName"].as_str() != Some(name.as_str()) {
        body["spec"]["volumeName"] = json!(name);
        if !has_annotation(&claim, BOUND_BY_CONTROLLER) {
            set_annotation(&mut body, BOUND_BY_CONTROLLER, "yes");
        }
        dirty = true;
    }
    if !has_annotation(&claim, BIND_COMPLETED) {
        set_annotation(&mut body, BIND_COMPLETED, "yes");
        dirty = true;
    }
    if dirty {
        let Some(c) = put(client, &path_of("v1", CLAIMS, &claim), "PersistentVolumeClaim", &mut body) else { return };
        claim = c;
    }
    set_claim_status(client, &claim, "Bound", Some(&volume));
}

/// Upstream's `updateClaimStatus`: the phase, and the volume's access
/// modes and (when the claim becomes Bound) capacity, or neither without
/// a volume; written only when something differs.
fn set_claim_status(client: &mut Client<'_>, claim: &Value, to: &str, volume: Option<&Value>) -> Option<Value> {
    let mut status = claim["status"].as_object().cloned().unwrap_or_default();
    let mut dirty = phase(claim) != to;
    status.insert("phase".into(), json!(to));
    match volume {
        None => {
            dirty |= status.shift_remove("accessModes").is_some();
            dirty |= status.shift_remove("capacity").is_some();
        }
        Some(v) => {
            let modes = v["spec"]["accessModes"].clone();
            if status.get("accessModes") != Some(&modes) {
                status.insert("accessModes".into(), modes);
                dirty = true;
            }
            let capacity = &v["spec"]["capacity"];
            if phase(claim) != to && status.get("capacity").map(|c| &c["storage"]) != Some(&capacity["storage"]) {
                status.insert("capacity".into(), capacity.clone());
                dirty = true;
            }
        }
    }
    if !dirty {
        return Some(claim.clone());
    }
    let mut body = claim.clone();
    body["status"] = Value::Object(status);
    let path = format!("{}/status", path_of("v1", CLAIMS, claim));
    put(client, &path, "PersistentVolumeClaim", &mut body)
}

/// A finalizer put on or taken off an object (a whole-object update, as
/// upstream's protection controllers write it).
fn set_finalizer(client: &mut Client<'_>, path: &str, kind: &str, obj: &Value, finalizer: &str, on: bool) {
    let mut body = obj.clone();
    let mut list: Vec<Value> = obj["metadata"]["finalizers"].as_array().cloned().unwrap_or_default();
    if on {
        list.push(json!(finalizer));
    } else {
        list.retain(|f| f.as_str() != Some(finalizer));
    }
    if list.is_empty() {
        body["metadata"].as_object_mut().map(|m| m.shift_remove("finalizers"));
    } else {
        body["metadata"]["finalizers"] = Value::Array(list);
    }
    put(client, path, kind, &mut body);
}

/// What a protection controller does with one object: the finalizer added
/// when missing, removed once the object is being deleted and unused.
fn protect(client: &mut Client<'_>, path: &str, kind: &str, obj: &Value, finalizer: &str, in_use: bool) {
    let has = has_finalizer(obj, finalizer);
    if !deleting(obj) && !has {
        set_finalizer(client, path, kind, obj, finalizer, true);
    } else if deleting(obj) && has && !in_use {
        set_finalizer(client, path, kind, obj, finalizer, false);
    }
}

/// Whether a scheduled pod uses the claim (upstream's `podUsesPVC`): by
/// name, or as the generic ephemeral volume made for it while the pod is
/// not shut down.
fn pod_uses(pod: &Value, claim: &Value) -> bool {
    let name = meta_str(claim, "name");
    if pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty) {
        return false;
    }
    let shut_down = deleting(pod) && pod["metadata"]["deletionGracePeriodSeconds"].as_i64() == Some(0);
    let owned = super::object::controller_of(claim).is_some_and(|o| o["uid"].as_str() == Some(meta_str(pod, "uid")));
    pod["spec"]["volumes"].as_array().into_iter().flatten().any(|v| {
        v["persistentVolumeClaim"]["claimName"].as_str() == Some(name)
            || (!shut_down
                && v["ephemeral"].is_object()
                && owned
                && format!("{}-{}", meta_str(pod, "name"), v["name"].as_str().unwrap_or("")) == name)
    })
}

pub struct PvcProtection {
    claims: Informer,
    pods: Informer,
}

impl Default for PvcProtection {
    fn default() -> Self {
        PvcProtection { claims: Informer::new("/api/v1/persistentvolumeclaims"), pods: Informer::new("/api/v1/pods") }
    }
}

impl Controller for PvcProtection {
    fn name(&self) -> &'static str {
        "pvc-protection"
    }

    fn service_account(&self) -> &'static str {
        "pvc-protection-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        // Pods change all the time; without claims there is nothing to do.
        if (self.claims.sync(client) | self.pods.sync(client)) && self.claims.objects().next().is_some() {
            self.pass(client);
        }
        Progress { writes: client.writes - before }
    }
}

impl PvcProtection {
    #[inline(never)]
    fn pass(&mut self, client: &mut Client<'_>) {
        let claims: Vec<Arc<Value>> = self.claims.shared().cloned().collect();
        for claim in claims {
            let ns = meta_str(&claim, "namespace");
            let in_use = deleting(&claim) && self.pods.in_namespace(ns).any(|p| pod_uses(p, &claim));
            let path = path_of("v1", CLAIMS, &claim);
            protect(client, &path, "PersistentVolumeClaim", &claim, PVC_FINALIZER, in_use);
        }
    }
}

pub struct PvProtection {
    volumes: Informer,
}

impl Default for PvProtection {
    fn default() -> Self {
        PvProtection { volumes: Informer::new(VOLUMES) }
    }
}

impl Controller for PvProtection {
    fn name(&self) -> &'static str {
        "pv-protection"
    }

    fn service_account(&self) -> &'static str {
        "pv-protection-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if self.volumes.sync(client) {
            self.pass(client);
        }
        Progress { writes: client.writes - before }
    }
}

impl PvProtection {
    #[inline(never)]
    fn pass(&mut self, client: &mut Client<'_>) {
        let volumes: Vec<Arc<Value>> = self.volumes.shared().cloned().collect();
        for v in volumes {
            let path = format!("{VOLUMES}/{}", meta_str(&v, "name"));
            protect(client, &path, "PersistentVolume", &v, PV_FINALIZER, phase(&v) == "Bound");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmp_paths_as_go_matches_them() {
        assert!(tmp_path("/tmp/data"));
        assert!(tmp_path("/var/tmp/x"));
        assert!(!tmp_path("/tmp/"));
        assert!(!tmp_path("/mnt/data"));
        assert!(!tmp_path("/tmp"));
    }

    #[test]
    fn a_pod_uses_a_claim_once_scheduled() {
        let claim = json!({"metadata": {"name": "data", "namespace": "default", "uid": "c"}});
        let mut pod = json!({"metadata": {"name": "web", "uid": "p"},
            "spec": {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}});
        assert!(!pod_uses(&pod, &claim));
        pod["spec"]["nodeName"] = json!("node-1");
        assert!(pod_uses(&pod, &claim));
        pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = json!("other");
        assert!(!pod_uses(&pod, &claim));
    }
}
