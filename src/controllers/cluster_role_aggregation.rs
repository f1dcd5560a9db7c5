//! The ClusterRole aggregation controller (kube-controller-manager's
//! `clusterrole-aggregation`), a client: a ClusterRole with an
//! `aggregationRule` gets, as its `rules`, the rules of every other
//! ClusterRole its selectors pick (selector by selector, the picked roles
//! by name, each rule once), written by server-side apply with the field
//! manager `clusterrole-aggregation-controller`, forced. That is how the
//! bootstrap `admin`, `edit` and `view` come to hold the rules of the
//! `system:aggregate-to-*` roles, and how a ClusterRole labelled
//! `rbac.authorization.k8s.io/aggregate-to-view: "true"` adds to `view`.
//! The authorizer reads only the stored rules, as upstream's does, so an
//! aggregated role grants nothing until this controller has run.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::informer::Informer;
use super::object::{meta_str, selects};
use super::{Controller, Progress};
use crate::selector::{label_selector_string, LabelSelector};

const CLUSTER_ROLES: &str = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
const MANAGER: &str = "clusterrole-aggregation-controller";

pub struct ClusterRoleAggregation {
    roles: Informer,
}

impl Default for ClusterRoleAggregation {
    fn default() -> Self {
        ClusterRoleAggregation { roles: Informer::new(CLUSTER_ROLES) }
    }
}

impl Controller for ClusterRoleAggregation {
    fn name(&self) -> &'static str {
        "clusterrole-aggregation"
    }

    fn service_account(&self) -> &'static str {
        MANAGER
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        // Any ClusterRole changing may change what every aggregated one
        // should hold (upstream queues them all on each event).
        if self.roles.sync(client) {
            let roles: Vec<Arc<Value>> = self.roles.shared().cloned().collect();
            for role in roles.iter().filter(|r| r.get("aggregationRule").is_some_and(|a| !a.is_null())) {
                let rules = aggregated_rules(role, &roles);
                let stored: Vec<Value> = items(role, "rules").iter().map(normalized).collect();
                if rules != stored {
                    let mut body = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                        "metadata": {"name": meta_str(role, "name")}});
                    if !rules.is_empty() {
                        body["rules"] = Value::Array(rules);
                    }
                    let target =
                        format!("{CLUSTER_ROLES}/{}?fieldManager={MANAGER}&force=true", meta_str(role, "name"));
                    client.write("PATCH", &target, "application/apply-patch+yaml", &body);
                }
            }
        }
        Progress { writes: client.writes - before }
    }
}

fn items<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A rule with its empty lists left out: upstream compares rules
/// semantically (an empty list equals an absent one) and applies them
/// with only the lists that have something.
fn normalized(rule: &Value) -> Value {
    let mut out = Map::new();
    for k in ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"] {
        if let Some(list) = rule.get(k).filter(|l| l.as_array().is_some_and(|a| !a.is_empty())) {
            out.insert(k.into(), list.clone());
        }
    }
    Value::Object(out)
}

/// What `role` should hold: for each of its selectors in turn, the other
/// ClusterRoles it picks, by name (`roles` is in key order: by name),
/// each of their rules unless already there. An empty selector picks
/// every ClusterRole, as upstream's; one that cannot be read picks none
/// (upstream gives up on the role until it changes).
fn aggregated_rules(role: &Value, roles: &[Arc<Value>]) -> Vec<Value> {
    let name = meta_str(role, "name");
    let mut rules: Vec<Value> = Vec::new();
    for selector in items(&role["aggregationRule"], "clusterRoleSelectors") {
        let Ok(selector) = LabelSelector::parse(&label_selector_string(Some(selector))) else { continue };
        for other in roles.iter().filter(|r| meta_str(r, "name") != name && selects(&selector, r)) {
            for rule in items(other, "rules").iter().map(normalized) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(name: &str, labels: Value, rules: Value) -> Arc<Value> {
        Arc::new(json!({"metadata": {"name": name, "labels": labels}, "rules": rules}))
    }

    #[test]
    fn picks_by_selector_then_name_and_keeps_each_rule_once() {
        let get_pods = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]});
        let list_svc = json!({"verbs": ["list"], "apiGroups": [""], "resources": ["services"], "resourceNames": []});
        let roles = vec![
            role("a-second", json!({"x": "true"}), json!([list_svc, get_pods])),
            role("b-first", json!({"y": "true"}), json!([get_pods])),
            role(
                "c-unpicked",
                json!({"x": "false"}),
                json!([{"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"]}]),
            ),
        ];
        let aggregate = json!({"metadata": {"name": "agg", "labels": {"x": "true"}},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"y": "true"}}, {"matchExpressions": [{"key": "x", "operator": "In", "values": ["true"]}]}]}});
        let mut all = roles.clone();
        all.push(Arc::new(aggregate.clone()));
        assert_eq!(
            aggregated_rules(&aggregate, &all),
            vec![get_pods.clone(), json!({"verbs": ["list"], "apiGroups": [""], "resources": ["services"]})]
        );
        // An empty selector picks every other role.
        let everything = json!({"metadata": {"name": "all"}, "aggregationRule": {"clusterRoleSelectors": [{}]}});
        assert_eq!(aggregated_rules(&everything, &all).len(), 3);
    }
}
