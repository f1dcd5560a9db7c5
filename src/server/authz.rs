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
            if self.authorize(&user, &a).allowed {
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

    fn stored_list(&self, resource: &str, namespace: Option<&str>) -> Vec<Value> {
        let Some(rt) = self.registry.resources().lookup("rbac.authorization.k8s.io", "v1", resource).cloned() else {
            return Vec::new();
        };
        self.registry
            .list(&rt, namespace, &ListOptions::default())
            .map(|l| l.items.iter().map(|o| o.value()).collect())
            .unwrap_or_default()
    }

    /// A role's rules; an aggregated ClusterRole's are those of every
    /// ClusterRole its selectors pick (as the aggregation controller keeps
    /// them, aggregated ones included), read here when deciding.
    fn role_rules(&self, kind: &str, name: &str, namespace: &str, cluster_roles: &[Value]) -> Vec<Value> {
        if kind == "Role" {
            let roles = self.stored_list("roles", Some(namespace));
            return roles
                .iter()
                .find(|r| r["metadata"]["name"] == name)
                .and_then(|r| r["rules"].as_array().cloned())
                .unwrap_or_default();
        }
        cluster_role_rules(name, cluster_roles, 0)
    }

    /// RBAC's decision (every request is allowed when RBAC is off).
    pub fn authorize(&self, user: &UserInfo, a: &Attributes) -> Decision {
        if !self.config.rbac || user.in_group("system:masters") {
            return Decision { allowed: true, reason: String::new() };
        }
        let cluster_roles = self.stored_list("clusterroles", None);
        for b in self.stored_list("clusterrolebindings", None) {
            let subjects = b["subjects"].as_array().cloned().unwrap_or_default();
            if let Some(s) = subjects.iter().find(|s| auth::subject_matches(s, user, "")) {
                let role = b["roleRef"]["name"].as_str().unwrap_or("");
                let rules = self.role_rules("ClusterRole", role, "", &cluster_roles);
                if rules.iter().any(|r| auth::rule_allows(r, a)) {
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
            for b in self.stored_list("rolebindings", Some(&a.namespace)) {
                let subjects = b["subjects"].as_array().cloned().unwrap_or_default();
                if let Some(s) = subjects.iter().find(|s| auth::subject_matches(s, user, &a.namespace)) {
                    let kind = b["roleRef"]["kind"].as_str().unwrap_or("");
                    let role = b["roleRef"]["name"].as_str().unwrap_or("");
                    let rules = self.role_rules(kind, role, &a.namespace, &cluster_roles);
                    if rules.iter().any(|r| auth::rule_allows(r, a)) {
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
        if self.authorize(&user, &a).allowed {
            Ok(user)
        } else {
            Err(forbidden(&a, &user.name, ""))
        }
    }
}
