//! RBAC's escalation prevention, as upstream's RBAC storage enforces it on
//! every create and update of a Role, ClusterRole or binding: a user may
//! only grant what they hold. A role's rules must be covered by the rules
//! the writer holds in the request's namespace (cluster-wide ones
//! included) unless they may `escalate` roles; a binding's role must be
//! covered unless they may `bind` it. `system:masters`, the cluster's own
//! components and a server without RBAC (whose authorizer allows
//! `escalate`) are not checked.
//!
//! Upstream checks before validation; here the write is first worked out
//! as a dry run (so that every body format and patch gives the object it
//! would store) and checked after, so an invalid object that would also
//! escalate is answered with its 422 rather than the 403.

use serde_json::Value;

use super::Server;
use crate::api::Status;
use crate::auth::{breakdown, rule_allows, Attributes, RuleAtom};
use crate::registry::decode::RequestBody;
use crate::registry::options::{PatchType, Subresource, WriteOptions};
use crate::registry::store::Body;
use crate::registry::ResourceType;
use crate::schema::decode::go_quote;

const RBAC: &str = "rbac.authorization.k8s.io";

/// The write being checked.
pub(super) enum Write<'a> {
    Create(RequestBody<'a>),
    Update(&'a str, RequestBody<'a>),
    Patch(&'a str, PatchType, &'a [u8]),
}

/// A list as Go's `%q` prints a `[]string`.
fn go_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = items.into_iter().map(go_quote).collect();
    format!("[{}]", quoted.join(" "))
}

/// The atoms not covered, gathered as upstream's `CompactRules` gathers
/// them (those of one group, resource and name with their verbs) and
/// written as its `CompactString`, each once, sorted.
fn describe_missing(missing: Vec<RuleAtom>) -> String {
    // (verbs, group, resource, name, url) per gathered rule.
    let mut gathered: Vec<(Vec<String>, RuleAtom)> = Vec::new();
    for atom in missing {
        let simple = atom.url.is_none();
        match gathered.iter_mut().find(|(_, g)| {
            simple && g.url.is_none() && g.group == atom.group && g.resource == atom.resource && g.name == atom.name
        }) {
            Some((verbs, _)) => verbs.push(atom.verb.clone()),
            None => gathered.push((vec![atom.verb.clone()], atom)),
        }
    }
    let mut lines: Vec<String> = gathered
        .iter()
        .map(|(verbs, a)| {
            let mut parts = Vec::new();
            if let Some(url) = &a.url {
                parts.push(format!("NonResourceURLs:{}", go_list([url.as_str()])));
            } else {
                parts.push(format!("APIGroups:{}", go_list([a.group.as_str()])));
                parts.push(format!("Resources:{}", go_list([a.resource.as_str()])));
                if let Some(n) = &a.name {
                    parts.push(format!("ResourceNames:{}", go_list([n.as_str()])));
                }
            }
            parts.push(format!("Verbs:{}", go_list(verbs.iter().map(String::as_str))));
            format!("{{{}}}", parts.join(", "))
        })
        .collect();
    crate::sort::Order::order(lines.as_mut_slice());
    lines.dedup();
    lines.join("\n")
}

/// The object without what only the garbage collector changes (upstream
/// lets such updates through unchecked), nor what every write changes.
fn without_gc_fields(obj: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        for k in ["finalizers", "ownerReferences", "managedFields", "resourceVersion"] {
            m.shift_remove(k);
        }
    }
    o
}

fn value_of(body: &Body) -> Option<Value> {
    match body {
        Body::Object(o) => Some(o.value()),
        Body::Value(v) => Some(v.clone()),
        Body::Status(_) => None,
    }
}

impl Server {
    /// Whether the user acting now is held to escalation prevention.
    fn escalation_checked(&self) -> bool {
        self.config.rbac && !self.acting_trusted && !self.acting.in_group("system:masters")
    }

    /// Refuses a write of an RBAC object that would grant what its writer
    /// does not hold (403, or the 404 of a binding's missing role).
    pub(super) fn confirm_no_escalation(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        write: Write<'_>,
        opts: &WriteOptions,
    ) -> Result<(), Status> {
        if rt.group() != RBAC || opts.subresource != Subresource::None || !self.escalation_checked() {
            return Ok(());
        }
        let binding = match rt.resource() {
            "roles" | "clusterroles" => false,
            "rolebindings" | "clusterrolebindings" => true,
            _ => return Ok(()),
        };
        self.confirm(rt, namespace, write, opts, binding)
    }

    #[inline(never)]
    fn confirm(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        write: Write<'_>,
        opts: &WriteOptions,
        binding: bool,
    ) -> Result<(), Status> {
        let attrs = |verb: &str, resource: &str, name: &str| Attributes {
            verb: verb.into(),
            resource_request: true,
            api_group: RBAC.into(),
            api_version: "*".into(),
            namespace: namespace.into(),
            resource: resource.into(),
            name: name.into(),
            ..Default::default()
        };
        let named = match &write {
            Write::Create(_) => "",
            Write::Update(n, _) | Write::Patch(n, ..) => n,
        };
        if !binding && self.decide(&self.acting, &attrs("escalate", rt.resource(), named), false).allowed {
            return Ok(());
        }
        // The object the write would store (a write that fails answers
        // with its own error, unchecked).
        let dry = WriteOptions { dry_run: true, ..opts.clone() };
        let mut ignored = Vec::new();
        let written = match write {
            Write::Create(body) => self.registry.create(rt, namespace, body, &dry, &mut ignored),
            Write::Update(name, body) => {
                self.registry.update(rt, namespace, name, body, &dry, &mut ignored).map(|w| w.body)
            }
            Write::Patch(name, patch_type, bytes) => {
                self.registry.patch(rt, namespace, name, patch_type, bytes, &dry, &mut ignored).map(|w| w.body)
            }
        };
        let Some(new) = written.ok().as_ref().and_then(value_of) else { return Ok(()) };
        let name = new.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
        if !named.is_empty() {
            // Only what the garbage collector changes: let through.
            if self.stored(rt, namespace, named).is_ok_and(|old| without_gc_fields(&new) == without_gc_fields(&old)) {
                return Ok(());
            }
        }
        let rules: Vec<Value> = if binding {
            let kind = new.pointer("/roleRef/kind").and_then(Value::as_str).unwrap_or("");
            let role = new.pointer("/roleRef/name").and_then(Value::as_str).unwrap_or("");
            let resource = if kind == "Role" { "roles" } else { "clusterroles" };
            if self.decide(&self.acting, &attrs("bind", resource, role), false).allowed {
                return Ok(());
            }
            let lookup = if kind == "Role" { namespace } else { "" };
            match self.role_rules(resource, lookup, role) {
                Some(rules) => rules,
                None => return Err(Status::not_found(RBAC, resource, role)),
            }
        } else {
            new.get("rules").and_then(Value::as_array).cloned().unwrap_or_default()
        };
        let (owner, errors) = self.rules_for(&self.acting, namespace);
        // (A rule covers an atom exactly when it allows the atom's request.)
        let missing: Vec<RuleAtom> = rules
            .iter()
            .flat_map(breakdown)
            .filter(|a| {
                let request = a.attributes();
                !owner.iter().any(|o| rule_allows(o, &request))
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let user = &self.acting;
        let mut why = format!(
            "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
            go_quote(&user.name),
            go_list(user.groups.iter().map(String::as_str)),
            describe_missing(missing)
        );
        if !errors.is_empty() {
            why.push_str(&format!("; resolution errors: [{}]", super::authz::aggregate(&errors)));
        }
        Err(Status::forbidden(RBAC, rt.resource(), &name, &why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn atoms(rule: Value) -> Vec<RuleAtom> {
        breakdown(&rule)
    }

    fn covers(owner: &Value, a: &RuleAtom) -> bool {
        rule_allows(owner, &a.attributes())
    }

    #[test]
    fn rules_cover_atoms_as_upstreams_comparator() {
        let owner = json!({"verbs": ["get", "list"], "apiGroups": ["", "apps"], "resources": ["pods", "*/scale"]});
        let covered = |rule: Value| atoms(rule).iter().all(|a| covers(&owner, a));
        assert!(covered(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})));
        assert!(covered(json!({"verbs": ["list"], "apiGroups": ["apps"], "resources": ["deployments/scale"]})));
        // A name is narrower than none.
        assert!(covered(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]})));
        assert!(!covered(json!({"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"]})));
        assert!(!covered(json!({"verbs": ["get"], "apiGroups": ["batch"], "resources": ["pods"]})));
        let named = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]});
        assert!(!atoms(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}))
            .iter()
            .all(|a| covers(&named, a)));
        let urls = json!({"verbs": ["get"], "nonResourceURLs": ["/healthz/*"]});
        assert!(atoms(json!({"verbs": ["get"], "nonResourceURLs": ["/healthz/etcd"]}))
            .iter()
            .all(|a| covers(&urls, a)));
        assert!(!atoms(json!({"verbs": ["get"], "nonResourceURLs": ["/metrics"]})).iter().all(|a| covers(&urls, a)));
        // A wildcard asked for is covered only by a wildcard.
        assert!(!covered(json!({"verbs": ["*"], "apiGroups": [""], "resources": ["pods"]})));
    }

    #[test]
    fn the_missing_rules_read_as_upstreams_message() {
        let missing =
            atoms(json!({"verbs": ["get", "delete", "get"], "apiGroups": ["", "apps"], "resources": ["pods"]}));
        assert_eq!(
            describe_missing(missing),
            "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"delete\" \"get\"]}\n{APIGroups:[\"apps\"], Resources:[\"pods\"], Verbs:[\"get\" \"delete\" \"get\"]}"
        );
        let urls = atoms(json!({"verbs": ["get"], "nonResourceURLs": ["/b", "/a", "/b"]}));
        assert_eq!(
            describe_missing(urls),
            "{NonResourceURLs:[\"/a\"], Verbs:[\"get\"]}\n{NonResourceURLs:[\"/b\"], Verbs:[\"get\"]}"
        );
    }
}
