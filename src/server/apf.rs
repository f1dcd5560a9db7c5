//! API Priority and Fairness classification, as upstream's filter does it
//! between impersonation and authorization: the first FlowSchema (by
//! `matchingPrecedence`, then name) whose rules match the request's user
//! and attributes picks its priority level; the schema's distinguisher
//! method names the flow. FlowSchemas naming a missing level are skipped;
//! missing mandatory objects are imagined from the bootstrap
//! configuration. Every classified response says what it matched in the
//! `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID`
//! headers; `dispatch.rs` hands the request to the dispatcher.

use crate::sort::Order;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::auth::{Attributes, UserInfo};

/// A FlowSchema as the classifier reads it (read once, when the
/// configuration changes: a request's matching touches no JSON).
#[derive(Clone, Debug)]
struct Schema {
    name: crate::flowcontrol::Name,
    uid: crate::flowcontrol::Name,
    precedence: i64,
    level: crate::flowcontrol::Name,
    /// `ByUser`, `ByNamespace`, or None.
    distinguisher: Option<String>,
    rules: Vec<Rule>,
}

#[derive(Clone, Debug)]
enum Subject {
    User(String),
    Group(String),
    /// (namespace, name or `*`)
    ServiceAccount(String, String),
    Unknown,
}

/// A list of names where `*` is every name.
#[derive(Clone, Debug, Default)]
struct Names(Vec<String>);

impl Names {
    fn of(v: &Value) -> Names {
        Names(v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect())
    }
    fn has(&self, wanted: &str) -> bool {
        self.0.iter().any(|x| x == "*" || x == wanted)
    }
}

#[derive(Clone, Debug)]
struct ResourceRule {
    verbs: Names,
    groups: Names,
    resources: Names,
    cluster_scope: bool,
    namespaces: Names,
}

#[derive(Clone, Debug)]
struct NonResourceRule {
    verbs: Names,
    urls: Vec<String>,
}

/// One `PolicyRulesWithSubjects`.
#[derive(Clone, Debug)]
struct Rule {
    subjects: Vec<Subject>,
    resource_rules: Vec<ResourceRule>,
    non_resource_rules: Vec<NonResourceRule>,
}

/// What the classifier decides by: usable schemas in matching order and
/// each level's uid.
#[derive(Clone, Debug, Default)]
pub struct Config {
    schemas: Vec<Schema>,
    levels: BTreeMap<String, crate::flowcontrol::Name>,
    /// What requests were classified as, by everything a classification
    /// reads (a request like an earlier one is not matched against every
    /// schema again). Kept with this configuration only, and forgotten
    /// all at once past a bound.
    memo: RefCell<super::memo::BoundedMemo<Option<Arc<Classification>>>>,
}

/// Everything a classification reads, as one key, each part led by its
/// length (no two requests' keys run together): whether it is a resource
/// request, the user, the request's attributes (the path only for a
/// non-resource request; never the object's name), then the groups.
/// Lengths are written seven bits a byte, low first, the high bit saying
/// more follow (most parts take one byte).
fn memo_key(user: &UserInfo, a: &Attributes, key: &mut Vec<u8>) {
    let path = if a.resource_request { "" } else { a.path.as_str() };
    let fixed: [&str; 7] = [&user.name, &a.verb, &a.api_group, &a.resource, &a.subresource, &a.namespace, path];
    let groups = user.groups.iter().map(String::as_str);
    // (The buffer is reused: it has room from earlier keys.)
    key.push(u8::from(a.resource_request));
    for part in fixed.into_iter().chain(groups) {
        let mut n = part.len();
        while n >= 0x80 {
            key.push(0x80 | (n & 0x7f) as u8);
            n >>= 7;
        }
        key.push(n as u8);
        key.extend_from_slice(part.as_bytes());
    }
}

/// What a request was classified as.
#[derive(Clone, Debug)]
pub struct Classification {
    pub flow_schema: crate::flowcontrol::Name,
    pub flow_schema_uid: crate::flowcontrol::Name,
    pub priority_level: crate::flowcontrol::Name,
    pub priority_level_uid: crate::flowcontrol::Name,
    /// The flow distinguisher (user name, namespace, or empty).
    pub flow: crate::flowcontrol::Name,
    /// Who asked (shared by the requests it classifies, for the
    /// dispatcher's record of them).
    pub user: crate::flowcontrol::Name,
    /// The flow's hash, which deals its hand of queues (computed once,
    /// with the classification).
    pub flow_hash: u64,
    /// The flow's metrics series, made as they are first fed.
    pub series: Arc<super::metrics::FlowSeries>,
}

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn items<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn rule_of(r: &Value) -> Rule {
    Rule {
        subjects: items(r, "subjects")
            .map(|s| match s["kind"].as_str().unwrap_or("") {
                "User" => Subject::User(text(s, "/user/name").to_string()),
                "Group" => Subject::Group(text(s, "/group/name").to_string()),
                "ServiceAccount" => Subject::ServiceAccount(
                    text(s, "/serviceAccount/namespace").to_string(),
                    text(s, "/serviceAccount/name").to_string(),
                ),
                _ => Subject::Unknown,
            })
            .collect(),
        resource_rules: items(r, "resourceRules")
            .map(|rr| ResourceRule {
                verbs: Names::of(&rr["verbs"]),
                groups: Names::of(&rr["apiGroups"]),
                resources: Names::of(&rr["resources"]),
                cluster_scope: rr["clusterScope"] == true,
                namespaces: Names::of(&rr["namespaces"]),
            })
            .collect(),
        non_resource_rules: items(r, "nonResourceRules")
            .map(|nr| NonResourceRule { verbs: Names::of(&nr["verbs"]), urls: Names::of(&nr["nonResourceURLs"]).0 })
            .collect(),
    }
}

fn schema_of(fs: &Value) -> Schema {
    Schema {
        name: text(fs, "/metadata/name").into(),
        uid: text(fs, "/metadata/uid").into(),
        precedence: fs.pointer("/spec/matchingPrecedence").and_then(Value::as_i64).unwrap_or(1000),
        level: text(fs, "/spec/priorityLevelConfiguration/name").into(),
        distinguisher: fs.pointer("/spec/distinguisherMethod/type").and_then(Value::as_str).map(str::to_string),
        rules: fs.pointer("/spec/rules").and_then(Value::as_array).into_iter().flatten().map(rule_of).collect(),
    }
}

impl Config {
    /// From the stored objects and the mandatory bootstrap ones.
    pub fn new(schemas: &[Value], levels: &[Value], mandatory_schemas: &[Value], mandatory_levels: &[Value]) -> Config {
        let mut level_uids: BTreeMap<String, crate::flowcontrol::Name> =
            levels.iter().map(|l| (text(l, "/metadata/name").to_string(), text(l, "/metadata/uid").into())).collect();
        for l in mandatory_levels {
            level_uids.entry(text(l, "/metadata/name").to_string()).or_default();
        }
        let mut usable: Vec<Schema> =
            schemas.iter().map(schema_of).filter(|s| level_uids.contains_key(&*s.level)).collect();
        for m in mandatory_schemas {
            let m = schema_of(m);
            if !usable.iter().any(|s| s.name == m.name) {
                usable.push(Schema { uid: "".into(), ..m });
            }
        }
        usable.order_by(|a, b| a.precedence.cmp(&b.precedence).then_with(|| a.name.cmp(&b.name)));
        Config { schemas: usable, levels: level_uids, memo: Default::default() }
    }

    /// The first schema matching, and the flow it names (shared: the
    /// requests classified alike share one).
    pub fn classify(&self, user: &UserInfo, a: &Attributes) -> Option<Arc<Classification>> {
        let mut memo = self.memo.borrow_mut();
        memo_key(user, a, memo.key());
        memo.with(|| self.match_schemas(user, a).map(Arc::new), Clone::clone)
    }

    fn match_schemas(&self, user: &UserInfo, a: &Attributes) -> Option<Classification> {
        let s = self.schemas.iter().find(|s| s.rules.iter().any(|r| rule_matches(r, user, a)))?;
        let who: crate::flowcontrol::Name = user.name.as_str().into();
        let flow = match s.distinguisher.as_deref() {
            Some("ByUser") => who.clone(),
            Some("ByNamespace") => a.namespace.as_str().into(),
            _ => Default::default(),
        };
        Some(Classification {
            flow_schema: s.name.clone(),
            flow_schema_uid: s.uid.clone(),
            priority_level: s.level.clone(),
            priority_level_uid: self.levels.get(&*s.level).cloned().unwrap_or_default(),
            flow_hash: crate::flowcontrol::shuffle::flow_hash(&s.name, &flow),
            flow,
            user: who,
            series: Default::default(),
        })
    }
}

fn subject_matches(s: &Subject, user: &UserInfo) -> bool {
    match s {
        Subject::User(name) => name == "*" || *name == user.name,
        Subject::Group(g) => g == "*" || user.in_group(g),
        Subject::ServiceAccount(ns, name) => {
            match user.name.strip_prefix("system:serviceaccount:").and_then(|r| r.split_once(':')) {
                Some((user_ns, user_sa)) => user_ns == ns && (name == "*" || name == user_sa),
                None => false,
            }
        }
        Subject::Unknown => false,
    }
}

fn url_matches(pattern: &str, path: &str) -> bool {
    pattern == "*"
        || pattern == path
        || pattern.strip_suffix('*').is_some_and(|prefix| prefix.ends_with('/') && path.starts_with(prefix))
}

/// A rule's resources name a request's as `resource` or, for a
/// subresource, as `resource/subresource` only (`pods` does not cover
/// `pods/status`); `*` covers both.
fn resource_matches(names: &Names, resource: &str, subresource: &str) -> bool {
    if subresource.is_empty() {
        return names.has(resource);
    }
    names.0.iter().any(|n| {
        n == "*"
            || n.strip_prefix(resource).and_then(|rest| rest.strip_prefix('/')).is_some_and(|sub| sub == subresource)
    })
}

/// One `PolicyRulesWithSubjects`: a subject names the user, and a
/// resource rule (verb, group, resource, namespace or cluster scope) or a
/// non-resource rule (verb, URL) covers the request.
fn rule_matches(rule: &Rule, user: &UserInfo, a: &Attributes) -> bool {
    if !rule.subjects.iter().any(|s| subject_matches(s, user)) {
        return false;
    }
    if a.resource_request {
        rule.resource_rules.iter().any(|r| {
            r.verbs.has(&a.verb)
                && r.groups.has(&a.api_group)
                && resource_matches(&r.resources, &a.resource, &a.subresource)
                && if a.namespace.is_empty() { r.cluster_scope } else { r.namespaces.has(&a.namespace) }
        })
    } else {
        rule.non_resource_rules.iter().any(|r| r.verbs.has(&a.verb) && r.urls.iter().any(|p| url_matches(p, &a.path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key read back into its parts: the resource flag, then each part
    /// by its length.
    fn parts_of(key: &[u8]) -> (bool, Vec<String>) {
        let mut parts = Vec::new();
        let mut i = 1;
        while i < key.len() {
            let (mut n, mut shift) = (0usize, 0);
            loop {
                let b = key[i];
                i += 1;
                n |= usize::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            parts.push(String::from_utf8(key[i..i + n].to_vec()).unwrap());
            i += n;
        }
        (key[0] == 1, parts)
    }

    /// Every part of a memo key comes back out of it as it went in, short
    /// and long (lengths of one, two and three bytes): two requests share a
    /// key only when everything the classification reads is the same.
    #[test]
    fn a_memo_key_holds_each_part_whole() {
        let long = |n: usize| "x".repeat(n);
        let cases = [
            (UserInfo::new("ab", &["g1", "g2"]), "c", true, "/api"),
            (UserInfo::new("a", &["g1g2"]), "bc", true, "/api"),
            (UserInfo::new(&long(127), &[]), &long(128), false, "/healthz"),
            (UserInfo::new(&long(300), &["", &long(20_000)]), "get", false, &long(16_384)),
        ];
        for (user, verb, resource_request, path) in cases {
            let a = Attributes {
                verb: verb.to_string(),
                resource_request,
                api_group: "apps".into(),
                resource: "deployments".into(),
                subresource: "scale".into(),
                namespace: "ns".into(),
                name: "never-read".into(),
                path: path.to_string(),
                ..Default::default()
            };
            let mut key = Vec::new();
            memo_key(&user, &a, &mut key);
            let path = if resource_request { "" } else { path };
            let mut want = vec![user.name.as_str(), verb, "apps", "deployments", "scale", "ns", path];
            want.extend(user.groups.iter().map(String::as_str));
            assert_eq!(parts_of(&key), (resource_request, want.iter().map(|p| p.to_string()).collect()));
        }
    }
}
