//! Authentication, impersonation and authorization of every request, as
//! kube-apiserver's filters run them before a handler: the user from a
//! bearer token (`--token-auth-file`), anonymous, or the administrator
//! when no token file is set; `Impersonate-User`/`Impersonate-Group`,
//! themselves authorized (`impersonate`); then RBAC over the stored Roles,
//! ClusterRoles and their bindings (`system:masters` may do anything).
//! An in-process component (a controller) is who it says, and trusted.

use std::sync::Arc;

use serde_json::Value;

use super::{Request, Response, Server};
use crate::api::status::qualified_resource;
use crate::api::Status;
use crate::auth::{self, Attributes, UserInfo};
use crate::registry::options::ListOptions;

const RBAC_RESOURCES: &[&str] = &["roles", "rolebindings", "clusterroles", "clusterrolebindings"];

/// The RBAC objects as of a revision.
pub(super) struct RbacCache {
    at: crate::api::Revision,
    roles: Vec<Value>,
    role_bindings: Vec<Value>,
    cluster_role_bindings: Vec<Value>,
    /// Each ClusterRole's rules, as stored (an aggregated one's are what
    /// the aggregation controller wrote).
    cluster_rules: std::collections::BTreeMap<String, Vec<Value>>,
}

/// A binding that applies to a user, and its role's rules.
struct Grant<'a> {
    binding: &'a Value,
    /// The RoleBinding's namespace ("" for a ClusterRoleBinding).
    namespace: &'a str,
    subject: &'a Value,
    role_kind: &'a str,
    role: &'a str,
    rules: Result<&'a [Value], String>,
}

impl Grant<'_> {
    /// RBAC's reason for an allow this grant gave.
    fn allow_reason(&self) -> String {
        let name = self.binding["metadata"]["name"].as_str().unwrap_or("");
        let (kind, binding) = if self.namespace.is_empty() {
            ("ClusterRoleBinding", name.to_string())
        } else {
            ("RoleBinding", format!("{name}/{}", self.namespace))
        };
        format!(
            "RBAC: allowed by {kind} {binding:?} of {} {:?} to {} {:?}",
            self.role_kind,
            self.role,
            self.subject["kind"].as_str().unwrap_or(""),
            self.subject["name"].as_str().unwrap_or("")
        )
    }
}

/// A missing role, as the lister's NotFound words it.
fn subjects(binding: &Value) -> &[Value] {
    binding["subjects"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn role_not_found(resource: &str, name: &str) -> String {
    format!("{resource}.rbac.authorization.k8s.io {name:?} not found")
}

/// Several errors as Go's aggregate prints them.
pub(super) fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// What the authorizer decided, and why (RBAC's reason when it allowed).
pub struct Decision {
    pub allowed: bool,
    pub reason: String,
}

pub(super) fn unauthorized() -> Status {
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
    pub(super) fn authenticate(&self, req: &Request) -> Result<(Arc<UserInfo>, bool), Status> {
        if let Some(u) = &req.user {
            return Ok((u.clone(), true));
        }
        let token = req
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
            .map(str::trim);
        // A service account token this server issued (in any mode: upstream
        // always reads them), before the token file's.
        if let Some(user) = token.and_then(|t| self.service_account_user(t)) {
            return user.map(|u| (Arc::new(u), false));
        }
        match (&self.config.tokens, token) {
            (None, _) => Ok((UserInfo::admin_shared(), false)),
            (Some(tokens), Some(t)) => match tokens.get(t) {
                Some(u) => {
                    let mut u = u.clone();
                    if !u.in_group("system:authenticated") {
                        u.groups.push("system:authenticated".into());
                    }
                    Ok((Arc::new(u), false))
                }
                None => Err(unauthorized()),
            },
            (Some(_), None) => Ok((UserInfo::anonymous_shared(), false)),
        }
    }

    /// The user a request acts as: its `Impersonate-*` headers' when the
    /// authenticated user may impersonate each of them (one `impersonate`
    /// check per user, group, uid and extra value, as upstream's filter
    /// makes them).
    pub(super) fn impersonate(&self, user: Arc<UserInfo>, req: &Request) -> Result<Arc<UserInfo>, Response> {
        let values = |name: &str| -> Vec<String> {
            req.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()).collect()
        };
        let groups = values("Impersonate-Group");
        let uid = req.header("Impersonate-Uid").map(str::to_string);
        const EXTRA: &str = "impersonate-extra-";
        let mut extra: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (k, v) in &req.headers {
            // (`get`: a name that is not ASCII cannot split mid-character.)
            let (Some(head), Some(rest)) = (k.get(..EXTRA.len()), k.get(EXTRA.len()..)) else { continue };
            if !rest.is_empty() && head.eq_ignore_ascii_case(EXTRA) {
                let key = percent_decode(&rest.to_ascii_lowercase());
                extra.entry(key).or_default().push(v.clone());
            }
        }
        let Some(name) = req.header("Impersonate-User").map(str::to_string) else {
            if groups.is_empty() && uid.is_none() && extra.is_empty() {
                return Ok(user);
            }
            // Upstream refuses before authorizing anything, with a plain
            // 500 listing what was asked for as Go prints object references.
            let reference = |kind: &str, name: &str| format!("{{{kind}  {name}    }}");
            let mut asked: Vec<String> = groups.iter().map(|g| reference("Group", g)).collect();
            for (k, vs) in &extra {
                asked.extend(vs.iter().map(|v| format!("{{UserExtra  {v}  authentication.k8s.io/v1  {k}}}")));
            }
            if let Some(u) = &uid {
                asked.push(format!("{{UID  {u}  authentication.k8s.io/v1  }}"));
            }
            let uri = if req.query.is_empty() { req.path.clone() } else { format!("{}?{}", req.path, req.query) };
            let mut r = Response::text(
                500,
                &format!(
                    "Internal Server Error: {uri:?}: requested [{}] without impersonating a user\n",
                    asked.join(" ")
                ),
            );
            r.headers.push(("X-Content-Type-Options".into(), "nosniff".into()));
            return Err(r);
        };
        let check = |a: Attributes| -> Result<(), Response> {
            if self.decide(&user, &a, false).allowed {
                Ok(())
            } else {
                Err(Response::status(&forbidden(&a, &user.name, "")))
            }
        };
        let impersonate = |group: &str, resource: &str, namespace: &str, name: &str| Attributes {
            verb: "impersonate".into(),
            resource_request: true,
            api_group: group.into(),
            api_version: if group.is_empty() { String::new() } else { "v1".into() },
            namespace: namespace.into(),
            resource: resource.into(),
            name: name.into(),
            ..Default::default()
        };
        let sa = name.strip_prefix("system:serviceaccount:").and_then(|r| r.split_once(':'));
        match sa {
            Some((ns, sa_name)) => check(impersonate("", "serviceaccounts", ns, sa_name))?,
            None => check(impersonate("", "users", "", &name))?,
        }
        for g in &groups {
            check(impersonate("", "groups", "", g))?;
        }
        for (key, vs) in &extra {
            for v in vs {
                check(Attributes {
                    subresource: key.clone(),
                    ..impersonate("authentication.k8s.io", "userextras", "", v)
                })?;
            }
        }
        if let Some(u) = &uid {
            check(impersonate("authentication.k8s.io", "uids", "", u))?;
        }
        let mut as_user = UserInfo { name: name.clone(), uid: uid.unwrap_or_default(), groups, extra };
        if let (Some((ns, _)), true) = (sa, as_user.groups.is_empty()) {
            as_user.groups.push("system:serviceaccounts".into());
            as_user.groups.push(format!("system:serviceaccounts:{ns}"));
        }
        if name == "system:anonymous" {
            if !as_user.in_group("system:unauthenticated") {
                as_user.groups.push("system:unauthenticated".into());
            }
        } else if !as_user.in_group("system:authenticated") && !as_user.in_group("system:unauthenticated") {
            as_user.groups.push("system:authenticated".into());
        }
        Ok(Arc::new(as_user))
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
            .filter_map(|r| {
                Some((r["metadata"]["name"].as_str()?.to_string(), r["rules"].as_array().cloned().unwrap_or_default()))
            })
            .collect();
        self.rbac_cache = Some(RbacCache { at: head, roles, role_bindings, cluster_role_bindings, cluster_rules });
    }

    /// Every binding that applies to `user` (the ClusterRoleBindings, then,
    /// for a namespace, its RoleBindings), with its role's rules or, when
    /// the role is missing, the lookup's error; until `visit` says stop.
    /// (An aggregated ClusterRole grants what the aggregation controller
    /// wrote into its rules, as upstream's authorizer reads it.)
    fn visit_grants(&self, user: &UserInfo, namespace: &str, visit: &mut dyn FnMut(&Grant<'_>) -> bool) {
        let Some(c) = &self.rbac_cache else { return };
        for b in &c.cluster_role_bindings {
            let Some(subject) = subjects(b).iter().find(|s| auth::subject_matches(s, user, "")) else { continue };
            let role = b["roleRef"]["name"].as_str().unwrap_or("");
            let grant = Grant {
                binding: b,
                namespace: "",
                subject,
                role_kind: "ClusterRole",
                role,
                rules: c.cluster_rules.get(role).map(Vec::as_slice).ok_or_else(|| role_not_found("clusterrole", role)),
            };
            if visit(&grant) {
                return;
            }
        }
        if namespace.is_empty() {
            return;
        }
        for b in c.role_bindings.iter().filter(|b| b["metadata"]["namespace"].as_str() == Some(namespace)) {
            let Some(subject) = subjects(b).iter().find(|s| auth::subject_matches(s, user, namespace)) else {
                continue;
            };
            let role_kind = b["roleRef"]["kind"].as_str().unwrap_or("");
            let role = b["roleRef"]["name"].as_str().unwrap_or("");
            let rules = if role_kind == "Role" {
                c.roles
                    .iter()
                    .find(|r| r["metadata"]["name"] == role && r["metadata"]["namespace"] == namespace)
                    .map(|r| r["rules"].as_array().map(Vec::as_slice).unwrap_or(&[]))
                    .ok_or_else(|| role_not_found("role", role))
            } else {
                c.cluster_rules.get(role).map(Vec::as_slice).ok_or_else(|| role_not_found("clusterrole", role))
            };
            if visit(&Grant { binding: b, namespace, subject, role_kind, role, rules }) {
                return;
            }
        }
    }

    /// RBAC's decision (every request is allowed when RBAC is off).
    pub fn authorize(&self, user: &UserInfo, a: &Attributes) -> Decision {
        self.decide(user, a, true)
    }

    /// RBAC's decision; its reasons only when `explain` (the request path
    /// does not need the text). A refusal's reason is empty unless some
    /// binding's role was missing (RBAC then names the lookups that
    /// failed).
    pub(super) fn decide(&self, user: &UserInfo, a: &Attributes, explain: bool) -> Decision {
        if !self.config.rbac || user.in_group("system:masters") {
            return Decision { allowed: true, reason: String::new() };
        }
        let mut decision = Decision { allowed: false, reason: String::new() };
        let mut errors: Vec<String> = Vec::new();
        self.visit_grants(user, &a.namespace, &mut |g| match &g.rules {
            Err(e) => {
                if explain && !errors.contains(e) {
                    errors.push(e.clone());
                }
                false
            }
            Ok(rules) if rules.iter().any(|r| auth::rule_allows(r, a)) => {
                decision.allowed = true;
                if explain {
                    decision.reason = g.allow_reason();
                }
                true
            }
            Ok(_) => false,
        });
        if !decision.allowed && !errors.is_empty() {
            decision.reason = format!("RBAC: {}", aggregate(&errors));
        }
        decision
    }

    /// The rules of a Role (in `namespace`) or ClusterRole, as the RBAC
    /// objects stand (None: there is no such role).
    pub(super) fn role_rules(&self, resource: &str, namespace: &str, name: &str) -> Option<Vec<Value>> {
        let c = self.rbac_cache.as_ref()?;
        if resource == "clusterroles" {
            return c.cluster_rules.get(name).cloned();
        }
        c.roles
            .iter()
            .find(|r| {
                r["metadata"]["namespace"].as_str() == Some(namespace) && r["metadata"]["name"].as_str() == Some(name)
            })
            .map(|r| r["rules"].as_array().cloned().unwrap_or_default())
    }

    /// What `user` may do in `namespace` (cluster-wide rules included), as
    /// a SelfSubjectRulesReview lists it: the rules, and the lookups that
    /// failed (the list is then incomplete).
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> (Vec<Value>, Vec<String>) {
        if !self.config.rbac {
            // (AlwaysAllow's rules; with RBAC on, system:masters sees the
            // rules RBAC gives it, cluster-admin's among them.)
            let everything = serde_json::json!([
                {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                {"verbs": ["*"], "nonResourceURLs": ["*"]},
            ]);
            return (everything.as_array().cloned().unwrap_or_default(), Vec::new());
        }
        let (mut rules, mut errors) = (Vec::new(), Vec::new());
        self.visit_grants(user, namespace, &mut |g| {
            match &g.rules {
                Ok(r) => rules.extend(r.iter().cloned()),
                Err(e) => errors.push(e.clone()),
            }
            false
        });
        (rules, errors)
    }

    /// Authentication and impersonation of a request: the user it acts
    /// as and whether that user is trusted (an in-process component acting
    /// as itself), or the answer that refuses it.
    pub(super) fn identify(&self, req: &Request) -> Result<(Arc<UserInfo>, bool), Response> {
        let (user, trusted) = self.authenticate(req).map_err(|s| Response::status(&s))?;
        let user = self.impersonate(user, req)?;
        Ok((user, trusted && req.header("Impersonate-User").is_none()))
    }

    /// Authorization of a request's attributes for its user: nothing, or
    /// the 403 that answers it.
    pub(super) fn admit(&self, user: &UserInfo, trusted: bool, a: &Attributes) -> Result<(), Response> {
        if trusted || self.decide(user, a, false).allowed {
            Ok(())
        } else {
            Err(Response::status(&forbidden(a, &user.name, "")))
        }
    }
}

/// A header key's `%XX` escapes decoded (upstream unescapes extra keys).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
