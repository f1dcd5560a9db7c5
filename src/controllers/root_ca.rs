//! The root CA publisher (kube-controller-manager's
//! `root-ca-cert-publisher`), a client: every namespace that is not being
//! deleted has a ConfigMap `kube-root-ca.crt` holding the cluster's CA
//! bundle (`ca.crt`, the simulated one here) and upstream's
//! `kubernetes.io/description` annotation. One that is missing is created,
//! one whose data or annotation was changed is put back; other
//! annotations and labels a user added are kept, as upstream keeps them.

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::meta_str;
use super::{Controller, Progress};

/// The ConfigMap's name.
pub const NAME: &str = "kube-root-ca.crt";

/// The cluster's CA bundle, as the simulation has one.
pub const CA_CRT: &str = "-----BEGIN CERTIFICATE-----\n(simulated)\n-----END CERTIFICATE-----\n";

const DESCRIPTION_KEY: &str = "kubernetes.io/description";
const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

pub struct RootCaPublisher {
    namespaces: Informer,
    config_maps: Informer,
}

impl Default for RootCaPublisher {
    fn default() -> Self {
        RootCaPublisher {
            namespaces: Informer::new("/api/v1/namespaces"),
            config_maps: Informer::new(format!("/api/v1/configmaps?fieldSelector=metadata.name%3D{NAME}")),
        }
    }
}

impl Controller for RootCaPublisher {
    fn name(&self) -> &'static str {
        "root-ca-cert-publisher"
    }

    fn service_account(&self) -> &'static str {
        "root-ca-cert-publisher"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if self.namespaces.sync(client) | self.config_maps.sync(client) {
            let namespaces: Vec<Arc<Value>> = self.namespaces.shared().cloned().collect();
            for ns in namespaces {
                self.sync(client, &ns);
            }
        }
        Progress { writes: client.writes - before }
    }
}

impl RootCaPublisher {
    fn sync(&mut self, client: &mut Client<'_>, ns: &Value) {
        if !super::object::is_namespace_active(ns) {
            return;
        }
        let name = meta_str(ns, "name");
        let path = format!("/api/v1/namespaces/{name}/configmaps");
        let data = json!({"ca.crt": CA_CRT});
        let Some(cm) = self.config_maps.get(&format!("{name}/{NAME}")) else {
            let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": NAME, "annotations": {DESCRIPTION_KEY: DESCRIPTION}}, "data": data});
            client.write("POST", &path, "application/json", &body);
            return;
        };
        let described = cm["metadata"]["annotations"][DESCRIPTION_KEY].as_str().is_some_and(|d| !d.is_empty());
        if cm["data"] == data && described {
            return;
        }
        let mut body = cm.clone();
        body["data"] = data;
        if !body["metadata"]["annotations"].is_object() {
            body["metadata"]["annotations"] = json!({});
        }
        body["metadata"]["annotations"][DESCRIPTION_KEY] = json!(DESCRIPTION);
        body["kind"] = json!("ConfigMap");
        body["apiVersion"] = json!("v1");
        client.write("PUT", &format!("{path}/{NAME}"), "application/json", &body);
    }
}
