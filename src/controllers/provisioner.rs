//! `local-path-provisioner`, the external provisioner of kind's default
//! StorageClass `standard` (`rancher.io/local-path`), as a client of the
//! core like every controller here (its Deployment in `local-path-storage`
//! is not modelled: the page has no pod for it).
//!
//! A claim the PersistentVolume controller has handed to it (annotated
//! `volume.kubernetes.io/storage-provisioner: rancher.io/local-path`),
//! still unbound, of a class it provisions, gets a volume `pvc-<claim
//! uid>`: a `hostPath` directory under `/var/local-path-provisioner` on the
//! node the scheduler chose (`volume.kubernetes.io/selected-node`), held
//! there by node affinity, of the claim's size and access modes and the
//! class's reclaim policy, pre-bound to the claim (which the binder then
//! binds), with the `Provisioning` and `ProvisioningSucceeded` events of
//! sig-storage's provisioner library. Without a node (a class binding
//! at once) it fails as local-path does. A volume it provisioned that is
//! Released under the Delete policy is deleted (its directory with it).

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{Client, Identity};
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::meta_str;
use super::volumes::{deleting, phase, CLASSES, PROVISIONED_BY, SELECTED_NODE, STORAGE_PROVISIONER, VOLUMES};
use super::{Controller, Progress};
use crate::api::storage::storage_class;

/// The provisioner's name, as classes name it.
pub const LOCAL_PATH: &str = "rancher.io/local-path";
/// Where its volumes' directories are made on a node.
const ROOT: &str = "/var/local-path-provisioner";

pub struct LocalPathProvisioner {
    claims: Informer,
    volumes: Informer,
    classes: Informer,
    recorder: Recorder,
    /// The claims (by uid) whose provisioning failed and was told.
    failed: Vec<String>,
}

impl Default for LocalPathProvisioner {
    fn default() -> Self {
        LocalPathProvisioner {
            claims: Informer::new("/api/v1/persistentvolumeclaims"),
            volumes: Informer::new(VOLUMES),
            classes: Informer::new(CLASSES),
            recorder: Recorder::new("rancher.io/local-path_local-path-provisioner", ""),
            failed: Vec::new(),
        }
    }
}

impl Controller for LocalPathProvisioner {
    fn name(&self) -> &'static str {
        "local-path-provisioner"
    }

    fn service_account(&self) -> &'static str {
        "local-path-provisioner-service-account"
    }

    fn identity(&self) -> Identity {
        let account = "system:serviceaccount:local-path-storage:local-path-provisioner-service-account";
        Identity {
            user_agent: "local-path-provisioner/v0.0.31 (linux/amd64) kubernetes/kubesim".into(),
            user: crate::auth::UserInfo::new(
                account,
                &["system:serviceaccounts", "system:serviceaccounts:local-path-storage", "system:authenticated"],
            )
            .into(),
        }
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.claims.sync(client) | self.volumes.sync(client) | self.classes.sync(client);
        if changed && (self.claims.objects().next().is_some() || self.volumes.objects().next().is_some()) {
            self.pass(client);
        }
        Progress { writes: client.writes - before }
    }
}

/// Whether the claim waits for this provisioner: handed to it, unbound,
/// not being deleted.
fn handed_over(claim: &Value) -> bool {
    claim["metadata"]["annotations"][STORAGE_PROVISIONER[0]].as_str() == Some(LOCAL_PATH)
        && claim["spec"]["volumeName"].as_str().is_none_or(str::is_empty)
        && !deleting(claim)
}

/// The volume provisioned for `claim` of `class` on `node`.
fn volume_for(claim: &Value, class: &Value, node: &str) -> Value {
    let (ns, name, uid) = (meta_str(claim, "namespace"), meta_str(claim, "name"), meta_str(claim, "uid"));
    let pv = format!("pvc-{uid}");
    let mut spec = json!({
        "persistentVolumeReclaimPolicy": class["reclaimPolicy"].as_str().unwrap_or("Delete"),
        "accessModes": claim["spec"]["accessModes"],
        "volumeMode": "Filesystem",
        "capacity": {"storage": claim["spec"]["resources"]["requests"]["storage"]},
        "hostPath": {"path": format!("{ROOT}/{pv}_{ns}_{name}"), "type": "DirectoryOrCreate"},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}},
        "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns, "name": name, "uid": uid,
            "apiVersion": "v1", "resourceVersion": meta_str(claim, "resourceVersion")},
        "storageClassName": meta_str(class, "name"),
    });
    if let Some(options) = class.get("mountOptions").filter(|o| o.is_array()) {
        spec["mountOptions"] = options.clone();
    }
    json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": pv, "annotations": {PROVISIONED_BY: LOCAL_PATH}}, "spec": spec})
}

impl LocalPathProvisioner {
    #[inline(never)]
    fn pass(&mut self, client: &mut Client<'_>) {
        let claims: Vec<Arc<Value>> = self.claims.shared().filter(|c| handed_over(c)).cloned().collect();
        self.failed.retain(|uid| claims.iter().any(|c| meta_str(c, "uid") == uid));
        for claim in claims {
            let Some(class) = self.classes.get(storage_class(&claim)).filter(|c| c["provisioner"] == LOCAL_PATH) else {
                continue;
            };
            let pv = format!("pvc-{}", meta_str(&claim, "uid"));
            if self.volumes.get(&pv).is_some() {
                continue;
            }
            let obj = ("v1", "PersistentVolumeClaim");
            let node = claim["metadata"]["annotations"][SELECTED_NODE].as_str().unwrap_or("");
            if node.is_empty() {
                if !self.failed.contains(&meta_str(&claim, "uid").to_string()) {
                    self.failed.push(meta_str(&claim, "uid").to_string());
                    let message = format!(
                        "failed to provision volume with StorageClass {:?}: configuration error, no node was specified",
                        meta_str(class, "name")
                    );
                    self.recorder.event(client, &claim, obj, "", EventType::Warning, "ProvisioningFailed", &message);
                }
                continue;
            }
            let key = format!("{}/{}", meta_str(&claim, "namespace"), meta_str(&claim, "name"));
            let message = format!("External provisioner is provisioning volume for claim {key:?}");
            self.recorder.event(client, &claim, obj, "", EventType::Normal, "Provisioning", &message);
            // The node's hostname label holds the volume there (its name
            // when it has none), as local-path reads it.
            let r = client.get(&format!("/api/v1/nodes/{node}"));
            let hostname = match r.status {
                200 => {
                    r.json_body()["metadata"]["labels"]["kubernetes.io/hostname"].as_str().unwrap_or(node).to_string()
                }
                _ => node.to_string(),
            };
            let volume = volume_for(&claim, class, &hostname);
            if client.write("POST", VOLUMES, "application/json", &volume).status == 201 {
                let message = format!("Successfully provisioned volume {pv}");
                self.recorder.event(client, &claim, obj, "", EventType::Normal, "ProvisioningSucceeded", &message);
            }
        }
        // What it provisioned and is Released under the Delete policy goes.
        let released: Vec<String> = self
            .volumes
            .objects()
            .filter(|v| {
                phase(v) == "Released"
                    && v["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
                    && v["metadata"]["annotations"][PROVISIONED_BY] == LOCAL_PATH
                    && !deleting(v)
            })
            .map(|v| meta_str(v, "name").to_string())
            .collect();
        for name in released {
            client.send("DELETE", &format!("{VOLUMES}/{name}"), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_volume_is_made_on_the_chosen_node_for_the_claim() {
        let claim = json!({"metadata": {"name": "www-web-0", "namespace": "default", "uid": "u1",
            "resourceVersion": "7"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        let class = json!({"metadata": {"name": "standard"}, "provisioner": LOCAL_PATH, "reclaimPolicy": "Delete"});
        let v = volume_for(&claim, &class, "worker-1");
        assert_eq!(v["metadata"]["name"], "pvc-u1");
        assert_eq!(v["spec"]["hostPath"]["path"], "/var/local-path-provisioner/pvc-u1_default_www-web-0");
        assert_eq!(
            v["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0],
            "worker-1"
        );
        assert_eq!(v["spec"]["claimRef"]["uid"], "u1");
        assert_eq!(v["spec"]["capacity"]["storage"], "1Gi");
        assert_eq!(v["spec"]["storageClassName"], "standard");
    }
}
