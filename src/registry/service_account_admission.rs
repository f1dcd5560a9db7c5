//! The ServiceAccount admission (upstream's `ServiceAccount` plugin, on in
//! every cluster), for new pods: the account the pod names (`default`
//! when it names none) must exist; unless the pod or the account says
//! `automountServiceAccountToken: false`, every container and init
//! container gets the account's credentials at
//! `/var/run/secrets/kubernetes.io/serviceaccount` from a projected
//! `kube-api-access-xxxxx` volume (a bound token, the cluster's CA, the
//! namespace); a pod with no image pull secrets gets the account's. A
//! mirror pod may name no account and project no token. The accounts are
//! `kinds/service_account.rs`, kept by `controllers/service_account.rs`.
//!
//! One choice of ours: upstream looks a missing `default` account up
//! again for a second or two, for the controller that makes it; a request
//! here cannot wait, so a pod naming a missing `default` account is
//! admitted as the account would admit it (`docs/fidelity.md`).

use serde_json::{json, Map, Value};

use super::resource::ResourceType;
use super::Registry;
use crate::api::Status;
use crate::storage::Storage;

/// Where the credentials are mounted in every container.
const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// The prefix of the projected volume's generated name.
const VOLUME_PREFIX: &str = "kube-api-access-";
/// The annotation that marks a mirror pod (a kubelet's static pod).
const MIRROR: &str = "kubernetes.io/config.mirror";
/// The annotation that holds a pod to the account's secrets.
const ENFORCE: &str = "kubernetes.io/enforce-mountable-secrets";

fn is_pods(rt: &ResourceType) -> bool {
    rt.gvr.group.is_empty() && rt.gvr.resource == "pods"
}

impl<S: Storage> Registry<S> {
    /// The account a new pod names, or `None` when it is missing.
    fn service_account(&self, namespace: &str, name: &str) -> Option<Value> {
        let rt = self.resources.lookup("", "v1", "serviceaccounts")?;
        self.current(rt, namespace, name).ok().map(|(_, o)| o.value())
    }

    /// The plugin's mutating and validating halves for a new pod (it
    /// refuses only what it finds itself; a refusal names the pod by its
    /// `generateName` when its name is `generated`).
    pub(super) fn admit_pod_service_account(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        generated: bool,
        value: &mut Value,
    ) -> Result<(), Status> {
        if !is_pods(rt) {
            return Ok(());
        }
        let shown = super::store::shown_name(value, generated).to_string();
        let shown = shown.as_str();
        let forbidden = |why: &str| Status::forbidden(rt.group(), rt.resource(), shown, why);
        if value.pointer("/metadata/annotations").and_then(|a| a.get(MIRROR)).is_some() {
            return mirror_pod(value).map_err(forbidden);
        }
        let Some(spec) = value.get_mut("spec").and_then(Value::as_object_mut) else { return Ok(()) };
        if spec.get("serviceAccountName").and_then(Value::as_str).is_none_or(str::is_empty) {
            spec.insert("serviceAccountName".into(), json!("default"));
            spec.insert("serviceAccount".into(), json!("default"));
        }
        let name = spec.get("serviceAccountName").and_then(Value::as_str).unwrap_or("").to_string();
        let account = match self.service_account(namespace, &name) {
            Some(account) => account,
            None if name == "default" => json!({}),
            None => {
                return Err(forbidden(&format!(
                    "error looking up service account {namespace}/{name}: serviceaccount \"{name}\" not found"
                )))
            }
        };
        let automount = spec.get("automountServiceAccountToken").and_then(Value::as_bool);
        if automount.or_else(|| account["automountServiceAccountToken"].as_bool()).unwrap_or(true) {
            let (names, rng) = (&self.names, &mut self.rng);
            mount_token(spec, || names.generate(VOLUME_PREFIX, rng));
        }
        let pull = account.get("imagePullSecrets").and_then(Value::as_array).filter(|a| !a.is_empty());
        if let Some(pull) =
            pull.filter(|_| spec.get("imagePullSecrets").and_then(Value::as_array).is_none_or(Vec::is_empty))
        {
            let names = pull.iter().map(|s| json!({"name": s["name"].as_str().unwrap_or("")}));
            spec.insert("imagePullSecrets".into(), Value::Array(names.collect()));
        }
        let enforced = account.pointer("/metadata/annotations").and_then(|a| a.get(ENFORCE)).and_then(Value::as_str);
        if enforced.is_some_and(parse_bool) {
            return limit_secret_references(&account, spec).map_err(|why| forbidden(&why));
        }
        Ok(())
    }
}

/// Go's `strconv.ParseBool` saying true.
fn parse_bool(s: &str) -> bool {
    matches!(s, "1" | "t" | "T" | "true" | "TRUE" | "True")
}

/// Adds the credentials' mount to every container lacking one at the
/// path, and the projected volume (named by `generate` unless the pod has
/// a `kube-api-access-` volume already) when any container took the mount.
fn mount_token(spec: &mut Map<String, Value>, generate: impl FnOnce() -> String) {
    let volumes = spec.get("volumes").and_then(Value::as_array);
    let existing =
        volumes.into_iter().flatten().filter_map(|v| v["name"].as_str()).find(|n| n.starts_with(VOLUME_PREFIX));
    let has_volume = existing.is_some();
    let volume = existing.map(str::to_string).unwrap_or_else(generate);
    let mut mounted = false;
    for list in ["initContainers", "containers"] {
        let Some(Value::Array(containers)) = spec.get_mut(list) else { continue };
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            if !c.get("volumeMounts").is_some_and(Value::is_array) {
                c.insert("volumeMounts".into(), Value::Array(Vec::new()));
            }
            let Some(Value::Array(mounts)) = c.get_mut("volumeMounts") else { continue };
            if !mounts.iter().any(|m| m["mountPath"] == MOUNT_PATH) {
                mounts.push(json!({"name": volume, "readOnly": true, "mountPath": MOUNT_PATH}));
                mounted = true;
            }
        }
    }
    if mounted && !has_volume {
        let v = json!({"name": volume, "projected": {"sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
        ], "defaultMode": 420}});
        match spec.get_mut("volumes") {
            Some(Value::Array(vs)) => vs.push(v),
            _ => {
                spec.insert("volumes".into(), Value::Array(vec![v]));
            }
        }
    }
}

/// What a mirror pod may not hold (its spec is the kubelet's and is left
/// as it came).
#[inline(never)]
fn mirror_pod(value: &Value) -> Result<(), &'static str> {
    let spec = &value["spec"];
    if spec["serviceAccountName"].as_str().is_some_and(|n| !n.is_empty()) {
        return Err("a mirror pod may not reference service accounts");
    }
    if !secret_names(spec).is_empty() {
        return Err("a mirror pod may not reference secrets");
    }
    let projections =
        spec["volumes"].as_array().into_iter().flatten().filter_map(|v| v["projected"]["sources"].as_array());
    if projections.flatten().any(|s| s.get("serviceAccountToken").is_some()) {
        return Err("a mirror pod may not use ServiceAccountToken volume projections");
    }
    Ok(())
}

fn containers(spec: &Value) -> impl Iterator<Item = &Value> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(move |l| spec[l].as_array().into_iter().flatten())
}

/// The secrets a pod spec names: pull secrets, secret volumes and
/// projections, and its containers' secret environment.
fn secret_names(spec: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let pull = spec["imagePullSecrets"].as_array().into_iter().flatten();
    names.extend(pull.filter_map(|s| s["name"].as_str()));
    for v in spec["volumes"].as_array().into_iter().flatten() {
        names.extend(v["secret"]["secretName"].as_str());
        let sources = v["projected"]["sources"].as_array().into_iter().flatten();
        names.extend(sources.filter_map(|s| s["secret"]["name"].as_str()));
    }
    for c in containers(spec) {
        names.extend(c["envFrom"].as_array().into_iter().flatten().filter_map(|e| e["secretRef"]["name"].as_str()));
        let env = c["env"].as_array().into_iter().flatten();
        names.extend(env.filter_map(|e| e["valueFrom"]["secretKeyRef"]["name"].as_str()));
    }
    names.retain(|n| !n.is_empty());
    names
}

/// An account marked `kubernetes.io/enforce-mountable-secrets: "true"`
/// holds its pods to the secrets it lists: secret volumes and the
/// containers' secret environment to `secrets`, pull secrets to
/// `imagePullSecrets` (upstream's messages, in its order).
#[inline(never)]
fn limit_secret_references(account: &Value, spec: &Map<String, Value>) -> Result<(), String> {
    let listed = |field: &str, name: &str| account[field].as_array().into_iter().flatten().any(|s| s["name"] == name);
    let sa = account.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    let refused = |what: String, name: &str| {
        format!("{what} referencing secret.secretName=\"{name}\" is not allowed because service account {sa} does not reference that secret")
    };
    let items = |field: &str| spec.get(field).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for v in items("volumes") {
        if let Some(name) = v["secret"]["secretName"].as_str().filter(|n| !listed("secrets", n)) {
            return Err(format!("volume with secret.secretName=\"{name}\" is not allowed because service account {sa} does not reference that secret"));
        }
    }
    for (list, what) in [("initContainers", "init container"), ("containers", "container")] {
        for c in items(list) {
            let cname = c["name"].as_str().unwrap_or("");
            for e in c["env"].as_array().into_iter().flatten() {
                if let Some(name) = e["valueFrom"]["secretKeyRef"]["name"].as_str().filter(|n| !listed("secrets", n)) {
                    let env = e["name"].as_str().unwrap_or("");
                    return Err(refused(format!("{what} {cname} with envVar {env}"), name));
                }
            }
            for e in c["envFrom"].as_array().into_iter().flatten() {
                if let Some(name) = e["secretRef"]["name"].as_str().filter(|n| !listed("secrets", n)) {
                    return Err(refused(format!("{what} {cname} with envFrom"), name));
                }
            }
        }
    }
    for (i, s) in items("imagePullSecrets").iter().enumerate() {
        let name = s["name"].as_str().unwrap_or("");
        if !listed("imagePullSecrets", name) {
            return Err(format!("imagePullSecrets[{i}].name=\"{name}\" is not allowed because service account {sa} does not reference that imagePullSecret"));
        }
    }
    Ok(())
}
