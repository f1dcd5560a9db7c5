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
use std::collections::{BTreeMap, HashMap};

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
    memo: RefCell<Memo>,
}

type Fast = foldhash::fast::FixedState;

#[derive(Clone, Debug, Default)]
struct Memo {
    /// By the hash of the key: keys, each with its classification.
    by_hash: HashMap<u64, Vec<(MemoKey, Option<Classification>)>, Fast>,
    len: usize,
}

/// What a classification depends on: the user and groups, and the
/// request's attributes (the path only for a non-resource request; never
/// the object's name).
#[derive(Clone, Debug, PartialEq, Eq)]
struct MemoKey {
    user: String,
    groups: Vec<String>,
    resource_request: bool,
    verb: String,
    api_group: String,
    resource: String,
    subresource: String,
    namespace: String,
    path: String,
}

impl MemoKey {
    fn of(user: &UserInfo, a: &Attributes) -> MemoKey {
        MemoKey {
            user: user.name.clone(),
            groups: user.groups.clone(),
            resource_request: a.resource_request,
            verb: a.verb.clone(),
            api_group: a.api_group.clone(),
            resource: a.resource.clone(),
            subresource: a.subresource.clone(),
            namespace: a.namespace.clone(),
            path: if a.resource_request { String::new() } else { a.path.clone() },
        }
    }

    fn is(&self, user: &UserInfo, a: &Attributes) -> bool {
        self.user == user.name
            && self.groups == user.groups
            && self.resource_request == a.resource_request
            && self.verb == a.verb
            && self.api_group == a.api_group
            && self.resource == a.resource
            && self.subresource == a.subresource
            && self.namespace == a.namespace
            && (a.resource_request || self.path == a.path)
    }

    /// The hash of the key `of(user, a)` would make, without making it.
    fn hash(user: &UserInfo, a: &Attributes) -> u64 {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = Fast::default().build_hasher();
        user.name.hash(&mut h);
        user.groups.hash(&mut h);
        a.resource_request.hash(&mut h);
        a.verb.hash(&mut h);
        a.api_group.hash(&mut h);
        a.resource.hash(&mut h);
        a.subresource.hash(&mut h);
        a.namespace.hash(&mut h);
        if !a.resource_request {
            a.path.hash(&mut h);
        }
        h.finish()
    }
}

/// What a request was classified as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    pub flow_schema: crate::flowcontrol::Name,
    pub flow_schema_uid: crate::flowcontrol::Name,
    pub priority_level: crate::flowcontrol::Name,
    pub priority_level_uid: crate::flowcontrol::Name,
    /// The flow distinguisher (user name, namespace, or empty).
    pub flow: String,
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

    /// The first schema matching, and the flow it names.
    pub fn classify(&self, user: &UserInfo, a: &Attributes) -> Option<Classification> {
        const BOUND: usize = 4096;
        let hash = MemoKey::hash(user, a);
        let mut memo = self.memo.borrow_mut();
        if let Some((_, c)) = memo.by_hash.get(&hash).and_then(|v| v.iter().find(|(k, _)| k.is(user, a))) {
            return c.clone();
        }
        let c = self.match_schemas(user, a);
        if memo.len >= BOUND {
            *memo = Memo::default();
        }
        memo.by_hash.entry(hash).or_default().push((MemoKey::of(user, a), c.clone()));
        memo.len += 1;
        c
    }

    fn match_schemas(&self, user: &UserInfo, a: &Attributes) -> Option<Classification> {
        let s = self.schemas.iter().find(|s| s.rules.iter().any(|r| rule_matches(r, user, a)))?;
        let flow = match s.distinguisher.as_deref() {
            Some("ByUser") => user.name.clone(),
            Some("ByNamespace") => a.namespace.clone(),
            _ => String::new(),
        };
        Some(Classification {
            flow_schema: s.name.clone(),
            flow_schema_uid: s.uid.clone(),
            priority_level: s.level.clone(),
            priority_level_uid: self.levels.get(&*s.level).cloned().unwrap_or_default(),
            flow,
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
