//! The service account controller (kube-controller-manager's
//! `serviceaccount`), a client: every namespace that is not being deleted
//! has a ServiceAccount `default`. One that is missing — a new namespace's,
//! or one a user deleted — is created, with nothing but its name, as
//! upstream's creates it; what a user changes in it stays.

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::meta_str;
use super::{Controller, Progress};

/// The account every namespace has.
pub const DEFAULT: &str = "default";

pub struct ServiceAccounts {
    namespaces: Informer,
    accounts: Informer,
}

impl Default for ServiceAccounts {
    fn default() -> Self {
        ServiceAccounts {
            namespaces: Informer::new("/api/v1/namespaces"),
            accounts: Informer::new(format!("/api/v1/serviceaccounts?fieldSelector=metadata.name%3D{DEFAULT}")),
        }
    }
}

impl Controller for ServiceAccounts {
    fn name(&self) -> &'static str {
        "serviceaccount"
    }

    fn service_account(&self) -> &'static str {
        "service-account-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if self.namespaces.sync(client) | self.accounts.sync(client) {
            let namespaces: Vec<Arc<Value>> = self.namespaces.shared().cloned().collect();
            for ns in namespaces {
                let name = meta_str(&ns, "name");
                if super::object::is_namespace_active(&ns) && self.accounts.get(&format!("{name}/{DEFAULT}")).is_none()
                {
                    let body = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT}});
                    client.write(
                        "POST",
                        &format!("/api/v1/namespaces/{name}/serviceaccounts"),
                        "application/json",
                        &body,
                    );
                }
            }
        }
        Progress { writes: client.writes - before }
    }
}
