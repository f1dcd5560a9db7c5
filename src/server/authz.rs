//! Authentication, impersonation and authorization of every request, as
//! kube-apiserver's filters run them before a handler: the user from a
//! bearer token (`--token-auth-file`), anonymous, or the administrator
//! when no token file is set; `Impersonate-User`/`Impersonate-Group`,
//! themselves authorized (`impersonate`); then RBAC over the stored Roles,
//! ClusterRoles and their bindings (`system:masters` may do anything).
//! An in-process component (a controller) is who it says, and trusted.

use serde_json::Value;

use super::{Request, Server};
use crate::api::status::qualified_resource;
use crate::api::Status;
use crate::auth::{self, Attributes, UserInfo};
use crate::registry::options::ListOptions;

fn cluster_role_rules(name: &str, cluster_roles: &[Value], depth: usize) -> Vec<Value> {
    let Some(role) = cluster_roles.iter().find(|r| r["metadata"]["name"] == name) else { return Vec::new() };
    let mut rules: Vec<Value> = role["rules"].as_array().cloned().unwrap_or_default();
    let selectors = role.pointer("/aggregationRule/clusterRoleSelectors").and_then(Value::as_array);
    if let (Some(selectors), true) = (selectors, depth < 4) {
        for other in cluster_roles.iter().filter(|r| r["metadata"]["name"] != name) {
            let labels = &other["metadata"]["labels"];
            let picked = selectors.iter().any(|sel| {
                sel["matchLabels"].as_object().is_some_and(|m| !m.is_empty() && m.iter().all(|(k, v)| &labels[k] == v))
            });
            if picked {
                let other_name = other["metadata"]["name"].as_str().unwrap_or("");
                rules.extend(cluster_role_rules(other_name, cluster_roles, depth + 1));
            }
        }
    }
    rules
}

const RBAC_RESOURCES: &[&str] = &["roles", "rolebindings", "clusterroles", "clusterrolebindings"];

/// The RBAC objects as of a revision.
pub(super) struct RbacCache {
    at: crate::api::Revision,
    roles: Vec<Value>,
    role_bindings: Vec<Value>,
    cluster_role_bindings: Vec<Value>,
    /// Each ClusterRole's rules, aggregation followed.
    cluster_rules: std::collections::BTreeMap<String, Vec<Value>>,
}

/// What the authorizer decided, and why (RBAC's reason when it allowed).
pub struct Decision {
    pub allowed: bool,
    pub reason: String,
}

fn unauthorized() -> Status {
    Status::failure(401, "Unauthorized", "Unauthorized".into())
}

/// The 403 of a refused request, worded as upstream's `Forbidden`
/// response writer words it.
pub fn forbidden(a: &Attributes, user: &str, reason: &str) -> Status {
    let what = if a.resource_request {
        let resource =
            if a.subresource.is_empty() { a.resource.clone() } else { format!("{}/{}", a.resource, a.subresource) };
        let scope = if a.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace {:?}", a.namespace)
        };
        format!("User {user:?} cannot {} resource {resource:?} in API group {:?} {scope}", a.verb, a.api_group)
    } else {
        format!("User {user:?} cannot {} path {:?}", a.verb, a.path)
    };
    let why = if reason.is_empty() { what } else { format!("{what}: {reason}") };
    let message = if !a.resource_request || a.resource.is_empty() {
        format!("forbidden: {why}")
    } else if a.name.is_empty() {
        format!("{} is forbidden: {why}", qualified_resource(&a.api_group, &a.resource))
    } else {
        format!("{} {:?} is forbidden: {why}", qualified_resource(&a.api_group, &a.resource), a.name)
    };
    let mut s = Status::failure(403, "Forbidden", message);
    if a.resource_request {
        s = s.with_details(&a.api_group, &a.resource, &a.name);
    }
    s
}

impl Server {
    /// Who the request is from (before impersonation), or the 401.
    pub(super) fn authenticate(&self, req: &Request) -> Result<(UserInfo, bool), Status> {
        if let Some(u) = &req.user {
            return Ok((u.clone(), true));
        }
        let token = req
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
            .map(str::trim);
        match (&self.config.tokens, token) {
            (None, _) => Ok((UserInfo::admin(), false)),
            (Some(tokens), Some(t)) => match tokens.get(t) {
                Some(u) => {
                    let mut u = u.clone();
                    if !u.in_group("system:authenticated") {
                        u.groups.push("system:authenticated".into());
                    }
                    Ok((u, false))
                }
                None => Err(unauthorized()),
            },
            (Some(_), None) => Ok((UserInfo::anonymous(), false)),
        }
    }

    /// The user a request acts as: its `Impersonate-*` headers' when the
    /// authenticated user may impersonate them.
    pub(super) fn impersonate(&self, user: UserInfo, req: &Request) -> Result<UserInfo, Status> {
        let Some(name) = req.header("Impersonate-User").map(str::to_string) else {
            if req.header("Impersonate-Group").is_some() {
                return Err(Status::failure(
                    500,
                    "InternalError",
                    "Internal error occurred: requested [{Group  authentication.k8s.io/v1  } ] without impersonating a user"
                        .into(),
                ));
            }
            return Ok(user);
        };
        let groups: Vec<String> = req
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("Impersonate-Group"))
            .map(|(_, v)| v.clone())
            .collect();
        let check = |a: Attributes| -> Result<(), Status> {
            if self.decide(&user, &a, false).allowed {
                Ok(())
            } else {
                Err(forbidden(&a, &user.name, ""))
            }
        };
        let sa = name.strip_prefix("system:serviceaccount:").and_then(|r| r.split_once(':'));
        match sa {
            Some((ns, sa_name)) => check(Attributes {
                verb: "impersonate".into(),
                resource_request: true,
                namespace: ns.into(),
                resource: "serviceaccounts".into(),
                name: sa_name.into(),
                ..Default::default()
            })?,
            None => check(Attributes {
                verb: "impersonate".into(),
                resource_request: true,
                resource: "users".into(),
                name: name.clone(),
                ..Default::default()
            })?,
        }
        for g in &groups {
            check(Attributes {
                verb: "impersonate".into(),
                resource_request: true,
                resource: "groups".into(),
                name: g.clone(),
                ..Default::default()
            })?;
        }
        let mut as_user = UserInfo { name: name.clone(), groups, ..Default::default() };
        if let Some((ns, _)) = sa {
            as_user.groups.push("system:serviceaccounts".into());
            as_user.groups.push(format!("system:serviceaccounts:{ns}"));
        }
        if name != "system:anonymous" && !as_user.in_group("system:authenticated") {
            as_user.groups.push("system:authenticated".into());
        }
        Ok(as_user)
    }

    /// Reads the RBAC objects again when any was written since they were
    /// read (as upstream's authorizer reads them from informers, not per
    /// request).
    pub(super) fn refresh_rbac(&mut self) {
        if !self.config.rbac {
            return;
        }
        let head = self.registry.revision();
        let stale = match &self.rbac_cache {
            None => true,
            Some(c) => self.registry.group_written_since("rbac.authorization.k8s.io", c.at),
        };
        if !stale {
            if let Some(c) = &mut self.rbac_cache {
                c.at = head;
            }
            return;
        }
        let types: Vec<_> = RBAC_RESOURCES
            .iter()
            .filter_map(|r| self.registry.resources().lookup("rbac.authorization.k8s.io", "v1", r).cloned())
            .collect();
        let read = |rt: &crate::registry::ResourceType| -> Vec<Value> {
            self.registry
                .list(rt, None, &ListOptions::default())
                .map(|l| l.items.iter().map(|o| o.value()).collect())
                .unwrap_or_default()
        };
        let lists: Vec<Vec<Value>> = types.iter().map(|rt| read(rt)).collect();
        let mut it = lists.into_iter();
        let (roles, role_bindings, cluster_roles, cluster_role_bindings) = (
            it.next().unwrap_or_default(),
            it.next().unwrap_or_default(),
            it.next().unwrap_or_default(),
            it.next().unwrap_or_default(),
        );
        let cluster_rules = cluster_roles
            .iter()
            .filter_map(|r| r["metadata"]["name"].as_str())
            .map(|n| (n.to_string(), cluster_role_rules(n, &cluster_roles, 0)))
            .collect();
        self.rbac_cache = Some(RbacCache { at: head, roles, role_bindings, cluster_role_bindings, cluster_rules });
    }

    /// A role's rules (an aggregated ClusterRole's are those of every
    /// ClusterRole its selectors pick, as the aggregation controller keeps
    /// them, read through when the cache is made).
    fn role_rules(&self, kind: &str, name: &str, namespace: &str) -> &[Value] {
        let Some(c) = &self.rbac_cache else { return &[] };
        if kind == "Role" {
            return c
                .roles
                .iter()
                .find(|r| r["metadata"]["name"] == name && r["metadata"]["namespace"] == namespace)
                .and_then(|r| r["rules"].as_array())
                .map(Vec::as_slice)
                .unwrap_or(&[]);
        }
        c.cluster_rules.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// RBAC's decision (every request is allowed when RBAC is off).
    pub fn authorize(&self, user: &UserInfo, a: &Attributes) -> Decision {
        self.decide(user, a, true)
    }

    /// RBAC's decision; its allow reason only when `explain` (the
    /// request path does not need the text).
    fn decide(&self, user: &UserInfo, a: &Attributes, explain: bool) -> Decision {
        if !self.config.rbac || user.in_group("system:masters") {
            return Decision { allowed: true, reason: String::new() };
        }
        let Some(cache) = &self.rbac_cache else { return Decision { allowed: false, reason: String::new() } };
        for b in &cache.cluster_role_bindings {
            let subjects = b["subjects"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            if let Some(s) = subjects.iter().find(|s| auth::subject_matches(s, user, "")) {
                let role = b["roleRef"]["name"].as_str().unwrap_or("");
                let rules = self.role_rules("ClusterRole", role, "");
                if rules.iter().any(|r| auth::rule_allows(r, a)) {
                    if !explain {
                        return Decision { allowed: true, reason: String::new() };
                    }
                    return Decision {
                        allowed: true,
                        reason: format!(
                            "RBAC: allowed by ClusterRoleBinding {:?} of ClusterRole {role:?} to {} {:?}",
                            b["metadata"]["name"].as_str().unwrap_or(""),
                            s["kind"].as_str().unwrap_or(""),
                            s["name"].as_str().unwrap_or("")
                        ),
                    };
                }
            }
        }
        if !a.namespace.is_empty() {
            for b in cache.role_bindings.iter().filter(|b| b["metadata"]["namespace"].as_str() == Some(&a.namespace)) {
                let subjects = b["subjects"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                if let Some(s) = subjects.iter().find(|s| auth::subject_matches(s, user, &a.namespace)) {
                    let kind = b["roleRef"]["kind"].as_str().unwrap_or("");
                    let role = b["roleRef"]["name"].as_str().unwrap_or("");
                    let rules = self.role_rules(kind, role, &a.namespace);
                    if rules.iter().any(|r| auth::rule_allows(r, a)) {
                        if !explain {
                            return Decision { allowed: true, reason: String::new() };
                        }
                        return Decision {
                            allowed: true,
                            reason: format!(
                                "RBAC: allowed by RoleBinding {:?} of {kind} {role:?} to {} {:?}",
                                format!("{}/{}", b["metadata"]["name"].as_str().unwrap_or(""), a.namespace),
                                s["kind"].as_str().unwrap_or(""),
                                s["name"].as_str().unwrap_or("")
                            ),
                        };
                    }
                }
            }
        }
        Decision { allowed: false, reason: String::new() }
    }

    /// Authentication, impersonation and authorization of a request: the
    /// user it acts as, or the Status that answers it.
    pub(super) fn admit(&self, req: &Request) -> Result<UserInfo, Status> {
        let (user, trusted) = self.authenticate(req)?;
        let user = self.impersonate(user, req)?;
        if trusted && req.header("Impersonate-User").is_none() {
            return Ok(user);
        }
        let a = auth::attributes(&req.method, &req.path, &req.query);
        if self.decide(&user, &a, false).allowed {
            Ok(user)
        } else {
            Err(forbidden(&a, &user.name, ""))
        }
    }
}
