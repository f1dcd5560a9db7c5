//! Who is asking, and may they: the user a request authenticates as,
//! the attributes upstream's `RequestInfoFactory` reads from its path and
//! method, and RBAC's rule matching. IO-free: the native door reads the
//! token file; the server holds the tokens and asks the registry for the
//! roles and bindings.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

/// An authenticated user (upstream's `user.Info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    pub fn new(name: &str, groups: &[&str]) -> UserInfo {
        UserInfo { name: name.into(), groups: groups.iter().map(|g| g.to_string()).collect(), ..Default::default() }
    }

    /// The anonymous user (anonymous requests are on by default upstream).
    pub fn anonymous() -> UserInfo {
        UserInfo::new("system:anonymous", &["system:unauthenticated"])
    }

    /// Who a client of the simulator is when nothing says otherwise: the
    /// cluster's administrator, as a kubeadm or kind cluster's admin
    /// kubeconfig is (`system:masters` may do anything).
    pub fn admin() -> UserInfo {
        UserInfo::new("kubernetes-admin", &["kubeadm:cluster-admins", "system:masters", "system:authenticated"])
    }

    /// The admin user, made once and shared (every request of a server
    /// without tokens acts as it).
    pub fn admin_shared() -> Arc<UserInfo> {
        static ADMIN: std::sync::LazyLock<Arc<UserInfo>> = std::sync::LazyLock::new(|| Arc::new(UserInfo::admin()));
        ADMIN.clone()
    }

    /// The anonymous user, made once and shared.
    pub fn anonymous_shared() -> Arc<UserInfo> {
        static ANONYMOUS: std::sync::LazyLock<Arc<UserInfo>> =
            std::sync::LazyLock::new(|| Arc::new(UserInfo::anonymous()));
        ANONYMOUS.clone()
    }

    pub fn in_group(&self, g: &str) -> bool {
        self.groups.iter().any(|x| x == g)
    }
}

/// The users of a static token file (`--token-auth-file`): lines of
/// `token,user,uid[,"group1,group2"]` (CSV; blank lines and lines starting
/// with `#` skipped).
pub fn parse_token_file(text: &str) -> Result<BTreeMap<String, UserInfo>, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = csv_fields(line);
        if fields.len() < 3 {
            return Err(format!(
                "token file must have at least 3 columns (token, user name, user uid), found {} on line {}",
                fields.len(),
                n + 1
            ));
        }
        let mut user = UserInfo { name: fields[1].clone(), uid: fields[2].clone(), ..Default::default() };
        if let Some(groups) = fields.get(3) {
            user.groups = groups.split(',').map(str::trim).filter(|g| !g.is_empty()).map(str::to_string).collect();
        }
        out.insert(fields[0].clone(), user);
    }
    Ok(out)
}

/// One CSV line's fields (double quotes group, `""` is a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// What a request asks to do (upstream's `authorizer.Attributes` from its
/// `RequestInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    pub verb: String,
    /// A resource request (else a non-resource URL: `path`).
    pub resource_request: bool,
    pub api_group: String,
    pub api_version: String,
    pub namespace: String,
    pub resource: String,
    pub subresource: String,
    pub name: String,
    pub path: String,
}

/// A path's `/`-separated segments after the first `skip`, in a vector
/// made once with room for the longest API path's (a collected split
/// grows from four to eight for a namespaced resource's path).
pub fn segments(path: &str, skip: usize) -> Vec<&str> {
    let mut v = Vec::with_capacity(10);
    // A byte loop: `str::split` searches for each `/` with memchr, whose
    // setup outweighs segments this short (~900 instructions a path).
    let (mut start, mut n) = (0, 0);
    for (i, b) in path.bytes().enumerate() {
        if b == b'/' {
            if n >= skip {
                // (`/` is ASCII: both ends are character boundaries.)
                v.push(path.get(start..i).unwrap_or_default());
            }
            (start, n) = (i + 1, n + 1);
        }
    }
    if n >= skip {
        v.push(path.get(start..).unwrap_or_default());
    }
    v
}

#[cfg(test)]
#[test]
fn segments_are_split_as_str_split_splits() {
    let every_byte: String = (1u8..128).map(char::from).collect();
    for path in [
        "",
        "/",
        "//",
        "a",
        "/api/v1",
        "api/v1/namespaces/default/configmaps/",
        "/é/ü//x",
        "a/b/c/d/e/f/g/h/i/j/k",
        "./0/./0/0./.0//..00/./././0/0/0",
        "/////////////////",
        "..................",
        &every_byte,
        // Bytes above 0x7f, among them AF (`/` with its top bit set).
        "¯/¯¯¯¯¯¯¯¯/a¯/¯",
        &every_byte.repeat(3).replace('a', "/"),
    ] {
        for skip in 0..3 {
            let want: Vec<&str> = path.split('/').skip(skip).collect();
            assert_eq!(segments(path, skip), want, "{path:?} skipping {skip}");
        }
    }
}

/// The attributes of a request, as upstream's `RequestInfoFactory` reads
/// them from the method, path and query.
pub fn attributes(method: &str, path: &str, query: &str) -> Attributes {
    let mut a = Attributes { path: path.to_string(), ..Default::default() };
    let non_resource = |mut a: Attributes| {
        a.verb = method.to_ascii_lowercase();
        a
    };
    let mut parts = segments(path.trim_matches('/'), 0);
    parts.retain(|p| !p.is_empty());
    let mut rest: &[&str] = match parts.as_slice() {
        ["api", v, rest @ ..] => {
            a.api_version = v.to_string();
            rest
        }
        ["apis", g, v, rest @ ..] => {
            a.api_group = g.to_string();
            a.api_version = v.to_string();
            rest
        }
        _ => return non_resource(a),
    };
    if rest.is_empty() {
        // `/api/v1`, `/apis/apps/v1`: discovery.
        return non_resource(a);
    }
    a.resource_request = true;
    let watch_prefix = rest[0] == "watch";
    if watch_prefix {
        rest = &rest[1..];
    }
    if rest.first() == Some(&"namespaces") && rest.len() >= 2 {
        a.namespace = rest[1].to_string();
        // `/namespaces/NAME` and its own subresources name the namespace.
        if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
            rest = &rest[2..];
        }
    }
    a.resource = rest.first().map(|s| s.to_string()).unwrap_or_default();
    a.name = rest.get(1).map(|s| s.to_string()).unwrap_or_default();
    a.subresource = rest.get(2).map(|s| s.to_string()).unwrap_or_default();
    let watch = watch_prefix
        || query.split('&').any(|kv| matches!(kv.split_once('='), Some(("watch", "true" | "1"))) || kv == "watch");
    a.verb = match method {
        "GET" | "HEAD" if watch => "watch",
        "GET" | "HEAD" if a.name.is_empty() => "list",
        "GET" | "HEAD" => "get",
        "POST" => "create",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" if a.name.is_empty() => "deletecollection",
        "DELETE" => "delete",
        other => return Attributes { verb: other.to_ascii_lowercase(), ..a },
    }
    .to_string();
    a
}

fn has(list: &Value, wanted: &str) -> bool {
    list.as_array().into_iter().flatten().filter_map(Value::as_str).any(|v| v == "*" || v == wanted)
}

/// Whether one RBAC `PolicyRule` allows the request (upstream's
/// `RuleAllows`).
pub fn rule_allows(rule: &Value, a: &Attributes) -> bool {
    if !has(&rule["verbs"], &a.verb) {
        return false;
    }
    if a.resource_request {
        let combined =
            if a.subresource.is_empty() { a.resource.clone() } else { format!("{}/{}", a.resource, a.subresource) };
        let resources = rule["resources"].as_array().into_iter().flatten().filter_map(Value::as_str);
        let resource_ok = resources
            .into_iter()
            .any(|r| r == "*" || r == combined || (!a.subresource.is_empty() && r == format!("*/{}", a.subresource)));
        let names = rule["resourceNames"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let name_ok = names.is_empty() || names.iter().any(|n| n.as_str() == Some(a.name.as_str()));
        has(&rule["apiGroups"], &a.api_group) && resource_ok && name_ok
    } else {
        rule["nonResourceURLs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|u| u == "*" || u == a.path || u.strip_suffix('*').is_some_and(|prefix| a.path.starts_with(prefix)))
    }
}

/// One atom of an RBAC rule (upstream's `BreakdownRule`): one verb on one
/// resource of one group, with at most one name, or one verb on one URL.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleAtom {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub name: Option<String>,
    pub url: Option<String>,
}

impl RuleAtom {
    /// The request the atom stands for: a rule covers the atom (upstream's
    /// `ruleCovers`) exactly when it allows that request.
    pub fn attributes(&self) -> Attributes {
        let Some(url) = &self.url else {
            let (resource, subresource) = self.resource.split_once('/').unwrap_or((&self.resource, ""));
            return Attributes {
                verb: self.verb.clone(),
                resource_request: true,
                api_group: self.group.clone(),
                resource: resource.into(),
                subresource: subresource.into(),
                name: self.name.clone().unwrap_or_default(),
                ..Default::default()
            };
        };
        Attributes { verb: self.verb.clone(), path: url.clone(), ..Default::default() }
    }
}

/// A rule's atoms: every group × resource × verb (× name), then every
/// URL × verb.
pub fn breakdown(rule: &Value) -> Vec<RuleAtom> {
    let strings = |key: &str| -> Vec<&str> {
        rule.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
    };
    let (verbs, names) = (strings("verbs"), strings("resourceNames"));
    let mut atoms = Vec::new();
    for group in strings("apiGroups") {
        for resource in strings("resources") {
            for verb in &verbs {
                let atom = |name: Option<&str>| RuleAtom {
                    verb: verb.to_string(),
                    group: group.into(),
                    resource: resource.into(),
                    name: name.map(str::to_string),
                    url: None,
                };
                if names.is_empty() {
                    atoms.push(atom(None));
                }
                atoms.extend(names.iter().map(|n| atom(Some(n))));
            }
        }
    }
    for url in strings("nonResourceURLs") {
        atoms.extend(verbs.iter().map(|v| RuleAtom {
            verb: v.to_string(),
            group: String::new(),
            resource: String::new(),
            name: None,
            url: Some(url.into()),
        }));
    }
    atoms
}

/// Whether a binding's subject is the user (upstream's `appliesToUser`).
pub fn subject_matches(subject: &Value, user: &UserInfo, binding_namespace: &str) -> bool {
    let name = subject["name"].as_str().unwrap_or("");
    match subject["kind"].as_str().unwrap_or("") {
        "User" => user.name == name,
        "Group" => user.in_group(name),
        "ServiceAccount" => {
            let ns = subject["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or(binding_namespace);
            user.name == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_attributes_as_upstream_reads_them() {
        let a = attributes("GET", "/api/v1/namespaces/default/pods", "");
        assert_eq!((a.verb.as_str(), a.resource.as_str(), a.namespace.as_str()), ("list", "pods", "default"));
        let a = attributes("GET", "/api/v1/namespaces/default/pods", "watch=true");
        assert_eq!(a.verb, "watch");
        let a = attributes("GET", "/api/v1/namespaces/default/pods/web/log", "");
        assert_eq!((a.verb.as_str(), a.name.as_str(), a.subresource.as_str()), ("get", "web", "log"));
        let a = attributes("DELETE", "/apis/apps/v1/namespaces/ns/deployments", "");
        assert_eq!((a.verb.as_str(), a.api_group.as_str()), ("deletecollection", "apps"));
        let a = attributes("GET", "/api/v1/namespaces/kube-system", "");
        assert_eq!(
            (a.resource.as_str(), a.name.as_str(), a.namespace.as_str()),
            ("namespaces", "kube-system", "kube-system")
        );
        let a = attributes("PUT", "/api/v1/namespaces/x/finalize", "");
        assert_eq!((a.resource.as_str(), a.name.as_str(), a.subresource.as_str()), ("namespaces", "x", "finalize"));
        let a = attributes("GET", "/apis/apps/v1", "");
        assert!(!a.resource_request);
        assert_eq!((a.verb.as_str(), a.path.as_str()), ("get", "/apis/apps/v1"));
        let a = attributes("GET", "/healthz", "");
        assert!(!a.resource_request);
    }

    #[test]
    fn rules_and_subjects() {
        let rule = json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "pods/log"]});
        assert!(rule_allows(&rule, &attributes("GET", "/api/v1/namespaces/a/pods", "")));
        assert!(rule_allows(&rule, &attributes("GET", "/api/v1/namespaces/a/pods/p/log", "")));
        assert!(!rule_allows(&rule, &attributes("GET", "/api/v1/namespaces/a/pods/p/status", "")));
        assert!(!rule_allows(&rule, &attributes("DELETE", "/api/v1/namespaces/a/pods/p", "")));
        assert!(!rule_allows(&rule, &attributes("GET", "/apis/apps/v1/namespaces/a/deployments", "")));
        let named = json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*/scale"], "resourceNames": ["web"]});
        assert!(rule_allows(&named, &attributes("PUT", "/apis/apps/v1/namespaces/a/deployments/web/scale", "")));
        assert!(!rule_allows(&named, &attributes("PUT", "/apis/apps/v1/namespaces/a/deployments/db/scale", "")));
        let urls = json!({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/api", "/api/*"]});
        assert!(rule_allows(&urls, &attributes("GET", "/api/v1", "")));
        assert!(!rule_allows(&urls, &attributes("GET", "/apis", "")));
        let alice = UserInfo::new("alice", &["dev", "system:authenticated"]);
        assert!(subject_matches(&json!({"kind": "Group", "name": "dev"}), &alice, ""));
        let sa = UserInfo::new("system:serviceaccount:ns:robot", &[]);
        assert!(subject_matches(&json!({"kind": "ServiceAccount", "name": "robot"}), &sa, "ns"));
        assert!(!subject_matches(&json!({"kind": "ServiceAccount", "name": "robot", "namespace": "other"}), &sa, "ns"));
    }

    #[test]
    fn token_files() {
        let users = parse_token_file("# comment\nt1,alice,u1,\"dev,ops\"\nt2,bob,u2\n").unwrap();
        assert_eq!(users["t1"].groups, vec!["dev", "ops"]);
        assert_eq!(users["t2"].name, "bob");
        assert!(parse_token_file("t,alice\n").is_err());
    }
}
