//! The reviews: `authorization.k8s.io` SubjectAccessReview,
//! SelfSubjectAccessReview, LocalSubjectAccessReview and
//! SelfSubjectRulesReview, and `authentication.k8s.io` SelfSubjectReview
//! and TokenReview.
//! Each is created and answered from the same authenticator and
//! authorizer that admit every request, and never stored (upstream's
//! review storage is a create-only REST endpoint, too). This is what
//! `kubectl auth can-i` (and `--list`) and `kubectl auth whoami` ask, and
//! what a webhook or an aggregated server asks of a bearer token.

use serde_json::{json, Map, Value};

use super::Server;
use super::Warnings;
use crate::api::{FieldError, Status};
use crate::auth::{Attributes, UserInfo};
use crate::registry::decode::{self, RequestBody};
use crate::registry::options::FieldValidation;
use crate::registry::ResourceType;

/// Is this resource a review (answered here, never stored)?
pub(super) fn is_review(rt: &ResourceType) -> bool {
    matches!(
        (rt.group(), rt.resource()),
        (
            "authorization.k8s.io",
            "subjectaccessreviews"
                | "selfsubjectaccessreviews"
                | "localsubjectaccessreviews"
                | "selfsubjectrulesreviews"
        ) | ("authentication.k8s.io", "selfsubjectreviews" | "tokenreviews")
    )
}

/// A user as a review's status shows it (`username`, `uid`, `groups`,
/// `extra`; empty ones left out, as Go's `omitempty` does).
fn user_info(user: &UserInfo) -> Value {
    let mut out = Map::new();
    out.insert("username".into(), json!(user.name));
    if !user.uid.is_empty() {
        out.insert("uid".into(), json!(user.uid));
    }
    if !user.groups.is_empty() {
        out.insert("groups".into(), json!(user.groups));
    }
    if !user.extra.is_empty() {
        out.insert("extra".into(), json!(user.extra));
    }
    Value::Object(out)
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A JSON field's Go struct field name (`generateName` → `GenerateName`).
fn go_field(json_name: &str) -> String {
    let mut chars = json_name.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// Metadata as Go's `%#v` would name what is set in it (abbreviated: the
/// fields left at their zero values are not listed).
fn go_object_meta(meta: &Map<String, Value>) -> String {
    let fields: Vec<String> = meta
        .iter()
        .filter(|(k, v)| !crate::api::is_go_zero(v) && k.as_str() != "managedFields")
        .map(|(k, v)| match v {
            Value::String(s) => format!("{}:{s:?}", go_field(k)),
            other => format!("{}:{other}", go_field(k)),
        })
        .collect();
    format!("v1.ObjectMeta{{{}}}", fields.join(", "))
}

/// A spec's attributes as Go's `%#v` prints them.
fn go_attributes(kind: &str, v: &Value) -> String {
    if v.is_null() {
        return "null".into();
    }
    let fields: Vec<String> = v
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k, v.as_str()?)))
        .map(|(k, s)| format!("{}:{s:?}", go_field(k)))
        .collect();
    format!("authorization.{kind}{{{}}}", fields.join(", "))
}

/// An access review's spec checked as upstream's validation checks it.
/// `subject`: the spec names whom it asks about (SubjectAccessReview and
/// LocalSubjectAccessReview).
fn validate_access_review(obj: &Map<String, Value>, kind: &str, subject: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    let resource = spec.get("resourceAttributes").filter(|v| !v.is_null());
    let non_resource = spec.get("nonResourceAttributes").filter(|v| !v.is_null());
    match (resource, non_resource) {
        (Some(_), Some(n)) => errs.push(FieldError::invalid_raw(
            "spec.nonResourceAttributes",
            &go_attributes("NonResourceAttributes", n),
            "cannot be specified in combination with resourceAttributes",
        )),
        (None, None) => errs.push(FieldError::invalid(
            "spec.resourceAttributes",
            "null",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )),
        _ => {}
    }
    if subject
        && str_of(&spec, "user").is_empty()
        && spec.get("groups").and_then(Value::as_array).is_none_or(Vec::is_empty)
    {
        errs.push(FieldError::invalid("spec.user", "", "at least one of user or group must be specified"));
    }
    let empty = Map::new();
    let meta = obj.get("metadata").and_then(Value::as_object).unwrap_or(&empty);
    let local = kind == "LocalSubjectAccessReview";
    let set =
        meta.iter().any(|(k, v)| k != "managedFields" && !(local && k == "namespace") && !crate::api::is_go_zero(v));
    if set {
        let why = if local { "must be empty except for namespace" } else { "must be empty" };
        errs.push(FieldError::invalid_raw("metadata", &go_object_meta(meta), why));
    }
    if local {
        let namespace = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
        if let Some(r) = resource {
            if str_of(r, "namespace") != namespace {
                errs.push(FieldError::invalid(
                    "spec.resourceAttributes.namespace",
                    str_of(r, "namespace"),
                    "must match metadata.namespace",
                ));
            }
        }
        if let Some(n) = non_resource {
            errs.push(FieldError::invalid_raw(
                "spec.nonResourceAttributes",
                &go_attributes("NonResourceAttributes", n),
                "disallowed on this kind of request",
            ));
        }
    }
    errs
}

/// What an access review's spec asks about, as the authorizer's
/// attributes.
fn attributes_of(spec: &Value) -> Attributes {
    match spec.get("resourceAttributes").filter(|v| !v.is_null()) {
        Some(r) => Attributes {
            verb: str_of(r, "verb").into(),
            resource_request: true,
            api_group: str_of(r, "group").into(),
            api_version: str_of(r, "version").into(),
            namespace: str_of(r, "namespace").into(),
            resource: str_of(r, "resource").into(),
            subresource: str_of(r, "subresource").into(),
            name: str_of(r, "name").into(),
            path: String::new(),
        },
        None => {
            let n = spec.get("nonResourceAttributes").unwrap_or(&Value::Null);
            Attributes { verb: str_of(n, "verb").into(), path: str_of(n, "path").into(), ..Default::default() }
        }
    }
}

/// The user a SubjectAccessReview's spec names.
fn subject_of(spec: &Value) -> UserInfo {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    UserInfo {
        name: str_of(spec, "user").into(),
        uid: str_of(spec, "uid").into(),
        groups: strings(spec.get("groups")),
        extra: spec
            .get("extra")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), strings(Some(v))))
            .collect(),
    }
}

impl Server {
    /// Creates a review: decoded as any create body is, then answered.
    pub(super) fn review(
        &self,
        rt: &ResourceType,
        namespace: &str,
        body: RequestBody<'_>,
        fv: FieldValidation,
        warnings: &mut Warnings,
    ) -> Result<Value, Status> {
        let mut obj = decode::object(rt, body, fv, warnings)?;
        if rt.namespaced {
            // As the create handler does for every namespaced kind.
            let meta = obj.entry("metadata").or_insert_with(|| json!({}));
            match meta.get("namespace").and_then(Value::as_str).unwrap_or("") {
                "" => meta["namespace"] = json!(namespace),
                ns if ns == namespace => {}
                _ => {
                    return Err(Status::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ))
                }
            }
        }
        let user = &self.acting;
        let type_meta = |obj: &Map<String, Value>| {
            let mut out = Map::new();
            for k in ["kind", "apiVersion"] {
                if let Some(v) = obj.get(k) {
                    out.insert(k.into(), v.clone());
                }
            }
            out
        };
        match rt.kind() {
            "SelfSubjectReview" => {
                let mut out = type_meta(&obj);
                out.insert("metadata".into(), json!({"creationTimestamp": self.now().rfc3339()}));
                out.insert("status".into(), json!({"userInfo": user_info(user)}));
                Ok(Value::Object(out))
            }
            "TokenReview" => {
                let spec = obj.get("spec").filter(|s| s.is_object()).cloned().unwrap_or_else(|| json!({}));
                let token = str_of(&spec, "token");
                if token.is_empty() {
                    return Err(Status::bad_request("token is required for TokenReview in authentication"));
                }
                let requested: Vec<&str> =
                    spec["audiences"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                let wanted = if requested.is_empty() { super::tokens::API_AUDIENCES } else { &requested[..] };
                let status = self.token_review(token, wanted);
                // The system fields wiped, the namespace cleared, as the
                // create handler does for a cluster-scoped kind.
                let mut meta = obj.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
                for k in ["namespace", "selfLink", "uid", "creationTimestamp", "deletionTimestamp"] {
                    meta.shift_remove(k);
                }
                meta.shift_remove("deletionGracePeriodSeconds");
                meta.insert("creationTimestamp".into(), Value::Null);
                let mut out = type_meta(&obj);
                out.insert("metadata".into(), Value::Object(meta));
                out.insert("spec".into(), spec);
                out.insert("status".into(), status);
                Ok(Value::Object(out))
            }
            "SelfSubjectRulesReview" => {
                let ns = obj.get("spec").map(|s| str_of(s, "namespace")).unwrap_or("");
                if ns.is_empty() {
                    return Err(Status::bad_request("no namespace on request"));
                }
                let (rules, errors) = self.rules_for(user, ns);
                let strings = |r: &Value, k: &str| r.get(k).cloned().unwrap_or_else(|| json!([]));
                let resource_rules: Vec<Value> = rules
                    .iter()
                    .filter(|r| r["resources"].as_array().is_some_and(|a| !a.is_empty()))
                    .map(|r| {
                        let mut rule = json!({"verbs": strings(r, "verbs")});
                        for k in ["apiGroups", "resources", "resourceNames"] {
                            if r[k].as_array().is_some_and(|a| !a.is_empty()) {
                                rule[k] = r[k].clone();
                            }
                        }
                        rule
                    })
                    .collect();
                let non_resource_rules: Vec<Value> = rules
                    .iter()
                    .filter(|r| r["nonResourceURLs"].as_array().is_some_and(|a| !a.is_empty()))
                    .map(|r| json!({"verbs": strings(r, "verbs"), "nonResourceURLs": r["nonResourceURLs"]}))
                    .collect();
                let mut status = json!({
                    "resourceRules": resource_rules,
                    "nonResourceRules": non_resource_rules,
                    "incomplete": false,
                });
                if !errors.is_empty() {
                    status["evaluationError"] = json!(super::authz::aggregate(&errors));
                }
                let mut out = type_meta(&obj);
                out.insert("metadata".into(), json!({"creationTimestamp": null}));
                out.insert("spec".into(), json!({}));
                out.insert("status".into(), status);
                Ok(Value::Object(out))
            }
            kind => {
                let about_someone = kind != "SelfSubjectAccessReview";
                let errors = validate_access_review(&obj, kind, about_someone);
                if !errors.is_empty() {
                    // The decoded object's kind is cleared by then upstream,
                    // so the 422 names the group alone.
                    return Err(Status::invalid(rt.group(), "", "", &errors));
                }
                let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
                let subject = if about_someone { subject_of(&spec) } else { UserInfo::clone(user) };
                let decision = self.authorize(&subject, &attributes_of(&spec));
                let mut status = json!({"allowed": decision.allowed});
                if !decision.reason.is_empty() {
                    status["reason"] = json!(decision.reason);
                }
                let meta = obj.entry("metadata").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.entry("creationTimestamp").or_insert(Value::Null);
                }
                obj.insert("status".into(), status);
                Ok(Value::Object(obj))
            }
        }
    }
}

impl Server {
    /// A TokenReview's status: what the server's authenticators make of
    /// `token` for the audiences `wanted`, as upstream's storage asks them
    /// through a request of its own (`Authorization: Bearer TOKEN`, split
    /// at spaces as the bearer-token reader splits it: an empty token is
    /// the anonymous user). A failure names upstream's union of errors: the
    /// loopback authenticator's `invalid bearer token` first.
    fn token_review(&self, token: &str, wanted: &[&str]) -> Value {
        let token = token.split(' ').next().unwrap_or("");
        if token.is_empty() {
            return json!({"authenticated": true, "user": user_info(&UserInfo::anonymous()), "audiences": wanted});
        }
        let read = match self.service_account_token(token, wanted) {
            Some(read) => read.map_err(Some),
            // The token file's users do not care for audiences: theirs are
            // the server's, as many as were asked for.
            None => match self.config.tokens.as_ref().and_then(|t| t.get(token)) {
                Some(user) => {
                    let audiences: Vec<String> = wanted
                        .iter()
                        .filter(|a| super::tokens::API_AUDIENCES.contains(a))
                        .map(|a| a.to_string())
                        .collect();
                    let mut user = user.clone();
                    if !user.in_group("system:authenticated") && !user.in_group("system:unauthenticated") {
                        user.groups.push("system:authenticated".into());
                    }
                    if audiences.is_empty() {
                        Err(None)
                    } else {
                        Ok((user, audiences))
                    }
                }
                None => Err(None),
            },
        };
        match read {
            Ok((user, audiences)) => json!({"authenticated": true, "user": user_info(&user), "audiences": audiences}),
            Err(None) => json!({"user": {}, "error": "invalid bearer token"}),
            Err(Some(why)) => json!({"user": {}, "error": format!("[invalid bearer token, {why}]")}),
        }
    }
}
